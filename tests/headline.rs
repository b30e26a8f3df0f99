//! What the headline says first (docs/recommendations.md, worked scenario 19): a limit no key
//! fixes leads every format, with where it is, what it stands for in production and the remedy.

use std::fmt::Write as _;

use crate::recommend::Rng;
use crate::util::Test;

/// 2,500 insurance claims; line 2,222 carries an inline attachment of 2,400,000 bytes (over the
/// 2,097,152-byte item limit) and three others attachments of 1.85–2.0 MB (under it).
fn claims(dir: &std::path::Path) -> std::path::PathBuf {
    let mut rng = Rng(9);
    let mut data = String::new();
    for i in 1..=2_500u64 {
        let attachment = match i {
            2_222 => 2_400_000,
            100 => 1_850_000,
            900 => 1_950_000,
            1_800 => 2_000_000,
            _ => 100 + rng.below(400) as usize,
        };
        writeln!(
            data,
            r#"{{"id":"c{i}","claimNo":"CL{:05}","policy":"P{}","attachment":"{}"}}"#,
            rng.below(300),
            rng.below(50),
            "A".repeat(attachment)
        )
        .unwrap();
    }
    let path = dir.join("claims.jsonl");
    std::fs::write(&path, data).unwrap();
    path
}

/// Scenario 19. One document of the sample is over the item limit: the first lines of the
/// table, the Markdown and the HTML say so before the recommendation, with its place
/// (claims.jsonl:2222), the production items it stands for (the sample's scale: 1 TB of
/// production over 2,500 documents), and the remedy; the JSON's finding has the numbers.
#[test]
fn an_item_over_the_limit_leads_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let path = claims(dir.path());
    let args = |format: &str| {
        vec![
            "analyze".to_owned(),
            path.display().to_string(),
            "-c".into(),
            "/claimNo".into(),
            "--total-size".into(),
            "1TB".into(),
            "--format".into(),
            format.into(),
        ]
    };
    let json = Test::new().args(args("json")).run().success().json();
    let x = json["input"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "ITEM_TOO_LARGE")
        .unwrap_or_else(|| panic!("{}", json["input"]["findings"]))
        .clone();
    assert_eq!(x["severity"], "fail");
    assert_eq!(x["evidence"]["documents"], 1);
    // The line is minified JSON already: its length is what the service stores.
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text.lines().nth(2_221).unwrap();
    assert_eq!(x["evidence"]["bytes"].as_u64().unwrap(), line.len() as u64);
    let scale = json["input"]["scale_factor"].as_f64().unwrap();
    let production = x["evidence"]["production_items"].as_f64().unwrap();
    assert!(
        (production - scale).abs() < 1e-6 * scale,
        "{production} {scale}"
    );
    // One in 2,500 is an estimate of production's share: its 95% Wilson range brackets it.
    let range = &x["evidence"]["production_items_range"];
    let (lo, hi) = (range[0].as_f64().unwrap(), range[1].as_f64().unwrap());
    assert!(
        lo < production && production < hi && hi < 10.0 * production,
        "{range}"
    );
    let msg = x["message"].as_str().unwrap();
    assert!(msg.contains("(an estimate: 95% range "), "{msg}");
    assert!(
        msg.contains("claims.jsonl:2222") && msg.contains("Blob Storage"),
        "{msg}"
    );
    for format in ["table", "markdown", "html"] {
        let out = Test::new().args(args(format)).run().success().stdout;
        // The page's body, after its head and the one-line summary in its header.
        let body = match out.find("<h2") {
            Some(at) if format == "html" => &out[at..],
            _ => out.as_str(),
        };
        let limit = body
            .find("Hard limit")
            .unwrap_or_else(|| panic!("{format}: {out}"));
        let rec = body.find("Recommendation").unwrap_or(usize::MAX);
        assert!(limit < rec, "{format}: the hard limit must come first");
        let first: String = body.lines().take(12).collect::<Vec<_>>().join("\n");
        assert!(first.contains("Hard limit"), "{format}: {first}");
    }
}

