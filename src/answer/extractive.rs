//! The extractive reader's work: the sentences of memories read once per pass and
//! indexed by word, the candidate values they hold, and the choice of the best
//! supported sentence or value for a question ([`Extractive`]).

use super::*;

/// The texts of `memories` least preferred first, the order [`Extractive::respond`]
/// reads them in (the later of near-tied sentences wins): memories with a time oldest
/// first, after those without one; memories without a time (and memories of the same
/// time) in reverse list order, since the list is best first. So the same memories
/// give the same answer best first or in learnt order when they carry times.
pub fn reading_order(memories: &[Memory]) -> Vec<String> {
    ordered(memories)
        .into_iter()
        .map(|m| m.text.clone())
        .collect()
}

/// The memories in reading order (see [`reading_order`]).
pub(super) fn ordered(memories: &[Memory]) -> Vec<&Memory> {
    let mut ordered: Vec<&Memory> = memories.iter().rev().collect();
    // Stable, like `sort_by_key`, with each time read once.
    ordered.sort_by_cached_key(|m| m.time_key());
    ordered
}

/// A candidate answer sentence, tokenised once.
#[derive(Debug)]
pub(super) struct Candidate {
    pub(super) text: String,
    /// Distinct stemmed content terms, sorted (looked up by binary search).
    pub(super) terms: Vec<String>,
    pub(super) asks: bool,
    pub(super) first_person: bool,
    /// Its terms and the words the lexicon relates to them
    /// ([`lexicon::alternatives`]), sorted: a question word among them is matched,
    /// itself or through the lexicon.
    pub(super) reach: Vec<String>,
    /// The typed values the sentence holds ([`values::spans`]).
    pub(super) values: Vec<Value>,
    /// Who said it, when the memory labels its speakers: `Some(true)` for the user.
    pub(super) by_user: Option<bool>,
}

impl Candidate {
    /// Whether the sentence holds the (stemmed) term.
    pub(super) fn has(&self, term: &str) -> bool {
        self.terms
            .binary_search_by(|t| t.as_str().cmp(term))
            .is_ok()
    }

    /// Whether the sentence holds the (stemmed) term or a word of the lexicon that
    /// matches it ([`lexicon::alternatives`]).
    pub(super) fn has_any(&self, term: &str) -> bool {
        self.reach
            .binary_search_by(|t| t.as_str().cmp(term))
            .is_ok()
    }

    /// The first value of a kind the question wants that is not itself what the
    /// question names (`q`, its stemmed terms: "Granite Ledger Partners" does not
    /// answer "What is my partner's name?"); a place is introduced by a preposition
    /// ("at Brightloop", "in Leeds").
    pub(super) fn value_for(&self, want: Want, q: &[String]) -> Option<&values::Span> {
        self.values
            .iter()
            .find(|v| {
                want.accepts(v.span.kind)
                    && !v.terms.iter().any(|t| q.contains(t))
                    && (want != Want::Place || v.after_place_lead)
            })
            .map(|v| &v.span)
    }
}

/// A typed value of a sentence, with what the reader checks of it.
#[derive(Debug)]
pub(super) struct Value {
    pub(super) span: values::Span,
    /// Its words, stemmed.
    pub(super) terms: Vec<String>,
    /// Whether a place preposition comes before it, past any determiner ("in the …").
    pub(super) after_place_lead: bool,
}

impl Value {
    pub(super) fn new(sentence: &str, span: values::Span) -> Value {
        let before = sentence[..span.start]
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .rev()
            .find(|w| !matches!(w.as_str(), "the" | "a" | "an" | "my" | "our"))
            .unwrap_or_default();
        Value {
            terms: text::tokenize(&sentence[span.start..span.end])
                .iter()
                .map(|t| text::stem(t))
                .collect(),
            after_place_lead: PLACE_LEADS.contains(&before.as_str()),
            span,
        }
    }
}

/// Prepositions that introduce a place or an organisation one is at.
pub(super) const PLACE_LEADS: &[&str] = &[
    "at", "in", "for", "from", "to", "near", "on", "into", "outside", "around", "by", "with",
];

