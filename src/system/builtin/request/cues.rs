//! The cues of a forget request in a sentence's tokens: each phrasing family that asks
//! to delete, replace or stop inferring, and what it points at.

use super::*;

/// One position of a clause's tokens, as a detector sees it.
pub(super) struct At<'a> {
    tokens: &'a [String],
    v: usize,
    t: &'a str,
    prev: &'a str,
    next: &'a str,
}

impl<'a> At<'a> {
    fn new(tokens: &'a [String], v: usize) -> At<'a> {
        At {
            tokens,
            v,
            t: tokens[v].as_str(),
            prev: v.checked_sub(1).map(|j| tokens[j].as_str()).unwrap_or(""),
            next: tokens.get(v + 1).map(String::as_str).unwrap_or(""),
        }
    }

    /// The token `back` places before this one, if there is one.
    fn before(&self, back: usize) -> Option<&'a str> {
        self.v.checked_sub(back).map(|j| self.tokens[j].as_str())
    }

    /// A claim of this token, with or without a cue, looking on from the next token.
    fn claim(&self, cue: Option<Cue>) -> Option<Claim> {
        Some(Claim {
            cue,
            next: self.v + 1,
        })
    }
}

/// What a detector makes of a token it recognises: the cue it found there (none when
/// the phrasing is there but asks nothing, as in "forget it, let's move on"), and where
/// to look next. The first detector to claim a token decides it.
pub(super) struct Claim {
    cue: Option<Cue>,
    next: usize,
}

