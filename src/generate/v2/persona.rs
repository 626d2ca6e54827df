//! Persona consistency for v2: a fact value may presuppose something about the
//! persona ("my kids' college fund" a child, "a studio above a bakery" a small
//! household, "early retirement at fifty-five" an age below fifty). Rules listed in
//! `data/generator/v2/consistency.json`; a value that breaks one is drawn again from
//! its list among the values that break none and overlap no other value.

use crate::generate::profile::{GenProfile, clashes};
use crate::generate::rng::Rng;
use serde::Deserialize;
use std::sync::LazyLock;

/// What a value presupposes about the persona.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Needs {
    /// At least one child.
    Children,
    /// No children.
    NoChildren,
    /// A partner.
    Partner,
    /// No partner.
    NoPartner,
    /// Younger than 50.
    #[serde(rename = "younger_than_50")]
    YoungerThan50,
    /// Younger than 60.
    #[serde(rename = "younger_than_60")]
    YoungerThan60,
}

/// One rule: `value` needs `requires`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The value, as written in a word list.
    pub value: String,
    /// What it presupposes.
    pub requires: Needs,
}

static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../data/generator/v2/consistency.json"))
        .unwrap_or_else(|e| panic!("embedded data/generator/v2/consistency.json is malformed: {e}"))
});

/// The rules.
pub fn rules() -> &'static [Rule] {
    &RULES
}

/// What is known of a persona; each part may be unknown (`None`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Known {
    /// Whether the persona has at least one child.
    pub children: Option<bool>,
    /// Whether the persona has a partner.
    pub partner: Option<bool>,
    /// The persona's age in years.
    pub age: Option<u32>,
}

impl Needs {
    /// Whether a persona known as `known` meets this; `None` when the part it needs is
    /// unknown.
    pub(crate) fn met_by(self, known: &Known) -> Option<bool> {
        match self {
            Needs::Children => known.children,
            Needs::NoChildren => known.children.map(|c| !c),
            Needs::Partner => known.partner,
            Needs::NoPartner => known.partner.map(|p| !p),
            Needs::YoungerThan50 => known.age.map(|a| a < 50),
            Needs::YoungerThan60 => known.age.map(|a| a < 60),
        }
    }
}

/// Whether the persona of `profile` meets what `value` presupposes.
pub fn fits(profile: &GenProfile, value: &str) -> bool {
    let p = &profile.persona;
    let known = Known {
        children: Some(p.family.children > 0),
        partner: Some(p.family.partner),
        age: Some(p.age),
    };
    rules()
        .iter()
        .filter(|r| r.value == value)
        .all(|r| r.requires.met_by(&known) != Some(false))
}

/// Draws again every value of a plain word-list fact that the persona contradicts.
pub fn make_consistent(profile: &mut GenProfile, rng: &mut Rng) {
    let vocab = &crate::generate::data::data().vocab;
    for i in 0..profile.facts.len() {
        if fits(profile, &profile.facts[i].value) {
            continue;
        }
        let pattern = profile.facts[i].template.value.as_str();
        let Some(list) = pattern
            .strip_prefix('{')
            .and_then(|p| p.strip_suffix('}'))
            .and_then(|name| vocab.get(name))
        else {
            continue;
        };
        let options: Vec<&String> = list
            .iter()
            .filter(|v| fits(profile, v))
            .filter(|v| {
                profile
                    .facts
                    .iter()
                    .enumerate()
                    .all(|(j, f)| j == i || !clashes(&f.value, v))
            })
            .collect();
        if !options.is_empty() {
            profile.facts[i].value = options[rng.below(options.len())].clone();
        }
    }
}
