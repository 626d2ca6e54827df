//! Benchmark: engine. Times the parts of a run that must stay fast; each benchmark is
//! a function called from `main`. Run with `cargo bench --bench engine`.

use bemula::dataset::{Attack, RequestType, Suite, Tier, Version};
use bemula::metrics::{BootstrapConfig, bootstrap};
use bemula::record::Record;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

fn main() {
    bench_end_to_end();
    bench_bootstrap();
}

/// The full default dataset (50 instances, seed 42) against `naive-rag` with the
/// extractive answerer and the rule judge, end to end: generation, both passes of
/// every instance, judging, metrics and the bootstrap.
fn bench_end_to_end() {
    use bemula::answer::Extractive;
    use bemula::generate::{GenConfig, generate};
    use bemula::judge::rule::RuleJudge;
    use bemula::run::{RunConfig, Runner};
    use std::sync::Arc;
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut records = Vec::new();
    let mut generate_time = Duration::ZERO;
    let median = median_time(3, || {
        let t = Instant::now();
        let dataset = generate(&GenConfig {
            seed: 42,
            lite: false,
            ..Default::default()
        });
        generate_time = t.elapsed();
        let factory = bemula::system::builtin::factory("naive-rag").expect("built in");
        let runner = Runner::new(
            factory,
            Arc::new(Extractive),
            Arc::new(RuleJudge),
            RunConfig::default(),
        );
        records = runtime.block_on(runner.run_all(&dataset.instances));
        let _ = bemula::report::Summary::build(
            &records,
            Default::default(),
            &BootstrapConfig::default(),
        );
    });
    println!(
        "end to end: full set (50 instances) against naive-rag, rule judge: median {:.2} s over 3 runs ({} records; generation {:.0} ms; {} worker threads)",
        median.as_secs_f64(),
        records.len(),
        generate_time.as_secs_f64() * 1e3,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
}

/// The median of `runs` timings of `f`.
fn median_time(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// 10,000 cluster-bootstrap resamples over 50 synthetic instances of about 35
/// questions each (four requests with retention, efficacy, relearning and five
/// attacks, plus three preservation questions), answers right about 70% of the time.
fn bench_bootstrap() {
    let records = synthetic_records(50, 4);
    let questions = records.iter().filter(|r| r.is_scored()).count();
    let config = BootstrapConfig::default();
    let mut intervals = None;
    let median = median_time(7, || {
        intervals = Some(bootstrap(&records, &config).expect("default settings are valid"));
    });
    let score = intervals
        .as_ref()
        .and_then(|i| i.get("Score").copied())
        .expect("Score has an interval");
    println!(
        "bootstrap: {} resamples, 50 instances, {questions} scored questions, {} records: median {:.2} ms over 7 runs (Score CI [{:.3}, {:.3}])",
        config.resamples,
        records.len(),
        median.as_secs_f64() * 1e3,
        score.lo,
        score.hi
    );
}

/// Records of `instances` instances with `requests` requests each.
fn synthetic_records(instances: usize, requests: usize) -> Vec<Record> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut records = Vec::new();
    for k in 0..instances {
        let instance = format!("inst_{k:03}");
        let tier = Tier::ALL[k % Tier::ALL.len()];
        let mut add = |request: Option<(String, RequestType)>,
                       suite: Suite,
                       attack: Option<Attack>,
                       version: Version,
                       id: String,
                       conditioned_on: Option<String>| {
            let correct = rng.next_u32() % 100 < 70;
            records.push(Record {
                instance: instance.clone(),
                tier,
                request: request.as_ref().map(|(r, _)| r.clone()),
                request_type: request.map(|(_, t)| t),
                suite,
                attack,
                version,
                question_id: id,
                question: "What is it?".to_string(),
                expected: "value".to_string(),
                answer: Some("an answer".to_string()),
                correct,
                error: None,
                unscored: false,
                conditioned_on,
                judge: "rule".to_string(),
                reason: String::new(),
                restarts: 0,
                truncated_turns: 0,
                decided_by: None,
            });
        };
        for r in 0..requests {
            let kind = RequestType::ALL[(k + r) % RequestType::ALL.len()];
            let req = || Some((format!("r{r}"), kind));
            let ret = format!("r{r}-ret");
            add(
                req(),
                Suite::Retention,
                None,
                Version::Control,
                ret.clone(),
                None,
            );
            add(
                req(),
                Suite::Efficacy,
                None,
                Version::Forget,
                format!("r{r}-eff"),
                Some(ret),
            );
            add(
                req(),
                Suite::Relearning,
                None,
                Version::Forget,
                format!("r{r}-rl"),
                None,
            );
            for attack in Attack::ALL {
                let id = format!("r{r}-{}", attack.name());
                add(
                    req(),
                    Suite::Attack,
                    Some(attack),
                    Version::Control,
                    id.clone(),
                    None,
                );
                add(
                    req(),
                    Suite::Attack,
                    Some(attack),
                    Version::Forget,
                    id.clone(),
                    Some(id),
                );
            }
        }
        for p in 0..3 {
            let id = format!("p{p}");
            add(
                None,
                Suite::Preservation,
                None,
                Version::Control,
                id.clone(),
                None,
            );
            add(
                None,
                Suite::Preservation,
                None,
                Version::Forget,
                id.clone(),
                Some(id),
            );
        }
    }
    records
}
