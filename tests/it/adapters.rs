//! Integration tests: whole benchmark runs through adapters — the Python example over
//! stdio and over HTTP give identical results, `bemula serve` gives the in-process
//! results of the system it wraps, and a faulty adapter's faults are classified on
//! their questions while the rest of the run completes.

use crate::support::start_http;
use bemula::answer::Extractive;
use bemula::dataset::{Instance, Version};
use bemula::generate::{GenConfig, generate};
use bemula::judge::rule::RuleJudge;
use bemula::record::Record;
use bemula::run::{RunConfig, Runner};
use bemula::system::remote::{self, RemoteOptions};
use bemula::system::{SharedFactory, builtin};
use std::sync::Arc;
use std::time::Duration;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_bemula");

/// Two short instances of the generated Lite data of generator v1, whose questions the
/// fault-injecting adapter fixtures key on.
fn instances() -> Vec<Instance> {
    generate(&GenConfig {
        seed: 42,
        lite: true,
        generator: bemula::generate::Generator::V1,
        ..Default::default()
    })
    .instances
    .into_iter()
    .filter(|i| i.id.starts_with("short_"))
    .take(2)
    .collect()
}

fn run(factory: SharedFactory, instances: &[Instance]) -> Vec<Record> {
    let runner = runner(factory, 2);
    runner_runtime().block_on(runner.run_all(instances))
}

/// The runner of these tests: extractive answerer, rule judge, one retry, reading on
/// the reading pool as `bemula run` does against an adapter.
fn runner(factory: SharedFactory, jobs: usize) -> Runner {
    let config = RunConfig {
        jobs,
        reading_pool: true,
        ..RunConfig::default()
    };
    Runner::new(factory, Arc::new(Extractive), Arc::new(RuleJudge), config)
}

fn runner_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Connects to an adapter spec on a runtime that lives as long as the factory is used.
fn connect(rt: &tokio::runtime::Runtime, spec: &str, timeout: Duration) -> SharedFactory {
    let options = RemoteOptions {
        timeout,
        ..RemoteOptions::default()
    };
    Arc::new(
        rt.block_on(remote::connect(spec, &options))
            .unwrap_or_else(|e| panic!("{spec}: {e}")),
    )
}

/// A child serving HTTP on an ephemeral port, killed when dropped.
/// What must agree between two runs of the same system: every answer and verdict.
fn essence(records: &[Record]) -> Vec<(String, Version, String, Option<String>, bool)> {
    let mut v: Vec<_> = records
        .iter()
        .map(|r| {
            (
                r.instance.clone(),
                r.version,
                r.question_id.clone(),
                r.answer.clone(),
                r.correct,
            )
        })
        .collect();
    v.sort();
    v
}

fn run_on(spec_or_url: &str, instances: &[Instance]) -> Vec<Record> {
    let rt = runner_runtime();
    let factory = connect(&rt, spec_or_url, Duration::from_secs(30));
    let runner = runner(factory, 2);
    rt.block_on(runner.run_all(instances))
}

#[test]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
fn the_python_example_gives_identical_results_over_stdio_and_http() {
    let instances = instances();
    let example = format!("{ROOT}/adapters/python/example_memory.py");
    let stdio = run_on(&format!("cmd:python3 {example}"), &instances);
    let server = start_http("python3", &[&example]);
    let http = run_on(&server.url, &instances);
    assert!(
        stdio.iter().all(|r| r.error.is_none()),
        "no errors over stdio"
    );
    assert!(
        http.iter().all(|r| r.error.is_none()),
        "no errors over HTTP"
    );
    assert!(
        stdio.iter().any(|r| r.correct),
        "the example remembers something"
    );
    assert_eq!(essence(&stdio), essence(&http));
}

