//! The run journal (`journal.jsonl` in a system's report directory): a header with the
//! run id and the run's configuration, then one line per completed pass (an instance
//! on one dialogue version, with its records), appended and flushed to disk as each
//! pass completes. A run killed midway loses only its passes in flight; `bemula run
//! --resume` reads the journal back, refuses a different configuration, and runs only
//! the passes that are missing.

use super::ReportError;
use crate::dataset::Version;
use crate::record::Record;
use crate::system::SystemInfo;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The journal's file name.
pub const JOURNAL: &str = "journal.jsonl";

/// Everything that decides a run's records: a resumed run must match it exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalConfig {
    /// The system spec as given (`naive-rag`, `cmd:…`, a URL).
    pub spec: String,
    /// The system as its factory or adapter handshake describes it (name, version,
    /// settings).
    pub system: SystemInfo,
    /// The judge.
    pub judge: String,
    /// The answerer.
    pub answerer: String,
    /// SHA-256 of the dataset's instance files.
    pub dataset_checksum: String,
    /// Seed of the generated data, when generated.
    pub data_seed: Option<u64>,
    /// What is evaluated: the instances (after tier and shard selection) of `bemula
    /// run`, the selected test names of a harness run.
    pub instances: Vec<String>,
    /// The shard, `I/N`, when sharded.
    pub shard: Option<String>,
    /// Retries of a failing system call.
    pub system_retries: u32,
    /// Bootstrap resamples and seed of the summary.
    pub bootstrap: (usize, u64),
}

impl JournalConfig {
    /// The settings that differ between `self` (the journal's) and `now`, each as
    /// `name: journal X, now Y`.
    pub fn differences(&self, now: &JournalConfig) -> Vec<String> {
        let (a, b) = (
            serde_json::to_value(self).unwrap_or_default(),
            serde_json::to_value(now).unwrap_or_default(),
        );
        let empty = serde_json::Map::new();
        let (a, b) = (
            a.as_object().unwrap_or(&empty),
            b.as_object().unwrap_or(&empty),
        );
        let mut out = Vec::new();
        for (key, was) in a {
            let is = b.get(key).unwrap_or(&serde_json::Value::Null);
            if was != is {
                let short = |v: &serde_json::Value| {
                    let text = v.to_string();
                    if text.chars().count() > 120 {
                        format!("{}…", text.chars().take(120).collect::<String>())
                    } else {
                        text
                    }
                };
                out.push(format!("{key}: journal {}, now {}", short(was), short(is)));
            }
        }
        out
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    bemula_journal: u32,
    run_id: String,
    config: JournalConfig,
}

#[derive(Debug, Serialize, Deserialize)]
struct PassLine {
    instance: String,
    version: Version,
    records: Vec<Record>,
}

/// Completed passes by (instance, version).
pub type Completed = BTreeMap<(String, Version), Vec<Record>>;

/// An open journal, appended to as passes complete.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    run_id: String,
}

impl Journal {
    /// Starts a new journal at `path` (replacing any old one).
    pub fn create(
        path: &Path,
        run_id: &str,
        config: &JournalConfig,
    ) -> Result<Journal, ReportError> {
        let mut file = std::fs::File::create(path).map_err(|e| ReportError::io(path, e))?;
        let header = Header {
            bemula_journal: 1,
            run_id: run_id.to_string(),
            config: config.clone(),
        };
        let mut line = serde_json::to_vec(&header).map_err(|e| ReportError::io(path, e))?;
        line.push(b'\n');
        file.write_all(&line)
            .and_then(|_| file.sync_data())
            .map_err(|e| ReportError::io(path, e))?;
        Ok(Journal {
            path: path.to_path_buf(),
            file: Mutex::new(file),
            run_id: run_id.to_string(),
        })
    }

    /// Reopens the journal at `path` to continue its run with `config`: returns it with
    /// its completed passes. A journal of another configuration is an error naming each
    /// setting that differs; a line torn by a kill is dropped (its pass runs again).
    pub fn resume(
        path: &Path,
        config: &JournalConfig,
    ) -> Result<(Journal, Completed), ReportError> {
        let bytes = std::fs::read(path).map_err(|e| ReportError {
            path: path.to_path_buf(),
            message: format!("no run to resume here: {e}"),
        })?;
        let complete_len = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let mut lines = bytes[..complete_len]
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty());
        let header: Header = lines
            .next()
            .and_then(|l| serde_json::from_slice(l).ok())
            .ok_or_else(|| ReportError {
                path: path.to_path_buf(),
                message: "not a bemula run journal (no header line)".into(),
            })?;
        let differences = header.config.differences(config);
        if !differences.is_empty() {
            return Err(ReportError {
                path: path.to_path_buf(),
                message: format!(
                    "cannot resume run {}: its configuration differs from this one's ({}); run without --resume to start over",
                    header.run_id,
                    differences.join("; ")
                ),
            });
        }
        let mut completed = Completed::new();
        for (n, line) in lines.enumerate() {
            let pass: PassLine = serde_json::from_slice(line).map_err(|e| ReportError {
                path: path.to_path_buf(),
                message: format!("line {}: not a journal entry: {e}", n + 2),
            })?;
            completed.insert((pass.instance, pass.version), pass.records);
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| {
                f.set_len(complete_len as u64)?;
                Ok(f)
            })
            .map_err(|e| ReportError::io(path, e))?;
        let mut file = file;
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0))
            .map_err(|e| ReportError::io(path, e))?;
        Ok((
            Journal {
                path: path.to_path_buf(),
                file: Mutex::new(file),
                run_id: header.run_id,
            },
            completed,
        ))
    }

    /// The run id in the journal's header.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Appends one completed pass and flushes it to disk.
    pub fn append(
        &self,
        instance: &str,
        version: Version,
        records: &[Record],
    ) -> Result<(), ReportError> {
        let line = PassLine {
            instance: instance.to_string(),
            version,
            records: records.to_vec(),
        };
        let mut bytes = serde_json::to_vec(&line).map_err(|e| ReportError::io(&self.path, e))?;
        bytes.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&bytes)
            .and_then(|_| file.sync_data())
            .map_err(|e| ReportError::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(judge: &str) -> JournalConfig {
        JournalConfig {
            spec: "naive-rag".into(),
            system: SystemInfo {
                name: "naive-rag".into(),
                ..SystemInfo::default()
            },
            judge: judge.into(),
            answerer: "extractive".into(),
            dataset_checksum: "abc".into(),
            data_seed: Some(42),
            instances: vec!["short_001".into()],
            shard: None,
            system_retries: 2,
            bootstrap: (100, 42),
        }
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_another_configuration_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let journal = Journal::create(&path, "run-1", &config("rule")).unwrap();
        journal.append("short_001", Version::Control, &[]).unwrap();
        drop(journal);
        // A kill in the middle of a write leaves half a line.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"instance\":\"short_001\",\"vers").unwrap();
        drop(f);
        let (journal, done) = Journal::resume(&path, &config("rule")).unwrap();
        assert_eq!(journal.run_id(), "run-1");
        assert_eq!(done.len(), 1);
        assert!(done.contains_key(&("short_001".to_string(), Version::Control)));
        journal.append("short_001", Version::Forget, &[]).unwrap();
        drop(journal);
        let (_, done) = Journal::resume(&path, &config("rule")).unwrap();
        assert_eq!(
            done.len(),
            2,
            "the torn line was replaced by the next entry"
        );
        let err = Journal::resume(&path, &config("llm:gpt")).unwrap_err();
        assert!(
            err.message
                .contains("judge: journal \"rule\", now \"llm:gpt\""),
            "{err}"
        );
    }
}
