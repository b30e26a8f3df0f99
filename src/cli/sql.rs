//! Arguments of `pkadvisor sql`: print the key-statistics query for an engine.

use clap::{Args, ValueEnum};

use super::ConfigError;
use crate::keys::spec::parse_candidates;
use crate::sql::{Engine, SqlRequest};

/// Engines on the command line.
#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EngineArg {
    /// DuckDB 1.x.
    Duckdb,
    /// Spark SQL 3.4+ (Databricks, Synapse, Fabric, local).
    Spark,
}

/// `pkadvisor sql` arguments.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  pkadvisor sql --engine duckdb --from \"read_ndjson_objects('events.jsonl')\" --json-column json -c /tenantId
  pkadvisor sql --engine spark --from main.sales.orders -c /tenantId -c '/tenantId>/userId'

Run the query in the engine, save the result as CSV or JSON Lines, then:
  pkadvisor analyze --key-stats stats.csv -c /tenantId -c '/tenantId>/userId'
See docs/scale.md.")]
pub struct SqlArgs {
    /// The engine whose SQL to write.
    #[arg(long, value_enum)]
    pub engine: EngineArg,
    /// The table expression after FROM: a table, `read_parquet('x.parquet')`, a subquery...
    #[arg(long, value_name = "TABLE")]
    pub from: String,
    /// A column holding each document's JSON text (keeps missing and null apart); without it,
    /// each row is serialised to JSON.
    #[arg(long, value_name = "COLUMN")]
    pub json_column: Option<String>,
    /// Candidate keys, comma-separated.
    #[arg(long = "candidates", value_name = "LIST")]
    pub candidates: Vec<String>,
    /// One candidate key (repeatable).
    #[arg(short = 'c', long = "candidate", value_name = "SPEC")]
    pub candidate: Vec<String>,
    /// Separator joining the parts of synthetic and time keys (as `analyze --separator`).
    #[arg(long, default_value = "-", value_name = "TEXT")]
    pub separator: String,
    /// Property holding each document's time: adds its first/last value per key.
    #[arg(long, value_name = "PATH")]
    pub time_field: Option<String>,
}

/// Validates `sql` arguments.
pub fn sql_config(a: SqlArgs) -> Result<SqlRequest, ConfigError> {
    let mut all = a.candidates.clone();
    all.extend(a.candidate.iter().cloned());
    if all.is_empty() {
        return Err(ConfigError::Invalid(
            "no candidate keys: pass -c /tenantId (repeatable) or --candidates /a,/b".into(),
        ));
    }
    let candidates = parse_candidates(&all.join(","))?;
    let time_field = match &a.time_field {
        Some(t) => Some(super::time_path(t)?),
        None => None,
    };
    if a.from.trim().is_empty() {
        return Err(ConfigError::Invalid(
            "--from needs a table or table expression".into(),
        ));
    }
    Ok(SqlRequest {
        engine: match a.engine {
            EngineArg::Duckdb => Engine::DuckDb,
            EngineArg::Spark => Engine::Spark,
        },
        from: a.from,
        json_column: a.json_column,
        candidates,
        separator: a.separator,
        time_field,
    })
}
