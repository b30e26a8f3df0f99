//! A most-significant-digit radix sort by a 128-bit head, in place, its buckets sorted in
//! parallel (issue #28: the sort of 10 M random ids' rows was a fifth of the run).
//!
//! A comparison sort of n rows passes over them about log2(n) times (23 for 10 M), each pass
//! moving 40-byte rows through memory; and rayon's parallel quicksort partitions its first level
//! on one thread. Here, for a large slice, one pass counts the rows per digit (the 11 bits of
//! the head from the highest bit where heads differ down, chosen from a sample of the heads and
//! checked by the count), and one pass moves each row once into its digit's bucket (in place,
//! the "American flag" permutation: no second array, which 10 M rows would need 400 MB for).
//! The buckets are sorted the same way on the rayon pool; a bucket of at most 65,536 rows,
//! which fits in a core's cache, is sorted through 8-byte proxies (48 bits of head and an
//! index) and gathered once.
//!
//! Where a sample shows most heads repeated (a tenant's prefixed ids share their 16-byte head),
//! rayon's quicksort is used instead: its partitions set equal rows aside in one step.
//!
//! The order is the comparison sort's: rows whose heads differ order as their heads (buckets are
//! in digit order, and every head in a slice shares the bits above its digit); rows of equal
//! heads meet in one run and `key` orders them.

use std::marker::PhantomData;

use rayon::prelude::*;

/// The bits of a digit (2,048 buckets: 10 M random ids leave each a few thousand rows, which
/// fit in a core's cache).
const DIGIT_BITS: u32 = 11;
const BUCKETS: usize = 1 << DIGIT_BITS;
/// Slices of at most this many rows are sorted by comparing their keys.
const TINY: usize = 64;
/// Slices of at most this many rows (an index fits in 16 bits) are sorted through proxies.
const SMALL: usize = 1 << 16;
/// Slices of at least this many rows count their digits and sort their buckets in parallel.
const PARALLEL: usize = 1 << 16;
/// A large slice's digit is chosen from every this-many-th row's head (and checked against
/// every row's as they are counted): a pass less over the rows.
const SAMPLE_EVERY: usize = 64;

/// What sorting a small slice needs beside it, kept from one slice to the next (a bucket of
/// 40-byte rows is megabytes: allocated afresh, each would be mapped and faulted in again).
struct Scratch<T> {
    proxies: Vec<u64>,
    rows: Vec<T>,
}

impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            proxies: Vec::new(),
            rows: Vec::new(),
        }
    }
}

/// An order of rows `T` by `key`, whose most significant part is `head`: rows whose heads
/// differ must compare as their heads do (`key` only decides among equal heads); and which runs
/// of equal keys [`Order::sort`] reports: those for which `keep` holds.
pub(super) struct Order<'a, T, K, H, F, G> {
    head: &'a H,
    key: &'a F,
    keep: &'a G,
    rows: PhantomData<fn(&T) -> K>,
}

