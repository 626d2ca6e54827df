//! Memory systems in another process, reached over the `bemula-adapter/1` protocol
//! (JSON-RPC 2.0; the specification is `conformance/PROTOCOL.md`).
//!
//! [`connect`] turns a spec string into a [`RemoteFactory`]:
//! - `cmd:python3 my_adapter.py --flag` spawns the adapter and speaks newline-delimited
//!   JSON over its stdin and stdout ([`stdio`]);
//! - `http://host:port/path` (or `https://`) posts one request per HTTP body (the `http`
//!   cargo feature).
//!
//! The factory's [`make`](crate::system::SystemFactory::make) returns cheap handles that
//! share the one connection, so many namespaces run through it at once. The other
//! direction, wrapping any [`SystemFactory`] as an adapter, lives in [`server`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use bemula::system::remote::{connect, RemoteOptions};
//! use bemula::system::{Namespace, SystemFactory};
//! let factory = connect("cmd:python3 adapters/python/example_memory.py", &RemoteOptions::default()).await?;
//! let ns = Namespace("short_001/forget".into());
//! let mut system = factory.make(&ns).await?;
//! system.reset(&ns).await?;
//! # Ok(()) }
//! ```

pub mod check;
mod connect;
mod guards;
mod handshake;
#[cfg(feature = "http")]
mod http;
pub mod lines;
pub mod loopback;
mod pool;
pub mod preflight;
pub mod probe;
mod remote_system;
pub mod server;
pub mod stdio;
pub mod wire;

pub use connect::connect;
pub use guards::LATE_WRITE_FACTOR;
pub use pool::ProcessStats;
pub use remote_system::RemoteSystem;

use connect::*;
use guards::*;
use handshake::*;
pub(crate) use handshake::{handshake_params, parse_handshake};
use pool::*;

use crate::system::retry::RetryPolicy;
use crate::system::{
    AsyncMemorySystem, ErrorKind, Namespace, Reply, SessionInfo, SystemError, SystemFactory,
    SystemInfo, SystemResult, TurnInput,
};
use async_trait::async_trait;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use wire::{HandshakeResult, PROTOCOL_VERSION, RpcError, method};

/// How the client talks to a remote system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteOptions {
    /// Longest wait for one call (each attempt of it); the default is 60 s. An adapter
    /// whose handshake declares a longer `timeouts.call_s` gets that, unless
    /// `timeout_explicit`.
    pub timeout: Duration,
    /// Whether `timeout` was chosen by the user (`--adapter-timeout`): then it holds
    /// even when the adapter asks for more (with a warning).
    pub timeout_explicit: bool,
    /// How many times a call is re-sent after a failure that certainly left the system
    /// untouched (HTTP: refused connection, 429; both: the `busy` error code). Nothing
    /// else is ever re-sent; see [`crate::system::retry`].
    pub retries: u32,
    /// Most calls in flight at once through the connection.
    pub max_in_flight: usize,
    /// How many times a crashed stdio adapter is restarted before every call fails.
    pub restart_limit: u32,
    /// Largest message accepted from the adapter (one stdio line, one HTTP body), in
    /// bytes; a larger one is a protocol error, and is never held in memory whole.
    pub max_message_bytes: usize,
    /// Circuit breaker: after this many consecutive timeouts, the remaining calls fail
    /// at once (0: never).
    pub breaker: u32,
    /// How many copies of a stdio adapter run side by side (a pool; 1: one process).
    /// Each namespace is served by one process for the whole run, so an adapter whose
    /// library is not thread-safe keeps its state; see [`RemoteFactory::process_stats`].
    pub processes: usize,
}

/// The default circuit breaker: consecutive timeouts before the remaining calls fail.
pub const DEFAULT_BREAKER: u32 = 5;

impl Default for RemoteOptions {
    fn default() -> RemoteOptions {
        RemoteOptions {
            timeout: Duration::from_secs(60),
            timeout_explicit: false,
            retries: crate::system::retry::DEFAULT_RETRIES,
            max_in_flight: 16,
            restart_limit: 3,
            max_message_bytes: lines::DEFAULT_MAX_MESSAGE_BYTES,
            breaker: DEFAULT_BREAKER,
            processes: 1,
        }
    }
}

