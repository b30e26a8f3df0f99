//! The automatic candidate search's account: what it generated and why, what it left out.

use serde::{Deserialize, Serialize};

/// What the search produced.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Discovery {
    /// Candidates generated, in priority order, each with why.
    pub generated: Vec<Generated>,
    /// Generated but not analyzed because `--max-candidates` was reached.
    pub dropped: Vec<String>,
    /// Fields not used, with the reason.
    pub excluded: Vec<Excluded>,
    /// Paths profiled.
    pub fields_profiled: usize,
    /// Documents profiled: the first of the input, 100,000 (200,000 when a field is near the
    /// first-level rule at 100,000) rounded up to the end of the block (2 MiB of input) that
    /// reaches them, so the same ones in every run (the analysis reads all).
    pub profiled_documents: u64,
    /// The bound applied.
    pub max_candidates: usize,
    /// Whether text output lists `excluded` (`--explain`).
    pub explain: bool,
    /// What the `id` property needs (`ok`, or what the application must do).
    pub id_property: String,
    /// Fields whose values group several documents (2+ on average, 10+ values), finest first:
    /// each candidate is told whether it keeps these groups together.
    pub natural_groups: Vec<String>,
}

/// One generated candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Generated {
    /// The candidate.
    pub spec: String,
    /// Why it was generated.
    pub why: String,
}

/// One field left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Excluded {
    /// The path.
    pub path: String,
    /// Why.
    pub reason: String,
}
