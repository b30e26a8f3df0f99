//! A candidate counted as if its keys never repeat (issue #69): one 8-byte hash per document
//! instead of a record of its key (a 36-character id is a 50-byte record and, after the drain,
//! a 32-byte row: 10 M ids were 800 MB of fresh memory to fault in, sort and free).
//!
//! It holds what a report reads of a key whose every logical partition is one document: how
//! many documents there are, how many of each size, the keys of the largest documents (the
//! report's top partitions, the size ranges' extremes), the largest key, the keys' value kinds
//! (a boolean or a date key is judged apart), and the key bytes (the memory budget). Whether the
//! keys did not repeat is checked after the scan on the hashes ([`DistinctAcc::repeats`], called
//! by [`crate::stats::summary::distinct::verify`]): equal keys always hash alike, so a repeat
//! shows as two equal hashes, and so do two keys that share a hash; either way the candidate is
//! scanned again with a key map (`analysis::distinct`), so the report is exactly the key map's.

use super::sampling::COST_PER_KEY;
use crate::keys::{self, KeyComponent};

/// Sizes below this are counted in an array, larger ones in a map.
const SMALL_SIZES: usize = 1 << 12;

/// The hashes are kept in this many buckets by their top bits: each bucket's check for equal
/// hashes is a table that fits a core's cache (10 M ids: 39,000 hashes a bucket).
const BUCKETS: usize = 256;

/// One candidate's documents, counted without their keys.
#[derive(Debug, Clone)]
pub struct DistinctAcc {
    /// Each document's key hash ([`crate::stats::keymap::key_hash`]), by its top 8 bits.
    buckets: Vec<Vec<u64>>,
    documents: u64,
    /// Documents by minified size: sizes below [`SMALL_SIZES`] by index.
    small: Vec<u64>,
    large: hashbrown::HashMap<u64, u64>,
    /// The bytes of every key (what the key map would charge them against the budget).
    pub(crate) key_bytes: u64,
    /// The keys of the `keep` largest documents: minified bytes, largest first; among equals,
    /// the smaller key first.
    pub(crate) top: Vec<(u64, Vec<u8>)>,
    keep: usize,
    /// The key of the most value bytes ([`keys::key_shape`]), the smallest among equals.
    pub(crate) max_key: Option<(u64, Vec<u8>)>,
    /// Documents whose key is Undefined or Null: a repeated key (the candidate falls back).
    pub(crate) special: u64,
    /// Whether every key seen was a boolean / a date or timestamp (as `advise::domain` reads
    /// them), while either may still hold.
    pub(crate) all_bool: bool,
    pub(crate) all_dates: bool,
    /// Given up during the scan ([`DistinctAcc::abandon`]): the candidate is read again.
    abandoned: bool,
}

impl DistinctAcc {
    /// Keeping the keys of the `keep` largest documents.
    pub fn new(keep: usize) -> DistinctAcc {
        DistinctAcc {
            buckets: vec![Vec::new(); BUCKETS],
            documents: 0,
            small: Vec::new(),
            large: hashbrown::HashMap::new(),
            key_bytes: 0,
            top: Vec::with_capacity(keep + 1),
            keep,
            max_key: None,
            special: 0,
            all_bool: true,
            all_dates: true,
            abandoned: false,
        }
    }

    /// Documents counted.
    pub fn documents(&self) -> u64 {
        self.documents
    }

    /// What the key map would charge these keys against the memory budget: [`COST_PER_KEY`]
    /// each, and their bytes.
    pub fn charge(&self) -> u64 {
        (self.documents.saturating_mul(COST_PER_KEY)).saturating_add(self.key_bytes)
    }

    /// Gives the count up (its keys passed the budget, or another worker kept its key map):
    /// the hashes are freed, later documents ignored, and the candidate is read again.
    pub fn abandon(&mut self) {
        self.abandoned = true;
        self.buckets = Vec::new();
    }

    /// Whether the count was given up ([`DistinctAcc::abandon`]).
    pub fn abandoned(&self) -> bool {
        self.abandoned
    }

    /// One document of `minified_bytes` under `key`.
    #[inline]
    pub fn add(&mut self, key: &[u8], minified_bytes: u64) {
        if self.abandoned {
            return;
        }
        let h = super::keymap::key_hash(key);
        self.buckets[(h >> 56) as usize].push(h);
        self.documents += 1;
        self.key_bytes += key.len() as u64;
        match self.small.get_mut(minified_bytes as usize) {
            Some(n) => *n += 1,
            None if (minified_bytes as usize) < SMALL_SIZES => {
                self.small.resize(minified_bytes as usize + 1, 0);
                self.small[minified_bytes as usize] += 1;
            }
            None => *self.large.entry(minified_bytes).or_default() += 1,
        }
        self.keep_top(minified_bytes, key);
        let shape = keys::key_shape(key);
        if shape.undefined || shape.null {
            self.special += 1;
            return;
        }
        if bigger(self.max_key.as_ref(), shape.value_bytes, key) {
            self.max_key = Some((shape.value_bytes, key.to_vec()));
        }
        if self.all_bool || self.all_dates {
            self.kinds(key);
        }
    }

