//! A most-significant-digit radix sort by a 128-bit head, in place, its buckets sorted in
//! parallel (issue #28: the sort of 10 M random ids' rows was a fifth of the run).
//!
//! A comparison sort of n rows passes over them about log2(n) times (23 for 10 M), each pass
//! moving 32-byte rows through memory; and rayon's parallel quicksort partitions its first level
//! on one thread. Here, for a large slice, one pass counts the rows per digit (the 11 bits of
//! the head from the highest bit where heads differ down, chosen from a sample of the heads and
//! checked by the count), and one pass moves each row once into its digit's bucket (in place,
//! the "American flag" permutation: no second array, which 10 M rows would need 320 MB for; on
//! every core, each moving rows within its own stripe of each bucket, PARADIS-style, then on
//! one thread for the few rows whose buckets' stripes filled up on another core).
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

use crate::stats::memory::prefetch;

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
/// 32-byte rows is megabytes: allocated afresh, each would be mapped and faulted in again).
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
        self.sort_counted(v, None)
    }

    /// [`Order::sort`], its first digit perhaps counted already (`first`, over the heads of
    /// exactly these rows): a pass less over them when the count is at the digit the sort
    /// takes.
    pub(super) fn sort_counted(&self, v: &mut [T], first: Option<FirstDigit>) -> Vec<usize> {
        debug_assert!(first
            .as_ref()
            .is_none_or(|f| f.counts.iter().sum::<usize>() == v.len()));
        self.sort_from(v, 0, &mut Scratch::default(), first)
    }

    /// Sorts `v`, which starts at row `base` of the whole, and returns its runs.
    fn sort_from(
        &self,
        v: &mut [T],
        base: usize,
        scratch: &mut Scratch<T>,
        first: Option<FirstDigit>,
    ) -> Vec<usize> {
        let (head, key) = (self.head, self.key);
        if v.len() <= TINY {
            v.sort_unstable_by_key(key);
            return self.runs(v, base, false);
        }
        let parallel = v.len() >= PARALLEL;
        let first = first.filter(|_| v.len() > SMALL);
        let (mut lo, mut hi) = if let Some(f) = &first {
            (f.lo, f.hi)
        } else if v.len() <= SMALL {
            bounds(v.iter(), head)
        } else {
            bounds(v.iter().step_by(SAMPLE_EVERY), head)
        };
        if lo == hi && v.len() > SMALL && first.is_none() {
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
        let (shift, counts) = self.digit_counts(v, top_bit(lo, hi), first);
        permute(v, &|t: &T| digit(head(t), shift), &counts);
        self.sort_buckets(v, base, &counts, scratch, parallel)
    }

    /// The digit's shift and the rows per digit. The digit: the `DIGIT_BITS` bits from the
    /// highest where the heads differ (`top`, from a sample of the heads) down. It is right if
    /// every head shares the bits above it with the sample's, which counting the digits checks.
    /// Counts made as the rows were written (`first`) come with every head's bounds: they serve
    /// when made at that digit.
    fn digit_counts(&self, v: &[T], mut top: u32, first: Option<FirstDigit>) -> (u32, Vec<usize>) {
        let head = self.head;
        let counted = first.filter(|f| f.shift == top.saturating_sub(DIGIT_BITS - 1));
        let counts = if let Some(f) = counted {
            f.counts
        } else {
            loop {
                let shift = top.saturating_sub(DIGIT_BITS - 1);
                let (counts, lo, hi) = histogram(v, &|t: &T| digit(head(t), shift), head);
                let all = top_bit(lo, hi);
                if all == top {
                    break counts;
                }
                top = all;
            }
        };
        (top.saturating_sub(DIGIT_BITS - 1), counts)
    }

    /// Sorts each bucket of the permuted `v` (`counts` rows per digit; `v` starts at row
    /// `base`) and returns their runs, in order.
    fn sort_buckets(
        &self,
        v: &mut [T],
        base: usize,
        counts: &[usize],
        scratch: &mut Scratch<T>,
        parallel: bool,
    ) -> Vec<usize> {
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
                .map_init(Scratch::default, |s, (at, b)| {
                    self.sort_from(b, at, s, None)
                })
                .collect();
            runs.concat()
        } else {
            let mut runs = Vec::new();
            for (at, b) in buckets {
                runs.extend(self.sort_from(b, at, scratch, None));
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

/// A large sort's first digit, counted by whoever wrote the rows (the drain, as it builds
/// them: a pass over 10 M rows less): the digit's shift, guessed from a sample of the heads
/// before the rows were written; how many rows have each digit; the smallest and largest head.
/// [`Order::sort_counted`] takes the counts when every head shares the bits above the digit
/// (as the sample's did), and counts again at the right digit otherwise.
#[derive(Debug, Clone)]
pub(super) struct FirstDigit {
    shift: u32,
    counts: Vec<usize>,
    lo: u128,
    hi: u128,
}

impl FirstDigit {
    /// Nothing counted yet, at the digit a sort of `sample`'s heads would take; `None` when
    /// they are all equal (no digit to guess).
    pub(super) fn guess(sample: impl Iterator<Item = u128>) -> Option<FirstDigit> {
        let (lo, hi) = sample.fold((u128::MAX, u128::MIN), |(lo, hi), h| (lo.min(h), hi.max(h)));
        (lo < hi).then(|| FirstDigit {
            shift: top_bit(lo, hi).saturating_sub(DIGIT_BITS - 1),
            counts: vec![0; BUCKETS],
            lo: u128::MAX,
            hi: u128::MIN,
        })
    }

    /// Counts a row of head `h`.
    #[inline]
    pub(super) fn add(&mut self, h: u128) {
        self.counts[digit(h, self.shift)] += 1;
        (self.lo, self.hi) = (self.lo.min(h), self.hi.max(h));
    }

    /// The counts of both's rows (at the same digit).
    pub(super) fn merge(mut self, o: FirstDigit) -> FirstDigit {
        debug_assert_eq!(self.shift, o.shift);
        self.counts
            .iter_mut()
            .zip(o.counts)
            .for_each(|(a, b)| *a += b);
        (self.lo, self.hi) = (self.lo.min(o.lo), self.hi.max(o.hi));
        self
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

/// Moves every row into its digit's bucket (buckets in digit order, of `counts` rows each).
/// A large slice is first worked on by every thread of the pool at once ([`speculate`] and
/// [`repair`]); the rows those rounds leave are placed by [`cycle`] on this thread.
fn permute<T: Copy + Send + Sync, D: Fn(&T) -> usize + Sync>(
    v: &mut [T],
    digit: &D,
    counts: &[usize],
) {
    permute_from(v, digit, counts, PARALLEL_PERMUTE);
}

/// [`permute`], with rows moved by every thread while at least `parallel` are unplaced.
fn permute_from<T: Copy + Send + Sync, D: Fn(&T) -> usize + Sync>(
    v: &mut [T],
    digit: &D,
    counts: &[usize],
    parallel: usize,
) {
    let mut next = Vec::with_capacity(counts.len());
    let mut end = Vec::with_capacity(counts.len());
    let mut at = 0;
    for &n in counts {
        next.push(at);
        at += n;
        end.push(at);
    }
    let threads = rayon::current_num_threads();
    if threads > 1 {
        loop {
            let left: usize = next.iter().zip(&end).map(|(a, b)| b - a).sum();
            if left < parallel.max(1) {
                break;
            }
            // Each bucket's rows not in place, cut into one stripe per thread.
            let stripes: Vec<Vec<(usize, usize)>> = (0..threads)
                .map(|i| {
                    (next.iter().zip(&end))
                        .map(|(&a, &b)| {
                            (a + (b - a) * i / threads, a + (b - a) * (i + 1) / threads)
                        })
                        .collect()
                })
                .collect();
            let rows = Shared(v.as_mut_ptr());
            let placed: Vec<Vec<usize>> = stripes
                .par_iter()
                // SAFETY: the threads' stripes are disjoint ranges of `v` (each bucket's
                // unplaced rows cut at different points), and each call touches only its own.
                .map(|s| unsafe { speculate(&rows, s, digit) })
                .collect();
            let done = repair(v, &stripes, &placed, &mut next);
            if done < left / 2 {
                // Rows whose buckets' stripes filled up on other threads: a round that placed
                // few of them would only repeat; the cycles below place every one.
                break;
            }
        }
    }
    cycle(v, digit, &mut next, &end);
}

/// A pointer to the rows that the threads of [`permute`] share, each writing its own stripes.
struct Shared<T>(*mut T);

// SAFETY: `Shared` is only handed to [`speculate`], whose callers give each thread disjoint rows.
unsafe impl<T: Send> Send for Shared<T> {}
unsafe impl<T: Send> Sync for Shared<T> {}

/// One thread's part of a round of [`permute`] (the speculative permutation of PARADIS, Cho et
/// al., VLDB 2015): the cycles of [`cycle`] confined to this thread's stripe of each bucket
/// (`stripes[b]`, a range of the rows). A row whose bucket's stripe is already full is set
/// aside at the end of the stripe it came from. Returns, per bucket, where its stripe's rows
/// in place end: `stripes[b].0..` that are in bucket `b`, the rest of the stripe set aside.
///
/// # Safety
///
/// Every stripe lies within the rows `rows` points to, and no other thread reads or writes
/// them while this runs.
unsafe fn speculate<T: Copy, D: Fn(&T) -> usize>(
    rows: &Shared<T>,
    stripes: &[(usize, usize)],
    digit: &D,
) -> Vec<usize> {
    let p = rows.0;
    let (mut next, mut end): (Vec<usize>, Vec<usize>) = stripes.iter().copied().unzip();
    for b in 0..stripes.len() {
        while next[b] < end[b] {
            // SAFETY (here and below): `next[d] < end[d]` keeps every access inside stripe
            // `d` of this thread.
            let mut x = unsafe { *p.add(next[b]) };
            let mut d = digit(&x);
            while d != b && next[d] < end[d] {
                prefetch(p.wrapping_add(next[d] + AHEAD));
                unsafe { std::ptr::swap(&mut x, p.add(next[d])) };
                next[d] += 1;
                d = digit(&x);
            }
            if d == b {
                unsafe { *p.add(next[b]) = x };
                next[b] += 1;
            } else {
                // Bucket `d`'s stripe is full: `x` goes to the end of this stripe, set aside,
                // and the unplaced row there to the front, where `x` was taken from.
                end[b] -= 1;
                unsafe {
                    let last = p.add(end[b]);
                    *p.add(next[b]) = *last;
                    *last = x;
                }
            }
        }
    }
    next
}

/// Ends a round of [`permute`]: in each bucket, swaps the rows set aside among its first
/// places with rows in place beyond them, so that the bucket's placed rows come first, and
/// moves `next` past them. Returns how many rows the round placed.
fn repair<T>(
    v: &mut [T],
    stripes: &[Vec<(usize, usize)>],
    placed: &[Vec<usize>],
    next: &mut [usize],
) -> usize {
    let mut done = 0;
    for (b, next) in next.iter_mut().enumerate() {
        let in_place: usize = (stripes.iter().zip(placed))
            .map(|(s, p)| p[b] - s[b].0)
            .sum();
        let mid = *next + in_place;
        // Set aside below `mid`, and in place from `mid` on: as many of one as of the other.
        let low = (stripes.iter().zip(placed)).flat_map(|(s, p)| p[b]..s[b].1.min(mid));
        let high = (stripes.iter().zip(placed)).flat_map(|(s, p)| s[b].0.max(mid)..p[b]);
        for (l, h) in low.zip(high) {
            v.swap(l, h);
        }
        *next = mid;
        done += in_place;
    }
    done
}

/// Places the rows left unplaced (`next[b]..end[b]` of each bucket `b`, as many rows as are in
/// bucket `b`): each bucket's unplaced rows are taken in turn and swapped along to their
/// buckets' next free places until a row of that bucket comes back.
fn cycle<T: Copy, D: Fn(&T) -> usize>(v: &mut [T], digit: &D, next: &mut [usize], end: &[usize]) {
    for b in 0..next.len() {
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

/// Slices with at least this many rows unplaced have them moved by every thread of the pool.
const PARALLEL_PERMUTE: usize = 1 << 20;

/// How many rows ahead of a bucket's next free place [`permute`] asks for memory.
const AHEAD: usize = 8;

#[cfg(test)]
mod tests;
