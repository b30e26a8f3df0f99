//! Turns a merged [`CandidateAcc`](crate::stats::CandidateAcc) into the numbers a report shows: distributions, top partitions,
//! skew, key sizes and hierarchical prefixes. Everything is computed from partitions sorted by key,
//! so the result does not depend on hashing or thread count.

use serde::{Deserialize, Serialize};

use super::keymap::{KeyArenas, KeyMap, KeyRef};
use super::sampling::KeySampling;
use super::spread::skew_of_counted;
pub use super::spread::{skew, Distribution, Skew};
use super::SampleCounts;
use crate::keys;
pub use drain::{drain, drain_checking, Drained, KeyCheck};
use prefix::level_stats;
pub use prefix::{prefix_groups, PrefixGroup};
use sampled::Sampled;
use totals::totals_and_largest;

/// One logical partition: its key and sample counts (32 bytes; its projected documents and
/// bytes come from [`RowScale`], [`CandidateStats::documents_of`] and
/// [`CandidateStats::bytes_of`], not stored: 16 bytes a row fewer to fault in and sort).
///
/// The counts are 4-byte words: 10 M distinct keys' rows are 320 MB rather than 400 MB of
/// fresh memory to fault in and sort. A key whose documents or bytes do not fit (4 GiB of one
/// key's documents in the sample) is a *wide* row: its documents word holds `u32::MAX` and its counts
/// are kept beside its key bytes ([`KeyArenas::wide_counts`]), so its counts are read with
/// [`PartitionRow::sample`] given the rows' arenas.
#[derive(Debug, Clone, Copy)]
pub struct PartitionRow {
    /// Where the encoded key is stored ([`CandidateStats::key`] gives its bytes).
    pub key: KeyRef,
    documents: u32,
    minified_bytes: u32,
}

/// The documents word of a wide [`PartitionRow`] (a narrow row's documents are below it).
const WIDE: u32 = u32::MAX;

impl PartitionRow {
    /// The row of `key` with counts `c`, and whether it is wide: then `c` must be stored with
    /// [`KeyArenas::set_wide_counts`] in the arenas the row is read with.
    #[inline]
    pub(super) fn new(key: KeyRef, c: SampleCounts) -> (PartitionRow, bool) {
        let documents = u32::try_from(c.documents).ok().filter(|&d| d != WIDE);
        match (documents, u32::try_from(c.minified_bytes).ok()) {
            (Some(documents), Some(minified_bytes)) => (
                PartitionRow {
                    key,
                    documents,
                    minified_bytes,
                },
                false,
            ),
            _ => (
                PartitionRow {
                    key,
                    documents: WIDE,
                    minified_bytes: 0,
                },
                true,
            ),
        }
    }

    /// The row of `key` with counts `c`, a wide row's counts stored in `arenas`.
    pub(super) fn stored(key: KeyRef, c: SampleCounts, arenas: &mut KeyArenas) -> PartitionRow {
        let (row, wide) = PartitionRow::new(key, c);
        if wide {
            arenas.set_wide_counts(key, c);
        }
        row
    }

    /// The row's sample counts; `keys` are the arenas of the rows' statistics
    /// ([`CandidateStats::keys`]), where a wide row's counts are.
    #[inline]
    pub fn sample(&self, keys: &KeyArenas) -> SampleCounts {
        if self.documents != WIDE {
            SampleCounts {
                documents: u64::from(self.documents),
                minified_bytes: u64::from(self.minified_bytes),
            }
        } else {
            keys.wide_counts(self.key)
        }
    }

    /// The row's sample documents ([`PartitionRow::sample`]).
    #[inline]
    pub fn documents(&self, keys: &KeyArenas) -> u64 {
        self.sample(keys).documents
    }
}

/// How many rows ahead [`CandidateStats::keyed_rows`] asks for a key's bytes: enough to cover
/// a miss to memory (about 100 ns) at a few nanoseconds a row.
const KEYS_AHEAD: usize = 16;

/// Counts below this have their scale in a table; larger ones in a map.
const SCALE_TABLE: usize = 4096;

/// A partition's projection from its sample counts: documents `c × scale(c)` and stored bytes
/// `(minified bytes + overhead × c) × scale(c)` for a key seen `c` times (estimates when the
/// sample is projected, see `estimate`). `scale` is evaluated once per distinct count.
#[derive(Debug, Clone, Default)]
pub struct RowScale {
    /// `scale(c)` by count `c` (NaN for counts no partition has).
    table: Vec<f64>,
    large: hashbrown::HashMap<u64, f64>,
    overhead_bytes: f64,
}

