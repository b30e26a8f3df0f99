//! `pkadvisor analyze`: run the analysis and write the report.

use std::io::Write;

use crate::analysis::AnalyzeOptions;
use crate::analysis::{analyze, analyze_sources, refuse_mistaken_candidates};
use crate::report::render_view;

/// The analysis of the inputs, refusing a report over one of their files (a folder's included).
/// The automatic search reads the input more than once (its first documents for the profile,
/// then all of it): standard input, a pipe or a FIFO is then first copied to a private temporary
/// file (commands::spool), announced on stderr.
fn from_inputs(cfg: &AnalyzeOptions) -> anyhow::Result<crate::model::Report> {
    let (mut inputs, notes) = crate::ingest::discover_announced(
        &cfg.inputs,
        cfg.input_format,
        cfg.max_record_bytes,
        cfg.extended_json,
        cfg.csv_delimiter,
    )?;
    crate::ci::confine::inputs_in_ci(&inputs)?;
    super::output::refuse_input("-o", cfg.output.as_deref(), &inputs)?;
    if !cfg.auto {
        let report = analyze_sources(cfg, &inputs, notes)?;
        refuse_mistaken_candidates(&report, &inputs, cfg.csv_strings)?;
        return Ok(report);
    }
    let copies = super::spool::spool(&mut inputs, super::spool::MAX_SPOOL_BYTES)?;
    for (name, bytes) in &copies.saved {
        let name = if name == "<stdin>" {
            "standard input"
        } else {
            name
        };
        eprintln!(
            "pkadvisor: note: the automatic candidate search reads the input more than once: {name} ({bytes} bytes) was saved to a temporary file for the run"
        );
    }
    let report = analyze_sources(cfg, &inputs, notes)?;
    refuse_mistaken_candidates(&report, &inputs, cfg.csv_strings)?;
    Ok(report)
}

/// Runs the analysis; writes the rendered report to `--output` or `out`.
pub fn run(cfg: &AnalyzeOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let report = if cfg.key_stats.is_some() {
        analyze(cfg)?
    } else {
        from_inputs(cfg)?
    };
    let color = crate::report::table::use_color(cfg.output.is_none());
    let text = render_view(&report, cfg.format, color, cfg.view);
    super::output::write(cfg.output.as_deref(), &text, "report", out)?;
    Ok(())
}
