//! Mermaid `xychart-beta` bar charts for the Markdown report (GitHub renders them in comments):
//! a candidate's largest logical partitions, and storage and RU/s per physical partition, each
//! against its limit drawn as a line.

use std::fmt::Write as _;

use crate::fmt::human_bytes;
use crate::model::{CandidateReport, Report};

/// A limit further than this from the largest bar is not drawn (the bars would be flat lines);
/// the title says where it is instead. The same rule as the HTML charts.
const LIMIT_ON_SCALE_BELOW: f64 = 20.0;

/// Beyond this many numbered bars the x axis is a numeric range (labels would overlap).
const MAX_LABELS: usize = 30;

/// Longest x-axis label kept.
const LABEL_CHARS: usize = 14;

/// A byte unit that keeps the larger of the values readable: (divisor, name).
fn byte_unit(max: f64) -> (f64, &'static str) {
    [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "KB")]
        .into_iter()
        .find(|(d, _)| max >= *d)
        .unwrap_or((1.0, "B"))
}

/// An x-axis label Mermaid reads as one quoted string: no quotes, brackets or backslashes.
fn label(s: &str) -> String {
    let clean: String = s
        .chars()
        .map(|c| match c {
            '"' | '\\' | '[' | ']' | '`' | ';' | '#' | '<' | '&' => '_',
            // Controls, bidi overrides and line breaks (crate::neutralise::is_hazard).
            c if crate::neutralise::is_hazard(c) => '_',
            c => c,
        })
        .collect();
    if clean.chars().count() > LABEL_CHARS {
        let head: String = clean.chars().take(LABEL_CHARS - 1).collect();
        format!("{head}…")
    } else {
        clean
    }
}

