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

use crate::answer::Answerer;
use crate::dataset::{Dataset, Instance};
pub use crate::gate::{GateOn, MetricGate};
use crate::generate::{self, GenConfig};
use crate::judge::Judge;
use crate::judge::rule::RuleJudge;
use crate::metrics::{self, BootstrapConfig};
use crate::oracle::Oracle;
use crate::record::Record;
use crate::report::journal::{self, Journal, JournalConfig};
use crate::report::{self, RunInfo, Summary};
use crate::run::{RunConfig, Runner, Selection};
use crate::system::remote::{RemoteFactory, preflight};
use crate::system::spec::SystemSpec;
use crate::system::{AsyncMemorySystem, FnFactory, SharedFactory, SystemFactory};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

mod data_cache;

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
        /// Generator of the data.
        generator: generate::Generator,
        /// Phrasing half of the data.
        phrasing: generate::Phrasing,
    },
    /// A dataset directory (or one instance file) in the Bemula format.
    Dir(PathBuf),
    /// The hand-realised Bemula-Lite compiled into bemula
    /// ([`crate::dataset::realised`]): the default, unless a generator setting, the
    /// full set or `BEMULA_DATA` asks for other data.
    Realised,
}

/// The resolved settings of a harness run.
///
/// | variable | meaning |
/// |---|---|
/// | `BEMULA_DATA` | dataset directory; `realised`: the hand-realised Lite (the default); `generated`: the generated data |
/// | `BEMULA_FULL` | `1`/`true`: the full generated set (or every tier of `BEMULA_DATA`) |
/// | `BEMULA_SEED` | seed of the generated data (default 42); set, the data is generated |
/// | `BEMULA_GENERATOR` | generator of the generated data: `v1` or `v2`; set, the data is generated |
/// | `BEMULA_PHRASING` | phrasing of generated v2 data: `dev`, `test` or `all` (default); set, the data is generated |
/// | `BEMULA_MIN_RPR` | gate: pass when the request pass rate is at least this, in [0, 1] |
/// | `BEMULA_MIN` | gate: metric minimums, fractions: `FE=0.3,Score=0.1` (any of RA, FE, PR, RLA, AR, RPR, FA, UG, Score) |
/// | `BEMULA_BASELINE` | regression gate: a blessed baseline's report directory |
/// | `BEMULA_MAX_DROP` | tolerated drops against the baseline, `Score=0.02` (default) |
/// | `BEMULA_BLESS_BASELINE` | `1`: write this run's reports as the baseline instead of gating (under cargo-nextest: by `bemula report DIR --baseline BASE --bless-baseline`) |
/// | `BEMULA_GATE_ON` | what `BEMULA_MIN` compares: `point` (estimate, default) or `lower` (end of the 95% interval) |
/// | `BEMULA_EXPECTATIONS` | expectations file of known failures (must exist, unless blessing) |
/// | `BEMULA_BLESS` | `1`: rewrite (or create) the expectations file from this run's results (under cargo-nextest: by `bemula report DIR --expectations FILE --bless`) |
/// | `BEMULA_REPORT_DIR` | report directory (default `target/bemula/<test binary>`) |
/// | `BEMULA_RESUME` | `1`: continue the interrupted run journaled in the report directory |
/// | `BEMULA_NO_PREFLIGHT` | `1`: skip the adapter preflight ([`crate::system::remote::preflight`]) |
/// | `BEMULA_ADAPTER_PROCESSES` | copies of a stdio adapter ([`Harness::adapter`] with `cmd:…`) run side by side, each namespace served by one (default 1) |
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Data source.
    pub data: DataSource,
    /// Every tier of the data rather than Bemula-Lite.
    pub full: bool,
    /// Gate on the request pass rate.
    pub min_rpr: Option<f64>,
    /// Where the pass-rate gate came from: `BEMULA_MIN_RPR`, or the builder's
    /// `min_rpr` (`--min-rpr` of `bemula test`).
    pub min_rpr_source: String,
    /// Gate on metric minimums (`BEMULA_MIN`, `BEMULA_GATE_ON`, or the builder's
    /// [`Harness::min`] and [`Harness::gate_on`]).
    pub min: Option<MetricGate>,
    /// Regression gate against a blessed baseline (`BEMULA_BASELINE`,
    /// `BEMULA_MAX_DROP`, or [`Harness::baseline`] and [`Harness::max_drop`]).
    pub regression: Option<crate::gate::RegressionGate>,
    /// Write this run's reports as the baseline instead of gating on it
    /// (`BEMULA_BLESS_BASELINE=1`).
    pub bless_baseline: bool,
    /// Expectations file.
    pub expectations: Option<PathBuf>,
    /// Rewrite the expectations file.
    pub bless: bool,
    /// Report directory.
    pub report_dir: PathBuf,
    /// Bootstrap of the summary's intervals.
    pub bootstrap: BootstrapConfig,
    /// Continue the interrupted run journaled in the report directory.
    pub resume: bool,
    /// Check an adapter with the preflight before any request runs.
    pub preflight: bool,
    /// Copies of a stdio adapter run side by side ([`Harness::adapter_processes`],
    /// `BEMULA_ADAPTER_PROCESSES`).
    pub adapter_processes: usize,
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
    seed: Option<u64>,
    generator: Option<generate::Generator>,
    phrasing: Option<generate::Phrasing>,
    min_rpr: Option<f64>,
    min: Option<String>,
    gate_on: GateOn,
    baseline: Option<PathBuf>,
    max_drop: Option<String>,
    expectations: Option<PathBuf>,
    report_dir: Option<PathBuf>,
    judge: Arc<dyn Judge>,
    answerer: Arc<dyn Answerer>,
    bootstrap: BootstrapConfig,
    preflight: bool,
    adapter_processes: usize,
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

    /// A harness for the system a spec names, as `--system` names it
    /// ([`SystemSpec`]): an adapter of the `bemula-adapter/1` protocol,
    /// `cmd:python3 my_adapter.py` (stdio) or `http://127.0.0.1:8080/rpc` (HTTP), whose
    /// process is started (or server reached) and handshake made when the harness runs;
    /// a built-in system (`naive-rag`); or an instrument (`oracle-forget`). A malformed
    /// spec, or one that needs a model endpoint (`full-context:MODEL`), is an error
    /// when the harness runs.
    pub fn adapter(spec: impl Into<String>) -> Harness {
        Harness::from_source(FactorySource::Adapter(spec.into()))
    }

    /// A harness for an adapter already connected (with [`Harness::runtime`], the
    /// runtime its client lives on). Like [`Harness::adapter`], it is checked by the
    /// preflight before any request runs.
    pub fn with_remote(client: Arc<RemoteFactory>) -> Harness {
        Harness::from_source(FactorySource::Remote(client))
    }

    /// A harness for a measuring instrument that reads the dataset it is evaluated on:
    /// `oracle-forget` (the positive control) or `oracle-wipe` (the degenerate
    /// control); see [`crate::system::builtin::instrument`]. Another name is an error
    /// when the harness runs.
    pub fn instrument(name: impl Into<String>) -> Harness {
        Harness::from_source(FactorySource::Instrument(name.into()))
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
            seed: None,
            generator: None,
            phrasing: None,
            min_rpr: None,
            min: None,
            gate_on: GateOn::Point,
            baseline: None,
            max_drop: None,
            expectations: None,
            report_dir: None,
            judge: Arc::new(RuleJudge),
            answerer: Arc::new(Oracle::new()),
            bootstrap: BootstrapConfig::default(),
            preflight: true,
            adapter_processes: 1,
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

    /// Seed of the generated data; the run then uses generated data (by default it
    /// uses the hand-realised Lite, see [`DataSource::Realised`]).
    pub fn seed(mut self, seed: u64) -> Harness {
        self.seed = Some(seed);
        self
    }

    /// Generator of the generated data; the run then uses generated data.
    pub fn generator(mut self, generator: generate::Generator) -> Harness {
        self.generator = Some(generator);
        self
    }

    /// Phrasing half of generated v2 data; the run then uses generated data.
    pub fn phrasing(mut self, phrasing: generate::Phrasing) -> Harness {
        self.phrasing = Some(phrasing);
        self
    }

    /// Passes the run when the request pass rate is at least `rate`.
    pub fn min_rpr(mut self, rate: f64) -> Harness {
        self.min_rpr = Some(rate);
        self
    }

    /// Reads known failures from an expectations file.
    /// Gate on metric minimums, `FE=0.3,Score=0.1` (fractions; see
    /// [`MetricGate::parse`]); `BEMULA_MIN` overrides. A malformed value is an error
    /// naming the bad part when the harness runs.
    pub fn min(mut self, spec: impl Into<String>) -> Harness {
        self.min = Some(spec.into());
        self
    }

    /// What the metric gate compares: the point estimate (default) or the lower end
    /// of the 95% interval; `BEMULA_GATE_ON=point|lower` overrides.
    pub fn gate_on(mut self, on: GateOn) -> Harness {
        self.gate_on = on;
        self
    }

    /// Regression gate: the blessed baseline's report directory (`BEMULA_BASELINE`
    /// overrides); see [`crate::gate::RegressionGate`].
    pub fn baseline(mut self, dir: impl Into<PathBuf>) -> Harness {
        self.baseline = Some(dir.into());
        self
    }

    /// Tolerated drops against the baseline, `Score=0.02` (the default);
    /// `BEMULA_MAX_DROP` overrides.
    pub fn max_drop(mut self, spec: impl Into<String>) -> Harness {
        self.max_drop = Some(spec.into());
        self
    }

    /// The expectations file of known failures.
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

    /// Composes answers from memories with `answerer` instead of the oracle reader
    /// (for example `Arc::new(bemula::answer::Extractive)`, or an LLM answerer).
    pub fn answerer(mut self, answerer: Arc<dyn Answerer>) -> Harness {
        self.answerer = answerer;
        self
    }

    /// Whether an adapter is checked by the preflight (a few seconds of isolation,
    /// reset and concurrency checks on canary namespaces) before any request runs; on
    /// by default. `BEMULA_NO_PREFLIGHT=1` turns it off. Systems in the process are
    /// never preflighted.
    pub fn preflight(mut self, on: bool) -> Harness {
        self.preflight = on;
        self
    }

    /// How many copies of a stdio adapter ([`Harness::adapter`] with a `cmd:` spec) run
    /// side by side; each namespace is served by one of them for the whole run (see
    /// [`crate::system::remote::RemoteOptions::processes`]). `BEMULA_ADAPTER_PROCESSES`
    /// overrides it. Only adapters the harness starts can be pooled.
    pub fn adapter_processes(mut self, n: usize) -> Harness {
        self.adapter_processes = n;
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
        let (processes_name, processes_value) = match env("BEMULA_ADAPTER_PROCESSES") {
            Some(v) => ("BEMULA_ADAPTER_PROCESSES", v),
            None => ("adapter_processes", self.adapter_processes.to_string()),
        };
        let adapter_processes = processes_value
            .parse::<usize>()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| SettingsError {
                name: processes_name.into(),
                value: processes_value.clone(),
                reason: "expected a whole number of processes, at least 1".into(),
            })?;
        if adapter_processes > 1 {
            let reason = match &self.factory {
                FactorySource::Adapter(spec)
                    if !matches!(spec.parse(), Ok(SystemSpec::Stdio(_))) =>
                {
                    Some(
                        "a pool of adapter processes is for stdio adapters (`cmd:…`); a \
                         built-in system runs in this process, and an HTTP adapter's server \
                         decides how many calls it serves at once",
                    )
                }
                FactorySource::Ready(_) | FactorySource::Instrument(_) => {
                    Some("the system runs in this process: there is no adapter to start copies of")
                }
                _ => None,
            };
            if let Some(reason) = reason {
                return Err(SettingsError {
                    name: processes_name.into(),
                    value: processes_value,
                    reason: reason.into(),
                });
            }
        }
        // Any setting of the generator asks for generated data, as `--full` does (the
        // realised edition covers Lite only).
        let generated = full
            || self.seed.is_some()
            || self.generator.is_some()
            || self.phrasing.is_some()
            || ["BEMULA_SEED", "BEMULA_GENERATOR", "BEMULA_PHRASING"]
                .iter()
                .any(|name| env(name).is_some());
        let seed = match env("BEMULA_SEED") {
            None => self.seed.unwrap_or(generate::DEFAULT_SEED),
            Some(v) => v.parse().map_err(|_| SettingsError {
                name: "BEMULA_SEED".into(),
                value: v.clone(),
                reason: "expected a non-negative integer".into(),
            })?,
        };
        let generator = match env("BEMULA_GENERATOR") {
            None => self.generator.unwrap_or_default(),
            Some(v) => v.parse().map_err(|reason| SettingsError {
                name: "BEMULA_GENERATOR".into(),
                value: v.clone(),
                reason,
            })?,
        };
        let phrasing = match env("BEMULA_PHRASING") {
            None => self.phrasing.unwrap_or_default(),
            Some(v) => v.parse().map_err(|reason| SettingsError {
                name: "BEMULA_PHRASING".into(),
                value: v.clone(),
                reason,
            })?,
        };
        let check = GenConfig {
            seed,
            lite: !full,
            generator,
            phrasing,
        };
        check.check().map_err(|reason| SettingsError {
            name: "BEMULA_PHRASING".into(),
            value: phrasing.name().into(),
            reason,
        })?;
        let data = match env("BEMULA_DATA")
            .map(PathBuf::from)
            .or_else(|| self.data.clone())
        {
            Some(dir) if dir.as_os_str() == crate::dataset::GENERATED && !dir.exists() => {
                DataSource::Generated {
                    seed,
                    full,
                    generator,
                    phrasing,
                }
            }
            Some(dir) => DataSource::Dir(dir),
            None if generated => DataSource::Generated {
                seed,
                full,
                generator,
                phrasing,
            },
            None => DataSource::Realised,
        };
        let min_rpr_source = if env("BEMULA_MIN_RPR").is_some() {
            "BEMULA_MIN_RPR"
        } else {
            "min_rpr (--min-rpr)"
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
        let gate_on = match env("BEMULA_GATE_ON") {
            None => self.gate_on,
            Some(v) => v.parse().map_err(|reason| SettingsError {
                name: "BEMULA_GATE_ON".into(),
                value: v.clone(),
                reason,
            })?,
        };
        let (min_name, min_spec) = match env("BEMULA_MIN") {
            Some(v) => ("BEMULA_MIN", Some(v)),
            None => ("min (--min)", self.min.clone()),
        };
        let min =
            match min_spec {
                None => None,
                Some(v) => Some(MetricGate::parse(&v, gate_on, min_name).map_err(|reason| {
                    SettingsError {
                        name: min_name.into(),
                        value: v.clone(),
                        reason,
                    }
                })?),
            };
        let baseline = env("BEMULA_BASELINE")
            .map(PathBuf::from)
            .or_else(|| self.baseline.clone());
        let (drop_name, drop_spec) = match env("BEMULA_MAX_DROP") {
            Some(v) => ("BEMULA_MAX_DROP", v),
            None => (
                "max_drop (--max-drop)",
                self.max_drop.clone().unwrap_or_else(|| "Score=0.02".into()),
            ),
        };
        let regression = match &baseline {
            None => None,
            Some(dir) => Some(
                crate::gate::RegressionGate::parse(dir, &drop_spec, self.bootstrap).map_err(
                    |reason| SettingsError {
                        name: drop_name.into(),
                        value: drop_spec.clone(),
                        reason,
                    },
                )?,
            ),
        };
        let bless_baseline = flag("BEMULA_BLESS_BASELINE", false)?;
        if bless_baseline && baseline.is_none() {
            return Err(SettingsError {
                name: "BEMULA_BLESS_BASELINE".into(),
                value: env("BEMULA_BLESS_BASELINE").unwrap_or_default(),
                reason: "there is no baseline directory to write: set BEMULA_BASELINE or Harness::baseline".into(),
            });
        }
        let expectations = env("BEMULA_EXPECTATIONS")
            .map(PathBuf::from)
            .or_else(|| self.expectations.clone());
        let bless = flag("BEMULA_BLESS", false)?;
        if bless && expectations.is_none() {
            return Err(SettingsError {
                name: "BEMULA_BLESS".into(),
                value: env("BEMULA_BLESS").unwrap_or_default(),
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
            min_rpr_source: min_rpr_source.into(),
            min,
            regression,
            bless_baseline,
            expectations,
            bless,
            report_dir,
            bootstrap: self.bootstrap,
            resume: flag("BEMULA_RESUME", false)?,
            preflight: !flag("BEMULA_NO_PREFLIGHT", !self.preflight)?,
            adapter_processes,
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
        let dataset = load(&settings.data, settings.full)?;
        let expectations = match &settings.expectations {
            Some(path) => Expectations::read_or_bless(path, settings.bless)?,
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
        let nextest_run = std::env::var("NEXTEST_RUN_ID").ok();
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
                report::check_writable(&settings.report_dir).map_err(|e| e.to_string())?;
                Some(
                    report::DirLock::report_dir_of(
                        &settings.report_dir,
                        "BEMULA_REPORT_DIR (--report-dir of `bemula test`)",
                    )
                    .map_err(|e| e.to_string())?,
                )
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
                report::remove_reports(&settings.report_dir).map_err(|e| e.to_string())?;
            }
        }
        let runtime = match self.runtime {
            Some(runtime) => runtime,
            None => tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?,
        };
        let (factory, remote): (SharedFactory, Option<Arc<RemoteFactory>>) = match &self.factory {
            FactorySource::Ready(factory) => (factory.clone(), None),
            FactorySource::Instrument(name) => (
                crate::system::builtin::instrument::factory(name, &dataset.instances).ok_or_else(
                    || {
                        format!(
                            "unknown instrument {name:?}: expected one of {}",
                            crate::system::builtin::instrument::NAMES.join(", ")
                        )
                    },
                )?,
                None,
            ),
            FactorySource::Remote(client) => (client.clone(), Some(client.clone())),
            FactorySource::Adapter(spec) => match spec.parse::<SystemSpec>()? {
                SystemSpec::Builtin(name) => (
                    crate::system::builtin::factory(&name)
                        .ok_or_else(|| format!("unknown built-in system {name:?}"))?,
                    None,
                ),
                SystemSpec::Instrument(name) => (
                    crate::system::builtin::instrument::factory(&name, &dataset.instances)
                        .ok_or_else(|| format!("unknown instrument {name:?}"))?,
                    None,
                ),
                SystemSpec::Stdio(spec) | SystemSpec::Http(spec) => {
                    let options = crate::system::remote::RemoteOptions {
                        processes: settings.adapter_processes,
                        ..Default::default()
                    };
                    let client = Arc::new(
                        runtime
                            .block_on(crate::system::remote::connect(&spec, &options))
                            .map_err(|e| e.to_string())?,
                    );
                    (client.clone(), Some(client))
                }
                llm @ (SystemSpec::FullContext(_) | SystemSpec::EmbedRag(_)) => {
                    return Err(format!(
                        "`{llm}` needs a model endpoint, which Harness::adapter does not set up: \
                         run it with `bemula test --system {llm}` (the endpoint flags and \
                         BEMULA_LLM_BASE_URL apply), or build its factory and pass it to \
                         Harness::with_factory"
                    ));
                }
            },
        };
        if let Some(run) = &nextest_run {
            // The first process of a new nextest run makes room for its parts, and the
            // reports of an earlier run no longer look current.
            let parts_dir = settings.report_dir.join(PARTS);
            let run_dir = parts_dir.join(sanitize(run));
            if !run_dir.exists() {
                prune_part_runs(&parts_dir, KEEP_PART_RUNS - 1);
                std::fs::create_dir_all(&run_dir)
                    .map_err(|e| format!("{}: {e}", run_dir.display()))?;
                mark_reports_pending(&settings.report_dir, run).map_err(|e| e.to_string())?;
            }
        }
        if let Some(client) = remote
            .as_ref()
            .filter(|_| settings.preflight && !selected.is_empty())
        {
            run_preflight(&runtime, client, &settings, nextest_run.as_deref())?;
        }
        let mut runner = Runner::new(
            factory.clone(),
            self.answerer.clone(),
            self.judge.clone(),
            RunConfig {
                jobs: 1,
                ..RunConfig::default()
            },
        );
        // A plain run's one id: its journal's (the interrupted run's, when resumed),
        // which the summary carries too.
        let mut run_id = None;
        if nextest_run.is_none() && !selected.is_empty() {
            // A plain run journals its passes, so that an interrupted run can resume.
            let config = JournalConfig {
                spec: factory.info().name,
                system: factory.info(),
                judge: self.judge.name(),
                answerer: self.answerer.name(),
                dataset_checksum: dataset.checksum.clone(),
                data_seed: match settings.data {
                    DataSource::Generated { seed, .. } => Some(seed),
                    DataSource::Dir(_) | DataSource::Realised => None,
                },
                instances: selected_names.iter().cloned().collect(),
                shard: None,
                system_retries: crate::retry::DEFAULT_RETRIES,
                bootstrap: (settings.bootstrap.resamples, settings.bootstrap.seed),
            };
            let path = settings.report_dir.join(journal::JOURNAL);
            let (journal, completed) = if settings.resume && path.is_file() {
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
                let resumed =
                    Journal::resume(&path, &config, &expected).map_err(|e| e.to_string())?;
                for why in &resumed.rejected {
                    eprintln!("bemula: {}: {why}", path.display());
                }
                let (journal, completed) = (resumed.journal, resumed.completed);
                eprintln!(
                    "bemula: resuming run {}: {} passes already done",
                    journal.run_id(),
                    completed.len()
                );
                (journal, completed)
            } else {
                let journal = Journal::create(&path, &report::new_run_id(), &config)
                    .map_err(|e| e.to_string())?;
                (journal, Default::default())
            };
            run_id = Some(journal.run_id().to_string());
            let journal = Arc::new(journal);
            runner = runner
                .with_completed(completed)
                .with_pass_observer(Arc::new(move |pass: &crate::run::PassDone<'_>| {
                    if let Err(err) = journal.append(pass.instance, pass.version, pass.records) {
                        eprintln!("bemula: warning: the run journal cannot be written: {err}");
                    }
                }));
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
        let mut info = RunInfo {
            system: factory.info(),
            judge: self.judge.name(),
            answerer: self.answerer.name(),
            dataset: dataset.source.clone(),
            dataset_checksum: dataset.checksum.clone(),
            data_seed: match settings.data {
                DataSource::Generated { seed, .. } => Some(seed),
                DataSource::Dir(_) | DataSource::Realised => None,
            },
            ..RunInfo::default()
        };
        if let Some(remote) = remote.as_ref().filter(|r| r.processes() > 1) {
            info.extra.insert(
                "adapter_processes".into(),
                serde_json::json!(remote.process_stats()),
            );
            if let Some(line) = remote.pool_line() {
                eprintln!("bemula: {line}");
            }
        }
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
                &info,
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
            updated.write(path)?;
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
                crate::gate::bless_baseline(&settings.report_dir, &gate.baseline)?
            );
            return Ok(ExitCode::SUCCESS);
        }
        let mut regression_lines: Vec<String> = Vec::new();
        let mut regression_pass = true;
        if let (Some(gate), Some(summary)) = (
            settings.regression.as_ref().filter(|_| !deferred_gate),
            summary.as_ref(),
        ) {
            let (ok, lines) = gate.check(summary, &records)?;
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

/// A gate on a run's outcomes: a minimum request pass rate, an expectations file of
/// known failures, and complete coverage. The harness and `bemula report` apply the
/// same gate.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// The minimum request pass rate and where it came from (`BEMULA_MIN_RPR`,
    /// `--min-rpr`).
    pub min_rpr: Option<(f64, String)>,
    /// The expectations file and its known failures.
    pub expectations: Option<(PathBuf, Expectations)>,
    /// Gate on the requests present even when some expected ones are missing.
    pub allow_partial: bool,
    /// Minimums of metrics, checked on the run's summary.
    pub metrics: Option<MetricGate>,
}

/// What a [`Gate`] decided, and the lines that say why.
#[derive(Debug, Clone, PartialEq)]
pub struct GateDecision {
    /// Whether the run passes.
    pub pass: bool,
    /// One line per check, ready to print.
    pub lines: Vec<String>,
    /// The pass-rate line, if there was a pass-rate gate.
    pub rate_line: Option<String>,
    /// The first check that failed, if any.
    pub failed_because: Option<String>,
}

impl GateDecision {
    /// Folds the regression gate's outcome into this decision: a failed regression
    /// fails the run (its first failing line says why); a passed one stands as the
    /// summary line when no pass-rate gate gave one. `lines` are the regression gate's.
    pub fn add_regression(&mut self, pass: bool, lines: &[String]) {
        if !pass {
            self.pass = false;
            self.failed_because.get_or_insert_with(|| {
                lines
                    .iter()
                    .find(|l| l.contains(": FAIL"))
                    .cloned()
                    .unwrap_or_default()
            });
        } else if self.rate_line.is_none() && !lines.is_empty() {
            self.rate_line = Some(
                lines
                    .iter()
                    .map(|l| l.trim_start_matches("bemula gate: "))
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
    }

    /// The closing line of a gated run: the decision first, then why, then what
    /// libtest's `test result` line (printed just above) counts.
    pub fn closing_line(&self, failed_tests: u64) -> String {
        let verdict = if self.pass {
            "bemula gate: PASSED (exit status 0)"
        } else {
            "bemula gate: FAILED (exit status 1)"
        };
        let why = self
            .failed_because
            .clone()
            .or_else(|| self.rate_line.clone())
            .or_else(|| self.lines.first().cloned())
            .unwrap_or_default();
        let why = why
            .trim_start_matches("bemula gate: ")
            .trim_start_matches("bemula: ");
        if failed_tests > 0 {
            format!(
                "{verdict}: {why}. The {failed_tests} failed test(s) counted above are requests that failed; the gate decides the run."
            )
        } else {
            format!("{verdict}: {why}.")
        }
    }
}

impl Gate {
    /// Decides on `outcomes` (pass or fail by test name) with the report's `coverage`
    /// (`None`: not checked).
    pub fn decide(
        &self,
        outcomes: &BTreeMap<String, bool>,
        coverage: Option<&report::Coverage>,
    ) -> GateDecision {
        self.decide_with(outcomes, coverage, None)
    }

    /// [`Gate::decide`], with the run's summary for the metric gate (a metric gate
    /// without a summary fails, saying so).
    pub fn decide_with(
        &self,
        outcomes: &BTreeMap<String, bool>,
        coverage: Option<&report::Coverage>,
        summary: Option<&Summary>,
    ) -> GateDecision {
        let mut lines = Vec::new();
        let mut pass = true;
        let mut failed_because = None;
        if let Some(coverage) = coverage.filter(|c| !c.is_complete()) {
            if self.allow_partial {
                lines.push(format!(
                    "bemula gate: {} (allowed by --allow-partial)",
                    coverage.line()
                ));
            } else {
                pass = false;
                failed_because = Some(coverage.line());
                lines.push(format!(
                    "bemula gate: {}: FAIL (a gate needs every expected request; --allow-partial gates on those present)",
                    coverage.line()
                ));
            }
        }
        if let Some((path, known)) = &self.expectations {
            let unexpected: Vec<&String> = outcomes
                .iter()
                .filter(|(n, p)| **p && known.contains(n))
                .map(|(n, _)| n)
                .collect();
            let expected_failures = outcomes
                .iter()
                .filter(|(n, p)| !**p && known.contains(n))
                .count();
            let regressions: Vec<&String> = outcomes
                .iter()
                .filter(|(n, p)| !**p && !known.contains(n))
                .map(|(n, _)| n)
                .collect();
            lines.push(format!(
                "bemula: expectations {}: {expected_failures} expected failures, {} unexpected passes, {} regressions",
                path.display(),
                unexpected.len(),
                regressions.len()
            ));
            for name in &unexpected {
                lines.push(format!(
                    "bemula: unexpectedly passing: {name} (run with BEMULA_BLESS=1 to update the expectations)"
                ));
            }
            for name in &regressions {
                lines.push(format!("bemula: regression: {name}"));
            }
            if !regressions.is_empty() {
                pass = false;
                failed_because.get_or_insert_with(|| {
                    format!(
                        "{} regression(s), first {}",
                        regressions.len(),
                        regressions[0]
                    )
                });
            }
        }
        let mut rate_line = None;
        if let Some((min, source)) = &self.min_rpr {
            let total = outcomes.len();
            let passed = outcomes.values().filter(|p| **p).count();
            let rpr = if total == 0 {
                0.0
            } else {
                passed as f64 / total as f64
            };
            let ok = total > 0 && rpr + 1e-12 >= *min;
            pass &= ok;
            let line = format!(
                "bemula gate: request pass rate {rpr:.3} ({passed} of {total} requests) {} {source} {min}: {}",
                if rpr + 1e-12 >= *min { ">=" } else { "<" },
                if ok { "PASS" } else { "FAIL" }
            );
            if !ok {
                failed_because.get_or_insert_with(|| line.clone());
            }
            rate_line = Some(line.clone());
            lines.push(line);
        }
        if let Some(gate) = &self.metrics {
            let (ok, metric_lines) = match summary {
                Some(summary) => gate.check(summary),
                None => (
                    false,
                    vec![format!(
                        "bemula gate: {} {}: FAIL (no results to compute the metrics from)",
                        gate.source,
                        gate.spec()
                    )],
                ),
            };
            pass &= ok;
            if !ok {
                let first = metric_lines
                    .iter()
                    .find(|l| l.contains("FAIL"))
                    .cloned()
                    .unwrap_or_default();
                failed_because.get_or_insert(first);
            } else if rate_line.is_none() {
                rate_line = Some(
                    metric_lines
                        .iter()
                        .map(|l| l.trim_start_matches("bemula gate: "))
                        .collect::<Vec<_>>()
                        .join("; "),
                );
            }
            lines.extend(metric_lines);
        }
        GateDecision {
            pass,
            lines,
            rate_line,
            failed_because,
        }
    }
}

/// The dataset of a run: every test name must be known even when one request runs
/// (`--exact`), so that filters count what they leave out and the report knows what
/// the whole run covers.
fn load(source: &DataSource, full: bool) -> Result<Dataset, String> {
    match source {
        // Generated data already holds the tiers asked for.
        DataSource::Generated {
            seed,
            full,
            generator,
            phrasing,
        } => {
            let config = GenConfig {
                seed: *seed,
                generator: *generator,
                phrasing: *phrasing,
                lite: !*full,
            };
            Ok(match target_dir() {
                Some(target) => data_cache::load_or_generate(&target, &config),
                None => generate::generate(&config),
            })
        }
        DataSource::Realised => crate::dataset::realised::load().map_err(|e| e.to_string()),
        DataSource::Dir(dir) => Dataset::open(dir)
            .map(|d| d.default_tiers(full))
            .map_err(|e| e.to_string()),
    }
}

/// The preflight of an adapter, once per run: under cargo-nextest the first
/// processes of a run make it and leave a mark in the run's parts, so the later ones
/// skip it.
fn run_preflight(
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
    let outcome = runtime.block_on(preflight::preflight(client));
    let line = outcome.summary_line();
    outcome.into_result().map_err(|e| e.to_string())?;
    eprintln!("bemula: {}", crate::terminal::inline(&line));
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
const PREFLIGHT_MARK: &str = "preflight.passed";

/// Where the system under test comes from.
enum FactorySource {
    /// A factory made in code.
    Ready(SharedFactory),
    /// An adapter connected by the caller.
    Remote(Arc<RemoteFactory>),
    /// An adapter spec, connected when the harness runs.
    Adapter(String),
    /// An instrument, made from the dataset when the harness has loaded it.
    Instrument(String),
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
    /// Under nextest with a pass-rate gate: who applies the gate instead.
    deferred_gate: Option<String>,
    /// The expectations file, if any.
    expectations_source: String,
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
/// the lock over, where it cannot tell whether the holder is alive (no `/proc`); a
/// holder known to be dead loses its lock at once.
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

/// Known failures: one test name a line; `#` starts a comment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expectations {
    failures: BTreeSet<String>,
}

impl Expectations {
    /// Reads an expectations file for a run: a missing file is an error, unless the run
    /// is to write it (`bless`), when it starts empty.
    pub fn read_or_bless(path: &Path, bless: bool) -> Result<Expectations, String> {
        if !path.exists() {
            if bless {
                return Ok(Expectations::default());
            }
            return Err(format!(
                "{}: the expectations file does not exist; create it from a run with BEMULA_BLESS=1 (or fix the path)",
                path.display()
            ));
        }
        Expectations::read(path)
    }

    /// The listed test names.
    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.failures.iter()
    }

    /// This list updated by a run's outcomes (pass or fail by test name): failing
    /// requests are listed, passing ones removed, others kept.
    pub fn blessed(&self, outcomes: &BTreeMap<String, bool>) -> Expectations {
        let mut updated = self.clone();
        for (name, passed) in outcomes {
            updated.set(name, !passed);
        }
        updated
    }

    /// Reads an expectations file; a missing file is an empty list (see
    /// [`Expectations::read_or_bless`] for a run's reading).
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

/// How many nextest runs' parts a report directory keeps: a new run removes the older
/// ones beyond these.
pub const KEEP_PART_RUNS: usize = 5;

/// Which reports a harness process writes.
enum ReportRun<'a> {
    /// Its part of the cargo-nextest run of this id.
    NextestPart(&'a str),
    /// The reports of a plain run, under the run's id (its journal's) when it has one.
    Plain(Option<String>),
}

fn write_reports(
    settings: &Settings,
    info: &RunInfo,
    records: &[Record],
    outcomes: &BTreeMap<String, TrialOutcome>,
    run: ReportRun<'_>,
    expected: &BTreeSet<String>,
    expectations: &Expectations,
) -> Result<Option<Summary>, String> {
    let dir = &settings.report_dir;
    let run_id = match run {
        ReportRun::Plain(run_id) => run_id,
        ReportRun::NextestPart(run) => {
            // One process per test: leave this process's part; `bemula report DIR` assembles.
            let part_dir = dir.join(PARTS).join(sanitize(run));
            std::fs::create_dir_all(&part_dir)
                .map_err(|e| format!("{}: {e}", part_dir.display()))?;
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
                expected: expected.iter().cloned().collect(),
            };
            let json = serde_json::to_vec_pretty(&part).map_err(|e| e.to_string())?;
            return report::write_file(&part_dir.join(format!("{stem}.trials.json")), &json)
                .map(|_| None)
                .map_err(|e| e.to_string());
        }
    };
    let mut summary = Summary::build(records, info.clone(), &settings.bootstrap);
    summary.run_id = Some(run_id.unwrap_or_else(report::new_run_id));
    let present = outcomes.keys().cloned().collect();
    summary.coverage = Some(report::Coverage::of(expected, &present));
    let times = outcomes
        .iter()
        .map(|(n, o)| (n.clone(), o.seconds))
        .collect();
    let known = known_map(settings.expectations.as_deref(), expectations);
    report::write_all_marked(dir, records, &summary, &times, &known).map_err(|e| e.to_string())?;
    Ok(Some(summary))
}

fn known_map(path: Option<&Path>, expectations: &Expectations) -> BTreeMap<String, String> {
    let source = path.map(|p| p.display().to_string()).unwrap_or_default();
    expectations
        .names()
        .map(|n| (n.clone(), source.clone()))
        .collect()
}

/// `bemula report DIR`, the command that merges a nextest run's parts in `dir`.
fn report_command(dir: &Path) -> String {
    let shown = dir.display().to_string();
    match shlex::try_quote(&shown) {
        Ok(quoted) => format!("bemula report {quoted}"),
        Err(_) => format!("bemula report {shown}"),
    }
}

/// At the start of a nextest run: the reports of an earlier run in `dir` are removed,
/// and `summary.md` says that this run's reports are still to be merged, and how.
fn mark_reports_pending(dir: &Path, run: &str) -> Result<(), report::ReportError> {
    let had_reports = dir.join(report::SUMMARY_JSON).is_file();
    report::remove_reports(dir)?;
    let text = format!(
        "# bemula: reports pending\n\n\
         cargo-nextest run `{run}` (started {}) runs each test in a process of its own; \
         each process writes its results under `{}`, not here.{}\n\n\
         Merge the run's parts into reports here with:\n\n    {}\n",
        utc(std::time::SystemTime::now()),
        Path::new(PARTS).join(sanitize(run)).display(),
        if had_reports {
            " The reports of the earlier run that were here were removed."
        } else {
            ""
        },
        report_command(dir)
    );
    report::write_file(&dir.join(report::SUMMARY_MD), text.as_bytes())
}

/// Removes all but the `keep` newest run directories under `parts`, saying which.
fn prune_part_runs(parts: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(parts) else {
        return;
    };
    let mut runs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| {
            (
                e.metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH),
                e.path(),
            )
        })
        .collect();
    if runs.len() <= keep {
        return;
    }
    runs.sort();
    let old = runs.len() - keep;
    for (_, path) in runs.into_iter().take(old) {
        if std::fs::remove_dir_all(&path).is_ok() {
            eprintln!(
                "bemula: removed the parts of an old run, {} (the newest {KEEP_PART_RUNS} runs are kept)",
                path.display()
            );
        }
    }
}

/// What one test process leaves in a parts directory besides its records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Part {
    /// The run's configuration.
    pub info: RunInfo,
    /// Its trials' outcomes by test name.
    pub trials: BTreeMap<String, TrialOutcome>,
    /// The test names the whole run is expected to cover (every request of the data).
    #[serde(default)]
    pub expected: Vec<String>,
}

/// Reports merged from several sources (report directories, the parts of
/// process-per-test runs, shards).
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The merged summary, with its coverage.
    pub summary: Summary,
    /// The merged records.
    pub records: Vec<Record>,
    /// Each request's outcome and wall time, by test name.
    pub trials: BTreeMap<String, TrialOutcome>,
    /// The cargo-nextest runs found in the directories, oldest first; those merged are
    /// marked `picked`.
    pub runs: Vec<RunListing>,
    /// What a reader should know about the runs merged (a newer filtered run left
    /// out, no complete run).
    pub notes: Vec<String>,
}

