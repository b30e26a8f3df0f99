//! `--sample slice` (docs/projection.md, "A representative slice"): a sample of whole customers
//! keeps each customer's size in production and multiplies their number, where the default
//! uniform reading multiplies each customer's size. Checked against the bytes of the generated
//! file itself, by hand.

use std::fmt::Write as _;

use serde_json::Value;

use crate::recommend::{analyze, Rng};
use crate::util::Test;
use crate::worked::{f, find as candidate};

/// 100 customers with 10 to 30 orders each (seeded), every order about 600 bytes. Returns the
/// file and each customer's (documents, stored bytes) with 200 bytes of system properties per
/// item, as docs/model.md counts them.
fn customers() -> (String, Vec<(u64, f64)>) {
    let mut rng = Rng(31);
    let (mut data, mut sizes) = (String::new(), Vec::new());
    let mut id = 0;
    for c in 0..100 {
        let orders = 10 + rng.below(21);
        let mut bytes = 0.0;
        for _ in 0..orders {
            let line = format!(
                r#"{{"id":"o{id:06}","customerId":"c{c:03}","status":"{}","total":{},"note":"{}"}}"#,
                ["open", "paid", "shipped"][rng.below(3) as usize],
                rng.below(50_000) as f64 / 100.0,
                "x".repeat(500 + rng.below(100) as usize)
            );
            bytes += line.len() as f64 + 200.0;
            writeln!(data, "{line}").unwrap();
            id += 1;
        }
        sizes.push((orders, bytes));
    }
    (data, sizes)
}

const WORKLOAD: &str = "writes: { per_sec: 200, kind: insert }\nqueries:\n  - name: orders of a customer\n    per_sec: 300\n    filter: { /customerId: eq }\n";

