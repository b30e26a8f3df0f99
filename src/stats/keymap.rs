//! The per-candidate map from encoded key to [`PartitionCounts`], built for millions of keys.
//!
//! - **Radix partitioned.** A key's 64-bit hash (computed once) picks one of [`PARTS`] parts by
//!   bits 32..38; each part is its own hash table. Growing rehashes one small part at a time, and
//!   two maps merge part by part, in parallel, each part staying in cache.
//! - **Keys stored once, in an arena per part.** A table entry is fixed-size (48 bytes: the hash,
//!   the key's place in the arena, the counts), so a probe compares the stored hash first and
//!   touches the key bytes only on a hash match, and no key is a heap allocation of its own.
//!
//! Iteration order depends on the hash and on the order of inserts; everything a report shows is
//! computed after sorting by key ([`crate::stats::summary`]), so it does not.

use hashbrown::HashTable;

use super::PartitionCounts;

/// Number of radix parts (a power of two).
pub const PARTS: usize = 64;
const PART_SHIFT: u32 = 32;

/// Bytes one distinct key costs in a [`KeyMap`] besides its own bytes: the table entry and its
/// control byte, at hashbrown's worst load (half full after a doubling).
pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>() + 1;

#[derive(Debug, Clone, Copy)]
struct Entry {
    hash: u64,
    off: u32,
    len: u32,
    counts: PartitionCounts,
}

#[derive(Debug, Clone, Default)]
struct Part {
    table: HashTable<Entry>,
    arena: Vec<u8>,
}

/// The fixed hash of an encoded key (the same in every run, so memory use is reproducible).
#[inline]
pub fn key_hash(key: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x7063_6164_7669_736f).hash_one(key)
}

#[inline]
fn part_of(hash: u64) -> usize {
    (hash >> PART_SHIFT) as usize & (PARTS - 1)
}

impl Part {
    #[inline]
    fn key(&self, e: &Entry) -> &[u8] {
        &self.arena[e.off as usize..e.off as usize + e.len as usize]
    }

    /// The counts of `key` (hash `hash`), inserted as empty if new.
    #[inline]
    fn slot(&mut self, hash: u64, key: &[u8]) -> &mut PartitionCounts {
        let Part { table, arena } = self;
        let eq = |e: &Entry| {
            e.hash == hash && &arena[e.off as usize..e.off as usize + e.len as usize] == key
        };
        match table.entry(hash, eq, |e| e.hash) {
            hashbrown::hash_table::Entry::Occupied(o) => &mut o.into_mut().counts,
            hashbrown::hash_table::Entry::Vacant(v) => {
                let off = u32::try_from(arena.len()).expect(
                    "one radix part of a key map passed 4 GiB of key bytes (keep --memory-limit below the machine's memory)",
                );
                arena.extend_from_slice(key);
                let e = Entry {
                    hash,
                    off,
                    len: key.len() as u32,
                    counts: PartitionCounts::default(),
                };
                &mut v.insert(e).into_mut().counts
            }
        }
    }

    fn merge(&mut self, mut o: Part) {
        if o.table.len() > self.table.len() {
            std::mem::swap(self, &mut o);
        }
        self.table.reserve(o.table.len(), |e| e.hash);
        for e in o.table.iter() {
            self.slot(e.hash, o.key(e)).merge(&e.counts);
        }
    }

    fn bytes(&self) -> usize {
        self.table.capacity() * ENTRY_BYTES + self.arena.capacity()
    }
}

/// Distinct encoded keys with their counts.
#[derive(Debug, Clone)]
pub struct KeyMap {
    parts: Vec<Part>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            parts: vec![Part::default(); PARTS],
        }
    }
}

impl KeyMap {
    /// The counts of `key`, inserted as empty if new.
    #[inline]
    pub fn slot(&mut self, key: &[u8]) -> &mut PartitionCounts {
        let h = key_hash(key);
        self.parts[part_of(h)].slot(h, key)
    }

    /// The counts of `key`, if present.
    pub fn get(&self, key: &[u8]) -> Option<&PartitionCounts> {
        let h = key_hash(key);
        let p = &self.parts[part_of(h)];
        p.table
            .find(h, |e| e.hash == h && p.key(e) == key)
            .map(|e| &e.counts)
    }

    /// Distinct keys.
    pub fn len(&self) -> usize {
        self.parts.iter().map(|p| p.table.len()).sum()
    }

    /// No key at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held (tables at their capacity, arenas at theirs).
    pub fn memory_bytes(&self) -> usize {
        self.parts.iter().map(Part::bytes).sum()
    }

