//! Candidate partition keys: the grammar ([`spec`]), value extraction from raw documents
//! ([`extract`]), time bucketing ([`time`]) and the computation of each document's logical
//! partition key ([`KeyPlan`]).
//!
//! A logical partition key is computed into the *encoded form* shared with [`crate::cosmos`]: the
//! concatenation of each component's V2 hash input (`0x00` Undefined, `0x01` Null, `0x02`/`0x03`
//! booleans, `0x05` + little-endian f64, `0x08` + UTF-8 + `0xFF`). Equal encodings are equal keys,
//! and the V2/MultiHash EPK is a hash of exactly these bytes.

pub mod extract;
pub(crate) mod jstring;
pub(crate) use jstring::{same_bytes, string_len};
pub mod spec;
pub mod time;

use self::extract::{Extracted, PathTrie};
use self::spec::{Candidate, Part, TimeUnit};
use crate::cosmos::murmur::murmur3_x86_32;

/// Component markers of the encoded form.
pub mod marker {
    /// Undefined (path missing).
    pub const UNDEFINED: u8 = 0x00;
    /// JSON null.
    pub const NULL: u8 = 0x01;
    /// false.
    pub const FALSE: u8 = 0x02;
    /// true.
    pub const TRUE: u8 = 0x03;
    /// Number (8 bytes of little-endian f64 follow).
    pub const NUMBER: u8 = 0x05;
    /// String (UTF-8 follows, terminated by `STRING_END`).
    pub const STRING: u8 = 0x08;
    /// Terminates a string component (never occurs in UTF-8).
    pub const STRING_END: u8 = 0xFF;
}

/// The encoded key of string components (`None`: Undefined), for tests that build keys by hand.
#[cfg(test)]
pub(crate) fn encode_strings(parts: &[Option<&str>]) -> Vec<u8> {
    let mut k = Vec::new();
    for p in parts {
        match p {
            Some(s) => {
                k.push(marker::STRING);
                k.extend_from_slice(s.as_bytes());
                k.push(marker::STRING_END);
            }
            None => k.push(marker::UNDEFINED),
        }
    }
    k
}

/// Why a document has no key for a candidate (it is counted, not placed in a partition).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum KeyError {
    /// The value at a key path is an object or array.
    CompositeValue,
    /// A number too large for a double (e.g. `1e400`).
    NumberOutOfRange,
    /// A time-bucket path holds something that is not an ISO-8601 string or epoch number.
    NotATimestamp,
    /// The encoded key is longer than [`MAX_KEY_BYTES`] (a partition key value is at most
    /// 2 KB; only a record raised past the default `--max-record-bytes` can hold one).
    KeyTooLong,
}

/// The longest encoded key counted in a partition (16 MiB): the key maps address key bytes
/// with 26 bits ([`crate::stats::keymap::KeyRef`]), and a longer key is no partition key.
pub const MAX_KEY_BYTES: usize = 16 << 20;

impl KeyError {
    /// A sentence for the user.
    pub fn describe(self) -> &'static str {
        match self {
            KeyError::CompositeValue => "the key path holds an object or array, which cannot be a partition key value",
            KeyError::NumberOutOfRange => "the key path holds a number outside the range of a double",
            KeyError::NotATimestamp => "the time-bucket path holds neither an ISO-8601 string nor epoch seconds/milliseconds",
            KeyError::KeyTooLong => "the key value is longer than 16 MiB (a partition key value is at most 2 KB)",
        }
    }
}

#[derive(Debug, Clone)]
enum CompiledPart {
    Path(usize),
    Hash(usize, u32),
    Time(usize, TimeUnit),
}

#[derive(Debug, Clone)]
enum CompiledLevel {
    /// One path, its value is the component as is.
    Direct(usize),
    /// Parts joined into one string with the separator.
    Composed(Vec<CompiledPart>),
}

/// Every candidate compiled against one shared [`PathTrie`], so a document is scanned once.
#[derive(Debug, Clone)]
pub struct KeyPlan {
    /// The paths all candidates read.
    pub trie: PathTrie,
    candidates: Vec<Vec<CompiledLevel>>,
    separator: Vec<u8>,
}

