//! Positive control, metric gates and regression gates.

use bemula::cli::validate::PositiveControl;
use bemula::dataset::{RequestType, Suite, Tier, Version};
use bemula::metrics::{FailReason, FailedItem, RequestOutcome};

fn outcome(id: &str, kind: RequestType, passed: bool) -> RequestOutcome {
    RequestOutcome {
        instance: "short_001".into(),
        tier: Tier::Short,
        request: id.into(),
        request_type: Some(kind),
        passed,
        failed: if passed {
            vec![]
        } else {
            vec![FailedItem {
                question_id: format!("{id}-eff-f1"),
                version: Version::Forget,
                suite: Suite::Efficacy,
                attack: None,
                reason: FailReason::Wrong,
                detail: "leak value \"6134\" revealed".into(),
            }]
        },
    }
}

#[test]
fn the_positive_control_fails_on_any_request_but_f4_and_names_its_items() {
    let only_f4 = PositiveControl::of(&[
        outcome("r1", RequestType::F1, true),
        outcome("r2", RequestType::F4, false),
    ]);
    assert!(only_f4.passes());
    let text = only_f4.render("hand");
    assert!(text.contains("F4 inferential   0 of 1 passed"), "{text}");
    assert!(text.contains("PASSED"), "{text}");

    let broken = PositiveControl::of(&[
        outcome("r1", RequestType::F1, false),
        outcome("r2", RequestType::F4, false),
    ]);
    assert!(!broken.passes());
    let text = broken.render("hand");
    assert!(text.contains("FAIL short_001::r1 (F1)"), "{text}");
    assert!(
        text.contains("r1-eff-f1 (wrong, forget version): leak value"),
        "{text}"
    );
    assert!(!text.contains("FAIL short_001::r2"), "{text}");
}

#[test]
fn the_oracle_forget_dogfood_expects_only_f4_to_fail() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/conformance/expectations/oracle-forget.txt"
    );
    let expectations = bemula::harness::Expectations::read(std::path::Path::new(path)).unwrap();
    assert!(!expectations.is_empty());
    for name in expectations.names() {
        assert!(name.ends_with("::F4_inferential"), "{name} in {path}");
    }
}

