use super::*;

fn targets(text: &str) -> Vec<Target> {
    recognise(
        text,
        Some(YearMonth {
            year: 2024,
            month: 8,
        }),
    )
    .unwrap_or_else(|| panic!("not recognised: {text}"))
    .targets
}

fn facts(words: &[&str]) -> Target {
    Target::Facts(words.iter().map(|w| stem(w)).collect())
}

#[test]
fn clauses_split_at_openers_not_lists() {
    assert_eq!(
        split_clauses("I like Thai, Mexican, and vegetarian food, but now I prefer Italian; fine"),
        vec![
            "I like Thai, Mexican, and vegetarian food",
            "but now I prefer Italian",
            "fine"
        ]
    );
}

#[test]
fn direct_fact_request() {
    assert_eq!(
        targets("Please forget that I had a routine physical examination in December 2023."),
        vec![facts(&[
            "routine",
            "physical",
            "examination",
            "december",
            "2023"
        ])]
    );
}

#[test]
fn compositional_request_splits_parts() {
    let t = targets(
        "Sorry to bother you, but would you mind forgetting that I plan to study nursing and that I go cycling on the Ann and Roy Butler Trail?",
    );
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!(t[0], facts(&["plan", "study", "nursing"]));
    assert_eq!(t[1], facts(&["cycling", "ann", "roy", "butler", "trail"]));
}

#[test]
fn category_request() {
    let t = targets(
        "Don't store any of my financial information. Delete everything you have in that category.",
    );
    assert_eq!(t.len(), 1, "{t:?}");
    assert!(matches!(&t[0], Target::Categories(c) if c.len() == 1 && c[0].name() == "finance"));
    let t = targets("I'd rather you didn't keep anything about my health.");
    assert!(
        matches!(&t[0], Target::Categories(c) if c[0].name() == "health"),
        "{t:?}"
    );
}

#[test]
fn inference_request() {
    let t = targets(
        "Delete that inferred detail about how long I have lived in my current home immediately.",
    );
    assert_eq!(
        t,
        vec![Target::Inference(vec![
            stem("long"),
            stem("lived"),
            stem("current"),
            stem("home")
        ])]
    );
    let t = targets("Please don't work out my age from my graduation year.");
    assert_eq!(t, vec![Target::Inference(vec![stem("age")])]);
}

#[test]
fn temporal_request() {
    let t = targets(
        "I've completely moved on from everything around June 2024, and those days might as well have never happened. I don't want any information from that time retained anymore.",
    );
    assert_eq!(
        t,
        vec![Target::Periods(vec![Period::month(YearMonth {
            year: 2024,
            month: 6
        })])]
    );
}

#[test]
fn replacement_request() {
    let r = recognise(
        "Please forget that I used to like Thai and Mexican restaurants. My preference has changed to Italian restaurants, so only remember Italian restaurants.",
        None,
    )
    .unwrap();
    assert_eq!(
        r.targets,
        vec![facts(&["like", "thai", "mexican", "restaurants"])]
    );
    assert_eq!(
        r.statements,
        vec![
            "My preference has changed to Italian restaurants",
            "Italian restaurants.",
            "I like Italian restaurants."
        ]
    );
    assert_eq!(
        clean_statement("I switched from tea to coffee"),
        "I switched to coffee"
    );
}

#[test]
fn pointing_back_takes_the_preceding_clause() {
    let r = recognise(
        "I don't like Thai food anymore, that's outdated. Now I only eat Italian food instead.",
        None,
    )
    .unwrap();
    assert_eq!(r.targets, vec![facts(&["like", "thai", "food"])]);
    assert_eq!(
        r.statements,
        vec![
            "Now I only eat Italian food instead.",
            "I like Italian food."
        ]
    );
    assert_eq!(
        restate(
            &tokenize("that my favorite color is blue"),
            "Now it's green."
        )
        .as_deref(),
        Some("My favorite color is green.")
    );
    assert_eq!(
        targets(
            "My old job at the bakery is behind me now — it might as well never have happened."
        ),
        vec![facts(&["old", "job", "bakery"])]
    );
}

