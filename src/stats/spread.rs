//! The spread of a quantity over logical partitions: its five-number summary
//! ([`Distribution`]) and, for stored bytes, how unevenly it is shared ([`Skew`]: Gini,
//! entropy, top shares), with the ascending runs of sizes the Lorenz curve is drawn from. Results
//! are bit for bit the same whatever the thread count: the skew's sums run over the ascending
//! runs of equal sizes, one term per run, so they do not depend on the sizes' order at all; the
//! plain totals (a mean, the sum of sizes) are the caller's, summed in a fixed order (the
//! partitions' key order, in fixed chunks: `summary`).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Five-number summary of a per-partition quantity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Distribution {
    /// Smallest.
    pub min: f64,
    /// Median (histogram estimate, 3 significant digits).
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest (exact).
    pub max: f64,
    /// Mean (exact).
    pub mean: f64,
}

/// How unevenly stored bytes spread over logical partitions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Skew {
    /// Gini coefficient: 0 = all partitions equal, → 1 = one partition holds everything.
    pub gini: f64,
    /// Largest partition divided by the mean partition.
    pub max_over_mean: f64,
    /// Coefficient of variation (population standard deviation / mean).
    pub cv: f64,
    /// Shannon entropy of the byte shares divided by ln(partitions): 1 = perfectly even.
    pub entropy: f64,
    /// Share of all bytes in the largest partition.
    pub top1_share: f64,
    /// Share of all bytes in the largest 1 % of partitions (at least one).
    pub top1pct_share: f64,
}

#[cfg(test)]
pub(super) fn distribution(values: impl Iterator<Item = f64>) -> Distribution {
    let mut d = DistributionAcc::new();
    let mut sum = -0.0;
    for v in values {
        d.add_n(v, 1);
        sum += v;
    }
    d.finish(sum)
}

/// A [`Distribution`] built one value at a time, in any order, or in parts merged; the mean's
/// sum is the caller's ([`DistributionAcc::finish`]), summed in an order it fixes.
pub(super) struct DistributionAcc {
    h: Histogram<u64>,
    min: f64,
    max: f64,
    n: usize,
    /// Equal values are recorded at once (a histogram record costs more than the rest of
    /// [`DistributionAcc::add`]): most partitions of a unique key hold one document, and their
    /// sizes take a few hundred values in no order.
    pending: Tally,
}

impl DistributionAcc {
    pub(super) fn new() -> DistributionAcc {
        DistributionAcc {
            h: Histogram::<u64>::new_with_bounds(1, 1 << 62, 3).expect("valid bounds"),
            min: f64::INFINITY,
            max: 0.0,
            n: 0,
            pending: Tally::new(),
        }
    }

    /// `v`, `k` (at least 1) times.
    #[inline]
    pub(super) fn add_n(&mut self, v: f64, k: usize) {
        let h = &mut self.h;
        (self.pending).add_n(round_to_count(v), k, |r, m| {
            h.saturating_record_n(r, m as u64)
        });
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.n += k;
    }

    /// Both accumulators' values: the same histogram, ends and count as one that saw them all.
    pub(super) fn merge(&mut self, mut o: DistributionAcc) {
        let h = &mut self.h;
        (self.pending).flush(|r, k| h.saturating_record_n(r, k as u64));
        let oh = &mut o.h;
        (o.pending).flush(|r, k| oh.saturating_record_n(r, k as u64));
        self.h.add(&o.h).expect("histograms of the same bounds");
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.n += o.n;
    }

    /// The summary, its mean from `sum`, the sum of the values added.
    pub(super) fn finish(mut self, sum: f64) -> Distribution {
        let h = &mut self.h;
        (self.pending).flush(|r, k| h.saturating_record_n(r, k as u64));
        let (min, max, n) = (self.min, self.max, self.n);
        if n == 0 {
            return Distribution::default();
        }
        // hdrhistogram reports the highest equivalent value of a bucket; clamp to the exact
        // range.
        let q = |p: f64| (self.h.value_at_quantile(p) as f64).clamp(min.round(), max.round());
        Distribution {
            min,
            p50: q(0.5),
            p90: q(0.9),
            p99: q(0.99),
            max,
            mean: sum / n as f64,
        }
    }
}

/// `v.round().max(0.0) as u64` (half away from zero, negatives and NaN to 0, saturating),
/// without `round`: x86-64's baseline has no rounding instruction, so `f64::round` is a libm
/// call, a quarter of the distributions' time on 10 M partitions. `v - trunc(v)` is exact.
#[inline]
fn round_to_count(v: f64) -> u64 {
    let t = v as u64;
    if v - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Sequential sums over sizes given as ascending runs of equal values (`(size, count)`): the
/// same additions, in the same order, as a fold over the runs expanded, without expanding them.
pub(crate) struct RunCursor<'a> {
    runs: &'a [(f64, usize)],
    run: usize,
    used: usize,
}

