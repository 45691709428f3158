//! Host fixture JSON: an error naming the fixture, or a fixture that survives a round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sgx_winsys::replay::Fixture;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Fixture::from_json(text, "fuzz.json") {
        Ok(f) => {
            let again = serde_json::to_string(&f).expect("a fixture serializes");
            let g = Fixture::from_json(&again, "again.json").expect("its own output parses");
            assert_eq!(f, g);
        }
        Err(e) => assert!(e.to_string().contains("fuzz.json"), "{e}"),
    }
});
