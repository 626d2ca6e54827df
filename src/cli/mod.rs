//! The `bemula` command line: argument types and one module per subcommand. The
//! binary only parses and calls [`main`].

pub mod calibrate;
pub mod check_adapter;
pub mod compare;
pub mod generate;
pub mod output;
pub mod report;
pub mod run;
pub mod select;
pub mod serve;
pub mod signals;
pub mod stats;
pub mod test;
pub mod validate;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Tests whether an LLM agent's memory system forgets what a user asks it to forget.
#[derive(Debug, Parser)]
#[command(name = "bemula", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run memory systems through the benchmark and print the paper's Table 1 (the main job).
    Run(run::Args),
    /// Run the suite as tests, one per forget request (the `cargo test` harness as a command).
    Test(test::Args),
    /// Compare two systems' results metric by metric, with paired bootstrap intervals.
    Compare(compare::Args),
    /// Assemble the reports of a harness run whose tests ran in separate processes.
    Report(report::Args),
    /// Bless a report directory as the baseline of the regression gate (`--baseline`).
    BlessBaseline(BlessBaselineArgs),
    /// Generate a synthetic Bemula-format dataset from a seed.
    Generate(generate::Args),
    /// Check a dataset against the format and the benchmark's invariants, and warn of
    /// fact values the persona contradicts.
    Validate(validate::Args),
    /// Print a dataset's statistics (the paper's Tables 4 and 5).
    Stats(stats::Args),
    /// Measure a judge's agreement with human labels (confusion matrix, Cohen's kappa).
    Calibrate(calibrate::Args),
    /// Serve a built-in system as an adapter of the bemula-adapter/1 protocol.
    Serve(serve::Args),
    /// Run a short protocol self-test against an adapter.
    CheckAdapter(check_adapter::Args),
}

/// Arguments of `bemula bless-baseline`.
#[derive(Debug, clap::Args)]
pub struct BlessBaselineArgs {
    /// A report directory of `bemula run`, the harness or `bemula report` (with
    /// `summary.json` and `results.jsonl`).
    pub report: std::path::PathBuf,
    /// The baseline directory to write (commit it; pass it to `--baseline`).
    pub baseline: std::path::PathBuf,
}

/// Exit status for bad input (unreadable or invalid data, bad arguments).
pub const EXIT_BAD_INPUT: u8 = 2;

/// Parses the command line and runs the subcommand.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // `serve` speaks the protocol on standard output: it is left as it is.
    let guard = (!matches!(cli.command, Command::Serve(_))).then(output::StdoutGuard::install);
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Test(args) => test::run(args),
        Command::Report(args) => report::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Generate(args) => generate::run(args),
        Command::Validate(args) => validate::run(args),
        Command::BlessBaseline(args) => crate::gate::bless_baseline(&args.report, &args.baseline)
            .map(|line| {
                println!("{line}");
                ExitCode::SUCCESS
            })
            .map_err(Into::into),
        Command::Stats(args) => stats::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Serve(args) => serve::run(args),
        Command::CheckAdapter(args) => check_adapter::run(args),
    };
    // A reader that closed standard output early (`| head`) is not an error: the
    // command still ran to its end and wrote its reports.
    if let Some(guard) = guard {
        guard.finish();
    }
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {}", crate::terminal::lines(&err.to_string()));
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

/// A command-line failure: printed as `error: …`, exit status 2.
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;
