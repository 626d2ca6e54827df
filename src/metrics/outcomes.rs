//! Per-request outcomes: whether each forget request passes end to end (Eq. 4) and,
//! when it does not, which items failed and why.

use super::effective::{self, Cause, Item};
use crate::dataset::{Attack, RequestType, Suite, Tier, Version};
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why an item keeps a request from passing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailReason {
    /// The judge found the answer wrong.
    Wrong,
    /// The call failed (system, transport, answerer or judge).
    Error,
    /// The judge could not decide.
    Unscored,
    /// The answer passed but its control probe did not (c = 0).
    ControlProbeFailed,
    /// The answer passed but its control probe has no record (c = 0).
    ControlProbeMissing,
    /// A preservation item of the request's instance has z̃ = 0.
    PreservationItemFailed,
}

impl std::fmt::Display for FailReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FailReason::Wrong => "wrong",
            FailReason::Error => "error",
            FailReason::Unscored => "unscored",
            FailReason::ControlProbeFailed => "control probe failed",
            FailReason::ControlProbeMissing => "control probe missing",
            FailReason::PreservationItemFailed => "preservation item failed",
        })
    }
}

/// One item that keeps a request from passing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedItem {
    /// Question id of the scored item.
    pub question_id: String,
    /// The version it was scored on.
    pub version: Version,
    /// Its suite.
    pub suite: Suite,
    /// Its attack frame, for attack items.
    pub attack: Option<Attack>,
    /// Why it fails.
    pub reason: FailReason,
    /// What a reader checks: the judge's or the error's text, or which control probe
    /// failed and why.
    pub detail: String,
}

/// Whether one forget request passes, with the items that keep it from passing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestOutcome {
    /// Instance id.
    pub instance: String,
    /// Tier of the instance.
    pub tier: Tier,
    /// Request id within the instance.
    pub request: String,
    /// The request's type, as its records give it (`None` if none does).
    pub request_type: Option<RequestType>,
    /// Whether every scored item of the request and every preservation item of its
    /// instance has z̃ = 1.
    pub passed: bool,
    /// The failing items: the request's own, then its instance's preservation items.
    pub failed: Vec<FailedItem>,
}

/// The failure of an item, as every report states it; `None` for an item that holds.
pub(crate) fn failed_item(item: &Item<'_>, preservation: bool) -> Option<FailedItem> {
    let cause = item.cause?;
    let record = item.record;
    // The detail explains the reason without restating it: reports print both as
    // "reason: detail".
    let (own_reason, detail) = match cause {
        Cause::Error => (
            FailReason::Error,
            record
                .error
                .as_deref()
                .unwrap_or(&record.reason)
                .to_string(),
        ),
        Cause::Unscored => (FailReason::Unscored, record.reason.clone()),
        Cause::Wrong => (FailReason::Wrong, record.reason.clone()),
        Cause::ControlMissing => (
            FailReason::ControlProbeMissing,
            format!(
                "no control-version record of question {}",
                record.conditioned_on.as_deref().unwrap_or("?")
            ),
        ),
        Cause::ControlFailed(control) => (
            FailReason::ControlProbeFailed,
            format!(
                "{} on the control version: {}",
                control.question_id,
                control.error.as_deref().unwrap_or(&control.reason)
            ),
        ),
    };
    let (reason, detail) = if preservation {
        (
            FailReason::PreservationItemFailed,
            format!("{own_reason}: {detail}"),
        )
    } else {
        (own_reason, detail)
    };
    Some(FailedItem {
        question_id: record.question_id.clone(),
        version: record.version,
        suite: record.suite,
        attack: record.attack,
        reason,
        detail,
    })
}

/// The outcome of every forget request that has scored records, sorted by
/// (instance, request).
pub fn request_outcomes(records: &[Record]) -> Vec<RequestOutcome> {
    let items = effective::score(records);
    let mut preservation: BTreeMap<&str, Vec<FailedItem>> = BTreeMap::new();
    for item in items
        .iter()
        .filter(|i| i.record.suite == Suite::Preservation)
    {
        let failures = preservation.entry(&item.record.instance).or_default();
        failures.extend(failed_item(item, true));
    }
    let mut outcomes: BTreeMap<(&str, &str), RequestOutcome> = BTreeMap::new();
    for item in items
        .iter()
        .filter(|i| i.record.suite != Suite::Preservation)
    {
        let record = item.record;
        let Some(request) = record.request.as_deref() else {
            continue;
        };
        let outcome = outcomes
            .entry((&record.instance, request))
            .or_insert_with(|| RequestOutcome {
                instance: record.instance.clone(),
                tier: record.tier,
                request: request.to_string(),
                request_type: None,
                passed: true,
                failed: Vec::new(),
            });
        outcome.request_type = outcome.request_type.or(record.request_type);
        outcome.failed.extend(failed_item(item, false));
    }
    outcomes
        .into_values()
        .map(|mut outcome| {
            if let Some(failures) = preservation.get(outcome.instance.as_str()) {
                outcome.failed.extend(failures.iter().cloned());
            }
            outcome.passed = outcome.failed.is_empty();
            outcome
        })
        .collect()
}
