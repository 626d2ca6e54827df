//! Reports merged from several sources: the parts of cargo-nextest runs (listed and
//! chosen by run), the report directories of `bemula run --shard`, or both; `bemula
//! report` and the harness's own merge call it.

use super::parts::{PARTS, Part, TrialOutcome, is_parts_dir, is_run_dir, utc};
use super::{RunInfo, Summary};
use crate::metrics::BootstrapConfig;
use crate::record::Record;
use crate::report;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Reports merged from several sources (report directories, the parts of
/// process-per-test runs, shards).
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The merged summary, with its coverage.
    pub summary: Summary,
    /// The merged records.
    pub records: Vec<Record>,
    /// Each request's outcome and wall time, by test name.
    pub trials: BTreeMap<String, TrialOutcome>,
    /// The cargo-nextest runs found in the directories, oldest first; those merged are
    /// marked `picked`.
    pub runs: Vec<RunListing>,
    /// What a reader should know about the runs merged (a newer filtered run left
    /// out, no complete run).
    pub notes: Vec<String>,
}

/// Assembles the reports of a run whose tests ran in separate processes (cargo-nextest)
/// and writes them into `dir`; see [`assemble_many`].
pub fn assemble(dir: &Path, bootstrap: &BootstrapConfig) -> Result<Summary, String> {
    let assembled = assemble_many(&[dir.to_path_buf()], bootstrap)?;
    let times = assembled
        .trials
        .iter()
        .map(|(n, o)| (n.clone(), o.seconds))
        .collect();
    report::write_all(dir, &assembled.records, &assembled.summary, &times)
        .map_err(|e| e.to_string())?;
    Ok(assembled.summary)
}

/// Merges the results found in `dirs` (see [`assemble_runs`]), taking from each
/// directory of cargo-nextest parts its newest complete run.
pub fn assemble_many(dirs: &[PathBuf], bootstrap: &BootstrapConfig) -> Result<Assembled, String> {
    assemble_runs(dirs, &RunChoice::default(), bootstrap)
}

