//! Tests of [`super`] (`spread.rs`), kept beside it in their own file.

use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn skew_of_even_sizes_is_zero() {
    let s = skew(&[5.0, 5.0, 5.0, 5.0]);
    assert!(close(s.gini, 0.0) && close(s.cv, 0.0) && close(s.entropy, 1.0));
    assert!(close(s.max_over_mean, 1.0) && close(s.top1_share, 0.25));
}

#[test]
fn skew_by_hand() {
    // sizes 1, 1, 2, 6 (total 10, mean 2.5)
    let s = skew(&[6.0, 1.0, 2.0, 1.0]);
    // Gini = 2*(1*1+2*1+3*2+4*6)/(4*10) - 5/4 = 66/40 - 1.25 = 0.4
    assert!(close(s.gini, 0.4), "{}", s.gini);
    assert!(close(s.max_over_mean, 2.4));
    assert!(close(s.top1_share, 0.6));
    // variance = (2.25+2.25+0.25+12.25)/4 = 4.25
    assert!(close(s.cv, 4.25f64.sqrt() / 2.5));
    let h = -(0.6f64 * 0.6f64.ln() + 2.0 * 0.1 * 0.1f64.ln() + 0.2 * 0.2f64.ln());
    assert!(close(s.entropy, h / 4f64.ln()));
    assert!(
        close(s.top1pct_share, 0.6),
        "1% of 4 rounds up to one partition"
    );
}

/// A deterministic shuffle (xorshift, Fisher-Yates).
fn shuffled(values: &[f64], seed: u64) -> Vec<f64> {
    let mut v = values.to_vec();
    let mut x = crate::testing::XorShift(seed | 1);
    for i in (1..v.len()).rev() {
        v.swap(i, (x.next() % (i as u64 + 1)) as usize);
    }
    v
}

#[test]
fn skew_depends_on_the_sizes_not_their_order() {
    // Few distinct sizes (counted), more than MAX_RUNS (sorted, the counted ones mixed back
    // in), and runs of equal sizes next to each other with distinct sizes past MAX_RUNS (a
    // run under way when the counting stops): shuffled or sorted, the same skew, bit for
    // bit (the sum of sizes given in the same order each time, as the summary fixes it).
    let few: Vec<f64> = (0..200_000u64)
        .map(|i| (50 + i * 7 % 13) as f64 + 0.1)
        .collect();
    let many: Vec<f64> = (0..200_000u64)
        .map(|i| ((i * 2_654_435_761) % 150_001) as f64 * 1.37 + (i % 3) as f64)
        .collect();
    let runs: Vec<f64> = (0..300_000u64)
        .map(|i| match i {
            0..100_000 => (i / 1_000 % 7) as f64 * 3.5 + 1.0,
            100_000..170_000 => (i - 100_000) as f64 + 0.25,
            _ => (i / 10 % 5) as f64 + 0.5,
        })
        .collect();
    for v in [&few, &many, &runs] {
        let total: f64 = v.iter().sum();
        let of = |values: &[f64]| {
            let (counted, _) = counted_sizes(values.iter().copied(), values.len());
            skew_of_counted(counted, total).skew
        };
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        let (a, b, c) = (of(v), of(&shuffled(v, 7)), of(&sorted));
        assert_eq!(a, b);
        assert_eq!(a, c);
        // Against the plain definitions over a sorted copy (one addition per size).
        let n = v.len() as f64;
        let weighted: f64 = (sorted.iter().enumerate())
            .map(|(i, x)| (i as f64 + 1.0) * x)
            .sum();
        let mean = total / n;
        let squares: f64 = v.iter().map(|x| (x - mean).powi(2)).sum();
        let h: f64 = (v.iter().filter(|&&x| x > 0.0))
            .map(|x| -(x / total) * (x / total).ln())
            .sum();
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * y.abs().max(1e-3);
        assert!(close(
            a.gini,
            (2.0 * weighted) / (n * total) - (n + 1.0) / n
        ));
        assert!(close(a.cv, (squares / n).sqrt() / mean));
        assert!(close(a.entropy, h / n.ln()));
        let top = v.len().div_ceil(100);
        let top_sum: f64 = sorted[v.len() - top..].iter().sum();
        assert_eq!(
            a.top1_share.to_bits(),
            (sorted[v.len() - 1] / total).to_bits()
        );
        assert_eq!(a.top1pct_share.to_bits(), (top_sum / total).to_bits());
    }
    assert_eq!(
        sorted_runs(runs.iter().copied(), runs.len()).len(),
        7 + 70_000 + 5 - 1
    );
    assert!(sorted_runs(few.iter().copied(), few.len()).len() == 13);
    assert!(sorted_runs(many.iter().copied(), many.len()).len() > MAX_RUNS);
}

