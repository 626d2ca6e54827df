//! The built-in reference systems, all in-process and deterministic:
//!
//! | name | stores | retrieval | deletion |
//! |---|---|---|---|
//! | `null` | nothing | none | – |
//! | `transcript` | every turn | all turns, in dialogue order | none |
//! | `naive-rag` | every turn | BM25, top 5 (in stored order) | none |
//! | `wipe` | every turn | BM25, top 5 | everything, on any forget request |
//! | `scoped-forget` | user sentences | BM25, top 5 | what the request names ([`scoped`]) |
//!
//! The instruments of [`instrument`] (`oracle-forget`, `oracle-wipe`) are not among
//! them: they read the dataset and are made from it.
//!
//! None of them sees anything but the protocol's calls: they never read a dataset,
//! its generator or any question metadata. Each keeps its namespaces apart, and
//! `reset` clears only the namespace it names.

pub use crate::text::dates;
pub mod instrument;
pub mod lexicon;
pub mod null;
pub mod rag;
pub mod request;
pub mod scoped;
pub mod transcript;

pub use null::Null;
pub use rag::{NaiveRag, Wipe};
pub use scoped::ScopedForget;
pub use transcript::Transcript;

use super::{AsyncMemorySystem, Namespace, SharedFactory, SystemFactory, SystemInfo, SystemResult};
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// One built-in system, as its file declares it: its name, how one is made, and the
/// settings its reports record.
#[derive(Clone, Copy)]
pub struct Entry {
    /// The name a spec gives it (`--system NAME`).
    pub name: &'static str,
    /// A fresh system, empty in every namespace.
    pub make: fn() -> Box<dyn AsyncMemorySystem>,
    /// What its reports record of it (`SystemInfo::settings`).
    pub settings: fn() -> Value,
}

/// Every built-in system, in the order reports list them. Adding one is its file, which
/// declares its [`Entry`], and its line here (beside the file's `mod` line above).
const REGISTRY: &[Entry] = &[
    null::ENTRY,
    transcript::ENTRY,
    rag::NAIVE_RAG,
    rag::WIPE,
    scoped::ENTRY,
];

/// Names of the built-in systems, in the order reports list them.
pub const NAMES: [&str; REGISTRY.len()] = {
    let mut names = [""; REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        names[i] = REGISTRY[i].name;
        i += 1;
    }
    names
};

/// How many memories the retrieving systems return per query (the paper's Naive RAG
/// budget).
pub const TOP_K: usize = 5;

/// The BM25 settings the retrieving systems record.
pub(crate) fn bm25_settings(mut settings: Value) -> Value {
    if let Value::Object(map) = &mut settings {
        map.insert("retrieval".into(), json!("bm25"));
        map.insert("top_k".into(), json!(TOP_K));
        map.insert("k1".into(), json!(1.2));
        map.insert("b".into(), json!(0.75));
    }
    settings
}

/// The factory of a built-in system by name; `None` for an unknown name.
pub fn factory(name: &str) -> Option<SharedFactory> {
    let entry = REGISTRY.iter().find(|e| e.name == name)?;
    let settings = match (entry.settings)() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    Some(Arc::new(Builtin {
        name: entry.name.to_string(),
        make: entry.make,
        settings,
    }))
}

/// The factory of one built-in system.
struct Builtin {
    name: String,
    make: fn() -> Box<dyn AsyncMemorySystem>,
    settings: Map<String, Value>,
}

#[async_trait]
impl SystemFactory for Builtin {
    async fn make(&self, _ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        Ok((self.make)())
    }

    fn info(&self) -> SystemInfo {
        SystemInfo {
            name: self.name.clone(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            settings: self.settings.clone(),
        }
    }
}

/// Per-namespace state of a system: each namespace gets its own `T`, made on first use.
#[derive(Debug, Clone)]
pub struct Spaces<T> {
    map: HashMap<Namespace, T>,
}

impl<T> Default for Spaces<T> {
    fn default() -> Spaces<T> {
        Spaces {
            map: HashMap::new(),
        }
    }
}

impl<T: Default> Spaces<T> {
    /// The state of a namespace, made empty on first use.
    pub fn get(&mut self, ns: &Namespace) -> &mut T {
        self.map.entry(ns.clone()).or_default()
    }

    /// The state of a namespace, if it has any.
    pub fn peek(&self, ns: &Namespace) -> Option<&T> {
        self.map.get(ns)
    }

    /// Drops a namespace's state, leaving the others as they are.
    pub fn reset(&mut self, ns: &Namespace) {
        self.map.remove(ns);
    }
}

/// The time the built-in systems give a memory: the date of the session it was learnt
/// in, with its place in the namespace's dialogue as the time of day (a logical clock,
/// one second a turn), so a later turn is always newer, also within one day. `None`
/// when the session's date is not an ISO 8601 date.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    date: Option<String>,
    ticks: u32,
}

impl Clock {
    /// A session starts on `date`.
    pub fn session(&mut self, date: &str) {
        let date = date.trim();
        let iso = date.len() == 10
            && date.char_indices().all(|(i, c)| {
                if i == 4 || i == 7 {
                    c == '-'
                } else {
                    c.is_ascii_digit()
                }
            });
        self.date = iso.then(|| date.to_string());
    }

    /// The time of the next memory.
    pub fn tick(&mut self) -> Option<String> {
        let t = self.ticks.min(86_399);
        self.ticks += 1;
        let date = self.date.as_ref()?;
        Some(format!(
            "{date}T{:02}:{:02}:{:02}",
            t / 3600,
            t / 60 % 60,
            t % 60
        ))
    }
}

/// One exchange as a memory: `User: …` and `Assistant: …` on two lines.
pub fn format_turn(user: &str, assistant: &str) -> String {
    format!("User: {}\nAssistant: {}", user.trim(), assistant.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_factory_with_settings() {
        for name in NAMES {
            let f = factory(name).unwrap_or_else(|| panic!("no factory for {name}"));
            let info = f.info();
            assert_eq!(info.name, name);
            assert_eq!(info.version.as_deref(), Some(env!("CARGO_PKG_VERSION")));
            assert!(info.settings.contains_key("deletion"), "{name}");
        }
        assert!(factory("mem0").is_none());
    }

    #[test]
    fn spaces_are_apart() {
        let mut s: Spaces<Vec<u8>> = Spaces::default();
        let a = Namespace("a/forget".into());
        let b = Namespace("b/forget".into());
        s.get(&a).push(1);
        s.get(&b).push(2);
        s.reset(&a);
        assert!(s.peek(&a).is_none());
        assert_eq!(s.peek(&b), Some(&vec![2]));
    }
}
