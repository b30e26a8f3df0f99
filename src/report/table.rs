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

/// Table width when standard output is not a terminal (a file, a pipe, CI logs).
pub const PIPED_WIDTH: u16 = 160;

/// Narrowest table drawn: below it columns would hold a character or two.
pub const MIN_WIDTH: u16 = 40;

/// The width tables are fitted to: the terminal's when standard output is one, else
/// [`PIPED_WIDTH`], so a file or a pipe gets the same bytes wherever it is written.
pub fn table_width() -> u16 {
    Table::new()
        .width()
        .map_or(PIPED_WIDTH, |w| w.max(MIN_WIDTH))
}

/// Below this width the ranking keeps only the columns a choice is made on; the rest are in
/// each candidate's details below it.
pub const COMPACT_BELOW: u16 = 120;

/// The ranking's columns kept on a narrow terminal, with their short headers.
const COMPACT_COLUMNS: [(&str, &str); 9] = [
    ("#", "#"),
    ("candidate", "candidate"),
    ("verdict", "verdict"),
    ("score", "score"),
    ("logical partitions", "partitions"),
    ("largest partition", "largest"),
    ("% of limit", "% limit"),
    ("hottest RU/s", "hot RU/s"),
    ("hottest physical", "hot phys."),
];

/// On a narrow terminal, the ranking table (the one headed `#`, `candidate`, ..., `verdict`)
/// keeps [`COMPACT_COLUMNS`] under short headers; other tables are unchanged.
fn compact(
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    width: u16,
) -> (Vec<String>, Vec<Vec<String>>) {
    let is_ranking =
        headers.first().is_some_and(|h| h == "#") && headers.iter().any(|h| h == "verdict");
    if width >= COMPACT_BELOW || !is_ranking {
        return (headers, rows);
    }
    let keep: Vec<(usize, &str)> = headers
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            COMPACT_COLUMNS
                .iter()
                .find(|(long, _)| long == h)
                .map(|&(_, short)| (i, short))
        })
        .collect();
    let rows = rows
        .into_iter()
        .map(|r| keep.iter().map(|&(i, _)| r[i].clone()).collect())
        .collect();
    (keep.iter().map(|&(_, h)| h.to_owned()).collect(), rows)
}

/// Renders for a terminal.
pub struct TableRenderer;

impl Renderer for TableRenderer {
    fn render(&self, report: &Report) -> String {
        render_blocks(blocks(report))
    }
}

/// Renders format-neutral blocks for a terminal (also used by `pkadvisor fields`).
pub fn render_blocks(blocks: Vec<Block>) -> String {
    let mut out = String::new();
    let width = table_width();
    for b in blocks {
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
            Block::Candidate(_) => {}
            Block::Code(text) => {
                for l in text.lines() {
                    out.push_str("    ");
                    out.push_str(l);
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
                let (headers, rows) = compact(headers, rows, width);
                let mut t = Table::new();
                t.load_preset(UTF8_FULL_CONDENSED)
                    .set_content_arrangement(ContentArrangement::Dynamic)
                    .set_width(width)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_ranking_keeps_the_deciding_columns() {
        let headers: Vec<String> = [
            "#",
            "candidate",
            "kind",
            "verdict",
            "score",
            "gini",
            "largest partition",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let rows = vec![["1", "/userId", "single", "PASS", "71", "0.59", "95.4 KB"]
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()];
        let (h, r) = compact(headers.clone(), rows.clone(), 80);
        assert_eq!(h, ["#", "candidate", "verdict", "score", "largest"]);
        assert_eq!(r[0], ["1", "/userId", "PASS", "71", "95.4 KB"]);
        // Wide terminals and pipes keep every column; other tables are never cut.
        assert_eq!(
            compact(headers.clone(), rows.clone(), PIPED_WIDTH).0,
            headers
        );
        let other = vec!["logical partition".to_string(), "share".to_string()];
        assert_eq!(compact(other.clone(), vec![], 80).0, other);
    }

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
