//! `bemula generate`.

use super::CliResult;

/// Arguments of `bemula generate`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `bemula generate`.
pub fn run(_args: Args) -> CliResult {
    Err("bemula generate is not implemented yet".into())
}
