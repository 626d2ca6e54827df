//! The result record: one answered (question, version), as written to `results.jsonl`.
//!
//! Records are the only input of the metrics, so anyone can recompute every figure of
//! a run's `summary.json` from its `results.jsonl` alone.

use crate::dataset::{Attack, RequestType, Suite, Tier, Version};
use serde::{Deserialize, Serialize};

/// One answered question on one dialogue version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Instance id.
    pub instance: String,
    /// Tier of the instance.
    pub tier: Tier,
    /// The request the question probes; `null` for preservation questions.
    pub request: Option<String>,
    /// That request's type; `null` for preservation questions.
    pub request_type: Option<RequestType>,
    /// The question's suite.
    pub suite: Suite,
    /// The attack frame; `null` outside the attack suite.
    pub attack: Option<Attack>,
    /// The dialogue version the answer was given on.
    pub version: Version,
    /// Question id, unique within the instance.
    pub question_id: String,
    /// The question text.
    pub question: String,
    /// The expected answer on this version.
    pub expected: String,
    /// The answer given; `null` when the call failed.
    pub answer: Option<String>,
    /// Whether the judge found the answer correct. `false` when `error` is set or the
    /// item is `unscored`: neither ever counts as a pass.
    pub correct: bool,
    /// `null`, or what failed (system, transport, answerer or judge).
    pub error: Option<String>,
    /// Whether the judge could not decide (counted apart from wrong answers).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unscored: bool,
    /// The question whose control-version record conditions this one, or `null`.
    /// Only set on records of the version the question is scored on.
    pub conditioned_on: Option<String>,
    /// Name of the judge.
    pub judge: String,
    /// The judge's reason, or the error's.
    pub reason: String,
    /// Which judge decided, under a hybrid judge (`rule`, or the LLM judge's name);
    /// absent under a single judge and when no judge decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// How many times the pass this record belongs to was restarted (reset and
    /// ingested again) after a failure that may have changed the system's memory.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub restarts: u32,
    /// How many of the transcript's oldest turns the system left out of what it read
    /// to answer (e.g. `full-context --truncate oldest`); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub truncated_turns: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl Record {
    /// Whether this record is the one the question is scored on (as opposed to a
    /// control probe that only conditions another record).
    pub fn is_scored(&self) -> bool {
        self.version == self.suite.scored_on()
    }

    /// Replaces every secret in the texts that came from outside (the answer, the
    /// error, the reason) by `[redacted]` (see [`crate::redact`]).
    pub fn redact(&mut self) {
        if let Some(answer) = &mut self.answer {
            crate::redact::redact_in_place(answer);
        }
        if let Some(error) = &mut self.error {
            crate::redact::redact_in_place(error);
        }
        crate::redact::redact_in_place(&mut self.reason);
    }
}
