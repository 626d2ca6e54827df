//! `bemula test`: the `cargo test` harness as a command. Runs one trial per forget
//! request against a system (a built-in one or an adapter), with libtest's arguments
//! after `--`: `bemula test --system naive-rag -- F3 --format terse`.

use super::CliResult;
use crate::harness::Harness;
use std::path::PathBuf;

/// Arguments of `bemula test`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System under test: a built-in name, `cmd:COMMAND LINE` or an http:// URL.
    #[arg(long)]
    pub system: String,
    /// Dataset directory; `realised`: the hand-realised Bemula-Lite (the default);
    /// `generated`: the generated data (also chosen by `--full`, `--generator`,
    /// `--phrasing`). `BEMULA_DATA` overrides.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// The full set instead of Lite.
    #[arg(long)]
    pub full: bool,
    /// Generator and phrasing of the generated data (without `--data`;
    /// `BEMULA_GENERATOR` and `BEMULA_PHRASING` override).
    #[command(flatten)]
    pub gen_args: super::generate::GenArgs,
    /// Expectations file of known failures.
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,
    /// Gate: pass when the request pass rate is at least this fraction.
    #[arg(long, value_name = "RATE")]
    pub min_rpr: Option<f64>,
    /// Gate: metric minimums as fractions, `FE=0.3,Score=0.1`.
    #[arg(long, value_name = "METRIC=MIN,...")]
    pub min: Option<String>,
    /// What `--min` compares: `point` or `lower` (the lower end of the 95% interval).
    #[arg(long, default_value = "point", value_name = "point|lower")]
    pub gate_on: crate::gate::GateOn,
    /// Report directory (default `reports/test/<system>`).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Judge: `rule`, `llm:MODEL[+MODEL…]` or the hybrid `rule+llm:MODEL[+MODEL…]`.
    #[arg(long, default_value = "rule")]
    pub judge: String,
    /// Answerer: `oracle` (offline, the default), `extractive` or `llm:MODEL`.
    #[arg(long, default_value = "oracle")]
    pub answerer: String,
    /// Adapter settings: timeout, message size, circuit breaker.
    #[command(flatten)]
    pub adapter: super::select::AdapterArgs,
    /// LLM endpoint settings.
    #[cfg(feature = "llm")]
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
    /// libtest arguments: a filter, `--exact`, `--list`, `--skip`, `--test-threads`, …
    #[arg(last = true, allow_hyphen_values = true)]
    pub libtest: Vec<String>,
}

/// Runs `bemula test`.
pub fn run(args: Args) -> CliResult {
    #[cfg(feature = "llm")]
    let llm = super::select::LlmContext::new(args.llm.clone());
    #[cfg(not(feature = "llm"))]
    let llm = super::select::LlmContext::new();
    let runtime = crate::run::runtime()?;
    let options = args
        .adapter
        .options(crate::system::retry::DEFAULT_RETRIES)?;
    let instrument = crate::system::builtin::instrument::is_instrument(&args.system);
    let (system, judge, answerer) = runtime.block_on(async {
        // An instrument is made from the dataset once the harness has loaded it.
        let spec = if instrument { "null" } else { &args.system };
        let system =
            super::select::system_with(spec, crate::run::DEFAULT_JOBS, &options, &llm, &[]).await?;
        let judge = super::select::judge(&args.judge, &llm).await?;
        let answerer = super::select::answerer(&args.answerer, &llm).await?;
        Ok::<_, Box<dyn std::error::Error>>((system, judge, answerer))
    })?;
    let harness = match system.remote {
        _ if instrument => Harness::instrument(&args.system),
        Some(client) => Harness::with_remote(client),
        None => Harness::with_factory(system.factory),
    };
    let mut harness = harness
        .preflight(!args.adapter.no_preflight)
        .runtime(runtime)
        .judge(judge)
        .answerer(answerer)
        .full(args.full);
    if let Some(generator) = args.gen_args.generator {
        harness = harness.generator(generator);
    }
    if let Some(phrasing) = args.gen_args.phrasing {
        harness = harness.phrasing(phrasing);
    }
    if let Some(dir) = args.data {
        harness = harness.data(dir);
    }
    if let Some(file) = args.expectations {
        harness = harness.expectations(file);
    }
    if let Some(rate) = args.min_rpr {
        harness = harness.min_rpr(rate);
    }
    if let Some(spec) = args.min {
        harness = harness.min(spec);
    }
    harness = harness.gate_on(args.gate_on);
    let report_dir = args
        .report_dir
        .unwrap_or_else(|| PathBuf::from("reports/test").join(super::run::dir_name(&args.system)));
    harness = harness.report_dir(report_dir);
    let libtest = libtest_mimic::Arguments::from_iter(
        std::iter::once("bemula test".to_string()).chain(args.libtest),
    );
    Ok(harness.run_with_args(libtest))
}
