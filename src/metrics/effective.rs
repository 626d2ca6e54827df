//! Effective correctness (§3.4): z̃ = z ∧ c, each scored record paired with the
//! control-version record it is conditioned on.

use crate::record::Record;
use std::collections::HashMap;

/// Whether a record counts as a pass on its own: judged correct, no error, scored.
pub(crate) fn passes(record: &Record) -> bool {
    record.correct && record.error.is_none() && !record.unscored
}

/// Why a scored record has z̃ = 0, in the order the causes are looked for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Cause<'a> {
    /// The record carries an error.
    Error,
    /// The judge could not decide.
    Unscored,
    /// The judge found the answer wrong.
    Wrong,
    /// No control-version record of the conditioning question exists (c = 0).
    ControlMissing,
    /// The conditioning control-version record did not pass (c = 0).
    ControlFailed(&'a Record),
}

/// A scored record with its effective correctness.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item<'a> {
    /// The record, on the version its question is scored on.
    pub record: &'a Record,
    /// Why z̃ = 0, or `None` when z̃ = 1.
    pub cause: Option<Cause<'a>>,
    /// Whether the record names a conditioning question with no control record.
    pub control_missing: bool,
}

impl Item<'_> {
    /// z̃ of the item.
    pub fn effective(&self) -> bool {
        self.cause.is_none()
    }
}

/// The scored records of `records` with their effective correctness, in input order.
///
/// c = 1 when `conditioned_on` is null; otherwise c is the pass of the control-version
/// record of the same instance whose `question_id` is `conditioned_on` (0 when there
/// is none). When several control records share an id, any failing one makes c = 0.
pub(crate) fn score(records: &[Record]) -> Vec<Item<'_>> {
    let mut control: HashMap<(&str, &str), &Record> = HashMap::new();
    for record in records
        .iter()
        .filter(|r| r.version == crate::dataset::Version::Control)
    {
        let key = (record.instance.as_str(), record.question_id.as_str());
        let keep_existing = control.get(&key).is_some_and(|existing| !passes(existing));
        if !keep_existing {
            control.insert(key, record);
        }
    }
    records
        .iter()
        .filter(|r| r.is_scored())
        .map(|record| {
            let probe = record
                .conditioned_on
                .as_deref()
                .map(|q| control.get(&(record.instance.as_str(), q)).copied());
            let control_missing = matches!(probe, Some(None));
            let cause = if record.error.is_some() {
                Some(Cause::Error)
            } else if record.unscored {
                Some(Cause::Unscored)
            } else if !record.correct {
                Some(Cause::Wrong)
            } else {
                match probe {
                    None => None,
                    Some(None) => Some(Cause::ControlMissing),
                    Some(Some(c)) if !passes(c) => Some(Cause::ControlFailed(c)),
                    Some(Some(_)) => None,
                }
            };
            Item {
                record,
                cause,
                control_missing,
            }
        })
        .collect()
}
