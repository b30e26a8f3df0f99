//! The terminal renderer: comfy-table tables between plain lines.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

use super::sections::{blocks, Block};
use super::{Renderer, Report};

/// Renders for a terminal.
pub struct TableRenderer;

impl Renderer for TableRenderer {
    fn render(&self, report: &Report) -> String {
        let mut out = String::new();
        for b in blocks(report) {
            match b {
                Block::Heading(level, text) => {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(&text);
                    out.push('\n');
                    if level <= 2 {
                        let ch = if level == 1 { "=" } else { "-" };
                        out.push_str(&ch.repeat(text.chars().count()));
                        out.push('\n');
                    }
                }
                Block::Text(lines) => {
                    for l in lines {
                        out.push_str(&l);
                        out.push('\n');
                    }
                }
                Block::Bullets(items) => {
                    for i in items {
                        out.push_str("  - ");
                        out.push_str(&i);
                        out.push('\n');
                    }
                }
                Block::Table { headers, rows } => {
                    let mut t = Table::new();
                    t.load_preset(UTF8_FULL_CONDENSED)
                        .set_content_arrangement(ContentArrangement::Dynamic)
                        .set_width(160)
                        .set_header(headers);
                    for r in rows {
                        t.add_row(r);
                    }
                    out.push_str(&t.to_string());
                    out.push('\n');
                }
            }
        }
        out
    }
}
