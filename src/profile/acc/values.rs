//! One path's distinct values with their [`ValueStat`]s, [`Values`]: every text once, back to
//! back in one buffer, and a table of entries (the text's hash, where it is, its stat).
//!
//! A map of boxed strings cost an allocation per new value and a free per value when the profile
//! was dropped (freeing the automatic search's profile, a million values, took 0.2 s on one
//! thread), and hashed every text again to grow its table and to merge two profiles. Here the
//! hash is computed once, with a fixed seed, and kept: growing the table and merging read it, and
//! a probe compares texts only where the whole hash matches.

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

#[derive(Debug, Clone, Copy)]
struct Entry {
    hash: u64,
    at: usize,
    len: usize,
    stat: ValueStat,
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

    /// Adds `text` (hash `h`), which is not held, with `stat`.
    #[inline]
    pub(super) fn insert_hashed(&mut self, h: u64, text: &str, stat: ValueStat) {
        let at = self.text.len();
        self.text.push_str(text);
        let e = Entry {
            hash: h,
            at,
            len: text.len(),
            stat,
        };
        self.table.insert_unique(h, e, |e| e.hash);
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

    /// Every value's hash, text and stat, in no particular order.
    pub(super) fn hashed(&self) -> impl Iterator<Item = (u64, &str, ValueStat)> + '_ {
        self.table
            .iter()
            .map(|e| (e.hash, &self.text[e.at..e.at + e.len], e.stat))
    }

    /// A set of these values (hash, text, stat), with their texts in a buffer of their own.
    pub(super) fn from_hashed<'a>(
        values: impl Iterator<Item = (u64, &'a str, ValueStat)>,
    ) -> Values {
        let mut out = Values::default();
        for (h, text, stat) in values {
            out.insert_hashed(h, text, stat);
        }
        out
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