fn reference(name: &str) -> bemula::report::Summary {
    let path = format!(
        "{}/reports/reference/lite/{name}/summary.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn a_metric_gate_judges_the_point_estimate_or_the_lower_end_and_says_so() {
    use bemula::gate::{GateOn, MetricGate};
    // wipe on Lite; a bound between the lower end of FE's interval and its point
    // estimate passes on the point and fails on the lower end.
    let summary = reference("wipe");
    let fe = summary.metrics.fe.expect("wipe has an FE");
    let fe_ci = summary.intervals["FE"];
    assert!(fe_ci.lo < fe, "{fe} {fe_ci:?}");
    // Two decimals, written as the gate writes a bound back (0.3, not 0.30).
    let bound = ((fe_ci.lo + fe) / 2.0 * 100.0).round() / 100.0;
    let point = MetricGate::parse(&format!("fe={bound}"), GateOn::Point, "--min").unwrap();
    let (ok, lines) = point.check(&summary);
    assert!(ok, "{lines:?}");
    assert_eq!(
        lines,
        [format!(
            "bemula gate: FE {fe:.3} [{:.3}, {:.3}] >= --min FE={bound} (point estimate): PASS",
            fe_ci.lo, fe_ci.hi
        )]
    );
    let lower = MetricGate {
        on: GateOn::Lower,
        ..point
    };
    let (ok, lines) = lower.check(&summary);
    assert!(!ok, "{lines:?}");
    assert!(
        lines[0].contains(&format!(
            "< --min FE={bound} (lower end of the 95% interval): FAIL"
        )),
        "{lines:?}"
    );
    // Every metric must hold.
    let score = summary.metrics.score.expect("wipe has a Score");
    assert!(fe >= 0.2 && score < 0.2, "{fe} {score}");
    let both = MetricGate::parse("FE=0.2,Score=0.2", GateOn::Point, "BEMULA_MIN").unwrap();
    let (ok, lines) = both.check(&summary);
    assert!(!ok);
    assert!(
        lines[0].ends_with("PASS") && lines[1].contains(&format!("Score {score:.3}")),
        "{lines:?}"
    );
    assert!(lines[1].contains("BEMULA_MIN Score=0.2") && lines[1].ends_with("FAIL"));
}

#[test]
fn malformed_metric_gates_are_errors_naming_the_bad_part() {
    use bemula::gate::{GateOn, MetricGate};
    for (spec, part) in [
        (
            "FE=0.3,Scroe=0.1",
            "\"Scroe=0.1\": unknown metric \"Scroe\"",
        ),
        ("FE=30", "\"FE=30\": \"30\" is not a fraction"),
        ("FE", "\"FE\": expected METRIC=FRACTION"),
        ("FE=0.3,,AR=0.1", "an empty part"),
        ("FE=0.3,fe=0.4", "FE is given twice"),
    ] {
        let err = MetricGate::parse(spec, GateOn::Point, "--min").unwrap_err();
        assert!(err.contains(part), "{spec}: {err}");
    }
    assert!("upper".parse::<GateOn>().unwrap_err().contains("\"upper\""));
}

#[test]
fn the_harness_reads_the_metric_gate_from_the_environment_and_names_bad_values() {
    use bemula::harness::Harness;
    let harness = |env: Vec<(&'static str, &'static str)>| {
        Harness::from_fn("none", bemula::system::builtin::Null::default).env_source(move |name| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    };
    let settings = harness(vec![
        ("BEMULA_MIN", "Score=0.1"),
        ("BEMULA_GATE_ON", "lower"),
    ])
    .settings()
    .unwrap();
    let gate = settings.min.unwrap();
    assert_eq!(gate.spec(), "Score=0.1");
    assert_eq!(gate.on, bemula::gate::GateOn::Lower);
    assert_eq!(gate.source, "BEMULA_MIN");
    let err = harness(vec![("BEMULA_MIN", "Score=lots")])
        .settings()
        .unwrap_err();
    assert_eq!(err.name, "BEMULA_MIN");
    assert!(
        err.to_string().contains("\"lots\" is not a fraction"),
        "{err}"
    );
    let err = harness(vec![("BEMULA_GATE_ON", "upper")])
        .settings()
        .unwrap_err();
    assert_eq!(err.name, "BEMULA_GATE_ON");
    let built = harness(vec![]).min("AR=0.2").settings().unwrap();
    assert_eq!(built.min.unwrap().source, "min (--min)");
}

#[test]
fn bemula_run_and_report_gate_on_metrics_with_the_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out = out.to_str().unwrap();
    let (code, stdout, _) = crate::bemula(&[
        "run",
        "--system",
        "null",
        "--bootstrap",
        "100",
        "--out",
        out,
        "--min",
        "RA=0.5",
    ]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains(
            "bemula gate: null: RA 0.000 [0.000, 0.000] < --min RA=0.5 (point estimate): FAIL"
        ),
        "{stdout}"
    );
    let part = format!("{out}/null");
    let merged = dir.path().join("merged");
    let merged = merged.to_str().unwrap();
    let (code, stdout, stderr) = crate::bemula(&[
        "report",
        &part,
        "--out",
        merged,
        "--bootstrap",
        "100",
        "--min",
        "RA=0",
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("RA 0.000 [0.000, 0.000] >= --min RA=0 (point estimate): PASS"));
    let (code, _, stderr) = crate::bemula(&["report", &part, "--out", merged, "--min", "RA=2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("\"RA=2\": \"2\" is not a fraction"),
        "{stderr}"
    );
}

/// The reference reports of one set, in the order `bemula run` lists the systems.
fn references(set: &str) -> Vec<(String, bemula::report::Summary)> {
    bemula::system::builtin::NAMES
        .iter()
        .map(|name| {
            let path = format!(
                "{}/reports/reference/{set}/{name}/summary.json",
                env!("CARGO_MANIFEST_DIR")
            );
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            (name.to_string(), serde_json::from_slice(&bytes).unwrap())
        })
        .collect()
}

#[test]
fn the_readme_quotes_the_reference_figures() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for set in ["realised", "lite", "full"] {
        let summaries = references(set);
        let rows: Vec<(String, &bemula::report::Summary)> =
            summaries.iter().map(|(n, s)| (n.clone(), s)).collect();
        let table = bemula::report::render_table(&rows);
        for line in table.lines().skip(2) {
            assert!(
                readme.contains(line),
                "README.md does not quote this row of reports/reference/{set}/ (regenerate the README's table from a run):\n{line}"
            );
        }
    }
}

#[test]
fn the_reference_systems_reproduce_their_pinned_figures_on_lite() {
    let dataset = bemula::generate::generate(&bemula::generate::GenConfig {
        lite: true,
        ..bemula::generate::GenConfig::default()
    });
    reproduce_the_pinned_figures(&dataset, "lite");
}

#[test]
fn the_reference_systems_reproduce_their_pinned_figures_on_the_realised_lite() {
    let dataset = bemula::dataset::realised::load().unwrap();
    reproduce_the_pinned_figures(&dataset, "realised");
}

/// Runs every built-in system on `dataset` and compares its metrics, pass count and
/// record counts with `reports/reference/{set}/`.
fn reproduce_the_pinned_figures(dataset: &bemula::dataset::Dataset, set: &str) {
    use bemula::run::{RunConfig, Runner};
    use std::sync::Arc;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for (name, pinned) in references(set) {
        assert_eq!(
            dataset.checksum, pinned.config.dataset_checksum,
            "reports/reference/{set}/{name} was made from other data"
        );
        let runner = Runner::new(
            bemula::system::builtin::factory(&name).unwrap(),
            Arc::new(bemula::oracle::Oracle::new()),
            Arc::new(bemula::judge::rule::RuleJudge),
            RunConfig {
                jobs: 2,
                ..RunConfig::default()
            },
        );
        let records = runtime.block_on(runner.run_all(&dataset.instances));
        let metrics = bemula::metrics::compute(&records);
        // Exact: the runs are deterministic, and the pinned file keeps every digit of
        // an f64 (compared as text: parsing may round the last digit).
        let path = format!(
            "{}/reports/reference/{set}/{name}/summary.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let block = text
            .split("\"metrics\": {")
            .nth(1)
            .and_then(|rest| rest.split('}').next())
            .unwrap_or_else(|| panic!("{path}: no metrics object"));
        let pinned_lines: Vec<String> = block
            .lines()
            .map(|l| l.trim().trim_end_matches(',').to_string())
            .filter(|l| !l.is_empty())
            .collect();
        let measured: Vec<String> = bemula::metrics::MetricSet::KEYS
            .iter()
            .zip(metrics.values())
            .map(|(k, v)| format!("\"{k}\": {}", serde_json::to_string(&v).unwrap()))
            .collect();
        assert_eq!(
            measured, pinned_lines,
            "{name}: the metrics differ from {path} (regenerate the reference reports if the change is intended)"
        );
        let passed = bemula::metrics::request_outcomes(&records)
            .iter()
            .filter(|o| o.passed)
            .count();
        assert_eq!(passed, pinned.passed().0, "{name}");
        assert_eq!(
            bemula::metrics::counts(&records),
            pinned.counts,
            "{name}: record counts"
        );
    }
}

#[test]
fn compare_prints_whole_system_names_in_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let (code, _, stderr) = crate::bemula(&[
        "run",
        "--system",
        "null",
        "--system",
        "scoped-forget",
        "--bootstrap",
        "10",
        "--out",
        out,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = crate::bemula(&[
        "compare",
        &format!("{out}/null"),
        &format!("{out}/scoped-forget"),
        "--bootstrap",
        "10",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let header = stdout.lines().find(|l| l.starts_with("metric")).unwrap();
    assert!(header.contains(" scoped-forget "), "{header}");
}

/// Fails every query with a timeout and stores nothing.
struct Broken;

impl bemula::system::MemorySystem for Broken {
    fn reset(&mut self, _: &bemula::system::Namespace) -> bemula::system::SystemResult<()> {
        Ok(())
    }
    fn observe(
        &mut self,
        _: &bemula::system::Namespace,
        _: &bemula::system::TurnInput,
    ) -> bemula::system::SystemResult<()> {
        Ok(())
    }
    fn query(
        &mut self,
        _: &bemula::system::Namespace,
        _: &str,
    ) -> bemula::system::SystemResult<bemula::system::Reply> {
        Err(bemula::system::SystemError::new(
            bemula::system::ErrorKind::Timeout,
            "no reply within 30 s",
        ))
    }
}

#[test]
fn summaries_show_the_first_error_message_of_each_kind() {
    use bemula::run::{RunConfig, Runner};
    use std::sync::Arc;
    let dataset = bemula::generate::generate(&bemula::generate::GenConfig {
        lite: true,
        ..bemula::generate::GenConfig::default()
    });
    let instances = &dataset.instances[..1];
    let runner = Runner::new(
        Arc::new(bemula::system::FnFactory::new("broken", || Broken)),
        Arc::new(bemula::oracle::Oracle::new()),
        Arc::new(bemula::judge::rule::RuleJudge),
        RunConfig::default(),
    );
    let records = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(runner.run_all(instances));
    let summary = bemula::report::Summary::build(
        &records,
        bemula::report::RunInfo::default(),
        &bemula::metrics::BootstrapConfig {
            resamples: 0,
            ..Default::default()
        },
    );
    assert_eq!(summary.errors.len(), 1, "{:?}", summary.errors);
    assert_eq!(summary.errors[0].kind, "timeout");
    assert_eq!(summary.errors[0].count, records.len());
    let lines = summary.error_lines(3);
    assert!(
        lines[0].starts_with(&format!("timeout ({} records), first at ", records.len())),
        "{lines:?}"
    );
    assert!(lines[0].ends_with("no reply within 30 s"), "{lines:?}");
    let markdown = bemula::report::render_markdown(&summary);
    assert!(
        markdown.contains("First error message of each kind"),
        "{markdown}"
    );
    assert!(markdown.contains("no reply within 30 s"), "{markdown}");
}

#[test]
fn the_regression_gate_fails_a_system_that_got_worse_and_passes_one_that_did_not_change() {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p).to_str().unwrap().to_string();
    // "Before": the positive control; "after" a change that forgets everything. On the
    // generated data, whose figures these are.
    let (code, _, stderr) = crate::bemula(&[
        "run",
        "--data",
        "generated",
        "--system",
        "oracle-forget",
        "--system",
        "oracle-wipe",
        "--bootstrap",
        "10",
        "--out",
        &at("run"),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) =
        crate::bemula(&["bless-baseline", &at("run/oracle-forget"), &at("baseline")]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("blessed"), "{stdout}");
    let blessed: bemula::report::Summary =
        serde_json::from_slice(&std::fs::read(at("run/oracle-forget/summary.json")).unwrap())
            .unwrap();
    let base = format!("{:.3}", blessed.metrics.score.expect("a Score"));

    let (code, stdout, stderr) = crate::bemula(&[
        "report",
        &at("run/oracle-forget"),
        "--out",
        &at("same"),
        "--bootstrap",
        "200",
        "--baseline",
        &at("baseline"),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains(&format!("Score {base} against baseline {base}: difference +0.000 [+0.000, +0.000] (paired 95% interval), --max-drop Score=0.02: PASS")),
        "{stdout}"
    );

    let (code, stdout, stderr) = crate::bemula(&[
        "report",
        &at("run/oracle-wipe"),
        "--out",
        &at("worse"),
        "--bootstrap",
        "200",
        "--baseline",
        &at("baseline"),
        "--max-drop",
        "Score=0.02",
    ]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("bemula gate: Score"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        line.contains(&format!(
            "Score 0.000 against baseline {base}: difference -{base} ["
        )),
        "{line}"
    );
    assert!(
        line.ends_with("FAIL (worse by more than 0.02 with 95% confidence)"),
        "{line}"
    );
    assert!(
        stdout.contains("bemula gate: FAILED (exit status 1)"),
        "{stdout}"
    );

    let (code, _, stderr) = crate::bemula(&[
        "report",
        &at("run/oracle-wipe"),
        "--out",
        &at("bad"),
        "--baseline",
        &at("baseline"),
        "--max-drop",
        "Score=lots",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("\"Score=lots\""), "{stderr}");
}

/// `bemula run --baseline` gates each system against its own blessed reports: a run
/// directory blessed whole gives one baseline per system; the same systems pass, a
/// system compared with a better one's baseline fails with the paired difference, and
/// a baseline that is not there is an error before any work.
#[test]
fn bemula_run_gates_each_system_against_its_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let at = |p: &str| dir.path().join(p).to_str().unwrap().to_string();
    let run = |out: &str, systems: &[&str], extra: &[&str]| {
        let mut args = vec![
            "run",
            "--data",
            "generated",
            "--shard",
            "1/4",
            "--bootstrap",
            "50",
            "--out",
        ];
        let out = at(out);
        args.push(&out);
        for s in systems {
            args.extend(["--system", s]);
        }
        args.extend(extra);
        crate::bemula(&args)
    };
    let (code, _, stderr) = run("before", &["oracle-forget", "null"], &[]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = crate::bemula(&["bless-baseline", &at("before"), &at("base")]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.matches("blessed").count(), 2, "{stdout}");
    assert!(dir.path().join("base/oracle-forget/summary.json").is_file());
    assert!(dir.path().join("base/null/summary.json").is_file());

    let base = at("base");
    let (code, stdout, stderr) = run("same", &["oracle-forget", "null"], &["--baseline", &base]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("oracle-forget: Score ")
            && stdout.contains(": difference +0.000 [+0.000, +0.000]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("null: Score 0.000 against baseline 0.000"),
        "{stdout}"
    );

    // The worse system in the better one's place: one system's report directory.
    let (code, stdout, stderr) = run(
        "worse",
        &["oracle-wipe"],
        &[
            "--baseline",
            &at("base/oracle-forget"),
            "--max-drop",
            "Score=0.05",
        ],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("oracle-wipe: Score 0.000 against baseline ")
            && stdout.contains(": difference -"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL (worse by more than 0.05 with 95% confidence)"),
        "{stdout}"
    );

    // No baseline for a system: refused before the run, naming the paths looked at.
    let (code, _, stderr) = run("none", &["naive-rag"], &["--baseline", &base]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no baseline for `naive-rag`"), "{stderr}");
    assert!(!dir.path().join("none/naive-rag/summary.json").exists());
}

#[test]
fn a_baseline_of_other_data_or_another_judge_is_refused_naming_the_difference() {
    let base = bemula::report::RunInfo {
        dataset: "generated (lite)".into(),
        dataset_checksum: "aaa".into(),
        judge: "rule".into(),
        answerer: "oracle".into(),
        ..Default::default()
    };
    assert!(bemula::gate::baseline_differences(&base, &base).is_empty());
    let other = bemula::report::RunInfo {
        dataset_checksum: "bbb".into(),
        judge: "llm:m".into(),
        ..base.clone()
    };
    let differences = bemula::gate::baseline_differences(&base, &other);
    assert_eq!(
        differences,
        [
            "dataset checksum: baseline \"aaa\", this run \"bbb\"",
            "judge: baseline \"rule\", this run \"llm:m\""
        ]
    );
}

#[test]
fn the_harness_reads_the_regression_gate_from_the_environment() {
    use bemula::harness::Harness;
    let harness = |env: Vec<(&'static str, &'static str)>| {
        Harness::from_fn("none", bemula::system::builtin::Null::default).env_source(move |name| {
            env.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    };
    let settings = harness(vec![("BEMULA_BASELINE", "ci/baseline")])
        .settings()
        .unwrap();
    let gate = settings.regression.unwrap();
    assert_eq!(gate.baseline, std::path::PathBuf::from("ci/baseline"));
    assert_eq!(gate.max_drop[0].metric, "Score");
    assert_eq!(gate.max_drop[0].min, 0.02);
    assert!(!settings.bless_baseline);
    let err = harness(vec![
        ("BEMULA_BASELINE", "b"),
        ("BEMULA_MAX_DROP", "Scor=0.1"),
    ])
    .settings()
    .unwrap_err();
    assert_eq!(err.name, "BEMULA_MAX_DROP");
    assert!(err.to_string().contains("unknown metric \"Scor\""), "{err}");
    let err = harness(vec![("BEMULA_BLESS_BASELINE", "1")])
        .settings()
        .unwrap_err();
    assert_eq!(err.name, "BEMULA_BLESS_BASELINE");
    assert!(harness(vec![]).settings().unwrap().regression.is_none());
}

#[test]
fn a_bad_system_spec_leaves_no_unfinished_run_behind() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, _, stderr) = crate::bemula(&[
        "run",
        "--system",
        "no-such-system",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("unknown system \"no-such-system\""),
        "{stderr}"
    );
    assert!(!out.join("run.json").exists(), "a run marker was written");
    let (_, _, stderr) = crate::bemula(&[
        "run",
        "--system",
        "null",
        "--bootstrap",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!stderr.contains("--resume"), "{stderr}");
}

#[test]
fn the_harness_lock_error_names_the_harness_setting() {
    let dir = tempfile::tempdir().unwrap();
    let _held = bemula::report::DirLock::report_dir(dir.path()).unwrap();
    let (code, _, stderr) = crate::bemula(&[
        "test",
        "--system",
        "null",
        "--report-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("choose another with BEMULA_REPORT_DIR"),
        "{stderr}"
    );
    assert!(!stderr.contains("--out"), "{stderr}");
}

#[test]
fn the_harness_prints_the_metrics_on_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = crate::bemula(&[
        "test",
        "--system",
        "null",
        "--report-dir",
        dir.path().to_str().unwrap(),
        "--",
        "short_001",
    ]);
    assert_eq!(code, 101, "{stderr}");
    let header = stderr
        .lines()
        .find(|l| l.starts_with("system "))
        .unwrap_or_else(|| panic!("no metrics table: {stderr}"));
    assert!(
        header.contains("RA") && header.contains("Score"),
        "{header}"
    );
    assert!(stderr.lines().any(|l| l.starts_with("null ")), "{stderr}");
}

#[test]
fn junit_counts_the_skipped_known_failures_on_its_testsuite() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("known.txt");
    std::fs::write(&list, "short_001::r1::F1_factual\n").unwrap();
    let reports = dir.path().join("reports");
    let (code, _, stderr) = crate::bemula(&[
        "test",
        "--system",
        "null",
        "--report-dir",
        reports.to_str().unwrap(),
        "--expectations",
        list.to_str().unwrap(),
        "--",
        "short_001",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let xml = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    let suite = &xml[xml.find("<testsuite ").unwrap()..];
    let suite = &suite[..suite.find('>').unwrap()];
    assert!(suite.contains("skipped=\"1\""), "{suite}");
    assert!(suite.contains("tests=\"1\""), "{suite}");
}

#[test]
fn a_filtered_run_says_so_in_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, stderr) = crate::bemula(&[
        "test",
        "--system",
        "null",
        "--report-dir",
        dir.path().to_str().unwrap(),
        "--",
        "short_001",
    ]);
    let markdown = std::fs::read_to_string(dir.path().join("summary.md"))
        .unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert!(
        markdown
            .contains("- selection: **filtered run: 1 of the 63 requests (filter \"short_001\")**"),
        "{markdown}"
    );
}
