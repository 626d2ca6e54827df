//! Generator v2's profile stage: v1's persona and atomic facts, made consistent
//! with the persona, and derived facts from eleven rule families
//! (`data/generator/v2/derived.json`). Besides v1's arithmetic (years since a
//! date, a weekly product, an age at an event) a derived fact may be a gap between
//! two dated facts in years or months, a span of clock time, a yearly total, a share
//! of an income, the month a date turns a round number of years, a kinship term
//! composed from two relations, or a count of events in one year.
//!
//! Each value follows from its sources alone, without outside knowledge; a rule
//! whose sources leave the value unclear (an age in the birthday's month, a share
//! of a salary written without a number) yields no fact, and neither does one whose
//! value occurs in the generators' own texts, where a dialogue could state it.

use super::persona;
use crate::generate::data::{DerivedTemplate, Rule, Unit};
use crate::generate::profile::{DerivedFact, GenProfile, clashes, derived_value, overlap};
use crate::generate::rng::Rng;
use crate::generate::text::{Date, Month, word_number};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;
use std::sync::{Mutex, PoisonError};

static TEMPLATES: LazyLock<Vec<DerivedTemplate>> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../../../data/generator/v2/derived.json"))
        .unwrap_or_else(|e| panic!("embedded data/generator/v2/derived.json is malformed: {e}"))
});

/// The derived-fact rules of generator v2.
pub(crate) fn templates() -> &'static [DerivedTemplate] {
    &TEMPLATES
}

/// Synthesises a v2 profile: v1's persona and atomic facts, values the persona
/// contradicts drawn again, then at least `min_derived` derived facts.
pub(crate) fn synthesize(rng: &mut Rng, start: Date, min_derived: usize) -> GenProfile {
    let mut profile = GenProfile::atomic(rng, start);
    persona::make_consistent(&mut profile, rng);
    derive(&mut profile, rng, min_derived);
    profile
}

