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

/// Throttling findings of a layout at a declared throughput, each a **cost**, not a failure:
/// more RU/s (or throughput redistributed across partitions) serves it. UNDER_PROVISIONED when
/// the container as a whole needs more RU/s than it has; HOT_PHYSICAL_PARTITION when one
/// partition's share of the demand makes it throttle while less than 90 % of the provisioned
/// throughput is usable (uneven demand). Both carry the RU/s the layout needs and how far that
/// is over the declared figure. What no provisioning serves (a partition that must take more than
/// one partition can) is [`over_throughput_finding`]. Estimates from the projected layout.
pub fn throughput_layout_findings(layout: &cosmos::Layout, l: &Limits) -> Vec<Finding> {
    let mut findings = Vec::new();
    let Some(h) = layout.hottest_utilisation() else {
        return findings;
    };
    let demands: Vec<f64> = layout.partitions.iter().map(|p| p.ru_demand).collect();
    let total: f64 = demands.iter().sum();
    let provisioned = layout.provisioned_ru_per_sec.unwrap_or(0.0);
    let usable = layout.usable_share().unwrap_or(1.0);
    let n = demands.len().max(1);
    let hottest = crate::cosmos::billing::hottest(&demands);
    // What the layout needs at its partition count, manual, in the service's steps.
    let acct = crate::cosmos::billing::Account::default();
    let needed = crate::cosmos::billing::manual(&demands, 0.0, &acct, l).provisioned;
    let spread = crate::cosmos::billing::redistributed(&demands, 0.0, &acct, l).provisioned;
    let over = |need: f64| crate::fmt::percent(need / provisioned.max(1e-9) - 1.0);
    if provisioned > 0.0 && total > provisioned {
        findings.push(Finding::new(
            "UNDER_PROVISIONED",
            Severity::Warn,
            format!(
                "the workload needs an estimated {} RU/s in total but {} RU/s are declared: every partition would throttle (429). A cost, not a flaw of the key: this layout needs {} RU/s ({} more than declared; see the cost figures)",
                crate::fmt::count(total),
                crate::fmt::count(provisioned),
                crate::fmt::count(needed),
                over(needed)
            ),
            serde_json::json!({"ru_demand": total, "provisioned_ru_per_sec": provisioned, "needed_ru_per_sec": needed}),
        ));
    } else if h > 1.0 && usable < 0.9 {
        findings.push(Finding::new(
            "HOT_PHYSICAL_PARTITION",
            Severity::Warn,
            format!(
                "the hottest of {n} physical partitions needs an estimated {} RU/s, {} of its even share of the {} RU/s declared: it would throttle (429) while others have spare capacity. A cost, not a flaw of the key: provision {} RU/s ({} more), or redistribute throughput across partitions (preview: {} RU/s in all would serve every partition)",
                crate::fmt::count(hottest),
                crate::fmt::percent(h),
                crate::fmt::count(provisioned),
                crate::fmt::count(needed),
                over(needed),
                crate::fmt::count(spread)
            ),
            serde_json::json!({"utilisation": h, "usable_share": usable, "hottest_ru_per_sec": hottest, "needed_ru_per_sec": needed, "redistributed_ru_per_sec": spread}),
        ));
    }
    findings
}

