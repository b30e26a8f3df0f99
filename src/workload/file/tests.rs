//! Tests of [`super`] (`file.rs`), kept beside it in their own file.

use super::*;

const EXAMPLE: &str = r#"
consistency: session
indexing: default
writes:   { per_sec: 2000, kind: insert }
reads:    { per_sec: 5000, by: [/tenantId, /id] }
queries:
  - name: sessions of a user
    per_sec: 300
    filter: { /tenantId: eq, /userId: eq }
  - name: recent
    per_sec: 2.5
    filter:
      /userId: { in: 5 }
      /tenantId: in
      /ts: range
    ru: 12
"#;

fn invalid(text: &str) -> String {
    parse(text, "workload.yaml", false).unwrap_err().to_string()
}

#[test]
fn parses_the_documented_example() {
    let w = parse(EXAMPLE, "workload.yaml", false).unwrap();
    assert_eq!(w.consistency, Consistency::Session);
    assert_eq!(w.indexing, Indexing::Default);
    assert_eq!(
        w.writes,
        Some(Writes {
            per_sec: 2000.0,
            kind: WriteKind::Insert
        })
    );
    let reads = w.reads.as_ref().unwrap();
    assert_eq!(reads.per_sec, 5000.0);
    assert_eq!(reads.by, vec!["/tenantId", "/id"]);
    assert_eq!(w.queries.len(), 2);
    assert_eq!(w.queries[0].name, "sessions of a user");
    assert_eq!(
        w.queries[0].filter,
        vec![
            ("/tenantId".to_string(), FilterOp::Eq),
            ("/userId".to_string(), FilterOp::Eq)
        ]
    );
    assert_eq!(w.queries[0].ru, None);
    // Order as written, not sorted.
    assert_eq!(
        w.queries[1].filter,
        vec![
            ("/userId".to_string(), FilterOp::In(5)),
            ("/tenantId".to_string(), FilterOp::In(3)),
            ("/ts".to_string(), FilterOp::Range)
        ]
    );
    assert_eq!(w.queries[1].ru, Some(12.0));
    assert_eq!(w.queries[1].per_sec, 2.5);
}

#[test]
fn defaults_when_fields_are_absent() {
    let w = parse("writes: { per_sec: 10 }", "w.yaml", false).unwrap();
    assert_eq!(w.consistency, Consistency::Session);
    assert_eq!(w.indexing, Indexing::Default);
    assert_eq!(w.writes.unwrap().kind, WriteKind::Insert);
    assert!(w.reads.is_none());
    assert!(w.queries.is_empty());
    let w = parse("reads: { per_sec: 1 }", "w.yaml", false).unwrap();
    assert!(w.reads.unwrap().by.is_empty());
}

#[test]
fn parses_json_keeping_filter_order() {
    let text = r#"{
            "consistency": "strong",
            "indexing": {"included_paths": 4},
            "writes": {"per_sec": 5, "kind": "upsert"},
            "queries": [{"name": "q", "per_sec": 1,
                         "filter": {"/z": "eq", "/a": {"in": 2}, "/m": "in7"}}]
        }"#;
    let w = parse(text, "w.json", true).unwrap();
    assert_eq!(w.consistency, Consistency::Strong);
    assert_eq!(w.indexing, Indexing::IncludedPaths(4));
    assert_eq!(w.writes.unwrap().kind, WriteKind::Upsert);
    let paths: Vec<_> = w.queries[0]
        .filter
        .iter()
        .map(|(p, op)| format!("{p}:{op}"))
        .collect();
    assert_eq!(paths, vec!["/z:eq", "/a:in2", "/m:in7"]);
    // The same JSON through the YAML parser.
    assert_eq!(
        parse(text, "w", false).unwrap(),
        parse(text, "w", true).unwrap()
    );
}

