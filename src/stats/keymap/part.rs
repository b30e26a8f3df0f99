//! One radix part of a [`KeyMap`](super::KeyMap): its hash table of slots, its arena of
//! records, the short buffer of the scan's documents, and the appended records of a part whose
//! keys are nearly all new (`Part::log`, `Part::consolidate`). The record format and the
//! helpers that read it are in `keymap.rs`.

use super::*;

/// Keys of at most this many bytes wait in their buffer entry; longer ones in a buffer arena.
pub(super) const INLINE: usize = 16;
/// Buffered documents per part before a flush.
pub(super) const PENDING: usize = 256;
/// A part holding fewer keys than this (its table a few tens of KiB, in cache) counts documents
/// directly: buffering only pays where probes would miss the cache.
pub(super) const BUFFER_FROM: usize = 1024;
/// A part holding at least this many keys whose last [`PENDING`] documents (a full buffer, or
/// counted directly while its table is small: [`Part::add_direct`]) were nearly all new keys
/// switches to appending records ([`Part::log`]). Low, so that the parts of near-unique keys
/// (`/id`, a tenant and user pair) stop probing and growing their tables early (from 4,096, they
/// did so for the first quarter of a 1 GB file: docs/benchmarks-history.md).
pub(super) const LOG_FROM: usize = 256;
/// A logging part consolidates once its unindexed records reach its keys or this many.
pub(super) const LOG_MIN: usize = 16_384;
/// One logged record in about this many (by its key's hash, so every record of a key or none)
/// has its hash kept in the part's sample ([`few_repeats`]).
pub(super) const LOGGED_SAMPLE: u32 = 1024;
/// A sample in which fewer than one hash in this many repeats another shows keys that seldom
/// repeat: their records are left as they are ([`few_repeats`]).
pub(super) const LOOSE_REPEATS: usize = 16;

/// A document's key waiting to be counted.
#[derive(Debug, Clone, Copy)]
struct Pending {
    hash: u64,
    len: u32,
    off: u32,
    inline: [u8; INLINE],
    counts: PartitionCounts,
}

#[derive(Debug, Clone, Default)]
pub(super) struct Part {
    pub(super) table: HashTable<Slot>,
    /// Every key's record, in insertion order.
    pub(super) arena: Vec<u8>,
    /// Keys (records) in the arena.
    pub(super) keys: usize,
    /// Whether the records carry first and last times (from the first time seen on).
    pub(super) timed: bool,
    /// Whether the records' counts are 8-byte words (from the first sum that passes
    /// `u32::MAX` on), not 4-byte ones.
    pub(super) wide: bool,
    pending: Vec<Pending>,
    pending_arena: Vec<u8>,
    /// Whether documents are appended as records without a table probe ([`Part::log`]).
    pub(super) logging: bool,
    /// Records at the arena's end not yet in the table (some may repeat a key).
    pub(super) unindexed: usize,
    /// Where those records start.
    pub(super) indexed_to: usize,
    /// The hashes of the logged records whose low 32 bits fall below `u32::MAX /`
    /// [`LOGGED_SAMPLE`]: a sample of keys in which a repeat at any distance shows.
    logged_sample: Vec<u64>,
    /// The unindexed records at which a part whose sample showed few repeats looks again.
    check_at: usize,
    /// Documents counted directly ([`Part::add_direct`]) since the part last looked at them,
    /// and new keys among them.
    direct_seen: u32,
    direct_new: u32,
}

/// Whether `new` keys among [`PENDING`] documents are nearly all of them (7 in 8).
#[inline]
fn mostly_new(new: usize) -> bool {
    new * 8 >= PENDING * 7
}

/// Whether the sample of logged records of `a` and `b` (a part of another map holding the same
/// hashes' keys) shows keys that seldom repeat: fewer than one hash in [`LOOSE_REPEATS`] equal
/// to another. Such records are worth no table: the records themselves stand for their keys, a
/// few repeats among them combined after the summaries' sort.
pub(super) fn few_repeats(a: &Part, b: Option<&Part>) -> bool {
    let mut s = a.logged_sample.clone();
    if let Some(b) = b {
        s.extend_from_slice(&b.logged_sample);
    }
    s.sort_unstable();
    let repeats = s.windows(2).filter(|w| w[0] == w[1]).count();
    repeats * LOOSE_REPEATS < s.len().max(1)
}

impl Part {
    /// How the part's records are laid out.
    #[inline]
    pub(super) fn layout(&self) -> Layout {
        Layout {
            timed: self.timed,
            wide: self.wide,
        }
    }

    /// Documents waiting in the short buffer.
    pub(super) fn buffered(&self) -> usize {
        self.pending.len()
    }

