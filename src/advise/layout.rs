//! Findings of a projected physical layout: partitions that cannot split, throttling (the whole
//! container under-provisioned, or one hot partition), all demand on one partition, a
//! hierarchical key's first level with fewer values than partitions, and throughput below the
//! service's minimum.

use crate::cosmos::limits::Limits;
use crate::cosmos::{self, Provisioning};
use crate::model::{Finding, Severity};
use crate::stats::summary::CandidateStats;

/// `PHYSICAL_PARTITION_CANNOT_SPLIT`: a physical partition over `limit_bytes` that holds one
/// logical partition, which the service cannot split.
pub fn unsplittable_findings(layout: &cosmos::Layout, limit_bytes: f64) -> Vec<Finding> {
    layout
        .unsplittable
        .iter()
        .map(|&u| {
            let p = &layout.partitions[u];
            Finding::new(
                "PHYSICAL_PARTITION_CANNOT_SPLIT",
                Severity::Fail,
                format!(
                    "physical partition [{}, {}) would hold an estimated {} in one logical partition: over the {} physical limit, and one key cannot split",
                    p.min_epk, p.max_epk, crate::fmt::human_bytes(p.bytes), crate::fmt::human_bytes(limit_bytes)
                ),
                serde_json::json!({"min_epk": p.min_epk.to_hex(), "max_epk": p.max_epk.to_hex(), "bytes": p.bytes}),
            )
        })
        .collect()
}

/// `WRITES_ON_ONE_PHYSICAL_PARTITION`: with more than one physical partition and no fan-out
/// spread (`even_ru_per_sec` 0), all of the demand lands on one of them.
pub fn one_partition_finding(layout: &cosmos::Layout, even_ru_per_sec: f64) -> Option<Finding> {
    let n = layout.partitions.len();
    let total_demand: f64 = layout.partitions.iter().map(|p| p.ru_demand).sum();
    if n > 1 && total_demand > 0.0 && even_ru_per_sec == 0.0 {
        let busiest = layout
            .partitions
            .iter()
            .map(|p| p.ru_demand)
            .fold(0.0, f64::max);
        if busiest >= total_demand * 0.999 {
            return Some(Finding::new(
                "WRITES_ON_ONE_PHYSICAL_PARTITION",
                Severity::Warn,
                format!("all request demand lands on one of an estimated {n} physical partitions"),
                serde_json::json!({"physical_partitions": n}),
            ));
        }
    }
    None
}

/// `FIRST_LEVEL_BELOW_PARTITION_COUNT`: a hierarchical key's first level has fewer distinct
/// values than the `n` physical partitions.
pub fn first_level_finding(stats: &CandidateStats, n: usize) -> Option<Finding> {
    let first = stats.levels.first()?;
    (first.distinct_prefixes < n as u64).then(|| {
        Finding::new(
            "FIRST_LEVEL_BELOW_PARTITION_COUNT",
            Severity::Warn,
            format!(
                "the first level has {} distinct values but the container would have an estimated {n} physical partitions: the docs ask for more first-level values than physical partitions",
                first.distinct_prefixes
            ),
            serde_json::json!({"distinct": first.distinct_prefixes, "physical_partitions": n}),
        )
    })
}

/// Throttling findings of a layout: UNDER_PROVISIONED when the container as a whole needs more
/// RU/s than it has (even demand, too little throughput), HOT_PHYSICAL_PARTITION when one
/// partition's share of the demand makes it throttle while less than 90 % of the provisioned
/// throughput is usable (uneven demand). Both are estimates from the projected layout.
pub fn throughput_layout_findings(layout: &cosmos::Layout) -> Vec<Finding> {
    let mut findings = Vec::new();
    let Some(h) = layout.hottest_utilisation() else {
        return findings;
    };
    let total: f64 = layout.partitions.iter().map(|p| p.ru_demand).sum();
    let provisioned = layout.provisioned_ru_per_sec.unwrap_or(0.0);
    let usable = layout.usable_share().unwrap_or(1.0);
    if provisioned > 0.0 && total > provisioned {
        findings.push(Finding::new(
            "UNDER_PROVISIONED",
            Severity::Fail,
            format!(
                "the workload needs an estimated {total:.0} RU/s in total but {provisioned:.0} RU/s are provisioned: every partition throttles (429); provision at least {:.0} RU/s",
                total / usable.max(1e-9)
            ),
            serde_json::json!({"ru_demand": total, "provisioned_ru_per_sec": provisioned, "needed_ru_per_sec": total / usable.max(1e-9)}),
        ));
    }
    if h > 1.0 && usable < 0.9 {
        findings.push(Finding::new(
            "HOT_PHYSICAL_PARTITION",
            Severity::Fail,
            format!(
                "the hottest physical partition needs an estimated {} of its share of provisioned RU/s: it throttles (429) while others have spare capacity; only {} of provisioned throughput is usable",
                crate::fmt::percent(h),
                crate::fmt::percent(usable)
            ),
            serde_json::json!({"utilisation": h, "usable_share": usable}),
        ));
    }
    findings
}

