//! The mergeable per-path accumulator of the field profile: one [`Profiler`] per worker, merged
//! in any order to the same result.
//!
//! This file holds the [`Profiler`] (documents, walked path by path) and the bounds; one path's
//! accumulator is [`PathAcc`] in `acc/path.rs`, and what a value looks like (a version, a path,
//! a number as text) is decided in `acc/shapes.rs`.

use hashbrown::HashMap;
use serde_json::Value;

use crate::keys::time::{epoch_seconds_from_number, parse_iso8601};
pub use path::{value_json, PathAcc, ValueStat};
pub use values::Values;

/// Distinct values tracked per path; past it new values are counted but not kept
/// (`overflow_documents`), so memory stays bounded whatever the data.
pub const MAX_VALUES_PER_PATH: usize = 100_000;

/// Distinct values tracked over all paths of one profiler (about 100 bytes each: some 400 MB);
/// past it new values overflow on every path, whatever its own count.
pub const MAX_VALUES_TOTAL: usize = 4_000_000;

/// Paths tracked; deeper or wider documents beyond it are counted in `untracked_paths`.
pub const MAX_PATHS: usize = 2_000;

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
        if rest.iter().map(|(_, v)| v.values.len()).sum::<usize>() <= room {
            rest = self.merge_shared_paths(rest, &mut room);
        }
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

    /// Merges the paths of `rest` that this profile holds too, each on its own (in parallel, on
    /// the current rayon pool), and returns the others. Only when `room` holds every value of
    /// `rest`: the room then never runs out, so no path's merge depends on another's, and the
    /// order they run in changes nothing. (A path of 100,000 free-text values took most of the
    /// merge's time, on one thread, while the other cores waited.)
    fn merge_shared_paths(
        &mut self,
        rest: Vec<(String, PathAcc)>,
        room: &mut usize,
    ) -> Vec<(String, PathAcc)> {
        use rayon::prelude::*;
        let (mut shared, mut others) = (Vec::new(), Vec::new());
        for (k, v) in rest {
            match self.paths.remove(&k) {
                Some(a) => shared.push((k, a, v)),
                None => others.push((k, v)),
            }
        }
        let merged: Vec<(String, PathAcc, usize)> = shared
            .into_par_iter()
            .map(|(k, mut a, v)| {
                let mut mine = v.values.len();
                let before = mine;
                a.merge(v, &mut mine);
                (k, a, before - mine)
            })
            .collect();
        for (k, a, used) in merged {
            *room -= used;
            self.paths.insert(k, a);
        }
        others
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

mod path;
mod shapes;
mod values;

#[cfg(test)]
mod tests;
