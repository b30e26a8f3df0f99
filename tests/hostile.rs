//! Hostile strings through every subcommand and output format: key values, property names,
//! file names and CSV column names built to become CI commands, terminal escapes, HTML,
//! Markdown links, `</details>` and Mermaid syntax. A checker per sink asserts that nothing
//! executable survives (docs/hardening.md, "Neutralised sinks"). The samples are written into a
//! temporary directory by the test itself.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::util::Test;

mod checks;
use checks::*;

/// Values that each attack one sink; the last is a very long value.
fn hostile_values() -> Vec<String> {
    let mut v: Vec<String> = [
        "x\n::error::pwned",
        "y\r\n##vso[task.setvariable variable=x]y",
        "##[error]legacy",
        "::add-mask::z",
        "  ::warning file=a::w",
        "<img src=x onerror=alert(1)>",
        "</details><script>alert(1)</script>",
        "[a](javascript:alert(1))",
        "https://evil.example/x @user",
        "\u{1b}[31mred\u{7}\u{1b}]0;title\u{7}\u{202e}rtl",
        "\u{9b}31m c1 \u{85}",
        "\u{202e}evil\u{2066}x\u{2069}",
        "q\"]; click A call evil()",
        "`code` ``` | pipe | *em* _u_",
        "- list\n# heading\n> quote",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("{}\n::error::long", "L".repeat(5000)));
    v
}

/// A property name that is itself hostile.
const HOSTILE_PROP: &str = "::error::prop\n##vso[task.complete result=Failed]<img src=x>";

/// A file name with a line feed, a CI command, an escape sequence and the characters the
/// annotation formats escape (`%`, `,`, `:`, `;`, `]`).
const HOSTILE_FILE: &str =
    "s %,;]\u{1b}[2J ##vso[task.setvariable variable=f]1\n::error::f <img src=x onerror=1>.jsonl";

/// A directory holding the hostile sample (`/pk` holds the values, some documents lack it, a
/// property has a hostile name), and its path.
fn sample() -> (tempfile::TempDir, PathBuf) {
    // Tests run in the directory and name the file relative to it, as a CI job does.
    let dir = tempfile::tempdir().unwrap();
    let values = hostile_values();
    let mut text = String::new();
    for i in 0..400 {
        let doc = if i % 50 == 49 {
            json!({"id": i.to_string(), "other": 1})
        } else {
            let mut d = json!({
                "id": i.to_string(),
                // The escape-sequence value is the largest key, so every format shows it.
                "pk": values[if i % 4 == 0 { 9 } else { i % values.len() }],
                "tenant": format!("t{}", i % 7),
            });
            d[HOSTILE_PROP] = json!(values[(i + 3) % values.len()]);
            d
        };
        text.push_str(&doc.to_string());
        text.push('\n');
    }
    let path = dir.path().join(HOSTILE_FILE);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    // `report` reads no input, so it has no progress bar to quiet.
    let quiet = if args[0] == "report" {
        None
    } else {
        Some("--quiet")
    };
    Test::new()
        .current_dir(dir)
        .args(args)
        .args(quiet)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_ACTIONS")
        .output()
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("UTF-8 output")
}

/// H1, M2: the table (analyze, fields, check, report) and every stderr note are inert in a
/// terminal and a CI log.
#[test]
fn table_output_and_stderr_hold_no_ci_command_and_no_escape() {
    let (dir, _) = sample();
    let file = HOSTILE_FILE;
    let cases: Vec<Vec<&str>> = vec![
        vec!["analyze", file, "-c", "/pk", "--detail"],
        vec!["analyze", file, "--explain", "--detail"],
        vec!["fields", file],
        vec![
            "check",
            file,
            "--key",
            "/pk",
            "--max-partition-share",
            "0.01",
            "--detail",
        ],
    ];
    for args in cases {
        let o = run(dir.path(), &args);
        let what = args.join(" ");
        assert!(o.status.code().unwrap() <= 1, "{what}: {}", text(&o.stderr));
        assert!(!o.stdout.is_empty(), "{what}");
        assert_log_inert(&format!("{what} (stdout)"), &text(&o.stdout));
        assert_log_inert(&format!("{what} (stderr)"), &text(&o.stderr));
    }
    // The values are still there, escaped: a reader sees what the data holds.
    let o = run(dir.path(), &["analyze", file, "-c", "/pk", "--detail"]);
    let out = text(&o.stdout);
    assert!(out.contains("\\u001b[31mred\\u0007"), "{out}");
    assert!(out.contains("\\u202ertl"), "{out}");
}

