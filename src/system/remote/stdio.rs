//! The stdio transport: an adapter process spawned from a command line (split like a
//! shell splits words, never run by a shell), one JSON-RPC message per line on its stdin
//! and stdout, concurrent calls multiplexed by id.
//!
//! The process's stderr is kept as a bounded tail ([`STDERR_TAIL_BYTES`]). When the
//! process dies, the calls in flight fail as [`ErrorKind::Crashed`] and the next call
//! restarts it (with a fresh handshake), at most `restart_limit` times.

use super::lines::{self, Line};
use super::wire::{self, method};
use super::{CallError, RemoteError, RemoteOptions, Transport, TransportKind};
use crate::system::ErrorKind;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::oneshot;

/// Introduces the adapter's last stderr lines in an error message.
const STDERR_NOTE: &str = "adapter stderr ends with:";

/// How much of an adapter's stderr is kept.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;

/// What a caller receives: the adapter's outcome (result or error object), or a
/// transport failure.
type Waiter = oneshot::Sender<Result<Result<Value, wire::RpcError>, CallError>>;

/// Calls awaiting their response from one process.
#[derive(Default)]
struct Pending {
    alive: bool,
    waiters: HashMap<u64, Waiter>,
    /// Ids of calls that timed out: a late answer to one of them is dropped quietly;
    /// any other id without a waiter is a protocol error.
    abandoned: HashSet<u64>,
}

/// Most timed-out ids remembered; past it the set is cleared (a late answer then reads
/// as an unknown id, which fails the calls in flight: safe, never silent).
const MAX_ABANDONED: usize = 100_000;

/// One running adapter process.
struct Proc {
    generation: u64,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    pending: Arc<Mutex<Pending>>,
    child: Arc<tokio::sync::Mutex<Child>>,
}

impl Proc {
    fn is_alive(&self) -> bool {
        lock(&self.pending).alive
    }
}

struct State {
    proc: Option<Arc<Proc>>,
    generation: u64,
    restarts: u32,
}

