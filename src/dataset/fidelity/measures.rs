//! Each fidelity measure, computed over the indexed instances.

use super::*;

pub(super) fn distinct_n(indexed: &[Indexed], budget: usize, measures: &mut Vec<Measure>) {
    // Whole ordinary turns drawn at random (seeded) across every instance: the sample
    // shows repetition across conversations, not only inside the first one.
    let mut all: Vec<(&Indexed, &Turn)> = indexed
        .iter()
        .flat_map(|ix| ix.ordinary().map(move |(_, _, turn)| (ix, turn)))
        .collect();
    {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(SAMPLE_SEED);
        all.shuffle(&mut rng);
    }
    let turns = || all.iter().copied();
    let masked = |side: fn(&Turn) -> &str| {
        move |(ix, turn): (&Indexed, &Turn)| mask(text::tokenize(side(turn)), &ix.values)
    };
    let sides = [
        ("user", sample(turns(), budget, masked(|t| &t.user))),
        (
            "assistant",
            sample(turns(), budget, masked(|t| &t.assistant)),
        ),
    ];
    const NAMES: [[&str; 4]; 2] = [
        [
            "distinct_1_user",
            "distinct_2_user",
            "distinct_3_user",
            "distinct_4_user",
        ],
        [
            "distinct_1_assistant",
            "distinct_2_assistant",
            "distinct_3_assistant",
            "distinct_4_assistant",
        ],
    ];
    const TARGETS: [f64; 2] = [0.85, 0.75];
    // The headline (n = 4) first, then n = 1..3.
    for (side, ((who, segments), names)) in sides.iter().zip(NAMES).enumerate() {
        let tokens: usize = segments.iter().map(Vec::len).sum();
        let short = if tokens < budget {
            format!(" (only {tokens} available)")
        } else {
            String::new()
        };
        for n in [4, 1, 2, 3] {
            let (distinct, all) = distinct_ngrams(segments, n);
            let definition = format!(
                "distinct {n}-grams / all {n}-grams in {tokens} tokens{short} of ordinary \
                 {who} turns drawn at random across all instances (seeded), fact values \
                 masked"
            );
            let target = (n == 4).then_some(TARGETS[side]).and_then(Target::at_least);
            measures.push(Measure::share(
                names[n - 1],
                definition,
                distinct,
                all,
                target,
            ));
        }
    }
}

pub(super) fn repeated_user_sentences(indexed: &[Indexed]) -> Measure {
    let (mut repeated, mut total) = (0, 0);
    for ix in indexed {
        for session in &ix.instance.sessions {
            let mut seen = HashSet::new();
            for turn in &session.turns {
                for sentence in text::split_sentences(&turn.user) {
                    let sentence = normal(&sentence);
                    if sentence.is_empty() {
                        continue;
                    }
                    total += 1;
                    if !seen.insert(sentence) {
                        repeated += 1;
                    }
                }
            }
        }
    }
    Measure::share(
        "repeated_user_sentences",
        "user sentences that repeat (normalised) an earlier user sentence of the same \
         session / all user sentences"
            .into(),
        repeated,
        total,
        Target::at_most(0.0),
    )
}

/// A sentence with its specifics masked: fact values, numbers and names (a word in
/// capitals other than the first, or "I") read as placeholders, then normalised.
pub(super) fn stock_form(sentence: &str, values: &[Words]) -> Words {
    let mut words: Vec<String> = Vec::new();
    for (i, raw) in sentence.split_whitespace().enumerate() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let capital = word.chars().next().is_some_and(char::is_uppercase);
        if word.chars().any(|c| c.is_ascii_digit()) {
            words.push("<n>".into());
        } else if i > 0 && capital && !(word == "I" || word.starts_with("I'")) {
            words.push("<name>".into());
        } else {
            words.extend(text::tokenize(raw));
        }
    }
    mask(words, values)
}

