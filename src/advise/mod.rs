//! Verdicts, findings, scores and ranking: pure functions of the statistics, the layout and the
//! limits table. Every finding carries a stable `code`, a severity, a sentence and the numbers
//! behind it, so CI can act on codes while people read the sentences.

pub mod boundaries;
pub mod change;
pub mod container;
pub mod cost;
pub mod domain;
pub mod input;
pub mod layout;
pub mod observed;
pub mod rank;
pub mod recommend;
pub mod separator;
pub mod slice;
pub mod storage;
pub mod workload;

use serde_json::json;

use crate::cosmos::limits::Limits;
use crate::fmt::{human_bytes, pct};
use crate::keys::spec::{Candidate, KeyKind};
use crate::model::Finding;
use crate::model::ScoreParts;
use crate::model::Severity;
use crate::model::Verdict;
use crate::model::WARNING_POINTS;
use crate::stats::summary::CandidateStats;

/// Demand numbers the throughput checks need.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DemandSummary {
    /// RU/s of the hottest logical partition, and its key (as text).
    pub hottest_logical: Option<(f64, String)>,
    /// Utilisation of the hottest physical partition (demand / allocated), when a layout exists.
    pub hottest_physical_utilisation: Option<f64>,
    /// Share of query RU/s spent on fan-out overhead, when queries are modelled.
    pub fanout_share: Option<f64>,
    /// Each physical partition's demand when partitions are made by storage alone (serverless's
    /// layout), when projected.
    pub storage_layout: Option<Vec<f64>>,
}

/// The projected upper bound on any key the memory limit dropped: the sketch's bound on the
/// sample's bytes times the projection's largest scale (`heavy_scale`), or `one_item_cap`
/// where that is lower; `None` when nothing was dropped.
pub fn dropped_bound(
    s: &CandidateStats,
    heavy_scale: f64,
    one_item_cap: Option<f64>,
) -> Option<f64> {
    s.sampling.map(|k| {
        let sketch = k.dropped_largest_bytes_bound * heavy_scale;
        one_item_cap.map_or(sketch, |cap| cap.min(sketch))
    })
}

/// What bounds any logical partition of a key that holds one item each (it includes `/id`,
/// [`crate::estimate::one_item_per_partition`]): the item size limit once projected to a
/// production the sample did not see, else the largest document of the input (`largest_document`
/// stored bytes), which is then the whole container; with which of the two it is. `None` for
/// other keys.
pub fn one_item_cap(
    one_item: bool,
    projected: bool,
    largest_document: f64,
    l: &Limits,
) -> Option<(f64, &'static str)> {
    one_item.then_some(if projected {
        (l.item_bytes, "the item size limit")
    } else {
        (largest_document, "the largest document of the input")
    })
}

