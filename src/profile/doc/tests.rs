use super::*;
use crate::testing::{JsonGen, XorShift};

/// serde_json's reading of `bytes`, as the profile saw records before [`Doc::parse`].
fn serde(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(bytes).ok()
}

/// `Doc::parse` reads `text` as serde_json does: the same tree, or refused where serde_json
/// refuses it.
fn same_as_serde(text: &[u8]) {
    let shown = String::from_utf8_lossy(text);
    match serde(text) {
        Some(v) => {
            let parsed = Doc::parse(text).unwrap_or_else(|| panic!("not read: {shown}"));
            assert_eq!(parsed, Doc::from_value(&v), "{shown}");
        }
        None => assert_eq!(
            Doc::parse(text),
            None,
            "accepted what serde_json refuses: {shown}"
        ),
    }
}

#[test]
fn records_read_as_serde_json_reads_them() {
    let records: &[&str] = &[
        r#"{"id":"a","tenantId":"t1","n":7}"#,
        // Names out of order and repeated: byte order, the last value of a name.
        r#"{"b":1,"a":2,"B":3,"b":{"x":1},"é":4,"a":5}"#,
        r#"{ "a" : [ 1 , { "b" : 2 } , [ ] ] , "c" : { } , "d" : [ ] }"#,
        "{\"a\":\t1,\r\n\"b\":null}\n ",
        // Escapes decoded, in values and names.
        r#"{"s":"a\"b\\c\/d\b\f\n\r\t","\u00e9t\u00e9":"\ud83d\ude00 x","k\"":"\u0041"}"#,
        // Numbers: integers up to and past 64 bits, negatives, zero signs, fractions, exponents.
        r#"{"a":0,"b":-0,"c":18446744073709551615,"d":18446744073709551616,"e":-9223372036854775808}"#,
        r#"{"a":-9223372036854775809,"b":1.5,"c":-0.0,"d":1e3,"e":1E+2,"f":2.5e-3,"g":0.1}"#,
        r#"{"a":123456789012345678901234567890,"b":1.7976931348623157e308,"c":5e-324,"d":1e-400}"#,
        r#"{"t":true,"f":false,"n":null,"nested":{"deeper":{"deepest":"x"}}}"#,
        // Records that are not objects.
        "5",
        r#""text""#,
        "[1,{\"a\":2}]",
        "null",
        "{}",
        // A string that is long, with its escape past the first 64 bytes.
        r#"{"long":"0123456789012345678901234567890123456789012345678901234567890123456789\n end"}"#,
    ];
    for r in records {
        same_as_serde(r.as_bytes());
    }
}

#[test]
fn records_serde_json_refuses_are_refused() {
    let records: &[&[u8]] = &[
        b"",
        b"{",
        b"{\"a\":1,}",
        b"{\"a\" 1}",
        b"{\"a\":01}",
        b"{\"a\":1.}",
        b"{\"a\":.5}",
        b"{\"a\":-}",
        b"{\"a\":1e}",
        b"{\"a\":tru}",
        b"{\"a\":truex}",
        b"{\"a\":\"unterminated}",
        b"{\"a\":\"tab\there\"}",
        b"{\"a\":\"\\x\"}",
        b"{\"a\":\"\\ud800\"}",
        b"{\"a\":1} x",
        b"{\"a\":1}{}",
        b"[1,]",
        b"{\"a\":\"\xff\"}",
        b"{\"a\":1e400}",
        b"{\"a\":-1e400}",
        b"{a:1}",
        b"{\"a\":NaN}",
    ];
    for r in records {
        same_as_serde(r);
    }
}

#[test]
fn serde_jsons_private_raw_value_name_is_an_ordinary_name() {
    // serde_json (built with `raw_value`) refuses this record, or reads the JSON text in the
    // string as the value, where it is a document with one property: as the candidates' scan
    // reads it (the profile used to report it as invalid JSON).
    let name = "$serde_json::private::RawValue";
    assert!(serde(format!(r#"{{"{name}":null}}"#).as_bytes()).is_none());
    assert_eq!(
        serde(format!(r#"{{"{name}":"[1]"}}"#).as_bytes()),
        Some(serde_json::json!([1]))
    );
    let d = Doc::parse(format!(r#"{{"{name}":"[1]"}}"#).as_bytes().to_vec().leak()).unwrap();
    assert_eq!(d, Doc::Object(vec![(name.into(), Doc::Str("[1]".into()))]));
    assert_eq!(
        Doc::parse(format!(r#"{{"{name}":null}}"#).as_bytes().to_vec().leak()),
        Some(Doc::Object(vec![(name.into(), Doc::Null)]))
    );
}

#[test]
fn deep_records_are_left_to_serde_json() {
    // 110 levels: within serde_json's limit of 128, past this reader's 100.
    let deep = format!("{}1{}", "[".repeat(110), "]".repeat(110));
    assert!(serde(deep.as_bytes()).is_some());
    assert_eq!(Doc::parse(deep.as_bytes()), None);
    let shallow = format!("{}1{}", "[".repeat(90), "]".repeat(90));
    assert_eq!(Doc::parse(shallow.as_bytes()), Some(Doc::Array));
}

#[test]
fn properties_are_found_by_name() {
    let d = Doc::parse(br#"{"z":1,"id":"x","a":{"b":"c"},"id":"y"}"#).unwrap();
    assert_eq!(d.get("id"), Some(&Doc::Str(Cow::Borrowed("y"))));
    assert_eq!(
        d.get("a").and_then(|a| a.get("b")),
        Some(&Doc::Str("c".into()))
    );
    assert_eq!(d.get("b"), None);
    assert_eq!(Doc::Array.get("id"), None);
}

#[test]
fn generated_records_and_their_mutants_read_as_serde_json_reads_them() {
    let mut g = JsonGen(XorShift(0x9E37_79B9_7F4A_7C15));
    let (mut read, mut refused) = (0, 0);
    // Each record, then one byte of it replaced, dropped or doubled: mostly invalid records,
    // some still valid.
    g.texts_and_mutants(4_000, |bytes, mutant| {
        if mutant {
            refused += usize::from(serde(bytes).is_none());
        } else {
            read += 1;
        }
        same_as_serde(bytes);
    });
    // The mutants exercised both sides: most refused, some still valid.
    assert_eq!(read, 4_000);
    assert!((2_000..3_950).contains(&refused), "{refused} refused");
}
