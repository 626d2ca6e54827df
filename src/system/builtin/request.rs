//! The forget-request recogniser: general English rules that tell a user's request
//! to forget from ordinary talk, and read what the request names.
//!
//! A turn is read clause by clause for *cues*:
//!
//! - **deletion verbs** aimed at the assistant: `forget`, `delete`, `erase`, `wipe`,
//!   `purge`, `scrub`, and (only with a memory word such as "information" or "what I
//!   told you") `remove`, `clear`, `drop`, `discard`, `get rid of`. The verb must not
//!   be negated ("don't forget my appointment" asks to remember), its subject must be
//!   the assistant or absent (imperative) — never the user ("I forgot my keys", "I need
//!   to delete an app") — and its object must be personal ("that I …", "my …") or a
//!   memory word;
//! - **negated retention** aimed at the assistant: "don't keep / store / remember /
//!   retain / save / track", "I'd rather you didn't keep …", "I no longer want you to
//!   know …", "I don't want any information … retained";
//! - **negated inference**: "don't work out / infer / deduce / figure out my age …";
//! - **implicit** phrasings: "… might as well never have happened", "pretend I never
//!   told you about …" (strong), and the weaker "I've moved on from …", "… is
//!   outdated / no longer true", which count only together with another cue or with
//!   a replacement ("… instead", "changed to …", "only remember …").
//!
//! The words after a cue (or before it, for "… might as well never have happened")
//! form the request's phrase, split into parts at "and that", "and my", …; each part
//! is read as a [`Target`]: an inference (it carries "inferred", "deduce", …), a time
//! period ("everything around June 2024"), a category ("all my financial
//! information"), everything, the previous turn ("what I just told you"), or specific
//! facts (its content words). Anaphoric parts ("that category", "those days") add
//! nothing of their own.
//!
//! What rules cannot do: resolve a reference to something said turns ago, read a
//! request that names a fact only by a paraphrase sharing no word with its mentions,
//! or tell a sarcastic "forget it" from a real one. The recogniser errs towards
//! ordinary talk: a turn without a clear cue is stored, not acted on.

use super::lexicon::{Category, categories_named, is_generic, is_inference_word, is_scope_word};
use crate::text::dates::{Period, YearMonth, is_time_word, mentioned_periods, spell_iso_dates};
use crate::text::{is_stop_word, split_sentences, stem, tokenize};

/// What a forget request asks to be forgotten.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Specific facts named by their content words (stemmed, distinct).
    Facts(Vec<String>),
    /// Whole categories of the built-in lexicon.
    Categories(Vec<Category>),
    /// Everything that happened in these periods.
    Periods(Vec<Period>),
    /// A conclusion drawn from stored facts, by its topic's content words.
    Inference(Vec<String>),
    /// What the user said in the turn just before.
    Previous,
    /// Everything stored.
    Everything,
}

/// A recognised forget request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Request {
    /// What it names, in order; may be empty when the request only points back
    /// ("please forget that").
    pub targets: Vec<Target>,
    /// New statements a replacement request makes ("I now prefer Italian food"), to be
    /// remembered in place of what is forgotten.
    pub statements: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Strength {
    Weak,
    Strong,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Delete,
    Infer,
}

#[derive(Debug, Clone)]
struct Cue {
    strength: Strength,
    kind: Kind,
    phrase: Vec<String>,
    /// Whether the phrase stands before the cue ("… might as well never have
    /// happened"); such a phrase that only points back ("that's outdated") takes the
    /// turn's preceding plain clause instead.
    backward: bool,
}

/// Whether the user's turn asks the assistant to forget something.
pub fn is_forget_request(user: &str) -> bool {
    recognise(user, None).is_some()
}

