//! Fuzzes the Json reader (records split across reads) and key extraction.
#![no_main]

#[path = "common.rs"]
mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    common::run(data, pkadvisor::ingest::InputFormat::Json);
});
