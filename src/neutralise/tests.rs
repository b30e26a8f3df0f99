//! Each sink's neutraliser over generated hostile strings (a small deterministic generator:
//! the same 3,000 strings on every run), with a checker per sink, and the examples the
//! security review found.

use super::*;

/// Pieces hostile to some sink: CI commands, controls, bidi, HTML, Markdown, Mermaid.
const PIECES: &[&str] = &[
    "::",
    "::error::x",
    "##",
    "##[",
    "##vso[",
    "##VSO[",
    "#",
    "vso[",
    "[",
    "]",
    "\n",
    "\r",
    "\r\n",
    "\u{1b}[31m",
    "\u{7}",
    "\u{0}",
    "\t",
    "\u{7f}",
    "\u{85}",
    "\u{9b}",
    "\u{202e}",
    "\u{2066}",
    "\u{2069}",
    "\u{200f}",
    "\u{2028}",
    "\u{2029}",
    "\u{a0}",
    "\u{3000}",
    "<",
    ">",
    "&",
    "&amp;",
    "&#64;",
    "\"",
    "'",
    "`",
    "```",
    "|",
    "*",
    "_",
    "~",
    "$",
    "\\",
    "\\u001b",
    "(",
    ")",
    ";",
    "%",
    ":",
    "=",
    "-",
    "+",
    "1.",
    "2)",
    " ",
    "    ",
    "a",
    "é",
    "漢",
    "😀",
    "http://x.io",
    "www.x.io",
    "@user",
    "a@b.co",
    "</details>",
    "<img src=x onerror=alert(1)>",
    "[a](javascript:alert(1))",
    "\"]; click A call evil()",
    "task.setvariable variable=x]y",
    "add-mask::z",
    "\u{200b}",
    "\u{2060}",
    "\u{feff}",
    "\u{e0041}\u{e0042}",
];

/// A xorshift generator: deterministic, no dependency.
struct Gen(crate::testing::XorShift);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0.next()
    }

    fn string(&mut self) -> String {
        let n = (self.next() % 12) as usize;
        (0..n)
            .map(|_| PIECES[(self.next() % PIECES.len() as u64) as usize])
            .collect()
    }
}

/// The generated strings every property runs over, and the pieces alone and in pairs.
fn hostile() -> Vec<String> {
    let mut g = Gen(crate::testing::XorShift(0x9E37_79B9_7F4A_7C15));
    let mut out: Vec<String> = (0..3000).map(|_| g.string()).collect();
    for a in PIECES {
        out.push(a.to_string());
        for b in PIECES {
            out.push(format!("{a}{b}"));
        }
    }
    out
}

/// A line a CI system would read as a command: GitHub's `::` at the start after whitespace,
/// `##[` anywhere (GitHub's legacy form, Azure's formatting), Azure's `##vso[` anywhere.
fn ci_reads(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    line.trim_start().starts_with("::") || lower.contains("##[") || lower.contains("##vso[")
}

fn terminal_inert(out: &str) {
    assert!(!out.chars().any(is_hazard), "{out:?}");
    assert!(!ci_reads(out), "{out:?}");
    // Also after any whitespace this program puts before it.
    assert!(!ci_reads(&format!("  {out}")), "{out:?}");
}

#[test]
fn terminal_strings_hold_no_control_and_no_ci_command() {
    for s in hostile() {
        terminal_inert(&terminal(&s));
    }
    assert_eq!(
        terminal("a\u{1b}[31mb\u{7}\r"),
        "a\\u001b[31mb\\u0007\\u000d"
    );
    assert_eq!(terminal("x\n::error::pwned"), "x\\u000a::error::pwned");
    assert_eq!(terminal("  ::add-mask::z"), "  \\u003a:add-mask::z");
    assert_eq!(
        terminal("y ##vso[task.setvariable variable=x]y"),
        "y #\\u0023vso[task.setvariable variable=x]y"
    );
    assert_eq!(terminal("##[error]x"), "#\\u0023[error]x");
    assert_eq!(terminal("\u{202e}evil\u{2066}"), "\\u202eevil\\u2066");
    // Ordinary text, `#` and `::` inside a value, and non-ASCII letters pass unchanged.
    for s in ["/tenantId", "C++ #1", "a::b", "é 漢 😀", "x # y"] {
        assert!(matches!(terminal(s), Cow::Borrowed(_)), "{s}");
    }
}

