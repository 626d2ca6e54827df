//! What a run tells those who follow it: one stream of events, fanned out to every
//! sink (a progress bar, a journal, the harness's trials, a log), as a test runner's
//! reporter feeds each of its displays from one stream.

use crate::dataset::{Instance, Version};
use crate::metrics::RequestOutcome;
use crate::record::Record;
use crate::report::journal::Journal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One thing that happened in a run.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunEvent<'a> {
    /// A question of a pass was answered and judged (or failed): its record exists.
    QuestionJudged {
        /// Instance id.
        instance: &'a str,
        /// The version of the pass.
        version: Version,
    },
    /// A pass completed: an instance's questions on one version, with their records
    /// (error records included), in the order asked. Not sent for the passes a
    /// resumed run takes as done.
    PassDone(&'a PassDone<'a>),
    /// An instance finished (both passes, resumed ones included), with all its records
    /// and the outcome of each of its forget requests, scored once here for every sink.
    InstanceDone {
        /// The instance.
        instance: &'a Instance,
        /// Its records: control pass, then forget pass.
        records: &'a [Record],
        /// Its requests' outcomes, as the reports give them.
        outcomes: &'a [RequestOutcome],
    },
}

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

/// Something that follows a run. Events come from the run's tasks, several at once:
/// a sink is quick (it does not wait on the network) and shares its state safely.
pub trait RunSink: Send + Sync {
    /// Takes one event.
    fn on(&self, event: &RunEvent<'_>);
}

impl<F> RunSink for F
where
    F: Fn(&RunEvent<'_>) + Send + Sync,
{
    fn on(&self, event: &RunEvent<'_>) {
        self(event)
    }
}

/// Every sink of a run, each given every event in the order they were added.
#[derive(Clone, Default)]
pub struct Sinks(Vec<Arc<dyn RunSink>>);

impl Sinks {
    /// Adds a sink.
    pub fn push(&mut self, sink: Arc<dyn RunSink>) {
        self.0.push(sink);
    }

    /// Whether there is none (nothing to compute for them).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl RunSink for Sinks {
    fn on(&self, event: &RunEvent<'_>) {
        for sink in &self.0 {
            sink.on(event);
        }
    }
}

/// The events of one pass: each of its records is heard once as
/// [`RunEvent::QuestionJudged`], whatever happens to the pass. Once the pass is closed
/// (its records are final), the records not yet heard of are (the questions of a pass
/// whose system panicked, recorded as errors), and a reply still being judged for the
/// lost pass is no longer heard.
#[derive(Clone)]
pub(super) struct PassEvents {
    sinks: Sinks,
    instance: Arc<str>,
    version: Version,
    /// Records heard of, and whether the pass is closed.
    state: Arc<std::sync::Mutex<(usize, bool)>>,
}

impl PassEvents {
    pub(super) fn new(sinks: Sinks, instance: &str, version: Version) -> PassEvents {
        PassEvents {
            sinks,
            instance: instance.into(),
            version,
            state: Arc::default(),
        }
    }

    fn heard(&self) {
        self.sinks.on(&RunEvent::QuestionJudged {
            instance: &self.instance,
            version: self.version,
        });
    }

    /// A question of the pass has its record.
    pub(super) fn judged(&self) {
        if self.sinks.is_empty() {
            return;
        }
        // Held while the sinks hear it: closing waits, so no event comes after it.
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.1 {
            return;
        }
        state.0 += 1;
        self.heard();
    }

    /// The pass's `records` are final: the sinks hear of those not heard of yet, then
    /// of the pass.
    pub(super) fn close(&self, records: &[Record]) {
        if self.sinks.is_empty() {
            return;
        }
        {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if !state.1 {
                state.1 = true;
                for _ in state.0..records.len() {
                    self.heard();
                }
            }
        }
        self.sinks.on(&RunEvent::PassDone(&PassDone {
            instance: &self.instance,
            version: self.version,
            records,
        }));
    }
}

/// The journal of a run as a sink: each completed pass is appended, so that an
/// interrupted run can resume. A pass with errors that completes once the run is
/// stopping is left out (it may have failed because of the stop, and runs again on
/// resume). A journal that cannot be written is said once, and the run goes on.
pub struct JournalSink {
    journal: Arc<Journal>,
    stop: Option<Arc<super::Stop>>,
    failed: AtomicBool,
}

impl JournalSink {
    /// Appends to `journal`; with `stop`, leaves out what a stopping run may have
    /// failed.
    pub fn new(journal: Arc<Journal>, stop: Option<Arc<super::Stop>>) -> JournalSink {
        JournalSink {
            journal,
            stop,
            failed: AtomicBool::new(false),
        }
    }
}

impl RunSink for JournalSink {
    fn on(&self, event: &RunEvent<'_>) {
        let RunEvent::PassDone(pass) = event else {
            return;
        };
        let stopping = self.stop.as_ref().is_some_and(|s| s.is_stopped());
        if stopping && pass.records.iter().any(|r| r.error.is_some()) {
            return;
        }
        if let Err(err) = self
            .journal
            .append(pass.instance, pass.version, pass.records)
            && !self.failed.swap(true, Ordering::Relaxed)
        {
            eprintln!(
                "bemula: warning: the run journal cannot be written ({err}); an interruption now loses the run"
            );
        }
    }
}
