//! The recommendation on generated datasets with known right answers (issue: "Advise, don't just
//! measure"). Field names are unlike the bundled fixtures' so nothing can lean on names, and
//! every run uses the automatic candidate search: the right key must be found, not given.

use std::fmt::Write as _;
use std::path::Path;

use crate::util::Test;

/// A small deterministic generator (64-bit LCG, the high bits) so the data never changes.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub(crate) fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 31) as f64
    }

    /// An index in 0..n with weight 1 / (i + 1)^s.
    pub(crate) fn zipf(&mut self, cumulative: &[f64]) -> usize {
        let x = self.unit() * cumulative[cumulative.len() - 1];
        cumulative.partition_point(|&c| c < x)
    }
}

pub(crate) fn zipf_table(n: usize, s: f64) -> Vec<f64> {
    let mut acc = 0.0;
    (0..n)
        .map(|i| {
            acc += 1.0 / ((i + 1) as f64).powf(s);
            acc
        })
        .collect()
}

pub(crate) fn analyze(
    dir: &Path,
    data: &str,
    workload: Option<&str>,
    extra: &[&str],
) -> serde_json::Value {
    std::fs::write(dir.join("data.jsonl"), data).unwrap();
    let mut args: Vec<String> = vec![
        "analyze".into(),
        dir.join("data.jsonl").display().to_string(),
        "--format".into(),
        "json".into(),
    ];
    if let Some(w) = workload {
        std::fs::write(dir.join("workload.yaml"), w).unwrap();
        args.push("--workload".into());
        args.push(dir.join("workload.yaml").display().to_string());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    Test::new().args(args).run().success().json()
}

fn verdict_of<'a>(r: &'a serde_json::Value, spec: &str) -> &'a str {
    r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == spec)
        .unwrap_or_else(|| panic!("{spec} not analyzed"))["verdict"]
        .as_str()
        .unwrap()
}

fn codes<'a>(r: &'a serde_json::Value, spec: &str) -> Vec<&'a str> {
    r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == spec)
        .unwrap()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

/// 300 organisations with Zipf(1.2) sizes (the largest holds about a fifth of the data) and
/// members within each: at 2 TB the largest organisation alone is far over 20 GB, so `/org`
/// fails, and the queries filter by organisation: a hierarchical key led by `/org` wins.
#[test]
fn multi_tenant_with_giant_tenants_gets_a_hierarchical_key_led_by_the_tenant() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(7);
    let orgs = zipf_table(300, 1.2);
    let mut data = String::new();
    for i in 0..20_000 {
        let org = rng.zipf(&orgs);
        let member = rng.below(5 + 600 / (org as u64 + 1));
        let kind = ["a", "b", "c", "d"][rng.below(4) as usize];
        writeln!(
            data,
            r#"{{"id":"d{i}","org":"org{org}","member":"m{org}-{member}","kind":"{kind}","score":{:.3},"created":"2024-0{}-{:02}T{:02}:00:00Z"}}"#,
            rng.unit() * 10.0,
            1 + i * 6 / 20_000,
            1 + i % 28,
            i % 24
        )
        .unwrap();
    }
    let workload = "writes: {per_sec: 2000}\nqueries:\n  - {name: org dashboard, per_sec: 50, filter: {/org: eq}}\n  - {name: member items, per_sec: 500, filter: {/org: eq, /member: eq}}\n";
    let r = analyze(dir.path(), &data, Some(workload), &["--total-size", "2TB"]);
    let rec = &r["recommendation"];
    let spec = rec["spec"].as_str().unwrap();
    assert!(spec.starts_with("/org>"), "recommended {spec}");
    assert_eq!(rec["status"], "recommended");
    assert_eq!(
        rec["container_definition"]["partitionKey"]["kind"], "MultiHash",
        "{rec}"
    );
    assert_eq!(verdict_of(&r, "/org"), "fail");
    assert!(codes(&r, "/org").contains(&"LOGICAL_PARTITION_OVER_LIMIT"));
    // The numeric score field and the enum are left out with their reasons.
    let excluded = r["discovery"]["excluded"].to_string();
    assert!(
        excluded.contains("/score") && excluded.contains("measurement"),
        "{excluded}"
    );
    assert!(
        excluded.contains("/kind") && excluded.contains("finite domain of 4"),
        "{excluded}"
    );
}

