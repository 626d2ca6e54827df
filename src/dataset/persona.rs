//! Persona rules: a fact value may presuppose something about the persona ("my kids'
//! college fund" a child, "a studio above a bakery" a small household, "early
//! retirement at fifty-five" an age below fifty). The rules are data
//! (`data/persona-rules.json`, beside the schema), read by `bemula validate`'s persona
//! check and by the generator, which draws no value that breaks one.

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
    serde_json::from_str(include_str!("../../data/persona-rules.json"))
        .unwrap_or_else(|e| panic!("embedded data/persona-rules.json is malformed: {e}"))
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