impl KeyPlan {
    /// Compiles candidates; `separator` joins the parts of synthetic keys.
    pub fn new(candidates: &[Candidate], separator: &str) -> KeyPlan {
        let mut trie = PathTrie::new();
        let mut compiled = Vec::new();
        for c in candidates {
            let mut levels = Vec::new();
            for level in &c.levels {
                let mut parts: Vec<CompiledPart> = level
                    .parts
                    .iter()
                    .map(|p| match p {
                        Part::Path(path) => CompiledPart::Path(trie.insert(&path.segments)),
                        Part::Hash { path, buckets } => {
                            CompiledPart::Hash(trie.insert(&path.segments), *buckets)
                        }
                        Part::Time { unit, path } => {
                            CompiledPart::Time(trie.insert(&path.segments), *unit)
                        }
                    })
                    .collect();
                levels.push(match (parts.len(), parts.first()) {
                    (1, Some(CompiledPart::Path(slot))) => CompiledLevel::Direct(*slot),
                    _ => CompiledLevel::Composed(std::mem::take(&mut parts)),
                });
            }
            compiled.push(levels);
        }
        KeyPlan {
            trie,
            candidates: compiled,
            separator: separator.as_bytes().to_vec(),
        }
    }

    /// Number of candidates.
    pub fn len(&self) -> usize {
        self.candidates.len()
    }

    /// Whether there are no candidates.
    pub fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// Writes candidate `idx`'s encoded key for a document's extracted `values` into `out`.
    pub fn build_key(
        &self,
        idx: usize,
        values: &[Extracted<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), KeyError> {
        out.clear();
        for level in &self.candidates[idx] {
            match level {
                CompiledLevel::Direct(slot) => encode_direct(&values[*slot], out)?,
                CompiledLevel::Composed(parts) => self.encode_composed(parts, values, out)?,
            }
        }
        if out.len() > MAX_KEY_BYTES {
            return Err(KeyError::KeyTooLong);
        }
        Ok(())
    }

    fn encode_composed(
        &self,
        parts: &[CompiledPart],
        values: &[Extracted<'_>],
        out: &mut Vec<u8>,
    ) -> Result<(), KeyError> {
        let start = out.len();
        out.push(marker::STRING);
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.separator);
            }
            let slot = match part {
                CompiledPart::Path(s) | CompiledPart::Hash(s, _) | CompiledPart::Time(s, _) => *s,
            };
            let v = &values[slot];
            if matches!(v, Extracted::Missing | Extracted::Null) {
                // The application has nothing to build the key from: Undefined partition.
                out.truncate(start);
                out.push(marker::UNDEFINED);
                return Ok(());
            }
            match part {
                CompiledPart::Path(_) => write_string_form(v, out)?,
                CompiledPart::Hash(_, buckets) => {
                    let from = out.len();
                    write_string_form(v, out)?;
                    let h = murmur3_x86_32(&out[from..], 0) % buckets;
                    out.truncate(from);
                    out.extend_from_slice(h.to_string().as_bytes());
                }
                CompiledPart::Time(_, unit) => {
                    let secs = match v {
                        Extracted::Str(s) => time::parse_iso8601(s),
                        Extracted::Number(t) => std::str::from_utf8(t)
                            .ok()
                            .and_then(|t| t.parse::<f64>().ok())
                            .and_then(time::epoch_seconds_from_number),
                        _ => None,
                    };
                    match secs {
                        Some(secs) => time::write_bucket(secs, *unit, out),
                        None => return Err(KeyError::NotATimestamp),
                    }
                }
            }
        }
        out.push(marker::STRING_END);
        Ok(())
    }
}

fn parse_number(text: &[u8]) -> Result<f64, KeyError> {
    let x: f64 = std::str::from_utf8(text)
        .ok()
        .and_then(|t| t.parse().ok())
        .ok_or(KeyError::NumberOutOfRange)?;
    if !x.is_finite() {
        return Err(KeyError::NumberOutOfRange);
    }
    // -0.0 and 0.0 are the same key.
    Ok(if x == 0.0 { 0.0 } else { x })
}

fn encode_direct(v: &Extracted<'_>, out: &mut Vec<u8>) -> Result<(), KeyError> {
    match v {
        Extracted::Missing => out.push(marker::UNDEFINED),
        Extracted::Null => out.push(marker::NULL),
        Extracted::Bool(false) => out.push(marker::FALSE),
        Extracted::Bool(true) => out.push(marker::TRUE),
        Extracted::Number(t) => {
            out.push(marker::NUMBER);
            out.extend_from_slice(&parse_number(t)?.to_le_bytes());
        }
        Extracted::Str(s) => {
            out.push(marker::STRING);
            out.extend_from_slice(s.as_bytes());
            out.push(marker::STRING_END);
        }
        Extracted::Composite => return Err(KeyError::CompositeValue),
    }
    Ok(())
}

