//! Integration tests: `bemula generate --realise llm:MODEL`, the LLM realisation stage,
//! against a scripted chat-completions server on 127.0.0.1 (no network, no model).

use crate::llm::chat_server::{ChatServer, Recorded, Scripted};
use crate::{bemula_command, output_text};
use serde_json::Value;
use std::path::Path;

/// The instance every test realises: a short one, about 270 units.
const INSTANCE: &str = "short_001";

/// The line the prompt asks to rewrite.
fn line(r: &Recorded) -> String {
    let user = r.last_user();
    user.split_once("Line:\n")
        .map(|(_, l)| l.to_string())
        .unwrap_or_default()
}

/// The prompt's list after `label`, `(none)` when empty.
fn listed<'a>(r: &'a Recorded, label: &str) -> &'a str {
    let user = r.body["messages"][1]["content"].as_str().unwrap_or("");
    user.lines()
        .find_map(|l| l.strip_prefix(label))
        .unwrap_or("")
}

/// Runs `bemula generate` on the test instance into `out`, realised by `server` when
/// given, with `cache` as the response cache.
fn generate(
    server: Option<&ChatServer>,
    out: &Path,
    cache: &Path,
) -> (std::process::Output, String) {
    let mut cmd = bemula_command();
    cmd.args(["generate", "--lite", "--instance", INSTANCE, "--out"])
        .arg(out);
    if let Some(server) = server {
        cmd.args([
            "--realise",
            "llm:test-model",
            "--retries",
            "0",
            "--base-url",
        ])
        .arg(&server.url)
        .arg("--cache")
        .arg(cache);
    }
    cmd.env_remove("BEMULA_LLM_BASE_URL")
        .env_remove("BEMULA_CACHE");
    let output = cmd.output().expect("bemula runs");
    let text = output_text(&output);
    (output, text)
}

