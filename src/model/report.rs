//! The report of an analysis: what was read, every candidate's numbers and findings, the
//! recommendation and, for `check`, the gate. The JSON output is this serialized: an API,
//! versioned by [`SCHEMA_VERSION`] and documented field by field in `docs/json-schema.md`.

use serde::{Deserialize, Serialize};

use super::{Finding, ScoreParts, Verdict};
use crate::cosmos::limits::Limits;
use crate::keys::spec::KeyKind;
use crate::stats::summary::{Distribution, LevelStats, Skew};

/// Version of the JSON document. Bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 5;

/// Everything an analysis produced, in rank order.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Report {
    /// Version of this document's schema.
    pub schema_version: u32,
    /// Tool name and version.
    pub tool: ToolInfo,
    /// What was read.
    pub input: InputSummary,
    /// The limits and cost constants used (after `--limit` overrides).
    pub limits: Limits,
    /// Which numbers are estimates, in words.
    pub estimates: Vec<String>,
    /// The recommended key, why, the runner-up and the container definition (absent when
    /// there are no candidates, and from reports of pkadvisor versions before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommendation: Option<super::Recommendation>,
    /// The automatic candidate search: what it generated and why, what it left out (absent
    /// when every candidate was given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<super::Discovery>,
    /// Candidates in rank order (best first; failing ones last).
    pub candidates: Vec<CandidateReport>,
    /// The service's measurements of the container today (`--observed`) beside the projection
    /// (absent without `--observed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<super::ObservedReport>,
    /// `pkadvisor check` only: the gate's outcome (absent from `analyze` reports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<super::CheckOutcome>,
}

/// Tool identification.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolInfo {
    /// Always `pkadvisor`.
    pub name: String,
    /// The crate version that wrote the report.
    pub version: String,
}

/// One input file.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FileSummary {
    /// Path as given (`<stdin>` for standard input).
    pub path: String,
    /// Format read (`jsonl`, `json`, `csv`), `null` when sniffed from the content.
    pub format: Option<crate::ingest::InputFormat>,
}

/// A record-level problem with its location.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Located {
    /// File path.
    pub file: String,
    /// 1-based line.
    pub line: u64,
    /// 1-based column.
    pub column: u64,
    /// What is wrong.
    pub message: String,
}

/// The largest document seen.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LargestDocument {
    /// Minified bytes.
    pub bytes: u64,
    /// File path.
    pub file: String,
    /// 1-based line where it starts.
    pub line: u64,
}

/// Summary of the input.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InputSummary {
    /// Files read, in order.
    pub files: Vec<FileSummary>,
    /// Records read = analyzed + skipped.
    pub records_read: u64,
    /// Records parsed and analyzed.
    pub records_analyzed: u64,
    /// Malformed records skipped (only with `--skip-invalid`).
    pub records_skipped: u64,
    /// The first few skipped records.
    pub skipped_examples: Vec<Located>,
    /// Bytes of the analyzed records as read.
    pub raw_bytes: u64,
    /// Bytes of the analyzed records minified.
    pub minified_bytes: u64,
    /// Estimated stored bytes of the sample: minified + per-item overhead.
    pub estimated_stored_bytes: f64,
    /// Production documents per sampled document (`N / n`; 1 without a projection). Heavy keys
    /// scale by it; rarer keys by less (docs/projection.md).
    pub scale_factor: f64,
    /// What the projection targets, in words (`null` without projection).
    pub projection: Option<String>,
    /// How the sample relates to production (`--sample`), as declared.
    #[serde(default)]
    pub sample_relation: SampleRelationReport,
    /// The largest document.
    pub largest_document: Option<LargestDocument>,
    /// Findings about the input itself (e.g. an item over 2 MB).
    pub findings: Vec<Finding>,
}

/// How the sample relates to production, as the user declared it (`--sample`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SampleRelationReport {
    /// `uniform` (a random sample of documents: each key keeps its share and grows in size) or
    /// `slice` (whole entities: each key keeps its size, keys grow in number).
    pub kind: String,
    /// The entity paths a slice holds whole (`["*"]`: every candidate; `[]` for uniform).
    pub paths: Vec<String>,
    /// The declaration in words.
    pub description: String,
}

