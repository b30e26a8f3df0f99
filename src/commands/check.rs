//! `pkadvisor check`: the CI gate. Runs the analysis on the container's key (and any keys to
//! compare), applies the policy, looks for schema changes in the sample and regressions against
//! a baseline, prints the report with the gate's outcome, annotations for the CI system, and
//! returns the exit code: 0 pass, 1 policy failure.

use std::io::Write;

use anyhow::Context;

use crate::analysis::analyze;
use crate::ci::{annotations, baseline, policy, sarif, schema};
use crate::cli::check::{AnnotationsArg, CheckConfig};
use crate::model::Severity;
use crate::model::{CheckOutcome, Location};
use crate::report::{render, OutputFormat};

/// Why standard input is absent from the schema examination.
const STDIN_NOTE: &str =
    "standard input cannot be read twice, so it was not examined for schema changes";

/// Exit code of a policy failure.
pub const EXIT_POLICY: i32 = 1;

/// Runs the gate; returns the exit code (0 pass, 1 policy failure).
pub fn run(cfg: &CheckConfig, out: &mut dyn Write) -> anyhow::Result<i32> {
    let a = &cfg.analysis;
    let mut report = analyze(a)?;
    let key = a.candidates[0].spec.clone();
    let key_report = report
        .candidates
        .iter()
        .find(|c| c.spec == key)
        .context("the key's report is missing")?;
    let at = cfg.iac.as_ref().map(|k| Location {
        file: k.file.clone(),
        line: k.line,
    });
    let mut violations = policy::evaluate(
        key_report,
        &cfg.policy,
        a.limits.logical_partition_bytes,
        at.as_ref(),
    );
    let mut inputs = crate::ingest::discover(&a.inputs, a.input_format)?;
    for i in inputs.iter_mut() {
        i.max_record_bytes = a.max_record_bytes;
    }
    let found = schema::examine(
        &inputs,
        &a.candidates[0],
        a.csv_strings,
        a.limits.key_value_bytes,
    );
    let schema_violations = schema::violations(&found, cfg.policy.max_undefined_share);
    // The schema findings say the same as these, with the offending records.
    let has = |code: &str| schema_violations.iter().any(|v| v.code == code);
    let (missing, null) = (has("SCHEMA_KEY_MISSING"), has("SCHEMA_KEY_NULL"));
    violations.retain(|v| match v.code.as_str() {
        "POLICY_UNDEFINED_SHARE" => !(missing || null),
        "UNDEFINED_PARTITION" => !missing,
        "NULL_PARTITION" => !null,
        _ => true,
    });
    violations.extend(schema_violations);
    if let Some(path) = &cfg.baseline {
        let base = baseline::load(path)?;
        violations.extend(baseline::compare(key_report, &base, cfg.baseline_tolerance));
    }
    violations.sort_by_key(|v| std::cmp::Reverse(v.severity));
    let passed = !violations.iter().any(|v| v.severity == Severity::Fail);
    report.check = Some(CheckOutcome {
        key: key.clone(),
        passed,
        violations: violations.clone(),
        notes: if found.skipped_inputs.is_empty() {
            Vec::new()
        } else {
            vec![STDIN_NOTE.to_owned()]
        },
    });
    if let Some(path) = &cfg.write_baseline {
        std::fs::write(path, render(&report, OutputFormat::Json))
            .with_context(|| format!("cannot write the baseline to {}", path.display()))?;
    }
    let text = if cfg.sarif {
        let mut s = serde_json::to_string_pretty(&sarif::document(&violations))?;
        s.push('\n');
        s
    } else {
        let color = crate::report::table::use_color(a.output.is_none());
        crate::report::render_styled(&report, a.format, color)
    };
    match &a.output {
        Some(path) => std::fs::write(path, &text)
            .with_context(|| format!("cannot write the report to {}", path.display()))?,
        None => out.write_all(text.as_bytes())?,
    }
    let lines = match cfg.annotations {
        Some(AnnotationsArg::Github) => annotations::github(&violations),
        Some(AnnotationsArg::Azure) => annotations::azure(&violations),
        None => Vec::new(),
    };
    for l in lines {
        eprintln!("{l}");
    }
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        let md = render(&report, OutputFormat::Markdown);
        annotations::append_step_summary(std::path::Path::new(&path), &md)
            .context("cannot append to GITHUB_STEP_SUMMARY")?;
    }
    eprintln!(
        "pkadvisor check: {} ({} failure(s), {} warning(s))",
        if passed { "PASS" } else { "FAIL" },
        violations
            .iter()
            .filter(|v| v.severity == Severity::Fail)
            .count(),
        violations
            .iter()
            .filter(|v| v.severity == Severity::Warn)
            .count(),
    );
    Ok(if passed { crate::EXIT_OK } else { EXIT_POLICY })
}
