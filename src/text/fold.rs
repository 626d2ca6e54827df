//! Unicode folding for the rule judge: the first stage of normalisation, run on the
//! raw text before it is split into words. It removes the ways an answer can hide a
//! value from a string match while a person still reads it:
//!
//! - compatibility forms (NFKD): fullwidth letters (`Ｉｍｏｇｅｎ`), ligatures,
//!   superscripts, circled digits become plain letters and digits;
//! - accents and other combining marks are dropped (`Zoë` → `Zoe`);
//! - format characters are removed: zero-width spaces and joiners, soft hyphens,
//!   bidirectional controls, variation selectors, tag characters (`Imo\u{200B}gen`);
//! - Cyrillic and Greek letters that look like Latin ones are read as Latin, in a word
//!   that can be read wholly as Latin (`Іmоgеn` with Cyrillic і, о, е); a real
//!   Cyrillic or Greek word keeps its letters;
//! - every dash and minus sign becomes `-`, every quote and apostrophe `'` or `"`, every
//!   space a plain space;
//! - a blood group written with a sign (`B−`, `AB+`, `O-`) is spelled out
//!   (`B negative`), as it is usually stored;
//! - thumbs and check marks read as `yes`, crosses and thumbs down as `no`.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Folds `text` (see the module documentation). Case is kept: the caller lowers it.
pub(crate) fn fold(text: &str) -> String {
    let latin = if text.is_ascii() {
        plain_ascii(text)
    } else {
        plain_latin(text)
    };
    if may_hold_blood_group(&latin) {
        spell_blood_groups(&latin)
    } else {
        latin
    }
}

/// `text` with compatibility forms, accents, format characters, symbols and look-alike
/// letters folded: [`fold`] but for the blood groups.
fn plain_latin(text: &str) -> String {
    let plain: String = text
        .nfkd()
        .filter(|&c| !is_combining_mark(c) && !is_format(c))
        .flat_map(symbol)
        .collect();
    confusables_to_latin(&plain)
}

/// [`plain_latin`] of ASCII text, without the Unicode passes: ASCII is its own
/// compatibility decomposition and holds no combining mark, format character or
/// Cyrillic or Greek letter, and the backtick is its one character [`symbol`] maps.
fn plain_ascii(text: &str) -> String {
    text.replace('`', "'")
}

/// Whether `c` is an invisible format character (Unicode category Cf and the
/// invisible fillers an answer can hide inside a word).
fn is_format(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}'
        | '\u{17B5}' | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}')
}

