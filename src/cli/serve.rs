//! `bemula serve`: serves a built-in system as an adapter of the `bemula-adapter/1`
//! protocol, on stdio or over HTTP.

use super::CliResult;
use crate::system::remote::{loopback, server};
use crate::system::{SharedFactory, builtin};
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `bemula serve`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
pub struct Args {
    /// The system to serve: a built-in system, or `loopback` (a trivial test system).
    #[arg(long)]
    pub system: String,
    /// Speak newline-delimited JSON-RPC on stdin and stdout.
    #[arg(long)]
    pub stdio: bool,
    /// Listen for HTTP on this address (port 0 picks a free one); the first stdout line
    /// is `listening on http://ADDR/rpc`.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
}

/// The factory of a system name, built-in or `loopback`.
pub fn resolve_system(name: &str) -> Result<SharedFactory, String> {
    if let Some(factory) = builtin::factory(name) {
        return Ok(factory);
    }
    if name == loopback::NAME {
        return Ok(loopback::factory());
    }
    let mut known: Vec<&str> = builtin::NAMES.to_vec();
    known.push(loopback::NAME);
    Err(format!(
        "unknown system `{name}`; known systems: {}",
        known.join(", ")
    ))
}

/// Runs `bemula serve`.
pub fn run(args: Args) -> CliResult {
    let factory = resolve_system(&args.system)?;
    let runtime = crate::run::runtime()?;
    let result: std::io::Result<()> = runtime.block_on(async {
        match args.http {
            Some(addr) => {
                let server = server::serve_http(factory, addr).await.map_err(|e| {
                    std::io::Error::new(e.kind(), format!("cannot listen on {addr}: {e}"))
                })?;
                let mut stdout = std::io::stdout();
                writeln!(stdout, "listening on {}", server.url())?;
                stdout.flush()?;
                server.wait().await;
                Ok(())
            }
            None => server::serve_stdio(factory).await,
        }
    });
    // Tokio's stdin reader may still block on a read; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result?;
    Ok(ExitCode::SUCCESS)
}
