//! Stage 3, dialogue realisation: turns the session plans into text. Small talk is
//! composed from the scenario's questions and advice and from generic sentence
//! pools; a disclosing turn states its fact's value verbatim in the user's words;
//! the assistant never restates a value.

use super::data::{Scenario, data};
use super::plan::{SessionPlan, Slot};
use super::profile::GenProfile;
use super::rng::Rng;
use super::text::{fill, join, lower_first};
use crate::dataset::Turn;

fn with_topic(template: &str, scenario: &Scenario) -> String {
    fill(template, &|key| match key {
        "topic" => Some(scenario.topic.clone()),
        "goal" => Some(scenario.goal.clone()),
        "theme_lower" => Some(lower_first(&scenario.theme)),
        _ => None,
    })
}

/// A user question about the scenario.
fn user_ask(rng: &mut Rng, scenario: &Scenario) -> String {
    if rng.chance(2, 3) {
        rng.pick(&scenario.asks).clone()
    } else {
        with_topic(rng.text(&data().talk.generic_asks), scenario)
    }
}

/// An assistant reply of three to five helpful sentences.
fn assistant_reply(rng: &mut Rng, scenario: &Scenario, lead: &str) -> String {
    let talk = &data().talk;
    let count = 1 + usize::from(rng.chance(1, 2));
    let tips = rng.sample(&scenario.tips, count);
    let reason = if rng.chance(9, 10) {
        rng.text(&talk.reasons)
    } else {
        ""
    };
    let body = with_topic(rng.text(&talk.bodies), scenario);
    let closer = if rng.chance(1, 2) {
        rng.text(&talk.closers)
    } else {
        ""
    };
    let second = tips.get(1).map(String::as_str).unwrap_or("");
    join(&[lead, &tips[0], reason, second, &body, closer])
}

/// A small-talk exchange about the scenario.
pub fn talk_turn(rng: &mut Rng, scenario: &Scenario) -> Turn {
    let talk = &data().talk;
    let opener = if rng.chance(7, 10) {
        rng.text(&talk.openers)
    } else {
        ""
    };
    let ask = user_ask(rng, scenario);
    let detail = if rng.chance(9, 10) {
        rng.text(&talk.details)
    } else {
        ""
    };
    let more = if rng.chance(2, 5) {
        rng.text(&talk.details)
    } else {
        ""
    };
    let more = if more == detail { "" } else { more };
    let ack = if rng.chance(7, 10) {
        rng.text(&talk.acks)
    } else {
        ""
    };
    Turn {
        user: join(&[opener, &ask, detail, more]),
        assistant: assistant_reply(rng, scenario, ack),
        mentions: Vec::new(),
    }
}

/// Prefixes a bridge to a sentence, lower-casing its first letter after a comma or
/// colon (never for "I").
pub fn bridge(bridge: &str, sentence: &str) -> String {
    let first_word = sentence.split([' ', '\'']).next().unwrap_or("");
    if (bridge.ends_with(',') || bridge.ends_with(':') || bridge.ends_with("but"))
        && first_word != "I"
    {
        format!("{bridge} {}", lower_first(sentence))
    } else {
        format!("{bridge} {sentence}")
    }
}

/// A turn in which the user discloses an atomic fact.
pub fn mention_turn(rng: &mut Rng, profile: &GenProfile, fact: usize, scenario: &Scenario) -> Turn {
    let talk = &data().talk;
    let say = profile.say(fact, &profile.facts[fact].value, rng);
    let disclosure = if rng.chance(3, 5) {
        bridge(rng.text(&talk.bridges), &say)
    } else {
        say
    };
    let ask = if rng.chance(7, 10) {
        user_ask(rng, scenario)
    } else {
        String::new()
    };
    let ack = rng.pick(&talk.disclosure_acks).clone();
    Turn {
        user: join(&[&disclosure, &ask]),
        assistant: assistant_reply(rng, scenario, &ack),
        mentions: vec![profile.facts[fact].id.clone()],
    }
}

/// Realises one session; `request_turns[r]` is the exchange of request `r`.
pub fn realise_session(
    rng: &mut Rng,
    profile: &GenProfile,
    plan: &SessionPlan,
    request_turns: &[Turn],
) -> Vec<Turn> {
    let talk = &data().talk;
    let scenario = &data().scenarios[plan.scenario];
    let last = plan.slots.len().saturating_sub(1);
    let mut turns = Vec::with_capacity(plan.slots.len());
    for (i, slot) in plan.slots.iter().enumerate() {
        let mut turn = match *slot {
            Slot::Request(r) => {
                turns.push(request_turns[r].clone());
                continue;
            }
            Slot::Mention(f) => mention_turn(rng, profile, f, scenario),
            Slot::Talk if i == last && i > 0 => Turn {
                user: rng.pick(&talk.farewells_user).clone(),
                assistant: rng.pick(&talk.farewells_assistant).clone(),
                mentions: Vec::new(),
            },
            Slot::Talk => talk_turn(rng, scenario),
        };
        if i == 0 {
            let greeting = rng.pick(&talk.greetings).clone();
            let opener = with_topic(rng.text(&talk.session_openers), scenario);
            let context = if rng.chance(1, 2) {
                with_topic(rng.text(&talk.session_contexts), scenario)
            } else {
                String::new()
            };
            turn.user = join(&[&greeting, &opener, &context, &turn.user]);
            turn.assistant = join(&[rng.text(&talk.welcomes), &turn.assistant]);
        }
        turns.push(turn);
    }
    turns
}
