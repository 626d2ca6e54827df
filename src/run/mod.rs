//! The protocol runner, exactly as the paper's Appendix A.
//!
//! Each instance is evaluated in two passes, one per dialogue version, each in its own
//! namespace and with its own system from the factory:
//!
//! - **control pass**: reset, ingest the control version session by session and turn
//!   by turn, flush, then ask the retention questions and the control probes of the
//!   preservation and attack questions;
//! - **forget pass**: reset, ingest the forget version, flush, then ask the efficacy,
//!   preservation, attack and relearning questions in that order; each relearning
//!   dialogue is ingested (and flushed) right before its question.
//!
//! Every question is a single `query` call: the system answers in a fresh session
//! holding only the question, and nothing is written back. The system sees a forget
//! request only as an ordinary turn. A failing call is retried a bounded number of
//! times, then recorded as an error on the questions it affects; the run goes on.

use crate::answer::Answerer;
use crate::dataset::{Instance, Question, Suite, Version};
use crate::judge::{Judge, JudgeItem};
use crate::record::Record;
use crate::system::{
    AsyncMemorySystem, ErrorKind, Namespace, Reply, SessionInfo, SharedFactory, SystemError,
    SystemResult, TurnInput,
};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

/// How the runner behaves.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Instances evaluated at once.
    pub jobs: usize,
    /// Retries of a failing system call before it is recorded as an error.
    pub retries: u32,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            retries: 2,
            backoff: Duration::from_millis(50),
        }
    }
}

/// Which questions of an instance to ask. Ingestion is always complete; only the
/// questions are narrowed.
#[derive(Debug, Clone, Default)]
pub enum Selection {
    /// Every question.
    #[default]
    All,
    /// The questions of these requests, plus the instance's preservation questions
    /// (a request's pass depends on them).
    Requests(BTreeSet<String>),
}

impl Selection {
    /// Whether a record of an instance belongs to this selection.
    pub fn includes_record(&self, record: &Record) -> bool {
        match self {
            Selection::All => true,
            Selection::Requests(ids) => match &record.request {
                None => record.suite == Suite::Preservation,
                Some(r) => ids.contains(r),
            },
        }
    }

    fn includes(&self, question: &Question) -> bool {
        match self {
            Selection::All => true,
            Selection::Requests(ids) => match &question.request {
                None => question.suite == Suite::Preservation,
                Some(r) => ids.contains(r),
            },
        }
    }
}

/// Something that wants to hear how a run goes (a progress bar, a log).
pub trait Progress: Send + Sync {
    /// A question was answered and judged.
    fn question_done(&self) {}
    /// An instance finished (both passes).
    fn instance_done(&self, instance: &str) {
        let _ = instance;
    }
}

/// A progress listener that ignores everything.
pub struct Silent;
impl Progress for Silent {}

/// One completed pass: an instance's questions on one dialogue version, with their
/// records (error records included).
#[derive(Debug)]
pub struct PassDone<'a> {
    /// Instance id.
    pub instance: &'a str,
    /// The version of the pass.
    pub version: Version,
    /// Its records, in the order asked.
    pub records: &'a [Record],
}

