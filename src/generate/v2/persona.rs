//! Persona consistency for v2: a fact value that breaks one of the persona rules
//! ([`crate::dataset::persona`], `data/persona-rules.json`) is drawn again from its list
//! among the values that break none and overlap no other value.

use crate::dataset::persona::Known;
pub(crate) use crate::dataset::persona::rules;
use crate::generate::profile::{GenProfile, clashes};
use crate::generate::rng::Rng;

/// Whether the persona of `profile` meets what `value` presupposes.
pub fn fits(profile: &GenProfile, value: &str) -> bool {
    let p = &profile.persona;
    let known = Known {
        children: Some(p.family.children > 0),
        partner: Some(p.family.partner),
        age: Some(p.age),
    };
    rules()
        .iter()
        .filter(|r| r.value == value)
        .all(|r| r.requires.met_by(&known) != Some(false))
}

/// Draws again every value of a plain word-list fact that the persona contradicts.
pub fn make_consistent(profile: &mut GenProfile, rng: &mut Rng) {
    let vocab = &crate::generate::data::data().vocab;
    for i in 0..profile.facts.len() {
        if fits(profile, &profile.facts[i].value) {
            continue;
        }
        let pattern = profile.facts[i].template.value.as_str();
        let Some(list) = pattern
            .strip_prefix('{')
            .and_then(|p| p.strip_suffix('}'))
            .and_then(|name| vocab.get(name))
        else {
            continue;
        };
        let options: Vec<&String> = list
            .iter()
            .filter(|v| fits(profile, v))
            .filter(|v| {
                profile
                    .facts
                    .iter()
                    .enumerate()
                    .all(|(j, f)| j == i || !clashes(&f.value, v))
            })
            .collect();
        if !options.is_empty() {
            profile.facts[i].value = options[rng.below(options.len())].clone();
        }
    }
}
