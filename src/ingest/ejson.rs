//! MongoDB Extended JSON (mongoexport, relaxed and canonical): the type wrappers `$oid`,
//! `$numberLong`, `$numberInt`, `$numberDouble`, `$numberDecimal` and `$date` are unwrapped to the
//! values a migration to Cosmos DB stores, before keys are computed: an ObjectId becomes its hex
//! string, numbers become JSON numbers, dates become ISO 8601 UTC strings with milliseconds.
//! Other wrappers (`$binary`, `$regex`, `$timestamp`, …) stay objects, so a key on them is
//! reported as an invalid (object) key value.
//!
//! A reader wraps another: every record is parsed, unwrapped and written back minified, so the
//! stored-size estimate is that of the unwrapped document (what Cosmos DB stores), while `raw`
//! bytes stay those of the input.

use serde_json::{Map, Number, Value};

use super::{Block, Framing, IngestError, RecordReader, Span};

/// Markers whose presence in the first bytes of an input means Extended JSON.
const MARKERS: [&[u8]; 6] = [
    b"\"$oid\"",
    b"\"$date\"",
    b"\"$numberLong\"",
    b"\"$numberInt\"",
    b"\"$numberDouble\"",
    b"\"$numberDecimal\"",
];

/// Whether `bytes` (the start of an input) holds Extended JSON type wrappers, and the first one
/// found.
pub fn detect(bytes: &[u8]) -> Option<&'static str> {
    MARKERS
        .iter()
        .find_map(|m| memchr::memmem::find(bytes, m).map(|_| std::str::from_utf8(m).unwrap_or("$")))
}

/// The value a wrapper stands for, or `None` when `m` is not a wrapper this module unwraps.
fn unwrapped(m: &Map<String, Value>) -> Option<Value> {
    if m.len() != 1 {
        return None;
    }
    let (k, v) = m.iter().next()?;
    match (k.as_str(), v) {
        ("$oid", Value::String(s)) => Some(Value::String(s.clone())),
        ("$numberInt" | "$numberLong" | "$numberDecimal", Value::String(s)) => Some(number(s)),
        ("$numberDouble", Value::String(s)) => Some(number(s)),
        ("$date", Value::String(s)) => Some(Value::String(s.clone())),
        ("$date", Value::Number(n)) => n.as_i64().map(iso_millis),
        ("$date", Value::Object(inner)) => match inner.get("$numberLong") {
            Some(Value::String(s)) if inner.len() == 1 => s.parse::<i64>().ok().map(iso_millis),
            _ => None,
        },
        _ => None,
    }
}

/// A number from its decimal text (integers exact to 64 bits; decimals as doubles); `Infinity`, `NaN` and other non-JSON
/// numbers stay strings.
fn number(s: &str) -> Value {
    match serde_json::from_str::<Number>(s) {
        Ok(n) => Value::Number(n),
        Err(_) => Value::String(s.to_owned()),
    }
}

/// Milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn iso_millis(ms: i64) -> Value {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = crate::keys::time::civil_from_days(days);
    Value::String(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

/// Unwraps every wrapper inside `v`, recursively.
pub fn unwrap(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(u) = unwrapped(m) {
                *v = u;
                return;
            }
            for child in m.values_mut() {
                unwrap(child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(unwrap),
        _ => {}
    }
}

/// One record unwrapped and minified; bytes that are not JSON are returned as they are, for the
/// scanner to report with their location.
fn record(bytes: &[u8], out: &mut Vec<u8>) {
    if memchr::memchr(b'$', bytes).is_none() {
        out.extend_from_slice(bytes);
        return;
    }
    match super::value::from_slice(bytes) {
        Ok(mut v) => {
            unwrap(&mut v);
            if serde_json::to_writer(&mut *out, &v).is_err() {
                out.extend_from_slice(bytes);
            }
        }
        Err(_) => out.extend_from_slice(bytes),
    }
}

/// A reader that unwraps Extended JSON in every record of the reader it wraps.
pub struct ExtendedJsonReader {
    inner: Box<dyn RecordReader>,
}

impl ExtendedJsonReader {
    /// Wraps `inner`.
    pub fn new(inner: Box<dyn RecordReader>) -> ExtendedJsonReader {
        ExtendedJsonReader { inner }
    }
}

impl RecordReader for ExtendedJsonReader {
    fn next_block(&mut self) -> Result<Option<Block>, IngestError> {
        let Some(b) = self.inner.next_block()? else {
            return Ok(None);
        };
        Ok(Some(rewrite(b)))
    }
}

/// The block with every record unwrapped, framed as spans that keep each record's line, column
/// and size in the input.
pub fn rewrite(b: Block) -> Block {
    let mut data = Vec::with_capacity(b.data().len());
    let mut spans = Vec::new();
    let mut push = |bytes: &[u8], line: u64, column: u64, raw: u64, error: Option<String>| {
        let start = data.len();
        if error.is_none() {
            record(bytes, &mut data);
        } else {
            data.extend_from_slice(bytes);
        }
        spans.push(Span {
            start,
            end: data.len(),
            line,
            column,
            raw_bytes: Some(raw),
            error,
        });
    };
    match &b.framing {
        Framing::Lines { first_line } => {
            for (i, line) in b.data().split(|&c| c == b'\n').enumerate() {
                let trimmed = line.strip_suffix(b"\r").unwrap_or(line);
                if trimmed.iter().all(|c| matches!(c, b' ' | b'\t')) {
                    continue;
                }
                // The record's size as read (without its line ending), as for JSON Lines input.
                push(
                    trimmed,
                    first_line + i as u64,
                    1,
                    trimmed.len() as u64,
                    None,
                );
            }
        }
        Framing::Spans(list) => {
            for s in list {
                let bytes = &b.data()[s.start..s.end];
                let raw = s.raw_bytes.unwrap_or((s.end - s.start) as u64);
                push(bytes, s.line, s.column, raw, s.error.clone());
            }
        }
    }
    let file = b.file;
    // The input's block is done with: its buffer back to the pool, or its mapped pages out.
    b.finish();
    Block::new(file, data, Framing::Spans(spans))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_and_relaxed_wrappers_unwrap_to_plain_values() {
        let mut v = json!({
            "_id": {"$oid": "5f1d7c3e9b1e8a3d4c2b1a09"},
            "n": {"$numberLong": "9007199254740993"},
            "i": {"$numberInt": "42"},
            "d": {"$numberDouble": "2.5"},
            "inf": {"$numberDouble": "Infinity"},
            "dec": {"$numberDecimal": "1.10"},
            "at": {"$date": {"$numberLong": "1700000000000"}},
            "at2": {"$date": "2024-05-01T10:00:00Z"},
            "at3": {"$date": 86400001},
            "nested": {"list": [{"$oid": "aa"}], "bin": {"$binary": {"base64": "AA==", "subType": "00"}}},
        });
        unwrap(&mut v);
        assert_eq!(v["_id"], "5f1d7c3e9b1e8a3d4c2b1a09");
        // Digits beyond 2^53 are kept as written.
        assert_eq!(v["n"].to_string(), "9007199254740993");
        assert_eq!(v["i"], 42);
        assert_eq!(v["d"], 2.5);
        assert_eq!(v["inf"], "Infinity");
        // A Decimal128 becomes a JSON number, as a double: trailing zeros are not kept.
        assert_eq!(v["dec"].to_string(), "1.1");
        assert_eq!(v["at"], "2023-11-14T22:13:20.000Z");
        assert_eq!(v["at2"], "2024-05-01T10:00:00Z");
        assert_eq!(v["at3"], "1970-01-02T00:00:00.001Z");
        assert_eq!(v["nested"]["list"][0], "aa");
        assert!(
            v["nested"]["bin"].is_object(),
            "other wrappers stay objects"
        );
    }

    #[test]
    fn serde_jsons_private_raw_value_name_is_an_ordinary_name() {
        // serde_json's own `Value` reads the string as the record (`[1]`) and fails on the
        // rest, which left the record unconverted; here it is one more property.
        let text = br#"{"$serde_json::private::RawValue":"[1]","at":{"$date":86400001}}"#;
        let mut out = Vec::new();
        record(text, &mut out);
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"$serde_json::private::RawValue":"[1]","at":"1970-01-02T00:00:00.001Z"}"#
        );
    }

    #[test]
    fn blocks_keep_lines_and_raw_sizes() {
        let text = b"{\"_id\":{\"$oid\":\"ab\"}}\n\n{\"x\":1}\r\nnot json $\n".to_vec();
        let b = rewrite(Block::new(0, text, Framing::Lines { first_line: 10 }));
        let Framing::Spans(spans) = &b.framing else {
            panic!("spans")
        };
        let got: Vec<(&[u8], u64, Option<u64>)> = spans
            .iter()
            .map(|s| (&b.data()[s.start..s.end], s.line, s.raw_bytes))
            .collect();
        assert_eq!(
            got,
            [
                (&b"{\"_id\":\"ab\"}"[..], 10, Some(21)),
                (&b"{\"x\":1}"[..], 12, Some(7)),
                (&b"not json $"[..], 13, Some(10)),
            ]
        );
    }

    #[test]
    fn detection_names_the_first_marker() {
        assert_eq!(detect(br#"{"_id":{"$oid":"x"}}"#), Some("\"$oid\""));
        assert_eq!(detect(br#"{"price":"$5"}"#), None);
    }
}
