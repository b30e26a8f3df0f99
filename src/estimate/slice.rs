//! A representative slice (docs/projection.md, "A representative slice"): the sample holds whole
//! entities (every order of 100 customers, every reading of 50 devices), so in production each
//! of its keys keeps the size it has here and only the *number* of keys grows with the
//! container. The opposite of a uniform random sample of documents, where every key keeps its
//! share and grows in size.
//!
//! What a slice cannot show is an entity larger than any it holds: production has `N / n` times
//! as many keys, drawn (the declaration says) from the same size distribution. Their largest is
//! extrapolated from the slice's largest keys with Hill's estimator of the tail index and
//! Weissman's quantile estimator (Weissman 1978; de Haan and Ferreira, *Extreme Value Theory*,
//! 2006, §4.2), and checked against generated populations in [`study`].

use super::distinct::{DistinctEstimate, FrequencyProfile};
use super::intervals::Z95;
use super::validation::SplitMix;
use crate::keys::spec::{Candidate, KeyPath, Part};

/// How the sample relates to production (`--sample`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SampleRelation {
    /// A uniform random sample of documents (the default): each key keeps its share.
    #[default]
    Uniform,
    /// A representative slice for every candidate: each key keeps its size.
    SliceAll,
    /// A slice of these entities: a candidate that reads one of the paths keeps its keys'
    /// sizes; the others are projected as a uniform sample.
    SliceOf(Vec<KeyPath>),
}

impl SampleRelation {
    /// Whether candidate `c` is projected as a slice.
    pub fn slices(&self, c: &Candidate) -> bool {
        match self {
            SampleRelation::Uniform => false,
            SampleRelation::SliceAll => true,
            SampleRelation::SliceOf(paths) => c.levels.iter().any(|lv| {
                lv.parts.iter().any(|p| match p {
                    // A time bucket follows the clock, not an entity.
                    Part::Time { .. } => false,
                    Part::Path(k) | Part::Hash { path: k, .. } => {
                        paths.iter().any(|s| s.segments == k.segments)
                    }
                })
            }),
        }
    }

    /// The declaration in words, for the report.
    pub fn describe(&self) -> String {
        match self {
            SampleRelation::Uniform => {
                "a uniform random sample of documents: each key keeps its share of the container, and grows in size with it".into()
            }
            SampleRelation::SliceAll => {
                "a representative slice: each key keeps its size, and the number of keys grows with the container".into()
            }
            SampleRelation::SliceOf(p) => format!(
                "a representative slice of {}: keys of candidates reading {} keep their size and grow in number; other candidates as a uniform random sample",
                list(p),
                if p.len() == 1 { "it" } else { "them" }
            ),
        }
    }

    /// The short name in the JSON (`uniform` or `slice`).
    pub fn name(&self) -> &'static str {
        match self {
            SampleRelation::Uniform => "uniform",
            _ => "slice",
        }
    }

    /// The sliced paths (`[]` for uniform, `["*"]` for every candidate).
    pub fn paths(&self) -> Vec<String> {
        match self {
            SampleRelation::Uniform => Vec::new(),
            SampleRelation::SliceAll => vec!["*".into()],
            SampleRelation::SliceOf(p) => p.iter().map(|k| k.text.clone()).collect(),
        }
    }
}

