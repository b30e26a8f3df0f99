//! The mergeable per-path accumulator of the field profile: one [`Profiler`] per worker, merged
//! in any order to the same result.
//!
//! This file holds the [`Profiler`] (documents, walked path by path) and the bounds; one path's
//! accumulator is [`PathAcc`] in `acc/path.rs`, and what a value looks like (a version, a path,
//! a number as text) is decided in `acc/shapes.rs`; a path's values are kept in `acc/values.rs`.
//!
//! **Bounded by a hash sample, the same for any thread count.** A path keeps every value up to
//! [`MAX_VALUES_PER_PATH`], all paths together up to [`MAX_VALUES_TOTAL`]. Past either, the
//! path's sampling level rises: it keeps the values whose hash falls in 1 in 2^level of the
//! hash space, and the values pinned from the first documents ([`Profiler::pins`]). Whether a
//! value is kept depends on its text alone, so every document of a kept value is counted, and
//! the levels a profile ends at are the lowest that fit the bounds over all the documents: the
//! same whatever the order documents came in or how they were split among workers. (Keeping the
//! first values a worker saw made the values kept, and their counts, depend on which worker
//! read which block: `fields` printed other top values from run to run.)

use std::borrow::Cow;

use hashbrown::HashMap;
use serde_json::Value;

use super::doc::Doc;

use crate::keys::time::{epoch_seconds_from_number, parse_iso8601};
pub use path::{value_json, PathAcc, ValueStat};
pub use values::Values;

/// Whether a value of this text (as a path keeps it: a string as `"` and its text) is kept at
/// sampling level `level`.
pub fn values_sampled(text: &str, level: u32) -> bool {
    values::sampled(values::value_hash(text), level)
}

/// Distinct values kept per path; past it the path keeps a hash sample of its values (its
/// documents of other values counted in `overflow_documents`), so memory stays bounded whatever
/// the data.
pub const MAX_VALUES_PER_PATH: usize = 100_000;

/// Distinct values kept over all paths of one profiler (about 100 bytes each: some 400 MB); past
/// it every path's sampling level rises ([`Profiler::floor`]).
pub const MAX_VALUES_TOTAL: usize = 4_000_000;

/// Values of a path pinned from the first documents ([`Profiler::pins`]).
pub const PIN_PER_PATH: usize = 100;

/// Paths tracked; past it a profile keeps the paths pinned from the first documents and a hash
/// sample of the others ([`Profiler::path_level`]), and counts the rest in `untracked_paths`.
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
    /// The sampling level of the paths, as [`PathAcc::level`] is of a path's values: 0 while
    /// every path is tracked; past [`MAX_PATHS`], the paths tracked are those pinned and those
    /// whose name's hash is in 1 in 2^level of the hash space (the same for any thread count).
    pub path_level: u32,
    /// Documents whose `id` contains `/` or `\` or is longer than 1,023 bytes (the service
    /// rejects them), with one such value (the smallest text: the same for any thread count).
    pub bad_ids: (u64, Option<String>),
    /// Earliest and latest time-field values seen.
    pub time_range: Option<(i64, i64)>,
    /// Bytes of the documents as read (for the mean document size).
    pub record_bytes: u64,
    /// The lowest sampling level of every path ([`PathAcc::level`]): raised while all paths
    /// together keep more than [`MAX_VALUES_TOTAL`] values.
    pub floor: u32,
    /// Values all paths keep.
    pub held: usize,
    /// The most values all paths may keep ([`MAX_VALUES_TOTAL`]; less in tests).
    pub total_cap: usize,
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
            path_level: 0,
            bad_ids: (0, None),
            time_range: None,
            record_bytes: 0,
            floor: 0,
            held: 0,
            total_cap: MAX_VALUES_TOTAL,
            numbers_past_double: 0,
            buffers: Default::default(),
        }
    }
}

impl Profiler {
    /// Adds one record serde_json parsed ([`Profiler::add_doc`] of its [`Doc`]).
    pub fn add(&mut self, doc: &Value, time_path: Option<&[String]>) {
        self.add_doc(&Doc::from_value(doc), time_path);
    }

