//! Where a drained key map's keys live: their bytes in one arena per radix part, and a
//! [`KeyRef`] per key (its place and its first sixteen bytes inline, which settle most
//! comparisons of the summaries' sort without reading the arenas).

/// The first sixteen bytes of a key, big-endian and zero-padded: comparing heads, then the whole
/// keys on a tie, orders keys exactly as comparing the whole keys does. (Sixteen, not eight: a
/// hierarchical key's first eight bytes are often all its first level, shared by many keys.)
#[inline]
pub fn head(key: &[u8]) -> [u64; 2] {
    let mut b = [0u8; 16];
    let n = key.len().min(16);
    b[..n].copy_from_slice(&key[..n]);
    let w = |i: usize| u64::from_be_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    // Two words rather than a u128, whose 16-byte alignment would pad every row.
    [w(0), w(8)]
}

/// A [`head`] as one number, ordered as the head.
#[inline]
pub fn head_number(head: [u64; 2]) -> u128 {
    (u128::from(head[0]) << 64) | u128::from(head[1])
}

/// Bits of [`KeyRef::len_part`] that hold the arena: a map's parts, then those of a map merged
/// into it at its last merge ([`super::keymap::KeyMap::drain`]).
const PART_BITS: u32 = 7;
const _: () = assert!(1 << PART_BITS == 2 * super::record::PARTS);
const _: () = assert!(crate::keys::MAX_KEY_BYTES < 1 << (32 - PART_BITS));

/// Where a key is stored in a [`KeyArenas`], with its first bytes inline for sorting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyRef {
    /// [`head`] of the key.
    pub head: [u64; 2],
    off: u32,
    /// The key's length (at most [`crate::keys::MAX_KEY_BYTES`], below 2^25) and its arena.
    len_part: u32,
}

impl KeyRef {
    pub(super) fn new(head: [u64; 2], off: u32, len: u32, part: usize) -> KeyRef {
        debug_assert!(len < 1 << (32 - PART_BITS));
        KeyRef {
            head,
            off,
            len_part: (len << PART_BITS) | part as u32,
        }
    }

    /// The head as one number (ordered as the head).
    #[inline]
    pub fn head128(self) -> u128 {
        head_number(self.head)
    }

    /// The key's length in bytes.
    #[inline]
    pub fn len(self) -> usize {
        (self.len_part >> PART_BITS) as usize
    }

    /// The empty key (a candidate of no components; not produced by a scan).
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn part(self) -> usize {
        (self.len_part & ((1 << PART_BITS) - 1)) as usize
    }
}

/// The key bytes of a drained [`KeyMap`](super::keymap::KeyMap), one arena per radix part.
#[derive(Debug, Clone, Default)]
pub struct KeyArenas {
    arenas: Vec<Vec<u8>>,
    /// Whether each part's records carry first and last times.
    timed: Vec<bool>,
    /// The counts of the keys whose rows' 4-byte words cannot hold them (the summaries' wide
    /// rows: a key with 4 GiB of documents in the sample; a few at most).
    wide: hashbrown::HashMap<KeyRef, super::SampleCounts>,
}

impl KeyArenas {
    /// The byte ranges `(start, end)` of the arenas' allocations (for
    /// [`super::memory::discard`] before they are freed).
    pub(super) fn allocations(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.arenas.iter().map(|a| {
            let start = a.as_ptr() as usize;
            (start, start + a.capacity())
        })
    }

    /// Arenas of a drained map, by part, with whether each part's records carry times.
    pub(super) fn new(arenas: Vec<Vec<u8>>, timed: Vec<bool>) -> KeyArenas {
        debug_assert_eq!(arenas.len(), timed.len());
        KeyArenas {
            arenas,
            timed,
            wide: hashbrown::HashMap::new(),
        }
    }

    /// The counts stored for `r`'s key by [`KeyArenas::set_wide_counts`].
    ///
    /// # Panics
    ///
    /// If none were: a wide row read with arenas other than its own.
    #[cold]
    pub fn wide_counts(&self, r: KeyRef) -> super::SampleCounts {
        *self
            .wide
            .get(&r)
            .expect("a wide row's counts stored with its key")
    }

