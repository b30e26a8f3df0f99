//! `pkadvisor check` arguments and the `pkadvisor.toml` file they can come from. Their validation
//! into a [`CheckOptions`], the file merged under the flags, is in `check/validate.rs`.
//!
//! [`CheckOptions`]: crate::commands::check::CheckOptions

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::AnalyzeArgs;
use crate::ci::policy::FailOn;

mod validate;

pub use validate::{check_config, TOML_QUOTE_CHARS};

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

    /// Configuration file. Default: the nearest pkadvisor.toml from here up to the repository
    /// root; under CI none unless named here (a pull request can add one). Flags win over it.
    #[arg(help_heading = "Key and policy", long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Read no configuration file, not even a pkadvisor.toml found nearby.
    #[arg(help_heading = "Key and policy", long, conflicts_with = "config")]
    pub no_config: bool,

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
