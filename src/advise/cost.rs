//! A candidate's cost in the service's currency (docs/model.md, "Cost"): throughput is divided
//! evenly among physical partitions, so the RU/s to provision is what the hottest partition
//! demands times the partition count (never below the storage floor or the minimum), and the
//! month's bill follows at list prices.

use crate::cosmos::limits::Limits;
use crate::model::{CostEval, LayoutReport, RequiredBy};

/// Hours in a billing month, as Azure's price sheets count them.
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The cost of running the workload under a candidate's projected layout; `demand_ru_per_sec`
/// is the workload's total (fan-out overhead included), `stored_bytes` the projected storage.
/// `None` without a layout or without demand (nothing to provision for).
pub fn cost(
    layout: &LayoutReport,
    demand_ru_per_sec: f64,
    stored_bytes: f64,
    l: &Limits,
) -> Option<CostEval> {
    let n = layout.partitions.len().max(1) as f64;
    let hottest = layout
        .partitions
        .iter()
        .map(|p| p.ru_demand)
        .fold(0.0f64, f64::max);
    if !(demand_ru_per_sec > 0.0 && hottest > 0.0) {
        return None;
    }
    let storage_gb = stored_bytes / 1e9;
    let floors = [
        (n * hottest, RequiredBy::HottestPartition),
        (storage_gb * l.min_ru_per_gb, RequiredBy::Storage),
        (l.min_ru_per_sec, RequiredBy::Minimum),
    ];
    let (need, by) =
        floors.into_iter().fold(
            (0.0, RequiredBy::Minimum),
            |a, b| if b.0 > a.0 { b } else { a },
        );
    // Throughput is set in steps of 100 RU/s.
    let required = (need / 100.0).ceil() * 100.0;
    let per_month =
        |ru: f64, factor: f64| ru / 100.0 * l.price_per_100_ru_hour * factor * HOURS_PER_MONTH;
    Some(CostEval {
        physical_partitions: n as u64,
        demand_ru_per_sec,
        hottest_partition_ru_per_sec: hottest,
        required_ru_per_sec: required,
        required_by: by,
        over_partition_limit: hottest > l.physical_partition_ru_per_sec,
        storage_gb,
        monthly_throughput_usd: per_month(required, 1.0),
        monthly_autoscale_max_usd: per_month(required, l.autoscale_price_factor),
        monthly_storage_usd: storage_gb * l.price_per_gb_month,
    })
}

/// Costs within this relative distance of each other count as equal when ranking: the RU
/// figures are rules of thumb and the projection an estimate, both off by more than a few
/// percent.
pub const COST_TOLERANCE: f64 = 0.10;

/// Whether cost `a` is materially lower than `b` (below it by more than [`COST_TOLERANCE`]).
pub fn cheaper(a: f64, b: f64) -> bool {
    a < b * (1.0 - COST_TOLERANCE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PartitionReport;

    fn layout(demands: &[f64]) -> LayoutReport {
        let mut l: LayoutReport = serde_json::from_value(serde_json::json!({
            "hash": "V2", "physical_partitions": demands.len(), "initial_partitions": 1,
            "partition_count_rule": "minimum", "storage_splits": 0, "provisioned_ru_per_sec": null,
            "partitions": [], "hottest_utilisation": null, "usable_throughput_share": null,
            "prefix_fanout": []
        }))
        .unwrap();
        l.partitions = demands
            .iter()
            .map(|&d| PartitionReport {
                min_epk: String::new(),
                max_epk: String::new(),
                logical_partitions: 1,
                bytes: 0.0,
                ru_demand: d,
                ru_allocated: None,
                utilisation: None,
            })
            .collect();
        l
    }

    /// By hand: 4 partitions, the hottest at 1,234 RU/s: 4 × 1,234 = 4,936 → 5,000 RU/s to
    /// provision; 5,000 / 100 × $0.008 × 730 h = $292 a month manual, × 1.5 = $438 autoscale at
    /// its max; 200 GB × $0.25 = $50 of storage.
    #[test]
    fn hottest_partition_times_the_count_at_list_prices() {
        let c = cost(
            &layout(&[1234.0, 600.0, 500.0, 400.0]),
            2734.0,
            200e9,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(c.required_ru_per_sec, 5000.0);
        assert_eq!(c.required_by, RequiredBy::HottestPartition);
        assert!((c.monthly_throughput_usd - 292.0).abs() < 1e-9);
        assert!((c.monthly_autoscale_max_usd - 438.0).abs() < 1e-9);
        assert!((c.monthly_storage_usd - 50.0).abs() < 1e-9);
        assert!((c.monthly_total_usd() - 342.0).abs() < 1e-9);
        assert!(!c.over_partition_limit);
    }

    /// A light workload on 2 TB: 2,000 GB × 1 RU/s per GB = 2,000 RU/s, above 2 × 300 and 400.
    /// An idle one gets no cost at all.
    #[test]
    fn floors_decide_for_light_workloads() {
        let l = Limits::default();
        let c = cost(&layout(&[300.0, 200.0]), 500.0, 2e12, &l).unwrap();
        assert_eq!(
            (c.required_ru_per_sec, c.required_by),
            (2000.0, RequiredBy::Storage)
        );
        let c = cost(&layout(&[30.0]), 30.0, 1e9, &l).unwrap();
        assert_eq!(
            (c.required_ru_per_sec, c.required_by),
            (400.0, RequiredBy::Minimum)
        );
        assert!(cost(&layout(&[0.0]), 0.0, 1e9, &l).is_none());
    }

    #[test]
    fn costs_within_ten_percent_are_equal() {
        assert!(cheaper(89.0, 100.0));
        assert!(!cheaper(91.0, 100.0) && !cheaper(100.0, 91.0));
    }
}
