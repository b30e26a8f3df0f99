//! The table-shaped view of a report, shared by the terminal and Markdown renderers: a list of
//! titled tables and notes. Each renderer only decides how to draw them.
//!
//! This file holds the block type, the order of the sections and the cells several of them
//! share. The sections are built in `input.rs` (what was read, what was skipped), `ranking.rs`
//! (the ranking table), `candidate.rs` (one candidate's section) and `layout.rs` (a candidate's
//! physical layout); the recommendation, the candidate search and the observed comparison come
//! from their own renderers in `report/`.

mod candidate;
mod input;
mod layout;
mod ranking;

use crate::model::{CandidateReport, Report};

pub use layout::{LAYOUT_ALL_UP_TO, LAYOUT_SHOWN};

/// A block of output.
#[derive(Debug, Clone)]
pub enum Block {
    /// A heading (level 1 = report, 2 = section, 3 = candidate).
    Heading(u8, String),
    /// Plain lines.
    Text(Vec<String>),
    /// A table.
    Table {
        /// Column headers.
        headers: Vec<String>,
        /// Rows of cells.
        rows: Vec<Vec<String>>,
    },
    /// A bullet list.
    Bullets(Vec<String>),
    /// Preformatted text (a definition or a command), shown as written.
    Code(String),
    /// The section of candidate `report.candidates[i]` starts here (its heading follows). The
    /// terminal draws nothing; Markdown folds the section into `<details>` and HTML into a
    /// `<section>`, both ending it with the candidate's charts.
    Candidate(usize),
}

impl Block {
    /// The block with every string through `f` (a sink's neutraliser, `crate::neutralise`),
    /// and a code block's lines through `lines`.
    pub fn map_text(self, f: fn(&str) -> String, lines: fn(&str) -> String) -> Block {
        match self {
            Block::Heading(level, text) => Block::Heading(level, f(&text)),
            Block::Text(ls) => Block::Text(ls.iter().map(|l| f(l)).collect()),
            Block::Table { headers, rows } => Block::Table {
                headers: headers.iter().map(|h| f(h)).collect(),
                rows: rows
                    .iter()
                    .map(|r| r.iter().map(|c| f(c)).collect())
                    .collect(),
            },
            Block::Bullets(items) => Block::Bullets(items.iter().map(|i| f(i)).collect()),
            Block::Code(text) => Block::Code(lines(&text)),
            Block::Candidate(i) => Block::Candidate(i),
        }
    }
}

