//! Inline SVG charts for the HTML report: bar charts against a limit line and the Lorenz curve.
//! Plain strings, no dependency: each chart is a `<svg>` element with a `viewBox`, so it scales
//! with the page and prints sharp. Each bar carries its value in `data-value` and a `<title>`
//! tooltip; the geometry is what the values say (a test reads it back).

use std::fmt::Write as _;

/// Chart width in SVG units (the page scales it).
pub const WIDTH: f64 = 560.0;
/// Chart height in SVG units.
pub const HEIGHT: f64 = 260.0;
/// Space for the y-axis labels.
pub const LEFT: f64 = 70.0;
/// Right margin.
pub const RIGHT: f64 = 16.0;
/// Space above the plot (for the limit note).
pub const TOP: f64 = 22.0;
/// Space for the x-axis labels and caption.
pub const BOTTOM: f64 = 40.0;

/// A limit drawn as a dashed line across a bar chart.
#[derive(Debug, Clone)]
pub struct Limit {
    /// Where the line is, in the bars' unit.
    pub value: f64,
    /// Its label, e.g. `limit 50.0 GB`.
    pub label: String,
}

/// One bar.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Axis label (short).
    pub label: String,
    /// The value drawn.
    pub value: f64,
    /// Tooltip text.
    pub title: String,
}

/// A vertical bar chart.
pub struct BarChart<'a> {
    /// Bars, left to right.
    pub bars: Vec<Bar>,
    /// The limit the bars are judged against.
    pub limit: Option<Limit>,
    /// Formats a value for the y axis.
    pub unit: &'a dyn Fn(f64) -> String,
    /// What the x axis counts.
    pub x_caption: &'a str,
    /// Accessible name of the chart.
    pub aria_label: &'a str,
}

/// A limit closer than this to the largest bar shares its scale; further, the chart scales to
/// the bars (else they would be invisible) and says the limit is off the scale.
const LIMIT_ON_SCALE_BELOW: f64 = 20.0;

/// Escapes text for HTML and SVG content and attribute values (`crate::neutralise::html`).
pub fn esc(s: &str) -> String {
    crate::neutralise::html(s)
}

