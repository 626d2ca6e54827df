//! ISO and numeric dates into words (`2024-06-05`, `5/11/1993` → `1993 may 11`), with
//! the day-first reading of an ambiguous one.

use super::*;

/// Rewrites `YYYY-MM`, `YYYY-MM-DD` (or with `/`) standing alone into
/// `YYYY monthname [D]`.
pub(super) fn rewrite_iso_dates(text: &str) -> String {
    rewrite_at_words(text, |_| true, iso_date_at)
}

/// Whether `text` has an ASCII digit followed by `/` or `-`, as every ISO or numeric
/// date does: without, [`rewrite_iso_dates`] and [`rewrite_numeric_dates`] leave it as
/// it is.
pub(super) fn digit_before_separator(text: &str) -> bool {
    text.as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_digit() && matches!(w[1], b'/' | b'-'))
}

/// Rewrites `text` wherever `at` reads something at the start of a word (a position
/// after a non-alphanumeric character, or where `starts` allows it): the replacement,
/// set off by spaces, stands for the characters read.
pub(super) fn rewrite_at_words(
    text: &str,
    starts: impl Fn(char) -> bool,
    at: impl Fn(&[char]) -> Option<(String, usize)>,
) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !chars[i - 1].is_alphanumeric() && starts(chars[i - 1]);
        if starts_word && let Some((replacement, len)) = at(&chars[i..]) {
            out.push(' ');
            out.push_str(&replacement);
            out.push(' ');
            i += len;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Reads a number of 1..=max_len ASCII digits at the start of `chars`.
pub(super) fn digits_at(chars: &[char], max_len: usize) -> Option<(u32, usize)> {
    let len = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    if len == 0 || len > max_len {
        return None;
    }
    let value = chars[..len].iter().collect::<String>().parse().ok()?;
    Some((value, len))
}

/// An ISO-like date at the start of `chars`: the replacement and the length read.
pub(super) fn iso_date_at(chars: &[char]) -> Option<(String, usize)> {
    let (year, ylen) = digits_at(chars, 4)?;
    if ylen != 4 || !(1000..=2999).contains(&year) {
        return None;
    }
    let sep = *chars.get(ylen)?;
    if sep != '-' && sep != '/' {
        return None;
    }
    let (month, mlen) = digits_at(&chars[ylen + 1..], 2)?;
    if !(1..=12).contains(&month) {
        return None;
    }
    let mut len = ylen + 1 + mlen;
    let month_name = MONTHS[month as usize - 1];
    let mut day = None;
    if chars.get(len) == Some(&sep)
        && let Some((d, dlen)) = digits_at(&chars[len + 1..], 2)
        && (1..=31).contains(&d)
    {
        day = Some(d);
        len += 1 + dlen;
    }
    if chars.get(len).is_some_and(|c| c.is_alphanumeric()) {
        return None;
    }
    let replacement = match day {
        Some(d) => format!("{year} {month_name} {d}"),
        None => format!("{year} {month_name}"),
    };
    Some((replacement, len))
}

/// Rewrites numeric dates standing alone into words: `M/D/YYYY` (or with `-`, and
/// two-digit years), read day first when the first number cannot be a month or when
/// `order` says so and the day and month could be swapped; and `M/YYYY`.
pub(super) fn rewrite_numeric_dates(text: &str, order: DateOrder) -> String {
    rewrite_at_words(
        text,
        |before| before != '/',
        |chars| numeric_date_at(chars, order),
    )
}

/// A numeric date at the start of `chars`: the replacement and the length read.
pub(super) fn numeric_date_at(chars: &[char], order: DateOrder) -> Option<(String, usize)> {
    let (first, flen) = digits_at(chars, 2)?;
    let sep = *chars.get(flen)?;
    if sep != '/' && sep != '-' {
        return None;
    }
    let (second, slen) = digits_at(&chars[flen + 1..], 4)?;
    let mut len = flen + 1 + slen;
    let ends = |at: usize| {
        !chars.get(at).is_some_and(|c| {
            c.is_alphanumeric()
                || *c == '/'
                || *c == '-' && chars.get(at + 1).is_some_and(char::is_ascii_digit)
        })
    };
    if slen == 4 {
        // M/YYYY
        if sep != '/'
            || !(1..=12).contains(&first)
            || !(1000..=2999).contains(&second)
            || !ends(len)
        {
            return None;
        }
        return Some((format!("{} {}", second, MONTHS[first as usize - 1]), len));
    }
    if slen > 2 || chars.get(len) != Some(&sep) {
        return None;
    }
    let (year, ylen) = digits_at(&chars[len + 1..], 4)?;
    let year = match ylen {
        4 if (1000..=2999).contains(&year) => year,
        2 if year <= 30 => 2000 + year,
        2 => 1900 + year,
        _ => return None,
    };
    len += 1 + ylen;
    if !ends(len) {
        return None;
    }
    let month_first = (1..=12).contains(&first) && (1..=31).contains(&second);
    let day_first = (1..=31).contains(&first) && (1..=12).contains(&second);
    let (month, day) = match (month_first, day_first, order) {
        (true, true, DateOrder::MonthFirst) | (true, false, _) => (first, second),
        (_, true, _) => (second, first),
        _ => return None,
    };
    Some((format!("{year} {} {day}", MONTHS[month as usize - 1]), len))
}
