//! Tests of [`super`] (`profile/mod.rs`), kept beside it in their own file.

use super::*;
use serde_json::json;

fn profiler(docs: impl IntoIterator<Item = serde_json::Value>, time: Option<&str>) -> Profiler {
    let segs: Option<Vec<String>> = time.map(|t| vec![t.to_owned()]);
    let mut p = Profiler::default();
    for d in docs {
        p.add(&d, segs.as_deref());
    }
    p
}

fn field<'a>(f: &'a [FieldProfile], path: &str) -> &'a FieldProfile {
    f.iter().find(|x| x.path == path).unwrap()
}

/// The most frequent values, ties by text, `null` left out, at most `top` of them: the
/// selection gives the order a full sort gives.
#[test]
fn top_values_are_the_most_frequent_ties_by_text() {
    // Counts: "e" 5, "b" and "d" 3 (a tie), "a" 2, null 4, 1 to 30 once each.
    let mut docs: Vec<serde_json::Value> = Vec::new();
    for (v, n) in [("e", 5), ("d", 3), ("b", 3), ("a", 2)] {
        docs.extend((0..n).map(|_| json!({ "v": v })));
    }
    docs.extend((0..4).map(|_| json!({ "v": null })));
    docs.extend((1..=30).map(|i| json!({ "v": i })));
    let p = profiler(docs, None);
    let a = &p.paths["/v"];
    let got = |top: usize| -> Vec<(String, u64)> {
        top_values(a, top, 43)
            .into_iter()
            .map(|t| (t.value, t.documents))
            .collect()
    };
    let want = |pairs: &[(&str, u64)]| -> Vec<(String, u64)> {
        pairs.iter().map(|&(v, n)| (v.to_owned(), n)).collect()
    };
    assert_eq!(got(3), want(&[("\"e\"", 5), ("\"b\"", 3), ("\"d\"", 3)]));
    assert_eq!(got(0), want(&[]));
    let all = got(100);
    assert_eq!(all.len(), 34);
    assert_eq!(all[3], ("\"a\"".to_owned(), 2));
    // The values seen once, by text: "1", "10", "11", … ("null" left out).
    assert_eq!(all[4], ("1".to_owned(), 1));
    assert_eq!(all[5], ("10".to_owned(), 1));
    assert_eq!(top_values(a, 1, 43)[0].share, 5.0 / 43.0);
}

