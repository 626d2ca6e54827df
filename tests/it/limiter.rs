//! Integration tests: the per-endpoint limit of model requests in flight. The real
//! `bemula run` binary against a scripted chat-completions server on 127.0.0.1 that
//! counts the requests it has open at once: every role and model shares one limit,
//! whatever `--jobs`, and HTTP 429 makes the limit fall.

use crate::llm::chat_server::{ChatServer, Recorded, Scripted};
use std::path::Path;
use std::time::Duration;

/// The endpoint's reply: a verdict for the judge, an answer for everyone else.
fn reply(r: &Recorded) -> Scripted {
    if r.text().contains("VERDICT") {
        Scripted::reply("The answer does not give the value.\nVERDICT: CORRECT")
    } else {
        Scripted::reply("I don't have that information.")
    }
}

/// The first `n` instances of the generated Lite set, written to `dir`.
fn write_instances(dir: &Path, n: usize) {
    let dataset = bemula::generate::generate(&bemula::generate::GenConfig {
        seed: 42,
        lite: true,
        ..Default::default()
    });
    let some = bemula::dataset::Dataset::from_instances(
        dataset.instances.into_iter().take(n).collect(),
        "some",
    );
    some.write(dir).unwrap();
}

/// Runs `bemula run` against `server` without a cache; returns stdout and the
/// `usage` of the summary of `system_dir`.
fn run_bemula(
    server: &ChatServer,
    data: &Path,
    roles: &[&str],
    jobs: usize,
    max_in_flight: usize,
    system_dir: &str,
) -> (String, serde_json::Value) {
    let out = tempfile::tempdir().unwrap();
    let output = crate::bemula_command()
        .arg("run")
        .args(roles)
        .args(["--bootstrap", "0", "--no-cache", "--retries", "8"])
        .args(["--jobs", &jobs.to_string()])
        .args(["--max-in-flight", &max_in_flight.to_string()])
        .args([
            "--base-url",
            &server.url,
            "--api-key-env",
            "BEMULA_UNSET_KEY",
        ])
        .arg("--data")
        .arg(data)
        .arg("--out")
        .arg(out.path())
        .env_remove("BEMULA_UNSET_KEY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "bemula run {roles:?} --jobs {jobs}: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.path().join(system_dir).join("summary.json")).unwrap(),
    )
    .unwrap();
    (stdout, summary["config"]["extra"]["usage"].clone())
}

