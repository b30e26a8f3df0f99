//! Command-line arguments (clap derive) and their validation into a [`Config`].
//!
//! Nothing outside this module sees clap types: [`Args`] mirrors the flags, `Config::try_from`
//! checks them and resolves defaults.

use std::path::PathBuf;

use crate::commands::epk::EpkOptions;
use crate::estimate::Projection;

pub mod analyze;
pub mod check;
pub mod fields;
pub mod report;
pub mod shell;
pub mod sql;
pub mod workload;

use clap::{Parser, Subcommand, ValueEnum};

use crate::cosmos::limits::parse_size;
use crate::cosmos::PkVersion;
use crate::keys::spec::SpecError;

pub use crate::analysis::AnalyzeOptions;
pub use analyze::AnalyzeArgs;

pub(crate) const CANDIDATE_HELP: &str = "\
Candidate partition keys, comma-separated (repeatable):
  /tenantId                 a property path (nested: /a/b, quoted: /\"my prop\")
  /tenantId+/region         synthetic: values joined with --separator
  /tenantId+hash(/id)%16    hashed suffix: value + (murmur3 of /id) mod 16
  day(/ts), /d+month(/ts)   time bucket: hour, day, month or year
  /tenantId>/userId>/id     hierarchical (MultiHash), up to 3 levels
See docs/candidates.md for the full grammar.";

/// Examples and exit codes under `pkadvisor --help`.
const TOP_HELP: &str = "\
Examples:
  pkadvisor analyze docs.jsonl --candidates '/tenantId,/tenantId>/userId>/id' --total-size 2TB
  pkadvisor analyze docs.jsonl --total-size 2TB -o report.html     # candidates found automatically
  pkadvisor check --config pkadvisor.toml                          # the CI gate
  pkadvisor report result.json --format markdown                   # re-render a saved JSON report

Exit codes:
  0  success (check: the key passes the policy)
  1  check: the key fails the policy, the schema changed or it regressed against the baseline
  2  bad input, usage or configuration (the message names the file, line and fix)";

/// Examples and exit codes under `pkadvisor analyze --help`.
const ANALYZE_HELP: &str = "\
Examples:
  pkadvisor analyze events.jsonl --candidates '/tenantId,/tenantId>/userId>/id' --total-size 100GB
  pkadvisor analyze events.jsonl -c /tenantId -c '/tenantId+hash(/id)%16' --ru 40000 \\
      --workload workload.yaml --time-field /ts --total-size 500GB
  pkadvisor analyze export/ --total-docs 2e9 -o report.html     # a directory; automatic candidates
  zstdcat dump.jsonl.zst | pkadvisor analyze - -c /customerId --format markdown

Output: a table on a terminal (colour with --color); --format markdown|json|html or -o FILE with
.md/.json/.html. `pkadvisor report` renders a saved JSON report again.

Exit codes: 0 success; 2 bad input, usage or configuration (file, line and fix in the message).";

/// Most worker threads accepted by `--threads`.
pub const MAX_THREADS: usize = 256;

/// Most physical partitions modelled (`--physical-partitions`, or implied by `--ru`): beyond
/// it the layout would not fit in memory, and no real container comes near.
pub const MAX_PHYSICAL_PARTITIONS: u32 = 100_000;

/// Choose an Azure Cosmos DB partition key from sample documents.
#[derive(Debug, Parser)]
#[command(
    name = "pkadvisor",
    version,
    propagate_version = true,
    about,
    long_about = None,
    max_term_width = 100,
    after_help = TOP_HELP
)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Colour verdicts and severities in tables: auto = on a terminal only, unless NO_COLOR or
    /// CLICOLOR=0 is set (CLICOLOR_FORCE forces it); never when writing to a file with -o.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ColorArg::Auto,
        value_name = "WHEN",
        help_heading = "Output"
    )]
    pub color: ColorArg,
}

