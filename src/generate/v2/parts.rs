//! The small-talk inventories whose entries a session composes its sentences and
//! replies from, and sets of the entries a session has used. Each entry has the id
//! of its text (entries of equal text, in one list or two, share one), so that a
//! session marks and looks up a part in a bit set instead of hashing its text at
//! every draw.

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
    ActionVerbs,
    ActionObjects,
    Reasons,
    Closers,
    CloserFrames,
}

impl Inventory {
    const ALL: [Inventory; 15] = [
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
        Inventory::ActionVerbs,
        Inventory::ActionObjects,
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
            Inventory::ActionVerbs => &talk.action_verbs,
            Inventory::ActionObjects => &talk.action_objects,
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
    pub fn part(self, index: usize) -> Part {
        self.parts()[index]
    }

    /// One entry, uniformly (one draw, as [`Rng::text`] makes).
    pub fn draw(self, rng: &mut Rng) -> Part {
        let parts = self.parts();
        parts[rng.below(parts.len())]
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
