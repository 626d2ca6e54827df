//! Fidelity measures of a dataset: how much its text looks like real dialogue, and how
//! easy it is to game (spot the forget requests by their wording or length, answer the
//! questions by word overlap, find the retention question inside an attack).
//!
//! [`compute`] works on any [`Dataset`]; [`Fidelity`] serialises to the JSON that
//! `bemula stats --fidelity --json` prints and [`render_text`] draws the table. Every
//! measure is a plain count over the data, with a one-line definition; the targets are
//! what the built-in generator aims at, so `bemula stats --fidelity --check` can gate it.
//!
//! Whole texts and sentences are compared *normalised*: lower case, every run of
//! characters other than letters and digits read as one space. A value or question
//! inside a longer text is found as a run of whole words as [`crate::text::tokenize`]
//! writes them. Content words are [`crate::text::distinct_terms`] (stop-words removed,
//! lightly stemmed); sentences are [`crate::text::split_sentences`]. An *ordinary*
//! turn is a session turn that is not a request exchange; control fillers are not part
//! of the stored dialogue and are counted only by `filler_length_auc`, which sets them
//! against the ordinary exchanges they sit among in the control version.

mod measures;

use super::{Attack, Dataset, Fact, Instance, Question, RequestType, Suite, Turn};
use crate::text;
use measures::*;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// Default size of the distinct-n sample, in tokens per side: large enough to span many
/// instances of a generated set, so repetition across conversations shows (distinct-n
/// falls as a sample grows, so only equal sizes compare: measure a small hand-written
/// set and a generated one with the same `--sample-tokens`).
pub const DEFAULT_SAMPLE_TOKENS: usize = 50_000;

/// Seed of the distinct-n sample: whole ordinary turns drawn across every instance.
const SAMPLE_SEED: u64 = 0x5eed_f1de;

/// A sentence found in at least this share of the instances (and in two at least) is
/// a stock sentence for `cross_instance_sentences`.
const STOCK_INSTANCE_SHARE: f64 = 0.10;

/// Fewest words (after masking) of a sentence counted by `cross_instance_sentences`:
/// "Thanks!" and "Sounds good." are everyday English in any conversation.
const MIN_STOCK_WORDS: usize = 3;

/// The vocabulary of asking to forget, replacing and confirming it: a word or bigram
/// holding one of these is no surface tell, since requests and confirmations must use
/// it.
const REQUEST_VOCABULARY: &[&str] = &[
    "forget",
    "forgets",
    "forgot",
    "forgotten",
    "forgetting",
    "delete",
    "deleted",
    "deleting",
    "deletion",
    "erase",
    "erased",
    "remove",
    "removed",
    "removing",
    "wipe",
    "wiped",
    "purge",
    "purged",
    "scrub",
    "scrubbed",
    "discard",
    "discarded",
    "drop",
    "dropped",
    "memory",
    "memories",
    "remember",
    "remembered",
    "remembering",
    "record",
    "records",
    "recorded",
    "store",
    "stored",
    "keep",
    "keeping",
    "kept",
    "retain",
    "retained",
    "save",
    "saved",
    "note",
    "notes",
    "noted",
    "file",
    "files",
    "longer",
    "anymore",
    "replace",
    "replaced",
    "update",
    "updated",
    "change",
    "changed",
    "instead",
    "correct",
    "correction",
    "corrected",
    "mind",
    "done",
    "gone",
    "never",
    "again",
];

/// The token that replaces every occurrence of a profile fact's value before distinct-n
/// is counted (no tokenised text can hold `<`).
const VALUE_PLACEHOLDER: &str = "<value>";

/// Fewest words a sentence needs to count as a fixed-string tell of request exchanges:
/// short acknowledgements ("Of course.", "Understood.") are everyday English, not tells.
const MIN_TELL_WORDS: usize = 4;

/// Words whose presence in an ordinary user turn is counted by `deletion_words`.
const DELETION_WORDS: &[&str] = &[
    "delete",
    "erase",
    "remove",
    "wipe",
    "forget",
    "forgot",
    "forgotten",
    "memory",
];

