//! `bemula run`: the main job. Runs memory systems through the protocol on a dataset,
//! prints a table like the paper's Table 1 and writes reports per system.

mod data;
mod progress;
mod shard;

pub use shard::Shard;

use super::select::{self, LlmContext};
use super::{CliResult, signals};
use crate::metrics::BootstrapConfig;
use crate::report::journal;
use crate::report::{self, Summary};
use crate::run::request_names;
use crate::run::{JournalSink, OpenJournal, RunConfig, Runner, Session, Stop};
use crate::system::builtin;
use data::data_source;
use progress::Bar;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `bemula run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System to evaluate: a built-in name (null, transcript, naive-rag, wipe,
    /// scoped-forget), `full-context:MODEL` (needs an LLM endpoint), `embed-rag:MODEL`
    /// (the paper's Naive RAG: needs an embeddings endpoint), `cmd:COMMAND LINE`
    /// for a stdio adapter, or an `http://` URL for an HTTP adapter, or an instrument
    /// that reads the dataset (`oracle-forget`, the positive control; `oracle-wipe`).
    /// Repeat for several; default: every built-in system (no instrument).
    #[arg(long = "system", value_name = "SYSTEM")]
    pub systems: Vec<String>,
    /// A dataset directory (or one instance file) in the Bemula format; `realised`: the
    /// hand-realised Bemula-Lite compiled into bemula; `generated`: the synthetic data
    /// of `--seed`. Default: `realised`, or `generated` when `--full`, `--seed`,
    /// `--generator` or `--phrasing` is given (the realised edition covers Lite only).
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Use the full set (50 generated instances) instead of Bemula-Lite (31 short and
    /// medium instances). With `--data`, use every instance instead of the Lite tiers
    /// only.
    #[arg(long)]
    pub full: bool,
    /// Seed of the generated data (default 42, the default dataset).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Generator and phrasing of the generated data (without `--data`).
    #[command(flatten)]
    pub gen_args: super::generate::GenArgs,
    /// Instances evaluated at once. Default: the number of cores when the system is
    /// built in and the answerer and judge are offline (the work is the CPU's), 64
    /// otherwise (a remote system or a model needs calls in flight, not cores), fewer
    /// when an adapter declares a lower concurrency.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Where reports go: one directory per system.
    #[arg(long, default_value = "reports/latest", value_name = "DIR")]
    pub out: PathBuf,
    /// Judge: `rule` (offline, deterministic), `llm:MODEL[+MODEL…]` (majority of
    /// models over the endpoint of `--base-url`) or `rule+llm:MODEL[+MODEL…]` (the
    /// hybrid: the rules decide what they can, the LLM judge only what they leave
    /// unscored).
    #[arg(long, default_value = "rule")]
    pub judge: String,
    /// Answerer for systems that return memories: `oracle` (offline; the gold value when
    /// a retrieved memory holds it: measures what a system keeps and retrieves, not
    /// reading), `extractive` (offline; a rule-based reader) or `llm:MODEL`.
    #[arg(long, default_value = "oracle")]
    pub answerer: String,
    /// Bootstrap resamples for the confidence intervals (0: no intervals).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 42, value_name = "SEED")]
    pub bootstrap_seed: u64,
    /// Re-sends of an adapter call the system certainly did not act on (connection
    /// refused, HTTP 429, `-32003 busy`). No other failure is ever re-sent.
    #[arg(long, default_value_t = crate::system::retry::DEFAULT_RETRIES, value_name = "N")]
    pub system_retries: u32,
    /// Restarts of a pass (reset, ingest again) after a failure that may have changed
    /// the system's memory (timeout, crash, garbled reply, failed write).
    #[arg(long, default_value_t = crate::run::recovery::DEFAULT_MAX_RESTARTS, value_name = "N")]
    pub max_restarts: u32,
    /// Adapter settings: timeout, message size, circuit breaker.
    #[command(flatten)]
    pub adapter: super::select::AdapterArgs,
    /// Exit with status 1 (after writing the reports) when a system's share of records
    /// that are errors exceeds this fraction.
    #[arg(long, default_value_t = 0.0, value_name = "RATE")]
    pub max_error_rate: f64,
    /// Gate: exit with status 1 (after writing the reports) unless every system meets
    /// these metric minimums, fractions: `FE=0.3,Score=0.1` (any of RA, FE, PR, RLA,
    /// AR, RPR, FA, UG, Score).
    #[arg(long, value_name = "METRIC=MIN,...")]
    pub min: Option<String>,
    /// What `--min` compares: `point` (the point estimate) or `lower` (the lower end
    /// of the 95% interval).
    #[arg(long, default_value = "point", value_name = "point|lower")]
    pub gate_on: crate::gate::GateOn,
    /// The regression gate against a blessed baseline.
    #[command(flatten)]
    pub regression: super::report::RegressionArgs,
    /// Continue the interrupted run in `--out`: the same configuration is required;
    /// passes already in each system's journal are not run again.
    #[arg(long)]
    pub resume: bool,
    /// Evaluate shard I of N (1-based): a deterministic share of the instances,
    /// balanced by size. `bemula report` merges the shards' report directories.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// LLM endpoint settings (used by `llm:` judges and answerers, `full-context` and `embed-rag`).
    #[cfg(feature = "llm")]
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// What `run.json` in an output directory says about the run writing it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunMarker {
    /// The run's id.
    pub run_id: String,
    /// Its systems: spec and report directory name.
    pub systems: Vec<(String, String)>,
    /// Whether every system's reports were written.
    pub complete: bool,
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
}

