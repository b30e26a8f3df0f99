//! The CI gate behind `pkadvisor check`: the policy, schema-change detection, baselines, the key
//! read from infrastructure code, and the CI output formats (GitHub and Azure Pipelines
//! annotations, SARIF).

pub mod annotations;
pub mod baseline;
pub mod confine;
pub mod gate;
pub mod iac;
pub mod policy;
pub mod sarif;
pub mod schema;
