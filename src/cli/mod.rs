//! Command-line arguments (clap derive) and their validation into a [`Config`].
//!
//! Nothing outside this module sees clap types: [`Args`] mirrors the flags, `Config::try_from`
//! checks them and resolves defaults.

use std::io::IsTerminal;
use std::path::PathBuf;

pub mod check;
pub mod fields;
pub mod report;
pub mod shell;

use clap::{Parser, Subcommand, ValueEnum};

use crate::cosmos::limits::{parse_size, Limits};
use crate::cosmos::{PkVersion, Provisioning};
use crate::ingest::InputFormat;
use crate::keys::spec::{parse_candidates, Candidate, SpecError};
use crate::report::OutputFormat;

const CANDIDATE_HELP: &str = "\
Candidate partition keys, comma-separated (repeatable):
  /tenantId                 a property path (nested: /a/b, quoted: /\"my prop\")
  /tenantId+/region         synthetic: values joined with --separator
  /tenantId+hash(/id)%16    hashed suffix: value + (murmur3 of /id) mod 16
  day(/ts), /d+month(/ts)   time bucket: hour, day, month or year
  /tenantId>/userId>/id     hierarchical (MultiHash), up to 3 levels
See docs/candidates.md for the full grammar.";

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
    after_help = "Exit codes: 0 success; 1 `check` found a policy failure; 2 bad input, usage or configuration."
)]
pub struct Args {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyze sample documents and rank candidate partition keys.
    Analyze(Box<AnalyzeArgs>),
    /// CI gate: judge the container's key on a sample; exit 1 when the policy fails.
    Check(Box<check::CheckArgs>),
    /// Print effective partition keys (EPKs) and initial range boundaries.
    Epk(EpkArgs),
    /// Render a saved JSON report as a table, Markdown or JSON again.
    Report(report::ReportArgs),
    /// Profile every field of the sample: types, presence, cardinality, top values, shape.
    Fields(Box<fields::FieldsArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff) to standard output.
    Man,
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
    /// SARIF 2.1.0 for code scanning (`check` only).
    Sarif,
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

/// `pkadvisor analyze` flags.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Input files or directories (recursive); `-` reads stdin. .gz and .zst are decompressed.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Candidate keys, comma-separated.
    #[arg(long = "candidates", value_name = "LIST", long_help = CANDIDATE_HELP)]
    pub candidates: Vec<String>,

    /// One candidate key (repeatable); same grammar as --candidates.
    #[arg(short = 'c', long = "candidate", value_name = "SPEC")]
    pub candidate: Vec<String>,

    /// Most candidates the automatic search generates (`--candidates auto`, or no candidates).
    #[arg(long, default_value_t = crate::profile::discover::DEFAULT_MAX_CANDIDATES, value_name = "N")]
    pub max_candidates: usize,

    /// The container's partition key today: compared with the recommendation, with what a change
    /// would cost (copy RU, duration, which migration path applies).
    #[arg(long, value_name = "SPEC")]
    pub current_key: Option<String>,

    /// RU/s the key-change copy may use (default: the --ru or --autoscale-max-ru given, else
    /// 10,000).
    #[arg(long, value_name = "RU", requires = "current_key")]
    pub copy_ru: Option<f64>,

    /// List the fields the automatic search left out, and why.
    #[arg(long)]
    pub explain: bool,

    /// Separator joining the parts of synthetic, hashed and time keys.
    #[arg(long, default_value = "-", value_name = "TEXT")]
    pub separator: String,

    /// Input format (default: from the extension; `.json` and stdin are sniffed).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,

    /// Keep every CSV field a string (default: fields that are JSON numbers become numbers).
    #[arg(long)]
    pub csv_strings: bool,

    /// Count and skip malformed records instead of stopping at the first one.
    #[arg(long)]
    pub skip_invalid: bool,

    /// Worker threads (default: all cores; at most 256). The report is identical for any value.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Longest record accepted (default 4MiB, twice Cosmos DB's 2 MB item limit); a longer line
    /// stops the run with its line number.
    #[arg(long, value_name = "SIZE")]
    pub max_record_bytes: Option<String>,

    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,

    /// Output format (default: table; or from --output's extension, .json / .md).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,

    /// Write the report to a file instead of stdout (`-` = stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// How many largest logical partitions to list per candidate.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub top: usize,

    /// Project the sample to a production container of N documents.
    #[arg(long, value_name = "N", conflicts_with = "total_size")]
    pub total_docs: Option<f64>,

