//! The HTML report's opening chart: every candidate on one row, so the picture a reader wants
//! first (which key, how far from the limits, at what cost) is one glance. Each row holds the
//! candidate's verdict, its largest logical partition against the 20 GB limit (storage headroom),
//! and, with a workload, the RU/s it needs provisioned, scaled to the largest of them.

use std::fmt::Write as _;

use super::svg::esc;
use crate::fmt::{count, human_bytes, percent};
use crate::model::{CandidateReport, Report};

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

/// The chart's geometry, shared by its rows.
struct Geometry {
    /// Left edge of the storage panel.
    x0: f64,
    /// Left edge of the RU/s panel (with a workload).
    x1: f64,
    /// Width of one panel.
    panel: f64,
    /// The storage bars' full length: the panel less room for the value after a bar.
    room: f64,
    /// The limit, bytes.
    limit: f64,
    /// The largest RU/s to provision (0 without a workload).
    max_ru: f64,
    /// Whether the RU/s panel is drawn.
    cost: bool,
}

/// The comparison chart of a report's candidates, in rank order; `None` without candidates.
pub fn comparison_chart(r: &Report) -> Option<String> {
    if r.candidates.is_empty() {
        return None;
    }
    let cost = r.candidates.iter().any(|c| c.cost.is_some());
    let panels = if cost { 2.0 } else { 1.0 };
    let panel = (WIDTH - LABEL - GAP * panels) / panels;
    let g = Geometry {
        x0: LABEL + GAP,
        x1: LABEL + GAP + panel + GAP,
        panel,
        room: panel - VALUE_ROOM,
        limit: r.limits.logical_partition_bytes,
        max_ru: r
            .candidates
            .iter()
            .filter_map(|c| c.cost.as_ref().map(|k| k.required_ru_per_sec))
            .fold(0.0_f64, f64::max),
        cost,
    };
    let height = TOP + ROW * r.candidates.len() as f64 + BOTTOM;
    let limit_x = g.x0 + g.room / STORAGE_SCALE;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="chart comparison" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="the candidates compared" xmlns="http://www.w3.org/2000/svg"><text class="caption" x="{}" y="14">largest logical partition against the {} limit (dashed)</text><line class="limit" x1="{limit_x:.1}" x2="{limit_x:.1}" y1="20" y2="{:.1}"/>"#,
        g.x0,
        esc(&human_bytes(g.limit)),
        height - BOTTOM + 4.0
    );
    if cost {
        let _ = write!(
            out,
            r#"<text class="caption" x="{}" y="14">RU/s to provision (estimate)</text>"#,
            g.x1
        );
    }
    for (i, c) in r.candidates.iter().enumerate() {
        row(&mut out, &g, TOP + ROW * i as f64, c);
    }
    let base = height - BOTTOM + 16.0;
    let _ = write!(
        out,
        r#"<text class="tick" x="{}" y="{base:.1}">0</text><text class="tick" x="{limit_x:.1}" y="{base:.1}" text-anchor="middle">limit</text><text class="tick" x="{:.1}" y="{base:.1}" text-anchor="end">{}× limit</text></svg>"#,
        g.x0,
        g.x0 + g.room,
        STORAGE_SCALE
    );
    Some(out)
}

/// One candidate's row at height `y`: its rank, key and verdict, its storage bar, and its RU/s
/// bar when the chart has that panel.
fn row(out: &mut String, g: &Geometry, y: f64, c: &CandidateReport) {
    let mid = y + ROW / 2.0;
    let verdict = c.verdict.to_string();
    let mut key: String = c.spec.chars().take(LABEL_CHARS).collect();
    if c.spec.chars().count() > LABEL_CHARS {
        key.push('…');
    }
    let _ = write!(
        out,
        r#"<g class="row" data-rank="{}"><title>{}</title><text class="tick" x="0" y="{mid:.1}" dominant-baseline="middle">#{} {}</text><text class="verdict {verdict}" x="{LABEL:.1}" y="{mid:.1}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
        c.rank,
        esc(&c.spec),
        c.rank,
        esc(&key),
        verdict.to_uppercase()
    );
    let share = c.max_logical_partition_bytes / g.limit;
    let w = ((share / STORAGE_SCALE).clamp(0.0, 1.0) * g.room).max(1.0);
    let over = if share > 1.0 { " over" } else { "" };
    let value = format!(
        "{} ({}{})",
        human_bytes(c.max_logical_partition_bytes),
        percent(share),
        if share > STORAGE_SCALE {
            ", off scale"
        } else {
            ""
        }
    );
    bar(out, g.x0, y, w, over, c.max_logical_partition_bytes, &value);
    if g.cost {
        match &c.cost {
            Some(k) if g.max_ru > 0.0 => {
                let w = ((k.required_ru_per_sec / g.max_ru) * (g.panel - VALUE_ROOM)).max(1.0);
                let ru = k.required_ru_per_sec;
                bar(out, g.x1, y, w, "", ru, &count(ru));
            }
            _ => {
                let _ = write!(
                    out,
                    r#"<text class="tick" x="{}" y="{mid:.1}" dominant-baseline="middle">-</text>"#,
                    g.x1
                );
            }
        }
    }
    out.push_str("</g>");
}

/// A bar of width `w` from `x` in the row at `y`, with its value written after it.
fn bar(out: &mut String, x: f64, y: f64, w: f64, class: &str, value: f64, text: &str) {
    let _ = write!(
        out,
        r#"<rect class="bar{class}" data-value="{value}" x="{x}" y="{:.1}" width="{w:.1}" height="{:.1}"/><text class="tick" x="{:.1}" y="{:.1}" dominant-baseline="middle">{}</text>"#,
        y + 5.0,
        ROW - 10.0,
        x + w + 4.0,
        y + ROW / 2.0,
        esc(text)
    );
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