fn instance(dir: &Path) -> Value {
    let bytes = std::fs::read(dir.join(format!("{INSTANCE}.json"))).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn manifest(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// Every ordinary turn's user and assistant texts, in order.
fn texts(instance: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for session in instance["sessions"].as_array().unwrap() {
        for turn in session["turns"].as_array().unwrap() {
            out.push(turn["user"].as_str().unwrap().to_string());
            out.push(turn["assistant"].as_str().unwrap().to_string());
        }
    }
    out
}

fn validates(dir: &Path) {
    let out = bemula_command()
        .arg("validate")
        .arg(dir)
        .output()
        .expect("bemula runs");
    assert!(out.status.success(), "{}", output_text(&out));
}

/// A faithful rewrite: the line with a prefix, every value kept.
fn faithful(r: &Recorded) -> Scripted {
    Scripted::reply(&format!("Well, {}", line(r)))
}

#[test]
fn faithful_rewrites_are_accepted_and_the_output_validates() {
    let dir = tempfile::tempdir().unwrap();
    let server = ChatServer::respond(faithful);
    let out = dir.path().join("data");
    let (output, text) = generate(Some(&server), &out, &dir.path().join("cache"));
    assert!(output.status.success(), "{text}");
    assert!(server.count() > 200, "{}", server.count());
    assert!(text.contains("realised by test-model"), "{text}");
    assert!(text.contains("realising: "), "progress on stderr: {text}");
    let realised = instance(&out);
    let turns = texts(&realised);
    let well = turns.iter().filter(|t| t.starts_with("Well, ")).count();
    assert!(well * 10 > turns.len() * 9, "{well} of {}", turns.len());
    for q in realised["questions"].as_array().unwrap() {
        assert!(q["text"].as_str().unwrap().starts_with("Well, "), "{q}");
    }
    let request = &realised["requests"][0];
    assert!(
        request["turn"]["user"]
            .as_str()
            .unwrap()
            .starts_with("Well, ")
    );
    // The exchange in the dialogue is the request's own, rewritten once.
    let position = &request["position"];
    let session = realised["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == position["session"])
        .unwrap();
    let exchange = &session["turns"][position["turn"].as_u64().unwrap() as usize];
    assert_eq!(exchange["user"], request["turn"]["user"]);
    assert!(
        !exchange["user"]
            .as_str()
            .unwrap()
            .starts_with("Well, Well, ")
    );
    let m = manifest(&out);
    assert_eq!(m["realised_by"], "test-model");
    assert!(
        m["realisation"]["user"]["rewritten"].as_u64().unwrap() > 100,
        "{m}"
    );
    assert_eq!(m["realisation"]["user"]["fallback"], 0, "{m}");
    validates(&out);
    // Every request is at temperature 0 and names the model.
    let requests = server.requests();
    assert!(requests.iter().all(|r| r.model() == "test-model"));
    assert!(requests.iter().all(|r| r.body["temperature"] == 0.0));
}

#[test]
fn dropped_values_and_leaked_targets_fall_back_to_the_templates() {
    let dir = tempfile::tempdir().unwrap();
    // A value to keep: the reply drops it. Otherwise, for lines of odd length, a
    // target to avoid: the reply adds it. Else a faithful rewrite.
    let server = ChatServer::respond(|r: &Recorded| {
        let keep = listed(r, "Keep these exact values verbatim: ");
        let avoid = listed(r, "Never add these values: ");
        if keep != "(none)" {
            // The line as it was but for its value, so that only the dropped value
            // rejects it (not its person or its form).
            let value = keep.split("; ").next().unwrap().trim_matches('"');
            let line = line(r);
            if line.contains(value) {
                Scripted::reply(&line.replace(value, "something"))
            } else {
                Scripted::reply("Something happened the other day.")
            }
        } else if avoid != "(none)" && line(r).len() % 2 == 1 {
            let leak = avoid.split("; ").next().unwrap().trim_matches('"');
            Scripted::reply(&format!("{} Also, {leak}.", line(r)))
        } else {
            faithful(r)
        }
    });
    let out = dir.path().join("data");
    let (output, text) = generate(Some(&server), &out, &dir.path().join("cache"));
    assert!(output.status.success(), "{text}");
    let template_dir = dir.path().join("template");
    let (plain, plain_text) = generate(None, &template_dir, dir.path());
    assert!(plain.status.success(), "{plain_text}");
    let realised = texts(&instance(&out));
    let template = texts(&instance(&template_dir));
    assert_eq!(realised.len(), template.len());
    for (r, t) in realised.iter().zip(&template) {
        assert!(r == t || *r == format!("Well, {t}"), "{r:?} from {t:?}");
    }
    let m = manifest(&out);
    let fallback = m["realisation"]["user"]["fallback"].as_u64().unwrap()
        + m["realisation"]["assistant"]["fallback"].as_u64().unwrap();
    assert!(fallback > 10, "{m}");
    let rewritten = m["realisation"]["user"]["rewritten"].as_u64().unwrap()
        + m["realisation"]["assistant"]["rewritten"].as_u64().unwrap();
    assert!(rewritten > 10, "{m}");
    // A rewritten request is its session's turn too.
    let rewritten = rewritten + m["realisation"]["request"]["rewritten"].as_u64().unwrap();
    assert_eq!(
        realised
            .iter()
            .zip(&template)
            .filter(|(r, t)| r != t)
            .count() as u64,
        rewritten
    );
    // Each rejected unit was asked once more, with the reason.
    assert!(server.requests().iter().any(|r| {
        r.last_user()
            .contains("was rejected because the rewrite drops")
    }));
    assert!(server.requests().iter().any(|r| {
        r.last_user()
            .contains("was rejected because the rewrite adds")
    }));
    validates(&out);
}

#[test]
fn a_failing_endpoint_exits_non_zero_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = ChatServer::respond(|_| Scripted::status(500, "internal trouble"));
    let out = dir.path().join("data");
    let (output, text) = generate(Some(&server), &out, &dir.path().join("cache"));
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("HTTP 500"), "{text}");
    assert!(text.contains("127.0.0.1"), "names the endpoint: {text}");
    assert!(text.contains("nothing was written"), "{text}");
    assert!(!text.contains("panicked"), "{text}");
    let written = std::fs::read_dir(&out).map_or(0, |d| d.count());
    assert_eq!(written, 0, "the output directory holds files");
}

#[test]
fn a_rerun_is_served_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let server = ChatServer::respond(faithful);
    let cache = dir.path().join("cache");
    let (first, text) = generate(Some(&server), &dir.path().join("a"), &cache);
    assert!(first.status.success(), "{text}");
    let asked = server.count();
    assert!(asked > 0);
    let (second, text) = generate(Some(&server), &dir.path().join("b"), &cache);
    assert!(second.status.success(), "{text}");
    assert_eq!(server.count(), asked, "the rerun asked the server again");
    assert_eq!(
        std::fs::read(dir.path().join("a").join(format!("{INSTANCE}.json"))).unwrap(),
        std::fs::read(dir.path().join("b").join(format!("{INSTANCE}.json"))).unwrap()
    );
}

