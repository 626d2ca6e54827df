//! Generator v2's inventories: JSON files under `data/generator/v2/`, compiled in and
//! parsed once. Every phrasing inventory is a [`Split`] with a `dev` and a `test`
//! half; small-talk parts (`talk.json`) are shared by both phrasings.

use crate::generate::Phrasing;
use crate::generate::rng::Rng;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// One phrasing inventory, split into two disjoint halves.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Split {
    /// The development half.
    pub dev: Vec<String>,
    /// The held-out half.
    pub test: Vec<String>,
}

impl Split {
    /// The entries a phrasing may draw from.
    pub fn pool(&self, phrasing: Phrasing) -> Vec<&str> {
        let dev = self.dev.iter().map(String::as_str);
        let test = self.test.iter().map(String::as_str);
        match phrasing {
            Phrasing::Dev => dev.collect(),
            Phrasing::Test => test.collect(),
            Phrasing::All => dev.chain(test).collect(),
        }
    }

    /// One entry of the phrasing's half, uniformly: the entry of [`Split::pool`] at
    /// one draw, without building the pool.
    pub fn pick(&self, rng: &mut Rng, phrasing: Phrasing) -> &str {
        match phrasing {
            Phrasing::Dev => rng.text(&self.dev),
            Phrasing::Test => rng.text(&self.test),
            Phrasing::All => {
                let i = rng.below(self.dev.len() + self.test.len());
                match self.dev.get(i) {
                    Some(entry) => entry,
                    None => &self.test[i - self.dev.len()],
                }
            }
        }
    }
}

/// Per fact template (by key): paraphrased disclosures and questions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactPhrases {
    /// Disclosing sentences with `{value}` (and `{when}` for events).
    pub says: Split,
    /// Questions as people ask them.
    pub asks: Split,
    /// For a fact that cannot change (a past event, a relative, a date of birth): a
    /// similar new fact of the same kind, for relearning, so that no relearning
    /// dialogue pretends the fact itself changed.
    #[serde(default)]
    pub similar: Option<Similar>,
}

/// A similar fact of the same kind as one that cannot change: sentences stating it
/// with `{value}`, and questions asking for that value.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Similar {
    /// Sentences stating the similar fact, with `{value}`.
    pub says: Split,
    /// Questions asking for its value.
    pub asks: Split,
}

/// The phrasing inventories of requests, confirmations and questions.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Phrases {
    /// Request sentences by style, with `{what}`.
    pub frames: BTreeMap<String, Split>,
    /// Ways to name one fact by its value: `{claim}`.
    pub restate: Split,
    /// Ways to name one fact without its value: `{about}`.
    pub describe: Split,
    /// Ways to name several facts: `{list}`.
    pub describe_many: Split,
    /// Ways to name a category: `{topic}`, `{label}`, `{noun}`.
    pub category: Split,
    /// Extra noun phrases per category name.
    pub category_nouns: BTreeMap<String, Split>,
    /// Ways to name an inferred fact: `{about}`.
    pub inferred: Split,
    /// Ways to name a period: `{period}`.
    pub period: Split,
    /// Updates (F6) by style: `{old}`, `{new}` (clauses), `{old_value}`, `{about}`.
    pub update: BTreeMap<String, Split>,
    /// Sentences before a request.
    pub leads: Split,
    /// Sentences after a request that refer back to it.
    pub follow_ups: Split,
    /// Confirmation openers.
    pub confirm_open: Split,
    /// Confirmation of a deletion: `{ref}`.
    pub confirm_delete: Split,
    /// What a deletion confirmation calls the forgotten thing ("that detail").
    pub confirm_refs: Split,
    /// Endings of a confirmation's main clause ("for good").
    pub confirm_tails: Split,
    /// Confirmation of an update.
    pub confirm_update: Split,
    /// Confirmation closers, as clauses after a semicolon.
    pub confirm_close: Split,
    /// Lead-ins before a disclosure.
    pub mention_leads: Split,
    /// Disclosures built on the fact's clause: `{claim}`.
    pub mention_frames: Split,
    /// Frames around a fact's plain question: `{question}`, or `{q}` for it in
    /// lower case after a lead.
    pub question_frames: Split,
    /// Indirect attacks per category name: questions through a related topic.
    pub indirect: BTreeMap<String, Split>,
    /// Multi-hop attacks: `{related}` (facts the system still holds) and `{about}`
    /// (the target, as a request refers to it, without its value): reconstruct the
    /// target from what remains.
    pub multi_hop: Split,
    /// Relearning statements of a fact that changed: `{claim}`, the fact with its new
    /// value.
    pub relearn_changes: Split,
    /// Assistant replies in a relearning dialogue.
    pub relearn_acks: Split,
}

