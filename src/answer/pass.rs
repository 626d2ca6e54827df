//! What readers keep of one pass (one instance on one dialogue version): the memories
//! they were given, read once for the pass instead of once per question.
//!
//! The runner makes a [`PassCache`] when a pass starts and hands it to every answer of
//! that pass ([`super::Answerer::answer_in_pass`]); it is dropped when the pass and its
//! answers are done, so what a reader built for one pass (normalised text, an index of
//! its words) never outlives it, and memory grows with the passes in flight, not with
//! the run.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// A pass's store of what readers built from its memories: one value of each type a
/// reader asks for ([`PassCache::get`]), made on first use.
#[derive(Default)]
pub struct PassCache {
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for PassCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("PassCache")
            .field("slots", &slots.len())
            .finish()
    }
}

impl PassCache {
    /// An empty store, for one pass.
    pub fn new() -> PassCache {
        PassCache::default()
    }

    /// The pass's value of type `T`, made with `T::default()` the first time it is
    /// asked for.
    pub fn get<T: Any + Send + Sync + Default>(&self) -> Arc<T> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = slots
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()))
            .clone();
        drop(slots);
        slot.downcast::<T>()
            .unwrap_or_else(|_| unreachable!("a slot holds the type it is keyed by"))
    }
}

/// Ids of the distinct memory texts of a pass, in the order first seen, with a fast
/// path for a list of memories given again (a transcript returns the same list, or
/// the same list and a few more, to every question): each text is compared with the
/// text at the same place in the previous list before it is looked up by hash.
#[derive(Debug, Default)]
pub(crate) struct MemoryIds {
    ids: HashMap<Arc<str>, u32>,
    texts: Vec<Arc<str>>,
    last: Vec<u32>,
}

impl MemoryIds {
    /// The id of each of `texts`, and the ids of those not seen before, in order (ids
    /// are given out from 0 in the order texts are first seen, so a caller keeping
    /// what it derives from each text in a list adds the new ones at its end).
    pub(crate) fn resolve<'a>(
        &mut self,
        texts: impl IntoIterator<Item = &'a str>,
    ) -> (Vec<u32>, Vec<u32>) {
        let mut out = Vec::new();
        let mut fresh = Vec::new();
        for (i, text) in texts.into_iter().enumerate() {
            let id = match self.last.get(i) {
                Some(&id) if *self.texts[id as usize] == *text => id,
                _ => match self.ids.get(text) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(self.texts.len())
                            .expect("fewer than 2^32 distinct memories in one pass");
                        let shared: Arc<str> = Arc::from(text);
                        self.ids.insert(shared.clone(), id);
                        self.texts.push(shared);
                        fresh.push(id);
                        id
                    }
                },
            };
            out.push(id);
        }
        self.last.clone_from(&out);
        (out, fresh)
    }

    /// The text of a memory id.
    pub(crate) fn text(&self, id: u32) -> &str {
        &self.texts[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Counter(std::sync::atomic::AtomicUsize);

    #[test]
    fn a_pass_cache_gives_one_value_per_type() {
        let pass = PassCache::new();
        let a = pass.get::<Counter>();
        a.0.fetch_add(3, std::sync::atomic::Ordering::SeqCst);
        let b = pass.get::<Counter>();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.0.load(std::sync::atomic::Ordering::SeqCst), 3);
        let other = PassCache::new().get::<Counter>();
        assert_eq!(other.0.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert!(format!("{pass:?}").contains("slots: 1"));
    }

    #[test]
    fn memory_ids_are_given_once_per_text() {
        let mut ids = MemoryIds::default();
        let (first, fresh) = ids.resolve(["the kettle is broken", "we met at noon"]);
        assert_eq!(first, [0, 1]);
        assert_eq!(fresh, [0, 1]);
        // The same list again, then longer, then reordered, then with a repeat.
        assert_eq!(
            ids.resolve(["the kettle is broken", "we met at noon"]),
            (vec![0, 1], vec![])
        );
        assert_eq!(
            ids.resolve(["the kettle is broken", "we met at noon", "rain later"]),
            (vec![0, 1, 2], vec![2])
        );
        assert_eq!(
            ids.resolve(["rain later", "the kettle is broken"]),
            (vec![2, 0], vec![])
        );
        assert_eq!(
            ids.resolve(["we met at noon", "we met at noon", "a new one"]),
            (vec![1, 1, 3], vec![3])
        );
        assert_eq!(ids.texts.len(), 4);
        assert_eq!(ids.text(2), "rain later");
    }
}
