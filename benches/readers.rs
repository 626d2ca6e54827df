//! Benchmark: readers. The generated full set and Bemula-Lite against built-in systems,
//! read by the oracle or the extractive reader and graded by the rule judge, at the
//! default concurrency of an in-process run (`bemula::run::in_process_jobs`, the
//! number of cores). Prints, per case, the median wall time over a few runs and the
//! peak resident memory the run added (Linux: the high-water mark is reset before
//! each run through `/proc/self/clear_refs`; elsewhere it is not measured).
//! Run with `cargo bench --bench readers`; `BEMULA_BENCH_RUNS` sets the runs per
//! case (default 3).

use bemula::answer::{Answerer, Extractive};
use bemula::dataset::Instance;
use bemula::generate::{GenConfig, generate};
use bemula::judge::rule::RuleJudge;
use bemula::oracle::Oracle;
use bemula::run::{RunConfig, Runner, in_process_jobs};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn main() {
    let runs: usize = std::env::var("BEMULA_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(3);
    let full = generate(&GenConfig::default()).instances;
    let lite = generate(&GenConfig {
        lite: true,
        ..GenConfig::default()
    })
    .instances;
    let oracle: Arc<dyn Answerer> = Arc::new(Oracle::new());
    let extractive: Arc<dyn Answerer> = Arc::new(Extractive);
    let cases: [Case<'_>; 8] = [
        ("full", &full, "transcript", &oracle),
        ("full", &full, "transcript", &extractive),
        ("lite", &lite, "transcript", &oracle),
        ("full", &full, "naive-rag", &oracle),
        ("full", &full, "naive-rag", &extractive),
        ("full", &full, "null", &oracle),
        ("full", &full, "wipe", &oracle),
        ("full", &full, "scoped-forget", &oracle),
    ];
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let jobs = in_process_jobs();
    for (set, instances, system, answerer) in cases {
        let mut times = Vec::with_capacity(runs);
        let mut peak = None;
        let mut records = 0;
        for _ in 0..runs {
            let before = reset_peak();
            let runner = Runner::new(
                bemula::system::builtin::factory(system).expect("a built-in system"),
                answerer.clone(),
                Arc::new(RuleJudge),
                RunConfig {
                    jobs,
                    ..RunConfig::default()
                },
            );
            let started = Instant::now();
            records = runtime.block_on(runner.run_all(instances)).len();
            times.push(started.elapsed());
            if let (Some(before), Some(after)) = (before, peak_rss()) {
                let added = after.saturating_sub(before);
                peak = Some(peak.map_or(added, |p: u64| p.max(added)));
            }
        }
        let peak = peak.map_or_else(
            || "not measured".to_string(),
            |kb| format!("{:.0} MB", kb as f64 / 1024.0),
        );
        println!(
            "readers: {set} set against {system}, {} reader, --jobs {jobs}: median {:.2} s over {runs} runs, peak memory added {peak} ({records} records)",
            answerer.name(),
            median(times).as_secs_f64(),
        );
    }
}

/// A case: the set's name, its instances, the system, the reader.
type Case<'a> = (&'a str, &'a [Instance], &'a str, &'a Arc<dyn Answerer>);

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Resets the process's peak resident memory to what it holds now, and returns that
/// (kB), where the system allows it.
fn reset_peak() -> Option<u64> {
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    status_kb("VmRSS:")
}

/// The process's peak resident memory (kB) since the last reset.
fn peak_rss() -> Option<u64> {
    status_kb("VmHWM:")
}

fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}
