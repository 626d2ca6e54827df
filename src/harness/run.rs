//! The harness's run: the data, the trials with their filters, the system, the runner
//! with its journal; what follows the trials (reports, blessing, the gate) is in
//! [`super::conclude`].

use super::conclude::{Concluding, conclude};
use super::*;

impl Harness {
    /// Runs the harness with the process's command-line arguments and returns the exit
    /// code, after the reports are written.
    pub fn run(self) -> ExitCode {
        self.run_with_args(Arguments::from_args())
    }

    /// Runs the harness with the given libtest arguments.
    pub fn run_with_args(self, args: Arguments) -> ExitCode {
        match self.try_run_with_args(args) {
            Ok(code) => code,
            Err(message) => {
                eprintln!(
                    "bemula: error: {}",
                    crate::terminal::lines(&message.to_string())
                );
                ExitCode::from(2)
            }
        }
    }

    /// Runs the harness with the given libtest arguments, and returns why it could not
    /// be run instead of printing it.
    pub fn try_run_with_args(self, args: Arguments) -> Result<ExitCode, HarnessError> {
        let settings = self.settings()?;
        // Every test name is known even when one request runs (`--exact`), so that filters
        // count what they leave out and the report knows what the whole run covers.
        let session = Session::new(
            settings
                .data
                .load(settings.full, settings.target_dir.as_deref())
                .map_err(HarnessError::Data)?,
            settings.data.clone(),
            self.answerer.clone(),
            self.judge.clone(),
            settings.bootstrap,
        );
        let dataset = &session.dataset;
        let expectations = match &settings.expectations {
            Some(path) => Expectations::read_or_bless(path, settings.bless)
                .map_err(HarnessError::Expectations)?,
            None => Expectations::default(),
        };
        let plan = TrialPlan::of(dataset, &args);
        let exact = args.exact && args.filter.is_some();
        if plan.names.is_empty() && !exact {
            return Err(HarnessError::Data(format!(
                "no forget requests in {}: the data is missing or empty",
                dataset.source
            )));
        }
        if let Some(path) = &settings.expectations {
            warn_unknown_names(path, &expectations, &plan.all, &dataset.source);
        }
        if args.list {
            // Listing needs the names only: no adapter is started, nothing is ingested.
            let trials = plan
                .names
                .iter()
                .map(|(name, _, _)| Trial::test(name.clone(), || Ok(())))
                .collect();
            return Ok(libtest_mimic::run(&args, trials).exit_code());
        }
        let nextest_run = settings.nextest_run.clone();
        // A plain run owns its report directory; the processes of a nextest run share it.
        let _lock = match nextest_run {
            Some(_) => None,
            None => {
                report::check_writable(&settings.report_dir)?;
                Some(report::DirLock::report_dir_of(
                    &settings.report_dir,
                    "BEMULA_REPORT_DIR (--report-dir of `bemula test`)",
                )?)
            }
        };
        if plan.selected.is_empty() {
            let filter = args
                .filter
                .as_deref()
                .map(|f| format!("the filter {f:?}"))
                .unwrap_or_else(|| "the --skip filters".into());
            eprintln!(
                "bemula: warning: {filter} selects none of the {} requests of {}; nothing was run (list the names with --list)",
                plan.names.len(),
                dataset.source
            );
            if nextest_run.is_none() {
                // No report of an earlier run stays where this run's is expected.
                report::remove_reports(&settings.report_dir)?;
            }
        }
        let runtime = match self.runtime {
            Some(runtime) => runtime,
            None => crate::run::runtime().map_err(HarnessError::Runtime)?,
        };
        let (factory, remote) = connect(&self.factory, &runtime, &settings, &dataset.instances)?;
        if let Some(run) = &nextest_run {
            open_parts(&settings.report_dir, run)?;
        }
        if let Some(client) = remote
            .as_ref()
            .filter(|_| settings.preflight && !plan.selected.is_empty())
        {
            run_preflight(&runtime, client, &settings, nextest_run.as_deref())
                .map_err(HarnessError::System)?;
        }
        let mut runner = Runner::new(
            factory.clone(),
            self.answerer.clone(),
            self.judge.clone(),
            RunConfig {
                jobs: 1,
                // An adapter's calls wait on another process; an in-process system may
                // be CPU work, which reading beside it on the runtime suits.
                reading_pool: remote.is_some(),
                ..RunConfig::default()
            },
        );
        // A plain run's one id: its journal's (the interrupted run's, when resumed),
        // which the summary carries too.
        let mut run_id = None;
        if nextest_run.is_none() && !plan.selected.is_empty() {
            // A plain run journals its passes, so that an interrupted run can resume.
            let config = session.journal_config(
                &factory.info().name,
                factory.info(),
                plan.selected_names.iter().cloned().collect(),
            );
            let selections = plan.selections(dataset);
            let expected = Runner::expected_passes(selections.iter().map(|(i, s)| (*i, s)));
            let path = settings.report_dir.join(journal::JOURNAL);
            let open = session.journal(&path, &config, settings.resume, &expected, "")?;
            run_id = Some(open.journal.run_id().to_string());
            runner = runner
                .with_completed(open.completed)
                .with_sink(Arc::new(crate::run::JournalSink::new(open.journal, None)));
        }
        // Under nextest a pass-rate gate needs every process's outcome: it is applied by
        // `bemula report`, and a process fails its test only for a regression.
        let deferred_gate = nextest_run.is_some()
            && (settings.min_rpr.is_some()
                || settings.min.is_some()
                || settings.regression.is_some());
        let shared = Arc::new(Shared {
            runtime,
            runner,
            share: nextest_run.as_deref().map(|run| {
                settings
                    .report_dir
                    .join(PARTS)
                    .join(sanitize(run))
                    .join("instances")
            }),
            instances: plan
                .selections(dataset)
                .into_iter()
                .map(|(i, selection)| (i.id.clone(), (i.clone(), selection, OnceLock::new())))
                .collect(),
            outcomes: Mutex::new(BTreeMap::new()),
            deferred_gate: deferred_gate.then(|| deferred_gate_note(&settings)),
            expectations_source: settings
                .expectations
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        });
        let trials: Vec<Trial> = plan
            .names
            .iter()
            .map(|(name, instance, request)| {
                let shared = shared.clone();
                let (name2, instance, request) = (name.clone(), instance.clone(), request.clone());
                let known = expectations.contains(name);
                Trial::ignorable_test(name.clone(), move || {
                    shared.trial(&name2, &instance, &request, known)
                })
            })
            .collect();
        let conclusion = libtest_mimic::run(&args, trials);
        conclude(Concluding {
            settings: &settings,
            session: &session,
            system: factory.info(),
            remote: remote.as_deref(),
            plan: &plan,
            filter: args.filter.as_deref(),
            nextest_run: nextest_run.as_deref(),
            run_id,
            shared: &shared,
            conclusion,
            expectations: &expectations,
            deferred_gate,
        })
    }
}