/// PHYSICAL_PARTITION_OVER_THROUGHPUT (fail): after the service split as far as more throughput
/// makes it, one physical partition still must take more than one partition serves
/// (`physical_partition_ru_per_sec`, or `serverless_partition_ru_per_sec` for serverless, which
/// never splits for throughput): its demand sits in a range no split divides, such as a
/// hierarchical prefix that every write shares. No provisioning serves it.
pub fn over_throughput_finding(
    hottest_ru_per_sec: f64,
    partitions: usize,
    serverless: bool,
    l: &Limits,
) -> Option<Finding> {
    let cap = if serverless {
        l.serverless_partition_ru_per_sec
    } else {
        l.physical_partition_ru_per_sec
    };
    (hottest_ru_per_sec > cap).then(|| {
        let why = if serverless {
            "a serverless container splits partitions for storage only, never for throughput (serverless)"
        } else {
            "more throughput splits partitions, but no split cools this one: its demand sits in a range a split cannot divide"
        };
        Finding::new(
            "PHYSICAL_PARTITION_OVER_THROUGHPUT",
            Severity::Fail,
            format!(
                "the hottest of {} physical partitions must take an estimated {} RU/s, over the {} RU/s one partition serves: {why}. No provisioning serves it",
                partitions,
                crate::fmt::count(hottest_ru_per_sec),
                crate::fmt::count(cap)
            ),
            serde_json::json!({"hottest_ru_per_sec": hottest_ru_per_sec, "limit_ru_per_sec": cap, "physical_partitions": partitions, "serverless": serverless}),
        )
    })
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
            Severity::Warn,
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
/// when the hottest needs a quarter more than the mean, the hottest sets a manual bill (dynamic
/// autoscale bills each partition for its own use); partial splits
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
            "the hottest of {n} physical partitions needs {} RU/s against a mean of {}: with throughput divided evenly it sets a manual bill ({} RU/s in all rather than {}){splits}. Autoscale with dynamic scaling bills each partition for its own use, so it costs this layout much less (see the cost by mode); with manual throughput, redistribute throughput across physical partitions (distribute-throughput-across-partitions, preview; at most 10,000 RU/s a partition), or provision for the hottest",
            crate::fmt::count(hottest),
            crate::fmt::count(mean),
            crate::fmt::count(hottest * n as f64),
            crate::fmt::count(total),
        ),
        serde_json::json!({"partitions": n, "hottest_ru_per_sec": hottest, "mean_ru_per_sec": mean, "storage_splits": layout.storage_splits}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cosmos::{Epk, Layout, PhysicalPartition};

    /// A layout of partitions with these demands, `provisioned` RU/s divided evenly.
    fn layout(demands: &[f64], provisioned: f64) -> Layout {
        let share = provisioned / demands.len() as f64;
        Layout {
            partitions: demands
                .iter()
                .map(|&d| PhysicalPartition {
                    min_epk: Epk::min(),
                    max_epk: Epk::max(),
                    logical_partitions: 1,
                    bytes: 0.0,
                    ru_demand: d,
                    ru_allocated: Some(share),
                    members: 0..0,
                    span: (0.0, 1.0),
                })
                .collect(),
            order: Vec::new(),
            storage_splits: 0,
            unsplittable: Vec::new(),
            provisioned_ru_per_sec: Some(provisioned),
        }
    }

    fn codes(f: &[Finding]) -> Vec<(&'static str, Severity)> {
        f.iter().map(|f| (f.code, f.severity)).collect()
    }

    /// Binary splits leave partitions of unequal width: 8 partitions at 80,000 RU/s (10,000 a
    /// partition), the hottest at 9,900 (just under its share), 10,000 (at it), 10,200 (2 %
    /// over) and 11,100 (11 % over), the others light enough that less than 90 % of the
    /// throughput is usable. Under or at the share nothing is said; over it, a warning carrying
    /// the RU/s needed, 8 × 10,200 = 81,600 (2.0 % more than declared) and 8 × 11,100 = 88,800
    /// (11.0 %), and the redistributed total. Never a failure.
    #[test]
    fn a_hot_partition_at_a_declared_throughput_is_a_cost() {
        let l = Limits::default();
        for (hottest, want) in [
            (9_900.0, None),
            (10_000.0, None),
            (10_200.0, Some((81_600.0, "2.0%"))),
            (11_100.0, Some((88_800.0, "11.0%"))),
        ] {
            let mut d = vec![hottest];
            d.extend([5_000.0; 7]);
            let f = throughput_layout_findings(&layout(&d, 80_000.0), &l);
            match want {
                None => assert!(f.is_empty(), "{hottest}: {:?}", codes(&f)),
                Some((need, over)) => {
                    assert_eq!(codes(&f), [("HOT_PHYSICAL_PARTITION", Severity::Warn)]);
                    assert_eq!(f[0].evidence["needed_ru_per_sec"], need);
                    assert_eq!(
                        f[0].evidence["redistributed_ru_per_sec"],
                        ((hottest + 35_000.0) / 100.0_f64).ceil() * 100.0
                    );
                    assert!(
                        f[0].message.contains(&format!("({over} more)")),
                        "{}",
                        f[0].message
                    );
                }
            }
        }
        // Even demand over the whole: under-provisioned, also a cost.
        let f = throughput_layout_findings(&layout(&[6_000.0; 4], 20_000.0), &l);
        assert_eq!(codes(&f), [("UNDER_PROVISIONED", Severity::Warn)]);
        assert_eq!(f[0].evidence["needed_ru_per_sec"], 24_000.0);
    }

    /// What no provisioning serves fails: a partition that must take 12,000 RU/s after every
    /// split (a prefix every write shares), or 5,200 in serverless; 10,000 is within the limit.
    #[test]
    fn a_partition_over_what_one_serves_fails() {
        let l = Limits::default();
        let f = over_throughput_finding(12_000.0, 14, false, &l).unwrap();
        assert_eq!(f.severity, Severity::Fail);
        assert!(
            f.message.contains("12,000 RU/s, over the 10,000"),
            "{}",
            f.message
        );
        assert!(over_throughput_finding(10_000.0, 14, false, &l).is_none());
        let f = over_throughput_finding(5_200.0, 1, true, &l).unwrap();
        assert_eq!(f.evidence["limit_ru_per_sec"], 5_000.0);
        assert!(over_throughput_finding(5_000.0, 1, true, &l).is_none());
    }
}
