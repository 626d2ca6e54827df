//! Integration tests: the preflight. `bemula run` and `bemula test` check an adapter on
//! canary namespaces before any instance runs, and stop with the failed property when
//! its reset wipes other namespaces, when the two versions of an instance share their
//! memories, or when concurrent calls mix namespaces up; a correct adapter passes and
//! runs; `--no-preflight` (or `BEMULA_NO_PREFLIGHT=1`) lets a broken one run.

use crate::{bemula_command, output_text, small_data};
use std::path::Path;
use std::process::Output;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn fixture(name: &str) -> String {
    format!("cmd:python3 {ROOT}/tests/fixtures/adapters/{name}.py")
}

fn example() -> String {
    format!("cmd:python3 {ROOT}/adapters/python/example_memory.py")
}

/// `bemula run` of `system` on two short instances into `dir/out`, with extra flags.
fn run(dir: &Path, system: &str, extra: &[&str]) -> Output {
    let data = small_data(dir, 2);
    bemula_command()
        .args(["run", "--system", system, "--bootstrap", "0", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(dir.join("out"))
        .args(extra)
        .output()
        .unwrap()
}

/// The records `bemula run` wrote into `dir/out`, over all systems.
fn records(dir: &Path) -> Vec<serde_json::Value> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir.join("out")).unwrap() {
        let results = entry.unwrap().path().join("results.jsonl");
        if let Ok(text) = std::fs::read_to_string(&results) {
            all.extend(text.lines().map(|l| serde_json::from_str(l).unwrap()));
        }
    }
    all
}

/// Asserts that `out` is a preflight failure of `system` on `property`, before any
/// instance ran in `dir`.
fn assert_stopped(dir: &Path, out: &Output, system: &str, property: &str) {
    let text = output_text(out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    let expected = format!("preflight of adapter `{system}` failed: {property}: ");
    assert!(text.contains(&expected), "{expected:?} not in:\n{text}");
    assert!(text.contains("skip with --no-preflight"), "{text}");
    assert!(
        records(dir).is_empty(),
        "no instance ran before the preflight stopped the run:\n{text}"
    );
}

#[test]
fn bemula_run_stops_before_any_instance_when_reset_wipes_other_namespaces() {
    let dir = tempfile::tempdir().unwrap();
    let system = fixture("wipe_all");
    let out = run(dir.path(), &system, &[]);
    assert_stopped(
        dir.path(),
        &out,
        &system,
        "reset empties its own namespace and no other",
    );
    assert!(
        output_text(&out).contains("/forget` emptied `bemula-preflight-"),
        "{}",
        output_text(&out)
    );
}

#[test]
fn bemula_run_stops_when_the_two_versions_of_an_instance_share_memories() {
    let dir = tempfile::tempdir().unwrap();
    let system = fixture("shared_versions");
    let out = run(dir.path(), &system, &[]);
    assert_stopped(
        dir.path(),
        &out,
        &system,
        "the two versions of an instance are kept apart",
    );
}

#[test]
fn bemula_run_stops_when_concurrent_calls_mix_namespaces_up() {
    let dir = tempfile::tempdir().unwrap();
    let system = fixture("racy");
    let out = run(dir.path(), &system, &[]);
    assert_stopped(
        dir.path(),
        &out,
        &system,
        "concurrent calls across namespaces stay apart",
    );
}

#[test]
fn a_correct_adapter_passes_the_preflight_and_runs_two_instances() {
    let dir = tempfile::tempdir().unwrap();
    let system = example();
    let out = run(dir.path(), &system, &["--jobs", "2"]);
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains(&format!(
            "preflight of adapter `{system}`: 4 of 4 checks passed"
        )),
        "{text}"
    );
    let records = records(dir.path());
    let instances: std::collections::BTreeSet<&str> = records
        .iter()
        .map(|r| r["instance"].as_str().unwrap())
        .collect();
    assert_eq!(instances.len(), 2, "{instances:?}");
    assert!(
        records.iter().all(|r| r["error"].is_null()),
        "no errors: {text}"
    );
    assert!(
        records.iter().any(|r| r["correct"] == true),
        "the example remembers something"
    );
}

#[test]
fn no_preflight_lets_a_broken_adapter_run_by_flag_or_variable() {
    let dir = tempfile::tempdir().unwrap();
    let system = fixture("wipe_all");
    let out = run(dir.path(), &system, &["--no-preflight"]);
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("preflight of adapter"), "{text}");
    assert!(!records(dir.path()).is_empty(), "the run ran: {text}");

    let dir = tempfile::tempdir().unwrap();
    let data = small_data(dir.path(), 1);
    let out = bemula_command()
        .args(["run", "--system", &system, "--bootstrap", "0", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(dir.path().join("out"))
        .env("BEMULA_NO_PREFLIGHT", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", output_text(&out));
    assert!(!records(dir.path()).is_empty());
}

/// `bemula test` of `system` on one short instance, with extra flags and variables.
fn test(dir: &Path, system: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let data = small_data(dir, 1);
    let mut cmd = bemula_command();
    cmd.args(["test", "--system", system, "--data"])
        .arg(&data)
        .arg("--report-dir")
        .arg(dir.join("report"))
        .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn bemula_test_stops_a_broken_adapter_and_the_harness_setting_skips_the_preflight() {
    let dir = tempfile::tempdir().unwrap();
    let system = fixture("shared_versions");
    let out = test(dir.path(), &system, &[], &[]);
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "preflight of adapter `{system}` failed: the two versions of an instance are kept apart"
        )),
        "{text}"
    );
    assert!(text.contains("BEMULA_NO_PREFLIGHT=1"), "{text}");
    assert!(
        !dir.path().join("report/results.jsonl").exists(),
        "no request ran: {text}"
    );

    for (flags, env) in [
        (&["--no-preflight"][..], &[][..]),
        (&[][..], &[("BEMULA_NO_PREFLIGHT", "1")][..]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = test(dir.path(), &system, flags, env);
        let text = output_text(&out);
        assert!(!text.contains("preflight of adapter"), "{text}");
        assert!(
            dir.path().join("report/results.jsonl").is_file(),
            "the requests ran ({flags:?} {env:?}): {text}"
        );
    }
}

#[test]
fn bemula_test_preflights_a_correct_adapter_once_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let system = example();
    let out = test(dir.path(), &system, &[], &[]);
    let text = output_text(&out);
    assert_eq!(
        text.matches("preflight of adapter").count(),
        1,
        "once per process: {text}"
    );
    assert!(text.contains("4 of 4 checks passed"), "{text}");
    assert!(dir.path().join("report/results.jsonl").is_file(), "{text}");
}

/// A Python fixture serving HTTP on an ephemeral port of 127.0.0.1, killed when dropped.
struct HttpAdapter(std::process::Child, String);

impl Drop for HttpAdapter {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve_http(name: &str) -> HttpAdapter {
    use std::io::BufRead;
    let mut child = std::process::Command::new("python3")
        .arg(format!("{ROOT}/tests/fixtures/adapters/{name}.py"))
        .args(["--http", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    HttpAdapter(child, url)
}

#[test]
#[cfg_attr(not(feature = "http"), ignore = "needs the http feature")]
fn the_preflight_catches_a_thread_unsafe_adapter_over_http_too() {
    let adapter = serve_http("racy");
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &adapter.1, &[]);
    assert_stopped(
        dir.path(),
        &out,
        &adapter.1,
        "concurrent calls across namespaces stay apart",
    );
}
