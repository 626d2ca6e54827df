//! Integration tests: pools of adapter processes (`--adapter-processes N`). Each
//! namespace is served by one process for the whole run, the records are those of one
//! process, a crashed process is restarted alone, and a pool that cannot work is a
//! clear error before any call.

use crate::{bemula_command, output_text, small_data};
use serde_json::Value;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The adapter of a library that is not thread-safe (one lock around every call) and
/// that fails any call for a namespace it did not reset itself.
fn pooled() -> String {
    format!("cmd:python3 {ROOT}/tests/fixtures/adapters/pooled.py")
}

/// `bemula run` of `system` on `data` into `out` with `processes` adapter processes and
/// the extra environment `env`; the command's output.
fn run(data: &Path, out: &Path, processes: usize, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = bemula_command();
    cmd.args(["run", "--bootstrap", "0", "--system", &pooled(), "--data"])
        .arg(data)
        .arg("--out")
        .arg(out)
        .args(["--adapter-processes", &processes.to_string()]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("bemula runs")
}

/// The one system directory of a run's `--out`.
fn system_dir(out: &Path) -> PathBuf {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .expect("a system directory")
}

/// The run's records, sorted (the order of completion differs between runs), without
/// `restarts` (how often a record's pass was restarted); and how many records had one.
fn records(out: &Path) -> (Vec<String>, usize) {
    let text = std::fs::read_to_string(system_dir(out).join("results.jsonl")).unwrap();
    let mut restarted = 0;
    let mut lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            restarted += usize::from(record.as_object_mut().unwrap().remove("restarts").is_some());
            record.to_string()
        })
        .collect();
    lines.sort();
    (lines, restarted)
}

/// Asserts two runs' records are the same, naming the first that differs.
fn assert_same_records(a: &[String], b: &[String]) {
    assert_eq!(a.len(), b.len(), "record counts differ");
    if let Some((x, y)) = a.iter().zip(b).find(|(x, y)| x != y) {
        panic!("records differ:\n{x}\n{y}");
    }
}

fn summary(out: &Path) -> Value {
    let text = std::fs::read_to_string(system_dir(out).join("summary.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `process namespace` lines the adapter logged at each reset, without the preflight's.
fn resets(log: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| !l.contains(" bemula-preflight-"))
        .map(|l| {
            let (process, namespace) = l.split_once(' ').unwrap();
            (process.to_string(), namespace.to_string())
        })
        .collect()
}

#[test]
fn a_pool_serves_each_namespace_from_one_process_and_gives_one_processs_records() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 3);
    let single = tmp.path().join("one");
    let out = run(&data, &single, 1, &[]);
    assert!(out.status.success(), "{}", output_text(&out));
    let log = tmp.path().join("resets.log");
    let pooled_out = tmp.path().join("three");
    let out = run(
        &data,
        &pooled_out,
        3,
        &[("POOL_LOG", log.to_str().unwrap())],
    );
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("3 adapter processes: #1 "), "{text}");

    // The fixture fails every call for a namespace its process did not reset: no
    // error means every namespace stayed with one process.
    let summary = summary(&pooled_out);
    assert_eq!(summary["counts"]["errors"], 0, "{text}");
    let ((pooled_records, restarted), (single_records, _)) =
        (records(&pooled_out), records(&single));
    assert_eq!(restarted, 0);
    assert_same_records(&pooled_records, &single_records);

    // Six namespaces (three instances, two versions), each reset by one process only,
    // spread over all three.
    let resets = resets(&log);
    let mut by_namespace = std::collections::BTreeMap::<String, Vec<String>>::new();
    for (process, namespace) in &resets {
        by_namespace
            .entry(namespace.clone())
            .or_default()
            .push(process.clone());
    }
    assert_eq!(by_namespace.len(), 6, "{resets:?}");
    for (namespace, processes) in &by_namespace {
        assert!(
            processes.iter().all(|p| p == &processes[0]),
            "{namespace} was reset by processes {processes:?}"
        );
    }
    let used: std::collections::BTreeSet<&String> = resets.iter().map(|(p, _)| p).collect();
    assert_eq!(used.len(), 3, "{resets:?}");

    // The summary gives each process's figures.
    let stats = summary["config"]["extra"]["adapter_processes"]
        .as_array()
        .unwrap_or_else(|| panic!("no adapter_processes in {}", summary["config"]));
    assert_eq!(stats.len(), 3);
    for (i, process) in stats.iter().enumerate() {
        assert_eq!(process["process"], i + 1);
        assert!(process["namespaces"].as_u64().unwrap() >= 2, "{process}");
        assert!(process["calls"].as_u64().unwrap() > 0, "{process}");
        assert_eq!(process["restarts"], 0, "{process}");
    }
}

#[test]
fn a_crashed_process_of_a_pool_is_restarted_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 2);
    let single = tmp.path().join("one");
    let out = run(&data, &single, 1, &[]);
    assert!(out.status.success(), "{}", output_text(&out));
    let crash = tmp.path().join("crashed");
    let pooled_out = tmp.path().join("two");
    // The preflight would meet the crash first; the run is what is tested here.
    let out = run(
        &data,
        &pooled_out,
        2,
        &[
            ("POOL_CRASH_FILE", crash.to_str().unwrap()),
            ("BEMULA_NO_PREFLIGHT", "1"),
        ],
    );
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(crash.exists(), "process 2 never crashed: {text}");
    let summary = summary(&pooled_out);
    assert_eq!(summary["counts"]["errors"], 0, "{text}");
    let stats = summary["config"]["extra"]["adapter_processes"]
        .as_array()
        .unwrap();
    assert_eq!(stats[0]["restarts"], 0, "{stats:?}");
    assert_eq!(stats[1]["restarts"], 1, "{stats:?}");
    assert!(
        text.contains("#2 ") && text.contains("restarted once"),
        "{text}"
    );
    // The passes the crash cut short ran again on the restarted process: the records
    // are those of an undisturbed run, marked as restarted.
    let ((pooled_records, restarted), (single_records, _)) =
        (records(&pooled_out), records(&single));
    assert!(restarted > 0, "no record says its pass was restarted");
    assert_same_records(&pooled_records, &single_records);
}

#[test]
fn a_pool_whose_processes_disagree_or_that_cannot_be_pooled_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 1);
    let out = run(
        &data,
        &tmp.path().join("differ"),
        2,
        &[("POOL_NAME_BY_PROCESS", "1")],
    );
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("different handshakes") && text.contains("pooled-keyword-memory-2"),
        "{text}"
    );

    for (system, needle) in [
        ("naive-rag", "is for stdio adapters"),
        ("http://127.0.0.1:9/rpc", "is for stdio adapters"),
    ] {
        let out = bemula_command()
            .args(["run", "--system", system, "--adapter-processes", "2"])
            .arg("--data")
            .arg(&data)
            .arg("--out")
            .arg(tmp.path().join("refused"))
            .output()
            .unwrap();
        let text = output_text(&out);
        assert_eq!(out.status.code(), Some(2), "{system}: {text}");
        assert!(text.contains(needle), "{system}: {text}");
    }
    let out = bemula_command()
        .args(["run", "--system", &pooled(), "--adapter-processes", "0"])
        .arg("--data")
        .arg(&data)
        .output()
        .unwrap();
    let text = output_text(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("--adapter-processes must be at least 1"),
        "{text}"
    );
}
