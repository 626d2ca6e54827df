//! Text normalisation, for the rule judge, the oracle reader and the checks of realised
//! text: turns an answer, a gold value or a phrase
//! into sequences of canonical word tokens, so that spellings that mean the same
//! value compare equal.
//!
//! What is folded, in order:
//! 1. Unicode ([`fold`](super::fold)): compatibility forms, accents, invisible format
//!    characters, Latin look-alike letters, dashes, quotes, spaces, signed blood
//!    groups, thumbs and check marks; then case;
//! 2. clock times into one form: `06:15`, `6:15 a.m.`, `6:15 in the morning` all
//!    become `6 15 am`, `18:15` becomes `6 15 pm`; a time without any sign of the part
//!    of the day (`6:15`) stays `6 15`;
//! 3. ISO dates (`2024-06-05`, `2024-06`, `2024/06/05`) and numeric dates
//!    (`5/11/1993`, `11/5/93`, `12/2024`) into words (`1993 may 11`); a numeric date
//!    whose day and month could be swapped is read month first, and day first in an
//!    alternative reading (see *readings* below);
//! 4. punctuation and whitespace (tokens are runs of letters and digits; `3,500`
//!    becomes `3500`, `3.5` stays one token, `a.m.` becomes `am`);
//! 5. contractions (`don't` → `do not`, `it's` → `it is`, `cannot` → `can not`),
//!    possessive `'s` (dropped), ordinal suffixes (`5th` → `5`), `6pm` → `6 pm`,
//!    `68k` → `68000`, and common abbreviations read as their word (`Ct.` → `court`,
//!    `Ave` → `avenue`, `neg` → `negative`; `doctor`, `drive` and `Dr.` all become `dr`);
//! 6. number words up to the millions, cardinal and ordinal (`twenty-first` → `21`),
//!    and digits before a scale word (`68 thousand` → `68000`, `40 grand` → `40000`);
//!    decimals in words (`seventy-two point five` → `72.5`);
//! 7. dates in words into one order: `June 5, 2024`, `5 June 2024` and
//!    `Jun 5th 2024` all become `2024 june 5`; `June 2024` becomes `2024 june`, so a
//!    month-level value is found inside a day-level date;
//! 8. lengths of time in hours and minutes into one form: `7 hours 30 minutes`,
//!    `seven hours and thirty minutes` and `seven and a half hours` all become
//!    `7.5 hours` (quarters of an hour as decimals), `7 hrs 10 mins` becomes
//!    `7 hours 10 minutes`, and `an hour and a half` becomes `1.5 hours`.
//!
//! **Readings.** A [`Text`] keeps its main token sequence and alternative readings:
//! the day-first reading of an ambiguous numeric date, and a reading in which a
//! value spelled out with separators is joined up again: a run of three or more
//! single letters or digits (`I m o g e n`, `I-m-o-g-e-n`, `4 4 1 7`, also from
//! `four four one seven`) becomes one word, and so does a run of short numbers
//! (`44 17` → `4417`). A value given with a leading title (`Dr. Marchetti`) is also
//! read without it. Matching succeeds when any reading of the text holds any reading
//! of the value.
//!
//! Matching ([`Text::contains`]) compares whole tokens, so `Ann` never matches
//! `Annual`, and ignores the articles `a`, `an`, `the` unless the value is made of
//! articles only.

mod clock;
mod numbers;
mod numeric_dates;
mod words;

use numbers::*;

use words::*;

use numeric_dates::*;

use super::fold::fold;
use crate::text::{MONTHS, NUMBERS_UNDER_TWENTY, TENS};
use clock::*;
use std::borrow::Cow;

/// One reading of a text: its tokens, with and without articles.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reading {
    tokens: Vec<String>,
    bare: Vec<String>,
}

impl Reading {
    fn new(tokens: Vec<String>) -> Reading {
        let bare = tokens.iter().filter(|t| !is_article(t)).cloned().collect();
        Reading { tokens, bare }
    }

    fn contains(&self, needle: &Reading) -> bool {
        if needle.tokens.is_empty() {
            return false;
        }
        if needle.bare.is_empty() {
            contains_run(&self.tokens, &needle.tokens)
        } else {
            contains_run(&self.bare, &needle.bare)
        }
    }
}

