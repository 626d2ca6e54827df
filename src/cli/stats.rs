//! `bemula stats`: a dataset's statistics, as the paper's tables or as JSON.

use super::CliResult;
use crate::dataset::{Dataset, stats};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bemula stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A dataset directory (one `<id>.json` per instance) or a single instance file.
    /// Without it: the synthetic data generated from `--seed`.
    pub path: Option<PathBuf>,
    /// Seed of the generated data (without PATH).
    #[arg(long, default_value_t = crate::generate::DEFAULT_SEED)]
    pub seed: u64,
    /// Only Bemula-Lite (the short and medium instances).
    #[arg(long)]
    pub lite: bool,
    /// Generator and phrasing of the generated data (without PATH).
    #[command(flatten)]
    pub gen_args: super::generate::GenArgs,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// Runs `bemula stats`: loads (and so validates) the dataset and prints its statistics.
pub fn run(args: Args) -> CliResult {
    let dataset = match &args.path {
        Some(path) => Dataset::load(path)?,
        None => crate::generate::generate(&args.gen_args.config(args.seed, false)?),
    };
    let dataset = if args.lite { dataset.lite() } else { dataset };
    let stats = stats::compute(&dataset);
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &stats)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", stats::render_text(&stats))?;
    }
    Ok(ExitCode::SUCCESS)
}