/// 400 sensors with Zipf(1.0) traffic report in time order; queries read one sensor's history.
/// The key must be led by the sensor, and never be a time bucket (every current write would go
/// to the current bucket).
#[test]
fn iot_readings_get_a_key_led_by_the_device_never_a_time_bucket() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(11);
    let sensors = zipf_table(400, 1.0);
    let mut data = String::new();
    let mut t = 1_714_000_000u64;
    for i in 0..20_000 {
        let s = rng.zipf(&sensors);
        t += 30;
        writeln!(
            data,
            r#"{{"id":"r{i}","sensor":"s{s:04}","site":"site{}","reading_at":{t},"value":{:.2}}}"#,
            s % 15,
            rng.unit() * 100.0
        )
        .unwrap();
    }
    let workload = "writes: {per_sec: 5000}\nqueries:\n  - {name: sensor history, per_sec: 200, filter: {/sensor: eq, /reading_at: range}}\n";
    let r = analyze(dir.path(), &data, Some(workload), &["--total-size", "2TB"]);
    let spec = r["recommendation"]["spec"].as_str().unwrap();
    assert!(spec.starts_with("/sensor"), "recommended {spec}");
    for bucket in ["hour(", "day(", "month(", "year("] {
        assert!(!spec.contains(bucket), "recommended a time bucket: {spec}");
    }
    assert_eq!(r["discovery"]["excluded"][0]["path"], "/reading_at");
}

/// Profiles read by id, 10,000 per second: `/id` serves every read as a point read.
#[test]
fn user_profiles_read_by_id_get_id() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(3);
    let mut data = String::new();
    for i in 0..10_000u64 {
        let country = ["de", "fr", "us", "jp", "br"][rng.below(5) as usize];
        writeln!(
            data,
            r#"{{"id":"u{i:06}","handle":"h{}","email":"x{i}@example.com","country":"{country}","signup":"2023-{:02}-{:02}T10:00:00Z"}}"#,
            i * 7919 % 100_003,
            1 + i % 12,
            1 + i % 28
        )
        .unwrap();
    }
    let workload = "reads: {per_sec: 10000, by: [/id]}\nwrites: {per_sec: 100, kind: upsert}\n";
    let r = analyze(
        dir.path(),
        &data,
        Some(workload),
        &["--total-size", "500GB"],
    );
    assert_eq!(r["recommendation"]["spec"], "/id");
    assert!(codes(&r, "/email").contains(&"POINT_READ_NEEDS_QUERY"));
}

/// 500 documents and no projection: everything fits in one logical partition, and the
/// recommendation says the choice barely matters.
#[test]
fn when_everything_fits_the_choice_barely_matters() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = String::new();
    for i in 0..500 {
        writeln!(
            data,
            r#"{{"id":"{i}","shop":"s{}","item":"i{}"}}"#,
            i % 20,
            i % 90
        )
        .unwrap();
    }
    let r = analyze(dir.path(), &data, None, &[]);
    let rec = &r["recommendation"];
    assert_eq!(rec["choice_barely_matters"], true);
    let reasons = rec["reasons"].to_string();
    assert!(reasons.contains("barely matters"), "{reasons}");
    assert!(reasons.contains("100 GB and 30,000 RU/s"), "{reasons}");
}

/// Orders of 1–8 lines placed in one transactional batch: a key that splits an order (`/id`)
/// fails; the recommendation keeps every order in one logical partition.
#[test]
fn a_key_that_splits_a_declared_transaction_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(5);
    let mut data = String::new();
    let mut line = 0;
    let mut orders_over_one_line = 0;
    for o in 0..3000 {
        let buyer = rng.below(400);
        let lines = 1 + rng.below(8);
        orders_over_one_line += u64::from(lines > 1);
        for _ in 0..lines {
            line += 1;
            writeln!(
                data,
                r#"{{"id":"l{line}","order_no":{},"buyer":"b{buyer}","sku":"sku{}","qty":{}}}"#,
                1000 + o,
                rng.below(200),
                1 + rng.below(5)
            )
            .unwrap();
        }
    }
    let workload = "writes: {per_sec: 300}\ntransactions:\n  - {name: place order, by: [/order_no], per_sec: 40}\nqueries:\n  - {name: order, per_sec: 100, filter: {/order_no: eq}}\n";
    let r = analyze(dir.path(), &data, Some(workload), &["--total-size", "2TB"]);
    assert_eq!(verdict_of(&r, "/id"), "fail");
    let id = r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == "/id")
        .unwrap();
    let split = id["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "TRANSACTION_GROUP_SPLIT")
        .expect("the split is a finding");
    // Every order with more than one line is split by the line id.
    assert_eq!(split["evidence"]["groups"], 3000);
    assert_eq!(split["evidence"]["split"], orders_over_one_line);
    let spec = r["recommendation"]["spec"].as_str().unwrap();
    assert!(
        !codes(&r, spec).contains(&"TRANSACTION_GROUP_SPLIT"),
        "recommended {spec}, which splits orders"
    );
    assert!(codes(&r, spec).contains(&"GROUP_KEPT_TOGETHER"));
}