#[test]
fn terminal_lines_keep_line_feeds_and_neutralise_every_line() {
    for s in hostile() {
        let out = terminal_lines(&s);
        for line in out.split('\n') {
            terminal_inert(line);
        }
        assert_eq!(out.matches('\n').count(), s.matches('\n').count(), "{s:?}");
    }
    assert_eq!(
        terminal_lines("a\n ::error::x\nb"),
        "a\n \\u003a:error::x\nb"
    );
}

#[test]
fn ci_lines_leave_no_command_and_keep_colours() {
    for s in hostile() {
        for line in ci_lines(&s).split('\n') {
            assert!(!ci_reads(line), "{s:?} -> {line:?}");
        }
    }
    let painted = "\u{1b}[1mFAIL\u{1b}[0m x\n::error::y\n";
    assert_eq!(
        ci_lines(painted),
        "\u{1b}[1mFAIL\u{1b}[0m x\n\\u003a:error::y\n"
    );
    assert!(matches!(ci_lines("a\nb ## c\n"), Cow::Borrowed(_)));
}

/// Decodes Markdown text written by [`markdown_text`] strictly: an unescaped special character
/// or an unknown entity fails, so a string that decodes back to its input was literal.
fn markdown_decode(md: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut it = md.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\\' => match it.next() {
                Some('u') => {
                    let hex: String = (0..4).filter_map(|_| it.next()).collect();
                    let n = u32::from_str_radix(&hex, 16).map_err(|e| format!("{e}: {md}"))?;
                    // A character above U+FFFF is two escapes, its UTF-16 surrogates.
                    let n = if (0xd800..0xdc00).contains(&n) {
                        let rest: String = (0..6).filter_map(|_| it.next()).collect();
                        let low = rest
                            .strip_prefix("\\u")
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                            .ok_or_else(|| format!("a lone surrogate in {md:?}"))?;
                        0x10000 + ((n - 0xd800) << 10) + (low - 0xdc00)
                    } else {
                        n
                    };
                    out.push(char::from_u32(n).ok_or("bad escape")?);
                }
                Some(p) if p.is_ascii_punctuation() => out.push(p),
                other => return Err(format!("stray backslash before {other:?} in {md:?}")),
            },
            '&' => {
                let entity: String = it.by_ref().take_while(|&c| c != ';').collect();
                out.push(match entity.as_str() {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "#64" => '@',
                    "#58" => ':',
                    "#46" => '.',
                    "#32" => ' ',
                    e => return Err(format!("unknown entity &{e}; in {md:?}")),
                });
            }
            '`' | '*' | '_' | '[' | ']' | '~' | '|' | '$' | '<' | '>' | '@' => {
                return Err(format!("unescaped {c:?} in {md:?}"))
            }
            c if is_hazard(c) => return Err(format!("raw {c:?} in {md:?}")),
            c => out.push(c),
        }
    }
    Ok(out)
}

fn markdown_inert(md: &str) {
    assert!(!md.contains("://") && !md.contains("www."), "{md:?}");
    assert!(!ci_reads(md), "{md:?}");
}

