//! `bemula report DIR`: assembles the reports of a harness run whose tests ran in
//! separate processes (cargo-nextest) from the parts each process left in `DIR`.

use super::CliResult;
use crate::metrics::BootstrapConfig;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bemula report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The harness's report directory (default of a test target `bemula`:
    /// `target/bemula/bemula`).
    pub dir: PathBuf,
    /// Bootstrap resamples for the confidence intervals.
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub bootstrap: usize,
    /// Seed of the bootstrap.
    #[arg(long, default_value_t = 42, value_name = "SEED")]
    pub bootstrap_seed: u64,
}

/// Runs `bemula report`.
pub fn run(args: Args) -> CliResult {
    let bootstrap = BootstrapConfig {
        resamples: args.bootstrap,
        seed: args.bootstrap_seed,
        ..BootstrapConfig::default()
    };
    let summary = crate::harness::assemble(&args.dir, &bootstrap)?;
    let (passed, total) = summary.passed();
    print!(
        "{}",
        crate::report::render_table(&[(summary.config.system.name.clone(), &summary)])
    );
    println!(
        "{passed} of {total} requests passed; reports written to {}",
        args.dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
