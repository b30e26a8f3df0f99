//! `analyze --key-stats`: reads a key-statistics table (docs/scale.md) computed by an engine
//! (`pkadvisor sql`) into an [`Accumulator`], row by row, so the rest of the pipeline runs as
//! after a scan. Memory grows with the number of keys, as in a direct run, not with the file.
//!
//! Columns: `candidate`, `key` (JSON array of components, `{}` Undefined), `error` (empty, or
//! why the documents have no key), `documents`, `bytes` (minified JSON bytes),
//! `first_time`/`last_time` (epoch seconds or ISO 8601; optional). CSV with a header row, or
//! JSON Lines objects (`.jsonl`, `.ndjson`, `.json`); Parquet with the `parquet` feature.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use crate::ingest::key_table::Row;
use crate::keys::spec::{parse_candidate, Candidate};
use crate::keys::{marker, time, KeyError};
use crate::stats::Accumulator;

/// What was read.
#[derive(Debug)]
pub struct KeyStats {
    /// One candidate per requested candidate, filled from the table.
    pub acc: Accumulator,
    /// Rows read.
    pub rows: u64,
    /// Candidates in the table that were not asked for (their rows are ignored).
    pub other_candidates: Vec<String>,
}

/// Fills an accumulator for `candidates` from rows.
struct Loader<'c> {
    candidates: &'c [Candidate],
    acc: Accumulator,
    totals: Vec<(u64, u64)>,
    spans: Option<(i64, i64)>,
    by_spec: HashMap<String, Option<usize>>,
    rows: u64,
    number_form: u64,
    key: Vec<u8>,
    /// Where each (candidate, key as written) was first seen, by a 128-bit hash: a second row
    /// with the same written key is refused (a table has one row per key).
    seen: hashbrown::HashMap<u128, String>,
}

impl<'c> Loader<'c> {
    fn new(candidates: &'c [Candidate]) -> Self {
        Loader {
            candidates,
            acc: Accumulator::new(candidates.len()),
            totals: vec![(0, 0); candidates.len()],
            spans: None,
            by_spec: HashMap::new(),
            rows: 0,
            number_form: 0,
            key: Vec::new(),
            seen: hashbrown::HashMap::new(),
        }
    }

    fn candidate_index(&mut self, spec: &str) -> Option<usize> {
        if let Some(i) = self.by_spec.get(spec) {
            return *i;
        }
        let i = parse_candidate(spec).ok().and_then(|c| {
            self.candidates
                .iter()
                .position(|k| k.same_key(&c) && k.levels.len() == c.levels.len())
        });
        self.by_spec.insert(spec.to_string(), i);
        i
    }

    /// Adds one row; `at` names it in errors (`line 7`, `row 7`).
    fn add(&mut self, row: Row, at: &str) -> Result<(), String> {
        self.rows += 1;
        let Some(i) = self.candidate_index(&row.candidate) else {
            return Ok(());
        };
        self.once(i, &row, at)?;
        let first = row.first_time.as_ref().map(epoch).transpose()?.flatten();
        let last = row.last_time.as_ref().map(epoch).transpose()?.flatten();
        let (docs, bytes) = self.totals[i];
        self.totals[i] = docs
            .checked_add(row.documents)
            .zip(bytes.checked_add(row.bytes))
            .ok_or_else(|| {
                format!(
                    "candidate `{}` sums past 2^64 documents or bytes: the counts cannot be right",
                    row.candidate
                )
            })?;
        if i == 0 {
            if let (Some(a), Some(b)) = (first, last) {
                self.spans = Some(match self.spans {
                    Some((x, y)) => (x.min(a), y.max(b)),
                    None => (a, b),
                });
            }
        }
        let cand = &mut self.acc.candidates[i];
        match row.error.as_deref().filter(|e| !e.is_empty()) {
            Some(reason) => {
                let kind = match reason {
                    "composite_value" => KeyError::CompositeValue,
                    "number_out_of_range" => KeyError::NumberOutOfRange,
                    "not_a_timestamp" => KeyError::NotATimestamp,
                    "key_too_long" => KeyError::KeyTooLong,
                    "number_form" => {
                        self.number_form += row.documents;
                        return Ok(());
                    }
                    other => return Err(format!("unknown error `{other}`")),
                };
                cand.key_errors.entry(kind).or_default().count += row.documents;
            }
            None => {
                let levels = self.candidates[i].levels.len();
                match encode_key(row.key.as_ref(), levels, &mut self.key)? {
                    Ok(()) => cand.add_aggregate(&self.key, row.documents, row.bytes, first, last),
                    Err(kind) => cand.key_errors.entry(kind).or_default().count += row.documents,
                }
            }
        }
        Ok(())
    }