/// Why [`connect`] could not reach a remote system.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemoteError {
    /// The spec is neither `cmd:…` nor an `http(s)://` URL, or cannot be parsed.
    #[error("bad adapter spec `{spec}`: {reason}")]
    BadSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An `http(s)://` spec, but the crate was built without the `http` feature.
    #[error("adapter spec `{spec}` needs HTTP, but bemula was built without the `http` feature")]
    HttpDisabled {
        /// The spec as given.
        spec: String,
    },
    /// The adapter process could not be started.
    #[error("could not start adapter `{spec}`: {message}")]
    Spawn {
        /// The spec as given.
        spec: String,
        /// What went wrong.
        message: String,
    },
    /// The handshake failed or its answer was malformed.
    #[error("handshake with adapter `{spec}` failed: {message}")]
    Handshake {
        /// The spec as given.
        spec: String,
        /// What went wrong (for stdio adapters, with the tail of their stderr).
        message: String,
    },
}

/// A failed call, as the client sees it: a [`SystemError`] plus the JSON-RPC error code
/// when the adapter sent an error object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind}: {message}")]
pub struct CallError {
    /// Class of the failure.
    pub kind: ErrorKind,
    /// What happened, in words.
    pub message: String,
    /// The JSON-RPC error code, when the adapter answered with an error object.
    pub code: Option<i64>,
    /// Whether the call may be retried without risk (the system did not act on it).
    pub(crate) retryable: bool,
    /// How long the server asked us to wait before retrying.
    pub(crate) retry_after: Option<Duration>,
}

impl CallError {
    /// A failure of the given kind, not retryable.
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> CallError {
        CallError {
            kind,
            message: message.into(),
            code: None,
            retryable: false,
            retry_after: None,
        }
    }

    /// Marks the failure as safe to retry.
    pub(crate) fn retryable(mut self, after: Option<Duration>) -> CallError {
        self.retryable = true;
        self.retry_after = after;
        self
    }

    /// The failure for a JSON-RPC error object answering `method`.
    pub(crate) fn from_rpc(method: &str, error: &RpcError) -> CallError {
        let kind = wire::error_kind(error);
        let mut out = CallError::new(
            kind,
            format!(
                "adapter answered `{method}` with error {}: {}",
                error.code, error.message
            ),
        );
        out.code = Some(error.code);
        if error.code == wire::code::BUSY {
            let after = error
                .data
                .as_ref()
                .and_then(|d| d.get("retry_after_ms"))
                .and_then(Value::as_u64)
                .map(Duration::from_millis);
            out = out.retryable(after);
        }
        out
    }
}

impl From<CallError> for SystemError {
    fn from(err: CallError) -> SystemError {
        SystemError::new(err.kind, err.message)
    }
}

/// How long the end of a run waits for a stdio adapter to answer `shutdown`, and then
/// to exit.
pub const SHUTDOWN_WAIT: Duration = Duration::from_secs(2);

/// The least time a handshake is given, whatever the call timeout: starting an adapter
/// (an interpreter, its libraries, a model) may take longer than any call.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// Which transport a [`RemoteFactory`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransportKind {
    /// A child process spoken to over stdin and stdout.
    Stdio,
    /// HTTP POSTs to a URL.
    Http,
}

/// A way of carrying the protocol's calls to an adapter. Each transport implements it in
/// its own file ([`stdio`], `http`); adding one is that file, its arm in [`connect`] and
/// its form in the spec grammar ([`crate::system::spec`]).
#[async_trait::async_trait]
trait Transport: Send + Sync {
    /// Which transport this is.
    fn kind(&self) -> TransportKind;

    /// The stdio client, when this is one: its process can be restarted, and its
    /// standard error is kept.
    fn stdio(&self) -> Option<&stdio::StdioClient> {
        None
    }

    /// Makes sure no write still in flight is carried out (a stdio adapter's process is
    /// replaced; over HTTP, the calls were cut off by closing their connections already).
    async fn cut_off_late_writes(&self) {}

    /// How long a reset waits for a late write of its namespace (see [`LateWrites`]).
    fn late_write_wait(&self, timeout: Duration) -> Duration;

    /// One attempt of a call; returns the result and the adapter generation that served
    /// it (0 where the transport has no generations).
    async fn call_once(
        &self,
        method: &str,
        params: &Value,
        expect_generation: Option<u64>,
        timeout: Duration,
    ) -> Result<(Value, u64), CallError>;
}

struct Client {
    spec: String,
    options: RemoteOptions,
    transport: Box<dyn Transport>,
    permits: Semaphore,
    handshake: HandshakeResult,
    raw_handshake: Value,
    breaker: Breaker,
    late_writes: LateWrites,
    /// Calls made through this client (each counted once, however often re-sent).
    calls: AtomicU64,
}

