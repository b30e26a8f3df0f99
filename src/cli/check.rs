//! `pkadvisor check` arguments, the `pkadvisor.toml` file they can come from, and their
//! validation into a [`CheckOptions`]. Flags win over the file; the file's paths are relative to
//! the file's folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::analyze::analyze_config;
use super::{AnalyzeArgs, ConfigError, FormatArg, HashVersionArg};
use crate::ci::confine::Confinement;
use crate::ci::iac::{self};
use crate::ci::policy::{FailOn, Policy};
use crate::commands::check::CheckOptions;

/// Where CI annotations go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnnotationsArg {
    /// GitHub Actions workflow commands (`::error file=…,line=…::`).
    Github,
    /// Azure Pipelines logging commands (`##vso[task.logissue …]`).
    Azure,
}

/// `pkadvisor check` flags.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  pkadvisor check --config pkadvisor.toml
  pkadvisor check sample.jsonl --key /tenantId --total-size 2TB --fail-on warn --annotations github
  pkadvisor check sample.jsonl --from-iac main.bicep --container orders --format sarif -o pk.sarif

Exit codes: 0 the key passes the policy; 1 it does not (a policy failure, \
a schema change or a regression against the baseline); 2 usage, config or input error. \
See docs/ci.md.")]
pub struct CheckArgs {
    /// The container's partition key (same grammar as analyze's candidates).
    #[arg(help_heading = "Key and policy", long, value_name = "SPEC")]
    pub key: Option<String>,

    /// Read the key from infrastructure code instead: Bicep, an ARM template (JSON) or Terraform
    /// (`azurerm_cosmosdb_sql_container`).
    #[arg(
        help_heading = "Key and policy",
        long,
        value_name = "FILE",
        conflicts_with = "key"
    )]
    pub from_iac: Option<PathBuf>,

    /// Other keys to compare with (repeatable; shown, never gated on).
    #[arg(help_heading = "Key and policy", long, value_name = "SPEC")]
    pub compare: Vec<String>,

    /// Configuration file (default: ./pkadvisor.toml when present). Flags win over it.
    #[arg(help_heading = "Key and policy", long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Let paths in the configuration file reach outside the folder that holds it (by default
    /// refused: a pull request can change the file; docs/ci.md).
    #[arg(help_heading = "Key and policy", long)]
    pub allow_outside_config_dir: bool,

    /// Which verdict fails the gate: `fail` (default) or `warn`.
    #[arg(
        help_heading = "Key and policy",
        long,
        value_enum,
        value_name = "SEVERITY"
    )]
    pub fail_on: Option<FailOn>,

    /// Fail when the largest logical partition passes this share of 20 GB (default 0.7).
    #[arg(help_heading = "Key and policy", long, value_name = "FRACTION")]
    pub max_partition_share: Option<f64>,

    /// Fail when the hottest physical partition's utilisation passes this (default 1.0).
    #[arg(help_heading = "Key and policy", long, value_name = "FRACTION")]
    pub max_hot_utilisation: Option<f64>,

    /// Fail when more than this share of documents lack the key or hold null (default 0).
    #[arg(help_heading = "Key and policy", long, value_name = "FRACTION")]
    pub max_undefined_share: Option<f64>,

    /// Fail when a hierarchical key's first level has fewer distinct values (default: off).
    #[arg(help_heading = "Key and policy", long, value_name = "N")]
    pub min_first_level: Option<u64>,

    /// Fail when fan-out overhead passes this share of query RU/s (default: off).
    #[arg(help_heading = "Key and policy", long, value_name = "FRACTION")]
    pub max_fanout_share: Option<f64>,

    /// A previous JSON report (`--write-baseline`): fail on regressions against it.
    #[arg(help_heading = "Baseline and CI", long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Relative growth of the largest partition tolerated against the baseline (default 0.1).
    #[arg(help_heading = "Baseline and CI", long, value_name = "FRACTION")]
    pub baseline_tolerance: Option<f64>,

    /// Write this run's JSON report as the new baseline.
    #[arg(help_heading = "Baseline and CI", long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,

    /// Print CI annotations on stderr for findings and policy failures.
    #[arg(help_heading = "Baseline and CI", long, value_enum, value_name = "CI")]
    pub annotations: Option<AnnotationsArg>,

    /// Analysis options, as for `analyze` (inputs, --total-size, --ru, --workload, --format…).
    #[command(flatten)]
    pub analysis: AnalyzeArgs,
}

