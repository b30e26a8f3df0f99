//! Costs in every provisioning mode (docs/model.md, "Cost"; docs/recommendations.md, worked
//! scenarios 15–17): populations generated with a known truth, run as a user would, the figures
//! redone by hand from each candidate's own layout.

use std::fmt::Write as _;

use serde_json::Value;

use crate::recommend::{analyze, Rng};
use crate::util::Test;
use crate::worked::{check_cost, f, find};

fn reasons(r: &Value) -> String {
    r["recommendation"]["reasons"].to_string()
}

fn mode<'a>(c: &'a Value, m: &str) -> &'a Value {
    c["cost"]["modes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["mode"] == m)
        .unwrap_or_else(|| panic!("no {m} in {}", c["cost"]))
}

fn usd(c: &Value, m: &str) -> f64 {
    f(&mode(c, m)["monthly_throughput_usd"]) + f(&c["cost"]["monthly_storage_usd"])
}

/// An expense SaaS: 2,500 organisations over 800 GB, three of them holding 22 %, 13 % and 8 %
/// of it (176, 104 and 64 GB), about 6,000 staff in the largest and 40 in a typical one.
fn expenses() -> String {
    let mut rng = Rng(23);
    let mut data = String::new();
    for i in 0..20_000 {
        let u = rng.unit();
        let (org, staff) = if u < 0.22 {
            (0, 6_000)
        } else if u < 0.35 {
            (1, 3_500)
        } else if u < 0.43 {
            (2, 2_200)
        } else {
            (3 + rng.below(2_497), 40)
        };
        let s = rng.below(staff);
        let note = "x".repeat(200 + rng.below(400) as usize);
        writeln!(
            data,
            r#"{{"id":"e{i}","orgCode":"org{org}","staffRef":"o{org}-s{s}","amount":{:.2},"note":"{note}"}}"#,
            rng.unit() * 500.0
        )
        .unwrap();
    }
    data
}

const EXPENSES_WORKLOAD: &str = "writes: {per_sec: 2500}\nreads: {per_sec: 3000, by: [/id, /orgCode, /staffRef]}\nqueries:\n  - {name: a staff member's expenses, per_sec: 600, filter: {/orgCode: eq, /staffRef: eq}}\n  - {name: an organisation's approval queue, per_sec: 120, filter: {/orgCode: eq}}\n";

