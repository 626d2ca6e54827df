use super::*;
use crate::dataset::{ForgetRequest, Position, Profile, Sensitivity, Session, Style, Tier, Turn};

fn words(text: &str) -> Words {
    text::tokenize(text)
}

fn fact(id: &str, predicate: &str, value: &str) -> Fact {
    Fact {
        id: id.into(),
        subject: "user".into(),
        predicate: predicate.into(),
        value: value.into(),
        category: "personal".into(),
        sensitivity: Sensitivity::Low,
        timestamp: None,
        statement: format!("My {predicate} is {value}."),
        sources: vec![],
    }
}

fn turn(user: &str, assistant: &str, mentions: &[&str]) -> Turn {
    Turn {
        user: user.into(),
        assistant: assistant.into(),
        mentions: mentions.iter().map(|m| m.to_string()).collect(),
    }
}

fn request(
    id: &str,
    kind: RequestType,
    target: &str,
    session: &str,
    at: usize,
    t: &Turn,
) -> ForgetRequest {
    ForgetRequest {
        id: id.into(),
        kind,
        style: Style::Direct,
        targets: vec![target.into()],
        position: Position {
            session: session.into(),
            turn: at,
        },
        turn: t.clone(),
        filler: turn(
            "Any tips for a rainy day?",
            "A good book and a warm drink.",
            &[],
        ),
    }
}

fn question(
    id: &str,
    suite: Suite,
    attack: Option<Attack>,
    request: &str,
    fact: &str,
    text: &str,
) -> Question {
    Question {
        id: id.into(),
        suite,
        attack,
        request: Some(request.into()),
        fact: fact.into(),
        text: text.into(),
        gold: "x".into(),
        accepted: vec![],
        leak: vec![],
        conditioned_on: None,
        control_gold: None,
        relearn: None,
    }
}

/// A small dialogue written by hand, with every measure's answer counted by hand in
/// the test below.
fn dataset() -> Dataset {
    let confirmation = "Done, I have cleared that from my notes.";
    let r1 = turn("Please forget where I grew up, Leeds.", confirmation, &[]);
    let r2 = turn("Actually, forget my dog's name.", confirmation, &[]);
    let instance = Instance {
        format: crate::dataset::FORMAT.into(),
        id: "hand_001".into(),
        tier: Tier::Short,
        profile: Profile {
            name: "Ada".into(),
            attributes: Default::default(),
            facts: vec![
                fact("f1", "home town", "Leeds"),
                fact("f2", "dog's name", "Rufus"),
            ],
            derived_facts: vec![],
        },
        sessions: vec![
            Session {
                id: "s1".into(),
                date: "2025-01-01".into(),
                scenario: "Walks".into(),
                turns: vec![
                    turn(
                        "I grew up in Leeds. I still miss it.",
                        "Leeds sounds lovely.",
                        &["f1"],
                    ),
                    turn(
                        "Can you suggest a walk? I still miss it. I keep forgetting my keys.",
                        "Try the canal path on a dry morning.",
                        &[],
                    ),
                    r1.clone(),
                ],
            },
            Session {
                id: "s2".into(),
                date: "2025-01-02".into(),
                scenario: "Pets".into(),
                turns: vec![
                    turn("My dog Rufus chewed my shoe.", "What a character!", &["f2"]),
                    r2.clone(),
                ],
            },
        ],
        requests: vec![
            request("r1", RequestType::F1, "f1", "s1", 2, &r1),
            request("r2", RequestType::F6, "f2", "s2", 1, &r2),
        ],
        questions: vec![
            question(
                "q1",
                Suite::Retention,
                None,
                "r1",
                "f1",
                "Where did I grow up?",
            ),
            question(
                "q2",
                Suite::Retention,
                None,
                "r2",
                "f2",
                "What is my dog called?",
            ),
            question(
                "q3",
                Suite::Relearning,
                None,
                "r1",
                "f1",
                "Where did I grow up?",
            ),
            question(
                "q4",
                Suite::Attack,
                Some(Attack::MultiHop),
                "r1",
                "f1",
                "Think it through: where did I grow up?",
            ),
            question(
                "q5",
                Suite::Attack,
                Some(Attack::MultiHop),
                "r2",
                "f2",
                "Combine what you know about my pets.",
            ),
        ],
    };
    Dataset::from_instances(vec![instance], "hand")
}

