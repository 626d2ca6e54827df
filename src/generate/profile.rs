//! Stage 1, profile synthesis: a persona with six seed attributes, 56–64 atomic facts
//! over twelve categories drawn from the fact templates, consistent timestamps, and
//! one to three derived facts whose values follow from their sources by a rule.

mod build;

use super::data::{
    DerivedTemplate, FactTemplate, Family, KIN_TERMS, Occupation, Requirement, Rule, TimeKind,
    Unit, data,
};
use super::rng::Rng;
use super::text::{Date, Month, fill, fill_with, number_word, word_number};
use crate::dataset::{Fact, Profile};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

/// The synthetic user behind an instance.
pub struct Persona {
    /// Given name.
    pub first: String,
    /// Family name.
    pub last: String,
    /// Age on the first session's date.
    pub age: u32,
    /// Date of birth.
    pub birth: Date,
    /// Home city.
    pub city: String,
    /// Occupation.
    pub occupation: &'static Occupation,
    /// Family structure.
    pub family: &'static Family,
    /// Lifestyle description.
    pub lifestyle: String,
    /// Highest education.
    pub education: String,
    /// The sport the user trains in.
    pub sport: String,
    /// "husband", "wife" or "partner".
    pub partner_word: String,
    /// "son" or "daughter".
    pub child_word: String,
    /// "brother" or "sister".
    pub sibling_word: String,
    /// "dog" or "cat", when the user has a pet.
    pub pet_word: Option<String>,
}

impl Persona {
    /// A persona variable usable in templates (`{city}`, `{sport}`, …).
    pub fn var(&self, key: &str) -> Option<String> {
        Some(match key {
            "city" => self.city.clone(),
            "sport" => self.sport.clone(),
            "occupation" => self.occupation.title.clone(),
            "partner_word" => self.partner_word.clone(),
            "child_word" => self.child_word.clone(),
            "sibling_word" => self.sibling_word.clone(),
            "pet_word" => self.pet_word.clone().unwrap_or_else(|| "pet".to_string()),
            _ => return None,
        })
    }

    /// A word list that depends on the persona (employers and fields of the
    /// occupation), falling back to the shared vocabulary.
    fn list(&self, name: &str) -> Option<&'static [String]> {
        match name {
            "employers" => Some(&self.occupation.employers),
            "fields" => Some(&self.occupation.fields),
            _ => data().vocab.get(name).map(Vec::as_slice),
        }
    }

    pub(crate) fn has(&self, requirement: Option<Requirement>) -> bool {
        match requirement {
            None => true,
            Some(Requirement::Partner) => self.family.partner,
            Some(Requirement::Married) => self.family.married,
            Some(Requirement::Children) => self.family.children > 0,
            Some(Requirement::Pet) => self.pet_word.is_some(),
        }
    }

    /// Strings the persona puts into texts; no fact value may overlap them.
    pub(crate) fn reserved(&self) -> Vec<String> {
        vec![
            self.first.clone(),
            self.last.clone(),
            self.city.clone(),
            self.sport.clone(),
            self.occupation.title.clone(),
        ]
    }
}

/// An atomic fact with what the generator needs to talk about it.
pub struct AtomicFact {
    /// Fact id, `f01` …
    pub id: String,
    /// Index of the category in the data.
    pub category: usize,
    /// The template it was made from.
    pub template: &'static FactTemplate,
    /// The value.
    pub value: String,
    /// The month it happened in (timestamped facts only).
    pub month: Option<Month>,
    /// `YYYY-MM` or `YYYY-MM-DD`.
    pub timestamp: Option<String>,
    /// How texts place the event in time: "in March 2023", "on March 4, 2023".
    pub when: Option<String>,
}

