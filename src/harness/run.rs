//! The harness's run: the data, the trials with their filters, the gate, the reports.

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
        let exact_instance = args
            .filter
            .as_deref()
            .filter(|_| args.exact)
            .and_then(|name| name.split("::").next())
            .map(str::to_string);
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

        // One trial per request; which ones the filter keeps decides what is asked.
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
        if names.is_empty() && exact_instance.is_none() {
            return Err(HarnessError::Data(format!(
                "no forget requests in {}: the data is missing or empty",
                dataset.source
            )));
        }
        let all_names: BTreeSet<String> = names.iter().map(|(n, _, _)| n.clone()).collect();
        if let Some(path) = &settings.expectations {
            let unknown: Vec<&String> = expectations
                .names()
                .filter(|n| !all_names.contains(*n))
                .collect();
            if !unknown.is_empty() {
                eprintln!(
                    "bemula: warning: {} lists {} name(s) that are not requests of {}: {}",
                    path.display(),
                    unknown.len(),
                    dataset.source,
                    unknown
                        .iter()
                        .map(|n| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        if args.list {
            // Listing needs the names only: no adapter is started, nothing is ingested.
            let trials = names
                .iter()
                .map(|(name, _, _)| Trial::test(name.clone(), || Ok(())))
                .collect();
            return Ok(libtest_mimic::run(&args, trials).exit_code());
        }
        let nextest_run = settings.nextest_run.clone();
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
        if selected.is_empty() {
            let filter = args
                .filter
                .as_deref()
                .map(|f| format!("the filter {f:?}"))
                .unwrap_or_else(|| "the --skip filters".into());
            eprintln!(
                "bemula: warning: {filter} selects none of the {} requests of {}; nothing was run (list the names with --list)",
                names.len(),
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
        let (factory, remote): (SharedFactory, Option<Arc<RemoteFactory>>) = match &self.factory {
            FactorySource::Ready(factory) => (factory.clone(), None),
            FactorySource::Instrument(name) => (
                crate::system::builtin::instrument::factory(name, &dataset.instances).ok_or_else(
                    || {
                        HarnessError::System(format!(
                            "unknown instrument {name:?}: expected one of {}",
                            crate::system::builtin::instrument::NAMES.join(", ")
                        ))
                    },
                )?,
                None,
            ),
            FactorySource::Remote(client) => (client.clone(), Some(client.clone())),
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
                        &dataset.instances,
                    ))
                    .map_err(|e| HarnessError::System(e.to_string()))?;
                (selected.factory, selected.remote)
            }
        };
        if let Some(run) = &nextest_run {
            // The first process of a new nextest run makes room for its parts, and the
            // reports of an earlier run no longer look current.
            let parts_dir = settings.report_dir.join(PARTS);
            let run_dir = parts_dir.join(sanitize(run));
            if !run_dir.exists() {
                prune_part_runs(&parts_dir, KEEP_PART_RUNS - 1);
                std::fs::create_dir_all(&run_dir)
                    .map_err(|e| HarnessError::Io(format!("{}: {e}", run_dir.display())))?;
                mark_reports_pending(&settings.report_dir, run)?;
            }
        }
        if let Some(client) = remote
            .as_ref()
            .filter(|_| settings.preflight && !selected.is_empty())
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
        if nextest_run.is_none() && !selected.is_empty() {
            // A plain run journals its passes, so that an interrupted run can resume.
            let config = session.journal_config(
                &factory.info().name,
                factory.info(),
                selected_names.iter().cloned().collect(),
            );
            let selections: Vec<(&Instance, Selection)> = dataset
                .instances
                .iter()
                .filter_map(|i| {
                    selected
                        .get(&i.id)
                        .map(|reqs| (i, Selection::Requests(reqs.clone())))
                })
                .collect();
            let expected = Runner::expected_passes(selections.iter().map(|(i, s)| (*i, s)));
            let path = settings.report_dir.join(journal::JOURNAL);
            let open = session.journal(&path, &config, settings.resume, &expected, "")?;
            run_id = Some(open.journal.run_id().to_string());
            runner = runner
                .with_completed(open.completed)
                .with_sink(Arc::new(crate::run::JournalSink::new(open.journal, None)));
        }
        let parts = nextest_run.clone();
        // Under nextest a pass-rate gate needs every process's outcome: it is applied by
        // `bemula report`, and a process fails its test only for a regression.
        let deferred_gate = parts.is_some()
            && (settings.min_rpr.is_some()
                || settings.min.is_some()
                || settings.regression.is_some());
        let expectations_source = settings
            .expectations
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let shared = Arc::new(Shared {
            runtime,
            runner,
            share: parts.as_deref().map(|run| {
                settings
                    .report_dir
                    .join(PARTS)
                    .join(sanitize(run))
                    .join("instances")
            }),
            instances: dataset
                .instances
                .iter()
                .filter_map(|i| {
                    selected.get(&i.id).map(|reqs| {
                        (
                            i.id.clone(),
                            (
                                i.clone(),
                                Selection::Requests(reqs.clone()),
                                OnceLock::new(),
                            ),
                        )
                    })
                })
                .collect(),
            outcomes: Mutex::new(BTreeMap::new()),
            deferred_gate: deferred_gate.then(|| {
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
            }),
            expectations_source,
        });

        let trials: Vec<Trial> = names
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

        // Reports, then the gate's decision.
        let outcomes = shared
            .outcomes
            .lock()
            .map(|o| o.clone())
            .unwrap_or_default();
        let records = shared.records();
        let mut info = session.run_info(factory.info(), remote.as_deref());
        if parts.is_none() && selected_names.len() < all_names.len() {
            // A filtered run says so in its reports.
            info.extra.insert(
                "selection".into(),
                format!(
                    "filtered run: {} of the {} requests{}",
                    selected_names.len(),
                    all_names.len(),
                    args.filter
                        .as_deref()
                        .map(|f| format!(" (filter {f:?})"))
                        .unwrap_or_default()
                )
                .into(),
            );
        }
        // What the run was expected to cover: under nextest, the whole dataset (each
        // process runs one request of it); otherwise the filter's selection.
        let expected = if parts.is_some() {
            all_names.clone()
        } else {
            selected_names.clone()
        };
        let mut summary = None;
        if !outcomes.is_empty() {
            summary = write_reports(
                &settings,
                (&session, &info),
                &records,
                &outcomes,
                match parts.as_deref() {
                    Some(run) => ReportRun::NextestPart(run),
                    None => ReportRun::Plain(run_id),
                },
                &expected,
                &expectations,
            )?;
        }
        let passed_by_name: BTreeMap<String, bool> = outcomes
            .iter()
            .map(|(n, o)| (n.clone(), o.passed))
            .collect();
        if let Some(run) = &parts {
            // Where a reader of the process's output learns how to see the whole run.
            eprintln!(
                "bemula: cargo-nextest run {run}: this process's results are parts of the run in {}; merge them into reports with `{}`",
                settings
                    .report_dir
                    .join(PARTS)
                    .join(sanitize(run))
                    .display(),
                report_command(&settings.report_dir)
            );
        }
        if settings.bless
            && let Some(path) = &settings.expectations
            && parts.is_some()
        {
            // Each process knows one request: the file is rewritten once, from the
            // merged run, instead of by every process in turn.
            println!(
                "bemula: under cargo-nextest the expectations are rewritten from the whole run: `{} --expectations {} --bless`",
                report_command(&settings.report_dir),
                path.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
        if settings.bless
            && let Some(path) = &settings.expectations
        {
            let updated = expectations.blessed(&passed_by_name);
            updated.write(path).map_err(HarnessError::Expectations)?;
            eprintln!(
                "bemula: rewrote {} from this run: {} known failures",
                path.display(),
                updated.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        if !outcomes.is_empty() && parts.is_none() {
            if let Some(summary) = &summary {
                // The metrics on the console, as `bemula run` prints them.
                eprint!(
                    "\n{}",
                    report::render_table(&[(summary.config.system.name.clone(), summary)])
                );
            }
            eprintln!("bemula: reports in {}", settings.report_dir.display());
        }
        if settings.bless_baseline
            && let Some(gate) = &settings.regression
        {
            if parts.is_some() {
                println!(
                    "bemula: under cargo-nextest the baseline is blessed from the whole run: `{} --baseline {} --bless-baseline`",
                    report_command(&settings.report_dir),
                    gate.baseline.display()
                );
                return Ok(conclusion.exit_code());
            }
            eprintln!(
                "{}",
                crate::gate::bless_baseline(&settings.report_dir, &gate.baseline)
                    .map_err(HarnessError::Gate)?
            );
            return Ok(ExitCode::SUCCESS);
        }
        let mut regression_lines: Vec<String> = Vec::new();
        let mut regression_pass = true;
        if let (Some(gate), Some(summary)) = (
            settings.regression.as_ref().filter(|_| !deferred_gate),
            summary.as_ref(),
        ) {
            let (ok, lines) = gate.check(summary, &records).map_err(HarnessError::Gate)?;
            regression_pass = ok;
            regression_lines = lines;
        }
        if settings.min_rpr.is_none()
            && settings.min.is_none()
            && settings.regression.is_none()
            && settings.expectations.is_none()
        {
            return Ok(conclusion.exit_code());
        }
        let gate = Gate {
            min_rpr: if deferred_gate {
                None
            } else {
                settings
                    .min_rpr
                    .map(|m| (m, settings.min_rpr_source.clone()))
            },
            expectations: settings
                .expectations
                .as_ref()
                .map(|p| (p.clone(), expectations.clone())),
            allow_partial: false,
            metrics: if deferred_gate {
                None
            } else {
                settings.min.clone()
            },
        };
        let coverage = report::Coverage::of(&expected, &passed_by_name.keys().cloned().collect());
        let mut decision = gate.decide_with(
            &passed_by_name,
            parts.is_none().then_some(&coverage),
            summary.as_ref(),
        );
        decision.add_regression(regression_pass, &regression_lines);
        decision.lines.extend(regression_lines);
        for line in &decision.lines {
            eprintln!("{line}");
        }
        if let Some(why) = &shared.deferred_gate {
            println!(
                "bemula: this process ran {} request(s) under cargo-nextest; {why}",
                outcomes.len()
            );
            return Ok(if decision.pass {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            });
        }
        // The gate's decision last, where a reader looks, above libtest's own count.
        println!("\n{}", decision.closing_line(conclusion.num_failed));
        Ok(if decision.pass {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }
}