#[test]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
fn bemula_serve_gives_the_in_process_results_over_stdio_and_http() {
    let instances = instances();
    let in_process = run(builtin::factory("naive-rag").unwrap(), &instances);
    let stdio = run_on(
        &format!("cmd:{BIN} serve --system naive-rag --stdio"),
        &instances,
    );
    let server = start_http(BIN, &["serve", "--system", "naive-rag"]);
    let http = run_on(&server.url, &instances);
    assert!(in_process.iter().any(|r| r.correct));
    assert_eq!(essence(&stdio), essence(&in_process), "stdio");
    assert_eq!(essence(&http), essence(&in_process), "http");
}

#[test]
fn adapter_faults_are_classified_on_their_questions_and_a_crash_restarts_the_passes() {
    let instances = instances();
    let asked: usize = instances
        .iter()
        .flat_map(|i| &i.questions)
        .map(|q| {
            usize::from(q.asked_on(Version::Control)) + usize::from(q.asked_on(Version::Forget))
        })
        .sum();
    let marker = tempfile::tempdir().unwrap();
    let marker = marker.path().join("crashed");
    // The variables reach only the adapter's process (`env` sets them; no shell).
    let rt = runner_runtime();
    let spec = format!(
        "cmd:env FAULTY_CRASH_AT=10 FAULTY_SLEEP=4 FAULTY_MARKER={} python3 {ROOT}/tests/fixtures/adapters/faulty_run.py",
        marker.display()
    );
    let factory = connect(&rt, &spec, Duration::from_secs(3));
    let runner = runner(factory, 1);
    let records = rt.block_on(runner.run_all(&instances));
    assert_eq!(
        records.len(),
        asked,
        "every asked question has a record: nothing lost"
    );
    assert!(marker.exists(), "the adapter crashed once");
    let errors: Vec<&Record> = records.iter().filter(|r| r.error.is_some()).collect();
    let with = |needle: &str| {
        errors
            .iter()
            .filter(|r| r.error.as_deref().unwrap().contains(needle))
            .count()
    };
    for r in &errors {
        assert!(
            !r.correct && r.answer.is_none(),
            "an error is never an answer: {r:?}"
        );
    }
    assert!(
        with("vector store is down") > 0,
        "system errors carry the adapter's message"
    );
    assert!(
        with("protocol error") > 0,
        "a non-text answer is a protocol error"
    );
    assert!(with("timeout") > 0, "a slow call is a timeout");
    // The crash cost no answers: the passes in flight restarted on the new process.
    assert_eq!(
        with("system crashed"),
        0,
        "a crash restarts the passes in flight instead of recording errors"
    );
    assert!(
        records.iter().any(|r| r.restarts > 0),
        "the restarts are on the records"
    );
    assert!(
        records.iter().any(|r| r.error.is_none() && r.correct),
        "the run completed after the faults"
    );
}

/// Reads the log of `faulty_ingest.py` and returns every turn observed twice in one
/// namespace with no reset of that namespace between the two.
fn turns_observed_twice(log: &str) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, std::collections::HashSet<String>> =
        Default::default();
    let mut twice = Vec::new();
    for line in log.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["reset", ns] => {
                seen.remove(*ns);
            }
            ["shutdown"] => {}
            ["observe", ns, session, index] => {
                if !seen
                    .entry(ns.to_string())
                    .or_default()
                    .insert(format!("{session} {index}"))
                {
                    twice.push(line.to_string());
                }
            }
            _ => panic!("unexpected log line {line:?}"),
        }
    }
    twice
}

