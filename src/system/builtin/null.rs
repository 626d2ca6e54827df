//! The `null` system: stores nothing and retrieves nothing. It forgets perfectly and
//! remembers nothing, so the paired control probes give it no credit for forgetting.

use crate::system::{MemorySystem, Namespace, Reply, SystemResult, TurnInput};

/// Stores nothing; every query returns no memories.
#[derive(Debug, Clone, Copy, Default)]
pub struct Null;

/// `null` among the built-in systems.
pub const ENTRY: super::Entry = super::Entry {
    name: "null",
    make: || Box::new(Null),
    settings: || serde_json::json!({"deletion": "none", "stores": "nothing"}),
};

impl MemorySystem for Null {
    fn reset(&mut self, _ns: &Namespace) -> SystemResult<()> {
        Ok(())
    }

    fn observe(&mut self, _ns: &Namespace, _turn: &TurnInput) -> SystemResult<()> {
        Ok(())
    }

    fn query(&mut self, _ns: &Namespace, _question: &str) -> SystemResult<Reply> {
        Ok(Reply::Memories(Vec::new()))
    }
}