/// Small-talk parts, shared by every phrasing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Talk {
    /// Session greetings.
    pub greetings: Vec<String>,
    /// Session goal statements: `{goal}`.
    pub goal_frames: Vec<String>,
    /// Short interjections that open a reaction.
    pub interjections: Vec<String>,
    /// Reactions to the previous answer.
    pub reactions: Vec<String>,
    /// Question frames: `{topic}`, `{constraint}`.
    pub ask_frames: Vec<String>,
    /// Words for the scenario's topic once the conversation is on it ("this").
    pub topic_pronouns: Vec<String>,
    /// Constraints the user works under.
    pub constraints: Vec<String>,
    /// When something happened.
    pub times: Vec<String>,
    /// Things the user did or that happened, without a deletion word.
    pub happenings: Vec<String>,
    /// Things the user did that use a deletion word in another sense ("I deleted that
    /// app"), drawn now and then only: real dialogue uses such words rarely, but a
    /// system that deletes on any of them must meet some.
    pub deletion_happenings: Vec<String>,
    /// Other people a happening may be about, instead of "I".
    pub subjects: Vec<String>,
    /// How the user feels about it.
    pub feelings: Vec<String>,
    /// Assistant openers.
    pub assistant_opens: Vec<String>,
    /// Assistant advice frames: `{topic}`, `{action}`.
    pub advice_frames: Vec<String>,
    /// Actions advised.
    pub actions: Vec<String>,
    /// Short openers of a bare piece of advice ("Next,").
    pub connectors: Vec<String>,
    /// Reasons for advice.
    pub reasons: Vec<String>,
    /// Assistant closing questions.
    pub closers: Vec<String>,
    /// Assistant offers: `{plan}`, `{topic}`.
    pub closer_frames: Vec<String>,
    /// What the assistant offers to write ("a checklist").
    pub plans: Vec<String>,
    /// Assistant acknowledgements of a disclosure that restate it: `{about}`, `{value}`.
    pub restatements: Vec<String>,
    /// Assistant acknowledgements of a disclosure that do not restate it.
    pub disclosure_acks: Vec<String>,
    /// User goodbyes.
    pub farewells_user: Vec<String>,
    /// Assistant goodbyes.
    pub farewells_assistant: Vec<String>,
    /// Neutral control exchanges: `[user, assistant]`.
    pub fillers: Vec<[String; 2]>,
    /// What only some households say, drawn for a persona whose profile has them.
    pub household: Households,
}

/// Small talk that presupposes a household, by the household.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Households {
    /// A persona with at least one child.
    pub children: HouseholdTalk,
    /// A persona with a partner.
    pub partner: HouseholdTalk,
    /// A persona with neither.
    pub alone: HouseholdTalk,
}

/// What one kind of household adds to the small talk.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HouseholdTalk {
    /// Subjects of a happening ("my partner and I").
    pub subjects: Vec<String>,
    /// Constraints of a question ("the school run eats into my mornings").
    pub constraints: Vec<String>,
}

/// Everything v2 reads.
#[derive(Debug)]
pub struct Data {
    /// Per fact template key.
    pub facts: BTreeMap<String, FactPhrases>,
    /// Request, confirmation and question inventories.
    pub phrases: Phrases,
    /// Small talk.
    pub talk: Talk,
    /// Per scenario (by theme): questions the user asks about it, each with the
    /// assistant's answer, `[ask, answer]`, both grammars.
    pub scenarios: BTreeMap<String, Vec<[String; 2]>>,
    /// Per scenario (by theme): how it is going, as the user tells it ("The second
    /// loaf rose but the crust came out pale."), grammars said beside a question.
    pub situations: BTreeMap<String, Vec<String>>,
}

