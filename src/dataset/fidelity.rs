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

use super::{Attack, Dataset, Fact, Instance, Question, RequestType, Suite, Turn};
use crate::text;
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
    Fidelity {
        source: dataset.source.clone(),
        instances: dataset.instances.len(),
        sample_tokens,
        measures,
    }
}

fn distinct_n(indexed: &[Indexed], budget: usize, measures: &mut Vec<Measure>) {
    // Whole ordinary turns drawn at random (seeded) across every instance: the sample
    // shows repetition across conversations, not only inside the first one.
    let mut all: Vec<(&Indexed, &Turn)> = indexed
        .iter()
        .flat_map(|ix| ix.ordinary().map(move |(_, _, turn)| (ix, turn)))
        .collect();
    {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SAMPLE_SEED);
        all.shuffle(&mut rng);
    }
    let turns = || all.iter().copied();
    let masked = |side: fn(&Turn) -> &str| {
        move |(ix, turn): (&Indexed, &Turn)| mask(text::tokenize(side(turn)), &ix.values)
    };
    let sides = [
        ("user", sample(turns(), budget, masked(|t| &t.user))),
        (
            "assistant",
            sample(turns(), budget, masked(|t| &t.assistant)),
        ),
    ];
    const NAMES: [[&str; 4]; 2] = [
        [
            "distinct_1_user",
            "distinct_2_user",
            "distinct_3_user",
            "distinct_4_user",
        ],
        [
            "distinct_1_assistant",
            "distinct_2_assistant",
            "distinct_3_assistant",
            "distinct_4_assistant",
        ],
    ];
    const TARGETS: [f64; 2] = [0.85, 0.75];
    // The headline (n = 4) first, then n = 1..3.
    for (side, ((who, segments), names)) in sides.iter().zip(NAMES).enumerate() {
        let tokens: usize = segments.iter().map(Vec::len).sum();
        let short = if tokens < budget {
            format!(" (only {tokens} available)")
        } else {
            String::new()
        };
        for n in [4, 1, 2, 3] {
            let (distinct, all) = distinct_ngrams(segments, n);
            let definition = format!(
                "distinct {n}-grams / all {n}-grams in {tokens} tokens{short} of ordinary \
                 {who} turns drawn at random across all instances (seeded), fact values \
                 masked"
            );
            let target = (n == 4).then_some(TARGETS[side]).and_then(Target::at_least);
            measures.push(Measure::share(
                names[n - 1],
                definition,
                distinct,
                all,
                target,
            ));
        }
    }
}

fn repeated_user_sentences(indexed: &[Indexed]) -> Measure {
    let (mut repeated, mut total) = (0, 0);
    for ix in indexed {
        for session in &ix.instance.sessions {
            let mut seen = HashSet::new();
            for turn in &session.turns {
                for sentence in text::split_sentences(&turn.user) {
                    let sentence = normal(&sentence);
                    if sentence.is_empty() {
                        continue;
                    }
                    total += 1;
                    if !seen.insert(sentence) {
                        repeated += 1;
                    }
                }
            }
        }
    }
    Measure::share(
        "repeated_user_sentences",
        "user sentences that repeat (normalised) an earlier user sentence of the same \
         session / all user sentences"
            .into(),
        repeated,
        total,
        Target::at_most(0.0),
    )
}

/// A sentence with its specifics masked: fact values, numbers and names (a word in
/// capitals other than the first, or "I") read as placeholders, then normalised.
fn stock_form(sentence: &str, values: &[Words]) -> Words {
    let mut words: Vec<String> = Vec::new();
    for (i, raw) in sentence.split_whitespace().enumerate() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let capital = word.chars().next().is_some_and(char::is_uppercase);
        if word.chars().any(|c| c.is_ascii_digit()) {
            words.push("<n>".into());
        } else if i > 0 && capital && !(word == "I" || word.starts_with("I'")) {
            words.push("<name>".into());
        } else {
            words.extend(text::tokenize(raw));
        }
    }
    mask(words, values)
}

fn cross_instance_sentences(indexed: &[Indexed]) -> Measure {
    let threshold = ((STOCK_INSTANCE_SHARE * indexed.len() as f64).ceil() as usize).max(2);
    // Each instance's user turns as their masked sentences.
    let turns: Vec<Vec<Vec<Words>>> = indexed
        .iter()
        .map(|ix| {
            ix.instance
                .sessions
                .iter()
                .flat_map(|s| &s.turns)
                .map(|t| {
                    text::split_sentences(&t.user)
                        .iter()
                        .map(|s| stock_form(s, &ix.values))
                        .filter(|w| w.len() >= MIN_STOCK_WORDS)
                        .collect()
                })
                .collect()
        })
        .collect();
    let mut instances_of: HashMap<&[String], usize> = HashMap::new();
    for instance in &turns {
        let distinct: HashSet<&[String]> = instance.iter().flatten().map(Vec::as_slice).collect();
        for sentence in distinct {
            *instances_of.entry(sentence).or_default() += 1;
        }
    }
    let stock = |s: &Words| {
        instances_of
            .get(s.as_slice())
            .is_some_and(|&n| n >= threshold)
    };
    let all = turns.iter().map(Vec::len).sum();
    let holding = turns
        .iter()
        .flatten()
        .filter(|sentences| sentences.iter().any(stock))
        .count();
    Measure::share(
        "cross_instance_sentences",
        format!(
            "user turns holding a sentence of {MIN_STOCK_WORDS}+ words (numbers, names and \
             fact values masked) found in {threshold}+ instances ({:.0}% of them) / all \
             user turns",
            100.0 * STOCK_INSTANCE_SHARE
        ),
        holding,
        all,
        Target::at_most(0.05),
    )
}