impl<'a, T, K, H, F, G> Order<'a, T, K, H, F, G>
where
    T: Copy + Send + Sync,
    K: Ord,
    H: Fn(&T) -> u128 + Sync,
    F: Fn(&T) -> K + Sync,
    G: Fn(&K) -> bool + Sync,
{
    pub(super) fn new(head: &'a H, key: &'a F, keep: &'a G) -> Self {
        Order {
            head,
            key,
            keep,
            rows: PhantomData,
        }
    }

    /// Sorts `v`. Unstable: rows of equal keys end up adjacent, in an unspecified order.
    /// Returns the runs of two or more rows of equal keys for which `keep` holds, as (first,
    /// past the last) pairs in order: found where the rows are sorted, while they are in cache
    /// (a pass over 10 M rows afterwards was a sixth of their sort).
    pub(super) fn sort(&self, v: &mut [T]) -> Vec<usize> {
        self.sort_from(v, 0, &mut Scratch::default())
    }

    /// Sorts `v`, which starts at row `base` of the whole, and returns its runs.
    fn sort_from(&self, v: &mut [T], base: usize, scratch: &mut Scratch<T>) -> Vec<usize> {
        let (head, key) = (self.head, self.key);
        if v.len() <= TINY {
            v.sort_unstable_by_key(key);
            return self.runs(v, base, false);
        }
        let parallel = v.len() >= PARALLEL;
        let (mut lo, mut hi) = if v.len() <= SMALL {
            bounds(v.iter(), head)
        } else {
            bounds(v.iter().step_by(SAMPLE_EVERY), head)
        };
        if lo == hi && v.len() > SMALL {
            (lo, hi) = bounds_par(v, head);
        }
        if lo == hi || (v.len() > SMALL && piled_up(v, head)) {
            // Every head equal (only `key`'s tail can order them), or most rows sharing their
            // head with many others: a quicksort's partitions take equal rows aside in one
            // step, where buckets would hold them all the way down.
            if parallel {
                v.par_sort_unstable_by_key(key);
            } else {
                v.sort_unstable_by_key(key);
            }
            return self.runs(v, base, parallel);
        }
        if v.len() <= SMALL {
            self.sort_by_proxy(v, top_bit(lo, hi), scratch);
            return self.runs(v, base, false);
        }
        // The digit: the `DIGIT_BITS` bits from the highest where the heads differ down. Chosen
        // from a sample of the heads, it is right if every head shares the bits above it with
        // the sample's, which counting the digits checks.
        let mut top = top_bit(lo, hi);
        let counts = loop {
            let shift = top.saturating_sub(DIGIT_BITS - 1);
            let (counts, lo, hi) = histogram(v, &|t: &T| digit(head(t), shift), head);
            let all = top_bit(lo, hi);
            if all == top {
                break counts;
            }
            top = all;
        };
        let shift = top.saturating_sub(DIGIT_BITS - 1);
        permute(v, &|t: &T| digit(head(t), shift), &counts);
        let mut buckets: Vec<(usize, &mut [T])> = Vec::with_capacity(BUCKETS);
        let (mut rest, mut at) = (v, base);
        for &n in counts.iter().filter(|&&n| n > 0) {
            let (bucket, tail) = rest.split_at_mut(n);
            buckets.push((at, bucket));
            (rest, at) = (tail, at + n);
        }
        if parallel {
            let runs: Vec<Vec<usize>> = buckets
                .into_par_iter()
                .map_init(Scratch::default, |s, (at, b)| self.sort_from(b, at, s))
                .collect();
            runs.concat()
        } else {
            let mut runs = Vec::new();
            for (at, b) in buckets {
                runs.extend(self.sort_from(b, at, scratch));
            }
            runs
        }
    }

    /// Sorts at most [`SMALL`] rows through 8-byte proxies: the 48 bits of each head from `top`
    /// (the highest bit where the heads differ) down, and the row's index. The proxies sort as
    /// integers, without a row moved or a key read; rows whose 48 bits are equal are ordered by
    /// `key`, and the rows are then gathered in order once.
    fn sort_by_proxy(&self, v: &mut [T], top: u32, scratch: &mut Scratch<T>) {
        debug_assert!(v.len() <= SMALL);
        let (head, key) = (self.head, self.key);
        let align = 127 - top;
        let proxies = &mut scratch.proxies;
        proxies.clear();
        proxies.extend(
            (v.iter().enumerate())
                .map(|(i, t)| (((head(t) << align) >> 80) as u64) << 16 | i as u64),
        );
        proxies.sort_unstable();
        let row = |p: u64| &v[(p & 0xffff) as usize];
        let mut i = 0;
        while i < proxies.len() {
            let bits = proxies[i] >> 16;
            let mut j = i + 1;
            while j < proxies.len() && proxies[j] >> 16 == bits {
                j += 1;
            }
            if j - i > 1 {
                proxies[i..j].sort_unstable_by_key(|&p| key(row(p)));
            }
            i = j;
        }
        scratch.rows.clear();
        scratch.rows.extend(proxies.iter().map(|&p| *row(p)));
        v.copy_from_slice(&scratch.rows);
    }

    /// The runs of sorted `v` (starting at row `base` of the whole): two or more adjacent rows
    /// of equal keys for which `keep` holds.
    fn runs(&self, v: &[T], base: usize, parallel: bool) -> Vec<usize> {
        let same = |i: usize| {
            let k = (self.key)(&v[i]);
            (self.keep)(&k) && (self.key)(&v[i + 1]) == k
        };
        let n = v.len().saturating_sub(1);
        let pairs: Vec<usize> = if parallel {
            (0..n).into_par_iter().filter(|&i| same(i)).collect()
        } else {
            (0..n).filter(|&i| same(i)).collect()
        };
        let mut runs = Vec::new();
        let mut k = 0;
        while k < pairs.len() {
            let first = pairs[k];
            while k + 1 < pairs.len() && pairs[k + 1] == pairs[k] + 1 {
                k += 1;
            }
            runs.extend([base + first, base + pairs[k] + 2]);
            k += 1;
        }
        runs
    }
}

