//! The per-candidate map from encoded key to [`PartitionCounts`], built for millions of keys.
//!
//! - **Radix partitioned.** A key's 64-bit hash (computed once) picks one of [`PARTS`] parts by
//!   bits 32..38; each part is its own hash table. Growing rehashes one small part at a time, and
//!   two maps merge part by part, in parallel, each part staying in cache. The last merge of
//!   two exact maps is deferred to the drain ([`KeyMap::merge`]): the second map's keys are
//!   looked up in the first's parts there, with no insert and no copy of a record.
//! - **One record per key, in an arena per part, in insertion order.** A record is the key's
//!   counts, its length and its bytes (a 12-byte header + the key: 4-byte counts, until a
//!   sum of the part passes `u32::MAX` and the part is rewritten with 8-byte ones, a 20-byte
//!   header; 16 bytes more once the part has seen a time field's value, which adds the first
//!   and last time: `Layout`); a part's hash table holds 8-byte
//!   slots (32 bits of the key's hash and the record's offset), so a part's table of ~100,000
//!   keys fits in the L2 cache and growing it moves 8 bytes per key. A new key is one append; a
//!   probe compares the 32 stored hash bits first, then reads one record, whose counts sit
//!   beside the key bytes it compares (one cache miss per document, not one for the counts and
//!   one for the key); merging and draining read the arena front to back.
//! - **Buffered by part in the scan.** [`KeyMap::add_buffered`] appends a document's key to its
//!   part's short buffer; a full buffer is folded into that part's table at once, so the table
//!   probes of a flush hit one part (1/64 of the keys, in cache) instead of the whole map (as
//!   DuckDB's radix-partitioned aggregation does). [`KeyMap::flush`] folds the rest; every reading
//!   method expects a flushed map.
//! - **Appended, not probed, while keys are new.** A part past `LOG_FROM` (256) keys whose last
//!   256 documents (a full buffer, or counted directly while its table is small) held nearly
//!   all new keys (`/id`, a user id) stops probing: each document is appended
//!   as a record of its own, and the records are indexed later in one pass over the part, its
//!   table reserved for them and in cache (`Part::consolidate`: at the worker's end, when they
//!   reach the part's key count, before any read). Repeats found there are folded into the
//!   key's record; a pass of mostly repeats switches the part back to probing.
//! - **Never indexed while keys seldom repeat.** A logging part keeps a sample of its records'
//!   hashes (one in 1,024, by hash, so a key's records all or none). While fewer than one in
//!   sixteen repeats another, the records are not indexed at all: the drain makes a row of each
//!   (a loose part, [`KeyMap::drain`]) and the summaries' sort combines a key's rows.
//!
//! Iteration order depends on the hash and on the order of inserts; everything a report shows is
//! computed after sorting by key ([`crate::stats::summary`]), so it does not.

use hashbrown::HashTable;

use crate::keys::same_bytes;

pub use super::arenas::{head, head_number, KeyArenas, KeyRef};
pub use super::record::{key_hash, PARTS};
use super::record::{COUNTS, NARROW_COUNTS, TIMES};
use super::sampling::{always_kept, kept, Dropped, COST_PER_KEY, MAX_LEVEL};
use super::PartitionCounts;

const PART_SHIFT: u32 = 32;

/// How a part lays out its records: each record is its counts (4-byte words while every count
/// of the part fits, 8-byte words once one does not), its first and last time if the part is
/// timed, its key's length (4 bytes), then the key bytes. Whatever the width, the times and the
/// length sit just before the key, where [`KeyArenas`] reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    timed: bool,
    wide: bool,
}

impl Layout {
    /// The bytes before a record's key.
    #[inline]
    const fn header(self) -> usize {
        self.counts() + if self.timed { TIMES } else { 0 } + 4
    }

    /// The bytes of a record's counts.
    #[inline]
    const fn counts(self) -> usize {
        if self.wide {
            COUNTS
        } else {
            NARROW_COUNTS
        }
    }

