//! `pkadvisor workload from-logs`: read the exports, derive the workload, check that the file
//! written reads back as a workload, write it, and say on stderr what the reviewer must know.

use std::io::Write;
use std::path::PathBuf;

use crate::cosmos::limits::Limits;
use crate::workload::logs::{derive, render, LogsOptions};

/// What `workload from-logs` was asked.
#[derive(Debug, Clone)]
pub struct FromLogsOptions {
    /// Exports, container and region.
    pub logs: LogsOptions,
    /// `-o FILE` (None: standard output).
    pub output: Option<PathBuf>,
}

/// Runs `workload from-logs`.
pub fn run(opts: &FromLogsOptions, out: &mut dyn Write) -> anyhow::Result<()> {
    let d = derive(&opts.logs)?;
    let text = render(&d, &Limits::default());
    // The file is for `analyze --workload`: one that does not read back is a bug, not output.
    crate::workload::parse(&text, "derived workload", false)
        .map_err(|e| anyhow::anyhow!("internal error, please report: {e}"))?;
    super::output::write(opts.output.as_deref(), &text, "workload", out)?;
    let shapes = d.shapes.len();
    let obfuscated = d.shapes.iter().filter(|s| s.parsed.obfuscated).count();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "pkadvisor: {} query shape(s), {} unreadable query text(s), {} operation kind(s) over {:.0} s of {}/{} in {}",
        shapes,
        d.unreadable_rows,
        d.ops.len(),
        d.window_secs(),
        crate::neutralise::terminal(&d.database),
        crate::neutralise::terminal(&d.container),
        crate::neutralise::terminal(&d.region)
    );
    if obfuscated > 0 {
        let _ = writeln!(
            err,
            "pkadvisor: {obfuscated} shape(s) have obfuscated property names (the default): their filters are marked unknown and route as fan-outs. \
To read them, turn on full-text query diagnostics (portal: the account's Features, \"Diagnostics full-text query\"; or `az rest --method PATCH` with \
{{\"properties\": {{\"diagnosticLogSettings\": {{\"enableFullTextQuery\": \"True\"}}}}}}), then export a new window: docs/workload-from-logs.md"
        );
    }
    Ok(())
}
