//! The JSON renderer: the [`Report`] model serialized, pretty-printed, newline-terminated; and
//! its inverse, reading a saved report back for `pkadvisor report`.

use serde::Deserialize;

use super::Renderer;
use crate::model::{Report, SCHEMA_VERSION};

/// Renders the versioned JSON document.
pub struct JsonRenderer;

impl Renderer for JsonRenderer {
    fn render(&self, report: &Report) -> String {
        // Values stay exact; DEL, C1, bidi characters and `##[` are written as `\u` escapes.
        let mut s = crate::neutralise::json(
            serde_json::to_string_pretty(report).expect("report serializes"),
        );
        s.push('\n');
        s
    }
}

/// Why a saved report cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not JSON, or not a report of this schema (the message names line and column).
    #[error(transparent)]
    Invalid(#[from] serde_json::Error),
    /// Valid JSON without `schema_version`.
    #[error("no schema_version: not a pkadvisor JSON report (write one with --format json)")]
    NotAReport,
    /// A `pkadvisor fields` profile (its own `schema_version`), not an analysis report.
    #[error("a `pkadvisor fields` profile (schema_version {found}), not an analysis report")]
    FieldsProfile {
        /// The profile's `schema_version`.
        found: u64,
    },
    /// Written by a version of pkadvisor with another schema.
    #[error(
        "schema_version {found} is not {SCHEMA_VERSION}, the version this pkadvisor reads; \
         re-run the analysis with this version, or render it with the pkadvisor that wrote it"
    )]
    Version {
        /// The document's `schema_version`.
        found: u64,
    },
}

/// Parses a JSON report written by `analyze` or `check` (`--format json`).
pub fn read(text: &str) -> Result<Report, ReadError> {
    #[derive(Deserialize)]
    struct Versioned {
        schema_version: Option<u64>,
        // A field profile holds `fields` and `id_property`, a report `candidates`.
        fields: Option<serde::de::IgnoredAny>,
        id_property: Option<serde::de::IgnoredAny>,
        candidates: Option<serde::de::IgnoredAny>,
    }
    let v: Versioned = serde_json::from_str(text)?;
    let profile = v.fields.is_some() && v.id_property.is_some() && v.candidates.is_none();
    match v.schema_version {
        Some(found) if profile => Err(ReadError::FieldsProfile { found }),
        Some(n) if n == u64::from(SCHEMA_VERSION) => Ok(serde_json::from_str(text)?),
        Some(found) => Err(ReadError::Version { found }),
        None => Err(ReadError::NotAReport),
    }
}

/// The JSON Schema of `pkadvisor fields --format json` (docs/pkadvisor-fields.schema.json).
pub fn fields_schema() -> String {
    let mut s = serde_json::to_string_pretty(&schemars::schema_for!(crate::model::FieldsReport))
        .expect("the schema serializes");
    s.push('\n');
    s
}

/// The JSON Schema (draft 2020-12) of the report, generated from the [`Report`] model and its
/// doc comments; `docs/pkadvisor.schema.json` is this, checked current by a test.
pub fn schema() -> String {
    let mut s = serde_json::to_string_pretty(&schemars::schema_for!(Report))
        .expect("the schema serializes");
    s.push('\n');
    s
}