/// Scenario 15. Under autoscale with dynamic scaling each partition is billed for what it uses,
/// so the organisation-led key's extra partitions (the giant organisations' prefixes split past
/// 50 GB) no longer cost it its hottest partition N times: it is the cheaper key and the
/// documented design wins. Declared manual, the same layouts cost more for it than for
/// `/staffRef`: the report gives both modes for both keys and says which mode picks which.
#[test]
fn expense_saas_is_keyed_by_organisation_then_staff_under_autoscale() {
    let dir = tempfile::tempdir().unwrap();
    let data = expenses();
    let specs = ["-c", "/staffRef", "-c", "/orgCode>/staffRef"];
    let mut args = specs.to_vec();
    args.extend(["--total-size", "800GB", "--autoscale-max-ru", "100000"]);
    let r = analyze(dir.path(), &data, Some(EXPENSES_WORKLOAD), &args);
    assert_eq!(
        r["recommendation"]["spec"],
        "/orgCode>/staffRef",
        "{}",
        reasons(&r)
    );
    assert_eq!(r["recommendation"]["verdict"], "pass");
    let (hier, staff) = (find(&r, "/orgCode>/staffRef"), find(&r, "/staffRef"));
    for c in [hier, staff] {
        check_cost(c);
        assert_eq!(c["cost"]["ranked_by"], "autoscale");
        assert_eq!(c["cost"]["mode_declared"], true);
    }
    assert!(usd(hier, "autoscale") < 0.95 * usd(staff, "autoscale"));
    // The organisation queue fans out under `/staffRef`: that is its extra demand.
    assert!(f(&hier["cost"]["demand_ru_per_sec"]) < f(&staff["cost"]["demand_ru_per_sec"]));
    assert!(reasons(&r).contains("costs compared in autoscale, the mode declared"));

    let mut args = specs.to_vec();
    args.extend(["--total-size", "800GB", "--ru", "100000"]);
    let r = analyze(dir.path(), &data, Some(EXPENSES_WORKLOAD), &args);
    let (hier, staff) = (find(&r, "/orgCode>/staffRef"), find(&r, "/staffRef"));
    for c in [hier, staff] {
        check_cost(c);
        assert_eq!(c["cost"]["ranked_by"], "manual");
    }
    // Manual divides evenly: the hierarchical key's 28 partitions pay its hottest 28 times.
    assert!(usd(hier, "manual") > 1.1 * usd(staff, "manual"));
    assert!(usd(hier, "autoscale") < usd(staff, "autoscale"));
    assert_eq!(r["recommendation"]["spec"], "/staffRef");
    let text = reasons(&r);
    assert!(
        text.contains("costs compared in manual, the mode declared; in autoscale, `/orgCode>/staffRef` would win"),
        "{text}"
    );
    // `/staffRef` fans the organisation queue out (120/s × 2.5 RU × 16 more partitions =
    // 4,800 RU/s, over a tenth of its demand): a global secondary index keyed for it is priced
    // beside it, the copy's RU/s being every write replayed plus the query targeted.
    let queue = |c: &Value| {
        c["workload"]["queries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|q| q["name"] == "an organisation's approval queue")
            .unwrap()
            .clone()
    };
    let fanned = queue(staff);
    let overhead = f(&fanned["fanout_overhead_ru_per_sec"]);
    let parts = f(&staff["layout"]["physical_partitions"]);
    assert!(
        (overhead - 120.0 * 2.5 * (parts - 1.0)).abs() < 1e-6,
        "{fanned}"
    );
    let copy_ru = f(&staff["workload"]["ru_demand"]["writes"]) + f(&queue(hier)["ru_per_sec"]);
    let gsi = r["recommendation"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .find(|x| {
            x.starts_with(
                "alternative (preview): a global secondary index keyed by `/orgCode>/staffRef`",
            )
        })
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        gsi.contains(&format!(
            "{} RU/s: every write replayed",
            pkadvisor::fmt::count(copy_ru)
        )) && gsi.contains(&format!(
            "{} RU/s of overhead",
            pkadvisor::fmt::count(overhead)
        )),
        "{gsi}"
    );
}

/// A light tenant store: 200 tenants, 50 writes/s and 200 point reads/s on 10 GB.
fn light() -> String {
    let mut rng = Rng(5);
    let mut data = String::new();
    for i in 0..4_000 {
        writeln!(
            data,
            r#"{{"id":"i{i}","tenantId":"t{}","v":{}}}"#,
            rng.below(200),
            rng.below(1000)
        )
        .unwrap();
    }
    data
}

/// Scenario 16. Serverless: a light workload fits (every storage partition under 5,000 RU/s) and
/// is billed per RU consumed: demand × 3,600 × 730 / 10⁶ × $0.25. The same data under 1,000
/// writes/s of 10 RU on one storage partition needs 10,000 RU/s there: serverless cannot serve
/// it, the key fails what no provisioning serves, and the line says why.
#[test]
fn serverless_fits_a_light_workload_and_refuses_a_hot_one() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-c",
        "/tenantId",
        "--total-size",
        "10GB",
        "--throughput",
        "serverless",
    ];
    let wl = "writes: {per_sec: 50}\nreads: {per_sec: 200, by: [/id, /tenantId]}\n";
    let r = analyze(dir.path(), &light(), Some(wl), &args);
    let c = find(&r, "/tenantId");
    assert_eq!(c["cost"]["ranked_by"], "serverless");
    assert_eq!(c["verdict"], "pass", "{}", c["findings"]);
    let demand = f(&c["cost"]["demand_ru_per_sec"]);
    let by_hand = demand * 3600.0 * 730.0 / 1e6 * 0.25;
    let s = f(&mode(c, "serverless")["monthly_throughput_usd"]);
    assert!((s - by_hand).abs() < 1e-6 * by_hand, "{s} {by_hand}");
    assert!((f(&c["cost"]["monthly_throughput_usd"]) - by_hand).abs() < 1e-6 * by_hand);
    // 10 GB is one storage partition: all of the demand is on it.
    assert_eq!(c["layout"]["physical_partitions"], 1);

    let wl = "writes: {per_sec: 1000}\n";
    let r = analyze(dir.path(), &light(), Some(wl), &args);
    let c = find(&r, "/tenantId");
    assert_eq!(c["verdict"], "fail");
    let x = c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "PHYSICAL_PARTITION_OVER_THROUGHPUT")
        .unwrap_or_else(|| panic!("{}", c["findings"]));
    assert_eq!(x["evidence"]["serverless"], true);
    assert_eq!(f(&x["evidence"]["limit_ru_per_sec"]), 5000.0);
    let note = mode(c, "serverless")["note"].as_str().unwrap();
    assert!(
        note.starts_with("cannot serve") && note.contains("5,000"),
        "{note}"
    );
    assert!(c["cost"]["monthly_throughput_usd"].is_null());
}