fn list(p: &[KeyPath]) -> String {
    p.iter()
        .map(|k| k.text.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fewest keys a slice needs before its largest can be extrapolated.
pub const MIN_SLICE_KEYS: u64 = 5;

/// What a slice says about production's keys: how many there are, and how large the largest
/// of them is likely to be.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceTail {
    /// Keys in the slice.
    pub keys: u64,
    /// Production keys per key of the slice (`N / n`).
    pub growth: f64,
    /// Order statistics the tail index is estimated from (0: too few keys to extrapolate).
    pub k: usize,
    /// Hill's estimate of the tail index γ (0: every large key the same size).
    pub gamma: f64,
    /// Its one-sided 95 % upper bound, `γ (1 + 1.645 / √k)`.
    pub gamma_high: f64,
    /// The moment estimator's index (any sign; 0 for an exponential-like tail).
    pub gamma_moment: f64,
    /// Whether Hill's index marks a heavy tail (the point is then Weissman's).
    pub heavy_tail: bool,
    /// The threshold `X₍k+1₎` and the mean of the `k` sizes above it.
    pub threshold: f64,
    /// Mean of the `k` largest sizes.
    pub top_mean: f64,
    /// Documents of the slice's largest key.
    pub largest_seen: f64,
    /// Median documents of production's largest key (never below `largest_seen`).
    pub expected_max: f64,
    /// 95 % upper bound on production's largest key, documents (`None`: too few keys to say).
    pub high_max: Option<f64>,
}

/// The slice's estimate of production's distinct keys: `N` over the mean documents per key,
/// with a 95 % interval from the spread of the keys' sizes (the standard error of their mean).
/// A tail that may be heavy (Hill's upper bound ≥ ½: the sizes' variance may be infinite) also
/// widens the low end by what production's tail may add to its mean beyond the slice's: above
/// the threshold `u = X₍k+1₎` a Pareto tail of index γ < 1 holds `(k / d) · u / (1 − γ)` per key,
/// at γ's upper bound (at most 0.9), against the slice's `(k / d) · mean(X₍1..k₎)`.
pub fn distinct(p: &FrequencyProfile, population: f64, tail: &SliceTail) -> DistinctEstimate {
    let d = p.d.max(1) as f64;
    let mean = p.n as f64 / d;
    let var =
        p.f.iter()
            .map(|(&c, &k)| k as f64 * (c as f64 - mean).powi(2))
            .sum::<f64>()
            / (d - 1.0).max(1.0);
    let se = (var / d).sqrt();
    let unseen = if tail.gamma_high >= HEAVY_TAIL_GAMMA {
        let k = tail.k as f64;
        (k / d * (tail.threshold / (1.0 - tail.gamma_high.min(0.9)) - tail.top_mean)).max(0.0)
    } else {
        0.0
    };
    let estimate = (population / mean).max(d);
    let low = (population / (mean + Z95 * se + unseen)).clamp(d, estimate);
    let high = (population / (mean - Z95 * se).max(1.0)).clamp(estimate, population.max(d));
    DistinctEstimate {
        low,
        estimate,
        high,
        method: format!(
            "representative slice: production documents over the mean documents per key ({} documents / {} keys = {mean:.2}), 95% interval from the keys' sizes{}",
            p.n,
            p.d,
            if unseen > 0.0 { " and, for their heavy tail, keys larger than any in the slice" } else { "" }
        ),
        estimators: Default::default(),
    }
}

/// How many of the largest keys the tail index is estimated from: `√d`, at least 10, at most
/// `d − 1`; 0 below [`MIN_SLICE_KEYS`] keys.
pub fn tail_keys(d: u64) -> usize {
    if d < MIN_SLICE_KEYS {
        0
    } else {
        ((d as f64).sqrt().round() as usize)
            .max(10)
            .min(d as usize - 1)
    }
}

/// Extrapolates production's largest key from the slice's profile (sizes in documents), with
/// `growth = N / n` production keys per slice key.
pub fn tail(p: &FrequencyProfile, growth: f64) -> SliceTail {
    let k = tail_keys(p.d);
    let mut top: Vec<f64> = Vec::with_capacity(k + 1);
    for (&c, &n) in p.f.iter().rev() {
        let take = n.min((k + 1).saturating_sub(top.len()) as u64);
        top.extend(std::iter::repeat_n(c as f64, take as usize));
        if top.len() > k {
            break;
        }
    }
    if top.is_empty() {
        top.push(0.0);
    }
    tail_of(&top, p.d, growth)
}

/// Hill's index at or above which a tail counts as heavy (Pareto-like) and the point
/// extrapolation is Weissman's; below it, the moment estimator's (consistent for light tails,
/// where Hill's overshoots). Chosen by the study in docs/projection.md.
pub const HEAVY_TAIL_GAMMA: f64 = 0.5;

/// Extrapolates production's largest key from the slice's `top` sizes (largest first, at
/// least [`tail_keys`]`(d) + 1` of them when `d` allows; any unit), of `d` keys in all.
///
/// With `u = X₍k+1₎`, the log excesses `ℓᵢ = ln(X₍i₎ / u)` over the `k` largest and `M = d ×
/// growth` production keys, the `q` quantile of the largest of the `M` sits where a key's
/// exceedance probability is `p = −ln q / M`, i.e. `r = k / (d p)` times beyond the threshold's:
/// - Hill's index `γ_H = mean ℓ`, one-sided 95 % upper bound `γ_H (1 + 1.645 / √k)`;
///   Weissman's quantile `u · r^γ`.
/// - The moment estimator (Dekkers, Einmahl and de Haan 1989) `γ_M = M₁ + 1 − ½ / (1 − M₁² /
///   M₂)` with `M₁, M₂` the first two moments of `ℓ`; its quantile `u + u M₁ (1 − min(γ_M, 0))
///   (r^γ_M − 1) / γ_M` (`ln r` at `γ_M = 0`).
///
/// The point is the median (`q = ½`): Weissman's when `γ_H ≥` [`HEAVY_TAIL_GAMMA`], else the
/// moment estimator's. The 95 % bound (`q = 0.95`) is always Weissman's at Hill's upper bound:
/// conservative on light tails, right on heavy ones.
pub fn tail_of(top: &[f64], d: u64, growth: f64) -> SliceTail {
    let k = tail_keys(d);
    let largest = top.first().copied().unwrap_or(0.0);
    let mut out = SliceTail {
        keys: d,
        growth,
        k,
        gamma: 0.0,
        gamma_high: 0.0,
        gamma_moment: 0.0,
        heavy_tail: false,
        threshold: 0.0,
        top_mean: 0.0,
        largest_seen: largest,
        expected_max: largest,
        high_max: None,
    };
    if k == 0 || top.len() <= k || top[k] <= 0.0 {
        out.k = 0;
        return out;
    }
    let u = top[k];
    let logs: Vec<f64> = top[..k].iter().map(|x| (x / u).ln()).collect();
    let m1 = logs.iter().sum::<f64>() / k as f64;
    let m2 = logs.iter().map(|l| l * l).sum::<f64>() / k as f64;
    let gamma_high = m1 * (1.0 + 1.645 / (k as f64).sqrt());
    let gamma_moment = if m2 > 0.0 {
        m1 + 1.0 - 0.5 / (1.0 - m1 * m1 / m2)
    } else {
        0.0
    };
    let m = d as f64 * growth.max(1.0);
    let r = |q: f64| k as f64 * m / (d as f64 * -q.ln());
    let weissman = |q: f64, g: f64| u * r(q).powf(g);
    let moment = |q: f64| {
        let g = gamma_moment;
        let grow = if g.abs() < 1e-9 {
            r(q).ln()
        } else {
            (r(q).powf(g) - 1.0) / g
        };
        u + u * m1 * (1.0 - g.min(0.0)) * grow
    };
    out.gamma = m1;
    out.threshold = u;
    out.top_mean = top[..k].iter().sum::<f64>() / k as f64;
    out.gamma_high = gamma_high;
    out.gamma_moment = gamma_moment;
    out.heavy_tail = m1 >= HEAVY_TAIL_GAMMA;
    let point = if out.heavy_tail {
        weissman(0.5, m1)
    } else {
        moment(0.5)
    };
    out.expected_max = point.max(largest);
    out.high_max = Some(weissman(0.95, gamma_high).max(out.expected_max));
    out
}

/// Entity-size distributions with a known truth, for [`study`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entities {
    /// Every entity the same size (40 documents).
    Constant,
    /// Geometric sizes, mean 20 (light tail).
    Geometric,
    /// Log-normal sizes, median 20, σ = 1.
    LogNormal,
    /// Pareto sizes, minimum 5, α = 1.5 (heavy tail: a few giant tenants).
    Pareto,
}

