//! The paper's metrics (Eq. 2–5) computed from result records, with breakdowns and
//! the cluster bootstrap.
//!
//! The only input is a slice of [`Record`]s, so every figure can be recomputed from a
//! run's `results.jsonl`. Conventions (§3.4):
//! - z is the `correct` of the record on the version the question is scored on
//!   ([`Record::is_scored`]); a record with an error or left unscored never passes.
//! - c is the pass of the control-version record whose `question_id` is the record's
//!   `conditioned_on` (same instance); c = 1 when `conditioned_on` is null; a missing
//!   control record gives c = 0 and is counted in [`Counts::missing_control`].
//! - z̃ = z ∧ c; M(s) is the mean of z̃ over the scored records of s, undefined
//!   (`None`, JSON `null`) for an empty s.
//! - RA, FE, PR, RLA are M of their suites; AR is the mean over the attack types
//!   present of M(S_a); RPR is the share of requests whose scored items and whose
//!   instance's preservation items all have z̃ = 1; FA = √(FE·AR), UG = √(PR·RLA),
//!   Score = FA·UG, each undefined when an input is.

mod bootstrap;
mod breakdown;
pub(crate) mod effective;
pub(crate) mod outcomes;
mod summary;

pub use bootstrap::{BootstrapConfig, BootstrapError, Interval, bootstrap, bootstrap_difference};
pub use breakdown::{Breakdowns, breakdowns};
pub use outcomes::{FailReason, FailedItem, RequestOutcome, request_outcomes};

use crate::record::Record;
use serde::{Deserialize, Serialize};

/// The paper's metrics as fractions in [0, 1]; `None` where undefined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricSet {
    /// Retention accuracy, M(S_ret).
    #[serde(rename = "RA")]
    pub ra: Option<f64>,
    /// Forgetting efficacy, M(S_eff).
    #[serde(rename = "FE")]
    pub fe: Option<f64>,
    /// Preservation, M(S_pres).
    #[serde(rename = "PR")]
    pub pr: Option<f64>,
    /// Relearning accuracy, M(S_rl).
    #[serde(rename = "RLA")]
    pub rla: Option<f64>,
    /// Attack robustness, the mean over attack types of M(S_a).
    #[serde(rename = "AR")]
    pub ar: Option<f64>,
    /// Request pass rate (Eq. 4).
    #[serde(rename = "RPR")]
    pub rpr: Option<f64>,
    /// Forgetting ability, √(FE·AR).
    #[serde(rename = "FA")]
    pub fa: Option<f64>,
    /// Usability guard, √(PR·RLA).
    #[serde(rename = "UG")]
    pub ug: Option<f64>,
    /// The Bemula score, FA·UG.
    #[serde(rename = "Score")]
    pub score: Option<f64>,
}

impl MetricSet {
    /// The metric names, in the paper's order, as used in JSON and in interval maps.
    pub const KEYS: [&'static str; 9] = ["RA", "FE", "PR", "RLA", "AR", "RPR", "FA", "UG", "Score"];

    /// The metrics from the six measured ones, deriving FA, UG and Score (Eq. 5).
    pub fn from_suites(
        ra: Option<f64>,
        fe: Option<f64>,
        pr: Option<f64>,
        rla: Option<f64>,
        ar: Option<f64>,
        rpr: Option<f64>,
    ) -> MetricSet {
        let geometric = |a: Option<f64>, b: Option<f64>| Some((a? * b?).sqrt());
        let fa = geometric(fe, ar);
        let ug = geometric(pr, rla);
        let score = fa.zip(ug).map(|(fa, ug)| fa * ug);
        MetricSet {
            ra,
            fe,
            pr,
            rla,
            ar,
            rpr,
            fa,
            ug,
            score,
        }
    }

    /// The values in [`MetricSet::KEYS`] order.
    pub fn values(&self) -> [Option<f64>; 9] {
        [
            self.ra, self.fe, self.pr, self.rla, self.ar, self.rpr, self.fa, self.ug, self.score,
        ]
    }

    /// One metric by its key (`"RA"` … `"Score"`); `None` for an unknown key or an
    /// undefined metric.
    pub fn get(&self, key: &str) -> Option<f64> {
        let index = Self::KEYS.iter().position(|k| *k == key)?;
        self.values()[index]
    }
}

/// The metrics of a set of records (Eq. 2–5).
pub fn compute(records: &[Record]) -> MetricSet {
    let items = effective::score(records);
    let mut total = summary::Summary::default();
    for instance in summary::summarise(&items, |_| true).values() {
        total.merge(instance);
    }
    total.metrics()
}

/// Effective correctness z̃ of every record, in input order: `Some(z̃)` for a record
/// on the version its question is scored on, `None` for a control probe that only
/// conditions another record.
pub fn effective(records: &[Record]) -> Vec<Option<bool>> {
    let mut items = effective::score(records).into_iter();
    records
        .iter()
        .map(|r| {
            if r.is_scored() {
                items.next().map(|i| i.effective())
            } else {
                None
            }
        })
        .collect()
}

/// How the records of a run split, for reports: every record is exactly one of
/// correct, wrong, error or unscored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// All records, both versions.
    pub records: usize,
    /// Records on the version their question is scored on.
    pub scored: usize,
    /// Records judged correct (without error, not unscored).
    pub correct: usize,
    /// Records judged wrong.
    pub wrong: usize,
    /// Records whose call failed.
    pub errors: usize,
    /// Records the judge could not decide.
    pub unscored: usize,
    /// Scored records whose conditioning control record is absent (they get c = 0).
    pub missing_control: usize,
    /// Restarts of passes (reset and ingest again after a failure that may have
    /// changed memory), summed over the passes of the run.
    #[serde(default)]
    pub restarts: usize,
}

