use super::*;

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_table_that_fits_keeps_every_column() {
    let h = strings(&["#", "candidate", "kind", "verdict", "score"]);
    let r = vec![strings(&["1", "/userId", "single", "PASS", "71"])];
    let f = fit(h.clone(), r.clone(), 80);
    assert_eq!((f.headers, f.rows), (h, r));
    // "#" 1+2, "candidate" 9+2, "single" 6+2, "verdict" 7+2, "score" 5+2.
    assert_eq!(f.bounds, [3, 11, 8, 9, 7]);
    assert!(f.left_out.is_empty());
}

#[test]
fn a_narrow_ranking_keeps_the_deciding_columns_then_drops_by_priority() {
    let h = strings(&[
        "#",
        "candidate",
        "kind",
        "verdict",
        "score",
        "gini",
        "largest partition",
    ]);
    let name = "/location/address/city>/location/address/zipcode";
    let r = vec![strings(&[
        "1",
        name,
        "hierarchical",
        "PASS",
        "71",
        "0.59",
        "95.4 KB (90 KB – 99 KB)",
    ])];
    // # 3, the name 50, kind 14, verdict 9, score 7, gini 6, largest 11 ("partition") and 8
    // borders: 108, too wide for 80.
    let f = fit(h.clone(), r.clone(), 80);
    assert_eq!(f.headers, ["#", "candidate", "verdict", "est. max"]);
    assert_eq!(f.rows[0], ["1", name, "PASS", "95.4 KB"]);
    assert_eq!(f.left_out, ["gini", "kind", "score"]);
    // A column left out after the narrow layout is named as the wide layout names it.
    let f60 = fit(h.clone(), r.clone(), 70);
    assert_eq!(f60.left_out, ["gini", "kind", "score", "largest partition"]);
    // At 70 the size goes too: # 3, the name 50, verdict 9 and 4 borders are 66 columns.
    let f = fit(h.clone(), r.clone(), 70);
    assert_eq!(f.headers, ["#", "candidate", "verdict"]);
    assert_eq!(f.bounds, [3, 50, 9]);
    // Below that nothing is left to drop: no bound, comfy-table cuts where it must.
    assert!(fit(h, r, 60).bounds.is_empty());
}

#[test]
fn a_ranking_a_little_too_wide_loses_a_detail_column_not_its_layout() {
    let h = strings(&[
        "#",
        "candidate",
        "kind",
        "verdict",
        "score",
        "gini",
        "largest partition",
    ]);
    let r = vec![strings(&[
        "1", "/a", "single", "PASS", "71", "0.59", "95.4 KB",
    ])];
    // 3 + 11 + 8 + 9 + 7 + 6 + 11 and 8 borders: 63. Without gini (6 + 1): 56.
    assert_eq!(fit(h.clone(), r.clone(), 63).left_out, Vec::<String>::new());
    let f = fit(h, r, 60);
    assert_eq!(f.left_out, ["gini"]);
    assert_eq!(
        f.headers,
        [
            "#",
            "candidate",
            "kind",
            "verdict",
            "score",
            "largest partition"
        ]
    );
}

#[test]
fn the_field_profile_shortens_its_headers_then_drops() {
    let h = strings(&[
        "path",
        "types",
        "present",
        "missing/null",
        "distinct",
        "top value",
        "bytes mean/max",
        "looks like",
        "follows time",
    ]);
    let r = vec![strings(&[
        "/translations/*/official",
        "string 100.0%",
        "100.0%",
        "0.0%/0.0%",
        "6,250",
        "oara (0.0%)",
        "6/9",
        "text",
        "n/a",
    ])];
    let f = fit(h, r, 80);
    // path 24+2, types 6+2 ("100.0%"), present 7+2, miss/null 9+2, distinct 8+2, looks 5+2,
    // and 7 borders: 78 columns.
    assert_eq!(
        f.headers,
        ["path", "types", "present", "miss/null", "distinct", "looks"]
    );
    assert_eq!(f.left_out, ["bytes mean/max", "follows time", "top value"]);
    let widest: usize = f.bounds.iter().map(|&b| usize::from(b) + 1).sum::<usize>() + 1;
    assert!(widest <= 80, "{widest}");
}

#[test]
fn the_physical_layout_drops_its_bars_when_narrow() {
    let h = strings(&["EPK range", "bytes", "storage (of 50 GB)", "utilisation"]);
    let r = vec![strings(&[
        "[\"\", FF)",
        "1.0 GB",
        &"#".repeat(60),
        "####...... 41.0%",
    ])];
    let f = fit(h.clone(), r.clone(), 80);
    assert_eq!(f.headers, ["EPK range", "bytes", "utilisation"]);
    assert_eq!(f.rows[0], ["[\"\", FF)", "1.0 GB", "41.0%"]);
    assert_eq!(f.left_out, ["storage (of 50 GB)"]);
    assert_eq!(fit(h.clone(), r.clone(), 160).headers, h);
}

#[test]
fn narrow_cells_keep_their_words() {
    assert_eq!(
        short_counts("3,000 (est. 220,816,033)"),
        "3,000 (est. 220.8M)"
    );
    assert_eq!(short_counts("45 (est. 61)"), "45 (est. 61)");
    assert_eq!(short_counts("1,234,567,890"), "1.2B");
    let h = strings(&["#", "candidate"]);
    let rows = vec![strings(&["1", "/tenantId>/userId>/id"])];
    assert_eq!(bounds_for(&h, &rows, 80, true), Some(vec![3, 23]));
    let size = vec![strings(&["28.6 GB (est.)"])];
    assert_eq!(bounds_for(&strings(&["x"]), &size, 80, true), Some(vec![9]));
    // Headers give way first; when the cells' words cannot fit either, no bound is set.
    let wide = strings(&["a header", "another header"]);
    let cells = vec![strings(&["1", "2"])];
    assert_eq!(bounds_for(&wide, &cells, 16, true), None);
    assert_eq!(bounds_for(&wide, &cells, 16, false), Some(vec![3, 3]));
    let long = |n: usize| vec!["x".repeat(20); n];
    assert_eq!(bounds_for(&long(4), &[long(4)], 40, false), None);
}