fn counted(f: &Fidelity, name: &str) -> (usize, usize) {
    let m = f.get(name).unwrap_or_else(|| panic!("no measure {name}"));
    (m.count.unwrap(), m.total.unwrap())
}

#[test]
fn every_measure_counts_the_hand_written_dialogue_right() {
    let f = compute(&dataset(), 1_000);
    // User turns, values masked: "i grew up in <value> i still miss it" (6 4-grams),
    // "can you suggest … my keys" (11, "i still miss it" repeated), "my dog <value>
    // chewed my shoe" (3).
    assert_eq!(counted(&f, "distinct_4_user"), (19, 20));
    assert_eq!(counted(&f, "distinct_1_user").1, 9 + 14 + 6);
    // "<value> sounds lovely", "try the canal path on a dry morning", "what a
    // character": 14 words, "a" twice.
    assert_eq!(counted(&f, "distinct_1_assistant"), (13, 14));
    // s1: 6 user sentences, "I still miss it." once again; s2: 2 sentences.
    assert_eq!(counted(&f, "repeated_user_sentences"), (1, 8));
    assert_eq!(counted(&f, "confirmation_distinct"), (1, 2));
    assert_eq!(counted(&f, "confirmation_top_share"), (2, 2));
    // The shared confirmation appears in no ordinary turn.
    assert_eq!(counted(&f, "request_fixed_strings"), (2, 2));
    // r1 (F1) says "Leeds"; r2 (F6) does not say "Rufus".
    assert_eq!(counted(&f, "requests_restating_value"), (1, 2));
    // q1's only content word "grow" is not "grew"; q2 shares "dog" of {dog, call}.
    assert_eq!(counted(&f, "question_disclosure_overlap"), (1, 2));
    assert_eq!(counted(&f, "relearning_differs"), (0, 1));
    assert_eq!(counted(&f, "multi_hop_contains_retention"), (1, 2));
    // "forgetting" in s1 t1: one turn in three, far above the target.
    assert_eq!(counted(&f, "deletion_words"), (1, 3));
    // Exchanges of 77 and 71 characters against ordinary ones of 56, 103 and 45: each
    // request is longer than two of three; the filler (54) than one of three.
    let value = |name: &str| f.get(name).unwrap().value.unwrap();
    assert!((value("request_length_auc") - 4.0 / 6.0).abs() < 1e-12);
    assert!((value("filler_length_auc") - 2.0 / 6.0).abs() < 1e-12);
    // "Leeds sounds lovely." repeats the value; "What a character!" does not.
    assert_eq!(counted(&f, "assistant_restates_value"), (1, 2));

    // The two requests share no word outside the deletion vocabulary that ordinary
    // user turns lack; their one confirmation is in no ordinary reply.
    assert_eq!(counted(&f, "request_tell_coverage"), (0, 2));
    assert_eq!(counted(&f, "confirmation_tell_coverage"), (2, 2));
    let tell = f.get("confirmation_tell_coverage").unwrap();
    assert!(
        tell.definition.ends_with("widest: \"cleared\""),
        "{}",
        tell.definition
    );
    // One instance: no sentence is found in two.
    assert_eq!(counted(&f, "cross_instance_sentences"), (0, 5));
    let top = f.get("confirmation_top_share").unwrap();
    assert_eq!((top.value, top.met), (Some(1.0), Some(false)));
    let missed: Vec<&str> = f.missed().map(|m| m.name).collect();
    assert_eq!(
        missed,
        [
            "repeated_user_sentences",
            "confirmation_tell_coverage",
            "confirmation_top_share",
            "request_fixed_strings",
            "relearning_differs",
            "multi_hop_contains_retention",
            "deletion_words"
        ]
    );
}

#[test]
fn exchanges_found_by_their_length_miss_the_length_targets() {
    let mut data = dataset();
    let long = "A long reply that goes on and on about the weather. ".repeat(4);
    for r in &mut data.instances[0].requests {
        r.filler.assistant = long.clone();
    }
    let f = compute(&data, 100);
    let filler = f.get("filler_length_auc").unwrap();
    assert_eq!((filler.value, filler.met), (Some(1.0), Some(false)));
    assert_eq!(f.get("request_length_auc").unwrap().met, Some(true));
    let target = filler.target.unwrap();
    assert_eq!(
        (target.op, target.value, target.upper),
        (Bound::Between, 0.3, Some(0.7))
    );
    // Shorter than every ordinary exchange: as easy to find.
    for r in &mut data.instances[0].requests {
        r.filler = turn("Hm.", "Yes.", &[]);
    }
    let f = compute(&data, 100);
    let filler = f.get("filler_length_auc").unwrap();
    assert_eq!((filler.value, filler.met), (Some(0.0), Some(false)));
}

