//! Integration tests: the libtest-mimic harness, driven as a user drives it — the built
//! harness binary (`bemula test`, the same harness a `tests/bemula.rs` target runs)
//! spawned with libtest arguments and `BEMULA_*` variables.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

fn bemula() -> Command {
    crate::bemula_command()
}

/// Runs `bemula test --system SYSTEM --report-dir DIR -- ARGS` with extra variables.
fn harness(system: &str, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = bemula();
    cmd.args(["test", "--system", system, "--report-dir"])
        .arg(dir)
        .arg("--")
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the bemula binary runs")
}

fn text(out: &Output) -> String {
    crate::output_text(out)
}

/// Test names and their result words from libtest's pretty output: `test NAME ... ok`.
fn results(out: &Output) -> Vec<(String, String)> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("test "))
        .filter_map(|l| l.split_once(" ... "))
        .map(|(n, r)| (n.trim().to_string(), r.trim().to_string()))
        .collect()
}

fn listed(system: &str, dir: &Path, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["--list"];
    args.extend_from_slice(extra);
    let out = harness(system, dir, &args, &[]);
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_string)
        .collect()
}

fn records(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).expect("results.jsonl written");
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON record"))
        .collect()
}

#[test]
fn lists_one_test_per_request_with_stable_sorted_names() {
    let dir = tempfile::tempdir().unwrap();
    let names = listed("null", dir.path(), &[]);
    let data = bemula::generate::generate(&bemula::generate::GenConfig {
        seed: 42,
        lite: true,
        ..Default::default()
    });
    assert_eq!(
        names.len(),
        data.request_count(),
        "one test per request of the Lite data"
    );
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "names are sorted");
    for name in &names {
        let parts: Vec<&str> = name.split("::").collect();
        assert_eq!(parts.len(), 3, "{name}");
        assert!(
            parts[2].starts_with('F') && parts[2].contains('_'),
            "{name}"
        );
    }
    assert_eq!(
        listed("null", dir.path(), &[]),
        names,
        "names are stable between runs"
    );
    // --list writes no reports.
    assert!(!dir.path().join("results.jsonl").exists());
}

#[test]
fn filters_by_type_name_tier_and_instance() {
    let dir = tempfile::tempdir().unwrap();
    let all = listed("null", dir.path(), &[]);
    let f3 = listed("null", dir.path(), &["F3"]);
    assert!(!f3.is_empty());
    assert_eq!(
        f3,
        all.iter()
            .filter(|n| n.contains("F3"))
            .cloned()
            .collect::<Vec<_>>()
    );
    assert_eq!(
        listed("null", dir.path(), &["semantic"]),
        f3,
        "the type's name selects the same tests"
    );
    let medium = listed("null", dir.path(), &["medium_"]);
    assert!(!medium.is_empty() && medium.iter().all(|n| n.starts_with("medium_")));
    let one = all[0].split("::").next().unwrap().to_string();
    let instance = listed("null", dir.path(), &[&format!("{one}::")]);
    assert!(instance.iter().all(|n| n.starts_with(&format!("{one}::"))) && !instance.is_empty());
    let skipped = listed("null", dir.path(), &["--skip", "F3"]);
    assert_eq!(skipped.len() + f3.len(), all.len());
}

