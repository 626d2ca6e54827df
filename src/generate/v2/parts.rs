//! The small-talk inventories whose entries a session composes its sentences and
//! replies from, and sets of the entries a session has used. Each entry has the id
//! of its text (entries of equal text, in one list or two, share one), so that a
//! session marks and looks up a part in a bit set instead of hashing its text at
//! every draw.
//!
//! An entry is a small grammar: `[a|b|c]` says one of its alternatives (which may be
//! empty, and may hold groups of their own), `{name}` is a slot the composing code
//! fills. [`expand`] picks the alternatives, so that one entry says many sentences.

use super::data::data;
use crate::generate::rng::Rng;
use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// An inventory of `talk.json` whose entries are parts, named after its field of
/// [`Talk`](super::data::Talk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inventory {
    AskFrames,
    Constraints,
    Times,
    Happenings,
    DeletionHappenings,
    Reactions,
    AssistantOpens,
    AdviceFrames,
    Actions,
    Connectors,
    Reasons,
    Closers,
    CloserFrames,
}

impl Inventory {
    const ALL: [Inventory; 13] = [
        Inventory::AskFrames,
        Inventory::Constraints,
        Inventory::Times,
        Inventory::Happenings,
        Inventory::DeletionHappenings,
        Inventory::Reactions,
        Inventory::AssistantOpens,
        Inventory::AdviceFrames,
        Inventory::Actions,
        Inventory::Connectors,
        Inventory::Reasons,
        Inventory::Closers,
        Inventory::CloserFrames,
    ];

    /// The entries.
    pub fn entries(self) -> &'static [String] {
        let talk = &data().talk;
        match self {
            Inventory::AskFrames => &talk.ask_frames,
            Inventory::Constraints => &talk.constraints,
            Inventory::Times => &talk.times,
            Inventory::Happenings => &talk.happenings,
            Inventory::DeletionHappenings => &talk.deletion_happenings,
            Inventory::Reactions => &talk.reactions,
            Inventory::AssistantOpens => &talk.assistant_opens,
            Inventory::AdviceFrames => &talk.advice_frames,
            Inventory::Actions => &talk.actions,
            Inventory::Connectors => &talk.connectors,
            Inventory::Reasons => &talk.reasons,
            Inventory::Closers => &talk.closers,
            Inventory::CloserFrames => &talk.closer_frames,
        }
    }

    /// The entries, as parts.
    fn parts(self) -> &'static [Part] {
        &PARTS.of[self as usize]
    }

    /// The entry at `index`, as a part.
    #[cfg(test)]
    pub fn part(self, index: usize) -> Part {
        self.parts()[index]
    }

    /// One entry, uniformly (one draw, as [`Rng::text`] makes).
    pub fn draw(self, rng: &mut Rng) -> Part {
        let parts = self.parts();
        parts[rng.below(parts.len())]
    }
}

/// The text of an inventory entry with every alternation group (`[a|b|c]`, nested or
/// not, alternatives possibly empty) replaced by one of its alternatives, drawn
/// uniformly; runs of spaces that an empty alternative leaves become one, and a space
/// before a comma or an end mark goes. Slots (`{name}`) are left as they are.
pub fn expand(rng: &mut Rng, text: &str) -> String {
    if !text.contains('[') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    expand_into(rng, text, &mut out);
    tidy(&out)
}

fn expand_into(rng: &mut Rng, text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let (alternatives, after) = group(&rest[open + 1..]);
        let chosen = alternatives[rng.below(alternatives.len())];
        expand_into(rng, chosen, out);
        rest = after;
    }
    out.push_str(rest);
}

