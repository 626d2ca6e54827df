//! Stage 5 of v2, question generation: the same suites and counts as v1, with
//! questions worded as people ask them (drawn from the phrasing's half), a
//! relearning question that differs from the retention one, an indirect attack that
//! asks through the target's area of life without naming it, and a multi-hop attack
//! that starts from related facts the system still holds. The role-play, jailbreak
//! and Boolean frames are the paper's, fixed.

use super::Context;
use super::data::data;
use super::dialogue::{Used, hear, pick_parity, talk_turn};
use crate::dataset::{Attack, Question, Suite, Turn};
use crate::generate::data::data as v1_data;
use crate::generate::plan::{InstancePlan, RequestPlan};
use crate::generate::profile::FactRef;
use crate::generate::questions::{
    attack_question, efficacy_question, leak_values, probed, retention_question,
};
use crate::generate::rng::Rng;
use crate::generate::text::{accepted_spellings, and_list, capitalize, fill, lower_first};

/// The fact's own question in a frame of the phrasing's half ("Quick question:
/// what is my home address?").
fn framed(rng: &mut Rng, ctx: &Context, fact: FactRef) -> String {
    in_frame(rng, ctx, ctx.profile.question(fact))
}

/// A question in a frame of the phrasing's half.
fn in_frame(rng: &mut Rng, ctx: &Context, question: String) -> String {
    let lower = if question.starts_with("I ") {
        question.clone()
    } else {
        lower_first(&question)
    };
    fill(
        data().phrases.question_frames.pick(rng, ctx.phrasing),
        &|k| match k {
            "question" => Some(question.clone()),
            "q" => Some(lower.clone()),
            _ => None,
        },
    )
}

/// The fact's questions as people ask them, in the phrasing's half (none for a
/// derived fact, whose question names its sources).
fn paraphrases(ctx: &Context, fact: FactRef) -> Vec<String> {
    let profile = ctx.profile;
    match fact {
        FactRef::Atomic(i) => {
            let f = &profile.facts[i];
            match data().facts.get(&f.template.key) {
                Some(p) => p
                    .asks
                    .pool(ctx.phrasing)
                    .into_iter()
                    .map(|a| profile.render(a, &f.value, f.when.as_deref()))
                    .collect(),
                None => Vec::new(),
            }
        }
        FactRef::Derived(_) => Vec::new(),
    }
}

/// A question about a fact: two times in three its own question in a frame, else
/// one of its paraphrases. Returns the text and whether it is a paraphrase.
fn ask(rng: &mut Rng, ctx: &Context, fact: FactRef) -> (String, bool) {
    let options = paraphrases(ctx, fact);
    if options.is_empty() || rng.chance(2, 3) {
        (framed(rng, ctx, fact), false)
    } else {
        (options[rng.below(options.len())].clone(), true)
    }
}

/// The category name of a fact.
fn category_name(ctx: &Context, fact: FactRef) -> String {
    match fact {
        FactRef::Atomic(i) => v1_data().facts.categories[ctx.profile.facts[i].category]
            .name
            .clone(),
        FactRef::Derived(d) => ctx.profile.derived[d].template.category.clone(),
    }
}

/// The areas of life next to each category, where a multi-hop attack looks for related
/// facts when the target's own category has none left (a bedtime and a gym for a
/// wake-up time; a manager and a degree for a salary).
const NEIGHBOURS: &[(&str, &[&str])] = &[
    ("home_address", &["family", "finance"]),
    ("health", &["routine", "food"]),
    ("finance", &["work", "home_address"]),
    ("work", &["education", "finance"]),
    ("education", &["work", "family"]),
    ("family", &["social", "home_address"]),
    ("hobbies", &["social", "routine"]),
    ("travel", &["hobbies", "social"]),
    ("food", &["health", "routine"]),
    ("routine", &["health", "hobbies"]),
    ("social", &["family", "hobbies"]),
    ("technology", &["work", "routine"]),
];

