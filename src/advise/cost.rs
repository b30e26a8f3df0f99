//! A candidate's cost in the service's currency, in every provisioning mode (docs/model.md,
//! "Cost"): the bill of each mode follows `cosmos::billing`; the ranking compares candidates in
//! the declared mode, or in dynamic autoscale (what a new account gets) when none is declared.

use crate::cosmos::billing::{self, Account, ServerlessMiss};
use crate::cosmos::limits::Limits;
use crate::model::{BillingMode, CostEval, LayoutReport, ModeCost};

pub use crate::cosmos::billing::HOURS_PER_MONTH;

/// How candidates are priced: the ranking's mode, whether it was declared, the account's
/// regions and write mode.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CostBasis {
    /// The mode the ranking compares by.
    pub ranked_by: BillingMode,
    /// Whether the user declared it.
    pub declared: bool,
    /// Regions and write mode.
    pub account: Account,
}

impl Default for CostBasis {
    fn default() -> CostBasis {
        CostBasis {
            ranked_by: BillingMode::Autoscale,
            declared: false,
            account: Account::default(),
        }
    }
}

/// The cost of running the workload under a candidate's projected layout; `demand_ru_per_sec`
/// is the workload's total (fan-out overhead included), `stored_bytes` the projected storage,
/// `storage_layout` each physical partition's demand when partitions are made by storage alone
/// (serverless creates none for throughput; `None` when not projected: a provisioned
/// throughput was declared). `None` without demand (nothing to provision for).
pub fn cost(
    layout: &LayoutReport,
    demand_ru_per_sec: f64,
    stored_bytes: f64,
    storage_layout: Option<&[f64]>,
    basis: &CostBasis,
    l: &Limits,
) -> Option<CostEval> {
    let demands: Vec<f64> = layout.partitions.iter().map(|p| p.ru_demand).collect();
    let hottest = billing::hottest(&demands);
    if !(demand_ru_per_sec > 0.0 && hottest > 0.0) {
        return None;
    }
    let a = &basis.account;
    let storage_gb = stored_bytes / 1e9;
    let manual = billing::manual(&demands, storage_gb, a, l);
    let [dynamic, classic] = billing::autoscale(&demands, storage_gb, a, l);
    let redistributed = billing::redistributed(&demands, storage_gb, a, l);
    let provisioned = |mode, b: billing::Bill, note: Option<String>| ModeCost {
        mode,
        provisioned_ru_per_sec: Some(b.provisioned),
        required_by: Some(b.by),
        billed_ru_per_sec: Some(b.billed),
        monthly_throughput_usd: Some(b.monthly_usd),
        note,
    };
    let modes = vec![
        provisioned(BillingMode::Manual, manual, None),
        provisioned(BillingMode::Autoscale, dynamic, None),
        provisioned(BillingMode::AutoscaleClassic, classic, None),
        serverless(storage_layout, demand_ru_per_sec, a, l),
        provisioned(
            BillingMode::Redistributed,
            redistributed,
            Some("preview: throughput set per physical partition (how-to-redistribute-throughput-across-partitions); a remedy, not a default".to_owned()),
        ),
    ];
    let ranked = modes
        .iter()
        .find(|m| m.mode == basis.ranked_by)
        .and_then(|m| m.monthly_throughput_usd);
    Some(CostEval {
        physical_partitions: demands.len().max(1) as u64,
        demand_ru_per_sec,
        hottest_partition_ru_per_sec: hottest,
        required_ru_per_sec: manual.provisioned,
        required_by: manual.by,
        over_partition_limit: hottest > l.physical_partition_ru_per_sec,
        storage_gb,
        regions: a.regions.max(1),
        multi_write: a.multi_write,
        ranked_by: basis.ranked_by,
        mode_declared: basis.declared,
        modes,
        monthly_throughput_usd: ranked,
        monthly_storage_usd: storage_gb * l.price_per_gb_month * f64::from(a.regions.max(1)),
    })
}

