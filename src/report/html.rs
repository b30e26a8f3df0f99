//! The HTML renderer: one self-contained page (inline CSS and SVG; no script, font, image or
//! other request), readable on screen and printable. The text is the shared blocks; each
//! candidate's section ends with its charts: the Lorenz curve of logical-partition sizes, the
//! largest logical partitions, storage and RU/s per physical partition against their limits,
//! and the fan-out of prefix queries for hierarchical keys.

use std::fmt::Write as _;

use super::sections::{blocks, summary_line, Block};
use super::svg::{bar_chart, esc, lorenz_chart, Bar, BarChart, Limit};
use super::Renderer;
use crate::fmt::human_bytes;
use crate::fmt::{count, percent};
use crate::model::{CandidateReport, Report};

/// Renders a report as a standalone HTML page.
pub struct HtmlRenderer;

impl Renderer for HtmlRenderer {
    fn render(&self, report: &Report) -> String {
        let gate = report
            .check
            .as_ref()
            .map(|g| super::gate::text(g, crate::neutralise::html));
        page(blocks(report), Some(report), gate.as_deref())
    }
}

/// Renders format-neutral blocks as a standalone HTML page (also used by `pkadvisor fields`).
pub fn render_blocks(blocks: Vec<Block>) -> String {
    crate::neutralise::ci_lines(&page(blocks, None, None)).into_owned()
}

