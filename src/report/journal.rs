//! The run journal (`journal.jsonl` in a system's report directory): a header with the
//! run id and the run's configuration, then one line per completed pass (an instance
//! on one dialogue version, with its records), appended and flushed to disk the moment
//! the pass completes. A run killed midway loses only its passes in flight; `bemula run
//! --resume` reads the journal back, refuses a different configuration, and runs only
//! the passes that are missing.
//!
//! **The journal checks itself.** Every line ends with the SHA-256 of its own content
//! (`…,"sha256":"<hex>"}`), and on resume each pass line is checked against the run:
//! its checksum, its instance and version (a pass this run asks for), and its records
//! (one per question of the pass, in the protocol's order, of that instance, version
//! and judge). A line that fails any check is named with its line number and the
//! reason, and its pass runs again; it is never taken as done. A resumed journal is
//! rewritten to its good lines (atomically, through a temporary file), so a line torn
//! by a kill or a full disk never stays in the middle of the file.
//!
//! **A failed append leaves nothing behind.** When writing a line fails (a full disk),
//! the file is cut back to its last good length, so the passes already journaled stay
//! readable, and the next append starts on a clean line.

use super::ReportError;
use super::dir::hex;
use crate::dataset::Version;
use crate::record::Record;
use crate::system::SystemInfo;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The journal's file name.
pub const JOURNAL: &str = "journal.jsonl";

/// The journal's format: 2 adds a checksum to every line.
const FORMAT: u32 = 2;

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

/// The question ids each pass of a run asks, in the protocol's order, by (instance,
/// version): what a journaled pass must hold to be taken as done (see
/// [`crate::run::Runner::expected_passes`]).
pub type ExpectedPasses = BTreeMap<(String, Version), Vec<String>>;

/// A journal reopened by [`Journal::resume`].
#[derive(Debug)]
pub struct Resumed {
    /// The journal, open for appending.
    pub journal: Journal,
    /// The passes whose lines passed every check.
    pub completed: Completed,
    /// One message per line that failed a check (`line N: why; … runs again`): their
    /// passes are not in `completed` and run again.
    pub rejected: Vec<String>,
}

/// Where a journal's bytes go: appended and synced, or cut back after a failed append.
/// The file in normal use; a test puts a failing device in its place.
pub(crate) trait Storage: Send + std::fmt::Debug {
    /// Appends `bytes` and syncs them to disk.
    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()>;
    /// Cuts the file back to `len` bytes.
    fn truncate(&mut self, len: u64) -> std::io::Result<()>;
}

impl Storage for std::fs::File {
    fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.write_all(bytes)?;
        self.sync_data()
    }

    fn truncate(&mut self, len: u64) -> std::io::Result<()> {
        // The file is opened in append mode: the next write goes to the new end.
        self.set_len(len)?;
        self.sync_data()
    }
}

#[derive(Debug)]
struct Writer {
    storage: Box<dyn Storage>,
    /// Length of the file up to its last complete, good line.
    good_len: u64,
    /// Set when a failed append could not be cut back: nothing more is appended, since
    /// it would follow a torn line.
    broken: bool,
}

/// An open journal, appended to as passes complete.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    writer: Mutex<Writer>,
    run_id: String,
}

/// `value` as one journal line: its JSON with `"sha256"` (of the JSON without it)
/// added as the last member, and a newline.
fn sealed_line(value: &impl Serialize) -> serde_json::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec(value)?;
    let digest = hex(&Sha256::digest(&bytes));
    // `value` serialises as a non-empty object: `{…}`.
    bytes.pop();
    bytes.extend_from_slice(format!(",\"sha256\":\"{digest}\"}}\n").as_bytes());
    Ok(bytes)
}

/// The content of a sealed line (without its newline) after checking its checksum.
fn unseal(line: &[u8]) -> Result<Vec<u8>, &'static str> {
    const TAIL: usize = ",\"sha256\":\"\"}".len() + 64;
    if line.len() <= TAIL || !line.starts_with(b"{") {
        return Err("no checksum (not a line this version of bemula wrote)");
    }
    let (body, tail) = line.split_at(line.len() - TAIL);
    let digest = tail
        .strip_prefix(b",\"sha256\":\"")
        .and_then(|t| t.strip_suffix(b"\"}"))
        .ok_or("no checksum (not a line this version of bemula wrote)")?;
    let mut content = body.to_vec();
    content.push(b'}');
    if hex(&Sha256::digest(&content)).as_bytes() != digest {
        return Err("checksum mismatch (the line was changed or damaged after it was written)");
    }
    Ok(content)
}

