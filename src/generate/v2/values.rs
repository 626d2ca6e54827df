//! Identifying values for generator v2: the names of the people and the pet a
//! profile knows, its building's door code and its frequent flyer number.
//!
//! v1 draws them from short word lists, so one best friend's name turns up in a
//! dozen profiles of a set and a relative's name may not fit the relation ("my
//! brother Colette"). v2 gives each profile of a set its own places in longer lists
//! of names written by hand (`data/generator/v2/names.json`), by gender where the
//! relation has one, so that no name is in more than two profiles of a set; codes and
//! numbers are drawn afresh for each instance.
//!
//! The names replace v1's after the plan is made, from streams of their own: every
//! other part of an instance (its sessions, requests and questions) is what it was.

use crate::generate::plan::{InstanceSpec, TIER_SIZES};
use crate::generate::profile::{GenProfile, clashes};
use crate::generate::rng::Rng;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The name lists.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Names {
    #[allow(dead_code)]
    about: String,
    female: Vec<String>,
    male: Vec<String>,
    surnames: Vec<String>,
    pets: Vec<String>,
    /// v1's names of friends, partners and managers read as a woman's, and as a
    /// man's: a replacement keeps the gender, and so the pronouns a text already uses.
    v1_female: Vec<String>,
    v1_male: Vec<String>,
    /// Each of v1's neighbours as a pattern of the same shape, with `{surname}` and
    /// `{male}`.
    neighbours: BTreeMap<String, String>,
}

static NAMES: LazyLock<Names> = LazyLock::new(|| {
    // Part of the crate and checked by its tests: a failure is a build defect.
    serde_json::from_str(include_str!("../../../data/generator/v2/names.json"))
        .unwrap_or_else(|e| panic!("embedded data/generator/v2/names.json is malformed: {e}"))
});

/// How many profiles a set holds: every tier's instances.
const SET: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < TIER_SIZES.len() {
        n += TIER_SIZES[i].1;
        i += 1;
    }
    n
};

/// The people a profile may name by first name, each with places of its own in the
/// lists of women's and men's names.
const PEOPLE: [&str; 4] = ["sibling", "partner", "child", "best_friend"];

/// The people named by surname (a doctor, a manager, a neighbour).
const SURNAMED: [&str; 3] = ["doctor", "manager", "neighbor"];

/// A profile's place in its set: the tiers in order, then the instance's number
/// (`medium_002` is the 17th of 50); an id of another form hashes to a place.
fn slot(id: &str) -> usize {
    let mut offset = 0;
    for (tier, size) in TIER_SIZES {
        if let Some(n) = id
            .strip_prefix(tier.name())
            .and_then(|rest| rest.strip_prefix('_'))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| (1..=size).contains(n))
        {
            return offset + n - 1;
        }
        offset += size;
    }
    id.bytes().fold(0usize, |h, b| {
        h.wrapping_mul(31).wrapping_add(usize::from(b))
    }) % SET
}

