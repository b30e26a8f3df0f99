//! CI annotations: GitHub Actions workflow commands and Azure Pipelines logging commands, and the
//! GitHub step summary.

use crate::model::Severity;
use crate::model::Violation;

/// The CI system whose annotation syntax to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// GitHub Actions workflow commands (`::error file=…,line=…::`).
    Github,
    /// Azure Pipelines logging commands (`##vso[task.logissue …]`).
    Azure,
}

/// GitHub shows at most 10 annotations of each type per step: past that, one line summarises.
pub const GITHUB_MAX_PER_TYPE: usize = 10;

/// GitHub's step summary file is capped at 1 MiB.
pub const STEP_SUMMARY_MAX_BYTES: usize = 1024 * 1024;

/// A string from data for an annotation: each line through `crate::neutralise::terminal` (no
/// control or bidi character, no CI command), line feeds kept for the format's own escape.
fn data(s: &str) -> String {
    s.split('\n')
        .map(|l| crate::neutralise::terminal(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

fn gh_escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn gh_escape_property(s: &str) -> String {
    gh_escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// `::error file=F,line=L,title=CODE::message` lines, at most 10 per type, then a summary line.
pub fn github(violations: &[Violation]) -> Vec<String> {
    let mut out = Vec::new();
    for (level, sev) in [("error", Severity::Fail), ("warning", Severity::Warn)] {
        let of: Vec<&Violation> = violations.iter().filter(|v| v.severity == sev).collect();
        let shown = if of.len() > GITHUB_MAX_PER_TYPE {
            GITHUB_MAX_PER_TYPE - 1
        } else {
            of.len()
        };
        for v in &of[..shown] {
            let mut props = vec![format!("title={}", gh_escape_property(&v.code))];
            if let Some(l) = v.locations.first() {
                props.insert(0, format!("line={}", l.line));
                props.insert(
                    0,
                    format!(
                        "file={}",
                        gh_escape_property(&crate::neutralise::terminal(&l.file))
                    ),
                );
            }
            out.push(format!(
                "::{level} {}::{}",
                props.join(","),
                gh_escape_data(&data(&v.message))
            ));
        }
        if of.len() > shown {
            let rest: Vec<&str> = of[shown..].iter().map(|v| v.code.as_str()).collect();
            out.push(format!(
                "::{level} title=pkadvisor::{} more: {} (see the job log or the step summary)",
                rest.len(),
                rest.join(", ")
            ));
        }
    }
    out
}

fn azure_escape(s: &str) -> String {
    s.replace('%', "%AZP25")
        .replace(';', "%3B")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
        .replace(']', "%5D")
}

/// `##vso[task.logissue type=error;sourcepath=F;linenumber=L;code=CODE]message` lines.
pub fn azure(violations: &[Violation]) -> Vec<String> {
    violations
        .iter()
        .filter(|v| v.severity >= Severity::Warn)
        .map(|v| {
            let level = if v.severity == Severity::Fail {
                "error"
            } else {
                "warning"
            };
            let mut props = vec![format!("type={level}")];
            if let Some(l) = v.locations.first() {
                props.push(format!(
                    "sourcepath={}",
                    azure_escape(&crate::neutralise::terminal(&l.file))
                ));
                props.push(format!("linenumber={}", l.line));
            }
            props.push(format!("code={}", azure_escape(&v.code)));
            format!(
                "##vso[task.logissue {}]{}",
                props.join(";"),
                azure_escape(&data(&v.message))
            )
        })
        .collect()
}

/// Appends `markdown` to the step summary file, cut to fit under the 1 MiB cap with a note.
pub fn append_step_summary(path: &std::path::Path, markdown: &str) -> std::io::Result<()> {
    use std::io::Write;
    let existing = std::fs::metadata(path)
        .map(|m| m.len() as usize)
        .unwrap_or(0);
    let room = STEP_SUMMARY_MAX_BYTES.saturating_sub(existing + 200);
    let mut text = markdown.to_string();
    if text.len() > room {
        let mut cut = room;
        while cut > 0 && !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n\n_Report cut to fit GitHub's 1 MiB step summary: see the job log or the JSON report._\n");
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Location;

    fn v(code: &str, sev: Severity, at: Option<(&str, u64)>) -> Violation {
        Violation {
            code: code.into(),
            severity: sev,
            message: "50% of x, y\nnext".into(),
            locations: at
                .map(|(f, l)| Location {
                    file: f.into(),
                    line: l,
                })
                .into_iter()
                .collect(),
        }
    }

    #[test]
    fn github_lines_are_escaped_and_capped() {
        let lines = github(&[v(
            "SCHEMA_KEY_MISSING",
            Severity::Fail,
            Some(("a,b.jsonl", 3)),
        )]);
        assert_eq!(
            lines,
            vec!["::error file=a%2Cb.jsonl,line=3,title=SCHEMA_KEY_MISSING::50%25 of x, y%0Anext"]
        );
        let many: Vec<Violation> = (0..12)
            .map(|i| v(&format!("C{i}"), Severity::Warn, None))
            .collect();
        let lines = github(&many);
        assert_eq!(lines.len(), 10);
        assert!(
            lines[9].starts_with("::warning title=pkadvisor::3 more: C9, C10, C11"),
            "{}",
            lines[9]
        );
    }

    #[test]
    fn data_in_annotations_is_neutralised() {
        let mut x = v("X", Severity::Fail, Some(("a\u{1b}[2J\n::error::f", 1)));
        x.message = "k \u{1b}]0;t\u{7} ##vso[task.complete]\n::warning::w\u{202e}".into();
        assert_eq!(
            github(std::slice::from_ref(&x)),
            vec!["::error file=a\\u001b[2J\\u000a%3A%3Aerror%3A%3Af,line=1,title=X::k \\u001b]0;t\\u0007 #\\u0023vso[task.complete]%0A\\u003a:warning::w\\u202e"]
        );
        assert_eq!(
            azure(&[x]),
            vec!["##vso[task.logissue type=error;sourcepath=a\\u001b[2J\\u000a::error::f;linenumber=1;code=X]k \\u001b%5D0%3Bt\\u0007 #\\u0023vso[task.complete%5D%0A\\u003a:warning::w\\u202e"]
        );
    }

    #[test]
    fn azure_lines() {
        let lines = azure(&[v("X", Severity::Fail, Some(("s.jsonl", 7)))]);
        assert_eq!(
            lines,
            vec!["##vso[task.logissue type=error;sourcepath=s.jsonl;linenumber=7;code=X]50%AZP25 of x, y%0Anext"]
        );
    }
}