pub(super) fn cross_instance_sentences(indexed: &[Indexed]) -> Measure {
    let threshold = ((STOCK_INSTANCE_SHARE * indexed.len() as f64).ceil() as usize).max(2);
    // Each instance's user turns as their masked sentences.
    let turns: Vec<Vec<Vec<Words>>> = indexed
        .iter()
        .map(|ix| {
            ix.instance
                .sessions
                .iter()
                .flat_map(|s| &s.turns)
                .map(|t| {
                    text::split_sentences(&t.user)
                        .iter()
                        .map(|s| stock_form(s, &ix.values))
                        .filter(|w| w.len() >= MIN_STOCK_WORDS)
                        .collect()
                })
                .collect()
        })
        .collect();
    let mut instances_of: HashMap<&[String], usize> = HashMap::new();
    for instance in &turns {
        let distinct: HashSet<&[String]> = instance.iter().flatten().map(Vec::as_slice).collect();
        for sentence in distinct {
            *instances_of.entry(sentence).or_default() += 1;
        }
    }
    let stock = |s: &Words| {
        instances_of
            .get(s.as_slice())
            .is_some_and(|&n| n >= threshold)
    };
    let all = turns.iter().map(Vec::len).sum();
    let holding = turns
        .iter()
        .flatten()
        .filter(|sentences| sentences.iter().any(stock))
        .count();
    Measure::share(
        "cross_instance_sentences",
        format!(
            "user turns holding a sentence of {MIN_STOCK_WORDS}+ words (numbers, names and \
             fact values masked) found in {threshold}+ instances ({:.0}% of them) / all \
             user turns",
            100.0 * STOCK_INSTANCE_SHARE
        ),
        holding,
        all,
        Target::at_most(0.05),
    )
}

/// The words and bigrams of `words` that hold no word of [`REQUEST_VOCABULARY`].
pub(super) fn tell_grams(words: &[String]) -> HashSet<Vec<String>> {
    let plain = |w: &String| !REQUEST_VOCABULARY.contains(&w.as_str());
    let mut out = HashSet::new();
    for n in 1..=2 {
        for gram in words.windows(n) {
            if gram.iter().all(plain) {
                out.insert(gram.to_vec());
            }
        }
    }
    out
}

/// The largest share of `exchanges` (as their grams) covered by one gram that no
/// ordinary turn (`ordinary`, the same side) holds, with that gram; a gram of one
/// exchange only is no pattern.
pub(super) fn widest_tell(
    exchanges: &[HashSet<Vec<String>>],
    ordinary: &HashSet<Vec<String>>,
) -> (usize, Option<String>) {
    let mut count: HashMap<&Vec<String>, usize> = HashMap::new();
    for grams in exchanges {
        for gram in grams.iter().filter(|g| !ordinary.contains(*g)) {
            *count.entry(gram).or_default() += 1;
        }
    }
    count
        .into_iter()
        .filter(|(_, n)| *n >= 2)
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        .map_or((0, None), |(gram, n)| (n, Some(gram.join(" "))))
}

/// How far one word or bigram alone finds the requests, and the confirmations: the
/// largest share of request exchanges whose user side holds a word or bigram found in
/// no ordinary user turn (the deletion vocabulary itself set aside), and the same for
/// the assistant's confirmations against ordinary assistant turns.
pub(super) fn surface_tells(indexed: &[Indexed]) -> [Measure; 2] {
    let sides: [(&str, &str, Side); 2] = [
        ("request_tell_coverage", "requests' user turns", |t| &t.user),
        (
            "confirmation_tell_coverage",
            "requests' assistant confirmations",
            |t| &t.assistant,
        ),
    ];
    sides.map(|(name, what, side)| {
        let mut ordinary = HashSet::new();
        for ix in indexed {
            for (_, _, turn) in ix.ordinary() {
                ordinary.extend(tell_grams(&text::tokenize(side(turn))));
            }
        }
        let exchanges: Vec<HashSet<Vec<String>>> = indexed
            .iter()
            .flat_map(|ix| &ix.instance.requests)
            .map(|r| tell_grams(&text::tokenize(side(&r.turn))))
            .collect();
        let (covered, gram) = widest_tell(&exchanges, &ordinary);
        let widest = gram.map_or(String::new(), |g| format!("; widest: \"{g}\""));
        Measure::share(
            name,
            format!(
                "{what} holding the one word or bigram (in 2+ of them, in no ordinary turn of \
                 that side, deletion vocabulary set aside) that covers the most / all{widest}"
            ),
            covered,
            exchanges.len(),
            Target::at_most(0.05),
        )
    })
}

