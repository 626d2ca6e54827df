//! Splitting text into word tokens, with contractions, possessives, ordinal and unit
//! suffixes and abbreviations read as their words.

/// Splits into words: runs of letters and digits, keeping apostrophes inside words,
/// joining digit groups (`3,500`) and decimals (`3.5`); `%` becomes `percent` and `&`
/// becomes `and`.
pub(super) fn split_words(text: &str) -> Vec<String> {
    if text.is_ascii() {
        split_ascii(text)
    } else {
        split_unicode(text)
    }
}

/// [`split_unicode`] of ASCII text, a byte at a time: a word is a run of the text, each
/// copied out at once (without its thousands separators).
pub(super) fn split_ascii(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let around = |i: usize| {
        let prev = i.checked_sub(1).map_or(b' ', |p| bytes[p]);
        let next = bytes.get(i + 1).copied().unwrap_or(b' ');
        (prev, next)
    };
    let mut words = Vec::new();
    let flush = |start: &mut Option<usize>, end: usize, words: &mut Vec<String>| {
        if let Some(start) = start.take() {
            let word = &text[start..end];
            words.push(if word.contains(',') {
                word.replace(',', "")
            } else {
                word.to_string()
            });
        }
    };
    // Where the word being read starts.
    let mut start: Option<usize> = None;
    for (i, &b) in bytes.iter().enumerate() {
        let (prev, next) = around(i);
        let inside = b.is_ascii_alphanumeric()
            || start.is_some()
                && match b {
                    // A thousands separator (dropped) or a decimal point.
                    b',' | b'.' => prev.is_ascii_digit() && next.is_ascii_digit(),
                    b'\'' => prev.is_ascii_alphabetic() && next.is_ascii_alphabetic(),
                    _ => false,
                };
        if inside {
            start.get_or_insert(i);
            continue;
        }
        flush(&mut start, i, &mut words);
        match b {
            b'%' => words.push("percent".to_string()),
            b'&' => words.push("and".to_string()),
            _ => {}
        }
    }
    flush(&mut start, bytes.len(), &mut words);
    words
}

/// Splits any text into words (see [`split_words`]).
pub(super) fn split_unicode(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    // Each word is copied out at its exact length; `current` keeps its buffer.
    let flush = |current: &mut String, words: &mut Vec<String>| {
        if !current.is_empty() {
            words.push(current.clone());
            current.clear();
        }
    };
    let mut chars = text.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        let next = chars.peek().copied().unwrap_or(' ');
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
        prev = c;
    }
    flush(&mut current, &mut words);
    words
}

/// Expands one word into `out`: contractions, possessives, ordinal suffixes.
pub(super) fn expand(word: String, out: &mut Vec<String>) {
    if let Some(word) = abbreviation(&word) {
        out.push(word.to_string());
        return;
    }
    if let Some(parts) = split_number_suffix(&word) {
        out.extend(parts);
        return;
    }
    let contraction = match word.as_str() {
        "can't" | "cannot" | "cant" => Some(["can", "not"]),
        "won't" => Some(["will", "not"]),
        "shan't" => Some(["shall", "not"]),
        "ain't" => Some(["is", "not"]),
        "let's" => Some(["let", "us"]),
        "dont" => Some(["do", "not"]),
        "doesnt" => Some(["does", "not"]),
        "didnt" => Some(["did", "not"]),
        "couldnt" => Some(["could", "not"]),
        "wouldnt" => Some(["would", "not"]),
        "shouldnt" => Some(["should", "not"]),
        "isnt" => Some(["is", "not"]),
        "wasnt" => Some(["was", "not"]),
        "arent" => Some(["are", "not"]),
        "werent" => Some(["were", "not"]),
        "havent" => Some(["have", "not"]),
        "hasnt" => Some(["has", "not"]),
        "hadnt" => Some(["had", "not"]),
        _ => None,
    };
    if let Some(parts) = contraction {
        out.extend(parts.map(str::to_string));
        return;
    }
    if let Some(stem) = word.strip_suffix("n't") {
        out.extend([stem.to_string(), "not".to_string()]);
        return;
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
                out.push(stem.to_string());
                out.extend(other.split('\'').map(str::to_string));
                return;
            }
        };
        out.push(stem.to_string());
        out.extend(tail.map(str::to_string));
        return;
    }
    match strip_ordinal_suffix(&word) {
        Some(number) => out.push(number),
        None => out.push(word),
    }
}

/// The word an abbreviation stands for; `doctor`, `drive` and `dr` all read `dr`,
/// since `Dr.` is either.
pub(super) fn abbreviation(word: &str) -> Option<&'static str> {
    Some(match word {
        "ct" | "crt" => "court",
        "st" | "str" => "street",
        "ave" | "av" => "avenue",
        "rd" => "road",
        "ln" => "lane",
        "blvd" => "boulevard",
        "hwy" => "highway",
        "pkwy" => "parkway",
        "sq" => "square",
        "apt" => "apartment",
        "mt" => "mount",
        "doctor" | "drive" | "dr" => "dr",
        "neg" => "negative",
        "pos" => "positive",
        "yrs" | "yr" => "years",
        "mos" => "months",
        "hrs" | "hr" => "hours",
        "mins" | "min" => "minutes",
        "lbs" | "lb" => "pounds",
        "kms" | "kilometers" | "kilometres" => "km",
        "mi" => "miles",
        "approx" => "approximately",
        "dept" => "department",
        "univ" => "university",
        "intl" => "international",
        _ => return None,
    })
}

/// Splits a number glued to a suffix: `6pm` → `6 pm`, `68k` → `68000`,
/// `1.5k` → `1500`.
pub(super) fn split_number_suffix(word: &str) -> Option<Vec<String>> {
    let digits = word
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
        .last()
        .map(|(i, c)| i + c.len_utf8())?;
    let (number, suffix) = word.split_at(digits);
    if number.starts_with('.') || number.ends_with('.') {
        return None;
    }
    match suffix {
        "am" | "pm" if !number.contains('.') && number.len() <= 2 => {
            Some(vec![number.to_string(), suffix.to_string()])
        }
        "k" => scaled(number, 1000).map(|n| vec![n]),
        _ => None,
    }
}

/// `number` times `scale`, written without a fraction when it has none.
pub(super) fn scaled(number: &str, scale: u64) -> Option<String> {
    if let Ok(whole) = number.parse::<u64>() {
        return whole.checked_mul(scale).map(|n| n.to_string());
    }
    let value = number.parse::<f64>().ok()? * scale as f64;
    (value.is_finite() && value.fract().abs() < 1e-9 && value < 1e15)
        .then(|| format!("{}", value.round() as u64))
}

/// Words whose `'s` is "is" rather than a possessive.
pub(super) const IS_CONTRACTIONS: [&str; 11] = [
    "it", "that", "what", "there", "here", "he", "she", "who", "where", "how", "this",
];

/// `5th` → `5`, `21st` → `21`, `2nd` → `2`, `3rd` → `3`.
pub(super) fn strip_ordinal_suffix(word: &str) -> Option<String> {
    let digits_len = word.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits_len == 0 {
        return None;
    }
    let (digits, suffix) = word.split_at(digits_len);
    matches!(suffix, "st" | "nd" | "rd" | "th").then(|| digits.to_string())
}
