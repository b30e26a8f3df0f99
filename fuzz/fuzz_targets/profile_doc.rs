//! Fuzzes the field profile's record reader against serde_json: a record it reads, serde_json
//! reads into the same tree; a record serde_json refuses, it refuses too (it may leave others to
//! serde_json: deep nesting, numbers past a double). Not compared: records holding serde_json's
//! private name for a raw value, which serde_json (with its `raw_value` feature) refuses or
//! reads as the JSON text of its string; this reader reads it as any other property name, as the
//! candidates' scan does (`profile::doc::tests`).
#![no_main]

use pkadvisor::profile::doc::Doc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if holds_raw_value_name(data) {
        return;
    }
    let ours = Doc::parse(data);
    match serde_json::from_slice::<serde_json::Value>(data) {
        Ok(v) => {
            if let Some(d) = ours {
                assert_eq!(d, Doc::from_value(&v), "read differently");
            }
        }
        Err(_) => assert!(ours.is_none(), "accepted what serde_json refuses"),
    }
});

fn holds_raw_value_name(data: &[u8]) -> bool {
    const NAME: &[u8] = b"$serde_json::private::RawValue";
    data.windows(NAME.len()).any(|w| w == NAME)
}