/// Which side of a bound a measure's value must stay on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum Bound {
    /// The value must be at least the target.
    #[serde(rename = ">=")]
    AtLeast,
    /// The value must be at most the target.
    #[serde(rename = "<=")]
    AtMost,
    /// The value must be above the target and at most the target's `upper`.
    #[serde(rename = "in")]
    Between,
}

/// What the built-in generator aims at for one measure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Target {
    /// `>=` or `<=`.
    pub op: Bound,
    /// The bound; for `in`, the lower bound, itself excluded.
    pub value: f64,
    /// For `in` only: the upper bound, itself included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper: Option<f64>,
}

impl Target {
    fn at_least(value: f64) -> Option<Target> {
        Some(Target {
            op: Bound::AtLeast,
            value,
            upper: None,
        })
    }

    fn at_most(value: f64) -> Option<Target> {
        Some(Target {
            op: Bound::AtMost,
            value,
            upper: None,
        })
    }

    /// Above `lower` and at most `upper`: the interval (lower, upper].
    fn between(lower: f64, upper: f64) -> Option<Target> {
        Some(Target {
            op: Bound::Between,
            value: lower,
            upper: Some(upper),
        })
    }

    /// Whether `value` meets the target.
    pub fn met_by(&self, value: f64) -> bool {
        // A share computed as a ratio may land a rounding error beside an exact bound.
        const EPS: f64 = 1e-12;
        match self.op {
            Bound::AtLeast => value >= self.value - EPS,
            Bound::AtMost => value <= self.value + EPS,
            Bound::Between => {
                value > self.value + EPS && self.upper.is_none_or(|u| value <= u + EPS)
            }
        }
    }

    /// The target as it is printed: `≥ 0.8`, `≤ 0.05`, `(0.3, 0.7]`.
    fn render(&self) -> String {
        match (self.op, self.upper) {
            (Bound::AtLeast, _) => format!("≥ {}", self.value),
            (Bound::AtMost, _) => format!("≤ {}", self.value),
            (Bound::Between, Some(upper)) => format!("({}, {upper}]", self.value),
            (Bound::Between, None) => format!("> {}", self.value),
        }
    }
}

/// How far from 0.5 (no separation at all) a length AUC may lie: a system that finds
/// requests or fillers by length alone must do little better than chance.
const LENGTH_AUC_TARGET: (f64, f64) = (0.3, 0.7);

/// Most ordinary user turns a deletion word may appear in: real dialogue uses one in
/// under one turn in a hundred, and more is a tell that a turn with one is ordinary.
/// Some must (the lower bound, excluded, is 0) so that a system deleting on any
/// such word is caught.
const DELETION_WORDS_TARGET: f64 = 0.05;

/// One fidelity measure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measure {
    /// Stable snake_case name, e.g. `distinct_4_user`.
    pub name: &'static str,
    /// What is counted, in one line.
    pub definition: String,
    /// The value: a share from 0 to 1 (an AUC for the `*_length_auc` measures); `null` when the
    /// data holds nothing to measure (no requests of the kind, no such questions).
    pub value: Option<f64>,
    /// The numerator of a share, where the value is one.
    pub count: Option<usize>,
    /// The denominator of a share, where the value is one.
    pub total: Option<usize>,
    /// The generator's target, if the measure has one.
    pub target: Option<Target>,
    /// Whether the value meets the target; `null` without a target or a value.
    pub met: Option<bool>,
}

impl Measure {
    fn share(
        name: &'static str,
        definition: String,
        count: usize,
        total: usize,
        target: Option<Target>,
    ) -> Measure {
        let value = (total > 0).then(|| count as f64 / total as f64);
        Measure {
            name,
            definition,
            value,
            count: Some(count),
            total: Some(total),
            target,
            met: target.zip(value).map(|(t, v)| t.met_by(v)),
        }
    }

    fn plain(
        name: &'static str,
        definition: String,
        value: Option<f64>,
        target: Option<Target>,
    ) -> Measure {
        Measure {
            name,
            definition,
            value,
            count: None,
            total: None,
            target,
            met: target.zip(value).map(|(t, v)| t.met_by(v)),
        }
    }
}

