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

/// The journal of the one system directory of `out`, once the run has made it.
fn journal_in(out: &Path) -> Option<PathBuf> {
    std::fs::read_dir(out)
        .ok()?
        .find_map(|e| e.ok().map(|e| e.path()).filter(|p| p.is_dir()))
        .map(|d| d.join("journal.jsonl"))
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
        let found =
            journal_in(&out).filter(|p| journaled(p).iter().any(|ns| ns.ends_with("/control")));
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

/// A tmpfs of `size` mounted on a new directory, unmounted when dropped; `None` (the
/// test then says it was skipped) where this process may not mount one.
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("skipped: cannot mount a tmpfs here (needs root)");
            return None;
        }
        Some(Tmpfs { dir })
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the file system: a file written until the disk is full.
    fn fill(&self) -> PathBuf {
        use std::io::Write;
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let chunk = vec![b'x'; 4096];
        while file.write_all(&chunk).is_ok() {}
        let _ = file.sync_all();
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn a_full_disk_at_the_start_leaves_no_probe_or_lock_behind() {
    let Some(disk) = Tmpfs::mount("1m") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 1);
    let out = disk.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    disk.fill();
    let run = bemula()
        .args(run_args(&data, "null", &out))
        .output()
        .unwrap();
    assert!(!run.status.success());
    let text = crate::output_text(&run);
    assert!(text.contains("No space left on device"), "{text}");
    let left: Vec<String> = walk(&out)
        .into_iter()
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() == 0))
        .map(|p| p.display().to_string())
        .collect();
    assert!(left.is_empty(), "empty files left behind: {left:?}");
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

#[test]
fn a_full_disk_during_a_run_costs_only_the_passes_it_could_not_journal() {
    let Some(disk) = Tmpfs::mount("16m") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 4);
    let log = tmp.path().join("calls.log");
    let system = slow_adapter(&log).replacen("SLOW_QUERY=0.01", "SLOW_QUERY=0.03", 1);
    let mut args = run_args(&data, &system, &disk.path().join("out"));
    let jobs = args.iter().position(|a| a == "--jobs").unwrap();
    args[jobs + 1] = "1".into();
    let mut child = bemula()
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stderr read on a thread, line by line.
    let (tx, warnings) = std::sync::mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let wait_for = |what: &str, until: &mut dyn FnMut() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !until() {
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    let out = disk.path().join("out");
    let journal = || journal_in(&out);
    let lines = |path: &Option<PathBuf>| {
        path.as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map_or(0, |t| t.lines().count())
    };
    wait_for("the first journaled pass", &mut || lines(&journal()) >= 2);
    // The disk fills up: the next append fails midway.
    let filler = disk.fill();
    wait_for("the journal's warning", &mut || {
        warnings
            .try_iter()
            .any(|l| l.contains("the run journal cannot be written"))
    });
    let journaled_while_full = lines(&journal());
    // Room again: the following passes are journaled on clean lines.
    std::fs::remove_file(&filler).unwrap();
    wait_for("a pass journaled after the full disk", &mut || {
        lines(&journal()) > journaled_while_full
    });
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(journal().unwrap()).unwrap();
    let torn = text
        .lines()
        .filter(|l| serde_json::from_str::<serde_json::Value>(l).is_err());
    assert_eq!(torn.count(), 0, "no torn line in the journal");
    // Resumed on another disk (the same spec), it ends as an uninterrupted run.
    let resumed_out = tmp.path().join("out");
    std::fs::create_dir_all(&resumed_out).unwrap();
    let status = Command::new("cp")
        .arg("-a")
        .arg(&out)
        .arg(tmp.path())
        .status()
        .unwrap();
    assert!(status.success());
    drop(disk);
    let mut resume = args.clone();
    let o = resume.iter().position(|a| a == "--out").unwrap();
    resume[o + 1] = resumed_out.display().to_string();
    resume.push("--resume".into());
    let resumed = bemula().args(&resume).output().unwrap();
    assert!(resumed.status.success(), "{}", crate::output_text(&resumed));
    let whole = tmp.path().join("whole");
    let run = bemula()
        .args(run_args(&data, &system, &whole))
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", crate::output_text(&run));
    assert_same_reports(&system_dir(&whole), &system_dir(&resumed_out));
}

