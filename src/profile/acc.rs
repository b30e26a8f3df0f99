//! The mergeable per-path accumulator of the field profile: one [`Profiler`] per worker, merged
//! in any order to the same result.

use hashbrown::HashMap;
use serde_json::Value;

use crate::keys::time::{epoch_seconds_from_number, parse_iso8601};

/// Distinct values tracked per path; past it new values are counted but not kept
/// (`overflow_documents`), so memory stays bounded whatever the data.
pub const MAX_VALUES_PER_PATH: usize = 100_000;

/// Distinct values tracked over all paths of one profiler (about 100 bytes each: some 400 MB);
/// past it new values overflow on every path, whatever its own count.
pub const MAX_VALUES_TOTAL: usize = 4_000_000;

/// Paths tracked; deeper or wider documents beyond it are counted in `untracked_paths`.
pub const MAX_PATHS: usize = 2_000;

/// One value's count and the times it was seen (epoch seconds; `i64::MAX`/`MIN` when untimed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueStat {
    /// Documents holding it.
    pub count: u64,
    /// Earliest time-field value among them.
    pub first: i64,
    /// Latest time-field value among them.
    pub last: i64,
}

impl ValueStat {
    fn new(ts: Option<i64>) -> ValueStat {
        ValueStat {
            count: 1,
            first: ts.unwrap_or(i64::MAX),
            last: ts.unwrap_or(i64::MIN),
        }
    }

    fn add(&mut self, ts: Option<i64>) {
        self.count += 1;
        if let Some(t) = ts {
            self.first = self.first.min(t);
            self.last = self.last.max(t);
        }
    }

    fn merge(&mut self, o: &ValueStat) {
        self.count += o.count;
        self.first = self.first.min(o.first);
        self.last = self.last.max(o.last);
    }
}

/// What one path held across the documents seen.
#[derive(Debug, Clone)]
pub struct PathAcc {
    /// Documents where the property exists (any value, `null` included).
    pub present: u64,
    /// … holding `null`.
    pub nulls: u64,
    /// … a string.
    pub strings: u64,
    /// … a number.
    pub numbers: u64,
    /// … `true` or `false`.
    pub bools: u64,
    /// … an object (walked further).
    pub objects: u64,
    /// … an array (summarised, never walked, never a key).
    pub arrays: u64,
    /// Strings that parse as ISO 8601 dates or date-times.
    pub iso_times: u64,
    /// Of those, date-only strings (`2024-05-01`).
    pub iso_dates: u64,
    /// Of those, .NET invariant-culture text (`12/31/2013 00:00:00`).
    pub invariant_times: u64,
    /// Numbers with a fractional part (measurements rather than identifiers).
    pub fractional: u64,
    /// Strings holding a decimal number with a fractional part (`"58.9"`: a measurement stored
    /// as text).
    pub fractional_strings: u64,
    /// Strings shaped like versions (`1.4.2`, `v2.0`, `3.1.0-beta`).
    pub versions: u64,
    /// Strings shaped like paths or URLs (`/api/orders`, `https://…`).
    pub paths: u64,
    /// Numbers at most 0 (counts and amounts have them; identifiers rarely do).
    pub nonpositive: u64,
    /// Shortest and longest number text (digits of an integer), `(u64::MAX, 0)` before any.
    pub number_len: (u64, u64),
    /// Strings with a space in them (free text rather than identifiers).
    pub spaced: u64,
    /// Numbers that read as epoch seconds or milliseconds between 2000 and 2100.
    pub epoch_numbers: u64,
    /// Scalar values by their text: numbers, `true`, `false` and `null` as in JSON, strings as
    /// `"` followed by the string unescaped ([`value_json`] gives the JSON text).
    pub values: HashMap<Box<str>, ValueStat>,
    /// Documents whose value was new after `values` was full.
    pub overflow_documents: u64,
    /// Sum and maximum of the value sizes (UTF-8 bytes of a string, digits of a number).
    pub value_bytes_sum: u64,
    /// Largest value size.
    pub value_bytes_max: u64,
}

