//! Logs generated from a known workload, in every rendering (`az` JSON, the portal's CSV, the
//! REST shape) and both table modes, and the workload recovered from them checked against the
//! truth by hand-computed numbers.

use super::sql::Class;
use super::*;
use crate::cosmos::limits::Limits;
use crate::workload::FilterOp;

/// Seconds in the generated window.
const T: f64 = 600.0;
/// 2026-03-01T10:00:00Z.
const START: i64 = 1_772_359_200;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Resource,
    Legacy,
}

#[derive(Clone, Copy)]
enum Format {
    Json,
    Csv,
    Rest,
}

/// One query shape of the truth: text, executions per second, requests per execution (each
/// on its own physical partition when `ranges` > 1) and RU per request.
struct Q {
    text: &'static str,
    per_sec: f64,
    ranges: u32,
    pages: u32,
    ru: f64,
}

struct Gen {
    mode: Mode,
    rows: Vec<Vec<(&'static str, String)>>,
    next: u64,
}

fn iso(t: f64) -> String {
    let whole = t.floor();
    let ms = ((t - whole) * 1000.0).round() as i64;
    let s = crate::fmt::iso(START + whole as i64);
    format!("{}.{ms:03}Z", s.trim_end_matches('Z'))
}

fn guid(n: u64) -> String {
    format!("00000000-0000-0000-0000-{n:012x}")
}

impl Gen {
    fn new(mode: Mode) -> Gen {
        Gen {
            mode,
            rows: Vec::new(),
            next: 1,
        }
    }

    fn request(
        &mut self,
        t: f64,
        container: &str,
        op: &str,
        ru: f64,
        status: u16,
        part: &str,
    ) -> String {
        let id = guid(self.next);
        self.next += 1;
        let l = self.mode == Mode::Legacy;
        let mut r = vec![("TimeGenerated", iso(t))];
        if l {
            r.push(("Category", "DataPlaneRequests".into()));
        }
        r.extend([
            (
                if l { "databaseName_s" } else { "DatabaseName" },
                "shop".to_string(),
            ),
            (
                if l {
                    "collectionName_s"
                } else {
                    "CollectionName"
                },
                container.to_string(),
            ),
            (
                if l { "regionName_s" } else { "RegionName" },
                "West Europe".to_string(),
            ),
            ("OperationName", op.to_string()),
            (
                if l {
                    "requestCharge_s"
                } else {
                    "RequestCharge"
                },
                format!("{ru}"),
            ),
            (
                if l { "statusCode_s" } else { "StatusCode" },
                status.to_string(),
            ),
            (if l { "activityId_g" } else { "ActivityId" }, id.clone()),
            (
                if l { "partitionId_g" } else { "PartitionId" },
                part.to_string(),
            ),
        ]);
        self.rows.push(r);
        id
    }

    fn query_row(&mut self, t: f64, text: &str, activity: String, corr: &str, range: u32) {
        let l = self.mode == Mode::Legacy;
        let mut r = vec![("TimeGenerated", iso(t))];
        if l {
            r.push(("Category", "QueryRuntimeStatistics".into()));
        }
        r.extend([
            (
                if l { "databasename_s" } else { "DatabaseName" },
                "shop".to_string(),
            ),
            (
                if l {
                    "collectionname_s"
                } else {
                    "CollectionName"
                },
                "orders".to_string(),
            ),
            (
                if l { "querytext_s" } else { "QueryText" },
                text.to_string(),
            ),
            (if l { "activityId_g" } else { "ActivityId" }, activity),
            (
                if l {
                    "correlatedActivityId_g"
                } else {
                    "CorrelatedActivityId"
                },
                corr.to_string(),
            ),
            (
                if l {
                    "partitionkeyrangeid_s"
                } else {
                    "PartitionKeyRangeId"
                },
                range.to_string(),
            ),
        ]);
        self.rows.push(r);
    }

    /// `per_sec` point operations over the window, the k-th at k / per_sec (+ `offset`).
    fn ops(&mut self, op: &str, per_sec: f64, ru: f64, offset: f64) {
        for k in 0..(per_sec * T) as u64 {
            self.request(k as f64 / per_sec + offset, "orders", op, ru, 200, "p1");
        }
    }

    fn queries(&mut self, q: &Q, offset: f64) {
        for k in 0..(q.per_sec * T) as u64 {
            let t = k as f64 / q.per_sec + offset;
            let corr = guid(1 << 40 | self.next);
            for range in 0..q.ranges {
                for _ in 0..q.pages {
                    let a = self.request(t, "orders", "Query", q.ru, 200, "p1");
                    self.query_row(t, q.text, a, &corr, range);
                }
            }
        }
    }

