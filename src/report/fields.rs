//! The field profile as format-neutral blocks (rendered by the table and Markdown renderers),
//! and the automatic candidates' explanation for `analyze --explain`.

use crate::fmt::{count, percent, plural};

mod maps;
use crate::model::Discovery;
use crate::model::{FieldProfile, FieldsReport};
use crate::report::sections::Block;
pub use maps::MAP_MIN_KEYS;

fn distinct_text(f: &FieldProfile) -> String {
    if !f.distinct_exact {
        return format!("≥ {} (not all tracked)", count(f.distinct as f64));
    }
    match &f.distinct_estimate {
        Some(d) if d.method != "exact" => format!(
            "{} (est. {}; {}–{})",
            count(f.distinct as f64),
            count(d.estimate),
            count(d.low),
            count(d.high)
        ),
        _ => count(f.distinct as f64),
    }
}

fn top_text(f: &FieldProfile) -> String {
    match f.top_values.first() {
        Some(t) => {
            let mut v = t.value.clone();
            if v.chars().count() > 40 {
                v = v.chars().take(37).collect::<String>() + "…";
            }
            format!("{v} ({})", percent(t.share))
        }
        None => String::new(),
    }
}

/// One field's row of the profile table.
fn field_row(f: &FieldProfile, n: f64) -> Vec<String> {
    // One type: its share is the field's presence, in the next column.
    let types = if f.types.len() == 1 {
        f.types.keys().cloned().collect::<Vec<_>>().join(", ")
    } else {
        f.types
            .iter()
            .map(|(k, v)| format!("{k} {}", percent(*v as f64 / n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        f.path.clone(),
        types,
        percent(f.present as f64 / n),
        format!("{}/{}", percent(f.missing_share), percent(f.null_share)),
        distinct_text(f),
        top_text(f),
        format!("{:.0}/{:.0}", f.value_bytes[0], f.value_bytes[1]),
        match &f.time_format {
            Some(t) => format!("{} ({t})", f.looks_like),
            None => f.looks_like.clone(),
        },
        follows_text(f),
    ]
}

fn follows_text(f: &FieldProfile) -> String {
    match (f.follows_time, f.active_latest) {
        (Some(true), Some(a)) => format!("yes ({a} active)"),
        (Some(false), Some(a)) => format!("no ({a} active)"),
        _ => "n/a".into(),
    }
}

/// `low–high` of a measure over the keys of a map-like object, one value when they agree.
fn range(
    members: &[&FieldProfile],
    value: impl Fn(&FieldProfile) -> f64,
    show: impl Fn(f64) -> String,
) -> String {
    let values = members.iter().map(|f| value(f));
    let low = values.clone().fold(f64::INFINITY, f64::min);
    let high = values.fold(f64::NEG_INFINITY, f64::max);
    if show(low) == show(high) {
        show(low)
    } else {
        format!("{}–{}", show(low), show(high))
    }
}

/// The same text for every key, else `mixed`.
fn same(members: &[&FieldProfile], text: impl Fn(&FieldProfile) -> String) -> String {
    let first = members.first().map(|f| text(f)).unwrap_or_default();
    if members.iter().all(|f| text(f) == first) {
        first
    } else {
        "mixed".into()
    }
}

/// The row of a map-like object's path pattern: ranges over its keys (docs/output.md).
fn pattern_row(pattern: &str, members: &[&FieldProfile], n: f64) -> Vec<String> {
    let types: std::collections::BTreeSet<&String> =
        members.iter().flat_map(|f| f.types.keys()).collect();
    vec![
        pattern.to_string(),
        types.into_iter().cloned().collect::<Vec<_>>().join(", "),
        range(members, |f| f.present as f64 / n, percent),
        format!(
            "{}/{}",
            range(members, |f| f.missing_share, percent),
            range(members, |f| f.null_share, percent)
        ),
        range(members, |f| f.distinct as f64, count),
        format!("({} keys)", count(members.len() as f64)),
        format!(
            "{:.0}/{:.0}",
            members.iter().map(|f| f.value_bytes[0]).sum::<f64>() / members.len().max(1) as f64,
            members.iter().map(|f| f.value_bytes[1]).fold(0.0, f64::max)
        ),
        same(members, |f| f.looks_like.clone()),
        same(members, follows_text),
    ]
}

/// The profile's blocks.
pub fn blocks(r: &FieldsReport) -> Vec<Block> {
    let mut out = vec![Block::Heading(1, "pkadvisor: field profile".into())];
    let mut lines = vec![format!(
        "{} documents profiled ({} records skipped, {} not objects); mean stored document {:.0} bytes",
        count(r.documents as f64),
        count(r.records_skipped as f64),
        count(r.non_objects as f64),
        r.mean_stored_document_bytes
    )];
    if r.production_documents > r.documents as f64 {
        lines.push(format!(
            "Distinct values are projected to {} production documents (estimates with ranges, docs/projection.md).",
            count(r.production_documents)
        ));
    }
    lines.push(match &r.time_field {
        Some(t) => {
            format!("Time field: {t} (\"follows time\" and \"active\" are measured against it).")
        }
        None => {
            "Time field: none found (pass --time-field to judge which fields follow time).".into()
        }
    });
    lines.push(format!("id property: {}", r.id_property.advice));
    if r.numbers_past_double > 0 {
        lines.push(format!(
            "{} documents hold a number past the range of a double (such as 1e400): profiled as \
             ±1.7976931348623157e308, the largest double; as a key such a number is invalid",
            count(r.numbers_past_double as f64)
        ));
    }
    if r.untracked_paths > 0 {
        lines.push(format!(
            "{} path occurrences were not profiled: more than 2,000 distinct paths",
            count(r.untracked_paths as f64)
        ));
    }
    out.push(Block::Text(lines));
    let headers = [
        "path",
        "types",
        "present",
        "missing/null",
        "distinct",
        "top value",
        "bytes mean/max",
        "looks like",
        "follows time",
    ]
    .map(String::from)
    .to_vec();
    let n = r.documents.max(1) as f64;
    let (summary, maps) = maps::summarise(&r.fields);
    if !maps.is_empty() {
        let list: Vec<String> = maps
            .iter()
            .map(|(p, keys)| format!("{p} ({})", plural(*keys as f64, "key")))
            .collect();
        out.push(Block::Text(vec![format!(
            "Map-like objects, one row per path pattern (the JSON profile lists every path): {}",
            list.join(", ")
        )]));
    }
    let rows = summary
        .iter()
        .map(|row| match row {
            maps::Row::Field(f) => field_row(f, n),
            maps::Row::Pattern(p, members) => pattern_row(p, members, n),
        })
        .collect();
    out.push(Block::Table { headers, rows });
    out
}

/// The automatic candidates' blocks: what was generated and why; with `explain`, also every
/// field left out and why.
pub fn discovery_blocks(d: &Discovery, explain: bool) -> Vec<Block> {
    let mut out = vec![Block::Heading(2, "Automatic candidates".into())];
    let mut lines = vec![format!(
        "{} generated from {} profiled on the first {} (at most {}, --max-candidates); {} left out{}",
        plural(d.generated.len() as f64, "candidate"),
        plural(d.fields_profiled as f64, "field"),
        plural(d.profiled_documents as f64, "document"),
        d.max_candidates,
        plural(d.excluded.len() as f64, "field"),
        if explain { "" } else { " (--explain lists them)" }
    )];
    if d.id_property != "ok" {
        lines.push(format!("id property: {}", d.id_property));
    }
    if !d.dropped.is_empty() {
        lines.push(format!(
            "Not analyzed (over --max-candidates): {}",
            d.dropped.join(", ")
        ));
    }
    out.push(Block::Text(lines));
    out.push(Block::Bullets(
        d.generated
            .iter()
            .map(|g| format!("{}: {}", g.spec, g.why))
            .collect(),
    ));
    if explain && !d.excluded.is_empty() {
        out.push(Block::Text(vec!["Left out:".into()]));
        out.push(Block::Bullets(
            d.excluded
                .iter()
                .map(|e| format!("{}: {}", e.path, e.reason))
                .collect(),
        ));
    }
    out
}
