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
use crate::dataset::Instance;
pub use crate::gate::{GateOn, MetricGate};
use crate::generate::{self, GenConfig};
use crate::judge::Judge;
use crate::judge::rule::RuleJudge;
use crate::metrics::{self, BootstrapConfig};
use crate::oracle::Oracle;
use crate::record::Record;
use crate::report::journal;
use crate::report::{self, RunInfo, Summary};
use crate::run::{RunConfig, Runner, Selection, Session};
use crate::system::remote::RemoteFactory;
use crate::system::spec::SystemSpec;
use crate::system::{AsyncMemorySystem, FnFactory, SharedFactory, SystemFactory};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

mod conclude;
mod error;
mod expectations;
mod gate;
mod nextest;
mod reports;
mod run;
mod settings;
mod trials;

pub use crate::report::merge::{
    Assembled, RunChoice, RunListing, assemble, assemble_many, assemble_runs, list_runs,
};
pub use crate::report::parts::{KEEP_PART_RUNS, PARTS, Part, TrialOutcome};
use crate::report::parts::{mark_reports_pending, prune_part_runs, report_command, sanitize};
pub use error::HarnessError;
pub use expectations::*;
pub use gate::*;
use nextest::*;
use reports::*;
pub use settings::*;
use trials::*;

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
    /// a built-in system (`naive-rag`); an instrument (`oracle-forget`); or a system
    /// that calls a model (`full-context:MODEL`, `embed-rag:MODEL`), on the endpoint of
    /// `BEMULA_LLM_BASE_URL` (and `BEMULA_EMBED_BASE_URL`). A malformed spec is an error
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
}

#[cfg(test)]
mod tests;
