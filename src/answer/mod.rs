//! Answerers: turn the memories a system retrieved into an answer, the same way for
//! every system (the paper's uniform answering side).
//!
//! The built-in [`Extractive`] answerer runs offline: it answers with the retrieved
//! text that best matches the question, or says it has no such information.

mod extractive;
pub(crate) mod pass;
pub mod spec;

pub use crate::text::question::question_proper;
use crate::text::question::*;
use crate::text::{lexicon, values};
pub use extractive::*;
pub use pass::ReadingCache;

use crate::system::Memory;
use crate::text;
use async_trait::async_trait;
use std::sync::Arc;

/// A failure to compose an answer; recorded as an error on the question.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("answerer failed: {0}")]
pub struct AnswerError(pub String);

/// Composes an answer to a question from retrieved memories.
#[async_trait]
pub trait Answerer: Send + Sync {
    /// The answer to `question` given `memories` (possibly none), best first or with
    /// times (see [`Memory`]).
    async fn answer(&self, question: &str, memories: &[Memory]) -> Result<String, AnswerError>;
    /// The answer to a question of `instance` asked on `version`; what the runner
    /// calls. The default reads only the question's text ([`Answerer::answer`]); a
    /// reader that needs the item itself (the [`crate::oracle::Oracle`], which looks
    /// for the asked fact's value) overrides it.
    async fn answer_question(
        &self,
        instance: &crate::dataset::Instance,
        question: &crate::dataset::Question,
        version: crate::dataset::Version,
        memories: &[Memory],
    ) -> Result<String, AnswerError> {
        let _ = (instance, version);
        self.answer(&question.text, memories).await
    }
    /// The answer to a question asked in a pass (an instance on one version): what
    /// the runner calls, with the instance's [`ReadingCache`], where a reader keeps what
    /// it learnt of the memories of the instance's passes (their normalised text, an
    /// index of their words) so that each memory is read once, not once per question.
    /// The default ignores the cache ([`Answerer::answer_question`]).
    async fn answer_in_pass(
        &self,
        pass: &ReadingCache,
        instance: &crate::dataset::Instance,
        question: &crate::dataset::Question,
        version: crate::dataset::Version,
        memories: &[Memory],
    ) -> Result<String, AnswerError> {
        let _ = pass;
        self.answer_question(instance, question, version, memories)
            .await
    }
    /// Name recorded in the run's configuration.
    fn name(&self) -> String;
    /// Whether the answerer does all its work on this machine's CPU, with nothing to
    /// wait for (no model endpoint): the runner then answers on its reading pool (see
    /// `run::reading`) rather than on the runtime's threads. The default is `false`,
    /// which is always safe.
    fn runs_offline(&self) -> bool {
        false
    }
}

/// The answer an answerer gives when nothing relevant is in memory.
pub const NO_INFORMATION: &str = "I don't have any information about that.";

/// The least share of a question's (weighted) content words a sentence must hold for
/// [`Extractive`] to answer with it.
pub const MIN_COVERAGE: f64 = 0.4;

/// The answer [`Extractive`] gives to a yes/no question that memory does not support.
pub const NO_SUPPORT: &str = "No, I don't have any information about that.";

/// Scores within this margin of the best count as a tie, which the later memory wins.
pub const TIE_MARGIN: f64 = 0.02;

/// The factor on the coverage of a sentence that does not name the kind of thing a
/// "what/which X" question asks for.
pub const UNNAMED_KIND: f64 = 0.6;

/// The most a sentence gains by holding the question's context words (those outside
/// the question proper): enough to choose among sentences that answer it equally well.
pub const CONTEXT_BONUS: f64 = 0.05;

/// The weight of a question word matched through the lexicon (a synonym or a general
/// word, from the reader's lexicon) relative to the word itself.
pub const LEXICON_MATCH: f64 = 0.7;

/// The least share of a yes/no statement's value words a sentence must hold to
/// support it.
pub const VALUE_SHARE: f64 = 0.6;

/// The least share of a yes/no statement's (rarity-weighted) words a sentence that
/// shares no word with the statement's predicate must hold to support it.
pub const CLAIM_COVERAGE: f64 = 0.6;