/// The words and bigrams of `words` that hold no word of [`REQUEST_VOCABULARY`].
fn tell_grams(words: &[String]) -> HashSet<Vec<String>> {
    let plain = |w: &String| !REQUEST_VOCABULARY.contains(&w.as_str());
    let mut out = HashSet::new();
    for n in 1..=2 {
        for gram in words.windows(n) {
            if gram.iter().all(plain) {
                out.insert(gram.to_vec());
            }
        }
    }
    out
}

/// The largest share of `exchanges` (as their grams) covered by one gram that no
/// ordinary turn (`ordinary`, the same side) holds, with that gram; a gram of one
/// exchange only is no pattern.
fn widest_tell(
    exchanges: &[HashSet<Vec<String>>],
    ordinary: &HashSet<Vec<String>>,
) -> (usize, Option<String>) {
    let mut count: HashMap<&Vec<String>, usize> = HashMap::new();
    for grams in exchanges {
        for gram in grams.iter().filter(|g| !ordinary.contains(*g)) {
            *count.entry(gram).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        .map_or((0, None), |(gram, n)| (n, Some(gram.join(" "))))
}

/// One side of an exchange.
type Side = fn(&Turn) -> &str;

/// How far one word or bigram alone finds the requests, and the confirmations: the
/// largest share of request exchanges whose user side holds a word or bigram found in
/// no ordinary user turn (the deletion vocabulary itself set aside), and the same for
/// the assistant's confirmations against ordinary assistant turns.
fn surface_tells(indexed: &[Indexed]) -> [Measure; 2] {
    let sides: [(&str, &str, Side); 2] = [
        ("request_tell_coverage", "requests' user turns", |t| &t.user),
        (
            "confirmation_tell_coverage",
            "requests' assistant confirmations",
            |t| &t.assistant,
        ),
    ];
    sides.map(|(name, what, side)| {
        let mut ordinary = HashSet::new();
        for ix in indexed {
            for (_, _, turn) in ix.ordinary() {
                ordinary.extend(tell_grams(&text::tokenize(side(turn))));
            }
        }
        let exchanges: Vec<HashSet<Vec<String>>> = indexed
            .iter()
            .flat_map(|ix| &ix.instance.requests)
            .map(|r| tell_grams(&text::tokenize(side(&r.turn))))
            .collect();
        let (covered, gram) = widest_tell(&exchanges, &ordinary);
        let widest = gram.map_or(String::new(), |g| format!("; widest: \"{g}\""));
        Measure::share(
            name,
            format!(
                "{what} holding the one word or bigram (in 2+ of them, in no ordinary turn of \
                 that side, deletion vocabulary set aside) that covers the most / all{widest}"
            ),
            covered,
            exchanges.len(),
            Target::at_most(0.05),
        )
    })
}

fn confirmations(indexed: &[Indexed]) -> [Measure; 2] {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut total = 0;
    for ix in indexed {
        for request in &ix.instance.requests {
            total += 1;
            *counts.entry(normal(&request.turn.assistant)).or_default() += 1;
        }
    }
    let top = counts.values().copied().max().unwrap_or(0);
    let mut top_share = Measure::share(
        "confirmation_top_share",
        "request exchanges whose assistant reply is the most used one / request exchanges \
         (a reply used only once meets the target at any size)"
            .into(),
        top,
        total,
        Target::at_most(0.02),
    );
    // In a small set one request is already over 2%: a reply nobody else uses is no tell.
    if top == 1 {
        top_share.met = Some(true);
    }
    [
        Measure::share(
            "confirmation_distinct",
            "distinct (normalised) assistant replies of request exchanges / request exchanges"
                .into(),
            counts.len(),
            total,
            None,
        ),
        top_share,
    ]
}

fn request_fixed_strings(indexed: &[Indexed]) -> Measure {
    let exchanges: Vec<HashSet<String>> = indexed
        .iter()
        .flat_map(|ix| &ix.instance.requests)
        .map(|r| {
            [&r.turn.user, &r.turn.assistant]
                .into_iter()
                .flat_map(|side| text::split_sentences(side))
                .map(|s| normal(&s))
                .filter(|s| s.split(' ').count() >= MIN_TELL_WORDS)
                .collect()
        })
        .collect();
    let mut shared: HashMap<&str, usize> = HashMap::new();
    for sentences in &exchanges {
        for s in sentences {
            *shared.entry(s.as_str()).or_default() += 1;
        }
    }
    let mut tells: HashSet<&str> = shared
        .iter()
        .filter(|(_, n)| **n >= 2)
        .map(|(s, _)| *s)
        .collect();
    // A tell found in an ordinary turn is no tell. Only texts whose normal form holds a
    // tell somewhere are split into sentences to see whether one is a whole sentence.
    let candidates: Vec<String> = tells.iter().map(|s| s.to_string()).collect();
    let phrases = Phrases::new(candidates.iter().map(String::as_str));
    for ix in indexed {
        for (_, _, turn) in ix.ordinary() {
            for side in [&turn.user, &turn.assistant] {
                if tells.is_empty() || !phrases.found_in(&normal(side)) {
                    continue;
                }
                for sentence in text::split_sentences(side) {
                    tells.remove(normal(&sentence).as_str());
                }
            }
        }
    }
    let flagged = exchanges
        .iter()
        .filter(|sentences| sentences.iter().any(|s| tells.contains(s.as_str())))
        .count();
    Measure::share(
        "request_fixed_strings",
        format!(
            "request exchanges holding a sentence of {MIN_TELL_WORDS}+ words shared with another \
             request exchange and absent from every ordinary turn / request exchanges"
        ),
        flagged,
        exchanges.len(),
        Target::at_most(0.05),
    )
}

fn exchange_chars(turn: &Turn) -> usize {
    turn.user.chars().count() + turn.assistant.chars().count()
}

/// The AUCs of exchange length separating request exchanges (in the forget version)
/// and fillers (in the control version, where they take the requests' places) from
/// ordinary exchanges.
fn length_aucs(indexed: &[Indexed]) -> [Measure; 2] {
    let requests = || indexed.iter().flat_map(|ix| &ix.instance.requests);
    let ordinary: Vec<usize> = indexed
        .iter()
        .flat_map(|ix| ix.ordinary().map(|(_, _, t)| exchange_chars(t)))
        .collect();
    let exchanges: Vec<usize> = requests().map(|r| exchange_chars(&r.turn)).collect();
    let fillers: Vec<usize> = requests().map(|r| exchange_chars(&r.filler)).collect();
    let (low, high) = LENGTH_AUC_TARGET;
    let target = Target::between(low, high);
    [
        Measure::plain(
            "request_length_auc",
            "AUC of exchange length in characters separating request exchanges from \
             ordinary ones (0.5: indistinguishable; 0 or 1: fully separable)"
                .into(),
            auc(&exchanges, &ordinary),
            target,
        ),
        Measure::plain(
            "filler_length_auc",
            "AUC of exchange length in characters separating the control version's filler \
             exchanges from ordinary ones (0.5: indistinguishable; 0 or 1: fully separable)"
                .into(),
            auc(&fillers, &ordinary),
            target,
        ),
    ]
}

fn requests_restating_value(indexed: &[Indexed]) -> Measure {
    let (mut restating, mut total) = (0, 0);
    for ix in indexed {
        for request in &ix.instance.requests {
            if !matches!(
                request.kind,
                RequestType::F1 | RequestType::F2 | RequestType::F6
            ) {
                continue;
            }
            total += 1;
            let user = text::tokenize(&request.turn.user);
            if request
                .targets
                .iter()
                .filter_map(|t| ix.value_words(t))
                .any(|v| contains_words(&user, &v))
            {
                restating += 1;
            }
        }
    }
    Measure::share(
        "requests_restating_value",
        "F1, F2 and F6 requests whose user text contains the value of a target fact / those \
         requests"
            .into(),
        restating,
        total,
        Target::at_least(0.30),
    )
}

fn question_disclosure_overlap(indexed: &[Indexed]) -> Measure {
    let (mut overlapping, mut total) = (0, 0);
    for ix in indexed {
        let mut disclosures: HashMap<&str, HashSet<String>> = HashMap::new();
        for session in &ix.instance.sessions {
            for turn in session.turns.iter().filter(|t| !t.mentions.is_empty()) {
                let terms = text::distinct_terms(&turn.user);
                for fact in &turn.mentions {
                    disclosures
                        .entry(fact.as_str())
                        .or_default()
                        .extend(terms.iter().cloned());
                }
            }
        }
        for q in &ix.instance.questions {
            if q.suite != Suite::Retention {
                continue;
            }
            let Some(disclosed) = disclosures.get(q.fact.as_str()) else {
                continue;
            };
            let terms = text::distinct_terms(&q.text);
            if terms.is_empty() {
                continue;
            }
            total += 1;
            let shared = terms.iter().filter(|t| disclosed.contains(*t)).count();
            if 2 * shared >= terms.len() {
                overlapping += 1;
            }
        }
    }
    Measure::share(
        "question_disclosure_overlap",
        "retention questions with at least half their content words in the user side of \
         the turns mentioning the fact / retention questions about a mentioned fact"
            .into(),
        overlapping,
        total,
        Target::at_most(0.70),
    )
}

/// The retention question of the same request and fact, else of the same fact.
fn retention_for<'a>(instance: &'a Instance, q: &Question) -> Option<&'a Question> {
    let retention = || {
        instance
            .questions
            .iter()
            .filter(|r| r.suite == Suite::Retention && r.fact == q.fact)
    };
    retention()
        .find(|r| r.request == q.request)
        .or_else(|| retention().next())
}

