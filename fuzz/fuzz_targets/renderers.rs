//! Fuzzes the output sinks: the fuzzer's text becomes a key value, a candidate name, a finding's
//! quoted value, a file name and a gate message in a saved report (tests/data/hand_report.json),
//! which is then rendered as a table, Markdown, HTML and JSON, as GitHub and Azure annotations
//! and as SARIF. Each sink's invariant (docs/hardening.md, "Neutralised sinks") must hold:
//! no control or bidi character and no CI command line anywhere; no tag in Markdown or HTML that
//! the same report with innocuous text does not have; SARIF results all located.
#![no_main]

use std::collections::BTreeSet;
use std::sync::OnceLock;

use pkadvisor::ci::{annotations, sarif};
use pkadvisor::model::Location;
use pkadvisor::neutralise::{is_ci_command, is_hazard};
use pkadvisor::report::{json, render, OutputFormat};
use serde_json::{json, Value};

const REPORT: &str = include_str!("../../tests/data/hand_report.json");

/// The saved report with `s` in every place data reaches.
fn report_with(s: &str) -> pkadvisor::model::Report {
    static TEMPLATE: OnceLock<Value> = OnceLock::new();
    let mut r = TEMPLATE
        .get_or_init(|| serde_json::from_str(REPORT).expect("the saved report"))
        .clone();
    for c in r["candidates"].as_array_mut().expect("candidates") {
        c["spec"] = json!(format!("/{s}"));
        if let Some(t) = c["top_partitions"]
            .as_array_mut()
            .and_then(|t| t.first_mut())
        {
            t["key"] = json!([s]);
        }
        if let Some(f) = c["findings"].as_array_mut().and_then(|f| f.first_mut()) {
            f["message"] = json!(format!("logical partition `{s}` holds {s}"));
        }
    }
    r["check"] = json!({
        "key": format!("/{s}"),
        "passed": false,
        "violations": [
            {"code": "SCHEMA_KEY_MISSING", "severity": "fail", "message": format!("value `{s}` at {s}"),
             "locations": [{"file": s, "line": 3}]},
            {"code": "POLICY", "severity": "warn", "message": s, "locations": []}
        ],
        "notes": [s]
    });
    json::read(&r.to_string()).expect("a report the renderers take")
}

fn assert_log_inert(what: &str, text: &str) {
    for line in text.split('\n') {
        assert!(!line.chars().any(is_hazard), "{what}: {line:?}");
        assert!(!is_ci_command(line), "{what}: {line:?}");
    }
}

/// `text` with each Markdown code span's content replaced by `C`.
fn without_code_spans(text: &str) -> String {
    let b = text.as_bytes();
    let run = |i: usize| b[i..].iter().take_while(|&&c| c == b'`').count();
    let (mut out, mut i) = (String::new(), 0);
    while i < b.len() {
        let escaped = b[..i].iter().rev().take_while(|&&x| x == b'\\').count() % 2 == 1;
        if b[i] == b'`' && !escaped {
            let n = run(i);
            let mut j = i + n;
            let close = loop {
                match b[j..].iter().position(|&c| c == b'`') {
                    None => break None,
                    Some(k) if run(j + k) == n => break Some(j + k),
                    Some(k) => j += k + run(j + k),
                }
            };
            if let Some(c) = close {
                out.push('C');
                i = c + n;
                continue;
            }
        }
        let ch = text[i..].chars().next().expect("a char");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// The tag names (`details`, `/details`, `td`...) in `text`.
fn tags(text: &str) -> BTreeSet<String> {
    text.match_indices('<')
        .map(|(i, _)| {
            text[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '/' || *c == '!')
                .collect()
        })
        .collect()
}

/// Markdown tags outside code fences and code spans.
fn markdown_tags(md: &str) -> BTreeSet<String> {
    let mut fence = false;
    let mut out = BTreeSet::new();
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if !fence {
            out.extend(tags(&without_code_spans(line)));
        }
    }
    out
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if s.len() > 4096 {
        return;
    }
    let hostile = report_with(s);
    // The tags a report with innocuous text has, computed once.
    static PLAIN: OnceLock<(BTreeSet<String>, BTreeSet<String>)> = OnceLock::new();
    let (plain_md, plain_html) = PLAIN.get_or_init(|| {
        let plain = report_with("x");
        let mut html = tags(&render(&plain, OutputFormat::Html));
        html.insert("wbr".into()); // spec breaks after `>` and `+`
        (markdown_tags(&render(&plain, OutputFormat::Markdown)), html)
    });
    let table = render(&hostile, OutputFormat::Table);
    assert_log_inert("table", &table);
    let md = render(&hostile, OutputFormat::Markdown);
    assert_log_inert("markdown", &md);
    assert!(
        markdown_tags(&md).is_subset(plain_md),
        "markdown tags {:?}",
        markdown_tags(&md)
    );
    assert_eq!(
        md.matches("<details>").count(),
        md.matches("</details>").count()
    );
    let html = render(&hostile, OutputFormat::Html);
    assert_log_inert("html", &html);
    assert!(
        tags(&html).is_subset(plain_html),
        "html tags {:?}",
        tags(&html)
    );
    let out = render(&hostile, OutputFormat::Json);
    assert_log_inert("json", &out);
    let back = json::read(&out).expect("JSON reads back");
    assert_eq!(
        back.check.as_ref().map(|c| c.key.as_str()),
        Some(format!("/{s}").as_str())
    );

    let violations = &hostile.check.as_ref().expect("a gate").violations;
    for (target, prefix) in [
        (annotations::github(violations), ["::error ", "::warning "]),
        (
            annotations::azure(violations),
            [
                "##vso[task.logissue type=error;",
                "##vso[task.logissue type=warning;",
            ],
        ),
    ] {
        assert_eq!(target.len(), violations.len());
        for line in &target {
            let rest = prefix
                .iter()
                .find_map(|p| line.strip_prefix(p))
                .unwrap_or_else(|| panic!("annotation {line:?}"));
            assert!(
                !rest.contains('\n') && !rest.chars().any(is_hazard),
                "{line:?}"
            );
            assert!(!is_ci_command(rest), "{line:?}");
        }
    }
    let fallback = Location {
        file: s.to_string(),
        line: 1,
    };
    let doc = sarif::document(violations, &fallback);
    for r in doc["runs"][0]["results"].as_array().expect("results") {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .expect("every result located");
        assert!(
            uri.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~/%:".contains(c)),
            "{uri:?}"
        );
    }
    assert_log_inert("sarif", &sarif::text(violations, &fallback));
});