    /// At most what the buffered documents would add to the part's cost (`cost_per_key` and
    /// its bytes a key), were each a new key.
    pub(super) fn buffered_cost_bound(&self, cost_per_key: u64) -> u64 {
        self.pending.len() as u64 * (cost_per_key + INLINE as u64) + self.pending_arena.len() as u64
    }

    /// The offset of `key`'s record (hash `hash`), appended with empty counts if new.
    #[inline]
    pub(super) fn record(&mut self, hash: u64, key: &[u8]) -> usize {
        if self.unindexed != 0 {
            // A record appended here must not land among unindexed ones.
            self.consolidate();
        }
        let h = hash as u32;
        let layout = self.layout();
        let Part {
            table, arena, keys, ..
        } = self;
        let eq = |s: &Slot| s.h == h && same_bytes(record_key(arena, s.at as usize, layout).0, key);
        match table.entry(table_hash(h), eq, |s| table_hash(s.h)) {
            hashbrown::hash_table::Entry::Occupied(o) => o.get().at as usize,
            hashbrown::hash_table::Entry::Vacant(v) => {
                let at = append_record(arena, layout, &PartitionCounts::default(), key);
                *keys += 1;
                v.insert(Slot { h, at });
                at as usize
            }
        }
    }

    /// [`Part::add`] for a document counted directly (a part below [`BUFFER_FROM`] keys):
    /// every [`PENDING`] of them, a part past [`LOG_FROM`] keys whose documents were nearly all
    /// new keys switches to appending records ([`Part::log`]), as after a full buffer.
    #[inline]
    pub(super) fn add_direct(&mut self, hash: u64, key: &[u8], c: &PartitionCounts) {
        let before = self.keys;
        self.add(hash, key, c);
        self.direct_new += u32::from(self.keys > before);
        self.direct_seen += 1;
        if self.direct_seen as usize == PENDING {
            if self.keys >= LOG_FROM && mostly_new(self.direct_new as usize) {
                self.logging = true;
            }
            (self.direct_seen, self.direct_new) = (0, 0);
        }
    }

    /// Adds counts to `key` (hash `hash`), inserting it if new.
    #[inline]
    pub(super) fn add(&mut self, hash: u64, key: &[u8], c: &PartitionCounts) {
        if !self.timed && has_time(c.first_ts, c.last_ts) {
            self.make_timed();
        }
        let at = self.record(hash, key);
        self.add_at(at, hash, key, c);
    }

    /// Adds counts to the record at `at`, `key`'s (hash `hash`), the part turned wide first
    /// where the sums do not fit its narrow counts.
    #[inline]
    fn add_at(&mut self, at: usize, hash: u64, key: &[u8], c: &PartitionCounts) {
        let layout = self.layout();
        if !record_add(&mut self.arena, at, layout, c) {
            self.make_wide();
            self.add(hash, key, c);
        }
    }

    /// Rewrites the records with room for times (once, at the first time the part sees); an
    /// unindexed record is folded in like any other.
    pub(super) fn make_timed(&mut self) {
        self.rewrite(Layout {
            timed: true,
            ..self.layout()
        });
    }

    /// Rewrites the records with 8-byte counts (once, when a sum first passes `u32::MAX`: a
    /// key's documents or bytes in one sample, so seldom that the narrow records pay).
    #[cold]
    pub(super) fn make_wide(&mut self) {
        self.rewrite(Layout {
            wide: true,
            ..self.layout()
        });
    }

    /// Rewrites the records in layout `to`, every one of them indexed.
    fn rewrite(&mut self, to: Layout) {
        let from = self.layout();
        let old = std::mem::take(&mut self.arena);
        self.table.clear();
        self.keys = 0;
        self.unindexed = 0;
        (self.timed, self.wide) = (to.timed, to.wide);
        for (_, key, c) in records(&old, from) {
            self.add(key_hash(key), key, &c);
        }
    }

    /// Appends a document as a record of its own, without a table probe: the scan's path for a
    /// part whose documents are nearly all new keys (as for `/id`), where each probe of a table
    /// grown out of the cache waits for a miss or two, and each doubling moves it all again.
    /// [`Part::consolidate`] indexes the records later, in one pass with the table in cache.
    ///
    /// While the sample of logged records shows keys that seldom repeat ([`few_repeats`]), the
    /// records stay unindexed, to become rows of the drain as they are (an index would be built
    /// for nothing); the sample is looked at again each time the unindexed records double.
    #[inline]
    pub(super) fn log(&mut self, hash: u64, key: &[u8], c: &PartitionCounts) {
        if !self.timed && has_time(c.first_ts, c.last_ts) {
            self.make_timed();
        }
        if !self.layout().fits(c.documents, c.minified_bytes) {
            self.make_wide();
        }
        if self.unindexed == 0 {
            self.indexed_to = self.arena.len();
        }
        let layout = self.layout();
        append_record(&mut self.arena, layout, c, key);
        if (hash as u32) < u32::MAX / LOGGED_SAMPLE {
            self.logged_sample.push(hash);
        }
        self.unindexed += 1;
        if self.unindexed >= self.keys.max(LOG_MIN).max(self.check_at) {
            if few_repeats(self, None) {
                self.check_at = 2 * self.unindexed;
            } else {
                self.consolidate();
            }
        }
    }

