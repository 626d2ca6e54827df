//! Time expressions in English text, at month granularity: ISO dates (`2024-06`,
//! `2024-06-15`), month names with an optional day and year (`June 2024`,
//! `3rd of June`), seasons (`last spring`, `summer of 2023`), bare years (`in 2023`)
//! and a few relative phrases (`last month`, `yesterday`), resolved against the date
//! on which the text was said.
//!
//! The scoped forgetter uses them to find what a temporal forget request names and
//! which stored sentences fall in that period.

use crate::text::{MONTHS, tokenize};

/// A calendar month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct YearMonth {
    /// The year, e.g. 2024.
    pub year: i32,
    /// The month, 1 to 12.
    pub month: u32,
}

impl YearMonth {
    /// The month `n` months later (earlier when `n` is negative).
    pub fn plus(self, n: i32) -> YearMonth {
        let index = self.year * 12 + self.month as i32 - 1 + n;
        YearMonth {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) as u32 + 1,
        }
    }

    /// Reads the month of a `YYYY-MM-DD` or `YYYY-MM` date.
    pub fn parse(date: &str) -> Option<YearMonth> {
        let mut parts = date.trim().split('-');
        let year: i32 = parts.next()?.parse().ok()?;
        let month: u32 = parts.next()?.parse().ok()?;
        (1..=12)
            .contains(&month)
            .then_some(YearMonth { year, month })
    }
}

/// An inclusive range of months.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Period {
    /// First month.
    pub start: YearMonth,
    /// Last month.
    pub end: YearMonth,
}

impl Period {
    /// A single month.
    pub fn month(ym: YearMonth) -> Period {
        Period { start: ym, end: ym }
    }

    /// A whole year.
    pub fn year(year: i32) -> Period {
        Period {
            start: YearMonth { year, month: 1 },
            end: YearMonth { year, month: 12 },
        }
    }

