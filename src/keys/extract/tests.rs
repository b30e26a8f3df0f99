//! Unit tests of `keys/extract.rs`.

use super::*;

fn trie(paths: &[&[&str]]) -> PathTrie {
    let mut t = PathTrie::new();
    for p in paths {
        t.insert(p);
    }
    t
}

fn scan<'a>(doc: &'a str, t: &PathTrie) -> Result<(Vec<Extracted<'a>>, usize), ScanError> {
    let mut v = Vec::new();
    let s = scan_document(doc.as_bytes(), t, &mut v)?;
    Ok((v, s.whitespace_bytes))
}

#[test]
fn extracts_nested_and_quoted_paths() {
    let t = trie(&[
        &["tenantId"],
        &["customer", "address", "zip"],
        &["department name"],
    ]);
    let doc = r#"{"x":[1,{"tenantId":"no"}],"tenantId":"acme","customer":{"address":{"zip":98052,"city":"R"}},"department name":"R&D"}"#;
    let (v, ws) = scan(doc, &t).unwrap();
    assert_eq!(v[0], Extracted::Str(Cow::Borrowed("acme")));
    assert_eq!(v[1], Extracted::Number(b"98052"));
    assert_eq!(v[2], Extracted::Str(Cow::Borrowed("R&D")));
    assert_eq!(ws, 0);
}

