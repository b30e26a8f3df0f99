//! The workload evaluation of one candidate: query routing and cost, point reads, RU/s by
//! operation, fan-out growth, hot spots in time and time to the limits.

use serde::Serialize;

use crate::workload::{RoutingClass, TimeToLimit};

/// One query under one candidate.
#[derive(Debug, Clone, Serialize)]
pub struct QueryEval {
    /// Query name.
    pub name: String,
    /// Executions per second.
    pub per_sec: f64,
    /// `single`, `targeted` or `fanout`.
    pub routing: RoutingClass,
    /// Physical partitions visited per execution (average).
    pub partitions_touched: f64,
    /// Key values or prefixes looked up per execution.
    pub lookups: u32,
    /// Estimated RU per execution.
    pub ru_per_query: f64,
    /// Estimated RU/s.
    pub ru_per_sec: f64,
    /// RU/s spent visiting partitions beyond the first.
    pub fanout_overhead_ru_per_sec: f64,
    /// Why it routes so.
    pub reason: String,
}

/// Point reads under one candidate.
#[derive(Debug, Clone, Serialize)]
pub struct PointReadEval {
    /// Reads per second.
    pub per_sec: f64,
    /// Estimated RU per read (average document size).
    pub ru_per_read: f64,
    /// When the known properties do not determine the key: why (the reads must become queries,
    /// and are costed as the query in `queries` named `point reads`).
    pub needs_query: Option<String>,
}

/// Estimated RU/s by operation type.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct RuDemand {
    /// Writes.
    pub writes: f64,
    /// Point reads that can be served as point reads.
    pub reads: f64,
    /// Queries (including point reads turned into queries).
    pub queries: f64,
    /// Sum of the above.
    pub total: f64,
    /// Part of `queries` spent visiting partitions beyond the first.
    pub fanout_overhead: f64,
}

/// Fan-out overhead at a given partition count.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct FanoutGrowth {
    /// Physical partitions.
    pub physical_partitions: u32,
    /// Fan-out overhead RU/s of this workload's fan-out queries at that count.
    pub overhead_ru_per_sec: f64,
}

/// Hot spots in time (with `--time-field`).
#[derive(Debug, Clone, Serialize)]
pub struct TimeEval {
    /// Width of a time bucket, seconds.
    pub bucket_secs: i64,
    /// Buckets with writes.
    pub buckets: u64,
    /// Largest share of one bucket's writes landing on a single logical partition.
    pub peak_logical_share: f64,
    /// Start of that bucket (ISO 8601, UTC).
    pub peak_bucket: String,
    /// Largest share of one bucket's writes landing on a single physical partition (with a layout).
    pub peak_physical_share: Option<f64>,
    /// Share of the latest bucket's writes on its busiest logical partition.
    pub latest_bucket_logical_share: f64,
    /// Spearman rank correlation between key order and first-seen time (|ρ| ≥ 0.7: monotonic).
    pub monotonic_correlation: Option<f64>,
}

/// When storage runs into limits.
#[derive(Debug, Clone, Serialize)]
pub struct TimeToLimitEval {
    /// `measured` (sample span) or `growth` (`--growth`).
    pub basis: &'static str,
    /// The logical partition that reaches the limit first.
    pub key: serde_json::Value,
    /// Its projected bytes now.
    pub bytes: f64,
    /// Its growth, bytes per day.
    pub bytes_per_day: f64,
    /// Days until 70 % and 100 % of the logical partition limit.
    pub days: TimeToLimit,
    /// The dates (UTC, from the end of the sample).
    pub warn_date: Option<String>,
    /// The date the limit is reached.
    pub limit_date: Option<String>,
    /// Days until the next storage split of the container (a physical partition reaching 50 GB).
    pub days_to_next_split: Option<f64>,
}

/// The workload evaluation of one candidate (serialized as the candidate's `workload`).
#[derive(Debug, Clone, Serialize)]
pub struct WorkloadEval {
    /// Per-query routing and cost.
    pub queries: Vec<QueryEval>,
    /// Point reads.
    pub point_reads: Option<PointReadEval>,
    /// RU/s totals.
    pub ru_demand: RuDemand,
    /// Fan-out overhead as the container grows (current, ×2, ×4, ×8 partitions).
    pub fanout_growth: Vec<FanoutGrowth>,
    /// Time hot spots (with `--time-field`).
    pub time: Option<TimeEval>,
    /// Time to limits (with `--time-field` or `--growth`).
    pub time_to_limit: Option<TimeToLimitEval>,
    /// RU/s per logical partition, aligned with the candidate's partitions (not serialized).
    #[serde(skip)]
    pub lp_demand: Vec<f64>,
    /// Fan-out RU/s spread evenly over all physical partitions (not serialized).
    #[serde(skip)]
    pub even_ru_per_sec: f64,
}
