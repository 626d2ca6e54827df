//! The server side of the protocol: wraps any [`SystemFactory`](crate::system::SystemFactory) as an adapter, keeping
//! one system per namespace, over stdio ([`serve_stdio`], [`serve_lines`]) or HTTP
//! ([`serve_http`]).
//!
//! Calls on different namespaces run concurrently; calls on one namespace run one at a
//! time, in arrival order. A namespace must be `reset` before any other call on it
//! (otherwise the call fails with [`code::UNKNOWN_NAMESPACE`]), so a restarted server
//! never answers from an empty memory as if it had forgotten.

use super::lines::{self, DEFAULT_MAX_MESSAGE_BYTES, Line};
use super::wire::{self, RpcError, code, method};
use crate::system::{AsyncMemorySystem, ErrorKind, Namespace, SharedFactory, SystemError};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch};

mod httpd;

pub use httpd::{HttpServer, serve_http};

type SharedSystem = Arc<tokio::sync::Mutex<Box<dyn AsyncMemorySystem>>>;

/// Answers protocol messages by calling the systems of a factory.
pub struct Dispatcher {
    factory: SharedFactory,
    systems: Mutex<HashMap<Namespace, SharedSystem>>,
    shutdown: watch::Sender<bool>,
}

impl Dispatcher {
    /// A dispatcher over `factory`, with no namespaces yet.
    pub fn new(factory: SharedFactory) -> Dispatcher {
        Dispatcher {
            factory,
            systems: Mutex::new(HashMap::new()),
            shutdown: watch::channel(false).0,
        }
    }

    /// Whether a `shutdown` call has been answered.
    pub fn is_shut_down(&self) -> bool {
        *self.shutdown.borrow()
    }

    /// Completes once a `shutdown` call has been answered.
    pub async fn shut_down(&self) {
        let mut rx = self.shutdown.subscribe();
        let _ = rx.wait_for(|stopped| *stopped).await;
    }

    /// Answers one message given as text: the response, or `None` for a notification.
    pub async fn handle_text(&self, text: &str) -> Option<Value> {
        match serde_json::from_str::<Value>(text) {
            Ok(value) => self.handle(value).await,
            Err(e) => Some(wire::failure(
                Value::Null,
                RpcError::new(code::PARSE_ERROR, format!("request is not valid JSON: {e}")),
            )),
        }
    }

    /// Answers one request: the response, or `None` for a notification (no `id`).
    pub async fn handle(&self, request: Value) -> Option<Value> {
        let Value::Object(mut obj) = request else {
            let what = if request.is_array() {
                "batches are not supported; send one request per message"
            } else {
                "a request must be a JSON object"
            };
            return Some(wire::failure(
                Value::Null,
                RpcError::new(code::INVALID_REQUEST, what),
            ));
        };
        let id = obj.remove("id");
        let reply_id = id.clone().unwrap_or(Value::Null);
        if !matches!(
            id,
            None | Some(Value::Null | Value::Number(_) | Value::String(_))
        ) {
            return Some(wire::failure(
                Value::Null,
                RpcError::new(
                    code::INVALID_REQUEST,
                    "`id` must be a number, a string or null",
                ),
            ));
        }
        if obj.get("jsonrpc").and_then(Value::as_str) != Some(wire::JSONRPC) {
            return Some(wire::failure(
                reply_id,
                RpcError::new(
                    code::INVALID_REQUEST,
                    "a request must carry \"jsonrpc\": \"2.0\"",
                ),
            ));
        }
        let Some(Value::String(method)) = obj.remove("method") else {
            return Some(wire::failure(
                reply_id,
                RpcError::new(
                    code::INVALID_REQUEST,
                    "a request must carry a `method` string",
                ),
            ));
        };
        let params = obj.remove("params").unwrap_or_else(|| json!({}));
        let outcome = self.dispatch(&method, params).await;
        let response = match outcome {
            Ok(result) => wire::success(reply_id, result),
            Err(error) => wire::failure(reply_id, error),
        };
        if method == method::SHUTDOWN {
            self.shutdown.send_replace(true);
        }
        id.map(|_| response)
    }

