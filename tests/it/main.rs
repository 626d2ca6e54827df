//! Integration tests of the crate, one module per topic.

mod adapters;
mod docs;
#[cfg(feature = "llm")]
mod embed;
mod engine;
mod faults;
mod gates;
mod generate;
mod harness;
mod html;
mod journal;
mod judge;
mod judge_tuning;
#[cfg(feature = "llm")]
mod limiter;
#[cfg(feature = "llm")]
mod llm;
mod metrics;
mod nextest_loop;
mod pool;
mod preflight;
mod protocol;
#[cfg(feature = "llm")]
mod realise;
mod safety;
mod shards;
mod stats;
mod support;
mod systems;
mod validate;

/// Runs the built `bemula` binary with `args`: exit code, stdout, stderr.
fn bemula(args: &[&str]) -> (i32, String, String) {
    let out = bemula_command().args(args).output().expect("bemula runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A command's standard output followed by its standard error, as text.
fn output_text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The first `keep` short instances of the generated Lite data (generator v1, whose
/// wording the run tests were written against), written to `dir/data`.
fn small_data(dir: &std::path::Path, keep: usize) -> std::path::PathBuf {
    let data = bemula::generate::generate(&bemula::generate::GenConfig {
        seed: 42,
        lite: true,
        generator: bemula::generate::Generator::V1,
        ..Default::default()
    });
    let mut instances = data.instances;
    instances.retain(|i| i.id.starts_with("short_"));
    instances.truncate(keep);
    let path = dir.join("data");
    bemula::dataset::Dataset::from_instances(instances, "test")
        .write(&path)
        .unwrap();
    path
}

/// The built `bemula` binary as a command, without the environment of the test process
/// leaking into it: every `BEMULA_*` variable (data, gates, endpoints, cache) and
/// cargo-nextest's run id are removed; a test sets what it needs after this.
fn bemula_command() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_bemula"));
    support::scrub(&mut cmd);
    cmd
}