/// The answerer, the judge (one model or two), and the full-context system with the
/// judge never have more than `--max-in-flight` requests open at the endpoint
/// together, at any `--jobs`; the summary reports the same peak.
#[test]
fn every_role_and_model_shares_one_limit_per_endpoint_at_any_jobs() {
    const MAX: usize = 2;
    let data = tempfile::tempdir().unwrap();
    write_instances(data.path(), 2);
    let combinations: [(&str, &[&str], &str); 5] = [
        (
            "answerer only",
            &[
                "--system",
                "naive-rag",
                "--answerer",
                "llm:a",
                "--judge",
                "rule",
            ],
            "naive-rag",
        ),
        (
            "judge only",
            &["--system", "naive-rag", "--judge", "llm:j"],
            "naive-rag",
        ),
        (
            "answerer and judge",
            &[
                "--system",
                "naive-rag",
                "--answerer",
                "llm:a",
                "--judge",
                "llm:j",
            ],
            "naive-rag",
        ),
        (
            "answerer and two-model judge",
            &[
                "--system",
                "naive-rag",
                "--answerer",
                "llm:a",
                "--judge",
                "llm:j1+j2",
            ],
            "naive-rag",
        ),
        (
            "full-context system and judge",
            &["--system", "full-context:fc", "--judge", "llm:j"],
            "full-context_fc",
        ),
    ];
    let mut cases = Vec::new();
    for (name, roles, dir) in combinations {
        for jobs in [1, 2, 16, 64] {
            cases.push((name, roles, dir, jobs));
        }
    }
    // The runs are independent (a server each), so they run side by side.
    let results: Vec<(String, usize, usize, serde_json::Value)> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|&(name, roles, dir, jobs)| {
                let data = data.path();
                scope.spawn(move || {
                    let server = ChatServer::respond(|r| reply(r).delay(Duration::from_millis(10)));
                    let (_, usage) = run_bemula(&server, data, roles, jobs, MAX, dir);
                    (
                        format!("{name}, --jobs {jobs}"),
                        server.peak_in_flight(),
                        server.count(),
                        usage,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut reached = 0;
    for (case, peak, count, usage) in &results {
        assert!(*count > 10, "{case}: only {count} requests");
        assert!(
            *peak <= MAX,
            "{case}: {peak} requests open at the endpoint, limit {MAX}"
        );
        let endpoint = &usage["endpoints"][0];
        let reported = endpoint["peak_in_flight"].as_u64().unwrap_or(99) as usize;
        assert!(reported <= MAX, "{case}: reported peak {reported}: {usage}");
        assert_eq!(endpoint["max_in_flight"], MAX, "{case}: {usage}");
        assert_eq!(endpoint["rate_limited"], 0, "{case}: {usage}");
        reached += usize::from(*peak == MAX);
    }
    assert!(
        reached >= 8,
        "the limit is used, not just respected: {:?}",
        results
            .iter()
            .map(|(c, p, _, _)| format!("{c}: {p}"))
            .collect::<Vec<_>>()
    );
}

/// An endpoint that answers HTTP 429 above two requests at once: the run completes,
/// the limit falls so that later requests meet no more than the endpoint takes, and
/// the report and the summary show the 429s.
#[test]
fn rate_limited_endpoints_get_fewer_requests_and_the_run_reports_the_429s() {
    const TAKES: usize = 2;
    let data = tempfile::tempdir().unwrap();
    write_instances(data.path(), 4);
    let server = ChatServer::respond_under_load(|r, open| {
        if open > TAKES {
            Scripted::status(429, r#"{"error":{"message":"Rate limit reached"}}"#)
                .header("Retry-After", "0")
        } else {
            reply(r).delay(Duration::from_millis(10))
        }
    });
    let roles = [
        "--system",
        "naive-rag",
        "--answerer",
        "llm:a",
        "--judge",
        "llm:j",
    ];
    let (stdout, usage) = run_bemula(&server, data.path(), &roles, 16, 8, "naive-rag");
    let seen = server.load_seen();
    let early = seen[..seen.len() / 4].iter().max().copied().unwrap();
    let late = seen[seen.len() / 2..].iter().max().copied().unwrap();
    assert!(early > TAKES, "the run started above the endpoint's limit");
    assert!(
        late <= TAKES + 1,
        "the limit fell: at most {late} open in the second half, {early} at first"
    );
    let over = seen.iter().filter(|&&n| n > TAKES).count();
    assert!(
        over * 2 < seen.len(),
        "{over} of {} requests were rejected",
        seen.len()
    );
    let endpoint = &usage["endpoints"][0];
    assert_eq!(
        endpoint["rate_limited"].as_u64().unwrap() as usize,
        over,
        "every 429 is counted: {usage}"
    );
    assert!(endpoint["limit_decreases"].as_u64().unwrap() > 0, "{usage}");
    assert!(
        endpoint["min_limit"].as_u64().unwrap() <= TAKES as u64,
        "{usage}"
    );
    assert!(
        endpoint["permit_wait_secs"].as_f64().unwrap() > 0.0,
        "{usage}"
    );
    assert!(
        usage["answerer"]["retries"].as_u64().unwrap()
            + usage["judge"]["retries"].as_u64().unwrap()
            > 0,
        "{usage}"
    );
    assert!(
        stdout.contains(&format!("{over} rate-limited (429)")),
        "{stdout}"
    );
}
