//! The report's data types, and nothing else: what every stage after the scan fills in and every
//! renderer reads. Serialized with serde (the JSON output is an API: `docs/json-schema.md`) and
//! described by schemars (`docs/pkadvisor.schema.json`). No computation lives here but the
//! score's weighted mean, which defines the `score` field.

mod check;
mod cost;
mod discovery;
mod fields;
mod finding;
mod observed;
mod recommendation;
mod report;
mod workload;

pub use check::{CheckOutcome, Location, Violation};
pub use cost::{BillingMode, CostEval, ModeCost, RequiredBy};
pub use discovery::{Discovery, Excluded, Generated};
pub use fields::{FieldProfile, FieldsReport, IdProperty, TopValue, FIELDS_SCHEMA_VERSION};
pub use finding::{
    static_code, Code, Finding, ScoreParts, Severity, Verdict, SCORE_WEIGHTS, WARNING_POINTS,
};
pub use observed::{
    CalibratedKey, Calibration, CalibrationVerdict, CandidateHot, HotPartitions, KeyRu,
    MeasuredTraffic, ObservedReport, OperationRu, RangeRu,
};
pub use recommendation::{
    ComparisonRow, KeyChange, Recommendation, RecommendationStatus, RunnerUp,
};
pub use report::{
    CandidateReport, FileSummary, InputSummary, KeyErrorSummary, LargestDocument,
    LargestPartitionBasis, LayoutReport, Located, PartitionReport, PrefixFanout, PrefixFanoutEntry,
    Report, SampleRelationReport, SliceProjection, ToolInfo, TopPartition, SCHEMA_VERSION,
};
pub use workload::{
    FanoutGrowth, PointReadEval, QueryEval, RuDemand, TimeEval, TimeToLimitEval, WorkloadEval,
};
