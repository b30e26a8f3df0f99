//! Declared groups (workload `transactions`, `unique_keys`, `ordered_by`): for each group and
//! candidate, a hidden key "group, then the candidate's levels" rides along in the one scan; its
//! partitions tell how many logical partitions of the candidate each group's documents fall into.

use crate::advise::boundaries::{findings, measure, project_groups, GroupSplit};
use crate::estimate::{SampleRelation, Target};
use crate::keys::spec::{parse_candidate, Candidate, KeyKind};
use crate::model::Finding;
use crate::stats::CandidateAcc;
use crate::workload::boundaries::Boundary;

/// The groups the workload declares (transactions, unique keys, ordering), measured in the scan.
pub fn boundaries(cfg: &crate::analysis::AnalyzeOptions) -> Vec<Boundary> {
    cfg.workload
        .as_ref()
        .map(|w| w.boundaries.clone())
        .unwrap_or_default()
}

/// Documents the natural groups are measured on: the first of the input, as a sample fact.
pub const NATURAL_GROUP_DOCUMENTS: u64 = 100_000;

/// The natural groups the automatic search found (without declared groups), measured on the first
/// [`NATURAL_GROUP_DOCUMENTS`] documents rather than in the scan: they are INFO, and one hidden key
/// per group and candidate over the whole input would cost more than the analysis itself.
pub fn natural_findings(
    cfg: &crate::analysis::AnalyzeOptions,
    inputs: &[crate::ingest::InputSource],
    natural: &[String],
) -> Vec<Vec<Finding>> {
    let n = cfg.candidates.len();
    if natural.is_empty() || !boundaries(cfg).is_empty() {
        return vec![Vec::new(); n];
    }
    let groups: Vec<Boundary> = natural
        .iter()
        .map(|p| Boundary {
            kind: crate::workload::boundaries::BoundaryKind::Natural,
            name: p.clone(),
            by: vec![p.clone()],
        })
        .collect();
    let hidden = hidden_candidates(&groups, &cfg.candidates);
    let plan = crate::keys::KeyPlan::new(&hidden, &cfg.separator);
    // The sets are split among the pool's threads, each reading the first documents for its
    // own sets (parsing them again is cheaper than the keys' table work it shares out).
    use rayon::prelude::*;
    let chunks = rayon::current_num_threads().clamp(1, hidden.len().max(1));
    let per = hidden.len().div_ceil(chunks);
    let measured: Vec<Vec<GroupSplit>> = (0..chunks)
        .into_par_iter()
        .map(|k| {
            let mine = k * per..((k + 1) * per).min(hidden.len());
            let mut sets: Vec<KeySet> = mine.clone().map(|_| KeySet::default()).collect();
            let mut seen = 0u64;
            let mut buf = Vec::new();
            let mut shapes = crate::keys::extract::Shapes::default();
            crate::ingest::peek::for_each_record(inputs, cfg.csv_strings, |rec| {
                let mut values = Vec::new();
                if shapes.scan_document(rec, &plan.trie, &mut values).is_ok() {
                    seen += 1;
                    for (i, set) in mine.clone().zip(sets.iter_mut()) {
                        if plan.build_key(i, &values, &mut buf).is_ok() {
                            set.insert(&buf);
                        }
                    }
                }
                seen < NATURAL_GROUP_DOCUMENTS
            });
            sets.iter()
                .map(|set| GroupSplit {
                    documents_seen: Some(seen),
                    ..measure(set.keys().map(|k| (k, 1)))
                })
                .collect()
        })
        .collect();
    let splits: Vec<GroupSplit> = measured.into_iter().flatten().collect();
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); n];
    for (bi, b) in groups.iter().enumerate() {
        for (ci, c) in cfg.candidates.iter().enumerate() {
            out[ci].extend(findings(b, &splits[bi * n + ci], c, None));
        }
    }
    out
}

