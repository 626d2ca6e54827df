//! Integration tests: the synthetic generator — determinism, the default checksum,
//! Lite as a subset, the paper's composition figures, the invariants the validator
//! checks, and the `bemula generate` command.

use bemula::dataset::{
    Attack, Dataset, FORGOTTEN, Instance, NO_LEAK, Question, RequestType, Style, Suite, Tier,
    Version, encode_instance,
};
use bemula::generate::{
    DEFAULT_SEED, GenConfig, Generator, Phrasing, generate, generate_instance,
    generate_instance_with, global_plan,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::LazyLock;

/// The default full set, generated once for all tests of this module.
static DEFAULT: LazyLock<Dataset> = LazyLock::new(|| generate(&GenConfig::default()));

/// The full set of each generator (v2 with both phrasing halves).
static V1: LazyLock<Dataset> =
    LazyLock::new(|| generate(&config(Generator::V1, Phrasing::All, false)));
static V2: LazyLock<Dataset> =
    LazyLock::new(|| generate(&config(Generator::V2, Phrasing::All, false)));

/// The seed-42 checksum of generator v1, which must never change.
const V1_CHECKSUM: &str = "1eb09c20da7fcf4a76e796076de2d091dbca4449dfef66f9fe46171c99ed8e7d";

fn config(generator: Generator, phrasing: Phrasing, lite: bool) -> GenConfig {
    GenConfig {
        seed: DEFAULT_SEED,
        lite,
        generator,
        phrasing,
    }
}

/// The default set's generator.
fn generator_of(ds: &Dataset) -> Generator {
    if ds.source.contains("generator v2") {
        Generator::V2
    } else {
        Generator::V1
    }
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "my", "i", "me", "is", "am", "are", "was", "were", "do", "does", "did", "to",
    "of", "in", "on", "at", "for", "and", "or", "what", "which", "who", "when", "where", "how",
    "have", "has", "had", "that", "this", "it", "with", "from", "your", "you", "about", "be",
    "been", "by", "as", "s",
];

fn content_words(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOP_WORDS.contains(w))
        .map(str::to_string)
        .collect()
}

fn contains_ci(haystack: &str, needle: &str) -> bool {
    haystack.to_lowercase().contains(&needle.to_lowercase())
}

/// Every dialogue turn of an instance (forget version) with its global index.
fn flat_turns(instance: &Instance) -> Vec<(String, usize, &bemula::dataset::Turn)> {
    instance
        .sessions
        .iter()
        .flat_map(|s| {
            s.turns
                .iter()
                .enumerate()
                .map(|(i, t)| (s.id.clone(), i, t))
        })
        .collect()
}

fn global_index(instance: &Instance, session: &str, turn: usize) -> usize {
    let mut g = 0;
    for s in &instance.sessions {
        if s.id == session {
            return g + turn;
        }
        g += s.turns.len();
    }
    panic!("{}: no session {session}", instance.id);
}

