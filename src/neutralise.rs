//! Output neutralisers: one per sink, applied to every string that came from data (key values,
//! property names, candidate names, file names, paths, messages that quote them) before it
//! reaches a terminal, a CI log, Markdown, HTML or SARIF. A leaf module: it imports nothing of
//! the crate, so any stage may call it.
//!
//! What each sink must never receive from data (`docs/hardening.md`, "Neutralised sinks"):
//!
//! - **terminal**: control characters (C0, DEL, C1), the bidirectional embeddings, overrides
//!   and isolates (U+202A–U+202E, U+2066–U+2069), the marks U+200E, U+200F, U+061C and the
//!   line and paragraph separators U+2028, U+2029. They are shown escaped as `\u001b`.
//! - **CI logs** (every terminal line may be one): GitHub's runner reads a workflow command
//!   from a line whose text, after leading whitespace, starts with `::`, and its legacy form
//!   `##[` anywhere in a line; Azure's agent reads `##vso[` anywhere in a line and formats
//!   `##[` lines. So a data string never carries a line break, never starts with `::` (the
//!   first colon is shown as `\u003a`) and never holds `##[` or `##vso[` (the second `#` is
//!   shown as `\u0023`); [`ci_lines`] checks a whole rendering the same way.
//! - **Markdown**: [`markdown_text`] turns data into literal text (no HTML, no entity, no
//!   emphasis, link, image, autolink, table pipe, list or heading marker, no line break);
//!   [`markdown_fence`] gives a code fence longer than any backtick run inside.
//! - **HTML**: [`html`] escapes `& < > " '`, the characters above and `##[`, `##vso[`.
//! - **SARIF**: [`uri`] percent-encodes a path into a URI reference.

use std::borrow::Cow;

/// Whether `c` is shown escaped in every sink: C0 and C1 controls, DEL, the bidirectional
/// formatting characters, the Unicode line and paragraph separators, and the invisible
/// characters that make two values look alike or hide text: zero-width space, non-joiner and
/// joiner (U+200B–U+200D), word joiner and invisible operators (U+2060–U+2064), the Mongolian
/// vowel separator (U+180E), the byte order mark (U+FEFF), interlinear annotation marks
/// (U+FFF9–U+FFFB) and the tag characters (U+E0000–U+E007F, which spell hidden ASCII).
pub fn is_hazard(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{2069}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}')
}

/// `\u` and four hex digits, as JSON writes a character: a tag character (above U+FFFF) as its
/// two UTF-16 surrogates (`\udb40\udc41`), so every escape has one length.
fn push_escaped(out: &mut String, c: char) {
    for unit in c.encode_utf16(&mut [0; 2]) {
        out.push_str(&format!("\\u{:04x}", unit));
    }
}

/// Whether `s` at byte `i` starts `##[` or `##vso[` (any case): a CI command anywhere in a line.
fn ci_marker_at(s: &str, i: usize) -> bool {
    let rest = &s.as_bytes()[i..];
    rest.starts_with(b"##")
        && (rest[2..].starts_with(b"[")
            || (rest.len() >= 6 && rest[2..6].eq_ignore_ascii_case(b"vso[")))
}

/// Whether `s` read as one log line starts a GitHub workflow command (`::` after whitespace).
fn starts_command(s: &str) -> bool {
    s.trim_start().starts_with("::")
}

