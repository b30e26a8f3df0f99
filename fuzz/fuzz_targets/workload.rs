//! Fuzzes the workload file parser (YAML and JSON) and the --query flag grammar.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = pkadvisor::workload::parse(text, "fuzz.yaml", false);
        let _ = pkadvisor::workload::parse(text, "fuzz.json", true);
        let _ = pkadvisor::workload::parse_query_flag(text);
    }
});