impl Entities {
    /// All of them.
    pub const ALL: [Entities; 4] = [
        Entities::Constant,
        Entities::Geometric,
        Entities::LogNormal,
        Entities::Pareto,
    ];

    /// One entity's documents.
    pub fn draw(self, rng: &mut SplitMix) -> u64 {
        let u = rng.unit().clamp(1e-12, 1.0 - 1e-12);
        let x = match self {
            Entities::Constant => 40.0,
            Entities::Geometric => 1.0 + ((1.0 - u).ln() / (1.0f64 - 1.0 / 20.0).ln()).floor(),
            Entities::LogNormal => {
                let v = rng.unit().clamp(1e-12, 1.0);
                let z = (-2.0 * v.ln()).sqrt() * (std::f64::consts::TAU * u).cos();
                (20.0 * z.exp()).round().max(1.0)
            }
            Entities::Pareto => (5.0 / (1.0 - u).powf(1.0 / 1.5)).floor(),
        };
        x.max(1.0) as u64
    }
}

/// The outcome of the slice study for one distribution.
#[derive(Debug, Clone, PartialEq)]
pub struct SliceStudyRow {
    /// The distribution.
    pub entities: Entities,
    /// Share of replicates whose `[largest seen, 95 % bound]` held production's largest.
    pub max_coverage: f64,
    /// Median of the point (`expected_max`) over the truth.
    pub max_point_ratio: f64,
    /// Median of the 95 % bound over the truth.
    pub max_high_ratio: f64,
    /// Share of replicates whose distinct interval held production's key count.
    pub distinct_coverage: f64,
}