/// `--current-key`: the key today is analyzed too and compared with the recommendation; at 6 TB
/// the portal's offline copy (below 4 TB) does not apply. 3,000 events of 453 bytes mean stored
/// size at 6 TB are 6e12 / 453.0… items, each read once (1 RU) and written once (10 RU with
/// default indexing): 11 RU per item.
#[test]
fn a_current_key_gets_the_cost_of_changing_it() {
    let r = Test::new()
        .args([
            "analyze",
            "fixtures/events.jsonl",
            "-c",
            "/tenantId>/userId>/id",
            "--current-key",
            "/tenantId",
            "--total-size",
            "6TB",
            "--copy-ru",
            "50000",
            "--format",
            "json",
        ])
        .run()
        .success()
        .json();
    let k = &r["recommendation"]["key_change"];
    assert_eq!(k["current"], "/tenantId");
    assert_eq!(k["current_verdict"], "fail");
    assert_eq!(k["change_recommended"], true);
    assert_eq!(k["path"], "live_migration");
    let items = k["items"].as_f64().unwrap();
    let ru = k["read_ru"].as_f64().unwrap() + k["write_ru"].as_f64().unwrap();
    assert!(
        (ru / items - 11.0).abs() < 1e-9,
        "{} RU per item",
        ru / items
    );
    let hours = k["hours"].as_f64().unwrap();
    assert!((hours - ru / 50_000.0 / 3600.0).abs() < 1e-6);
    // The key today is judged like any candidate.
    assert!(r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["spec"] == "/tenantId"));
}

