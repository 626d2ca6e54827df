//! The on-disk response cache: one JSON file per reply, named by the SHA-256 of
//! everything that determines the reply, written atomically (temporary file, then
//! rename) so that concurrent processes can share a directory and an interrupted run
//! resumes without paying twice.

use super::LlmError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Format tag of a cache entry.
const ENTRY_FORMAT: &str = "bemula-llm-cache/1";

/// Numbers temporary files process-wide, so that two caches over one directory in the
/// same process never pick the same temporary name (the process id separates
/// processes).
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Everything that determines a reply. Timeouts, concurrency, retries and the API key
/// are deliberately absent: they change how a reply is fetched, not what it says.
#[derive(Debug, Serialize)]
pub struct CacheKey<'a> {
    /// Base URL of the endpoint.
    pub base_url: &'a str,
    /// Model id.
    pub model: &'a str,
    /// Version of the prompt template (e.g. `judge-v1`).
    pub prompt_version: &'a str,
    /// The messages sent.
    pub messages: &'a [super::Message],
    /// Sampling temperature.
    pub temperature: f64,
    /// Reply budget.
    pub max_tokens: u32,
}

impl CacheKey<'_> {
    /// The SHA-256 (hex) of the key's canonical JSON.
    pub fn digest(&self) -> String {
        let json = serde_json::to_vec(self).expect("a cache key always serialises");
        let hash = Sha256::digest(&json);
        let mut out = String::with_capacity(64);
        for b in hash.iter() {
            let _ = write!(out, "{b:02x}");
        }
        out
    }
}

/// A cached reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// Format tag.
    pub format: String,
    /// Model id (for people browsing the cache).
    pub model: String,
    /// Prompt version (for people browsing the cache).
    pub prompt_version: String,
    /// The reply text.
    pub content: String,
    /// Prompt tokens the original call cost.
    pub prompt_tokens: u64,
    /// Completion tokens the original call cost.
    pub completion_tokens: u64,
}

impl CacheEntry {
    /// An entry for a reply.
    pub fn new(
        model: &str,
        prompt_version: &str,
        content: &str,
        prompt_tokens: u64,
        completion_tokens: u64,
    ) -> CacheEntry {
        CacheEntry {
            format: ENTRY_FORMAT.to_string(),
            model: model.to_string(),
            prompt_version: prompt_version.to_string(),
            content: content.to_string(),
            prompt_tokens,
            completion_tokens,
        }
    }
}

/// A cache directory: `<dir>/<first two hex digits>/<digest>.json`.
#[derive(Debug)]
pub struct ResponseCache {
    dir: PathBuf,
}

impl ResponseCache {
    /// A cache in `dir` (created on first write).
    pub fn new(dir: impl Into<PathBuf>) -> ResponseCache {
        ResponseCache { dir: dir.into() }
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, digest: &str) -> PathBuf {
        self.dir.join(&digest[..2]).join(format!("{digest}.json"))
    }

    /// The cached reply for a digest, if any. A missing, unreadable or corrupt entry
    /// (e.g. from a disk that filled up) is a miss: the call is made again and the
    /// entry rewritten.
    pub async fn get(&self, digest: &str) -> Option<CacheEntry> {
        let bytes = self.get_raw(digest).await?;
        let entry: CacheEntry = serde_json::from_slice(&bytes).ok()?;
        (entry.format == ENTRY_FORMAT).then_some(entry)
    }

    /// The bytes stored under a digest, if any (entries of other kinds than chat
    /// replies, e.g. embedding vectors, which check their own format).
    pub async fn get_raw(&self, digest: &str) -> Option<Vec<u8>> {
        tokio::fs::read(self.path_of(digest)).await.ok()
    }

    /// Stores a reply atomically: written to a temporary file in the same directory,
    /// then renamed over the final name, so a reader never sees half an entry.
    pub async fn put(&self, digest: &str, entry: &CacheEntry) -> Result<(), LlmError> {
        let bytes = serde_json::to_vec_pretty(entry).expect("a cache entry always serialises");
        self.put_raw(digest, &bytes).await
    }

    /// Stores bytes under a digest atomically, as [`ResponseCache::put`] does.
    pub async fn put_raw(&self, digest: &str, bytes: &[u8]) -> Result<(), LlmError> {
        let path = self.path_of(digest);
        let parent = path.parent().expect("entry paths have a parent");
        let cache_err = |path: &Path, e: std::io::Error| LlmError::Cache {
            path: path.to_path_buf(),
            detail: e.to_string(),
        };
        tokio::fs::create_dir_all(parent)
            .await
            .map_err(|e| cache_err(parent, e))?;
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = parent.join(format!(".{digest}.{}.{n}.tmp", std::process::id()));
        tokio::fs::write(&temp, bytes)
            .await
            .map_err(|e| cache_err(&temp, e))?;
        if let Err(e) = tokio::fs::rename(&temp, &path).await {
            let _ = tokio::fs::remove_file(&temp).await;
            return Err(cache_err(&path, e));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;

    fn key<'a>(messages: &'a [Message], model: &'a str, t: f64) -> CacheKey<'a> {
        CacheKey {
            base_url: "http://x/v1",
            model,
            prompt_version: "judge-v1",
            messages,
            temperature: t,
            max_tokens: 10,
        }
    }

    #[test]
    fn digest_depends_on_every_field() {
        let m = vec![Message::user("hi")];
        let other = vec![Message::user("hi!")];
        let base = key(&m, "a", 0.0).digest();
        assert_eq!(base.len(), 64);
        assert_eq!(base, key(&m, "a", 0.0).digest());
        assert_ne!(base, key(&m, "b", 0.0).digest());
        assert_ne!(base, key(&m, "a", 0.5).digest());
        assert_ne!(base, key(&other, "a", 0.0).digest());
    }

    #[tokio::test]
    async fn put_then_get_and_corrupt_is_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::new(dir.path());
        let digest = "ab".repeat(32);
        assert!(cache.get(&digest).await.is_none());
        let entry = CacheEntry::new("m", "judge-v1", "VERDICT: CORRECT", 12, 3);
        cache.put(&digest, &entry).await.unwrap();
        assert_eq!(cache.get(&digest).await, Some(entry));
        std::fs::write(cache.path_of(&digest), b"{not json").unwrap();
        assert!(cache.get(&digest).await.is_none());
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path().join("ab"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }
}