/// Assembles the reports of a run whose tests ran in separate processes (cargo-nextest)
/// and writes them into `dir`; see [`assemble_many`].
pub fn assemble(dir: &Path, bootstrap: &BootstrapConfig) -> Result<Summary, String> {
    let assembled = assemble_many(&[dir.to_path_buf()], bootstrap)?;
    let times = assembled
        .trials
        .iter()
        .map(|(n, o)| (n.clone(), o.seconds))
        .collect();
    report::write_all(dir, &assembled.records, &assembled.summary, &times)
        .map_err(|e| e.to_string())?;
    Ok(assembled.summary)
}

/// Merges the results found in `dirs` (see [`assemble_runs`]), taking from each
/// directory of cargo-nextest parts its newest complete run.
pub fn assemble_many(dirs: &[PathBuf], bootstrap: &BootstrapConfig) -> Result<Assembled, String> {
    assemble_runs(dirs, &RunChoice::default(), bootstrap)
}

/// Merges the results found in `dirs`. Each is a harness report directory holding the
/// parts of cargo-nextest runs under `parts/` (of which `choice` picks the runs to
/// merge), one run's parts (`<report dir>/parts/<run id>`), or else a report
/// (`summary.json` with its `results.jsonl`, e.g. of `bemula run --shard`).
/// Every source must have the same configuration (system, judge, answerer, data);
/// a record present twice must be the same (duplicates are tolerated, conflicts are an
/// error naming both files). The summary states its coverage: the requests expected
/// (the union of what the sources expected) against those present; a merge of nextest
/// parts that leaves requests out says in its configuration that it is a filtered run.
pub fn assemble_runs(
    dirs: &[PathBuf],
    choice: &RunChoice,
    bootstrap: &BootstrapConfig,
) -> Result<Assembled, String> {
    type Key = (String, crate::dataset::Version, String);
    if let RunChoice::Id(id) = choice
        && dirs.len() > 1
    {
        return Err(format!(
            "--run {id} picks one run of one report directory; give that directory alone"
        ));
    }
    let mut records: Vec<Record> = Vec::new();
    let mut seen: BTreeMap<Key, (usize, PathBuf)> = BTreeMap::new();
    let mut trials: BTreeMap<String, TrialOutcome> = BTreeMap::new();
    let mut expected: BTreeSet<String> = BTreeSet::new();
    let mut info: Option<(RunInfo, PathBuf)> = None;
    let mut listed: Vec<RunListing> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut merged_runs: Vec<String> = Vec::new();
    let mut check_info = |candidate: RunInfo, from: &Path| -> Result<(), String> {
        match &info {
            None => {
                info = Some((candidate, from.to_path_buf()));
                Ok(())
            }
            Some((first, first_from)) => {
                let differs = config_differences(first, &candidate);
                if differs.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "{} and {} come from runs of different configurations ({}): only results of one configuration merge",
                        first_from.display(),
                        from.display(),
                        differs.join("; ")
                    ))
                }
            }
        }
    };
    let mut add_records = |batch: Vec<Record>, from: &Path| -> Result<(), String> {
        for record in batch {
            let key = (
                record.instance.clone(),
                record.version,
                record.question_id.clone(),
            );
            match seen.get(&key) {
                Some((index, first)) => {
                    if records[*index] != record {
                        return Err(format!(
                            "{} and {} hold conflicting records of {} question {} on the {} version: results of different runs cannot merge (pick one run with --run ID, or remove the stale ones)",
                            first.display(),
                            from.display(),
                            key.0,
                            key.2,
                            key.1
                        ));
                    }
                }
                None => {
                    seen.insert(key, (records.len(), from.to_path_buf()));
                    records.push(record);
                }
            }
        }
        Ok(())
    };
    for dir in dirs {
        let runs: Vec<RunListing> = if dir.join(PARTS).is_dir() || is_parts_dir(dir) {
            let parts = if dir.join(PARTS).is_dir() {
                dir.join(PARTS)
            } else {
                dir.clone()
            };
            let mut runs = list_runs(&parts)?;
            if runs.is_empty() {
                return Err(format!(
                    "{}: no trial outcomes found; run the tests under cargo-nextest first",
                    parts.display()
                ));
            }
            pick_runs(&mut runs, choice, &parts, &mut notes)?;
            runs
        } else if is_run_dir(dir) {
            let mut run = read_run(dir)?;
            run.picked = true;
            vec![run]
        } else if dir.join(report::SUMMARY_JSON).is_file() {
            let (summary, batch) = report::read_verified(dir).map_err(|e| e.to_string())?;
            let summary_path = dir.join(report::SUMMARY_JSON);
            check_info(summary.config.clone(), &summary_path)?;
            for outcome in &summary.requests {
                let name = report::outcome_name(outcome);
                expected.insert(name.clone());
                trials.insert(
                    name,
                    TrialOutcome {
                        passed: outcome.passed,
                        known_failure: false,
                        seconds: 0.0,
                    },
                );
            }
            if let Some(coverage) = &summary.coverage {
                expected.extend(coverage.missing.iter().cloned());
            }
            add_records(batch, &dir.join(report::RESULTS))?;
            continue;
        } else {
            return Err(format!(
                "{}: nothing to report: no parts/ of a cargo-nextest run and no summary.json",
                dir.display()
            ));
        };
        for run in runs.iter().filter(|r| r.picked) {
            merged_runs.push(run.id.clone());
            for (file, part) in &run.parts {
                check_info(part.info.clone(), file)?;
                expected.extend(part.expected.iter().cloned());
                trials.extend(part.trials.clone());
            }
            for file in &run.record_files {
                add_records(report::read_records(file).map_err(|e| e.to_string())?, file)?;
            }
        }
        listed.extend(runs);
    }
    let (mut info, _) = info.ok_or("no report directories given")?;
    records.sort_by(|a, b| (&a.instance, a.version).cmp(&(&b.instance, b.version)));
    let present: BTreeSet<String> = trials.keys().cloned().collect();
    if expected.is_empty() {
        // Parts of an older bemula: what was expected is not known.
        expected = present.clone();
    }
    let coverage = report::Coverage::of(&expected, &present);
    if !merged_runs.is_empty() && !coverage.is_complete() {
        // A merge of nextest parts that leaves requests out is a filtered run.
        info.extra.insert(
            "selection".into(),
            format!(
                "filtered run: {} of the {} requests (cargo-nextest run{} {})",
                coverage.present,
                coverage.expected,
                if merged_runs.len() == 1 { "" } else { "s" },
                merged_runs.join(", ")
            )
            .into(),
        );
    }
    let mut summary = Summary::build(&records, info, bootstrap);
    let present: BTreeSet<String> = summary.requests.iter().map(report::outcome_name).collect();
    summary.coverage = Some(report::Coverage::of(&expected, &present));
    summary.run_id = Some(report::new_run_id());
    Ok(Assembled {
        summary,
        records,
        trials,
        runs: listed,
        notes,
    })
}

