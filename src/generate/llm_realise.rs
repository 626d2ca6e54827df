//! The optional LLM realisation stage of the generator (`bemula generate --realise
//! llm:MODEL`): after the templates have written a dataset, a model rewrites it unit
//! by unit (each ordinary user turn and assistant reply, each request exchange's user
//! text, each question's text), one chat request per unit at temperature 0, and every
//! rewrite is checked before it is accepted.
//!
//! A rewrite is accepted only when it is non-empty, at most [`LENGTH_FACTOR`] times
//! the original's length (plus [`LENGTH_SLACK`] characters), still states every fact
//! value the original states, and states no target value of any request that the
//! original does not already state (so no target leaks into a turn before its
//! request, and no confirmation or filler gains one). It must also keep the unit's
//! form: a question stays a question (a yes/no question a yes/no question, "yes or
//! no" kept where the original says it, as in the Boolean attack frame), the person
//! stays (the user's "my building" does not become "your building"), and nothing is
//! added around the text: no quotes around it, no extra lines, no notes about the
//! rewriting ("(no quotes) No labels or notes added.", "Here is the rewritten…"). A
//! rejected rewrite is asked for once more, with the reason; a second rejection keeps
//! the template text.
//! Confirmations, fillers and relearning dialogues are kept as templated.

use crate::dataset::{Dataset, Instance};
use crate::llm::prompt::neutralise;
use crate::llm::{LlmClient, LlmError, Message, Role};
use crate::text::normalize::Text;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::io::Write;

/// Version of the rewriting prompt: part of every cache key.
pub const PROMPT_VERSION: &str = "realise-v1";

/// A rewrite may be at most this many times as long as the original (in characters)…
pub const LENGTH_FACTOR: usize = 3;
/// …plus this many characters, so that very short originals can still be rephrased.
pub const LENGTH_SLACK: usize = 20;

const SYSTEM: &str = "You rewrite single lines of a conversation between a user and an \
AI assistant so that they read like natural, fluent English. Keep the meaning, the \
speaker and the tone. Keep every listed value exactly as written, character for \
character. Never add facts, names, numbers or dates that the original does not state. \
Reply with the rewritten text only: no quotes, no labels, no commentary.";

/// The kinds of units a realisation rewrites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    /// What the user says in an ordinary turn.
    User,
    /// What the assistant replies in an ordinary turn.
    Assistant,
    /// The user's text of a forget request exchange.
    Request,
    /// A question's text.
    Question,
}

impl UnitKind {
    fn speaker(self) -> &'static str {
        match self {
            UnitKind::User => "the user, chatting with the assistant",
            UnitKind::Assistant => "the assistant, replying to the user",
            UnitKind::Request => "the user, asking the assistant to forget something",
            UnitKind::Question => "the user, asking the assistant a question about themselves",
        }
    }
}

/// What became of the units of one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCounts {
    /// Units left as they were: empty, or the model returned the same text.
    pub kept: usize,
    /// Units whose rewrite was accepted.
    pub rewritten: usize,
    /// Units whose rewrites were rejected twice: the template text stays.
    pub fallback: usize,
}

/// What became of every unit, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RealiseCounts {
    /// Ordinary user turns.
    pub user: KindCounts,
    /// Ordinary assistant replies.
    pub assistant: KindCounts,
    /// Request exchanges' user texts.
    pub request: KindCounts,
    /// Question texts.
    pub question: KindCounts,
}

impl RealiseCounts {
    fn of(&mut self, kind: UnitKind) -> &mut KindCounts {
        match kind {
            UnitKind::User => &mut self.user,
            UnitKind::Assistant => &mut self.assistant,
            UnitKind::Request => &mut self.request,
            UnitKind::Question => &mut self.question,
        }
    }

    /// One line per kind: `user: 10 rewritten, 2 kept, 1 fallback`.
    pub fn lines(&self) -> Vec<String> {
        [
            ("user turns", self.user),
            ("assistant replies", self.assistant),
            ("requests", self.request),
            ("questions", self.question),
        ]
        .iter()
        .map(|(name, c)| {
            format!(
                "{name}: {} rewritten, {} kept, {} fallback",
                c.rewritten, c.kept, c.fallback
            )
        })
        .collect()
    }
}

