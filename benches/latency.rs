//! Benchmark: how close a run against a slow system comes to its critical path.
//!
//! The system is `naive-rag` in process, wrapped so that every call first sleeps a fixed
//! latency (waiting costs no CPU: it stands for a remote system's round trip, not for
//! local work). The wrapper counts the calls of each namespace and
//! times each wait (a thread's sleep: a `tokio` sleep would round the latency up to the
//! timer's next millisecond tick). Two critical-path bounds: the nominal one, from the latency
//! asked: the larger of the longest namespace's calls times the latency (the calls of
//! one pass are sequential) and all calls times the latency divided by the namespaces
//! in flight (two per instance at `--jobs`); and the empty run: the same calls of each
//! namespace, with every namespace in flight at once as in the run, replayed against the
//! same waits with no work between them, which is what the run would take if reading,
//! answering and judging cost nothing (on a 2-core machine waking a hundred sleeping
//! calls costs time of its own). The run is the whole of Bemula-Lite with the extractive
//! answerer and the rule judge, at the default `--jobs`, reading on the reading pool as
//! `bemula run` does against a remote system (`BEMULA_BENCH_READING_POOL=0`: on the
//! runtime's threads).
//!
//! Run: `cargo bench --bench latency` (optionally `-- MS…` for the latencies).

use async_trait::async_trait;
use bemula::answer::Extractive;
use bemula::generate::{GenConfig, generate};
use bemula::judge::rule::RuleJudge;
use bemula::run::{RunConfig, Runner};
use bemula::system::{
    AsyncMemorySystem, Namespace, Reply, SessionInfo, SharedFactory, SystemFactory, SystemInfo,
    SystemResult, TurnInput, builtin,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Per namespace: its calls and the time its sleeps lasted.
type Calls = Arc<Mutex<HashMap<String, (usize, Duration)>>>;

/// A factory whose systems sleep `latency` before each call and count their calls.
struct Slow {
    inner: SharedFactory,
    latency: Duration,
    calls: Calls,
}

struct SlowSystem {
    inner: Box<dyn AsyncMemorySystem>,
    latency: Duration,
    calls: Calls,
}

/// Sleeps `latency`, then counts a call of `ns` and the time the sleep lasted.
async fn wait(calls: &Calls, latency: Duration, ns: &Namespace) {
    let started = Instant::now();
    if !latency.is_zero() {
        // A thread's sleep keeps to the latency within tens of microseconds; a `tokio`
        // sleep rounds it up to the timer's next millisecond tick.
        tokio::task::spawn_blocking(move || std::thread::sleep(latency))
            .await
            .expect("sleep");
    }
    let waited = started.elapsed();
    let mut calls = calls.lock().unwrap();
    let entry = calls.entry(ns.0.clone()).or_default();
    entry.0 += 1;
    entry.1 += waited;
}

#[async_trait]
impl SystemFactory for Slow {
    async fn make(&self, ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        Ok(Box::new(SlowSystem {
            inner: self.inner.make(ns).await?,
            latency: self.latency,
            calls: self.calls.clone(),
        }))
    }

    fn info(&self) -> SystemInfo {
        self.inner.info()
    }
}

#[async_trait]
impl AsyncMemorySystem for SlowSystem {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        wait(&self.calls, self.latency, ns).await;
        self.inner.reset(ns).await
    }
    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        wait(&self.calls, self.latency, ns).await;
        self.inner.start_session(ns, session).await
    }
    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        wait(&self.calls, self.latency, ns).await;
        self.inner.observe(ns, turn).await
    }
    async fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        wait(&self.calls, self.latency, ns).await;
        self.inner.end_session(ns).await
    }
    async fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        wait(&self.calls, self.latency, ns).await;
        self.inner.flush(ns).await
    }
    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        wait(&self.calls, self.latency, ns).await;
        self.inner.query(ns, question).await
    }
}

/// The wall time of `counts[i]` sequential waits of `latency` for every namespace `i`,
/// all namespaces at once: the run's system calls with nothing between them.
async fn empty_run(counts: &[usize], latency: Duration) -> Duration {
    let calls: Calls = Arc::default();
    let started = Instant::now();
    let tasks: Vec<_> = counts
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let calls = calls.clone();
            tokio::spawn(async move {
                let ns = Namespace(format!("empty-{i}"));
                for _ in 0..n {
                    wait(&calls, latency, &ns).await;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("empty run");
    }
    started.elapsed()
}

fn main() {
    let latencies: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let latencies = if latencies.is_empty() {
        vec![2, 20]
    } else {
        latencies
    };
    let instances = generate(&GenConfig {
        seed: 42,
        lite: true,
        ..Default::default()
    })
    .instances;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // As `bemula run` reads against a remote system, which the latency stands for;
    // `BEMULA_BENCH_READING_POOL=0` reads on the runtime's threads instead.
    let config = RunConfig {
        reading_pool: std::env::var("BEMULA_BENCH_READING_POOL").map_or(true, |v| v != "0"),
        ..RunConfig::default()
    };
    println!(
        "Bemula-Lite ({} instances), naive-rag behind a fixed latency, --jobs {}, reading {}:\n",
        instances.len(),
        config.jobs,
        if config.reading_pool {
            "on the reading pool"
        } else {
            "on the runtime"
        }
    );
    println!(
        "| latency | calls | longest pass | nominal bound | mean wait in the run | empty run | wall | wall / nominal | wall / empty run |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for ms in latencies {
        let latency = Duration::from_millis(ms);
        let calls = Arc::new(Mutex::new(HashMap::new()));
        let factory: SharedFactory = Arc::new(Slow {
            inner: builtin::factory("naive-rag").expect("built-in"),
            latency,
            calls: calls.clone(),
        });
        let runner = Runner::new(
            factory,
            Arc::new(Extractive),
            Arc::new(RuleJudge),
            config.clone(),
        );
        let started = Instant::now();
        let records = runtime.block_on(runner.run_all(&instances));
        let wall = started.elapsed();
        assert!(records.iter().all(|r| r.error.is_none()), "no errors");
        let calls = calls.lock().unwrap();
        let total: usize = calls.values().map(|c| c.0).sum();
        let longest = calls.values().map(|c| c.0).max().unwrap_or(0);
        let waited: Duration = calls.values().map(|c| c.1).sum();
        let in_flight = (2 * config.jobs).min(calls.len()).max(1) as f64;
        let nominal = latency
            .mul_f64(longest as f64)
            .max(latency.mul_f64(total as f64 / in_flight));
        let counts: Vec<usize> = calls.values().map(|c| c.0).collect();
        drop(calls);
        let empty = runtime.block_on(empty_run(&counts, latency));
        let ratio = |bound: Duration| {
            if bound.is_zero() {
                "-".to_string()
            } else {
                format!("{:.3}", wall.as_secs_f64() / bound.as_secs_f64())
            }
        };
        println!(
            "| {ms} ms | {total} | {longest} calls | {:.2} s | {:.2} ms | {:.2} s | {:.2} s | {} | {} |",
            nominal.as_secs_f64(),
            waited.as_secs_f64() * 1000.0 / total.max(1) as f64,
            empty.as_secs_f64(),
            wall.as_secs_f64(),
            ratio(nominal),
            ratio(empty),
        );
    }
}
