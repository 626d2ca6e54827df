//! Stage 3 of v2, dialogue realisation. A user turn is composed from parts (a
//! reaction to the last answer, a question about the scenario under some constraint,
//! something that happened lately) and no user sentence is said twice in a session.
//! A disclosing turn takes one of several forms, may carry a second fact, places
//! events relative to the session's date, and the assistant sometimes repeats the
//! value it heard.

use super::Context;
use super::data::{HouseholdTalk, data};
use super::parts::{Inventory, Part, PartSet, expand};
use super::when::relative_when;
use crate::dataset::Turn;
use crate::dataset::fidelity::normal;
use crate::generate::Phrasing;
use crate::generate::data::{Scenario, TimeKind, data as v1_data};
use crate::generate::plan::{SessionPlan, Slot};
use crate::generate::profile::GenProfile;
use crate::generate::rng::Rng;
use crate::generate::text::{Date, capitalize, fill, fill_with, join, lower_first, number_word};
use rustc_hash::FxHashSet;
use std::borrow::Cow;

/// What a session has said so far: its user sentences, in the normal form that
/// `bemula stats --fidelity` compares ("Thank you!" and "thank you." are one
/// sentence), the parts of composed user sentences, and the parts of assistant
/// replies. The sentences are looked up several times a turn and never iterated, so
/// they hash with FxHash, many times faster than the standard hasher on short strings.
pub struct Used {
    sentences: FxHashSet<String>,
    parts: PartSet,
    assistant_parts: PartSet,
    /// The household of the user speaking, whose own small talk may be drawn.
    household: Household,
    /// Which of the scenario's own questions were asked (bit `i`: pair `i`).
    asked: u64,
    /// Which of the scenario's situations were told (bit `i`: situation `i`).
    told: u64,
}

/// What a persona's household has, for the small talk only some households say.
#[derive(Debug, Clone, Copy, Default)]
pub struct Household {
    children: bool,
    partner: bool,
}

impl Household {
    /// The household of a profile's persona.
    pub fn of(profile: &GenProfile) -> Household {
        let family = &profile.persona.family;
        Household {
            children: family.children > 0,
            partner: family.partner,
        }
    }

    /// The household talk that fits it.
    fn talk(self) -> impl Iterator<Item = &'static HouseholdTalk> {
        let h = &data().talk.household;
        [
            self.children.then_some(&h.children),
            self.partner.then_some(&h.partner),
            (!self.children && !self.partner).then_some(&h.alone),
        ]
        .into_iter()
        .flatten()
    }
}

impl Used {
    /// Nothing said yet, by a user of no known household (who says only what any
    /// household may say).
    #[cfg(test)]
    pub fn new() -> Used {
        Used::with_room(0, Household::default())
    }

    /// Nothing said yet by the persona of `profile`.
    pub fn speaking_as(profile: &GenProfile) -> Used {
        Used::with_room(0, Household::of(profile))
    }

    /// Nothing said yet, in a session of `turns` turns: the set of sentences is made
    /// large enough for them at once rather than grown as they come.
    fn for_turns(turns: usize, household: Household) -> Used {
        // A user turn says three sentences or so.
        Used::with_room(4 * turns, household)
    }

    fn with_room(sentences: usize, household: Household) -> Used {
        Used {
            sentences: FxHashSet::with_capacity_and_hasher(sentences, Default::default()),
            parts: PartSet::new(),
            assistant_parts: PartSet::new(),
            household,
            asked: 0,
            told: 0,
        }
    }
}

/// Records the sentences of `text` as said in the session.
pub(crate) fn hear(used: &mut Used, text: &str) {
    used.sentences.extend(normal_sentences(text));
}

/// The normal form of each sentence of `text`.
fn normal_sentences(text: &str) -> Vec<String> {
    sentences(text).map(normal).collect()
}

/// Records the sentences of `text` unless one of them was said already in the session;
/// returns whether it did.
fn hear_if_unheard(used: &mut Used, text: &str) -> bool {
    let mut normals = Vec::new();
    for x in sentences(text) {
        let x = normal(x);
        if used.sentences.contains(&x) {
            return false;
        }
        normals.push(x);
    }
    used.sentences.extend(normals);
    true
}

