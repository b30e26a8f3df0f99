//! Whether a candidate keeps each declared group (a transaction, a unique key, an ordering
//! scope) inside one logical partition: by construction when every path of the key is one of
//! the group's, else measured on the sample and projected to production's groups.

use serde_json::json;

use crate::estimate::{Projector, Target};
use crate::keys::spec::{parse_candidate, Candidate};
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
    /// Groups holding two documents or more in the sample (only those can be split).
    pub several: u64,
    /// Each group's documents in the sample, in no order (what production's groups are
    /// projected from).
    pub sizes: Vec<u64>,
}

/// Measures group splits from the partitions (encoded key, documents) of the hidden candidate
/// "group level, then the candidate's levels": the first component is the group, the rest the
/// candidate's key.
pub fn measure<'a>(keys: impl Iterator<Item = (&'a [u8], u64)>) -> GroupSplit {
    // Only counts and a minimum are taken from the map, so its order (and hasher) is free.
    let mut per_group: hashbrown::HashMap<&[u8], (u64, u64)> = Default::default();
    for (k, docs) in keys {
        let cut = prefix_len(k, 1);
        let e = per_group.entry(&k[..cut]).or_default();
        e.0 += 1;
        e.1 += docs;
    }
    measure_groups(per_group.into_iter().map(|(g, (n, docs))| (g, n, docs)))
}

/// [`measure`] from each group's counts already gathered: its encoded value (the hidden key's
/// first component), its logical partitions and its documents, each group once, in any order.
/// Groups whose value is Undefined or Null are no group.
pub fn measure_groups<'a>(groups: impl Iterator<Item = (&'a [u8], u64, u64)>) -> GroupSplit {
    let mut out = GroupSplit::default();
    let mut first: Option<&[u8]> = None;
    for (g, n, docs) in groups {
        let shape = key_shape(g);
        if shape.undefined || shape.null {
            continue;
        }
        out.groups += 1;
        out.max_partitions = out.max_partitions.max(n);
        out.several += u64::from(docs > 1);
        out.sizes.push(docs);
        if n > 1 {
            out.split += 1;
            if first.is_none_or(|f| g < f) {
                first = Some(g);
            }
        }
    }
    out.example = first.map(crate::keys::key_display);
    out
}

/// Production's groups, projected from the sample's group sizes as any key's sizes are
/// (docs/projection.md): a group is a key whose value is the group's paths.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupProjection {
    /// Production's groups: point and 95 % range.
    pub groups: f64,
    /// The range of [`Self::groups`].
    pub groups_range: [f64; 2],
    /// Production documents per group, on average.
    pub mean_documents: f64,
    /// Whether the sample's sizes are production's (nothing projected, or a declared slice of
    /// the group's entity).
    pub facts: bool,
}

/// Projects production's groups from the sample's: `population_documents` is production's
/// documents, `sample_documents` the sample's; `sliced` when the sample is a declared slice of
/// the group's entity (each group keeps its size).
pub fn project_groups(
    s: &GroupSplit,
    target: &Target,
    sample_documents: f64,
    sliced: bool,
) -> GroupProjection {
    let grouped: u64 = s.sizes.iter().sum();
    let profile = crate::estimate::FrequencyProfile::from_counts(s.sizes.iter().copied());
    // Production's documents that carry the group's properties.
    let t = Target {
        documents: target.documents * grouped as f64 / sample_documents.max(1.0),
        ..*target
    };
    let p = if sliced {
        Projector::from_slice(profile, &t, false)
    } else {
        Projector::from_profile(profile, &t, false)
    };
    let d = &p.distinct;
    GroupProjection {
        groups: d.estimate,
        groups_range: [d.low, d.high],
        mean_documents: p.population_documents / d.estimate.max(1.0),
        facts: !p.projected || sliced,
    }
}