    /// Indexes the records [`Part::log`] appended, in order: the table is reserved for all of
    /// them first (it does not grow on the way, and being one part's it stays in cache); a
    /// record whose key is already indexed adds its counts to that key's record and is
    /// dropped, a new key's record moves down over the dropped ones and is inserted. Most of
    /// them repeating keys, the part goes back to probing.
    pub(super) fn consolidate(&mut self) {
        let n = self.unindexed;
        if n == 0 {
            return;
        }
        self.table.reserve(n, |s| table_hash(s.h));
        let layout = self.layout();
        let (mut w, mut r) = (self.indexed_to, self.indexed_to);
        let mut repeats = 0;
        while r < self.arena.len() {
            let (key, from) = record_key(&self.arena, r, layout);
            let end = from + key.len();
            let h = key_hash(key) as u32;
            match self.find(h, key) {
                Some(at) => {
                    let c = record_counts(&self.arena, r, layout);
                    if !record_add(&mut self.arena, at, layout, &c) {
                        // The part turns wide: the records indexed so far are rewritten,
                        // and the rest, this one first, added to them.
                        let rest = self.arena[r..].to_vec();
                        self.arena.truncate(w);
                        self.unindexed = 0;
                        self.check_at = 0;
                        self.make_wide();
                        for (_, key, c) in records(&rest, layout) {
                            self.add(key_hash(key), key, &c);
                        }
                        return;
                    }
                    repeats += 1;
                }
                None => {
                    if w != r {
                        self.arena.copy_within(r..end, w);
                    }
                    // `w` is at most `r`, whose offset `append_record` checked.
                    let at = w as u32;
                    self.table
                        .insert_unique(table_hash(h), Slot { h, at }, |s| table_hash(s.h));
                    self.keys += 1;
                    w += end - r;
                }
            }
            r = end;
        }
        self.arena.truncate(w);
        self.unindexed = 0;
        self.check_at = 0;
        if repeats * 2 > n {
            self.logging = false;
        }
    }

    /// The bytes of the keys alone (without the record headers), counting an unindexed
    /// record's as a key's (an upper bound, exact once consolidated).
    pub(super) fn key_bytes(&self) -> usize {
        self.arena.len() - (self.keys + self.unindexed) * self.layout().header()
    }

    #[inline]
    pub(super) fn push(&mut self, hash: u64, key: &[u8], c: &PartitionCounts) {
        let mut e = Pending {
            hash,
            len: key.len() as u32,
            off: 0,
            inline: [0; INLINE],
            counts: *c,
        };
        if key.len() <= INLINE {
            e.inline[..key.len()].copy_from_slice(key);
        } else {
            e.off = self.pending_arena.len() as u32;
            self.pending_arena.extend_from_slice(key);
        }
        self.pending.push(e);
        if self.pending.len() >= PENDING {
            self.flush_pending();
        }
    }

    /// Counts every document this part holds back: buffered ones and unindexed records.
    pub(super) fn flush(&mut self) {
        self.flush_pending();
        self.consolidate();
    }

