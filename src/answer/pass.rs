//! What readers keep of one instance's passes (the instance on each dialogue version):
//! the memories they were given, read once instead of once per question.
//!
//! The runner makes a [`ReadingCache`] when an instance starts and hands it to every
//! answer of its two passes ([`super::Answerer::answer_in_pass`]; the two dialogues are
//! mostly the same turns, so a memory both passes retrieve is read once); it is dropped
//! when the passes and their answers are done, so what a reader built (normalised
//! text, an index of its words) never outlives them, and memory grows with the
//! instances in flight, not with the run.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

/// A hash map with a fast hash for short keys (words, memory texts) of one pass: the
/// keys are the run's own data, not an adversary's, so the default hash's resistance
/// to crafted collisions buys nothing here.
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// The multiply-rotate hash of rustc's `FxHasher`, eight bytes at a time.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct WordHasher(u64);

impl WordHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// An instance's store of what readers built from its passes' memories: one value of each type a
/// reader asks for ([`ReadingCache::get`]), made on first use.
#[derive(Default)]
pub struct ReadingCache {
    slots: Mutex<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>,
}

impl std::fmt::Debug for ReadingCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        f.debug_struct("ReadingCache")
            .field("slots", &slots.len())
            .finish()
    }
}

impl ReadingCache {
    /// An empty store, for one instance.
    pub fn new() -> ReadingCache {
        ReadingCache::default()
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

/// Ids of the distinct memory texts of an instance's passes, in the order first seen, with a fast
/// path for a list of memories given again (a transcript returns the same list, or
/// the same list and a few more, to every question): each text is compared with the
/// text at the same place in the previous list before it is looked up by hash.
#[derive(Debug, Default)]
pub(crate) struct MemoryIds {
    ids: FastMap<Arc<str>, u32>,
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
        let pass = ReadingCache::new();
        let a = pass.get::<Counter>();
        a.0.fetch_add(3, std::sync::atomic::Ordering::SeqCst);
        let b = pass.get::<Counter>();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.0.load(std::sync::atomic::Ordering::SeqCst), 3);
        let other = ReadingCache::new().get::<Counter>();
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
