//! Integration tests: safety. Files bemula writes or deletes stay inside the directory
//! it was given and never follow links; API keys reach no output; reports stay valid
//! whatever a system answers; adapter text cannot drive the terminal; a closed stdout
//! ends a command quietly; redirects are refused.

use super::bemula;
use std::path::Path;

fn generate_into(out: &Path) -> (i32, String, String) {
    bemula(&[
        "generate",
        "--lite",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ])
}

/// Rewrites the manifest of a generated directory so that it lists `extra` ids too.
fn add_to_manifest(out: &Path, extra: &[&str]) {
    let path = out.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let list = manifest["instances"].as_array_mut().unwrap();
    for id in extra {
        list.push(serde_json::Value::String(id.to_string()));
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

#[test]
fn generate_deletes_nothing_outside_out_for_a_tampered_manifest() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let victim_dir = root.path().join("victim");
    std::fs::create_dir(&victim_dir).unwrap();
    let relative = victim_dir.join("important.json");
    let absolute = victim_dir.join("absolute.json");
    std::fs::write(&relative, "keep me").unwrap();
    std::fs::write(&absolute, "keep me too").unwrap();
    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    let absolute_id = victim_dir.join("absolute");
    add_to_manifest(
        &out,
        &["../victim/important", absolute_id.to_str().unwrap()],
    );

    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&relative).unwrap(), "keep me");
    assert_eq!(std::fs::read_to_string(&absolute).unwrap(), "keep me too");
    assert!(
        stderr.contains("\"../victim/important\"") && stderr.contains("not a valid instance id"),
        "the suspicious entry is reported: {stderr}"
    );
    assert!(stderr.contains(absolute_id.to_str().unwrap()), "{stderr}");
}

#[test]
fn generate_still_removes_a_stale_instance_file_inside_out() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    assert_eq!(generate_into(&out).0, 0);
    std::fs::write(out.join("gone_001.json"), "{}").unwrap();
    add_to_manifest(&out, &["gone_001"]);
    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    assert!(!out.join("gone_001.json").exists());
    bemula::dataset::Dataset::load(&out).expect("the directory is a clean dataset again");
}

#[cfg(unix)]
#[test]
fn generate_replaces_a_planted_link_instead_of_writing_through_it() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    assert_eq!(generate_into(&out).0, 0);
    let victim = root.path().join("victim.txt");
    std::fs::write(&victim, "precious").unwrap();
    let first = bemula::dataset::instance_files(&out).unwrap()[0].clone();
    std::fs::remove_file(&first).unwrap();
    std::os::unix::fs::symlink(&victim, &first).unwrap();
    // A stale entry that is a link to a file outside is left alone too.
    let stale = out.join("stale_001.json");
    std::os::unix::fs::symlink(&victim, &stale).unwrap();
    add_to_manifest(&out, &["stale_001"]);

    let (code, _, stderr) = generate_into(&out);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let meta = std::fs::symlink_metadata(&first).unwrap();
    assert!(
        meta.file_type().is_file(),
        "the link was replaced by a file"
    );
    assert!(std::fs::read_to_string(&first).unwrap().contains("\"id\""));
    assert!(
        std::fs::symlink_metadata(&stale).unwrap().is_symlink(),
        "a link is never deleted as a stale instance"
    );
    assert!(stderr.contains("not a plain file"), "{stderr}");
}

/// An API key long enough that a cut can leave most of it.
#[cfg(feature = "llm")]
const KEY: &str = "sk-live-SAFETY-7c1e93b04d5a62f8";

/// Every run of 8 characters of [`KEY`]: none may appear in anything bemula writes.
#[cfg(feature = "llm")]
fn key_parts() -> Vec<&'static str> {
    (0..=KEY.len() - 8).map(|i| &KEY[i..i + 8]).collect()
}