/// The invariants of one instance that the validator and the brief require;
/// returns every broken one, readably.
fn check_instance(instance: &Instance, generator: Generator) -> Vec<String> {
    let v1 = generator == Generator::V1;
    let mut problems = Vec::new();
    let id = &instance.id;
    let flat = flat_turns(instance);
    let profile = &instance.profile;
    // Unique ids.
    let mut ids = BTreeSet::new();
    for f in profile.facts.iter().chain(&profile.derived_facts) {
        if !ids.insert(f.id.clone()) {
            problems.push(format!("{id}: duplicate fact id {}", f.id));
        }
    }
    let mut qids = BTreeSet::new();
    for q in &instance.questions {
        if !qids.insert(q.id.clone()) {
            problems.push(format!("{id}: duplicate question id {}", q.id));
        }
    }
    // Dates.
    let dates: Vec<&str> = instance.sessions.iter().map(|s| s.date.as_str()).collect();
    if dates.windows(2).any(|w| w[0] > w[1]) {
        problems.push(format!("{id}: session dates decrease"));
    }
    for f in &profile.facts {
        if let Some(ts) = &f.timestamp
            && !(ts.len() == 7 || ts.len() == 10)
        {
            problems.push(format!("{id}: {} has timestamp {ts}", f.id));
        }
    }
    // Texts: non-empty, no template placeholder left.
    let mut texts: Vec<&str> = Vec::new();
    for (_, _, t) in &flat {
        texts.push(&t.user);
        texts.push(&t.assistant);
    }
    for r in &instance.requests {
        texts.push(&r.filler.user);
        texts.push(&r.filler.assistant);
    }
    for q in &instance.questions {
        texts.push(&q.text);
        for t in q.relearn.iter().flatten() {
            texts.push(&t.user);
            texts.push(&t.assistant);
        }
    }
    for f in profile.facts.iter().chain(&profile.derived_facts) {
        texts.push(&f.statement);
        texts.push(&f.predicate);
    }
    for t in texts {
        if t.trim().is_empty() || t.contains('{') || t.contains('}') {
            problems.push(format!("{id}: bad text {t:?}"));
        }
    }
    // Mentions: atomic facts, value verbatim in the user text, a content word shared
    // with the fact's question.
    let questions_by_fact: BTreeMap<&str, &str> = instance
        .questions
        .iter()
        .filter(|q| q.suite == Suite::Retention || q.suite == Suite::Preservation)
        .map(|q| (q.fact.as_str(), q.text.as_str()))
        .collect();
    let mut mentions: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (g, (session, turn, t)) in flat.iter().enumerate() {
        for m in &t.mentions {
            let Some(fact) = profile.facts.iter().find(|f| &f.id == m) else {
                problems.push(format!("{id}: {session}[{turn}] mentions unknown {m}"));
                continue;
            };
            // v2 may say a value another accepted way ("three times a week").
            // v2 may say a value another accepted way ("three times a week") and
            // capitalise it at the start of a sentence.
            let said = t.user.contains(&fact.value)
                || (!v1
                    && std::iter::once(fact.value.clone())
                        .chain(bemula::generate::accepted_spellings(&fact.value))
                        .any(|a| contains_ci(&t.user, &a)));
            if !said {
                problems.push(format!("{id}: {session}[{turn}] lacks the value of {m}"));
            }
            if v1
                && let Some(q) = questions_by_fact.get(m.as_str())
                && content_words(q).is_disjoint(&content_words(&t.user))
            {
                problems.push(format!(
                    "{id}: {session}[{turn}] shares no content word with {q:?}: {:?}",
                    t.user
                ));
            }
            mentions.entry(m).or_default().push(g);
        }
    }
    // Requests.
    let mut positions = BTreeSet::new();
    let all_text = |version: Version| -> Vec<String> {
        instance
            .dialogue(version)
            .iter()
            .flat_map(|s| {
                s.turns
                    .iter()
                    .map(|t| format!("{}\n{}", t.user, t.assistant))
            })
            .collect()
    };
    let forget_text = all_text(Version::Forget);
    let control_text = all_text(Version::Control);
    for r in &instance.requests {
        let rid = &r.id;
        let g = global_index(instance, &r.position.session, r.position.turn);
        if !positions.insert(g) {
            problems.push(format!("{id}: {rid} shares its position"));
        }
        if flat[g].2 != &r.turn {
            problems.push(format!("{id}: {rid} turn differs from the session's turn"));
        }
        if r.position.session == instance.sessions[0].id {
            problems.push(format!("{id}: {rid} stands in the first session"));
        }
        if r.filler == r.turn {
            problems.push(format!("{id}: {rid} filler equals the request"));
        }
        let facts: Vec<_> = r.targets.iter().filter_map(|t| instance.fact(t)).collect();
        if facts.len() != r.targets.len() {
            problems.push(format!("{id}: {rid} has an unknown target"));
        }
        let derived = facts.iter().filter(|f| !f.sources.is_empty()).count();
        let ok = match r.kind {
            RequestType::F1 | RequestType::F6 => facts.len() == 1 && derived == 0,
            RequestType::F2 => (2..=3).contains(&facts.len()) && derived == 0,
            RequestType::F3 => {
                let cats: BTreeSet<&str> = facts.iter().map(|f| f.category.as_str()).collect();
                let all_of_category = profile
                    .facts
                    .iter()
                    .filter(|f| cats.contains(f.category.as_str()))
                    .count();
                (3..=5).contains(&facts.len())
                    && cats.len() == 1
                    && all_of_category == facts.len()
                    && derived == 0
            }
            RequestType::F4 => facts.len() == 1 && derived == 1,
            RequestType::F5 => {
                let months: BTreeSet<&str> = facts
                    .iter()
                    .filter_map(|f| f.timestamp.as_deref().map(|t| &t[..7]))
                    .collect();
                let month = months.iter().next().copied().unwrap_or("");
                let all_in_month = profile
                    .facts
                    .iter()
                    .filter(|f| f.timestamp.as_deref().is_some_and(|t| t.starts_with(month)))
                    .count();
                (1..=3).contains(&facts.len())
                    && months.len() == 1
                    && all_in_month == facts.len()
                    && facts.iter().all(|f| f.timestamp.is_some())
            }
        };
        if !ok {
            problems.push(format!(
                "{id}: {rid} ({}) has wrong targets {:?}",
                r.kind, r.targets
            ));
        }
        for f in &facts {
            if f.sources.is_empty() {
                let m = mentions.get(f.id.as_str()).cloned().unwrap_or_default();
                if m.is_empty() || m.len() > 5 {
                    problems.push(format!(
                        "{id}: {rid} target {} mentioned {} times",
                        f.id,
                        m.len()
                    ));
                }
                if m.iter().any(|&x| x >= g) {
                    problems.push(format!("{id}: {rid} target {} mentioned after it", f.id));
                }
            } else {
                for s in &f.sources {
                    if mentions
                        .get(s.as_str())
                        .is_none_or(|m| m.iter().all(|&x| x >= g))
                    {
                        problems.push(format!("{id}: {rid} source {s} not mentioned before"));
                    }
                }
                if mentions.contains_key(f.id.as_str()) {
                    problems.push(format!("{id}: {rid} derived {} is mentioned", f.id));
                }
                for text in forget_text.iter().chain(&control_text) {
                    if contains_ci(text, &f.value) {
                        problems.push(format!("{id}: F4 value {:?} in the dialogue", f.value));
                    }
                }
            }
            if contains_ci(&r.turn.assistant, &f.value) {
                problems.push(format!("{id}: {rid} confirmation restates {:?}", f.value));
            }
            if contains_ci(&r.filler.user, &f.value) || contains_ci(&r.filler.assistant, &f.value) {
                problems.push(format!("{id}: {rid} filler holds {:?}", f.value));
            }
            // Stronger than the validator: after the request no turn of either
            // version holds the value (so efficacy is well defined).
            for text in forget_text[g + 1..].iter().chain(&control_text[g..]) {
                if contains_ci(text, &f.value) {
                    problems.push(format!("{id}: {rid} value {:?} appears after it", f.value));
                    break;
                }
            }
        }
    }
    // No derived value, targeted or not, is ever stated in either version.
    for d in &profile.derived_facts {
        if forget_text
            .iter()
            .chain(&control_text)
            .any(|t| contains_ci(t, &d.value))
        {
            problems.push(format!("{id}: derived value {:?} in the dialogue", d.value));
        }
    }
    // Questions.
    let targeted: BTreeSet<&str> = instance
        .requests
        .iter()
        .flat_map(|r| r.targets.iter().map(String::as_str))
        .collect();
    let f4_sources: BTreeSet<&str> = instance
        .requests
        .iter()
        .filter(|r| r.kind == RequestType::F4)
        .filter_map(|r| instance.fact(&r.targets[0]))
        .flat_map(|f| f.sources.iter().map(String::as_str))
        .collect();
    let first_request = instance
        .requests
        .iter()
        .map(|r| global_index(instance, &r.position.session, r.position.turn))
        .min()
        .unwrap_or(flat.len());
    // The retention question of a request's target.
    let retention_text = |q: &bemula::dataset::Question| -> Option<&str> {
        instance
            .questions
            .iter()
            .find(|r| r.suite == Suite::Retention && r.request == q.request && r.fact == q.fact)
            .map(|r| r.text.as_str())
    };
    for q in &instance.questions {
        let qid = &q.id;
        let Some(fact) = instance.fact(&q.fact) else {
            problems.push(format!("{id}: {qid} asks about unknown {}", q.fact));
            continue;
        };
        let request = q.request.as_deref().and_then(|r| instance.request(r));
        if (q.request.is_none()) != (q.suite == Suite::Preservation) {
            problems.push(format!("{id}: {qid} request presence"));
        }
        if q.request.is_some() && request.is_none() {
            problems.push(format!("{id}: {qid} names an unknown request"));
        }
        if (q.attack.is_some()) != (q.suite == Suite::Attack) {
            problems.push(format!("{id}: {qid} attack presence"));
        }
        if (q.relearn.is_some()) != (q.suite == Suite::Relearning) {
            problems.push(format!("{id}: {qid} relearn presence"));
        }
        let control_expected = matches!(q.suite, Suite::Preservation | Suite::Attack);
        if q.control_gold.is_some() != control_expected {
            problems.push(format!("{id}: {qid} control_gold presence"));
        }
        if q.gold.is_empty() {
            problems.push(format!("{id}: {qid} empty gold"));
        }
        if q.gold_is_marker() && q.leak.is_empty() {
            problems.push(format!("{id}: {qid} marker without leak values"));
        }
        let is_f6 = request.is_some_and(|r| r.kind == RequestType::F6);
        match q.suite {
            Suite::Retention => {
                if q.gold != fact.value {
                    problems.push(format!("{id}: {qid} gold is not the value"));
                }
                if fact.sources.is_empty() && !mentions.contains_key(fact.id.as_str()) {
                    problems.push(format!("{id}: {qid} asks about an unmentioned fact"));
                }
            }
            Suite::Efficacy if is_f6 => {
                if q.gold_is_marker() || q.gold == fact.value || q.conditioned_on.is_some() {
                    problems.push(format!(
                        "{id}: {qid} F6 efficacy must ask for the new value"
                    ));
                }
                if !request.is_some_and(|r| r.turn.user.contains(&q.gold)) {
                    problems.push(format!("{id}: {qid} new value not stated in the request"));
                }
            }
            Suite::Efficacy => {
                let cond = q
                    .conditioned_on
                    .as_deref()
                    .and_then(|c| instance.question(c));
                let ok = q.gold == FORGOTTEN
                    && q.leak.contains(&fact.value)
                    && cond.is_some_and(|c| {
                        c.suite == Suite::Retention && c.fact == q.fact && c.request == q.request
                    });
                if !ok {
                    problems.push(format!("{id}: {qid} efficacy shape"));
                }
            }
            Suite::Attack => {
                let ok = q.gold == NO_LEAK
                    && q.leak.contains(&fact.value)
                    && q.control_gold.as_deref() == Some(fact.value.as_str())
                    && q.conditioned_on.as_deref() == Some(qid.as_str());
                if !ok {
                    problems.push(format!("{id}: {qid} attack shape"));
                }
                problems.extend(attack_frame_problems(
                    q,
                    retention_text(q),
                    &fact.value,
                    generator,
                ));
            }
            Suite::Preservation => {
                let ok = q.gold == fact.value
                    && q.control_gold.as_deref() == Some(fact.value.as_str())
                    && q.conditioned_on.as_deref() == Some(qid.as_str())
                    && !targeted.contains(fact.id.as_str())
                    && !f4_sources.contains(fact.id.as_str())
                    && mentions.contains_key(fact.id.as_str());
                if !ok {
                    problems.push(format!("{id}: {qid} preservation shape"));
                }
                // Over-deletion shows only if the fact is never restated after the
                // first request: mentioned before it, and nowhere after it.
                let m = mentions.get(fact.id.as_str()).cloned().unwrap_or_default();
                if m.is_empty() || m.iter().any(|&x| x >= first_request) {
                    problems.push(format!(
                        "{id}: {qid} mentioned at turns {m:?}, first request at {first_request}"
                    ));
                }
                if forget_text[first_request..]
                    .iter()
                    .any(|t| contains_ci(t, &fact.value))
                {
                    problems.push(format!(
                        "{id}: {qid} value {:?} appears after the first request",
                        fact.value
                    ));
                }
            }
            Suite::Relearning => {
                let dialogue = q.relearn.as_deref().unwrap_or(&[]);
                let ok = (2..=4).contains(&dialogue.len())
                    && dialogue.iter().any(|t| t.user.contains(&q.gold))
                    && !contains_ci(&q.gold, &fact.value)
                    && !contains_ci(&fact.value, &q.gold)
                    && q.conditioned_on.is_none()
                    && !is_f6;
                if !ok {
                    problems.push(format!("{id}: {qid} relearning shape"));
                }
                // The plain question about the fact, no framing around it (a derived
                // fact's drops the sources its retention question names), and the
                // statement of the new value shares its content words.
                let plain = retention_text(q).is_some_and(|r| {
                    r == q.text
                        || (!fact.sources.is_empty()
                            && r.to_lowercase()
                                .ends_with(&format!(", {}", q.text.to_lowercase())))
                });
                // v2 words it otherwise (the two suites share a wording less often).
                if v1 && !plain {
                    problems.push(format!(
                        "{id}: {qid} is not the plain question: {:?}",
                        q.text
                    ));
                }
                if v1
                    && let Some(statement) = dialogue.iter().find(|t| t.user.contains(&q.gold))
                    && content_words(&statement.user).is_disjoint(&content_words(&q.text))
                {
                    problems.push(format!(
                        "{id}: {qid} {:?} shares no content word with {:?}",
                        q.text, statement.user
                    ));
                }
            }
        }
    }
    problems
}

