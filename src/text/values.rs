//! Typed values in a sentence, for the extractive reader: the spans that can answer a
//! question of a given kind — names (runs of capitalised words: people, pets, places,
//! organisations), clock times, dates and periods ("last October", "in the spring of
//! 2019"), durations ("for six years") and quantities ("three times a week").
//!
//! Plain English word rules over the sentence's own words, nothing learnt; a relative
//! date is resolved against the date on which the sentence was said ([`resolve_date`]).

use super::dates::{Period, YearMonth, mentioned_periods};
use crate::text::{MONTHS, NUMBERS_UNDER_TWENTY, TENS, is_stop_word};

/// The kind of a value in a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A run of capitalised words that names someone or something ("Dr. Okafor",
    /// "Lumberton Outfitters").
    Name,
    /// A time of day ("6:15 am", "noon").
    Clock,
    /// A date or a period ("March 3, 2024", "last October", "the spring of 2019").
    Date,
    /// A length of time ("six years", "an hour").
    Duration,
    /// A number or a count ("three", "42", "twice").
    Number,
}

/// A value found in a sentence: its kind and its byte range in the sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// What kind of value it is.
    pub kind: Kind,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
}

/// One word of a sentence as written, with its place.
#[derive(Debug, Clone)]
struct Word<'a> {
    text: &'a str,
    lower: String,
    start: usize,
    end: usize,
    /// Whether only spaces lie between this word and the previous one.
    joined: bool,
}

/// Splits a sentence into words: letters and digits, with apostrophes and hyphens
/// between letters, and `:` or `.` between digits ("6:15", "3.5") kept inside.
fn words(sentence: &str) -> Vec<Word<'_>> {
    let chars: Vec<(usize, char)> = sentence.char_indices().collect();
    let mut out: Vec<Word<'_>> = Vec::new();
    let mut i = 0;
    let mut gap_clean = true;
    while i < chars.len() {
        let (start, c) = chars[i];
        if !c.is_alphanumeric() {
            if !c.is_whitespace() {
                gap_clean = false;
            }
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() {
            let c = chars[j].1;
            let prev = j.checked_sub(1).map(|k| chars[k].1);
            let next = chars.get(j + 1).map(|p| p.1);
            let inner = match c {
                '\'' | '\u{2019}' | '-' => {
                    prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphabetic)
                }
                ':' | '.' | ',' => {
                    prev.is_some_and(|p| p.is_ascii_digit())
                        && next.is_some_and(|n| n.is_ascii_digit())
                }
                _ => c.is_alphanumeric(),
            };
            if !inner {
                break;
            }
            j += 1;
        }
        let end = chars.get(j).map_or(sentence.len(), |p| p.0);
        let text = &sentence[start..end];
        let lower = text.to_lowercase();
        out.push(Word {
            text,
            // A copy with straight apostrophes only where there is a curly one.
            lower: if lower.contains('\u{2019}') {
                lower.replace('\u{2019}', "'")
            } else {
                lower
            },
            start,
            end,
            joined: gap_clean,
        });
        gap_clean = true;
        i = j;
    }
    out
}

/// Capitalised words that do not name anyone or anything on their own.
const NOT_NAMES: &[&str] = &[
    "i",
    "i'm",
    "i've",
    "i'd",
    "i'll",
    "ok",
    "okay",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "user",
    "assistant",
    "hi",
    "hey",
    "hello",
    "thanks",
    "yes",
    "no",
    "oh",
    "sure",
    "great",
    "good",
    "nice",
    "sorry",
    "please",
    "honestly",
    "anyway",
    "also",
    "so",
    "well",
    "right",
    "wow",
];

/// Titles that open a name ("Dr. Okafor").
const TITLES: &[&str] = &["mr", "mrs", "ms", "dr", "prof", "miss", "sir", "st"];

/// Small words that may sit inside a name ("Bank of Ireland", "Kite & Compass").
const NAME_JOINS: &[&str] = &[
    "of", "de", "da", "del", "van", "von", "du", "la", "le", "and",
];

const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

const SEASONS: &[&str] = &["spring", "summer", "autumn", "fall", "winter"];

