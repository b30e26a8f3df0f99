//! Storage verdicts when the sample is a representative slice (`--sample slice`): the slice's
//! keys are known at their production size, so one over the limit fails for certain; the keys
//! it does not hold are judged by the extrapolated size of their largest
//! ([`crate::estimate::slice::tail`]): FAIL when its median passes the limit, WARN when its 95 %
//! bound passes the warning level.

use serde_json::json;

use crate::cosmos::limits::Limits;
use crate::estimate::sizes::{SizeProjection, SLICE_UNSEEN_KEY};
use crate::estimate::SliceTail;
use crate::fmt::{count, human_bytes, pct};
use crate::model::{Finding, Severity};

/// Under a slice of entities, a key that is not the entity: its values cluster by entity, so its
/// interval is drawn on the entities holding each value rather than on its documents. INFO when
/// its largest value is held by enough entities to be projected; otherwise WARN when the range
/// reaches the warning level (the slice cannot tell), else INFO.
pub fn clustered_finding(
    c: &crate::estimate::cluster::ClusterSizes,
    entity: &str,
    l: &Limits,
) -> Finding {
    let s = &c.largest_in_slice;
    let told = if c.heavy {
        format!(
            "held by {} entities, it keeps its share: about {} (95% range {} – {})",
            count(s.entities as f64),
            human_bytes(c.bytes),
            human_bytes(c.range[0]),
            human_bytes(c.range[1])
        )
    } else {
        format!(
            "held by fewer than 10 entities, its production size cannot be projected from this slice: between the {} the slice holds and {} (95%), a uniform reading's {} being one draw of a few entities; a slice of more entities narrows it",
            human_bytes(c.range[0]),
            human_bytes(c.range[1]),
            human_bytes(c.uniform_bytes)
        )
    };
    let severity = if !c.heavy && c.range[1] >= l.warn_fraction * l.logical_partition_bytes {
        Severity::Warn
    } else {
        Severity::Info
    };
    Finding::new(
        "SLICE_CLUSTERED_KEY",
        severity,
        format!(
            "the sample is a slice of {entity}, and this key's values come in its entities' clusters: the largest, `{}`, is {} documents ({}) from {} of the slice's {} entities; {told}",
            s.key,
            count(s.documents as f64),
            human_bytes(s.bytes),
            count(s.entities as f64),
            count(c.slice_entities as f64),
        ),
        json!({"entity": entity, "key": c.key, "bytes": c.bytes, "bytes_range": c.range,
            "largest_in_slice": {"key": s.key, "entities": s.entities, "documents": s.documents, "bytes": s.bytes},
            "slice_entities": c.slice_entities, "uniform_bytes": c.uniform_bytes, "tail_bound_bytes": c.tail_bound_bytes}),
    )
}

/// The storage findings of a slice's candidate (`t` in stored bytes).
pub fn slice_findings(s: &SizeProjection, t: &SliceTail, l: &Limits) -> Vec<Finding> {
    let limit = l.logical_partition_bytes;
    let warn = l.warn_fraction * limit;
    let [lo, hi] = s.max_range;
    let how = extrapolation(t);
    let evidence = json!({
        "key": s.max_key, "bytes": s.max_bytes, "bytes_range": [lo, hi], "limit_bytes": limit,
        "largest_in_slice_bytes": lo, "slice_keys": t.keys, "growth": t.growth,
        "tail_keys": t.k, "gamma": t.gamma, "gamma_high": t.gamma_high,
    });
    let mut f = Vec::new();
    if lo >= limit {
        f.push(Finding::new(
            "LOGICAL_PARTITION_OVER_LIMIT",
            Severity::Fail,
            format!(
                "logical partition `{}` holds {} in the slice, and a slice's keys keep their size in production: {} of the {} limit, it stops accepting writes",
                s.max_low_key,
                human_bytes(lo),
                pct(lo / limit),
                human_bytes(limit)
            ),
            evidence,
        ));
    } else if s.max_bytes >= limit {
        f.push(Finding::new(
            "LOGICAL_PARTITION_OVER_LIMIT",
            Severity::Fail,
            format!(
                "production's largest logical partition is expected at {} ({} of the {} limit; up to {}, 95%), larger than any the slice holds (the largest, {}): it would stop accepting writes; {how}",
                human_bytes(s.max_bytes),
                pct(s.max_bytes / limit),
                human_bytes(limit),
                human_bytes(hi),
                human_bytes(lo),
            ),
            evidence,
        ));
    } else if lo >= warn || hi >= warn {
        let (what, size) = if lo >= warn {
            (format!("logical partition `{}` holds", s.max_low_key), lo)
        } else if s.max_key == SLICE_UNSEEN_KEY || t.high_max.is_some() {
            (
                "a key larger than any in the slice could reach (95% bound)".to_owned(),
                hi,
            )
        } else {
            ("the slice has too few keys to extrapolate; its largest key, if it grew with the container, would hold".to_owned(), hi)
        };
        f.push(Finding::new(
            "LOGICAL_PARTITION_NEAR_LIMIT",
            Severity::Warn,
            format!(
                "{what} {}, past the warning level of {} ({} of {}); expected largest {}; {how}",
                human_bytes(size),
                human_bytes(warn),
                pct(l.warn_fraction),
                human_bytes(limit),
                human_bytes(s.max_bytes),
            ),
            evidence,
        ));
    }
    f
}

