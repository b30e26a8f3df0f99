//! The candidate partition-key grammar.
//!
//! Users describe the keys they want evaluated as a comma-separated list
//! (`--candidates`) or one at a time (`-c/--candidate`). Each candidate is
//! one of:
//!
//! | kind         | example                        |
//! |--------------|--------------------------------|
//! | single       | `/tenantId`, `/"dept name"/id` |
//! | synthetic    | `/tenantId+/region`            |
//! | hashed       | `/tenantId+hash(/id)%16`       |
//! | time         | `day(/ts)`, `/deviceId+month(/ts)` |
//! | hierarchical | `/tenantId>/userId>/id`        |
//!
//! Grammar (whitespace is allowed around every token except inside a path):
//!
//! ```text
//! candidate = level , { ">" , level } ;          (* at most 3 levels *)
//! level     = part , { "+" , part } ;
//! part      = path
//!           | "hash" , "(" , path , ")" , "%" , digits   (* 2..=65536 *)
//!           | ( "hour" | "day" | "month" | "year" ) , "(" , path , ")" ;
//! path      = "/" , segment , { "/" , segment } ;
//! segment   = unquoted | '"' , { char | '\"' | '\\' } , '"' ;
//! ```
//!
//! Every parse error carries the byte offset of the offending character so
//! the CLI can point at it (see [`SpecError`]'s `Display`).
//!
//! This file holds the parsed types, the error and the entry points (splitting a
//! list, rejecting duplicates); the parser of one candidate is in `spec/parser.rs`.

use std::fmt;

use serde::{Deserialize, Serialize};

use parser::Parser;

/// Maximum number of levels in a hierarchical key (Cosmos DB `MultiHash`).
pub const MAX_LEVELS: usize = 3;
/// Smallest accepted bucket count for `hash(...)%N`.
pub const MIN_HASH_BUCKETS: u32 = 2;
/// Largest accepted bucket count for `hash(...)%N`.
pub const MAX_HASH_BUCKETS: u32 = 65536;

/// One parsed candidate partition key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Candidate {
    /// The candidate text as the user wrote it, trimmed of surrounding whitespace.
    pub spec: String,
    /// The overall kind of key, derived from `levels`.
    pub kind: KeyKind,
    /// The hierarchy levels; a non-hierarchical key has exactly one.
    pub levels: Vec<Level>,
}

impl Candidate {
    /// Every path the candidate reads, in the order written (level by level,
    /// part by part).
    pub fn paths(&self) -> Vec<&KeyPath> {
        self.levels
            .iter()
            .flat_map(|level| level.parts.iter().map(Part::path))
            .collect()
    }

    /// Whether `other` describes the same key, ignoring how it was spelled
    /// (whitespace, quoting of segments that need no quotes).
    pub fn same_key(&self, other: &Candidate) -> bool {
        self.levels.len() == other.levels.len()
            && self
                .levels
                .iter()
                .zip(&other.levels)
                .all(|(a, b)| a.same_key(b))
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec)
    }
}

/// The overall shape of a candidate key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum KeyKind {
    /// One plain path, e.g. `/tenantId`.
    Single,
    /// Several plain paths concatenated, e.g. `/tenantId+/region`.
    Synthetic,
    /// A single-level key containing a `hash(...)%N` part.
    Hashed,
    /// A single-level key containing a time-bucket part (and no hash part).
    Time,
    /// More than one level, e.g. `/tenantId>/userId` (Cosmos `MultiHash`).
    Hierarchical,
}

impl KeyKind {
    /// The lowercase name, as serialized and displayed.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyKind::Single => "single",
            KeyKind::Synthetic => "synthetic",
            KeyKind::Hashed => "hashed",
            KeyKind::Time => "time",
            KeyKind::Hierarchical => "hierarchical",
        }
    }
}

impl fmt::Display for KeyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One level of a key; several parts are concatenated with the separator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Level {
    /// The parts, in the order they are concatenated.
    pub parts: Vec<Part>,
}

