//! The cues of a forget request in a sentence's tokens: each phrasing family that asks
//! to delete, replace or stop inferring, and what it points at.

use super::*;

pub(super) fn find_cues(tokens: &[String]) -> Vec<Cue> {
    let mut cues = Vec::new();
    let n = tokens.len();
    let mut v = 0;
    while v < n {
        let t = tokens[v].as_str();
        let prev = v.checked_sub(1).map(|j| tokens[j].as_str()).unwrap_or("");
        let next = tokens.get(v + 1).map(String::as_str).unwrap_or("");
        // "I'd rather you forgot …", "I wish you'd forget …" (the latter is handled below).
        if t == "forgot"
            && prev == "you"
            && v >= 2
            && matches!(tokens[v - 2].as_str(), "rather" | "wish" | "prefer")
        {
            cues.push(Cue {
                strength: Strength::Strong,
                kind: Kind::Delete,
                phrase: phrase_from(tokens, v + 1),
                backward: false,
            });
            v += 1;
            continue;
        }
        // Deletion verbs.
        let strong_verb = DELETE_STRONG.contains(&t);
        let weak_verb = DELETE_WEAK.contains(&t)
            && (t != "rid" || matches!(prev, "get" | "getting"))
            && (!matches!(t, "throw" | "toss") || matches!(next, "away" | "out"));
        if strong_verb || weak_verb {
            let subject = subject_before(tokens, v);
            let ing = t.ends_with("ing");
            let agent_ok = match subject {
                Some(you) => you,
                None => !ing && prev != "to" || matches!(prev, "mind" | "appreciate"),
            } || (ing && matches!(prev, "mind" | "appreciate"));
            let negated = negated_before(tokens, v, 2);
            let start = if matches!(t, "rid" | "throw" | "toss") {
                v + 2
            } else {
                v + 1
            };
            let phrase = phrase_from(tokens, start.min(n));
            let object_ok = if strong_verb {
                personal_object(&phrase)
            } else {
                memory_object(&phrase)
            };
            if agent_ok && !negated && object_ok {
                cues.push(Cue {
                    strength: Strength::Strong,
                    kind: Kind::Delete,
                    phrase,
                    backward: false,
                });
            } else if agent_ok && !negated && points_back(&phrase) && strong_verb {
                // "… is wrong, so erase it": weak alone ("forget it, let's move on").
                cues.push(Cue {
                    strength: Strength::Weak,
                    kind: Kind::Delete,
                    phrase,
                    backward: true,
                });
            }
            v += 1;
            continue;
        }
        // "I'd prefer that gone", "I want it erased": a wish pointing back.
        if GONE.contains(&t)
            && DEMONSTRATIVES.contains(&prev)
            && v >= 2
            && matches!(
                tokens[v - 2].as_str(),
                "prefer" | "want" | "like" | "rather" | "need" | "wish"
            )
        {
            cues.push(Cue {
                strength: Strength::Strong,
                kind: Kind::Delete,
                phrase: vec![prev.to_string()],
                backward: true,
            });
            v += 1;
            continue;
        }
        // "… it shouldn't exist anymore": a strong wish pointing back.
        if t == "exist" && negated_before(tokens, v, 2) {
            cues.push(Cue {
                strength: Strength::Strong,
                kind: Kind::Delete,
                phrase: tokens[..v].iter().rev().take(2).rev().cloned().collect(),
                backward: true,
            });
            v += 1;
            continue;
        }
        // "… you might still think my doctor is Dr. Abara": weak alone.
        if matches!(t, "think" | "believe" | "assume")
            && tokens[v.saturating_sub(3)..v].iter().any(|x| x == "still")
            && tokens[v.saturating_sub(4)..v].iter().any(|x| x == "you")
        {
            let phrase = phrase_from(tokens, v + 1);
            if personal_object(&phrase) {
                cues.push(Cue {
                    strength: Strength::Weak,
                    kind: Kind::Delete,
                    phrase,
                    backward: false,
                });
            }
            v += 1;
            continue;
        }
        // Idioms of the past: "that's all in the past", "that's a chapter I've closed",
        // "that changed" — weak, naming what stands before them.
        let idiom_start = if t == "past" && v >= 2 && prev == "the" && tokens[v - 2] == "in" {
            Some(v - 2)
        } else if t == "chapter" && tokens[v + 1..].iter().take(4).any(|x| x == "closed") {
            Some(v)
        } else if t == "changed"
            && DEMONSTRATIVES.contains(&prev)
            && matches!(
                next,
                "" | "and" | "now" | "since" | "recently" | "so" | "but"
            )
        {
            Some(v - 1)
        } else {
            None
        };
        if let Some(start) = idiom_start {
            cues.push(backward_cue(tokens, start, IDIOM_FILLER));
            v += 1;
            continue;
        }
        // "I don't want my … sitting in your memory".
        if t == "want" && negated_before(tokens, v, 3) && subject_before(tokens, v) != Some(true) {
            let place = (v + 1..n.saturating_sub(1))
                .find(|&k| tokens[k] == "your" && MEMORY_PLACES.contains(&tokens[k + 1].as_str()));
            if let Some(place) = place {
                let mut end = place;
                while end > v + 1
                    && matches!(
                        tokens[end - 1].as_str(),
                        "in" | "inside"
                            | "within"
                            | "on"
                            | "to"
                            | "be"
                            | "sitting"
                            | "kept"
                            | "stored"
                            | "saved"
                            | "living"
                            | "staying"
                            | "remaining"
                            | "left"
                    )
                {
                    end -= 1;
                }
                let phrase = tokens[v + 1..end].to_vec();
                if personal_object(&phrase) {
                    cues.push(Cue {
                        strength: Strength::Strong,
                        kind: Kind::Delete,
                        phrase,
                        backward: false,
                    });
                    v = place + 2;
                    continue;
                }
            }
        }
        // Negated retention, active ("don't keep my …") or passive ("… retained").
        if RETAIN.contains(&t) || RETAIN_PASSIVE.contains(&t) {
            let passive = RETAIN_PASSIVE.contains(&t);
            if negated_before(tokens, v, if passive { 8 } else { 5 }) {
                let subject = subject_before(tokens, v);
                if passive {
                    // The phrase is what stands between the wish and the participle.
                    let from = (0..v)
                        .rev()
                        .find(|&j| {
                            matches!(tokens[j].as_str(), "want" | "need" | "like" | "wish")
                                || NEGATIONS.contains(&tokens[j].as_str())
                        })
                        .map_or(0, |j| j + 1);
                    let mut phrase: Vec<String> = tokens[from..v].to_vec();
                    // "… if my diet weren't something you remembered": the phrase is
                    // what stands before the negated copula.
                    if from > 0
                        && NEGATED_COPULAS.contains(&tokens[from - 1].as_str())
                        && !personal_object(&phrase)
                    {
                        let copula = from - 1;
                        let start = tokens[..copula]
                            .iter()
                            .position(|w| matches!(w.as_str(), "if" | "that"))
                            .map_or(0, |i| i + 1);
                        phrase = strip_lead(&tokens[start..copula]);
                    }
                    if any_in(&phrase, MEMORY_WORDS)
                        || (subject != Some(false) && personal_object(&phrase))
                    {
                        cues.push(Cue {
                            strength: Strength::Strong,
                            kind: Kind::Delete,
                            phrase,
                            backward: false,
                        });
                    }
                } else if subject != Some(false) {
                    let mut start = v + 1;
                    if next == "track" && tokens.get(v + 2).is_some_and(|x| x == "of") {
                        start = v + 3;
                    }
                    // "hang on to …", "hold onto …".
                    while tokens
                        .get(start)
                        .is_some_and(|x| matches!(x.as_str(), "on" | "to" | "onto"))
                    {
                        start += 1;
                    }
                    let phrase = phrase_from(tokens, start.min(n));
                    if personal_object(&phrase) {
                        cues.push(Cue {
                            strength: Strength::Strong,
                            kind: Kind::Delete,
                            phrase,
                            backward: false,
                        });
                    } else if !phrase.is_empty() && points_back(&phrase) {
                        // "… so there's no need to hang on to it": weak alone.
                        cues.push(Cue {
                            strength: Strength::Weak,
                            kind: Kind::Delete,
                            phrase,
                            backward: true,
                        });
                    }
                }
            }
            v += 1;
            continue;
        }
        // Negated inference: "don't work out my age from …".
        if INFER.contains(&t) {
            let particle = match t {
                "figure" | "figuring" | "work" | "working" => next == "out",
                "piece" | "piecing" | "put" | "putting" => next == "together",
                _ => true,
            };
            let has_particle = !matches!(
                t,
                "infer"
                    | "inferring"
                    | "deduce"
                    | "deducing"
                    | "conclude"
                    | "concluding"
                    | "assume"
                    | "assuming"
                    | "guess"
                    | "guessing"
                    | "calculate"
                    | "calculating"
                    | "derive"
                    | "deriving"
                    | "speculate"
                    | "speculating"
                    | "estimate"
                    | "estimating"
                    | "compute"
                    | "computing"
                    | "extrapolate"
            );
            if particle && negated_before(tokens, v, 3) && subject_before(tokens, v) != Some(false)
            {
                let start = if has_particle { v + 2 } else { v + 1 };
                let mut phrase = Vec::new();
                for w in tokens.iter().skip(start) {
                    if matches!(
                        w.as_str(),
                        "from" | "based" | "using" | "by" | "with" | "through" | "because"
                    ) {
                        break;
                    }
                    phrase.push(w.clone());
                }
                if !phrase.is_empty() {
                    cues.push(Cue {
                        strength: Strength::Strong,
                        kind: Kind::Infer,
                        phrase,
                        backward: false,
                    });
                }
            }
            v += 1;
            continue;
        }
        // "… never happened", "pretend I never told you about …".
        if t == "never" {
            let told = matches!(
                next,
                "told" | "mentioned" | "said" | "shared" | "brought" | "talked" | "existed"
            );
            let happened = matches!(next, "happened" | "happen")
                || (next == "have" && tokens.get(v + 2).is_some_and(|x| x == "happened"));
            let window = &tokens[v.saturating_sub(5)..v];
            let pretend = any_in(
                window,
                &["pretend", "act", "if", "though", "treat", "consider"],
            );
            let as_well = window.windows(2).any(|w| w[0] == "as" && w[1] == "well");
            if told && pretend {
                let mut start = v + 2;
                while start < n
                    && matches!(tokens[start].as_str(), "you" | "up" | "to" | "about" | "of")
                {
                    start += 1;
                }
                cues.push(Cue {
                    strength: Strength::Strong,
                    kind: Kind::Delete,
                    phrase: phrase_from(tokens, start),
                    backward: false,
                });
            } else if happened {
                let modal = (v.saturating_sub(5)..v)
                    .rev()
                    .find(|&j| matches!(tokens[j].as_str(), "might" | "may" | "could"));
                let end = modal.unwrap_or_else(|| {
                    if v > 0 && matches!(tokens[v - 1].as_str(), "had" | "has" | "have") {
                        v - 1
                    } else {
                        v
                    }
                });
                cues.push(Cue {
                    strength: if as_well || pretend {
                        Strength::Strong
                    } else {
                        Strength::Weak
                    },
                    kind: Kind::Delete,
                    phrase: strip_lead(&tokens[..end]),
                    backward: true,
                });
            }
            v += 1;
            continue;
        }
        // "I've moved on from …".
        if matches!(t, "moved" | "move" | "moving")
            && next == "on"
            && tokens.get(v + 2).is_some_and(|x| x == "from")
        {
            cues.push(Cue {
                strength: Strength::Weak,
                kind: Kind::Delete,
                phrase: phrase_from(tokens, v + 3),
                backward: false,
            });
            v += 3;
            continue;
        }
        // "… is outdated", "… is no longer true", "… isn't true anymore", "old news".
        let outdated = matches!(t, "outdated" | "obsolete")
            || (t == "longer"
                && prev == "no"
                && matches!(
                    next,
                    "true"
                        | "relevant"
                        | "accurate"
                        | "applies"
                        | "applicable"
                        | "valid"
                        | "correct"
                        | "current"
                        | "the"
                ))
            || (matches!(t, "true" | "relevant" | "accurate" | "valid" | "correct")
                && matches!(prev, "not" | "isn't" | "aren't" | "wasn't")
                && tokens[v..].iter().any(|x| x == "anymore"))
            || (t == "news" && prev == "old")
            || (matches!(t, "wrong" | "incorrect" | "inaccurate" | "false")
                && matches!(prev, "is" | "was" | "are" | "were" | "that's" | "it's"))
            || (t == "behind" && next == "me");
        if outdated {
            cues.push(backward_cue(tokens, v, OUTDATED_FILLER));
            v += 1;
            continue;
        }
        v += 1;
    }
    cues
}

/// A weak deletion cue naming what stands before `end`, less the filler words just
/// before it ("… is all in the past", "… is outdated now").
pub(super) fn backward_cue(tokens: &[String], mut end: usize, filler: &[&str]) -> Cue {
    while end > 0 && filler.contains(&tokens[end - 1].as_str()) {
        end -= 1;
    }
    Cue {
        strength: Strength::Weak,
        kind: Kind::Delete,
        phrase: strip_lead(&tokens[..end]),
        backward: true,
    }
}

/// Words skipped between a backward cue and the phrase it names.
pub(super) const IDIOM_FILLER: &[&str] = &[
    "is", "are", "was", "were", "all", "a", "that's", "it's", "has", "have", "been", "just", "now",
];

/// Words skipped between a backward cue and the phrase it names.
pub(super) const OUTDATED_FILLER: &[&str] = &[
    "is",
    "are",
    "was",
    "were",
    "now",
    "no",
    "not",
    "isn't",
    "aren't",
    "wasn't",
    "old",
    "completely",
    "totally",
    "all",
    "just",
    "kind",
    "of",
    "pretty",
    "out",
    "already",
    "firmly",
    "put",
    "i've",
    "have",
];
