//! One redaction layer for everything bemula writes: secrets never reach a report, a
//! journal or the terminal.
//!
//! bemula passes its environment to the adapters it starts (they may need an API key
//! of their own), and an adapter, an LLM endpoint or a crashing process can echo a
//! secret back: in an answer, a JSON-RPC error, a line of stderr, an error body. So
//! every text that comes from outside goes through [`redact`] before it is stored or
//! shown: the runner's records (answers before they are capped, reasons, errors), the
//! adapter's stderr tail, LLM error bodies, and every line printed through
//! [`crate::terminal`].
//!
//! **What is secret.** The value of every environment variable whose name ends in
//! `_KEY`, `_TOKEN`, `_SECRET` or `_PASSWORD` (any case; values shorter than
//! [`MIN_SECRET`] characters are too short to find safely and are left), and every
//! key registered with [`register`] (the LLM client registers the key it sends,
//! whatever its variable is called).
//!
//! **How it is found.** A secret is replaced by `[redacted]` wherever it occurs whole.
//! A long, random-looking secret (an API key: [`PARTIAL_MIN_LEN`] characters or more,
//! with letters and digits) is also replaced wherever a run of [`REDACT_MIN`] or more of
//! its characters occurs, so a prefix or suffix left by a cut, or a key a server shows
//! shortened, never survives. Text holding JSON string escapes (`\u0073k-…`, `\/`,
//! escapes of escapes) is also searched as it decodes, and the escaped span that
//! decodes to a secret is replaced, so a key cannot be stored in decodable form.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{LazyLock, RwLock};

/// What a secret is replaced by.
pub const REDACTED: &str = "[redacted]";

/// The shortest run of a long secret's characters that is replaced on its own.
pub const REDACT_MIN: usize = 8;

/// The shortest secret looked for at all: shorter values (`1`, `true`) would match
/// ordinary text.
pub const MIN_SECRET: usize = 6;

/// The shortest secret whose parts are replaced too (see the module docs).
pub const PARTIAL_MIN_LEN: usize = 16;

/// The suffixes of the names of environment variables whose values are secret.
pub const SECRET_SUFFIXES: [&str; 4] = ["_KEY", "_TOKEN", "_SECRET", "_PASSWORD"];

#[derive(Debug, Clone)]
struct Secret {
    value: String,
    /// Every window of [`REDACT_MIN`] bytes of a secret whose parts are replaced too.
    windows: Option<HashSet<Vec<u8>>>,
}

impl Secret {
    fn new(value: &str) -> Secret {
        let random_looking = value.chars().count() >= PARTIAL_MIN_LEN
            && value.chars().any(|c| c.is_ascii_digit())
            && value.chars().any(|c| c.is_alphabetic());
        Secret::with_parts(value, random_looking)
    }

    /// A secret whose runs of [`REDACT_MIN`] bytes are replaced too when `parts` (and
    /// it is that long).
    fn with_parts(value: &str, parts: bool) -> Secret {
        let windows = (parts && value.len() >= REDACT_MIN).then(|| {
            value
                .as_bytes()
                .windows(REDACT_MIN)
                .map(<[u8]>::to_vec)
                .collect()
        });
        Secret {
            value: value.to_string(),
            windows,
        }
    }

    /// Byte ranges of `text` that are this secret or (for a long one) a run of it.
    fn find(&self, text: &str, out: &mut Vec<(usize, usize)>) {
        let Some(windows) = &self.windows else {
            out.extend(
                text.match_indices(self.value.as_str())
                    .map(|(i, m)| (i, i + m.len())),
            );
            return;
        };
        let (bytes, key) = (text.as_bytes(), self.value.as_bytes());
        let mut i = 0;
        while i + REDACT_MIN <= bytes.len() {
            if !windows.contains(&bytes[i..i + REDACT_MIN]) {
                i += 1;
                continue;
            }
            // The longest run starting at i that occurs somewhere in the key.
            let mut longest = 0;
            for start in 0..key.len() {
                let run = bytes[i..]
                    .iter()
                    .zip(&key[start..])
                    .take_while(|(a, b)| a == b)
                    .count();
                longest = longest.max(run);
            }
            out.push((i, i + longest));
            i += longest;
        }
    }
}

/// A set of secrets to redact.
#[derive(Debug, Clone, Default)]
pub struct Secrets {
    list: Vec<Secret>,
}

impl Secrets {
    /// The secrets among `vars` (name, value): the values of names ending in one of
    /// [`SECRET_SUFFIXES`].
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Secrets {
        let mut secrets = Secrets::default();
        for (name, value) in vars {
            let upper = name.to_ascii_uppercase();
            if SECRET_SUFFIXES.iter().any(|s| upper.ends_with(s)) {
                secrets.add(&value);
            }
        }
        secrets
    }