#[test]
fn an_instance_id_of_dots_is_refused_before_it_becomes_a_namespace() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 1);
    let file = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "manifest.json")
        .unwrap();
    let mut instance: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    for id in ["..", "."] {
        instance["id"] = id.into();
        std::fs::write(&file, serde_json::to_vec(&instance).unwrap()).unwrap();
        let validate = bemula().arg("validate").arg(&data).output().unwrap();
        let text = crate::output_text(&validate);
        assert!(!validate.status.success(), "{text}");
        assert!(
            text.contains(&format!("instance id \"{id}\" names a directory")),
            "{text}"
        );
        let log = tmp.path().join("calls.log");
        let run = bemula()
            .args(run_args(
                &data,
                &slow_adapter(&log),
                &tmp.path().join("out"),
            ))
            .output()
            .unwrap();
        assert!(!run.status.success());
        assert!(
            !std::fs::read_to_string(&log)
                .unwrap_or_default()
                .contains("../"),
            "no namespace climbs out of a directory"
        );
    }
}

#[test]
fn an_instance_file_above_the_size_limit_is_refused_before_it_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 1);
    // A file of 3 MiB: pretty JSON with a long run of spaces before its last brace.
    let file = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap() != "manifest.json")
        .unwrap();
    let mut bytes = std::fs::read(&file).unwrap();
    let end = bytes.iter().rposition(|&b| b == b'}').unwrap();
    bytes.splice(end..end, std::iter::repeat_n(b' ', 3 << 20));
    std::fs::write(&file, &bytes).unwrap();
    for command in ["run", "validate"] {
        let mut cmd = bemula();
        cmd.env("BEMULA_MAX_FILE_MIB", "2");
        if command == "run" {
            cmd.args(run_args(&data, "null", &tmp.path().join("out")));
        } else {
            cmd.arg("validate").arg(&data);
        }
        let out = cmd.output().unwrap();
        let text = crate::output_text(&out);
        assert!(!out.status.success(), "{command}: {text}");
        assert!(
            text.contains(&file.display().to_string())
                && text.contains("above the limit of 2 MiB")
                && text.contains("BEMULA_MAX_FILE_MIB"),
            "{command}: {text}"
        );
    }
    // Raised, the same file is read.
    let out = bemula()
        .env("BEMULA_MAX_FILE_MIB", "4")
        .arg("validate")
        .arg(&data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", crate::output_text(&out));
    // A misspelt limit is an error naming the variable, never a silent default.
    let out = bemula()
        .env("BEMULA_MAX_FILE_MIB", "4MB")
        .arg("validate")
        .arg(&data)
        .output()
        .unwrap();
    let text = crate::output_text(&out);
    assert!(!out.status.success());
    assert!(
        text.contains("BEMULA_MAX_FILE_MIB: \"4MB\" is not a size in MiB"),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn entries_of_the_data_directory_that_are_not_files_are_named_when_skipped() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 1);
    std::os::unix::fs::symlink(tmp.path().join("gone.json"), data.join("dangling.json")).unwrap();
    std::fs::create_dir(data.join("folder.json")).unwrap();
    let out = bemula().arg("validate").arg(&data).output().unwrap();
    let text = crate::output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("dangling.json: skipped: a symbolic link to no file"),
        "{text}"
    );
    assert!(text.contains("folder.json: skipped: a directory"), "{text}");
}

const KEY: &str = "sk-proj-T3stK3y0123456789abcdefXYZ";
const TOKEN: &str = "tok_9a8b7c6d5e4f3a2b";

/// `text` with every character as a JSON `\uXXXX` escape.
fn escaped(text: &str) -> String {
    text.chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect()
}

/// Where `text` (from `whence`) still shows a secret: whole, as escapes, or a run of 12
/// of its characters; JSON strings are also checked as they decode.
fn leaks(whence: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for secret in [KEY, TOKEN] {
        let mut forms = vec![secret.to_string(), escaped(secret)];
        forms.extend(
            secret
                .as_bytes()
                .windows(12)
                .map(|w| String::from_utf8(w.to_vec()).unwrap()),
        );
        if let Some(form) = forms.iter().find(|f| text.contains(f.as_str())) {
            found.push(format!("{whence}: {form}"));
        }
    }
    found
}