impl Default for PathAcc {
    fn default() -> PathAcc {
        PathAcc {
            present: 0,
            nulls: 0,
            strings: 0,
            numbers: 0,
            bools: 0,
            objects: 0,
            arrays: 0,
            iso_times: 0,
            iso_dates: 0,
            invariant_times: 0,
            fractional: 0,
            fractional_strings: 0,
            versions: 0,
            paths: 0,
            number_len: (u64::MAX, 0),
            nonpositive: 0,
            spaced: 0,
            epoch_numbers: 0,
            values: HashMap::new(),
            overflow_documents: 0,
            value_bytes_sum: 0,
            value_bytes_max: 0,
        }
    }
}

/// The JSON text of a tracked value (`"a"`, `1`, `true`, `null`).
pub fn value_json(tagged: &str) -> String {
    match tagged.strip_prefix('"') {
        Some(s) => serde_json::to_string(s).unwrap_or_default(),
        None => tagged.to_owned(),
    }
}

/// 2000-01-01 and 2100-01-01 in epoch seconds: numbers outside are not taken for timestamps.
const PLAUSIBLE_EPOCH: (i64, i64) = (946_684_800, 4_102_444_800);

/// Whether `s` is a decimal number with a fractional part, as text (`"58.9"`, `"-0.25"`): digits,
/// one point with digits after it, an optional sign; no exponent, spaces or leading `+`.
fn is_fractional_number(s: &str) -> bool {
    let b = s.strip_prefix('-').unwrap_or(s).as_bytes();
    let Some(dot) = b.iter().position(|&c| c == b'.') else {
        return false;
    };
    let (int, frac) = (&b[..dot], &b[dot + 1..]);
    !int.is_empty()
        && !frac.is_empty()
        && int.iter().chain(frac).all(u8::is_ascii_digit)
        && frac.iter().any(|&c| c != b'0')
}

/// `1.4.2`, `v2.0`, `3.1.0-beta+7`: digits joined by dots, three or more parts, or two after a
/// `v` (two bare parts, `58.9`, are a number in text).
fn is_version(s: &str) -> bool {
    let (v, rest) = match s.strip_prefix(['v', 'V']) {
        Some(r) => (true, r),
        None => (false, s),
    };
    let core = rest.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() >= if v { 2 } else { 3 }
        && parts.len() <= 5
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 9 && p.bytes().all(|c| c.is_ascii_digit()))
}

/// `/api/orders/7`, `https://example.com/x`: a path or URL (not a key anyone groups by).
fn is_path(s: &str) -> bool {
    if s.len() > 1 && s.starts_with('/') && !s.starts_with("//") && !s.contains(' ') {
        return true;
    }
    // The first `://` is the first `:` followed by `//` (found with `memchr`: a substring
    // search set up for every string value profiled was 3 % of the profile's time).
    let b = s.as_bytes();
    let scheme_end = memchr::memchr_iter(b':', b).find(|&i| b[i + 1..].starts_with(b"//"));
    scheme_end.is_some_and(|i| {
        let (scheme, rest) = (&b[..i], &b[i + 3..]);
        !scheme.is_empty() && scheme.iter().all(u8::is_ascii_alphabetic) && !rest.is_empty()
    })
}