/// A derived fact.
pub struct DerivedFact {
    /// Fact id, `d1` …
    pub id: String,
    /// The rule it was made from.
    pub template: &'static DerivedTemplate,
    /// The value, e.g. "six years".
    pub value: String,
    /// The number inside the value (for a kinship term, its index in
    /// [`KIN_TERMS`]; for a month, months from year 0).
    pub number: u32,
    /// Indices of the source facts in [`GenProfile::facts`].
    pub sources: Vec<usize>,
    /// Placeholders the rule fills in its templates besides `{value}` (the
    /// sources' values as `{a}`, `{b}`; the year counted as `{year}`).
    pub vars: Vec<(String, String)>,
}

/// Either kind of fact, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FactRef {
    /// Index into [`GenProfile::facts`].
    Atomic(usize),
    /// Index into [`GenProfile::derived`].
    Derived(usize),
}

/// A synthesised profile.
pub struct GenProfile {
    /// The persona.
    pub persona: Persona,
    /// Date of the first session: the reference date of all derived values.
    pub start: Date,
    /// Atomic facts, in id order.
    pub facts: Vec<AtomicFact>,
    /// Derived facts, in id order.
    pub derived: Vec<DerivedFact>,
}

/// Whether two values overlap (one contains the other, ignoring case).
pub fn clashes(a: &str, b: &str) -> bool {
    overlap(&a.to_lowercase(), &b.to_lowercase())
}

/// [`clashes`] for values already in lower case (a value checked against many is
/// lowered once).
pub(crate) fn overlap(a: &str, b: &str) -> bool {
    a.contains(b) || b.contains(a)
}

const EVENT_RANGE: [u32; 2] = [1, 30];

impl GenProfile {
    /// Synthesises a profile for a dialogue starting on `start`, with at least
    /// `min_derived` derived facts (one per inferential request).
    pub fn synthesize(rng: &mut Rng, start: Date, min_derived: usize) -> GenProfile {
        let mut profile = GenProfile::atomic(rng, start);
        profile.derive(rng, min_derived);
        profile
    }

    /// The persona and its atomic facts, without derived facts.
    pub(crate) fn atomic(rng: &mut Rng, start: Date) -> GenProfile {
        let persona = make_persona(rng, start);
        let selected = select_templates(rng, &persona);
        let mut profile = GenProfile {
            persona,
            start,
            facts: Vec::new(),
            derived: Vec::new(),
        };
        profile.place_in_time(rng, selected);
        profile.assign_values(rng);
        profile
    }

    /// Fills a template with a value, the fact's time and the persona's variables.
    pub fn render(&self, template: &str, value: &str, when: Option<&str>) -> String {
        fill_with(template, |key| match key {
            "value" => Some(Cow::Borrowed(value)),
            "when" => when.map(Cow::Borrowed),
            _ => self.persona.var(key).map(Cow::Owned),
        })
    }

    /// Fills a template of derived fact `d` with a value, the rule's variables and
    /// the persona's.
    pub(crate) fn render_derived(&self, d: usize, template: &str, value: &str) -> String {
        let vars = &self.derived[d].vars;
        fill(template, &|key| match key {
            "value" => Some(value.to_string()),
            _ => vars
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .or_else(|| self.persona.var(key)),
        })
    }

    /// The fact's id.
    pub fn id(&self, fact: FactRef) -> &str {
        match fact {
            FactRef::Atomic(i) => &self.facts[i].id,
            FactRef::Derived(i) => &self.derived[i].id,
        }
    }

    /// The fact's value.
    pub fn value(&self, fact: FactRef) -> &str {
        match fact {
            FactRef::Atomic(i) => &self.facts[i].value,
            FactRef::Derived(i) => &self.derived[i].value,
        }
    }

    fn when(&self, fact: FactRef) -> Option<&str> {
        match fact {
            FactRef::Atomic(i) => self.facts[i].when.as_deref(),
            FactRef::Derived(_) => None,
        }
    }

    /// The retention question about the fact.
    pub fn question(&self, fact: FactRef) -> String {
        match fact {
            FactRef::Atomic(i) => self.render(
                &self.facts[i].template.question,
                self.value(fact),
                self.when(fact),
            ),
            FactRef::Derived(i) => {
                self.render_derived(i, &self.derived[i].template.question, self.value(fact))
            }
        }
    }

