//! Turns a merged [`CandidateAcc`](crate::stats::CandidateAcc) into the numbers a report shows: distributions, top partitions,
//! skew, key sizes and hierarchical prefixes. Everything is computed from partitions sorted by key,
//! so the result does not depend on hashing or thread count.

use serde::{Deserialize, Serialize};

use super::keymap::{KeyArenas, KeyMap, KeyRef};
use super::sampling::{always_kept, KeySampling};
pub use super::spread::{skew, Distribution, Skew};
use super::spread::{skew_of_counted, Counted, DistributionAcc};
use super::SampleCounts;
use crate::keys::{self, prefix_len};
use radix::FirstDigit;

/// One logical partition: its key and sample counts (40 bytes; its projected documents and
/// bytes come from [`RowScale`], [`CandidateStats::documents_of`] and
/// [`CandidateStats::bytes_of`], not stored: 16 bytes a row fewer to fault in and sort).
#[derive(Debug, Clone, Copy)]
pub struct PartitionRow {
    /// Where the encoded key is stored ([`CandidateStats::key`] gives its bytes).
    pub key: KeyRef,
    /// Sample counts.
    pub sample: SampleCounts,
}

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
    /// Set when the memory limit made the scan keep only a share of the keys
    /// ([`crate::stats::sampling`]): `partitions` are the kept keys, and the counts above that
    /// depend on every key are estimates from them.
    pub sampling: Option<KeySampling>,
}

impl CandidateStats {
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

    /// Projected documents of a partition row of these statistics.
    #[inline]
    pub fn documents_of(&self, p: &PartitionRow) -> f64 {
        self.scale.documents(p.sample)
    }

    /// Projected stored bytes of a partition row of these statistics. An estimate.
    #[inline]
    pub fn bytes_of(&self, p: &PartitionRow) -> f64 {
        self.scale.bytes(p.sample)
    }

    /// Projected stored bytes of `partitions[i]`.
    #[inline]
    pub fn bytes_at(&self, i: usize) -> f64 {
        self.bytes_of(&self.partitions[i])
    }
}

/// Sorts the rows by key ([`sort`]: by 16-byte windows, in parallel); returns whether two rows
/// may hold equal keys ([`sort::sort_by_key`]).
fn sort_by_key(
    partitions: &mut [PartitionRow],
    arenas: &KeyArenas,
    first: Option<FirstDigit>,
) -> bool {
    // Keys are distinct (or, before `combine_repeats`, equal keys' rows are combined whatever
    // their order), so the unstable sort has one result.
    let may_repeat = sort::sort_by_key(partitions, arenas, first);
    crate::timing::mark("summary: sorted");
    may_repeat
}

/// Combines the rows of a key into one (rows sorted by key; a loose drain leaves a key one
/// row per record, [`KeyMap::drain`]): counts added, times merged into the first row's record,
/// and the drain's tallies told that rows of `a` and `b` documents were one key of `a + b`.
fn combine_repeats(rows: &mut Vec<PartitionRow>, arenas: &mut KeyArenas, seen: &mut DrainAcc) {
    let mut w = 0;
    for r in 0..rows.len() {
        let row = rows[r];
        if w > 0 {
            let into = &mut rows[w - 1];
            if into.key.head128() == row.key.head128()
                && arenas.get(into.key) == arenas.get(row.key)
            {
                seen.combine(
                    arenas.get(row.key),
                    into.sample.documents,
                    row.sample.documents,
                );
                into.sample.documents += row.sample.documents;
                into.sample.minified_bytes += row.sample.minified_bytes;
                arenas.merge_times(into.key, row.key);
                continue;
            }
        }
        rows[w] = row;
        w += 1;
    }
    rows.truncate(w);
    crate::timing::mark("summary: repeats combined");
}

/// The rows are summed in chunks of this many, each in key order, and the chunks' sums added
/// in key order: the sums are the same whatever the thread count, each chunk summed on
/// whichever thread takes it.
const SUM_CHUNK: usize = 1 << 16;