impl Client {
    fn new(
        spec: &str,
        options: RemoteOptions,
        transport: Box<dyn Transport>,
        handshake: HandshakeResult,
        raw_handshake: Value,
    ) -> Client {
        Client {
            spec: spec.to_string(),
            permits: Semaphore::new(options.max_in_flight),
            options,
            transport,
            handshake,
            raw_handshake,
            breaker: Breaker::default(),
            late_writes: LateWrites::default(),
            calls: AtomicU64::new(0),
        }
    }
}

impl Client {
    /// A call, re-sent (with backoff honouring the server's wait) only while the
    /// failure is one the system certainly did not act on; see [`crate::system::retry`].
    async fn call(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        expect_generation: Option<u64>,
    ) -> Result<(Value, u64), CallError> {
        self.call_within(method, params, expect_generation, self.options.timeout)
            .await
    }

    /// One attempt of a call. A write runs as a task of its own: when it times out
    /// for its caller it goes on (up to [`LATE_WRITE_FACTOR`] times the timeout) and is
    /// kept among the namespace's late writes, which its next `reset` waits for.
    async fn attempt(
        self: &Arc<Self>,
        method: &str,
        params: &Value,
        expect_generation: Option<u64>,
        timeout: Duration,
    ) -> Result<(Value, u64), CallError> {
        let namespace = params.get("namespace").and_then(Value::as_str);
        let Some(namespace) = namespace.filter(|_| is_write(method)) else {
            return self
                .transport
                .call_once(method, params, expect_generation, timeout)
                .await;
        };
        let patience = timeout.saturating_mul(LATE_WRITE_FACTOR);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let call = {
            let (client, method, params) = (self.clone(), method.to_string(), params.clone());
            tokio::spawn(async move {
                let outcome = client
                    .transport
                    .call_once(&method, &params, expect_generation, patience)
                    .await;
                // Unanswered even now: the adapter may still carry it out.
                let settled = !matches!(&outcome, Err(e) if e.kind == ErrorKind::Timeout);
                let _ = tx.send(outcome);
                settled
            })
        };
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(CallError::new(
                ErrorKind::Connection,
                format!("the call `{method}` to adapter `{}` was dropped", self.spec),
            )),
            Err(_) => {
                self.late_writes.add(namespace, call);
                Err(CallError::new(
                    ErrorKind::Timeout,
                    format!(
                        "adapter `{}` did not answer `{method}` within {:.1} s",
                        self.spec,
                        timeout.as_secs_f64()
                    ),
                ))
            }
        }
    }

    async fn call_within(
        self: &Arc<Self>,
        method: &str,
        params: Value,
        expect_generation: Option<u64>,
        timeout: Duration,
    ) -> Result<(Value, u64), CallError> {
        if let Some(reason) = self.breaker.open_reason() {
            return Err(CallError::new(ErrorKind::Timeout, reason));
        }
        self.calls.fetch_add(1, Ordering::Relaxed);
        if method == method::RESET
            && let Some(namespace) = params.get("namespace").and_then(Value::as_str)
            && !self
                .late_writes
                .settle(namespace, self.transport.late_write_wait(timeout))
                .await
        {
            // A write that timed out may still be carried out: it must not land after
            // this reset.
            self.transport.cut_off_late_writes().await;
        }
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| CallError::new(ErrorKind::Connection, "the client is closed"))?;
        if let Some(reason) = self.breaker.open_reason() {
            return Err(CallError::new(ErrorKind::Timeout, reason));
        }
        let mut attempt = 0u32;
        loop {
            let outcome = self
                .attempt(method, &params, expect_generation, timeout)
                .await;
            self.breaker
                .note(&self.spec, self.options.breaker, &outcome);
            match outcome {
                Err(err) if err.retryable && attempt < self.options.retries => {
                    let policy = RetryPolicy::with_retries(self.options.retries);
                    tokio::time::sleep(policy.backoff(attempt, err.retry_after)).await;
                    attempt += 1;
                }
                Err(mut err) if err.retryable && attempt > 0 => {
                    err.message = format!("{} (after {} retries)", err.message, attempt);
                    return Err(err);
                }
                other => return other,
            }
        }
    }
}

/// A remote memory system: the factory side. Cheap to share; see the module docs.
#[derive(Clone)]
pub struct RemoteFactory {
    pool: Arc<Pool>,
}

impl std::fmt::Debug for RemoteFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteFactory")
            .field("spec", &self.client().spec)
            .field("processes", &self.pool.members.len())
            .field("handshake", &self.client().handshake)
            .finish()
    }
}

impl RemoteFactory {
    /// The first process's client: every process answered the same handshake, and all
    /// share the spec and options.
    fn client(&self) -> &Arc<Client> {
        self.pool.first()
    }