/// Which cargo-nextest runs of a report directory `bemula report` merges (`--run`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RunChoice {
    /// The newest run that covers every request; the newest run when none does.
    #[default]
    NewestComplete,
    /// The newest run, whatever it covers (`latest`).
    Latest,
    /// Every run, which must all be of one configuration (`all`): the partitions of
    /// one change, for example.
    All,
    /// The run of this id (or of the only id that starts with it).
    Id(String),
}

impl std::str::FromStr for RunChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<RunChoice, String> {
        match s.trim() {
            "" => Err("expected a run id, `latest` or `all`".into()),
            "latest" => Ok(RunChoice::Latest),
            "all" => Ok(RunChoice::All),
            id => Ok(RunChoice::Id(id.to_string())),
        }
    }
}

/// One cargo-nextest run found in a report directory's `parts/`.
#[derive(Debug, Clone)]
pub struct RunListing {
    /// The run id (nextest's `NEXTEST_RUN_ID`, as its directory is named).
    pub id: String,
    /// Its directory, `<report dir>/parts/<run id>`.
    pub dir: PathBuf,
    /// When its last process wrote its outcome.
    pub finished: std::time::SystemTime,
    /// Its configuration (of its first part).
    pub info: RunInfo,
    /// What it covers of the requests its processes expected.
    pub coverage: report::Coverage,
    /// Whether it is merged.
    pub picked: bool,
    parts: Vec<(PathBuf, Part)>,
    record_files: Vec<PathBuf>,
}

