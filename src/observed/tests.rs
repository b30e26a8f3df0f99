use super::*;

/// Writes `text` to a file `name` in the test's temporary folder `dir`.
fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn opts(files: Vec<PathBuf>) -> ObservedOptions {
    ObservedOptions {
        files,
        filter: ObservedFilter::default(),
        window: None,
        memory_limit: 0,
    }
}

const RU_JSON: &str = r#"[
 {"TimeGenerated":"2026-01-01T00:00:00Z","DatabaseName":"db","CollectionName":"c","RegionName":"West Europe","PartitionKey":"[\"a\"]","PartitionKeyRangeId":"0","OperationName":"Create","RequestCharge":"10.5","ActivityId":"x"},
 {"TimeGenerated":"2026-01-01T00:01:40Z","DatabaseName":"db","CollectionName":"c","RegionName":"West Europe","PartitionKey":"[\"a\"]","PartitionKeyRangeId":"0","OperationName":"Read","RequestCharge":1,"ActivityId":"y"},
 {"TimeGenerated":"2026-01-01T00:00:50Z","DatabaseName":"db","CollectionName":"c","RegionName":"West Europe","PartitionKey":"[\"b\"]","PartitionKeyRangeId":"1","OperationName":"Create","RequestCharge":"8.5","ActivityId":"z"}
]"#;

#[test]
fn resource_specific_json_sums_ru_over_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "ru.json", RU_JSON);
    // First 00:00:00, last 00:01:40, every time a multiple of 10 s: rows of 10 s, a window
    // of 100 + 10 seconds.
    let detected = read_observed(&opts(vec![path.clone()]), 1).unwrap();
    let t = detected.traffic.unwrap();
    assert_eq!((t.granularity, t.window_secs()), (10, 110.0));
    assert_eq!(t.window_source, WindowSource::Detected);
    // `--window 100s`: 100 seconds.
    let o = read_observed(
        &ObservedOptions {
            window: Some(100.0),
            ..opts(vec![path])
        },
        1,
    )
    .unwrap();
    let t = o.traffic.unwrap();
    assert_eq!(t.window_secs(), 100.0);
    let per_key = t.per_key();
    let a = parse_key(r#"["a"]"#, 1).unwrap();
    assert!((per_key[&a] - 0.115).abs() < 1e-12); // (10.5 + 1) / 100
    assert_eq!(
        t.per_operation(),
        vec![("Create".to_string(), 0.19), ("Read".to_string(), 0.01)]
    );
    assert_eq!(
        t.per_range(),
        vec![("0".to_string(), 0.115), ("1".to_string(), 0.085)]
    );
    assert_eq!((o.database.as_str(), o.container.as_str()), ("db", "c"));
    assert_eq!(o.rows_read, 3);
}

#[test]
fn legacy_csv_sizes_keep_each_keys_latest_report() {
    let dir = tempfile::tempdir().unwrap();
    let csv = "TimeGenerated [UTC],Category,databaseName_s,collectionName_s,regionName_s,partitionKey_s,sizeKb_d\n\
               2026-01-01T00:00:00Z,PartitionKeyStatistics,db,c,East US,\"[\"\"t1\"\",5]\",2000\n\
               2026-01-02T00:00:00Z,PartitionKeyStatistics,db,c,East US,\"[\"\"t1\"\",5]\",3000\n\
               2026-01-02T00:00:00Z,PartitionKeyStatistics,db,c,East US,\"[null,true]\",1000\n";
    let o = read_observed(&opts(vec![file(&dir, "sizes.csv", csv)]), 2).unwrap();
    assert_eq!(o.storage_rows, 3);
    assert_eq!(o.sizes.len(), 2);
    assert_eq!(o.sizes[0].1, 3000.0 * 1024.0);
    assert_eq!(o.sizes[1].0, parse_key("[null,true]", 2).unwrap());
    assert!(o.traffic.is_none());
}

fn err(files: Vec<PathBuf>, filter: ObservedFilter) -> String {
    read_observed(
        &ObservedOptions {
            files,
            filter,
            window: None,
            memory_limit: 0,
        },
        1,
    )
    .unwrap_err()
    .to_string()
}

