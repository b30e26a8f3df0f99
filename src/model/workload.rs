//! The workload evaluation of one candidate (`workload` in the JSON): query routing and cost,
//! point reads, RU/s by operation, fan-out growth, hot spots in time and time to the limits.
//!
//! Fields are declared in alphabetical order: the order the JSON has always had them in (it was
//! written through an untyped map, which sorts its keys), so a typed model changes no byte.

use serde::{Deserialize, Serialize};

use crate::workload::{RoutingClass, TimeToLimit};

/// One query under one candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QueryEval {
    /// RU/s spent visiting partitions beyond the first.
    pub fanout_overhead_ru_per_sec: f64,
    /// Key values or prefixes looked up per execution.
    pub lookups: u32,
    /// Query name.
    pub name: String,
    /// Physical partitions visited per execution (average).
    pub partitions_touched: f64,
    /// Executions per second.
    pub per_sec: f64,
    /// Why it routes so.
    pub reason: String,
    /// `single`, `targeted` or `fanout`.
    pub routing: RoutingClass,
    /// Estimated RU per execution.
    pub ru_per_query: f64,
    /// Estimated RU/s.
    pub ru_per_sec: f64,
}

/// Point reads under one candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PointReadEval {
    /// When the known properties do not determine the key: why (the reads must become queries,
    /// and are costed as the query in `queries` named `point reads`).
    pub needs_query: Option<String>,
    /// Reads per second.
    pub per_sec: f64,
    /// Estimated RU per read (average document size).
    pub ru_per_read: f64,
}

/// Estimated RU/s by operation type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RuDemand {
    /// Part of `queries` spent visiting partitions beyond the first.
    pub fanout_overhead: f64,
    /// Queries (including point reads turned into queries).
    pub queries: f64,
    /// Point reads that can be served as point reads.
    pub reads: f64,
    /// Sum of the above.
    pub total: f64,
    /// Writes.
    pub writes: f64,
}

/// Fan-out overhead at a given partition count.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FanoutGrowth {
    /// Fan-out overhead RU/s of this workload's fan-out queries at that count.
    pub overhead_ru_per_sec: f64,
    /// Physical partitions.
    pub physical_partitions: u32,
}

/// Hot spots in time (with `--time-field`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimeEval {
    /// Width of a time bucket, seconds.
    pub bucket_secs: i64,
    /// Buckets with writes.
    pub buckets: u64,
    /// Share of the latest bucket's writes on its busiest logical partition.
    pub latest_bucket_logical_share: f64,
    /// Spearman rank correlation between key order and first-seen time (|ρ| ≥ 0.7: monotonic).
    pub monotonic_correlation: Option<f64>,
    /// Start of that bucket (ISO 8601, UTC).
    pub peak_bucket: String,
    /// Largest share of one bucket's writes landing on a single logical partition.
    pub peak_logical_share: f64,
    /// Largest share of one bucket's writes landing on a single physical partition (with a layout).
    pub peak_physical_share: Option<f64>,
}

/// When storage runs into limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimeToLimitEval {
    /// `measured` (sample span) or `growth` (`--growth`).
    pub basis: String,
    /// Its projected bytes now.
    pub bytes: f64,
    /// Its growth, bytes per day.
    pub bytes_per_day: f64,
    /// Days until 70 % and 100 % of the logical partition limit.
    pub days: TimeToLimit,
    /// Days until the limit at the two ends of the key's 95 % size interval, earliest first
    /// (its growth scales with its size): `null` when the size is not an estimate, or when the
    /// low end never reaches the limit (the high end alone is then the earliest).
    #[serde(default)]
    pub days_to_limit_range: Option<[Option<f64>; 2]>,
    /// Days until the next storage split of the container (a physical partition reaching 50 GB).
    pub days_to_next_split: Option<f64>,
    /// The logical partition that reaches the limit first.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub key: serde_json::Value,
    /// The date the limit is reached.
    pub limit_date: Option<String>,
    /// The dates (UTC, from the end of the sample).
    pub warn_date: Option<String>,
}

/// The workload evaluation of one candidate (serialized as the candidate's `workload`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorkloadEval {
    /// Fan-out RU/s spread evenly over all physical partitions (not serialized).
    #[serde(skip)]
    pub even_ru_per_sec: f64,
    /// RU/s of production's keys a representative slice does not hold, spread over the key
    /// space like their documents (not serialized; 0 for a uniform sample).
    #[serde(skip)]
    pub unseen_ru_per_sec: f64,
    /// Fan-out overhead as the container grows (current, ×2, ×4, ×8 partitions).
    #[serde(default)]
    pub fanout_growth: Vec<FanoutGrowth>,
    /// RU/s per logical partition, aligned with the candidate's partitions (not serialized).
    #[serde(skip)]
    pub lp_demand: Vec<f64>,
    /// Point reads.
    pub point_reads: Option<PointReadEval>,
    /// Per-query routing and cost.
    #[serde(default)]
    pub queries: Vec<QueryEval>,
    /// RU/s totals.
    pub ru_demand: RuDemand,
    /// Time hot spots (with `--time-field`).
    pub time: Option<TimeEval>,
    /// Time to limits (with `--time-field` or `--growth`).
    pub time_to_limit: Option<TimeToLimitEval>,
}