    /// Whether counts `documents` and `bytes` fit a record of this layout.
    #[inline]
    fn fits(self, documents: u64, bytes: u64) -> bool {
        self.wide || (documents <= u64::from(u32::MAX) && bytes <= u64::from(u32::MAX))
    }
}

/// A table slot: the low 32 bits of the key's hash and the offset of the key's record.
#[derive(Debug, Clone, Copy)]
struct Slot {
    h: u32,
    at: u32,
}

#[inline]
fn word(a: &[u8], i: usize) -> u64 {
    u64::from_ne_bytes(a[i..i + 8].try_into().expect("8 bytes"))
}

#[inline]
fn set_word(a: &mut [u8], i: usize, v: u64) {
    a[i..i + 8].copy_from_slice(&v.to_ne_bytes());
}

#[inline]
fn half_word(a: &[u8], i: usize) -> u64 {
    u64::from(u32::from_ne_bytes(a[i..i + 4].try_into().expect("4 bytes")))
}

/// The key bytes of the record at `at`, and where they start.
#[inline]
fn record_key(arena: &[u8], at: usize, layout: Layout) -> (&[u8], usize) {
    let from = at + layout.header();
    let len = u32::from_ne_bytes(arena[from - 4..from].try_into().expect("4 bytes"));
    (&arena[from..from + len as usize], from)
}

/// The counts of the record at `at`.
#[inline]
fn record_counts(arena: &[u8], at: usize, layout: Layout) -> PartitionCounts {
    let (documents, minified_bytes) = if layout.wide {
        (word(arena, at), word(arena, at + 8))
    } else {
        (half_word(arena, at), half_word(arena, at + 4))
    };
    let mut c = PartitionCounts {
        documents,
        minified_bytes,
        ..PartitionCounts::default()
    };
    if layout.timed {
        let t = at + layout.counts();
        c.first_ts = word(arena, t) as i64;
        c.last_ts = word(arena, t + 8) as i64;
    }
    c
}

/// Adds counts to those of the record at `at` ([`PartitionCounts::merge`]; the times only in a
/// timed part). `false`, and the record left as it was, when the sums do not fit the layout's
/// counts (the part must turn wide first, `Part::make_wide`).
#[inline]
#[must_use]
fn record_add(arena: &mut [u8], at: usize, layout: Layout, c: &PartitionCounts) -> bool {
    let r = &mut arena[at..at + layout.header() - 4];
    if layout.wide {
        set_word(r, 0, word(r, 0) + c.documents);
        set_word(r, 8, word(r, 8) + c.minified_bytes);
    } else {
        let (d, b) = (
            half_word(r, 0) + c.documents,
            half_word(r, 4) + c.minified_bytes,
        );
        if !layout.fits(d, b) {
            return false;
        }
        r[..4].copy_from_slice(&(d as u32).to_ne_bytes());
        r[4..8].copy_from_slice(&(b as u32).to_ne_bytes());
    }
    if layout.timed {
        let t = layout.counts();
        set_word(r, t, (word(r, t) as i64).min(c.first_ts) as u64);
        set_word(r, t + 8, (word(r, t + 8) as i64).max(c.last_ts) as u64);
    }
    true
}

/// Appends a record holding `c` (its times only if timed; its counts must fit the layout,
/// [`Layout::fits`]) and `key`, and returns its offset as a table slot stores it.
#[inline]
fn append_record(arena: &mut Vec<u8>, layout: Layout, c: &PartitionCounts, key: &[u8]) -> u32 {
    debug_assert!(layout.fits(c.documents, c.minified_bytes));
    let at = arena.len();
    let at32 = u32::try_from(at + layout.header() + key.len())
        .map(|_| at as u32)
        .expect(
            "one radix part of a key map passed 4 GiB of key bytes (keep --memory-limit below the machine's memory)",
        );
    if layout.wide {
        arena.extend_from_slice(&c.documents.to_ne_bytes());
        arena.extend_from_slice(&c.minified_bytes.to_ne_bytes());
    } else {
        arena.extend_from_slice(&(c.documents as u32).to_ne_bytes());
        arena.extend_from_slice(&(c.minified_bytes as u32).to_ne_bytes());
    }
    if layout.timed {
        arena.extend_from_slice(&c.first_ts.to_ne_bytes());
        arena.extend_from_slice(&c.last_ts.to_ne_bytes());
    }
    arena.extend_from_slice(&(key.len() as u32).to_ne_bytes());
    arena.extend_from_slice(key);
    at32
}

