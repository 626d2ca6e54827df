//! The adapter client's flags of `bemula run` and `bemula test`; the specs themselves
//! are resolved by [`crate::run::select`], for the harness too.

pub use crate::run::select::*;
use crate::system::remote::{self, RemoteOptions};

type Error = Box<dyn std::error::Error>;

/// `--adapter-timeout` when neither the user nor the adapter says otherwise, seconds.
const DEFAULT_ADAPTER_TIMEOUT: f64 = 60.0;

/// The adapter client's flags, shared by `bemula run` and `bemula test`.
#[derive(Debug, Clone, clap::Args)]
pub struct AdapterArgs {
    /// Longest wait for one adapter call, in seconds [default: 60, or the longer call
    /// timeout the adapter's handshake declares]. A stuck adapter costs at most this
    /// long: the circuit breaker (`--adapter-breaker`) then fails the rest at once. Set
    /// explicitly, it holds even when the adapter asks for more.
    #[arg(long, value_name = "SECS")]
    pub adapter_timeout: Option<f64>,
    /// Largest message accepted from an adapter (one stdio line, one HTTP body), in
    /// bytes; a larger one is a protocol error.
    #[arg(long, default_value_t = remote::lines::DEFAULT_MAX_MESSAGE_BYTES, value_name = "BYTES")]
    pub max_message_bytes: usize,
    /// Consecutive timeouts of an adapter after which its remaining calls fail at once
    /// (0: never).
    #[arg(long, default_value_t = remote::DEFAULT_BREAKER, value_name = "N")]
    pub adapter_breaker: u32,
    /// Skip the preflight: the few seconds of checks (the two versions of an instance
    /// kept apart, reset scope, concurrent calls) an adapter passes before any instance
    /// runs. Built-in systems are never preflighted.
    #[arg(long, env = "BEMULA_NO_PREFLIGHT", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_preflight: bool,
    /// Copies of a stdio adapter (`cmd:…`) run side by side. Each namespace (one
    /// instance's version) is served by one process for the whole run, so a library
    /// that is not thread-safe keeps its state; a crashed process is restarted alone.
    /// Each process gets BEMULA_ADAPTER_PROCESS (1..N) and BEMULA_ADAPTER_PROCESSES (N)
    /// in its environment.
    #[arg(
        long,
        env = "BEMULA_ADAPTER_PROCESSES",
        default_value_t = 1,
        value_name = "N"
    )]
    pub adapter_processes: usize,
}

impl AdapterArgs {
    /// The client options of these flags, with `retries` re-sends of calls the system
    /// did not act on.
    pub fn options(&self, retries: u32) -> Result<RemoteOptions, Error> {
        let timeout = self.adapter_timeout.unwrap_or(DEFAULT_ADAPTER_TIMEOUT);
        if !(timeout.is_finite() && timeout > 0.0) {
            return Err(format!(
                "--adapter-timeout must be a positive number of seconds, got {timeout}"
            )
            .into());
        }
        if self.max_message_bytes < 1024 {
            return Err(format!(
                "--max-message-bytes must be at least 1024, got {}",
                self.max_message_bytes
            )
            .into());
        }
        if self.adapter_processes == 0 {
            return Err("--adapter-processes must be at least 1".into());
        }
        Ok(RemoteOptions {
            timeout: std::time::Duration::from_secs_f64(timeout),
            timeout_explicit: self.adapter_timeout.is_some(),
            retries,
            max_message_bytes: self.max_message_bytes,
            breaker: self.adapter_breaker,
            processes: self.adapter_processes,
            ..RemoteOptions::default()
        })
    }
}
