//! The memory-system interface, the factory that makes one system per (instance,
//! version), and the built-in reference systems.
//!
//! A system under test implements [`MemorySystem`] (plain methods) or
//! [`AsyncMemorySystem`] (async methods); every `MemorySystem` is an
//! `AsyncMemorySystem` through a blanket impl, so the runner only speaks the async face.
//! Each call carries the [`Namespace`] of the evaluation it belongs to.

pub mod builtin;
pub mod remote;
pub mod retry;
pub mod spec;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// The evaluation a call belongs to: `<instance>/<version>`, e.g. `short_003/forget`.
/// One server may hold many namespaces at once and must keep them apart.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Namespace(pub String);

impl Namespace {
    /// The namespace of one dialogue version of an instance.
    pub fn new(instance: &str, version: crate::dataset::Version) -> Namespace {
        Namespace(format!("{instance}/{}", version.name()))
    }

    /// The namespace as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What the runner tells a system when a session starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// Session id from the dataset (for relearning dialogues, `<question id>/relearn`).
    pub id: String,
    /// Session date, `YYYY-MM-DD`.
    pub date: String,
}

/// One exchange handed to [`MemorySystem::observe`]: the user's utterance and the
/// assistant's reply. A forget request arrives as nothing more than this.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnInput {
    /// Index of the turn within its session, from 0.
    pub index: usize,
    /// What the user said.
    pub user: String,
    /// What the assistant replied.
    pub assistant: String,
}

/// What a system returns for a question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "content", rename_all = "lowercase")]
pub enum Reply {
    /// The system's own final answer.
    Answer(String),
    /// The memories it retrieved, best first; the run's answerer composes the answer
    /// from them. Memories that carry a [`Memory::time`] are read newest first where
    /// they tie; without times, list order is relevance.
    Memories(Vec<Memory>),
}

impl Reply {
    /// Memories without times, best first: `Reply::memories(texts)`.
    pub fn memories<I>(memories: I) -> Reply
    where
        I: IntoIterator,
        I::Item: Into<Memory>,
    {
        Reply::Memories(memories.into_iter().map(Into::into).collect())
    }
}

/// One retrieved memory: its text and, optionally, when it was learnt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// What the memory says.
    pub text: String,
    /// When it was learnt: an ISO 8601 date (`2025-06-22`) or date-time
    /// (`2025-06-22T14:05:00Z`), compared chronologically. `None` when the system does
    /// not know; such memories rank by their place in the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

impl Memory {
    /// A memory learnt at `time`.
    pub fn at(text: impl Into<String>, time: impl Into<String>) -> Memory {
        Memory {
            text: text.into(),
            time: Some(time.into()),
        }
    }

    /// The time as a sortable key (year, month, day, hour, minute, second), when it is
    /// an ISO 8601 date or date-time.
    pub fn time_key(&self) -> Option<(u32, u32, u32, u32, u32, u32)> {
        let time = self.time.as_deref()?.trim();
        let number = |range: std::ops::Range<usize>| -> Option<u32> {
            let part = time.get(range)?;
            part.chars()
                .all(|c| c.is_ascii_digit())
                .then(|| part.parse().ok())
                .flatten()
        };
        let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
        if time.get(4..5) != Some("-") || time.get(7..8) != Some("-") {
            return None;
        }
        let clock = time.len() >= 16 && matches!(time.get(10..11), Some("T" | "t" | " "));
        let (hour, minute, second) = if clock {
            (
                number(11..13)?,
                number(14..16)?,
                number(17..19).unwrap_or(0),
            )
        } else {
            (0, 0, 0)
        };
        Some((year, month, day, hour, minute, second))
    }
}

impl From<String> for Memory {
    fn from(text: String) -> Memory {
        Memory { text, time: None }
    }
}

impl From<&str> for Memory {
    fn from(text: &str) -> Memory {
        Memory::from(text.to_string())
    }
}

impl From<&String> for Memory {
    fn from(text: &String) -> Memory {
        Memory::from(text.clone())
    }
}

/// A failed system call. Recorded as an error on the question, never as an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{kind}: {message}")]
pub struct SystemError {
    /// Class of the failure, for reports.
    pub kind: ErrorKind,
    /// What happened, in words.
    pub message: String,
}

impl SystemError {
    /// An error of the given kind.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> SystemError {
        SystemError {
            kind,
            message: message.into(),
        }
    }

    /// An error raised by the system itself.
    pub fn system(message: impl Into<String>) -> SystemError {
        SystemError::new(ErrorKind::System, message)
    }
}

