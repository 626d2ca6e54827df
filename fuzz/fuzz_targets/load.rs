//! Fuzz target: arbitrary bytes through the instance parser, the validator and the
//! statistics. None of them may panic, whatever the input.
#![no_main]

use bemula::dataset::{Dataset, parse_instance, stats, validate};
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|bytes: &[u8]| {
    let file = Path::new("fuzz.json");
    if let Ok(instance) = parse_instance(file, bytes) {
        let _ = validate::validate_instance(file, &instance);
        let dataset = Dataset {
            instances: vec![instance],
            checksum: String::new(),
            source: "fuzz".into(),
        };
        let _ = validate::validate(&dataset);
        let _ = stats::compute(&dataset);
    }
});