/// Units of time, singular and plural.
const TIME_UNITS: &[&str] = &[
    "second",
    "seconds",
    "minute",
    "minutes",
    "min",
    "mins",
    "hour",
    "hours",
    "hr",
    "hrs",
    "day",
    "days",
    "week",
    "weeks",
    "fortnight",
    "fortnights",
    "month",
    "months",
    "year",
    "years",
    "decade",
    "decades",
];

/// Words that count without digits.
const COUNT_WORDS: &[&str] = &[
    "hundred", "thousand", "million", "dozen", "half", "once", "twice", "couple", "few", "several",
];

fn is_capitalised(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
}

fn is_number_word(lower: &str) -> bool {
    NUMBERS_UNDER_TWENTY.contains(&lower)
        || TENS.contains(&lower)
        || lower
            .split('-')
            .all(|p| !p.is_empty() && (NUMBERS_UNDER_TWENTY.contains(&p) || TENS.contains(&p)))
}

fn is_numeric(lower: &str) -> bool {
    lower.chars().next().is_some_and(|c| c.is_ascii_digit())
        && lower
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | ':'))
}

/// A count: digits, a number word, or a word that counts ("twice", "a dozen").
fn is_count(lower: &str) -> bool {
    (is_numeric(lower) && !lower.contains(':'))
        || is_number_word(lower)
        || COUNT_WORDS.contains(&lower)
}

fn is_year(lower: &str) -> bool {
    lower.len() == 4
        && (lower.starts_with("19") || lower.starts_with("20"))
        && lower.chars().all(|c| c.is_ascii_digit())
}

/// A day of the month: `3`, `21st`, `third` is left out (too common a word).
fn is_day_number(lower: &str) -> bool {
    let digits: String = lower.chars().take_while(char::is_ascii_digit).collect();
    let rest = &lower[digits.len()..];
    !digits.is_empty()
        && digits.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d))
        && matches!(rest, "" | "st" | "nd" | "rd" | "th")
}

/// Whether a word is a clock time on its own ("6:15", "7am", "noon").
fn clock_word(lower: &str) -> bool {
    if matches!(lower, "noon" | "midnight") {
        return true;
    }
    if let Some((h, m)) = lower.split_once(':') {
        let m = m.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        return h.parse::<u32>().is_ok_and(|h| h <= 24)
            && m.len() == 2
            && m.parse::<u32>().is_ok_and(|m| m < 60);
    }
    for suffix in ["am", "pm"] {
        if let Some(h) = lower.strip_suffix(suffix) {
            return h.parse::<u32>().is_ok_and(|h| (1..=12).contains(&h));
        }
    }
    false
}

fn is_meridiem(lower: &str) -> bool {
    matches!(lower, "am" | "pm" | "a.m" | "p.m" | "o'clock")
}