    async fn dispatch(&self, name: &str, params: Value) -> Result<Value, RpcError> {
        match name {
            method::HANDSHAKE => self.handshake(params),
            method::RESET => {
                let p: wire::NamespaceParams = parse(name, params)?;
                let system = self.system_for_reset(&p.namespace).await?;
                let mut system = system.lock().await;
                system.reset(&p.namespace).await.map_err(system_error)?;
                Ok(Value::Null)
            }
            method::START_SESSION => {
                let p: wire::StartSessionParams = parse(name, params)?;
                let system = self.system(&p.namespace)?;
                let mut system = system.lock().await;
                system
                    .start_session(&p.namespace, &p.session)
                    .await
                    .map_err(system_error)?;
                Ok(Value::Null)
            }
            method::OBSERVE => {
                let p: wire::ObserveParams = parse(name, params)?;
                let system = self.system(&p.namespace)?;
                let mut system = system.lock().await;
                system
                    .observe(&p.namespace, &p.turn)
                    .await
                    .map_err(system_error)?;
                Ok(Value::Null)
            }
            method::END_SESSION => {
                let p: wire::NamespaceParams = parse(name, params)?;
                let system = self.system(&p.namespace)?;
                let mut system = system.lock().await;
                system
                    .end_session(&p.namespace)
                    .await
                    .map_err(system_error)?;
                Ok(Value::Null)
            }
            method::FLUSH => {
                let p: wire::NamespaceParams = parse(name, params)?;
                let system = self.system(&p.namespace)?;
                let mut system = system.lock().await;
                system.flush(&p.namespace).await.map_err(system_error)?;
                Ok(Value::Null)
            }
            method::QUERY => {
                let p: wire::QueryParams = parse(name, params)?;
                let system = self.system(&p.namespace)?;
                let mut system = system.lock().await;
                let reply = system
                    .query(&p.namespace, &p.question)
                    .await
                    .map_err(system_error)?;
                Ok(wire::query_result(&reply))
            }
            method::SHUTDOWN => Ok(Value::Null),
            other => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!(
                    "no method `{other}`; {} speaks handshake, reset, start_session, observe, \
                     end_session, flush, query, shutdown",
                    wire::PROTOCOL_VERSION
                ),
            )),
        }
    }

    fn handshake(&self, params: Value) -> Result<Value, RpcError> {
        if let Some(protocol) = params.get("protocol") {
            if protocol.as_str() != Some(wire::PROTOCOL_VERSION) {
                return Err(RpcError::new(
                    code::PROTOCOL_MISMATCH,
                    format!(
                        "client speaks {protocol}, this server speaks {}",
                        wire::PROTOCOL_VERSION
                    ),
                ));
            }
        }
        let mut info = self.factory.info();
        let capabilities = info
            .settings
            .remove("capabilities")
            .as_ref()
            .and_then(|c| wire::Capabilities::deserialize(c).ok())
            .unwrap_or_default();
        let result = wire::HandshakeResult {
            protocol: wire::PROTOCOL_VERSION.to_string(),
            name: info.name,
            version: info.version,
            settings: info.settings,
            capabilities,
            max_concurrency: None,
            timeouts: None,
        };
        Ok(json!(result))
    }

    /// The namespace's system, made fresh when the namespace is new.
    async fn system_for_reset(&self, ns: &Namespace) -> Result<SharedSystem, RpcError> {
        if let Some(system) = lock(&self.systems).get(ns) {
            return Ok(system.clone());
        }
        let made = self.factory.make(ns).await.map_err(system_error)?;
        let mut systems = lock(&self.systems);
        // Another reset of the same namespace may have won the race; keep one system.
        let system = systems
            .entry(ns.clone())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(made)));
        Ok(system.clone())
    }

    fn system(&self, ns: &Namespace) -> Result<SharedSystem, RpcError> {
        lock(&self.systems).get(ns).cloned().ok_or_else(|| {
            RpcError::new(
                code::UNKNOWN_NAMESPACE,
                format!("namespace `{ns}` was never reset on this server; call reset first"),
            )
        })
    }
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher").finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reads a method's params; a mismatch is `invalid params` naming the field.
fn parse<T: DeserializeOwned>(method: &str, params: Value) -> Result<T, RpcError> {
    serde_path_to_error::deserialize(params).map_err(|e| {
        RpcError::new(
            code::INVALID_PARAMS,
            format!(
                "invalid params for `{method}` at `{}`: {}",
                e.path(),
                e.inner()
            ),
        )
    })
}

