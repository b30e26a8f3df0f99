//! `pkadvisor report`: read a saved JSON report and render it again. The JSON is the source of
//! truth: the renderers see exactly the [`Report`](crate::model::Report) the analysis built.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::report::OutputFormat;
use crate::report::{json, render_view};

/// Validated `report` settings.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The saved report (`-` = standard input).
    pub input: PathBuf,
    /// What to render.
    pub format: OutputFormat,
    /// Where to write (`None` = standard output).
    pub output: Option<PathBuf>,
    /// How much of the report the table shows (`-q`, default, `--detail`).
    pub view: crate::report::View,
}

/// A saved field profile rendered again, as `pkadvisor fields` renders it.
fn fields_profile(
    text: &str,
    found: u64,
    format: OutputFormat,
    color: bool,
) -> anyhow::Result<String> {
    use crate::model::FIELDS_SCHEMA_VERSION;
    if found != u64::from(FIELDS_SCHEMA_VERSION) {
        anyhow::bail!(
            "this pkadvisor reads field profiles of schema_version {FIELDS_SCHEMA_VERSION}: run `pkadvisor fields` on the sample again, or render it with the pkadvisor that wrote it"
        );
    }
    let profile: crate::model::FieldsReport = serde_json::from_str(text)?;
    super::fields::render_profile(&profile, format, color)
}

/// Reads the report named in `cfg`, renders it, writes it to `--output` or `out`.
pub fn run(cfg: &ReportOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let name = if cfg.input.as_os_str() == "-" {
        "standard input".to_owned()
    } else {
        cfg.input.display().to_string()
    };
    let text = if cfg.input.as_os_str() == "-" {
        crate::small_file::read_stream_to_string(std::io::stdin().lock())
            .context("cannot read the report from standard input")?
    } else {
        crate::small_file::read_to_string(&cfg.input)
            .with_context(|| format!("cannot read {name}"))?
    };
    let color = crate::report::table::use_color(cfg.output.is_none());
    let rendered = match json::read(&text) {
        Err(json::ReadError::FieldsProfile { found }) => {
            fields_profile(&text, found, cfg.format, color).with_context(|| {
                format!("{name} is a `pkadvisor fields` profile (schema_version {found})")
            })?
        }
        read => {
            let report = read.with_context(|| format!("{name} is not a pkadvisor report"))?;
            render_view(&report, cfg.format, color, cfg.view)
        }
    };
    super::output::write(cfg.output.as_deref(), &rendered, "report", out)?;
    Ok(())
}
