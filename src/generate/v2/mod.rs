//! Generator v2: the same plan and composition as v1 (stage 2 is shared), with
//! stages 3–5 written anew. Profiles (stage 1) start from v1's personas and atomic
//! facts; values a persona contradicts are drawn again, and derived facts come from
//! eleven rule families, not only arithmetic ([`derive`]). Dialogue is composed from parts so that no
//! user sentence repeats within a session; a disclosure takes one of several forms
//! (the fact's own sentences, paraphrases, relative dates, numbers in words, another
//! fact in the same turn) and the assistant sometimes repeats what it heard. Requests
//! follow the paper's manner (some restate the value, F5 periods as months, seasons,
//! relative or event-anchored expressions, free-form updates), confirmations are
//! composed per request, and questions are worded as people ask them.
//!
//! Every phrasing inventory is split into a `dev` and a `test` half
//! ([`crate::generate::Phrasing`]); the profile and the plan of a seed are the same
//! in every phrasing, so a system tuned on `dev` meets the same facts in `test`,
//! worded differently.

mod ask;
pub(crate) mod data;
mod derive;
mod dialogue;
mod parts;
pub(crate) mod persona;
mod request;
mod values;
mod when;

use super::Phrasing;
use super::plan::{InstancePlan, InstanceSpec, plan_instance_with};
use super::profile::{FactRef, GenProfile};
use super::rng::Rng;
use crate::dataset::{FORMAT, Instance, RequestType, Session};
use std::collections::BTreeSet;

/// Generates one instance with generator v2.
pub fn generate_instance(seed: u64, spec: &InstanceSpec, phrasing: Phrasing) -> Instance {
    let mut rng = Rng::derived(seed, &format!("v2/{}", spec.id));
    let (mut profile, plan) = plan_instance_with(spec, &mut rng, derive::synthesize);
    values::make_distinct(&mut profile, seed, spec);
    // What a turn may add beside its own disclosure: facts no request claims and no
    // preservation question asks about, so they may be said anywhere.
    let free = free_facts(&profile, &plan);
    let ctx = Context {
        profile: &profile,
        phrasing,
        free,
        forgotten: forgotten_facts(&plan),
    };
    // Request texts, questions and each session's dialogue draw from streams of their
    // own, so that rewording one part of the text never moves another.
    let mut request_rng = Rng::derived(seed, &format!("v2/{}/requests", spec.id));
    let texts: Vec<super::inject::RequestText> = plan
        .requests
        .iter()
        .map(|req| {
            let date = plan.sessions[req.session].date;
            request::request_text(&mut request_rng, &ctx, req, date)
        })
        .collect();
    let mut requests = Vec::with_capacity(plan.requests.len());
    let mut questions = Vec::new();
    let request_turns: Vec<_> = texts.iter().map(|t| t.turn.clone()).collect();
    for (r, (req, text)) in plan.requests.iter().zip(texts).enumerate() {
        let id = format!("r{}", r + 1);
        questions.extend(ask::request_questions(
            &mut rng,
            &ctx,
            req,
            &id,
            text.new_value.as_deref(),
        ));
        requests.push(super::forget_request(&profile, req, id, text));
    }
    questions.extend(ask::preservation_questions(&mut rng, &ctx, &plan));
    let sessions: Vec<Session> = plan
        .sessions
        .iter()
        .enumerate()
        .map(|(s, session)| {
            let id = super::session_id(s);
            let mut rng = Rng::derived(seed, &format!("v2/{}/{id}", spec.id));
            Session {
                date: session.date.iso(),
                scenario: super::scenario_name(&super::data::data().scenarios[session.scenario]),
                turns: dialogue::realise_session(&mut rng, &ctx, session, &request_turns),
                id,
            }
        })
        .collect();
    Instance {
        format: FORMAT.to_string(),
        id: spec.id.clone(),
        tier: spec.tier,
        profile: profile.to_profile(),
        sessions,
        requests,
        questions,
    }
}

