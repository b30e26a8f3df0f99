//! `pkadvisor sql`: one SQL query that computes the key-statistics table (docs/scale.md) inside
//! DuckDB or Spark, so the GROUP BY of a large container runs where the data is.
//!
//! The query works on one JSON document per row (a JSON text column, or the row serialised to
//! JSON) and reproduces, per candidate, what [`crate::keys::KeyPlan`] computes: the key
//! components as a canonical JSON array (`{}` Undefined, `null` Null), the string forms of
//! synthetic parts, time buckets and the documents' key errors. What SQL cannot reproduce
//! exactly is refused when the query is generated (hashed suffixes) or reported per document in
//! the `error` column (a number whose string form the engine writes differently).
//!
//! Each engine is a `Dialect`: how to read one path of the document into the common per-path
//! columns; the rest of the query is shared.

mod duckdb;
mod spark;

use std::fmt::Write as _;

use crate::keys::spec::{Candidate, KeyPath, Part, TimeUnit};

/// The engines `pkadvisor sql` writes for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// DuckDB 1.x (`read_ndjson_objects`, `read_json_auto`, `read_parquet` or a table).
    DuckDb,
    /// Spark SQL 3.4+ (Databricks, Synapse, Fabric, local).
    Spark,
}

impl Engine {
    /// The engine's name as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Engine::DuckDb => "duckdb",
            Engine::Spark => "spark",
        }
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct SqlRequest {
    /// Target engine.
    pub engine: Engine,
    /// The table expression after FROM (a table name, `read_parquet('x')`, a subquery...).
    pub from: String,
    /// A column holding each document's JSON text; None = serialise the row.
    pub json_column: Option<String>,
    /// Candidates, in order.
    pub candidates: Vec<Candidate>,
    /// Separator of composed keys.
    pub separator: String,
    /// The time field for first/last times.
    pub time_field: Option<KeyPath>,
}

/// Why a query cannot be generated.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SqlError(pub String);

/// SQL spelled per engine for one document path. Every method returns an SQL expression;
/// `doc` is the document column, `p` the path's index (its columns are `x{p}`, `t{p}`).
trait Dialect {
    /// The document as JSON from the source row `src` (or its JSON text column).
    fn doc(&self, json_column: Option<&str>) -> String;
    /// Stored-size estimate of `doc`: bytes of its minified JSON (whitespace outside strings
    /// removed from a JSON text column, as pkadvisor minifies; a serialised row is minified).
    fn bytes(&self, json_column: bool) -> String;
    /// Columns computed once per path: `x{p}` (the value, engine-typed) and more if needed.
    fn path_columns(&self, p: usize, path: &KeyPath) -> Result<Vec<(String, String)>, SqlError>;
    /// The value's kind: 'u' missing, 'n' null, 'b' boolean, 'd' number, 's' string, 'c'
    /// object or array (computed from the path columns).
    fn kind(&self, p: usize, path: &KeyPath) -> String;
    /// The value as canonical JSON text (valid when the kind is n, b, d or s).
    fn json_text(&self, p: usize) -> String;
    /// The string form of a synthetic part (kind s, b or d); NULL when a number's form cannot be
    /// written as pkadvisor writes it.
    fn string_form(&self, p: usize) -> String;
    /// Epoch seconds of an ISO 8601 string or epoch number; NULL when not a timestamp.
    fn epoch_seconds(&self, p: usize) -> String;
    /// A string literal.
    fn literal(&self, s: &str) -> String;
    /// JSON string literal of a string expression (quotes and escapes).
    fn json_quote(&self, e: &str) -> String;
    /// The final SELECT's FROM clause: one row per document and candidate (columns candidate,
    /// key, error, pk_bytes, pk_time) from `keyed`, whose rows carry `k{i}`/`e{i}` (key and
    /// error of candidate `i`, whose spec is `specs[i]`).
    fn explode(&self, specs: &[String]) -> String;
    /// The DATE `days` days after 1970-01-01.
    fn date_from_days(&self, days: &str) -> String;
}

fn dialect(engine: Engine) -> Box<dyn Dialect> {
    match engine {
        Engine::DuckDb => Box::new(duckdb::DuckDb),
        Engine::Spark => Box::new(spark::Spark),
    }
}

/// Every candidate's parts, level by level, as (path's column set, time unit, hashed).
type PartPlans = Vec<Vec<Vec<(usize, Option<TimeUnit>, bool)>>>;