    /// The rows in `format`, every row with every column (empty where it has none).
    fn render(&self, format: Format) -> String {
        let mut cols: Vec<&str> = Vec::new();
        for r in &self.rows {
            for (c, _) in r {
                if !cols.contains(c) {
                    cols.push(c);
                }
            }
        }
        let cell = |r: &Vec<(&str, String)>, c: &str| {
            r.iter()
                .find(|(k, _)| *k == c)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        match format {
            Format::Json => {
                let rows: Vec<serde_json::Map<String, serde_json::Value>> = self
                    .rows
                    .iter()
                    .map(|r| {
                        r.iter()
                            .map(|(k, v)| (k.to_string(), serde_json::Value::from(v.clone())))
                            .collect()
                    })
                    .collect();
                serde_json::to_string_pretty(&rows).unwrap()
            }
            Format::Rest => {
                let columns: Vec<serde_json::Value> = cols
                    .iter()
                    .map(|c| serde_json::json!({"name": c, "type": "string"}))
                    .collect();
                let rows: Vec<Vec<String>> = self
                    .rows
                    .iter()
                    .map(|r| cols.iter().map(|c| cell(r, c)).collect())
                    .collect();
                serde_json::json!({"tables": [{"name": "PrimaryResult", "columns": columns, "rows": rows}]}).to_string()
            }
            Format::Csv => {
                let mut w = csv::Writer::from_writer(Vec::new());
                let header: Vec<String> = cols
                    .iter()
                    .map(|c| {
                        if *c == "TimeGenerated" {
                            "TimeGenerated [UTC]".to_string()
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                w.write_record(&header).unwrap();
                for r in &self.rows {
                    w.write_record(cols.iter().map(|c| cell(r, c))).unwrap();
                }
                String::from_utf8(w.into_inner().unwrap()).unwrap()
            }
        }
    }
}

const BY_CUSTOMER: Q = Q {
    text: "SELECT * FROM c WHERE c.customerId = @customerId ORDER BY c.ts DESC",
    per_sec: 5.0,
    ranges: 1,
    pages: 2,
    ru: 2.5,
};
const BY_STATUS: Q = Q {
    text: "SELECT * FROM c WHERE c.status IN ('open', 'paid') AND c.ts > @since",
    per_sec: 0.5,
    ranges: 4,
    pages: 1,
    ru: 4.0,
};

/// The shop: orders by customer (one partition, two pages of 2.5 RU), orders by status (four
/// partitions, 4 RU each), 50 reads/s of 1 RU, 10 creates/s of 7.5 RU, 2 upserts/s of 10 RU,
/// 30 throttled reads on p3, 100 rows of another container, 3 unreadable queries.
fn shop(mode: Mode) -> Gen {
    let mut g = Gen::new(mode);
    g.ops("Read", 50.0, 1.0, 0.0);
    g.ops("Create", 10.0, 7.5, 0.003);
    g.ops("Upsert", 2.0, 10.0, 0.007);
    g.queries(&BY_CUSTOMER, 0.011);
    g.queries(&BY_STATUS, 0.013);
    for k in 0..30 {
        g.request(k as f64, "orders", "Read", 0.0, 429, "p3");
    }
    for k in 0..100 {
        g.request(k as f64, "carts", "Read", 1.0, 200, "p1");
    }
    for k in 0..3 {
        let t = 100.0 * k as f64 + 0.5;
        let a = g.request(t, "orders", "Query", 9.0, 200, "p1");
        g.query_row(
            t,
            "SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags)",
            a,
            &guid(9 << 40 | k),
            0,
        );
    }
    g
}

fn write(text: &str, ext: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(ext).tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f
}

fn derive_text(text: &str, ext: &str, container: Option<&str>) -> Result<Derived, ObservedError> {
    let f = write(text, ext);
    derive(&LogsOptions {
        files: vec![f.path().to_path_buf()],
        filter: ObservedFilter {
            container: container.map(|c| ("shop".to_string(), c.to_string())),
            region: None,
        },
    })
}

/// A derived query: its filter, rate and RU.
type Entry = (Vec<(String, FilterOp)>, f64, Option<f64>);

fn within(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want
}

#[test]
fn the_shop_is_recovered_from_every_rendering() {
    for mode in [Mode::Resource, Mode::Legacy] {
        let g = shop(mode);
        for (format, ext) in [
            (Format::Json, ".json"),
            (Format::Csv, ".csv"),
            (Format::Rest, ".json"),
        ] {
            let d = derive_text(&g.render(format), ext, Some("orders")).unwrap();
            let w = d.window_secs();
            // The window: first request at 0, last read at 600 − 1/50.
            assert!((w - (T - 0.02)).abs() < 1e-6, "{w}");
            assert_eq!(d.rows_other_containers, 100);
            assert_eq!(d.throttled.get("p3"), Some(&30));
            let rate = |op: &str| d.ops[op].count as f64 / w;
            assert!(within(rate("Read"), 50.0, 0.01));
            assert!(within(rate("Create"), 10.0, 0.01));
            assert_eq!(d.ops["Create"].ru / d.ops["Create"].count as f64, 7.5);
            assert_eq!(d.shapes.len(), 2);
            let (a, b) = (&d.shapes[0], &d.shapes[1]);
            // 5/s queries of two 2.5 RU pages: 3000 executions, 6000 requests, 5 RU each.
            assert_eq!((a.executions, a.requests), (3000, 6000));
            assert!(within(a.executions as f64 / w, BY_CUSTOMER.per_sec, 0.01));
            assert_eq!(a.ru / a.executions as f64, 5.0);
            assert_eq!((a.partitions, a.cross_partition), (3000, 0));
            assert_eq!(
                a.parsed.filter.iter().collect::<Vec<_>>(),
                vec![(&"/customerId".to_string(), &Class::Eq)]
            );
            assert_eq!(a.parsed.order_by, vec!["/ts".to_string()]);
            // 0.5/s over four partitions at 4 RU: 300 executions of 16 RU, all cross-partition.
            assert_eq!(
                (b.executions, b.requests, b.cross_partition),
                (300, 1200, 300)
            );
            assert!(within(b.executions as f64 / w, BY_STATUS.per_sec, 0.01));
            assert_eq!(b.ru / b.executions as f64, 16.0);
            // Two values in each of its 1200 rows.
            assert_eq!(b.in_values["/status"], (2400, 1200));
            assert_eq!(
                (d.unreadable_rows, d.unreadable_executions, d.unreadable_ru),
                (3, 3, 27.0)
            );
            // The file reads back as a workload with the truth's rates, filters and RU.
            let text = render(&d, &Limits::default());
            let wl = crate::workload::parse(&text, "derived", false).unwrap();
            let writes = wl.writes.unwrap();
            assert!(within(writes.per_sec, 12.0, 0.01));
            assert_eq!(writes.kind, crate::workload::WriteKind::Insert);
            assert!(within(wl.reads.unwrap().per_sec, 50.0, 0.01));
            let q: Vec<Entry> = wl
                .queries
                .iter()
                .map(|q| (q.filter.clone(), q.per_sec, q.ru))
                .collect();
            assert_eq!(q[0].0, vec![("/customerId".to_string(), FilterOp::Eq)]);
            assert!(within(q[0].1, 5.0, 0.01));
            // ru = measured 5 − 1 partition × 2.5; 16 − 4 × 2.5.
            assert_eq!(q[0].2, Some(2.5));
            assert_eq!(
                q[1].0,
                vec![
                    ("/status".to_string(), FilterOp::In(2)),
                    ("/ts".to_string(), FilterOp::Range)
                ]
            );
            assert_eq!(q[1].2, Some(6.0));
            assert_eq!(
                q[2].0,
                vec![("/\"?unreadable\"".to_string(), FilterOp::Range)]
            );
            assert!(text.contains("EXISTS (subquery) is not read"), "{text}");
            assert!(text.contains("429 (throttled) responses by physical partition (PartitionId), not counted in the rates: p3 30"));
        }
    }
}

#[test]
fn multi_tenant_hierarchical_and_obfuscated_shapes() {
    let mut g = Gen::new(Mode::Resource);
    let user = Q {
        text: "SELECT * FROM c WHERE c.tenantId = @t AND c.userId = @u AND c.ts >= @from",
        per_sec: 20.0,
        ranges: 1,
        pages: 1,
        ru: 3.0,
    };
    let tenant = Q {
        text: "SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @t",
        per_sec: 2.0,
        ranges: 3,
        pages: 1,
        ru: 2.5,
    };
    let hidden = Q {
        text: "SELECT * FROM r1 WHERE ((r1[\"p1__8\"] = \"str1__6\") AND ARRAY_CONTAINS(@param1__14, r1.p2__6))",
        per_sec: 1.0,
        ranges: 1,
        pages: 1,
        ru: 4.0,
    };
    g.queries(&user, 0.0);
    g.queries(&tenant, 0.001);
    g.queries(&hidden, 0.002);
    g.ops("Create", 4.0, 6.0, 0.004);
    let d = derive_text(&g.render(Format::Json), ".json", None).unwrap();
    let w = d.window_secs();
    let text = render(&d, &Limits::default());
    let wl = crate::workload::parse(&text, "derived", false).unwrap();
    let hand = crate::workload::parse(
        "writes: { per_sec: 4 }\nqueries:\n  - { name: a, per_sec: 20, filter: { /tenantId: eq, /ts: range, /userId: eq }, ru: 0.5 }\n  - { name: b, per_sec: 2, filter: { /tenantId: eq }, ru: 0 }\n",
        "hand",
        false,
    )
    .unwrap();
    for (got, want) in wl.queries.iter().zip(&hand.queries) {
        assert_eq!(got.filter, want.filter);
        assert!(
            within(got.per_sec, want.per_sec, 0.01),
            "{} {}",
            got.per_sec,
            want.per_sec
        );
        assert_eq!(got.ru, want.ru);
    }
    assert!(within(wl.writes.unwrap().per_sec, 4.0, 0.01));
    // The obfuscated shape: its numbers, its classes, its names marked and never a key.
    let h = &d.shapes[2];
    assert!(h.parsed.obfuscated);
    assert!(within(h.executions as f64 / w, 1.0, 0.01));
    assert_eq!(
        h.parsed
            .filter
            .iter()
            .map(|(p, c)| (p.as_str(), *c))
            .collect::<Vec<_>>(),
        vec![("/\"?p1__8\"", Class::Eq), ("/\"?p2__6\"", Class::In(None))]
    );
    assert_eq!(
        wl.queries[2].filter[1],
        ("/\"?p2__6\"".to_string(), FilterOp::In(3))
    );
    assert!(text.contains("OBFUSCATED"), "{text}");
    assert!(text.contains("a parameter array, its length not in the logs: 3 values assumed"));
}

#[test]
fn bad_exports_name_the_file_and_row() {
    let g = shop(Mode::Resource);
    let good = g.render(Format::Json);
    // Two containers without --container.
    let e = derive_text(&good, ".json", None).unwrap_err().to_string();
    assert!(
        e.contains("2 containers (shop/carts, shop/orders); choose one with --container DB/NAME"),
        "{e}"
    );
    let e = derive_text(&good, ".json", Some("nope"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--container shop/nope: the exports hold no requests of it"),
        "{e}"
    );
    // Cut short: refused, with the line.
    let e = derive_text(&good[..good.len() / 2], ".json", Some("orders"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("a file cut short is refused"), "{e}");
    // Empty.
    let e = derive_text("", ".csv", None).unwrap_err().to_string();
    assert!(e.contains("no rows: the export is empty"), "{e}");
    // A charge that is not a number: file and row.
    let bad = good.replacen("\"RequestCharge\": \"1\"", "\"RequestCharge\": \"lots\"", 1);
    let e = derive_text(&bad, ".json", Some("orders"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(": row 1: RequestCharge `lots` is not a number"),
        "{e}"
    );
    // A REST response that carries an error is partial: refused.
    let rest = g.render(Format::Rest).replacen(
        "{\"tables\"",
        "{\"error\":{\"code\":\"PartialError\"},\"tables\"",
        1,
    );
    let e = derive_text(&rest, ".json", Some("orders"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("the response carries an error"), "{e}");
    // The partition-key tables belong to --observed.
    let pk = "[{\"TimeGenerated\":\"2026-01-01T00:00:00Z\",\"PartitionKey\":\"[1]\",\"RequestCharge\":1}]";
    let e = derive_text(pk, ".json", None).unwrap_err().to_string();
    assert!(e.contains("row 1: a `PartitionKey` column"), "{e}");
}

#[test]
fn without_correlation_each_request_is_a_query_and_the_file_says_so() {
    let g = shop(Mode::Resource);
    let text = g
        .render(Format::Json)
        .replace("CorrelatedActivityId", "Dropped");
    let d = derive_text(&text, ".json", Some("orders")).unwrap();
    assert!(d.no_correlation);
    // Each page counts: 6000 "executions" of 2.5 RU.
    assert_eq!(d.shapes[0].executions, 6000);
    assert!(render(&d, &Limits::default()).contains("no CorrelatedActivityId"));
}