/// The fidelity measures of one dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fidelity {
    /// Where the data came from.
    pub source: String,
    /// Number of instances measured.
    pub instances: usize,
    /// Requested size of the distinct-n sample, in tokens per side.
    pub sample_tokens: usize,
    /// The measures, in a fixed order.
    pub measures: Vec<Measure>,
}

impl Fidelity {
    /// The measure called `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Measure> {
        self.measures.iter().find(|m| m.name == name)
    }

    /// The measures whose value misses their target.
    pub fn missed(&self) -> impl Iterator<Item = &Measure> {
        self.measures.iter().filter(|m| m.met == Some(false))
    }
}

/// A token sequence, lower case, punctuation dropped.
type Words = Vec<String>;

/// Whether `needle` occurs as a contiguous run of words in `hay`.
fn contains_words(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// The normal form compared for equality: lower case, every run of characters other
/// than letters and digits one space, no space at either end.
pub(crate) fn normal(text: &str) -> String {
    if !text.is_ascii() {
        return normal_chars(text);
    }
    // The same rule on bytes: several times faster, and most text is ASCII. Every
    // byte is written, its lower-case letter or digit or a space, and the end moves
    // past it unless it is a space after a space (or at the start): no branch on the
    // kind of byte, which text switches every few bytes (the generator normalises
    // every sentence it composes).
    let bytes = text.as_bytes();
    let mut out = vec![0; bytes.len()];
    let mut end = 0;
    let mut after_word = false;
    for &b in bytes {
        let lower = ASCII_WORD_LOWER[usize::from(b)];
        let word = lower != 0;
        out[end] = if word { lower } else { b' ' };
        end += usize::from(word | after_word);
        after_word = word;
    }
    if end > 0 && out[end - 1] == b' ' {
        end -= 1;
    }
    out.truncate(end);
    String::from_utf8(out).expect("ASCII bytes are UTF-8")
}

/// Each ASCII letter or digit's lower case; 0 for any other byte.
const ASCII_WORD_LOWER: [u8; 256] = {
    let mut table = [0; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() {
            table[b] = byte.to_ascii_lowercase();
        }
        b += 1;
    }
    table
};

/// [`normal`] for any text.
fn normal_chars(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Normal-form phrases indexed by their first word, to find them in a normal-form text.
struct Phrases<'a> {
    by_head: HashMap<&'a str, Vec<&'a str>>,
    /// Whether some phrase starts with this byte.
    first_bytes: [bool; 256],
    /// Bit `n` set: some phrase's first word is `n` bytes long (words of 64 bytes or more
    /// are always looked up).
    lengths: u64,
}

impl<'a> Phrases<'a> {
    fn new(phrases: impl IntoIterator<Item = &'a str>) -> Phrases<'a> {
        let mut by_head: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut first_bytes = [false; 256];
        let mut lengths = 0u64;
        for phrase in phrases.into_iter().filter(|p| !p.is_empty()) {
            let head = phrase.split(' ').next().unwrap_or(phrase);
            first_bytes[head.as_bytes()[0] as usize] = true;
            lengths |= if head.len() < 64 {
                1 << head.len()
            } else {
                u64::MAX
            };
            by_head.entry(head).or_default().push(phrase);
        }
        Phrases {
            by_head,
            first_bytes,
            lengths,
        }
    }

    /// Whether `normal_text` (a [`normal`] form) holds one of the phrases as whole words.
    fn found_in(&self, normal_text: &str) -> bool {
        let bytes = normal_text.as_bytes();
        let mut start = 0;
        while start < bytes.len() {
            let end = bytes[start..]
                .iter()
                .position(|&b| b == b' ')
                .map_or(bytes.len(), |i| start + i);
            // A cheap test of the word's first byte and length before the lookup.
            let (first, len) = (bytes[start], end - start);
            if self.first_bytes[first as usize]
                && (len >= 64 || self.lengths & (1 << len) != 0)
                && let Some(phrases) = self.by_head.get(&normal_text[start..end])
            {
                let rest = &normal_text[start..];
                if phrases.iter().any(|p| {
                    rest.starts_with(p) && matches!(rest.as_bytes().get(p.len()), None | Some(b' '))
                }) {
                    return true;
                }
            }
            start = end + 1;
        }
        false
    }
}

/// Whether `text`, lower-cased, contains any of `needles` (a cheap test that lets the
/// exact, slower test run only where it can succeed).
fn may_contain(text: &str, needles: &[String]) -> bool {
    let lower = text.to_lowercase();
    needles.iter().any(|n| lower.contains(n.as_str()))
}

/// Replaces every run of words equal to one of `values` (longest first) by
/// [`VALUE_PLACEHOLDER`].
fn mask(words: Words, values: &[Words]) -> Words {
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    'scan: while i < words.len() {
        for value in values {
            if words[i..].starts_with(value) {
                out.push(VALUE_PLACEHOLDER.to_string());
                i += value.len();
                continue 'scan;
            }
        }
        out.push(words[i].clone());
        i += 1;
    }
    out
}

/// Share of distinct n-grams among the n-grams of `segments` (n-grams never cross a
/// segment boundary): (distinct, all).
fn distinct_ngrams(segments: &[Words], n: usize) -> (usize, usize) {
    let mut seen: HashSet<&[String]> = HashSet::new();
    let mut all = 0;
    for segment in segments {
        for gram in segment.windows(n) {
            all += 1;
            seen.insert(gram);
        }
    }
    (seen.len(), all)
}

/// The first `budget` words of `turns`, in their order, each turn's text turned into
/// words by `words` only when it is reached; the last turn is cut short.
fn sample<T>(
    turns: impl IntoIterator<Item = T>,
    budget: usize,
    words: impl Fn(T) -> Words,
) -> Vec<Words> {
    let mut left = budget;
    let mut out = Vec::new();
    for turn in turns {
        if left == 0 {
            break;
        }
        let mut words = words(turn);
        words.truncate(left);
        left -= words.len();
        out.push(words);
    }
    out
}

/// AUC of `score` separating `positives` from `negatives`: the chance that a random
/// positive scores above a random negative, ties counted half (Mann–Whitney U).
fn auc(positives: &[usize], negatives: &[usize]) -> Option<f64> {
    if positives.is_empty() || negatives.is_empty() {
        return None;
    }
    let mut all: Vec<(usize, bool)> = positives
        .iter()
        .map(|&x| (x, true))
        .chain(negatives.iter().map(|&x| (x, false)))
        .collect();
    all.sort_unstable();
    let mut rank_sum = 0.0;
    let mut i = 0;
    while i < all.len() {
        let mut j = i;
        while j < all.len() && all[j].0 == all[i].0 {
            j += 1;
        }
        // Ranks i+1 ..= j share their mean.
        let mean_rank = (i + 1 + j) as f64 / 2.0;
        rank_sum += mean_rank * all[i..j].iter().filter(|(_, p)| *p).count() as f64;
        i = j;
    }
    let (p, n) = (positives.len() as f64, negatives.len() as f64);
    Some((rank_sum - p * (p + 1.0) / 2.0) / (p * n))
}

/// One instance, indexed for the measures.
struct Indexed<'a> {
    instance: &'a Instance,
    facts: HashMap<&'a str, &'a Fact>,
    /// Fact values as words, longest first.
    values: Vec<Words>,
    /// `requests_at[session][turn]`: whether that turn is a request exchange.
    request_at: Vec<Vec<bool>>,
}

