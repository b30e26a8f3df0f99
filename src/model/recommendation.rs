//! What a run recommends: the key, why, the runner-up, the container definition and, with
//! `--current-key`, what a change costs.

use serde::{Deserialize, Serialize};

use super::Verdict;

/// What a run recommends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Recommendation {
    /// `recommended` (a candidate passes or only warns) or `none_passes`.
    pub status: RecommendationStatus,
    /// The recommended candidate (the best failing one when none passes).
    pub spec: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// Why, in sentences with numbers and the rule each applies.
    pub reasons: Vec<String>,
    /// When nothing passes: what would fix it.
    pub fixes: Vec<String>,
    /// The next best candidate, with why it lost (`null` with a single candidate).
    pub runner_up: Option<RunnerUp>,
    /// Winner against runner-up, aspect by aspect.
    pub comparison: Vec<ComparisonRow>,
    /// Whether the data and throughput are below the level where the docs say the choice matters
    /// little (about 100 GB and 30,000 RU/s).
    pub choice_barely_matters: bool,
    /// The container's partition key definition: `{"partitionKey": {paths, kind, version}}`.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub container_definition: serde_json::Value,
    /// An `az cosmosdb sql container create` command.
    pub az_cli: String,
    /// A Bicep snippet of the container resource.
    pub bicep: String,
    /// Synthetic, hashed and time-bucketed keys: what the application computes on every write.
    pub application_expression: Option<String>,
    /// With `--current-key`: the key today against the recommendation, and what a change costs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_change: Option<super::KeyChange>,
}

/// Whether a candidate could be recommended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecommendationStatus {
    /// A candidate passes (or at worst warns).
    Recommended,
    /// Every candidate fails: `spec` is the least bad, `fixes` says what would help. (A key
    /// short only of throughput warns and is recommended with what to provision as its fix.)
    NonePasses,
    /// No workload was given: `spec` is first by storage safety and spread, but the query
    /// pattern decides; the first reason lists the keys safe for storage and the key each likely
    /// access pattern would take.
    StorageOnly,
}

/// The runner-up and why it lost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunnerUp {
    /// The candidate.
    pub spec: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// Its score.
    pub score: f64,
    /// Why it is second, in one sentence.
    pub why_not: String,
}

/// One aspect compared between the winner and the runner-up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ComparisonRow {
    /// What is compared.
    pub aspect: String,
    /// The winner's value.
    pub winner: String,
    /// The runner-up's value.
    pub runner_up: String,
}

/// The comparison of the container's key today with the recommendation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyChange {
    /// The key today, as given.
    pub current: String,
    /// Its verdict in this run.
    pub current_verdict: super::Verdict,
    /// Whether the recommendation differs from it.
    pub change_recommended: bool,
    /// Items to copy (projected).
    pub items: f64,
    /// Stored bytes to copy (projected).
    pub bytes: f64,
    /// RU to read every item once (a point read each at the mean item size; estimate).
    pub read_ru: f64,
    /// RU to write every item once (an insert each with default indexing; estimate).
    pub write_ru: f64,
    /// The RU/s budget the duration assumes.
    pub budget_ru_per_sec: f64,
    /// Hours the copy takes at the budget, if nothing else uses it (estimate).
    pub hours: f64,
    /// `change_partition_key` (the portal's container copy, offline or online) or
    /// `live_migration` (past its 4 TB and 1,000,000 RU/s limits).
    pub path: String,
    /// RU the online copy adds by doubling the charge of the source's writes while it runs, at
    /// today's write rate (null without a workload's writes).
    pub online_extra_write_ru: Option<f64>,
    /// Physical partitions a new container created at the copy's budget starts with (manual:
    /// RU/s / 6,000, rounded up); they do not merge back.
    pub copy_partitions: u64,
    /// The sentences to print.
    pub reasons: Vec<String>,
}