impl RowScale {
    /// The scale of every count in `counts` (the counts the rows have).
    pub fn new(
        counts: impl Iterator<Item = u64>,
        scale: &(dyn Fn(u64) -> f64 + Sync),
        overhead_bytes: f64,
    ) -> RowScale {
        let mut s = RowScale {
            table: Vec::new(),
            large: hashbrown::HashMap::new(),
            overhead_bytes,
        };
        for c in counts {
            let f = scale(c);
            match usize::try_from(c) {
                Ok(i) if i < SCALE_TABLE => {
                    if s.table.len() <= i {
                        s.table.resize(i + 1, f64::NAN);
                    }
                    s.table[i] = f;
                }
                _ => {
                    s.large.insert(c, f);
                }
            }
        }
        s
    }

    #[inline]
    fn factor(&self, c: u64) -> f64 {
        let f = if c < SCALE_TABLE as u64 {
            self.table.get(c as usize).copied()
        } else {
            self.large.get(&c).copied()
        };
        debug_assert!(f.is_some_and(|f| !f.is_nan()), "no scale for count {c}");
        f.unwrap_or(f64::NAN)
    }

    /// The scale of count `c`, looked up once per run of rows sharing a count (`memo`: the
    /// previous row's): passes over millions of rows in key order use it.
    #[inline]
    fn memo_factor(&self, memo: &mut Option<(u64, f64)>, c: u64) -> f64 {
        match *memo {
            Some((n, f)) if n == c => f,
            _ => {
                let f = self.factor(c);
                *memo = Some((c, f));
                f
            }
        }
    }

    /// Projected documents of a partition with these sample counts.
    #[inline]
    pub fn documents(&self, c: SampleCounts) -> f64 {
        self.project(c, self.factor(c.documents)).documents
    }

    /// Projected stored bytes of a partition with these sample counts. An estimate.
    #[inline]
    pub fn bytes(&self, c: SampleCounts) -> f64 {
        self.project(c, self.factor(c.documents)).bytes
    }

    /// A partition's sample stored bytes and its projection by `f`, the scale of its count
    /// (looked up by the caller: passes over many rows look it up once per run of a count).
    #[inline]
    fn project(&self, c: SampleCounts, f: f64) -> RowValues {
        let sample = sample_bytes_of(c, self.overhead_bytes);
        RowValues {
            documents: c.documents as f64 * f,
            bytes: sample * f,
            sample,
        }
    }
}

/// What [`RowScale::project`] gives a partition.
struct RowValues {
    /// Projected documents.
    documents: f64,
    /// Projected stored bytes.
    bytes: f64,
    /// The sample's stored bytes, as the skew measures them.
    sample: f64,
}

/// The sample's stored bytes of a partition of these counts, as the skew measures them.
#[inline]
fn sample_bytes_of(c: SampleCounts, overhead_bytes: f64) -> f64 {
    c.minified_bytes as f64 + overhead_bytes * c.documents as f64
}

/// The 95 % range of a partition's projected documents by its sample count, given to the
/// summary so that its pass over the rows also finds the extremes of their byte ranges
/// ([`RangeExtremes`]; the estimate stage's projection decides the ranges).
pub struct DocumentRanges<'a> {
    /// The range of the documents of a key seen `c` times.
    pub range: &'a (dyn Fn(u64) -> (f64, f64) + Sync),
    /// Keys seen this many times or more are heavy.
    pub heavy_from: u64,
}

/// The largest low end of the partitions' byte ranges, and the largest high end among heavy
/// partitions: each (bytes, index into the sorted partitions), the first in key order among
/// equals, `(0.0, usize::MAX)` where no range ends above 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeExtremes {
    /// The largest low end.
    pub low: (f64, usize),
    /// The largest high end of a heavy partition.
    pub heavy: (f64, usize),
}

/// A partition's byte range: its documents' range `docs` times its own mean stored bytes
/// (projected `bytes` over projected `documents`). The one formula behind the size projection's
/// ranges and the extremes the summary's pass finds.
#[inline]
pub fn byte_range(docs: (f64, f64), documents: f64, bytes: f64) -> [f64; 2] {
    let per_doc = bytes / documents.max(f64::MIN_POSITIVE);
    [docs.0 * per_doc, docs.1 * per_doc]
}

impl RangeExtremes {
    /// No partition seen.
    pub const NONE: RangeExtremes = RangeExtremes {
        low: (0.0, usize::MAX),
        heavy: (0.0, usize::MAX),
    };