/// A normalised text: its canonical tokens and its alternative readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text {
    /// The main reading first, then the alternatives, without duplicates.
    readings: Vec<Reading>,
}

/// Titles read off the front of a value (`Dr. Marchetti` is also `Marchetti`).
const TITLES: [&str; 7] = ["dr", "mr", "mrs", "ms", "miss", "prof", "professor"];

/// Whether `token` (normalised) is a title such as `dr` or `mrs`.
pub(crate) fn is_title(token: &str) -> bool {
    TITLES.contains(&token)
}

impl Text {
    /// Normalises `text`.
    pub(crate) fn new(text: &str) -> Text {
        Text {
            readings: token_readings(text).into_iter().map(Reading::new).collect(),
        }
    }

    /// Normalises a value (a gold or a leak value): like [`Text::new`], with a further
    /// reading without a leading title.
    pub(crate) fn value(text: &str) -> Text {
        let mut value = Text::new(text);
        let untitled: Vec<Reading> = value
            .readings
            .iter()
            .filter(|r| r.tokens.len() > 1 && TITLES.contains(&r.tokens[0].as_str()))
            .map(|r| Reading::new(r.tokens[1..].to_vec()))
            .collect();
        for reading in untitled {
            if !value.readings.contains(&reading) {
                value.readings.push(reading);
            }
        }
        value
    }

    /// The canonical tokens of the main reading.
    pub(crate) fn tokens(&self) -> &[String] {
        &self.readings[0].tokens
    }

    /// The tokens of every reading, main reading first (repeats included).
    pub(crate) fn all_tokens(&self) -> impl Iterator<Item = &String> {
        self.readings.iter().flat_map(|r| r.tokens.iter())
    }

    /// Each reading's tokens, with articles and without, main reading first.
    pub(crate) fn reading_tokens(&self) -> impl Iterator<Item = (&[String], &[String])> {
        self.readings
            .iter()
            .map(|r| (r.tokens.as_slice(), r.bare.as_slice()))
    }

    /// Whether the text has no token at all (only punctuation or blanks).
    pub(crate) fn is_empty(&self) -> bool {
        self.readings[0].tokens.is_empty()
    }

    /// Whether some reading of `needle` occurs in some reading of this text as a run of
    /// whole tokens.
    pub(crate) fn contains(&self, needle: &Text) -> bool {
        needle
            .readings
            .iter()
            .any(|n| self.readings.iter().any(|r| r.contains(n)))
    }

    /// Whether the token run `needle` (already normalised) occurs in some reading of
    /// this text.
    pub(crate) fn contains_tokens(&self, needle: &[String]) -> bool {
        let needle = Reading::new(needle.to_vec());
        self.readings.iter().any(|r| r.contains(&needle))
    }
}

/// The tokens of each reading of `text` (see the module documentation), main reading
/// first, without duplicates: what [`Text::new`] reads, without the readings' tokens
/// without articles.
pub(crate) fn token_readings(text: &str) -> Vec<Vec<String>> {
    with_singulars(readings_before_singulars(text), |t: &String| singular_of(t))
}

/// The tokens of each reading of `text` but those in the singular, in the order
/// [`token_readings`] lists them, duplicates included.
pub(crate) fn readings_before_singulars(text: &str) -> Vec<Vec<String>> {
    let lowered = lower(text);
    let iso = where_needed(&lowered, digit_before_separator, rewrite_iso_dates);
    let month_first = where_needed(&iso, digit_before_separator, |t| {
        rewrite_numeric_dates(t, DateOrder::MonthFirst)
    });
    let mut sequences = vec![tokens_after_dates(&month_first)];
    let day_first = where_needed(&iso, digit_before_separator, |t| {
        rewrite_numeric_dates(t, DateOrder::DayFirst)
    });
    // Without an ambiguous numeric date the day-first reading is the main one (and
    // so is everything read from it): it is only worked out when it differs.
    if day_first != month_first {
        sequences.push(tokens_after_dates(&day_first));
    }
    if let Some(unhyphenated) = join_hyphenated(&lowered) {
        sequences.push(tokens_of(&unhyphenated, DateOrder::MonthFirst));
    }
    if may_hold_roman_numeral(text)
        && let Some(arabic) = roman_numerals(text)
    {
        sequences.push(tokens_of(&lower(&arabic), DateOrder::MonthFirst));
    }
    let joined: Vec<Vec<String>> = sequences
        .iter()
        .filter_map(|t| join_spelled(t))
        .map(|t| if names_a_month(&t) { dates(&t) } else { t })
        .collect();
    sequences.extend(joined);
    sequences
}

