//! The probation of the candidates a scan may count without their keys
//! ([`crate::stats::distinct`]): each worker counts them with a key map for its first
//! [`PROBATION_DOCUMENTS`] documents (or all of them, if it gets fewer), then drops their keys
//! if none repeated ([`crate::stats::CandidateAcc::try_distinct`]). A worker that finds a
//! repeat tells the others, which then keep their key maps too: a candidate counted one way by
//! one worker and the other way by another is scanned again after the scan (`analysis`), so a
//! key that repeats now and then should be caught by every worker at once.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::stats::Accumulator;

/// Documents a worker counts with key maps before it decides: enough for a key with as many
/// distinct values as 1 in 2 documents over 10 M to show a repeat among them (about
/// 65,536² / 2 / 10 M = 215 expected), few enough that the key map costs nothing (1 % of 10 M).
pub const PROBATION_DOCUMENTS: u64 = 1 << 16;

/// Per candidate of the scan's `distinct` list: whether a worker found one of its keys repeated.
pub struct Repeats(Vec<AtomicBool>);

impl Repeats {
    /// For `n` candidates on probation.
    pub fn new(n: usize) -> Repeats {
        Repeats((0..n).map(|_| AtomicBool::new(false)).collect())
    }
}

/// One worker's probation.
pub struct Probation<'a> {
    /// The candidates (indices into the accumulator) still on probation here.
    pending: Vec<usize>,
    /// Their places in the scan's list ([`Repeats`]).
    slots: Vec<usize>,
    repeats: &'a Repeats,
    keep: usize,
}

impl<'a> Probation<'a> {
    /// The probation of `candidates`, keeping `keep` largest documents' keys each.
    pub fn new(candidates: &[usize], repeats: &'a Repeats, keep: usize) -> Probation<'a> {
        Probation {
            pending: candidates.to_vec(),
            slots: (0..candidates.len()).collect(),
            repeats,
            keep,
        }
    }

    /// After a block (`done`: after the worker's last): decides for every candidate still on
    /// probation once the worker has counted enough documents, or has no more.
    pub fn check(&mut self, acc: &mut Accumulator, done: bool) {
        if self.pending.is_empty() || (!done && acc.records_analyzed < PROBATION_DOCUMENTS) {
            return;
        }
        for (&i, &slot) in self.pending.iter().zip(&self.slots) {
            let flag = &self.repeats.0[slot];
            if flag.load(Ordering::Relaxed) || !acc.candidates[i].try_distinct(self.keep) {
                flag.store(true, Ordering::Relaxed);
            }
        }
        self.pending.clear();
    }
}
