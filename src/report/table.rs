//! The terminal renderer: comfy-table tables between plain lines, verdicts and severities in
//! colour when the output is a terminal (anstream's reading of `--color`, `NO_COLOR`,
//! `CLICOLOR`, `CLICOLOR_FORCE` and `TERM`).

use anstyle::{AnsiColor, Style};
use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Attribute, Cell, Color, ContentArrangement, Table,
};

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

/// Whether to colour a rendering: `--color always` colours wherever it goes, `never` nowhere;
/// `auto` (the default) only standard output (`to_stdout`), and only when anstream finds a
/// terminal that takes colour there, with neither `NO_COLOR` nor `CLICOLOR=0` set, or
/// `CLICOLOR_FORCE` set. A file written with `-o` stays plain under `auto`.
pub fn use_color(to_stdout: bool) -> bool {
    use anstream::ColorChoice;
    match ColorChoice::global() {
        ColorChoice::Always | ColorChoice::AlwaysAnsi => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            to_stdout
                && matches!(
                    anstream::AutoStream::choice(&std::io::stdout()),
                    ColorChoice::Always | ColorChoice::AlwaysAnsi
                )
        }
    }
}

/// The colour of a verdict or severity word: PASS green, WARN yellow, FAIL red, INFO cyan.
fn word_color(word: &str) -> Option<(AnsiColor, Color)> {
    match word {
        "PASS" => Some((AnsiColor::Green, Color::DarkGreen)),
        "WARN" => Some((AnsiColor::Yellow, Color::DarkYellow)),
        "FAIL" => Some((AnsiColor::Red, Color::DarkRed)),
        "INFO" => Some((AnsiColor::Cyan, Color::DarkCyan)),
        _ => None,
    }
}

fn painted(word: &str, color: AnsiColor) -> String {
    let style = Style::new().fg_color(Some(color.into())).bold();
    format!("{style}{word}{style:#}")
}

/// Colours the verdict or severity of one line of text: a leading label (`FAIL CODE: …`,
/// `- WARN …`), else a closing verdict (`#1 /a (single): PASS`, `Recommendation: /a (WARN)`).
pub fn paint_line(line: &str) -> String {
    let rest = line.trim_start_matches([' ', '-']);
    let lead = &line[..line.len() - rest.len()];
    if let Some((word, tail)) = rest.split_once(' ') {
        if let Some((c, _)) = word_color(word) {
            return format!("{lead}{} {tail}", painted(word, c));
        }
    }
    let body = line.trim_end_matches(')');
    if let Some(at) = body.rfind([' ', '(']).map(|i| i + 1) {
        if let Some((c, _)) = word_color(&body[at..]) {
            let end = body.len();
            return format!(
                "{}{}{}",
                &line[..at],
                painted(&line[at..end], c),
                &line[end..]
            );
        }
    }
    line.to_string()
}

/// Every line of `text` through [`paint_line`].
pub fn paint_lines(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|l| match l.strip_suffix('\n') {
            Some(body) => paint_line(body) + "\n",
            None => paint_line(l),
        })
        .collect()
}

/// Renders for a terminal; `color` paints verdicts and severities (decide it with
/// [`use_color`]).
pub struct TableRenderer {
    /// Paint verdicts and severities.
    pub color: bool,
}

impl Renderer for TableRenderer {
    fn render(&self, report: &Report) -> String {
        render_blocks_styled(blocks(report), self.color)
    }
}

/// Renders format-neutral blocks for a terminal, without colour (also used by `pkadvisor fields`).
pub fn render_blocks(blocks: Vec<Block>) -> String {
    render_blocks_styled(blocks, false)
}

/// Renders format-neutral blocks for a terminal; `color` paints verdicts and severities.
pub fn render_blocks_styled(blocks: Vec<Block>, color: bool) -> String {
    render_blocks_at(blocks, color, table_width())
}

/// Renders format-neutral blocks with tables fitted to `width` columns (snapshot tests fix it).
pub fn render_blocks_at(blocks: Vec<Block>, color: bool, width: u16) -> String {
    let paint = |s: &str| if color { paint_line(s) } else { s.to_string() };
    let mut out = String::new();
    for b in blocks {
        match b {
            Block::Heading(level, text) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&paint(&text));
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
                    out.push_str(&paint(&i));
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
                if color {
                    t.enforce_styling().style_text_only();
                } else {
                    t.force_no_tty();
                }
                for r in rows {
                    t.add_row(r.into_iter().map(|c| {
                        let cell = Cell::new(shorten(&c));
                        match word_color(&c).filter(|_| color) {
                            Some((_, fg)) => cell.fg(fg).add_attribute(Attribute::Bold),
                            None => cell,
                        }
                    }));
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
    fn verdicts_and_severities_are_painted() {
        let red = |w: &str| painted(w, AnsiColor::Red);
        assert_eq!(red("FAIL"), "\x1b[1m\x1b[31mFAIL\x1b[0m");
        assert_eq!(
            paint_line("FAIL HOT: x PASS"),
            format!("{} HOT: x PASS", red("FAIL"))
        );
        assert_eq!(
            paint_line("  - WARN LOW: y"),
            format!("  - {} LOW: y", painted("WARN", AnsiColor::Yellow))
        );
        assert_eq!(
            paint_line("#1 /a (single): PASS"),
            format!("#1 /a (single): {}", painted("PASS", AnsiColor::Green))
        );
        assert_eq!(
            paint_line("Recommendation: /a (WARN)"),
            format!(
                "Recommendation: /a ({})",
                painted("WARN", AnsiColor::Yellow)
            )
        );
        assert_eq!(paint_line("PASSWORD is FAILING"), "PASSWORD is FAILING");
        assert_eq!(
            paint_lines("a\nGate for key /a: FAIL\n"),
            format!("a\nGate for key /a: {}\n", red("FAIL"))
        );
    }

    #[test]
    fn a_table_paints_only_when_asked() {
        let b = || {
            vec![Block::Table {
                headers: vec!["verdict".into()],
                rows: vec![vec!["FAIL".into()], vec!["PASS".into()]],
            }]
        };
        let plain = render_blocks_styled(b(), false);
        assert!(!plain.contains('\x1b'), "{plain}");
        let styled = render_blocks_styled(b(), true);
        assert!(styled.contains("\x1b[38;5;1m"), "{styled:?}");
        assert!(styled.contains("\x1b[38;5;2m"), "{styled:?}");
        // Same layout: only the escapes differ.
        let strip = |s: &str| {
            let mut out = String::new();
            let mut esc = false;
            for c in s.chars() {
                match (esc, c) {
                    (false, '\x1b') => esc = true,
                    (true, 'm') => esc = false,
                    (true, _) => {}
                    (false, c) => out.push(c),
                }
            }
            out
        };
        assert_eq!(strip(&styled), plain);
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