#[test]
fn markdown_text_is_literal() {
    for s in hostile() {
        let md = markdown_text(&s);
        assert_eq!(markdown_decode(&md).as_deref(), Ok(s.as_str()), "{md:?}");
        markdown_inert(&md);
        let line = markdown_line(&s);
        assert_eq!(
            markdown_decode(&line).as_deref(),
            Ok(s.as_str()),
            "{line:?}"
        );
        markdown_inert(&line);
        // Nothing at the start of a line opens a block: heading, list, quote, setext.
        let first = line.chars().next();
        assert!(
            !matches!(first, Some('#' | '-' | '+' | '=' | '>' | ' ')),
            "{line:?}"
        );
        let digits = line.trim_start_matches(|c: char| c.is_ascii_digit());
        assert!(
            digits.len() == line.len() || !digits.starts_with(['.', ')']),
            "{line:?}"
        );
    }
    assert_eq!(
        markdown_text("<img src=x onerror=alert(1)>"),
        "&lt;img src=x onerror=alert(1)&gt;"
    );
    assert_eq!(markdown_text("</details>"), "&lt;/details&gt;");
    assert_eq!(
        markdown_text("[a](javascript:alert(1))"),
        "\\[a\\](javascript:alert(1))"
    );
    assert_eq!(
        markdown_text("https://x.io a@b"),
        "https&#58;//x.io a&#64;b"
    );
    assert_eq!(markdown_text("a|b`c`"), "a\\|b\\`c\\`");
    assert_eq!(markdown_line("## h"), "\\## h");
    assert_eq!(markdown_text("x ##[error]y"), "x #\\#\\[error\\]y");
    assert_eq!(markdown_line("1. x"), "1\\. x");
    assert_eq!(markdown_line("- x"), "\\- x");
    // Cells keep a `#`, a `-` and numbers as they are.
    assert_eq!(markdown_text("#"), "#");
    assert_eq!(markdown_text("-"), "-");
    assert_eq!(markdown_text("1. x"), "1. x");
}

/// Whether `md` is exactly one code span: a run of n backticks, content without a run of n,
/// the same run closing it.
fn one_code_span(md: &str) -> Option<&str> {
    let n = md.chars().take_while(|&c| c == '`').count();
    let inner = md.get(n..md.len().checked_sub(n)?)?;
    let runs_ok = inner.split(|c| c != '`').all(|r| r.len() != n);
    (n > 0 && md.ends_with(&"`".repeat(n)) && runs_ok && !inner.is_empty()).then_some(inner)
}

#[test]
fn code_spans_hold_their_value_and_close_once() {
    for s in hostile() {
        for in_cell in [false, true] {
            let span = markdown_code_span(&s, in_cell);
            let inner = one_code_span(&span).unwrap_or_else(|| panic!("{span:?}"));
            terminal_inert(inner.trim());
            // In a table cell, every pipe is escaped (GFM splits cells before code spans).
            let b = inner.as_bytes();
            for (i, _) in inner.match_indices('|') {
                assert!(!in_cell || (i > 0 && b[i - 1] == b'\\'), "{span:?}");
            }
        }
        // Quoted parts become code spans, the rest literal text: never a raw tag or link.
        let md = markdown_inline(&s, true, false);
        assert!(!md.chars().any(is_hazard) && !ci_reads(&md), "{md:?}");
    }
    assert_eq!(markdown_code_span("a`b", false), "``a`b``");
    assert_eq!(markdown_code_span("`x", false), "`` `x ``");
    assert_eq!(markdown_code_span("a|b", true), "`a\\|b`");
    assert_eq!(
        markdown_inline("key `<img src=x>` holds", false, false),
        "key `<img src=x>` holds"
    );
    assert_eq!(
        markdown_inline("key `a\n::error::x` *", true, false),
        "key `a\\u000a::error::x` \\*"
    );
    // A value holding a backtick is one code span: GitHub shows the value, not `\``.
    assert_eq!(
        markdown_inline("the largest key `a`b` holds 50%", true, false),
        "the largest key ``a`b`` holds 50%"
    );
    assert_eq!(
        markdown_inline("`/k` is the best: read `x`.", true, false),
        "`/k` is the best: read `x`."
    );
    // A backtick that opens nothing stays literal text.
    assert_eq!(markdown_inline("a`b and c", false, false), "a\\`b and c");
    assert_eq!(markdown_inline("x `` y", false, false), "x \\`\\` y");
}

#[test]
fn markdown_fences_outrun_every_backtick_run() {
    for s in hostile() {
        let fence = markdown_fence(&s);
        assert!(fence.len() >= 3);
        let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        assert!(fence.len() > longest, "{s:?}");
    }
    assert_eq!(markdown_fence("a ````` b"), "``````");
}

