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
    pub path: PathBuf,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// Runs `bemula stats`: loads (and so validates) the dataset and prints its statistics.
pub fn run(args: Args) -> CliResult {
    let dataset = Dataset::load(&args.path)?;
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