/// `--color` choices.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum ColorArg {
    /// Colour a terminal, honouring NO_COLOR, CLICOLOR and CLICOLOR_FORCE.
    Auto,
    /// Always colour, even a pipe or a file.
    Always,
    /// Never colour.
    Never,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyze sample documents and rank candidate partition keys.
    #[command(after_help = ANALYZE_HELP, mut_arg("format", analyze_formats))]
    Analyze(Box<AnalyzeArgs>),
    /// CI gate: judge the container's key on a sample; exit 1 when the policy fails.
    Check(Box<check::CheckArgs>),
    /// Print effective partition keys (EPKs) and initial range boundaries.
    Epk(EpkArgs),
    /// Render a saved JSON report (or `fields` profile) as a table, Markdown, JSON or HTML again.
    Report(report::ReportArgs),
    /// Profile every field of the sample: types, presence, cardinality, top values, shape.
    Fields(Box<fields::FieldsArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(shell::CompletionsArgs),
    /// Print a man page (roff): pkadvisor(1), a subcommand's, or write them all with --dir.
    Man(shell::ManArgs),
    /// Print the SQL that computes the key statistics inside DuckDB or Spark (docs/scale.md).
    Sql(sql::SqlArgs),
    /// Derive a workload file from Azure Monitor's request and query logs.
    Workload(workload::WorkloadArgs),
}

/// `analyze --format`: every [`FormatArg`] but `sarif`, which only `check` writes, so neither
/// the help nor the completions offer a value that is then refused.
fn analyze_formats(arg: clap::Arg) -> clap::Arg {
    let values = FormatArg::value_variants()
        .iter()
        .filter(|v| !matches!(v, FormatArg::Sarif))
        .filter_map(ValueEnum::to_possible_value);
    use clap::builder::TypedValueParser;
    arg.value_parser(
        clap::builder::PossibleValuesParser::new(values)
            .map(|s: String| FormatArg::from_str(&s, true).expect("a value listed from FormatArg")),
    )
}

/// Input formats on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum InputFormatArg {
    /// JSON Lines / NDJSON.
    Jsonl,
    /// A top-level JSON array.
    Json,
    /// CSV with a header row.
    Csv,
}

/// Output formats on the command line.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// A terminal table.
    Table,
    /// Markdown for pull requests.
    Markdown,
    /// The versioned JSON document (docs/json-schema.md).
    Json,
    /// A self-contained HTML page with charts (no network requests).
    Html,
    /// SARIF 2.1.0 for code scanning (`check` only).
    Sarif,
}

/// `--container DATABASE/CONTAINER` (of `--observed`, `--workload-from-logs` and `workload
/// from-logs`): the database and the container's names.
pub fn container_arg(c: &str) -> Result<(String, String), ConfigError> {
    match c.split_once('/') {
        Some((d, n)) if !d.is_empty() && !n.is_empty() && !n.contains('/') => {
            Ok((d.to_owned(), n.to_owned()))
        }
        _ => Err(ConfigError::Invalid(format!(
            "--container `{c}`: give DATABASE/CONTAINER, like shop/orders"
        ))),
    }
}

/// `--throughput`: the provisioning mode the ranking prices candidates in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ThroughputArg {
    /// Manual (standard) throughput, divided evenly among physical partitions.
    Manual,
    /// Autoscale with dynamic (per-partition, per-region) scaling.
    Autoscale,
    /// Autoscale as accounts without dynamic scaling bill it.
    AutoscaleClassic,
    /// Serverless: per RU consumed, at most 5,000 RU/s per physical partition, one region.
    Serverless,
}

/// Hash versions for single-path keys.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum HashVersionArg {
    /// Legacy containers created before May 2019.
    #[value(name = "1")]
    V1,
    /// Large partition keys (every container created since 2019).
    #[value(name = "2")]
    V2,
}

/// `pkadvisor epk` flags.
#[derive(Debug, clap::Args)]
pub struct EpkArgs {
    /// Partition key values as JSON (`"redmond"`, `5`, `-2.5`, `true`, `null`, `{}` for
    /// Undefined). Flags may come before or after them; a negative number with a signed exponent
    /// (`-1e-5`) goes after `--`.
    // Negative numbers only, not any hyphen value: `allow_hyphen_values` made every argument
    // after the first value a value, so `epk '"SP"' --hash-version 1` failed.
    #[arg(value_name = "VALUE", allow_negative_numbers = true)]
    pub values: Vec<String>,

    /// Hash version for `--kind hash` (1 or 2), as `analyze --hash-version`.
    #[arg(
        long = "hash-version",
        value_enum,
        default_value = "2",
        value_name = "VERSION"
    )]
    pub hash_version: HashVersionArg,

    /// `hash`: several values form one multi-component key; `multihash`: values are the levels of
    /// a hierarchical key.
    #[arg(long, value_enum, default_value = "hash")]
    pub kind: EpkKind,

    /// Read JSON Lines objects `{"version": "V1"|"V2"|"MultiHash", "values": [...]}` from FILE
    /// (`-` = stdin) and print one EPK per line.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["values", "ranges"])]
    pub batch: Option<PathBuf>,

    /// Print the N ranges of a new container evenly split into N physical partitions, one per
    /// line: `partition I: [MIN, MAX)`, "" being the lowest EPK and FF the highest.
    #[arg(long, value_name = "N", conflicts_with = "values")]
    pub ranges: Option<u32>,
}

