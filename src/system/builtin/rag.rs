//! Turn-level BM25 retrieval (the top 5, returned in the order they were stored): `naive-rag`, which has no deletion path at all, and
//! `wipe`, which deletes everything stored in the namespace whenever it recognises a
//! forget request (the recogniser of [`super::request`]) and goes on storing later
//! turns.

use super::request::is_forget_request;
use super::{Spaces, TOP_K, format_turn};
use crate::system::{MemorySystem, Namespace, Reply, SystemResult, TurnInput};
use crate::text::{Bm25, DocId, content_terms};
use std::collections::BTreeMap;

/// Stored exchanges of one namespace with their BM25 index.
#[derive(Debug, Clone, Default)]
pub struct TurnStore {
    index: Bm25,
    texts: BTreeMap<DocId, String>,
    next: DocId,
}

impl TurnStore {
    /// Stores one exchange (user utterance and assistant reply as one document).
    pub fn add(&mut self, turn: &TurnInput) {
        let text = format_turn(&turn.user, &turn.assistant);
        let id = self.next;
        self.next += 1;
        self.index.add(id, &content_terms(&text));
        self.texts.insert(id, text);
    }

    /// Deletes everything stored.
    pub fn clear(&mut self) {
        self.index.clear();
        self.texts.clear();
    }

    /// Number of stored exchanges.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The [`TOP_K`] exchanges that best match the question (on equal scores the
    /// later ones), returned in the order they were stored, so that the answerer's
    /// tie rule (the later memory wins) favours the most recent statement.
    pub fn search(&self, question: &str) -> Vec<String> {
        let mut hits = self.index.search(&content_terms(question), TOP_K);
        hits.sort_by_key(|hit| hit.id);
        hits.into_iter()
            .filter_map(|hit| self.texts.get(&hit.id).cloned())
            .collect()
    }
}

/// BM25 (k1 1.2, b 0.75) over stored exchanges, top 5; no deletion path.
#[derive(Debug, Clone, Default)]
pub struct NaiveRag {
    spaces: Spaces<TurnStore>,
}

impl MemorySystem for NaiveRag {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.spaces.reset(ns);
        Ok(())
    }

    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.spaces.get(ns).add(turn);
        Ok(())
    }

    fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        Ok(Reply::Memories(
            self.spaces
                .peek(ns)
                .map(|s| s.search(question))
                .unwrap_or_default(),
        ))
    }
}

/// Like [`NaiveRag`], but a recognised forget request deletes everything stored so
/// far in the namespace (the request turn itself is not stored).
#[derive(Debug, Clone, Default)]
pub struct Wipe {
    spaces: Spaces<TurnStore>,
}

impl MemorySystem for Wipe {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.spaces.reset(ns);
        Ok(())
    }

    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        let store = self.spaces.get(ns);
        if is_forget_request(&turn.user) {
            store.clear();
        } else {
            store.add(turn);
        }
        Ok(())
    }

    fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        Ok(Reply::Memories(
            self.spaces
                .peek(ns)
                .map(|s| s.search(question))
                .unwrap_or_default(),
        ))
    }
}