/// Every text the generators may put into a dialogue, lowercased: the embedded data
/// files of v1 and v2 (word lists, templates and inventories) as written.
pub(super) static FIXED_TEXT: LazyLock<String> = LazyLock::new(|| {
    crate::generate::data::FILES
        .iter()
        .chain(super::data::FILES.iter())
        .map(|(_, text)| text.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n")
});

/// What v2's grammars (small talk, the scenarios' questions and answers) may say,
/// over every expansion.
static SAYABLE: LazyLock<super::parts::Sayable> = LazyLock::new(|| {
    let mut sayable = super::parts::Sayable::default();
    for (_, entries) in super::data::data().grammars() {
        for entry in entries {
            sayable.add(entry);
        }
    }
    sayable
});

/// Whether `value`, in lower case, occurs in a text the generators may put into a
/// dialogue ("six months" in a piece of advice), or some expansion of a grammar may
/// say it ("[two|six] months"), where an inferential target must never be stated.
fn in_fixed_text(lower: &str) -> bool {
    // The same values come up in instance after instance: each is looked for once.
    static FOUND: LazyLock<Mutex<FxHashMap<String, bool>>> = LazyLock::new(Default::default);
    let mut found = FOUND.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(&known) = found.get(lower) {
        return known;
    }
    let known = FIXED_TEXT.contains(lower) || (lower.contains(' ') && SAYABLE.may_say(lower));
    found.insert(lower.to_string(), known);
    known
}

/// A rule applied to a profile.
struct Derivation {
    number: u32,
    sources: Vec<usize>,
    vars: Vec<(String, String)>,
}

/// Adds one to three derived facts (at least `min_derived` where the profile allows),
/// each from a different rule family where it can, no two sharing a source.
fn derive(profile: &mut GenProfile, rng: &mut Rng, min_derived: usize) {
    let values: Vec<String> = profile
        .facts
        .iter()
        .map(|f| f.value.to_lowercase())
        .collect();
    let candidates: Vec<(usize, Derivation, String)> = templates()
        .iter()
        .enumerate()
        .filter(|(_, t)| profile.persona.has(t.requires))
        .filter_map(|(i, t)| {
            let d = apply(profile, t)?;
            let value = derived_value(t.unit, d.number);
            let lower = value.to_lowercase();
            let free = !values.iter().any(|v| overlap(v, &lower)) && !in_fixed_text(&lower);
            free.then_some((i, d, value))
        })
        .collect();
    let wanted = (rng.weighted(&[55, 40, 5]) + 1).max(min_derived);
    let mut families: Vec<Rule> = Vec::new();
    for (i, _, _) in &candidates {
        let rule = templates()[*i].rule;
        if !families.contains(&rule) {
            families.push(rule);
        }
    }
    rng.shuffle(&mut families);
    // One candidate per family, in random family order, then any others.
    let mut order: Vec<usize> = Vec::new();
    for rule in &families {
        let of: Vec<usize> = (0..candidates.len())
            .filter(|&c| templates()[candidates[c].0].rule == *rule)
            .collect();
        order.push(*rng.pick(&of));
    }
    let mut rest: Vec<usize> = (0..candidates.len())
        .filter(|c| !order.contains(c))
        .collect();
    rng.shuffle(&mut rest);
    order.extend(rest);
    let mut chosen: Vec<usize> = Vec::new();
    let mut used: BTreeSet<usize> = BTreeSet::new();
    for c in order {
        if chosen.len() == wanted {
            break;
        }
        let (_, d, value) = &candidates[c];
        let shares_source = d.sources.iter().any(|s| used.contains(s));
        let same_value = chosen.iter().any(|&o| clashes(&candidates[o].2, value));
        if shares_source || same_value || unclear(profile, &templates()[candidates[c].0], d) {
            continue;
        }
        used.extend(d.sources.iter().copied());
        chosen.push(c);
    }
    chosen.sort_unstable();
    let mut candidates: Vec<Option<(usize, Derivation, String)>> =
        candidates.into_iter().map(Some).collect();
    for c in chosen {
        let Some((i, d, value)) = candidates[c].take() else {
            continue;
        };
        profile.derived.push(DerivedFact {
            id: format!("d{}", profile.derived.len() + 1),
            template: &templates()[i],
            value,
            number: d.number,
            sources: d.sources,
            vars: d.vars,
        });
    }
}

/// The rule of `t` applied to the profile's facts, or `None` when a source is
/// missing or the value would not follow unambiguously.
fn apply(profile: &GenProfile, t: &DerivedTemplate) -> Option<Derivation> {
    let found: Vec<usize> = t.sources.iter().filter_map(|k| profile.find(k)).collect();
    let facts = &profile.facts;
    let month = |i: usize| facts[i].month;
    let start = Month {
        year: profile.start.year,
        month: profile.start.month,
    };
    let pair = || -> Option<(usize, usize)> {
        match found[..] {
            [a, b] if t.sources.len() == 2 => Some((a, b)),
            _ => None,
        }
    };
    let number = match t.rule {
        Rule::Count => {
            // The year holding the most of the sources (the latest on a tie).
            let mut by_year: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
            for &s in &found {
                by_year.entry(month(s)?.year).or_default().push(s);
            }
            let (year, sources) = by_year
                .into_iter()
                .filter(|(_, s)| s.len() >= 2)
                .max_by_key(|(y, s)| (s.len(), *y))?;
            return Some(Derivation {
                number: sources.len() as u32,
                sources,
                vars: vec![("year".to_string(), year.to_string())],
            });
        }
        Rule::WholeYearsSince => {
            let (_, b) = pair()?;
            let years = start.since(month(b)?) / 12;
            u32::try_from(years).ok().filter(|&n| n >= 1)?
        }
        // v1's rule counts calendar years, which overstates a span that crosses a
        // new year; v2's templates use whole years instead.
        Rule::YearsSince => return None,
        Rule::YearsBetween => {
            let (a, b) = pair()?;
            let years = month(b)?.since(month(a)?) / 12;
            u32::try_from(years).ok().filter(|&n| n >= 1)?
        }
        Rule::MonthsApart => {
            let (a, b) = pair()?;
            month(b)?.since(month(a)?).unsigned_abs()
        }
        Rule::AgeAt => {
            let (_, b) = pair()?;
            let birth = profile.persona.birth;
            let m = month(b)?;
            // In the birthday's own month the age depends on the day.
            if m.month == birth.month {
                return None;
            }
            u32::try_from(m.year - birth.year - i32::from(m.month < birth.month)).ok()?
        }
        Rule::Product => {
            let (a, b) = pair()?;
            let times: u32 = leading_number(&facts[a].value)?;
            let hours: u32 = leading_number(&facts[b].value)?;
            times * hours
        }
        Rule::ClockSpan => {
            let (a, b) = pair()?;
            let bed = clock_minutes(&facts[a].value)?;
            let wake = clock_minutes(&facts[b].value)?;
            let span = (wake + 24 * 60 - bed) % (24 * 60);
            u32::try_from(span).ok()?
        }
        Rule::YearlyCost => {
            let (a, b) = pair()?;
            12 * dollars(&facts[a].value)? + 52 * dollars(&facts[b].value)?
        }
        Rule::Share => {
            let (a, b) = pair()?;
            let (rent, salary) = (dollars(&facts[a].value)?, dollars(&facts[b].value)?);
            if salary == 0 {
                return None;
            }
            (1200 * u64::from(rent) + u64::from(salary) / 2)
                .checked_div(u64::from(salary))
                .and_then(|n| u32::try_from(n).ok())?
        }
        Rule::Anniversary => {
            let (_, b) = pair()?;
            let span = t.span?;
            let m = month(b)?;
            let due = Month {
                year: m.year + i32::try_from(span).ok()?,
                month: m.month,
            };
            if due <= start {
                return None;
            }
            u32::try_from(due.year * 12 + due.month as i32 - 1).ok()?
        }
        Rule::Kinship => {
            let (_, b) = pair()?;
            let female = profile.persona.sibling_word == "sister";
            let by_marriage = facts[b].template.key == "partner";
            // Index into KIN_TERMS: aunt, uncle, sister-in-law, brother-in-law.
            2 * u32::from(by_marriage) + u32::from(!female)
        }
    };
    // Zero is no count, span or amount (a kinship term's index may be zero).
    if (number == 0 && t.unit != Unit::Kin) || (t.unit == Unit::Month && number < 2) {
        return None;
    }
    let mut vars: Vec<(String, String)> = found
        .iter()
        .zip(["a", "b"])
        .map(|(&s, k)| (k.to_string(), facts[s].value.clone()))
        .collect();
    // Whole years up to the first session: the texts name that month.
    if t.rule == Rule::WholeYearsSince {
        vars.push(("ref".to_string(), start.long()));
    }
    Some(Derivation {
        number,
        sources: found,
        vars,
    })
}

/// Whether a span in whole years depends on the days its months leave out: both
/// ends in the same calendar month (a job started in April 2017, counted to April
/// 2025, is seven or eight full years). Such a fact is not chosen.
fn unclear(profile: &GenProfile, t: &DerivedTemplate, d: &Derivation) -> bool {
    let month = |i: usize| profile.facts[i].month.map(|m| m.month);
    match (t.rule, &d.sources[..]) {
        (Rule::WholeYearsSince, [_, b]) => month(*b) == Some(profile.start.month),
        (Rule::YearsBetween, [a, b]) => month(*a) == month(*b),
        _ => false,
    }
}

/// The number a value starts with, in digits or words: "3 times a week" → 3,
/// "two hours" → 2.
fn leading_number(value: &str) -> Option<u32> {
    let first = value.split(' ').next()?;
    first.parse().ok().or_else(|| word_number(first))
}

/// Minutes after midnight of a clock time: "10:15 pm", "5:45 am", "midnight".
fn clock_minutes(value: &str) -> Option<i64> {
    let v = value.trim().to_lowercase();
    match v.as_str() {
        "midnight" => return Some(0),
        "noon" => return Some(12 * 60),
        _ => {}
    }
    let (time, half) = v.split_once(' ')?;
    let (h, m) = time.split_once(':').unwrap_or((time, "0"));
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    if !(1..=12).contains(&h) || !(0..60).contains(&m) {
        return None;
    }
    let h = h % 12
        + match half {
            "am" | "a.m." => 0,
            "pm" | "p.m." => 12,
            _ => return None,
        };
    Some(h * 60 + m)
}

/// The dollar amount a value starts with: "$1,450" → 1450, "$120 a week" → 120.
fn dollars(value: &str) -> Option<u32> {
    let amount = value.strip_prefix('$')?.split(' ').next()?;
    amount.replace(',', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::data::{KIN_TERMS, Requirement};
    use crate::generate::profile::FactRef;

    fn start() -> Date {
        Date {
            year: 2025,
            month: 3,
            day: 10,
        }
    }

    #[test]
    fn values_parse_as_written() {
        assert_eq!(clock_minutes("10:15 pm"), Some(22 * 60 + 15));
        assert_eq!(clock_minutes("5:45 am"), Some(5 * 60 + 45));
        assert_eq!(clock_minutes("12:30 am"), Some(30));
        assert_eq!(clock_minutes("midnight"), Some(0));
        assert_eq!(clock_minutes("quarter past ten"), None);
        assert_eq!(dollars("$1,450"), Some(1450));
        assert_eq!(dollars("$120 a week"), Some(120));
        assert_eq!(dollars("about 1450"), None);
        assert_eq!(leading_number("3 times a week"), Some(3));
        assert_eq!(leading_number("two hours"), Some(2));
        assert_eq!(leading_number("often"), None);
    }

    #[test]
    fn derived_values_are_written_in_their_units() {
        assert_eq!(derived_value(Unit::Duration, 450), "seven and a half hours");
        assert_eq!(derived_value(Unit::Duration, 480), "eight hours");
        assert_eq!(
            derived_value(Unit::Duration, 430),
            "seven hours and ten minutes"
        );
        assert_eq!(derived_value(Unit::Dollars, 23640), "$23,640");
        assert_eq!(derived_value(Unit::Dollars, 980), "$980");
        assert_eq!(derived_value(Unit::Percent, 26), "26 percent");
        assert_eq!(derived_value(Unit::MonthYear, 2031 * 12 + 5), "June 2031");
        assert_eq!(derived_value(Unit::Kin, 3), "brother-in-law");
        assert_eq!(derived_value(Unit::Trips, 3), "three trips");
        assert_eq!(derived_value(Unit::Month, 4), "four months");
    }

    /// Every template reads as one fact: the retention question ends with the plain
    /// question, relearning sentences state a value, requests never hold it, and the
    /// rule's placeholders are ones the rule fills.
    #[test]
    fn templates_are_well_formed() {
        let families: BTreeSet<String> = templates()
            .iter()
            .map(|t| format!("{:?}", t.rule))
            .collect();
        assert!(families.len() >= 10, "{} rule families", families.len());
        for t in templates() {
            let (first, rest) = t.plain_question.split_at(1);
            let tail = format!("{}{rest}", first.to_lowercase());
            assert!(
                t.question.ends_with(&tail) && t.question.len() > tail.len(),
                "{}: {:?} does not end with {tail:?}",
                t.key,
                t.question
            );
            assert!(
                t.relearn.len() >= 4,
                "{}: dev and test need two each",
                t.key
            );
            for r in &t.relearn {
                assert!(r.contains("{value}"), "{}: {r}", t.key);
            }
            assert!(!t.about.contains("{value}"), "{}", t.key);
            assert!(t.claim.contains("{value}") && t.statement.contains("{value}"));
            assert_eq!(t.rule == Rule::Anniversary, t.span.is_some(), "{}", t.key);
            let all = [&t.question, &t.plain_question, &t.claim, &t.about]
                .into_iter()
                .chain(&t.relearn)
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" ");
            if all.contains("{year}") {
                assert_eq!(t.rule, Rule::Count, "{}", t.key);
            }
            if all.contains("{b}") {
                assert_eq!(t.sources.len(), 2, "{}", t.key);
            }
        }
    }

    /// Recomputes every derived value from its sources' values as written, by hand.
    #[test]
    fn derived_values_follow_from_their_sources() {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for seed in 0..400 {
            let mut rng = Rng::new(seed);
            let p = synthesize(&mut rng, start(), 2);
            let mut used: BTreeSet<usize> = BTreeSet::new();
            for d in &p.derived {
                assert!(d.sources.len() >= 2, "seed {seed} {}", d.template.key);
                for s in &d.sources {
                    assert!(used.insert(*s), "seed {seed}: two facts share a source");
                }
                let src: Vec<&str> = d
                    .sources
                    .iter()
                    .map(|&s| p.facts[s].value.as_str())
                    .collect();
                let m = |k: usize| p.facts[d.sources[k]].month.unwrap();
                let now = Month {
                    year: 2025,
                    month: 3,
                };
                let expected: String = match d.template.rule {
                    Rule::WholeYearsSince => {
                        derived_value(Unit::Year, (now.since(m(1)) / 12) as u32)
                    }
                    Rule::YearsBetween => derived_value(Unit::Year, (m(1).since(m(0)) / 12) as u32),
                    Rule::MonthsApart => {
                        derived_value(Unit::Month, m(1).since(m(0)).unsigned_abs())
                    }
                    Rule::AgeAt => {
                        let b = p.persona.birth;
                        let age = m(1).year - b.year - i32::from(m(1).month < b.month);
                        derived_value(Unit::Age, age as u32)
                    }
                    Rule::Product => {
                        let a: u32 = src[0].split(' ').next().unwrap().parse().unwrap();
                        let b = word_number(src[1].split(' ').next().unwrap()).unwrap();
                        derived_value(Unit::HourWeek, a * b)
                    }
                    Rule::ClockSpan => {
                        let span = (clock_minutes(src[1]).unwrap() + 1440
                            - clock_minutes(src[0]).unwrap())
                            % 1440;
                        derived_value(Unit::Duration, span as u32)
                    }
                    Rule::YearlyCost => derived_value(
                        Unit::Dollars,
                        12 * dollars(src[0]).unwrap() + 52 * dollars(src[1]).unwrap(),
                    ),
                    Rule::Share => {
                        let share = 1200.0 * f64::from(dollars(src[0]).unwrap())
                            / f64::from(dollars(src[1]).unwrap());
                        format!("{} percent", share.round())
                    }
                    Rule::Anniversary => {
                        let due = Month {
                            year: m(1).year + d.template.span.unwrap() as i32,
                            month: m(1).month,
                        };
                        assert!(due > now);
                        due.long()
                    }
                    Rule::Kinship => {
                        let spouse = p.facts[d.sources[1]].template.key == "partner";
                        let sister = p.persona.sibling_word == "sister";
                        match (spouse, sister) {
                            (false, true) => "aunt",
                            (false, false) => "uncle",
                            (true, true) => "sister-in-law",
                            (true, false) => "brother-in-law",
                        }
                        .to_string()
                    }
                    Rule::Count => {
                        let year: i32 = d.vars[0].1.parse().unwrap();
                        for k in 0..d.sources.len() {
                            assert_eq!(m(k).year, year);
                        }
                        // Every trip of that year is a source.
                        for (i, f) in p.facts.iter().enumerate() {
                            if d.template.sources.contains(&f.template.key)
                                && f.month.is_some_and(|mo| mo.year == year)
                            {
                                assert!(d.sources.contains(&i), "seed {seed}: trip left out");
                            }
                        }
                        derived_value(Unit::Trips, d.sources.len() as u32)
                    }
                    Rule::YearsSince => panic!("v1 rule in v2 data"),
                };
                assert_eq!(d.value, expected, "seed {seed} {}", d.template.key);
                assert!(p.persona.has(d.template.requires), "seed {seed}");
                for f in &p.facts {
                    assert!(
                        !clashes(&f.value, &d.value),
                        "seed {seed}: {} vs {}",
                        f.value,
                        d.value
                    );
                }
                // Never stated by coincidence: no generator text holds the value.
                assert!(
                    !in_fixed_text(&d.value.to_lowercase()),
                    "seed {seed}: {} in fixed text",
                    d.value
                );
                seen.insert(format!("{:?}", d.template.rule));
            }
        }
        assert!(seen.len() >= 10, "families reached: {seen:?}");
    }

    /// The rule judge takes the everyday spellings of each new kind of value as the
    /// gold, and finds them as leaks once the fact is forgotten.
    #[test]
    fn the_rule_judge_reads_every_kind_of_derived_value() {
        use crate::dataset::{FORGOTTEN, Suite, Version};
        use crate::generate::text::accepted_spellings;
        use crate::judge::JudgeItem;
        use crate::judge::rule::RuleJudge;
        let cases = [
            (
                Unit::Duration,
                450,
                "About 7.5 hours on a normal weeknight.",
            ),
            (Unit::Duration, 430, "Seven hours and ten minutes."),
            (Unit::Duration, 450, "7 hours 30 minutes, give or take."),
            (Unit::Duration, 430, "7 hrs 10 mins."),
            (
                Unit::Dollars,
                23640,
                "Roughly 23,640 dollars over the year.",
            ),
            (Unit::Percent, 26, "Around 26% of what you earn."),
            (Unit::MonthYear, 2031 * 12 + 5, "That would be June 2031."),
            (Unit::Kin, 0, "She is his aunt."),
            (Unit::Trips, 3, "You took 3 trips that year."),
            (Unit::Month, 4, "They were 4 months apart."),
        ];
        for (unit, n, answer) in cases {
            let value = derived_value(unit, n);
            let accepted = accepted_spellings(&value);
            let leak = vec![value.clone()];
            let retention = JudgeItem {
                suite: Suite::Retention,
                attack: None,
                version: Version::Forget,
                question: "",
                expected: &value,
                accepted: &accepted,
                leak: &[],
            };
            let verdict = RuleJudge.verdict(&retention, answer);
            assert_eq!(
                verdict.correct,
                Some(true),
                "{value:?} in {answer:?}: {verdict:?}"
            );
            let efficacy = JudgeItem {
                suite: Suite::Efficacy,
                expected: FORGOTTEN,
                accepted: &[],
                leak: &leak,
                ..retention
            };
            let verdict = RuleJudge.verdict(&efficacy, answer);
            assert_eq!(
                verdict.correct,
                Some(false),
                "{value:?} not found in {answer:?}"
            );
        }
    }

    /// A sister of the user is the aunt of the user's child: the rule gives the term
    /// (index 0), even where the generator then leaves it out because its own texts
    /// say "aunt" elsewhere.
    #[test]
    fn a_sister_is_the_aunt_of_a_child() {
        let rule = templates()
            .iter()
            .find(|t| t.key == "sibling_to_child")
            .expect("the sibling-to-child rule");
        let mut found = 0;
        for seed in 0..400 {
            let mut rng = Rng::new(seed);
            let p = GenProfile::atomic(&mut rng, start());
            if p.persona.sibling_word != "sister" || p.find("sibling").is_none() {
                continue;
            }
            if p.find("child").is_none() {
                continue;
            }
            let d = apply(&p, rule).expect("a sister and a child give a kinship term");
            assert_eq!(derived_value(Unit::Kin, d.number), "aunt");
            found += 1;
        }
        assert!(
            found > 0,
            "no profile with a sister and a child in 400 seeds"
        );
        assert!(
            in_fixed_text("aunt"),
            "the generator's texts no longer say \"aunt\""
        );
    }

    #[test]
    fn kinship_and_requirements_follow_the_persona() {
        let mut checked = 0;
        for seed in 0..300 {
            let mut rng = Rng::new(seed);
            let p = synthesize(&mut rng, start(), 3);
            for (i, d) in p.derived.iter().enumerate() {
                if d.template.rule != Rule::Kinship {
                    continue;
                }
                checked += 1;
                let term = KIN_TERMS[d.number as usize];
                assert_eq!(d.value, term);
                match d.template.requires {
                    Some(Requirement::Married) => assert!(p.persona.family.married),
                    Some(Requirement::Children) => assert!(p.persona.family.children > 0),
                    other => panic!("kinship rule without a requirement: {other:?}"),
                }
                // The question names both people, so it can be answered from memory
                // alone and not from what the words mean.
                let q = p.question(FactRef::Derived(i));
                for &s in &d.sources {
                    assert!(q.contains(&p.facts[s].value), "{q}");
                }
                let relearnt = p.new_value(FactRef::Derived(i), &mut rng);
                assert_ne!(relearnt, d.value);
                assert!(KIN_TERMS.contains(&relearnt.as_str()));
            }
        }
        assert!(checked > 0, "no kinship fact in 300 profiles");
    }

    /// A span counted in whole years is a fact only when its months settle it: never
    /// when both ends fall in the same calendar month, where the days decide (a job
    /// started in April 2017 is seven or eight full years old in April 2025). A span
    /// to the present names the month it is counted to.
    #[test]
    fn whole_year_spans_are_settled_by_their_months() {
        let mut spans = 0;
        for seed in 0..100 {
            for month in [1, 3, 6, 11] {
                let mut rng = Rng::new(seed);
                let today = Date {
                    year: 2025,
                    month,
                    day: 10,
                };
                let p = synthesize(&mut rng, today, 2);
                for d in &p.derived {
                    let m = |k: usize| p.facts[d.sources[k]].month.unwrap();
                    let (from, to) = match d.template.rule {
                        Rule::WholeYearsSince => (m(1), Month { year: 2025, month }),
                        Rule::YearsBetween => (m(0), m(1)),
                        _ => continue,
                    };
                    spans += 1;
                    assert_ne!(
                        from.month, to.month,
                        "seed {seed}: {} {}",
                        d.template.key, d.value
                    );
                    if d.template.rule == Rule::WholeYearsSince {
                        let question = p.question(FactRef::Derived(
                            p.derived.iter().position(|x| x.id == d.id).unwrap(),
                        ));
                        assert!(question.contains(&to.long()), "{question}");
                    }
                }
            }
        }
        assert!(spans > 100, "{spans}");
    }

    #[test]
    fn relearnt_values_differ_for_every_unit() {
        for seed in 0..60 {
            let mut rng = Rng::new(seed);
            let p = synthesize(&mut rng, start(), 3);
            for i in 0..p.derived.len() {
                let fact = FactRef::Derived(i);
                let v = p.new_value(fact, &mut rng);
                assert!(!clashes(&v, p.value(fact)), "{v} vs {}", p.value(fact));
            }
        }
    }
}
