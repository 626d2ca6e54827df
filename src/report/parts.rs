//! The report parts of a process-per-test run (cargo-nextest): what each test process
//! leaves under `<report dir>/parts/<run id>/`, and the names and files of that layout.
//! [`super::merge`] lists, chooses and assembles them.

use super::RunInfo;
use crate::report;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The directory of the report parts that cargo-nextest processes leave.
pub const PARTS: &str = "parts";

/// How many nextest runs' parts a report directory keeps: a new run removes the older
/// ones beyond these.
pub const KEEP_PART_RUNS: usize = 5;

/// `bemula report DIR`, the command that merges a nextest run's parts in `dir`.
pub(crate) fn report_command(dir: &Path) -> String {
    let shown = dir.display().to_string();
    match shlex::try_quote(&shown) {
        Ok(quoted) => format!("bemula report {quoted}"),
        Err(_) => format!("bemula report {shown}"),
    }
}

/// At the start of a nextest run: the reports of an earlier run in `dir` are removed,
/// and `summary.md` says that this run's reports are still to be merged, and how.
pub(crate) fn mark_reports_pending(dir: &Path, run: &str) -> Result<(), report::ReportError> {
    let had_reports = dir.join(report::SUMMARY_JSON).is_file();
    report::remove_reports(dir)?;
    let text = format!(
        "# bemula: reports pending\n\n\
         cargo-nextest run `{run}` (started {}) runs each test in a process of its own; \
         each process writes its results under `{}`, not here.{}\n\n\
         Merge the run's parts into reports here with:\n\n    {}\n",
        utc(std::time::SystemTime::now()),
        Path::new(PARTS).join(sanitize(run)).display(),
        if had_reports {
            " The reports of the earlier run that were here were removed."
        } else {
            ""
        },
        report_command(dir)
    );
    report::write_file(&dir.join(report::SUMMARY_MD), text.as_bytes())
}

/// Removes all but the `keep` newest run directories under `parts`, saying which.
pub(crate) fn prune_part_runs(parts: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(parts) else {
        return;
    };
    let mut runs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| {
            (
                e.metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH),
                e.path(),
            )
        })
        .collect();
    if runs.len() <= keep {
        return;
    }
    runs.sort();
    let old = runs.len() - keep;
    for (_, path) in runs.into_iter().take(old) {
        if std::fs::remove_dir_all(&path).is_ok() {
            eprintln!(
                "bemula: removed the parts of an old run, {} (the newest {KEEP_PART_RUNS} runs are kept)",
                path.display()
            );
        }
    }
}

/// What one test process leaves in a parts directory besides its records.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Part {
    /// The run's configuration.
    pub info: RunInfo,
    /// Its trials' outcomes by test name.
    pub trials: BTreeMap<String, TrialOutcome>,
    /// The test names the whole run is expected to cover (every request of the data).
    #[serde(default)]
    pub expected: Vec<String>,
}

/// `2026-12-02 01:50:35 UTC`.
pub(crate) fn utc(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

pub(crate) fn trial_files(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.to_string_lossy().ends_with(".trials.json"))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `dir` is one run's parts (`<report dir>/parts/<run id>`).
pub(crate) fn is_run_dir(dir: &Path) -> bool {
    !trial_files(dir).is_empty()
}

/// Whether `dir` is a `parts/` directory itself (runs in its subdirectories).
pub(crate) fn is_parts_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.path().is_dir() && is_run_dir(&e.path()))
    })
}

/// The outcome of one trial, kept for the reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialOutcome {
    /// Whether the request passed.
    pub passed: bool,
    /// Whether it is listed as a known failure.
    pub known_failure: bool,
    /// Wall time of the trial in seconds (including the instance's ingestion when this
    /// trial was the one that did it).
    pub seconds: f64,
}

/// `name` as a file name: its characters outside `[A-Za-z0-9._-]` become `_`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
