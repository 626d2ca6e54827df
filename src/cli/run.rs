//! `bemula run`: the main job. Runs memory systems through the protocol on a dataset,
//! prints a table like the paper's Table 1 and writes reports per system.

use super::CliResult;
use super::select::{self, LlmContext};
use crate::dataset::Dataset;
use crate::generate::{self, GenConfig};
use crate::metrics::BootstrapConfig;
use crate::report::{self, RunInfo, Summary};
use crate::run::{Progress, RunConfig, Runner};
use crate::system::builtin;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// Arguments of `bemula run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System to evaluate: a built-in name (null, transcript, naive-rag, wipe,
    /// scoped-forget), `full-context:MODEL` (needs an LLM endpoint), `cmd:COMMAND LINE`
    /// for a stdio adapter, or an `http://` URL for an HTTP adapter. Repeat for
    /// several; default: every built-in system.
    #[arg(long = "system", value_name = "SYSTEM")]
    pub systems: Vec<String>,
    /// A dataset directory (or one instance file) in the Bemula format. Default: the
    /// synthetic data generated from `--seed`.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// Use the full set (50 instances) instead of Bemula-Lite (31 short and medium
    /// instances). With `--data`, use every instance instead of the Lite tiers only.
    #[arg(long)]
    pub full: bool,
    /// Seed of the generated data.
    #[arg(long, default_value_t = generate::DEFAULT_SEED)]
    pub seed: u64,
    /// Instances evaluated at once.
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Where reports go: one directory per system.
    #[arg(long, default_value = "reports/latest", value_name = "DIR")]
    pub out: PathBuf,
    /// Judge: `rule` (offline, deterministic) or `llm:MODEL[+MODEL…]` (majority of
    /// models over the endpoint of `--base-url`).
    #[arg(long, default_value = "rule")]
    pub judge: String,
    /// Answerer for systems that return memories: `extractive` (offline) or `llm:MODEL`.
    #[arg(long, default_value = "extractive")]
    pub answerer: String,
    /// Bootstrap resamples for the confidence intervals (0: no intervals).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 42, value_name = "SEED")]
    pub bootstrap_seed: u64,
    /// Retries of a failing system call before it is recorded as an error.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub system_retries: u32,
    /// LLM endpoint settings (used by `llm:` judges and answerers and `full-context`).
    #[cfg(feature = "llm")]
    #[command(flatten)]
    pub llm: crate::llm::LlmArgs,
}

/// The LLM context of the flags.
pub(crate) fn llm_context(#[allow(unused)] args: &Args) -> LlmContext {
    #[cfg(feature = "llm")]
    return LlmContext::new(args.llm.clone());
    #[cfg(not(feature = "llm"))]
    LlmContext::new()
}

/// Runs `bemula run`.
pub fn run(args: Args) -> CliResult {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(run_async(args))
}