/// The sentences of a text: split after `.`, `!` or `?` followed by a space, each
/// trimmed; a last piece of spaces only is none.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let bytes = rest.as_bytes();
        // End marks are rare: look for one, then at the byte after it.
        let end = (0..bytes.len())
            .filter(|&i| matches!(bytes[i], b'.' | b'!' | b'?'))
            .find(|&i| bytes.get(i + 1) == Some(&b' '));
        let sentence = match end {
            Some(i) => {
                let sentence = &rest[..=i];
                rest = &rest[i + 1..];
                sentence
            }
            None => std::mem::take(&mut rest),
        };
        Some(sentence.trim()).filter(|s| !s.is_empty())
    })
}

/// Draws from `make` until it gives a text none of whose sentences was said yet
/// in the session (up to 30 tries); records its sentences and returns it, or `None`
/// when every try repeated one.
fn fresh(
    rng: &mut Rng,
    used: &mut Used,
    mut make: impl FnMut(&mut Rng, &Used) -> String,
) -> Option<String> {
    for _ in 0..30 {
        let s = make(rng, used);
        if !s.is_empty() && hear_if_unheard(used, &s) {
            return Some(s);
        }
    }
    None
}

/// Whether a part of a composed sentence was used in the session already.
fn part_used(used: &Used, part: Part) -> bool {
    used.parts.contains(part)
}

fn mark_part(used: &mut Used, part: Part) {
    used.parts.insert(part);
}

fn with_scenario(template: &str, scenario: &Scenario, extra: &[(&str, &str)]) -> String {
    fill_with(template, |key| match key {
        "topic" => Some(scenario.topic.as_str()),
        "goal" => Some(scenario.goal.as_str()),
        _ => extra.iter().find(|(k, _)| *k == key).map(|(_, v)| *v),
    })
}

/// A question about the scenario, and the assistant's answer to it when it has one:
/// one of the scenario's own questions with its answer (each once a session), or a
/// frame with the scenario's topic and a constraint.
fn user_ask(rng: &mut Rng, scenario: &Scenario, used: &mut Used) -> (String, Option<String>) {
    let pairs = data()
        .scenarios
        .get(&scenario.theme)
        .map_or(&[][..], Vec::as_slice);
    if !pairs.is_empty() && rng.chance(3, 4) {
        let unasked = unused(used.asked, pairs.len());
        if !unasked.is_empty() {
            let i = unasked[rng.below(unasked.len())];
            let [ask, answer] = &pairs[i];
            let ask = fresh(rng, used, |rng, _| expand(rng, ask));
            if let Some(ask) = ask {
                used.asked |= 1 << i;
                return (ask, Some(expand(rng, answer)));
            }
        }
    }
    (framed_ask(rng, Some(&scenario.topic), used), None)
}

/// The indices below `len` (and 64) whose bit in `said` is clear: the entries of a
/// scenario's list not said yet in the session.
fn unused(said: u64, len: usize) -> Vec<usize> {
    (0..len.min(64)).filter(|&i| said & (1 << i) == 0).collect()
}

/// How the user's work on the scenario is going, one of the scenario's situations
/// not told yet in the session, or `None` when none is left (or it has none).
fn user_situation(rng: &mut Rng, scenario: &Scenario, used: &mut Used) -> Option<String> {
    let situations = data()
        .situations
        .get(&scenario.theme)
        .map_or(&[][..], Vec::as_slice);
    let untold = unused(used.told, situations.len());
    if untold.is_empty() {
        return None;
    }
    let i = untold[rng.below(untold.len())];
    let told = fresh(rng, used, |rng, _| expand(rng, &situations[i]))?;
    used.told |= 1 << i;
    Some(told)
}