/// The records of an arena, front to back: (offset, key bytes, counts).
fn records(
    arena: &[u8],
    layout: Layout,
) -> impl Iterator<Item = (usize, &[u8], PartitionCounts)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= arena.len() {
            return None;
        }
        let (key, from) = record_key(arena, at, layout);
        let r = (at, key, record_counts(arena, at, layout));
        at = from + key.len();
        Some(r)
    })
}

/// Whether counts carry a time (the times of "no time seen" are the identities of min and max).
#[inline]
fn has_time(first: i64, last: i64) -> bool {
    first != i64::MAX || last != i64::MIN
}

/// The hash a hashbrown table of 32-bit slots is given: the 32 stored bits twice, so that
/// hashbrown's bucket index (low bits) and control byte (top 7 bits) are both taken from them.
/// The key maps' slots store a key hash's low 32 bits (bits 32..38, which pick the part, are the
/// same for every key of a part); the field profile's value tables do the same
/// (`profile::acc::values`).
#[inline]
pub(crate) fn table_hash(h: u32) -> u64 {
    (u64::from(h) << 32) | u64::from(h)
}

mod part;
use part::{Part, BUFFER_FROM};
#[cfg(test)]
use part::{LOG_FROM, LOG_MIN, PENDING};

/// Counts of `documents` documents of `bytes` minified bytes, first and last seen at `first`
/// and `last`.
#[inline]
fn counts(documents: u64, bytes: u64, first: i64, last: i64) -> PartitionCounts {
    PartitionCounts {
        documents,
        minified_bytes: bytes,
        first_ts: first,
        last_ts: last,
    }
}

#[inline]
pub(super) fn part_of(hash: u64) -> usize {
    (hash >> PART_SHIFT) as usize & (PARTS - 1)
}

/// The hash a key is sampled by: its first component's (so a hierarchical key's prefix is kept
/// or dropped whole), which for a one-component key is the key's own hash.
#[inline]
fn sample_hash(key: &[u8], hash: u64) -> u64 {
    let plen = crate::keys::prefix_len(key, 1);
    if plen == key.len() {
        hash
    } else {
        key_hash(&key[..plen])
    }
}

/// Distinct encoded keys with their counts; above a memory budget, a hash-chosen share of them
/// ([`crate::stats::sampling`]).
#[derive(Debug, Clone)]
pub struct KeyMap {
    parts: Vec<Part>,
    /// Sampling level: 1 key in 2^level is kept (0 = every key, exact).
    level: u32,
    dropped: Dropped,
    /// A map merged in ([`KeyMap::merge`]) but kept beside this one: its keys are combined with
    /// these when the map is drained, which costs a table probe per key and no insert, no copy
    /// of a record and no growth of an arena. The last merge of a scan (two workers' maps)
    /// stays here. Every reading method combines the two; documents added later go to this
    /// map (a key in both is combined like any other); a new sampling level or another merge
    /// folds it in first.
    deferred: Option<Box<KeyMap>>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            parts: vec![Part::default(); PARTS],
            level: 0,
            dropped: Dropped::default(),
            deferred: None,
        }
    }
}