/// What the v2 stages share about an instance.
pub(crate) struct Context<'a> {
    /// The profile.
    pub profile: &'a GenProfile,
    /// Which half of the inventories to draw from.
    pub phrasing: Phrasing,
    /// Atomic facts that may be disclosed in any turn.
    pub free: Vec<usize>,
    /// Atomic facts that a request asks to forget or replace (the sources of a
    /// derived target stay).
    pub forgotten: BTreeSet<usize>,
}

/// The atomic targets of the plan's requests.
fn forgotten_facts(plan: &InstancePlan) -> BTreeSet<usize> {
    plan.requests
        .iter()
        .flat_map(|r| &r.targets)
        .filter_map(|t| match *t {
            FactRef::Atomic(i) => Some(i),
            FactRef::Derived(_) => None,
        })
        .collect()
}

/// Atomic facts claimed by no request (F4 sources included) and asked about by no
/// preservation question.
fn free_facts(profile: &GenProfile, plan: &InstancePlan) -> Vec<usize> {
    let mut taken: BTreeSet<usize> = plan.preservation.iter().copied().collect();
    for req in &plan.requests {
        for t in &req.targets {
            match *t {
                FactRef::Atomic(i) => {
                    taken.insert(i);
                }
                FactRef::Derived(d) => taken.extend(profile.derived[d].sources.iter().copied()),
            }
        }
    }
    // A fact that shares its month with a timestamped target would widen an F5
    // period; F5 already claims whole months, but keep every timestamped fact out.
    let f5_months: BTreeSet<_> = plan
        .requests
        .iter()
        .filter(|r| r.kind == RequestType::F5)
        .filter_map(|r| r.month)
        .collect();
    (0..profile.facts.len())
        .filter(|i| !taken.contains(i))
        .filter(|&i| {
            profile.facts[i]
                .month
                .is_none_or(|m| !f5_months.contains(&m))
        })
        .collect()
}

/// The text with first-person words turned to second person, for the assistant
/// repeating what the user said about themselves ("my home address" → "your home
/// address", "what I'm allergic to" → "what you're allergic to").
pub(crate) fn second_person(text: &str) -> String {
    let mut out = Vec::new();
    for word in text.split(' ') {
        let swapped = match word {
            "my" => "your",
            "My" => "Your",
            "I" => "you",
            "I'm" => "you're",
            "I've" => "you've",
            "I'd" => "you'd",
            "me" => "you",
            "mine" => "yours",
            "am" => "are",
            "myself" => "yourself",
            _ => word,
        };
        out.push(swapped);
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_profiles_never_contradict_their_persona() {
        let rule_values: Vec<&str> = persona::rules().iter().map(|r| r.value.as_str()).collect();
        let vocab = crate::generate::data::data()
            .vocab
            .values()
            .flatten()
            .collect::<Vec<_>>();
        for v in &rule_values {
            assert!(
                vocab.iter().any(|w| w == v),
                "rule on a value no list holds: {v}"
            );
        }
        let mut checked = 0;
        for seed in 0..40u64 {
            for spec in crate::generate::global_plan(seed).iter().step_by(7) {
                let mut rng = Rng::derived(seed, &format!("v2/{}", spec.id));
                let (v1, _) = crate::generate::plan::plan_instance(spec, &mut rng);
                let broken_before = v1
                    .facts
                    .iter()
                    .filter(|f| !persona::fits(&v1, &f.value))
                    .count();
                let mut rng = Rng::derived(seed, &format!("v2/{}", spec.id));
                let (profile, _) = plan_instance_with(spec, &mut rng, derive::synthesize);
                for f in &profile.facts {
                    assert!(
                        persona::fits(&profile, &f.value),
                        "seed {seed} {}: {} contradicts the persona",
                        spec.id,
                        f.value
                    );
                }
                checked += broken_before;
            }
        }
        assert!(
            checked > 0,
            "no profile needed a fix: the rules test nothing"
        );
    }

    #[test]
    fn second_person_turns_first_person_words() {
        assert_eq!(second_person("my home address"), "your home address");
        assert_eq!(
            second_person("what I'm allergic to"),
            "what you're allergic to"
        );
        assert_eq!(
            second_person("how long I've lived in my current home"),
            "how long you've lived in your current home"
        );
        assert_eq!(second_person("the city I visited"), "the city you visited");
    }
}