impl Default for SampleRelationReport {
    fn default() -> Self {
        let r = crate::estimate::SampleRelation::Uniform;
        SampleRelationReport {
            kind: r.name().into(),
            paths: r.paths(),
            description: r.describe(),
        }
    }
}

/// A candidate projected as a representative slice: each key the slice holds keeps its size,
/// production holds `growth` times as many keys, and their largest is extrapolated (Hill's tail
/// index, Weissman's quantile; docs/projection.md).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SliceProjection {
    /// Keys in the slice.
    pub keys: u64,
    /// Production keys per key of the slice (`N / n`).
    pub growth: f64,
    /// Largest keys the tail index was estimated from (0: too few keys to extrapolate).
    pub tail_keys: usize,
    /// Hill's tail index (0: the largest keys are all the same size).
    pub gamma: f64,
    /// Its one-sided 95 % upper bound.
    pub gamma_high: f64,
    /// Stored bytes of the slice's largest key (a sample fact, kept in production).
    pub largest_in_slice_bytes: f64,
    /// Production's largest key, median of the extrapolation, stored bytes (an estimate).
    pub expected_largest_bytes: f64,
    /// 95 % upper bound on production's largest key, stored bytes (`null`: too few keys).
    pub largest_high_bytes: Option<f64>,
}

/// One logical partition in a top list.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TopPartition {
    /// The key: a JSON value (`{}` = Undefined), or an array of levels for hierarchical keys.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub key: serde_json::Value,
    /// Projected documents.
    pub documents: f64,
    /// Projected stored bytes (estimate).
    pub bytes: f64,
    /// 95 % range of `bytes` (`[bytes, bytes]` when nothing is projected).
    pub bytes_range: [f64; 2],
    /// Share of the candidate's stored bytes.
    pub share: f64,
}

/// Documents whose key could not be computed, by reason.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KeyErrorSummary {
    /// Reason code.
    pub reason: crate::keys::KeyError,
    /// Documents affected.
    pub documents: u64,
    /// The first few, with where they are.
    pub examples: Vec<Located>,
}

/// One physical partition of a projected layout.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PartitionReport {
    /// Inclusive lower EPK bound (hex; `""` = start of the key space).
    pub min_epk: String,
    /// Exclusive upper EPK bound (`"FF"` = end of the key space).
    pub max_epk: String,
    /// Logical partitions placed here.
    pub logical_partitions: u64,
    /// Projected stored bytes.
    pub bytes: f64,
    /// Estimated RU/s demand.
    pub ru_demand: f64,
    /// RU/s allocated (provisioned / partitions), `null` without provisioned throughput.
    pub ru_allocated: Option<f64>,
    /// ru_demand / ru_allocated.
    pub utilisation: Option<f64>,
}

/// How many physical partitions the prefixes of one level overlap.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrefixFanout {
    /// Prefix length in levels (1 = first level).
    pub level: usize,
    /// Distinct prefixes.
    pub prefixes: u64,
    /// `[partitions overlapped, number of prefixes]` pairs, ascending.
    pub distribution: Vec<(u64, u64)>,
    /// Mean partitions a prefix query visits, weighted by each prefix's share of documents (the
    /// traffic share when traffic follows documents): what routing charges.
    pub weighted_mean_partitions: f64,
    /// The prefixes overlapping the most partitions (up to 5).
    pub worst: Vec<PrefixFanoutEntry>,
}

/// One prefix and its fan-out.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrefixFanoutEntry {
    /// The prefix levels as JSON.
    #[serde(deserialize_with = "crate::ingest::value::plain")]
    pub prefix: serde_json::Value,
    /// Physical partitions its EPK range overlaps.
    pub partitions: u64,
    /// Its projected bytes.
    pub bytes: f64,
}