/// How the largest unseen key was extrapolated (`t` in stored bytes), in words.
pub fn extrapolation(t: &SliceTail) -> String {
    match t.high_max {
        Some(high) => format!(
            "production holds {} times the slice's {} keys; Hill's tail index from its {} largest is {:.2} (95% upper {:.2}), which puts their largest at {} (median) and under {} (95%, Weissman's estimator; docs/projection.md)",
            count(t.growth),
            count(t.keys as f64),
            t.k,
            t.gamma,
            t.gamma_high,
            human_bytes(t.expected_max),
            human_bytes(high),
        ),
        None => format!(
            "the slice holds {} keys, too few (under {}) to extrapolate the largest of production's {} times as many",
            t.keys,
            crate::estimate::slice::MIN_SLICE_KEYS,
            count(t.growth)
        ),
    }
}

/// The keys of a sliced candidate that is probably not an entity: fewer than this many values
/// in the slice, and no part named as an entity.
pub const SLICE_FEW_VALUES: u64 = 100;

/// `SLICE_OF_FEW_VALUES`: the declaration multiplies this key's values by the growth, which is
/// right for entities (customers, devices) and wrong for a status, a category or a flag, whose
/// values do not grow in number with the container. WARN when the slice holds fewer than
/// [`SLICE_FEW_VALUES`] of them and no part of the key is named as an entity.
pub fn few_values_finding(cand: &crate::keys::spec::Candidate, t: &SliceTail) -> Option<Finding> {
    let entity = cand
        .paths()
        .iter()
        .any(|p| crate::profile::names::role(&p.text) == crate::profile::names::NameRole::Entity);
    if entity || t.keys >= SLICE_FEW_VALUES {
        return None;
    }
    let production = t.keys as f64 * t.growth;
    Some(Finding::new(
        "SLICE_OF_FEW_VALUES",
        Severity::Warn,
        format!(
            "declared a representative slice, so this key's {} values become about {} in production ({} times as many), each keeping its size; a status, a category or a flag does not gain values as the container grows: if `{}` is not an entity the sample holds whole, declare the slice for the entity paths only (--sample slice:/customerId)",
            t.keys,
            count(production),
            count(t.growth),
            cand.spec
        ),
        json!({"keys": t.keys, "growth": t.growth, "production_keys": production}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: f64 = 1e9;

    /// A slice whose largest key holds `seen` GB, production's largest expected at `point` GB
    /// and bounded by `high` GB.
    fn case(seen: f64, point: f64, high: f64) -> (SizeProjection, SliceTail) {
        let t = SliceTail {
            keys: 200,
            growth: 1000.0,
            k: 14,
            gamma: 0.6,
            gamma_high: 0.86,
            gamma_moment: 0.5,
            heavy_tail: true,
            threshold: 0.1 * GB,
            top_mean: 0.3 * GB,
            largest_seen: seen * GB,
            expected_max: point * GB,
            high_max: Some(high * GB),
        };
        let unseen = point > seen;
        let s = SizeProjection {
            projected: true,
            max_bytes: point * GB,
            max_key: if unseen { SLICE_UNSEEN_KEY } else { "\"t1\"" }.into(),
            max_heavy: true,
            max_range: [seen * GB, high * GB],
            max_low_key: "\"t1\"".into(),
            heavy_high: seen * GB,
            heavy_high_key: "\"t1\"".into(),
            tail_bound_bytes: high * GB,
            total_bytes: 1000.0 * GB,
            slice: Some(t.clone()),
        };
        (s, t)
    }

    fn verdict(seen: f64, point: f64, high: f64) -> Option<(&'static str, Severity, String)> {
        let (s, t) = case(seen, point, high);
        slice_findings(&s, &t, &Limits::default())
            .into_iter()
            .next()
            .map(|f| (f.code, f.severity, f.message))
    }

    #[test]
    fn slice_verdicts_follow_the_known_keys_then_the_extrapolation() {
        // A key of the slice at 21 GB: over the 20 GB limit for certain.
        let (code, sev, msg) = verdict(21.0, 21.0, 40.0).unwrap();
        assert_eq!(
            (code, sev),
            ("LOGICAL_PARTITION_OVER_LIMIT", Severity::Fail)
        );
        assert!(msg.contains("holds 21.0 GB in the slice"), "{msg}");
        // The slice's largest at 2 GB, production's expected at 25 GB: likely over.
        let (code, sev, msg) = verdict(2.0, 25.0, 90.0).unwrap();
        assert_eq!(
            (code, sev),
            ("LOGICAL_PARTITION_OVER_LIMIT", Severity::Fail)
        );
        assert!(
            msg.starts_with("production's largest logical partition is expected at 25.0 GB"),
            "{msg}"
        );
        // Expected at 5 GB, only the 95% bound (15 GB) past the 14 GB alert level: WARN.
        let (code, sev, msg) = verdict(2.0, 5.0, 15.0).unwrap();
        assert_eq!(
            (code, sev),
            ("LOGICAL_PARTITION_NEAR_LIMIT", Severity::Warn)
        );
        assert!(
            msg.starts_with("a key larger than any in the slice could reach (95% bound) 15.0 GB"),
            "{msg}"
        );
        // Everything under the alert level: nothing to say.
        assert!(verdict(2.0, 5.0, 13.0).is_none());
    }
}