/// Called as each pass completes (a journal, for example).
pub type PassObserver = Arc<dyn Fn(&PassDone<'_>) + Send + Sync>;

/// Passes completed earlier, by (instance, version): the runner returns their records
/// without calling the system.
pub type CompletedPasses = std::collections::BTreeMap<(String, Version), Vec<Record>>;

/// Evaluates a system call until it succeeds, at most `1 + retries` times, waiting
/// with exponential backoff between tries. Unsupported calls are not retried.
macro_rules! retry {
    ($runner:expr, $call:expr) => {{
        let mut wait = $runner.config.backoff;
        let mut attempt = 0u32;
        loop {
            match $call.await {
                Ok(value) => break Ok(value),
                Err(err)
                    if err.kind == ErrorKind::Unsupported || attempt >= $runner.config.retries =>
                {
                    break Err(if attempt > 0 {
                        SystemError::new(
                            err.kind,
                            format!("{} (after {} tries)", err.message, attempt + 1),
                        )
                    } else {
                        err
                    });
                }
                Err(_) => {
                    attempt += 1;
                    tokio::time::sleep(wait).await;
                    wait *= 2;
                }
            }
        }
    }};
}

/// Runs memory systems through the protocol.
#[derive(Clone)]
pub struct Runner {
    factory: SharedFactory,
    answerer: Arc<dyn Answerer>,
    judge: Arc<dyn Judge>,
    config: RunConfig,
    progress: Arc<dyn Progress>,
    on_pass: Option<PassObserver>,
    completed: Arc<CompletedPasses>,
}

impl Runner {
    /// A runner for one system, answering from memories with `answerer` and grading
    /// with `judge`.
    pub fn new(
        factory: SharedFactory,
        answerer: Arc<dyn Answerer>,
        judge: Arc<dyn Judge>,
        config: RunConfig,
    ) -> Runner {
        Runner {
            factory,
            answerer,
            judge,
            config,
            progress: Arc::new(Silent),
            on_pass: None,
            completed: Arc::default(),
        }
    }

    /// Calls `observer` as each pass completes (not for passes given by
    /// [`Runner::with_completed`]).
    pub fn with_pass_observer(mut self, observer: PassObserver) -> Runner {
        self.on_pass = Some(observer);
        self
    }

    /// Takes these passes as done: their records are returned as they are, and the
    /// system is not called for them (a resumed run).
    pub fn with_completed(mut self, completed: CompletedPasses) -> Runner {
        self.completed = Arc::new(completed);
        self
    }

    /// Reports progress to `progress`.
    pub fn with_progress(mut self, progress: Arc<dyn Progress>) -> Runner {
        self.progress = progress;
        self
    }

    /// The factory of the system under test.
    pub fn factory(&self) -> &SharedFactory {
        &self.factory
    }

    /// The judge.
    pub fn judge(&self) -> &Arc<dyn Judge> {
        &self.judge
    }

    /// The answerer.
    pub fn answerer(&self) -> &Arc<dyn Answerer> {
        &self.answerer
    }

    /// Evaluates every instance (at most `jobs` at once) and returns all records,
    /// ordered by instance, then version, then the order the questions were asked.
    pub async fn run_all(&self, instances: &[Instance]) -> Vec<Record> {
        let semaphore = Arc::new(tokio::sync::Semaphore::new(self.config.jobs.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        for (index, instance) in instances.iter().enumerate() {
            let runner = self.clone();
            let instance = instance.clone();
            let semaphore = semaphore.clone();
            tasks.spawn(async move {
                let _permit = semaphore.acquire_owned().await;
                let records = runner.run_instance(&instance, &Selection::All).await;
                (index, records)
            });
        }
        let mut results: Vec<(usize, Vec<Record>)> = Vec::with_capacity(instances.len());
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok(pair) => results.push(pair),
                // run_instance turns a system's panic into error records; a panic here
                // is a bug of the runner itself.
                Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                Err(err) => panic!("an instance task was cancelled: {err}"),
            }
        }
        results.sort_by_key(|(index, _)| *index);
        results.into_iter().flat_map(|(_, r)| r).collect()
    }

    /// Evaluates one instance: both passes, concurrently (they use different
    /// namespaces and different systems). A pass whose system panics loses its
    /// answers: every question of that pass is recorded as an error saying so, and the
    /// other pass and the run go on.
    pub async fn run_instance(&self, instance: &Instance, selection: &Selection) -> Vec<Record> {
        let shared = Arc::new(instance.clone());
        let done = |version: Version| self.completed.get(&(instance.id.clone(), version)).cloned();
        let pass = |version: Version| {
            let (runner, instance, selection) = (self.clone(), shared.clone(), selection.clone());
            let done = done(version);
            tokio::spawn(async move {
                match done {
                    Some(records) => records,
                    None => runner.run_pass(&instance, version, &selection).await,
                }
            })
        };
        let (control, forget) = tokio::join!(pass(Version::Control), pass(Version::Forget));
        let mut records = Vec::new();
        for (version, joined) in [(Version::Control, control), (Version::Forget, forget)] {
            let pass_records = self.pass_or_errors(instance, version, selection, joined);
            if let Some(observer) = self.on_pass.as_ref().filter(|_| done(version).is_none()) {
                observer(&PassDone {
                    instance: &instance.id,
                    version,
                    records: &pass_records,
                });
            }
            records.extend(pass_records);
        }
        self.progress.instance_done(&instance.id);
        records
    }

    fn pass_or_errors(
        &self,
        instance: &Instance,
        version: Version,
        selection: &Selection,
        joined: Result<Vec<Record>, tokio::task::JoinError>,
    ) -> Vec<Record> {
        match joined {
            Ok(records) => records,
            Err(err) => {
                let message = if err.is_panic() {
                    let payload = err.into_panic();
                    let text = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "no message".into());
                    format!("the system panicked during the {version} pass: {text}")
                } else {
                    format!("the {version} pass was cancelled")
                };
                Self::questions_for(instance, version, selection)
                    .into_iter()
                    .map(|q| self.error_record(instance, version, q, &message))
                    .collect()
            }
        }
    }

    /// The questions asked on one version, in the protocol's order.
    pub fn questions_for<'a>(
        instance: &'a Instance,
        version: Version,
        selection: &Selection,
    ) -> Vec<&'a Question> {
        let order: &[Suite] = match version {
            Version::Control => &[Suite::Retention, Suite::Preservation, Suite::Attack],
            Version::Forget => &[
                Suite::Efficacy,
                Suite::Preservation,
                Suite::Attack,
                Suite::Relearning,
            ],
        };
        order
            .iter()
            .flat_map(|suite| {
                instance.questions.iter().filter(move |q| {
                    q.suite == *suite && q.asked_on(version) && selection.includes(q)
                })
            })
            .collect()
    }

    async fn run_pass(
        &self,
        instance: &Instance,
        version: Version,
        selection: &Selection,
    ) -> Vec<Record> {
        let questions = Self::questions_for(instance, version, selection);
        if questions.is_empty() {
            return Vec::new();
        }
        let ns = Namespace::new(&instance.id, version);
        let mut system = match retry!(self, self.factory.make(&ns)) {
            Ok(system) => system,
            Err(err) => {
                let reason = format!("could not create the system for {ns}: {err}");
                return self.error_records(instance, version, &questions, &reason);
            }
        };
        if let Err(reason) = self.ingest(system.as_mut(), instance, version, &ns).await {
            return self.error_records(instance, version, &questions, &reason);
        }
        let last_date = instance
            .sessions
            .last()
            .map(|s| s.date.clone())
            .unwrap_or_default();
        let mut records = Vec::with_capacity(questions.len());
        for question in questions {
            if let Some(dialogue) = question
                .relearn
                .as_ref()
                .filter(|_| version == Version::Forget)
            {
                let info = SessionInfo {
                    id: format!("{}/relearn", question.id),
                    date: last_date.clone(),
                };
                let turns = dialogue.iter().enumerate().map(|(index, t)| TurnInput {
                    index,
                    user: t.user.clone(),
                    assistant: t.assistant.clone(),
                });
                let result = self
                    .ingest_session(system.as_mut(), &ns, &info, turns)
                    .await;
                let result = match result {
                    Ok(()) => retry!(self, system.flush(&ns)),
                    Err(e) => Err(e),
                };
                if let Err(err) = result {
                    let reason = format!("ingesting the relearning dialogue failed: {err}");
                    records.push(self.error_record(instance, version, question, &reason));
                    self.progress.question_done();
                    continue;
                }
            }
            records.push(
                self.ask(system.as_mut(), instance, version, question, &ns)
                    .await,
            );
            self.progress.question_done();
        }
        records
    }

    async fn ingest(
        &self,
        system: &mut dyn AsyncMemorySystem,
        instance: &Instance,
        version: Version,
        ns: &Namespace,
    ) -> Result<(), String> {
        retry!(self, system.reset(ns)).map_err(|e| format!("reset of {ns} failed: {e}"))?;
        for session in instance.dialogue(version) {
            let info = SessionInfo {
                id: session.id.clone(),
                date: session.date.clone(),
            };
            let turns = session
                .turns
                .iter()
                .enumerate()
                .map(|(index, t)| TurnInput {
                    index,
                    user: t.user.clone(),
                    assistant: t.assistant.clone(),
                });
            self.ingest_session(system, ns, &info, turns)
                .await
                .map_err(|e| format!("ingesting session {} of {ns} failed: {e}", session.id))?;
        }
        retry!(self, system.flush(ns)).map_err(|e| format!("flush of {ns} failed: {e}"))
    }

    async fn ingest_session(
        &self,
        system: &mut dyn AsyncMemorySystem,
        ns: &Namespace,
        info: &SessionInfo,
        turns: impl Iterator<Item = TurnInput>,
    ) -> SystemResult<()> {
        retry!(self, system.start_session(ns, info))?;
        for turn in turns {
            retry!(self, system.observe(ns, &turn)).map_err(|e| {
                SystemError::new(e.kind, format!("turn {}: {}", turn.index, e.message))
            })?;
        }
        retry!(self, system.end_session(ns))
    }

    async fn ask(
        &self,
        system: &mut dyn AsyncMemorySystem,
        instance: &Instance,
        version: Version,
        question: &Question,
        ns: &Namespace,
    ) -> Record {
        let reply = match retry!(self, system.query(ns, &question.text)) {
            Ok(reply) => reply,
            Err(err) => {
                return self.error_record(
                    instance,
                    version,
                    question,
                    &format!("query failed: {err}"),
                );
            }
        };
        let answer = match reply {
            Reply::Answer(answer) => answer,
            Reply::Memories(memories) => {
                match self
                    .answerer
                    .answer_question(instance, question, version, &memories)
                    .await
                {
                    Ok(answer) => answer,
                    Err(err) => {
                        return self.error_record(instance, version, question, &err.to_string());
                    }
                }
            }
        };
        let expected = question.gold_on(version).unwrap_or_default();
        let item = JudgeItem {
            suite: question.suite,
            attack: question.attack,
            version,
            question: &question.text,
            expected,
            accepted: &question.accepted,
            leak: &question.leak,
        };
        let verdict = self.judge.judge(&item, &answer).await;
        let mut record = self.base_record(instance, version, question);
        record.correct = verdict.correct == Some(true);
        record.unscored = verdict.correct.is_none();
        record.reason = verdict.reason;
        record.answer = Some(answer);
        record
    }

    fn base_record(&self, instance: &Instance, version: Version, question: &Question) -> Record {
        let request_type = question
            .request
            .as_deref()
            .and_then(|r| instance.request(r))
            .map(|r| r.kind);
        Record {
            instance: instance.id.clone(),
            tier: instance.tier,
            request: question.request.clone(),
            request_type,
            suite: question.suite,
            attack: question.attack,
            version,
            question_id: question.id.clone(),
            question: question.text.clone(),
            expected: question.gold_on(version).unwrap_or_default().to_string(),
            answer: None,
            correct: false,
            error: None,
            unscored: false,
            conditioned_on: if version == question.suite.scored_on() {
                question.conditioned_on.clone()
            } else {
                None
            },
            judge: self.judge.name(),
            reason: String::new(),
        }
    }

    fn error_record(
        &self,
        instance: &Instance,
        version: Version,
        question: &Question,
        reason: &str,
    ) -> Record {
        let mut record = self.base_record(instance, version, question);
        record.error = Some(reason.to_string());
        record.reason = format!("error: {reason}");
        record
    }

    fn error_records(
        &self,
        instance: &Instance,
        version: Version,
        questions: &[&Question],
        reason: &str,
    ) -> Vec<Record> {
        questions
            .iter()
            .map(|q| {
                self.progress.question_done();
                self.error_record(instance, version, q, reason)
            })
            .collect()
    }
}