/// `pkadvisor.toml` (docs/ci.md; JSON Schema in docs/pkadvisor-toml.schema.json).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckFile {
    /// Sample files or folders.
    #[serde(default)]
    pub sample: Vec<PathBuf>,
    /// The key.
    pub key: Option<String>,
    /// Infrastructure file holding the key.
    pub from_iac: Option<PathBuf>,
    /// Container name in it.
    pub container: Option<String>,
    /// Keys to compare with.
    #[serde(default)]
    pub compare: Vec<String>,
    /// Production documents.
    pub total_docs: Option<f64>,
    /// Production size (`2TB`).
    pub total_size: Option<String>,
    /// Manual RU/s.
    pub ru: Option<f64>,
    /// Autoscale max RU/s.
    pub autoscale_max_ru: Option<f64>,
    /// Physical partitions at creation.
    pub physical_partitions: Option<u32>,
    /// Workload file.
    pub workload: Option<PathBuf>,
    /// Time field.
    pub time_field: Option<String>,
    /// Growth (`3x/year`).
    pub growth: Option<String>,
    /// How the sample relates to production (`--sample`: uniform, slice, slice:PATH,…).
    pub sample_relation: Option<String>,
    /// Hash version (1 or 2).
    pub hash_version: Option<u8>,
    /// Writes per second.
    pub writes_per_sec: Option<f64>,
    /// Point reads per second.
    pub reads_per_sec: Option<f64>,
    /// Access log.
    pub ops: Option<PathBuf>,
    /// Azure Monitor exports of the container's partition-key tables (docs/calibration.md).
    #[serde(default)]
    pub observed: Vec<PathBuf>,
    /// The region of the exports.
    pub region: Option<String>,
    /// Time bucket width (`15m`).
    pub time_bucket: Option<String>,
    /// Input format (`jsonl`, `json`, `csv`).
    pub input_format: Option<String>,
    /// Keep CSV fields strings.
    pub csv_strings: Option<bool>,
    /// Skip malformed records.
    pub skip_invalid: Option<bool>,
    /// Separator of composed keys.
    pub separator: Option<String>,
    /// Largest partitions listed.
    pub top: Option<usize>,
    /// Output format (`table`, `markdown`, `json`, `sarif`).
    pub format: Option<String>,
    /// Output file.
    pub output: Option<PathBuf>,
    /// `--limit` overrides by name.
    #[serde(default)]
    pub limits: BTreeMap<String, toml::Value>,
    /// Baseline report.
    pub baseline: Option<PathBuf>,
    /// Baseline tolerance.
    pub baseline_tolerance: Option<f64>,
    /// Annotations.
    pub annotations: Option<AnnotationsArg>,
    /// Policy.
    #[serde(default)]
    pub policy: PolicyFile,
}