/// A client for one adapter command; restarts the process after a crash.
pub(crate) struct StdioClient {
    spec: String,
    argv: Vec<String>,
    state: tokio::sync::Mutex<State>,
    next_id: AtomicU64,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    restarts: AtomicU64,
    restart_limit: u32,
    timeout: Duration,
    max_message_bytes: usize,
    /// Extra environment of the process: its place in a pool of processes.
    env: Vec<(&'static str, String)>,
}

/// The environment variable that tells a pooled adapter process its index (1-based).
pub const PROCESS_ENV: &str = "BEMULA_ADAPTER_PROCESS";
/// The environment variable that tells a pooled adapter process the pool's size.
pub const PROCESSES_ENV: &str = "BEMULA_ADAPTER_PROCESSES";

/// Locks a std mutex, recovering the data if a holder panicked (the data stays valid:
/// every critical section leaves it consistent).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl StdioClient {
    /// Splits the command, starts the process and runs the handshake; returns the
    /// client and the raw handshake result. `member` is the process's place in a pool,
    /// `(index, size)` with a 1-based index: the process (and each restart of it) gets
    /// them as [`PROCESS_ENV`] and [`PROCESSES_ENV`].
    pub(crate) async fn start(
        spec: &str,
        command: &str,
        options: &RemoteOptions,
        member: Option<(usize, usize)>,
    ) -> Result<(StdioClient, Value), RemoteError> {
        let bad = |reason: &str| RemoteError::BadSpec {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let argv = shlex::split(command)
            .ok_or_else(|| bad("the command line has an unclosed quote or a stray escape"))?;
        if argv.is_empty() {
            return Err(bad("the command line after `cmd:` is empty"));
        }
        let client = StdioClient {
            spec: spec.to_string(),
            argv,
            state: tokio::sync::Mutex::new(State {
                proc: None,
                generation: 0,
                restarts: 0,
            }),
            next_id: AtomicU64::new(1),
            stderr: Arc::new(Mutex::new(VecDeque::new())),
            restarts: AtomicU64::new(0),
            restart_limit: options.restart_limit,
            timeout: options.timeout,
            max_message_bytes: options.max_message_bytes,
            env: member
                .map(|(index, size)| {
                    vec![
                        (PROCESS_ENV, index.to_string()),
                        (PROCESSES_ENV, size.to_string()),
                    ]
                })
                .unwrap_or_default(),
        };
        let mut state = client.state.lock().await;
        let proc = client
            .spawn(state.generation + 1)
            .map_err(|message| RemoteError::Spawn {
                spec: spec.to_string(),
                message,
            })?;
        let raw = client
            .handshake(&proc)
            .await
            .map_err(|err| RemoteError::Handshake {
                spec: spec.to_string(),
                message: client.with_stderr(err.to_string()),
            })?;
        state.generation = proc.generation;
        state.proc = Some(proc);
        drop(state);
        Ok((client, raw))
    }

    /// The last [`STDERR_TAIL_BYTES`] of the adapter's stderr, as text.
    pub(crate) fn stderr_tail(&self) -> String {
        let tail = lock(&self.stderr);
        let (a, b) = tail.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        crate::redact::redact(&String::from_utf8_lossy(&bytes)).into_owned()
    }

    /// How many times the process was restarted.
    pub(crate) fn restarts(&self) -> u32 {
        self.restarts.load(Ordering::Relaxed) as u32
    }

    /// A message with the last lines of stderr appended, when there are any (once: a
    /// message that already carries them is returned as it is).
    fn with_stderr(&self, message: String) -> String {
        if message.contains(STDERR_NOTE) {
            return message;
        }
        let tail = self.stderr_tail();
        let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.is_empty() {
            return message;
        }
        let last = &lines[lines.len().saturating_sub(5)..];
        format!("{message}; {STDERR_NOTE} {}", last.join(" | "))
    }

    fn spawn(&self, generation: u64) -> Result<Arc<Proc>, String> {
        let mut command = Command::new(&self.argv[0]);
        command
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .kill_on_drop(true);
        // A process group of its own: a Ctrl-C at the terminal reaches bemula, which
        // lets the passes in flight finish, and not the adapter, which would die under
        // them. The adapter ends when bemula closes its standard input.
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run `{}`: {e}", self.argv[0]))?;
        let stdin = child.stdin.take().ok_or("the child has no stdin pipe")?;
        let stdout = child.stdout.take().ok_or("the child has no stdout pipe")?;
        let stderr_task = child.stderr.take().map(|mut stderr| {
            let tail = self.stderr.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let mut tail = lock(&tail);
                    tail.extend(&buf[..n]);
                    let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
                    tail.drain(..excess);
                }
            })
        });
        let pending = Arc::new(Mutex::new(Pending {
            alive: true,
            ..Pending::default()
        }));
        let child = Arc::new(tokio::sync::Mutex::new(child));
        tokio::spawn(read_responses(
            stdout,
            pending.clone(),
            child.clone(),
            self.stderr.clone(),
            stderr_task,
            self.max_message_bytes,
        ));
        Ok(Arc::new(Proc {
            generation,
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            pending,
            child,
        }))
    }

    async fn handshake(&self, proc: &Proc) -> Result<Value, CallError> {
        self.send(
            proc,
            method::HANDSHAKE,
            &super::handshake_params(),
            self.timeout.max(super::HANDSHAKE_TIMEOUT),
        )
        .await
    }

    /// The live process, started or restarted as needed. A call for a namespace whose
    /// state lives in an older process fails: that state is gone.
    async fn live_proc(&self, expect_generation: Option<u64>) -> Result<Arc<Proc>, CallError> {
        let mut state = self.state.lock().await;
        if let Some(proc) = &state.proc
            && proc.is_alive()
            && expect_generation.is_none_or(|g| g == proc.generation)
        {
            return Ok(proc.clone());
        }
        if let Some(generation) = expect_generation
            && state
                .proc
                .as_ref()
                .is_none_or(|p| p.generation != generation || !p.is_alive())
        {
            return Err(CallError::new(
                ErrorKind::Crashed,
                format!(
                    "adapter `{}` crashed since this namespace was reset, so its memory is \
                     lost; reset the namespace again",
                    self.spec
                ),
            ));
        }
        if state.restarts >= self.restart_limit {
            return Err(CallError::new(
                ErrorKind::Crashed,
                self.with_stderr(format!(
                    "adapter `{}` crashed and was restarted {} times (the limit); giving up",
                    self.spec, state.restarts
                )),
            ));
        }
        state.restarts += 1;
        self.restarts
            .store(u64::from(state.restarts), Ordering::Relaxed);
        {
            let mut tail = lock(&self.stderr);
            tail.extend(b"\n--- bemula: adapter restarted ---\n");
        }
        let proc = self
            .spawn(state.generation + 1)
            .map_err(|message| CallError::new(ErrorKind::Connection, message))?;
        state.generation = proc.generation;
        state.proc = Some(proc.clone());
        self.handshake(&proc).await.map_err(|err| {
            CallError::new(
                ErrorKind::Crashed,
                self.with_stderr(format!(
                    "adapter `{}` was restarted but its handshake failed: {err}",
                    self.spec
                )),
            )
        })?;
        Ok(proc)
    }

    /// One call; returns the result and the generation of the process that served it.
    pub(crate) async fn call(
        &self,
        method: &str,
        params: &Value,
        expect_generation: Option<u64>,
        timeout: Duration,
    ) -> Result<(Value, u64), CallError> {
        let proc = self.live_proc(expect_generation).await?;
        let value = self.send(&proc, method, params, timeout).await?;
        Ok((value, proc.generation))
    }

    async fn send(
        &self,
        proc: &Proc,
        method: &str,
        params: &Value,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = lock(&proc.pending);
            if !pending.alive {
                return Err(CallError::new(
                    ErrorKind::Crashed,
                    self.with_stderr(format!("adapter `{}` exited", self.spec)),
                ));
            }
            pending.waiters.insert(id, tx);
        }
        let mut line = wire::request(Some(id), method, params.clone()).to_string();
        line.push('\n');
        let exchange = async {
            {
                let mut stdin = proc.stdin.lock().await;
                let Some(pipe) = stdin.as_mut() else {
                    return Err(CallError::new(
                        ErrorKind::Connection,
                        format!("adapter `{}` is closed", self.spec),
                    ));
                };
                let written = async {
                    pipe.write_all(line.as_bytes()).await?;
                    pipe.flush().await
                };
                if let Err(e) = written.await {
                    return Err(CallError::new(
                        ErrorKind::Crashed,
                        self.with_stderr(format!(
                            "could not write `{method}` to adapter `{}`: {e}",
                            self.spec
                        )),
                    ));
                }
            }
            match rx.await {
                Ok(Ok(Ok(value))) => Ok(value),
                Ok(Ok(Err(error))) => Err(CallError::from_rpc(method, &error)),
                Ok(Err(mut err)) => {
                    err.message = format!("during `{method}`: {}", err.message);
                    if err.kind == ErrorKind::Crashed {
                        err.message = self.with_stderr(err.message);
                    }
                    Err(err)
                }
                Err(_) => Err(CallError::new(
                    ErrorKind::Crashed,
                    self.with_stderr(format!("adapter `{}` exited during `{method}`", self.spec)),
                )),
            }
        };
        match tokio::time::timeout(timeout, exchange).await {
            Ok(result) => {
                lock(&proc.pending).waiters.remove(&id);
                result
            }
            Err(_) => {
                {
                    let mut pending = lock(&proc.pending);
                    if pending.waiters.remove(&id).is_some() {
                        if pending.abandoned.len() >= MAX_ABANDONED {
                            pending.abandoned.clear();
                        }
                        pending.abandoned.insert(id);
                    }
                }
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

    /// Kills the running process, so that a write it may still carry out never lands;
    /// the next call starts a new one (the namespaces of the old one then fail as
    /// crashed, and their passes restart).
    pub(crate) async fn replace_process(&self) {
        let proc = self.state.lock().await.proc.clone();
        let Some(proc) = proc else { return };
        {
            let mut tail = lock(&self.stderr);
            tail.extend(
                b"\n--- bemula: adapter stopped: a write that timed out was still unanswered ---\n",
            );
        }
        // Seen dead at once, so the next call starts the new process.
        lock(&proc.pending).alive = false;
        let _ = proc.child.lock().await.kill().await;
    }

    /// Closes stdin and waits up to [`super::SHUTDOWN_WAIT`] for the process to exit,
    /// then kills it.
    pub(crate) async fn close(&self) {
        let proc = self.state.lock().await.proc.take();
        let Some(proc) = proc else { return };
        proc.stdin.lock().await.take();
        let mut child = proc.child.lock().await;
        if tokio::time::timeout(super::SHUTDOWN_WAIT, child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    }
}

/// Reads the adapter's stdout line by line and hands each response to its caller.
async fn read_responses(
    stdout: ChildStdout,
    pending: Arc<Mutex<Pending>>,
    child: Arc<tokio::sync::Mutex<Child>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    max_message_bytes: usize,
) {
    let mut reader = BufReader::new(stdout);
    let (mut buf, mut tail) = (Vec::new(), Vec::new());
    loop {
        match lines::read_line_edges(&mut reader, &mut buf, max_message_bytes, &mut tail).await {
            Ok(Line::Eof) | Err(_) => break,
            Ok(Line::Read) => {}
            Ok(Line::TooLong(length)) => {
                let message = format!(
                    "adapter wrote a line of {length} bytes to stdout, over the limit of \
                     {max_message_bytes} bytes (--max-message-bytes); it was discarded"
                );
                // The line's id, read from its ends, names the one call it answers:
                // only that call fails, and the stream stays in step for the others.
                let id = lines::id_from_edges(&buf, &tail);
                let (waiter, late) = match id {
                    Some(id) => {
                        let mut pending = lock(&pending);
                        let waiter = pending.waiters.remove(&id);
                        let late = waiter.is_none() && pending.abandoned.remove(&id);
                        (waiter, late)
                    }
                    None => (None, false),
                };
                match waiter {
                    Some(waiter) => {
                        let _ = waiter.send(Err(CallError::new(ErrorKind::Protocol, message)));
                    }
                    None if late => {}
                    None => fail_all(&pending, ErrorKind::Protocol, &message),
                }
                continue;
            }
        }
        let text = match std::str::from_utf8(&buf) {
            Ok(text) => text.trim(),
            Err(_) => {
                fail_all(
                    &pending,
                    ErrorKind::Protocol,
                    "adapter wrote a line that is not UTF-8",
                );
                continue;
            }
        };
        if text.is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(_) => {
                fail_all(
                    &pending,
                    ErrorKind::Protocol,
                    &format!(
                        "adapter wrote a line to stdout that is not JSON: {:?} (adapters must log \
                         to stderr)",
                        wire::shorten(text, 120)
                    ),
                );
                continue;
            }
        };
        let numeric_id = value.get("id").and_then(Value::as_u64);
        match wire::parse_response(value.clone()) {
            Ok(response) => {
                let id = response.id.as_u64();
                match (id, response.outcome) {
                    (Some(id), outcome) => {
                        let (waiter, late) = {
                            let mut pending = lock(&pending);
                            let waiter = pending.waiters.remove(&id);
                            let late = waiter.is_none() && pending.abandoned.remove(&id);
                            (waiter, late)
                        };
                        match waiter {
                            Some(waiter) => {
                                let _ = waiter.send(Ok(outcome));
                            }
                            // The late answer of a call that timed out.
                            None if late => {}
                            None => fail_all(
                                &pending,
                                ErrorKind::Protocol,
                                &format!(
                                    "adapter sent a response with id {id}, which answers no call \
                                     in flight (an unknown or duplicate id): {}",
                                    wire::brief(&value)
                                ),
                            ),
                        }
                    }
                    (None, Err(error)) => fail_all(
                        &pending,
                        ErrorKind::Protocol,
                        &format!(
                            "adapter could not read a request: error {}: {}",
                            error.code, error.message
                        ),
                    ),
                    (None, Ok(_)) => fail_all(
                        &pending,
                        ErrorKind::Protocol,
                        &format!(
                            "adapter sent a result with a foreign id: {}",
                            wire::brief(&value)
                        ),
                    ),
                }
            }
            Err(reason) => {
                let message = format!(
                    "adapter sent a message that is not a JSON-RPC response ({reason}): {}",
                    wire::brief(&value)
                );
                let waiter = numeric_id.and_then(|id| lock(&pending).waiters.remove(&id));
                match waiter {
                    Some(waiter) => {
                        let _ = waiter.send(Err(CallError::new(ErrorKind::Protocol, message)));
                    }
                    None => fail_all(&pending, ErrorKind::Protocol, &message),
                }
            }
        }
    }
    // End of stdout: the process is gone (or closed its stdout, which is as bad).
    let waiters: Vec<Waiter> = {
        let mut pending = lock(&pending);
        pending.alive = false;
        pending.waiters.drain().map(|(_, w)| w).collect()
    };
    let status = {
        let mut child = child.lock().await;
        match tokio::time::timeout(Duration::from_secs(1), child.wait()).await {
            Ok(Ok(status)) => format!("exited with {status}"),
            Ok(Err(e)) => format!("exited (status unknown: {e})"),
            Err(_) => {
                let _ = child.kill().await;
                "closed its stdout and was killed".to_string()
            }
        }
    };
    // Let the last words on stderr arrive before the failures are reported.
    if let Some(task) = stderr_task {
        let _ = tokio::time::timeout(Duration::from_millis(500), task).await;
    }
    let message = format!("adapter process {status}");
    {
        let mut tail = lock(&stderr);
        tail.extend(format!("\n--- bemula: {message} ---\n").as_bytes());
    }
    for waiter in waiters {
        let _ = waiter.send(Err(CallError::new(ErrorKind::Crashed, message.clone())));
    }
}

/// Fails every call in flight: a line that cannot be attributed to one call makes the
/// whole stream untrustworthy for them.
fn fail_all(pending: &Mutex<Pending>, kind: ErrorKind, message: &str) {
    let waiters: Vec<Waiter> = {
        let mut pending = lock(pending);
        let failed: Vec<(u64, Waiter)> = pending.waiters.drain().collect();
        // Their real answers may still come: those are dropped quietly.
        if pending.abandoned.len() + failed.len() > MAX_ABANDONED {
            pending.abandoned.clear();
        }
        pending.abandoned.extend(failed.iter().map(|(id, _)| *id));
        failed.into_iter().map(|(_, w)| w).collect()
    };
    for waiter in waiters {
        let _ = waiter.send(Err(CallError::new(kind, message)));
    }
}
#[async_trait::async_trait]
impl Transport for StdioClient {
    fn kind(&self) -> TransportKind {
        TransportKind::Stdio
    }

    fn stdio(&self) -> Option<&StdioClient> {
        Some(self)
    }

    async fn cut_off_late_writes(&self) {
        self.replace_process().await;
    }

    /// A stdio adapter's late write is cut off by replacing its process, so a reset
    /// waits at most one call's timeout.
    fn late_write_wait(&self, timeout: Duration) -> Duration {
        timeout
    }

    async fn call_once(
        &self,
        method: &str,
        params: &Value,
        expect_generation: Option<u64>,
        timeout: Duration,
    ) -> Result<(Value, u64), CallError> {
        self.call(method, params, expect_generation, timeout).await
    }
}
