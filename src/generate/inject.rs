//! Stage 4, request injection: the text of each forget request in its planned style,
//! the assistant's confirmation (which never restates a target value), and the
//! neutral filler exchange that replaces both in the control version.

use super::data::data;
use super::plan::RequestPlan;
use super::profile::{FactRef, GenProfile};
use super::rng::Rng;
use super::text::{and_list, fill, join};
use crate::dataset::{RequestType, Turn};

/// The realised exchange of a request.
pub struct RequestText {
    /// The request and its confirmation (forget version).
    pub turn: Turn,
    /// The neutral exchange of the control version.
    pub filler: Turn,
    /// The new value an F6 request states.
    pub new_value: Option<String>,
}

/// Writes one request.
pub fn request_text(rng: &mut Rng, profile: &GenProfile, req: &RequestPlan) -> RequestText {
    let d = data();
    let style = req.style.name();
    let mut new_value = None;
    let sentence = if req.kind == RequestType::F6 {
        let target = req.targets.first().copied().unwrap_or(FactRef::Atomic(0));
        let new = profile.new_value(target, rng);
        let old_claim = profile.claim(target, profile.value(target));
        let new_claim = profile.claim(target, &new);
        new_value = Some(new);
        let template = rng.pick(&d.requests.replace[style]).clone();
        fill(&template, &|key| match key {
            "old" => Some(old_claim.clone()),
            "new" => Some(new_claim.clone()),
            _ => None,
        })
    } else {
        let mut what_template = rng.pick(&d.requests.what[req.kind.code()]).clone();
        if what_template.starts_with("both ") && req.targets.len() != 2 {
            what_template = "{list}".to_string();
        }
        let abouts: Vec<String> = req.targets.iter().map(|&t| profile.about(t)).collect();
        let category = req.category.map(|c| &d.facts.categories[c]);
        let what = fill(&what_template, &|key| match key {
            "about" => abouts.first().cloned(),
            "list" => Some(and_list(&abouts)),
            "topic" => category.map(|c| c.topic.clone()),
            "label" => category.map(|c| c.label.clone()),
            "month" => req.month.map(|m| m.long()),
            _ => None,
        });
        let template = rng.pick(&d.requests.styles[style]).clone();
        fill(&template, &|key| (key == "what").then(|| what.clone()))
    };
    let lead = if rng.chance(1, 2) {
        rng.pick(&d.requests.lead_ins).as_str()
    } else {
        ""
    };
    let tail = if rng.chance(2, 5) {
        rng.pick(&d.requests.tails).as_str()
    } else {
        ""
    };
    let confirmation = if req.kind == RequestType::F6 {
        rng.pick(&d.requests.replace_confirmations).clone()
    } else {
        rng.pick(&d.requests.confirmations).clone()
    };
    let [filler_user, filler_assistant] = rng.pick(&d.requests.fillers).clone();
    RequestText {
        turn: Turn {
            user: join(&[lead, &sentence, tail]),
            assistant: confirmation,
            mentions: Vec::new(),
        },
        filler: Turn {
            user: filler_user,
            assistant: filler_assistant,
            mentions: Vec::new(),
        },
        new_value,
    }
}