/// A list shuffled for the set's seed: the same order for every instance of the set.
fn shuffled(seed: u64, name: &str, list: &[String]) -> Vec<String> {
    let mut out = list.to_vec();
    Rng::derived(seed, &format!("v2/names/{name}")).shuffle(&mut out);
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Gender {
    Female,
    Male,
}

/// The gender of a relation word, or of v1's name where the word has none.
fn gender(word: &str, old: &str, slot: usize) -> Gender {
    let names = &*NAMES;
    match word {
        "sister" | "daughter" | "wife" => Gender::Female,
        "brother" | "son" | "husband" => Gender::Male,
        _ => {
            let first = old.split_whitespace().next().unwrap_or(old);
            if names.v1_female.iter().any(|n| n == first) {
                Gender::Female
            } else if names.v1_male.iter().any(|n| n == first) {
                Gender::Male
            } else if slot % 2 == 0 {
                Gender::Female
            } else {
                Gender::Male
            }
        }
    }
}

/// The set's lists, shuffled for its seed.
struct Lists {
    female: Vec<String>,
    male: Vec<String>,
    surnames: Vec<String>,
    pets: Vec<String>,
}

impl Lists {
    fn new(seed: u64) -> Lists {
        let n = &*NAMES;
        Lists {
            female: shuffled(seed, "female", &n.female),
            male: shuffled(seed, "male", &n.male),
            surnames: shuffled(seed, "surnames", &n.surnames),
            pets: shuffled(seed, "pets", &n.pets),
        }
    }

    fn first_names(&self, g: Gender) -> &[String] {
        match g {
            Gender::Female => &self.female,
            Gender::Male => &self.male,
        }
    }
}

/// The first entry of `list` from place `at` on (wrapping) that `fits`: the entry at
/// `at` itself unless it clashes with the profile.
fn take(list: &[String], at: usize, fits: impl Fn(&str) -> bool) -> Option<String> {
    (0..list.len())
        .map(|i| &list[(at + i) % list.len()])
        .find(|v| fits(v.as_str()))
        .cloned()
}

/// Replaces the identifying values of `profile` (planned for `spec` of the set of
/// `seed`): names from the profile's own places in the lists, codes and numbers drawn
/// afresh; derived facts that quote a replaced value quote the new one.
pub(crate) fn make_distinct(profile: &mut GenProfile, seed: u64, spec: &InstanceSpec) {
    let lists = Lists::new(seed);
    let k = slot(&spec.id);
    let mut rng = Rng::derived(seed, &format!("v2/{}/values", spec.id));
    let reserved = profile.persona.reserved();
    for i in 0..profile.facts.len() {
        let key = profile.facts[i].template.key.as_str();
        let old = profile.facts[i].value.clone();
        let others: Vec<&str> = profile
            .facts
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(_, f)| f.value.as_str())
            .chain(reserved.iter().map(String::as_str))
            .collect();
        let fits = |v: &str| !others.iter().any(|o| clashes(o, v));
        let new = if let Some(role) = PEOPLE.iter().position(|&p| p == key) {
            let p = &profile.persona;
            let word = match key {
                "sibling" => p.sibling_word.as_str(),
                "partner" => p.partner_word.as_str(),
                "child" => p.child_word.as_str(),
                _ => "friend",
            };
            let list = lists.first_names(gender(word, &old, k));
            take(list, (k * PEOPLE.len() + role) % list.len(), fits)
        } else if let Some(role) = SURNAMED.iter().position(|&p| p == key) {
            let at = (k * SURNAMED.len() + role) % lists.surnames.len();
            let surname = take(&lists.surnames, at, |s| fits(s));
            surname.and_then(|s| match key {
                "doctor" => Some(format!("Dr. {s}")),
                "manager" => {
                    let list = lists.first_names(gender("", &old, k));
                    let at = rng.below(list.len());
                    take(list, at, |f| fits(f)).map(|f| format!("{f} {s}"))
                }
                _ => {
                    let shape = NAMES.neighbours.get(&old)?;
                    let male = take(&lists.male, rng.below(lists.male.len()), |f| fits(f))?;
                    Some(shape.replace("{surname}", &s).replace("{male}", &male))
                }
            })
        } else {
            match key {
                "pet" => take(&lists.pets, k % lists.pets.len(), fits),
                "door_code" => (0..50).map(|_| door_code(&mut rng)).find(|v| fits(v)),
                "flyer_number" => (0..50).map(|_| flyer_number(&mut rng)).find(|v| fits(v)),
                _ => None,
            }
        };
        let Some(new) = new else { continue };
        for d in &mut profile.derived {
            for (_, v) in &mut d.vars {
                if *v == old {
                    v.clone_from(&new);
                }
            }
        }
        profile.facts[i].value = new;
    }
}

/// Four digits that read as no year (none from 1000 to 2099).
fn door_code(rng: &mut Rng) -> String {
    rng.range(2100, 9999).to_string()
}