/// The speaker a sentence's label names: `Some(true)` for `User:`, `Some(false)` for
/// `Assistant:`, `None` without a label.
pub(super) fn speaker(sentence: &str) -> Option<bool> {
    let lower = sentence.get(..10).unwrap_or(sentence).to_ascii_lowercase();
    if lower.starts_with("user:") {
        Some(true)
    } else if lower.starts_with("assistant:") {
        Some(false)
    } else {
        None
    }
}

/// Strips a leading speaker label (`User:`, `Assistant:`).
pub(super) fn strip_label(sentence: &str) -> &str {
    for label in ["User:", "Assistant:", "user:", "assistant:"] {
        if let Some(rest) = sentence.strip_prefix(label) {
            return rest.trim_start();
        }
    }
    sentence
}

/// The candidate sentences of one memory.
pub(super) fn sentences_of(memory: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut by_user = None;
    for sentence in text::split_sentences(memory) {
        if let Some(user) = speaker(&sentence) {
            by_user = Some(user);
        }
        let sentence = strip_label(&sentence).to_string();
        let mut tokens = text::tokenize(&sentence);
        lexicon::plain_idioms(&mut tokens);
        let mut terms: Vec<String> = tokens
            .iter()
            .filter(|t| !text::is_stop_word(t))
            .map(|t| text::stem(t))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        if terms.is_empty() {
            continue;
        }
        out.push(Candidate {
            asks: sentence.trim_end().ends_with('?'),
            first_person: tokens.iter().any(|t| FIRST_PERSON.contains(&t.as_str())),
            reach: {
                let mut reach: Vec<String> = terms
                    .iter()
                    .flat_map(|t| std::iter::once(t).chain(lexicon::alternatives(t)))
                    .cloned()
                    .collect();
                reach.sort_unstable();
                reach.dedup();
                reach
            },
            values: values::spans(&sentence)
                .into_iter()
                .map(|span| Value::new(&sentence, span))
                .collect(),
            text: sentence,
            terms,
            by_user,
        });
    }
    out
}

/// The extractive reader's sentences of one pass's memories, each memory split and
/// tokenised once for the instance, kept in its [`ReadingCache`]. An async lock: the
/// answers of one instance read it in turn, and a task waiting for it leaves its
/// thread to other instances.
#[derive(Debug, Default)]
pub(super) struct PassSentences(pub(super) tokio::sync::Mutex<SentencesOfPass>);

/// The sentences of a pass's memories, numbered in the order their memories were first
/// seen, with the sentences that hold each word.
#[derive(Debug, Default)]
pub(super) struct SentencesOfPass {
    pub(super) ids: pass::MemoryIds,
    /// The sentences of each memory, by memory id.
    pub(super) sentences: Vec<Arc<[Candidate]>>,
    /// The number of each memory's first sentence, by memory id.
    pub(super) first: Vec<usize>,
    /// How many sentences there are.
    pub(super) count: usize,
    /// The sentences whose terms hold a term ([`Candidate::has`]).
    pub(super) terms: pass::FastMap<String, Vec<u32>>,
    /// The sentences whose terms or related words hold a term ([`Candidate::has_any`]).
    pub(super) reach: pass::FastMap<String, Vec<u32>>,
}

impl SentencesOfPass {
    /// The memory ids of `texts`, in order, splitting, tokenising and indexing the
    /// memories not seen before.
    pub(super) fn add<'a>(&mut self, texts: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        let (ids, fresh) = self.ids.resolve(texts);
        for id in fresh {
            let sentences: Arc<[Candidate]> = Arc::from(sentences_of(self.ids.text(id)));
            self.first.push(self.count);
            for c in sentences.iter() {
                let number = u32::try_from(self.count).expect("fewer than 2^32 sentences");
                for t in &c.terms {
                    self.terms.entry(t.clone()).or_default().push(number);
                }
                for t in &c.reach {
                    self.reach.entry(t.clone()).or_default().push(number);
                }
                self.count += 1;
            }
            self.sentences.push(sentences);
        }
        ids
    }

    /// The sentences of each of `texts`, in order (see [`SentencesOfPass::add`]).
    #[cfg(test)]
    pub(super) fn of<'a>(
        &mut self,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Vec<Arc<[Candidate]>> {
        self.add(texts)
            .into_iter()
            .map(|id| self.sentences[id as usize].clone())
            .collect()
    }
}