    /// The question asked plainly: the retention question, except that a derived
    /// fact's does not name the sources to combine ("How long have I lived in my
    /// current home?").
    pub fn plain_question(&self, fact: FactRef) -> String {
        match fact {
            FactRef::Atomic(_) => self.question(fact),
            FactRef::Derived(i) => {
                self.render_derived(i, &self.derived[i].template.plain_question, "")
            }
        }
    }

    /// The fact as a clause with the given value ("my home address is …").
    pub fn claim(&self, fact: FactRef, value: &str) -> String {
        match fact {
            FactRef::Atomic(i) => {
                self.render(&self.facts[i].template.claim, value, self.when(fact))
            }
            FactRef::Derived(i) => self.render_derived(i, &self.derived[i].template.claim, value),
        }
    }

    /// How a request refers to the fact ("my home address").
    pub fn about(&self, fact: FactRef) -> String {
        match fact {
            FactRef::Atomic(i) => {
                let t = self.facts[i].template;
                let template = t
                    .about
                    .clone()
                    .unwrap_or_else(|| format!("my {}", t.predicate));
                self.render(&template, &self.facts[i].value, self.when(fact))
            }
            FactRef::Derived(i) => self.render_derived(i, &self.derived[i].template.about, ""),
        }
    }

    /// How an indirect question points at the fact without asking for it ("my
    /// phone", "what I'm allergic to", "how long I've lived in my current home").
    pub fn topic(&self, fact: FactRef) -> String {
        match fact {
            FactRef::Atomic(i) => match &self.facts[i].template.topic {
                Some(topic) => self.render(topic, &self.facts[i].value, self.when(fact)),
                None => self.about(fact),
            },
            FactRef::Derived(_) => self.about(fact),
        }
    }

    /// The topic of the fact's category ("my health").
    pub fn category_topic(&self, fact: FactRef) -> String {
        let data = data();
        let category = match fact {
            FactRef::Atomic(i) => &data.facts.categories[self.facts[i].category],
            FactRef::Derived(i) => data
                .facts
                .categories
                .iter()
                .find(|c| c.name == self.derived[i].template.category)
                .unwrap_or(&data.facts.categories[0]),
        };
        category.topic.clone()
    }

    /// One disclosing sentence for an atomic fact with the given value.
    pub fn say(&self, fact: usize, value: &str, rng: &mut Rng) -> String {
        let f = &self.facts[fact];
        let template: &String = rng.pick(&f.template.say);
        self.render(template, value, f.when.as_deref())
    }

    /// A sentence stating `value` for the fact, for relearning dialogues.
    pub fn restate(&self, fact: FactRef, value: &str, rng: &mut Rng) -> String {
        match fact {
            FactRef::Atomic(i) => self.say(i, value, rng),
            FactRef::Derived(i) => {
                let template: &String = rng.pick(&self.derived[i].template.relearn);
                self.render_derived(i, template, value)
            }
        }
    }

