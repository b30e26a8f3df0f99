//! Tests of [`super`] (`spec.rs`), kept beside it in their own file.

use super::*;

fn kp(text: &str, segments: &[&str]) -> KeyPath {
    KeyPath {
        text: text.to_string(),
        segments: segments.iter().map(|s| s.to_string()).collect(),
    }
}

fn p(text: &str, segments: &[&str]) -> Part {
    Part::Path(kp(text, segments))
}

fn lvl(parts: Vec<Part>) -> Level {
    Level { parts }
}

fn cand(spec: &str, kind: KeyKind, levels: Vec<Level>) -> Candidate {
    Candidate {
        spec: spec.to_string(),
        kind,
        levels,
    }
}

/// Asserts `input` fails with `message` at `offset`.
fn fails(input: &str, offset: usize, message: &str) {
    let err = parse_candidates(input).expect_err(input);
    assert_eq!(err.message, message, "message for {input:?}");
    assert_eq!(err.offset, offset, "offset for {input:?}: {err}");
    assert_eq!(err.input, input);
}

#[test]
fn single_paths() {
    assert_eq!(
        parse_candidate("/tenantId").unwrap(),
        cand(
            "/tenantId",
            KeyKind::Single,
            vec![lvl(vec![p("/tenantId", &["tenantId"])])]
        )
    );
    assert_eq!(
        parse_candidate("  /customer/address/zip ").unwrap(),
        cand(
            "/customer/address/zip",
            KeyKind::Single,
            vec![lvl(vec![p(
                "/customer/address/zip",
                &["customer", "address", "zip"]
            )])]
        )
    );
    let c = parse_candidate("/ünïcode_ĸey-1.x").unwrap();
    assert_eq!(
        c.levels[0].parts[0].path().segments,
        vec!["ünïcode_ĸey-1.x"]
    );
}