/// How a reading finds the sentences that hold a word: by looking at each, or through
/// the index of its pass.
pub(super) enum Finder<'a> {
    Scan,
    Index {
        pass: &'a SentencesOfPass,
        /// The place in reading order of each sentence of the pass where its memory is
        /// first given to this question, `u32::MAX` for those not given.
        place: Vec<u32>,
        /// The memories given again after their first place (a transcript may hold
        /// the same exchange twice): the number of their first sentence in the pass,
        /// their number of sentences, and the place of their first sentence there.
        again: Vec<(usize, usize, u32)>,
    },
}

impl<'a> Finder<'a> {
    /// A finder through `pass`'s index for the memories `ids` (in reading order).
    pub(super) fn new(pass: &'a SentencesOfPass, ids: &[u32]) -> Finder<'a> {
        let mut place = vec![u32::MAX; pass.count];
        let mut again = Vec::new();
        let mut at = 0u32;
        for &id in ids {
            let first = pass.first[id as usize];
            let count = pass.sentences[id as usize].len();
            let slots = &mut place[first..first + count];
            if slots.first().is_some_and(|&slot| slot != u32::MAX) {
                again.push((first, count, at));
            } else {
                for (slot, p) in slots.iter_mut().zip(at..) {
                    *slot = p;
                }
            }
            at += u32::try_from(count).expect("fewer than 2^32 sentences");
        }
        Finder::Index { pass, place, again }
    }

    /// The places (ascending) of the sentences among `placed` that hold `term` itself
    /// (`itself`) or also through the lexicon.
    pub(super) fn holding(&self, term: &str, itself: bool, placed: &[Placed<'_>]) -> Vec<usize> {
        match self {
            Finder::Scan => (0..placed.len())
                .filter(|&i| {
                    let c = placed[i].candidate;
                    if itself { c.has(term) } else { c.has_any(term) }
                })
                .collect(),
            Finder::Index { pass, place, again } => {
                let postings = if itself { &pass.terms } else { &pass.reach };
                let mut found: Vec<usize> = Vec::new();
                for &n in postings.get(term).into_iter().flatten() {
                    let n = n as usize;
                    if place[n] != u32::MAX {
                        found.push(place[n] as usize);
                    }
                    for &(first, count, at) in again {
                        if (first..first + count).contains(&n) {
                            found.push(at as usize + (n - first));
                        }
                    }
                }
                found.sort_unstable();
                found
            }
        }
    }
}

/// The last of the best-scored items: among scores within [`TIE_MARGIN`] of the
/// best, the later one wins.
pub(super) fn latest_best<T: Copy>(scored: &[(f64, T)]) -> Option<T> {
    let top = scored
        .iter()
        .map(|(s, _)| *s)
        .fold(f64::NEG_INFINITY, f64::max);
    scored
        .iter()
        .rev()
        .find(|(s, _)| *s >= top - TIE_MARGIN)
        .map(|(_, c)| *c)
}

/// Rarity weights in [1, 2] from how many of `n` sentences hold each term (`df`).
pub(super) fn rarity(df: &[usize], n: usize) -> Vec<f64> {
    let n = n as f64;
    df.iter()
        .map(|&df| 1.0 + (1.0 + n / (1.0 + df as f64)).ln() / (1.0 + n).ln().max(f64::EPSILON))
        .collect()
}

/// A candidate sentence in reading order, with the memory it comes from.
#[derive(Clone, Copy)]
pub(super) struct Placed<'a> {
    /// Index of its memory in reading order.
    pub(super) memory: usize,
    /// The time of its memory, if given.
    pub(super) time: Option<&'a str>,
    pub(super) candidate: &'a Candidate,
}

/// How many sentences after a sentence the reader looks for the value it lacks (the
/// reply to a question, or the next turn: "Our dog!" … "Pickle.").
pub const LOOK_AHEAD: usize = 4;

/// The score a sentence holding the wanted kind of value gains; one whose value is
/// stated just after it gains [`NEIGHBOUR_VALUE`].
pub const OWN_VALUE: f64 = 0.15;

/// The score gained by a sentence whose wanted value follows it (see [`LOOK_AHEAD`]).
pub const NEIGHBOUR_VALUE: f64 = 0.1;

/// Whether two placed sentences are close enough in the dialogue for one to continue
/// the other: from the same memory, or from memories next to each other in reading
/// order and said the same day (or without times).
pub(super) fn adjacent(a: &Placed<'_>, b: &Placed<'_>) -> bool {
    if a.memory == b.memory {
        return true;
    }
    b.memory == a.memory + 1
        && match (a.time, b.time) {
            (Some(x), Some(y)) => x.get(..10) == y.get(..10),
            (None, None) => true,
            _ => false,
        }
}

/// The sentence after `at` that states what `at` leaves open: for a question wanting a
/// typed value, the next close sentence holding one; for another question whose best
/// match is itself a question, the reply to it (the next close sentence by the other
/// speaker that asks nothing).
pub(super) fn follow_up(
    placed: &[Placed<'_>],
    at: usize,
    want: Want,
    q: &[String],
) -> Option<usize> {
    let here = &placed[at];
    let mut previous = here;
    for (j, next) in placed.iter().enumerate().skip(at + 1).take(LOOK_AHEAD) {
        if !adjacent(previous, next) {
            return None;
        }
        previous = next;
        let c = next.candidate;
        if want == Want::Other {
            // The user's reply to the assistant's question.
            if here.candidate.asks && here.candidate.by_user == Some(false) {
                if c.by_user == Some(true) && !c.asks {
                    return Some(j);
                }
            } else {
                return None;
            }
        } else if c.value_for(want, q).is_some() {
            return Some(j);
        }
    }
    None
}

/// The close sentences before the one at `at`, nearest first (at most
/// [`LOOK_AHEAD`], while [`adjacent`]).
pub(super) fn preceding<'p, 'a>(
    placed: &'p [Placed<'a>],
    at: usize,
) -> impl Iterator<Item = &'p Placed<'a>> {
    let mut next = &placed[at];
    placed[at.saturating_sub(LOOK_AHEAD)..at]
        .iter()
        .rev()
        .take_while(move |p| {
            let close = adjacent(p, next);
            next = p;
            close
        })
}

impl Extractive {
    /// The answer to `question` from `memories` (the synchronous body of
    /// [`Answerer::answer`]), texts without times, least preferred first.
    pub fn respond(question: &str, memories: &[String]) -> String {
        let read: Vec<(&str, Option<&str>)> = memories.iter().map(|m| (m.as_str(), None)).collect();
        Extractive::read(question, &read)
    }

