//! The Lorenz curve of stored bytes across logical partitions, for the HTML report's chart.

/// Most points kept: the curve at every whole percent of partitions.
pub const MAX_POINTS: usize = 101;

/// Lorenz curve of non-negative sizes: `[share of partitions, share of bytes]`, partitions
/// smallest first, from `[0, 0]` to `[1, 1]`. Up to 100 sizes give every vertex; more give the
/// vertices at each whole percent of partitions. Every point lies on the exact curve, so the
/// area under it gives the Gini coefficient (`1 − 2·area`) exactly for up to 100 sizes. Shares
/// are rounded to 6 decimals (the JSON carries them). Empty when there is nothing to draw.
#[cfg(test)]
pub fn lorenz(values: &[f64]) -> Vec<[f64; 2]> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let runs: Vec<(f64, usize)> = sorted.into_iter().map(|v| (v, 1)).collect();
    lorenz_of_runs(&runs, values.iter().sum())
}

/// [`lorenz`] of sizes given as ascending runs of equal sizes (`(size, count)`) and their sum
/// ([`crate::stats::summary::CandidateStats::size_runs`]): the sums of the k smallest are read
/// off the runs in one pass.
pub fn lorenz_of_runs(runs: &[(f64, usize)], total: f64) -> Vec<[f64; 2]> {
    let n: usize = runs.iter().map(|r| r.1).sum();
    if n == 0 || total <= 0.0 || !total.is_finite() {
        return Vec::new();
    }
    let steps = n.min(MAX_POINTS - 1);
    let ks: Vec<usize> = (0..=steps)
        .map(|j| (j * n).div_ceil(steps).min(n))
        .collect();
    let mut ascending = crate::stats::spread::RunCursor::new(runs);
    let mut sums = Vec::with_capacity(ks.len());
    let (mut sum, mut at) = (0.0, 0);
    for &k in &ks {
        sum += ascending.add_next(k - at, -0.0);
        at = k;
        sums.push(sum);
    }
    let round = |x: f64| (x * 1e6).round() / 1e6;
    let mut out: Vec<[f64; 2]> = ks
        .iter()
        .zip(&sums)
        .map(|(&k, &s)| [round(k as f64 / n as f64), round(s / total)])
        .collect();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_by_hand() {
        // Sorted 1, 1, 2, 6 of 10: cumulative 0, .1, .2, .4, 1.
        assert_eq!(
            lorenz(&[6.0, 1.0, 2.0, 1.0]),
            [[0.0, 0.0], [0.25, 0.1], [0.5, 0.2], [0.75, 0.4], [1.0, 1.0]]
        );
        // Equal sizes lie on the diagonal.
        assert_eq!(lorenz(&[3.0, 3.0]), [[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]]);
        assert!(lorenz(&[]).is_empty());
        assert!(lorenz(&[0.0, 0.0]).is_empty());
    }

    #[test]
    fn many_sizes_keep_one_point_per_percent() {
        // 1,000 partitions: one of 901 bytes, 999 of 1 byte (1,900 bytes in all).
        let mut v = vec![1.0; 999];
        v.push(901.0);
        let l = lorenz(&v);
        assert_eq!(l.len(), MAX_POINTS);
        assert_eq!(l[0], [0.0, 0.0]);
        assert_eq!(l[50], [0.5, (500.0f64 / 1900.0 * 1e6).round() / 1e6]);
        // The last percent holds the 10 largest: 9 of 1 byte and the 901-byte one.
        assert_eq!(l[99], [0.99, (990.0f64 / 1900.0 * 1e6).round() / 1e6]);
        assert_eq!(l[100], [1.0, 1.0]);
    }

    #[test]
    fn runs_give_the_curve_of_their_sizes() {
        // 1, 1, 1, 2, 6 as runs, and as a list in any order: the same points.
        let runs = [(1.0, 3), (2.0, 1), (6.0, 1)];
        assert_eq!(
            lorenz_of_runs(&runs, 11.0),
            lorenz(&[2.0, 1.0, 6.0, 1.0, 1.0])
        );
        assert_eq!(
            lorenz_of_runs(&runs, 11.0)[3],
            [0.6, (3.0f64 / 11.0 * 1e6).round() / 1e6]
        );
    }

    #[test]
    fn the_k_smallest_sum_at_every_percent() {
        // A scrambled 1..=1000: the k smallest sum to k(k+1)/2 at every percent.
        let v: Vec<f64> = (0..1000u64)
            .map(|i| ((i * 7919) % 1000 + 1) as f64)
            .collect();
        let l = lorenz(&v);
        let total = 1000.0 * 1001.0 / 2.0;
        for (j, p) in l.iter().enumerate() {
            let k = 10 * j as u64;
            let want = (k * (k + 1) / 2) as f64 / total;
            assert!((p[1] - want).abs() < 1e-6, "{j}: {} vs {want}", p[1]);
        }
    }

    #[test]
    fn area_gives_the_gini_of_skew() {
        let v = [5.0, 1.0, 9.0, 2.0, 2.0, 40.0, 0.0];
        let l = lorenz(&v);
        let area: f64 = l
            .windows(2)
            .map(|w| (w[1][0] - w[0][0]) * (w[0][1] + w[1][1]) / 2.0)
            .sum();
        let gini = crate::stats::summary::skew(&v).gini;
        assert!((1.0 - 2.0 * area - gini).abs() < 1e-5, "{area} {gini}");
    }
}
