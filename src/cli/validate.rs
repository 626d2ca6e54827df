//! `bemula validate`.

use super::CliResult;

/// Arguments of `bemula validate`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `bemula validate`.
pub fn run(_args: Args) -> CliResult {
    Err("bemula validate is not implemented yet".into())
}
