//! Benchmark: calls per second of `observe` and `query` against the trivial `loopback`
//! system, in-process vs. stdio (`bemula serve --stdio` as a child process) vs. HTTP on
//! loopback (the server running in this process on its own socket). Printed as a table.
//!
//! Run: `cargo bench --bench transport` (optionally `-- N` for the calls per row).

use bemula::system::remote::{self, RemoteOptions, loopback, server};
use bemula::system::{AsyncMemorySystem, Namespace, SystemFactory, TurnInput};
use std::time::{Duration, Instant};

/// Calls per sequential measurement unless given on the command line.
const DEFAULT_CALLS: usize = 2000;

/// Namespaces queried at once in the concurrent measurement.
const CONCURRENT: usize = 8;

struct Row {
    transport: &'static str,
    observe: f64,
    query: f64,
    query_concurrent: f64,
}

async fn fill(system: &mut dyn AsyncMemorySystem, ns: &Namespace, calls: usize) -> f64 {
    system.reset(ns).await.expect("reset");
    let started = Instant::now();
    for i in 0..calls {
        let turn = TurnInput {
            index: i,
            user: format!("Fact number {i} is the value v{i}."),
            assistant: "Noted.".into(),
        };
        system.observe(ns, &turn).await.expect("observe");
    }
    system.flush(ns).await.expect("flush");
    calls as f64 / started.elapsed().as_secs_f64()
}

async fn ask(system: &mut dyn AsyncMemorySystem, ns: &Namespace, calls: usize) {
    for i in 0..calls {
        let question = format!("What is fact number {}?", i % 100);
        system.query(ns, &question).await.expect("query");
    }
}

async fn measure(transport: &'static str, factory: &dyn SystemFactory, calls: usize) -> Row {
    let ns = Namespace(format!("bench_{transport}/forget"));
    let mut system = factory.make(&ns).await.expect("make");
    // The store holds 100 facts while querying, whatever the observe count.
    let observe = fill(&mut *system, &ns, calls).await;
    fill(&mut *system, &ns, 100).await;
    let started = Instant::now();
    ask(&mut *system, &ns, calls).await;
    let query = calls as f64 / started.elapsed().as_secs_f64();

    let mut systems = Vec::new();
    for k in 0..CONCURRENT {
        let ns = Namespace(format!("bench_{transport}_{k}/forget"));
        let mut system = factory.make(&ns).await.expect("make");
        fill(&mut *system, &ns, 100).await;
        systems.push((ns, system));
    }
    let per_task = calls / CONCURRENT;
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for (ns, mut system) in systems {
        tasks.spawn(async move { ask(&mut *system, &ns, per_task).await });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("task");
    }
    let query_concurrent = (per_task * CONCURRENT) as f64 / started.elapsed().as_secs_f64();
    Row {
        transport,
        observe,
        query,
        query_concurrent,
    }
}

fn main() {
    let calls = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(DEFAULT_CALLS);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let rows = runtime.block_on(async {
        let options = RemoteOptions {
            timeout: Duration::from_secs(30),
            max_in_flight: 64,
            ..RemoteOptions::default()
        };
        let mut rows = vec![measure("in-process", &*loopback::factory(), calls).await];

        let spec = format!(
            "cmd:{} serve --system loopback --stdio",
            env!("CARGO_BIN_EXE_bemula")
        );
        let stdio = remote::connect(&spec, &options)
            .await
            .expect("start stdio server");
        rows.push(measure("stdio", &stdio, calls).await);
        stdio.shutdown().await.expect("shutdown");

        let http_server = server::serve_http(loopback::factory(), "127.0.0.1:0".parse().unwrap())
            .await
            .expect("bind");
        let http = remote::connect(&http_server.url(), &options)
            .await
            .expect("connect http");
        rows.push(measure("http", &http, calls).await);
        rows
    });
    println!(
        "transport benchmark: loopback system, {calls} calls per column, {CONCURRENT} namespaces in the concurrent column"
    );
    println!(
        "| {:<10} | {:>12} | {:>12} | {:>22} |",
        "transport", "observe/s", "query/s", "query/s (8 concurrent)"
    );
    println!("|{:-<12}|{:->14}|{:->14}|{:->24}|", "", "", "", "");
    for row in rows {
        println!(
            "| {:<10} | {:>12.0} | {:>12.0} | {:>22.0} |",
            row.transport, row.observe, row.query, row.query_concurrent
        );
    }
}