    /// Refuses a second row with the same candidate and key (or error reason) as written: the
    /// same key twice means the table was put together wrongly (a file concatenated twice). Keys
    /// written differently that are one key (`[1]` and `[1.0]`, one double) are added up.
    fn once(&mut self, i: usize, row: &Row, at: &str) -> Result<(), String> {
        use std::hash::BuildHasher;
        let written = match row.error.as_deref().filter(|e| !e.is_empty()) {
            Some(reason) => format!("error {reason}"),
            None => match &row.key {
                Some(serde_json::Value::String(s)) => format!("key {s}"),
                Some(v) => format!("key {v}"),
                None => "no key".to_string(),
            },
        };
        let half = |seed: u64| {
            foldhash::quality::FixedState::with_seed(seed).hash_one((i, written.as_str()))
        };
        let id = (u128::from(half(0x6b65_7973)) << 64) | u128::from(half(0x7374_6174));
        match self.seen.entry(id) {
            hashbrown::hash_map::Entry::Occupied(first) => Err(format!(
                "the {written} of candidate `{}` is also on {}: a key-statistics table has one \
                 row per candidate and key (was a file concatenated twice?)",
                row.candidate,
                first.get()
            )),
            hashbrown::hash_map::Entry::Vacant(v) => {
                v.insert(at.to_string());
                Ok(())
            }
        }
    }

    fn finish(mut self, file: &str) -> Result<KeyStats, String> {
        if self.number_form > 0 {
            return Err(format!(
                "{file}: the engine found {} documents whose synthetic key holds a number it writes differently from pkadvisor (an exponent, or an integer beyond 2^53): their keys cannot be reproduced; analyze those documents directly",
                self.number_form
            ));
        }
        for (c, (docs, _)) in self.candidates.iter().zip(&self.totals) {
            if *docs == 0 {
                let seen: Vec<&String> = self.by_spec.keys().collect();
                return Err(format!(
                    "{file}: no rows for candidate `{}` (the table has: {seen:?}); generate the query with that -c",
                    c.spec
                ));
            }
        }
        let (docs, bytes) = self.totals[0];
        if let Some((c, (d, _))) = self
            .candidates
            .iter()
            .zip(&self.totals)
            .find(|(_, t)| t.0 != docs)
        {
            return Err(format!(
                "{file}: candidate `{}` covers {d} documents but `{}` covers {docs}: the rows come from different data; compute all candidates in one query",
                c.spec, self.candidates[0].spec
            ));
        }
        self.acc.records_analyzed = docs;
        self.acc.minified_bytes = bytes;
        self.acc.raw_bytes = bytes;
        self.acc.time_span = self.spans;
        let mut other: Vec<String> = self
            .by_spec
            .iter()
            .filter(|(_, i)| i.is_none())
            .map(|(s, _)| s.clone())
            .collect();
        other.sort();
        Ok(KeyStats {
            acc: self.acc,
            rows: self.rows,
            other_candidates: other,
        })
    }
}

/// A time value: epoch seconds (a number or digits) or an ISO 8601 string.
fn epoch(v: &serde_json::Value) -> Result<Option<i64>, String> {
    match v {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::Number(n) => Ok(n.as_f64().map(|x| x.floor() as i64)),
        serde_json::Value::String(s) if s.is_empty() => Ok(None),
        serde_json::Value::String(s) => match s.parse::<i64>() {
            Ok(x) => Ok(Some(x)),
            Err(_) => time::parse_iso8601(s)
                .map(Some)
                .ok_or_else(|| format!("cannot read the time `{s}`")),
        },
        other => Err(format!("cannot read the time `{other}`")),
    }
}