impl Level {
    /// Whether `other` computes the same value (paths compared by segments).
    pub fn same_key(&self, other: &Level) -> bool {
        self.parts.len() == other.parts.len()
            && self
                .parts
                .iter()
                .zip(&other.parts)
                .all(|(a, b)| a.same_key(b))
    }
}

/// One component of a level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Part {
    /// The value at a path, e.g. `/tenantId`.
    Path(KeyPath),
    /// `hash(<path>)%<buckets>`: a stable hash of the value modulo `buckets`.
    Hash {
        /// The path whose value is hashed.
        path: KeyPath,
        /// The bucket count `N` (2..=65536).
        buckets: u32,
    },
    /// `day(<path>)` etc.: the value bucketed to a UTC time unit.
    Time {
        /// The bucket size.
        unit: TimeUnit,
        /// The path holding the timestamp.
        path: KeyPath,
    },
}

impl Part {
    /// The path this part reads.
    pub fn path(&self) -> &KeyPath {
        match self {
            Part::Path(path) | Part::Hash { path, .. } | Part::Time { path, .. } => path,
        }
    }

    /// Whether `other` computes the same value (paths compared by segments).
    pub fn same_key(&self, other: &Part) -> bool {
        match (self, other) {
            (Part::Path(a), Part::Path(b)) => a.segments == b.segments,
            (
                Part::Hash {
                    path: a,
                    buckets: n,
                },
                Part::Hash {
                    path: b,
                    buckets: m,
                },
            ) => n == m && a.segments == b.segments,
            (Part::Time { unit: u, path: a }, Part::Time { unit: v, path: b }) => {
                u == v && a.segments == b.segments
            }
            _ => false,
        }
    }
}

/// A document path such as `/customer/address/zip` or `/"dept name"`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct KeyPath {
    /// The path as written, e.g. `/"a b"/c`.
    pub text: String,
    /// The unescaped property names, e.g. `["a b", "c"]`.
    pub segments: Vec<String>,
}

impl fmt::Display for KeyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The size of a time bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    /// `hour(...)`, labels like `2024-05-01T13`.
    Hour,
    /// `day(...)`, labels like `2024-05-01`.
    Day,
    /// `month(...)`, labels like `2024-05`.
    Month,
    /// `year(...)`, labels like `2024`.
    Year,
}

