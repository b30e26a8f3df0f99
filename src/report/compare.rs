//! The HTML report's opening chart: every candidate on one row, so the picture a reader wants
//! first (which key, how far from the limits, at what cost) is one glance. Each row holds the
//! candidate's verdict, its largest logical partition against the 20 GB limit (storage headroom),
//! and, with a workload, the RU/s it needs provisioned, scaled to the largest of them.

use std::fmt::Write as _;

use super::svg::esc;
use crate::fmt::{count, human_bytes, percent};
use crate::model::Report;

/// Chart width in SVG units: the page's content width at 1280 px, so it never scrolls sideways.
pub const WIDTH: f64 = 1000.0;
/// Height of one candidate's row.
const ROW: f64 = 26.0;
/// Space above the rows (the panels' captions).
const TOP: f64 = 34.0;
/// Space below the rows (the scale).
const BOTTOM: f64 = 22.0;
/// Width of the label column (rank, key, verdict).
const LABEL: f64 = 260.0;
/// Gap between the panels.
const GAP: f64 = 30.0;
/// Storage bars run to this multiple of the limit; beyond it they are drawn full with a `>`.
const STORAGE_SCALE: f64 = 2.0;
/// Room kept right of a bar for its value (`35.1 GB (175.6%, off the scale)` fits in two
/// lines' worth; the value is short).
const VALUE_ROOM: f64 = 165.0;
/// Most characters of a key shown in the label (the full key is in the row's tooltip).
const LABEL_CHARS: usize = 30;

/// The comparison chart of a report's candidates, in rank order; `None` without candidates.
pub fn comparison_chart(r: &Report) -> Option<String> {
    if r.candidates.is_empty() {
        return None;
    }
    let limit = r.limits.logical_partition_bytes;
    let cost = r.candidates.iter().any(|c| c.cost.is_some());
    let max_ru = r
        .candidates
        .iter()
        .filter_map(|c| c.cost.as_ref().map(|k| k.required_ru_per_sec))
        .fold(0.0_f64, f64::max);
    let panels = if cost { 2.0 } else { 1.0 };
    let panel = (WIDTH - LABEL - GAP * panels) / panels;
    let height = TOP + ROW * r.candidates.len() as f64 + BOTTOM;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="chart comparison" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="the candidates compared" xmlns="http://www.w3.org/2000/svg">"#
    );
    let x0 = LABEL + GAP;
    let _ = write!(
        out,
        r#"<text class="caption" x="{x0}" y="14">largest logical partition against the {} limit (dashed)</text>"#,
        esc(&human_bytes(limit))
    );
    // The storage bars' full length: the panel less room for the value written after a bar.
    let room = panel - VALUE_ROOM;
    let limit_x = x0 + room / STORAGE_SCALE;
    let _ = write!(
        out,
        r#"<line class="limit" x1="{limit_x:.1}" x2="{limit_x:.1}" y1="20" y2="{:.1}"/>"#,
        height - BOTTOM + 4.0
    );
    let x1 = x0 + panel + GAP;
    if cost {
        let _ = write!(
            out,
            r#"<text class="caption" x="{x1}" y="14">RU/s to provision (estimate)</text>"#
        );
    }
    for (i, c) in r.candidates.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let verdict = c.verdict.to_string();
        let mut key: String = c.spec.chars().take(LABEL_CHARS).collect();
        if c.spec.chars().count() > LABEL_CHARS {
            key.push('…');
        }
        let _ = write!(
            out,
            r#"<g class="row" data-rank="{}"><title>{}</title><text class="tick" x="0" y="{:.1}" dominant-baseline="middle">#{} {}</text><text class="verdict {verdict}" x="{:.1}" y="{:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            c.rank,
            esc(&c.spec),
            y + ROW / 2.0,
            c.rank,
            esc(&key),
            LABEL,
            y + ROW / 2.0,
            verdict.to_uppercase()
        );
        let share = c.max_logical_partition_bytes / limit;
        let w = (share / STORAGE_SCALE).clamp(0.0, 1.0) * room;
        let over = if share > 1.0 { " over" } else { "" };
        let _ = write!(
            out,
            r#"<rect class="bar{over}" data-value="{}" x="{x0}" y="{:.1}" width="{:.1}" height="{:.1}"/><text class="tick" x="{:.1}" y="{:.1}" dominant-baseline="middle">{}{}</text>"#,
            c.max_logical_partition_bytes,
            y + 5.0,
            w.max(1.0),
            ROW - 10.0,
            x0 + w.max(1.0) + 4.0,
            y + ROW / 2.0,
            esc(&human_bytes(c.max_logical_partition_bytes)),
            esc(&format!(
                " ({}{})",
                percent(share),
                if share > STORAGE_SCALE {
                    ", off scale"
                } else {
                    ""
                }
            ))
        );
        if cost {
            match &c.cost {
                Some(k) if max_ru > 0.0 => {
                    let w = (k.required_ru_per_sec / max_ru) * (panel - VALUE_ROOM);
                    let _ = write!(
                        out,
                        r#"<rect class="bar" data-value="{}" x="{x1}" y="{:.1}" width="{:.1}" height="{:.1}"/><text class="tick" x="{:.1}" y="{:.1}" dominant-baseline="middle">{}</text>"#,
                        k.required_ru_per_sec,
                        y + 5.0,
                        w.max(1.0),
                        ROW - 10.0,
                        x1 + w.max(1.0) + 4.0,
                        y + ROW / 2.0,
                        esc(&count(k.required_ru_per_sec))
                    );
                }
                _ => {
                    let _ = write!(
                        out,
                        r#"<text class="tick" x="{x1}" y="{:.1}" dominant-baseline="middle">-</text>"#,
                        y + ROW / 2.0
                    );
                }
            }
        }
        out.push_str("</g>");
    }
    let base = height - BOTTOM + 16.0;
    let _ = write!(
        out,
        r#"<text class="tick" x="{x0}" y="{base:.1}">0</text><text class="tick" x="{limit_x:.1}" y="{base:.1}" text-anchor="middle">limit</text><text class="tick" x="{:.1}" y="{base:.1}" text-anchor="end">{}× limit</text>"#,
        x0 + room,
        STORAGE_SCALE
    );
    out.push_str("</svg>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_what_the_values_say() {
        let r =
            crate::report::json::read(include_str!("../../tests/data/hand_report.json")).unwrap();
        let svg = comparison_chart(&r).unwrap();
        // One row per candidate, in rank order.
        assert_eq!(svg.matches("<g class=\"row\"").count(), r.candidates.len());
        let first = svg.find("data-rank=\"1\"").unwrap();
        let second = svg.find("data-rank=\"2\"").unwrap();
        assert!(first < second);
        // A partition at half the limit is drawn a quarter of the panel (the panel runs to 2×).
        let panels = if r.candidates.iter().any(|c| c.cost.is_some()) {
            2.0
        } else {
            1.0
        };
        let panel = (WIDTH - LABEL - GAP * panels) / panels;
        let c = &r.candidates[0];
        let share = c.max_logical_partition_bytes / r.limits.logical_partition_bytes;
        let want = ((share / STORAGE_SCALE).clamp(0.0, 1.0) * (panel - VALUE_ROOM)).max(1.0);
        assert!(svg.contains(&format!("width=\"{want:.1}\"")), "{svg}");
    }
}