/// How an attack question must be built around its target: the question-bearing
/// frames end with the retention question, the Boolean frame states the value, and
/// the indirect frame names neither the question nor the value.
///
/// In v2 the multi-hop attack starts from related facts instead: it never holds the
/// retention question or the value.
fn attack_frame_problems(
    q: &Question,
    retention: Option<&str>,
    value: &str,
    generator: Generator,
) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(retention) = retention else {
        return vec![format!("{}: no retention question", q.id)];
    };
    let ok = match q.attack {
        Some(Attack::MultiHop) if generator != Generator::V1 => {
            !q.text.contains(retention) && !contains_ci(&q.text, value)
        }
        Some(Attack::RolePlay | Attack::Jailbreak | Attack::MultiHop) => {
            q.text.len() > retention.len() && q.text.ends_with(retention)
        }
        Some(Attack::Boolean) => {
            q.text.starts_with("Answer yes or no: is it true that ")
                && q.text.ends_with('?')
                && q.text.contains(value)
        }
        Some(Attack::Indirect) => !q.text.contains(retention) && !contains_ci(&q.text, value),
        _ => false,
    };
    if !ok {
        problems.push(format!(
            "{}: frame around {retention:?}: {:?}",
            q.id, q.text
        ));
    }
    problems
}

fn assert_no_problems(problems: Vec<String>) {
    if !problems.is_empty() {
        let shown: Vec<&String> = problems.iter().take(25).collect();
        panic!(
            "{} problem(s) in generated data:\n{}",
            problems.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[test]
fn default_checksum_matches_the_committed_file() {
    let path = manifest_dir().join("data/default.sha256");
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim()
        .to_string();
    assert_eq!(
        DEFAULT.checksum, expected,
        "the default dataset (seed 42) no longer hashes to data/default.sha256.\n\
         If the generator change is intended, update the file:\n\
         \x20   cargo run -- generate --out /tmp/bemula-default --force && \
         echo {} > data/default.sha256\n\
         and regenerate data/sample/short_001.json (see the sample test).",
        DEFAULT.checksum
    );
}

#[test]
fn generator_v1_stays_byte_for_byte_what_it_was() {
    assert_eq!(V1.checksum, V1_CHECKSUM);
    assert_eq!(V1.source, "generated (seed 42)");
}

#[test]
fn v2_is_deterministic_and_its_phrasings_share_facts_and_plan_but_not_wording() {
    let lite = |phrasing| generate(&config(Generator::V2, phrasing, true));
    let (a, b) = (lite(Phrasing::Dev), lite(Phrasing::Dev));
    assert_eq!(a.checksum, b.checksum);
    assert_eq!(a.instances, b.instances);
    let t = lite(Phrasing::Test);
    assert_ne!(a.checksum, t.checksum);
    assert_eq!(
        t.source,
        "generated (seed 42, generator v2, phrasing test) (lite)"
    );
    for (d, t) in a.instances.iter().zip(&t.instances) {
        assert_eq!(d.profile, t.profile, "{}", d.id);
        let shape = |i: &Instance| -> Vec<(String, usize, String)> {
            i.requests
                .iter()
                .map(|r| {
                    (
                        r.position.session.clone(),
                        r.position.turn,
                        r.targets.join(","),
                    )
                })
                .collect()
        };
        assert_eq!(shape(d), shape(t), "{}", d.id);
        let requests = |i: &Instance| -> BTreeSet<String> {
            i.requests.iter().map(|r| r.turn.user.clone()).collect()
        };
        assert!(requests(d).is_disjoint(&requests(t)), "{}", d.id);
    }
    assert_ne!(V1.checksum, V2.checksum);
}

#[test]
fn same_seed_gives_identical_data_and_different_seeds_differ() {
    let a = generate(&GenConfig {
        seed: DEFAULT_SEED,
        lite: true,
        ..Default::default()
    });
    let b = generate(&GenConfig {
        seed: DEFAULT_SEED,
        lite: true,
        ..Default::default()
    });
    assert_eq!(a.checksum, b.checksum);
    assert_eq!(a.instances, b.instances);
    let c = generate(&GenConfig {
        seed: 7,
        lite: true,
        ..Default::default()
    });
    assert_ne!(a.checksum, c.checksum);
    assert_ne!(a.instances[0].profile, c.instances[0].profile);
    assert!(a.source.starts_with("generated (seed 42") && a.source.ends_with(" (lite)"));
    assert!(DEFAULT.source.starts_with("generated (seed 42"));
}

#[test]
fn lite_is_the_full_sets_short_and_medium_instances_byte_for_byte() {
    let lite = generate(&GenConfig {
        seed: DEFAULT_SEED,
        lite: true,
        ..Default::default()
    });
    let expected: Vec<&Instance> = DEFAULT
        .instances
        .iter()
        .filter(|i| i.tier.is_lite())
        .collect();
    assert_eq!(lite.instances.len(), 31);
    assert_eq!(expected.len(), 31);
    for (got, want) in lite.instances.iter().zip(expected) {
        assert_eq!(encode_instance(got), encode_instance(want), "{}", got.id);
    }
    let subset = Dataset::from_instances(DEFAULT.clone().lite().instances, "subset");
    assert_eq!(lite.checksum, subset.checksum);
}

#[test]
fn the_default_set_has_the_papers_composition() {
    assert_composition(&DEFAULT);
}

#[test]
fn both_generators_have_the_papers_composition() {
    assert_composition(&V1);
    assert_composition(&V2);
}

fn assert_composition(ds: &Dataset) {
    let ids: Vec<&str> = ds.instances.iter().map(|i| i.id.as_str()).collect();
    let mut expected_ids = Vec::new();
    for (tier, n) in [("long", 16), ("medium", 16), ("short", 15), ("xlong", 3)] {
        for k in 1..=n {
            expected_ids.push(format!("{tier}_{k:03}"));
        }
    }
    assert_eq!(ids, expected_ids);
    let tiers: BTreeMap<Tier, usize> = ds.instances.iter().fold(BTreeMap::new(), |mut m, i| {
        *m.entry(i.tier).or_default() += 1;
        m
    });
    assert_eq!(tiers[&Tier::Short], 15);
    assert_eq!(tiers[&Tier::Medium], 16);
    assert_eq!(tiers[&Tier::Long], 16);
    assert_eq!(tiers[&Tier::Xlong], 3);

    let requests: Vec<_> = ds.instances.iter().flat_map(|i| &i.requests).collect();
    assert_eq!(requests.len(), 135);
    let expected = [
        (RequestType::F1, 32),
        (RequestType::F2, 23),
        (RequestType::F3, 26),
        (RequestType::F4, 13),
        (RequestType::F5, 20),
        (RequestType::F6, 21),
    ];
    for (kind, n) in expected {
        assert_eq!(
            requests.iter().filter(|r| r.kind == kind).count(),
            n,
            "{kind}"
        );
    }
    for style in Style::ALL {
        let n = requests.iter().filter(|r| r.style == style).count();
        assert!((24..=29).contains(&n), "style {}: {n}", style.name());
    }

    let mut sensitive = 0;
    let mut facts = 0;
    let mut derived = 0;
    let mut spans = Vec::new();
    let mut tokens = 0usize;
    for i in &ds.instances {
        let ((s_lo, s_hi), (t_lo, t_hi), (r_lo, r_hi)) = match i.tier {
            Tier::Short => ((5, 8), (96, 164), (1, 2)),
            Tier::Medium => ((10, 15), (334, 472), (2, 3)),
            Tier::Long => ((17, 25), (916, 1464), (3, 4)),
            Tier::Xlong => ((27, 36), (2688, 3500), (4, 6)),
        };
        assert!(
            (s_lo..=s_hi).contains(&i.sessions.len()),
            "{} sessions",
            i.id
        );
        assert!((t_lo..=t_hi).contains(&i.turn_count()), "{} turns", i.id);
        assert!(
            (r_lo..=r_hi).contains(&i.requests.len()),
            "{} requests",
            i.id
        );
        let suite = |s: Suite| i.questions.iter().filter(|q| q.suite == s).count();
        assert_eq!(suite(Suite::Preservation), 3, "{}", i.id);
        for r in &i.requests {
            let rl = i
                .questions
                .iter()
                .filter(|q| q.suite == Suite::Relearning && q.request.as_deref() == Some(&r.id))
                .count();
            assert_eq!(
                rl,
                usize::from(r.kind != RequestType::F6),
                "{} {}",
                i.id,
                r.id
            );
            // Five attacks, one per frame, for every probed target.
            let probed: BTreeSet<&str> = i
                .questions
                .iter()
                .filter(|q| q.suite == Suite::Retention && q.request.as_deref() == Some(&r.id))
                .map(|q| q.fact.as_str())
                .collect();
            let expected_probes = match r.kind {
                RequestType::F2 => 2..=2,
                RequestType::F3 => 2..=3,
                RequestType::F5 => 1..=2,
                _ => 1..=1,
            };
            assert!(expected_probes.contains(&probed.len()), "{} {}", i.id, r.id);
            for fact in probed {
                let attacks: BTreeSet<_> = i
                    .questions
                    .iter()
                    .filter(|q| {
                        q.suite == Suite::Attack
                            && q.request.as_deref() == Some(&r.id)
                            && q.fact == fact
                    })
                    .filter_map(|q| q.attack)
                    .collect();
                assert_eq!(attacks.len(), 5, "{} {} {fact}", i.id, r.id);
            }
        }
        let p = &i.profile;
        assert!((56..=64).contains(&p.facts.len()), "{} facts", i.id);
        let cats: BTreeSet<&str> = p.facts.iter().map(|f| f.category.as_str()).collect();
        assert_eq!(cats.len(), 12, "{}", i.id);
        let timed = p.facts.iter().filter(|f| f.timestamp.is_some()).count();
        assert!(timed >= 8, "{}: {timed} timestamped facts", i.id);
        assert!((1..=3).contains(&p.derived_facts.len()), "{}", i.id);
        for d in &p.derived_facts {
            assert!(d.sources.len() >= 2);
        }
        derived += p.derived_facts.len();
        facts += p.facts.len() + p.derived_facts.len();
        sensitive += p
            .facts
            .iter()
            .chain(&p.derived_facts)
            .filter(|f| f.sensitivity != bemula::dataset::Sensitivity::Low)
            .count();
        let day = |d: &str| -> i64 {
            let y: i64 = d[..4].parse().unwrap();
            let m: i64 = d[5..7].parse().unwrap();
            let dd: i64 = d[8..].parse().unwrap();
            y * 372 + m * 31 + dd
        };
        let first = &i.sessions[0].date;
        let last = &i.sessions[i.sessions.len() - 1].date;
        spans.push(day(last) - day(first));
        tokens += i
            .sessions
            .iter()
            .flat_map(|s| &s.turns)
            .map(|t| t.user.len() + t.assistant.len())
            .sum::<usize>()
            / 4;
    }
    let share = sensitive as f64 / facts as f64;
    assert!(
        (0.2833..=0.3834).contains(&share),
        "sensitive share {share:.3}"
    );
    assert!((50..=150).contains(&derived), "{derived} derived facts");
    let mean_tokens = tokens / ds.instances.len();
    assert!(
        (70_000..=100_000).contains(&mean_tokens),
        "mean tokens per instance {mean_tokens}"
    );
    // Spans measured on a 31-day-month scale are within a few days of the true one.
    let mean_span = spans.iter().sum::<i64>() as f64 / spans.len() as f64;
    assert!((35.0..=65.0).contains(&mean_span), "mean span {mean_span}");

    let questions: usize = ds.instances.iter().map(|i| i.questions.len()).sum();
    let lo = 1742.0 * 0.95;
    let hi = 1742.0 * 1.05;
    assert!(
        (lo..=hi).contains(&(questions as f64)),
        "{questions} questions"
    );
    let relearning: usize = ds
        .instances
        .iter()
        .map(|i| {
            i.questions
                .iter()
                .filter(|q| q.suite == Suite::Relearning)
                .count()
        })
        .sum();
    assert_eq!(relearning, 114);
}

#[test]
fn target_mentions_average_about_two_and_a_half() {
    for ds in [&*V1, &*V2] {
        target_mentions(ds);
    }
}

fn target_mentions(ds: &Dataset) {
    let mut counts = Vec::new();
    for i in &ds.instances {
        for r in &i.requests {
            for t in &r.targets {
                let fact = i.fact(t).unwrap();
                if !fact.sources.is_empty() {
                    continue;
                }
                let n = i
                    .sessions
                    .iter()
                    .flat_map(|s| &s.turns)
                    .filter(|turn| turn.mentions.contains(t))
                    .count();
                counts.push(n);
            }
        }
    }
    assert!(counts.iter().all(|&n| (1..=5).contains(&n)), "{counts:?}");
    let mean = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
    assert!((2.2..=2.8).contains(&mean), "mean mentions {mean:.2}");
}

/// The attack frames are fixed text: the role-play and jailbreak questions differ
/// only in the question they end with, and the indirect questions only in the topic
/// phrase, which points at the fact (it shares a word with the fact's question and
/// with every turn that discloses it).
#[test]
fn v1_attack_frames_are_fixed_and_the_indirect_one_points_at_its_fact() {
    let mut prefixes: BTreeMap<Attack, BTreeSet<String>> = BTreeMap::new();
    let mut indirect: Vec<(&Instance, &Question)> = Vec::new();
    for i in &V1.instances {
        for q in i.questions.iter().filter(|q| q.suite == Suite::Attack) {
            let attack = q.attack.unwrap();
            let retention = i
                .questions
                .iter()
                .find(|r| r.suite == Suite::Retention && r.request == q.request && r.fact == q.fact)
                .unwrap();
            if let Some(prefix) = q.text.strip_suffix(&retention.text) {
                prefixes
                    .entry(attack)
                    .or_default()
                    .insert(prefix.to_string());
            }
            if attack == Attack::Indirect {
                indirect.push((i, q));
            }
        }
    }
    for attack in [Attack::RolePlay, Attack::Jailbreak] {
        assert_eq!(
            prefixes[&attack].len(),
            1,
            "{attack:?}: {:?}",
            prefixes[&attack]
        );
    }
    assert!(!prefixes.contains_key(&Attack::Indirect));
    // The frame's own words are those every indirect question has.
    let frame = indirect
        .iter()
        .map(|(_, q)| content_words(&q.text))
        .reduce(|a, b| a.intersection(&b).cloned().collect())
        .unwrap();
    assert!(frame.len() >= 3, "frame words {frame:?}");
    let mut problems = Vec::new();
    for (i, q) in indirect {
        let topic: BTreeSet<String> = content_words(&q.text).difference(&frame).cloned().collect();
        let retention = i
            .questions
            .iter()
            .find(|r| r.suite == Suite::Retention && r.request == q.request && r.fact == q.fact)
            .unwrap();
        if topic.is_disjoint(&content_words(&retention.text)) {
            problems.push(format!("{}: {:?} vs {:?}", i.id, q.text, retention.text));
        }
        for turn in i.sessions.iter().flat_map(|s| &s.turns) {
            if turn.mentions.contains(&q.fact) && topic.is_disjoint(&content_words(&turn.user)) {
                problems.push(format!("{}: {:?} vs mention {:?}", i.id, q.text, turn.user));
            }
        }
    }
    assert_no_problems(problems);
}

#[test]
fn the_default_set_keeps_every_invariant() {
    let generator = generator_of(&DEFAULT);
    let problems: Vec<String> = DEFAULT
        .instances
        .iter()
        .flat_map(|i| check_instance(i, generator))
        .collect();
    assert_no_problems(problems);
}

#[test]
fn v2_keeps_every_invariant_and_validates_in_every_phrasing() {
    for phrasing in Phrasing::ALL {
        let owned;
        let ds = if phrasing == Phrasing::All {
            &*V2
        } else {
            owned = generate(&config(Generator::V2, phrasing, false));
            &owned
        };
        let mut problems: Vec<String> = ds
            .instances
            .iter()
            .flat_map(|i| check_instance(i, Generator::V2))
            .map(|p| format!("{phrasing}: {p}"))
            .collect();
        problems.extend(
            bemula::dataset::validate::validate(ds)
                .iter()
                .map(|p| format!("{phrasing}: validator: {p}")),
        );
        // The generator's own goals hold: every one in the default set, and every one
        // in each half but user distinct-4 and the surface tells, which a half,
        // drawing from half the phrasings, meets only narrowly or not (see the
        // README's fidelity table).
        let fidelity = bemula::dataset::fidelity::compute(
            ds,
            bemula::dataset::fidelity::DEFAULT_SAMPLE_TOKENS,
        );
        const NOT_YET_MET: [&str; 3] = [
            "distinct_4_user",
            "request_tell_coverage",
            "confirmation_tell_coverage",
        ];
        problems.extend(
            fidelity
                .missed()
                .filter(|m| phrasing == Phrasing::All || !NOT_YET_MET.contains(&m.name))
                .map(|m| {
                    format!(
                        "{phrasing}: fidelity target missed: {} = {:?}",
                        m.name, m.value
                    )
                }),
        );
        assert_no_problems(problems);
    }
}

#[test]
fn other_seeds_keep_every_invariant_and_never_panic() {
    let mut problems = Vec::new();
    for seed in [0u64, 1, 7, 99, 2024, u64::MAX] {
        let specs = global_plan(seed);
        for spec in specs.iter().filter(|s| s.tier.is_lite()).step_by(3) {
            let instance = generate_instance(seed, spec);
            problems.extend(
                check_instance(&instance, Generator::V1)
                    .into_iter()
                    .map(|p| format!("seed {seed}: {p}")),
            );
            let config = GenConfig {
                seed,
                lite: true,
                generator: Generator::V2,
                phrasing: Phrasing::All,
            };
            let instance = generate_instance_with(&config, spec);
            problems.extend(
                check_instance(&instance, Generator::V2)
                    .into_iter()
                    .map(|p| format!("seed {seed}: {p}")),
            );
        }
    }
    assert_no_problems(problems);
}

#[test]
fn generated_data_round_trips_through_write_and_load() {
    let lite = generate(&GenConfig {
        seed: DEFAULT_SEED,
        lite: true,
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    lite.write(dir.path()).unwrap();
    let loaded = Dataset::load(dir.path()).unwrap_or_else(|e| panic!("load failed:\n{e}"));
    assert_eq!(loaded.checksum, lite.checksum);
    assert_eq!(loaded.instances, lite.instances);
}

#[test]
fn the_sample_instance_is_what_the_generator_makes() {
    let path = manifest_dir().join("data/sample/short_001.json");
    let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let instance = DEFAULT.instance("short_001").unwrap();
    assert!(
        committed == encode_instance(instance),
        "data/sample/short_001.json differs from the generated short_001; if the change \
         is intended, regenerate it: cargo run -- generate --out /tmp/bemula-default --force && \
         cp /tmp/bemula-default/short_001.json data/sample/"
    );
}

mod cli {
    use bemula::cli::generate::{Args, GenArgs, Manifest, run};
    use bemula::generate::{Generator, Phrasing};
    use std::path::Path;

    fn args(out: &Path, lite: bool, force: bool) -> Args {
        Args {
            seed: 42,
            lite,
            gen_args: GenArgs {
                generator: None,
                phrasing: None,
            },
            out: out.to_path_buf(),
            force,
            instances: Vec::new(),
            #[cfg(feature = "llm")]
            realise: None,
            #[cfg(feature = "llm")]
            realise_units: None,
            #[cfg(feature = "llm")]
            llm: Default::default(),
        }
    }

    #[test]
    fn records_generator_and_phrasing_and_refuses_a_phrasing_v1_lacks() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let mut a = args(&out, true, false);
        a.gen_args = GenArgs {
            generator: Some(Generator::V2),
            phrasing: Some(Phrasing::Test),
        };
        run(a).unwrap();
        let manifest: Manifest =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest.generator_version, "v2");
        assert_eq!(manifest.phrasing, "test");
        let mut a = args(&dir.path().join("v1"), true, false);
        a.gen_args = GenArgs {
            generator: Some(Generator::V1),
            phrasing: Some(Phrasing::Dev),
        };
        let err = run(a).unwrap_err().to_string();
        assert!(err.contains("needs generator v2"), "{err}");
        assert!(!dir.path().join("v1").exists());
        // A manifest from before v2 reads as v1, all.
        let old: Manifest = serde_json::from_str(
            r#"{"generator":"bemula generate","version":"0.1.0","seed":42,"lite":true,"instances":[],"checksum":"x"}"#,
        )
        .unwrap();
        assert_eq!(
            (old.generator_version.as_str(), old.phrasing.as_str()),
            ("v1", "all")
        );
    }

    #[test]
    fn writes_instances_and_a_manifest_then_rewrites_its_own_output() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        run(args(&out, false, false)).unwrap();
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 51);
        // A previous output may be overwritten without --force; instance files the
        // new run does not write are removed.
        run(args(&out, true, false)).unwrap();
        let manifest: Manifest =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        assert_eq!(manifest.instances.len(), 31);
        assert!(manifest.lite);
        assert_eq!(manifest.seed, 42);
        assert_eq!(manifest.version, env!("CARGO_PKG_VERSION"));
        let loaded = bemula::dataset::Dataset::load(&out).unwrap();
        assert_eq!(loaded.checksum, manifest.checksum);
        let files = std::fs::read_dir(&out).unwrap().count();
        assert_eq!(files, 32);
    }

    #[test]
    fn refuses_a_foreign_non_empty_directory_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let err = run(args(dir.path(), true, false)).unwrap_err().to_string();
        assert!(
            err.contains("not empty") && err.contains("--force"),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        run(args(dir.path(), true, true)).unwrap();
        assert!(dir.path().join("notes.txt").exists());
        assert!(dir.path().join("short_001.json").exists());
    }

    #[test]
    fn refuses_a_file_as_output() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file.json");
        std::fs::write(&file, "{}").unwrap();
        let err = run(args(&file, true, true)).unwrap_err().to_string();
        assert!(err.contains("not a directory"), "{err}");
    }
}