    /// Row `i`, rows taken in key order, of byte range `lo..hi`.
    #[inline]
    pub fn add(&mut self, i: usize, lo: f64, hi: f64, heavy: bool) {
        if lo > self.low.0 {
            self.low = (lo, i);
        }
        if heavy && hi > self.heavy.0 {
            self.heavy = (hi, i);
        }
    }

    /// Both sets of rows' extremes: the larger, the first in key order among equals (the same
    /// whichever order).
    pub fn merge(self, o: RangeExtremes) -> RangeExtremes {
        let better = |a: (f64, usize), b: (f64, usize)| {
            if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
                b
            } else {
                a
            }
        };
        RangeExtremes {
            low: better(self.low, o.low),
            heavy: better(self.heavy, o.heavy),
        }
    }
}

/// Distinct prefixes at one level of a hierarchical key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LevelStats {
    /// 1-based level (1 = first path).
    pub level: usize,
    /// Distinct prefixes made of the first `level` paths (an estimate when the key's prefixes
    /// were sampled, `--memory-limit`: see the range).
    pub distinct_prefixes: u64,
    /// When the prefixes were sampled: the 95 % interval of `distinct_prefixes`
    /// ([`crate::stats::sampling::prefixes_estimate`]). Absent when exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct_prefixes_range: Option<[u64; 2]>,
    /// Projected stored bytes of the largest prefix (may exceed 20 GB: prefixes can span
    /// physical partitions).
    pub largest_prefix_bytes: f64,
    /// That prefix, as JSON.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub largest_prefix: serde_json::Value,
}

/// Report-ready statistics of one candidate.
#[derive(Debug, Clone)]
pub struct CandidateStats {
    /// Documents placed in a partition (sample).
    pub documents: u64,
    /// Distinct logical partitions, counting Undefined and Null as one each.
    pub logical_partitions: u64,
    /// Documents in the Undefined partition (a key path is missing; hierarchical: any level).
    pub undefined_documents: u64,
    /// Documents in the Null partition (a key value is null; hierarchical: any level).
    pub null_documents: u64,
    /// Projected documents per partition.
    pub documents_per_partition: Distribution,
    /// Projected stored bytes per partition.
    pub bytes_per_partition: Distribution,
    /// Projected stored bytes in total.
    pub total_bytes: f64,
    /// Skew of stored bytes.
    pub skew: Skew,
    /// Largest key value in bytes (string UTF-8 bytes, 8 per number), and the key.
    pub max_key_bytes: u64,
    /// The key with the largest value, as JSON.
    pub max_key: serde_json::Value,
    /// Per-level prefix statistics (hierarchical keys only).
    pub levels: Vec<LevelStats>,
    /// Every partition, sorted by encoded key.
    pub partitions: Vec<PartitionRow>,
    /// Partitions whose key has a defined component (not only Undefined or Null).
    pub defined_keys: u64,
    /// The bytes of the partitions' keys.
    pub keys: KeyArenas,
    /// The partitions' projection from their sample counts.
    pub scale: RowScale,
    /// Indices into `partitions` of the `top` largest by bytes, largest first (ties: key order).
    pub by_bytes: Vec<usize>,
    /// The sample's stored bytes per partition (as [`CandidateStats::skew`] measures them), in
    /// ascending order as runs of equal sizes: the Lorenz curve's input.
    pub size_runs: Vec<(f64, usize)>,
    /// The sum of those sizes.
    pub size_total: f64,
    /// The extremes of the partitions' byte ranges, found in the summary's pass when it was
    /// given the documents' ranges ([`DocumentRanges`]) and the projection did not change
    /// after it; `None` otherwise (`estimate::sizes` then finds them in a pass of its own).
    pub range_extremes: Option<RangeExtremes>,
    /// Set when the memory limit made the scan keep only a share of the keys
    /// ([`crate::stats::sampling`]): `partitions` are the kept keys, and the counts above that
    /// depend on every key are estimates from them.
    pub sampling: Option<KeySampling>,
    /// How many keys the drain's check held for ([`drain_checking`]; a key may count more than
    /// once, so only whether any did is meaningful); `None` when no check was made.
    pub flagged_keys: Option<u64>,
    /// The keys' value kinds as the scan saw every key, when `partitions` holds only the
    /// largest ([`distinct::summarize_distinct`]); `None`: read them off the rows.
    pub scanned_kinds: Option<ScannedKinds>,
}

