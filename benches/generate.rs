//! Benchmark: generating the full default dataset, and loading it back from disk.
//! Plain `fn main` timed with `std::time::Instant`; prints the median of several
//! repetitions. Run with `cargo bench --bench generate`.

use bemula::dataset::Dataset;
use bemula::generate::{GenConfig, generate};
use std::time::{Duration, Instant};

const REPETITIONS: usize = 7;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn time<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(REPETITIONS);
    let mut last = None;
    for _ in 0..REPETITIONS {
        let started = Instant::now();
        let out = f();
        times.push(started.elapsed());
        last = Some(out);
    }
    (median(times), last.expect("at least one repetition"))
}

fn main() {
    let (generating, dataset) = time(|| generate(&GenConfig::default()));
    let turns: usize = dataset.instances.iter().map(|i| i.turn_count()).sum();
    println!(
        "generate (seed 42, {} instances, {turns} turns): median {:.1} ms over {REPETITIONS} runs",
        dataset.instances.len(),
        generating.as_secs_f64() * 1000.0
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    dataset.write(dir.path()).expect("writing the dataset");
    let bytes: u64 = std::fs::read_dir(dir.path())
        .expect("listing the dataset")
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    let (loading, loaded) = time(|| Dataset::load(dir.path()).expect("loading the dataset"));
    assert_eq!(loaded.checksum, dataset.checksum);
    println!(
        "load ({:.1} MB of JSON, validation included): median {:.1} ms over {REPETITIONS} runs",
        bytes as f64 / 1e6,
        loading.as_secs_f64() * 1000.0
    );
}