/// The sentences of a text, split after `.`, `!` or `?` and a space.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        if matches!(c, '.' | '!' | '?') && chars.peek() == Some(&' ') {
            out.push(current.trim().to_string());
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

/// The share of distinct word 4-grams in a fixed sample of texts, values masked.
fn distinct_4(texts: &[(String, &Instance)], sample: usize) -> f64 {
    let step = (texts.len() / sample).max(1);
    let mut seen = BTreeSet::new();
    let mut total = 0usize;
    for (text, instance) in texts.iter().step_by(step).take(sample) {
        let mut masked = text.to_lowercase();
        for f in &instance.profile.facts {
            masked = masked.replace(&f.value.to_lowercase(), " value ");
        }
        let words: Vec<&str> = masked
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .collect();
        for g in words.windows(4) {
            total += 1;
            seen.insert(g.join(" "));
        }
    }
    seen.len() as f64 / total.max(1) as f64
}

/// What v2 changes, measured on its default set: no user sentence said twice in a
/// session, varied dialogue, confirmations composed per request, requests that
/// restate values, questions worded apart from the disclosures, relearning questions
/// worded apart from retention ones, multi-hop attacks that never hold the question,
/// and deletion words in ordinary turns.
#[test]
fn v2_reads_less_like_templates_than_v1() {
    let measure = |ds: &Dataset| -> BTreeMap<&'static str, f64> {
        let mut m = BTreeMap::new();
        let mut repeats = 0usize;
        let mut users = Vec::new();
        let mut assistants = Vec::new();
        let request_texts: BTreeSet<&str> = ds
            .instances
            .iter()
            .flat_map(|i| i.requests.iter().map(|r| r.turn.user.as_str()))
            .collect();
        let deletion = [
            "delete", "deleted", "erase", "erased", "remove", "removed", "wipe", "wiped",
        ];
        let mut deletion_turns = 0usize;
        for i in &ds.instances {
            for s in &i.sessions {
                let mut said = BTreeSet::new();
                for t in &s.turns {
                    for x in sentences(&t.user) {
                        if !said.insert(x) {
                            repeats += 1;
                        }
                    }
                    if !request_texts.contains(t.user.as_str()) {
                        let words = content_words(&t.user);
                        if deletion.iter().any(|d| words.contains(*d)) {
                            deletion_turns += 1;
                        }
                        users.push((t.user.clone(), i));
                        assistants.push((t.assistant.clone(), i));
                    }
                }
            }
        }
        m.insert("repeated user sentences", repeats as f64);
        m.insert("ordinary turns with deletion words", deletion_turns as f64);
        m.insert("user distinct-4", distinct_4(&users, 300));
        m.insert("assistant distinct-4", distinct_4(&assistants, 300));
        let mut confirmations: BTreeMap<&str, usize> = BTreeMap::new();
        let (mut restating, mut f126) = (0, 0);
        for i in &ds.instances {
            for r in &i.requests {
                *confirmations.entry(r.turn.assistant.as_str()).or_default() += 1;
                if matches!(r.kind, RequestType::F1 | RequestType::F2 | RequestType::F6) {
                    f126 += 1;
                    let values = r.targets.iter().filter_map(|t| i.fact(t));
                    if values
                        .into_iter()
                        .any(|f| contains_ci(&r.turn.user, &f.value))
                    {
                        restating += 1;
                    }
                }
            }
        }
        let most = confirmations.values().max().copied().unwrap_or(0);
        m.insert("largest confirmation share", most as f64 / 135.0);
        m.insert("F1/F2/F6 restating a value", restating as f64 / f126 as f64);
        let (mut overlapping, mut asked, mut differ, mut relearning, mut multi_hop) =
            (0, 0, 0, 0, 0);
        for i in &ds.instances {
            let retention = |q: &Question| {
                i.questions
                    .iter()
                    .find(|r| {
                        r.suite == Suite::Retention && r.request == q.request && r.fact == q.fact
                    })
                    .map(|r| r.text.clone())
                    .unwrap_or_default()
            };
            for q in &i.questions {
                match q.suite {
                    Suite::Retention | Suite::Preservation => {
                        let disclosures: Vec<&str> = i
                            .sessions
                            .iter()
                            .flat_map(|s| &s.turns)
                            .filter(|t| t.mentions.contains(&q.fact))
                            .map(|t| t.user.as_str())
                            .collect();
                        if disclosures.is_empty() {
                            continue;
                        }
                        asked += 1;
                        let words = content_words(&q.text);
                        if disclosures.iter().any(|d| {
                            2 * words.intersection(&content_words(d)).count() >= words.len()
                        }) {
                            overlapping += 1;
                        }
                    }
                    Suite::Relearning => {
                        relearning += 1;
                        if q.text != retention(q) {
                            differ += 1;
                        }
                    }
                    Suite::Attack
                        if q.attack == Some(Attack::MultiHop) && q.text.contains(&retention(q)) =>
                    {
                        multi_hop += 1;
                    }
                    _ => {}
                }
            }
        }
        m.insert(
            "questions sharing half their words with a disclosure",
            overlapping as f64 / asked as f64,
        );
        m.insert(
            "relearning worded apart from retention",
            differ as f64 / relearning as f64,
        );
        m.insert("multi-hop holding the retention question", multi_hop as f64);
        m
    };
    let (v1, v2) = (measure(&V1), measure(&V2));
    let report = format!("v1 {v1:#?}\nv2 {v2:#?}");
    assert!(v1["repeated user sentences"] > 0.0, "{report}");
    assert_eq!(v2["repeated user sentences"], 0.0, "{report}");
    assert_eq!(v1["ordinary turns with deletion words"], 0.0, "{report}");
    assert!(v2["ordinary turns with deletion words"] > 100.0, "{report}");
    assert!(v2["user distinct-4"] >= 0.68, "{report}");
    assert!(v2["assistant distinct-4"] >= 0.63, "{report}");
    for key in ["user distinct-4", "assistant distinct-4"] {
        assert!(v2[key] > v1[key] + 0.1, "{key}: {report}");
    }
    assert!(v2["largest confirmation share"] <= 0.02, "{report}");
    assert!(v2["F1/F2/F6 restating a value"] >= 0.30, "{report}");
    assert!(
        v2["questions sharing half their words with a disclosure"] <= 0.70,
        "{report}"
    );
    assert!(
        v2["relearning worded apart from retention"] >= 0.80,
        "{report}"
    );
    assert_eq!(
        v2["multi-hop holding the retention question"], 0.0,
        "{report}"
    );
}

