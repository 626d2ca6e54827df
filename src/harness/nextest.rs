//! What a harness process does as one part of a cargo-nextest run, where each test is
//! a process of its own: the run's parts directory, the one preflight of the run, the
//! instances the processes ingest once and share, and who applies the metric gates.

use super::*;

/// The preflight of an adapter, once per run: under cargo-nextest the first
/// processes of a run make it and leave a mark in the run's parts, so the later ones
/// skip it.
pub(super) fn run_preflight(
    runtime: &tokio::runtime::Runtime,
    client: &RemoteFactory,
    settings: &Settings,
    nextest_run: Option<&str>,
) -> Result<(), String> {
    let mark = nextest_run.map(|run| {
        settings
            .report_dir
            .join(PARTS)
            .join(sanitize(run))
            .join(PREFLIGHT_MARK)
    });
    if mark.as_ref().is_some_and(|m| m.is_file()) {
        return Ok(());
    }
    let line = runtime
        .block_on(crate::run::select::preflight(client, false))
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    if let Some(mark) = mark {
        if let Some(dir) = mark.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = report::write_file(&mark, line.as_bytes());
    }
    Ok(())
}

/// The mark a nextest run's first processes leave in its parts once the adapter passed
/// the preflight.
pub(super) const PREFLIGHT_MARK: &str = "preflight.passed";

/// The first process of a new nextest run makes room for its parts, and the reports of
/// an earlier run no longer look current.
pub(super) fn open_parts(report_dir: &Path, run: &str) -> Result<(), HarnessError> {
    let parts_dir = report_dir.join(PARTS);
    let run_dir = parts_dir.join(sanitize(run));
    if !run_dir.exists() {
        prune_part_runs(&parts_dir, KEEP_PART_RUNS - 1);
        std::fs::create_dir_all(&run_dir)
            .map_err(|e| HarnessError::Io(format!("{}: {e}", run_dir.display())))?;
        mark_reports_pending(report_dir, run)?;
    }
    Ok(())
}

/// Under nextest, who applies the metric gates instead of each process.
pub(super) fn deferred_gate_note(settings: &Settings) -> String {
    let mut flags = String::new();
    if let Some(rate) = settings.min_rpr {
        flags.push_str(&format!(" --min-rpr {rate}"));
    }
    if let Some(gate) = &settings.min {
        flags.push_str(&format!(" --min {}", gate.spec()));
        if gate.on == GateOn::Lower {
            flags.push_str(" --gate-on lower");
        }
    }
    if let Some(gate) = &settings.regression {
        flags.push_str(&format!(
            " --baseline {} --max-drop {}",
            gate.baseline.display(),
            gate.max_drop
                .iter()
                .map(|m| format!("{}={}", m.metric, m.min))
                .collect::<Vec<_>>()
                .join(",")
        ));
    }
    format!(
        "the metric gates are applied by `bemula report {}{flags}`",
        settings.report_dir.display(),
    )
}
/// How long a process waits for another one's ingestion of an instance before it takes
/// the lock over, where it cannot tell whether the holder is alive (no `/proc`); a
/// holder known to be dead loses its lock at once.
pub(super) const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// The records of every question of `instance`, shared by the processes of one run
/// through `dir`: the first process to take `<instance>.lock` computes them and writes
/// `<instance>.jsonl` (atomically); the others wait for that file and read it.
pub(super) fn shared_instance(
    dir: &Path,
    instance: &str,
    compute: impl FnOnce() -> Vec<Record>,
) -> std::io::Result<Vec<Record>> {
    std::fs::create_dir_all(dir)?;
    let data = dir.join(format!("{instance}.jsonl"));
    let lock = dir.join(format!("{instance}.lock"));
    let mut compute = Some(compute);
    loop {
        if data.is_file() {
            return report::read_records(&data).map_err(std::io::Error::other);
        }
        match report::DirLock::try_acquire(&lock) {
            Ok(report::LockState::Acquired(held)) => {
                // Released when done, and when the ingestion unwinds.
                let _held = held;
                let records = compute.take().map(|f| f()).unwrap_or_default();
                report::write_records(&data, &records).map_err(std::io::Error::other)?;
                return Ok(records);
            }
            Ok(report::LockState::Held(_)) => {
                // A live holder (a dead one's lock was taken over at once); where the
                // holder cannot be checked, an old lock is taken to be stale.
                let stale = std::fs::metadata(&lock)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > STALE_LOCK);
                if stale {
                    let _ = std::fs::remove_file(&lock);
                } else {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            }
            Err(e) => return Err(e),
        }
    }
}
