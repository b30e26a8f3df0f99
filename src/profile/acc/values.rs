//! One path's distinct values with their [`ValueStat`]s, [`Values`]: every text once, back to
//! back in one buffer, its entry (the text's hash, where it is, its stat) in a vector in the order
//! values came, and a table of 8-byte slots that finds the entries.
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
use crate::stats::keymap::table_hash;

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

/// A table slot: the low 32 bits of a value's hash and the index of its entry. Eight bytes, so
/// that a path's table of 100,000 values is 1 MiB rather than the 7 MiB its entries would be,
/// and growing it moves no entry (a profile of 200,000 documents spent a tenth of its time
/// growing tables of whole entries). The low bits, because a deep sampling level keeps only
/// values whose bits 32.. are zero ([`sampled`]); the table hashes them with
/// [`table_hash`].
#[derive(Debug, Clone, Copy)]
struct Slot {
    h: u32,
    i: u32,
}

/// Distinct value texts and their stats (see the module's summary): the entries in the order
/// their values were added, and a table of slots that finds them.
#[derive(Clone, Default)]
pub struct Values {
    text: String,
    entries: Vec<Entry>,
    table: HashTable<Slot>,
}

impl Values {
    /// Distinct values held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No value held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The index of the entry of `text`, whose hash is `h`, if held.
    #[inline]
    fn find(&self, h: u64, text: &str) -> Option<usize> {
        let (all, entries) = (&self.text, &self.entries);
        // A slot's 32 bits are compared first: its entry is read only when they match.
        let eq = |s: &Slot| {
            s.h == h as u32 && {
                let e = &entries[s.i as usize];
                e.hash == h && &all[e.at..e.at + e.len] == text
            }
        };
        self.table
            .find(table_hash(h as u32), eq)
            .map(|s| s.i as usize)
    }

    /// The stat of `text`, if held.
    pub fn get(&self, text: &str) -> Option<&ValueStat> {
        self.find(value_hash(text), text)
            .map(|i| &self.entries[i].stat)
    }

    /// Whether `text` is held.
    pub fn contains_key(&self, text: &str) -> bool {
        self.get(text).is_some()
    }

    /// The stat of `text`, whose hash is `h` ([`value_hash`]), if held.
    #[inline]
    pub(super) fn get_mut_hashed(&mut self, h: u64, text: &str) -> Option<&mut ValueStat> {
        self.find(h, text).map(|i| &mut self.entries[i].stat)
    }

    /// Adds `text` (hash `h`), which is not held, with `stat`; `pinned`: kept at every sampling
    /// level.
    #[inline]
    pub(super) fn insert_hashed(&mut self, h: u64, text: &str, stat: ValueStat, pinned: bool) {
        // A path holds at most `MAX_VALUES_PER_PATH` values between two fits (twice that
        // while two profiles merge): an index fits 32 bits.
        debug_assert!(self.entries.len() < u32::MAX as usize);
        let i = self.entries.len() as u32;
        let at = self.text.len();
        self.text.push_str(text);
        self.entries.push(Entry {
            hash: h,
            at,
            len: text.len(),
            stat,
            pinned,
        });
        let slot = Slot { h: h as u32, i };
        (self.table).insert_unique(table_hash(slot.h), slot, |s| table_hash(s.h));
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
        self.entries.retain(|e| {
            let keep = e.pinned || sampled(e.hash, level);
            if !keep {
                values += 1;
                documents += e.stat.count;
            }
            keep
        });
        if values == 0 {
            return (0, 0);
        }
        let live: usize = self.entries.iter().map(|e| e.len).sum();
        if self.text.len() > 2 * live + 4096 {
            let mut text = String::with_capacity(2 * live);
            for e in &mut self.entries {
                let at = text.len();
                text.push_str(&self.text[e.at..e.at + e.len]);
                e.at = at;
            }
            self.text = text;
        }
        // The entries moved: the table is built again (its capacity kept).
        self.table.clear();
        for (i, e) in self.entries.iter().enumerate() {
            let slot = Slot {
                h: e.hash as u32,
                i: i as u32,
            };
            (self.table).insert_unique(table_hash(slot.h), slot, |s| table_hash(s.h));
        }
        (values, documents)
    }