pub(super) fn confirmations(indexed: &[Indexed]) -> [Measure; 2] {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut total = 0;
    for ix in indexed {
        for request in &ix.instance.requests {
            total += 1;
            *counts.entry(normal(&request.turn.assistant)).or_default() += 1;
        }
    }
    let top = counts.values().copied().max().unwrap_or(0);
    let mut top_share = Measure::share(
        "confirmation_top_share",
        "request exchanges whose assistant reply is the most used one / request exchanges \
         (a reply used only once meets the target at any size)"
            .into(),
        top,
        total,
        Target::at_most(0.02),
    );
    // In a small set one request is already over 2%: a reply nobody else uses is no tell.
    if top == 1 {
        top_share.met = Some(true);
    }
    [
        Measure::share(
            "confirmation_distinct",
            "distinct (normalised) assistant replies of request exchanges / request exchanges"
                .into(),
            counts.len(),
            total,
            None,
        ),
        top_share,
    ]
}

pub(super) fn request_fixed_strings(indexed: &[Indexed]) -> Measure {
    let exchanges: Vec<HashSet<String>> = indexed
        .iter()
        .flat_map(|ix| &ix.instance.requests)
        .map(|r| {
            [&r.turn.user, &r.turn.assistant]
                .into_iter()
                .flat_map(|side| text::split_sentences(side))
                .map(|s| normal(&s))
                .filter(|s| s.split(' ').count() >= MIN_TELL_WORDS)
                .collect()
        })
        .collect();
    let mut shared: HashMap<&str, usize> = HashMap::new();
    for sentences in &exchanges {
        for s in sentences {
            *shared.entry(s.as_str()).or_default() += 1;
        }
    }
    let mut tells: HashSet<&str> = shared
        .iter()
        .filter(|(_, n)| **n >= 2)
        .map(|(s, _)| *s)
        .collect();
    // A tell found in an ordinary turn is no tell. Only texts whose normal form holds a
    // tell somewhere are split into sentences to see whether one is a whole sentence.
    let candidates: Vec<String> = tells.iter().map(|s| s.to_string()).collect();
    let phrases = Phrases::new(candidates.iter().map(String::as_str));
    for ix in indexed {
        for (_, _, turn) in ix.ordinary() {
            for side in [&turn.user, &turn.assistant] {
                if tells.is_empty() || !phrases.found_in(&normal(side)) {
                    continue;
                }
                for sentence in text::split_sentences(side) {
                    tells.remove(normal(&sentence).as_str());
                }
            }
        }
    }
    let flagged = exchanges
        .iter()
        .filter(|sentences| sentences.iter().any(|s| tells.contains(s.as_str())))
        .count();
    Measure::share(
        "request_fixed_strings",
        format!(
            "request exchanges holding a sentence of {MIN_TELL_WORDS}+ words shared with another \
             request exchange and absent from every ordinary turn / request exchanges"
        ),
        flagged,
        exchanges.len(),
        Target::at_most(0.05),
    )
}

pub(super) fn exchange_chars(turn: &Turn) -> usize {
    turn.user.chars().count() + turn.assistant.chars().count()
}

/// The AUCs of exchange length separating request exchanges (in the forget version)
/// and fillers (in the control version, where they take the requests' places) from
/// ordinary exchanges.
pub(super) fn length_aucs(indexed: &[Indexed]) -> [Measure; 2] {
    let requests = || indexed.iter().flat_map(|ix| &ix.instance.requests);
    let ordinary: Vec<usize> = indexed
        .iter()
        .flat_map(|ix| ix.ordinary().map(|(_, _, t)| exchange_chars(t)))
        .collect();
    let exchanges: Vec<usize> = requests().map(|r| exchange_chars(&r.turn)).collect();
    let fillers: Vec<usize> = requests().map(|r| exchange_chars(&r.filler)).collect();
    let (low, high) = LENGTH_AUC_TARGET;
    let target = Target::between(low, high);
    [
        Measure::plain(
            "request_length_auc",
            "AUC of exchange length in characters separating request exchanges from \
             ordinary ones (0.5: indistinguishable; 0 or 1: fully separable)"
                .into(),
            auc(&exchanges, &ordinary),
            target,
        ),
        Measure::plain(
            "filler_length_auc",
            "AUC of exchange length in characters separating the control version's filler \
             exchanges from ordinary ones (0.5: indistinguishable; 0 or 1: fully separable)"
                .into(),
            auc(&fillers, &ordinary),
            target,
        ),
    ]
}

