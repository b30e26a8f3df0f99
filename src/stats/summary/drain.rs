//! From a key map to rows: [`drain`] makes one row per key (per record, for a loose part) and
//! learns on the way what the key bytes tell (Undefined and Null documents, the largest key,
//! the keys by document count, the sort's first digit); the rows of a key the drain left
//! several of are sorted and combined into one.

use super::radix::FirstDigit;
use super::{sort, PartitionRow};
use crate::keys;
use crate::stats::keymap::{KeyArenas, KeyMap, KeyRef};
use crate::stats::sampling::always_kept;
use crate::stats::SampleCounts;

/// Sorts the rows by key ([`sort`]: by 16-byte windows, in parallel); returns the runs of rows
/// holding equal keys ([`sort::sort_by_key`]).
pub(super) fn sort_by_key(
    partitions: &mut [PartitionRow],
    arenas: &KeyArenas,
    first: Option<FirstDigit>,
) -> Vec<usize> {
    // Keys are distinct (or, before `combine_repeats`, equal keys' rows are combined whatever
    // their order), so the unstable sort has one result.
    let runs = sort::sort_by_key(partitions, arenas, first);
    crate::timing::mark("summary: sorted");
    runs
}

/// Combines the rows of a key into one (rows sorted by key; a loose drain leaves a key one
/// row per record, [`KeyMap::drain`]): `runs` are the sort's runs of rows of equal keys, as
/// (first, past the last) pairs in row order. Counts added, times merged into the first row's
/// record, and the drain's tallies told that rows of `a` and `b` documents were one key of
/// `a + b`. Only the repeated keys are read.
fn combine_repeats(
    rows: &mut Vec<PartitionRow>,
    runs: &[usize],
    arenas: &mut KeyArenas,
    seen: &mut DrainAcc,
) {
    let mut w = 0;
    let mut r = 0;
    let mut next = runs.chunks_exact(2).peekable();
    while r < rows.len() {
        let mut into = rows[r];
        let end = match next.peek() {
            Some(run) if run[0] == r => {
                let end = run[1];
                next.next();
                let mut sum = into.sample(arenas);
                for row in rows[r + 1..end].iter().copied() {
                    let c = row.sample(arenas);
                    seen.combine(arenas.get(row.key), sum.documents, c.documents);
                    sum.documents += c.documents;
                    sum.minified_bytes += c.minified_bytes;
                    arenas.merge_times(into.key, row.key);
                }
                into = PartitionRow::stored(into.key, sum, arenas);
                end
            }
            _ => r + 1,
        };
        rows[w] = into;
        w += 1;
        r = end;
    }
    debug_assert!(next.next().is_none(), "every run inside the rows");
    rows.truncate(w);
    crate::timing::mark("summary: repeats combined");
}

/// Document counts below this are tallied in an array ([`DrainAcc::keys_by_count`]).
const SMALL_COUNTS: usize = 1024;

/// What the drain learns from the key bytes and counts.
pub(super) struct DrainAcc {
    /// The sampling level (0: every key kept).
    pub(super) level: u32,
    pub(super) undefined_documents: u64,
    pub(super) null_documents: u64,
    pub(super) defined_keys: u64,
    /// The largest key value and, among equals, the first key in key order (with its
    /// [`head`](super::arenas::head), which settles most comparisons without a `memcmp`).
    pub(super) max_key: Option<(u64, [u64; 2], Vec<u8>)>,
    /// Keys by document count, each weighted by the keys it stands for ([`Drained::weighted_counts`]):
    /// counts below [`SMALL_COUNTS`] by index, larger ones in `large_counts`.
    pub(super) keys_by_count: Vec<u64>,
    pub(super) large_counts: hashbrown::HashMap<u64, u64>,
    /// The rows' first digit for their sort, counted as they are written.
    pub(super) first: Option<FirstDigit>,
    /// The counts of the wide rows ([`PartitionRow::new`]), for the arenas.
    pub(super) wide: Vec<(KeyRef, SampleCounts)>,
    /// The rows whose key the drain's check held for ([`drain_checking`]; a key a loose part
    /// left several rows is counted once a row); `None` without a check.
    pub(super) flagged: Option<u64>,
}

