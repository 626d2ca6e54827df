//! Integration tests: embed. The `embed-rag` system against a scripted
//! OpenAI-compatible embeddings server on 127.0.0.1 whose vectors the tests choose:
//! retrieval order, batching, the vector cache, and clear errors from a failing
//! endpoint.

use crate::llm::chat_server::{ChatServer, Recorded, Scripted};
use bemula::dataset::Version;
use bemula::llm::{ApiKey, EmbedClient, EmbedRagFactory, LlmConfig, LlmError, UsageMeter};
use bemula::system::{
    AsyncMemorySystem, ErrorKind, Memory, Namespace, Reply, SessionInfo, SystemFactory, TurnInput,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

const KEY: &str = "sk-embed-SECRET-91c2e6";

/// A vector per text, by the first topic word it contains (a hand-made 4-dimensional
/// space: place, food, pets, work).
fn topic_vector(text: &str) -> Vec<f32> {
    let t = text.to_lowercase();
    if t.contains("which city") {
        vec![0.9, 0.1, 0.0, 0.05]
    } else if t.contains("portland") {
        vec![1.0, 0.0, 0.0, 0.0]
    } else if t.contains("neighbourhood") {
        vec![0.8, 0.0, 0.0, 0.3]
    } else if t.contains("sourdough") {
        vec![0.1, 1.0, 0.0, 0.0]
    } else if t.contains("parrot") {
        vec![0.0, 0.0, 1.0, 0.0]
    } else if t.contains("deadline") {
        vec![0.0, 0.2, 0.0, 1.0]
    } else if t.contains("weather") {
        vec![0.3, 0.3, 0.3, 0.3]
    } else {
        vec![0.0, 0.0, 0.1, 0.1]
    }
}

/// An embeddings reply for a request, with the vectors in reverse order of `index`
/// (as a server may send them) and a usage of 3 tokens per input.
fn embeddings_reply(r: &Recorded) -> Scripted {
    let inputs: Vec<String> = r.body["input"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    let mut data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"object": "embedding", "index": i, "embedding": topic_vector(t)}))
        .collect();
    data.reverse();
    let body = json!({
        "object": "list",
        "data": data,
        "model": r.body["model"],
        "usage": {"prompt_tokens": 3 * inputs.len(), "total_tokens": 3 * inputs.len()}
    });
    Scripted::status(200, &body.to_string())
}

fn inputs_of(r: &Recorded) -> usize {
    r.body["input"].as_array().map_or(0, Vec::len)
}

fn config(url: &str, cache: Option<&std::path::Path>) -> LlmConfig {
    let mut c = LlmConfig::new(url, "e5-test");
    c.cache_dir = cache.map(|p| p.to_path_buf());
    c.backoff = Duration::from_millis(10);
    c.retries = 2;
    c.timeout = Duration::from_secs(5);
    c
}

fn factory(c: LlmConfig, meter: &Arc<UsageMeter>) -> EmbedRagFactory {
    EmbedRagFactory::new(
        EmbedClient::with_api_key(c, Some(ApiKey::new(KEY)), Arc::clone(meter)).unwrap(),
    )
}

async fn ingest(system: &mut Box<dyn AsyncMemorySystem>, ns: &Namespace, users: &[String]) {
    system.reset(ns).await.unwrap();
    system
        .start_session(
            ns,
            &SessionInfo {
                id: "s01".into(),
                date: "2024-05-14".into(),
            },
        )
        .await
        .unwrap();
    for (i, user) in users.iter().enumerate() {
        let turn = TurnInput {
            index: i,
            user: user.clone(),
            assistant: "Got it.".into(),
        };
        system.observe(ns, &turn).await.unwrap();
    }
    system.end_session(ns).await.unwrap();
}

