//! The `transcript` system: keeps every exchange and returns all of them for every
//! question, in dialogue order — the paper's Full Context without an LLM. It never
//! deletes: a forget request is just one more stored turn.

use super::{Spaces, format_turn};
use crate::system::{MemorySystem, Namespace, Reply, SystemResult, TurnInput};

/// Keeps the whole transcript per namespace and returns it as the memories.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    spaces: Spaces<Vec<String>>,
}

impl MemorySystem for Transcript {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.spaces.reset(ns);
        Ok(())
    }

    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.spaces
            .get(ns)
            .push(format_turn(&turn.user, &turn.assistant));
        Ok(())
    }

    fn query(&mut self, ns: &Namespace, _question: &str) -> SystemResult<Reply> {
        Ok(Reply::Memories(
            self.spaces.peek(ns).cloned().unwrap_or_default(),
        ))
    }
}