    #[inline]
    fn keep_top(&mut self, bytes: u64, key: &[u8]) {
        if self.keep == 0 {
            return;
        }
        if self.top.len() == self.keep {
            let last = &self.top[self.keep - 1];
            if bytes < last.0 || (bytes == last.0 && key >= &last.1[..]) {
                return;
            }
        }
        let at = self
            .top
            .partition_point(|(b, k)| *b > bytes || (*b == bytes && &k[..] < key));
        self.top.insert(at, (bytes, key.to_vec()));
        self.top.truncate(self.keep);
    }

    /// The value kinds `advise::domain::value_kinds` reads off each key of one component.
    fn kinds(&mut self, key: &[u8]) {
        let comps = keys::decode_key(key);
        let one = match comps.as_slice() {
            [c] => Some(c),
            _ => None,
        };
        self.all_bool &= comps.iter().all(|c| matches!(c, KeyComponent::Bool(_)));
        self.all_dates &= one.is_some_and(
            |c| matches!(c, KeyComponent::Str(s) if keys::time::parse_iso8601(s).is_some()),
        );
    }

    /// Both accumulators' documents (the same whichever order).
    pub fn merge(&mut self, o: DistinctAcc) {
        if self.abandoned || o.abandoned {
            return self.abandon();
        }
        for (a, b) in self.buckets.iter_mut().zip(o.buckets) {
            if a.is_empty() {
                *a = b;
            } else {
                a.extend_from_slice(&b);
            }
        }
        self.documents += o.documents;
        if self.small.len() < o.small.len() {
            self.small.resize(o.small.len(), 0);
        }
        for (a, b) in self.small.iter_mut().zip(&o.small) {
            *a += b;
        }
        for (s, n) in o.large {
            *self.large.entry(s).or_default() += n;
        }
        self.key_bytes += o.key_bytes;
        for (b, k) in o.top {
            self.keep_top(b, &k);
        }
        if let Some((kb, k)) = o.max_key {
            if bigger(self.max_key.as_ref(), kb, &k) {
                self.max_key = Some((kb, k));
            }
        }
        self.special += o.special;
        self.all_bool &= o.all_bool;
        self.all_dates &= o.all_dates;
    }

    /// Whether two documents' keys hash alike (a key that repeats, or two that share a hash):
    /// each bucket's hashes put in an open-addressing table of its own, on the caller's rayon
    /// pool, each thread reusing one table.
    pub fn repeats(&self) -> bool {
        use rayon::prelude::*;
        (self.buckets.par_iter())
            .map_init(Vec::new, |table, b| repeat_in(b, table))
            .any(|r| r)
    }

    /// Frees the hashes (after [`DistinctAcc::repeats`]).
    pub fn drop_hashes(&mut self) {
        self.buckets = Vec::new();
    }

    /// The documents by minified size, as (size, documents), ascending by size.
    pub fn sizes(&self) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = (self.small.iter().enumerate())
            .filter(|&(_, &n)| n > 0)
            .map(|(s, &n)| (s as u64, n))
            .collect();
        let mut large: Vec<(u64, u64)> = self.large.iter().map(|(&s, &n)| (s, n)).collect();
        large.sort_unstable();
        out.extend(large);
        out
    }
}

