//! Mergeable accumulators filled in one pass over the records, for any number of candidates.
//!
//! Each worker owns an [`Accumulator`]; [`Accumulator::merge`] only adds counts, takes maxima and
//! keeps the earliest positions, so the merged result — and every report computed from it after
//! sorting — is identical whatever the thread count or block order.

pub mod arenas;
pub mod distinct;
pub mod hll;
pub mod key_stats;
pub mod keymap;
pub mod memory;
mod record;
pub mod sampling;
pub mod spread;
pub mod summary;

use std::collections::BTreeMap;

use hashbrown::HashMap;

use crate::ingest::lines::BlockLines;
use crate::ingest::Position;
use crate::keys::KeyError;
pub use keymap::KeyMap;

/// How many example positions of skipped records and key errors are kept.
pub const MAX_EXAMPLES: usize = 5;

/// An encoded logical partition key, stored inline when short (most keys are) so a hash-map
/// probe does not chase a pointer.
pub type Key = smallvec::SmallVec<[u8; 24]>;

/// Counts for one logical partition (sample values, before projection).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionCounts {
    /// Documents in the partition.
    pub documents: u64,
    /// Bytes of those documents minified (whitespace outside strings removed).
    pub minified_bytes: u64,
    /// Earliest time-field value (epoch seconds); `i64::MAX` when none was seen.
    pub first_ts: i64,
    /// Latest time-field value (epoch seconds); `i64::MIN` when none was seen.
    pub last_ts: i64,
}

/// A partition's sample counts as the summaries keep them: documents and minified bytes. (The
/// first and last times stay in the key map's records: [`summary::CandidateStats::time_range`].)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SampleCounts {
    /// Documents in the partition.
    pub documents: u64,
    /// Bytes of those documents minified (whitespace outside strings removed).
    pub minified_bytes: u64,
}

impl Default for PartitionCounts {
    fn default() -> Self {
        PartitionCounts {
            documents: 0,
            minified_bytes: 0,
            first_ts: i64::MAX,
            last_ts: i64::MIN,
        }
    }
}

impl PartitionCounts {
    /// Adds `documents` documents of `bytes` minified bytes first and last seen at `first` and
    /// `last` (`i64::MAX` / `i64::MIN` when unknown).
    #[inline]
    pub fn add(&mut self, documents: u64, bytes: u64, first: i64, last: i64) {
        self.documents += documents;
        self.minified_bytes += bytes;
        self.first_ts = self.first_ts.min(first);
        self.last_ts = self.last_ts.max(last);
    }

    /// Adds another partition's counts.
    pub fn merge(&mut self, o: &PartitionCounts) {
        self.add(o.documents, o.minified_bytes, o.first_ts, o.last_ts);
    }

    /// The time-field range seen in this partition, if any.
    pub fn time_range(&self) -> Option<(i64, i64)> {
        (self.first_ts <= self.last_ts).then_some((self.first_ts, self.last_ts))
    }
}

/// A bad record or bad key value, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RecordIssue {
    /// Where the problem is.
    pub position: Position,
    /// What is wrong.
    pub message: String,
}

/// Keeps the `MAX_EXAMPLES` earliest issues (order-independent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IssueLog {
    /// How many issues in total.
    pub count: u64,
    /// The earliest few, sorted by position.
    pub first: Vec<RecordIssue>,
}

impl IssueLog {
    /// Records one issue.
    pub fn add(&mut self, issue: RecordIssue) {
        self.count += 1;
        if self.first.len() < MAX_EXAMPLES || issue < *self.first.last().expect("non-empty") {
            let at = self.first.partition_point(|x| *x < issue);
            self.first.insert(at, issue);
            self.first.truncate(MAX_EXAMPLES);
        }
    }

    /// Adds another log.
    pub fn merge(&mut self, o: IssueLog) {
        let count = self.count + o.count;
        for i in o.first {
            self.add(i);
        }
        self.count = count;
    }
}