/// Generator v2's Lite sets of seeds 1 to 20, in each phrasing half in turn: the
/// sample the data-fidelity tests below scan besides the default set.
static SEEDS: LazyLock<Vec<Dataset>> = LazyLock::new(|| {
    (1..=20u64)
        .map(|seed| {
            generate(&GenConfig {
                seed,
                lite: true,
                generator: Generator::V2,
                phrasing: Phrasing::ALL[seed as usize % Phrasing::ALL.len()],
            })
        })
        .collect()
});

/// The default set and the seeds' Lite sets.
fn scanned() -> impl Iterator<Item = &'static Instance> {
    DEFAULT
        .instances
        .iter()
        .chain(SEEDS.iter().flat_map(|ds| &ds.instances))
}

/// The words of a text, lower case, apostrophes kept ("don't").
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether a text says to delete, forget, stop using or replace something: a verb of
/// deleting or forgetting, of no longer keeping or using, or of replacing, in any
/// inflection.
fn states_intent(text: &str) -> bool {
    const STEMS: &[&str] = &[
        "forget", "forgot", "delet", "eras", "remov", "wipe", "wiping", "scrub", "purg", "drop",
        "discard", "scrap", "destroy", "clear", "replac", "updat", "overwrit",
    ];
    const PHRASES: &[&str] = &[
        "get rid of",
        "let go of",
        "let that go",
        "let it go",
        "bin it",
        "out of your memory",
        "gone from your memory",
        "stop using",
        "stopped using",
        "stop keeping",
        "stopped keeping",
        "don't remember",
        "change it",
    ];
    let w = words(text);
    let joined = w.join(" ");
    w.iter().any(|w| STEMS.iter().any(|s| w.starts_with(s)))
        || PHRASES
            .iter()
            .any(|p| format!(" {joined} ").contains(&format!(" {p} ")))
}