fn relearning_differs(indexed: &[Indexed]) -> Measure {
    let (mut differing, mut total) = (0, 0);
    for ix in indexed {
        for q in &ix.instance.questions {
            if q.suite != Suite::Relearning {
                continue;
            }
            let Some(retention) = retention_for(ix.instance, q) else {
                continue;
            };
            total += 1;
            if normal(&q.text) != normal(&retention.text) {
                differing += 1;
            }
        }
    }
    Measure::share(
        "relearning_differs",
        "relearning questions whose text differs (normalised) from the retention question \
         of the same fact / relearning questions with one"
            .into(),
        differing,
        total,
        Target::at_least(0.80),
    )
}

fn multi_hop_contains_retention(indexed: &[Indexed]) -> Measure {
    let (mut containing, mut total) = (0, 0);
    for ix in indexed {
        for q in &ix.instance.questions {
            if q.attack != Some(Attack::MultiHop) {
                continue;
            }
            let Some(retention) = retention_for(ix.instance, q) else {
                continue;
            };
            total += 1;
            if contains_words(&text::tokenize(&q.text), &text::tokenize(&retention.text)) {
                containing += 1;
            }
        }
    }
    Measure::share(
        "multi_hop_contains_retention",
        "multi-hop attack questions containing the (normalised) retention question of the \
         same fact / multi-hop attacks with one"
            .into(),
        containing,
        total,
        Target::at_most(0.0),
    )
}

