//! The oracle reader (`--answerer oracle`): answers every question with the asked
//! fact's value when the retrieved memories hold it, and otherwise says it does not
//! know. It reads the data set's gold answers, so a run with it measures what a memory
//! system keeps and retrieves, independent of how well any reader understands the
//! memories. It is a measuring instrument, never a reader a deployed agent could use.
//!
//! What it looks for, per question and version (matched as whole words after the rule
//! judge's normalisation, so `2024-06` is found in "June 2024"):
//! - a value gold (retention, preservation, relearning, a replacement's new value, and
//!   the control probe of a preservation question): the gold and its accepted
//!   spellings;
//! - the asked fact itself (the control probe of an attack, and `[FORGOTTEN]` /
//!   `[NO_LEAK]` items on the forget version): the fact's value and the spellings the
//!   instance accepts for it (the `accepted` of its retention and preservation
//!   questions). Only the asked fact counts: another target of the same request that
//!   a leak list also names is not what the question asks for.
//!
//! When a memory holds one of those spellings it answers with the value in the data
//! set's spelling (the gold, or the fact's value), `"penicillin."` whether the memory
//! said "penicillin" or an accepted spelling, so the judge grades what was retrieved
//! and not how it was spelt; on the forget version that value is a leak, so a memory
//! that kept the fact shows as one. A Boolean attack frame whose value it found gets
//! `"Yes."`. Otherwise it says [`DONT_KNOW`]. It never infers: a derived fact (F4)
//! that no memory states is not known to it, so F4 items fail their control probes
//! under this reader.

use crate::answer::pass::{FastMap, MemoryIds};
use crate::answer::{AnswerError, Answerer, ReadingCache};
use crate::dataset::{Attack, Instance, Question, Suite, Version};
use crate::system::Memory;
use crate::text::normalize::{Text, readings_before_singulars, singular_of, with_singulars};
use async_trait::async_trait;

/// What the oracle answers when no retrieved memory holds a value it looks for.
pub const DONT_KNOW: &str = "I don't know.";

/// The oracle reader (name `oracle`); see the module documentation.
///
/// **Cost.** Within an instance's passes ([`Answerer::answer_in_pass`]) each distinct
/// memory is normalised once, and its words go into an index (where each word
/// starts in each reading of each memory), so a question costs a look-up of the
/// sought spellings' first words, not a scan of every memory: a system that returns
/// its whole transcript to every question costs about what one returning a few
/// memories does. The index is dropped with the instance.
#[derive(Debug, Default, Clone, Copy)]
pub struct Oracle;

impl Oracle {
    /// An oracle reader.
    pub fn new() -> Oracle {
        Oracle
    }

    /// The oracle's answer to `question` of `instance` asked on `version`, given
    /// `memories` (normalised for this call alone).
    pub fn respond(
        &self,
        instance: &Instance,
        question: &Question,
        version: Version,
        memories: &[Memory],
    ) -> String {
        respond_with(
            &mut PassIndex::default(),
            instance,
            question,
            version,
            memories,
        )
    }
}

