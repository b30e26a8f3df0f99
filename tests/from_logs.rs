//! `analyze --workload-from-logs` (docs/workload-from-logs.md): the workload derived from
//! Azure Monitor exports in one step is the one `workload from-logs` writes, and the report
//! says where it came from.

use std::fmt::Write as _;

use crate::util::Test;

/// An hour of a shop's logs: 20 point reads/s of 1 RU, 5 inserts/s of 8 RU, 4 queries/s by
/// customer of 3 RU on one partition, and one query by status every 10 s over 4 partitions.
fn exports(dir: &std::path::Path) -> (String, String) {
    let (mut req, mut qs) = (String::from("["), String::from("["));
    let mut id = 0u64;
    let row = |s: &mut String, text: String| {
        if s.len() > 1 {
            s.push(',');
        }
        s.push_str(&text);
    };
    let base =
        "\"DatabaseName\":\"shop\",\"CollectionName\":\"orders\",\"RegionName\":\"West Europe\"";
    for t in 0..3600u64 {
        let at = format!(
            "2026-03-01T{:02}:{:02}:{:02}Z",
            10 + t / 3600,
            t / 60 % 60,
            t % 60
        );
        let op = |name: &str, ru: f64, part: u64, id: &mut u64| {
            *id += 1;
            format!(
                r#"{{"TimeGenerated":"{at}",{base},"OperationName":"{name}","RequestCharge":{ru},"StatusCode":200,"ActivityId":"a{id}","PartitionId":"p{part}"}}"#
            )
        };
        for _ in 0..20 {
            let r = op("Read", 1.0, 1, &mut id);
            row(&mut req, r);
        }
        for _ in 0..5 {
            let r = op("Create", 8.0, 2, &mut id);
            row(&mut req, r);
        }
        for _ in 0..4 {
            let r = op("Query", 3.0, 1, &mut id);
            row(&mut req, r);
            let mut q = String::new();
            write!(q, r#"{{"TimeGenerated":"{at}","DatabaseName":"shop","CollectionName":"orders","QueryText":"SELECT * FROM c WHERE c.customerId = @c","ActivityId":"a{id}","CorrelatedActivityId":"c{id}","PartitionKeyRangeId":"1"}}"#).unwrap();
            row(&mut qs, q);
        }
        if t % 10 == 0 {
            let corr = id;
            for p in 0..4 {
                let r = op("Query", 5.0, p, &mut id);
                row(&mut req, r);
                let mut q = String::new();
                write!(q, r#"{{"TimeGenerated":"{at}","DatabaseName":"shop","CollectionName":"orders","QueryText":"SELECT * FROM c WHERE c.status = 'open'","ActivityId":"a{id}","CorrelatedActivityId":"s{corr}","PartitionKeyRangeId":"{p}"}}"#).unwrap();
                row(&mut qs, q);
            }
        }
    }
    req.push(']');
    qs.push(']');
    let (r, q) = (dir.join("requests.json"), dir.join("queries.json"));
    std::fs::write(&r, req).unwrap();
    std::fs::write(&q, qs).unwrap();
    (r.display().to_string(), q.display().to_string())
}

#[test]
fn one_step_gives_the_workload_the_file_gives() {
    let dir = tempfile::tempdir().unwrap();
    let (req, qs) = exports(dir.path());
    let yaml = dir.path().join("workload.yaml");
    Test::new()
        .args(["workload", "from-logs", &req, &qs, "-o"])
        .arg(&yaml)
        .run()
        .success();
    let base = [
        "analyze",
        "fixtures/orders.csv",
        "-c",
        "/customerId",
        "-c",
        "/status",
        "--total-size",
        "100GB",
        "--format",
        "json",
    ];
    let file = Test::new().args(base).arg("--workload").arg(&yaml).json();
    let logs = Test::new()
        .args(base)
        .args(["--workload-from-logs", &req, &qs])
        .json();
    assert_eq!(
        file["recommendation"]["spec"],
        logs["recommendation"]["spec"]
    );
    for (a, b) in file["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .zip(logs["candidates"].as_array().unwrap())
    {
        assert_eq!(
            a["workload"]["ru_demand"], b["workload"]["ru_demand"],
            "{}",
            a["spec"]
        );
    }
    // The two query shapes, over the span from the first row to the last (whole seconds here).
    let note = logs["estimates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .find(|e| e.starts_with("workload measured from Azure Monitor logs"))
        .unwrap_or_else(|| panic!("{}", logs["estimates"]));
    assert!(
        note.contains("3599 s of shop/orders in West Europe; 2 query shape(s)"),
        "{note}"
    );
    // Both sources at once is a usage error.
    let o = Test::new()
        .args([
            "analyze",
            "fixtures/orders.csv",
            "-c",
            "/customerId",
            "--workload",
        ])
        .arg(&yaml)
        .args(["--workload-from-logs", &req])
        .run();
    assert_eq!(o.status, 2, "{}", o.stderr);
}