    /// The answer to `question` from memories in reading order ([`reading_order`]),
    /// each a text and the time it was learnt, if known.
    pub(super) fn read(question: &str, memories: &[(&str, Option<&str>)]) -> String {
        let groups: Vec<Vec<Candidate>> = memories
            .iter()
            .map(|(text, _)| sentences_of(text))
            .collect();
        let groups: Vec<&[Candidate]> = groups.iter().map(Vec::as_slice).collect();
        Extractive::read_sentences(question, memories, &groups, &Finder::Scan)
    }

    /// [`Extractive::read`] with the sentences of each memory given (`groups`, one per
    /// memory, in the same order), and the way to find those that hold a word.
    pub(super) fn read_sentences(
        question: &str,
        memories: &[(&str, Option<&str>)],
        groups: &[&[Candidate]],
        finder: &Finder<'_>,
    ) -> String {
        let question = question.replace('\u{2019}', "'");
        let core = question_proper(&question);
        let placed: Vec<Placed<'_>> = groups
            .iter()
            .enumerate()
            .flat_map(|(memory, g)| {
                let time = memories[memory].1;
                g.iter().map(move |candidate| Placed {
                    memory,
                    time,
                    candidate,
                })
            })
            .collect();
        let candidates: Vec<&Candidate> = placed.iter().map(|p| p.candidate).collect();
        if let Some(statement) = yes_no_statement(&core) {
            return match Extractive::support(&statement, &placed, finder) {
                Some(sentence) => format!("Yes. {sentence}"),
                None => NO_SUPPORT.to_string(),
            };
        }
        let tokens = text::tokenize(&core);
        let want = want_of(&text::tokenize(asking_clause(&core)));
        let kind_words = kind_words(want);
        let q: Vec<String> = question_terms(&tokens)
            .into_iter()
            .filter(|t| !kind_words.contains(&t.as_str()) && !SORT_WORDS.contains(&t.as_str()))
            .collect();
        if q.is_empty() || candidates.is_empty() {
            return NO_INFORMATION.to_string();
        }
        let asks_about_me = tokens.iter().any(|t| FIRST_PERSON.contains(&t.as_str()));
        let context = context_terms(&question, &q);
        let kind = asked_kind(&tokens);
        let key = key_term(&tokens);
        // How each sentence holds each question word: 2 itself, 1 through the lexicon.
        let n = q.len();
        let mut hits = vec![0u8; candidates.len() * n];
        let mut df = vec![0usize; n];
        // The sentences that hold a question word, in reading order.
        let mut rows: Vec<usize> = Vec::new();
        for (k, t) in q.iter().enumerate() {
            let any = finder.holding(t, false, &placed);
            df[k] = any.len();
            for &i in &any {
                hits[i * n + k] = 1;
            }
            rows.extend(any);
            // A term of the sentence is also in its reach.
            for i in finder.holding(t, true, &placed) {
                hits[i * n + k] = 2;
            }
        }
        let weights = rarity(&df, candidates.len());
        let total: f64 = weights.iter().sum();
        let place_kind = want == Want::Place && kind.as_ref().is_some_and(|k| q.contains(k));
        if place_kind {
            // A named place may stand for the kind of place asked for: every sentence.
            rows = (0..placed.len()).collect();
        } else {
            rows.sort_unstable();
            rows.dedup();
        }
        // Each scored sentence with the sentence that gives the answer.
        let mut scored: Vec<(f64, usize)> = Vec::new();
        for i in rows {
            let p = &placed[i];
            let row = &hits[i * n..(i + 1) * n];
            if !place_kind && row.iter().all(|&h| h == 0) {
                continue;
            }
            let c = p.candidate;
            let valued = want != Want::Other && c.value_for(want, &q).is_some();
            // "Which city …": a named place stands for the word "city".
            let named_place = valued && want == Want::Place;
            let mut covered = 0.0;
            let mut matched = 0;
            for ((t, w), &hit) in q.iter().zip(&weights).zip(row) {
                if hit == 2 {
                    covered += w;
                    matched += 1;
                } else if hit == 1 || named_place && kind.as_ref() == Some(t) {
                    covered += w * LEXICON_MATCH;
                    matched += 1;
                }
            }
            let mut score = covered / total;
            if !named_place && kind.as_ref().is_some_and(|k| !c.has_any(k)) {
                score *= UNNAMED_KIND;
            }
            // A sentence holding the wanted kind of value needs only half the words.
            let enough_words = matched >= q.len().min(2)
                || key.as_ref().is_some_and(|k| c.has_any(k))
                || valued && score >= 0.5;
            if !enough_words || score < MIN_COVERAGE {
                continue;
            }
            let mut answer = i;
            if valued {
                score += OWN_VALUE;
            } else if let Some(j) = follow_up(&placed, i, want, &q) {
                score += NEIGHBOUR_VALUE;
                answer = j;
            } else {
                score *= want.unvalued();
                if c.asks {
                    score *= 0.8;
                }
            }
            if asks_about_me && c.first_person {
                score += 0.05;
            }
            if !context.is_empty() {
                let held = context.iter().filter(|t| c.has_any(t)).count();
                score += CONTEXT_BONUS * held as f64 / context.len() as f64;
            }
            scored.push((score, answer));
        }
        let Some(best) = latest_best(&scored) else {
            return NO_INFORMATION.to_string();
        };
        let p = &placed[best];
        let c = p.candidate;
        if want == Want::Duration
            && let Some(span) = c.value_for(want, &q)
            && span.kind == values::Kind::Date
            && let Some(now) = memories.iter().filter_map(|(_, t)| *t).max()
            && let Some(length) = values::elapsed(&c.text[span.start..span.end], now)
        {
            return format!("{} ({length})", c.text);
        }
        if matches!(want, Want::Time)
            && let Some(span) = c.value_for(want, &q)
            && let Some(time) = p.time
            && let Some(date) = values::resolve_date(&c.text[span.start..span.end], time)
        {
            return format!("{} ({date})", c.text);
        }
        c.text.clone()
    }