/// The trials of a run: every request's test name, and those the filter keeps.
pub(super) struct TrialPlan {
    /// (test name, instance, request) of every request, sorted by name.
    pub(super) names: Vec<(String, String, String)>,
    /// Every test name.
    pub(super) all: BTreeSet<String>,
    /// The requests the filter keeps, by instance.
    pub(super) selected: BTreeMap<String, BTreeSet<String>>,
    /// Their test names.
    pub(super) selected_names: BTreeSet<String>,
}

impl TrialPlan {
    /// One trial per request of `dataset`; which ones `args`' filter keeps decides what
    /// is asked.
    fn of(dataset: &crate::dataset::Dataset, args: &Arguments) -> TrialPlan {
        let mut names: Vec<(String, String, String)> = Vec::new();
        for instance in &dataset.instances {
            for request in &instance.requests {
                names.push((
                    report::test_name(&instance.id, &request.id, request.kind),
                    instance.id.clone(),
                    request.id.clone(),
                ));
            }
        }
        names.sort();
        let all = names.iter().map(|(n, _, _)| n.clone()).collect();
        let mut selected: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut selected_names = BTreeSet::new();
        for (name, instance, request) in &names {
            let probe = Trial::test(name.clone(), || Ok(()));
            if !args.is_filtered_out(&probe) {
                selected
                    .entry(instance.clone())
                    .or_default()
                    .insert(request.clone());
                selected_names.insert(name.clone());
            }
        }
        TrialPlan {
            names,
            all,
            selected,
            selected_names,
        }
    }

    /// The instances with selected requests, in the data's order, each with its
    /// selection.
    fn selections<'a>(
        &self,
        dataset: &'a crate::dataset::Dataset,
    ) -> Vec<(&'a Instance, Selection)> {
        dataset
            .instances
            .iter()
            .filter_map(|i| {
                self.selected
                    .get(&i.id)
                    .map(|reqs| (i, Selection::Requests(reqs.clone())))
            })
            .collect()
    }
}

/// Says which names of the expectations file are not requests of the data.
fn warn_unknown_names(
    path: &Path,
    expectations: &Expectations,
    all: &BTreeSet<String>,
    source: &str,
) {
    let unknown: Vec<&String> = expectations.names().filter(|n| !all.contains(*n)).collect();
    if !unknown.is_empty() {
        eprintln!(
            "bemula: warning: {} lists {} name(s) that are not requests of {source}: {}",
            path.display(),
            unknown.len(),
            unknown
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// The system under test, and its adapter client when it is one.
fn connect(
    source: &FactorySource,
    runtime: &tokio::runtime::Runtime,
    settings: &Settings,
    instances: &[Instance],
) -> Result<(SharedFactory, Option<Arc<RemoteFactory>>), HarnessError> {
    match source {
        FactorySource::Ready(factory) => Ok((factory.clone(), None)),
        FactorySource::Instrument(name) => {
            let factory =
                crate::system::builtin::instrument::factory(name, instances).ok_or_else(|| {
                    HarnessError::System(format!(
                        "unknown instrument {name:?}: expected one of {}",
                        crate::system::builtin::instrument::NAMES.join(", ")
                    ))
                })?;
            Ok((factory, None))
        }
        FactorySource::Remote(client) => Ok((client.clone(), Some(client.clone()))),
        FactorySource::Adapter(spec) => {
            // Every spec `bemula run` takes: a model endpoint's from the settings.
            let options = crate::system::remote::RemoteOptions {
                processes: settings.adapter_processes,
                ..Default::default()
            };
            let selected = runtime
                .block_on(crate::run::select::system_with(
                    spec,
                    crate::run::DEFAULT_JOBS,
                    &options,
                    &settings.llm_context(),
                    instances,
                ))
                .map_err(|e| HarnessError::System(e.to_string()))?;
            Ok((selected.factory, selected.remote))
        }
    }
}