/// A detector of one phrasing family: `None` when the token is not its own.
type Detector = fn(&At<'_>) -> Option<Claim>;

/// The phrasing families of a forget request, tried in this order at each token.
pub(super) const DETECTORS: &[(&str, Detector)] = &[
    ("rather-you-forgot", rather_you_forgot),
    ("deletion-verb", deletion_verb),
    ("wish-it-gone", wish_it_gone),
    ("should-not-exist", should_not_exist),
    ("you-still-think", you_still_think),
    ("idiom-of-the-past", idiom_of_the_past),
    ("not-in-your-memory", not_in_your_memory),
    ("negated-retention", negated_retention),
    ("negated-inference", negated_inference),
    ("never-told-or-happened", never_told_or_happened),
    ("moved-on-from", moved_on_from),
    ("outdated", outdated),
];

/// The cues of a clause's tokens, each with the name of the detector that found it.
pub(super) fn detect(tokens: &[String]) -> Vec<(&'static str, Cue)> {
    let mut found = Vec::new();
    let mut v = 0;
    while v < tokens.len() {
        let at = At::new(tokens, v);
        let claim = DETECTORS
            .iter()
            .find_map(|(name, detector)| detector(&at).map(|claim| (*name, claim)));
        match claim {
            Some((name, claim)) => {
                found.extend(claim.cue.map(|cue| (name, cue)));
                v = claim.next.max(v + 1);
            }
            None => v += 1,
        }
    }
    found
}

/// The cues of a clause's tokens.
pub(super) fn find_cues(tokens: &[String]) -> Vec<Cue> {
    detect(tokens).into_iter().map(|(_, cue)| cue).collect()
}

/// A strong deletion cue naming `phrase`.
fn strong(phrase: Vec<String>, backward: bool) -> Cue {
    Cue {
        strength: Strength::Strong,
        kind: Kind::Delete,
        phrase,
        backward,
    }
}

/// A weak deletion cue naming `phrase`.
fn weak(phrase: Vec<String>, backward: bool) -> Cue {
    Cue {
        strength: Strength::Weak,
        kind: Kind::Delete,
        phrase,
        backward,
    }
}

/// "I'd rather you forgot …", "I'd prefer you forgot …".
fn rather_you_forgot(at: &At<'_>) -> Option<Claim> {
    let wish = at
        .before(2)
        .is_some_and(|w| matches!(w, "rather" | "wish" | "prefer"));
    if at.t != "forgot" || at.prev != "you" || !wish {
        return None;
    }
    at.claim(Some(strong(phrase_from(at.tokens, at.v + 1), false)))
}

/// A deletion verb said to the assistant: "please delete my …", "would you mind
/// erasing …", "get rid of …"; weak when it only points back ("… is wrong, so erase
/// it").
fn deletion_verb(at: &At<'_>) -> Option<Claim> {
    let (tokens, v, t, prev, next) = (at.tokens, at.v, at.t, at.prev, at.next);
    let strong_verb = DELETE_STRONG.contains(&t);
    let weak_verb = DELETE_WEAK.contains(&t)
        && (t != "rid" || matches!(prev, "get" | "getting"))
        && (!matches!(t, "throw" | "toss") || matches!(next, "away" | "out"));
    if !strong_verb && !weak_verb {
        return None;
    }
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
    let phrase = phrase_from(tokens, start.min(tokens.len()));
    let object_ok = if strong_verb {
        personal_object(&phrase)
    } else {
        memory_object(&phrase)
    };
    let cue = if agent_ok && !negated && object_ok {
        Some(strong(phrase, false))
    } else if agent_ok && !negated && points_back(&phrase) && strong_verb {
        // Weak alone ("forget it, let's move on").
        Some(weak(phrase, true))
    } else {
        None
    };
    at.claim(cue)
}

/// "I'd prefer that gone", "I want it erased": a wish pointing back.
fn wish_it_gone(at: &At<'_>) -> Option<Claim> {
    let wish = at
        .before(2)
        .is_some_and(|w| matches!(w, "prefer" | "want" | "like" | "rather" | "need" | "wish"));
    if !GONE.contains(&at.t) || !DEMONSTRATIVES.contains(&at.prev) || !wish {
        return None;
    }
    at.claim(Some(strong(vec![at.prev.to_string()], true)))
}

/// "… it shouldn't exist anymore": a strong wish pointing back.
fn should_not_exist(at: &At<'_>) -> Option<Claim> {
    if at.t != "exist" || !negated_before(at.tokens, at.v, 2) {
        return None;
    }
    let phrase = at.tokens[..at.v]
        .iter()
        .rev()
        .take(2)
        .rev()
        .cloned()
        .collect();
    at.claim(Some(strong(phrase, true)))
}

/// "… you might still think my doctor is Dr. Abara": weak alone.
fn you_still_think(at: &At<'_>) -> Option<Claim> {
    let (tokens, v) = (at.tokens, at.v);
    if !matches!(at.t, "think" | "believe" | "assume")
        || !tokens[v.saturating_sub(3)..v].iter().any(|x| x == "still")
        || !tokens[v.saturating_sub(4)..v].iter().any(|x| x == "you")
    {
        return None;
    }
    let phrase = phrase_from(tokens, v + 1);
    at.claim(personal_object(&phrase).then(|| weak(phrase, false)))
}

/// Idioms of the past: "that's all in the past", "that's a chapter I've closed", "that
/// changed" — weak, naming what stands before them.
fn idiom_of_the_past(at: &At<'_>) -> Option<Claim> {
    let (tokens, v, t, prev, next) = (at.tokens, at.v, at.t, at.prev, at.next);
    let start = if t == "past" && v >= 2 && prev == "the" && tokens[v - 2] == "in" {
        v - 2
    } else if t == "chapter" && tokens[v + 1..].iter().take(4).any(|x| x == "closed") {
        v
    } else if t == "changed"
        && DEMONSTRATIVES.contains(&prev)
        && matches!(
            next,
            "" | "and" | "now" | "since" | "recently" | "so" | "but"
        )
    {
        v - 1
    } else {
        return None;
    };
    at.claim(Some(backward_cue(tokens, start, IDIOM_FILLER)))
}

/// "I don't want my … sitting in your memory". Claims the token only when it finds
/// the phrase; otherwise the later detectors look at it.
fn not_in_your_memory(at: &At<'_>) -> Option<Claim> {
    let (tokens, v) = (at.tokens, at.v);
    if at.t != "want" || !negated_before(tokens, v, 3) || subject_before(tokens, v) == Some(true) {
        return None;
    }
    let place = (v + 1..tokens.len().saturating_sub(1))
        .find(|&k| tokens[k] == "your" && MEMORY_PLACES.contains(&tokens[k + 1].as_str()))?;
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
    if !personal_object(&phrase) {
        return None;
    }
    Some(Claim {
        cue: Some(strong(phrase, false)),
        next: place + 2,
    })
}

/// Negated retention, active ("don't keep my …", "no need to hang on to it") or
/// passive ("I'd rather my diet weren't something you remembered").
fn negated_retention(at: &At<'_>) -> Option<Claim> {
    let (tokens, v, t, next) = (at.tokens, at.v, at.t, at.next);
    let passive = RETAIN_PASSIVE.contains(&t);
    if !RETAIN.contains(&t) && !passive {
        return None;
    }
    if !negated_before(tokens, v, if passive { 8 } else { 5 }) {
        return at.claim(None);
    }
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
        // "… if my diet weren't something you remembered": the phrase is what stands
        // before the negated copula.
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
        let ok =
            any_in(&phrase, MEMORY_WORDS) || (subject != Some(false) && personal_object(&phrase));
        return at.claim(ok.then(|| strong(phrase, false)));
    }
    if subject == Some(false) {
        return at.claim(None);
    }
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
    let phrase = phrase_from(tokens, start.min(tokens.len()));
    let cue = if personal_object(&phrase) {
        Some(strong(phrase, false))
    } else if !phrase.is_empty() && points_back(&phrase) {
        // "… so there's no need to hang on to it": weak alone.
        Some(weak(phrase, true))
    } else {
        None
    };
    at.claim(cue)
}

