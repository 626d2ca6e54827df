//! Benchmark: LLM throughput. `bemula run`'s engine on Bemula-Lite against
//! `naive-rag` with an LLM answerer and an LLM judge, over a local OpenAI-compatible
//! endpoint (a small server on 127.0.0.1 in this file) that answers every request
//! after a fixed latency and counts the requests it has open at once. Reports the wall
//! time against the bound `calls × latency / max-in-flight` and the peak in flight the
//! endpoint saw, with the default settings and with `--jobs 16`.
//!
//! Run with `cargo bench --bench llm_throughput`. `BEMULA_BENCH_LATENCY_MS` (default
//! 50) sets the latency and `BEMULA_BENCH_MAX_IN_FLIGHT` (default 8) the limit.

use bemula::generate::{GenConfig, generate};
use bemula::llm::{LlmAnswerer, LlmConfig, LlmJudge, UsageMeter};
use bemula::run::{RunConfig, Runner};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn main() {
    let latency = Duration::from_millis(env_number("BEMULA_BENCH_LATENCY_MS", 50) as u64);
    let max_in_flight = env_number("BEMULA_BENCH_MAX_IN_FLIGHT", 8).max(1);
    let default_jobs = RunConfig::default().jobs;
    println!(
        "llm throughput: Bemula-Lite (seed 42), naive-rag, llm answerer + llm judge, endpoint latency {} ms, max in flight {max_in_flight}, {} cores",
        latency.as_millis(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    for (label, jobs) in [
        (format!("default (--jobs {default_jobs})"), default_jobs),
        ("--jobs 16".to_string(), 16),
    ] {
        bench(&label, jobs, latency, max_in_flight);
    }
}

fn env_number(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?}: expected a whole number")),
        Err(_) => default,
    }
}

/// One run of the engine against a fresh endpoint; prints one line.
fn bench(label: &str, jobs: usize, latency: Duration, max_in_flight: usize) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let endpoint = Endpoint::start(latency);
    let dataset = generate(&GenConfig {
        seed: 42,
        lite: true,
        ..Default::default()
    });
    let meter = Arc::new(UsageMeter::new());
    let mut config = LlmConfig::new(endpoint.url.clone(), "answer-model");
    config.max_in_flight = max_in_flight;
    config.cache_dir = None;
    config.api_key_env = "BEMULA_BENCH_NO_KEY".into();
    let answerer =
        LlmAnswerer::from_config(config.clone(), Arc::clone(&meter)).expect("an answerer");
    let judge = LlmJudge::from_configs(&[config.for_model("judge-model")], Arc::clone(&meter))
        .expect("a judge");
    let factory = bemula::system::builtin::factory("naive-rag").expect("built in");
    let runner = Runner::new(
        factory,
        Arc::new(answerer),
        Arc::new(judge),
        RunConfig {
            jobs,
            ..RunConfig::default()
        },
    );
    let started = Instant::now();
    let records = runtime.block_on(runner.run_all(&dataset.instances));
    let wall = started.elapsed();
    let usage = meter.snapshot().total();
    let calls = endpoint.requests.load(Ordering::SeqCst);
    let bound = latency.as_secs_f64() * calls as f64 / max_in_flight as f64;
    let peak = endpoint.peak.load(Ordering::SeqCst);
    println!(
        "  {label}: {calls} calls ({} failed, {} records) in {:.1} s; bound {:.1} s ({calls} x {} ms / {max_in_flight}): {:.2}x the bound; peak {peak} in flight at the endpoint{}",
        usage.failures,
        records.len(),
        wall.as_secs_f64(),
        bound,
        latency.as_millis(),
        wall.as_secs_f64() / bound,
        if peak > max_in_flight {
            format!(" (ABOVE the limit {max_in_flight})")
        } else {
            String::new()
        }
    );
}

/// A chat-completions endpoint on 127.0.0.1 that answers every request after a fixed
/// latency: a verdict to the judge, "I don't know" to the answerer.
struct Endpoint {
    url: String,
    requests: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    _thread: std::thread::JoinHandle<()>,
}

impl Endpoint {
    fn start(latency: Duration) -> Endpoint {
        let requests = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let open = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = std::sync::mpsc::channel();
        let counters = (Arc::clone(&requests), Arc::clone(&peak), open);
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
                tx.send(listener.local_addr().expect("an address"))
                    .expect("the bench waits");
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        continue;
                    };
                    let (requests, peak, open) = counters.clone();
                    tokio::spawn(async move {
                        serve(stream, latency, &requests, &peak, &open).await;
                    });
                }
            });
        });
        let addr = rx.recv().expect("the endpoint starts");
        Endpoint {
            url: format!("http://{addr}/v1"),
            requests,
            peak,
            _thread: thread,
        }
    }
}

/// Serves the requests of one connection (keep-alive), each after `latency`.
async fn serve(
    mut stream: TcpStream,
    latency: Duration,
    requests: &AtomicUsize,
    peak: &AtomicUsize,
    open: &AtomicUsize,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 16384];
    loop {
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0);
        while buf.len() < head_end + length {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let body = String::from_utf8_lossy(&buf[head_end..head_end + length]).into_owned();
        buf.drain(..head_end + length);
        requests.fetch_add(1, Ordering::SeqCst);
        let now = open.fetch_add(1, Ordering::SeqCst) + 1;
        peak.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(latency).await;
        open.fetch_sub(1, Ordering::SeqCst);
        let content = if body.contains("VERDICT") {
            "The answer does not give the value.\\nVERDICT: CORRECT"
        } else {
            "I don't have that information."
        };
        let reply = format!(
            r#"{{"choices":[{{"index":0,"message":{{"role":"assistant","content":"{content}"}}}}],"usage":{{"prompt_tokens":100,"completion_tokens":10}}}}"#
        );
        let out = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{reply}",
            reply.len()
        );
        if stream.write_all(out.as_bytes()).await.is_err() {
            return;
        }
    }
}
