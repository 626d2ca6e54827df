//! The generated data, written once per build and read by every later process: under
//! cargo-nextest each test is a process of its own, and generating the data in each
//! one (in a debug build) dominated the run.
//!
//! The cache lives at `<target>/bemula/cache/data-<key>.json`. The key covers what
//! decides the data — the generator, the seed, the phrasing, Lite or full — and the
//! build that generates it (bemula's version and the running binary's size and
//! modification time), so a rebuilt generator never reads data of an older one. A file
//! is written to a temporary name and renamed into place, so a reader sees a whole file
//! or none, and two processes that race both write the same bytes. On read the
//! dataset's checksum is recomputed from the instances and compared with the one
//! stored: a file that does not match is ignored (and the data generated).

use crate::dataset::{Dataset, Instance};
use crate::generate::{self, GenConfig};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// How many cached datasets the cache directory keeps: writing one removes the older
/// ones beyond these.
const KEEP: usize = 8;

#[derive(Serialize, Deserialize)]
struct Cached {
    key: String,
    checksum: String,
    instances: Vec<Instance>,
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
    let cached: Cached = match serde_json::from_slice(&bytes) {
        Ok(cached) => cached,
        Err(e) => {
            eprintln!(
                "bemula: warning: ignoring the cached data {}: {e}; generating it",
                path.display()
            );
            return None;
        }
    };
    if cached.key != key {
        return None;
    }
    let dataset = Dataset::from_instances(cached.instances, config.source());
    if dataset.checksum != cached.checksum {
        eprintln!(
            "bemula: warning: ignoring the cached data {}: its checksum does not match its instances; generating it",
            path.display()
        );
        return None;
    }
    Some(dataset)
}

fn write(path: &Path, key: &str, dataset: &Dataset) {
    let Some(parent) = path.parent() else {
        return;
    };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    let cached = Cached {
        key: key.to_string(),
        checksum: dataset.checksum.clone(),
        instances: dataset.instances.clone(),
    };
    let Ok(bytes) = serde_json::to_vec(&cached) else {
        return;
    };
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

        // An instance changed behind the checksum's back is not the data.
        let mut cached: Cached = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        cached.instances.pop();
        std::fs::write(&path, serde_json::to_vec(&cached).unwrap()).unwrap();
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