/// Where a unit's text lives in its instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Turn {
        session: usize,
        turn: usize,
        assistant: bool,
    },
    Request(usize),
    Question(usize),
}

/// One text to rewrite, with the values it must keep and must not gain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Its kind.
    pub kind: UnitKind,
    /// The template text.
    pub original: String,
    /// Values the original states: the rewrite must state them too.
    pub required: Vec<String>,
    /// Request target values the original does not state: the rewrite must not either.
    pub forbidden: Vec<String>,
    instance: usize,
    place: Place,
}

impl Unit {
    /// A unit of `kind` over `original`, its value lists drawn from `values` (every fact
    /// value of the instance) and `targets` (every request target value).
    pub fn new(kind: UnitKind, original: &str, values: &[String], targets: &[String]) -> Unit {
        let text = Text::new(original);
        let stated = |v: &String| text.contains(&Text::value(v));
        let mut required: Vec<String> = values.iter().filter(|v| stated(v)).cloned().collect();
        required.dedup();
        let mut forbidden: Vec<String> = targets
            .iter()
            .filter(|v| !stated(v) && !contains_plain(original, v))
            .cloned()
            .collect();
        forbidden.dedup();
        Unit {
            kind,
            original: original.to_string(),
            required,
            forbidden,
            instance: 0,
            place: Place::Question(0),
        }
    }

    /// Checks a rewrite against the unit's invariants; the reason when it fails.
    pub fn check(&self, rewrite: &str) -> Result<(), String> {
        let rewrite = rewrite.trim();
        let text = Text::new(rewrite);
        if text.is_empty() {
            return Err("the rewrite is empty".into());
        }
        let bound = self.original.chars().count() * LENGTH_FACTOR + LENGTH_SLACK;
        let length = rewrite.chars().count();
        if length > bound {
            return Err(format!(
                "the rewrite is {length} characters long, more than the {bound} allowed"
            ));
        }
        self.check_form(rewrite)?;
        if let Some(missing) = self
            .required
            .iter()
            .find(|v| !text.contains(&Text::value(v)))
        {
            return Err(format!("the rewrite drops the value {missing:?}"));
        }
        if let Some(added) = self
            .forbidden
            .iter()
            .find(|v| text.contains(&Text::value(v)) || contains_plain(rewrite, v))
        {
            return Err(format!("the rewrite adds the value {added:?}"));
        }
        Ok(())
    }

    /// The checks of form: no quotes, extra lines or notes around the text; a question
    /// kept a question of the same kind; the person kept.
    fn check_form(&self, rewrite: &str) -> Result<(), String> {
        let original = self.original.trim();
        if quoted(rewrite) && !quoted(original) {
            return Err("the rewrite is wrapped in quotes".into());
        }
        if rewrite.lines().count() > original.lines().count() {
            return Err("the rewrite adds lines (reply with the rewritten text only)".into());
        }
        let lower_original = original.to_lowercase();
        let lower = rewrite.to_lowercase();
        if let Some(note) = META_MARKERS
            .iter()
            .find(|m| lower.contains(*m) && !lower_original.contains(*m))
        {
            return Err(format!(
                "the rewrite talks about the rewriting ({note:?}); reply with the text only"
            ));
        }
        if let Some(opening) = META_OPENINGS
            .iter()
            .find(|m| lower.starts_with(*m) && !lower_original.starts_with(*m))
        {
            return Err(format!(
                "the rewrite opens with {opening:?}, an answer to the request rather than the text"
            ));
        }
        if original.ends_with('?') && !rewrite.ends_with('?') {
            return Err("the original is a question and the rewrite is not".into());
        }
        if is_yes_no_question(original) && !is_yes_no_question(rewrite) {
            return Err("the original is a yes/no question and the rewrite is not one".into());
        }
        if lower_original.contains("yes or no") && !lower.contains("yes or no") {
            return Err("the rewrite drops \"yes or no\"".into());
        }
        // The words by which the speaker refers to the user: the user's own first
        // person, the assistant's second person.
        let (user_words, other_words) = match self.kind {
            UnitKind::Assistant => (SECOND_PERSON, FIRST_PERSON),
            _ => (FIRST_PERSON, SECOND_PERSON),
        };
        let (own, possessive, other_possessive) = match self.kind {
            UnitKind::Assistant => ("you", "your", "my"),
            _ => ("I", "my", "your"),
        };
        let before = count_words(original, user_words);
        let after = count_words(rewrite, user_words);
        if before > 0 && after == 0 {
            return Err(format!(
                "the rewrite changes the person: the original speaks of the user as \"{own}\", the rewrite never does"
            ));
        }
        // Some of the user's words turned into the other person's, though one stayed
        // ("Remind me, what do I take?" → "Remind me, what do you take?").
        if after < before && count_words(rewrite, other_words) > count_words(original, other_words)
        {
            return Err(format!(
                "the rewrite changes the person: the original speaks of the user as \"{own}\" {before} time(s), the rewrite {after}, and of someone else more"
            ));
        }
        let (mine_before, mine_after) = (
            count_words(original, &[possessive]),
            count_words(rewrite, &[possessive]),
        );
        let (theirs_before, theirs_after) = (
            count_words(original, &[other_possessive]),
            count_words(rewrite, &[other_possessive]),
        );
        if mine_after < mine_before && theirs_after > theirs_before {
            return Err(format!(
                "the rewrite changes the person: \"{possessive}\" became \"{other_possessive}\""
            ));
        }
        Ok(())
    }