#[test]
fn a_filtered_run_asks_only_the_selected_requests_of_the_selected_instances() {
    let dir = tempfile::tempdir().unwrap();
    let out = harness("naive-rag", dir.path(), &["F3", "--test-threads", "2"], &[]);
    let ran = results(&out);
    assert!(!ran.is_empty(), "{}", text(&out));
    assert!(
        ran.iter().all(|(n, _)| n.contains("::F3_semantic")),
        "{ran:?}"
    );
    let f3_instances: BTreeSet<String> = ran
        .iter()
        .map(|(n, _)| n.split("::").next().unwrap().to_string())
        .collect();
    let recs = records(dir.path());
    let instances: BTreeSet<String> = recs
        .iter()
        .map(|r| r["instance"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        instances, f3_instances,
        "only instances with a selected request were ingested"
    );
    for r in &recs {
        match r["request_type"].as_str() {
            Some(t) => assert_eq!(t, "F3"),
            None => assert_eq!(r["suite"], "preservation"),
        }
    }
}

#[test]
fn exact_runs_one_request_and_ingests_one_instance() {
    let dir = tempfile::tempdir().unwrap();
    let all = listed("naive-rag", dir.path(), &[]);
    let name = &all[all.len() / 2];
    let out = harness("naive-rag", dir.path(), &["--exact", name], &[]);
    let ran = results(&out);
    assert_eq!(ran.len(), 1, "{}", text(&out));
    assert_eq!(&ran[0].0, name);
    let instance = name.split("::").next().unwrap();
    assert!(
        records(dir.path())
            .iter()
            .all(|r| r["instance"] == instance)
    );
}

#[test]
fn a_failing_request_fails_the_run_after_writing_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = harness("naive-rag", dir.path(), &["short_00"], &[]);
    assert_eq!(
        out.status.code(),
        Some(101),
        "libtest's failure status: {}",
        text(&out)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("✗"),
        "failure messages list the failing sub-assertions:\n{stdout}"
    );
    assert!(stdout.contains("expected:") && stdout.contains("answer:"));
    for file in ["results.jsonl", "summary.json", "summary.md", "junit.xml"] {
        assert!(dir.path().join(file).is_file(), "{file} written");
    }
    // JUnit: one testcase per request run, classname set, failures carry the message.
    let xml = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    let ran = results(&out);
    assert_eq!(xml.matches("<testcase ").count(), ran.len());
    assert_eq!(xml.matches("classname=\"").count(), ran.len());
    let failed = ran.iter().filter(|(_, r)| r == "FAILED").count();
    assert_eq!(xml.matches("<failure ").count(), failed);
    assert!(
        xml.contains("✗") && !xml.contains('\u{1b}'),
        "readable failure bodies, no colour codes"
    );
    for (name, _) in &ran {
        assert!(
            xml.contains(&format!("name=\"{name}\"")),
            "{name} in junit.xml"
        );
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap()).unwrap();
    for key in ["RA", "FE", "PR", "RLA", "AR", "RPR", "FA", "UG", "Score"] {
        assert!(
            summary["metrics"].get(key).is_some(),
            "summary.json has {key}"
        );
    }
}

#[test]
fn the_rpr_gate_decides_both_ways_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let pass = harness(
        "naive-rag",
        dir.path(),
        &["short_00"],
        &[("BEMULA_MIN_RPR", "0")],
    );
    assert!(pass.status.success(), "{}", text(&pass));
    assert!(text(&pass).contains("bemula gate: request pass rate") && text(&pass).contains("PASS"));
    assert!(
        String::from_utf8_lossy(&pass.stdout).contains("FAILED"),
        "failures are still listed"
    );
    let fail = harness(
        "naive-rag",
        dir.path(),
        &["short_00"],
        &[("BEMULA_MIN_RPR", "1")],
    );
    assert_eq!(fail.status.code(), Some(1), "{}", text(&fail));
    assert!(
        text(&fail).contains("< BEMULA_MIN_RPR 1: FAIL"),
        "{}",
        text(&fail)
    );
    let bad = harness(
        "naive-rag",
        dir.path(),
        &["short_00"],
        &[("BEMULA_MIN_RPR", "lots")],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad).contains("BEMULA_MIN_RPR=\"lots\""),
        "{}",
        text(&bad)
    );
}