/// The projected physical layout of a candidate.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LayoutReport {
    /// Hash scheme (`V1`, `V2`, `MultiHash`).
    pub hash: crate::cosmos::PkVersion,
    /// Physical partitions after storage splits.
    pub physical_partitions: u64,
    /// Partitions at creation, before storage splits.
    pub initial_partitions: u64,
    /// Which rule decided the initial count.
    pub partition_count_rule: crate::cosmos::CountRule,
    /// Storage splits the model performed.
    pub storage_splits: u32,
    /// Provisioned RU/s (`null` when only a partition count was forced).
    pub provisioned_ru_per_sec: Option<f64>,
    /// Each physical partition, in EPK order.
    pub partitions: Vec<PartitionReport>,
    /// The hottest partition's utilisation.
    pub hottest_utilisation: Option<f64>,
    /// Share of provisioned RU/s usable before the hottest partition throttles.
    pub usable_throughput_share: Option<f64>,
    /// Hierarchical keys: fan-out of prefix queries, per prefix length.
    pub prefix_fanout: Vec<PrefixFanout>,
}

/// Everything reported about one candidate.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CandidateReport {
    /// The candidate as written.
    pub spec: String,
    /// The candidate as parsed, carried from the command line so that nothing after the scan
    /// parses `spec` again (not serialized; `None` in a report read back from JSON).
    #[serde(skip)]
    pub candidate: Option<crate::keys::spec::Candidate>,
    /// `single`, `synthetic`, `hashed`, `time` or `hierarchical`.
    pub kind: KeyKind,
    /// 1 = best.
    pub rank: usize,
    /// `pass`, `warn` or `fail`.
    pub verdict: Verdict,
    /// 0–100, higher is better (see `docs/model.md`).
    pub score: f64,
    /// The parts the score is made of.
    pub score_parts: ScoreParts,
    /// Findings, most severe first.
    pub findings: Vec<Finding>,
    /// Distinct logical partitions in the sample (Undefined and Null count as one each).
    pub logical_partitions: u64,
    /// Sample documents placed in a partition.
    pub documents: u64,
    /// Documents in the Undefined partition.
    pub undefined_documents: u64,
    /// Documents in the Null partition.
    pub null_documents: u64,
    /// Documents whose key could not be computed (not in any partition).
    pub invalid_key_documents: u64,
    /// Those documents by reason.
    pub key_errors: Vec<KeyErrorSummary>,
    /// Projected stored bytes of the largest logical partition (point estimate).
    pub max_logical_partition_bytes: f64,
    /// 95 % range of the largest logical partition: the largest lower bound of any listed key,
    /// and the largest upper bound of any key including ones not listed.
    pub max_logical_partition_bytes_range: [f64; 2],
    /// One-sided 95 % bound on the bytes of any key seen fewer than 10 times or not at all (0
    /// when nothing is projected).
    pub tail_bound_bytes: f64,
    /// Distinct logical partitions in production: a range, its point and the estimators.
    pub distinct_estimate: crate::estimate::DistinctEstimate,
    /// `exact`, `unique`, `growing`, `saturated` or `mixed`.
    pub regime: crate::estimate::Regime,
    /// The numbers the regime rests on.
    pub regime_evidence: String,
    /// Present when this candidate was projected as a representative slice (`--sample slice`):
    /// its keys keep their size, and how production's largest key was extrapolated.
    #[serde(default)]
    pub slice: Option<SliceProjection>,
    /// Projected stored bytes of all partitions.
    pub total_bytes: f64,
    /// Projected documents per logical partition.
    pub documents_per_partition: Distribution,
    /// Projected stored bytes per logical partition.
    pub bytes_per_partition: Distribution,
    /// The largest logical partitions by bytes.
    pub top_partitions: Vec<TopPartition>,
    /// Skew of stored bytes across logical partitions.
    pub skew: Skew,
    /// Lorenz curve of the sample's stored bytes across logical partitions, smallest first:
    /// `[share of partitions, share of bytes]` points from `[0, 0]` to `[1, 1]`, every vertex for
    /// up to 100 partitions, else the vertex at each whole percent (at most 101 points). The
    /// curve `skew.gini` measures; the HTML report draws it. Empty in reports written before it.
    #[serde(default)]
    pub lorenz: Vec<[f64; 2]>,
    /// Present when `--memory-limit` made the scan keep only a hash-chosen share of this
    /// candidate's keys: the partition counts, distributions, skew and top partitions come from the
    /// kept keys (exact for each), the totals count every document (`KEYS_SAMPLED` finding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_sampling: Option<crate::stats::sampling::KeySampling>,
    /// Largest key value in bytes (limit 2,048).
    pub max_key_bytes: u64,
    /// Hierarchical keys: distinct prefixes per level.
    pub levels: Vec<LevelStats>,
    /// Estimated RU/s of the hottest logical partition (`null` without a workload).
    pub hottest_logical_partition_ru_per_sec: Option<f64>,
    /// The projected physical layout (`null` unless `--ru`, `--autoscale-max-ru`,
    /// `--physical-partitions`, a workload or `--time-field` is given).
    pub layout: Option<LayoutReport>,
    /// Workload and time evaluation (`null` without a workload, `--time-field` or `--growth`).
    pub workload: Option<super::WorkloadEval>,
    /// What running the workload costs under this key (`null` without a workload's demand or a
    /// layout): the RU/s to provision and the month's bill at list prices.
    #[serde(default)]
    pub cost: Option<super::CostEval>,
}