/// How a run was judged: the judge, which judge decided how many records, and the
/// share no judge decided. Records whose call failed are left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Judging {
    /// The judge spec (`rule`, `llm:M`, `rule+llm:M`).
    pub judge: String,
    /// Records each judge decided, by judge name (a single judge decides all it
    /// scores; under the hybrid judge `rule` and the LLM judge share them).
    pub decided_by: std::collections::BTreeMap<String, usize>,
    /// Records judged (without error).
    pub judged: usize,
    /// Records no judge decided.
    pub unscored: usize,
    /// `unscored / judged`; null with nothing judged.
    pub unscored_share: Option<f64>,
    /// The judge's figures on the shipped calibration set, where the project ships
    /// them (the rule judge, and the rule part of the hybrid judge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<crate::judge::calibration::ShippedCalibration>,
}

impl Judging {
    /// The share of judged records `judge` decided.
    pub fn share(&self, judge: &str) -> Option<f64> {
        let n = self.decided_by.get(judge).copied().unwrap_or(0);
        (self.judged > 0).then(|| n as f64 / self.judged as f64)
    }
}

/// How `records` were judged by `judge`.
pub fn judging(records: &[Record], judge: &str) -> Judging {
    let mut out = Judging {
        judge: judge.to_string(),
        ..Judging::default()
    };
    for record in records.iter().filter(|r| r.error.is_none()) {
        out.judged += 1;
        if record.unscored {
            out.unscored += 1;
        } else {
            let by = record.decided_by.as_deref().unwrap_or(judge);
            *out.decided_by.entry(by.to_string()).or_insert(0) += 1;
        }
    }
    out.unscored_share = (out.judged > 0).then(|| out.unscored as f64 / out.judged as f64);
    out
}

/// Counts the records by outcome.
pub fn counts(records: &[Record]) -> Counts {
    let mut counts = Counts {
        records: records.len(),
        ..Counts::default()
    };
    for record in records {
        if record.error.is_some() {
            counts.errors += 1;
        } else if record.unscored {
            counts.unscored += 1;
        } else if record.correct {
            counts.correct += 1;
        } else {
            counts.wrong += 1;
        }
    }
    let mut passes = std::collections::BTreeMap::new();
    for record in records {
        passes.insert((&record.instance, record.version), record.restarts);
    }
    counts.restarts = passes.values().map(|&n| n as usize).sum();
    let items = effective::score(records);
    counts.scored = items.len();
    counts.missing_control = items.iter().filter(|i| i.control_missing).count();
    counts
}

/// The errors of one kind among a run's records: how many, and the first message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorExample {
    /// The kind: a system-call error class (`timeout`, `protocol error`, …), or
    /// `other` (an answerer's or judge's error, for example).
    pub kind: String,
    /// Records with an error of this kind.
    pub count: usize,
    /// The first such record's question id and instance, `short_001/r1-eff-f05`.
    pub first_at: String,
    /// Its error message.
    pub first: String,
}

/// The error kinds of `records` with their counts and first messages, the most
/// frequent kind first (ties in order of first appearance).
pub fn error_examples(records: &[Record]) -> Vec<ErrorExample> {
    const KINDS: [&str; 7] = [
        "system error",
        "timeout",
        "connection error",
        "system crashed",
        "system overloaded",
        "protocol error",
        "unsupported",
    ];
    let mut found: Vec<ErrorExample> = Vec::new();
    for record in records {
        let Some(message) = record.error.as_deref() else {
            continue;
        };
        let kind = KINDS
            .iter()
            .filter_map(|k| message.find(&format!("{k}: ")).map(|at| (at, *k)))
            .min()
            .map(|(_, k)| k)
            .unwrap_or("other");
        match found.iter_mut().find(|e| e.kind == kind) {
            Some(e) => e.count += 1,
            None => found.push(ErrorExample {
                kind: kind.to_string(),
                count: 1,
                first_at: format!("{}/{}", record.instance, record.question_id),
                first: message.to_string(),
            }),
        }
    }
    found.sort_by_key(|e| std::cmp::Reverse(e.count));
    found
}
