//! Stage 4 of v2, request injection. A request names its targets in one of many
//! ways: by the fact with its value ("that my home address is 12 Elm Street"), by
//! the attribute, by category in varied words, by an inference without a fixed
//! keyword, by a period said as a month, a season, relative to the session's date
//! or anchored on an event; an update states the new value in its own words. Each
//! request gets a confirmation composed for it, which never restates a target.
//!
//! A request exchange is as long as an ordinary one, so that length does not give it
//! away: the user may say an ordinary sentence in the same turn, and the assistant
//! mostly goes back to the conversation after confirming. The filler that replaces
//! the exchange in the control version is composed to the same length.

use super::Context;
use super::data::data;
use super::dialogue::{Used, aside_after, aside_before, carry_on};
use super::parts::expand;
use super::when::{month_of, season};
use crate::dataset::{RequestType, Turn};
use crate::generate::data::data as v1_data;
use crate::generate::plan::RequestPlan;
use crate::generate::profile::FactRef;
use crate::generate::rng::Rng;
use crate::generate::text::{Date, MONTHS, Month, and_list, capitalize, fill, join, lower_first};

pub use crate::generate::inject::RequestText;

fn month_name(m: Month) -> &'static str {
    MONTHS[(m.month.clamp(1, 12) - 1) as usize]
}

/// Noun phrases for the month of an F5 request said on `today`, each naming only
/// that month, or a season or an event when no other dated fact falls in it.
fn period(rng: &mut Rng, ctx: &Context, req: &RequestPlan, today: Date) -> String {
    let Some(m) = req.month else {
        return String::new();
    };
    let profile = ctx.profile;
    let now = month_of(today);
    let diff = now.since(m);
    let mut options: Vec<String> = vec![m.long(), format!("{} of {}", month_name(m), m.year)];
    if diff == 1 {
        options.push("last month".to_string());
    }
    if (1..12).contains(&diff) {
        if m.year == now.year {
            options.push(format!("this past {}", month_name(m)));
        } else {
            options.push(format!("last {}", month_name(m)));
        }
    } else if (12..24).contains(&diff) && m.year == now.year - 1 {
        options.push(format!("{} of last year", month_name(m)));
    }
    // A season, when the month is the only one of it holding a dated fact.
    if let Some((name, months)) = season(m) {
        let alone = profile.facts.iter().all(|f| {
            f.month
                .is_none_or(|fm| fm == m || fm.year != m.year || !months.contains(&fm.month))
        });
        if alone {
            options.push(format!("{name} {}", m.year));
            options.push(format!("the {name} of {}", m.year));
            if m.year == now.year - 1 {
                options.push(format!("last {name}"));
            }
        }
    }
    // Anchored on one of the month's own events.
    let events: Vec<usize> = req
        .targets
        .iter()
        .filter_map(|t| match *t {
            FactRef::Atomic(i) if profile.facts[i].when.is_some() => Some(i),
            _ => None,
        })
        .collect();
    if !events.is_empty() {
        let e = events[rng.below(events.len())];
        let f = &profile.facts[e];
        let clause = profile.render(&f.template.claim, &f.value, Some(""));
        options.push(format!("the month when {}", clause.trim_end()));
    }
    options[rng.below(options.len())].clone()
}