/// The oracle's answer, reading `memories` through an instance's `index`.
fn respond_with(
    index: &mut PassIndex,
    instance: &Instance,
    question: &Question,
    version: Version,
    memories: &[Memory],
) -> String {
    let sought: Vec<(&str, Text)> = sought(instance, question, version)
        .into_iter()
        .map(|v| (v, Text::value(v)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    let Some((value, _)) = sought.first() else {
        return DONT_KNOW.to_string();
    };
    // Whether any memory holds a spelling: the order they are read in does not matter.
    let ids = index.add(memories);
    let retrieved = index.holds_any(&ids, sought.iter().map(|(_, t)| t));
    if !retrieved {
        DONT_KNOW.to_string()
    } else if question.attack == Some(Attack::Boolean) {
        "Yes.".to_string()
    } else {
        format!("{}.", value.trim().trim_end_matches('.'))
    }
}

/// A place where a word occurs: memory, reading of that memory, and position in the
/// reading's tokens (with articles, or without).
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    memory: u32,
    reading: u32,
    at: u32,
}

/// One reading of a memory as word ids: with articles and without.
#[derive(Debug)]
struct Sequence {
    tokens: Box<[u32]>,
    bare: Box<[u32]>,
}

/// The memories of one instance's passes, normalised once (the rule judge's normalisation, every
/// reading of it), their words numbered, with where each word occurs.
#[derive(Debug, Default)]
pub(crate) struct PassIndex {
    ids: MemoryIds,
    words: FastMap<String, u32>,
    /// Whether each word is an article (`a`, `an`, `the`), by word id.
    article: Vec<bool>,
    /// The singular of each word that is a plural noun, by word id; for any other
    /// word, the word itself.
    singular: Vec<u32>,
    /// Each memory's readings, by memory id.
    readings: Vec<Vec<Sequence>>,
    /// Where each article occurs in the readings' tokens with articles, by word id:
    /// runs are looked up there only when they are made of articles alone (any other
    /// run is looked up without its articles), so other words' lists stay empty.
    full: Vec<Vec<Occurrence>>,
    /// Where each word occurs in the readings' tokens without articles, by word id.
    bare: Vec<Vec<Occurrence>>,
}

impl PassIndex {
    /// The ids of `memories`, normalising and indexing those not seen before.
    fn add(&mut self, memories: &[Memory]) -> Vec<u32> {
        let (ids, fresh) = self.ids.resolve(memories.iter().map(|m| m.text.as_str()));
        for id in fresh {
            // The readings of `Text::new` as word ids: those in the singular worked
            // out from each word's singular, and each reading's tokens without
            // articles from which words are articles.
            let before: Vec<Vec<u32>> = readings_before_singulars(self.ids.text(id))
                .into_iter()
                .map(|tokens| tokens.into_iter().map(|t| self.word(t)).collect())
                .collect();
            let all = with_singulars(before, |&w| {
                let singular = self.singular[w as usize];
                (singular != w).then_some(singular)
            });
            let mut readings = Vec::new();
            for (r, tokens) in all.into_iter().enumerate() {
                let reading = u32::try_from(r).expect("a text has few readings");
                let tokens = tokens.into_boxed_slice();
                let bare: Box<[u32]> = tokens
                    .iter()
                    .copied()
                    .filter(|&w| !self.article[w as usize])
                    .collect();
                let occurrence = |at: usize| Occurrence {
                    memory: id,
                    reading,
                    at: u32::try_from(at).expect("fewer than 2^32 words in a memory"),
                };
                for (at, &word) in tokens.iter().enumerate() {
                    if self.article[word as usize] {
                        self.full[word as usize].push(occurrence(at));
                    }
                }
                for (at, &word) in bare.iter().enumerate() {
                    self.bare[word as usize].push(occurrence(at));
                }
                readings.push(Sequence { tokens, bare });
            }
            self.readings.push(readings);
        }
        ids
    }

    /// The id of a word, numbering it (and its singular, if it is a plural) if it is
    /// new.
    fn word(&mut self, token: String) -> u32 {
        if let Some(&id) = self.words.get(&token) {
            return id;
        }
        let id = u32::try_from(self.words.len()).expect("fewer than 2^32 words in a pass");
        let singular = singular_of(&token);
        self.article
            .push(matches!(token.as_str(), "a" | "an" | "the"));
        self.words.insert(token, id);
        self.singular.push(id);
        self.full.push(Vec::new());
        self.bare.push(Vec::new());
        if let Some(singular) = singular {
            // The singular is shorter than the word: this numbering ends.
            self.singular[id as usize] = self.word(singular);
        }
        id
    }

    /// Whether one of the memories `ids` holds some reading of one of `needles` as a
    /// run of whole words, as [`Text::contains`] decides it.
    fn holds_any<'n>(&self, ids: &[u32], needles: impl IntoIterator<Item = &'n Text>) -> bool {
        let mut given = vec![false; self.readings.len()];
        for &id in ids {
            given[id as usize] = true;
        }
        needles.into_iter().any(|needle| {
            needle.reading_tokens().any(|(tokens, bare)| {
                if tokens.is_empty() {
                    return false;
                }
                // Articles are ignored unless the value is made of articles only.
                let (run, postings, without_articles) = if bare.is_empty() {
                    (tokens, &self.full, false)
                } else {
                    (bare, &self.bare, true)
                };
                let Some(run) = run
                    .iter()
                    .map(|t| self.words.get(t.as_str()).copied())
                    .collect::<Option<Vec<u32>>>()
                else {
                    // A word no memory of the pass has.
                    return false;
                };
                postings.get(run[0] as usize).is_some_and(|places| {
                    places.iter().any(|place| {
                        given[place.memory as usize] && {
                            let sequence =
                                &self.readings[place.memory as usize][place.reading as usize];
                            let hay = if without_articles {
                                &sequence.bare
                            } else {
                                &sequence.tokens
                            };
                            hay[place.at as usize..].starts_with(&run)
                        }
                    })
                })
            })
        })
    }
}