const STYLE: &str = r#"
:root { --pass: #1a7f37; --warn: #9a6700; --fail: #cf222e; --info: #0969da; --ink: #1f2328;
  --muted: #59636e; --line: #d1d9e0; --bar: #4c78a8; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; line-height: 1.45;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 1.6em; margin: 0 0 .3em; }
h2 { font-size: 1.3em; margin: 1.6em 0 .5em; padding-bottom: .2em; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.1em; margin: 0 0 .5em; }
p { margin: .4em 0; }
ul { margin: .4em 0; padding-left: 1.4em; }
li { margin: .15em 0; }
.summary { font-size: 1.15em; font-weight: 600; padding: .6em .9em; border-radius: 6px;
  background: var(--soft); border-left: 6px solid var(--muted); }
.summary.pass { border-left-color: var(--pass); } .summary.warn { border-left-color: var(--warn); }
.summary.fail { border-left-color: var(--fail); }
section.candidate { margin: 1.2em 0; padding: 14px 18px; border: 1px solid var(--line); border-radius: 8px; }
.badge, td.verdict { font-weight: 700; }
.badge { display: inline-block; padding: 0 .45em; border-radius: 4px; color: #fff; font-size: .9em; }
.badge.pass { background: var(--pass); } .badge.warn { background: var(--warn); }
.badge.fail { background: var(--fail); } .badge.info { background: var(--info); }
a { color: inherit; }
td.pass { color: var(--pass); } td.warn { color: var(--warn); } td.fail { color: var(--fail); }
.table { max-width: 100%; margin: .6em 0; }
table { border-collapse: collapse; font-size: .9em; max-width: 100%; }
th, td { border: 1px solid var(--line); padding: 3px 7px; text-align: left; vertical-align: top; }
td, th { overflow-wrap: anywhere; }
th { background: var(--soft); }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: var(--soft); padding: 8px 12px; border-radius: 6px; font-size: .85em;
  white-space: pre-wrap; overflow-wrap: anywhere; }
code { font-size: .92em; background: var(--soft); padding: 0 .2em; border-radius: 3px; }
pre code { background: none; padding: 0; }
.meter { display: inline-block; width: 6em; height: .8em; background: #eaeef2; border-radius: 2px;
  vertical-align: middle; margin-right: .4em; overflow: hidden; }
.meter > span { display: block; height: 100%; background: var(--bar); }
.meter.over > span { background: var(--fail); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(440px, 1fr)); gap: 12px 20px; margin-top: .8em; }
figure { margin: 0; }
figcaption { font-size: .9em; color: var(--muted); margin-bottom: 2px; }
svg.chart { width: 100%; height: auto; display: block; }
svg .grid { stroke: #eaeef2; } svg .axis { stroke: var(--muted); }
svg .tick, svg .caption { font-size: 11px; fill: var(--muted); }
svg .bar { fill: var(--bar); } svg .bar.over { fill: var(--fail); }
svg .limit { stroke: var(--fail); stroke-width: 1.5; stroke-dasharray: 6 4; }
svg .limit-label { font-size: 11px; fill: var(--fail); paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg .equality { stroke: var(--muted); stroke-dasharray: 4 4; }
svg .curve { fill: none; stroke: var(--bar); stroke-width: 2.5; }
svg .gap { fill: var(--bar); fill-opacity: .15; stroke: none; }
.note { color: var(--muted); font-size: .9em; }
svg .verdict { font-size: 12px; font-weight: 700; }
svg .verdict.pass { fill: var(--pass); } svg .verdict.warn { fill: var(--warn); }
svg .verdict.fail { fill: var(--fail); }
figure.comparison { margin: .8em 0 1.2em; max-width: 1000px; }
@media print {
  body { font-size: 10pt; } main { max-width: none; padding: 0; }
  .charts { grid-template-columns: 1fr 1fr; }
  figure, tr, pre, .summary { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  table { font-size: 8.5pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
@page { margin: 14mm; }
"#;

/// `pass`, `warn` or `fail` when `text` is (or ends with) a verdict word.
fn verdict_class(text: &str) -> Option<&'static str> {
    let last = text.rsplit([' ', '(']).next().unwrap_or(text);
    match last.trim_end_matches(')') {
        "PASS" => Some("pass"),
        "WARN" => Some("warn"),
        "FAIL" => Some("fail"),
        _ => None,
    }
}

/// Escaped text, with `code` spans (the reasons quote keys and queries that way) as `<code>`.
fn inline(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len() < 3 || parts.len().is_multiple_of(2) {
        return esc(text);
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{}</code>", esc(p))
            } else {
                esc(p)
            }
        })
        .collect()
}

/// A text bar from the shared blocks (`###.......`, `!` past the limit, maybe a share after
/// it) drawn as a meter; other cells as text.
fn meter(cell: &str) -> Option<String> {
    let (bar, rest) = cell.split_once(' ').unwrap_or((cell, ""));
    let over = bar.ends_with('!');
    let bar = bar.trim_end_matches('!');
    if bar.len() < 4 || !bar.chars().all(|c| c == '#' || c == '.') {
        return None;
    }
    let filled = bar.chars().filter(|&c| c == '#').count();
    let width = 100.0 * filled as f64 / bar.len() as f64;
    Some(format!(
        r#"<span class="meter{}"><span style="width:{width:.0}%"></span></span>{}"#,
        if over { " over" } else { "" },
        esc(rest)
    ))
}

/// A bullet: a leading severity label becomes a coloured badge.
fn bullet(item: &str) -> String {
    for (label, class) in [("FAIL ", "fail"), ("WARN ", "warn"), ("INFO ", "info")] {
        if let Some(rest) = item.strip_prefix(label) {
            return format!(
                r#"<span class="badge {class}">{}</span> {}"#,
                label.trim_end(),
                inline(rest)
            );
        }
    }
    inline(item)
}

/// A cell that reads as a number (or a size, a share) is right-aligned.
fn is_numeric(cell: &str) -> bool {
    let mut chars = cell.chars();
    chars.next().is_some_and(|c| c.is_ascii_digit())
        && cell
            .chars()
            .all(|c| c.is_ascii_digit() || " ,.%()–-/KMGTPBest".contains(c))
}

/// Escaped cell text that may break after the `>`, `+` and `/` of key specs and paths.
fn breakable(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len() + 8);
    let mut prev = ' ';
    for c in cell.chars() {
        if c == '/' && prev.is_alphanumeric() {
            out.push_str("<wbr>");
        }
        if c == '#' && prev == '#' {
            // No `##[` or `##vso[` in the page's source (crate::neutralise::html).
            out.push_str("&#35;");
        } else {
            out.push_str(&esc(c.encode_utf8(&mut [0; 4])));
        }
        if c == '>' || c == '+' {
            out.push_str("<wbr>");
        }
        prev = c;
    }
    out
}

fn table(out: &mut String, headers: &[String], rows: &[Vec<String>], linked: bool) {
    // The ranking (`#` then `candidate`): each candidate links to its section below.
    let link = linked && headers.first().is_some_and(|h| h == "#");
    let spec_col = headers
        .iter()
        .position(|h| h == "candidate")
        .filter(|_| link);
    out.push_str("<div class=\"table\"><table><thead><tr>");
    for h in headers {
        let _ = write!(out, "<th>{}</th>", breakable(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            if Some(i) == spec_col {
                let _ = write!(
                    out,
                    "<td><a href=\"#candidate-{}\">{}</a></td>",
                    esc(&r[0]),
                    breakable(c)
                );
                continue;
            }
            if let Some(m) = meter(c) {
                let _ = write!(out, "<td>{m}</td>");
                continue;
            }
            let class = match verdict_class(c).filter(|_| c.len() == 4) {
                Some(v) => format!(" class=\"verdict {v}\""),
                None if is_numeric(c) => " class=\"num\"".into(),
                None => String::new(),
            };
            let _ = write!(out, "<td{class}>{}</td>", breakable(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// The page: blocks in order, candidate sections closed with their charts.
fn page(blocks: Vec<Block>, report: Option<&Report>, mut gate: Option<&str>) -> String {
    let title = blocks
        .iter()
        .find_map(|b| match b {
            Block::Heading(1, t) => Some(t.clone()),
            _ => None,
        })
        .unwrap_or_else(|| "pkadvisor".into());
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"pkadvisor\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        esc(&title)
    );
    let mut candidate: Option<usize> = None;
    let close_candidate = |out: &mut String, candidate: &mut Option<usize>| {
        if let (Some(i), Some(r)) = (candidate.take(), report) {
            out.push_str(&charts(r, &r.candidates[i]));
            out.push_str("</section>\n");
        }
    };
    for b in blocks {
        match b {
            Block::Heading(1, text) => title_heading(&mut out, &text, report, gate.take()),
            Block::Heading(level, text) => {
                if level <= 2 {
                    close_candidate(&mut out, &mut candidate);
                }
                heading(&mut out, level, &text);
            }
            Block::Candidate(i) => {
                close_candidate(&mut out, &mut candidate);
                let rank = report.map_or(i + 1, |r| r.candidates[i].rank);
                let _ = writeln!(out, "<section class=\"candidate\" id=\"candidate-{rank}\">");
                candidate = Some(i);
            }
            Block::Text(lines) => paragraph(&mut out, &lines),
            Block::Bullets(items) => bullet_list(&mut out, &items),
            Block::Code(text) => {
                let _ = writeln!(
                    out,
                    "<pre><code>{}</code></pre>",
                    crate::neutralise::html_lines(&text)
                );
            }
            Block::Table { headers, rows } => table(&mut out, &headers, &rows, report.is_some()),
        }
    }
    close_candidate(&mut out, &mut candidate);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

/// The report's title, a check report's gate (it opens the page: each string from data in it
/// is escaped already), and with a report its one-line summary coloured by the verdict.
fn title_heading(out: &mut String, text: &str, report: Option<&Report>, gate: Option<&str>) {
    let _ = writeln!(out, "<h1>{}</h1>", esc(text));
    if let Some(g) = gate {
        let _ = writeln!(out, "<h2>Gate</h2>\n<pre>{g}</pre>");
    }
    if let Some(r) = report {
        let line = summary_line(r);
        let class = r
            .recommendation
            .as_ref()
            .map(|rec| rec.verdict)
            .or(r.candidates.first().map(|c| c.verdict))
            .map_or(String::new(), |v| format!(" {v}"));
        let _ = writeln!(out, "<p class=\"summary{class}\">{}</p>", esc(&line));
        // The one picture a reader wants first: the candidates side by side.
        if let Some(svg) = super::compare::comparison_chart(r) {
            let cost = r.candidates.iter().any(|c| c.cost.is_some());
            let _ = writeln!(
                out,
                "<figure class=\"comparison\"><figcaption>The candidates in rank order: verdict, largest logical partition against the limit{}</figcaption>{svg}</figure>",
                if cost { ", and the RU/s each needs provisioned" } else { " (no workload given: throughput not compared)" }
            );
        }
    }
}

/// A section or candidate heading; a verdict word at its end becomes a coloured badge.
fn heading(out: &mut String, level: u8, text: &str) {
    let h = level.min(6);
    match verdict_class(text) {
        Some(v) => {
            let word = v.to_uppercase();
            let at = text.rfind(&word).unwrap_or(0);
            let _ = writeln!(
                out,
                "<h{h}>{}<span class=\"badge {v}\">{word}</span>{}</h{h}>",
                esc(&text[..at]),
                esc(&text[at + word.len()..])
            );
        }
        None => {
            let _ = writeln!(out, "<h{h}>{}</h{h}>", esc(text));
        }
    }
}

/// Plain lines as one paragraph, a line break between them.
fn paragraph(out: &mut String, lines: &[String]) {
    let body = lines
        .iter()
        .map(|l| inline(l))
        .collect::<Vec<_>>()
        .join("<br>\n");
    let _ = writeln!(out, "<p>{body}</p>");
}

/// A bullet list, severity labels as badges.
fn bullet_list(out: &mut String, items: &[String]) {
    out.push_str("<ul>\n");
    for i in items {
        let _ = writeln!(out, "<li>{}</li>", bullet(i));
    }
    out.push_str("</ul>\n");
}

fn figure(out: &mut String, caption: &str, svg: &str) {
    let _ = writeln!(
        out,
        "<figure><figcaption>{}</figcaption>{svg}</figure>",
        esc(caption)
    );
}

/// Below this Gini the Lorenz curve is the diagonal to the eye.
const INFORMATIVE_GINI: f64 = 0.02;

/// Whether the largest logical partitions' chart says something: not when each holds one
/// document (a unique key), nor when the largest is under 1% of the limit (the bars would be
/// scaled to themselves with the limit "off the scale": the text says it better).
fn largest_chart_informs(r: &Report, c: &CandidateReport) -> bool {
    let largest = c.top_partitions.iter().map(|t| t.bytes).fold(0.0, f64::max);
    !c.top_partitions.is_empty()
        && c.logical_partitions < c.documents
        && c.top_partitions.iter().any(|t| t.documents > 1.0)
        && largest >= 0.01 * r.limits.logical_partition_bytes
}

/// A candidate's charts.
fn charts(r: &Report, c: &CandidateReport) -> String {
    let mut out = String::from("<div class=\"charts\">\n");
    // An even spread (a unique key: every partition one document) draws the diagonal: nothing
    // the Gini in the text does not say.
    let unique = c.logical_partitions == c.documents;
    if c.lorenz.len() >= 2 && c.skew.gini >= INFORMATIVE_GINI && !unique {
        figure(
            &mut out,
            &format!(
                "Stored bytes across logical partitions (Lorenz curve, sample): Gini {:.2}; the largest partition holds {}, the largest 1% {}. The further the curve sags below the diagonal, the fewer partitions hold the data.",
                c.skew.gini,
                percent(c.skew.top1_share),
                percent(c.skew.top1pct_share)
            ),
            &lorenz_chart(&c.lorenz, &format!("Lorenz curve of {}", c.spec)),
        );
    }
    if largest_chart_informs(r, c) {
        let bars = c
            .top_partitions
            .iter()
            .enumerate()
            .map(|(i, t)| Bar {
                label: (i + 1).to_string(),
                value: t.bytes,
                title: format!(
                    "{}: {} ({})",
                    crate::fmt::key_text(&t.key),
                    human_bytes(t.bytes),
                    percent(t.share)
                ),
            })
            .collect();
        figure(
            &mut out,
            &format!(
                "The {} largest logical partitions (estimated stored bytes; keys in the table above) against the {} logical-partition limit",
                c.top_partitions.len(),
                human_bytes(r.limits.logical_partition_bytes)
            ),
            &bar_chart(&BarChart {
                bars,
                limit: Some(Limit {
                    value: r.limits.logical_partition_bytes,
                    label: format!("limit {}", human_bytes(r.limits.logical_partition_bytes)),
                }),
                unit: &human_bytes,
                x_caption: "logical partitions, largest first",
                aria_label: &format!("largest logical partitions of {}", c.spec),
            }),
        );
    }
    if let Some(l) = &c.layout {
        layout_charts(&mut out, r, c, l);
    }
    out.push_str("</div>\n");
    out
}

/// Storage and RU/s per physical partition, and prefix fan-out.
fn layout_charts(
    out: &mut String,
    r: &Report,
    c: &CandidateReport,
    l: &crate::model::LayoutReport,
) {
    storage_chart(out, r, c, l);
    if l.partitions.iter().any(|p| p.ru_demand > 0.0) {
        ru_chart(out, r, c, l);
    }
    for pf in &l.prefix_fanout {
        fanout_chart(out, c, pf);
    }
}

/// A physical partition's label on a chart's axis: its place in EPK order, from 1.
fn partition_label(i: usize) -> String {
    format!("{}", i + 1)
}

/// Estimated stored bytes per physical partition against the physical partition limit.
fn storage_chart(
    out: &mut String,
    r: &Report,
    c: &CandidateReport,
    l: &crate::model::LayoutReport,
) {
    let storage = l
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| Bar {
            label: partition_label(i),
            value: p.bytes,
            title: format!(
                "partition {} [{}, {}): {}, {} logical partitions",
                i + 1,
                if p.min_epk.is_empty() {
                    "\"\""
                } else {
                    &p.min_epk
                },
                p.max_epk,
                human_bytes(p.bytes),
                count(p.logical_partitions as f64)
            ),
        })
        .collect();
    let limit = r.limits.physical_partition_bytes;
    figure(
        out,
        &format!(
            "Storage per physical partition (estimate, {} partitions in EPK order) against the {} limit",
            l.physical_partitions,
            human_bytes(limit)
        ),
        &bar_chart(&BarChart {
            bars: storage,
            limit: Some(Limit {
                value: limit,
                label: format!("limit {}", human_bytes(limit)),
            }),
            unit: &human_bytes,
            x_caption: "physical partitions in EPK order",
            aria_label: &format!("storage per physical partition of {}", c.spec),
        }),
    );
}

/// Estimated RU/s demand per physical partition against what each is allocated (the smallest
/// allocation), or against one partition's maximum when nothing is provisioned.
fn ru_chart(out: &mut String, r: &Report, c: &CandidateReport, l: &crate::model::LayoutReport) {
    let allocated = l
        .partitions
        .iter()
        .filter_map(|p| p.ru_allocated)
        .fold(None, |m: Option<f64>, a| Some(m.map_or(a, |m| m.min(a))));
    let (limit, what) = match allocated {
        Some(a) => (a, format!("allocated {} RU/s", count(a))),
        None => (
            r.limits.physical_partition_ru_per_sec,
            format!(
                "partition max {} RU/s",
                count(r.limits.physical_partition_ru_per_sec)
            ),
        ),
    };
    let ru = l
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| Bar {
            label: partition_label(i),
            value: p.ru_demand,
            title: format!(
                "partition {}: {} RU/s{}",
                i + 1,
                count(p.ru_demand),
                p.utilisation
                    .map(|u| format!(" ({} of allocated)", percent(u)))
                    .unwrap_or_default()
            ),
        })
        .collect();
    figure(
        out,
        &format!("Estimated RU/s demand per physical partition against {what}"),
        &bar_chart(&BarChart {
            bars: ru,
            limit: Some(Limit {
                value: limit,
                label: what.clone(),
            }),
            unit: &|v| count(v),
            x_caption: "physical partitions in EPK order",
            aria_label: &format!("RU/s per physical partition of {}", c.spec),
        }),
    );
}

/// How many prefixes of the first `pf.level` levels overlap how many physical partitions.
fn fanout_chart(out: &mut String, c: &CandidateReport, pf: &crate::model::PrefixFanout) {
    let bars = pf
        .distribution
        .iter()
        .map(|&(parts, n)| Bar {
            label: parts.to_string(),
            value: n as f64,
            title: format!("{n} prefixes overlap {parts} physical partition(s)"),
        })
        .collect();
    figure(
        out,
        &format!(
            "Prefix fan-out, first {} level(s): {} prefixes; a query on one visits {:.2} partitions on average (weighted by documents)",
            pf.level,
            count(pf.prefixes as f64),
            pf.weighted_mean_partitions
        ),
        &bar_chart(&BarChart {
            bars,
            limit: None,
            unit: &|v| count(v),
            x_caption: "physical partitions a prefix overlaps",
            aria_label: &format!("prefix fan-out of {} at level {}", c.spec, pf.level),
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_and_severities_get_classes() {
        assert_eq!(verdict_class("PASS"), Some("pass"));
        assert_eq!(verdict_class("#1 /tenantId (single): FAIL"), Some("fail"));
        assert_eq!(verdict_class("Recommendation: /a (WARN)"), Some("warn"));
        assert_eq!(verdict_class("PASSWORD"), None);
        assert_eq!(
            bullet("WARN HOT: a <b>"),
            r#"<span class="badge warn">WARN</span> HOT: a &lt;b&gt;"#
        );
        assert_eq!(
            inline("query `a<b` fans out"),
            "query <code>a&lt;b</code> fans out"
        );
        assert_eq!(inline("one ` tick"), "one ` tick");
        assert_eq!(
            meter("##.. 50.0%").as_deref(),
            Some(r#"<span class="meter"><span style="width:50%"></span></span>50.0%"#)
        );
        assert!(meter("####!").unwrap().contains("meter over"));
        assert_eq!(meter("t1 > #1"), None);
        assert!(is_numeric("1,234 (est. 5,000)"));
        assert_eq!(breakable("/a>/b"), "/a&gt;<wbr>/b");
        assert_eq!(breakable("undefined/null"), "undefined<wbr>/null");
        assert!(is_numeric("95.4 KB"));
        assert!(!is_numeric("/tenantId"));
    }
}
