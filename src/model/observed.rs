//! The service's own measurements of the container today (`--observed`), beside the projection:
//! storage calibration, measured traffic and the hot physical partitions (`docs/calibration.md`).

use serde::{Deserialize, Serialize};

use super::Finding;

/// What the Azure Monitor exports measured, and how the projection compares.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ObservedReport {
    /// Export files as given.
    pub files: Vec<String>,
    /// Database read (`DatabaseName`).
    pub database: String,
    /// Container read (`CollectionName`).
    pub container: String,
    /// Region read (`RegionName`).
    pub region: String,
    /// The container's key today (`--current-key`), the key the measurements are of.
    pub current_key: String,
    /// Rows read in every file.
    pub rows_read: u64,
    /// Rows of other containers, left out by `--container`.
    pub rows_other_containers: u64,
    /// Rows of other regions, left out by `--region`.
    pub rows_other_regions: u64,
    /// Rows of the container and region with an empty `PartitionKey` or `PartitionKeyRangeId`
    /// (Microsoft's queries leave them out with `isnotempty`): skipped.
    pub rows_empty_key: u64,
    /// For the current key, what the service measured and whether it agrees with the
    /// projection, in one sentence (the report's headline).
    pub headline: String,
    /// Storage calibration (absent when the exports hold no storage rows).
    pub calibration: Option<Calibration>,
    /// Measured traffic (absent when the exports hold no RU rows).
    pub traffic: Option<MeasuredTraffic>,
    /// The physical partitions today, measured, beside the projection (absent without RU rows).
    pub hot_partitions: Option<HotPartitions>,
    /// Findings of the comparison.
    pub findings: Vec<Finding>,
}

/// Where a measured size falls against the projection's 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CalibrationVerdict {
    /// Inside the interval.
    Inside,
    /// Above its upper bound: the projection is too small.
    Above,
    /// Below its lower bound: the projection is too large.
    Below,
    /// The sample has no document of this key: nothing to compare.
    NotInSample,
}

/// One observed logical partition: measured size beside the projection of the same key.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CalibratedKey {
    /// The key (a string, or an array of levels; `null`, `{}` for Undefined).
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub key: serde_json::Value,
    /// Measured stored bytes (`SizeKb` × 1024, the key's latest report).
    pub measured_bytes: f64,
    /// When it was reported (ISO 8601).
    pub reported: String,
    /// Projected stored bytes of the key (absent when the sample lacks it).
    pub projected_bytes: Option<f64>,
    /// The projection's 95 % interval (absent when the sample lacks the key).
    pub projected_range: Option<[f64; 2]>,
    /// Sample documents of the key.
    pub sample_documents: u64,
    /// Where the measurement falls.
    pub verdict: CalibrationVerdict,
}

/// The storage calibration: every observed key, and the tally.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Calibration {
    /// Observed keys, largest measured first.
    pub keys: Vec<CalibratedKey>,
    /// Keys inside their interval.
    pub inside: u64,
    /// Keys above their interval.
    pub above: u64,
    /// Keys below their interval.
    pub below: u64,
    /// Keys the sample lacks.
    pub not_in_sample: u64,
}

/// RU/s of one operation (`OperationName`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OperationRu {
    /// `OperationName` as the service writes it (`Create`, `Read`, `Query`, …).
    pub operation: String,
    /// Measured RU/s over the window.
    pub ru_per_sec: f64,
}

/// Measured RU/s of one logical partition.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyRu {
    /// The key.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub key: serde_json::Value,
    /// Measured RU/s over the window, all operations.
    pub ru_per_sec: f64,
    /// Its busiest row's RU/s (a second, or the export's bin: `granularity_secs`).
    pub peak_ru_per_sec: f64,
    /// The 99th percentile of its RU/s over the window's rows (rows without traffic count 0).
    pub p99_ru_per_sec: f64,
    /// By operation, largest first.
    pub operations: Vec<OperationRu>,
    /// Sample documents of the key (0: its traffic cannot be carried to the candidates).
    pub sample_documents: u64,
}

