//! The checkers of `tests/hostile.rs`, one per sink: each asserts that nothing executable
//! from data survives in a rendering.

use serde_json::Value;

pub(super) fn is_hazard(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}')
}

/// A line GitHub's runner or Azure's agent would read as a command.
pub(super) fn ci_reads(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    line.trim_start().starts_with("::") || lower.contains("##[") || lower.contains("##vso[")
}

/// Terminal and CI log: no control character but line feeds (and tab, CR for none: both are
/// escaped too), no line that a CI system reads as a command.
pub(super) fn assert_log_inert(what: &str, text: &str) {
    for (n, line) in text.split('\n').enumerate() {
        assert!(
            !line.contains(['\r', '\t']) && !line.chars().any(is_hazard),
            "{what}: control or bidi character on line {}: {line:?}",
            n + 1
        );
        assert!(
            !ci_reads(line),
            "{what}: line {} is a CI command: {line:?}",
            n + 1
        );
    }
}

/// Markdown under GitHub's parser: the only tags are this program's own (`details`, `summary`,
/// `b`), balanced; no autolink, no link or image outside code fences, and no line a CI system
/// reads.
pub(super) fn assert_markdown_inert(what: &str, md: &str) {
    assert_log_inert(what, md);
    let mut in_fence: Option<String> = None;
    for line in md.lines() {
        let t = line.trim_start();
        if let Some(f) = &in_fence {
            if t.starts_with(f.as_str()) && t.trim_end_matches('`').is_empty() {
                in_fence = None;
            }
            assert!(!line.contains("javascript"), "{what}: {line:?}");
            continue;
        }
        if t.starts_with("```") {
            in_fence = Some(t.chars().take_while(|&c| c == '`').collect());
            continue;
        }
        // Code spans show their content literally: check the text around them.
        let line = &without_code_spans(line);
        for (i, _) in line.match_indices('<') {
            let tag: String = line[i..].chars().take_while(|&c| c != '>').collect();
            assert!(
                [
                    "<details",
                    "</details",
                    "<summary",
                    "</summary",
                    "<b",
                    "</b"
                ]
                .contains(&tag.as_str()),
                "{what}: raw tag {tag:?} in {line:?}"
            );
        }
        assert!(
            !line.contains("://") && !line.contains("www."),
            "{what}: {line:?}"
        );
        assert!(
            !line.contains("&#64;user") || !line.contains("@user"),
            "{what}"
        );
        assert!(
            !line.contains("@user"),
            "{what}: a live mention in {line:?}"
        );
        // Every `[`, `]` and backtick is escaped: no link, image or code span from data.
        let b = line.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            if matches!(c, b'[' | b']' | b'`') {
                let slashes = b[..i].iter().rev().take_while(|&&x| x == b'\\').count();
                assert!(
                    slashes % 2 == 1,
                    "{what}: unescaped {:?} in {line:?}",
                    c as char
                );
            }
        }
        // A line from data cannot open a heading, quote or list (this program's own headings
        // are `#`-prefixed words; data lines start with `\`).
        assert!(
            !t.starts_with("# heading") && !t.starts_with("> quote"),
            "{what}: {line:?}"
        );
    }
    assert!(in_fence.is_none(), "{what}: a code fence left open");
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count(),
        "{what}: <details> unbalanced"
    );
}

/// `line` with each code span's content replaced by `C` (CommonMark: a run of n backticks
/// opens a span that the next run of exactly n closes; an unclosed run is literal text).
pub(super) fn without_code_spans(line: &str) -> String {
    let b = line.as_bytes();
    let run_at = |i: usize| b[i..].iter().take_while(|&&c| c == b'`').count();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let escaped = b[..i].iter().rev().take_while(|&&x| x == b'\\').count() % 2 == 1;
        if b[i] == b'`' && !escaped {
            let n = run_at(i);
            let mut j = i + n;
            let close = loop {
                match b[j..].iter().position(|&c| c == b'`') {
                    None => break None,
                    Some(k) => {
                        let m = run_at(j + k);
                        if m == n {
                            break Some(j + k);
                        }
                        j += k + m;
                    }
                }
            };
            if let Some(c) = close {
                out.push('C');
                i = c + n;
                continue;
            }
            // An unclosed run: literal backticks, which the checker flags.
        }
        let ch = line[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// Whether any string inside `v` (or any key) contains `needle`.
pub(super) fn holds(v: &Value, needle: &str) -> bool {
    match v {
        Value::String(s) => s.contains(needle),
        Value::Array(a) => a.iter().any(|x| holds(x, needle)),
        Value::Object(o) => o
            .iter()
            .any(|(k, x)| k.contains(needle) || holds(x, needle)),
        _ => false,
    }
}

/// HTML: tags only of this program's own vocabulary, no event handler, no script, no link
/// target from data.
pub(super) fn assert_html_inert(what: &str, html: &str) {
    assert_log_inert(what, html);
    let lower = html.to_ascii_lowercase();
    assert!(
        !lower.contains("<script") && !lower.contains("<img"),
        "{what}"
    );
    for (i, _) in html.match_indices('<') {
        let tag: String = html[i..].chars().take_while(|&c| c != '>').collect();
        assert!(
            !tag.to_ascii_lowercase().contains(" onerror"),
            "{what}: {tag:?}"
        );
        assert!(!tag.contains("javascript:"), "{what}: {tag:?}");
    }
}

/// Mermaid blocks in Markdown: every line a statement this program writes, every label quoted
/// and free of the characters that would end it.
pub(super) fn assert_mermaid_inert(what: &str, md: &str) {
    let mut blocks = 0;
    for block in md.split("```mermaid\n").skip(1) {
        blocks += 1;
        let body = block.split("\n```").next().unwrap();
        for line in body.lines() {
            let t = line.trim_start();
            assert!(
                [
                    "xychart-beta",
                    "title ",
                    "x-axis ",
                    "y-axis ",
                    "bar ",
                    "line "
                ]
                .iter()
                .any(|k| t.starts_with(k)),
                "{what}: mermaid line {line:?}"
            );
            assert!(
                !t.contains("click") || t.matches('"').count() % 2 == 0,
                "{what}: {line:?}"
            );
            for label in t.split('"').skip(1).step_by(2) {
                assert!(
                    !label.contains(['[', ']', '`', '\\', '<']),
                    "{what}: {label:?}"
                );
            }
        }
    }
    assert!(blocks > 0, "{what}: no mermaid chart to check");
}