/// The run marker's file name in `--out`.
pub const RUN_MARKER: &str = "run.json";

/// The LLM context of the flags.
pub(crate) fn llm_context(#[allow(unused)] args: &Args) -> LlmContext {
    #[cfg(feature = "llm")]
    return LlmContext::new(args.llm.clone());
    #[cfg(not(feature = "llm"))]
    LlmContext::new()
}

/// Runs `bemula run`.
pub fn run(args: Args) -> CliResult {
    let runtime = crate::run::runtime()?;
    runtime.block_on(run_async(args))
}

async fn run_async(args: Args) -> CliResult {
    let started = Instant::now();
    let metric_gate = crate::gate::MetricGate::from_flag(args.min.as_deref(), args.gate_on)?;
    // Before any work: the output directory must be writable, and ours alone.
    report::check_writable(&args.out)?;
    let lock = report::DirLock::report_dir(&args.out)?;
    let source = data_source(&args)?;
    let dataset = source.load(args.full, None)?;
    let expected: std::collections::BTreeSet<String> = request_names(&dataset.instances);
    let instances = match args.shard {
        Some(shard) => shard.select(&dataset.instances),
        None => dataset.instances.clone(),
    };
    let specs: Vec<String> = if args.systems.is_empty() {
        builtin::NAMES.iter().map(|s| s.to_string()).collect()
    } else {
        args.systems.clone()
    };
    if !(0.0..=1.0).contains(&args.max_error_rate) {
        return Err(format!(
            "--max-error-rate must be a fraction in [0, 1], got {}",
            args.max_error_rate
        )
        .into());
    }
    let options = args.adapter.options(args.system_retries)?;
    let dirs = dir_names(&specs);
    // The regression gate is checked before any work: a baseline that is not there
    // fails now, not after the run.
    let baselines: Option<(crate::gate::RegressionGate, Vec<PathBuf>)> =
        match args.regression.gate(args.bootstrap, args.bootstrap_seed)? {
            Some(gate) => {
                let paths = dirs
                    .iter()
                    .map(|name| baseline_of(&gate.baseline, name, dirs.len()))
                    .collect::<Result<Vec<_>, String>>()?;
                Some((gate, paths))
            }
            None => None,
        };
    let marker_path = args.out.join(RUN_MARKER);
    let previous: Option<RunMarker> = std::fs::read(&marker_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let systems: Vec<(String, String)> = specs.iter().cloned().zip(dirs.iter().cloned()).collect();
    let run_id = if args.resume {
        let previous = previous.ok_or_else(|| {
            format!(
                "{}: no run to resume in {} (start one without --resume)",
                marker_path.display(),
                args.out.display()
            )
        })?;
        if previous.systems != systems {
            return Err(format!(
                "{}: cannot resume run {}: it evaluated the systems {:?}, this one {:?}",
                marker_path.display(),
                previous.run_id,
                previous.systems.iter().map(|(s, _)| s).collect::<Vec<_>>(),
                specs
            )
            .into());
        }
        previous.run_id
    } else {
        if let Some(previous) = previous.filter(|p| !p.complete) {
            eprintln!(
                "bemula: the earlier run {} in {} was not finished; starting a new run (continue an interrupted run with --resume)",
                previous.run_id,
                args.out.display()
            );
        }
        report::new_run_id()
    };
    let mut marker = RunMarker {
        run_id: run_id.clone(),
        systems,
        complete: false,
        interrupted: None,
    };
    let llm = llm_context(&args);
    let judge = select::judge(&args.judge, &llm).await?;
    let answerer = select::answerer(&args.answerer, &llm).await?;
    let config = RunConfig {
        jobs: args.jobs.unwrap_or(RunConfig::default().jobs).max(1),
        max_restarts: args.max_restarts,
        ..RunConfig::default()
    };
    let mut factories = Vec::with_capacity(specs.len());
    for (spec, dir) in specs.iter().zip(&dirs) {
        let selected = select::system_with(spec, config.jobs, &options, &llm, &instances).await?;
        if let Some(remote) = &selected.remote {
            select::preflight(remote, args.adapter.no_preflight).await?;
        }
        let jobs = jobs_for(
            args.jobs,
            selected.in_process && judge.runs_offline() && answerer.runs_offline(),
            selected.remote.as_ref().and_then(|r| r.max_concurrency()),
            crate::run::in_process_jobs(),
        );
        factories.push((spec.clone(), dir.clone(), selected, jobs));
    }
    // Written once every system is known: a bad spec leaves no unfinished run behind.
    write_marker(&marker_path, &marker)?;
    let stop = Arc::new(Stop::default());
    let interrupt = signals::listen(stop.clone(), &marker, &marker_path, lock.path())?;
    let mut failing = Vec::new();
    let session = Session {
        dataset,
        source,
        answerer: answerer.clone(),
        judge: judge.clone(),
        bootstrap: BootstrapConfig {
            resamples: args.bootstrap,
            seed: args.bootstrap_seed,
            ..BootstrapConfig::default()
        },
        system_retries: args.system_retries,
        shard: args.shard.map(|s| s.to_string()),
        run_id: run_id.clone(),
    };
    let dataset = &session.dataset;
    let questions: usize = instances
        .iter()
        .map(|i| {
            i.questions
                .iter()
                .map(|q| {
                    usize::from(q.asked_on(crate::dataset::Version::Control))
                        + usize::from(q.asked_on(crate::dataset::Version::Forget))
                })
                .sum::<usize>()
        })
        .sum();
    eprintln!(
        "bemula: {} instances, {} requests, {} questions from {}{}; {} system(s); run {run_id}",
        instances.len(),
        instances.iter().map(|i| i.requests.len()).sum::<usize>(),
        questions,
        dataset.source,
        args.shard
            .map(|s| format!(", shard {s} of {} instances", dataset.instances.len()))
            .unwrap_or_default(),
        factories.len()
    );
    let mut summaries = Vec::new();
    let mut dirs = Vec::new();
    let mut gate_lines: Vec<String> = Vec::new();
    for (spec, dir_name, selected, jobs) in factories {
        let factory = selected.factory;
        let info = factory.info();
        let dir = args.out.join(&dir_name);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let journal_config = session.journal_config(
            &spec,
            info.clone(),
            instances.iter().map(|i| i.id.clone()).collect(),
        );
        let all = crate::run::Selection::All;
        let expected_passes = Runner::expected_passes(instances.iter().map(|i| (i, &all)));
        let label = format!("{}: ", crate::terminal::inline(&info.name));
        let OpenJournal { journal, completed } = session.journal(
            &dir.join(journal::JOURNAL),
            &journal_config,
            args.resume,
            &expected_passes,
            &label,
        )?;
        let progress = Arc::new(Bar::new(&info.name, questions, instances.len()));
        let config = RunConfig {
            jobs,
            // A remote system's calls wait; a built-in system works on the CPU.
            reading_pool: !selected.in_process,
            ..config.clone()
        };
        let runner = Runner::new(factory, answerer.clone(), judge.clone(), config)
            .with_sink(progress.clone())
            .with_sink(Arc::new(JournalSink::new(
                journal.clone(),
                Some(stop.clone()),
            )))
            .with_completed(completed)
            .with_stop(stop.clone());
        let t0 = Instant::now();
        #[cfg(feature = "llm")]
        let judge_before = llm.judge_stats();
        let usage_mark = llm.usage_mark();
        let records = runner.run_all(&instances).await;
        progress.finish();
        if let Some(signal) = interrupt.get() {
            if let Some(remote) = &selected.remote {
                remote.shutdown_gracefully().await;
            }
            marker.interrupted = Some(signal.name.to_string());
            write_marker(&marker_path, &marker)?;
            eprintln!(
                "bemula: stopped by {}: the passes that completed are journaled in {}; continue the run with\n  {}",
                signal.name,
                dir.display(),
                signals::resume_command()
            );
            return Ok(ExitCode::from(signal.status));
        }
        if let Some(remote) = &selected.remote {
            if let Some(reason) = remote.circuit_open() {
                eprintln!("bemula: {reason}");
            }
            remote.shutdown_gracefully().await;
        }
        let mut run_info = session.run_info(info, selected.remote.as_deref());
        if let Some(usage) = llm.usage_since(&usage_mark) {
            run_info.extra.insert("usage".into(), usage);
        }
        #[cfg(feature = "llm")]
        if let (Some(before), Some(after)) = (judge_before, llm.judge_stats()) {
            run_info
                .extra
                .insert("judge_stats".into(), judge_stats_delta(before, after));
        }
        let summary = session.summarise(&records, run_info, Some(journal.run_id()), &expected);
        report::write_all(&dir, &records, &summary, &Default::default())?;
        eprintln!(
            "bemula: {} done in {:.1}s, reports in {}",
            crate::terminal::inline(&summary.config.system.name),
            t0.elapsed().as_secs_f64(),
            dir.display()
        );
        let baseline = baselines
            .as_ref()
            .map(|(gate, paths)| crate::gate::RegressionGate {
                baseline: paths[summaries.len()].clone(),
                ..gate.clone()
            });
        let (lines, failed) =
            check_system(&args, &summary, &records, metric_gate.as_ref(), baseline)?;
        gate_lines.extend(lines);
        failing.extend(failed);
        summaries.push((summary.config.system.name.clone(), summary));
        dirs.push(dir);
    }
    let pages = dirs
        .iter()
        .map(|d| d.as_path())
        .zip(summaries.iter().map(|(_, s)| s));
    let index = report::html::write_index(&args.out, &pages.collect::<Vec<_>>())?;
    marker.complete = true;
    write_marker(&marker_path, &marker)?;
    print_results(&args, &instances, &summaries, &llm, &index, started);
    if !gate_lines.is_empty() {
        println!();
        for line in &gate_lines {
            println!("bemula gate: {line}");
        }
    }
    if !failing.is_empty() {
        for line in &failing {
            eprintln!("bemula: {line}");
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The error share and the gates of one system's run: the lines the console prints
/// under the system's name, and why the run fails, if it does.
fn check_system(
    args: &Args,
    summary: &Summary,
    records: &[crate::record::Record],
    metric_gate: Option<&crate::gate::MetricGate>,
    regression: Option<crate::gate::RegressionGate>,
) -> Result<(Vec<String>, Vec<String>), String> {
    let (mut gate_lines, mut failing) = (Vec::new(), Vec::new());
    let counts = &summary.counts;
    let share = counts.errors as f64 / counts.records.max(1) as f64;
    if counts.errors > 0 {
        eprintln!(
            "bemula: {}: {} of {} records are errors; the first of each kind:",
            crate::terminal::inline(&summary.config.system.name),
            counts.errors,
            counts.records
        );
        for line in summary.error_lines(5) {
            eprintln!("bemula:   {line}");
        }
    }
    if share > args.max_error_rate {
        failing.push(format!(
            "{}: {} of {} records are errors ({:.1}%, above --max-error-rate {})",
            summary.config.system.name,
            counts.errors,
            counts.records,
            100.0 * share,
            args.max_error_rate
        ));
    }
    if let Some(gate) = metric_gate {
        let (ok, lines) = gate.check(summary);
        gate_lines.extend(for_system(&summary.config.system.name, lines));
        if !ok {
            failing.push(format!(
                "{}: below the metric gate --min {}",
                summary.config.system.name,
                gate.spec()
            ));
        }
    }
    if let Some(gate) = regression {
        let (ok, lines) = gate.check(summary, records)?;
        gate_lines.extend(for_system(&summary.config.system.name, lines));
        if !ok {
            failing.push(format!(
                "{}: worse than the baseline {} (--max-drop {})",
                summary.config.system.name,
                gate.baseline.display(),
                args.regression.max_drop
            ));
        }
    }
    Ok((gate_lines, failing))
}

/// The run's results on the console: the coverage of a shard, the table and its
/// legend, the model usage, how each system's records were judged, the judge's
/// calibration, and where the reports are.
fn print_results(
    args: &Args,
    instances: &[crate::dataset::Instance],
    summaries: &[(String, Summary)],
    llm: &LlmContext,
    index: &std::path::Path,
    started: Instant,
) {
    let rows: Vec<(String, &Summary)> = summaries.iter().map(|(n, s)| (n.clone(), s)).collect();
    if let Some(coverage) = summaries
        .first()
        .and_then(|(_, s)| s.coverage.as_ref())
        .filter(|c| !c.is_complete())
    {
        println!(
            "\n{} (shard {}; merge the shards with `bemula report`)",
            coverage.line(),
            args.shard.map(|s| s.to_string()).unwrap_or_default()
        );
    }
    println!(
        "\nBemula{} results (percent; 95% cluster-bootstrap intervals over {} instances):\n",
        if instances.iter().all(|i| i.tier.is_lite()) {
            "-Lite"
        } else {
            ""
        },
        instances.len()
    );
    print!("{}", report::render_table(&rows));
    print!("\n{}", report::render_legend(&report::TABLE_METRICS));
    if let Some(usage) = llm.usage_text() {
        println!("\nModel usage:\n{usage}");
    }
    for (name, summary) in summaries {
        println!(
            "{}: {}",
            crate::terminal::inline(name),
            report::judging_line(&summary.judging)
        );
        if summary
            .judging
            .unscored_share
            .is_some_and(|x| x > UNSCORED_WARNING)
        {
            println!(
                "  warning: more than {:.0}% of {}'s records are unscored; grade them with \
             the hybrid judge, --judge rule+llm:MODEL",
                100.0 * UNSCORED_WARNING,
                crate::terminal::inline(name)
            );
        }
    }
    // One judge grades every system of a run: its calibration is quoted once.
    if let Some((_, summary)) = summaries.first() {
        println!(
            "Calibration: {}",
            report::calibration_line(&summary.judging)
        );
    }
    println!(
        "\nReports: {}  (total {:.1}s); figures: {}",
        args.out.display(),
        started.elapsed().as_secs_f64(),
        index.display()
    );
}

pub(crate) fn write_marker(
    path: &std::path::Path,
    marker: &RunMarker,
) -> Result<(), report::ReportError> {
    let json = serde_json::to_vec_pretty(marker).unwrap_or_default();
    report::write_file(path, &json)
}

/// A gate's lines as the run's console prints them: each under the system's name, in
/// place of the `bemula gate:` head the run's own decision line carries.
fn for_system(system: &str, lines: Vec<String>) -> impl Iterator<Item = String> + '_ {
    lines.into_iter().map(move |line| {
        format!(
            "{}: {}",
            crate::terminal::inline(system),
            line.trim_start_matches("bemula gate: ")
        )
    })
}

/// The baseline report directory of the system whose reports go in `name`: `dir`
/// itself when it is one report directory and the run has one system, else
/// `dir/name`.
fn baseline_of(dir: &std::path::Path, name: &str, systems: usize) -> Result<PathBuf, String> {
    let own = dir.join(name);
    if own.join("summary.json").is_file() {
        return Ok(own);
    }
    if dir.join("summary.json").is_file() {
        if systems == 1 {
            return Ok(dir.to_path_buf());
        }
        return Err(format!(
            "--baseline {}: one system's report directory, but this run evaluates {systems} \
             systems; give a directory holding one report directory per system ({}/, …)",
            dir.display(),
            name
        ));
    }
    Err(format!(
        "--baseline {}: no baseline for `{name}`: neither {} nor {} exists (write one with \
         `bemula bless-baseline REPORT_DIR {}`)",
        dir.display(),
        own.join("summary.json").display(),
        dir.join("summary.json").display(),
        dir.display()
    ))
}

/// Report directory names for `specs`, one each and all distinct: [`dir_name`], and
/// where two specs would share a name, each of them followed by a short hash of the
/// spec.
pub(crate) fn dir_names(specs: &[String]) -> Vec<String> {
    use sha2::Digest;
    let plain: Vec<String> = specs.iter().map(|s| dir_name(s)).collect();
    plain
        .iter()
        .zip(specs)
        .map(|(name, spec)| {
            let shared = plain.iter().filter(|n| *n == name).count() > 1;
            if shared {
                let hash = sha2::Sha256::digest(spec.as_bytes());
                let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
                format!("{}-{short}", name.chars().take(71).collect::<String>())
            } else {
                name.clone()
            }
        })
        .collect()
}

/// Above this share of unscored records the footer recommends the hybrid judge.
const UNSCORED_WARNING: f64 = 0.05;

/// The instances a system's run evaluates at once: `--jobs` when given; otherwise
/// `cores` when all the work is in this process (a built-in system, an offline
/// answerer and judge), else [`crate::run::DEFAULT_JOBS`], capped by an adapter's
/// declared concurrency (two namespaces, one per pass, for each instance).
fn jobs_for(
    given: Option<usize>,
    in_process: bool,
    adapter_limit: Option<usize>,
    cores: usize,
) -> usize {
    if let Some(jobs) = given {
        return jobs.max(1);
    }
    if in_process {
        return cores.max(1);
    }
    let jobs = crate::run::DEFAULT_JOBS;
    match adapter_limit {
        Some(limit) => jobs.min(limit.div_ceil(2).max(1)),
        None => jobs,
    }
}

/// The LLM judge's counters of one system's run, with the models' agreement rate.
#[cfg(feature = "llm")]
fn judge_stats_delta(
    before: crate::llm::JudgeStats,
    after: crate::llm::JudgeStats,
) -> serde_json::Value {
    let d = crate::llm::JudgeStats {
        items: after.items - before.items,
        unscored: after.unscored - before.unscored,
        multi_vote_items: after.multi_vote_items - before.multi_vote_items,
        unanimous_items: after.unanimous_items - before.unanimous_items,
        guard_decided: after.guard_decided - before.guard_decided,
        guard_disagreements: after.guard_disagreements - before.guard_disagreements,
        guard_decided_unparsed: after.guard_decided_unparsed - before.guard_decided_unparsed,
        unparsable_replies: after.unparsable_replies - before.unparsable_replies,
        call_errors: after.call_errors - before.call_errors,
    };
    let mut value = serde_json::to_value(d).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("agreement_rate".into(), d.agreement_rate().into());
    }
    value
}

/// A directory name for a system spec: [`report::parts::sanitize`], at most 80
/// characters.
pub(crate) fn dir_name(spec: &str) -> String {
    report::parts::sanitize(spec).chars().take(80).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn in_process_work_runs_as_many_instances_as_cores_and_remote_work_stays_wide() {
        use super::jobs_for;
        use crate::run::DEFAULT_JOBS;
        // A built-in system read and judged offline: the CPU's work.
        assert_eq!(jobs_for(None, true, None, 6), 6);
        assert_eq!(jobs_for(None, true, None, 0), 1);
        // An adapter, or a model anywhere in the run: calls in flight.
        assert_eq!(jobs_for(None, false, None, 6), DEFAULT_JOBS);
        assert_eq!(jobs_for(None, false, Some(10), 6), 5);
        assert_eq!(jobs_for(None, false, Some(1), 6), 1);
        // --jobs wins over both.
        assert_eq!(jobs_for(Some(3), true, None, 6), 3);
        assert_eq!(jobs_for(Some(40), false, Some(10), 6), 40);
        assert_eq!(jobs_for(Some(0), false, None, 6), 1);
    }

    use super::*;

    #[test]
    fn distinct_specs_never_share_a_report_directory() {
        let long = "x".repeat(90);
        let specs: Vec<String> = vec![
            "cmd:python3 a.py".into(),
            "cmd:python3_a.py".into(),
            format!("cmd:{long} --one"),
            format!("cmd:{long} --two"),
            "naive-rag".into(),
        ];
        let dirs = dir_names(&specs);
        let distinct: std::collections::BTreeSet<&String> = dirs.iter().collect();
        assert_eq!(distinct.len(), specs.len(), "{dirs:?}");
        assert_eq!(
            dirs[4], "naive-rag",
            "a name without a clash stays as it is"
        );
        assert_eq!(dirs, dir_names(&specs), "stable between runs");
    }

    #[test]
    fn shards_partition_the_instances_and_balance_them() {
        let data = crate::generate::generate(&crate::generate::GenConfig {
            seed: 42,
            lite: true,
            ..Default::default()
        });
        let mut seen = std::collections::BTreeSet::new();
        let mut sizes = Vec::new();
        for index in 1..=4 {
            let shard: Shard = format!("{index}/4").parse().unwrap();
            let mine = shard.select(&data.instances);
            sizes.push(mine.len());
            for i in mine {
                assert!(seen.insert(i.id.clone()), "{} in two shards", i.id);
            }
        }
        assert_eq!(seen.len(), data.instances.len());
        assert!(
            sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 3,
            "{sizes:?}"
        );
        for bad in ["0/4", "5/4", "1", "a/b", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }
}