/// The typed values of a sentence, in order. Overlapping finds keep the first kind
/// tried: clock times, then dates, then durations, then numbers, then names.
pub fn spans(sentence: &str) -> Vec<Span> {
    let words = words(sentence);
    let mut taken = vec![false; words.len()];
    let mut out = Vec::new();
    let mut push = |kind: Kind, from: usize, to: usize, taken: &mut Vec<bool>| {
        if (from..=to).any(|k| taken[k]) {
            return;
        }
        for t in taken.iter_mut().take(to + 1).skip(from) {
            *t = true;
        }
        out.push(Span {
            kind,
            start: words[from].start,
            end: words[to].end,
        });
    };
    let lower = |k: usize| words.get(k).map_or("", |w| w.lower.as_str());
    // Clock times.
    for i in 0..words.len() {
        let w = lower(i);
        let hour = w.parse::<u32>().is_ok_and(|h| (1..=12).contains(&h));
        if clock_word(w) || (hour && matches!(lower(i + 1), "am" | "pm" | "a" | "p")) {
            let mut to = i;
            if is_meridiem(lower(i + 1)) || matches!(lower(i + 1), "a" | "p") {
                to = i + 1;
            }
            push(Kind::Clock, i, to, &mut taken);
        }
    }
    // Dates and periods.
    let mut i = 0;
    while i < words.len() {
        let w = lower(i);
        let month = MONTHS.contains(&w)
            && (!matches!(w, "may" | "march")
                || is_capitalised(words[i].text)
                    && (is_day_number(lower(i + 1))
                        || is_year(lower(i + 1))
                        || i >= 1 && (lower(i - 1) == "of" || is_day_number(lower(i - 1)))));
        let relative = matches!(w, "last" | "this" | "next" | "past")
            && (TIME_UNITS.contains(&lower(i + 1))
                || SEASONS.contains(&lower(i + 1))
                || MONTHS.contains(&lower(i + 1))
                || WEEKDAYS.contains(&lower(i + 1))
                || matches!(lower(i + 1), "weekend" | "night" | "christmas" | "easter"));
        let ago = (is_count(w) || matches!(w, "a" | "an"))
            && TIME_UNITS.contains(&lower(i + 1))
            && lower(i + 2) == "ago";
        let single = month
            || is_year(w)
            || WEEKDAYS.contains(&w)
            || (SEASONS.contains(&w) && (w != "fall" || is_year(lower(i + 1))))
            || matches!(w, "yesterday" | "today" | "tonight");
        if !(single || relative || ago) {
            i += 1;
            continue;
        }
        let mut from = i;
        // "the spring of 2019", "early March", "3rd of June", "June 3".
        if from >= 1 && matches!(lower(from - 1), "early" | "late" | "mid" | "the") {
            from -= 1;
        }
        if month && i >= 2 && lower(i - 1) == "of" && is_day_number(lower(i - 2)) {
            from = i - 2;
            if from >= 1 && lower(from - 1) == "the" {
                from -= 1;
            }
        } else if month && i >= 1 && is_day_number(lower(i - 1)) {
            from = i - 1;
        }
        let mut to = i;
        loop {
            let n = lower(to + 1);
            let after = lower(to + 2);
            if (is_day_number(n) && words[to + 1].joined && MONTHS.contains(&lower(to)))
                || is_year(n)
                || (matches!(n, "of" | "in") && is_year(after))
                || (relative || ago) && to < i + 2 && !n.is_empty() && to == i && {
                    TIME_UNITS.contains(&n)
                        || SEASONS.contains(&n)
                        || MONTHS.contains(&n)
                        || WEEKDAYS.contains(&n)
                        || matches!(n, "weekend" | "night" | "christmas" | "easter")
                }
                || (ago && n == "ago")
            {
                to += 1;
            } else {
                break;
            }
        }
        push(Kind::Date, from, to, &mut taken);
        i = to + 1;
    }
    // Durations: a count or "a"/"an" and a unit of time, not "ago".
    for i in 0..words.len() {
        let w = lower(i);
        let counted = is_count(w) || matches!(w, "a" | "an" | "few" | "couple");
        let mut unit = i + 1;
        while matches!(
            lower(unit),
            "and" | "a" | "half" | "more" | "of" | "or" | "so"
        ) {
            unit += 1;
        }
        if counted && unit <= i + 3 && TIME_UNITS.contains(&lower(unit)) && lower(unit + 1) != "ago"
        {
            let mut to = unit;
            // "an hour each way", "two hours a week".
            if matches!(lower(to + 1), "each" | "a" | "per" | "every")
                && matches!(
                    lower(to + 2),
                    "way" | "day" | "week" | "month" | "year" | "night" | "session"
                )
            {
                to += 2;
            }
            push(Kind::Duration, i, to, &mut taken);
        }
    }
    // Numbers, with the word they count.
    for i in 0..words.len() {
        let w = lower(i);
        if (is_count(w) && !matches!(w, "few" | "several" | "couple" | "half"))
            || (w == "a" && lower(i + 1) == "dozen")
        {
            let mut to = i;
            while to + 1 < words.len()
                && to < i + 2
                && (is_count(lower(to + 1)) || lower(to + 1) == "dozen")
            {
                to += 1;
            }
            if to + 1 < words.len() && !is_stop_word(lower(to + 1)) && words[to + 1].joined {
                to += 1;
            }
            push(Kind::Number, i, to, &mut taken);
        }
    }
    // Names: runs of capitalised words.
    let mut i = 0;
    while i < words.len() {
        let starts_name = |k: usize| {
            words.get(k).is_some_and(|w| {
                is_capitalised(w.text)
                    && w.text.chars().any(char::is_alphabetic)
                    && !NOT_NAMES.contains(&w.lower.as_str())
                    && !(k == 0 && is_stop_word(w.lower.split('\'').next().unwrap_or("")))
            }) || words
                .get(k)
                .is_some_and(|w| TITLES.contains(&w.lower.as_str()) && is_capitalised(w.text))
        };
        if !starts_name(i) || taken[i] {
            i += 1;
            continue;
        }
        let mut to = i;
        loop {
            let next = to + 1;
            if next < words.len() && !taken[next] && starts_name(next) {
                to = next;
            } else if next + 1 < words.len()
                && NAME_JOINS.contains(&lower(next))
                && !taken[next + 1]
                && starts_name(next + 1)
            {
                to = next + 1;
            } else if next < words.len()
                && !words[next].joined
                && sentence[words[to].end..words[next].start].trim() == "&"
                && starts_name(next)
            {
                to = next;
            } else {
                break;
            }
        }
        let only_title = from_title_only(&words[i..=to]);
        // A capitalised word opening the sentence is a name only when the name runs on
        // ("Summit Bank holds …") or the sentence is little more than it ("Pickle.").
        let opening = i == 0 && to == 0 && words.len() > 3;
        let common = to == i && (MONTHS.contains(&lower(i)) || SEASONS.contains(&lower(i)));
        if !only_title && !opening && !common {
            push(Kind::Name, i, to, &mut taken);
        }
        i = to + 1;
    }
    out.sort_by_key(|s| s.start);
    out
}