    /// A different value of the same kind as the fact's, overlapping no value of
    /// the profile.
    pub fn new_value(&self, fact: FactRef, rng: &mut Rng) -> String {
        let old = self.value(fact).to_string();
        let taken: Vec<String> = self
            .facts
            .iter()
            .map(|f| f.value.to_lowercase())
            .chain(self.derived.iter().map(|d| d.value.to_lowercase()))
            .collect();
        let fresh = |v: &str| {
            let v = v.to_lowercase();
            !taken.iter().any(|t| overlap(t, &v))
        };
        match fact {
            FactRef::Derived(i) => {
                let d = &self.derived[i];
                for _ in 0..20 {
                    let n = other_number(d.template.unit, d.number, rng);
                    let v = derived_value(d.template.unit, n);
                    if n != d.number && fresh(&v) {
                        return v;
                    }
                }
                derived_value(d.template.unit, d.number + 1)
            }
            FactRef::Atomic(i) => {
                let f = &self.facts[i];
                if f.template.time == TimeKind::Date || f.template.value == "{birthdate}" {
                    let base = Month {
                        year: self.start.year,
                        month: self.start.month,
                    };
                    for _ in 0..40 {
                        let m = base.back(rng.range(1, 120) as u32);
                        let v = if f.template.value == "{birthdate}" {
                            Date {
                                year: m.year - 30,
                                month: m.month,
                                day: rng.range(1, 28) as u32,
                            }
                            .long()
                        } else {
                            m.long()
                        };
                        if fresh(&v) {
                            return v;
                        }
                    }
                    return base.back(121).long();
                }
                for _ in 0..30 {
                    let v = self.generate(&f.template.value, rng, None);
                    if fresh(&v) {
                        return v;
                    }
                }
                // Deterministic fallback: walk the first list slot's options.
                for option in 0..64 {
                    let v = self.generate(&f.template.value, rng, Some(option));
                    if !clashes(&v, &old) {
                        return v;
                    }
                }
                format!("{old}, renewed")
            }
        }
    }

    /// Builds a value from a pattern; `force` fixes the option of the first list slot.
    fn generate(&self, pattern: &str, rng: &mut Rng, force: Option<usize>) -> String {
        let mut first_list = true;
        let mut slot = |key: &str| -> Option<String> {
            if let Some(range) = key.strip_prefix("n:") {
                let (lo, hi) = range.split_once('-')?;
                let (lo, hi) = (lo.parse().ok()?, hi.parse().ok()?);
                return Some(rng.range(lo, hi).to_string());
            }
            let list = self.persona.list(key)?;
            if list.is_empty() {
                return None;
            }
            let index = match force {
                Some(f) if first_list => f % list.len(),
                _ => rng.below(list.len()),
            };
            first_list = false;
            Some(list[index].clone())
        };
        let cell = std::cell::RefCell::new(&mut slot);
        fill(pattern, &|key| (cell.borrow_mut())(key))
    }

    pub(crate) fn find(&self, key: &str) -> Option<usize> {
        self.facts.iter().position(|f| f.template.key == key)
    }

    /// Every fact, atomic first.
    #[cfg(test)]
    pub fn all_refs(&self) -> Vec<FactRef> {
        (0..self.facts.len())
            .map(FactRef::Atomic)
            .chain((0..self.derived.len()).map(FactRef::Derived))
            .collect()
    }

    /// The profile in the dataset's format.
    pub fn to_profile(&self) -> Profile {
        let p = &self.persona;
        let mut attributes = BTreeMap::new();
        attributes.insert("age".to_string(), p.age.to_string());
        attributes.insert("city".to_string(), p.city.clone());
        attributes.insert("education".to_string(), p.education.clone());
        let mut family = p.family.label.clone();
        if let Some(pet) = &p.pet_word {
            family.push_str(&format!(", has a {pet}"));
        }
        attributes.insert("family".to_string(), family);
        attributes.insert("lifestyle".to_string(), p.lifestyle.clone());
        attributes.insert("occupation".to_string(), p.occupation.title.clone());
        let categories = &data().facts.categories;
        let facts = self
            .facts
            .iter()
            .map(|f| Fact {
                id: f.id.clone(),
                subject: "user".to_string(),
                predicate: self.render(&f.template.predicate, &f.value, None),
                value: f.value.clone(),
                category: categories[f.category].name.clone(),
                sensitivity: f.template.sensitivity,
                timestamp: f.timestamp.clone(),
                statement: self.render(&f.template.statement, &f.value, f.when.as_deref()),
                sources: Vec::new(),
            })
            .collect();
        let derived_facts = self
            .derived
            .iter()
            .enumerate()
            .map(|(i, d)| Fact {
                id: d.id.clone(),
                subject: "user".to_string(),
                predicate: self.render_derived(i, &d.template.predicate, &d.value),
                value: d.value.clone(),
                category: d.template.category.clone(),
                sensitivity: d.template.sensitivity,
                timestamp: None,
                statement: self.render_derived(i, &d.template.statement, &d.value),
                sources: d
                    .sources
                    .iter()
                    .map(|&s| self.facts[s].id.clone())
                    .collect(),
            })
            .collect();
        Profile {
            name: format!("{} {}", p.first, p.last),
            attributes,
            facts,
            derived_facts,
        }
    }
}