impl PathAcc {
    /// Counts `v`, its text written in `text` (a buffer kept across values: a value already
    /// tracked is looked up without an allocation).
    fn add(&mut self, v: &Value, ts: Option<i64>, room: &mut usize, text: &mut String) {
        use std::fmt::Write;
        self.present += 1;
        text.clear();
        match v {
            Value::Null => {
                self.nulls += 1;
                text.push_str("null");
            }
            Value::Bool(b) => {
                self.bools += 1;
                text.push_str(if *b { "true" } else { "false" });
            }
            Value::Number(n) => {
                self.numbers += 1;
                if n.as_f64().is_some_and(|x| x.fract() != 0.0) {
                    self.fractional += 1;
                }
                if n.as_f64().is_some_and(|x| x <= 0.0) {
                    self.nonpositive += 1;
                }
                let _ = write!(text, "{n}");
                let len = text.len() as u64;
                self.number_len = (self.number_len.0.min(len), self.number_len.1.max(len));
                if let Some(s) = n.as_f64().and_then(epoch_seconds_from_number) {
                    if (PLAUSIBLE_EPOCH.0..PLAUSIBLE_EPOCH.1).contains(&s) {
                        self.epoch_numbers += 1;
                    }
                }
            }
            Value::String(s) => {
                self.strings += 1;
                if s.contains(' ') {
                    self.spaced += 1;
                }
                if is_fractional_number(s) {
                    self.fractional_strings += 1;
                }
                if is_version(s) {
                    self.versions += 1;
                }
                if is_path(s) {
                    self.paths += 1;
                }
                if parse_iso8601(s).is_some() {
                    self.iso_times += 1;
                    if s.len() == 10 && s.as_bytes().get(4) == Some(&b'-') {
                        self.iso_dates += 1;
                    }
                    if s.bytes().take(3).any(|c| c == b'/') {
                        self.invariant_times += 1;
                    }
                }
                // Tagged, not escaped: a leading `"` tells a string from a number or literal
                // ([`value_json`] writes the JSON text when a value is shown).
                text.push('"');
                text.push_str(s);
            }
            Value::Object(_) => {
                self.objects += 1;
                return;
            }
            Value::Array(_) => {
                self.arrays += 1;
                return;
            }
        }
        let size = match v {
            Value::String(s) => s.len() as u64,
            Value::Null => 0, // the Null partition, not a value: no size
            _ => text.len() as u64,
        };
        self.value_bytes_sum += size;
        self.value_bytes_max = self.value_bytes_max.max(size);
        if let Some(s) = self.values.get_mut(text.as_str()) {
            s.add(ts);
        } else if self.values.len() < MAX_VALUES_PER_PATH && *room > 0 {
            *room -= 1;
            self.values.insert(text.as_str().into(), ValueStat::new(ts));
        } else {
            self.overflow_documents += 1;
        }
    }

    fn merge(&mut self, o: PathAcc, room: &mut usize) {
        self.present += o.present;
        self.nulls += o.nulls;
        self.strings += o.strings;
        self.numbers += o.numbers;
        self.bools += o.bools;
        self.objects += o.objects;
        self.arrays += o.arrays;
        self.iso_times += o.iso_times;
        self.iso_dates += o.iso_dates;
        self.invariant_times += o.invariant_times;
        self.epoch_numbers += o.epoch_numbers;
        self.fractional += o.fractional;
        self.fractional_strings += o.fractional_strings;
        self.versions += o.versions;
        self.paths += o.paths;
        self.spaced += o.spaced;
        self.nonpositive += o.nonpositive;
        self.number_len = (
            self.number_len.0.min(o.number_len.0),
            self.number_len.1.max(o.number_len.1),
        );
        self.overflow_documents += o.overflow_documents;
        self.value_bytes_sum += o.value_bytes_sum;
        self.value_bytes_max = self.value_bytes_max.max(o.value_bytes_max);
        // Values already kept on either side stay exact; new ones past the cap overflow.
        let mut rest: Vec<(Box<str>, ValueStat)> = Vec::new();
        for (k, v) in o.values {
            match self.values.get_mut(&k) {
                Some(s) => s.merge(&v),
                None => rest.push((k, v)),
            }
        }
        // Deterministic whatever the merge order: the new values enter in a fixed order.
        rest.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (k, v) in rest {
            if self.values.len() < MAX_VALUES_PER_PATH && *room > 0 {
                *room -= 1;
                self.values.insert(k, v);
            } else {
                self.overflow_documents += v.count;
            }
        }
    }

    /// Keeps at most `room` values (the smallest texts, so the result does not depend on the
    /// merge order); the others' documents overflow.
    fn fit(&mut self, room: &mut usize) {
        if self.values.len() > *room {
            let mut all: Vec<(Box<str>, ValueStat)> = self.values.drain().collect();
            all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            for (k, v) in all.drain(*room..) {
                drop(k);
                self.overflow_documents += v.count;
            }
            self.values = all.into_iter().collect();
        }
        *room -= self.values.len();
    }