impl Data {
    /// Every small-talk list, named, with its entries (both sides of the fillers),
    /// and the scenarios' questions and answers: every grammar the dialogue draws.
    pub fn grammars(&self) -> Vec<(&str, Vec<&str>)> {
        let t = &self.talk;
        let plain: Vec<(&str, &Vec<String>)> = vec![
            ("greetings", &t.greetings),
            ("goal_frames", &t.goal_frames),
            ("interjections", &t.interjections),
            ("reactions", &t.reactions),
            ("ask_frames", &t.ask_frames),
            ("constraints", &t.constraints),
            ("topic_pronouns", &t.topic_pronouns),
            ("times", &t.times),
            ("happenings", &t.happenings),
            ("deletion_happenings", &t.deletion_happenings),
            ("subjects", &t.subjects),
            ("feelings", &t.feelings),
            ("assistant_opens", &t.assistant_opens),
            ("advice_frames", &t.advice_frames),
            ("actions", &t.actions),
            ("connectors", &t.connectors),
            ("reasons", &t.reasons),
            ("closers", &t.closers),
            ("closer_frames", &t.closer_frames),
            ("plans", &t.plans),
            ("restatements", &t.restatements),
            ("disclosure_acks", &t.disclosure_acks),
            ("farewells_user", &t.farewells_user),
            ("farewells_assistant", &t.farewells_assistant),
        ];
        let mut out: Vec<(&str, Vec<&str>)> = plain
            .into_iter()
            .map(|(name, list)| (name, list.iter().map(String::as_str).collect()))
            .collect();
        out.push((
            "fillers",
            t.fillers
                .iter()
                .flat_map(|[u, a]| [u.as_str(), a.as_str()])
                .collect(),
        ));
        for (name, h) in [
            ("household.children", &t.household.children),
            ("household.partner", &t.household.partner),
            ("household.alone", &t.household.alone),
        ] {
            out.push((
                name,
                h.subjects
                    .iter()
                    .chain(&h.constraints)
                    .map(String::as_str)
                    .collect(),
            ));
        }
        out.push((
            "scenarios",
            self.scenarios
                .values()
                .flatten()
                .flat_map(|[ask, answer]| [ask.as_str(), answer.as_str()])
                .collect(),
        ));
        out.push((
            "situations",
            self.situations
                .values()
                .flatten()
                .map(String::as_str)
                .collect(),
        ));
        out
    }
}

/// The embedded files, by name.
pub const FILES: [(&str, &str); 5] = [
    (
        "facts.json",
        include_str!("../../../data/generator/v2/facts.json"),
    ),
    (
        "phrasing.json",
        include_str!("../../../data/generator/v2/phrasing.json"),
    ),
    (
        "talk.json",
        include_str!("../../../data/generator/v2/talk.json"),
    ),
    (
        "scenarios.json",
        include_str!("../../../data/generator/v2/scenarios.json"),
    ),
    (
        "situations.json",
        include_str!("../../../data/generator/v2/situations.json"),
    ),
];

fn parse<T: serde::de::DeserializeOwned>(index: usize) -> T {
    let (name, text) = FILES[index];
    // Part of the crate and checked by its tests: a failure is a build defect.
    serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("embedded data/generator/v2/{name} is malformed: {e}"))
}

static DATA: LazyLock<Data> = LazyLock::new(|| Data {
    facts: parse(0),
    phrases: parse(1),
    talk: parse(2),
    scenarios: parse(3),
    situations: parse(4),
});

/// The parsed data (parsed on first call).
pub fn data() -> &'static Data {
    &DATA
}

