//! One pass over the sorted rows, in fixed chunks on every core: the totals, the
//! distributions of projected documents and bytes per partition, the sample's sizes for the
//! skew, the largest partitions, and (given the documents' ranges) the extremes of the
//! partitions' byte ranges.

use super::{byte_range, DocumentRanges, PartitionRow, RangeExtremes, RowScale};
use crate::stats::keymap::KeyArenas;
use crate::stats::spread::{Counted, DistributionAcc};
use crate::stats::SampleCounts;

/// The rows are summed in chunks of this many, each in key order, and the chunks' sums added
/// in key order: the sums are the same whatever the thread count, each chunk summed on
/// whichever thread takes it.
pub(super) const SUM_CHUNK: usize = 1 << 16;

/// Sums over rows, each from -0.0 (as `Sum` starts) in key order.
#[derive(Debug, Clone, Copy)]
pub(super) struct RowSums {
    pub(super) documents: u64,
    /// Projected documents.
    pub(super) projected: f64,
    /// Projected stored bytes.
    pub(super) bytes: f64,
    /// The sample's stored bytes (as the skew measures them).
    pub(super) sample: f64,
}

impl RowSums {
    const ZERO: RowSums = RowSums {
        documents: 0,
        projected: -0.0,
        bytes: -0.0,
        sample: -0.0,
    };

    fn add(&mut self, o: &RowSums) {
        self.documents += o.documents;
        self.projected += o.projected;
        self.bytes += o.bytes;
        self.sample += o.sample;
    }
}

/// What the pass over the rows that sums the totals learns (each pass over millions of rows is
/// a read of all of them): the distributions of projected documents and bytes per partition,
/// the sample's stored bytes per partition counted for the skew, the largest partitions, and
/// each chunk's sums, in key order.
pub(super) struct SpreadsAcc {
    pub(super) documents: DistributionAcc,
    pub(super) bytes: DistributionAcc,
    pub(super) sizes: Counted,
    /// (bytes, index), largest first; ties by index, which is key order.
    pub(super) best: Vec<(f64, usize)>,
    /// Each chunk's sums, in key order.
    pub(super) chunks: Vec<RowSums>,
    /// The extremes of the byte ranges of the rows seen so far.
    pub(super) extremes: RangeExtremes,
}

