//! Text normalisation for the rule judge: turns an answer, a gold value or a phrase
//! into a sequence of canonical word tokens, so that spellings that mean the same
//! value compare equal.
//!
//! What is folded, in order:
//! 1. case, Unicode quotes, dashes, spaces and common Latin accents;
//! 2. ISO dates (`2024-06-05`, `2024-06`, `2024/06/05`) into words (`2024 june 5`);
//! 3. punctuation and whitespace (tokens are runs of letters and digits; `3,500`
//!    becomes `3500`, `3.5` stays one token, `a.m.` becomes `am`);
//! 4. contractions (`don't` → `do not`, `it's` → `it is`, `cannot` → `can not`),
//!    possessive `'s` (dropped) and ordinal suffixes (`5th` → `5`);
//! 5. number words up to the thousands, cardinal and ordinal (`twenty-first` → `21`);
//! 6. dates in words into one order: `June 5, 2024`, `5 June 2024` and
//!    `Jun 5th 2024` all become `2024 june 5`; `June 2024` becomes `2024 june`, so a
//!    month-level value is found inside a day-level date.
//!
//! Matching ([`Text::contains`]) compares whole tokens, so `Ann` never matches
//! `Annual`, and ignores the articles `a`, `an`, `the` unless the value is made of
//! articles only.

use crate::text::{MONTHS, NUMBERS_UNDER_TWENTY, TENS};

/// A normalised text: its canonical tokens, with and without articles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Text {
    tokens: Vec<String>,
    bare: Vec<String>,
}

impl Text {
    /// Normalises `text`.
    pub(crate) fn new(text: &str) -> Text {
        let tokens = normalize(text);
        let bare = tokens.iter().filter(|t| !is_article(t)).cloned().collect();
        Text { tokens, bare }
    }

    /// The canonical tokens.
    pub(crate) fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// Whether the text has no token at all (only punctuation or blanks).
    pub(crate) fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Whether `needle` occurs in this text as a run of whole tokens.
    pub(crate) fn contains(&self, needle: &Text) -> bool {
        if needle.tokens.is_empty() {
            return false;
        }
        if needle.bare.is_empty() {
            contains_run(&self.tokens, &needle.tokens)
        } else {
            contains_run(&self.bare, &needle.bare)
        }
    }

