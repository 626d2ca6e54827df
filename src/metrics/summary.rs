//! Per-instance sufficient statistics: everything the metrics need from one instance,
//! as pass/total counts, so that metrics over any multiset of instances (a tier, a
//! bootstrap resample) are sums of summaries.

use super::MetricSet;
use super::effective::Item;
use crate::dataset::{Attack, Suite};
use crate::record::Record;
use std::collections::BTreeMap;

/// Passes out of a total.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Items with z̃ = 1.
    pub passed: u32,
    /// All items.
    pub total: u32,
}

impl Tally {
    fn add(&mut self, passed: bool) {
        self.passed += u32::from(passed);
        self.total += 1;
    }

    fn merge(&mut self, other: Tally) {
        self.passed += other.passed;
        self.total += other.total;
    }

    /// passed / total, undefined for an empty tally.
    pub fn rate(self) -> Option<f64> {
        (self.total > 0).then(|| f64::from(self.passed) / f64::from(self.total))
    }
}

/// Index of each non-attack suite in [`Summary::suites`].
const RETENTION: usize = 0;
const EFFICACY: usize = 1;
const PRESERVATION: usize = 2;
const RELEARNING: usize = 3;
/// Slot in [`Summary::attacks`] for attack records that name no attack type.
const NO_ATTACK_TYPE: usize = Attack::ALL.len();

/// The sufficient statistics of one instance (or of a sum of instances).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Retention, efficacy, preservation, relearning.
    pub suites: [Tally; 4],
    /// One tally per attack type in [`Attack::ALL`] order, then one for attack records
    /// without a type.
    pub attacks: [Tally; Attack::ALL.len() + 1],
    /// Requests passed out of requests.
    pub requests: Tally,
}

impl Summary {
    /// Adds another summary into this one.
    pub fn merge(&mut self, other: &Summary) {
        for (mine, theirs) in self.suites.iter_mut().zip(other.suites) {
            mine.merge(theirs);
        }
        for (mine, theirs) in self.attacks.iter_mut().zip(other.attacks) {
            mine.merge(theirs);
        }
        self.requests.merge(other.requests);
    }

    /// The metrics of Eq. 2–5 over the summarised items.
    pub fn metrics(&self) -> MetricSet {
        let (sum, types) = self
            .attacks
            .iter()
            .filter_map(|t| t.rate())
            .fold((0.0, 0u32), |(sum, n), rate| (sum + rate, n + 1));
        let ar = (types > 0).then(|| sum / f64::from(types));
        MetricSet::from_suites(
            self.suites[RETENTION].rate(),
            self.suites[EFFICACY].rate(),
            self.suites[PRESERVATION].rate(),
            self.suites[RELEARNING].rate(),
            ar,
            self.requests.rate(),
        )
    }

    /// The pass rate of one attack type.
    pub fn attack_rate(&self, attack: Option<Attack>) -> Option<f64> {
        self.attacks[attack_slot(attack)].rate()
    }
}

fn attack_slot(attack: Option<Attack>) -> usize {
    attack
        .and_then(|a| Attack::ALL.iter().position(|x| *x == a))
        .unwrap_or(NO_ATTACK_TYPE)
}

/// One summary per instance, keyed and sorted by instance id.
///
/// `select` chooses which request-probing items (every suite but preservation) are
/// counted, e.g. those of one request type; preservation items are always counted
/// and always decide whether a request of their instance passes (Eq. 4).
pub(crate) fn summarise<'a>(
    items: &[Item<'a>],
    select: impl Fn(&Record) -> bool,
) -> BTreeMap<&'a str, Summary> {
    let mut summaries: BTreeMap<&'a str, Summary> = BTreeMap::new();
    let mut preservation_ok: BTreeMap<&'a str, bool> = BTreeMap::new();
    let mut request_ok: BTreeMap<(&'a str, &'a str), bool> = BTreeMap::new();
    for item in items {
        let record = item.record;
        let instance = record.instance.as_str();
        let summary = summaries.entry(instance).or_default();
        let pass = item.effective();
        let preservation = record.suite == Suite::Preservation;
        if !preservation && !select(record) {
            continue;
        }
        match record.suite {
            Suite::Preservation => {
                summary.suites[PRESERVATION].add(pass);
                *preservation_ok.entry(instance).or_insert(true) &= pass;
            }
            Suite::Retention => summary.suites[RETENTION].add(pass),
            Suite::Efficacy => summary.suites[EFFICACY].add(pass),
            Suite::Relearning => summary.suites[RELEARNING].add(pass),
            Suite::Attack => summary.attacks[attack_slot(record.attack)].add(pass),
        }
        if !preservation && let Some(request) = record.request.as_deref() {
            *request_ok.entry((instance, request)).or_insert(true) &= pass;
        }
    }
    for ((instance, _), ok) in request_ok {
        let preserved = preservation_ok.get(instance).copied().unwrap_or(true);
        if let Some(summary) = summaries.get_mut(instance) {
            summary.requests.add(ok && preserved);
        }
    }
    summaries
}