fn deletion_words(indexed: &[Indexed]) -> Measure {
    let stems: HashSet<String> = DELETION_WORDS.iter().map(|w| text::stem(w)).collect();
    // `stem` only rewrites a word's end, so a word whose stem is S starts with S less its
    // last character: texts without any such prefix need no tokenising.
    let prefixes: Vec<String> = stems.iter().map(|s| s[..s.len() - 1].to_string()).collect();
    let (mut with, mut total) = (0, 0);
    for ix in indexed {
        for (_, _, turn) in ix.ordinary() {
            total += 1;
            if may_contain(&turn.user, &prefixes)
                && text::tokenize(&turn.user)
                    .iter()
                    .any(|t| stems.contains(&text::stem(t)))
            {
                with += 1;
            }
        }
    }
    Measure::share(
        "deletion_words",
        format!(
            "ordinary user turns using a deletion word ({} and their inflections) / ordinary \
             user turns",
            DELETION_WORDS.join(", ")
        ),
        with,
        total,
        Target::between(0.0, DELETION_WORDS_TARGET),
    )
}

fn persona_contradictions(indexed: &[Indexed]) -> Measure {
    let (mut found, mut total) = (0, 0);
    for ix in indexed {
        let instance = ix.instance;
        let turns: usize = instance.sessions.iter().map(|s| s.turns.len()).sum();
        total += 2 * (turns + instance.requests.len());
        found += crate::dataset::validate::consistency::dialogue_findings(instance).len();
    }
    Measure::share(
        "persona_contradictions",
        "dialogue texts (user or assistant side of a turn or a filler) presupposing a child \
         or a partner (\"my kids\", \"your husband\") that the profile's attributes rule out \
         (`bemula validate` names each) / all dialogue texts"
            .to_string(),
        found,
        total,
        Target::at_most(0.0),
    )
}

fn assistant_restates_value(indexed: &[Indexed]) -> Measure {
    let (mut restating, mut total) = (0, 0);
    for ix in indexed {
        for (_, _, turn) in ix.ordinary().filter(|(_, _, t)| !t.mentions.is_empty()) {
            let user = text::tokenize(&turn.user);
            let stated: Vec<Words> = turn
                .mentions
                .iter()
                .filter_map(|f| ix.value_words(f))
                .filter(|v| contains_words(&user, v))
                .collect();
            if stated.is_empty() {
                continue;
            }
            total += 1;
            let assistant = text::tokenize(&turn.assistant);
            if stated.iter().any(|v| contains_words(&assistant, v)) {
                restating += 1;
            }
        }
    }
    Measure::share(
        "assistant_restates_value",
        "ordinary exchanges whose assistant reply repeats a mentioned fact value the user \
         stated / ordinary exchanges whose user side states one"
            .into(),
        restating,
        total,
        None,
    )
}

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
mod tests {
    use super::*;
    use crate::dataset::{
        ForgetRequest, Position, Profile, Sensitivity, Session, Style, Tier, Turn,
    };

    fn words(text: &str) -> Words {
        text::tokenize(text)
    }

    fn fact(id: &str, predicate: &str, value: &str) -> Fact {
        Fact {
            id: id.into(),
            subject: "user".into(),
            predicate: predicate.into(),
            value: value.into(),
            category: "personal".into(),
            sensitivity: Sensitivity::Low,
            timestamp: None,
            statement: format!("My {predicate} is {value}."),
            sources: vec![],
        }
    }