/// Key kinds for `pkadvisor epk`.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EpkKind {
    /// Hash (V1 or V2).
    Hash,
    /// Hierarchical (MultiHash).
    Multihash,
}

/// A usage error found while validating arguments.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A candidate does not parse.
    #[error("{0}")]
    Spec(#[from] SpecError),
    /// Anything else, phrased for the user.
    #[error("{0}")]
    Invalid(String),
}

/// What to run.
#[derive(Debug, Clone)]
pub enum Config {
    /// `pkadvisor analyze`.
    Analyze(Box<AnalyzeOptions>),
    /// `pkadvisor check`.
    Check(Box<crate::commands::check::CheckOptions>),
    /// `pkadvisor epk`.
    Epk(EpkOptions),
    /// `pkadvisor report`.
    Report(crate::commands::report::ReportOptions),
    /// `pkadvisor fields`.
    Fields(Box<crate::commands::fields::FieldsOptions>),
    /// `pkadvisor completions`.
    Completions(clap_complete::Shell),
    /// `pkadvisor man`.
    Man(shell::ManRequest),
    /// `pkadvisor sql`.
    Sql(crate::sql::SqlRequest),
    /// `pkadvisor workload from-logs`.
    WorkloadFromLogs(Box<crate::commands::workload::FromLogsOptions>),
}

/// Largest rate accepted for `--writes-per-sec` / `--reads-per-sec` (a billion per second), the
/// same as every rate of a workload file.
pub const MAX_RATE: f64 = crate::workload::file::MAX_RATE;
/// Largest `--total-size` (bytes, 1,000 PB) or `--total-docs` accepted.
pub const MAX_TOTAL: f64 = 1e18;
/// Most partitions (`--top`) or values per field (`fields --top`) listed: the partition list is
/// allocated at this size (16 bytes each), and 2^32 aborted the run. 100,000 lists every
/// partition of a sample of that many keys.
pub const MAX_TOP: usize = 100_000;
/// Most candidates the automatic search may generate (`--max-candidates`).
pub const MAX_CANDIDATES: usize = 1_000;
/// Largest share or ratio threshold of `check` (`--max-partition-share`, `--max-hot-utilisation`,
/// `--max-undefined-share`, `--max-fanout-share`, `--baseline-tolerance`).
pub const MAX_SHARE: f64 = 1e6;

/// A count flag within `min..=max`: `what` names it (`--top`, or the file's key).
pub(crate) fn count_in(what: &str, n: usize, min: usize, max: usize) -> Result<usize, ConfigError> {
    if (min..=max).contains(&n) {
        return Ok(n);
    }
    Err(ConfigError::Invalid(format!(
        "{what} {n}: must be from {} to {} (more is never useful and allocates memory for each)",
        crate::fmt::count(min as f64),
        crate::fmt::count(max as f64)
    )))
}

/// Whether writing `out` would overwrite one of `inputs` (the same file under any name: a
/// symbolic link, `./x`, or a hard link, so files are compared by device and inode).
pub(crate) fn is_an_input(out: &std::path::Path, inputs: &[PathBuf]) -> bool {
    crate::commands::output::same_file(out, inputs.iter().map(PathBuf::as_path))
}

pub(crate) fn at_most(name: &str, v: Option<f64>, max: f64) -> Result<Option<f64>, ConfigError> {
    match v {
        Some(x) if x > max => Err(ConfigError::Invalid(format!(
            "--{name} {x:e}: at most {max:e} (larger numbers are beyond any container and overflow the arithmetic)"
        ))),
        other => Ok(other),
    }
}

/// `--delimiter`: one ASCII character, or `tab` / `\t`; not a quote or a line break.
pub fn csv_delimiter(s: &str) -> Result<u8, String> {
    let b = match s {
        "tab" | "\\t" | "\t" => b'\t',
        _ if s.len() == 1 && s.is_ascii() => s.as_bytes()[0],
        _ => {
            return Err(format!(
                "`{s}`: a delimiter is one ASCII character (, ; | or tab)"
            ))
        }
    };
    if matches!(b, b'"' | b'\n' | b'\r') {
        return Err(format!(
            "`{s}` cannot separate fields: it quotes or ends them"
        ));
    }
    Ok(b)
}