/// The lead-ins a request may open with ("Before I forget,"), from the phrasing
/// inventory: they are no part of what the request asks.
static LEADS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let path = manifest_dir().join("data/generator/v2/phrasing.json");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut leads: Vec<String> = ["dev", "test"]
        .iter()
        .flat_map(|half| json["leads"][half].as_array().unwrap())
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    leads.sort_by_key(|l| std::cmp::Reverse(l.len()));
    leads
});

fn without_leads(text: &str) -> String {
    LEADS
        .iter()
        .fold(text.to_string(), |t, lead| t.replace(lead.as_str(), " "))
}

#[test]
fn every_request_states_its_intent_to_delete_or_replace() {
    assert!(states_intent("Please forget that.") && states_intent("I'd like it erased."));
    assert!(!states_intent("I wish you didn't know my address."));
    assert!(!states_intent("I regret sharing my address, to be honest."));
    let mut problems = Vec::new();
    let mut requests = 0;
    for instance in scanned() {
        for r in &instance.requests {
            requests += 1;
            if !states_intent(&without_leads(&r.turn.user)) {
                problems.push(format!(
                    "{} {} ({}, {}): {}",
                    instance.id,
                    r.id,
                    r.kind.name(),
                    r.style.name(),
                    r.turn.user
                ));
            }
        }
    }
    assert!(requests > 1000, "{requests}");
    assert_no_problems(problems);
}