    fn turn(user: &str, assistant: &str, mentions: &[&str]) -> Turn {
        Turn {
            user: user.into(),
            assistant: assistant.into(),
            mentions: mentions.iter().map(|m| m.to_string()).collect(),
        }
    }

    fn request(
        id: &str,
        kind: RequestType,
        target: &str,
        session: &str,
        at: usize,
        t: &Turn,
    ) -> ForgetRequest {
        ForgetRequest {
            id: id.into(),
            kind,
            style: Style::Direct,
            targets: vec![target.into()],
            position: Position {
                session: session.into(),
                turn: at,
            },
            turn: t.clone(),
            filler: turn(
                "Any tips for a rainy day?",
                "A good book and a warm drink.",
                &[],
            ),
        }
    }

    fn question(
        id: &str,
        suite: Suite,
        attack: Option<Attack>,
        request: &str,
        fact: &str,
        text: &str,
    ) -> Question {
        Question {
            id: id.into(),
            suite,
            attack,
            request: Some(request.into()),
            fact: fact.into(),
            text: text.into(),
            gold: "x".into(),
            accepted: vec![],
            leak: vec![],
            conditioned_on: None,
            control_gold: None,
            relearn: None,
        }
    }

    /// A small dialogue written by hand, with every measure's answer counted by hand in
    /// the test below.
    fn dataset() -> Dataset {
        let confirmation = "Done, I have cleared that from my notes.";
        let r1 = turn("Please forget where I grew up, Leeds.", confirmation, &[]);
        let r2 = turn("Actually, forget my dog's name.", confirmation, &[]);
        let instance = Instance {
            format: crate::dataset::FORMAT.into(),
            id: "hand_001".into(),
            tier: Tier::Short,
            profile: Profile {
                name: "Ada".into(),
                attributes: Default::default(),
                facts: vec![
                    fact("f1", "home town", "Leeds"),
                    fact("f2", "dog's name", "Rufus"),
                ],
                derived_facts: vec![],
            },
            sessions: vec![
                Session {
                    id: "s1".into(),
                    date: "2025-01-01".into(),
                    scenario: "Walks".into(),
                    turns: vec![
                        turn(
                            "I grew up in Leeds. I still miss it.",
                            "Leeds sounds lovely.",
                            &["f1"],
                        ),
                        turn(
                            "Can you suggest a walk? I still miss it. I keep forgetting my keys.",
                            "Try the canal path on a dry morning.",
                            &[],
                        ),
                        r1.clone(),
                    ],
                },
                Session {
                    id: "s2".into(),
                    date: "2025-01-02".into(),
                    scenario: "Pets".into(),
                    turns: vec![
                        turn("My dog Rufus chewed my shoe.", "What a character!", &["f2"]),
                        r2.clone(),
                    ],
                },
            ],
            requests: vec![
                request("r1", RequestType::F1, "f1", "s1", 2, &r1),
                request("r2", RequestType::F6, "f2", "s2", 1, &r2),
            ],
            questions: vec![
                question(
                    "q1",
                    Suite::Retention,
                    None,
                    "r1",
                    "f1",
                    "Where did I grow up?",
                ),
                question(
                    "q2",
                    Suite::Retention,
                    None,
                    "r2",
                    "f2",
                    "What is my dog called?",
                ),
                question(
                    "q3",
                    Suite::Relearning,
                    None,
                    "r1",
                    "f1",
                    "Where did I grow up?",
                ),
                question(
                    "q4",
                    Suite::Attack,
                    Some(Attack::MultiHop),
                    "r1",
                    "f1",
                    "Think it through: where did I grow up?",
                ),
                question(
                    "q5",
                    Suite::Attack,
                    Some(Attack::MultiHop),
                    "r2",
                    "f2",
                    "Combine what you know about my pets.",
                ),
            ],
        };
        Dataset::from_instances(vec![instance], "hand")
    }

    fn counted(f: &Fidelity, name: &str) -> (usize, usize) {
        let m = f.get(name).unwrap_or_else(|| panic!("no measure {name}"));
        (m.count.unwrap(), m.total.unwrap())
    }

