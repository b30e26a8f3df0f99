//! Declared groups (workload `transactions`, `unique_keys`, `ordered_by`): for each group and
//! candidate, a hidden key "group, then the candidate's levels" rides along in the one scan; its
//! partitions tell how many logical partitions of the candidate each group's documents fall into.

use crate::advise::boundaries::{findings, measure, GroupSplit};
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
    let mut sets: Vec<std::collections::HashSet<Vec<u8>>> = vec![Default::default(); hidden.len()];
    let mut seen = 0u64;
    let mut buf = Vec::new();
    crate::ingest::peek::for_each_record(inputs, cfg.csv_strings, |rec| {
        let mut values = Vec::new();
        if crate::keys::extract::scan_document(rec, &plan.trie, &mut values).is_ok() {
            seen += 1;
            for (i, set) in sets.iter_mut().enumerate() {
                if plan.build_key(i, &values, &mut buf).is_ok() && !set.contains(&buf) {
                    set.insert(buf.clone());
                }
            }
        }
        seen < NATURAL_GROUP_DOCUMENTS
    });
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); n];
    for (bi, b) in groups.iter().enumerate() {
        for (ci, c) in cfg.candidates.iter().enumerate() {
            let mut split = measure(sets[bi * n + ci].iter().map(|k| k.as_slice()));
            split.documents_seen = Some(seen);
            let paths: Vec<String> = c.paths().iter().map(|p| p.text.clone()).collect();
            out[ci].extend(findings(b, &split, &paths));
        }
    }
    out
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

/// Per candidate, the findings of every boundary, from the hidden candidates' partitions.
pub fn group_findings(
    boundaries: &[Boundary],
    candidates: &[Candidate],
    hidden: &[CandidateAcc],
) -> Vec<Vec<Finding>> {
    let n = candidates.len();
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); n];
    if hidden.len() != boundaries.len() * n {
        return out; // a group spec that did not parse: nothing was measured
    }
    for (bi, b) in boundaries.iter().enumerate() {
        for (ci, c) in candidates.iter().enumerate() {
            let split: GroupSplit = measure(hidden[bi * n + ci].partitions.iter().map(|(k, _)| k));
            let paths: Vec<String> = c.paths().iter().map(|p| p.text.clone()).collect();
            out[ci].extend(findings(b, &split, &paths));
        }
    }
    out
}