impl RunListing {
    /// One line: id, time, configuration and coverage, `*` in front when merged.
    pub fn line(&self) -> String {
        format!(
            "{} {}  {}  {}  {}",
            if self.picked { "*" } else { " " },
            self.id,
            utc(self.finished),
            describe_config(&self.info),
            self.coverage.line()
        )
    }
}

/// The configuration in a few words: system and settings, judge, answerer, data.
fn describe_config(info: &RunInfo) -> String {
    let settings = if info.system.settings.is_empty() {
        String::new()
    } else {
        format!(
            " {}",
            serde_json::Value::Object(info.system.settings.clone())
        )
    };
    let checksum: String = info.dataset_checksum.chars().take(12).collect();
    format!(
        "system {}{settings}, judge {}, answerer {}, data {checksum}{}",
        info.system.name,
        info.judge,
        info.answerer,
        info.data_seed
            .map(|s| format!(" (seed {s})"))
            .unwrap_or_default()
    )
}

/// `2026-12-02 01:50:35 UTC`.
fn utc(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

fn trial_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".trials.json"))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `dir` is one run's parts (`<report dir>/parts/<run id>`).
fn is_run_dir(dir: &Path) -> bool {
    !trial_files(dir).is_empty()
}

/// Whether `dir` is a `parts/` directory itself (runs in its subdirectories).
fn is_parts_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.path().is_dir() && is_run_dir(&e.path()))
    })
}

