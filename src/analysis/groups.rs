//! Declared groups (workload `transactions`, `unique_keys`, `ordered_by`): for each group and
//! candidate, a hidden key "group, then the candidate's levels" rides along in the one scan; its
//! partitions tell how many logical partitions of the candidate each group's documents fall into.

use crate::advise::boundaries::{findings, measure, GroupSplit};
use crate::advise::Finding;
use crate::keys::spec::{parse_candidate, Candidate, KeyKind};
use crate::stats::CandidateAcc;
use crate::workload::boundaries::Boundary;

/// The groups to measure: the workload's declared ones; without any, the natural groups the
/// automatic search found.
pub fn boundaries(
    cfg: &crate::cli::AnalyzeConfig,
    discovery: Option<&crate::profile::discover::Discovery>,
) -> Vec<Boundary> {
    let declared: Vec<Boundary> = cfg
        .workload
        .as_ref()
        .map(|w| w.boundaries.clone())
        .unwrap_or_default();
    if !declared.is_empty() {
        return declared;
    }
    discovery
        .map(|d| {
            d.natural_groups
                .iter()
                .map(|p| Boundary {
                    kind: crate::workload::boundaries::BoundaryKind::Natural,
                    name: p.clone(),
                    by: vec![p.clone()],
                })
                .collect()
        })
        .unwrap_or_default()
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
            let split: GroupSplit = measure(
                hidden[bi * n + ci]
                    .partitions
                    .keys()
                    .map(|k| -> &[u8] { k.as_ref() }),
            );
            let paths: Vec<String> = c.paths().iter().map(|p| p.text.clone()).collect();
            out[ci].extend(findings(b, &split, &paths));
        }
    }
    out
}