/// The service's floor on manual throughput for the data stored (concepts-limits, "minimum
/// throughput"): `max(min_ru_per_sec, stored GB × min_ru_per_gb)`. Provisioning less is refused;
/// the floor rises as the container grows. Autoscale has its own floor and is not checked here.
pub fn min_ru_finding(
    provisioning: Option<Provisioning>,
    l: &Limits,
    stored_bytes: f64,
) -> Option<Finding> {
    let Some(Provisioning::Manual { ru_per_sec }) = provisioning else {
        return None;
    };
    let floor = l.min_ru_per_sec.max(stored_bytes / 1e9 * l.min_ru_per_gb);
    (ru_per_sec < floor).then(|| {
        Finding::new(
            "BELOW_MINIMUM_RU",
            Severity::Fail,
            format!(
                "{} RU/s is below the service's minimum for an estimated {} stored: at least {} RU/s (max of {} RU/s and {} RU/s per GB, concepts-limits)",
                crate::fmt::count(ru_per_sec),
                crate::fmt::human_bytes(stored_bytes),
                crate::fmt::count(floor.ceil()),
                l.min_ru_per_sec,
                l.min_ru_per_gb
            ),
            serde_json::json!({"ru_per_sec": ru_per_sec, "minimum_ru_per_sec": floor, "stored_bytes": stored_bytes}),
        )
    })
}

/// How much hotter than the mean the hottest physical partition must be for
/// [`uneven_partitions_finding`] to speak: a quarter more.
pub const UNEVEN_FACTOR: f64 = 1.25;

/// UNEVEN_PHYSICAL_PARTITIONS (info): throughput is divided evenly among physical partitions, so
/// when the hottest needs a quarter more than the mean, the hottest sets the bill; partial splits
/// (ranges past 50 GB split, their neighbours not) leave ranges of unequal width. Names the
/// documented remedies: redistributing throughput across physical partitions
/// (distribute-throughput-across-partitions, preview, at most 10,000 RU/s a partition), or
/// provisioning for the hottest (what the cost figures assume).
pub fn uneven_partitions_finding(layout: &cosmos::Layout) -> Option<Finding> {
    let n = layout.partitions.len();
    let total: f64 = layout.partitions.iter().map(|p| p.ru_demand).sum();
    if n < 2 || total <= 0.0 {
        return None;
    }
    let hottest = layout
        .partitions
        .iter()
        .map(|p| p.ru_demand)
        .fold(0.0, f64::max);
    let mean = total / n as f64;
    if hottest < UNEVEN_FACTOR * mean {
        return None;
    }
    let splits = if layout.storage_splits > 0 {
        format!(
            "; {} of the {n} partitions come from splits of ranges past 50 GB, which leave ranges of unequal width (only a full range splits)",
            layout.storage_splits
        )
    } else {
        String::new()
    };
    Some(Finding::new(
        "UNEVEN_PHYSICAL_PARTITIONS",
        Severity::Info,
        format!(
            "the hottest of {n} physical partitions needs {} RU/s against a mean of {}: with throughput divided evenly it sets the bill ({} RU/s in all rather than {}){splits}. Remedies: redistribute throughput across physical partitions (distribute-throughput-across-partitions, preview; at most 10,000 RU/s a partition), or provision for the hottest, as the cost figures do",
            crate::fmt::count(hottest),
            crate::fmt::count(mean),
            crate::fmt::count(hottest * n as f64),
            crate::fmt::count(total),
        ),
        serde_json::json!({"partitions": n, "hottest_ru_per_sec": hottest, "mean_ru_per_sec": mean, "storage_splits": layout.storage_splits}),
    ))
}