/// The runs under a `parts/` directory, oldest first (by the time their last process
/// wrote its outcome). A run directory without outcomes (a run under way, or one whose
/// processes all failed to start) is not a run.
pub fn list_runs(parts: &Path) -> Result<Vec<RunListing>, String> {
    let mut runs = Vec::new();
    let entries = std::fs::read_dir(parts).map_err(|e| format!("{}: {e}", parts.display()))?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() && is_run_dir(&path) {
            runs.push(read_run(&path)?);
        }
    }
    runs.sort_by(|a, b| (a.finished, &a.id).cmp(&(b.finished, &b.id)));
    Ok(runs)
}

/// Reads one run's outcomes (its records are read when it is merged).
fn read_run(dir: &Path) -> Result<RunListing, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut parts = Vec::new();
    let mut record_files = Vec::new();
    let mut finished = std::time::UNIX_EPOCH;
    for file in files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".trials.json") {
            let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let part: Part = serde_json::from_slice(&bytes)
                .map_err(|e| format!("{}: not a bemula report part: {e}", file.display()))?;
            if let Ok(modified) = std::fs::metadata(&file).and_then(|m| m.modified()) {
                finished = finished.max(modified);
            }
            parts.push((file, part));
        } else if name.ends_with(".jsonl") && name != report::RESULTS && !name.starts_with('.') {
            record_files.push(file);
        }
    }
    let Some((first, _)) = parts.first() else {
        return Err(format!(
            "{}: no trial outcomes found; run the tests under cargo-nextest first",
            dir.display()
        ));
    };
    let info = parts[0].1.info.clone();
    for (file, part) in &parts[1..] {
        let differs = config_differences(&info, &part.info);
        if !differs.is_empty() {
            return Err(format!(
                "{} and {} are parts of one run with different configurations ({})",
                first.display(),
                file.display(),
                differs.join("; ")
            ));
        }
    }
    let expected: BTreeSet<String> = parts
        .iter()
        .flat_map(|(_, p)| p.expected.iter().cloned())
        .collect();
    let present: BTreeSet<String> = parts
        .iter()
        .flat_map(|(_, p)| p.trials.keys().cloned())
        .collect();
    let expected = if expected.is_empty() {
        present.clone()
    } else {
        expected
    };
    Ok(RunListing {
        id: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        dir: dir.to_path_buf(),
        finished,
        info,
        coverage: report::Coverage::of(&expected, &present),
        picked: false,
        parts,
        record_files,
    })
}

