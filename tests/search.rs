//! The automatic search proposes what an expert would sign (docs/candidates.md): no attribute
//! (status, category, city, zip code, phone number) as a key or a first level unless the
//! workload filters on it, and an entity the workload filters on leads a hierarchy even when
//! the sample is too thin to show its values repeat.

use std::fmt::Write as _;

use crate::recommend::Rng;
use crate::util::Test;

/// 3,000 orders of 2,000 customers in 40 cities, with a status, a zip code and a phone number;
/// 1,000 workspaces of 3 documents each in the sample.
fn orders(dir: &std::path::Path) -> std::path::PathBuf {
    let mut rng = Rng(29);
    let mut data = String::new();
    for i in 0..3_000 {
        let c = rng.below(2_000);
        writeln!(
            data,
            r#"{{"id":"o{i}","customerId":"c{c}","workspaceId":"w{}","status":"{}","shipTo":{{"city":"city{}","zipCode":"{:05}"}},"phoneNumber":"+1-555-{:04}","total":{:.2}}}"#,
            i / 3,
            ["new", "paid", "shipped", "returned", "cancelled"][rng.below(5) as usize],
            c % 40,
            10_000 + c % 400,
            c,
            rng.unit() * 300.0
        )
        .unwrap();
    }
    let path = dir.join("orders.jsonl");
    std::fs::write(&path, data).unwrap();
    path
}

fn specs(r: &serde_json::Value) -> Vec<String> {
    r["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["spec"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn the_search_proposes_no_attribute_and_leads_with_the_filtered_entity() {
    let dir = tempfile::tempdir().unwrap();
    let path = orders(dir.path());
    let r = Test::new()
        .args(["analyze"])
        .arg(&path)
        .args(["--total-size", "500GB", "--format", "json"])
        .json();
    let got = specs(&r);
    for bad in ["status", "city", "zipCode", "phoneNumber"] {
        assert!(
            !got.iter().any(|s| s.contains(bad)),
            "{bad} proposed: {got:?}"
        );
    }
    let excluded = r["discovery"]["excluded"].to_string();
    assert!(excluded.contains("an attribute"), "{excluded}");
    // A workload that filters on the workspace: it leads a hierarchy although the sample holds
    // 3 documents a workspace (under the 5 that show a first level repeats).
    let wl = dir.path().join("workload.yaml");
    std::fs::write(
        &wl,
        "writes: {per_sec: 100}\nqueries:\n  - {name: a workspace's orders, per_sec: 50, filter: {/workspaceId: eq, /customerId: eq}}\n",
    )
    .unwrap();
    let r = Test::new()
        .args(["analyze"])
        .arg(&path)
        .args(["--total-size", "500GB", "--format", "json", "--workload"])
        .arg(&wl)
        .json();
    let got = specs(&r);
    assert!(
        got.iter().any(|s| s.starts_with("/workspaceId>")),
        "{got:?}"
    );
}

/// The search profiles the first 100,000 documents, and twice as many when a field sits near
/// the first-level rule (5 documents a value on average in the profile), so the candidates do
/// not hinge on where the profile stopped. 150,000 orders (15 MB) cycle through 28,000
/// customers: the first 100,000 (rounded up to the end of a 2 MiB block: 103,311) hold 3.7
/// orders a customer, all of them 5.4, so `/customerId>/id` (a customer's orders spread for a
/// 1 PB container) is generated only because the whole file was profiled, as a profile of
/// 200,000 documents did.
#[test]
fn a_field_near_the_first_level_rule_is_profiled_on_twice_the_documents() {
    let dir = tempfile::tempdir().unwrap();
    let pad = "x".repeat(48);
    let mut data = String::with_capacity(150_000 * 102);
    for i in 0..150_000u32 {
        writeln!(
            data,
            r#"{{"id":"o{i}","customerId":"c{}","n":{},"note":"{pad}"}}"#,
            i % 28_000,
            i % 7
        )
        .unwrap();
    }
    let path = dir.path().join("orders.jsonl");
    std::fs::write(&path, data).unwrap();
    let r = Test::new()
        .args(["analyze"])
        .arg(&path)
        .args(["--total-size", "1PB", "--format", "json"])
        .json();
    assert_eq!(r["discovery"]["profiled_documents"], 150_000);
    let got = specs(&r);
    assert!(
        got.contains(&"/customerId>/id".to_owned()),
        "no hierarchy led by /customerId: {got:?}"
    );
}