/// 3,000 orders of 600 customers, each shipped to a zip code.
fn orders() -> String {
    let mut rng = Rng(17);
    let mut data = String::new();
    for i in 0..3_000 {
        let c = rng.below(600);
        writeln!(
            data,
            r#"{{"id":"o{i}","customerId":"c{c}","shipTo":{{"zip":"{:05}"}},"total":{:.2}}}"#,
            10_000 + c * 7 % 900,
            rng.unit() * 200.0
        )
        .unwrap();
    }
    data
}

/// Scenario 20. Point reads count in the latency class. 3,000 writes/s (the bulk of the cost,
/// equal under both keys, so their costs are within the 10 % that counts as equal), 1,500 point
/// reads/s by id and customer, 200 queries/s by customer. `/customerId>/shipTo/zip` cannot point-read (the zip is unknown at
/// read time: the reads become queries, `POINT_READ_NEEDS_QUERY`): 1,500 of its 1,700 reads a
/// second are queries where a point read was expected, 12 % single. `/customerId+hash(/id)%4`
/// keeps them point reads: 1,500 / 1,700 = 88 %. It passes and ranks first.
#[test]
fn point_reads_turned_into_queries_count_against_the_latency_class() {
    let dir = tempfile::tempdir().unwrap();
    let wl = "reads: {per_sec: 1500, by: [/id, /customerId]}\nwrites: {per_sec: 3000}\nqueries:\n  - {name: orders of a customer, per_sec: 200, filter: {/customerId: eq}}\n";
    let r = crate::recommend::analyze(
        dir.path(),
        &orders(),
        Some(wl),
        &[
            "-c",
            "/customerId>/shipTo/zip",
            "-c",
            "/customerId+hash(/id)%4",
            "--total-size",
            "200GB",
        ],
    );
    let zip = crate::worked::find(&r, "/customerId>/shipTo/zip");
    assert!(zip["findings"]
        .to_string()
        .contains("POINT_READ_NEEDS_QUERY"));
    let hashed = crate::worked::find(&r, "/customerId+hash(/id)%4");
    assert_eq!(hashed["verdict"], "pass", "{}", hashed["findings"]);
    // Costs within 10 %: the latency class decides, not the cost.
    let usd = |c: &serde_json::Value| c["cost"]["monthly_throughput_usd"].as_f64().unwrap();
    assert!(usd(zip) < 1.1 * usd(hashed) && usd(hashed) < 1.1 * usd(zip));
    assert_eq!(hashed["rank"], 1, "{}", r["recommendation"]["reasons"]);
    assert_eq!(r["recommendation"]["spec"], "/customerId+hash(/id)%4");
}

/// Without a workload the answer is conditional (docs/recommendations.md, "Without a
/// workload"): no "Recommendation:" heading a workload could overturn, the keys safe for storage
/// in storage order, and for each leading path the key its queries would take. With a workload
/// the same keys get a recommendation.
#[test]
fn without_a_workload_the_answer_is_conditional() {
    let args = [
        "analyze",
        "fixtures/events.jsonl",
        "--candidates",
        "/tenantId,/userId,/tenantId>/userId",
    ];
    let json = Test::new().args(args).args(["--format", "json"]).json();
    let rec = &json["recommendation"];
    assert_eq!(rec["status"], "storage_only");
    let first = rec["reasons"][0].as_str().unwrap();
    let safe = json["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] != "fail")
        .count();
    assert!(
        first.starts_with(&format!(
            "no workload was given, so this is not a recommendation: {safe} keys are safe for storage (`{}`",
            rec["spec"].as_str().unwrap()
        )) && first.contains("if most queries filter on `/tenantId`, `/tenantId>/userId`")
            && first.contains("Give --workload"),
        "{first}"
    );
    let table = Test::new().args(args).run().success().stdout;
    assert!(!table.contains("Recommendation:"), "{table}");
    assert!(
        table.contains("No workload: keys safe for storage"),
        "{table}"
    );
    let with = Test::new()
        .args(args)
        .args(["--writes-per-sec", "100", "--format", "json"])
        .json();
    assert_eq!(with["recommendation"]["status"], "recommended");
}
