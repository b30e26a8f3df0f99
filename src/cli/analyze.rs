//! `pkadvisor analyze`: its flags and their validation into an [`AnalyzeOptions`].

use std::io::IsTerminal;
use std::path::PathBuf;

use super::{
    at_most, positive, projection, threads, time_path, ConfigError, FormatArg, HashVersionArg,
    InputFormatArg, CANDIDATE_HELP, MAX_PHYSICAL_PARTITIONS, MAX_RATE,
};
use crate::analysis::AnalyzeOptions;
use crate::cosmos::limits::{parse_size, Limits};
use crate::cosmos::{PkVersion, Provisioning};
use crate::ingest::InputFormat;
use crate::keys::spec::{parse_candidates, Candidate};
use crate::report::OutputFormat;

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
        requires = "current_key"
    )]
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

    /// No progress bar.
    #[arg(help_heading = "Output", short, long)]
    pub quiet: bool,

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
        conflicts_with = "total_size"
    )]
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
    #[arg(help_heading = "Workload", long, value_name = "N")]
    pub writes_per_sec: Option<f64>,

    /// Point reads per second, spread like writes.
    #[arg(help_heading = "Workload", long, value_name = "N")]
    pub reads_per_sec: Option<f64>,

    /// Workload file (YAML or JSON; docs/workload.md): writes, point reads and queries.
    #[arg(help_heading = "Workload", long, value_name = "FILE")]
    pub workload: Option<PathBuf>,

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

    /// Manual provisioned throughput (RU/s): adds the physical layout.
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        value_name = "RU",
        conflicts_with = "autoscale_max_ru"
    )]
    pub ru: Option<f64>,

    /// Autoscale maximum throughput (RU/s): adds the physical layout.
    #[arg(
        help_heading = "Throughput and physical layout",
        long,
        value_name = "RU"
    )]
    pub autoscale_max_ru: Option<f64>,

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

pub(super) fn analyze_config(a: AnalyzeArgs) -> Result<AnalyzeOptions, ConfigError> {
    if a.inputs.is_empty() && a.key_stats.is_none() {
        return Err(ConfigError::Invalid(
            "no input: give sample files or folders, or - for standard input".into(),
        ));
    }
    let (candidates, auto, current_key) = candidates(&a)?;
    if a.key_stats.is_some() && (auto || current_key.is_some()) {
        return Err(ConfigError::Invalid(
            "--key-stats judges the candidates the table was computed for: list them with -c (automatic candidates and --current-key need the documents)".into(),
        ));
    }
    // A container's RU/s is at most 100,000 partitions × 10,000 RU/s: 1e9.
    let copy_ru = at_most("copy-ru", positive("copy-ru", a.copy_ru)?, MAX_RATE)?;
    super::count_in(
        "--max-candidates",
        a.max_candidates,
        1,
        super::MAX_CANDIDATES,
    )?;
    super::count_in("--top", a.top, 0, super::MAX_TOP)?;
    let limits = limits(&a, &candidates)?;
    let projection = projection(a.total_docs, a.total_size.as_deref())?;
    if a.physical_partitions == Some(0) {
        return Err(ConfigError::Invalid(
            "--physical-partitions needs at least 1".into(),
        ));
    }
    let format = output_format(&a)?;
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
    let memory_limit = match &a.memory_limit {
        None => crate::stats::sampling::default_memory_limit(),
        Some(s) => parse_size(s)
            .filter(|x| *x >= 1e6)
            .map(|x| x as u64)
            .ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "--memory-limit: cannot read `{s}`; use a size of at least 1MB, like 4GB"
                ))
            })?,
    };
    let provisioning = provisioning(&a, &limits)?;
    let workload = workload(&a)?;
    let (time_field, time_bucket_secs, growth_per_year) = time_settings(&a)?;
    let observed = observed(&a)?;
    let sample = sample_relation(a.sample.as_deref().unwrap_or("uniform"))?;
    if sample != crate::estimate::SampleRelation::Uniform && projection.is_none() {
        return Err(ConfigError::Invalid(format!(
            "--sample {}: how the sample relates to production matters only when it is projected; add --total-size or --total-docs",
            a.sample.as_deref().unwrap_or_default()
        )));
    }
    Ok(AnalyzeOptions {
        inputs: a.inputs,
        key_stats: a.key_stats,
        candidates,
        auto,
        max_candidates: a.max_candidates,
        explain: a.explain,
        current_key,
        copy_ru,
        separator: a.separator,
        input_format: a.input_format.map(InputFormat::from),
        csv_strings: a.csv_strings,
        extended_json: super::extended_json(a.extended_json, a.no_extended_json),
        skip_invalid: a.skip_invalid,
        threads,
        max_record_bytes,
        memory_limit,
        progress: !a.quiet && std::io::stderr().is_terminal(),
        format,
        output: a.output.filter(|p| p.as_os_str() != "-"),
        top: a.top,
        projection,
        limits,
        provisioning,
        physical_partitions: a.physical_partitions,
        hash_version: match a.hash_version {
            HashVersionArg::V1 => PkVersion::V1,
            HashVersionArg::V2 => PkVersion::V2,
        },
        workload: (!workload.is_empty()).then_some(workload),
        ops: a.ops,
        observed,
        time_field,
        time_bucket_secs,
        growth_per_year,
        sample,
    })
}