    /// Project the sample to a production container of this size (e.g. 2TB, 500GB; decimal units).
    #[arg(long, value_name = "SIZE")]
    pub total_size: Option<String>,

    /// Writes per second, spread over logical partitions in proportion to their documents.
    #[arg(long, value_name = "N")]
    pub writes_per_sec: Option<f64>,

    /// Point reads per second, spread like writes.
    #[arg(long, value_name = "N")]
    pub reads_per_sec: Option<f64>,

    /// Workload file (YAML or JSON; docs/workload.md): writes, point reads and queries.
    #[arg(long, value_name = "FILE")]
    pub workload: Option<PathBuf>,

    /// A query, e.g. 'name=dashboard,per_sec=20,filter=/tenantId:eq+/userId:in5' (repeatable).
    #[arg(long = "query", value_name = "SPEC")]
    pub queries: Vec<String>,

    /// Access log: JSON Lines, one operation per line ({"op": "read"|"write"|"query", key
    /// properties...}); replaces the assumption that traffic follows document counts.
    #[arg(long, value_name = "FILE")]
    pub ops: Option<PathBuf>,

    /// Property holding each document's time (ISO 8601 or epoch seconds/millis): enables hot
    /// spots in time, monotonic-key detection and time to the 20 GB limit.
    #[arg(long, value_name = "PATH")]
    pub time_field: Option<String>,

    /// Width of time buckets for hot spots (30s, 1m, 15m, 1h, 1d; default: automatic).
    #[arg(long, value_name = "DURATION", requires = "time_field")]
    pub time_bucket: Option<String>,

    /// Growth instead of the rate measured over the sample's time span, e.g. 3x/year.
    #[arg(long, value_name = "RATE")]
    pub growth: Option<String>,

    /// Manual provisioned throughput (RU/s): adds the physical layout.
    #[arg(long, value_name = "RU", conflicts_with = "autoscale_max_ru")]
    pub ru: Option<f64>,

    /// Autoscale maximum throughput (RU/s): adds the physical layout.
    #[arg(long, value_name = "RU")]
    pub autoscale_max_ru: Option<f64>,

    /// Force the number of physical partitions at creation: adds the physical layout.
    #[arg(long, value_name = "N")]
    pub physical_partitions: Option<u32>,

    /// Hash version of single-path keys (hierarchical keys always use MultiHash).
    #[arg(long, value_enum, default_value = "2", value_name = "VERSION")]
    pub hash_version: HashVersionArg,

    /// Override a limit or cost constant, e.g. logical_partition_bytes=10GB (repeatable; see
    /// docs/model.md for names).
    #[arg(long = "limit", value_name = "NAME=VALUE")]
    pub limits: Vec<String>,
}

/// `pkadvisor epk` flags.
#[derive(Debug, clap::Args)]
pub struct EpkArgs {
    /// Partition key values as JSON (`"redmond"`, `5`, `true`, `null`, `{}` for Undefined).
    #[arg(value_name = "VALUE", allow_hyphen_values = true)]
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

    /// Print the N+1 boundaries of a new container evenly split into N physical partitions.
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

/// How the sample is projected to production.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// The production container holds this many documents.
    TotalDocs(f64),
    /// The production container holds this many (stored) bytes.
    TotalSize(f64),
}

/// Validated `analyze` settings.
#[derive(Debug, Clone)]
pub struct AnalyzeConfig {
    /// Inputs as given.
    pub inputs: Vec<PathBuf>,
    /// Parsed candidates (may be empty when `auto`).
    pub candidates: Vec<Candidate>,
    /// Generate candidates from a field profile (`--candidates auto`, or none given).
    pub auto: bool,
    /// Bound on generated candidates.
    pub max_candidates: usize,
    /// Text output lists the fields the search left out.
    pub explain: bool,
    /// The container's key today (`--current-key`), also analyzed as a candidate.
    pub current_key: Option<Candidate>,
    /// RU/s for the key-change copy.
    pub copy_ru: Option<f64>,
    /// Separator for composed keys.
    pub separator: String,
    /// Forced input format.
    pub input_format: Option<InputFormat>,
    /// `--csv-strings`.
    pub csv_strings: bool,
    /// `--skip-invalid`.
    pub skip_invalid: bool,
    /// Worker threads.
    pub threads: usize,
    /// Longest record accepted, bytes.
    pub max_record_bytes: usize,
    /// Show progress.
    pub progress: bool,
    /// Output format.
    pub format: OutputFormat,
    /// Output file (None = stdout).
    pub output: Option<PathBuf>,
    /// Top-N partitions.
    pub top: usize,
    /// Projection.
    pub projection: Option<Projection>,
    /// Limits after overrides.
    pub limits: Limits,
    /// Writes per second.
    pub writes_per_sec: Option<f64>,
    /// Reads per second.
    pub reads_per_sec: Option<f64>,
    /// Provisioned throughput.
    pub provisioning: Option<Provisioning>,
    /// Forced partition count.
    pub physical_partitions: Option<u32>,
    /// Hash version for single-path keys.
    pub hash_version: PkVersion,
    /// The workload (from --workload and the rate/query shortcuts), if any traffic is stated.
    pub workload: Option<crate::workload::Workload>,
    /// Access log.
    pub ops: Option<PathBuf>,
    /// Time field path.
    pub time_field: Option<crate::keys::spec::KeyPath>,
    /// Time bucket width, seconds (None = automatic).
    pub time_bucket_secs: Option<i64>,
    /// Growth factor per year (`--growth`).
    pub growth_per_year: Option<f64>,
}