    /// Whether `other` lies entirely within this period.
    pub fn contains(&self, other: &Period) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

/// A month from its name or common abbreviation.
fn month_number(token: &str) -> Option<u32> {
    if let Some(i) = MONTHS.iter().position(|m| *m == token) {
        return Some(i as u32 + 1);
    }
    let abbreviated = match token {
        "jan" => 1,
        "feb" => 2,
        "apr" => 4,
        "jun" => 6,
        "jul" => 7,
        "aug" => 8,
        "sep" | "sept" => 9,
        "oct" => 10,
        "nov" => 11,
        "dec" => 12,
        _ => return None,
    };
    Some(abbreviated)
}

/// Words that, before an ambiguous month name (`may`, `march`), show it is a month.
#[rustfmt::skip]
const MONTH_LEADS: &[&str] = &[
    "in", "of", "since", "early", "late", "mid", "around", "during", "last", "this", "next",
    "until", "from", "through", "by", "before", "after", "since", "about",
];

fn year_number(token: &str) -> Option<i32> {
    if token.len() == 4 && token.bytes().all(|b| b.is_ascii_digit()) {
        let y: i32 = token.parse().ok()?;
        return (1900..=2100).contains(&y).then_some(y);
    }
    None
}

fn is_day(token: &str) -> bool {
    let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
    let rest = &token[digits.len()..];
    !digits.is_empty()
        && digits.len() <= 2
        && matches!(rest, "" | "st" | "nd" | "rd" | "th")
        && digits.parse::<u32>().is_ok_and(|d| (1..=31).contains(&d))
}

/// Which word before a month or season places it relative to the speaking date.
#[derive(Clone, Copy, PartialEq)]
enum Relative {
    Last,
    This,
    Next,
    None,
}

fn relative_before(tokens: &[String], i: usize) -> Relative {
    match i.checked_sub(1).map(|j| tokens[j].as_str()) {
        Some("last") | Some("past") => Relative::Last,
        Some("this") => Relative::This,
        Some("next") | Some("coming") => Relative::Next,
        _ => Relative::None,
    }
}

/// Places a year-less month: the most recent such month not after `today` (or as
/// `last`/`this`/`next` say).
fn place_month(month: u32, today: YearMonth, rel: Relative) -> YearMonth {
    let this_year = YearMonth {
        year: today.year,
        month,
    };
    match rel {
        Relative::This => this_year,
        Relative::Next => {
            if month > today.month {
                this_year
            } else {
                YearMonth {
                    year: today.year + 1,
                    month,
                }
            }
        }
        Relative::Last => {
            if month < today.month {
                this_year
            } else {
                YearMonth {
                    year: today.year - 1,
                    month,
                }
            }
        }
        Relative::None => {
            if month <= today.month {
                this_year
            } else {
                YearMonth {
                    year: today.year - 1,
                    month,
                }
            }
        }
    }
}

fn season_start(token: &str) -> Option<u32> {
    match token {
        "spring" => Some(3),
        "summer" => Some(6),
        "fall" | "autumn" => Some(9),
        "winter" => Some(12),
        _ => None,
    }
}

/// A year within the next three tokens (skipping a day and `of`), with its index.
fn year_after(tokens: &[String], i: usize) -> Option<(i32, usize)> {
    for (j, t) in tokens.iter().enumerate().skip(i + 1).take(3) {
        if let Some(y) = year_number(t) {
            return Some((y, j));
        }
        if !(is_day(t) || t == "of") {
            return None;
        }
    }
    None
}

/// Finds ISO dates (`YYYY-MM` or `YYYY-MM-DD`) in raw text; returns their months and
/// the text with them blanked out.
fn take_iso_dates(text: &str) -> (Vec<Period>, String) {
    let bytes = text.as_bytes();
    let mut periods = Vec::new();
    let mut rest = text.to_string().into_bytes();
    let mut i = 0;
    while i + 7 <= bytes.len() {
        let boundary_before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let shape = bytes[i..i + 4].iter().all(u8::is_ascii_digit)
            && bytes[i + 4] == b'-'
            && bytes[i + 5..i + 7].iter().all(u8::is_ascii_digit);
        if boundary_before && shape {
            let mut end = i + 7;
            if end + 3 <= bytes.len()
                && bytes[end] == b'-'
                && bytes[end + 1..end + 3].iter().all(u8::is_ascii_digit)
            {
                end += 3;
            }
            let boundary_after = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
            if boundary_after && let Some(ym) = YearMonth::parse(&text[i..i + 7]) {
                periods.push(Period::month(ym));
                for b in &mut rest[i..end] {
                    *b = b' ';
                }
                i = end;
                continue;
            }
        }
        i += 1;
    }
    (periods, String::from_utf8(rest).unwrap_or_default())
}

/// Writes ISO dates out in words (`2024-06-15` → `June 15 2024`, `2024-06` → `June
/// 2024`), so that a text can be tokenized without losing them.
pub fn spell_iso_dates(text: &str) -> String {
    let (periods, blanked) = take_iso_dates(text);
    if periods.is_empty() {
        return text.to_string();
    }
    // Walk the original and the blanked text together; each blanked run is one date.
    let mut out = String::new();
    let mut dates = periods.into_iter();
    let (orig, blank): (Vec<char>, Vec<char>) = (text.chars().collect(), blanked.chars().collect());
    let mut i = 0;
    while i < orig.len() {
        if orig[i] != blank[i] {
            let start = i;
            while i < orig.len() && orig[i] != blank[i] {
                i += 1;
            }
            let run: String = orig[start..i].iter().collect();
            let day = run
                .split('-')
                .nth(2)
                .map(|d| format!(" {}", d.trim_start_matches('0')));
            if let Some(p) = dates.next() {
                let month = MONTHS[p.start.month as usize - 1];
                out.push_str(&format!(
                    "{month}{} {}",
                    day.unwrap_or_default(),
                    p.start.year
                ));
            }
            continue;
        }
        out.push(orig[i]);
        i += 1;
    }
    out
}

/// Every time a text mentions, as month periods; `today` (the date it was said)
/// places year-less and relative expressions, which are skipped without it.
pub fn mentioned_periods(text: &str, today: Option<YearMonth>) -> Vec<Period> {
    let (mut periods, rest) = take_iso_dates(text);
    let tokens = tokenize(&rest);
    let mut used = vec![false; tokens.len()];
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        let prev = i.checked_sub(1).map(|j| tokens[j].as_str());
        let next = tokens.get(i + 1).map(String::as_str);
        // Month names.
        if let Some(month) = month_number(t) {
            let ambiguous = matches!(t, "may" | "march");
            let near_number = next.is_some_and(|n| is_day(n) || year_number(n).is_some())
                || prev.is_some_and(is_day);
            if !ambiguous || near_number || prev.is_some_and(|p| MONTH_LEADS.contains(&p)) {
                used[i] = true;
                if let Some((year, j)) = year_after(&tokens, i) {
                    used[j] = true;
                    periods.push(Period::month(YearMonth { year, month }));
                } else if let Some(today) = today {
                    periods.push(Period::month(place_month(
                        month,
                        today,
                        relative_before(&tokens, i),
                    )));
                }
            }
            i += 1;
            continue;
        }
        // Seasons.
        if let Some(start) = season_start(t) {
            used[i] = true;
            let start_ym = if let Some((year, j)) = year_after(&tokens, i) {
                used[j] = true;
                Some(YearMonth { year, month: start })
            } else {
                today.map(|today| {
                    let placed = place_month(start, today, relative_before(&tokens, i));
                    // A winter that began last December belongs to that December.
                    if start == 12
                        && today.month <= 2
                        && relative_before(&tokens, i) != Relative::Last
                    {
                        YearMonth {
                            year: today.year - 1,
                            month: 12,
                        }
                    } else {
                        placed
                    }
                })
            };
            if let Some(s) = start_ym {
                periods.push(Period {
                    start: s,
                    end: s.plus(2),
                });
            }
            i += 1;
            continue;
        }
        // Relative phrases.
        if let Some(today) = today {
            let this_month = Period::month(today);
            let found = match (t, next) {
                ("last", Some("month")) => Some(Period::month(today.plus(-1))),
                ("this", Some("month")) => Some(this_month),
                ("last", Some("year")) => Some(Period::year(today.year - 1)),
                ("this", Some("year")) => Some(Period::year(today.year)),
                ("last", Some("week" | "weekend" | "night"))
                | ("this", Some("week" | "weekend" | "morning")) => Some(this_month),
                ("yesterday" | "today" | "tonight" | "recently" | "lately", _) => Some(this_month),
                ("days" | "weeks", Some("ago")) => Some(this_month),
                _ => None,
            };
            if let Some(p) = found {
                periods.push(p);
                i += 1;
                continue;
            }
        }
        i += 1;
    }
    // Bare years not consumed above.
    for (i, t) in tokens.iter().enumerate() {
        if !used[i]
            && let Some(y) = year_number(t)
        {
            periods.push(Period::year(y));
        }
    }
    periods
}