/// Merges the results found in `dirs`. Each is a harness report directory holding the
/// parts of cargo-nextest runs under `parts/` (of which `choice` picks the runs to
/// merge), one run's parts (`<report dir>/parts/<run id>`), or else a report
/// (`summary.json` with its `results.jsonl`, e.g. of `bemula run --shard`).
/// Every source must have the same configuration (system, judge, answerer, data);
/// a record present twice must be the same (duplicates are tolerated, conflicts are an
/// error naming both files). The summary states its coverage: the requests expected
/// (the union of what the sources expected) against those present; a merge of nextest
/// parts that leaves requests out says in its configuration that it is a filtered run.
pub fn assemble_runs(
    dirs: &[PathBuf],
    choice: &RunChoice,
    bootstrap: &BootstrapConfig,
) -> Result<Assembled, String> {
    type Key = (String, crate::dataset::Version, String);
    if let RunChoice::Id(id) = choice
        && dirs.len() > 1
    {
        return Err(format!(
            "--run {id} picks one run of one report directory; give that directory alone"
        ));
    }
    let mut records: Vec<Record> = Vec::new();
    let mut seen: BTreeMap<Key, (usize, PathBuf)> = BTreeMap::new();
    let mut trials: BTreeMap<String, TrialOutcome> = BTreeMap::new();
    let mut expected: BTreeSet<String> = BTreeSet::new();
    let mut info: Option<(RunInfo, PathBuf)> = None;
    let mut listed: Vec<RunListing> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut merged_runs: Vec<String> = Vec::new();
    let mut check_info = |candidate: RunInfo, from: &Path| -> Result<(), String> {
        match &info {
            None => {
                info = Some((candidate, from.to_path_buf()));
                Ok(())
            }
            Some((first, first_from)) => {
                let differs = config_differences(first, &candidate);
                if differs.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "{} and {} come from runs of different configurations ({}): only results of one configuration merge",
                        first_from.display(),
                        from.display(),
                        differs.join("; ")
                    ))
                }
            }
        }
    };
    let mut add_records = |batch: Vec<Record>, from: &Path| -> Result<(), String> {
        for record in batch {
            let key = (
                record.instance.clone(),
                record.version,
                record.question_id.clone(),
            );
            match seen.get(&key) {
                Some((index, first)) => {
                    if records[*index] != record {
                        return Err(format!(
                            "{} and {} hold conflicting records of {} question {} on the {} version: results of different runs cannot merge (pick one run with --run ID, or remove the stale ones)",
                            first.display(),
                            from.display(),
                            key.0,
                            key.2,
                            key.1
                        ));
                    }
                }
                None => {
                    seen.insert(key, (records.len(), from.to_path_buf()));
                    records.push(record);
                }
            }
        }
        Ok(())
    };
    for dir in dirs {
        let runs: Vec<RunListing> = if dir.join(PARTS).is_dir() || is_parts_dir(dir) {
            let parts = if dir.join(PARTS).is_dir() {
                dir.join(PARTS)
            } else {
                dir.clone()
            };
            let mut runs = list_runs(&parts)?;
            if runs.is_empty() {
                return Err(format!(
                    "{}: no trial outcomes found; run the tests under cargo-nextest first",
                    parts.display()
                ));
            }
            pick_runs(&mut runs, choice, &parts, &mut notes)?;
            runs
        } else if is_run_dir(dir) {
            let mut run = read_run(dir)?;
            run.picked = true;
            vec![run]
        } else if dir.join(report::SUMMARY_JSON).is_file() {
            let (summary, batch) = report::read_verified(dir).map_err(|e| e.to_string())?;
            let summary_path = dir.join(report::SUMMARY_JSON);
            check_info(summary.config.clone(), &summary_path)?;
            for outcome in &summary.requests {
                let name = report::outcome_name(outcome);
                expected.insert(name.clone());
                trials.insert(
                    name,
                    TrialOutcome {
                        passed: outcome.passed,
                        known_failure: false,
                        seconds: 0.0,
                    },
                );
            }
            if let Some(coverage) = &summary.coverage {
                expected.extend(coverage.missing.iter().cloned());
            }
            add_records(batch, &dir.join(report::RESULTS))?;
            continue;
        } else {
            return Err(format!(
                "{}: nothing to report: no parts/ of a cargo-nextest run and no summary.json",
                dir.display()
            ));
        };
        for run in runs.iter().filter(|r| r.picked) {
            merged_runs.push(run.id.clone());
            for (file, part) in &run.parts {
                check_info(part.info.clone(), file)?;
                expected.extend(part.expected.iter().cloned());
                trials.extend(part.trials.clone());
            }
            for file in &run.record_files {
                add_records(report::read_records(file).map_err(|e| e.to_string())?, file)?;
            }
        }
        listed.extend(runs);
    }
    let (mut info, _) = info.ok_or("no report directories given")?;
    records.sort_by(|a, b| (&a.instance, a.version).cmp(&(&b.instance, b.version)));
    let present: BTreeSet<String> = trials.keys().cloned().collect();
    if expected.is_empty() {
        // Parts of an older bemula: what was expected is not known.
        expected = present.clone();
    }
    let coverage = report::Coverage::of(&expected, &present);
    if !merged_runs.is_empty() && !coverage.is_complete() {
        // A merge of nextest parts that leaves requests out is a filtered run.
        info.extra.insert(
            "selection".into(),
            format!(
                "filtered run: {} of the {} requests (cargo-nextest run{} {})",
                coverage.present,
                coverage.expected,
                if merged_runs.len() == 1 { "" } else { "s" },
                merged_runs.join(", ")
            )
            .into(),
        );
    }
    let mut summary = Summary::build(&records, info, bootstrap);
    let present: BTreeSet<String> = summary.requests.iter().map(report::outcome_name).collect();
    summary.coverage = Some(report::Coverage::of(&expected, &present));
    summary.run_id = Some(report::new_run_id());
    Ok(Assembled {
        summary,
        records,
        trials,
        runs: listed,
        notes,
    })
}

/// Which cargo-nextest runs of a report directory `bemula report` merges (`--run`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RunChoice {
    /// The newest run that covers every request; the newest run when none does.
    #[default]
    NewestComplete,
    /// The newest run, whatever it covers (`latest`).
    Latest,
    /// Every run, which must all be of one configuration (`all`): the partitions of
    /// one change, for example.
    All,
    /// The run of this id (or of the only id that starts with it).
    Id(String),
}

