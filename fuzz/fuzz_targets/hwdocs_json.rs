//! hwdocs definition JSON through the generator: generated source or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = sgx_hwdocs::gen::generate(&[("fuzz.json".to_string(), text.to_string())]);
});
