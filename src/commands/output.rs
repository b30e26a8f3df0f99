//! The one output writer of every subcommand: the rendered text to `-o FILE`, or to the output
//! stream (standard output).

use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// Writes `text` to `path` when given (`what` names it in the error: "report", "profile"),
/// else to `out`.
pub fn write(
    path: Option<&Path>,
    text: &str,
    what: &str,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    match path {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write the {what} to {}", path.display()))?,
        None => out.write_all(text.as_bytes())?,
    }
    Ok(())
}
