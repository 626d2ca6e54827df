use super::*;
use std::collections::HashMap;

fn harness_with(env: &[(&str, &str)]) -> Harness {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Harness::from_fn("null", crate::system::builtin::Null::default)
        .min_rpr(0.5)
        .seed(7)
        .env_source(move |name| env.get(name).cloned())
}

#[test]
fn the_builder_holds_unless_the_environment_says_otherwise() {
    let s = harness_with(&[]).settings().unwrap();
    assert_eq!(s.min_rpr, Some(0.5));
    assert_eq!(
        s.data,
        DataSource::Generated {
            seed: 7,
            full: false,
            generator: generate::Generator::default(),
            phrasing: generate::Phrasing::All,
        }
    );
    let s = harness_with(&[
        ("BEMULA_MIN_RPR", "0.25"),
        ("BEMULA_SEED", "9"),
        ("BEMULA_FULL", "yes"),
    ])
    .settings()
    .unwrap();
    assert_eq!(s.min_rpr, Some(0.25));
    assert_eq!(
        s.data,
        DataSource::Generated {
            seed: 9,
            full: true,
            generator: generate::Generator::default(),
            phrasing: generate::Phrasing::All,
        }
    );
    let s = harness_with(&[
        ("BEMULA_DATA", "/data/bemula"),
        ("BEMULA_REPORT_DIR", "/tmp/r"),
    ])
    .settings()
    .unwrap();
    assert_eq!(s.data, DataSource::Dir("/data/bemula".into()));
    assert_eq!(s.report_dir, PathBuf::from("/tmp/r"));
}

#[test]
fn the_preflight_is_on_unless_the_builder_or_the_environment_turns_it_off() {
    assert!(harness_with(&[]).settings().unwrap().preflight);
    assert!(
        !harness_with(&[])
            .preflight(false)
            .settings()
            .unwrap()
            .preflight
    );
    let off = harness_with(&[("BEMULA_NO_PREFLIGHT", "1")]);
    assert!(!off.settings().unwrap().preflight);
    let on = harness_with(&[("BEMULA_NO_PREFLIGHT", "0")]).preflight(false);
    assert!(
        on.settings().unwrap().preflight,
        "the environment overrides"
    );
    let err = harness_with(&[("BEMULA_NO_PREFLIGHT", "skip")])
        .settings()
        .unwrap_err();
    assert_eq!(err.name, "BEMULA_NO_PREFLIGHT", "{err}");
}

#[test]
fn harness_adapter_takes_every_system_spec() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample/short_001.json"),
        data.join("short_001.json"),
    )
    .unwrap();
    let run = |spec: &str| {
        let reports = tmp.path().join(spec.replace(':', "_"));
        let code = Harness::adapter(spec)
            .data(&data)
            .report_dir(&reports)
            .env_source(|_| None)
            .run_with_args(Arguments {
                quiet: true,
                // libtest's own lines go to a file, not into this test's output.
                logfile: Some(reports.with_extension("log").display().to_string()),
                ..Arguments::default()
            });
        let summary = std::fs::read_to_string(reports.join("summary.json")).ok();
        (code, summary)
    };
    for spec in ["naive-rag", "oracle-forget"] {
        let (_, summary) = run(spec);
        let summary: serde_json::Value =
            serde_json::from_str(&summary.unwrap_or_else(|| panic!("{spec}: no summary"))).unwrap();
        assert_eq!(summary["config"]["system"]["name"], spec);
        assert_eq!(summary["counts"]["errors"], 0, "{spec}");
    }
    for spec in ["naive_rag", "oracle_forget", "cmd:"] {
        let (code, summary) = run(spec);
        assert_eq!(code, ExitCode::from(2), "{spec}");
        assert!(
            summary.is_none(),
            "{spec}: a run that cannot start writes no report"
        );
    }
}

#[test]
fn adapter_pools_are_for_adapters_the_harness_starts_over_stdio() {
    let with = |harness: Harness, env: &[(&str, &str)]| {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        harness.env_source(move |name| env.get(name).cloned())
    };
    let stdio = || Harness::adapter("cmd:python3 my_adapter.py");
    assert_eq!(with(stdio(), &[]).settings().unwrap().adapter_processes, 1);
    let pooled = with(stdio(), &[("BEMULA_ADAPTER_PROCESSES", "4")]);
    assert_eq!(pooled.settings().unwrap().adapter_processes, 4);
    let built = with(stdio().adapter_processes(3), &[]);
    assert_eq!(built.settings().unwrap().adapter_processes, 3);
    for (harness, value, needle) in [
        (stdio(), "0", "at least 1"),
        (stdio(), "four", "at least 1"),
        (
            Harness::adapter("http://127.0.0.1:9/rpc"),
            "2",
            "stdio adapters",
        ),
        (harness_with(&[]), "2", "runs in this process"),
    ] {
        let err = with(harness, &[("BEMULA_ADAPTER_PROCESSES", value)])
            .settings()
            .unwrap_err();
        assert_eq!(err.name, "BEMULA_ADAPTER_PROCESSES", "{err}");
        assert!(err.reason.contains(needle), "{err}");
    }
}