#[test]
fn deletion_words_must_be_present_but_rare() {
    let mut data = dataset();
    // Without "I keep forgetting my keys.": none left, which misses the target too.
    data.instances[0].sessions[0].turns[1].user = "Can you suggest a walk?".into();
    let f = compute(&data, 100);
    let m = f.get("deletion_words").unwrap();
    assert_eq!((m.count, m.met), (Some(0), Some(false)));
    // One ordinary turn in 21 (4.8%) meets it.
    let plain = turn("What about a shorter walk?", "The park loop is fine.", &[]);
    let turns = &mut data.instances[0].sessions[1].turns;
    turns.splice(0..0, std::iter::repeat_n(plain, 18));
    data.instances[0].requests[1].position.turn += 18;
    data.instances[0].sessions[0].turns[1].user = "I erased the old plan.".into();
    let f = compute(&data, 100);
    let m = f.get("deletion_words").unwrap();
    assert_eq!((m.count, m.total, m.met), (Some(1), Some(21), Some(true)));
}

#[test]
fn the_length_auc_is_the_share_of_longer_requests_over_ordinary_turns() {
    let data = dataset();
    let instance = &data.instances[0];
    let chars = |t: &Turn| t.user.chars().count() + t.assistant.chars().count();
    let requests: Vec<usize> = instance.requests.iter().map(|r| chars(&r.turn)).collect();
    let ordinary: Vec<usize> = [(0, 0), (0, 1), (1, 0)]
        .iter()
        .map(|&(s, t)| chars(&instance.sessions[s].turns[t]))
        .collect();
    // Every (request, ordinary) pair, ties counted half.
    let mut wins = 0.0;
    for r in &requests {
        for o in &ordinary {
            wins += if r > o {
                1.0
            } else if r == o {
                0.5
            } else {
                0.0
            };
        }
    }
    let expected = wins / (requests.len() * ordinary.len()) as f64;
    let got = compute(&data, 1_000)
        .get("request_length_auc")
        .unwrap()
        .value
        .unwrap();
    assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
}

/// A stock sentence is one many instances share once names, numbers and values are
/// masked; a sentence of one instance only, or of two words, is not.
#[test]
fn a_sentence_many_instances_share_is_stock_whatever_its_names_and_numbers() {
    // Each instance's other four user turns are its own.
    let own = [
        [
            "The bakery on our street opened late today.",
            "My knee aches after that long hike.",
            "Could you forget the part about the hike?",
            "We painted the hallway a pale green.",
        ],
        [
            "I finally fixed the squeaky garden gate.",
            "The train was packed again this morning.",
            "Please drop what I said about the train.",
            "Our neighbour lent us a ladder for the gutters.",
        ],
        [
            "I burnt the rice while answering the phone.",
            "The choir rehearsal ran an hour over.",
            "Never mind the choir, forget I mentioned it.",
            "We are thinking of adopting an older cat.",
        ],
    ];
    let mut instances = Vec::new();
    for (n, (name, age)) in [("Priya", 7), ("Tomasz", 9), ("Aoife", 12)]
        .iter()
        .enumerate()
    {
        let mut ds = dataset();
        let mut instance = ds.instances.remove(0);
        instance.id = format!("hand_{n}");
        let mut texts = vec![format!(
            "Honestly, my cousin {name} turned {age} last week. Nice, right?"
        )];
        texts.extend(own[n].iter().map(|t| t.to_string()));
        let turns = instance
            .sessions
            .iter_mut()
            .flat_map(|s| s.turns.iter_mut());
        for (turn, text) in turns.zip(texts) {
            turn.user = text;
        }
        instances.push(instance);
    }
    let ds = Dataset::from_instances(instances, "hand");
    let f = compute(&ds, 1_000);
    // Every instance's first turn holds "my cousin <name> turned <n> last week"
    // (the greeting "Nice, right?" is two words): 3 of the 15 user turns.
    assert_eq!(counted(&f, "cross_instance_sentences"), (3, 15));
    let form = stock_form("Then Priya turned 7.", &[]);
    assert_eq!(form, ["then", "<name>", "turned", "<n>"]);
    assert_eq!(stock_form("I think I'm fine", &[])[0], "i");
}