    /// The adapter's handshake answer, parsed.
    pub fn handshake(&self) -> &HandshakeResult {
        &self.client().handshake
    }

    /// The adapter's handshake answer exactly as it arrived (from the first process).
    pub fn raw_handshake(&self) -> &Value {
        &self.client().raw_handshake
    }

    /// The spec this factory was connected with.
    pub fn spec(&self) -> &str {
        &self.client().spec
    }

    /// The transport in use.
    pub fn transport(&self) -> TransportKind {
        self.client().transport.kind()
    }

    /// How many adapter processes serve the namespaces (`RemoteOptions::processes`).
    pub fn processes(&self) -> usize {
        self.pool.members.len()
    }

    /// What each process did so far: namespaces served, calls, restarts.
    pub fn process_stats(&self) -> Vec<ProcessStats> {
        let assigned = self
            .pool
            .assigned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.pool
            .members
            .iter()
            .enumerate()
            .map(|(i, member)| ProcessStats {
                process: i + 1,
                namespaces: assigned.namespaces[i],
                calls: member.calls.load(Ordering::Relaxed),
                restarts: member.transport.stdio().map_or(0, |c| c.restarts()),
            })
            .collect()
    }

    /// One line on a pool's processes (`None` for a single process): for each, the
    /// namespaces it served, its calls and its restarts.
    pub fn pool_line(&self) -> Option<String> {
        if self.pool.members.len() < 2 {
            return None;
        }
        let stats = self.process_stats();
        let each: Vec<String> = stats
            .iter()
            .map(|p| {
                let restarts = match p.restarts {
                    0 => String::new(),
                    1 => ", restarted once".to_string(),
                    n => format!(", restarted {n} times"),
                };
                format!(
                    "#{} {} namespaces, {} calls{restarts}",
                    p.process, p.namespaces, p.calls
                )
            })
            .collect();
        Some(format!(
            "{} adapter processes: {}",
            stats.len(),
            each.join("; ")
        ))
    }

    /// The last 64 KiB of a stdio adapter's stderr (across restarts); `None` over HTTP.
    /// With a pool of processes, each process's tail that is not empty, under a line
    /// naming it.
    pub fn stderr_tail(&self) -> Option<String> {
        let tails: Vec<String> = self
            .pool
            .members
            .iter()
            .filter_map(|member| member.transport.stdio().map(|c| c.stderr_tail()))
            .collect();
        match tails.len() {
            0 => None,
            1 => tails.into_iter().next(),
            n => Some(
                tails
                    .iter()
                    .enumerate()
                    .filter(|(_, tail)| !tail.is_empty())
                    .map(|(i, tail)| format!("[adapter process {} of {n}]\n{tail}", i + 1))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
        }
    }

    /// How many times the stdio adapter has been restarted after a crash (all the
    /// processes of a pool together).
    pub fn restarts(&self) -> u32 {
        self.process_stats().iter().map(|p| p.restarts).sum()
    }

    /// Sends any method with any params and returns the raw result (for protocol checks).
    /// In a pool the call goes to the process that serves the params' `namespace` (the
    /// first process when there is none), and `shutdown` to every process.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, CallError> {
        if method == method::SHUTDOWN && self.pool.members.len() > 1 {
            let mut result = Ok(Value::Null);
            for member in &self.pool.members {
                let outcome = member.call(method, params.clone(), None).await;
                if result.is_ok() {
                    result = outcome.map(|(value, _)| value);
                }
            }
            return result;
        }
        let index = params
            .get("namespace")
            .and_then(Value::as_str)
            .map_or(0, |ns| self.pool.member_for(ns));
        self.pool.members[index]
            .call(method, params, None)
            .await
            .map(|(value, _)| value)
    }

    /// The longest wait for one call: `--adapter-timeout`, or the longer call timeout
    /// the handshake declared when the user did not set one.
    pub fn call_timeout(&self) -> Duration {
        self.client().options.timeout
    }

    /// The most calls the adapter serves at once, as its handshake declared (for a pool,
    /// that many for each process).
    pub fn max_concurrency(&self) -> Option<usize> {
        self.client()
            .handshake
            .max_concurrency
            .filter(|&n| n > 0)
            .map(|n| n.saturating_mul(self.pool.members.len()))
    }

    /// Why the circuit breaker stopped sending calls, once it has (in a pool, the first
    /// process whose breaker opened).
    pub fn circuit_open(&self) -> Option<String> {
        let n = self.pool.members.len();
        self.pool
            .members
            .iter()
            .enumerate()
            .find_map(|(i, m)| m.breaker.open_reason().map(|r| in_process(i, n, r)))
    }