fn json_strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| json_strings(v, out)),
        serde_json::Value::Object(m) => m.iter().for_each(|(k, v)| {
            out.push(k.clone());
            json_strings(v, out)
        }),
        _ => {}
    }
}

#[test]
fn secrets_echoed_by_an_adapter_reach_no_report_journal_or_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let data = small_data(tmp.path(), 2);
    let out = tmp.path().join("out");
    let adapter = format!(
        "cmd:python3 {}/tests/fixtures/adapters/leaky.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut args = run_args(&data, &adapter, &out);
    // The adapter's errors are the point: the run must go on through them.
    args.extend(["--max-error-rate".into(), "1".into()]);
    let run = bemula()
        .env("OPENAI_API_KEY", KEY)
        .env("LEAKY_SERVICE_TOKEN", TOKEN)
        .args(&args)
        .output()
        .unwrap();
    let text = crate::output_text(&run);
    assert!(run.status.success(), "{text}");
    let mut found = leaks("the terminal", &text);
    let files = walk(&out);
    assert!(
        files.iter().any(|f| f.ends_with("journal.jsonl"))
            && files.iter().any(|f| f.ends_with("results.jsonl"))
            && files.iter().any(|f| f.ends_with("report.html")),
        "{files:?}"
    );
    let mut redacted = 0;
    for file in &files {
        let content = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
        let whence = file.display().to_string();
        found.extend(leaks(&whence, &content));
        redacted += content.matches("[redacted]").count();
        let values: Vec<serde_json::Value> = match file.extension().and_then(|e| e.to_str()) {
            Some("json") => serde_json::from_str(&content).into_iter().collect(),
            Some("jsonl") => content
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
            _ => Vec::new(),
        };
        let mut strings = Vec::new();
        values.iter().for_each(|v| json_strings(v, &mut strings));
        for s in strings {
            found.extend(leaks(&format!("{whence} (decoded)"), &s));
        }
    }
    assert!(found.is_empty(), "secrets left: {found:#?}");
    // The channels were exercised: answers, memories, errors and stderr all said it.
    let results = std::fs::read_to_string(system_dir(&out).join("results.jsonl")).unwrap();
    assert!(
        results.contains("Your key is [redacted]"),
        "an answer was redacted"
    );
    assert!(
        results.contains("Incorrect API key provided: [redacted]"),
        "an error's escaped key was redacted"
    );
    let summary = std::fs::read_to_string(system_dir(&out).join("summary.json")).unwrap();
    assert!(
        summary.contains("calling upstream with key [redacted] and token [redacted]"),
        "the stderr tail was redacted"
    );
    assert!(
        summary.contains("\"upstream_token\": \"[redacted]\""),
        "handshake settings"
    );
    assert!(redacted > 10, "{redacted} redactions");
}

#[cfg(unix)]
fn send(child: &std::process::Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// A run of `instances` short instances through the slow counting adapter, signalled
/// with each of `signals` once `after` passes are journaled; its exit status, its
/// output, the paths of its data and `--out`, and the system spec.
#[cfg(unix)]
fn signalled_run(
    tmp: &Path,
    instances: usize,
    slow: &str,
    after: usize,
    signals: &[&str],
) -> (std::process::ExitStatus, String, PathBuf, PathBuf, String) {
    let data = small_data(tmp, instances);
    let log = tmp.join("calls.log");
    let system = slow_adapter(&log).replacen("SLOW_QUERY=0.01", slow, 1);
    let out = tmp.join("out");
    let mut args = run_args(&data, &system, &out);
    let jobs = args.iter().position(|a| a == "--jobs").unwrap();
    args[jobs + 1] = "1".into();
    let child = bemula()
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let journaled = journal_in(&out).map_or(0, |j| journaled(&j).len());
        if journaled >= after {
            break;
        }
        assert!(Instant::now() < deadline, "the run journals its passes");
        std::thread::sleep(Duration::from_millis(10));
    }
    for signal in signals {
        send(&child, signal);
        std::thread::sleep(Duration::from_millis(100));
    }
    let started = Instant::now();
    let output = child.wait_with_output().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the run stopped soon after the signal"
    );
    (
        output.status,
        crate::output_text(&output),
        data,
        out,
        system,
    )
}

