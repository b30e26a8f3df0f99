//! `pkadvisor report`: a saved JSON report re-renders byte for byte as the run that wrote it
//! would have printed in each format, for analyze and check runs; bad reports get clear errors.

// Shared with tests/cli.rs; this file uses part of it.
#[allow(dead_code)]
mod util;

use util::Test;

const FORMATS: [&str; 3] = ["table", "markdown", "json"];

/// Runs `cmd args --format F` for every format and `report - --format F` on its JSON; asserts
/// each pair is identical. Returns the JSON.
fn assert_rerenders(cmd: &str, args: &[&str], ok_status: i32) -> String {
    let direct = |format: &str| {
        let o = Test::new()
            .arg(cmd)
            .args(args)
            .args(["--format", format])
            .run();
        assert_eq!(
            o.status, ok_status,
            "{cmd} {args:?} --format {format}: {}",
            o.stderr
        );
        o.stdout
    };
    let json = direct("json");
    for format in FORMATS {
        let want = direct(format);
        let got = Test::new()
            .args(["report", "-", "--format", format])
            .stdin(json.clone())
            .run();
        assert_eq!(got.status, 0, "report --format {format}: {}", got.stderr);
        assert!(
            got.stdout == want,
            "{cmd} {args:?}: report --format {format} differs from the direct run\n--- direct\n{want}\n--- report\n{}",
            got.stdout
        );
    }
    json
}

#[test]
fn analyze_reports_rerender_identically() {
    let ev = "fixtures/events.jsonl";
    let specs = "/tenantId,/userId,/tenantId>/userId,/tenantId+hash(/id)%8,day(/ts)";
    let json = assert_rerenders("analyze", &[ev, "--candidates", specs], 0);
    assert!(json.contains("\"spec\": \"/tenantId>/userId\""));
    // Projection, a physical layout with prefix fan-out, a workload and time evaluation.
    let json = assert_rerenders(
        "analyze",
        &[
            ev,
            "--candidates",
            specs,
            "--total-size",
            "10TB",
            "--ru",
            "40000",
            "--workload",
            "fixtures/workload.yaml",
            "--time-field",
            "/ts",
        ],
        0,
    );
    assert!(json.contains("\"prefix_fanout\": ["));
    assert!(json.contains("\"partitions\": ["));
    // CSV input, invalid keys with their locations, skipped records.
    assert_rerenders(
        "analyze",
        &["fixtures/orders.csv", "--candidates", "/customerId"],
        0,
    );
    assert_rerenders(
        "analyze",
        &["fixtures/invalid_keys.jsonl", "--candidates", "/tenantId"],
        0,
    );
}

#[test]
fn check_reports_rerender_with_the_gate() {
    let json = assert_rerenders(
        "check",
        &["--config", "fixtures/ci/pkadvisor.toml", "--quiet"],
        0,
    );
    assert!(json.contains("\"check\": {"));
    // A failing gate: its violations and their locations come back too.
    let json = assert_rerenders(
        "check",
        &[
            "fixtures/events.jsonl",
            "--key",
            "/tenantId",
            "--fail-on",
            "warn",
            "--quiet",
        ],
        1,
    );
    assert!(json.contains("\"passed\": false"));
    let o = Test::new().args(["report", "-"]).stdin(json).run();
    assert!(
        o.stdout.contains("Gate for key /tenantId: FAIL"),
        "{}",
        o.stdout
    );
}

#[test]
fn output_format_follows_the_extension() {
    let json = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "--candidates",
            "/id",
            "--format",
            "json",
        ])
        .run()
        .stdout;
    let dir = std::env::temp_dir().join(format!("pkadvisor-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("r.json");
    std::fs::write(&input, &json).unwrap();
    let md = dir.join("r.md");
    let o = Test::new()
        .arg("report")
        .arg(&input)
        .arg("-o")
        .arg(&md)
        .run();
    assert_eq!(o.status, 0, "{}", o.stderr);
    let want = Test::new()
        .args([
            "analyze",
            "fixtures/tiny.jsonl",
            "--candidates",
            "/id",
            "--format",
            "markdown",
        ])
        .run()
        .stdout;
    assert_eq!(std::fs::read_to_string(&md).unwrap(), want);
    // Writing over the report being read is refused.
    let o = Test::new()
        .arg("report")
        .arg(&input)
        .arg("-o")
        .arg(&input)
        .run();
    let o = o.bad_input();
    assert!(
        o.stderr.contains("that is the report being read"),
        "{}",
        o.stderr
    );
    assert_eq!(std::fs::read_to_string(&input).unwrap(), json);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_reports_get_clear_errors() {
    let run = |stdin: &str| Test::new().args(["report", "-"]).stdin(stdin).run();
    let o = run("");
    let o = o.bad_input();
    assert!(
        o.stderr
            .contains("standard input is not a pkadvisor report: EOF while parsing"),
        "{}",
        o.stderr
    );
    let o = run("{\"a\": 1}");
    let o = o.bad_input();
    assert!(o.stderr.contains("no schema_version"), "{}", o.stderr);
    let o = run("{\"schema_version\": 1}");
    let o = o.bad_input();
    assert!(o.stderr.contains("schema_version 1 is not"), "{}", o.stderr);
    // The right version with a field missing names the field and where.
    let o =
        run("{\"schema_version\": 2,\n \"tool\": {\"name\": \"pkadvisor\", \"version\": \"0\"}}");
    let o = o.bad_input();
    assert!(
        o.stderr.contains("missing field `input` at line 2"),
        "{}",
        o.stderr
    );
    let o = Test::new().args(["report", "fixtures/no-such.json"]).run();
    let o = o.bad_input();
    assert!(
        o.stderr.contains("cannot read fixtures/no-such.json"),
        "{}",
        o.stderr
    );
}