pub(super) fn requests_restating_value(indexed: &[Indexed]) -> Measure {
    let (mut restating, mut total) = (0, 0);
    for ix in indexed {
        for request in &ix.instance.requests {
            if !matches!(
                request.kind,
                RequestType::F1 | RequestType::F2 | RequestType::F6
            ) {
                continue;
            }
            total += 1;
            let user = text::tokenize(&request.turn.user);
            if request
                .targets
                .iter()
                .filter_map(|t| ix.value_words(t))
                .any(|v| contains_words(&user, &v))
            {
                restating += 1;
            }
        }
    }
    Measure::share(
        "requests_restating_value",
        "F1, F2 and F6 requests whose user text contains the value of a target fact / those \
         requests"
            .into(),
        restating,
        total,
        Target::at_least(0.30),
    )
}

pub(super) fn question_disclosure_overlap(indexed: &[Indexed]) -> Measure {
    let (mut overlapping, mut total) = (0, 0);
    for ix in indexed {
        let mut disclosures: HashMap<&str, HashSet<String>> = HashMap::new();
        for session in &ix.instance.sessions {
            for turn in session.turns.iter().filter(|t| !t.mentions.is_empty()) {
                let terms = text::distinct_terms(&turn.user);
                for fact in &turn.mentions {
                    disclosures
                        .entry(fact.as_str())
                        .or_default()
                        .extend(terms.iter().cloned());
                }
            }
        }
        for q in &ix.instance.questions {
            if q.suite != Suite::Retention {
                continue;
            }
            let Some(disclosed) = disclosures.get(q.fact.as_str()) else {
                continue;
            };
            let terms = text::distinct_terms(&q.text);
            if terms.is_empty() {
                continue;
            }
            total += 1;
            let shared = terms.iter().filter(|t| disclosed.contains(*t)).count();
            if 2 * shared >= terms.len() {
                overlapping += 1;
            }
        }
    }
    Measure::share(
        "question_disclosure_overlap",
        "retention questions with at least half their content words in the user side of \
         the turns mentioning the fact / retention questions about a mentioned fact"
            .into(),
        overlapping,
        total,
        Target::at_most(0.70),
    )
}

/// The retention question of the same request and fact, else of the same fact.
pub(super) fn retention_for<'a>(instance: &'a Instance, q: &Question) -> Option<&'a Question> {
    let retention = || {
        instance
            .questions
            .iter()
            .filter(|r| r.suite == Suite::Retention && r.fact == q.fact)
    };
    retention()
        .find(|r| r.request == q.request)
        .or_else(|| retention().next())
}

pub(super) fn relearning_differs(indexed: &[Indexed]) -> Measure {
    let (mut differing, mut total) = (0, 0);
    for ix in indexed {
        for q in &ix.instance.questions {
            if q.suite != Suite::Relearning {
                continue;
            }
            let Some(retention) = retention_for(ix.instance, q) else {
                continue;
            };
            total += 1;
            if normal(&q.text) != normal(&retention.text) {
                differing += 1;
            }
        }
    }
    Measure::share(
        "relearning_differs",
        "relearning questions whose text differs (normalised) from the retention question \
         of the same fact / relearning questions with one"
            .into(),
        differing,
        total,
        Target::at_least(0.80),
    )
}

pub(super) fn multi_hop_contains_retention(indexed: &[Indexed]) -> Measure {
    let (mut containing, mut total) = (0, 0);
    for ix in indexed {
        for q in &ix.instance.questions {
            if q.attack != Some(Attack::MultiHop) {
                continue;
            }
            let Some(retention) = retention_for(ix.instance, q) else {
                continue;
            };
            total += 1;
            if contains_words(&text::tokenize(&q.text), &text::tokenize(&retention.text)) {
                containing += 1;
            }
        }
    }
    Measure::share(
        "multi_hop_contains_retention",
        "multi-hop attack questions containing the (normalised) retention question of the \
         same fact / multi-hop attacks with one"
            .into(),
        containing,
        total,
        Target::at_most(0.0),
    )
}