    /// Adds one parsed record; `time_path` is the time field's segments, when known.
    pub fn add_doc(&mut self, doc: &Doc<'_>, time_path: Option<&[String]>) {
        let Doc::Object(map) = doc else {
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
        if let Some(Doc::Str(s)) = doc.get("id") {
            if s.contains('/') || s.contains('\\') || s.len() > 1023 {
                self.bad_ids.0 += 1;
                let json = serde_json::to_string(s).unwrap_or_default();
                let text: String = json.chars().take(80).collect();
                self.bad_ids.1 = smaller(self.bad_ids.1.take(), Some(text));
            }
        }
        // The path and value buffers are kept from document to document (no allocation for a
        // path or value already seen).
        let (mut prefix, mut text) = std::mem::take(&mut self.buffers);
        prefix.clear();
        let mut held = self.held as isize;
        self.walk(map, &mut prefix, ts, &mut held, &mut text);
        self.held = held as usize;
        self.buffers = (prefix, text);
        if self.held > self.total_cap {
            self.raise_floor();
        }
    }

    /// Whether any path keeps a sample of its values, or the paths a sample of themselves.
    pub fn sampled(&self) -> bool {
        self.floor > 0 || self.path_level > 0 || self.paths.values().any(|a| a.level > 0)
    }

    /// Raises the floor of the sampling levels until all paths together keep at most
    /// [`Profiler::total_cap`] values.
    fn raise_floor(&mut self) {
        while self.held > self.total_cap && self.floor < values::MAX_LEVEL {
            self.floor += 1;
            for a in self.paths.values_mut() {
                self.held -= a.sample_at(self.floor);
            }
        }
    }

    /// A profile with nothing counted whose paths, pinned, hold pinned the values this one saw
    /// most often ([`PIN_PER_PATH`] a path, each seen twice at least): profiles started from it
    /// track those paths and keep those values at every sampling level, so a frequent value of
    /// a path with very many values is counted whatever the hash sample keeps, and the paths of
    /// the first documents whatever the paths' sample (`scan` pins the first documents').
    pub fn pins(&self) -> Profiler {
        let paths: HashMap<String, PathAcc> = (self.paths.iter())
            .map(|(k, a)| (k.clone(), a.pins(PIN_PER_PATH)))
            .collect();
        Profiler {
            path_level: self.path_level,
            held: paths.values().map(|a| a.values.len()).sum(),
            floor: self.floor,
            total_cap: self.total_cap,
            paths,
            ..Profiler::default()
        }
    }

    fn walk(
        &mut self,
        map: &[(Cow<'_, str>, Doc<'_>)],
        prefix: &mut String,
        ts: Option<i64>,
        held: &mut isize,
        text: &mut String,
    ) {
        for (k, v) in map {
            let len = prefix.len();
            prefix.push('/');
            push_segment(prefix, k);
            match self.paths.get_mut(prefix.as_str()) {
                Some(acc) => *held += acc.add(v, ts, text),
                None if path_sampled(prefix, self.path_level) => {
                    let mut acc = PathAcc {
                        level: self.floor,
                        ..PathAcc::default()
                    };
                    *held += acc.add(v, ts, text);
                    self.paths.insert(prefix.clone(), acc);
                    if self.paths.len() > MAX_PATHS {
                        *held -= self.fit_paths() as isize;
                    }
                }
                None => self.untracked_paths += 1,
            }
            if let Doc::Object(child) = v {
                self.walk(child, prefix, ts, held, text);
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
        self.bad_ids.1 = smaller(self.bad_ids.1.take(), o.bad_ids.1);
        self.time_range = match (self.time_range, o.time_range) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (x, None) | (None, x) => x,
        };
        // Every path at the higher floor first; each path's merge then depends on that path
        // alone (`PathAcc::merge`), and the floor is raised again over the union.
        let floor = self.floor.max(o.floor);
        self.floor = floor;
        self.total_cap = self.total_cap.min(o.total_cap);
        // The paths likewise: both sides at the higher path level, then the union fitted.
        self.path_level = self.path_level.max(o.path_level);
        self.keep_sampled_paths();
        let mut rest: Vec<(String, PathAcc)> = Vec::with_capacity(o.paths.len());
        for (k, v) in o.paths {
            if v.pinned || path_sampled(&k, self.path_level) {
                rest.push((k, v));
            } else {
                self.untracked_paths += v.present;
            }
        }
        rest.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (k, mut v) in self.merge_shared_paths(rest, floor) {
            v.sample_at(floor);
            self.paths.insert(k, v);
        }
        self.fit_paths();
        for a in self.paths.values_mut() {
            a.sample_at(floor);
        }
        self.held = self.paths.values().map(|a| a.values.len()).sum();
        self.raise_floor();
    }

    /// Drops the paths neither pinned nor sampled at the path level (their occurrences counted
    /// as untracked); returns the values they held.
    fn keep_sampled_paths(&mut self) -> usize {
        let (level, mut gone, mut untracked) = (self.path_level, 0, 0);
        self.paths.retain(|k, a| {
            let keep = a.pinned || path_sampled(k, level);
            if !keep {
                untracked += a.present;
                gone += a.values.len();
            }
            keep
        });
        self.untracked_paths += untracked;
        gone
    }

    /// Raises the path level until at most [`MAX_PATHS`] paths are tracked; returns the values
    /// the paths let go held.
    fn fit_paths(&mut self) -> usize {
        let mut gone = 0;
        while self.paths.len() > MAX_PATHS && self.path_level < values::MAX_LEVEL {
            self.path_level += 1;
            gone += self.keep_sampled_paths();
        }
        gone
    }

    /// Merges the paths of `rest` that this profile holds too, each on its own (in parallel, on
    /// the current rayon pool), and returns the others. (A path of 100,000 free-text values took
    /// most of the merge's time, on one thread, while the other cores waited.)
    fn merge_shared_paths(
        &mut self,
        rest: Vec<(String, PathAcc)>,
        floor: u32,
    ) -> Vec<(String, PathAcc)> {
        use rayon::prelude::*;
        let (mut shared, mut others) = (Vec::new(), Vec::new());
        for (k, v) in rest {
            match self.paths.remove(&k) {
                Some(a) => shared.push((k, a, v)),
                None => others.push((k, v)),
            }
        }
        let merged: Vec<(String, PathAcc)> = shared
            .into_par_iter()
            .map(|(k, mut a, v)| {
                a.sample_at(floor);
                a.merge(v);
                (k, a)
            })
            .collect();
        self.paths.extend(merged);
        others
    }
}

/// Whether a path of this name is tracked at path level `level` (unless pinned).
fn path_sampled(name: &str, level: u32) -> bool {
    level == 0 || values::sampled(values::value_hash(name), level)
}

/// The smaller of two texts, either possibly missing: an example chosen the same way whatever
/// the order the profiles merge in.
fn smaller(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
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
pub fn timestamp_at(doc: &Doc<'_>, path: &[String]) -> Option<i64> {
    let mut v = doc;
    for seg in path {
        v = v.get(seg)?;
    }
    match v {
        Doc::Str(s) => parse_iso8601(s),
        Doc::Number(n) => n.as_f64().and_then(epoch_seconds_from_number),
        _ => None,
    }
}

mod path;
mod shapes;
mod values;

#[cfg(test)]
mod tests;