/// Whether every path `cand` reads is one of the group's: then the key is a function of the
/// group's values, and every group stays in one logical partition by construction.
pub fn key_within_group(b: &Boundary, cand: &Candidate) -> bool {
    let group: Vec<Vec<String>> =
        b.by.iter()
            .filter_map(|p| parse_candidate(p).ok())
            .flat_map(|c| {
                c.paths()
                    .into_iter()
                    .map(|k| k.segments.clone())
                    .collect::<Vec<_>>()
            })
            .collect();
    cand.paths().iter().all(|k| group.contains(&k.segments))
}

/// The findings for a boundary and a candidate. A unique key is enforced across the container
/// only when every path of the key is one of the unique key's; any other key voids it (FAIL).
/// A transaction or ordering group fails when the key splits groups: measured in the sample,
/// and said of production's groups (projected from the sample's sizes). "Kept together" is
/// said only when it is true (by construction, or of groups the sample holds with several
/// documents) and means something (groups of more than one document).
pub fn findings(
    b: &Boundary,
    s: &GroupSplit,
    cand: &Candidate,
    production: Option<&GroupProjection>,
) -> Vec<Finding> {
    if !b.kind.declared() {
        return natural_findings(b, s);
    }
    let within = key_within_group(b, cand);
    let mut evidence = json!({
        "boundary": b.kind.as_str(), "name": b.name, "by": b.by,
        "groups": s.groups, "split": s.split, "max_partitions": s.max_partitions,
        "several": s.several, "by_construction": within,
    });
    if let Some(p) = production.filter(|p| !p.facts) {
        evidence["production_groups"] = json!(p.groups.round());
        evidence["production_groups_range"] =
            json!([p.groups_range[0].round(), p.groups_range[1].round()]);
        evidence["production_mean_documents"] = json!(p.mean_documents);
    }
    if b.kind == BoundaryKind::UniqueKey {
        return vec![unique_key(b, cand, within, evidence)];
    }
    let mean = production.map_or(1.0, |p| p.mean_documents);
    // Groups of one document cannot be split, and keeping them together says nothing.
    let several = s.several > 0 || mean >= 1.5;
    let head = format!("{} `{}` (by {})", b.kind.as_str(), b.name, b.by.join(", "));
    let f = if within && several {
        Finding::new(
            "GROUP_KEPT_TOGETHER",
            Severity::Info,
            format!("{head}: every group stays in one logical partition by construction (every path of the key is one of the group's)"),
            evidence,
        )
    } else if within {
        return Vec::new();
    } else if s.split > 0 || (several && crate::estimate::one_item_per_partition(cand)) {
        split_finding(b, s, production, &head, evidence)
    } else if s.several > 0 {
        Finding::new(
            "GROUP_KEPT_TOGETHER",
            Severity::Info,
            format!(
                "{head}: each of the {} groups with several documents in the sample stays in one logical partition (the key does not contain the group's paths, so this is a fact of the sample, not a guarantee)",
                crate::fmt::count(s.several as f64)
            ),
            evidence,
        )
    } else if s.groups > 0 {
        Finding::new(
            "GROUP_SPLIT_UNKNOWN",
            Severity::Info,
            format!(
                "{head}: no group holds two documents in the sample ({} groups of one), so whether this key keeps a group together cannot be measured; a key that contains the group's paths keeps it by construction",
                crate::fmt::count(s.groups as f64)
            ),
            evidence,
        )
    } else {
        return Vec::new();
    };
    vec![f]
}