/// Scenario 17. Three regions bill throughput and storage three times; with multi-region
/// writes 100 RU/s-hour costs $0.016 in each, and autoscale 1.0× that. Serverless cannot run in
/// three regions.
#[test]
fn three_regions_and_multi_region_writes_match_hand_arithmetic() {
    let dir = tempfile::tempdir().unwrap();
    let wl = "writes: {per_sec: 100}\nreads: {per_sec: 400, by: [/id, /tenantId]}\n";
    let base = ["-c", "/tenantId", "--total-size", "10GB"];
    let one = analyze(dir.path(), &light(), Some(wl), &base);
    let mut args = base.to_vec();
    args.extend(["--regions", "3", "--multi-write"]);
    let three = analyze(dir.path(), &light(), Some(wl), &args);
    let (a, b) = (find(&one, "/tenantId"), find(&three, "/tenantId"));
    let ru = f(&b["cost"]["required_ru_per_sec"]);
    assert_eq!(ru, f(&a["cost"]["required_ru_per_sec"]));
    let manual = ru / 100.0 * 0.016 * 730.0 * 3.0;
    assert!((f(&mode(b, "manual")["monthly_throughput_usd"]) - manual).abs() < 1e-6 * manual);
    let billed = f(&mode(b, "autoscale")["billed_ru_per_sec"]);
    let auto = billed / 100.0 * 0.016 * 730.0 * 3.0;
    assert!((f(&mode(b, "autoscale")["monthly_throughput_usd"]) - auto).abs() < 1e-6 * auto);
    assert!((f(&b["cost"]["monthly_storage_usd"]) - 3.0 * 10.0 * 0.25).abs() < 1e-9);
    assert_eq!(b["cost"]["regions"], 3);
    let note = mode(b, "serverless")["note"].as_str().unwrap();
    assert!(note.contains("one region, not 3"), "{note}");
    // One region, single write: the manual list price.
    let one_manual = ru / 100.0 * 0.008 * 730.0;
    assert!((f(&mode(a, "manual")["monthly_throughput_usd"]) - one_manual).abs() < 1e-6);
}

/// A mode that contradicts the throughput given, or serverless in several regions, is a usage
/// error that names the fix.
#[test]
fn contradictory_modes_are_refused_with_the_fix() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--throughput", "serverless", "--ru", "4000"],
            "--throughput serverless provisions nothing",
        ),
        (
            &["--throughput", "manual", "--autoscale-max-ru", "4000"],
            "--throughput manual contradicts --autoscale-max-ru",
        ),
        (
            &["--throughput", "serverless", "--regions", "2"],
            "serverless accounts run in one region",
        ),
        (&["--regions", "0"], "--regions 0"),
    ];
    for (extra, want) in cases {
        let o = Test::new()
            .args(["analyze", "fixtures/events.jsonl", "-c", "/tenantId"])
            .args(extra.iter().copied())
            .run()
            .bad_input();
        assert!(o.stderr.contains(want), "{extra:?}: {}", o.stderr);
    }
}