/// The report in one line: the recommendation when there is one, else the best verdict.
pub fn summary_line(r: &Report) -> String {
    let pass = r
        .candidates
        .iter()
        .filter(|c| c.verdict == crate::model::Verdict::Pass)
        .count();
    let tally = format!(
        "{}: {pass} pass, {} warn, {} fail",
        crate::fmt::plural(r.candidates.len() as f64, "candidate"),
        r.candidates
            .iter()
            .filter(|c| c.verdict == crate::model::Verdict::Warn)
            .count(),
        r.candidates
            .iter()
            .filter(|c| c.verdict == crate::model::Verdict::Fail)
            .count(),
    );
    let rejected = r
        .input
        .findings
        .iter()
        .find(|f| f.code == "ITEM_TOO_LARGE")
        .map(|f| {
            format!(
                "{} over the item limit, rejected whatever the key; ",
                crate::fmt::plural(f.evidence["documents"].as_f64().unwrap_or(1.0), "document")
            )
        })
        .unwrap_or_default();
    let tally = format!("{rejected}{tally}");
    if let Some(rec) = &r.recommendation {
        let gate = r.check.as_ref().filter(|g| g.key == rec.spec);
        return match rec.status {
            _ if gate.is_some() => format!(
                "Gated key: {} ({}; gate {}); {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase(),
                if gate.is_some_and(|g| g.passed) {
                    "PASS"
                } else {
                    "FAIL"
                }
            ),
            crate::model::RecommendationStatus::Recommended => format!(
                "Recommended key: {} ({}); {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            ),
            crate::model::RecommendationStatus::NonePasses => {
                format!("No candidate passes (least bad: {}); {tally}", rec.spec)
            }
            crate::model::RecommendationStatus::StorageOnly => format!(
                "No workload: first by storage {} ({}), the queries decide; {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            ),
        };
    }
    match r.candidates.first() {
        Some(c) => format!(
            "Best candidate: {} ({}, score {:.0}); {tally}",
            c.spec,
            verdict_cell(c),
            c.score
        ),
        None => "No candidates were analyzed.".into(),
    }
}

/// A text bar of `width` cells for a share in [0, 1] (over 1 is drawn full with a `!`).
pub fn bar(share: f64, width: usize) -> String {
    let filled = ((share.clamp(0.0, 1.0)) * width as f64).round() as usize;
    let mut s = "#".repeat(filled);
    s.push_str(&".".repeat(width - filled));
    if share > 1.0 {
        s.push('!');
    }
    s
}

/// A verdict as a cell: `PASS`, `WARN` or `FAIL`.
fn verdict_cell(c: &CandidateReport) -> String {
    c.verdict.to_string().to_uppercase()
}

/// How much of a report the terminal shows: the headline alone (`-q`), the summary a person
/// reads in a minute (the default), or every candidate's facts and the estimators behind them
/// (`--detail`). Markdown, HTML and JSON always carry the whole report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// The headline only ([`summary_line`]).
    Headline,
    /// Headline, recommendation (reasons, fixes, container definition), ranking, and one line
    /// per other candidate naming its findings.
    #[default]
    Summary,
    /// Everything: the summary, the side-by-side, Bicep, each candidate's section and the
    /// estimators.
    Detail,
}

impl View {
    /// The view `-q` (`quiet`) or `--detail` asks for; the summary when neither.
    pub fn from_flags(quiet: bool, detail: bool) -> View {
        match (quiet, detail) {
            (_, true) => View::Detail,
            (true, false) => View::Headline,
            (false, false) => View::Summary,
        }
    }
}

/// Builds the blocks of a report for a page (Markdown, HTML): every section, the candidates'
/// folded by the renderer, and the ranking in its compact columns (a page must not scroll
/// sideways; each candidate's section holds the rest).
pub fn blocks(r: &Report) -> Vec<Block> {
    build(r, View::Detail, false)
}

/// Builds the blocks of a report as `view` shows it in a terminal (`--detail`: the ranking with
/// every column too).
pub fn blocks_view(r: &Report, view: View) -> Vec<Block> {
    build(r, view, view == View::Detail)
}

fn build(r: &Report, view: View, full_ranking: bool) -> Vec<Block> {
    let detail = view == View::Detail;
    let mut out = Vec::new();
    out.push(Block::Heading(
        1,
        "pkadvisor: partition key analysis".into(),
    ));
    // Hard limits first (what no key can fix), then the answer.
    out.extend(hard_limits_blocks(r));
    if view == View::Headline {
        out.push(Block::Text(vec![summary_line(r)]));
        return out;
    }
    if !detail {
        out.push(Block::Text(vec![summary_line(r)]));
    }
    out.push(input::input_block(&r.input));
    // What the service measured for the current key comes before the answer it informs.
    if let Some(o) = r.observed.as_ref().filter(|o| !o.headline.is_empty()) {
        out.push(Block::Text(vec![o.headline.clone()]));
    }
    if let Some(rec) = &r.recommendation {
        let gated = r.check.as_ref().map(|g| (g.key.as_str(), g.passed));
        out.extend(super::recommendation::blocks_view(rec, gated, detail));
    }
    if let Some(d) = &r.discovery {
        out.extend(super::fields::discovery_blocks(d, d.explain));
    }
    out.extend(input::skipped_block(&r.input));
    out.extend(findings_block(&r.input.findings));
    out.extend(ranking::ranking_blocks(r, full_ranking));
    out.extend(
        r.observed
            .as_ref()
            .map(super::observed::blocks)
            .unwrap_or_default(),
    );
    if !detail {
        out.extend(recommended_findings(r));
        out.extend(others_block(r));
        out.push(Block::Text(vec![
            "Each candidate's partitions, findings, largest keys, physical layout and queries, and the estimators behind every range: --detail (or --format json, html or markdown).".into(),
        ]));
        return out;
    }
    for (ci, c) in r.candidates.iter().enumerate() {
        out.extend(candidate::candidate_blocks(r, ci, c));
    }
    out.push(Block::Heading(2, "Estimates".into()));
    out.push(Block::Bullets(r.estimates.clone()));
    out
}

/// The recommended key's warnings and failures in full (its reasons point to them), under a
/// line naming it; none when it has none.
fn recommended_findings(r: &Report) -> Vec<Block> {
    let Some(rec) = &r.recommendation else {
        return Vec::new();
    };
    let Some(c) = r.candidates.iter().find(|c| c.spec == rec.spec) else {
        return Vec::new();
    };
    let findings: Vec<crate::model::Finding> = c
        .findings
        .iter()
        .filter(|f| f.severity != crate::model::Severity::Info)
        .cloned()
        .collect();
    match findings_block(&findings) {
        Some(b) => vec![Block::Text(vec![format!("Findings for {}:", c.spec)]), b],
        None => Vec::new(),
    }
}

/// One line per candidate other than the recommended one: its verdict and the codes of its
/// warnings and failures, so the summary says why each ranks where it does.
fn others_block(r: &Report) -> Vec<Block> {
    let recommended = r.recommendation.as_ref().map(|x| x.spec.as_str());
    let lines: Vec<String> = r
        .candidates
        .iter()
        .filter(|c| Some(c.spec.as_str()) != recommended)
        .map(|c| {
            // The codes by severity, failures first; the severity named only when both occur.
            let codes = |sev: crate::model::Severity| {
                let mut out: Vec<&str> = Vec::new();
                for f in c.findings.iter().filter(|f| f.severity == sev) {
                    if !out.contains(&f.code) {
                        out.push(f.code);
                    }
                }
                out.join(", ")
            };
            let (fail, warn) = (
                codes(crate::model::Severity::Fail),
                codes(crate::model::Severity::Warn),
            );
            let why = match (fail.is_empty(), warn.is_empty()) {
                (true, true) => "no warnings".to_owned(),
                (false, true) => fail,
                (true, false) => warn,
                (false, false) => format!("{fail}; WARN {warn}"),
            };
            format!("{} #{} {}: {why}", verdict_cell(c), c.rank, c.spec)
        })
        .collect();
    if lines.is_empty() {
        return Vec::new();
    }
    vec![
        Block::Text(vec!["The other candidates:".into()]),
        Block::Bullets(lines),
    ]
}

/// What no key can fix, before anything else: items the service rejects.
fn hard_limits_blocks(r: &Report) -> Vec<Block> {
    let hard: Vec<String> = r
        .input
        .findings
        .iter()
        .filter(|f| f.code == "ITEM_TOO_LARGE")
        .map(|f| f.message.clone())
        .collect();
    if hard.is_empty() {
        return Vec::new();
    }
    vec![
        Block::Heading(2, "Hard limit: items Cosmos DB rejects".into()),
        Block::Bullets(hard),
        Block::Text(vec![
            "No partition key stores these items. What follows is for the items that can be stored.".into(),
        ]),
    ]
}

/// Findings as bullets (`WARN CODE: message`), the input's or a candidate's; none when empty.
fn findings_block(findings: &[crate::model::Finding]) -> Option<Block> {
    if findings.is_empty() {
        return None;
    }
    Some(Block::Bullets(
        findings
            .iter()
            .map(|f| format!("{} {}: {}", f.severity_label(), f.code, f.message))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fmt::key_text;

    #[test]
    fn bars_scale_and_flag_overflow() {
        assert_eq!(bar(0.0, 4), "....");
        assert_eq!(bar(0.5, 4), "##..");
        assert_eq!(bar(1.0, 4), "####");
        assert_eq!(bar(1.7, 4), "####!");
    }

    #[test]
    fn keys_render_for_people() {
        assert_eq!(key_text(&serde_json::json!("acme")), "acme");
        assert_eq!(key_text(&serde_json::json!({})), "<undefined>");
        assert_eq!(key_text(&serde_json::json!(null)), "<null>");
        assert_eq!(
            key_text(&serde_json::json!(["a", {}, 5])),
            "a > <undefined> > 5"
        );
    }
}
