//! `bemula validate`: checks a dataset against the format and the benchmark's
//! invariants and prints every problem, one per line, as `FILE: at PATH: REASON`, then
//! every warning (a fact value the persona contradicts) as `FILE: at PATH: warning: REASON`.

use super::{CliResult, EXIT_BAD_INPUT};
use crate::dataset::validate;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `bemula validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A dataset directory (one `<id>.json` per instance) or a single instance file.
    pub path: PathBuf,
}

/// Runs `bemula validate`: every file is parsed (a file that does not parse is one
/// problem and the others are still checked), every problem is printed, and the last
/// line sums up. Warnings (findings that leave the data valid) follow the problems, as
/// `FILE: at PATH: warning: REASON`. Exit status 0 when the data is valid (warnings or
/// not), 2 when not.
pub fn run(args: Args) -> CliResult {
    let checked = validate::check_path(&args.path)?;
    let mut out = std::io::stdout().lock();
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
    Ok(if checked.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_BAD_INPUT)
    })
}
