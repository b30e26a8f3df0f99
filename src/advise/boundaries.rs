//! Whether a candidate keeps each declared group (a transaction, a unique key, an ordering
//! scope) inside one logical partition, measured on the sample.

use serde_json::json;

use crate::keys::{key_shape, prefix_len};
use crate::model::{Finding, Severity};
use crate::workload::boundaries::{Boundary, BoundaryKind};

/// How a candidate splits the groups of one boundary in the sample.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GroupSplit {
    /// Groups seen (documents without the group's properties belong to none).
    pub groups: u64,
    /// Groups whose documents fall into more than one logical partition.
    pub split: u64,
    /// The first split group (smallest encoded key), as text.
    pub example: Option<String>,
    /// Largest number of logical partitions one group spans.
    pub max_partitions: u64,
    /// When measured on the first documents only, how many (`None`: the whole sample).
    pub documents_seen: Option<u64>,
}

/// Measures group splits from the encoded keys of the hidden candidate "group level, then the
/// candidate's levels": the first component is the group, the rest the candidate's key.
pub fn measure<'a>(keys: impl Iterator<Item = &'a [u8]>) -> GroupSplit {
    // Only counts and a minimum are taken from the map, so its order (and hasher) is free.
    let mut per_group: hashbrown::HashMap<&[u8], u64> = Default::default();
    for k in keys {
        let cut = prefix_len(k, 1);
        let group = &k[..cut];
        let shape = key_shape(group);
        if shape.undefined || shape.null {
            continue;
        }
        *per_group.entry(group).or_default() += 1;
    }
    let mut out = GroupSplit {
        groups: per_group.len() as u64,
        ..GroupSplit::default()
    };
    let mut first: Option<&[u8]> = None;
    for (g, n) in &per_group {
        out.max_partitions = out.max_partitions.max(*n);
        if *n > 1 {
            out.split += 1;
            if first.is_none_or(|f| *g < f) {
                first = Some(g);
            }
        }
    }
    out.example = first.map(crate::keys::key_display);
    out
}

/// The finding for a boundary: FAIL when any group is split, INFO when every group stays
/// together (a plus worth saying), plus an INFO for unique keys the candidate cannot enforce
/// across the container.
pub fn findings(b: &Boundary, s: &GroupSplit, candidate_paths: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let evidence = json!({
        "boundary": b.kind.as_str(), "name": b.name, "by": b.by,
        "groups": s.groups, "split": s.split, "max_partitions": s.max_partitions,
    });
    if !b.kind.declared() {
        let scope = match s.documents_seen {
            Some(n) => format!("in the first {} documents", crate::fmt::count(n as f64)),
            None => "in the sample".to_owned(),
        };
        if s.groups > 0 {
            let (code, what) = if s.split == 0 {
                ("NATURAL_GROUP_KEPT", format!("keeps each of the {} {} groups {scope} in one logical partition: a plus, reads of a whole group and transactional batches over it stay single-partition operations", s.groups, b.name))
            } else {
                ("NATURAL_GROUP_SPLIT", format!("splits {} of the {} {} groups {scope} over several logical partitions (up to {}): {}", s.split, s.groups, b.name, s.max_partitions, b.kind.consequence()))
            };
            out.push(Finding::new(code, Severity::Info, what, evidence));
        }
        return out;
    }
    if s.split > 0 {
        out.push(Finding::new(
            "TRANSACTION_GROUP_SPLIT",
            Severity::Fail,
            format!(
                "{} `{}` (by {}): {} of {} groups in the sample span several logical partitions (up to {}; first: `{}`): {}",
                b.kind.as_str(),
                b.name,
                b.by.join(", "),
                s.split,
                s.groups,
                s.max_partitions,
                s.example.clone().unwrap_or_default(),
                b.kind.consequence()
            ),
            evidence,
        ));
    } else if s.groups > 0 {
        out.push(Finding::new(
            "GROUP_KEPT_TOGETHER",
            Severity::Info,
            format!(
                "{} `{}` (by {}): every one of the {} groups in the sample stays in one logical partition",
                b.kind.as_str(),
                b.name,
                b.by.join(", "),
                s.groups
            ),
            evidence,
        ));
    }
    if b.kind == BoundaryKind::UniqueKey && !candidate_paths.iter().all(|p| b.by.contains(p)) {
        out.push(Finding::new(
            "UNIQUE_KEY_PER_PARTITION",
            Severity::Info,
            format!(
                "unique key ({}) is enforced per logical partition: with this key, two items with the same {} under different partition key values are both accepted (unique-keys)",
                b.by.join(", "),
                b.by.join(", ")
            ),
            json!({"by": b.by}),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::spec::parse_candidate;
    use crate::keys::KeyPlan;

    fn encoded(spec: &str, docs: &[serde_json::Value]) -> Vec<Vec<u8>> {
        let c = parse_candidate(spec).unwrap();
        let plan = KeyPlan::new(&[c], "-");
        let mut keys: Vec<Vec<u8>> = docs
            .iter()
            .map(|d| {
                let text = d.to_string();
                let mut values = Vec::new();
                crate::keys::extract::scan_document(text.as_bytes(), &plan.trie, &mut values)
                    .unwrap();
                let mut out = Vec::new();
                plan.build_key(0, &values, &mut out).unwrap();
                out
            })
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }

    #[test]
    fn orders_split_by_line_keys_are_counted() {
        // Orders o1 (3 lines), o2 (1 line), o3 (2 lines); the line id splits o1 and o3.
        let docs: Vec<serde_json::Value> = [
            ("o1", "a"),
            ("o1", "b"),
            ("o1", "c"),
            ("o2", "d"),
            ("o3", "e"),
            ("o3", "f"),
        ]
        .iter()
        .map(|(o, l)| serde_json::json!({"orderId": o, "id": l, "customer": "c1"}))
        .collect();
        let by_line = encoded("/orderId>/id", &docs);
        let s = measure(by_line.iter().map(|k| k.as_slice()));
        assert_eq!((s.groups, s.split, s.max_partitions), (3, 2, 3));
        assert_eq!(s.example.as_deref(), Some("o1"));
        let by_customer = encoded("/orderId>/customer", &docs);
        let s = measure(by_customer.iter().map(|k| k.as_slice()));
        assert_eq!((s.groups, s.split), (3, 0));
    }
}