/// Larger bytes first; ties by index, which is key order.
fn larger_first(a: &(f64, usize), b: &(f64, usize)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// The rows' sums (in fixed chunks, [`SUM_CHUNK`]), the indices of the `top` largest
/// partitions by bytes, largest first (ties: key order), and the spreads: one pass over the
/// sorted rows, each thread taking a stretch of whole chunks.
pub(super) fn totals_and_largest(
    partitions: &[PartitionRow],
    arenas: &KeyArenas,
    scale: &RowScale,
    top: usize,
    ranges: Option<&DocumentRanges<'_>>,
) -> (RowSums, Vec<usize>, SpreadsAcc) {
    use rayon::prelude::*;
    let chunks = partitions.len().div_ceil(SUM_CHUNK);
    let shares = rayon::current_num_threads().clamp(1, chunks.max(1));
    let hint = partitions.len() / shares + 1;
    let mut parts: Vec<SpreadsAcc> = (0..shares)
        .into_par_iter()
        .map(|t| {
            let (first, end) = (t * chunks / shares, (t + 1) * chunks / shares);
            let mut acc = SpreadsAcc {
                documents: DistributionAcc::new(),
                bytes: DistributionAcc::new(),
                sizes: Counted::new(hint),
                best: Vec::with_capacity(top + 1),
                chunks: Vec::with_capacity(end - first),
                extremes: RangeExtremes::NONE,
            };
            for c in first..end {
                let from = c * SUM_CHUNK;
                let rows = &partitions[from..(from + SUM_CHUNK).min(partitions.len())];
                let sums = chunk_pass(rows, from, arenas, scale, top, ranges, &mut acc);
                acc.chunks.push(sums);
            }
            acc
        })
        .collect();
    let mut acc = parts.remove(0);
    for p in parts {
        acc.documents.merge(p.documents);
        acc.bytes.merge(p.bytes);
        acc.sizes = acc.sizes.merge(p.sizes);
        acc.best.extend(p.best);
        acc.chunks.extend(p.chunks);
        acc.extremes = acc.extremes.merge(p.extremes);
    }
    acc.best.sort_unstable_by(larger_first);
    acc.best.truncate(top);
    let by_bytes = acc.best.iter().map(|&(_, i)| i).collect();
    let mut sums = RowSums::ZERO;
    for c in &acc.chunks {
        sums.add(c);
    }
    (sums, by_bytes, acc)
}

/// One chunk of rows (the first is row `from`) into `acc`; returns the chunk's sums.
fn chunk_pass(
    rows: &[PartitionRow],
    from: usize,
    arenas: &KeyArenas,
    scale: &RowScale,
    top: usize,
    ranges: Option<&DocumentRanges<'_>>,
    acc: &mut SpreadsAcc,
) -> RowSums {
    let mut sums = RowSums::ZERO;
    let mut memo: Option<(u64, f64)> = None;
    let mut range_memo: Option<(u64, (f64, f64))> = None;
    let extremes = &mut acc.extremes;
    // A row's spreads depend on its sample counts alone: rows of equal counts (most rows of a
    // unique key: one document of one of a few sizes) are tallied, and their values recorded
    // once per tally.
    let mut tally = PairTally::new();
    let best = &mut acc.best;
    let (documents, bytes, sizes) = (&mut acc.documents, &mut acc.bytes, &mut acc.sizes);
    let mut record = |c: SampleCounts, k: usize| {
        let v = scale.project(c, scale.factor(c.documents));
        documents.add_n(v.documents, k);
        bytes.add_n(v.bytes, k);
        sizes.add_n(v.sample, k);
    };
    for (i, p) in (from..).zip(rows) {
        let c = p.sample(arenas);
        let v = scale.project(c, scale.memo_factor(&mut memo, c.documents));
        sums.add(&RowSums {
            documents: c.documents,
            projected: v.documents,
            bytes: v.bytes,
            sample: v.sample,
        });
        if let Some(r) = ranges {
            // A row's byte range ([`byte_range`], as the size projection computes it).
            let range = match range_memo {
                Some((n, x)) if n == c.documents => x,
                _ => {
                    let x = (r.range)(c.documents);
                    range_memo = Some((c.documents, x));
                    x
                }
            };
            let [lo, hi] = byte_range(range, v.documents, v.bytes);
            extremes.add(i, lo, hi, c.documents >= r.heavy_from);
        }
        tally.add(c, &mut record);
        let row = (v.bytes, i);
        if best.len() == top {
            match best.last() {
                Some(w) if larger_first(&row, w).is_lt() => {}
                _ => continue,
            }
        }
        let at = best.partition_point(|x| larger_first(x, &row).is_lt());
        best.insert(at, row);
        best.truncate(top);
    }
    tally.flush(&mut record);
    sums
}

/// Slots of a [`PairTally`].
const PAIR_SLOTS: usize = 256;

/// Counts of recent sample counts, direct-mapped: a pair's count grows here and is handed on
/// when another pair takes its slot or at the end (as `spread`'s tally does for one value).
struct PairTally {
    slots: Box<[(SampleCounts, usize); PAIR_SLOTS]>,
}

impl PairTally {
    fn new() -> PairTally {
        let none = SampleCounts {
            documents: 0,
            minified_bytes: 0,
        };
        PairTally {
            slots: Box::new([(none, 0); PAIR_SLOTS]),
        }
    }

    #[inline]
    fn add(&mut self, c: SampleCounts, out: &mut impl FnMut(SampleCounts, usize)) {
        let h =
            (c.minified_bytes ^ c.documents.rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let s = &mut self.slots[(h >> 56) as usize];
        if s.1 > 0 && s.0 == c {
            s.1 += 1;
        } else {
            if s.1 > 0 {
                out(s.0, s.1);
            }
            *s = (c, 1);
        }
    }

    fn flush(&mut self, out: &mut impl FnMut(SampleCounts, usize)) {
        for s in self.slots.iter_mut().filter(|s| s.1 > 0) {
            out(s.0, s.1);
            s.1 = 0;
        }
    }
}
