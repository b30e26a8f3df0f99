//! The first step of the sort for keys whose heads waste their bytes on what every key shares
//! (issue #28): `tenant-00002540>user-000035393` spends 12 of its 16 head bytes on
//! `\x08tenant-0000`, a URL all 16 on `https://api.exa`. Sorting by those heads settles
//! nothing, and each later window reads the keys again at random.
//!
//! Here one pass over the keys, in their storage order (a sequential read), finds the positions
//! at which every key holds the same byte; each row's head is then replaced by its key's bytes
//! at the first 16 other positions (the tenant's digits, the user's, the item's), the rows are
//! sorted by those as integers on both cores ([`super::radix`]), and the heads put back, computed
//! from the new head and the shared bytes (no key read). The order is the keys' byte order:
//! dropping positions at which every key holds the same byte (all below the shortest key's
//! length) changes no comparison, so keys compare as their squeezed forms do; and the squeezed
//! head, zero-padded, with how many of its 16 positions the key has, orders the squeezed forms
//! as a key's head and length do (`super` explains that one). Rows of equal squeezed heads that
//! fill all 16 positions share every byte up to the 16th position kept, and go on to
//! [`super::refine`] from there.

use rayon::prelude::*;

use super::{radix, refine_runs, Runs, PARALLEL_RUN};
use crate::stats::keymap::{head, head_number, KeyArenas};
use crate::stats::summary::PartitionRow;

/// How many leading positions are checked for a shared byte (later ones count as differing,
/// which is always safe: a position kept that every key shares orders nothing, wrongly or not).
const SPAN: usize = 128;
/// At least this many of the first 16 positions shared by every key, or the heads are left as
/// they are (UUIDs share 3: their type marker and two `-`).
const MIN_SHARED: usize = 4;
/// Rows of a sample of about this many whose heads are checked for repeats.
const SAMPLE: usize = 1024;

/// Which positions the keys agree on, and where the squeezed head takes its bytes.
#[derive(Debug)]
pub(super) struct Squeeze {
    /// The first 16 (or fewer) positions at which some key differs from another, or which some
    /// key is too short to have, ascending.
    kept: Vec<usize>,
    /// For each of the first 16 positions: `Ok(byte)` every key holds there, or `Err(i)`:
    /// `kept[i]` is that position.
    source: [Result<u8, usize>; 16],
    /// How many of `kept` a key of each length has (lengths past the table: all of them).
    widths: Vec<u8>,
}

/// What keys seen so far share with a first key: the shortest and longest length, and the bits
/// in which any key differs from the first at each of the first [`SPAN`] positions.
#[derive(Debug, Clone, Copy)]
struct Agreement {
    shortest: usize,
    longest: usize,
    differ: [u8; SPAN],
}

impl Agreement {
    const NONE: Agreement = Agreement {
        shortest: usize::MAX,
        longest: 0,
        differ: [0; SPAN],
    };

    /// Notes `key` (`first`: the first key's first [`SPAN`] bytes, zero-padded). The key is
    /// compared whole-span, zero-padded too (a loop the compiler vectorises; a byte loop over
    /// the shorter length was a third of the sort's time): a position past either key's end
    /// may count as differing, which is past the shortest key, where nothing counts as shared.
    #[inline]
    fn add(mut self, key: &[u8], first: &[u8; SPAN]) -> Agreement {
        self.shortest = self.shortest.min(key.len());
        self.longest = self.longest.max(key.len());
        let mut k = [0u8; SPAN];
        let n = key.len().min(SPAN);
        k[..n].copy_from_slice(&key[..n]);
        for ((d, a), b) in self.differ.iter_mut().zip(k).zip(first) {
            *d |= a ^ b;
        }
        self
    }

    fn merge(mut self, o: Agreement) -> Agreement {
        self.shortest = self.shortest.min(o.shortest);
        self.longest = self.longest.max(o.longest);
        for (d, e) in self.differ.iter_mut().zip(o.differ) {
            *d |= e;
        }
        self
    }

    /// Whether every key holds the first key's byte at `j`.
    #[inline]
    fn shared(&self, j: usize) -> bool {
        j < self.shortest.min(SPAN) && self.differ[j] == 0
    }

    fn shared_in_head(&self) -> usize {
        (0..16).filter(|&j| self.shared(j)).count()
    }
}

