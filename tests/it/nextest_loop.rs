//! Integration tests: the edit-and-rerun loop under cargo-nextest. Each test process is
//! driven as nextest drives it — `<harness> --exact NAME` with `NEXTEST_RUN_ID` set,
//! one process per test — and `bemula report` merges the parts afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The example keyword memory in two versions of one system (see the fixture):
/// `forgets` picks the version.
fn editable() -> String {
    format!("cmd:python3 {ROOT}/tests/fixtures/adapters/editable.py")
}

struct Loop {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    reports: PathBuf,
}

impl Loop {
    /// A report directory and small data (the first `keep` short instances).
    fn new(keep: usize) -> Loop {
        let tmp = tempfile::tempdir().unwrap();
        let data = crate::small_data(tmp.path(), keep);
        let reports = tmp.path().join("reports");
        Loop {
            _tmp: tmp,
            data,
            reports,
        }
    }

    fn harness(&self, system: &str, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = crate::bemula_command();
        cmd.args(["test", "--system", system, "--report-dir"])
            .arg(dir)
            .arg("--")
            .args(args)
            .env("BEMULA_DATA", &self.data)
            .env("BEMULA_NO_PREFLIGHT", "1");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("the bemula binary runs")
    }

    fn names(&self, system: &str) -> Vec<String> {
        let out = self.harness(system, &self.reports, &["--list"], &[]);
        assert!(out.status.success(), "{}", crate::output_text(&out));
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_suffix(": test"))
            .map(str::to_string)
            .collect()
    }

    /// One nextest run of `names`: a process per test, each `--exact NAME`. Returns
    /// the output of the last process.
    fn nextest(&self, run: &str, system: &str, names: &[String], env: &[(&str, &str)]) -> Output {
        let mut env = env.to_vec();
        env.push(("NEXTEST_RUN_ID", run));
        let mut last = None;
        for name in names {
            let out = self.harness(system, &self.reports, &["--exact", name], &env);
            let text = crate::output_text(&out);
            assert!(
                text.contains(&format!("test {name} ...")),
                "the process ran {name}: {text}"
            );
            last = Some(out);
        }
        last.expect("at least one test")
    }

    fn report(&self, args: &[&str]) -> Output {
        let mut cmd = crate::bemula_command();
        cmd.arg("report").arg(&self.reports).args(args);
        cmd.output().expect("bemula report runs")
    }
}

fn summary(dir: &Path) -> serde_json::Value {
    let bytes = std::fs::read(dir.join("summary.json"))
        .unwrap_or_else(|e| panic!("{}/summary.json: {e}", dir.display()));
    serde_json::from_slice(&bytes).unwrap()
}

/// The figures of a summary: what must not depend on how the run was split.
fn figures(summary: &serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "metrics": summary["metrics"],
        "intervals": summary["intervals"],
        "requests": summary["requests"],
        "counts": summary["counts"],
    })
}

fn command(cmd: &mut Command) -> Output {
    cmd.output().expect("the command runs")
}

#[test]
fn run_change_the_system_run_again_and_report_without_deleting_anything() {
    let lp = Loop::new(3);
    let system = editable();
    let names = lp.names(&system);
    assert!(names.len() >= 3, "{names:?}");
    lp.nextest("run-before", &system, &names, &[]);
    let first = lp.report(&[]);
    assert!(first.status.success(), "{}", crate::output_text(&first));
    let before = figures(&summary(&lp.reports));

    // The system's code changes; its description does not.
    let last = lp.nextest("run-after", &system, &names, &[("EDITABLE_FORGETS", "1")]);
    let out = crate::output_text(&last);
    assert!(
        out.contains(&format!("bemula report {}", lp.reports.display())),
        "a nextest process names the command that merges its run: {out}"
    );
    assert!(
        !lp.reports.join("summary.json").exists(),
        "the earlier run's reports do not stay in place looking current"
    );
    let pending = std::fs::read_to_string(lp.reports.join("summary.md")).unwrap();
    assert!(
        pending.contains("reports pending")
            && pending.contains("run-after")
            && pending.contains("bemula report"),
        "{pending}"
    );
    assert!(!lp.reports.join("report.html").exists());

    let second = lp.report(&[]);
    let text = crate::output_text(&second);
    assert!(second.status.success(), "{text}");
    assert!(
        text.lines().next().unwrap().contains(&format!(
            "complete: {} of {} expected requests present",
            names.len(),
            names.len()
        )),
        "{text}"
    );
    assert!(text.contains("2 cargo-nextest run(s) found"), "{text}");
    let picked: Vec<&str> = text
        .lines()
        .filter(|l| l.trim_start().starts_with("* "))
        .collect();
    assert_eq!(picked.len(), 1, "{text}");
    assert!(picked[0].contains("run-after"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("run-before") && !l.trim_start().starts_with('*')),
        "{text}"
    );
    let after = figures(&summary(&lp.reports));
    assert_ne!(
        before, after,
        "the change shows in the figures (else this test proves nothing)"
    );

    // The figures equal those of a plain run of the changed system.
    let plain = lp._tmp.path().join("plain");
    let run = lp.harness(&system, &plain, &[], &[("EDITABLE_FORGETS", "1")]);
    assert!(
        plain.join("summary.json").is_file(),
        "{}",
        crate::output_text(&run)
    );
    assert_eq!(after, figures(&summary(&plain)));

    // The earlier run stays reachable by id, whole or by its start.
    for id in ["run-before", "run-b"] {
        let again = lp.report(&["--run", id]);
        assert!(again.status.success(), "{}", crate::output_text(&again));
        assert_eq!(figures(&summary(&lp.reports)), before, "--run {id}");
    }
}

