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

/// Phrases of the dialogue that presuppose the speaker's household: said by the user
/// (`my …`, `our …`) or by the assistant of the user (`your …`). General English, not
/// any generator's wording; "my son-in-law", "my ex-wife", "my late husband" and "my
/// stepson" presuppose none of it.
const DIALOGUE_RULES: &[(&str, Needs)] = &[
    ("kids", Needs::Children),
    ("kid", Needs::Children),
    ("children", Needs::Children),
    ("child", Needs::Children),
    ("son", Needs::Children),
    ("sons", Needs::Children),
    ("daughter", Needs::Children),
    ("daughters", Needs::Children),
    ("husband", Needs::Partner),
    ("wife", Needs::Partner),
    ("partner", Needs::Partner),
    ("spouse", Needs::Partner),
    ("boyfriend", Needs::Partner),
    ("girlfriend", Needs::Partner),
    ("fiance", Needs::Partner),
    ("fiancee", Needs::Partner),
];

/// Who owns what the user says of themself: "my kids", "our son".
pub(crate) const USER_OWNERS: &[&str] = &["my", "our"];
/// Who owns what the assistant says of the user: "your husband".
pub(crate) const ASSISTANT_OWNERS: &[&str] = &["your"];

/// The first phrase of `text` (an owner word of `owners` and a word of
/// [`DIALOGUE_RULES`]: "my partner") whose presupposition a persona known as `known`
/// contradicts, normalised, with what it presupposes.
pub(crate) fn contradicted(text: &str, owners: &[&str], known: &Known) -> Option<(String, Needs)> {
    if known.children.is_none() && known.partner.is_none() {
        return None;
    }
    let lower = normalise(text).replace(['\u{e9}'], "e");
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    for (i, pair) in words.windows(2).enumerate() {
        if !owners.contains(&pair[0]) {
            continue;
        }
        let Some(&(_, needs)) = DIALOGUE_RULES.iter().find(|(w, _)| *w == pair[1]) else {
            continue;
        };
        // "my son-in-law", "your daughter-in-law".
        if words.get(i + 2) == Some(&"in") && words.get(i + 3) == Some(&"law") {
            continue;
        }
        if needs.met_by(known) == Some(false) {
            return Some((format!("{} {}", pair[0], pair[1]), needs));
        }
    }
    None
}

/// Lower case, typographic apostrophes made plain, runs of white space made one space.
pub(crate) fn normalise(text: &str) -> String {
    text.to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
