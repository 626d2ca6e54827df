//! `cargo test` integration on `libtest-mimic`: one trial per forget request, gating on
//! the request pass rate or on an expectations file, and reports at the end of the run.
//!
//! In a memory system's repository:
//!
//! ```toml
//! [[test]]
//! name = "bemula"
//! harness = false
//!
//! [dev-dependencies]
//! bemula = "0.1"
//! ```
//!
//! and `tests/bemula.rs`:
//!
//! ```no_run
//! use bemula::harness::Harness;
//! # #[derive(Default)] struct MySystem;
//! # impl bemula::system::MemorySystem for MySystem {
//! #     fn reset(&mut self, _: &bemula::system::Namespace) -> bemula::system::SystemResult<()> { Ok(()) }
//! #     fn observe(&mut self, _: &bemula::system::Namespace, _: &bemula::system::TurnInput) -> bemula::system::SystemResult<()> { Ok(()) }
//! #     fn query(&mut self, _: &bemula::system::Namespace, _: &str) -> bemula::system::SystemResult<bemula::system::Reply> { Ok(bemula::system::Reply::Memories(vec![])) }
//! # }
//! fn main() -> std::process::ExitCode {
//!     Harness::from_fn("my-memory", MySystem::default).run()
//! }
//! ```
//!
//! Test names are `<instance>::<request>::<type>_<name>` (e.g. `short_003::r2::F3_semantic`),
//! so `cargo test --test bemula -- short_003::` runs one instance, `-- F3` or
//! `-- semantic` one request type, `-- short_` one tier, and `--exact NAME` one request.
//!
//! Settings come from the builder; environment variables override them (see
//! [`Settings`]), and a malformed value is an error, never a silent default.

use crate::answer::{Answerer, Extractive};
use crate::dataset::{self, Dataset, Instance};
use crate::generate::{self, GenConfig};
use crate::judge::Judge;
use crate::judge::rule::RuleJudge;
use crate::metrics::{self, BootstrapConfig};
use crate::record::Record;
use crate::report::{self, RunInfo, Summary};
use crate::run::{RunConfig, Runner, Selection};
use crate::system::{AsyncMemorySystem, FnFactory, SharedFactory, SystemFactory};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// Reads one environment variable.
type EnvSource = Box<dyn Fn(&str) -> Option<String>>;

/// Where the harness takes its data from.
#[derive(Debug, Clone, PartialEq)]
pub enum DataSource {
    /// The synthetic data generated in-process from a seed (Bemula-Lite unless `full`).
    Generated {
        /// Generator seed.
        seed: u64,
        /// The full set (50 instances) instead of Lite (31).
        full: bool,
    },
    /// A dataset directory (or one instance file) in the Bemula format.
    Dir(PathBuf),
}

/// The resolved settings of a harness run.
///
/// | variable | meaning |
/// |---|---|
/// | `BEMULA_DATA` | dataset directory (default: generated Lite data) |
/// | `BEMULA_FULL` | `1`/`true`: the full generated set (or every tier of `BEMULA_DATA`) |
/// | `BEMULA_SEED` | seed of the generated data (default 42) |
/// | `BEMULA_MIN_RPR` | gate: pass when the request pass rate is at least this, in [0, 1] |
/// | `BEMULA_EXPECTATIONS` | expectations file of known failures |
/// | `BEMULA_BLESS` | `1`: rewrite the expectations file from this run's results |
/// | `BEMULA_REPORT_DIR` | report directory (default `target/bemula/<test binary>`) |
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Data source.
    pub data: DataSource,
    /// Every tier of the data rather than Bemula-Lite.
    pub full: bool,
    /// Gate on the request pass rate.
    pub min_rpr: Option<f64>,
    /// Expectations file.
    pub expectations: Option<PathBuf>,
    /// Rewrite the expectations file.
    pub bless: bool,
    /// Report directory.
    pub report_dir: PathBuf,
    /// Bootstrap of the summary's intervals.
    pub bootstrap: BootstrapConfig,
}

/// A malformed setting.
#[derive(Debug, thiserror::Error)]
#[error("{name}={value:?}: {reason}")]
pub struct SettingsError {
    /// The variable or builder setting.
    pub name: String,
    /// The value given.
    pub value: String,
    /// What is expected instead.
    pub reason: String,
}

