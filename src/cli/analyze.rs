//! `pkadvisor analyze`: its flags. Their validation into an [`AnalyzeOptions`] is in
//! `analyze/validate.rs`.
//!
//! [`AnalyzeOptions`]: crate::analysis::AnalyzeOptions

use std::path::PathBuf;

use super::{FormatArg, HashVersionArg, InputFormatArg, ThroughputArg, CANDIDATE_HELP};

mod validate;

pub(super) use validate::{analyze_config, split_top_level};

/// `pkadvisor analyze` flags.
#[derive(Debug, clap::Args)]
pub struct AnalyzeArgs {
    /// Input files or directories (recursive); `-` reads stdin. .gz and .zst are decompressed.
    #[arg(value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,

    /// Candidate keys, comma-separated.
    #[arg(help_heading = "Candidates", long = "candidates", value_name = "LIST", long_help = CANDIDATE_HELP)]
    pub candidates: Vec<String>,

    /// One candidate key (repeatable); same grammar as --candidates.
    #[arg(
        help_heading = "Candidates",
        short = 'c',
        long = "candidate",
        value_name = "SPEC"
    )]
    pub candidate: Vec<String>,

    /// Most candidates the automatic search generates (`--candidates auto`, or no candidates).
    #[arg(help_heading = "Candidates", long, default_value_t = crate::profile::discover::DEFAULT_MAX_CANDIDATES, value_name = "N")]
    pub max_candidates: usize,

    /// The container's partition key today: compared with the recommendation, with what a change
    /// would cost (copy RU, duration, which migration path applies).
    #[arg(help_heading = "Candidates", long, value_name = "SPEC")]
    pub current_key: Option<String>,

    /// RU/s the key-change copy may use (default: the --ru or --autoscale-max-ru given, else
    /// 10,000).
    #[arg(
        help_heading = "Candidates",
        long,
        value_name = "RU",
        requires = "current_key", value_parser = super::si_number)]
    pub copy_ru: Option<f64>,

    /// List the fields the automatic search left out, and why.
    #[arg(help_heading = "Candidates", long)]
    pub explain: bool,

    /// Separator joining the parts of synthetic, hashed and time keys.
    #[arg(
        help_heading = "Candidates",
        long,
        default_value = "-",
        value_name = "TEXT"
    )]
    pub separator: String,

    /// Key statistics computed inside an engine by `pkadvisor sql` (CSV, JSON Lines) instead of
    /// sample documents; see docs/scale.md.
    #[arg(help_heading = "Input", long, value_name = "FILE", conflicts_with_all = ["inputs", "time_field", "input_format", "skip_invalid"])]
    pub key_stats: Option<PathBuf>,

    /// Input format (default: from the extension; `.json` and stdin are sniffed).
    #[arg(help_heading = "Input", long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<InputFormatArg>,

    /// Unwrap MongoDB Extended JSON type wrappers ($oid, $numberLong, $date, …) to the values a
    /// migration stores (default: when the first megabyte of a JSON input holds one).
    #[arg(help_heading = "Input", long, overrides_with = "no_extended_json")]
    pub extended_json: bool,

    /// Keep Extended JSON wrappers as objects even when detected.
    #[arg(help_heading = "Input", long)]
    pub no_extended_json: bool,

    /// CSV field delimiter: `,` `;` `tab` `|` or any one ASCII character (default: sniffed from
    /// the header row; with a delimiter other than a comma, `12,5` is the number 12.5).
    #[arg(help_heading = "Input", long, value_name = "CHAR", value_parser = super::csv_delimiter)]
    pub delimiter: Option<u8>,

    /// Keep every CSV field a string (default: fields that are JSON numbers become numbers).
    #[arg(help_heading = "Input", long)]
    pub csv_strings: bool,

    /// Count and skip malformed records instead of stopping at the first one.
    #[arg(help_heading = "Input", long)]
    pub skip_invalid: bool,

    /// Worker threads (default: all cores; at most 256). The report is identical for any value.
    #[arg(help_heading = "Input", long, value_name = "N")]
    pub threads: Option<usize>,

    /// Memory for the candidates' distinct keys (default: half of the machine's memory, or of
    /// the container's limit). Above it, a hash-chosen share of each candidate's keys is kept with
    /// exact counts and the report says so (docs/benchmarks.md, "Memory").
    #[arg(help_heading = "Input", long, value_name = "SIZE")]
    pub memory_limit: Option<String>,

    /// Longest record accepted (default 4MiB, twice Cosmos DB's 2 MB item limit); a longer line
    /// stops the run with its line number.
    #[arg(help_heading = "Input", long, value_name = "SIZE")]
    pub max_record_bytes: Option<String>,

    /// No progress bar, and the table prints the headline only (the recommended key and the
    /// verdict tally) unless --detail is given too. Other formats are written whole.
    #[arg(help_heading = "Output", short, long)]
    pub quiet: bool,

    /// Show every candidate's section (partitions, findings, largest keys, physical layout,
    /// queries), the side-by-side with the runner-up, Bicep, and the estimators behind each
    /// range; the default table shows the headline, the recommendation and the ranking.
    #[arg(help_heading = "Output", long)]
    pub detail: bool,

    /// Output format (default: table; or from --output's extension, .json / .md / .html).
    #[arg(help_heading = "Output", long, value_enum, value_name = "FORMAT")]
    pub format: Option<FormatArg>,

    /// Write the report to a file instead of stdout (`-` = stdout).
    #[arg(help_heading = "Output", short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// How many largest logical partitions to list per candidate.
    #[arg(help_heading = "Output", long, default_value_t = 10, value_name = "N")]
    pub top: usize,

    /// Project the sample to a production container of N documents.
    #[arg(
        help_heading = "Production size (projection)",
        long,
        value_name = "N",
        conflicts_with = "total_size", value_parser = super::si_number)]
    pub total_docs: Option<f64>,

    /// Project the sample to a production container of this size (e.g. 2TB, 500GB; decimal units).
    #[arg(
        help_heading = "Production size (projection)",
        long,
        value_name = "SIZE"
    )]
    pub total_size: Option<String>,

    /// How the sample relates to production: `uniform` (a random sample of documents: each key
    /// keeps its share and grows in size; the default), `slice` (whole entities: each key keeps
    /// its size and keys grow in number) or `slice:/customerId[,PATH…]` (a slice of those
    /// entities only). Used with --total-size or --total-docs (docs/projection.md).
    #[arg(
        help_heading = "Production size (projection)",
        long,
        value_name = "RELATION"
    )]
    pub sample: Option<String>,

    /// Writes per second, spread over logical partitions in proportion to their documents.
    #[arg(help_heading = "Workload", long, value_name = "N", value_parser = super::si_number)]
    pub writes_per_sec: Option<f64>,

    /// Point reads per second, spread like writes.
    #[arg(help_heading = "Workload", long, value_name = "N", value_parser = super::si_number)]
    pub reads_per_sec: Option<f64>,

    /// Workload file (YAML or JSON; docs/workload.md): writes, point reads and queries.
    #[arg(help_heading = "Workload", long, value_name = "FILE")]
    pub workload: Option<PathBuf>,

    /// The workload measured from Azure Monitor request and query log exports, in one step
    /// (what `pkadvisor workload from-logs` writes; docs/workload-from-logs.md). --container
    /// and --region choose the container and region.
    #[arg(
        help_heading = "Workload",
        long,
        value_name = "EXPORT",
        num_args = 1..,
        conflicts_with = "workload"
    )]
    pub workload_from_logs: Vec<PathBuf>,

    /// A query, e.g. 'name=dashboard,per_sec=20,filter=/tenantId:eq+/userId:in5' (repeatable).
    #[arg(help_heading = "Workload", long = "query", value_name = "SPEC")]
    pub queries: Vec<String>,

    /// Access log: JSON Lines, one operation per line ({"op": "read"|"write"|"query", key
    /// properties...}); replaces the assumption that traffic follows document counts.
    #[arg(help_heading = "Workload", long, value_name = "FILE")]
    pub ops: Option<PathBuf>,

    /// Azure Monitor exports of CDBPartitionKeyStatistics / CDBPartitionKeyRUConsumption (or
    /// AzureDiagnostics), JSON or CSV: the container's measured sizes and RU/s beside the
    /// projection (docs/calibration.md). Needs --current-key (`check`: the key checked).
    #[arg(
        help_heading = "Workload",
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = ["ops", "key_stats"]
    )]
    pub observed: Vec<PathBuf>,

    /// The container of the --observed exports, as DATABASE/CONTAINER (needed when they hold
    /// several). `check` also reads it as the container of --from-iac.
    #[arg(help_heading = "Workload", long, value_name = "DB/NAME")]
    pub container: Option<String>,

    /// The region of the --observed exports (needed when they hold several).
    #[arg(
        help_heading = "Workload",
        long,
        value_name = "NAME",
        requires = "observed"
    )]
    pub region: Option<String>,

    /// The time the --observed RU rows cover (30m, 1h, 7d). Default: from the first row time to
    /// the last, plus one row's granularity (a second for the raw table, the bin of a summary),
    /// detected from the row times.
    #[arg(
        help_heading = "Workload",
        long,
        value_name = "DURATION",
        requires = "observed"
    )]
    pub window: Option<String>,

    /// Property holding each document's time (ISO 8601 or epoch seconds/millis): enables hot
    /// spots in time, monotonic-key detection and time to the 20 GB limit.
    #[arg(help_heading = "Workload", long, value_name = "PATH")]
    pub time_field: Option<String>,

    /// Width of time buckets for hot spots (30s, 1m, 15m, 1h, 1d; default: automatic).
    #[arg(
        help_heading = "Workload",
        long,
        value_name = "DURATION",
        requires = "time_field"
    )]
    pub time_bucket: Option<String>,

    /// Growth instead of the rate measured over the sample's time span, e.g. 3x/year.
    #[arg(
        help_heading = "Production size (projection)",
        long,
        value_name = "RATE"
    )]
    pub growth: Option<String>,

    /// Time to live of the items (the container's default TTL), e.g. 7d: storage levels off at
    /// ingest × TTL, so partitions stop growing there; with a workload's insert rate and no
    /// --total-size, production is that steady state.
    #[arg(
        help_heading = "Production size (projection)",
        long,
        value_name = "DURATION"
    )]
    pub ttl: Option<String>,

    /// Manual provisioned throughput (RU/s): adds the physical layout.
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        value_name = "RU",
        conflicts_with = "autoscale_max_ru", value_parser = super::si_number)]
    pub ru: Option<f64>,

    /// Autoscale maximum throughput (RU/s): adds the physical layout.
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        value_name = "RU", value_parser = super::si_number)]
    pub autoscale_max_ru: Option<f64>,

    /// The provisioning mode to rank candidates by (default: the one --ru or --autoscale-max-ru
    /// implies, else autoscale with dynamic scaling, what a new account gets). Every mode's cost
    /// is reported either way.
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        value_enum,
        value_name = "MODE"
    )]
    pub throughput: Option<ThroughputArg>,

    /// Regions the account is replicated to: throughput and storage are billed in each.
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        default_value_t = 1,
        value_name = "N"
    )]
    pub regions: u32,

    /// The account writes in every region (multi-region writes): priced as such.
    #[arg(help_heading = "Throughput and physical layout", long)]
    pub multi_write: bool,

    /// Force the number of physical partitions at creation: adds the physical layout.
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        value_name = "N"
    )]
    pub physical_partitions: Option<u32>,

    /// Hash version of single-path keys (hierarchical keys always use MultiHash).
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        value_enum,
        default_value = "2",
        value_name = "VERSION"
    )]
    pub hash_version: HashVersionArg,

    /// Override a limit or cost constant, e.g. logical_partition_bytes=10GB (repeatable; see
    /// docs/model.md for names).
    #[arg(
        help_heading = "Throughput and physical layout",
        long = "limit",
        value_name = "NAME=VALUE"
    )]
    pub limits: Vec<String>,
}
