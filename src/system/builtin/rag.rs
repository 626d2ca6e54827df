//! Turn-level BM25 retrieval (the top 5, best first, each with its time): `naive-rag`,
//! which has no deletion path at all, and
//! `wipe`, which deletes everything stored in the namespace whenever it recognises a
//! forget request (the recogniser of [`super::request`]) and goes on storing later
//! turns.

use super::request::is_forget_request;
use super::{Clock, Spaces, TOP_K, format_turn};
use crate::system::{Memory, MemorySystem, Namespace, Reply, SessionInfo, SystemResult, TurnInput};
use crate::text::{Bm25, DocId, content_terms};
use std::collections::BTreeMap;

/// Stored exchanges of one namespace with their BM25 index.
#[derive(Debug, Clone, Default)]
pub struct TurnStore {
    index: Bm25,
    texts: BTreeMap<DocId, Memory>,
    next: DocId,
    clock: Clock,
}

impl TurnStore {
    /// Stores one exchange (user utterance and assistant reply as one document).
    pub fn add(&mut self, turn: &TurnInput) {
        let text = format_turn(&turn.user, &turn.assistant);
        let id = self.next;
        self.next += 1;
        self.index.add(id, &content_terms(&text));
        let time = self.clock.tick();
        self.texts.insert(id, Memory { text, time });
    }

    /// A session starts on `date`: the time of the exchanges stored next.
    pub fn session(&mut self, date: &str) {
        self.clock.session(date);
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
    /// later ones), best first, each with its time, so that the answerer prefers the
    /// most recent of near-tied statements.
    pub fn search(&self, question: &str) -> Vec<Memory> {
        self.index
            .search(&content_terms(question), TOP_K)
            .into_iter()
            .filter_map(|hit| self.texts.get(&hit.id).cloned())
            .collect()
    }
}

/// `naive-rag` among the built-in systems.
pub const NAIVE_RAG: super::Entry = super::Entry {
    name: "naive-rag",
    make: || Box::<NaiveRag>::default(),
    settings: || super::bm25_settings(serde_json::json!({"deletion": "none", "stores": "turns"})),
};

/// `wipe` among the built-in systems.
pub const WIPE: super::Entry = super::Entry {
    name: "wipe",
    make: || Box::<Wipe>::default(),
    settings: || {
        super::bm25_settings(serde_json::json!({
            "deletion": "everything on any forget request",
            "recogniser": "rules",
            "stores": "turns",
        }))
    },
};

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

    fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.spaces.get(ns).session(&session.date);
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

    fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.spaces.get(ns).session(&session.date);
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