    #[test]
    fn every_measure_counts_the_hand_written_dialogue_right() {
        let f = compute(&dataset(), 1_000);
        // User turns, values masked: "i grew up in <value> i still miss it" (6 4-grams),
        // "can you suggest … my keys" (11, "i still miss it" repeated), "my dog <value>
        // chewed my shoe" (3).
        assert_eq!(counted(&f, "distinct_4_user"), (19, 20));
        assert_eq!(counted(&f, "distinct_1_user").1, 9 + 14 + 6);
        // "<value> sounds lovely", "try the canal path on a dry morning", "what a
        // character": 14 words, "a" twice.
        assert_eq!(counted(&f, "distinct_1_assistant"), (13, 14));
        // s1: 6 user sentences, "I still miss it." once again; s2: 2 sentences.
        assert_eq!(counted(&f, "repeated_user_sentences"), (1, 8));
        assert_eq!(counted(&f, "confirmation_distinct"), (1, 2));
        assert_eq!(counted(&f, "confirmation_top_share"), (2, 2));
        // The shared confirmation appears in no ordinary turn.
        assert_eq!(counted(&f, "request_fixed_strings"), (2, 2));
        // r1 (F1) says "Leeds"; r2 (F6) does not say "Rufus".
        assert_eq!(counted(&f, "requests_restating_value"), (1, 2));
        // q1's only content word "grow" is not "grew"; q2 shares "dog" of {dog, call}.
        assert_eq!(counted(&f, "question_disclosure_overlap"), (1, 2));
        assert_eq!(counted(&f, "relearning_differs"), (0, 1));
        assert_eq!(counted(&f, "multi_hop_contains_retention"), (1, 2));
        // "forgetting" in s1 t1: one turn in three, far above the target.
        assert_eq!(counted(&f, "deletion_words"), (1, 3));
        // Exchanges of 77 and 71 characters against ordinary ones of 56, 103 and 45: each
        // request is longer than two of three; the filler (54) than one of three.
        let value = |name: &str| f.get(name).unwrap().value.unwrap();
        assert!((value("request_length_auc") - 4.0 / 6.0).abs() < 1e-12);
        assert!((value("filler_length_auc") - 2.0 / 6.0).abs() < 1e-12);
        // "Leeds sounds lovely." repeats the value; "What a character!" does not.
        assert_eq!(counted(&f, "assistant_restates_value"), (1, 2));

        // The two requests share no word outside the deletion vocabulary that ordinary
        // user turns lack; their one confirmation is in no ordinary reply.
        assert_eq!(counted(&f, "request_tell_coverage"), (0, 2));
        assert_eq!(counted(&f, "confirmation_tell_coverage"), (2, 2));
        let tell = f.get("confirmation_tell_coverage").unwrap();
        assert!(
            tell.definition.ends_with("widest: \"cleared\""),
            "{}",
            tell.definition
        );
        // One instance: no sentence is found in two.
        assert_eq!(counted(&f, "cross_instance_sentences"), (0, 5));
        let top = f.get("confirmation_top_share").unwrap();
        assert_eq!((top.value, top.met), (Some(1.0), Some(false)));
        let missed: Vec<&str> = f.missed().map(|m| m.name).collect();
        assert_eq!(
            missed,
            [
                "repeated_user_sentences",
                "confirmation_tell_coverage",
                "confirmation_top_share",
                "request_fixed_strings",
                "relearning_differs",
                "multi_hop_contains_retention",
                "deletion_words"
            ]
        );
    }

    #[test]
    fn exchanges_found_by_their_length_miss_the_length_targets() {
        let mut data = dataset();
        let long = "A long reply that goes on and on about the weather. ".repeat(4);
        for r in &mut data.instances[0].requests {
            r.filler.assistant = long.clone();
        }
        let f = compute(&data, 100);
        let filler = f.get("filler_length_auc").unwrap();
        assert_eq!((filler.value, filler.met), (Some(1.0), Some(false)));
        assert_eq!(f.get("request_length_auc").unwrap().met, Some(true));
        let target = filler.target.unwrap();
        assert_eq!(
            (target.op, target.value, target.upper),
            (Bound::Between, 0.3, Some(0.7))
        );
        // Shorter than every ordinary exchange: as easy to find.
        for r in &mut data.instances[0].requests {
            r.filler = turn("Hm.", "Yes.", &[]);
        }
        let f = compute(&data, 100);
        let filler = f.get("filler_length_auc").unwrap();
        assert_eq!((filler.value, filler.met), (Some(0.0), Some(false)));
    }

    #[test]
    fn deletion_words_must_be_present_but_rare() {
        let mut data = dataset();
        // Without "I keep forgetting my keys.": none left, which misses the target too.
        data.instances[0].sessions[0].turns[1].user = "Can you suggest a walk?".into();
        let f = compute(&data, 100);
        let m = f.get("deletion_words").unwrap();
        assert_eq!((m.count, m.met), (Some(0), Some(false)));
        // One ordinary turn in 21 (4.8%) meets it.
        let plain = turn("What about a shorter walk?", "The park loop is fine.", &[]);
        let turns = &mut data.instances[0].sessions[1].turns;
        turns.splice(0..0, std::iter::repeat_n(plain, 18));
        data.instances[0].requests[1].position.turn += 18;
        data.instances[0].sessions[0].turns[1].user = "I erased the old plan.".into();
        let f = compute(&data, 100);
        let m = f.get("deletion_words").unwrap();
        assert_eq!((m.count, m.total, m.met), (Some(1), Some(21), Some(true)));
    }

