//! Integration tests: the protocol runner, end to end on generated data.

use bemula::answer::Extractive;
use bemula::dataset::{Dataset, Instance, Suite, Version};
use bemula::generate::{GenConfig, generate};
use bemula::judge::rule::RuleJudge;
use bemula::record::Record;
use bemula::run::{RunConfig, Runner, Selection};
use bemula::system::{
    ErrorKind, FnFactory, MemorySystem, Namespace, Reply, SessionInfo, SharedFactory, SystemError,
    SystemResult, TurnInput, builtin,
};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock};

/// The Lite data of seed 42 by generator v1 (whose wording the built-in systems'
/// expected behaviour below was measured on), generated once for all tests of this
/// module.
fn lite() -> &'static Dataset {
    static DATA: OnceLock<Dataset> = OnceLock::new();
    DATA.get_or_init(|| {
        generate(&GenConfig {
            seed: 42,
            lite: true,
            generator: bemula::generate::Generator::V1,
            ..Default::default()
        })
    })
}

/// A few short instances, for tests that run every built-in system.
fn small() -> Vec<Instance> {
    lite()
        .instances
        .iter()
        .filter(|i| i.id.starts_with("short_"))
        .take(4)
        .cloned()
        .collect()
}

fn runner(factory: SharedFactory) -> Runner {
    Runner::new(
        factory,
        Arc::new(Extractive),
        Arc::new(RuleJudge),
        RunConfig {
            jobs: 2,
            ..RunConfig::default()
        },
    )
}

fn run_blocking(runner: &Runner, instances: &[Instance]) -> Vec<Record> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(runner.run_all(instances))
}

#[derive(Debug, Clone, PartialEq)]
enum Call {
    Reset(String),
    Start(String, String),
    Observe(String, String),
    End(String),
    Flush(String),
    Query(String, String),
}

/// Records every call it receives; stores nothing.
struct Recorder(Arc<Mutex<Vec<Call>>>);

impl MemorySystem for Recorder {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.0.lock().unwrap().push(Call::Reset(ns.to_string()));
        Ok(())
    }
    fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.0
            .lock()
            .unwrap()
            .push(Call::Start(ns.to_string(), session.id.clone()));
        Ok(())
    }
    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.0
            .lock()
            .unwrap()
            .push(Call::Observe(ns.to_string(), turn.user.clone()));
        Ok(())
    }
    fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.0.lock().unwrap().push(Call::End(ns.to_string()));
        Ok(())
    }
    fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.0.lock().unwrap().push(Call::Flush(ns.to_string()));
        Ok(())
    }
    fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        self.0
            .lock()
            .unwrap()
            .push(Call::Query(ns.to_string(), question.to_string()));
        Ok(Reply::Memories(vec![]))
    }
}

/// The calls the protocol prescribes for one version of an instance, in order.
fn expected_calls(instance: &Instance, version: Version) -> Vec<Call> {
    let ns = format!("{}/{}", instance.id, version.name());
    let mut calls = vec![Call::Reset(ns.clone())];
    for session in instance.dialogue(version) {
        calls.push(Call::Start(ns.clone(), session.id.clone()));
        calls.extend(
            session
                .turns
                .iter()
                .map(|t| Call::Observe(ns.clone(), t.user.clone())),
        );
        calls.push(Call::End(ns.clone()));
    }
    calls.push(Call::Flush(ns.clone()));
    let order: &[Suite] = match version {
        Version::Control => &[Suite::Retention, Suite::Preservation, Suite::Attack],
        Version::Forget => &[
            Suite::Efficacy,
            Suite::Preservation,
            Suite::Attack,
            Suite::Relearning,
        ],
    };
    for suite in order {
        for q in instance
            .questions
            .iter()
            .filter(|q| q.suite == *suite && q.asked_on(version))
        {
            if let (Version::Forget, Some(dialogue)) = (version, &q.relearn) {
                calls.push(Call::Start(ns.clone(), format!("{}/relearn", q.id)));
                calls.extend(
                    dialogue
                        .iter()
                        .map(|t| Call::Observe(ns.clone(), t.user.clone())),
                );
                calls.push(Call::End(ns.clone()));
                calls.push(Call::Flush(ns.clone()));
            }
            calls.push(Call::Query(ns.clone(), q.text.clone()));
        }
    }
    calls
}

