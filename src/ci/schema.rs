//! Schema-change detection for the checked key: a second look at the sample's records that finds
//! documents where a key path is missing, null, of another JSON type than the rest (a number
//! hashes differently from the same digits as a string, so it lands in another partition), or
//! makes the key longer than the service accepts, each with the first offending records as
//! `file:line`. Standard input, pipes and FIFOs reach it as temporary copies (commands::spool);
//! an input without a path (standard input given here directly) is passed over and listed.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::ingest::{open, Framing, InputSource};
use crate::keys::spec::{Candidate, Part};
use crate::model::Severity;
use crate::model::{Location, Violation};

/// Documents without a key path whose properties are compared with it for a rename: the
/// first this many (a comparison per property, so a sample where every document lacks the
/// path stays quick).
pub const RENAME_LOOKS: u64 = 1_000;

/// How many offending records are listed per problem.
pub const MAX_LOCATIONS: usize = 5;

/// Counts and first positions of one kind of problem.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Offenders {
    /// Documents affected.
    pub count: u64,
    /// The first few.
    pub first: Vec<Location>,
}

impl Offenders {
    fn add(&mut self, at: &Location) {
        self.count += 1;
        if self.first.len() < MAX_LOCATIONS {
            self.first.push(at.clone());
        }
    }
}

/// What the second look found for one key path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PathReport {
    /// Documents without the path.
    pub missing: Offenders,
    /// Documents with `null` there.
    pub null: Offenders,
    /// Documents by JSON type of the value (`string`, `number`, `boolean`, `object`, `array`).
    pub types: BTreeMap<&'static str, Offenders>,
    /// Among the documents without the path, how many hold a property of a like name where
    /// it would be (`customer_id` for `/customerId`; `crate::advise::domain::nearest_paths`),
    /// by that name.
    pub alike: BTreeMap<String, u64>,
}

/// What the second look found for the key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchemaReport {
    /// Documents examined.
    pub documents: u64,
    /// Per key path, in the key's order.
    pub paths: Vec<(String, PathReport)>,
    /// Documents whose key value is over the size limit.
    pub too_large: Offenders,
    /// Inputs not examined (standard input).
    pub skipped_inputs: Vec<String>,
}

fn kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::String(_) => "string",
        serde_json::Value::Number(_) => "number",
        serde_json::Value::Bool(_) => "boolean",
        serde_json::Value::Array(_) => "array",
        serde_json::Value::Object(_) => "object",
        serde_json::Value::Null => "null",
    }
}

fn lookup<'a>(v: &'a serde_json::Value, segments: &[String]) -> Option<&'a serde_json::Value> {
    segments.iter().try_fold(v, |cur, s| cur.get(s))
}

/// The property of `doc` that most likely replaced the missing path `segs`: among the
/// properties beside where it would be, the nearest by the rule of
/// `crate::advise::domain::nearest_paths` (case, `_`, then a small edit distance).
fn renamed_to(doc: &serde_json::Value, segs: &[String]) -> Option<String> {
    let (last, parent) = segs.split_last()?;
    let siblings = lookup(doc, parent)?.as_object()?;
    let path = |name: &str| {
        let mut p: String = parent.iter().map(|s| format!("/{s}")).collect();
        p.push('/');
        p.push_str(name);
        p
    };
    let names: Vec<String> = siblings.keys().map(|k| path(k)).collect();
    let nearest = *crate::advise::domain::nearest_paths(&path(last), &names).first()?;
    let at = names.iter().position(|n| n == nearest)?;
    siblings.keys().nth(at).cloned()
}

/// One record's key paths (`paths`: text, segments, whether its type is tallied) tallied into
/// `out`: missing (with the sibling it may have been renamed to), null, each type, and a key
/// over `key_limit` bytes. A record that is not a JSON object is passed over.
fn examine_record(
    bytes: &[u8],
    at: Location,
    paths: &[(String, Vec<String>, bool)],
    key_limit: f64,
    out: &mut SchemaReport,
) {
    let Ok(v) = crate::ingest::value::from_slice(bytes) else {
        return;
    };
    if !v.is_object() {
        return;
    }
    out.documents += 1;
    let mut key_bytes = 0usize;
    for ((_, segs, typed), (_, rep)) in paths.iter().zip(out.paths.iter_mut()) {
        match lookup(&v, segs) {
            None => {
                rep.missing.add(&at);
                if rep.missing.count <= RENAME_LOOKS {
                    if let Some(n) = renamed_to(&v, segs) {
                        *rep.alike.entry(n).or_default() += 1;
                    }
                }
            }
            Some(serde_json::Value::Null) => rep.null.add(&at),
            Some(x) => {
                key_bytes += match x {
                    serde_json::Value::String(s) => s.len(),
                    _ => 8,
                };
                if *typed {
                    rep.types.entry(kind(x)).or_default().add(&at);
                }
            }
        }
    }
    if key_bytes as f64 > key_limit {
        out.too_large.add(&at);
    }
}