/// `pkadvisor fields` on the bundled events (fixtures/gen_fixtures.py; counted independently with
/// Python's json module): /tenantId is missing from 27 documents and null in 17 of the 3,000,
/// there are 224 users and a unique id per event; /ts is the time field; /"plan tier" has 3
/// values.
#[test]
fn fields_profiles_the_bundled_events() {
    let r = Test::new()
        .args(["fields", "fixtures/events.jsonl", "--format", "json"])
        .run()
        .success()
        .json();
    assert_eq!(r["documents"], 3000);
    assert_eq!(r["time_field"], "/ts");
    assert_eq!(r["id_property"]["advice"], "ok");
    let field = |p: &str| {
        r["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .unwrap_or_else(|| panic!("{p}"))
            .clone()
    };
    let t = field("/tenantId");
    assert!((t["missing_share"].as_f64().unwrap() - 27.0 / 3000.0).abs() < 1e-12);
    assert!((t["null_share"].as_f64().unwrap() - 17.0 / 3000.0).abs() < 1e-12);
    assert_eq!(t["present"], 3000 - 27 - 17);
    assert_eq!(field("/userId")["distinct"], 224);
    assert_eq!(field("/id")["looks_like"], "id");
    assert_eq!(field("/ts")["looks_like"], "timestamp");
    assert_eq!(field("/\"plan tier\"")["looks_like"], "enum");
    assert_eq!(field("/device")["looks_like"], "nested");
    // The table lists every path; --explain adds the left-out fields to analyze's text output.
    let table = Test::new()
        .args(["fields", "fixtures/events.jsonl"])
        .run()
        .success()
        .stdout;
    assert!(table.contains("/device/region") && table.contains("/\"plan tier\""));
    let plain = Test::new()
        .args(["analyze", "fixtures/events.jsonl"])
        .run()
        .success()
        .stdout;
    let explained = Test::new()
        .args(["analyze", "fixtures/events.jsonl", "--explain"])
        .run()
        .success()
        .stdout;
    assert!(!plain.contains("Left out:") && explained.contains("Left out:"));
    // Sessions (1,071 values) and users (224) group several events each: the natural groups.
    // Every session belongs to one user (fixtures/gen_fixtures.py), so /userId keeps both.
    let auto = Test::new()
        .args(["analyze", "fixtures/events.jsonl", "--format", "json"])
        .run()
        .success()
        .json();
    assert_eq!(
        auto["discovery"]["natural_groups"],
        serde_json::json!(["/sessionId", "/userId"])
    );
    let user = auto["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["spec"] == "/userId")
        .unwrap();
    let kept: Vec<&str> = user["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "NATURAL_GROUP_KEPT")
        .map(|f| f["evidence"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(kept, ["/sessionId", "/userId"]);
    assert!(explained.contains("/type: finite domain of 5 values"));
}

/// Every candidate fails: one region holds every document, and 1 TB of it cannot fit in one
/// logical partition. The least bad is named, with fixes that would pass: /id last, or a hashed
/// suffix with enough buckets to bring 1 TB under the 14 GB alert level (1 TB / 14 GB = 71.4,
/// so 128 buckets).
#[test]
fn when_nothing_passes_the_fixes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = String::new();
    for i in 0..400 {
        writeln!(
            data,
            r#"{{"id":"{i}","region":"north","kind":"k{}"}}"#,
            i % 2
        )
        .unwrap();
    }
    let r = analyze(
        dir.path(),
        &data,
        None,
        &["-c", "/region", "--total-size", "1TB"],
    );
    let rec = &r["recommendation"];
    assert_eq!(rec["status"], "none_passes");
    assert_eq!(rec["spec"], "/region");
    let fixes = rec["fixes"].to_string();
    assert!(fixes.contains("/region>/id"), "{fixes}");
    assert!(fixes.contains("/region+hash(/id)%128"), "{fixes}");
    assert!(fixes.contains("dedicated container"), "{fixes}");
}

/// `--max-candidates` bounds the search and says what it cut.
#[test]
fn the_search_is_bounded_and_says_what_it_cut() {
    let r = Test::new()
        .args([
            "analyze",
            "fixtures/events.jsonl",
            "--max-candidates",
            "3",
            "--format",
            "json",
        ])
        .run()
        .success()
        .json();
    let d = &r["discovery"];
    assert_eq!(d["generated"].as_array().unwrap().len(), 3);
    assert!(!d["dropped"].as_array().unwrap().is_empty());
    assert_eq!(r["candidates"].as_array().unwrap().len(), 3);
    // The point-read baseline comes first.
    assert_eq!(d["generated"][0]["spec"], "/id");
}

/// The automatic search reads its input more than once: standard input is saved to a temporary file
/// (sniffed like standard input), and the result equals the file's.
#[test]
fn the_automatic_search_reads_standard_input() {
    let text = std::fs::read_to_string("fixtures/tiny.jsonl").unwrap();
    let piped = Test::new()
        .args(["analyze", "-", "--format", "json"])
        .stdin(text)
        .run()
        .success();
    assert!(
        piped
            .stderr
            .contains("standard input (214 bytes) was saved"),
        "{}",
        piped.stderr
    );
    let from_file = Test::new()
        .args(["analyze", "fixtures/tiny.jsonl", "--format", "json"])
        .run()
        .success()
        .json();
    let r = piped.json();
    assert_eq!(
        r["recommendation"]["spec"],
        from_file["recommendation"]["spec"]
    );
    assert_eq!(
        r["discovery"]["generated"],
        from_file["discovery"]["generated"]
    );
}

/// The automatic search leads hierarchies with the entity the data is named for, not with an
/// attribute that happens to repeat: `/device/os` (20 values, each in thousands of documents)
/// used to be a first level (`/device/os>/tenantId`, `/device/os>/userId`, three levels too),
/// each a full pass of a key table for a key no architect would choose.
#[test]
fn attributes_do_not_lead_hierarchies_when_an_entity_is_named() {
    use std::fmt::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(3);
    let mut data = String::new();
    for i in 0..4000 {
        writeln!(
            data,
            r#"{{"id":"e{i}","tenantId":"t{}","userId":"u{}","device":{{"os":"v{}"}}}}"#,
            rng.below(50),
            rng.below(2000),
            rng.below(20)
        )
        .unwrap();
    }
    let r = analyze(dir.path(), &data, None, &[]);
    let generated: Vec<&str> = r["discovery"]["generated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["spec"].as_str().unwrap())
        .collect();
    assert!(generated.contains(&"/tenantId>/userId"), "{generated:?}");
    assert!(
        !generated.iter().any(|g| g.starts_with("/device/os>")),
        "{generated:?}"
    );
}
