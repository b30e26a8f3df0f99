//! Fuzzes the candidate-key grammar: any text parses or is a positioned error.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = pkadvisor::keys::spec::parse_candidates(text) {
            // Rendering the caret message must not panic either.
            let _ = e.to_string();
        }
    }
});