    /// Whether every value was kept (the distinct count is exact).
    pub fn exact(&self) -> bool {
        self.overflow_documents == 0
    }
}

/// The profile of every path seen by one worker (or, merged, by all).
#[derive(Debug, Clone)]
pub struct Profiler {
    /// Documents seen (JSON objects).
    pub documents: u64,
    /// Records that were not JSON objects (arrays, scalars) and so not documents.
    pub non_objects: u64,
    /// Path → its accumulator (`/a/b`; array elements are not walked).
    pub paths: HashMap<String, PathAcc>,
    /// Occurrences of paths not tracked because [`MAX_PATHS`] was reached.
    pub untracked_paths: u64,
    /// Documents whose `id` contains `/` or `\` or is longer than 1,023 bytes (the service
    /// rejects them), with the first such value.
    pub bad_ids: (u64, Option<String>),
    /// Earliest and latest time-field values seen.
    pub time_range: Option<(i64, i64)>,
    /// Bytes of the documents as read (for the mean document size).
    pub record_bytes: u64,
    /// Values all paths may still keep ([`MAX_VALUES_TOTAL`] at the start).
    pub values_room: usize,
    /// Documents holding a number past the range of a double, profiled at the largest double
    /// of its sign (`profile::scan`).
    pub numbers_past_double: u64,
    /// Buffers for a path and a value's text, reused from document to document.
    buffers: (String, String),
}

impl Default for Profiler {
    fn default() -> Profiler {
        Profiler {
            documents: 0,
            non_objects: 0,
            paths: HashMap::new(),
            untracked_paths: 0,
            bad_ids: (0, None),
            time_range: None,
            record_bytes: 0,
            values_room: MAX_VALUES_TOTAL,
            numbers_past_double: 0,
            buffers: Default::default(),
        }
    }
}

impl Profiler {
    /// Adds one parsed record; `time_path` is the time field's segments, when known.
    pub fn add(&mut self, doc: &Value, time_path: Option<&[String]>) {
        let Value::Object(map) = doc else {
            self.non_objects += 1;
            return;
        };
        self.documents += 1;
        let ts = time_path.and_then(|p| timestamp_at(doc, p));
        if let Some(t) = ts {
            self.time_range = Some(match self.time_range {
                Some((a, b)) => (a.min(t), b.max(t)),
                None => (t, t),
            });
        }
        if let Some(id) = map.get("id") {
            let bad = match id {
                Value::String(s) => s.contains('/') || s.contains('\\') || s.len() > 1023,
                _ => false,
            };
            if bad {
                self.bad_ids.0 += 1;
                if self.bad_ids.1.is_none() {
                    self.bad_ids.1 = Some(id.to_string().chars().take(80).collect());
                }
            }
        }
        // The path and value buffers are kept from document to document (no allocation for a
        // path or value already seen).
        let (mut prefix, mut text) = std::mem::take(&mut self.buffers);
        prefix.clear();
        let mut room = self.values_room;
        self.walk(map, &mut prefix, ts, &mut room, &mut text);
        self.values_room = room;
        self.buffers = (prefix, text);
    }

    fn walk(
        &mut self,
        map: &serde_json::Map<String, Value>,
        prefix: &mut String,
        ts: Option<i64>,
        room: &mut usize,
        text: &mut String,
    ) {
        for (k, v) in map {
            let len = prefix.len();
            prefix.push('/');
            push_segment(prefix, k);
            let full = self.paths.len() >= MAX_PATHS;
            match self.paths.get_mut(prefix.as_str()) {
                Some(acc) => acc.add(v, ts, room, text),
                None if !full => {
                    let mut acc = PathAcc::default();
                    acc.add(v, ts, room, text);
                    self.paths.insert(prefix.clone(), acc);
                }
                None => self.untracked_paths += 1,
            }
            if let Value::Object(child) = v {
                self.walk(child, prefix, ts, room, text);
            }
            prefix.truncate(len);
        }
    }

