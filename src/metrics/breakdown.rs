//! Breakdowns of the metrics by request type, attack type and length tier.

use super::effective;
use super::summary::{Summary, summarise};
use super::{MetricSet, compute};
use crate::dataset::{Attack, RequestType, Tier};
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The metrics broken down three ways. Only the types, attacks and tiers present in
/// the records appear.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Breakdowns {
    /// By request type (`F1` … `F6`): RA, FE, RLA, AR and RPR over the requests of the
    /// type (RPR still requires the instance's preservation items); PR, FA, UG and
    /// Score are instance-level and left undefined.
    pub by_type: BTreeMap<String, MetricSet>,
    /// M(S_a) by attack type (`indirect` … `multi_hop`; `unknown` for attack records
    /// without a type).
    pub by_attack: BTreeMap<String, Option<f64>>,
    /// All metrics over the instances of each tier (`short` … `xlong`).
    pub by_tier: BTreeMap<String, MetricSet>,
}

/// The breakdowns of a set of records.
pub fn breakdowns(records: &[Record]) -> Breakdowns {
    let items = effective::score(records);
    let mut by_type = BTreeMap::new();
    for kind in RequestType::ALL {
        if !items.iter().any(|i| i.record.request_type == Some(kind)) {
            continue;
        }
        let mut total = Summary::default();
        for summary in summarise(&items, |r| r.request_type == Some(kind)).values() {
            total.merge(summary);
        }
        let metrics = total.metrics();
        by_type.insert(
            kind.code().to_string(),
            MetricSet {
                pr: None,
                fa: None,
                ug: None,
                score: None,
                ..metrics
            },
        );
    }

    let mut total = Summary::default();
    for summary in summarise(&items, |_| true).values() {
        total.merge(summary);
    }
    let mut by_attack = BTreeMap::new();
    let attacks = Attack::ALL.into_iter().map(Some).chain([None]);
    for attack in attacks {
        if let Some(rate) = total.attack_rate(attack) {
            let name = attack.map_or("unknown", Attack::name);
            by_attack.insert(name.to_string(), Some(rate));
        }
    }

    let mut by_tier = BTreeMap::new();
    for tier in Tier::ALL {
        let subset: Vec<Record> = records.iter().filter(|r| r.tier == tier).cloned().collect();
        if !subset.is_empty() {
            by_tier.insert(tier.name().to_string(), compute(&subset));
        }
    }
    Breakdowns {
        by_type,
        by_attack,
        by_tier,
    }
}