/// Why a pass line cannot be taken as done, if it cannot.
fn check_pass(pass: &PassLine, expected: &ExpectedPasses, judge: &str) -> Result<(), String> {
    let name = format!("{}/{}", pass.instance, pass.version);
    let Some(ids) = expected.get(&(pass.instance.clone(), pass.version)) else {
        return Err(format!("pass {name} is not part of this run"));
    };
    if pass.records.len() != ids.len() {
        return Err(format!(
            "pass {name} holds {} records where this run asks {} questions",
            pass.records.len(),
            ids.len()
        ));
    }
    for (n, (record, id)) in pass.records.iter().zip(ids).enumerate() {
        let problem = if record.instance != pass.instance || record.version != pass.version {
            Some(format!(
                "belongs to pass {}/{}",
                record.instance, record.version
            ))
        } else if &record.question_id != id {
            Some(format!(
                "is of question {} where {id} is asked",
                record.question_id
            ))
        } else if record.judge != judge {
            Some(format!(
                "was judged by {} where this run's judge is {judge}",
                record.judge
            ))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(format!("pass {name}: record {} {problem}", n + 1));
        }
    }
    Ok(())
}

impl Journal {
    /// Starts a new journal at `path` (replacing any old one).
    pub fn create(
        path: &Path,
        run_id: &str,
        config: &JournalConfig,
    ) -> Result<Journal, ReportError> {
        let header = Header {
            bemula_journal: FORMAT,
            run_id: run_id.to_string(),
            config: config.clone(),
        };
        let line = sealed_line(&header).map_err(|e| ReportError::io(path, e))?;
        let mut file = open_append(path, true)?;
        if let Err(err) = Storage::append(&mut file, &line) {
            drop(file);
            let _ = std::fs::remove_file(path);
            return Err(ReportError::io(path, err));
        }
        Ok(Journal::over(
            path,
            run_id,
            Box::new(file),
            line.len() as u64,
        ))
    }

    fn over(path: &Path, run_id: &str, storage: Box<dyn Storage>, good_len: u64) -> Journal {
        Journal {
            path: path.to_path_buf(),
            writer: Mutex::new(Writer {
                storage,
                good_len,
                broken: false,
            }),
            run_id: run_id.to_string(),
        }
    }