#[cfg(unix)]
#[test]
fn sigint_or_sigterm_stops_the_run_cleanly_and_resume_ends_as_an_uninterrupted_run() {
    use std::os::unix::process::ExitStatusExt;
    for (signal, name, status) in [("-INT", "SIGINT", 130), ("-TERM", "SIGTERM", 143)] {
        let tmp = tempfile::tempdir().unwrap();
        let (exit, text, data, out, system) =
            signalled_run(tmp.path(), 4, "SLOW_QUERY=0.02", 2, &[signal]);
        assert_eq!(
            exit.code(),
            Some(status),
            "{name}: {text} {:?}",
            exit.signal()
        );
        assert!(
            text.contains(&format!("{name} received: finishing the passes in flight")),
            "{text}"
        );
        assert!(
            text.contains("continue the run with") && text.contains("--resume"),
            "{text}"
        );
        let marker: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(marker["complete"], false);
        assert_eq!(marker["interrupted"], name);
        assert!(
            !out.join(".bemula.lock").exists(),
            "{name}: the lock is released"
        );
        let dir = system_dir(&out);
        assert!(
            !dir.join("summary.json").exists(),
            "no report of a stopped run"
        );
        // Every journaled pass is whole and free of errors.
        for line in std::fs::read_to_string(dir.join("journal.jsonl"))
            .unwrap()
            .lines()
            .skip(1)
        {
            let pass: serde_json::Value = serde_json::from_str(line).unwrap();
            let records = pass["records"].as_array().unwrap();
            assert!(!records.is_empty());
            assert!(records.iter().all(|r| r["error"].is_null()), "{line}");
        }
        let mut args = run_args(&data, &system, &out);
        let jobs = args.iter().position(|a| a == "--jobs").unwrap();
        args[jobs + 1] = "1".into();
        args.push("--resume".into());
        let resumed = bemula().args(&args).output().unwrap();
        assert!(resumed.status.success(), "{}", crate::output_text(&resumed));
        let whole = tmp.path().join("whole");
        let mut args = run_args(&data, &system, &whole);
        args[jobs + 1] = "1".into();
        let run = bemula().args(&args).output().unwrap();
        assert!(run.status.success(), "{}", crate::output_text(&run));
        assert_same_reports(&system_dir(&whole), &dir);
    }
}

#[cfg(unix)]
#[test]
fn a_second_sigint_stops_at_once_and_keeps_what_was_journaled() {
    let tmp = tempfile::tempdir().unwrap();
    // Forget passes take a minute: only a second signal ends the run soon.
    let (exit, text, _, out, _) = signalled_run(
        tmp.path(),
        3,
        "SLOW_QUERY=0 SLOW_FORGET=2",
        1,
        &["-INT", "-INT"],
    );
    assert_eq!(exit.code(), Some(130), "{text}");
    assert!(text.contains("SIGINT again: stopped at once"), "{text}");
    assert!(!out.join(".bemula.lock").exists(), "the lock is released");
    let marker: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(marker["interrupted"], "SIGINT");
    assert!(!journaled(&system_dir(&out).join("journal.jsonl")).is_empty());
}

