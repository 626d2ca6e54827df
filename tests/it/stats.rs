//! Integration tests: stats.
//!
//! `stats::compute` on the hand-written fixture (figures counted by hand) and on a
//! small multi-tier dataset built from it; `bemula stats` as a program, in text and JSON.

use crate::bemula;
use bemula::dataset::stats::{self, Stats};
use bemula::dataset::{Dataset, Instance, Session, Suite, Tier, Turn};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn valid_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/valid")
}

fn fixture() -> Instance {
    Dataset::load(&valid_dir())
        .expect("the valid fixture loads")
        .instances
        .remove(0)
}

/// The counts under `key`, sorted by name (a `Value` does not keep key order).
fn counts(stats_json: &Value, key: &str) -> Vec<(String, u64)> {
    let mut counts: Vec<(String, u64)> = stats_json[key]
        .as_object()
        .unwrap_or_else(|| panic!("{key} is an object"))
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    counts.sort();
    counts
}

/// Expected counts, sorted by name.
fn pairs(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    let mut pairs: Vec<(String, u64)> = list.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    pairs.sort();
    pairs
}

#[test]
fn the_fixture_figures_are_counted_right() {
    let instance = fixture();
    let chars: usize = instance
        .sessions
        .iter()
        .flat_map(|s| &s.turns)
        .map(|t| t.user.chars().count() + t.assistant.chars().count())
        .sum();
    let s: Stats = stats::compute(&Dataset::from_instances(vec![instance], "fixture"));
    assert_eq!(
        (s.instances, s.sessions, s.turns, s.requests, s.questions),
        (1, 3, 13, 3, 26)
    );
    assert_eq!(s.tokens, chars / 4);
    // The paper's order, kept in the serialised JSON too.
    let suites: Vec<&str> = s.questions_by_suite.keys().collect();
    assert_eq!(
        suites,
        [
            "retention",
            "efficacy",
            "preservation",
            "relearning",
            "attack"
        ]
    );
    let text = serde_json::to_string(&s.questions_by_suite).unwrap();
    assert!(
        text.starts_with(r#"{"retention":3,"efficacy":3,"#),
        "{text}"
    );
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(
        counts(&json, "requests_by_type"),
        pairs(&[
            ("F1", 1),
            ("F2", 0),
            ("F3", 0),
            ("F4", 1),
            ("F5", 0),
            ("F6", 1)
        ])
    );
    assert_eq!(
        counts(&json, "questions_by_suite"),
        pairs(&[
            ("retention", 3),
            ("efficacy", 3),
            ("preservation", 3),
            ("relearning", 2),
            ("attack", 15)
        ])
    );
    assert_eq!(
        counts(&json, "attacks_by_type"),
        pairs(&[
            ("indirect", 3),
            ("role_play", 3),
            ("jailbreak", 3),
            ("boolean", 3),
            ("multi_hop", 3)
        ])
    );
    assert_eq!(
        counts(&json, "requests_by_style"),
        pairs(&[
            ("direct", 2),
            ("polite", 0),
            ("imperative", 1),
            ("indirect", 0),
            ("implicit", 0)
        ])
    );
    // f08 (penicillin) is mentioned in s01 t2 and s02 t2 before r1; f04 (Thai food) in
    // s01 t3 and s02 t4 before r2; d01 is derived.
    let m = &s.mentions;
    assert_eq!((m.targets, m.min, m.max, m.derived_targets), (2, 2, 2, 1));
    assert!((m.mean - 2.0).abs() < 1e-9);
    assert_eq!(
        (m.never_mentioned, m.multi_target_requests, m.total_targets),
        (0, 0, 3)
    );
    let f = &s.facts;
    assert_eq!((f.atomic, f.derived, f.timestamped), (8, 1, 3));
    assert_eq!(
        f.by_sensitivity.0,
        vec![
            ("low".to_string(), 4),
            ("medium".to_string(), 3),
            ("high".to_string(), 2)
        ]
    );
    assert_eq!(f.categories_per_profile.max, 6);
    // 2025-01-10 to 2025-02-02.
    assert_eq!(s.dialogue_days.max, 23);
    let short = s.tiers.get("short").unwrap();
    assert_eq!(
        (short.instances, short.turns.min, short.turns.max),
        (1, 13, 13)
    );
    assert_eq!(s.tiers.get("xlong").unwrap().instances, 0);
}

#[test]
fn tiers_report_ranges_over_their_instances() {
    let base = fixture();
    let mut bigger = base.clone();
    bigger.id = "fixture_002".into();
    bigger.sessions.push(Session {
        id: "s04".into(),
        date: "2025-03-01".into(),
        scenario: "A spring trip".into(),
        turns: vec![
            Turn {
                user: "Let's plan a trip.".into(),
                assistant: "Where to?".into(),
                mentions: vec![],
            };
            5
        ],
    });
    let mut medium = base.clone();
    medium.id = "fixture_003".into();
    medium.tier = Tier::Medium;
    medium.requests.pop();
    let s = stats::compute(&Dataset::from_instances(
        vec![base, bigger, medium],
        "three",
    ));
    let short = s.tiers.get("short").unwrap();
    assert_eq!(short.instances, 2);
    assert_eq!(
        (short.sessions.min, short.sessions.max, short.sessions.total),
        (3, 4, 7)
    );
    assert_eq!((short.turns.min, short.turns.max), (13, 18));
    assert!((short.turns.mean - 15.5).abs() < 1e-9);
    let medium = s.tiers.get("medium").unwrap();
    assert_eq!((medium.instances, medium.requests.max), (1, 2));
    assert_eq!(
        (s.instances, s.sessions, s.turns, s.requests),
        (3, 10, 44, 8)
    );
    let by_tier = &s.requests_by_tier_and_type;
    assert_eq!(by_tier.get("short").unwrap().get("F4"), Some(&2));
    assert_eq!(by_tier.get("medium").unwrap().get("F4"), Some(&0));
    assert_eq!(by_tier.get("medium").unwrap().get("F6"), Some(&1));

    let text = stats::render_text(&s);
    for needle in [
        "3 instances, 10 sessions, 44 turns per version",
        "F4 inferential",
        "Requests by style",
        "Questions by suite",
        "Attack questions by type",
        "Target mentions before their request: min 2, mean 2.0, max 2",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    let short_row = text
        .lines()
        .find(|l| l.starts_with("short "))
        .expect("a short row");
    assert!(
        short_row.contains("3–4") && short_row.contains("13–18"),
        "{short_row}"
    );
}

#[test]
fn the_stats_command_prints_tables_and_json() {
    let dir = valid_dir();
    let (code, out, err) = bemula(&["stats", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("By tier"), "{out}");
    assert!(out.contains("Requests by type and tier"), "{out}");

    let (code, out, err) = bemula(&["stats", "--json", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).expect("--json prints one JSON object");
    for key in [
        "instances",
        "sessions",
        "turns",
        "requests_by_type",
        "questions_by_suite",
        "tiers",
    ] {
        assert!(json.get(key).is_some(), "missing {key}: {out}");
    }
    assert_eq!(json["instances"], 1);
    assert_eq!(json["turns"], 13);
    assert_eq!(json["tiers"]["short"]["instances"], 1);
    let tiers: Vec<&str> = json["tiers"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(tiers.len(), 4);
}

#[test]
fn the_stats_command_reports_bad_data() {
    let (code, _, err) = bemula(&["stats", "/no/such/dataset"]);
    assert_eq!(code, 2);
    assert!(err.contains("/no/such/dataset: cannot read"), "{err}");
}

/// The measure names of `bemula stats --fidelity --json`, in order.
const FIDELITY_MEASURES: [&str; 25] = [
    "distinct_4_user",
    "distinct_1_user",
    "distinct_2_user",
    "distinct_3_user",
    "distinct_4_assistant",
    "distinct_1_assistant",
    "distinct_2_assistant",
    "distinct_3_assistant",
    "repeated_user_sentences",
    "cross_instance_sentences",
    "request_tell_coverage",
    "confirmation_tell_coverage",
    "confirmation_distinct",
    "confirmation_top_share",
    "request_fixed_strings",
    "request_length_auc",
    "filler_length_auc",
    "requests_restating_value",
    "question_disclosure_overlap",
    "relearning_differs",
    "multi_hop_contains_retention",
    "deletion_words",
    "assistant_restates_value",
    "persona_contradictions",
    "shared_identifying_values",
];

/// Checks the shape of `--fidelity --json` output and returns its measures.
fn fidelity_measures(out: &str) -> Vec<Value> {
    let json: Value = serde_json::from_str(out).expect("--fidelity --json prints one JSON object");
    let measures = json["measures"]
        .as_array()
        .expect("a measures array")
        .clone();
    let names: Vec<&str> = measures
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, FIDELITY_MEASURES);
    for m in &measures {
        assert!(
            !m["definition"].as_str().unwrap().is_empty(),
            "{m}: a definition"
        );
        let value = m["value"]
            .as_f64()
            .unwrap_or_else(|| panic!("{m}: a value"));
        assert!((0.0..=1.0).contains(&value), "{m}");
        let has_target = !m["target"].is_null();
        assert_eq!(m["met"].is_boolean(), has_target, "{m}");
        if has_target {
            let op = m["target"]["op"].as_str().unwrap();
            assert!(op == ">=" || op == "<=" || op == "in", "{m}");
            // Only an interval has an upper bound, above its lower one.
            let upper = m["target"]["upper"].as_f64();
            assert_eq!(upper.is_some(), op == "in", "{m}");
            assert!(upper.is_none_or(|u| u > m["target"]["value"].as_f64().unwrap()));
        }
        if let (Some(count), Some(total)) = (m["count"].as_u64(), m["total"].as_u64()) {
            assert!((value - count as f64 / total as f64).abs() < 1e-9, "{m}");
        }
    }
    assert_eq!(json["sample_tokens"], 50_000);
    measures
}

fn measure<'a>(measures: &'a [Value], name: &str) -> &'a Value {
    measures.iter().find(|m| m["name"] == name).unwrap()
}

#[test]
fn fidelity_measures_the_hand_written_set_as_real_dialogue() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/handwritten");
    let (code, out, err) = bemula(&["stats", "--fidelity", "--json", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let measures = fidelity_measures(&out);
    assert!(
        measure(&measures, "distinct_4_user")["value"]
            .as_f64()
            .unwrap()
            > 0.95
    );
    assert_eq!(measure(&measures, "repeated_user_sentences")["value"], 0.0);
    assert_eq!(measure(&measures, "cross_instance_sentences")["value"], 0.0);
    // Hand-written data meets every target but the two on exchange length (its
    // requests are written longer than its ordinary exchanges, its fillers shorter)
    // and the two surface tells: with 23 requests beside 264 ordinary turns, a word two
    // requests share is easily one no ordinary turn holds.
    let (code, out, err) = bemula(&["stats", "--fidelity", "--check", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains(
            "fidelity targets missed: request_tell_coverage, confirmation_tell_coverage, \
             request_length_auc, filler_length_auc\n"
        ),
        "{err}"
    );
    assert!(out.contains("13 of 17 targets met"), "{out}");
    assert!(measure(&measures, "deletion_words")["met"] == true);
}

#[test]
fn fidelity_measures_the_generated_set_and_prints_a_table() {
    let (code, out, err) = bemula(&["stats", "--fidelity", "--lite", "--json"]);
    assert_eq!(code, 0, "{err}");
    let measures = fidelity_measures(&out);
    let distinct = measure(&measures, "distinct_4_user");
    assert_eq!(distinct["target"]["op"], ">=");
    assert_eq!(distinct["target"]["value"], 0.85);
    let auc = measure(&measures, "request_length_auc");
    assert_eq!(auc["target"]["op"], "in");
    assert_eq!(
        (
            auc["target"]["value"].as_f64(),
            auc["target"]["upper"].as_f64()
        ),
        (Some(0.3), Some(0.7))
    );
    // The generated set meets the length, deletion-word and fixed-string targets;
    // `--check` fails exactly when the report marks a measure as missed (Lite's 63
    // requests miss the surface tells, which the whole set meets) and names them.
    let (code, out, err) = bemula(&["stats", "--fidelity", "--lite", "--check"]);
    let missed: Vec<&str> = measures
        .iter()
        .filter(|m| m["met"] == false)
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    if missed.is_empty() {
        assert_eq!(code, 0, "{out}{err}");
    } else {
        assert_eq!(code, 1, "{out}{err}");
        assert!(
            err.contains(&format!("fidelity targets missed: {}\n", missed.join(", "))),
            "{missed:?}: {err}"
        );
    }
    for name in [
        "request_length_auc",
        "deletion_words",
        "request_fixed_strings",
    ] {
        assert_eq!(measure(&measures, name)["met"], true, "{name}");
    }

    let (code, out, err) = bemula(&["stats", "--fidelity"]);
    assert_eq!(code, 0, "a report exits 0 without --check: {err}");
    assert!(
        out.starts_with(
            "Fidelity of generated (seed 42, generator v2, phrasing all): 50 instances"
        ),
        "{out}"
    );
    let header = out.lines().find(|l| l.starts_with("measure")).unwrap();
    for column in ["value", "count", "target", "met"] {
        assert!(header.contains(column), "{header}");
    }
    for name in FIDELITY_MEASURES {
        let row = out
            .lines()
            .position(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} row: {out}"));
        let definition = out.lines().nth(row + 1).unwrap();
        assert!(
            definition.starts_with("    ") && definition.len() > 20,
            "{definition}"
        );
    }
}

#[test]
fn fidelity_check_fails_on_a_missed_target() {
    // The fixture with every relearning question worded as its retention question.
    let mut instance = fixture();
    let retention: Vec<(String, String)> = instance
        .questions
        .iter()
        .filter(|q| q.suite == Suite::Retention)
        .map(|q| (q.fact.clone(), q.text.clone()))
        .collect();
    for q in &mut instance.questions {
        if q.suite == Suite::Relearning {
            q.text = retention
                .iter()
                .find(|(f, _)| *f == q.fact)
                .unwrap()
                .1
                .clone();
        }
    }
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("data");
    Dataset::from_instances(vec![instance], "test")
        .write(&dir)
        .unwrap();
    let (code, out, err) = bemula(&["stats", "--fidelity", "--check", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    // The fixture's requests are shorter than its ordinary exchanges, no ordinary turn
    // uses a deletion word, and its few requests share words its ordinary turns lack:
    // those are missed with or without the change.
    assert!(
        err.contains(
            "fidelity targets missed: request_tell_coverage, confirmation_tell_coverage, \
             request_length_auc, relearning_differs, deletion_words\n"
        ),
        "{err}"
    );
    assert!(out.contains("12 of 17 targets met"), "{out}");
    // Without --check the same report exits 0.
    let (code, _, err) = bemula(&["stats", "--fidelity", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");

    let (code, _, err) = bemula(&["stats", "--check"]);
    assert_eq!(code, 2);
    assert!(err.contains("--fidelity"), "{err}");
    let (code, _, err) = bemula(&["stats", "--fidelity", "--sample-tokens", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--sample-tokens"), "{err}");
}
