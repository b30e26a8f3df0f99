//! The Markdown renderer, for pull-request comments and CI summaries.

use super::sections::{blocks, Block};
use super::Renderer;
use crate::model::Report;

/// Renders GitHub-flavoured Markdown.
pub struct MarkdownRenderer;

/// GitHub's limit on a comment body, in characters.
pub const GITHUB_COMMENT_MAX_CHARS: usize = 65_536;

/// Where the report is cut when it would not fit a comment, leaving room for the note.
const CUT_AT_BYTES: usize = 64_000;

/// A table cell: its quoted values as code spans, the rest literal text
/// (`crate::neutralise::markdown_inline`): pipes cannot split it, `<null>` is not a tag, `&amp;`
/// shows as written, and no key value becomes emphasis, a link, HTML or a line break.
fn cell(s: &str) -> String {
    crate::neutralise::markdown_inline(s, false, true)
}

/// A line's text (a paragraph line, a list item, a heading): as [`cell`], and nothing at its
/// start opens a heading, list or quote.
fn line(s: &str) -> String {
    crate::neutralise::markdown_inline(s, true, false)
}

/// Cuts a report longer than a GitHub comment at a block boundary, with a note saying so.
fn fit_comment(out: String) -> String {
    fit_comment_with("", out, "")
}

/// [`fit_comment`] for a body followed by a `tail` that is always kept whole (a `check`
/// report's gate: the one section a CI reader needs).
fn fit_comment_with(head: &str, mut out: String, tail: &str) -> String {
    let kept = head.chars().count() + tail.chars().count();
    if out.chars().count() + kept <= GITHUB_COMMENT_MAX_CHARS {
        out.insert_str(0, head);
        out.push_str(tail);
        return out;
    }
    let mut limit = CUT_AT_BYTES
        .saturating_sub(head.len() + tail.len())
        .min(out.len());
    while !out.is_char_boundary(limit) {
        limit -= 1;
    }
    let (cut, rows_left_out) = cut_point(&out, limit);
    let total = out.chars().count();
    out.truncate(cut);
    if rows_left_out > 0 {
        out.push_str(&format!(
            "\n_{rows_left_out} more rows of this table left out._\n"
        ));
    }
    if out.matches("<details>").count() > out.matches("</details>").count() {
        out.push_str("</details>\n");
    }
    out.push_str(&format!(
        "\n> **Report cut** to fit GitHub's {GITHUB_COMMENT_MAX_CHARS}-character comment limit ({total} characters in all): run with `--format table` or `--format json`, or lower `--top`, for the rest.\n"
    ));
    out.insert_str(0, head);
    out.push_str(tail);
    out
}

/// Where to cut `out` at or before byte `limit`, and how many table rows that leaves out: at
/// the last block boundary, or, when the limit falls inside a table, after its last whole row
/// (the header and at least one row kept), so one long table is shortened, not dropped.
fn cut_point(out: &str, limit: usize) -> (usize, usize) {
    let block = out[..limit].rfind("\n\n").map(|i| i + 2);
    let whole_blocks = block.map_or(limit, |b| b - 1);
    let Some(start) = block.filter(|&b| out[b..].starts_with("| ")) else {
        return (whole_blocks, 0);
    };
    let row_end = out[..limit].rfind('\n').map_or(start, |i| i + 1);
    if out[start..row_end].lines().count() < 3 {
        return (whole_blocks, 0);
    }
    let table_end = out[start..]
        .find("\n\n")
        .map_or(out.len(), |i| start + i + 1);
    (row_end, out[row_end..table_end].lines().count())
}

/// A `check` report: the gate's verdict and the reasons it failed first, then the analysis,
/// within a comment's limit with the gate whole (a CI reader needs the verdict, not line 172).
pub fn render_with_gate(report: &Report, gate: &crate::model::CheckOutcome) -> String {
    let body = render_unfitted(blocks(report), Some(report));
    let verdict = if gate.passed { "PASS" } else { "FAIL" };
    let gate = super::gate::text(gate, |s| {
        crate::neutralise::markdown_inline(s, false, false)
    });
    fit_comment_with(
        &format!("# pkadvisor check: {verdict}\n\n{gate}\n"),
        body,
        "",
    )
}

