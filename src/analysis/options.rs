//! The options of one analysis, built by the command line (`cli::analyze`) or by `check`.

use std::path::PathBuf;

use crate::cosmos::limits::Limits;
use crate::cosmos::{PkVersion, Provisioning};
use crate::estimate::Projection;
use crate::ingest::InputFormat;
use crate::keys::spec::Candidate;
use crate::report::OutputFormat;

/// What an analysis needs: the inputs, the candidates, the production it stands for, the
/// workload and the output, validated (the command line builds it in `cli::analyze`).
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// Inputs as given.
    pub inputs: Vec<PathBuf>,
    /// `--key-stats`: a key-statistics table instead of inputs.
    pub key_stats: Option<PathBuf>,
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
    /// `--delimiter`: the CSV field delimiter (`None`: sniffed from each file's header row).
    pub csv_delimiter: Option<u8>,
    /// Extended JSON: forced on (`Some(true)`), off, or detected (`None`).
    pub extended_json: Option<bool>,
    /// `--skip-invalid`.
    pub skip_invalid: bool,
    /// Worker threads.
    pub threads: usize,
    /// Longest record accepted, bytes.
    pub max_record_bytes: usize,
    /// Memory for the candidates' distinct keys, bytes (`--memory-limit`).
    pub memory_limit: u64,
    /// Show progress.
    pub progress: bool,
    /// Output format.
    pub format: OutputFormat,
    /// How much of the report the table shows (`-q`, default, `--detail`).
    pub view: crate::report::View,
    /// Output file (None = stdout).
    pub output: Option<PathBuf>,
    /// Top-N partitions.
    pub top: usize,
    /// Projection.
    pub projection: Option<Projection>,
    /// Limits after overrides.
    pub limits: Limits,
    /// Provisioned throughput.
    pub provisioning: Option<Provisioning>,
    /// The mode the ranking prices candidates in, and the account's regions and write mode.
    pub cost_basis: crate::advise::cost::CostBasis,
    /// Forced partition count.
    pub physical_partitions: Option<u32>,
    /// Hash version for single-path keys.
    pub hash_version: PkVersion,
    /// The workload (from --workload and the rate/query shortcuts), if any traffic is stated.
    pub workload: Option<crate::workload::Workload>,
    /// Access log.
    pub ops: Option<PathBuf>,
    /// `--observed`: Azure Monitor exports of the container today.
    pub observed: Option<crate::observed::ObservedOptions>,
    /// Time field path.
    pub time_field: Option<crate::keys::spec::KeyPath>,
    /// Time bucket width, seconds (None = automatic).
    pub time_bucket_secs: Option<i64>,
    /// Growth factor per year (`--growth`).
    pub growth_per_year: Option<f64>,
    /// Items' time to live, seconds (`--ttl`): storage levels off at ingest × TTL.
    pub ttl_secs: Option<i64>,
    /// How the sample relates to production (`--sample`).
    pub sample: crate::estimate::SampleRelation,
}
