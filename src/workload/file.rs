//! The workload description: consistency, indexing, writes, point reads and queries per second.
//!
//! Read from YAML or JSON (`docs/workload.md` has the schema), or built from command-line
//! shortcuts ([`Workload::from_rates`], [`parse_query_flag`]). Unknown fields are errors so typos
//! are caught, and every validation error names the file and the field:
//!
//! ```text
//! workload.yaml: queries[2].filter: path `status` must start with `/`
//! ```

use super::boundaries::{Boundary, BoundaryKind};

mod shape;
mod validate;
use std::fmt;
use std::path::Path;
use validate::*;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use yaml_serde::Value;

use crate::keys::spec::{parse_candidate, KeyKind, Part};

/// The account's (or request's) consistency level; it decides the cost of point reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Consistency {
    /// Strong: reads cost twice as much.
    Strong,
    /// Bounded staleness: reads cost twice as much.
    BoundedStaleness,
    /// Session (the default account level).
    #[default]
    Session,
    /// Consistent prefix.
    ConsistentPrefix,
    /// Eventual.
    Eventual,
}

impl Consistency {
    /// Every level, in the order the error messages list them.
    pub const ALL: [Consistency; 5] = [
        Consistency::Strong,
        Consistency::BoundedStaleness,
        Consistency::Session,
        Consistency::ConsistentPrefix,
        Consistency::Eventual,
    ];

    /// The snake_case name used in workload files.
    pub fn as_str(self) -> &'static str {
        match self {
            Consistency::Strong => "strong",
            Consistency::BoundedStaleness => "bounded_staleness",
            Consistency::Session => "session",
            Consistency::ConsistentPrefix => "consistent_prefix",
            Consistency::Eventual => "eventual",
        }
    }

    /// Parses a snake_case name.
    pub fn from_name(name: &str) -> Option<Consistency> {
        Consistency::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// Whether point reads at this level cost `strong_read_factor` times more (strong and
    /// bounded staleness read from two replicas).
    pub fn doubles_read_cost(self) -> bool {
        matches!(self, Consistency::Strong | Consistency::BoundedStaleness)
    }
}

impl fmt::Display for Consistency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The container's indexing policy, as far as write cost is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Indexing {
    /// The default policy (every property indexed).
    #[default]
    Default,
    /// Indexing mode `none`: writes are cheapest, queries need the partition key or scan.
    None,
    /// A policy with this many explicitly included paths; each adds
    /// `Limits::write_ru_per_indexed_path` RU per KB written.
    IncludedPaths(u32),
}

impl Indexing {
    /// Indexed paths that add to the write cost (0 for the default policy and for `none`).
    pub fn included_paths(self) -> u32 {
        match self {
            Indexing::IncludedPaths(n) => n,
            Indexing::Default | Indexing::None => 0,
        }
    }
}

/// How items are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteKind {
    /// Create a new item.
    #[default]
    Insert,
    /// Create or replace; costed as a replace (the pessimistic case).
    Upsert,
    /// Replace an existing item.
    Replace,
}

impl WriteKind {
    /// Every kind, in the order the error messages list them.
    pub const ALL: [WriteKind; 3] = [WriteKind::Insert, WriteKind::Upsert, WriteKind::Replace];

    /// The lowercase name used in workload files.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteKind::Insert => "insert",
            WriteKind::Upsert => "upsert",
            WriteKind::Replace => "replace",
        }
    }

    /// Whether the write is costed at `replace_factor` × an insert.
    pub fn is_replace(self) -> bool {
        matches!(self, WriteKind::Upsert | WriteKind::Replace)
    }
}

impl fmt::Display for WriteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The write traffic.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Writes {
    /// Writes per second.
    pub per_sec: f64,
    /// What kind of write (default insert).
    pub kind: WriteKind,
}

/// The point-read traffic.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Reads {
    /// Point reads per second.
    pub per_sec: f64,
    /// The properties the application knows when it reads an item (paths such as `/id`). Empty
    /// means "not stated": the reads are assumed to know the full partition key.
    pub by: Vec<String>,
}

/// How a query's filter constrains one property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FilterOp {
    /// `= value`.
    Eq,
    /// `IN (...)` with this many values (`in` alone means [`FilterOp::DEFAULT_IN`]).
    In(u32),
    /// `<`, `>`, `BETWEEN` and other ranges.
    Range,
}

impl FilterOp {
    /// Values assumed for an `in` written without a count.
    pub const DEFAULT_IN: u32 = 3;

    /// Parses `eq`, `in`, `in5`, `range` (as in files and on the command line).
    pub fn from_name(name: &str) -> Option<FilterOp> {
        match name {
            "eq" => Some(FilterOp::Eq),
            "in" => Some(FilterOp::In(FilterOp::DEFAULT_IN)),
            "range" => Some(FilterOp::Range),
            _ => name
                .strip_prefix("in")
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|n| *n >= 1)
                .map(FilterOp::In),
        }
    }
}