impl Renderer for MarkdownRenderer {
    fn render(&self, report: &Report) -> String {
        render_report(blocks(report), Some(report))
    }
}

/// Renders format-neutral blocks as GitHub Markdown, cut to fit a comment (also used by
/// `pkadvisor fields`).
pub fn render_blocks(blocks: Vec<Block>) -> String {
    render_report(blocks, None)
}

/// Text for inside an HTML element (`<summary>`): Markdown is not read there.
fn html_text(s: &str) -> String {
    crate::neutralise::html(s)
}

/// With a report: a summary line under the title, and each candidate folded into `<details>`
/// (its heading the summary) ending with its Mermaid charts.
fn render_report(blocks: Vec<Block>, report: Option<&Report>) -> String {
    let md = fit_comment(render_unfitted(blocks, report));
    crate::neutralise::ci_lines(&md).into_owned()
}

/// [`render_report`] before it is cut to a comment's limit.
fn render_unfitted(blocks: Vec<Block>, report: Option<&Report>) -> String {
    let mut out = String::new();
    // The candidate whose `<details>` is open, and whether its heading is still to come.
    let mut open: Option<usize> = None;
    let mut summary_next = false;
    let close = |out: &mut String, open: &mut Option<usize>| {
        if let (Some(i), Some(r)) = (open.take(), report) {
            out.push_str(&super::mermaid::charts(r, &r.candidates[i]));
            out.push_str("</details>\n\n");
        }
    };
    for b in blocks {
        match b {
            Block::Candidate(i) => {
                close(&mut out, &mut open);
                if report.is_some() {
                    out.push_str("<details>\n");
                    open = Some(i);
                    summary_next = true;
                }
            }
            Block::Heading(3, text) if summary_next => {
                summary_next = false;
                out.push_str(&format!(
                    "<summary><b>{}</b></summary>\n\n",
                    html_text(&text)
                ));
            }
            Block::Heading(level, text) => {
                if level <= 2 {
                    close(&mut out, &mut open);
                }
                heading(&mut out, level, &text, report);
            }
            Block::Text(lines) => text_lines(&mut out, &lines),
            Block::Code(text) => code(&mut out, &text),
            Block::Bullets(items) => bullets(&mut out, &items),
            Block::Table { headers, rows } => table(&mut out, &headers, &rows),
        }
    }
    close(&mut out, &mut open);
    out
}

/// A `#` heading; under the report's title (level 1), its one-line summary in bold.
fn heading(out: &mut String, level: u8, text: &str, report: Option<&Report>) {
    out.push_str(&"#".repeat(level as usize));
    out.push(' ');
    out.push_str(&line(text));
    out.push_str("\n\n");
    if let (1, Some(r)) = (level, report) {
        out.push_str(&format!(
            "**{}**\n\n",
            cell(&super::sections::summary_line(r))
        ));
    }
}

/// Plain lines, each ending in a hard line break (two spaces), then a blank line.
fn text_lines(out: &mut String, lines: &[String]) {
    for l in lines {
        out.push_str(&line(l));
        out.push_str("  \n");
    }
    out.push('\n');
}

/// Preformatted text in a code fence.
fn code(out: &mut String, text: &str) {
    // A fence longer than any backtick run inside, so nothing closes it early; each line
    // neutralised as for a terminal (the fence shows it literally).
    let fence = crate::neutralise::markdown_fence(text);
    let text = crate::neutralise::terminal_lines(text);
    out.push_str(&format!("{fence}\n{text}\n{fence}\n\n"));
}

/// A bullet list, each item escaped.
fn bullets(out: &mut String, items: &[String]) {
    for i in items {
        out.push_str("- ");
        out.push_str(&line(i));
        out.push('\n');
    }
    out.push('\n');
}