/// What to run.
#[derive(Debug, Clone)]
pub enum Config {
    /// `pkadvisor analyze`.
    Analyze(Box<AnalyzeConfig>),
    /// `pkadvisor check`.
    Check(Box<check::CheckConfig>),
    /// `pkadvisor epk`.
    Epk(EpkConfig),
    /// `pkadvisor report`.
    Report(report::ReportConfig),
    /// `pkadvisor fields`.
    Fields(Box<fields::FieldsConfig>),
    /// `pkadvisor completions`.
    Completions(clap_complete::Shell),
    /// `pkadvisor man`.
    Man,
}

/// Validated `epk` settings.
#[derive(Debug, Clone)]
pub struct EpkConfig {
    /// Values as JSON text.
    pub values: Vec<String>,
    /// V1 or V2 for `--kind hash`.
    pub version: PkVersion,
    /// Hierarchical (MultiHash) instead of hash.
    pub multihash: bool,
    /// Batch file.
    pub batch: Option<PathBuf>,
    /// Boundaries for N partitions.
    pub ranges: Option<u32>,
}

/// Largest rate accepted for `--writes-per-sec` / `--reads-per-sec` (a billion per second).
pub const MAX_RATE: f64 = 1e9;
/// Largest `--total-size` (bytes, 1,000 PB) or `--total-docs` accepted.
pub const MAX_TOTAL: f64 = 1e18;

/// Whether writing `out` would overwrite one of `inputs` (the same file under any name).
pub(crate) fn is_an_input(out: &std::path::Path, inputs: &[PathBuf]) -> bool {
    std::fs::canonicalize(out).is_ok_and(|target| {
        inputs
            .iter()
            .any(|i| std::fs::canonicalize(i).is_ok_and(|c| c == target))
    })
}

fn at_most(name: &str, v: Option<f64>, max: f64) -> Result<Option<f64>, ConfigError> {
    match v {
        Some(x) if x > max => Err(ConfigError::Invalid(format!(
            "--{name} {x:e}: at most {max:e} (larger numbers are beyond any container and overflow the arithmetic)"
        ))),
        other => Ok(other),
    }
}

