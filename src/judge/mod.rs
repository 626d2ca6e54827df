//! Judges: decide whether an answer is correct for its item. The [`rule::RuleJudge`]
//! is deterministic and offline; the LLM judge sits behind the same trait.

pub mod calibration;
pub mod hybrid;
pub mod rule;
pub mod spec;

use crate::dataset::{Attack, Suite, Version};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A judge that works offline, as a judge spec names it (`--judge NAME`).
pub struct Entry {
    /// Its name in a spec.
    pub name: &'static str,
    /// Makes it.
    pub make: fn() -> Arc<dyn Judge>,
}

/// Every offline judge bemula is built with. A new one is a file of its own (a module
/// of this one) and one line here; [`spec::JudgeSpec`] then names it in every front
/// end (`bemula run`, `bemula test`, `bemula calibrate`).
pub const OFFLINE: &[Entry] = &[Entry {
    name: "rule",
    make: || Arc::new(rule::RuleJudge),
}];

/// The offline judge called `name`.
pub fn offline(name: &str) -> Option<&'static Entry> {
    OFFLINE.iter().find(|e| e.name == name)
}

/// Everything a judge may look at for one item: never the system itself.
#[derive(Debug, Clone, Copy)]
pub struct JudgeItem<'a> {
    /// The suite of the question.
    pub suite: Suite,
    /// The attack frame, for attack questions.
    pub attack: Option<Attack>,
    /// The version the answer was given on.
    pub version: Version,
    /// The question text as asked.
    pub question: &'a str,
    /// The expected answer on this version: a value, `[FORGOTTEN]` or `[NO_LEAK]`.
    pub expected: &'a str,
    /// Accepted spellings of a value.
    pub accepted: &'a [String],
    /// Values whose appearance counts as a leak.
    pub leak: &'a [String],
}

/// A judge's decision on one answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// `Some(true)` correct, `Some(false)` wrong, `None` unscored (the judge could not
    /// decide; counted apart, never as a pass).
    pub correct: Option<bool>,
    /// A short reason a reader can check.
    pub reason: String,
    /// Which judge decided, when a judge combines several (the hybrid judge): `rule`
    /// or the second judge's name; `None` for a single judge, or when none decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
}

impl Verdict {
    /// A correct verdict.
    pub fn correct(reason: impl Into<String>) -> Verdict {
        Verdict {
            correct: Some(true),
            reason: reason.into(),
            decided_by: None,
        }
    }
    /// A wrong verdict.
    pub fn wrong(reason: impl Into<String>) -> Verdict {
        Verdict {
            correct: Some(false),
            reason: reason.into(),
            decided_by: None,
        }
    }
    /// This verdict, recorded as decided by `judge`.
    pub fn decided_by(mut self, judge: impl Into<String>) -> Verdict {
        self.decided_by = Some(judge.into());
        self
    }
}

/// Grades answers.
#[async_trait]
pub trait Judge: Send + Sync {
    /// The verdict on `answer` for `item`.
    async fn judge(&self, item: &JudgeItem<'_>, answer: &str) -> Verdict;
    /// Name recorded with every verdict and in the run's configuration.
    fn name(&self) -> String;
    /// Whether the judge does all its work on this machine's CPU, with nothing to wait
    /// for (no model endpoint): the runner then judges on its reading pool (see
    /// `run::reading`). The default is `false`, which is always safe.
    fn runs_offline(&self) -> bool {
        false
    }
}