    /// Whether the token run `needle` (already normalised) occurs in this text.
    pub(crate) fn contains_tokens(&self, needle: &[String]) -> bool {
        let bare: Vec<String> = needle.iter().filter(|t| !is_article(t)).cloned().collect();
        if bare.is_empty() {
            contains_run(&self.tokens, needle)
        } else {
            contains_run(&self.bare, &bare)
        }
    }
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

/// The canonical tokens of `text` (see the module documentation).
pub(crate) fn normalize(text: &str) -> Vec<String> {
    let folded = fold(text);
    let iso = rewrite_iso_dates(&folded);
    let words = split_words(&iso);
    let expanded: Vec<String> = words.iter().flat_map(|w| expand(w)).collect();
    let numbered = numbers(&expanded);
    dates(&numbered)
}

/// Lower case, Unicode punctuation folded to ASCII, common accents removed,
/// `a.m.`/`p.m.` joined.
fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let mapped = match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{00B4}' | '`' => {
                '\''
            }
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' | '\u{00AB}' | '\u{00BB}' => '"',
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
            | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2007}' | '\u{202F}' | '\u{2009}' | '\u{200A}' => ' ',
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'ç' => 'c',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ñ' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ý' | 'ÿ' => 'y',
            other => other,
        };
        out.push(mapped);
    }
    out.replace("a.m.", "am").replace("p.m.", "pm")
}

/// Rewrites `YYYY-MM`, `YYYY-MM-DD` (or with `/`) standing alone into
/// `YYYY monthname [D]`.
fn rewrite_iso_dates(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !chars[i - 1].is_alphanumeric();
        if starts_word && let Some((replacement, len)) = iso_date_at(&chars[i..]) {
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
fn digits_at(chars: &[char], max_len: usize) -> Option<(u32, usize)> {
    let len = chars.iter().take_while(|c| c.is_ascii_digit()).count();
    if len == 0 || len > max_len {
        return None;
    }
    let value = chars[..len].iter().collect::<String>().parse().ok()?;
    Some((value, len))
}

/// An ISO-like date at the start of `chars`: the replacement and the length read.
fn iso_date_at(chars: &[char]) -> Option<(String, usize)> {
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

/// Splits into words: runs of letters and digits, keeping apostrophes inside words,
/// joining digit groups (`3,500`) and decimals (`3.5`); `%` becomes `percent` and `&`
/// becomes `and`.
fn split_words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, words: &mut Vec<String>| {
        if !current.is_empty() {
            words.push(std::mem::take(current));
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let prev = if i > 0 { chars[i - 1] } else { ' ' };
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        if c.is_alphanumeric() {
            current.push(c);
        } else if c == ',' && prev.is_ascii_digit() && next.is_ascii_digit() && !current.is_empty()
        {
            // A thousands separator: 3,500 → 3500.
        } else if c == '.' && prev.is_ascii_digit() && next.is_ascii_digit() && !current.is_empty()
        {
            current.push('.');
        } else if c == '\'' && prev.is_alphabetic() && next.is_alphabetic() && !current.is_empty() {
            current.push('\'');
        } else {
            flush(&mut current, &mut words);
            match c {
                '%' => words.push("percent".to_string()),
                '&' => words.push("and".to_string()),
                _ => {}
            }
        }
    }
    flush(&mut current, &mut words);
    words
}

/// Expands one word: contractions, possessives, ordinal suffixes.
fn expand(word: &str) -> Vec<String> {
    let owned = |parts: &[&str]| parts.iter().map(|p| p.to_string()).collect::<Vec<_>>();
    match word {
        "can't" | "cannot" | "cant" => return owned(&["can", "not"]),
        "won't" => return owned(&["will", "not"]),
        "shan't" => return owned(&["shall", "not"]),
        "ain't" => return owned(&["is", "not"]),
        "let's" => return owned(&["let", "us"]),
        "dont" => return owned(&["do", "not"]),
        "doesnt" => return owned(&["does", "not"]),
        "didnt" => return owned(&["did", "not"]),
        "couldnt" => return owned(&["could", "not"]),
        "wouldnt" => return owned(&["would", "not"]),
        "shouldnt" => return owned(&["should", "not"]),
        "isnt" => return owned(&["is", "not"]),
        "wasnt" => return owned(&["was", "not"]),
        "arent" => return owned(&["are", "not"]),
        "werent" => return owned(&["were", "not"]),
        "havent" => return owned(&["have", "not"]),
        "hasnt" => return owned(&["has", "not"]),
        "hadnt" => return owned(&["had", "not"]),
        _ => {}
    }
    if let Some(stem) = word.strip_suffix("n't") {
        return vec![stem.to_string(), "not".to_string()];
    }
    if let Some((stem, suffix)) = word.split_once('\'') {
        let tail = match suffix {
            "m" => Some("am"),
            "re" => Some("are"),
            "ve" => Some("have"),
            "ll" => Some("will"),
            "d" => Some("would"),
            "s" if IS_CONTRACTIONS.contains(&stem) => Some("is"),
            // Possessive 's, or an elided letter (o'clock, rock'n'roll): keep the stem
            // and whatever follows as separate words.
            "s" => None,
            other => {
                let mut parts = vec![stem.to_string()];
                parts.extend(other.split('\'').map(str::to_string));
                return parts;
            }
        };
        let mut parts = vec![stem.to_string()];
        parts.extend(tail.map(str::to_string));
        return parts;
    }
    if let Some(number) = strip_ordinal_suffix(word) {
        return vec![number];
    }
    vec![word.to_string()]
}

/// Words whose `'s` is "is" rather than a possessive.
const IS_CONTRACTIONS: [&str; 11] = [
    "it", "that", "what", "there", "here", "he", "she", "who", "where", "how", "this",
];

/// `5th` → `5`, `21st` → `21`, `2nd` → `2`, `3rd` → `3`.
fn strip_ordinal_suffix(word: &str) -> Option<String> {
    let digits_len = word.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits_len == 0 {
        return None;
    }
    let (digits, suffix) = word.split_at(digits_len);
    matches!(suffix, "st" | "nd" | "rd" | "th").then(|| digits.to_string())
}

/// The kind of a number word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NumberWord {
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
fn number_word(token: &str) -> Option<(NumberWord, bool)> {
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

/// Replaces runs of number words by their value in digits.
fn numbers(tokens: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        match parse_number(&tokens[i..]) {
            Some((value, len)) => {
                out.push(value.to_string());
                i += len;
            }
            None => {
                out.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// Parses the longest number phrase at the start of `tokens`: its value and the
/// number of tokens it spans. "and" is read inside a number only after a scale word
/// and before a further number word (`one hundred and five`).
fn parse_number(tokens: &[String]) -> Option<(u64, usize)> {
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

fn month_of(token: &str) -> Option<&'static str> {
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

fn day_of(token: Option<&String>) -> Option<u32> {
    let token = token?;
    if token.len() > 2 || !token.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    token.parse().ok().filter(|d| (1..=31).contains(d))
}

fn year_of(token: Option<&String>) -> Option<&String> {
    token.filter(|t| {
        t.len() == 4
            && t.chars().all(|c| c.is_ascii_digit())
            && t.parse::<u32>().is_ok_and(|y| (1000..=2999).contains(&y))
    })
}

/// Puts dates written with month names into the order `year month day`.
fn dates(tokens: &[String]) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str) -> String {
        normalize(text).join(" ")
    }

    fn found(hay: &str, needle: &str) -> bool {
        Text::new(hay).contains(&Text::new(needle))
    }

    #[test]
    fn case_quotes_dashes_and_punctuation_fold() {
        assert_eq!(norm("  “Hello”,   WORLD! "), "hello world");
        assert_eq!(norm("Hike\u{2013}and\u{2014}Bike"), "hike and bike");
        assert_eq!(norm("it\u{2019}s"), "it is");
        assert_eq!(norm("Café Zoë"), "cafe zoe");
    }

    #[test]
    fn contractions_and_possessives_expand() {
        assert_eq!(norm("I don't know"), "i do not know");
        assert_eq!(
            norm("I can't recall; I cannot say"),
            "i can not recall i can not say"
        );
        assert_eq!(norm("I won't"), "i will not");
        assert_eq!(norm("I'm sure you've"), "i am sure you have");
        assert_eq!(norm("David's bike"), "david bike");
        assert_eq!(norm("that's right"), "that is right");
    }

    #[test]
    fn numbers_in_words_become_digits() {
        assert_eq!(norm("three twelve-hour shifts"), "3 12 hour shifts");
        assert_eq!(norm("twenty-five"), "25");
        assert_eq!(norm("ninety nine"), "99");
        assert_eq!(norm("one hundred and five"), "105");
        assert_eq!(norm("three thousand five hundred"), "3500");
        assert_eq!(norm("two thousand twenty four"), "2024");
        assert_eq!(norm("nineteen ninety-five"), "19 95");
        assert_eq!(norm("3,500 dollars"), "3500 dollars");
        assert_eq!(norm("3.5 km"), "3.5 km");
        assert_eq!(norm("one, two"), "1 2");
        assert_eq!(norm("fifty percent"), "50 percent");
        assert_eq!(norm("50%"), "50 percent");
    }

    #[test]
    fn ordinals_become_digits() {
        assert_eq!(norm("5th"), "5");
        assert_eq!(norm("the 21st and 22nd and 3rd"), "the 21 and 22 and 3");
        assert_eq!(norm("twenty-first"), "21");
        assert_eq!(norm("fifth floor"), "5 floor");
        assert_eq!(norm("the twelfth"), "the 12");
    }

    #[test]
    fn dates_take_one_order() {
        let day = "2024 june 5";
        assert_eq!(norm("2024-06-05"), day);
        assert_eq!(norm("2024/06/05"), day);
        assert_eq!(norm("June 5, 2024"), day);
        assert_eq!(norm("June 5th, 2024"), day);
        assert_eq!(norm("5 June 2024"), day);
        assert_eq!(norm("5th of June, 2024"), day);
        assert_eq!(norm("Jun 5 2024"), day);
        assert_eq!(norm("June fifth, 2024"), day);
        let month = "2024 june";
        assert_eq!(norm("2024-06"), month);
        assert_eq!(norm("June 2024"), month);
        assert_eq!(norm("Jun 2024"), month);
        assert_eq!(norm("June of 2024"), month);
        assert_eq!(norm("in Sept 2023."), "in 2023 september");
        assert_eq!(norm("December 12"), "december 12");
    }

    #[test]
    fn iso_rewrite_needs_a_real_date() {
        assert_eq!(norm("2024-13"), "2024 13");
        assert_eq!(norm("12024-06"), "12024 06");
        assert_eq!(norm("2024-06x"), "2024 06x");
    }

    #[test]
    fn times_join() {
        assert_eq!(norm("7:30 a.m."), "7 30 am");
    }

    #[test]
    fn matching_is_on_word_boundaries() {
        assert!(found("Your name is Ann.", "Ann"));
        assert!(!found("The Annual report", "Ann"));
        assert!(!found("Annie", "Ann"));
        assert!(found("You live at 14 Alder Lane, right?", "14 alder lane"));
        assert!(!found("You live at 114 Alder Lane", "14 Alder Lane"));
        assert!(!found("You live on Alder Lane", "14 Alder Lane"));
    }

    #[test]
    fn matching_folds_forms() {
        assert!(found("It was in Jun 2024.", "2024-06"));
        assert!(found("On 5 June 2024 you flew.", "2024-06"));
        assert!(found("On June 5th, 2024 you flew.", "2024-06-05"));
        assert!(!found("In June 2024 you flew.", "2024-06-05"));
        assert!(found("It cost $3,500.", "3500"));
        assert!(found(
            "You work three 12-hour shifts each week",
            "three twelve-hour shifts each week"
        ));
        assert!(found("You have 2 cats", "two cats"));
        assert!(found("a golden retriever", "the Golden Retriever"));
        assert!(found("Blood type: A", "A"));
        assert!(!found("", "A"));
        assert!(!found("anything", "..."));
    }
}