/// One candidate's partitions and key errors.
#[derive(Debug, Clone, Default)]
pub struct CandidateAcc {
    /// Logical partitions by encoded key.
    pub partitions: KeyMap,
    /// Documents whose key could not be computed, by reason.
    pub key_errors: BTreeMap<KeyError, IssueLog>,
    /// When the scan counts this candidate as if its keys never repeat, its documents
    /// ([`distinct`]); `partitions` then stays empty.
    pub distinct: Option<Box<distinct::DistinctAcc>>,
}

impl CandidateAcc {
    /// Adds one document to the partition `key`. (Raw bytes are only totalled per run: keeping
    /// them per partition would grow every hash-map entry past one cache line.)
    #[inline]
    pub fn add(&mut self, key: &[u8], minified_bytes: u64, ts: Option<i64>) {
        if let Some(d) = &mut self.distinct {
            return d.add(key, minified_bytes);
        }
        let (first, last) = ts.map_or((i64::MAX, i64::MIN), |t| (t, t));
        self.partitions.add(key, 1, minified_bytes, first, last);
    }

    /// [`CandidateAcc::add`] through the key map's per-part buffer (the scan's hot path; call
    /// [`Accumulator::flush_for_drain`] before draining, [`KeyMap::flush`] before reading).
    #[inline]
    pub fn add_buffered(&mut self, key: &[u8], minified_bytes: u64, ts: Option<i64>) {
        if let Some(d) = &mut self.distinct {
            return d.add(key, minified_bytes);
        }
        let (first, last) = ts.map_or((i64::MAX, i64::MIN), |t| (t, t));
        self.partitions
            .add_buffered(key, 1, minified_bytes, first, last);
    }

    /// Adds `documents` documents totalling `bytes` minified bytes to the partition `key`, with
    /// their earliest and latest time (epoch seconds), as aggregated outside pkadvisor (`analyze
    /// --key-stats`, docs/scale.md). The same as `documents` calls of [`CandidateAcc::add`]; keys
    /// seen twice add up.
    pub fn add_aggregate(
        &mut self,
        key: &[u8],
        documents: u64,
        bytes: u64,
        first: Option<i64>,
        last: Option<i64>,
    ) {
        self.partitions.add(
            key,
            documents,
            bytes,
            first.unwrap_or(i64::MAX),
            last.unwrap_or(i64::MIN),
        );
    }

    /// Counts this candidate without its keys from now on ([`distinct`]) if none of the keys
    /// counted so far (a worker's first documents) repeated, and says whether it does: their keys
    /// move from the key map to a [`distinct::DistinctAcc`] keeping the `keep` largest
    /// documents' keys. A key seen twice (or a map already sampling keys) keeps the key map.
    pub fn try_distinct(&mut self, keep: usize) -> bool {
        self.partitions.flush();
        if self.partitions.level() > 0 {
            return false;
        }
        let mut d = distinct::DistinctAcc::new(keep);
        for (k, p) in self.partitions.iter() {
            if p.documents != 1 {
                return false;
            }
            d.add(k, p.minified_bytes);
        }
        self.partitions = KeyMap::default();
        self.distinct = Some(Box::new(d));
        true
    }

    /// Adds another accumulator of the same candidate.
    pub fn merge(&mut self, o: CandidateAcc) {
        // A fresh map (a worker that counted this candidate without its keys) adds nothing,
        // and leaves this one untouched if it was.
        if !o.partitions.is_untouched() {
            self.partitions.merge(o.partitions);
        }
        match (&mut self.distinct, o.distinct) {
            (Some(a), Some(b)) => a.merge(*b),
            (a @ None, b) => *a = b,
            (Some(_), None) => {}
        }
        for (k, v) in o.key_errors {
            self.key_errors.entry(k).or_default().merge(v);
        }
    }
}

