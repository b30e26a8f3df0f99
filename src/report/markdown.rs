//! The Markdown renderer, for pull-request comments and CI summaries.

use super::sections::{blocks, Block};
use super::{Renderer, Report};

/// Renders GitHub-flavoured Markdown.
pub struct MarkdownRenderer;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
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
