//! The generated data, written once per build and read by every later process: under
//! cargo-nextest each test is a process of its own, and generating the data in each
//! one (in a debug build) dominated the run.
//!
//! The cache lives at `<target>/bemula/cache/data-<key>.json`. The key covers what
//! decides the data — the generator, the seed, the phrasing, Lite or full — and the
//! build that generates it (bemula's version and the running binary's size and
//! modification time), so a rebuilt generator never reads data of an older one. A file
//! is written to a temporary name and renamed into place, so a reader sees a whole file
//! or none, and two processes that race both write the same bytes. On read the key, the
//! length and a hash of the instances are checked against the file's header line: a
//! file that does not match is ignored (and the data generated).

use crate::dataset::{Dataset, Instance};
use crate::generate::{self, GenConfig};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// How many cached datasets the cache directory keeps: writing one removes the older
/// ones beyond these.
const KEEP: usize = 8;

/// The first line of a cache file; the instances follow it as one JSON array.
#[derive(Serialize, Deserialize)]
struct Header {
    key: String,
    /// The dataset's checksum (of its instance files, as [`Dataset::from_instances`]
    /// computes it when the data is generated).
    checksum: String,
    /// Length and FNV-1a hash (by words) of the instances' bytes: a cheap check, where
    /// recomputing the checksum would cost a debug build most of the time saved.
    body_bytes: usize,
    body_fnv: String,
}

/// FNV-1a over 8-byte words (then the remaining bytes): an eighth of the steps of the
/// bytewise hash, which matters in a debug build.
fn fnv1a(bytes: &[u8]) -> String {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let words = bytes.chunks_exact(8);
    let rest = words.remainder();
    for word in words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        hash ^= u64::from_le_bytes(w);
        hash = hash.wrapping_mul(PRIME);
    }
    for &b in rest {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(PRIME);
    }
    format!("{hash:016x}")
}

/// The cache directory under a target directory.
pub(crate) fn dir(target: &Path) -> PathBuf {
    target.join("bemula").join("cache")
}

/// The cache key of `config` for the running build.
pub(crate) fn key(config: &GenConfig) -> String {
    let build = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            format!("{}:{modified}", m.len())
        })
        .unwrap_or_default();
    let text = format!(
        "bemula {} | generator {} | seed {} | phrasing {} | lite {} | build {build}",
        env!("CARGO_PKG_VERSION"),
        config.generator,
        config.seed,
        config.phrasing,
        config.lite
    );
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-s{}-{}{}-{hex}",
        config.generator,
        config.seed,
        config.phrasing,
        if config.lite { "-lite" } else { "" }
    )
}

/// The data of `config`: read from the cache under `target` when a checked copy is
/// there, else generated and written there for the processes that come later. The
/// cache never makes a run fail: a cache that cannot be read or written is passed by.
pub(crate) fn load_or_generate(target: &Path, config: &GenConfig) -> Dataset {
    let key = key(config);
    let path = dir(target).join(format!("data-{key}.json"));
    if let Some(dataset) = read(&path, &key, config) {
        return dataset;
    }
    let dataset = generate::generate(config);
    write(&path, &key, &dataset);
    dataset
}

/// The cached dataset at `path`, if it is there, of `key`, and whole.
fn read(path: &Path, key: &str, config: &GenConfig) -> Option<Dataset> {
    let bytes = std::fs::read(path).ok()?;
    let ignore = |why: &str| {
        eprintln!(
            "bemula: warning: ignoring the cached data {}: {why}; generating it",
            path.display()
        );
        None
    };
    let Some(newline) = bytes.iter().position(|&b| b == b'\n') else {
        return ignore("no header line");
    };
    let (head, body) = (&bytes[..newline], &bytes[newline + 1..]);
    let header: Header = match serde_json::from_slice(head) {
        Ok(header) => header,
        Err(e) => return ignore(&format!("a malformed header: {e}")),
    };
    if header.key != key {
        return None;
    }
    if header.body_bytes != body.len() || header.body_fnv != fnv1a(body) {
        return ignore("its instances are not the ones written");
    }
    let instances: Vec<Instance> = match serde_json::from_slice(body) {
        Ok(instances) => instances,
        Err(e) => return ignore(&format!("malformed instances: {e}")),
    };
    Some(Dataset {
        instances,
        checksum: header.checksum,
        source: config.source(),
    })
}

fn write(path: &Path, key: &str, dataset: &Dataset) {
    let Some(parent) = path.parent() else {
        return;
    };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    let Ok(body) = serde_json::to_vec(&dataset.instances) else {
        return;
    };
    let header = Header {
        key: key.to_string(),
        checksum: dataset.checksum.clone(),
        body_bytes: body.len(),
        body_fnv: fnv1a(&body),
    };
    let Ok(mut bytes) = serde_json::to_vec(&header) else {
        return;
    };
    bytes.push(b'\n');
    bytes.extend_from_slice(&body);
    if crate::files::write_replacing(path, &bytes).is_ok() {
        prune(parent, path);
    }
}

/// Removes all but the [`KEEP`] newest cached datasets, never `keep`.
fn prune(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("data-") && n.ends_with(".json"))
        })
        .map(|p| {
            let t = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .unwrap_or(std::time::UNIX_EPOCH);
            (t, p)
        })
        .collect();
    if files.len() <= KEEP {
        return;
    }
    files.sort();
    let old = files.len() - KEEP;
    for (_, path) in files.into_iter().take(old) {
        if path != keep {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lite(seed: u64) -> GenConfig {
        GenConfig {
            seed,
            lite: true,
            generator: generate::Generator::V1,
            ..GenConfig::default()
        }
    }

    #[test]
    fn the_cached_data_is_the_generated_data_and_a_damaged_file_is_passed_by() {
        let target = tempfile::tempdir().unwrap();
        let config = lite(5);
        let generated = generate::generate(&config);
        let first = load_or_generate(target.path(), &config);
        assert_eq!(first.checksum, generated.checksum);
        let path = dir(target.path()).join(format!("data-{}.json", key(&config)));
        assert!(path.is_file(), "the first load writes the cache");
        let second = read(&path, &key(&config), &config).expect("a cached copy");
        assert_eq!(second.checksum, generated.checksum);
        assert_eq!(second.source, generated.source);
        assert_eq!(second.instances, generated.instances);

        // An instance changed behind the header's back is not the data.
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        let changed = text.replacen("short_001", "short_00l", 1);
        assert_ne!(changed, text);
        std::fs::write(&path, changed).unwrap();
        assert!(read(&path, &key(&config), &config).is_none());
        // A truncated file neither.
        std::fs::write(&path, b"{\"key\": \"").unwrap();
        assert!(read(&path, &key(&config), &config).is_none());
        let again = load_or_generate(target.path(), &config);
        assert_eq!(again.checksum, generated.checksum, "generated instead");
        assert!(
            read(&path, &key(&config), &config).is_some(),
            "and rewritten"
        );
    }

    #[test]
    fn the_key_tells_seeds_generators_phrasings_and_tiers_apart() {
        let base = lite(42);
        let keys: std::collections::BTreeSet<String> = [
            base,
            GenConfig { seed: 43, ..base },
            GenConfig {
                lite: false,
                ..base
            },
            GenConfig {
                generator: generate::Generator::V2,
                ..base
            },
            GenConfig {
                generator: generate::Generator::V2,
                phrasing: generate::Phrasing::Dev,
                ..base
            },
        ]
        .iter()
        .map(key)
        .collect();
        assert_eq!(keys.len(), 5, "{keys:?}");
        assert_eq!(key(&base), key(&lite(42)));
    }
}
