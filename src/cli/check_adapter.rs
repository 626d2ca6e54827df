//! `bemula check-adapter`: a short protocol self-test against an adapter, one ✓/✗ line
//! per check. Exit status 0 when all pass, 1 when one fails, 2 when the adapter cannot
//! be started or reached.

use super::{CliResult, EXIT_BAD_INPUT};
use crate::system::remote::{self, RemoteOptions, TransportKind, check};
use crate::terminal;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `bemula check-adapter`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The adapter: `cmd:<command line>` or an `http://` URL.
    #[arg(long)]
    pub system: String,
    /// Longest wait for one call, in seconds.
    #[arg(
        long,
        alias = "adapter-timeout",
        default_value_t = 60.0,
        value_name = "SECS"
    )]
    pub timeout: f64,
}

/// Runs `bemula check-adapter`.
pub fn run(args: Args) -> CliResult {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(format!(
            "--timeout must be a positive number of seconds, got {}",
            args.timeout
        )
        .into());
    }
    let options = RemoteOptions {
        timeout: Duration::from_secs_f64(args.timeout),
        ..RemoteOptions::default()
    };
    let runtime = crate::run::runtime()?;
    let code = runtime.block_on(async {
        let factory = match remote::connect(&args.system, &options).await {
            Ok(factory) => factory,
            Err(err) => {
                println!("✗ connect — {}", terminal::inline(&err.to_string()));
                return ExitCode::from(EXIT_BAD_INPUT);
            }
        };
        let checks = check::run_checks(&factory).await;
        for c in &checks {
            let mark = if c.passed { '✓' } else { '✗' };
            println!(
                "{mark} {} — {}",
                terminal::inline(c.name),
                terminal::inline(&c.detail)
            );
        }
        let failed = checks.iter().filter(|c| !c.passed).count();
        if failed > 0
            && let Some(tail) = factory.stderr_tail()
        {
            let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
            if !lines.is_empty() {
                println!("adapter stderr (last lines):");
                for line in &lines[lines.len().saturating_sub(10)..] {
                    println!("  {}", terminal::inline(line));
                }
            }
        }
        // Stop an adapter we started; leave an HTTP server running.
        if factory.transport() == TransportKind::Stdio {
            let _ = factory.shutdown().await;
        }
        if failed == 0 {
            println!("all {} checks passed", checks.len());
            ExitCode::SUCCESS
        } else {
            println!("{failed} of {} checks failed", checks.len());
            ExitCode::from(1)
        }
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(code)
}