/// A question from a frame and a constraint, about `topic` or, without one, about
/// "this" (a pronoun for whatever the conversation is on).
fn framed_ask(rng: &mut Rng, topic: Option<&str>, used: &mut Used) -> String {
    // Without a topic, the question ends the turn: a frame that goes on after it
    // ("… Sorry, I keep going round in circles.") is drawn again.
    let question_last = topic.is_none();
    let talk = &data().talk;
    let mut parts = None;
    let ask = fresh(rng, used, |rng, used| {
        let frame = Inventory::AskFrames.draw(rng);
        let constraint = Inventory::Constraints.draw(rng);
        // Parts already used in the session are drawn again, once in a while only.
        if (part_used(used, frame) || part_used(used, constraint)) && !rng.chance(1, 8) {
            return String::new();
        }
        if question_last && !frame.text.ends_with('?') {
            return String::new();
        }
        parts = Some((frame, constraint));
        let own: Vec<&String> = used.household.talk().flat_map(|h| &h.constraints).collect();
        let constraint = if !own.is_empty() && rng.chance(1, 8) {
            let i = rng.below(own.len());
            expand(rng, own[i])
        } else {
            constraint.say(rng)
        };
        let frame = frame.say(rng);
        // The topic by name, or by a pronoun once the conversation is on it.
        let topic = match topic {
            Some(topic) if !rng.chance(2, 5) => topic,
            _ => rng.text(&talk.topic_pronouns),
        };
        fill_with(&frame, |key| match key {
            "topic" => Some(topic),
            "constraint" => Some(constraint.as_str()),
            _ => None,
        })
    })
    .unwrap_or_default();
    if let Some((frame, constraint)) = parts.filter(|_| !ask.is_empty()) {
        mark_part(used, frame);
        mark_part(used, constraint);
    }
    ask
}

/// One in this many happenings the user tells of uses a deletion word in another
/// sense: about one ordinary user turn in a hundred (most tell of the scenario's
/// situation instead), near the rate of real dialogue, yet often enough that a
/// system deleting on any such word is caught.
const DELETION_HAPPENING_ODDS: usize = 25;

/// Something that happened lately, maybe with how the user feels about it; with
/// `deletion_words`, now and then one told with a deletion word in another sense.
fn user_detail(rng: &mut Rng, used: &mut Used, deletion_words: bool) -> String {
    let talk = &data().talk;
    let mut parts = None;
    let happened = fresh(rng, used, |rng, used| {
        let time = Inventory::Times.draw(rng);
        let happening = if deletion_words && rng.chance(1, DELETION_HAPPENING_ODDS) {
            Inventory::DeletionHappenings.draw(rng)
        } else {
            Inventory::Happenings.draw(rng)
        };
        if (part_used(used, time) || part_used(used, happening)) && !rng.chance(1, 8) {
            return String::new();
        }
        parts = Some((time, happening));
        let (time, happening) = (time.say(rng), happening.say(rng));
        // Someone else did it, now and then (past tense agrees with any subject),
        // when nothing after the subject speaks of the user alone.
        let happening = match happening.strip_prefix("I ") {
            Some(rest) if !rest.starts_with("was ") && !of_me(rest) && rng.chance(1, 3) => {
                let own: Vec<&String> = used.household.talk().flat_map(|h| &h.subjects).collect();
                let i = rng.below(talk.subjects.len() + own.len());
                let subject = talk
                    .subjects
                    .get(i)
                    .unwrap_or_else(|| own[i - talk.subjects.len()]);
                format!("{} {rest}", expand(rng, subject))
            }
            _ => happening,
        };
        format!("{time}, {happening}.")
    })
    .unwrap_or_default();
    if let Some((time, happening)) = parts.filter(|_| !happened.is_empty()) {
        mark_part(used, time);
        mark_part(used, happening);
    }
    let feeling = if !happened.is_empty() && rng.chance(1, 4) {
        fresh(rng, used, |rng, _| {
            let feeling = rng.text(&talk.feelings);
            expand(rng, feeling)
        })
        .unwrap_or_default()
    } else {
        String::new()
    };
    join(&[&happened, &feeling])
}

/// Whether `text` has a word that speaks of the user alone ("me", "my", "I'd"), so
/// that it cannot follow another subject ("a friend and I").
fn of_me(text: &str) -> bool {
    const ALONE: &[&str] = &[
        "i", "i'm", "i'd", "i've", "i'll", "me", "my", "mine", "myself",
    ];
    crate::text::tokenize(text)
        .iter()
        .any(|w| ALONE.contains(&w.as_str()))
}

/// The last resort of a user turn in a long session whose parts have worn out:
/// the first sentence of a time and a happening, each list in random order, that the
/// session has not heard yet (parts may repeat; sentences never do).
fn user_fallback(rng: &mut Rng, used: &mut Used) -> String {
    let talk = &data().talk;
    let mut times: Vec<&String> = talk.times.iter().collect();
    let mut happenings: Vec<&String> = talk.happenings.iter().collect();
    rng.shuffle(&mut times);
    rng.shuffle(&mut happenings);
    for time in &times {
        for happening in &happenings {
            let s = format!("{}, {}.", expand(rng, time), expand(rng, happening));
            if hear_if_unheard(used, &s) {
                return s;
            }
        }
    }
    String::new()
}

