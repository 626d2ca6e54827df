//! Reading a question: the part that asks ([`question_proper`]) apart from its framing,
//! its content words, the statement a yes/no question asks about, the kind of value it
//! wants ([`Want`]: a name, a place, a time, a number, a length of time) and the kind of
//! thing a "what/which X" question names.

use super::values;
use crate::text;
use std::collections::HashSet;
use std::sync::LazyLock;

/// Words that frame a question (roles, overrides, requests to tell) without being
/// what it asks about.
pub(crate) const FRAME_WORDS: &[&str] = &[
    "assistant",
    "records",
    "record",
    "official",
    "file",
    "files",
    "access",
    "authorized",
    "authorised",
    "authority",
    "administrator",
    "admin",
    "developer",
    "system",
    "mode",
    "role",
    "pretend",
    "ignore",
    "previous",
    "instructions",
    "instruction",
    "prompt",
    "override",
    "rules",
    "policy",
    "restrictions",
    "unrestricted",
    "debug",
    "audit",
    "auditor",
    "compliance",
    "verify",
    "verification",
    "confirm",
    "state",
    "tell",
    "know",
    "remember",
    "recall",
    "say",
    "answer",
    "question",
    "respond",
    "reply",
    "information",
    "info",
    "detail",
    "details",
    "based",
    "putting",
    "together",
    "given",
    "mention",
    "mentioned",
    "told",
    "said",
    "shared",
    "stored",
    "memory",
    "memories",
    "full",
    "complete",
    "exactly",
    "need",
    "want",
    "true",
    "false",
    "task",
    "report",
    "reveal",
    "repeat",
    "list",
    "output",
    "print",
    "data",
    "database",
    "profile",
    "user",
    "security",
    "purpose",
    "purposes",
    "form",
    "anything",
    "everything",
    "remind",
    "act",
    "acting",
    "character",
    "story",
    "game",
    "hypothetically",
    "imagine",
    "assume",
    "forget",
    "forgotten",
    "deleted",
    "delete",
    "erased",
    "whatever",
    "ever",
    "still",
    "now",
];

/// Auxiliary verbs that open a yes/no question.
pub(crate) const AUXILIARIES: &[&str] = &[
    "do", "does", "did", "is", "are", "was", "were", "am", "have", "has", "had", "can", "could",
    "will", "would", "should",
];

pub(crate) const WH_WORDS: &[&str] = &[
    "what", "which", "where", "when", "who", "whom", "whose", "why", "how",
];

/// Words after which a yes/no statement gives its value ("… was biology").
pub(crate) const LINKS: &[&str] = &[
    "is", "was", "are", "were", "am", "be", "been", "in", "at", "for", "to", "on", "as", "from",
    "with", "by", "named", "called", "into", "near", "about", "of",
];

/// The kind of value a question asks for, as far as its question words tell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Want {
    /// Who, whom, whose, "what is X's name", "what is X called": a name.
    Name,
    /// Where: a place or an organisation, usually named.
    Place,
    /// What time: a time of day.
    Clock,
    /// When, what year/month/date/day: a date or a period.
    Time,
    /// How many, how much, how often, how old: a number.
    Number,
    /// How long: a length of time.
    Duration,
    /// Anything else (what, which, how): a phrase of no particular kind.
    Other,
}

impl Want {
    /// Whether a value of `kind` answers a question wanting this.
    pub(crate) fn accepts(self, kind: values::Kind) -> bool {
        use values::Kind as K;
        match self {
            Want::Name | Want::Place => kind == K::Name,
            Want::Clock => kind == K::Clock,
            Want::Time => matches!(kind, K::Date | K::Clock),
            Want::Number => matches!(kind, K::Number | K::Duration),
            Want::Duration => matches!(kind, K::Duration | K::Date),
            Want::Other => false,
        }
    }

