use super::*;
use std::collections::HashSet;

/// Sessions run to 130 turns and more; the parts of small talk wear out, but a
/// user turn never comes out empty and never repeats a sentence of its session.
#[test]
fn every_turn_of_a_long_session_has_fresh_user_text() {
    for (seed, scenario) in v1_data().scenarios.iter().enumerate().step_by(5) {
        let mut rng = Rng::new(seed as u64);
        let mut used = Used::new();
        let mut said: HashSet<String> = HashSet::new();
        for i in 0..1000 {
            let turn = talk_turn(&mut rng, scenario, &mut used, false);
            assert!(
                !turn.user.trim().is_empty(),
                "scenario {seed}: turn {i} has no user text"
            );
            for s in sentences(&turn.user) {
                assert!(said.insert(s.to_string()), "turn {i} repeats {s:?}");
            }
        }
    }
}

#[test]
fn a_sentence_said_once_is_heard_in_any_case_or_punctuation() {
    let mut used = Used::new();
    hear(&mut used, "Could you drop that? Thank you.");
    assert!(!hear_if_unheard(&mut used, "Okay, brain full. Thank you!"));
    assert!(!hear_if_unheard(&mut used, "could you drop THAT"));
    assert!(hear_if_unheard(&mut used, "Okay, brain full."));
}

#[test]
fn sentences_split_after_end_marks() {
    assert_eq!(
        sentences("Okay, fine. What now? Wow! Last bit").collect::<Vec<_>>(),
        vec!["Okay, fine.", "What now?", "Wow!", "Last bit"]
    );
    assert_eq!(
        sentences("It costs $3.50 a day.").collect::<Vec<_>>(),
        vec!["It costs $3.50 a day."]
    );
}

#[test]
fn a_lead_lowers_the_next_word_but_not_names_or_i() {
    assert_eq!(
        lead_into("By the way,", "My rent went up.", "rent"),
        "By the way, my rent went up."
    );
    assert_eq!(
        lead_into("By the way,", "Thaddeus and I are close.", "Thaddeus"),
        "By the way, Thaddeus and I are close."
    );
    assert_eq!(
        lead_into("Side note:", "I play the cello.", "cello"),
        "Side note: I play the cello."
    );
    assert_eq!(
        lead_into("Oh, one more thing.", "We moved.", "x"),
        "Oh, one more thing. We moved."
    );
    // A lead that runs into the sentence without a mark lowers it too.
    assert_eq!(
        lead_into(
            "Not sure if I said this, but",
            "Next door is a bakery.",
            "bakery"
        ),
        "Not sure if I said this, but next door is a bakery."
    );
}

/// A disclosure has one lead-in at most: a lead before a sentence that is already a
/// frame around the fact ("I should mention that …") stacks two.
#[test]
fn no_disclosure_stacks_two_lead_ins() {
    let leads: Vec<String> = data()
        .phrases
        .mention_leads
        .pool(Phrasing::All)
        .into_iter()
        .map(normal)
        .collect();
    let frames: Vec<String> = data()
        .phrases
        .mention_frames
        .pool(Phrasing::All)
        .into_iter()
        .map(|f| normal(f.split("{claim}").next().unwrap_or("")))
        .filter(|f| !f.is_empty())
        .collect();
    let plan = crate::generate::generate(&crate::generate::GenConfig::default());
    let mut stacked = Vec::new();
    for instance in &plan.instances {
        for session in &instance.sessions {
            for turn in session.turns.iter().filter(|t| !t.mentions.is_empty()) {
                for sentence in sentences(&turn.user) {
                    let n = normal(sentence);
                    let lead = leads.iter().any(|l| n.starts_with(l.as_str()));
                    if lead && frames.iter().any(|f| n.contains(f.as_str())) {
                        stacked.push(sentence.to_string());
                    }
                }
            }
        }
    }
    assert!(
        stacked.is_empty(),
        "{} stacked, e.g. {:?}",
        stacked.len(),
        &stacked[..stacked.len().min(3)]
    );
}