/// Classes of system-call failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The system reported a failure of its own.
    System,
    /// The call took longer than allowed.
    Timeout,
    /// The system could not be reached (refused or reset connection, no process).
    Connection,
    /// The system's process died during the call.
    Crashed,
    /// The system asked us to slow down (HTTP 429) or was unavailable (5xx).
    Overloaded,
    /// The reply was not valid JSON or not of the expected shape.
    Protocol,
    /// The system does not support the call.
    Unsupported,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::System => "system error",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Connection => "connection error",
            ErrorKind::Crashed => "system crashed",
            ErrorKind::Overloaded => "system overloaded",
            ErrorKind::Protocol => "protocol error",
            ErrorKind::Unsupported => "unsupported",
        })
    }
}

/// Result of a system call.
pub type SystemResult<T> = Result<T, SystemError>;

/// A memory system with async methods, as the runner drives it.
///
/// The protocol (the paper's Appendix A): `reset`, then for each session
/// `start_session`, `observe` per turn, `end_session`; then `flush`; then one `query`
/// per question. A query stands in a fresh session holding only the question, and the
/// system must not write the question or its answer back to memory.
#[async_trait]
pub trait AsyncMemorySystem: Send {
    /// Forgets everything in the namespace (and nothing in any other).
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()>;
    /// A session begins.
    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        let _ = (ns, session);
        Ok(())
    }
    /// One exchange of the current session.
    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()>;
    /// The current session ends (systems that consolidate at session boundaries do it here).
    async fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        let _ = ns;
        Ok(())
    }
    /// Returns once everything observed so far is indexed and visible to queries.
    async fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        let _ = ns;
        Ok(())
    }
    /// Answers a question, or returns the memories retrieved for it.
    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply>;
    /// How many of the namespace's oldest turns the last [`query`](Self::query) left
    /// out of what it read (a system that cut its transcript to fit a model's window,
    /// like `full-context --truncate oldest`); recorded as the record's
    /// `truncated_turns`. 0, the default, for systems that read everything they keep.
    fn truncated_turns(&self, ns: &Namespace) -> u32 {
        let _ = ns;
        0
    }
}

/// A memory system with plain methods; see [`AsyncMemorySystem`] for the protocol.
pub trait MemorySystem: Send {
    /// Forgets everything in the namespace (and nothing in any other).
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()>;
    /// A session begins.
    fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        let _ = (ns, session);
        Ok(())
    }
    /// One exchange of the current session.
    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()>;
    /// The current session ends.
    fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        let _ = ns;
        Ok(())
    }
    /// Returns once everything observed so far is visible to queries.
    fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        let _ = ns;
        Ok(())
    }
    /// Answers a question, or returns the memories retrieved for it.
    fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply>;
}

#[async_trait]
impl<T: MemorySystem> AsyncMemorySystem for T {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        MemorySystem::reset(self, ns)
    }
    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        MemorySystem::start_session(self, ns, session)
    }
    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        MemorySystem::observe(self, ns, turn)
    }
    async fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        MemorySystem::end_session(self, ns)
    }
    async fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        MemorySystem::flush(self, ns)
    }
    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        MemorySystem::query(self, ns, question)
    }
}

/// Describes a system for the run's configuration (the adapter handshake's answer for
/// remote systems).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    /// Name of the system.
    pub name: String,
    /// Its version, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Settings that decide how it forgets, as reported by the system.
    #[serde(default)]
    pub settings: serde_json::Map<String, serde_json::Value>,
}

/// Makes one independent system per (instance, version).
#[async_trait]
pub trait SystemFactory: Send + Sync {
    /// A fresh system for the namespace.
    async fn make(&self, ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>>;
    /// What the run's configuration records about the system.
    fn info(&self) -> SystemInfo;
}

/// A factory from a name and a closure: `FnFactory::new("mine", || MySystem::default())`.
pub struct FnFactory<F> {
    name: String,
    make: F,
}

impl<F> FnFactory<F> {
    /// A factory calling `make` for each (instance, version).
    pub fn new(name: impl Into<String>, make: F) -> FnFactory<F> {
        FnFactory {
            name: name.into(),
            make,
        }
    }
}

#[async_trait]
impl<F, S> SystemFactory for FnFactory<F>
where
    F: Fn() -> S + Send + Sync,
    S: AsyncMemorySystem + 'static,
{
    async fn make(&self, _ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        Ok(Box::new((self.make)()))
    }
    fn info(&self) -> SystemInfo {
        SystemInfo {
            name: self.name.clone(),
            ..SystemInfo::default()
        }
    }
}

/// A shared factory.
pub type SharedFactory = Arc<dyn SystemFactory>;