#[test]
fn indexing_and_consistency_values() {
    let w = parse("indexing: none\nconsistency: bounded_staleness", "w", false).unwrap();
    assert_eq!(w.indexing, Indexing::None);
    assert_eq!(w.consistency, Consistency::BoundedStaleness);
    assert!(w.consistency.doubles_read_cost());
    assert!(!Consistency::Eventual.doubles_read_cost());
    assert_eq!(
        invalid("consistency: strng"),
        "workload.yaml: consistency: unknown value `strng`; accepted: strong, \
             bounded_staleness, session, consistent_prefix, eventual"
    );
    assert_eq!(
        invalid("indexing: lazy"),
        "workload.yaml: indexing: unknown value `lazy`; accepted: default, none, \
             { included_paths: n }"
    );
    assert_eq!(
        invalid("indexing: { included_paths: 2.5 }"),
        "workload.yaml: indexing.included_paths: must be a whole number from 0 to \
         4,294,967,295, got 2.5"
    );
    assert_eq!(
        invalid("indexing: { included_paths: 1e308 }"),
        "workload.yaml: indexing.included_paths: must be a whole number from 0 to \
         4,294,967,295, got 1e308"
    );
    assert_eq!(
        invalid("writes: { per_sec: 1, kind: delete }"),
        "workload.yaml: writes.kind: unknown value `delete`; accepted: insert, upsert, replace"
    );
}

#[test]
fn precise_validation_errors() {
    assert_eq!(
        invalid("writes: { per_sec: -5 }"),
        "workload.yaml: writes.per_sec: must be a number from 0 to 1e9 per second, got -5 at \
         line 1 column 20"
    );
    assert_eq!(
        invalid("reads: { per_sec: 1, by: [id] }"),
        "workload.yaml: reads.by[0]: path `id` must start with `/`"
    );
    let q = |filter: &str| {
        format!(
            "queries:\n- {{ name: a, per_sec: 1, filter: {{ /a: eq }} }}\n\
                 - {{ name: b, per_sec: 1, filter: {{ /b: eq }} }}\n\
                 - {{ name: c, per_sec: 1, filter: {filter} }}\n"
        )
    };
    assert_eq!(
        invalid(&q("{ /a: eq, status: eq }")),
        "workload.yaml: queries[2].filter: path `status` must start with `/`"
    );
    assert_eq!(
        invalid(&q("{}")),
        "workload.yaml: queries[2].filter: must name at least one path (a query without a \
             filter reads every partition; describe it with the property it scans, e.g. \
             `/type: range`)"
    );
    assert_eq!(
        invalid(&q("{ /a: equals }")),
        "workload.yaml: queries[2].filter./a: unknown operator `equals`; accepted: eq, in, \
             in<N>, {in: N}, range"
    );
    assert_eq!(
        invalid(&q("{ /a: { in: 0 } }")),
        "workload.yaml: queries[2].filter./a: `in` needs a whole number of values from 1 to \
         4,294,967,295, got 0"
    );
    assert_eq!(
        invalid(&q("{ /a: { out: 2 } }")),
        "workload.yaml: queries[2].filter./a: got a mapping; accepted: eq, in, in<N>, \
             {in: N}, range"
    );
    let e = invalid(&q("{ \"/a b\": eq }"));
    assert!(
        e.starts_with("workload.yaml: queries[2].filter: invalid path `/a b`: "),
        "{e}"
    );
    assert_eq!(
        invalid(&q("{ /a+/b: eq }")),
        "workload.yaml: queries[2].filter: `/a+/b` is not a single property path"
    );
    assert_eq!(
        invalid(
            "queries:\n- { name: a, per_sec: 1, filter: { /a: eq } }\n\
                 - { name: a, per_sec: 2, filter: { /b: eq } }\n"
        ),
        "workload.yaml: queries[1].name: duplicate query name `a` (also queries[0])"
    );
    assert_eq!(
        invalid("queries:\n- { name: a, per_sec: 1, filter: { /a: eq }, ru: -1 }"),
        "workload.yaml: queries[0].ru: must be a number from 0 to 1e6 RU, got -1 at line 2 \
         column 50"
    );
    assert_eq!(
        invalid("queries:\n- { name: ' ', per_sec: 1, filter: { /a: eq } }"),
        "workload.yaml: queries[0].name: must not be empty"
    );
}

