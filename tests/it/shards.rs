//! Integration tests: shards that merge. The processes of cargo-nextest partitions and
//! the shards of `bemula run --shard` leave results that `bemula report` merges from
//! several directories into the summary a single run gives; a missing shard shows in
//! the coverage and fails any gate.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bemula() -> Command {
    crate::bemula_command()
}

fn text(out: &Output) -> String {
    crate::output_text(out)
}

use crate::small_data;

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

fn assert_same_results(a: &serde_json::Value, b: &serde_json::Value) {
    for key in [
        "metrics",
        "requests",
        "counts",
        "breakdowns",
        "records_checksum",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
}

/// `bemula test --system naive-rag --report-dir DIR -- ARGS` over `data`.
fn harness(data: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = bemula();
    cmd.args(["test", "--system", "naive-rag", "--report-dir"])
        .arg(dir)
        .arg("--")
        .args(args)
        .env("BEMULA_DATA", data);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn names(data: &Path, dir: &Path) -> Vec<String> {
    let out = harness(data, dir, &["--list"], &[]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_string)
        .collect()
}

#[test]
fn two_nextest_partitions_merge_into_the_summary_of_one_plain_run() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 3);
    let plain = tmp.path().join("plain");
    let out = harness(&data, &plain, &[], &[]);
    assert!(out.status.code().is_some(), "{}", text(&out));
    let all = names(&data, &plain);
    assert!(all.len() >= 3, "{all:?}");
    // `cargo nextest run --partition count:1/2` and `count:2/2`, on two CI machines:
    // each test in a process of its own, each partition with its own run id.
    let shards = [tmp.path().join("shard-1"), tmp.path().join("shard-2")];
    for (index, name) in all.iter().enumerate() {
        let part = index % 2;
        let out = harness(
            &data,
            &shards[part],
            &["--exact", name],
            &[("NEXTEST_RUN_ID", &format!("partition-{part}"))],
        );
        assert!(
            text(&out).contains(&format!("{} filtered out", all.len() - 1)),
            "--exact counts what it leaves out: {}",
            text(&out)
        );
    }
    let merged = tmp.path().join("merged");
    let report = bemula()
        .arg("report")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--min-rpr")
        .arg("0")
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", text(&report));
    let first = String::from_utf8_lossy(&report.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(
        first.contains(&format!(
            "complete: {n} of {n} expected requests",
            n = all.len()
        )),
        "{first}"
    );
    assert_same_results(&summary(&plain), &summary(&merged));

    // One partition's artifacts missing: the coverage says so and the gate fails.
    let alone = bemula()
        .arg("report")
        .arg(&shards[0])
        .arg("--out")
        .arg(tmp.path().join("alone"))
        .args(["--min-rpr", "0"])
        .output()
        .unwrap();
    assert_eq!(alone.status.code(), Some(1), "{}", text(&alone));
    let present = all.len().div_ceil(2);
    let line = format!(
        "INCOMPLETE: {present} of {} expected requests present",
        all.len()
    );
    let first = String::from_utf8_lossy(&alone.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    assert!(first.contains(&line), "the first line says so: {first}");
    assert!(text(&alone).contains("FAIL"), "{}", text(&alone));
    let md = std::fs::read_to_string(tmp.path().join("alone/summary.md")).unwrap();
    assert!(md.lines().next().unwrap().contains(&line), "{md}");
    let partial = bemula()
        .arg("report")
        .arg(&shards[0])
        .arg("--out")
        .arg(tmp.path().join("partial"))
        .args(["--min-rpr", "0", "--allow-partial"])
        .output()
        .unwrap();
    assert!(partial.status.success(), "{}", text(&partial));

    // Results of another configuration do not merge.
    let other = tmp.path().join("other");
    let out = bemula()
        .args(["test", "--system", "wipe", "--report-dir"])
        .arg(&other)
        .args(["--", "--exact", &all[0]])
        .env("BEMULA_DATA", &data)
        .env("NEXTEST_RUN_ID", "other")
        .output()
        .unwrap();
    assert!(out.status.code().is_some());
    let mixed = bemula()
        .arg("report")
        .arg(&shards[0])
        .arg(&other)
        .arg("--out")
        .arg(tmp.path().join("mixed"))
        .output()
        .unwrap();
    assert_eq!(mixed.status.code(), Some(2), "{}", text(&mixed));
    assert!(
        text(&mixed).contains("different configurations"),
        "{}",
        text(&mixed)
    );
}

#[test]
fn run_shards_partition_the_data_and_merge_into_the_unsharded_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 5);
    let run = |out: &Path, shard: Option<&str>| {
        let mut cmd = bemula();
        cmd.args([
            "run",
            "--system",
            "naive-rag",
            "--bootstrap",
            "200",
            "--data",
        ])
        .arg(&data)
        .arg("--out")
        .arg(out);
        if let Some(s) = shard {
            cmd.args(["--shard", s]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
        out
    };
    let whole = tmp.path().join("whole");
    run(&whole, None);
    let shards: Vec<PathBuf> = (1..=3)
        .map(|i| tmp.path().join(format!("shard-{i}")))
        .collect();
    for (i, dir) in shards.iter().enumerate() {
        let out = run(dir, Some(&format!("{}/3", i + 1)));
        assert!(text(&out).contains("INCOMPLETE"), "{}", text(&out));
    }
    let dirs: Vec<PathBuf> = shards.iter().map(|d| d.join("naive-rag")).collect();
    let merged = tmp.path().join("merged");
    let report = bemula()
        .arg("report")
        .args(&dirs)
        .arg("--out")
        .arg(&merged)
        .args(["--bootstrap", "200", "--min-rpr", "0"])
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", text(&report));
    let (a, b) = (summary(&whole.join("naive-rag")), summary(&merged));
    assert_same_results(&a, &b);
    assert_eq!(a["intervals"], b["intervals"]);
    let missing = bemula()
        .arg("report")
        .args(&dirs[..2])
        .arg("--out")
        .arg(tmp.path().join("two"))
        .args(["--min-rpr", "0"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1), "{}", text(&missing));
    assert!(text(&missing).contains("INCOMPLETE"), "{}", text(&missing));
}