/// Sums over rows, each from -0.0 (as `Sum` starts) in key order.
#[derive(Debug, Clone, Copy)]
struct RowSums {
    documents: u64,
    /// Projected documents.
    projected: f64,
    /// Projected stored bytes.
    bytes: f64,
    /// The sample's stored bytes (as the skew measures them).
    sample: f64,
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
struct SpreadsAcc {
    documents: DistributionAcc,
    bytes: DistributionAcc,
    sizes: Counted,
    /// (bytes, index), largest first; ties by index, which is key order.
    best: Vec<(f64, usize)>,
    /// Each chunk's sums, in key order.
    chunks: Vec<RowSums>,
}

/// Larger bytes first; ties by index, which is key order.
fn larger_first(a: &(f64, usize), b: &(f64, usize)) -> std::cmp::Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

/// The sample's stored bytes of a partition of these counts, as the skew measures them.
#[inline]
fn sample_bytes_of(c: SampleCounts, overhead_bytes: f64) -> f64 {
    c.minified_bytes as f64 + overhead_bytes * c.documents as f64
}

/// The kept keys of a sampled candidate, and what the report needs from them.
struct Sampled<'a> {
    partitions: &'a [PartitionRow],
    arenas: &'a KeyArenas,
    rows_scale: &'a RowScale,
    weight: u64,
    defined_keys: u64,
    overhead_bytes: f64,
    /// Whether keys were sampled by their first level (hierarchical keys).
    hierarchical: bool,
}

/// The estimates a sampled candidate's statistics use.
struct SampledEstimates {
    logical_partitions: u64,
    /// Projected bytes of the dropped keys.
    dropped_bytes: f64,
    sampling: KeySampling,
}

impl Sampled<'_> {
    /// The logical partitions behind the kept keys, with their interval
    /// ([`super::sampling::partitions_estimate`]: kept × 2^level for one-level keys, kept plus a
    /// sketch of the dropped keys for hierarchical ones); the dropped keys' bytes are projected
    /// like the kept keys' bytes on average.
    fn estimates(
        &self,
        dropped: &super::sampling::Dropped,
        scale: &(dyn Fn(u64) -> f64 + Sync),
    ) -> SampledEstimates {
        let kept = self.partitions.len() as u64;
        let special = kept - self.defined_keys;
        let overhead = self.overhead_bytes;
        let (kept_sample, kept_projected) = self
            .partitions
            .iter()
            .filter(|p| !always_kept(self.arenas.get(p.key)))
            .fold((0.0, 0.0), |(s, b), p| {
                let sample = sample_bytes_of(p.sample, overhead);
                (s + sample, b + self.rows_scale.bytes(p.sample))
            });
        let factor = if kept_sample > 0.0 {
            kept_projected / kept_sample
        } else {
            scale(1)
        };
        let dropped_sample = dropped.minified_bytes as f64 + overhead * dropped.documents as f64;
        let (docs_bound, bytes_bound) = dropped.largest_bounds();
        let partitions = super::sampling::partitions_estimate(
            kept,
            special,
            self.weight.trailing_zeros(),
            dropped,
            self.hierarchical,
        );
        SampledEstimates {
            logical_partitions: partitions.estimate,
            dropped_bytes: dropped_sample * factor,
            sampling: KeySampling {
                memory_limit_bytes: 0,
                kept_fraction: 1.0 / self.weight as f64,
                kept_keys: kept,
                dropped_documents: dropped.documents,
                dropped_largest_documents_bound: docs_bound,
                dropped_largest_bytes_bound: bytes_bound as f64 + overhead * docs_bound as f64,
                logical_partitions_low: partitions.low,
                logical_partitions_high: partitions.high,
            },
        }
    }
}

/// Document counts below this are tallied in an array ([`DrainAcc::keys_by_count`]).
const SMALL_COUNTS: usize = 1024;