impl TimeUnit {
    /// The function name used in the grammar (`hour`, `day`, `month`, `year`).
    pub fn as_str(self) -> &'static str {
        match self {
            TimeUnit::Hour => "hour",
            TimeUnit::Day => "day",
            TimeUnit::Month => "month",
            TimeUnit::Year => "year",
        }
    }

    fn from_name(name: &str) -> Option<TimeUnit> {
        match name {
            "hour" => Some(TimeUnit::Hour),
            "day" => Some(TimeUnit::Day),
            "month" => Some(TimeUnit::Month),
            "year" => Some(TimeUnit::Year),
            _ => None,
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A parse error with the position of the offending character.
///
/// `Display` renders the message, the input and a caret under the error:
///
/// ```text
/// invalid candidate key: hierarchical keys allow at most 3 levels
///   /a>/b>/c>/d
///           ^
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError {
    /// The full text that was being parsed (the whole list for
    /// [`parse_candidates`]).
    pub input: String,
    /// Byte offset into `input` of the offending character (may equal
    /// `input.len()` when something is missing at the end).
    pub offset: usize,
    /// What went wrong, without the position.
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let offset = floor_char_boundary(&self.input, self.offset);
        let column = self.input[..offset].chars().count();
        write!(
            f,
            "invalid candidate key: {}\n  {}\n  {:column$}^",
            self.message, self.input, ""
        )
    }
}

impl std::error::Error for SpecError {}

fn floor_char_boundary(s: &str, offset: usize) -> usize {
    let mut offset = offset.min(s.len());
    while !s.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Parses a comma-separated list of candidates.
///
/// Commas inside quoted path segments do not split. Empty items and
/// candidates describing the same key twice are errors. Error offsets are
/// relative to the whole `input`.
pub fn parse_candidates(input: &str) -> Result<Vec<Candidate>, SpecError> {
    let items = split_top_level(input);
    let mut out: Vec<Candidate> = Vec::with_capacity(items.len());
    for (index, &(start, end)) in items.iter().enumerate() {
        let (tstart, tend) = trim_range(input, start, end);
        if tstart == tend {
            let err = |offset: usize, message: &str| SpecError {
                input: input.to_string(),
                offset,
                message: message.to_string(),
            };
            if items.len() == 1 {
                return Err(err(tstart, EMPTY_CANDIDATE));
            }
            // Point at the comma after the empty item, or before it when it is last.
            let offset = if index + 1 < items.len() {
                end
            } else {
                start - 1
            };
            return Err(err(offset, "empty candidate: remove the extra comma"));
        }
        let candidate = parse_range(input, tstart, tend)?;
        if let Some(pos) = out.iter().position(|c| c.same_key(&candidate)) {
            return Err(SpecError {
                input: input.to_string(),
                offset: tstart,
                message: format!(
                    "duplicate candidate: same key as candidate {} (`{}`)",
                    pos + 1,
                    out[pos].spec
                ),
            });
        }
        out.push(candidate);
    }
    Ok(out)
}

/// Parses one candidate (a comma outside quotes is an error here).
pub fn parse_candidate(input: &str) -> Result<Candidate, SpecError> {
    let (start, end) = trim_range(input, 0, input.len());
    if start == end {
        return Err(SpecError {
            input: input.to_string(),
            offset: start,
            message: EMPTY_CANDIDATE.to_string(),
        });
    }
    parse_range(input, start, end)
}

const EMPTY_CANDIDATE: &str = "empty candidate: expected a key path such as `/tenantId`";

const WHITESPACE_IN_PATH: &str =
    "whitespace is not allowed in an unquoted path segment; quote it, e.g. /\"my prop\"";

/// Byte ranges of the comma-separated items, honouring quotes and escapes.
fn split_top_level(input: &str) -> Vec<(usize, usize)> {
    let mut items = Vec::new();
    let mut start = 0;
    let mut in_quote = false;
    let mut escaped = false;
    for (i, c) in input.char_indices() {
        if in_quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_quote = false;
            }
        } else if c == '"' {
            in_quote = true;
        } else if c == ',' {
            items.push((start, i));
            start = i + 1;
        }
    }
    items.push((start, input.len()));
    items
}

fn trim_range(input: &str, start: usize, end: usize) -> (usize, usize) {
    let slice = &input[start..end];
    let lead = slice.len() - slice.trim_start().len();
    let trail = slice.len() - slice.trim_end().len();
    if lead == slice.len() {
        (start, start)
    } else {
        (start + lead, end - trail)
    }
}

fn parse_range(input: &str, start: usize, end: usize) -> Result<Candidate, SpecError> {
    let mut parser = Parser {
        src: input,
        pos: start,
        end,
    };
    let levels = parser.candidate()?;
    Ok(Candidate {
        spec: input[start..end].to_string(),
        kind: kind_of(&levels),
        levels,
    })
}

fn kind_of(levels: &[Level]) -> KeyKind {
    let parts = || levels.iter().flat_map(|l| l.parts.iter());
    if levels.len() > 1 {
        KeyKind::Hierarchical
    } else if parts().any(|p| matches!(p, Part::Hash { .. })) {
        KeyKind::Hashed
    } else if parts().any(|p| matches!(p, Part::Time { .. })) {
        KeyKind::Time
    } else if parts().count() > 1 {
        KeyKind::Synthetic
    } else {
        KeyKind::Single
    }
}

mod parser;

#[cfg(test)]
mod tests;
