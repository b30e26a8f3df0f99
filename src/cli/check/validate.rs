//! The validation of `pkadvisor check`'s flags, merged over `pkadvisor.toml`, into a
//! [`CheckOptions`]: flags win over the file; the file's paths are relative to the file's folder
//! and stay inside it unless --allow-outside-config-dir; the key comes from --key, the file or
//! the infrastructure code; the analysis is validated as `analyze`'s.

use std::path::{Path, PathBuf};

use super::{AnnotationsArg, CheckArgs, CheckFile, PolicyFile};
use crate::analysis::AnalyzeOptions;
use crate::ci::confine::Confinement;
use crate::ci::iac::{self, IacKey};
use crate::ci::policy::{FailOn, Policy};
use crate::cli::analyze::analyze_config;
use crate::cli::{
    count_in, is_an_input, AnalyzeArgs, ConfigError, FormatArg, HashVersionArg, InputFormatArg,
    MAX_SHARE, MAX_TOP,
};
use crate::commands::check::CheckOptions;

/// Most keys `check` compares the gated key with: each is measured over the whole sample.
pub const MAX_COMPARE: usize = 100;

/// Validates `check` flags, merged over `pkadvisor.toml`.
pub fn check_config(mut c: CheckArgs) -> Result<CheckOptions, ConfigError> {
    let (config, mut file, base) = config_file(&c)?;
    let rel = |p: PathBuf| match (&base, p.is_relative()) {
        (Some(b), true) => b.join(p),
        _ => p,
    };
    // The file is data a pull request can change: its paths stay in its folder.
    let confinement = confinement(config, c.allow_outside_config_dir, &file, &rel)?;
    let inputs_from_file = c.analysis.inputs.is_empty() && !file.sample.is_empty();
    apply_file(&mut c.analysis, &mut file, &rel)?;
    let policy = policy(&c, std::mem::take(&mut file.policy))?;
    let a = &mut c.analysis;
    let sarif = sarif(a);
    // The key: --key, --from-iac, or the file's.
    let from_iac = c.from_iac.or(file.from_iac.map(rel));
    let container = containers(a, &from_iac, &mut file.container)?;
    let (key, iac) = key(a, c.key.or(file.key), from_iac, container.as_deref())?;
    let mut compare = c.compare;
    if compare.is_empty() {
        compare = file.compare;
    }
    let compared: usize = compare
        .iter()
        .map(|k| crate::cli::analyze::split_top_level(k).len())
        .sum();
    if compared > MAX_COMPARE {
        return Err(ConfigError::Invalid(format!(
            "{compared} keys to compare with (--compare, or `compare` in pkadvisor.toml): at most {MAX_COMPARE}; the gate judges one key, the others are shown beside it"
        )));
    }
    // The key under check is the container's key today: what --observed measured.
    if !a.observed.is_empty() && a.current_key.is_none() {
        a.current_key = Some(key.clone());
    }
    a.candidate.insert(0, key);
    a.candidate.extend(compare);
    let baseline_tolerance = share(
        "--baseline-tolerance",
        c.baseline_tolerance.or(file.baseline_tolerance),
    )?
    .unwrap_or(0.1);
    let analysis = analyze_config(c.analysis)?;
    write_baseline_apart(c.write_baseline.as_ref(), &analysis)?;
    Ok(CheckOptions {
        analysis,
        iac,
        policy,
        baseline: c.baseline.or(file.baseline.map(rel)),
        baseline_tolerance,
        write_baseline: c.write_baseline,
        annotations: c.annotations.or(file.annotations).map(|a| match a {
            AnnotationsArg::Github => crate::ci::annotations::Target::Github,
            AnnotationsArg::Azure => crate::ci::annotations::Target::Azure,
        }),
        sarif,
        confined_to: confinement.filter(|_| inputs_from_file),
    })
}

