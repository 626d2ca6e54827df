//! Number words (cardinal, ordinal, decimal, scaled) into digits, and dates in words into
//! one order.

use super::*;

/// The kind of a number word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NumberWord {
    /// 0..=19.
    Unit(u64),
    /// 20, 30, …, 90.
    Tens(u64),
    /// 100.
    Hundred,
    /// 1000.
    Thousand,
}

/// A number word (cardinal or ordinal) and whether it is an ordinal.
pub(super) fn number_word(token: &str) -> Option<(NumberWord, bool)> {
    const UNIT_ORDINALS: [&str; 20] = [
        "zeroth",
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
    ];
    const TENS_ORDINALS: [&str; 8] = [
        "twentieth",
        "thirtieth",
        "fortieth",
        "fiftieth",
        "sixtieth",
        "seventieth",
        "eightieth",
        "ninetieth",
    ];
    if let Some(i) = NUMBERS_UNDER_TWENTY.iter().position(|w| *w == token) {
        return Some((NumberWord::Unit(i as u64), false));
    }
    if let Some(i) = UNIT_ORDINALS.iter().position(|w| *w == token) {
        return Some((NumberWord::Unit(i as u64), true));
    }
    if let Some(i) = TENS.iter().position(|w| *w == token) {
        return Some((NumberWord::Tens(20 + 10 * i as u64), false));
    }
    if let Some(i) = TENS_ORDINALS.iter().position(|w| *w == token) {
        return Some((NumberWord::Tens(20 + 10 * i as u64), true));
    }
    match token {
        "hundred" => Some((NumberWord::Hundred, false)),
        "hundredth" => Some((NumberWord::Hundred, true)),
        "thousand" => Some((NumberWord::Thousand, false)),
        "thousandth" => Some((NumberWord::Thousand, true)),
        _ => None,
    }
}

/// The digits after a decimal "point": a run of single digits, in digits or words
/// ("two five" → `25`), or one token of digits (`8`, `25`); and how many tokens they
/// take.
pub(super) fn decimal_digits(tokens: &[String]) -> (String, usize) {
    if let Some(first) = tokens.first()
        && first.len() > 1
        && is_digits(first)
    {
        return (first.clone(), 1);
    }
    let mut digits = String::new();
    let mut used = 0;
    for token in tokens {
        let digit = if token.len() == 1 && is_digits(token) {
            Some(token.clone())
        } else if token == "oh" {
            Some("0".to_string())
        } else {
            NUMBERS_UNDER_TWENTY[..10]
                .iter()
                .position(|w| w == token)
                .map(|d| d.to_string())
        };
        match digit {
            Some(d) => {
                digits.push_str(&d);
                used += 1;
            }
            None => break,
        }
    }
    (digits, used)
}

/// Replaces runs of number words by their value in digits, and a number followed by a
/// scale word by the product (`68 thousand` → `68000`, `1.2 million` → `1200000`).
pub(super) fn numbers(mut tokens: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let scale = match tokens[i].as_str() {
            "thousand" | "grand" => Some(1_000),
            "million" => Some(1_000_000),
            "billion" => Some(1_000_000_000),
            _ => None,
        };
        if let Some(scale) = scale
            && let Some(product) = out.last().and_then(|n| scaled(n, scale))
        {
            *out.last_mut()
                .expect("a number stands before the scale word") = product;
            i += 1;
            continue;
        }
        // "ten and a half" → 10.5
        if tokens[i] == "and"
            && tokens.get(i + 1).is_some_and(|t| t == "a")
            && tokens.get(i + 2).is_some_and(|t| t == "half")
            && let Some(last) = out.last_mut()
            && !last.contains('.')
            && last.chars().all(|c| c.is_ascii_digit())
            && !last.is_empty()
        {
            last.push_str(".5");
            i += 3;
            continue;
        }
        // "seventy-two point five" → 72.5, "one point two five" → 1.25.
        if tokens[i] == "point"
            && out
                .last()
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        {
            let (decimals, used) = decimal_digits(&tokens[i + 1..]);
            if used > 0
                && let Some(last) = out.last_mut()
            {
                last.push('.');
                last.push_str(&decimals);
                i += 1 + used;
                continue;
            }
        }
        // "fifty-two oh eight": oh between numbers is zero.
        if tokens[i] == "oh"
            && out.last().is_some_and(|t| is_digits(t))
            && tokens
                .get(i + 1)
                .is_some_and(|t| is_digits(t) || number_word(t).is_some())
        {
            out.push("0".to_string());
            i += 1;
            continue;
        }
        match parse_number(&tokens[i..]) {
            Some((value, len)) => {
                out.push(value.to_string());
                i += len;
            }
            None => {
                // No later step reads a token before `i + 1`: the token can be moved out.
                out.push(std::mem::take(&mut tokens[i]));
                i += 1;
            }
        }
    }
    spoken_times(out)
}

pub(super) fn is_digits(token: &str) -> bool {
    !token.is_empty() && token.chars().all(|c| c.is_ascii_digit())
}