#[test]
fn a_filtered_run_is_reported_as_filtered_and_never_merged_with_older_runs() {
    let lp = Loop::new(2);
    let names = lp.names("transcript");
    assert!(names.len() >= 2, "{names:?}");
    lp.nextest("whole", "transcript", &names, &[]);
    lp.nextest("one-request", "transcript", &names[..1], &[]);
    let complete = format!("complete: {0} of {0}", names.len());

    // By default the newest complete run, with a word on the newer filtered one.
    let default = lp.report(&[]);
    let text = crate::output_text(&default);
    assert!(default.status.success(), "{text}");
    assert!(text.lines().next().unwrap().contains(&complete), "{text}");
    assert!(
        text.contains("newer run(s) are filtered (one-request)")
            && text.contains("--run one-request"),
        "{text}"
    );

    let latest = lp.report(&["--run", "latest"]);
    let text = crate::output_text(&latest);
    assert!(latest.status.success(), "{text}");
    let first = text.lines().next().unwrap();
    assert!(
        first.contains(&format!("INCOMPLETE: 1 of {}", names.len())) && !first.contains(&complete),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "this is a filtered run: 1 of the {} requests (cargo-nextest run one-request)",
            names.len()
        )),
        "{text}"
    );
    let md = std::fs::read_to_string(lp.reports.join("summary.md")).unwrap();
    assert!(md.contains("filtered run: 1 of the"), "{md}");
    let json = summary(&lp.reports);
    assert_eq!(json["requests"].as_array().unwrap().len(), 1);
    assert!(
        json["config"]["extra"]["selection"]
            .as_str()
            .unwrap()
            .contains("filtered run"),
        "{json}"
    );
}

#[test]
fn runs_of_different_configurations_are_refused_with_the_list_of_runs() {
    let lp = Loop::new(1);
    let names = lp.names("null");
    lp.nextest("with-null", "null", &names, &[]);
    lp.nextest("with-transcript", "transcript", &names, &[]);

    let all = lp.report(&["--run", "all"]);
    let text = crate::output_text(&all);
    assert_eq!(all.status.code(), Some(2), "{text}");
    assert!(text.contains("different configurations"), "{text}");
    assert!(text.contains("system: null"), "{text}");
    for run in ["with-null", "with-transcript"] {
        assert!(
            text.lines()
                .any(|l| l.contains(run) && l.contains("complete: ")),
            "the refusal lists {run} with its coverage: {text}"
        );
    }
    assert!(!lp.reports.join("summary.json").exists(), "nothing merged");

    // Picking one needs no cleaning up.
    let newest = lp.report(&[]);
    assert!(newest.status.success(), "{}", crate::output_text(&newest));
    assert_eq!(
        summary(&lp.reports)["config"]["system"]["name"],
        "transcript"
    );
    let older = lp.report(&["--run", "with-null"]);
    assert!(older.status.success(), "{}", crate::output_text(&older));
    assert_eq!(summary(&lp.reports)["config"]["system"]["name"], "null");

    // A run's parts directory is a report source of its own; the reports go to the
    // report directory above it.
    let one = command(
        crate::bemula_command()
            .arg("report")
            .arg(lp.reports.join("parts").join("with-transcript")),
    );
    assert!(one.status.success(), "{}", crate::output_text(&one));
    assert_eq!(
        summary(&lp.reports)["config"]["system"]["name"],
        "transcript"
    );
    assert!(
        !lp.reports
            .join("parts/with-transcript/summary.json")
            .exists()
    );

    let unknown = lp.report(&["--run", "with-nothing"]);
    let text = crate::output_text(&unknown);
    assert_eq!(unknown.status.code(), Some(2), "{text}");
    assert!(
        text.contains("no such run")
            && text.contains("with-null")
            && text.contains("with-transcript"),
        "{text}"
    );
    let ambiguous = lp.report(&["--run", "with-"]);
    let text = crate::output_text(&ambiguous);
    assert_eq!(ambiguous.status.code(), Some(2), "{text}");
    assert!(text.contains("2 runs"), "{text}");
}

