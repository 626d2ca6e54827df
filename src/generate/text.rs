//! Text helpers of the generator: template filling, capitalisation, number words,
//! calendar dates, and the alternative spellings of a value.

use crate::text::{NUMBERS_UNDER_TWENTY, TENS};
use std::sync::LazyLock;

/// Fills `{key}` placeholders from `lookup`; a key it does not know stays as written
/// (the generator's tests check that no placeholder survives in generated text).
/// A placeholder whose key starts with a capital letter is filled with the value of
/// the lower-case key, capitalised: `{What}` → "Everything …".
pub fn fill(template: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    fill_with(template, lookup)
}

/// [`fill`] with a lookup that may lend its values rather than make them.
pub fn fill_with<S: AsRef<str>>(template: &str, lookup: impl Fn(&str) -> Option<S>) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let key = &after[..close];
        let capital = key.chars().next().is_some_and(|c| c.is_ascii_uppercase());
        let filled = if capital {
            lookup(&key.to_ascii_lowercase()).map(|v| out.push_str(&capitalize(v.as_ref())))
        } else {
            lookup(key).map(|v| out.push_str(v.as_ref()))
        };
        if filled.is_none() {
            out.push('{');
            out.push_str(key);
            out.push('}');
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The text with its first letter in upper case.
pub fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The text with its first letter in lower case.
pub fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Joins sentences with single spaces, skipping empty ones.
pub fn join(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for p in parts.iter().filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// A list in prose: "a", "a and b", "a, b and c".
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// An English number word for 0–99 ("seven", "twenty-two"); digits above.
pub fn number_word(n: u32) -> String {
    match n {
        0..=19 => NUMBERS_UNDER_TWENTY[n as usize].to_string(),
        20..=99 => {
            let tens = TENS[(n / 10 - 2) as usize];
            match n % 10 {
                0 => tens.to_string(),
                unit => format!("{tens}-{}", NUMBERS_UNDER_TWENTY[unit as usize]),
            }
        }
        _ => n.to_string(),
    }
}

/// The number a word of [`number_word`] stands for.
pub fn word_number(word: &str) -> Option<u32> {
    static WORDS: LazyLock<Vec<String>> = LazyLock::new(|| (0..100).map(number_word).collect());
    WORDS.iter().position(|w| w == word).map(|n| n as u32)
}

/// English month names, January first.
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// A calendar date (proleptic Gregorian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    /// Year.
    pub year: i32,
    /// Month, 1–12.
    pub month: u32,
    /// Day of the month, from 1.
    pub day: u32,
}

impl Date {
    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    pub fn days(self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = if y >= 0 { y } else { y - 399 } / 400;
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let mp = if m > 2 { m - 3 } else { m + 9 };
        let doy = (153 * mp + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` days after 1970-01-01.
    pub fn from_days(days: i64) -> Date {
        let z = days + 719_468;
        let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// The date `n` days later.
    pub fn plus_days(self, n: i64) -> Date {
        Date::from_days(self.days() + n)
    }

    /// `YYYY-MM-DD`.
    pub fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// "March 14, 2023".
    pub fn long(self) -> String {
        format!("{} {}, {}", month_name(self.month), self.day, self.year)
    }
}

/// A calendar month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Month {
    /// Year.
    pub year: i32,
    /// Month, 1–12.
    pub month: u32,
}

impl Month {
    /// The month `n` months before this one.
    pub fn back(self, n: u32) -> Month {
        let index = self.year * 12 + self.month as i32 - 1 - n as i32;
        Month {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) as u32 + 1,
        }
    }

    /// Months from `other` to `self` (positive when `self` is later).
    pub fn since(self, other: Month) -> i32 {
        (self.year * 12 + self.month as i32) - (other.year * 12 + other.month as i32)
    }

    /// `YYYY-MM`.
    pub fn iso(self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }

    /// "March 2023".
    pub fn long(self) -> String {
        format!("{} {}", month_name(self.month), self.year)
    }
}

fn month_name(month: u32) -> &'static str {
    MONTHS[(month.clamp(1, 12) - 1) as usize]
}

/// Other spellings of a value a judge should accept: ISO forms of dates, digits for
/// number words and words for digits, money without separators.
pub fn accepted_spellings(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let words: Vec<&str> = value.split(' ').collect();
    // "March 2019" → "2019-03"; "March 14, 2019" → "2019-03-14".
    if let Some(m) = MONTHS.iter().position(|m| *m == words[0]) {
        let month = m as u32 + 1;
        match words.as_slice() {
            [_, year] if year.len() == 4 && year.chars().all(|c| c.is_ascii_digit()) => {
                out.push(format!("{year}-{month:02}"));
            }
            [_, day, year] if day.ends_with(',') && year.len() == 4 => {
                if let Ok(d) = day.trim_end_matches(',').parse::<u32>() {
                    out.push(format!("{year}-{month:02}-{d:02}"));
                }
            }
            _ => {}
        }
    }
    // "six years" → "6 years"; "twenty-two years old" → "22 years old", "22".
    if let Some(n) = word_number(words[0]) {
        let rest = words[1..].join(" ");
        out.push(format!("{n} {rest}"));
        if rest == "years old" {
            out.push(n.to_string());
        }
    }
    // "3 times a week" → "three times a week".
    if let Ok(n) = words[0].parse::<u32>()
        && words.len() > 1
        && words[1] == "times"
    {
        out.push(format!("{} {}", number_word(n), words[1..].join(" ")));
    }
    // "$1,450" → "$1450", "1,450".
    if let Some(amount) = value.strip_prefix('$')
        && amount.chars().all(|c| c.is_ascii_digit() || c == ',')
    {
        if amount.contains(',') {
            out.push(format!("${}", amount.replace(',', "")));
        }
        out.push(amount.to_string());
    }
    out.retain(|a| a != value);
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_known_keys_and_capitalises() {
        let lookup = |k: &str| match k {
            "what" => Some("everything".to_string()),
            "n" => Some("3".to_string()),
            _ => None,
        };
        assert_eq!(fill("{What} at {n} {x}", &lookup), "Everything at 3 {x}");
        assert_eq!(fill("no braces", &lookup), "no braces");
        assert_eq!(fill("open { only", &lookup), "open { only");
    }

    #[test]
    fn number_words_round_trip() {
        assert_eq!(number_word(7), "seven");
        assert_eq!(number_word(22), "twenty-two");
        assert_eq!(number_word(40), "forty");
        for n in 0..100 {
            assert_eq!(word_number(&number_word(n)), Some(n));
        }
    }

    #[test]
    fn dates_round_trip_and_format() {
        for days in [-1000i64, 0, 59, 60, 365, 19_000, 20_000, 20_500] {
            assert_eq!(Date::from_days(days).days(), days);
        }
        let d = Date {
            year: 2024,
            month: 2,
            day: 28,
        };
        assert_eq!(d.plus_days(1).iso(), "2024-02-29");
        assert_eq!(d.plus_days(2).iso(), "2024-03-01");
        assert_eq!(d.long(), "February 28, 2024");
        let m = Month {
            year: 2025,
            month: 2,
        };
        assert_eq!(m.back(2).iso(), "2024-12");
        assert_eq!(m.back(14).long(), "December 2023");
        assert_eq!(m.since(m.back(14)), 14);
    }

    #[test]
    fn accepted_spellings_cover_dates_numbers_and_money() {
        assert_eq!(accepted_spellings("March 2019"), vec!["2019-03"]);
        assert_eq!(accepted_spellings("March 4, 2019"), vec!["2019-03-04"]);
        assert_eq!(accepted_spellings("six years"), vec!["6 years"]);
        assert_eq!(
            accepted_spellings("twenty-two years old"),
            vec!["22 years old", "22"]
        );
        assert_eq!(
            accepted_spellings("3 times a week"),
            vec!["three times a week"]
        );
        assert_eq!(accepted_spellings("$1,450"), vec!["$1450", "1,450"]);
        assert!(accepted_spellings("Thai food").is_empty());
    }
}