fn sentences() -> Vec<String> {
    [
        "I bake sourdough every Sunday morning.",
        "We finally moved to Portland in April.",
        "My parrot Kiwi learned to whistle the news theme.",
        "The weather here is mild most of the year.",
        "Our neighbourhood has a tiny bookshop on the corner.",
        "The grant deadline is the fifth of June.",
        "I still have the old bicycle from college.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn texts(reply: Reply) -> Vec<String> {
    match reply {
        Reply::Memories(ms) => ms.into_iter().map(|m: Memory| m.text).collect(),
        other => panic!("not memories: {other:?}"),
    }
}

#[tokio::test]
async fn embed_rag_returns_the_five_nearest_exchanges_best_first() {
    let server = ChatServer::respond(embeddings_reply);
    let meter = Arc::new(UsageMeter::new());
    let factory = factory(config(&server.url, None), &meter);
    let ns = Namespace::new("short_001", Version::Forget);
    let mut system = factory.make(&ns).await.unwrap();
    ingest(&mut system, &ns, &sentences()).await;
    let got = texts(
        system
            .query(&ns, "Which city did I move to last spring?")
            .await
            .unwrap(),
    );
    let first_lines: Vec<&str> = got.iter().map(|t| t.lines().next().unwrap()).collect();
    assert_eq!(
        first_lines,
        [
            "User: We finally moved to Portland in April.",
            "User: Our neighbourhood has a tiny bookshop on the corner.",
            "User: The weather here is mild most of the year.",
            "User: I bake sourdough every Sunday morning.",
            "User: The grant deadline is the fifth of June.",
        ],
        "cosine order, top 5"
    );
    assert!(got[0].ends_with("\nAssistant: Got it."), "{}", got[0]);
    // One request: the seven exchanges and the question, with the model and the key.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/embeddings");
    assert_eq!(requests[0].model(), "e5-test");
    assert_eq!(inputs_of(&requests[0]), 8);
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let usage = meter.snapshot().system;
    assert_eq!((usage.calls, usage.prompt_tokens), (1, 24));

    // The memories carry their time, and another namespace is apart.
    let other = Namespace::new("short_001", Version::Control);
    let mut fresh = factory.make(&other).await.unwrap();
    assert_eq!(
        fresh.query(&other, "Which city?").await.unwrap(),
        Reply::Memories(Vec::new())
    );
    match system
        .query(&ns, "Which city did I move to?")
        .await
        .unwrap()
    {
        Reply::Memories(ms) => assert_eq!(ms[0].time.as_deref(), Some("2024-05-14T00:00:01")),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn equal_similarity_ranks_the_later_exchange_first() {
    let server = ChatServer::respond(embeddings_reply);
    let meter = Arc::new(UsageMeter::new());
    let factory = factory(config(&server.url, None), &meter);
    let ns = Namespace::new("short_002", Version::Forget);
    let mut system = factory.make(&ns).await.unwrap();
    let users: Vec<String> = [
        "We looked at flats in Portland first.",
        "My parrot bit the vet.",
        "In the end we rented in Portland near the river.",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ingest(&mut system, &ns, &users).await;
    let got = texts(system.query(&ns, "Which city is home?").await.unwrap());
    assert!(got[0].contains("near the river"), "{got:?}");
    assert!(got[1].contains("flats in Portland"), "{got:?}");
    assert!(got[2].contains("parrot"), "{got:?}");
}

#[tokio::test]
async fn texts_go_in_batches_and_the_cache_answers_a_second_run() {
    let server = ChatServer::respond(embeddings_reply);
    let cache = tempfile::tempdir().unwrap();
    let meter = Arc::new(UsageMeter::new());
    let users: Vec<String> = (0..40)
        .map(|i| format!("Note {i}: the parrot needs seed number {i}."))
        .collect();
    let ns = Namespace::new("long_001", Version::Forget);
    let f = factory(config(&server.url, Some(cache.path())), &meter);
    let mut system = f.make(&ns).await.unwrap();
    ingest(&mut system, &ns, &users).await;
    system.query(&ns, "Which city?").await.unwrap();
    let sizes: Vec<usize> = server.requests().iter().map(inputs_of).collect();
    assert_eq!(sizes, [32, 9], "41 texts in batches of 32");
    // A second question embeds only itself.
    system
        .query(&ns, "What does the parrot eat?")
        .await
        .unwrap();
    let sizes: Vec<usize> = server.requests().iter().map(inputs_of).collect();
    assert_eq!(sizes, [32, 9, 1]);
    assert_eq!(meter.snapshot().system.calls, 3);

    // A new run over the same cache directory makes no request at all.
    let meter2 = Arc::new(UsageMeter::new());
    let f2 = factory(config(&server.url, Some(cache.path())), &meter2);
    let mut again = f2.make(&ns).await.unwrap();
    ingest(&mut again, &ns, &users).await;
    let first = texts(
        system
            .query(&ns, "What does the parrot eat?")
            .await
            .unwrap(),
    );
    let replayed = texts(again.query(&ns, "What does the parrot eat?").await.unwrap());
    assert_eq!(first, replayed);
    assert_eq!(server.count(), 3, "every vector came from the cache");
    let usage = meter2.snapshot().system;
    assert_eq!((usage.calls, usage.cache_hits), (0, 41));
    // Nothing in the cache holds the key.
    for entry in walk(cache.path()) {
        let text = std::fs::read_to_string(&entry).unwrap();
        assert!(!text.contains(KEY), "{}", entry.display());
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

async fn query_error(server: &ChatServer) -> bemula::system::SystemError {
    let meter = Arc::new(UsageMeter::new());
    let factory = factory(config(&server.url, None), &meter);
    let ns = Namespace::new("short_003", Version::Control);
    let mut system = factory.make(&ns).await.unwrap();
    ingest(&mut system, &ns, &sentences()).await;
    system.query(&ns, "Which city?").await.unwrap_err()
}

#[tokio::test]
async fn a_failing_endpoint_is_a_clear_error_naming_it() {
    // 500 on every attempt: retried, then an overload error naming model and URL.
    let server = ChatServer::respond(|_| Scripted::status(500, "engine crashed"));
    let e = query_error(&server).await;
    let text = e.to_string();
    assert!(text.contains("embed-rag: model \"e5-test\""), "{text}");
    assert!(
        text.contains("model \"e5-test\" at http://127.0.0.1:"),
        "{text}"
    );
    assert!(text.contains("HTTP 500 after 3 attempt(s)"), "{text}");
    assert!(text.contains("engine crashed"), "{text}");
    assert_eq!(
        e.kind,
        ErrorKind::Overloaded,
        "retried, then a transient failure"
    );
    assert_eq!(server.count(), 3);

    // 404: an unknown model, not retried.
    let server = ChatServer::respond(|_| Scripted::status(404, "model not found"));
    let text = query_error(&server).await.to_string();
    assert!(text.contains("HTTP 404"), "{text}");
    assert_eq!(server.count(), 1);

    // A reply with fewer vectors than inputs is malformed, never misaligned.
    let server = ChatServer::respond(|_| {
        Scripted::status(200, r#"{"data": [{"index": 0, "embedding": [1.0, 0.0]}]}"#)
    });
    let text = query_error(&server).await.to_string();
    assert!(
        text.contains("malformed reply: 1 vectors for 8 inputs"),
        "{text}"
    );

    // Not JSON at all.
    let server = ChatServer::respond(|_| Scripted::status(200, "<html>proxy</html>"));
    let text = query_error(&server).await.to_string();
    assert!(text.contains("not an embeddings reply"), "{text}");
    assert!(!text.contains(KEY));

    // Nobody listening.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let meter = Arc::new(UsageMeter::new());
    let f = factory(config(&format!("http://127.0.0.1:{port}/v1"), None), &meter);
    let ns = Namespace::new("short_003", Version::Control);
    let mut system = f.make(&ns).await.unwrap();
    ingest(&mut system, &ns, &sentences()).await;
    let text = system
        .query(&ns, "Which city?")
        .await
        .unwrap_err()
        .to_string();
    assert!(text.contains("cannot connect after 3 attempt(s)"), "{text}");
}

#[test]
fn a_bad_embeddings_configuration_is_refused_up_front() {
    let meter = Arc::new(UsageMeter::new());
    let e = EmbedClient::new(LlmConfig::new("localhost:8080/v1", "e5"), meter.clone()).unwrap_err();
    assert!(matches!(e, LlmError::Config(_)), "{e}");
    assert!(e.to_string().contains("must start with http://"), "{e}");
    let e = EmbedClient::new(LlmConfig::new("http://h/v1", " "), meter).unwrap_err();
    assert!(e.to_string().contains("embed-rag:MODEL"), "{e}");
}

#[test]
fn bemula_run_embed_rag_uses_the_embeddings_base_url() {
    // The chat URL points nowhere: embed-rag must use BEMULA_EMBED_BASE_URL.
    let server = ChatServer::respond(embeddings_reply);
    let dir = tempfile::tempdir().unwrap();
    let data = crate::small_data(dir.path(), 1);
    let out = dir.path().join("out");
    let run = |system: &str| {
        crate::bemula_command()
            .args(["run", "--system", system, "--bootstrap", "50", "--no-cache"])
            .arg("--data")
            .arg(&data)
            .arg("--out")
            .arg(&out)
            .env("BEMULA_LLM_BASE_URL", "http://127.0.0.1:9/v1")
            .env("BEMULA_EMBED_BASE_URL", &server.url)
            .env_remove("BEMULA_EMBED_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap()
    };
    let ok = run("embed-rag:e5-test");
    assert!(ok.status.success(), "{}", crate::output_text(&ok));
    assert!(server.count() > 0);
    assert!(server.requests().iter().all(|r| r.path == "/v1/embeddings"));
    let summary: Value = serde_json::from_slice(
        &std::fs::read(out.join("embed-rag:e5-test/summary.json"))
            .or_else(|_| std::fs::read(out.join("embed-rag_e5-test/summary.json")))
            .unwrap_or_else(|_| panic!("{:?}", walk(&out))),
    )
    .unwrap();
    assert_eq!(
        summary["config"]["system"]["name"], "embed-rag",
        "{summary}"
    );
    assert_eq!(
        summary["config"]["system"]["settings"]["model"], "e5-test",
        "{summary}"
    );

    let bad = run("embed-rag:");
    assert!(!bad.status.success());
    let text = crate::output_text(&bad);
    assert!(text.contains("embed-rag:MODEL"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
}