/// The top-level alternatives of a group whose `[` came just before `text`, and the
/// text after its `]`. A group left open runs to the end (the data's tests reject one).
fn group(text: &str) -> (Vec<&str>, &str) {
    let (mut depth, mut start, mut alternatives) = (0usize, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => {
                alternatives.push(&text[start..i]);
                return (alternatives, &text[i + 1..]);
            }
            ']' => depth -= 1,
            '|' if depth == 0 => {
                alternatives.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    alternatives.push(&text[start..]);
    (alternatives, "")
}

/// One space between words, none before `,`, `;`, `:`, `.`, `!` or `?`, none at
/// either end.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        let glued = word.starts_with([',', ';', ':', '.', '!', '?']);
        if !out.is_empty() && !glued {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Why an entry is not a well-formed grammar, if it is not: a group left open or
/// closed twice, an empty group, a group of one alternative, or an end mark (`.`,
/// `!`, `?`) inside a group (sentences are told apart before groups are expanded).
#[cfg(test)]
pub fn grammar_problem(text: &str) -> Option<String> {
    let mut depth = 0usize;
    // Per open group: how many alternatives so far, and whether the current is empty.
    let mut open: Vec<(usize, bool)> = Vec::new();
    for c in text.chars() {
        match c {
            '[' => {
                depth += 1;
                if let Some(top) = open.last_mut() {
                    top.1 = false;
                }
                open.push((1, true));
            }
            ']' => {
                let Some((alternatives, empty)) = open.pop() else {
                    return Some("a `]` closes no group".into());
                };
                depth -= 1;
                if alternatives == 1 && empty {
                    return Some("an empty group `[]`".into());
                }
                if alternatives == 1 {
                    return Some("a group of one alternative".into());
                }
            }
            '|' if depth > 0 => {
                if let Some(top) = open.last_mut() {
                    *top = (top.0 + 1, true);
                }
            }
            '|' => return Some("a `|` outside any group".into()),
            '.' | '!' | '?' if depth > 0 => {
                return Some(format!("an end mark `{c}` inside a group"));
            }
            _ => {
                if let Some(top) = open.last_mut() {
                    top.1 = false;
                }
            }
        }
    }
    (depth > 0).then(|| "a group left open".into())
}

/// An inventory entry.
#[derive(Debug, Clone, Copy)]
pub struct Part {
    /// Its text.
    pub text: &'static str,
    /// The id of its text.
    id: usize,
}

/// Every inventory's entries as parts, by [`Inventory`] and index.
struct Parts {
    of: Vec<Vec<Part>>,
    /// How many distinct texts they hold.
    count: usize,
}

static PARTS: LazyLock<Parts> = LazyLock::new(|| {
    let mut by_text: FxHashMap<&str, usize> = FxHashMap::default();
    let of = Inventory::ALL
        .iter()
        .map(|inventory| {
            inventory
                .entries()
                .iter()
                .map(|entry| {
                    let next = by_text.len();
                    Part {
                        text: entry,
                        id: *by_text.entry(entry).or_insert(next),
                    }
                })
                .collect()
        })
        .collect();
    Parts {
        of,
        count: by_text.len(),
    }
});

/// A set of parts, by the text of each.
pub struct PartSet(Vec<u64>);

impl PartSet {
    /// The empty set.
    pub fn new() -> PartSet {
        PartSet(vec![0; PARTS.count.div_ceil(64)])
    }

    /// Whether a part of the same text is in the set.
    pub fn contains(&self, part: Part) -> bool {
        self.0[part.id / 64] & (1 << (part.id % 64)) != 0
    }

    /// Adds the part.
    pub fn insert(&mut self, part: Part) {
        self.0[part.id / 64] |= 1 << (part.id % 64);
    }
}

impl Part {
    /// Its text, each alternation group expanded ([`expand`]).
    pub fn say(self, rng: &mut Rng) -> String {
        expand(rng, self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_picks_one_alternative_of_each_group_nested_or_empty() {
        let mut rng = Rng::new(1);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..400 {
            let s = expand(
                &mut rng,
                "I [really |][liked|enjoyed [the|that] walk] , {topic}.",
            );
            seen.insert(s);
        }
        let expected: std::collections::BTreeSet<String> = [
            "I liked, {topic}.",
            "I really liked, {topic}.",
            "I enjoyed the walk, {topic}.",
            "I really enjoyed the walk, {topic}.",
            "I enjoyed that walk, {topic}.",
            "I really enjoyed that walk, {topic}.",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(seen, expected);
        assert_eq!(expand(&mut rng, "No groups here."), "No groups here.");
    }

    #[test]
    fn grammar_problems_are_named() {
        assert_eq!(grammar_problem("[a|b] and [c|[d|e]]"), None);
        assert_eq!(grammar_problem("[a |]b"), None);
        assert!(grammar_problem("[a|b").unwrap().contains("left open"));
        assert!(grammar_problem("a]").unwrap().contains("closes no group"));
        assert!(grammar_problem("[]").unwrap().contains("empty group"));
        assert!(grammar_problem("[a]").unwrap().contains("one alternative"));
        assert!(grammar_problem("[a. B|c]").unwrap().contains("end mark"));
        assert!(grammar_problem("a | b").unwrap().contains("outside"));
    }

    #[test]
    fn the_enum_lists_every_inventory_in_order() {
        for (i, inventory) in Inventory::ALL.iter().enumerate() {
            assert_eq!(*inventory as usize, i);
            assert!(!inventory.entries().is_empty(), "{inventory:?}");
        }
    }

    #[test]
    fn parts_of_equal_text_are_one_in_a_set() {
        let mut set = PartSet::new();
        let a = Inventory::Reasons.part(0);
        assert!(!set.contains(a));
        set.insert(a);
        assert!(set.contains(a));
        for inventory in Inventory::ALL {
            for (i, entry) in inventory.entries().iter().enumerate() {
                let part = inventory.part(i);
                assert_eq!(part.text, entry);
                assert_eq!(set.contains(part), entry == a.text, "{entry}");
            }
        }
    }
}