/// A reaction to the assistant's last answer, after an interjection; marks its part.
fn user_reaction(rng: &mut Rng, used: &mut Used) -> String {
    let talk = &data().talk;
    let mut drawn = None;
    let reaction = fresh(rng, used, |rng, used| {
        let i = rng.text(&talk.interjections);
        let i = expand(rng, i);
        let part = Inventory::Reactions.draw(rng);
        if part_used(used, part) && !rng.chance(1, 8) {
            return String::new();
        }
        drawn = Some(part);
        let r = part.say(rng);
        if r.starts_with("I ") || r.starts_with("I'") {
            format!("{i} {r}")
        } else {
            format!("{i} {}", lower_first(&r))
        }
    })
    .unwrap_or_default();
    if let Some(part) = drawn.filter(|_| !reaction.is_empty()) {
        mark_part(used, part);
    }
    reaction
}

/// One entry of `list` the assistant has not used in the session yet, if one turns
/// up within a few draws (else any); marks it used.
fn assistant_part(rng: &mut Rng, used: &mut Used, list: Inventory) -> String {
    let mut pick = list.draw(rng);
    for _ in 0..6 {
        if !used.assistant_parts.contains(pick) {
            break;
        }
        pick = list.draw(rng);
    }
    used.assistant_parts.insert(pick);
    pick.say(rng)
}

/// Something to do: one of the listed actions.
fn action(rng: &mut Rng, used: &mut Used) -> String {
    assistant_part(rng, used, Inventory::Actions)
}

/// Advice of two to seven sentences.
fn assistant_reply(rng: &mut Rng, scenario: &Scenario, lead: &str, used: &mut Used) -> String {
    let talk = &data().talk;
    let open = if lead.is_empty() && rng.chance(1, 3) {
        if rng.chance(1, 3) {
            // The short openers a confirmation starts with are everyday replies too
            // ("Of course, that's fine."), and ordinary replies say them.
            let open = data().phrases.confirm_open.pick(rng, Phrasing::All);
            format!("{}.", expand(rng, open))
        } else {
            assistant_part(rng, used, Inventory::AssistantOpens)
        }
    } else {
        String::new()
    };
    let advice = |rng: &mut Rng, used: &mut Used| {
        let action = action(rng, used);
        if rng.chance(1, 3) {
            let connector = assistant_part(rng, used, Inventory::Connectors);
            return format!("{connector} {action}.");
        }
        let frame = assistant_part(rng, used, Inventory::AdviceFrames);
        with_scenario(&frame, scenario, &[("action", &action)])
    };
    let tips = rng.sample(&scenario.tips, 2);
    let mut parts: Vec<Cow<str>> = vec![lead.into(), open.into()];
    if rng.chance(1, 5) {
        parts.push(tips[0].as_str().into());
    }
    parts.push(advice(rng, used).into());
    if rng.chance(3, 5) {
        parts.push(assistant_part(rng, used, Inventory::Reasons).into());
    }
    if rng.chance(1, 2) {
        parts.push(advice(rng, used).into());
    }
    if rng.chance(1, 4) {
        parts.push(advice(rng, used).into());
    }
    if rng.chance(1, 10) {
        parts.push(tips[1].as_str().into());
    }
    if rng.chance(1, 4) {
        parts.push(assistant_part(rng, used, Inventory::Reasons).into());
    }
    if rng.chance(1, 2) {
        let closer = if rng.chance(3, 5) {
            let plan = rng.text(&talk.plans);
            let plan = expand(rng, plan);
            let frame = assistant_part(rng, used, Inventory::CloserFrames);
            with_scenario(&frame, scenario, &[("plan", &plan)]).into()
        } else {
            assistant_part(rng, used, Inventory::Closers).into()
        };
        parts.push(closer);
    }
    join_distinct(&parts)
}

/// Joins sentences as [`join`] does, each distinct one once, where it first comes.
fn join_distinct(parts: &[Cow<str>]) -> String {
    let mut distinct: Vec<&str> = Vec::with_capacity(parts.len());
    for part in parts {
        if !distinct.contains(&part.as_ref()) {
            distinct.push(part);
        }
    }
    join(&distinct)
}