/// A pipe table, every cell escaped.
fn table(out: &mut String, headers: &[String], rows: &[Vec<String>]) {
    out.push_str("| ");
    out.push_str(
        &headers
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | "),
    );
    out.push_str(" |\n|");
    out.push_str(&headers.iter().map(|_| "---").collect::<Vec<_>>().join("|"));
    out.push_str("|\n");
    for r in rows {
        out.push_str("| ");
        out.push_str(&r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | "));
        out.push_str(" |\n");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::{cell, fit_comment, fit_comment_with, GITHUB_COMMENT_MAX_CHARS};

    #[test]
    fn cells_escape_pipes_and_angle_brackets() {
        assert_eq!(cell("<undefined>"), "&lt;undefined&gt;");
        assert_eq!(cell("a|b"), "a\\|b");
        assert_eq!(cell("t1 > u1"), "t1 &gt; u1");
    }

    #[test]
    fn key_values_render_as_written() {
        assert_eq!(cell("R&amp;D"), "R&amp;amp;D");
        assert_eq!(cell("*bold* _it_ [x](y)"), "\\*bold\\* \\_it\\_ \\[x\\](y)");
        assert_eq!(cell("# 1"), "# 1");
        // A quoted value is a code span; an unpaired backtick stays literal.
        assert_eq!(cell("`code`"), "`code`");
        assert_eq!(cell("a `x|y` b"), "a `x\\|y` b");
        assert_eq!(cell("a ` b"), "a \\` b");
        assert_eq!(cell("https://x.io"), "https&#58;//x.io");
    }

    #[test]
    fn a_cut_inside_a_table_keeps_its_header_and_the_rows_that_fit() {
        // One table longer than a comment (a `fields` profile of thousands of paths): the cut
        // used to fall back to the blank line before it and drop the whole table.
        let mut md = String::from("# t\n\n| a | b |\n|---|---|\n");
        for i in 0..3000 {
            md.push_str(&format!("| row{i:05} | {} |\n", "x".repeat(20)));
        }
        md.push_str("\nafter\n");
        let cut = fit_comment(md);
        assert!(cut.chars().count() <= GITHUB_COMMENT_MAX_CHARS);
        assert!(
            cut.contains("# t\n\n| a | b |\n|---|---|\n| row00000 |"),
            "{}",
            &cut[..80]
        );
        // Rows of 36 bytes up to the 64,000-byte cut after a 25-byte head: 63,975 / 36 = 1,777.
        let kept = cut.matches("| row").count();
        assert_eq!(kept, 1777);
        assert!(cut.contains("| row01776 |") && !cut.contains("| row01777 |"));
        assert!(
            cut.contains("\n\n_1223 more rows of this table left out._\n"),
            "{}",
            &cut[cut.len() - 400..]
        );
        assert!(cut.contains("**Report cut**") && !cut.contains("after"));
    }

    #[test]
    fn long_reports_are_cut_to_a_comment_with_a_note() {
        let block = format!("{}\n\n", "x".repeat(999));
        let long = block.repeat(100);
        let cut = fit_comment(long.clone());
        assert!(cut.chars().count() <= GITHUB_COMMENT_MAX_CHARS);
        assert!(
            cut.contains("**Report cut**"),
            "{}",
            &cut[cut.len() - 200..]
        );
        assert!(cut.contains("100100 characters in all"));
        // A cut inside a candidate's <details> closes it.
        let folded = format!("<details>\n<summary>x</summary>\n\n{long}</details>\n");
        let cut = fit_comment(folded);
        assert_eq!(cut.matches("<details>").count(), 1);
        assert_eq!(cut.matches("</details>").count(), 1);
        assert!(cut.chars().count() <= GITHUB_COMMENT_MAX_CHARS);
        // A gate before a long report is kept whole, and the whole stays under the limit.
        let gate = "# pkadvisor check: FAIL\n\nGate for key /a: FAIL\n\n";
        let cut = fit_comment_with(gate, long.clone(), "");
        assert!(cut.chars().count() <= GITHUB_COMMENT_MAX_CHARS);
        assert!(cut.starts_with(gate) && cut.contains("**Report cut**"));
        let short = "a\n".to_string();
        assert_eq!(fit_comment(short.clone()), short);
    }
}
