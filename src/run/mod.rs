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
//! request only as an ordinary turn.
//!
//! **Exactly once.** The runner never sends a call twice. A failed call that may have
//! changed memory (a timeout, a crash, a garbled reply, an error during ingestion)
//! restarts the pass: the namespace is reset and the dialogue ingested again from the
//! start, at most [`RunConfig::max_restarts`] times; the answers already given are kept
//! and the relearning dialogues already ingested are replayed, so the system's memory
//! is the same as if nothing had failed. Each restart is recorded on the pass's records
//! ([`Record::restarts`]). A failed query is recorded as an error on its question (it
//! does not write). The rules live in [`recovery`] (and the re-sends of a call the
//! system did not act on in [`crate::system::retry`]).
//!
//! **Pipelining.** Within a pass, system calls are strictly sequential; the answerer
//! and judge of a question run as a task of their own as soon as the reply exists, so
//! the next query does not wait for them, while the replies waiting in the pass hold
//! less than [`MAX_WAITING_REPLY_BYTES`]. Records keep the protocol's order.
//! Instances start longest first, so the longest pipelines are not left for last.
//! Against a system whose calls wait (a remote adapter: [`RunConfig::reading_pool`]),
//! an answerer and a judge that work offline run on a pool of threads of their own at
//! a lower priority, so a pass's next call never waits behind them for a core.

mod events;
mod ingest;
mod judging;
mod reading;
pub mod recovery;
pub mod select;
mod session;

use events::PassEvents;
pub use events::{JournalSink, PassDone, RunEvent, RunSink, Sinks};
pub use session::{DataSource, OpenJournal, Session, request_names};

use judging::panic_message;
pub use judging::{MAX_STORED_ANSWER_BYTES, cap_answer};

use crate::answer::{Answerer, ReadingCache};
use crate::dataset::{Instance, Question, Suite, Version};
use crate::judge::Judge;
use crate::record::Record;
use crate::system::retry;
use crate::system::{Namespace, Reply, SessionInfo, SharedFactory, SystemError};
use recovery::{CallKind, Recovery};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Instances evaluated at once by default: enough namespaces in flight to keep a slow
/// system's pipeline full whatever the number of cores (a system that takes longer per
/// call needs more calls in flight, not more cores).
pub const DEFAULT_JOBS: usize = 64;

/// The async runtime every command and the harness run on (one worker thread per
/// core, timers and I/O enabled), or an error saying it could not start.
pub fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// Instances evaluated at once by default when every part of a run works in this
/// process, bounded by the CPU (a built-in system read by an offline reader and judged
/// by the rules): the number of cores. More in flight would not go faster, only hold
/// more passes' memories at once.
pub fn in_process_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The most text (bytes of answers or memories) the replies of one pass waiting to be
/// answered and judged may hold: a reply that would take the pass past it waits until
/// earlier ones are done before the pass asks its next question. Small replies
/// (a few retrieved memories) are all answered and judged at once; a system that
/// returns its whole transcript to every question holds a few replies per pass in
/// memory, not one per question.
pub const MAX_WAITING_REPLY_BYTES: usize = 16 << 20;

/// The text a reply holds, in bytes (at least 1, at most [`MAX_WAITING_REPLY_BYTES`]).
fn reply_bytes(reply: &Reply) -> u32 {
    let bytes = match reply {
        Reply::Answer(answer) => answer.len(),
        Reply::Memories(memories) => memories
            .iter()
            .map(|m| m.text.len() + m.time.as_ref().map_or(0, String::len))
            .sum(),
    };
    u32::try_from(bytes.clamp(1, MAX_WAITING_REPLY_BYTES)).unwrap_or(u32::MAX)
}

/// How the runner behaves.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Instances evaluated at once.
    pub jobs: usize,
    /// Restarts of a pass (reset, ingest again) after a failure that may have changed
    /// the system's memory, before its remaining questions are recorded as errors.
    pub max_restarts: u32,
    /// Whether an answerer and a judge that work offline read on the reading pool
    /// (threads of their own, at a lower priority) rather than on the runtime's
    /// threads: for a system whose calls wait (a remote adapter), so that a pass's next
    /// call never waits behind reading for a core. Off for a system that works on this
    /// machine's CPU, where reading beside the system's work on the runtime is faster.
    pub reading_pool: bool,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            jobs: DEFAULT_JOBS,
            max_restarts: recovery::DEFAULT_MAX_RESTARTS,
            reading_pool: false,
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