    /// Adds a secret (trimmed; ignored when shorter than [`MIN_SECRET`] or known).
    pub fn add(&mut self, value: &str) {
        let value = value.trim();
        if value.chars().count() >= MIN_SECRET && !self.list.iter().any(|s| s.value == value) {
            self.list.push(Secret::new(value));
        }
    }

    /// The one secret `key`, whatever its length (an API key given on purpose).
    pub fn of_key(key: &str) -> Secrets {
        let key = key.trim();
        Secrets {
            list: (!key.is_empty())
                .then(|| Secret::with_parts(key, true))
                .into_iter()
                .collect(),
        }
    }

    /// Whether there is no secret to look for.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// `text` with every secret replaced (see the module docs).
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.list.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut spans = self.ranges(text);
        // Escaped forms: the text decoded once, and twice (a JSON body stored in a JSON
        // string), each match mapped back to the span of the text it decodes from.
        if let Some(once) = text.contains('\\').then(|| Decoded::of(text)).flatten() {
            for (a, b) in self.ranges(&once.text) {
                spans.push(once.source(a, b));
            }
            if let Some(twice) = Decoded::of(&once.text) {
                for (a, b) in self.ranges(&twice.text) {
                    let (a, b) = twice.source(a, b);
                    spans.push(once.source(a, b));
                }
            }
        }
        self.replace(text, &merge(spans))
    }

    /// The byte ranges of `text` holding a secret, sorted and merged.
    fn ranges(&self, text: &str) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for secret in &self.list {
            secret.find(text, &mut found);
        }
        merge(found)
    }

    /// `text` with `spans` (sorted, disjoint) replaced by [`REDACTED`], each widened
    /// to whole characters.
    fn replace<'a>(&self, text: &'a str, spans: &[(usize, usize)]) -> Cow<'a, str> {
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        for &(mut a, mut b) in spans {
            a = a.max(copied);
            while a > 0 && !text.is_char_boundary(a) {
                a -= 1;
            }
            while b < text.len() && !text.is_char_boundary(b) {
                b += 1;
            }
            if b <= a {
                continue;
            }
            out.push_str(&text[copied..a]);
            out.push_str(REDACTED);
            copied = b;
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }
}

/// `spans` sorted, overlapping ones joined.
fn merge(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// Text with its JSON string escapes decoded, and where each decoded byte came from.
struct Decoded {
    text: String,
    /// For each byte of `text` (and one past its end), the byte range of the source
    /// it was decoded from.
    origin: Vec<(usize, usize)>,
}

impl Decoded {
    /// `text` decoded, or `None` when it holds no escape to decode.
    fn of(text: &str) -> Option<Decoded> {
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut origin = Vec::with_capacity(text.len() + 1);
        let mut decoded_any = false;
        let mut i = 0;
        while i < bytes.len() {
            let (c, len) = match decode_escape(&text[i..]) {
                Some((c, len)) => {
                    decoded_any = true;
                    (c, len)
                }
                None => {
                    let c = text[i..].chars().next()?;
                    (c, c.len_utf8())
                }
            };
            for _ in 0..c.len_utf8() {
                origin.push((i, i + len));
            }
            out.push(c);
            i += len;
        }
        origin.push((bytes.len(), bytes.len()));
        decoded_any.then_some(Decoded { text: out, origin })
    }

    /// The source range of the decoded range `a..b`.
    fn source(&self, a: usize, b: usize) -> (usize, usize) {
        let start = self.origin[a.min(self.origin.len() - 1)].0;
        let end = if b == 0 {
            start
        } else {
            self.origin[(b - 1).min(self.origin.len() - 1)].1
        };
        (start, end)
    }
}

/// The character a JSON escape at the start of `s` stands for, and its length.
fn decode_escape(s: &str) -> Option<(char, usize)> {
    let rest = s.strip_prefix('\\')?;
    let simple = match rest.chars().next()? {
        '"' => Some('"'),
        '\\' => Some('\\'),
        '/' => Some('/'),
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'u' => None,
        _ => return None,
    };
    if let Some(c) = simple {
        return Some((c, 2));
    }
    let unit = |s: &str| -> Option<u32> {
        let hex = s.get(..4)?;
        hex.chars()
            .all(|c| c.is_ascii_hexdigit())
            .then(|| u32::from_str_radix(hex, 16).ok())?
    };
    let high = unit(&rest[1..])?;
    if (0xD800..0xDC00).contains(&high) {
        let low = rest[5..].strip_prefix("\\u").and_then(unit)?;
        let code = 0x10000 + ((high - 0xD800) << 10) + (low.checked_sub(0xDC00)?);
        return char::from_u32(code).map(|c| (c, 12));
    }
    char::from_u32(high).map(|c| (c, 6))
}

static SECRETS: LazyLock<RwLock<Secrets>> =
    LazyLock::new(|| RwLock::new(Secrets::from_vars(std::env::vars())));

/// `text` with every secret of this process replaced by `[redacted]` (see the module
/// docs).
pub fn redact(text: &str) -> Cow<'_, str> {
    let secrets = SECRETS.read().unwrap_or_else(|p| p.into_inner());
    match secrets.redact(text) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        Cow::Owned(s) => Cow::Owned(s),
    }
}

