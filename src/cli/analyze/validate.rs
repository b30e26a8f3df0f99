//! The validation of `pkadvisor analyze`'s flags into an [`AnalyzeOptions`]: the candidates, the
//! limits, the projection, the provisioning, the workload, the time settings and the
//! `--observed` exports, each refused with a message that names the flag.

use std::io::IsTerminal;

use super::AnalyzeArgs;
use crate::analysis::AnalyzeOptions;
use crate::cli::{
    at_most, count_in, extended_json, positive, projection, threads, time_path, ConfigError,
    FormatArg, HashVersionArg, ThroughputArg, MAX_CANDIDATES, MAX_PHYSICAL_PARTITIONS, MAX_RATE,
    MAX_TOP,
};
use crate::cosmos::limits::{parse_size, Limits};
use crate::cosmos::{PkVersion, Provisioning};
use crate::ingest::InputFormat;
use crate::keys::spec::{parse_candidates, Candidate};
use crate::report::OutputFormat;

/// Splits a candidate list at commas outside quoted path segments.
pub(crate) fn split_top_level(s: &str) -> Vec<String> {
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

/// Validates `analyze` flags (or `check`'s, merged over its file) into the analysis's options.
pub(in crate::cli) fn analyze_config(a: AnalyzeArgs) -> Result<AnalyzeOptions, ConfigError> {
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
    count_in("--max-candidates", a.max_candidates, 1, MAX_CANDIDATES)?;
    count_in("--top", a.top, 0, MAX_TOP)?;
    let limits = limits(&a, &candidates)?;
    let projection = projection(a.total_docs, a.total_size.as_deref())?;
    if a.physical_partitions == Some(0) {
        return Err(ConfigError::Invalid(
            "--physical-partitions needs at least 1".into(),
        ));
    }
    let format = output_format(&a)?;
    let threads = threads(a.threads)?;
    let (max_record_bytes, memory_limit) = record_and_memory_limits(&a)?;
    let provisioning = provisioning(&a, &limits)?;
    let cost_basis = cost_basis(&a, provisioning)?;
    let (workload, workload_note) = workload(&a)?;
    let (time_field, time_bucket_secs, growth_per_year) = time_settings(&a)?;
    let observed = observed(&a, memory_limit)?;
    let sample = sample(&a, projection.as_ref())?;
    let ttl_secs = ttl_setting(&a)?;
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
        csv_delimiter: a.delimiter,
        extended_json: extended_json(a.extended_json, a.no_extended_json),
        skip_invalid: a.skip_invalid,
        threads,
        max_record_bytes,
        memory_limit,
        progress: !a.quiet && std::io::stderr().is_terminal(),
        format,
        view: crate::report::View::from_flags(a.quiet, a.detail),
        output: a.output.filter(|p| p.as_os_str() != "-"),
        top: a.top,
        projection,
        limits,
        provisioning,
        cost_basis,
        physical_partitions: a.physical_partitions,
        hash_version: match a.hash_version {
            HashVersionArg::V1 => PkVersion::V1,
            HashVersionArg::V2 => PkVersion::V2,
        },
        workload: (!workload.is_empty()).then_some(workload),
        workload_note,
        ops: a.ops,
        observed,
        time_field,
        time_bucket_secs,
        growth_per_year,
        ttl_secs,
        sample,
    })
}

/// `--max-record-bytes` and `--memory-limit`, or their defaults.
fn record_and_memory_limits(a: &AnalyzeArgs) -> Result<(usize, u64), ConfigError> {
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
    Ok((max_record_bytes, memory_limit))
}