/// The string an application would write for a value when concatenating it: strings as is,
/// integers digit for digit (exact beyond 2^53), other numbers as the shortest decimal that
/// round-trips (`5`, not `5.0`), booleans as `true`/`false`.
fn write_string_form(v: &Extracted<'_>, out: &mut Vec<u8>) -> Result<(), KeyError> {
    match v {
        Extracted::Str(s) => out.extend_from_slice(s.as_bytes()),
        Extracted::Number(t) => {
            let x = parse_number(t)?;
            let digits = t.strip_prefix(b"-").unwrap_or(t);
            if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) && x != 0.0 {
                // An integer is written as the application's integer type would write it, digit
                // for digit: 9007199254740993 stays itself (as a double it would become
                // ...992 and merge with its neighbour).
                out.extend_from_slice(t);
            } else {
                out.extend_from_slice(x.to_string().as_bytes());
            }
        }
        Extracted::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Extracted::Composite => return Err(KeyError::CompositeValue),
        Extracted::Missing | Extracted::Null => {}
    }
    Ok(())
}

/// One decoded component of an encoded key.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyComponent<'a> {
    /// Path missing.
    Undefined,
    /// JSON null.
    Null,
    /// Boolean.
    Bool(bool),
    /// Number.
    Number(f64),
    /// String.
    Str(&'a str),
}

/// Splits an encoded key into its components (one per hierarchical level, else one).
pub fn decode_key(mut bytes: &[u8]) -> Vec<KeyComponent<'_>> {
    let mut out = Vec::new();
    while let Some((&m, rest)) = bytes.split_first() {
        match m {
            marker::UNDEFINED => out.push(KeyComponent::Undefined),
            marker::NULL => out.push(KeyComponent::Null),
            marker::FALSE => out.push(KeyComponent::Bool(false)),
            marker::TRUE => out.push(KeyComponent::Bool(true)),
            marker::NUMBER if rest.len() >= 8 => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&rest[..8]);
                out.push(KeyComponent::Number(f64::from_le_bytes(b)));
                bytes = &rest[8..];
                continue;
            }
            marker::STRING => {
                let end = memchr::memchr(marker::STRING_END, rest).unwrap_or(rest.len());
                out.push(KeyComponent::Str(
                    std::str::from_utf8(&rest[..end]).unwrap_or("\u{FFFD}"),
                ));
                bytes = rest.get(end + 1..).unwrap_or(&[]);
                continue;
            }
            _ => break,
        }
        bytes = rest;
    }
    out
}

/// What a key holds, found without allocating.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyShape {
    /// Some component is Undefined.
    pub undefined: bool,
    /// Some component is Null.
    pub null: bool,
    /// Partition key value size: UTF-8 bytes of strings plus 8 per number.
    pub value_bytes: u64,
}

/// Scans an encoded key for its [`KeyShape`].
pub fn key_shape(bytes: &[u8]) -> KeyShape {
    let mut s = KeyShape::default();
    let mut pos = 0;
    while let Some(&m) = bytes.get(pos) {
        match m {
            marker::UNDEFINED => s.undefined = true,
            marker::NULL => s.null = true,
            marker::NUMBER => {
                s.value_bytes += 8;
                pos += 8;
            }
            marker::STRING => {
                let len = string_len(bytes, pos + 1);
                s.value_bytes += len as u64;
                pos += len + 1;
            }
            _ => {}
        }
        pos += 1;
    }
    s
}

/// Byte length of the encoded prefix holding the first `levels` components.
pub fn prefix_len(bytes: &[u8], levels: usize) -> usize {
    let mut pos = 0;
    for _ in 0..levels {
        match bytes.get(pos) {
            Some(&marker::NUMBER) => pos += 9,
            Some(&marker::STRING) => {
                let len = string_len(bytes, pos + 1);
                pos += 1 + if pos + 1 + len < bytes.len() { len } else { 0 } + 1
            }
            Some(_) => pos += 1,
            None => break,
        }
    }
    pos.min(bytes.len())
}

