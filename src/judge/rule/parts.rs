//! The distinctive parts of a value: what reveals part of it. An answer that names
//! `Marchetti` reveals part of `Dr. Marchetti`; "sometime in May 1993" reveals part of
//! `May 11, 1993`; "something with kiwi" reveals part of `kiwi fruit`; "a kind of
//! fruit" reveals nothing.
//!
//! A part is one of:
//! - a **number** of two or more digits (`83` of `83 Sycamore Court`, `68000`), except
//!   the day of a date and the minutes of a clock time on their own;
//! - for a **date**, its year, and its year with its month (`1993`, `May 1993`);
//! - for a **clock time**, the hour with its minutes (`6:15` of `6:15 am`);
//! - a **rare word**: a word of three or more letters that is not among the common
//!   English words of `data/judge/common-20.txt` and `common-10.txt` (`kiwi`,
//!   `Sycamore`, `penicillin`);
//! - a **name**: a word written with a capital in the value, of three or more letters,
//!   that is not among the most common words (`common-10.txt`) nor a word for a kind
//!   of street or a title (`Seattle`, `Rose` of `Rose Garcia`; not `Court`, not `Dr`).
//!
//! A value of one word has no parts: the word is the value. Words of the question do
//! not count, since an answer that repeats the question reveals nothing.

use crate::text::MONTHS;
use crate::text::fold::fold;
use crate::text::normalize::Text;
use std::collections::HashSet;
use std::sync::LazyLock;

/// The most common English words (SCOWL size 10).
static COMMON_10: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../../data/judge/common-10.txt")
        .lines()
        .collect()
});

/// Less common, still ordinary English words (SCOWL size 20).
static COMMON_20: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../../data/judge/common-20.txt")
        .lines()
        .collect()
});

/// Words naming a kind of street, place or organisation, and titles: capitalised in
/// addresses and names (`Butler Trail`, `Mercy Hospital`), never distinctive on their
/// own.
#[rustfmt::skip]
const PLACE_AND_TITLE_WORDS: &[&str] = &[
    "street", "road", "lane", "avenue", "court", "drive", "dr", "boulevard", "way", "place",
    "terrace", "circle", "highway", "parkway", "square", "apartment", "suite", "unit",
    "floor", "building", "mount", "north", "south", "east", "west", "mrs", "miss",
    "professor", "trail", "park", "lake", "river", "creek", "bay", "beach", "hill", "hills",
    "valley", "mountain", "mountains", "forest", "garden", "gardens", "center", "centre",
    "hospital", "clinic", "school", "academy", "college", "university", "institute",
    "library", "museum", "church", "station", "airport", "bridge", "island", "county",
    "city", "town", "village", "state", "company", "group", "bank", "cafe", "restaurant",
    "bar", "gym", "club", "hotel", "market", "store", "shop", "mall", "plaza", "tower",
    "hall", "house", "farm", "center", "studio", "studios", "office", "department",
    "senior", "junior", "saint", "fort", "port", "harbor", "harbour", "point", "springs",
    "falls", "heights", "grove", "woods", "field", "fields", "ridge", "glen", "meadow",
];

/// Whether `word` names a kind of street, place or organisation, or is a title.
pub(crate) fn is_place_word(word: &str) -> bool {
    PLACE_AND_TITLE_WORDS.contains(&word)
}

/// Whether `word` (lower case) is an ordinary English word.
pub(crate) fn is_common(word: &str) -> bool {
    COMMON_10.contains(word) || COMMON_20.contains(word)
}

fn is_number(token: &str) -> bool {
    !token.is_empty() && token.chars().all(|c| c.is_ascii_digit() || c == '.')
}

fn is_year(token: &str) -> bool {
    token.len() == 4
        && token.chars().all(|c| c.is_ascii_digit())
        && token
            .parse::<u32>()
            .is_ok_and(|y| (1000..=2999).contains(&y))
}

/// The lower-case words written with a capital in `written`.
fn capitalised(written: &str) -> HashSet<String> {
    fold(written)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .map(str::to_lowercase)
        .collect()
}

