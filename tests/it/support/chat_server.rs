//! A scripted OpenAI-compatible chat-completions server on 127.0.0.1 for tests: a
//! small HTTP/1.1 responder on its own thread and tokio runtime. Each test scripts the
//! replies (a queue, or a function of the request and the load) and reads back every
//! request and the most requests it had open at once.

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted HTTP reply.
#[derive(Debug, Clone)]
pub struct Scripted {
    status: u16,
    body: String,
    headers: Vec<(String, String)>,
    delay: Duration,
}

impl Scripted {
    /// A 200 chat completion with `content` and usage 10 prompt + 5 completion tokens.
    pub fn reply(content: &str) -> Scripted {
        Scripted::reply_with_usage(content, 10, 5)
    }

    /// A 200 chat completion with the given usage.
    pub fn reply_with_usage(content: &str, prompt: u64, completion: u64) -> Scripted {
        let body = json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}
        });
        Scripted::status(200, &body.to_string())
    }

    /// Any status with a body.
    pub fn status(status: u16, body: &str) -> Scripted {
        Scripted {
            status,
            body: body.to_string(),
            headers: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Scripted {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Waits before replying.
    pub fn delay(mut self, delay: Duration) -> Scripted {
        self.delay = delay;
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `POST`.
    pub method: String,
    /// `/v1/chat/completions`.
    pub path: String,
    /// Headers, names lower case.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
}

impl Recorded {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `model` of the body.
    pub fn model(&self) -> &str {
        self.body["model"].as_str().unwrap_or("")
    }

    /// The messages' contents, joined by newlines.
    pub fn text(&self) -> String {
        self.body["messages"]
            .as_array()
            .map(|ms| {
                ms.iter()
                    .map(|m| m["content"].as_str().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }

    /// Number of messages.
    pub fn message_count(&self) -> usize {
        self.body["messages"].as_array().map_or(0, Vec::len)
    }

    /// The last user message.
    pub fn last_user(&self) -> String {
        self.body["messages"]
            .as_array()
            .and_then(|ms| ms.iter().rev().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or("")
            .to_string()
    }
}

type Responder = Box<dyn Fn(&Recorded, usize) -> Scripted + Send + Sync>;

/// Requests open at the server: received in full and not yet answered.
#[derive(Debug, Default)]
struct Load {
    now: AtomicUsize,
    peak: AtomicUsize,
    /// The requests open when each request arrived (itself included), in order.
    seen: Mutex<Vec<usize>>,
}

/// The running server; stops when dropped.
pub struct ChatServer {
    /// Base URL to configure clients with: `http://127.0.0.1:PORT/v1`.
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
    load: Arc<Load>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl ChatServer {
    /// Replies from a queue, in order; when it runs out, HTTP 500 `script exhausted`.
    pub fn queue(replies: Vec<Scripted>) -> ChatServer {
        let queue = Mutex::new(VecDeque::from(replies));
        ChatServer::respond(move |_| {
            queue
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or_else(|| Scripted::status(500, "script exhausted"))
        })
    }

    /// Replies with whatever `f` says for each request.
    pub fn respond(f: impl Fn(&Recorded) -> Scripted + Send + Sync + 'static) -> ChatServer {
        ChatServer::respond_under_load(move |r, _| f(r))
    }

    /// Replies with whatever `f` says for each request and the number of requests open
    /// at the server when it arrived (itself included), e.g. HTTP 429 above a
    /// threshold.
    pub fn respond_under_load(
        f: impl Fn(&Recorded, usize) -> Scripted + Send + Sync + 'static,
    ) -> ChatServer {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let load = Arc::new(Load::default());
        let server_load = Arc::clone(&load);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let log = Arc::clone(&requests);
        let responder: Arc<Responder> = Arc::new(Box::new(f));
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
                ready_tx.send(listener.local_addr().unwrap()).unwrap();
                let mut stopped = stopped;
                loop {
                    tokio::select! {
                        _ = &mut stopped => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { continue };
                            let log = Arc::clone(&log);
                            let responder = Arc::clone(&responder);
                            let load = Arc::clone(&server_load);
                            tokio::spawn(serve(stream, log, load, responder));
                        }
                    }
                }
            });
        });
        let addr = ready_rx.recv().unwrap();
        ChatServer {
            url: format!("http://{addr}/v1"),
            requests,
            load,
            stop: Some(stop),
        }
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    /// The most requests open at once: received in full and not yet answered. (A
    /// request counts until its reply starts, so one that the client sends as soon as
    /// another's reply arrives never overlaps it here.)
    pub fn peak_in_flight(&self) -> usize {
        self.load.peak.load(Ordering::SeqCst)
    }

    /// The requests open when each request arrived, itself included, in arrival order.
    pub fn load_seen(&self) -> Vec<usize> {
        self.load.seen.lock().unwrap().clone()
    }
}

impl Drop for ChatServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn serve(
    mut stream: TcpStream,
    log: Arc<Mutex<Vec<Recorded>>>,
    load: Arc<Load>,
    responder: Arc<Responder>,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body: Value =
        serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    let recorded = Recorded {
        method,
        path,
        headers,
        body,
    };
    let open = {
        let mut seen = load.seen.lock().unwrap();
        let open = load.now.fetch_add(1, Ordering::SeqCst) + 1;
        load.peak.fetch_max(open, Ordering::SeqCst);
        seen.push(open);
        open
    };
    log.lock().unwrap().push(recorded.clone());
    let reply = responder(&recorded, open);
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    load.now.fetch_sub(1, Ordering::SeqCst);
    let mut out = format!(
        "HTTP/1.1 {} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (n, v) in &reply.headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(&reply.body);
    let _ = stream.write_all(out.as_bytes()).await;
    let _ = stream.shutdown().await;
}