/// What a deletion request asks to forget, and whether it restates a value.
fn what(rng: &mut Rng, ctx: &Context, req: &RequestPlan, today: Date) -> String {
    let p = &data().phrases;
    let profile = ctx.profile;
    let phr = ctx.phrasing;
    let abouts: Vec<String> = req.targets.iter().map(|&t| profile.about(t)).collect();
    match req.kind {
        RequestType::F1 | RequestType::F2 => {
            if rng.chance(2, 5) {
                let claims: Vec<String> = req
                    .targets
                    .iter()
                    .map(|&t| profile.claim(t, profile.value(t)))
                    .collect();
                let claim = and_list(&claims);
                fill(p.restate.pick(rng, phr), &|k| {
                    (k == "claim").then(|| claim.clone())
                })
            } else if req.targets.len() == 1 {
                let about = abouts[0].clone();
                fill(p.describe.pick(rng, phr), &|k| {
                    (k == "about").then(|| about.clone())
                })
            } else {
                let list = and_list(&abouts);
                fill(p.describe_many.pick(rng, phr), &|k| {
                    (k == "list").then(|| list.clone())
                })
            }
        }
        RequestType::F3 => {
            let Some(c) = req.category.map(|c| &v1_data().facts.categories[c]) else {
                return and_list(&abouts);
            };
            let noun = p
                .category_nouns
                .get(&c.name)
                .map(|s| s.pick(rng, phr).to_string())
                .unwrap_or_else(|| c.topic.clone());
            fill(p.category.pick(rng, phr), &|k| match k {
                "topic" => Some(c.topic.clone()),
                "label" => Some(c.label.clone()),
                "noun" => Some(noun.clone()),
                _ => None,
            })
        }
        RequestType::F4 => {
            let about = abouts.first().cloned().unwrap_or_default();
            fill(p.inferred.pick(rng, phr), &|k| {
                (k == "about").then(|| about.clone())
            })
        }
        RequestType::F5 => {
            let period = period(rng, ctx, req, today);
            fill(p.period.pick(rng, phr), &|k| {
                (k == "period").then(|| period.clone())
            })
        }
        RequestType::F6 => and_list(&abouts),
    }
}

/// A confirmation composed for one request, one sentence long: an opener, what was
/// done (to "that detail", "what you told me", …), maybe how, maybe a closing clause.
/// It never holds a target's value.
fn confirmation(rng: &mut Rng, ctx: &Context, update: bool) -> String {
    let p = &data().phrases;
    let phr = ctx.phrasing;
    let open = p.confirm_open.pick(rng, phr);
    let open = expand(rng, open);
    let body = if update {
        let body = p.confirm_update.pick(rng, phr);
        expand(rng, body)
    } else {
        let what = p.confirm_refs.pick(rng, phr);
        let body = p.confirm_delete.pick(rng, phr);
        fill(&expand(rng, body), &|k| {
            (k == "ref").then(|| what.to_string())
        })
    };
    let body = if body.starts_with("I ") || body.starts_with("I'") {
        body
    } else {
        lower_first(&body)
    };
    let tail = if !update && rng.chance(1, 2) {
        let tail = p.confirm_tails.pick(rng, phr);
        format!(" {}", expand(rng, tail))
    } else {
        String::new()
    };
    let close = if rng.chance(3, 5) {
        let close = p.confirm_close.pick(rng, phr);
        format!("; {}", expand(rng, close))
    } else {
        String::new()
    };
    format!("{open}, {body}{tail}{close}.")
}

/// Whether a text speaks of the user having told or said something ("I told you",
/// "as I mentioned", "I've shared"): English, not any inventory's wording.
fn speaks_of_telling(text: &str) -> bool {
    const PHRASES: [&str; 10] = [
        "i told",
        "i've told",
        "told you",
        "telling you",
        "i said",
        "i mentioned",
        "i shared",
        "i've shared",
        "i've mentioned",
        "i've said",
    ];
    let joined = format!(" {} ", crate::text::tokenize(text).join(" "));
    PHRASES.iter().any(|p| joined.contains(&format!(" {p} ")))
}