#[test]
fn bad_exports_name_the_file_the_row_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let neg = RU_JSON.replace("\"8.5\"", "\"-2\"");
    let e = err(
        vec![file(&dir, "neg.json", &neg)],
        ObservedFilter::default(),
    );
    assert!(e.contains("neg.json: row 3: RequestCharge is -2"), "{e}");
    let missing = RU_JSON.replace("\"PartitionKeyRangeId\":\"1\",", "");
    let e = err(
        vec![file(
            &dir,
            "miss.json",
            &missing.replace("\"CollectionName\"", "\"Coll\""),
        )],
        ObservedFilter::default(),
    );
    assert!(
        e.contains("miss.json: row 1: no value in column `CollectionName`"),
        "{e}"
    );
    // An empty PartitionKeyRangeId or PartitionKey (`None` as az prints a null): the row is
    // counted and skipped, as Microsoft's queries' `isnotempty` would.
    let empty = RU_JSON
        .replace(
            "\"PartitionKeyRangeId\":\"1\",",
            "\"PartitionKeyRangeId\":\"\",",
        )
        .replacen(r#""[\"a\"]""#, r#""None""#, 1);
    let o = read_observed(
        &ObservedOptions {
            window: Some(60.0),
            ..opts(vec![file(&dir, "empty.json", &empty)])
        },
        1,
    )
    .unwrap();
    assert_eq!((o.rows_empty_key, o.traffic.unwrap().rows), (2, 1));
    let bad_key = RU_JSON.replace(r#""[\"b\"]""#, r#""b""#);
    let e = err(
        vec![file(&dir, "key.json", &bad_key)],
        ObservedFilter::default(),
    );
    assert!(
        e.contains("key.json: row 3: PartitionKey `b` is not JSON"),
        "{e}"
    );
}

#[test]
fn several_containers_or_regions_are_listed_until_one_is_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let two = RU_JSON.replacen("\"CollectionName\":\"c\"", "\"CollectionName\":\"d\"", 1);
    let f = file(&dir, "two.json", &two);
    let e = err(vec![f.clone()], ObservedFilter::default());
    assert!(
        e.contains("2 containers (db/c, db/d); choose one with --container"),
        "{e}"
    );
    let picked = read_observed(
        &ObservedOptions {
            files: vec![f],
            filter: ObservedFilter {
                container: Some(("db".into(), "c".into())),
                region: None,
            },
            window: None,
            memory_limit: 0,
        },
        1,
    )
    .unwrap();
    assert_eq!(picked.rows_other_containers, 1);
    assert_eq!(picked.traffic.unwrap().rows, 2);
    let regions = RU_JSON.replacen("West Europe", "North Europe", 1);
    let e = err(
        vec![file(&dir, "regions.json", &regions)],
        ObservedFilter::default(),
    );
    assert!(e.contains("2 regions (North Europe, West Europe)"), "{e}");
    assert!(e.contains("--region"), "{e}");
    assert!(
        e.starts_with(&dir.path().join("regions.json").display().to_string()),
        "{e}"
    );
}

#[test]
fn rows_of_other_containers_are_left_out_before_they_are_judged() {
    // Another container of a two-path key, with a bad charge too: neither stops the read of
    // `db/c` once it is chosen, and both are raised when `db/d` is.
    let dir = tempfile::tempdir().unwrap();
    let other = r#"{"TimeGenerated":"2026-01-01T00:00:00Z","DatabaseName":"db","CollectionName":"d","RegionName":"West Europe","PartitionKey":"[\"dev-0\",\"u\"]","PartitionKeyRangeId":"0","OperationName":"Read","RequestCharge":"x"}"#;
    let text = RU_JSON.replacen("[\n", &format!("[\n {other},\n"), 1);
    let f = file(&dir, "account.json", &text);
    let pick = |c: &str| ObservedOptions {
        filter: ObservedFilter {
            container: Some(("db".into(), c.into())),
            region: None,
        },
        ..opts(vec![f.clone()])
    };
    let o = read_observed(&pick("c"), 1).unwrap();
    assert_eq!((o.rows_read, o.rows_other_containers), (4, 1));
    let e = read_observed(&pick("d"), 1).unwrap_err().to_string();
    assert!(e.contains("account.json: row 1: PartitionKey"), "{e}");
    assert!(e.contains("has 2 component(s)"), "{e}");
}

#[test]
fn legacy_rows_take_their_operation_from_operation_type() {
    let dir = tempfile::tempdir().unwrap();
    let legacy = r#"[
 {"TimeGenerated":"2026-01-01T00:00:00Z","Category":"PartitionKeyRUConsumption","OperationName":"PartitionKeyRUConsumption","databaseName_s":"db","collectionName_s":"c","regionName_s":"r","partitionKey_s":"[\"a\"]","partitionKeyRangeId_s":"0","operationType_s":"Query","requestCharge_s":"30"},
 {"TimeGenerated":"2026-01-01T00:00:09Z","Category":"PartitionKeyRUConsumption","databaseName_s":"db","collectionName_s":"c","regionName_s":"r","partitionKey_s":"[\"a\"]","partitionKeyRangeId_s":"0","operationType_s":"Create","requestCharge_s":"10"}
]"#;
    let o = read_observed(&opts(vec![file(&dir, "legacy.json", legacy)]), 1).unwrap();
    // Per-second rows: a window of 9 + 1 seconds.
    assert_eq!(
        o.traffic.unwrap().per_operation(),
        vec![("Query".to_string(), 3.0), ("Create".to_string(), 1.0)]
    );
}