#[test]
fn skew_of_millions_of_near_equal_sizes_is_exact() {
    // 10 M unique ids' partitions hold one document each, their sizes a few values apart:
    // Gini is a difference of two numbers near 1, so a sum that loses 1e-10 of itself loses
    // a 1e-7 of Gini. Here 3 M sizes of 2,511, 2,521 and 2,531 bytes (Σ rank × size passes
    // 2^53, where adding one term at a time starts to round), and the exact values from
    // integers: Gini = (2W - (n + 1)T) / (nT) with W = Σ rank × size, and
    // n²·variance = n·Σ size² - T².
    let counts = [(2511u64, 600_001u64), (2521, 1_899_999), (2531, 500_000)];
    let values: Vec<f64> = counts
        .iter()
        .flat_map(|&(v, m)| std::iter::repeat_n(v as f64, m as usize))
        .collect();
    let values = shuffled(&values, 11);
    let (n, t): (u128, u128) = counts.iter().fold((0, 0), |(n, t), &(v, m)| {
        (n + m as u128, t + (v * m) as u128)
    });
    let (mut w, mut before, mut sq) = (0u128, 0u128, 0u128);
    for &(v, m) in &counts {
        let (v, m) = (v as u128, m as u128);
        w += v * (m * before + m * (m + 1) / 2);
        sq += m * v * v;
        before += m;
    }
    let gini = (2 * w - (n + 1) * t) as f64 / (n * t) as f64;
    let cv = ((n * sq - t * t) as f64).sqrt() / t as f64;
    let (counted, total) = counted_sizes(values.iter().copied(), values.len());
    assert_eq!(total, t as f64, "integers below 2^53 sum exactly");
    let s = skew_of_counted(counted, total).skew;
    let rel = |x: f64, y: f64| ((x - y) / y).abs();
    assert!(rel(s.gini, gini) < 1e-12, "{} against {gini}", s.gini);
    assert!(rel(s.cv, cv) < 1e-12, "{} against {cv}", s.cv);
    // Adding the ranked sizes one at a time, in order, misses by far more than that.
    let mut sorted = values.clone();
    sorted.sort_by(f64::total_cmp);
    let weighted = (sorted.iter().enumerate()).fold(-0.0f64, |a, (i, x)| a + (i as f64 + 1.0) * x);
    let nf = n as f64;
    let one_at_a_time = (2.0 * weighted) / (nf * total) - (nf + 1.0) / nf;
    assert!(
        rel(one_at_a_time, gini) > 1e-9,
        "{one_at_a_time} against {gini}"
    );
    // Equal sizes: no skew, and an entropy of exactly 1 but for the last bit.
    let equal = vec![2530.0; 3_000_000];
    let e = skew(&equal);
    assert_eq!((e.gini, e.cv), (0.0, 0.0));
    assert!((e.entropy - 1.0).abs() < 1e-15, "{}", e.entropy);
}

