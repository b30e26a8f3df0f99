//! The sentences of a recommendation: why the winner's verdict is what it is, its facts
//! (storage, hierarchical levels, cost) and when the choice barely matters.

use super::*;
use crate::model::LargestPartitionBasis;

/// A key for a sentence: at most 64 characters, with its full size when cut.
pub(super) fn short_key(v: &serde_json::Value) -> String {
    let t = crate::fmt::key_text(v);
    if t.chars().count() <= 64 {
        return t;
    }
    let head: String = t.chars().take(60).collect();
    format!("{head}… ({} bytes in all)", t.len())
}

pub(super) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

pub(super) fn verdict_reason(r: &CandidateReport) -> String {
    // Each code once, in the findings' order: two queries that fan out are one FANOUT_QUERY.
    let mut warns: Vec<&str> = Vec::new();
    for f in r.findings.iter().filter(|f| f.severity == Severity::Warn) {
        if !warns.contains(&f.code) {
            warns.push(f.code);
        }
    }
    if warns.is_empty() {
        format!(
            "`{}` passes every check (score {:.0}, #{} of the ranking)",
            r.spec, r.score, r.rank
        )
    } else {
        format!(
            "`{}` is the best candidate but only warns, not passes (score {:.0}): read {} below before you adopt it",
            r.spec,
            r.score,
            warns.join(", ")
        )
    }
}

/// Storage, cardinality, evenness, throughput and routing facts, each with its numbers.
pub(super) fn fact_reasons(r: &CandidateReport, l: &Limits) -> Vec<String> {
    let mut out = vec![storage_reason(r, l)];
    if r.kind == KeyKind::Hierarchical {
        out.extend(hierarchical_reason(r));
    }
    let d = &r.distinct_estimate;
    // With --memory-limit's key sampling the sample's own count is an estimate too.
    let sampled = if r.key_sampling.is_some() {
        "about "
    } else {
        ""
    };
    out.push(format!(
        "cardinality: {sampled}{} in the sample, about {} in production (range {} – {}); the docs ask for hundreds to thousands at a minimum (partitioning-overview)",
        crate::fmt::plural(r.logical_partitions as f64, "logical partition"),
        crate::fmt::count(d.estimate),
        crate::fmt::count(d.low),
        crate::fmt::count(d.high),
    ));
    if let Some(top) = r.top_partitions.first() {
        out.push(format!(
            "evenness: the largest {}key `{}` holds {} of the data; Gini {:.2} over logical partitions (0 = even)",
            if r.key_sampling.is_some() { "kept " } else { "" },
            short_key(&top.key),
            pct(top.share),
            r.skew.gini
        ));
    }
    if let Some(ru) = r.hottest_logical_partition_ru_per_sec {
        out.push(format!(
            "throughput: the hottest logical partition needs {} RU/s, {} of the {} RU/s one logical partition can serve (concepts-limits)",
            if ru > 0.0 && ru < 1.0 {
                "under 1".to_owned()
            } else {
                format!("about {}", crate::fmt::count(ru))
            },
            pct(ru / l.logical_partition_ru_per_sec),
            crate::fmt::count(l.logical_partition_ru_per_sec),
        ));
    }
    if let Some(q) = r.score_parts.query_efficiency {
        out.push(format!(
            "queries: {} of query RU goes to fan-out overhead (each extra physical partition a query visits costs at least 2.5 RU, how-to-query-container)",
            pct(1.0 - q)
        ));
    }
    out
}