/// `--sample`, refused unless the sample is projected (or the relation is the default).
fn sample(
    a: &AnalyzeArgs,
    projection: Option<&crate::estimate::Projection>,
) -> Result<crate::estimate::SampleRelation, ConfigError> {
    let sample = sample_relation(a.sample.as_deref().unwrap_or("uniform"))?;
    if sample != crate::estimate::SampleRelation::Uniform && projection.is_none() {
        return Err(ConfigError::Invalid(format!(
            "--sample {}: how the sample relates to production matters only when it is projected; add --total-size or --total-docs",
            a.sample.as_deref().unwrap_or_default()
        )));
    }
    Ok(sample)
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
fn observed(
    a: &AnalyzeArgs,
    memory_limit: u64,
) -> Result<Option<crate::observed::ObservedOptions>, ConfigError> {
    if a.observed.is_empty() {
        return match &a.container {
            Some(_) if !a.workload_from_logs.is_empty() => Ok(None),
            Some(c) => Err(ConfigError::Invalid(format!(
                "--container {c}: it chooses the container of --observed exports; give them, or leave --container out"
            ))),
            None => Ok(None),
        };
    }
    let container = a
        .container
        .as_deref()
        .map(crate::cli::container_arg)
        .transpose()?;
    if a.current_key.is_none() {
        return Err(ConfigError::Invalid(
            "--observed: the exports measure the container's key today; give it with --current-key"
                .into(),
        ));
    }
    let window = match &a.window {
        None => None,
        Some(w) => Some(crate::workload::temporal::parse_duration(w).ok_or_else(|| {
            ConfigError::Invalid(format!(
                "--window `{w}`: give a duration such as 3600s, 60m, 1h or 7d"
            ))
        })? as f64),
    };
    Ok(Some(crate::observed::ObservedOptions {
        window,
        files: a.observed.clone(),
        filter: crate::observed::ObservedFilter {
            container,
            region: a.region.clone(),
        },
        memory_limit,
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
    // Each candidate is measured over the whole sample: 20,000 of them on 1,000 documents took
    // 683 MB and 34 s (and a config a pull request changed could list them).
    if items.len() > crate::cli::MAX_CANDIDATES {
        return Err(ConfigError::Invalid(format!(
            "{} candidates: at most {} are measured in one run; list the ones you would choose between, or let the automatic search pick them (--max-candidates)",
            items.len(),
            crate::cli::MAX_CANDIDATES
        )));
    }
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

/// The most regions an account is priced in (Azure has fewer than 70 regions).
const MAX_REGIONS: u32 = 100;

/// `--throughput`, `--regions` and `--multi-write`: the mode the ranking prices candidates in
/// (declared, implied by `--ru` or `--autoscale-max-ru`, else dynamic autoscale).
fn cost_basis(
    a: &AnalyzeArgs,
    provisioning: Option<Provisioning>,
) -> Result<crate::advise::cost::CostBasis, ConfigError> {
    use crate::model::BillingMode;
    if a.regions == 0 || a.regions > MAX_REGIONS {
        return Err(ConfigError::Invalid(format!(
            "--regions {}: give the account's region count, from 1 to {MAX_REGIONS}",
            a.regions
        )));
    }
    let declared = a.throughput.map(|t| match t {
        ThroughputArg::Manual => BillingMode::Manual,
        ThroughputArg::Autoscale => BillingMode::Autoscale,
        ThroughputArg::AutoscaleClassic => BillingMode::AutoscaleClassic,
        ThroughputArg::Serverless => BillingMode::Serverless,
    });
    let implied = provisioning.map(|p| match p {
        Provisioning::Manual { .. } => BillingMode::Manual,
        Provisioning::Autoscale { .. } => BillingMode::Autoscale,
    });
    match (declared, implied) {
        (Some(BillingMode::Serverless), Some(_)) => {
            return Err(ConfigError::Invalid(
                "--throughput serverless provisions nothing: drop --ru / --autoscale-max-ru, or choose --throughput manual or autoscale".into(),
            ))
        }
        (Some(BillingMode::Serverless), None) if a.regions > 1 || a.multi_write => {
            return Err(ConfigError::Invalid(format!(
                "--throughput serverless: serverless accounts run in one region; drop --regions {} / --multi-write, or choose --throughput autoscale",
                a.regions
            )))
        }
        (Some(BillingMode::Serverless), None) if a.physical_partitions.is_some() => {
            return Err(ConfigError::Invalid(
                "--throughput serverless: a serverless container's partitions follow its storage; drop --physical-partitions".into(),
            ))
        }
        (Some(d), Some(i)) if !matches!((d, i), (BillingMode::AutoscaleClassic, BillingMode::Autoscale)) && d != i => {
            return Err(ConfigError::Invalid(format!(
                "--throughput {} contradicts {}: give one mode",
                d.label(),
                if i == BillingMode::Manual { "--ru (manual)" } else { "--autoscale-max-ru (autoscale)" }
            )))
        }
        _ => {}
    }
    Ok(crate::advise::cost::CostBasis {
        ranked_by: declared.or(implied).unwrap_or(BillingMode::Autoscale),
        declared: declared.or(implied).is_some(),
        account: crate::cosmos::billing::Account {
            regions: a.regions,
            multi_write: a.multi_write,
        },
    })
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

/// `--workload-from-logs`: the workload derived from Azure Monitor exports as `workload
/// from-logs` would write it (and read back the same way), and the sentence the report gives it.
fn from_logs(a: &AnalyzeArgs) -> Result<(crate::workload::Workload, Option<String>), ConfigError> {
    let container = a
        .container
        .as_deref()
        .map(crate::cli::container_arg)
        .transpose()?;
    let opts = crate::workload::logs::LogsOptions {
        files: a.workload_from_logs.clone(),
        filter: crate::observed::ObservedFilter {
            container,
            region: a.region.clone(),
        },
    };
    let d = crate::workload::logs::derive(&opts)
        .map_err(|e| ConfigError::Invalid(format!("--workload-from-logs: {e}")))?;
    let text = crate::workload::logs::render(&d, &Limits::default());
    let w = crate::workload::parse(&text, "derived workload", false)
        .map_err(|e| ConfigError::Invalid(format!("internal error, please report: {e}")))?;
    let obfuscated = d.shapes.iter().filter(|s| s.parsed.obfuscated).count();
    let note = format!(
        "workload measured from Azure Monitor logs (--workload-from-logs): {:.0} s of {}/{} in {}; {} query shape(s), {} with obfuscated property names (routed as fan-outs), {} unreadable query text(s) kept as fan-outs; `pkadvisor workload from-logs` writes the same workload as a file to review",
        d.window_secs(),
        d.database,
        d.container,
        d.region,
        d.shapes.len(),
        obfuscated,
        d.unreadable_rows
    );
    Ok((w, Some(note)))
}

/// The workload file with the command-line rates and queries applied.
fn workload(a: &AnalyzeArgs) -> Result<(crate::workload::Workload, Option<String>), ConfigError> {
    let (mut workload, measured) = match &a.workload {
        Some(p) => (
            crate::workload::load(p).map_err(|e| ConfigError::Invalid(e.to_string()))?,
            None,
        ),
        None if !a.workload_from_logs.is_empty() => from_logs(a)?,
        None => (crate::workload::Workload::default(), None),
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
    Ok((workload, measured))
}

/// The output format (flag, else the output file's extension), refusing to overwrite an input.
fn output_format(a: &AnalyzeArgs) -> Result<OutputFormat, ConfigError> {
    crate::cli::output_file(a.output.as_ref(), &a.inputs, "report")?;
    let flag = a.format.map(|f| match f {
        FormatArg::Table => OutputFormat::Table,
        FormatArg::Markdown => OutputFormat::Markdown,
        FormatArg::Html => OutputFormat::Html,
        // `check` writes SARIF from the JSON report (cli/check.rs sets json).
        FormatArg::Json | FormatArg::Sarif => OutputFormat::Json,
    });
    let output = a.output.as_deref().filter(|p| p.as_os_str() != "-");
    crate::cli::output_format(flag, output)
}

/// The largest `--growth`, as a factor per year (a billion times; beyond, projected sizes
/// overflow).
const MAX_GROWTH_PER_YEAR: f64 = 1e9;

/// `--ttl`, in seconds.
fn ttl_setting(a: &AnalyzeArgs) -> Result<Option<i64>, ConfigError> {
    a.ttl
        .as_deref()
        .map(|t| {
            crate::workload::parse_duration(t).ok_or_else(|| {
                ConfigError::Invalid(format!(
                    "--ttl: cannot read `{t}`; use a duration like 12h, 7d or 4w (the container's default time to live)"
                ))
            })
        })
        .transpose()
}

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
