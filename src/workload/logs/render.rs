//! The measured workload as a workload file (docs/workload.md's format) a person reviews:
//! every figure in a comment beside the field it sets, every string from the logs neutralised
//! (comments cannot be broken out of; names and paths are quoted YAML strings).

use std::fmt::Write;

use super::sql::Class;
use super::{peak, Derived, ShapeStats};
use crate::cosmos::limits::Limits;
use crate::workload::FilterOp;

/// A double-quoted YAML string: `"` and `\` escaped, every hazard (controls, line breaks,
/// bidirectional marks) as `\uXXXX`.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if crate::neutralise::is_hazard(c) || c == '\u{feff}' || c == '\u{85}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text for a comment: one line, hazards escaped.
fn comment(s: &str) -> String {
    crate::neutralise::terminal(s).replace('\u{feff}', "\\ufeff")
}

fn rate(x: f64) -> String {
    // Four significant digits: the file's rates, read back, match the measurement to 0.05 %.
    if x == 0.0 {
        return "0".into();
    }
    let digits = (3 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// The workload file's op for a shape's class of one path.
fn op(s: &ShapeStats, path: &str, class: Class) -> (FilterOp, Option<String>) {
    match class {
        Class::Eq => (FilterOp::Eq, None),
        Class::In(Some(_)) => {
            let (sum, n) = s.in_values.get(path).copied().unwrap_or((3, 1));
            let mean = (sum as f64 / n.max(1) as f64).round().max(1.0) as u32;
            (FilterOp::In(mean), None)
        }
        Class::In(None) => (
            FilterOp::In(FilterOp::DEFAULT_IN),
            Some(format!(
                "{path}: a parameter array, its length not in the logs: {} values assumed",
                FilterOp::DEFAULT_IN
            )),
        ),
        _ => (FilterOp::Range, None),
    }
}

fn op_text(o: FilterOp) -> String {
    o.to_string()
}

/// One query shape as a `queries:` entry.
fn shape_entry(out: &mut String, i: usize, s: &ShapeStats, d: &Derived, l: &Limits) {
    let w = d.window_secs();
    let per_sec = s.executions as f64 / w;
    let mean_ru = s.ru / s.executions.max(1) as f64;
    let parts = s.partitions as f64 / s.executions.max(1) as f64;
    let own = (mean_ru - parts * l.query_ru_per_partition).max(0.0);
    let _ = writeln!(out, "  # {}", comment(&s.parsed.shape));
    let _ = writeln!(
        out,
        "  #   {} executions ({} requests): {}/s mean, {}/s peak minute; {:.2} RU each; {:.2} physical partitions each, {:.1} % cross-partition today",
        s.executions,
        s.requests,
        rate(per_sec),
        rate(peak(&s.per_minute, s.executions, w)),
        mean_ru,
        parts,
        100.0 * s.cross_partition as f64 / s.executions.max(1) as f64
    );
    let classes: Vec<String> = s
        .parsed
        .filter
        .iter()
        .map(|(p, c)| format!("{p} {}", c.label()))
        .collect();
    let order: Vec<&str> = s.parsed.order_by.iter().map(String::as_str).collect();
    let _ = writeln!(
        out,
        "  #   filter: {}{}",
        comment(&if classes.is_empty() {
            "none (reads every partition)".into()
        } else {
            classes.join(", ")
        }),
        if order.is_empty() {
            String::new()
        } else {
            format!("; ORDER BY {}", comment(&order.join(", ")))
        }
    );
    if s.parsed.obfuscated {
        let _ = writeln!(out, "  #   OBFUSCATED: the service hid the property names (/\"?p1__12\" is property 1 of the query); the filter's shape is kept, its paths match no key, so it routes as a fan-out until you replace them (docs/workload-from-logs.md, full-text query)");
    }
    let _ = writeln!(
        out,
        "  #   ru: {mean_ru:.2} measured − {parts:.2} partitions × {} RU per partition",
        l.query_ru_per_partition
    );
    let mut filter: Vec<(String, FilterOp)> = Vec::new();
    let mut notes = Vec::new();
    for (p, c) in &s.parsed.filter {
        let (o, note) = op(s, p, *c);
        filter.push((p.clone(), o));
        notes.extend(note);
    }
    if filter.is_empty() {
        filter.push(("/\"?no filter\"".into(), FilterOp::Range));
    }
    for n in notes {
        let _ = writeln!(out, "  #   {}", comment(&n));
    }
    let name = {
        let paths: Vec<String> = s.parsed.filter.keys().take(3).cloned().collect();
        let label = if paths.is_empty() {
            "no filter".to_string()
        } else {
            paths.join(" ")
        };
        format!("q{} {}", i + 1, label.chars().take(80).collect::<String>())
    };
    let _ = writeln!(out, "  - name: {}", quoted(&name));
    let _ = writeln!(out, "    per_sec: {}", rate(per_sec));
    let _ = writeln!(out, "    filter:");
    for (p, o) in filter {
        let _ = writeln!(out, "      {}: {}", quoted(&p), op_text(o));
    }
    let _ = writeln!(out, "    ru: {own:.2}");
}

fn header(out: &mut String, d: &Derived) {
    let w = d.window_secs();
    let _ = writeln!(
        out,
        "# Workload measured from Azure Monitor logs by `pkadvisor workload from-logs`."
    );
    let _ = writeln!(
        out,
        "# Container {}/{} in {}; window {} to {} ({:.0} s).",
        comment(&d.database),
        comment(&d.container),
        comment(&d.region),
        crate::fmt::iso(d.first.floor() as i64),
        crate::fmt::iso(d.last.ceil() as i64),
        w
    );
    for (f, n) in &d.files {
        let _ = writeln!(out, "# Read {} ({n} rows).", comment(f));
    }
    let _ = writeln!(
        out,
        "# Rows: {} read, {} of other containers, {} of other regions (left out, counted).",
        d.rows_read, d.rows_other_containers, d.rows_other_regions
    );
    let _ = writeln!(out, "# Review every entry: rates are measured (mean over the window), filters are read from the");
    let _ = writeln!(
        out,
        "# query texts, and what the logs cannot say is marked. docs/workload-from-logs.md."
    );
    let _ = writeln!(
        out,
        "consistency: session    # not in the logs: set the account's (or requests') level"
    );
}

fn ops_section(out: &mut String, d: &Derived) {
    let w = d.window_secs();
    let kind_of = |op: &str| match op.to_ascii_lowercase().as_str() {
        "create" => Some("insert"),
        "upsert" => Some("upsert"),
        "replace" | "patch" => Some("replace"),
        "delete" => Some("delete"),
        _ => None,
    };
    let line = |op: &str, s: &super::OpStats| {
        format!(
            "{} {}/s mean ({}/s peak minute), {:.2} RU each",
            comment(op),
            rate(s.count as f64 / w),
            rate(peak(&s.per_minute, s.count, w)),
            s.ru / s.count.max(1) as f64
        )
    };
    let writes: Vec<(&String, &super::OpStats)> = d
        .ops
        .iter()
        .filter(|(op, _)| kind_of(op).is_some())
        .collect();
    if !writes.is_empty() {
        let total: u64 = writes.iter().map(|(_, s)| s.count).sum();
        let mut by_kind: Vec<(&str, u64)> = Vec::new();
        for (op, s) in &writes {
            let k = kind_of(op).unwrap_or("insert");
            if k == "delete" {
                continue;
            }
            match by_kind.iter_mut().find(|(kk, _)| *kk == k) {
                Some(e) => e.1 += s.count,
                None => by_kind.push((k, s.count)),
            }
        }
        by_kind.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let kind = by_kind.first().map_or("insert", |k| k.0);
        for (op, s) in &writes {
            let _ = writeln!(out, "# writes: {}", line(op, s));
        }
        let _ = writeln!(out, "#   all written as one kind, the most frequent ({kind}); deletes counted as writes of that kind");
        let _ = writeln!(
            out,
            "writes: {{ per_sec: {}, kind: {kind} }}",
            rate(total as f64 / w)
        );
    }
    if let Some((op, s)) = d.ops.iter().find(|(op, _)| op.eq_ignore_ascii_case("Read")) {
        let _ = writeln!(out, "# reads: {}", line(op, s));
        let _ = writeln!(out, "#   the logs do not say which properties a read knows: add `by: [/tenantId, /id]` if not the full key");
        let _ = writeln!(out, "reads: {{ per_sec: {} }}", rate(s.count as f64 / w));
    }
    for (op, s) in d
        .ops
        .iter()
        .filter(|(op, _)| kind_of(op).is_none() && !op.eq_ignore_ascii_case("Read"))
    {
        let _ = writeln!(
            out,
            "# not in the workload (no field for it): {}",
            line(op, s)
        );
    }
    if !d.throttled.is_empty() {
        let list: Vec<String> = d
            .throttled
            .iter()
            .map(|(p, n)| {
                format!(
                    "{} {n}",
                    if p.is_empty() {
                        "(no PartitionId)".to_string()
                    } else {
                        comment(p)
                    }
                )
            })
            .collect();
        let _ = writeln!(out, "# 429 (throttled) responses by physical partition (PartitionId), not counted in the rates: {}", list.join(", "));
    }
}

fn query_notes(out: &mut String, d: &Derived) {
    if d.no_correlation {
        let _ = writeln!(out, "# The query rows have no CorrelatedActivityId: each request counts as one query, so rates of paged or cross-partition queries are too high.");
    }
    if d.queries_without_text.0 > 0 {
        let _ = writeln!(out, "# {} query requests ({:.1} RU) have no QueryRuntimeStatistics row: export both tables over the same window.", d.queries_without_text.0, d.queries_without_text.1);
    }
    if d.texts_without_request > 0 {
        let _ = writeln!(
            out,
            "# {} query rows have no request in the export (left out, counted).",
            d.texts_without_request
        );
    }
    if d.other_shapes.0 > 0 {
        let _ = writeln!(
            out,
            "# {} executions ({:.1} RU) of shapes beyond the first {} are left out, counted.",
            d.other_shapes.0,
            d.other_shapes.1,
            super::MAX_SHAPES
        );
    }
}

/// The workload file for `d`; `l` gives the per-partition query charge subtracted from the
/// measured mean RU (the workload's `ru` is a query's own RU beyond it: docs/workload.md).
pub fn render(d: &Derived, l: &Limits) -> String {
    let mut out = String::new();
    header(&mut out, d);
    ops_section(&mut out, d);
    query_notes(&mut out, d);
    if d.shapes.is_empty() && d.unreadable_executions == 0 {
        return out;
    }
    let _ = writeln!(out, "queries:");
    for (i, s) in d.shapes.iter().enumerate() {
        shape_entry(&mut out, i, s, d, l);
    }
    if d.unreadable_executions > 0 {
        let w = d.window_secs();
        let mean = d.unreadable_ru / d.unreadable_executions as f64;
        let _ = writeln!(out, "  # {} query rows ({} executions) whose text pkadvisor could not read, routed as a fan-out, conservatively:", d.unreadable_rows, d.unreadable_executions);
        for (text, why, n) in &d.unreadable {
            let _ = writeln!(out, "  #   {n} × {} ({})", comment(text), comment(why));
        }
        let _ = writeln!(out, "  - name: \"unreadable query texts\"");
        let _ = writeln!(
            out,
            "    per_sec: {}",
            rate(d.unreadable_executions as f64 / w)
        );
        let _ = writeln!(out, "    filter:");
        let _ = writeln!(out, "      \"/\\\"?unreadable\\\"\": range");
        let _ = writeln!(out, "    ru: {mean:.2}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cannot_break_out() {
        assert_eq!(
            quoted("a\"b\\c\nd\u{2028}"),
            "\"a\\\"b\\\\c\\u000ad\\u2028\""
        );
        assert!(!comment("x\ny: 1").contains('\n'));
        assert_eq!(rate(5.0), "5.000");
        assert_eq!(rate(1234.5678), "1235");
        assert_eq!(rate(0.012345), "0.01235");
    }
}