fn from_title_only(run: &[Word<'_>]) -> bool {
    run.iter().all(|w| TITLES.contains(&w.lower.as_str()))
}

/// Whether a date span places itself in time without the date it was said on: it
/// names a year.
pub fn is_absolute(span_text: &str) -> bool {
    words(span_text).iter().any(|w| is_year(&w.lower))
}

/// The month or period a date span names, resolved against `said_on` (`YYYY-MM-DD…`,
/// the time of the memory): "last October" said on 2024-03-02 → "October 2023".
/// `None` when the span needs no resolving (it names its year) or cannot be placed.
pub fn resolve_date(span_text: &str, said_on: &str) -> Option<String> {
    if is_absolute(span_text) {
        return None;
    }
    let today = YearMonth::parse(said_on.get(..7)?)?;
    let period = mentioned_periods(span_text, Some(today))
        .into_iter()
        .next()?;
    Some(render(period))
}

/// How long ago, on `now` (`YYYY-MM…`), the month or year a date span names began, in
/// years rounded to the nearest ("2 years"), or in months under a year ("5 months"):
/// "June 2018" on 2025-08-01 → "7 years", on 2025-03-01 → "7 years" too. `None` when the span names no year or `now` is no date.
pub fn elapsed(span_text: &str, now: &str) -> Option<String> {
    if !is_absolute(span_text) {
        return None;
    }
    let now = YearMonth::parse(now.get(..7)?)?;
    let start = mentioned_periods(span_text, None).into_iter().next()?.start;
    let months = (now.year - start.year) * 12 + now.month as i32 - start.month as i32;
    match months {
        ..=0 => None,
        1..=11 => Some(format!(
            "{months} month{}",
            if months == 1 { "" } else { "s" }
        )),
        _ => {
            let years = (months + 6) / 12;
            Some(format!("{years} year{}", if years == 1 { "" } else { "s" }))
        }
    }
}

fn month_name(month: u32) -> String {
    let name = MONTHS[(month - 1) as usize];
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A period in words: "October 2023", "2023", "spring 2023", "March to May 2023".
fn render(period: Period) -> String {
    let (s, e) = (period.start, period.end);
    if s == e {
        return format!("{} {}", month_name(s.month), s.year);
    }
    if s.month == 1 && e.month == 12 && s.year == e.year {
        return s.year.to_string();
    }
    if e == s.plus(2) {
        let season = match s.month {
            3 => Some("spring"),
            6 => Some("summer"),
            9 => Some("autumn"),
            12 => Some("winter"),
            _ => None,
        };
        if let Some(season) = season {
            return format!("{season} {}", s.year);
        }
    }
    format!(
        "{} {} to {} {}",
        month_name(s.month),
        s.year,
        month_name(e.month),
        e.year
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(sentence: &str) -> Vec<(Kind, &str)> {
        spans(sentence)
            .into_iter()
            .map(|s| (s.kind, &sentence[s.start..s.end]))
            .collect()
    }

    fn of_kind(sentence: &str, kind: Kind) -> Vec<&str> {
        found(sentence)
            .into_iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, t)| t)
            .collect()
    }

    #[test]
    fn names_are_runs_of_capitalised_words() {
        assert_eq!(
            of_kind(
                "My sister Hannah banks with Bank of Ireland now.",
                Kind::Name
            ),
            ["Hannah", "Bank of Ireland"]
        );
        assert_eq!(
            of_kind("We finally saw Dr. Adebayo about my knee.", Kind::Name),
            ["Dr. Adebayo"]
        );
        assert_eq!(
            of_kind("I design shop fronts for Pike & Hollow.", Kind::Name),
            ["Pike & Hollow"]
        );
        assert_eq!(of_kind("Pickle.", Kind::Name), ["Pickle"]);
        assert!(
            of_kind("Honestly I think the roof leaks again.", Kind::Name).is_empty(),
            "an opening capital alone is no name"
        );
        assert!(of_kind("I'm fine, and I said so.", Kind::Name).is_empty());
        assert!(of_kind("What's her name?", Kind::Name).is_empty());
    }

    #[test]
    fn clock_times() {
        assert_eq!(
            of_kind("The alarm goes off at 5:40 am on weekdays.", Kind::Clock),
            ["5:40 am"]
        );
        assert_eq!(of_kind("Lights out by 11pm for me.", Kind::Clock), ["11pm"]);
        assert_eq!(of_kind("We eat at noon.", Kind::Clock), ["noon"]);
    }

    #[test]
    fn dates_and_periods() {
        assert_eq!(
            of_kind(
                "I had the operation last October and it healed.",
                Kind::Date
            ),
            ["last October"]
        );
        assert_eq!(
            of_kind("We moved here in the spring of 2019.", Kind::Date),
            ["the spring of 2019"]
        );
        assert_eq!(
            of_kind("The lease started on June 3, 2021.", Kind::Date),
            ["June 3, 2021"]
        );
        assert_eq!(
            of_kind("I broke my wrist two years ago.", Kind::Date),
            ["two years ago"]
        );
        assert!(of_kind("You may be right.", Kind::Date).is_empty());
        assert_eq!(
            of_kind("My birthday is on the 14th of March.", Kind::Date),
            ["the 14th of March"]
        );
    }

    #[test]
    fn durations_and_numbers() {
        assert_eq!(
            of_kind("I've been teaching for six years now.", Kind::Duration),
            ["six years"]
        );
        assert_eq!(
            of_kind("The drive is about an hour each way.", Kind::Duration),
            ["an hour each way"]
        );
        assert_eq!(
            of_kind("We have three kids and 2 cats.", Kind::Number),
            ["three kids", "2 cats"]
        );
    }

    #[test]
    fn relative_dates_are_placed_on_the_day_they_were_said() {
        assert_eq!(
            resolve_date("last October", "2024-03-02T00:00:05").as_deref(),
            Some("October 2023")
        );
        assert_eq!(
            resolve_date("in the spring", "2022-09-10").as_deref(),
            Some("spring 2022")
        );
        assert_eq!(
            resolve_date("last year", "2022-09-10").as_deref(),
            Some("2021")
        );
        assert_eq!(
            resolve_date("June 2021", "2024-01-01"),
            None,
            "already placed"
        );
        assert_eq!(resolve_date("last October", "not a date"), None);
        assert_eq!(
            elapsed("June 2018", "2025-08-01").as_deref(),
            Some("7 years")
        );
        assert_eq!(elapsed("in 2024", "2025-03-01").as_deref(), Some("1 year"));
        assert_eq!(
            elapsed("March 2025", "2025-08-01").as_deref(),
            Some("5 months")
        );
        assert_eq!(elapsed("last June", "2025-08-01"), None);
    }
}