    /// Every value's text and stat, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ValueStat)> + '_ {
        self.entries
            .iter()
            .map(|e| (&self.text[e.at..e.at + e.len], &e.stat))
    }

    /// Every value's stat, in no particular order.
    pub fn values(&self) -> impl Iterator<Item = &ValueStat> + '_ {
        self.entries.iter().map(|e| &e.stat)
    }

    /// Every value's hash, text, stat and whether it is pinned, in no particular order.
    pub(super) fn hashed(&self) -> impl Iterator<Item = (u64, &str, ValueStat, bool)> + '_ {
        self.entries
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(count: u64) -> ValueStat {
        ValueStat {
            count,
            first: i64::MAX,
            last: i64::MIN,
        }
    }

    /// Two texts whose hashes share their low 32 bits (the bits a slot keeps), found by search.
    fn same_low_bits() -> (String, String) {
        let mut seen = std::collections::HashMap::new();
        for n in 0u64.. {
            let t = format!("v{n}");
            if let Some(other) = seen.insert(value_hash(&t) as u32, t.clone()) {
                return (other, t);
            }
        }
        unreachable!()
    }

    #[test]
    fn texts_whose_slots_collide_stay_two_values() {
        let (a, b) = same_low_bits();
        assert_ne!(value_hash(&a), value_hash(&b));
        let mut v = Values::default();
        v.insert_hashed(value_hash(&a), &a, stat(3), false);
        assert_eq!(v.get(&a), Some(&stat(3)));
        assert_eq!(v.get(&b), None);
        v.insert_hashed(value_hash(&b), &b, stat(5), false);
        assert_eq!(
            (v.len(), v.get(&a), v.get(&b)),
            (2, Some(&stat(3)), Some(&stat(5)))
        );
        v.get_mut_hashed(value_hash(&b), &b).unwrap().count += 1;
        assert_eq!((v[a.as_str()].count, v[b.as_str()].count), (3, 6));
    }

    #[test]
    fn values_kept_by_a_sample_are_found_and_counted_after_it() {
        // 20,000 values of 40 bytes, value i seen i % 7 + 1 times, one pinned; at level 3 about
        // one in 8 stays, so the buffer is rewritten and the table built again.
        let text = |i: usize| format!("{i:040}");
        let mut v = Values::default();
        for i in 0..20_000 {
            let t = text(i);
            v.insert_hashed(value_hash(&t), &t, stat(i as u64 % 7 + 1), i == 11);
        }
        let kept = |i: usize| i == 11 || sampled(value_hash(&text(i)), 3);
        let gone: Vec<usize> = (0..20_000).filter(|&i| !kept(i)).collect();
        let (values, documents) = v.keep_sampled(3);
        assert_eq!(values, gone.len());
        assert_eq!(
            documents,
            gone.iter().map(|&i| i as u64 % 7 + 1).sum::<u64>()
        );
        assert!(v.text.len() < 20_000 * 40 / 4, "the buffer was rewritten");
        assert_eq!(v.len(), 20_000 - gone.len());
        for i in 0..20_000 {
            let want = kept(i).then(|| stat(i as u64 % 7 + 1));
            assert_eq!(v.get(&text(i)).copied(), want, "value {i}");
        }
        // Values added after the sample are found beside the kept ones.
        v.insert_hashed(value_hash("new"), "new", stat(9), false);
        assert_eq!(v.get("new"), Some(&stat(9)));
        assert_eq!(v.len(), 20_001 - gone.len());
    }

    /// Random inserts, repeats, samples and merges, checked after each step against a plain map
    /// of text to (stat, pinned): the same values, the same stats, and the same counts let go.
    #[test]
    fn every_operation_agrees_with_a_plain_map() {
        use std::collections::BTreeMap;
        type Model = BTreeMap<String, (ValueStat, bool)>;
        let seen = |ts: i64| ValueStat {
            count: 1,
            first: ts,
            last: ts,
        };
        let mut rng = crate::testing::XorShift(0x05ee_d0f7_a1e5);
        let check = |v: &Values, m: &Model, step: usize| {
            assert_eq!(v.len(), m.len(), "step {step}");
            let mut got: Vec<(String, ValueStat)> =
                v.iter().map(|(t, s)| (t.to_owned(), *s)).collect();
            got.sort_by(|a, b| a.0.cmp(&b.0));
            let want: Vec<(String, ValueStat)> =
                m.iter().map(|(t, (s, _))| (t.clone(), *s)).collect();
            assert_eq!(got, want, "step {step}");
        };
        // Adds `text` seen at `ts` to both, as `PathAcc::add` does (a new value only if sampled).
        let add = |v: &mut Values, m: &mut Model, text: &str, ts: i64, level: u32| {
            let h = value_hash(text);
            match v.get_mut_hashed(h, text) {
                Some(s) => {
                    s.count += 1;
                    s.first = s.first.min(ts);
                    s.last = s.last.max(ts);
                }
                None if sampled(h, level) => v.insert_hashed(h, text, seen(ts), false),
                None => {}
            }
            if let Some((s, _)) = m.get_mut(text) {
                s.count += 1;
                s.first = s.first.min(ts);
                s.last = s.last.max(ts);
            } else if sampled(h, level) {
                m.insert(text.to_owned(), (seen(ts), false));
            }
        };
        let (mut v, mut m) = (Values::default(), Model::new());
        let mut level = 0;
        for step in 0..3_000 {
            let r = rng.next();
            match r % 100 {
                // A new or repeated value: texts from a few thousand, of 1 to 60 bytes.
                0..=89 => {
                    let n = rng.next() % 4_000;
                    let text = format!("{n}{}", "x".repeat((n % 60) as usize));
                    add(&mut v, &mut m, &text, (rng.next() % 1_000) as i64, level);
                }
                90..=93 => {
                    let text = format!("pin{}", rng.next() % 50);
                    if v.get(&text).is_none() {
                        v.pin(&text);
                        m.insert(text, (stat(0), true));
                    }
                }
                // A sample one level deeper (every few hundred steps on average).
                94..=96 if level < 6 => {
                    level += 1;
                    let (values, documents) = v.keep_sampled(level);
                    let before = m.len();
                    let mut gone_docs = 0;
                    m.retain(|t, (s, pinned)| {
                        let keep = *pinned || sampled(value_hash(t), level);
                        gone_docs += if keep { 0 } else { s.count };
                        keep
                    });
                    assert_eq!(
                        (values, documents),
                        (before - m.len(), gone_docs),
                        "step {step}"
                    );
                }
                // Another set's values merged in.
                _ => {
                    let (mut o, mut om) = (Values::default(), Model::new());
                    // Pinned values come in merges too (one worker's pins, another's counts).
                    for _ in 0..rng.next() % 3 {
                        let text = format!("pin{}", rng.next() % 50);
                        if o.get(&text).is_none() {
                            o.pin(&text);
                            om.insert(text, (stat(0), true));
                        }
                    }
                    for _ in 0..rng.next() % 300 {
                        let n = rng.next() % 4_000;
                        let text = format!("{n}{}", "x".repeat((n % 60) as usize));
                        add(&mut o, &mut om, &text, (rng.next() % 1_000) as i64, level);
                    }
                    v.absorb(&o);
                    for (t, (s, pinned)) in om {
                        match m.get_mut(&t) {
                            Some((ms, _)) => ms.merge(&s),
                            None => {
                                m.insert(t, (s, pinned));
                            }
                        }
                    }
                }
            }
            check(&v, &m, step);
        }
        assert!(level >= 3, "samples taken: {level}");
        assert!(m.len() > 100, "values held at the end: {}", m.len());
    }
}