/// The configuration file (`--config`; else, unless --no-config or under CI, the nearest
/// `pkadvisor.toml` up to the repository root), read, with the folder its paths are relative to.
fn config_file(
    c: &CheckArgs,
) -> Result<(Option<PathBuf>, CheckFile, Option<PathBuf>), ConfigError> {
    let config = match &c.config {
        Some(p) => Some(p.clone()),
        None if c.no_config => None,
        None => match nearest_config() {
            Some(p) if crate::ci::confine::under_ci() => {
                eprintln!(
                    "pkadvisor: note: {} not read: under CI a configuration file is read only when the workflow names it (--config), since a pull request can add one",
                    crate::neutralise::terminal(&p.display().to_string())
                );
                None
            }
            found => found,
        },
    };
    let (file, base) = match &config {
        Some(p) => (read_file(p)?, p.parent().map(Path::to_path_buf)),
        None => (CheckFile::default(), None),
    };
    if let (Some(top), Some(p)) = (file.top, &config) {
        count_in(&format!("{}: top =", p.display()), top, 0, MAX_TOP)?;
    }
    Ok((config, file, base))
}

/// The nearest `pkadvisor.toml` from the working directory up, as ruff finds its
/// configuration: the search stops at the repository root (the folder holding `.git`), never
/// above it; outside a repository only the working directory's. Named relative to the working
/// directory (`pkadvisor.toml`, `../pkadvisor.toml`).
fn nearest_config() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let top = crate::ci::confine::repository_root(&cwd).unwrap_or_else(|| cwd.clone());
    let mut rel = PathBuf::new();
    for dir in cwd.ancestors() {
        if dir.join("pkadvisor.toml").is_file() {
            return Some(rel.join("pkadvisor.toml"));
        }
        if dir == top {
            return None;
        }
        rel.push("..");
    }
    None
}

/// The folder the configuration file's paths must stay in (none without a file, or with
/// --allow-outside-config-dir), after checking the paths it names.
fn confinement(
    config: Option<PathBuf>,
    allow_outside: bool,
    file: &CheckFile,
    rel: &dyn Fn(PathBuf) -> PathBuf,
) -> Result<Option<Confinement>, ConfigError> {
    Ok(match config.filter(|_| !allow_outside) {
        Some(p) => {
            let conf = Confinement::of(&p)
                .map_err(|e| ConfigError::Invalid(format!("{}: {e}", p.display())))?;
            confine_file(file, rel, &conf)?;
            Some(conf)
        }
        None => None,
    })
}

/// Whether the output is SARIF (`--format sarif`, or `-o *.sarif` without --format); SARIF is
/// written from the JSON report, so the format becomes JSON.
fn sarif(a: &mut AnalyzeArgs) -> bool {
    // `-o pk.sarif` without --format means SARIF, as `.json` means JSON.
    let sarif_file = a
        .output
        .as_ref()
        .and_then(|p| p.extension())
        .is_some_and(|e| e.eq_ignore_ascii_case("sarif"));
    let sarif = matches!(a.format, Some(FormatArg::Sarif)) || (a.format.is_none() && sarif_file);
    if sarif {
        a.format = Some(FormatArg::Json);
    }
    sarif
}

/// The key to check: `--key` (or the file's `key`), else the one the infrastructure file
/// declares for `container` (its hash version with it).
fn key(
    a: &mut AnalyzeArgs,
    key: Option<String>,
    from_iac: Option<PathBuf>,
    container: Option<&str>,
) -> Result<(String, Option<IacKey>), ConfigError> {
    Ok(match (key, from_iac) {
        (Some(k), None) => (one_key(k)?, None),
        (_, Some(path)) => {
            let found = iac::read_key(&path, container)
                .map_err(|e| ConfigError::Invalid(e.to_string()))?;
            if found.version == 1 {
                a.hash_version = HashVersionArg::V1;
            }
            (found.spec.clone(), Some(found))
        }
        (None, None) => {
            return Err(ConfigError::Invalid(
                "no key to check: pass --key /tenantId, --from-iac main.bicep, or set `key` in pkadvisor.toml".into(),
            ))
        }
    })
}