/// The distinct paths of the candidates and of the time field (one set of columns each), every
/// candidate's parts by the column set of their path, and the time field's column set.
fn plan_paths(req: &SqlRequest) -> (Vec<&KeyPath>, PartPlans, Option<usize>) {
    let mut paths: Vec<&KeyPath> = Vec::new();
    fn slot<'a>(p: &'a KeyPath, paths: &mut Vec<&'a KeyPath>) -> usize {
        match paths.iter().position(|q| q.segments == p.segments) {
            Some(i) => i,
            None => {
                paths.push(p);
                paths.len() - 1
            }
        }
    }
    let mut plans = Vec::new();
    for c in &req.candidates {
        let mut levels = Vec::new();
        for level in &c.levels {
            let parts: Vec<(usize, Option<TimeUnit>, bool)> = level
                .parts
                .iter()
                .map(|part| match part {
                    Part::Path(p) => (slot(p, &mut paths), None, false),
                    Part::Time { unit, path } => (slot(path, &mut paths), Some(*unit), false),
                    Part::Hash { path, .. } => (slot(path, &mut paths), None, true),
                })
                .collect();
            levels.push(parts);
        }
        plans.push(levels);
    }
    let time_slot = req.time_field.as_ref().map(|p| slot(p, &mut paths));
    (paths, plans, time_slot)
}

/// Generates the key-statistics query.
pub fn generate(req: &SqlRequest) -> Result<String, SqlError> {
    let d = dialect(req.engine);
    refuse_unsupported(&req.candidates)?;
    let (paths, plans, time_slot) = plan_paths(req);

    let mut sql = header(req);
    let _ = writeln!(
        sql,
        "WITH docs AS (\n  SELECT {} AS doc\n  FROM {} AS src\n),",
        d.doc(req.json_column.as_deref()),
        req.from
    );
    let mut cols = vec![format!(
        "{} AS pk_bytes",
        d.bytes(req.json_column.is_some())
    )];
    for (i, p) in paths.iter().enumerate() {
        for (name, expr) in d.path_columns(i, p)? {
            cols.push(format!("{expr} AS {name}"));
        }
    }
    let _ = writeln!(
        sql,
        "vals AS (\n  SELECT\n    {}\n  FROM docs\n),",
        cols.join(",\n    ")
    );
    let mut kinds = vec!["*".to_string()];
    for (i, p) in paths.iter().enumerate() {
        kinds.push(format!("{} AS t{i}", d.kind(i, p)));
    }
    let _ = writeln!(
        sql,
        "typed AS (\n  SELECT\n    {}\n  FROM vals\n),",
        kinds.join(",\n    ")
    );
    let mut keyed = vec![
        "pk_bytes".to_string(),
        match time_slot {
            Some(t) => format!("{} AS pk_time", d.epoch_seconds(t)),
            None => "CAST(NULL AS BIGINT) AS pk_time".to_string(),
        },
    ];
    for (i, levels) in plans.iter().enumerate() {
        let (key, err) = candidate_exprs(d.as_ref(), levels, &req.separator);
        keyed.push(format!("{err} AS e{i}"));
        keyed.push(format!("CASE WHEN {err} IS NULL THEN {key} END AS k{i}"));
    }
    let _ = writeln!(
        sql,
        "keyed AS (\n  SELECT\n    {}\n  FROM typed\n)",
        keyed.join(",\n    ")
    );
    let specs: Vec<String> = req.candidates.iter().map(|c| c.spec.clone()).collect();
    let _ = write!(
        sql,
        "SELECT candidate, key, error, COUNT(*) AS documents, SUM(pk_bytes) AS bytes,\n       MIN(pk_time) AS first_time, MAX(pk_time) AS last_time\n{}\nGROUP BY candidate, key, error\nORDER BY candidate, key, error\n",
        d.explode(&specs)
    );
    Ok(sql)
}

fn header(req: &SqlRequest) -> String {
    let mut h = format!(
        "-- pkadvisor {}: key statistics for {} candidate(s), {} SQL.\n",
        env!("CARGO_PKG_VERSION"),
        req.candidates.len(),
        req.engine.name()
    );
    h.push_str("-- Columns (docs/scale.md): candidate, key (JSON array of key components; {} is Undefined),\n");
    h.push_str(
        "-- error (why documents have no key), documents, bytes (minified JSON bytes, before the\n",
    );
    h.push_str("-- per-item overhead), first_time/last_time (epoch seconds of the time field).\n");
    h.push_str("-- Feed the result to: pkadvisor analyze --key-stats FILE -c SPEC...\n");
    h
}

/// Hashed suffixes need murmur3 of the string form with seed 0; neither engine has it (Spark's
/// `hash` uses seed 42 and its own string handling), so the query would be wrong.
fn refuse_unsupported(candidates: &[Candidate]) -> Result<(), SqlError> {
    for c in candidates {
        let hashed = c
            .levels
            .iter()
            .flat_map(|l| &l.parts)
            .any(|p| matches!(p, Part::Hash { .. }));
        if hashed {
            return Err(SqlError(format!(
                "candidate `{}`: hashed suffixes (hash(...)%N) cannot be pushed down: the engines have no murmur3_x86_32 with seed 0 over pkadvisor's string form, and an approximation would give other partitions; analyze the data directly, or push down the key without the suffix",
                c.spec
            )));
        }
    }
    Ok(())
}