impl KeyMap {
    /// Adds `documents` documents of `bytes` minified bytes, first and last seen at `first` and
    /// `last` (`i64::MAX` / `i64::MIN` when unknown), to `key`; to the dropped keys' totals if
    /// the sampling level drops it.
    #[inline]
    pub fn add(&mut self, key: &[u8], documents: u64, bytes: u64, first: i64, last: i64) {
        let h = key_hash(key);
        if !self.drops(key, h, documents, bytes) {
            self.parts[part_of(h)].add(h, key, &counts(documents, bytes, first, last));
        }
    }

    /// Whether the sampling level drops `key` (hash `h`); if so its documents go to the dropped
    /// keys' totals.
    #[inline]
    fn drops(&mut self, key: &[u8], h: u64, documents: u64, bytes: u64) -> bool {
        if self.level == 0 || always_kept(key) || kept(sample_hash(key, h), self.level) {
            return false;
        }
        self.dropped.add(h, key, documents, bytes);
        true
    }

    /// [`KeyMap::add`], buffered in the key's part until the part's buffer is full or
    /// [`KeyMap::flush`] is called; the scan's hot path.
    #[inline]
    pub fn add_buffered(&mut self, key: &[u8], documents: u64, bytes: u64, first: i64, last: i64) {
        let h = key_hash(key);
        if self.drops(key, h, documents, bytes) {
            return;
        }
        let part = &mut self.parts[part_of(h)];
        let c = counts(documents, bytes, first, last);
        if part.logging {
            part.log(h, key, &c);
        } else if part.table.len() < BUFFER_FROM {
            part.add_direct(h, key, &c);
        } else {
            part.push(h, key, &c);
        }
    }

    /// Counts the documents in the parts' short buffers ([`KeyMap::add_buffered`]), leaving
    /// the appended records of logging parts (`Part::log`) for a later [`KeyMap::flush`]:
    /// cheap enough for every memory check of a scan ([`KeyMap::settle`]).
    fn flush_buffers(&mut self) {
        for p in self.parts.iter_mut() {
            p.flush_pending();
        }
    }

    /// Counts the buffered documents and indexes the appended records of the logging parts
    /// whose sample shows repeated keys; those of parts whose keys seldom repeat are left for
    /// the drain, which takes them as rows as they are ([`KeyMap::drain`]). What a scan's
    /// worker does at its end, beside the other workers. (Reading methods other than the
    /// drain still expect [`KeyMap::flush`].)
    pub fn flush_for_drain(&mut self) {
        for p in self.parts.iter_mut() {
            p.flush_pending();
            if !(p.logging && part::few_repeats(p, None)) {
                p.consolidate();
            }
        }
    }

    /// Counts every buffered document ([`KeyMap::add_buffered`]); every reading method expects
    /// this done.
    pub fn flush(&mut self) {
        for p in self.parts.iter_mut() {
            p.flush();
        }
        if let Some(o) = self.deferred.as_mut() {
            o.flush();
        }
    }

    /// No document waits in a buffer.
    fn flushed(&self) -> bool {
        self.parts
            .iter()
            .all(|p| p.buffered() == 0 && p.unindexed == 0)
            && self.deferred.as_ref().is_none_or(|o| o.flushed())
    }

    /// Folds a deferred map in with a real merge ([`KeyMap::merge_now`]).
    #[cold]
    fn fold_deferred(&mut self) {
        if let Some(o) = self.deferred.take() {
            self.merge_now(*o);
        }
    }

