//! The trials' shared state: the data set, the preflight, and one run per instance
//! shared by the trials of its requests.

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

/// Where the system under test comes from.
pub(super) enum FactorySource {
    /// A factory made in code.
    Ready(SharedFactory),
    /// An adapter connected by the caller.
    Remote(Arc<RemoteFactory>),
    /// An adapter spec, connected when the harness runs.
    Adapter(String),
    /// An instrument, made from the dataset when the harness has loaded it.
    Instrument(String),
}

/// An instance's records and its requests' outcomes, scored once for all its trials.
pub(super) struct InstanceResult {
    records: Vec<Record>,
    outcomes: Vec<metrics::RequestOutcome>,
}

pub(super) struct Shared {
    pub(super) runtime: tokio::runtime::Runtime,
    pub(super) runner: Runner,
    /// Under cargo-nextest (a process per test): where processes share the records of
    /// the instances they ingested, so each instance is ingested once per run.
    pub(super) share: Option<PathBuf>,
    /// Each selected instance, with its records and its requests' outcomes once run.
    pub(super) instances: BTreeMap<String, (Instance, Selection, OnceLock<InstanceResult>)>,
    pub(super) outcomes: Mutex<BTreeMap<String, TrialOutcome>>,
    /// Under nextest with a pass-rate gate: who applies the gate instead.
    pub(super) deferred_gate: Option<String>,
    /// The expectations file, if any.
    pub(super) expectations_source: String,
}

impl Shared {
    pub(super) fn trial(
        &self,
        name: &str,
        instance: &str,
        request: &str,
        known: bool,
    ) -> Result<Completion, Failed> {
        let started = Instant::now();
        let Some((inst, selection, cell)) = self.instances.get(instance) else {
            return Err(Failed::from(format!("instance {instance} was not loaded")));
        };
        let InstanceResult { records, outcomes } = cell.get_or_init(|| {
            let records = self.instance_records(inst, selection);
            InstanceResult {
                outcomes: metrics::request_outcomes(&records),
                records,
            }
        });
        let passed = outcomes
            .iter()
            .find(|o| o.request == request)
            .is_some_and(|o| o.passed);
        if let Ok(mut outcomes) = self.outcomes.lock() {
            outcomes.insert(
                name.to_string(),
                TrialOutcome {
                    passed,
                    known_failure: known,
                    seconds: started.elapsed().as_secs_f64(),
                },
            );
        }
        let _ = name;
        match (passed, known) {
            // An unexpected pass is reported once, with the expectations, at the end.
            (true, _) => Ok(Completion::Completed),
            (false, true) => Ok(Completion::ignored_with(format!(
                "known failure (listed in {})",
                self.expectations_source
            ))),
            (false, false) => {
                let message = report::request_message(records, request);
                match &self.deferred_gate {
                    // Without expectations, one request's failure is not the run's: the
                    // gate over all of them decides.
                    Some(why) if self.expectations_source.is_empty() => {
                        println!("{message}\nbemula: this request failed; {why}");
                        Ok(Completion::Completed)
                    }
                    _ => Err(Failed::from(message)),
                }
            }
        }
    }

    /// The records of an instance's selected questions: from the run's shared
    /// directory when another process already ingested it, else by running it (all of
    /// its questions when sharing, for the processes that come later).
    fn instance_records(&self, instance: &Instance, selection: &Selection) -> Vec<Record> {
        let run = |selection: &Selection| {
            self.runtime
                .block_on(self.runner.run_instance(instance, selection))
        };
        let Some(dir) = &self.share else {
            return run(selection);
        };
        match shared_instance(dir, &instance.id, || run(&Selection::All)) {
            Ok(all) => all
                .into_iter()
                .filter(|r| selection.includes_record(r))
                .collect(),
            Err(err) => {
                eprintln!(
                    "bemula: cannot share {} through {}: {err}; running it in this process",
                    instance.id,
                    dir.display()
                );
                run(selection)
            }
        }
    }

    pub(super) fn records(&self) -> Vec<Record> {
        self.instances
            .values()
            .filter_map(|(_, _, cell)| cell.get())
            .flat_map(|result| &result.records)
            .cloned()
            .collect()
    }
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