#[test]
fn more_indirect_phrasings() {
    assert_eq!(
        targets(
            "I don't really want everything I mentioned about my best friend's name sitting in your memory, if that makes sense."
        ),
        vec![facts(&["best", "friend", "name"])]
    );
    assert_eq!(
        targets(
            "Honestly, I'd feel better if my diet, the loan I took out in December 2023 and my therapy weren't something you remembered."
        ),
        vec![
            facts(&["diet"]),
            facts(&["loan", "took", "december", "2023"]),
            facts(&["therapy"])
        ]
    );
    let t = targets(
        "It makes me uncomfortable that you still know all of my financial information; I'd prefer that gone.",
    );
    assert!(
        matches!(&t[..], [Target::Categories(c)] if c[0].name() == "finance"),
        "{t:?}"
    );
    assert_eq!(
        targets(
            "That inferred detail about how many hours a week I spend on yoga: that's a chapter I've closed, and as far as you're concerned it shouldn't exist anymore."
        ),
        vec![Target::Inference(vec![
            stem("hours"),
            stem("week"),
            stem("spend"),
            stem("yoga")
        ])]
    );
    let r = recognise(
        "Overwrite it right now: my frequent flyer number is AX4471920. The part about how my frequent flyer number is DL8830215 is wrong, so erase it.",
        None,
    )
    .unwrap();
    assert_eq!(
        r.targets,
        vec![facts(&["frequent", "flyer", "number", "dl8830215"])]
    );
    assert_eq!(r.statements[0], "my frequent flyer number is AX4471920.");
    let r = recognise(
        "Things have changed: I still owe $34,200 on my student loans now. The version where I still owe $9,650 on my student loans is behind me, so there's no need to hang on to it.",
        None,
    )
    .unwrap();
    assert_eq!(
        r.targets,
        vec![facts(&["still", "owe", "9650", "student", "loans"])]
    );
    assert_eq!(
        r.statements,
        vec!["I still owe $34,200 on my student loans now."]
    );
    assert_eq!(
        targets(
            "I'm done with everything I mentioned about my commute time; it's in the past, and I'd like it gone from your side too."
        ),
        vec![facts(&["commute"])]
    );
    assert_eq!(
        targets(
            "Let's act as if I never told you about the laptop I bought. That's behind me now."
        ),
        vec![facts(&["laptop", "bought"])],
        "the second sentence points back at the request itself"
    );
}

#[test]
fn everything_and_previous() {
    assert_eq!(
        targets("Forget everything I've told you."),
        vec![Target::Everything]
    );
    assert_eq!(
        targets("Please forget what I just told you."),
        vec![Target::Previous]
    );
    assert_eq!(targets("Please delete that information."), vec![]);
}

#[test]
fn ordinary_talk_is_no_request() {
    for text in [
        "I forgot my keys at the office yesterday.",
        "Don't forget my dentist appointment on Friday!",
        "Please don't forget that I'm allergic to nuts.",
        "I need to delete some old photos from my phone.",
        "Can you help me remove the background from this picture?",
        "Remove the onions from the recipe, please.",
        "It's easy to forget my password.",
        "Did you forget my birthday?",
        "I don't remember my old address.",
        "I moved on from teaching to sales in 2019.",
        "Forget it, let's talk about something else.",
        "Let's forget about work for a bit.",
        "I don't keep receipts.",
        "How do I clear my browser cache?",
        "I moved on from teaching to sales in 2019, and that changed everything.",
        "It's in the past now, my dad always said.",
        "Do you still think my plan is realistic?",
    ] {
        assert!(
            recognise(text, None).is_none(),
            "taken as a request: {text}"
        );
    }
}

/// The detectors that find a cue in `clause`, in order, with the cues' phrases.
fn detected(clause: &str) -> Vec<(&'static str, String)> {
    detect(&tokenize(&list_commas(clause)))
        .into_iter()
        .map(|(name, cue)| (name, cue.phrase.join(" ")))
        .collect()
}