    /// Merges another worker's profile into this one.
    pub fn merge(&mut self, o: Profiler) {
        self.documents += o.documents;
        self.record_bytes += o.record_bytes;
        self.non_objects += o.non_objects;
        self.untracked_paths += o.untracked_paths;
        self.numbers_past_double += o.numbers_past_double;
        self.bad_ids.0 += o.bad_ids.0;
        if self.bad_ids.1.is_none() {
            self.bad_ids.1 = o.bad_ids.1;
        }
        self.time_range = match (self.time_range, o.time_range) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (x, None) | (None, x) => x,
        };
        let mut room = self.values_room;
        let mut rest: Vec<(String, PathAcc)> = o.paths.into_iter().collect();
        rest.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (k, mut v) in rest {
            let full = self.paths.len() >= MAX_PATHS;
            match self.paths.get_mut(&k) {
                Some(a) => a.merge(v, &mut room),
                None if !full => {
                    v.fit(&mut room);
                    self.paths.insert(k, v);
                }
                None => self.untracked_paths += v.present,
            }
        }
        self.values_room = room;
    }
}

/// A property name as a candidate path segment: bare when the grammar allows, else quoted
/// (docs/candidates.md).
pub fn push_segment(out: &mut String, name: &str) {
    let bare = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80)
        && !name.as_bytes()[0].is_ascii_digit();
    if bare {
        out.push_str(name);
    } else {
        out.push('"');
        for c in name.chars() {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('"');
    }
}

