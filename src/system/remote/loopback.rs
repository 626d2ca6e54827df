//! `loopback`: a trivial memory system for testing adapters and measuring transports.
//! It stores every user utterance and answers a query with the stored utterances that
//! share a word with the question, best overlap first. It never forgets on request.

use crate::system::{
    AsyncMemorySystem, MemorySystem, Namespace, Reply, SharedFactory, SystemFactory, SystemInfo,
    SystemResult, TurnInput,
};
use async_trait::async_trait;
use serde_json::json;
use std::collections::HashSet;
use std::sync::Arc;

/// The name `bemula serve --system` knows this system by.
pub const NAME: &str = "loopback";

/// How many memories a query returns at most.
pub const TOP_K: usize = 5;

/// The loopback system of one namespace.
#[derive(Debug, Default, Clone)]
pub struct LoopbackMemory {
    turns: Vec<String>,
}

/// The words of a text that count for matching: lowercase, alphanumeric, 3+ characters.
fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

impl MemorySystem for LoopbackMemory {
    fn reset(&mut self, _ns: &Namespace) -> SystemResult<()> {
        self.turns.clear();
        Ok(())
    }

    fn observe(&mut self, _ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.turns.push(turn.user.clone());
        Ok(())
    }

    fn query(&mut self, _ns: &Namespace, question: &str) -> SystemResult<Reply> {
        let asked = words(question);
        let mut scored: Vec<(usize, usize)> = self
            .turns
            .iter()
            .enumerate()
            .map(|(i, turn)| (words(turn).intersection(&asked).count(), i))
            .filter(|(score, _)| *score > 0)
            .collect();
        // Best overlap first; among equals, the most recent first.
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        Ok(Reply::Memories(
            scored
                .into_iter()
                .take(TOP_K)
                .map(|(_, i)| crate::system::Memory::from(&self.turns[i]))
                .collect(),
        ))
    }
}

/// Makes loopback systems; its info announces `memories` queries and no deletion path.
#[derive(Debug, Default, Clone, Copy)]
pub struct LoopbackFactory;

#[async_trait]
impl SystemFactory for LoopbackFactory {
    async fn make(&self, _ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        Ok(Box::new(LoopbackMemory::default()))
    }

    fn info(&self) -> SystemInfo {
        let settings = json!({
            "deletion": "none (stores every user utterance, never removes one)",
            "top_k": TOP_K,
            "capabilities": {"query": "memories", "flush": false, "sessions": false},
        });
        SystemInfo {
            name: NAME.to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            settings: settings.as_object().cloned().unwrap_or_default(),
        }
    }
}

/// A shared factory of loopback systems.
pub fn factory() -> SharedFactory {
    Arc::new(LoopbackFactory)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returns_overlapping_turns_best_first() {
        let ns = Namespace("a/forget".into());
        let mut m = LoopbackMemory::default();
        for (i, text) in ["my dog is Rex", "my dog Rex likes parks", "I live in Oslo"]
            .iter()
            .enumerate()
        {
            let turn = TurnInput {
                index: i,
                user: text.to_string(),
                assistant: String::new(),
            };
            MemorySystem::observe(&mut m, &ns, &turn).unwrap();
        }
        let reply = MemorySystem::query(&mut m, &ns, "Where does my dog Rex go?").unwrap();
        assert_eq!(
            reply,
            Reply::memories(["my dog Rex likes parks", "my dog is Rex"])
        );
        MemorySystem::reset(&mut m, &ns).unwrap();
        assert_eq!(
            MemorySystem::query(&mut m, &ns, "dog").unwrap(),
            Reply::Memories(vec![])
        );
    }
}
