//! Datasets in the Bemula format: the schema types, loading with precise errors,
//! validation of the paper's invariants, statistics and fidelity measures.
//!
//! A dataset is a directory with one JSON file per instance (`<id>.json`) and an
//! optional `manifest.json` written by the generator. [`Dataset::load`] reads one;
//! [`crate::generate::generate`] builds one in memory.

pub mod fidelity;
pub mod persona;
pub mod realised;
mod schema;
pub mod stats;
pub mod validate;

pub use schema::*;

use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};

/// The `--data` (and `BEMULA_DATA`) value that asks for the generated data of the seed,
/// generator and phrasing given (unless a file or directory of that name exists).
pub const GENERATED: &str = "generated";

/// Name of the generator's manifest inside a dataset directory; never an instance.
pub const MANIFEST: &str = "manifest.json";

/// A loaded or generated dataset.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// The instances, sorted by id.
    pub instances: Vec<Instance>,
    /// SHA-256 (hex) over the instance files, see [`checksum_files`].
    pub checksum: String,
    /// Where the data came from, for reports.
    pub source: String,
}

/// A problem with dataset input: what, and where.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// A file or directory could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The directory holds no instance files.
    #[error("{dir}: no instance files (*.json other than {MANIFEST}) found")]
    NoInstances {
        /// The directory.
        dir: PathBuf,
    },
    /// A file is not a valid instance: bad JSON, a wrong type, a missing field.
    #[error("{path}: at {json_path} (line {line}, column {column}): {reason}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// JSON path of the offending value, e.g. `.sessions[3].turns[0].user`.
        json_path: String,
        /// Line in the file, from 1.
        line: usize,
        /// Column in the line, from 1.
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// Two files hold instances with the same id.
    #[error("{path}: instance id {id:?} is already used by {other}")]
    DuplicateInstance {
        /// The second file.
        path: PathBuf,
        /// The id.
        id: String,
        /// The first file.
        other: PathBuf,
    },
    /// The data parsed but breaks an invariant of the format.
    #[error("{0}")]
    Invalid(validate::Problems),
    /// A file is larger than the limit on instance files, or the limit is misspelt.
    #[error("{path}: {message}")]
    TooLarge {
        /// The file (or the variable, when its value is not a size).
        path: PathBuf,
        /// What is wrong, with the limit and how to raise it.
        message: String,
    },
}

/// The largest instance file read by default: 64 MiB, about 40 times the longest
/// instance of the full set. `BEMULA_MAX_FILE_MIB` raises it.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 << 20;

/// The variable that sets the largest instance file read, in MiB.
pub const MAX_FILE_VAR: &str = "BEMULA_MAX_FILE_MIB";

/// The largest instance file read: [`MAX_FILE_VAR`] in MiB, or
/// [`DEFAULT_MAX_FILE_BYTES`]. A value that is not a positive whole number is an error.
pub fn max_file_bytes() -> Result<u64, DataError> {
    match std::env::var(MAX_FILE_VAR) {
        Err(_) => Ok(DEFAULT_MAX_FILE_BYTES),
        Ok(value) => value
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|&mib| mib > 0)
            .and_then(|mib| mib.checked_mul(1 << 20))
            .ok_or_else(|| DataError::TooLarge {
                path: PathBuf::from(MAX_FILE_VAR),
                message: format!(
                    "{value:?} is not a size in MiB (a positive whole number, e.g. {MAX_FILE_VAR}=256)"
                ),
            }),
    }
}

