//! Confidence intervals for shares seen in a sample: Wilson score intervals for keys seen often
//! enough, and one-sided Poisson upper limits for keys seen rarely or not listed at all
//! (docs/projection.md, "Sizes of the largest partitions").

/// Two-sided 95 % normal quantile.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score interval for a binomial share `c / n` (two-sided, quantile `z`).
///
/// Unlike the normal approximation it stays inside [0, 1] and behaves for small `c`.
pub fn wilson(c: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (c, n) = (c as f64, n as f64);
    let p = c / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt()) / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The standard normal quantile `Φ⁻¹(p)` for `0 < p < 1` (Acklam's rational approximation,
/// relative error below 1.2e-9).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// The two-sided quantile that keeps `m` simultaneous 95 % intervals valid (Bonferroni:
/// `Φ⁻¹(1 − 0.025 / m)`): the largest partition is the largest of `m` keys, and the key that
/// looks largest in a sample is the one most likely to have been lucky.
pub fn simultaneous_z95(m: usize) -> f64 {
    if m <= 1 {
        Z95
    } else {
        normal_quantile(1.0 - 0.025 / m as f64)
    }
}

/// One-sided 95 % upper confidence limit of a Poisson mean after observing `c` events
/// (`χ²(0.95; 2c + 2) / 2`): exact table up to 30, Wilson–Hilferty beyond.
///
/// `poisson_ucl95(9)` = 15.71: a key seen at most 9 times in `n` documents has, with 95 %
/// confidence, a share of at most 15.71 / n.
pub fn poisson_ucl95(c: u64) -> f64 {
    // χ²(0.95; 2c+2)/2 for c = 0..=30.
    const TABLE: [f64; 31] = [
        2.996, 4.744, 6.296, 7.754, 9.154, 10.513, 11.842, 13.148, 14.435, 15.705, 16.962, 18.208,
        19.443, 20.669, 21.886, 23.097, 24.301, 25.499, 26.692, 27.879, 29.062, 30.240, 31.415,
        32.585, 33.752, 34.916, 36.077, 37.234, 38.389, 39.541, 40.691,
    ];
    if let Some(v) = TABLE.get(c as usize) {
        return *v;
    }
    // Wilson–Hilferty: χ²_k(p) ≈ k (1 − 2/(9k) + z √(2/(9k)))³ with k = 2c + 2, z = 1.645.
    let k = 2.0 * c as f64 + 2.0;
    let z = 1.644_853_626_951_472;
    let t = 1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt();
    k * t * t * t / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_hand_computation() {
        // c = 30 of n = 100: p = 0.3, z² = 3.8415; centre = (0.3 + 0.019207)/1.038415 = 0.30740;
        // half = 1.96 × sqrt(0.0021 + 0.000096)/1.038415 = 0.08845 → (0.2189, 0.3958).
        let (lo, hi) = wilson(30, 100, Z95);
        assert!((lo - 0.2189).abs() < 5e-4, "{lo}");
        assert!((hi - 0.3958).abs() < 5e-4, "{hi}");
        // Zero successes: lower bound 0, upper z²/(n+z²) = 3.8415/103.8415 = 0.0370.
        let (lo, hi) = wilson(0, 100, Z95);
        assert!(lo.abs() < 1e-12);
        assert!((hi - 0.0370).abs() < 5e-4);
    }

    #[test]
    fn normal_quantiles() {
        assert!((normal_quantile(0.975) - Z95).abs() < 1e-8);
        assert!((normal_quantile(0.5)).abs() < 1e-12);
        assert!((normal_quantile(0.001) + 3.090_232).abs() < 1e-5);
        // 20 keys: Φ⁻¹(1 − 0.025/20) = Φ⁻¹(0.99875) = 3.0233.
        assert!((simultaneous_z95(20) - 3.0233).abs() < 1e-3);
        assert_eq!(simultaneous_z95(1), Z95);
    }

    #[test]
    fn poisson_limits_from_the_notes() {
        // projection-notes.md: c* = 10 gives 15.71 / n.
        assert!((poisson_ucl95(9) - 15.71).abs() < 0.01);
        assert!((poisson_ucl95(0) - 3.0).abs() < 0.01);
        // Wilson–Hilferty continues the table smoothly: χ²(0.95; 64)/2 = 41.84.
        assert!((poisson_ucl95(31) - 41.84).abs() < 0.05);
        assert!(poisson_ucl95(100) > poisson_ucl95(31));
    }
}
