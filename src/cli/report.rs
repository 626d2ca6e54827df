//! `bemula report DIR...`: merges results and applies the harness's gate. Each `DIR` is
//! a harness report directory holding the parts of process-per-test runs (cargo-nextest,
//! partitions included) or a report directory of `bemula run` (a shard, for example).
//! The merged reports state their coverage, and `--min-rpr` / `--expectations` set the
//! exit status exactly as the harness's gate does.

use super::CliResult;
use crate::harness::{Expectations, Gate};
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
    /// Which cargo-nextest runs of a report directory to merge: the default is the
    /// newest run that covers every request (the newest run when none does); `latest`
    /// the newest run whatever it covers; `all` every run, which must be of one
    /// configuration (the partitions of one change); or a run id (or the start of one).
    /// The runs found are listed, the merged ones marked `*`.
    #[arg(long, value_name = "ID|latest|all")]
    pub run: Option<crate::report::merge::RunChoice>,
    /// Where the merged reports go (default: the only DIR, or the report directory
    /// above it when DIR is one run's parts, `<report dir>/parts/<run id>`; required
    /// with several).
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
    /// The regression gate against a blessed baseline.
    #[command(flatten)]
    pub regression: RegressionArgs,
    /// Gate: known failures; a failing request not listed fails the run.
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,
    /// Rewrite the expectations file from the merged outcomes (creates it if missing).
    #[arg(long, requires = "expectations")]
    pub bless: bool,
    /// Write the merged reports as the baseline `--baseline DIR` instead of gating on
    /// it (under cargo-nextest, the harness's `BEMULA_BLESS_BASELINE=1` is done here).
    #[arg(long, requires = "baseline")]
    pub bless_baseline: bool,
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

/// The regression gate's flags, the same on `bemula run` and `bemula report`.
#[derive(Debug, Clone, clap::Args)]
pub struct RegressionArgs {
    /// Regression gate: a blessed baseline (write one with `bemula bless-baseline`), of
    /// the same data, judge and answerer. One system's report directory; for a `bemula
    /// run` of several systems, a directory with one report directory per system, named
    /// as the run names them (`naive-rag/`, …). Fails (exit status 1, after the
    /// reports are written) when a metric of `--max-drop` fell by more than its
    /// tolerance with 95% confidence (paired cluster bootstrap, as `bemula compare`).
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
}

impl RegressionArgs {
    /// The gate these flags ask for, with the bootstrap of the paired differences;
    /// `None` without `--baseline`. A malformed `--max-drop` is an error naming it.
    pub fn gate(
        &self,
        resamples: usize,
        seed: u64,
    ) -> Result<Option<crate::gate::RegressionGate>, String> {
        self.baseline
            .as_ref()
            .map(|dir| {
                crate::gate::RegressionGate::parse(
                    dir,
                    &self.max_drop,
                    BootstrapConfig {
                        resamples,
                        seed,
                        ..BootstrapConfig::default()
                    },
                )
            })
            .transpose()
            .map_err(|e| format!("--max-drop {e}"))
    }
}

/// Runs `bemula report`.
pub fn run(args: Args) -> CliResult {
    let out = match (&args.out, args.dirs.as_slice()) {
        (Some(out), _) => out.clone(),
        (None, [only]) => report_dir_of_run(only).unwrap_or_else(|| only.clone()),
        (None, _) => {
            return Err(
                "several directories to merge: say where the merged reports go with --out DIR"
                    .into(),
            );
        }
    };
    let metric_gate = crate::gate::MetricGate::from_flag(args.min.as_deref(), args.gate_on)?;
    let regression = args.regression.gate(args.bootstrap, args.bootstrap_seed)?;
    let expectations = match &args.expectations {
        Some(path) => Some(Expectations::read_or_bless(path, args.bless)?),
        None => None,
    };
    let bootstrap = BootstrapConfig {
        resamples: args.bootstrap,
        seed: args.bootstrap_seed,
        ..BootstrapConfig::default()
    };
    let choice = args.run.clone().unwrap_or_default();
    let assembled = crate::report::merge::assemble_runs(&args.dirs, &choice, &bootstrap)?;
    let summary = &assembled.summary;
    let coverage = summary.coverage.clone().unwrap_or_default();
    // The first line says whether the report is whole.
    println!(
        "bemula report: {} ({} director{} merged)",
        coverage.line(),
        args.dirs.len(),
        if args.dirs.len() == 1 { "y" } else { "ies" }
    );
    if !assembled.runs.is_empty() {
        let merged = assembled.runs.iter().filter(|r| r.picked).count();
        println!(
            "bemula report: {} cargo-nextest run(s) found, oldest first; {merged} merged (*):",
            assembled.runs.len()
        );
        for run in &assembled.runs {
            println!("  {}", run.line());
        }
    }
    for note in &assembled.notes {
        println!("bemula report: {note}");
    }
    if let Some(selection) = summary
        .config
        .extra
        .get("selection")
        .and_then(|v| v.as_str())
    {
        println!("bemula report: this is a {selection}");
    }
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
    if args.bless_baseline
        && let Some(gate) = &regression
    {
        println!("{}", crate::gate::bless_baseline(&out, &gate.baseline)?);
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

/// The report directory above `dir` when `dir` is one run's parts,
/// `<report dir>/parts/<run id>`.
fn report_dir_of_run(dir: &std::path::Path) -> Option<PathBuf> {
    let parts = dir.parent()?;
    if parts.file_name()? != crate::report::parts::PARTS {
        return None;
    }
    let has_outcomes = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().ends_with(".trials.json"));
    has_outcomes
        .then(|| parts.parent().map(PathBuf::from))
        .flatten()
}
