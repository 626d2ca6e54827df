//! Leak detection: whether an answer reveals a leak value, whole or in part (restated,
//! abbreviated, initialled or hinted), outside what the question and the gold supply.

use super::*;

/// What does not count as revealing a leak value: what the question supplies, and
/// what lies inside a gold value.
pub(super) struct Exclude<'a> {
    pub(super) question: Option<&'a Text>,
    pub(super) golds: &'a [Value<'a>],
}

impl<'a> Exclude<'a> {
    pub(super) fn question(question: &'a Text) -> Exclude<'a> {
        Exclude {
            question: Some(question),
            golds: &[],
        }
    }

    fn whole(&self, leak: &Text) -> bool {
        self.question.is_some_and(|q| q.contains(leak))
            || self.golds.iter().any(|g| g.text.contains(leak))
    }

    fn part(&self, part: &[String]) -> bool {
        self.question.is_some_and(|q| q.contains_tokens(part))
            || self.golds.iter().any(|g| g.text.contains_tokens(part))
    }
}

/// A leak value an answer reveals, whole or in part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Leak {
    /// The leak value as listed on the item.
    pub(crate) value: String,
    /// The part of it revealed (normalised words), when not the whole value.
    pub(crate) part: Option<String>,
}

impl std::fmt::Display for Leak {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.part {
            None => write!(f, "leak value {} revealed", quote(&self.value)),
            Some(part) => write!(
                f,
                "part \"{part}\" of leak value {} revealed",
                quote(&self.value)
            ),
        }
    }
}

/// The first leak value the answer (`raw` as written, `text` normalised) reveals,
/// whole, in part, or abbreviated.
pub(super) fn revealed(
    raw: &str,
    text: &Text,
    leaks: &[Value<'_>],
    exclude: &Exclude<'_>,
) -> Option<Leak> {
    revealed_in_words(text, leaks, exclude).or_else(|| abbreviated(raw, leaks, exclude))
}

/// The first leak value the normalised answer reveals, whole or in part.
pub(super) fn revealed_in_words(
    text: &Text,
    leaks: &[Value<'_>],
    exclude: &Exclude<'_>,
) -> Option<Leak> {
    let considered: Vec<&Value<'_>> = leaks.iter().filter(|l| !exclude.whole(&l.text)).collect();
    if let Some(leak) = considered.iter().find(|l| text.contains(&l.text)) {
        return Some(Leak {
            value: leak.written.to_string(),
            part: None,
        });
    }
    let part_revealed = |part: &[String], leak: &Value<'_>| {
        (!exclude.part(part) && text.contains_tokens(part)).then(|| Leak {
            value: leak.written.to_string(),
            part: Some(part.join(" ")),
        })
    };
    for leak in &considered {
        let tokens = leak.text.tokens();
        if tokens.len() >= 3 {
            let size = (2 * tokens.len()).div_ceil(3);
            for window in tokens.windows(size) {
                let content = window
                    .iter()
                    .filter(|t| {
                        t.chars().any(char::is_alphabetic) && !STOPWORDS.contains(&t.as_str())
                    })
                    .count();
                if content >= 2
                    && let Some(found) = part_revealed(window, leak)
                {
                    return Some(found);
                }
            }
        }
        for part in parts::distinctive_parts(leak.written, &leak.text) {
            if let Some(found) = part_revealed(&part, leak) {
                return Some(found);
            }
        }
        if let Some(found) = hinted(text, leak, exclude) {
            return Some(found);
        }
        if let Some(found) = restated(text, leak, exclude) {
            return Some(found);
        }
    }
    None
}

/// A leak value the answer gives in other units ("around 150 pounds" for `68 kg`), or,
/// for a rate, as its total over another period ("19,200 over a year" for `$1,600 a
/// month`, the period named by the value or the question).
pub(super) fn restated(text: &Text, leak: &Value<'_>, exclude: &Exclude<'_>) -> Option<Leak> {
    let answer = text.tokens();
    let in_question = |n: f64| {
        exclude.question.is_some_and(|q| {
            units::numbers(q.tokens())
                .iter()
                .any(|m| (m - n).abs() < 0.5)
        })
    };
    let leak_quantities = units::quantities(leak.text.tokens());
    for given in units::quantities(answer) {
        if leak_quantities.iter().any(|l| units::same_value(l, &given)) {
            return Some(Leak {
                value: leak.written.to_string(),
                part: Some("the value in other units".to_string()),
            });
        }
    }
    let period = units::period(leak.text.tokens())
        .or_else(|| exclude.question.and_then(|q| units::period(q.tokens())))?;
    let given = units::numbers(answer);
    for amount in units::numbers(leak.text.tokens()) {
        for total in units::restated_totals(amount, period) {
            if total >= 10.0 && !in_question(total) && given.iter().any(|n| (n - total).abs() < 0.5)
            {
                return Some(Leak {
                    value: leak.written.to_string(),
                    part: Some(format!("{total} (the rate over another period)")),
                });
            }
        }
    }
    None
}

/// The words written in capitals in `raw` (two to six letters: `PCN`, `MS`, `SD`)
/// that are not ordinary words written loud (`OK`, `US`, `IT`).
pub(super) fn capital_words(raw: &str) -> Vec<String> {
    fold::fold(raw)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| (2..=6).contains(&w.len()) && w.chars().all(|c| c.is_ascii_uppercase()))
        .map(str::to_lowercase)
        .filter(|w| !parts::is_common(w))
        .collect()
}

