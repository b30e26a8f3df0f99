//! What a candidate costs to run in the service's own currency, in every provisioning mode: the
//! RU/s (or autoscale maximum) to set so that no physical partition throttles, and the month's
//! bill at list prices (docs/model.md, "Cost").

use serde::{Deserialize, Serialize};

pub use crate::cosmos::billing::RequiredBy;

/// How throughput is provisioned and billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BillingMode {
    /// Manual (standard) throughput, divided evenly among physical partitions.
    Manual,
    /// Autoscale with dynamic (per-partition, per-region) scaling: the default for accounts
    /// created after 2024-09-25.
    Autoscale,
    /// Autoscale as older accounts without dynamic scaling bill it: the container scales as one.
    AutoscaleClassic,
    /// Serverless: billed per RU consumed, each physical partition at most 5,000 RU/s.
    Serverless,
    /// Manual throughput redistributed across physical partitions (preview): a remedy, never
    /// the ranking's mode.
    Redistributed,
}

impl BillingMode {
    /// The mode as the report names it.
    pub fn label(&self) -> &'static str {
        match self {
            BillingMode::Manual => "manual",
            BillingMode::Autoscale => "autoscale",
            BillingMode::AutoscaleClassic => "classic autoscale",
            BillingMode::Serverless => "serverless",
            BillingMode::Redistributed => "manual, redistributed (preview)",
        }
    }
}

impl std::fmt::Display for BillingMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// A candidate's throughput cost in one mode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ModeCost {
    /// The mode.
    pub mode: BillingMode,
    /// RU/s to set: the manual RU/s, or the autoscale maximum; null for serverless.
    pub provisioned_ru_per_sec: Option<f64>,
    /// What decides `provisioned_ru_per_sec`.
    pub required_by: Option<RequiredBy>,
    /// RU/s billed each hour in one region: manual's provisioned figure, what autoscale scaled
    /// to (summed over partitions with dynamic scaling); null for serverless.
    pub billed_ru_per_sec: Option<f64>,
    /// A month (730 hours) of throughput in every region, US dollars; null when the mode cannot
    /// serve this layout (`note` says why).
    pub monthly_throughput_usd: Option<f64>,
    /// Why the mode cannot serve, or what it assumes.
    pub note: Option<String>,
}

/// A candidate's cost under the workload (estimates: every input is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CostEval {
    /// Physical partitions of the projected layout.
    pub physical_partitions: u64,
    /// RU/s the workload demands in all (fan-out overhead included).
    pub demand_ru_per_sec: f64,
    /// RU/s demanded of the hottest physical partition.
    pub hottest_partition_ru_per_sec: f64,
    /// Manual RU/s to provision (in steps of 100): the largest of the hottest partition's
    /// demand × partitions, the storage floor and the minimum.
    pub required_ru_per_sec: f64,
    /// Which of them decides.
    pub required_by: RequiredBy,
    /// Whether the hottest partition's demand passes what one physical partition serves: the
    /// service would split it further, so the figure is an upper bound.
    pub over_partition_limit: bool,
    /// Stored GB (decimal), projected.
    pub storage_gb: f64,
    /// Regions the account bills throughput and storage in.
    pub regions: u32,
    /// Whether the account writes in every region (multi-region writes).
    pub multi_write: bool,
    /// The mode the ranking compares candidates by: the one declared, else dynamic autoscale.
    pub ranked_by: BillingMode,
    /// Whether `ranked_by` was declared (`--throughput`, `--ru`, `--autoscale-max-ru`).
    pub mode_declared: bool,
    /// The cost in every mode: manual, autoscale (dynamic), classic autoscale, serverless and
    /// manual redistributed (preview).
    pub modes: Vec<ModeCost>,
    /// A month of throughput in the ranking's mode, US dollars; null when that mode cannot
    /// serve the layout.
    pub monthly_throughput_usd: Option<f64>,
    /// A month of storage in every region, US dollars.
    pub monthly_storage_usd: f64,
}

impl CostEval {
    /// Throughput in the ranking's mode plus storage for a month; infinite when the mode cannot
    /// serve the layout (it ranks after every candidate it can serve).
    pub fn monthly_total_usd(&self) -> f64 {
        self.monthly_throughput_usd.unwrap_or(f64::INFINITY) + self.monthly_storage_usd
    }

    /// The cost in `mode`, when computed.
    pub fn mode(&self, mode: BillingMode) -> Option<&ModeCost> {
        self.modes.iter().find(|m| m.mode == mode)
    }

    /// Throughput in `mode` plus storage for a month; infinite when that mode cannot serve.
    pub fn monthly_total_in(&self, mode: BillingMode) -> f64 {
        self.mode(mode)
            .and_then(|m| m.monthly_throughput_usd)
            .unwrap_or(f64::INFINITY)
            + self.monthly_storage_usd
    }
}