/// Reads one instance file, refusing (before reading it) a file larger than `limit`
/// bytes, so a hostile or mistaken file cannot take the machine's memory.
pub fn read_instance_file(path: &Path, limit: u64) -> Result<Vec<u8>, DataError> {
    let io = |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let too_large = |len: u64| DataError::TooLarge {
        path: path.to_path_buf(),
        message: format!(
            "the file is {:.1} MiB, above the limit of {} MiB on instance files (set {MAX_FILE_VAR} to raise it)",
            len as f64 / (1u64 << 20) as f64,
            limit >> 20
        ),
    };
    if len > limit {
        return Err(too_large(len));
    }
    // The file may grow while it is read: read at most one byte past the limit.
    let mut bytes = Vec::with_capacity(len as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, limit + 1), &mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

impl Dataset {
    /// Loads every instance file of a directory (or a single instance file), checks
    /// each against the format, and sorts the instances by id.
    ///
    /// Structural errors (JSON syntax, types, missing or unknown fields) stop the load
    /// with the file, the JSON path and the reason. Semantic invariants are checked by
    /// [`validate::validate`]; `load` runs it and fails on any problem.
    pub fn load(path: &Path) -> Result<Dataset, DataError> {
        let files = instance_files(path)?;
        let limit = max_file_bytes()?;
        let mut read = Vec::with_capacity(files.len());
        for file in &files {
            let bytes = read_instance_file(file, limit)?;
            read.push((file.clone(), bytes));
        }
        Dataset::from_files(read, path.display().to_string())
    }

    /// Opens the dataset a user named: [`realised::NAME`] is the hand-realised
    /// Bemula-Lite compiled into bemula (unless a file or directory of that name
    /// exists, which is read instead); anything else is a path for [`Dataset::load`].
    pub fn open(path: &Path) -> Result<Dataset, DataError> {
        if path.as_os_str() == realised::NAME && !path.exists() {
            return realised::load();
        }
        Dataset::load(path)
    }

    /// [`Dataset::load`] of instance files already read: each is parsed, the ids must
    /// be unique and the invariants hold; the checksum is over the files' names and
    /// bytes.
    pub fn from_files<B: AsRef<[u8]>>(
        files: Vec<(PathBuf, B)>,
        source: String,
    ) -> Result<Dataset, DataError> {
        let mut named = Vec::with_capacity(files.len());
        for (file, bytes) in files {
            let instance = parse_instance(&file, bytes.as_ref())?;
            named.push((file, bytes, instance));
        }
        let checksum = checksum_files(named.iter().map(|(file, bytes, _)| {
            (
                file.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                bytes.as_ref(),
            )
        }));
        let mut instances: Vec<(PathBuf, Instance)> =
            named.into_iter().map(|(f, _, i)| (f, i)).collect();
        instances.sort_by(|a, b| a.1.id.cmp(&b.1.id));
        for pair in instances.windows(2) {
            if pair[0].1.id == pair[1].1.id {
                return Err(DataError::DuplicateInstance {
                    path: pair[1].0.clone(),
                    id: pair[1].1.id.clone(),
                    other: pair[0].0.clone(),
                });
            }
        }
        let problems = validate::validate_files(&instances);
        if !problems.is_empty() {
            return Err(DataError::Invalid(problems));
        }
        Ok(Dataset {
            instances: instances.into_iter().map(|(_, i)| i).collect(),
            checksum,
            source,
        })
    }

    /// Builds a dataset from instances held in memory; the checksum is the one the
    /// same instances would have once written by [`Dataset::write`].
    pub fn from_instances(instances: Vec<Instance>, source: impl Into<String>) -> Dataset {
        let encoded = instances
            .into_iter()
            .map(|i| {
                let bytes = encode_instance(&i);
                (i, bytes)
            })
            .collect();
        Dataset::from_encoded(encoded, source)
    }

    /// [`Dataset::from_instances`] for instances given with their bytes from
    /// [`encode_instance`], for a caller that encoded them as it made them.
    pub fn from_encoded(
        mut encoded: Vec<(Instance, Vec<u8>)>,
        source: impl Into<String>,
    ) -> Dataset {
        encoded.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        let checksum = checksum_files(
            encoded
                .iter()
                .map(|(i, bytes)| (file_name(&i.id), bytes.as_slice())),
        );
        Dataset {
            instances: encoded.into_iter().map(|(i, _)| i).collect(),
            checksum,
            source: source.into(),
        }
    }

    /// Writes one `<id>.json` per instance into `dir` (created if missing). Each file is
    /// written to a temporary file and renamed into place, so a symbolic link at
    /// `<id>.json` is replaced rather than followed; an id that is not a plain file
    /// name (see [`is_valid_instance_id`]) is refused.
    pub fn write(&self, dir: &Path) -> Result<(), DataError> {
        std::fs::create_dir_all(dir).map_err(|source| DataError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        // Every id is checked before anything is written.
        for instance in &self.instances {
            if !is_valid_instance_id(&instance.id) {
                return Err(DataError::Io {
                    path: dir.join(file_name(&instance.id)),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!(
                            "instance id {:?} is not a valid file name; {ID_RULE}",
                            instance.id
                        ),
                    ),
                });
            }
        }
        let write = |instance: &Instance| {
            let path = dir.join(file_name(&instance.id));
            crate::files::write_replacing(&path, &encode_instance(instance))
                .map_err(|source| DataError::Io { path, source })
        };
        // Encoding is most of the work: the files are shared out among the cores, and
        // the first failure in instance order is the one reported.
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(self.instances.len());
        if threads <= 1 {
            return self.instances.iter().try_for_each(write);
        }
        let results: Vec<Result<(), DataError>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    let write = &write;
                    let instances = &self.instances;
                    scope.spawn(move || {
                        (t..instances.len())
                            .step_by(threads)
                            .map(|i| (i, write(&instances[i])))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            let mut results: Vec<(usize, Result<(), DataError>)> = workers
                .into_iter()
                .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect();
            results.sort_by_key(|(i, _)| *i);
            results.into_iter().map(|(_, r)| r).collect()
        });
        results.into_iter().collect()
    }

    /// Keeps only the Bemula-Lite instances (short and medium tiers).
    pub fn lite(mut self) -> Dataset {
        self.instances.retain(|i| i.tier.is_lite());
        self.source = format!("{} (lite)", self.source);
        self
    }

    /// The instances a run uses by default: with `full`, all of them; otherwise the
    /// Bemula-Lite tiers (short and medium), unless the dataset has none of those, in
    /// which case all of them rather than none.
    pub fn default_tiers(self, full: bool) -> Dataset {
        if full || !self.instances.iter().any(|i| i.tier.is_lite()) {
            self
        } else {
            self.lite()
        }
    }

    /// Total number of forget requests.
    pub fn request_count(&self) -> usize {
        self.instances.iter().map(|i| i.requests.len()).sum()
    }

    /// Looks an instance up by id.
    pub fn instance(&self, id: &str) -> Option<&Instance> {
        self.instances.iter().find(|i| i.id == id)
    }
}

/// What an instance id may hold, as said in error messages.
pub const ID_RULE: &str =
    "ids may hold only ASCII letters, digits, '_', '-' and '.', and not only dots";

/// Whether `id` is a valid instance id: not empty, only ASCII letters, digits, `_`,
/// `-` and `.` (no path separator), and not only dots (`.` and `..` name directories),
/// so `<id>.json` is a plain file name and a namespace `<id>/<version>` never climbs
/// out of a directory an adapter keeps it in.
pub fn is_valid_instance_id(id: &str) -> bool {
    !id.is_empty()
        && !id.chars().all(|c| c == '.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The file name of an instance: `<id>.json`.
pub fn file_name(id: &str) -> String {
    format!("{id}.json")
}

/// The bytes an instance is written as: pretty JSON with a final newline.
pub fn encode_instance(instance: &Instance) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(instance).expect("instances always serialise");
    bytes.push(b'\n');
    bytes
}

/// SHA-256 over `(name, bytes)` pairs, taken in name order: for each file its name, a
/// NUL byte, its length as 8 little-endian bytes, and its bytes. Hex, lower case.
pub fn checksum_files<'a>(files: impl IntoIterator<Item = (String, &'a [u8])>) -> String {
    let mut files: Vec<(String, &[u8])> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = Sha256::new();
    for (name, bytes) in files {
        hasher.update(name.as_bytes());
        hasher.update([0u8]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    use fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The instance files of a dataset path: the file itself, or the `*.json` files of a
/// directory other than the manifest, sorted by name.
pub fn instance_files(path: &Path) -> Result<Vec<PathBuf>, DataError> {
    let meta = std::fs::metadata(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    if meta.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path).map_err(|source| DataError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| DataError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let p = entry.path();
        let is_json = p.extension().is_some_and(|e| e == "json");
        let is_manifest = p.file_name().is_some_and(|n| n == MANIFEST);
        if !is_json || is_manifest {
            continue;
        }
        if p.is_file() {
            files.push(p);
        } else {
            let what = match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => "a symbolic link to no file",
                Ok(m) if m.is_dir() => "a directory",
                _ => "not a regular file",
            };
            eprintln!("bemula: warning: {}: skipped: {what}", p.display());
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(DataError::NoInstances {
            dir: path.to_path_buf(),
        });
    }
    Ok(files)
}

/// Parses one instance file's bytes, reporting the JSON path of the first problem.
///
/// A leading UTF-8 byte-order mark is skipped. The reason of a parse error says what a
/// person can do about it: a truncated file, bytes that are not UTF-8, a top-level value
/// that is not an object, a missing, unknown or mistyped field.
pub fn parse_instance(path: &Path, bytes: &[u8]) -> Result<Instance, DataError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let parse_error =
        |json_path: &str, line: usize, column: usize, reason: String| DataError::Parse {
            path: path.to_path_buf(),
            json_path: json_path.to_string(),
            line,
            column,
            reason,
        };
    let Some(start) = bytes.iter().position(|b| !b.is_ascii_whitespace()) else {
        return Err(parse_error(
            ".",
            1,
            1,
            "the file is empty; expected one instance object".into(),
        ));
    };
    if bytes[start] != b'{' {
        let (line, column) = line_col(bytes, start);
        return Err(parse_error(
            ".",
            line,
            column,
            format!(
                "expected one instance object starting with '{{', found {}",
                describe_byte(bytes[start])
            ),
        ));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let result: Result<Instance, _> = serde_path_to_error::deserialize(de);
    match result {
        Ok(instance) => {
            // Reject trailing content after the object.
            let mut rest =
                serde_json::Deserializer::from_slice(bytes).into_iter::<serde_json::Value>();
            let _ = rest.next();
            if let Some(Ok(_)) | Some(Err(_)) = rest.next() {
                let offset = rest.byte_offset();
                let (line, column) = line_col(bytes, offset);
                return Err(parse_error(
                    ".",
                    line,
                    column,
                    "trailing content after the instance object".into(),
                ));
            }
            Ok(instance)
        }
        Err(err) => {
            let json_path = format_json_path(err.path());
            let inner = err.into_inner();
            let (mut line, mut column) = (inner.line(), inner.column());
            let mut reason = strip_position(&inner.to_string())
                .replace("expected usize", "expected a whole number of 0 or more");
            if let Err(utf8) = std::str::from_utf8(bytes) {
                let offset = utf8.valid_up_to();
                (line, column) = line_col(bytes, offset);
                reason = format!(
                    "the file is not valid UTF-8 (byte 0x{:02X}); instance files must be UTF-8",
                    bytes[offset]
                );
            } else if inner.is_eof() {
                reason = format!("{reason}: the file ends early (is it truncated?)");
            }
            Err(parse_error(&json_path, line, column, reason))
        }
    }
}

/// Writes a serde path as `.sessions[3].turns[0].user`; the root is `.`. Map keys that
/// are not plain identifiers are quoted: `.profile.attributes["home town"]`.
fn format_json_path(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => {
                if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    out.push('.');
                    out.push_str(key);
                } else {
                    out.push_str(&format!("[{key:?}]"));
                }
            }
            Segment::Enum { variant } => {
                out.push('.');
                out.push_str(variant);
            }
            Segment::Unknown => {}
        }
    }
    if out.is_empty() { ".".into() } else { out }
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02X}")
    }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

fn line_col(bytes: &[u8], offset: usize) -> (usize, usize) {
    let upto = &bytes[..offset.min(bytes.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = upto.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_ids_are_plain_file_names() {
        for good in ["short_001", "a.b-c_d", "..a", "x", "v1.2"] {
            assert!(is_valid_instance_id(good), "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "...",
            "../victim",
            "/etc/passwd",
            "a/b",
            "a\\b",
            "a b",
            "é",
        ] {
            assert!(!is_valid_instance_id(bad), "{bad}");
        }
    }

    #[test]
    fn write_refuses_an_id_that_is_a_path() {
        let generated = crate::generate::generate(&crate::generate::GenConfig {
            seed: 42,
            lite: true,
            ..Default::default()
        });
        let mut instance = generated.instances[0].clone();
        instance.id = "../escaped".into();
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        let err = Dataset::from_instances(vec![instance], "test")
            .write(&dir)
            .unwrap_err();
        assert!(err.to_string().contains("\"../escaped\""), "{err}");
        assert!(!root.path().join("escaped.json").exists());
    }
}