/// What an assistant says after answering something off the session's topic (a
/// forget request, a remark in passing), going back to the conversation the way its
/// ordinary replies go: advice composed from the same parts, maybe reasons, maybe a
/// closing question, without naming the topic. One to six sentences.
pub fn carry_on(rng: &mut Rng, used: &mut Used) -> String {
    let advice = |rng: &mut Rng, used: &mut Used| {
        let action = action(rng, used);
        let connector = assistant_part(rng, used, Inventory::Connectors);
        format!("{connector} {action}.")
    };
    let mut parts: Vec<Cow<str>> = vec![advice(rng, used).into()];
    if rng.chance(3, 5) {
        parts.push(assistant_part(rng, used, Inventory::Reasons).into());
    }
    if rng.chance(3, 5) {
        parts.push(advice(rng, used).into());
    }
    if rng.chance(1, 2) {
        parts.push(advice(rng, used).into());
    }
    if rng.chance(1, 4) {
        parts.push(assistant_part(rng, used, Inventory::Reasons).into());
    }
    if rng.chance(1, 2) {
        parts.push(assistant_part(rng, used, Inventory::Closers).into());
    }
    join_distinct(&parts)
}

/// An ordinary user sentence to say before something else in the same turn (a forget
/// request, a remark in passing): a reaction to the last answer or something that
/// happened lately. It never holds a fact value or a deletion word.
pub fn aside_before(rng: &mut Rng, used: &mut Used) -> String {
    if rng.chance(1, 2) {
        user_reaction(rng, used)
    } else {
        user_detail(rng, used, false)
    }
}

/// An ordinary user question to ask after something else in the same turn: about
/// "this", whatever the conversation is on, under some constraint. It never holds a
/// fact value or a deletion word.
pub fn aside_after(rng: &mut Rng, used: &mut Used) -> String {
    framed_ask(rng, None, used)
}

/// A small-talk exchange about the scenario; `opening` for the first turn of a
/// session, which reacts to no earlier reply.
pub fn talk_turn(rng: &mut Rng, scenario: &Scenario, used: &mut Used, opening: bool) -> Turn {
    let reaction = if !opening && rng.chance(1, 4) {
        user_reaction(rng, used)
    } else {
        String::new()
    };
    let (ask, answer) = user_ask(rng, scenario, used);
    // Mostly how the work on the scenario is going; otherwise something else that
    // happened lately.
    let detail = if rng.chance(1, 2) {
        let situation = if rng.chance(3, 4) {
            user_situation(rng, scenario, used)
        } else {
            None
        };
        situation.unwrap_or_else(|| user_detail(rng, used, true))
    } else {
        String::new()
    };
    // Without a question of the scenario's own, news of how things are going often
    // stands alone, as people tell it, rather than beside a stock question.
    let ask = if answer.is_none() && !detail.is_empty() && rng.chance(1, 2) {
        String::new()
    } else {
        ask
    };
    let more = if rng.chance(1, 10) {
        user_detail(rng, used, true)
    } else {
        String::new()
    };
    let (first, second) = if rng.chance(1, 3) {
        (detail, ask)
    } else {
        (ask, detail)
    };
    let mut user = join(&[&reaction, &first, &second, &more]);
    if user.is_empty() {
        user = user_detail(rng, used, true);
    }
    if user.is_empty() {
        user = user_fallback(rng, used);
    }
    let assistant = match answer {
        Some(answer) => answered(rng, "", &answer, used),
        None => assistant_reply(rng, scenario, "", used),
    };
    Turn {
        user,
        assistant,
        mentions: Vec::new(),
    }
}

/// The assistant's answer to one of the scenario's own questions, after `lead`
/// (maybe empty), now and then with a reason or an offer after it.
fn answered(rng: &mut Rng, lead: &str, answer: &str, used: &mut Used) -> String {
    let mut parts: Vec<Cow<str>> = vec![lead.into(), answer.into()];
    if rng.chance(1, 4) {
        parts.push(assistant_part(rng, used, Inventory::Reasons).into());
    }
    if rng.chance(1, 3) {
        parts.push(assistant_part(rng, used, Inventory::Closers).into());
    }
    join_distinct(&parts)
}

