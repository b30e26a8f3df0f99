//! The record format the key map ([`super::keymap`]), its arenas ([`super::arenas`]) and its
//! sampling ([`super::sampling`]) share: the radix part count, the fixed key hash and the layout
//! of a record's header. Its own file so that none of the three imports another for it.

/// Number of radix parts (a power of two).
pub const PARTS: usize = 64;

/// A record's counts in a wide part: documents and minified bytes (two 8-byte words).
pub(super) const COUNTS: usize = 16;
/// A record's counts in a narrow part (every part until a key's counts pass `u32::MAX`):
/// documents and minified bytes (two 4-byte words).
pub(super) const NARROW_COUNTS: usize = 8;
/// A timed record's first and last time (two more words): only in parts that have seen a time.
pub(super) const TIMES: usize = 16;

/// How far before a timed record's key bytes its first time is (then its last time, then the
/// key's length): what [`super::arenas::KeyArenas::time_range`] reads.
pub(super) const TIMED_KEY_OFFSET: usize = TIMES + 4;

/// The fixed hash of an encoded key (the same in every run, so memory use is reproducible).
#[inline]
pub fn key_hash(key: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x7063_6164_7669_736f).hash_one(key)
}