/// What the drain learns from the key bytes and counts.
struct DrainAcc {
    /// The sampling level (0: every key kept).
    level: u32,
    undefined_documents: u64,
    null_documents: u64,
    defined_keys: u64,
    /// The largest key value and, among equals, the first key in key order (with its
    /// [`head`](super::arenas::head), which settles most comparisons without a `memcmp`).
    max_key: Option<(u64, [u64; 2], Vec<u8>)>,
    /// Keys by document count, each weighted by the keys it stands for ([`Drained::weighted_counts`]):
    /// counts below [`SMALL_COUNTS`] by index, larger ones in `large_counts`.
    keys_by_count: Vec<u64>,
    large_counts: hashbrown::HashMap<u64, u64>,
    /// The rows' first digit for their sort, counted as they are written.
    first: Option<FirstDigit>,
}

impl DrainAcc {
    fn new(level: u32, first: Option<FirstDigit>) -> DrainAcc {
        DrainAcc {
            first,
            level,
            undefined_documents: 0,
            null_documents: 0,
            defined_keys: 0,
            max_key: None,
            keys_by_count: vec![0; SMALL_COUNTS],
            large_counts: hashbrown::HashMap::new(),
        }
    }

    /// Learns from the row `r` of `key`, of `documents` documents.
    fn add(&mut self, key: &[u8], r: KeyRef, documents: u64) {
        let shape = keys::key_shape(key);
        if shape.undefined {
            self.undefined_documents += documents;
        }
        if shape.null {
            self.null_documents += documents;
        }
        let special = always_kept(key);
        self.defined_keys += u64::from(!special);
        let kb = shape.value_bytes;
        if Self::bigger(&self.max_key, kb, r.head, key) {
            self.max_key = Some((kb, r.head, key.to_vec()));
        }
        if let Some(f) = &mut self.first {
            f.add(r.head128());
        }
        // A key kept by sampling stands for 2^level keys; Undefined and Null for themselves.
        let w = if special { 1 } else { 1u64 << self.level };
        self.tally(documents, w, true);
    }

    /// The tally of one key of `documents` documents.
    fn tally(&mut self, documents: u64, w: u64, add: bool) {
        let slot = match self.keys_by_count.get_mut(documents as usize) {
            Some(k) => k,
            None => self.large_counts.entry(documents).or_default(),
        };
        if add {
            *slot += w;
        } else {
            *slot -= w;
        }
        if *slot == 0 && documents as usize >= SMALL_COUNTS {
            self.large_counts.remove(&documents);
        }
    }

    /// Two rows of `key`, of `a` and `b` documents, tallied by [`DrainAcc::add`] as two keys,
    /// are one key of `a + b` documents.
    fn combine(&mut self, key: &[u8], a: u64, b: u64) {
        let special = always_kept(key);
        self.defined_keys -= u64::from(!special);
        let w = if special { 1 } else { 1u64 << self.level };
        self.tally(a, w, false);
        self.tally(b, w, false);
        self.tally(a + b, w, true);
    }

    /// Both accumulators' findings (the largest key: the same whichever order).
    fn merge(mut self, o: DrainAcc) -> DrainAcc {
        self.undefined_documents += o.undefined_documents;
        self.null_documents += o.null_documents;
        self.defined_keys += o.defined_keys;
        for (a, b) in self.keys_by_count.iter_mut().zip(&o.keys_by_count) {
            *a += b;
        }
        for (c, w) in o.large_counts {
            *self.large_counts.entry(c).or_default() += w;
        }
        self.first = match (self.first, o.first) {
            (Some(a), Some(b)) => Some(a.merge(b)),
            _ => None,
        };
        if let Some((kb, head, key)) = o.max_key {
            if Self::bigger(&self.max_key, kb, head, &key) {
                self.max_key = Some((kb, head, key));
            }
        }
        self
    }