/// The lower-case words written with a capital inside the sentences of `text` (a
/// sentence's first word does not count: it is capitalised anyway).
pub(crate) fn names_in(text: &str) -> HashSet<String> {
    let folded = fold(text);
    let mut names = HashSet::new();
    let mut sentence_start = true;
    for word in folded.split_inclusive(|c: char| !c.is_alphanumeric()) {
        let core: String = word.chars().take_while(|c| c.is_alphanumeric()).collect();
        if !core.is_empty() {
            if !sentence_start && core.chars().next().is_some_and(char::is_uppercase) {
                names.insert(core.to_lowercase());
            }
            sentence_start = false;
        }
        if word.ends_with(['.', '!', '?', '\n']) {
            sentence_start = true;
        }
    }
    names
}

/// Whether a word token is distinctive: rare, or a name.
pub(crate) fn distinctive_word(token: &str, capitalised: bool) -> bool {
    if token.chars().count() < 3 || !token.chars().all(char::is_alphabetic) {
        return false;
    }
    if !is_common(token) {
        return true;
    }
    capitalised && !COMMON_10.contains(token) && !PLACE_AND_TITLE_WORDS.contains(&token)
}

/// The distinctive parts of the value `written`, as token runs of its main reading.
pub(crate) fn distinctive_parts(written: &str, value: &Text) -> Vec<Vec<String>> {
    let tokens = value.tokens();
    let meaningful = tokens
        .iter()
        .filter(|t| !matches!(t.as_str(), "a" | "an" | "the"))
        .count();
    if meaningful < 2 {
        return Vec::new();
    }
    let capitals = capitalised(written);
    let month_at = tokens.iter().position(|t| MONTHS.contains(&t.as_str()));
    let year_at = tokens.iter().position(|t| is_year(t));
    let is_date = month_at.is_some() && year_at.is_some();
    let mut parts: Vec<Vec<String>> = Vec::new();
    let mut push = |part: Vec<String>| {
        if !parts.contains(&part) {
            parts.push(part);
        }
    };
    if let (Some(m), Some(y)) = (month_at, year_at)
        && y + 1 == m
    {
        push(vec![tokens[y].clone(), tokens[m].clone()]);
    }
    for (i, token) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(String::as_str);
        let after = tokens.get(i + 2).map(String::as_str);
        if is_number(token) {
            // A clock time: the hour with its minutes.
            if token.len() <= 2 && next.is_some_and(|n| n.len() == 2 && is_number(n)) {
                if matches!(after, Some("am" | "pm")) || !is_date {
                    push(vec![token.clone(), next.unwrap_or_default().to_string()]);
                }
                continue;
            }
            let minutes = i > 0 && token.len() == 2 && is_number(&tokens[i - 1]);
            let day = is_date && !is_year(token);
            if token.len() >= 2 && !minutes && !day {
                push(vec![token.clone()]);
            }
            continue;
        }
        if MONTHS.contains(&token.as_str()) && is_date {
            continue;
        }
        if distinctive_word(token, capitals.contains(token.as_str())) {
            push(vec![token.clone()]);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(value: &str) -> Vec<String> {
        distinctive_parts(value, &Text::value(value))
            .into_iter()
            .map(|p| p.join(" "))
            .collect()
    }

    #[test]
    fn names_rare_words_and_numbers_are_parts() {
        assert_eq!(parts("83 Sycamore Court"), ["83", "sycamore"]);
        assert_eq!(parts("kiwi fruit"), ["kiwi"]);
        assert_eq!(parts("Rose Garcia"), ["rose", "garcia"]);
        assert_eq!(parts("Dell XPS 13"), ["dell", "xps", "13"]);
        assert_eq!(parts("Seattle, Washington"), ["seattle", "washington"]);
    }

    #[test]
    fn dates_reveal_their_year_and_month() {
        assert_eq!(parts("May 11, 1993"), ["1993 may", "1993"]);
        assert_eq!(parts("December 2024"), ["2024 december", "2024"]);
    }

    #[test]
    fn clock_times_reveal_hour_and_minutes() {
        assert_eq!(parts("6:15 am"), ["6 15"]);
    }

    #[test]
    fn ordinary_words_and_one_word_values_have_no_parts() {
        assert!(parts("B negative").is_empty());
        assert!(parts("Imogen").is_empty());
        assert!(parts("the Golden").is_empty());
        assert!(parts("computer science").is_empty());
        assert!(parts("3 cats").is_empty());
    }
}