impl<'a> RunCursor<'a> {
    pub(crate) fn new(runs: &'a [(f64, usize)]) -> Self {
        RunCursor {
            runs,
            run: 0,
            used: 0,
        }
    }

    /// Folds the next `k` sizes (fewer if the runs end) into `acc`, one `+` at a time.
    pub(crate) fn add_next(&mut self, mut k: usize, mut acc: f64) -> f64 {
        while k > 0 && self.run < self.runs.len() {
            let (v, m) = self.runs[self.run];
            let t = k.min(m - self.used);
            for _ in 0..t {
                acc += v;
            }
            k -= t;
            self.used += t;
            if self.used == m {
                self.run += 1;
                self.used = 0;
            }
        }
        acc
    }

    /// Passes over the next `k` sizes.
    pub(crate) fn skip(&mut self, mut k: usize) {
        while k > 0 && self.run < self.runs.len() {
            let t = k.min(self.runs[self.run].1 - self.used);
            k -= t;
            self.used += t;
            if self.used == self.runs[self.run].1 {
                self.run += 1;
                self.used = 0;
            }
        }
    }
}

/// Skew measures of a list of non-negative sizes.
pub fn skew(values: &[f64]) -> Skew {
    let (counted, total) = counted_sizes(values.iter().copied(), values.len());
    skew_of_counted(counted, total).skew
}

/// Sizes per partition, measured: their skew, their ascending runs and their sum.
pub(super) struct Sizes {
    pub(super) skew: Skew,
    /// Ascending runs of equal sizes (empty when the sizes sum to zero).
    pub(super) runs: Vec<(f64, usize)>,
    /// The sum (the caller's, [`skew_of_counted`]).
    pub(super) total: f64,
}

/// At most this many distinct sizes are counted rather than sorted.
const MAX_RUNS: usize = 1 << 16;

/// The sizes in ascending order ([`f64::total_cmp`]) as runs of equal values: counted in a
/// map when they take few distinct values (partitions of one or a few documents: millions of
/// sizes, a handful of values), else sorted.
#[cfg(test)]
fn sorted_runs(values: impl Iterator<Item = f64>, n: usize) -> Vec<(f64, usize)> {
    runs_of(counted_sizes(values, n).0)
}

/// Sizes counted by value (at most [`MAX_RUNS`] distinct), the rest kept as they come.
pub(super) struct Counted {
    counts: hashbrown::HashMap<u64, usize>,
    rest: Vec<f64>,
    n: usize,
    /// Counted sizes are tallied in a small cache first (neighbouring partitions mostly share
    /// their size, or take one of a few hundred sizes), and added to the map when evicted.
    pending: Tally,
    /// Room to reserve for `rest` when it starts.
    hint: usize,
}

/// One pass over the sizes: their [`Counted`] values and their sum (in their order).
fn counted_sizes(values: impl Iterator<Item = f64>, hint: usize) -> (Counted, f64) {
    let mut c = Counted::new(hint);
    let mut total = -0.0;
    for v in values {
        c.add(v);
        total += v;
    }
    (c.finish(), total)
}

impl Counted {
    /// Expecting about `hint` sizes.
    pub(super) fn new(hint: usize) -> Counted {
        Counted {
            counts: hashbrown::HashMap::new(),
            rest: Vec::new(),
            n: 0,
            pending: Tally::new(),
            hint,
        }
    }

    #[inline]
    pub(super) fn add(&mut self, v: f64) {
        self.add_n(v, 1);
    }

    /// `v`, `k` (at least 1) times.
    #[inline]
    pub(super) fn add_n(&mut self, v: f64, k: usize) {
        self.n += k;
        let bits = v.to_bits();
        if self.pending.bump_n(bits, k) {
            return;
        }
        let c = &mut self.counts;
        if self.rest.is_empty() && (c.len() < MAX_RUNS || c.contains_key(&bits)) {
            (self.pending).insert_n(bits, k, |b, m| *c.entry(b).or_insert(0) += m);
        } else {
            if self.rest.is_empty() {
                self.rest.reserve(self.hint);
            }
            self.rest.extend(std::iter::repeat_n(v, k));
        }
    }

    /// Every tallied count in the map.
    pub(super) fn finish(mut self) -> Counted {
        let c = &mut self.counts;
        (self.pending).flush(|b, k| *c.entry(b).or_insert(0) += k);
        self
    }

    /// Both sets of sizes ([`runs_of`] gives the runs of all of them).
    pub(super) fn merge(self, o: Counted) -> Counted {
        let (mut a, b) = (self.finish(), o.finish());
        a.n += b.n;
        for (bits, m) in b.counts {
            *a.counts.entry(bits).or_insert(0) += m;
        }
        a.rest.extend(b.rest);
        a
    }
}

/// Slots of a [`Tally`].
const TALLY_SLOTS: usize = 256;