    /// Whether `key` (of `kb` value bytes and head `head`) replaces `cur` as the largest.
    /// Heads order as the keys' first 16 bytes: only equal heads compare the whole keys
    /// (10 M ids of one length otherwise made a `memcmp` call each).
    fn bigger(cur: &Option<(u64, [u64; 2], Vec<u8>)>, kb: u64, head: [u64; 2], key: &[u8]) -> bool {
        match cur {
            None => true,
            Some((b, h, k)) => kb > *b || (kb == *b && (head < *h || (head == *h && key < &k[..]))),
        }
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
    summarize_drained(drain(map), hierarchical_levels, scale, overhead_bytes, top)
}

/// A key map turned into rows (sample counts only, not yet projected), with what the key bytes
/// told on the way: enough to build the projection ([`Drained::weighted_counts`]) before the
/// statistics that need it.
pub struct Drained {
    partitions: Vec<PartitionRow>,
    arenas: KeyArenas,
    level: u32,
    dropped: super::sampling::Dropped,
    seen: DrainAcc,
    /// The rows are already sorted by key.
    sorted: bool,
}

/// Drains a key map into rows on the caller's rayon pool, reading each key's bytes once as
/// its row is built, in storage order (later passes in key order would read them at random).
/// Where the drain left a key several rows (its loose parts, [`KeyMap::drain`]), the rows are
/// sorted here and each key's rows combined into one, its tallies corrected: everything after
/// sees one row per key.
pub fn drain(mut map: KeyMap) -> Drained {
    let (level, dropped) = map.take_sampling();
    // The sort's first digit is counted as the rows are written, at a digit guessed from the
    // first keys of each part.
    let first = FirstDigit::guess(map.head_sample(32).into_iter());
    let (mut partitions, mut arenas, mut seen, repeats) = map.drain_with(
        || DrainAcc::new(level, first.clone()),
        |seen, key, bytes, c| {
            seen.add(bytes, key, c.documents);
            PartitionRow {
                key,
                sample: SampleCounts {
                    documents: c.documents,
                    minified_bytes: c.minified_bytes,
                },
            }
        },
        DrainAcc::merge,
    );
    crate::timing::mark("summary: rows");
    if repeats && sort_by_key(&mut partitions, &arenas, seen.first.take()) {
        combine_repeats(&mut partitions, &mut arenas, &mut seen);
    }
    Drained {
        partitions,
        arenas,
        level,
        dropped,
        seen,
        sorted: repeats,
    }
}

impl Drained {
    /// The keys' document counts, each with how many keys it stands for (2^level for a key
    /// kept by sampling, 1 for Undefined and Null, which are always kept, and for every key
    /// when nothing was sampled), summed by count: tallied while draining, not read off the
    /// rows again.
    pub fn weighted_counts(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let small = (self.seen.keys_by_count.iter().enumerate())
            .filter(|&(_, &w)| w > 0)
            .map(|(c, &w)| (c as u64, w));
        small.chain(self.seen.large_counts.iter().map(|(&c, &w)| (c, w)))
    }