/// The `cargo test` harness. Build it with a system factory, adjust it, and `run` it
/// from the test target's `main`.
pub struct Harness {
    factory: FactorySource,
    runtime: Option<tokio::runtime::Runtime>,
    data: Option<PathBuf>,
    full: bool,
    seed: u64,
    min_rpr: Option<f64>,
    expectations: Option<PathBuf>,
    report_dir: Option<PathBuf>,
    judge: Arc<dyn Judge>,
    answerer: Arc<dyn Answerer>,
    bootstrap: BootstrapConfig,
    env: EnvSource,
}

impl Harness {
    /// A harness for systems made by `factory`.
    pub fn new(factory: impl SystemFactory + 'static) -> Harness {
        Harness::with_factory(Arc::new(factory))
    }

    /// A harness for a shared factory (e.g. a built-in system or a remote adapter).
    pub fn with_factory(factory: SharedFactory) -> Harness {
        Harness::from_source(FactorySource::Ready(factory))
    }

    /// A harness for a system behind an adapter of the `bemula-adapter/1` protocol:
    /// `cmd:python3 my_adapter.py` (stdio) or `http://127.0.0.1:8080/rpc` (HTTP). The
    /// adapter is started (or reached) and its handshake made when the harness runs.
    pub fn adapter(spec: impl Into<String>) -> Harness {
        Harness::from_source(FactorySource::Adapter(spec.into()))
    }

    /// Runs the harness's async work on `runtime` (one the factory's clients already
    /// live on) instead of a runtime of its own.
    pub fn runtime(mut self, runtime: tokio::runtime::Runtime) -> Harness {
        self.runtime = Some(runtime);
        self
    }

    fn from_source(factory: FactorySource) -> Harness {
        Harness {
            factory,
            runtime: None,
            data: None,
            full: false,
            seed: generate::DEFAULT_SEED,
            min_rpr: None,
            expectations: None,
            report_dir: None,
            judge: Arc::new(RuleJudge),
            answerer: Arc::new(Extractive),
            bootstrap: BootstrapConfig::default(),
            env: Box::new(|name| std::env::var(name).ok()),
        }
    }

    /// A harness for systems made by a closure: `Harness::from_fn("mine", Mine::default)`.
    pub fn from_fn<F, S>(name: &str, make: F) -> Harness
    where
        F: Fn() -> S + Send + Sync + 'static,
        S: AsyncMemorySystem + 'static,
    {
        Harness::new(FnFactory::new(name, make))
    }

    /// Runs on a dataset directory instead of the generated data.
    pub fn data(mut self, dir: impl Into<PathBuf>) -> Harness {
        self.data = Some(dir.into());
        self
    }

    /// Uses the full set (or every tier of a dataset directory) instead of Lite.
    pub fn full(mut self, full: bool) -> Harness {
        self.full = full;
        self
    }

    /// Seed of the generated data.
    pub fn seed(mut self, seed: u64) -> Harness {
        self.seed = seed;
        self
    }

    /// Passes the run when the request pass rate is at least `rate`.
    pub fn min_rpr(mut self, rate: f64) -> Harness {
        self.min_rpr = Some(rate);
        self
    }

    /// Reads known failures from an expectations file.
    pub fn expectations(mut self, path: impl Into<PathBuf>) -> Harness {
        self.expectations = Some(path.into());
        self
    }

    /// Writes reports into `dir`.
    pub fn report_dir(mut self, dir: impl Into<PathBuf>) -> Harness {
        self.report_dir = Some(dir.into());
        self
    }

    /// Grades with `judge` instead of the rule judge.
    pub fn judge(mut self, judge: Arc<dyn Judge>) -> Harness {
        self.judge = judge;
        self
    }

    /// Composes answers from memories with `answerer` instead of the extractive one.
    pub fn answerer(mut self, answerer: Arc<dyn Answerer>) -> Harness {
        self.answerer = answerer;
        self
    }

