//! The field profile of a sample (`pkadvisor fields`): one entry per scalar path.

use serde::{Deserialize, Serialize};

use crate::estimate::DistinctEstimate;

/// Version of the `fields` JSON document.
pub const FIELDS_SCHEMA_VERSION: u32 = 2;

/// The profile of a sample.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldsReport {
    /// Version of this document's schema.
    pub schema_version: u32,
    /// Documents profiled.
    pub documents: u64,
    /// Records skipped as malformed (only with `--skip-invalid`).
    pub records_skipped: u64,
    /// Records that were JSON but not objects, so not documents.
    pub non_objects: u64,
    /// Production documents the distinct ranges are projected to (`documents` without a
    /// projection).
    pub production_documents: f64,
    /// Mean stored document size: bytes as read plus the per-item overhead.
    pub mean_stored_document_bytes: f64,
    /// The time field used for "follows time" (given or detected), `null` without one.
    pub time_field: Option<String>,
    /// What the `id` property looks like, and what to do about it.
    pub id_property: IdProperty,
    /// One entry per scalar path, in path order.
    pub fields: Vec<FieldProfile>,
    /// Path occurrences not profiled because too many distinct paths exist (2,000 are kept).
    pub untracked_paths: u64,
    /// Documents holding a number past the range of a double (`1e400`): valid JSON, profiled
    /// with the number at the largest double of its sign (a key holding one is invalid).
    /// Absent when none does.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub numbers_past_double: u64,
    /// Seconds the profiling pass took: for the note on standard error only, never in the
    /// output (runs are byte-identical).
    #[serde(skip)]
    #[schemars(skip)]
    pub seconds: f64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The `id` property: Cosmos DB requires it in every item, at most 1,023 bytes, without `/` or `\`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IdProperty {
    /// Documents holding `id`.
    pub present: u64,
    /// Whether its values are unique in the sample (exact only up to the tracking limit).
    pub unique: bool,
    /// Documents whose `id` has `/` or `\`, or is longer than 1,023 bytes.
    pub invalid: u64,
    /// `ok`, or what the application must do, in a sentence.
    pub advice: String,
}

/// The profile of one path.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldProfile {
    /// The path in candidate syntax (`/a/b`, quoted segments where needed).
    pub path: String,
    /// Documents holding it with a non-null value.
    pub present: u64,
    /// Share of documents without the property (the Undefined partition if it were the key).
    pub missing_share: f64,
    /// Share of documents where it is `null` (the Null partition).
    pub null_share: f64,
    /// Type mix: documents per JSON type (`string`, `number`, `boolean`, `object`, `array`).
    pub types: std::collections::BTreeMap<String, u64>,
    /// Distinct scalar values in the sample (a lower bound when `distinct_exact` is false).
    pub distinct: u64,
    /// Whether every value was tracked (false past 100,000 distinct values).
    pub distinct_exact: bool,
    /// Distinct values in production: a range from the projection model (`null` when not exact).
    pub distinct_estimate: Option<DistinctEstimate>,
    /// The most common values with their share of documents holding the path.
    pub top_values: Vec<TopValue>,
    /// Mean and largest value size in bytes.
    pub value_bytes: [f64; 2],
    /// What the field looks like: `null` (always null), `id`, `timestamp`, `date`, `boolean`, `enum`, `constant`,
    /// `measurement` (mostly fractional numbers), `quantity` (integers spanning 3+ orders of
    /// magnitude with zero or negatives among them: counts and amounts, not identifiers), `version`
    /// (95 % of strings like `1.4.2` or `v2.0`), `path` (95 % of strings like `/api/x` or a URL),
    /// `text` (mostly strings with spaces, 16+ bytes on average), `mixed_types`, `nested`,
    /// `array`, or `value`.
    pub looks_like: String,
    /// Timestamps: the format (`ISO 8601 date`, `ISO 8601 date-time`, `.NET invariant culture,
    /// MM/dd/yyyy HH:mm:ss`, `epoch number (seconds or milliseconds)`).
    pub time_format: Option<String>,
    /// Whether values come and go with time: half the documents of repeating values hold values
    /// that live less than a quarter of the sample's time span (`null` without a time field, or
    /// when fewer than two values repeat).
    pub follows_time: Option<bool>,
    /// Distinct values seen in the latest 5 % of the time span (`null` without a time field):
    /// few means the current value takes every current write.
    pub active_latest: Option<u64>,
}

/// One frequent value.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TopValue {
    /// The value as JSON text.
    pub value: String,
    /// Documents holding it.
    pub documents: u64,
    /// Share of documents holding the path.
    pub share: f64,
}
