//! The trials' shared state: the data set, the preflight, and one run per instance
//! shared by the trials of its requests.

use super::*;

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