    /// The messages asking for a rewrite; `rejected` is the reason a previous rewrite
    /// was refused, on the second try.
    pub fn messages(&self, rejected: Option<&str>) -> Vec<Message> {
        let list = |values: &[String]| {
            if values.is_empty() {
                "(none)".to_string()
            } else {
                values
                    .iter()
                    .map(|v| format!("\"{}\"", neutralise(v)))
                    .collect::<Vec<_>>()
                    .join("; ")
            }
        };
        let mut user = format!(
            "Rewrite this line naturally, as {} would say it. Keep its meaning.\n\
             Keep these exact values verbatim: {}\n\
             Never add these values: {}\n",
            self.kind.speaker(),
            list(&self.required),
            list(&self.forbidden),
        );
        if let Some(reason) = rejected {
            user.push_str(&format!(
                "A previous rewrite was rejected because {reason}. Follow the rules above.\n"
            ));
        }
        user.push_str(&format!("Line:\n{}", neutralise(&self.original)));
        vec![Message::system(SYSTEM), Message::user(user)]
    }
}

/// Notes about the rewriting that a model may add to its rewrite.
const META_MARKERS: &[&str] = &[
    "no quotes",
    "no labels",
    "no notes",
    "no commentary",
    "rewritten",
    "rewrite",
    "rephrased",
    "rephrasing",
    "original line",
    "note:",
    "(note",
];

/// Openings of a reply that answers the request to rewrite instead of being the text.
const META_OPENINGS: &[&str] = &[
    "sure,",
    "sure!",
    "sure.",
    "certainly",
    "okay, here",
    "ok, here",
    "here is",
    "here's",
];

const FIRST_PERSON: &[&str] = &[
    "i",
    "me",
    "my",
    "mine",
    "myself",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "we",
    "us",
    "our",
    "ours",
    "ourselves",
    "we're",
    "we've",
    "we'd",
    "we'll",
];

const SECOND_PERSON: &[&str] = &[
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
    "you're",
    "you've",
    "you'd",
    "you'll",
];

/// Verbs a yes/no question opens with.
const AUXILIARIES: &[&str] = &[
    "is",
    "are",
    "am",
    "was",
    "were",
    "do",
    "does",
    "did",
    "can",
    "could",
    "will",
    "would",
    "should",
    "shall",
    "have",
    "has",
    "had",
    "may",
    "might",
    "must",
    "isn't",
    "aren't",
    "wasn't",
    "weren't",
    "don't",
    "doesn't",
    "didn't",
    "can't",
    "couldn't",
    "won't",
    "wouldn't",
    "shouldn't",
    "haven't",
    "hasn't",
];

const WH_WORDS: &[&str] = &[
    "what", "which", "where", "who", "whom", "whose", "when", "how", "why",
];

/// The text's words, lower case, with `’` read as `'`.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace('’', "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

fn count_words(text: &str, set: &[&str]) -> usize {
    words(text)
        .iter()
        .filter(|w| set.contains(&w.as_str()))
        .count()
}

