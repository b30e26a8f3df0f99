//! The terminal renderer: comfy-table tables between plain lines, verdicts and severities in
//! colour when the output is a terminal (anstream's reading of `--color`, `NO_COLOR`,
//! `CLICOLOR`, `CLICOLOR_FORCE` and `TERM`).

use anstyle::{AnsiColor, Style};
use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Attribute, Cell, Color, ColumnConstraint, ContentArrangement,
    Table, Width,
};

use super::sections::{blocks, Block};
use super::Renderer;
use crate::model::Report;

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
    ("logical partitions", "logical"),
    ("largest partition", "est. max"),
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
    if width < COMPACT_BELOW && headers.first().is_some_and(|h| h == "EPK range") {
        return compact_layout(headers, rows);
    }
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
    // The largest partition's 95 % range is in each candidate's details below: a narrow
    // ranking keeps the point, so the column does not wrap into four lines.
    let point_only = headers.iter().position(|h| h == "largest partition");
    let counts = headers.iter().position(|h| h == "logical partitions");
    let mut rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| {
            keep.iter()
                .map(
                    |&(i, _)| match (Some(i) == point_only, r[i].split_once(" (")) {
                        (true, Some((point, _))) => point.to_string(),
                        _ if Some(i) == counts => short_counts(&r[i]),
                        _ => r[i].clone(),
                    },
                )
                .collect()
        })
        .collect();
    let mut headers: Vec<String> = keep.iter().map(|&(_, h)| h.to_owned()).collect();
    // Until every header and value can stay whole: long specs may break after their `>` and
    // `+` (each candidate's heading below keeps it whole), then the score goes (it is in the
    // details below too).
    if bounds_for(&headers, &rows, width, true).is_none() {
        if let Some(i) = headers.iter().position(|h| h == "candidate") {
            for r in &mut rows {
                r[i] = r[i].replace('>', "> ").replace('+', "+ ");
            }
        }
    }
    if bounds_for(&headers, &rows, width, true).is_none() {
        if let Some(i) = headers.iter().position(|h| h == "score") {
            headers.remove(i);
            for r in &mut rows {
                r.remove(i);
            }
        }
    }
    (headers, rows)
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

/// The physical layout on a narrow terminal: the storage bar goes (bytes are beside it) and
/// utilisation keeps its percentage, so a row stays one or two lines.
fn compact_layout(headers: Vec<String>, rows: Vec<Vec<String>>) -> (Vec<String>, Vec<Vec<String>>) {
    let drop = headers.iter().position(|h| h.starts_with("storage ("));
    let util = headers.iter().position(|h| h == "utilisation");
    let keep = |i: &usize| Some(*i) != drop;
    let headers = (0..headers.len())
        .filter(keep)
        .map(|i| match headers[i].as_str() {
            "RU/s allocated" => "RU/s alloc.".to_string(),
            h => h.to_string(),
        })
        .collect();
    let rows = rows
        .into_iter()
        .map(|r| {
            (0..r.len())
                .filter(keep)
                .map(|i| match (Some(i) == util, r[i].split_once(' ')) {
                    (true, Some((_bar, pct))) => pct.to_string(),
                    _ => r[i].clone(),
                })
                .collect()
        })
        .collect();
    (headers, rows)
}

/// Each column's longest word (a key spec counts as one) plus padding, when all of them fit in
/// `width`; else the same for the cells alone (a header may then break, a value not); else
/// none (comfy-table then cuts where it must).
fn word_bounds(headers: &[String], rows: &[Vec<String>], width: u16) -> Vec<u16> {
    bounds_for(headers, rows, width, true)
        .or_else(|| bounds_for(headers, rows, width, false))
        .unwrap_or_default()
}