/// M1: Markdown (analyze, fields, check, report) holds no HTML, link or CI command from data.
#[test]
fn markdown_output_is_inert() {
    let (dir, _) = sample();
    let file = HOSTILE_FILE;
    for args in [
        vec!["analyze", file, "-c", "/pk", "--format", "markdown"],
        vec!["analyze", file, "--format", "markdown", "--explain"],
        vec!["fields", file, "--format", "markdown"],
        vec![
            "check",
            file,
            "--key",
            "/pk",
            "--max-partition-share",
            "0.01",
            "--format",
            "markdown",
        ],
    ] {
        let o = run(dir.path(), &args);
        let md = text(&o.stdout);
        assert_markdown_inert(&args.join(" "), &md);
        assert_log_inert(&format!("{} (stderr)", args.join(" ")), &text(&o.stderr));
        if args[0] == "analyze" {
            assert_mermaid_inert(&args.join(" "), &md);
        }
    }
}

/// HTML and JSON (analyze, fields, check), and `report` re-rendering analyze's JSON in every
/// format: inert in their sink and in a CI log; the JSON keeps every value exactly.
#[test]
fn html_json_and_report_rerender_are_inert() {
    let (dir, _) = sample();
    let file = HOSTILE_FILE;
    let o = run(
        dir.path(),
        &["analyze", file, "-c", "/pk", "--format", "html"],
    );
    assert_html_inert("analyze html", &text(&o.stdout));
    for args in [
        vec!["analyze", file, "-c", "/pk", "--format", "json"],
        vec!["fields", file, "--format", "json"],
        vec![
            "check",
            file,
            "--key",
            "/pk",
            "--max-partition-share",
            "0.01",
            "--format",
            "json",
        ],
    ] {
        let o = run(dir.path(), &args);
        let out = text(&o.stdout);
        assert_log_inert(&args.join(" "), &out);
        let v: Value = serde_json::from_str(&out).unwrap();
        // The values are kept whole in the JSON: escaping there is JSON's own.
        // (fields lists a top value as its JSON text, so the escape is written out there.)
        assert!(
            holds(&v, "\u{1b}[31mred\u{7}") || holds(&v, "\\u001b[31mred\\u0007"),
            "{}",
            args.join(" ")
        );
        if args[0] != "fields" {
            assert!(holds(&v, "##vso[task.setvariable"), "{}", args.join(" "));
            assert!(holds(&v, "\u{202e}rtl"), "{}", args.join(" "));
        }
    }
    let o = run(
        dir.path(),
        &[
            "analyze", file, "-c", "/pk", "--format", "json", "-o", "r.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for format in ["table", "markdown", "html", "json"] {
        let o = run(dir.path(), &["report", "r.json", "--format", format]);
        let out = text(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        match format {
            "markdown" => assert_markdown_inert("report markdown", &out),
            "html" => assert_html_inert("report html", &out),
            _ => assert_log_inert(&format!("report {format}"), &out),
        }
    }
}

/// A CSV whose repeated column name is hostile: the warning on stderr is inert.
#[test]
fn csv_repeated_column_warning_is_inert() {
    let dir = tempfile::tempdir().unwrap();
    let name = "\"::error::c\n##vso[task.complete]\u{1b}[2J\"";
    let csv = format!("id,{name},{name}\n1,a,b\n2,c,d\n");
    std::fs::write(dir.path().join("d.csv"), csv).unwrap();
    let o = run(dir.path(), &["fields", "d.csv"]);
    let err = text(&o.stderr);
    assert!(err.contains("repeats the name"), "{err}");
    assert_log_inert("csv warning", &err);
    assert_log_inert("csv fields", &text(&o.stdout));
}

/// The Extended JSON note and the "passed over" note name hostile files: both inert.
#[test]
fn notes_naming_files_are_inert() {
    let (dir, _) = sample();
    let ej = dir.path().join("e\n::error::ej\u{1b}[1m.jsonl");
    std::fs::write(
        &ej,
        "{\"_id\":{\"$oid\":\"5f1d7f3e1c9d440000a1b2c3\"},\"pk\":\"a\"}\n",
    )
    .unwrap();
    let fifo = dir.path().join("f\n##vso[task.complete]\u{7}.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let o = run(dir.path(), &["analyze", ".", "-c", "/pk"]);
    let err = text(&o.stderr);
    assert!(err.contains("Extended JSON detected"), "{err}");
    if made.is_ok_and(|s| s.success()) {
        assert!(err.contains("passed over"), "{err}");
    }
    assert_log_inert("notes", &err);
    assert_log_inert("notes (stdout)", &text(&o.stdout));
}

/// The error a bad record gives names a hostile file: inert on stderr.
#[test]
fn an_error_naming_a_hostile_file_is_inert() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("b\n::error::bad\u{1b}[1m.jsonl");
    std::fs::write(&bad, "{\"pk\": \"\u{1b}[2J\n").unwrap();
    let o = run(dir.path(), &["analyze", bad.to_str().unwrap(), "-c", "/pk"]);
    assert_eq!(o.status.code(), Some(2));
    assert_log_inert("error", &text(&o.stderr));
}

/// The official SARIF 2.1.0 schema (tests/data/sarif-schema-2.1.0.md says where it is from).
fn sarif_validator() -> jsonschema::Validator {
    let mut schema: Value =
        serde_json::from_str(include_str!("data/sarif-schema-2.1.0.json")).unwrap();
    // The schema's `language` pattern ends in a lone `]` (twice), a literal in ECMAScript regexes that
    // the validator's meta-schema check (`format: regex`) refuses; `\]` means the same, and
    // are the only changes, made here in memory (the file is kept as published).
    for holder in ["run", "toolComponent"] {
        let language = &mut schema["definitions"][holder]["properties"]["language"]["pattern"];
        assert_eq!(language, "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$");
        *language = json!("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$");
    }
    jsonschema::draft7::new(&schema).expect("the SARIF schema compiles")
}

/// What GitHub's code-scanning upload needs beyond the schema: every result located at a
/// physical location with a URI made of URI characters only.
fn assert_github_sarif_rules(sarif: &Value) {
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let locs = r["locations"].as_array().expect("locations");
        assert!(!locs.is_empty(), "a result without a location: {r}");
        let uri = locs[0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .expect("a URI");
        assert!(
            uri.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~/%:".contains(c)),
            "{uri:?}"
        );
        assert!(
            locs[0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
                >= 1
        );
    }
}

/// `check` in a simulated GitHub Actions job on a hostile sample whose key fails the policy:
/// exit 1, one well-formed annotation per violation with its properties escaped, an inert step
/// summary, and SARIF valid against the official schema and GitHub's upload rules (M5).
#[test]
fn simulated_github_actions_job() {
    let (dir, _) = sample();
    let file = HOSTILE_FILE;
    let summary = dir.path().join("summary.md");
    let job = |extra: &[&str]| {
        Test::new()
            .current_dir(dir.path())
            .args([
                "check",
                file,
                "--key",
                "/pk",
                "--max-partition-share",
                "0.01",
            ])
            .args(extra)
            .arg("--quiet")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())
            .output()
    };
    let o = job(&["--annotations", "github", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let violations = report["check"]["violations"].as_array().unwrap();
    let codes: Vec<&str> = violations
        .iter()
        .map(|v| v["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"SCHEMA_KEY_MISSING"), "{codes:?}");
    let err = text(&o.stderr);
    let commands: Vec<&str> = err.lines().filter(|l| l.starts_with("::")).collect();
    // One command per violation, each `::error ` or `::warning ` with properties then `::`.
    assert_eq!(commands.len(), violations.len(), "{err}");
    for (c, v) in commands.iter().zip(violations) {
        let level = if v["severity"] == "fail" {
            "error"
        } else {
            "warning"
        };
        assert!(c.starts_with(&format!("::{level} ")), "{c}");
        let (props, message) = c[2 + level.len() + 1..]
            .split_once("::")
            .expect("::message");
        for p in props.split(',') {
            let (k, val) = p.split_once('=').expect("key=value");
            assert!(["file", "line", "title"].contains(&k), "{c}");
            assert!(!val.contains([':', ',', '\n', '\r']), "{c}");
        }
        assert!(
            !message.contains(['\n', '\r']) && !message.chars().any(is_hazard),
            "{c}"
        );
    }
    // The file property names the hostile file, escaped.
    assert!(
        err.contains("file=s %25%2C;]\\u001b[2J #\\u0023vso"),
        "{err}"
    );
    // Every other stderr line is inert.
    let rest: Vec<&str> = err.lines().filter(|l| !l.starts_with("::")).collect();
    assert_log_inert("check stderr", &rest.join("\n"));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.contains("FAIL"), "{md}");
    assert_markdown_inert("step summary", &md);

    let o = job(&["--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    assert_log_inert("sarif", &out);
    let sarif: Value = serde_json::from_str(&out).unwrap();
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_github_sarif_rules(&sarif);
    assert_eq!(
        sarif["runs"][0]["results"].as_array().unwrap().len(),
        violations.len()
    );
}

/// Azure Pipelines: one `##vso[task.logissue …]` per violation, properties escaped, nothing
/// else on stderr an agent reads.
#[test]
fn azure_annotations_are_well_formed() {
    let (dir, _) = sample();
    let file = HOSTILE_FILE;
    let o = run(
        dir.path(),
        &[
            "check",
            file,
            "--key",
            "/pk",
            "--max-partition-share",
            "0.01",
            "--annotations",
            "azure",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    let (commands, rest): (Vec<&str>, Vec<&str>) = err
        .lines()
        .partition(|l| l.starts_with("##vso[task.logissue "));
    assert!(!commands.is_empty(), "{err}");
    for c in &commands {
        let (props, message) = c["##vso[task.logissue ".len()..].split_once(']').unwrap();
        for p in props.split(';') {
            let (k, _) = p.split_once('=').expect("key=value");
            assert!(
                ["type", "sourcepath", "linenumber", "code"].contains(&k),
                "{c}"
            );
        }
        assert!(!ci_reads(message) && !message.chars().any(is_hazard), "{c}");
    }
    assert_log_inert("azure stderr", &rest.join("\n"));
}

/// `--observed`: exports are data too. Every hostile value as a partition key (in the sample and
/// in the export, so it reaches the calibration, the traffic and the hot-partition tables), with
/// a hostile operation name and range id: inert in every format.
#[test]
fn observed_exports_with_hostile_keys_are_inert() {
    let (dir, _) = sample();
    let mut rows = Vec::new();
    for (i, v) in hostile_values().iter().enumerate() {
        let key = serde_json::to_string(&json!([v])).unwrap();
        for t in ["2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"] {
            rows.push(json!({
                "TimeGenerated": t, "DatabaseName": "db", "CollectionName": "c",
                "RegionName": "r", "PartitionKey": key, "PartitionKeyRangeId": v,
                "OperationName": HOSTILE_PROP, "RequestCharge": (i + 1) * 100,
            }));
        }
        rows.push(json!({
            "TimeGenerated": "2026-01-01T00:00:00Z", "DatabaseName": "db", "CollectionName": "c",
            "RegionName": "r", "PartitionKey": key, "SizeKb": 2_000_000,
        }));
    }
    std::fs::write(dir.path().join("ru.json"), Value::Array(rows).to_string()).unwrap();
    let file = HOSTILE_FILE;
    for format in ["table", "markdown", "html"] {
        let args = [
            "analyze",
            file,
            "-c",
            "/tenant",
            "--current-key",
            "/pk",
            "--total-docs",
            "400000",
            "--format",
            format,
            "--observed",
            "ru.json",
            "--detail",
        ];
        let o = run(dir.path(), &args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.contains("Measured today"), "{format}");
        match format {
            "markdown" => assert_markdown_inert("observed markdown", &out),
            "html" => assert_html_inert("observed html", &out),
            _ => assert_log_inert("observed table", &out),
        }
        assert_log_inert("observed stderr", &text(&o.stderr));
    }
}