/// The key (JSON array text) and error (reason or NULL) expressions of one candidate.
fn candidate_exprs(
    d: &dyn Dialect,
    levels: &[Vec<(usize, Option<TimeUnit>, bool)>],
    sep: &str,
) -> (String, String) {
    let mut comps = Vec::new();
    let mut errs = Vec::new();
    for parts in levels {
        let (c, e) = match parts.as_slice() {
            [(p, None, false)] => direct_level(d, *p),
            _ => composed_level(d, parts, sep),
        };
        comps.push(c);
        errs.push(e);
    }
    let key = format!("'[' || {} || ']'", comps.join(" || ',' || "));
    let err = if errs.len() == 1 {
        errs.pop().expect("one")
    } else {
        format!("COALESCE({})", errs.join(", "))
    };
    (key, err)
}

fn direct_level(d: &dyn Dialect, p: usize) -> (String, String) {
    let comp = format!(
        "(CASE WHEN t{p} = 'u' THEN '{{}}' ELSE {} END)",
        d.json_text(p)
    );
    let err = format!("(CASE WHEN t{p} = 'c' THEN 'composite_value' END)");
    (comp, err)
}

/// A level computed by the application: any missing or null part makes it Undefined, checked
/// part by part in order as pkadvisor does (so the first problem decides).
fn composed_level(
    d: &dyn Dialect,
    parts: &[(usize, Option<TimeUnit>, bool)],
    sep: &str,
) -> (String, String) {
    let mut status = String::from("(CASE");
    let mut pieces = Vec::new();
    for (p, unit, _) in parts {
        let _ = write!(status, " WHEN t{p} IN ('u', 'n') THEN 'undefined'");
        match unit {
            None => {
                let _ = write!(
                    status,
                    " WHEN t{p} = 'c' THEN 'composite_value' WHEN {} IS NULL THEN 'number_form'",
                    d.string_form(*p)
                );
                pieces.push(d.string_form(*p));
            }
            Some(u) => {
                let secs = d.epoch_seconds(*p);
                let _ = write!(status, " WHEN {secs} IS NULL THEN 'not_a_timestamp'");
                pieces.push(time_label(d, &secs, *u));
            }
        }
    }
    status.push_str(" END)");
    let text = pieces.join(&format!(" || {} || ", d.literal(sep)));
    let comp = format!(
        "(CASE WHEN {status} = 'undefined' THEN '{{}}' ELSE {} END)",
        d.json_quote(&text)
    );
    let err = format!("(CASE WHEN {status} <> 'undefined' THEN {status} END)");
    (comp, err)
}

/// The UTC bucket label of epoch seconds, computed from the day number so that neither the
/// session time zone nor a date-formatting function can shift it.
fn time_label(d: &dyn Dialect, secs: &str, unit: TimeUnit) -> String {
    let days = format!("CAST(FLOOR({secs} / 86400) AS INT)");
    let day = format!("CAST({} AS STRING)", d.date_from_days(&days));
    match unit {
        TimeUnit::Year => format!("SUBSTR({day}, 1, 4)"),
        TimeUnit::Month => format!("SUBSTR({day}, 1, 7)"),
        TimeUnit::Day => day,
        TimeUnit::Hour => format!(
            "{day} || 'T' || LPAD(CAST(CAST(FLOOR(({secs} - FLOOR({secs} / 86400) * 86400) / 3600) AS INT) AS STRING), 2, '0')"
        ),
    }
}

/// Epoch seconds from a DOUBLE expression, as [`crate::keys::time::epoch_seconds_from_number`]:
/// milliseconds when |x| ≥ 1e11, floored, years 0000–9999 only.
fn epoch_from_number(x: &str) -> String {
    format!(
        "(CASE WHEN FLOOR(CASE WHEN ABS({x}) >= 1e11 THEN {x} / 1000 ELSE {x} END) BETWEEN -62167219200 AND 253402300799 THEN CAST(FLOOR(CASE WHEN ABS({x}) >= 1e11 THEN {x} / 1000 ELSE {x} END) AS BIGINT) END)"
    )
}

/// The string form of a DOUBLE expression as pkadvisor writes it, or NULL where the engine's
/// text would differ: integral values below 2^53 as integers, others as the engine's shortest
/// text unless it uses an exponent.
fn double_form(x: &str, text: &str) -> String {
    format!(
        "(CASE WHEN {x} = FLOOR({x}) AND ABS({x}) < 9007199254740992 THEN CAST(CAST({x} AS BIGINT) AS STRING) WHEN {x} = FLOOR({x}) THEN NULL WHEN LOWER({text}) LIKE '%e%' THEN NULL ELSE {text} END)"
    )
}