/// `KEYS_SAMPLED`: the memory limit made the scan keep a share of the keys. Info when the
/// count-min bound on the dropped keys proves that none is as large as the largest kept key (the
/// largest partition is then exact) or that none comes near the logical partition limit; a
/// warning otherwise.
/// (`one_item_cap`: [`one_item_cap`].)
pub fn sampling_finding(
    s: &CandidateStats,
    l: &Limits,
    heavy_scale: f64,
    one_item_cap: Option<(f64, &'static str)>,
) -> Option<Finding> {
    let k = s.sampling?;
    let d = DroppedKeys::of(s, l, heavy_scale, one_item_cap)?;
    let mut msg = kept_keys_sentence(s, &k);
    msg.push_str(&d.sentence(l));
    // A hierarchical key's largest prefix may be a dropped one, and prefixes may legitimately
    // pass 20 GB: that check cannot be made on a sample of prefixes.
    let prefixes_unchecked = !s.levels.is_empty();
    if prefixes_unchecked {
        msg.push_str(
            "; the prefix sizes (PREFIX_OVER_20GB) could only be checked on the kept prefixes",
        );
    }
    Some(Finding::new(
        "KEYS_SAMPLED",
        if (d.exact_top || d.far_below) && !prefixes_unchecked {
            Severity::Info
        } else {
            Severity::Warn
        },
        msg,
        json!({
            "memory_limit_bytes": k.memory_limit_bytes,
            "kept_fraction": k.kept_fraction,
            "kept_keys": k.kept_keys,
            "logical_partitions": s.logical_partitions,
            "logical_partitions_low": k.logical_partitions_low,
            "logical_partitions_high": k.logical_partitions_high,
            "dropped_documents": k.dropped_documents,
            "dropped_largest_bytes_bound": d.bound,
            "dropped_largest_bytes_bound_projected": d.projected_bound,
            "largest_kept_bytes": d.largest_kept,
        }),
    ))
}

/// The first sentence of `KEYS_SAMPLED`: which share of the keys was kept, and what is
/// therefore an estimate.
fn kept_keys_sentence(s: &CandidateStats, k: &crate::stats::sampling::KeySampling) -> String {
    let one_in = (1.0 / k.kept_fraction).round() as u64;
    format!(
        "over the memory limit ({}): 1 key in {one_in} was kept, chosen by hash ({} keys, each with exact counts{}); the other keys' {} documents count in the totals only. Logical partitions (about {}, 95 % interval {} – {}), distributions and skew are estimates from the kept keys. ",
        human_bytes(k.memory_limit_bytes as f64),
        k.kept_keys,
        if s.levels.is_empty() {
            ""
        } else {
            "; first-level prefixes are kept or dropped whole, so each kept prefix's size is exact, but the largest prefix may be a dropped one"
        },
        k.dropped_documents,
        crate::fmt::count(s.logical_partitions as f64),
        crate::fmt::count(k.logical_partitions_low as f64),
        crate::fmt::count(k.logical_partitions_high as f64),
    )
}

/// What can be said of the keys the memory limit dropped, from the count-min bound.
struct DroppedKeys {
    /// The bound on a dropped key's estimated stored bytes in the sample.
    bound: f64,
    /// The bound in production ([`dropped_bound`]).
    projected_bound: f64,
    /// The largest kept key's estimated stored bytes in the sample.
    largest_kept: f64,
    /// The one-item cap with what it is, when it bounds the dropped keys more tightly.
    cap: Option<(f64, &'static str)>,
    /// No dropped key is as large as the largest kept one: the largest partition is exact.
    exact_top: bool,
    /// No dropped key comes near the warning level of a logical partition.
    far_below: bool,
}

impl DroppedKeys {
    /// The bounds for candidate `s` (`None` when no key was dropped).
    fn of(
        s: &CandidateStats,
        l: &Limits,
        heavy_scale: f64,
        one_item_cap: Option<(f64, &'static str)>,
    ) -> Option<Self> {
        let k = s.sampling?;
        let largest_kept = s
            .partitions
            .iter()
            .map(|p| {
                let c = p.sample(&s.keys);
                c.minified_bytes as f64 + l.item_overhead_bytes * c.documents as f64
            })
            .fold(0.0, f64::max);
        let bound = k.dropped_largest_bytes_bound;
        // A key of one item per partition is capped by that item, where the sketch (loose once
        // millions of keys share its cells) says more ([`dropped_bound`]).
        let projected_bound = dropped_bound(s, heavy_scale, one_item_cap.map(|(c, _)| c))?;
        let cap = one_item_cap.filter(|_| projected_bound < bound * heavy_scale);
        Some(DroppedKeys {
            bound,
            projected_bound,
            largest_kept,
            cap,
            exact_top: cap.is_none() && bound < largest_kept,
            far_below: projected_bound < l.logical_partition_bytes * l.warn_fraction,
        })
    }

    /// The second sentence of `KEYS_SAMPLED`: how large a dropped key may be, and whether that
    /// matters.
    fn sentence(&self, l: &Limits) -> String {
        if let (Some((c, what)), true) = (self.cap, self.far_below) {
            format!(
                "Each logical partition holds one item (the key includes /id), so no dropped key holds more than {} ({what}), below the {} warning level of a logical partition",
                human_bytes(c),
                human_bytes(l.logical_partition_bytes * l.warn_fraction)
            )
        } else if self.exact_top {
            format!(
                "No dropped key holds more than {} of the sample (a count-min bound), less than the largest kept key's {}: the largest partition is exact",
                human_bytes(self.bound),
                human_bytes(self.largest_kept)
            )
        } else if self.far_below {
            format!(
                "A dropped key may be larger than the largest kept one, but none holds more than {} of the sample (a count-min bound), at most {} in production, below the {} warning level of a logical partition",
                human_bytes(self.bound),
                human_bytes(self.projected_bound),
                human_bytes(l.logical_partition_bytes * l.warn_fraction)
            )
        } else {
            format!(
                "A dropped key may hold up to {} in production (a count-min bound), which could reach the logical partition limit: the largest partition may be missed; raise --memory-limit or analyze fewer candidates at once",
                human_bytes(self.projected_bound)
            )
        }
    }
}

/// Findings that depend only on the candidate's statistics and the limits (the size verdicts
/// live in [`crate::estimate::sizes`], where the projection's ranges are).
pub fn storage_findings(
    c: &Candidate,
    s: &CandidateStats,
    l: &Limits,
    projected: bool,
) -> Vec<Finding> {
    let mut f = Vec::new();
    let lp_limit = l.logical_partition_bytes;
    if let Some(&top) = s.by_bytes.first() {
        let key = crate::keys::key_display(s.key(top));
        // A sample fact: the largest key's share of the sample's stored bytes.
        let share = s.skew.top1_share;
        // Logical skew is a reported fact: physical partitions hash many logical ones
        // together, and what matters (a partition nearing 20 GB or 10,000 RU/s, a hot physical
        // partition) has its own findings (#31).
        if s.logical_partitions > 1 && share >= 0.2 {
            f.push(Finding::new(
                "SKEWED_STORAGE",
                Severity::Info,
                format!(
                    "logical partition `{key}` holds {} of all data (Gini {:.2}): a fact, not a verdict; the size and throughput findings say whether it nears a limit",
                    pct(share),
                    s.skew.gini
                ),
                json!({"key": key, "share": share, "gini": s.skew.gini, "max_over_mean": s.skew.max_over_mean}),
            ));
        }
    }
    if s.max_key_bytes as f64 > l.key_value_bytes {
        f.push(Finding::new(
            "KEY_VALUE_TOO_LARGE",
            Severity::Fail,
            format!(
                "a partition key value is {} bytes, over the {} byte limit",
                s.max_key_bytes, l.key_value_bytes
            ),
            json!({"bytes": s.max_key_bytes, "limit_bytes": l.key_value_bytes, "key": s.max_key}),
        ));
    }
    f.extend(undefined_and_null(s));
    f.extend(cardinality_finding(c, s, l, projected));
    if c.kind == KeyKind::Hierarchical {
        if let Some(lv) = s.levels.first() {
            if lv.largest_prefix_bytes >= lp_limit {
                f.push(Finding::new(
                    "PREFIX_OVER_20GB",
                    Severity::Info,
                    format!(
                        "first-level prefix {} holds {}: allowed with hierarchical keys (it spans physical partitions), but its prefix queries fan out over them",
                        lv.largest_prefix,
                        human_bytes(lv.largest_prefix_bytes)
                    ),
                    json!({"prefix": lv.largest_prefix, "bytes": lv.largest_prefix_bytes}),
                ));
            }
        }
    }
    f
}

/// UNDEFINED_PARTITION and NULL_PARTITION: documents without the key, or with `null`.
fn undefined_and_null(s: &CandidateStats) -> Vec<Finding> {
    let mut f = Vec::new();
    let docs = s.documents.max(1) as f64;
    if s.undefined_documents > 0 {
        f.push(Finding::new(
            "UNDEFINED_PARTITION",
            Severity::Warn,
            format!(
                "{} documents ({}) lack a key path: they land in Undefined logical partitions (for a single path, one partition that grows forever)",
                s.undefined_documents,
                pct(s.undefined_documents as f64 / docs)
            ),
            json!({"documents": s.undefined_documents, "share": s.undefined_documents as f64 / docs}),
        ));
    }
    if s.null_documents > 0 {
        f.push(Finding::new(
            "NULL_PARTITION",
            Severity::Warn,
            format!(
                "{} documents ({}) have a null key value: they land in Null logical partitions (for a single path, one shared partition)",
                s.null_documents,
                pct(s.null_documents as f64 / docs)
            ),
            json!({"documents": s.null_documents, "share": s.null_documents as f64 / docs}),
        ));
    }
    f
}

/// Distinct values per level, `(level, distinct)`: the key's own for a single key; for a
/// hierarchical key the first level's prefixes and each deeper level's own values, counted only
/// up to `min_cardinality`.
fn level_distincts(c: &Candidate, s: &CandidateStats, l: &Limits) -> Vec<(usize, u64)> {
    // Every level of a hierarchical key should have many values (hierarchical-partition-keys):
    // the first level's prefixes, and each deeper level's own values (a tenant's data spreads over
    // at most as many logical partitions as its second level has values). Report the first level
    // below the guidance.
    let mut per_level: Vec<(usize, u64)> = Vec::new();
    if c.kind == KeyKind::Hierarchical {
        let depth = c.levels.len();
        // Only a level below the guidance is reported: counting a level's own values stops at
        // the guidance, and the walk over the keys stops once every level has reached it.
        let enough = l.min_cardinality.ceil().max(0.0) as usize;
        let mut own: Vec<hashbrown::HashSet<&[u8]>> = vec![Default::default(); depth];
        for p in &s.partitions {
            if own[1..].iter().all(|set| set.len() >= enough) {
                break;
            }
            if let Ok(parts) = crate::cosmos::split_encoded(s.key_of(p)) {
                for (k, part) in parts.into_iter().enumerate().take(depth).skip(1) {
                    if own[k].len() < enough {
                        own[k].insert(part);
                    }
                }
            }
        }
        per_level.push((1, s.levels.first().map_or(0, |lv| lv.distinct_prefixes)));
        per_level.extend(
            own.iter()
                .enumerate()
                .skip(1)
                .map(|(k, set)| (k + 1, set.len() as u64)),
        );
    } else {
        per_level.push((1, s.logical_partitions));
    }
    per_level
}

/// LOW_CARDINALITY: the first level (or the key) below `min_cardinality` distinct values, and
/// for a hierarchical key each deeper level's own values too.
fn cardinality_finding(
    c: &Candidate,
    s: &CandidateStats,
    l: &Limits,
    projected: bool,
) -> Option<Finding> {
    let per_level = level_distincts(c, s, l);
    let low: Vec<(usize, u64)> = per_level
        .iter()
        .copied()
        .filter(|(_, d)| (*d as f64) < l.min_cardinality)
        .collect();
    let &(level, distinct) = low.first()?;
    // Under key sampling (--memory-limit) the first level's count (or a one-level key's) is an
    // estimate, and a deeper level's is counted among the kept keys only: a lower bound.
    let sampled = s.sampling.is_some();
    // The first level's (or the key's) 95 % interval, when estimated.
    let range = if c.kind == KeyKind::Hierarchical {
        s.levels.first().and_then(|lv| lv.distinct_prefixes_range)
    } else {
        s.sampling
            .as_ref()
            .map(|k| [k.logical_partitions_low, k.logical_partitions_high])
    };
    let count = |lv: usize, d: u64| match (sampled, lv, range) {
        (false, _, _) => d.to_string(),
        (true, 1, Some([lo, hi])) => format!("about {d} (95 % interval {lo} – {hi})"),
        (true, 1, None) => format!("about {d}"),
        (true, _, _) => format!("at least {d}"),
    };
    let what = if c.kind == KeyKind::Hierarchical {
        low.iter()
            .map(|&(lv, d)| {
                format!(
                    "level {lv} has only {} distinct value{}",
                    count(lv, d),
                    if d == 1 { "" } else { "s" }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        format!(
            "the key has only {} distinct value{}",
            count(1, distinct),
            if distinct == 1 { "" } else { "s" }
        )
    };
    let how = if sampled {
        ", estimated from the keys --memory-limit kept"
    } else {
        ""
    };
    // Material only when it could bind: with a declared production size that the values seen
    // could hold twice over (D × 20 GB), the guidance is not a limit here (throughput has its
    // own findings: HOT_LOGICAL_PARTITION_RU, CAPACITY_CEILING).
    let ceiling = distinct as f64 * l.logical_partition_bytes;
    let (severity, so) = if projected && ceiling >= 2.0 * s.total_bytes {
        (
            Severity::Info,
            format!(
                "; they could hold {}, {:.0}× the projected {}: below the guidance, not a limit here",
                crate::fmt::human_bytes(ceiling),
                ceiling / s.total_bytes.max(1.0),
                crate::fmt::human_bytes(s.total_bytes)
            ),
        )
    } else {
        (Severity::Warn, String::new())
    };
    Some(Finding::new(
        "LOW_CARDINALITY",
        severity,
        format!(
            "{what} in the sample{how} (guidance: hundreds to thousands at least, at every level){so}"
        ),
        json!({"level": level, "distinct": distinct, "minimum": l.min_cardinality, "levels": low}),
    ))
}

/// Throughput findings for the hottest logical partition.
pub fn throughput_findings(d: &DemandSummary, l: &Limits) -> Vec<Finding> {
    let mut f = Vec::new();
    if let Some((ru, key)) = &d.hottest_logical {
        let limit = l.logical_partition_ru_per_sec;
        if *ru > limit {
            f.push(Finding::new(
                "HOT_LOGICAL_PARTITION_RU",
                Severity::Fail,
                format!(
                    "logical partition `{key}` needs an estimated {} RU/s, over the {} RU/s one logical partition can serve: requests will be throttled (429)",
                    crate::fmt::count(*ru),
                    crate::fmt::count(limit)
                ),
                json!({"key": key, "ru_per_sec": ru, "limit_ru_per_sec": limit}),
            ));
        } else if *ru > l.warn_fraction * limit {
            f.push(Finding::new(
                "HOT_LOGICAL_PARTITION_RU",
                Severity::Warn,
                format!(
                    "logical partition `{key}` needs an estimated {} RU/s ({} of the {} RU/s limit)",
                    crate::fmt::count(*ru),
                    pct(ru / limit),
                    crate::fmt::count(limit)
                ),
                json!({"key": key, "ru_per_sec": ru, "limit_ru_per_sec": limit}),
            ));
        }
    }
    f
}

/// Points the WARN findings cost: 5 each, at most 25.
pub fn warning_penalty(findings: &[Finding]) -> f64 {
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Severity::Warn)
        .count() as f64;
    (warnings * WARNING_POINTS.0).min(WARNING_POINTS.1)
}

/// Score parts from statistics, demand and findings. `max_lp_bytes` is the projected largest
/// logical partition; `has_workload` says whether throughput evidence exists.
pub fn score_parts(
    s: &CandidateStats,
    d: &DemandSummary,
    l: &Limits,
    max_lp_bytes: f64,
    has_workload: bool,
    findings: &[Finding],
) -> ScoreParts {
    let warning_penalty = warning_penalty(findings);
    if s.logical_partitions == 0 {
        // Every document lacked a valid key: nothing to score.
        return ScoreParts {
            cardinality: 0.0,
            evenness: 0.0,
            storage_headroom: 0.0,
            throughput_headroom: has_workload.then_some(0.0),
            query_efficiency: d.fanout_share.map(|_| 0.0),
            warning_penalty,
        };
    }
    let n = s.logical_partitions.max(1) as f64;
    let throughput_headroom = has_workload.then(|| {
        let mut h: f64 = 1.0;
        if let Some((ru, _)) = &d.hottest_logical {
            h = h.min(1.0 - ru / l.logical_partition_ru_per_sec);
        }
        if let Some(u) = d.hottest_physical_utilisation {
            h = h.min(1.0 - u);
        }
        h.clamp(0.0, 1.0)
    });
    ScoreParts {
        cardinality: (n.log10() / 3.0).clamp(0.0, 1.0),
        evenness: (1.0 - s.skew.gini).clamp(0.0, 1.0),
        storage_headroom: (1.0 - max_lp_bytes / l.logical_partition_bytes).clamp(0.0, 1.0),
        throughput_headroom,
        query_efficiency: d.fanout_share.map(|f| (1.0 - f).clamp(0.0, 1.0)),
        warning_penalty,
    }
}

/// Collapses findings repeated under one code (e.g. one PHYSICAL_PARTITION_CANNOT_SPLIT per
/// partition): from the third on, the first of each code stays, says how many there are, and
/// carries their count in `evidence.count`. Order and severities are kept.
pub fn collapse(findings: Vec<Finding>) -> Vec<Finding> {
    let mut counts: std::collections::BTreeMap<&'static str, usize> = Default::default();
    for f in &findings {
        *counts.entry(f.code).or_default() += 1;
    }
    let mut seen: std::collections::BTreeSet<&'static str> = Default::default();
    let mut out = Vec::with_capacity(findings.len());
    for mut f in findings {
        let n = counts[f.code];
        if n <= 2 {
            out.push(f);
            continue;
        }
        if !seen.insert(f.code) {
            continue;
        }
        f.message = format!("{} (and {} more like it)", f.message, n - 1);
        if let serde_json::Value::Object(m) = &mut f.evidence {
            m.insert("count".into(), json!(n));
        }
        out.push(f);
    }
    out
}

/// The verdict implied by a list of findings.
pub fn verdict(findings: &[Finding]) -> Verdict {
    match findings.iter().map(|f| f.severity).max() {
        Some(Severity::Fail) => Verdict::Fail,
        Some(Severity::Warn) => Verdict::Warn,
        _ => Verdict::Pass,
    }
}

pub use rank::{rank, RankItem};

#[cfg(test)]
mod tests;
