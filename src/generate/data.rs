//! The generator's vocabularies and templates: JSON files under `data/generator/`,
//! compiled into the crate with `include_str!` so that a dependent crate generates
//! the same bytes without this repository's files, and parsed once on first use.

use crate::dataset::Sensitivity;
use once_cell::sync::Lazy;
use serde::Deserialize;
use std::collections::BTreeMap;

/// Everything the generator reads.
#[derive(Debug)]
pub struct Data {
    /// Word lists by name (`streets`, `cuisines`, …).
    pub vocab: BTreeMap<String, Vec<String>>,
    /// Occupations, family structures and other persona attributes.
    pub personas: Personas,
    /// Fact templates by category, and derived-fact rules.
    pub facts: Facts,
    /// The scenario pool.
    pub scenarios: Vec<Scenario>,
    /// Small-talk sentence pools.
    pub talk: Talk,
    /// Forget-request templates, confirmations and control fillers.
    pub requests: Requests,
    /// Attack frames and relearning templates.
    pub questions: Questions,
}

/// Persona attribute pools.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Personas {
    /// Occupations, each with its employers and fields of study.
    pub occupations: Vec<Occupation>,
    /// Family structures.
    pub families: Vec<Family>,
    /// Lifestyle descriptions.
    pub lifestyles: Vec<String>,
    /// Education levels.
    pub education_levels: Vec<String>,
}

/// One occupation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Occupation {
    /// Job title, e.g. `nurse`.
    pub title: String,
    /// Plausible employers (at least two).
    pub employers: Vec<String>,
    /// Plausible fields of study (at least two).
    pub fields: Vec<String>,
}

/// One family structure.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// As written in the profile's attributes.
    pub label: String,
    /// Has a partner.
    pub partner: bool,
    /// Is married.
    pub married: bool,
    /// Number of children.
    pub children: u32,
}

/// Fact templates and derived-fact rules.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// The twelve categories.
    pub categories: Vec<Category>,
    /// Derived-fact rules.
    pub derived: Vec<DerivedTemplate>,
}

/// A fact category.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Category {
    /// Name written into facts, e.g. `health`.
    pub name: String,
    /// Adjective used in requests: "all of my {label} information".
    pub label: String,
    /// Noun phrase used in requests: "everything about {topic}".
    pub topic: String,
    /// The category's fact templates.
    pub templates: Vec<FactTemplate>,
}

/// How a fact relates to time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeKind {
    /// No timestamp.
    None,
    /// The value is a month ("March 2019") and the timestamp that month.
    Date,
    /// An event with a timestamp; texts place it with `{when}`.
    Event,
}

/// What a persona must have for a template to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Requirement {
    /// A partner or spouse.
    Partner,
    /// Married.
    Married,
    /// At least one child.
    Children,
    /// A pet.
    Pet,
}

/// A template for one atomic fact.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactTemplate {
    /// Stable key, used by derived rules.
    pub key: String,
    /// The fact's predicate.
    pub predicate: String,
    /// How requests refer to the fact; `my {predicate}` when absent.
    #[serde(default)]
    pub about: Option<String>,
    /// Value pattern: `{list}`, `{n:LO-HI}`, `{date}`, `{birthdate}`.
    pub value: String,
    /// Sensitivity label.
    pub sensitivity: Sensitivity,
    /// Relation to time.
    pub time: TimeKind,
    /// Always part of a profile (derived rules use it).
    #[serde(default)]
    pub core: bool,
    /// The value can change over time (eligible for F6).
    #[serde(default)]
    pub mutable: bool,
    /// What the persona must have.
    #[serde(default)]
    pub requires: Option<Requirement>,
    /// Range of months before the dialogue for `date` and `event` facts.
    #[serde(default)]
    pub months_back: Option<[u32; 2]>,
    /// The retention question.
    pub question: String,
    /// The fact as a clause, for yes/no attacks and replacement requests.
    pub claim: String,
    /// The fact as a first-person sentence.
    pub statement: String,
    /// User sentences that disclose the fact; each holds `{value}`.
    pub say: Vec<String>,
}

/// How a derived value follows from its sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Reference year minus the year of the second source's month.
    YearsSince,
    /// Sessions per week (first source) times hours per session (second source).
    Product,
    /// Age at the second source's month, given the date of birth (first source).
    AgeAt,
}

/// The unit a derived number is written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// "six years".
    Year,
    /// "six hours a week".
    HourWeek,
    /// "twenty-two years old".
    Age,
}