impl<'a> Indexed<'a> {
    fn new(instance: &'a Instance) -> Indexed<'a> {
        let all_facts = instance
            .profile
            .facts
            .iter()
            .chain(&instance.profile.derived_facts);
        let facts: HashMap<&str, &Fact> = all_facts.clone().map(|f| (f.id.as_str(), f)).collect();
        let mut values: Vec<Words> = all_facts
            .map(|f| text::tokenize(&f.value))
            .filter(|w| !w.is_empty())
            .collect();
        values.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        values.dedup();
        let mut request_at: Vec<Vec<bool>> = instance
            .sessions
            .iter()
            .map(|s| vec![false; s.turns.len()])
            .collect();
        for request in &instance.requests {
            if let Some(s) = instance
                .sessions
                .iter()
                .position(|s| s.id == request.position.session)
                && let Some(slot) = request_at[s].get_mut(request.position.turn)
            {
                *slot = true;
            }
        }
        Indexed {
            instance,
            facts,
            values,
            request_at,
        }
    }

    fn value_words(&self, fact: &str) -> Option<Words> {
        self.facts
            .get(fact)
            .map(|f| text::tokenize(&f.value))
            .filter(|w| !w.is_empty())
    }

    /// Every ordinary turn: (session index, turn index, turn).
    fn ordinary(&self) -> impl Iterator<Item = (usize, usize, &'a Turn)> + '_ {
        self.instance
            .sessions
            .iter()
            .enumerate()
            .flat_map(move |(s, session)| {
                session
                    .turns
                    .iter()
                    .enumerate()
                    .filter(move |(t, _)| !self.request_at[s][*t])
                    .map(move |(t, turn)| (s, t, turn))
            })
    }
}

/// Computes every fidelity measure of `dataset`, the distinct-n shares on a sample of
/// `sample_tokens` tokens a side.
pub fn compute(dataset: &Dataset, sample_tokens: usize) -> Fidelity {
    let indexed: Vec<Indexed> = dataset.instances.iter().map(Indexed::new).collect();
    let mut measures = Vec::new();
    distinct_n(&indexed, sample_tokens, &mut measures);
    measures.push(repeated_user_sentences(&indexed));
    measures.push(cross_instance_sentences(&indexed));
    measures.extend(surface_tells(&indexed));
    measures.extend(confirmations(&indexed));
    measures.push(request_fixed_strings(&indexed));
    measures.extend(length_aucs(&indexed));
    measures.push(requests_restating_value(&indexed));
    measures.push(question_disclosure_overlap(&indexed));
    measures.push(relearning_differs(&indexed));
    measures.push(multi_hop_contains_retention(&indexed));
    measures.push(deletion_words(&indexed));
    measures.push(assistant_restates_value(&indexed));
    measures.push(persona_contradictions(&indexed));
    measures.push(shared_identifying_values(&indexed));
    Fidelity {
        source: dataset.source.clone(),
        instances: dataset.instances.len(),
        sample_tokens,
        measures,
    }
}

/// One side of an exchange.
type Side = fn(&Turn) -> &str;

/// The measures as a plain-text table, each with its definition beneath.
pub fn render_text(fidelity: &Fidelity) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Fidelity of {}: {} instances, distinct-n on {} tokens a side\n",
        fidelity.source, fidelity.instances, fidelity.sample_tokens
    );
    let mut rows = vec![
        ["measure", "value", "count", "target", "met"]
            .map(String::from)
            .to_vec(),
    ];
    for m in &fidelity.measures {
        rows.push(vec![
            m.name.to_string(),
            m.value.map_or("–".into(), |v| format!("{v:.3}")),
            match (m.count, m.total) {
                (Some(c), Some(t)) => format!("{c}/{t}"),
                _ => String::new(),
            },
            m.target.map_or(String::new(), |t| t.render()),
            match m.met {
                Some(true) => "yes".into(),
                Some(false) => "NO".into(),
                None => String::new(),
            },
        ]);
    }
    let table = super::stats::table(&rows);
    let mut lines = table.lines();
    if let Some(header) = lines.next() {
        let _ = writeln!(out, "{header}");
    }
    for (line, m) in lines.zip(&fidelity.measures) {
        let _ = writeln!(out, "{line}\n    {}", m.definition);
    }
    let with_target = fidelity.measures.iter().filter(|m| m.met.is_some()).count();
    let missed = fidelity.missed().count();
    let _ = writeln!(
        out,
        "\n{} of {with_target} targets met (targets: the built-in generator's goals)",
        with_target - missed
    );
    out
}

#[cfg(test)]
mod tests;
