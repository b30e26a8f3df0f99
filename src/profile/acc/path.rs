//! One path's accumulator, [`PathAcc`]: what a path held across the documents seen (types,
//! shapes, sizes) and its values with their counts and times ([`ValueStat`]), bounded, and merged
//! in any order to the same result.

use serde_json::{Number, Value};

use super::shapes::{is_fractional_number, is_path, is_version, PLAUSIBLE_EPOCH};
use super::values::{value_hash, Values};
use super::MAX_VALUES_PER_PATH;
use crate::keys::time::{epoch_seconds_from_number, parse_iso8601};

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
    pub values: Values,
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
            values: Values::default(),
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

impl PathAcc {
    /// Counts `v`, its text written in `text` (a buffer kept across values: a value already
    /// tracked is looked up without an allocation).
    #[inline]
    pub(super) fn add(&mut self, v: &Value, ts: Option<i64>, room: &mut usize, text: &mut String) {
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
            Value::Number(n) => self.count_number(n, text),
            Value::String(s) => self.count_string(s, text),
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
        let h = value_hash(text);
        if let Some(s) = self.values.get_mut_hashed(h, text) {
            s.add(ts);
        } else if self.values.len() < MAX_VALUES_PER_PATH && *room > 0 {
            *room -= 1;
            self.values.insert_hashed(h, text, ValueStat::new(ts));
        } else {
            self.overflow_documents += 1;
        }
    }

    /// Counts a number's shape and writes its text in `text`.
    #[inline]
    fn count_number(&mut self, n: &Number, text: &mut String) {
        use std::fmt::Write;
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

    /// Counts a string's shape and writes its tagged text in `text`.
    #[inline]
    fn count_string(&mut self, s: &str, text: &mut String) {
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

    pub(super) fn merge(&mut self, o: PathAcc, room: &mut usize) {
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
        let mut rest: Vec<(u64, &str, ValueStat)> = Vec::new();
        for (h, k, v) in o.values.hashed() {
            match self.values.get_mut_hashed(h, k) {
                Some(s) => s.merge(&v),
                None => rest.push((h, k, v)),
            }
        }
        // Deterministic whatever the merge order: when not all the new values fit, the
        // smallest texts do (found by a selection: which values, not their order, matters;
        // sorting 100,000 free-text values was a sixth of the automatic search's profile).
        let fit = rest
            .len()
            .min(MAX_VALUES_PER_PATH.saturating_sub(self.values.len()))
            .min(*room);
        smallest_first(&mut rest, fit);
        *room -= fit;
        for (i, (h, k, v)) in rest.into_iter().enumerate() {
            if i < fit {
                self.values.insert_hashed(h, k, v);
            } else {
                self.overflow_documents += v.count;
            }
        }
    }

    /// Keeps at most `room` values (the smallest texts, so the result does not depend on the
    /// merge order); the others' documents overflow.
    pub(super) fn fit(&mut self, room: &mut usize) {
        if self.values.len() > *room {
            let mut all: Vec<(u64, &str, ValueStat)> = self.values.hashed().collect();
            smallest_first(&mut all, *room);
            self.overflow_documents += all[*room..].iter().map(|x| x.2.count).sum::<u64>();
            let kept = Values::from_hashed(all[..*room].iter().copied());
            self.values = kept;
        }
        *room -= self.values.len();
    }

    /// Whether every value was kept (the distinct count is exact).
    pub fn exact(&self) -> bool {
        self.overflow_documents == 0
    }
}

/// Moves the `n` values of the smallest texts to the front of `v` (in no particular order);
/// the texts are distinct, so which values those are does not depend on `v`'s order.
fn smallest_first(v: &mut [(u64, &str, ValueStat)], n: usize) {
    if n > 0 && n < v.len() {
        v.select_nth_unstable_by(n - 1, |a, b| a.1.cmp(b.1));
    }
}