/// Whether every key of one component was a boolean, and whether every key was a date or a
/// timestamp (`advise::domain` reads the same off the rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScannedKinds {
    /// Every key a boolean.
    pub all_bool: bool,
    /// Every key an ISO 8601 date or timestamp string.
    pub all_dates: bool,
}

impl CandidateStats {
    /// Frees the statistics of every candidate: the pages of their rows and key arenas (the
    /// bulk: 800 MB for 10 M distinct keys) given back to the system on `threads` threads
    /// first ([`super::memory::discard`]), the rest dropped off the caller's thread
    /// ([`super::memory::free_aside`]). Otherwise the process's exit gave them back on one
    /// thread after the report was written.
    pub fn free_all(all: Vec<CandidateStats>, threads: usize) {
        let ranges: Vec<(usize, usize)> = all.iter().flat_map(|s| s.allocations()).collect();
        // SAFETY: the ranges are the allocations of `all`'s rows and arenas, which are only
        // dropped after this, never read again.
        unsafe { super::memory::discard(&ranges, threads) };
        super::memory::free_aside(all);
    }

    /// The byte ranges `(start, end)` of the rows' allocation, then the key arenas'.
    fn allocations(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let rows = self.partitions.as_ptr() as usize;
        let bytes = self.partitions.capacity() * std::mem::size_of::<PartitionRow>();
        std::iter::once((rows, rows + bytes)).chain(self.keys.allocations())
    }

    /// The encoded key of `partitions[i]`.
    #[inline]
    pub fn key(&self, i: usize) -> &[u8] {
        self.keys.get(self.partitions[i].key)
    }

    /// The sample's first and last time of `partitions[i]` (epoch seconds), when the scan
    /// tracked a time field and saw one for it.
    pub fn time_range(&self, i: usize) -> Option<(i64, i64)> {
        self.keys.time_range(self.partitions[i].key)
    }

    /// The encoded key of a partition row of these statistics.
    #[inline]
    pub fn key_of(&self, p: &PartitionRow) -> &[u8] {
        self.keys.get(p.key)
    }

    /// Every partition's key bytes with its row, in key order, on the rayon pool. The keys lie
    /// in their arenas in storage order, so read in key order each one was a cache miss waited
    /// for (1.8 M synthetic keys' separator check: 0.07 s); here each is requested from memory
    /// 16 rows before it is read.
    pub fn keyed_rows(
        &self,
    ) -> impl rayon::iter::IndexedParallelIterator<Item = (&[u8], &PartitionRow)> + '_ {
        use rayon::prelude::*;
        let rows = &self.partitions;
        rows.par_iter().enumerate().map(move |(i, p)| {
            if let Some(ahead) = rows.get(i + KEYS_AHEAD) {
                super::memory::prefetch(self.keys.get(ahead.key).as_ptr());
            }
            (self.keys.get(p.key), p)
        })
    }

    /// Projected documents of a partition row of these statistics.
    #[inline]
    pub fn documents_of(&self, p: &PartitionRow) -> f64 {
        self.scale.documents(p.sample(&self.keys))
    }

    /// Projected stored bytes of a partition row of these statistics. An estimate.
    #[inline]
    pub fn bytes_of(&self, p: &PartitionRow) -> f64 {
        self.scale.bytes(p.sample(&self.keys))
    }

    /// Projected stored bytes of `partitions[i]`.
    #[inline]
    pub fn bytes_at(&self, i: usize) -> f64 {
        self.bytes_of(&self.partitions[i])
    }
}

/// Builds the statistics. `scale(c)` is how many production documents each sampled document of
/// a key seen `c` times stands for (1.0 = the sample as is; see [`crate::estimate::Projector`]);
/// `overhead_bytes` is the per-item system-property estimate; `top` partitions are ranked by size.
/// Skew is measured on the sample's own bytes: it is a sample fact, not a projection.
pub fn summarize(
    map: KeyMap,
    hierarchical_levels: usize,
    scale: &(dyn Fn(u64) -> f64 + Sync),
    overhead_bytes: f64,
    top: usize,
) -> CandidateStats {
    summarize_drained(
        drain(map),
        hierarchical_levels,
        scale,
        overhead_bytes,
        top,
        None,
    )
}

