//! Fuzzes the field profile's record reader against serde_json's parser
//! (`pkadvisor::ingest::value`, serde_json with every property name an ordinary name, as the
//! profile's fallback reads records): a record it reads, that parser reads into the same tree;
//! a record that parser refuses, it refuses too (it may leave others to the fallback: deep
//! nesting, numbers past a double).
#![no_main]

use pkadvisor::profile::doc::Doc;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let ours = Doc::parse(data);
    match pkadvisor::ingest::value::from_slice(data) {
        Ok(v) => {
            if let Some(d) = ours {
                assert_eq!(d, Doc::from_value(&v), "read differently");
            }
        }
        Err(_) => assert!(ours.is_none(), "accepted what serde_json refuses"),
    }
});
