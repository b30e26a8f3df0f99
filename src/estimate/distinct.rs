//! How many distinct logical partitions production holds, from a sample's frequency profile.
//!
//! No single estimator is reliable on every population (docs/projection.md): Chao1 is a lower
//! bound that is tight for saturated key sets, Haas–Stokes Duj1 (PostgreSQL's `n_distinct`) is
//! exact at both extremes, GEE (Charikar et al. 2000) has the best worst-case ratio error, and the
//! accumulation curve extrapolates the growth the sample itself shows. The range reports the
//! smallest and the largest of them, each named, so a user sees which one each end comes from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Counts of counts: how many keys were seen exactly `j` times.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FrequencyProfile {
    /// Documents in the sample.
    pub n: u64,
    /// Distinct keys in the sample.
    pub d: u64,
    /// `f[j]`: keys seen exactly `j` times.
    pub f: BTreeMap<u64, u64>,
}

impl FrequencyProfile {
    /// Builds the profile from each key's document count (zero counts are ignored).
    pub fn from_counts<I: IntoIterator<Item = u64>>(counts: I) -> FrequencyProfile {
        Self::from_weighted_counts(counts.into_iter().map(|c| (c, 1)))
    }

    /// Builds the profile from `(count, keys)` pairs: `keys` keys seen `count` times each (a
    /// key kept by sampling stands for `2^level` keys, [`crate::stats::sampling`]).
    pub fn from_weighted_counts<I: IntoIterator<Item = (u64, u64)>>(counts: I) -> FrequencyProfile {
        // Most keys are seen a few times: count those in an array, the rare large counts in
        // the map directly.
        const SMALL: usize = 1024;
        let mut small = [0u64; SMALL];
        let mut p = FrequencyProfile::default();
        for (c, w) in counts.into_iter().filter(|&(c, w)| c > 0 && w > 0) {
            p.n += c * w;
            p.d += w;
            match small.get_mut(c as usize) {
                Some(slot) => *slot += w,
                None => *p.f.entry(c).or_default() += w,
            }
        }
        for (c, &k) in small.iter().enumerate().filter(|(_, &k)| k > 0) {
            p.f.insert(c as u64, k);
        }
        p
    }

    /// Keys seen exactly `j` times.
    pub fn f(&self, j: u64) -> u64 {
        self.f.get(&j).copied().unwrap_or(0)
    }

    /// The largest count of any key.
    pub fn max_count(&self) -> u64 {
        self.f.keys().next_back().copied().unwrap_or(0)
    }

    /// Good–Turing sample coverage `1 − f1 / n`: the share of production documents whose key
    /// the sample has seen.
    pub fn coverage(&self) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        1.0 - self.f(1) as f64 / self.n as f64
    }

    /// Expected distinct keys in a random subsample of `m` of the `n` documents (rarefaction):
    /// `Σ_j f_j (1 − C(n − j, m) / C(n, m))`.
    pub fn rarefied(&self, m: u64) -> f64 {
        let n = self.n;
        if m >= n {
            return self.d as f64;
        }
        let mut total = 0.0;
        for (&j, &fj) in &self.f {
            // P(a key seen j times is absent from the subsample) = Π_{i<j} (n − m − i)/(n − i).
            let mut absent = 1.0f64;
            for i in 0..j {
                if n - m <= i {
                    absent = 0.0;
                    break;
                }
                absent *= (n - m - i) as f64 / (n - i) as f64;
                if absent < 1e-300 {
                    absent = 0.0;
                    break;
                }
            }
            total += fj as f64 * (1.0 - absent);
        }
        total
    }

    /// Slope of `ln d(m)` against `ln m` over the subsamples `m = n/8, n/4, n/2, n` (Heaps'
    /// exponent): about 1 when every document brings a new key, about 0 when none does.
    pub fn accumulation_slope(&self) -> Option<f64> {
        if self.n < 16 || self.d < 2 {
            return None;
        }
        let pts: Vec<(f64, f64)> = [8u64, 4, 2, 1]
            .iter()
            .map(|&k| {
                let m = self.n / k;
                ((m as f64).ln(), self.rarefied(m).max(1.0).ln())
            })
            .collect();
        let k = pts.len() as f64;
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / k;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / k;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        (sxx > 0.0).then(|| (sxy / sxx).clamp(0.0, 1.0))
    }
}