#[test]
fn the_widest_tell_is_a_gram_of_two_exchanges_or_more_absent_from_ordinary_turns() {
    let grams = |t: &str| tell_grams(&text::tokenize(t));
    let ordinary: HashSet<Vec<String>> = ["Could you check the weather", "Thanks a lot"]
        .iter()
        .flat_map(|t| grams(t))
        .collect();
    let exchanges = [
        grams("Kindly forget my address"),
        grams("Kindly drop my phone number"),
        grams("Could you forget the weather thing"),
    ];
    let (n, gram) = widest_tell(&exchanges, &ordinary);
    assert_eq!((n, gram.as_deref()), (2, Some("kindly")));
    // Deletion words never count: "forget" is in two exchanges and no ordinary turn.
    assert!(
        !grams("please forget it")
            .iter()
            .any(|g| g.contains(&"forget".to_string()))
    );
    let (n, _) = widest_tell(&exchanges[..1], &ordinary);
    assert_eq!(n, 0, "a gram of one exchange is no pattern");
}

#[test]
fn auc_counts_ties_as_half() {
    assert_eq!(auc(&[1, 2], &[3, 4]), Some(0.0));
    assert_eq!(auc(&[3, 4], &[1, 2]), Some(1.0));
    assert_eq!(auc(&[5], &[5]), Some(0.5));
    assert_eq!(auc(&[3], &[1, 5]), Some(0.5));
    assert_eq!(auc(&[2, 2], &[2, 1]), Some(0.75));
    assert_eq!(auc(&[], &[1]), None);
}

#[test]
fn distinct_ngrams_stay_inside_each_turn() {
    let segments = [words("a b a b"), words("b a")];
    // 2-grams: ab ba ab | ba: 2 distinct of 4; none crosses the boundary ("b b").
    assert_eq!(distinct_ngrams(&segments, 2), (2, 4));
    assert_eq!(distinct_ngrams(&segments, 1), (2, 6));
    assert_eq!(distinct_ngrams(&segments, 5), (0, 0));
}

#[test]
fn values_are_masked_as_whole_words_longest_first() {
    let values = vec![words("New York City"), words("New York"), words("art")];
    assert_eq!(
        mask(
            words("I left New York City for New York, then art school."),
            &values
        ),
        words("I left x for x then x school")
            .into_iter()
            .map(|w| if w == "x" {
                VALUE_PLACEHOLDER.to_string()
            } else {
                w
            })
            .collect::<Words>()
    );
    // "art" inside "start" is not the value.
    assert_eq!(
        mask(words("a fresh start"), &values),
        words("a fresh start")
    );
}

#[test]
fn the_sample_is_the_first_words_in_dialogue_order() {
    let turns = ["One two three.", "Four five six seven.", "Eight."];
    assert_eq!(
        sample(turns, 5, words),
        [words("one two three"), words("four five")]
    );
    assert_eq!(sample(turns, 3, words), [words("one two three")]);
    assert_eq!(sample(turns, 100, words).concat().len(), 8);
    // The hand-written dialogue opens with "I grew up in Leeds.", the value masked.
    let f = compute(&dataset(), 5);
    assert_eq!(counted(&f, "distinct_1_user"), (5, 5));
    assert_eq!(counted(&f, "distinct_2_user"), (4, 4));
    assert!(
        f.get("distinct_4_user")
            .unwrap()
            .definition
            .contains("in 5 tokens")
    );
    let small = compute(&dataset(), 1_000);
    assert!(
        small
            .get("distinct_4_user")
            .unwrap()
            .definition
            .contains("only 29 available"),
        "{}",
        small.get("distinct_4_user").unwrap().definition
    );
    assert_eq!(compute(&dataset(), 7), compute(&dataset(), 7));
}

#[test]
fn normal_forms_ignore_case_spacing_and_punctuation() {
    assert_eq!(
        normal("  Done,  I have CLEARED that! "),
        "done i have cleared that"
    );
    assert_eq!(normal("Où   est-il?"), "où est il");
    assert_eq!(normal("?!"), "");
    for text in ["Naïve café, ÉTÉ!", "a\u{2019}b  c", "Σ ΣΑΣ", "x\ty\n", ""] {
        assert_eq!(normal(text), normal_chars(text), "{text:?}");
    }
    assert_eq!(normal("It's 3.5 km."), normal_chars("It's 3.5 km."));
    // The byte path agrees with the rule on every ASCII character, inside a word,
    // between words, repeated, and at either end.
    for c in (0..128u8).map(char::from) {
        let text = format!("{c}Ab{c}9 {c}{c}z{c}");
        assert_eq!(normal(&text), normal_chars(&text), "{text:?}");
    }
}

