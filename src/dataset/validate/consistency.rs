//! Persona consistency: a fact value may presuppose something about the persona ("my
//! kids' college fund" a child, "a studio above a bakery" no child and no partner,
//! "early retirement at fifty-five" an age below fifty). The rules are the generator's
//! own (`data/persona-rules.json`, [`crate::dataset::persona`]); this module reads what the profile's
//! free-text `attributes` say about children, a partner and the age, and reports a fact
//! whose value needs what the attributes contradict. Where the attributes say nothing
//! (or say both), nothing is reported: a finding needs evidence of a contradiction.
//!
//! Findings are warnings, not broken invariants: data written before the rules existed
//! (generator v1) holds such values and still measures what it measures.

use super::Problem;
use crate::dataset::Instance;
use crate::dataset::persona::{
    ASSISTANT_OWNERS, Known, Needs, USER_OWNERS, contradicted, normalise, rules,
};
use std::collections::BTreeMap;
use std::path::Path;

/// Every fact of `instance` (atomic or derived) whose value presupposes something its
/// profile's attributes contradict, in document order.
pub fn check(file: &Path, instance: &Instance) -> Vec<Problem> {
    let profile = &instance.profile;
    let evidence = Evidence::read(&profile.attributes);
    let mut found = Vec::new();
    let lists = [
        ("facts", &profile.facts),
        ("derived_facts", &profile.derived_facts),
    ];
    for (list, facts) in lists {
        for (i, fact) in facts.iter().enumerate() {
            let value = normalise(&fact.value);
            for rule in rules() {
                if !value.contains(&normalise(&rule.value)) {
                    continue;
                }
                if rule.requires.met_by(&evidence.known) != Some(false) {
                    continue;
                }
                let (key, text) = evidence.source(rule.requires);
                found.push(Problem {
                    file: file.to_path_buf(),
                    json_path: format!(".profile.{list}[{i}].value"),
                    reason: format!(
                        "fact {:?} has the value {:?}, which presupposes {}, but the \
                         profile's attribute {} ({text:?}) contradicts it (at {})",
                        fact.id,
                        fact.value,
                        describe(rule.requires),
                        key,
                        attribute_path(key)
                    ),
                });
            }
        }
    }
    found
}

/// One dialogue turn that presupposes what the profile contradicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialogueFinding {
    /// JSON path of the text: `.sessions[S].turns[T].user`, `….assistant`, or a
    /// request's `.requests[R].filler.user`.
    pub json_path: String,
    /// The phrase, as normalised: `my kids`.
    pub phrase: String,
    /// What it presupposes.
    pub needs: Needs,
}

/// Every dialogue text of `instance` (both versions: the session turns and the
/// control fillers) holding a phrase (see [`contradicted`]) whose presupposition the
/// profile's attributes contradict, in document order.
pub fn dialogue_findings(instance: &Instance) -> Vec<DialogueFinding> {
    let evidence = Evidence::read(&instance.profile.attributes);
    if evidence.known.children.is_none() && evidence.known.partner.is_none() {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut look = |path: String, text: &str, owners: &[&str]| {
        if let Some((phrase, needs)) = contradicted(text, owners, &evidence.known) {
            found.push(DialogueFinding {
                json_path: path,
                phrase,
                needs,
            });
        }
    };
    for (s, session) in instance.sessions.iter().enumerate() {
        for (t, turn) in session.turns.iter().enumerate() {
            look(
                format!(".sessions[{s}].turns[{t}].user"),
                &turn.user,
                USER_OWNERS,
            );
            look(
                format!(".sessions[{s}].turns[{t}].assistant"),
                &turn.assistant,
                ASSISTANT_OWNERS,
            );
        }
    }
    for (r, request) in instance.requests.iter().enumerate() {
        look(
            format!(".requests[{r}].filler.user"),
            &request.filler.user,
            USER_OWNERS,
        );
        look(
            format!(".requests[{r}].filler.assistant"),
            &request.filler.assistant,
            ASSISTANT_OWNERS,
        );
    }
    found
}

/// The warnings of [`dialogue_findings`]: one per phrase and instance, at its first
/// place, counting the others (a generator's slip repeats across a dialogue).
pub fn check_dialogue(file: &Path, instance: &Instance) -> Vec<Problem> {
    let findings = dialogue_findings(instance);
    let evidence = Evidence::read(&instance.profile.attributes);
    let mut by_phrase: Vec<(&DialogueFinding, usize)> = Vec::new();
    for f in &findings {
        match by_phrase.iter_mut().find(|(g, _)| g.phrase == f.phrase) {
            Some((_, n)) => *n += 1,
            None => by_phrase.push((f, 1)),
        }
    }
    by_phrase
        .into_iter()
        .map(|(f, n)| {
            let (key, text) = evidence.source(f.needs);
            let more = match n {
                1 => String::new(),
                n => format!(" (and {} more turns)", n - 1),
            };
            Problem {
                file: file.to_path_buf(),
                json_path: f.json_path.clone(),
                reason: format!(
                    "the dialogue says {:?}, which presupposes {}, but the profile's \
                     attribute {} ({text:?}) contradicts it (at {}){more}",
                    f.phrase,
                    describe(f.needs),
                    key,
                    attribute_path(key)
                ),
            }
        })
        .collect()
}

/// What a need asks of the persona, in words.
fn describe(needs: Needs) -> &'static str {
    match needs {
        Needs::Children => "at least one child",
        Needs::NoChildren => "no children",
        Needs::Partner => "a partner",
        Needs::NoPartner => "no partner",
        Needs::YoungerThan50 => "an age below 50",
        Needs::YoungerThan60 => "an age below 60",
    }
}