/// Serverless's line: the per-RU bill, or why it cannot serve.
fn serverless(storage_layout: Option<&[f64]>, demand: f64, a: &Account, l: &Limits) -> ModeCost {
    let (usd, note) = match storage_layout {
        None => (
            None,
            Some("not projected: a provisioned throughput or partition count was declared".to_owned()),
        ),
        Some(d) => match billing::serverless(d, demand, a, l) {
            Ok(usd) => (Some(usd), None),
            Err(ServerlessMiss::PartitionTooHot(h)) => (
                None,
                Some(format!(
                    "cannot serve: a physical partition needs {} RU/s and a serverless one serves at most {} (serverless)",
                    crate::fmt::count(h),
                    crate::fmt::count(l.serverless_partition_ru_per_sec)
                )),
            ),
            Err(ServerlessMiss::MultiRegion(n)) => (
                None,
                Some(format!(
                    "cannot serve: serverless accounts run in one region, not {n} (serverless)"
                )),
            ),
        },
    };
    ModeCost {
        mode: BillingMode::Serverless,
        provisioned_ru_per_sec: None,
        required_by: None,
        billed_ru_per_sec: None,
        monthly_throughput_usd: usd,
        note,
    }
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
    use crate::model::{PartitionReport, RequiredBy};

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

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    /// By hand: 4 partitions, the hottest at 1,234 RU/s: manual needs 4 × 1,234 = 4,936 → 5,000
    /// RU/s, 50 × $0.008 × 730 = $292 a month. Autoscale needs Tmax 5,000 (steps of 1,000) and,
    /// with dynamic scaling (floor 0.1 × 5,000 / 4 = 125 a partition), bills 1,234 + 600 + 500 +
    /// 400 = 2,734 RU/s: 27.34 × $0.012 × 730 = $239.50, the ranking's figure when no mode is
    /// declared. 200 GB × $0.25 = $50 of storage.
    #[test]
    fn every_mode_at_list_prices() {
        let c = cost(
            &layout(&[1234.0, 600.0, 500.0, 400.0]),
            2734.0,
            200e9,
            Some(&[2734.0]),
            &CostBasis::default(),
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(c.required_ru_per_sec, 5000.0);
        assert_eq!(c.required_by, RequiredBy::HottestPartition);
        let m = c.mode(BillingMode::Manual).unwrap();
        assert!(close(m.monthly_throughput_usd.unwrap(), 292.0));
        let a = c.mode(BillingMode::Autoscale).unwrap();
        assert_eq!(a.provisioned_ru_per_sec, Some(5000.0));
        assert!(close(a.billed_ru_per_sec.unwrap(), 2734.0));
        assert!(close(a.monthly_throughput_usd.unwrap(), 239.4984));
        assert_eq!(c.ranked_by, BillingMode::Autoscale);
        assert!(close(c.monthly_total_usd(), 289.4984));
        assert!(close(c.monthly_total_in(BillingMode::Manual), 342.0));
        assert!(close(c.monthly_storage_usd, 50.0));
        // One storage partition at 2,734 RU/s fits serverless: 2,734 × 3,600 × 730 / 1e6 ×
        // $0.25 = $1,796.24.
        let s = c.mode(BillingMode::Serverless).unwrap();
        assert!(close(s.monthly_throughput_usd.unwrap(), 1796.238));
        assert!(!c.over_partition_limit);
    }

    /// A light workload on 2 TB: manual's floor is 2,000 GB × 1 RU/s per GB = 2,000 RU/s,
    /// above 2 × 300 and 400. An idle one gets no cost at all.
    #[test]
    fn floors_decide_for_light_workloads() {
        let l = Limits::default();
        let b = CostBasis::default();
        let c = cost(&layout(&[300.0, 200.0]), 500.0, 2e12, None, &b, &l).unwrap();
        assert_eq!(
            (c.required_ru_per_sec, c.required_by),
            (2000.0, RequiredBy::Storage)
        );
        let c = cost(&layout(&[30.0]), 30.0, 1e9, None, &b, &l).unwrap();
        assert_eq!(
            (c.required_ru_per_sec, c.required_by),
            (400.0, RequiredBy::Minimum)
        );
        assert!(c
            .mode(BillingMode::Serverless)
            .unwrap()
            .monthly_throughput_usd
            .is_none());
        assert!(cost(&layout(&[0.0]), 0.0, 1e9, None, &b, &l).is_none());
    }

    /// Three regions bill throughput and storage three times; a declared serverless mode that
    /// cannot serve ranks at an infinite cost.
    #[test]
    fn regions_and_a_serverless_miss() {
        let l = Limits::default();
        let basis = CostBasis {
            ranked_by: BillingMode::Manual,
            declared: true,
            account: Account {
                regions: 3,
                multi_write: false,
            },
        };
        let c = cost(&layout(&[1000.0; 4]), 4000.0, 10e9, None, &basis, &l).unwrap();
        assert!(close(c.monthly_throughput_usd.unwrap(), 700.8));
        assert!(close(c.monthly_storage_usd, 7.5));
        let basis = CostBasis {
            ranked_by: BillingMode::Serverless,
            declared: true,
            account: Account::default(),
        };
        let c = cost(
            &layout(&[6000.0]),
            6000.0,
            10e9,
            Some(&[6000.0]),
            &basis,
            &l,
        )
        .unwrap();
        assert!(c.monthly_total_usd().is_infinite());
        let note = c
            .mode(BillingMode::Serverless)
            .unwrap()
            .note
            .clone()
            .unwrap();
        assert!(
            note.contains("6,000 RU/s") && note.contains("5,000"),
            "{note}"
        );
    }

    #[test]
    fn costs_within_ten_percent_are_equal() {
        assert!(cheaper(89.0, 100.0));
        assert!(!cheaper(91.0, 100.0) && !cheaper(100.0, 91.0));
    }
}
