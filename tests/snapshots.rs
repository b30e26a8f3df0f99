//! Snapshot tests (insta) of every output format, fed a hand-built report:
//! `tests/data/hand_report.json` is a run on `fixtures/tiny.jsonl` (candidates `/tenantId` and
//! `/tenantId>/id`, 2 physical partitions, 100 writes/s) edited by hand so that every path of
//! the renderers shows: `/tenantId` fails (a FAIL and an INFO finding added), its largest key
//! is `R&D *a* <b> | [x](http://y)` (Markdown, HTML and a URL that must show as written), and
//! its second physical partition holds 60 GB, over the 50 GB limit (a red bar). The tool
//! version is `0.0.0-snapshot`, so releases do not churn the snapshots.
//!
//! After a deliberate change, review with `cargo insta review` (or run with
//! `INSTA_UPDATE=always` and read the diff of `tests/snapshots/`).

use pkadvisor::model::Report;
use pkadvisor::report::{json, render, sections, table, OutputFormat};

fn hand() -> Report {
    json::read(include_str!("data/hand_report.json")).expect("the hand-built report reads")
}

#[test]
fn table_piped_width() {
    let r = hand();
    insta::assert_snapshot!(table::render_blocks_at(
        sections::blocks_view(&r, sections::View::Detail),
        false,
        160,
        false
    ));
}

/// The terminal's default view: headline, recommendation, ranking, one line per other candidate.
#[test]
fn table_summary_100_columns() {
    let r = hand();
    insta::assert_snapshot!(table::render_blocks_at(
        sections::blocks_view(&r, sections::View::Summary),
        false,
        100,
        true
    ));
}

/// `-q`: the headline alone.
#[test]
fn table_headline() {
    let r = hand();
    insta::assert_snapshot!(table::render_blocks_at(
        sections::blocks_view(&r, sections::View::Headline),
        false,
        100,
        true
    ));
}

#[test]
fn table_80_columns() {
    let r = hand();
    insta::assert_snapshot!(table::render_blocks_at(
        sections::blocks_view(&r, sections::View::Detail),
        false,
        80,
        true
    ));
}

#[test]
fn table_in_colour() {
    let r = hand();
    insta::assert_snapshot!(table::render_blocks_at(
        sections::blocks_view(&r, sections::View::Detail),
        true,
        100,
        true
    ));
}

#[test]
fn markdown() {
    insta::assert_snapshot!(render(&hand(), OutputFormat::Markdown));
}

#[test]
fn html() {
    insta::assert_snapshot!(render(&hand(), OutputFormat::Html));
}

#[test]
fn json_writes_back_what_it_read() {
    let text = include_str!("data/hand_report.json");
    let json = render(&hand(), OutputFormat::Json);
    // The JSON renderer writes back exactly what it read (the hand-made file is in its layout).
    assert!(
        json == text,
        "the JSON renderer changed the hand-built report"
    );
    insta::assert_snapshot!(json);
}

/// `docs/examples/`: the README's workload example on the bundled multi-tenant fixture, as the
/// JSON report and its Markdown and HTML renderings. Regenerate after a deliberate change with
/// `PKADVISOR_UPDATE_EXAMPLES=1 cargo test --test main docs_examples` (docs/examples/README.md).
const EXAMPLE_ARGS: [&str; 13] = [
    "analyze",
    "fixtures/events.jsonl",
    "--candidates",
    "/tenantId,/tenantId>/userId>/sessionId,/tenantId+hash(/id)%16,/id",
    "--workload",
    "fixtures/workload.yaml",
    "--time-field",
    "/ts",
    "--total-size",
    "500GB",
    "--ru",
    "40000",
    "--quiet",
];

#[test]
fn docs_examples_are_current() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pkadvisor"))
        .args(EXAMPLE_ARGS)
        .args(["--format", "json"])
        .current_dir(root)
        .output()
        .expect("run pkadvisor");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = String::from_utf8(out.stdout).unwrap();
    let report = json::read(&json).unwrap();
    let files = [
        ("events.json", json.clone()),
        ("events.md", render(&report, OutputFormat::Markdown)),
        ("events.html", render(&report, OutputFormat::Html)),
    ];
    let update = std::env::var_os("PKADVISOR_UPDATE_EXAMPLES").is_some();
    for (name, want) in files {
        let path = format!("{root}/docs/examples/{name}");
        if update {
            std::fs::write(&path, &want).unwrap();
            continue;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/examples/{name} is out of date; regenerate with \
             PKADVISOR_UPDATE_EXAMPLES=1 cargo test --test main docs_examples"
        );
    }
}
