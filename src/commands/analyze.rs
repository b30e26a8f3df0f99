//! `pkadvisor analyze`: run the analysis and write the report.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use crate::analysis::analyze;
use crate::analysis::AnalyzeOptions;
use crate::report::render_styled;

/// Standard input saved to a file for the two passes of the automatic search; removed on drop.
struct Spool(PathBuf);

impl Drop for Spool {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The automatic search reads the input twice (profile, then analysis): standard input is saved
/// to a temporary file first, named `.json` so its format is sniffed as standard input's is.
fn spool_stdin(cfg: &AnalyzeOptions) -> anyhow::Result<Option<(AnalyzeOptions, Spool)>> {
    if !cfg.auto || !cfg.inputs.iter().any(|p| p.as_os_str() == "-") {
        return Ok(None);
    }
    let path = std::env::temp_dir().join(format!("pkadvisor-stdin-{}.json", std::process::id()));
    let spool = Spool(path.clone());
    let mut file = std::fs::File::create(&path)
        .with_context(|| format!("cannot save standard input to {}", path.display()))?;
    let bytes = std::io::copy(&mut std::io::stdin().lock(), &mut file)
        .with_context(|| format!("cannot save standard input to {}", path.display()))?;
    eprintln!(
        "pkadvisor: note: the automatic candidate search reads the input twice: standard input ({bytes} bytes) was saved to {} for the run",
        path.display()
    );
    let inputs = cfg
        .inputs
        .iter()
        .map(|p| {
            if p.as_os_str() == "-" {
                path.clone()
            } else {
                p.clone()
            }
        })
        .collect();
    Ok(Some((
        AnalyzeOptions {
            inputs,
            ..cfg.clone()
        },
        spool,
    )))
}

/// Runs the analysis; writes the rendered report to `--output` or `out`.
pub fn run(cfg: &AnalyzeOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let spooled = spool_stdin(cfg)?;
    let cfg = spooled.as_ref().map_or(cfg, |s| &s.0);
    let report = analyze(cfg)?;
    let color = crate::report::table::use_color(cfg.output.is_none());
    let text = render_styled(&report, cfg.format, color);
    super::output::write(cfg.output.as_deref(), &text, "report", out)?;
    Ok(())
}