/// `--sample uniform|slice|slice:PATH[,PATH…]`.
fn sample_relation(s: &str) -> Result<crate::estimate::SampleRelation, ConfigError> {
    use crate::estimate::SampleRelation;
    let bad = |why: String| {
        ConfigError::Invalid(format!(
            "--sample `{s}`: {why}; use uniform, slice, or slice:/customerId (the entities the sample holds whole, comma-separated)"
        ))
    };
    match s.trim() {
        "uniform" => Ok(SampleRelation::Uniform),
        "slice" => Ok(SampleRelation::SliceAll),
        t => match t.strip_prefix("slice:") {
            Some(list) => list
                .split(',')
                .map(|p| {
                    time_path(p.trim()).map_err(|_| {
                        bad(format!(
                            "`{}` is not one property path such as /customerId",
                            p.trim()
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
                .map(SampleRelation::SliceOf),
            None => Err(bad("not a relation".into())),
        },
    }
}

/// `--observed`, `--container` and `--region` as the observed stage's options.
fn observed(a: &AnalyzeArgs) -> Result<Option<crate::observed::ObservedOptions>, ConfigError> {
    if a.observed.is_empty() {
        return match &a.container {
            Some(c) => Err(ConfigError::Invalid(format!(
                "--container {c}: it chooses the container of --observed exports; give them, or leave --container out"
            ))),
            None => Ok(None),
        };
    }
    let container = match &a.container {
        None => None,
        Some(c) => match c.split_once('/') {
            Some((d, n)) if !d.is_empty() && !n.is_empty() && !n.contains('/') => {
                Some((d.to_owned(), n.to_owned()))
            }
            _ => {
                return Err(ConfigError::Invalid(format!(
                    "--container `{c}`: give DATABASE/CONTAINER, like shop/orders"
                )))
            }
        },
    };
    if a.current_key.is_none() {
        return Err(ConfigError::Invalid(
            "--observed: the exports measure the container's key today; give it with --current-key"
                .into(),
        ));
    }
    Ok(Some(crate::observed::ObservedOptions {
        files: a.observed.clone(),
        filter: crate::observed::ObservedFilter {
            container,
            region: a.region.clone(),
        },
    }))
}

/// The candidates as given (`auto` items removed), whether the automatic search runs, and the
/// key today (`--current-key`, added to the candidates when missing).
fn candidates(a: &AnalyzeArgs) -> Result<(Vec<Candidate>, bool, Option<Candidate>), ConfigError> {
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
    Ok((candidates, auto, current_key))
}

/// The limits after `--limit` overrides; candidates deeper than the level limit are refused.
fn limits(a: &AnalyzeArgs, candidates: &[Candidate]) -> Result<Limits, ConfigError> {
    let mut limits = Limits::default();
    for l in &a.limits {
        limits
            .set(l)
            .map_err(|e| ConfigError::Invalid(format!("--limit {l}: {e}")))?;
    }
    for c in candidates {
        if c.levels.len() as f64 > limits.hierarchical_levels {
            return Err(ConfigError::Invalid(format!(
                "candidate `{}` has {} levels; the limit is {}",
                c.spec,
                c.levels.len(),
                limits.hierarchical_levels
            )));
        }
    }
    Ok(limits)
}

/// `--ru` / `--autoscale-max-ru`, refused past the modelled partition count.
fn provisioning(a: &AnalyzeArgs, limits: &Limits) -> Result<Option<Provisioning>, ConfigError> {
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
                crate::fmt::count(p.ru_per_sec()),
                crate::fmt::count(n.ceil()),
                crate::fmt::count(MAX_PHYSICAL_PARTITIONS as f64 * per)
            )));
        }
    }
    Ok(provisioning)
}

/// The workload file with the command-line rates and queries applied.
fn workload(a: &AnalyzeArgs) -> Result<crate::workload::Workload, ConfigError> {
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
    Ok(workload)
}

/// The output format (flag, else the output file's extension), refusing to overwrite an input.
fn output_format(a: &AnalyzeArgs) -> Result<OutputFormat, ConfigError> {
    super::output_file(a.output.as_ref(), &a.inputs, "report")?;
    let flag = a.format.map(|f| match f {
        FormatArg::Table => OutputFormat::Table,
        FormatArg::Markdown => OutputFormat::Markdown,
        FormatArg::Html => OutputFormat::Html,
        // `check` writes SARIF from the JSON report (cli/check.rs sets json).
        FormatArg::Json | FormatArg::Sarif => OutputFormat::Json,
    });
    let output = a.output.as_deref().filter(|p| p.as_os_str() != "-");
    super::output_format(flag, output)
}

/// The largest `--growth`, as a factor per year (a billion times; beyond, projected sizes
/// overflow).
const MAX_GROWTH_PER_YEAR: f64 = 1e9;

/// `--time-field`, `--time-bucket` and `--growth`.
#[allow(clippy::type_complexity)]
fn time_settings(
    a: &AnalyzeArgs,
) -> Result<(Option<crate::keys::spec::KeyPath>, Option<i64>, Option<f64>), ConfigError> {
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
        Some(g) => Some(
            crate::workload::parse_growth(g)
                .filter(|f| *f <= MAX_GROWTH_PER_YEAR)
                .ok_or_else(|| {
                    ConfigError::Invalid(format!(
                "--growth: cannot read `{g}`; use a factor per period like 3x/year, 1.2x/month (at most 1e9x a year)"
            ))
                })?,
        ),
        None => None,
    };
    Ok((time_field, time_bucket_secs, growth_per_year))
}
