//! Signals during `bemula run`: the first SIGINT (Ctrl-C) or SIGTERM stops the run
//! cleanly, the second at once.
//!
//! **The first signal** starts no new instance; the passes in flight finish and are
//! journaled (a pass that fails while the run stops is left out of the journal, and
//! runs again on resume). Then `run.json` is marked interrupted, the report directory's
//! lock is released, the command that continues the run is printed, and bemula exits
//! with 130 (SIGINT) or 143 (SIGTERM), as a shell reports a process its signal ended.
//!
//! **A second signal** stops at once: `run.json` is marked interrupted, the lock is
//! released, and bemula exits with the same status. The passes journaled so far are
//! kept (a line cut by the exit is dropped on resume); the passes in flight are lost.

use super::run::{RunMarker, write_marker};
use crate::run::Stop;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// A signal that stopped a run.
#[derive(Debug, Clone, Copy)]
pub struct Interrupt {
    /// Its name: `SIGINT` or `SIGTERM`.
    pub name: &'static str,
    /// The exit status it gives: 128 + the signal's number.
    pub status: u8,
}

const SIGINT: Interrupt = Interrupt {
    name: "SIGINT",
    status: 130,
};
const SIGTERM: Interrupt = Interrupt {
    name: "SIGTERM",
    status: 143,
};

/// Listens for SIGINT and SIGTERM for the rest of the process (see the module docs):
/// the first asks `stop` and is returned through the cell; the second writes `marker`
/// (marked interrupted) to `marker_path`, removes `lock` and exits.
pub fn listen(
    stop: Arc<Stop>,
    marker: &RunMarker,
    marker_path: &Path,
    lock: &Path,
) -> Result<Arc<OnceLock<Interrupt>>, String> {
    let received: Arc<OnceLock<Interrupt>> = Arc::default();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let listen = |kind| signal(kind).map_err(|e| format!("cannot listen for signals: {e}"));
        let (mut int, mut term) = (
            listen(SignalKind::interrupt())?,
            listen(SignalKind::terminate())?,
        );
        let (marker, marker_path, lock) = (
            marker.clone(),
            marker_path.to_path_buf(),
            lock.to_path_buf(),
        );
        let cell = received.clone();
        tokio::spawn(async move {
            loop {
                let signal = tokio::select! {
                    _ = int.recv() => SIGINT,
                    _ = term.recv() => SIGTERM,
                };
                if cell.set(signal).is_ok() {
                    stop.stop();
                    eprintln!(
                        "\nbemula: {} received: finishing the passes in flight, then stopping (send it again to stop at once)",
                        signal.name
                    );
                    continue;
                }
                abort(signal, marker.clone(), &marker_path, &lock);
            }
        });
    }
    #[cfg(not(unix))]
    {
        let (marker, marker_path, lock) = (
            marker.clone(),
            marker_path.to_path_buf(),
            lock.to_path_buf(),
        );
        let cell = received.clone();
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                if cell.set(SIGINT).is_ok() {
                    stop.stop();
                    eprintln!("\nbemula: Ctrl-C: finishing the passes in flight, then stopping");
                    continue;
                }
                abort(SIGINT, marker.clone(), &marker_path, &lock);
            }
        });
    }
    Ok(received)
}

/// Stops the process at once after a second signal.
fn abort(signal: Interrupt, mut marker: RunMarker, marker_path: &Path, lock: &Path) {
    marker.interrupted = Some(signal.name.to_string());
    marker.complete = false;
    let _ = write_marker(marker_path, &marker);
    let _ = std::fs::remove_file(lock);
    eprintln!(
        "bemula: {} again: stopped at once; the passes journaled so far are kept; continue the run with\n  {}",
        signal.name,
        resume_command()
    );
    std::process::exit(i32::from(signal.status));
}

/// The command line of this process with `--resume` added (once), quoted for a shell.
pub fn resume_command() -> String {
    let mut args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--resume") {
        args.push("--resume".into());
    }
    if let Some(first) = args.first_mut()
        && Path::new(first.as_str())
            .file_name()
            .is_some_and(|n| n == "bemula")
    {
        *first = "bemula".into();
    }
    shlex::try_join(args.iter().map(String::as_str)).unwrap_or_else(|_| args.join(" "))
}
