//! Unit tests of `cosmos/epk.rs`.

use super::*;

#[test]
fn inline_and_heap_epks_compare_as_bytes() {
    // 16 bytes inline, 17 and 48 on the heap, one built from a vector with room to spare:
    // equality, order and hex see only the bytes (trailing zeros aside).
    let sixteen: Vec<u8> = (1..=16).collect();
    let mut roomy = Vec::with_capacity(64);
    roomy.extend_from_slice(&sixteen);
    let (a, b) = (Epk::from_slice(&sixteen), Epk::from_bytes(roomy));
    assert_eq!(a, b);
    assert_eq!(a.to_hex(), "0102030405060708090A0B0C0D0E0F10");
    let ff = a.with_ff_suffix();
    assert_eq!(ff.as_bytes().len(), 17);
    assert!(a < ff && ff.to_hex().ends_with("10FF"));
    let mut padded = sixteen.clone();
    padded.push(0);
    assert_eq!(
        Epk::from_bytes(padded),
        a,
        "a trailing zero is no difference"
    );
    let long: Vec<u8> = (0..48).map(|i| 200 - i).collect();
    let e = Epk::from_bytes(long.clone());
    assert_eq!(e.as_bytes(), &long[..]);
    assert_eq!(Epk::from_hex(&e.to_hex()).unwrap(), e);
    assert!(Epk::max() > e && Epk::min() < a);
}

#[derive(Deserialize)]
struct Vector {
    version: PkVersion,
    values: Vec<serde_json::Value>,
    epk: String,
}

fn s(x: &str) -> Component {
    Component::String(x.to_owned())
}