    /// Counts the buffered documents in the table. A full buffer of nearly all new keys in a
    /// part past [`LOG_FROM`] keys switches the part to appending records ([`Part::log`]).
    pub(super) fn flush_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let keys_before = self.keys;
        let pending = std::mem::take(&mut self.pending);
        let pa = std::mem::take(&mut self.pending_arena);
        self.warm(pending.iter().map(|e| e.hash));
        for e in &pending {
            let len = e.len as usize;
            let key = if len <= INLINE {
                &e.inline[..len]
            } else {
                &pa[e.off as usize..e.off as usize + len]
            };
            self.add(e.hash, key, &e.counts);
        }
        let new = self.keys - keys_before;
        if pending.len() == PENDING && self.keys >= LOG_FROM && mostly_new(new) {
            self.logging = true;
        }
        self.pending = pending;
        self.pending.clear();
        self.pending_arena = pa;
        self.pending_arena.clear();
    }

    /// Brings the table slots and records of the buffered keys into the cache before they are
    /// counted: a lookup by the 32 stored hash bits alone and a read of the record it points
    /// to, whose results only feed a sink. The entries' lookups do not depend on each other,
    /// so the processor overlaps their cache misses; counting one key after another would
    /// wait for each miss in turn (slot, then record), as the profile showed.
    /// (At most [`PENDING`] hashes are warmed.)
    pub(super) fn warm(&self, hashes: impl Iterator<Item = u64>) {
        let mut found = [u32::MAX; PENDING];
        let mut n = 0;
        for (f, hash) in found.iter_mut().zip(hashes) {
            let h = hash as u32;
            if let Some(s) = self.table.find(table_hash(h), |s| s.h == h) {
                *f = s.at;
            }
            n += 1;
        }
        let mut sink = 0u8;
        let head = self.layout().header();
        for &at in found.iter().take(n) {
            let at = at as usize;
            sink ^= self.arena.get(at).copied().unwrap_or(0);
            sink ^= self.arena.get(at + head).copied().unwrap_or(0);
        }
        std::hint::black_box(sink);
    }

    pub(super) fn merge(&mut self, mut o: Part) {
        self.flush();
        o.flush();
        if o.keys > self.keys {
            std::mem::swap(self, &mut o);
        }
        // (The first of `o`'s records that carries a time makes `self` timed, in `add`.)
        self.table.reserve(o.keys, |s| table_hash(s.h));
        self.arena.reserve(o.arena.len());
        self.in_warmed_batches(&o.arena, o.layout(), |p, hash, _, key, c| {
            p.add(hash, key, &c)
        });
    }

    /// Calls `each(self, hash, offset, key, counts)` for the records of `arena` (laid out as
    /// `layout`), [`PENDING`] at a time, each batch's lookups in this part warmed first
    /// ([`Part::warm`]).
    pub(super) fn in_warmed_batches<'o>(
        &mut self,
        arena: &'o [u8],
        layout: Layout,
        mut each: impl FnMut(&mut Part, u64, usize, &'o [u8], PartitionCounts),
    ) {
        let mut batch = Vec::with_capacity(PENDING);
        let mut recs = records(arena, layout).peekable();
        while recs.peek().is_some() {
            batch.clear();
            batch.extend(
                recs.by_ref()
                    .take(PENDING)
                    .map(|(at, k, c)| (key_hash(k), at, k, c)),
            );
            self.warm(batch.iter().map(|b| b.0));
            for &(hash, at, key, c) in &batch {
                each(self, hash, at, key, c);
            }
        }
    }

    /// Adds the counts of `o`'s keys that this part holds to their records, and returns the
    /// offsets (in `o`'s arena) of the others. If `o` carries times, so must this part.
    pub(super) fn absorb(&mut self, o: &Part) -> Vec<u32> {
        // `o`'s times need room here (a part turns timed with its first time, and only this map
        // takes documents after the merge, so the reverse can happen and is harmless).
        debug_assert!(
            self.timed || !o.timed,
            "absorb needs room for the other part's times"
        );
        debug_assert!(self.pending.is_empty() && o.pending.is_empty());
        let mut new = Vec::new();
        self.in_warmed_batches(&o.arena, o.layout(), |p, hash, at, key, c| {
            match p.find(hash as u32, key) {
                Some(mine) => p.add_at(mine, hash, key, &c),
                None => new.push(at as u32),
            }
        });
        new
    }

    /// The offset of `key`'s record (the low 32 bits of its hash `h`), if indexed.
    #[inline]
    pub(super) fn find(&self, h: u32, key: &[u8]) -> Option<usize> {
        let (arena, layout) = (&self.arena, self.layout());
        self.table
            .find(table_hash(h), |s| {
                s.h == h && same_bytes(record_key(arena, s.at as usize, layout).0, key)
            })
            .map(|s| s.at as usize)
    }

    pub(super) fn bytes(&self) -> usize {
        self.table.capacity() * (std::mem::size_of::<Slot>() + 1)
            + self.arena.capacity()
            + self.logged_sample.capacity() * 8
    }

    /// Drops the keys not kept at `level` into `dropped`, and rebuilds the part from the kept
    /// keys (insertion order kept).
    pub(super) fn retain(&mut self, level: u32, dropped: &mut Dropped) {
        self.flush();
        let old = std::mem::take(self);
        for (_, key, c) in records(&old.arena, old.layout()) {
            let hash = key_hash(key);
            if always_kept(key) || kept(sample_hash(key, hash), level) {
                self.add(hash, key, &c);
            } else {
                dropped.add(hash, key, c.documents, c.minified_bytes);
            }
        }
        self.table.shrink_to_fit(|s| table_hash(s.h));
        self.arena.shrink_to_fit();
    }
}