#[cfg(feature = "llm")]
fn one_instance_dir() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let dataset = bemula::generate::generate(&bemula::generate::GenConfig {
        seed: 42,
        lite: true,
        ..Default::default()
    });
    let one = bemula::dataset::Dataset::from_instances(vec![dataset.instances[0].clone()], "one");
    one.write(data.path()).unwrap();
    data
}

#[cfg(feature = "llm")]
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// `bemula run --system naive-rag` over the scripted endpoint, with the given judge
/// and answerer, writing into `out` and caching into `cache`.
#[cfg(feature = "llm")]
fn run_over(
    server: &crate::llm::chat_server::ChatServer,
    judge: &str,
    answerer: &str,
    data: &Path,
    out: &Path,
    cache: &Path,
) -> std::process::Output {
    crate::bemula_command()
        .args(["run", "--system", "naive-rag", "--bootstrap", "50"])
        .args(["--judge", judge, "--answerer", answerer])
        .arg("--data")
        .arg(data)
        .arg("--out")
        .arg(out)
        .arg("--cache")
        .arg(cache)
        .args([
            "--base-url",
            &server.url,
            "--api-key-env",
            "BEMULA_SAFETY_KEY",
        ])
        .env("BEMULA_SAFETY_KEY", KEY)
        .env_remove("BEMULA_LLM_BASE_URL")
        .env_remove("BEMULA_CACHE")
        .output()
        .unwrap()
}

#[cfg(feature = "llm")]
#[test]
fn no_part_of_the_key_reaches_any_output_even_when_servers_echo_it() {
    use crate::llm::chat_server::{ChatServer, Recorded, Scripted};
    // The judge's model rejects every item with a body that holds the key across the
    // point where error bodies are cut (300 characters); the answerer's model answers
    // 200 with the Authorization header echoed in its reply.
    let server = ChatServer::respond(|r: &Recorded| {
        let echoed = r.header("authorization").unwrap_or("").to_string();
        if r.last_user().contains("single word OK") {
            Scripted::reply("OK")
        } else if r.model() == "judge-model" {
            let filler = "x".repeat(300 - (KEY.len() - 1) - 1);
            Scripted::status(400, &format!("{filler} {KEY} was not allowed"))
        } else {
            Scripted::reply(&format!("Debug: you sent Authorization: {echoed}"))
        }
    });
    let data = one_instance_dir();
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let run = run_over(
        &server,
        "llm:judge-model",
        "llm:answer-model",
        data.path(),
        out.path(),
        cache.path(),
    );
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(server.count() > 3, "the models were called: {stderr}");
    let results = std::fs::read_to_string(out.path().join("naive-rag/results.jsonl"))
        .unwrap_or_else(|e| panic!("results.jsonl: {e}; stderr: {stderr}"));
    assert!(
        results.contains("[redacted]"),
        "the echo was redacted, not lost"
    );
    let mut texts = vec![
        ("stdout".to_string(), stdout),
        ("stderr".to_string(), stderr),
    ];
    for dir in [out.path(), cache.path()] {
        for file in files_under(dir) {
            let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
            texts.push((file.display().to_string(), text));
        }
    }
    assert!(texts.len() > 5, "reports and cache entries were written");
    for (name, text) in &texts {
        for part in key_parts() {
            assert!(!text.contains(part), "{name} holds {part:?} of the key");
        }
    }
}

/// Whether `c` may appear in an XML 1.0 document.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Parses `text` as XML to the end, failing on any error or on a character XML 1.0
/// does not allow.
fn parse_xml_strictly(text: &str) {
    if let Some((i, c)) = text.char_indices().find(|(_, c)| !xml_char(*c)) {
        panic!("character {c:?} at byte {i} is not allowed in XML 1.0");
    }
    for (i, _) in text.match_indices("&#") {
        let rest = &text[i + 2..];
        let end = rest.find(';').expect("a character reference ends with ';'");
        let code = match rest[..end].strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => rest[..end].parse(),
        }
        .expect("a numeric character reference");
        let c = char::from_u32(code).expect("a character");
        assert!(xml_char(c), "reference to {c:?} is not allowed in XML 1.0");
    }
    let mut reader = quick_xml::Reader::from_str(text);
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(_)) => depth += 1,
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Text(t)) => {
                let text = t.decode().expect("text decodes");
                assert!(!text.contains("]]>"), "`]]>` outside a CDATA end: {text}");
            }
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not well-formed at {}: {e}", reader.error_position()),
        }
    }
    assert_eq!(depth, 0, "every element is closed");
}

