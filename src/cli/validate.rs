//! `bemula validate`: checks a dataset against the format and the benchmark's
//! invariants and prints every problem, one per line, as `FILE: at PATH: REASON`, then
//! every warning (a fact value the persona contradicts) as `FILE: at PATH: warning: REASON`.
//!
//! With `--positive-control` it also runs the positive control, the instrument
//! `oracle-forget` (see [`crate::system::builtin::instrument`]), on the data with the
//! oracle reader and the rule judge, and reports every request it fails with the
//! failing items: each one is a defect of the data, the judge or the metrics.

use super::{CliResult, EXIT_BAD_INPUT};
use crate::dataset::{Dataset, RequestType, realised, validate};
use crate::generate;
use crate::metrics::{RequestOutcome, request_outcomes};
use crate::run::{RunConfig, Runner};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `bemula validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A dataset directory (one `<id>.json` per instance) or a single instance file.
    /// Optional with `--positive-control`, which then runs on the generated data.
    #[arg(required_unless_present = "positive_control")]
    pub path: Option<PathBuf>,
    /// Run the positive control (`oracle-forget`, oracle reader, rule judge) on the
    /// data of DIR (default: PATH, or the generated Bemula-Lite data) and report every
    /// request it fails. It cannot pass F4 offline (the oracle reader never infers a
    /// derived fact); every other failure is a defect of the data, judge or metrics.
    #[arg(long, value_name = "DIR", num_args = 0..=1, default_missing_value = "")]
    pub positive_control: Option<String>,
    /// With the positive control: every tier (of the data, or the full generated set).
    #[arg(long)]
    pub full: bool,
    /// With the positive control on generated data: its seed.
    #[arg(long, default_value_t = generate::DEFAULT_SEED)]
    pub seed: u64,
    /// Generator and phrasing of the generated data.
    #[command(flatten)]
    pub gen_args: super::generate::GenArgs,
}

/// Runs `bemula validate`: every file is parsed (a file that does not parse is one
/// problem and the others are still checked), every problem is printed, and the last
/// line sums up. Warnings (findings that leave the data valid) follow the problems, as
/// `FILE: at PATH: warning: REASON`. Exit status 0 when the data is valid (warnings or
/// not) and the positive control, if asked for, passes every request but F4; 1 when
/// the positive control fails one; 2 when the data is not valid.
pub fn run(args: Args) -> CliResult {
    let mut out = std::io::stdout().lock();
    if let Some(path) = args
        .path
        .as_ref()
        .filter(|p| p.as_os_str() == realised::NAME && !p.exists())
    {
        // The realised data compiled into bemula: loading it checks everything.
        let dataset = Dataset::open(path)?;
        writeln!(
            out,
            "ok: {} ({} instances, {} requests, {} questions)",
            dataset.source,
            dataset.instances.len(),
            dataset.request_count(),
            dataset
                .instances
                .iter()
                .map(|i| i.questions.len())
                .sum::<usize>()
        )?;
    } else if let Some(path) = &args.path {
        let checked = validate::check_path(path)?;
        for problem in checked.problems.iter() {
            writeln!(out, "{problem}")?;
        }
        for warning in checked.warnings.iter() {
            writeln!(
                out,
                "{}: at {}: warning: {}",
                warning.file.display(),
                warning.json_path,
                warning.reason
            )?;
        }
        writeln!(out, "{}", checked.summary())?;
        if !checked.is_ok() {
            return Ok(ExitCode::from(EXIT_BAD_INPUT));
        }
    }
    let Some(control_dir) = &args.positive_control else {
        return Ok(ExitCode::SUCCESS);
    };
    let dir = Some(PathBuf::from(control_dir))
        .filter(|d| !d.as_os_str().is_empty())
        .or(args.path.clone());
    let dataset = match dir {
        Some(dir) => Dataset::open(&dir)?.default_tiers(args.full),
        None => generate::generate(&args.gen_args.config(args.seed, !args.full)?),
    };
    let outcomes = positive_control(&dataset)?;
    let report = PositiveControl::of(&outcomes);
    write!(out, "{}", report.render(&dataset.source))?;
    Ok(if report.passes() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The outcomes of the positive control on `dataset`.
pub fn positive_control(
    dataset: &Dataset,
) -> Result<Vec<RequestOutcome>, Box<dyn std::error::Error>> {
    let factory = crate::system::builtin::instrument::factory("oracle-forget", &dataset.instances)
        .ok_or("the oracle-forget instrument is missing")?;
    let runner = Runner::new(
        factory,
        Arc::new(crate::oracle::Oracle::new()),
        Arc::new(crate::judge::rule::RuleJudge),
        RunConfig {
            jobs: crate::run::in_process_jobs(),
            ..RunConfig::default()
        },
    );
    let runtime = crate::run::runtime()?;
    let records = runtime.block_on(runner.run_all(&dataset.instances));
    Ok(request_outcomes(&records))
}

/// What the positive control found: counts per request type and the failures.
#[derive(Debug, Clone, PartialEq)]
pub struct PositiveControl {
    /// Per request type: (passed, requests).
    pub by_type: Vec<(RequestType, usize, usize)>,
    /// The failed requests of every type but F4.
    pub defects: Vec<RequestOutcome>,
    /// The failed F4 requests (not scorable by the offline reader).
    pub f4_failed: usize,
}

impl PositiveControl {
    /// Sums up `outcomes`.
    pub fn of(outcomes: &[RequestOutcome]) -> PositiveControl {
        let by_type = RequestType::ALL
            .iter()
            .map(|&t| {
                let of_type = outcomes.iter().filter(|o| o.request_type == Some(t));
                let (passed, total) =
                    of_type.fold((0, 0), |(p, n), o| (p + usize::from(o.passed), n + 1));
                (t, passed, total)
            })
            .filter(|(_, _, n)| *n > 0)
            .collect();
        let (f4, other): (Vec<&RequestOutcome>, Vec<&RequestOutcome>) = outcomes
            .iter()
            .filter(|o| !o.passed)
            .partition(|o| o.request_type == Some(RequestType::F4));
        PositiveControl {
            by_type,
            defects: other.into_iter().cloned().collect(),
            f4_failed: f4.len(),
        }
    }

    /// Whether every request but F4 passed.
    pub fn passes(&self) -> bool {
        self.defects.is_empty()
    }

    /// The report, ready to print.
    pub fn render(&self, source: &str) -> String {
        let mut text =
            format!("positive control (oracle-forget, oracle reader, rule judge) on {source}:\n");
        for (t, passed, total) in &self.by_type {
            let note = if *t == RequestType::F4 {
                " (not scorable offline: the oracle reader never infers a derived fact)"
            } else {
                ""
            };
            text.push_str(&format!(
                "  {} {:<13} {passed} of {total} passed{note}\n",
                t.code(),
                t.name()
            ));
        }
        for outcome in &self.defects {
            text.push_str(&format!(
                "FAIL {}::{} ({}): {} failing item(s)\n",
                outcome.instance,
                outcome.request,
                outcome
                    .request_type
                    .map(|t| t.code())
                    .unwrap_or("type unknown"),
                outcome.failed.len()
            ));
            for item in &outcome.failed {
                text.push_str(&format!(
                    "    {} ({}, {} version): {}\n",
                    item.question_id,
                    item.reason,
                    item.version.name(),
                    item.detail
                ));
            }
        }
        if self.passes() {
            text.push_str(&format!(
                "positive control: PASSED: every request but F4 passes ({} F4 request(s) not scorable offline)\n",
                self.f4_failed
            ));
        } else {
            text.push_str(&format!(
                "positive control: FAILED: {} request(s) other than F4 fail; each is a defect of the data, the judge or the metrics\n",
                self.defects.len()
            ));
        }
        text
    }
}