#[test]
fn a_slice_of_customers_keeps_their_size_and_multiplies_their_number() {
    let dir = tempfile::tempdir().unwrap();
    let (data, sizes) = customers();
    let n: u64 = sizes.iter().map(|s| s.0).sum();
    let largest = sizes.iter().map(|s| s.1).fold(0.0, f64::max);
    let args = [
        "-c",
        "/customerId,/status,/customerId>/id",
        "--total-size",
        "500GB",
    ];
    let uniform = analyze(dir.path(), &data, Some(WORKLOAD), &args);
    let mut sliced_args = args.to_vec();
    sliced_args.extend(["--sample", "slice:/customerId"]);
    let sliced = analyze(dir.path(), &data, Some(WORKLOAD), &sliced_args);

    // The declaration is in the report.
    let rel = &sliced["input"]["sample_relation"];
    assert_eq!(rel["kind"], "slice");
    assert_eq!(rel["paths"], serde_json::json!(["/customerId"]));
    assert_eq!(uniform["input"]["sample_relation"]["kind"], "uniform");

    let (u, s) = (
        candidate(&uniform, "/customerId"),
        candidate(&sliced, "/customerId"),
    );
    let scale = f(&sliced["input"]["scale_factor"]);
    // Uniform: the largest customer is its share of 500 GB, gigabytes.
    assert!(f(&u["max_logical_partition_bytes"]) > 1e9, "{u}");
    assert!(u["slice"].is_null());
    // Slice: it keeps its own bytes, exactly those of the file.
    let sl = &s["slice"];
    assert_eq!(sl["keys"], 100);
    assert!((f(&sl["growth"]) - scale).abs() < 1e-9 * scale);
    assert!(
        (f(&sl["largest_in_slice_bytes"]) - largest).abs() < 1e-6,
        "{sl}"
    );
    let range = s["max_logical_partition_bytes_range"].as_array().unwrap();
    assert!((f(&range[0]) - largest).abs() < 1e-6);
    // The extrapolation never goes below the slice's largest, and its bound above the point.
    let point = f(&s["max_logical_partition_bytes"]);
    assert!(point >= largest && f(&range[1]) >= point, "{s}");
    assert_eq!(point, f(&sl["expected_largest_bytes"]));
    // Production's customers: N over the mean orders per customer = 100 × N / n.
    let est = f(&s["distinct_estimate"]["estimate"]);
    assert!((est - 100.0 * scale).abs() < 1e-6 * est, "{est}");
    let n_prod = scale * n as f64;
    assert!((est - n_prod / (n as f64 / 100.0)).abs() < 1e-6 * est);
    assert_eq!(s["regime"], "growing");
    assert_eq!(s["verdict"], "pass", "{}", s["findings"]);
    // /status is not a customer path: projected as a uniform sample either way.
    let (us, ss) = (
        candidate(&uniform, "/status"),
        candidate(&sliced, "/status"),
    );
    assert!(ss["slice"].is_null());
    assert_eq!(
        us["max_logical_partition_bytes"],
        ss["max_logical_partition_bytes"]
    );

    // `/customerId>/id` never repeats (one order per key either way), but its first level is
    // the customer: under the slice it keeps the largest customer's own bytes, not gigabytes.
    let prefix =
        |r: &Value| f(&candidate(r, "/customerId>/id")["levels"][0]["largest_prefix_bytes"]);
    assert!(prefix(&uniform) > 1e9, "{}", prefix(&uniform));
    assert!(
        (prefix(&sliced) - largest).abs() < 1e-6,
        "{}",
        prefix(&sliced)
    );
    // Its layout holds each customer whole: every customer prefix in one physical partition.
    let fanout = &candidate(&sliced, "/customerId>/id")["layout"]["prefix_fanout"][0];
    assert_eq!(
        fanout["distribution"],
        serde_json::json!([[1, 100]]),
        "{fanout}"
    );
    // The workload's totals are the whole workload's either way; each customer's share of
    // them is its documents over production's, n / N of the uniform reading's.
    let (uw, sw) = (&u["workload"]["ru_demand"], &s["workload"]["ru_demand"]);
    for k in ["writes", "queries", "total"] {
        assert!(
            (f(&uw[k]) - f(&sw[k])).abs() < 1e-6 * f(&uw[k]),
            "{k}: {uw} {sw}"
        );
    }
    let hot = |c: &Value| f(&c["hottest_logical_partition_ru_per_sec"]);
    assert!(
        (hot(s) - hot(u) / scale).abs() < 1e-6 * hot(u) / scale,
        "{} vs {} / {scale}",
        hot(s),
        hot(u)
    );
    // The layout carries the customers the slice does not hold: its partitions' demand adds up
    // to the whole workload's.
    let demand: f64 = s["layout"]["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| f(&p["ru_demand"]))
        .sum();
    assert!(
        (demand - f(&sw["total"])).abs() < 1e-3 * demand,
        "{demand} vs {}",
        sw["total"]
    );
}

/// `/customerId` of `data` read as a slice of 1 TB with the logical partition limit at 10 KB:
/// its verdict and its `LOGICAL_PARTITION_OVER_LIMIT` finding.
fn sliced_at_10_kb(data: &str) -> (Value, Value) {
    let dir = tempfile::tempdir().unwrap();
    let r = analyze(
        dir.path(),
        data,
        None,
        &[
            "-c",
            "/customerId",
            "--total-size",
            "1TB",
            "--sample",
            "slice",
            "--limit",
            "logical_partition_bytes=10KB",
        ],
    );
    let c = candidate(&r, "/customerId");
    let fail = c["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "LOGICAL_PARTITION_OVER_LIMIT")
        .expect("over the limit");
    (c["verdict"].clone(), fail.clone())
}

#[test]
fn a_slice_key_over_the_limit_fails_for_certain() {
    // With the per-partition limit at 10 KB, the slice's largest customer (at least 10 orders of
    // about 800 stored bytes) is over it in production too, whatever the growth.
    let (data, sizes) = customers();
    let largest = sizes.iter().map(|s| s.1).fold(0.0, f64::max);
    let (verdict, fail) = sliced_at_10_kb(&data);
    assert_eq!(verdict, "fail");
    assert!(
        fail["message"]
            .as_str()
            .unwrap()
            .contains("in the slice, and a slice's keys keep their size in production"),
        "{fail}"
    );
    assert!((f(&fail["evidence"]["largest_in_slice_bytes"]) - largest).abs() < 1e-6);
}

#[test]
fn the_declaration_needs_a_projection_and_a_known_form() {
    let f = crate::util::fixture("events.jsonl");
    let cases: [(&[&str], &str); 3] = [
        (&["--sample", "slice"], "add --total-size or --total-docs"),
        (
            &["--total-size", "1TB", "--sample", "slices"],
            "use uniform, slice, or slice:/customerId",
        ),
        (
            &["--total-size", "1TB", "--sample", "slice:tenantId>/id"],
            "is not one property path",
        ),
    ];
    for (args, says) in cases {
        let out = Test::new()
            .args(["analyze", f.to_str().unwrap()])
            .args(args.iter().copied())
            .run()
            .bad_input();
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
}

/// `--sample slice` for every candidate also slices `/status` (3 values): the report warns that
/// its 3 values would become hundreds of thousands, and names the per-path declaration; the
/// customer key (an entity name) gets no such warning.
#[test]
fn slicing_a_status_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let (data, _) = customers();
    let r = analyze(
        dir.path(),
        &data,
        None,
        &[
            "-c",
            "/customerId,/status",
            "--total-size",
            "500GB",
            "--sample",
            "slice",
        ],
    );
    let codes = |spec: &str| -> Vec<String> {
        candidate(&r, spec)["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["code"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(codes("/status").contains(&"SLICE_OF_FEW_VALUES".to_owned()));
    assert!(!codes("/customerId").contains(&"SLICE_OF_FEW_VALUES".to_owned()));
    let status = candidate(&r, "/status");
    let finding = status["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["code"] == "SLICE_OF_FEW_VALUES")
        .unwrap();
    let growth = f(&r["input"]["scale_factor"]);
    assert_eq!(finding["evidence"]["keys"], 3);
    let production = f(&finding["evidence"]["production_keys"]);
    assert!((production - 3.0 * growth).abs() < 1e-6 * growth);
}

#[test]
fn of_two_slice_keys_equally_large_the_first_in_key_order_is_named() {
    // c2 and c1 hold 20 orders of the same bytes each (c2's written first), c3 holds 2: the
    // largest partition is a tie, and the finding names the first in key order, c1, whatever
    // the order of the file or of the threads' shares of the rows.
    let (mut data, mut c1_bytes) = (String::new(), 0.0);
    for (c, orders) in [("c2", 20), ("c1", 20), ("c3", 2)] {
        for i in 0..orders {
            let start = data.len();
            writeln!(
                data,
                r#"{{"id":"{c}-{i:03}","customerId":"{c}","note":"{}"}}"#,
                "x".repeat(600)
            )
            .unwrap();
            if c == "c1" {
                // The line without its newline, plus 200 bytes of system properties.
                c1_bytes += (data.len() - start - 1) as f64 + 200.0;
            }
        }
    }
    let (_, fail) = sliced_at_10_kb(&data);
    let message = fail["message"].as_str().unwrap();
    assert!(
        message.starts_with("logical partition `c1` holds"),
        "{message}"
    );
    assert!((f(&fail["evidence"]["largest_in_slice_bytes"]) - c1_bytes).abs() < 1e-6);
}
