//! The `scoped-forget` system: a reference forgetter built from language rules.
//!
//! It stores what the user says, one memory per sentence (assistant replies are not
//! stored: they restate or advise), and retrieves the top 5 sentences by BM25 for the
//! question proper ([`question_proper`]: without a framing such as "For the audit log,
//! answer exactly: …"), returned in the order they were learnt. When
//! the recogniser ([`super::request`]) reads a user turn as a forget request, the turn
//! itself is not stored and each target the request names is acted on:
//!
//! - **facts** (F1, F2): sentences whose content words cover at least half of the
//!   part's (idf-weighted, counting only words the store has seen, with a few
//!   predicate synonyms) and share at least two of them (or, of a two-word part such
//!   as "home address", its last word) are deleted — sentences, not whole turns, so a
//!   turn's other facts stay;
//! - **categories** (F3): every sentence holding a word of the category's lexicon is
//!   deleted;
//! - **periods** (F5): every sentence that mentions a time inside the period is
//!   deleted (relative times — "last month" — are placed by the session date);
//! - **inferences** (F4): nothing stated can be deleted, so a suppression rule is kept:
//!   a question matching the topic is refused with "I don't have that information."
//!   unless a sentence learnt *after* the request matches the topic itself (so a new
//!   value stated later is answered);
//! - **replacements** (F6): the old value's sentences are deleted as facts, and the
//!   request's new-value clauses are stored in their place;
//! - "forget everything" clears the namespace; "forget what I just told you" deletes
//!   the previous turn's sentences.
//!
//! Later turns are stored as usual, so new values of the same kind are learnt again.

use super::lexicon::synonyms;
use super::request::{Request, Target, recognise};
use super::{Spaces, TOP_K};
use crate::system::{
    Memory as Recalled, MemorySystem, Namespace, Reply, SessionInfo, SystemResult, TurnInput,
};
use crate::text::dates::{Period, YearMonth, is_time_word, mentioned_periods};
use crate::text::question::question_proper;
use crate::text::{Bm25, DocId, content_terms, dedup, distinct_terms, split_sentences};
use std::collections::{BTreeMap, BTreeSet};

/// The answer to a question on a suppressed topic.
pub const REFUSAL: &str = "I don't have that information.";

/// Share of a fact part's weight a sentence must cover to be deleted.
pub const FACT_COVERAGE: f64 = 0.5;

/// Share of a suppression topic's words a question must hold to be refused.
pub const TOPIC_COVERAGE: f64 = 0.6;

/// One stored sentence.
#[derive(Debug, Clone)]
struct Memory {
    text: String,
    terms: Vec<String>,
    periods: Vec<Period>,
    turn: u64,
    /// When it was learnt ([`super::Clock`]).
    time: Option<String>,
}

/// A refused topic: an inference the user asked to forget.
#[derive(Debug, Clone)]
struct Suppression {
    terms: Vec<String>,
    /// Memories with this id or later were learnt after the request.
    since: DocId,
}

/// The memory of one namespace.
#[derive(Debug, Clone, Default)]
struct Space {
    index: Bm25,
    memories: BTreeMap<DocId, Memory>,
    suppressions: Vec<Suppression>,
    next_id: DocId,
    next_turn: u64,
    last_turn: Option<u64>,
    today: Option<YearMonth>,
    clock: super::Clock,
}

impl Space {
    fn observe(&mut self, user: &str) {
        if let Some(request) = recognise(user, self.today) {
            self.apply(request);
            return;
        }
        let turn = self.next_turn;
        self.next_turn += 1;
        let time = self.clock.tick();
        for sentence in split_sentences(user) {
            self.store(sentence, turn, time.clone());
        }
        self.last_turn = Some(turn);
    }

