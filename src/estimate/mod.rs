//! From a sample to production (docs/projection.md): the stage between the sample statistics and
//! the service model. Pure functions of a candidate's per-key sample counts and the production
//! size the user declared.
//!
//! Keys seen often (at least [`HEAVY_MIN_COUNT`] times) keep their sample share, with a Wilson
//! interval. Rarer keys are never scaled one by one by `N / n`: the tail's production documents
//! are shared among the tail's *estimated production* key count, so a unique id stays one
//! document and a complete set of tenants scales linearly. Any key not listed is bounded by a
//! one-sided Poisson limit on its share.

pub mod cluster;
pub mod distinct;
pub mod intervals;
pub mod placement;
pub mod sizes;
pub mod slice;
pub mod validation;

use serde::{Deserialize, Serialize};

pub use distinct::{DistinctEstimate, FrequencyProfile};
use intervals::{poisson_ucl95, simultaneous_z95, wilson};
pub use slice::{SampleRelation, SliceTail};

/// Keys seen at least this often are "heavy": their share is estimated from their count.
pub const HEAVY_MIN_COUNT: u64 = 10;

/// How a candidate's key set behaves as data grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Regime {
    /// Nothing projected: the input is judged as given (the whole population).
    Exact,
    /// One document per logical partition (ids).
    Unique,
    /// New keys keep arriving (users, orders, sessions).
    Growing,
    /// The key set is complete (tenants, categories, states).
    Saturated,
    /// A few heavy keys with a growing tail.
    Mixed,
}

impl Regime {
    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Regime::Exact => "exact",
            Regime::Unique => "unique",
            Regime::Growing => "growing",
            Regime::Saturated => "saturated",
            Regime::Mixed => "mixed",
        }
    }
}

/// What the user declared about production.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    /// Production documents `N` (`n` when nothing is projected).
    pub documents: f64,
    /// Mean stored bytes of a sampled document (to turn shares into bytes).
    pub mean_doc_bytes: f64,
    /// Whether a production size was declared (`--total-size` / `--total-docs`).
    pub projected: bool,
}

/// The projection of one candidate: how each sampled key scales and what bounds the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct Projector {
    /// Sample documents `n`.
    pub sample_documents: f64,
    /// Production documents `N`.
    pub population_documents: f64,
    /// Whether anything is projected (false: every number is the sample's own).
    pub projected: bool,
    /// Documents in production per sampled document of a heavy key (`N / n`).
    pub heavy_scale: f64,
    /// Documents in production per sampled document of a tail key (between 1 and `N / n`).
    pub tail_scale: f64,
    /// Every logical partition holds exactly one item (the key includes `/id`).
    pub one_item: bool,
    /// Largest count among tail keys (below [`HEAVY_MIN_COUNT`]), 0 without tail keys.
    pub tail_max_count: u64,
    /// The normal quantile of the heavy keys' intervals: 95 % simultaneously over every sampled
    /// key (any of them could be the one that looks largest by chance).
    pub z: f64,
    /// The frequency profile it was built from.
    pub profile: FrequencyProfile,
    /// The distinct-key range at `N`.
    pub distinct: DistinctEstimate,
    /// The regime and the evidence for it.
    pub regime: Regime,
    /// Why that regime, in numbers.
    pub regime_evidence: String,
    /// `Some`: the sample is a representative slice for this candidate (`--sample slice`): its
    /// keys keep their size, their number grows, and this is what bounds the unseen ones.
    pub slice: Option<SliceTail>,
    /// The sample is declared a representative slice for this candidate: its keys and their
    /// hierarchical prefixes keep their sampled size and carry `n / N` of the traffic that
    /// follows documents. Also true for a key that never repeats, which has no [`Self::slice`]
    /// (its partitions are one document either way) but whose prefixes are entities.
    pub sliced: bool,
}

impl Projector {
    /// Builds the projection from each sampled key's document count.
    pub fn new(counts: &[u64], target: &Target, one_item: bool) -> Projector {
        Self::from_profile(
            FrequencyProfile::from_counts(counts.iter().copied()),
            target,
            one_item,
        )
    }

