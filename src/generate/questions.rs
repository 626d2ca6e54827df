//! Stage 5, question generation: per request the retention, efficacy and five attack
//! questions of each probed target and one relearning question (F1–F5), and per
//! instance three preservation questions about untouched facts.

use super::data::data;
use super::plan::{InstancePlan, RequestPlan};
use super::profile::{FactRef, GenProfile};
use super::realise::{bridge, talk_turn};
use super::rng::Rng;
use super::text::{accepted_spellings, fill};
use crate::dataset::{Attack, FORGOTTEN, NO_LEAK, Question, RequestType, Suite, Turn};

/// The targets of a request that get questions.
pub(super) fn probed(rng: &mut Rng, req: &RequestPlan) -> Vec<FactRef> {
    let n = match req.kind {
        RequestType::F1 | RequestType::F4 | RequestType::F6 => 1,
        RequestType::F2 => 2,
        RequestType::F3 => 2 + usize::from(rng.chance(3, 4)),
        RequestType::F5 => 1 + usize::from(rng.chance(1, 2)),
    };
    let mut targets = rng.sample(&req.targets, n);
    targets.sort();
    targets
}

/// The leak list of a question about `value`: the value and its spellings first, then
/// every other target of the request with theirs (an answer revealing another target
/// of the same request leaks too).
pub(super) fn leak_values(value: &str, profile: &GenProfile, req: &RequestPlan) -> Vec<String> {
    let mut leak = vec![value.to_string()];
    leak.extend(accepted_spellings(value));
    for &target in &req.targets {
        let other = profile.value(target);
        if leak.iter().any(|l| l.eq_ignore_ascii_case(other)) {
            continue;
        }
        leak.push(other.to_string());
        leak.extend(accepted_spellings(other));
    }
    leak.dedup();
    leak
}

/// The retention question about fact `fid` of request `id`, asked as `text`.
pub(super) fn retention_question(id: &str, fid: &str, text: &str, value: &str) -> Question {
    Question {
        id: format!("{id}-ret-{fid}"),
        suite: Suite::Retention,
        attack: None,
        request: Some(id.to_string()),
        fact: fid.to_string(),
        text: text.to_string(),
        gold: value.to_string(),
        accepted: accepted_spellings(value),
        leak: Vec::new(),
        conditioned_on: None,
        control_gold: None,
        relearn: None,
    }
}

/// The efficacy question paired with `retention`: the new value after an F6 request
/// (`new_value`), else `[FORGOTTEN]`, conditioned on the retention question.
pub(super) fn efficacy_question(
    retention: &Question,
    kind: RequestType,
    new_value: Option<&str>,
    leak: Vec<String>,
) -> Question {
    let id = format!(
        "{}-eff-{}",
        retention.request.as_deref().unwrap_or_default(),
        retention.fact
    );
    match (kind, new_value) {
        (RequestType::F6, Some(new)) => Question {
            id,
            suite: Suite::Efficacy,
            gold: new.to_string(),
            accepted: accepted_spellings(new),
            leak,
            ..retention.clone()
        },
        _ => Question {
            id,
            suite: Suite::Efficacy,
            gold: FORGOTTEN.to_string(),
            accepted: Vec::new(),
            leak,
            conditioned_on: Some(retention.id.clone()),
            ..retention.clone()
        },
    }
}

/// The `attack` question about the fact of `retention`, asked as `text`: it must not
/// leak, and its control probe (itself, on the control version) must give the value.
pub(super) fn attack_question(
    retention: &Question,
    attack: Attack,
    text: String,
    leak: Vec<String>,
) -> Question {
    let id = format!(
        "{}-att-{}-{}",
        retention.request.as_deref().unwrap_or_default(),
        attack.name(),
        retention.fact
    );
    Question {
        id: id.clone(),
        suite: Suite::Attack,
        attack: Some(attack),
        text,
        gold: NO_LEAK.to_string(),
        accepted: Vec::new(),
        leak,
        conditioned_on: Some(id),
        control_gold: Some(retention.gold.clone()),
        ..retention.clone()
    }
}