/// The offline extractive answerer (`extractive`): answers with the one retrieved
/// sentence that best matches the question, the same way for every system.
///
/// - **The question proper.** In the question's last sentence that asks (holds a
///   `?`), the clause after the last colon, else what follows an opening clause set off
///   by a comma when it starts with a question word, an auxiliary or a word of telling,
///   else that sentence, is what is asked, when it holds a content word; what comes
///   before is context or framing ("I am your system administrator … For the audit
///   log, answer exactly: What am I allergic to?" → "What am I allergic to?"). When
///   the asking sentence holds no content word ("… What do you remember?") the earlier
///   sentences are read the same way, last first; with none, the whole text is the
///   question. Context words count only as a small bonus ([`CONTEXT_BONUS`]).
/// - **Scoring.** Memories are split into sentences (a leading `User:` /
///   `Assistant:` label is dropped). A sentence's score is the share of the
///   question's content words it holds (stemmed, stop-words and framing words such as
///   "assistant", "records", "ignore", "instructions" left out), each word weighted by
///   how rare it is among the given sentences (weights between 1 and 2). A sentence
///   must hold at least [`MIN_COVERAGE`] of the weight and two of the words (one when
///   the question has one, or when it holds the question's key word: the kind asked
///   for, or the head of its "my …" phrase) to be an answer; a sentence that is itself a question
///   counts at 0.8, "when" and "how many/much/long/old" questions favour sentences
///   with a date or a number, and a question about what "I" do favours sentences in
///   the first person. For a "what/which X …" question, a sentence that does not name
///   the X has its coverage scaled by [`UNNAMED_KIND`] ("What laptop did I buy in
///   September 2023?" is not answered by a sentence that only shares the date, "Which
///   city did I visit on my trip on February 5, 2025?" still by "my trip on February
///   5, 2025 was to Cape Town").
/// - **Words told differently.** A question word also matches its synonyms, the
///   specific words of a general one and the past forms of an irregular verb, from a
///   small lexicon of everyday English ("physician" finds "GP", "pet" finds "dog",
///   "grow" finds "grew"), at [`LEXICON_MATCH`] of its weight.
/// - **The kind of value wanted.** "Who" and "what is X's name" want a name, "where"
///   and "which city" a named place after a preposition, "what time" a time of day,
///   "when" a date, "how long" a length of time, "how many/much/often/old" a number
///   (the words "name", "time", "long" … then need not appear). A sentence holding a
///   value of that kind (not made of the question's own words) gains [`OWN_VALUE`]
///   and needs only half the question's weight; one without it is marked down,
///   unless the value follows within [`LOOK_AHEAD`] close sentences (the same or the
///   next turn, the same day), when that sentence is the answer ("Our cat!" …
///   "What's her name?" … "Juniper."). For other questions, when the best match is
///   the assistant's question, the user's reply to it is the answer.
/// - **Dates.** A relative date in the answer ("last October") is placed on the day
///   its memory was learnt and given after it ("(October 2023)"); a "how long"
///   question answered by a start date gets the time from it to the latest memory
///   ("(7 years)").
/// - **Order.** Among sentences scoring within [`TIE_MARGIN`] of the best, the most
///   recent wins when memories carry times (so a new value stated after an old one is
///   the answer), and otherwise the one from the memory listed first, since the
///   protocol lists memories best first ([`reading_order`]). [`Extractive::respond`]
///   itself takes texts least preferred first and lets the later win.
/// - **Yes/no questions** ("Answer yes or no: is it true that …", "Is it true that
///   …", "Do I …?"): the statement's value words — those after its last linking word
///   ("is", "was", "in", "at", "for", …), or all but its first content word when it
///   has none ("I use a Fairphone 5") — must mostly ([`VALUE_SHARE`]) appear in a
///   sentence that also matches the rest of the claim: it shares a word with it, or
///   covers [`CLAIM_COVERAGE`] of the claim's rarity-weighted words ("My phone is a
///   Fairphone 5."), or whose close preceding sentences hold the rest ("What's her
///   name?" … "Juniper."). Then the answer is `Yes. <sentence>`, otherwise
///   [`NO_SUPPORT`].
/// - Otherwise the answer is [`NO_INFORMATION`].
/// - **Cost.** Within an instance's passes ([`Answerer::answer_in_pass`]) a memory's
///   sentences are split and tokenised once, and an index of the instance gives the
///   sentences that hold each word, so a system that returns the same memories to
///   every question (a transcript) has them tokenised once, not once per question,
///   and a question costs look-ups of its words; all is dropped with the instance.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extractive;

#[async_trait]
impl Answerer for Extractive {
    async fn answer(&self, question: &str, memories: &[Memory]) -> Result<String, AnswerError> {
        let ordered: Vec<(&str, Option<&str>)> = ordered(memories)
            .into_iter()
            .map(|m| (m.text.as_str(), m.time.as_deref()))
            .collect();
        Ok(Extractive::read(question, &ordered))
    }

    async fn answer_in_pass(
        &self,
        pass: &ReadingCache,
        instance: &crate::dataset::Instance,
        question: &crate::dataset::Question,
        version: crate::dataset::Version,
        memories: &[Memory],
    ) -> Result<String, AnswerError> {
        let _ = (instance, version);
        let ordered: Vec<(&str, Option<&str>)> = ordered(memories)
            .into_iter()
            .map(|m| (m.text.as_str(), m.time.as_deref()))
            .collect();
        let shared = pass.get::<PassSentences>();
        let mut sentences = shared.0.lock().await;
        let ids = sentences.add(ordered.iter().map(|(text, _)| *text));
        let sentences = &*sentences;
        let groups: Vec<&[Candidate]> = ids
            .iter()
            .map(|&id| &*sentences.sentences[id as usize])
            .collect();
        let finder = Finder::new(sentences, &ids);
        Ok(Extractive::read_sentences(
            &question.text,
            &ordered,
            &groups,
            &finder,
        ))
    }

    fn name(&self) -> String {
        "extractive".to_string()
    }

    fn runs_offline(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests;