/// Punctuation, spaces and symbols mapped to their plain form; everything else kept.
fn symbol(c: char) -> Vec<char> {
    let mapped = match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{00B4}' | '`'
        | '\u{02BC}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{2033}' | '\u{00AB}' | '\u{00BB}' => '"',
        '\u{2010}'..='\u{2015}'
        | '\u{2212}'
        | '\u{2043}'
        | '\u{FE58}'
        | '\u{FE63}'
        | '\u{FF0D}' => '-',
        '\u{00A0}'
        | '\u{1680}'
        | '\u{2000}'..='\u{200A}'
        | '\u{202F}'
        | '\u{205F}'
        | '\u{3000}' => ' ',
        '\u{00D8}' => 'O',
        '\u{00F8}' => 'o',
        '\u{00DF}' => return vec!['s', 's'],
        '\u{00C6}' => return vec!['A', 'E'],
        '\u{00E6}' => return vec!['a', 'e'],
        '\u{0141}' => 'L',
        '\u{0142}' => 'l',
        '\u{0110}' => 'D',
        '\u{0111}' => 'd',
        '\u{1F44D}' | '\u{1F44C}' | '\u{2705}' | '\u{2714}' | '\u{2611}' | '\u{1F646}'
        | '\u{1F197}' => return " yes ".chars().collect(),
        '\u{1F44E}' | '\u{274C}' | '\u{2716}' | '\u{274E}' | '\u{1F645}' | '\u{1F6AB}' => {
            return " no ".chars().collect();
        }
        // Skin-tone modifiers of the hand signs above.
        '\u{1F3FB}'..='\u{1F3FF}' => return Vec::new(),
        other => other,
    };
    vec![mapped]
}

/// The Latin letter a Cyrillic or Greek letter is mistaken for, if any.
fn latin_lookalike(c: char) -> Option<char> {
    Some(match c {
        // Cyrillic
        'А' => 'A',
        'В' => 'B',
        'Е' => 'E',
        'К' => 'K',
        'М' => 'M',
        'Н' => 'H',
        'О' => 'O',
        'Р' => 'P',
        'С' => 'C',
        'Т' => 'T',
        'Х' => 'X',
        'У' => 'Y',
        'І' => 'I',
        'Ј' => 'J',
        'Ѕ' => 'S',
        'Ԛ' => 'Q',
        'Ԝ' => 'W',
        'Ү' => 'Y',
        'а' => 'a',
        'е' => 'e',
        'о' => 'o',
        'р' => 'p',
        'с' => 'c',
        'у' => 'y',
        'х' => 'x',
        'і' => 'i',
        'ј' => 'j',
        'ѕ' => 's',
        'ԁ' => 'd',
        'һ' => 'h',
        'ӏ' => 'l',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'ү' => 'y',
        'ɡ' => 'g',
        // Greek
        'Α' => 'A',
        'Β' => 'B',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'Ι' => 'I',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'Ο' => 'O',
        'Ρ' => 'P',
        'Τ' => 'T',
        'Υ' => 'Y',
        'Χ' => 'X',
        'ο' => 'o',
        'ν' => 'v',
        'ι' => 'i',
        'κ' => 'k',
        'α' => 'a',
        'ρ' => 'p',
        'τ' => 't',
        'υ' => 'u',
        'χ' => 'x',
        _ => return None,
    })
}

/// Whether `c` is a Cyrillic or Greek letter.
fn is_cyrillic_or_greek(c: char) -> bool {
    matches!(c, '\u{0370}'..='\u{03FF}' | '\u{0400}'..='\u{052F}')
}

/// Reads look-alike letters as Latin, one word at a time: a word is rewritten when
/// every Cyrillic or Greek letter in it has a Latin look-alike. `Москва` keeps its
/// letters (`л`, `в` have none); `Імоgеn` becomes `Imogen`.
fn confusables_to_latin(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let foreign = word.chars().filter(|&c| is_cyrillic_or_greek(c));
        let readable = foreign.clone().all(|c| latin_lookalike(c).is_some());
        if readable && foreign.count() > 0 {
            out.extend(word.chars().map(|c| latin_lookalike(c).unwrap_or(c)));
        } else {
            out.push_str(word);
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
    out
}

/// Whether `text` may hold a blood group with a sign: an `A`, `B` or `O` just before a
/// `+` or `-`, as every group [`spell_blood_groups`] spells out ends. Without one, that
/// pass would leave the text as it is.
fn may_hold_blood_group(text: &str) -> bool {
    text.as_bytes()
        .windows(2)
        .any(|w| matches!(w, [b'A' | b'B' | b'O', b'+' | b'-']))
}

/// Spells out blood groups written with a sign: `B-` → `B negative`, `AB+` →
/// `AB positive`. The group must stand alone in upper case (`A-`, `O+`), so a hyphen
/// inside a word (`O-ring`, `B-movie`) or a grade in lower case is left alone.
fn spell_blood_groups(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !chars[i - 1].is_alphanumeric();
        if starts_word {
            let group_len = if chars[i..].starts_with(&['A', 'B']) {
                2
            } else if matches!(chars[i], 'A' | 'B' | 'O') {
                1
            } else {
                0
            };
            if group_len > 0
                && let Some(&sign @ ('+' | '-')) = chars.get(i + group_len)
                && !chars
                    .get(i + group_len + 1)
                    .is_some_and(|c| c.is_alphanumeric())
            {
                out.extend(&chars[i..i + group_len]);
                out.push_str(if sign == '+' {
                    " positive "
                } else {
                    " negative "
                });
                i += group_len + 1;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-written texts for the fast paths: plain ASCII with odd spacing, backticks
    /// and signs beside letters, and text that is not ASCII.
    const FAST_PATH_TEXTS: &[&str] = &[
        "My blood type is AB+ and hers is O-.",
        "an O-ring, a B-movie, grade b- and A+B, ABO+",
        "x+y=z, C++ and C-, Tel. +44 20 7946 0958, -5 and +3",
        "`quoted` with backticks, 'single' and \"double\" quotes",
        "  double  spaces\tand\ttabs\nnew lines  ",
        "Café Zoë, Straße 5, naïve",
        "Ｉｍｏｇｅｎ and ﬁsh, Ａ＋ and Ｏ\u{2212}",
        "\u{0406}m\u{043E}g\u{0435}n in Москва",
        "It\u{2019}s 6\u{2013}7 km, \u{201C}far\u{201D}",
        "Zero\u{200B}width and soft\u{00AD}hyphen, B\u{2212}",
        "\u{1F44D}\u{1F3FD} yes, \u{274C} no",
        "",
        "O+",
        "A",
    ];

    #[test]
    fn the_fast_paths_fold_as_the_full_passes_do() {
        for &text in FAST_PATH_TEXTS {
            if text.is_ascii() {
                assert_eq!(plain_ascii(text), plain_latin(text), "{text:?}");
            }
            let latin = plain_latin(text);
            if !may_hold_blood_group(&latin) {
                assert_eq!(spell_blood_groups(&latin), latin, "{text:?}");
            }
        }
        // The texts reach both sides of each check.
        assert!(FAST_PATH_TEXTS.iter().any(|t| t.is_ascii()));
        assert!(FAST_PATH_TEXTS.iter().any(|t| !t.is_ascii()));
        let latin: Vec<String> = FAST_PATH_TEXTS.iter().map(|t| plain_latin(t)).collect();
        assert!(latin.iter().any(|t| may_hold_blood_group(t)));
        assert!(latin.iter().any(|t| !may_hold_blood_group(t)));
    }

    #[test]
    fn invisible_characters_inside_words_are_removed() {
        assert_eq!(fold("Imo\u{200B}gen"), "Imogen");
        assert_eq!(fold("Imo\u{00AD}gen"), "Imogen");
        assert_eq!(fold("Imo\u{200D}g\u{2060}en\u{FEFF}"), "Imogen");
        assert_eq!(fold("\u{202E}Imogen\u{202C}"), "Imogen");
    }

    #[test]
    fn compatibility_forms_and_accents_fold() {
        assert_eq!(fold("Ｉｍｏｇｅｎ"), "Imogen");
        assert_eq!(fold("Café Zoë"), "Cafe Zoe");
        assert_eq!(fold("ﬁsh"), "fish");
        assert_eq!(fold("Straße"), "Strasse");
    }

    #[test]
    fn look_alike_letters_read_as_latin_only_in_latin_readable_words() {
        // Cyrillic І, о, е inside a Latin word.
        assert_eq!(fold("\u{0406}m\u{043E}g\u{0435}n"), "Imogen");
        // A real Russian word keeps its letters.
        assert_eq!(fold("Москва"), "Москва");
        // Greek omicron in a Latin word.
        assert_eq!(fold("P\u{03BF}rtland"), "Portland");
    }

    #[test]
    fn dashes_and_minus_signs_unify() {
        assert_eq!(fold("a\u{2212}b\u{2013}c\u{FE63}d"), "a-b-c-d");
    }

    #[test]
    fn blood_groups_are_spelled_out() {
        assert_eq!(fold("B\u{2212}").trim(), "B negative");
        assert_eq!(fold("It is AB+.").trim_end(), "It is AB positive .");
        assert_eq!(fold("O-"), "O negative ");
        assert_eq!(fold("an O-ring"), "an O-ring");
        assert_eq!(fold("a grade of b-"), "a grade of b-");
    }

    #[test]
    fn hand_signs_read_as_yes_or_no() {
        assert_eq!(fold("\u{1F44D}").trim(), "yes");
        assert_eq!(fold("\u{1F44D}\u{1F3FD}").trim(), "yes");
        assert_eq!(fold("\u{1F44E}").trim(), "no");
    }
}