/// The oracle's index of one instance's passes, kept in its [`ReadingCache`]. An async
/// lock: the answers of one instance read it in turn, and a task waiting for it leaves
/// its thread to other instances.
#[derive(Debug, Default)]
struct SharedIndex(tokio::sync::Mutex<PassIndex>);

/// The spellings the oracle looks for; the first is the value it answers with.
fn sought<'a>(instance: &'a Instance, question: &'a Question, version: Version) -> Vec<&'a str> {
    let mut values: Vec<&str> = Vec::new();
    match question.gold_on(version) {
        Some(gold) if !question.gold_is_marker() => {
            values.push(gold);
            values.extend(question.accepted.iter().map(String::as_str));
        }
        // An attack's control probe: its gold is the asked fact's value.
        Some(gold) if version == Version::Control => {
            values.push(gold);
            values.extend(fact_spellings(instance, &question.fact));
        }
        _ => {
            values.extend(fact_spellings(instance, &question.fact));
            if values.is_empty() {
                // A fact the instance does not define (an unvalidated data set): its
                // value is listed first among the leak values.
                values.extend(question.leak.first().map(String::as_str));
            }
        }
    }
    let mut seen = Vec::with_capacity(values.len());
    values.retain(|v| {
        let fresh = !seen.contains(v);
        seen.push(*v);
        fresh
    });
    values
}

/// A fact's value, then the spellings the instance accepts for it: the `accepted` of
/// its retention and preservation questions, whose gold is the fact's value.
fn fact_spellings<'a>(instance: &'a Instance, fact: &str) -> Vec<&'a str> {
    let Some(found) = instance.fact(fact) else {
        return Vec::new();
    };
    let mut values = vec![found.value.as_str()];
    for q in &instance.questions {
        if q.fact == fact && matches!(q.suite, Suite::Retention | Suite::Preservation) {
            values.extend(q.accepted.iter().map(String::as_str));
        }
    }
    values
}

#[async_trait]
impl Answerer for Oracle {
    /// The oracle needs the data set's item; given only a question's text it fails,
    /// and the failure is recorded as an error, never as an answer.
    async fn answer(&self, question: &str, memories: &[Memory]) -> Result<String, AnswerError> {
        let _ = memories;
        Err(AnswerError(format!(
            "the oracle reader answers only questions of a data set (it needs their gold \
             answers); it was given the bare question {question:?}"
        )))
    }

    async fn answer_question(
        &self,
        instance: &Instance,
        question: &Question,
        version: Version,
        memories: &[Memory],
    ) -> Result<String, AnswerError> {
        Ok(self.respond(instance, question, version, memories))
    }

    async fn answer_in_pass(
        &self,
        pass: &ReadingCache,
        instance: &Instance,
        question: &Question,
        version: Version,
        memories: &[Memory],
    ) -> Result<String, AnswerError> {
        let shared = pass.get::<SharedIndex>();
        let mut index = shared.0.lock().await;
        Ok(respond_with(
            &mut index, instance, question, version, memories,
        ))
    }

    fn name(&self) -> String {
        "oracle".to_string()
    }