    /// Reads environment variables through `env` instead of the process environment
    /// (for tests of the harness itself).
    pub fn env_source(mut self, env: impl Fn(&str) -> Option<String> + 'static) -> Harness {
        self.env = Box::new(env);
        self
    }

    /// Resolves the builder's settings and the environment into [`Settings`].
    pub fn settings(&self) -> Result<Settings, SettingsError> {
        let env = |name: &str| (self.env)(name).filter(|v| !v.is_empty());
        let flag = |name: &str, default: bool| -> Result<bool, SettingsError> {
            match env(name) {
                None => Ok(default),
                Some(v) => match v.to_ascii_lowercase().as_str() {
                    "1" | "true" | "yes" | "on" => Ok(true),
                    "0" | "false" | "no" | "off" => Ok(false),
                    _ => Err(SettingsError {
                        name: name.into(),
                        value: v,
                        reason: "expected 1/true/yes/on or 0/false/no/off".into(),
                    }),
                },
            }
        };
        let full = flag("BEMULA_FULL", self.full)?;
        let seed = match env("BEMULA_SEED") {
            None => self.seed,
            Some(v) => v.parse().map_err(|_| SettingsError {
                name: "BEMULA_SEED".into(),
                value: v.clone(),
                reason: "expected a non-negative integer".into(),
            })?,
        };
        let data = match env("BEMULA_DATA")
            .map(PathBuf::from)
            .or_else(|| self.data.clone())
        {
            Some(dir) => DataSource::Dir(dir),
            None => DataSource::Generated { seed, full },
        };
        let min_rpr = match env("BEMULA_MIN_RPR") {
            None => self.min_rpr,
            Some(v) => Some(
                v.parse::<f64>()
                    .ok()
                    .filter(|x| (0.0..=1.0).contains(x))
                    .ok_or_else(|| SettingsError {
                        name: "BEMULA_MIN_RPR".into(),
                        value: v.clone(),
                        reason: "expected a fraction in [0, 1], e.g. 0.25".into(),
                    })?,
            ),
        };
        if let Some(rate) = min_rpr
            && !(0.0..=1.0).contains(&rate)
        {
            return Err(SettingsError {
                name: "min_rpr".into(),
                value: rate.to_string(),
                reason: "expected a fraction in [0, 1]".into(),
            });
        }
        let expectations = env("BEMULA_EXPECTATIONS")
            .map(PathBuf::from)
            .or_else(|| self.expectations.clone());
        let bless = flag("BEMULA_BLESS", false)?;
        if bless && expectations.is_none() {
            return Err(SettingsError {
                name: "BEMULA_BLESS".into(),
                value: "1".into(),
                reason: "there is no expectations file to rewrite: set BEMULA_EXPECTATIONS or Harness::expectations".into(),
            });
        }
        let report_dir = env("BEMULA_REPORT_DIR")
            .map(PathBuf::from)
            .or_else(|| self.report_dir.clone())
            .unwrap_or_else(default_report_dir);
        Ok(Settings {
            data,
            full,
            min_rpr,
            expectations,
            bless,
            report_dir,
            bootstrap: self.bootstrap,
        })
    }

    /// Runs the harness with the process's command-line arguments and returns the exit
    /// code, after the reports are written.
    pub fn run(self) -> ExitCode {
        self.run_with_args(Arguments::from_args())
    }