/// [`redact`] in place.
pub fn redact_in_place(text: &mut String) {
    if let Cow::Owned(clean) = redact(text) {
        *text = clean;
    }
}

/// [`redact`] on every string of a JSON value (keys included).
pub fn redact_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => redact_in_place(s),
        Value::Array(items) => items.iter_mut().for_each(redact_json),
        Value::Object(map) => redact_json_map(map),
        _ => {}
    }
}

/// [`redact_json`] on every member of a JSON object.
pub fn redact_json_map(map: &mut serde_json::Map<String, serde_json::Value>) {
    for (mut key, mut value) in std::mem::take(map) {
        redact_in_place(&mut key);
        redact_json(&mut value);
        map.insert(key, value);
    }
}

/// Adds a secret of this process (a key read from a variable of any name).
pub fn register(secret: &str) {
    SECRETS
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .add(secret);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(values: &[&str]) -> Secrets {
        let mut s = Secrets::default();
        for v in values {
            s.add(v);
        }
        s
    }

    #[test]
    fn the_values_of_secret_variables_are_secret_and_others_are_not() {
        let s = Secrets::from_vars([
            (
                "OPENAI_API_KEY".to_string(),
                "sk-abc123def456ghi789".to_string(),
            ),
            ("github_token".to_string(), "ghp_0011223344".to_string()),
            ("DB_PASSWORD".to_string(), "correct horse".to_string()),
            ("APP_SECRET".to_string(), "s3cr3t-value".to_string()),
            ("SHORT_KEY".to_string(), "1".to_string()),
            ("HOME".to_string(), "/root/home-dir".to_string()),
        ]);
        let text =
            "sk-abc123def456ghi789 ghp_0011223344 correct horse s3cr3t-value 1 /root/home-dir";
        assert_eq!(
            s.redact(text),
            "[redacted] [redacted] [redacted] [redacted] 1 /root/home-dir"
        );
    }

    #[test]
    fn a_long_key_is_replaced_whole_cut_or_shortened_and_a_short_one_only_whole() {
        let s = secrets(&["sk-live-0123456789abcdef"]);
        assert_eq!(
            s.redact("bad key sk-live-0123456789abcdef here"),
            "bad key [redacted] here"
        );
        assert_eq!(s.redact("key sk-live-0123…"), "key [redacted]…");
        assert_eq!(s.redact("…456789abcdef was"), "…[redacted] was");
        assert_eq!(
            s.redact("key sk-live-...89abcdef"),
            "key [redacted]...[redacted]"
        );
        assert_eq!(s.redact("sk-live is a prefix"), "sk-live is a prefix");
        // A passphrase is not random-looking: its words stay where they stand alone.
        let s = secrets(&["my long passphrase here"]);
        assert_eq!(s.redact("a passphrase here"), "a passphrase here");
        assert_eq!(
            s.redact("it is my long passphrase here"),
            "it is [redacted]"
        );
    }

    #[test]
    fn a_key_in_json_escapes_is_replaced_where_it_would_decode() {
        let s = secrets(&["sk-test-9f8e7d6c5b4a"]);
        // Every character escaped, as a server's JSON error body may hold it.
        let escaped: String = "sk-test-9f8e7d6c5b4a"
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect();
        let body = format!("{{\"error\":\"invalid key {escaped}\"}}");
        let clean = s.redact(&body);
        assert_eq!(clean, "{\"error\":\"invalid key [redacted]\"}");
        // Partly escaped, and escaped twice (a body stored inside another JSON string).
        let body = "key sk\\u002dtest\\u002d9f8e7d6c5b4a!";
        assert_eq!(s.redact(body), "key [redacted]!");
        let twice = "key sk\\\\u002dtest\\\\u002d9f8e7d6c5b4a!";
        assert_eq!(s.redact(twice), "key [redacted]!");
        // Escapes that hide nothing are left as they are.
        assert_eq!(s.redact("a \\u00e9 b \\n"), "a \\u00e9 b \\n");
    }

    #[test]
    fn non_ascii_text_around_a_secret_stays_whole() {
        let s = secrets(&["clé-secrète-2024-xyz"]);
        assert_eq!(s.redact("« clé-secrète-2024-xyz »"), "« [redacted] »");
        assert_eq!(s.redact("é".repeat(10).as_str()), "é".repeat(10));
    }
}