/// A round step so that `max` spans about four ticks: 1, 2 or 5 times a power of ten.
pub fn nice_step(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Two decimals, trailing zeros dropped: coordinates stay short and exact enough.
fn n2(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

fn open_svg(out: &mut String, class: &str, aria: &str) {
    let _ = write!(
        out,
        r#"<svg class="{class}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{}" xmlns="http://www.w3.org/2000/svg">"#,
        esc(aria)
    );
}

/// Draws the y axis with ticks every `step` up to `top` (in value units) and returns nothing:
/// `y(v)` maps a value to its SVG y.
fn y_axis(
    out: &mut String,
    top: f64,
    step: f64,
    y: &dyn Fn(f64) -> f64,
    unit: &dyn Fn(f64) -> String,
) {
    let mut v = 0.0;
    while v <= top * (1.0 + 1e-9) {
        let yy = n2(y(v));
        let _ = write!(
            out,
            r#"<line class="grid" x1="{LEFT}" x2="{}" y1="{yy}" y2="{yy}"/><text class="tick" x="{}" y="{yy}" text-anchor="end" dominant-baseline="middle">{}</text>"#,
            WIDTH - RIGHT,
            LEFT - 6.0,
            esc(&unit(v))
        );
        v += step;
    }
}

/// Renders a bar chart as an `<svg>` element.
pub fn bar_chart(c: &BarChart<'_>) -> String {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let max_bar = c.bars.iter().map(|b| b.value).fold(0.0, f64::max);
    let limit_on_scale = c.limit.as_ref().filter(|l| {
        l.value > 0.0 && l.value <= LIMIT_ON_SCALE_BELOW * max_bar.max(f64::MIN_POSITIVE)
    });
    let span = limit_on_scale.map_or(max_bar, |l| l.value.max(max_bar));
    let step = nice_step(span);
    let top = ((span * 1.05 / step).ceil() * step).max(step);
    let bottom = TOP + plot_h;
    let y = |v: f64| bottom - v / top * plot_h;
    let mut out = String::new();
    open_svg(&mut out, "chart bars", c.aria_label);
    y_axis(&mut out, top, step, &y, c.unit);
    let n = c.bars.len().max(1) as f64;
    let slot = plot_w / n;
    // Thin bars for many partitions; a lone bar no wider than a thumb.
    let bar_w = (slot * 0.8).clamp(0.5, 48.0);
    let label_every = (c.bars.len() / 16).max(1);
    let mut tops: Vec<(f64, f64, f64)> = Vec::with_capacity(c.bars.len());
    for (i, b) in c.bars.iter().enumerate() {
        let x = LEFT + slot * i as f64 + (slot - bar_w) / 2.0;
        let h = (b.value.max(0.0) / top * plot_h).max(0.0);
        tops.push((x, x + bar_w, bottom - h));
        let over = c.limit.as_ref().is_some_and(|l| b.value > l.value);
        let _ = write!(
            out,
            r#"<rect class="bar{}" x="{}" y="{}" width="{}" height="{}" data-value="{}"><title>{}</title></rect>"#,
            if over { " over" } else { "" },
            n2(x),
            n2(bottom - h),
            n2(bar_w),
            n2(h),
            b.value,
            esc(&b.title)
        );
        if i % label_every == 0 {
            let _ = write!(
                out,
                r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{}</text>"#,
                n2(x + bar_w / 2.0),
                n2(bottom + 14.0),
                esc(&b.label)
            );
        }
    }
    let _ = write!(
        out,
        r#"<line class="axis" x1="{LEFT}" x2="{}" y1="{bottom}" y2="{bottom}"/><text class="caption" x="{}" y="{}" text-anchor="middle">{}</text>"#,
        WIDTH - RIGHT,
        n2(LEFT + plot_w / 2.0),
        HEIGHT - 6.0,
        esc(c.x_caption)
    );
    limit_mark(
        &mut out,
        c,
        limit_on_scale.map(|l| (l, y(l.value))),
        &tops,
        max_bar,
    );
    out.push_str("</svg>");
    out
}

/// The limit: a line with its label placed off the bars ([`limit_label_place`]) when it is on
/// the scale (`on_scale`: the limit and its y), else a note that it is off the scale.
fn limit_mark(
    out: &mut String,
    c: &BarChart<'_>,
    on_scale: Option<(&Limit, f64)>,
    tops: &[(f64, f64, f64)],
    max_bar: f64,
) {
    match (&c.limit, on_scale) {
        (_, Some((l, line_y))) => {
            let ly = n2(line_y);
            let (lx, label_y, anchor) = limit_label_place(tops, line_y, &l.label);
            let _ = write!(
                out,
                r#"<line class="limit" x1="{LEFT}" x2="{}" y1="{ly}" y2="{ly}" data-value="{}"/><text class="limit-label" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#,
                WIDTH - RIGHT,
                l.value,
                n2(lx),
                n2(label_y),
                esc(&l.label)
            );
        }
        (Some(l), None) => {
            let _ = write!(
                out,
                r#"<text class="limit-label" x="{}" y="14" text-anchor="end">{} (off the scale: {}× the largest bar)</text>"#,
                WIDTH - RIGHT,
                esc(&l.label),
                crate::fmt::count(l.value / max_bar.max(f64::MIN_POSITIVE))
            );
        }
        (None, None) => {}
    }
}

/// The width of one character of the limit label (11 px, `svg .limit-label` in html.rs),
/// generously.
const LABEL_CHAR_WIDTH: f64 = 6.5;

/// Where the limit line's label goes so no bar covers it: above the line at its right end,
/// else at its left end, else above the plot at the right
/// (`tops` holds each bar's left, right and top y; `ly` is the line's y). Returns x, the
/// text's baseline y and its `text-anchor`.
fn limit_label_place(tops: &[(f64, f64, f64)], ly: f64, label: &str) -> (f64, f64, &'static str) {
    let w = label.chars().count() as f64 * LABEL_CHAR_WIDTH;
    let (left, right) = (LEFT + 4.0, WIDTH - RIGHT);
    // A bar hits the label when it spans its columns and rises above the label's bottom.
    let clear = |x0: f64, x1: f64, baseline: f64| {
        !tops
            .iter()
            .any(|&(b0, b1, top)| b1 > x0 && b0 < x1 && top < baseline + 2.0)
    };
    // Below the line is no way out: a bar that reaches the label's bottom covers the line too.
    let above = ly - 4.0;
    if clear(right - w, right, above) {
        (right, above, "end")
    } else if clear(left, left + w, above) {
        (left, above, "start")
    } else {
        (right, TOP - 8.0, "end")
    }
}

/// Renders a Lorenz curve (`[share of partitions, share of bytes]` points) over the line of
/// equality, both axes 0–100 %.
pub fn lorenz_chart(points: &[[f64; 2]], aria_label: &str) -> String {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let bottom = TOP + plot_h;
    let x = |s: f64| LEFT + s * plot_w;
    let y = |s: f64| bottom - s * plot_h;
    let mut out = String::new();
    open_svg(&mut out, "chart lorenz", aria_label);
    y_axis(&mut out, 1.0, 0.25, &y, &|v| format!("{:.0}%", v * 100.0));
    for i in 0..=4 {
        let s = f64::from(i) * 0.25;
        let _ = write!(
            out,
            r#"<text class="tick" x="{}" y="{}" text-anchor="middle">{:.0}%</text>"#,
            n2(x(s)),
            n2(bottom + 14.0),
            s * 100.0
        );
    }
    let _ = write!(
        out,
        r#"<line class="equality" x1="{}" y1="{}" x2="{}" y2="{}"/>"#,
        n2(x(0.0)),
        n2(y(0.0)),
        n2(x(1.0)),
        n2(y(1.0))
    );
    let pts = points
        .iter()
        .map(|p| format!("{},{}", n2(x(p[0])), n2(y(p[1]))))
        .collect::<Vec<_>>()
        .join(" ");
    let _ = write!(
        out,
        r#"<polygon class="gap" points="{} {},{}"/><polyline class="curve" points="{pts}"/>"#,
        pts,
        n2(x(0.0)),
        n2(y(0.0))
    );
    let _ = write!(
        out,
        r#"<line class="axis" x1="{LEFT}" x2="{}" y1="{bottom}" y2="{bottom}"/><text class="caption" x="{}" y="{}" text-anchor="middle">logical partitions, smallest first (share of all)</text><text class="caption" x="14" y="{}" text-anchor="middle" transform="rotate(-90 14 {})">share of bytes</text>"#,
        WIDTH - RIGHT,
        n2(LEFT + plot_w / 2.0),
        HEIGHT - 6.0,
        n2(TOP + plot_h / 2.0),
        n2(TOP + plot_h / 2.0)
    );
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_label_moves_off_a_bar_that_covers_it() {
        let label = "20.0 GB limit"; // 13 characters, 84.5 px
        let ly = 100.0;
        // No bar near: above the line, at its right end.
        assert_eq!(
            limit_label_place(&[], ly, label),
            (WIDTH - RIGHT, 96.0, "end")
        );
        // The last bar rises past the line under the label: the label goes to the left end.
        let right_bar = [(500.0, 540.0, 60.0)];
        assert_eq!(
            limit_label_place(&right_bar, ly, label),
            (LEFT + 4.0, 96.0, "start")
        );
        // A bar just under the line leaves the label alone.
        let under = [(500.0, 540.0, 99.0)];
        assert_eq!(
            limit_label_place(&under, ly, label),
            (WIDTH - RIGHT, 96.0, "end")
        );
        // Bars over the line at both ends: above the plot, where no bar reaches.
        let both = [(80.0, 120.0, 60.0), (500.0, 540.0, 60.0)];
        assert_eq!(
            limit_label_place(&both, ly, label),
            (WIDTH - RIGHT, TOP - 8.0, "end")
        );
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(100.0), 50.0);
        assert_eq!(nice_step(8.0), 2.0);
        assert_eq!(nice_step(50e9), 20e9);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(n2(1.004), "1");
        assert_eq!(n2(12.5), "12.5");
        assert_eq!(n2(-0.001), "0");
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }

    #[test]
    fn a_far_limit_leaves_the_scale_to_the_bars() {
        let bars = vec![Bar {
            label: "1".into(),
            value: 10.0,
            title: "t".into(),
        }];
        let unit = |v: f64| format!("{v}");
        let far = bar_chart(&BarChart {
            bars: bars.clone(),
            limit: Some(Limit {
                value: 1000.0,
                label: "limit".into(),
            }),
            unit: &unit,
            x_caption: "x",
            aria_label: "a",
        });
        assert!(!far.contains(r#"class="limit""#));
        assert!(far.contains("off the scale: 100× the largest bar"));
        let near = bar_chart(&BarChart {
            bars,
            limit: Some(Limit {
                value: 40.0,
                label: "limit".into(),
            }),
            unit: &unit,
            x_caption: "x",
            aria_label: "a",
        });
        assert!(near.contains(r#"class="limit""#));
    }
}