#[test]
fn a_reused_vector_keeps_nothing_from_the_record_before() {
    // One vector for every record, as the scan uses it: values of the first record (an
    // unescaped string owned by the vector, a number) must not show through in the next.
    let t = trie(&[&["a"], &["b"], &["c", "d"]]);
    let docs = [
        r#"{"a":"x\u00e9","b":7,"c":{"d":true}}"#,
        r#"{"z":1}"#,
        r#"{"b":"y","c":5}"#,
    ];
    let mut v = Vec::new();
    let mut seen = Vec::new();
    for d in docs {
        scan_document(d.as_bytes(), &t, &mut v).unwrap();
        seen.push(
            v.clone()
                .into_iter()
                .map(|e| format!("{e:?}"))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(seen[0], ["Str(\"xé\")", "Number([55])", "Bool(true)"]);
    assert_eq!(seen[1], ["Missing", "Missing", "Missing"]);
    assert_eq!(seen[2], ["Missing", "Str(\"y\")", "Missing"]);
    // A vector of another length (another trie) is sized afresh.
    let mut long = vec![Extracted::Null; 9];
    scan_document(b"{}", &t, &mut long).unwrap();
    assert_eq!(long, vec![Extracted::Missing; 3]);
}

#[test]
fn missing_null_bool_composite() {
    let t = trie(&[&["a"], &["b"], &["c"], &["d"], &["e", "f"]]);
    let (v, _) = scan(r#"{"b":null,"c":true,"d":{"k":[1,2]},"e":{"g":1}}"#, &t).unwrap();
    assert_eq!(
        v,
        vec![
            Extracted::Missing,
            Extracted::Null,
            Extracted::Bool(true),
            Extracted::Composite,
            Extracted::Missing
        ]
    );
}

#[test]
fn path_that_is_also_a_prefix() {
    let t = trie(&[&["device"], &["device", "region"]]);
    let (v, _) = scan(r#"{"device":{"region":"eu"}}"#, &t).unwrap();
    assert_eq!(v[0], Extracted::Composite);
    assert_eq!(v[1], Extracted::Str(Cow::Borrowed("eu")));
}

#[test]
fn escapes_are_decoded_in_keys_and_values() {
    let t = trie(&[&["a\"b"], &["c"]]);
    let (v, _) = scan(r#"{"a\"b":"x\u00e9\n","c":"\ud83d\ude00"}"#, &t).unwrap();
    assert_eq!(v[0], Extracted::Str(Cow::Owned("xé\n".into())));
    assert_eq!(v[1], Extracted::Str(Cow::Owned("😀".into())));
}

#[test]
fn counts_whitespace_outside_strings_only() {
    let t = trie(&[&["a"]]);
    let doc = "{ \"a\" : \"x y\" ,\t\"b\": [1, 2] }";
    let (_, ws) = scan(doc, &t).unwrap();
    // spaces: after {, after "a", after :, after "x y", tab, after "b":, after 1,, before }
    assert_eq!(ws, 8);
}

#[test]
fn last_duplicate_property_wins() {
    let t = trie(&[&["a"]]);
    let (v, _) = scan(r#"{"a":1,"a":2}"#, &t).unwrap();
    assert_eq!(v[0], Extracted::Number(b"2"));
}

#[test]
fn an_overwritten_parent_loses_its_children() {
    let t = trie(&[&["a"], &["a", "b"], &["a", "c", "d"]]);
    let (v, _) = scan(r#"{"a":{"b":"x","c":{"d":1}},"a":5}"#, &t).unwrap();
    assert_eq!(
        v,
        vec![
            Extracted::Number(b"5"),
            Extracted::Missing,
            Extracted::Missing
        ]
    );
    // The other way round: the later object's children stand.
    let (v, _) = scan(r#"{"a":5,"a":{"b":"y"}}"#, &t).unwrap();
    assert_eq!(
        v,
        vec![
            Extracted::Composite,
            Extracted::Str("y".into()),
            Extracted::Missing
        ]
    );
}

#[test]
fn property_names_are_validated_off_the_key_paths_too() {
    let t = trie(&[&["a"]]);
    let bad = r#"{"a":1,"o":{"\ud800x":2}}"#;
    let e = scan(bad, &t).unwrap_err();
    assert_eq!(
        e.message,
        "invalid escape sequence or unpaired surrogate in a string"
    );
    // The same document fails the same way when a candidate reads inside `o`.
    let t2 = trie(&[&["a"], &["o", "z"]]);
    assert_eq!(scan(bad, &t2).unwrap_err().message, e.message);
}

#[test]
fn string_values_off_the_key_paths_are_validated_too() {
    // A string no key path reads is skipped without building its value, but it fails where,
    // and as, one that a key path reads does: an unpaired surrogate, invalid UTF-8 in a record
    // whose text is not known valid; valid escapes pass.
    let off = trie(&[&["a"]]);
    let on = trie(&[&["a"], &["b"]]);
    let scan_bytes = |doc: &[u8], t: &PathTrie| {
        let mut v = Vec::new();
        scan_validated(doc, None, t, &mut v).map(|_| ())
    };
    let surrogate = br#"{"a":1,"b":"x\ud800y","c":2}"#;
    let not_utf8 = b"{\"a\":1,\"b\":\"x\xffy\",\"c\":2}";
    for t in [&off, &on] {
        let msg = "invalid escape sequence or unpaired surrogate in a string";
        let e = scan_bytes(surrogate, t).unwrap_err();
        assert_eq!((e.offset, e.message), (12, msg));
        // The same record known valid UTF-8 (the scan's usual path).
        let e = scan(std::str::from_utf8(surrogate).unwrap(), t).unwrap_err();
        assert_eq!((e.offset, e.message), (12, msg));
        let e = scan_bytes(not_utf8, t).unwrap_err();
        assert_eq!((e.offset, e.message), (12, "string is not valid UTF-8"));
        assert!(scan_bytes(br#"{"a":1,"b":"x\n\u00e9\"","c":2}"#, t).is_ok());
    }
}

#[test]
fn errors_carry_offsets() {
    let t = trie(&[&["a"]]);
    let cases: &[(&str, usize, &str)] = &[
        (r#"{"a": }"#, 6, "expected a JSON value"),
        (r#"{"a":1"#, 6, "unexpected end of record inside an object"),
        (
            r#"{"a":1,}"#,
            7,
            "expected a property name in double quotes",
        ),
        (
            r#"{"a":01}"#,
            6,
            "expected `,` or `}` after a property value",
        ),
        (
            r#"{"a":1.}"#,
            7,
            "invalid number: expected a digit after `.`",
        ),
        (
            r#"{"a":tru}"#,
            5,
            "invalid literal: expected true, false or null",
        ),
        (
            r#"{"a":"x"} x"#,
            10,
            "unexpected data after the end of the document",
        ),
        (
            r#"[1,2]"#,
            0,
            "expected a JSON object `{...}` as the document",
        ),
        (r#"{"a":"x\q"}"#, 7, "invalid escape sequence in a string"),
        (
            "{\"a\":\"x\ty\"}",
            7,
            "control character inside a string (must be escaped)",
        ),
        (r#"{"a":"abc"#, 9, "unterminated string"),
        ("   ", 3, "empty record"),
    ];
    for (doc, offset, msg) in cases {
        let err = scan(doc, &t).unwrap_err();
        assert_eq!((err.offset, err.message), (*offset, *msg), "doc {doc}");
    }
}

#[test]
fn control_characters_in_long_strings_are_found_where_they_are() {
    // Past the 24-byte short-string loop: the 32-byte chunks and the remainder.
    let t = trie(&[&["b"]]);
    for at in [30usize, 55, 56, 87, 88, 119, 130] {
        let mut v = "x".repeat(140);
        v.replace_range(at..=at, "\u{1}");
        let doc = format!("{{\"a\":\"{v}\"}}");
        let err = scan(&doc, &t).unwrap_err();
        assert_eq!(err.offset, 6 + at, "control character at {at}");
    }
    let clean = format!("{{\"a\":\"{}\"}}", "x".repeat(140));
    assert!(scan(&clean, &t).is_ok());
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let t = trie(&[&["a"]]);
    let doc = format!("{{\"x\":{}{}}}", "[".repeat(200), "]".repeat(200));
    let err = scan(&doc, &t).unwrap_err();
    assert_eq!(err.message, "nesting deeper than 128 levels");
}

#[test]
fn json_number_grammar() {
    for ok in ["0", "-0", "12.50", "1e5", "1E+5", "-3.25e-2", "1007"] {
        assert!(is_json_number(ok.as_bytes()), "{ok}");
    }
    for bad in [
        "", "007", "1.", ".5", "+1", "1e", "0x10", "1,5", "NaN", "12 ",
    ] {
        assert!(!is_json_number(bad.as_bytes()), "{bad}");
    }
}

#[test]
fn same_path_shares_a_slot() {
    let mut t = PathTrie::new();
    assert_eq!(t.insert(&["a", "b"]), 0);
    assert_eq!(t.insert(&["c"]), 1);
    assert_eq!(t.insert(&["a", "b"]), 0);
    assert_eq!(t.slot_count(), 2);
}