#[test]
fn unknown_fields_and_syntax_errors_name_the_file() {
    let e = invalid("writes: { per_sec: 1 }\nquries: []");
    assert!(
        e.starts_with("workload.yaml: unknown field `quries`"),
        "{e}"
    );
    let e = invalid("queries:\n- { name: a, per_sec: 1, filtr: { /a: eq } }");
    assert!(e.contains("unknown field `filtr`"), "{e}");
    assert!(e.starts_with("workload.yaml: queries[0]"), "{e}");
    let e = invalid("writes: { per_sec: 1, knd: insert }");
    assert!(e.contains("unknown field `knd`"), "{e}");
    let e = parse("{\"writes\": {\"per_sec\": 1, \"x\": 2}}", "w.json", true)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("w.json: unknown field `x`"), "{e}");
    assert_eq!(invalid("  \n"), "workload.yaml: empty workload file");
    let e = invalid("writes: [");
    assert!(e.starts_with("workload.yaml: "), "{e}");
    let e = invalid("queries:\n- { name: a, per_sec: 1, filter: { /a: eq, /a: in } }");
    assert!(e.starts_with("workload.yaml: "), "{e}");
}

#[test]
fn load_reads_files_by_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let yaml = dir.join("w.yml");
    std::fs::write(&yaml, EXAMPLE).unwrap();
    assert_eq!(load(&yaml).unwrap().queries.len(), 2);
    let json = dir.join("w.json");
    std::fs::write(&json, "{\"writes\": {\"per_sec\": 3}}").unwrap();
    assert_eq!(load(&json).unwrap().writes.unwrap().per_sec, 3.0);
    let missing = dir.join("missing.yaml");
    let e = load(&missing).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}: cannot read: ", missing.display())),
        "{e}"
    );
}

#[test]
fn the_fixture_is_valid() {
    let text = include_str!("../../../fixtures/workload.yaml");
    let w = parse(text, "fixtures/workload.yaml", false).unwrap();
    assert_eq!(w.writes.unwrap().per_sec, 2000.0);
    assert_eq!(w.reads.unwrap().by, vec!["/tenantId", "/id"]);
    let names: Vec<_> = w.queries.iter().map(|q| q.name.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "sessions of a user",
            "tenant dashboard",
            "all failed payments"
        ]
    );
}