/// A request to stop a run early (a signal): no instance starts after it, and the
/// passes in flight finish. Shared between the one who stops and the runner.
#[derive(Debug, Default)]
pub struct Stop {
    flag: std::sync::atomic::AtomicBool,
    notify: tokio::sync::Notify,
}

impl Stop {
    /// Asks the run to stop.
    pub fn stop(&self) {
        self.flag.store(true, std::sync::atomic::Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    /// Whether the run was asked to stop.
    pub fn is_stopped(&self) -> bool {
        self.flag.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits until the run is asked to stop.
    pub async fn stopped(&self) {
        let notified = self.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.is_stopped() {
            return;
        }
        notified.await;
    }
}

/// Passes completed earlier, by (instance, version): the runner returns their records
/// without calling the system.
pub type CompletedPasses = std::collections::BTreeMap<(String, Version), Vec<Record>>;

/// A question's record: ready, or being answered and judged by a task of its own.
enum Slot {
    Ready(Box<Record>),
    Judging(tokio::task::JoinHandle<Record>),
}

/// Why a pass could not go on: the failure and what to do about it.
struct Failure {
    reason: String,
    recovery: Recovery,
}

impl Failure {
    fn new(err: &SystemError, call: CallKind, reason: String) -> Failure {
        Failure {
            reason,
            recovery: recovery::recovery(err, call),
        }
    }
}

/// Runs memory systems through the protocol.
#[derive(Clone)]
pub struct Runner {
    factory: SharedFactory,
    answerer: Arc<dyn Answerer>,
    judge: Arc<dyn Judge>,
    config: RunConfig,
    sinks: Sinks,
    completed: Arc<CompletedPasses>,
    stop: Arc<Stop>,
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
            sinks: Sinks::default(),
            completed: Arc::default(),
            stop: Arc::default(),
        }
    }

    /// Stops starting instances once `stop` is asked ([`Runner::run_all`] then returns
    /// the records of the instances it started, which finish).
    pub fn with_stop(mut self, stop: Arc<Stop>) -> Runner {
        self.stop = stop;
        self
    }

    /// Sends the run's events to `sink` too (a progress bar, a journal: see
    /// [`RunEvent`]); sinks hear each event in the order they were added.
    pub fn with_sink(mut self, sink: Arc<dyn RunSink>) -> Runner {
        self.sinks.push(sink);
        self
    }

    /// Takes these passes as done: their records are returned as they are, and the
    /// system is not called for them (a resumed run).
    pub fn with_completed(mut self, completed: CompletedPasses) -> Runner {
        self.completed = Arc::new(completed);
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

    /// The configuration.
    pub fn config(&self) -> &RunConfig {
        &self.config
    }

    /// Evaluates every instance (at most `jobs` at once, the longest first) and returns
    /// all records, ordered by instance, then version, then the order the questions
    /// were asked. Once the run is asked to stop ([`Runner::with_stop`]) no further
    /// instance starts, and the records of those started are returned.
    pub async fn run_all(&self, instances: &[Instance]) -> Vec<Record> {
        let semaphore = Arc::new(tokio::sync::Semaphore::new(self.config.jobs.max(1)));
        let mut tasks = tokio::task::JoinSet::new();
        let mut order: Vec<usize> = (0..instances.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(pipeline_length(&instances[i])));
        for index in order {
            if self.stop.is_stopped() {
                break;
            }
            let runner = self.clone();
            let instance = instances[index].clone();
            // Permits are taken in the loop, so instances start in this order.
            let permit = tokio::select! {
                permit = semaphore.clone().acquire_owned() => permit,
                () = self.stop.stopped() => break,
            };
            tasks.spawn(async move {
                let _permit = permit;
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
    /// namespaces and different systems). Each pass is handed to the sinks the
    /// moment it completes, whatever its sibling is doing, so a journal never waits
    /// for the slower pass. A pass whose system panics loses its answers: every
    /// question of that pass is recorded as an error saying so, and the other pass and
    /// the run go on.
    pub async fn run_instance(&self, instance: &Instance, selection: &Selection) -> Vec<Record> {
        let shared = Arc::new(instance.clone());
        // What the answerer learns of the memories of both passes (their dialogues are
        // mostly the same turns); dropped with the instance.
        let reading = Arc::new(ReadingCache::new());
        let pass = |version: Version| {
            let (runner, instance, selection) = (self.clone(), shared.clone(), selection.clone());
            let reading = reading.clone();
            let done = self.completed.get(&(instance.id.clone(), version)).cloned();
            tokio::spawn(async move {
                if let Some(records) = done {
                    return records;
                }
                let events = PassEvents::new(runner.sinks.clone(), &instance.id, version);
                let inner = {
                    let (runner, instance, selection) =
                        (runner.clone(), instance.clone(), selection.clone());
                    let events = events.clone();
                    tokio::spawn(async move {
                        runner
                            .run_pass(&instance, version, &selection, reading, &events)
                            .await
                    })
                };
                let mut records =
                    runner.pass_or_errors(&instance, version, &selection, inner.await);
                // Everything a pass hands on (to the journal, the reports, the
                // terminal) is free of secrets.
                records.iter_mut().for_each(Record::redact);
                events.close(&records);
                records
            })
        };
        let (control, forget) = tokio::join!(pass(Version::Control), pass(Version::Forget));
        let mut records = Vec::new();
        for joined in [control, forget] {
            match joined {
                Ok(pass_records) => records.extend(pass_records),
                // The outer task only awaits the pass and calls the sinks: a panic here
                // is a sink's (a bug of the caller), not the system's.
                Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                Err(err) => panic!("a pass task was cancelled: {err}"),
            }
        }
        if !self.sinks.is_empty() {
            let outcomes = crate::metrics::request_outcomes(&records);
            self.sinks.on(&RunEvent::InstanceDone {
                instance,
                records: &records,
                outcomes: &outcomes,
            });
        }
        records
    }

    /// The question ids each pass asks, in order, for each instance with its
    /// selection: what a journaled pass must hold to be taken as done on resume.
    pub fn expected_passes<'a>(
        items: impl IntoIterator<Item = (&'a Instance, &'a Selection)>,
    ) -> crate::report::journal::ExpectedPasses {
        let mut out = crate::report::journal::ExpectedPasses::new();
        for (instance, selection) in items {
            for version in [Version::Control, Version::Forget] {
                let ids = Self::questions_for(instance, version, selection)
                    .into_iter()
                    .map(|q| q.id.clone())
                    .collect();
                out.insert((instance.id.clone(), version), ids);
            }
        }
        out
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
                let message = panic_message(err, "the system", version);
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

    /// One pass: set up (reset, ingest, flush), then ask each question in order. A
    /// failure that may have changed memory restarts the pass (see the module docs).
    async fn run_pass(
        &self,
        instance: &Arc<Instance>,
        version: Version,
        selection: &Selection,
        reading: Arc<ReadingCache>,
        events: &PassEvents,
    ) -> Vec<Record> {
        let questions = Self::questions_for(instance, version, selection);
        if questions.is_empty() {
            return Vec::new();
        }
        let ns = Namespace::new(&instance.id, version);
        let last_date = instance
            .sessions
            .last()
            .map(|s| s.date.clone())
            .unwrap_or_default();
        let mut slots: Vec<Slot> = Vec::with_capacity(questions.len());
        let waiting = Arc::new(tokio::sync::Semaphore::new(MAX_WAITING_REPLY_BYTES));
        // Questions whose relearning dialogue is in memory (replayed after a restart).
        let mut relearned: Vec<usize> = Vec::new();
        let mut restarts = 0u32;
        let can_restart = |failure: &Failure, restarts: u32| {
            failure.recovery == Recovery::RestartPass && restarts < self.config.max_restarts
        };
        'attempt: loop {
            let next = slots.len();
            relearned.retain(|&i| i < next);
            let mut system = match self
                .set_up(instance, version, &ns, &questions, &relearned, &last_date)
                .await
            {
                Ok(system) => system,
                Err(failure) if can_restart(&failure, restarts) => {
                    restarts += 1;
                    pause_before_restart(restarts).await;
                    continue 'attempt;
                }
                Err(failure) => {
                    let reason = with_restarts(&failure.reason, restarts);
                    for question in &questions[next..] {
                        slots.push(Slot::Ready(Box::new(
                            self.error_record(instance, version, question, &reason),
                        )));
                        events.judged();
                    }
                    break;
                }
            };
            while slots.len() < questions.len() {
                let index = slots.len();
                let question = questions[index];
                if let Some(dialogue) = question
                    .relearn
                    .as_ref()
                    .filter(|_| version == Version::Forget)
                {
                    let info = SessionInfo {
                        id: format!("{}/relearn", question.id),
                        date: last_date.clone(),
                    };
                    match self.relearn(system.as_mut(), &ns, &info, dialogue).await {
                        Ok(()) => relearned.push(index),
                        Err(failure) if can_restart(&failure, restarts) => {
                            restarts += 1;
                            pause_before_restart(restarts).await;
                            continue 'attempt;
                        }
                        Err(failure) => {
                            let reason = with_restarts(&failure.reason, restarts);
                            slots.push(Slot::Ready(Box::new(
                                self.error_record(instance, version, question, &reason),
                            )));
                            events.judged();
                            continue;
                        }
                    }
                }
                match system.query(&ns, &question.text).await {
                    Ok(reply) => {
                        let permit = waiting
                            .clone()
                            .acquire_many_owned(reply_bytes(&reply))
                            .await
                            .expect("the pass never closes its semaphore");
                        let mut record = self.base_record(instance, version, question);
                        record.truncated_turns = system.truncated_turns(&ns);
                        slots.push(Slot::Judging(self.judge_later(
                            instance,
                            record,
                            question,
                            reply,
                            (&reading, permit),
                            events,
                        )));
                    }
                    Err(err) => {
                        let failure =
                            Failure::new(&err, CallKind::Query, format!("query failed: {err}"));
                        if can_restart(&failure, restarts) {
                            restarts += 1;
                            pause_before_restart(restarts).await;
                            continue 'attempt;
                        }
                        let reason = with_restarts(&failure.reason, restarts);
                        slots.push(Slot::Ready(Box::new(
                            self.error_record(instance, version, question, &reason),
                        )));
                        events.judged();
                    }
                }
            }
            break;
        }
        let mut records = Vec::with_capacity(slots.len());
        for (slot, question) in slots.into_iter().zip(&questions) {
            let mut record = match slot {
                Slot::Ready(record) => *record,
                Slot::Judging(task) => match task.await {
                    Ok(record) => record,
                    Err(err) => {
                        let message = panic_message(err, "answering or judging", version);
                        self.error_record(instance, version, question, &message)
                    }
                },
            };
            record.restarts = restarts;
            records.push(record);
        }
        records
    }
}

/// Waits before restart number `restart` of a pass (100 ms doubling), so a crashed
/// adapter is seen dead and restarted, and a struggling one gets a moment.
async fn pause_before_restart(restart: u32) {
    let wait = retry::RetryPolicy::default().backoff(restart.saturating_sub(1), None);
    tokio::time::sleep(wait).await;
}

/// How much work an instance's pass is: turns to ingest plus questions to ask.
fn pipeline_length(instance: &Instance) -> usize {
    let turns: usize = instance.sessions.iter().map(|s| s.turns.len()).sum();
    turns + instance.questions.len()
}

/// A reason with the restarts it took, when there were any.
fn with_restarts(reason: &str, restarts: u32) -> String {
    match restarts {
        0 => reason.to_string(),
        1 => format!("{reason} (after 1 restart of the pass)"),
        n => format!("{reason} (after {n} restarts of the pass)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_answers_are_capped_with_a_marker() {
        assert_eq!(cap_answer("short".into()), "short");
        let long = "é".repeat(MAX_STORED_ANSWER_BYTES);
        let capped = cap_answer(long.clone());
        assert!(capped.len() < MAX_STORED_ANSWER_BYTES + 100);
        assert!(capped.ends_with(&format!(
            "truncated by bemula: {} bytes in all]",
            long.len()
        )));
        assert!(long.starts_with(capped.split(" […").next().unwrap()));
    }
}