#[test]
fn expectations_bless_expected_failures_regressions_and_unexpected_passes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("expected.txt");
    let file_s = file.to_str().unwrap();
    let filter = "short_00";
    let bless = harness(
        "naive-rag",
        dir.path(),
        &[filter],
        &[("BEMULA_EXPECTATIONS", file_s), ("BEMULA_BLESS", "1")],
    );
    assert!(bless.status.success(), "{}", text(&bless));
    let mut failing: Vec<String> = results(&bless)
        .into_iter()
        .filter(|(_, r)| r == "FAILED")
        .map(|(n, _)| n)
        .collect();
    failing.sort();
    let listed: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    assert_eq!(listed, failing, "bless lists exactly the failing requests");
    assert!(!failing.is_empty());

    let again = harness(
        "naive-rag",
        dir.path(),
        &[filter],
        &[("BEMULA_EXPECTATIONS", file_s)],
    );
    assert!(
        again.status.success(),
        "known failures do not fail the run: {}",
        text(&again)
    );
    assert!(text(&again).contains(&format!(
        "{} expected failures, 0 unexpected passes, 0 regressions",
        failing.len()
    )));

    // Drop one known failure: it is now a regression.
    let rest: String = failing[1..].iter().map(|n| format!("{n}\n")).collect();
    std::fs::write(&file, rest).unwrap();
    let regress = harness(
        "naive-rag",
        dir.path(),
        &[filter],
        &[("BEMULA_EXPECTATIONS", file_s)],
    );
    assert!(!regress.status.success());
    assert!(
        text(&regress).contains("1 regressions"),
        "{}",
        text(&regress)
    );

    // A passing request listed as a known failure is reported as unexpectedly passing.
    let passing: Vec<String> = results(&bless)
        .into_iter()
        .filter(|(_, r)| r == "ok")
        .map(|(n, _)| n)
        .collect();
    if let Some(p) = passing.first() {
        let mut all = failing.clone();
        all.push(p.clone());
        std::fs::write(&file, all.join("\n")).unwrap();
        let unexpected = harness(
            "naive-rag",
            dir.path(),
            &[filter],
            &[("BEMULA_EXPECTATIONS", file_s)],
        );
        assert!(unexpected.status.success());
        assert!(
            text(&unexpected).contains(&format!("unexpectedly passing: {p}")),
            "{}",
            text(&unexpected)
        );
    }
    // A malformed expectations file is an error naming the line.
    std::fs::write(&file, "not a test name\n").unwrap();
    let bad = harness(
        "naive-rag",
        dir.path(),
        &[filter],
        &[("BEMULA_EXPECTATIONS", file_s)],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad).contains("expected.txt:1:"), "{}", text(&bad));
}

#[test]
fn process_per_test_parts_assemble_into_the_same_summary() {
    // cargo-nextest runs `<binary> --exact NAME` once per test with NEXTEST_RUN_ID set.
    let plain = tempfile::tempdir().unwrap();
    let filter = "short_00";
    let out = harness("naive-rag", plain.path(), &[filter], &[]);
    let names: Vec<String> = results(&out).into_iter().map(|(n, _)| n).collect();
    assert!(names.len() >= 3);
    let split = tempfile::tempdir().unwrap();
    for name in &names {
        let out = harness(
            "naive-rag",
            split.path(),
            &["--exact", name],
            &[("NEXTEST_RUN_ID", "run-1")],
        );
        assert!(results(&out).len() == 1, "{}", text(&out));
    }
    assert!(
        !split.path().join("summary.json").exists(),
        "processes leave parts, not summaries"
    );
    let report = bemula().arg("report").arg(split.path()).output().unwrap();
    assert!(report.status.success(), "{}", text(&report));
    let read = |d: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(d.join("summary.json")).unwrap()).unwrap()
    };
    let (a, b) = (read(plain.path()), read(split.path()));
    assert_eq!(a["metrics"], b["metrics"]);
    assert_eq!(a["requests"], b["requests"]);
    assert_eq!(a["counts"], b["counts"]);
}