/// The `[policy]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// `fail` or `warn`.
    pub fail_on: Option<FailOn>,
    /// Largest logical partition, share of 20 GB.
    pub max_partition_share: Option<f64>,
    /// Hottest physical partition utilisation.
    pub max_hot_utilisation: Option<f64>,
    /// Share of Undefined/Null documents.
    pub max_undefined_share: Option<f64>,
    /// First-level distinct values of a hierarchical key.
    pub min_first_level: Option<u64>,
    /// Fan-out share of query RU/s.
    pub max_fanout_share: Option<f64>,
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
    if a.input_format.is_none() {
        if let Some(f) = &file.input_format {
            a.input_format = Some(
                <super::InputFormatArg as clap::ValueEnum>::from_str(f, true).map_err(|_| {
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
    Ok(())
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
    quote.extend(before.iter().rev().take(TOML_QUOTE_CHARS).rev());
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

/// A ratio threshold: from 0 to [`super::MAX_SHARE`].
fn share(name: &str, v: Option<f64>) -> Result<Option<f64>, ConfigError> {
    bounded(name, v, super::MAX_SHARE)
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

/// Validates `check` flags, merged over `pkadvisor.toml`.
pub fn check_config(mut c: CheckArgs) -> Result<CheckOptions, ConfigError> {
    let default_file = PathBuf::from("pkadvisor.toml");
    let config = match &c.config {
        Some(p) => Some(p.clone()),
        None if default_file.is_file() => Some(default_file),
        None => None,
    };
    let (mut file, base) = match &config {
        Some(p) => (read_file(p)?, p.parent().map(Path::to_path_buf)),
        None => (CheckFile::default(), None),
    };
    if let (Some(top), Some(p)) = (file.top, &config) {
        super::count_in(&format!("{}: top =", p.display()), top, 0, super::MAX_TOP)?;
    }
    let rel = |p: PathBuf| match (&base, p.is_relative()) {
        (Some(b), true) => b.join(p),
        _ => p,
    };
    // The file is data a pull request can change: its paths stay in its folder.
    let confinement = match config.filter(|_| !c.allow_outside_config_dir) {
        Some(p) => {
            let conf = Confinement::of(&p)
                .map_err(|e| ConfigError::Invalid(format!("{}: {e}", p.display())))?;
            confine_file(&file, &rel, &conf)?;
            Some(conf)
        }
        None => None,
    };
    let inputs_from_file = c.analysis.inputs.is_empty() && !file.sample.is_empty();
    apply_file(&mut c.analysis, &mut file, &rel)?;
    let policy = policy(&c, std::mem::take(&mut file.policy))?;
    let a = &mut c.analysis;
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
    // The key: --key, --from-iac, or the file's.
    let from_iac = c.from_iac.or(file.from_iac.map(rel));
    let container = containers(a, &from_iac, &mut file.container)?;
    let (key, iac) = match (c.key.or(file.key), from_iac) {
        (Some(k), None) => (k, None),
        (_, Some(path)) => {
            let found = iac::read_key(&path, container.as_deref())
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
    };
    let mut compare = c.compare;
    if compare.is_empty() {
        compare = file.compare;
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
    if let Some(w) = c.write_baseline.as_ref() {
        if super::is_an_input(w, &analysis.inputs) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The example in docs/ci.md uses every key; it must parse, and the JSON Schema for editors
    /// must list exactly the keys the parser accepts.
    #[test]
    fn documented_example_parses_and_matches_the_schema() {
        let doc = include_str!("../../docs/ci.md");
        let start = doc.find("```toml\n").expect("toml block") + 8;
        let end = start + doc[start..].find("```").expect("end");
        let example = &doc[start..end];
        let f: CheckFile = toml::from_str(example).expect("the documented example parses");
        assert_eq!(f.key.as_deref(), Some("/customerId"));
        assert_eq!(f.policy.min_first_level, Some(100));
        let table: toml::Table = toml::from_str(example).unwrap();
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../docs/pkadvisor-toml.schema.json")).unwrap();
        let props = schema["properties"].as_object().unwrap();
        let mut documented: Vec<&String> = table.keys().collect();
        documented.sort();
        // Keys the example leaves out (alternatives to ones it sets).
        let alternatives = [
            "autoscale_max_ru",
            "container",
            "from_iac",
            "growth",
            "sample_relation",
            "hash_version",
            "physical_partitions",
            "total_docs",
            "reads_per_sec",
            "ops",
            "observed",
            "region",
            "time_bucket",
            "input_format",
            "csv_strings",
            "separator",
            "top",
            "output",
        ];
        let mut expected: Vec<&String> = props
            .keys()
            .filter(|k| !alternatives.contains(&k.as_str()))
            .collect();
        expected.sort();
        assert_eq!(documented, expected);
        let policy: Vec<&String> = table["policy"].as_table().unwrap().keys().collect();
        let schema_policy: Vec<&String> = props["policy"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(policy.len(), schema_policy.len());
        // Unknown keys are errors, not silently ignored.
        assert!(toml::from_str::<CheckFile>("kee = \"/a\"").is_err());
    }
}