/// Everything one worker (or the whole run, after merging) has seen.
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    /// One entry per candidate, in the order given.
    pub candidates: Vec<CandidateAcc>,
    /// Records parsed successfully.
    pub records_analyzed: u64,
    /// Raw bytes of the analyzed records.
    pub raw_bytes: u64,
    /// Minified bytes of the analyzed records.
    pub minified_bytes: u64,
    /// The largest analyzed document: minified bytes and where it starts (earliest on ties).
    pub largest_document: Option<(u64, Position)>,
    /// The [`LARGEST_KEPT`] largest analyzed documents, largest first (earliest on ties): how
    /// many pass the item limit, whatever `--limit item_bytes` says.
    pub largest_documents: Vec<(u64, Position)>,
    /// Malformed records (skipped with `--skip-invalid`, otherwise the first one is fatal).
    pub invalid_records: IssueLog,
    /// Time-field values seen: (min, max, documents without a usable value).
    pub time_span: Option<(i64, i64)>,
    /// Documents whose time field was missing or unparseable (when a time field is tracked).
    pub time_missing: u64,
    /// Write counts per (time bucket start, candidate, encoded key), when time hot spots are tracked.
    pub time_buckets: HashMap<(i64, u32, Key), u64>,
    /// Lines counted in blocks read with provisional line numbers: the positions above are
    /// numbered from them after the scan ([`Accumulator::number_lines`]).
    pub block_lines: BlockLines,
}

/// How many of the largest documents the scan keeps (enough to count the items over the
/// limit in any sample worth analyzing, and to say "at least" past it).
pub const LARGEST_KEPT: usize = 16;

/// Inserts `d` into `list` (largest first, earliest position on ties), keeping at most
/// [`LARGEST_KEPT`].
fn keep_largest(list: &mut Vec<(u64, Position)>, d: (u64, Position)) {
    let at = list.partition_point(|x| x.0 > d.0 || (x.0 == d.0 && x.1 < d.1));
    if at < LARGEST_KEPT {
        list.insert(at, d);
        list.truncate(LARGEST_KEPT);
    }
}

impl Accumulator {
    /// An empty accumulator for `n` candidates.
    pub fn new(n: usize) -> Accumulator {
        Accumulator {
            candidates: (0..n).map(|_| CandidateAcc::default()).collect(),
            ..Default::default()
        }
    }

    /// Notes an analyzed document's size.
    #[inline]
    pub fn add_document(&mut self, raw_bytes: u64, minified_bytes: u64, pos: Position) {
        self.records_analyzed += 1;
        self.raw_bytes += raw_bytes;
        self.minified_bytes += minified_bytes;
        let bigger = match self.largest_document {
            None => true,
            Some((b, p)) => minified_bytes > b || (minified_bytes == b && pos < p),
        };
        if bigger {
            self.largest_document = Some((minified_bytes, pos));
        }
        let full = self.largest_documents.len() >= LARGEST_KEPT;
        if !full
            || self
                .largest_documents
                .last()
                .is_some_and(|l| minified_bytes > l.0)
        {
            keep_largest(&mut self.largest_documents, (minified_bytes, pos));
        }
    }

    /// Counts every document buffered by [`CandidateAcc::add_buffered`], leaving the records
    /// of keys that seldom repeat for the drain ([`KeyMap::flush_for_drain`]).
    pub fn flush_for_drain(&mut self) {
        for c in self.candidates.iter_mut() {
            c.partitions.flush_for_drain();
        }
    }