/// A value as a person may say it: "3 times a week" as "three times a week",
/// "$1,450" as "1,450 dollars"; otherwise as it is.
pub fn spoken_value(rng: &mut Rng, value: &str) -> String {
    let mut words = value.splitn(2, ' ');
    let first = words.next().unwrap_or("");
    let rest = words.next().unwrap_or("");
    if let Ok(n) = first.parse::<u32>()
        && rest.starts_with("times")
        && rng.chance(1, 2)
    {
        return format!("{} {rest}", number_word(n));
    }
    if let Some(amount) = value.strip_prefix('$')
        && !amount.is_empty()
        && amount.chars().all(|c| c.is_ascii_digit() || c == ',')
        && rng.chance(1, 3)
    {
        return format!("{amount} dollars");
    }
    value.to_string()
}

/// How an event is placed in time in a turn of a session held on `today`.
fn event_when(rng: &mut Rng, ctx: &Context, fact: usize, today: Date) -> Option<String> {
    let f = &ctx.profile.facts[fact];
    if f.template.time != TimeKind::Event {
        return None;
    }
    let month = f.month?;
    if rng.chance(1, 4) {
        return f.when.clone();
    }
    let day = f
        .timestamp
        .as_deref()
        .filter(|t| t.len() == 10)
        .and_then(|t| t[8..].parse().ok());
    Some(relative_when(rng, month, day, today))
}

/// `lead` before `sentence`: after a comma or colon the sentence goes on in lower
/// case, unless it opens with "I", a family word written as a name, or a value
/// that is itself capitalised (a name, a brand).
pub fn lead_into(lead: &str, sentence: &str, value: &str) -> String {
    let first_word = sentence.split([' ', '\'', ',']).next().unwrap_or("");
    let keeps_case = ["I", "Mum", "Mom", "Dad"].contains(&first_word)
        || (value.chars().next().is_some_and(char::is_uppercase) && sentence.starts_with(value));
    if !lead.ends_with(['.', '!', '?']) && !keeps_case {
        format!("{lead} {}", lower_first(sentence))
    } else {
        format!("{lead} {sentence}")
    }
}

/// One sentence disclosing an atomic fact with `value`, in one of the phrasing's
/// forms: a paraphrase, one of the fact's own sentences, or a frame around its clause;
/// sometimes after a lead-in.
pub fn disclose(
    rng: &mut Rng,
    ctx: &Context,
    fact: usize,
    value: &str,
    when: Option<&str>,
) -> String {
    let (sentence, framed) = disclosure_of(rng, ctx, fact, value, when);
    // A sentence framed already ("I should mention that …") takes no lead-in too.
    if !framed && rng.chance(1, 3) {
        let lead = data().phrases.mention_leads.pick(rng, ctx.phrasing);
        lead_into(lead, &sentence, value)
    } else {
        sentence
    }
}

/// One sentence disclosing an atomic fact with `value`, without a lead-in, and
/// whether it is a frame around the fact's clause ("I should mention that …").
fn disclosure_of(
    rng: &mut Rng,
    ctx: &Context,
    fact: usize,
    value: &str,
    when: Option<&str>,
) -> (String, bool) {
    let f = &ctx.profile.facts[fact];
    let t = f.template;
    let when = when.or(f.when.as_deref());
    let v2 = data();
    let form = rng.below(20);
    let sentence = match (form, v2.facts.get(&t.key)) {
        (0..=11, Some(phrases)) => {
            let says = phrases.says.pick(rng, ctx.phrasing);
            ctx.profile.render(&expand(rng, says), value, when)
        }
        (12..=15, _) | (_, None) => {
            let own = pick_parity(rng, &t.say, ctx.phrasing);
            ctx.profile.render(own, value, when)
        }
        _ => {
            let claim = ctx.profile.render(&t.claim, value, when);
            let frame = v2.phrases.mention_frames.pick(rng, ctx.phrasing);
            let framed = fill(frame, &|k| (k == "claim").then(|| claim.clone()));
            return (capitalize(&framed), true);
        }
    };
    (capitalize(&sentence), false)
}

/// One entry, uniformly, of the half of a list a phrasing draws from when the list is
/// not split in the data: even places for `dev`, odd ones for `test` (the whole list
/// when it has one entry). `list` must not be empty.
pub fn pick_parity<'a>(rng: &mut Rng, list: &'a [String], phrasing: Phrasing) -> &'a str {
    if list.len() < 2 {
        return rng.text(list);
    }
    match phrasing {
        Phrasing::Dev => &list[2 * rng.below(list.len().div_ceil(2))],
        Phrasing::Test => &list[2 * rng.below(list.len() / 2) + 1],
        Phrasing::All => rng.text(list),
    }
}

