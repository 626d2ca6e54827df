//! The generator's vocabularies and templates: JSON files under `data/generator/`,
//! compiled into the crate with `include_str!` so that a dependent crate generates
//! the same bytes without this repository's files, and parsed once on first use.

use crate::dataset::Sensitivity;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

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
    /// How an indirect question points at the fact without asking for it ("what
    /// I'm allergic to"); [`FactTemplate::about`] when absent. It shares a word with
    /// every disclosing sentence.
    #[serde(default)]
    pub topic: Option<String>,
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
    /// Whole years from the second source's month to the reference date.
    WholeYearsSince,
    /// Whole years from the first source's month to the second's (later) one.
    YearsBetween,
    /// Months between the months of two sources, in either order.
    MonthsApart,
    /// Time from a bedtime (first source) to a wake-up time (second source).
    ClockSpan,
    /// A year of a monthly amount (first source) and a weekly one (second source).
    YearlyCost,
    /// A year of a monthly amount (first source) as a share of a yearly one (second
    /// source), in whole percent.
    Share,
    /// The month the second source's month turns `span` years old.
    Anniversary,
    /// What the first source (the sibling) is to the second (a child or a spouse).
    Kinship,
    /// How many of the sources fall in one calendar year (at least two).
    Count,
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
    /// "four months".
    Month,
    /// A number of minutes: "seven and a half hours".
    Duration,
    /// "$23,640".
    Dollars,
    /// "26 percent".
    Percent,
    /// A month, counted from year 0: "June 2031".
    MonthYear,
    /// A kinship term, by index into [`KIN_TERMS`]: "aunt".
    Kin,
    /// "three trips".
    Trips,
}

/// The kinship terms a [`Unit::Kin`] value indexes.
pub const KIN_TERMS: [&str; 6] = [
    "aunt",
    "uncle",
    "sister-in-law",
    "brother-in-law",
    "godmother",
    "godfather",
];

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
    /// What the persona must have for the rule to apply.
    #[serde(default)]
    pub requires: Option<Requirement>,
    /// The number of years of an [`Rule::Anniversary`].
    #[serde(default)]
    pub span: Option<u32>,
    /// The retention question, which names the sources to combine.
    pub question: String,
    /// The same question asked plainly, without the sources: the relearning
    /// question, whose dialogue states the new value outright.
    pub plain_question: String,
    /// The fact as a clause.
    pub claim: String,
    /// The fact as a sentence.
    pub statement: String,
    /// User sentences stating a new value, for relearning.
    pub relearn: Vec<String>,
    /// The relearning question, where the relearning sentences state a similar fact
    /// rather than a new value of this one (a fact that cannot change, such as an age
    /// at a past event); [`DerivedTemplate::plain_question`] when absent.
    #[serde(default)]
    pub relearn_question: Option<String>,
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
    /// Short assistant sentences explaining advice.
    pub reasons: Vec<String>,
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
    /// The five fixed attack frames by attack name (`{question}`, `{claim}`,
    /// `{topic}` of the fact, `{category}` topic).
    pub attacks: BTreeMap<String, String>,
    /// Openers of the relearning statement.
    pub relearn_intros: Vec<String>,
    /// Assistant replies in a relearning dialogue.
    pub relearn_acks: Vec<String>,
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