#[test]
fn processes_of_one_nextest_run_ingest_each_instance_once() {
    let dir = tempfile::tempdir().unwrap();
    let count = dir.path().join("resets.log");
    let system = format!(
        "cmd:env COUNT_FILE={} python3 {}/tests/fixtures/adapters/counting.py",
        count.display(),
        env!("CARGO_MANIFEST_DIR")
    );
    let names: Vec<String> = listed(&system, dir.path(), &["short_00"]);
    let instances: BTreeSet<&str> = names
        .iter()
        .map(|n| n.split("::").next().unwrap())
        .collect();
    assert!(
        names.len() > instances.len(),
        "some instance has several requests"
    );
    for name in &names {
        let out = harness(
            &system,
            dir.path(),
            &["--exact", name],
            &[("NEXTEST_RUN_ID", "run-2")],
        );
        assert_eq!(results(&out).len(), 1, "{}", text(&out));
    }
    let resets = std::fs::read_to_string(&count).unwrap();
    let (canaries, resets): (Vec<&str>, Vec<&str>) = resets
        .lines()
        .partition(|l| l.contains(" bemula-preflight-"));
    let preflights: BTreeSet<&str> = canaries
        .iter()
        .filter_map(|l| l.split('-').nth(2))
        .collect();
    assert_eq!(
        preflights.len(),
        1,
        "the adapter is preflighted by the first process of the run only: {canaries:?}"
    );
    let mut per_namespace = std::collections::BTreeMap::new();
    for line in &resets {
        *per_namespace.entry(line.to_string()).or_insert(0) += 1;
    }
    assert_eq!(
        per_namespace.len(),
        2 * instances.len(),
        "both versions of every instance: {resets:?}"
    );
    assert!(
        per_namespace.values().all(|&n| n == 1),
        "each version ingested once: {per_namespace:?}"
    );
    let shared = dir.path().join("parts/run-2/instances");
    let files: Vec<String> = std::fs::read_dir(&shared)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files.len(),
        instances.len(),
        "one shared file per instance, no lock left: {files:?}"
    );
    let report = bemula().arg("report").arg(dir.path()).output().unwrap();
    assert!(report.status.success(), "{}", text(&report));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["requests"].as_array().unwrap().len(),
        names.len(),
        "only the requests that ran are reported"
    );
}

#[test]
fn missing_data_is_an_error_not_an_empty_pass() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = harness(
        "null",
        dir.path(),
        &[],
        &[("BEMULA_DATA", empty.path().to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no instance files"), "{}", text(&out));
}

#[test]
fn the_readme_example_is_the_compiled_example() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/tests_bemula.rs"
    ))
    .unwrap();
    let body = example.split_once("\n\n").map(|(_, b)| b).unwrap();
    assert!(
        readme.contains(body),
        "README's tests/bemula.rs differs from examples/tests_bemula.rs"
    );
}

/// Lines of `out` that mention `needle`.
fn lines_with(out: &Output, needle: &str) -> usize {
    text(out).lines().filter(|l| l.contains(needle)).count()
}

#[test]
fn a_gated_run_closes_with_the_gates_decision_naming_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = bemula();
    cmd.args([
        "test",
        "--system",
        "naive-rag",
        "--min-rpr",
        "0",
        "--report-dir",
    ])
    .arg(dir.path())
    .args(["--", "short_00"]);
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(
        last.starts_with("bemula gate: PASSED (exit status 0)"),
        "the decision comes last and first on its line: {last}"
    );
    assert!(
        last.contains("--min-rpr") && !text(&out).contains("BEMULA_MIN_RPR"),
        "the gate names the flag that set it: {}",
        text(&out)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("summary.json")).unwrap()).unwrap();
    let source = summary["config"]["dataset"].as_str().unwrap();
    // The data is named once as Lite: the realised edition by its name, generated data
    // with one "(lite)".
    assert_eq!(
        source.matches("(lite)").count() + source.matches("Lite").count(),
        1,
        "{source}"
    );
}

#[test]
fn a_filter_that_selects_nothing_warns_and_leaves_no_stale_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = harness("null", dir.path(), &["short_001::"], &[]);
    assert!(dir.path().join("summary.json").is_file(), "{}", text(&out));
    let typo = harness("null", dir.path(), &["shrt_001::"], &[]);
    assert!(
        text(&typo).contains("warning: the filter \"shrt_001::\" selects none"),
        "{}",
        text(&typo)
    );
    for file in ["results.jsonl", "summary.json", "summary.md", "junit.xml"] {
        assert!(!dir.path().join(file).exists(), "stale {file} removed");
    }
}