/// A turn in which the user discloses an atomic fact, maybe with another one.
fn mention_turn(
    rng: &mut Rng,
    ctx: &Context,
    fact: usize,
    scenario: &Scenario,
    today: Date,
    used: &mut Used,
) -> Turn {
    let profile = ctx.profile;
    let talk = &data().talk;
    let mut mentions = vec![profile.facts[fact].id.clone()];
    let value = spoken_value(rng, &profile.facts[fact].value);
    let when = event_when(rng, ctx, fact, today);
    let main = fresh(rng, used, |rng, _| {
        disclose(rng, ctx, fact, &value, when.as_deref())
    })
    .unwrap_or_else(|| disclose(rng, ctx, fact, &value, when.as_deref()));
    let others: Vec<usize> = ctx.free.iter().copied().filter(|&g| g != fact).collect();
    let extra = if !others.is_empty() && rng.chance(1, 5) {
        let g = others[rng.below(others.len())];
        let v = spoken_value(rng, &profile.facts[g].value);
        let w = event_when(rng, ctx, g, today);
        mentions.push(profile.facts[g].id.clone());
        fresh(rng, used, |rng, _| disclose(rng, ctx, g, &v, w.as_deref())).unwrap_or_default()
    } else {
        String::new()
    };
    let (ask, answer) = if rng.chance(3, 5) {
        user_ask(rng, scenario, used)
    } else {
        (String::new(), None)
    };
    let lead = if rng.chance(2, 5) {
        let about =
            super::second_person(&profile.about(crate::generate::profile::FactRef::Atomic(fact)));
        let template = rng.text(&talk.restatements);
        let template = expand(rng, template);
        capitalize(&fill(&template, &|k| match k {
            "about" => Some(about.clone()),
            "value" => Some(value.clone()),
            _ => None,
        }))
    } else {
        let ack = rng.text(&talk.disclosure_acks);
        expand(rng, ack)
    };
    let assistant = match answer {
        Some(answer) => answered(rng, &lead, &answer, used),
        None => assistant_reply(rng, scenario, &lead, used),
    };
    Turn {
        user: join(&[&main, &extra, &ask]),
        assistant,
        mentions,
    }
}

/// Realises one session; `request_turns[r]` is the exchange of request `r`.
pub fn realise_session(
    rng: &mut Rng,
    ctx: &Context,
    plan: &SessionPlan,
    request_turns: &[Turn],
) -> Vec<Turn> {
    let talk = &data().talk;
    let scenario = &v1_data().scenarios[plan.scenario];
    let today = plan.date;
    let last = plan.slots.len().saturating_sub(1);
    // The session's request exchanges were written beforehand: no ordinary turn may
    // repeat one of their user sentences.
    let mut used = Used::for_turns(plan.slots.len(), Household::of(ctx.profile));
    for slot in &plan.slots {
        if let Slot::Request(r) = *slot {
            hear(&mut used, &request_turns[r].user);
        }
    }
    let mut turns = Vec::with_capacity(plan.slots.len());
    for (i, slot) in plan.slots.iter().enumerate() {
        let mut turn = match *slot {
            Slot::Request(r) => {
                turns.push(request_turns[r].clone());
                continue;
            }
            Slot::Mention(f) => mention_turn(rng, ctx, f, scenario, today, &mut used),
            Slot::Talk if i == last && i > 0 => {
                match fresh(rng, &mut used, |rng, _| {
                    let farewell = rng.text(&talk.farewells_user);
                    expand(rng, farewell)
                }) {
                    Some(user) => Turn {
                        user,
                        assistant: {
                            let farewell = rng.text(&talk.farewells_assistant);
                            expand(rng, farewell)
                        },
                        mentions: Vec::new(),
                    },
                    None => talk_turn(rng, scenario, &mut used, false),
                }
            }
            Slot::Talk => talk_turn(rng, scenario, &mut used, i == 0),
        };
        if i == 0 {
            let opening = fresh(rng, &mut used, |rng, _| {
                let greeting = rng.text(&talk.greetings);
                let greeting = expand(rng, greeting);
                let goal = rng.text(&talk.goal_frames);
                let goal = with_scenario(&expand(rng, goal), scenario, &[]);
                join(&[&greeting, &goal])
            })
            .unwrap_or_default();
            turn.user = join(&[&opening, &turn.user]);
        }
        turns.push(turn);
    }
    turns
}

#[cfg(test)]
mod tests;