#[test]
fn protocol_order_follows_appendix_a() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let instances = small();
    let log2 = log.clone();
    let factory: SharedFactory =
        Arc::new(FnFactory::new("recorder", move || Recorder(log2.clone())));
    let records = run_blocking(&runner(factory), &instances);
    let calls = log.lock().unwrap().clone();
    for instance in &instances {
        for version in [Version::Control, Version::Forget] {
            let ns = format!("{}/{}", instance.id, version.name());
            let got: Vec<Call> = calls
                .iter()
                .filter(|c| match c {
                    Call::Reset(n)
                    | Call::Start(n, _)
                    | Call::Observe(n, _)
                    | Call::End(n)
                    | Call::Flush(n)
                    | Call::Query(n, _) => *n == ns,
                })
                .cloned()
                .collect();
            let want = expected_calls(instance, version);
            assert_eq!(got.len(), want.len(), "number of calls in {ns}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "call {i} in {ns}");
            }
        }
        // The forget version carries the request turns, the control version the fillers.
        let forget_users: BTreeSet<&str> = instance
            .sessions
            .iter()
            .flat_map(|s| s.turns.iter().map(|t| t.user.as_str()))
            .collect();
        for request in &instance.requests {
            assert!(forget_users.contains(request.turn.user.as_str()));
            let control_ns = format!("{}/control", instance.id);
            assert!(
                !calls.contains(&Call::Observe(control_ns, request.turn.user.clone())),
                "control pass saw request {}",
                request.id
            );
        }
    }
    // Every question asked on its versions produced exactly one record.
    let asked: usize = instances
        .iter()
        .flat_map(|i| i.questions.iter())
        .map(|q| {
            usize::from(q.asked_on(Version::Control)) + usize::from(q.asked_on(Version::Forget))
        })
        .sum();
    assert_eq!(records.len(), asked);
    assert!(records.iter().all(|r| r.error.is_none()));
}

#[test]
fn selection_asks_only_the_selected_requests_and_preservation() {
    let instance = lite()
        .instances
        .iter()
        .find(|i| i.requests.len() >= 2)
        .expect("an instance with two requests")
        .clone();
    let chosen = instance.requests[0].id.clone();
    let factory = builtin::factory("naive-rag").unwrap();
    let runner = runner(factory);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let records =
        rt.block_on(runner.run_instance(&instance, &Selection::Requests([chosen.clone()].into())));
    assert!(!records.is_empty());
    for r in &records {
        match &r.request {
            Some(req) => assert_eq!(req, &chosen),
            None => assert_eq!(r.suite, Suite::Preservation),
        }
    }
    assert_eq!(
        records
            .iter()
            .filter(|r| r.suite == Suite::Preservation)
            .count(),
        6,
        "3 preservation questions on both versions"
    );
}

/// Fails every `query` whose question contains "address", and crashes on a marker turn.
struct Flaky {
    inner: Box<dyn MemorySystem>,
    attempts: Arc<Mutex<usize>>,
}

impl MemorySystem for Flaky {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.inner.reset(ns)
    }
    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.inner.observe(ns, turn)
    }
    fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        *self.attempts.lock().unwrap() += 1;
        if question.contains('?') && question.len() % 3 == 0 {
            return Err(SystemError::new(ErrorKind::Timeout, "simulated timeout"));
        }
        self.inner.query(ns, question)
    }
}