/// The gated key as given: one key, not the automatic search (`auto` used to panic, and with
/// --compare gate the first compared key) nor a list (`/k,/id` gated `/k` and compared `/id`).
fn one_key(k: String) -> Result<String, ConfigError> {
    let items = crate::cli::analyze::split_top_level(&k);
    if items.iter().any(|i| i.trim() == "auto") {
        return Err(ConfigError::Invalid(format!(
            "--key {}: check gates the container's one key; `auto` is analyze's search (pkadvisor analyze SAMPLE), then gate the key it recommends",
            crate::small_file::quote(&k, 200)
        )));
    }
    if items.len() != 1 {
        return Err(ConfigError::Invalid(format!(
            "--key {}: check gates one key, this lists {}; gate the container's key and pass the others with --compare",
            crate::small_file::quote(&k, 200),
            items.len()
        )));
    }
    Ok(k)
}

/// `--write-baseline` must name neither an input nor the report's output file.
fn write_baseline_apart(
    write_baseline: Option<&PathBuf>,
    analysis: &AnalyzeOptions,
) -> Result<(), ConfigError> {
    if let Some(w) = write_baseline {
        if is_an_input(w, &analysis.inputs) {
            return Err(ConfigError::Invalid(format!(
                "--write-baseline {}: that is one of the inputs; writing the baseline there would destroy it",
                w.display()
            )));
        }
        if let Some(o) = &analysis.output {
            let resolved = crate::ci::confine::resolve;
            if crate::commands::output::same_file(w, std::iter::once(o.as_path()))
                || resolved(w).is_some_and(|r| Some(r) == resolved(o))
            {
                return Err(ConfigError::Invalid(format!(
                    "--write-baseline {}: that is the same file as -o {}; the baseline would overwrite the report: name two files",
                    w.display(),
                    o.display()
                )));
            }
        }
    }
    Ok(())
}

/// The gate's policy: flags over the file's `[policy]`, then the defaults.
fn policy(c: &CheckArgs, p: PolicyFile) -> Result<Policy, ConfigError> {
    Ok(Policy {
        fail_on: c.fail_on.or(p.fail_on).unwrap_or(FailOn::Fail),
        max_partition_share: share(
            "--max-partition-share",
            c.max_partition_share.or(p.max_partition_share),
        )?
        .unwrap_or(0.7),
        max_hot_utilisation: share(
            "--max-hot-utilisation",
            c.max_hot_utilisation.or(p.max_hot_utilisation),
        )?
        .unwrap_or(1.0),
        max_undefined_share: bounded(
            "--max-undefined-share",
            c.max_undefined_share.or(p.max_undefined_share),
            1.0,
        )?
        .unwrap_or(0.0),
        min_first_level: c.min_first_level.or(p.min_first_level),
        max_fanout_share: bounded(
            "--max-fanout-share",
            c.max_fanout_share.or(p.max_fanout_share),
            1.0,
        )?,
    })
}