/// The error object for a failure of the wrapped system.
fn system_error(err: SystemError) -> RpcError {
    let code = match err.kind {
        ErrorKind::Unsupported => code::NOT_SUPPORTED,
        ErrorKind::Overloaded => code::BUSY,
        ErrorKind::Timeout => code::SYSTEM_TIMEOUT,
        _ => code::SYSTEM_FAILURE,
    };
    RpcError {
        code,
        message: err.message,
        data: Some(json!({ "kind": err.kind })),
    }
}

/// Serves newline-delimited JSON-RPC on the process's stdin and stdout until stdin
/// closes or a `shutdown` call is answered.
///
/// Stdin and stdout are pumped by two plain threads (tokio's own stdin would keep the
/// runtime from shutting down while a read is pending).
pub async fn serve_stdio(factory: SharedFactory) -> std::io::Result<()> {
    let handle = tokio::runtime::Handle::current();
    let (input, mut input_feed) = tokio::io::duplex(1 << 16);
    let (output, mut output_drain) = tokio::io::duplex(1 << 16);
    let feeder = handle.clone();
    std::thread::spawn(move || {
        use std::io::Read;
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 8192];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if feeder.block_on(input_feed.write_all(&buf[..n])).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let drainer = handle.clone();
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        use std::io::Write;
        use tokio::io::AsyncReadExt;
        let mut stdout = std::io::stdout().lock();
        let mut buf = [0u8; 8192];
        loop {
            let n = drainer.block_on(output_drain.read(&mut buf))?;
            if n == 0 {
                return Ok(());
            }
            stdout.write_all(&buf[..n])?;
            stdout.flush()?;
        }
    });
    let served = serve_lines(Arc::new(Dispatcher::new(factory)), input, output).await;
    let written = tokio::task::spawn_blocking(move || writer.join())
        .await
        .map_err(std::io::Error::other)?
        .map_err(|_| std::io::Error::other("the stdout writer panicked"))?;
    served.and(written)
}

/// Serves newline-delimited JSON-RPC from `input` to `output`: each request is handled
/// in its own task and answered as soon as it is done (responses may come out of order;
/// the ids match them). Returns once `input` ends or `shutdown` is answered, after the
/// calls in flight are answered.
pub async fn serve_lines<R, W>(
    dispatcher: Arc<Dispatcher>,
    input: R,
    output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_lines_bounded(dispatcher, input, output, DEFAULT_MAX_MESSAGE_BYTES).await
}