/// The statistics of drained rows: `scale` as for [`summarize`]; with `ranges`, also the
/// extremes of the partitions' byte ranges ([`CandidateStats::range_extremes`]).
pub fn summarize_drained(
    d: Drained,
    hierarchical_levels: usize,
    scale: &(dyn Fn(u64) -> f64 + Sync),
    overhead_bytes: f64,
    top: usize,
    ranges: Option<&DocumentRanges<'_>>,
) -> CandidateStats {
    let rows_scale = RowScale::new(d.weighted_counts().map(|(c, _)| c), scale, overhead_bytes);
    let Drained {
        partitions,
        arenas,
        level,
        dropped,
        seen,
        ..
    } = d.sorted();
    // Only the largest `top` partitions are ever listed: select them, then sort those.
    let (sums, by_bytes, spreads) =
        totals_and_largest(&partitions, &arenas, &rows_scale, top, ranges);
    let documents = sums.documents + dropped.documents;
    crate::timing::mark("summary: shapes");
    let hierarchical = hierarchical_levels > 1;
    // Under key sampling, the dropped keys' share of the partitions and bytes is estimated.
    let est = (level > 0).then(|| {
        Sampled {
            partitions: &partitions,
            arenas: &arenas,
            rows_scale: &rows_scale,
            weight: 1u64 << level,
            defined_keys: seen.defined_keys,
            overhead_bytes,
            hierarchical,
        }
        .estimates(&dropped, scale)
    });
    let (logical_partitions, total_bytes) = match &est {
        Some(e) => (e.logical_partitions, sums.bytes + e.dropped_bytes),
        None => (partitions.len() as u64, sums.bytes),
    };
    let dropped_largest = dropped.largest_key.as_ref().filter(|_| level > 0);
    let (max_key_bytes, max_key) =
        largest_key(seen.max_key.as_ref(), dropped_largest, hierarchical);
    // The prefixes (passes over the rows) and the skew (a sort of the sizes, when they take
    // many values) are independent: on both cores.
    let dropped = (level > 0).then_some(&dropped);
    let (levels, sizes) = rayon::join(
        || {
            level_stats_all(
                &partitions,
                &arenas,
                &rows_scale,
                hierarchical_levels,
                dropped,
            )
        },
        || skew_of_counted(spreads.sizes.finish(), sums.sample),
    );
    crate::timing::mark("summary: done");
    CandidateStats {
        documents,
        logical_partitions,
        undefined_documents: seen.undefined_documents,
        null_documents: seen.null_documents,
        documents_per_partition: spreads.documents.finish(sums.projected),
        bytes_per_partition: spreads.bytes.finish(sums.bytes),
        total_bytes,
        skew: sizes.skew,
        max_key_bytes,
        max_key,
        levels,
        partitions,
        keys: arenas,
        scale: rows_scale,
        defined_keys: seen.defined_keys,
        by_bytes,
        size_runs: sizes.runs,
        size_total: sizes.total,
        range_extremes: ranges.map(|_| spreads.extremes),
        sampling: est.map(|e| e.sampling),
        flagged_keys: seen.flagged,
        scanned_kinds: None,
    }
}

/// The prefixes' statistics at each level of a hierarchical key but the last (passes over
/// the rows, run beside the skew's sort of the sizes).
fn level_stats_all(
    partitions: &[PartitionRow],
    arenas: &KeyArenas,
    rows_scale: &RowScale,
    hierarchical_levels: usize,
    dropped: Option<&super::sampling::Dropped>,
) -> Vec<LevelStats> {
    (1..hierarchical_levels)
        .map(|l| level_stats(partitions, arenas, rows_scale, l, dropped))
        .collect()
}

/// The largest key value's size and the key as JSON: the kept keys' largest (`kept`, from the
/// drain), or the dropped keys' (`dropped`, when keys were sampled) where that is larger;
/// `(0, null)` when there is none.
fn largest_key(
    kept: Option<&(u64, [u64; 2], Vec<u8>)>,
    dropped: Option<&(u64, Vec<u8>)>,
    hierarchical: bool,
) -> (u64, serde_json::Value) {
    let kept = kept.map(|(b, _, k)| (*b, &k[..]));
    let largest = match (kept, dropped) {
        (Some((b, _)), Some((size, key))) if *size > b => Some((*size, &key[..])),
        (None, Some((size, key))) if *size > 0 => Some((*size, &key[..])),
        (kept, _) => kept,
    };
    match largest {
        Some((b, k)) => (b, keys::key_json(k, hierarchical)),
        None => (0, serde_json::Value::Null),
    }
}

pub mod distinct;
mod drain;
mod prefix;
mod radix;
mod sampled;
mod sort;
mod totals;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod sampling_tests;