/// A derived-fact rule.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DerivedTemplate {
    /// Stable key (named in tests and error messages).
    #[cfg_attr(not(test), allow(dead_code))]
    pub key: String,
    /// The rule.
    pub rule: Rule,
    /// Keys of the source templates, in the rule's order.
    pub sources: Vec<String>,
    /// Category written into the fact.
    pub category: String,
    /// Sensitivity label.
    pub sensitivity: Sensitivity,
    /// The fact's predicate.
    pub predicate: String,
    /// How requests refer to it.
    pub about: String,
    /// Unit of the value.
    pub unit: Unit,
    /// The retention question.
    pub question: String,
    /// The fact as a clause.
    pub claim: String,
    /// The fact as a sentence.
    pub statement: String,
    /// User sentences stating a new value, for relearning.
    pub relearn: Vec<String>,
}

/// A scenario: a theme and a user goal in a daily-life domain.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Domain, e.g. `travel`.
    pub domain: String,
    /// Theme of the session.
    pub theme: String,
    /// The user's goal, as a verb phrase.
    pub goal: String,
    /// Noun phrase for generic sentences.
    pub topic: String,
    /// User questions.
    pub asks: Vec<String>,
    /// Assistant advice.
    pub tips: Vec<String>,
}

/// Small-talk pools.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Talk {
    /// Session greetings.
    pub greetings: Vec<String>,
    /// Session goal statements (`{goal}`).
    pub session_openers: Vec<String>,
    /// Session theme statements (`{theme_lower}`).
    pub session_contexts: Vec<String>,
    /// Assistant welcomes.
    pub welcomes: Vec<String>,
    /// Short user openers.
    pub openers: Vec<String>,
    /// Generic user questions (`{topic}`).
    pub generic_asks: Vec<String>,
    /// User context sentences.
    pub details: Vec<String>,
    /// Lead-ins before a disclosure.
    pub bridges: Vec<String>,
    /// Assistant acknowledgements.
    pub acks: Vec<String>,
    /// Assistant acknowledgements of a disclosure (never restate it).
    pub disclosure_acks: Vec<String>,
    /// Generic assistant advice (`{topic}`).
    pub bodies: Vec<String>,
    /// Assistant closing questions.
    pub closers: Vec<String>,
    /// User goodbyes.
    pub farewells_user: Vec<String>,
    /// Assistant goodbyes.
    pub farewells_assistant: Vec<String>,
}

/// Forget-request pools.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requests {
    /// Optional sentence before a request.
    pub lead_ins: Vec<String>,
    /// Optional sentence after a request.
    pub tails: Vec<String>,
    /// Request sentences by style (`{what}`).
    pub styles: BTreeMap<String, Vec<String>>,
    /// Target descriptions by type (`F1`–`F5`).
    pub what: BTreeMap<String, Vec<String>>,
    /// Replacement (F6) sentences by style (`{old}`, `{new}`).
    pub replace: BTreeMap<String, Vec<String>>,
    /// Assistant confirmations of a deletion.
    pub confirmations: Vec<String>,
    /// Assistant confirmations of a replacement.
    pub replace_confirmations: Vec<String>,
    /// Neutral control exchanges, `[user, assistant]`.
    pub fillers: Vec<[String; 2]>,
}

/// Question pools.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Questions {
    /// The five fixed attack frames by attack name.
    pub attacks: BTreeMap<String, String>,
    /// Openers of the relearning statement.
    pub relearn_intros: Vec<String>,
    /// Assistant replies in a relearning dialogue.
    pub relearn_acks: Vec<String>,
    /// Prefixes of relearning questions (`{q}`).
    pub relearn_prefixes: Vec<String>,
}

/// The embedded files, by name, for tests and tools that check them.
pub const FILES: [(&str, &str); 7] = [
    (
        "vocab.json",
        include_str!("../../data/generator/vocab.json"),
    ),
    (
        "personas.json",
        include_str!("../../data/generator/personas.json"),
    ),
    (
        "facts.json",
        include_str!("../../data/generator/facts.json"),
    ),
    (
        "scenarios.json",
        include_str!("../../data/generator/scenarios.json"),
    ),
    (
        "smalltalk.json",
        include_str!("../../data/generator/smalltalk.json"),
    ),
    (
        "requests.json",
        include_str!("../../data/generator/requests.json"),
    ),
    (
        "questions.json",
        include_str!("../../data/generator/questions.json"),
    ),
];

fn parse<T: serde::de::DeserializeOwned>(index: usize) -> T {
    let (name, text) = FILES[index];
    // The files are part of the crate and checked by its tests; a failure here is a
    // build defect, not a user error.
    serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("embedded data/generator/{name} is malformed: {e}"))
}

static DATA: Lazy<Data> = Lazy::new(|| Data {
    vocab: parse(0),
    personas: parse(1),
    facts: parse(2),
    scenarios: parse(3),
    talk: parse(4),
    requests: parse(5),
    questions: parse(6),
});

/// The parsed data (parsed on first call).
pub fn data() -> &'static Data {
    &DATA
}
