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
#[cfg(feature = "http")]
mod http;
pub mod lines;
pub mod loopback;
pub mod preflight;
pub mod probe;
pub mod server;
pub mod stdio;
pub mod wire;

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

enum Transport {
    Stdio(stdio::StdioClient),
    #[cfg(feature = "http")]
    Http(http::HttpClient),
}

impl Transport {
    /// The stdio client, when this is one (the only transport without the `http` feature).
    fn stdio(&self) -> Option<&stdio::StdioClient> {
        match self {
            Transport::Stdio(client) => Some(client),
            #[cfg(feature = "http")]
            Transport::Http(_) => None,
        }
    }

    /// Makes sure no write still in flight is carried out: a stdio adapter's process
    /// is replaced (the next call starts a new one); over HTTP, the calls were cut off
    /// by closing their connections already.
    async fn cut_off_late_writes(&self) {
        match self {
            Transport::Stdio(client) => client.replace_process().await,
            #[cfg(feature = "http")]
            Transport::Http(_) => {}
        }
    }

    /// How long a reset waits for a late write of its namespace (see [`LateWrites`]).
    fn late_write_wait(&self, timeout: Duration) -> Duration {
        match self {
            Transport::Stdio(_) => timeout,
            #[cfg(feature = "http")]
            Transport::Http(_) => timeout.saturating_mul(LATE_WRITE_FACTOR),
        }
    }

    /// One attempt of a call; returns the result and the adapter generation that served it.
    async fn call_once(
        &self,
        method: &str,
        params: &Value,
        expect_generation: Option<u64>,
        timeout: Duration,
    ) -> Result<(Value, u64), CallError> {
        match self {
            Transport::Stdio(client) => {
                client
                    .call(method, params, expect_generation, timeout)
                    .await
            }
            #[cfg(feature = "http")]
            Transport::Http(client) => client
                .call(method, params, timeout)
                .await
                .map(|value| (value, 0)),
        }
    }
}

struct Client {
    spec: String,
    options: RemoteOptions,
    transport: Transport,
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
        transport: Transport,
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

/// The adapter processes behind one factory (one, unless a pool was asked for) and the
/// process that serves each namespace.
struct Pool {
    members: Vec<Arc<Client>>,
    assigned: Mutex<Assignment>,
    /// Handles alive per member ([`Lease`]s): a new namespace goes to the least busy.
    live: Vec<AtomicUsize>,
}

/// Which member serves each namespace: fixed at the namespace's first call, for the
/// whole run, so its state stays in one process (a restarted pass comes back to it).
#[derive(Default)]
struct Assignment {
    by_namespace: HashMap<String, usize>,
    namespaces: Vec<usize>,
}

impl Pool {
    fn new(members: Vec<Arc<Client>>) -> Pool {
        let n = members.len();
        Pool {
            members,
            assigned: Mutex::new(Assignment {
                by_namespace: HashMap::new(),
                namespaces: vec![0; n],
            }),
            live: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    fn first(&self) -> &Arc<Client> {
        &self.members[0]
    }

    /// The member serving `namespace`; a namespace seen for the first time goes to the
    /// member with the fewest handles alive, then the fewest namespaces, then the first.
    fn member_for(&self, namespace: &str) -> usize {
        if self.members.len() == 1 {
            return 0;
        }
        let mut assigned = self
            .assigned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&index) = assigned.by_namespace.get(namespace) {
            return index;
        }
        let index = (0..self.members.len())
            .min_by_key(|&i| {
                (
                    self.live[i].load(Ordering::Relaxed),
                    assigned.namespaces[i],
                    i,
                )
            })
            .unwrap_or(0);
        assigned.namespaces[index] += 1;
        assigned.by_namespace.insert(namespace.to_string(), index);
        index
    }
}

/// A namespace's hold on its pool member while its handle is alive.
struct Lease {
    pool: Arc<Pool>,
    index: usize,
}

impl Lease {
    fn new(pool: Arc<Pool>, index: usize) -> Lease {
        pool.live[index].fetch_add(1, Ordering::Relaxed);
        Lease { pool, index }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.pool.live[self.index].fetch_sub(1, Ordering::Relaxed);
    }
}

/// What one process of an adapter did in a run ([`RemoteFactory::process_stats`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ProcessStats {
    /// Its place in the pool, from 1 (the `BEMULA_ADAPTER_PROCESS` it was started with).
    pub process: usize,
    /// The namespaces it served (the preflight's canary namespaces included).
    pub namespaces: usize,
    /// The calls sent to it.
    pub calls: u64,
    /// How many times it was restarted after a crash.
    pub restarts: u32,
}

/// How long a write that timed out for its caller goes on, as a multiple of the call
/// timeout.
pub const LATE_WRITE_FACTOR: u32 = 5;

/// Writes (`reset`, `observe`, …) that timed out for their caller but may still be
/// carried out by the adapter, by namespace. A `reset` of the namespace first waits
/// until each has been answered or has failed for good. A stdio adapter's write is
/// waited for up to one more call timeout, then cut off by replacing the process (the
/// namespaces it held restart their passes); an HTTP write, whose server cannot be
/// stopped from here, is waited for as long as it goes on ([`LATE_WRITE_FACTOR`]
/// timeouts), then its connection is closed. So a late write never lands in memory
/// after the reset that restarts its pass: between two resets a turn is observed at
/// most once.
#[derive(Default)]
struct LateWrites {
    by_namespace: std::sync::Mutex<std::collections::HashMap<String, Vec<JoinHandle<bool>>>>,
}

type JoinHandle<T> = tokio::task::JoinHandle<T>;

impl LateWrites {
    fn add(&self, namespace: &str, call: JoinHandle<bool>) {
        self.by_namespace
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(namespace.to_string())
            .or_default()
            .push(call);
    }