#[test]
fn shapes_are_recognised() {
    const KINDS: [&str; 3] = ["a", "b", "c"];
    let docs = (0..400).map(|i| {
        json!({
            "id": format!("i{i}"),
            "kind": KINDS[i % 3],
            "flag": i % 2 == 0,
            "one": "x",
            "ts": format!("2024-05-{:02}T10:00:00Z", 1 + i % 28),
            "day": format!("2024-05-{:02}", 1 + i % 28),
            "mixed": if i % 2 == 0 { json!(1) } else { json!("1") },
            "user": format!("u{}", i % 150),
            "tags": [1, 2],
            "price": i as f64 + 0.5,
            "always_null": null,
            "net": format!("05/{:02}/2024 10:00:00", 1 + i % 20),
            "count": if i % 2 == 0 { i * 1000 } else { i % 7 },
            "serial": i + 1,
            "note": format!("free text number {i}"),
            // #31 item 9: a price as text, a US short date, and zip codes (integers as
            // text, which stay values: they are identifiers).
            "price_text": format!("{}.{}", i % 97, 1 + i % 9),
            "us_date": format!("{}/{}/2017 9:45", 1 + i % 3, 10 + i % 5),
            "zip": format!("{:05}", 1000 + i % 120),
            // #31 item 5: versions and URL paths are never keys.
            "app": format!("{}.{}.{}", 1 + i % 3, i % 11, i % 7),
            "route": format!("/api/orders/{}", i % 90),
            "link": format!("https://example.com/p/{i}"),
        })
    });
    let p = profiler(docs, None);
    let f = summarize(&p, p.documents as f64, None, 3);
    let shape = |path: &str| field(&f, path).looks_like.clone();
    assert_eq!(shape("/id"), "id");
    assert_eq!(shape("/kind"), "enum");
    assert_eq!(shape("/flag"), "boolean");
    assert_eq!(shape("/one"), "constant");
    assert_eq!(shape("/ts"), "timestamp");
    assert_eq!(shape("/day"), "date");
    assert_eq!(shape("/mixed"), "mixed_types");
    assert_eq!(shape("/user"), "value");
    assert_eq!(shape("/tags"), "array");
    assert_eq!(shape("/price"), "measurement");
    assert_eq!(shape("/price_text"), "measurement");
    assert_eq!(shape("/us_date"), "timestamp");
    assert_eq!(shape("/zip"), "value");
    assert_eq!(shape("/app"), "version");
    assert_eq!(shape("/route"), "path");
    assert_eq!(shape("/link"), "path");
    assert_eq!(shape("/count"), "quantity");
    // 1 to 400: three digits of spread, but no zero: an auto-increment id, not a count.
    assert_eq!(shape("/serial"), "id");
    assert_eq!(shape("/always_null"), "null");
    assert_eq!(field(&f, "/always_null").value_bytes, [0.0, 0.0]);
    assert_eq!(shape("/net"), "timestamp");
    assert!(field(&f, "/net")
        .time_format
        .as_deref()
        .unwrap()
        .contains("MM/dd/yyyy"));
    assert_eq!(shape("/note"), "text");
    let user = field(&f, "/user");
    assert_eq!(user.distinct, 150);
    // 400 = 150 × 2 + 100: values u0..u99 hold 3 documents each, the rest 2.
    assert_eq!(user.top_values[0].documents, 3);
    assert!((user.top_values[0].share - 3.0 / 400.0).abs() < 1e-12);
    assert_eq!(detect_time_field(&p).as_deref(), Some("/ts"));
}

#[test]
fn presence_and_nulls_are_shares_of_all_documents() {
    let docs = (0..10).map(|i| match i {
        0..=5 => json!({"k": i}),
        6 | 7 => json!({"k": null}),
        _ => json!({}),
    });
    let p = profiler(docs, None);
    let f = summarize(&p, 10.0, None, 3);
    let k = field(&f, "/k");
    assert_eq!(k.present, 6);
    assert!((k.missing_share - 0.2).abs() < 1e-12);
    assert!((k.null_share - 0.2).abs() < 1e-12);
}

#[test]
fn a_date_follows_time_and_a_device_does_not() {
    // 30 days, 40 devices reporting every day: each day's value lives one day, each device
    // the whole span.
    let mut docs = Vec::new();
    for d in 1..=30 {
        for dev in 0..40 {
            docs.push(json!({"ts": format!("2024-04-{d:02}T{:02}:00:00Z", dev % 24), "day": format!("2024-04-{d:02}"), "device": format!("d{dev}")}));
        }
    }
    let p = profiler(docs, Some("ts"));
    let f = summarize(&p, p.documents as f64, Some("/ts".into()), 3);
    assert_eq!(field(&f, "/day").follows_time, Some(true));
    assert!(field(&f, "/day").active_latest.unwrap() <= 2);
    assert_eq!(field(&f, "/device").follows_time, Some(false));
    assert_eq!(field(&f, "/device").active_latest, Some(40));
}