/// The runs of `parts` listed, one a line.
fn run_list(runs: &[RunListing]) -> String {
    runs.iter()
        .map(|r| format!("  {}", r.line()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Marks the runs `choice` picks (`runs` oldest first), adding what a reader should
/// know about the choice to `notes`.
fn pick_runs(
    runs: &mut [RunListing],
    choice: &RunChoice,
    parts: &Path,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let newest = runs.len() - 1;
    let picked: Vec<usize> = match choice {
        RunChoice::Latest => vec![newest],
        RunChoice::NewestComplete => match runs.iter().rposition(|r| r.coverage.is_complete()) {
            Some(i) => {
                let newer: Vec<&str> = runs[i + 1..].iter().map(|r| r.id.as_str()).collect();
                if let Some(last) = newer.last() {
                    notes.push(format!(
                            "the newest complete run is {}; {} newer run(s) are filtered ({}): `--run {last}` reports the newest one, `--run latest` too",
                            runs[i].id,
                            newer.len(),
                            newer.join(", ")
                        ));
                }
                vec![i]
            }
            None => {
                if runs.len() > 1 {
                    notes.push(format!(
                            "no run in {} covers every request: reporting the newest, {} (`--run all` merges runs of one configuration, such as the partitions of one change)",
                            parts.display(),
                            runs[newest].id
                        ));
                }
                vec![newest]
            }
        },
        RunChoice::All => {
            let first = &runs[0];
            let other = runs[1..]
                .iter()
                .find(|r| !config_differences(&first.info, &r.info).is_empty());
            if let Some(other) = other {
                return Err(format!(
                    "the runs in {} are of different configurations ({}: {}); only runs of one configuration merge: pick one with --run ID. The runs, oldest first:\n{}",
                    parts.display(),
                    first.id,
                    config_differences(&first.info, &other.info).join("; "),
                    run_list(runs)
                ));
            }
            (0..runs.len()).collect()
        }
        RunChoice::Id(id) => {
            let exact: Vec<usize> = (0..runs.len()).filter(|&i| runs[i].id == *id).collect();
            let matching: Vec<usize> = if exact.is_empty() {
                (0..runs.len())
                    .filter(|&i| runs[i].id.starts_with(id.as_str()))
                    .collect()
            } else {
                exact
            };
            match matching.as_slice() {
                [one] => vec![*one],
                [] => {
                    return Err(format!(
                        "--run {id}: no such run in {}; the runs, oldest first:\n{}",
                        parts.display(),
                        run_list(runs)
                    ));
                }
                _ => {
                    return Err(format!(
                        "--run {id}: {} runs in {} start with it; give more of the id. The runs, oldest first:\n{}",
                        matching.len(),
                        parts.display(),
                        run_list(runs)
                    ));
                }
            }
        }
    };
    for i in picked {
        runs[i].picked = true;
    }
    Ok(())
}

/// The settings that differ between two runs' configurations, by name.
fn config_differences(a: &RunInfo, b: &RunInfo) -> Vec<String> {
    let mut out = Vec::new();
    if a.system != b.system {
        out.push(format!(
            "system: {} {:?} vs {} {:?}",
            a.system.name, a.system.settings, b.system.name, b.system.settings
        ));
    }
    for (name, x, y) in [
        ("judge", &a.judge, &b.judge),
        ("answerer", &a.answerer, &b.answerer),
        ("dataset checksum", &a.dataset_checksum, &b.dataset_checksum),
    ] {
        if x != y {
            out.push(format!("{name}: {x} vs {y}"));
        }
    }
    if a.data_seed != b.data_seed {
        out.push(format!("data seed: {:?} vs {:?}", a.data_seed, b.data_seed));
    }
    out
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
    let target = target_dir().unwrap_or_else(|| PathBuf::from("target"));
    target.join("bemula").join(binary)
}

/// Cargo's target directory: `CARGO_TARGET_DIR`, or the ancestor of the running binary
/// that holds cargo's `CACHEDIR.TAG`; `None` for a binary outside a target directory.
fn target_dir() -> Option<PathBuf> {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            exe.ancestors()
                .find(|a| a.join("CACHEDIR.TAG").is_file())
                .map(Path::to_path_buf)
        })
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
                full: false,
                generator: generate::Generator::default(),
                phrasing: generate::Phrasing::All,
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
                full: true,
                generator: generate::Generator::default(),
                phrasing: generate::Phrasing::All,
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
    fn the_preflight_is_on_unless_the_builder_or_the_environment_turns_it_off() {
        assert!(harness_with(&[]).settings().unwrap().preflight);
        assert!(
            !harness_with(&[])
                .preflight(false)
                .settings()
                .unwrap()
                .preflight
        );
        let off = harness_with(&[("BEMULA_NO_PREFLIGHT", "1")]);
        assert!(!off.settings().unwrap().preflight);
        let on = harness_with(&[("BEMULA_NO_PREFLIGHT", "0")]).preflight(false);
        assert!(
            on.settings().unwrap().preflight,
            "the environment overrides"
        );
        let err = harness_with(&[("BEMULA_NO_PREFLIGHT", "skip")])
            .settings()
            .unwrap_err();
        assert_eq!(err.name, "BEMULA_NO_PREFLIGHT", "{err}");
    }

    #[test]
    fn harness_adapter_takes_every_system_spec() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir(&data).unwrap();
        std::fs::copy(
            concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample/short_001.json"),
            data.join("short_001.json"),
        )
        .unwrap();
        let run = |spec: &str| {
            let reports = tmp.path().join(spec.replace(':', "_"));
            let code = Harness::adapter(spec)
                .data(&data)
                .report_dir(&reports)
                .env_source(|_| None)
                .run_with_args(Arguments {
                    quiet: true,
                    // libtest's own lines go to a file, not into this test's output.
                    logfile: Some(reports.with_extension("log").display().to_string()),
                    ..Arguments::default()
                });
            let summary = std::fs::read_to_string(reports.join("summary.json")).ok();
            (code, summary)
        };
        for spec in ["naive-rag", "oracle-forget"] {
            let (_, summary) = run(spec);
            let summary: serde_json::Value =
                serde_json::from_str(&summary.unwrap_or_else(|| panic!("{spec}: no summary")))
                    .unwrap();
            assert_eq!(summary["config"]["system"]["name"], spec);
            assert_eq!(summary["counts"]["errors"], 0, "{spec}");
        }
        for spec in ["full-context:some-model", "naive_rag"] {
            let (code, summary) = run(spec);
            assert_eq!(code, ExitCode::from(2), "{spec}");
            assert!(
                summary.is_none(),
                "{spec}: a run that cannot start writes no report"
            );
        }
    }

    #[test]
    fn adapter_pools_are_for_adapters_the_harness_starts_over_stdio() {
        let with = |harness: Harness, env: &[(&str, &str)]| {
            let env: HashMap<String, String> = env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            harness.env_source(move |name| env.get(name).cloned())
        };
        let stdio = || Harness::adapter("cmd:python3 my_adapter.py");
        assert_eq!(with(stdio(), &[]).settings().unwrap().adapter_processes, 1);
        let pooled = with(stdio(), &[("BEMULA_ADAPTER_PROCESSES", "4")]);
        assert_eq!(pooled.settings().unwrap().adapter_processes, 4);
        let built = with(stdio().adapter_processes(3), &[]);
        assert_eq!(built.settings().unwrap().adapter_processes, 3);
        for (harness, value, needle) in [
            (stdio(), "0", "at least 1"),
            (stdio(), "four", "at least 1"),
            (
                Harness::adapter("http://127.0.0.1:9/rpc"),
                "2",
                "stdio adapters",
            ),
            (harness_with(&[]), "2", "runs in this process"),
        ] {
            let err = with(harness, &[("BEMULA_ADAPTER_PROCESSES", value)])
                .settings()
                .unwrap_err();
            assert_eq!(err.name, "BEMULA_ADAPTER_PROCESSES", "{err}");
            assert!(err.reason.contains(needle), "{err}");
        }
    }

    #[test]
    fn malformed_values_are_errors_naming_the_variable() {
        for (name, value) in [
            ("BEMULA_MIN_RPR", "1.5"),
            ("BEMULA_MIN_RPR", "half"),
            ("BEMULA_FULL", "maybe"),
            ("BEMULA_SEED", "-1"),
            ("BEMULA_BLESS", "2"),
            ("BEMULA_GENERATOR", "v3"),
            ("BEMULA_PHRASING", "holdout"),
        ] {
            let err = harness_with(&[(name, value)]).settings().expect_err(name);
            assert_eq!(err.name, name);
            assert!(
                err.to_string().starts_with(&format!("{name}=\"{value}\"")),
                "{err}"
            );
        }
        let err = harness_with(&[("BEMULA_GENERATOR", "v1"), ("BEMULA_PHRASING", "dev")])
            .settings()
            .expect_err("v1 has no dev phrasing");
        assert!(err.to_string().contains("needs generator v2"), "{err}");
        let s = harness_with(&[("BEMULA_GENERATOR", "v2"), ("BEMULA_PHRASING", "test")])
            .settings()
            .unwrap();
        assert!(
            matches!(
                s.data,
                DataSource::Generated {
                    generator: generate::Generator::V2,
                    phrasing: generate::Phrasing::Test,
                    ..
                }
            ),
            "{:?}",
            s.data
        );
        let err = harness_with(&[("BEMULA_BLESS", "1")])
            .settings()
            .expect_err("nothing to bless");
        assert!(err.to_string().contains("no expectations file"), "{err}");
    }

    #[test]
    fn the_gate_fails_on_missing_requests_regressions_and_a_low_rate_and_says_which() {
        let outcomes: BTreeMap<String, bool> = [("a::r1::F1_x", true), ("b::r1::F2_y", false)]
            .into_iter()
            .map(|(n, p)| (n.to_string(), p))
            .collect();
        let mut known = Expectations::default();
        known.set("b::r1::F2_y", true);
        let gate = Gate {
            min_rpr: Some((0.5, "--min-rpr".into())),
            expectations: Some(("expected.txt".into(), known)),
            allow_partial: false,
            metrics: None,
        };
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
        let whole = report::Coverage::of(
            &names(&["a::r1::F1_x", "b::r1::F2_y"]),
            &names(&["a::r1::F1_x", "b::r1::F2_y"]),
        );
        let decision = gate.decide(&outcomes, Some(&whole));
        assert!(decision.pass, "{decision:?}");
        assert!(decision.closing_line(1).starts_with("bemula gate: PASSED"));
        let partial = report::Coverage::of(
            &names(&["a::r1::F1_x", "b::r1::F2_y", "c::r1::F3_z"]),
            &names(&["a::r1::F1_x", "b::r1::F2_y"]),
        );
        let decision = gate.decide(&outcomes, Some(&partial));
        assert!(!decision.pass);
        let closing = decision.closing_line(0);
        assert!(
            closing.starts_with("bemula gate: FAILED") && closing.contains("INCOMPLETE: 2 of 3"),
            "{closing}"
        );
        let lenient = Gate {
            allow_partial: true,
            ..gate.clone()
        };
        assert!(lenient.decide(&outcomes, Some(&partial)).pass);
        let strict = Gate {
            expectations: Some(("expected.txt".into(), Expectations::default())),
            ..gate
        };
        let decision = strict.decide(&outcomes, None);
        assert!(!decision.pass);
        assert!(
            decision
                .closing_line(0)
                .contains("1 regression(s), first b::r1::F2_y"),
            "{decision:?}"
        );
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