impl fmt::Display for FilterOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterOp::Eq => f.write_str("eq"),
            FilterOp::In(n) => write!(f, "in{n}"),
            FilterOp::Range => f.write_str("range"),
        }
    }
}

/// One query the application runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuerySpec {
    /// A unique, human name.
    pub name: String,
    /// Executions per second.
    pub per_sec: f64,
    /// The filtered properties (path text as written) and how, in the order written.
    pub filter: Vec<(String, FilterOp)>,
    /// The query's own RU beyond the per-partition minimum; `None` = `Limits::query_base_ru`.
    pub ru: Option<f64>,
}

/// A whole workload description.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Workload {
    /// Consistency level (default session).
    pub consistency: Consistency,
    /// Indexing policy (default `default`).
    pub indexing: Indexing,
    /// Write traffic, if stated.
    pub writes: Option<Writes>,
    /// Point-read traffic, if stated.
    pub reads: Option<Reads>,
    /// Queries, in the order written.
    pub queries: Vec<QuerySpec>,
    /// Groups that must stay in one logical partition (transactions, unique keys, ordering).
    pub boundaries: Vec<Boundary>,
}

/// Source name used in errors for the command-line shortcuts.
const COMMAND_LINE: &str = "command line";

/// The largest rate (per second) of writes, reads, queries or transactions, as for
/// `--writes-per-sec`: a billion per second, beyond any container.
pub const MAX_RATE: f64 = 1e9;

/// The largest RU of one query execution (`queries[].ru`, `--query ru=`).
pub const MAX_QUERY_RU: f64 = 1e6;

/// `value` if it is from 0 to `max`; else what is wrong, the limit included (a value of `1e308`
/// is too large, not "not a number").
fn in_range(value: f64, max: f64, unit: &str) -> Result<f64, String> {
    if value.is_nan() || value < 0.0 {
        Err(format!(
            "must be a number from 0 to {max:e}{unit}, got {value}"
        ))
    } else if value > max {
        Err(format!("{value:e} is too large: at most {max:e}{unit}"))
    } else {
        Ok(value)
    }
}

/// A number from 0 to `max` read by serde: the check runs inside the parser's own visit of the
/// number, so the error carries the field's path and the number's line and column.
struct Bounded {
    max: f64,
    unit: &'static str,
}

impl Visitor<'_> for Bounded {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a number from 0 to {:e}{}", self.max, self.unit)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<f64, E> {
        in_range(v, self.max, self.unit).map_err(E::custom)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<f64, E> {
        self.visit_f64(v as f64)
    }
}

/// A rate as written in a file, checked while it is read (see [`Bounded`]).
#[derive(Clone, Copy)]
struct Rate(f64);

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
        d.deserialize_f64(Bounded {
            max: MAX_RATE,
            unit: " per second",
        })
        .map(Rate)
    }
}

/// A query's RU as written in a file, checked like [`Rate`].
#[derive(Clone, Copy)]
struct QueryRu(f64);

impl<'de> Deserialize<'de> for QueryRu {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<QueryRu, D::Error> {
        d.deserialize_f64(Bounded {
            max: MAX_QUERY_RU,
            unit: " RU",
        })
        .map(QueryRu)
    }
}

impl Workload {
    /// Builds a workload from the command-line rate shortcuts: inserts, point reads that are
    /// assumed to know the full key (empty `by`), and queries from [`parse_query_flag`].
    /// Session consistency and default indexing.
    pub fn from_rates(
        writes_per_sec: Option<f64>,
        reads_per_sec: Option<f64>,
        queries: Vec<QuerySpec>,
    ) -> Result<Workload, WorkloadError> {
        let ctx = Ctx { file: COMMAND_LINE };
        if let Some(w) = writes_per_sec {
            ctx.rate("writes.per_sec", w)?;
        }
        if let Some(r) = reads_per_sec {
            ctx.rate("reads.per_sec", r)?;
        }
        let workload = Workload {
            consistency: Consistency::default(),
            indexing: Indexing::default(),
            writes: writes_per_sec.map(|per_sec| Writes {
                per_sec,
                kind: WriteKind::Insert,
            }),
            reads: reads_per_sec.map(|per_sec| Reads {
                per_sec,
                by: Vec::new(),
            }),
            queries,
            boundaries: Vec::new(),
        };
        ctx.unique_names(&workload.queries)?;
        Ok(workload)
    }

    /// Whether the workload states any traffic at all.
    pub fn is_empty(&self) -> bool {
        self.writes.is_none()
            && self.reads.is_none()
            && self.queries.is_empty()
            && self.boundaries.is_empty()
    }
}