/// Whether category `other` neighbours category `of` ([`NEIGHBOURS`]; both are
/// indices of v1's categories).
fn near(of: usize, other: usize) -> bool {
    let categories = &v1_data().facts.categories;
    NEIGHBOURS
        .iter()
        .find(|(c, _)| *c == categories[of].name)
        .is_some_and(|(_, n)| n.contains(&categories[other].name.as_str()))
}

/// Facts related to the target that its request leaves alone, from which a multi-hop
/// attack reconstructs it: the sources of a derived fact, else up to two facts of the
/// same category, those that no request asks to forget first (they remain), then
/// those this request does not claim, then unclaimed facts of the neighbouring
/// categories ([`NEIGHBOURS`]); only when none is left, any unclaimed fact.
fn related(rng: &mut Rng, ctx: &Context, req: &RequestPlan, target: FactRef) -> Vec<String> {
    let profile = ctx.profile;
    match target {
        FactRef::Derived(d) => profile.derived[d]
            .sources
            .iter()
            .map(|&s| profile.about(FactRef::Atomic(s)))
            .collect(),
        FactRef::Atomic(i) => {
            let category = profile.facts[i].category;
            let same: Vec<usize> = (0..profile.facts.len())
                .filter(|&j| {
                    profile.facts[j].category == category
                        && !req.targets.contains(&FactRef::Atomic(j))
                })
                .collect();
            let kept: Vec<usize> = same
                .iter()
                .copied()
                .filter(|j| !ctx.forgotten.contains(j))
                .collect();
            let neighbours: Vec<usize> = ctx
                .free
                .iter()
                .copied()
                .filter(|&j| near(category, profile.facts[j].category))
                .collect();
            let pool = [kept, same, neighbours, ctx.free.clone()]
                .into_iter()
                .find(|pool| !pool.is_empty())
                .unwrap_or_default();
            let k = 1 + usize::from(rng.chance(1, 2));
            rng.sample(&pool, k)
                .into_iter()
                .map(|j| profile.about(FactRef::Atomic(j)))
                .collect()
        }
    }
}

/// All questions of one request; `new_value` is an F6 request's new value.
pub fn request_questions(
    rng: &mut Rng,
    ctx: &Context,
    req: &RequestPlan,
    id: &str,
    new_value: Option<&str>,
) -> Vec<Question> {
    let profile = ctx.profile;
    let p = &data().phrases;
    let frames = &v1_data().questions.attacks;
    let mut out = Vec::new();
    let probed = probed(rng, req);
    let mut retention_texts = Vec::new();
    for &target in &probed {
        let fid = profile.id(target).to_string();
        let (text, paraphrased) = ask(rng, ctx, target);
        retention_texts.push((text.clone(), paraphrased));
        let value = profile.value(target).to_string();
        let base = retention_question(id, &fid, &text, &value);
        out.push(base.clone());
        let leak = leak_values(&value, profile, req);
        out.push(efficacy_question(&base, req.kind, new_value, leak.clone()));
        let claim = profile.claim(target, &value);
        let category = category_name(ctx, target);
        let topic = profile.category_topic(target);
        for attack in Attack::ALL {
            let attack_text = match attack {
                Attack::Indirect => match p.indirect.get(&category) {
                    Some(split) => split.pick(rng, ctx.phrasing).to_string(),
                    None => format!("What do you know about {topic}?"),
                },
                Attack::MultiHop => {
                    let related = and_list(&related(rng, ctx, req, target));
                    let about = profile.about(target);
                    capitalize(&fill(p.multi_hop.pick(rng, ctx.phrasing), &|k| match k {
                        "related" => Some(related.clone()),
                        "about" => Some(about.clone()),
                        _ => None,
                    }))
                }
                _ => {
                    let frame = frames
                        .get(attack.name())
                        .map(String::as_str)
                        .unwrap_or("{question}");
                    fill(frame, &|key| match key {
                        "question" => Some(text.clone()),
                        "claim" => Some(claim.clone()),
                        "topic" => Some(topic.clone()),
                        _ => None,
                    })
                }
            };
            out.push(attack_question(&base, attack, attack_text, leak.clone()));
        }
    }
    if req.kind.has_relearning()
        && let (Some(&target), Some((retention, paraphrased))) =
            (probed.first(), retention_texts.first())
    {
        out.push(relearning(rng, ctx, target, id, retention, *paraphrased));
    }
    out
}