/// `sequences` followed by their readings with plural nouns in the singular, without
/// duplicates (the first of equal sequences kept). `singular_of` gives the singular of
/// a token that is a plural noun and `None` for any other: [`singular_of`] on words, or
/// the same on tokens that stand for words. A sequence without plurals has no singular
/// reading.
pub(crate) fn with_singulars<T: Clone + PartialEq>(
    mut sequences: Vec<Vec<T>>,
    singular_of: impl Fn(&T) -> Option<T>,
) -> Vec<Vec<T>> {
    let singular: Vec<Vec<T>> = sequences
        .iter()
        .filter_map(|tokens| each_changed(tokens, &singular_of))
        .collect();
    sequences.extend(singular);
    let mut distinct: Vec<Vec<T>> = Vec::with_capacity(sequences.len());
    for tokens in sequences {
        if !distinct.contains(&tokens) {
            distinct.push(tokens);
        }
    }
    distinct
}

/// `tokens` with each token `change` changes changed, `None` when it changes none. The
/// tokens are copied only once one changes.
fn each_changed<T: Clone>(tokens: &[T], change: impl Fn(&T) -> Option<T>) -> Option<Vec<T>> {
    let mut out: Option<Vec<T>> = None;
    for (i, token) in tokens.iter().enumerate() {
        match (change(token), &mut out) {
            (Some(changed), Some(out)) => out.push(changed),
            (Some(changed), None) => {
                let mut copy = tokens[..i].to_vec();
                copy.push(changed);
                out = Some(copy);
            }
            (None, Some(out)) => out.push(token.clone()),
            (None, None) => {}
        }
    }
    out
}

/// `text` with its Roman numerals written in digits (`Chapter XII` → `Chapter 12`), if
/// it has any: words of two or more capital letters `IVXLCDM` in canonical form
/// (`XIV`, never `IIII`). A reading of its own, so a text keeps its letters too
/// (`MD` stays a title in the main reading).
fn roman_numerals(text: &str) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let mut flush = |word: &mut String, out: &mut String| {
        match roman_value(word) {
            Some(n) => {
                out.push_str(&n.to_string());
                changed = true;
            }
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    changed.then_some(out)
}

/// Whether `text` may hold a Roman numeral: a word of two or more of the capitals
/// `IVXLCDM` has two of them in a row. Without, [`roman_numerals`] finds none.
fn may_hold_roman_numeral(text: &str) -> bool {
    let numeral = |b: &u8| b"IVXLCDM".contains(b);
    text.as_bytes()
        .windows(2)
        .any(|w| numeral(&w[0]) && numeral(&w[1]))
}

/// The value of a canonical Roman numeral of two or more capitals, up to 3999.
fn roman_value(word: &str) -> Option<u32> {
    if word.len() < 2 || !word.chars().all(|c| "IVXLCDM".contains(c)) {
        return None;
    }
    let digit = |c: char| match c {
        'I' => 1,
        'V' => 5,
        'X' => 10,
        'L' => 50,
        'C' => 100,
        'D' => 500,
        _ => 1000,
    };
    let digits: Vec<u32> = word.chars().map(digit).collect();
    let mut value = 0u32;
    for (i, &d) in digits.iter().enumerate() {
        if digits.get(i + 1).is_some_and(|&next| next > d) {
            value = value.checked_sub(d)?;
        } else {
            value += d;
        }
    }
    (value > 0 && value < 4000 && to_roman(value) == word).then_some(value)
}

/// `n` (1–3999) as a canonical Roman numeral.
fn to_roman(mut n: u32) -> String {
    const PARTS: [(u32, &str); 13] = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ];
    let mut out = String::new();
    for (value, letters) in PARTS {
        while n >= value {
            out.push_str(letters);
            n -= value;
        }
    }
    out
}