    /// Runs the harness with the given libtest arguments.
    pub fn run_with_args(self, args: Arguments) -> ExitCode {
        match self.try_run(args) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("bemula: error: {}", crate::terminal::lines(&message));
                ExitCode::from(2)
            }
        }
    }

    fn try_run(self, args: Arguments) -> Result<ExitCode, String> {
        let settings = self.settings().map_err(|e| e.to_string())?;
        let exact_instance = args
            .filter
            .as_deref()
            .filter(|_| args.exact)
            .and_then(|name| name.split("::").next())
            .map(str::to_string);
        let dataset = load(&settings.data, exact_instance.as_deref())?.default_tiers(settings.full);
        let expectations = match &settings.expectations {
            Some(path) => Expectations::read(path)?,
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
            return Err(format!(
                "no forget requests in {}: the data is missing or empty",
                dataset.source
            ));
        }
        if args.list {
            // Listing needs the names only: no adapter is started, nothing is ingested.
            let trials = names
                .iter()
                .map(|(name, _, _)| Trial::test(name.clone(), || Ok(())))
                .collect();
            return Ok(libtest_mimic::run(&args, trials).exit_code());
        }
        let mut selected: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (name, instance, request) in &names {
            let probe = Trial::test(name.clone(), || Ok(()));
            if !args.is_filtered_out(&probe) {
                selected
                    .entry(instance.clone())
                    .or_default()
                    .insert(request.clone());
            }
        }
        let runtime = match self.runtime {
            Some(runtime) => runtime,
            None => tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?,
        };
        let factory: SharedFactory = match &self.factory {
            FactorySource::Ready(factory) => factory.clone(),
            FactorySource::Adapter(spec) => {
                let options = crate::system::remote::RemoteOptions::default();
                let client = runtime
                    .block_on(crate::system::remote::connect(spec, &options))
                    .map_err(|e| e.to_string())?;
                Arc::new(client)
            }
        };
        let runner = Runner::new(
            factory.clone(),
            self.answerer.clone(),
            self.judge.clone(),
            RunConfig {
                jobs: 1,
                ..RunConfig::default()
            },
        );
        let parts = std::env::var("NEXTEST_RUN_ID").ok();
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
        let info = RunInfo {
            system: factory.info(),
            judge: self.judge.name(),
            answerer: self.answerer.name(),
            dataset: dataset.source.clone(),
            dataset_checksum: dataset.checksum.clone(),
            data_seed: match settings.data {
                DataSource::Generated { seed, .. } => Some(seed),
                DataSource::Dir(_) => None,
            },
            ..RunInfo::default()
        };
        if !outcomes.is_empty() {
            write_reports(&settings, &info, &records, &outcomes, parts.as_deref())?;
        }
        let total = outcomes.len();
        let passed = outcomes.values().filter(|o| o.passed).count();
        if settings.bless
            && let Some(path) = &settings.expectations
        {
            let mut updated = expectations.clone();
            for (name, outcome) in &outcomes {
                updated.set(name, !outcome.passed);
            }
            updated.write(path)?;
            eprintln!(
                "bemula: rewrote {} from this run: {} known failures",
                path.display(),
                updated.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        let unexpected_passes: Vec<&String> = outcomes
            .iter()
            .filter(|(n, o)| o.passed && expectations.contains(n))
            .map(|(n, _)| n)
            .collect();
        let expected_failures = outcomes
            .iter()
            .filter(|(n, o)| !o.passed && expectations.contains(n))
            .count();
        let regressions = outcomes
            .iter()
            .filter(|(n, o)| !o.passed && !expectations.contains(n))
            .count();
        if let Some(path) = &settings.expectations {
            eprintln!(
                "bemula: expectations {}: {expected_failures} expected failures, {} unexpected passes, {regressions} regressions",
                path.display(),
                unexpected_passes.len()
            );
            for name in &unexpected_passes {
                eprintln!(
                    "bemula: unexpectedly passing: {name} (run with BEMULA_BLESS=1 to update the expectations)"
                );
            }
        }
        if total > 0 && parts.is_none() {
            eprintln!("bemula: reports in {}", settings.report_dir.display());
        }
        let code = match settings.min_rpr {
            Some(min) => {
                let rpr = if total == 0 {
                    0.0
                } else {
                    passed as f64 / total as f64
                };
                let pass = total > 0
                    && rpr + 1e-12 >= min
                    && (settings.expectations.is_none() || regressions == 0);
                eprintln!(
                    "bemula gate: request pass rate {rpr:.3} ({passed} of {total} requests) {} BEMULA_MIN_RPR {min}: {}",
                    if rpr + 1e-12 >= min { ">=" } else { "<" },
                    if pass { "PASS" } else { "FAIL" }
                );
                if pass {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                }
            }
            None => conclusion.exit_code(),
        };
        Ok(code)
    }
}

fn load(source: &DataSource, only: Option<&str>) -> Result<Dataset, String> {
    match source {
        DataSource::Generated { seed, full } => {
            let dataset = generate::generate(&GenConfig {
                seed: *seed,
                lite: !*full,
            });
            Ok(match only {
                Some(id) => Dataset {
                    instances: dataset
                        .instances
                        .into_iter()
                        .filter(|i| i.id == id)
                        .collect(),
                    ..dataset
                },
                None => dataset,
            })
        }
        DataSource::Dir(dir) => {
            if let Some(id) = only {
                let file = dir.join(dataset::file_name(id));
                if !file.is_file() {
                    return Ok(Dataset {
                        instances: Vec::new(),
                        checksum: String::new(),
                        source: dir.display().to_string(),
                    });
                }
                return Dataset::load(&file).map_err(|e| e.to_string());
            }
            Dataset::load(dir).map_err(|e| e.to_string())
        }
    }
}

/// Where the system under test comes from.
enum FactorySource {
    /// A factory made in code.
    Ready(SharedFactory),
    /// An adapter spec, connected when the harness runs.
    Adapter(String),
}

/// The outcome of one trial, kept for the reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialOutcome {
    /// Whether the request passed.
    pub passed: bool,
    /// Whether it is listed as a known failure.
    pub known_failure: bool,
    /// Wall time of the trial in seconds (including the instance's ingestion when this
    /// trial was the one that did it).
    pub seconds: f64,
}

