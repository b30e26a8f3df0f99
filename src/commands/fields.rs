//! `pkadvisor fields`: profile every field of the sample and write the profile.

use std::io::Write;
use std::path::PathBuf;

use crate::cosmos::limits::Limits;
use crate::estimate::Projection;
use crate::ingest;
use crate::ingest::InputFormat;
use crate::keys::spec::KeyPath;
use crate::profile::{self, ProfileOptions, ScanConfig};
use crate::report::fields as render;
use crate::report::OutputFormat;

/// Validated `fields` settings.
#[derive(Debug, Clone)]
pub struct FieldsOptions {
    /// Inputs as given.
    pub inputs: Vec<PathBuf>,
    /// Forced input format.
    pub input_format: Option<InputFormat>,
    /// CSV cells as strings.
    pub csv_strings: bool,
    /// Extended JSON: forced on, off, or detected (`None`).
    pub extended_json: Option<bool>,
    /// Skip malformed records.
    pub skip_invalid: bool,
    /// Worker threads.
    pub threads: usize,
    /// Progress bar.
    pub progress: bool,
    /// Output format.
    pub format: OutputFormat,
    /// Output file.
    pub output: Option<PathBuf>,
    /// Top values per field.
    pub top: usize,
    /// Production size.
    pub projection: Option<Projection>,
    /// Time field.
    pub time_field: Option<KeyPath>,
}

/// Profiles the inputs; writes the rendered profile to `--output` or `out`.
pub fn run(cfg: &FieldsOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let (inputs, _notes) = ingest::discover_announced(
        &cfg.inputs,
        cfg.input_format,
        ingest::DEFAULT_MAX_RECORD_BYTES,
        cfg.extended_json,
        None,
    )?;
    crate::ci::confine::inputs_in_ci(&inputs)?;
    let opts = ProfileOptions {
        scan: ScanConfig::new(cfg.threads, cfg.skip_invalid, cfg.csv_strings, cfg.progress),
        time_field: cfg.time_field.clone(),
        projection: cfg.projection,
        item_overhead_bytes: Limits::default().item_overhead_bytes,
        top: cfg.top,
    };
    let report = profile::run(&inputs, &opts)?;
    // The wall-clock time varies from run to run: it stays out of the rendered profile, so two
    // runs write the same bytes, and off stderr, where it was left behind like a stale progress
    // line once the bar had cleared (JSON keeps `seconds`).
    if report.documents == 0 {
        anyhow::bail!("no documents to profile: the input is empty or holds no JSON objects");
    }
    let color = crate::report::table::use_color(cfg.output.is_none());
    let text = render_profile(&report, cfg.format, color)?;
    super::output::write(cfg.output.as_deref(), &text, "profile", out)?;
    Ok(())
}

/// A field profile in `format` (also `pkadvisor report` on a saved profile).
pub fn render_profile(
    report: &crate::model::FieldsReport,
    format: OutputFormat,
    color: bool,
) -> anyhow::Result<String> {
    Ok(match format {
        OutputFormat::Json => crate::neutralise::json(serde_json::to_string_pretty(report)?) + "\n",
        OutputFormat::Table => {
            crate::report::table::render_blocks_styled(render::blocks(report), color)
        }
        OutputFormat::Markdown => crate::report::markdown::render_blocks(render::blocks(report)),
        OutputFormat::Html => crate::report::html::render_blocks(render::blocks(report)),
    })
}