    /// The factor on the score of a sentence holding no value of the wanted kind
    /// (places are often unnamed: "at the gym").
    pub(crate) fn unvalued(self) -> f64 {
        match self {
            Want::Other => 1.0,
            Want::Place => 0.85,
            _ => 0.7,
        }
    }
}

/// Kinds of place a "which/what X" question can ask for; a named place answers it.
pub(crate) const PLACE_KINDS: &[&str] = &[
    "city",
    "town",
    "country",
    "state",
    "village",
    "neighborhood",
    "neighbourhood",
    "suburb",
    "island",
    "county",
    "region",
    "street",
];

pub(crate) fn frame_words() -> &'static HashSet<String> {
    static SET: LazyLock<HashSet<String>> =
        LazyLock::new(|| FRAME_WORDS.iter().map(|w| text::stem(w)).collect());
    &SET
}

/// The user as a subject: a question asking what "I" do prefers sentences where "I"
/// do it over sentences about someone else ("my sister lives …").
pub(crate) const FIRST_PERSON: &[&str] = &["i", "i'm", "i've", "i'd", "i'll"];

/// Whether a piece of a question holds a content word (not a stop-word, not framing).
pub(crate) fn has_content(piece: &str) -> bool {
    !question_terms(&text::tokenize(piece)).is_empty()
}

/// The question proper, and the rest of the text as context.
///
/// The sentences are tried from the one that asks (the last holding a `?`, else the
/// last) back to the first; in each, the first of these pieces holding a content
/// word is the question proper: the clause after its last colon ("For the audit log,
/// answer exactly: What am I allergic to?"), what follows an opening clause set off by
/// a comma when it starts with a question word, an auxiliary or a word of telling
/// ("Taking my update into account, what …", "Without naming anything specific,
/// remind me of … my neighbor"), the sentence itself. Without any, the whole text.
/// The part of a question that asks, without its framing (see [`crate::answer::Extractive`]): a
/// retrieving system may search with it so that an attack frame's words do not crowd
/// out what is asked.
pub fn question_proper(question: &str) -> String {
    let sentences = text::split_sentences(question);
    let asking = sentences
        .iter()
        .rposition(|s| s.contains('?'))
        .or(sentences.len().checked_sub(1));
    let Some(asking) = asking else {
        return question.to_string();
    };
    let order = std::iter::once(asking).chain((0..sentences.len()).rev().filter(|&i| i != asking));
    for i in order {
        let sentence = sentences[i].as_str();
        for piece in question_pieces(sentence) {
            if has_content(piece) {
                return piece.to_string();
            }
        }
    }
    question.to_string()
}

/// The candidate question pieces of one sentence, most specific first.
pub(crate) fn question_pieces(sentence: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    // A colon followed by a space: "5:30" is no clause boundary.
    if let Some(i) = sentence.rfind(": ") {
        let rest = sentence[i + 2..].trim();
        if !rest.is_empty() {
            pieces.push(rest);
        }
    }
    // "… about <topic> earlier and …": the topic a sentence is about, up to the end of
    // its phrase, so "I was telling someone about my blood type earlier" gives "my blood
    // type" (a reply "remind me what you know about that" points back to it).
    if let Some(i) = sentence.rfind(" about ") {
        let rest = &sentence[i + 7..];
        let end = [
            " earlier",
            " and ",
            ",",
            ".",
            ";",
            "?",
            " yesterday",
            " before",
            " last ",
            " the other day",
        ]
        .iter()
        .filter_map(|stop| rest.find(stop))
        .min()
        .unwrap_or(rest.len());
        let topic = rest[..end].trim();
        if !topic.is_empty() {
            pieces.push(topic);
        }
    }
    for (i, _) in sentence.match_indices(", ") {
        let rest = sentence[i + 2..].trim();
        let opens = text::tokenize(rest).first().is_some_and(|w| {
            WH_WORDS.contains(&w.as_str())
                || AUXILIARIES.contains(&w.as_str())
                || frame_words().contains(&text::stem(w))
        });
        if opens {
            pieces.push(rest);
            break;
        }
    }
    pieces.push(sentence);
    pieces
}