/// Encodes a key (a JSON array with one component per level) into the encoded form; an object
/// or array component is the document's key error, as in a direct run.
fn encode_key(
    key: Option<&serde_json::Value>,
    levels: usize,
    out: &mut Vec<u8>,
) -> Result<Result<(), KeyError>, String> {
    use serde_json::Value;
    let parsed;
    let key = match key {
        Some(Value::String(s)) => {
            parsed = crate::ingest::value::from_str(s)
                .map_err(|e| format!("key `{s}` is not JSON: {e}"))?;
            &parsed
        }
        Some(v) => v,
        None => return Err("empty key without an error".into()),
    };
    let comps = match key {
        Value::Array(c) if c.len() == levels => c,
        other => {
            return Err(format!(
                "key `{other}` must be a JSON array of {levels} component(s)"
            ))
        }
    };
    out.clear();
    for c in comps {
        match c {
            Value::Object(o) if o.is_empty() => out.push(marker::UNDEFINED),
            Value::Object(_) | Value::Array(_) => return Ok(Err(KeyError::CompositeValue)),
            Value::Null => out.push(marker::NULL),
            Value::Bool(b) => out.push(if *b { marker::TRUE } else { marker::FALSE }),
            Value::Number(n) => {
                let x = n.as_f64().filter(|x| x.is_finite());
                let Some(x) = x else {
                    return Ok(Err(KeyError::NumberOutOfRange));
                };
                out.push(marker::NUMBER);
                out.extend_from_slice(&(if x == 0.0 { 0.0f64 } else { x }).to_le_bytes());
            }
            Value::String(s) => {
                out.push(marker::STRING);
                out.extend_from_slice(s.as_bytes());
                out.push(marker::STRING_END);
            }
        }
    }
    if out.len() > crate::keys::MAX_KEY_BYTES {
        return Ok(Err(KeyError::KeyTooLong));
    }
    Ok(Ok(()))
}

/// Reads a key-statistics file for `candidates`.
pub fn read_key_stats(path: &Path, candidates: &[Candidate]) -> Result<KeyStats, String> {
    let file = path.display().to_string();
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut loader = Loader::new(candidates);
    let open = || {
        std::fs::File::open(path)
            .map(|f| std::io::BufReader::new(LineCap::new(f)))
            .map_err(|e| format!("cannot open {file}: {e}"))
    };
    match ext.as_str() {
        "csv" => {
            let mut r = csv::Reader::from_reader(open()?);
            for (n, row) in r.deserialize::<CsvRow>().enumerate() {
                let line = n + 2;
                let row = row.map_err(|e| format!("{file}:{line}: {e}"))?;
                loader
                    .add(row.into_row(), &format!("line {line}"))
                    .map_err(|e| format!("{file}:{line}: {e}"))?;
            }
        }
        "jsonl" | "ndjson" | "json" => {
            for (n, line) in open()?.lines().enumerate() {
                let line_no = n + 1;
                let line = line.map_err(|e| format!("{file}:{line_no}: {e}"))?;
                if line.trim().is_empty() {
                    continue;
                }
                let row: Row =
                    serde_json::from_str(&line).map_err(|e| format!("{file}:{line_no}: {e}"))?;
                loader
                    .add(row, &format!("line {line_no}"))
                    .map_err(|e| format!("{file}:{line_no}: {e}"))?;
            }
        }
        "parquet" => read_parquet(path, &mut loader)?,
        _ => {
            return Err(format!(
                "{file}: key statistics are read from .csv, .jsonl/.ndjson/.json or .parquet files"
            ))
        }
    }
    loader.finish(&file)
}

#[cfg(feature = "parquet")]
fn read_parquet(path: &Path, loader: &mut Loader<'_>) -> Result<(), String> {
    let file = path.display();
    for (n, row) in crate::ingest::columnar::key_stats_rows(path)?
        .into_iter()
        .enumerate()
    {
        let at = format!("row {}", n + 1);
        let row = row.map_err(|e| format!("{file}: {at}: {e}"))?;
        loader
            .add(row, &at)
            .map_err(|e| format!("{file}: {at}: {e}"))?;
    }
    Ok(())
}

#[cfg(not(feature = "parquet"))]
fn read_parquet(path: &Path, _loader: &mut Loader<'_>) -> Result<(), String> {
    Err(format!(
        "{}: reading Parquet needs pkadvisor built with `--features parquet`; or save the key statistics as CSV",
        path.display()
    ))
}

/// The longest line of a key-statistics file, as the longest record.
const MAX_LINE_BYTES: usize = crate::ingest::DEFAULT_MAX_RECORD_BYTES;

/// A reader that fails once a line runs past [`MAX_LINE_BYTES`]: a file without newlines
/// (`/dev/zero`, a binary file named by mistake) was read into one line until memory ran out.
struct LineCap<R> {
    inner: R,
    run: usize,
}

