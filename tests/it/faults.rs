//! Integration tests: faults that must lose nothing and change nothing. A pass is
//! journaled the moment it completes; a journal line that was changed after it was
//! written is named and its pass run again; a full disk during an append leaves a
//! journal that resumes; secrets never reach a report; a signal stops a run cleanly;
//! a late reply never lands after a reset; one oversized reply fails only its own call.

use crate::journal::{journaled, run_args, slow_adapter, summary};
use crate::small_data;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn bemula() -> Command {
    crate::bemula_command()
}

/// The one system directory of a run's `--out`.
fn system_dir(out: &Path) -> PathBuf {
    std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .expect("a system directory")
}

/// The calls logged by the counting adapter, as `<call> <namespace>`, without the
/// preflight's.
fn calls(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|call| !call.contains(" bemula-preflight-"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_completed_pass_is_journaled_while_its_sibling_pass_still_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 1);
    let log = tmp.path().join("calls.log");
    // Forget-pass queries take a second each: that pass runs for half a minute.
    let system = slow_adapter(&log).replacen("env ", "env SLOW_FORGET=1 ", 1);
    let out = tmp.path().join("out");
    let mut child = bemula()
        .args(run_args(&data, &system, &out))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let journal = loop {
        let found = std::fs::read_dir(&out).ok().and_then(|entries| {
            entries
                .map(|e| e.unwrap().path().join("journal.jsonl"))
                .find(|p| journaled(p).iter().any(|ns| ns.ends_with("/control")))
        });
        if let Some(journal) = found {
            break journal;
        }
        if Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("the control pass was not journaled while the forget pass ran");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let done = journaled(&journal);
    assert!(
        child.try_wait().unwrap().is_none(),
        "the forget pass is still running"
    );
    assert!(
        done.iter().all(|ns| ns.ends_with("/control")),
        "only the control pass is done: {done:?}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let before = calls(&log).len();
    // Resumed (with fast queries: the spec must be the same, so only the log is read).
    let mut args = run_args(&data, &system, &out);
    args.push("--resume".into());
    let resumed = bemula().args(&args).output().unwrap();
    assert!(resumed.status.success(), "{}", crate::output_text(&resumed));
    for call in &calls(&log)[before..] {
        let ns = call.split_once(' ').unwrap().1;
        assert!(
            !done.contains(ns),
            "the journaled control pass ran again: {call}"
        );
    }
}

/// The passes of one instance run, then the journal edited by `edit` and resumed:
/// the resumed run's output, the calls it made, and its reports' directory, beside an
/// uninterrupted run's.
fn resume_after_edit(
    tmp: &Path,
    edit: impl FnOnce(&mut Vec<String>),
) -> (String, Vec<String>, PathBuf, PathBuf) {
    let data = small_data(tmp, 2);
    let log = tmp.join("calls.log");
    let system = slow_adapter(&log).replacen("SLOW_QUERY=0.01", "SLOW_QUERY=0", 1);
    let whole = tmp.join("whole");
    let out = bemula()
        .args(run_args(&data, &system, &whole))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::output_text(&out));
    // Turn the finished run into an interrupted one with an edited journal.
    let edited = tmp.join("edited");
    let out = bemula()
        .args(run_args(&data, &system, &edited))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::output_text(&out));
    let dir = system_dir(&edited);
    let journal = dir.join("journal.jsonl");
    let mut lines: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    edit(&mut lines);
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let before = calls(&log).len();
    let mut args = run_args(&data, &system, &edited);
    args.push("--resume".into());
    let resumed = bemula().args(&args).output().unwrap();
    let text = crate::output_text(&resumed);
    assert!(resumed.status.success(), "{text}");
    (
        text,
        calls(&log)[before..].to_vec(),
        system_dir(&whole),
        dir,
    )
}

fn assert_same_reports(a: &Path, b: &Path) {
    assert_eq!(
        std::fs::read_to_string(a.join("results.jsonl")).unwrap(),
        std::fs::read_to_string(b.join("results.jsonl")).unwrap(),
        "results.jsonl equals the uninterrupted run's"
    );
    let (mut sa, mut sb) = (summary(a), summary(b));
    for s in [&mut sa, &mut sb] {
        let s = s.as_object_mut().unwrap();
        s.remove("run_id");
        s["config"].as_object_mut().unwrap().remove("extra");
    }
    assert_eq!(sa, sb, "summary.json equals the uninterrupted run's");
}

/// The namespaces reset by `calls`.
fn resets(calls: &[String]) -> Vec<String> {
    calls
        .iter()
        .filter_map(|c| c.strip_prefix("reset "))
        .map(str::to_string)
        .collect()
}

#[test]
fn an_edited_journal_line_is_named_and_only_its_pass_runs_again() {
    for (what, from, to) in [
        (
            "relabelled",
            "\"version\":\"forget\"",
            "\"version\":\"control\"",
        ),
        ("emptied", "\"records\":[{", "\"records\":[],\"was\":[{"),
        ("flipped", "\"correct\":false", "\"correct\":true"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let mut pass = String::new();
        let (text, calls, whole, edited) = resume_after_edit(tmp.path(), |lines| {
            // The last line: a forget pass (passes are journaled as they complete, so
            // find one that holds the text to change).
            let n = (1..lines.len())
                .rev()
                .find(|&n| lines[n].contains(from) && lines[n].contains("\"version\":\"forget\""))
                .expect("a forget pass line to edit");
            let v: serde_json::Value =
                serde_json::from_str(&lines[n]).expect("a pass line is JSON");
            pass = format!("{}/forget", v["instance"].as_str().unwrap());
            lines[n] = lines[n].replacen(from, to, 1);
        });
        assert!(
            text.contains("checksum mismatch") && text.contains("runs again"),
            "{what}: the resumed run names the line: {text}"
        );
        assert_eq!(
            resets(&calls),
            vec![pass.clone()],
            "{what}: only {pass} ran again"
        );
        assert_same_reports(&whole, &edited);
    }
}

#[test]
fn a_cut_or_garbled_line_in_the_middle_of_a_journal_costs_only_its_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let mut lost = String::new();
    let (text, calls, whole, edited) = resume_after_edit(tmp.path(), |lines| {
        // A failed append of an older bemula left half a line in the middle.
        let v: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
        lost = format!(
            "{}/{}",
            v["instance"].as_str().unwrap(),
            v["version"].as_str().unwrap()
        );
        let half = lines[2].len() / 2;
        lines[2].truncate(half);
    });
    assert!(text.contains("line 3: no checksum"), "{text}");
    assert_eq!(resets(&calls), vec![lost]);
    assert_same_reports(&whole, &edited);
}