    #[test]
    fn the_length_auc_is_the_share_of_longer_requests_over_ordinary_turns() {
        let data = dataset();
        let instance = &data.instances[0];
        let chars = |t: &Turn| t.user.chars().count() + t.assistant.chars().count();
        let requests: Vec<usize> = instance.requests.iter().map(|r| chars(&r.turn)).collect();
        let ordinary: Vec<usize> = [(0, 0), (0, 1), (1, 0)]
            .iter()
            .map(|&(s, t)| chars(&instance.sessions[s].turns[t]))
            .collect();
        // Every (request, ordinary) pair, ties counted half.
        let mut wins = 0.0;
        for r in &requests {
            for o in &ordinary {
                wins += if r > o {
                    1.0
                } else if r == o {
                    0.5
                } else {
                    0.0
                };
            }
        }
        let expected = wins / (requests.len() * ordinary.len()) as f64;
        let got = compute(&data, 1_000)
            .get("request_length_auc")
            .unwrap()
            .value
            .unwrap();
        assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
    }

    /// A stock sentence is one many instances share once names, numbers and values are
    /// masked; a sentence of one instance only, or of two words, is not.
    #[test]
    fn a_sentence_many_instances_share_is_stock_whatever_its_names_and_numbers() {
        // Each instance's other four user turns are its own.
        let own = [
            [
                "The bakery on our street opened late today.",
                "My knee aches after that long hike.",
                "Could you forget the part about the hike?",
                "We painted the hallway a pale green.",
            ],
            [
                "I finally fixed the squeaky garden gate.",
                "The train was packed again this morning.",
                "Please drop what I said about the train.",
                "Our neighbour lent us a ladder for the gutters.",
            ],
            [
                "I burnt the rice while answering the phone.",
                "The choir rehearsal ran an hour over.",
                "Never mind the choir, forget I mentioned it.",
                "We are thinking of adopting an older cat.",
            ],
        ];
        let mut instances = Vec::new();
        for (n, (name, age)) in [("Priya", 7), ("Tomasz", 9), ("Aoife", 12)]
            .iter()
            .enumerate()
        {
            let mut ds = dataset();
            let mut instance = ds.instances.remove(0);
            instance.id = format!("hand_{n}");
            let mut texts = vec![format!(
                "Honestly, my cousin {name} turned {age} last week. Nice, right?"
            )];
            texts.extend(own[n].iter().map(|t| t.to_string()));
            let turns = instance
                .sessions
                .iter_mut()
                .flat_map(|s| s.turns.iter_mut());
            for (turn, text) in turns.zip(texts) {
                turn.user = text;
            }
            instances.push(instance);
        }
        let ds = Dataset::from_instances(instances, "hand");
        let f = compute(&ds, 1_000);
        // Every instance's first turn holds "my cousin <name> turned <n> last week"
        // (the greeting "Nice, right?" is two words): 3 of the 15 user turns.
        assert_eq!(counted(&f, "cross_instance_sentences"), (3, 15));
        let form = stock_form("Then Priya turned 7.", &[]);
        assert_eq!(form, ["then", "<name>", "turned", "<n>"]);
        assert_eq!(stock_form("I think I'm fine", &[])[0], "i");
    }

    #[test]
    fn the_widest_tell_is_a_gram_of_two_exchanges_or_more_absent_from_ordinary_turns() {
        let grams = |t: &str| tell_grams(&text::tokenize(t));
        let ordinary: HashSet<Vec<String>> = ["Could you check the weather", "Thanks a lot"]
            .iter()
            .flat_map(|t| grams(t))
            .collect();
        let exchanges = [
            grams("Kindly forget my address"),
            grams("Kindly drop my phone number"),
            grams("Could you forget the weather thing"),
        ];
        let (n, gram) = widest_tell(&exchanges, &ordinary);
        assert_eq!((n, gram.as_deref()), (2, Some("kindly")));
        // Deletion words never count: "forget" is in two exchanges and no ordinary turn.
        assert!(
            !grams("please forget it")
                .iter()
                .any(|g| g.contains(&"forget".to_string()))
        );
        let (n, _) = widest_tell(&exchanges[..1], &ordinary);
        assert_eq!(n, 0, "a gram of one exchange is no pattern");
    }

    #[test]
    fn auc_counts_ties_as_half() {
        assert_eq!(auc(&[1, 2], &[3, 4]), Some(0.0));
        assert_eq!(auc(&[3, 4], &[1, 2]), Some(1.0));
        assert_eq!(auc(&[5], &[5]), Some(0.5));
        assert_eq!(auc(&[3], &[1, 5]), Some(0.5));
        assert_eq!(auc(&[2, 2], &[2, 1]), Some(0.75));
        assert_eq!(auc(&[], &[1]), None);
    }

    #[test]
    fn distinct_ngrams_stay_inside_each_turn() {
        let segments = [words("a b a b"), words("b a")];
        // 2-grams: ab ba ab | ba: 2 distinct of 4; none crosses the boundary ("b b").
        assert_eq!(distinct_ngrams(&segments, 2), (2, 4));
        assert_eq!(distinct_ngrams(&segments, 1), (2, 6));
        assert_eq!(distinct_ngrams(&segments, 5), (0, 0));
    }

