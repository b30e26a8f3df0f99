//! One path's distinct values with their [`ValueStat`]s, [`Values`]: every text once, back to
//! back in one buffer, and a table of entries (the text's hash, where it is, its stat).
//!
//! A map of boxed strings cost an allocation per new value and a free per value when the profile
//! was dropped (freeing the automatic search's profile of 200,000 documents took 0.1 s on one
//! thread), and hashed every text again to grow its table and to merge two profiles. Here the
//! hash is computed once, with a fixed seed, and kept: growing the table and merging read it, and
//! a probe compares texts only where the whole hash matches.
//!
//! Past a bound, a path keeps a sample of its values chosen by that hash ([`sampled`]): a value
//! is kept or not whatever the order documents come in, so every document of a kept value is
//! counted, and the values kept are the same for any thread count. Values pinned
//! ([`Values::pin`]) are kept at every level.

use std::fmt;

use hashbrown::HashTable;

use super::path::ValueStat;

/// The fixed hash of a value's text (the same in every profile, so two profiles' entries can be
/// matched by it).
#[inline]
pub fn value_hash(text: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x7072_6f66_696c_6573).hash_one(text.as_bytes())
}

/// The deepest sampling level: 1 value in 2^24 kept (the level's bits are bits 32..56 of the
/// hash, apart from those hashbrown takes for its buckets and control bytes).
pub const MAX_LEVEL: u32 = 24;

/// Whether a value of hash `h` is kept at sampling level `level`: all of them at 0, and 1 in
/// 2^`level` past it; a value kept at a level is kept at every lower one.
#[inline]
pub fn sampled(h: u64, level: u32) -> bool {
    (h >> 32) & ((1u64 << level.min(MAX_LEVEL)) - 1) == 0
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    hash: u64,
    at: usize,
    len: usize,
    stat: ValueStat,
    pinned: bool,
}

/// Distinct value texts and their stats (see the module's summary).
#[derive(Clone, Default)]
pub struct Values {
    text: String,
    table: HashTable<Entry>,
}

impl Values {
    /// Distinct values held.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// No value held.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// The stat of `text`, if held.
    pub fn get(&self, text: &str) -> Option<&ValueStat> {
        let h = value_hash(text);
        let all = &self.text;
        (self.table)
            .find(h, |e| e.hash == h && &all[e.at..e.at + e.len] == text)
            .map(|e| &e.stat)
    }

    /// Whether `text` is held.
    pub fn contains_key(&self, text: &str) -> bool {
        self.get(text).is_some()
    }

    /// The stat of `text`, whose hash is `h` ([`value_hash`]), if held.
    #[inline]
    pub(super) fn get_mut_hashed(&mut self, h: u64, text: &str) -> Option<&mut ValueStat> {
        let all = &self.text;
        (self.table)
            .find_mut(h, |e| e.hash == h && &all[e.at..e.at + e.len] == text)
            .map(|e| &mut e.stat)
    }

    /// Adds `text` (hash `h`), which is not held, with `stat`; `pinned`: kept at every sampling
    /// level.
    #[inline]
    pub(super) fn insert_hashed(&mut self, h: u64, text: &str, stat: ValueStat, pinned: bool) {
        let at = self.text.len();
        self.text.push_str(text);
        let e = Entry {
            hash: h,
            at,
            len: text.len(),
            stat,
            pinned,
        };
        self.table.insert_unique(h, e, |e| e.hash);
    }

    /// Adds `text`, which is not held, pinned and not yet seen (a count of 0).
    pub(super) fn pin(&mut self, text: &str) {
        let none = ValueStat {
            count: 0,
            first: i64::MAX,
            last: i64::MIN,
        };
        self.insert_hashed(value_hash(text), text, none, true);
    }

    /// Keeps the values pinned or [`sampled`] at `level`; returns how many values and documents
    /// were let go. The buffer is rewritten once most of its bytes are texts let go.
    pub(super) fn keep_sampled(&mut self, level: u32) -> (usize, u64) {
        let (mut values, mut documents) = (0, 0);
        self.table.retain(|e| {
            let keep = e.pinned || sampled(e.hash, level);
            if !keep {
                values += 1;
                documents += e.stat.count;
            }
            keep
        });
        let live: usize = self.table.iter().map(|e| e.len).sum();
        if self.text.len() > 2 * live + 4096 {
            let mut text = String::with_capacity(2 * live);
            for e in self.table.iter_mut() {
                let at = text.len();
                text.push_str(&self.text[e.at..e.at + e.len]);
                e.at = at;
            }
            self.text = text;
        }
        (values, documents)
    }

    /// Every value's text and stat, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ValueStat)> + '_ {
        self.table
            .iter()
            .map(|e| (&self.text[e.at..e.at + e.len], &e.stat))
    }

    /// Every value's stat, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &ValueStat> + '_ {
        self.table.iter().map(|e| &e.stat)
    }

    /// Every value's hash, text, stat and whether it is pinned, in no particular order.
    pub(super) fn hashed(&self) -> impl Iterator<Item = (u64, &str, ValueStat, bool)> + '_ {
        self.table
            .iter()
            .map(|e| (e.hash, &self.text[e.at..e.at + e.len], e.stat, e.pinned))
    }

    /// Adds another set's values: the stats of a value both hold add up
    /// ([`ValueStat::merge`]); a value only `o` holds is added as it is there.
    pub(super) fn absorb(&mut self, o: &Values) {
        for (h, text, stat, pinned) in o.hashed() {
            match self.get_mut_hashed(h, text) {
                Some(s) => s.merge(&stat),
                None => self.insert_hashed(h, text, stat, pinned),
            }
        }
    }
}

impl PartialEq for Values {
    /// The same texts with the same stats (whatever the order they were added in).
    fn eq(&self, o: &Values) -> bool {
        self.len() == o.len() && self.iter().all(|(k, v)| o.get(k) == Some(v))
    }
}

impl fmt::Debug for Values {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl std::ops::Index<&str> for Values {
    type Output = ValueStat;

    /// The stat of a value that is held (panics otherwise, as a map's index does).
    fn index(&self, text: &str) -> &ValueStat {
        self.get(text).expect("a value held")
    }
}
