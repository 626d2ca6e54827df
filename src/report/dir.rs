//! Report directories: one run a directory. An exclusive [`DirLock`] that records its
//! holder and heals when the holder died, a writability check made before any work, a
//! checksum of the records that ties `summary.json` to its `results.jsonl`
//! ([`read_verified`]), and the coverage of a report ([`Coverage`]).

use super::{RESULTS, ReportError, SUMMARY_JSON, Summary};
use crate::record::Record;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Which requests a report was expected to hold, and which it holds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    /// Requests expected for the dataset and the selection.
    pub expected: usize,
    /// Requests present in the records.
    pub present: usize,
    /// Test names of the expected requests that are missing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

impl Coverage {
    /// The coverage of `present` request names against `expected` ones.
    pub fn of(expected: &BTreeSet<String>, present: &BTreeSet<String>) -> Coverage {
        Coverage {
            expected: expected.len(),
            present: present.intersection(expected).count(),
            missing: expected.difference(present).cloned().collect(),
        }
    }

    /// Whether every expected request is present.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty() && self.present >= self.expected
    }

    /// One line saying how complete the report is, e.g. `INCOMPLETE: 31 of 63 expected
    /// requests present (32 missing, first: short_004::r1::F2_temporal)`.
    pub fn line(&self) -> String {
        if self.is_complete() {
            format!(
                "complete: {} of {} expected requests present",
                self.present, self.expected
            )
        } else {
            format!(
                "INCOMPLETE: {} of {} expected requests present ({} missing{})",
                self.present,
                self.expected,
                self.missing.len(),
                self.missing
                    .first()
                    .map(|n| format!(", first: {n}"))
                    .unwrap_or_default()
            )
        }
    }
}

/// The JSON-lines bytes of `records`: what `results.jsonl` holds.
pub fn encode_records(records: &[Record]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len() * 400);
    for record in records {
        // A record is plain data: serialising it cannot fail.
        if serde_json::to_writer(&mut out, record).is_ok() {
            out.push(b'\n');
        }
    }
    out
}

/// SHA-256 (hex) of the records as `results.jsonl` holds them.
pub fn records_checksum(records: &[Record]) -> String {
    hex(&Sha256::digest(encode_records(records)))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads `summary.json` and `results.jsonl` of a report directory and checks that they
/// belong together: the summary's records checksum must be that of the records file.
/// A mismatch (files of two different runs) is an error naming both files.
pub fn read_verified(dir: &Path) -> Result<(Summary, Vec<Record>), ReportError> {
    let summary_path = dir.join(SUMMARY_JSON);
    let bytes = std::fs::read(&summary_path).map_err(|e| ReportError::io(&summary_path, e))?;
    let summary: Summary = serde_json::from_slice(&bytes).map_err(|e| ReportError {
        path: summary_path.clone(),
        message: format!("not a bemula summary: {e}"),
    })?;
    let results = dir.join(RESULTS);
    let records = super::read_records(&results)?;
    if let Some(expected) = &summary.records_checksum {
        let actual = records_checksum(&records);
        if &actual != expected {
            return Err(ReportError {
                path: summary_path,
                message: format!(
                    "does not belong to {}: the summary's records checksum is {expected}, the records' is {actual} (the files come from different runs; run again or restore both from one run)",
                    results.display()
                ),
            });
        }
    }
    Ok((summary, records))
}

/// Checks that `dir` can be written: creates it and writes and removes a probe file.
pub fn check_writable(dir: &Path) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|e| ReportError {
        path: dir.to_path_buf(),
        message: format!("cannot create the report directory: {e}"),
    })?;
    let probe = dir.join(format!(".bemula-write-test-{}", std::process::id()));
    let written = std::fs::File::create(&probe).and_then(|mut f| {
        f.write_all(b"ok")?;
        f.sync_data()
    });
    // The probe goes whether or not it could be written (a full disk creates it empty).
    let _ = std::fs::remove_file(&probe);
    written.map_err(|e| ReportError {
        path: dir.to_path_buf(),
        message: format!("the report directory is not writable: {e}"),
    })
}

/// A new run id: the time in milliseconds since the Unix epoch and the process id,
/// e.g. `1796160240000-4242`.
pub fn new_run_id() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    format!("{}-{}", now.as_millis(), std::process::id())
}

/// Who holds a lock: written into the lock file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LockHolder {
    /// Process id.
    pub pid: u32,
    /// The process's start time as the system reports it (Linux: clock ticks since
    /// boot), so a reused pid is not taken for the holder; `None` where unknown.
    #[serde(default)]
    pub started: Option<u64>,
    /// When the lock was taken, seconds since the Unix epoch.
    pub since: u64,
}

impl LockHolder {
    fn me() -> LockHolder {
        let pid = std::process::id();
        LockHolder {
            pid,
            started: process_start(pid),
            since: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        }
    }

    /// Whether the holder is certainly gone: its process no longer exists, or its pid
    /// now belongs to a process started at another time. `false` where this cannot be
    /// told (no `/proc`).
    pub fn is_dead(&self) -> bool {
        if !Path::new("/proc/self/stat").exists() {
            return false;
        }
        match process_start(self.pid) {
            None => true,
            Some(now) => self.started.is_some_and(|then| then != now),
        }
    }
}

