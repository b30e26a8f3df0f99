//! `pkadvisor report`: read a saved JSON report and render it again. The JSON is the source of
//! truth: the renderers see exactly the [`Report`](crate::model::Report) the analysis built.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::report::OutputFormat;
use crate::report::{json, render_styled};

/// Validated `report` settings.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The saved report (`-` = standard input).
    pub input: PathBuf,
    /// What to render.
    pub format: OutputFormat,
    /// Where to write (`None` = standard output).
    pub output: Option<PathBuf>,
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
    let report = json::read(&text).with_context(|| format!("{name} is not a pkadvisor report"))?;
    let color = crate::report::table::use_color(cfg.output.is_none());
    let rendered = render_styled(&report, cfg.format, color);
    super::output::write(cfg.output.as_deref(), &rendered, "report", out)?;
    Ok(())
}