/// What a candidate's largest logical partition figure rests on: every sink that states it
/// (the recommendation, the candidate's section) words it from this one decision.
#[derive(Debug, Clone, Copy)]
pub enum LargestPartitionBasis<'a> {
    /// A unique key: every logical partition holds one document.
    UniqueKey,
    /// A representative slice: its keys keep their size, production's largest is extrapolated.
    Slice(&'a SliceProjection),
    /// Nothing projected, but `--memory-limit` kept only some keys: the largest kept key's
    /// size; a dropped key is only bounded.
    KeptKeysOnly,
    /// Nothing projected and every key kept: the input's largest, measured.
    Measured,
    /// Projected from the sample, with its 95 % range.
    Projected,
}

impl CandidateReport {
    /// What [`CandidateReport::max_logical_partition_bytes`] rests on.
    pub fn largest_partition_basis(&self) -> LargestPartitionBasis<'_> {
        use crate::estimate::Regime;
        match (&self.regime, &self.slice) {
            (Regime::Unique, _) => LargestPartitionBasis::UniqueKey,
            (_, Some(t)) => LargestPartitionBasis::Slice(t),
            (Regime::Exact, _) if self.key_sampling.is_some() => {
                LargestPartitionBasis::KeptKeysOnly
            }
            (Regime::Exact, _) => LargestPartitionBasis::Measured,
            _ => LargestPartitionBasis::Projected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimate::Regime;

    #[test]
    fn the_largest_partition_rests_on_one_basis_whatever_the_sink() {
        let r: Report =
            serde_json::from_str(include_str!("../../tests/data/hand_report.json")).unwrap();
        let mut c = r.candidates[0].clone();
        let basis = |c: &CandidateReport| format!("{:?}", c.largest_partition_basis());
        assert_eq!(c.regime, Regime::Exact);
        assert_eq!(basis(&c), "Measured");
        c.key_sampling = Some(crate::stats::sampling::KeySampling::quarter_kept());
        assert_eq!(basis(&c), "KeptKeysOnly");
        for regime in [Regime::Growing, Regime::Saturated] {
            c.regime = regime;
            assert_eq!(basis(&c), "Projected", "{regime:?}");
        }
        // A representative slice's extrapolation wins over a projection; a unique key's one
        // document per partition wins over both.
        c.slice = Some(SliceProjection {
            keys: 10,
            growth: 100.0,
            tail_keys: 5,
            gamma: 0.5,
            gamma_high: 0.7,
            largest_in_slice_bytes: 1e6,
            expected_largest_bytes: 2e6,
            largest_high_bytes: Some(4e6),
        });
        assert!(basis(&c).starts_with("Slice("), "{}", basis(&c));
        c.regime = Regime::Unique;
        assert_eq!(basis(&c), "UniqueKey");
    }
}
