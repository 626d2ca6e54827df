//! Clock times into one form (`06:15`, `6:15 a.m.`, `6:15 in the morning` → `6 15 am`),
//! in digits and in words.

use super::*;

/// Words after a clock time that say which part of the day it is.
pub(super) const MORNING: [&str; 2] = ["in the morning", "this morning"];

pub(super) const EVENING: [&str; 5] = [
    "in the afternoon",
    "in the evening",
    "at night",
    "this evening",
    "tonight",
];

/// Rewrites clock times `H:MM` (optionally `:SS`) into `H MM am|pm`, reading the part
/// of the day from a following `am`/`pm` or phrase, or from a 24-hour clock (`18:15`,
/// `06:15`, `00:30`). A time with nothing to tell the part of the day keeps its
/// numbers only.
pub(super) fn rewrite_times(text: &str) -> String {
    rewrite_at_words(
        text,
        |_| true,
        |chars| time_at(chars).or_else(|| hour_at(chars)),
    )
}

/// Whether `text` may hold a clock time that [`rewrite_times`] rewrites: a digit, and
/// a colon or a phrase naming the part of the day (every such phrase holds one of
/// these words).
pub(super) fn may_hold_time(text: &str) -> bool {
    let phrase = ["morning", "afternoon", "evening", "night"];
    text.bytes().any(|b| b.is_ascii_digit())
        && (text.contains(':') || phrase.iter().any(|p| text.contains(p)))
}

/// A clock time at the start of `chars`: the replacement and the length read.
pub(super) fn time_at(chars: &[char]) -> Option<(String, usize)> {
    let (hour, hlen) = digits_at(chars, 2)?;
    if chars.get(hlen) != Some(&':') {
        return None;
    }
    let (minute, mlen) = digits_at(&chars[hlen + 1..], 2)?;
    if mlen != 2 || hour > 23 || minute > 59 {
        return None;
    }
    let mut len = hlen + 1 + mlen;
    if chars.get(len) == Some(&':')
        && let Some((_, 2)) = digits_at(&chars[len + 1..], 2)
    {
        len += 3;
    }
    if chars
        .get(len)
        .is_some_and(|c| c.is_alphanumeric() && !matches!(c, 'a' | 'p'))
    {
        return None;
    }
    // What follows: spaces, then am/pm or a phrase naming the part of the day.
    let rest: String = chars[len..].iter().take(24).collect();
    let spaces = rest.chars().take_while(|c| *c == ' ').count();
    let after = &rest[spaces..];
    let word_end = |n: usize| !after[n..].starts_with(|c: char| c.is_alphanumeric());
    let mut part = None;
    if (after.starts_with("am") || after.starts_with("pm")) && word_end(2) {
        part = Some(&after[..2]);
        len += spaces + 2;
    } else if let Some(p) = MORNING.iter().find(|p| after.starts_with(*p)) {
        part = Some("am");
        len += spaces + p.len();
    } else if let Some(p) = EVENING.iter().find(|p| after.starts_with(*p)) {
        part = Some("pm");
        len += spaces + p.len();
    }
    let zero_padded = hlen == 2 && chars[0] == '0';
    let (hour12, part) = match (hour, part) {
        (0, None) => (12, Some("am")),
        (13..=23, _) => (hour - 12, Some("pm")),
        (12, Some(_)) => (12, part),
        (1..=11, None) if zero_padded => (hour, Some("am")),
        (h, p) => (h, p),
    };
    let minutes = if minute == 0 {
        String::new()
    } else {
        format!(" {minute:02}")
    };
    let text = match part {
        Some(p) => format!("{hour12}{minutes} {p}"),
        None => format!("{hour12}{minutes}"),
    };
    Some((text, len))
}

/// A bare hour followed by a phrase naming the part of the day (`6 in the morning`,
/// `7 o'clock at night`) at the start of `chars`: `6 am`, `7 pm`.
pub(super) fn hour_at(chars: &[char]) -> Option<(String, usize)> {
    let (hour, hlen) = digits_at(chars, 2)?;
    if !(1..=12).contains(&hour) {
        return None;
    }
    let rest: String = chars[hlen..].iter().take(32).collect();
    let mut skipped = rest.chars().take_while(|c| *c == ' ').count();
    if rest[skipped..].starts_with("o'clock") {
        skipped += "o'clock".len();
        skipped += rest[skipped..].chars().take_while(|c| *c == ' ').count();
    }
    if skipped == 0 {
        return None;
    }
    let after = &rest[skipped..];
    let (part, phrase) = if let Some(p) = MORNING.iter().find(|p| after.starts_with(*p)) {
        ("am", p)
    } else if let Some(p) = EVENING.iter().find(|p| after.starts_with(*p)) {
        ("pm", p)
    } else {
        return None;
    };
    Some((format!("{hour} {part}"), hlen + skipped + phrase.len()))
}

/// Clock times in words, after number words became digits: `half past 2`, `quarter to
/// 7`, `10 to 6`, `5 past 7`, with minutes of 5, 10, 20 or 25 (or quarter, half) and an
/// hour of 1 to 12, ending the clause or followed by the part of the day
/// (`in the morning`, `at night`, `am`). `10 to 12 people` is not a time.
pub(super) fn spoken_times(mut tokens: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let Some((replacement, len)) = spoken_time_at(&tokens[i..]) {
            out.extend(replacement);
            i += len;
        } else {
            // No later step reads a token before `i + 1`: the token can be moved out.
            out.push(std::mem::take(&mut tokens[i]));
            i += 1;
        }
    }
    out
}

pub(super) fn spoken_time_at(tokens: &[String]) -> Option<(Vec<String>, usize)> {
    let minutes: u32 = match tokens.first()?.as_str() {
        "half" => 30,
        "quarter" => 15,
        "5" => 5,
        "10" => 10,
        "20" => 20,
        "25" => 25,
        _ => return None,
    };
    let relation = tokens.get(1)?.as_str();
    if !matches!(relation, "past" | "after" | "to" | "till" | "before") {
        return None;
    }
    let hour: u32 = tokens
        .get(2)?
        .parse()
        .ok()
        .filter(|h| (1..=12).contains(h))?;
    if minutes == 30 && relation != "past" && relation != "after" {
        return None;
    }
    let mut len = 3;
    let part = match tokens.get(3).map(String::as_str) {
        None => None,
        Some(p @ ("am" | "pm")) => {
            len += 1;
            Some(p.to_string())
        }
        Some("in") | Some("at") | Some("this") | Some("tonight") => {
            let rest: Vec<&str> = tokens[3..].iter().take(3).map(String::as_str).collect();
            let (p, n) = match rest.as_slice() {
                ["in", "the", "morning", ..] | ["this", "morning", ..] => {
                    ("am", if rest[0] == "in" { 3 } else { 2 })
                }
                ["in", "the", "afternoon" | "evening", ..] => ("pm", 3),
                ["at", "night", ..] | ["this", "evening" | "afternoon", ..] => ("pm", 2),
                ["tonight", ..] => ("pm", 1),
                _ => return None,
            };
            len += n;
            Some(p.to_string())
        }
        Some("o") if tokens.get(4).is_some_and(|t| t == "clock") => {
            len += 2;
            None
        }
        Some(_) => return None,
    };
    let (h, m) = if matches!(relation, "past" | "after") {
        (hour, minutes)
    } else {
        (if hour == 1 { 12 } else { hour - 1 }, 60 - minutes)
    };
    let mut out = vec![h.to_string(), format!("{m:02}")];
    out.extend(part);
    Some((out, len))
}