/// Three significant decimals at most, no exponent.
fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// One bar chart: `values` over `labels`, with `limit` as a constant line when it is on the
/// scale. Values and limit are divided by `unit.0` and the axis is named `unit.1`.
fn chart(
    title: &str,
    labels: &[String],
    values: &[f64],
    limit: Option<(f64, &str)>,
    unit: (f64, &str),
) -> String {
    let max = values.iter().cloned().fold(0.0, f64::max);
    let on_scale = limit.filter(|(l, _)| *l > 0.0 && *l <= LIMIT_ON_SCALE_BELOW * max.max(1e-12));
    let title = match (limit, on_scale) {
        (Some((_, what)), None) => format!("{title}; {what} off the scale"),
        (Some((_, what)), Some(_)) => format!("{title}; line = {what}"),
        _ => title.to_string(),
    };
    let top = on_scale.map_or(max, |(l, _)| l.max(max)) * 1.1 / unit.0;
    let mut out = String::from("```mermaid\nxychart-beta\n");
    let _ = writeln!(out, "    title \"{}\"", label_title(&title));
    let numbered = labels
        .iter()
        .enumerate()
        .all(|(i, l)| *l == (i + 1).to_string());
    if numbered && labels.len() > MAX_LABELS {
        // Hundreds of partitions: a numeric axis, its labels spaced by Mermaid.
        let _ = writeln!(out, "    x-axis \"partition\" 1 --> {}", labels.len());
    } else {
        let _ = writeln!(
            out,
            "    x-axis [{}]",
            labels
                .iter()
                .map(|l| format!("\"{}\"", label(l)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let _ = writeln!(
        out,
        "    y-axis \"{}\" 0 --> {}",
        unit.1,
        num(top.max(1e-3))
    );
    let _ = writeln!(
        out,
        "    bar [{}]",
        values
            .iter()
            .map(|v| num(v / unit.0))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some((l, _)) = on_scale {
        let _ = writeln!(
            out,
            "    line [{}]",
            vec![num(l / unit.0); values.len()].join(", ")
        );
    }
    out.push_str("```\n\n");
    out
}

/// A title without the characters that would end Mermaid's quoted string.
fn label_title(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '"' | '\\' | '`' => '\'',
            c if crate::neutralise::is_hazard(c) => '_',
            c => c,
        })
        .collect()
}

/// The charts of one candidate, as fenced Mermaid blocks.
pub fn charts(r: &Report, c: &CandidateReport) -> String {
    let mut out = String::new();
    if !c.top_partitions.is_empty() {
        let values: Vec<f64> = c.top_partitions.iter().map(|t| t.bytes).collect();
        let lim = r.limits.logical_partition_bytes;
        let max = values.iter().cloned().fold(0.0, f64::max);
        let unit = byte_unit(if lim <= LIMIT_ON_SCALE_BELOW * max {
            lim.max(max)
        } else {
            max
        });
        // Keys as labels when they stay apart once shortened; else ranks (the table above
        // lists the keys in the same order).
        let mut labels: Vec<String> = c
            .top_partitions
            .iter()
            .map(|t| label(&crate::fmt::key_text(&t.key)))
            .collect();
        let mut distinct = labels.clone();
        distinct.sort();
        distinct.dedup();
        if distinct.len() < labels.len() {
            labels = (1..=labels.len()).map(|i| i.to_string()).collect();
        }
        out.push_str(&chart(
            "Largest logical partitions, stored bytes (estimate)",
            &labels,
            &values,
            Some((lim, &format!("{} limit", human_bytes(lim)))),
            unit,
        ));
    }
    let Some(l) = &c.layout else {
        return out;
    };
    let labels: Vec<String> = (1..=l.partitions.len()).map(|i| i.to_string()).collect();
    let bytes: Vec<f64> = l.partitions.iter().map(|p| p.bytes).collect();
    let lim = r.limits.physical_partition_bytes;
    let max = bytes.iter().cloned().fold(0.0, f64::max);
    let unit = byte_unit(if lim <= LIMIT_ON_SCALE_BELOW * max {
        lim.max(max)
    } else {
        max
    });
    out.push_str(&chart(
        "Storage per physical partition, EPK order (estimate)",
        &labels,
        &bytes,
        Some((lim, &format!("{} limit", human_bytes(lim)))),
        unit,
    ));
    let ru: Vec<f64> = l.partitions.iter().map(|p| p.ru_demand).collect();
    if ru.iter().any(|&x| x > 0.0) {
        let allocated = l
            .partitions
            .iter()
            .filter_map(|p| p.ru_allocated)
            .fold(None, |m: Option<f64>, a| Some(m.map_or(a, |m| m.min(a))));
        let (lim, what) = match allocated {
            Some(a) => (a, format!("{} RU/s allocated", crate::fmt::count(a))),
            None => (
                r.limits.physical_partition_ru_per_sec,
                format!(
                    "{} RU/s partition max",
                    crate::fmt::count(r.limits.physical_partition_ru_per_sec)
                ),
            ),
        };
        out.push_str(&chart(
            "RU/s demand per physical partition (estimate)",
            &labels,
            &ru,
            Some((lim, &what)),
            (1.0, "RU/s"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_chart_with_its_limit_line() {
        let c = chart(
            "Storage",
            &["1".into(), "2".into()],
            &[30e9, 45e9],
            Some((50e9, "50.0 GB limit")),
            (1e9, "GB"),
        );
        assert_eq!(
            c,
            "```mermaid\nxychart-beta\n    title \"Storage; line = 50.0 GB limit\"\n    x-axis [\"1\", \"2\"]\n    y-axis \"GB\" 0 --> 55\n    bar [30, 45]\n    line [50, 50]\n```\n\n"
        );
        // A limit 1,000 times the largest bar is named, not drawn.
        let far = chart(
            "S",
            &["a".into()],
            &[2.0],
            Some((2000.0, "lim")),
            (1.0, "B"),
        );
        assert!(far.contains("title \"S; lim off the scale\""));
        assert!(!far.contains("line ["));
        // 277 partitions: no 277 labels.
        let labels: Vec<String> = (1..=277).map(|i| i.to_string()).collect();
        let many = chart("S", &labels, &[1.0; 277], None, (1.0, "B"));
        assert!(
            many.contains("    x-axis \"partition\" 1 --> 277\n"),
            "{many}"
        );
    }

    #[test]
    fn labels_cannot_break_the_chart() {
        assert_eq!(label("a\"b]c"), "a_b_c");
        assert_eq!(label("\u{1b}[2J\u{202e}x\ny"), "__2J_x_y");
        assert_eq!(label_title("k \"\u{7}`"), "k '_'");
        assert_eq!(label("t1 > t1-u1 > s-da0418db"), "t1 > t1-u1 > …");
        assert_eq!(num(0.0001), "0");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(byte_unit(45e9), (1e9, "GB"));
        assert_eq!(byte_unit(500.0), (1.0, "B"));
    }
}
