//! Integration tests of the crate, one module per topic.

mod adapters;
mod docs;
mod engine;
mod generate;
mod harness;
mod html;
mod journal;
mod judge;
#[cfg(feature = "llm")]
mod limiter;
#[cfg(feature = "llm")]
mod llm;
mod metrics;
mod protocol;
mod safety;
mod shards;
mod stats;
mod systems;
mod validate;

/// Runs the built `bemula` binary with `args`: exit code, stdout, stderr.
fn bemula(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bemula"))
        .args(args)
        .output()
        .expect("bemula runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
