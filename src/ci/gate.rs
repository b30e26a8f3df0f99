//! The gate's judgement: the policy, the schema changes and the baseline applied to the key's
//! report, in one pure function. `commands::check` reads the inputs and writes the outputs.

use super::{baseline, policy, schema};
use crate::model::{CandidateReport, CheckOutcome, Location, Severity, Violation};

/// Why standard input is absent from the schema examination.
pub const STDIN_NOTE: &str =
    "standard input cannot be read twice, so it was not examined for schema changes";

/// What the gate judges besides the key's report.
pub struct Evidence<'a> {
    /// The policy.
    pub policy: &'a policy::Policy,
    /// The logical partition limit, bytes (after `--limit`).
    pub logical_partition_bytes: f64,
    /// Where the key is declared, when read from infrastructure code.
    pub declared_at: Option<&'a Location>,
    /// The sample's schema examination for the key's paths.
    pub schema: &'a schema::SchemaReport,
    /// A baseline report and the relative growth it tolerates.
    pub baseline: Option<(&'a serde_json::Value, f64)>,
}

/// Judges the key `key` (its report `key_report`): every violation, failures first, and whether
/// the gate passes (no violation of severity `fail`).
pub fn judge(key: &str, key_report: &CandidateReport, e: &Evidence<'_>) -> CheckOutcome {
    let mut violations = policy::evaluate(
        key_report,
        e.policy,
        e.logical_partition_bytes,
        e.declared_at,
    );
    let schema_violations = schema::violations(e.schema, e.policy.max_undefined_share);
    // The schema violations say the same as these, with the offending records.
    let has = |code: &str| schema_violations.iter().any(|v| v.code == code);
    let (missing, null) = (has("SCHEMA_KEY_MISSING"), has("SCHEMA_KEY_NULL"));
    violations.retain(|v| match v.code.as_str() {
        "POLICY_UNDEFINED_SHARE" => !(missing || null),
        "UNDEFINED_PARTITION" => !missing,
        "NULL_PARTITION" => !null,
        _ => true,
    });
    violations.extend(schema_violations);
    if let Some((base, tolerance)) = e.baseline {
        violations.extend(baseline::compare(key_report, base, tolerance));
    }
    violations.sort_by_key(|v| std::cmp::Reverse(v.severity));
    CheckOutcome {
        key: key.to_owned(),
        passed: !violations.iter().any(|v| v.severity == Severity::Fail),
        violations,
        notes: if e.schema.skipped_inputs.is_empty() {
            Vec::new()
        } else {
            vec![STDIN_NOTE.to_owned()]
        },
    }
}

/// Failures and warnings among `violations`.
pub fn tally(violations: &[Violation]) -> (usize, usize) {
    let n = |s: Severity| violations.iter().filter(|v| v.severity == s).count();
    (n(Severity::Fail), n(Severity::Warn))
}