/// The start time of a process (field 22 of `/proc/<pid>/stat`), where there is a `/proc`.
fn process_start(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// An exclusive lock: a file created only if absent, holding its [`LockHolder`], removed
/// when dropped. A lock whose holder died is taken over at once.
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
}

/// What [`DirLock::try_acquire`] found.
#[derive(Debug)]
pub enum LockState {
    /// The lock is ours.
    Acquired(DirLock),
    /// A live process holds it.
    Held(Option<LockHolder>),
}

impl DirLock {
    /// Takes the lock at `path`, or says who holds it. A dead holder's lock (see
    /// [`LockHolder::is_dead`]) is removed and taken.
    pub fn try_acquire(path: &Path) -> std::io::Result<LockState> {
        for _ in 0..3 {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(mut file) => {
                    let holder = serde_json::to_vec(&LockHolder::me()).unwrap_or_default();
                    if let Err(err) = file.write_all(&holder).and_then(|()| file.sync_all()) {
                        // A lock without its holder would stop every later run.
                        drop(file);
                        let _ = std::fs::remove_file(path);
                        return Err(err);
                    }
                    return Ok(LockState::Acquired(DirLock {
                        path: path.to_path_buf(),
                    }));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let bytes = std::fs::read(path).unwrap_or_default();
                    let holder: Option<LockHolder> = serde_json::from_slice(&bytes).ok();
                    match holder {
                        Some(h) if h.is_dead() => {
                            let _ = std::fs::remove_file(path);
                        }
                        // A holder writes itself within moments of creating the file: a
                        // lock that names no holder after that was left by a process
                        // that died in between (or ran out of disk).
                        None if is_older_than(path, HOLDERLESS_GRACE) => {
                            let _ = std::fs::remove_file(path);
                        }
                        other => return Ok(LockState::Held(other)),
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(LockState::Held(None))
    }

    /// Takes the exclusive lock of a report directory (`DIR/.bemula.lock`), or fails
    /// naming the process that holds it.
    pub fn report_dir(dir: &Path) -> Result<DirLock, ReportError> {
        DirLock::report_dir_of(dir, "--out")
    }

    /// [`DirLock::report_dir`], naming `setting` (`--out`, `BEMULA_REPORT_DIR`) as the
    /// way to choose another directory.
    pub fn report_dir_of(dir: &Path, setting: &str) -> Result<DirLock, ReportError> {
        let path = dir.join(".bemula.lock");
        match DirLock::try_acquire(&path).map_err(|e| ReportError::io(&path, e))? {
            LockState::Acquired(lock) => Ok(lock),
            LockState::Held(holder) => Err(ReportError {
                path,
                message: match holder {
                    Some(h) => format!(
                        "another bemula run (pid {}) is writing into this report directory; wait for it or choose another with {setting}",
                        h.pid
                    ),
                    None => "another bemula run is writing into this report directory (or a lock file without a holder was left; remove it if no run is going)".into(),
                },
            }),
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// How long a lock file may name no holder before it is taken for abandoned.
const HOLDERLESS_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether the file at `path` was last changed longer than `age` ago.
fn is_older_than(path: &Path, age: std::time::Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|elapsed| elapsed > age)
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_holders_lock_is_taken_over_and_a_live_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let LockState::Acquired(lock) = DirLock::try_acquire(&path).unwrap() else {
            panic!("a free lock is taken");
        };
        assert!(
            matches!(DirLock::try_acquire(&path).unwrap(), LockState::Held(Some(h)) if h.pid == std::process::id()),
            "our own live lock is held"
        );
        drop(lock);
        assert!(!path.exists(), "released on drop");
        // A holder that no longer exists: a child process that has exited.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let dead = LockHolder {
            pid,
            started: Some(1),
            since: 0,
        };
        std::fs::write(&path, serde_json::to_vec(&dead).unwrap()).unwrap();
        if Path::new("/proc/self/stat").exists() {
            assert!(dead.is_dead());
            assert!(matches!(
                DirLock::try_acquire(&path).unwrap(),
                LockState::Acquired(_)
            ));
        }
    }

    #[test]
    fn an_empty_lock_file_is_taken_over_once_it_is_old_but_not_while_new() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        std::fs::write(&path, b"").unwrap();
        assert!(
            matches!(DirLock::try_acquire(&path).unwrap(), LockState::Held(None)),
            "a lock being written may be empty for a moment"
        );
        let old = std::time::SystemTime::now() - 2 * HOLDERLESS_GRACE;
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert!(matches!(
            DirLock::try_acquire(&path).unwrap(),
            LockState::Acquired(_)
        ));
    }

    #[test]
    fn the_write_probe_is_removed_even_when_it_cannot_be_written() {
        let dir = tempfile::tempdir().unwrap();
        check_writable(dir.path()).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn coverage_names_what_is_missing() {
        let expected: BTreeSet<String> = ["a::r1::F1_x", "b::r1::F2_y", "c::r1::F3_z"]
            .into_iter()
            .map(String::from)
            .collect();
        let present: BTreeSet<String> = ["a::r1::F1_x".to_string()].into_iter().collect();
        let c = Coverage::of(&expected, &present);
        assert_eq!((c.expected, c.present), (3, 1));
        assert!(!c.is_complete());
        assert!(c.line().starts_with("INCOMPLETE: 1 of 3"), "{}", c.line());
        assert!(Coverage::of(&expected, &expected).is_complete());
    }
}