/// The misbehaving adapter with `namespaces` namespaces reset and holding one turn.
async fn misbehaving_namespaces(
    options: bemula::system::remote::RemoteOptions,
    namespaces: usize,
) -> (
    bemula::system::remote::RemoteFactory,
    Vec<(
        Box<dyn bemula::system::AsyncMemorySystem>,
        bemula::system::Namespace,
    )>,
) {
    use bemula::system::{Namespace, SystemFactory, TurnInput};
    let cmd = format!(
        "cmd:python3 {}/tests/fixtures/adapters/misbehaving.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let factory = bemula::system::remote::connect(&cmd, &options)
        .await
        .expect("connect");
    let mut systems = Vec::new();
    for n in 0..namespaces {
        let ns = Namespace(format!("inst{n}/forget"));
        let mut system = factory.make(&ns).await.expect("make");
        system.reset(&ns).await.expect("reset");
        let turn = TurnInput {
            index: 0,
            user: format!("My locker code is 47{n:02}."),
            assistant: "Noted.".into(),
        };
        system.observe(&ns, &turn).await.expect("observe");
        systems.push((system, ns));
    }
    (factory, systems)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_reply_fails_only_its_own_call_among_concurrent_ones() {
    use bemula::system::{ErrorKind, Reply};
    let options = bemula::system::remote::RemoteOptions {
        max_message_bytes: 64 * 1024,
        timeout: Duration::from_secs(20),
        ..Default::default()
    };
    let (factory, systems) = misbehaving_namespaces(options, 5).await;
    // Four slow ordinary questions in flight while the fifth namespace's reply is 2 MB.
    let mut tasks = Vec::new();
    for (n, (mut system, ns)) in systems.into_iter().enumerate() {
        tasks.push(tokio::spawn(async move {
            let question = if n == 0 {
                "huge:2000000".to_string()
            } else {
                // Sleeps first, so the huge line arrives while this call waits.
                "sleep:0.5".to_string()
            };
            let reply = system.query(&ns, &question).await;
            (n, reply)
        }));
    }
    for task in tasks {
        let (n, reply) = task.await.unwrap();
        if n == 0 {
            let err = reply.expect_err("the oversized reply fails its call");
            assert_eq!(err.kind, ErrorKind::Protocol, "{err}");
            assert!(
                err.message.contains("over the limit of 65536 bytes"),
                "{err}"
            );
        } else {
            let reply = reply.unwrap_or_else(|e| panic!("call {n} failed with the other: {e}"));
            assert!(matches!(reply, Reply::Memories(_) | Reply::Answer(_)));
        }
    }
    factory.shutdown().await.expect("shutdown");
}

/// Every turn observed more than once between two resets of its namespace, from a log
/// of `<call> <namespace> <session> <turn>` lines.
fn observed_twice(log: &str) -> Vec<String> {
    let mut seen: std::collections::HashMap<String, std::collections::HashSet<String>> =
        Default::default();
    let mut twice = Vec::new();
    for line in log.lines() {
        let mut parts = line.splitn(2, ' ');
        let (call, rest) = (parts.next().unwrap(), parts.next().unwrap_or_default());
        let ns = rest.split(' ').next().unwrap().to_string();
        match call {
            "reset" => {
                seen.insert(ns, Default::default());
            }
            "observe" if !seen.entry(ns).or_default().insert(rest.to_string()) => {
                twice.push(line.to_string())
            }
            _ => {}
        }
    }
    twice
}

#[test]
fn a_write_answered_after_its_timeout_never_lands_after_the_reset_that_restarts_its_pass() {
    // Answered within one more timeout (the reset waits for it), and answered later
    // still (the adapter process is replaced before the reset).
    for (late, replaced) in [("1.5", false), ("4", true)] {
        let tmp = tempfile::tempdir().unwrap();
        let data = small_data(tmp.path(), 1);
        let log = tmp.path().join("calls.log");
        let system = format!(
            "cmd:env COUNT_FILE={} LATE={late} python3 {}/tests/fixtures/adapters/late_observe.py",
            log.display(),
            env!("CARGO_MANIFEST_DIR")
        );
        let out = tmp.path().join("out");
        let mut args = run_args(&data, &system, &out);
        args.extend(["--adapter-timeout".into(), "1".into()]);
        let run = bemula().args(&args).output().unwrap();
        let text = crate::output_text(&run);
        assert!(run.status.success(), "LATE={late}: {text}");
        let calls = std::fs::read_to_string(&log).unwrap();
        assert_eq!(
            observed_twice(&calls),
            Vec::<String>::new(),
            "LATE={late}: {calls}"
        );
        let dir = system_dir(&out);
        let records = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
        assert!(
            records.contains("\"restarts\":1"),
            "LATE={late}: the forget pass restarted"
        );
        assert!(
            !records.contains("\"error\":\""),
            "LATE={late}: and then ran without an error"
        );
        let summary = std::fs::read_to_string(dir.join("summary.json")).unwrap();
        assert_eq!(
            summary.contains("a write that timed out was still unanswered"),
            replaced,
            "LATE={late}: {summary}"
        );
    }
}
