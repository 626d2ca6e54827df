//! Persona consistency for v2: a fact value may presuppose something about the
//! persona ("my kids' college fund" a child, "a studio above a bakery" a small
//! household, "early retirement at fifty-five" an age below fifty). Rules listed in
//! `data/generator/v2/consistency.json`; a value that breaks one is drawn again from
//! its list among the values that break none and overlap no other value.

use crate::generate::profile::{GenProfile, clashes};
use crate::generate::rng::Rng;
use once_cell::sync::Lazy;
use serde::Deserialize;

/// What a value presupposes about the persona.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Needs {
    /// At least one child.
    Children,
    /// No children.
    NoChildren,
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

static RULES: Lazy<Vec<Rule>> = Lazy::new(|| {
    serde_json::from_str(include_str!("../../../data/generator/v2/consistency.json"))
        .unwrap_or_else(|e| panic!("embedded data/generator/v2/consistency.json is malformed: {e}"))
});

/// The rules.
pub fn rules() -> &'static [Rule] {
    &RULES
}

/// Whether the persona of `profile` meets what `value` presupposes.
pub fn fits(profile: &GenProfile, value: &str) -> bool {
    let p = &profile.persona;
    rules()
        .iter()
        .filter(|r| r.value == value)
        .all(|r| match r.requires {
            Needs::Children => p.family.children > 0,
            Needs::NoChildren => p.family.children == 0,
            Needs::NoPartner => !p.family.partner,
            Needs::YoungerThan50 => p.age < 50,
            Needs::YoungerThan60 => p.age < 60,
        })
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