/// A count or rate as people write it: `20000`, `20,000`, `20_000`, `20k`, `1.5M`, `2e4` (SI
/// suffixes k, M, G; decimal, as RU/s are quoted). A value parser for clap: the error says what
/// is accepted.
pub fn si_number(s: &str) -> Result<f64, String> {
    let t = s.trim().replace([',', '_'], "");
    let (digits, scale) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'M')) => (&t[..i], 1e6),
        Some((i, 'G')) => (&t[..i], 1e9),
        _ => (t.as_str(), 1.0),
    };
    match digits.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x * scale),
        _ => Err(format!(
            "cannot read `{s}` as a number: write it as 20000, 20,000 or 20k (k = thousand, M = million, G = billion)"
        )),
    }
}

pub(crate) fn positive(name: &str, v: Option<f64>) -> Result<Option<f64>, ConfigError> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => Err(ConfigError::Invalid(format!(
            "--{name} needs a positive number, got {x}"
        ))),
        other => Ok(other),
    }
}

impl TryFrom<Args> for Config {
    type Error = ConfigError;

    fn try_from(args: Args) -> Result<Config, ConfigError> {
        // The choice is passed on, not decided here: anstream resolves `auto` against the
        // environment and the stream when output is written (report::table::use_color).
        anstream::ColorChoice::write_global(match args.color {
            ColorArg::Auto => anstream::ColorChoice::Auto,
            ColorArg::Always => anstream::ColorChoice::Always,
            ColorArg::Never => anstream::ColorChoice::Never,
        });
        match args.command {
            Command::Analyze(a) => Ok(Config::Analyze(Box::new(analyze::analyze_config(*a)?))),
            Command::Check(c) => Ok(Config::Check(Box::new(check::check_config(*c)?))),
            Command::Report(r) => Ok(Config::Report(report::report_config(r)?)),
            Command::Fields(f) => Ok(Config::Fields(Box::new(fields::fields_config(*f)?))),
            Command::Completions(c) => Ok(Config::Completions(c.shell)),
            Command::Man(m) => Ok(Config::Man(shell::man_config(m))),
            Command::Sql(a) => Ok(Config::Sql(sql::sql_config(a)?)),
            Command::Workload(w) => Ok(Config::WorkloadFromLogs(Box::new(
                workload::workload_config(w)?,
            ))),
            Command::Epk(e) => {
                let version = match (e.kind, e.hash_version) {
                    (EpkKind::Multihash, _) => PkVersion::MultiHash,
                    (EpkKind::Hash, HashVersionArg::V1) => PkVersion::V1,
                    (EpkKind::Hash, HashVersionArg::V2) => PkVersion::V2,
                };
                if e.values.is_empty() && e.batch.is_none() && e.ranges.is_none() {
                    return Err(ConfigError::Invalid(
                        "give partition key values (e.g. pkadvisor epk '\"redmond\"'), --batch FILE or --ranges N".into(),
                    ));
                }
                if let Some(n) = e.ranges {
                    count_in("--ranges", n as usize, 1, MAX_PHYSICAL_PARTITIONS as usize)?;
                }
                Ok(Config::Epk(EpkOptions {
                    values: e.values,
                    version,
                    multihash: e.kind == EpkKind::Multihash,
                    batch: e.batch,
                    ranges: e.ranges,
                }))
            }
        }
    }
}

impl From<InputFormatArg> for crate::ingest::InputFormat {
    fn from(f: InputFormatArg) -> Self {
        match f {
            InputFormatArg::Jsonl => crate::ingest::InputFormat::Jsonl,
            InputFormatArg::Json => crate::ingest::InputFormat::Json,
            InputFormatArg::Csv => crate::ingest::InputFormat::Csv,
        }
    }
}