#[test]
fn the_strict_xml_check_rejects_control_characters() {
    for bad in [
        "<a>bell \u{7}</a>",
        "<a>bell &#7;</a>",
        "<a><![CDATA[x]]>]]></a>",
        "<a><b></a>",
    ] {
        let result = std::panic::catch_unwind(|| parse_xml_strictly(bad));
        assert!(result.is_err(), "{bad:?} passed");
    }
    parse_xml_strictly("<a>fine &amp; dandy</a>");
}

#[cfg(feature = "llm")]
#[test]
fn junit_is_valid_xml_whatever_an_answer_holds() {
    use crate::llm::chat_server::{ChatServer, Recorded, Scripted};
    let hostile = "Denver\u{1b}]0;owned\u{7}\u{1b}[2J\u{0}\u{8}\u{b}\u{c}\u{fffe}<![CDATA[]]>";
    let server = ChatServer::respond(move |r: &Recorded| {
        if r.last_user().contains("single word OK") {
            Scripted::reply("OK")
        } else {
            Scripted::reply(hostile)
        }
    });
    let data = one_instance_dir();
    let out = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let run = run_over(
        &server,
        "rule",
        "llm:answer-model",
        data.path(),
        out.path(),
        cache.path(),
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    let junit = std::fs::read_to_string(out.path().join("naive-rag/junit.xml"))
        .unwrap_or_else(|e| panic!("junit.xml: {e}; stderr: {stderr}"));
    assert!(
        junit.contains("<failure"),
        "some request failed on the answer"
    );
    parse_xml_strictly(&junit);
    assert!(
        junit.contains("\\u{1b}]0;owned"),
        "the control characters are shown escaped"
    );
}

const HOSTILE: &str = concat!(
    "cmd:python3 ",
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/adapters/hostile.py"
);

/// Fails when `text` holds a control character other than a line feed.
fn assert_inert(what: &str, text: &str) {
    if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\n') {
        panic!("{what} holds the control character {c:?}:\n{text}");
    }
}