struct Shared {
    runtime: tokio::runtime::Runtime,
    runner: Runner,
    /// Under cargo-nextest (a process per test): where processes share the records of
    /// the instances they ingested, so each instance is ingested once per run.
    share: Option<PathBuf>,
    instances: BTreeMap<String, (Instance, Selection, OnceLock<Vec<Record>>)>,
    outcomes: Mutex<BTreeMap<String, TrialOutcome>>,
}

impl Shared {
    fn trial(
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
        let records = cell.get_or_init(|| self.instance_records(inst, selection));
        let passed = metrics::request_outcomes(records)
            .into_iter()
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
        match (passed, known) {
            (true, false) => Ok(Completion::Completed),
            (true, true) => {
                eprintln!("bemula: {name} passes but is listed as a known failure");
                Ok(Completion::Completed)
            }
            (false, true) => Ok(Completion::ignored_with(
                "known failure (listed in the expectations file)",
            )),
            (false, false) => Err(Failed::from(report::request_message(records, request))),
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

    fn records(&self) -> Vec<Record> {
        self.instances
            .values()
            .filter_map(|(_, _, cell)| cell.get())
            .flatten()
            .cloned()
            .collect()
    }
}

/// How long a process waits for another one's ingestion of an instance before it takes
/// the lock over (the other process is taken to have died).
const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// The records of every question of `instance`, shared by the processes of one run
/// through `dir`: the first process to take `<instance>.lock` computes them and writes
/// `<instance>.jsonl` (atomically); the others wait for that file and read it.
fn shared_instance(
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
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&lock)
        {
            Ok(_) => {
                // Removed when done, and when the ingestion unwinds.
                struct Unlock<'a>(&'a Path);
                impl Drop for Unlock<'_> {
                    fn drop(&mut self) {
                        let _ = std::fs::remove_file(self.0);
                    }
                }
                let _unlock = Unlock(&lock);
                let records = compute.take().map(|f| f()).unwrap_or_default();
                report::write_records(&data, &records).map_err(std::io::Error::other)?;
                return Ok(records);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
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

/// Known failures: one test name a line; `#` starts a comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expectations {
    failures: BTreeSet<String>,
}

impl Expectations {
    /// Reads an expectations file; a missing file is an empty list.
    pub fn read(path: &Path) -> Result<Expectations, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Expectations::default());
            }
            Err(e) => {
                return Err(format!(
                    "{}: cannot read the expectations file: {e}",
                    path.display()
                ));
            }
        };
        let mut failures = BTreeSet::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if line.split_whitespace().count() != 1 || line.split("::").count() != 3 {
                return Err(format!(
                    "{}:{}: expected one test name like `short_003::r2::F3_semantic`, got {line:?}",
                    path.display(),
                    n + 1
                ));
            }
            failures.insert(line.to_string());
        }
        Ok(Expectations { failures })
    }

    /// Whether `name` is a known failure.
    pub fn contains(&self, name: &str) -> bool {
        self.failures.contains(name)
    }

    /// Marks `name` as failing or not.
    pub fn set(&mut self, name: &str, failing: bool) {
        if failing {
            self.failures.insert(name.to_string());
        } else {
            self.failures.remove(name);
        }
    }

    /// Number of known failures.
    pub fn len(&self) -> usize {
        self.failures.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.failures.is_empty()
    }

    /// Writes the file, sorted, with a header.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let mut text = String::from(
            "# bemula expectations: requests known to fail, one test name a line.\n# Rewrite from a run's results with BEMULA_BLESS=1.\n",
        );
        for name in &self.failures {
            text.push_str(name);
            text.push('\n');
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        report::write_file(path, text.as_bytes()).map_err(|e| e.to_string())
    }
}

