//! `bemula report DIR...`: merges results and applies the harness's gate. Each `DIR` is
//! a harness report directory holding the parts of process-per-test runs (cargo-nextest,
//! partitions included) or a report directory of `bemula run` (a shard, for example).
//! The merged reports state their coverage, and `--min-rpr` / `--expectations` set the
//! exit status exactly as the harness's gate does.

use super::CliResult;
use crate::harness::{self, Expectations, Gate};
use crate::metrics::BootstrapConfig;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bemula report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Directories to merge: the harness's report directory (default of a test target
    /// `bemula`: `target/bemula/bemula`), downloaded CI artifacts of its shards, or
    /// report directories of `bemula run --shard`.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where the merged reports go (default: the only DIR; required with several).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Gate: fail (exit status 1) unless the request pass rate is at least this fraction.
    #[arg(long, value_name = "RATE", value_parser = rate)]
    pub min_rpr: Option<f64>,
    /// Gate: metric minimums as fractions, `FE=0.3,Score=0.1` (any of RA, FE, PR, RLA,
    /// AR, RPR, FA, UG, Score).
    #[arg(long, value_name = "METRIC=MIN,...")]
    pub min: Option<String>,
    /// What `--min` compares: `point` (the point estimate) or `lower` (the lower end
    /// of the 95% interval).
    #[arg(long, default_value = "point", value_name = "point|lower")]
    pub gate_on: crate::gate::GateOn,
    /// Regression gate: the blessed baseline's report directory (write one with
    /// `bemula bless-baseline`). Fails when a metric of `--max-drop` fell by more than
    /// its tolerance with 95% confidence (paired cluster bootstrap, as `bemula
    /// compare`). The baseline must be of the same data, judge and answerer.
    #[arg(long, value_name = "DIR")]
    pub baseline: Option<PathBuf>,
    /// Tolerated drops against `--baseline`, fractions: `Score=0.02,FE=0.05`.
    #[arg(
        long,
        value_name = "METRIC=DROP,...",
        default_value = "Score=0.02",
        requires = "baseline"
    )]
    pub max_drop: String,
    /// Gate: known failures; a failing request not listed fails the run.
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,
    /// Rewrite the expectations file from the merged outcomes (creates it if missing).
    #[arg(long, requires = "expectations")]
    pub bless: bool,
    /// Apply the gate to the requests present even when some expected ones are missing
    /// (by default an incomplete report fails any gate).
    #[arg(long)]
    pub allow_partial: bool,
    /// Bootstrap resamples for the confidence intervals.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 42, value_name = "SEED")]
    pub bootstrap_seed: u64,
}

fn rate(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|x| (0.0..=1.0).contains(x))
        .ok_or_else(|| format!("{s:?}: expected a fraction in [0, 1], e.g. 0.25"))
}

/// Runs `bemula report`.
pub fn run(args: Args) -> CliResult {
    let out = match (&args.out, args.dirs.as_slice()) {
        (Some(out), _) => out.clone(),
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err(
                "several directories to merge: say where the merged reports go with --out DIR"
                    .into(),
            );
        }
    };
    let metric_gate = crate::gate::MetricGate::from_flag(args.min.as_deref(), args.gate_on)?;
    let regression = args
        .baseline
        .as_ref()
        .map(|dir| {
            crate::gate::RegressionGate::parse(
                dir,
                &args.max_drop,
                BootstrapConfig {
                    resamples: args.bootstrap,
                    seed: args.bootstrap_seed,
                    ..BootstrapConfig::default()
                },
            )
        })
        .transpose()
        .map_err(|e| format!("--max-drop {e}"))?;
    let expectations = match &args.expectations {
        Some(path) => Some(Expectations::read_or_bless(path, args.bless)?),
        None => None,
    };
    let bootstrap = BootstrapConfig {
        resamples: args.bootstrap,
        seed: args.bootstrap_seed,
        ..BootstrapConfig::default()
    };
    let assembled = harness::assemble_many(&args.dirs, &bootstrap)?;
    let summary = &assembled.summary;
    let coverage = summary.coverage.clone().unwrap_or_default();
    // The first line says whether the report is whole.
    println!(
        "bemula report: {} ({} director{} merged)",
        coverage.line(),
        args.dirs.len(),
        if args.dirs.len() == 1 { "y" } else { "ies" }
    );
    let times = assembled
        .trials
        .iter()
        .map(|(n, o)| (n.clone(), o.seconds))
        .collect();
    let known: BTreeMap<String, String> = match (&args.expectations, &expectations) {
        (Some(path), Some(e)) => e
            .names()
            .map(|n| (n.clone(), path.display().to_string()))
            .collect(),
        _ => BTreeMap::new(),
    };
    crate::report::write_all_marked(&out, &assembled.records, summary, &times, &known)?;
    let (passed, total) = summary.passed();
    print!(
        "{}",
        crate::report::render_table(&[(summary.config.system.name.clone(), summary)])
    );
    println!(
        "{passed} of {total} requests passed; reports written to {}",
        out.display()
    );
    let outcomes: BTreeMap<String, bool> = summary
        .requests
        .iter()
        .map(|r| (crate::report::outcome_name(r), r.passed))
        .collect();
    if args.bless
        && let (Some(path), Some(e)) = (&args.expectations, &expectations)
    {
        let updated = e.blessed(&outcomes);
        updated.write(path)?;
        println!(
            "bemula: rewrote {} from the merged results: {} known failures",
            path.display(),
            updated.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut regression_lines = Vec::new();
    let mut regression_pass = true;
    if let Some(gate) = &regression {
        let (ok, lines) = gate.check(summary, &assembled.records)?;
        regression_pass = ok;
        regression_lines = lines;
    }
    if args.min_rpr.is_none()
        && metric_gate.is_none()
        && expectations.is_none()
        && regression.is_none()
    {
        if !coverage.is_complete() {
            eprintln!(
                "bemula report: warning: {}; a gate (--min-rpr, --min, --expectations) would fail on it",
                coverage.line()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let gate = Gate {
        min_rpr: args.min_rpr.map(|m| (m, "--min-rpr".to_string())),
        expectations: args.expectations.clone().zip(expectations),
        allow_partial: args.allow_partial,
        metrics: metric_gate,
    };
    let mut decision = gate.decide_with(&outcomes, Some(&coverage), Some(summary));
    decision.add_regression(regression_pass, &regression_lines);
    for line in decision.lines.iter().chain(&regression_lines) {
        println!("{line}");
    }
    println!("{}", decision.closing_line(0));
    Ok(if decision.pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