/// Whether the text is wrapped in quotation marks (a final `.` or `?` outside them
/// allowed).
fn quoted(text: &str) -> bool {
    const QUOTES: &[char] = &['"', '\'', '“', '”', '‘', '’', '«', '»', '`'];
    let text = text.trim();
    let inner = text.trim_end_matches(['.', '?', '!']);
    let mut chars = inner.chars();
    match (chars.next(), chars.next_back()) {
        (Some(a), Some(b)) => QUOTES.contains(&a) && QUOTES.contains(&b),
        _ => false,
    }
}

/// Whether the text ends with a yes/no question: its last sentence ends with `?`, a
/// clause of it (split at `,`, `:`, `;`, `—`) opens with an auxiliary verb ("is it
/// true that…", "Do I…"), and it does not ask for a value ("Can you tell me what…",
/// a clause opening with a wh-word).
fn is_yes_no_question(text: &str) -> bool {
    let text = text.trim();
    if !text.ends_with('?') {
        return false;
    }
    let body = &text[..text.len() - 1];
    let sentence = body
        .rsplit(['.', '!', '?'])
        .next()
        .unwrap_or(body)
        .to_string();
    let clauses: Vec<Vec<String>> = sentence
        .split([',', ':', ';', '—', '–'])
        .map(words)
        .filter(|w| !w.is_empty())
        .collect();
    if clauses.iter().any(|c| WH_WORDS.contains(&c[0].as_str())) {
        return false;
    }
    let all = words(&sentence);
    let asks_value = all.windows(2).any(|w| {
        matches!(
            w[0].as_str(),
            "me" | "know" | "say" | "share" | "recall" | "remember"
        ) && WH_WORDS.contains(&w[1].as_str())
    });
    !asks_value && clauses.iter().any(|c| AUXILIARIES.contains(&c[0].as_str()))
}

/// Whether `text` holds `value` as plain, case-insensitive text, inside a longer word
/// too (the way `bemula validate` looks for an inferential target's value).
fn contains_plain(text: &str, value: &str) -> bool {
    let value = value.trim().to_lowercase();
    !value.is_empty() && text.to_lowercase().contains(&value)
}

/// Every unit of `instance` (its index in the dataset is `index`), in dialogue order,
/// then requests, then questions.
pub fn units(index: usize, instance: &Instance) -> Vec<Unit> {
    let facts = || {
        instance
            .profile
            .facts
            .iter()
            .chain(&instance.profile.derived_facts)
    };
    let values: Vec<String> = facts().map(|f| f.value.clone()).collect();
    let target_ids: BTreeSet<&str> = instance
        .requests
        .iter()
        .flat_map(|r| r.targets.iter().map(String::as_str))
        .collect();
    let targets: Vec<String> = facts()
        .filter(|f| target_ids.contains(f.id.as_str()))
        .map(|f| f.value.clone())
        .collect();
    let request_at: BTreeSet<(&str, usize)> = instance
        .requests
        .iter()
        .map(|r| (r.position.session.as_str(), r.position.turn))
        .collect();
    let mut out = Vec::new();
    let mut push = |kind, text: &str, place| {
        let mut unit = Unit::new(kind, text, &values, &targets);
        unit.instance = index;
        unit.place = place;
        out.push(unit);
    };
    for (s, session) in instance.sessions.iter().enumerate() {
        for (t, turn) in session.turns.iter().enumerate() {
            if request_at.contains(&(session.id.as_str(), t)) {
                continue;
            }
            for (kind, text, assistant) in [
                (UnitKind::User, &turn.user, false),
                (UnitKind::Assistant, &turn.assistant, true),
            ] {
                let place = Place::Turn {
                    session: s,
                    turn: t,
                    assistant,
                };
                push(kind, text, place);
            }
        }
    }
    for (r, request) in instance.requests.iter().enumerate() {
        push(UnitKind::Request, &request.turn.user, Place::Request(r));
    }
    for (q, question) in instance.questions.iter().enumerate() {
        push(UnitKind::Question, &question.text, Place::Question(q));
    }
    out
}

/// What became of one unit.
enum Outcome {
    Kept,
    Rewritten(String),
    Fallback,
}