async fn run_async(args: Args) -> CliResult {
    let started = Instant::now();
    let (dataset, data_seed) = load_dataset(&args)?;
    let llm = llm_context(&args);
    let judge = select::judge(&args.judge, &llm).await?;
    let answerer = select::answerer(&args.answerer, &llm).await?;
    let specs: Vec<String> = if args.systems.is_empty() {
        builtin::NAMES.iter().map(|s| s.to_string()).collect()
    } else {
        args.systems.clone()
    };
    let config = RunConfig {
        jobs: args.jobs.unwrap_or(RunConfig::default().jobs).max(1),
        retries: args.system_retries,
        ..RunConfig::default()
    };
    let mut factories = Vec::with_capacity(specs.len());
    for spec in &specs {
        factories.push((spec.clone(), select::system(spec, config.jobs, &llm).await?));
    }
    let bootstrap = BootstrapConfig {
        resamples: args.bootstrap,
        seed: args.bootstrap_seed,
        ..BootstrapConfig::default()
    };
    let questions: usize = dataset
        .instances
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
        "bemula: {} instances, {} requests, {} questions from {}; {} system(s)",
        dataset.instances.len(),
        dataset.request_count(),
        questions,
        dataset.source,
        factories.len()
    );
    let mut summaries = Vec::new();
    let mut dirs = Vec::new();
    for (spec, selected) in factories {
        let factory = selected.factory;
        let info = factory.info();
        let progress = Arc::new(Bar::new(&info.name, questions, dataset.instances.len()));
        let runner = Runner::new(factory, answerer.clone(), judge.clone(), config.clone())
            .with_progress(progress.clone());
        let t0 = Instant::now();
        #[cfg(feature = "llm")]
        let judge_before = llm.judge_stats();
        let usage_mark = llm.usage_mark();
        let records = runner.run_all(&dataset.instances).await;
        progress.finish();
        let mut run_info = RunInfo {
            system: info,
            judge: judge.name(),
            answerer: answerer.name(),
            dataset: dataset.source.clone(),
            dataset_checksum: dataset.checksum.clone(),
            data_seed,
            ..RunInfo::default()
        };
        if let Some(stderr) = selected
            .remote
            .as_ref()
            .and_then(|r| r.stderr_tail())
            .filter(|s| !s.is_empty())
        {
            run_info
                .extra
                .insert("adapter_stderr_tail".into(), stderr.into());
        }
        if let Some(usage) = llm.usage_since(&usage_mark) {
            run_info.extra.insert("usage".into(), usage);
        }
        #[cfg(feature = "llm")]
        if let (Some(before), Some(after)) = (judge_before, llm.judge_stats()) {
            run_info
                .extra
                .insert("judge_stats".into(), judge_stats_delta(before, after));
        }
        let summary = Summary::build(&records, run_info, &bootstrap);
        let dir = args.out.join(dir_name(&spec));
        report::write_all(&dir, &records, &summary, &Default::default())?;
        eprintln!(
            "bemula: {} done in {:.1}s, reports in {}",
            summary.config.system.name,
            t0.elapsed().as_secs_f64(),
            dir.display()
        );
        summaries.push((summary.config.system.name.clone(), summary));
        dirs.push(dir);
    }
    let pages = dirs
        .iter()
        .map(|d| d.as_path())
        .zip(summaries.iter().map(|(_, s)| s));
    let index = report::html::write_index(&args.out, &pages.collect::<Vec<_>>())?;
    let rows: Vec<(String, &Summary)> = summaries.iter().map(|(n, s)| (n.clone(), s)).collect();
    println!(
        "\nBemula{} results (percent; 95% cluster-bootstrap intervals over {} instances):\n",
        if dataset.instances.iter().all(|i| i.tier.is_lite()) {
            "-Lite"
        } else {
            ""
        },
        dataset.instances.len()
    );
    print!("{}", report::render_table(&rows));
    print!("\n{}", report::render_legend(&report::TABLE_METRICS));
    if let Some(usage) = llm.usage_text() {
        println!("\nModel usage:\n{usage}");
    }
    println!(
        "\nReports: {}  (total {:.1}s); figures: {}",
        args.out.display(),
        started.elapsed().as_secs_f64(),
        index.display()
    );
    Ok(ExitCode::SUCCESS)
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
        unparsable_replies: after.unparsable_replies - before.unparsable_replies,
        call_errors: after.call_errors - before.call_errors,
    };
    let mut value = serde_json::to_value(d).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("agreement_rate".into(), d.agreement_rate().into());
    }
    value
}

fn load_dataset(args: &Args) -> Result<(Dataset, Option<u64>), Box<dyn std::error::Error>> {
    match &args.data {
        Some(dir) => {
            let dataset = Dataset::load(dir)?;
            if !args.full && dataset.instances.iter().any(|i| !i.tier.is_lite()) {
                eprintln!(
                    "bemula: using the short and medium instances (Bemula-Lite); pass --full for all"
                );
            }
            Ok((dataset.default_tiers(args.full), None))
        }
        None => {
            let dataset = generate::generate(&GenConfig {
                seed: args.seed,
                lite: !args.full,
            });
            Ok((dataset, Some(args.seed)))
        }
    }
}

/// A directory name for a system spec: its characters outside `[A-Za-z0-9._-]` become `_`.
pub(crate) fn dir_name(spec: &str) -> String {
    let name: String = spec
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.chars().take(80).collect()
}

/// A progress bar on a terminal (questions answered, instances done, elapsed); silent
/// otherwise.
struct Bar {
    bar: Option<ProgressBar>,
    instances: usize,
    done: std::sync::atomic::AtomicUsize,
}

impl Bar {
    fn new(name: &str, questions: usize, instances: usize) -> Bar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(questions as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:>14} [{elapsed_precise}] {bar:30} {pos}/{len} questions, {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_prefix(name.to_string());
            bar.set_message(format!("0/{instances} instances"));
            bar
        });
        Bar {
            bar,
            instances,
            done: Default::default(),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Progress for Bar {
    fn question_done(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }
    fn instance_done(&self, _instance: &str) {
        let done = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{done}/{} instances", self.instances));
        }
    }
}