#[test]
fn the_id_property_is_checked() {
    let p = profiler((0..5).map(|i| json!({"_id": {"$oid": i}})), None);
    let id = id_property(&p);
    assert_eq!(id.present, 0);
    assert!(id.advice.contains("_id"), "{}", id.advice);
    // The counts are the profile's, and said to be: the automatic search profiles only the
    // first documents of a file.
    assert!(
        id.advice
            .starts_with("none of the 5 documents profiled has an `id`"),
        "{}",
        id.advice
    );
    let p = profiler(
        (0..5).map(|i| {
            if i < 2 {
                json!({"id": format!("a{i}")})
            } else {
                json!({"k": i})
            }
        }),
        None,
    );
    assert!(
        id_property(&p)
            .advice
            .starts_with("3 of the 5 documents profiled have no `id`: "),
        "{}",
        id_property(&p).advice
    );
    let p = profiler((0..5).map(|i| json!({"id": format!("a{i}")})), None);
    assert_eq!(id_property(&p).advice, "ok");
    let p = profiler([json!({"id": "a"}), json!({"id": "a"})], None);
    assert!(!id_property(&p).unique);
}

#[test]
fn ids_past_the_tracking_limit_are_not_called_repeats() {
    // 100,005 distinct ids: past the 100,000 values a path keeps, the ids kept are those whose
    // hash is in half the hash space (level 1). It said "`id` repeats" although no id repeats.
    use acc::values_sampled;
    let text = |i: usize| format!("{i:06}");
    let kept = (0..100_005)
        .filter(|&i| values_sampled(&format!("\"{}", text(i)), 1))
        .count();
    let p = profiler((0..100_005).map(|i| json!({ "id": text(i) })), None);
    assert_eq!(p.paths["/id"].level, 1);
    let id = id_property(&p);
    assert!(!id.unique);
    assert_eq!(
        id.advice,
        format!(
            "`id` has no repeat among the {} values tracked; {} more documents hold other ids \
             (past 100,000 values per property, the values tracked are those whose hash falls in \
             1 in 2 of the hash space), so whether those repeat is not known (Cosmos DB requires \
             `id` unique within a logical partition)",
            crate::fmt::count(kept as f64),
            crate::fmt::count((100_005 - kept) as f64)
        )
    );
    // A repeat of a kept id is still a repeat (every document of a kept id is counted).
    let twice = (0..100_005)
        .find(|&i| values_sampled(&format!("\"{}", text(i)), 1))
        .unwrap();
    let p = profiler(
        (0..100_005).map(|i| json!({ "id": text(if i == 100_004 { twice } else { i }) })),
        None,
    );
    assert!(id_property(&p).advice.starts_with("`id` repeats"));
}

/// The report of documents `docs`, as the search reads it.
fn report_of(docs: Vec<serde_json::Value>) -> crate::model::FieldsReport {
    let n = docs.len() as u64;
    let p = profiler(docs, None);
    crate::model::FieldsReport {
        schema_version: crate::model::FIELDS_SCHEMA_VERSION,
        documents: n,
        records_skipped: 0,
        non_objects: 0,
        production_documents: n as f64,
        mean_stored_document_bytes: 100.0,
        id_property: id_property(&p),
        fields: summarize(&p, n as f64, None, 3),
        time_field: None,
        untracked_paths: p.untracked_paths,
        numbers_past_double: 0,
        seconds: 0.0,
    }
}

/// A field is near the first-level rule (5 documents a value on average) from 2.5 documents a
/// value up to 5, whatever else the documents hold; an id-like field or one of fewer than 10
/// values is never a first level, so never near it.
#[test]
fn near_the_first_level_rule_is_from_half_the_repeat_up_to_it() {
    // 100 documents; `/c` takes `values` values in turn.
    let near = |values: u64| {
        let docs =
            (0..100u64).map(|i| json!({ "id": format!("d{i}"), "c": format!("c{}", i % values) }));
        super::discover::near_first_level_rule(&report_of(docs.collect()))
    };
    assert!(!near(20), "5 a value: over the rule");
    assert!(near(21), "4.76 a value");
    assert!(near(40), "2.5 a value");
    assert!(!near(41), "2.44 a value: under half");
    assert!(!near(50), "2 a value");
    // 4 values (25 a value) are too few to lead; ids (one a value) never lead.
    assert!(!near(4));
    assert!(!near(100));
}
