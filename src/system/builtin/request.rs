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

mod cues;
mod words;

use cues::*;

use super::lexicon::{Category, categories_named, is_generic, is_inference_word, is_scope_word};
use crate::text::dates::{Period, YearMonth, is_time_word, mentioned_periods, spell_iso_dates};
use crate::text::{is_stop_word, split_sentences, stem, tokenize};
use words::*;

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

#[cfg(test)]
mod tests;