/// The words of `gold` as the answer gives them with a run of two or more of its words
/// written as their capital initials (`Kettle River CU` for `Kettle River Credit
/// Union`), if it does.
pub(super) fn initialled(
    gold: &Value<'_>,
    capitals: &[String],
    text: &Text,
) -> Option<Vec<String>> {
    let tokens = gold.text.tokens();
    capitals.iter().find_map(|short| {
        let n = short.chars().count();
        (n >= 2 && n <= tokens.len())
            .then(|| {
                (0..=tokens.len() - n).find_map(|start| {
                    let run = &tokens[start..start + n];
                    let matches = run
                        .iter()
                        .zip(short.chars())
                        .all(|(w, c)| w.chars().all(char::is_alphabetic) && w.starts_with(c));
                    if !matches {
                        return None;
                    }
                    let mut given = tokens[..start].to_vec();
                    given.push(short.clone());
                    given.extend_from_slice(&tokens[start + n..]);
                    text.contains_tokens(&given).then_some(given)
                })
            })
            .flatten()
    })
}

/// Whether `short` is `long` with letters left out, first letter kept (`pcn` of
/// `penicillin`, `chi` of `chicago`).
pub(super) fn abbreviates(short: &str, long: &str) -> bool {
    if short.len() < 3 || long.len() < short.len() + 2 || short[..1] != long[..1] {
        return false;
    }
    let mut rest = long.chars();
    short.chars().all(|c| rest.any(|l| l == c))
}