#[test]
fn runs_of_equal_values_count_like_single_values() {
    // 10 ones, 80 twos, 10 thousands: recorded as three runs (sorted) or value by value
    // (interleaved), the quantiles are the same and as counted by hand.
    let sorted: Vec<f64> = std::iter::repeat_n(1.0, 10)
        .chain(std::iter::repeat_n(2.0, 80))
        .chain(std::iter::repeat_n(1000.0, 10))
        .collect();
    let mut mixed = Vec::new();
    for i in 0..100 {
        mixed.push(sorted[(i * 37) % 100]);
    }
    for d in [
        distribution(sorted.into_iter()),
        distribution(mixed.into_iter()),
    ] {
        assert_eq!((d.min, d.p50, d.p90, d.max), (1.0, 2.0, 2.0, 1000.0));
        assert_eq!(
            d.p99, 1000.0,
            "the 99th of 100 values is among the thousands"
        );
        assert!((d.mean - 101.7).abs() < 1e-9, "{}", d.mean);
    }
}

#[test]
fn interleaved_values_past_the_tally_record_as_sorted_ones() {
    // 600 distinct sizes cycling (more than the tally's slots, so values are evicted and
    // come back), against the same values sorted into runs: the same histogram, so the
    // same quantiles, and the same counted runs.
    let mixed: Vec<f64> = (0..120_000u64)
        .map(|i| (i * 7919 % 600) as f64 * 3.0 + 40.0)
        .collect();
    let mut sorted = mixed.clone();
    sorted.sort_by(f64::total_cmp);
    let (a, b) = (
        distribution(mixed.iter().copied()),
        distribution(sorted.iter().copied()),
    );
    assert_eq!((a.p50, a.p90, a.p99), (b.p50, b.p90, b.p99));
    assert_eq!((a.min, a.max), (40.0, 599.0 * 3.0 + 40.0));
    assert_eq!(
        a.p50, 937.0,
        "the 300th of 600 sizes, 40 + 299 × 3 (exact below 2,048)"
    );
    let runs = sorted_runs(mixed.iter().copied(), mixed.len());
    assert_eq!(runs.len(), 600);
    assert!(runs.iter().all(|&(_, m)| m == 200), "each size 200 times");
    assert!(runs.windows(2).all(|w| w[0].0 < w[1].0));
}

#[test]
fn counts_round_like_f64_round() {
    let cases = [
        0.0,
        -0.0,
        0.49999999999999994,
        0.5,
        1.5,
        2.5,
        2.4999999999999996,
        1e6 + 0.5,
        4503599627370495.5,
        4503599627370497.0,
        9007199254740993.0,
        1.8446744073709552e19,
        1e300,
        f64::INFINITY,
        -0.3,
        -0.5,
        -7.0,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for v in cases {
        assert_eq!(round_to_count(v), v.round().max(0.0) as u64, "{v}");
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = f64::from_bits(x >> 2) % 1e7;
        assert_eq!(round_to_count(v), v.round().max(0.0) as u64, "{v}");
    }
}

#[test]
fn a_run_cursor_adds_like_the_expanded_runs() {
    let runs = [(0.1, 3), (0.7, 1), (1e16, 2), (3.3, 5)];
    let flat: Vec<f64> = runs
        .iter()
        .flat_map(|&(v, m)| std::iter::repeat_n(v, m))
        .collect();
    for split in 0..=flat.len() {
        let mut c = RunCursor::new(&runs);
        let a = c.add_next(split, -0.0);
        let b = c.add_next(usize::MAX, 1.0);
        let want_a: f64 = flat[..split].iter().sum();
        let want_b = flat[split..].iter().fold(1.0, |s, v| s + v);
        assert_eq!(
            (a.to_bits(), b.to_bits()),
            (want_a.to_bits(), want_b.to_bits())
        );
        let mut c = RunCursor::new(&runs);
        c.skip(split);
        let want: f64 = flat[split..].iter().sum();
        assert_eq!(
            c.add_next(flat.len(), -0.0).to_bits(),
            want.to_bits(),
            "{split}"
        );
    }
}

#[test]
fn distribution_is_exact_at_the_ends() {
    let d = distribution([1.0, 2.0, 3.0, 4.0, 1000.0].into_iter());
    assert_eq!((d.min, d.max, d.mean), (1.0, 1000.0, 202.0));
    assert_eq!(d.p50, 3.0);
    assert!(d.p99 >= 999.0 && d.p99 <= 1000.0);
}