/// A workload that cannot be read or is invalid. Every message starts with the file name.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Read {
        /// The file.
        file: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not valid YAML/JSON, a wrong type or an unknown field (message from the parser,
    /// including the position).
    #[error("{file}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message.
        message: String,
    },
    /// A field has a value that is not allowed.
    #[error("{file}: {field}: {message}")]
    Invalid {
        /// The file.
        file: String,
        /// The field, e.g. `queries[2].filter`.
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads and validates a workload file; `.json` files are parsed as JSON, anything else as
/// YAML (which also accepts most JSON).
pub fn load(path: &Path) -> Result<Workload, WorkloadError> {
    let name = path.display().to_string();
    let text = crate::small_file::read_to_string(path).map_err(|source| WorkloadError::Read {
        file: name.clone(),
        source,
    })?;
    let json = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    parse(&text, &name, json)
}

/// Parses and validates a workload from text; `name` is used in error messages.
pub fn parse(text: &str, name: &str, json: bool) -> Result<Workload, WorkloadError> {
    let syntax = |message: String| WorkloadError::Syntax {
        file: name.to_string(),
        message,
    };
    if text.trim().is_empty() {
        return Err(syntax("empty workload file".to_string()));
    }
    let raw: RawWorkload = if json {
        shape::check_json(text).map_err(|shape| syntax(shape.to_string()))?;
        serde_json::from_str(text).map_err(|e| syntax(e.to_string()))?
    } else {
        shape::check(text).map_err(|shape| syntax(shape.to_string()))?;
        yaml_serde::from_str(text).map_err(|e| syntax(e.to_string()))?
    };
    Ctx { file: name }.workload(raw)
}

/// Parses the `--query` shortcut: `name=tenant dashboard,per_sec=20,filter=/tenantId:eq+/userId:in5`
/// (optional `ru=12`). Filter items are `path:op` joined by `+`, op one of `eq`, `in` (3
/// values), `in<N>`, `range`; a path without `:op` means `eq`. Commas, `+` and `:` inside quoted
/// path segments do not split.
pub fn parse_query_flag(s: &str) -> Result<QuerySpec, WorkloadError> {
    let ctx = Ctx { file: "--query" };
    let mut name = None;
    let mut per_sec = None;
    let mut filter = None;
    let mut ru = None;
    for item in split_unquoted(s, ',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (key, value) = item.split_once('=').ok_or_else(|| WorkloadError::Syntax {
            file: ctx.file.to_string(),
            message: format!("expected key=value, got `{item}`"),
        })?;
        let (key, value) = (key.trim(), value.trim());
        let slot_taken = match key {
            "name" => name.replace(value.to_string()).is_some(),
            "per_sec" => per_sec.replace(Rate(ctx.number(key, value)?)).is_some(),
            "ru" => ru.replace(QueryRu(ctx.number(key, value)?)).is_some(),
            "filter" => filter.replace(value.to_string()).is_some(),
            _ => {
                return Err(ctx.err(
                    key,
                    "unknown key; accepted: name, per_sec, filter, ru".to_string(),
                ))
            }
        };
        if slot_taken {
            return Err(ctx.err(key, "given twice".to_string()));
        }
    }
    let missing = |key: &str| ctx.err(key, "missing".to_string());
    let name = name.ok_or_else(|| missing("name"))?;
    let per_sec = per_sec.ok_or_else(|| missing("per_sec"))?;
    let filter_text = filter.ok_or_else(|| missing("filter"))?;
    let mut entries = Vec::new();
    for item in split_unquoted(&filter_text, '+') {
        let item = item.trim();
        let (path, op) = match rsplit_unquoted(item, ':') {
            Some((path, op)) => (path.trim(), Some(op.trim())),
            None => (item, None),
        };
        entries.push((path.to_string(), Value::from(op.unwrap_or("eq"))));
    }
    ctx.query(
        "",
        RawQuery {
            name,
            per_sec,
            filter: RawFilter(entries),
            ru,
        },
    )
}

/// Splits at `sep` outside double quotes (backslash escapes inside quotes).
fn split_unquoted(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let (mut quoted, mut escaped) = (false, false);
    for (i, c) in s.char_indices() {
        if quoted {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
        } else if c == '"' {
            quoted = true;
        } else if c == sep {
            out.push(&s[start..i]);
            start = i + c.len_utf8();
        }
    }
    out.push(&s[start..]);
    out
}

/// Splits at the last `sep` outside quotes.
fn rsplit_unquoted(s: &str, sep: char) -> Option<(&str, &str)> {
    let parts = split_unquoted(s, sep);
    if parts.len() < 2 {
        return None;
    }
    let last = parts[parts.len() - 1];
    let head = &s[..s.len() - last.len() - sep.len_utf8()];
    Some((head, last))
}

#[cfg(test)]
mod tests;
