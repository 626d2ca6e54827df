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

/// The words an entry's expansions may say ([`Sayable::words`]) and the pairs of
/// words one of them may say in a row ([`Sayable::bigrams`]), of every expansion at
/// once, without expanding: a value that no grammar can say word after word is
/// said by none of its expansions. Words are lower case, split at anything but
/// letters, digits, `'` and `-`; a slot breaks a run of words.
#[derive(Debug, Default)]
pub struct Sayable {
    /// Every word.
    pub words: rustc_hash::FxHashSet<String>,
    /// Every pair of words said in a row.
    pub bigrams: rustc_hash::FxHashSet<(String, String)>,
}

impl Sayable {
    /// Adds what `entry` may say.
    pub fn add(&mut self, entry: &str) {
        let node = Node::parse(entry);
        node.summarise(self);
    }

    /// Whether some expansion of an added entry may say `phrase`'s words in a row
    /// (all its bigrams are sayable: a necessary condition, so `false` is certain).
    pub fn may_say(&self, phrase: &str) -> bool {
        let words = say_words(phrase);
        match words.as_slice() {
            [] => false,
            [w] => self.words.contains(w),
            _ => words
                .windows(2)
                .all(|p| self.bigrams.contains(&(p[0].clone(), p[1].clone()))),
        }
    }
}

fn say_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// A parsed grammar: words in a row, a slot, a sequence or a choice.
enum Node {
    Words(Vec<String>),
    Slot,
    Seq(Vec<Node>),
    Alt(Vec<Node>),
}

/// What a node says at its edges: its first and last words (`None`: a slot or
/// nothing), and whether it may say nothing.
struct Edges {
    first: Vec<Option<String>>,
    last: Vec<Option<String>>,
    empty: bool,
}

impl Node {
    fn parse(text: &str) -> Node {
        let mut items = Vec::new();
        let mut rest = text;
        loop {
            let next = rest.find(['[', '{']);
            let (plain, after) = match next {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            };
            let words = say_words(plain);
            if !words.is_empty() {
                items.push(Node::Words(words));
            }
            if after.is_empty() {
                break;
            }
            if let Some(slot) = after.strip_prefix('{') {
                items.push(Node::Slot);
                rest = slot.split_once('}').map_or("", |(_, r)| r);
            } else {
                let (alternatives, tail) = group(&after[1..]);
                items.push(Node::Alt(
                    alternatives.into_iter().map(Node::parse).collect(),
                ));
                rest = tail;
            }
        }
        Node::Seq(items)
    }

    /// Adds the node's words and inner bigrams to `out`; returns its edges.
    fn summarise(&self, out: &mut Sayable) -> Edges {
        match self {
            Node::Words(words) => {
                out.words.extend(words.iter().cloned());
                for p in words.windows(2) {
                    out.bigrams.insert((p[0].clone(), p[1].clone()));
                }
                Edges {
                    first: vec![words.first().cloned()],
                    last: vec![words.last().cloned()],
                    empty: words.is_empty(),
                }
            }
            Node::Slot => Edges {
                first: vec![None],
                last: vec![None],
                empty: false,
            },
            Node::Alt(alternatives) => {
                let mut edges = Edges {
                    first: Vec::new(),
                    last: Vec::new(),
                    empty: false,
                };
                for a in alternatives {
                    let e = a.summarise(out);
                    edges.first.extend(e.first);
                    edges.last.extend(e.last);
                    edges.empty |= e.empty;
                }
                edges
            }
            Node::Seq(items) => {
                let mut edges = Edges {
                    first: Vec::new(),
                    last: Vec::new(),
                    empty: true,
                };
                for item in items {
                    let e = item.summarise(out);
                    for a in edges.last.iter().flatten() {
                        for b in e.first.iter().flatten() {
                            out.bigrams.insert((a.clone(), b.clone()));
                        }
                    }
                    if edges.empty {
                        edges.first.extend(e.first.iter().cloned());
                    }
                    if e.empty {
                        edges.last.extend(e.last);
                    } else {
                        edges.last = e.last;
                    }
                    edges.empty &= e.empty;
                }
                edges.first.sort();
                edges.first.dedup();
                edges.last.sort();
                edges.last.dedup();
                edges
            }
        }
    }
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
    fn sayable_phrases_are_found_across_groups_and_unsayable_ones_are_not() {
        let mut sayable = Sayable::default();
        sayable.add("I [waited|queued] [for [two|three]|] [weeks|days] at {place}, honestly.");
        sayable.add("Plain text about six months.");
        for phrase in [
            "three weeks",
            "waited for two",
            "queued days",
            "two days",
            "six months",
        ] {
            assert!(sayable.may_say(phrase), "{phrase}");
        }
        // An empty alternative joins its neighbours; a slot breaks the run.
        assert!(sayable.may_say("waited weeks"));
        for phrase in [
            "two weeks at honestly",
            "four weeks",
            "weeks honestly",
            "months",
        ] {
            assert_eq!(sayable.may_say(phrase), phrase == "months", "{phrase}");
        }
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