/// Distinct keys in one arena, indexed by a table of (hash, offset, length) (no allocation per key:
/// a set per group and candidate over 100,000 documents held millions of small vectors).
#[derive(Default)]
struct KeySet {
    bytes: Vec<u8>,
    /// Each key's hash, where its bytes start and their length: the hash kept, so growing the
    /// table reads it rather than hashing every key again, and a probe compares bytes only
    /// where the whole hash matches.
    table: hashbrown::HashTable<(u64, u32, u32)>,
}

impl KeySet {
    fn hash(key: &[u8]) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::with_seed(0).hash_one(key)
    }

    fn get(bytes: &[u8], at: u32, len: u32) -> &[u8] {
        &bytes[at as usize..at as usize + len as usize]
    }

    fn insert(&mut self, key: &[u8]) {
        let h = Self::hash(key);
        let bytes = &self.bytes;
        let found = (self.table).find(h, |&(hh, at, len)| {
            hh == h && Self::get(bytes, at, len) == key
        });
        if found.is_none() {
            let r = (h, self.bytes.len() as u32, key.len() as u32);
            self.bytes.extend_from_slice(key);
            self.table.insert_unique(h, r, |&(hh, _, _)| hh);
        }
    }

    fn keys(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (self.table.iter()).map(|&(_, at, len)| Self::get(&self.bytes, at, len))
    }
}

/// The hidden candidates, boundary-major: index `b * candidates.len() + c`.
pub fn hidden_candidates(boundaries: &[Boundary], candidates: &[Candidate]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for b in boundaries {
        let Ok(group) = parse_candidate(&b.group_spec()) else {
            continue;
        };
        for c in candidates {
            let mut levels = group.levels.clone();
            levels.extend(c.levels.iter().cloned());
            out.push(Candidate {
                spec: format!("{}>{}", b.group_spec(), c.spec),
                kind: KeyKind::Hierarchical,
                levels,
            });
        }
    }
    out
}

/// Per candidate, the findings of every boundary, from the hidden candidates' partitions;
/// production's groups are projected from the sample's sizes to `target` (the sample holds
/// `sample_documents`), each group keeping its size when the sample is a declared slice of it.
pub fn group_findings(
    boundaries: &[Boundary],
    candidates: &[Candidate],
    hidden: &[CandidateAcc],
    (target, sample_documents, sample): (&Target, f64, &SampleRelation),
) -> Vec<Vec<Finding>> {
    let n = candidates.len();
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); n];
    if hidden.len() != boundaries.len() * n {
        return out; // a group spec that did not parse: nothing was measured
    }
    for (bi, b) in boundaries.iter().enumerate() {
        let sliced = parse_candidate(&b.group_spec()).is_ok_and(|g| sample.slices(&g));
        // The group sizes are the same under every candidate: projected once.
        let mut production = None;
        for (ci, c) in candidates.iter().enumerate() {
            let parts = hidden[bi * n + ci].partitions.iter();
            let split: GroupSplit = measure(parts.map(|(k, p)| (k, p.documents)));
            let p = production
                .get_or_insert_with(|| project_groups(&split, target, sample_documents, sliced));
            out[ci].extend(findings(b, &split, c, Some(p)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::KeySet;

    #[test]
    fn a_key_set_holds_each_key_once() {
        // 3,000 insertions of 1,000 keys: the empty key, runs of `k` that are prefixes of one
        // another, numbers. Each is held once, with its own bytes.
        let key = |i: u32| match i % 3 {
            0 => "k".repeat((i / 3 % 40) as usize),
            _ => format!("n{}", i % 1_000),
        };
        let mut s = KeySet::default();
        for i in 0..3_000u32 {
            s.insert(key(i).as_bytes());
        }
        let mut got: Vec<Vec<u8>> = s.keys().map(<[u8]>::to_vec).collect();
        got.sort();
        let mut want: Vec<Vec<u8>> = (0..3_000u32).map(|i| key(i).into_bytes()).collect();
        want.sort();
        want.dedup();
        assert_eq!(want.len(), 40 + 1_000);
        assert_eq!(got, want);
    }
}
