//! Under `--sample slice:/entity`, the keys that are not the entity: for each such candidate a
//! hidden key "the candidate's levels, then the entity" rides along in the one scan; its
//! partitions tell how many of the slice's entities hold each value, which is what the slice
//! samples uniformly ([`crate::estimate::cluster`]).

use crate::estimate::cluster::{self, ClusterSizes, ClusteredKey};
use crate::estimate::{SampleRelation, Target};
use crate::keys::spec::{Candidate, KeyKind, Level, Part};
use crate::stats::{Accumulator, CandidateAcc};

/// The hidden candidates, with the index of the candidate each stands for: one per candidate
/// the declared slice does not cover and whose partitions are not one item each (those are
/// one document however they cluster).
pub(super) fn hidden_candidates(cfg: &super::AnalyzeOptions) -> Vec<(usize, Candidate)> {
    let SampleRelation::SliceOf(paths) = &cfg.sample else {
        return Vec::new();
    };
    let Some(entity) = paths.first() else {
        return Vec::new();
    };
    if cfg.projection.is_none() {
        return Vec::new();
    }
    let level = Level {
        parts: vec![Part::Path(entity.clone())],
    };
    (cfg.candidates.iter().enumerate())
        .filter(|(_, c)| !cfg.sample.slices(c) && !crate::estimate::one_item_per_partition(c))
        .map(|(i, c)| {
            let mut levels = c.levels.clone();
            levels.push(level.clone());
            let hidden = Candidate {
                spec: format!("{}>{}", c.spec, entity.text),
                kind: KeyKind::Hierarchical,
                levels,
            };
            (i, hidden)
        })
        .collect()
}

/// Per candidate, its largest partition projected on the entities holding each value (`None`
/// for candidates without a hidden key).
pub(super) fn measure(
    cfg: &super::AnalyzeOptions,
    hidden: &[(usize, Candidate)],
    accs: &[CandidateAcc],
    acc: &Accumulator,
    target: &Target,
) -> Vec<Option<ClusterSizes>> {
    let mut out = vec![None; cfg.candidates.len()];
    let n = acc.records_analyzed as f64;
    let growth = target.documents / n.max(1.0);
    let overhead = cfg.limits.item_overhead_bytes;
    for ((i, _), a) in hidden.iter().zip(accs) {
        let levels = cfg.candidates[*i].levels.len();
        let mut per_key: hashbrown::HashMap<&[u8], (u64, u64, u64)> = Default::default();
        let mut entities: hashbrown::HashSet<&[u8]> = Default::default();
        for (k, p) in a.partitions.iter() {
            let cut = crate::keys::prefix_len(k, levels);
            let e = per_key.entry(&k[..cut]).or_default();
            e.0 += 1;
            e.1 += p.documents;
            e.2 += p.minified_bytes;
            entities.insert(&k[cut..]);
        }
        let keys: Vec<ClusteredKey> = per_key
            .into_iter()
            .map(|(k, (e, docs, bytes))| ClusteredKey {
                key: crate::keys::key_display(k),
                entities: e,
                documents: docs,
                bytes: bytes as f64 + overhead * docs as f64,
            })
            .collect();
        out[*i] = cluster::project(&keys, entities.len() as u64, growth);
    }
    out
}