    /// Every key and its counts, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &PartitionCounts)> + '_ {
        self.parts
            .iter()
            .flat_map(|p| p.table.iter().map(move |e| (p.key(e), &e.counts)))
    }

    /// Adds another map: part by part, in parallel on the caller's rayon pool.
    pub fn merge(&mut self, o: KeyMap) {
        use rayon::prelude::*;
        self.parts
            .par_iter_mut()
            .zip(o.parts.into_par_iter())
            .for_each(|(a, b)| a.merge(b));
    }

    /// Consumes the map part by part (each part's table is freed once visited), handing each key
    /// as a [`KeyRef`] into the returned [`KeyArenas`].
    pub fn drain(self, mut f: impl FnMut(KeyRef, &[u8], PartitionCounts)) -> KeyArenas {
        let mut arenas = Vec::with_capacity(PARTS);
        for (pi, part) in self.parts.into_iter().enumerate() {
            let Part { table, mut arena } = part;
            for e in table {
                let key = &arena[e.off as usize..e.off as usize + e.len as usize];
                let r = KeyRef {
                    head: head(key),
                    off: e.off,
                    len: e.len,
                    part: pi as u32,
                };
                f(r, key, e.counts);
            }
            arena.shrink_to_fit();
            arenas.push(arena);
        }
        KeyArenas { arenas }
    }
}

/// The first eight bytes of a key, big-endian and zero-padded: comparing heads, then the whole
/// keys on a tie, orders keys exactly as comparing the whole keys does.
#[inline]
pub fn head(key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(b)
}

/// Where a key is stored in a [`KeyArenas`], with its first bytes inline for sorting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRef {
    /// [`head`] of the key.
    pub head: u64,
    off: u32,
    len: u32,
    part: u32,
}

/// The key bytes of a drained [`KeyMap`].
#[derive(Debug, Clone, Default)]
pub struct KeyArenas {
    arenas: Vec<Vec<u8>>,
}

impl KeyArenas {
    /// The bytes of a key.
    #[inline]
    pub fn get(&self, r: KeyRef) -> &[u8] {
        &self.arenas[r.part as usize][r.off as usize..r.off as usize + r.len as usize]
    }

    /// Orders two keys as their bytes do.
    #[inline]
    pub fn cmp(&self, a: KeyRef, b: KeyRef) -> std::cmp::Ordering {
        a.head
            .cmp(&b.head)
            .then_with(|| self.get(a).cmp(self.get(b)))
    }

    /// Arenas holding the given keys (for building statistics by hand, in tests and tools).
    pub fn from_keys<'a>(keys: impl IntoIterator<Item = &'a [u8]>) -> (KeyArenas, Vec<KeyRef>) {
        let mut arena = Vec::new();
        let mut refs = Vec::new();
        for k in keys {
            refs.push(KeyRef {
                head: head(k),
                off: arena.len() as u32,
                len: k.len() as u32,
                part: 0,
            });
            arena.extend_from_slice(k);
        }
        (
            KeyArenas {
                arenas: vec![arena],
            },
            refs,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_order_agrees_with_byte_order() {
        let keys: Vec<&[u8]> = vec![
            b"",
            b"\0",
            b"a",
            b"a\0",
            b"a\0\x01",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefgi",
            b"abcdefghz",
            b"\xff",
        ];
        let (arenas, refs) = KeyArenas::from_keys(keys.iter().copied());
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(arenas.cmp(refs[i], refs[j]), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn counts_and_merges_like_a_plain_map() {
        // 20,000 keys of varied length, each added (i % 7) + 1 times, split over two maps
        // in an interleaved order; merged either way round, every count is exact.
        let key = |i: u32| format!("k{i}-{}", "x".repeat((i % 40) as usize)).into_bytes();
        let mut a = KeyMap::default();
        let mut b = KeyMap::default();
        let mut expect = std::collections::HashMap::new();
        for i in 0..20_000u32 {
            for r in 0..=(i % 7) {
                let m = if (i + r) % 3 == 0 { &mut a } else { &mut b };
                let c = m.slot(&key(i));
                c.documents += 1;
                c.minified_bytes += i as u64;
                *expect.entry(key(i)).or_insert(0u64) += 1;
            }
        }
        let mut ab = a.clone();
        ab.merge(b.clone());
        let mut ba = b;
        ba.merge(a);
        for m in [&ab, &ba] {
            assert_eq!(m.len(), 20_000);
            for (k, n) in &expect {
                let c = m.get(k).expect("present");
                assert_eq!(c.documents, *n);
            }
            let total: u64 = m.iter().map(|(_, c)| c.documents).sum();
            assert_eq!(total, expect.values().sum::<u64>());
        }
        assert!(ab.get(b"absent").is_none());
        let mut drained = Vec::new();
        let arenas = ab.drain(|r, k, c| {
            assert_eq!(expect[k], c.documents);
            drained.push((r, k.to_vec()));
        });
        assert_eq!(drained.len(), 20_000);
        for (r, k) in &drained {
            assert_eq!(arenas.get(*r), &k[..], "a drained reference finds its key");
        }
    }
}