/// Whether a token is a word of time expressions (a month, season, year, day number,
/// or a word like `time`, `period`, `around`), which a temporal request carries
/// besides its period.
pub fn is_time_word(token: &str) -> bool {
    month_number(token).is_some()
        || season_start(token).is_some()
        || year_number(token).is_some()
        || is_day(token)
        || matches!(
            token,
            "time"
                | "times"
                | "period"
                | "periods"
                | "day"
                | "days"
                | "week"
                | "weeks"
                | "weekend"
                | "month"
                | "months"
                | "year"
                | "years"
                | "season"
                | "around"
                | "during"
                | "last"
                | "past"
                | "since"
                | "back"
                | "early"
                | "late"
                | "mid"
                | "era"
                | "stretch"
                | "whole"
                | "entire"
                | "happened"
                | "happen"
                | "ago"
                | "yesterday"
                | "recently"
                | "moment"
                | "spell"
                | "phase"
                | "chapter"
                | "life"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ym(year: i32, month: u32) -> YearMonth {
        YearMonth { year, month }
    }

    #[test]
    fn explicit_dates() {
        let p = mentioned_periods("On 2024-06-15 and in 2023-11 I moved.", None);
        assert_eq!(
            p,
            vec![Period::month(ym(2024, 6)), Period::month(ym(2023, 11))]
        );
        let p = mentioned_periods("It was June 3rd, 2024, or 3 June 2024.", None);
        assert_eq!(
            p,
            vec![Period::month(ym(2024, 6)), Period::month(ym(2024, 6))]
        );
        assert_eq!(
            mentioned_periods("back in 2019", None),
            vec![Period::year(2019)]
        );
    }

    #[test]
    fn yearless_and_relative_dates_use_the_speaking_date() {
        let today = Some(ym(2024, 8));
        assert_eq!(
            mentioned_periods("in June I changed jobs", today),
            vec![Period::month(ym(2024, 6))]
        );
        assert_eq!(
            mentioned_periods("in October I moved", today),
            vec![Period::month(ym(2023, 10))]
        );
        assert_eq!(
            mentioned_periods("last month", today),
            vec![Period::month(ym(2024, 7))]
        );
        assert_eq!(
            mentioned_periods("yesterday", today),
            vec![Period::month(ym(2024, 8))]
        );
        assert_eq!(
            mentioned_periods("everything from last spring", today),
            vec![Period {
                start: ym(2024, 3),
                end: ym(2024, 5)
            }]
        );
        assert!(mentioned_periods("in June", None).is_empty());
    }

    #[test]
    fn may_the_modal_is_not_a_month() {
        assert!(mentioned_periods("I may go there", Some(ym(2024, 8))).is_empty());
        assert_eq!(
            mentioned_periods("since May 2022", None),
            vec![Period::month(ym(2022, 5))]
        );
    }

    #[test]
    fn iso_dates_spelt_out() {
        assert_eq!(
            spell_iso_dates("from 2024-04 to 2024-06-05, ok"),
            "from april 2024 to june 5 2024, ok"
        );
        assert_eq!(spell_iso_dates("no dates"), "no dates");
    }

    #[test]
    fn containment() {
        let year = Period::year(2024);
        assert!(year.contains(&Period::month(ym(2024, 6))));
        assert!(!Period::month(ym(2024, 6)).contains(&year));
        assert_eq!(ym(2024, 12).plus(2), ym(2025, 2));
        assert_eq!(ym(2024, 1).plus(-1), ym(2023, 12));
        assert_eq!(YearMonth::parse("2024-06-03"), Some(ym(2024, 6)));
        assert_eq!(YearMonth::parse("2024-13"), None);
    }
}
