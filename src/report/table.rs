//! The terminal renderer: comfy-table tables between plain lines, verdicts and severities in
//! colour when the output is a terminal (anstream's reading of `--color`, `NO_COLOR`,
//! `CLICOLOR`, `CLICOLOR_FORCE` and `TERM`).

use anstyle::{AnsiColor, Style};
use comfy_table::{
    presets::UTF8_FULL_CONDENSED, Attribute, Cell, Color, ColumnConstraint, ContentArrangement,
    Table, Width,
};

use super::sections::{blocks_view, Block, View};
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

/// Table width when standard output is not a terminal and `COLUMNS` is not set (a file, a
/// pipe, CI logs): 100 columns read well in a log viewer and a pull request.
pub const PIPED_WIDTH: u16 = 100;

/// Narrowest table drawn: below it columns would hold a character or two.
pub const MIN_WIDTH: u16 = 40;

/// Widest table drawn: beyond it a `COLUMNS` typo would make one line of a whole file.
pub const MAX_WIDTH: u16 = 1000;

/// The width tables are fitted to: the terminal's when standard output is one, else the
/// `COLUMNS` environment variable when it holds a number, else [`PIPED_WIDTH`]; never below
/// [`MIN_WIDTH`] or above [`MAX_WIDTH`].
pub fn table_width() -> u16 {
    let columns = std::env::var("COLUMNS").ok();
    width_from(Table::new().width(), columns.as_deref())
}

/// [`table_width`] from its two sources: the terminal's width, else `COLUMNS`.
pub fn width_from(terminal: Option<u16>, columns: Option<&str>) -> u16 {
    terminal
        .or_else(|| columns.and_then(|c| c.trim().parse::<u16>().ok()))
        .unwrap_or(PIPED_WIDTH)
        .clamp(MIN_WIDTH, MAX_WIDTH)
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
    /// How much of the report to show.
    pub view: View,
}

impl Renderer for TableRenderer {
    fn render(&self, report: &Report) -> String {
        render_blocks_styled(blocks_view(report, self.view), self.color)
    }
}

/// Renders format-neutral blocks for a terminal, without colour (also used by `pkadvisor fields`).
/// Like every rendering for a terminal, checked for CI commands line by line at the end.
pub fn render_blocks(blocks: Vec<Block>) -> String {
    render_blocks_styled(blocks, false)
}

/// Renders format-neutral blocks for a terminal; `color` paints verdicts and severities.
/// On a terminal, or when `COLUMNS` states a width, prose is wrapped at that width too; a pipe
/// or a file without `COLUMNS` gets it unwrapped.
pub fn render_blocks_styled(blocks: Vec<Block>, color: bool) -> String {
    let (width, given) = given_width();
    let out = render_blocks_at(blocks, color, width, given);
    crate::neutralise::ci_lines(&out).into_owned()
}

/// The width to fit ([`table_width`]) and whether one was given (a terminal, or `COLUMNS`
/// holding a number): prose is wrapped only then.
pub fn given_width() -> (u16, bool) {
    let columns = std::env::var("COLUMNS").ok();
    let terminal = Table::new().width();
    let given = terminal.is_some()
        || columns
            .as_deref()
            .is_some_and(|c| c.trim().parse::<u16>().is_ok());
    (width_from(terminal, columns.as_deref()), given)
}

/// Lines of plain text (a `- ` bullet continued under its text) wrapped on spaces at `width`.
pub fn wrap_text(text: &str, width: usize) -> String {
    let mut out = String::new();
    for l in text.lines() {
        let lines = match l.strip_prefix("- ") {
            Some(item) => wrap(item, width, "- ", "  "),
            None => wrap(l, width, "", ""),
        };
        for w in lines {
            out.push_str(&w);
            out.push('\n');
        }
    }
    out
}

/// Units that stay on the line of the number before them (`14.0 GB`, `1,663 RU/s`).
const UNITS: [&str; 9] = ["B", "KB", "MB", "GB", "TB", "PB", "RU/s", "RU", "USD"];

/// The words of `text`, a unit joined to the number before it so wrapping never parts them.
fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(' ') {
        let bare = word.trim_end_matches([',', ';', ':', '.', ')', ']']);
        let after_number = out
            .last()
            .and_then(|w| w.chars().last())
            .is_some_and(|c| c.is_ascii_digit());
        match out.last_mut() {
            Some(prev) if after_number && UNITS.contains(&bare) => {
                prev.push(' ');
                prev.push_str(word);
            }
            _ => out.push(word.to_owned()),
        }
    }
    out
}