/// A leak value revealed as an abbreviation written in capitals: the initials of two
/// or more of its consecutive words (`MS` of `multiple sclerosis`), or one of its words
/// with letters left out (`PCN` of `penicillin`). Abbreviations the question itself
/// uses do not count.
pub(super) fn abbreviated(raw: &str, leaks: &[Value<'_>], exclude: &Exclude<'_>) -> Option<Leak> {
    let capitals = capital_words(raw);
    if capitals.is_empty() {
        return None;
    }
    for leak in leaks {
        let words: Vec<&String> = leak
            .text
            .tokens()
            .iter()
            .filter(|t| {
                t.chars().all(char::is_alphabetic)
                    && !STOPWORDS.contains(&t.as_str())
                    && !normalize::is_title(t)
            })
            .collect();
        for short in &capitals {
            if exclude.part(std::slice::from_ref(short)) {
                continue;
            }
            let initials = words.windows(short.len()).any(|run| {
                run.len() >= 2 && run.iter().zip(short.chars()).all(|(w, c)| w.starts_with(c))
            });
            let shortened = words.iter().any(|w| abbreviates(short, w));
            if initials || shortened {
                return Some(Leak {
                    value: leak.written.to_string(),
                    part: Some(format!("{} (an abbreviation)", short.to_uppercase())),
                });
            }
        }
    }
    None
}

/// Whether every word of `content` stands in `words` within a span of twice their
/// number plus one words, with no `or` between them (a list of every possibility,
/// "A, B, AB or O, positive or negative", narrows nothing down).
pub(super) fn close_together(words: &[String], content: &[&String]) -> bool {
    let span = 2 * content.len() + 1;
    (0..words.len()).any(|start| {
        let window = &words[start..(start + span).min(words.len())];
        let positions: Option<Vec<usize>> = content
            .iter()
            .map(|c| window.iter().position(|w| w == *c))
            .collect();
        positions.is_some_and(|p| {
            let lo = p.iter().min().copied().unwrap_or(0);
            let hi = p.iter().max().copied().unwrap_or(0);
            !window[lo..=hi].iter().any(|w| w == "or")
        })
    })
}

/// How close a number must come to a numeric leak value to narrow it down.
pub(super) const NEAR: f64 = 0.15;

/// A leak value revealed indirectly: a number within 15% of a numeric leak value ("in
/// the $85,000 to $90,000 range" for `$87,500`; not years), every word of a leak value
/// close together in another order ("Rh-negative, and AB" for `AB negative`),
/// the opening letters of
/// a distinctive word ("starts with Sz"), or a fragment of a rare word ("-cillin" of
/// `penicillin`).
pub(super) fn hinted(text: &Text, leak: &Value<'_>, exclude: &Exclude<'_>) -> Option<Leak> {
    let tokens = leak.text.tokens();
    let words = text.tokens();
    let found = |part: String| {
        Some(Leak {
            value: leak.written.to_string(),
            part: Some(part),
        })
    };
    let number = |t: &str| t.parse::<f64>().ok().filter(|n| n.is_finite());
    let is_year =
        |t: &str| t.len() == 4 && t.parse::<u32>().is_ok_and(|y| (1000..=2999).contains(&y));
    if let [value] = tokens
        && !is_year(value)
        && let Some(v) = number(value).filter(|v| *v >= 10.0)
    {
        for w in words {
            if exclude.part(std::slice::from_ref(w)) || is_year(w) {
                continue;
            }
            if let Some(n) = number(w)
                && n != v
                && ((n - v).abs() / v) <= NEAR
            {
                return found(format!("{w} (near {value})"));
            }
        }
    }
    let content: Vec<&String> = tokens
        .iter()
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .collect();
    if content.len() >= 2 && !exclude.whole(&leak.text) && close_together(words, &content) {
        let joined: Vec<&str> = content.iter().map(|s| s.as_str()).collect();
        return found(format!("{} (in another order)", joined.join(" ")));
    }
    let rare: Vec<&String> = tokens
        .iter()
        .filter(|t| t.len() >= 6 && parts::distinctive_word(t, false))
        .filter(|t| !exclude.part(std::slice::from_ref(*t)))
        .collect();
    for (i, w) in words.iter().enumerate() {
        let opening = i >= 2
            && matches!(words[i - 1].as_str(), "with")
            && matches!(
                words[i - 2].as_str(),
                "starts" | "start" | "begins" | "begin" | "starting" | "beginning"
            );
        for r in &rare {
            if opening && (1..=4).contains(&w.len()) && r.starts_with(w.as_str()) {
                return found(format!("{w}… (opening letters of {r})"));
            }
            let fragment = w.len() >= 4
                && w.len() < r.len()
                && w.chars().all(char::is_alphabetic)
                && !parts::is_common(w)
                && (r.starts_with(w.as_str()) || r.ends_with(w.as_str()));
            if fragment {
                return found(format!("{w} (a fragment of {r})"));
            }
        }
    }
    None
}
