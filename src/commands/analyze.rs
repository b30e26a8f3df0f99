//! `pkadvisor analyze`: run the analysis and write the report.

use std::io::Write;

use anyhow::Context;

use crate::analysis::analyze;
use crate::cli::AnalyzeConfig;
use crate::report::render;

/// Runs the analysis; writes the rendered report to `--output` or `out`.
pub fn run(cfg: &AnalyzeConfig, out: &mut dyn Write) -> anyhow::Result<()> {
    let report = analyze(cfg)?;
    let text = render(&report, cfg.format);
    match &cfg.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write the report to {}", path.display()))?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(())
}
