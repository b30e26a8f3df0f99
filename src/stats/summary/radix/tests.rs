//! Tests of [`super`] (`radix.rs`), kept beside it in their own file.

use super::*;

/// A deterministic generator (no rand dependency).
fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 11
}

type Row = (u128, u32);

/// Sorts `v` and checks the order against a comparison sort, and the runs (of rows equal in
/// head and tie-break, kept when the tie-break is even) against a walk over the sorted rows.
fn check(v: Vec<Row>) {
    check_counted(v, None);
}

/// [`check`] of a sort given the first digit's counts `first`.
fn check_counted(mut v: Vec<Row>, first: Option<FirstDigit>) {
    let mut want = v.clone();
    want.sort_unstable();
    let mut want_runs = Vec::new();
    let mut i = 0;
    while i < want.len() {
        let j = i + want[i..].iter().take_while(|r| **r == want[i]).count();
        if j - i > 1 && want[i].1.is_multiple_of(2) {
            want_runs.extend([i, j]);
        }
        i = j;
    }
    let even = |k: &Row| k.1.is_multiple_of(2);
    let runs = Order::new(&|t: &Row| t.0, &|t: &Row| *t, &even).sort_counted(&mut v, first);
    assert_eq!(v, want);
    assert_eq!(runs, want_runs);
}

/// `n` rows of random heads (their top bits in use) and ids, from seed `s`.
fn random_rows(mut s: u64, n: u32) -> Vec<Row> {
    (0..n)
        .map(|i| ((u128::from(lcg(&mut s)) << 75) ^ u128::from(lcg(&mut s)), i))
        .collect()
}

#[test]
fn random_heads_sort_as_a_comparison_sort() {
    // Random 128-bit heads (every digit of the first levels in use), enough rows for the
    // parallel path and a level of buckets, and a few hundred repeated rows.
    let mut v = random_rows(1, 300_000);
    v.extend_from_within(1_000..1_300);
    v.extend_from_within(2_000..2_010);
    check(v);
}

#[test]
fn skewed_shared_and_equal_heads_sort_as_a_comparison_sort() {
    let mut s = 9;
    // Heads sharing their top 100 bits, a Zipf-like pile-up on a few values (the sample
    // sees them repeated: a quicksort), runs of equal heads that only the tie-break orders,
    // and repeated rows.
    let base = 0xabcd_u128 << 112;
    let v: Vec<Row> = (0..200_000u32)
        .map(|i| {
            let r = lcg(&mut s);
            let h = match r % 10 {
                0..=5 => base | u128::from(r % 3),
                6..=8 => base | (u128::from(r % 1_000_000) << 3),
                _ => base | u128::from(r % 7),
            };
            (h, i % 1_000)
        })
        .collect();
    check(v.clone());
    // The pile-up a tenth of the rows: buckets, one of them sorted again a level down.
    let spread: Vec<Row> = v
        .iter()
        .enumerate()
        .map(|(i, &(h, t))| {
            if i % 10 == 0 {
                (base, t)
            } else {
                (h << 20 | i as u128, t)
            }
        })
        .collect();
    check(spread);
    // The bottom bits only (a digit narrower than 11 bits below them).
    check(v.into_iter().map(|(h, i)| (h & 0xf, i)).collect());
    // Every head equal: the tie-break alone, in parallel; and small slices.
    check((0..100_000u32).rev().map(|i| (5, i / 3)).collect());
    check(vec![(3, 2), (1, 2), (3, 2), (2, 0)]);
    check(vec![]);
}

#[test]
fn first_digits_counted_beforehand_serve_or_are_counted_again() {
    // 200,000 rows of random heads and repeats, their first digit counted in two halves
    // merged (as the drain's parts are): at the digit a sample of them takes, the counts
    // serve; at a digit guessed from a narrow sample (the low bits of a few heads), the
    // sort must count again at the right digit, or rows would land in wrong buckets.
    let mut v = random_rows(5, 200_000);
    v.extend_from_within(500..700);
    let spread: Vec<u128> = v.iter().step_by(50).map(|r| r.0).collect();
    let narrow: Vec<u128> = v.iter().take(10).map(|r| r.0 & 0xffff).collect();
    for sample in [spread, narrow] {
        let guess = FirstDigit::guess(sample.into_iter()).expect("heads differ");
        let (mut a, mut b) = (guess.clone(), guess);
        let (x, y) = v.split_at(v.len() / 3);
        x.iter().for_each(|r| a.add(r.0));
        y.iter().for_each(|r| b.add(r.0));
        check_counted(v.clone(), Some(a.merge(b)));
    }
    assert!(FirstDigit::guess([7u128, 7, 7].into_iter()).is_none());
}

