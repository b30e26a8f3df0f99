//! The field profile (`pkadvisor fields`, and the first pass of automatic candidates): every
//! scalar path of the sample with its type mix, presence, distinct count (and the production
//! range from the projection model), top values, value size and what it looks like (an id, a
//! timestamp, a boolean or enum, a value that follows time).
//!
//! Stages: [`scan()`] (one parallel pass, mergeable [`acc::Profiler`]s) → [`summarize`] (one
//! [`FieldProfile`] per path, classified by the rules in docs/recommendations.md).

pub mod acc;
pub mod discover;
pub mod doc;
pub mod names;
pub mod scan;

use crate::estimate::distinct::{estimate, FrequencyProfile};
use acc::{PathAcc, Profiler};

use crate::model::FieldProfile;
use crate::model::FieldsReport;
use crate::model::IdProperty;
use crate::model::TopValue;
use crate::model::FIELDS_SCHEMA_VERSION;
pub use scan::{scan, ScanConfig};

/// A field of at most this many values that the sample has seen completely is an enum
/// (a finite domain): too few logical partitions to be a key on its own.
pub const ENUM_MAX_VALUES: u64 = 12;

/// A value share of documents at least this large counts as present "in nearly every document".
pub const NEARLY_ALL: f64 = 0.99;

/// Share of documents a field must hold a non-null value in to be a candidate on its own.
pub const CANDIDATE_PRESENCE: f64 = 0.95;

/// Share of present values that must parse as timestamps for a field to be one.
pub const TIMESTAMP_SHARE: f64 = 0.95;

/// What a profiling run needs.
#[derive(Debug, Clone)]
pub struct ProfileOptions {
    /// The pass itself (threads, bad records, CSV, progress).
    pub scan: ScanConfig,
    /// The time field; detected from the first 2,000 documents of a file when `None`.
    pub time_field: Option<crate::keys::spec::KeyPath>,
    /// The production the distinct ranges are projected to.
    pub projection: Option<crate::estimate::Projection>,
    /// Item overhead bytes (system properties), for `--total-size`.
    pub item_overhead_bytes: f64,
    /// Top values per field.
    pub top: usize,
}

/// Documents the time-field detection looks at.
const TIME_PEEK_DOCUMENTS: u64 = 2_000;

/// The time field detected from the first [`TIME_PEEK_DOCUMENTS`] documents (a pass on
/// `threads` threads: the first block holds them, so any count reads the same documents).
fn peek_time_field(
    inputs: &[crate::ingest::InputSource],
    o: &ProfileOptions,
    threads: usize,
) -> Result<TimeField, crate::pipeline::ScanError> {
    let peek = ScanConfig {
        threads,
        max_documents: Some(TIME_PEEK_DOCUMENTS),
        progress: false,
        skip_invalid: true,
        ..o.scan.clone()
    };
    let p = scan(inputs, &peek)?.profiler;
    Ok(detect_time_field(&p).and_then(|t| {
        crate::keys::spec::parse_candidate(&t)
            .ok()
            .and_then(|c| c.paths().first().map(|k| (t.clone(), k.segments.clone())))
    }))
}

/// The time field as given, or as detected from the first documents of files.
type TimeField = Option<(String, Vec<String>)>;