#[test]
fn failing_queries_are_recorded_as_errors_never_resent_and_the_run_goes_on() {
    let instances = small();
    let attempts = Arc::new(Mutex::new(0));
    let a2 = attempts.clone();
    let factory: SharedFactory = Arc::new(FnFactory::new("flaky", move || Flaky {
        inner: Box::new(builtin::NaiveRag::default()),
        attempts: a2.clone(),
    }));
    let records = run_blocking(&runner(factory), &instances);
    let errors: Vec<&Record> = records.iter().filter(|r| r.error.is_some()).collect();
    let failing_questions = records
        .iter()
        .filter(|r| r.question.contains('?') && r.question.len() % 3 == 0)
        .count();
    assert_eq!(
        errors.len(),
        failing_questions,
        "exactly the failing queries are errors"
    );
    assert!(
        !errors.is_empty() && errors.len() < records.len(),
        "some but not all items fail"
    );
    for e in &errors {
        assert!(!e.correct, "an error never counts as correct");
        assert!(e.answer.is_none());
        assert!(
            e.error.as_deref().unwrap().contains("timeout"),
            "{:?}",
            e.error
        );
    }
    // A query that timed out may still be running: it is never sent again.
    assert_eq!(*attempts.lock().unwrap(), records.len());
}

#[test]
fn every_builtin_system_runs_the_whole_protocol() {
    let instances = small();
    for name in builtin::NAMES {
        let records = run_blocking(&runner(builtin::factory(name).unwrap()), &instances);
        assert!(!records.is_empty(), "{name}");
        assert!(
            records.iter().all(|r| r.error.is_none()),
            "{name}: no errors"
        );
        let summary = bemula::metrics::compute(&records);
        match name {
            "null" => {
                assert_eq!(summary.ra, Some(0.0), "null stores nothing");
                assert_eq!(summary.score, Some(0.0));
                assert_eq!(summary.rpr, Some(0.0));
            }
            "wipe" => {
                assert_eq!(summary.pr, Some(0.0), "wipe forgets everything");
                assert_eq!(summary.score, Some(0.0));
            }
            "transcript" | "naive-rag" => {
                assert!(
                    summary.ra.unwrap() > 0.6,
                    "{name} remembers: RA {:?}",
                    summary.ra
                );
                assert!(
                    summary.fe.unwrap() < 0.2,
                    "{name} never forgets: FE {:?}",
                    summary.fe
                );
            }
            _ => {}
        }
    }
}

/// Anyone can recompute summary.json's metrics from results.jsonl alone: an independent
/// implementation of Eq. 2–5 in Python agrees with the Rust one on every built-in system.
#[test]
fn an_independent_recomputation_from_results_jsonl_agrees_with_summary_json() {
    let out = tempfile::tempdir().unwrap();
    let status = crate::bemula_command()
        .args([
            "run",
            "--system",
            "naive-rag",
            "--system",
            "wipe",
            "--system",
            "scoped-forget",
            "--bootstrap",
            "50",
        ])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    for system in ["naive-rag", "wipe", "scoped-forget"] {
        let dir = out.path().join(system);
        let python = std::process::Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/fixtures/recompute.py"
            ))
            .arg(dir.join("results.jsonl"))
            .output()
            .unwrap();
        assert!(
            python.status.success(),
            "{}",
            String::from_utf8_lossy(&python.stderr)
        );
        let theirs: serde_json::Value = serde_json::from_slice(&python.stdout).unwrap();
        let summary: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
        for key in ["RA", "FE", "PR", "RLA", "AR", "RPR", "FA", "UG", "Score"] {
            let (a, b) = (&summary["metrics"][key], &theirs[key]);
            match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => assert!(
                    (x - y).abs() < 1e-12,
                    "{system} {key}: summary {x}, recomputed {y}"
                ),
                _ => assert_eq!(a, b, "{system} {key}"),
            }
        }
    }
}

/// Panics on the first query of one namespace; otherwise naive RAG.
struct Panicky {
    inner: builtin::NaiveRag,
    doomed: String,
}