    /// Reopens the journal at `path` to continue its run with `config`, whose passes
    /// ask the questions of `expected`. A journal of another configuration is an error
    /// naming each setting that differs. Every pass line is checked (see the module
    /// docs): the good ones are returned as completed, every other one is named in
    /// [`Resumed::rejected`] and its pass runs again. The file is rewritten to its
    /// header and good lines before anything more is appended.
    pub fn resume(
        path: &Path,
        config: &JournalConfig,
        expected: &ExpectedPasses,
    ) -> Result<Resumed, ReportError> {
        let error = |message: String| ReportError {
            path: path.to_path_buf(),
            message,
        };
        let bytes =
            std::fs::read(path).map_err(|e| error(format!("no run to resume here: {e}")))?;
        let mut lines = bytes.split(|&b| b == b'\n').enumerate();
        let header_line = lines.next().map(|(_, l)| l).unwrap_or_default();
        let header: Header = unseal(header_line)
            .map_err(|why| format!("its header line fails its check: {why}"))
            .and_then(|content| {
                serde_json::from_slice(&content)
                    .map_err(|e| format!("its header line is not a journal header: {e}"))
            })
            .map_err(|why| {
                error(format!(
                    "cannot resume: {why}; run without --resume to start over"
                ))
            })?;
        let differences = header.config.differences(config);
        if !differences.is_empty() {
            return Err(error(format!(
                "cannot resume run {}: its configuration differs from this one's ({}); run without --resume to start over",
                header.run_id,
                differences.join("; ")
            )));
        }
        let mut completed = Completed::new();
        let mut rejected = Vec::new();
        // The good lines by pass, a later line of a pass replacing an earlier one.
        let mut good: BTreeMap<(String, Version), Vec<u8>> = BTreeMap::new();
        let last = bytes.split(|&b| b == b'\n').count() - 1;
        for (n, line) in lines {
            if line.is_empty() {
                continue;
            }
            let torn = n == last;
            let checked = unseal(line).and_then(|content| {
                serde_json::from_slice::<PassLine>(&content).map_err(|_| "not a journal entry")
            });
            let pass = match checked {
                Ok(ok) => ok,
                Err(_) if torn => {
                    rejected.push(format!(
                        "line {}: cut short (the run stopped while writing it); its pass runs again",
                        n + 1
                    ));
                    continue;
                }
                Err(why) => {
                    rejected.push(format!("line {}: {why}; its pass runs again", n + 1));
                    continue;
                }
            };
            if let Err(why) = check_pass(&pass, expected, &config.judge) {
                rejected.push(format!("line {}: {why}; the pass runs again", n + 1));
                continue;
            }
            let key = (pass.instance, pass.version);
            completed.insert(key.clone(), pass.records);
            let mut sealed = line.to_vec();
            sealed.push(b'\n');
            good.insert(key, sealed);
        }
        // Rewrite the journal to its good lines, through a temporary file renamed over
        // it, so a crash during the rewrite leaves the old journal whole.
        let mut rewritten = header_line.to_vec();
        rewritten.push(b'\n');
        for line in good.values() {
            rewritten.extend_from_slice(line);
        }
        if rewritten != bytes {
            let tmp = path.with_extension("jsonl.tmp");
            let written = std::fs::File::create(&tmp).and_then(|mut f| {
                f.write_all(&rewritten)?;
                f.sync_data()
            });
            if let Err(err) = written.and_then(|()| std::fs::rename(&tmp, path)) {
                let _ = std::fs::remove_file(&tmp);
                return Err(ReportError::io(path, err));
            }
        }
        let file = open_append(path, false)?;
        Ok(Resumed {
            journal: Journal::over(path, &header.run_id, Box::new(file), rewritten.len() as u64),
            completed,
            rejected,
        })
    }

    /// The run id in the journal's header.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// Appends one completed pass and flushes it to disk. A failed write is cut back,
    /// so the journal holds only whole lines whatever happens.
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
        let bytes = sealed_line(&line).map_err(|e| ReportError::io(&self.path, e))?;
        let mut writer = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        if writer.broken {
            return Err(ReportError {
                path: self.path.clone(),
                message: "not written: an earlier failed write could not be undone".into(),
            });
        }
        match writer.storage.append(&bytes) {
            Ok(()) => {
                writer.good_len += bytes.len() as u64;
                Ok(())
            }
            Err(err) => {
                let good_len = writer.good_len;
                if writer.storage.truncate(good_len).is_err() {
                    writer.broken = true;
                }
                Err(ReportError::io(&self.path, err))
            }
        }
    }
}

