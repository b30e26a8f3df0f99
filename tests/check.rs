//! `pkadvisor check`, the CI gate, driven as a CI job would run it: exit codes, messages, the
//! `file:line` of the first offending records, annotation lines, SARIF and the step summary.

use std::process::Output;

use serde_json::Value;

use crate::util::Test;

fn check(args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut t = Test::new()
        .arg("check")
        .args(args)
        .arg("--quiet")
        .env_remove("GITHUB_STEP_SUMMARY");
    for (k, v) in envs {
        t = t.env(k, v);
    }
    t.output()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

/// The codes of a check report's violations, in order.
pub(crate) fn codes(r: &Value) -> Vec<String> {
    r["check"]["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn passing_config_exits_0() {
    let o = check(&["--config", "fixtures/ci/pkadvisor.toml"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Gate for key /customerId: PASS"));
    let o = check(
        &["--config", "fixtures/ci/pkadvisor.toml", "--format", "json"],
        &[],
    );
    let r = json(&o);
    assert_eq!(r["check"]["key"], "/customerId");
    assert_eq!(r["check"]["passed"], true);
    assert_eq!(r["check"]["violations"], serde_json::json!([]));
}

#[test]
fn renamed_key_path_fails_at_the_first_renamed_record() {
    let o = check(
        &[
            "fixtures/ci/renamed.jsonl",
            "--key",
            "/customerId",
            "--annotations",
            "github",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    let first = err.lines().next().unwrap();
    assert_eq!(
        first,
        "::error file=fixtures/ci/renamed.jsonl,line=581,title=SCHEMA_KEY_MISSING::20 of 600 documents lack the key path /customerId (renamed or optional?); they go to the Undefined partition. Likely renamed: 20 of them hold `customer_id` instead. First: fixtures/ci/renamed.jsonl:581, fixtures/ci/renamed.jsonl:582, fixtures/ci/renamed.jsonl:583, fixtures/ci/renamed.jsonl:584, fixtures/ci/renamed.jsonl:585"
    );
    assert!(
        err.ends_with("pkadvisor check: FAIL (1 failure, 0 warnings)\n"),
        "{err}"
    );
}

#[test]
fn key_that_became_a_number_fails_with_sarif_and_azure_lines() {
    let o = check(
        &[
            "fixtures/ci/number.jsonl",
            "--key",
            "/customerId",
            "--format",
            "sarif",
            "--annotations",
            "azure",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let s = json(&o);
    assert_eq!(s["version"], "2.1.0");
    let results = s["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["ruleId"], "SCHEMA_KEY_TYPE_CHANGED");
    assert_eq!(results[0]["level"], "error");
    let loc = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "fixtures/ci/number.jsonl");
    assert_eq!(loc["region"]["startLine"], 101);
    assert_eq!(
        s["runs"][0]["tool"]["driver"]["rules"][0]["id"],
        "SCHEMA_KEY_TYPE_CHANGED"
    );
    let err = text(&o.stderr);
    assert!(
        err.starts_with("##vso[task.logissue type=error;sourcepath=fixtures/ci/number.jsonl;linenumber=101;code=SCHEMA_KEY_TYPE_CHANGED]5 documents have /customerId as a number where 595 others have a string"),
        "{err}"
    );
}

#[test]
fn growth_past_the_threshold_fails_and_regresses_against_the_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.json");
    let base = base.to_str().unwrap();
    let o = check(
        &[
            "fixtures/ci/sample.jsonl",
            "--key",
            "/customerId",
            "--total-size",
            "50GB",
            "--write-baseline",
            base,
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let summary = dir.path().join("summary.md");
    let o = check(
        &[
            "fixtures/ci/growth.jsonl",
            "--key",
            "/customerId",
            "--total-size",
            "50GB",
            "--baseline",
            base,
            "--format",
            "json",
        ],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
    );
    assert_eq!(o.status.code(), Some(1));
    let r = json(&o);
    let c = codes(&r);
    // c0000: 260 of 858 documents = 30.3 % of 50 GB = 15.1 GB, 75.7 % of 20 GB (> 70 %).
    for code in [
        "POLICY_PARTITION_SIZE",
        "BASELINE_VERDICT_DEGRADED",
        "BASELINE_NEW_FINDING",
        "BASELINE_PARTITION_GREW",
        "BASELINE_SKEW_WORSE",
    ] {
        assert!(c.contains(&code.to_string()), "{code} in {c:?}");
    }
    let msg = r["check"]["violations"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("75.7% of the 20 GB limit, over the policy's 70.0%"),
        "{msg}"
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("# pkadvisor check: FAIL\n"), "{md}");
    assert!(md.contains("Gate for key /customerId: FAIL"));
    // The same growth passes a looser policy (the verdict is warn, not fail).
    let o = check(
        &[
            "fixtures/ci/growth.jsonl",
            "--key",
            "/customerId",
            "--total-size",
            "50GB",
            "--max-partition-share",
            "0.8",
            "--annotations",
            "github",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    // Its warnings are still annotated, without failing the step.
    let err = text(&o.stderr);
    assert!(
        err.contains(
            "::warning title=LOGICAL_PARTITION_NEAR_LIMIT::logical partition `c0000` could reach"
        ),
        "{err}"
    );
    assert!(
        err.contains("pkadvisor check: PASS (0 failures, 1 warning)"),
        "{err}"
    );
    // ... and fails again when warnings fail the build.
    let o = check(
        &[
            "fixtures/ci/growth.jsonl",
            "--key",
            "/customerId",
            "--total-size",
            "50GB",
            "--max-partition-share",
            "0.8",
            "--fail-on",
            "warn",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn key_from_bicep_arm_and_terraform() {
    for file in ["fixtures/ci/main.bicep", "fixtures/ci/azuredeploy.json"] {
        let o = check(
            &[
                "fixtures/ci/sample.jsonl",
                "--from-iac",
                file,
                "--format",
                "json",
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(0), "{file}: {}", text(&o.stderr));
        assert_eq!(json(&o)["check"]["key"], "/customerId", "{file}");
    }
    // Two containers in the Terraform file: the user must choose.
    let o = check(
        &[
            "fixtures/ci/sample.jsonl",
            "--from-iac",
            "fixtures/ci/main.tf",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains(
        "2 containers declare a partition key (orders, events); choose one with --container NAME"
    ));
    // The events container's MultiHash key is missing from the orders sample: the policy
    // failure points at the key's declaration, main.tf line 15.
    let o = check(
        &[
            "fixtures/ci/sample.jsonl",
            "--from-iac",
            "fixtures/ci/main.tf",
            "--container",
            "events",
            "--format",
            "json",
            "--annotations",
            "github",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let r = json(&o);
    assert_eq!(r["check"]["key"], "/tenantId>/userId");
    assert!(codes(&r).contains(&"SCHEMA_KEY_MISSING".to_string()));
    let err = text(&o.stderr);
    assert!(
        err.contains("::error file=fixtures/ci/main.tf,line=15,title=KEY_PATH_MISSING::"),
        "{err}"
    );
}

#[test]
fn usage_and_config_errors_exit_2() {
    let o = check(&["fixtures/ci/sample.jsonl"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no key to check: pass --key /tenantId"));
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("pkadvisor.toml");
    std::fs::write(&bad, "key = \"/a\"\nmax_partiton_share = 1\n").unwrap();
    let o = check(
        &[
            "fixtures/ci/sample.jsonl",
            "--config",
            bad.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("pkadvisor.toml") && err.contains("max_partiton_share"),
        "{err}"
    );
    let o = check(&["fixtures/ci/missing.jsonl", "--key", "/a"], &[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn write_baseline_over_an_input_is_refused_and_the_input_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let data = dir.join("sample.jsonl");
    let content = "{\"t\":\"a\"}\n{\"t\":\"b\"}\n";
    std::fs::write(&data, content).unwrap();
    let path = data.display().to_string();
    // The same file under another name is still the input.
    let other = dir.join(".").join("sample.jsonl").display().to_string();
    let o = check(&["--key", "/t", &path, "--write-baseline", &other], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("that is one of the inputs"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(std::fs::read_to_string(&data).unwrap(), content);
}

/// `--min-first-level` on a hierarchical key, exact and with keys sampled by `--memory-limit`:
/// an exact count fails below the minimum; an estimated one fails only when its whole 95 %
/// interval is below, warns (exit 0) when the interval straddles the minimum, and passes above.
#[test]
fn first_level_minimum_judges_an_estimate_by_its_interval() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tenants.jsonl");
    // 40,000 documents, 2,000 tenants of 20 users each, every user distinct.
    let mut text = String::new();
    for i in 0..40_000 {
        text.push_str(&format!(
            "{{\"id\":\"d{i}\",\"t\":\"t{}\",\"u\":\"u{i}\"}}\n",
            i % 2000
        ));
    }
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let gate = |min: u64, sampled: bool| {
        let min = min.to_string();
        let mut args = vec![file, "--key", "/t>/u", "--min-first-level", &min];
        args.extend(["--format", "json"]);
        if sampled {
            args.extend(["--memory-limit", "1MB"]);
        }
        let o = check(&args, &[]);
        let r = json(&o);
        let first = r["candidates"][0]["levels"][0].clone();
        let v: Vec<(String, String)> = r["check"]["violations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["code"] == "POLICY_FIRST_LEVEL_CARDINALITY")
            .map(|v| {
                let s = |k: &str| v[k].as_str().unwrap().to_string();
                (s("severity"), s("message"))
            })
            .collect();
        (o.status.code(), first, v)
    };

    // Exact: 2,000 tenants.
    let (code, first, v) = gate(2001, false);
    assert_eq!(first["distinct_prefixes"], 2000);
    assert!(first.get("distinct_prefixes_range").is_none(), "{first}");
    assert_eq!(code, Some(1));
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].0, "fail");
    assert!(
        v[0].1
            .starts_with("the first level has 2000 distinct values"),
        "{}",
        v[0].1
    );
    let (code, _, v) = gate(2000, false);
    assert_eq!((code, v.len()), (Some(0), 0));

    // Sampled: an estimate whose interval holds the truth.
    let (_, first, _) = gate(1, true);
    let range = &first["distinct_prefixes_range"];
    let (lo, hi) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
    assert!(
        lo <= 2000 && 2000 <= hi,
        "interval {lo}-{hi} holds the 2,000 tenants"
    );
    assert!(lo < hi, "a sampled count has a real interval: {lo}-{hi}");
    // The whole interval under the minimum: fails.
    let (code, _, v) = gate(hi + 1, true);
    assert_eq!(code, Some(1));
    assert_eq!(v[0].0, "fail");
    assert!(
        v[0].1.contains(&format!(
            "95 % interval {lo} – {hi}, all under the policy's {}",
            hi + 1
        )),
        "{}",
        v[0].1
    );
    // The minimum inside the interval: the sample cannot tell, a warning, the gate passes.
    let (code, _, v) = gate(hi, true);
    assert_eq!(code, Some(0));
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].0, "warn");
    assert!(v[0].1.contains("straddles the policy's"), "{}", v[0].1);
    assert!(v[0].1.contains("raise --memory-limit"), "{}", v[0].1);
    // The whole interval at or above the minimum: passes, nothing to say.
    let (code, _, v) = gate(lo, true);
    assert_eq!((code, v.len()), (Some(0), 0));
}

/// Issue #27 H4: a key that is a variable used to be replaced by the first string of a later
/// list, and the gate ran on that key. Now nothing is gated: exit 2, the file, line and fix.
#[test]
fn key_from_iac_that_is_a_variable_exits_2_with_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let bicep = dir.path().join("main.bicep");
    std::fs::write(
        &bicep,
        "param pkPaths array = ['/customerId']\n\nresource c 'Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers@2024-05-15' = {\n  name: 'orders'\n  properties: {\n    resource: {\n      id: 'orders'\n      partitionKey: {\n        paths: pkPaths\n      }\n    }\n  }\n}\nvar regions = ['/id']\n",
    )
    .unwrap();
    let tf = dir.path().join("main.tf");
    std::fs::write(
        &tf,
        "resource \"azurerm_cosmosdb_sql_container\" \"orders\" {\n  name                = \"orders\"\n  partition_key_paths = var.pk\n}\nlocals {\n  other = [\"/id\"]\n}\n",
    )
    .unwrap();
    for (file, line, expr) in [(&bicep, 9, "pkPaths"), (&tf, 3, "var.pk")] {
        let o = check(
            &[
                "fixtures/ci/sample.jsonl",
                "--from-iac",
                file.to_str().unwrap(),
                "--format",
                "json",
            ],
            &[],
        );
        assert_eq!(o.status.code(), Some(2));
        assert!(o.stdout.is_empty(), "{}", text(&o.stdout));
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!(
                "{}:{line}: the partition key paths are the expression `{expr}`, which pkadvisor cannot evaluate; pass the key with --key (e.g. --key /tenantId)",
                file.display()
            )),
            "{err}"
        );
    }
}

#[test]
fn numbers_from_the_config_and_flags_have_ranges() {
    // `top = 4294967296` in pkadvisor.toml aborted the run (SIGABRT) while allocating the list.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pkadvisor.toml");
    std::fs::write(&file, "key = \"/a\"\ntop = 4294967296\n").unwrap();
    let o = check(
        &[
            "fixtures/ci/sample.jsonl",
            "--config",
            file.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stderr),
        format!(
            "pkadvisor: {}: top = 4294967296: must be from 0 to 100,000 (more is never useful and \
             allocates memory for each)\n",
            file.display()
        )
    );
    // A threshold of 1e308 is too large, not "a non-negative number" missing.
    let o = check(
        &[
            "fixtures/ci/sample.jsonl",
            "--key",
            "/a",
            "--max-partition-share",
            "1e308",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--max-partition-share 1e308: too large, at most 1000000"),
        "{}",
        text(&o.stderr)
    );
    // A share of documents is at most 1.
    let o = check(
        &[
            "fixtures/ci/sample.jsonl",
            "--key",
            "/a",
            "--max-undefined-share",
            "1.5",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("--max-undefined-share 1.5: too large, at most 1 "),
        "{}",
        text(&o.stderr)
    );
}

/// `check --key` is the container's one key: `auto` (which panicked, and with `--compare /id`
/// gated `/id`) and a list (`/k,/id` gated `/k` and compared `/id`) are refused with the fix;
/// the compare list is capped (each key is measured over the whole sample).
#[test]
fn the_gated_key_is_one_key() {
    for (key, want) in [
        ("auto", "`auto` is analyze's search"),
        ("auto,/id", "`auto` is analyze's search"),
        ("/customerId,/id", "check gates one key, this lists 2"),
    ] {
        let o = Test::new()
            .args(["check", "fixtures/ci/sample.jsonl", "--key", key])
            .args(["--compare", "/id"])
            .run()
            .bad_input();
        assert!(o.stderr.contains(want), "{key}: {}", o.stderr);
    }
    let many: Vec<String> = (0..101).map(|i| format!("/p{i}")).collect();
    let o = Test::new()
        .args(["check", "fixtures/ci/sample.jsonl", "--key", "/customerId"])
        .args(["--compare", &many.join(",")])
        .run()
        .bad_input();
    assert!(
        o.stderr.contains("101 keys to compare with") && o.stderr.contains("at most 100"),
        "{}",
        o.stderr
    );
    let o = Test::new()
        .args(["analyze", "fixtures/ci/sample.jsonl", "-c"])
        .arg(
            (0..1001)
                .map(|i| format!("/p{i}"))
                .collect::<Vec<_>>()
                .join(","),
        )
        .run()
        .bad_input();
    assert!(
        o.stderr.contains("1001 candidates: at most 1000"),
        "{}",
        o.stderr
    );
}