/// Whether `needle` is a contiguous run of `hay`.
pub(crate) fn contains_run(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty()
        && needle.len() <= hay.len()
        && hay.windows(needle.len()).any(|w| w == needle)
}

fn is_article(token: &str) -> bool {
    matches!(token, "a" | "an" | "the")
}

/// The canonical tokens of `text`'s main reading (see the module documentation).
pub(crate) fn normalize(text: &str) -> Vec<String> {
    tokens_of(&lower(text), DateOrder::MonthFirst)
}

/// How an ambiguous numeric date (`5/11/1993`) is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DateOrder {
    MonthFirst,
    DayFirst,
}

/// Unicode-folded, lower-cased text with `a.m.`/`p.m.` joined and clock times in one
/// form.
fn lower(text: &str) -> String {
    let mut lowered = if text.is_ascii() {
        lower_ascii(text)
    } else {
        lower_unicode(text)
    };
    // Each is rewritten in a copy only where it occurs.
    for (from, to) in [("a.m.", "am"), ("p.m.", "pm"), ("a.m", "am"), ("p.m", "pm")] {
        if lowered.contains(from) {
            lowered = lowered.replace(from, to);
        }
    }
    if may_hold_time(&lowered) {
        rewrite_times(&lowered)
    } else {
        lowered
    }
}

/// Unicode-folded, lower-cased text.
fn lower_unicode(text: &str) -> String {
    fold(&vulgar_fractions(text)).to_lowercase()
}

/// [`lower_unicode`] of ASCII text, which holds no vulgar fraction, folds to ASCII and
/// lowers letter by letter.
fn lower_ascii(text: &str) -> String {
    let mut folded = fold(text);
    folded.make_ascii_lowercase();
    folded
}

/// Vulgar fractions as decimals: `10½` → `10.5`, `¾` → `0.75`.
fn vulgar_fractions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev_digit = false;
    for c in text.chars() {
        let decimal = match c {
            '\u{00BD}' => Some("5"),
            '\u{00BC}' => Some("25"),
            '\u{00BE}' => Some("75"),
            _ => None,
        };
        match decimal {
            Some(d) if prev_digit => {
                out.push('.');
                out.push_str(d);
            }
            Some(d) => {
                out.push_str("0.");
                out.push_str(d);
            }
            None => out.push(c),
        }
        prev_digit = c.is_ascii_digit();
    }
    out
}

fn tokens_of(lowered: &str, order: DateOrder) -> Vec<String> {
    let iso = where_needed(lowered, digit_before_separator, rewrite_iso_dates);
    tokens_after_dates(&where_needed(&iso, digit_before_separator, |t| {
        rewrite_numeric_dates(t, order)
    }))
}

/// `text` through `pass`, or `text` itself where `may_change` shows that the pass
/// would leave it as it is.
fn where_needed<'t>(
    text: &'t str,
    may_change: fn(&str) -> bool,
    pass: impl FnOnce(&str) -> String,
) -> Cow<'t, str> {
    if may_change(text) {
        Cow::Owned(pass(text))
    } else {
        Cow::Borrowed(text)
    }
}

/// The tokens of lowered text whose numeric dates are already rewritten.
fn tokens_after_dates(numeric: &str) -> Vec<String> {
    let words = split_words(numeric);
    let mut expanded = Vec::with_capacity(words.len());
    for word in words {
        expand(word, &mut expanded);
    }
    let numbered = numbers(expanded);
    let dated = if names_a_month(&numbered) {
        dates(&numbered)
    } else {
        numbered
    };
    let timed = if counts_hours(&dated) {
        durations(&dated)
    } else {
        dated
    };
    frequencies(timed)
}

