//! `docs/pkadvisor.schema.json` is the report model's schema, current, and every report the
//! bundled fixtures produce (analyze and check, with and without a layout, workload and time
//! evaluation) is valid against it; reports with a wrong type or a missing field are not.

use serde_json::{json, Value};

use crate::util::Test;

fn schema() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/pkadvisor.schema.json"
    ))
    .expect("docs/pkadvisor.schema.json exists");
    serde_json::from_str(&text).expect("the schema is JSON")
}

fn run(args: &[&str]) -> Value {
    let o = Test::new().args(args).args(["--format", "json"]).output();
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&o.stderr)))
}

#[test]
fn schema_file_is_current() {
    let want = pkadvisor::report::json::schema();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/pkadvisor.schema.json");
    if std::env::var_os("PKADVISOR_UPDATE_SCHEMA").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/pkadvisor.schema.json is out of date with the Report model; regenerate it with \
         PKADVISOR_UPDATE_SCHEMA=1 cargo test --test main schema"
    );
    assert_eq!(
        schema()["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[test]
fn every_fixture_report_is_valid() {
    let validator = jsonschema::draft202012::new(&schema()).expect("a valid draft 2020-12 schema");
    let specs = "/tenantId,/userId,/tenantId>/userId,/tenantId+hash(/id)%8,day(/ts)";
    let runs: &[&[&str]] = &[
        &["analyze", "fixtures/events.jsonl", "--candidates", specs],
        &[
            "analyze",
            "fixtures/events.jsonl",
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
        &[
            "analyze",
            "fixtures/events.json",
            "--candidates",
            "/tenantId",
        ],
        &[
            "analyze",
            "fixtures/events500.jsonl",
            "--candidates",
            specs,
            "--autoscale-max-ru",
            "20000",
        ],
        &[
            "analyze",
            "fixtures/orders.csv",
            "--candidates",
            "/customerId",
        ],
        &["analyze", "fixtures/tiny.jsonl", "--candidates", "/id"],
        // The automatic search (discovery, recommendation) and a key change.
        &[
            "analyze",
            "fixtures/events.jsonl",
            "--total-size",
            "2TB",
            "--explain",
        ],
        &[
            "analyze",
            "fixtures/events.jsonl",
            "-c",
            "/tenantId>/userId>/id",
            "--current-key",
            "/tenantId",
        ],
        &[
            "analyze",
            "fixtures/invalid_keys.jsonl",
            "--candidates",
            "/tenantId",
        ],
        &["analyze", "fixtures/big_docs.jsonl", "--candidates", "/id"],
        &[
            "analyze",
            "fixtures/bad_line.jsonl",
            "--skip-invalid",
            "--candidates",
            "/id",
        ],
        &["check", "--config", "fixtures/ci/pkadvisor.toml", "--quiet"],
        &[
            "check",
            "fixtures/events.jsonl",
            "--key",
            "/tenantId",
            "--fail-on",
            "warn",
            "--quiet",
        ],
    ];
    for args in runs {
        let report = run(args);
        assert!(
            report["candidates"]
                .as_array()
                .is_some_and(|c| !c.is_empty()),
            "{args:?}"
        );
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}");
    }
    // The schema is not vacuous: a wrong type, a missing field and an unknown verdict fail.
    let good = run(&["analyze", "fixtures/tiny.jsonl", "--candidates", "/id"]);
    let mut bad = good.clone();
    bad["schema_version"] = json!("2");
    assert!(!validator.is_valid(&bad));
    let mut bad = good.clone();
    bad.as_object_mut().unwrap().remove("input");
    assert!(!validator.is_valid(&bad));
    let mut bad = good;
    bad["candidates"][0]["verdict"] = json!("maybe");
    assert!(!validator.is_valid(&bad));
}

/// `pkadvisor fields --format json` has its own schema, docs/pkadvisor-fields.schema.json,
/// current and valid for the bundled events.
#[test]
fn fields_schema_is_current_and_valid() {
    let want = pkadvisor::report::json::fields_schema();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/pkadvisor-fields.schema.json"
    );
    if std::env::var_os("PKADVISOR_UPDATE_SCHEMA").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        have == want,
        "docs/pkadvisor-fields.schema.json is out of date; regenerate it with \
         PKADVISOR_UPDATE_SCHEMA=1 cargo test --test main schema"
    );
    let schema: Value = serde_json::from_str(&have).unwrap();
    let validator = jsonschema::draft202012::new(&schema).expect("a valid schema");
    let profile = run(&["fields", "fixtures/events.jsonl", "--total-size", "1TB"]);
    let errors: Vec<String> = validator
        .iter_errors(&profile)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut broken = profile.clone();
    broken["fields"][0]["distinct"] = json!("many");
    assert!(!validator.is_valid(&broken));
}
