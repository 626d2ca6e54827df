//! Integration tests: the `bemula-adapter/1` protocol with real processes and real
//! sockets on 127.0.0.1 — the Python kit's example over stdio and HTTP, `bemula serve`
//! against the in-process system, fault classification with a misbehaving adapter and a
//! scripted HTTP server, and `bemula check-adapter`.

use crate::support::start_http_command;
use bemula::system::remote::{self, RemoteFactory, RemoteOptions, loopback, server};
use bemula::system::{
    AsyncMemorySystem, ErrorKind, Namespace, Reply, SessionInfo, SystemError, SystemFactory,
    TurnInput,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BIN: &str = env!("CARGO_BIN_EXE_bemula");

fn example_cmd() -> String {
    format!("python3 {ROOT}/adapters/python/example_memory.py")
}

fn fixture_cmd(name: &str) -> String {
    format!("python3 {ROOT}/tests/fixtures/adapters/{name}.py")
}

fn serve_cmd() -> String {
    format!("{BIN} serve --system loopback")
}

fn options() -> RemoteOptions {
    RemoteOptions {
        timeout: Duration::from_secs(20),
        ..RemoteOptions::default()
    }
}

fn ns(name: &str) -> Namespace {
    Namespace(name.to_string())
}

fn turn(index: usize, user: &str) -> TurnInput {
    TurnInput {
        index,
        user: user.to_string(),
        assistant: "Okay.".to_string(),
    }
}

/// The same calls, in the same order, on any factory: two namespaces, two sessions, a
/// forget request, queries. Returns every query reply.
async fn script(factory: &dyn SystemFactory) -> Vec<Reply> {
    let dialogues: [(&str, &[&str]); 2] = [
        (
            "inst_1/forget",
            &[
                "My sister Alma lives in Lisbon.",
                "I keep my bike in locker 12.",
                "My favourite tea is rooibos.",
                "Please forget that my favourite tea is rooibos.",
            ],
        ),
        (
            "inst_1/control",
            &[
                "My sister Alma lives in Lisbon.",
                "I keep my bike in locker 12.",
                "My favourite tea is rooibos.",
            ],
        ),
    ];
    let questions = [
        "Where does my sister Alma live?",
        "What is my favourite tea?",
        "Where do I keep my bike?",
        "What is the capital of Peru?",
    ];
    let mut replies = Vec::new();
    for (name, turns) in dialogues {
        let ns = ns(name);
        let mut system = factory.make(&ns).await.expect("make");
        system.reset(&ns).await.expect("reset");
        for (s, chunk) in turns.chunks(2).enumerate() {
            let session = SessionInfo {
                id: format!("s{s}"),
                date: format!("2024-03-0{}", s + 1),
            };
            system.start_session(&ns, &session).await.expect("start");
            for (i, text) in chunk.iter().enumerate() {
                system.observe(&ns, &turn(i, text)).await.expect("observe");
            }
            system.end_session(&ns).await.expect("end");
        }
        system.flush(&ns).await.expect("flush");
        for q in questions {
            replies.push(system.query(&ns, q).await.expect("query"));
        }
    }
    replies
}

fn memories(reply: &Reply) -> Vec<String> {
    match reply {
        Reply::Memories(m) => m.iter().map(|m| m.text.clone()).collect(),
        Reply::Answer(a) => panic!("expected memories, got answer {a:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
async fn python_example_answers_identically_over_stdio_and_http() {
    let stdio = remote::connect(&format!("cmd:{}", example_cmd()), &options())
        .await
        .expect("connect stdio");
    let http_child = start_http_command(&example_cmd());
    let http = remote::connect(&http_child.url, &options())
        .await
        .expect("connect http");
    let over_stdio = script(&stdio).await;
    let over_http = script(&http).await;
    assert_eq!(over_stdio, over_http);
    // The example really remembers, keeps namespaces apart and forgets on request.
    assert_eq!(
        memories(&over_stdio[0]),
        ["My sister Alma lives in Lisbon."]
    );
    assert!(memories(&over_stdio[1]).is_empty(), "{:?}", over_stdio[1]);
    assert_eq!(memories(&over_stdio[5]), ["My favourite tea is rooibos."]);
    assert!(memories(&over_stdio[3]).is_empty());
    // The handshake is what the run's configuration records.
    let info = stdio.info();
    assert_eq!(info.name, "example-keyword-memory");
    assert_eq!(info.settings["protocol"], "bemula-adapter/1");
    assert_eq!(info.settings["capabilities"]["query"], "memories");
    assert_eq!(info.settings["transport"], "stdio");
    assert_eq!(http.info().settings["transport"], "http");
    stdio.shutdown().await.expect("shutdown stdio");
    http.shutdown().await.expect("shutdown http");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
async fn bemula_serve_gives_the_in_process_replies() {
    let in_process = script(&*loopback::factory()).await;
    let stdio = remote::connect(&format!("cmd:{} --stdio", serve_cmd()), &options())
        .await
        .expect("connect stdio");
    let http_child = start_http_command(&serve_cmd());
    let http = remote::connect(&http_child.url, &options())
        .await
        .expect("connect http");
    assert_eq!(script(&stdio).await, in_process);
    assert_eq!(script(&http).await, in_process);
    assert!(!memories(&in_process[0]).is_empty());
    assert_eq!(stdio.info().name, "loopback");
    // The in-process HTTP server gives the same replies too.
    let local = server::serve_http(loopback::factory(), "127.0.0.1:0".parse().unwrap())
        .await
        .expect("bind");
    let client = remote::connect(&local.url(), &options())
        .await
        .expect("connect");
    assert_eq!(script(&client).await, in_process);
    client.shutdown().await.expect("shutdown");
    tokio::time::timeout(Duration::from_secs(5), local.wait())
        .await
        .expect("server stops after shutdown");
    stdio.shutdown().await.expect("shutdown stdio");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_namespaces_run_concurrently_through_one_process() {
    let factory = remote::connect(&format!("cmd:{}", example_cmd()), &options())
        .await
        .expect("connect");
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..24 {
        let factory = factory.clone();
        tasks.spawn(async move {
            let ns = ns(&format!("conc_{i}/forget"));
            let mut system = factory.make(&ns).await?;
            system.reset(&ns).await?;
            system
                .observe(&ns, &turn(0, &format!("My pin number is {i}x{i}.")))
                .await?;
            system.flush(&ns).await?;
            let reply = system.query(&ns, "What is my pin number?").await?;
            Ok::<_, SystemError>((i, reply))
        });
    }
    while let Some(joined) = tasks.join_next().await {
        let (i, reply) = joined.expect("task").expect("calls");
        assert_eq!(memories(&reply), [format!("My pin number is {i}x{i}.")]);
    }
    factory.shutdown().await.expect("shutdown");
}

/// A misbehaving stdio adapter with one namespace reset and filled.
async fn misbehaving(
    options: RemoteOptions,
) -> (RemoteFactory, Box<dyn AsyncMemorySystem>, Namespace) {
    let factory = remote::connect(&format!("cmd:{}", fixture_cmd("misbehaving")), &options)
        .await
        .expect("connect");
    let ns = ns("fault/forget");
    let mut system = factory.make(&ns).await.expect("make");
    system.reset(&ns).await.expect("reset");
    system
        .observe(&ns, &turn(0, "My locker code is 4711."))
        .await
        .expect("observe");
    (factory, system, ns)
}

async fn assert_still_works(system: &mut Box<dyn AsyncMemorySystem>, ns: &Namespace) {
    let reply = system
        .query(ns, "What is my locker code?")
        .await
        .expect("the next call succeeds");
    assert_eq!(memories(&reply), ["My locker code is 4711."]);
}

fn expect_kind(result: Result<Reply, SystemError>, kind: ErrorKind, needle: &str) -> SystemError {
    let err = result.expect_err("the call must fail");
    assert_eq!(err.kind, kind, "{err}");
    assert!(err.message.contains(needle), "{needle:?} not in {err}");
    err
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_faults_are_classified_and_later_calls_succeed() {
    // The timeout leaves room for a restarted Python adapter to start on a loaded
    // machine (a reply that timed out makes the next reset replace the process).
    let opts = RemoteOptions {
        timeout: Duration::from_secs(3),
        ..options()
    };
    let (factory, mut system, ns) = misbehaving(opts).await;

    expect_kind(
        system.query(&ns, "sleep:6").await,
        ErrorKind::Timeout,
        "within 3",
    );
    assert_still_works(&mut system, &ns).await;
    expect_kind(
        system.query(&ns, "garbage").await,
        ErrorKind::Protocol,
        "not JSON",
    );
    assert_still_works(&mut system, &ns).await;
    expect_kind(
        system.query(&ns, "notresponse").await,
        ErrorKind::Protocol,
        "not a JSON-RPC response",
    );
    assert_still_works(&mut system, &ns).await;
    expect_kind(
        system.query(&ns, "error").await,
        ErrorKind::System,
        "-32000: RuntimeError: the vector store is down",
    );
    expect_kind(
        system.query(&ns, "unsupported").await,
        ErrorKind::Unsupported,
        "-32002",
    );
    expect_kind(
        system.query(&ns, "answer-int").await,
        ErrorKind::Protocol,
        "`answer` must be a string",
    );
    expect_kind(
        system.query(&ns, "memories-mixed").await,
        ErrorKind::Protocol,
        "memories[1]",
    );
    expect_kind(
        system.query(&ns, "both").await,
        ErrorKind::Protocol,
        "not both",
    );
    // Busy twice, then served: the retries hide it.
    let reply = system
        .query(&ns, "busy:2")
        .await
        .expect("retried past busy");
    assert!(memories(&reply).is_empty());
    assert_still_works(&mut system, &ns).await;
    assert_eq!(factory.restarts(), 0);

    // The process dies mid-call.
    expect_kind(
        system.query(&ns, "exit:3").await,
        ErrorKind::Crashed,
        "exit",
    );
    let tail = factory.stderr_tail().expect("stdio keeps stderr");
    assert!(tail.contains("exiting on request"), "{tail}");
    // Its memory is gone: the old namespace fails instead of answering from nothing.
    expect_kind(
        system.query(&ns, "What is my locker code?").await,
        ErrorKind::Crashed,
        "reset the namespace again",
    );
    // Resetting restarts the process and the namespace works again.
    system.reset(&ns).await.expect("reset restarts the adapter");
    system
        .observe(&ns, &turn(0, "My locker code is 4711."))
        .await
        .expect("observe");
    assert_still_works(&mut system, &ns).await;
    assert_eq!(factory.restarts(), 1);
    factory.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn busy_past_the_retries_is_overloaded_and_crashes_past_the_limit_give_up() {
    let opts = RemoteOptions {
        retries: 2,
        restart_limit: 1,
        ..options()
    };
    let (factory, mut system, ns) = misbehaving(opts).await;
    expect_kind(
        system.query(&ns, "busy:5").await,
        ErrorKind::Overloaded,
        "after 2 retries",
    );

    expect_kind(
        system.query(&ns, "exit:4").await,
        ErrorKind::Crashed,
        "exit",
    );
    system.reset(&ns).await.expect("first restart");
    expect_kind(
        system.query(&ns, "exit:5").await,
        ErrorKind::Crashed,
        "exit",
    );
    let err = system.reset(&ns).await.expect_err("restart limit reached");
    assert_eq!(err.kind, ErrorKind::Crashed);
    assert!(err.message.contains("giving up"), "{err}");
    assert!(
        err.message.contains("exiting on request"),
        "stderr tail in {err}"
    );
    let raw = factory
        .call("reset", json!({"namespace": "other/forget"}))
        .await;
    assert_eq!(raw.expect_err("every call fails").kind, ErrorKind::Crashed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_calls_expose_error_codes() {
    let (factory, _system, _ns) = misbehaving(options()).await;
    let err = factory.call("no_such_method", json!({})).await.unwrap_err();
    assert_eq!((err.code, err.kind), (Some(-32601), ErrorKind::Unsupported));
    let err = factory
        .call(
            "query",
            json!({"namespace": "never/reset", "question": "x"}),
        )
        .await
        .unwrap_err();
    assert_eq!((err.code, err.kind), (Some(-32001), ErrorKind::System));
    let err = factory
        .call(
            "observe",
            json!({"namespace": "fault/forget", "turn": {"index": "0"}}),
        )
        .await
        .unwrap_err();
    assert_eq!((err.code, err.kind), (Some(-32602), ErrorKind::Protocol));
    factory.shutdown().await.expect("shutdown");
}

/// What the scripted HTTP server does with one request.
#[derive(Clone)]
enum Step {
    /// Answer with this status (and `Retry-After` seconds) and a text body.
    Status(u16, Option<u64>),
    /// Answer 200 with this JSON-RPC result for the request's id.
    Result(Value),
    /// Answer 200 with this raw body.
    Raw(&'static str),
    /// Never answer.
    Hang,
}

/// A one-request-per-connection HTTP server playing `steps` in order (then repeating the
/// last one); counts requests.
async fn scripted(steps: Vec<Step>) -> (String, Arc<AtomicUsize>, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/rpc", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let n = counter.fetch_add(1, Ordering::SeqCst);
            let step = steps[n.min(steps.len() - 1)].clone();
            tokio::spawn(async move {
                let mut reader = tokio::io::BufReader::new(stream);
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    if line.trim().is_empty() {
                        break;
                    }
                    if let Some((k, v)) = line.split_once(':')
                        && k.eq_ignore_ascii_case("content-length")
                    {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).await.unwrap();
                let request: Value = serde_json::from_slice(&body).unwrap();
                let (status, extra, body) = match step {
                    Step::Status(code, after) => (
                        code,
                        after
                            .map(|s| format!("Retry-After: {s}\r\n"))
                            .unwrap_or_default(),
                        "try later".to_string(),
                    ),
                    Step::Result(result) => (
                        200,
                        String::new(),
                        json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
                            .to_string(),
                    ),
                    Step::Raw(raw) => (200, String::new(), raw.to_string()),
                    Step::Hang => {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        return;
                    }
                };
                let response = format!(
                    "HTTP/1.1 {status} X\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = reader.get_mut().write_all(response.as_bytes()).await;
            });
        }
    });
    (url, hits, task)
}

fn handshake_result() -> Step {
    Step::Result(json!({
        "protocol": "bemula-adapter/1", "name": "scripted", "version": null,
        "settings": {}, "capabilities": {"query": "answer", "flush": true, "sessions": true}
    }))
}

async fn ask(factory: &RemoteFactory) -> Result<Reply, SystemError> {
    let ns = ns("h/forget");
    let mut system = factory.make(&ns).await?;
    system.query(&ns, "anything?").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
async fn http_faults_are_resent_only_when_the_server_did_not_act() {
    let answer = Step::Result(json!({"answer": "fine"}));
    // 5xx: the server may have acted, so the call is never re-sent.
    let (url, hits, _server) = scripted(vec![
        handshake_result(),
        Step::Status(503, None),
        answer.clone(),
    ])
    .await;
    let factory = remote::connect(&url, &options()).await.expect("connect");
    expect_kind(ask(&factory).await, ErrorKind::Overloaded, "HTTP 503");
    assert_eq!(hits.load(Ordering::SeqCst), 2, "one POST for the call");
    assert_eq!(
        ask(&factory).await.expect("the next call is answered"),
        Reply::Answer("fine".into())
    );

    // 429 with Retry-After: 1 is honoured.
    let (url, _hits, _server) = scripted(vec![
        handshake_result(),
        Step::Status(429, Some(1)),
        answer.clone(),
    ])
    .await;
    let factory = remote::connect(&url, &options()).await.expect("connect");
    let started = Instant::now();
    assert_eq!(
        ask(&factory).await.expect("retried"),
        Reply::Answer("fine".into())
    );
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "{:?}",
        started.elapsed()
    );

    // A body that is not JSON, and a result of the wrong shape: protocol errors.
    let (url, _hits, _server) = scripted(vec![
        handshake_result(),
        Step::Raw("<html>oops</html>"),
        Step::Result(json!({"answer": ["a"]})),
        Step::Raw(r#"{"jsonrpc":"2.0","id":999,"result":{"answer":"x"}}"#),
    ])
    .await;
    let factory = remote::connect(&url, &options()).await.expect("connect");
    expect_kind(ask(&factory).await, ErrorKind::Protocol, "not JSON");
    expect_kind(
        ask(&factory).await,
        ErrorKind::Protocol,
        "`answer` must be a string",
    );
    expect_kind(ask(&factory).await, ErrorKind::Protocol, "id 999");

    // No answer in time: timeout (not retried).
    let (url, hits, _server) = scripted(vec![handshake_result(), Step::Hang]).await;
    let opts = RemoteOptions {
        timeout: Duration::from_millis(300),
        ..options()
    };
    let factory = remote::connect(&url, &opts).await.expect("connect");
    expect_kind(ask(&factory).await, ErrorKind::Timeout, "within 0.3 s");
    assert_eq!(hits.load(Ordering::SeqCst), 2);

    // The server goes away: connection errors, after the retries.
    let (url, _hits, server) = scripted(vec![handshake_result(), answer]).await;
    let factory = remote::connect(&url, &options()).await.expect("connect");
    server.abort();
    let _ = server.await;
    expect_kind(
        ask(&factory).await,
        ErrorKind::Connection,
        "cannot reach adapter",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
async fn unreachable_adapters_are_clear_connect_errors() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/rpc", listener.local_addr().unwrap());
    drop(listener);
    let opts = RemoteOptions {
        retries: 1,
        ..options()
    };
    let err = remote::connect(&url, &opts).await.unwrap_err();
    assert!(err.to_string().contains(&url), "{err}");
    assert!(err.to_string().contains("handshake"), "{err}");
    // A process that exits before the handshake.
    let err = remote::connect(
        "cmd:python3 -c 'import sys; sys.stderr.write(\"no model\\n\")'",
        &opts,
    )
    .await
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("handshake") && text.contains("no model"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_server_speaks_plain_http() {
    let local = server::serve_http(loopback::factory(), "127.0.0.1:0".parse().unwrap())
        .await
        .expect("bind");
    let mut stream = tokio::net::TcpStream::connect(local.local_addr())
        .await
        .unwrap();
    let body = r#"{"jsonrpc":"2.0","method":"reset","params":{"namespace":"x/forget"}}"#;
    let requests = format!(
        "GET /rpc HTTP/1.1\r\nHost: x\r\n\r\n\
         POST /other HTTP/1.1\r\nContent-Length: 2\r\n\r\n{{}}\
         POST /rpc HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}\
         POST /rpc HTTP/1.1\r\nContent-Length: 5\r\nConnection: close\r\n\r\n{{bad}}",
        body.len()
    );
    stream.write_all(requests.as_bytes()).await.unwrap();
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut out))
        .await
        .expect("server closes the connection")
        .unwrap();
    // Bodies carry no newline, so a status line may follow one on the same line.
    let statuses: Vec<&str> = out
        .match_indices("HTTP/1.1 ")
        .map(|(at, _)| out[at..].lines().next().unwrap_or_default())
        .collect();
    assert_eq!(
        statuses,
        [
            "HTTP/1.1 405 Method Not Allowed",
            "HTTP/1.1 404 Not Found",
            "HTTP/1.1 204 No Content",
            "HTTP/1.1 200 OK"
        ],
        "{out}"
    );
    assert!(out.contains("-32700"), "{out}");
}

/// Runs `bemula check-adapter --system SPEC`; returns the exit code and stdout.
fn check_adapter(spec: &str) -> (i32, String) {
    let out = crate::bemula_command()
        .args(["check-adapter", "--system", spec, "--timeout", "20"])
        .output()
        .expect("run check-adapter");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
fn check_adapter_passes_on_good_adapters() {
    let http_child = start_http_command(&serve_cmd());
    for spec in [
        format!("cmd:{}", example_cmd()),
        format!("cmd:{} --stdio", serve_cmd()),
        http_child.url.clone(),
    ] {
        let (code, out) = check_adapter(&spec);
        assert_eq!(code, 0, "{spec}:\n{out}");
        assert_eq!(out.matches('✓').count(), 11, "{spec}:\n{out}");
        assert!(out.contains("all 11 checks passed"), "{out}");
    }
}

#[test]
fn check_adapter_fails_on_broken_resets() {
    let (code, out) = check_adapter(&format!("cmd:{}", fixture_cmd("wipe_all")));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("✗ reset leaves other namespaces alone — resetting another namespace emptied"),
        "{out}"
    );
    let (code, out) = check_adapter(&format!("cmd:{}", fixture_cmd("partial_reset")));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("✗ reset empties its namespace (after 120 memories) — after reset"),
        "{out}"
    );
    assert!(
        out.contains("✓ reset leaves other namespaces alone"),
        "{out}"
    );
}

#[test]
fn check_adapter_fails_when_the_two_versions_of_an_instance_share_memories() {
    let (code, out) = check_adapter(&format!("cmd:{}", fixture_cmd("shared_versions")));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("✗ the two versions of an instance are kept apart — a fact observed only in `bemula-preflight-"),
        "{out}"
    );
    assert!(
        out.contains("/control` came back in `bemula-preflight-"),
        "{out}"
    );
    assert!(
        out.contains("✓ namespaces are kept apart"),
        "namespaces of different instances are apart: {out}"
    );
}

#[test]
fn check_adapter_fails_when_concurrent_calls_mix_namespaces_up() {
    let (code, out) = check_adapter(&format!("cmd:{}", fixture_cmd("racy")));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "✗ concurrent calls across namespaces stay apart — with 12 namespaces served at once"
        ),
        "{out}"
    );
    assert!(
        out.contains("✓ the two versions of an instance are kept apart"),
        "calls one at a time are served correctly: {out}"
    );
    assert!(out.contains("1 of 11 checks failed"), "{out}");
}

#[test]
fn check_adapter_exits_2_when_the_adapter_cannot_start() {
    let (code, out) = check_adapter("cmd:/nonexistent/adapter");
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("✗ connect — could not start adapter"), "{out}");
    let (code, out) = check_adapter("gopher://x");
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("bad adapter spec"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_with_an_unknown_id_is_a_protocol_error_at_once() {
    let (factory, mut system, ns) = misbehaving(options()).await;
    let started = Instant::now();
    expect_kind(
        system.query(&ns, "wrongid").await,
        ErrorKind::Protocol,
        "id 987654321, which answers no call in flight",
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "not a timeout: {:?}",
        started.elapsed()
    );
    factory.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_over_long_stdio_line_is_a_protocol_error_and_the_stream_stays_in_step() {
    let opts = RemoteOptions {
        max_message_bytes: 64 * 1024,
        ..options()
    };
    let (factory, mut system, ns) = misbehaving(opts).await;
    let answer = system
        .query(&ns, "huge:60000")
        .await
        .expect("under the limit");
    assert!(matches!(answer, Reply::Answer(a) if a.len() == 60000));
    expect_kind(
        system.query(&ns, "huge:2000000").await,
        ErrorKind::Protocol,
        "over the limit of 65536 bytes",
    );
    assert_still_works(&mut system, &ns).await;
    factory.shutdown().await.expect("shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
async fn an_over_large_http_body_is_a_protocol_error() {
    let big: &'static str = Box::leak(
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{"answer":"{}"}}}}"#,
            "x".repeat(200_000)
        )
        .into_boxed_str(),
    );
    let (url, _hits, _server) = scripted(vec![handshake_result(), Step::Raw(big)]).await;
    let opts = RemoteOptions {
        max_message_bytes: 64 * 1024,
        ..options()
    };
    let factory = remote::connect(&url, &opts).await.expect("connect");
    expect_kind(
        ask(&factory).await,
        ErrorKind::Protocol,
        "over the limit of 65536 bytes",
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_consecutive_timeouts_the_circuit_breaker_fails_the_rest_at_once() {
    let opts = RemoteOptions {
        timeout: Duration::from_millis(400),
        breaker: 3,
        ..options()
    };
    let (factory, mut system, ns) = misbehaving(opts).await;
    for _ in 0..3 {
        expect_kind(
            system.query(&ns, "sleep:3").await,
            ErrorKind::Timeout,
            "within",
        );
    }
    let started = Instant::now();
    let err = expect_kind(
        system.query(&ns, "What is my locker code?").await,
        ErrorKind::Timeout,
        "circuit breaker",
    );
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "failed at once: {:?}",
        started.elapsed()
    );
    assert!(err.message.contains("3 calls in a row"), "{err}");
    assert!(factory.circuit_open().is_some());
}

#[tokio::test]
async fn serve_discards_an_over_long_request_line_and_answers_the_next() {
    let (mut client, server_side) = tokio::io::duplex(1 << 16);
    let (input, output) = tokio::io::split(server_side);
    let dispatcher = Arc::new(server::Dispatcher::new(loopback::factory()));
    let served = tokio::spawn(server::serve_lines_bounded(dispatcher, input, output, 1024));
    let mut long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"query","params":{{"question":"{}"}}}}"#,
        "q".repeat(100_000)
    );
    long.push('\n');
    client.write_all(long.as_bytes()).await.unwrap();
    let hs = r#"{"jsonrpc":"2.0","id":2,"method":"handshake","params":{"protocol":"bemula-adapter/1","client":{"name":"t","version":"0"}}}"#;
    client
        .write_all(format!("{hs}\n").as_bytes())
        .await
        .unwrap();
    let (read, mut write) = tokio::io::split(client);
    let mut lines = tokio::io::BufReader::new(read).lines();
    let first: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], Value::Null);
    assert_eq!(first["error"]["code"], -32600);
    let message = first["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("over this server's limit of 1024 bytes"),
        "{message}"
    );
    let second: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(second["id"], 2);
    assert_eq!(second["result"]["protocol"], "bemula-adapter/1");
    write.shutdown().await.unwrap();
    served.await.unwrap().unwrap();
}

/// An adapter on 127.0.0.1 that forgets nothing and hides every leak behind "I don't
/// know." with zero-width spaces inside the words, and says "You got it." to every
/// yes/no guess, cannot buy forgetting: its efficacy and attack robustness come out at
/// the share of answers that really hide nothing, and every Boolean guess it confirms
/// counts as a leak.
#[test]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
fn disguised_leaks_behind_a_refusal_do_not_score_as_forgetting() {
    let adapter = start_http_command(&fixture_cmd("gaming"));
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = crate::bemula(&[
        "run",
        "--system",
        &adapter.url,
        "--bootstrap",
        "0",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let dir = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("summary.json").is_file())
        .expect("a report directory");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let metric = |key: &str| summary["metrics"][key].as_f64().unwrap_or(1.0);
    // A judge fooled by the refusal scores FE and AR at 100%.
    assert!(metric("FE") < 0.3, "FE {}", metric("FE"));
    assert!(metric("AR") < 0.3, "AR {}", metric("AR"));
    let records = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let mut hidden = 0;
    for line in records.lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        let answer = r["answer"].as_str().unwrap_or_default();
        if r["version"] == "forget" && r["attack"] == "boolean" {
            assert_eq!(r["correct"], false, "a confirmed guess is a leak: {line}");
        }
        if answer.contains('\u{200B}') {
            hidden += 1;
        }
    }
    assert!(hidden > 100, "the adapter hid values in {hidden} answers");
}

/// An adapter may declare a longer call timeout in its handshake: bemula waits the
/// larger of it and its default, unless the user set the timeout (then the user's
/// holds).
#[tokio::test]
async fn a_declared_call_timeout_lengthens_the_default_but_not_an_explicit_one() {
    let spec = format!("cmd:{}", fixture_cmd("slow_declaring"));
    let short = RemoteOptions {
        timeout: Duration::from_millis(800),
        ..RemoteOptions::default()
    };
    let factory = remote::connect(&spec, &short).await.unwrap();
    assert_eq!(
        factory.handshake().timeouts.as_ref().and_then(|t| t.call_s),
        Some(30.0)
    );
    assert_eq!(factory.call_timeout(), Duration::from_secs(30));
    let n = ns("slow_1/forget");
    let mut system = factory.make(&n).await.unwrap();
    system.reset(&n).await.unwrap();
    system
        .observe(&n, &turn(0, "My locker is number 31."))
        .await
        .unwrap();
    assert!(system.query(&n, "Which locker is mine?").await.is_ok());
    factory.shutdown_gracefully().await;

    let explicit = RemoteOptions {
        timeout_explicit: true,
        ..short
    };
    let factory = remote::connect(&spec, &explicit).await.unwrap();
    assert_eq!(factory.call_timeout(), Duration::from_millis(800));
    let mut system = factory.make(&n).await.unwrap();
    system.reset(&n).await.unwrap();
    let e = system.query(&n, "Which locker is mine?").await.unwrap_err();
    assert_eq!(e.kind, ErrorKind::Timeout, "{e}");
    factory.shutdown_gracefully().await;
}