#[test]
fn no_turn_is_observed_twice_between_resets_under_any_fault() {
    let instances = instances();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let markers = dir.path().join("markers");
    std::fs::create_dir(&markers).unwrap();
    let rt = runner_runtime();
    let spec = format!(
        "cmd:env FAULT_LOG={} FAULT_MARKERS={} FAULTS=timeout,garbage,wrongid,error,crash \
         FAULT_EVERY=7 FAULT_SLEEP=4 python3 {ROOT}/tests/fixtures/adapters/faulty_ingest.py",
        log.display(),
        markers.display()
    );
    let factory = connect(&rt, &spec, Duration::from_secs(2));
    // A fault that breaks the stream (garbage, a foreign id, a crash) fails every pass
    // in flight, so a pass may meet all five.
    let config = RunConfig {
        jobs: 2,
        max_restarts: 5,
        reading_pool: true,
    };
    let runner = Runner::new(factory, Arc::new(Extractive), Arc::new(RuleJudge), config);
    let records = rt.block_on(runner.run_all(&instances));
    for fault in ["timeout", "garbage", "wrongid", "error", "crash"] {
        assert!(markers.join(fault).exists(), "the {fault} fault happened");
    }
    let log = std::fs::read_to_string(&log).unwrap();
    let twice = turns_observed_twice(&log);
    assert!(
        twice.is_empty(),
        "turns observed twice in one namespace between resets: {twice:?}"
    );
    let errors: Vec<&Record> = records.iter().filter(|r| r.error.is_some()).collect();
    assert!(
        errors.is_empty(),
        "every pass recovered by restarting: {:?}",
        errors
            .iter()
            .map(|r| r.error.as_deref())
            .collect::<Vec<_>>()
    );
    assert!(
        records.iter().any(|r| r.restarts > 0),
        "the restarts are recorded on the records"
    );
}

#[test]
fn a_never_answering_adapter_ends_the_run_in_seconds_through_the_circuit_breaker() {
    let instances = instances();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.log");
    let rt = runner_runtime();
    let spec = format!(
        "cmd:env STUCK_LOG={} python3 {ROOT}/tests/fixtures/adapters/stuck.py",
        log.display()
    );
    let options = RemoteOptions {
        timeout: Duration::from_millis(500),
        ..RemoteOptions::default()
    };
    let factory: SharedFactory = Arc::new(rt.block_on(remote::connect(&spec, &options)).unwrap());
    let started = std::time::Instant::now();
    let records = rt.block_on(runner(factory, 1).run_all(&instances));
    let elapsed = started.elapsed();
    assert!(!records.is_empty());
    assert!(records.iter().all(|r| r.error.is_some()));
    assert!(
        records
            .iter()
            .any(|r| r.error.as_deref().unwrap().contains("circuit breaker")),
        "the records say why"
    );
    let sent = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count();
    assert!(
        sent <= 6,
        "the breaker stopped sending after 5 timeouts: {sent} sent"
    );
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

/// Runs `bemula run` on two short instances, with extra flags; returns the exit code.
fn bemula_run(system: &str, extra: &[&str]) -> i32 {
    let data = tempfile::tempdir().unwrap();
    for instance in instances() {
        let path = data.path().join(format!("{}.json", instance.id));
        std::fs::write(path, serde_json::to_string(&instance).unwrap()).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let output = crate::bemula_command()
        .args(["run", "--system", system, "--bootstrap", "0", "--data"])
        .arg(data.path())
        .arg("--out")
        .arg(out.path())
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.path().read_dir().unwrap().next().is_some(),
        "reports are written whatever the exit status: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.status.code().unwrap()
}

#[test]
fn bemula_run_fails_when_errors_exceed_the_allowed_rate() {
    let faulty = format!("cmd:python3 {ROOT}/tests/fixtures/adapters/faulty_run.py");
    assert_eq!(bemula_run(&faulty, &["--adapter-timeout", "2"]), 1);
    let lenient = ["--adapter-timeout", "2", "--max-error-rate", "1"];
    assert_eq!(bemula_run(&faulty, &lenient), 0);
    assert_eq!(bemula_run("naive-rag", &[]), 0);
}

#[test]
fn bemula_run_shuts_a_stdio_adapter_down() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let spec = format!(
        "cmd:env FAULT_LOG={} python3 {ROOT}/tests/fixtures/adapters/faulty_ingest.py",
        log.display()
    );
    assert_eq!(bemula_run(&spec, &[]), 0);
    let log = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        log.lines().last(),
        Some("shutdown"),
        "shutdown is the last call"
    );
}