/// Negated inference: "don't work out my age from …", "please don't infer …".
fn negated_inference(at: &At<'_>) -> Option<Claim> {
    let (tokens, v, t, next) = (at.tokens, at.v, at.t, at.next);
    if !INFER.contains(&t) {
        return None;
    }
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
    if !particle || !negated_before(tokens, v, 3) || subject_before(tokens, v) == Some(false) {
        return at.claim(None);
    }
    let start = if has_particle { v + 2 } else { v + 1 };
    let phrase: Vec<String> = tokens
        .iter()
        .skip(start)
        .take_while(|w| {
            !matches!(
                w.as_str(),
                "from" | "based" | "using" | "by" | "with" | "through" | "because"
            )
        })
        .cloned()
        .collect();
    let cue = (!phrase.is_empty()).then_some(Cue {
        strength: Strength::Strong,
        kind: Kind::Infer,
        phrase,
        backward: false,
    });
    at.claim(cue)
}

/// "Pretend I never told you about …" (strong); "… never happened" (weak alone,
/// strong as "might as well never have happened" or with a pretend).
fn never_told_or_happened(at: &At<'_>) -> Option<Claim> {
    let (tokens, v, next) = (at.tokens, at.v, at.next);
    if at.t != "never" {
        return None;
    }
    let n = tokens.len();
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
        while start < n && matches!(tokens[start].as_str(), "you" | "up" | "to" | "about" | "of") {
            start += 1;
        }
        return at.claim(Some(strong(phrase_from(tokens, start), false)));
    }
    if !happened {
        return at.claim(None);
    }
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
    let phrase = strip_lead(&tokens[..end]);
    at.claim(Some(if as_well || pretend {
        strong(phrase, true)
    } else {
        weak(phrase, true)
    }))
}

/// "I've moved on from …": weak.
fn moved_on_from(at: &At<'_>) -> Option<Claim> {
    let from = at.tokens.get(at.v + 2).is_some_and(|x| x == "from");
    if !matches!(at.t, "moved" | "move" | "moving") || at.next != "on" || !from {
        return None;
    }
    Some(Claim {
        cue: Some(weak(phrase_from(at.tokens, at.v + 3), false)),
        next: at.v + 3,
    })
}

/// "… is outdated", "… is no longer true", "… isn't true anymore", "old news", "… is
/// wrong", "that's behind me": weak, naming what stands before.
fn outdated(at: &At<'_>) -> Option<Claim> {
    let (tokens, v, t, prev, next) = (at.tokens, at.v, at.t, at.prev, at.next);
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
    if !outdated {
        return None;
    }
    at.claim(Some(backward_cue(tokens, v, OUTDATED_FILLER)))
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
