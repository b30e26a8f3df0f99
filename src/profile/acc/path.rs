//! One path's accumulator, [`PathAcc`]: what a path held across the documents seen (types,
//! shapes, sizes) and its values with their counts and times ([`ValueStat`]), bounded, and merged
//! in any order to the same result.

use serde_json::Number;

use crate::profile::doc::Doc;

use super::shapes::{is_fractional_number, is_path, is_version, PLAUSIBLE_EPOCH};
use super::values::{sampled, value_hash, Values, MAX_LEVEL};
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

    pub(super) fn merge(&mut self, o: &ValueStat) {
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
    /// Documents whose value is not kept: outside the sample of values past the bounds
    /// ([`PathAcc::level`]).
    pub overflow_documents: u64,
    /// The sampling level of the values: 0 while every value is kept; past
    /// [`MAX_VALUES_PER_PATH`] values, or the bound over all paths, the values kept are those
    /// whose hash is in 1 in 2^level of the hash space (`values::sampled`), and those pinned.
    pub level: u32,
    /// Whether the values passed [`MAX_VALUES_PER_PATH`] at some level: the path has more
    /// distinct values than that.
    pub capped: bool,
    /// Whether the path itself is pinned (seen in the first documents, `Profiler::pins`): it
    /// is tracked whatever the profile's path level.
    pub pinned: bool,
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
            level: 0,
            capped: false,
            pinned: false,
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
    /// tracked is looked up without an allocation). Returns the change in values kept.
    #[inline]
    pub(super) fn add(&mut self, v: &Doc<'_>, ts: Option<i64>, text: &mut String) -> isize {
        self.present += 1;
        text.clear();
        match v {
            Doc::Null => {
                self.nulls += 1;
                text.push_str("null");
            }
            Doc::Bool(b) => {
                self.bools += 1;
                text.push_str(if *b { "true" } else { "false" });
            }
            Doc::Number(n) => self.count_number(n, text),
            Doc::Str(s) => self.count_string(s, text),
            Doc::Object(_) => {
                self.objects += 1;
                return 0;
            }
            Doc::Array => {
                self.arrays += 1;
                return 0;
            }
        }
        let size = match v {
            Doc::Str(s) => s.len() as u64,
            Doc::Null => 0, // the Null partition, not a value: no size
            _ => text.len() as u64,
        };
        self.value_bytes_sum += size;
        self.value_bytes_max = self.value_bytes_max.max(size);
        let h = value_hash(text);
        if let Some(s) = self.values.get_mut_hashed(h, text) {
            s.add(ts);
            0
        } else if sampled(h, self.level) {
            self.values
                .insert_hashed(h, text, ValueStat::new(ts), false);
            1 - self.fit_cap() as isize
        } else {
            self.overflow_documents += 1;
            0
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

    pub(super) fn merge(&mut self, mut o: PathAcc) {
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
        self.value_bytes_sum += o.value_bytes_sum;
        self.value_bytes_max = self.value_bytes_max.max(o.value_bytes_max);
        // Both sides at the higher level: a value kept there was kept on both sides at theirs
        // (lower or equal), with every document of it counted.
        self.capped |= o.capped;
        self.pinned |= o.pinned;
        let level = self.level.max(o.level);
        self.sample_at(level);
        o.sample_at(level);
        self.overflow_documents += o.overflow_documents;
        self.values.absorb(&o.values);
        self.fit_cap();
    }

    /// Raises the sampling level to `level` (nothing if already there), letting go of the
    /// values it does not keep; returns how many.
    pub(super) fn sample_at(&mut self, level: u32) -> usize {
        if level <= self.level {
            return 0;
        }
        self.level = level;
        let (values, documents) = self.values.keep_sampled(level);
        self.overflow_documents += documents;
        values
    }

    /// Raises the sampling level until the values kept are at most [`MAX_VALUES_PER_PATH`];
    /// returns how many were let go.
    fn fit_cap(&mut self) -> usize {
        let mut gone = 0;
        while self.values.len() > MAX_VALUES_PER_PATH && self.level < MAX_LEVEL {
            self.capped = true;
            gone += self.sample_at(self.level + 1);
        }
        gone
    }

    /// An accumulator with nothing counted, pinned itself, that holds, pinned, the `n` values
    /// this one saw most often (twice at least; ties by text), at this one's sampling level.
    pub(super) fn pins(&self, n: usize) -> PathAcc {
        let mut top: Vec<(&str, u64)> = (self.values.iter())
            .filter(|(_, v)| v.count >= 2)
            .map(|(k, v)| (k, v.count))
            .collect();
        if n < top.len() {
            top.select_nth_unstable_by(n, |x, y| y.1.cmp(&x.1).then(x.0.cmp(y.0)));
            top.truncate(n);
        }
        let mut out = PathAcc {
            level: self.level,
            pinned: true,
            ..PathAcc::default()
        };
        for (k, _) in top {
            out.values.pin(k);
        }
        out
    }

    /// Whether every value was kept (the distinct count is exact).
    pub fn exact(&self) -> bool {
        self.overflow_documents == 0
    }
}