    /// Builds the projection from a frequency profile.
    pub fn from_profile(profile: FrequencyProfile, target: &Target, one_item: bool) -> Projector {
        let n = profile.n as f64;
        let projected = target.projected && target.documents > n && n > 0.0;
        let population = if projected { target.documents } else { n };
        let mut distinct = distinct::estimate(&profile, population);
        if one_item && projected {
            // `id` is unique within a logical partition: one partition per item.
            distinct = DistinctEstimate {
                low: population,
                estimate: population,
                high: population,
                method: "one item per logical partition (the key includes /id)".into(),
                estimators: Default::default(),
            };
        }
        let (regime, regime_evidence) =
            classify(&profile, projected.then_some(population), one_item);
        let heavy_scale = if projected { population / n } else { 1.0 };
        let (mut tail_docs, mut tail_keys, mut heavy_keys, mut tail_max) = (0u64, 0u64, 0u64, 0u64);
        for (&c, &k) in &profile.f {
            if c >= HEAVY_MIN_COUNT {
                heavy_keys += k;
            } else {
                tail_docs += c * k;
                tail_keys += k;
                tail_max = tail_max.max(c);
            }
        }
        let tail_scale = if !projected || tail_keys == 0 {
            heavy_scale
        } else if one_item || regime == Regime::Unique {
            1.0
        } else {
            // Production tail documents shared among the production tail keys, per sampled
            // document of a tail key.
            let tail_prod_docs = population * tail_docs as f64 / n;
            let tail_prod_keys = (distinct.estimate - heavy_keys as f64).max(tail_keys as f64);
            let per_key_prod = tail_prod_docs / tail_prod_keys;
            let per_key_sample = tail_docs as f64 / tail_keys as f64;
            (per_key_prod / per_key_sample).clamp(1.0, heavy_scale)
        };
        Projector {
            sample_documents: n,
            population_documents: population,
            projected,
            heavy_scale,
            tail_scale,
            one_item,
            tail_max_count: tail_max,
            z: simultaneous_z95(profile.d as usize),
            profile,
            distinct,
            regime,
            regime_evidence,
            slice: None,
            sliced: false,
        }
    }

    /// Builds the projection of a representative slice (`--sample slice`): every sampled key
    /// keeps its documents, production holds `N / n` times as many keys, and the largest of
    /// those is extrapolated from the slice's largest ([`slice::tail`]). Without a production
    /// size, or for a key with `/id`, it is [`Self::from_profile`].
    pub fn from_slice(profile: FrequencyProfile, target: &Target, one_item: bool) -> Projector {
        let mut p = Self::from_profile(profile, target, one_item);
        if !p.projected {
            return p;
        }
        p.sliced = true;
        if one_item || p.profile.f(1) == p.profile.n {
            // One document per key either way: only the prefixes and the traffic differ.
            return p;
        }
        let growth = p.population_documents / p.sample_documents;
        let tail = slice::tail(&p.profile, growth);
        p.distinct = slice::distinct(&p.profile, p.population_documents, &tail);
        p.heavy_scale = 1.0;
        p.tail_scale = 1.0;
        p.regime = Regime::Growing;
        p.regime_evidence = format!(
            "declared a representative slice: each key keeps its size and production holds {} times as many keys; the sample's profile: {}",
            crate::fmt::count(growth),
            p.regime_evidence
        );
        p.slice = Some(tail);
        p
    }

    /// The share of production's traffic the sampled keys carry when traffic follows
    /// documents: all of it for a uniform sample (each key keeps its share), `n / N` for a
    /// slice (the rest goes to keys the slice does not hold).
    pub fn sampled_traffic_share(&self) -> f64 {
        if self.sliced {
            self.sample_documents / self.population_documents
        } else {
            1.0
        }
    }

    /// Takes the key sampling of `--memory-limit` into the distinct-key range: the sample's own
    /// count is then an estimate (`point`, 95 % interval `low..=high`,
    /// [`crate::stats::sampling::partitions_estimate`]) rather than a fact. Unprojected, that is
    /// the range; projected, the estimators ran on the kept keys weighted by 2^level, and each
    /// of their values is scaled by the ratio of the sample's estimate (its low end for the low
    /// end, its high end for the high end) to that weighted count. A key with `/id` (one item
    /// per partition) is untouched.
    pub fn widen_for_key_sampling(&mut self, low: u64, point: u64, high: u64, one_in: u64) {
        let how = format!("1 key in {one_in} kept by hash, 95 % interval");
        self.regime_evidence.push_str(&format!(
            " (with the key sampling, n, d and the f's count each kept key {one_in} times)"
        ));
        let d = &mut self.distinct;
        if d.method == "exact" {
            *d = DistinctEstimate {
                low: low as f64,
                estimate: point as f64,
                high: high as f64,
                method: format!("key sampling: {how}"),
                estimators: Default::default(),
            };
        } else if !(self.one_item && self.projected) {
            let weighted = self.profile.d.max(1) as f64;
            let cap = self.population_documents;
            d.low = (d.low * low as f64 / weighted).min(cap);
            d.estimate = (d.estimate * point as f64 / weighted).clamp(d.low, cap);
            d.high = (d.high * high as f64 / weighted).clamp(d.estimate, cap.max(d.estimate));
            d.method = format!("{}; scaled by the key sampling ({how})", d.method);
        }
    }