    /// Stores the counts of `r`'s key, whose row cannot hold them.
    pub fn set_wide_counts(&mut self, r: KeyRef, c: super::SampleCounts) {
        self.wide.insert(r, c);
    }

    /// The first and last time of the record holding `r`'s key, when its part carries times
    /// and the key saw one ([`super::PartitionCounts::time_range`]).
    pub fn time_range(&self, r: KeyRef) -> Option<(i64, i64)> {
        if !self.timed.get(r.part()).copied().unwrap_or(false) {
            return None;
        }
        let at = r.off as usize - super::record::TIMED_KEY_OFFSET;
        let word = |i: usize| {
            i64::from_ne_bytes(self.arenas[r.part()][i..i + 8].try_into().expect("8 bytes"))
        };
        let (first, last) = (word(at), word(at + 8));
        (first <= last).then_some((first, last))
    }

    /// Merges the first and last time of the record holding `from`'s key into that holding
    /// `into`'s (two records of one key in the arenas of one part, so both or neither timed).
    pub(super) fn merge_times(&mut self, into: KeyRef, from: KeyRef) {
        let (pi, pf) = (into.part(), from.part());
        if !self.timed[pi] || !self.timed[pf] {
            debug_assert!(
                !self.timed[pi] && !self.timed[pf],
                "one of two records timed"
            );
            return;
        }
        let (ai, af) = (
            into.off as usize - super::record::TIMED_KEY_OFFSET,
            from.off as usize - super::record::TIMED_KEY_OFFSET,
        );
        let word =
            |a: &[u8], i: usize| i64::from_ne_bytes(a[i..i + 8].try_into().expect("8 bytes"));
        let (first, last) = (word(&self.arenas[pf], af), word(&self.arenas[pf], af + 8));
        let a = &mut self.arenas[pi];
        let (f0, l0) = (word(a, ai), word(a, ai + 8));
        a[ai..ai + 8].copy_from_slice(&f0.min(first).to_ne_bytes());
        a[ai + 8..ai + 16].copy_from_slice(&l0.max(last).to_ne_bytes());
    }

    /// The bytes of a key.
    #[inline]
    pub fn get(&self, r: KeyRef) -> &[u8] {
        &self.arenas[r.part()][r.off as usize..r.off as usize + r.len()]
    }

    /// Orders two keys as their bytes do.
    #[inline]
    pub fn cmp(&self, a: KeyRef, b: KeyRef) -> std::cmp::Ordering {
        // One 128-bit comparison settles all but ties of the first 16 bytes.
        let (x, y) = (a.head128(), b.head128());
        if x != y {
            x.cmp(&y)
        } else {
            self.get(a).cmp(self.get(b))
        }
    }

    /// Arenas holding the given keys, in one arena in the order given (the kept keys of a
    /// count without keys, `summary::distinct`; statistics built by hand in tests and tools).
    pub fn from_keys<'a>(keys: impl IntoIterator<Item = &'a [u8]>) -> (KeyArenas, Vec<KeyRef>) {
        let mut arena = Vec::new();
        let mut refs = Vec::new();
        for k in keys {
            refs.push(KeyRef::new(head(k), arena.len() as u32, k.len() as u32, 0));
            arena.extend_from_slice(k);
        }
        (
            KeyArenas {
                arenas: vec![arena],
                timed: vec![false],
                wide: hashbrown::HashMap::new(),
            },
            refs,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_stay_small() {
        // The summaries sort millions of rows: a 16-byte-aligned head would pad each to 48, and
        // projected values stored in them would add 16 (`RowScale` computes them).
        assert_eq!(std::mem::size_of::<KeyRef>(), 24);
        assert_eq!(
            std::mem::size_of::<crate::stats::summary::PartitionRow>(),
            32
        );
    }

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
            b"0123456789abcdef",
            b"0123456789abcdef\0",
            b"0123456789abcdeg",
            b"0123456789abcdefz",
            b"0123456789abcde",
            b"\xff",
        ];
        let (arenas, refs) = KeyArenas::from_keys(keys.iter().copied());
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(arenas.cmp(refs[i], refs[j]), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }
}