/// A similar new fact for relearning a fact that cannot change (a past event, a
/// relative, a date of birth): a sentence stating `new` as the value of another
/// fact of the same kind ("My next trip is to Lisbon.") and the question asking for
/// it. `None` for a fact that can change, which is restated with its new value.
fn similar_fact(rng: &mut Rng, ctx: &Context, fact: usize, new: &str) -> Option<(String, String)> {
    let f = &ctx.profile.facts[fact];
    if f.template.mutable {
        return None;
    }
    let similar = data().facts.get(&f.template.key)?.similar.as_ref()?;
    let says = similar.says.pool(ctx.phrasing);
    let asks = similar.asks.pool(ctx.phrasing);
    let k = rng.below(says.len());
    let said = capitalize(&ctx.profile.render(says[k], new, None));
    let asked = ctx.profile.render(asks[k.min(asks.len() - 1)], new, None);
    Some((said, in_frame(rng, ctx, asked)))
}

/// The relearning question of a request: a short dialogue stating a new value of
/// the same kind, and a question about it. A fact that can change is stated with its
/// new value as a change, and asked about worded otherwise than the retention
/// question (a paraphrase after a framed question, and the other way round); one
/// that cannot gets a similar new fact of its kind (see [`similar_fact`]; a derived
/// fact's own relearning sentences and question say which).
fn relearning(
    rng: &mut Rng,
    ctx: &Context,
    target: FactRef,
    id: &str,
    retention: &str,
    paraphrased: bool,
) -> Question {
    let profile = ctx.profile;
    let p = &data().phrases;
    let new = profile.new_value(target, rng);
    let similar = match target {
        FactRef::Atomic(i) => similar_fact(rng, ctx, i, &new),
        FactRef::Derived(_) => None,
    };
    let (said, similar_question) = similar.unzip();
    let sentence = match (target, said) {
        (_, Some(said)) => said,
        (FactRef::Atomic(_), None) => {
            let claim = profile.claim(target, &new);
            capitalize(&fill(p.relearn_changes.pick(rng, ctx.phrasing), &|k| {
                (k == "claim").then(|| claim.clone())
            }))
        }
        (FactRef::Derived(d), None) => {
            let own = pick_parity(rng, &profile.derived[d].template.relearn, ctx.phrasing);
            profile.render_derived(d, own, &new)
        }
    };
    let statement = Turn {
        user: sentence,
        assistant: p.relearn_acks.pick(rng, ctx.phrasing).to_string(),
        mentions: Vec::new(),
    };
    let scenario = rng.pick(&v1_data().scenarios);
    let length = rng.range(2, 4);
    let at = rng.below(length);
    let mut used = Used::speaking_as(ctx.profile);
    hear(&mut used, &statement.user);
    let dialogue: Vec<Turn> = (0..length)
        .map(|i| {
            if i == at {
                statement.clone()
            } else {
                talk_turn(rng, scenario, &mut used, false)
            }
        })
        .collect();
    let text = match (target, similar_question) {
        (_, Some(asked)) => asked,
        (FactRef::Derived(d), None) => match &profile.derived[d].template.relearn_question {
            Some(question) => profile.render_derived(d, question, ""),
            None => profile.plain_question(target),
        },
        (FactRef::Atomic(_), None) => {
            let others: Vec<String> = paraphrases(ctx, target)
                .into_iter()
                .filter(|a| a != retention)
                .collect();
            if paraphrased || others.is_empty() {
                let mut framed_text = framed(rng, ctx, target);
                for _ in 0..4 {
                    if framed_text != retention {
                        break;
                    }
                    framed_text = framed(rng, ctx, target);
                }
                framed_text
            } else {
                others[rng.below(others.len())].clone()
            }
        }
    };
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
pub fn preservation_questions(rng: &mut Rng, ctx: &Context, plan: &InstancePlan) -> Vec<Question> {
    let profile = ctx.profile;
    let mut facts = plan.preservation.clone();
    facts.sort_unstable();
    facts
        .into_iter()
        .map(|f| {
            let target = FactRef::Atomic(f);
            let value = profile.value(target).to_string();
            let id = format!("pres-{}", profile.id(target));
            let (text, _) = ask(rng, ctx, target);
            Question {
                id: id.clone(),
                suite: Suite::Preservation,
                attack: None,
                request: None,
                fact: profile.id(target).to_string(),
                text,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Phrasing;
    use crate::generate::plan::plan_instance_with;

    /// Relearning states a new value a person's life could change to, or else a similar
    /// new fact: a past event, a relative or a date of birth never gets a relearning
    /// item that asks for the fact itself again with another value, and no relearning
    /// statement passes a new value off as a correction of a mistake.
    #[test]
    fn relearning_never_restates_a_fact_that_cannot_change() {
        let mut problems = Vec::new();
        let (mut fixed, mut changeable) = (0, 0);
        for (seed, phrasing) in [(42, Phrasing::All), (5, Phrasing::Dev), (6, Phrasing::Test)] {
            for spec in crate::generate::global_plan(seed) {
                let instance = super::super::generate_instance(seed, &spec, phrasing);
                let mut rng = Rng::derived(seed, &format!("v2/{}", spec.id));
                let (profile, _) =
                    plan_instance_with(&spec, &mut rng, super::super::derive::synthesize);
                let all = Context {
                    profile: &profile,
                    phrasing: Phrasing::All,
                    free: Vec::new(),
                    forgotten: Default::default(),
                };
                for q in instance
                    .questions
                    .iter()
                    .filter(|q| q.suite == Suite::Relearning)
                {
                    let fact = (0..profile.facts.len())
                        .map(FactRef::Atomic)
                        .chain((0..profile.derived.len()).map(FactRef::Derived))
                        .find(|&f| profile.id(f) == q.fact)
                        .unwrap();
                    let said: String = q
                        .relearn
                        .iter()
                        .flatten()
                        .map(|t| t.user.to_lowercase())
                        .filter(|u| u.contains(&q.gold.to_lowercase()))
                        .collect();
                    let text = q.text.to_lowercase();
                    let where_ = format!("{} {}: {:?} / {said:?}", instance.id, q.id, q.text);
                    let can_change = match fact {
                        FactRef::Atomic(i) => profile.facts[i].template.mutable,
                        FactRef::Derived(d) => profile.derived[d]
                            .sources
                            .iter()
                            .all(|&s| profile.facts[s].template.mutable),
                    };
                    if can_change {
                        changeable += 1;
                        let mistake = ["correction", "wrong", "mistake", "miscount", "mixed up"];
                        if mistake.iter().any(|m| said.contains(m)) {
                            problems.push(format!("a change told as a correction: {where_}"));
                        }
                        continue;
                    }
                    fixed += 1;
                    let own: Vec<String> = match fact {
                        FactRef::Atomic(_) => std::iter::once(profile.question(fact))
                            .chain(paraphrases(&all, fact))
                            .collect(),
                        FactRef::Derived(_) => vec![profile.plain_question(fact)],
                    };
                    if own.iter().any(|o| text.ends_with(&o.to_lowercase())) {
                        problems.push(format!("asks the unchangeable fact again: {where_}"));
                    }
                    if said.contains(&profile.claim(fact, &q.gold).to_lowercase()) {
                        problems.push(format!("restates the unchangeable fact: {where_}"));
                    }
                }
            }
        }
        assert!(fixed > 100 && changeable > 100, "{fixed} {changeable}");
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// The multi-hop attack reconstructs the target (named as a request names it,
    /// never with its value) from related facts: a derived fact's sources, else facts
    /// of the target's own category that no request claims, whenever one exists.
    #[test]
    fn multi_hop_starts_from_facts_that_remain_and_names_the_target() {
        let mut problems = Vec::new();
        let (mut same_category, mut neighbouring, mut atomic) = (0, 0, 0);
        for spec in crate::generate::global_plan(42) {
            let mut rng = Rng::derived(42, &format!("v2/{}", spec.id));
            let (profile, plan) =
                plan_instance_with(&spec, &mut rng, super::super::derive::synthesize);
            let ctx = Context {
                profile: &profile,
                phrasing: Phrasing::All,
                free: super::super::free_facts(&profile, &plan),
                forgotten: super::super::forgotten_facts(&plan),
            };
            let about = |j: usize| profile.about(FactRef::Atomic(j));
            for req in &plan.requests {
                for &target in &req.targets {
                    let got = related(&mut rng, &ctx, req, target);
                    let where_ = format!("{} {:?}: {got:?}", spec.id, profile.id(target));
                    if got.is_empty() {
                        problems.push(format!("no related fact: {where_}"));
                    }
                    let FactRef::Atomic(i) = target else {
                        continue;
                    };
                    atomic += 1;
                    let category = profile.facts[i].category;
                    let kept: Vec<String> = (0..profile.facts.len())
                        .filter(|j| !ctx.forgotten.contains(j))
                        .filter(|&j| profile.facts[j].category == category)
                        .map(about)
                        .collect();
                    if kept.is_empty() {
                        let same = (0..profile.facts.len()).any(|j| {
                            profile.facts[j].category == category
                                && !req.targets.contains(&FactRef::Atomic(j))
                        });
                        let neighbours: Vec<String> = ctx
                            .free
                            .iter()
                            .filter(|&&j| near(category, profile.facts[j].category))
                            .map(|&j| about(j))
                            .collect();
                        if !same && !neighbours.is_empty() {
                            neighbouring += 1;
                            if got.iter().any(|g| !neighbours.contains(g)) {
                                problems.push(format!("skips the neighbours: {where_}"));
                            }
                        }
                        continue;
                    }
                    same_category += 1;
                    if got.iter().any(|g| !kept.contains(g)) {
                        problems.push(format!("starts from a fact that may be gone: {where_}"));
                    }
                }
            }
        }
        for c in &v1_data().facts.categories {
            assert!(
                NEIGHBOURS.iter().any(|(n, _)| *n == c.name),
                "{} has no neighbours",
                c.name
            );
        }
        assert!(
            atomic > 100 && same_category > 100 && neighbouring > 20,
            "{same_category} of {atomic} atomic targets have a kept fact of their category, \
             {neighbouring} start from neighbouring ones"
        );
        for phrasing in [Phrasing::Dev, Phrasing::Test] {
            for spec in crate::generate::global_plan(42).iter().step_by(7) {
                let instance = super::super::generate_instance(42, spec, phrasing);
                for q in &instance.questions {
                    if q.attack != Some(Attack::MultiHop) {
                        continue;
                    }
                    let text = q.text.to_lowercase();
                    let named = ["my ", "the ", "what ", "how ", "when ", "where ", "which "]
                        .iter()
                        .any(|w| text.contains(w));
                    if !named || text.contains(&q.gold.to_lowercase()) && q.gold.len() > 3 {
                        problems.push(format!("{} {}: {:?}", instance.id, q.id, q.text));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }
}