fn positive(name: &str, v: Option<f64>) -> Result<Option<f64>, ConfigError> {
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
        match args.command {
            Command::Analyze(a) => {
                if matches!(a.format, Some(FormatArg::Sarif)) {
                    return Err(ConfigError::Invalid(
                        "--format sarif is for `pkadvisor check` (the gate's violations); analyze writes table, markdown or json".into(),
                    ));
                }
                Ok(Config::Analyze(Box::new(analyze_config(*a)?)))
            }
            Command::Check(c) => Ok(Config::Check(Box::new(check::check_config(*c)?))),
            Command::Report(r) => Ok(Config::Report(report::report_config(r)?)),
            Command::Fields(f) => Ok(Config::Fields(Box::new(fields::fields_config(*f)?))),
            Command::Completions(c) => Ok(Config::Completions(c.shell)),
            Command::Man => Ok(Config::Man),
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
                if e.ranges == Some(0) {
                    return Err(ConfigError::Invalid(
                        "--ranges needs at least 1 partition".into(),
                    ));
                }
                Ok(Config::Epk(EpkConfig {
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

/// Splits a candidate list at commas outside quoted path segments.
fn split_top_level(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut cur, mut quoted, mut escaped) = (String::new(), false, false);
    for c in s.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
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

fn analyze_config(a: AnalyzeArgs) -> Result<AnalyzeConfig, ConfigError> {
    if a.inputs.is_empty() {
        return Err(ConfigError::Invalid(
            "no input: give sample files or folders, or - for standard input".into(),
        ));
    }
    let mut all: Vec<String> = a.candidates.clone();
    all.extend(a.candidate.iter().cloned());
    // `auto` as a list item asks for the automatic search next to explicit candidates; no
    // candidates at all means the search alone.
    let items: Vec<String> = all.iter().flat_map(|x| split_top_level(x)).collect();
    let auto = all.is_empty() || items.iter().any(|i| i.trim() == "auto");
    let joined = items
        .iter()
        .filter(|i| i.trim() != "auto")
        .cloned()
        .collect::<Vec<_>>()
        .join(",");
    // Parse as one list so duplicates across flags are caught with a position.
    let candidates: Vec<Candidate> = if joined.trim().is_empty() {
        Vec::new()
    } else {
        parse_candidates(&joined)?
    };
    let mut candidates = candidates;
    let current_key = match &a.current_key {
        Some(k) => {
            let c = crate::keys::spec::parse_candidate(k)?;
            if !candidates.iter().any(|x| x.same_key(&c)) {
                candidates.push(c.clone());
            }
            Some(c)
        }
        None => None,
    };
    let copy_ru = positive("copy-ru", a.copy_ru)?;
    if a.max_candidates == 0 {
        return Err(ConfigError::Invalid(
            "--max-candidates needs at least 1".into(),
        ));
    }
    let mut limits = Limits::default();
    for l in &a.limits {
        limits
            .set(l)
            .map_err(|e| ConfigError::Invalid(format!("--limit {l}: {e}")))?;
    }
    for c in &candidates {
        if c.levels.len() as f64 > limits.hierarchical_levels {
            return Err(ConfigError::Invalid(format!(
                "candidate `{}` has {} levels; the limit is {}",
                c.spec,
                c.levels.len(),
                limits.hierarchical_levels
            )));
        }
    }
    let projection = projection(a.total_docs, a.total_size.as_deref())?;
    let provisioning = match (
        positive("ru", a.ru)?,
        positive("autoscale-max-ru", a.autoscale_max_ru)?,
    ) {
        (Some(ru), _) => Some(Provisioning::Manual { ru_per_sec: ru }),
        (None, Some(max)) => Some(Provisioning::Autoscale {
            max_ru_per_sec: max,
        }),
        (None, None) => None,
    };
    if a.physical_partitions == Some(0) {
        return Err(ConfigError::Invalid(
            "--physical-partitions needs at least 1".into(),
        ));
    }
    if let Some(out) = a.output.as_ref().filter(|p| p.as_os_str() != "-") {
        if is_an_input(out, &a.inputs) {
            return Err(ConfigError::Invalid(format!(
                "-o {}: that is one of the inputs; writing the report there would destroy it",
                out.display()
            )));
        }
    }
    let format = match (a.format, &a.output) {
        (Some(FormatArg::Table), _) => OutputFormat::Table,
        (Some(FormatArg::Markdown), _) => OutputFormat::Markdown,
        (Some(FormatArg::Json | FormatArg::Sarif), _) => OutputFormat::Json,
        (None, Some(p)) => match p.extension().and_then(|e| e.to_str()) {
            Some("json") => OutputFormat::Json,
            Some("md" | "markdown") => OutputFormat::Markdown,
            _ => OutputFormat::Table,
        },
        (None, None) => OutputFormat::Table,
    };
    let threads = threads(a.threads)?;
    let max_record_bytes = match &a.max_record_bytes {
        None => crate::ingest::DEFAULT_MAX_RECORD_BYTES,
        Some(s) => parse_size(s)
            .filter(|x| *x >= 1000.0 && *x <= (1u64 << 32) as f64)
            .map(|x| x as usize)
            .ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "--max-record-bytes: cannot read `{s}`; use a size between 1KB and 4GB, like 8MB"
                ))
            })?,
    };
    if let Some(n) = a
        .physical_partitions
        .filter(|&n| n > MAX_PHYSICAL_PARTITIONS)
    {
        return Err(ConfigError::Invalid(format!(
            "--physical-partitions {n}: pkadvisor models at most {MAX_PHYSICAL_PARTITIONS} physical partitions (5 PB at 50 GB each)"
        )));
    }
    if let Some(p) = provisioning {
        let per = match p {
            Provisioning::Manual { .. } => limits.manual_ru_per_partition,
            Provisioning::Autoscale { .. } => limits.autoscale_ru_per_partition,
        };
        let n = p.ru_per_sec() / per.max(1.0);
        if n > MAX_PHYSICAL_PARTITIONS as f64 {
            return Err(ConfigError::Invalid(format!(
                "{} RU/s would mean {} physical partitions at creation; pkadvisor models at most {MAX_PHYSICAL_PARTITIONS} ({} RU/s)",
                crate::report::count(p.ru_per_sec()),
                crate::report::count(n.ceil()),
                crate::report::count(MAX_PHYSICAL_PARTITIONS as f64 * per)
            )));
        }
    }
    let mut workload = match &a.workload {
        Some(p) => crate::workload::load(p).map_err(|e| ConfigError::Invalid(e.to_string()))?,
        None => crate::workload::Workload::default(),
    };
    let writes_per_sec = at_most(
        "writes-per-sec",
        positive("writes-per-sec", a.writes_per_sec)?,
        MAX_RATE,
    )?;
    let reads_per_sec = at_most(
        "reads-per-sec",
        positive("reads-per-sec", a.reads_per_sec)?,
        MAX_RATE,
    )?;
    let mut queries = Vec::new();
    for q in &a.queries {
        queries.push(
            crate::workload::parse_query_flag(q)
                .map_err(|e| ConfigError::Invalid(e.to_string()))?,
        );
    }
    // Command-line rates override the file's; command-line queries are added to its list.
    let shortcuts = crate::workload::Workload::from_rates(writes_per_sec, reads_per_sec, queries)
        .map_err(|e| ConfigError::Invalid(e.to_string()))?;
    if let Some(w) = shortcuts.writes {
        workload.writes = Some(w);
    }
    if let Some(r) = shortcuts.reads {
        workload.reads = Some(r);
    }
    for q in shortcuts.queries {
        if workload.queries.iter().any(|x| x.name == q.name) {
            return Err(ConfigError::Invalid(format!(
                "--query: a query named `{}` is already in the workload file",
                q.name
            )));
        }
        workload.queries.push(q);
    }
    let time_field = a.time_field.as_deref().map(time_path).transpose()?;
    let time_bucket_secs = match &a.time_bucket {
        Some(t) => Some(
            crate::workload::parse_duration(t)
                .filter(|s| *s > 0)
                .ok_or_else(|| {
                    ConfigError::Invalid(format!(
                "--time-bucket: cannot read `{t}`; use a duration like 30s, 1m, 15m, 1h or 1d"
            ))
                })?,
        ),
        None => None,
    };
    let growth_per_year = match &a.growth {
        Some(g) => Some(crate::workload::parse_growth(g).ok_or_else(|| {
            ConfigError::Invalid(format!(
                "--growth: cannot read `{g}`; use a factor per period like 3x/year, 1.2x/month"
            ))
        })?),
        None => None,
    };
    Ok(AnalyzeConfig {
        inputs: a.inputs,
        candidates,
        auto,
        max_candidates: a.max_candidates,
        explain: a.explain,
        current_key,
        copy_ru,
        separator: a.separator,
        input_format: a.input_format.map(|f| match f {
            InputFormatArg::Jsonl => InputFormat::Jsonl,
            InputFormatArg::Json => InputFormat::Json,
            InputFormatArg::Csv => InputFormat::Csv,
        }),
        csv_strings: a.csv_strings,
        skip_invalid: a.skip_invalid,
        threads,
        max_record_bytes,
        progress: !a.quiet && std::io::stderr().is_terminal(),
        format,
        output: a.output.filter(|p| p.as_os_str() != "-"),
        top: a.top,
        projection,
        limits,
        writes_per_sec,
        reads_per_sec,
        provisioning,
        physical_partitions: a.physical_partitions,
        hash_version: match a.hash_version {
            HashVersionArg::V1 => PkVersion::V1,
            HashVersionArg::V2 => PkVersion::V2,
        },
        workload: (!workload.is_empty()).then_some(workload),
        ops: a.ops,
        time_field,
        time_bucket_secs,
        growth_per_year,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, String> {
        let a = Args::try_parse_from(args).map_err(|e| e.to_string())?;
        Config::try_from(a).map_err(|e| e.to_string())
    }

    fn analyze(args: &[&str]) -> AnalyzeConfig {
        match parse(args).unwrap() {
            Config::Analyze(a) => *a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn candidates_from_both_flags() {
        let a = analyze(&[
            "pkadvisor",
            "analyze",
            "x.jsonl",
            "--candidates",
            "/a,/b",
            "-c",
            "/c>/d",
        ]);
        let specs: Vec<&str> = a.candidates.iter().map(|c| c.spec.as_str()).collect();
        assert_eq!(specs, vec!["/a", "/b", "/c>/d"]);
    }

    #[test]
    fn duplicate_across_flags_is_an_error() {
        let e = parse(&[
            "pkadvisor",
            "analyze",
            "x.jsonl",
            "--candidates",
            "/a",
            "-c",
            "/a",
        ])
        .unwrap_err();
        assert!(e.contains("duplicate candidate"), "{e}");
    }

    #[test]
    fn no_candidates_means_the_automatic_search() {
        let Config::Analyze(a) = parse(&["pkadvisor", "analyze", "x.jsonl"]).unwrap() else {
            panic!("analyze")
        };
        assert!(a.auto && a.candidates.is_empty());
        let Config::Analyze(a) = parse(&[
            "pkadvisor",
            "analyze",
            "x.jsonl",
            "--candidates",
            "/a,auto",
            "-c",
            "/\"x,auto\"",
        ])
        .unwrap() else {
            panic!("analyze")
        };
        assert!(a.auto);
        let specs: Vec<&str> = a.candidates.iter().map(|c| c.spec.as_str()).collect();
        assert_eq!(specs, ["/a", "/\"x,auto\""]);
        let Config::Analyze(a) = parse(&["pkadvisor", "analyze", "x.jsonl", "-c", "/a"]).unwrap()
        else {
            panic!("analyze")
        };
        assert!(!a.auto);
    }

    #[test]
    fn projection_and_provisioning() {
        let a = analyze(&[
            "pkadvisor",
            "analyze",
            "x",
            "-c",
            "/a",
            "--total-size",
            "2TB",
            "--autoscale-max-ru",
            "40000",
        ]);
        assert_eq!(a.projection, Some(Projection::TotalSize(2e12)));
        assert_eq!(
            a.provisioning,
            Some(Provisioning::Autoscale {
                max_ru_per_sec: 40000.0
            })
        );
        let e = parse(&[
            "pkadvisor",
            "analyze",
            "x",
            "-c",
            "/a",
            "--total-size",
            "lots",
        ])
        .unwrap_err();
        assert!(e.contains("--total-size: cannot read `lots`"), "{e}");
        let e = parse(&[
            "pkadvisor",
            "analyze",
            "x",
            "-c",
            "/a",
            "--ru",
            "1",
            "--autoscale-max-ru",
            "2",
        ])
        .unwrap_err();
        assert!(e.contains("cannot be used with"), "{e}");
    }

    #[test]
    fn output_format_from_flag_or_extension() {
        let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "r.json"]);
        assert_eq!(a.format, OutputFormat::Json);
        let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a", "-o", "r.md"]);
        assert_eq!(a.format, OutputFormat::Markdown);
        let a = analyze(&[
            "pkadvisor",
            "analyze",
            "x",
            "-c",
            "/a",
            "--format",
            "markdown",
            "-o",
            "r.json",
        ]);
        assert_eq!(a.format, OutputFormat::Markdown);
        let a = analyze(&["pkadvisor", "analyze", "x", "-c", "/a"]);
        assert_eq!(a.format, OutputFormat::Table);
    }

    #[test]
    fn limits_override_and_reject_unknown() {
        let a = analyze(&[
            "pkadvisor",
            "analyze",
            "x",
            "-c",
            "/a",
            "--limit",
            "logical_partition_bytes=1GB",
        ]);
        assert_eq!(a.limits.logical_partition_bytes, 1e9);
        let e = parse(&[
            "pkadvisor",
            "analyze",
            "x",
            "-c",
            "/a",
            "--limit",
            "bogus=1",
        ])
        .unwrap_err();
        assert!(e.contains("unknown limit `bogus`"), "{e}");
    }

    #[test]
    fn epk_needs_something_to_do() {
        let e = parse(&["pkadvisor", "epk"]).unwrap_err();
        assert!(e.contains("give partition key values"), "{e}");
        match parse(&["pkadvisor", "epk", "--kind", "multihash", "\"a\"", "5"]).unwrap() {
            Config::Epk(c) => {
                assert_eq!(c.version, PkVersion::MultiHash);
                assert_eq!(c.values, vec!["\"a\"", "5"]);
            }
            other => panic!("{other:?}"),
        }
    }
}