impl std::str::FromStr for RunChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<RunChoice, String> {
        match s.trim() {
            "" => Err("expected a run id, `latest` or `all`".into()),
            "latest" => Ok(RunChoice::Latest),
            "all" => Ok(RunChoice::All),
            id => Ok(RunChoice::Id(id.to_string())),
        }
    }
}

/// One cargo-nextest run found in a report directory's `parts/`.
#[derive(Debug, Clone)]
pub struct RunListing {
    /// The run id (nextest's `NEXTEST_RUN_ID`, as its directory is named).
    pub id: String,
    /// Its directory, `<report dir>/parts/<run id>`.
    pub dir: PathBuf,
    /// When its last process wrote its outcome.
    pub finished: std::time::SystemTime,
    /// Its configuration (of its first part).
    pub info: RunInfo,
    /// What it covers of the requests its processes expected.
    pub coverage: report::Coverage,
    /// Whether it is merged.
    pub picked: bool,
    parts: Vec<(PathBuf, Part)>,
    record_files: Vec<PathBuf>,
}

impl RunListing {
    /// One line: id, time, configuration and coverage, `*` in front when merged.
    pub fn line(&self) -> String {
        format!(
            "{} {}  {}  {}  {}",
            if self.picked { "*" } else { " " },
            self.id,
            utc(self.finished),
            describe_config(&self.info),
            self.coverage.line()
        )
    }
}

/// The configuration in a few words: system and settings, judge, answerer, data.
pub(crate) fn describe_config(info: &RunInfo) -> String {
    let settings = if info.system.settings.is_empty() {
        String::new()
    } else {
        format!(
            " {}",
            serde_json::Value::Object(info.system.settings.clone())
        )
    };
    let checksum: String = info.dataset_checksum.chars().take(12).collect();
    format!(
        "system {}{settings}, judge {}, answerer {}, data {checksum}{}",
        info.system.name,
        info.judge,
        info.answerer,
        info.data_seed
            .map(|s| format!(" (seed {s})"))
            .unwrap_or_default()
    )
}

/// The runs under a `parts/` directory, oldest first (by the time their last process
/// wrote its outcome). A run directory without outcomes (a run under way, or one whose
/// processes all failed to start) is not a run.
pub fn list_runs(parts: &Path) -> Result<Vec<RunListing>, String> {
    let mut runs = Vec::new();
    let entries = std::fs::read_dir(parts).map_err(|e| format!("{}: {e}", parts.display()))?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() && is_run_dir(&path) {
            runs.push(read_run(&path)?);
        }
    }
    runs.sort_by(|a, b| (a.finished, &a.id).cmp(&(b.finished, &b.id)));
    Ok(runs)
}

/// Reads one run's outcomes (its records are read when it is merged).
pub(crate) fn read_run(dir: &Path) -> Result<RunListing, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut parts = Vec::new();
    let mut record_files = Vec::new();
    let mut finished = std::time::UNIX_EPOCH;
    for file in files {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".trials.json") {
            let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let part: Part = serde_json::from_slice(&bytes)
                .map_err(|e| format!("{}: not a bemula report part: {e}", file.display()))?;
            if let Ok(modified) = std::fs::metadata(&file).and_then(|m| m.modified()) {
                finished = finished.max(modified);
            }
            parts.push((file, part));
        } else if name.ends_with(".jsonl") && name != report::RESULTS && !name.starts_with('.') {
            record_files.push(file);
        }
    }
    let Some((first, _)) = parts.first() else {
        return Err(format!(
            "{}: no trial outcomes found; run the tests under cargo-nextest first",
            dir.display()
        ));
    };
    let info = parts[0].1.info.clone();
    for (file, part) in &parts[1..] {
        let differs = config_differences(&info, &part.info);
        if !differs.is_empty() {
            return Err(format!(
                "{} and {} are parts of one run with different configurations ({})",
                first.display(),
                file.display(),
                differs.join("; ")
            ));
        }
    }
    let expected: BTreeSet<String> = parts
        .iter()
        .flat_map(|(_, p)| p.expected.iter().cloned())
        .collect();
    let present: BTreeSet<String> = parts
        .iter()
        .flat_map(|(_, p)| p.trials.keys().cloned())
        .collect();
    let expected = if expected.is_empty() {
        present.clone()
    } else {
        expected
    };
    Ok(RunListing {
        id: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        dir: dir.to_path_buf(),
        finished,
        info,
        coverage: report::Coverage::of(&expected, &present),
        picked: false,
        parts,
        record_files,
    })
}