    fn store(&mut self, text: String, turn: u64, time: Option<String>) {
        let terms = content_terms(&text);
        if terms.is_empty() {
            return;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.index.add(id, &terms);
        let periods = mentioned_periods(&text, self.today);
        self.memories.insert(
            id,
            Memory {
                text,
                terms: dedup(terms),
                periods,
                turn,
                time,
            },
        );
    }

    fn apply(&mut self, request: Request) {
        let mut doomed = BTreeSet::new();
        for target in &request.targets {
            doomed.extend(self.matching(target));
            if let Target::Inference(terms) = target {
                self.suppressions.push(Suppression {
                    terms: terms.clone(),
                    since: self.next_id,
                });
            }
        }
        for id in doomed {
            self.index.remove(id);
            self.memories.remove(&id);
        }
        if !request.statements.is_empty() {
            let turn = self.next_turn;
            self.next_turn += 1;
            let time = self.clock.tick();
            for statement in request.statements {
                self.store(statement, turn, time.clone());
            }
        }
    }

    /// The stored sentences a target names.
    fn matching(&self, target: &Target) -> Vec<DocId> {
        let select = |keep: &dyn Fn(&Memory) -> bool| -> Vec<DocId> {
            self.memories
                .iter()
                .filter(|(_, m)| keep(m))
                .map(|(id, _)| *id)
                .collect()
        };
        match target {
            Target::Facts(part) => select(&|m| self.covers_fact(part, &m.terms)),
            Target::Categories(categories) => {
                select(&|m| categories.iter().any(|c| c.covers(&m.terms)))
            }
            Target::Periods(periods) => select(&|m| {
                m.periods
                    .iter()
                    .any(|p| periods.iter().any(|named| named.contains(p)))
            }),
            Target::Everything => select(&|_| true),
            Target::Previous => select(&|m| Some(m.turn) == self.last_turn),
            Target::Inference(_) => Vec::new(),
        }
    }

    /// Whether a sentence's terms match a named fact well enough to delete it.
    fn covers_fact(&self, part: &[String], terms: &[String]) -> bool {
        let known: Vec<&String> = part
            .iter()
            .filter(|t| self.index.df(t) > 0 || synonyms(t).iter().any(|s| self.index.df(s) > 0))
            .collect();
        if known.is_empty() {
            return false;
        }
        let mut total = 0.0;
        let mut covered = 0.0;
        let mut matched = 0;
        for t in &known {
            let w = self.index.idf(t).max(0.1);
            total += w;
            if has_term(terms, t) {
                covered += w;
                matched += 1;
            }
        }
        // Of a two-word part ("home address"), the last word (the head) may do alone.
        let head_alone = known.len() == 2 && !is_time_word(known[1]) && has_term(terms, known[1]);
        (matched >= known.len().min(2) || head_alone) && covered / total >= FACT_COVERAGE
    }

    fn query(&self, question: &str) -> Reply {
        // Suppression looks at the whole question (a frame must not slip past it);
        // retrieval at what it asks, so that framing words do not crowd it out.
        let q = distinct_terms(question);
        let asked = question_proper(&question.replace('\u{2019}', "'"));
        for rule in &self.suppressions {
            if topic_matches(&rule.terms, &q) {
                let relearnt = self
                    .memories
                    .range(rule.since..)
                    .any(|(_, m)| topic_matches(&rule.terms, &m.terms));
                if !relearnt {
                    return Reply::Answer(REFUSAL.to_string());
                }
                return Reply::Memories(self.search(&asked, |id| id >= rule.since));
            }
        }
        Reply::Memories(self.search(&asked, |_| true))
    }

    /// The [`TOP_K`] best sentences, best first, each with the time it was learnt.
    fn search(&self, question: &str, keep: impl Fn(DocId) -> bool) -> Vec<Recalled> {
        self.index
            .search_where(&content_terms(question), TOP_K, keep)
            .into_iter()
            .filter_map(|hit| {
                self.memories.get(&hit.id).map(|m| Recalled {
                    text: m.text.clone(),
                    time: m.time.clone(),
                })
            })
            .collect()
    }
}

/// Whether `terms` hold `t` or one of its synonyms (either way round).
fn has_term(terms: &[String], t: &str) -> bool {
    terms.iter().any(|x| x == t)
        || synonyms(t).iter().any(|s| terms.contains(s))
        || terms.iter().any(|x| synonyms(x).iter().any(|s| s == t))
}

/// Whether a question (or sentence) holds enough of a suppressed topic's words.
fn topic_matches(topic: &[String], terms: &[String]) -> bool {
    if topic.is_empty() {
        return false;
    }
    let matched = topic.iter().filter(|t| has_term(terms, t)).count();
    let needed = ((topic.len() as f64 * TOPIC_COVERAGE).ceil() as usize).max(topic.len().min(2));
    matched >= needed
}

/// `scoped-forget` among the built-in systems.
pub const ENTRY: super::Entry = super::Entry {
    name: "scoped-forget",
    make: || Box::<ScopedForget>::default(),
    settings: || {
        super::bm25_settings(serde_json::json!({
            "deletion": "scoped",
            "granularity": "sentence",
            "recogniser": "rules",
            "inference": "suppression",
            "stores": "user sentences",
        }))
    },
};

/// The scoped forgetter; see the module documentation.
#[derive(Debug, Clone, Default)]
pub struct ScopedForget {
    spaces: Spaces<Space>,
}

impl MemorySystem for ScopedForget {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.spaces.reset(ns);
        Ok(())
    }

    fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        let space = self.spaces.get(ns);
        space.today = YearMonth::parse(&session.date).or(space.today);
        space.clock.session(&session.date);
        space.last_turn = None;
        Ok(())
    }

    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.spaces.get(ns).observe(&turn.user);
        Ok(())
    }

    fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        Ok(self
            .spaces
            .peek(ns)
            .map_or(Reply::Memories(Vec::new()), |s| s.query(question)))
    }
}