impl<R> LineCap<R> {
    fn new(inner: R) -> Self {
        LineCap { inner, run: 0 }
    }
}

impl<R: std::io::Read> std::io::Read for LineCap<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let chunk = &buf[..n];
        let (mut run, mut start) = (self.run, 0);
        let mut long = false;
        for p in memchr::memchr_iter(b'\n', chunk) {
            long |= run + (p - start) > MAX_LINE_BYTES;
            run = 0;
            start = p + 1;
        }
        self.run = run + (n - start);
        if long || self.run > MAX_LINE_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a line longer than {MAX_LINE_BYTES} bytes: not a key-statistics row"),
            ));
        }
        Ok(n)
    }
}

/// A CSV row: every column text, empty = NULL.
#[derive(Debug, serde::Deserialize)]
struct CsvRow {
    candidate: String,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    error: Option<String>,
    documents: u64,
    bytes: u64,
    #[serde(default)]
    first_time: Option<String>,
    #[serde(default)]
    last_time: Option<String>,
}

impl CsvRow {
    fn into_row(self) -> Row {
        let text = |s: Option<String>| s.filter(|s| !s.is_empty()).map(serde_json::Value::String);
        Row {
            candidate: self.candidate,
            key: text(self.key),
            error: self.error,
            documents: self.documents,
            bytes: self.bytes,
            first_time: text(self.first_time),
            last_time: text(self.last_time),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::spec::parse_candidates;
    use crate::keys::{decode_key, KeyComponent};

    #[test]
    fn keys_keep_null_undefined_and_numbers_apart() {
        let mut out = Vec::new();
        let v = |s: &str| serde_json::Value::String(s.into());
        encode_key(Some(&v(r#"[{}]"#)), 1, &mut out)
            .unwrap()
            .unwrap();
        assert_eq!(decode_key(&out), vec![KeyComponent::Undefined]);
        encode_key(Some(&v("[null]")), 1, &mut out)
            .unwrap()
            .unwrap();
        assert_eq!(decode_key(&out), vec![KeyComponent::Null]);
        // 1, 1.0 and 1e0 are one number, as Cosmos DB hashes the double.
        let mut a = Vec::new();
        encode_key(Some(&v("[1.0, \"x\"]")), 2, &mut a)
            .unwrap()
            .unwrap();
        encode_key(Some(&v("[1e0, \"x\"]")), 2, &mut out)
            .unwrap()
            .unwrap();
        assert_eq!(a, out);
        assert_eq!(
            decode_key(&a),
            vec![KeyComponent::Number(1.0), KeyComponent::Str("x")]
        );
        assert_eq!(
            encode_key(Some(&v(r#"[{"a":1}]"#)), 1, &mut out).unwrap(),
            Err(KeyError::CompositeValue)
        );
        assert!(encode_key(Some(&v("[1]")), 2, &mut out).is_err());
        assert!(encode_key(Some(&v("t1")), 1, &mut out).is_err());
    }

    #[test]
    fn csv_table_fills_the_accumulator() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.csv");
        std::fs::write(
            &f,
            "candidate,key,error,documents,bytes,first_time,last_time\n\
             /a,\"[\"\"x\"\"]\",,2,30,100,200\n\
             /a,[{}],,1,10,,\n\
             /a,,composite_value,1,5,,\n\
             /a,[1.0],,1,7,50,60\n\
             /zzz,[1],,9,9,,\n\
             /a,[1e0],,2,4,10,20\n",
        )
        .unwrap();
        let cands = parse_candidates("/a").unwrap();
        let ks = read_key_stats(&f, &cands).unwrap();
        assert_eq!(ks.rows, 6);
        assert_eq!(ks.other_candidates, vec!["/zzz".to_string()]);
        assert_eq!(ks.acc.records_analyzed, 7);
        assert_eq!(ks.acc.minified_bytes, 56);
        assert_eq!(ks.acc.time_span, Some((10, 200)));
        let c = &ks.acc.candidates[0];
        let x = c.partitions.get(b"\x08x\xff").unwrap();
        assert_eq!(
            (x.documents, x.minified_bytes, x.time_range()),
            (2, 30, Some((100, 200)))
        );
        // `[1.0]` and `[1e0]` are one double, one key: their rows add up.
        let mut one = vec![marker::NUMBER];
        one.extend_from_slice(&1.0f64.to_le_bytes());
        let n = c.partitions.get(&one).unwrap();
        assert_eq!(
            (n.documents, n.minified_bytes, n.time_range()),
            (3, 11, Some((10, 60)))
        );
        assert_eq!(c.partitions.get(&[marker::UNDEFINED]).unwrap().documents, 1);
        assert_eq!(c.key_errors[&KeyError::CompositeValue].count, 1);
    }

    #[test]
    fn inconsistent_tables_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.jsonl");
        std::fs::write(
            &f,
            "{\"candidate\":\"/a\",\"key\":[\"x\"],\"documents\":2,\"bytes\":3}\n\
             {\"candidate\":\"/b\",\"key\":\"[\\\"y\\\"]\",\"documents\":1,\"bytes\":3}\n",
        )
        .unwrap();
        let e = read_key_stats(&f, &parse_candidates("/a,/b").unwrap()).unwrap_err();
        assert!(e.contains("covers 1 documents but `/a` covers 2"), "{e}");
        let e = read_key_stats(&f, &parse_candidates("/a,/c").unwrap()).unwrap_err();
        assert!(e.contains("no rows for candidate `/c`"), "{e}");
        std::fs::write(
            &f,
            "{\"candidate\":\"/a\",\"error\":\"number_form\",\"documents\":2,\"bytes\":3}\n",
        )
        .unwrap();
        let e = read_key_stats(&f, &parse_candidates("/a").unwrap()).unwrap_err();
        assert!(
            e.contains("2 documents whose synthetic key holds a number"),
            "{e}"
        );
    }

    #[test]
    fn a_key_written_twice_is_refused_naming_both_rows() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.csv");
        let name = f.display().to_string();
        std::fs::write(
            &f,
            "candidate,key,error,documents,bytes\n/a,\"[\"\"x\"\"]\",,2,30\n/a,\"[\"\"y\"\"]\",,1,1\n\
             /a,\"[\"\"x\"\"]\",,2,30\n",
        )
        .unwrap();
        let e = read_key_stats(&f, &parse_candidates("/a").unwrap()).unwrap_err();
        assert_eq!(
            e,
            format!(
                "{name}:4: the key [\"x\"] of candidate `/a` is also on line 2: a key-statistics \
                 table has one row per candidate and key (was a file concatenated twice?)"
            )
        );
        // An error reason twice, in JSON Lines.
        let f = dir.path().join("s.jsonl");
        let name = f.display().to_string();
        let row =
            "{\"candidate\":\"/a\",\"error\":\"composite_value\",\"documents\":1,\"bytes\":1}\n";
        std::fs::write(&f, format!("{row}\n{row}")).unwrap();
        let e = read_key_stats(&f, &parse_candidates("/a").unwrap()).unwrap_err();
        assert!(
            e.starts_with(&format!(
                "{name}:3: the error composite_value of candidate `/a` is also on line 1:"
            )),
            "{e}"
        );
    }

    #[test]
    fn sums_past_2_to_the_64_are_refused_not_wrapped() {
        // 2^64 - 1 documents plus 1 wrapped to 0.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.csv");
        let name = f.display().to_string();
        std::fs::write(
            &f,
            "candidate,key,error,documents,bytes\n/a,[1],,18446744073709551615,1\n/a,[2],,1,1\n",
        )
        .unwrap();
        let e = read_key_stats(&f, &parse_candidates("/a").unwrap()).unwrap_err();
        assert_eq!(
            e,
            format!(
                "{name}:3: candidate `/a` sums past 2^64 documents or bytes: the counts cannot be \
                 right"
            )
        );
    }

    #[test]
    fn a_line_past_the_record_limit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for ext in ["csv", "jsonl"] {
            let f = dir.path().join(format!("s.{ext}"));
            let mut text = if ext == "csv" {
                "candidate,key,error,documents,bytes\n/a,[1],,1,1\n".to_string()
            } else {
                "{\"candidate\":\"/a\",\"key\":[1],\"documents\":1,\"bytes\":1}\n".to_string()
            };
            text.push_str(&"x".repeat(MAX_LINE_BYTES + 10));
            std::fs::write(&f, text).unwrap();
            let e = read_key_stats(&f, &parse_candidates("/a").unwrap()).unwrap_err();
            assert!(
                e.contains("a line longer than 4194304 bytes: not a key-statistics row"),
                "{ext}: {e}"
            );
            assert!(e.starts_with(&f.display().to_string()), "{e}");
        }
    }
}
