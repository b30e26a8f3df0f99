//! The terminal renderer: comfy-table tables between plain lines.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

use super::sections::{blocks, Block};
use super::{Renderer, Report};

/// Longest cell shown in full; a partition key value is at most 2,048 bytes, and wrapping a
/// longer cell costs time quadratic in its length.
pub const MAX_CELL_CHARS: usize = 200;

/// A cell cut to [`MAX_CELL_CHARS`] with its full size stated (the JSON output keeps it whole).
pub fn shorten(cell: &str) -> String {
    if cell.chars().count() <= MAX_CELL_CHARS {
        return cell.to_string();
    }
    let head: String = cell.chars().take(MAX_CELL_CHARS - 40).collect();
    format!("{head}… ({} bytes in all)", cell.len())
}

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
                        t.add_row(r.into_iter().map(|c| shorten(&c)));
                    }
                    out.push_str(&t.to_string());
                    out.push('\n');
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cells_are_cut_with_their_size() {
        assert_eq!(shorten("short"), "short");
        let long = "k".repeat(100_000);
        let s = shorten(&long);
        assert_eq!(
            s.chars().count(),
            160 + "… (100000 bytes in all)".chars().count()
        );
        assert!(s.ends_with("… (100000 bytes in all)"));
    }
}