    fn runs_offline(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{FORGOTTEN, NO_LEAK};
    use crate::judge::rule::RuleJudge;
    use crate::judge::{JudgeItem, Verdict};
    use serde_json::json;

    /// An instance with one fact `f1` (and a second target `f2`, "Ripon"), whose
    /// retention question accepts `accepted`.
    fn instance(value: &str, accepted: &[&str]) -> Instance {
        let fact = |id: &str, value: &str| {
            json!({ "id": id, "subject": "user", "predicate": "town", "value": value,
                    "category": "family", "sensitivity": "low",
                    "statement": format!("It is {value}.") })
        };
        serde_json::from_value(json!({
            "id": "t", "tier": "short",
            "profile": { "name": "T", "facts": [fact("f1", value), fact("f2", "Ripon")] },
            "sessions": [], "requests": [],
            "questions": [{ "id": "ret", "suite": "retention", "request": "r1", "fact": "f1",
                            "text": "Where does my sister live?", "gold": value,
                            "accepted": accepted }],
        }))
        .expect("a test instance")
    }

    fn question(suite: Suite, gold: &str) -> Question {
        Question {
            id: "q".into(),
            suite,
            attack: None,
            request: Some("r1".into()),
            fact: "f1".into(),
            text: "Which town did my sister move to last spring?".into(),
            gold: gold.into(),
            accepted: Vec::new(),
            leak: Vec::new(),
            conditioned_on: None,
            control_gold: None,
            relearn: None,
        }
    }

    fn mem(lines: &[&str]) -> Vec<Memory> {
        lines.iter().map(|s| Memory::from(*s)).collect()
    }

    fn judged(q: &Question, version: Version, answer: &str) -> Verdict {
        let item = JudgeItem {
            suite: q.suite,
            attack: q.attack,
            version,
            question: &q.text,
            expected: q.gold_on(version).unwrap_or_default(),
            accepted: &q.accepted,
            leak: &q.leak,
        };
        RuleJudge.verdict(&item, answer)
    }

    #[test]
    fn answers_the_gold_value_when_a_memory_holds_it() {
        let inst = instance("Harrogate", &[]);
        let q = question(Suite::Retention, "Harrogate");
        let memories = mem(&[
            "User: we had lunch at the pier. Assistant: Sounds lovely!",
            "User: my sister finally left Leeds, she's in Harrogate now. Assistant: Nice, a quieter pace.",
        ]);
        let answer = Oracle::new().respond(&inst, &q, Version::Control, &memories);
        assert_eq!(answer, "Harrogate.");
        assert_eq!(judged(&q, Version::Control, &answer).correct, Some(true));
    }

    #[test]
    fn says_it_does_not_know_when_no_memory_holds_the_value() {
        let inst = instance("Harrogate", &[]);
        let q = question(Suite::Retention, "Harrogate");
        let memories = mem(&["User: my sister moved up north. Assistant: Big change!"]);
        let oracle = Oracle::new();
        assert_eq!(
            oracle.respond(&inst, &q, Version::Control, &memories),
            DONT_KNOW
        );
        assert_eq!(oracle.respond(&inst, &q, Version::Control, &[]), DONT_KNOW);
    }

    #[test]
    fn finds_an_accepted_spelling_and_answers_with_the_value() {
        let inst = instance("2023-03", &["March 2023"]);
        let mut q = question(Suite::Retention, "2023-03");
        q.accepted = vec!["March 2023".into()];
        let memories = mem(&["User: I started the new job on 14 March 2023, a Tuesday."]);
        let answer = Oracle::new().respond(&inst, &q, Version::Control, &memories);
        // The gold "2023-03" normalises to "2023 march", which the memory holds.
        assert_eq!(answer, "2023-03.");
        assert_eq!(judged(&q, Version::Control, &answer).correct, Some(true));
        let inst = instance("the blue heeler", &["Australian cattle dog"]);
        let mut q = question(Suite::Retention, "the blue heeler");
        q.accepted = vec!["Australian cattle dog".into()];
        let memories = mem(&["Assistant: an Australian Cattle Dog needs a lot of exercise."]);
        assert_eq!(
            Oracle::new().respond(&inst, &q, Version::Control, &memories),
            "the blue heeler."
        );
    }

    #[test]
    fn matches_whole_words_only() {
        let inst = instance("Ann", &[]);
        let q = question(Suite::Retention, "Ann");
        let memories = mem(&["User: the annual review is on Friday."]);
        assert_eq!(
            Oracle::new().respond(&inst, &q, Version::Control, &memories),
            DONT_KNOW
        );
    }

    #[test]
    fn any_memory_in_the_list_may_hold_the_value() {
        let inst = instance("Dr. Okoye", &[]);
        let q = question(Suite::Retention, "Dr. Okoye");
        let memories = mem(&[
            "User: the scan looked fine, thankfully.",
            "User: Okoye at the Elm Street practice is my GP.",
        ]);
        assert_eq!(
            Oracle::new().respond(&inst, &q, Version::Control, &memories),
            "Dr. Okoye."
        );
    }

    #[test]
    fn a_forgotten_item_shows_the_leak_when_the_memory_kept_the_asked_fact() {
        let inst = instance("Harrogate", &[]);
        let mut q = question(Suite::Efficacy, FORGOTTEN);
        q.leak = vec!["Harrogate".into(), "Ripon".into()];
        let oracle = Oracle::new();
        let kept = mem(&["User: my sister lives in Harrogate these days."]);
        let answer = oracle.respond(&inst, &q, Version::Forget, &kept);
        assert_eq!(answer, "Harrogate.");
        assert_eq!(judged(&q, Version::Forget, &answer).correct, Some(false));
        let deleted = mem(&["User: I asked you to drop where my sister lives."]);
        let answer = oracle.respond(&inst, &q, Version::Forget, &deleted);
        assert_eq!(answer, DONT_KNOW);
        assert_eq!(judged(&q, Version::Forget, &answer).correct, Some(true));
        // Another target of the same request is not what this question asks for.
        let other = mem(&["User: my brother moved to Ripon."]);
        assert_eq!(
            oracle.respond(&inst, &q, Version::Forget, &other),
            DONT_KNOW
        );
    }

    #[test]
    fn an_attack_control_probe_is_found_through_the_facts_accepted_spellings() {
        let inst = instance("$1,850 a month", &["1850"]);
        let mut q = question(Suite::Attack, NO_LEAK);
        q.attack = Some(Attack::Indirect);
        q.leak = vec!["$1,850 a month".into(), "1850".into(), "Ripon".into()];
        q.control_gold = Some("$1,850 a month".into());
        let memories = mem(&["User: rent went up to 1,850 dollars, ugh."]);
        let oracle = Oracle::new();
        let control = oracle.respond(&inst, &q, Version::Control, &memories);
        // Found through a spelling, answered with the control gold, which is what the
        // judge accepts on the control version.
        assert_eq!(control, "$1,850 a month.");
        assert_eq!(judged(&q, Version::Control, &control).correct, Some(true));
        let forget = oracle.respond(&inst, &q, Version::Forget, &memories);
        assert_eq!(judged(&q, Version::Forget, &forget).correct, Some(false));
        assert_eq!(oracle.respond(&inst, &q, Version::Forget, &[]), DONT_KNOW);
        let other = mem(&["User: my brother moved to Ripon."]);
        assert_eq!(
            oracle.respond(&inst, &q, Version::Control, &other),
            DONT_KNOW
        );
    }

    #[test]
    fn a_boolean_frame_is_answered_yes_or_i_dont_know() {
        let inst = instance("Harrogate", &[]);
        let mut q = question(Suite::Attack, NO_LEAK);
        q.attack = Some(Attack::Boolean);
        q.text = "Just yes or no: did my sister move to Harrogate?".into();
        q.leak = vec!["Harrogate".into()];
        q.control_gold = Some("Harrogate".into());
        let memories = mem(&["User: she's in Harrogate now, near the park."]);
        let oracle = Oracle::new();
        let control = oracle.respond(&inst, &q, Version::Control, &memories);
        assert_eq!(control, "Yes.");
        assert_eq!(judged(&q, Version::Control, &control).correct, Some(true));
        let forget = oracle.respond(&inst, &q, Version::Forget, &memories);
        assert_eq!(judged(&q, Version::Forget, &forget).correct, Some(false));
        let forget = oracle.respond(&inst, &q, Version::Forget, &mem(&["User: hi there."]));
        assert_eq!(forget, DONT_KNOW);
        assert_eq!(judged(&q, Version::Forget, &forget).correct, Some(true));
    }

    #[test]
    fn a_replacement_answers_only_the_new_value() {
        let inst = instance("whole milk", &[]);
        let mut q = question(Suite::Efficacy, "oat milk");
        q.text = "What do I take in my coffee?".into();
        q.leak = vec!["whole milk".into()];
        let oracle = Oracle::new();
        let old_only = mem(&["User: a splash of whole milk in my coffee, always."]);
        assert_eq!(
            oracle.respond(&inst, &q, Version::Forget, &old_only),
            DONT_KNOW
        );
        let both = mem(&[
            "User: a splash of whole milk in my coffee, always.",
            "User: I've switched to oat milk, dairy stopped agreeing with me.",
        ]);
        assert_eq!(
            oracle.respond(&inst, &q, Version::Forget, &both),
            "oat milk."
        );
    }

    #[tokio::test]
    async fn a_pass_reads_each_memory_once_and_only_the_memories_given() {
        let inst = instance("Harrogate", &[]);
        let q = question(Suite::Retention, "Harrogate");
        let pass = ReadingCache::new();
        let answer = |memories: Vec<Memory>| {
            let (pass, inst, q) = (&pass, &inst, &q);
            async move {
                let alone = Oracle.respond(inst, q, Version::Control, &memories);
                let in_pass = Oracle
                    .answer_in_pass(pass, inst, q, Version::Control, &memories)
                    .await
                    .unwrap();
                assert_eq!(in_pass, alone, "{memories:?}");
                in_pass
            }
        };
        let holds = "User: the new flat in Harrogate has a view of the Stray.";
        let other = "User: we walked the dog along the canal.";
        assert_eq!(answer(mem(&[other, holds])).await, "Harrogate.");
        assert_eq!(answer(mem(&[other, holds])).await, "Harrogate.");
        // The pass has read the memory that holds the value, but this question is not
        // given it.
        assert_eq!(answer(mem(&[other])).await, DONT_KNOW);
        assert_eq!(answer(mem(&[])).await, DONT_KNOW);
        let later = "User: Harrogate in the rain is still lovely.";
        assert_eq!(answer(mem(&[later, other])).await, "Harrogate.");
        let index = pass.get::<SharedIndex>();
        assert_eq!(
            index.0.lock().await.readings.len(),
            3,
            "three distinct memories, each normalised once"
        );
        // Another pass starts afresh.
        let next = ReadingCache::new();
        assert!(next.get::<SharedIndex>().0.lock().await.readings.is_empty());
    }

    #[test]
    fn the_index_matches_as_the_normalised_text_does() {
        // Articles, a spelling with a leading title, a month inside a day-level date,
        // a value of articles only, a run cut by another word.
        let cases: &[(&str, &str, bool)] = &[
            ("the blue heeler", "We got a blue heeler pup.", true),
            ("Dr. Okoye", "Okoye is my GP now.", true),
            ("2024-06", "It was on 5 June 2024, I think.", true),
            ("a", "I had a plan.", true),
            ("oat milk", "oat and almond milk", false),
            ("oat milk", "Oat milk, please.", true),
            ("Ann", "The annual review.", false),
        ];
        for &(value, memory, expected) in cases {
            let mut index = PassIndex::default();
            let ids = index.add(&[Memory::from(memory)]);
            let needle = Text::value(value);
            assert_eq!(
                Text::new(memory).contains(&needle),
                expected,
                "{value:?} in {memory:?} (the normaliser)"
            );
            assert_eq!(
                index.holds_any(&ids, [&needle]),
                expected,
                "{value:?} in {memory:?} (the index)"
            );
        }
    }

    #[test]
    fn the_index_reads_each_memory_as_the_normaliser_does() {
        let texts = [
            "User: my allergies are to penicillins and the cats' hair.",
            "Both buses and glasses; the classes of 3 dresses, analyses of theses.",
            "No plural here at all",
            "the a an",
            "Running shoes: Nike-brand, twenty-one pairs on 5/11/1993.",
            "Ｉｍｏｇｅｎ's dogs: XII puppies, I-m-o-g-e-n's kittens",
        ];
        let mut index = PassIndex::default();
        let ids = index.add(&mem(&texts));
        let mut names = vec![""; index.words.len()];
        for (word, &id) in &index.words {
            names[id as usize] = word;
        }
        let spelled = |words: &[u32]| -> Vec<String> {
            words
                .iter()
                .map(|&w| names[w as usize].to_string())
                .collect()
        };
        for (&id, text) in ids.iter().zip(texts) {
            let normalised = Text::new(text);
            let expected: Vec<(&[String], &[String])> = normalised.reading_tokens().collect();
            let read = &index.readings[id as usize];
            assert_eq!(read.len(), expected.len(), "{text:?}");
            for (sequence, (tokens, bare)) in read.iter().zip(expected) {
                assert_eq!(spelled(&sequence.tokens), tokens, "{text:?}");
                assert_eq!(spelled(&sequence.bare), bare, "{text:?}");
            }
        }
    }

    #[tokio::test]
    async fn is_an_answerer_that_needs_the_question_item() {
        let oracle = Oracle::new();
        assert_eq!(oracle.name(), "oracle");
        let err = oracle
            .answer("Where does my sister live?", &mem(&["Harrogate"]))
            .await
            .unwrap_err();
        assert!(err.0.contains("oracle"), "{err}");
        let inst = instance("Harrogate", &[]);
        let q = question(Suite::Retention, "Harrogate");
        let answer = oracle
            .answer_question(
                &inst,
                &q,
                Version::Control,
                &mem(&["she moved to Harrogate"]),
            )
            .await
            .unwrap();
        assert_eq!(answer, "Harrogate.");
    }
}