/// Examines every record of the file inputs for the candidate's key paths.
pub fn examine(
    inputs: &[InputSource],
    key: &Candidate,
    csv_strings: bool,
    key_limit: f64,
) -> SchemaReport {
    let paths: Vec<(String, Vec<String>, bool)> = key
        .levels
        .iter()
        .flat_map(|lv| lv.parts.iter())
        .map(|p| {
            let typed = !matches!(p, Part::Time { .. });
            (p.path().text.clone(), p.path().segments.clone(), typed)
        })
        .collect();
    let mut out = SchemaReport {
        paths: paths
            .iter()
            .map(|(t, _, _)| (t.clone(), PathReport::default()))
            .collect(),
        ..Default::default()
    };
    for (fi, src) in inputs.iter().enumerate() {
        if src.path.is_none() {
            out.skipped_inputs.push(src.display.clone());
            continue;
        }
        let Ok(mut reader) = open(src, fi as u32, Arc::new(AtomicU64::new(0)), csv_strings) else {
            continue;
        };
        let record = |bytes: &[u8], line: u64, out: &mut SchemaReport| {
            let at = Location {
                file: src.display.clone(),
                line,
            };
            examine_record(bytes, at, &paths, key_limit, out);
        };
        while let Ok(Some(block)) = reader.next_block() {
            match &block.framing {
                Framing::Lines { first_line } => {
                    for (i, line) in block.data().split(|&b| b == b'\n').enumerate() {
                        if !line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
                            record(line, first_line + i as u64, &mut out);
                        }
                    }
                }
                Framing::Spans(spans) => {
                    for s in spans {
                        record(&block.data()[s.start..s.end], s.line, &mut out);
                    }
                }
            }
            block.finish();
        }
    }
    out
}

fn listed(o: &Offenders) -> String {
    o.first
        .iter()
        .map(|l| format!("{}:{}", l.file, l.line))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The property the documents without the path most likely renamed it to: the like name held
/// by most of them (` Likely renamed: 20 of them hold `customer_id`.`), else nothing.
fn renamed_text(p: &PathReport) -> String {
    match p
        .alike
        .iter()
        .max_by_key(|(n, c)| (**c, std::cmp::Reverse(n.as_str())))
    {
        Some((name, c)) => format!(
            " Likely renamed: {} of {} {} `{name}` instead.",
            crate::fmt::count(*c as f64),
            if p.missing.count > RENAME_LOOKS {
                format!(
                    "the first {} of them",
                    crate::fmt::count(RENAME_LOOKS as f64)
                )
            } else {
                "them".to_string()
            },
            if *c == 1 { "holds" } else { "hold" }
        ),
        None => String::new(),
    }
}

/// The schema violations: any document missing a key path or holding null beyond
/// `max_undefined_share`, any document whose key value has a minority JSON type, any key over
/// the size limit.
pub fn violations(r: &SchemaReport, max_undefined_share: f64) -> Vec<Violation> {
    let mut out = Vec::new();
    let docs = r.documents.max(1) as f64;
    let v = |code: &str, message: String, o: &Offenders| Violation {
        code: code.to_string(),
        severity: Severity::Fail,
        message,
        locations: o.first.clone(),
    };
    for (path, p) in &r.paths {
        let absent = [
            (
                "SCHEMA_KEY_MISSING",
                &p.missing,
                "lack the key path",
                "(renamed or optional?); they go to the Undefined partition",
            ),
            (
                "SCHEMA_KEY_NULL",
                &p.null,
                "have null at",
                "; they go to the Null partition",
            ),
        ];
        for (code, o, what, then) in absent {
            if o.count > 0 && o.count as f64 / docs > max_undefined_share {
                let sep = if then.starts_with(';') { "" } else { " " };
                let renamed = if code == "SCHEMA_KEY_MISSING" {
                    renamed_text(p)
                } else {
                    String::new()
                };
                out.push(v(
                    code,
                    format!(
                        "{} of {} documents {what} {path}{sep}{then}.{renamed} First: {}",
                        o.count,
                        r.documents,
                        listed(o)
                    ),
                    o,
                ));
            }
        }
        if p.types.len() > 1 {
            let (major, _) = p
                .types
                .iter()
                .max_by_key(|(k, o)| (o.count, std::cmp::Reverse(*k)))
                .expect("two types");
            for (k, o) in p.types.iter().filter(|(k, _)| *k != major) {
                out.push(v(
                    "SCHEMA_KEY_TYPE_CHANGED",
                    format!(
                        "{} documents have {path} as a {k} where {} others have a {major}: the same value as a {k} hashes to another logical partition. First: {}",
                        o.count,
                        p.types[major].count,
                        listed(o)
                    ),
                    o,
                ));
            }
        }
    }
    if r.too_large.count > 0 {
        out.push(v(
            "SCHEMA_KEY_TOO_LARGE",
            format!(
                "{} documents have a key value over the size limit: the service rejects them. First: {}",
                r.too_large.count,
                listed(&r.too_large)
            ),
            &r.too_large,
        ));
    }
    out
}