/// Wraps every JSON number token outside strings as `{"$num":"token"}`. serde_json without
/// its `float_roundtrip` feature may parse a float 1 ULP off (`9007199254740991.0` becomes
/// `9007199254740990.0`), so the vector test parses numbers with `str::parse::<f64>` (exact).
fn quote_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut chars = text.chars().peekable();
    let (mut in_string, mut escaped) = (false, false);
    while let Some(c) = chars.next() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
            out.push(c);
        } else if c == '-' || c.is_ascii_digit() {
            let mut token = String::from(c);
            while let Some(&d) = chars.peek() {
                if !(d.is_ascii_digit() || "+-.eE".contains(d)) {
                    break;
                }
                token.push(d);
                chars.next();
            }
            out.push_str(&format!(r#"{{"$num":"{token}"}}"#));
        } else {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

fn vector_component(v: &serde_json::Value) -> Component {
    match v.get("$num").and_then(serde_json::Value::as_str) {
        Some(token) => Component::Number(token.parse().unwrap()),
        None => component_from_json(v).unwrap(),
    }
}

#[test]
fn all_fixture_vectors_reproduce() {
    let text = quote_numbers(include_str!("../../../fixtures/epk_vectors.json"));
    let vectors: Vec<Vector> = serde_json::from_str(&text).unwrap();
    assert_eq!(vectors.len(), 60);
    let mut failures = Vec::new();
    for (i, v) in vectors.iter().enumerate() {
        let comps: Vec<Component> = v.values.iter().map(vector_component).collect();
        let got = epk(v.version, &comps).to_hex();
        if got != v.epk {
            failures.push(format!(
                "#{i} {:?} {:?}: got {got}, want {}",
                v.version, v.values, v.epk
            ));
        }
        // The encoded-form entry points must agree with the component form.
        let enc = encode_components(&comps);
        let via_encoded = match v.version {
            PkVersion::V1 => epk(PkVersion::V1, &decode_encoded(&enc).unwrap()),
            PkVersion::V2 => epk_v2_encoded(&enc),
            PkVersion::MultiHash => epk_multihash_encoded(&enc).unwrap(),
        };
        if via_encoded.to_hex() != v.epk {
            failures.push(format!("#{i} via encoded form: got {via_encoded}"));
        }
    }
    assert!(
        failures.is_empty(),
        "failing vectors:\n{}",
        failures.join("\n")
    );
}

#[test]
fn binary_number_examples() {
    for (x, want) in [
        (2.0, "05C000"),
        (5.0, "05C014"),
        (5.5, "05C016"),
        (0.0, "058000"),
        (-0.0, "058000"),
        (2_147_483_647.0, "05C1DFFFFFFFFC"),
    ] {
        let mut out = Vec::new();
        binary_number(x, &mut out);
        assert_eq!(Epk::from_bytes(out).to_hex(), want, "binary_number({x})");
    }
}

#[test]
fn encode_split_decode_round_trip() {
    let comps = vec![
        Component::Undefined,
        Component::Null,
        Component::Bool(false),
        Component::Bool(true),
        Component::Number(-12.5),
        s("héllo"),
        s(""),
        Component::Number(1e300),
    ];
    let enc = encode_components(&comps);
    let parts = split_encoded(&enc).unwrap();
    assert_eq!(parts.len(), comps.len());
    for (part, c) in parts.iter().zip(&comps) {
        let mut one = Vec::new();
        encode_component(c, &mut one);
        assert_eq!(*part, one.as_slice());
    }
    assert_eq!(decode_encoded(&enc).unwrap(), comps);
    assert_eq!(&enc[..5], &[0x00, 0x01, 0x02, 0x03, 0x05]);
}

#[test]
fn malformed_encodings_are_errors() {
    assert!(split_encoded(&[0x05, 1, 2]).is_err());
    assert!(split_encoded(&[0x08, b'a']).is_err());
    assert!(split_encoded(&[0x04]).is_err());
    assert!(decode_encoded(&[0x08, 0xC3, 0xFF]).is_err());
    assert!(epk_multihash_encoded(&[0x07]).is_err());
    assert_eq!(split_encoded(&[]).unwrap().len(), 0);
}

#[test]
fn negative_zero_equals_zero_and_integers_are_doubles() {
    for v in [PkVersion::V1, PkVersion::V2, PkVersion::MultiHash] {
        assert_eq!(
            epk(v, &[Component::Number(-0.0)]),
            epk(v, &[Component::Number(0.0)])
        );
    }
    let mut a = Vec::new();
    encode_component(&Component::Number(-0.0), &mut a);
    let mut b = Vec::new();
    encode_component(&Component::Number(0.0), &mut b);
    assert_eq!(a, b);
    let five: serde_json::Value = serde_json::from_str("5").unwrap();
    let five_f: serde_json::Value = serde_json::from_str("5.0").unwrap();
    assert_eq!(
        component_from_json(&five).unwrap(),
        component_from_json(&five_f).unwrap()
    );
    assert_eq!(
        epk(PkVersion::V2, &[component_from_json(&five).unwrap()]),
        epk(PkVersion::V2, &[Component::Number(5.0)])
    );
}

#[test]
fn json_conversion() {
    let v: serde_json::Value =
        serde_json::from_str(r#"[{}, null, true, 1.5, "x", {"a":1}, [1]]"#).unwrap();
    let a = v.as_array().unwrap();
    assert_eq!(component_from_json(&a[0]).unwrap(), Component::Undefined);
    assert_eq!(component_from_json(&a[1]).unwrap(), Component::Null);
    assert_eq!(component_from_json(&a[2]).unwrap(), Component::Bool(true));
    assert_eq!(component_from_json(&a[3]).unwrap(), Component::Number(1.5));
    assert_eq!(component_from_json(&a[4]).unwrap(), s("x"));
    for bad in &a[5..] {
        let err = component_from_json(bad).unwrap_err();
        assert_eq!(
            err.to_string(),
            "objects and arrays cannot be partition key values"
        );
    }
}

#[test]
fn prefix_range_example() {
    let (lo, hi) = prefix_range(&[s("Redmond"), s("WA")]);
    let want = "01620B162169497AFD85FA66E99F73760845FB119899DE50766A2C4CEFC2FA73";
    assert_eq!(lo.to_hex(), want);
    assert_eq!(hi.to_hex(), format!("{want}FF"));
    let full = epk(PkVersion::MultiHash, &[s("Redmond"), s("WA"), s("98052")]);
    assert!(lo <= full && full < hi);
    assert_eq!(prefix_range(&[]), (Epk::min(), Epk::max()));
}

#[test]
fn epk_comparison_is_length_aware() {
    let a = Epk::from_hex("34AB").unwrap();
    let b = Epk::from_hex("34ab0000").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.cmp(&b), Ordering::Equal);
    let hash = |e: &Epk| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        e.hash(&mut h);
        h.finish()
    };
    assert_eq!(hash(&a), hash(&b));
    assert!(a < Epk::from_hex("34AB0001").unwrap());
    assert!(Epk::from_hex("34AA").unwrap() < Epk::from_hex("34AA00FF").unwrap());
    assert!(Epk::min() < Epk::from_hex("00000001").unwrap());
    assert_eq!(Epk::min(), Epk::from_hex("0000").unwrap());
    assert!(Epk::from_hex("3FFFFFFF").unwrap() < Epk::max());
    assert_eq!(b.to_hex(), "34AB0000");
    assert_eq!(Epk::max().to_string(), "FF");
    assert!(Epk::from_hex("ABC").is_err());
    assert!(Epk::from_hex("GG").is_err());
    assert_eq!(a.with_ff_suffix().to_hex(), "34ABFF");
    let json = serde_json::to_string(&a).unwrap();
    assert_eq!(json, "\"34AB\"");
    assert_eq!(serde_json::from_str::<Epk>(&json).unwrap(), a);
}

#[test]
fn v1_truncates_by_utf16_units() {
    // 99 ASCII characters then a supplementary character: the cut splits the surrogate pair.
    let base = "a".repeat(99);
    let long = format!("{base}\u{1F600}tail");
    assert_eq!(
        truncate_v1(&s(&long)),
        Component::String(format!("{base}\u{FFFD}"))
    );
    let exact = "b".repeat(100);
    assert_eq!(truncate_v1(&s(&exact)), s(&exact));
    assert_eq!(
        epk(PkVersion::V1, &[s(&format!("{exact}x"))]),
        epk(PkVersion::V1, &[s(&format!("{exact}y"))])
    );
    assert_ne!(
        epk(PkVersion::V2, &[s(&format!("{exact}x"))]),
        epk(PkVersion::V2, &[s(&format!("{exact}y"))])
    );
}

#[test]
fn version_serde_names() {
    assert_eq!(
        serde_json::to_string(&[PkVersion::V1, PkVersion::V2, PkVersion::MultiHash]).unwrap(),
        r#"["V1","V2","MultiHash"]"#
    );
}