/// All questions of one request; `new_value` is an F6 request's new value.
pub fn request_questions(
    rng: &mut Rng,
    profile: &GenProfile,
    req: &RequestPlan,
    id: &str,
    new_value: Option<&str>,
) -> Vec<Question> {
    let frames = &data().questions.attacks;
    let mut out = Vec::new();
    let probed = probed(rng, req);
    for &target in &probed {
        let fid = profile.id(target).to_string();
        let text = profile.question(target);
        let value = profile.value(target).to_string();
        let base = retention_question(id, &fid, &text, &value);
        out.push(base.clone());
        let leak = leak_values(&value, profile, req);
        out.push(efficacy_question(&base, req.kind, new_value, leak.clone()));
        let claim = profile.claim(target, &value);
        let topic = profile.topic(target);
        let category = profile.category_topic(target);
        for attack in Attack::ALL {
            let frame = frames
                .get(attack.name())
                .map(String::as_str)
                .unwrap_or("{question}");
            let attack_text = fill(frame, &|key| match key {
                "question" => Some(text.clone()),
                "claim" => Some(claim.clone()),
                "topic" => Some(topic.clone()),
                "category" => Some(category.clone()),
                _ => None,
            });
            out.push(attack_question(&base, attack, attack_text, leak.clone()));
        }
    }
    if req.kind.has_relearning()
        && let Some(&target) = probed.first()
    {
        out.push(relearning(rng, profile, target, id));
    }
    out
}

/// The relearning question of a request: a short dialogue stating a new value of
/// the same kind, and the plain question about the fact, whose answer is now the
/// new value.
fn relearning(rng: &mut Rng, profile: &GenProfile, target: FactRef, id: &str) -> Question {
    let q = &data().questions;
    let new = profile.new_value(target, rng);
    let sentence = profile.restate(target, &new, rng);
    let user = match target {
        // Derived restatements carry their own opener.
        FactRef::Derived(_) => sentence,
        FactRef::Atomic(_) => bridge(rng.text(&q.relearn_intros), &sentence),
    };
    let statement = Turn {
        user,
        assistant: rng.pick(&q.relearn_acks).clone(),
        mentions: Vec::new(),
    };
    let scenario = rng.pick(&data().scenarios);
    let length = rng.range(2, 4);
    let at = rng.below(length);
    let dialogue: Vec<Turn> = (0..length)
        .map(|i| {
            if i == at {
                statement.clone()
            } else {
                talk_turn(rng, scenario)
            }
        })
        .collect();
    // The plain question: framing words ("based on my latest update") would
    // outweigh the fact's own words for a retriever, and a derived fact's sources
    // ("combining where I live and when I moved in") lead to the old value.
    let text = profile.plain_question(target);
    Question {
        id: format!("{id}-rl"),
        suite: Suite::Relearning,
        attack: None,
        request: Some(id.to_string()),
        fact: profile.id(target).to_string(),
        text,
        accepted: accepted_spellings(&new),
        gold: new,
        leak: Vec::new(),
        conditioned_on: None,
        control_gold: None,
        relearn: Some(dialogue),
    }
}

/// The preservation questions of an instance.
pub fn preservation_questions(profile: &GenProfile, plan: &InstancePlan) -> Vec<Question> {
    let mut facts = plan.preservation.clone();
    facts.sort_unstable();
    facts
        .into_iter()
        .map(|f| {
            let target = FactRef::Atomic(f);
            let value = profile.value(target).to_string();
            let id = format!("pres-{}", profile.id(target));
            Question {
                id: id.clone(),
                suite: Suite::Preservation,
                attack: None,
                request: None,
                fact: profile.id(target).to_string(),
                text: profile.question(target),
                gold: value.clone(),
                accepted: accepted_spellings(&value),
                leak: Vec::new(),
                conditioned_on: Some(id),
                control_gold: Some(value),
                relearn: None,
            }
        })
        .collect()
}
