//! `pkadvisor check`: the CI gate. Runs the analysis on the container's key (and any keys to
//! compare), applies the policy, looks for schema changes in the sample and regressions against
//! a baseline, prints the report with the gate's outcome, annotations for the CI system, and
//! returns the exit code: 0 pass, 1 policy failure.
//!
//! The verdict is decided before anything is written, and the exit code is the verdict's: an
//! output that fails afterwards (a closed stdout pipe, an unwritable step summary or baseline)
//! never turns a failing gate into 0. Every output is still attempted, the gate's line
//! (`pkadvisor check: FAIL …`) printed, and only then the errors: a failing gate exits 1 with
//! them, a passing one 2 (its outputs are incomplete). A reader that closes stdout early
//! (`| head`) loses the report: a failing gate still exits 1, a passing one 2.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::analysis::analyze_sources;
use crate::ci::{annotations, baseline, gate, sarif, schema};
use crate::model::{Location, Report, Violation};
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
    /// When the inputs came from a `pkadvisor.toml`: the folder every file they reach must stay
    /// in, checked after sample folders are walked.
    pub confined_to: Option<crate::ci::confine::Confinement>,
}

/// The analysis and the schema examination over the same inputs, each read once: a pipe or
/// FIFO is first copied to a temporary file ([`super::spool`]).
fn analyse(cfg: &CheckOptions) -> anyhow::Result<(Report, schema::SchemaReport)> {
    let a = &cfg.analysis;
    let (mut inputs, notes) = crate::ingest::discover_announced(
        &a.inputs,
        a.input_format,
        a.max_record_bytes,
        a.extended_json,
        a.csv_delimiter,
    )?;
    if let Some(c) = &cfg.confined_to {
        c.inputs(&inputs)?;
    }
    crate::ci::confine::inputs_in_ci(&inputs)?;
    super::output::refuse_input("-o", a.output.as_deref(), &inputs)?;
    super::output::refuse_input("--write-baseline", cfg.write_baseline.as_deref(), &inputs)?;
    let _copies = super::spool::spool(&mut inputs, super::spool::MAX_SPOOL_BYTES)?;
    let report = if a.key_stats.is_some() {
        crate::analysis::analyze(a)?
    } else {
        analyze_sources(a, &inputs, notes)?
    };
    let found = schema::examine(
        &inputs,
        &a.candidates[0],
        a.csv_strings,
        a.limits.key_value_bytes,
    );
    Ok((report, found))
}

/// Runs the gate and writes its outputs; returns the exit code (module docs).
pub fn run(cfg: &CheckOptions, out: &mut dyn Write) -> anyhow::Result<i32> {
    let a = &cfg.analysis;
    let (mut report, found) = analyse(cfg)?;
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
    // The verdict is decided: from here on, errors are reported after the gate's line.
    // A SARIF result needs a location: the key's declaration, else the first sample at line 1.
    let fallback = declared_at.clone().unwrap_or_else(|| Location {
        file: a
            .inputs
            .first()
            .map_or_else(|| "-".to_string(), |p| p.display().to_string()),
        line: 1,
    });
    let errors = write_outputs(cfg, &report, &violations, &fallback, out);
    let (failures, warnings) = gate::tally(&violations);
    say(&format!(
        "pkadvisor check: {} ({}, {})",
        if passed { "PASS" } else { "FAIL" },
        crate::fmt::plural(failures as f64, "failure"),
        crate::fmt::plural(warnings as f64, "warning"),
    ));
    let failed_outputs = !errors.is_empty();
    for e in errors {
        say(&crate::neutralise::terminal_lines(&format!(
            "pkadvisor: {e:#}"
        )));
    }
    Ok(match (passed, failed_outputs) {
        (false, _) => crate::EXIT_POLICY,
        (true, false) => crate::EXIT_OK,
        (true, true) => crate::EXIT_BAD_INPUT,
    })
}

/// A line on stderr; a closed stderr is not an error the gate can report anywhere.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Writes the baseline, the report, the annotations and the step summary, each attempted
/// whatever happened to the others; returns their errors. A closed stdout is not one.
fn write_outputs(
    cfg: &CheckOptions,
    report: &Report,
    violations: &[Violation],
    fallback: &Location,
    out: &mut dyn Write,
) -> Vec<anyhow::Error> {
    let a = &cfg.analysis;
    let mut errors = Vec::new();
    if let Some(path) = &cfg.write_baseline {
        if let Err(e) =
            super::output::replace_file(path, render(report, OutputFormat::Json).as_bytes())
        {
            errors.push(
                anyhow::Error::new(e)
                    .context(format!("cannot write the baseline to {}", path.display())),
            );
        }
    }
    let text = if cfg.sarif {
        sarif::text(violations, fallback)
    } else {
        let color = crate::report::table::use_color(a.output.is_none());
        crate::report::render_view(report, a.format, color, a.view)
    };
    match super::output::write(a.output.as_deref(), &text, "report", out) {
        // A reader that went away (`| head`) lost the report: the gate's verdict stands, but a
        // pass is not one the job has a report of (exit 2).
        Err(e) if a.output.is_none() && crate::is_broken_pipe(&e) => errors.push(anyhow::anyhow!(
            "standard output was closed before the report was written whole: the report is lost"
        )),
        Err(e) => errors.push(e),
        Ok(()) => {}
    }
    let lines = match cfg.annotations {
        Some(annotations::Target::Github) => annotations::github(violations),
        Some(annotations::Target::Azure) => annotations::azure(violations),
        None => Vec::new(),
    };
    for l in lines {
        say(&l);
    }
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) {
        let md = render(report, OutputFormat::Markdown);
        if let Err(e) = annotations::append_step_summary(std::path::Path::new(&path), &md) {
            errors.push(anyhow::Error::new(e).context("cannot append to GITHUB_STEP_SUMMARY"));
        }
    }
    errors
}