/// Distinct logical partitions at production size, as a range with a point estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DistinctEstimate {
    /// Lower end of the range.
    pub low: f64,
    /// Point estimate.
    pub estimate: f64,
    /// Upper end of the range.
    pub high: f64,
    /// Which estimator gave each end and the point, e.g. `low Chao1, estimate Duj1, high GEE`,
    /// or `exact` when the input is the whole population.
    pub method: String,
    /// Every estimator's value, by name (empty when exact).
    pub estimators: BTreeMap<String, f64>,
}

/// Bias-corrected Chao1: `d + f1 (f1 − 1) / (2 (f2 + 1))`.
pub fn chao1(p: &FrequencyProfile) -> f64 {
    let (f1, f2) = (p.f(1) as f64, p.f(2) as f64);
    p.d as f64 + f1 * (f1 - 1.0).max(0.0) / (2.0 * (f2 + 1.0))
}

/// Haas–Stokes Duj1: `d / (1 − (1 − q) f1 / n)` with `q = n / N`.
pub fn duj1(p: &FrequencyProfile, population: f64) -> f64 {
    let n = p.n as f64;
    let q = (n / population).min(1.0);
    let denom = 1.0 - (1.0 - q) * p.f(1) as f64 / n;
    if denom <= 0.0 {
        population
    } else {
        p.d as f64 / denom
    }
}

/// GEE: `√(N / n) f1 + Σ_{j≥2} f_j`.
pub fn gee(p: &FrequencyProfile, population: f64) -> f64 {
    let f1 = p.f(1) as f64;
    (population / p.n as f64).max(1.0).sqrt() * f1 + (p.d as f64 - f1)
}

/// Accumulation-curve extrapolation `d (N / n)^α` (α from [`FrequencyProfile::accumulation_slope`]).
pub fn accumulation(p: &FrequencyProfile, population: f64) -> Option<f64> {
    let a = p.accumulation_slope()?;
    Some(p.d as f64 * (population / p.n as f64).max(1.0).powf(a))
}