fn open_append(path: &Path, create: bool) -> Result<std::fs::File, ReportError> {
    std::fs::OpenOptions::new()
        .append(true)
        .create(create)
        .truncate(false)
        .open(path)
        .and_then(|f| {
            if create {
                f.set_len(0)?;
            }
            Ok(f)
        })
        .map_err(|e| ReportError::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{Suite, Tier};

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

    fn record(version: Version, id: &str) -> Record {
        Record {
            instance: "short_001".into(),
            tier: Tier::Short,
            request: None,
            request_type: None,
            suite: Suite::Preservation,
            attack: None,
            version,
            question_id: id.into(),
            question: "Which city did I move to?".into(),
            expected: "Lisbon".into(),
            answer: Some("Lisbon".into()),
            correct: true,
            error: None,
            unscored: false,
            conditioned_on: None,
            judge: "rule".into(),
            decided_by: None,
            reason: "gold found".into(),
            restarts: 0,
            truncated_turns: 0,
        }
    }

    fn pass(version: Version) -> Vec<Record> {
        vec![record(version, "q1"), record(version, "q2")]
    }

    fn expected() -> ExpectedPasses {
        [Version::Control, Version::Forget]
            .into_iter()
            .map(|v| (("short_001".to_string(), v), vec!["q1".into(), "q2".into()]))
            .collect()
    }

    #[test]
    fn a_torn_last_line_is_dropped_and_another_configuration_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let journal = Journal::create(&path, "run-1", &config("rule")).unwrap();
        journal
            .append("short_001", Version::Control, &pass(Version::Control))
            .unwrap();
        drop(journal);
        // A kill in the middle of a write leaves half a line.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"instance\":\"short_001\",\"vers").unwrap();
        drop(f);
        let resumed = Journal::resume(&path, &config("rule"), &expected()).unwrap();
        assert_eq!(resumed.journal.run_id(), "run-1");
        assert_eq!(resumed.completed.len(), 1);
        assert!(
            resumed
                .completed
                .contains_key(&("short_001".to_string(), Version::Control))
        );
        assert_eq!(resumed.rejected.len(), 1, "{:?}", resumed.rejected);
        assert!(resumed.rejected[0].contains("line 3: cut short"));
        resumed
            .journal
            .append("short_001", Version::Forget, &pass(Version::Forget))
            .unwrap();
        drop(resumed);
        let resumed = Journal::resume(&path, &config("rule"), &expected()).unwrap();
        assert_eq!(resumed.completed.len(), 2, "the torn line was cut away");
        assert!(resumed.rejected.is_empty(), "{:?}", resumed.rejected);
        let err = Journal::resume(&path, &config("llm:gpt"), &expected()).unwrap_err();
        assert!(
            err.message
                .contains("judge: journal \"rule\", now \"llm:gpt\""),
            "{err}"
        );
    }

    /// A device that takes `room` more bytes, then fails as a full disk does, after
    /// writing the part that fitted.
    #[derive(Debug)]
    struct FullDisk {
        file: std::fs::File,
        room: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    }

    impl Storage for FullDisk {
        fn append(&mut self, bytes: &[u8]) -> std::io::Result<()> {
            use std::sync::atomic::Ordering;
            let room = self.room.load(Ordering::SeqCst);
            let fits = bytes.len().min(room);
            self.file.write_all(&bytes[..fits])?;
            self.room.store(room - fits, Ordering::SeqCst);
            if fits < bytes.len() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::StorageFull,
                    "No space left on device",
                ));
            }
            Ok(())
        }

        fn truncate(&mut self, len: u64) -> std::io::Result<()> {
            self.file.set_len(len)
        }
    }

    #[test]
    fn a_write_that_fails_midway_is_cut_back_and_the_journal_stays_resumable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        drop(Journal::create(&path, "run-1", &config("rule")).unwrap());
        let len = std::fs::metadata(&path).unwrap().len();
        let room = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(40));
        let journal = Journal::over(
            &path,
            "run-1",
            Box::new(FullDisk {
                file: open_append(&path, false).unwrap(),
                room: room.clone(),
            }),
            len,
        );
        let err = journal
            .append("short_001", Version::Control, &pass(Version::Control))
            .unwrap_err();
        assert!(err.message.contains("No space left"), "{err}");
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            len,
            "the half-written line was cut away"
        );
        // The disk has room again: the next pass is appended on a clean line.
        room.store(usize::MAX, std::sync::atomic::Ordering::SeqCst);
        journal
            .append("short_001", Version::Forget, &pass(Version::Forget))
            .unwrap();
        drop(journal);
        let resumed = Journal::resume(&path, &config("rule"), &expected()).unwrap();
        assert!(resumed.rejected.is_empty(), "{:?}", resumed.rejected);
        assert_eq!(
            resumed.completed.keys().cloned().collect::<Vec<_>>(),
            vec![("short_001".to_string(), Version::Forget)]
        );
    }

    /// A journal of both passes, as text, and the line of the control pass.
    fn written() -> (tempfile::TempDir, PathBuf, String) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let journal = Journal::create(&path, "run-1", &config("rule")).unwrap();
        journal
            .append("short_001", Version::Control, &pass(Version::Control))
            .unwrap();
        journal
            .append("short_001", Version::Forget, &pass(Version::Forget))
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        (dir, path, text)
    }

    fn resume_edited(edit: impl FnOnce(&str) -> String) -> Resumed {
        let (_dir, path, text) = written();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines[1] = edit(&lines[1]);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let resumed = Journal::resume(&path, &config("rule"), &expected()).unwrap();
        // Whatever was edited, the resumed journal holds only good lines.
        let after = std::fs::read_to_string(&path).unwrap();
        assert_eq!(after.lines().count(), 1 + resumed.completed.len());
        resumed
    }

    #[test]
    fn an_edited_pass_line_is_named_and_its_pass_runs_again() {
        for (what, edit) in [
            (
                "relabelled",
                ("\"version\":\"control\"", "\"version\":\"forget\""),
            ),
            ("emptied", ("\"records\":[{", "\"records\":[],\"x\":[{")),
            ("flipped", ("\"correct\":true", "\"correct\":false")),
        ] {
            let resumed = resume_edited(|line| {
                assert!(line.contains(edit.0), "{what}: {line}");
                line.replacen(edit.0, edit.1, 1)
            });
            assert_eq!(resumed.rejected.len(), 1, "{what}: {:?}", resumed.rejected);
            assert!(
                resumed.rejected[0].starts_with("line 2: checksum mismatch"),
                "{what}: {:?}",
                resumed.rejected
            );
            assert_eq!(
                resumed.completed.keys().cloned().collect::<Vec<_>>(),
                vec![("short_001".to_string(), Version::Forget)],
                "{what}"
            );
        }
    }

    #[test]
    fn no_single_bit_flip_of_a_pass_line_is_accepted() {
        let (_dir, path, text) = written();
        let line = text.lines().nth(1).unwrap().as_bytes().to_vec();
        let start = text.lines().next().unwrap().len() + 1;
        for bit in (0..line.len() * 8).step_by(7) {
            let mut bytes = text.clone().into_bytes();
            bytes[start + bit / 8] ^= 1 << (bit % 8);
            std::fs::write(&path, &bytes).unwrap();
            let resumed = Journal::resume(&path, &config("rule"), &expected()).unwrap();
            let control = ("short_001".to_string(), Version::Control);
            if let Some(records) = resumed.completed.get(&control) {
                // A flip that is accepted must have changed nothing: none can, since
                // every byte of a line is under its checksum.
                assert_eq!(records, &pass(Version::Control), "bit {bit}");
            }
        }
    }

    #[test]
    fn a_sealed_pass_that_does_not_fit_the_run_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        let journal = Journal::create(&path, "run-1", &config("rule")).unwrap();
        // Records of the forget pass journaled as the control pass.
        journal
            .append("short_001", Version::Control, &pass(Version::Forget))
            .unwrap();
        // Too few records.
        journal
            .append("short_001", Version::Forget, &pass(Version::Forget)[..1])
            .unwrap();
        // A pass of an instance this run does not have.
        journal
            .append("long_009", Version::Forget, &pass(Version::Forget))
            .unwrap();
        drop(journal);
        let resumed = Journal::resume(&path, &config("rule"), &expected()).unwrap();
        assert!(resumed.completed.is_empty());
        assert_eq!(
            resumed.rejected,
            vec![
                "line 2: pass short_001/control: record 1 belongs to pass short_001/forget; the pass runs again",
                "line 3: pass short_001/forget holds 1 records where this run asks 2 questions; the pass runs again",
                "line 4: pass long_009/forget is not part of this run; the pass runs again",
            ]
        );
        // Questions in another order, or judged by another judge.
        let mut reordered = pass(Version::Control);
        reordered.swap(0, 1);
        let mut other_judge = pass(Version::Forget);
        other_judge[1].judge = "llm:gpt".into();
        let journal = Journal::create(&path, "run-2", &config("rule")).unwrap();
        journal
            .append("short_001", Version::Control, &reordered)
            .unwrap();
        journal
            .append("short_001", Version::Forget, &other_judge)
            .unwrap();
        drop(journal);
        let resumed = Journal::resume(&path, &config("rule"), &expected()).unwrap();
        assert!(resumed.completed.is_empty());
        assert!(resumed.rejected[0].contains("record 1 is of question q2 where q1 is asked"));
        assert!(resumed.rejected[1].contains("record 2 was judged by llm:gpt"));
    }

    #[test]
    fn a_journal_without_checksums_or_with_a_damaged_header_is_refused_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL);
        std::fs::write(
            &path,
            "{\"bemula_journal\":1,\"run_id\":\"r\",\"config\":{}}\n",
        )
        .unwrap();
        let err = Journal::resume(&path, &config("rule"), &expected()).unwrap_err();
        assert!(err.message.contains("header line fails its check"), "{err}");
        assert!(err.message.contains("run without --resume"), "{err}");
    }
}