/// Lengths of time in one form: hours and minutes (`7 hours 30 minutes`, `7 hrs and
/// 30 mins`, `7 hours and a half`, `an hour and a half`) become hours, with a quarter,
/// half or three quarters as a decimal (`7.5 hours`); other minutes stay beside the
/// hours (`7 hours 10 minutes`).
fn durations(tokens: &[String]) -> Vec<String> {
    let minute = |t: &str| matches!(t, "minute" | "minutes" | "min" | "mins");
    let at = |i: usize| tokens.get(i).map(String::as_str).unwrap_or("");
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        // "an hour" counts as 1 hour.
        let (hours, unit) = if is_digits(at(i)) && is_hour(at(i + 1)) {
            (at(i).parse::<u64>().ok(), i + 1)
        } else if matches!(at(i), "an" | "a" | "one") && is_hour(at(i + 1)) {
            (Some(1), i + 1)
        } else {
            (None, i)
        };
        let Some(hours) = hours else {
            out.push(tokens[i].clone());
            i += 1;
            continue;
        };
        let mut j = unit + 1;
        if at(j) == "and" {
            j += 1;
        }
        let minutes = if is_digits(at(j)) && minute(at(j + 1)) {
            at(j)
                .parse::<u64>()
                .ok()
                .filter(|&m| m < 60)
                .map(|m| (m, j + 2))
        } else if matches!(at(j), "a" | "an") && at(j + 1) == "half" {
            Some((30, j + 2))
        } else {
            None
        };
        match minutes {
            Some((m, end)) if m % 15 == 0 => {
                let fraction = match m {
                    15 => ".25",
                    30 => ".5",
                    45 => ".75",
                    _ => "",
                };
                out.push(format!("{hours}{fraction}"));
                out.push("hours".to_string());
                i = end;
            }
            Some((m, end)) => {
                out.extend([
                    hours.to_string(),
                    "hours".to_string(),
                    m.to_string(),
                    "minutes".to_string(),
                ]);
                i = end;
            }
            // Hours alone ("3 hours", "an hour") stay as written.
            None => {
                out.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// A unit of hours.
fn is_hour(token: &str) -> bool {
    matches!(token, "hour" | "hours" | "hr" | "hrs" | "h")
}

/// Whether `tokens` hold a unit of hours, as every length of time [`durations`]
/// rewrites does.
fn counts_hours(tokens: &[String]) -> bool {
    tokens.iter().any(|t| is_hour(t))
}

/// Rates in one form: `each week`, `every week`, `a week`, `weekly` and `per week` all
/// become `per week` (also day, month, year; `annually` is `per year`).
fn frequencies(mut tokens: Vec<String>) -> Vec<String> {
    const UNITS: [&str; 6] = ["day", "week", "month", "year", "night", "hour"];
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let adverb = match tokens[i].as_str() {
            "daily" => Some("day"),
            "weekly" => Some("week"),
            "monthly" => Some("month"),
            "yearly" | "annually" => Some("year"),
            "nightly" => Some("night"),
            "hourly" => Some("hour"),
            _ => None,
        };
        if let Some(unit) = adverb {
            out.extend(["per".to_string(), unit.to_string()]);
            i += 1;
            continue;
        }
        if matches!(tokens[i].as_str(), "each" | "every" | "per" | "a" | "an")
            && tokens
                .get(i + 1)
                .is_some_and(|u| UNITS.contains(&u.as_str()))
        {
            out.extend(["per".to_string(), std::mem::take(&mut tokens[i + 1])]);
            i += 2;
            continue;
        }
        // No later step reads a token before `i + 1`: the token can be moved out.
        out.push(std::mem::take(&mut tokens[i]));
        i += 1;
    }
    out
}

/// The text with hyphens between letters removed (`riza-triptan` → `rizatriptan`);
/// `None` when it has none.
fn join_hyphenated(lowered: &str) -> Option<String> {
    if !lowered.contains('-') {
        return None;
    }
    let chars: Vec<char> = lowered.chars().collect();
    let mut out = String::with_capacity(lowered.len());
    let mut changed = false;
    for (i, &c) in chars.iter().enumerate() {
        let between_letters = c == '-'
            && i > 0
            && chars[i - 1].is_alphabetic()
            && chars.get(i + 1).is_some_and(|n| n.is_alphabetic());
        if between_letters {
            changed = true;
        } else {
            out.push(c);
        }
    }
    changed.then_some(out)
}

/// The reading in which values spelled out with separators are joined up again:
/// runs of three or more single letters or digits, and runs of two or more numbers of
/// at most two digits making at least three digits. `None` when nothing is joined.
fn join_spelled(tokens: &[String]) -> Option<Vec<String>> {
    let spoken = spoken_years(tokens);
    let tokens: &[String] = spoken.as_deref().unwrap_or(tokens);
    rewrite_runs(tokens, joined_at).or(spoken)
}

/// The word joined from the tokens at the start of `tokens` (see [`join_spelled`]) and
/// how many tokens it takes.
fn joined_at(tokens: &[String]) -> Option<(String, usize)> {
    let single = |t: &String| {
        let mut chars = t.chars();
        chars.next().is_some() && chars.next().is_none()
    };
    let short_number = |t: &String| t.len() <= 2 && t.chars().all(|c| c.is_ascii_digit());
    let run = tokens.iter().take_while(|t| single(t)).count();
    if run >= 3 {
        return Some((tokens[..run].concat(), run));
    }
    if tokens[0].chars().all(|c| c.is_ascii_digit())
        && tokens
            .get(1)
            .is_some_and(|t| t.len() == 1 && t.chars().all(|c| c.is_ascii_alphabetic()))
        && tokens.get(2).is_none_or(|t| !single(t))
    {
        // 403(b), 221 B
        return Some((format!("{}{}", tokens[0], tokens[1]), 2));
    }
    let numbers = tokens.iter().take_while(|t| short_number(t)).count();
    let digits: usize = tokens[..numbers].iter().map(String::len).sum();
    (numbers >= 2 && digits >= 3).then(|| (tokens[..numbers].concat(), numbers))
}

/// `tokens` with each run that `at` reads (at the start of the tokens from a place on)
/// replaced by the word it makes, reading on after the run; `None` when `at` reads
/// none. The tokens are copied only once a run is found.
fn rewrite_runs(
    tokens: &[String],
    at: impl Fn(&[String]) -> Option<(String, usize)>,
) -> Option<Vec<String>> {
    let mut out = Vec::new();
    // The tokens before `copied` are in `out`, as they are or as the word they make.
    let mut copied = 0;
    let mut i = 0;
    while i < tokens.len() {
        match at(&tokens[i..]) {
            Some((word, len)) => {
                out.extend_from_slice(&tokens[copied..i]);
                out.push(word);
                i += len;
                copied = i;
            }
            None => i += 1,
        }
    }
    if copied == 0 {
        return None;
    }
    out.extend_from_slice(&tokens[copied..]);
    Some(out)
}

/// Years said as two numbers (`nineteen ninety-one` → `19 91` → `1991`, `twenty
/// twenty-four`): a number from 10 to 20 followed by a two-digit number, or by `0` and
/// a digit (`nineteen oh five`). `None` when there is none.
fn spoken_years(tokens: &[String]) -> Option<Vec<String>> {
    rewrite_runs(tokens, spoken_year_at)
}

/// The year said as two numbers at the start of `tokens` (see [`spoken_years`]) and
/// how many tokens it takes.
fn spoken_year_at(tokens: &[String]) -> Option<(String, usize)> {
    let century = |t: &str| t.len() == 2 && t.parse::<u32>().is_ok_and(|n| (10..=20).contains(&n));
    let two_digits = |t: &str| t.len() == 2 && t.chars().all(|c| c.is_ascii_digit());
    let first = &tokens[0];
    if !century(first) {
        return None;
    }
    let next = tokens.get(1).map(String::as_str);
    let after = tokens.get(2).map(String::as_str);
    if let Some(n) = next.filter(|n| two_digits(n)) {
        return Some((format!("{first}{n}"), 2));
    }
    if next == Some("0")
        && let Some(d) = after.filter(|d| d.len() == 1 && d.chars().all(|c| c.is_ascii_digit()))
    {
        return Some((format!("{first}0{d}"), 3));
    }
    None
}

/// The singular of a plural noun (`penicillins` → `penicillin`, `allergies` →
/// `allergy`); `None` for any other word. Words of three letters or fewer and words
/// ending in `ss`, `us` or `is` are kept.
pub(crate) fn singular_of(t: &str) -> Option<String> {
    let alphabetic = t.chars().all(|c| c.is_ascii_alphabetic());
    if !alphabetic || t.len() <= 3 || ["ss", "us", "is"].iter().any(|e| t.ends_with(e)) {
        return None;
    }
    if let Some(stem) = t.strip_suffix("ies") {
        Some(format!("{stem}y"))
    } else {
        t.strip_suffix('s').map(str::to_string)
    }
}

#[cfg(test)]
mod tests;