    /// The sentence that supports a yes/no statement, if any.
    ///
    /// The statement's value words are those after its last linking word, or all but
    /// its first content word when it has none. A sentence supports the statement when
    /// it holds at least [`VALUE_SHARE`] of the value words and matches the rest of the
    /// statement reasonably: it shares a word with it, or it covers at least
    /// [`CLAIM_COVERAGE`] of the whole statement's rarity-weighted words ("My phone is
    /// a Fairphone 5." supports "I use a Fairphone 5").
    pub(super) fn support(
        statement: &[String],
        placed: &[Placed<'_>],
        finder: &Finder<'_>,
    ) -> Option<String> {
        let split = statement
            .iter()
            .rposition(|t| LINKS.contains(&t.as_str()))
            .filter(|&i| !question_terms(&statement[i + 1..]).is_empty());
        let (head, tail) = match split {
            Some(i) => (
                question_terms(&statement[..i]),
                question_terms(&statement[i + 1..]),
            ),
            // No linking word ("I love Thai food"): the first content word is the
            // predicate, the rest the value.
            None => {
                let all = question_terms(statement);
                match all.len() {
                    0 => return None,
                    1 => (Vec::new(), all),
                    _ => (all[..1].to_vec(), all[1..].to_vec()),
                }
            }
        };
        let all = text::dedup(head.iter().chain(&tail).cloned().collect());
        // Rarity weights of the statement's words among the sentences.
        let df: Vec<usize> = all
            .iter()
            .map(|t| finder.holding(t, false, placed).len())
            .collect();
        let weights = rarity(&df, placed.len());
        let total: f64 = weights.iter().sum();
        // Only a sentence holding a value word can support the statement.
        let mut rows: Vec<usize> = tail
            .iter()
            .flat_map(|t| finder.holding(t, false, placed))
            .collect();
        rows.sort_unstable();
        rows.dedup();
        let mut scored: Vec<(f64, &Candidate)> = Vec::new();
        for i in rows {
            let c = placed[i].candidate;
            let tail_hits = tail.iter().filter(|t| c.has_any(t)).count();
            let tail_share = tail_hits as f64 / tail.len() as f64;
            if tail_share < VALUE_SHARE {
                continue;
            }
            let head_hits = head.iter().filter(|t| c.has_any(t)).count();
            let coverage = all
                .iter()
                .zip(&weights)
                .filter(|(t, _)| c.has_any(t))
                .map(|(_, w)| w)
                .sum::<f64>()
                / total;
            // The rest of the claim may be in the sentences just before the value
            // ("What's her name?" … "Juniper.").
            let said_before =
                || preceding(placed, i).any(|p| head.iter().any(|t| p.candidate.has_any(t)));
            if !head.is_empty() && head_hits == 0 && coverage < CLAIM_COVERAGE && !said_before() {
                continue;
            }
            scored.push((tail_share + coverage, c));
        }
        latest_best(&scored).map(|c| c.text.clone())
    }
}