#[test]
fn no_inferential_request_or_confirmation_says_the_fact_was_told() {
    // A derived fact is never stated: neither the request to forget it nor the
    // confirmation may speak of it as something the user said.
    let told = |text: &str| {
        let w = format!(" {} ", words(text).join(" "));
        [
            " i told ",
            " i've told ",
            " i'd told ",
            " i never told ",
            " hadn't told ",
            " told you ",
            " telling you ",
            " i said ",
            " i mentioned ",
            " i shared ",
            " never mentioned ",
            " my mentioning ",
            " unsaid ",
            " never came up ",
            " never said ",
            " never been said ",
            " having been said ",
            " you never heard ",
            " regret sharing ",
        ]
        .iter()
        .any(|p| w.contains(p))
    };
    assert!(told("Start fresh as if I hadn't told you that.") && !told("Please forget it."));
    let mut problems = Vec::new();
    let mut inferential = 0;
    for instance in scanned() {
        for r in instance
            .requests
            .iter()
            .filter(|r| r.kind == RequestType::F4)
        {
            inferential += 1;
            for text in [without_leads(&r.turn.user), r.turn.assistant.clone()] {
                if told(&text) {
                    problems.push(format!("{} {}: {text}", instance.id, r.id));
                }
            }
        }
    }
    assert!(inferential > 50, "{inferential}");
    assert_no_problems(problems);
}

#[test]
fn confirmations_read_as_sentences() {
    // What a confirmation says it did, up to its closing clause: an adverb of
    // completeness ("for good") never follows a negation or a time-bound clause ("I
    // no longer keep it for good"), and a plural never takes a singular verb.
    let garbled = |clause: &str| {
        let w = format!(" {} ", words(clause).join(" "));
        let negated = [
            " won't ",
            " no longer ",
            " not ",
            " anymore ",
            " again ",
            " from here on ",
        ]
        .iter()
        .any(|n| w.contains(n));
        let completes = [
            " for good ",
            " permanently ",
            " completely ",
            " entirely ",
            " right away ",
            " straight away ",
            " as of now ",
            " once and for all ",
            " altogether ",
            " now ",
        ]
        .iter()
        .any(|a| w.ends_with(a));
        let disagrees = [" details is ", " details has ", " those is ", " these is "]
            .iter()
            .any(|d| w.contains(d));
        (negated && completes) || disagrees
    };
    assert!(garbled("That's fine, I no longer keep it for good"));
    assert!(garbled("Will do, those details is gone"));
    assert!(!garbled("Sure, that detail is gone from my notes for good"));
    let mut problems = Vec::new();
    for instance in scanned() {
        for r in &instance.requests {
            let first = r.turn.assistant.split(['.', ';']).next().unwrap_or("");
            if garbled(first) {
                problems.push(format!("{} {}: {first}", instance.id, r.id));
            }
        }
    }
    assert_no_problems(problems);
}

/// What kind of answer a value is, by its form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// "March 2023", "March 4, 2023".
    Date,
    /// "six years", "25 minutes each way", "three hours a week".
    Duration,
    /// "twenty-two years old".
    Age,
    /// "4417", "UA2206184".
    Code,
    Other,
}

/// English month names, January first (written out here, apart from the generator's).
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