    /// Projected production documents of a key seen `c` times.
    pub fn documents(&self, c: u64) -> f64 {
        if c >= HEAVY_MIN_COUNT {
            c as f64 * self.heavy_scale
        } else {
            c as f64 * self.tail_scale
        }
    }

    /// 95 % range of the production documents of a key seen `c` times: a Wilson interval on its
    /// share for heavy keys (simultaneous over every sampled key, so that the largest of them is
    /// covered too); for tail keys from what was seen to the Poisson upper limit.
    pub fn documents_range(&self, c: u64) -> (f64, f64) {
        if !self.projected {
            return (c as f64, c as f64);
        }
        if self.one_item {
            return (1.0, 1.0);
        }
        if self.slice.is_some() {
            // A slice's key is all there is of it.
            return (c as f64, c as f64);
        }
        let n = self.profile.n;
        let big_n = self.population_documents;
        if c >= HEAVY_MIN_COUNT {
            let (lo, hi) = wilson(c, n, self.z);
            (lo * big_n, hi * big_n)
        } else {
            let hi = poisson_ucl95(c) / n as f64 * big_n;
            (c as f64, hi.max(self.documents(c)))
        }
    }

    /// One-sided 95 % upper bound on the documents of any key *not* heavy (seen fewer than
    /// [`HEAVY_MIN_COUNT`] times, or not at all): `UCL_Poisson(c_max) / n × N`. One item when the
    /// key includes `/id`; 0 when nothing is projected (every key is listed).
    pub fn tail_bound_documents(&self) -> f64 {
        if !self.projected {
            return 0.0;
        }
        if self.one_item {
            return 1.0;
        }
        if let Some(t) = &self.slice {
            // Too few keys to extrapolate: as large as the largest would be if it grew with
            // the container (what a uniform sample would say of it).
            return t.high_max.unwrap_or(t.largest_seen * t.growth);
        }
        poisson_ucl95(self.tail_max_count) / self.sample_documents * self.population_documents
    }

    /// Sample documents needed for the tail bound to fall under `bytes_threshold`, given the
    /// production bytes: `UCL_Poisson(c) × total / threshold`.
    pub fn sample_needed(&self, total_bytes: f64, bytes_threshold: f64) -> f64 {
        (poisson_ucl95(self.tail_max_count.max(HEAVY_MIN_COUNT - 1)) * total_bytes
            / bytes_threshold)
            .ceil()
    }
}

/// Whether every logical partition of `cand` holds exactly one item: the key includes the `/id`
/// property itself (a single key, a hierarchical level, or a part of a synthetic key), and
/// Cosmos DB keeps `id` unique within a logical partition.
pub fn one_item_per_partition(cand: &crate::keys::spec::Candidate) -> bool {
    cand.levels.iter().any(|lv| {
        lv.parts.iter().any(|p| {
            matches!(p, crate::keys::spec::Part::Path(k) if k.segments.len() == 1 && k.segments[0] == "id")
        })
    })
}

/// The largest mean documents per key production could hold (95 %) when none of the sample's `n`
/// documents repeats a key of production's `big_n`: keys of `m` documents put about
/// `n² (m − 1) / 2N` pairs in a uniform sample, and no pair bounds that expectation by
/// `UCL_Poisson(0)` = 2.996, so `m ≤ 1 + 2 × 2.996 × N / n²`.
pub fn unseen_repeats_bound(n: f64, big_n: f64) -> f64 {
    1.0 + 2.0 * poisson_ucl95(0) * big_n / (n * n)
}