    /// Waits up to `wait` for the late writes of `namespace`; whether every one came
    /// to an end the adapter saw (an answer, an error, a closed connection). Those
    /// still running are cut off.
    async fn settle(&self, namespace: &str, wait: Duration) -> bool {
        let calls = self
            .by_namespace
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(namespace)
            .unwrap_or_default();
        if calls.is_empty() {
            return true;
        }
        let aborts: Vec<_> = calls.iter().map(JoinHandle::abort_handle).collect();
        let all = async {
            let mut settled = true;
            for call in calls {
                settled &= call.await.unwrap_or(false);
            }
            settled
        };
        match tokio::time::timeout(wait, all).await {
            Ok(settled) => settled,
            Err(_) => {
                aborts.iter().for_each(tokio::task::AbortHandle::abort);
                false
            }
        }
    }
}

/// Whether `method` changes a namespace's memory.
fn is_write(method: &str) -> bool {
    matches!(
        method,
        method::RESET
            | method::START_SESSION
            | method::OBSERVE
            | method::END_SESSION
            | method::FLUSH
    )
}

/// Counts consecutive timeouts; past the limit it opens for good and says why.
#[derive(Default)]
struct Breaker {
    consecutive: AtomicU32,
    open: std::sync::Mutex<Option<String>>,
}

impl Breaker {
    fn open_reason(&self) -> Option<String> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Notes the outcome of one call.
    fn note(&self, spec: &str, limit: u32, outcome: &Result<(Value, u64), CallError>) {
        match outcome {
            Err(err) if err.kind == ErrorKind::Timeout && err.code.is_none() => {
                let n = self.consecutive.fetch_add(1, Ordering::Relaxed) + 1;
                if limit > 0 && n >= limit {
                    let mut open = self
                        .open
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    open.get_or_insert_with(|| {
                        format!(
                            "adapter `{spec}` did not answer {n} calls in a row within the \
                             timeout; the remaining calls were not sent (circuit breaker)"
                        )
                    });
                }
            }
            Ok(_) => self.consecutive.store(0, Ordering::Relaxed),
            Err(_) => {}
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

/// The parameters of the handshake this client sends.
pub(crate) fn handshake_params() -> Value {
    json!({
        "protocol": PROTOCOL_VERSION,
        "client": {"name": "bemula", "version": env!("CARGO_PKG_VERSION")},
    })
}

/// Checks a handshake answer: the protocol version must match and the shape must parse.
pub(crate) fn parse_handshake(value: &Value) -> Result<HandshakeResult, String> {
    let protocol = value.get("protocol").and_then(Value::as_str);
    match protocol {
        Some(PROTOCOL_VERSION) => {}
        Some(other) => {
            return Err(format!(
                "adapter speaks protocol `{other}`, this client speaks `{PROTOCOL_VERSION}`"
            ));
        }
        None => {
            return Err(format!(
                "handshake result has no `protocol` string: {}",
                wire::brief(value)
            ));
        }
    }
    let mut value = value.clone();
    // Capabilities may be left out; the defaults assume the most work.
    if let Value::Object(obj) = &mut value {
        obj.entry("capabilities")
            .or_insert_with(|| json!(wire::Capabilities::default()));
    }
    serde_json::from_value(value).map_err(|e| format!("malformed handshake result: {e}"))
}

/// The options with the call timeout the handshake declares, where it is longer than
/// the default: `max(declared, options.timeout)`, unless the user set the timeout
/// (then it holds, and a warning names what the adapter asked for).
fn with_declared_timeout(
    spec: &str,
    options: &RemoteOptions,
    handshake: &HandshakeResult,
) -> RemoteOptions {
    let mut options = options.clone();
    let Some(declared) = handshake.timeouts.as_ref().and_then(|t| t.call_s) else {
        return options;
    };
    let Ok(declared) = Duration::try_from_secs_f64(declared) else {
        eprintln!(
            "bemula: adapter `{}` declares timeouts.call_s {declared}, which is not a number of seconds; ignored",
            crate::terminal::inline(spec)
        );
        return options;
    };
    if declared <= options.timeout {
        return options;
    }
    if options.timeout_explicit {
        eprintln!(
            "bemula: adapter `{}` asks for a call timeout of {} s; --adapter-timeout {} s holds (leave it out to use the adapter's)",
            crate::terminal::inline(spec),
            declared.as_secs_f64(),
            options.timeout.as_secs_f64()
        );
    } else {
        options.timeout = declared;
    }
    options
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

/// Connects to the adapter named by `spec` (`cmd:…` or `http(s)://…`) and runs the
/// handshake; with `options.processes` above 1, starts that many copies of a stdio
/// adapter, which must all answer the same handshake. A failure names the spec and says
/// what went wrong.
pub async fn connect(spec: &str, options: &RemoteOptions) -> Result<RemoteFactory, RemoteError> {
    let bad = |reason: &str| RemoteError::BadSpec {
        spec: spec.to_string(),
        reason: reason.to_string(),
    };
    if options.max_in_flight == 0 {
        return Err(bad("max_in_flight must be at least 1"));
    }
    if options.processes == 0 {
        return Err(bad("the number of adapter processes must be at least 1"));
    }
    let started = if let Some(command) = spec.strip_prefix("cmd:") {
        start_processes(spec, command, options).await?
    } else if spec.starts_with("http://") || spec.starts_with("https://") {
        if options.processes > 1 {
            return Err(bad(
                "a pool of adapter processes (--adapter-processes) is for stdio adapters \
                 (`cmd:…`); an HTTP adapter's server decides how many calls it serves at once",
            ));
        }
        vec![http_transport(spec, options).await?]
    } else {
        return Err(bad(
            "expected `cmd:<command line>` or an `http://` / `https://` URL",
        ));
    };
    let mut members = Vec::with_capacity(started.len());
    let mut settled: Option<RemoteOptions> = None;
    let mut first: Option<HandshakeResult> = None;
    for (index, (transport, raw)) in started.into_iter().enumerate() {
        let handshake = match parse_handshake(&raw) {
            Ok(handshake) => handshake,
            Err(message) => {
                close_all(&members, Some(&transport)).await;
                return Err(RemoteError::Handshake {
                    spec: spec.to_string(),
                    message: in_process(index, options.processes, message),
                });
            }
        };
        if let Some(first) = &first
            && let Some(difference) = handshake_difference(first, &handshake)
        {
            close_all(&members, Some(&transport)).await;
            return Err(RemoteError::Handshake {
                spec: spec.to_string(),
                message: format!(
                    "the processes of the pool answered different handshakes: {difference} \
                     (process 1 and process {})",
                    index + 1
                ),
            });
        }
        // The declared timeout is read (and warned about) once, from the first process.
        let member_options = settled
            .get_or_insert_with(|| with_declared_timeout(spec, options, &handshake))
            .clone();
        first.get_or_insert_with(|| handshake.clone());
        members.push(Arc::new(Client::new(
            spec,
            member_options,
            transport,
            handshake,
            raw,
        )));
    }
    Ok(RemoteFactory {
        pool: Arc::new(Pool::new(members)),
    })
}

/// `message`, naming the process when there is a pool of them.
fn in_process(index: usize, processes: usize, message: String) -> String {
    if processes > 1 {
        format!("process {} of {processes}: {message}", index + 1)
    } else {
        message
    }
}

/// What differs between two processes' handshakes, in what the runner relies on.
fn handshake_difference(a: &HandshakeResult, b: &HandshakeResult) -> Option<String> {
    if a.name != b.name {
        return Some(format!("name {:?} and {:?}", a.name, b.name));
    }
    if a.protocol != b.protocol {
        return Some(format!("protocol {:?} and {:?}", a.protocol, b.protocol));
    }
    if a.capabilities != b.capabilities {
        return Some(format!(
            "capabilities {} and {}",
            json!(a.capabilities),
            json!(b.capabilities)
        ));
    }
    None
}

/// Starts the processes of a stdio adapter side by side (an interpreter and its
/// libraries may take seconds to load), each with its handshake. When one fails, the
/// others are closed and the first failure is returned.
async fn start_processes(
    spec: &str,
    command: &str,
    options: &RemoteOptions,
) -> Result<Vec<(Transport, Value)>, RemoteError> {
    let n = options.processes;
    if n == 1 {
        let (client, raw) = stdio::StdioClient::start(spec, command, options, None).await?;
        return Ok(vec![(Transport::Stdio(client), raw)]);
    }
    let tasks: Vec<_> = (0..n)
        .map(|index| {
            let (spec, command, options) = (spec.to_string(), command.to_string(), options.clone());
            tokio::spawn(async move {
                stdio::StdioClient::start(&spec, &command, &options, Some((index + 1, n))).await
            })
        })
        .collect();
    let mut started = Vec::with_capacity(n);
    let mut failure = None;
    for (index, task) in tasks.into_iter().enumerate() {
        match task.await {
            Ok(Ok((client, raw))) => started.push((Transport::Stdio(client), raw)),
            Ok(Err(err)) => {
                failure.get_or_insert(match err {
                    RemoteError::Spawn { spec, message } => RemoteError::Spawn {
                        spec,
                        message: in_process(index, n, message),
                    },
                    RemoteError::Handshake { spec, message } => RemoteError::Handshake {
                        spec,
                        message: in_process(index, n, message),
                    },
                    other => other,
                });
            }
            Err(join) => {
                failure.get_or_insert(RemoteError::Spawn {
                    spec: spec.to_string(),
                    message: in_process(index, n, format!("its start was cut short: {join}")),
                });
            }
        }
    }
    match failure {
        None => Ok(started),
        Some(err) => {
            for client in started
                .iter()
                .filter_map(|(transport, _)| transport.stdio())
            {
                client.close().await;
            }
            Err(err)
        }
    }
}

/// Closes the stdio processes started so far when a pool cannot be made.
async fn close_all(members: &[Arc<Client>], also: Option<&Transport>) {
    let transports = members.iter().map(|m| &m.transport).chain(also);
    for client in transports.filter_map(Transport::stdio) {
        client.close().await;
    }
}

#[cfg(feature = "http")]
async fn http_transport(
    spec: &str,
    options: &RemoteOptions,
) -> Result<(Transport, Value), RemoteError> {
    let client = http::HttpClient::new(spec, options.max_message_bytes)?;
    let mut attempt = 0;
    loop {
        match client
            .call(
                method::HANDSHAKE,
                &handshake_params(),
                options.timeout.max(HANDSHAKE_TIMEOUT),
            )
            .await
        {
            Ok(raw) => return Ok((Transport::Http(client), raw)),
            Err(err) if err.retryable && attempt < options.retries => {
                let policy = RetryPolicy::with_retries(options.retries);
                tokio::time::sleep(policy.backoff(attempt, err.retry_after)).await;
                attempt += 1;
            }
            Err(err) => {
                return Err(RemoteError::Handshake {
                    spec: spec.to_string(),
                    message: err.to_string(),
                });
            }
        }
    }
}

#[cfg(not(feature = "http"))]
async fn http_transport(
    spec: &str,
    _options: &RemoteOptions,
) -> Result<(Transport, Value), RemoteError> {
    Err(RemoteError::HttpDisabled {
        spec: spec.to_string(),
    })
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
        match self.client().transport {
            Transport::Stdio(_) => TransportKind::Stdio,
            #[cfg(feature = "http")]
            Transport::Http(_) => TransportKind::Http,
        }
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

/// One namespace's handle on a remote system; all handles share the factory's
/// connection (in a pool, the one process that serves the namespace).
///
/// A stdio adapter that was restarted after a crash has lost every namespace's memory; a
/// handle whose namespace was reset on the old process then fails its calls as
/// [`ErrorKind::Crashed`] until the namespace is reset again, so lost memory never reads
/// as forgetting.
pub struct RemoteSystem {
    client: Arc<Client>,
    generation: Option<u64>,
    _lease: Lease,
}

impl RemoteSystem {
    async fn call(&self, method: &str, params: Value) -> SystemResult<Value> {
        let (value, _) = self.client.call(method, params, self.generation).await?;
        Ok(value)
    }
}

#[async_trait]
impl AsyncMemorySystem for RemoteSystem {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        let (_, generation) = self
            .client
            .call(method::RESET, json!({ "namespace": ns }), None)
            .await?;
        self.generation = Some(generation);
        Ok(())
    }

    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.call(
            method::START_SESSION,
            json!({ "namespace": ns, "session": session }),
        )
        .await
        .map(drop)
    }

    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.call(method::OBSERVE, json!({ "namespace": ns, "turn": turn }))
            .await
            .map(drop)
    }

    async fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.call(method::END_SESSION, json!({ "namespace": ns }))
            .await
            .map(drop)
    }

    async fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.call(method::FLUSH, json!({ "namespace": ns }))
            .await
            .map(drop)
    }

    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        let value = self
            .call(
                method::QUERY,
                json!({ "namespace": ns, "question": question }),
            )
            .await?;
        wire::parse_query_result(&value).map_err(|message| {
            SystemError::new(
                ErrorKind::Protocol,
                format!("adapter `{}`: {message}", self.client.spec),
            )
        })
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
