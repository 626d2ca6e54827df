//! Text from outside bemula (adapter names, answers, error messages, stderr tails)
//! made safe to print: control characters and escape sequences are shown as escapes,
//! so such text can neither move the cursor, set the terminal title nor print a row of
//! its own into a table; and free of secrets ([`crate::redact`]).

use std::borrow::Cow;

/// `text` for one line or one table cell: every control character is shown escaped,
/// line breaks included (`\n`, `\r`, `\t`, others as `\u{1b}`), as are the Unicode
/// controls that reorder text (bidirectional overrides and isolates).
pub fn inline(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` that may span lines: like [`inline`] but line feeds are kept.
pub fn lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

fn needs_escape(c: char, keep_newlines: bool) -> bool {
    (c.is_control() && !(keep_newlines && c == '\n'))
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    match crate::redact::redact(text) {
        Cow::Borrowed(_) => escape_controls(text, keep_newlines),
        Cow::Owned(clean) => Cow::Owned(escape_controls(&clean, keep_newlines).into_owned()),
    }
}

fn escape_controls(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    if !text.chars().any(|c| needs_escape(c, keep_newlines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !needs_escape(c, keep_newlines) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_line_breaks_are_shown_not_obeyed() {
        assert_eq!(
            inline("\u{1b}]0;pwned\u{7}My System"),
            "\\u{1b}]0;pwned\\u{7}My System"
        );
        assert_eq!(inline("a\nfake | row\r\tx"), "a\\nfake | row\\r\\tx");
        assert_eq!(
            inline("csi \u{9b}2J del \u{7f}"),
            "csi \\u{9b}2J del \\u{7f}"
        );
        assert_eq!(inline("rtl \u{202e}txt.exe"), "rtl \\u{202e}txt.exe");
    }

    #[test]
    fn plain_text_is_left_alone() {
        assert!(matches!(
            inline("Denver, Colorado ✓ café"),
            Cow::Borrowed(_)
        ));
        assert_eq!(lines("first\nsecond \u{1b}[2J"), "first\nsecond \\u{1b}[2J");
    }
}