/// Parses the longest number phrase at the start of `tokens`: its value and the
/// number of tokens it spans. "and" is read inside a number only after a scale word
/// and before a further number word (`one hundred and five`).
pub(super) fn parse_number(tokens: &[String]) -> Option<(u64, usize)> {
    let mut total = 0u64; // completed thousands
    let mut current = 0u64; // below one thousand
    let mut last: Option<NumberWord> = None;
    let mut used = 0;
    let mut i = 0;
    while i < tokens.len() {
        let mut token = tokens[i].as_str();
        let mut step = 1;
        if token == "and"
            && matches!(last, Some(NumberWord::Hundred | NumberWord::Thousand))
            && let Some(next) = tokens.get(i + 1)
            && matches!(
                number_word(next),
                Some((NumberWord::Unit(_) | NumberWord::Tens(_), _))
            )
        {
            token = next.as_str();
            step = 2;
        }
        let Some((word, ordinal)) = number_word(token) else {
            break;
        };
        let accepted = match (word, last) {
            (NumberWord::Unit(v), None) => {
                current = v;
                true
            }
            (NumberWord::Unit(v), Some(NumberWord::Tens(_))) if (1..10).contains(&v) => {
                current += v;
                true
            }
            (NumberWord::Unit(v), Some(NumberWord::Hundred | NumberWord::Thousand)) if v > 0 => {
                current += v;
                true
            }
            (NumberWord::Tens(v), None | Some(NumberWord::Hundred | NumberWord::Thousand)) => {
                current += v;
                true
            }
            (NumberWord::Hundred, None) => {
                current = 100;
                true
            }
            (NumberWord::Hundred, Some(NumberWord::Unit(_) | NumberWord::Tens(_)))
                if (1..100).contains(&current) =>
            {
                current *= 100;
                true
            }
            (NumberWord::Thousand, None) => {
                total = 1000;
                true
            }
            (
                NumberWord::Thousand,
                Some(NumberWord::Unit(_) | NumberWord::Tens(_) | NumberWord::Hundred),
            ) if total == 0 && current > 0 => {
                total = current * 1000;
                current = 0;
                true
            }
            _ => false,
        };
        if !accepted {
            break;
        }
        last = Some(word);
        i += step;
        used = i;
        if ordinal {
            break;
        }
    }
    (used > 0).then_some((total + current, used))
}

pub(super) fn month_of(token: &str) -> Option<&'static str> {
    let index = match token {
        "january" | "jan" => 0,
        "february" | "feb" => 1,
        "march" | "mar" => 2,
        "april" | "apr" => 3,
        "may" => 4,
        "june" | "jun" => 5,
        "july" | "jul" => 6,
        "august" | "aug" => 7,
        "september" | "sep" | "sept" => 8,
        "october" | "oct" => 9,
        "november" | "nov" => 10,
        "december" | "dec" => 11,
        _ => return None,
    };
    Some(MONTHS[index])
}

pub(super) fn day_of(token: Option<&String>) -> Option<u32> {
    let token = token?;
    if token.len() > 2 || !token.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    token.parse().ok().filter(|d| (1..=31).contains(d))
}

pub(super) fn year_of(token: Option<&String>) -> Option<&String> {
    token.filter(|t| {
        t.len() == 4
            && t.chars().all(|c| c.is_ascii_digit())
            && t.parse::<u32>().is_ok_and(|y| (1000..=2999).contains(&y))
    })
}

/// Whether `tokens` name a month, as every date [`dates`] rewrites does.
pub(super) fn names_a_month(tokens: &[String]) -> bool {
    tokens.iter().any(|t| month_of(t).is_some())
}

/// Puts dates written with month names into the order `year month day`.
pub(super) fn dates(tokens: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    let at = |j: usize| tokens.get(j);
    while i < tokens.len() {
        if let Some(month) = month_of(&tokens[i]) {
            let day = day_of(at(i + 1));
            if let Some(d) = day {
                if let Some(year) = year_of(at(i + 2)) {
                    // June 5 2024
                    out.extend([year.clone(), month.to_string(), d.to_string()]);
                    i += 3;
                } else {
                    // June 5
                    out.extend([month.to_string(), d.to_string()]);
                    i += 2;
                }
            } else if let Some(year) = year_of(at(i + 1)) {
                // June 2024
                out.extend([year.clone(), month.to_string()]);
                i += 2;
            } else if at(i + 1).is_some_and(|t| t == "of")
                && let Some(year) = year_of(at(i + 2))
            {
                // June of 2024
                out.extend([year.clone(), month.to_string()]);
                i += 3;
            } else {
                out.push(month.to_string());
                i += 1;
            }
            continue;
        }
        if let Some(d) = day_of(at(i)) {
            let (month_at, skip) = if at(i + 1).is_some_and(|t| t == "of") {
                (i + 2, 2)
            } else {
                (i + 1, 1)
            };
            if let Some(month) = at(month_at).and_then(|t| month_of(t)) {
                if let Some(year) = year_of(at(month_at + 1)) {
                    // 5 June 2024
                    out.extend([year.clone(), month.to_string(), d.to_string()]);
                    i += skip + 2;
                } else {
                    // 5 June
                    out.extend([month.to_string(), d.to_string()]);
                    i += skip + 1;
                }
                continue;
            }
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}