#[test]
fn adapter_text_is_shown_escaped_in_the_results_table_and_messages() {
    let data = tempfile::tempdir().unwrap();
    let dataset = bemula::generate::generate(&bemula::generate::GenConfig {
        seed: 42,
        lite: true,
        ..Default::default()
    });
    bemula::dataset::Dataset::from_instances(vec![dataset.instances[0].clone()], "one")
        .write(data.path())
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = bemula(&[
        "run",
        "--system",
        HOSTILE,
        "--bootstrap",
        "50",
        "--data",
        data.path().to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_inert("stdout", &stdout);
    assert_inert("stderr", &stderr);
    assert!(
        !stdout.lines().any(|l| l.starts_with("fake-row")),
        "the name printed a row of its own:\n{stdout}"
    );
    assert!(
        stdout.contains("\\u{1b}]0;pwned\\u{7}hostile\\nfake-row"),
        "{stdout}"
    );
}

#[test]
fn check_adapter_shows_adapter_text_escaped() {
    let (code, stdout, stderr) = bemula(&["check-adapter", "--system", HOSTILE]);
    assert_eq!(code, 1, "a check fails: {stdout}{stderr}");
    assert_inert("stdout", &stdout);
    assert!(stdout.contains("adapter stderr"), "{stdout}");
    assert!(stdout.contains("\\u{1b}]0;stderr-title"), "{stdout}");
}

#[test]
fn a_failing_request_shows_the_answer_escaped_in_bemula_test() {
    let report = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = bemula(&[
        "test",
        "--system",
        HOSTILE,
        "--report-dir",
        report.path().to_str().unwrap(),
        "--",
        "short_001::",
        "--test-threads",
        "1",
    ]);
    assert_ne!(code, 0, "requests fail: {stderr}");
    assert!(stdout.contains("Denver\\u{1b}[2J"), "{stdout}");
    assert_inert("stdout", &stdout);
    assert_inert("stderr", &stderr);
}

/// Runs the built binary with `args`, its standard output a pipe whose reading end is
/// closed at once: exit code and standard error.
fn with_stdout_closed(args: &[&str]) -> (Option<i32>, String) {
    let mut child = crate::bemula_command()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn generate_with_stdout_closed_ends_quietly() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let (code, stderr) =
        with_stdout_closed(&["generate", "--lite", "--out", out.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.join("manifest.json").is_file());
}

#[test]
fn test_with_stdout_closed_still_writes_its_reports() {
    let report = tempfile::tempdir().unwrap();
    let (code, stderr) = with_stdout_closed(&[
        "test",
        "--system",
        "naive-rag",
        "--report-dir",
        report.path().to_str().unwrap(),
        "--",
        "short_00",
        "--test-threads",
        "1",
    ]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        matches!(code, Some(0) | Some(101)),
        "libtest's own status: {code:?} {stderr}"
    );
    for file in ["results.jsonl", "summary.json", "junit.xml"] {
        assert!(report.path().join(file).is_file(), "{file} was written");
    }
}

#[test]
fn calibrate_with_stdout_closed_ends_quietly() {
    let labels = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/conformance/calibration/labels.jsonl"
    );
    let (code, stderr) = with_stdout_closed(&["calibrate", "--labels", labels]);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(matches!(code, Some(0) | Some(1)), "{code:?} {stderr}");
}

#[cfg(feature = "llm")]
#[tokio::test]
async fn the_llm_client_refuses_a_redirect_and_names_its_target() {
    use crate::llm::chat_server::{ChatServer, Recorded, Scripted};
    let server = ChatServer::respond(|r: &Recorded| {
        if r.path.ends_with("/moved") {
            Scripted::reply("OK")
        } else {
            Scripted::status(302, "").header("Location", "/v1/moved?token=abc")
        }
    });
    let mut config = bemula::llm::LlmConfig::new(&server.url, "m");
    config.cache_dir = None;
    config.retries = 2;
    let meter = std::sync::Arc::new(bemula::llm::UsageMeter::new());
    let client =
        bemula::llm::LlmClient::with_api_key(config, Some(bemula::llm::ApiKey::new(KEY)), meter)
            .unwrap();
    let err = client.preflight().await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("HTTP 302") && !err.is_transient(), "{text}");
    assert!(
        text.contains("/v1/moved") && text.contains("not followed"),
        "{text}"
    );
    assert!(!text.contains("token=abc"), "the query is left out: {text}");
    assert_eq!(server.count(), 1, "neither followed nor retried");
}

#[cfg(feature = "llm")]
#[tokio::test]
async fn the_http_adapter_transport_refuses_a_redirect_and_names_its_target() {
    use crate::llm::chat_server::{ChatServer, Recorded, Scripted};
    let server = ChatServer::respond(|r: &Recorded| {
        if r.path.ends_with("/elsewhere") {
            Scripted::status(200, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        } else {
            Scripted::status(307, "").header("Location", "/elsewhere")
        }
    });
    let options = bemula::system::remote::RemoteOptions::default();
    let Err(err) = bemula::system::remote::connect(&server.url, &options).await else {
        panic!("the handshake succeeded through a redirect");
    };
    let text = err.to_string();
    assert!(
        text.contains("307") && text.contains("/elsewhere"),
        "{text}"
    );
    assert!(text.contains("not followed"), "{text}");
    assert_eq!(server.count(), 1, "the redirect was not followed");
}
