//! The Markdown renderer, for pull-request comments and CI summaries.

use super::sections::{blocks, Block};
use super::{Renderer, Report};

/// Renders GitHub-flavoured Markdown.
pub struct MarkdownRenderer;

/// Escapes text for a Markdown table cell or list item: pipes would split cells, and `<null>` /
/// `<undefined>` would be swallowed as HTML tags by GitHub.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\n', " ")
}

impl Renderer for MarkdownRenderer {
    fn render(&self, report: &Report) -> String {
        let mut out = String::new();
        for b in blocks(report) {
            match b {
                Block::Heading(level, text) => {
                    out.push_str(&"#".repeat(level as usize));
                    out.push(' ');
                    out.push_str(&text);
                    out.push_str("\n\n");
                }
                Block::Text(lines) => {
                    for l in lines {
                        out.push_str(&l);
                        out.push_str("  \n");
                    }
                    out.push('\n');
                }
                Block::Bullets(items) => {
                    for i in items {
                        out.push_str("- ");
                        out.push_str(&cell(&i));
                        out.push('\n');
                    }
                    out.push('\n');
                }
                Block::Table { headers, rows } => {
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
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn cells_escape_pipes_and_angle_brackets() {
        assert_eq!(cell("<undefined>"), "&lt;undefined&gt;");
        assert_eq!(cell("a|b"), "a\\|b");
        assert_eq!(cell("t1 > u1"), "t1 &gt; u1");
    }
}