/// The measured traffic of the current key over the export's window.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MeasuredTraffic {
    /// First `TimeGenerated` of the RU rows (ISO 8601).
    pub first: String,
    /// Last `TimeGenerated` of the RU rows.
    pub last: String,
    /// The window RU/s are over, seconds: last − first plus one row's granularity, or
    /// `--window`.
    pub window_secs: f64,
    /// `detected` (the rows' span plus one row's granularity) or `given` (`--window`).
    pub window_source: String,
    /// Seconds one row covers, detected from the row times (1: the raw per-second table; 60:
    /// a per-minute summary). Peaks are over one row.
    pub granularity_secs: i64,
    /// The container's busiest row, RU/s (all keys and partitions).
    pub peak_ru_per_sec: f64,
    /// RU/s of queries (`OperationName` Query): the table has logged them since 2023.
    pub query_ru_per_sec: f64,
    /// RU rows read for the container and region.
    pub rows: u64,
    /// Measured RU/s, all keys.
    pub total_ru_per_sec: f64,
    /// By operation, largest first.
    pub operations: Vec<OperationRu>,
    /// Distinct keys measured.
    pub keys_measured: u64,
    /// The keys with the most RU/s (up to `--top`), largest first.
    pub top_keys: Vec<KeyRu>,
    /// RU/s of keys the sample has no document of: measured, but carried to no candidate.
    pub not_in_sample_ru_per_sec: f64,
    /// Whether the measured traffic was carried to the candidates through the sample's
    /// documents (false: the inputs were read once only, from standard input).
    pub carried: bool,
}

/// Measured RU/s of one physical partition today.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RangeRu {
    /// `PartitionKeyRangeId`.
    pub range_id: String,
    /// Measured RU/s over the window.
    pub ru_per_sec: f64,
    /// Its busiest row's RU/s (a second, or the export's bin).
    pub peak_ru_per_sec: f64,
    /// The 99th percentile of its RU/s over the window's rows.
    pub p99_ru_per_sec: f64,
    /// When its busiest row started (ISO 8601).
    pub peak_at: String,
    /// Logical keys measured in it.
    pub keys: u64,
    /// Its key with the most RU.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub hottest_key: serde_json::Value,
}

/// One candidate's hottest physical partition under the measured (or carried) traffic.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CandidateHot {
    /// The candidate.
    pub spec: String,
    /// `measured` for the current key, `carried` for the others.
    pub source: String,
    /// Projected physical partitions.
    pub physical_partitions: u64,
    /// RU/s of its hottest projected physical partition.
    pub hottest_ru_per_sec: f64,
    /// That over today's measured hottest partition (below 1: the key cools it).
    pub versus_today: f64,
    /// RU/s of its hottest logical partition (the average over the window).
    pub hottest_logical_ru_per_sec: f64,
    /// The 95 % interval of that figure from the projections it rests on (the current key's
    /// production documents; the candidate's): a tenant's RU spread over its production
    /// documents, each key's share by its own.
    pub hottest_logical_ru_range: Option<[f64; 2]>,
}

/// The physical partitions today, measured, and the projection of the current key beside them.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HotPartitions {
    /// Measured, hottest first (up to `--top`).
    pub ranges: Vec<RangeRu>,
    /// Physical partitions the export measured.
    pub ranges_measured: u64,
    /// Physical partitions the projection of the current key has.
    pub projected_partitions: u64,
    /// Whether the projection without measurements (traffic follows documents) puts today's
    /// hottest key in its hottest physical partition (absent when the sample lacks that key).
    pub predicted: Option<bool>,
    /// How `predicted` was decided, in words.
    pub prediction: String,
    /// Every candidate's hottest physical partition under the measured load, in rank order.
    pub candidates: Vec<CandidateHot>,
}