impl KeyComponent<'_> {
    /// The partition key value size this component contributes (UTF-8 bytes of a string, 8 for a
    /// number, 0 otherwise), for the 2,048-byte limit.
    pub fn value_bytes(&self) -> usize {
        match self {
            KeyComponent::Str(s) => s.len(),
            KeyComponent::Number(_) => 8,
            _ => 0,
        }
    }

    /// JSON for reports: Undefined is `{}` (the convention of `pkadvisor epk` and the SDK vectors).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            KeyComponent::Undefined => serde_json::Value::Object(Default::default()),
            KeyComponent::Null => serde_json::Value::Null,
            KeyComponent::Bool(b) => serde_json::Value::Bool(*b),
            KeyComponent::Number(x) => {
                if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
                    serde_json::Value::from(*x as i64)
                } else {
                    serde_json::Number::from_f64(*x)
                        .map(serde_json::Value::Number)
                        .unwrap_or(serde_json::Value::Null)
                }
            }
            KeyComponent::Str(s) => serde_json::Value::String((*s).to_string()),
        }
    }

    /// Text for tables: strings unquoted, `<undefined>` and `<null>` for the special partitions.
    pub fn display(&self) -> String {
        match self {
            KeyComponent::Undefined => "<undefined>".into(),
            KeyComponent::Null => "<null>".into(),
            KeyComponent::Str(s) => (*s).to_string(),
            other => other.to_json().to_string(),
        }
    }
}

/// A key's JSON for reports: one value, or an array of levels for hierarchical keys.
pub fn key_json(bytes: &[u8], hierarchical: bool) -> serde_json::Value {
    let comps = decode_key(bytes);
    if hierarchical {
        serde_json::Value::Array(comps.iter().map(KeyComponent::to_json).collect())
    } else {
        comps
            .first()
            .map(KeyComponent::to_json)
            .unwrap_or(serde_json::Value::Null)
    }
}

/// A key's text for tables (levels joined by ` > `).
pub fn key_display(bytes: &[u8]) -> String {
    decode_key(bytes)
        .iter()
        .map(KeyComponent::display)
        .collect::<Vec<_>>()
        .join(" > ")
}

#[cfg(test)]
mod tests {
    use super::extract::scan_document;
    use super::spec::parse_candidates;
    use super::*;

    #[test]
    fn string_len_stops_at_the_first_string_end() {
        // Every length to 40 and every place of the end marker (with bytes next to 0xFF in
        // value around it, and a second marker after it), from every start: memchr's answer.
        let slow = |b: &[u8], from: usize| {
            memchr::memchr(marker::STRING_END, &b[from..]).unwrap_or(b.len() - from)
        };
        let mut checked = 0;
        for n in 0..40usize {
            let plain: Vec<u8> = (0..n)
                .map(|k| [0xFE, 0x7F, 0x00, 0x80, b'a'][k % 5])
                .collect();
            for from in 0..=n {
                assert_eq!(string_len(&plain, from), n - from);
                for at in from..n {
                    let mut b = plain.clone();
                    b[at] = marker::STRING_END;
                    if at + 3 < n {
                        b[at + 3] = marker::STRING_END;
                    }
                    assert_eq!(string_len(&b, from), slow(&b, from), "{b:?} from {from}");
                    checked += 1;
                }
            }
        }
        assert_eq!(
            checked,
            (0..40usize).map(|n| n * (n + 1) / 2).sum::<usize>()
        );
        // A key of two strings: the first one's length, then the second's.
        let k = encode_strings(&[Some("tenant-1"), Some("a-much-longer-user-id")]);
        assert_eq!(string_len(&k, 1), 8);
        assert_eq!(string_len(&k, 11), 21);
        assert_eq!(key_shape(&k).value_bytes, 29);
        assert_eq!(prefix_len(&k, 1), 10);
        assert_eq!(prefix_len(&k, 2), k.len());
    }

    fn keys(specs: &str, doc: &str) -> Vec<Result<Vec<u8>, KeyError>> {
        let cands = parse_candidates(specs).unwrap();
        let plan = KeyPlan::new(&cands, "-");
        let mut values = Vec::new();
        scan_document(doc.as_bytes(), &plan.trie, &mut values).unwrap();
        (0..plan.len())
            .map(|i| {
                let mut out = Vec::new();
                plan.build_key(i, &values, &mut out).map(|_| out)
            })
            .collect()
    }

    fn s(text: &str) -> Vec<u8> {
        let mut v = vec![marker::STRING];
        v.extend_from_slice(text.as_bytes());
        v.push(marker::STRING_END);
        v
    }