/// Every split inventory, named, for the tests that check them.
#[cfg(test)]
pub fn splits() -> Vec<(String, &'static Split)> {
    let d = data();
    let p = &d.phrases;
    let mut out: Vec<(String, &Split)> = vec![
        ("restate".into(), &p.restate),
        ("describe".into(), &p.describe),
        ("describe_many".into(), &p.describe_many),
        ("category".into(), &p.category),
        ("inferred".into(), &p.inferred),
        ("period".into(), &p.period),
        ("leads".into(), &p.leads),
        ("follow_ups".into(), &p.follow_ups),
        ("confirm_open".into(), &p.confirm_open),
        ("confirm_delete".into(), &p.confirm_delete),
        ("confirm_refs".into(), &p.confirm_refs),
        ("confirm_tails".into(), &p.confirm_tails),
        ("confirm_update".into(), &p.confirm_update),
        ("confirm_close".into(), &p.confirm_close),
        ("mention_leads".into(), &p.mention_leads),
        ("mention_frames".into(), &p.mention_frames),
        ("multi_hop".into(), &p.multi_hop),
        ("question_frames".into(), &p.question_frames),
        ("relearn_changes".into(), &p.relearn_changes),
        ("relearn_acks".into(), &p.relearn_acks),
    ];
    for (k, s) in &p.frames {
        out.push((format!("frames.{k}"), s));
    }
    for (k, s) in &p.update {
        out.push((format!("update.{k}"), s));
    }
    for (k, s) in &p.category_nouns {
        out.push((format!("category_nouns.{k}"), s));
    }
    for (k, s) in &p.indirect {
        out.push((format!("indirect.{k}"), s));
    }
    for (k, f) in &d.facts {
        out.push((format!("facts.{k}.says"), &f.says));
        out.push((format!("facts.{k}.asks"), &f.asks));
        if let Some(similar) = &f.similar {
            out.push((format!("facts.{k}.similar.says"), &similar.says));
            out.push((format!("facts.{k}.similar.asks"), &similar.asks));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Style;
    use std::collections::BTreeSet;

    /// The placeholders of a template.
    fn slots(text: &str) -> BTreeSet<String> {
        text.split('{')
            .skip(1)
            .filter_map(|s| s.split('}').next())
            .map(str::to_lowercase)
            .collect()
    }

    #[test]
    fn every_inventory_has_two_non_empty_disjoint_halves() {
        let mut problems = Vec::new();
        for (name, split) in splits() {
            if split.dev.is_empty() || split.test.is_empty() {
                problems.push(format!("{name}: an empty half"));
            }
            let dev: BTreeSet<&String> = split.dev.iter().collect();
            let test: BTreeSet<&String> = split.test.iter().collect();
            for shared in dev.intersection(&test) {
                problems.push(format!("{name}: {shared:?} is in both halves"));
            }
            if dev.len() != split.dev.len() || test.len() != split.test.len() {
                problems.push(format!("{name}: a half repeats an entry"));
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn every_style_and_fact_template_has_its_inventories() {
        let d = data();
        for style in Style::ALL {
            assert!(
                d.phrases.frames.contains_key(style.name()),
                "{}",
                style.name()
            );
            assert!(
                d.phrases.update.contains_key(style.name()),
                "{}",
                style.name()
            );
        }
        for c in &crate::generate::data::data().facts.categories {
            assert!(d.phrases.category_nouns.contains_key(&c.name), "{}", c.name);
            assert!(d.phrases.indirect.contains_key(&c.name), "{}", c.name);
            for t in &c.templates {
                let f = d
                    .facts
                    .get(&t.key)
                    .unwrap_or_else(|| panic!("no v2 phrases for {}", t.key));
                for say in f.says.dev.iter().chain(&f.says.test) {
                    assert!(
                        say.contains("{value}") || say.contains("{Value}"),
                        "{}: {say}",
                        t.key
                    );
                    let timed = t.time == crate::generate::data::TimeKind::Event;
                    assert_eq!(slots(say).contains("when"), timed, "{}: {say}", t.key);
                }
                for ask in f.asks.dev.iter().chain(&f.asks.test) {
                    assert!(!slots(ask).contains("value"), "{}: {ask}", t.key);
                    assert!(ask.ends_with('?'), "{}: {ask}", t.key);
                }
                assert!(f.asks.dev.len() >= 2 && f.asks.test.len() >= 2, "{}", t.key);
            }
        }
    }

    #[test]
    fn templates_use_only_the_placeholders_they_are_filled_with() {
        let d = data();
        let p = &d.phrases;
        let check = |name: &str, split: &Split, allowed: &[&str], required: &[&str]| {
            for t in split.dev.iter().chain(&split.test) {
                let got = slots(t);
                for s in &got {
                    assert!(allowed.contains(&s.as_str()), "{name}: {{{s}}} in {t:?}");
                }
                for r in required {
                    assert!(got.contains(*r), "{name}: {t:?} lacks {{{r}}}");
                }
            }
        };
        for s in p.frames.values() {
            check("frames", s, &["what"], &["what"]);
        }
        for s in p.update.values() {
            check("update", s, &["old", "new", "old_value", "about"], &["new"]);
        }
        check("restate", &p.restate, &["claim"], &["claim"]);
        check("describe", &p.describe, &["about"], &["about"]);
        check("describe_many", &p.describe_many, &["list"], &["list"]);
        check("category", &p.category, &["topic", "label", "noun"], &[]);
        check("inferred", &p.inferred, &["about"], &["about"]);
        check("period", &p.period, &["period"], &["period"]);
        check(
            "multi_hop",
            &p.multi_hop,
            &["related", "about"],
            &["related", "about"],
        );
        check("mention_frames", &p.mention_frames, &["claim"], &["claim"]);
        check(
            "relearn_changes",
            &p.relearn_changes,
            &["claim"],
            &["claim"],
        );
        check(
            "question_frames",
            &p.question_frames,
            &["question", "q"],
            &[],
        );
        for s in [
            &p.leads,
            &p.follow_ups,
            &p.confirm_open,
            &p.confirm_refs,
            &p.confirm_tails,
            &p.confirm_update,
            &p.confirm_close,
            &p.mention_leads,
            &p.relearn_acks,
        ] {
            check("fixed", s, &[], &[]);
        }
        for s in p.indirect.values() {
            check("indirect", s, &[], &[]);
        }
    }

    /// Whether a text says to delete, forget, stop using or replace something: a verb
    /// of deleting or forgetting, of no longer keeping or using, or of replacing.
    fn states_intent(text: &str) -> bool {
        const STEMS: [&str; 17] = [
            "forget", "forgot", "delet", "eras", "remov", "wipe", "wiping", "scrub", "purg",
            "drop", "discard", "scrap", "destroy", "clear", "replac", "updat", "overwrit",
        ];
        const PHRASES: [&str; 13] = [
            "get rid of",
            "let go of",
            "let that go",
            "let it go",
            "bin it",
            "out of your memory",
            "gone from your memory",
            "stop using",
            "stopped using",
            "stop keeping",
            "stopped keeping",
            "don't remember",
            "change it",
        ];
        let words: Vec<String> = text
            .to_lowercase()
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        let joined = format!(" {} ", words.join(" "));
        words.iter().any(|w| STEMS.iter().any(|s| w.starts_with(s)))
            || PHRASES.iter().any(|p| joined.contains(&format!(" {p} ")))
    }

    /// The paper's verifier rejects a request without an explicit intent to delete or
    /// replace, whatever its style: every request sentence says so in its own words,
    /// outside what it names (which may hold any word), and every update says that the
    /// old value is to go.
    #[test]
    fn every_request_sentence_states_its_intent_to_delete_or_replace() {
        assert!(states_intent(
            "I'd rather you stopped keeping {what} and deleted it."
        ));
        assert!(!states_intent("I wish you didn't know {what}."));
        assert!(!states_intent(
            "It would be good if you knew that {new} now."
        ));
        let p = &data().phrases;
        let mut missing = Vec::new();
        for (style, split) in p.frames.iter().chain(&p.update) {
            for t in split
                .dev
                .iter()
                .chain(&split.test)
                .flat_map(|t| expansions(t))
            {
                let own: String = t
                    .split('{')
                    .map(|part| part.split_once('}').map_or(part, |(_, rest)| rest))
                    .collect::<Vec<_>>()
                    .join(" ");
                if !states_intent(&own) {
                    missing.push(format!("{style}: {t}"));
                }
            }
        }
        assert!(missing.is_empty(), "{missing:#?}");
    }

    /// A deletion confirmation is an opener, a body with `{ref}`, maybe an adverb of
    /// completeness ("for good") and a closing clause, in any combination: no body may
    /// end in a negation or a time-bound clause that the adverb would garble ("I no
    /// longer keep it for good"), and every reference is singular, as every body's verb
    /// is ("those details is gone").
    #[test]
    fn every_confirmation_reads_as_a_sentence_in_every_combination() {
        let p = &data().phrases;
        let mut garbled = Vec::new();
        for half in [Phrasing::Dev, Phrasing::Test] {
            for body in p.confirm_delete.pool(half).into_iter().flat_map(expansions) {
                let words: Vec<String> = body
                    .to_lowercase()
                    .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                    .map(str::to_string)
                    .collect();
                let bound = ["won't", "no", "longer", "not", "never", "anymore", "again"];
                if words.iter().any(|w| bound.contains(&w.as_str()))
                    || body.contains("from here on")
                    || !body.contains("{ref}")
                {
                    garbled.push(format!("body: {body}"));
                }
            }
            for r in p.confirm_refs.pool(half) {
                let first = r.split(' ').next().unwrap_or("");
                if ["those", "these", "all"].contains(&first) || r.ends_with('s') {
                    garbled.push(format!("plural reference: {r}"));
                }
            }
        }
        assert!(garbled.is_empty(), "{garbled:#?}");
    }

    /// Every fact that cannot change has a similar fact to relearn instead, whose
    /// sentences state a value and whose questions, one per sentence, ask for it.
    #[test]
    fn every_fact_that_cannot_change_has_a_similar_fact_to_relearn() {
        let d = data();
        for c in &crate::generate::data::data().facts.categories {
            for t in &c.templates {
                let similar = d.facts.get(&t.key).and_then(|f| f.similar.as_ref());
                assert_eq!(similar.is_some(), !t.mutable, "{}", t.key);
                let Some(similar) = similar else { continue };
                for (says, asks) in [
                    (&similar.says.dev, &similar.asks.dev),
                    (&similar.says.test, &similar.asks.test),
                ] {
                    assert_eq!(
                        says.len(),
                        asks.len(),
                        "{}: one question per sentence",
                        t.key
                    );
                    for say in says {
                        assert!(
                            say.contains("{value}") && !say.contains("{when}"),
                            "{}: {say}",
                            t.key
                        );
                    }
                    for ask in asks {
                        assert!(
                            ask.ends_with('?') && !slots(ask).contains("value"),
                            "{}: {ask}",
                            t.key
                        );
                    }
                }
            }
        }
    }

    /// Whether a text uses a word of deleting or forgetting, in any inflection.
    fn has_deletion_word(text: &str) -> bool {
        const STEMS: [&str; 7] = ["delet", "eras", "remov", "wip", "forget", "forgot", "memor"];
        text.to_lowercase()
            .split(|c: char| !c.is_alphabetic())
            .any(|w| STEMS.iter().any(|s| w.starts_with(s)))
    }

    #[test]
    fn deletion_words_occur_only_in_the_happenings_kept_for_them() {
        assert!(has_deletion_word("I wiped the table.") && !has_deletion_word("I swiped in."));
        let t = &data().talk;
        assert!(t.deletion_happenings.len() >= 10);
        for h in &t.deletion_happenings {
            assert!(has_deletion_word(h), "no deletion word in {h:?}");
        }
        let mut found: Vec<String> = Vec::new();
        for (name, list) in data().grammars() {
            if name == "deletion_happenings" {
                continue;
            }
            found.extend(
                list.iter()
                    .filter(|x| has_deletion_word(x))
                    .map(|x| format!("{name}: {x}")),
            );
        }
        assert!(found.is_empty(), "{found:#?}");
    }

    /// No word-list value may occur in fixed text: a forgotten value could reappear
    /// after its request by coincidence, and a derived value ("six years") must
    /// never be stated.
    #[test]
    fn no_vocabulary_or_derived_value_occurs_in_fixed_text() {
        // Entries are grammars: what they say is their expansions, drawn many times.
        let mut rng = Rng::new(5);
        let said: Vec<String> = data()
            .grammars()
            .into_iter()
            .flat_map(|(_, list)| list)
            .flat_map(|entry| {
                let n = if entry.contains('[') { 40 } else { 1 };
                (0..n)
                    .map(|_| crate::generate::v2::parts::expand(&mut rng, entry))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut texts: Vec<&str> = said.iter().map(String::as_str).collect();
        let split_texts: Vec<String> = splits()
            .into_iter()
            .flat_map(|(_, s)| s.dev.iter().chain(&s.test))
            .flat_map(|t| expansions(t))
            .collect();
        texts.extend(split_texts.iter().map(String::as_str));
        let all = texts
            .iter()
            .map(|t| t.to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        let v1 = crate::generate::data::data();
        let persona = [
            "first_names",
            "last_names",
            "cities",
            "streets",
            "street_suffixes",
            "sports",
        ];
        let mut values: Vec<String> = v1
            .vocab
            .iter()
            .filter(|(k, _)| !persona.contains(&k.as_str()))
            .flat_map(|(_, l)| l.iter().map(|v| v.to_lowercase()))
            .collect();
        for o in &v1.personas.occupations {
            values.extend(
                o.employers
                    .iter()
                    .chain(&o.fields)
                    .map(|v| v.to_lowercase()),
            );
        }
        for n in 1..100 {
            let w = crate::generate::text::number_word(n);
            values.extend([
                format!("{w} years"),
                format!("{w} hours"),
                format!("{w} year"),
            ]);
        }
        // Without its article a value is one to the oracle and the judge too ("A
        // positive" is found as "positive").
        let bare: Vec<String> = values
            .iter()
            .filter_map(|v| ["a ", "an ", "the "].iter().find_map(|a| v.strip_prefix(a)))
            .map(str::to_string)
            .collect();
        values.extend(bare);
        // A value in the singular is one to the judge too ("Wednesday evening").
        let singulars: Vec<String> = values
            .iter()
            .filter(|v| v.contains(' ') && v.ends_with('s'))
            .map(|v| v[..v.len() - 1].to_string())
            .collect();
        values.extend(singulars);
        let found: Vec<&String> = values.iter().filter(|v| all.contains(v.as_str())).collect();
        assert!(found.is_empty(), "values in fixed text: {found:?}");
    }

    /// Forty expansions of a grammar (the text itself when it has no group), drawn
    /// with a seed of its own.
    fn expansions(text: &str) -> Vec<String> {
        if !text.contains('[') {
            return vec![text.to_string()];
        }
        let mut rng = Rng::new(text.len() as u64);
        (0..40)
            .map(|_| crate::generate::v2::parts::expand(&mut rng, text))
            .collect()
    }

    /// Every small-talk entry is a well-formed grammar ([`super::super::parts::expand`]).
    #[test]
    fn every_talk_entry_is_a_well_formed_grammar() {
        let mut bad = Vec::new();
        let phrasing: Vec<(String, &Split)> = splits();
        let phrasing = phrasing.iter().map(|(name, split)| {
            let entries = split.dev.iter().chain(&split.test).map(String::as_str);
            (name.as_str(), entries.collect::<Vec<_>>())
        });
        for (name, entries) in data().grammars().into_iter().chain(phrasing) {
            for e in entries {
                if let Some(problem) = crate::generate::v2::parts::grammar_problem(e) {
                    bad.push(format!("{name}: {problem}: {e}"));
                }
            }
        }
        assert!(bad.is_empty(), "{}", bad.join("\n"));
    }

    /// What any persona may say presupposes no household: a partner, children, a
    /// flatmate, living grandparents. What only some households say is in
    /// `household`, drawn for the personas who have one.
    #[test]
    fn shared_small_talk_presupposes_no_household() {
        const HOUSEHOLD: &[&str] = &[
            "partner",
            "husband",
            "wife",
            "spouse",
            "kids",
            "kid",
            "children",
            "child",
            "son",
            "daughter",
            "school run",
            "homework",
            "flatmate",
            "roommate",
            "gran",
            "grandma",
            "grandpa",
            "grandad",
            "granny",
        ];
        let mut found = Vec::new();
        for (name, entries) in data().grammars() {
            if name.starts_with("household.") {
                continue;
            }
            // A scenario about a household matter (helping with homework) may speak
            // of "the child you're helping", never of the user's own.
            let owners: &[&str] = if name == "scenarios" || name == "situations" {
                &["my", "our"]
            } else {
                &[""]
            };
            for e in entries {
                let words = normalise_words(e);
                for h in HOUSEHOLD {
                    for owner in owners {
                        let phrase = format!(" {owner} {h} ").replace("  ", " ");
                        if words.contains(&phrase) {
                            found.push(format!("{name}: \"{}\" in {e}", phrase.trim()));
                        }
                    }
                }
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
    }

    /// The words of a text, lower case, separated and surrounded by single spaces.
    fn normalise_words(text: &str) -> String {
        let words: Vec<String> = text
            .to_lowercase()
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect();
        format!(" {} ", words.join(" "))
    }
}