/// Profiles the inputs: a short peek to find the time field when none is given (files only:
/// standard input is read once), then one full pass. Where that pass reads the first
/// documents' pins apart first ([`scan::reads_pins_first`]), they are read beside the peek,
/// on a thread of their own: they do not depend on the time field, and each of the two small
/// passes keeps one core busy.
pub fn run(
    inputs: &[crate::ingest::InputSource],
    o: &ProfileOptions,
) -> Result<FieldsReport, crate::pipeline::ScanError> {
    let started = std::time::Instant::now();
    let peeked = o.time_field.is_none() && inputs.iter().all(|i| i.path.is_some());
    let (time_field, seed) = if peeked && scan::reads_pins_first(inputs, &o.scan) {
        std::thread::scope(|s| {
            let pins = std::thread::Builder::new().spawn_scoped(s, || scan::pins(inputs, &o.scan));
            let time_field = peek_time_field(inputs, o, 1);
            // A thread that cannot be started: the pins are read after the peek.
            let seed = match pins {
                Ok(p) => p.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(_) => scan::pins(inputs, &o.scan),
            };
            Ok::<_, crate::pipeline::ScanError>((time_field?, Some(seed?)))
        })?
    } else if peeked {
        (peek_time_field(inputs, o, o.scan.threads)?, None)
    } else {
        let given = o.time_field.as_ref();
        (given.map(|p| (p.text.clone(), p.segments.clone())), None)
    };
    crate::timing::mark("profile: time field found");
    let cfg = ScanConfig {
        time_path: time_field.as_ref().map(|t| t.1.clone()),
        ..o.scan.clone()
    };
    let scanned = match &seed {
        Some(seed) => scan::scan_seeded(inputs, &cfg, seed)?,
        None => scan(inputs, &cfg)?,
    };
    crate::timing::mark("profile: scanned");
    let p = &scanned.profiler;
    let n = p.documents as f64;
    let mean_stored = p.record_bytes as f64 / n.max(1.0) + o.item_overhead_bytes;
    let production = match o.projection {
        Some(crate::estimate::Projection::TotalDocs(d)) => d.max(n),
        Some(crate::estimate::Projection::TotalSize(b)) => (b / mean_stored).max(n),
        None => n,
    };
    let name = time_field.map(|t| t.0);
    let fields = summarize(p, production, name.clone(), o.top);
    crate::timing::mark("profile: summarised");
    Ok(FieldsReport {
        schema_version: FIELDS_SCHEMA_VERSION,
        documents: p.documents,
        records_skipped: scanned.skipped,
        non_objects: p.non_objects,
        production_documents: production,
        mean_stored_document_bytes: mean_stored,
        id_property: id_property(p),
        fields,
        time_field: name,
        untracked_paths: p.untracked_paths,
        numbers_past_double: p.numbers_past_double,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Builds the report from a merged profiler.
pub fn summarize(
    p: &Profiler,
    production: f64,
    time_field: Option<String>,
    top: usize,
) -> Vec<FieldProfile> {
    let mut paths: Vec<(&String, &PathAcc)> = p.paths.iter().collect();
    paths.sort_by(|a, b| a.0.cmp(b.0));
    paths
        .into_iter()
        .map(|(path, a)| field_profile(path, a, p, production, time_field.is_some(), top))
        .collect()
}

fn field_profile(
    path: &str,
    a: &PathAcc,
    p: &Profiler,
    production: f64,
    timed: bool,
    top: usize,
) -> FieldProfile {
    let n = p.documents.max(1) as f64;
    let non_null = a.present - a.nulls;
    // Values counted once per document; `null` is its own partition, not a value here.
    let counts: Vec<u64> = a
        .values
        .iter()
        .filter(|(k, _)| *k != "null")
        .map(|(_, v)| v.count)
        .collect();
    let distinct = counts.len() as u64;
    let scalars = a.strings + a.numbers + a.bools;
    let exact = a.exact();
    let distinct_estimate = (exact && scalars > 0).then(|| {
        let fp = FrequencyProfile::from_counts(counts.iter().copied());
        estimate(&fp, production * scalars as f64 / n)
    });
    let (looks_like, time_format) = looks_like(a, distinct, exact, p.documents);
    let (follows_time, active_latest) = if timed {
        time_behaviour(a, p.time_range)
    } else {
        (None, None)
    };
    FieldProfile {
        path: path.to_owned(),
        present: non_null,
        missing_share: (p.documents - a.present.min(p.documents)) as f64 / n,
        null_share: a.nulls as f64 / n,
        types: types_of(a),
        // Past the path's own bound there are more values than it; past the bound over all
        // paths only those kept are known.
        distinct: if a.capped {
            distinct.max(acc::MAX_VALUES_PER_PATH as u64)
        } else {
            distinct
        },
        distinct_exact: exact,
        distinct_estimate,
        top_values: top_values(a, top, scalars),
        value_bytes: [
            a.value_bytes_sum as f64 / scalars.max(1) as f64,
            a.value_bytes_max as f64,
        ],
        looks_like,
        time_format,
        follows_time,
        active_latest,
    }
}

/// Documents by the JSON type of the field's value, the types seen only.
fn types_of(a: &PathAcc) -> std::collections::BTreeMap<String, u64> {
    let mut types = std::collections::BTreeMap::new();
    for (name, c) in [
        ("string", a.strings),
        ("number", a.numbers),
        ("boolean", a.bools),
        ("object", a.objects),
        ("array", a.arrays),
    ] {
        if c > 0 {
            types.insert(name.to_owned(), c);
        }
    }
    types
}

/// The `top` most frequent values (ties: by text), `null` left out, with their share of the
/// `scalars` values.
fn top_values(a: &PathAcc, top: usize, scalars: u64) -> Vec<TopValue> {
    let mut top_values: Vec<(&str, u64)> = a
        .values
        .iter()
        .filter(|(k, _)| *k != "null")
        .map(|(k, v)| (k, v.count))
        .collect();
    // A total order (the texts are distinct): the `top` first are selected, then only they
    // are sorted (a path keeps up to 100,000 values; the search asks for three).
    let order = |x: &(&str, u64), y: &(&str, u64)| y.1.cmp(&x.1).then(x.0.cmp(y.0));
    if top < top_values.len() {
        top_values.select_nth_unstable_by(top, order);
        top_values.truncate(top);
    }
    top_values.sort_unstable_by(order);
    top_values
        .into_iter()
        .map(|(v, c)| TopValue {
            value: acc::value_json(v),
            documents: c,
            share: c as f64 / scalars.max(1) as f64,
        })
        .collect()
}

/// The field's shape, by the rules of docs/recommendations.md ("Field profile").
fn looks_like(a: &PathAcc, distinct: u64, exact: bool, documents: u64) -> (String, Option<String>) {
    let scalars = a.strings + a.numbers + a.bools;
    let s = |x: &str| x.to_owned();
    if scalars == 0 {
        let shape = if a.arrays > 0 {
            "array"
        } else if a.objects > 0 {
            "nested"
        } else {
            "null"
        };
        return (s(shape), None);
    }
    if a.objects + a.arrays > 0 && (a.objects + a.arrays) * 10 > scalars {
        return (s("mixed_types"), None);
    }
    if let Some((shape, format)) = time_shape(a, distinct) {
        return (s(shape), Some(s(format)));
    }
    (s(value_shape(a, distinct, exact, documents)), None)
}

/// A timestamp or date field's shape and its format: ISO 8601 strings, .NET invariant-culture
/// text or epoch numbers; `None` for any other field.
fn time_shape(a: &PathAcc, distinct: u64) -> Option<(&'static str, &'static str)> {
    if a.strings > 0 && a.iso_times as f64 >= TIMESTAMP_SHARE * a.strings as f64 && a.numbers == 0 {
        if a.iso_dates == a.iso_times {
            return Some(("date", "ISO 8601 date"));
        }
        if a.invariant_times * 2 >= a.iso_times {
            return Some((
                "timestamp",
                ".NET invariant culture, MM/dd/yyyy HH:mm:ss, or the US short M/d/yyyy H:mm",
            ));
        }
        return Some(("timestamp", "ISO 8601 date-time"));
    }
    if a.numbers > 0
        && a.epoch_numbers as f64 >= TIMESTAMP_SHARE * a.numbers as f64
        && a.strings == 0
        && distinct > ENUM_MAX_VALUES
    {
        return Some(("timestamp", "epoch number (seconds or milliseconds)"));
    }
    None
}

/// The shape of a field of scalars that is not a timestamp: from mixed types and measurements to
/// ids, enums and plain values.
fn value_shape(a: &PathAcc, distinct: u64, exact: bool, documents: u64) -> &'static str {
    let scalars = a.strings + a.numbers + a.bools;
    let kinds = [a.strings, a.numbers, a.bools]
        .iter()
        .filter(|&&c| c > 0)
        .count();
    if kinds > 1 {
        return "mixed_types";
    }
    if a.numbers > 0 && a.fractional * 2 >= a.numbers {
        return "measurement";
    }
    // Prices and weights exported as text (`"58.9"`) are measurements too.
    if a.strings > 0 && a.fractional_strings * 2 >= a.strings {
        return "measurement";
    }
    if a.numbers > 0 && a.number_len.1 >= a.number_len.0 + 3 && a.nonpositive > 0 {
        return "quantity";
    }
    if a.strings > 0 && a.versions as f64 >= TIMESTAMP_SHARE * a.strings as f64 {
        return "version";
    }
    if a.strings > 0 && a.paths as f64 >= TIMESTAMP_SHARE * a.strings as f64 {
        return "path";
    }
    if a.strings > 0 && a.spaced * 2 >= a.strings && a.value_bytes_sum >= 16 * a.strings {
        return "text";
    }
    if distinct <= 1 && exact {
        return "constant";
    }
    if a.bools == scalars {
        return "boolean";
    }
    let all_unique = a.values.values().all(|v| v.count == 1);
    if all_unique && scalars == documents && scalars >= 2 {
        return "id";
    }
    if exact && distinct <= ENUM_MAX_VALUES && scalars >= 20 * distinct {
        return "enum";
    }
    "value"
}

/// Whether values come and go with time, and how many are active in the latest 5 % of the span.
fn time_behaviour(a: &PathAcc, range: Option<(i64, i64)>) -> (Option<bool>, Option<u64>) {
    let Some((t0, t1)) = range else {
        return (None, None);
    };
    let span = (t1 - t0) as f64;
    if span <= 0.0 || !a.exact() {
        return (None, None);
    }
    let latest = t1 as f64 - 0.05 * span;
    let mut lives: Vec<(f64, u64)> = Vec::new();
    let mut active = 0;
    for (k, v) in a.values.iter() {
        if k == "null" || v.first > v.last {
            continue;
        }
        if v.last as f64 >= latest {
            active += 1;
        }
        // A value seen once has no lifetime to measure.
        if v.count >= 2 {
            lives.push(((v.last - v.first) as f64 / span, v.count));
        }
    }
    if lives.len() < 2 {
        return (None, Some(active));
    }
    // The document-weighted median lifetime.
    lives.sort_by(|x, y| x.0.total_cmp(&y.0));
    let total: u64 = lives.iter().map(|l| l.1).sum();
    let mut seen = 0;
    let mut median = 0.0;
    for (life, c) in &lives {
        seen += c;
        if seen * 2 >= total {
            median = *life;
            break;
        }
    }
    (Some(median < 0.25), Some(active))
}

/// What the `id` property looks like.
pub fn id_property(p: &Profiler) -> IdProperty {
    let id = p.paths.get("/id");
    let present = id.map_or(0, |a| a.present - a.nulls);
    // A repeat among the values kept is a fact; past the per-property cap the rest are untracked.
    let repeats = id.is_some_and(|a| a.values.values().any(|v| v.count > 1));
    let untracked = id.map_or(0, |a| a.overflow_documents);
    let unique = id.is_some_and(|a| a.exact()) && !repeats;
    let has_mongo_id = p.paths.contains_key("/_id");
    // Counts of the documents profiled (the automatic search profiles only the first ones), and
    // said so: "101,602 documents have no `id`" read as the file's count of a million.
    let profiled = crate::fmt::count(p.documents as f64);
    let of_profiled = |n: u64| {
        format!(
            "{} of the {profiled} documents profiled",
            crate::fmt::count(n as f64)
        )
    };
    let advice = if present < p.documents {
        let missing = p.documents - present;
        let which = if present == 0 {
            format!("none of the {profiled} documents profiled has an `id`")
        } else {
            format!("{} have no `id`", of_profiled(missing))
        };
        if has_mongo_id {
            format!("{which} (a MongoDB export keys on `_id`): the application or the migration must set `id` (for example from `_id`), as Cosmos DB for NoSQL requires it in every item")
        } else {
            format!("{which}: Cosmos DB for NoSQL requires it in every item; the SDKs do not invent one, so the application must set it")
        }
    } else if p.bad_ids.0 > 0 {
        format!(
            "{} have an `id` with `/` or `\\` or longer than 1,023 bytes (for example {}): the service rejects or cannot address them; encode those characters",
            of_profiled(p.bad_ids.0),
            p.bad_ids.1.clone().unwrap_or_default()
        )
    } else if repeats {
        "`id` repeats in the sample: it is unique only within a logical partition, so the partition key must separate the repeats (or the ids must change)".to_owned()
    } else if untracked > 0 {
        format!(
            "`id` has no repeat among the {} values tracked; {} more documents hold other ids (past {} values per property, the values tracked are those whose hash falls in 1 in {} of the hash space), so whether those repeat is not known (Cosmos DB requires `id` unique within a logical partition)",
            crate::fmt::count(id.map_or(0, |a| a.values.len()) as f64),
            crate::fmt::count(untracked as f64),
            crate::fmt::count(acc::MAX_VALUES_PER_PATH as f64),
            crate::fmt::count(id.map_or(1.0, |a| 2f64.powi(a.level as i32)))
        )
    } else {
        "ok".to_owned()
    };
    IdProperty {
        present,
        unique,
        invalid: p.bad_ids.0,
        advice,
    }
}

/// The time field to use when none is given: the timestamp or date path present in nearly every
/// document, date-times before dates, then the most distinct values (ties: the first path).
pub fn detect_time_field(p: &Profiler) -> Option<String> {
    let n = p.documents as f64;
    // Ranked by (has a time of day, distinct values): a date-time beats a date at a tie.
    let mut best: Option<(&String, (bool, usize))> = None;
    let mut paths: Vec<(&String, &PathAcc)> = p.paths.iter().collect();
    paths.sort_by(|a, b| a.0.cmp(b.0));
    for (path, a) in paths {
        let iso = a.strings > 0 && a.iso_times as f64 >= TIMESTAMP_SHARE * a.strings as f64;
        let epoch = a.numbers > 0
            && a.epoch_numbers as f64 >= TIMESTAMP_SHARE * a.numbers as f64
            && a.values.len() as u64 > ENUM_MAX_VALUES;
        let present = (a.present - a.nulls) as f64 >= NEARLY_ALL * n;
        let rank = (epoch || a.iso_dates < a.iso_times, a.values.len());
        if (iso || epoch) && present && best.is_none_or(|b| rank > b.1) {
            best = Some((path, rank));
        }
    }
    best.map(|b| b.0.clone())
}

#[cfg(test)]
mod tests;