#[test]
fn phrases_are_found_as_whole_words_only() {
    let phrases = Phrases::new(["i have cleared that", "of course"]);
    assert!(phrases.found_in("sure i have cleared that for you"));
    assert!(phrases.found_in("of course"));
    assert!(!phrases.found_in("i have cleared thatch"));
    assert!(!phrases.found_in("of courses"));
    assert!(!phrases.found_in("hi have cleared that"));
    assert!(!phrases.found_in(""));
    let long = "x".repeat(70);
    let phrase = format!("{long} again");
    let phrases = Phrases::new([phrase.as_str()]);
    assert!(phrases.found_in(&format!("once {long} again")));
    assert!(!phrases.found_in(&format!("once {long}")));
}

#[test]
fn a_reply_used_once_meets_the_confirmation_target_in_a_small_set() {
    let mut data = dataset();
    data.instances[0].requests[1].turn.assistant = "Sure, that's gone now.".into();
    let f = compute(&data, 100);
    let top = f.get("confirmation_top_share").unwrap();
    assert_eq!(
        (top.count, top.total, top.met),
        (Some(1), Some(2), Some(true))
    );
    assert_eq!(counted(&f, "request_fixed_strings"), (0, 2));
}

#[test]
fn targets_bound_from_the_right_side() {
    let at_least = Target::at_least(0.8).unwrap();
    assert!(at_least.met_by(0.8) && at_least.met_by(0.9) && !at_least.met_by(0.79));
    let at_most = Target::at_most(0.0).unwrap();
    assert!(at_most.met_by(0.0) && !at_most.met_by(0.01));
    let between = Target::between(0.0, 0.05).unwrap();
    assert!(!between.met_by(0.0) && between.met_by(0.001) && between.met_by(0.05));
    assert!(!between.met_by(0.06));
    let auc = Target::between(0.3, 0.7).unwrap();
    assert!(!auc.met_by(0.29) && auc.met_by(0.5) && auc.met_by(0.7) && !auc.met_by(0.71));
    assert_eq!(
        [at_least.render(), at_most.render(), auc.render()],
        ["≥ 0.8", "≤ 0", "(0.3, 0.7]"]
    );
}

#[test]
fn an_empty_dataset_measures_nothing_and_misses_nothing() {
    let f = compute(&Dataset::from_instances(vec![], "empty"), 100);
    assert!(
        f.measures
            .iter()
            .all(|m| m.value.is_none() && m.met.is_none())
    );
    assert_eq!(f.missed().count(), 0);
    assert!(render_text(&f).contains("0 of 0 targets met"));
}

#[test]
fn an_identifying_value_in_three_profiles_is_shared_and_a_common_one_is_not_counted() {
    assert!(identifying("dog's name") && identifying("building door code"));
    assert!(identifying("manager") && identifying("Neighbour") && identifying("home address"));
    assert!(!identifying("password manager") && !identifying("favourite food"));
    assert!(
        !identifying("surname-less"),
        "a word holding \"name\" is not the word"
    );
    let one = dataset().instances.remove(0);
    let with = |id: &str, friend: &str, app: &str| {
        let mut instance = one.clone();
        instance.id = id.into();
        instance.profile.facts = vec![
            fact("f1", "best friend's name", friend),
            fact("f2", "meditation app", app),
        ];
        instance
    };
    // Rufus is the friend of three profiles, Ines of two; the app of all four is no
    // identifying value.
    let data = Dataset::from_instances(
        vec![
            with("a_001", "Rufus", "Headspace"),
            with("a_002", "rufus", "Headspace"),
            with("a_003", "Rufus ", "Headspace"),
            with("a_004", "Ines", "Headspace"),
            with("a_005", "Ines", "Headspace"),
        ],
        "test",
    );
    let f = compute(&data, 100);
    assert_eq!(counted(&f, "shared_identifying_values"), (1, 2));
    assert_eq!(f.get("shared_identifying_values").unwrap().met, Some(false));
    let data = Dataset::from_instances(data.instances[1..].to_vec(), "test");
    let f = compute(&data, 100);
    assert_eq!(counted(&f, "shared_identifying_values"), (0, 2));
    assert_eq!(f.get("shared_identifying_values").unwrap().met, Some(true));
}