/// [`serve_lines`] with a limit on the size of one request line: a longer line is
/// discarded as it is read (never held whole) and answered with `-32600` and `id`
/// `null`.
pub async fn serve_lines_bounded<R, W>(
    dispatcher: Arc<Dispatcher>,
    input: R,
    mut output: W,
    max_line_bytes: usize,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        while let Some(response) = rx.recv().await {
            let mut line = response.to_string();
            line.push('\n');
            output.write_all(line.as_bytes()).await?;
            output.flush().await?;
        }
        Ok::<(), std::io::Error>(())
    });
    let mut reader = BufReader::new(input);
    let mut tasks = tokio::task::JoinSet::new();
    let mut buf = Vec::new();
    loop {
        let read = tokio::select! {
            read = lines::read_line(&mut reader, &mut buf, max_line_bytes) => read?,
            () = dispatcher.shut_down() => break,
        };
        match read {
            Line::Eof => break,
            Line::Read => {}
            Line::TooLong(length) => {
                let error = wire::RpcError::new(
                    wire::code::INVALID_REQUEST,
                    format!(
                        "request line of {length} bytes is over this server's limit of \
                         {max_line_bytes} bytes"
                    ),
                );
                let _ = tx.send(wire::failure(Value::Null, error));
                continue;
            }
        }
        let text = String::from_utf8_lossy(&buf).trim().to_string();
        if text.is_empty() {
            continue;
        }
        let dispatcher = dispatcher.clone();
        let tx = tx.clone();
        tasks.spawn(async move {
            if let Some(response) = dispatcher.handle_text(&text).await {
                let _ = tx.send(response);
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    drop(tx);
    writer
        .await
        .map_err(|e| std::io::Error::other(format!("response writer failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::remote::loopback::factory;

    #[tokio::test]
    async fn answers_the_protocol_in_process() {
        let d = Dispatcher::new(factory());
        let hs = d
            .handle(json!({"jsonrpc":"2.0","id":1,"method":"handshake","params":{"protocol":"bemula-adapter/1"}}))
            .await
            .unwrap();
        assert_eq!(hs["result"]["protocol"], "bemula-adapter/1");
        let q = d
            .handle(json!({"jsonrpc":"2.0","id":2,"method":"query","params":{"namespace":"a/forget","question":"x"}}))
            .await
            .unwrap();
        assert_eq!(q["error"]["code"], code::UNKNOWN_NAMESPACE);
        for (i, msg) in [
            json!({"method":"reset","params":{"namespace":"a/forget"}}),
            json!({"method":"observe","params":{"namespace":"a/forget","turn":{"index":0,"user":"my cat is Tom","assistant":"ok"}}}),
        ]
        .into_iter()
        .enumerate()
        {
            let mut msg = msg;
            msg["jsonrpc"] = json!("2.0");
            msg["id"] = json!(10 + i);
            let r = d.handle(msg).await.unwrap();
            assert_eq!(r["result"], Value::Null, "{r}");
        }
        let q = d
            .handle(json!({"jsonrpc":"2.0","id":"q","method":"query","params":{"namespace":"a/forget","question":"what is my cat called?"}}))
            .await
            .unwrap();
        assert_eq!(q["id"], "q");
        assert_eq!(q["result"]["memories"][0], "my cat is Tom");
    }

    #[tokio::test]
    async fn malformed_requests_get_standard_errors() {
        let d = Dispatcher::new(factory());
        let r = d.handle_text("{nope").await.unwrap();
        assert_eq!(r["error"]["code"], code::PARSE_ERROR);
        assert_eq!(r["id"], Value::Null);
        let r = d.handle(json!([1, 2])).await.unwrap();
        assert_eq!(r["error"]["code"], code::INVALID_REQUEST);
        let r = d.handle(json!({"id":1,"method":"reset"})).await.unwrap();
        assert_eq!(r["error"]["code"], code::INVALID_REQUEST);
        let r = d
            .handle(json!({"jsonrpc":"2.0","id":1,"method":"frobnicate"}))
            .await
            .unwrap();
        assert_eq!(r["error"]["code"], code::METHOD_NOT_FOUND);
        let r = d
            .handle(json!({"jsonrpc":"2.0","id":1,"method":"observe","params":{"namespace":"a/b","turn":{"index":"x"}}}))
            .await
            .unwrap();
        assert_eq!(r["error"]["code"], code::INVALID_PARAMS);
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.contains("turn.index"), "{message}");
        let r = d
            .handle(json!({"jsonrpc":"2.0","id":1,"method":"handshake","params":{"protocol":"bemula-adapter/0"}}))
            .await
            .unwrap();
        assert_eq!(r["error"]["code"], code::PROTOCOL_MISMATCH);
        // A notification gets no response but still acts.
        assert!(
            d.handle(json!({"jsonrpc":"2.0","method":"reset","params":{"namespace":"n/forget"}}))
                .await
                .is_none()
        );
        assert!(d.system(&Namespace("n/forget".into())).is_ok());
    }

    #[tokio::test]
    async fn serves_lines_until_shutdown() {
        let d = Arc::new(Dispatcher::new(factory()));
        let input = concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"reset","params":{"namespace":"a/forget"}}"#,
            "\n\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
            "\n",
        );
        let (client, server) = tokio::io::duplex(1 << 16);
        let (mut read_half, write_half) = tokio::io::split(client);
        drop(write_half);
        serve_lines(d.clone(), input.as_bytes(), server)
            .await
            .unwrap();
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut read_half, &mut out)
            .await
            .unwrap();
        let ids: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].clone())
            .collect();
        assert_eq!(ids.len(), 2, "{out}");
        assert!(d.is_shut_down());
    }
}
