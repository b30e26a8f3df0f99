//! `pkadvisor check`: the CI gate. Runs the analysis on the container's key (and any keys to
//! compare), applies the policy, looks for schema changes in the sample and regressions against
//! a baseline, prints the report with the gate's outcome, annotations for the CI system, and
//! returns the exit code: 0 pass, 1 policy failure.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::analysis::analyze;
use crate::ci::{annotations, baseline, gate, sarif, schema};
use crate::model::Location;
use crate::report::{render, OutputFormat};

/// Validated `check` settings.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The analysis: the key first, then the comparisons.
    pub analysis: crate::analysis::AnalyzeOptions,
    /// Where the key came from, when from infrastructure code.
    pub iac: Option<crate::ci::iac::IacKey>,
    /// The policy.
    pub policy: crate::ci::policy::Policy,
    /// Baseline to compare with.
    pub baseline: Option<PathBuf>,
    /// Relative growth tolerated against the baseline.
    pub baseline_tolerance: f64,
    /// Where to write a new baseline.
    pub write_baseline: Option<PathBuf>,
    /// Annotations to print.
    pub annotations: Option<annotations::Target>,
    /// SARIF output instead of the report.
    pub sarif: bool,
}

/// Runs the gate and writes its report; returns whether the key passes (`lib::run` turns that
/// into the exit code).
pub fn run(cfg: &CheckOptions, out: &mut dyn Write) -> anyhow::Result<bool> {
    let a = &cfg.analysis;
    let mut report = analyze(a)?;
    let key = a.candidates[0].spec.clone();
    let key_report = report
        .candidates
        .iter()
        .find(|c| {
            c.candidate
                .as_ref()
                .is_some_and(|k| k.same_key(&a.candidates[0]))
        })
        .context("the key's report is missing")?;
    let declared_at = cfg.iac.as_ref().map(|k| Location {
        file: k.file.clone(),
        line: k.line,
    });
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
    let base = cfg.baseline.as_deref().map(baseline::load).transpose()?;
    let outcome = gate::judge(
        &key,
        key_report,
        &gate::Evidence {
            policy: &cfg.policy,
            logical_partition_bytes: a.limits.logical_partition_bytes,
            declared_at: declared_at.as_ref(),
            schema: &found,
            baseline: base.as_ref().map(|b| (b, cfg.baseline_tolerance)),
        },
    );
    let (passed, violations) = (outcome.passed, outcome.violations.clone());
    report.check = Some(outcome);
    if let Some(path) = &cfg.write_baseline {
        std::fs::write(path, render(&report, OutputFormat::Json))
            .with_context(|| format!("cannot write the baseline to {}", path.display()))?;
    }
    let text = if cfg.sarif {
        let first = inputs.first().map_or("-", |i| i.display.as_str());
        let fallback = declared_at.clone().unwrap_or(Location {
            file: first.to_string(),
            line: 1,
        });
        sarif::text(&violations, &fallback)
    } else {
        let color = crate::report::table::use_color(a.output.is_none());
        crate::report::render_styled(&report, a.format, color)
    };
    super::output::write(a.output.as_deref(), &text, "report", out)?;
    let lines = match cfg.annotations {
        Some(annotations::Target::Github) => annotations::github(&violations),
        Some(annotations::Target::Azure) => annotations::azure(&violations),
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
    let (failures, warnings) = gate::tally(&violations);
    eprintln!(
        "pkadvisor check: {} ({failures} failure(s), {warnings} warning(s))",
        if passed { "PASS" } else { "FAIL" },
    );
    Ok(passed)
}
