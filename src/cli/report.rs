//! Arguments of `pkadvisor report`: re-render a saved JSON report.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::ConfigError;
use crate::commands::report::ReportOptions;
use crate::report::OutputFormat;

/// Formats `report` renders.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ReportFormatArg {
    /// A terminal table.
    Table,
    /// Markdown for pull requests.
    Markdown,
    /// The versioned JSON document, as read (normalised to this version's layout).
    Json,
    /// A self-contained HTML page with charts (no network requests).
    Html,
}

/// `pkadvisor report` arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  pkadvisor analyze docs.jsonl --key /tenantId -o result.json
  pkadvisor report result.json                      # the terminal table
  pkadvisor report result.json --format markdown -o report.md

The output is byte-identical to what `analyze` or `check` would have printed in that format.")]
pub struct ReportArgs {
    /// A JSON report written by `analyze` or `check` with `--format json` (`-` = standard input).
    #[arg(value_name = "REPORT.json")]
    pub input: PathBuf,
    /// Output format [default: from the --output extension (.md, .json, .html), else table].
    #[arg(long, short = 'f', value_enum)]
    pub format: Option<ReportFormatArg>,
    /// Write to this file instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print the headline only (the table; other formats are written whole).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Show every candidate's section and the estimators behind each range (the table).
    #[arg(long)]
    pub detail: bool,
}

/// Validates `report` arguments.
pub fn report_config(a: ReportArgs) -> Result<ReportOptions, ConfigError> {
    let output = a.output.filter(|p| p.as_os_str() != "-");
    if let (Some(out), Ok(input)) = (&output, std::fs::canonicalize(&a.input)) {
        if std::fs::canonicalize(out).is_ok_and(|o| o == input) {
            return Err(ConfigError::Invalid(format!(
                "-o {}: that is the report being read; writing there would destroy it",
                out.display()
            )));
        }
    }
    let flag = a.format.map(|f| match f {
        ReportFormatArg::Table => OutputFormat::Table,
        ReportFormatArg::Markdown => OutputFormat::Markdown,
        ReportFormatArg::Html => OutputFormat::Html,
        ReportFormatArg::Json => OutputFormat::Json,
    });
    let format = super::output_format(flag, output.as_deref())?;
    Ok(ReportOptions {
        input: a.input,
        format,
        output,
        view: crate::report::View::from_flags(a.quiet, a.detail),
    })
}