impl Squeeze {
    /// The squeeze of `rows`' keys (in storage order, as the drain wrote them), when it is worth
    /// a pass over them: a parallel run's worth of rows, heads repeated in a sample of them (else
    /// the heads settle nearly every comparison alone), and at least [`MIN_SHARED`] of the first
    /// 16 positions shared by every key (checked on the sample, then on every key).
    pub(super) fn of(rows: &[PartitionRow], arenas: &KeyArenas) -> Option<Squeeze> {
        if rows.len() < PARALLEL_RUN {
            return None;
        }
        let sample = || rows.iter().step_by(rows.len() / SAMPLE + 1);
        let mut heads: Vec<u128> = sample().map(|p| p.key.head128()).collect();
        let n = heads.len();
        heads.sort_unstable();
        heads.dedup();
        if heads.len() == n {
            return None;
        }
        let first = arenas.get(rows[0].key);
        let mut padded = [0u8; SPAN];
        let n = first.len().min(SPAN);
        padded[..n].copy_from_slice(&first[..n]);
        let some = sample().fold(Agreement::NONE, |a, p| a.add(arenas.get(p.key), &padded));
        if some.shared_in_head() < MIN_SHARED {
            return None;
        }
        let all = rows
            .par_iter()
            .fold(|| Agreement::NONE, |a, p| a.add(arenas.get(p.key), &padded))
            .reduce(|| Agreement::NONE, Agreement::merge);
        crate::timing::mark("summary: squeeze found");
        (all.shared_in_head() >= MIN_SHARED).then(|| Squeeze::new(&all, first))
    }

    fn new(a: &Agreement, first: &[u8]) -> Squeeze {
        let kept: Vec<usize> = (0..a.longest).filter(|&j| !a.shared(j)).take(16).collect();
        let mut source = [Ok(0); 16];
        let mut k = 0;
        for (j, s) in source.iter_mut().enumerate() {
            *s = if a.shared(j) {
                Ok(first[j])
            } else {
                k += 1;
                Err(k - 1)
            };
        }
        let past = kept.last().map_or(0, |&j| j + 1);
        let widths = (0..=past)
            .map(|len| kept.iter().take_while(|&&j| j < len).count() as u8)
            .collect();
        Squeeze {
            kept,
            source,
            widths,
        }
    }

    /// The positions the squeezed head takes its bytes from.
    #[cfg(test)]
    pub(super) fn kept_positions(&self) -> &[usize] {
        &self.kept
    }

    /// How many of the kept positions a key of `len` bytes has.
    #[inline]
    fn width(&self, len: usize) -> u8 {
        self.widths
            .get(len)
            .copied()
            .unwrap_or(self.kept.len() as u8)
    }

    /// The key's bytes at the kept positions, zero-padded, as a head.
    #[inline]
    fn squeezed(&self, key: &[u8]) -> [u64; 2] {
        let mut b = [0u8; 16];
        for (x, &j) in b.iter_mut().zip(&self.kept) {
            if let Some(&y) = key.get(j) {
                *x = y;
            }
        }
        head(&b)
    }

    /// The [`head`] of a key of `len` bytes whose squeezed head is `squeezed`.
    #[inline]
    fn unsqueezed(&self, squeezed: [u64; 2], len: usize) -> [u64; 2] {
        let s = head_number(squeezed).to_be_bytes();
        let mut b = [0u8; 16];
        for (x, src) in b.iter_mut().zip(&self.source).take(len) {
            *x = match *src {
                Ok(shared) => shared,
                Err(i) => s[i],
            };
        }
        head(&b)
    }

    /// Sorts the rows (in storage order) by key; returns the runs of rows of equal keys.
    pub(super) fn sort(&self, rows: &mut [PartitionRow], arenas: &KeyArenas) -> Vec<usize> {
        rows.par_iter_mut()
            .for_each(|p| p.key.head = self.squeezed(arenas.get(p.key)));
        let key = |p: &PartitionRow| (p.key.head128(), self.width(p.key.len()));
        let runs = radix::Order::new(&|p: &PartitionRow| p.key.head128(), &key, &|_: &(
            u128,
            u8,
        )| true)
        .sort(rows);
        crate::timing::mark("summary: squeezed sorted");
        rows.par_iter_mut()
            .for_each(|p| p.key.head = self.unsqueezed(p.key.head, p.key.len()));
        debug_assert!(rows.iter().all(|p| p.key.head == head(arenas.get(p.key))));
        let Runs { mut equal, go_on } = Runs::split(runs, |r| self.width(rows[r].key.len()) == 16);
        if let Some(&last) = self.kept.get(15) {
            equal.extend(refine_runs(rows, &go_on, arenas, last + 1, true));
        }
        equal
    }
}
