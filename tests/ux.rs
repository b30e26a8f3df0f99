//! What a user reads: tables that fit the width they are given (80, 100 and 120 columns) with
//! no name, path or number broken, map-like objects summarised as one path pattern, and a
//! `check` that opens with the gate's verdict. The inputs are generated here, shaped like the
//! MongoDB theaters sample (long nested paths) and a countries list (`translations/<lang>`).

use std::path::{Path, PathBuf};

use crate::util::Test;

/// 600 theaters: `/location/address/{street1,city,state,zipcode}` and a GeoJSON point.
fn theaters(dir: &Path) -> PathBuf {
    let mut s = String::new();
    for i in 0..600u32 {
        s.push_str(&format!(
            "{{\"id\":\"t{i}\",\"theaterId\":{},\"location\":{{\"address\":{{\"street1\":\"{i} Main St\",\"city\":\"City{}\",\"state\":\"S{}\",\"zipcode\":\"{}\"}},\"geo\":{{\"type\":\"Point\",\"coordinates\":[-93.2,{}.5]}}}}}}\n",
            1000 + i,
            i % 120,
            i % 7,
            10000 + i % 360,
            i % 40
        ));
    }
    let p = dir.join("theaters.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

const LANGS: [&str; 10] = [
    "ara", "ces", "deu", "fin", "fra", "jpn", "kor", "nld", "por", "spa",
];

/// 120 countries, each with `translations/<lang>/{official,common}` for the ten languages
/// and three currencies (too few keys for a map).
fn countries(dir: &Path) -> PathBuf {
    let mut s = String::new();
    for i in 0..120u32 {
        let tr: Vec<String> = LANGS
            .iter()
            .map(|l| format!("\"{l}\":{{\"official\":\"o{i}{l}\",\"common\":\"c{i}{l}\"}}"))
            .collect();
        let cur = ["EUR", "USD", "XOF"][i as usize % 3];
        s.push_str(&format!(
            "{{\"id\":\"{i}\",\"cca3\":\"C{i:03}\",\"region\":\"R{}\",\"translations\":{{{}}},\"currencies\":{{\"{cur}\":{{\"name\":\"n\"}}}}}}\n",
            i % 5,
            tr.join(",")
        ));
    }
    let p = dir.join("countries.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

/// Runs at `columns` columns (through `COLUMNS`, as standard output is a pipe), the whole
/// report (`--detail`; `fields` has no other view).
fn at(columns: u16, args: &[&str]) -> String {
    let o = Test::new()
        .env("COLUMNS", &columns.to_string())
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(args)
        .arg("--quiet")
        .args((args[0] != "fields").then_some("--detail"))
        .run();
    assert!(o.status == 0 || o.status == 1, "{}", o.stderr);
    o.stdout
}

/// No line over `columns` characters, but the Bicep snippet's resource line: Bicep cannot
/// continue a line inside its 89-character type string, and a copied snippet must deploy
/// (docs/output.md).
fn fits(out: &str, columns: usize) {
    for l in out.lines() {
        if l.starts_with("    resource container 'Microsoft.DocumentDB/") {
            continue;
        }
        assert!(
            l.chars().count() <= columns,
            "a line of {} characters at {columns} columns:\n{l}\n\n{out}",
            l.chars().count()
        );
    }
}

/// Every name appears whole inside a table row (between two column separators).
fn whole_in_a_row(out: &str, names: &[String], columns: u16) {
    for n in names {
        let cell = format!(" {n} ");
        assert!(
            out.lines().any(|l| l.starts_with('│') && l.contains(&cell)),
            "`{n}` is not whole in any table row at {columns} columns:\n{out}"
        );
    }
}

fn candidates(args: &[&str]) -> Vec<String> {
    let r = Test::new()
        .args(args)
        .args(["--format", "json", "--quiet"])
        .json();
    r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["spec"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn analyze_fits_80_100_and_120_columns_without_breaking_a_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let file = theaters(dir.path());
    let f = file.to_str().unwrap();
    let names = candidates(&["analyze", f]);
    // The automatic search finds the long nested paths; a city and a zip code are attributes,
    // never proposed as keys or first levels (docs/recommendations.md).
    assert!(
        names.contains(&"/location/address/street1".to_string()),
        "{names:?}"
    );
    assert!(
        !names
            .iter()
            .any(|n| n.contains("city") || n.contains("zipcode")),
        "{names:?}"
    );
    for columns in [80u16, 100, 120] {
        let out = at(columns, &["analyze", f]);
        fits(&out, usize::from(columns));
        whole_in_a_row(&out, &names, columns);
        // What was left out to fit is said, never dropped silently.
        assert!(
            out.contains(&format!("(left out to fit {columns} columns: ")),
            "{out}"
        );
    }
}

#[test]
fn fields_fits_and_summarises_map_like_objects() {
    let dir = tempfile::tempdir().unwrap();
    let file = countries(dir.path());
    let f = file.to_str().unwrap();
    for columns in [80u16, 100, 120] {
        let out = at(columns, &["fields", f]);
        fits(&out, usize::from(columns));
        let patterns: Vec<String> = ["/translations/*", "/translations/*/official", "/cca3"]
            .map(String::from)
            .to_vec();
        whole_in_a_row(&out, &patterns, columns);
        // Cells keep their words: what a field looks like, and its distinct count.
        let kinds: Vec<String> = ["constant", "nested", "120"].map(String::from).to_vec();
        whole_in_a_row(&out, &kinds, columns);
        // Ten languages are one pattern each, not twenty rows; three currencies are listed.
        assert!(!out.contains("/translations/fra"), "{out}");
        assert!(out.contains("/currencies/EUR/name"), "{out}");
        let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("one row per path pattern (the JSON profile lists every path): /translations/* (10 keys)"),
            "the map-like objects are named with their key count:\n{out}"
        );
    }
    // The JSON profile keeps every path.
    let j = Test::new()
        .args(["fields", f, "--format", "json", "--quiet"])
        .json();
    let paths: Vec<&str> = j["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"/translations/fra/official"), "{paths:?}");
}

#[test]
fn check_fits_and_opens_with_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let file = theaters(dir.path());
    let f = file.to_str().unwrap();
    let key = "/location/address/city>/location/address/zipcode";
    for columns in [80u16, 100, 120] {
        let out = at(columns, &["check", f, "--key", key]);
        fits(&out, usize::from(columns));
        whole_in_a_row(&out, &[key.to_string()], columns);
        assert!(
            out.starts_with(&format!("Gate for key {key}: PASS\n")),
            "{out}"
        );
    }
}

#[test]
fn a_failing_check_says_fail_and_why_before_the_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let o = Test::new()
        .args([
            "check",
            "fixtures/ci/renamed.jsonl",
            "--key",
            "/customerId",
            "--quiet",
        ])
        .env("COLUMNS", "100")
        .env("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())
        .run();
    assert_eq!(o.status, 1, "{}", o.stderr);
    let first: Vec<&str> = o.stdout.lines().take(2).collect();
    assert_eq!(first[0], "Gate for key /customerId: FAIL", "{}", o.stdout);
    assert!(first[1].starts_with("- FAIL SCHEMA_KEY_MISSING: 20 of 600 documents lack"));
    // The key being gated is not "recommended" to its own team.
    assert!(!o.stdout.contains("Recommendation:"), "{}", o.stdout);
    assert!(
        o.stdout
            .contains("Gated key: /customerId (WARN; gate FAIL)"),
        "{}",
        o.stdout
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("# pkadvisor check: FAIL\n\nGate for key /customerId: FAIL\n- FAIL SCHEMA\\_KEY\\_MISSING: 20 of 600"),
        "{md}"
    );
    assert!(md.find("partition key analysis").unwrap() > md.find("Likely renamed").unwrap());
    assert!(
        o.stderr
            .contains("pkadvisor check: FAIL (1 failure, 0 warnings)"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_missing_key_names_the_property_it_was_likely_renamed_to() {
    // fixtures/ci/renamed.jsonl: the last 20 of 600 orders hold `customer_id`.
    let r = Test::new()
        .args([
            "check",
            "fixtures/ci/renamed.jsonl",
            "--key",
            "/customerId",
            "--format",
            "json",
            "--quiet",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    let j: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let msg = j["check"]["violations"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("Likely renamed: 20 of them hold `customer_id` instead."),
        "{msg}"
    );
}

#[test]
fn piped_tables_are_100_columns_unless_columns_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let file = theaters(dir.path());
    let f = file.to_str().unwrap();
    let widest = |out: &str| {
        out.lines()
            .filter(|l| l.starts_with('┌'))
            .map(|l| l.chars().count())
            .max()
            .unwrap()
    };
    let piped = Test::new()
        .env_remove("COLUMNS")
        .args(["analyze", f, "--quiet", "--detail"])
        .run()
        .success()
        .stdout;
    assert!(widest(&piped) <= 100 && widest(&piped) > 80, "{piped}");
    let wide = at(200, &["analyze", f]);
    assert!(widest(&wide) > 100, "{wide}");
}

#[test]
fn every_format_shows_the_bicep_snippet_the_report_points_to() {
    for format in ["table", "markdown", "html"] {
        let o = Test::new()
            .args([
                "analyze",
                "fixtures/tiny.jsonl",
                "--candidates",
                "/tenantId>/id",
                "--format",
                format,
                "--quiet",
                "--detail",
            ])
            .run()
            .success();
        assert!(o.stdout.contains("deploy the Bicep snippet"), "{format}");
        assert!(
            o.stdout.contains("resource container")
                && o.stdout
                    .contains("Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers")
                && o.stdout.contains("kind: ")
                && o.stdout.contains("MultiHash"),
            "{format}: no Bicep snippet\n{}",
            o.stdout
        );
    }
}

#[test]
fn report_renders_a_saved_fields_profile_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let file = countries(dir.path());
    let saved = dir.path().join("profile.json");
    Test::new()
        .args(["fields", file.to_str().unwrap(), "-q", "-o"])
        .arg(&saved)
        .run()
        .success();
    let o = Test::new()
        .args(["report", saved.to_str().unwrap()])
        .env("COLUMNS", "100")
        .run()
        .success();
    assert!(
        o.stdout.starts_with("pkadvisor: field profile\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("/translations/*/official"),
        "{}",
        o.stdout
    );
    // A profile of another version is named as a profile, not as an old analysis report.
    let text = std::fs::read_to_string(&saved).unwrap();
    let old = dir.path().join("old.json");
    std::fs::write(
        &old,
        text.replacen("\"schema_version\": 2", "\"schema_version\": 1", 1),
    )
    .unwrap();
    let o = Test::new().args(["report", old.to_str().unwrap()]).run();
    assert_eq!(o.status, 2);
    assert!(
        o.stderr
            .contains("is a `pkadvisor fields` profile (schema_version 1)"),
        "{}",
        o.stderr
    );
}

#[test]
fn check_writes_sarif_to_a_sarif_file_without_format() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pk.sarif");
    let o = Test::new()
        .args([
            "check",
            "fixtures/ci/renamed.jsonl",
            "--key",
            "/customerId",
            "-q",
            "-o",
        ])
        .arg(&out)
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    assert_eq!(o.status, 1, "{}", o.stderr);
    let sarif: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["runs"][0]["results"][0]["ruleId"],
        "SCHEMA_KEY_MISSING"
    );
}

#[test]
fn the_extended_json_note_is_said_once_per_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mongo.jsonl");
    let mut s = String::new();
    for i in 0..50 {
        s.push_str(&format!(
            "{{\"_id\":{{\"$oid\":\"{i:024x}\"}},\"id\":\"{i}\",\"customerId\":\"c{}\"}}\n",
            i % 9
        ));
    }
    std::fs::write(&file, s).unwrap();
    let f = file.to_str().unwrap();
    // fields reads the input twice (the time-field peek, the profile), check twice (the
    // analysis, the schema look), analyze's automatic search twice.
    for args in [
        vec!["fields", f],
        vec!["check", f, "--key", "/customerId"],
        vec!["analyze", f],
    ] {
        let o = Test::new()
            .args(&args)
            .env_remove("GITHUB_STEP_SUMMARY")
            .run();
        assert_eq!(
            o.stderr.matches("Extended JSON detected").count(),
            1,
            "{args:?}: {}",
            o.stderr
        );
    }
}

#[test]
fn one_is_singular() {
    let o = Test::new()
        .args(["analyze", "-", "--candidates", "/k", "--quiet", "--detail"])
        .stdin("{\"id\":\"a\",\"k\":\"x\"}\n")
        .run()
        .success();
    assert!(
        o.stdout
            .contains("1 document in 1 logical partition; per partition"),
        "{}",
        o.stdout
    );
}

#[test]
fn rus_round_once_in_the_table_and_the_charts() {
    use pkadvisor::report::{json, render, render_view, OutputFormat, View};
    let mut r = json::read(include_str!("data/hand_report.json")).unwrap();
    // 312.5 RU/s allocated to each partition: `{:.0}` wrote 312 (half to even) in the table
    // while the charts' fmt::count wrote 313.
    let layout = r.candidates[0].layout.as_mut().unwrap();
    for p in &mut layout.partitions {
        p.ru_demand = 312.5;
        p.ru_allocated = Some(312.5);
    }
    let table = render_view(&r, OutputFormat::Table, false, View::Detail);
    let md = render(&r, OutputFormat::Markdown);
    for text in [&table, &md] {
        assert!(text.contains("313") && !text.contains(" 312 "), "{text}");
    }
    assert!(
        md.contains("313 RU/s allocated"),
        "the Mermaid chart:\n{md}"
    );
}

#[test]
fn a_workload_filter_on_a_path_the_data_lacks_is_named_with_the_likely_one() {
    // fixtures/ci/sample.jsonl holds `customerId`; the query says `customerID`.
    let r = Test::new()
        .args([
            "analyze",
            "fixtures/ci/sample.jsonl",
            "-c",
            "/customerId",
            "--query",
            "name=byCustomer,per_sec=20,filter=/customerID:eq",
            "--query",
            "name=byStatus,per_sec=5,filter=/status:eq",
            "--format",
            "json",
            "--quiet",
        ])
        .json();
    let f: Vec<&serde_json::Value> = r["input"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "WORKLOAD_PATH_NOT_IN_DATA")
        .collect();
    // Only the misspelt path: /status is in the data.
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0]["severity"], "warn");
    assert_eq!(f[0]["evidence"]["suggestions"][0], "/customerId");
    let msg = f[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("the workload filters on /customerID (query byCustomer), which none of the first 600 documents holds; did you mean /customerId?"),
        "{msg}"
    );
}

#[test]
fn a_hostile_renamed_property_is_named_neutralised() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let mut s = String::new();
    for i in 0..10 {
        s.push_str(&format!("{{\"id\":\"{i}\",\"customerId\":\"c\"}}\n"));
    }
    // One edit from `customerId` once lower-cased... plus a line break and a workflow command.
    s.push_str("{\"id\":\"x\",\"customerI\\n::error::pwned\":\"c\"}\n");
    s.push_str("{\"id\":\"y\",\"customerI\\n\":\"c\"}\n");
    std::fs::write(&file, s).unwrap();
    let o = Test::new()
        .args(["check", file.to_str().unwrap(), "--key", "/customerId"])
        .args(["--annotations", "github", "-q"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    assert_eq!(o.status, 1, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("Likely renamed: 1 of them holds `customerI\\u000a` instead."),
        "{}",
        o.stdout
    );
    for text in [&o.stdout, &o.stderr] {
        assert!(
            !text.lines().any(|l| l.starts_with("::error::pwned")),
            "{text}"
        );
    }
    assert!(
        o.stderr.contains("holds `customerI%0A` instead"),
        "{}",
        o.stderr
    );
}

#[test]
fn the_html_of_a_check_opens_with_its_gate() {
    let o = Test::new()
        .args([
            "check",
            "fixtures/ci/renamed.jsonl",
            "--key",
            "/customerId",
            "--format",
            "html",
            "-q",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .run();
    assert_eq!(o.status, 1, "{}", o.stderr);
    let gate = o.stdout.find("<h2>Gate</h2>").expect("a gate section");
    let analysis = o
        .stdout
        .find("Gated key: /customerId")
        .expect("the analysis");
    assert!(gate < analysis, "the gate comes after the analysis");
    assert!(o.stdout[gate..analysis].contains("SCHEMA_KEY_MISSING"));
}

/// With a workload the ranking is by cost, so the table shows each candidate's RU/s to provision
/// and monthly bill beside its verdict (the JSON's figures), in the wide layout and the narrow.
#[test]
fn the_ranking_shows_what_each_candidate_costs() {
    let f = crate::util::fixture("events.jsonl");
    let w = crate::util::fixture("workload.yaml");
    let args = [
        "analyze",
        f.to_str().unwrap(),
        "-c",
        "/tenantId>/id,/id",
        "--workload",
        w.to_str().unwrap(),
        "--total-size",
        "2TB",
        "-q",
    ];
    let json = Test::new().args(args).args(["--format", "json"]).json();
    let md = Test::new()
        .args(args)
        .args(["--format", "markdown"])
        .run()
        .success()
        .stdout;
    assert!(
        md.contains("| # | candidate | verdict | RU/s to provision | USD a month |")
            && md.contains("Cost columns: autoscale with dynamic scaling"),
        "{md}"
    );
    for c in json["candidates"].as_array().unwrap() {
        let k = &c["cost"];
        let auto = k["modes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["mode"] == "autoscale")
            .unwrap();
        let ru = auto["provisioned_ru_per_sec"].as_f64().unwrap();
        let usd = k["monthly_throughput_usd"].as_f64().unwrap()
            + k["monthly_storage_usd"].as_f64().unwrap();
        let cells = format!(
            "| {} | {} | {} | {} | {} |",
            c["rank"],
            // Markdown writes `>` as an entity (docs/output.md).
            c["spec"].as_str().unwrap().replace('>', "&gt;"),
            c["verdict"].as_str().unwrap().to_uppercase(),
            pkadvisor::fmt::count(ru),
            pkadvisor::fmt::count(usd)
        );
        assert!(md.contains(&cells), "{cells} not in\n{md}");
    }
    let narrow = at(100, &args[..args.len() - 1]);
    assert!(narrow.contains("┆ RU/s "), "{narrow}");
}

/// The three-candidate run with a workload the README shows, at `columns` columns.
fn three_with_a_workload(columns: u16, extra: &[&str]) -> String {
    Test::new()
        .env("COLUMNS", &columns.to_string())
        .args(["analyze", "fixtures/events.jsonl"])
        .args(["--candidates", "/tenantId,/userId,/tenantId>/userId"])
        .args([
            "--workload",
            "fixtures/workload.yaml",
            "--total-size",
            "500GB",
        ])
        .args(["--ru", "40000"])
        .args(extra)
        .run()
        .success()
        .stdout
}

#[test]
fn the_default_report_reads_in_a_minute() {
    let out = three_with_a_workload(100, &[]);
    let lines = out.lines().count();
    assert!(lines < 150, "{lines} lines:\n{out}");
    fits(&out, 100);
    // Headline first, then the recommendation, its container definition, the ranking.
    let l: Vec<&str> = out.lines().collect();
    assert_eq!(l[0], "pkadvisor: partition key analysis");
    assert!(
        l[2].starts_with("No candidate passes (least bad: /userId); 3 candidates"),
        "{out}"
    );
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("no {s:?} in\n{out}"));
    assert!(at("Recommendation:") < at("Container definition:"));
    assert!(at("Container definition:") < at("\nRanking\n"));
    assert!(out.contains("--partition-key-path /userId"));
    // The other candidates get one line each, naming their failures.
    assert!(
        out.contains("  - FAIL #3 /tenantId: LOGICAL_PARTITION_OVER_LIMIT"),
        "{out}"
    );
    // No estimator vocabulary, no per-candidate sections, no Bicep by default.
    for word in [
        "Good–Turing",
        "GEE",
        "Duj1",
        "Wilson",
        "Chao1",
        "Bicep",
        "#1 /userId (single)",
    ] {
        assert!(!out.contains(word), "{word} in the default report:\n{out}");
    }
    // --detail has them all, and is much longer.
    let detail = three_with_a_workload(100, &["--detail"]);
    for word in [
        "Chao1",
        "Wilson",
        "Bicep:",
        "#1 /userId (single): FAIL",
        "regime: ",
    ] {
        assert!(detail.contains(word), "{word} missing under --detail");
    }
    assert!(detail.lines().count() > 2 * lines);
    // -q: the headline alone.
    let quiet = three_with_a_workload(100, &["-q"]);
    assert_eq!(
        quiet.lines().collect::<Vec<_>>(),
        [
            "pkadvisor: partition key analysis",
            "=================================",
            "No candidate passes (least bad: /userId); 3 candidates: 0 pass, 0 warn, 3 fail"
        ]
    );
}

#[test]
fn sample_and_production_figures_have_their_own_labelled_columns() {
    let out = three_with_a_workload(250, &[]);
    let header: String = out
        .lines()
        .skip_while(|l| !l.starts_with('┌'))
        .take_while(|l| !l.starts_with('╞'))
        .collect::<Vec<_>>()
        .join("\n");
    for h in ["(sample)", "(production,"] {
        assert!(
            header.contains(h),
            "{h} not in the ranking's header:\n{header}"
        );
    }
    // /userId: 224 keys in the sample, about 1,662 (224–12,337) in production, in two cells.
    let row = out
        .lines()
        .find(|l| l.starts_with("│ 1 ") && l.contains("/userId"))
        .unwrap_or_else(|| panic!("{out}"));
    let cells: Vec<&str> = row.split('┆').map(str::trim).collect();
    assert!(cells.contains(&"224"), "{row}");
    assert!(cells.contains(&"1,662 (224–12,337)"), "{row}");
    // Without a workload there is no hottest physical partition: no empty column for it.
    let storage = Test::new()
        .env("COLUMNS", "250")
        .args([
            "analyze",
            "fixtures/events.jsonl",
            "-c",
            "/tenantId,/userId",
            "--ru",
            "40000",
        ])
        .run()
        .success()
        .stdout;
    assert!(!storage.contains("hottest physical"), "{storage}");
}

#[test]
fn the_html_opens_with_one_chart_comparing_the_candidates() {
    let html = three_with_a_workload(100, &["--format", "html"]);
    let pos = |s: &str| html.find(s).unwrap_or_else(|| panic!("no {s:?}"));
    // The first chart on the page is the comparison, before any section or table.
    let first_svg = pos("<svg");
    assert_eq!(first_svg, pos("<svg class=\"chart comparison\""));
    assert!(
        first_svg < pos("<h2"),
        "the comparison chart comes before the first section"
    );
    assert!(first_svg < pos("<table"));
    let svg = &html[first_svg..first_svg + html[first_svg..].find("</svg>").unwrap()];
    // One row per candidate in rank order, each with its verdict; RU/s compared too.
    for (rank, spec) in [
        (1, "/userId"),
        (2, "/tenantId&gt;/userId"),
        (3, "/tenantId"),
    ] {
        let row = svg.find(&format!("data-rank=\"{rank}\"")).unwrap();
        assert!(svg[row..].contains(spec), "{spec}");
    }
    assert_eq!(svg.matches("class=\"verdict fail\"").count(), 3);
    assert!(svg.contains("RU/s to provision"));
    // It fits 1,280 pixels: a 1,000-unit view box in a 1,240-pixel page, tables that may not
    // scroll sideways, and a ranking of the compact columns.
    assert!(svg.contains("viewBox=\"0 0 1000 "));
    assert!(!html.contains("overflow-x"), "no table scrolls sideways");
    let ranking = &html[pos("<table")..];
    let header = &ranking[..ranking.find("</tr>").unwrap()];
    assert!(header.matches("<th").count() <= 10, "{header}");
}

#[test]
fn html_drops_charts_that_carry_no_information() {
    // /id: one document per partition, an even spread: neither its Lorenz curve (the diagonal)
    // nor its largest partitions (one document each against 20 GB) says anything.
    let html = Test::new()
        .args(["analyze", "fixtures/events.jsonl", "-c", "/id,/tenantId"])
        .args(["--total-size", "500GB", "--format", "html"])
        .run()
        .success()
        .stdout;
    let section = |rank: u32| {
        let start = html.find(&format!("id=\"candidate-{rank}\"")).unwrap();
        let end = html[start..].find("</section>").unwrap();
        html[start..start + end].to_string()
    };
    let (first, second) = (section(1), section(2));
    let (id, tenant) = if first.contains("/id (") {
        (first, second)
    } else {
        (second, first)
    };
    assert!(!id.contains("Lorenz curve"), "{id}");
    assert!(!id.contains("largest logical partitions"), "{id}");
    assert!(tenant.contains("Lorenz curve"));
    assert!(tenant.contains("largest logical partitions (estimated stored bytes"));
}
