//! `bemula stats`.

use super::CliResult;

/// Arguments of `bemula stats`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `bemula stats`.
pub fn run(_args: Args) -> CliResult {
    Err("bemula stats is not implemented yet".into())
}