#[test]
fn expectations_must_exist_name_known_requests_and_show_as_skipped_in_junit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("expected.txt");
    let file_s = file.to_str().unwrap();
    let missing = harness(
        "naive-rag",
        dir.path(),
        &["short_00"],
        &[("BEMULA_EXPECTATIONS", file_s)],
    );
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing));
    assert!(
        text(&missing).contains("does not exist") && text(&missing).contains("BEMULA_BLESS"),
        "{}",
        text(&missing)
    );
    let bless = harness(
        "naive-rag",
        dir.path(),
        &["short_00"],
        &[("BEMULA_EXPECTATIONS", file_s), ("BEMULA_BLESS", "true")],
    );
    assert!(bless.status.success(), "{}", text(&bless));
    let failing: Vec<String> = results(&bless)
        .into_iter()
        .filter(|(_, r)| r == "FAILED")
        .map(|(n, _)| n)
        .collect();
    let passing: Vec<String> = results(&bless)
        .into_iter()
        .filter(|(_, r)| r == "ok")
        .map(|(n, _)| n)
        .collect();
    assert!(!failing.is_empty());
    let mut listed = failing.clone();
    listed.push("short_001::r9::F1_factual".into());
    listed.extend(passing.first().cloned());
    std::fs::write(&file, listed.join("\n")).unwrap();
    let run = harness(
        "naive-rag",
        dir.path(),
        &["short_00"],
        &[("BEMULA_EXPECTATIONS", file_s)],
    );
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        text(&run).contains("not requests of") && text(&run).contains("short_001::r9::F1_factual"),
        "unknown names are reported: {}",
        text(&run)
    );
    if let Some(p) = passing.first() {
        assert_eq!(
            lines_with(&run, p),
            2,
            "the test line and one unexpected-pass line: {}",
            text(&run)
        );
    }
    let xml = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert_eq!(
        xml.matches("<failure").count(),
        0,
        "no red for a green run: {xml}"
    );
    assert_eq!(
        xml.matches("<skipped").count(),
        failing.len(),
        "known failures are skipped"
    );
    assert!(xml.contains("message=\"known failure (listed in"), "{xml}");
    if !passing.is_empty() {
        assert!(xml.contains("unexpected pass"), "{xml}");
    }
    let err = harness(
        "naive-rag",
        dir.path(),
        &["short_00"],
        &[("BEMULA_BLESS", "true")],
    );
    assert!(
        text(&err).contains("BEMULA_BLESS=\"true\""),
        "{}",
        text(&err)
    );
}

#[test]
fn under_nextest_the_pass_rate_gate_is_left_to_bemula_report() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    let gated = harness(
        "naive-rag",
        &plain,
        &["short_00"],
        &[("BEMULA_MIN_RPR", "0.25")],
    );
    let names: Vec<String> = results(&gated).into_iter().map(|(n, _)| n).collect();
    let split = tmp.path().join("split");
    for name in &names {
        let out = harness(
            "naive-rag",
            &split,
            &["--exact", name],
            &[("NEXTEST_RUN_ID", "gated"), ("BEMULA_MIN_RPR", "0.25")],
        );
        assert!(
            out.status.success(),
            "a process does not fail its test on its request's outcome: {}",
            text(&out)
        );
        assert!(
            text(&out).contains("applied by `bemula report"),
            "{}",
            text(&out)
        );
    }
    // Process-per-test parts cover one request each of the whole data: gate on the
    // requests present, as the plain filtered run does.
    let report = bemula()
        .arg("report")
        .arg(&split)
        .args(["--min-rpr", "0.25", "--allow-partial"])
        .output()
        .unwrap();
    assert_eq!(
        report.status.code(),
        gated.status.code(),
        "the same decision as the plain run's gate: {}\n{}",
        text(&report),
        text(&gated)
    );
}

#[test]
fn old_nextest_runs_are_pruned_and_a_dead_processs_lock_is_taken_over_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let all = listed("null", dir.path(), &["short_001::"]);
    let name = &all[0];
    for run in 0..7 {
        let out = harness(
            "null",
            dir.path(),
            &["--exact", name],
            &[("NEXTEST_RUN_ID", &format!("run-{run}"))],
        );
        assert_eq!(results(&out).len(), 1, "{}", text(&out));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let runs = std::fs::read_dir(dir.path().join("parts")).unwrap().count();
    assert_eq!(runs, 5, "the newest runs are kept");
    // A lock left by a process killed while ingesting (its pid no longer runs).
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    let shared = dir.path().join("parts/run-stale/instances");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::write(
        shared.join("short_001.lock"),
        format!("{{\"pid\":{pid},\"started\":1,\"since\":0}}"),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let out = harness(
        "null",
        dir.path(),
        &["--exact", name],
        &[("NEXTEST_RUN_ID", "run-stale")],
    );
    assert_eq!(results(&out).len(), 1, "{}", text(&out));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "no wait for a dead holder"
    );
}