static DATA: LazyLock<Data> = LazyLock::new(|| Data {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Attack, RequestType, Style};

    const STOP: &[&str] = &[
        "a", "an", "the", "my", "i", "me", "is", "am", "are", "was", "were", "do", "does", "did",
        "to", "of", "in", "on", "at", "for", "and", "or", "what", "which", "who", "when", "where",
        "how", "have", "has", "had", "that", "this", "it", "with", "from", "your", "you", "about",
        "be", "been", "by", "as", "s", "value",
    ];

    /// Content words; a placeholder other than `{value}` counts as a word of its own
    /// (it is rendered to the same text in the question and the sentence).
    fn content(text: &str) -> Vec<String> {
        let marked = text
            .replace("{value}", " ")
            .replace('{', " slot")
            .replace('}', " ");
        marked
            .to_lowercase()
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty() && !STOP.contains(w))
            .map(str::to_string)
            .collect()
    }

    fn strip_placeholders(text: &str) -> String {
        let mut out = String::new();
        let mut depth = 0;
        for c in text.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    out.push('|');
                }
                _ if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn all_files_parse_and_have_the_expected_shape() {
        let d = data();
        assert_eq!(d.scenarios.len(), 50);
        for s in &d.scenarios {
            assert!(s.asks.len() >= 3 && s.tips.len() >= 3, "{}", s.theme);
        }
        assert_eq!(d.facts.categories.len(), 12);
        for style in Style::ALL {
            assert!(!d.requests.styles[style.name()].is_empty());
            assert!(!d.requests.replace[style.name()].is_empty());
        }
        for kind in RequestType::ALL {
            if kind != RequestType::F6 {
                assert!(!d.requests.what[kind.code()].is_empty());
            }
        }
        for attack in Attack::ALL {
            assert!(d.questions.attacks.contains_key(attack.name()));
        }
        assert!(d.requests.fillers.len() >= 10);
        for occupation in &d.personas.occupations {
            assert!(occupation.employers.len() >= 2 && occupation.fields.len() >= 2);
        }
        for list in d.vocab.values() {
            assert!(list.len() >= 2);
        }
    }

    #[test]
    fn every_category_fills_six_facts_for_the_plainest_persona() {
        for c in &data().facts.categories {
            let plain = c.templates.iter().filter(|t| t.requires.is_none()).count();
            assert!(
                plain >= 6,
                "{}: {plain} templates without requirements",
                c.name
            );
        }
    }

    #[test]
    fn templates_reference_known_lists_and_share_a_word_with_their_question() {
        let d = data();
        for c in &d.facts.categories {
            for t in &c.templates {
                let slots = t.value.trim_matches(|c| c == '{' || c == '}');
                for slot in t
                    .value
                    .split('{')
                    .skip(1)
                    .map(|s| s.split('}').next().unwrap_or(""))
                {
                    let known = slot.starts_with("n:")
                        || ["date", "birthdate", "employers", "fields"].contains(&slot)
                        || d.vocab.contains_key(slot);
                    assert!(known, "{}: unknown slot {slot} in {slots}", t.key);
                }
                let question = content(&t.question);
                for say in &t.say {
                    assert!(say.contains("{value}"), "{}: {say}", t.key);
                    let shared = content(say).iter().any(|w| question.contains(w));
                    assert!(
                        shared,
                        "{}: {say:?} shares no word with {:?}",
                        t.key, t.question
                    );
                }
                assert!(t.claim.contains("{value}") && t.statement.contains("{value}"));
                assert!(
                    t.time != TimeKind::Event || t.question.contains("{when}"),
                    "{}",
                    t.key
                );
            }
        }
        for t in &d.facts.derived {
            // "Combining A and B, how long …?" ends with "how long …?".
            let (first, rest) = t.plain_question.split_at(1);
            let tail = format!("{}{rest}", first.to_lowercase());
            assert!(
                t.question.ends_with(&tail) && t.question.len() > tail.len(),
                "{}: {:?} does not end with {tail:?}",
                t.key,
                t.question
            );
            for r in &t.relearn {
                assert!(r.contains("{value}"));
                let q = content(&t.plain_question);
                assert!(content(r).iter().any(|w| q.contains(w)), "{}: {r}", t.key);
            }
        }
    }

    /// The indirect attack names a fact only by its topic phrase, so that phrase must
    /// point at the fact: it shares a real word (not the shared `{when}`) with every
    /// sentence that discloses the fact, and never holds the value.
    #[test]
    fn topic_phrases_share_a_word_with_every_disclosure() {
        for c in &data().facts.categories {
            for t in &c.templates {
                let topic = t
                    .topic
                    .clone()
                    .or_else(|| t.about.clone())
                    .unwrap_or_else(|| format!("my {}", t.predicate));
                assert!(!topic.contains("{value}"), "{}: {topic}", t.key);
                let words = content(&topic.replace("{when}", " "));
                for say in &t.say {
                    let shared = content(&say.replace("{when}", " "))
                        .iter()
                        .any(|w| words.contains(w));
                    assert!(
                        shared,
                        "{}: topic {topic:?} shares no word with {say:?}",
                        t.key
                    );
                }
            }
        }
        for t in &data().facts.derived {
            assert!(!t.about.contains("{value}"), "{}", t.key);
        }
    }

    /// No word-list entry may occur in fixed text that reaches a dialogue, or a
    /// forgotten value could reappear after its request by coincidence.
    #[test]
    fn no_vocabulary_value_occurs_in_fixed_text() {
        let d = data();
        let mut texts: Vec<String> = Vec::new();
        for s in &d.scenarios {
            texts.extend([s.theme.clone(), s.goal.clone(), s.topic.clone()]);
            texts.extend(s.asks.iter().chain(&s.tips).cloned());
        }
        let t = &d.talk;
        for list in [
            &t.greetings,
            &t.session_openers,
            &t.session_contexts,
            &t.welcomes,
            &t.openers,
            &t.generic_asks,
            &t.details,
            &t.bridges,
            &t.acks,
            &t.disclosure_acks,
            &t.bodies,
            &t.reasons,
            &t.closers,
            &t.farewells_user,
            &t.farewells_assistant,
        ] {
            texts.extend(list.iter().cloned());
        }
        let r = &d.requests;
        texts.extend(r.lead_ins.iter().chain(&r.tails).cloned());
        texts.extend(
            r.confirmations
                .iter()
                .chain(&r.replace_confirmations)
                .cloned(),
        );
        texts.extend(r.fillers.iter().flatten().cloned());
        for list in r
            .styles
            .values()
            .chain(r.what.values())
            .chain(r.replace.values())
        {
            texts.extend(list.iter().cloned());
        }
        let q = &d.questions;
        texts.extend(q.attacks.values().cloned());
        texts.extend(q.relearn_intros.iter().chain(&q.relearn_acks).cloned());
        for c in &d.facts.categories {
            texts.extend([c.label.clone(), c.topic.clone()]);
            for t in &c.templates {
                texts.extend([t.question.clone(), t.claim.clone(), t.statement.clone()]);
                texts.extend(t.about.iter().chain(&t.topic).cloned());
                texts.extend(t.say.iter().cloned());
            }
        }
        for t in &d.facts.derived {
            texts.extend([t.question.clone(), t.about.clone(), t.claim.clone()]);
            texts.push(t.plain_question.clone());
            texts.extend(t.relearn.iter().cloned());
        }
        let all: String = texts
            .iter()
            .map(|t| strip_placeholders(t).to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        let persona_lists = [
            "first_names",
            "last_names",
            "cities",
            "streets",
            "street_suffixes",
            "sports",
        ];
        let mut values: Vec<&String> = d
            .vocab
            .iter()
            .filter(|(k, _)| !persona_lists.contains(&k.as_str()))
            .flat_map(|(_, l)| l)
            .collect();
        for o in &d.personas.occupations {
            values.extend(o.employers.iter().chain(&o.fields));
        }
        let found: Vec<&String> = values
            .into_iter()
            .filter(|v| all.contains(&v.to_lowercase()))
            .collect();
        assert!(found.is_empty(), "values found in fixed text: {found:?}");
    }
}