/// `s` with hazards escaped (line feeds too unless `keep_newlines`), `##[`/`##vso[` broken with
/// `replacement` for the second `#`, and, at the start of each line, a leading `::` broken with
/// `colon` for the first colon.
fn neutral(s: &str, keep_newlines: bool, hash: &str, colon: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    // The byte of the colon to break: the first non-whitespace one of each line (found once
    // per line, so the work stays linear in the length of `s`).
    let command_at = |from: usize| {
        let line = &s[from..];
        let line = if keep_newlines {
            line.split('\n').next().unwrap_or("")
        } else {
            line
        };
        let ws = line.len() - line.trim_start().len();
        line[ws..].starts_with("::").then_some(from + ws)
    };
    let mut colon_at = command_at(0);
    for (i, c) in s.char_indices() {
        if Some(i) == colon_at {
            out.push_str(colon);
        } else if c == '\n' && keep_newlines {
            out.push('\n');
            colon_at = command_at(i + 1);
        } else if is_hazard(c) {
            push_escaped(&mut out, c);
        } else if c == '#' && i > 0 && ci_marker_at(s, i - 1) {
            out.push_str(hash);
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether `s` needs any change for a terminal.
fn terminal_clean(s: &str) -> bool {
    !s.chars().any(is_hazard) && !starts_command(s) && !s.contains("##")
}

/// A data string for a terminal or a CI log, on one line: hazards shown as `\u001b`, a leading
/// `::` as `\u003a:`, `##[` and `##vso[` as `#\u0023[` and `#\u0023vso[`.
pub fn terminal(s: &str) -> Cow<'_, str> {
    if terminal_clean(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(neutral(s, false, "\\u0023", "\\u003a"))
}

/// [`terminal`] for text of several lines (a code block): line feeds kept, every line neutralised.
pub fn terminal_lines(s: &str) -> Cow<'_, str> {
    if !s.contains("::") && !s.contains("##") && !s.chars().any(|c| c != '\n' && is_hazard(c)) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(neutral(s, true, "\\u0023", "\\u003a"))
}

/// Whether a line of output would be read as a CI command by GitHub's runner or Azure's agent.
pub fn is_ci_command(line: &str) -> bool {
    starts_command(line)
        || (0..line.len()).any(|i| line.is_char_boundary(i) && ci_marker_at(line, i))
}

/// A whole rendering checked line by line before it is printed: a line that would be read as a
/// CI command ([`is_ci_command`]) is neutralised as [`terminal_lines`] does; other lines, and
/// the ANSI colours a table may carry, are left as they are.
pub fn ci_lines(text: &str) -> Cow<'_, str> {
    if !text.split('\n').any(is_ci_command) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if is_ci_command(line) {
            out.push_str(&neutral_keep_controls(line));
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

/// [`neutral`] for one line that may hold this program's own ANSI colours: only the CI markers.
fn neutral_keep_controls(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    let mut start = true;
    for (i, c) in line.char_indices() {
        if start && !c.is_whitespace() {
            start = false;
            if starts_command(&line[i..]) {
                out.push_str("\\u003a");
                continue;
            }
        }
        if c == '#' && i > 0 && ci_marker_at(line, i - 1) {
            out.push_str("\\u0023");
        } else {
            out.push(c);
        }
    }
    out
}

/// A data string as literal Markdown text inside a line (a table cell, after a list marker's
/// text): `& < >` as entities (no HTML, no entity, no autolink `<…>`), ``\ ` * _ [ ] ~ | $``
/// backslash-escaped (no emphasis, code, link, image, strikethrough, cell split or math), the
/// second `#` of `##[` and `##vso[` as `\#` (no CI command in the raw text a CI log shows), `@` as `&#64;` and
/// `://`, `www.` broken (no email or URL autolink), and hazards shown as `\u001b` (so no line
/// break).
pub fn markdown_text(s: &str) -> String {
    markdown(s, false)
}

/// [`markdown_text`] for text that starts a line (a paragraph line, a heading, a list item):
/// also a leading `# - + = > :` or `1.` escaped, so no heading, list, quote, setext underline
/// or `::` command starts there, and leading spaces cannot make a code block.
pub fn markdown_line(s: &str) -> String {
    markdown(s, true)
}

fn markdown(s: &str, line: bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let lead = s.len() - s.trim_start_matches(' ').len();
    let ws = s.len() - s.trim_start().len();
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let at_start = line && i == lead;
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' if !at_start => out.push_str("&gt;"),
            '@' => out.push_str("&#64;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '~' | '|' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '#' if i > 0 && ci_marker_at(s, i - 1) => out.push_str("\\#"),
            ':' if i == ws && starts_command(s) => out.push_str("\\:"),
            '-' | '+' | '=' | '#' | '>' if at_start => {
                out.push('\\');
                out.push(c);
            }
            '0'..='9' if at_start => {
                // An ordered list marker is digits then `.` or `)`: escape that character.
                out.push(c);
                while let Some(&(_, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    out.push(d);
                    chars.next();
                }
                if let Some(&(_, d @ ('.' | ')'))) = chars.peek() {
                    out.push('\\');
                    out.push(d);
                    chars.next();
                }
            }
            ' ' if line && i == 0 => out.push_str("&#32;"),
            c if is_hazard(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out.replace("://", "&#58;//").replace("www.", "www&#46;")
}

/// A data string as a Markdown code span (GitHub reads no HTML, entity, link, autolink or
/// mention inside one): fenced by a backtick run longer than any inside, padded with a space
/// when the value starts or ends with a backtick, hazards and CI markers neutralised as for a
/// terminal (no line break), and in a table cell (`in_cell`) pipes as `\|`.
pub fn markdown_code_span(s: &str, in_cell: bool) -> String {
    let body = terminal(s);
    let body = if in_cell {
        body.replace('|', "\\|")
    } else {
        body.into_owned()
    };
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') || body.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// Text that quotes values in backticks (findings do: ``the largest key `x` holds 40%``) as
/// Markdown: each quoted part a [`markdown_code_span`], the rest [`markdown_text`] (the first
/// part [`markdown_line`] when `line`). A quote opens at a backtick at the start or after a
/// space or an opening bracket, and closes at the next backtick followed by the end, a space or
/// punctuation, so a value holding a backtick (``the largest key `a`b` holds``) is still one
/// code span, not a line of escaped backticks; a backtick that opens nothing is literal text.
pub fn markdown_inline(s: &str, line: bool, in_cell: bool) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut text_from = 0;
    let mut at = 0;
    while let Some(open) = s[at..].find('`').map(|i| at + i) {
        let opens = s[..open]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | '"' | '\''));
        let close = s[open + 1..]
            .match_indices('`')
            .map(|(i, _)| open + 1 + i)
            .find(|&j| {
                s[j + 1..].chars().next().is_none_or(|c| {
                    c.is_whitespace()
                        || matches!(
                            c,
                            '.' | ',' | ';' | ':' | ')' | ']' | '!' | '?' | '"' | '\''
                        )
                })
            });
        match (opens, close) {
            (true, Some(close)) if close > open + 1 => {
                if open > text_from || text_from == 0 {
                    out.push_str(&markdown(&s[text_from..open], line && text_from == 0));
                }
                out.push_str(&markdown_code_span(&s[open + 1..close], in_cell));
                text_from = close + 1;
                at = close + 1;
            }
            _ => at = open + 1,
        }
    }
    if text_from < s.len() || text_from == 0 {
        out.push_str(&markdown(&s[text_from..], line && text_from == 0));
    }
    out
}

/// A code fence for `text`: backticks, one more than the longest run inside and at least three.
pub fn markdown_fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// A data string as HTML text or attribute value: `& < > " '` as entities, hazards shown as
/// `\u001b`, the second `#` of `##[` and `##vso[` as `&#35;` and a leading `::` as `&#58;:` (no CI command
/// in the page's source, which may be printed to a CI log; line feeds are escaped too).
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let lead = s.len() - s.trim_start().len();
    for (i, c) in s.char_indices() {
        match c {
            ':' if i == lead && starts_command(s) => out.push_str("&#58;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '#' if i > 0 && ci_marker_at(s, i - 1) => out.push_str("&#35;"),
            c if is_hazard(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// [`html`] for preformatted text of several lines: line feeds kept, and a line that would
/// start with `::` gets its first colon as `&#58;`.
pub fn html_lines(s: &str) -> String {
    s.split('\n')
        .map(|l| {
            let e = html(l);
            if starts_command(&e) {
                let at = e.find(':').unwrap_or(0);
                format!("{}&#58;{}", &e[..at], &e[at + 1..])
            } else {
                e
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file path as a SARIF `artifactLocation.uri`: a relative reference with every byte outside
/// RFC 3986's unreserved characters and `/` percent-encoded (`a b#1.jsonl` → `a%20b%231.jsonl`);
/// an absolute path becomes a `file://` URI; Windows separators become `/`.
pub fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::with_capacity(path.len() + 8);
    let absolute = path.starts_with('/');
    let b = path.as_bytes();
    let windows_drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && &b[1..3] == b":/";
    if absolute {
        out.push_str("file://");
    } else if windows_drive {
        out.push_str("file:///");
    }
    for (i, b) in path.bytes().enumerate() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/')
            || (windows_drive && i == 1);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Serialized JSON made safe for a terminal or CI log without changing any value: inside
/// strings, DEL, C1 controls and the bidirectional characters become `\u` escapes (serde_json
/// already escapes C0), and the second `#` of `##[`/`##vso[` becomes `\u0023`. Outside strings
/// JSON holds none of these characters.
pub fn json(serialized: String) -> String {
    if !serialized.contains("##") && !serialized.chars().any(is_hazard) {
        return serialized;
    }
    let mut out = String::with_capacity(serialized.len() + 16);
    for (i, c) in serialized.char_indices() {
        if is_hazard(c) && c != '\n' {
            push_escaped(&mut out, c);
        } else if c == '#' && i > 0 && ci_marker_at(&serialized, i - 1) {
            out.push_str("\\u0023");
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