impl MemorySystem for Panicky {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.inner.reset(ns)
    }
    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.inner.observe(ns, turn)
    }
    fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        if ns.as_str() == self.doomed {
            panic!("index corrupted");
        }
        MemorySystem::query(&mut self.inner, ns, question)
    }
}

#[test]
fn a_panicking_system_costs_its_pass_not_the_run() {
    let instances = small();
    let doomed = format!("{}/forget", instances[0].id);
    let d2 = doomed.clone();
    let factory: SharedFactory = Arc::new(FnFactory::new("panicky", move || Panicky {
        inner: builtin::NaiveRag::default(),
        doomed: d2.clone(),
    }));
    let records = run_blocking(&runner(factory), &instances);
    let asked: usize = instances
        .iter()
        .flat_map(|i| i.questions.iter())
        .map(|q| {
            usize::from(q.asked_on(Version::Control)) + usize::from(q.asked_on(Version::Forget))
        })
        .sum();
    assert_eq!(records.len(), asked, "every question has a record");
    for r in &records {
        let in_doomed_pass = format!("{}/{}", r.instance, r.version) == doomed;
        if in_doomed_pass {
            let error = r.error.as_deref().expect("the doomed pass is all errors");
            assert!(
                error.contains("panicked during the forget pass: index corrupted"),
                "{error}"
            );
            assert!(!r.correct);
        } else {
            assert!(r.error.is_none(), "{r:?}");
        }
    }
    assert!(
        records.iter().any(|r| r.correct),
        "the other passes were answered"
    );
}

/// A rule judge that takes `delay` per verdict (a model call, say), and counts how many
/// verdicts are being made at once at most.
struct SlowJudge {
    delay: std::time::Duration,
    now: std::sync::atomic::AtomicUsize,
    most: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl bemula::judge::Judge for SlowJudge {
    async fn judge(
        &self,
        item: &bemula::judge::JudgeItem<'_>,
        answer: &str,
    ) -> bemula::judge::Verdict {
        use std::sync::atomic::Ordering::SeqCst;
        let now = self.now.fetch_add(1, SeqCst) + 1;
        self.most.fetch_max(now, SeqCst);
        tokio::time::sleep(self.delay).await;
        self.now.fetch_sub(1, SeqCst);
        RuleJudge.judge(item, answer).await
    }
    fn name(&self) -> String {
        "slow".into()
    }
}

#[test]
fn judging_runs_beside_the_next_queries_and_records_keep_their_order() {
    let instance = small().remove(0);
    let questions = Runner::questions_for(&instance, Version::Forget, &Selection::All).len();
    assert!(questions >= 8, "enough questions to see the overlap");
    let judge = Arc::new(SlowJudge {
        delay: std::time::Duration::from_millis(300),
        now: Default::default(),
        most: Default::default(),
    });
    let runner = Runner::new(
        builtin::factory("naive-rag").unwrap(),
        Arc::new(Extractive),
        judge.clone(),
        RunConfig::default(),
    );
    let in_order = run_blocking(
        &runner_of(builtin::factory("naive-rag").unwrap()),
        std::slice::from_ref(&instance),
    );
    let started = std::time::Instant::now();
    let records = run_blocking(&runner, std::slice::from_ref(&instance));
    let elapsed = started.elapsed();
    let most = judge.most.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        most >= questions,
        "the verdicts of one pass are made at once, not one after another: {most} at most"
    );
    assert!(
        elapsed < std::time::Duration::from_millis(300) * questions as u32 / 2,
        "{elapsed:?} for {questions} questions of 300 ms each"
    );
    let ids = |records: &[Record]| -> Vec<(Version, String)> {
        records
            .iter()
            .map(|r| (r.version, r.question_id.clone()))
            .collect()
    };
    assert_eq!(
        ids(&records),
        ids(&in_order),
        "records keep the protocol's order"
    );
}