/// The regime from the profile: unique when no key repeats and the sample is large enough to
/// show it (production's keys could not average two documents: `n² ≥ 5.99 N`,
/// [`unseen_repeats_bound`]), saturated when the sample has seen nearly every document's key
/// (coverage ≥ 0.9) and the accumulation curve is flat (α < 0.2), growing when most documents
/// bring a new key (coverage < 0.5), mixed otherwise. `population` is production's documents
/// (`None`: nothing projected).
pub fn classify(p: &FrequencyProfile, population: Option<f64>, one_item: bool) -> (Regime, String) {
    let projected = population.is_some();
    let coverage = p.coverage();
    let alpha = p.accumulation_slope();
    let alpha_s = alpha.map_or("n/a".to_string(), |a| format!("{a:.2}"));
    let evidence = format!(
        "n = {}, d = {}, f1 = {} singletons, f2 = {}; Good–Turing coverage 1 − f1/n = {:.3}; accumulation slope α = {alpha_s}",
        p.n,
        p.d,
        p.f(1),
        p.f(2),
        coverage
    );
    if one_item {
        return (
            Regime::Unique,
            format!("the key includes /id, so each logical partition holds exactly one item; {evidence}"),
        );
    }
    if !projected {
        return (Regime::Exact, format!("no production size declared: the input is judged as the whole population; {evidence}"));
    }
    let never_repeats = p.n > 0 && p.f(1) == p.n;
    let bound = unseen_repeats_bound(p.n as f64, population.unwrap_or(0.0));
    if never_repeats && bound >= 2.0 {
        // Too small to tell: no repeat is what keys of several documents give such a sample.
        return (
            Regime::Growing,
            format!(
                "no key repeats, but a uniform sample of {} from {} documents cannot tell one document per key from up to {:.1} (95 %: keys of m documents put about n²(m − 1)/2N pairs in it, and none was seen); {evidence}",
                crate::fmt::count(p.n as f64),
                crate::fmt::approx_count(population.unwrap_or(0.0)),
                bound
            ),
        );
    }
    let regime = if never_repeats {
        Regime::Unique
    } else if coverage >= 0.9 && alpha.is_none_or(|a| a < 0.2) {
        Regime::Saturated
    } else if coverage < 0.5 {
        Regime::Growing
    } else {
        Regime::Mixed
    };
    (regime, evidence)
}