/// Writes one request said in a session held on `today`.
pub fn request_text(rng: &mut Rng, ctx: &Context, req: &RequestPlan, today: Date) -> RequestText {
    let p = &data().phrases;
    let profile = ctx.profile;
    let phr = ctx.phrasing;
    let style = req.style.name();
    let mut new_value = None;
    let sentence = if req.kind == RequestType::F6 {
        let target = req.targets.first().copied().unwrap_or(FactRef::Atomic(0));
        let old_value = profile.value(target).to_string();
        let new = profile.new_value(target, rng);
        let old_claim = profile.claim(target, &old_value);
        let new_claim = profile.claim(target, &new);
        let about = profile.about(target);
        new_value = Some(new);
        let template = p.update[style].pick(rng, phr);
        let template = expand(rng, template);
        fill(&template, &|key| match key {
            "old" => Some(old_claim.clone()),
            "new" => Some(new_claim.clone()),
            "old_value" => Some(old_value.clone()),
            "about" => Some(about.clone()),
            _ => None,
        })
    } else {
        let what = what(rng, ctx, req, today);
        let template = p.frames[style].pick(rng, phr);
        let template = expand(rng, template);
        fill(&template, &|key| (key == "what").then(|| what.clone()))
    };
    let sentence = capitalize(&sentence);
    let lead = if rng.chance(2, 5) {
        let lead = p.leads.pick(rng, phr);
        expand(rng, lead)
    } else {
        String::new()
    };
    // One colon a sentence: no lead ending in one before a request holding one.
    let lead = if lead.ends_with(':') && sentence.contains(':') {
        String::new()
    } else {
        lead
    };
    let follow = if req.kind != RequestType::F6 && rng.chance(1, 4) {
        let follow = p.follow_ups.pick(rng, phr);
        expand(rng, follow)
    } else {
        String::new()
    };
    let sentence = if lead.is_empty() {
        sentence
    } else {
        crate::generate::realise::bridge(&lead, &sentence)
    };
    // The exchange is as long as an ordinary one: the user may say something else in
    // the same turn, and the assistant goes back to the conversation after confirming.
    let mut used = Used::speaking_as(ctx.profile);
    // Beside a request to forget an inference, nothing the user says speaks of having
    // told something ("like I told you"): the inferred fact was never said.
    let inferential = req.kind == RequestType::F4;
    let aside = |rng: &mut Rng, used: &mut Used, draw: fn(&mut Rng, &mut Used) -> String| {
        for _ in 0..10 {
            let text = draw(rng, used);
            if !inferential || !speaks_of_telling(&text) {
                return text;
            }
        }
        String::new()
    };
    let (before, after) = match rng.below(10) {
        0..=2 => (aside(rng, &mut used, aside_before), String::new()),
        3..=5 => (String::new(), aside(rng, &mut used, aside_after)),
        6..=7 => (
            aside(rng, &mut used, aside_before),
            aside(rng, &mut used, aside_after),
        ),
        _ => Default::default(),
    };
    let mut confirmation = confirmation(rng, ctx, req.kind == RequestType::F6);
    if rng.chance(9, 10) {
        confirmation = join(&[&confirmation, &carry_on(rng, &mut used)]);
    }
    RequestText {
        turn: Turn {
            user: join(&[&before, &sentence, &follow, &after]),
            assistant: confirmation,
            mentions: Vec::new(),
        },
        filler: filler(rng, &mut used),
        new_value,
    }
}

/// The neutral exchange that takes a request's place in the control version, as long
/// as a request exchange: a remark in passing, mostly beside other ordinary sentences,
/// and a reply that goes back to the conversation unless it asks something.
fn filler(rng: &mut Rng, used: &mut Used) -> Turn {
    let fillers = &data().talk.fillers;
    let [remark, reply] = &fillers[rng.below(fillers.len())];
    let (remark, reply) = (expand(rng, remark), expand(rng, reply));
    let before = if rng.chance(3, 4) {
        aside_before(rng, used)
    } else {
        String::new()
    };
    let after = if rng.chance(2, 3) {
        aside_after(rng, used)
    } else {
        String::new()
    };
    let assistant = if reply.ends_with('?') {
        reply
    } else {
        join(&[&reply, &carry_on(rng, used)])
    };
    Turn {
        user: join(&[&before, &remark, &after]),
        assistant,
        mentions: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::speaks_of_telling;

    #[test]
    fn telling_is_found_in_its_everyday_forms() {
        for text in [
            "Like I told you, it's a slog.",
            "I'm glad I mentioned it, honestly.",
            "That's roughly what I said last week.",
            "As I've mentioned before, money is tight.",
        ] {
            assert!(speaks_of_telling(text), "{text}");
        }
        for text in [
            "Tell me what you think.",
            "She mentioned a new cafe.",
            "Please forget it.",
        ] {
            assert!(!speaks_of_telling(text), "{text}");
        }
    }
}