fn html_inert(h: &str) {
    assert!(!h.contains(['<', '>', '"', '\'']), "{h:?}");
    assert!(!h.chars().any(is_hazard), "{h:?}");
    assert!(!ci_reads(h), "{h:?}");
    for (i, _) in h.match_indices('&') {
        let rest = &h[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#35;", "&#58;"]
                .iter()
                .any(|e| rest.starts_with(e)),
            "{h:?}"
        );
    }
}

#[test]
fn html_text_is_inert() {
    for s in hostile() {
        html_inert(&html(&s));
        for line in html_lines(&s).split('\n') {
            assert!(!ci_reads(line), "{line:?}");
        }
    }
    assert_eq!(
        html("<img src=x onerror=alert(1)>"),
        "&lt;img src=x onerror=alert(1)&gt;"
    );
    assert_eq!(html("##vso[x"), "#&#35;vso[x");
    assert_eq!(html_lines("a\n::error::x"), "a\n&#58;:error::x");
}

/// Percent-decodes a URI's path.
fn percent_decode(u: &str) -> String {
    let b = u.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(&u[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn uris_are_percent_encoded() {
    for s in hostile() {
        let u = uri(&s);
        assert!(
            u.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~/%:".contains(c)),
            "{u:?}"
        );
        let path = u
            .strip_prefix("file:///")
            .filter(|_| !s.replace('\\', "/").starts_with('/'))
            .or_else(|| u.strip_prefix("file://"))
            .unwrap_or(&u);
        assert_eq!(percent_decode(path), s.replace('\\', "/"), "{u}");
    }
    assert_eq!(uri("data/a b#1.jsonl"), "data/a%20b%231.jsonl");
    assert_eq!(uri("/tmp/x y.json"), "file:///tmp/x%20y.json");
    assert_eq!(uri("C:\\d\\x.json"), "file:///C:/d/x.json");
    assert_eq!(uri("fixtures/ci/number.jsonl"), "fixtures/ci/number.jsonl");
}

#[test]
fn json_keeps_every_value_and_no_ci_command() {
    for s in hostile() {
        let v = serde_json::json!({"value": s, "list": [s.clone()]});
        let text = json(serde_json::to_string_pretty(&v).unwrap());
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
        for line in text.split('\n') {
            assert!(!ci_reads(line), "{line:?}");
            assert!(!line.chars().any(is_hazard), "{line:?}");
        }
    }
}

#[test]
fn long_values_take_linear_time() {
    // A 1 MiB run of whitespace before `::` (a record may hold 4 MiB): looking for the line's
    // first non-blank character once per character would take about 10^12 steps.
    let s = format!("{}::x", " ".repeat(1 << 20));
    let timed = |f: &dyn Fn(&str) -> String, end: &str| {
        let t = std::time::Instant::now();
        assert!(f(&s).ends_with(end));
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    };
    timed(&|s| terminal(s).into_owned(), " \\u003a:x");
    timed(&|s| terminal_lines(s).into_owned(), " \\u003a:x");
    timed(&|s| ci_lines(s).into_owned(), " \\u003a:x");
    timed(&|s| markdown_line(s), " \\::x");
    timed(&html, " &#58;:x");
}

/// Invisible characters (zero-width, word joiner, byte order mark, tag characters that spell
/// hidden ASCII) are escaped in the terminal, Markdown and HTML, never passed on raw.
#[test]
fn invisible_characters_are_shown_escaped() {
    let value = "ad\u{200b}min\u{e0069}\u{e0067}\u{feff}";
    assert_eq!(
        terminal(value),
        "ad\\u200bmin\\udb40\\udc69\\udb40\\udc67\\ufeff"
    );
    for out in [markdown_text(value), html(value)] {
        assert!(out.starts_with("ad\\u200bmin\\udb40\\udc69"), "{out}");
        assert!(!out.chars().any(is_hazard), "{out}");
    }
}