/// [`word_bounds`] with or without the headers' words; `None` when they do not fit.
fn bounds_for(
    headers: &[String],
    rows: &[Vec<String>],
    width: u16,
    with_headers: bool,
) -> Option<Vec<u16>> {
    // A size (`235 B`, `28.6 GB`) counts as one word: split, it reads as two values.
    let longest_word = |s: &str| {
        let mut longest = 0;
        let mut prev = 0;
        for w in s.split(' ') {
            let n = w.chars().count();
            let n = if matches!(w, "B" | "KB" | "MB" | "GB" | "TB" | "PB") {
                prev + 1 + n
            } else {
                n
            };
            longest = longest.max(n);
            prev = n;
        }
        longest
    };
    let bounds: Vec<u16> = (0..headers.len())
        .map(|i| {
            let cells = rows.iter().map(|r| longest_word(&r[i]));
            let header = if with_headers {
                longest_word(&headers[i])
            } else {
                0
            };
            let w = cells.chain([header]).max().unwrap_or(0);
            (w + 2).min(usize::from(width) / 3) as u16
        })
        .collect();
    // Content plus one border per column and the closing one.
    let total: usize = bounds.iter().map(|&b| usize::from(b) + 1).sum::<usize>() + 1;
    (total <= usize::from(width)).then_some(bounds)
}

