//! Integration tests: validate.
//!
//! One hand-written valid instance (`tests/fixtures/valid/`) is broken in one place per
//! case and the validator must report that place; raw-bytes fixtures
//! (`tests/fixtures/bad/`) and generated mutations check that bad input never panics and
//! is reported with the file, the JSON path and a reason; `bemula validate` is run as a
//! program; the JSON Schema in `data/` is checked against the serde types.

use crate::bemula;
use bemula::dataset::validate::{self, Problem};
use bemula::dataset::{DataError, Dataset, Instance, parse_instance};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn valid_path() -> PathBuf {
    fixtures().join("valid/fixture_001.json")
}

fn fixture() -> Value {
    let bytes = std::fs::read(valid_path()).expect("the valid fixture is readable");
    serde_json::from_slice(&bytes).expect("the valid fixture is JSON")
}

fn problems_of(value: &Value) -> Vec<Problem> {
    let instance: Instance =
        serde_json::from_value(value.clone()).expect("a mutated fixture still parses");
    validate::validate_instance(Path::new("case.json"), &instance)
}

fn render(problems: &[Problem]) -> String {
    if problems.is_empty() {
        return "    (no problems)".into();
    }
    problems
        .iter()
        .map(|p| format!("    {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Sets the value at a JSON pointer, adding the last key to its object when missing.
fn set(v: &mut Value, pointer: &str, new: Value) {
    if let Some(slot) = v.pointer_mut(pointer) {
        *slot = new;
        return;
    }
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    v.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("fixture has no object {parent}"))
        .insert(key.to_string(), new);
}

fn remove(v: &mut Value, pointer: &str) {
    let (parent, key) = pointer.rsplit_once('/').expect("pointer has a parent");
    v.pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("fixture has no object {parent}"))
        .remove(key)
        .unwrap_or_else(|| panic!("fixture has no {pointer}"));
}

type Mutation = fn(&mut Value);

/// One broken invariant: a name, how to break the fixture, and the JSON path and a
/// fragment of the reason that must be reported.
struct Case {
    name: &'static str,
    mutate: Mutation,
    path: &'static str,
    reason: &'static str,
}

const fn case(
    name: &'static str,
    mutate: Mutation,
    path: &'static str,
    reason: &'static str,
) -> Case {
    Case {
        name,
        mutate,
        path,
        reason,
    }
}

fn cases() -> Vec<Case> {
    vec![
        // Ids.
        case(
            "instance id charset",
            |v| set(v, "/id", json!("short 003!")),
            ".id",
            "only ASCII letters",
        ),
        case(
            "instance id empty",
            |v| set(v, "/id", json!("")),
            ".id",
            "empty",
        ),
        case(
            "unknown format",
            |v| set(v, "/format", json!("bemula-instance/9")),
            ".format",
            "unknown format",
        ),
        case(
            "fact id shared with derived",
            |v| set(v, "/profile/derived_facts/0/id", json!("f01")),
            ".profile.derived_facts[0].id",
            "used twice",
        ),
        case(
            "atomic fact id twice",
            |v| set(v, "/profile/facts/1/id", json!("f01")),
            ".profile.facts[1].id",
            "used twice",
        ),
        case(
            "session id twice",
            |v| set(v, "/sessions/1/id", json!("s01")),
            ".sessions[1].id",
            "used twice",
        ),
        case(
            "request id twice",
            |v| set(v, "/requests/1/id", json!("r1")),
            ".requests[1].id",
            "used twice",
        ),
        case(
            "question id twice",
            |v| set(v, "/questions/1/id", json!("q01")),
            ".questions[1].id",
            "used twice",
        ),
        // References.
        case(
            "mention dangles",
            |v| set(v, "/sessions/0/turns/0/mentions/0", json!("f99")),
            ".sessions[0].turns[0].mentions[0]",
            "not a fact id",
        ),
        case(
            "mention of a derived fact",
            |v| set(v, "/sessions/0/turns/3/mentions", json!(["f06", "d01"])),
            ".sessions[0].turns[3].mentions[1]",
            "derived facts are never stated",
        ),
        case(
            "target dangles",
            |v| set(v, "/requests/0/targets/0", json!("f99")),
            ".requests[0].targets[0]",
            "not a fact id",
        ),
        case(
            "F4 targets an atomic fact",
            |v| set(v, "/requests/2/targets/0", json!("f01")),
            ".requests[2].targets[0]",
            "targets one derived fact",
        ),
        case(
            "F1 targets a derived fact",
            |v| set(v, "/requests/0/targets/0", json!("d01")),
            ".requests[0].targets[0]",
            "only F4 requests target derived facts",
        ),
        case(
            "target listed twice",
            |v| {
                set(v, "/requests/0/type", json!("F2"));
                set(v, "/requests/0/targets", json!(["f08", "f08"]));
            },
            ".requests[0].targets[1]",
            "listed twice",
        ),
        case(
            "derived fact with one source",
            |v| set(v, "/profile/derived_facts/0/sources", json!(["f01"])),
            ".profile.derived_facts[0].sources",
            "at least 2 atomic facts",
        ),
        case(
            "derived source dangles",
            |v| set(v, "/profile/derived_facts/0/sources/1", json!("f99")),
            ".profile.derived_facts[0].sources[1]",
            "not a fact id",
        ),
        case(
            "derived source is derived",
            |v| set(v, "/profile/derived_facts/0/sources/1", json!("d01")),
            ".profile.derived_facts[0].sources[1]",
            "atomic facts only",
        ),
        case(
            "atomic fact with sources",
            |v| set(v, "/profile/facts/0/sources", json!(["f02", "f03"])),
            ".profile.facts[0].sources",
            "only derived facts",
        ),
        case(
            "question fact dangles",
            |v| set(v, "/questions/0/fact", json!("f99")),
            ".questions[0].fact",
            "not a fact id",
        ),
        case(
            "question request dangles",
            |v| set(v, "/questions/0/request", json!("r9")),
            ".questions[0].request",
            "not a request id",
        ),
        case(
            "conditioned_on dangles",
            |v| set(v, "/questions/1/conditioned_on", json!("q99")),
            ".questions[1].conditioned_on",
            "not a question id",
        ),
        case(
            "position session dangles",
            |v| set(v, "/requests/0/position/session", json!("s09")),
            ".requests[0].position.session",
            "not a session id",
        ),
        case(
            "position turn out of range",
            |v| set(v, "/requests/0/position/turn", json!(99)),
            ".requests[0].position.turn",
            "out of range",
        ),
        case(
            "two requests at one position",
            |v| set(v, "/requests/2/position/turn", json!(1)),
            ".requests[2].position",
            "already stands",
        ),
        // The two versions.
        case(
            "request turn is not the session turn",
            |v| set(v, "/requests/0/turn/user", json!("Forget my allergy.")),
            ".requests[0].turn.user",
            "exact copy",
        ),
        case(
            "request confirmation is not the session turn",
            |v| set(v, "/sessions/1/turns/3/assistant", json!("Sure.")),
            ".requests[0].turn.assistant",
            "exact copy",
        ),
        case(
            "filler identical to the request",
            |v| {
                let turn = v["requests"][0]["turn"].clone();
                set(v, "/requests/0/filler", turn);
            },
            ".requests[0].filler",
            "identical",
        ),
        case(
            "filler repeats the request",
            |v| {
                let user = v["requests"][0]["turn"]["user"].clone();
                set(v, "/requests/0/filler/user", user);
            },
            ".requests[0].filler.user",
            "repeats",
        ),
        // Mentions before the request.
        case(
            "target mentioned after its request",
            |v| set(v, "/sessions/2/turns/3/mentions", json!(["f08"])),
            ".sessions[2].turns[3].mentions[0]",
            "only before their request",
        ),
        case(
            "request turn mentions its target",
            |v| set(v, "/sessions/1/turns/3/mentions", json!(["f08"])),
            ".sessions[1].turns[3].mentions[0]",
            "only before their request",
        ),
        // F4 values.
        case(
            "F4 value in a turn",
            |v| {
                set(
                    v,
                    "/sessions/0/turns/1/assistant",
                    json!("Six Years of shifts is a lot."),
                )
            },
            ".sessions[0].turns[1].assistant",
            "never be stated",
        ),
        case(
            "F4 value in a filler",
            |v| {
                set(
                    v,
                    "/requests/0/filler/assistant",
                    json!("I stretched for six years."),
                )
            },
            ".requests[0].filler.assistant",
            "never be stated",
        ),
        case(
            "F4 value in its own request",
            |v| {
                let t = json!("Forget that I have lived here six years.");
                set(v, "/sessions/2/turns/2/user", t.clone());
                set(v, "/requests/2/turn/user", t);
            },
            ".sessions[2].turns[2].user",
            "never be stated",
        ),
        // Confirmations and fillers.
        case(
            "confirmation restates the target",
            |v| {
                let t = json!("Done, I removed your PENICILLIN allergy.");
                set(v, "/sessions/1/turns/3/assistant", t.clone());
                set(v, "/requests/0/turn/assistant", t);
            },
            ".requests[0].turn.assistant",
            "confirmation contains",
        ),
        case(
            "filler user text holds the target",
            |v| {
                set(
                    v,
                    "/requests/1/filler/user",
                    json!("Any good thai food recipes?"),
                )
            },
            ".requests[1].filler.user",
            "filler contains",
        ),
        case(
            "filler reply holds the target",
            |v| {
                set(
                    v,
                    "/requests/0/filler/assistant",
                    json!("Unlike penicillin, stretching is free."),
                )
            },
            ".requests[0].filler.assistant",
            "filler contains",
        ),
        // Golds.
        case(
            "empty gold",
            |v| set(v, "/questions/0/gold", json!(" ")),
            ".questions[0].gold",
            "empty",
        ),
        case(
            "FORGOTTEN on retention",
            |v| set(v, "/questions/0/gold", json!("[FORGOTTEN]")),
            ".questions[0].gold",
            "not allowed",
        ),
        case(
            "FORGOTTEN on F6 efficacy",
            |v| {
                set(v, "/questions/9/gold", json!("[FORGOTTEN]"));
                set(v, "/questions/9/accepted", json!([]));
                set(v, "/questions/9/leak", json!(["Thai food"]));
            },
            ".questions[9].gold",
            "not allowed",
        ),
        case(
            "efficacy without its marker",
            |v| {
                set(v, "/questions/1/gold", json!("penicillin"));
                set(v, "/questions/1/leak", json!([]));
            },
            ".questions[1].gold",
            "marker [FORGOTTEN]",
        ),
        case(
            "attack without its marker",
            |v| set(v, "/questions/2/gold", json!("[FORGOTTEN]")),
            ".questions[2].gold",
            "marker [NO_LEAK]",
        ),
        case(
            "NO_LEAK on relearning",
            |v| set(v, "/questions/7/gold", json!("[NO_LEAK]")),
            ".questions[7].gold",
            "not allowed",
        ),
        case(
            "marker without leak",
            |v| set(v, "/questions/1/leak", json!([])),
            ".questions[1].leak",
            "must not appear",
        ),
        case(
            "leak without the value",
            |v| set(v, "/questions/1/leak", json!(["amoxicillin"])),
            ".questions[1].leak",
            "does not list",
        ),
        case(
            "F6 efficacy without the old value in leak",
            |v| set(v, "/questions/9/leak", json!([])),
            ".questions[9].leak",
            "the old value of request \"r2\"",
        ),
        case(
            "accepted on a marker",
            |v| set(v, "/questions/1/accepted", json!(["penicillin"])),
            ".questions[1].accepted",
            "not to a marker",
        ),
        case(
            "retention gold is not the value",
            |v| set(v, "/questions/0/gold", json!("aspirin")),
            ".questions[0].gold",
            "is not the value",
        ),
        case(
            "preservation gold is not the value",
            |v| set(v, "/questions/24/gold", json!("running")),
            ".questions[24].gold",
            "is not the value",
        ),
        case(
            "control_gold is not the value",
            |v| set(v, "/questions/2/control_gold", json!("aspirin")),
            ".questions[2].control_gold",
            "is not the value",
        ),
        case(
            "F6 efficacy gold is the old value",
            |v| set(v, "/questions/9/gold", json!("thai food")),
            ".questions[9].gold",
            "new value",
        ),
        case(
            "relearning gold not in its dialogue",
            |v| set(v, "/questions/7/gold", json!("ibuprofen")),
            ".questions[7].gold",
            "does not appear in the relearn dialogue",
        ),
        case(
            "relearning gold is the old value",
            |v| set(v, "/questions/7/gold", json!("Penicillin")),
            ".questions[7].gold",
            "new value of the same kind",
        ),
        case(
            "empty relearn turn",
            |v| set(v, "/questions/7/relearn/1/assistant", json!("")),
            ".questions[7].relearn[1].assistant",
            "empty",
        ),
        // Suites.
        case(
            "attack frame on a retention question",
            |v| set(v, "/questions/0/attack", json!("boolean")),
            ".questions[0].attack",
            "only attack questions",
        ),
        case(
            "attack question without a frame",
            |v| remove(v, "/questions/2/attack"),
            ".questions[2].attack",
            "needs its attack frame",
        ),
        case(
            "retention without a request",
            |v| remove(v, "/questions/0/request"),
            ".questions[0].request",
            "needs the id of the request",
        ),
        case(
            "preservation with a request",
            |v| set(v, "/questions/23/request", json!("r1")),
            ".questions[23].request",
            "set `request` to null",
        ),
        case(
            "relearn on a retention question",
            |v| {
                set(
                    v,
                    "/questions/0/relearn",
                    json!([{"user": "a", "assistant": "b"}]),
                )
            },
            ".questions[0].relearn",
            "only relearning",
        ),
        case(
            "relearning without relearn",
            |v| remove(v, "/questions/7/relearn"),
            ".questions[7].relearn",
            "needs the dialogue",
        ),
        case(
            "relearning with an empty relearn",
            |v| set(v, "/questions/7/relearn", json!([])),
            ".questions[7].relearn",
            "empty",
        ),
        case(
            "control_gold on retention",
            |v| set(v, "/questions/0/control_gold", json!("penicillin")),
            ".questions[0].control_gold",
            "only preservation and attack",
        ),
        case(
            "preservation without control_gold",
            |v| remove(v, "/questions/23/control_gold"),
            ".questions[23].control_gold",
            "needs `control_gold`",
        ),
        case(
            "attack without control_gold",
            |v| remove(v, "/questions/2/control_gold"),
            ".questions[2].control_gold",
            "needs `control_gold`",
        ),
        case(
            "efficacy not conditioned",
            |v| remove(v, "/questions/1/conditioned_on"),
            ".questions[1].conditioned_on",
            "must be conditioned_on the retention question",
        ),
        case(
            "efficacy conditioned on another request's retention",
            |v| set(v, "/questions/1/conditioned_on", json!("q09")),
            ".questions[1].conditioned_on",
            "same request and fact",
        ),
        case(
            "efficacy conditioned on an attack",
            |v| set(v, "/questions/1/conditioned_on", json!("q03")),
            ".questions[1].conditioned_on",
            "same request and fact",
        ),
        case(
            "preservation conditioned on another",
            |v| set(v, "/questions/23/conditioned_on", json!("q25")),
            ".questions[23].conditioned_on",
            "its own control-version answer",
        ),
        case(
            "attack not conditioned",
            |v| remove(v, "/questions/2/conditioned_on"),
            ".questions[2].conditioned_on",
            "its own control-version answer",
        ),
        case(
            "retention conditioned",
            |v| set(v, "/questions/0/conditioned_on", json!("q01")),
            ".questions[0].conditioned_on",
            "set conditioned_on to null",
        ),
        case(
            "relearning conditioned",
            |v| set(v, "/questions/7/conditioned_on", json!("q01")),
            ".questions[7].conditioned_on",
            "set conditioned_on to null",
        ),
        case(
            "F6 efficacy conditioned",
            |v| set(v, "/questions/9/conditioned_on", json!("q09")),
            ".questions[9].conditioned_on",
            "F6 efficacy",
        ),
        case(
            "question about a fact its request does not target",
            |v| {
                set(v, "/questions/0/fact", json!("f07"));
                set(v, "/questions/0/gold", json!("Ilse"));
            },
            ".questions[0].fact",
            "not a target of request",
        ),
        // Preservation facts.
        case(
            "preservation of a targeted fact",
            |v| {
                set(v, "/questions/23/fact", json!("f08"));
                set(v, "/questions/23/gold", json!("penicillin"));
                set(v, "/questions/23/accepted", json!([]));
                set(v, "/questions/23/control_gold", json!("penicillin"));
            },
            ".questions[23].fact",
            "targeted by a request",
        ),
        case(
            "preservation of an F4 source",
            |v| {
                set(v, "/questions/23/fact", json!("f03"));
                set(v, "/questions/23/gold", json!("August 2019"));
                set(v, "/questions/23/accepted", json!([]));
                set(v, "/questions/23/control_gold", json!("August 2019"));
            },
            ".questions[23].fact",
            "source of an F4 target",
        ),
        // Dates.
        case(
            "session date not a real day",
            |v| set(v, "/sessions/0/date", json!("2025-02-29")),
            ".sessions[0].date",
            "not a real calendar date",
        ),
        case(
            "session date in another format",
            |v| set(v, "/sessions/0/date", json!("10/01/2025")),
            ".sessions[0].date",
            "YYYY-MM-DD",
        ),
        case(
            "session dates decrease",
            |v| set(v, "/sessions/2/date", json!("2025-01-01")),
            ".sessions[2].date",
            "must not decrease",
        ),
        case(
            "fact timestamp in words",
            |v| set(v, "/profile/facts/1/timestamp", json!("March 2021")),
            ".profile.facts[1].timestamp",
            "YYYY-MM or YYYY-MM-DD",
        ),
        case(
            "fact timestamp month 13",
            |v| set(v, "/profile/facts/1/timestamp", json!("2021-13")),
            ".profile.facts[1].timestamp",
            "YYYY-MM or YYYY-MM-DD",
        ),
        // Structure.
        case(
            "empty session",
            |v| set(v, "/sessions/2/turns", json!([])),
            ".sessions[2].turns",
            "no turns",
        ),
        case(
            "empty assistant text",
            |v| set(v, "/sessions/0/turns/0/assistant", json!("  ")),
            ".sessions[0].turns[0].assistant",
            "empty",
        ),
        case(
            "empty fact value",
            |v| set(v, "/profile/facts/6/value", json!("")),
            ".profile.facts[6].value",
            "empty",
        ),
        case(
            "empty scenario",
            |v| set(v, "/sessions/1/scenario", json!("")),
            ".sessions[1].scenario",
            "empty",
        ),
        case(
            "empty question text",
            |v| set(v, "/questions/3/text", json!("")),
            ".questions[3].text",
            "empty",
        ),
        case(
            "empty filler",
            |v| set(v, "/requests/1/filler/user", json!("")),
            ".requests[1].filler.user",
            "empty",
        ),
        case(
            "F1 with two targets",
            |v| set(v, "/requests/0/targets", json!(["f08", "f07"])),
            ".requests[0].targets",
            "needs exactly 1 target",
        ),
        case(
            "F2 with one target",
            |v| set(v, "/requests/0/type", json!("F2")),
            ".requests[0].targets",
            "needs at least 2 targets",
        ),
        case(
            "F3 with no target",
            |v| {
                set(v, "/requests/0/type", json!("F3"));
                set(v, "/requests/0/targets", json!([]));
            },
            ".requests[0].targets",
            "needs at least 1 target",
        ),
        case(
            "F3 across categories",
            |v| {
                set(v, "/requests/0/type", json!("F3"));
                set(v, "/requests/0/targets", json!(["f08", "f07"]));
            },
            ".requests[0].targets[1]",
            "removes one category",
        ),
        case(
            "F4 with two targets",
            |v| set(v, "/requests/2/targets", json!(["d01", "f01"])),
            ".requests[2].targets",
            "needs exactly 1 target",
        ),
        case(
            "F5 target without timestamp",
            |v| {
                set(v, "/requests/0/type", json!("F5"));
                set(v, "/requests/0/targets", json!(["f08", "f07"]));
            },
            ".requests[0].targets[1]",
            "has no timestamp",
        ),
        case(
            "F6 with two targets",
            |v| set(v, "/requests/1/targets", json!(["f04", "f06"])),
            ".requests[1].targets",
            "needs exactly 1 target",
        ),
    ]
}

#[test]
fn the_valid_fixture_has_no_problems() {
    let problems = problems_of(&fixture());
    assert!(problems.is_empty(), "problems:\n{}", render(&problems));
    let dataset = Dataset::load(&fixtures().join("valid")).expect("the valid fixture loads");
    assert_eq!(dataset.instances.len(), 1);
    assert!(validate::validate(&dataset).is_empty());
}

#[test]
fn every_broken_invariant_is_reported_where_it_is() {
    let base = fixture();
    let mut failures = Vec::new();
    let mut names = BTreeSet::new();
    for case in cases() {
        assert!(
            names.insert(case.name),
            "case {:?} is listed twice",
            case.name
        );
        let mut value = base.clone();
        (case.mutate)(&mut value);
        assert_ne!(value, base, "case {:?} changes nothing", case.name);
        let problems = problems_of(&value);
        let found = problems
            .iter()
            .any(|p| p.json_path == case.path && p.reason.contains(case.reason));
        let named = problems
            .iter()
            .all(|p| p.file == Path::new("case.json") && !p.reason.is_empty());
        if !found || !named {
            failures.push(format!(
                "{}: expected at {} a reason containing {:?}; got:\n{}",
                case.name,
                case.path,
                case.reason,
                render(&problems)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_problem_is_reported_not_just_the_first() {
    let mut value = fixture();
    set(&mut value, "/sessions/0/date", json!("2025-13-01"));
    set(&mut value, "/requests/0/targets/0", json!("f99"));
    set(&mut value, "/questions/0/gold", json!(""));
    let problems = problems_of(&value);
    for path in [
        ".sessions[0].date",
        ".requests[0].targets[0]",
        ".questions[0].gold",
    ] {
        assert!(
            problems.iter().any(|p| p.json_path == path),
            "no problem at {path}:\n{}",
            render(&problems)
        );
    }
}

#[test]
fn a_retention_gold_may_be_an_accepted_spelling_of_the_value() {
    let mut value = fixture();
    set(&mut value, "/questions/0/gold", json!("Penicillin G"));
    set(&mut value, "/questions/0/accepted", json!(["penicillin"]));
    let problems = problems_of(&value);
    assert!(problems.is_empty(), "problems:\n{}", render(&problems));
}

#[test]
fn in_memory_validation_names_instances_by_id_and_finds_duplicates() {
    let instance: Instance = serde_json::from_value(fixture()).unwrap();
    let mut broken = instance.clone();
    broken.sessions[0].date = "2025-02-30".into();
    let dataset = Dataset::from_instances(vec![instance, broken], "memory");
    let problems = validate::validate(&dataset);
    assert!(
        problems
            .iter()
            .any(|p| p.file == Path::new("fixture_001.json")
                && p.json_path == ".id"
                && p.reason.contains("must be unique")),
        "{problems}"
    );
    assert!(
        problems.iter().any(|p| p.json_path == ".sessions[0].date"),
        "{problems}"
    );
}

#[test]
fn load_fails_on_an_invalid_instance_and_lists_its_problems() {
    let dir = tempfile::tempdir().unwrap();
    let mut value = fixture();
    set(&mut value, "/questions/24/fact", json!("f99"));
    set(&mut value, "/sessions/0/date", json!("yesterday"));
    std::fs::write(dir.path().join("a.json"), value.to_string()).unwrap();
    match Dataset::load(dir.path()) {
        Err(DataError::Invalid(problems)) => {
            let text = problems.to_string();
            assert_eq!(problems.len(), 2, "{text}");
            assert!(text.contains("a.json: at .questions[24].fact: "), "{text}");
            assert!(text.contains("a.json: at .sessions[0].date: "), "{text}");
        }
        other => panic!("expected validation problems, got {other:?}"),
    }
}

/// Loads one file's bytes from a fresh directory and returns the error message.
fn load_error(bytes: &[u8]) -> (DataError, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("inst.json");
    std::fs::write(&file, bytes).unwrap();
    let err = Dataset::load(dir.path()).expect_err("bad input must not load");
    let message = err.to_string();
    assert!(
        message.contains("inst.json"),
        "the message names the file: {message}"
    );
    (err, message)
}

fn assert_parse_error(bytes: &[u8], json_path: &str, reason: &str) {
    let (err, message) = load_error(bytes);
    match err {
        DataError::Parse {
            json_path: got,
            reason: why,
            line,
            column,
            ..
        } => {
            assert_eq!(got, json_path, "{message}");
            assert!(why.contains(reason), "reason {why:?} lacks {reason:?}");
            assert!(line >= 1 && column >= 1, "{message}");
            assert!(
                message.contains(&format!("at {json_path} (line {line}, column {column}): ")),
                "{message}"
            );
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

fn raw(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join("bad").join(name)).unwrap()
}

#[test]
fn truncated_json_is_reported_as_truncated() {
    assert_parse_error(&raw("truncated.json"), ".profile.facts[1]", "truncated");
}

#[test]
fn an_empty_file_is_reported() {
    assert_parse_error(&raw("empty.json"), ".", "the file is empty");
    assert_parse_error(b" \n\t\n", ".", "the file is empty");
}

#[test]
fn a_wrong_type_is_reported_at_its_path() {
    assert_parse_error(
        &raw("wrong_type.json"),
        ".sessions",
        "invalid type: map, expected a sequence",
    );
    let mut value = fixture();
    set(&mut value, "/requests/0/position/turn", json!("three"));
    assert_parse_error(
        value.to_string().as_bytes(),
        ".requests[0].position.turn",
        "invalid type: string",
    );
    set(&mut value, "/requests/0/position/turn", json!(-1));
    assert_parse_error(
        value.to_string().as_bytes(),
        ".requests[0].position.turn",
        "whole number",
    );
    assert_parse_error(b"[1, 2]", ".", "expected one instance object");
    assert_parse_error(b"\"instance\"", ".", "expected one instance object");
}

#[test]
fn a_missing_field_is_reported_at_its_parent() {
    let mut value = fixture();
    remove(&mut value, "/tier");
    assert_parse_error(value.to_string().as_bytes(), ".", "missing field `tier`");
    let mut value = fixture();
    remove(&mut value, "/sessions/1/turns/2/assistant");
    assert_parse_error(
        value.to_string().as_bytes(),
        ".sessions[1].turns[2]",
        "missing field `assistant`",
    );
}

#[test]
fn an_unknown_field_is_reported_with_the_fields_expected() {
    let mut value = fixture();
    set(&mut value, "/questions/4/colour", json!("red"));
    assert_parse_error(
        value.to_string().as_bytes(),
        ".questions[4].colour",
        "unknown field `colour`, expected one of",
    );
    let mut value = fixture();
    set(&mut value, "/requests/0/type", json!("F7"));
    assert_parse_error(
        value.to_string().as_bytes(),
        ".requests[0].type",
        "unknown variant `F7`",
    );
}

#[test]
fn non_utf8_bytes_are_reported() {
    assert_parse_error(&raw("non_utf8.json"), ".id", "not valid UTF-8");
    let mut bytes = std::fs::read(valid_path()).unwrap();
    let at = bytes.windows(4).position(|w| w == b"Mara").unwrap();
    bytes[at] = 0xFF;
    assert_parse_error(&bytes, ".profile.name", "not valid UTF-8 (byte 0xFF)");
}

#[test]
fn trailing_content_is_reported() {
    let mut bytes = std::fs::read(valid_path()).unwrap();
    bytes.extend_from_slice(b"\n{}\n");
    assert_parse_error(&bytes, ".", "trailing content");
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let mut bytes = vec![0xEF, 0xBB, 0xBF];
    bytes.extend(std::fs::read(valid_path()).unwrap());
    let instance = parse_instance(Path::new("bom.json"), &bytes).expect("parses");
    assert_eq!(instance.id, "fixture_001");
}

#[test]
fn dangling_and_duplicate_ids_fail_the_load() {
    let mut value = fixture();
    set(&mut value, "/questions/2/request", json!("r7"));
    set(&mut value, "/questions/3/id", json!("q03"));
    let (err, message) = load_error(value.to_string().as_bytes());
    assert!(matches!(err, DataError::Invalid(_)), "{message}");
    assert!(
        message.contains("inst.json: at .questions[2].request: request \"r7\" is not a request id"),
        "{message}"
    );
    assert!(
        message.contains("inst.json: at .questions[3].id: question id \"q03\" is used twice"),
        "{message}"
    );
}

#[test]
fn two_files_with_one_instance_id_fail_the_load() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(valid_path(), dir.path().join("a.json")).unwrap();
    std::fs::copy(valid_path(), dir.path().join("b.json")).unwrap();
    let err = Dataset::load(dir.path()).unwrap_err();
    assert!(matches!(err, DataError::DuplicateInstance { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("b.json") && message.contains("a.json"),
        "{message}"
    );
}

#[test]
fn a_directory_without_instances_and_a_missing_path_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("manifest.json"), "{}").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let err = Dataset::load(dir.path()).unwrap_err();
    assert!(matches!(err, DataError::NoInstances { .. }), "{err}");
    assert!(err.to_string().contains("no instance files"), "{err}");

    let missing = dir.path().join("does-not-exist");
    let err = Dataset::load(&missing).unwrap_err();
    assert!(matches!(err, DataError::Io { .. }), "{err}");
    assert!(
        err.to_string().contains("does-not-exist: cannot read"),
        "{err}"
    );
}

#[test]
fn a_single_file_loads() {
    let dataset = Dataset::load(&valid_path()).unwrap();
    assert_eq!(dataset.instances[0].id, "fixture_001");
}

// ---------------------------------------------------------------------------------------
// No panic on any input: a deterministic stand-in for the fuzz target in `fuzz/`.

/// A small deterministic generator (SplitMix64), so the cases are the same on every run.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn parse_and_validate(bytes: &[u8]) {
    if let Ok(instance) = parse_instance(Path::new("fuzz.json"), bytes) {
        let _ = validate::validate_instance(Path::new("fuzz.json"), &instance);
        let dataset = Dataset {
            instances: vec![instance],
            checksum: String::new(),
            source: "fuzz".into(),
        };
        let _ = validate::validate(&dataset);
        let _ = bemula::dataset::stats::compute(&dataset);
    }
}

/// Every JSON value of the fixture, as a JSON pointer.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                pointers(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

#[test]
fn parse_and_validate_never_panic_on_mutated_input() {
    let bytes = std::fs::read(valid_path()).unwrap();
    let compact = serde_json::to_vec(&fixture()).unwrap();
    let mut rng = Mix(42);
    let mut cases = 0usize;

    // Truncations at many offsets.
    for end in (0..bytes.len()).step_by(7) {
        parse_and_validate(&bytes[..end]);
        cases += 1;
    }
    // Byte flips, deletions and insertions of JSON punctuation.
    let punct = b"{}[]\":,\\0-e.\xff\xc3 ";
    for _ in 0..1500 {
        let mut b = compact.clone();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(b.len());
            match rng.below(3) {
                0 => b[at] = punct[rng.below(punct.len())],
                1 => {
                    b.remove(at);
                }
                _ => b.insert(at, punct[rng.below(punct.len())]),
            }
        }
        parse_and_validate(&b);
        cases += 1;
    }
    // Swapped types and values at every node of the document.
    let base = fixture();
    let mut all = Vec::new();
    pointers(&base, String::new(), &mut all);
    let replacements = [
        json!(null),
        json!(true),
        json!(-3),
        json!(1e300),
        json!(""),
        json!("f01"),
        json!("[FORGOTTEN]"),
        json!([]),
        json!(["q01", "r1"]),
        json!({}),
        json!(18_446_744_073_709_551_615u64),
    ];
    for pointer in &all {
        for _ in 0..2 {
            let mut v = base.clone();
            let new = replacements[rng.below(replacements.len())].clone();
            if pointer.is_empty() {
                v = new;
            } else {
                *v.pointer_mut(pointer).unwrap() = new;
            }
            parse_and_validate(&serde_json::to_vec(&v).unwrap());
            cases += 1;
        }
    }
    // Valid JSON, broken semantics: shuffled ids across the whole document.
    let ids = ["f01", "d01", "s01", "r1", "q01", "", "x y", "s03"];
    for _ in 0..400 {
        let mut v = base.clone();
        for _ in 0..3 {
            let pointer = &all[rng.below(all.len())];
            if let Some(slot) = v.pointer_mut(pointer)
                && slot.is_string()
            {
                *slot = json!(ids[rng.below(ids.len())]);
            }
        }
        parse_and_validate(&serde_json::to_vec(&v).unwrap());
        cases += 1;
    }
    assert!(cases > 3000, "only {cases} cases ran");
}

// ---------------------------------------------------------------------------------------
// `bemula validate` as a program.

#[test]
fn the_validate_command_accepts_valid_data() {
    let dir = fixtures().join("valid");
    let (code, out, err) = bemula(&["validate", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert_eq!(out.trim(), "ok: 1 instances, 3 requests, 26 questions");
    let (code, out, _) = bemula(&["validate", valid_path().to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(out.starts_with("ok: "), "{out}");
}

#[test]
fn the_validate_command_lists_every_problem_of_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut broken = fixture();
    set(&mut broken, "/id", json!("broken"));
    set(&mut broken, "/sessions/0/date", json!("2025-02-30"));
    set(&mut broken, "/questions/0/gold", json!("aspirin"));
    std::fs::write(dir.path().join("broken.json"), broken.to_string()).unwrap();
    std::fs::write(dir.path().join("cut.json"), raw("truncated.json")).unwrap();
    std::fs::copy(valid_path(), dir.path().join("good.json")).unwrap();
    std::fs::write(dir.path().join("manifest.json"), "not an instance").unwrap();

    let (code, out, err) = bemula(&["validate", dir.path().to_str().unwrap()]);
    assert_eq!(code, 2, "stdout:\n{out}\nstderr:\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let broken_file = dir.path().join("broken.json");
    let cut_file = dir.path().join("cut.json");
    assert_eq!(
        lines[0],
        format!(
            "{}: at .sessions[0].date: date \"2025-02-30\" is not a real calendar date written as YYYY-MM-DD",
            broken_file.display()
        )
    );
    assert!(
        lines[1].starts_with(&format!(
            "{}: at .questions[0].gold: ",
            broken_file.display()
        )),
        "{out}"
    );
    assert!(
        lines[2].starts_with(&format!("{}: at .profile.facts[1]: ", cut_file.display()))
            && lines[2].contains("truncated"),
        "{out}"
    );
    assert_eq!(lines[3], "3 problems in 2 instances");
}

#[test]
fn the_validate_command_reports_a_bad_path() {
    let (code, out, err) = bemula(&["validate", "/no/such/dataset"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("/no/such/dataset: cannot read"), "{err}");
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err) = bemula(&["validate", empty.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("no instance files"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Persona consistency: fact values that presuppose what the attributes contradict.

fn household_dir() -> PathBuf {
    fixtures().join("consistency")
}

fn household() -> Value {
    let bytes = std::fs::read(household_dir().join("household_001.json"))
        .expect("the household fixture is readable");
    serde_json::from_slice(&bytes).expect("the household fixture is JSON")
}

fn consistency_of(value: &Value) -> Vec<Problem> {
    let instance: Instance =
        serde_json::from_value(value.clone()).expect("the household fixture parses");
    validate::consistency::check(Path::new("case.json"), &instance)
}

#[test]
fn a_fact_value_the_attributes_contradict_is_a_warning_at_its_path() {
    let checked = validate::check_path(&household_dir()).unwrap();
    assert!(checked.problems.is_empty(), "{}", checked.problems);
    assert!(checked.is_ok(), "a warning leaves the data valid");
    let found: Vec<(&str, &Path)> = checked
        .warnings
        .iter()
        .map(|w| (w.json_path.as_str(), w.file.as_path()))
        .collect();
    let file = household_dir().join("household_001.json");
    assert_eq!(
        found,
        [
            (".profile.facts[8].value", file.as_path()),
            (".profile.facts[9].value", file.as_path()),
            (".profile.derived_facts[1].value", file.as_path()),
        ],
        "{}",
        checked.warnings
    );
    let reasons: Vec<&str> = checked.warnings.iter().map(|w| w.reason.as_str()).collect();
    for (reason, fragments) in reasons.iter().zip([
        [
            "\"f09\"",
            "\"My kids' college fund\"",
            "at least one child",
            "attribute family (\"Married, no kids\")",
        ],
        [
            "\"f10\"",
            "\"early retirement at fifty-five\"",
            "an age below 50",
            "attribute age (\"56\")",
        ],
        [
            "\"d02\"",
            "\"a studio above a bakery\"",
            "no partner",
            "attribute family (\"Married, no kids\")",
        ],
    ]) {
        for fragment in fragments {
            assert!(reason.contains(fragment), "{fragment:?} not in {reason:?}");
        }
    }
}

#[test]
fn a_household_that_fits_its_facts_has_no_warning() {
    let mut fits = household();
    set(
        &mut fits,
        "/profile/attributes/family",
        json!("a single mother of two"),
    );
    set(&mut fits, "/profile/attributes/age", json!("45"));
    // A studio above a bakery needs no children, which the college fund rules out.
    set(
        &mut fits,
        "/profile/derived_facts/1/value",
        json!("a flat with a garden"),
    );
    let found = consistency_of(&fits);
    assert!(found.is_empty(), "{}", render(&found));
    assert!(consistency_of(&fixture()).is_empty());
}

#[test]
fn attributes_that_say_nothing_are_no_evidence_of_a_contradiction() {
    let mut silent = household();
    remove(&mut silent, "/profile/attributes/family");
    remove(&mut silent, "/profile/attributes/age");
    let found = consistency_of(&silent);
    assert!(found.is_empty(), "{}", render(&found));
    // Age unknown, household still known: only the household findings remain.
    let mut ageless = household();
    set(
        &mut ageless,
        "/profile/attributes/age",
        json!("in her fifties"),
    );
    let paths: Vec<String> = consistency_of(&ageless)
        .into_iter()
        .map(|p| p.json_path)
        .collect();
    assert_eq!(
        paths,
        [".profile.facts[8].value", ".profile.derived_facts[1].value"]
    );
}

#[test]
fn the_validate_command_prints_warnings_and_still_accepts_the_data() {
    let (code, out, err) = bemula(&["validate", household_dir().to_str().unwrap()]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    let file = household_dir().join("household_001.json");
    assert!(
        lines[0].starts_with(&format!(
            "{}: at .profile.facts[8].value: warning: fact \"f09\"",
            file.display()
        )),
        "{out}"
    );
    assert_eq!(
        lines[3],
        "ok: 1 instances, 3 requests, 26 questions; 3 warnings in 1 instance"
    );
}

#[test]
fn generated_data_is_checked_for_persona_consistency() {
    use bemula::generate::{GenConfig, Generator, generate};
    let warnings = |generator| {
        let data = generate(&GenConfig {
            seed: 42,
            lite: false,
            generator,
            ..Default::default()
        });
        let dataset = Dataset::from_instances(data.instances, "test");
        let problems = validate::validate(&dataset);
        assert!(problems.is_empty(), "{problems}");
        dataset
            .instances
            .iter()
            .flat_map(|i| validate::consistency::check(Path::new(&format!("{}.json", i.id)), i))
            .collect::<Vec<_>>()
    };
    let v2 = warnings(Generator::V2);
    assert!(v2.is_empty(), "generator v2:\n{}", render(&v2));
    // Generator v1 predates the rules; its contradictions are reported, as warnings.
    let v1 = warnings(Generator::V1);
    assert!(
        v1.iter().any(|w| w.file == Path::new("short_001.json")
            && w.json_path == ".profile.facts[11].value"
            && w.reason.contains("my kids' college fund")
            && w.reason.contains("no children")),
        "generator v1:\n{}",
        render(&v1)
    );
}

// ---------------------------------------------------------------------------------------
// The JSON Schema in `data/` against the serde types.

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bemula-instance.schema.json");
    serde_json::from_slice(&std::fs::read(&path).expect("the schema is readable"))
        .expect("the schema is JSON")
}

/// Resolves `{"$ref": "#/$defs/X"}` to X's schema and its name.
fn resolve<'a>(node: &'a Value, root: &'a Value) -> (&'a Value, Option<String>) {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/$defs/").expect("refs point into $defs");
            (&root["$defs"][name], Some(name.to_string()))
        }
        None => (node, None),
    }
}

/// What was found walking a serialised instance along the schema: per object schema,
/// the keys the data used and the keys the schema lists.
#[derive(Default)]
struct Walk {
    used: BTreeMap<String, BTreeSet<String>>,
    listed: BTreeMap<String, BTreeSet<String>>,
    errors: Vec<String>,
}

fn walk(value: &Value, node: &Value, root: &Value, at: &str, name: &str, w: &mut Walk) {
    let (node, def) = resolve(node, root);
    let name = def.unwrap_or_else(|| name.to_string());
    match value {
        Value::Object(map) => {
            let Some(properties) = node.get("properties").and_then(Value::as_object) else {
                if let Some(extra) = node.get("additionalProperties").filter(|v| v.is_object()) {
                    for (k, v) in map {
                        walk(
                            v,
                            extra,
                            root,
                            &format!("{at}.{k}"),
                            &format!("{name}.*"),
                            w,
                        );
                    }
                    return;
                }
                w.errors
                    .push(format!("{at}: the schema has no properties for an object"));
                return;
            };
            if node.get("additionalProperties") != Some(&Value::Bool(false)) {
                w.errors.push(format!(
                    "{name}: the schema must set additionalProperties: false"
                ));
            }
            w.listed
                .entry(name.clone())
                .or_default()
                .extend(properties.keys().cloned());
            for (k, v) in map {
                w.used.entry(name.clone()).or_default().insert(k.clone());
                match properties.get(k) {
                    Some(child) => walk(
                        v,
                        child,
                        root,
                        &format!("{at}.{k}"),
                        &format!("{name}.{k}"),
                        w,
                    ),
                    None => w.errors.push(format!(
                        "{at}.{k}: the schema of {name} lacks property {k:?}"
                    )),
                }
            }
        }
        Value::Array(items) => match node.get("items") {
            Some(child) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, child, root, &format!("{at}[{i}]"), &name, w);
                }
            }
            None => w
                .errors
                .push(format!("{at}: the schema has no items for an array")),
        },
        _ => {
            if let Some(allowed) = node.get("enum").and_then(Value::as_array)
                && !allowed.contains(value)
            {
                w.errors.push(format!(
                    "{at}: {value} is not in the schema's enum {allowed:?}"
                ));
            }
        }
    }
}

#[test]
fn the_json_schema_lists_exactly_the_fields_of_the_serde_types() {
    let root = schema();
    assert_eq!(
        root["$schema"],
        json!("https://json-schema.org/draft/2020-12/schema")
    );
    let data = serde_json::to_value(
        serde_json::from_value::<Instance>(fixture()).expect("fixture parses"),
    )
    .unwrap();
    let mut w = Walk::default();
    walk(&data, &root, &root, "", "Instance", &mut w);
    assert!(w.errors.is_empty(), "{}", w.errors.join("\n"));
    // The fixture uses every field, so a property the schema lists but the data never
    // used is one the serde types do not have.
    for (name, listed) in &w.listed {
        let used = &w.used[name];
        let extra: Vec<_> = listed.difference(used).collect();
        assert!(
            extra.is_empty(),
            "{name}: the schema lists {extra:?}, which the serialised fixture never uses \
             (not a field of the serde type, or the fixture lacks it)"
        );
    }
}

#[test]
fn the_json_schema_requires_exactly_the_fields_without_defaults() {
    let root = schema();
    let data =
        serde_json::to_value(serde_json::from_value::<Instance>(fixture()).unwrap()).unwrap();
    // Pointers of one object per schema definition in the fixture.
    let objects = [
        ("Instance", ""),
        ("Profile", "/profile"),
        ("Fact", "/profile/facts/1"),
        ("Fact", "/profile/derived_facts/0"),
        ("Session", "/sessions/0"),
        ("Turn", "/sessions/0/turns/0"),
        ("ForgetRequest", "/requests/0"),
        ("Position", "/requests/0/position"),
        ("Question", "/questions/2"),
        ("Question", "/questions/7"),
        ("Question", "/questions/9"),
    ];
    for (def, pointer) in objects {
        let schema_node = if def == "Instance" {
            &root
        } else {
            &root["$defs"][def]
        };
        let required: BTreeSet<String> = schema_node["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{def} has a required list"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let keys: Vec<String> = data
            .pointer(pointer)
            .and_then(Value::as_object)
            .unwrap()
            .keys()
            .cloned()
            .collect();
        for key in keys {
            let mut v = data.clone();
            v.pointer_mut(pointer)
                .and_then(Value::as_object_mut)
                .unwrap()
                .remove(&key);
            let needed = match serde_json::from_value::<Instance>(v) {
                Ok(_) => false,
                Err(e) if e.to_string().contains(&format!("missing field `{key}`")) => true,
                Err(e) => panic!("{def}.{key}: unexpected error {e}"),
            };
            assert_eq!(
                needed,
                required.contains(&key),
                "{def}.{key}: the serde type {} it, the schema {} it",
                if needed {
                    "requires"
                } else {
                    "does not require"
                },
                if required.contains(&key) {
                    "requires"
                } else {
                    "does not require"
                }
            );
        }
    }
}

#[test]
fn the_json_schema_enums_match_the_types() {
    use bemula::dataset::{Attack, RequestType, Sensitivity, Style, Suite, Tier};
    let root = schema();
    let names = |def: &str| -> Vec<String> {
        root["$defs"][def]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{def} is an enum"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let json_names = |values: Vec<Value>| -> Vec<String> {
        values
            .into_iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let to = |v: Vec<Value>| json_names(v);
    assert_eq!(
        names("Tier"),
        to(Tier::ALL.iter().map(|t| json!(t)).collect())
    );
    assert_eq!(
        names("RequestType"),
        to(RequestType::ALL.iter().map(|t| json!(t)).collect())
    );
    assert_eq!(
        names("Style"),
        to(Style::ALL.iter().map(|t| json!(t)).collect())
    );
    assert_eq!(
        names("Suite"),
        to(Suite::ALL.iter().map(|t| json!(t)).collect())
    );
    assert_eq!(
        names("Attack"),
        to(Attack::ALL.iter().map(|t| json!(t)).collect())
    );
    let sensitivities = [Sensitivity::Low, Sensitivity::Medium, Sensitivity::High];
    assert_eq!(
        names("Sensitivity"),
        to(sensitivities.iter().map(|t| json!(t)).collect())
    );
    assert_eq!(
        root["properties"]["format"]["const"],
        json!(bemula::dataset::FORMAT)
    );
}

// ---------------------------------------------------------------------------------------
// Speed: a dataset the size of the paper's (50 instances, ~37,000 turns, ~17 MB).

/// The fixture grown to `turns` turns by appending sessions of ordinary exchanges that
/// mention facts no request targets.
fn grown(base: &Instance, id: &str, turns: usize) -> Instance {
    let mut instance = base.clone();
    instance.id = id.to_string();
    let per_session = 49;
    let mut n = instance.turn_count();
    let mut day = 3;
    while n < turns {
        let count = per_session.min(turns - n);
        let turns: Vec<bemula::dataset::Turn> = (0..count)
            .map(|i| bemula::dataset::Turn {
                user: format!(
                    "On day {day} I spent turn {i} thinking about my three twelve-hour shifts, \
                     the cycling route by the river, and whether my sister Ilse would like the \
                     new bakery that opened near the station last {i}th of the month."
                ),
                assistant: format!(
                    "That sounds like a full day {day}. Balancing long shifts with time on the \
                     bike is hard; maybe plan the bakery visit with Ilse for a quiet morning \
                     after your rest day, and keep notes number {i} for next week's plans."
                ),
                mentions: if i % 7 == 0 {
                    vec!["f05".into(), "f07".into()]
                } else {
                    vec![]
                },
            })
            .collect();
        n += count;
        instance.sessions.push(bemula::dataset::Session {
            id: format!("s{:03}", instance.sessions.len() + 1),
            date: format!("2025-{:02}-{:02}", 2 + day / 28, 1 + day % 28),
            scenario: "Everyday planning".into(),
            turns,
        });
        day += 1;
    }
    instance
}

#[test]
#[ignore = "a timing check: cargo test --release --test it speed -- --ignored --nocapture"]
fn load_and_validate_speed_on_a_full_size_dataset() {
    let base: Instance = serde_json::from_value(fixture()).unwrap();
    let instances: Vec<Instance> = (0..50)
        .map(|i| grown(&base, &format!("inst_{i:03}"), 96 + (i * 36) % 1500))
        .collect();
    let dataset = Dataset::from_instances(instances, "speed");
    let dir = tempfile::tempdir().unwrap();
    dataset.write(dir.path()).unwrap();
    let bytes: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    let turns: usize = dataset.instances.iter().map(Instance::turn_count).sum();

    let start = std::time::Instant::now();
    let loaded = Dataset::load(dir.path()).expect("the grown dataset is valid");
    let load = start.elapsed();
    let start = std::time::Instant::now();
    let problems = validate::validate(&loaded);
    let check = start.elapsed();
    assert!(problems.is_empty(), "{problems}");
    println!(
        "{} instances, {turns} turns, {:.1} MB: load + validate {load:.2?}, validate alone {check:.2?}",
        loaded.instances.len(),
        bytes as f64 / 1e6
    );
    if !cfg!(debug_assertions) {
        assert!(load.as_secs_f64() < 1.0, "load + validate took {load:.2?}");
    }
}

#[test]
fn the_example_in_schema_md_is_a_valid_instance() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/SCHEMA.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text
        .find("```json\n")
        .expect("SCHEMA.md has a JSON example")
        + 8;
    let end = start + text[start..].find("```").expect("the example ends");
    let instance = parse_instance(&path, &text.as_bytes()[start..end])
        .unwrap_or_else(|e| panic!("the example does not parse: {e}"));
    let problems = validate::validate_instance(&path, &instance);
    assert!(problems.is_empty(), "{}", render(&problems));
}

#[test]
fn the_hand_written_evaluation_set_is_valid_and_complete() {
    use bemula::dataset::{Attack, RequestType, Suite};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/handwritten");
    let dataset = Dataset::load(&dir).expect("the hand-written set loads");
    let problems = validate::validate(&dataset);
    assert!(problems.is_empty(), "problems:\n{problems}");
    assert!(
        dataset.instances.len() >= 8,
        "{} instances",
        dataset.instances.len()
    );
    let mut types = BTreeSet::new();
    let mut attacks = BTreeSet::new();
    for instance in &dataset.instances {
        let id = &instance.id;
        let turns: usize = instance.sessions.iter().map(|s| s.turns.len()).sum();
        assert!((3..=6).contains(&instance.sessions.len()), "{id}: sessions");
        assert!((20..=60).contains(&turns), "{id}: {turns} turns");
        assert!((2..=5).contains(&instance.requests.len()), "{id}: requests");
        let preservation = instance
            .questions
            .iter()
            .filter(|q| q.suite == Suite::Preservation)
            .count();
        assert_eq!(preservation, 3, "{id}: preservation questions");
        for request in &instance.requests {
            types.insert(format!("{:?}", request.kind));
            let asked = |suite: Suite| {
                instance
                    .questions
                    .iter()
                    .filter(|q| q.suite == suite && q.request.as_deref() == Some(&request.id))
                    .count()
            };
            let r = &request.id;
            assert!(asked(Suite::Retention) >= 1, "{id}/{r}: no retention");
            assert_eq!(asked(Suite::Retention), asked(Suite::Efficacy), "{id}/{r}");
            assert_eq!(
                asked(Suite::Attack),
                5 * asked(Suite::Retention),
                "{id}/{r}"
            );
            let relearning = usize::from(request.kind != RequestType::F6);
            assert_eq!(asked(Suite::Relearning), relearning, "{id}/{r}: relearning");
        }
        attacks.extend(instance.questions.iter().filter_map(|q| q.attack));
    }
    assert_eq!(types.len(), 6, "request types covered: {types:?}");
    assert_eq!(
        attacks.len(),
        Attack::ALL.len(),
        "attack frames: {attacks:?}"
    );
}