#[test]
fn quoted_segments() {
    let c = parse_candidate(r#"/"department name""#).unwrap();
    assert_eq!(
        c.levels,
        vec![lvl(vec![p(r#"/"department name""#, &["department name"])])]
    );
    let c = parse_candidate(r#"/"a \"b\" \\ c"/d"#).unwrap();
    assert_eq!(
        c.levels,
        vec![lvl(vec![p(r#"/"a \"b\" \\ c"/d"#, &[r#"a "b" \ c"#, "d"])])]
    );
    // Quoting makes special characters legal.
    let c = parse_candidate(r#"/"a+b>c(d)%*[0]/x""#).unwrap();
    assert_eq!(c.paths()[0].segments, vec!["a+b>c(d)%*[0]/x"]);
    assert_eq!(c.kind, KeyKind::Single);
}

#[test]
fn commas_inside_quotes_do_not_split() {
    let cs = parse_candidates(r#"/"a,b", /"c \",d", /e"#).unwrap();
    assert_eq!(cs.len(), 3);
    assert_eq!(cs[0].spec, r#"/"a,b""#);
    assert_eq!(cs[0].paths()[0].segments, vec!["a,b"]);
    assert_eq!(cs[1].spec, r#"/"c \",d""#);
    assert_eq!(cs[1].paths()[0].segments, vec![r#"c ",d"#]);
    assert_eq!(cs[2].spec, "/e");
}

#[test]
fn synthetic() {
    assert_eq!(
        parse_candidate("/tenantId+/region").unwrap(),
        cand(
            "/tenantId+/region",
            KeyKind::Synthetic,
            vec![lvl(vec![
                p("/tenantId", &["tenantId"]),
                p("/region", &["region"])
            ])]
        )
    );
}

#[test]
fn hashed() {
    assert_eq!(
        parse_candidate("/tenantId+hash(/id)%16").unwrap(),
        cand(
            "/tenantId+hash(/id)%16",
            KeyKind::Hashed,
            vec![lvl(vec![
                p("/tenantId", &["tenantId"]),
                Part::Hash {
                    path: kp("/id", &["id"]),
                    buckets: 16
                }
            ])]
        )
    );
    let c = parse_candidate("hash(/a/b)%65536").unwrap();
    assert_eq!(c.kind, KeyKind::Hashed);
    assert_eq!(
        c.levels[0].parts[0],
        Part::Hash {
            path: kp("/a/b", &["a", "b"]),
            buckets: 65536
        }
    );
    assert_eq!(
        parse_candidate("hash(/a)%2").unwrap().levels[0].parts[0],
        Part::Hash {
            path: kp("/a", &["a"]),
            buckets: 2
        }
    );
}

#[test]
fn time_buckets() {
    for (name, unit) in [
        ("hour", TimeUnit::Hour),
        ("day", TimeUnit::Day),
        ("month", TimeUnit::Month),
        ("year", TimeUnit::Year),
    ] {
        let spec = format!("{name}(/ts)");
        assert_eq!(
            parse_candidate(&spec).unwrap(),
            cand(
                &spec,
                KeyKind::Time,
                vec![lvl(vec![Part::Time {
                    unit,
                    path: kp("/ts", &["ts"])
                }])]
            )
        );
    }
    assert_eq!(
        parse_candidate("/deviceId+month(/ts)").unwrap(),
        cand(
            "/deviceId+month(/ts)",
            KeyKind::Time,
            vec![lvl(vec![
                p("/deviceId", &["deviceId"]),
                Part::Time {
                    unit: TimeUnit::Month,
                    path: kp("/ts", &["ts"])
                }
            ])]
        )
    );
    // Hash wins over time.
    let c = parse_candidate("day(/ts)+hash(/id)%4").unwrap();
    assert_eq!(c.kind, KeyKind::Hashed);
}

#[test]
fn hierarchical() {
    assert_eq!(
        parse_candidate("/tenantId>/userId>/id").unwrap(),
        cand(
            "/tenantId>/userId>/id",
            KeyKind::Hierarchical,
            vec![
                lvl(vec![p("/tenantId", &["tenantId"])]),
                lvl(vec![p("/userId", &["userId"])]),
                lvl(vec![p("/id", &["id"])]),
            ]
        )
    );
    let c = parse_candidate("/t+/r > day(/ts) > /u+hash(/id)%8").unwrap();
    assert_eq!(c.kind, KeyKind::Hierarchical);
    assert_eq!(
        c.levels,
        vec![
            lvl(vec![p("/t", &["t"]), p("/r", &["r"])]),
            lvl(vec![Part::Time {
                unit: TimeUnit::Day,
                path: kp("/ts", &["ts"])
            }]),
            lvl(vec![
                p("/u", &["u"]),
                Part::Hash {
                    path: kp("/id", &["id"]),
                    buckets: 8
                }
            ]),
        ]
    );
    let paths: Vec<&str> = c.paths().iter().map(|p| p.text.as_str()).collect();
    assert_eq!(paths, vec!["/t", "/r", "/ts", "/u", "/id"]);
    // Same path in different levels is fine (different level values).
    assert!(parse_candidate("/a>/a+/b").is_ok());
}

#[test]
fn whitespace_tolerance() {
    let a = parse_candidate("/a+/b>/c").unwrap();
    let b = parse_candidate(" \t/a  +  /b  >  /c ").unwrap();
    assert_eq!(a.levels, b.levels);
    assert_eq!(b.spec, "/a  +  /b  >  /c");
    let c = parse_candidate("hash ( /id ) % 16 + day( /ts )").unwrap();
    assert_eq!(
        c.levels[0].parts,
        vec![
            Part::Hash {
                path: kp("/id", &["id"]),
                buckets: 16
            },
            Part::Time {
                unit: TimeUnit::Day,
                path: kp("/ts", &["ts"])
            }
        ]
    );
    let cs = parse_candidates(" /a , /b+/c ,day(/ts)").unwrap();
    let specs: Vec<&str> = cs.iter().map(|c| c.spec.as_str()).collect();
    assert_eq!(specs, vec!["/a", "/b+/c", "day(/ts)"]);
}

#[test]
fn kind_display_and_serde() {
    assert_eq!(KeyKind::Hierarchical.to_string(), "hierarchical");
    assert_eq!(KeyKind::Single.to_string(), "single");
    assert_eq!(
        serde_json::to_string(&KeyKind::Synthetic).unwrap(),
        "\"synthetic\""
    );
    assert_eq!(serde_json::to_string(&KeyKind::Time).unwrap(), "\"time\"");
    assert_eq!(
        serde_json::to_string(&KeyKind::Hashed).unwrap(),
        "\"hashed\""
    );
    assert_eq!(TimeUnit::Month.to_string(), "month");
    let c = parse_candidate("/a+hash(/b)%4").unwrap();
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["kind"], "hashed");
    assert_eq!(json["levels"][0]["parts"][1]["type"], "hash");
    assert_eq!(json["levels"][0]["parts"][1]["buckets"], 4);
}

#[test]
fn empty_candidates() {
    fails("", 0, EMPTY_CANDIDATE);
    fails("   ", 0, EMPTY_CANDIDATE);
    fails("/a,,/b", 3, "empty candidate: remove the extra comma");
    fails(",/a", 0, "empty candidate: remove the extra comma");
    fails("/a,", 2, "empty candidate: remove the extra comma");
    fails("/a, ,/b", 4, "empty candidate: remove the extra comma");
    assert_eq!(parse_candidate(" ").unwrap_err().message, EMPTY_CANDIDATE);
}

#[test]
fn path_errors() {
    fails(
        "tenantId",
        0,
        "expected a path starting with `/` (did you mean `/tenantId`?)",
    );
    fails("\"a\"", 0, "expected a path starting with `/`");
    fails(
        "/a+b",
        3,
        "expected a path starting with `/` (did you mean `/b`?)",
    );
    fails("/a+", 3, "expected a path starting with `/` after `+`");
    fails("/a>", 3, "expected a path starting with `/` after `>`");
    fails("/a+ ", 3, "expected a path starting with `/` after `+`");
    fails("/a+ +/b", 4, "expected a path starting with `/`");
    fails("/a//b", 3, "empty path segment `//`");
    fails("/a/", 2, "trailing `/`: a path cannot end with `/`");
    fails("/a/+/b", 2, "trailing `/`: a path cannot end with `/`");
    fails("/", 1, "expected a property name after `/`");
    fails("/+/a", 1, "expected a property name after `/`");
    fails("/a b", 2, WHITESPACE_IN_PATH);
    fails("/a /b", 2, WHITESPACE_IN_PATH);
    fails("/ a", 1, WHITESPACE_IN_PATH);
    fails(
        "/items/*",
        7,
        "wildcards (`*`) are not allowed in partition key paths",
    );
    fails(
        "/items[0]/id",
        6,
        "array paths (`[...]`) are not allowed in partition key paths",
    );
    fails(
        "/ab\"c\"",
        3,
        "unexpected `\"` inside a segment; quote the whole segment, e.g. /\"a b\"",
    );
}

#[test]
fn quote_errors() {
    fails("/\"abc", 1, "unterminated quote: missing closing `\"`");
    fails("/x>/\"ab\\", 4, "unterminated quote: missing closing `\"`");
    fails("/\"a,b", 1, "unterminated quote: missing closing `\"`");
    fails("/\"\"", 1, "empty quoted segment `\"\"`");
    fails(
        "/\"a\\nb\"",
        3,
        "unsupported escape `\\n` in quoted segment; only `\\\"` and `\\\\` are allowed",
    );
    fails(
        "/\"a\"b",
        4,
        "unexpected `b` after closing quote; expected `/` or the end of the path",
    );
    fails(
        "/\"a\"\"b\"",
        4,
        "unexpected `\"` after closing quote; escape quotes inside a segment as `\\\"`",
    );
}

#[test]
fn function_errors() {
    fails(
        "week(/ts)",
        0,
        "unknown function `week`; expected hash, hour, day, month or year",
    );
    fails(
        "/a+Day(/ts)",
        3,
        "unknown function `Day`; expected hash, hour, day, month or year",
    );
    fails("day(/ts", 7, "expected `)` to close `day(`");
    fails("hash(/id %16", 9, "expected `)` to close `hash(`");
    fails("day(/ts+/x)", 7, "expected `)` to close `day(`");
    fails("day()", 4, "expected a path starting with `/`");
    fails("day(ts)", 4, "expected a path starting with `/`");
    fails("day(hash(/a)%2)", 4, "expected a path starting with `/`");
    let missing_pct = "expected `%` and a bucket count after `hash(...)`, e.g. `hash(/id)%16`";
    fails("hash(/id)", 9, missing_pct);
    fails("/a+hash(/id)+/b", 12, missing_pct);
    let not_number = "expected a bucket count (a number from 2 to 65536) after `%`";
    fails("hash(/id)%", 10, not_number);
    fails("hash(/id)%x", 10, not_number);
    fails("hash(/id)%-4", 10, not_number);
    let range = "hash bucket count must be between 2 and 65536";
    fails("hash(/id)%0", 10, range);
    fails("hash(/id)%1", 10, range);
    fails("hash(/id)% 65537", 11, range);
    fails("hash(/id)%99999999999999999999", 10, range);
}

#[test]
fn structure_errors() {
    fails("/a>/b>/c>/d", 8, "hierarchical keys allow at most 3 levels");
    fails(
        "/a > /b > /c > /d",
        13,
        "hierarchical keys allow at most 3 levels",
    );
    fails(
        "/a)",
        2,
        "unexpected `)`; expected `+`, `>` or the end of the candidate",
    );
    fails(
        "hash(/id)%16 x",
        13,
        "unexpected `x`; expected `+`, `>` or the end of the candidate",
    );
    fails(
        "hash(/id)%16.5",
        12,
        "unexpected `.`; expected `+`, `>` or the end of the candidate",
    );
    let err = parse_candidate("/a,/b").unwrap_err();
    assert_eq!(err.offset, 2);
    assert_eq!(
        err.message,
        "unexpected `,`; expected `+`, `>` or the end of the candidate"
    );
    fails("/a+/a", 3, "path repeated in synthetic key");
    fails("/a+/b + /\"a\"", 8, "path repeated in synthetic key");
    fails("/ts+day(/ts)", 8, "path repeated in synthetic key");
    fails("/x>/a+hash(/a)%4", 11, "path repeated in synthetic key");
    fails("/a>/b>/a", 6, "level repeated in hierarchical key");
    fails(
        "/a, /b, /\"a\"",
        8,
        "duplicate candidate: same key as candidate 1 (`/a`)",
    );
    fails(
        "/a+/b,/c,/a + /b",
        9,
        "duplicate candidate: same key as candidate 1 (`/a+/b`)",
    );
    // Different bucket counts or units are different keys.
    assert_eq!(
        parse_candidates("hash(/a)%4,hash(/a)%8,day(/a),hour(/a),/b+/a,/a+/b")
            .unwrap()
            .len(),
        6
    );
}

#[test]
fn errors_in_later_items_use_list_offsets() {
    fails("/a, /b//c", 7, "empty path segment `//`");
    fails(
        "/\"x,y\", week(/t)",
        8,
        "unknown function `week`; expected hash, hour, day, month or year",
    );
}

#[test]
fn display_renders_caret() {
    let err = parse_candidate("/a>/b>/c>/d").unwrap_err();
    assert_eq!(
            err.to_string(),
            "invalid candidate key: hierarchical keys allow at most 3 levels\n  /a>/b>/c>/d\n          ^"
        );
    // Multi-byte characters before the error: caret column counts chars.
    let err = parse_candidate("/\"näme ü\"/x y").unwrap_err();
    assert_eq!(err.offset, 13); // byte offset of the space in "x y"
    assert_eq!(
        err.to_string(),
        format!("invalid candidate key: {WHITESPACE_IN_PATH}\n  /\"näme ü\"/x y\n             ^")
    );
    // Offset at end of input.
    let err = parse_candidate("day(/ts").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid candidate key: expected `)` to close `day(`\n  day(/ts\n         ^"
    );
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    assert!(boxed.to_string().starts_with("invalid candidate key"));
}