/// The storage fact: the largest logical partition (measured, bounded under key sampling, or
/// projected with its range) against the limit and its alert level.
pub(super) fn storage_reason(r: &CandidateReport, l: &Limits) -> String {
    let [lo, hi] = r.max_logical_partition_bytes_range;
    let size = match r.largest_partition_basis() {
        LargestPartitionBasis::UniqueKey => format!(
            "holds one document, like every other (a unique key; the largest in the sample is {})",
            human_bytes(r.max_logical_partition_bytes)
        ),
        LargestPartitionBasis::Slice(t) => format!(
            "is expected at {} (95% range {} – {}): the slice's largest key keeps its {}, and production's {} times as many keys {}",
            human_bytes(r.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi),
            human_bytes(t.largest_in_slice_bytes),
            crate::fmt::count(t.growth),
            if t.largest_high_bytes.is_some() {
                "are extrapolated from its largest (docs/projection.md, \"A representative slice\")"
            } else {
                "cannot be extrapolated from so few keys"
            }
        ),
        // Nothing projected, but --memory-limit kept only some keys: the largest is the
        // largest kept one, and a dropped key is only bounded (unless the bound is the size).
        LargestPartitionBasis::KeptKeysOnly if lo != hi => format!(
            "holds {} among the keys --memory-limit kept; a dropped key may hold up to {}",
            human_bytes(r.max_logical_partition_bytes),
            human_bytes(hi)
        ),
        LargestPartitionBasis::Projected if lo != hi => format!(
            "is projected at {} (95% range {} – {})",
            human_bytes(r.max_logical_partition_bytes),
            human_bytes(lo),
            human_bytes(hi)
        ),
        // Nothing projected (the input is judged as the whole container), or a range of one
        // value.
        LargestPartitionBasis::Measured
        | LargestPartitionBasis::KeptKeysOnly
        | LargestPartitionBasis::Projected => {
            format!("holds {}", human_bytes(r.max_logical_partition_bytes))
        }
    };
    format!(
        "storage: the largest logical partition {size}, {} of the {} limit per logical partition (concepts-limits); the 70% alert level is {}",
        pct(r.max_logical_partition_bytes / l.logical_partition_bytes),
        human_bytes(l.logical_partition_bytes),
        human_bytes(l.warn_fraction * l.logical_partition_bytes),
    )
}

/// The hierarchical fact: the first level's distinct values and largest prefix, which may pass
/// 20 GB (none without levels).
pub(super) fn hierarchical_reason(r: &CandidateReport) -> Option<String> {
    let first = r.levels.first()?;
    // Under key sampling a kept prefix's size is exact, but the largest prefix may be
    // one --memory-limit dropped.
    let sampled = r.key_sampling.is_some();
    Some(format!(
        "hierarchical: the first level has {}{} distinct values in the sample; its largest {}prefix holds {}{}: a prefix may pass 20 GB because it spreads over physical partitions, while each full key stays within the limit (hierarchical-partition-keys)",
        if first.distinct_prefixes_range.is_some() { "about " } else { "" },
        crate::fmt::count(first.distinct_prefixes as f64),
        if sampled { "kept " } else { "" },
        human_bytes(first.largest_prefix_bytes),
        if sampled { " (a prefix --memory-limit dropped may be larger)" } else { "" },
    ))
}

/// Where the RU/s [`barely_matters`] weighs came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Throughput {
    /// The workload's demand or the declared throughput, whichever is larger (0: neither).
    Stated(f64),
    /// No workload: the service's measured RU/s (`--observed`) carried to the key's layout.
    Measured(f64),
}

/// Projected bytes and RU/s when both are below the docs' "barely matters" levels.
pub(super) fn barely_matters(win: &CandidateReport) -> Option<(f64, Throughput)> {
    // Judged for the recommended key: a rejected candidate's fan-out demand says nothing about
    // what the chosen one costs (#31: it used to block the sentence).
    let bytes = win.total_bytes;
    let demand = win.workload.as_ref().map_or(0.0, |w| w.ru_demand.total);
    let layout = win.layout.as_ref();
    let provisioned = layout.and_then(|l| l.provisioned_ru_per_sec).unwrap_or(0.0);
    // Without a workload a layout carries demand only from the service's measurements: the
    // container's traffic, which "no stated throughput" would hide.
    let measured: f64 = match (&win.workload, layout) {
        (None, Some(l)) => l.partitions.iter().map(|p| p.ru_demand).sum(),
        _ => 0.0,
    };
    let ru = if measured > provisioned {
        Throughput::Measured(measured)
    } else {
        Throughput::Stated(demand.max(provisioned))
    };
    let value = match ru {
        Throughput::Stated(v) | Throughput::Measured(v) => v,
    };
    (bytes < BARELY_MATTERS_BYTES && value < BARELY_MATTERS_RU).then_some((bytes, ru))
}