#[test]
fn by_default_every_instance_is_in_flight_whatever_the_cores() {
    let instances = lite()
        .instances
        .iter()
        .take(12)
        .cloned()
        .collect::<Vec<_>>();
    let now = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let most = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (n, m) = (now.clone(), most.clone());
    let factory: SharedFactory = Arc::new(FnFactory::new("counting", move || Counting {
        inner: builtin::NaiveRag::default(),
        now: n.clone(),
        most: m.clone(),
        open: false,
    }));
    let records = run_blocking(&runner_of(factory), &instances);
    assert!(records.iter().all(|r| r.error.is_none()));
    assert_eq!(
        most.load(std::sync::atomic::Ordering::SeqCst),
        2 * instances.len(),
        "both passes of every instance were in flight at once"
    );
}

/// Counts the namespaces between their reset and their last query: a pass holds its
/// place from `reset` until it is dropped.
struct Counting {
    inner: builtin::NaiveRag,
    now: Arc<std::sync::atomic::AtomicUsize>,
    most: Arc<std::sync::atomic::AtomicUsize>,
    open: bool,
}

impl Drop for Counting {
    fn drop(&mut self) {
        if self.open {
            self.now.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

#[async_trait::async_trait]
impl bemula::system::AsyncMemorySystem for Counting {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        if !self.open {
            self.open = true;
            let now = self.now.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
            self.most
                .fetch_max(now, std::sync::atomic::Ordering::SeqCst);
        }
        // A slow system's first call: the passes that can start meanwhile do.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        MemorySystem::reset(&mut self.inner, ns)
    }
    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        MemorySystem::observe(&mut self.inner, ns, turn)
    }
    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        MemorySystem::query(&mut self.inner, ns, question)
    }
}

/// A runner with the default configuration.
fn runner_of(factory: SharedFactory) -> Runner {
    Runner::new(
        factory,
        Arc::new(Extractive),
        Arc::new(RuleJudge),
        RunConfig::default(),
    )
}