/// Wraps `text` on spaces so no line passes `width` columns (a longer word keeps its own
/// line; a number keeps its unit): the first line starts with `first`, the others with `indent`.
pub fn wrap(text: &str, width: usize, first: &str, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut len = first.chars().count();
    let mut empty = true;
    for word in words(text) {
        let word = word.as_str();
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

/// A line of a code block, indented by four spaces; a command line (one holding ` --`) wider
/// than `width` is continued on the next lines with a trailing ` \\`, as a shell reads it (a
/// `# ` comment on lines that are comments too), and broken only between its words.
pub fn continued(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() + 4 <= width || !line.contains(" --") {
        return vec![format!("    {line}")];
    }
    // A shell comment goes on as a comment; a command keeps two columns for its ` \\`.
    if let Some(rest) = line.strip_prefix("# ") {
        return wrap(rest, width, "    # ", "    # ");
    }
    let mut lines = wrap(line, width.saturating_sub(2), "    ", "      ");
    let last = lines.len() - 1;
    for l in &mut lines[..last] {
        l.push_str(" \\");
    }
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
                for l in text.lines().flat_map(|l| continued(l, cols)) {
                    out.push_str(&l);
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

/// A table drawn with box characters and fitted to `width` columns by [`super::fit::fit`]
/// (never a word broken while the table can fit without it; the columns left out are named
/// under it); with `color`, verdict and severity words are painted.
fn terminal_table(headers: Vec<String>, rows: Vec<Vec<String>>, color: bool, width: u16) -> String {
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| r.iter().map(|c| shorten(c)).collect())
        .collect();
    let fitted = super::fit::fit(headers, rows, width);
    let ncols = fitted.headers.len().max(1);
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(width)
        .set_header(fitted.headers);
    // Every column at least as wide as its longest word: comfy-table shares what is left.
    let _ = ncols;
    for (i, w) in fitted.bounds.into_iter().enumerate() {
        if let Some(c) = t.column_mut(i) {
            c.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(w)));
        }
    }
    if color {
        t.enforce_styling().style_text_only();
    } else {
        t.force_no_tty();
    }
    for r in fitted.rows {
        t.add_row(r.into_iter().map(|c| {
            let paint = word_color(&c).filter(|_| color);
            let cell = Cell::new(c);
            match paint {
                Some((_, fg)) => cell.fg(fg).add_attribute(Attribute::Bold),
                None => cell,
            }
        }));
    }
    let mut out = t.to_string();
    if !fitted.left_out.is_empty() {
        let note = format!(
            "(left out to fit {width} columns: {}; a wider terminal or COLUMNS shows them)",
            fitted.left_out.join(", ")
        );
        for l in wrap(&note, usize::from(width), "", "") {
            out.push('\n');
            out.push_str(&l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_command_is_continued_between_words() {
        let cmd = "az cosmosdb sql container create --account-name <account> --partition-key-path /location/address/city";
        let lines = continued(cmd, 40);
        assert_eq!(
            lines,
            [
                "    az cosmosdb sql container create \\",
                "      --account-name <account> \\",
                "      --partition-key-path \\",
                "      /location/address/city",
            ]
        );
        // Joined back as a shell joins continued lines, it is the command as written.
        let joined: Vec<&str> = lines
            .iter()
            .map(|l| l.trim().trim_end_matches(" \\"))
            .collect();
        assert_eq!(joined.join(" "), cmd);
        assert_eq!(continued("{", 40), ["    {"]);
        // A comment is continued as a comment, never as a command.
        assert_eq!(
            continued(
                "# several --partition-key-path values; if yours does not",
                40
            ),
            [
                "    # several --partition-key-path",
                "    # values; if yours does not"
            ]
        );
        assert_eq!(continued(cmd, usize::MAX), [format!("    {cmd}")]);
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
        // A number keeps its unit: `14.0 GB` is never split across lines.
        assert_eq!(
            wrap("alert level is 14.0 GB, at 1,663 RU/s", 18, "", ""),
            ["alert level is", "14.0 GB, at", "1,663 RU/s"]
        );
        assert_eq!(
            wrap("level is 14.0 GB.", 15, "", ""),
            ["level is", "14.0 GB."]
        );
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