impl DrainAcc {
    pub(super) fn new(level: u32, first: Option<FirstDigit>, checked: bool) -> DrainAcc {
        DrainAcc {
            flagged: checked.then_some(0),
            first,
            level,
            undefined_documents: 0,
            null_documents: 0,
            defined_keys: 0,
            max_key: None,
            keys_by_count: vec![0; SMALL_COUNTS],
            large_counts: hashbrown::HashMap::new(),
            wide: Vec::new(),
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
        self.wide.extend(o.wide);
        self.flagged = match (self.flagged, o.flagged) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
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

/// A key map turned into rows (sample counts only, not yet projected), with what the key bytes
/// told on the way: enough to build the projection ([`Drained::weighted_counts`]) before the
/// statistics that need it.
pub struct Drained {
    pub(super) partitions: Vec<PartitionRow>,
    pub(super) arenas: KeyArenas,
    pub(super) level: u32,
    pub(super) dropped: crate::stats::sampling::Dropped,
    pub(super) seen: DrainAcc,
    /// The rows are already sorted by key.
    pub(super) sorted: bool,
}

impl Drained {
    /// The rows sorted by key ([`sort_by_key`]), if the drain left them unsorted.
    pub(super) fn sorted(mut self) -> Drained {
        if !self.sorted {
            sort_by_key(&mut self.partitions, &self.arenas, self.seen.first.take());
            self.sorted = true;
        }
        self
    }
}

/// Drains a key map into rows on the caller's rayon pool, reading each key's bytes once as
/// its row is built, in storage order (later passes in key order would read them at random).
/// Where the drain left a key several rows (its loose parts, [`KeyMap::drain`]), the rows are
/// sorted here and each key's rows combined into one, its tallies corrected: everything after
/// sees one row per key.
pub fn drain(map: KeyMap) -> Drained {
    drain_checking(map, None)
}

/// A test of a key's bytes, applied to every key as the drain reads it.
pub type KeyCheck<'a> = &'a (dyn Fn(&[u8]) -> bool + Sync);

/// [`drain`], counting the rows whose key `check` holds for ([`Drained::flagged`]): a test
/// of every key, made where the drain reads the keys in storage order anyway, rather than in
/// a pass of its own over the sorted rows, which reads them at random (the separator check of
/// 2 M synthetic keys: 0.03 s of wall time, `advise::separator`).
pub fn drain_checking(mut map: KeyMap, check: Option<KeyCheck<'_>>) -> Drained {
    let (level, dropped) = map.take_sampling();
    // The sort's first digit is counted as the rows are written, at a digit guessed from the
    // first keys of each part.
    let first = FirstDigit::guess(map.head_sample(32).into_iter());
    let (mut partitions, mut arenas, mut seen, repeats) = map.drain_with(
        || DrainAcc::new(level, first.clone(), check.is_some()),
        |seen, key, bytes, c| {
            seen.add(bytes, key, c.documents);
            if let (Some(n), Some(check)) = (seen.flagged.as_mut(), check) {
                *n += u64::from(check(bytes));
            }
            let c = SampleCounts {
                documents: c.documents,
                minified_bytes: c.minified_bytes,
            };
            let (row, wide) = PartitionRow::new(key, c);
            if wide {
                seen.wide.push((key, c));
            }
            row
        },
        DrainAcc::merge,
    );
    for (key, c) in std::mem::take(&mut seen.wide) {
        arenas.set_wide_counts(key, c);
    }
    crate::timing::mark("summary: rows");
    if repeats {
        let runs = sort_by_key(&mut partitions, &arenas, seen.first.take());
        if !runs.is_empty() {
            combine_repeats(&mut partitions, &runs, &mut arenas, &mut seen);
        }
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

    /// The rows whose key the check of [`drain_checking`] held for (`None` without one).
    pub fn flagged(&self) -> Option<u64> {
        self.seen.flagged
    }

    /// No key has an Undefined or Null component.
    pub fn all_defined(&self) -> bool {
        self.seen.undefined_documents == 0 && self.seen.null_documents == 0
    }
}