/// `--answerer oracle` reads the gold values: a system that keeps the whole dialogue
/// then retains every stated fact of the hand-written set, so preservation and
/// relearning are perfect and only the derived (F4) facts, which no turn states, stay
/// unknown; nothing is forgotten, so every attack leaks. An unknown answerer names the
/// choices.
#[test]
fn the_oracle_reader_measures_what_a_transcript_keeps_on_the_hand_written_set() {
    let out = tempfile::tempdir().unwrap();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/handwritten");
    let run = crate::bemula_command()
        .args(["run", "--system", "transcript", "--answerer", "oracle"])
        .args(["--bootstrap", "0", "--data", data])
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("transcript/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["config"]["answerer"], "oracle", "{summary}");
    let metric = |name: &str| summary["metrics"][name].as_f64().unwrap();
    assert_eq!(metric("PR"), 1.0);
    assert_eq!(metric("RLA"), 1.0);
    assert_eq!(metric("AR"), 0.0);
    let dataset = Dataset::load(std::path::Path::new(data)).unwrap();
    let retention: Vec<_> = dataset
        .instances
        .iter()
        .flat_map(|i| i.questions.iter().map(move |q| (i, q)))
        .filter(|(_, q)| q.suite == Suite::Retention)
        .collect();
    let derived = retention
        .iter()
        .filter(|(i, q)| i.profile.derived_facts.iter().any(|d| d.id == q.fact))
        .count();
    let expected = (retention.len() - derived) as f64 / retention.len() as f64;
    assert!((metric("RA") - expected).abs() < 1e-9, "{summary}");

    let (code, _, stderr) = crate::bemula(&["run", "--answerer", "oracel", "--system", "null"]);
    assert_ne!(code, 0);
    assert!(stderr.contains("`oracle`"), "{stderr}");
}

/// Replies waiting to be answered, per namespace: counted up by the system's query,
/// down by the answerer once it has answered.
type Waiting = Arc<Mutex<std::collections::HashMap<String, (usize, usize)>>>;

/// Returns the same memories to every question at once, noting how many replies of
/// its namespace are waiting (most seen, waiting now).
struct AtOnce(Waiting);

impl MemorySystem for AtOnce {
    fn reset(&mut self, _ns: &Namespace) -> SystemResult<()> {
        Ok(())
    }
    fn observe(&mut self, _ns: &Namespace, _turn: &TurnInput) -> SystemResult<()> {
        Ok(())
    }
    fn query(&mut self, ns: &Namespace, _question: &str) -> SystemResult<Reply> {
        let mut waiting = self.0.lock().unwrap();
        let (most, now) = waiting.entry(ns.to_string()).or_default();
        *now += 1;
        *most = (*most).max(*now);
        // A quarter of what a pass may hold waiting, and a little more.
        let size = bemula::run::MAX_WAITING_REPLY_BYTES / 4 + 1;
        let mut memory = "The spare key is under the blue flowerpot. ".repeat(size / 43 + 1);
        memory.truncate(size);
        Ok(Reply::memories([memory]))
    }
}

/// Takes its time over every answer, then says one reply fewer is waiting.
struct Slow(Waiting);

#[async_trait::async_trait]
impl bemula::answer::Answerer for Slow {
    async fn answer(
        &self,
        _question: &str,
        _memories: &[bemula::system::Memory],
    ) -> Result<String, bemula::answer::AnswerError> {
        unreachable!("the runner asks with the question's item")
    }
    async fn answer_question(
        &self,
        instance: &Instance,
        _question: &bemula::dataset::Question,
        version: Version,
        _memories: &[bemula::system::Memory],
    ) -> Result<String, bemula::answer::AnswerError> {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let ns = format!("{}/{}", instance.id, version.name());
        self.0.lock().unwrap().get_mut(&ns).unwrap().1 -= 1;
        Ok("I don't know.".to_string())
    }
    fn name(&self) -> String {
        "slow".to_string()
    }
}

#[test]
fn a_pass_holds_a_bounded_amount_of_replies_waiting_to_be_answered() {
    let instance = lite()
        .instances
        .iter()
        .max_by_key(|i| i.questions.len())
        .unwrap()
        .clone();
    assert!(instance.questions.len() > 8);
    let waiting = Waiting::default();
    let w = waiting.clone();
    let factory: SharedFactory = Arc::new(FnFactory::new("instant", move || AtOnce(w.clone())));
    let runner = Runner::new(
        factory,
        Arc::new(Slow(waiting.clone())),
        Arc::new(RuleJudge),
        RunConfig::default(),
    );
    let records = run_blocking(&runner, std::slice::from_ref(&instance));
    assert!(records.iter().all(|r| r.error.is_none()), "{records:?}");
    let waiting = waiting.lock().unwrap();
    assert_eq!(waiting.len(), 2, "{waiting:?}");
    for (ns, &(most, now)) in waiting.iter() {
        assert_eq!(now, 0, "{ns}: every reply was answered");
        // The pass went on asking while answers were pending, up to the bound: three
        // replies waiting, and the one that waits for room.
        assert_eq!(most, 4, "{ns}");
    }
}

/// The rule judge, recording the threads it judged on; it says it works offline when
/// `offline` is set, as the rule judge does.
struct ThreadJudge {
    offline: bool,
    panic_on: Option<String>,
    threads: Mutex<BTreeSet<String>>,
}

impl ThreadJudge {
    fn new(offline: bool, panic_on: Option<String>) -> ThreadJudge {
        ThreadJudge {
            offline,
            panic_on,
            threads: Mutex::default(),
        }
    }
}

#[async_trait::async_trait]
impl bemula::judge::Judge for ThreadJudge {
    async fn judge(
        &self,
        item: &bemula::judge::JudgeItem<'_>,
        answer: &str,
    ) -> bemula::judge::Verdict {
        let thread = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .to_string();
        self.threads.lock().unwrap().insert(thread);
        if self.panic_on.as_deref() == Some(item.question) {
            panic!("the judge failed on this question");
        }
        RuleJudge.judge(item, answer).await
    }
    fn name(&self) -> String {
        "rule".into()
    }
    fn runs_offline(&self) -> bool {
        self.offline
    }
}

fn pool_runner(
    factory: SharedFactory,
    answerer: Arc<dyn bemula::answer::Answerer>,
    judge: Arc<dyn bemula::judge::Judge>,
    reading_pool: bool,
) -> Runner {
    Runner::new(
        factory,
        answerer,
        judge,
        RunConfig {
            jobs: 2,
            reading_pool,
            ..RunConfig::default()
        },
    )
}

#[test]
fn reading_on_the_pool_gives_the_same_records_as_reading_on_the_runtime() {
    let instances = small();
    let readers: [Arc<dyn bemula::answer::Answerer>; 2] = [
        Arc::new(Extractive),
        Arc::new(bemula::oracle::Oracle::new()),
    ];
    for name in builtin::NAMES {
        for answerer in &readers {
            let on_runtime = run_blocking(
                &pool_runner(
                    builtin::factory(name).unwrap(),
                    answerer.clone(),
                    Arc::new(RuleJudge),
                    false,
                ),
                &instances,
            );
            let on_pool = run_blocking(
                &pool_runner(
                    builtin::factory(name).unwrap(),
                    answerer.clone(),
                    Arc::new(RuleJudge),
                    true,
                ),
                &instances,
            );
            assert!(!on_pool.is_empty());
            assert_eq!(
                serde_json::to_value(&on_pool).unwrap(),
                serde_json::to_value(&on_runtime).unwrap(),
                "{name} with the {} reader",
                answerer.name()
            );
        }
    }
}

#[test]
fn only_offline_reading_goes_to_the_pool_and_only_when_asked() {
    let instances = &small()[..1];
    let threads = |offline: bool, reading_pool: bool| {
        let judge = Arc::new(ThreadJudge::new(offline, None));
        let records = run_blocking(
            &pool_runner(
                builtin::factory("naive-rag").unwrap(),
                Arc::new(Extractive),
                judge.clone(),
                reading_pool,
            ),
            instances,
        );
        assert!(records.iter().all(|r| r.error.is_none()));
        let threads = judge.threads.lock().unwrap().clone();
        assert!(!threads.is_empty());
        threads
    };
    let on_pool =
        |threads: &BTreeSet<String>| threads.iter().all(|t| t.starts_with("bemula-reader-"));
    let off_pool =
        |threads: &BTreeSet<String>| threads.iter().all(|t| !t.starts_with("bemula-reader-"));
    let offline_pooled = threads(true, true);
    assert!(on_pool(&offline_pooled), "{offline_pooled:?}");
    let offline_unpooled = threads(true, false);
    assert!(off_pool(&offline_unpooled), "{offline_unpooled:?}");
    // A judge that may wait on a model stays on the runtime even with the pool on.
    let online = threads(false, true);
    assert!(off_pool(&online), "{online:?}");
}

#[test]
fn a_judge_panicking_on_the_pool_costs_its_question_not_the_run() {
    let instances = small();
    let doomed = instances[0]
        .questions
        .iter()
        .find(|q| q.asked_on(Version::Forget))
        .unwrap()
        .text
        .clone();
    let judge = Arc::new(ThreadJudge::new(true, Some(doomed.clone())));
    let records = run_blocking(
        &pool_runner(
            builtin::factory("naive-rag").unwrap(),
            Arc::new(Extractive),
            judge,
            true,
        ),
        &instances,
    );
    let failed: Vec<&Record> = records.iter().filter(|r| r.error.is_some()).collect();
    assert!(!failed.is_empty());
    for r in &failed {
        assert_eq!(r.question, doomed);
        let error = r.error.as_deref().unwrap();
        assert!(
            error.contains("the judge failed on this question"),
            "the panic's message is kept: {error}"
        );
    }
    assert!(
        records.iter().filter(|r| r.error.is_none()).count() > failed.len() * 10,
        "the other questions were judged"
    );
}

/// Every event of a run, as a sink hears it.
#[derive(Default)]
struct Heard {
    judged: Mutex<Vec<(String, Version)>>,
    passes: Mutex<Vec<(String, Version, usize)>>,
    instances: Mutex<Vec<(String, usize, Vec<bemula::metrics::RequestOutcome>)>>,
}

impl bemula::run::RunSink for Heard {
    fn on(&self, event: &bemula::run::RunEvent<'_>) {
        use bemula::run::RunEvent;
        match event {
            RunEvent::QuestionJudged { instance, version } => {
                self.judged
                    .lock()
                    .unwrap()
                    .push((instance.to_string(), *version));
            }
            RunEvent::PassDone(pass) => self.passes.lock().unwrap().push((
                pass.instance.to_string(),
                pass.version,
                pass.records.len(),
            )),
            RunEvent::InstanceDone {
                instance,
                records,
                outcomes,
            } => self.instances.lock().unwrap().push((
                instance.id.clone(),
                records.len(),
                outcomes.to_vec(),
            )),
            _ => {}
        }
    }
}

#[test]
fn every_sink_hears_each_question_pass_and_instance_once_with_the_reports_outcomes() {
    let instances = small();
    // One pass of the first instance panics: its questions still have records, and the
    // sinks hear about them as about any other.
    let doomed = format!("{}/control", instances[0].id);
    let factory: SharedFactory = Arc::new(FnFactory::new("panicky", move || Panicky {
        inner: builtin::NaiveRag::default(),
        doomed: doomed.clone(),
    }));
    let (first, second) = (Arc::new(Heard::default()), Arc::new(Heard::default()));
    let runner = runner(factory)
        .with_sink(first.clone())
        .with_sink(second.clone());
    let records = run_blocking(&runner, &instances);

    for heard in [&first, &second] {
        let judged = heard.judged.lock().unwrap();
        assert_eq!(judged.len(), records.len(), "one event per record");
        let passes = heard.passes.lock().unwrap();
        assert_eq!(passes.len(), 2 * instances.len(), "{passes:?}");
        for instance in &instances {
            for version in [Version::Control, Version::Forget] {
                let in_records = records
                    .iter()
                    .filter(|r| r.instance == instance.id && r.version == version)
                    .count();
                let in_events = judged
                    .iter()
                    .filter(|(i, v)| *i == instance.id && *v == version)
                    .count();
                assert_eq!(in_events, in_records, "{} {version}", instance.id);
                let pass: Vec<_> = passes
                    .iter()
                    .filter(|(i, v, _)| *i == instance.id && *v == version)
                    .collect();
                assert_eq!(pass.len(), 1, "{} {version}: {pass:?}", instance.id);
                assert_eq!(pass[0].2, in_records);
            }
        }
        let done = heard.instances.lock().unwrap();
        assert_eq!(done.len(), instances.len());
        for (id, count, outcomes) in done.iter() {
            let own: Vec<Record> = records
                .iter()
                .filter(|r| r.instance == *id)
                .cloned()
                .collect();
            assert_eq!(*count, own.len(), "{id}");
            assert_eq!(
                *outcomes,
                bemula::metrics::request_outcomes(&own),
                "{id}: the outcomes the reports compute"
            );
        }
    }
    let done = first.instances.lock().unwrap();
    let doomed = done
        .iter()
        .find(|(id, _, _)| *id == instances[0].id)
        .unwrap();
    assert!(
        doomed.2.iter().all(|o| !o.passed),
        "a request whose control pass panicked cannot pass: {:?}",
        doomed.2
    );
}