#[test]
fn asides_never_use_a_deletion_word_but_details_sometimes_do() {
    let deletion = |text: &str| {
        text.to_lowercase()
            .split(|c: char| !c.is_alphabetic())
            .any(|w| {
                ["delet", "eras", "remov", "wip", "forget", "forgot", "memor"]
                    .iter()
                    .any(|s| w.starts_with(s))
            })
    };
    let mut rng = Rng::new(11);
    let mut with = 0;
    for _ in 0..2000 {
        let mut used = Used::new();
        let before = aside_before(&mut rng, &mut used);
        let after = aside_after(&mut rng, &mut used);
        let more = carry_on(&mut rng, &mut used);
        for text in [&before, &after, &more] {
            assert!(!text.is_empty() && !deletion(text), "{text:?}");
        }
        assert!(after.ends_with('?'), "{after}");
        if deletion(&user_detail(&mut rng, &mut Used::new(), true)) {
            with += 1;
        }
    }
    // One in 25 details, give or take.
    assert!((40..=130).contains(&with), "{with} of 2000");
}

/// The user sentences of a request exchange are written before its session: the
/// ordinary turns around it must still never say one of them again.
#[test]
fn no_ordinary_turn_repeats_a_sentence_of_a_request_in_its_session() {
    let mut repeats = Vec::new();
    let mut requests = 0;
    for phrasing in [Phrasing::All, Phrasing::Dev, Phrasing::Test] {
        for spec in crate::generate::global_plan(42) {
            let instance = super::super::generate_instance(42, &spec, phrasing);
            for r in &instance.requests {
                requests += 1;
                let session = instance
                    .sessions
                    .iter()
                    .find(|s| s.id == r.position.session)
                    .unwrap();
                for (t, turn) in session.turns.iter().enumerate() {
                    for x in sentences(&turn.user) {
                        if t != r.position.turn && sentences(&r.turn.user).any(|y| y == x) {
                            repeats.push(format!("{} {}: {x}", spec.id, r.id));
                        }
                    }
                }
            }
        }
    }
    assert!(requests > 300, "{requests}");
    assert!(repeats.is_empty(), "{repeats:#?}");
}

#[test]
fn a_phrasing_draws_from_its_half_of_an_unsplit_list() {
    let mut rng = Rng::new(5);
    for n in 1..6 {
        let list: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        for phrasing in Phrasing::ALL {
            let mut drawn: Vec<usize> = (0..200)
                .map(|_| pick_parity(&mut rng, &list, phrasing).parse().unwrap())
                .collect();
            drawn.sort_unstable();
            drawn.dedup();
            let half: Vec<usize> = (0..n)
                .filter(|i| match phrasing {
                    _ if n < 2 => true,
                    Phrasing::Dev => i % 2 == 0,
                    Phrasing::Test => i % 2 == 1,
                    Phrasing::All => true,
                })
                .collect();
            assert_eq!(drawn, half, "{n} entries, {phrasing}");
        }
    }
}

#[test]
fn spoken_values_are_accepted_spellings() {
    let mut rng = Rng::new(3);
    for value in ["3 times a week", "$1,450", "Thai food"] {
        for _ in 0..20 {
            let said = spoken_value(&mut rng, value);
            let ok = said == value
                || crate::generate::text::accepted_spellings(value)
                    .iter()
                    .any(|a| said.contains(a.as_str()));
            assert!(ok, "{value} said as {said}");
        }
    }
}

/// A happening told of someone else ("a friend and I …", "we …") keeps no word
/// that only fits the user alone ("… saying sorry but I couldn't make it", "… for
/// me"), and the subject itself is said, never left as a grammar.
#[test]
fn a_happening_told_of_others_keeps_no_word_of_the_user_alone() {
    let alone = [
        "i", "i'm", "i'd", "i've", "i'll", "me", "my", "mine", "myself",
    ];
    let mut rng = Rng::new(23);
    let mut others = 0;
    for _ in 0..4000 {
        let detail = user_detail(&mut rng, &mut Used::new(), false);
        let first = sentences(&detail).next().unwrap_or_default().to_lowercase();
        assert!(!first.contains('['), "{first}");
        let Some((_, rest)) = first.split_once(", ") else {
            continue;
        };
        let words = crate::text::tokenize(rest);
        let plural = rest.starts_with("we ") || rest.starts_with("the two of us ");
        let with_me = words.windows(2).position(|w| w[0] == "and" && w[1] == "i");
        if !plural && with_me.is_none() {
            continue;
        }
        others += 1;
        let after = with_me.map_or(1, |i| i + 2);
        let bad: Vec<&String> = words[after..]
            .iter()
            .filter(|w| alone.contains(&w.as_str()))
            .collect();
        assert!(bad.is_empty(), "{first:?} keeps {bad:?}");
    }
    assert!(others > 300, "only {others} happenings told of others");
}