    /// Ends a stdio adapter at the end of a run: a `shutdown` request (unless the
    /// circuit breaker is open) answered within 2 s, then its stdin is closed, then it
    /// gets 2 s to exit before it is killed; every process of a pool at once. An HTTP
    /// server is left running (bemula did not start it).
    pub async fn shutdown_gracefully(&self) {
        let endings: Vec<_> = self
            .pool
            .members
            .iter()
            .map(|member| {
                let member = member.clone();
                tokio::spawn(async move { member.shutdown_gracefully().await })
            })
            .collect();
        for ending in endings {
            let _ = ending.await;
        }
    }

    /// Asks the adapter to stop; for stdio, waits (briefly) for the process to exit and
    /// kills it if it does not.
    pub async fn shutdown(&self) -> Result<(), CallError> {
        let result = self.call(method::SHUTDOWN, json!({})).await.map(|_| ());
        for member in &self.pool.members {
            if let Some(client) = member.transport.stdio() {
                client.close().await;
            }
        }
        result
    }
}

impl Client {
    /// [`RemoteFactory::shutdown_gracefully`] for one process.
    async fn shutdown_gracefully(self: &Arc<Self>) {
        let Some(client) = self.transport.stdio() else {
            return;
        };
        if self.breaker.open_reason().is_none() {
            let _ = self
                .call_within(method::SHUTDOWN, json!({}), None, SHUTDOWN_WAIT)
                .await;
        }
        client.close().await;
    }
}

#[async_trait]
impl SystemFactory for RemoteFactory {
    async fn make(&self, ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        let index = self.pool.member_for(&ns.0);
        Ok(Box::new(RemoteSystem {
            client: self.pool.members[index].clone(),
            generation: None,
            _lease: Lease::new(self.pool.clone(), index),
        }))
    }

    fn info(&self) -> SystemInfo {
        let client = self.client();
        let handshake = &client.handshake;
        let mut settings = handshake.settings.clone();
        settings.insert("protocol".into(), handshake.protocol.clone().into());
        settings.insert("capabilities".into(), json!(handshake.capabilities));
        let transport = match self.transport() {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
        };
        settings.insert("transport".into(), transport.into());
        settings.insert("adapter".into(), client.spec.clone().into());
        // What the adapter says of itself is stored in every report and journal.
        crate::redact::redact_json_map(&mut settings);
        SystemInfo {
            name: crate::redact::redact(&handshake.name).into_owned(),
            version: handshake
                .version
                .as_deref()
                .map(|v| crate::redact::redact(v).into_owned()),
            settings,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handshake_is_checked() {
        let ok = parse_handshake(&json!({
            "protocol": PROTOCOL_VERSION, "name": "x",
            "capabilities": {"query": "memories", "flush": false, "sessions": true}
        }))
        .unwrap();
        assert_eq!(ok.capabilities.query, wire::QueryCapability::Memories);
        let defaulted =
            parse_handshake(&json!({"protocol": PROTOCOL_VERSION, "name": "x"})).unwrap();
        assert_eq!(defaulted.capabilities, wire::Capabilities::default());
        let err =
            parse_handshake(&json!({"protocol": "bemula-adapter/9", "name": "x"})).unwrap_err();
        assert!(err.contains("bemula-adapter/9"), "{err}");
        assert!(parse_handshake(&json!({"name": "x"})).is_err());
        assert!(parse_handshake(&json!({"protocol": PROTOCOL_VERSION})).is_err());
    }

    #[cfg(not(feature = "http"))]
    #[tokio::test]
    async fn http_specs_need_the_http_feature() {
        let err = connect("http://127.0.0.1:1/rpc", &RemoteOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(err, RemoteError::HttpDisabled { .. }), "{err}");
    }

    #[tokio::test]
    async fn bad_specs_are_clear_errors() {
        let err = connect("ftp://x", &RemoteOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(err, RemoteError::BadSpec { .. }), "{err}");
        assert!(err.to_string().contains("ftp://x"));
        let err = connect("cmd:", &RemoteOptions::default())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("cmd:"), "{err}");
        let err = connect("cmd:python3 'unclosed", &RemoteOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(err, RemoteError::BadSpec { .. }), "{err}");
        let err = connect("cmd:/nonexistent/adapter-binary", &RemoteOptions::default())
            .await
            .unwrap_err();
        assert!(matches!(err, RemoteError::Spawn { .. }), "{err}");
    }
}