/// The FAIL for a transaction or ordering group the key splits, said of production's groups.
fn split_finding(
    b: &Boundary,
    s: &GroupSplit,
    production: Option<&GroupProjection>,
    head: &str,
    evidence: serde_json::Value,
) -> Finding {
    let count = |x: f64| crate::fmt::count(x.round());
    let in_sample = if s.split > 0 {
        format!(
            "{} of the {} groups with several documents in the sample span several logical partitions (up to {}; first: `{}`)",
            count(s.split as f64),
            count(s.several as f64),
            s.max_partitions,
            s.example.clone().unwrap_or_default()
        )
    } else {
        "the key includes /id, so each item is its own logical partition and every group of several items is split".to_owned()
    };
    let share = if s.split > 0 {
        s.split as f64 / s.several.max(1) as f64
    } else {
        1.0
    };
    let production = match production.filter(|p| !p.facts) {
        Some(p) => format!(
            "; projected from the sample's {} groups, production holds about {} groups ({} to {}) of {:.1} documents on average, and the key splits {} of those with several documents",
            count(s.groups as f64),
            crate::fmt::approx_count(p.groups),
            crate::fmt::approx_count(p.groups_range[0]),
            crate::fmt::approx_count(p.groups_range[1]),
            p.mean_documents,
            if share >= 0.995 { "every one".to_owned() } else { format!("about {}", crate::fmt::percent(share)) }
        ),
        None => format!(" (of {} groups)", count(s.groups as f64)),
    };
    Finding::new(
        "TRANSACTION_GROUP_SPLIT",
        Severity::Fail,
        format!("{head}: {in_sample}{production}: {}", b.kind.consequence()),
        evidence,
    )
}

/// A unique key under a candidate: enforced across the container when every path of the key is
/// one of the unique key's (two items that could collide then share a logical partition), void
/// otherwise.
fn unique_key(
    b: &Boundary,
    cand: &Candidate,
    within: bool,
    evidence: serde_json::Value,
) -> Finding {
    let paths = b.by.join(", ");
    if within {
        return Finding::new(
            "UNIQUE_KEY_ENFORCED",
            Severity::Info,
            format!("unique key ({paths}) is enforced across the container: every path of the partition key is one of the unique key's, so two items that could collide always share a logical partition"),
            evidence,
        );
    }
    let outside: Vec<String> = cand
        .paths()
        .iter()
        .filter(|k| {
            !b.by
                .iter()
                .filter_map(|p| parse_candidate(p).ok())
                .any(|c| c.paths().iter().any(|g| g.segments == k.segments))
        })
        .map(|k| k.text.clone())
        .collect();
    Finding::new(
        "UNIQUE_KEY_PER_PARTITION",
        Severity::Fail,
        format!(
            "voids the declared unique key ({paths}): Cosmos DB enforces a unique key within each logical partition only, and {} is not one of its paths, so two items with the same {paths} under different values of {} are both accepted (unique-keys); a key whose every path is one of the unique key's enforces it",
            outside.join(", "),
            outside.join(", ")
        ),
        evidence,
    )
}

/// A natural group (found by the search, not declared): kept is a plus, split only noted.
fn natural_findings(b: &Boundary, s: &GroupSplit) -> Vec<Finding> {
    let evidence = json!({
        "boundary": b.kind.as_str(), "name": b.name, "by": b.by,
        "groups": s.groups, "split": s.split, "max_partitions": s.max_partitions,
    });
    let scope = match s.documents_seen {
        Some(n) => format!("in the first {} documents", crate::fmt::count(n as f64)),
        None => "in the sample".to_owned(),
    };
    if s.groups == 0 {
        return Vec::new();
    }
    let (code, what) = if s.split == 0 {
        ("NATURAL_GROUP_KEPT", format!("keeps each of the {} {} groups {scope} in one logical partition: a plus, reads of a whole group and transactional batches over it stay single-partition operations", s.groups, b.name))
    } else {
        ("NATURAL_GROUP_SPLIT", format!("splits {} of the {} {} groups {scope} over several logical partitions (up to {}): {}", s.split, s.groups, b.name, s.max_partitions, b.kind.consequence()))
    };
    vec![Finding::new(code, Severity::Info, what, evidence)]
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
        let s = measure(by_line.iter().map(|k| (k.as_slice(), 1)));
        assert_eq!((s.groups, s.split, s.max_partitions), (3, 2, 3));
        assert_eq!(s.example.as_deref(), Some("o1"));
        let by_customer = encoded("/orderId>/customer", &docs);
        let s = measure(by_customer.iter().map(|k| (k.as_slice(), 1)));
        assert_eq!((s.groups, s.split), (3, 0));
    }
}