/// The runs of `parts` listed, one a line.
pub(crate) fn run_list(runs: &[RunListing]) -> String {
    runs.iter()
        .map(|r| format!("  {}", r.line()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Marks the runs `choice` picks (`runs` oldest first), adding what a reader should
/// know about the choice to `notes`.
pub(crate) fn pick_runs(
    runs: &mut [RunListing],
    choice: &RunChoice,
    parts: &Path,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let newest = runs.len() - 1;
    let picked: Vec<usize> = match choice {
        RunChoice::Latest => vec![newest],
        RunChoice::NewestComplete => match runs.iter().rposition(|r| r.coverage.is_complete()) {
            Some(i) => {
                let newer: Vec<&str> = runs[i + 1..].iter().map(|r| r.id.as_str()).collect();
                if let Some(last) = newer.last() {
                    notes.push(format!(
                            "the newest complete run is {}; {} newer run(s) are filtered ({}): `--run {last}` reports the newest one, `--run latest` too",
                            runs[i].id,
                            newer.len(),
                            newer.join(", ")
                        ));
                }
                vec![i]
            }
            None => {
                if runs.len() > 1 {
                    notes.push(format!(
                            "no run in {} covers every request: reporting the newest, {} (`--run all` merges runs of one configuration, such as the partitions of one change)",
                            parts.display(),
                            runs[newest].id
                        ));
                }
                vec![newest]
            }
        },
        RunChoice::All => {
            let first = &runs[0];
            let other = runs[1..]
                .iter()
                .find(|r| !config_differences(&first.info, &r.info).is_empty());
            if let Some(other) = other {
                return Err(format!(
                    "the runs in {} are of different configurations ({}: {}); only runs of one configuration merge: pick one with --run ID. The runs, oldest first:\n{}",
                    parts.display(),
                    first.id,
                    config_differences(&first.info, &other.info).join("; "),
                    run_list(runs)
                ));
            }
            (0..runs.len()).collect()
        }
        RunChoice::Id(id) => {
            let exact: Vec<usize> = (0..runs.len()).filter(|&i| runs[i].id == *id).collect();
            let matching: Vec<usize> = if exact.is_empty() {
                (0..runs.len())
                    .filter(|&i| runs[i].id.starts_with(id.as_str()))
                    .collect()
            } else {
                exact
            };
            match matching.as_slice() {
                [one] => vec![*one],
                [] => {
                    return Err(format!(
                        "--run {id}: no such run in {}; the runs, oldest first:\n{}",
                        parts.display(),
                        run_list(runs)
                    ));
                }
                _ => {
                    return Err(format!(
                        "--run {id}: {} runs in {} start with it; give more of the id. The runs, oldest first:\n{}",
                        matching.len(),
                        parts.display(),
                        run_list(runs)
                    ));
                }
            }
        }
    };
    for i in picked {
        runs[i].picked = true;
    }
    Ok(())
}

/// The settings that differ between two runs' configurations, by name.
pub(crate) fn config_differences(a: &RunInfo, b: &RunInfo) -> Vec<String> {
    let mut out = Vec::new();
    if a.system != b.system {
        out.push(format!(
            "system: {} {:?} vs {} {:?}",
            a.system.name, a.system.settings, b.system.name, b.system.settings
        ));
    }
    for (name, x, y) in [
        ("judge", &a.judge, &b.judge),
        ("answerer", &a.answerer, &b.answerer),
        ("dataset checksum", &a.dataset_checksum, &b.dataset_checksum),
    ] {
        if x != y {
            out.push(format!("{name}: {x} vs {y}"));
        }
    }
    if a.data_seed != b.data_seed {
        out.push(format!("data seed: {:?} vs {:?}", a.data_seed, b.data_seed));
    }
    out
}