#[test]
fn query_flag_shortcut() {
    let q = parse_query_flag("name=tenant dashboard,per_sec=20,filter=/tenantId:eq+/userId:in5")
        .unwrap();
    assert_eq!(q.name, "tenant dashboard");
    assert_eq!(q.per_sec, 20.0);
    assert_eq!(
        q.filter,
        vec![
            ("/tenantId".to_string(), FilterOp::Eq),
            ("/userId".to_string(), FilterOp::In(5))
        ]
    );
    assert_eq!(q.ru, None);
    let q = parse_query_flag("name=x, per_sec=1.5, filter=/a:in+/b:range+/c, ru=7").unwrap();
    assert_eq!(
        q.filter,
        vec![
            ("/a".to_string(), FilterOp::In(3)),
            ("/b".to_string(), FilterOp::Range),
            ("/c".to_string(), FilterOp::Eq)
        ]
    );
    assert_eq!(q.ru, Some(7.0));
    // Quoted segments may contain the separators.
    let q = parse_query_flag(r#"name=q,per_sec=1,filter=/"a,b+c:d":in2+/x:y:eq"#).unwrap();
    assert_eq!(
        q.filter,
        vec![
            (r#"/"a,b+c:d""#.to_string(), FilterOp::In(2)),
            ("/x:y".to_string(), FilterOp::Eq)
        ]
    );
    let err = |s: &str| parse_query_flag(s).unwrap_err().to_string();
    assert_eq!(err("name=q,per_sec=1"), "--query: filter: missing");
    assert_eq!(err("per_sec=1,filter=/a"), "--query: name: missing");
    assert_eq!(
        err("name=q,per_sec=fast,filter=/a"),
        "--query: per_sec: expected a number, got `fast`"
    );
    assert_eq!(
        err("name=q,per_sec=1,filter=status:eq"),
        "--query: filter: path `status` must start with `/`"
    );
    assert_eq!(
        err("name=q,per_sec=1,filter=/a:like"),
        "--query: filter./a: unknown operator `like`; accepted: eq, in, in<N>, {in: N}, range"
    );
    assert_eq!(
        err("name=q,per_sec=1,filter=/a,rate=3"),
        "--query: rate: unknown key; accepted: name, per_sec, filter, ru"
    );
    assert_eq!(err("name=q,name=r"), "--query: name: given twice");
    assert_eq!(
        err("name=q,oops"),
        "--query: expected key=value, got `oops`"
    );
    assert_eq!(
        err("name=q,per_sec=-1,filter=/a"),
        "--query: per_sec: must be a number from 0 to 1e9 per second, got -1"
    );
}

#[test]
fn from_rates_builds_and_validates() {
    let q = parse_query_flag("name=q,per_sec=1,filter=/a").unwrap();
    let w = Workload::from_rates(Some(100.0), Some(50.0), vec![q.clone()]).unwrap();
    assert_eq!(w.writes.unwrap().kind, WriteKind::Insert);
    assert_eq!(w.reads.as_ref().unwrap().per_sec, 50.0);
    assert!(w.reads.as_ref().unwrap().by.is_empty());
    assert_eq!(w.consistency, Consistency::Session);
    assert!(!w.is_empty());
    assert!(Workload::from_rates(None, None, vec![]).unwrap().is_empty());
    assert_eq!(
        Workload::from_rates(Some(-1.0), None, vec![])
            .unwrap_err()
            .to_string(),
        "command line: writes.per_sec: must be a number from 0 to 1e9 per second, got -1"
    );
    assert_eq!(
        Workload::from_rates(None, None, vec![q.clone(), q])
            .unwrap_err()
            .to_string(),
        "command line: queries[1].name: duplicate query name `q` (also queries[0])"
    );
}

#[test]
fn filter_op_names_round_trip() {
    for op in [
        FilterOp::Eq,
        FilterOp::In(1),
        FilterOp::In(12),
        FilterOp::Range,
    ] {
        assert_eq!(FilterOp::from_name(&op.to_string()), Some(op));
    }
    assert_eq!(FilterOp::from_name("in"), Some(FilterOp::In(3)));
    assert_eq!(FilterOp::from_name("in0"), None);
    assert_eq!(FilterOp::from_name("inx"), None);
    assert_eq!(
        serde_json::to_string(&FilterOp::In(4)).unwrap(),
        "{\"in\":4}"
    );
    assert_eq!(
        serde_json::to_string(&Indexing::IncludedPaths(2)).unwrap(),
        "{\"included_paths\":2}"
    );
}

#[test]
fn deep_nesting_is_refused_at_its_start_in_one_linear_pass() {
    // 200 KB of `[{a: ` never closed: libyaml under yaml_serde took over a minute on this (every
    // token walked the stack of open levels) before yaml_serde's own recursion limit answered.
    // The shape check stops at level 33. The top mapping is level 1; pair j of `[{` starts at
    // column 11 + 5(j - 1) with levels 2j and 2j + 1, so level 33 is the `{` of pair 16, at
    // column 12 + 75 = 87.
    let text = format!("indexing: {}", "[{a: ".repeat(40_000));
    assert_eq!(
        invalid(&text),
        "workload.yaml: nesting deeper than 32 levels at line 1 column 87 \
         (the workload format needs 5 at most)"
    );
    // The format's own depth, 5, passes.
    let w = parse(
        "queries: [{name: q, per_sec: 1, filter: {/a: {in: 5}}}]",
        "w",
        false,
    )
    .unwrap();
    assert_eq!(
        w.queries[0].filter,
        vec![("/a".to_string(), FilterOp::In(5))]
    );
}

#[test]
fn a_file_of_too_many_values_is_refused_before_yaml_serde_holds_them() {
    // 2.4 MB of empty lists took 580 MB in yaml_serde. Values 1 to 3 are the top mapping,
    // `indexing` and the outer list (column 11); inner list k starts at column 12 + 3(k - 1),
    // and value 200,001 is inner list 199,998: column 12 + 3 × 199,997 = 600,003.
    let text = format!("indexing: [{}]", "[],".repeat(300_000));
    assert_eq!(
        invalid(&text),
        "workload.yaml: more than 200,000 values (keys, numbers, strings, lists, mappings) at \
         line 1 column 600003 (a query needs about 12)"
    );
}

#[test]
fn numbers_beyond_their_range_are_refused_with_field_line_and_limit() {
    // `per_sec: 1.7e308` was accepted, written as `null` in the JSON report, and `pkadvisor
    // report` then refused analyze's own JSON.
    let text = "consistency: session\nwrites:\n  per_sec: 1.7e308\n";
    assert_eq!(
        invalid(text),
        "workload.yaml: writes.per_sec: 1.7e308 is too large: at most 1e9 per second at line 3 \
         column 12"
    );
    let text = "queries:\n  - name: a\n    per_sec: 5\n    filter: {/a: eq}\n    ru: 2e6\n";
    assert_eq!(
        invalid(text),
        "workload.yaml: queries[0].ru: 2e6 is too large: at most 1e6 RU at line 5 column 9"
    );
    assert_eq!(
        invalid("reads: { per_sec: .inf }"),
        "workload.yaml: reads.per_sec: inf is too large: at most 1e9 per second at line 1 column 19"
    );
    assert_eq!(
        invalid("transactions: [{name: t, by: [/a], per_sec: 1000000001}]"),
        "workload.yaml: transactions[0].per_sec: 1.000000001e9 is too large: at most 1e9 per \
         second at line 1 column 45"
    );
    // JSON names the line and the column where the number ends (serde_json gives no field path).
    let e = parse("{\"writes\": {\"per_sec\": 1e300}}", "w.json", true)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "w.json: 1e300 is too large: at most 1e9 per second at line 1 column 28"
    );
    // The limits themselves pass.
    let w = parse(
        "writes: { per_sec: 1e9 }\nqueries: [{name: q, per_sec: 1e9, filter: {/a: eq}, ru: 1e6}]",
        "w",
        false,
    )
    .unwrap();
    assert_eq!(w.writes.unwrap().per_sec, 1e9);
    assert_eq!(w.queries[0].ru, Some(1e6));
    assert_eq!(
        parse_query_flag("name=q,per_sec=1e308,filter=/a")
            .unwrap_err()
            .to_string(),
        "--query: per_sec: 1e308 is too large: at most 1e9 per second"
    );
}

#[test]
fn many_queries_with_one_name_repeated_at_the_end_are_checked_in_one_pass() {
    // 60,000 queries (the value cap allows about 15,000 written out; the --query shortcut and
    // from_rates have no such cap): the name check compared every pair before.
    let mut queries: Vec<QuerySpec> = (0..60_000)
        .map(|i| parse_query_flag(&format!("name=q{i},per_sec=1,filter=/a")).unwrap())
        .collect();
    queries.push(parse_query_flag("name=q17,per_sec=1,filter=/a").unwrap());
    assert_eq!(
        Workload::from_rates(None, None, queries)
            .unwrap_err()
            .to_string(),
        "command line: queries[60000].name: duplicate query name `q17` (also queries[17])"
    );
    assert_eq!(
        invalid("reads: { per_sec: 1, by: [/a, /b, /a] }"),
        "workload.yaml: reads.by[2]: path `/a` listed twice"
    );
    assert_eq!(
        invalid("queries: [{ name: q, per_sec: 1, filter: { /a: eq, /b: eq, /a: range } }]"),
        "workload.yaml: queries[0].filter: path `/a` listed twice"
    );
}