/// Draws production (`slice_keys × growth` entities), takes `slice_keys` whole entities of it as
/// the slice, and compares what the slice projects with production, `replicates` times.
pub fn study(
    entities: Entities,
    slice_keys: usize,
    growth: usize,
    replicates: usize,
    seed: u64,
) -> SliceStudyRow {
    let mut rng = SplitMix::new(seed);
    let (mut hit, mut hit_d) = (0usize, 0usize);
    let (mut points, mut highs) = (Vec::new(), Vec::new());
    for _ in 0..replicates {
        let production: Vec<u64> = (0..slice_keys * growth)
            .map(|_| entities.draw(&mut rng))
            .collect();
        let true_max = *production.iter().max().unwrap_or(&1) as f64;
        let total: u64 = production.iter().sum();
        // Production is drawn independently entity by entity: any `slice_keys` of them are a
        // random choice of entities.
        let slice = &production[..slice_keys];
        let profile = FrequencyProfile::from_counts(slice.iter().copied());
        let t = tail(&profile, total as f64 / profile.n as f64);
        let high = t.high_max.unwrap_or(f64::INFINITY);
        if t.largest_seen <= true_max && true_max <= high {
            hit += 1;
        }
        points.push(t.expected_max / true_max);
        highs.push(high / true_max);
        let dist = distinct(&profile, total as f64, &t);
        let truth = production.len() as f64;
        if dist.low <= truth && truth <= dist.high {
            hit_d += 1;
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let r = replicates.max(1) as f64;
    SliceStudyRow {
        entities,
        max_coverage: hit as f64 / r,
        max_point_ratio: median(points),
        max_high_ratio: median(highs),
        distinct_coverage: hit_d as f64 / r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hill_and_weissman_by_hand() {
        // 100 keys: 10 of 40 documents, one of 20, 89 of 10. k = √100 = 10: the ten 40s over
        // the threshold X₍11₎ = 20 give γ = ln 2 = 0.6931; γ_high = γ (1 + 1.645 / √10).
        let mut counts = vec![40u64; 10];
        counts.push(20);
        counts.extend(std::iter::repeat_n(10, 89));
        let p = FrequencyProfile::from_counts(counts);
        let t = tail(&p, 1000.0);
        assert_eq!(t.k, 10);
        assert!(t.heavy_tail);
        assert!((t.gamma - std::f64::consts::LN_2).abs() < 1e-12);
        let gh = std::f64::consts::LN_2 * (1.0 + 1.645 / 10f64.sqrt());
        assert!((t.gamma_high - gh).abs() < 1e-12);
        // M = 100 × 1000 keys: median = 20 × (10 × 1e5 / (100 × ln 2))^γ.
        let want = 20.0 * (10.0 * 1e5 / (100.0 * std::f64::consts::LN_2)).powf(t.gamma);
        assert!((t.expected_max - want).abs() < 1e-6 * want, "{t:?}");
        let want_hi = 20.0 * (10.0 * 1e5 / (100.0 * -(0.95f64.ln()))).powf(gh);
        assert!((t.high_max.unwrap() - want_hi).abs() < 1e-6 * want_hi);
    }

    #[test]
    fn a_bunched_tail_uses_the_moment_estimator() {
        // 100 keys: five of 14, five of 12, the rest 10. ℓ = ln 1.4 = 0.33647 (×5) and
        // ln 1.2 = 0.18232 (×5): M₁ = 0.25940 < 0.5 (light), M₂ = 0.073228, so
        // γ_M = 0.25940 + 1 − 0.5 / (1 − 0.067286 / 0.073228) = −4.903: a bounded tail. Its
        // quantile u + u M₁ (1 + 4.903)(r^γ − 1)/γ tends to 10 + 10 × 0.2594 × 5.903 / 4.903 =
        // 13.12 < 14: production's largest is the slice's largest.
        let mut counts = vec![14u64; 5];
        counts.extend([12u64; 5]);
        counts.extend(std::iter::repeat_n(10, 90));
        let t = tail(&FrequencyProfile::from_counts(counts), 1e4);
        assert!(!t.heavy_tail);
        assert!((t.gamma - 0.25940).abs() < 1e-4, "{t:?}");
        assert!((t.gamma_moment + 4.903).abs() < 2e-3, "{t:?}");
        assert_eq!(t.expected_max, 14.0);
        // The bound stays Hill's: 10 × (10 × 1e6 / (100 × 0.0513))^(0.2594 × 1.520).
        let want = 10.0 * (10.0 * 1e6 / (100.0 * -(0.95f64.ln()))).powf(t.gamma_high);
        assert!((t.high_max.unwrap() - want).abs() < 1e-6 * want);
    }

    #[test]
    fn equal_keys_stay_their_size_and_few_keys_cannot_tell() {
        // Every key 40 documents: γ = 0, production's largest is 40, with no spread.
        let p = FrequencyProfile::from_counts(vec![40u64; 50]);
        let t = tail(&p, 1e6);
        assert_eq!((t.expected_max, t.high_max), (40.0, Some(40.0)));
        // The key count: N / 40 exactly (no spread in sizes).
        let d = distinct(&p, 2000.0 * 1e6, &t);
        assert_eq!((d.low, d.estimate, d.high), (5e7, 5e7, 5e7));
        // Four keys: no extrapolation.
        let t = tail(&FrequencyProfile::from_counts([3u64, 9, 4, 7]), 100.0);
        assert_eq!((t.k, t.high_max, t.expected_max), (0, None, 9.0));
    }

    #[test]
    fn slices_candidates_that_read_a_declared_entity() {
        let paths = vec![crate::keys::spec::parse_candidate("/customerId")
            .unwrap()
            .paths()[0]
            .clone()];
        let r = SampleRelation::SliceOf(paths);
        let c = |s: &str| crate::keys::spec::parse_candidate(s).unwrap();
        assert!(r.slices(&c("/customerId")));
        assert!(r.slices(&c("/customerId>/id")));
        assert!(r.slices(&c("/customerId+day(/ts)")));
        assert!(!r.slices(&c("/categoryId")));
        assert!(!r.slices(&c("day(/customerId)")));
        assert!(SampleRelation::SliceAll.slices(&c("/categoryId")));
        assert!(!SampleRelation::Uniform.slices(&c("/customerId")));
    }

    /// The validation in docs/projection.md ("A representative slice"): slices of 200 whole
    /// entities of a production 1,000 times larger, 40 replicates per distribution. The bound
    /// must hold production's largest in 90 % of them; the point (a median extrapolated three
    /// orders of magnitude) within a factor of 2.5 of the truth in the median replicate.
    #[test]
    fn the_slice_bounds_hold_the_truth_on_known_populations() {
        for e in Entities::ALL {
            let row = study(e, 200, 1000, 40, 11);
            assert!(row.max_coverage >= 0.9, "{row:?}");
            assert!(row.distinct_coverage >= 0.9, "{row:?}");
            match e {
                Entities::Constant => {
                    assert_eq!((row.max_point_ratio, row.max_high_ratio), (1.0, 1.0))
                }
                _ => assert!(
                    row.max_point_ratio > 0.4 && row.max_point_ratio < 2.5,
                    "{row:?}"
                ),
            }
        }
    }
}