/// Counts of a million or more in `cell` written short (`220,816,033` → `220.8M`), so a narrow
/// column does not cut them; the details below keep them whole.
fn short_counts(cell: &str) -> String {
    cell.split(' ')
        .map(|word| {
            let digits: String = word.chars().filter(char::is_ascii_digit).collect();
            let is_count = word
                .trim_matches(|c| c == '(' || c == ')')
                .chars()
                .all(|c| c.is_ascii_digit() || c == ',');
            match digits.parse::<f64>() {
                Ok(n) if is_count && n >= 1e6 => {
                    let (v, unit) = if n >= 1e9 {
                        (n / 1e9, "B")
                    } else {
                        (n / 1e6, "M")
                    };
                    let short = format!("{v:.1}{unit}");
                    word.replace(word.trim_matches(|c| c == '(' || c == ')'), &short)
                }
                _ => word.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
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
/// Like every rendering for a terminal, checked for CI commands line by line at the end.
pub fn render_blocks(blocks: Vec<Block>) -> String {
    render_blocks_styled(blocks, false)
}

/// Renders format-neutral blocks for a terminal; `color` paints verdicts and severities.
/// On a terminal, prose is wrapped at its width too; a pipe or a file gets it unwrapped.
pub fn render_blocks_styled(blocks: Vec<Block>, color: bool) -> String {
    let on_terminal = Table::new().width().is_some();
    let out = render_blocks_at(blocks, color, table_width(), on_terminal);
    crate::neutralise::ci_lines(&out).into_owned()
}

/// Wraps `text` on spaces so no line passes `width` columns (a longer word keeps its own
/// line): the first line starts with `first`, the others with `indent`.
pub fn wrap(text: &str, width: usize, first: &str, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut len = first.chars().count();
    let mut empty = true;
    for word in text.split(' ') {
        let w = word.chars().count();
        if !empty && len + 1 + w > width {
            lines.push(std::mem::replace(&mut line, indent.to_string()));
            len = indent.chars().count();
            empty = true;
        }
        if !empty {
            line.push(' ');
            len += 1;
        }
        line.push_str(word);
        len += w;
        empty = false;
    }
    lines.push(line);
    lines
}

/// Renders format-neutral blocks with tables fitted to `width` columns and, with `wrap_text`,
/// prose wrapped at it (snapshot tests fix both).
/// Every string from data is shown through `crate::neutralise::terminal` first: no control or
/// bidi character, no line break and no CI command from data reaches the terminal.
pub fn render_blocks_at(blocks: Vec<Block>, color: bool, width: u16, wrap_text: bool) -> String {
    let blocks = blocks.into_iter().map(|b| {
        b.map_text(
            |s| crate::neutralise::terminal(s).into_owned(),
            |s| crate::neutralise::terminal_lines(s).into_owned(),
        )
    });
    let paint = |s: &str| if color { paint_line(s) } else { s.to_string() };
    let cols = if wrap_text {
        usize::from(width)
    } else {
        usize::MAX
    };
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
                for l in lines.iter().flat_map(|l| wrap(l, cols, "", "")) {
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
                    // The severity label is on the first line: paint that one.
                    for (n, l) in wrap(&i, cols, "  - ", "    ").into_iter().enumerate() {
                        out.push_str(&if n == 0 { paint(&l) } else { l });
                        out.push('\n');
                    }
                }
            }
            Block::Table { headers, rows } => {
                out.push_str(&terminal_table(headers, rows, color, width));
                out.push('\n');
            }
        }
    }
    out
}

/// A table drawn with box characters and fitted to `width` columns (narrow terminals get
/// fewer columns, [`compact`]); with `color`, verdict and severity words are painted.
fn terminal_table(headers: Vec<String>, rows: Vec<Vec<String>>, color: bool, width: u16) -> String {
    let (headers, rows) = compact(headers, rows, width);
    // On a narrow terminal no column is cut inside a word (`/tenantId>/us`
    // `erId>/id`, `220` `,816,033`) while the table can fit without it.
    let bounds = (width < COMPACT_BELOW).then(|| word_bounds(&headers, &rows, width));
    let ncols = headers.len().max(1);
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(headers);
    // Only where a column would be narrower than its longest word: a bound on
    // every column stops comfy-table from widening the ones that need it.
    let natural = usize::from(width).saturating_sub(ncols + 1) / ncols;
    for (i, w) in bounds.into_iter().flatten().enumerate() {
        if usize::from(w) < natural {
            continue;
        }
        if let Some(c) = t.column_mut(i) {
            c.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(w)));
        }
    }
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
    t.to_string()
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
        assert_eq!(h, ["#", "candidate", "verdict", "score", "est. max"]);
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
    fn narrow_cells_keep_their_words() {
        assert_eq!(
            short_counts("3,000 (est. 220,816,033)"),
            "3,000 (est. 220.8M)"
        );
        assert_eq!(short_counts("45 (est. 61)"), "45 (est. 61)");
        assert_eq!(short_counts("1,234,567,890"), "1.2B");
        let h = vec!["#".to_string(), "candidate".to_string()];
        let rows = vec![vec!["1".to_string(), "/tenantId>/userId>/id".to_string()]];
        assert_eq!(word_bounds(&h, &rows, 80), [3, 23]);
        let size = vec![vec!["28.6 GB (est.)".to_string()]];
        assert_eq!(word_bounds(&["x".to_string()], &size, 80), [9]);
        // Headers give way first; when the cells' words cannot fit either, no bound is set.
        let wide = vec!["a header".to_string(), "another header".to_string()];
        let cells = vec![vec!["1".to_string(), "2".to_string()]];
        assert_eq!(word_bounds(&wide, &cells, 80), [8, 9]);
        // Bounds are capped at a third of the width.
        assert_eq!(word_bounds(&wide, &cells, 16), [5, 5]);
        let long = |n: usize| vec!["x".repeat(20); n];
        assert!(word_bounds(&long(4), &[long(4)], 40).is_empty());
    }

    #[test]
    fn a_narrow_layout_drops_the_bars() {
        let h: Vec<String> = ["EPK range", "bytes", "storage (of 50 GB)", "utilisation"]
            .map(String::from)
            .to_vec();
        let r = vec![["[\"\", FF)", "1.0 GB", "#.........", "####...... 41.0%"]
            .map(String::from)
            .to_vec()];
        let (h2, r2) = compact(h.clone(), r.clone(), 80);
        assert_eq!(h2, ["EPK range", "bytes", "utilisation"]);
        assert_eq!(r2[0], ["[\"\", FF)", "1.0 GB", "41.0%"]);
        assert_eq!(compact(h.clone(), r.clone(), 160), (h, r));
    }

    #[test]
    fn prose_wraps_on_spaces() {
        assert_eq!(
            wrap("aa bb cc dd", 9, "  - ", "    "),
            ["  - aa bb", "    cc dd"]
        );
        assert_eq!(wrap("abcdefghijkl x", 5, "", ""), ["abcdefghijkl", "x"]);
        assert_eq!(wrap("short", 80, "", ""), ["short"]);
        assert_eq!(wrap("a b", usize::MAX, "", ""), ["a b"]);
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
        let plain = render_blocks_at(b(), false, 160, false);
        assert!(!plain.contains('\x1b'), "{plain}");
        let styled = render_blocks_at(b(), true, 160, false);
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
