//! `bemula stats`: a dataset's statistics, as the paper's tables or as JSON; with
//! `--fidelity`, the measures of how real and how hard to game its text is.

use super::CliResult;
use crate::dataset::{Dataset, fidelity, stats};
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
    /// Print the fidelity measures (distinct-n, repeated sentences, request tells,
    /// question overlap, …) instead of the statistics.
    #[arg(long)]
    pub fidelity: bool,
    /// With --fidelity: exit with status 1 when a measure misses its target.
    #[arg(long, requires = "fidelity")]
    pub check: bool,
    /// With --fidelity: size of the distinct-n sample, in tokens per side.
    #[arg(long, requires = "fidelity", default_value_t = fidelity::DEFAULT_SAMPLE_TOKENS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub sample_tokens: usize,
}

/// Exit status of `bemula stats --fidelity --check` when a target is missed.
pub const EXIT_TARGET_MISSED: u8 = 1;

/// Runs `bemula stats`: loads (and so validates) the dataset and prints its statistics
/// or, with `--fidelity`, its fidelity measures.
pub fn run(args: Args) -> CliResult {
    let dataset = match &args.path {
        Some(path) => Dataset::open(path)?,
        None => crate::generate::generate(&args.gen_args.config(args.seed, false)?),
    };
    let dataset = if args.lite { dataset.lite() } else { dataset };
    let mut out = std::io::stdout().lock();
    if args.fidelity {
        let measures = fidelity::compute(&dataset, args.sample_tokens);
        if args.json {
            serde_json::to_writer_pretty(&mut out, &measures)?;
            writeln!(out)?;
        } else {
            write!(out, "{}", fidelity::render_text(&measures))?;
        }
        let missed: Vec<&str> = measures.missed().map(|m| m.name).collect();
        if args.check && !missed.is_empty() {
            drop(out);
            eprintln!("fidelity targets missed: {}", missed.join(", "));
            return Ok(ExitCode::from(EXIT_TARGET_MISSED));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let stats = stats::compute(&dataset);
    if args.json {
        serde_json::to_writer_pretty(&mut out, &stats)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", stats::render_text(&stats))?;
    }
    Ok(ExitCode::SUCCESS)
}
