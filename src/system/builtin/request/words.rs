//! The recogniser's word lists (negations, subjects, memory places, deletion and
//! retention verbs) and the small readings of a token stream built on them.

#[rustfmt::skip]
pub(super) const NEGATIONS: &[&str] = &[
    "don't", "dont", "not", "never", "won't", "can't", "cannot", "shouldn't", "didn't",
    "doesn't", "wouldn't", "no", "without", "stop", "stopped", "quit", "isn't", "aren't",
    "wasn't", "weren't",
];

/// Negated copulas: "… weren't something you remembered" negates what stands before.
pub(super) const NEGATED_COPULAS: &[&str] = &["isn't", "aren't", "wasn't", "weren't"];

/// Where the assistant keeps things: "… sitting in your memory".
#[rustfmt::skip]
pub(super) const MEMORY_PLACES: &[&str] = &[
    "memory", "memories", "records", "notes", "files", "head", "system", "database", "mind",
];

/// Participles that wish something gone: "I'd prefer that gone".
#[rustfmt::skip]
pub(super) const GONE: &[&str] = &[
    "gone", "erased", "deleted", "removed", "forgotten", "wiped", "scrubbed", "purged",
];

#[rustfmt::skip]
pub(super) const SELF_SUBJECTS: &[&str] = &[
    "i", "i'm", "i've", "i'll", "we", "we're", "we've", "we'll", "let", "lets", "me", "myself",
];

#[rustfmt::skip]
pub(super) const YOU_SUBJECTS: &[&str] = &["you", "you'll", "you've", "you'd", "u", "yourself"];

/// Words before "you" that make it a question or a condition, not a request.
#[rustfmt::skip]
pub(super) const NOT_REQUESTING_YOU: &[&str] = &[
    "did", "do", "does", "don't", "didn't", "doesn't", "have", "has", "had", "haven't", "if",
    "when", "whether", "how", "why", "what", "can't", "won't", "unless", "once",
];

#[rustfmt::skip]
pub(super) const PERSONAL: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "my", "me", "mine", "myself", "we", "our", "us",
];

#[rustfmt::skip]
pub(super) const MEMORY_WORDS: &[&str] = &[
    "information", "info", "detail", "details", "data", "record", "records", "memory",
    "memories", "note", "notes", "mention", "mentions", "everything", "anything", "fact",
    "facts", "stuff", "whatever", "all", "any", "history", "conversation", "conversations",
    "said", "told", "mentioned", "shared", "inferred", "inference", "conclusion", "trace",
    "traces", "reference", "references",
];

/// Deletion verbs that need only a personal object ("forget my address").
#[rustfmt::skip]
pub(super) const DELETE_STRONG: &[&str] = &[
    "forget", "delete", "erase", "wipe", "purge", "scrub", "expunge", "forgetting",
    "deleting", "erasing", "wiping", "purging", "scrubbing", "expunging",
];

/// Deletion verbs that need a memory word ("remove the information about …").
#[rustfmt::skip]
pub(super) const DELETE_WEAK: &[&str] = &[
    "remove", "clear", "drop", "discard", "ditch", "eliminate", "removing", "clearing",
    "dropping", "discarding", "ditching", "eliminating", "rid", "throw", "toss", "lose",
];

#[rustfmt::skip]
pub(super) const RETAIN: &[&str] = &[
    "hang", "hanging", "keep", "keeping", "store", "storing", "remember", "remembering", "retain", "retaining",
    "save", "saving", "track", "tracking", "record", "recording", "know", "knowing", "hold",
    "holding", "log", "logging", "memorize", "memorise", "memorizing", "memorising",
];

#[rustfmt::skip]
pub(super) const RETAIN_PASSIVE: &[&str] = &[
    "kept", "stored", "remembered", "retained", "saved", "tracked", "recorded", "logged",
    "memorized", "memorised", "held",
];

#[rustfmt::skip]
pub(super) const INFER: &[&str] = &[
    "infer", "inferring", "deduce", "deducing", "conclude", "concluding", "assume",
    "assuming", "guess", "guessing", "calculate", "calculating", "derive", "deriving",
    "speculate", "speculating", "estimate", "estimating", "figure", "figuring", "work",
    "working", "piece", "piecing", "put", "putting", "compute", "computing", "extrapolate",
];

/// Words that end a cue's phrase.
#[rustfmt::skip]
pub(super) const PHRASE_CUTS: &[&str] = &[
    "because", "since", "but", "so", "instead", "though", "although", "unless",
];

pub(super) fn any_in(tokens: &[String], set: &[&str]) -> bool {
    tokens.iter().any(|t| set.contains(&t.as_str()))
}

/// The nearest subject pronoun before `v` in the clause: `Some(true)` the assistant,
/// `Some(false)` the user, `None` no subject (imperative).
pub(super) fn subject_before(tokens: &[String], v: usize) -> Option<bool> {
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

pub(super) fn negated_before(tokens: &[String], v: usize, window: usize) -> bool {
    let start = v.saturating_sub(window);
    (start..v).any(|j| {
        let t = tokens[j].as_str();
        NEGATIONS.contains(&t) || (t == "longer" && j > 0 && tokens[j - 1] == "no")
    })
}

/// The tokens after `start`, up to a phrase cut (or "and" opening a new request).
pub(super) fn phrase_from(tokens: &[String], start: usize) -> Vec<String> {
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
pub(super) fn personal_object(phrase: &[String]) -> bool {
    any_in(phrase, PERSONAL) || any_in(phrase, MEMORY_WORDS)
}

/// Whether a phrase names a memory, as the weaker deletion verbs need.
pub(super) fn memory_object(phrase: &[String]) -> bool {
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