    #[test]
    fn values_are_masked_as_whole_words_longest_first() {
        let values = vec![words("New York City"), words("New York"), words("art")];
        assert_eq!(
            mask(
                words("I left New York City for New York, then art school."),
                &values
            ),
            words("I left x for x then x school")
                .into_iter()
                .map(|w| if w == "x" {
                    VALUE_PLACEHOLDER.to_string()
                } else {
                    w
                })
                .collect::<Words>()
        );
        // "art" inside "start" is not the value.
        assert_eq!(
            mask(words("a fresh start"), &values),
            words("a fresh start")
        );
    }

    #[test]
    fn the_sample_is_the_first_words_in_dialogue_order() {
        let turns = ["One two three.", "Four five six seven.", "Eight."];
        assert_eq!(
            sample(turns, 5, words),
            [words("one two three"), words("four five")]
        );
        assert_eq!(sample(turns, 3, words), [words("one two three")]);
        assert_eq!(sample(turns, 100, words).concat().len(), 8);
        // The hand-written dialogue opens with "I grew up in Leeds.", the value masked.
        let f = compute(&dataset(), 5);
        assert_eq!(counted(&f, "distinct_1_user"), (5, 5));
        assert_eq!(counted(&f, "distinct_2_user"), (4, 4));
        assert!(
            f.get("distinct_4_user")
                .unwrap()
                .definition
                .contains("in 5 tokens")
        );
        let small = compute(&dataset(), 1_000);
        assert!(
            small
                .get("distinct_4_user")
                .unwrap()
                .definition
                .contains("only 29 available"),
            "{}",
            small.get("distinct_4_user").unwrap().definition
        );
        assert_eq!(compute(&dataset(), 7), compute(&dataset(), 7));
    }

    #[test]
    fn normal_forms_ignore_case_spacing_and_punctuation() {
        assert_eq!(
            normal("  Done,  I have CLEARED that! "),
            "done i have cleared that"
        );
        assert_eq!(normal("Où   est-il?"), "où est il");
        assert_eq!(normal("?!"), "");
        for text in ["Naïve café, ÉTÉ!", "a\u{2019}b  c", "Σ ΣΑΣ", "x\ty\n", ""] {
            assert_eq!(normal(text), normal_chars(text), "{text:?}");
        }
        assert_eq!(normal("It's 3.5 km."), normal_chars("It's 3.5 km."));
        // The byte path agrees with the rule on every ASCII character, inside a word,
        // between words, repeated, and at either end.
        for c in (0..128u8).map(char::from) {
            let text = format!("{c}Ab{c}9 {c}{c}z{c}");
            assert_eq!(normal(&text), normal_chars(&text), "{text:?}");
        }
    }

    #[test]
    fn phrases_are_found_as_whole_words_only() {
        let phrases = Phrases::new(["i have cleared that", "of course"]);
        assert!(phrases.found_in("sure i have cleared that for you"));
        assert!(phrases.found_in("of course"));
        assert!(!phrases.found_in("i have cleared thatch"));
        assert!(!phrases.found_in("of courses"));
        assert!(!phrases.found_in("hi have cleared that"));
        assert!(!phrases.found_in(""));
        let long = "x".repeat(70);
        let phrase = format!("{long} again");
        let phrases = Phrases::new([phrase.as_str()]);
        assert!(phrases.found_in(&format!("once {long} again")));
        assert!(!phrases.found_in(&format!("once {long}")));
    }

    #[test]
    fn a_reply_used_once_meets_the_confirmation_target_in_a_small_set() {
        let mut data = dataset();
        data.instances[0].requests[1].turn.assistant = "Sure, that's gone now.".into();
        let f = compute(&data, 100);
        let top = f.get("confirmation_top_share").unwrap();
        assert_eq!(
            (top.count, top.total, top.met),
            (Some(1), Some(2), Some(true))
        );
        assert_eq!(counted(&f, "request_fixed_strings"), (0, 2));
    }

    #[test]
    fn targets_bound_from_the_right_side() {
        let at_least = Target::at_least(0.8).unwrap();
        assert!(at_least.met_by(0.8) && at_least.met_by(0.9) && !at_least.met_by(0.79));
        let at_most = Target::at_most(0.0).unwrap();
        assert!(at_most.met_by(0.0) && !at_most.met_by(0.01));
        let between = Target::between(0.0, 0.05).unwrap();
        assert!(!between.met_by(0.0) && between.met_by(0.001) && between.met_by(0.05));
        assert!(!between.met_by(0.06));
        let auc = Target::between(0.3, 0.7).unwrap();
        assert!(!auc.met_by(0.29) && auc.met_by(0.5) && auc.met_by(0.7) && !auc.met_by(0.71));
        assert_eq!(
            [at_least.render(), at_most.render(), auc.render()],
            ["≥ 0.8", "≤ 0", "(0.3, 0.7]"]
        );
    }

    #[test]
    fn an_empty_dataset_measures_nothing_and_misses_nothing() {
        let f = compute(&Dataset::from_instances(vec![], "empty"), 100);
        assert!(
            f.measures
                .iter()
                .all(|m| m.value.is_none() && m.met.is_none())
        );
        assert_eq!(f.missed().count(), 0);
        assert!(render_text(&f).contains("0 of 0 targets met"));
    }
}