/// Whether a sample of the heads of `v` shows most of them repeated: fewer distinct heads than
/// half the sample (a tenant's prefixed ids sharing their 16-byte head).
fn piled_up<T, H: Fn(&T) -> u128>(v: &[T], head: &H) -> bool {
    let mut sample: Vec<u128> = v
        .iter()
        .step_by((v.len() / 4096).max(1))
        .map(head)
        .collect();
    sample.sort_unstable();
    let n = sample.len();
    sample.dedup();
    sample.len() < n / 2
}

/// The highest bit where `lo` and `hi` differ (they do).
#[inline]
fn top_bit(lo: u128, hi: u128) -> u32 {
    127 - (lo ^ hi).leading_zeros()
}

/// The bucket of a head: its `DIGIT_BITS` bits from `shift` up.
#[inline]
fn digit(h: u128, shift: u32) -> usize {
    ((h >> shift) as usize) & (BUCKETS - 1)
}

/// The smallest and largest head among `rows` (at least one).
fn bounds<'t, T: 't, H: Fn(&T) -> u128>(
    mut rows: impl Iterator<Item = &'t T>,
    head: &H,
) -> (u128, u128) {
    let first = head(rows.next().expect("a row"));
    rows.fold((first, first), |(lo, hi), t| {
        let h = head(t);
        (lo.min(h), hi.max(h))
    })
}

/// [`bounds`] of every row, on the rayon pool.
fn bounds_par<T: Sync, H: Fn(&T) -> u128 + Sync>(v: &[T], head: &H) -> (u128, u128) {
    v.par_chunks(1 << 14)
        .map(|c| bounds(c.iter(), head))
        .reduce_with(|a, b| (a.0.min(b.0), a.1.max(b.1)))
        .expect("a row")
}

/// How many rows have each digit, and the smallest and largest head, on the rayon pool.
fn histogram<T: Sync, D: Fn(&T) -> usize + Sync, H: Fn(&T) -> u128 + Sync>(
    v: &[T],
    digit: &D,
    head: &H,
) -> (Vec<usize>, u128, u128) {
    let count = |c: &[T]| {
        let mut n = vec![0usize; BUCKETS];
        let first = head(&c[0]);
        let (mut lo, mut hi) = (first, first);
        for t in c {
            n[digit(t)] += 1;
            let h = head(t);
            (lo, hi) = (lo.min(h), hi.max(h));
        }
        (n, lo, hi)
    };
    v.par_chunks(1 << 16)
        .map(count)
        .reduce_with(|mut a, b| {
            a.0.iter_mut().zip(b.0).for_each(|(x, y)| *x += y);
            (a.0, a.1.min(b.1), a.2.max(b.2))
        })
        .expect("a row")
}

/// Moves every row into its digit's bucket (buckets in digit order, of `counts` rows each):
/// each bucket's unplaced rows are taken in turn and swapped along to their buckets' next free
/// places until a row of that bucket comes back.
fn permute<T: Copy, D: Fn(&T) -> usize>(v: &mut [T], digit: &D, counts: &[usize]) {
    let mut next = vec![0usize; BUCKETS];
    let mut end = vec![0usize; BUCKETS];
    let mut at = 0;
    for b in 0..BUCKETS {
        next[b] = at;
        at += counts[b];
        end[b] = at;
    }
    for b in 0..BUCKETS {
        while next[b] < end[b] {
            let mut x = v[next[b]];
            let mut d = digit(&x);
            while d != b {
                // The next free place of each bucket moves forward one row at a time: ask for
                // the cache line a few rows ahead now, or each of a large slice's buckets waits
                // for memory in turn (the chain of swaps is one dependent walk).
                prefetch(v.as_ptr().wrapping_add(next[d] + AHEAD));
                std::mem::swap(&mut x, &mut v[next[d]]);
                next[d] += 1;
                d = digit(&x);
            }
            v[next[b]] = x;
            next[b] += 1;
        }
    }
}

/// How many rows ahead of a bucket's next free place [`permute`] asks for memory.
const AHEAD: usize = 8;

/// Asks for the cache line at `p` (which may be past the slice: a prefetch does not fault).
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
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
    fn check(mut v: Vec<Row>) {
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
        let runs = Order::new(&|t: &Row| t.0, &|t: &Row| *t, &even).sort(&mut v);
        assert_eq!(v, want);
        assert_eq!(runs, want_runs);
    }

    #[test]
    fn random_heads_sort_as_a_comparison_sort() {
        // Random 128-bit heads (every digit of the first levels in use), enough rows for the
        // parallel path and a level of buckets, and a few hundred repeated rows.
        let mut s = 1;
        let mut v: Vec<Row> = (0..300_000u32)
            .map(|i| ((u128::from(lcg(&mut s)) << 75) ^ u128::from(lcg(&mut s)), i))
            .collect();
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
}