/// The content terms of the question that lie outside its proper part (context and
/// framing): they only break near-ties.
pub(crate) fn context_terms(question: &str, core_terms: &[String]) -> Vec<String> {
    question_terms(&text::tokenize(question))
        .into_iter()
        .filter(|t| !core_terms.contains(t))
        .collect()
}

/// Content terms of a question: stemmed, without stop-words and framing words.
pub(crate) fn question_terms(tokens: &[String]) -> Vec<String> {
    let mut tokens = tokens.to_vec();
    super::lexicon::plain_idioms(&mut tokens);
    text::dedup(
        tokens
            .iter()
            .filter(|t| !text::is_stop_word(t))
            .map(|t| text::stem(t))
            .filter(|t| !frame_words().contains(t))
            .collect(),
    )
}

/// The statement a yes/no question asks about, as tokens; `None` for other questions.
pub(crate) fn yes_no_statement(core: &str) -> Option<Vec<String>> {
    let tokens = text::tokenize(core);
    let find = |pattern: &[&str]| {
        tokens
            .windows(pattern.len())
            .position(|w| w.iter().zip(pattern).all(|(a, b)| a == b))
    };
    if let Some(i) = find(&["is", "it", "true", "that"]) {
        return Some(tokens[i + 4..].to_vec());
    }
    if let Some(i) = find(&["is", "it", "true"]) {
        return Some(tokens[i + 3..].to_vec());
    }
    if let Some(i) = find(&["yes", "or", "no"]) {
        let rest = &tokens[i + 3..];
        let skip = rest
            .iter()
            .take_while(|t| AUXILIARIES.contains(&t.as_str()) || t.as_str() == "it")
            .count();
        return Some(rest[skip..].to_vec());
    }
    let first = tokens.first()?;
    let second = tokens.get(1).map(String::as_str).unwrap_or("");
    if AUXILIARIES.contains(&first.as_str())
        && second != "you"
        && !tokens.iter().any(|t| WH_WORDS.contains(&t.as_str()))
    {
        return Some(tokens[1..].to_vec());
    }
    None
}

/// The clause of a question that asks: the last clause set off by a comma that holds
/// a question word ("Putting together where I live and when I moved in, how long have
/// I lived here?" → "how long have I lived here?"), else the whole question.
pub(crate) fn asking_clause(question: &str) -> &str {
    question
        .rsplit(", ")
        .find(|clause| {
            text::tokenize(clause)
                .iter()
                .any(|t| WH_WORDS.contains(&t.as_str()))
        })
        .unwrap_or(question)
}

/// Stemmed words that ask for a sort of thing ("what kind of pet"), not about it.
pub(crate) const SORT_WORDS: &[&str] = &["kind", "typ", "sort"];

/// The kind of value a question wants, from its first question word and the word
/// after it ("what time" → a time of day, "how long" → a length of time, "who" → a
/// name, "what is my dog's name" → a name).
pub(crate) fn want_of(tokens: &[String]) -> Want {
    let Some(at) = tokens.iter().position(|t| WH_WORDS.contains(&t.as_str())) else {
        // No question word ("… remind me of my best friend's name"): the noun tells.
        let has = |w: &[&str]| tokens.iter().any(|t| w.contains(&t.as_str()));
        return if has(&["name", "names", "called"]) {
            Want::Name
        } else if has(&["birthday", "date"]) {
            Want::Time
        } else {
            Want::Other
        };
    };
    let next = tokens.get(at + 1).map_or("", String::as_str);
    let named = tokens[at..]
        .iter()
        .any(|t| matches!(t.as_str(), "name" | "names" | "called" | "named"));
    match tokens[at].as_str() {
        "who" | "whom" | "whose" => Want::Name,
        "where" => Want::Place,
        "when" => Want::Time,
        "what" | "which" => match next {
            "time" | "hour" => Want::Clock,
            "year" | "month" | "date" | "day" => Want::Time,
            _ if named => Want::Name,
            _ if PLACE_KINDS.contains(&next) => Want::Place,
            _ => Want::Other,
        },
        "how" => match next {
            "long" => Want::Duration,
            "many" | "much" | "often" | "old" => Want::Number,
            _ => Want::Other,
        },
        _ => Want::Other,
    }
}