/// The range of distinct keys among `population` documents, from the sample's profile. Exact
/// (`[d, d]`) when the sample is the population.
pub fn estimate(p: &FrequencyProfile, population: f64) -> DistinctEstimate {
    let d = p.d as f64;
    if p.n == 0 || population <= p.n as f64 {
        return DistinctEstimate {
            low: d,
            estimate: d,
            high: d,
            method: "exact".into(),
            estimators: BTreeMap::new(),
        };
    }
    let clamp = |x: f64| x.clamp(d, population);
    let mut est: BTreeMap<String, f64> = BTreeMap::new();
    est.insert("Chao1".into(), clamp(chao1(p)));
    est.insert("Duj1".into(), clamp(duj1(p, population)));
    est.insert("GEE".into(), clamp(gee(p, population)));
    if let Some(a) = accumulation(p, population) {
        est.insert("accumulation".into(), clamp(a));
    }
    let (mut lo_name, mut low) = est
        .iter()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .map(|(k, v)| (k.clone(), *v))
        .expect("estimators");
    // When the sample has seen the key of nearly every document (coverage ≥ 0.95), the set may
    // well be complete: the keys seen are the honest lower end (every estimator adds some).
    if p.coverage() >= 0.95 && low > d {
        (lo_name, low) = ("sample distinct (coverage ≥ 0.95)".into(), d);
    }
    let (hi_name, high) = est
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(k, v)| (k.clone(), *v))
        .expect("estimators");
    // The point: Duj1 (exact) when no key repeats, else the geometric mean of the ends, which
    // the validation study found the closest across regimes (docs/projection.md).
    let unique = p.f(1) == p.n;
    let estimate = if unique {
        est["Duj1"]
    } else {
        (low * high).sqrt()
    }
    .clamp(low, high);
    let point = if unique {
        "Duj1"
    } else {
        "geometric mean of the ends"
    };
    DistinctEstimate {
        low,
        estimate,
        high,
        method: format!("low {lo_name}, estimate {point}, high {hi_name}"),
        estimators: est,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(pairs: &[(u64, u64)]) -> FrequencyProfile {
        // (count, how many keys)
        FrequencyProfile::from_counts(
            pairs
                .iter()
                .flat_map(|&(c, k)| std::iter::repeat_n(c, k as usize)),
        )
    }

    #[test]
    fn profile_counts() {
        let p = profile(&[(1, 5), (2, 3), (10, 1)]);
        assert_eq!((p.n, p.d), (5 + 6 + 10, 9));
        assert_eq!((p.f(1), p.f(2), p.f(3)), (5, 3, 0));
        assert!((p.coverage() - (1.0 - 5.0 / 21.0)).abs() < 1e-12);
        assert_eq!(p.max_count(), 10);
    }

    #[test]
    fn hand_computed_estimators() {
        // n = 21, d = 9, f1 = 5, f2 = 3; N = 210 (q = 0.1).
        let p = profile(&[(1, 5), (2, 3), (10, 1)]);
        // Chao1 = 9 + 5·4 / (2·4) = 11.5.
        assert!((chao1(&p) - 11.5).abs() < 1e-9);
        // Duj1 = 9 / (1 − 0.9·5/21) = 9 / 0.785714 = 11.4545.
        assert!((duj1(&p, 210.0) - 11.454_545).abs() < 1e-5);
        // GEE = √10 · 5 + 4 = 19.811.
        assert!((gee(&p, 210.0) - (10f64.sqrt() * 5.0 + 4.0)).abs() < 1e-9);
    }

    #[test]
    fn unique_keys_extrapolate_to_the_population() {
        let p = profile(&[(1, 1000)]);
        let e = estimate(&p, 100_000.0);
        // Duj1 is exact when every key is a singleton: N.
        assert!((e.estimators["Duj1"] - 100_000.0).abs() < 1e-6);
        assert!((e.high - 100_000.0).abs() < 1e-6);
        // Every subsample is all-distinct: slope 1.
        assert!((p.accumulation_slope().unwrap() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn saturated_keys_stay_put() {
        // 50 keys each seen 40 times: no singletons, nothing new to expect.
        let p = profile(&[(40, 50)]);
        let e = estimate(&p, 1e6);
        // Chao1, Duj1 and GEE give exactly 50; the accumulation curve is nearly flat.
        assert_eq!(e.low, 50.0);
        assert!(e.high < 51.0, "{}", e.high);
        // Two singletons among 2,000 documents: Chao1 adds one key, but coverage is 0.999, so
        // the low end stays at the 51 keys seen.
        let mut counts = vec![40u64; 49];
        counts.extend([1, 1]);
        let q = FrequencyProfile::from_counts(counts);
        let e = estimate(&q, 1e6);
        assert_eq!(e.low, 51.0);
        assert!(e.method.starts_with("low sample distinct"), "{}", e.method);
        assert!(p.accumulation_slope().unwrap() < 0.01);
    }

    #[test]
    fn exact_when_the_sample_is_the_population() {
        let p = profile(&[(1, 10), (3, 2)]);
        let e = estimate(&p, p.n as f64);
        assert_eq!((e.low, e.estimate, e.high), (12.0, 12.0, 12.0));
        assert_eq!(e.method, "exact");
    }

    #[test]
    fn rarefaction_matches_hand_computation() {
        // Two keys seen twice, n = 4, m = 2: P(absent) = C(2,2)/C(4,2) = 1/6 → 2 × 5/6.
        let p = profile(&[(2, 2)]);
        assert!((p.rarefied(2) - 10.0 / 6.0).abs() < 1e-12);
        assert_eq!(p.rarefied(4), 2.0);
    }
}