/// The directory of the report parts that cargo-nextest processes leave.
pub const PARTS: &str = "parts";

fn write_reports(
    settings: &Settings,
    info: &RunInfo,
    records: &[Record],
    outcomes: &BTreeMap<String, TrialOutcome>,
    nextest_run: Option<&str>,
) -> Result<(), String> {
    let dir = &settings.report_dir;
    if let Some(run) = nextest_run {
        // One process per test: leave this process's part; `bemula report DIR` assembles.
        let part_dir = dir.join(PARTS).join(sanitize(run));
        std::fs::create_dir_all(&part_dir).map_err(|e| format!("{}: {e}", part_dir.display()))?;
        let stem = outcomes
            .keys()
            .next()
            .map(|n| sanitize(n))
            .unwrap_or_else(|| format!("pid{}", std::process::id()));
        report::write_records(&part_dir.join(format!("{stem}.jsonl")), records)
            .map_err(|e| e.to_string())?;
        let part = Part {
            info: info.clone(),
            trials: outcomes.clone(),
        };
        let json = serde_json::to_vec_pretty(&part).map_err(|e| e.to_string())?;
        return report::write_file(&part_dir.join(format!("{stem}.trials.json")), &json)
            .map_err(|e| e.to_string());
    }
    let summary = Summary::build(records, info.clone(), &settings.bootstrap);
    let times = outcomes
        .iter()
        .map(|(n, o)| (n.clone(), o.seconds))
        .collect();
    report::write_all(dir, records, &summary, &times).map_err(|e| e.to_string())
}

/// What one test process leaves in a parts directory besides its records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Part {
    /// The run's configuration.
    pub info: RunInfo,
    /// Its trials' outcomes by test name.
    pub trials: BTreeMap<String, TrialOutcome>,
}

