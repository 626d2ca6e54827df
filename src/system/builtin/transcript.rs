//! The `transcript` system: keeps every exchange and returns all of them for every
//! question, in dialogue order, each with its time — the paper's Full Context without
//! an LLM. It never deletes: a forget request is just one more stored turn.

use super::{Clock, Spaces, format_turn};
use crate::system::{Memory, MemorySystem, Namespace, Reply, SessionInfo, SystemResult, TurnInput};

/// The transcript of one namespace.
#[derive(Debug, Clone, Default)]
struct Kept {
    clock: Clock,
    turns: Vec<Memory>,
}

/// `transcript` among the built-in systems.
pub const ENTRY: super::Entry = super::Entry {
    name: "transcript",
    make: || Box::<Transcript>::default(),
    settings: || serde_json::json!({"deletion": "none", "stores": "turns", "retrieval": "all turns"}),
};

/// Keeps the whole transcript per namespace and returns it as the memories.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    spaces: Spaces<Kept>,
}

impl MemorySystem for Transcript {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.spaces.reset(ns);
        Ok(())
    }

    fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.spaces.get(ns).clock.session(&session.date);
        Ok(())
    }

    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        let kept = self.spaces.get(ns);
        let time = kept.clock.tick();
        kept.turns.push(Memory {
            text: format_turn(&turn.user, &turn.assistant),
            time,
        });
        Ok(())
    }

    fn query(&mut self, ns: &Namespace, _question: &str) -> SystemResult<Reply> {
        Ok(Reply::Memories(
            self.spaces
                .peek(ns)
                .map(|k| k.turns.clone())
                .unwrap_or_default(),
        ))
    }
}