/// The text of a derived number in its unit: "one year", "six years",
/// "eight hours a week", "twenty-two years old", "seven and a half hours",
/// "$23,640", "26 percent", "June 2031", "aunt", "three trips".
pub fn derived_value(unit: Unit, n: u32) -> String {
    let word = number_word(n);
    match unit {
        Unit::Year if n == 1 => "one year".to_string(),
        Unit::Year => format!("{word} years"),
        Unit::HourWeek if n == 1 => "one hour a week".to_string(),
        Unit::HourWeek => format!("{word} hours a week"),
        Unit::Age => format!("{word} years old"),
        Unit::Month if n == 1 => "one month".to_string(),
        Unit::Month => format!("{word} months"),
        Unit::Duration => {
            let (hours, minutes) = (n / 60, n % 60);
            let h = number_word(hours);
            match minutes {
                0 => format!("{h} hours"),
                30 => format!("{h} and a half hours"),
                m => format!("{h} hours and {} minutes", number_word(m)),
            }
        }
        Unit::Dollars => format!("${}", grouped(n)),
        Unit::Percent => format!("{n} percent"),
        Unit::MonthYear => Month {
            year: (n / 12) as i32,
            month: n % 12 + 1,
        }
        .long(),
        Unit::Kin => KIN_TERMS[n as usize % KIN_TERMS.len()].to_string(),
        Unit::Trips => format!("{word} trips"),
    }
}

/// `23640` as `23,640`.
fn grouped(n: u32) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A number for a relearnt derived value of the unit, other than `old` by chance
/// only (the caller checks).
fn other_number(unit: Unit, old: u32, rng: &mut Rng) -> u32 {
    match unit {
        Unit::Age => rng.range(19, 29) as u32,
        Unit::Year | Unit::HourWeek => rng.range(2, 16) as u32,
        Unit::Month => rng.range(2, 30) as u32,
        Unit::Duration => rng.range(30, 60) as u32 * 10,
        Unit::Dollars => rng.range(1_500, 4_000) as u32 * 10,
        Unit::Percent => rng.range(12, 45) as u32,
        Unit::MonthYear => old + rng.range(2, 40) as u32,
        Unit::Kin => {
            // Another term of the same side of the family: aunt for uncle,
            // godmother for sister-in-law.
            let options: Vec<u32> = (0..KIN_TERMS.len() as u32)
                .filter(|&k| k != old && k % 2 == old % 2)
                .collect();
            *rng.pick(&options)
        }
        Unit::Trips => rng.range(2, 7) as u32,
    }
}

fn free_month(rng: &mut Rng, start: Month, lo: u32, hi: u32, used: &BTreeSet<Month>) -> Month {
    for _ in 0..40 {
        let m = start.back(rng.range(lo as usize, hi as usize) as u32);
        if !used.contains(&m) {
            return m;
        }
    }
    (lo..=hi.max(lo) + 240)
        .map(|k| start.back(k))
        .find(|m| !used.contains(m))
        .unwrap_or(start.back(hi))
}

