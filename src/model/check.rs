//! The CI gate's outcome (`pkadvisor check`): what failed or warned, and where.

use serde::{Deserialize, Serialize};

/// Where a problem is: a file and a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Location {
    /// File as shown to the user.
    pub file: String,
    /// 1-based line.
    pub line: u64,
}

/// One reason the gate fails (or warns).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Violation {
    /// Stable code: a finding code, or a `POLICY_*`, `SCHEMA_*` or `BASELINE_*` code.
    pub code: String,
    /// `fail` stops the build; `warn` is reported only.
    pub severity: super::Severity,
    /// A sentence for people.
    pub message: String,
    /// Where to look: the first offending records, or the key's declaration.
    pub locations: Vec<Location>,
}

/// The gate's outcome, added to the JSON report as `check`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CheckOutcome {
    /// The key checked.
    pub key: String,
    /// Whether the gate passes (exit 0).
    pub passed: bool,
    /// Everything that failed or warned, failures first.
    pub violations: Vec<Violation>,
    /// What the gate could not examine, in words (e.g. standard input for schema changes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