/// The time-field value of a document in epoch seconds (ISO 8601 string or epoch number).
pub fn timestamp_at(doc: &Value, path: &[String]) -> Option<i64> {
    let mut v = doc;
    for seg in path {
        v = v.get(seg)?;
    }
    match v {
        Value::String(s) => parse_iso8601(s),
        Value::Number(n) => n.as_f64().and_then(epoch_seconds_from_number),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths and URLs as the profile counts them: the first `://` found with `memchr` is the
    /// one `str::split_once` finds (the definition before), on URLs, paths and near misses.
    #[test]
    fn paths_and_urls_are_told_from_other_strings() {
        let before = |s: &str| {
            (s.len() > 1 && s.starts_with('/') && !s.starts_with("//") && !s.contains(' '))
                || s.split_once("://").is_some_and(|(scheme, rest)| {
                    !scheme.is_empty()
                        && scheme.bytes().all(|c| c.is_ascii_alphabetic())
                        && !rest.is_empty()
                })
        };
        let cases = [
            ("https://example.com/x", true),
            ("ftp://host/file", true),
            ("s3://bucket", false),
            ("/api/orders/7", true),
            ("a:b://c", false),
            ("ab://c://d", true),
            ("http://", false),
            ("://x", false),
            ("h1://x", false),
            (":://x", false),
            ("x:", false),
            ("x:/", false),
            ("/a b", false),
            ("//cdn.example.com", false),
            ("/", false),
            ("tenant-0042", false),
            ("12:30:00", false),
        ];
        for (s, want) in cases {
            assert_eq!(is_path(s), want, "{s:?}");
            assert_eq!(is_path(s), before(s), "{s:?}");
        }
    }
    use serde_json::json;

    fn profile(docs: &[Value]) -> Profiler {
        let mut p = Profiler::default();
        for d in docs {
            p.add(d, None);
        }
        p
    }

    #[test]
    fn types_presence_and_values_are_counted_per_path() {
        let p = profile(&[
            json!({"a": "x", "n": {"b": 1}}),
            json!({"a": 2, "n": {"b": null}}),
            json!({"a": "x", "list": [1, 2]}),
            json!([1]),
        ]);
        assert_eq!(p.documents, 3);
        assert_eq!(p.non_objects, 1);
        let a = &p.paths["/a"];
        assert_eq!((a.present, a.strings, a.numbers), (3, 2, 1));
        assert_eq!(a.values["\"x"].count, 2);
        assert_eq!(a.values["2"].count, 1);
        let b = &p.paths["/n/b"];
        assert_eq!((b.present, b.nulls, b.numbers), (2, 1, 1));
        assert_eq!(p.paths["/list"].arrays, 1);
        assert!(!p.paths.contains_key("/list/0"));
    }

    #[test]
    fn merging_in_any_order_gives_the_same_profile() {
        let docs: Vec<Value> = (0..50)
            .map(|i| json!({"k": i % 7, "s": format!("v{}", i % 3)}))
            .collect();
        let whole = profile(&docs);
        let mut left = profile(&docs[..20]);
        left.merge(profile(&docs[20..]));
        let mut right = profile(&docs[20..]);
        right.merge(profile(&docs[..20]));
        for p in [&left, &right] {
            assert_eq!(p.documents, whole.documents);
            assert_eq!(p.paths["/k"].values, whole.paths["/k"].values);
            assert_eq!(p.paths["/s"].values["\"v0"].count, 17);
        }
    }

    #[test]
    fn values_past_the_cap_overflow_instead_of_growing() {
        let mut a = PathAcc::default();
        let mut room = usize::MAX;
        for i in 0..(MAX_VALUES_PER_PATH + 10) {
            a.add(&json!(i), None, &mut room, &mut String::new());
        }
        assert_eq!(a.values.len(), MAX_VALUES_PER_PATH);
        assert_eq!(a.overflow_documents, 10);
        assert!(!a.exact());
    }

    #[test]
    fn all_paths_together_keep_at_most_the_total() {
        // Room for 1,500 values; each half brings 10 paths × 100 distinct values = 1,000. One half
        // fits, the merge stops at 1,500, and every document is still counted.
        let half = |from: usize| {
            let mut p = Profiler {
                values_room: 1_500,
                ..Profiler::default()
            };
            for i in from..from + 100 {
                let doc: serde_json::Map<String, Value> =
                    (0..10).map(|k| (format!("p{k}"), json!(i))).collect();
                p.add(&Value::Object(doc), None);
            }
            p
        };
        let (mut a, b) = (half(0), half(100));
        let kept = |p: &Profiler| p.paths.values().map(|x| x.values.len()).sum::<usize>();
        assert_eq!(kept(&a), 1_000);
        a.merge(b);
        assert_eq!(kept(&a), 1_500);
        assert_eq!(a.values_room, 0);
        let docs: u64 = a
            .paths
            .values()
            .map(|x| x.values.values().map(|v| v.count).sum::<u64>() + x.overflow_documents)
            .sum();
        assert_eq!(
            docs,
            10 * 200,
            "every document is counted, kept or overflowed"
        );
        assert!(a.paths.values().any(|x| !x.exact()));
    }

    #[test]
    fn timestamps_and_bad_ids_are_recognised() {
        let mut p = Profiler::default();
        let time: Vec<String> = vec!["ts".into()];
        p.add(
            &json!({"id": "a/b", "ts": "2024-05-01T10:00:00Z", "d": "2024-05-01", "e": 1714557600}),
            Some(&time),
        );
        p.add(
            &json!({"id": "ok", "ts": "2024-05-02T10:00:00Z", "d": "2024-05-02", "e": 12}),
            Some(&time),
        );
        assert_eq!(p.bad_ids.0, 1);
        assert_eq!(p.paths["/ts"].iso_times, 2);
        assert_eq!(p.paths["/d"].iso_dates, 2);
        assert_eq!(p.paths["/e"].epoch_numbers, 1);
        assert_eq!(p.time_range, Some((1_714_557_600, 1_714_644_000)));
        let d = &p.paths["/d"].values["\"2024-05-01"];
        assert_eq!((d.first, d.last), (1_714_557_600, 1_714_557_600));
    }

    #[test]
    fn awkward_property_names_are_quoted_as_the_grammar_wants() {
        let mut s = String::new();
        push_segment(&mut s, "dept name");
        assert_eq!(s, "\"dept name\"");
        let mut s = String::new();
        push_segment(&mut s, "tenantId");
        assert_eq!(s, "tenantId");
    }
}
