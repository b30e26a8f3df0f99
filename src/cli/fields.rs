//! Arguments of `pkadvisor fields`: profile every field of a sample.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;

use super::{projection, threads, time_path, ConfigError, InputFormatArg};
use crate::commands::fields::FieldsOptions;
use crate::ingest::InputFormat;
use crate::report::OutputFormat;

/// `pkadvisor fields` arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  pkadvisor fields orders.jsonl
  pkadvisor fields export/ --total-size 2TB --format markdown -o fields.md
  pkadvisor fields events.jsonl --time-field /ts --format json

Every scalar path is listed with its type mix (a key that is a number in some documents and a
string in others hashes differently), presence, distinct values (with the production range when
--total-docs or --total-size is given), top values, value sizes and what it looks like. Arrays are
summarised, never offered as keys. The `id` property is checked against the service's rules.")]
pub struct FieldsArgs {
    /// Input files or directories (recursive); `-` reads stdin. .gz and .zst are decompressed.
    #[arg(value_name = "INPUT", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Input format (default: from the extension; `.json` and stdin are sniffed).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,
    /// Keep every CSV field a string.
    #[arg(long)]
    pub csv_strings: bool,
    /// Unwrap MongoDB Extended JSON wrappers ($oid, $date, …) (default: when detected).
    #[arg(long, overrides_with = "no_extended_json")]
    pub extended_json: bool,
    /// Keep Extended JSON wrappers as objects even when detected.
    #[arg(long)]
    pub no_extended_json: bool,
    /// Count and skip malformed records instead of stopping at the first one.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Worker threads (default: all cores). The profile is identical for any value.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Output format [default: from --output's extension (.json, .md), else table].
    #[arg(long, short = 'f', value_enum, value_name = "FORMAT")]
    pub format: Option<super::report::ReportFormatArg>,
    /// Write to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Top values listed per field.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub top: usize,
    /// Project distinct counts to a production container of N documents.
    #[arg(long, value_name = "N", conflicts_with = "total_size")]
    pub total_docs: Option<f64>,
    /// Project distinct counts to a production container of this size (e.g. 2TB).
    #[arg(long, value_name = "SIZE")]
    pub total_size: Option<String>,
    /// Property holding each document's time (default: detected from the first 2,000 documents).
    #[arg(long, value_name = "PATH")]
    pub time_field: Option<String>,
}

/// Validates `fields` arguments.
pub fn fields_config(a: FieldsArgs) -> Result<FieldsOptions, ConfigError> {
    let output = super::output_file(a.output.as_ref(), &a.inputs, "profile")?;
    use super::report::ReportFormatArg as F;
    let flag = a.format.map(|f| match f {
        F::Table => OutputFormat::Table,
        F::Markdown => OutputFormat::Markdown,
        F::Html => OutputFormat::Html,
        F::Json => OutputFormat::Json,
    });
    let format = super::output_format(flag, output.as_deref())?;
    Ok(FieldsOptions {
        input_format: a.input_format.map(InputFormat::from),
        inputs: a.inputs,
        csv_strings: a.csv_strings,
        extended_json: super::extended_json(a.extended_json, a.no_extended_json),
        skip_invalid: a.skip_invalid,
        threads: threads(a.threads)?,
        progress: !a.quiet && std::io::stderr().is_terminal(),
        format,
        output,
        top: super::count_in("--top", a.top, 1, super::MAX_TOP)?,
        projection: projection(a.total_docs, a.total_size.as_deref())?,
        time_field: a.time_field.as_deref().map(time_path).transpose()?,
    })
}