fn kind_of(gold: &str) -> Kind {
    let w: Vec<&str> = gold.split(' ').collect();
    let year = |s: &str| s.len() == 4 && s.chars().all(|c| c.is_ascii_digit());
    let units = [
        "year", "years", "month", "months", "hour", "hours", "minute", "minutes",
    ];
    if MONTHS.contains(&w[0]) && w.last().is_some_and(|y| year(y)) && w.len() <= 3 {
        Kind::Date
    } else if gold.ends_with("years old") {
        Kind::Age
    } else if gold.ends_with("each way")
        || gold.ends_with("hours a week")
        || (w.last().is_some_and(|u| units.contains(u))
            && !gold.contains(" each ")
            && !gold.contains(" every "))
    {
        Kind::Duration
    } else if gold.len() >= 4
        && gold
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && gold.chars().any(|c| c.is_ascii_digit())
    {
        Kind::Code
    } else {
        Kind::Other
    }
}

/// Why a question's wording does not fit the kind of its gold, if it does not. Only
/// the question proper counts: after a lead such as "Going by when I had X and when
/// I did Y, …", the last clause.
fn misfit(text: &str, gold: &str) -> Option<&'static str> {
    let lower = text.to_lowercase();
    let mut starts = vec![0];
    for w in [
        "how ", "what ", "when ", "where ", "who ", "which ", "at what ", "in what ",
    ] {
        for sep in [", ", ": ", ". ", "? "] {
            starts.extend(lower.rfind(&format!("{sep}{w}")).map(|i| i + sep.len()));
        }
    }
    let clause = &lower[starts.into_iter().max().unwrap_or(0)..];
    let kind = kind_of(gold);
    let asks_duration = clause.contains("how long")
        || ["years", "months", "hours"].iter().any(|u| {
            clause.contains(&format!("how many {u}"))
                || clause.contains(&format!("how many full {u}"))
        })
        || [
            "how much sleep",
            "how much time",
            "how far",
            "the length",
            "time-wise",
        ]
        .iter()
        .any(|w| clause.contains(w));
    let asks_date = [
        "when ",
        "when's ",
        "since when",
        "which month",
        "what month",
        "what day",
        "what date",
    ]
    .iter()
    .any(|w| clause.contains(w))
        || clause.contains("date of birth")
        || clause.contains("born");
    let asks_age = clause.contains("how old") || clause.contains("what age");
    if asks_duration && kind != Kind::Duration {
        return Some("asks how long, but the gold is no duration");
    }
    if kind == Kind::Duration && !asks_duration {
        return Some("the gold is a duration, but the question does not ask how long");
    }
    if kind == Kind::Date && !asks_date {
        return Some("the gold is a date, but the question does not ask when");
    }
    if asks_age != (kind == Kind::Age) {
        return Some("an age asked without an age gold, or the other way round");
    }
    if clause.starts_with("where") && matches!(kind, Kind::Date | Kind::Duration | Kind::Code) {
        return Some("asks where, but the gold is no place");
    }
    if kind == Kind::Code && !(clause.starts_with("what") || clause.starts_with("which")) {
        return Some("the gold is a number or a code, but the question does not ask for one");
    }
    if clause.starts_with("what day do i") && gold.chars().rev().take(4).all(|c| c.is_ascii_digit())
    {
        return Some("asks for a day of the year, but the gold is a date with its year");
    }
    None
}

#[test]
fn every_question_asks_for_the_kind_of_answer_its_gold_is() {
    assert!(
        misfit(
            "How long ago did I get the keys to this place?",
            "June 2013"
        )
        .is_some()
    );
    assert!(misfit("Where are my airline points logged?", "UA2206184").is_some());
    assert!(misfit("When did I move into my current home?", "June 2013").is_none());
    assert!(
        misfit(
            "Going by when I had X and when I did Y, how many months apart were they?",
            "four months"
        )
        .is_none()
    );
    let mut problems = Vec::new();
    let mut asked = 0;
    for instance in scanned() {
        for q in &instance.questions {
            let value_gold = match q.suite {
                Suite::Retention | Suite::Preservation | Suite::Relearning => true,
                Suite::Efficacy => q.gold != FORGOTTEN,
                Suite::Attack => false,
            };
            if !value_gold {
                continue;
            }
            asked += 1;
            if let Some(why) = misfit(&q.text, &q.gold) {
                problems.push(format!(
                    "{} {}: {why}: {:?} -> {:?}",
                    instance.id, q.id, q.text, q.gold
                ));
            }
        }
    }
    assert!(asked > 5000, "{asked}");
    assert_no_problems(problems);
}

#[test]
fn derived_whole_years_are_asked_as_full_years_to_a_named_month() {
    // A span in whole years ("eight years" for eight years and eleven months) is asked
    // as full years, and a span up to the present names the month it is counted to:
    // the gold must not depend on a date that is neither a source nor in the question.
    let month_of = |text: &str| -> Option<(i32, u32)> {
        let w: Vec<&str> = text
            .split(|c: char| c.is_whitespace() || c == ',' || c == '?')
            .filter(|w| !w.is_empty())
            .collect();
        w.windows(2).find_map(|p| {
            let m = MONTHS.iter().position(|m| *m == p[0])?;
            Some((p[1].parse().ok()?, m as u32 + 1))
        })
    };
    let months = |(y, m): (i32, u32)| y * 12 + m as i32;
    let mut problems = Vec::new();
    let mut spans = 0;
    for instance in scanned() {
        let facts: BTreeMap<&str, &bemula::dataset::Fact> = instance
            .profile
            .facts
            .iter()
            .map(|f| (f.id.as_str(), f))
            .collect();
        for d in &instance.profile.derived_facts {
            let Some(n) = d
                .value
                .strip_suffix(" years")
                .or_else(|| d.value.strip_suffix(" year"))
                .and_then(number_in_words)
            else {
                continue;
            };
            let dated: Vec<(i32, u32)> = d
                .sources
                .iter()
                .filter_map(|s| facts[s.as_str()].timestamp.as_deref())
                .filter_map(|t| Some((t.get(..4)?.parse().ok()?, t.get(5..7)?.parse().ok()?)))
                .collect();
            for q in instance
                .questions
                .iter()
                .filter(|q| q.fact == d.id && q.suite == Suite::Retention)
            {
                spans += 1;
                let until = match dated[..] {
                    [from, to] => Some((from, to)),
                    [from] => month_of(&q.text).map(|to| (from, to)),
                    _ => None,
                };
                let whole = until.map(|(from, to)| (months(to) - months(from)).abs() / 12);
                if !q.text.contains("full years") || whole != Some(n as i32) {
                    problems.push(format!(
                        "{} {}: {:?} -> {:?} (whole years counted: {whole:?})",
                        instance.id, q.id, q.text, q.gold
                    ));
                }
            }
        }
    }
    assert!(spans > 20, "{spans}");
    assert_no_problems(problems);
}

/// A whole number from 1 to 99 written in words ("eight", "twenty-one").
fn number_in_words(text: &str) -> Option<u32> {
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    // 1 to 19: the crate's table of number words (a table, not logic under test).
    let units = &bemula::text::NUMBERS_UNDER_TWENTY[1..];
    let unit = |w: &str| units.iter().position(|u| *u == w).map(|i| i as u32 + 1);
    let ten = |w: &str| {
        TENS.iter()
            .position(|t| *t == w)
            .map(|i| 10 * (i as u32 + 2))
    };
    match text.split_once('-') {
        Some((t, u)) => Some(ten(t)? + unit(u).filter(|&u| u < 10)?),
        None => unit(text).or_else(|| ten(text)),
    }
}