/// `.profile.attributes.KEY`, quoting a key that is not a plain identifier.
fn attribute_path(key: &str) -> String {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!(".profile.attributes.{key}")
    } else {
        format!(".profile.attributes[{key:?}]")
    }
}

/// What the attributes say, and which attribute said each part.
#[derive(Debug, Default)]
struct Evidence<'a> {
    known: Known,
    children_from: Option<(&'a str, &'a str)>,
    partner_from: Option<(&'a str, &'a str)>,
    age_from: Option<(&'a str, &'a str)>,
}

impl<'a> Evidence<'a> {
    fn read(attributes: &'a BTreeMap<String, String>) -> Self {
        let mut evidence = Evidence::default();
        let mut children = Votes::default();
        let mut partner = Votes::default();
        for (key, text) in attributes {
            let name = normalise(key);
            let source = (key.as_str(), text.as_str());
            if name == "age" {
                if let Some(age) = read_age(text) {
                    evidence.known.age = Some(age);
                    evidence.age_from = Some(source);
                }
                continue;
            }
            if !FAMILY_KEYS.iter().any(|k| name.contains(k)) {
                continue;
            }
            let said = read_family(&name, text);
            children.add(said.children, source);
            partner.add(said.partner, source);
        }
        (evidence.known.children, evidence.children_from) = children.verdict();
        (evidence.known.partner, evidence.partner_from) = partner.verdict();
        evidence
    }

    /// The attribute (key and text) that decides what `needs` asks about.
    fn source(&self, needs: Needs) -> (&'a str, &'a str) {
        let from = match needs {
            Needs::Children | Needs::NoChildren => self.children_from,
            Needs::Partner | Needs::NoPartner => self.partner_from,
            Needs::YoungerThan50 | Needs::YoungerThan60 => self.age_from,
        };
        from.unwrap_or(("?", ""))
    }
}

/// Yes and no answers to one question from several attributes; only an answer no
/// attribute disputes counts.
#[derive(Debug, Default)]
struct Votes<'a> {
    yes: Option<(&'a str, &'a str)>,
    no: Option<(&'a str, &'a str)>,
}

impl<'a> Votes<'a> {
    fn add(&mut self, answer: Option<bool>, source: (&'a str, &'a str)) {
        match answer {
            Some(true) => self.yes = self.yes.or(Some(source)),
            Some(false) => self.no = self.no.or(Some(source)),
            None => {}
        }
    }

    fn verdict(&self) -> (Option<bool>, Option<(&'a str, &'a str)>) {
        match (self.yes, self.no) {
            (Some(source), None) => (Some(true), Some(source)),
            (None, Some(source)) => (Some(false), Some(source)),
            _ => (None, None),
        }
    }
}

/// Attribute names (lower case, matched as a part of the name) that describe the
/// persona's household.
const FAMILY_KEYS: &[&str] = &[
    "family",
    "household",
    "marital",
    "relationship",
    "children",
    "kids",
    "partner",
    "spouse",
];

/// Words naming the persona's own children.
const CHILD_WORDS: &[&str] = &[
    "child",
    "children",
    "kid",
    "kids",
    "son",
    "sons",
    "daughter",
    "daughters",
    "baby",
    "babies",
    "toddler",
    "toddlers",
    "stepchild",
    "stepchildren",
    "stepson",
    "stepdaughter",
];

/// Words that on their own say there are no children.
const CHILDLESS_WORDS: &[&str] = &["childless", "childfree", "child-free"];

/// Words saying the persona has a partner.
const PARTNER_WORDS: &[&str] = &[
    "married",
    "remarried",
    "partner",
    "partnered",
    "husband",
    "wife",
    "spouse",
    "boyfriend",
    "girlfriend",
    "fiance",
    "fiancé",
    "fiancee",
    "fiancée",
    "engaged",
    "relationship",
    "cohabiting",
    "wed",
];

/// Words saying the persona has no partner.
const SINGLE_WORDS: &[&str] = &[
    "single",
    "unmarried",
    "unpartnered",
    "divorced",
    "divorcee",
    "widowed",
    "widow",
    "widower",
    "separated",
];

/// Words that negate the word right after them (or the one after an article or a
/// number word between them).
const NEGATIONS: &[&str] = &["no", "not", "never", "without", "zero", "0", "none"];

/// What one household attribute says: children yes/no, partner yes/no.
#[derive(Debug, Default, PartialEq, Eq)]
struct Said {
    children: Option<bool>,
    partner: Option<bool>,
}

