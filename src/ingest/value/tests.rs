use super::*;
use crate::testing::{JsonGen, XorShift};

const NAME: &str = "$serde_json::private::RawValue";

/// serde_json's own reading of `bytes` (its `Value` visitor).
fn serde(bytes: &[u8]) -> Option<Value> {
    serde_json::from_slice::<Value>(bytes).ok()
}

#[test]
fn the_private_name_is_an_ordinary_name_here_and_not_in_serde_json() {
    // The record as a sample holds it: one property, whatever its value.
    let text = format!(r#"{{"{NAME}":"[1]","b":2}}"#);
    let mut want = Map::new();
    want.insert(NAME.to_owned(), Value::String("[1]".into()));
    want.insert("b".to_owned(), Value::from(2));
    assert_eq!(from_str(&text).unwrap(), Value::Object(want));
    // serde_json's visitor reads the string as JSON text, and the rest of the object is lost
    // (or, with a value that is no such text, refuses the record): what this module is for.
    assert_eq!(
        serde(format!(r#"{{"{NAME}":"[1]"}}"#).as_bytes()),
        Some(serde_json::json!([1]))
    );
    for value in ["null", "5", "{}", r#""not json""#] {
        let text = format!(r#"{{"{NAME}":{value}}}"#);
        assert!(serde(text.as_bytes()).is_none(), "{text}");
        let v = from_str(&text).unwrap();
        assert_eq!(v.as_object().map(|m| m.len()), Some(1), "{text}");
        assert_eq!(v[NAME], serde_json::from_str::<Value>(value).unwrap());
    }
    // Nested, and not first: the same.
    let nested = format!(r#"[{{"a":{{"{NAME}":"{{}}"}}}}]"#);
    assert_eq!(from_str(&nested).unwrap()[0]["a"][NAME], Value::from("{}"));
}

#[test]
fn numbers_strings_and_names_read_as_serde_json_reads_them() {
    let v = from_str(
        r#" {"b":1,"a":-2,"a":18446744073709551615,"f":1.5e300,"g":0.30000000000000004,
             "s":"\u00e9\ud83d\ude00\n","n":null,"t":[true,false,[]],"o":{}} "#,
    )
    .unwrap();
    // The last value of a repeated name; numbers as u64, i64 or the nearest double.
    assert_eq!(v["a"].as_u64(), Some(u64::MAX));
    assert_eq!(v["f"].as_f64(), Some(1.5e300));
    assert_eq!(v["g"].as_f64(), Some(0.1 + 0.2));
    assert_eq!(v["s"], Value::from("é😀\n"));
    assert_eq!(v["t"], serde_json::json!([true, false, []]));
    assert_eq!(from_str("-12").unwrap().as_i64(), Some(-12));
}

#[test]
fn errors_are_serde_jsons_with_their_place() {
    for bad in [
        "",
        "{",
        r#"{"a":1,}"#,
        "[1] x",
        "1e999",
        "\"\\ud800x",
        "{\"a\" 1}",
    ] {
        let ours = from_str(bad).unwrap_err();
        let theirs = serde_json::from_str::<Value>(bad).unwrap_err();
        assert_eq!(ours.to_string(), theirs.to_string(), "{bad:?}");
    }
    // serde_json's nesting limit stands.
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(from_str(&deep).is_err());
    assert!(from_slice(b"\xff").is_err());
}

#[test]
fn generated_texts_and_their_mutants_read_as_serde_json_reads_them() {
    let mut g = JsonGen(XorShift(0x2545_F491_4F6C_DD1D));
    let (mut valid, mut refused) = (0, 0);
    g.texts_and_mutants(4_000, |bytes, _| {
        match (serde_json::from_slice::<Value>(bytes), from_slice(bytes)) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b);
                valid += 1;
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string());
                refused += 1;
            }
            (a, b) => panic!("{:?}: {a:?} against {b:?}", String::from_utf8_lossy(bytes)),
        }
    });
    // Both sides exercised: every original valid, most mutants refused.
    assert!(
        valid >= 4_000 && refused >= 2_000,
        "{valid} valid, {refused} refused"
    );
}

#[test]
fn struct_fields_read_with_plain_and_option_keep_the_name() {
    #[derive(serde::Deserialize)]
    struct Saved {
        #[serde(deserialize_with = "super::plain")]
        evidence: Value,
        #[serde(default, deserialize_with = "super::option")]
        key: Option<Value>,
        #[serde(default, deserialize_with = "super::option")]
        absent: Option<Value>,
    }
    let text = format!(r#"{{"evidence":{{"{NAME}":"[1]"}},"key":[{{"{NAME}":"2"}}]}}"#);
    let s: Saved = serde_json::from_str(&text).unwrap();
    assert_eq!(s.evidence[NAME], Value::from("[1]"));
    assert_eq!(s.key.unwrap()[0][NAME], Value::from("2"));
    assert_eq!(s.absent, None);
    let null: Saved = serde_json::from_str(r#"{"evidence":null,"key":null}"#).unwrap();
    assert_eq!((null.evidence, null.key), (Value::Null, None));
}