/// Asks for one unit's rewrite, and once more when it is rejected.
async fn realise_unit(client: &LlmClient, unit: &Unit) -> Result<Outcome, LlmError> {
    if unit.original.trim().is_empty() {
        return Ok(Outcome::Kept);
    }
    let mut rejected: Option<String> = None;
    for _ in 0..2 {
        let messages = unit.messages(rejected.as_deref());
        let reply = client.chat(Role::System, PROMPT_VERSION, &messages).await?;
        let rewrite = reply.content.trim();
        match unit.check(rewrite) {
            Ok(()) if rewrite == unit.original.trim() => return Ok(Outcome::Kept),
            Ok(()) => return Ok(Outcome::Rewritten(rewrite.to_string())),
            Err(reason) => rejected = Some(reason),
        }
    }
    Ok(Outcome::Fallback)
}

/// Rewrites every unit of `dataset` with the model of `client` and returns the
/// realised dataset (its checksum recomputed) and the counts. The first request that
/// fails (after the client's retries) ends the realisation with its error; nothing is
/// written here. `progress` prints `units done / total` on stderr.
pub async fn realise(
    dataset: Dataset,
    client: &LlmClient,
    progress: bool,
) -> Result<(Dataset, RealiseCounts), LlmError> {
    realise_limited(dataset, client, progress, None).await
}

/// [`realise`], rewriting at most `per_kind` units of each [`UnitKind`] per instance
/// (the first ones, in the order of [`units`]) when it is given; the others keep the
/// template text and are not counted. A quick trial of a model on a small sample.
pub async fn realise_limited(
    dataset: Dataset,
    client: &LlmClient,
    progress: bool,
    per_kind: Option<usize>,
) -> Result<(Dataset, RealiseCounts), LlmError> {
    let Dataset {
        mut instances,
        source,
        ..
    } = dataset;
    let all: Vec<Unit> = instances
        .iter()
        .enumerate()
        .flat_map(|(i, instance)| {
            let mut seen: Vec<(UnitKind, usize)> = Vec::new();
            units(i, instance).into_iter().filter(move |unit| {
                let Some(limit) = per_kind else { return true };
                let slot = match seen.iter_mut().find(|(k, _)| *k == unit.kind) {
                    Some(slot) => slot,
                    None => {
                        seen.push((unit.kind, 0));
                        seen.last_mut().expect("just pushed")
                    }
                };
                slot.1 += 1;
                slot.1 <= limit
            })
        })
        .collect();
    let total = all.len();
    let mut tasks = tokio::task::JoinSet::new();
    for (n, unit) in all.iter().cloned().enumerate() {
        let client = client.clone();
        tasks.spawn(async move { (n, realise_unit(&client, &unit).await) });
    }
    let mut outcomes: Vec<Option<Outcome>> = (0..total).map(|_| None).collect();
    let step = (total / 20).max(1);
    let mut done = 0;
    while let Some(joined) = tasks.join_next().await {
        let (n, outcome) = joined.map_err(|e| LlmError::Config(format!("a task failed: {e}")))?;
        outcomes[n] = Some(outcome?);
        done += 1;
        if progress && (done % step == 0 || done == total) {
            eprintln!("realising: {done} / {total} units");
            let _ = std::io::stderr().flush();
        }
    }
    let mut counts = RealiseCounts::default();
    for (unit, outcome) in all.iter().zip(outcomes) {
        let counts = counts.of(unit.kind);
        let text = match outcome {
            Some(Outcome::Rewritten(text)) => {
                counts.rewritten += 1;
                text
            }
            Some(Outcome::Fallback) => {
                counts.fallback += 1;
                continue;
            }
            Some(Outcome::Kept) | None => {
                counts.kept += 1;
                continue;
            }
        };
        let instance = &mut instances[unit.instance];
        match unit.place {
            Place::Turn {
                session,
                turn,
                assistant,
            } => {
                let turn = &mut instance.sessions[session].turns[turn];
                if assistant {
                    turn.assistant = text;
                } else {
                    turn.user = text;
                }
            }
            Place::Request(r) => {
                let request = &mut instance.requests[r];
                request.turn.user = text.clone();
                let position = request.position.clone();
                if let Some(turn) = instance
                    .sessions
                    .iter_mut()
                    .find(|s| s.id == position.session)
                    .and_then(|s| s.turns.get_mut(position.turn))
                {
                    turn.user = text;
                }
            }
            Place::Question(q) => instance.questions[q].text = text,
        }
    }
    Ok((Dataset::from_instances(instances, source), counts))
}

#[cfg(test)]
mod tests;