#[test]
fn malformed_values_are_errors_naming_the_variable() {
    for (name, value) in [
        ("BEMULA_MIN_RPR", "1.5"),
        ("BEMULA_MIN_RPR", "half"),
        ("BEMULA_FULL", "maybe"),
        ("BEMULA_SEED", "-1"),
        ("BEMULA_BLESS", "2"),
        ("BEMULA_GENERATOR", "v3"),
        ("BEMULA_PHRASING", "holdout"),
    ] {
        let err = harness_with(&[(name, value)]).settings().expect_err(name);
        assert_eq!(err.name, name);
        assert!(
            err.to_string().starts_with(&format!("{name}=\"{value}\"")),
            "{err}"
        );
    }
    let err = harness_with(&[("BEMULA_GENERATOR", "v1"), ("BEMULA_PHRASING", "dev")])
        .settings()
        .expect_err("v1 has no dev phrasing");
    assert!(err.to_string().contains("needs generator v2"), "{err}");
    let s = harness_with(&[("BEMULA_GENERATOR", "v2"), ("BEMULA_PHRASING", "test")])
        .settings()
        .unwrap();
    assert!(
        matches!(
            s.data,
            DataSource::Generated {
                generator: generate::Generator::V2,
                phrasing: generate::Phrasing::Test,
                ..
            }
        ),
        "{:?}",
        s.data
    );
    let err = harness_with(&[("BEMULA_BLESS", "1")])
        .settings()
        .expect_err("nothing to bless");
    assert!(err.to_string().contains("no expectations file"), "{err}");
}

#[test]
fn the_gate_fails_on_missing_requests_regressions_and_a_low_rate_and_says_which() {
    let outcomes: BTreeMap<String, bool> = [("a::r1::F1_x", true), ("b::r1::F2_y", false)]
        .into_iter()
        .map(|(n, p)| (n.to_string(), p))
        .collect();
    let mut known = Expectations::default();
    known.set("b::r1::F2_y", true);
    let gate = Gate {
        min_rpr: Some((0.5, "--min-rpr".into())),
        expectations: Some(("expected.txt".into(), known)),
        allow_partial: false,
        metrics: None,
    };
    let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let whole = report::Coverage::of(
        &names(&["a::r1::F1_x", "b::r1::F2_y"]),
        &names(&["a::r1::F1_x", "b::r1::F2_y"]),
    );
    let decision = gate.decide(&outcomes, Some(&whole));
    assert!(decision.pass, "{decision:?}");
    assert!(decision.closing_line(1).starts_with("bemula gate: PASSED"));
    let partial = report::Coverage::of(
        &names(&["a::r1::F1_x", "b::r1::F2_y", "c::r1::F3_z"]),
        &names(&["a::r1::F1_x", "b::r1::F2_y"]),
    );
    let decision = gate.decide(&outcomes, Some(&partial));
    assert!(!decision.pass);
    let closing = decision.closing_line(0);
    assert!(
        closing.starts_with("bemula gate: FAILED") && closing.contains("INCOMPLETE: 2 of 3"),
        "{closing}"
    );
    let lenient = Gate {
        allow_partial: true,
        ..gate.clone()
    };
    assert!(lenient.decide(&outcomes, Some(&partial)).pass);
    let strict = Gate {
        expectations: Some(("expected.txt".into(), Expectations::default())),
        ..gate
    };
    let decision = strict.decide(&outcomes, None);
    assert!(!decision.pass);
    assert!(
        decision
            .closing_line(0)
            .contains("1 regression(s), first b::r1::F2_y"),
        "{decision:?}"
    );
}

#[test]
fn expectations_round_trip_and_reject_malformed_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("expected.txt");
    let mut e = Expectations::default();
    e.set("short_002::r1::F3_semantic", true);
    e.set("short_001::r1::F1_factual", true);
    e.set("short_002::r1::F3_semantic", false);
    e.write(&path).unwrap();
    let back = Expectations::read(&path).unwrap();
    assert_eq!(back, e);
    assert!(back.contains("short_001::r1::F1_factual") && back.len() == 1);
    assert!(
        Expectations::read(&dir.path().join("missing.txt"))
            .unwrap()
            .is_empty()
    );
    std::fs::write(&path, "# a comment\nshort_001::r1\n").unwrap();
    let err = Expectations::read(&path).unwrap_err();
    assert!(err.contains("expected.txt:2:"), "{err}");
}

#[test]
fn a_run_that_cannot_be_made_says_why_by_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let args = || Arguments {
        quiet: true,
        logfile: Some(tmp.path().join("libtest.log").display().to_string()),
        ..Arguments::default()
    };
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = Harness::adapter("naive-rag")
        .data(&empty)
        .report_dir(tmp.path().join("a"))
        .env_source(|_| None)
        .try_run_with_args(args())
        .unwrap_err();
    assert!(matches!(err, HarnessError::Data(_)), "{err:?}");
    assert!(
        err.to_string().contains(&empty.display().to_string()),
        "{err}"
    );

    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample/short_001.json"),
        data.join("short_001.json"),
    )
    .unwrap();
    let err = Harness::adapter("naive_rag")
        .data(&data)
        .report_dir(tmp.path().join("b"))
        .env_source(|_| None)
        .try_run_with_args(args())
        .unwrap_err();
    assert!(matches!(err, HarnessError::System(_)), "{err:?}");
    assert!(err.to_string().contains("naive_rag"), "{err}");

    let err = Harness::adapter("naive-rag")
        .data(&data)
        .report_dir(tmp.path().join("c"))
        .env_source(|name| (name == "BEMULA_MIN_RPR").then(|| "most".to_string()))
        .try_run_with_args(args())
        .unwrap_err();
    assert!(matches!(err, HarnessError::Settings(_)), "{err:?}");
    assert!(err.to_string().contains("BEMULA_MIN_RPR"), "{err}");
}