/// The file's settings where the command line left them at their defaults (paths relative to the
/// file), and its limits before the command line's.
fn apply_file(
    a: &mut AnalyzeArgs,
    file: &mut CheckFile,
    rel: &dyn Fn(PathBuf) -> PathBuf,
) -> Result<(), ConfigError> {
    if a.inputs.is_empty() {
        a.inputs = std::mem::take(&mut file.sample)
            .into_iter()
            .map(rel)
            .collect();
    }
    a.total_docs = a.total_docs.or(file.total_docs);
    if a.total_docs.is_none() {
        a.total_size = a.total_size.take().or(file.total_size.take());
    }
    if a.autoscale_max_ru.is_none() {
        a.ru = a.ru.or(file.ru);
    }
    if a.ru.is_none() {
        a.autoscale_max_ru = a.autoscale_max_ru.or(file.autoscale_max_ru);
    }
    a.physical_partitions = a.physical_partitions.or(file.physical_partitions);
    a.writes_per_sec = a.writes_per_sec.or(file.writes_per_sec);
    a.reads_per_sec = a.reads_per_sec.or(file.reads_per_sec);
    a.ops = a.ops.take().or(file.ops.take().map(rel));
    if a.observed.is_empty() {
        a.observed = std::mem::take(&mut file.observed)
            .into_iter()
            .map(rel)
            .collect();
    }
    a.region = a.region.take().or(file.region.take());
    a.time_bucket = a.time_bucket.take().or(file.time_bucket.take());
    a.csv_strings |= file.csv_strings.unwrap_or(false);
    a.skip_invalid |= file.skip_invalid.unwrap_or(false);
    if a.separator == "-" {
        if let Some(sep) = file.separator.take() {
            a.separator = sep;
        }
    }
    if a.top == 10 {
        a.top = file.top.unwrap_or(10);
    }
    apply_formats(a, file)?;
    a.output = a.output.take().or(file.output.take().map(rel));
    a.workload = a.workload.take().or(file.workload.take().map(rel));
    a.time_field = a.time_field.take().or(file.time_field.take());
    a.growth = a.growth.take().or(file.growth.take());
    a.sample = a.sample.take().or(file.sample_relation.take());
    if let Some(v) = file.hash_version {
        if a.hash_version == HashVersionArg::V2 && v == 1 {
            a.hash_version = HashVersionArg::V1;
        }
    }
    apply_limits(a, file);
    Ok(())
}

/// The file's `input_format` and `format` where the command line gave none, refused when the
/// file names one that does not exist.
fn apply_formats(a: &mut AnalyzeArgs, file: &CheckFile) -> Result<(), ConfigError> {
    if a.input_format.is_none() {
        if let Some(f) = &file.input_format {
            a.input_format = Some(
                <InputFormatArg as clap::ValueEnum>::from_str(f, true).map_err(|_| {
                    ConfigError::Invalid(format!("input_format: `{f}` is not jsonl, json or csv"))
                })?,
            );
        }
    }
    if a.format.is_none() {
        if let Some(f) = &file.format {
            a.format = Some(
                <FormatArg as clap::ValueEnum>::from_str(f, true).map_err(|_| {
                    ConfigError::Invalid(format!(
                        "format: `{f}` is not table, markdown, json or sarif"
                    ))
                })?,
            );
        }
    }
    Ok(())
}

/// The file's `[limits]` as `NAME=VALUE` overrides, placed before the command line's `--limit`s.
fn apply_limits(a: &mut AnalyzeArgs, file: &CheckFile) {
    let mut from_file: Vec<String> = file
        .limits
        .iter()
        .map(|(k, v)| match v {
            toml::Value::String(s) => format!("{k}={s}"),
            toml::Value::Integer(i) => format!("{k}={i}"),
            toml::Value::Float(f) => format!("{k}={f}"),
            other => format!("{k}={other:?}"),
        })
        .collect();
    from_file.append(&mut a.limits);
    a.limits = from_file;
}

fn read_file(path: &Path) -> Result<CheckFile, ConfigError> {
    let text = crate::small_file::read_to_string(path)
        .map_err(|e| ConfigError::Invalid(format!("{}: {e}", path.display())))?;
    toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))
}

/// The most characters of the file quoted by a TOML error, either side of the error: the parser's
/// own message quotes the whole line, which can be megabytes long.
pub const TOML_QUOTE_CHARS: usize = 100;