#[test]
fn a_bad_realise_spec_and_an_unknown_instance_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("data");
    let (code, _, err) = crate::bemula(&[
        "generate",
        "--lite",
        "--realise",
        "gpt",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--realise \"gpt\"") && err.contains("llm:MODEL"),
        "{err}"
    );
    let (code, _, err) = crate::bemula(&[
        "generate",
        "--lite",
        "--instance",
        "nope_9",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("--instance nope_9"), "{err}");
    assert!(!out.exists() || std::fs::read_dir(&out).unwrap().count() == 0);
}

#[test]
fn realise_units_sends_only_the_first_units_of_each_kind() {
    let dir = tempfile::tempdir().unwrap();
    let server = ChatServer::respond(faithful);
    let out = dir.path().join("data");
    let output = bemula_command()
        .args(["generate", "--lite", "--instance", INSTANCE, "--out"])
        .arg(&out)
        .args(["--realise", "llm:test-model", "--realise-units", "2"])
        .args(["--retries", "0", "--base-url", &server.url, "--no-cache"])
        .env_remove("BEMULA_LLM_BASE_URL")
        .output()
        .unwrap();
    let text = output_text(&output);
    assert!(output.status.success(), "{text}");
    // Two user turns, two assistant replies, the one request and two questions.
    assert_eq!(server.count(), 7, "{text}");
    assert!(text.contains("--realise-units"), "{text}");
    let realised = instance(&out);
    let turns = texts(&realised);
    let plain_dir = dir.path().join("plain");
    let (plain_out, plain_text) = generate(None, &plain_dir, &dir.path().join("cache"));
    assert!(plain_out.status.success(), "{plain_text}");
    let template = texts(&instance(&plain_dir));
    let changed: Vec<usize> = (0..turns.len())
        .filter(|&i| turns[i] != template[i])
        .collect();
    assert_eq!(
        changed.len(),
        5,
        "the first two user and assistant texts and the request's exchange: {changed:?}"
    );
    assert_eq!(&changed[..4], [0, 1, 2, 3]);
    let questions = realised["questions"].as_array().unwrap();
    let plain = instance(&plain_dir);
    let rewritten = questions
        .iter()
        .zip(plain["questions"].as_array().unwrap())
        .filter(|(q, p)| q["text"] != p["text"])
        .count();
    assert_eq!(rewritten, 2);
    let m = manifest(&out);
    assert_eq!(m["realisation"]["units_per_kind"], 2, "{m}");
    assert_eq!(m["realisation"]["question"]["rewritten"], 2, "{m}");
    validates(&out);

    // The limit needs --realise, and 0 is refused.
    let (code, _, err) = crate::bemula(&[
        "generate",
        "--out",
        dir.path().join("x").to_str().unwrap(),
        "--realise-units",
        "2",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("--realise"), "{err}");
    let zero = bemula_command()
        .args(["generate", "--lite", "--instance", INSTANCE, "--out"])
        .arg(dir.path().join("y"))
        .args(["--realise", "llm:test-model", "--realise-units", "0"])
        .args(["--base-url", &server.url, "--no-cache"])
        .output()
        .unwrap();
    assert!(!zero.status.success());
    assert!(output_text(&zero).contains("--realise-units 0"));
}

/// Rewrites that keep every value but break the item, as a small model writes them:
/// the Boolean question turned into a statement, a question's "I" turned into "you",
/// user turns wrapped in quotes, assistant replies followed by a note on the rewriting.
/// Each falls back to its template; faithful rewrites of the other units stand.
#[test]
fn rewrites_that_break_an_items_form_fall_back_to_the_templates() {
    let dir = tempfile::tempdir().unwrap();
    let server = ChatServer::respond(|r: &Recorded| {
        let line = line(r);
        let speaker = r.last_user();
        if line.contains("yes or no") {
            // "Answer yes or no: is it true that X is V?" → "X is V."
            let claim = line.rsplit("is it true that ").next().unwrap_or(&line);
            let claim = claim.trim_end_matches('?');
            let mut claim: Vec<char> = claim.chars().collect();
            claim[0] = claim[0].to_ascii_uppercase();
            Scripted::reply(&format!("{}.", claim.into_iter().collect::<String>()))
        } else if speaker.contains("asking the assistant a question") {
            let swapped = line
                .replace(" my ", " your ")
                .replace(" I ", " you ")
                .replace(" me ", " you ")
                .replace(" me?", " you?");
            Scripted::reply(&swapped)
        } else if speaker.contains("the user, chatting") || speaker.contains("to forget") {
            Scripted::reply(&format!("\"{line}\""))
        } else if speaker.contains("the assistant, replying") {
            Scripted::reply(&format!("{line} (no quotes) No labels or notes added."))
        } else {
            faithful(r)
        }
    });
    let out = dir.path().join("data");
    let (output, text) = generate(Some(&server), &out, &dir.path().join("cache"));
    assert!(output.status.success(), "{text}");
    let template_dir = dir.path().join("template");
    let (plain, plain_text) = generate(None, &template_dir, dir.path());
    assert!(plain.status.success(), "{plain_text}");
    let (realised, template) = (instance(&out), instance(&template_dir));
    for (r, t) in texts(&realised).iter().zip(texts(&template)) {
        assert_eq!(*r, t, "every turn fell back");
    }
    let questions = |i: &Value| -> Vec<String> {
        i["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["text"].as_str().unwrap().to_string())
            .collect()
    };
    let boolean = template["questions"]
        .as_array()
        .unwrap()
        .iter()
        .position(|q| q["attack"] == "boolean")
        .unwrap();
    let (got, want) = (questions(&realised), questions(&template));
    assert_eq!(got[boolean], want[boolean]);
    assert!(got[boolean].ends_with('?'), "{}", got[boolean]);
    // A question with "my" or "I" in it kept its person.
    for (g, w) in got.iter().zip(&want) {
        if w.contains(" my ") || w.contains(" I ") {
            assert_eq!(g, w);
        }
    }
    let m = manifest(&out);
    assert_eq!(m["realisation"]["user"]["rewritten"], 0, "{m}");
    assert_eq!(m["realisation"]["assistant"]["rewritten"], 0, "{m}");
    assert!(
        m["realisation"]["question"]["fallback"].as_u64().unwrap() > 5,
        "{m}"
    );
    // The reasons went back to the model.
    let reasons: Vec<String> = server.requests().iter().map(|r| r.last_user()).collect();
    for reason in [
        "wrapped in quotes",
        "talks about the rewriting",
        "changes the person",
        "is a question and the rewrite is not",
    ] {
        assert!(reasons.iter().any(|r| r.contains(reason)), "{reason}");
    }
    validates(&out);
}