/// Moves `v` (rows of a bucket and an id) into buckets by `permute_from` on a pool of
/// `threads`, the rounds on every thread while 64 or more rows are unplaced, and checks
/// that every bucket's place holds its rows, each row once.
fn check_permute(v: Vec<(u32, u32)>, buckets: usize, threads: usize) {
    let mut counts = vec![0usize; buckets];
    v.iter().for_each(|r| counts[r.0 as usize] += 1);
    let mut got = v.clone();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    pool.expect("a pool")
        .install(|| permute_from(&mut got, &|r: &(u32, u32)| r.0 as usize, &counts, 64));
    let mut at = 0;
    for (b, &n) in counts.iter().enumerate() {
        let wrong = got[at..at + n].iter().find(|r| r.0 as usize != b);
        assert_eq!(wrong, None, "bucket {b} of {buckets}, {threads} threads");
        at += n;
    }
    let mut ids: Vec<u32> = got.iter().map(|r| r.1).collect();
    ids.sort_unstable();
    let mut want: Vec<u32> = v.iter().map(|r| r.1).collect();
    want.sort_unstable();
    assert_eq!(ids, want, "every row once");
}

#[test]
fn rows_moved_on_several_threads_land_in_their_buckets() {
    let mut s = 11;
    for threads in [2, 3, 4] {
        // Random buckets, a few or many; most rows in one bucket; rows already in place
        // and in reverse order.
        for buckets in [2, 7, 300] {
            let v = (0..20_000u32).map(|i| ((lcg(&mut s) % buckets) as u32, i));
            check_permute(v.collect(), buckets as usize, threads);
        }
        let skewed = (0..20_000u32).map(|i| (u32::from(!lcg(&mut s).is_multiple_of(10)) * 3, i));
        check_permute(skewed.collect(), 5, threads);
        check_permute(
            (0..20_000u32).map(|i| (i / 1_000, i)).collect(),
            20,
            threads,
        );
        check_permute(
            (0..20_000u32).map(|i| (19 - i / 1_000, i)).collect(),
            20,
            threads,
        );
        // Each thread's stripes (a half of a bucket's rows on 2 threads) hold rows of one
        // bucket only, thread 0's of bucket 0: its stripe of bucket 1 holds rows its
        // stripe of bucket 0, full of rows in place, cannot take. A first round sets them
        // aside on every thread, and the repair and later rounds must place them.
        let n = 24_000u32;
        let stripe = |i: u32| (i % (n / 2)) * threads as u32 / (n / 2);
        let crossed = (0..n).map(|i| (stripe(i) % 2, i));
        check_permute(crossed.collect(), 2, threads);
    }
}

#[test]
fn heads_piled_up_on_few_values_are_told_from_spread_ones() {
    // 1,000 tenants' heads under 200,000 rows (their prefixed ids share a head), against
    // distinct heads and against a third of the rows on one value and the rest distinct.
    let tenants: Vec<u128> = (0..200_000u128).map(|i| (i * 7919) % 1_000).collect();
    assert!(piled_up(&tenants, &|h: &u128| *h));
    let ids: Vec<u128> = (0..200_000u128).map(|i| i * 7919).collect();
    assert!(!piled_up(&ids, &|h: &u128| *h));
    let third = |i: u128| if i * 7919 % 1_000 < 333 { 0 } else { i };
    let mixed: Vec<u128> = (0..200_000u128).map(third).collect();
    assert!(!piled_up(&mixed, &|h: &u128| *h));
}

#[test]
fn a_digit_chosen_from_the_sample_is_corrected_by_the_count() {
    // The sample (every 64th row) sees heads below 2^17 only; rows it skips differ at bit
    // 120, so the digit must move up to there, or those rows would sort among the others.
    let mut s = 3;
    let v: Vec<Row> = (0..100_000u32)
        .map(|i| {
            let h = u128::from(lcg(&mut s) % 100_000);
            (if i % 64 == 1 { h | 1 << 120 } else { h }, i)
        })
        .collect();
    let mut sample = v.iter().step_by(SAMPLE_EVERY);
    assert!(sample.all(|r| r.0 < 1 << 17));
    check(v);
}