/// `file:line:column: message` and at most [`TOML_QUOTE_CHARS`] characters of the line either
/// side of the error, control characters escaped.
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let mut at = e.span().map_or(0, |s| s.start).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[..at].bytes().filter(|&b| b == b'\n').count() + 1;
    let column = text[start..at].chars().count() + 1;
    let before: Vec<char> = text[start..at]
        .chars()
        .rev()
        .take(TOML_QUOTE_CHARS + 1)
        .collect();
    let after: Vec<char> = text[at..end].chars().take(TOML_QUOTE_CHARS + 1).collect();
    let mut quote = String::new();
    if before.len() > TOML_QUOTE_CHARS {
        quote.push('…');
    }
    // `before` runs from the error backwards: its first characters are the nearest.
    quote.extend(before.iter().take(TOML_QUOTE_CHARS).rev());
    quote.extend(after.iter().take(TOML_QUOTE_CHARS));
    if after.len() > TOML_QUOTE_CHARS {
        quote.push('…');
    }
    ConfigError::Invalid(format!(
        "{}:{line}:{column}: {}\n  {}",
        path.display(),
        crate::small_file::quote(e.message().trim_end(), 20 * TOML_QUOTE_CHARS),
        crate::small_file::quote(&quote, 4 * TOML_QUOTE_CHARS),
    ))
}

/// Every path `file` names, resolved against its folder, must stay inside it (ci::confine).
fn confine_file(
    file: &CheckFile,
    rel: &dyn Fn(PathBuf) -> PathBuf,
    c: &Confinement,
) -> Result<(), ConfigError> {
    let one = |field: &str, p: &Option<PathBuf>| match p {
        Some(p) => c
            .check(field, &rel(p.clone()))
            .map_err(ConfigError::Invalid),
        None => Ok(()),
    };
    for p in &file.sample {
        one("sample", &Some(p.clone()))?;
    }
    one("output", &file.output)?;
    one("baseline", &file.baseline)?;
    one("workload", &file.workload)?;
    one("ops", &file.ops)?;
    for p in &file.observed {
        one("observed", &Some(p.clone()))?;
    }
    one("from_iac", &file.from_iac)
}

/// A ratio threshold: from 0 to [`MAX_SHARE`].
fn share(name: &str, v: Option<f64>) -> Result<Option<f64>, ConfigError> {
    bounded(name, v, MAX_SHARE)
}

/// A threshold from 0 to `max`.
fn bounded(name: &str, v: Option<f64>, max: f64) -> Result<Option<f64>, ConfigError> {
    match v {
        Some(x) if x.is_nan() || x < 0.0 => Err(ConfigError::Invalid(format!(
            "{name} needs a number from 0 to {max}, got {x}"
        ))),
        Some(x) if x > max => Err(ConfigError::Invalid(format!(
            "{name} {}: too large, at most {max} (a threshold above it never fails)",
            if x >= 1e6 {
                format!("{x:e}")
            } else {
                x.to_string()
            }
        ))),
        other => Ok(other),
    }
}

/// `--container` (shared with analyze's --observed) names the container in the infrastructure
/// file too: NAME, or DB/NAME whose NAME is looked up. Returns the IaC container; leaves
/// `a.container` as the exports' (the file's `container` when the flag is absent).
fn containers(
    a: &mut AnalyzeArgs,
    from_iac: &Option<PathBuf>,
    file_container: &mut Option<String>,
) -> Result<Option<String>, ConfigError> {
    let name = |v: &str| v.rsplit('/').next().unwrap_or(v).to_owned();
    let iac = match a.container.clone() {
        Some(v) if from_iac.is_none() && a.observed.is_empty() => {
            return Err(ConfigError::Invalid(format!(
                "--container {v}: it names the container of --from-iac or of --observed; give one of them, or leave --container out"
            )))
        }
        Some(v) => Some(name(&v)),
        None => file_container.as_deref().map(name),
    };
    if a.observed.is_empty() {
        a.container = None;
    } else if a.container.is_none() {
        a.container = file_container.take();
    }
    Ok(iac)
}