/// Assembles the reports of a run whose tests ran in separate processes (cargo-nextest):
/// reads the newest parts directory under `dir/parts/`, merges the records (the first
/// record of each (instance, version, question) wins), and writes the usual reports into
/// `dir`. Returns the summary.
pub fn assemble(dir: &Path, bootstrap: &BootstrapConfig) -> Result<Summary, String> {
    let parts = dir.join(PARTS);
    let newest = std::fs::read_dir(&parts)
        .map_err(|e| {
            format!(
                "{}: no report parts to assemble ({e}); run the tests under cargo-nextest first",
                parts.display()
            )
        })?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .map(|e| e.path())
        .ok_or_else(|| format!("{}: no report parts to assemble", parts.display()))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&newest)
        .map_err(|e| format!("{}: {e}", newest.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    files.sort();
    let mut records: Vec<Record> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut trials = BTreeMap::new();
    let mut info = None;
    for file in &files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".trials.json") {
            let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let part: Part = serde_json::from_slice(&bytes)
                .map_err(|e| format!("{}: not a bemula report part: {e}", file.display()))?;
            info.get_or_insert(part.info);
            trials.extend(part.trials);
        } else if name.ends_with(".jsonl") {
            for record in report::read_records(file).map_err(|e| e.to_string())? {
                if seen.insert((
                    record.instance.clone(),
                    record.version,
                    record.question_id.clone(),
                )) {
                    records.push(record);
                }
            }
        }
    }
    let info = info.ok_or_else(|| format!("{}: no trial outcomes found", newest.display()))?;
    records.sort_by(|a, b| (&a.instance, a.version).cmp(&(&b.instance, b.version)));
    let summary = Summary::build(&records, info, bootstrap);
    let times = trials
        .iter()
        .map(|(n, o): (&String, &TrialOutcome)| (n.clone(), o.seconds))
        .collect();
    report::write_all(dir, &records, &summary, &times).map_err(|e| e.to_string())?;
    Ok(summary)
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `target/bemula/<test binary>`: the target directory is found from the running test
/// binary (the ancestor holding cargo's `CACHEDIR.TAG`), or `CARGO_TARGET_DIR`.
fn default_report_dir() -> PathBuf {
    let exe = std::env::current_exe().ok();
    let binary = exe
        .as_ref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .map(|s| match s.rsplit_once('-') {
            Some((stem, hash))
                if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                stem.to_string()
            }
            _ => s,
        })
        .unwrap_or_else(|| "bemula".into());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            exe.as_ref().and_then(|p| {
                p.ancestors()
                    .find(|a| a.join("CACHEDIR.TAG").is_file())
                    .map(Path::to_path_buf)
            })
        })
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("bemula").join(binary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn harness_with(env: &[(&str, &str)]) -> Harness {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Harness::from_fn("null", crate::system::builtin::Null::default)
            .min_rpr(0.5)
            .seed(7)
            .env_source(move |name| env.get(name).cloned())
    }

    #[test]
    fn the_builder_holds_unless_the_environment_says_otherwise() {
        let s = harness_with(&[]).settings().unwrap();
        assert_eq!(s.min_rpr, Some(0.5));
        assert_eq!(
            s.data,
            DataSource::Generated {
                seed: 7,
                full: false
            }
        );
        let s = harness_with(&[
            ("BEMULA_MIN_RPR", "0.25"),
            ("BEMULA_SEED", "9"),
            ("BEMULA_FULL", "yes"),
        ])
        .settings()
        .unwrap();
        assert_eq!(s.min_rpr, Some(0.25));
        assert_eq!(
            s.data,
            DataSource::Generated {
                seed: 9,
                full: true
            }
        );
        let s = harness_with(&[
            ("BEMULA_DATA", "/data/bemula"),
            ("BEMULA_REPORT_DIR", "/tmp/r"),
        ])
        .settings()
        .unwrap();
        assert_eq!(s.data, DataSource::Dir("/data/bemula".into()));
        assert_eq!(s.report_dir, PathBuf::from("/tmp/r"));
    }

    #[test]
    fn malformed_values_are_errors_naming_the_variable() {
        for (name, value) in [
            ("BEMULA_MIN_RPR", "1.5"),
            ("BEMULA_MIN_RPR", "half"),
            ("BEMULA_FULL", "maybe"),
            ("BEMULA_SEED", "-1"),
            ("BEMULA_BLESS", "2"),
        ] {
            let err = harness_with(&[(name, value)]).settings().expect_err(name);
            assert_eq!(err.name, name);
            assert!(
                err.to_string().starts_with(&format!("{name}=\"{value}\"")),
                "{err}"
            );
        }
        let err = harness_with(&[("BEMULA_BLESS", "1")])
            .settings()
            .expect_err("nothing to bless");
        assert!(err.to_string().contains("no expectations file"), "{err}");
    }

    #[test]
    fn expectations_round_trip_and_reject_malformed_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("expected.txt");
        let mut e = Expectations::default();
        e.set("short_002::r1::F3_semantic", true);
        e.set("short_001::r1::F1_factual", true);
        e.set("short_002::r1::F3_semantic", false);
        e.write(&path).unwrap();
        let back = Expectations::read(&path).unwrap();
        assert_eq!(back, e);
        assert!(back.contains("short_001::r1::F1_factual") && back.len() == 1);
        assert!(
            Expectations::read(&dir.path().join("missing.txt"))
                .unwrap()
                .is_empty()
        );
        std::fs::write(&path, "# a comment\nshort_001::r1\n").unwrap();
        let err = Expectations::read(&path).unwrap_err();
        assert!(err.contains("expected.txt:2:"), "{err}");
    }
}
