//! Integration tests: durable runs. `bemula run` journals every completed pass, a
//! `kill -9` loses only the passes in flight, `--resume` finishes the run without
//! calling the system for completed passes, and a report directory holds one run.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn bemula() -> Command {
    crate::bemula_command()
}

fn text(out: &Output) -> String {
    crate::output_text(out)
}

use crate::small_data;

pub(crate) fn slow_adapter(count: &Path) -> String {
    format!(
        "cmd:env COUNT_FILE={} SLOW_QUERY=0.01 python3 {}/tests/fixtures/adapters/slow_counting.py",
        count.display(),
        env!("CARGO_MANIFEST_DIR")
    )
}

pub(crate) fn run_args(data: &Path, system: &str, out: &Path) -> Vec<String> {
    vec![
        "run".into(),
        "--data".into(),
        data.display().to_string(),
        "--system".into(),
        system.into(),
        "--out".into(),
        out.display().to_string(),
        "--bootstrap".into(),
        "200".into(),
        "--jobs".into(),
        "2".into(),
    ]
}

/// The passes a journal holds, as namespaces `<instance>/<version>`.
pub(crate) fn journaled(journal: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(journal).unwrap_or_default();
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    complete
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            format!(
                "{}/{}",
                v["instance"].as_str().unwrap(),
                v["version"].as_str().unwrap()
            )
        })
        .collect()
}

pub(crate) fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn a_killed_run_resumes_without_rerunning_completed_passes_and_ends_as_an_uninterrupted_one() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 5);
    let passes = 2 * 5;

    // The uninterrupted run (the same spec as the killed one, so the same directory).
    let count = tmp.path().join("calls.log");
    let system = slow_adapter(&count);
    let whole = tmp.path().join("whole");
    let out = bemula()
        .args(run_args(&data, &system, &whole))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let system_dir = std::fs::read_dir(&whole)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap();
    let dir_name = system_dir.file_name().unwrap().to_owned();

    // The same run, killed with SIGKILL after a random number of completed passes.
    let broken = tmp.path().join("broken");
    let journal = broken.join(&dir_name).join("journal.jsonl");
    let kill_after = 1
        + (std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos() as usize)
            % (passes - 2);
    let mut child = bemula()
        .args(run_args(&data, &system, &broken))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while journaled(&journal).len() < kill_after {
        assert!(Instant::now() < deadline, "the run journals its passes");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the kill"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let done = journaled(&journal);
    assert!(
        done.len() >= kill_after && done.len() < passes,
        "killed midway: {} of {passes} passes journaled",
        done.len()
    );
    assert!(
        !broken.join(&dir_name).join("summary.json").exists(),
        "no summary of a run that did not finish"
    );
    let marker = |dir: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.join("run.json")).unwrap()).unwrap()
    };
    assert_eq!(
        marker(&broken)["complete"],
        false,
        "run.json marks the run unfinished"
    );
    // The kill may leave the adapter a moment to log; then count from here.
    std::thread::sleep(Duration::from_millis(300));
    let calls_before = std::fs::read_to_string(&count).unwrap().lines().count();

    let mut args = run_args(&data, &system, &broken);
    args.push("--resume".into());
    let resumed = bemula().args(&args).output().unwrap();
    assert!(resumed.status.success(), "{}", text(&resumed));
    assert!(
        text(&resumed).contains(&format!("{} of {passes} passes already done", done.len())),
        "{}",
        text(&resumed)
    );
    let calls: Vec<String> = std::fs::read_to_string(&count)
        .unwrap()
        .lines()
        .skip(calls_before)
        .filter(|call| !call.contains(" bemula-preflight-"))
        .map(str::to_string)
        .collect();
    let mut resets: BTreeMap<String, usize> = BTreeMap::new();
    for call in &calls {
        let (kind, ns) = call.split_once(' ').unwrap();
        assert!(
            !done.contains(ns),
            "the resumed run called the system for a completed pass: {call}"
        );
        if kind == "reset" {
            *resets.entry(ns.to_string()).or_default() += 1;
        }
    }
    assert_eq!(
        resets.len(),
        passes - done.len(),
        "every missing pass ran once: {resets:?}"
    );
    assert!(resets.values().all(|&n| n == 1), "{resets:?}");

    assert_eq!(marker(&broken)["complete"], true);
    // The final reports equal the uninterrupted run's.
    let (a, b) = (whole.join(&dir_name), broken.join(&dir_name));
    assert_eq!(
        std::fs::read_to_string(a.join("results.jsonl")).unwrap(),
        std::fs::read_to_string(b.join("results.jsonl")).unwrap(),
        "results.jsonl equals the uninterrupted run's"
    );
    let (mut sa, mut sb) = (summary(&a), summary(&b));
    for s in [&mut sa, &mut sb] {
        let s = s.as_object_mut().unwrap();
        assert!(s.remove("run_id").is_some(), "summary.json names its run");
        s["config"].as_object_mut().unwrap().remove("extra");
    }
    assert_eq!(sa, sb, "summary.json equals the uninterrupted run's");
}