    /// Adds another worker's accumulator.
    pub fn merge(mut self, mut o: Accumulator) -> Accumulator {
        if self.candidates.is_empty() {
            o.block_lines.merge(self.block_lines);
            return o;
        }
        self.block_lines.merge(std::mem::take(&mut o.block_lines));
        if o.candidates.is_empty() {
            return self;
        }
        {
            // Candidates merge independently: in parallel (rayon's pool of the caller).
            use rayon::prelude::*;
            self.candidates
                .par_iter_mut()
                .zip(o.candidates.into_par_iter())
                .for_each(|(a, b)| a.merge(b));
        }
        self.records_analyzed += o.records_analyzed;
        self.raw_bytes += o.raw_bytes;
        self.minified_bytes += o.minified_bytes;
        for d in o.largest_documents {
            keep_largest(&mut self.largest_documents, d);
        }
        if let Some((b, p)) = o.largest_document {
            self.largest_document = match self.largest_document {
                Some((a, q)) if a > b || (a == b && q < p) => Some((a, q)),
                _ => Some((b, p)),
            };
        }
        self.invalid_records.merge(o.invalid_records);
        self.time_span = match (self.time_span, o.time_span) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (x, None) => x,
            (None, y) => y,
        };
        self.time_missing += o.time_missing;
        for (k, v) in o.time_buckets {
            *self.time_buckets.entry(k).or_default() += v;
        }
        self
    }

    /// Gives every position kept during the scan its real line, from the lines the workers
    /// counted ([`crate::ingest::lines`]; a no-op when every block's lines were counted as read).
    pub fn number_lines(&mut self) {
        let lines = std::mem::take(&mut self.block_lines);
        if lines == BlockLines::default() {
            return;
        }
        let table = lines.table();
        let number_log = |log: &mut IssueLog| {
            for i in &mut log.first {
                i.position = table.number(i.position);
            }
        };
        if let Some((_, p)) = &mut self.largest_document {
            *p = table.number(*p);
        }
        for (_, p) in &mut self.largest_documents {
            *p = table.number(*p);
        }
        number_log(&mut self.invalid_records);
        for c in &mut self.candidates {
            c.key_errors.values_mut().for_each(&number_log);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u64) -> Position {
        Position {
            file: 0,
            line,
            column: 1,
        }
    }

    #[test]
    fn issue_log_keeps_earliest_whatever_the_order() {
        let mut a = IssueLog::default();
        let mut b = IssueLog::default();
        for l in [50, 3, 9, 70, 1, 8] {
            a.add(RecordIssue {
                position: pos(l),
                message: "x".into(),
            });
        }
        for l in [2, 60, 4] {
            b.add(RecordIssue {
                position: pos(l),
                message: "x".into(),
            });
        }
        let mut ab = a.clone();
        ab.merge(b.clone());
        let mut ba = b;
        ba.merge(a);
        assert_eq!(ab, ba);
        assert_eq!(ab.count, 9);
        let lines: Vec<u64> = ab.first.iter().map(|i| i.position.line).collect();
        assert_eq!(lines, vec![1, 2, 3, 4, 8]);
    }

    #[test]
    fn merge_adds_partitions() {
        let mut a = CandidateAcc::default();
        a.add(b"k1", 8, Some(5));
        a.add(b"k2", 1, None);
        let mut b = CandidateAcc::default();
        b.add(b"k1", 5, Some(2));
        a.merge(b);
        let k1 = a.partitions.get(b"k1").unwrap();
        assert_eq!((k1.documents, k1.minified_bytes), (2, 13));
        assert_eq!(k1.time_range(), Some((2, 5)));
        assert_eq!(a.partitions.get(b"k2").unwrap().time_range(), None);
        assert_eq!(a.partitions.len(), 2);
    }

    #[test]
    fn add_aggregate_equals_repeated_add() {
        let mut one = CandidateAcc::default();
        for (b, t) in [(10, 7), (20, 3), (5, 9)] {
            one.add(b"k", b, Some(t));
        }
        let mut agg = CandidateAcc::default();
        agg.add_aggregate(b"k", 2, 30, Some(3), Some(7));
        agg.add_aggregate(b"k", 1, 5, Some(9), Some(9));
        assert_eq!(one.partitions.get(b"k"), agg.partitions.get(b"k"));
        let p = agg.partitions.get(b"k").unwrap();
        assert_eq!(
            (p.documents, p.minified_bytes, p.time_range()),
            (3, 35, Some((3, 9)))
        );
    }
}