/// An airline's two letters and seven digits.
fn flyer_number(rng: &mut Rng) -> String {
    let letter = |rng: &mut Rng| char::from(b'A' + rng.below(26) as u8);
    format!(
        "{}{}{}",
        letter(rng),
        letter(rng),
        rng.range(1_000_000, 9_999_999)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::plan::global_plan;
    use std::collections::{BTreeMap, BTreeSet};

    fn all_names() -> Vec<&'static String> {
        let n = &*NAMES;
        n.female
            .iter()
            .chain(&n.male)
            .chain(&n.surnames)
            .chain(&n.pets)
            .collect()
    }

    #[test]
    fn the_lists_are_long_enough_for_two_profiles_a_name_and_hold_no_name_twice() {
        let n = &*NAMES;
        // Each place in a list serves at most two profiles of a set.
        assert!(2 * n.female.len() >= SET * PEOPLE.len(), "women's names");
        assert!(2 * n.male.len() >= SET * PEOPLE.len(), "men's names");
        assert!(2 * n.surnames.len() >= SET * SURNAMED.len(), "surnames");
        assert!(2 * n.pets.len() >= SET, "pets' names");
        let names = all_names();
        let distinct: BTreeSet<String> = names.iter().map(|n| n.to_lowercase()).collect();
        assert_eq!(distinct.len(), names.len(), "a name is listed twice");
        // No name holds another, or one would clash with the other in a profile.
        for a in &names {
            for b in &names {
                assert!(
                    a == b || !b.to_lowercase().contains(&a.to_lowercase()),
                    "{a} is part of {b}"
                );
            }
        }
    }

    #[test]
    fn every_v1_neighbour_has_a_shape_and_every_v1_name_a_gender() {
        let v1 = &crate::generate::data::data().vocab;
        for old in &v1["neighbors"] {
            let shape = NAMES.neighbours.get(old);
            assert!(
                shape.is_some_and(|s| s.contains("{surname}")),
                "{old} has no shape"
            );
        }
        for list in ["friend_names", "managers"] {
            for old in &v1[list] {
                let first = old.split_whitespace().next().unwrap();
                assert!(
                    NAMES
                        .v1_female
                        .iter()
                        .chain(&NAMES.v1_male)
                        .any(|n| n == first),
                    "{old} has no gender"
                );
            }
        }
    }

    #[test]
    fn no_name_is_said_by_the_generators_fixed_text() {
        let words: BTreeSet<&str> = super::super::derive::FIXED_TEXT
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        for name in all_names() {
            assert!(
                !words.contains(name.to_lowercase().as_str()),
                "{name} occurs in the generators' text"
            );
        }
    }

    #[test]
    fn ids_of_a_set_take_distinct_places() {
        let places: BTreeSet<usize> = global_plan(42).iter().map(|s| slot(&s.id)).collect();
        assert_eq!(places.len(), SET);
        assert!(places.iter().all(|&p| p < SET));
        assert!(slot("handmade_7") < SET);
    }

    /// No identifying value is in more than two profiles of a set, for several seeds,
    /// and every relative's name fits the relation.
    #[test]
    fn no_identifying_value_is_in_more_than_two_profiles_of_a_set() {
        let n = &*NAMES;
        for seed in [42, 1, 7] {
            let dataset = crate::generate::generate(&crate::generate::GenConfig {
                seed,
                generator: crate::generate::Generator::V2,
                ..Default::default()
            });
            let mut seen: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
            for instance in &dataset.instances {
                for fact in &instance.profile.facts {
                    let identifying = fact.predicate.ends_with("'s name")
                        || IDENTIFYING.contains(&fact.predicate.as_str());
                    if identifying {
                        seen.entry(fact.value.clone())
                            .or_default()
                            .insert(&instance.id);
                    }
                    let first = fact.value.split_whitespace().next().unwrap_or("");
                    let female = ["sister's name", "daughter's name", "wife's name"];
                    let male = ["brother's name", "son's name", "husband's name"];
                    if female.contains(&fact.predicate.as_str()) {
                        assert!(n.female.iter().any(|f| f == first), "{}", fact.value);
                    }
                    if male.contains(&fact.predicate.as_str()) {
                        assert!(n.male.iter().any(|f| f == first), "{}", fact.value);
                    }
                }
            }
            assert!(seen.len() > 200, "seed {seed}: {} values", seen.len());
            for (value, ids) in &seen {
                assert!(ids.len() <= 2, "seed {seed}: {value} in {ids:?}");
            }
        }
    }

    /// The predicates of identifying facts, as the profile writes them.
    const IDENTIFYING: [&str; 6] = [
        "primary care doctor",
        "manager",
        "neighbor",
        "building door code",
        "frequent flyer number",
        "home address",
    ];
}