/// `--extended-json` / `--no-extended-json`: forced on, off, or detected (`None`).
pub(crate) fn extended_json(on: bool, off: bool) -> Option<bool> {
    match (on, off) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

/// `-o FILE` that is not one of the inputs (`what` names what would be written there).
pub(crate) fn output_file(
    output: Option<&PathBuf>,
    inputs: &[PathBuf],
    what: &str,
) -> Result<Option<PathBuf>, ConfigError> {
    let output = output.filter(|p| p.as_os_str() != "-");
    if let Some(out) = output {
        if is_an_input(out, inputs) {
            return Err(ConfigError::Invalid(format!(
                "-o {}: that is one of the inputs; writing the {what} there would destroy it",
                out.display()
            )));
        }
    }
    Ok(output.cloned())
}

/// The output format from `--format` (`flag`) and `-o`'s extension, by one rule
/// (docs/output.md, "Output files"): a known extension (`.json`, `.md`/`.markdown`,
/// `.html`/`.htm`; `.txt`, `.text`, `.log` for a table) names the format and must agree with
/// `--format` when both are given; without `--format`, no extension means a table and any
/// other extension is refused, so `-o z.sarif` cannot silently hold a table.
pub(crate) fn output_format(
    flag: Option<crate::report::OutputFormat>,
    output: Option<&std::path::Path>,
) -> Result<crate::report::OutputFormat, ConfigError> {
    use crate::report::OutputFormat as F;
    let ext = output
        .and_then(|p| p.extension())
        .map(|e| e.to_string_lossy().to_lowercase());
    let named = match ext.as_deref() {
        Some("txt" | "text" | "log") => Some(F::Table),
        _ => output.and_then(F::from_extension),
    };
    let shown = |p: Option<&std::path::Path>| p.map_or(String::new(), |p| p.display().to_string());
    match (flag, named, ext.as_deref()) {
        (Some(f), Some(n), _) if f != n => Err(ConfigError::Invalid(format!(
            "-o {}: the extension names {} output but --format asks for {}; make them agree (or drop --format)",
            shown(output),
            n.name(),
            f.name()
        ))),
        (Some(f), _, _) => Ok(f),
        (None, Some(n), _) => Ok(n),
        (None, None, None) => Ok(F::Table),
        (None, None, Some("sarif")) => Err(ConfigError::Invalid(format!(
            "-o {}: SARIF is written by `pkadvisor check --format sarif` (the gate's violations); this command writes table (.txt), markdown (.md), json (.json) or html (.html)",
            shown(output)
        ))),
        (None, None, Some(e)) => Err(ConfigError::Invalid(format!(
            "-o {}: `.{e}` names no output format; use .txt (table), .md, .json or .html, or pass --format",
            shown(output)
        ))),
    }
}

/// `--time-field`: one property path.
pub(crate) fn time_path(t: &str) -> Result<crate::keys::spec::KeyPath, ConfigError> {
    let c = crate::keys::spec::parse_candidate(t)?;
    match c.levels.as_slice() {
        [level] => match level.parts.as_slice() {
            [crate::keys::spec::Part::Path(p)] => Some(p.clone()),
            _ => None,
        },
        _ => None,
    }
    .ok_or_else(|| {
        ConfigError::Invalid(format!(
            "--time-field needs one property path such as /ts, got `{t}`"
        ))
    })
}

/// `--total-docs` / `--total-size`.
pub(crate) fn projection(
    total_docs: Option<f64>,
    total_size: Option<&str>,
) -> Result<Option<Projection>, ConfigError> {
    Ok(match (total_docs, total_size) {
        (Some(n), _) => Some(Projection::TotalDocs(
            at_most("total-docs", positive("total-docs", Some(n))?, MAX_TOTAL)?.unwrap_or(n),
        )),
        (None, Some(s)) => Some(Projection::TotalSize(
            parse_size(s)
                .filter(|x| *x > 0.0 && *x <= MAX_TOTAL)
                .ok_or_else(|| {
                    ConfigError::Invalid(format!(
                        "--total-size: cannot read `{s}`; use a size like 2TB, 500GB or 750000000000 (at most 1,000 PB)"
                    ))
                })?,
        )),
        (None, None) => None,
    })
}

/// Worker threads: as asked, else every core.
pub(crate) fn threads(asked: Option<usize>) -> Result<usize, ConfigError> {
    if asked == Some(0) {
        return Err(ConfigError::Invalid("--threads needs at least 1".into()));
    }
    if let Some(t) = asked.filter(|&t| t > MAX_THREADS) {
        return Err(ConfigError::Invalid(format!(
            "--threads {t}: at most {MAX_THREADS} (more threads than cores only slows the run down)"
        )));
    }
    Ok(asked.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }))
}

#[cfg(test)]
mod tests;