/// The winner's cost, as the reasons quote it: the ranking's mode first, then the others.
pub(super) fn cost_reason(c: &crate::model::CostEval) -> String {
    use crate::fmt::count;
    use crate::model::BillingMode;
    let by = match c.required_by {
        crate::model::RequiredBy::HottestPartition if c.physical_partitions == 1 => format!(
            "its one physical partition needs {} RU/s",
            count(c.hottest_partition_ru_per_sec)
        ),
        crate::model::RequiredBy::HottestPartition | crate::model::RequiredBy::PartitionDemands => {
            format!(
                "the hottest of {} physical partitions needs {} RU/s, and manual throughput is divided evenly",
                c.physical_partitions,
                count(c.hottest_partition_ru_per_sec)
            )
        }
        crate::model::RequiredBy::Storage => {
            "the service's floor of 1 RU/s per GB stored".to_owned()
        }
        crate::model::RequiredBy::Minimum => "the service's minimum".to_owned(),
    };
    let line = |m: &crate::model::ModeCost| -> String {
        let usd = m.monthly_throughput_usd.map_or_else(
            || m.note.clone().unwrap_or_else(|| "not priced".to_owned()),
            |u| format!("{} USD", count(u)),
        );
        match m.mode {
            BillingMode::Manual => format!("manual {usd} ({} RU/s: {by})", count(c.required_ru_per_sec)),
            BillingMode::Autoscale => format!(
                "autoscale {usd} (maximum {} RU/s; each partition billed for what it scales to, {} RU/s in all)",
                count(m.provisioned_ru_per_sec.unwrap_or(0.0)),
                count(m.billed_ru_per_sec.unwrap_or(0.0))
            ),
            BillingMode::AutoscaleClassic => format!("classic autoscale {usd}"),
            BillingMode::Serverless => format!("serverless {usd}"),
            BillingMode::Redistributed => format!(
                "manual with throughput redistributed across partitions (preview) {usd} ({} RU/s)",
                count(m.provisioned_ru_per_sec.unwrap_or(0.0))
            ),
        }
    };
    let ranked = c.mode(c.ranked_by).map(line).unwrap_or_default();
    let others: Vec<String> = c
        .modes
        .iter()
        .filter(|m| m.mode != c.ranked_by)
        .map(line)
        .collect();
    let regions = if c.regions > 1 || c.multi_write {
        format!(
            " in each of {} regions{}",
            c.regions,
            if c.multi_write {
                " with multi-region writes"
            } else {
                ""
            }
        )
    } else {
        String::new()
    };
    format!(
        "cost: about {} USD a month{regions}: {ranked}, plus {} USD of storage (the workload demands {} RU/s in all); in the other modes: {}. List prices, an estimate (docs/model.md \"Cost\")",
        count(c.monthly_total_usd()),
        count(c.monthly_storage_usd),
        count(c.demand_ru_per_sec),
        others.join("; ")
    )
}

/// Without a workload, the answer is conditional: the keys safe for storage, and for each likely
/// access pattern (the first path of a safe key, in rank order) the key it would take; the
/// workload decides between them.
pub(super) fn conditional_reason(reports: &[CandidateReport]) -> String {
    let mut safe: Vec<&CandidateReport> = reports
        .iter()
        .filter(|r| r.verdict != Verdict::Fail)
        .collect();
    safe.sort_by_key(|r| r.rank);
    let listed: Vec<String> = safe
        .iter()
        .take(6)
        .map(|r| format!("`{}` ({})", r.spec, r.verdict.to_string().to_uppercase()))
        .collect();
    let mut patterns: Vec<(String, &str)> = Vec::new();
    for r in &safe {
        let lead = r
            .spec
            .split(['>', '+'])
            .next()
            .unwrap_or(&r.spec)
            .trim()
            .to_owned();
        if !patterns.iter().any(|(p, _)| *p == lead) {
            patterns.push((lead, r.spec.as_str()));
        }
    }
    let by: Vec<String> = patterns
        .iter()
        .take(4)
        .map(|(p, spec)| format!("if most queries filter on `{p}`, `{spec}`"))
        .collect();
    let more = if safe.len() > listed.len() {
        format!(" and {} more", safe.len() - listed.len())
    } else {
        String::new()
    };
    format!(
        "no workload was given, so this is not a recommendation: {} safe for storage ({}{more}, in storage order); which serves best depends on the queries: {}. Give --workload (or --query and --writes-per-sec) to decide",
        if safe.len() == 1 {
            "1 key is".to_owned()
        } else {
            format!("{} keys are", crate::fmt::count(safe.len() as f64))
        },
        listed.join(", "),
        by.join("; ")
    )
}