    /// The deferred map's keys that this map does not hold, with their counts.
    fn deferred_new(&self) -> impl Iterator<Item = (&[u8], PartitionCounts)> + '_ {
        self.deferred
            .iter()
            .flat_map(|o| o.own_records())
            .filter(|(k, _)| self.own_get(k).is_none())
    }

    /// This map's own records (not the deferred map's).
    fn own_records(&self) -> impl Iterator<Item = (&[u8], PartitionCounts)> + '_ {
        self.parts
            .iter()
            .flat_map(|p| records(&p.arena, p.layout()).map(|(_, k, c)| (k, c)))
    }

    /// The kept keys' cost in this map alone; an unindexed record ([`Part::log`]) costs as a
    /// key of its own (an upper bound, exact once flushed).
    fn own_cost(&self) -> u64 {
        self.parts
            .iter()
            .map(|p| (p.keys + p.unindexed) as u64 * COST_PER_KEY + p.key_bytes() as u64)
            .sum()
    }

    /// The sampling level (0: every key kept, exact).
    pub fn level(&self) -> u32 {
        self.level
    }

    /// What the dropped keys held.
    pub fn dropped(&self) -> &Dropped {
        &self.dropped
    }

    /// Takes the sampling state (level, dropped keys) out, before [`KeyMap::drain`].
    pub fn take_sampling(&mut self) -> (u32, Dropped) {
        (self.level, std::mem::take(&mut self.dropped))
    }

    /// The memory the kept keys are charged: [`COST_PER_KEY`] each plus their bytes. A function
    /// of the set of kept keys only (not of capacities or insertion order).
    pub fn cost(&self) -> u64 {
        debug_assert!(self.flushed(), "flush before reading a key map");
        self.own_cost()
            + self
                .deferred_new()
                .map(|(k, _)| COST_PER_KEY + k.len() as u64)
                .sum::<u64>()
    }

    /// Raises the sampling level to `level` (no-op if already there), dropping the keys it no
    /// longer keeps.
    pub fn raise_to(&mut self, level: u32) {
        if level <= self.level {
            return;
        }
        self.fold_deferred();
        self.level = level;
        for p in self.parts.iter_mut() {
            p.retain(level, &mut self.dropped);
        }
    }

    /// Raises the sampling level until the kept keys' [`KeyMap::cost`] is within `budget`.
    /// Returns whether the level changed.
    pub fn settle(&mut self, budget: u64) -> bool {
        // The union costs at most the sum, and unindexed records at most as much as keys of
        // their own: within the budget, nothing would be dropped.
        if !self.may_exceed(budget) {
            return false;
        }
        self.flush();
        self.fold_deferred();
        let before = self.level;
        while self.cost() > budget && self.level < MAX_LEVEL {
            self.raise_to(self.level + 1);
        }
        self.level != before
    }

    /// Hands this map's keys to `shared`, a map the workers of one scan share under
    /// `--memory-limit`, and settles `shared` to `budget` ([`KeyMap::settle`]); this map is
    /// left empty at the shared map's level. The level is thus decided on keys gathered from
    /// every worker against one budget, not per worker: the same for any thread count
    /// ([`crate::stats::sampling`]). Sequential (no rayon job: the caller holds a lock that
    /// another job of the pool could be waiting for).
    pub fn hand_over(&mut self, shared: &mut KeyMap, budget: u64) {
        let mut mine = std::mem::take(self);
        mine.flush();
        shared.flush();
        debug_assert!(mine.deferred.is_none() && shared.deferred.is_none());
        let level = shared.level.max(mine.level);
        shared.raise_to(level);
        mine.raise_to(level);
        shared.dropped.merge(std::mem::take(&mut mine.dropped));
        for (a, b) in shared.parts.iter_mut().zip(mine.parts) {
            a.merge(b);
        }
        shared.settle(budget);
        self.level = shared.level;
    }

    /// No key, document or sampling level was ever added (a fresh map).
    pub fn is_untouched(&self) -> bool {
        self.level == 0
            && self.dropped.documents == 0
            && self.deferred.is_none()
            && self
                .parts
                .iter()
                .all(|p| p.keys == 0 && p.unindexed == 0 && p.buffered() == 0)
    }

    /// Whether the kept keys may cost more than `budget` (the bound [`KeyMap::settle`] checks
    /// first: cheap, no table built).
    pub fn may_exceed(&mut self, budget: u64) -> bool {
        let buffered: u64 = (self.parts.iter())
            .map(|p| p.buffered_cost_bound(COST_PER_KEY))
            .sum();
        if self.counted_cost_bound() + buffered <= budget {
            // Within the budget even were every buffered document a new key: the buffers
            // are left to fill (a flush after every block counted them a few at a time).
            return false;
        }
        self.flush_buffers();
        self.counted_cost_bound() > budget
    }

    /// The cost of the counted keys, this map's and a deferred map's (an upper bound: a key in
    /// both, or in several unindexed records, is charged each time).
    fn counted_cost_bound(&self) -> u64 {
        self.own_cost() + self.deferred.as_ref().map_or(0, |o| o.own_cost())
    }

    /// Raises this map to `level` when it is below (a level another map of the same scan
    /// reached: [`KeyMap::hand_over`]), counting its buffered documents first.
    pub fn follow(&mut self, level: u32) {
        if level > self.level {
            self.flush();
            self.raise_to(level);
        }
    }

    /// The counts of `key`, if present.
    pub fn get(&self, key: &[u8]) -> Option<PartitionCounts> {
        debug_assert!(self.flushed(), "flush before reading a key map");
        let other = self.deferred.as_ref().and_then(|o| o.own_get(key));
        match (self.own_get(key), other) {
            (Some(mut a), Some(b)) => {
                a.merge(&b);
                Some(a)
            }
            (a, b) => a.or(b),
        }
    }

    /// The counts of `key` in this map alone.
    fn own_get(&self, key: &[u8]) -> Option<PartitionCounts> {
        let h = key_hash(key);
        let p = &self.parts[part_of(h)];
        p.find(h as u32, key)
            .map(|at| record_counts(&p.arena, at, p.layout()))
    }

    /// Distinct keys.
    pub fn len(&self) -> usize {
        debug_assert!(self.flushed(), "flush before reading a key map");
        self.parts.iter().map(|p| p.keys).sum::<usize>() + self.deferred_new().count()
    }

    /// No key at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held (tables at their capacity, arenas at theirs).
    pub fn memory_bytes(&self) -> usize {
        self.parts.iter().map(Part::bytes).sum::<usize>()
            + self.deferred.as_ref().map_or(0, |o| o.memory_bytes())
    }

    /// Every key and its counts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], PartitionCounts)> + '_ {
        debug_assert!(self.flushed(), "flush before reading a key map");
        let combined = self.own_records().map(|(k, mut c)| {
            if let Some(o) = self.deferred.as_ref().and_then(|o| o.own_get(k)) {
                c.merge(&o);
            }
            (k, c)
        });
        combined.chain(self.deferred_new())
    }

    /// Adds another map. Two exact maps whose parts agree on carrying times are kept side by
    /// side and combined when drained ([`KeyMap::drain`]); otherwise the other map's keys are
    /// inserted part by part, in parallel.
    pub fn merge(&mut self, mut o: KeyMap) {
        self.fold_deferred();
        o.fold_deferred();
        let same_layout = self
            .parts
            .iter()
            .zip(&o.parts)
            .all(|(a, b)| a.timed == b.timed);
        if self.level == 0 && o.level == 0 && same_layout {
            self.dropped.merge(std::mem::take(&mut o.dropped));
            self.deferred = Some(Box::new(o));
        } else {
            self.merge_now(o);
        }
    }

    /// Adds another map: part by part, in parallel on the caller's rayon pool. Both are first
    /// brought to the higher sampling level, so kept keys stay exact.
    fn merge_now(&mut self, mut o: KeyMap) {
        use rayon::prelude::*;
        let level = self.level.max(o.level);
        self.raise_to(level);
        o.raise_to(level);
        self.dropped.merge(std::mem::take(&mut o.dropped));
        self.parts
            .par_iter_mut()
            .zip(o.parts.into_par_iter())
            .for_each(|(a, b)| a.merge(b));
    }
}

mod drain;

#[cfg(test)]
mod tests;