/// Reads a user's turn; `today` (the session date) places relative dates such as
/// "last spring". `None` when the turn is no forget request.
pub fn recognise(user: &str, today: Option<YearMonth>) -> Option<Request> {
    let text = spell_iso_dates(&user.replace('\u{2019}', "'"));
    let mut cues = Vec::new();
    let mut statements = Vec::new();
    let mut strong_marker = false;
    let mut plain: Option<Vec<String>>;
    // A marker clause without a value of its own ("Overwrite it right now: …") hands
    // the replacement to the clause that follows it.
    let mut value_follows = false;
    for sentence in split_sentences(&text) {
        // A pointing-back cue ("that's outdated") names something of its own sentence.
        plain = None;
        for clause in split_clauses(&sentence) {
            let tokens = tokenize(&list_commas(&clause));
            let found = find_cues(&tokens);
            let (marker, strong) = replacement_marker(&tokens);
            strong_marker |= strong;
            if found.is_empty() && marker {
                if has_value(&tokens) {
                    let statement = clean_statement(&clause);
                    if !statement.is_empty() {
                        statements.push(statement);
                    }
                } else {
                    value_follows = true;
                    continue;
                }
            }
            if found.is_empty() && !marker {
                if std::mem::take(&mut value_follows) {
                    statements.push(clause.trim().to_string());
                }
                plain = Some(object_of_knowing(&tokens).to_vec());
            }
            if !found.is_empty() {
                value_follows = false;
                for cue in found {
                    cues.push((cue, plain.clone()));
                }
                // A clause that is itself a request is no antecedent for a later
                // pointing-back cue ("… That's behind me now."): that cue names the same.
                plain = None;
            }
        }
    }
    let strong = cues
        .iter()
        .filter(|(c, _)| c.strength == Strength::Strong)
        .count();
    let weak = cues.len() - strong;
    if !(strong > 0 || weak >= 2 || (weak >= 1 && strong_marker)) {
        return None;
    }
    let mut targets: Vec<Target> = Vec::new();
    for (cue, antecedent) in &cues {
        let mut found: Vec<Target> = split_parts(&cue.phrase)
            .iter()
            .filter_map(|part| analyse(part, cue.kind, today))
            .collect();
        if found.is_empty()
            && cue.backward
            && points_back(&cue.phrase)
            && let Some(antecedent) = antecedent
        {
            found = split_parts(antecedent)
                .iter()
                .filter_map(|part| analyse(part, cue.kind, today))
                .collect();
        }
        for t in found {
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
    }
    // A replacement also restates the new value in the old statement's words
    // ("I used to like Thai food" + "changed to Italian food" → "I like Italian food").
    let old = cues
        .iter()
        .find(|(c, _)| c.kind == Kind::Delete)
        .map(|(c, antecedent)| match antecedent {
            Some(a) if points_back(&c.phrase) && c.backward => a.clone(),
            _ => c.phrase.clone(),
        });
    if let (Some(old), Some(first)) = (old, statements.first())
        && let Some(restated) = restate(&old, first)
    {
        statements.push(restated);
    }
    Some(Request {
        targets,
        statements,
    })
}

/// Words after which a replacement clause gives its new value.
const VALUE_LEADS: &[&str] = &[
    "to", "is", "are", "was", "now", "prefer", "like", "love", "into", "it", "enjoy", "with",
];

/// The new value of a replacement statement put in the old statement's frame: the old
/// phrase's subject and verb ("I like", "my favorite color is") followed by the
/// statement's words after its last value lead ("… changed to Italian food").
fn restate(old: &[String], statement: &str) -> Option<String> {
    let words: Vec<&str> = statement.split_whitespace().collect();
    let lower: Vec<String> = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
                .replace("'s", "")
        })
        .collect();
    let lead = lower
        .iter()
        .rposition(|w| VALUE_LEADS.contains(&w.as_str()))?;
    let mut rest: Vec<(&str, &str)> = words[lead + 1..]
        .iter()
        .zip(&lower[lead + 1..])
        .filter(|(_, l)| !matches!(l.as_str(), "instead" | "now" | "only" | "please"))
        .map(|(w, l)| (*w, l.as_str()))
        .collect();
    // "… now I (mostly) eat Italian food" → "Italian food": drop a subject and its verb.
    if rest
        .first()
        .is_some_and(|(_, l)| matches!(*l, "i" | "we" | "it" | "i'm" | "i've"))
    {
        rest.remove(0);
        while rest.first().is_some_and(|(_, l)| {
            matches!(
                *l,
                "really" | "just" | "mostly" | "also" | "actually" | "usually" | "totally"
            )
        }) {
            rest.remove(0);
        }
        if rest.len() > 1 {
            rest.remove(0);
        }
    }
    let value: Vec<&str> = rest.into_iter().map(|(w, _)| w).collect();
    if value.is_empty() {
        return None;
    }
    // The old phrase's frame: from its subject to its first content word (a verb after
    // "I", or up to the linking word after "my …").
    let start = old.iter().position(|t| matches!(t.as_str(), "i" | "my"))?;
    let mut frame = vec![if old[start] == "i" {
        "I".to_string()
    } else {
        "My".to_string()
    }];
    for t in &old[start + 1..] {
        if matches!(
            t.as_str(),
            "used" | "to" | "don't" | "do" | "not" | "no" | "longer" | "really" | "still" | "also"
        ) {
            continue;
        }
        frame.push(t.clone());
        let linking = matches!(t.as_str(), "is" | "are" | "was" | "were");
        if (old[start] == "i" && !is_stop_word(t)) || linking {
            break;
        }
        if frame.len() > 6 {
            return None;
        }
    }
    let value = value.join(" ");
    let value = value.trim_end_matches(|c: char| !c.is_alphanumeric());
    Some(format!("{} {value}.", frame.join(" ")))
}

/// Words after a comma that open a new clause.
#[rustfmt::skip]
const CLAUSE_OPENERS: &[&str] = &[
    "but", "so", "because", "since", "as", "i", "i'm", "i've", "i'd", "i'll", "you", "it", "it's",
    "that", "those", "these", "they", "we", "now", "please", "which", "though", "although",
    "then", "instead", "just", "only", "and", "whatever",
];

/// Words after "and" that open a new clause rather than continue a list.
#[rustfmt::skip]
const AND_OPENERS: &[&str] = &[
    "but", "so", "i", "i'm", "i've", "i'd", "i'll", "you", "it", "it's", "that's", "those",
    "these", "they", "we", "now", "please", "then", "just", "only", "delete", "forget", "erase",
    "remove", "don't", "do", "remember", "keep", "store", "whatever",
];

/// Splits a sentence at `;`, dashes and colons, and at commas that open a new clause.
fn split_clauses(sentence: &str) -> Vec<String> {
    let mut clauses = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = sentence.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let dash = matches!(c, '—' | '–')
            || (c == '-' && i > 0 && chars[i - 1] == ' ' && chars.get(i + 1) == Some(&' '));
        if matches!(c, ';' | ':') || dash {
            clauses.push(std::mem::take(&mut current));
        } else if c == ',' {
            let rest: String = chars[i + 1..].iter().collect();
            let words = tokenize(&rest);
            let first = words.first().map(String::as_str).unwrap_or("");
            let second = words.get(1).map(String::as_str).unwrap_or("");
            let opens = CLAUSE_OPENERS.contains(&first)
                && (first != "and" || AND_OPENERS.contains(&second));
            if opens {
                clauses.push(std::mem::take(&mut current));
            } else {
                current.push(c);
            }
        } else {
            current.push(c);
        }
        i += 1;
    }
    clauses.push(current);
    clauses
        .into_iter()
        .map(|c| c.trim().to_string())
        .filter(|c| c.chars().any(char::is_alphanumeric))
        .collect()
}

/// Words after a comma that open the next item of a list ("my diet, the loan I took
/// out, and …"), not a new clause.
#[rustfmt::skip]
const LIST_OPENERS: &[&str] = &["my", "the", "that", "what", "where", "when", "how", "any"];