#[test]
fn a_single_instant_has_no_window() {
    let dir = tempfile::tempdir().unwrap();
    let one = r#"[{"TimeGenerated":"2026-01-01T00:00:00Z","DatabaseName":"db","CollectionName":"c","RegionName":"r","PartitionKey":"[1]","PartitionKeyRangeId":"0","OperationName":"Read","RequestCharge":1}]"#;
    let e = err(vec![file(&dir, "one.json", one)], ObservedFilter::default());
    assert!(e.contains("same TimeGenerated"), "{e}");
}

#[test]
fn sums_over_keys_and_operations_are_the_same_in_every_run() {
    // Three charges whose float sum depends on the order they are added in: in key order,
    // (1e16 + 1) − 1e16 = 0 (the 1 is lost next to 1e16); in a third of the other orders the
    // sum is 1. Each map below gets its own random hash seed, so an iteration in hash order
    // would give both results over 40 maps.
    let charges = [(b"a", 1e16), (b"b", 1.0), (b"c", -1e16)];
    for _ in 0..40 {
        let mut t = Traffic::starting_at(0);
        for (k, ru) in charges {
            t.by_key_op.insert((k.to_vec(), "Read".into()), ru);
            // One key's charges under three operations, in the same order.
            let op = String::from_utf8(k.to_vec()).unwrap();
            t.by_key_op.insert((b"k".to_vec(), op), ru);
            t.by_range_key.insert(("0".into(), k.to_vec()), ru);
        }
        t.fix_window(Some(1.0));
        let read = t.per_operation().into_iter().find(|(op, _)| op == "Read");
        assert_eq!(read, Some(("Read".to_string(), 0.0)));
        assert_eq!(t.per_key()[&b"k".to_vec()], 0.0);
        assert_eq!(t.per_range(), vec![("0".to_string(), 0.0)]);
    }
}

/// Cells past `rows::MAX_CELL`, NaN and infinity are refused at their row with what they are,
/// so no sum of an export becomes infinity (two charges of 1.7e308 used to, written as `null`).
#[test]
fn cells_past_the_largest_measurement_are_refused_and_sums_stay_finite() {
    let dir = tempfile::tempdir().unwrap();
    let row = |charge: &str| {
        format!(
            r#"{{"TimeGenerated":"2026-01-01T00:00:00Z","DatabaseName":"db","CollectionName":"c","RegionName":"r","PartitionKey":"[\"a\"]","PartitionKeyRangeId":"0","OperationName":"Create","RequestCharge":"{charge}"}}"#
        )
    };
    for (charge, want) in [
        ("1.7e308", "row 2: RequestCharge is 1.7e308: more request units than one row can measure (at most 1e12)"),
        ("NaN", "row 2: RequestCharge `NaN` is not a number of request units"),
        ("inf", "row 2: RequestCharge `inf` is not a number of request units"),
        ("-1", "row 2: RequestCharge is -1: request units cannot be negative"),
    ] {
        let text = format!("[{},{}]", row("1"), row(charge));
        let e = read_observed(&opts(vec![file(&dir, "x.json", &text)]), 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{charge}: {e}");
    }
    // At the bound, a thousand rows of one key sum to a finite 1e15.
    let rows: Vec<String> = (0..1000).map(|_| row("1e12")).collect();
    let mut text = format!("[{}", rows.join(","));
    text.push_str(&format!(",{}]", row("0").replace("00:00:00", "01:00:00")));
    let o = read_observed(&opts(vec![file(&dir, "y.json", &text)]), 1).unwrap();
    let t = o.traffic.unwrap();
    assert_eq!(t.by_key_op.values().sum::<f64>(), 1e15);
}

/// The aggregates stay under `--memory-limit`: an export of ever-new keys stops at the row that
/// passes it, naming the flag; the same export is read under a larger limit.
#[test]
fn the_aggregates_stay_under_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("TimeGenerated,DatabaseName,CollectionName,RegionName,PartitionKey,PartitionKeyRangeId,OperationName,RequestCharge\n");
    for i in 0..2000 {
        text.push_str(&format!(
            "2026-01-01T00:{:02}:00Z,db,c,r,\"[\"\"k{i}\"\"]\",0,Create,1\n",
            i % 60
        ));
    }
    let f = file(&dir, "keys.csv", &text);
    // Each new key holds four entries: its interned key, its sums by range and by operation,
    // each charged 256 bytes plus the key's and name's bytes, and its second's bin (a quarter
    // of that); the first 60 rows open a range bin too (one per minute). About 855 bytes a key
    // past the hundredth, so 102,400 bytes pass at the 115th row.
    let mut o = opts(vec![f]);
    o.memory_limit = 100 * 1024;
    let e = read_observed(&o, 1).unwrap_err().to_string();
    assert!(
        e.contains("keys.csv: row 115:") && e.contains("need more than --memory-limit (102.4 KB)"),
        "{e}"
    );
    o.memory_limit = 2 << 20;
    let got = read_observed(&o, 1).unwrap();
    assert_eq!(got.traffic.unwrap().by_key_op.len(), 2000);
}
