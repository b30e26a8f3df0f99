//! What a candidate costs to run in the service's own currency: the RU/s to provision so that no
//! physical partition throttles, and the month's bill at list prices (docs/model.md, "Cost").

use serde::{Deserialize, Serialize};

/// What decides the RU/s a candidate needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RequiredBy {
    /// The hottest physical partition's demand times the partition count (throughput is
    /// divided evenly, so every partition gets what the hottest needs).
    HottestPartition,
    /// The service's floor per GB stored.
    Storage,
    /// The lowest manual throughput a container accepts.
    Minimum,
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
    /// Manual RU/s to provision (rounded up to 100): the largest of the hottest partition's
    /// demand × partitions, the storage floor and the minimum.
    pub required_ru_per_sec: f64,
    /// Which of them decides.
    pub required_by: RequiredBy,
    /// Whether the hottest partition's demand passes what one physical partition serves: the
    /// service would split it further, so the figure is an upper bound.
    pub over_partition_limit: bool,
    /// Stored GB (decimal), projected.
    pub storage_gb: f64,
    /// A month (730 hours) of `required_ru_per_sec` as manual throughput, US dollars.
    pub monthly_throughput_usd: f64,
    /// A month of autoscale with its maximum at `required_ru_per_sec`, at full scale every hour
    /// (an upper bound: autoscale bills each hour's highest RU/s, at least a tenth of the max).
    pub monthly_autoscale_max_usd: f64,
    /// A month of storage, US dollars.
    pub monthly_storage_usd: f64,
}

impl CostEval {
    /// Throughput (manual) plus storage for a month.
    pub fn monthly_total_usd(&self) -> f64 {
        self.monthly_throughput_usd + self.monthly_storage_usd
    }
}