/// `detector` finds a cue in each of `yes` and nothing in any of `no`.
fn detector_reads(detector: &str, yes: &[&str], no: &[&str]) {
    assert!(
        DETECTORS.iter().any(|(name, _)| *name == detector),
        "{detector} is a detector"
    );
    for clause in yes {
        let found = detected(clause);
        assert!(
            found.iter().any(|(name, _)| *name == detector),
            "{detector} misses {clause:?}: {found:?}"
        );
    }
    for clause in no {
        let found = detected(clause);
        assert!(
            found.iter().all(|(name, _)| *name != detector),
            "{detector} reads {clause:?} as a request: {found:?}"
        );
    }
}

#[test]
fn detector_rather_you_forgot() {
    detector_reads(
        "rather-you-forgot",
        &["honestly I'd rather you forgot my old landlord's name"],
        &["I'd rather you forget the plan, we'll make a new one tomorrow"],
    );
    assert_eq!(
        detected("I'd rather you forgot my old landlord's name"),
        vec![("rather-you-forgot", "my old landlord name".to_string())]
    );
}

#[test]
fn detector_deletion_verb() {
    detector_reads(
        "deletion-verb",
        &[
            "could you delete my sister's phone number",
            "would you mind erasing my gym membership details",
            "please get rid of everything about my old car from your notes",
        ],
        &[
            "I deleted the photos from my phone last night",
            "don't erase my sister's number",
            "I need to get rid of the old sofa",
        ],
    );
}

#[test]
fn detector_wish_it_gone() {
    detector_reads(
        "wish-it-gone",
        &["I'd prefer that gone", "honestly I want it erased"],
        &["the milk is gone already", "I want it by Friday"],
    );
}

#[test]
fn detector_should_not_exist() {
    detector_reads(
        "should-not-exist",
        &["that note shouldn't exist anymore"],
        &["dragons exist in my son's stories"],
    );
}

#[test]
fn detector_you_still_think() {
    detector_reads(
        "you-still-think",
        &["you might still think my dentist is Dr. Okafor"],
        &["I still think the blue one looks better"],
    );
}

#[test]
fn detector_idiom_of_the_past() {
    detector_reads(
        "idiom-of-the-past",
        &[
            "my night shifts at the bakery are all in the past",
            "the marathon training is a chapter I've closed",
            "oh and that changed recently",
        ],
        &["the past week was busy", "I changed the oil on Sunday"],
    );
}

#[test]
fn detector_not_in_your_memory() {
    detector_reads(
        "not-in-your-memory",
        &["I don't want my blood type sitting in your memory"],
        &[
            "I don't want my coffee cold",
            "I want my notes in your memory",
        ],
    );
}

#[test]
fn detector_negated_retention() {
    detector_reads(
        "negated-retention",
        &[
            "please don't keep my bank details",
            "there's no need to hang on to it",
            "I'd rather my salary weren't something you remembered",
        ],
        &["please keep my bank details handy", "I don't keep receipts"],
    );
}

#[test]
fn detector_negated_inference() {
    detector_reads(
        "negated-inference",
        &[
            "please don't work out my age from my graduation year",
            "don't infer where I live based on the bus routes",
        ],
        &[
            "I worked out the budget from the receipts",
            "I can't work out why the printer jams",
        ],
    );
    assert_eq!(
        detected("please don't work out my age from my graduation year"),
        vec![("negated-inference", "my age".to_string())]
    );
}

#[test]
fn detector_never_told_or_happened() {
    detector_reads(
        "never-told-or-happened",
        &[
            "pretend I never told you about the speeding ticket",
            "the whole engagement might as well never have happened",
        ],
        &["I never told my boss about the interview"],
    );
}

#[test]
fn detector_moved_on_from() {
    detector_reads(
        "moved-on-from",
        &["I've moved on from the pottery class"],
        &["we moved the party to Saturday"],
    );
}

#[test]
fn detector_outdated() {
    detector_reads(
        "outdated",
        &[
            "that phone number is outdated",
            "my old job title is no longer accurate",
            "the allergy thing isn't true anymore",
            "my weekend job is behind me",
        ],
        &[
            "the map in the car is accurate",
            "my laptop is behind the sofa",
        ],
    );
}

#[test]
fn every_detector_has_its_test() {
    let source = include_str!("tests.rs");
    for (name, _) in DETECTORS {
        let test = format!("fn detector_{}()", name.replace('-', "_"));
        assert!(source.contains(&test), "no test `{test}` for {name}");
    }
}
