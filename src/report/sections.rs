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
    if let Some(rec) = &r.recommendation {
        let gated = r.check.as_ref().is_some_and(|g| g.key == rec.spec);
        return match rec.status {
            _ if gated => format!(
                "Gated key: {} ({}); {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            ),
            crate::model::RecommendationStatus::Recommended => format!(
                "Recommended key: {} ({}); {tally}",
                rec.spec,
                rec.verdict.to_string().to_uppercase()
            ),
            crate::model::RecommendationStatus::NonePasses => {
                format!("No candidate passes (least bad: {}); {tally}", rec.spec)
            }
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

/// Builds the blocks of a report.
pub fn blocks(r: &Report) -> Vec<Block> {
    let mut out = Vec::new();
    out.push(Block::Heading(
        1,
        "pkadvisor: partition key analysis".into(),
    ));
    out.push(input::input_block(&r.input));
    // What the service measured for the current key comes before the answer it informs.
    if let Some(o) = r.observed.as_ref().filter(|o| !o.headline.is_empty()) {
        out.push(Block::Text(vec![o.headline.clone()]));
    }
    if let Some(rec) = &r.recommendation {
        let gated = r.check.as_ref().map(|g| g.key.as_str());
        out.extend(super::recommendation::blocks_gated(rec, gated));
    }
    if let Some(d) = &r.discovery {
        out.extend(super::fields::discovery_blocks(d, d.explain));
    }
    out.extend(input::skipped_block(&r.input));
    out.extend(findings_block(&r.input.findings));
    out.extend(ranking::ranking_blocks(r));
    out.extend(
        r.observed
            .as_ref()
            .map(super::observed::blocks)
            .unwrap_or_default(),
    );
    for (ci, c) in r.candidates.iter().enumerate() {
        out.extend(candidate::candidate_blocks(r, ci, c));
    }
    out.push(Block::Heading(2, "Estimates".into()));
    out.push(Block::Bullets(r.estimates.clone()));
    out
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