    /// No key has an Undefined or Null component.
    pub fn all_defined(&self) -> bool {
        self.seen.undefined_documents == 0 && self.seen.null_documents == 0
    }
}

/// The statistics of drained rows: `scale` as for [`summarize`].
pub fn summarize_drained(
    d: Drained,
    hierarchical_levels: usize,
    scale: &(dyn Fn(u64) -> f64 + Sync),
    overhead_bytes: f64,
    top: usize,
) -> CandidateStats {
    let d_counts: Vec<u64> = d.weighted_counts().map(|(c, _)| c).collect();
    let Drained {
        mut partitions,
        arenas,
        level,
        dropped,
        seen,
        sorted,
    } = d;
    let rows_scale = RowScale::new(d_counts.into_iter(), scale, overhead_bytes);
    let DrainAcc {
        undefined_documents,
        null_documents,
        defined_keys,
        max_key: max_key_seen,
        first,
        ..
    } = seen;
    if !sorted {
        sort_by_key(&mut partitions, &arenas, first);
    }
    // Only the largest `top` partitions are ever listed: select them, then sort those.
    let (sums, by_bytes, spreads) = totals_and_largest(&partitions, &rows_scale, top);
    let mut total_bytes = sums.bytes;
    let documents = sums.documents + dropped.documents;
    crate::timing::mark("summary: shapes");
    let hierarchical = hierarchical_levels > 1;
    let (mut max_key_bytes, mut max_key) = match &max_key_seen {
        Some((b, _, k)) => (*b, keys::key_json(k, hierarchical)),
        None => (0, serde_json::Value::Null),
    };
    let weight = 1u64 << level;
    let mut logical_partitions = partitions.len() as u64;
    let mut sampling = None;
    if level > 0 {
        let est = Sampled {
            partitions: &partitions,
            arenas: &arenas,
            rows_scale: &rows_scale,
            weight,
            defined_keys,
            overhead_bytes,
            hierarchical: hierarchical_levels > 1,
        }
        .estimates(&dropped, scale);
        logical_partitions = est.logical_partitions;
        total_bytes += est.dropped_bytes;
        if let Some((size, key)) = &dropped.largest_key {
            if *size > max_key_bytes {
                max_key_bytes = *size;
                max_key = keys::key_json(key, hierarchical);
            }
        }
        sampling = Some(est.sampling);
    }

    // The prefixes (passes over the rows) and the skew (a sort of the sizes, when they take
    // many values) are independent: on both cores.
    let (levels, sizes) = rayon::join(
        || -> Vec<LevelStats> {
            (1..hierarchical_levels)
                .map(|l| {
                    let dropped = (level > 0).then_some(&dropped);
                    level_stats(&partitions, &arenas, &rows_scale, l, dropped)
                })
                .collect()
        },
        || skew_of_counted(spreads.sizes.finish(), sums.sample),
    );
    let (documents_per_partition, bytes_per_partition) = (
        spreads.documents.finish(sums.projected),
        spreads.bytes.finish(sums.bytes),
    );
    crate::timing::mark("summary: done");
    CandidateStats {
        documents,
        logical_partitions,
        undefined_documents,
        null_documents,
        documents_per_partition,
        bytes_per_partition,
        total_bytes,
        skew: sizes.skew,
        max_key_bytes,
        max_key,
        levels,
        partitions,
        keys: arenas,
        scale: rows_scale,
        defined_keys,
        by_bytes,
        size_runs: sizes.runs,
        size_total: sizes.total,
        sampling,
    }
}

/// The rows' sums (in fixed chunks, [`SUM_CHUNK`]), the indices of the `top` largest
/// partitions by bytes, largest first (ties: key order), and the spreads: one pass over the
/// sorted rows, each thread taking a stretch of whole chunks.
fn totals_and_largest(
    partitions: &[PartitionRow],
    scale: &RowScale,
    top: usize,
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
            };
            for c in first..end {
                let from = c * SUM_CHUNK;
                let rows = &partitions[from..(from + SUM_CHUNK).min(partitions.len())];
                let sums = chunk_pass(rows, from, scale, top, &mut acc);
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
    scale: &RowScale,
    top: usize,
    acc: &mut SpreadsAcc,
) -> RowSums {
    let mut sums = RowSums::ZERO;
    let mut memo: Option<(u64, f64)> = None;
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
        let c = p.sample;
        let v = scale.project(c, scale.memo_factor(&mut memo, c.documents));
        sums.add(&RowSums {
            documents: c.documents,
            projected: v.documents,
            bytes: v.bytes,
            sample: v.sample,
        });
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

/// Prefix statistics: the encoding is prefix-free, so partitions sharing the first `level`
/// components are contiguous in key order.
/// One group of partitions sharing the first `level` key components.
#[derive(Debug, Clone)]
pub struct PrefixGroup<'a> {
    /// The encoded prefix.
    pub prefix: &'a [u8],
    /// The partitions in the group (a range of the sorted partitions).
    pub members: std::ops::Range<usize>,
    /// Their projected bytes.
    pub bytes: f64,
}

/// Groups partitions (sorted by key) by their first `level` components. The encoding is
/// prefix-free, so each group is contiguous.
pub fn prefix_groups<'a>(
    partitions: &[PartitionRow],
    arenas: &'a KeyArenas,
    scale: &RowScale,
    level: usize,
) -> Vec<PrefixGroup<'a>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < partitions.len() {
        let first = arenas.get(partitions[i].key);
        let plen = prefix_len(first, level);
        let prefix = &first[..plen];
        let mut j = i;
        let mut bytes = 0.0;
        if plen < first.len() && plen <= 16 {
            // The prefix is `level` whole components within the rows' 16-byte heads: a row
            // belongs to the group when its head starts with the same bytes and it is at least
            // as long (no key bytes read: in key order they would be read at random).
            let mask = head_mask(plen);
            let h = masked(partitions[i].key.head, mask);
            while j < partitions.len()
                && masked(partitions[j].key.head, mask) == h
                && partitions[j].key.len() >= plen
            {
                bytes += scale.bytes(partitions[j].sample);
                j += 1;
            }
        } else if plen < first.len() {
            // The encoding is prefix-free: a key starting with these `level` whole components
            // has them as its first `level`, so the group is the rows whose key starts with the
            // prefix, found by galloping (a few key reads per group, not one per row: in key
            // order each read is a cache miss).
            let member = |j: usize| arenas.get(partitions[j].key).starts_with(prefix);
            let (mut lo, mut step) = (i + 1, 1);
            while lo + step <= partitions.len() && member(lo + step - 1) {
                lo += step;
                step *= 2;
            }
            let hi = (lo + step).min(partitions.len());
            j = lo + partitions[lo..hi].partition_point(|p| arenas.get(p.key).starts_with(prefix));
            bytes = partitions[i..j]
                .iter()
                .fold(0.0, |b, p| b + scale.bytes(p.sample));
        } else {
            while j < partitions.len() && {
                let k = arenas.get(partitions[j].key);
                k.starts_with(prefix) && prefix_len(k, level) == plen
            } {
                bytes += scale.bytes(partitions[j].sample);
                j += 1;
            }
        }
        out.push(PrefixGroup {
            prefix,
            members: i..j,
            bytes,
        });
        i = j;
    }
    out
}