pub(super) fn deletion_words(indexed: &[Indexed]) -> Measure {
    let stems: HashSet<String> = DELETION_WORDS.iter().map(|w| text::stem(w)).collect();
    // `stem` only rewrites a word's end, so a word whose stem is S starts with S less its
    // last character: texts without any such prefix need no tokenising.
    let prefixes: Vec<String> = stems.iter().map(|s| s[..s.len() - 1].to_string()).collect();
    let (mut with, mut total) = (0, 0);
    for ix in indexed {
        for (_, _, turn) in ix.ordinary() {
            total += 1;
            if may_contain(&turn.user, &prefixes)
                && text::tokenize(&turn.user)
                    .iter()
                    .any(|t| stems.contains(&text::stem(t)))
            {
                with += 1;
            }
        }
    }
    Measure::share(
        "deletion_words",
        format!(
            "ordinary user turns using a deletion word ({} and their inflections) / ordinary \
             user turns",
            DELETION_WORDS.join(", ")
        ),
        with,
        total,
        Target::between(0.0, DELETION_WORDS_TARGET),
    )
}

pub(super) fn persona_contradictions(indexed: &[Indexed]) -> Measure {
    let (mut found, mut total) = (0, 0);
    for ix in indexed {
        let instance = ix.instance;
        let turns: usize = instance.sessions.iter().map(|s| s.turns.len()).sum();
        total += 2 * (turns + instance.requests.len());
        found += crate::dataset::validate::consistency::dialogue_findings(instance).len();
    }
    Measure::share(
        "persona_contradictions",
        "dialogue texts (user or assistant side of a turn or a filler) presupposing a child \
         or a partner (\"my kids\", \"your husband\") that the profile's attributes rule out \
         (`bemula validate` names each) / all dialogue texts"
            .to_string(),
        found,
        total,
        Target::at_most(0.0),
    )
}

/// Whether a fact's predicate names something that identifies a person: a name
/// (of a relative, a friend, a pet), a doctor, a manager, a neighbour, a code, a
/// number or an address. A password manager is software, not a person.
pub(super) fn identifying(predicate: &str) -> bool {
    const WORDS: [&str; 8] = [
        "name",
        "doctor",
        "manager",
        "neighbor",
        "neighbour",
        "code",
        "number",
        "address",
    ];
    let lower = predicate.to_lowercase();
    !lower.contains("password manager")
        && lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| WORDS.contains(&w))
}

pub(super) fn shared_identifying_values(indexed: &[Indexed]) -> Measure {
    let mut profiles: HashMap<String, HashSet<&str>> = HashMap::new();
    for ix in indexed {
        let instance = ix.instance;
        for fact in &instance.profile.facts {
            if identifying(&fact.predicate) {
                profiles
                    .entry(fact.value.trim().to_lowercase())
                    .or_default()
                    .insert(instance.id.as_str());
            }
        }
    }
    let shared = profiles.values().filter(|ids| ids.len() > 2).count();
    Measure::share(
        "shared_identifying_values",
        "identifying fact values (of predicates naming a name, a doctor, a manager, a \
         neighbour, a code, a number or an address) found in more than 2 profiles / distinct \
         identifying values"
            .to_string(),
        shared,
        profiles.len(),
        Target::at_most(0.0),
    )
}

pub(super) fn assistant_restates_value(indexed: &[Indexed]) -> Measure {
    let (mut restating, mut total) = (0, 0);
    for ix in indexed {
        for (_, _, turn) in ix.ordinary().filter(|(_, _, t)| !t.mentions.is_empty()) {
            let user = text::tokenize(&turn.user);
            let stated: Vec<Words> = turn
                .mentions
                .iter()
                .filter_map(|f| ix.value_words(f))
                .filter(|v| contains_words(&user, v))
                .collect();
            if stated.is_empty() {
                continue;
            }
            total += 1;
            let assistant = text::tokenize(&turn.assistant);
            if stated.iter().any(|v| contains_words(&assistant, v)) {
                restating += 1;
            }
        }
    }
    Measure::share(
        "assistant_restates_value",
        "ordinary exchanges whose assistant reply repeats a mentioned fact value the user \
         stated / ordinary exchanges whose user side states one"
            .into(),
        restating,
        total,
        None,
    )
}