/// Turns the commas of a list of items into "and" ("my diet, the loan …" → "my diet
/// and the loan …"), so that the parts of a request's phrase are read apart.
fn list_commas(clause: &str) -> String {
    let mut out = String::with_capacity(clause.len());
    let mut rest = clause;
    while let Some(i) = rest.find(", ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let next = after.split_whitespace().next().unwrap_or("").to_lowercase();
        if LIST_OPENERS.contains(&next.as_str()) {
            out.push_str(" and ");
        } else {
            out.push_str(", ");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Words of a replacement marker clause that are no value ("overwrite it right now").
#[rustfmt::skip]
const MARKER_WORDS: &[&str] = &[
    "overwrite", "overwritten", "update", "updated", "change", "changed", "switch",
    "switched", "replace", "replaced", "correct", "correction", "instead", "new", "now",
    "currently", "nowadays", "days", "things", "right", "only", "remember", "keep", "store",
    "save", "note", "from",
];

/// Whether a marker clause states a value of its own.
fn has_value(tokens: &[String]) -> bool {
    tokens.iter().any(|t| {
        !is_stop_word(t)
            && !MARKER_WORDS.contains(&t.as_str())
            && !is_generic(&stem(t))
            && !DEMONSTRATIVES.contains(&t.as_str())
    })
}

/// The object of the assistant's knowing, when a clause says what the assistant
/// knows or keeps ("… that you still know what I told you about my employer" → "what
/// I told you about my employer"); the whole clause otherwise.
fn object_of_knowing(tokens: &[String]) -> &[String] {
    for (i, t) in tokens.iter().enumerate() {
        if !YOU_SUBJECTS.contains(&t.as_str()) {
            continue;
        }
        let mut j = i + 1;
        while tokens
            .get(j)
            .is_some_and(|w| matches!(w.as_str(), "still" | "already" | "even" | "now"))
        {
            j += 1;
        }
        if tokens.get(j).is_some_and(|w| {
            matches!(
                w.as_str(),
                "know"
                    | "knew"
                    | "remember"
                    | "remembered"
                    | "have"
                    | "had"
                    | "keep"
                    | "kept"
                    | "store"
                    | "stored"
                    | "hold"
                    | "held"
                    | "retain"
                    | "retained"
            )
        }) && j + 1 < tokens.len()
        {
            return &tokens[j + 1..];
        }
    }
    tokens
}

#[rustfmt::skip]
const NEGATIONS: &[&str] = &[
    "don't", "dont", "not", "never", "won't", "can't", "cannot", "shouldn't", "didn't",
    "doesn't", "wouldn't", "no", "without", "stop", "stopped", "quit", "isn't", "aren't",
    "wasn't", "weren't",
];
/// Negated copulas: "… weren't something you remembered" negates what stands before.
const NEGATED_COPULAS: &[&str] = &["isn't", "aren't", "wasn't", "weren't"];
/// Where the assistant keeps things: "… sitting in your memory".
#[rustfmt::skip]
const MEMORY_PLACES: &[&str] = &[
    "memory", "memories", "records", "notes", "files", "head", "system", "database", "mind",
];
/// Participles that wish something gone: "I'd prefer that gone".
#[rustfmt::skip]
const GONE: &[&str] = &[
    "gone", "erased", "deleted", "removed", "forgotten", "wiped", "scrubbed", "purged",
];
#[rustfmt::skip]
const SELF_SUBJECTS: &[&str] = &[
    "i", "i'm", "i've", "i'll", "we", "we're", "we've", "we'll", "let", "lets", "me", "myself",
];
#[rustfmt::skip]
const YOU_SUBJECTS: &[&str] = &["you", "you'll", "you've", "you'd", "u", "yourself"];
/// Words before "you" that make it a question or a condition, not a request.
#[rustfmt::skip]
const NOT_REQUESTING_YOU: &[&str] = &[
    "did", "do", "does", "don't", "didn't", "doesn't", "have", "has", "had", "haven't", "if",
    "when", "whether", "how", "why", "what", "can't", "won't", "unless", "once",
];
#[rustfmt::skip]
const PERSONAL: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine", "myself", "we", "our", "us",
];
#[rustfmt::skip]
const MEMORY_WORDS: &[&str] = &[
    "information", "info", "detail", "details", "data", "record", "records", "memory",
    "memories", "note", "notes", "mention", "mentions", "everything", "anything", "fact",
    "facts", "stuff", "whatever", "all", "any", "history", "conversation", "conversations",
    "said", "told", "mentioned", "shared", "inferred", "inference", "conclusion", "trace",
    "traces", "reference", "references",
];
/// Deletion verbs that need only a personal object ("forget my address").
#[rustfmt::skip]
const DELETE_STRONG: &[&str] = &[
    "forget", "delete", "erase", "wipe", "purge", "scrub", "expunge", "forgetting",
    "deleting", "erasing", "wiping", "purging", "scrubbing", "expunging",
];
/// Deletion verbs that need a memory word ("remove the information about …").
#[rustfmt::skip]
const DELETE_WEAK: &[&str] = &[
    "remove", "clear", "drop", "discard", "ditch", "eliminate", "removing", "clearing",
    "dropping", "discarding", "ditching", "eliminating", "rid", "throw", "toss", "lose",
];
#[rustfmt::skip]
const RETAIN: &[&str] = &[
    "hang", "hanging", "keep", "keeping", "store", "storing", "remember", "remembering", "retain", "retaining",
    "save", "saving", "track", "tracking", "record", "recording", "know", "knowing", "hold",
    "holding", "log", "logging", "memorize", "memorise", "memorizing", "memorising",
];
#[rustfmt::skip]
const RETAIN_PASSIVE: &[&str] = &[
    "kept", "stored", "remembered", "retained", "saved", "tracked", "recorded", "logged",
    "memorized", "memorised", "held",
];
#[rustfmt::skip]
const INFER: &[&str] = &[
    "infer", "inferring", "deduce", "deducing", "conclude", "concluding", "assume",
    "assuming", "guess", "guessing", "calculate", "calculating", "derive", "deriving",
    "speculate", "speculating", "estimate", "estimating", "figure", "figuring", "work",
    "working", "piece", "piecing", "put", "putting", "compute", "computing", "extrapolate",
];
/// Words that end a cue's phrase.
#[rustfmt::skip]
const PHRASE_CUTS: &[&str] = &[
    "because", "since", "but", "so", "instead", "though", "although", "unless",
];

fn any_in(tokens: &[String], set: &[&str]) -> bool {
    tokens.iter().any(|t| set.contains(&t.as_str()))
}

/// The nearest subject pronoun before `v` in the clause: `Some(true)` the assistant,
/// `Some(false)` the user, `None` no subject (imperative).
fn subject_before(tokens: &[String], v: usize) -> Option<bool> {
    for j in (0..v).rev() {
        let t = tokens[j].as_str();
        if YOU_SUBJECTS.contains(&t) {
            let before = j.checked_sub(1).map(|k| tokens[k].as_str()).unwrap_or("");
            return Some(!NOT_REQUESTING_YOU.contains(&before));
        }
        if SELF_SUBJECTS.contains(&t) {
            return Some(false);
        }
    }
    None
}

fn negated_before(tokens: &[String], v: usize, window: usize) -> bool {
    let start = v.saturating_sub(window);
    (start..v).any(|j| {
        let t = tokens[j].as_str();
        NEGATIONS.contains(&t) || (t == "longer" && j > 0 && tokens[j - 1] == "no")
    })
}

/// The tokens after `start`, up to a phrase cut (or "and" opening a new request).
fn phrase_from(tokens: &[String], start: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut j = start;
    while j < tokens.len() {
        let t = tokens[j].as_str();
        if PHRASE_CUTS.contains(&t) {
            break;
        }
        if t == "and"
            && tokens.get(j + 1).is_some_and(|n| {
                matches!(
                    n.as_str(),
                    "remember"
                        | "keep"
                        | "store"
                        | "note"
                        | "now"
                        | "please"
                        | "just"
                        | "only"
                        | "update"
                        | "replace"
                        | "instead"
                )
            })
        {
            break;
        }
        out.push(tokens[j].clone());
        j += 1;
    }
    out
}

/// Whether a phrase names something of the user's or a memory ("that I …", "my …",
/// "what I told you").
fn personal_object(phrase: &[String]) -> bool {
    any_in(phrase, PERSONAL) || any_in(phrase, MEMORY_WORDS)
}

/// Whether a phrase names a memory, as the weaker deletion verbs need.
fn memory_object(phrase: &[String]) -> bool {
    if any_in(phrase, MEMORY_WORDS) {
        return true;
    }
    phrase.windows(2).any(|w| {
        let (a, b) = (w[0].as_str(), w[1].as_str());
        (matches!(a, "that" | "what" | "where" | "how" | "when" | "about") && PERSONAL.contains(&b))
            || (a == "your" && matches!(b, "memory" | "memories" | "records" | "notes" | "files"))
            || (a == "you"
                && matches!(
                    b,
                    "know" | "have" | "stored" | "saved" | "remember" | "learned" | "heard"
                ))
    })
}

fn find_cues(tokens: &[String]) -> Vec<Cue> {
    let mut cues = Vec::new();
    let n = tokens.len();
    let mut v = 0;
    while v < n {
        let t = tokens[v].as_str();
        let prev = v.checked_sub(1).map(|j| tokens[j].as_str()).unwrap_or("");
        let next = tokens.get(v + 1).map(String::as_str).unwrap_or("");
        // "I'd rather you forgot …", "I wish you'd forget …" (the latter is handled below).
        if t == "forgot"
            && prev == "you"
            && v >= 2
            && matches!(tokens[v - 2].as_str(), "rather" | "wish" | "prefer")
        {
            cues.push(Cue {
                strength: Strength::Strong,
                kind: Kind::Delete,
                phrase: phrase_from(tokens, v + 1),
                backward: false,
            });
            v += 1;
            continue;
        }
        // Deletion verbs.
        let strong_verb = DELETE_STRONG.contains(&t);
        let weak_verb = DELETE_WEAK.contains(&t)
            && (t != "rid" || matches!(prev, "get" | "getting"))
            && (!matches!(t, "throw" | "toss") || matches!(next, "away" | "out"));
        if strong_verb || weak_verb {
            let subject = subject_before(tokens, v);
            let ing = t.ends_with("ing");
            let agent_ok = match subject {
                Some(you) => you,
                None => !ing && prev != "to" || matches!(prev, "mind" | "appreciate"),
            } || (ing && matches!(prev, "mind" | "appreciate"));
            let negated = negated_before(tokens, v, 2);
            let start = if matches!(t, "rid" | "throw" | "toss") {
                v + 2
            } else {
                v + 1
            };
            let phrase = phrase_from(tokens, start.min(n));
            let object_ok = if strong_verb {
                personal_object(&phrase)
            } else {
                memory_object(&phrase)
            };
            if agent_ok && !negated && object_ok {
                cues.push(Cue {
                    strength: Strength::Strong,
                    kind: Kind::Delete,
                    phrase,
                    backward: false,
                });
            } else if agent_ok && !negated && points_back(&phrase) && strong_verb {
                // "… is wrong, so erase it": weak alone ("forget it, let's move on").
                cues.push(Cue {
                    strength: Strength::Weak,
                    kind: Kind::Delete,
                    phrase,
                    backward: true,
                });
            }
            v += 1;
            continue;
        }
        // "I'd prefer that gone", "I want it erased": a wish pointing back.
        if GONE.contains(&t)
            && DEMONSTRATIVES.contains(&prev)
            && v >= 2
            && matches!(
                tokens[v - 2].as_str(),
                "prefer" | "want" | "like" | "rather" | "need" | "wish"
            )
        {
            cues.push(Cue {
                strength: Strength::Strong,
                kind: Kind::Delete,
                phrase: vec![prev.to_string()],
                backward: true,
            });
            v += 1;
            continue;
        }
        // "… it shouldn't exist anymore": a strong wish pointing back.
        if t == "exist" && negated_before(tokens, v, 2) {
            cues.push(Cue {
                strength: Strength::Strong,
                kind: Kind::Delete,
                phrase: tokens[..v].iter().rev().take(2).rev().cloned().collect(),
                backward: true,
            });
            v += 1;
            continue;
        }
        // "… you might still think my doctor is Dr. Abara": weak alone.
        if matches!(t, "think" | "believe" | "assume")
            && tokens[v.saturating_sub(3)..v].iter().any(|x| x == "still")
            && tokens[v.saturating_sub(4)..v].iter().any(|x| x == "you")
        {
            let phrase = phrase_from(tokens, v + 1);
            if personal_object(&phrase) {
                cues.push(Cue {
                    strength: Strength::Weak,
                    kind: Kind::Delete,
                    phrase,
                    backward: false,
                });
            }
            v += 1;
            continue;
        }
        // Idioms of the past: "that's all in the past", "that's a chapter I've closed",
        // "that changed" — weak, naming what stands before them.
        let idiom_start = if t == "past" && v >= 2 && prev == "the" && tokens[v - 2] == "in" {
            Some(v - 2)
        } else if t == "chapter" && tokens[v + 1..].iter().take(4).any(|x| x == "closed") {
            Some(v)
        } else if t == "changed"
            && DEMONSTRATIVES.contains(&prev)
            && matches!(
                next,
                "" | "and" | "now" | "since" | "recently" | "so" | "but"
            )
        {
            Some(v - 1)
        } else {
            None
        };
        if let Some(start) = idiom_start {
            cues.push(backward_cue(tokens, start, IDIOM_FILLER));
            v += 1;
            continue;
        }
        // "I don't want my … sitting in your memory".
        if t == "want" && negated_before(tokens, v, 3) && subject_before(tokens, v) != Some(true) {
            let place = (v + 1..n.saturating_sub(1))
                .find(|&k| tokens[k] == "your" && MEMORY_PLACES.contains(&tokens[k + 1].as_str()));
            if let Some(place) = place {
                let mut end = place;
                while end > v + 1
                    && matches!(
                        tokens[end - 1].as_str(),
                        "in" | "inside"
                            | "within"
                            | "on"
                            | "to"
                            | "be"
                            | "sitting"
                            | "kept"
                            | "stored"
                            | "saved"
                            | "living"
                            | "staying"
                            | "remaining"
                            | "left"
                    )
                {
                    end -= 1;
                }
                let phrase = tokens[v + 1..end].to_vec();
                if personal_object(&phrase) {
                    cues.push(Cue {
                        strength: Strength::Strong,
                        kind: Kind::Delete,
                        phrase,
                        backward: false,
                    });
                    v = place + 2;
                    continue;
                }
            }
        }
        // Negated retention, active ("don't keep my …") or passive ("… retained").
        if RETAIN.contains(&t) || RETAIN_PASSIVE.contains(&t) {
            let passive = RETAIN_PASSIVE.contains(&t);
            if negated_before(tokens, v, if passive { 8 } else { 5 }) {
                let subject = subject_before(tokens, v);
                if passive {
                    // The phrase is what stands between the wish and the participle.
                    let from = (0..v)
                        .rev()
                        .find(|&j| {
                            matches!(tokens[j].as_str(), "want" | "need" | "like" | "wish")
                                || NEGATIONS.contains(&tokens[j].as_str())
                        })
                        .map_or(0, |j| j + 1);
                    let mut phrase: Vec<String> = tokens[from..v].to_vec();
                    // "… if my diet weren't something you remembered": the phrase is
                    // what stands before the negated copula.
                    if from > 0
                        && NEGATED_COPULAS.contains(&tokens[from - 1].as_str())
                        && !personal_object(&phrase)
                    {
                        let copula = from - 1;
                        let start = tokens[..copula]
                            .iter()
                            .position(|w| matches!(w.as_str(), "if" | "that"))
                            .map_or(0, |i| i + 1);
                        phrase = strip_lead(&tokens[start..copula]);
                    }
                    if any_in(&phrase, MEMORY_WORDS)
                        || (subject != Some(false) && personal_object(&phrase))
                    {
                        cues.push(Cue {
                            strength: Strength::Strong,
                            kind: Kind::Delete,
                            phrase,
                            backward: false,
                        });
                    }
                } else if subject != Some(false) {
                    let mut start = v + 1;
                    if next == "track" && tokens.get(v + 2).is_some_and(|x| x == "of") {
                        start = v + 3;
                    }
                    // "hang on to …", "hold onto …".
                    while tokens
                        .get(start)
                        .is_some_and(|x| matches!(x.as_str(), "on" | "to" | "onto"))
                    {
                        start += 1;
                    }
                    let phrase = phrase_from(tokens, start.min(n));
                    if personal_object(&phrase) {
                        cues.push(Cue {
                            strength: Strength::Strong,
                            kind: Kind::Delete,
                            phrase,
                            backward: false,
                        });
                    } else if !phrase.is_empty() && points_back(&phrase) {
                        // "… so there's no need to hang on to it": weak alone.
                        cues.push(Cue {
                            strength: Strength::Weak,
                            kind: Kind::Delete,
                            phrase,
                            backward: true,
                        });
                    }
                }
            }
            v += 1;
            continue;
        }
        // Negated inference: "don't work out my age from …".
        if INFER.contains(&t) {
            let particle = match t {
                "figure" | "figuring" | "work" | "working" => next == "out",
                "piece" | "piecing" | "put" | "putting" => next == "together",
                _ => true,
            };
            let has_particle = !matches!(
                t,
                "infer"
                    | "inferring"
                    | "deduce"
                    | "deducing"
                    | "conclude"
                    | "concluding"
                    | "assume"
                    | "assuming"
                    | "guess"
                    | "guessing"
                    | "calculate"
                    | "calculating"
                    | "derive"
                    | "deriving"
                    | "speculate"
                    | "speculating"
                    | "estimate"
                    | "estimating"
                    | "compute"
                    | "computing"
                    | "extrapolate"
            );
            if particle && negated_before(tokens, v, 3) && subject_before(tokens, v) != Some(false)
            {
                let start = if has_particle { v + 2 } else { v + 1 };
                let mut phrase = Vec::new();
                for w in tokens.iter().skip(start) {
                    if matches!(
                        w.as_str(),
                        "from" | "based" | "using" | "by" | "with" | "through" | "because"
                    ) {
                        break;
                    }
                    phrase.push(w.clone());
                }
                if !phrase.is_empty() {
                    cues.push(Cue {
                        strength: Strength::Strong,
                        kind: Kind::Infer,
                        phrase,
                        backward: false,
                    });
                }
            }
            v += 1;
            continue;
        }
        // "… never happened", "pretend I never told you about …".
        if t == "never" {
            let told = matches!(
                next,
                "told" | "mentioned" | "said" | "shared" | "brought" | "talked" | "existed"
            );
            let happened = matches!(next, "happened" | "happen")
                || (next == "have" && tokens.get(v + 2).is_some_and(|x| x == "happened"));
            let window = &tokens[v.saturating_sub(5)..v];
            let pretend = any_in(
                window,
                &["pretend", "act", "if", "though", "treat", "consider"],
            );
            let as_well = window.windows(2).any(|w| w[0] == "as" && w[1] == "well");
            if told && pretend {
                let mut start = v + 2;
                while start < n
                    && matches!(tokens[start].as_str(), "you" | "up" | "to" | "about" | "of")
                {
                    start += 1;
                }
                cues.push(Cue {
                    strength: Strength::Strong,
                    kind: Kind::Delete,
                    phrase: phrase_from(tokens, start),
                    backward: false,
                });
            } else if happened {
                let modal = (v.saturating_sub(5)..v)
                    .rev()
                    .find(|&j| matches!(tokens[j].as_str(), "might" | "may" | "could"));
                let end = modal.unwrap_or_else(|| {
                    if v > 0 && matches!(tokens[v - 1].as_str(), "had" | "has" | "have") {
                        v - 1
                    } else {
                        v
                    }
                });
                cues.push(Cue {
                    strength: if as_well || pretend {
                        Strength::Strong
                    } else {
                        Strength::Weak
                    },
                    kind: Kind::Delete,
                    phrase: strip_lead(&tokens[..end]),
                    backward: true,
                });
            }
            v += 1;
            continue;
        }
        // "I've moved on from …".
        if matches!(t, "moved" | "move" | "moving")
            && next == "on"
            && tokens.get(v + 2).is_some_and(|x| x == "from")
        {
            cues.push(Cue {
                strength: Strength::Weak,
                kind: Kind::Delete,
                phrase: phrase_from(tokens, v + 3),
                backward: false,
            });
            v += 3;
            continue;
        }
        // "… is outdated", "… is no longer true", "… isn't true anymore", "old news".
        let outdated = matches!(t, "outdated" | "obsolete")
            || (t == "longer"
                && prev == "no"
                && matches!(
                    next,
                    "true"
                        | "relevant"
                        | "accurate"
                        | "applies"
                        | "applicable"
                        | "valid"
                        | "correct"
                        | "current"
                        | "the"
                ))
            || (matches!(t, "true" | "relevant" | "accurate" | "valid" | "correct")
                && matches!(prev, "not" | "isn't" | "aren't" | "wasn't")
                && tokens[v..].iter().any(|x| x == "anymore"))
            || (t == "news" && prev == "old")
            || (matches!(t, "wrong" | "incorrect" | "inaccurate" | "false")
                && matches!(prev, "is" | "was" | "are" | "were" | "that's" | "it's"))
            || (t == "behind" && next == "me");
        if outdated {
            cues.push(backward_cue(tokens, v, OUTDATED_FILLER));
            v += 1;
            continue;
        }
        v += 1;
    }
    cues
}

/// Drops leading conjunctions and fillers from a phrase taken before a cue.
fn strip_lead(tokens: &[String]) -> Vec<String> {
    let mut start = 0;
    while start < tokens.len()
        && matches!(
            tokens[start].as_str(),
            "and"
                | "but"
                | "so"
                | "honestly"
                | "frankly"
                | "i"
                | "wish"
                | "feel"
                | "like"
                | "the"
                | "thing"
                | "about"
                | "whole"
                | "really"
                | "just"
        )
    {
        start += 1;
    }
    tokens[start..].to_vec()
}

/// Whether a clause states a replacement value, and whether the marker is one that
/// alone turns a weak cue into a request ("instead", "changed to", "only remember").
fn replacement_marker(tokens: &[String]) -> (bool, bool) {
    let has = |w: &str| tokens.iter().any(|t| t == w);
    let strong = has("instead")
        || tokens.windows(2).any(|w| {
            (matches!(
                w[0].as_str(),
                "changed" | "switched" | "shifted" | "moved" | "update" | "updated"
            ) && matches!(w[1].as_str(), "to" | "it"))
                || (w[0] == "only"
                    && matches!(
                        w[1].as_str(),
                        "remember" | "keep" | "store" | "save" | "note"
                    ))
                || matches!(
                    w[0].as_str(),
                    "replace" | "replaced" | "overwrite" | "overwritten"
                )
        })
        || tokens
            .windows(3)
            .any(|w| w[0] == "from" && w[1] == "now" && w[2] == "on");
    let weak = has("now")
        || has("nowadays")
        || has("currently")
        || has("new")
        || tokens.windows(2).any(|w| w[0] == "these" && w[1] == "days");
    (strong || weak, strong)
}

/// A replacement clause as a memory: without the instruction words and without the
/// old value it replaces ("changed from Thai to Italian" → "changed to Italian").
fn clean_statement(clause: &str) -> String {
    let words: Vec<&str> = clause.split_whitespace().collect();
    let lower: Vec<String> = words
        .iter()
        .map(|w| {
            w.to_lowercase()
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_string()
        })
        .collect();
    let mut keep = vec![true; words.len()];
    let mut i = 0;
    while i < words.len() {
        match lower[i].as_str() {
            "from" if lower.get(i + 1).is_none_or(|w| w != "now") => {
                if let Some(to) =
                    (i + 1..words.len()).find(|&j| lower[j] == "to" || lower[j] == "into")
                {
                    for k in &mut keep[i..to] {
                        *k = false;
                    }
                    i = to;
                    continue;
                }
            }
            "instead" if lower.get(i + 1).is_some_and(|w| w == "of") => {
                let end = (i + 2..words.len())
                    .find(|&j| words[j - 1].ends_with(','))
                    .unwrap_or(words.len());
                for k in &mut keep[i..end] {
                    *k = false;
                }
                i = end;
                continue;
            }
            "only"
                if lower.get(i + 1).is_some_and(|w| {
                    matches!(w.as_str(), "remember" | "keep" | "store" | "save" | "note")
                }) =>
            {
                keep[i] = false;
                keep[i + 1] = false;
                i += 2;
                continue;
            }
            "so" | "and" | "please" | "but" if (0..i).all(|j| !keep[j]) => keep[i] = false,
            _ => {}
        }
        i += 1;
    }
    let kept: Vec<&str> = words
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(w, _)| *w)
        .collect();
    kept.join(" ")
        .trim_matches(|c: char| c == ',' || c.is_whitespace())
        .to_string()
}

/// Splits a phrase into the parts it lists: at "and"/"or"/"plus"/"as well as" when
/// they open a new item ("… and that I …", "… and my …"), not inside a name ("Ann and
/// Roy").
fn split_parts(phrase: &[String]) -> Vec<Vec<String>> {
    const OPENS: &[&str] = &[
        "that",
        "my",
        "the",
        "about",
        "where",
        "when",
        "how",
        "what",
        "who",
        "i",
        "i'm",
        "i've",
        "i'd",
        "any",
        "anything",
        "everything",
        "all",
        "also",
        "whatever",
        "whether",
    ];
    let mut parts = vec![Vec::new()];
    let mut j = 0;
    while j < phrase.len() {
        let t = phrase[j].as_str();
        let next = phrase.get(j + 1).map(String::as_str).unwrap_or("");
        let splits = (matches!(t, "and" | "or" | "plus") && OPENS.contains(&next))
            || (t == "as" && next == "well" && phrase.get(j + 2).is_some_and(|x| x == "as"));
        if splits {
            parts.push(Vec::new());
            j += if t == "as" { 3 } else { 1 };
            continue;
        }
        if let Some(last) = parts.last_mut() {
            last.push(phrase[j].clone());
        }
        j += 1;
    }
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

#[rustfmt::skip]
const DEMONSTRATIVES: &[&str] = &["that", "this", "those", "these", "it", "them", "such"];

/// Whether a phrase only points back ("it", "that", "all of that"): it names nothing.
fn points_back(phrase: &[String]) -> bool {
    phrase
        .iter()
        .all(|t| is_stop_word(t) || DEMONSTRATIVES.contains(&t.as_str()))
}

/// Reads one part of a request's phrase as a target.
fn analyse(part: &[String], kind: Kind, today: Option<YearMonth>) -> Option<Target> {
    let text = part.join(" ");
    let periods = mentioned_periods(&text, today);
    let inference = kind == Kind::Infer || part.iter().any(|t| is_inference_word(&stem(t)));
    let content: Vec<&String> = part.iter().filter(|t| !is_stop_word(t)).collect();
    let stems = |keep_time: bool| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for t in &content {
            if !keep_time && is_time_word(t) {
                continue;
            }
            let s = stem(t);
            if is_generic(&s) || is_inference_word(&s) || out.contains(&s) {
                continue;
            }
            out.push(s);
        }
        out
    };
    let has_scope = part.iter().any(|t| {
        is_scope_word(&stem(t)) || matches!(t.as_str(), "all" | "any" | "everything" | "anything")
    });
    let demonstrative = part.iter().any(|t| DEMONSTRATIVES.contains(&t.as_str()));
    if inference {
        let topic = stems(true);
        return (!topic.is_empty()).then_some(Target::Inference(topic));
    }
    let without_time = stems(false);
    if !periods.is_empty() {
        let rest: Vec<&String> = without_time
            .iter()
            .filter(|t| {
                !matches!(
                    t.as_str(),
                    "event" | "happen" | "memori" | "moment" | "experienc" | "went" | "goings"
                )
            })
            .collect();
        if rest.is_empty() {
            return Some(Target::Periods(periods));
        }
        return Some(Target::Facts(stems(true)));
    }
    if without_time.is_empty() {
        let told = part.iter().any(|t| {
            matches!(
                t.as_str(),
                "told" | "said" | "mentioned" | "shared" | "wrote"
            )
        });
        let just = part.iter().any(|t| matches!(t.as_str(), "just" | "last"));
        if told && just {
            return Some(Target::Previous);
        }
        if has_scope && !demonstrative {
            return Some(Target::Everything);
        }
        return None;
    }
    if has_scope {
        let mut categories = Vec::new();
        let all_names = without_time.iter().all(|t| {
            let named = categories_named(t);
            categories.extend(named.iter().copied());
            !named.is_empty()
        });
        if all_names {
            categories.sort();
            categories.dedup();
            return Some(Target::Categories(categories));
        }
    }
    Some(Target::Facts(stems(true)))
}

/// A weak deletion cue naming what stands before `end`, less the filler words just
/// before it ("… is all in the past", "… is outdated now").
fn backward_cue(tokens: &[String], mut end: usize, filler: &[&str]) -> Cue {
    while end > 0 && filler.contains(&tokens[end - 1].as_str()) {
        end -= 1;
    }
    Cue {
        strength: Strength::Weak,
        kind: Kind::Delete,
        phrase: strip_lead(&tokens[..end]),
        backward: true,
    }
}

/// Words skipped between a backward cue and the phrase it names.
const IDIOM_FILLER: &[&str] = &[
    "is", "are", "was", "were", "all", "a", "that's", "it's", "has", "have", "been", "just", "now",
];

/// Words skipped between a backward cue and the phrase it names.
const OUTDATED_FILLER: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "now",
    "no",
    "not",
    "isn't",
    "aren't",
    "wasn't",
    "old",
    "completely",
    "totally",
    "all",
    "just",
    "kind",
    "of",
    "pretty",
    "out",
    "already",
    "firmly",
    "put",
    "i've",
    "have",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(text: &str) -> Vec<Target> {
        recognise(
            text,
            Some(YearMonth {
                year: 2024,
                month: 8,
            }),
        )
        .unwrap_or_else(|| panic!("not recognised: {text}"))
        .targets
    }

    fn facts(words: &[&str]) -> Target {
        Target::Facts(words.iter().map(|w| stem(w)).collect())
    }

    #[test]
    fn clauses_split_at_openers_not_lists() {
        assert_eq!(
            split_clauses(
                "I like Thai, Mexican, and vegetarian food, but now I prefer Italian; fine"
            ),
            vec![
                "I like Thai, Mexican, and vegetarian food",
                "but now I prefer Italian",
                "fine"
            ]
        );
    }

    #[test]
    fn direct_fact_request() {
        assert_eq!(
            targets("Please forget that I had a routine physical examination in December 2023."),
            vec![facts(&[
                "routine",
                "physical",
                "examination",
                "december",
                "2023"
            ])]
        );
    }

    #[test]
    fn compositional_request_splits_parts() {
        let t = targets(
            "Sorry to bother you, but would you mind forgetting that I plan to study nursing and that I go cycling on the Ann and Roy Butler Trail?",
        );
        assert_eq!(t.len(), 2, "{t:?}");
        assert_eq!(t[0], facts(&["plan", "study", "nursing"]));
        assert_eq!(t[1], facts(&["cycling", "ann", "roy", "butler", "trail"]));
    }

    #[test]
    fn category_request() {
        let t = targets(
            "Don't store any of my financial information. Delete everything you have in that category.",
        );
        assert_eq!(t.len(), 1, "{t:?}");
        assert!(matches!(&t[0], Target::Categories(c) if c.len() == 1 && c[0].name() == "finance"));
        let t = targets("I'd rather you didn't keep anything about my health.");
        assert!(
            matches!(&t[0], Target::Categories(c) if c[0].name() == "health"),
            "{t:?}"
        );
    }

    #[test]
    fn inference_request() {
        let t = targets(
            "Delete that inferred detail about how long I have lived in my current home immediately.",
        );
        assert_eq!(
            t,
            vec![Target::Inference(vec![
                stem("long"),
                stem("lived"),
                stem("current"),
                stem("home")
            ])]
        );
        let t = targets("Please don't work out my age from my graduation year.");
        assert_eq!(t, vec![Target::Inference(vec![stem("age")])]);
    }

    #[test]
    fn temporal_request() {
        let t = targets(
            "I've completely moved on from everything around June 2024, and those days might as well have never happened. I don't want any information from that time retained anymore.",
        );
        assert_eq!(
            t,
            vec![Target::Periods(vec![Period::month(YearMonth {
                year: 2024,
                month: 6
            })])]
        );
    }

    #[test]
    fn replacement_request() {
        let r = recognise(
            "Please forget that I used to like Thai and Mexican restaurants. My preference has changed to Italian restaurants, so only remember Italian restaurants.",
            None,
        )
        .unwrap();
        assert_eq!(
            r.targets,
            vec![facts(&["like", "thai", "mexican", "restaurants"])]
        );
        assert_eq!(
            r.statements,
            vec![
                "My preference has changed to Italian restaurants",
                "Italian restaurants.",
                "I like Italian restaurants."
            ]
        );
        assert_eq!(
            clean_statement("I switched from tea to coffee"),
            "I switched to coffee"
        );
    }

    #[test]
    fn pointing_back_takes_the_preceding_clause() {
        let r = recognise(
            "I don't like Thai food anymore, that's outdated. Now I only eat Italian food instead.",
            None,
        )
        .unwrap();
        assert_eq!(r.targets, vec![facts(&["like", "thai", "food"])]);
        assert_eq!(
            r.statements,
            vec![
                "Now I only eat Italian food instead.",
                "I like Italian food."
            ]
        );
        assert_eq!(
            restate(
                &tokenize("that my favorite color is blue"),
                "Now it's green."
            )
            .as_deref(),
            Some("My favorite color is green.")
        );
        assert_eq!(
            targets(
                "My old job at the bakery is behind me now — it might as well never have happened."
            ),
            vec![facts(&["old", "job", "bakery"])]
        );
    }

    #[test]
    fn more_indirect_phrasings() {
        assert_eq!(
            targets(
                "I don't really want everything I mentioned about my best friend's name sitting in your memory, if that makes sense."
            ),
            vec![facts(&["best", "friend", "name"])]
        );
        assert_eq!(
            targets(
                "Honestly, I'd feel better if my diet, the loan I took out in December 2023 and my therapy weren't something you remembered."
            ),
            vec![
                facts(&["diet"]),
                facts(&["loan", "took", "december", "2023"]),
                facts(&["therapy"])
            ]
        );
        let t = targets(
            "It makes me uncomfortable that you still know all of my financial information; I'd prefer that gone.",
        );
        assert!(
            matches!(&t[..], [Target::Categories(c)] if c[0].name() == "finance"),
            "{t:?}"
        );
        assert_eq!(
            targets(
                "That inferred detail about how many hours a week I spend on yoga: that's a chapter I've closed, and as far as you're concerned it shouldn't exist anymore."
            ),
            vec![Target::Inference(vec![
                stem("hours"),
                stem("week"),
                stem("spend"),
                stem("yoga")
            ])]
        );
        let r = recognise(
            "Overwrite it right now: my frequent flyer number is AX4471920. The part about how my frequent flyer number is DL8830215 is wrong, so erase it.",
            None,
        )
        .unwrap();
        assert_eq!(
            r.targets,
            vec![facts(&["frequent", "flyer", "number", "dl8830215"])]
        );
        assert_eq!(r.statements[0], "my frequent flyer number is AX4471920.");
        let r = recognise(
            "Things have changed: I still owe $34,200 on my student loans now. The version where I still owe $9,650 on my student loans is behind me, so there's no need to hang on to it.",
            None,
        )
        .unwrap();
        assert_eq!(
            r.targets,
            vec![facts(&["still", "owe", "9650", "student", "loans"])]
        );
        assert_eq!(
            r.statements,
            vec!["I still owe $34,200 on my student loans now."]
        );
        assert_eq!(
            targets(
                "I'm done with everything I mentioned about my commute time; it's in the past, and I'd like it gone from your side too."
            ),
            vec![facts(&["commute"])]
        );
        assert_eq!(
            targets(
                "Let's act as if I never told you about the laptop I bought. That's behind me now."
            ),
            vec![facts(&["laptop", "bought"])],
            "the second sentence points back at the request itself"
        );
    }

    #[test]
    fn everything_and_previous() {
        assert_eq!(
            targets("Forget everything I've told you."),
            vec![Target::Everything]
        );
        assert_eq!(
            targets("Please forget what I just told you."),
            vec![Target::Previous]
        );
        assert_eq!(targets("Please delete that information."), vec![]);
    }

    #[test]
    fn ordinary_talk_is_no_request() {
        for text in [
            "I forgot my keys at the office yesterday.",
            "Don't forget my dentist appointment on Friday!",
            "Please don't forget that I'm allergic to nuts.",
            "I need to delete some old photos from my phone.",
            "Can you help me remove the background from this picture?",
            "Remove the onions from the recipe, please.",
            "It's easy to forget my password.",
            "Did you forget my birthday?",
            "I don't remember my old address.",
            "I moved on from teaching to sales in 2019.",
            "Forget it, let's talk about something else.",
            "Let's forget about work for a bit.",
            "I don't keep receipts.",
            "How do I clear my browser cache?",
            "I moved on from teaching to sales in 2019, and that changed everything.",
            "It's in the past now, my dad always said.",
            "Do you still think my plan is realistic?",
        ] {
            assert!(
                recognise(text, None).is_none(),
                "taken as a request: {text}"
            );
        }
    }
}