/// A mask keeping the first `n` (1..=16) bytes of a head.
fn head_mask(n: usize) -> [u64; 2] {
    let top = |bytes: usize| match bytes {
        0 => 0,
        8.. => u64::MAX,
        b => u64::MAX << (64 - 8 * b),
    };
    [top(n.min(8)), top(n.saturating_sub(8))]
}

fn masked(h: [u64; 2], m: [u64; 2]) -> [u64; 2] {
    [h[0] & m[0], h[1] & m[1]]
}

/// `weight`: how many prefixes each kept prefix stands for (1 unless keys were sampled).
fn level_stats(
    partitions: &[PartitionRow],
    arenas: &KeyArenas,
    scale: &RowScale,
    level: usize,
    dropped: Option<&super::sampling::Dropped>,
) -> LevelStats {
    let groups = prefix_groups(partitions, arenas, scale, level);
    let mut best: Option<(f64, usize)> = None;
    for g in &groups {
        if best.is_none_or(|(b, _)| g.bytes > b) {
            best = Some((g.bytes, g.members.start));
        }
    }
    let special = groups.iter().filter(|g| always_kept(g.prefix)).count() as u64;
    let (distinct, range) = match dropped {
        None => (groups.len() as u64, None),
        Some(d) => {
            let e = super::sampling::prefixes_estimate(groups.len() as u64, special, level, d);
            (e.estimate, Some([e.low, e.high]))
        }
    };
    let (largest_prefix_bytes, largest_prefix) = match best {
        Some((b, i)) => {
            let key = arenas.get(partitions[i].key);
            (b, keys::key_json(&key[..prefix_len(key, level)], true))
        }
        None => (0.0, serde_json::Value::Null),
    };
    LevelStats {
        level,
        distinct_prefixes: distinct,
        distinct_prefixes_range: range,
        largest_prefix_bytes,
        largest_prefix,
    }
}

mod radix;
mod sort;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod sampling_tests;