#[test]
fn bless_under_nextest_happens_once_in_bemula_report() {
    let lp = Loop::new(2);
    let names = lp.names("null");
    let expected = lp._tmp.path().join("expected.txt");
    let expected_s = expected.to_str().unwrap();
    let last = lp.nextest(
        "bless",
        "null",
        &names,
        &[("BEMULA_EXPECTATIONS", expected_s), ("BEMULA_BLESS", "1")],
    );
    assert!(last.status.success(), "{}", crate::output_text(&last));
    assert!(
        !expected.exists(),
        "no process rewrites the expectations on its own"
    );
    let out = crate::output_text(&last);
    assert!(
        out.contains(&format!(
            "bemula report {} --expectations {expected_s} --bless",
            lp.reports.display()
        )),
        "{out}"
    );
    let bless = lp.report(&["--expectations", expected_s, "--bless"]);
    assert!(bless.status.success(), "{}", crate::output_text(&bless));
    let listed = bemula::harness::Expectations::read(&expected).unwrap();
    let failing: Vec<String> = summary(&lp.reports)["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["passed"] == false)
        .map(|r| {
            format!(
                "{}::{}::",
                r["instance"].as_str().unwrap(),
                r["request"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(listed.len(), failing.len(), "every failing request, once");
    assert!(!failing.is_empty(), "null fails its requests");
    assert!(
        failing
            .iter()
            .all(|prefix| listed.names().any(|n| n.starts_with(prefix))),
        "{failing:?}"
    );

    // The baseline likewise.
    let baseline = lp._tmp.path().join("baseline");
    let baseline_s = baseline.to_str().unwrap();
    let last = lp.nextest(
        "bless-baseline",
        "null",
        &names,
        &[
            ("BEMULA_BASELINE", baseline_s),
            ("BEMULA_BLESS_BASELINE", "1"),
        ],
    );
    let out = crate::output_text(&last);
    assert!(!baseline.exists(), "{out}");
    assert!(
        out.contains(&format!("--baseline {baseline_s} --bless-baseline")),
        "{out}"
    );
    let blessed = lp.report(&["--baseline", baseline_s, "--bless-baseline"]);
    assert!(blessed.status.success(), "{}", crate::output_text(&blessed));
    assert_eq!(figures(&summary(&baseline)), figures(&summary(&lp.reports)));
    let gated = lp.report(&["--baseline", baseline_s]);
    assert!(gated.status.success(), "{}", crate::output_text(&gated));
}

#[test]
fn processes_share_the_generated_data_through_a_cache_in_the_target_directory() {
    let target = tempfile::tempdir().unwrap();
    let reports = target.path().join("reports");
    let list = || {
        let out = command(
            crate::bemula_command()
                .args([
                    "test",
                    "--system",
                    "null",
                    "--data",
                    "generated",
                    "--report-dir",
                ])
                .arg(&reports)
                .args(["--", "--list"])
                .env("CARGO_TARGET_DIR", target.path()),
        );
        assert!(out.status.success(), "{}", crate::output_text(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = list();
    let cache = target.path().join("bemula/cache");
    let files: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("data-v2-s42-all-lite-"), "{name}");
    // A damaged cache file is passed by, not believed.
    std::fs::write(&files[0], b"{\"key\": 1}").unwrap();
    assert_eq!(list(), first);
    assert!(
        std::fs::read(&files[0]).unwrap().len() > 1000,
        "rewritten whole"
    );
    assert_eq!(list(), first, "read back from the cache");
}