/// Reads one household attribute named `name` (normalised) with the free text `text`.
fn read_family(name: &str, text: &str) -> Said {
    let lower = normalise(text);
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    // A count or a plain yes/no under a key that names children or a partner:
    // `"children": "2"`, `"partner": "none"`.
    let bare = match words.as_slice() {
        [w] if w.chars().all(|c| c.is_ascii_digit()) => {
            Some(*w != "0" && w.parse::<u32>().is_ok_and(|n| n > 0))
        }
        [w] if ["none", "no", "n/a"].contains(w) => Some(false),
        [w] if ["yes"].contains(w) => Some(true),
        _ => None,
    };
    let mut children = Votes::default();
    let mut partner = Votes::default();
    let here = (name, text);
    if let Some(answer) = bare {
        if name.contains("children") || name.contains("kids") {
            children.add(Some(answer), here);
        } else if name.contains("partner") || name.contains("spouse") {
            partner.add(Some(answer), here);
        }
    }
    for (i, word) in words.iter().enumerate() {
        let negated = negated(&words, i);
        if CHILD_WORDS.contains(word) {
            children.add(Some(!negated), here);
        } else if CHILDLESS_WORDS.contains(word) {
            children.add(Some(negated), here);
        } else if *word == "parent" || (is_parent_word(word) && words.get(i + 1) == Some(&"of")) {
            // "single parent", "mother of two"; "parents" are the persona's own.
            children.add(Some(!negated), here);
        }
        if PARTNER_WORDS.contains(word) {
            partner.add(Some(!negated), here);
        } else if SINGLE_WORDS.contains(word) {
            partner.add(Some(negated), here);
        }
    }
    Said {
        children: children.verdict().0,
        partner: partner.verdict().0,
    }
}

fn is_parent_word(word: &str) -> bool {
    ["mother", "father", "mom", "dad", "mum"].contains(&word)
}

/// Whether the word at `i` is negated: a negation right before it, or before one
/// article or quantity word that stands between ("no young children", "not a parent").
fn negated(words: &[&str], i: usize) -> bool {
    let before = |k: usize| i.checked_sub(k).map(|j| words[j]);
    if before(1).is_some_and(|w| NEGATIONS.contains(&w)) {
        return true;
    }
    let filler = ["a", "an", "any", "young", "small", "little", "own"];
    before(1).is_some_and(|w| filler.contains(&w))
        && before(2).is_some_and(|w| NEGATIONS.contains(&w))
}

/// The age in an `age` attribute: its one whole number of years ("38", "38 years
/// old"); `None` when there is no number, more than one, or an implausible one.
fn read_age(text: &str) -> Option<u32> {
    let numbers: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    match numbers.as_slice() {
        [n] => n.parse::<u32>().ok().filter(|&age| age <= 130),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(name: &str, text: &str) -> (Option<bool>, Option<bool>) {
        let s = read_family(name, text);
        (s.children, s.partner)
    }

    #[test]
    fn household_text_says_children_and_partner() {
        assert_eq!(
            said("family", "Married with two kids"),
            (Some(true), Some(true))
        );
        assert_eq!(
            said("family", "single, no children"),
            (Some(false), Some(false))
        );
        assert_eq!(
            said("family", "lives with her partner; childless"),
            (Some(false), Some(true))
        );
        assert_eq!(
            said("family", "a single dad of one son"),
            (Some(true), Some(false))
        );
        assert_eq!(
            said("family", "divorced, not a parent"),
            (Some(false), Some(false))
        );
        assert_eq!(said("household", "mother of three"), (Some(true), None));
        assert_eq!(said("marital status", "never married"), (None, Some(false)));
        assert_eq!(said("children", "2"), (Some(true), None));
        assert_eq!(said("children", "none"), (Some(false), None));
        assert_eq!(said("partner", "none"), (None, Some(false)));
    }

    #[test]
    fn silent_or_mixed_text_says_nothing() {
        assert_eq!(said("family", "lives with his parents"), (None, None));
        assert_eq!(said("family", "close to her sister"), (None, None));
        // Both ways at once is no evidence either way.
        assert_eq!(
            said("family", "no kids of her own, a stepson"),
            (None, None)
        );
    }

    #[test]
    fn an_age_is_one_plausible_number() {
        assert_eq!(read_age("38"), Some(38));
        assert_eq!(read_age("54 years old"), Some(54));
        assert_eq!(read_age("in her forties"), None);
        assert_eq!(read_age("40s"), None);
        assert_eq!(read_age("between 30 and 40"), None);
        assert_eq!(read_age("999"), None);
    }

    #[test]
    fn only_household_attributes_are_read() {
        let mut attributes = BTreeMap::new();
        attributes.insert(
            "occupation".to_string(),
            "business partner at a firm".to_string(),
        );
        attributes.insert("Age".to_string(), "61".to_string());
        let evidence = Evidence::read(&attributes);
        assert_eq!(
            evidence.known,
            Known {
                children: None,
                partner: None,
                age: Some(61)
            }
        );
        assert_eq!(evidence.source(Needs::YoungerThan60), ("Age", "61"));
    }
}
