//! The candidates a scan may count without their keys ([`crate::stats::distinct`]), worker by
//! worker:
//!
//! - **Probation.** Each worker counts them with a key map for its first
//!   [`PROBATION_DOCUMENTS`] documents (or all of them, if it gets fewer), then drops their keys
//!   if none repeated ([`crate::stats::CandidateAcc::try_distinct`]). A worker that finds a
//!   repeat tells the others, which then keep their key maps too: a candidate counted one way by
//!   one worker and the other way by another is read again after the scan (`analysis`), so a key
//!   that repeats now and then should be caught by every worker at once.
//! - **The memory budget.** After each block every worker adds what its count would cost in a
//!   key map (128 bytes and the key's bytes a key, `stats::sampling`) to the candidate's total;
//!   past the candidate's budget the key map would have sampled its keys, so the count is given
//!   up on every worker ([`crate::stats::distinct::DistinctAcc::abandon`]) and the candidate is
//!   read again with a key map that samples: the hashes never take more than a sixteenth of the
//!   budget (8 bytes a key of a 128-byte charge).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::stats::Accumulator;

/// Documents a worker counts with key maps before it decides: enough for a key with as many
/// distinct values as 1 in 2 documents over 10 M to show a repeat among them (about
/// 65,536² / 2 / 10 M = 215 expected), few enough that the key map costs nothing (1 % of 10 M).
pub const PROBATION_DOCUMENTS: u64 = 1 << 16;

/// Per candidate of the scan's `distinct` list, shared by the workers: whether it is to be
/// counted with key maps (a repeat seen in a probation, or its keys past the budget), and the
/// key maps' charge of what the workers counted without keys.
pub struct Shared {
    failed: Vec<AtomicBool>,
    charge: Vec<AtomicU64>,
    budget: Option<u64>,
}

impl Shared {
    /// For `n` candidates, each within `budget` (`None`: no limit).
    pub fn new(n: usize, budget: Option<u64>) -> Shared {
        Shared {
            failed: (0..n).map(|_| AtomicBool::new(false)).collect(),
            charge: (0..n).map(|_| AtomicU64::new(0)).collect(),
            budget,
        }
    }
}

/// One worker's side.
pub struct Probation<'a> {
    /// The candidates (indices into the accumulator), in the order of [`Shared`]'s lists.
    candidates: Vec<usize>,
    decided: bool,
    /// The charge this worker has added to each candidate's total so far.
    charged: Vec<u64>,
    shared: &'a Shared,
    keep: usize,
}

impl<'a> Probation<'a> {
    /// The probation of `candidates`, keeping `keep` largest documents' keys each.
    pub fn new(candidates: &[usize], shared: &'a Shared, keep: usize) -> Probation<'a> {
        Probation {
            candidates: candidates.to_vec(),
            decided: candidates.is_empty(),
            charged: vec![0; candidates.len()],
            shared,
            keep,
        }
    }

    /// After a block (`done`: after the worker's last): decides for the candidates on probation
    /// once the worker has counted enough documents, or has no more; then adds what the counts
    /// without keys would cost a key map, giving up those that pass the budget or failed.
    pub fn check(&mut self, acc: &mut Accumulator, done: bool) {
        if !self.decided {
            if !done && acc.records_analyzed < PROBATION_DOCUMENTS {
                return;
            }
            self.decided = true;
            for (slot, &i) in self.candidates.iter().enumerate() {
                let failed = &self.shared.failed[slot];
                if failed.load(Ordering::Relaxed) || !acc.candidates[i].try_distinct(self.keep) {
                    failed.store(true, Ordering::Relaxed);
                }
            }
        }
        for (slot, &i) in self.candidates.iter().enumerate() {
            let Some(d) = acc.candidates[i].distinct.as_mut() else {
                continue;
            };
            if d.abandoned() {
                continue;
            }
            let failed = &self.shared.failed[slot];
            let charge = d.charge();
            let delta = charge - std::mem::replace(&mut self.charged[slot], charge);
            let total = self.shared.charge[slot].fetch_add(delta, Ordering::Relaxed) + delta;
            if self.shared.budget.is_some_and(|b| total > b) {
                failed.store(true, Ordering::Relaxed);
            }
            if failed.load(Ordering::Relaxed) {
                d.abandon();
            }
        }
    }
}