/// How the sample is projected to production.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// The production container holds this many documents.
    TotalDocs(f64),
    /// The production container holds this many (stored) bytes.
    TotalSize(f64),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(n: f64) -> Target {
        Target {
            documents: n,
            mean_doc_bytes: 1000.0,
            projected: true,
        }
    }

    #[test]
    fn unique_keys_stay_one_document() {
        // 3,000 of 10^6 documents: keys of two documents would put n²/2N = 4.5 pairs in the
        // sample, and none came: at most 1 + 5.99 × 10^6 / 9·10^6 = 1.67 documents a key.
        let counts = vec![1u64; 3000];
        let p = Projector::new(&counts, &target(1e6), false);
        assert_eq!(p.regime, Regime::Unique);
        assert_eq!(p.documents(1), 1.0);
        // Nothing repeats, so the tail bound is UCL(1) / n × N = 4.744 / 3000 × 1e6.
        assert!((p.tail_bound_documents() - 4.744 / 3000.0 * 1e6).abs() < 1e-6);
    }

    #[test]
    fn a_sample_too_small_to_show_uniqueness_is_not_called_unique() {
        // 3,000 of 10^9: keys of up to 1 + 2 × 2.996 × 10^9 / 9·10^6 = 666.8 documents would
        // likely show no repeat either. The key is growing, one document at the point, bounded
        // by the tail: UCL(1) / n × N.
        let counts = vec![1u64; 3000];
        let p = Projector::new(&counts, &target(1e9), false);
        assert_eq!(p.regime, Regime::Growing);
        assert!(
            p.regime_evidence.contains("up to 666.8"),
            "{}",
            p.regime_evidence
        );
        assert_eq!(p.documents(1), 1.0);
        assert!((p.tail_bound_documents() - 4.744 / 3000.0 * 1e9).abs() < 1.0);
        assert_eq!(p.documents_range(1), (1.0, 4.744 / 3000.0 * 1e9));
    }

    #[test]
    fn id_keys_are_one_item_whatever_the_scale() {
        let counts = vec![1u64; 3000];
        let p = Projector::new(&counts, &target(1.2e11), true);
        assert_eq!(p.documents(1), 1.0);
        assert_eq!(p.tail_bound_documents(), 1.0);
        assert_eq!(p.documents_range(1), (1.0, 1.0));
    }

    #[test]
    fn saturated_keys_scale_linearly() {
        // 600 tenants each seen 50 times: the set is complete; every key scales by N / n.
        let counts = vec![50u64; 600];
        let p = Projector::new(&counts, &target(3e8), false);
        assert_eq!(p.regime, Regime::Saturated);
        assert!((p.documents(50) - 50.0 * 10_000.0).abs() < 1e-6);
        assert_eq!(p.distinct.low, 600.0);
        assert!(p.distinct.high < 610.0);
    }

    #[test]
    fn key_sampling_widens_the_distinct_range() {
        // Unprojected: the sample's own interval becomes the range, named.
        let counts = vec![1u64; 800];
        let mut p = Projector::new(
            &counts,
            &Target {
                documents: 800.0,
                mean_doc_bytes: 1000.0,
                projected: false,
            },
            false,
        );
        assert_eq!(p.distinct.method, "exact");
        p.widen_for_key_sampling(700, 800, 900, 8);
        assert_eq!(
            (p.distinct.low, p.distinct.estimate, p.distinct.high),
            (700.0, 800.0, 900.0)
        );
        assert!(p.distinct.method.starts_with("key sampling: 1 key in 8"));
        assert!(p.regime_evidence.contains("count each kept key 8 times"));
        // Projected: each end of the estimators' range scales by its end's ratio to the
        // weighted count the estimators saw (600 tenants, each 50 times: d = 600).
        let counts = vec![50u64; 600];
        let mut p = Projector::new(&counts, &target(3e8), false);
        let (lo, est, hi) = (p.distinct.low, p.distinct.estimate, p.distinct.high);
        p.widen_for_key_sampling(540, 600, 660, 4);
        assert!((p.distinct.low - lo * 0.9).abs() < 1e-9, "{:?}", p.distinct);
        assert!((p.distinct.estimate - est).abs() < 1e-9);
        assert!(
            (p.distinct.high - hi * 1.1).abs() < 1e-9,
            "{:?}",
            p.distinct
        );
        assert!(p
            .distinct
            .method
            .ends_with("scaled by the key sampling (1 key in 4 kept by hash, 95 % interval)"));
    }

    #[test]
    fn heavy_keys_get_a_wilson_interval() {
        // One key with 300 of 1,000 documents, 700 singletons; N = 1e6.
        let mut counts = vec![1u64; 700];
        counts.push(300);
        let p = Projector::new(&counts, &target(1e6), false);
        let (lo, hi) = p.documents_range(300);
        // Simultaneous over the 701 sampled keys: z = Φ⁻¹(1 − 0.025/701) = Φ⁻¹(0.9999643) ≈ 3.97.
        assert!((p.z - 3.97).abs() < 0.01, "{}", p.z);
        let (wl, wh) = wilson(300, 1000, p.z);
        assert!((lo - wl * 1e6).abs() < 1e-6 && (hi - wh * 1e6).abs() < 1e-6);
        assert!((p.documents(300) - 300_000.0).abs() < 1e-6);
        // Tail keys grow less than linearly: many new keys share the tail's documents.
        assert!(p.tail_scale >= 1.0 && p.tail_scale < 1000.0);
    }

    #[test]
    fn nothing_is_projected_without_a_target() {
        let counts = vec![5u64, 1, 1];
        let t = Target {
            documents: 7.0,
            mean_doc_bytes: 100.0,
            projected: false,
        };
        let p = Projector::new(&counts, &t, false);
        assert_eq!(p.regime, Regime::Exact);
        assert_eq!(p.documents(5), 5.0);
        assert_eq!(p.documents_range(1), (1.0, 1.0));
        assert_eq!(p.tail_bound_documents(), 0.0);
    }

    #[test]
    fn sample_needed_matches_the_notes() {
        // projection-notes.md: n ≥ 15.71 × S / 14 GB; 1 TB → about 1,100 documents.
        let p = Projector::new(&[1, 2, 3], &target(1e9), false);
        let n = p.sample_needed(1e12, 14e9);
        assert!((n - (15.705f64 * 1e12 / 14e9).ceil()).abs() < 1.0, "{n}");
    }
}