/// Whether two of `hashes` (of one bucket: their top bits alike, the low ones random) are
/// equal, through `table` (cleared here): linear probing from the low bits, 0 marking an empty
/// slot (a hash of 0 is tracked apart).
fn repeat_in(hashes: &[u64], table: &mut Vec<u64>) -> bool {
    let size = (2 * hashes.len()).next_power_of_two().max(16);
    table.clear();
    table.resize(size, 0);
    let mask = size - 1;
    let mut zero = false;
    for &h in hashes {
        if h == 0 {
            if std::mem::replace(&mut zero, true) {
                return true;
            }
            continue;
        }
        let mut i = h as usize & mask;
        loop {
            match table[i] {
                0 => {
                    table[i] = h;
                    break;
                }
                t if t == h => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }
    false
}

/// Whether a key of `kb` value bytes, `key`, replaces `cur` as the largest (the smaller key
/// among equals, as the drain's tally picks it).
fn bigger(cur: Option<&(u64, Vec<u8>)>, kb: u64, key: &[u8]) -> bool {
    match cur {
        None => true,
        Some((b, k)) => kb > *b || (kb == *b && key < &k[..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string_key(s: &str) -> Vec<u8> {
        keys::encode_strings(&[Some(s)])
    }

    #[test]
    fn keeps_the_largest_documents_smallest_key_first_whatever_the_split() {
        let docs: Vec<(Vec<u8>, u64)> = (0..200u64)
            .map(|i| {
                (
                    string_key(&format!("k{:03}", (i * 37) % 200)),
                    100 + (i * 13) % 7,
                )
            })
            .collect();
        let mut whole = DistinctAcc::new(5);
        for (k, b) in &docs {
            whole.add(k, *b);
        }
        let (mut a, mut b) = (DistinctAcc::new(5), DistinctAcc::new(5));
        for (i, (k, s)) in docs.iter().enumerate() {
            if i % 3 == 0 { &mut a } else { &mut b }.add(k, *s);
        }
        b.merge(a);
        assert_eq!(whole.top, b.top);
        // Sizes 100..=106; 106 is taken by i ≡ 6 mod 7, whose keys sort k004 k011 k018 ...
        let expected: Vec<u64> = vec![106; 5];
        assert_eq!(whole.top.iter().map(|t| t.0).collect::<Vec<_>>(), expected);
        let mut keys106: Vec<Vec<u8>> = docs
            .iter()
            .filter(|d| d.1 == 106)
            .map(|d| d.0.clone())
            .collect();
        keys106.sort();
        assert_eq!(
            whole.top.iter().map(|t| t.1.clone()).collect::<Vec<_>>(),
            keys106[..5].to_vec()
        );
        assert_eq!(whole.documents(), 200);
        assert_eq!(b.documents(), 200);
        assert_eq!(whole.sizes(), b.sizes());
        assert_eq!(whole.sizes().iter().map(|s| s.1).sum::<u64>(), 200);
    }

    #[test]
    fn equal_hashes_are_found_in_any_bucket_and_a_zero_hash_counts() {
        let mut t = Vec::new();
        let distinct: Vec<u64> = (1..5_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        assert!(!repeat_in(&distinct, &mut t));
        for at in [0, 2_500, 4_998] {
            let mut v = distinct.clone();
            v.push(distinct[at]);
            assert!(repeat_in(&v, &mut t), "{at}");
        }
        // Equal low bits (one probe chain) but different hashes: no repeat.
        let chain: Vec<u64> = (1..100u64).map(|i| i << 40).collect();
        assert!(!repeat_in(&chain, &mut t));
        assert!(!repeat_in(&[0, 5], &mut t));
        assert!(repeat_in(&[0, 5, 0], &mut t));
        let mut a = DistinctAcc::new(1);
        for i in 0..3_000 {
            a.add(&string_key(&format!("id{i}")), 10);
        }
        assert!(!a.repeats());
        a.add(&string_key("id1234"), 12);
        assert!(a.repeats());
        assert_eq!(a.documents(), 3_001);
    }

    #[test]
    fn a_count_given_up_stays_given_up_through_a_merge() {
        let mut a = DistinctAcc::new(2);
        a.add(&string_key("x"), 10);
        assert_eq!(a.charge(), COST_PER_KEY + 3);
        a.abandon();
        a.add(&string_key("y"), 10);
        assert!(a.abandoned() && a.buckets.is_empty());
        let mut b = DistinctAcc::new(2);
        b.add(&string_key("z"), 10);
        b.merge(a);
        assert!(b.abandoned() && b.buckets.is_empty());
    }

    #[test]
    fn sizes_past_the_array_are_counted_too() {
        let mut a = DistinctAcc::new(1);
        a.add(&string_key("a"), 5);
        a.add(&string_key("b"), 1 << 20);
        a.add(&string_key("c"), 5);
        assert_eq!(a.sizes(), vec![(5, 2), (1 << 20, 1)]);
        assert_eq!(a.top, vec![(1 << 20, string_key("b"))]);
    }

    #[test]
    fn value_kinds_and_the_largest_key() {
        let mut a = DistinctAcc::new(1);
        a.add(&string_key("2024-01-02T03:04:05Z"), 10);
        a.add(&string_key("2024-01-03"), 10);
        assert!(a.all_dates && !a.all_bool);
        assert_eq!(a.max_key.as_ref().unwrap().0, 20);
        a.add(&string_key("x"), 10);
        assert!(!a.all_dates);
        // Equal value bytes: the smaller key.
        a.add(&string_key("2024-01-02T03:04:05A"), 10);
        assert_eq!(a.max_key.unwrap().1, string_key("2024-01-02T03:04:05A"));
    }
}