    #[test]
    fn a_key_longer_than_16_mib_is_a_key_error() {
        // A string key is its value between two marker bytes: a value of the limit less 2
        // bytes makes a key of exactly the limit, one byte more is over it; a synthetic key of
        // two values of half the limit is over it too.
        let at = |n: usize| format!("{{\"a\":\"{}\",\"b\":\"x\"}}", "v".repeat(n));
        let fits = keys("/a", &at(MAX_KEY_BYTES - 2));
        assert_eq!(fits[0].as_ref().map(Vec::len), Ok(MAX_KEY_BYTES));
        assert_eq!(
            keys("/a", &at(MAX_KEY_BYTES - 1))[0],
            Err(KeyError::KeyTooLong)
        );
        let v = "v".repeat(MAX_KEY_BYTES / 2);
        let half = format!("{{\"a\":\"{v}\",\"b\":\"{v}\"}}");
        assert_eq!(keys("/a+/b", &half)[0], Err(KeyError::KeyTooLong));
        assert_eq!(
            keys("/a", &half)[0].as_ref().map(Vec::len),
            Ok(MAX_KEY_BYTES / 2 + 2)
        );
    }

    #[test]
    fn single_keys_encode_each_json_type() {
        let doc = r#"{"a":"x","n":5.0,"t":true,"z":null,"o":{"k":1},"neg":-0.0}"#;
        let got = keys("/a,/n,/t,/z,/missing,/o,/neg", doc);
        let mut five = vec![marker::NUMBER];
        five.extend_from_slice(&5.0f64.to_le_bytes());
        let mut zero = vec![marker::NUMBER];
        zero.extend_from_slice(&0.0f64.to_le_bytes());
        assert_eq!(got[0], Ok(s("x")));
        assert_eq!(got[1], Ok(five));
        assert_eq!(got[2], Ok(vec![marker::TRUE]));
        assert_eq!(got[3], Ok(vec![marker::NULL]));
        assert_eq!(got[4], Ok(vec![marker::UNDEFINED]));
        assert_eq!(got[5], Err(KeyError::CompositeValue));
        assert_eq!(got[6], Ok(zero), "-0.0 is the same key as 0");
    }

    #[test]
    fn synthetic_hashed_and_time_keys() {
        let doc = r#"{"tenantId":"acme","region":"eu","n":5,"id":"doc-1","ts":"2024-05-01T23:30:00-05:00","ms":1714608000000}"#;
        let got = keys(
            "/tenantId+/region,/tenantId+/n,/tenantId+hash(/id)%16,day(/ts),/tenantId+month(/ms),/tenantId+/nope",
            doc,
        );
        assert_eq!(got[0], Ok(s("acme-eu")));
        assert_eq!(got[1], Ok(s("acme-5")));
        let h = murmur3_x86_32(b"doc-1", 0) % 16;
        assert_eq!(got[2], Ok(s(&format!("acme-{h}"))));
        assert_eq!(
            got[3],
            Ok(s("2024-05-02")),
            "offset applied before bucketing"
        );
        assert_eq!(got[4], Ok(s("acme-2024-05")));
        assert_eq!(
            got[5],
            Ok(vec![marker::UNDEFINED]),
            "missing component: Undefined"
        );
    }

    #[test]
    fn hierarchical_levels_keep_undefined_and_null() {
        let got = keys("/t>/u>/id", r#"{"t":"a","u":null}"#);
        let mut want = s("a");
        want.push(marker::NULL);
        want.push(marker::UNDEFINED);
        assert_eq!(got[0], Ok(want.clone()));
        let comps = decode_key(&want);
        assert_eq!(
            comps,
            vec![
                KeyComponent::Str("a"),
                KeyComponent::Null,
                KeyComponent::Undefined
            ]
        );
        assert_eq!(prefix_len(&want, 1), 3);
        assert_eq!(prefix_len(&want, 2), 4);
        assert_eq!(key_json(&want, true).to_string(), r#"["a",null,{}]"#);
        assert_eq!(
            key_shape(&want),
            KeyShape {
                undefined: true,
                null: true,
                value_bytes: 1
            }
        );
        assert_eq!(key_display(&want), "a > <null> > <undefined>");
    }

    #[test]
    fn bad_timestamps_are_key_errors() {
        let got = keys("day(/ts)", r#"{"ts":"yesterday"}"#);
        assert_eq!(got[0], Err(KeyError::NotATimestamp));
    }
}