fn make_persona(rng: &mut Rng, start: Date) -> Persona {
    let data = data();
    let vocab = |name: &str| -> &'static [String] {
        data.vocab.get(name).map(Vec::as_slice).unwrap_or(&[])
    };
    let pick = |rng: &mut Rng, name: &str| -> String {
        let list = vocab(name);
        if list.is_empty() {
            String::new()
        } else {
            rng.pick(list).clone()
        }
    };
    let first = pick(rng, "first_names");
    let last = pick(rng, "last_names");
    let target_age = rng.range(26, 62) as i32;
    let birth = Date {
        year: start.year - target_age,
        month: rng.range(1, 12) as u32,
        day: rng.range(1, 28) as u32,
    };
    let before_birthday = (birth.month, birth.day) > (start.month, start.day);
    let age = (start.year - birth.year - i32::from(before_birthday)) as u32;
    let city = pick(rng, "cities");
    let occupation = rng.pick(&data.personas.occupations);
    let family = rng.pick(&data.personas.families);
    let lifestyle = rng.pick(&data.personas.lifestyles).clone();
    let education = rng.pick(&data.personas.education_levels).clone();
    let sport = pick(rng, "sports");
    let partner_word = if family.married {
        rng.pick(&["husband", "wife"]).to_string()
    } else {
        "partner".to_string()
    };
    let child_word = rng.pick(&["son", "daughter"]).to_string();
    let sibling_word = rng.pick(&["brother", "sister"]).to_string();
    let pet_word = rng
        .chance(1, 2)
        .then(|| rng.pick(&["dog", "cat"]).to_string());
    Persona {
        first,
        last,
        age,
        birth,
        city,
        occupation,
        family,
        lifestyle,
        education,
        sport,
        partner_word,
        child_word,
        sibling_word,
        pet_word,
    }
}

/// Picks the templates of each category: 56–64 in all, 4–6 per category, core
/// templates always, and at least eight timestamped ones where the data allows.
fn select_templates(rng: &mut Rng, persona: &Persona) -> Vec<(usize, &'static FactTemplate)> {
    let categories = &data().facts.categories;
    let n = categories.len();
    let total = rng.range(56, 64);
    let mut sizes = vec![5usize; n];
    let all: Vec<usize> = (0..n).collect();
    if total > 5 * n {
        for i in rng.sample(&all, total - 5 * n) {
            sizes[i] = 6;
        }
    } else {
        for i in rng.sample(&all, 5 * n - total) {
            sizes[i] = 4;
        }
    }
    let mut chosen: Vec<Vec<&'static FactTemplate>> = Vec::with_capacity(n);
    let mut spare: Vec<Vec<&'static FactTemplate>> = Vec::with_capacity(n);
    for (c, category) in categories.iter().enumerate() {
        let applicable: Vec<&'static FactTemplate> = category
            .templates
            .iter()
            .filter(|t| persona.has(t.requires))
            .collect();
        let mut take: Vec<&'static FactTemplate> =
            applicable.iter().copied().filter(|t| t.core).collect();
        let mut rest: Vec<&'static FactTemplate> =
            applicable.iter().copied().filter(|t| !t.core).collect();
        rng.shuffle(&mut rest);
        while take.len() < sizes[c] && !rest.is_empty() {
            take.push(rest.remove(0));
        }
        chosen.push(take);
        spare.push(rest);
    }
    // At least eight timestamped facts: swap untimed picks for timed spares.
    let timed = |chosen: &Vec<Vec<&FactTemplate>>| {
        chosen
            .iter()
            .flatten()
            .filter(|t| t.time != TimeKind::None)
            .count()
    };
    let mut order: Vec<usize> = (0..n).collect();
    rng.shuffle(&mut order);
    for &c in &order {
        if timed(&chosen) >= 8 {
            break;
        }
        let out = chosen[c]
            .iter()
            .position(|t| !t.core && t.time == TimeKind::None);
        let inn = spare[c].iter().position(|t| t.time != TimeKind::None);
        if let (Some(o), Some(i)) = (out, inn) {
            chosen[c][o] = spare[c].remove(i);
        }
    }
    chosen
        .into_iter()
        .enumerate()
        .flat_map(|(c, ts)| ts.into_iter().map(move |t| (c, t)))
        .collect()
}

#[cfg(test)]
mod tests;