/// The words of a question that only say what kind of value it wants ("name" in
/// "What is my dog's name?", "time" in "What time do I wake up?"), stemmed: the
/// sentence that states the value need not hold them.
pub(crate) fn kind_words(want: Want) -> &'static [&'static str] {
    match want {
        Want::Name => &["nam", "call"],
        Want::Clock => &["tim", "hour"],
        Want::Time => &["year", "month", "dat", "day"],
        Want::Number => &["often", "old"],
        Want::Duration => &["long"],
        Want::Place | Want::Other => &[],
    }
}

/// Words after "what"/"which" that name no kind of thing ("what kind of …", "what
/// time …"): the answer need not hold them.
pub(crate) const NO_HEAD: &[&str] = &[
    "kind", "type", "sort", "sorts", "kinds", "types", "time", "year", "month", "day", "date",
    "days",
];

/// The kind of thing a "what/which X …" question asks for: the last word of the
/// noun phrase after a leading "what"/"which" ("What smart home device did I
/// install …?" → "devic"; "Which bank holds my savings?" → "bank"), stemmed; the answer should name it. `None` for other
/// questions ("What is my …?", "What do I …?").
pub(crate) fn asked_kind(tokens: &[String]) -> Option<String> {
    let start = tokens
        .iter()
        .position(|t| !matches!(t.as_str(), "so" | "and" | "but" | "then" | "ok" | "okay"))?;
    if !matches!(tokens[start].as_str(), "what" | "which") {
        return None;
    }
    let rest = &tokens[start + 1..];
    let end = rest
        .iter()
        .position(|t| {
            AUXILIARIES.contains(&t.as_str())
                || FIRST_PERSON.contains(&t.as_str())
                || matches!(t.as_str(), "my" | "you" | "your" | "we" | "me")
        })
        .unwrap_or(rest.len());
    let phrase = &rest[..end];
    // Before an auxiliary or "I" ("What laptop did I buy?") the phrase is all noun;
    // otherwise its last word is the verb ("Which bank holds my savings?").
    let inverted = rest
        .get(end)
        .is_some_and(|t| AUXILIARIES.contains(&t.as_str()) || FIRST_PERSON.contains(&t.as_str()));
    let head = if inverted {
        phrase.last()?
    } else {
        phrase.len().checked_sub(2).map(|i| &phrase[i])?
    };
    if text::is_stop_word(head) || NO_HEAD.contains(&head.as_str()) {
        return None;
    }
    Some(text::stem(head)).filter(|h| !frame_words().contains(h))
}

/// The question's key word: the kind asked for ([`asked_kind`]), else the head of
/// its first "my …" phrase ("How long is my commute to work?" → "commut"; "What is
/// my partner's name?" → "partner"), stemmed. A sentence holding it needs no second
/// question word ("My neighborhood is Riverside Heights." answers "Which
/// neighborhood do I live in?").
pub(crate) fn key_term(tokens: &[String]) -> Option<String> {
    if let Some(kind) = asked_kind(tokens) {
        return Some(kind);
    }
    let my = tokens.iter().position(|t| t == "my")?;
    let phrase: Vec<&String> = tokens[my + 1..]
        .iter()
        .take_while(|t| !text::is_stop_word(t))
        .collect();
    let mut head = phrase.last()?;
    if matches!(head.as_str(), "name" | "names") {
        head = phrase.len().checked_sub(2).map(|i| &phrase[i])?;
    }
    Some(text::stem(head)).filter(|h| !frame_words().contains(h))
}