#[test]
fn a_different_configuration_is_refused_naming_what_differs() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 2);
    let out = tmp.path().join("out");
    let first = bemula()
        .args(run_args(&data, "naive-rag", &out))
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", text(&first));
    let mut args = run_args(&data, "naive-rag", &out);
    args.extend([
        "--judge".into(),
        "rule".into(),
        "--system-retries".into(),
        "5".into(),
    ]);
    args.push("--resume".into());
    let refused = bemula().args(&args).output().unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("system_retries: journal 3, now 5"),
        "{}",
        text(&refused)
    );
    let mut args = run_args(&data, "wipe", &out);
    args.push("--resume".into());
    let other = bemula().args(&args).output().unwrap();
    assert_eq!(other.status.code(), Some(2), "{}", text(&other));
    assert!(text(&other).contains("cannot resume"), "{}", text(&other));
    let fresh = tmp.path().join("fresh");
    let mut args = run_args(&data, "naive-rag", &fresh);
    args.push("--resume".into());
    let nothing = bemula().args(&args).output().unwrap();
    assert_eq!(nothing.status.code(), Some(2));
    assert!(
        text(&nothing).contains("no run to resume"),
        "{}",
        text(&nothing)
    );
}

#[test]
fn an_unwritable_out_fails_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 1);
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let count = tmp.path().join("calls.log");
    let started = Instant::now();
    let out = bemula()
        .args(run_args(&data, &slow_adapter(&count), &file.join("out")))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("a-file"),
        "names the directory: {}",
        text(&out)
    );
    assert!(!count.exists(), "the system was never called");
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_report_directory_holds_one_run_and_mixed_files_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 2);
    let (one, two) = (tmp.path().join("one"), tmp.path().join("two"));
    for (out, system) in [(&one, "naive-rag"), (&two, "wipe")] {
        let run = bemula()
            .args(run_args(&data, system, out))
            .output()
            .unwrap();
        assert!(run.status.success(), "{}", text(&run));
    }
    let compare = |a: &Path, b: &Path| bemula().arg("compare").arg(a).arg(b).output().unwrap();
    assert!(
        compare(&one.join("naive-rag"), &two.join("wipe"))
            .status
            .success()
    );
    // results.jsonl of one run beside summary.json of another.
    std::fs::copy(
        two.join("wipe/results.jsonl"),
        one.join("naive-rag/results.jsonl"),
    )
    .unwrap();
    let mixed = compare(&one.join("naive-rag"), &two.join("wipe"));
    assert_eq!(mixed.status.code(), Some(2), "{}", text(&mixed));
    assert!(
        text(&mixed).contains("summary.json") && text(&mixed).contains("results.jsonl"),
        "names both files: {}",
        text(&mixed)
    );
    let report = bemula()
        .arg("report")
        .arg(one.join("naive-rag"))
        .arg("--out")
        .arg(tmp.path().join("merged"))
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(2), "{}", text(&report));
}

#[test]
fn a_killed_harness_run_resumes_with_bemula_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 4);
    let count = tmp.path().join("calls.log");
    let system = slow_adapter(&count);
    let harness = |dir: &Path, resume: bool| {
        let mut cmd = bemula();
        cmd.args(["test", "--system", &system, "--report-dir"])
            .arg(dir)
            .env("BEMULA_DATA", &data)
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("BEMULA_MIN_RPR")
            .env_remove("BEMULA_EXPECTATIONS");
        if resume {
            cmd.env("BEMULA_RESUME", "1");
        }
        cmd
    };
    let whole = tmp.path().join("whole");
    let out = harness(&whole, false).output().unwrap();
    assert!(out.status.code().is_some(), "{}", text(&out));
    let broken = tmp.path().join("broken");
    let journal = broken.join("journal.jsonl");
    let mut child = harness(&broken, false)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while journaled(&journal).len() < 3 {
        assert!(Instant::now() < deadline, "the harness journals its passes");
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let done = journaled(&journal);
    std::thread::sleep(Duration::from_millis(300));
    let before = std::fs::read_to_string(&count).unwrap().lines().count();
    let resumed = harness(&broken, true).output().unwrap();
    assert!(
        text(&resumed).contains(&format!(": {} of ", done.len()))
            && text(&resumed).contains(" passes already done"),
        "{}",
        text(&resumed)
    );
    for call in std::fs::read_to_string(&count)
        .unwrap()
        .lines()
        .skip(before)
    {
        let ns = call.split_once(' ').unwrap().1;
        assert!(!done.contains(ns), "a completed pass ran again: {call}");
    }
    assert_eq!(
        std::fs::read_to_string(whole.join("results.jsonl")).unwrap(),
        std::fs::read_to_string(broken.join("results.jsonl")).unwrap()
    );
    // One run, one id: the summary carries its journal's, and a resumed run keeps the
    // id of the run it continues.
    let run_id = |text: &str| -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(text).unwrap()["run_id"].clone()
    };
    for dir in [&whole, &broken] {
        let journal = std::fs::read_to_string(dir.join("journal.jsonl")).unwrap();
        let journal_id = run_id(journal.lines().next().unwrap());
        assert!(journal_id.is_string(), "{journal_id}");
        let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
        assert_eq!(run_id(&summary), journal_id, "{}", dir.display());
    }
}