/// Counts of recent values, direct-mapped by value: a value's count grows here and is handed
/// on (to a histogram, a map) when another value takes its slot or at the end. The totals
/// handed on are the same as counting each value where it goes; only the number of hand-overs
/// drops, from one per change of value to one per eviction.
struct Tally {
    slots: Box<[(u64, usize); TALLY_SLOTS]>,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            slots: Box::new([(0, 0); TALLY_SLOTS]),
        }
    }

    #[inline]
    fn slot(v: u64) -> usize {
        (v.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize
    }

    /// Counts `v` `k` more times if it is being tallied; false if not.
    #[inline]
    fn bump_n(&mut self, v: u64, k: usize) -> bool {
        let s = &mut self.slots[Self::slot(v)];
        if s.1 > 0 && s.0 == v {
            s.1 += k;
            true
        } else {
            false
        }
    }

    /// Starts tallying `v` (not being tallied) at `k`, handing on the value it displaces.
    #[inline]
    fn insert_n(&mut self, v: u64, k: usize, mut out: impl FnMut(u64, usize)) {
        let s = &mut self.slots[Self::slot(v)];
        if s.1 > 0 {
            out(s.0, s.1);
        }
        *s = (v, k);
    }

    /// Counts `v` `k` more times, tallied or not.
    #[inline]
    fn add_n(&mut self, v: u64, k: usize, out: impl FnMut(u64, usize)) {
        if !self.bump_n(v, k) {
            self.insert_n(v, k, out);
        }
    }

    /// Hands on every count.
    fn flush(&mut self, mut out: impl FnMut(u64, usize)) {
        for s in self.slots.iter_mut().filter(|s| s.1 > 0) {
            out(s.0, s.1);
            s.1 = 0;
        }
    }
}

/// The counted sizes in ascending order, as runs of equal values.
fn runs_of(c: Counted) -> Vec<(f64, usize)> {
    let Counted {
        counts, mut rest, ..
    } = c;
    if !rest.is_empty() {
        for (&bits, &m) in &counts {
            rest.extend(std::iter::repeat_n(f64::from_bits(bits), m));
        }
        use rayon::prelude::*;
        rest.par_sort_unstable_by(f64::total_cmp);
        let mut runs: Vec<(f64, usize)> = Vec::new();
        for v in rest {
            match runs.last_mut() {
                Some((w, m)) if w.to_bits() == v.to_bits() => *m += 1,
                _ => runs.push((v, 1)),
            }
        }
        return runs;
    }
    let mut runs: Vec<(f64, usize)> = counts
        .into_iter()
        .map(|(b, m)| (f64::from_bits(b), m))
        .collect();
    runs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    runs
}

/// The skew of the sizes `counted` holds, which sum to `total` (summed in the caller's order).
/// One pass over their ascending runs: no second pass over the sizes themselves.
pub(super) fn skew_of_counted(counted: Counted, total: f64) -> Sizes {
    let n = counted.n;
    if n == 0 || total <= 0.0 {
        return Sizes {
            skew: Skew::default(),
            runs: Vec::new(),
            total,
        };
    }
    let nf = n as f64;
    let mean = total / nf;
    let runs = runs_of(counted);
    // Σ (i + 1)·vᵢ over the ascending sizes (Gini), Σ (vᵢ - mean)² and Σ -pᵢ·ln pᵢ: each run
    // of m equal sizes adds one term, m times a size's (for Gini, v times the run's ranks
    // `before + 1 ..= before + m`, whose sum is exact in f64 below 2^26 partitions). The sums
    // thus depend on the sizes alone, not on their order or on how the rows were shared among
    // threads, and carry one rounding per run where adding every size carried one per size.
    // (-0.0 is the neutral element `f64: Sum` starts from.)
    let (mut weighted, mut squares, mut h) = (-0.0f64, -0.0f64, -0.0f64);
    let mut before = 0.0f64;
    for &(v, m) in &runs {
        let m = m as f64;
        weighted += v * (m * before + m * (m + 1.0) / 2.0);
        squares += m * (v - mean).powi(2);
        if v > 0.0 {
            let p = v / total;
            h += m * (-p * p.ln());
        }
        before += m;
    }
    let gini = (2.0 * weighted) / (nf * total) - (nf + 1.0) / nf;
    let var = squares / nf;
    let max = runs.last().map_or(0.0, |r| r.0);
    let entropy = if n == 1 { 1.0 } else { h / nf.ln() };
    let top = n.div_ceil(100).max(1);
    let mut tail = RunCursor::new(&runs);
    tail.skip(n - top);
    let top_sum = tail.add_next(top, -0.0);
    let skew = Skew {
        gini: gini.max(0.0),
        max_over_mean: max / mean,
        cv: var.sqrt() / mean,
        entropy,
        top1_share: max / total,
        top1pct_share: top_sum / total,
    };
    Sizes { skew, runs, total }
}

#[cfg(test)]
mod tests;
