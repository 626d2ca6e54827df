//! Reports of a run: `results.jsonl` (one [`Record`] per line), `summary.json`
//! ([`Summary`]), `summary.md` (the metric table with intervals, breakdowns, the failing
//! requests), `junit.xml` (one test case per request) and `report.html` (the same with
//! figures, one self-contained page; see [`html`]).
//!
//! A report never recomputes a metric: [`Summary::build`] calls [`crate::metrics`]
//! once and every output renders that summary.

mod dir;
pub mod html;
pub mod journal;
mod junit;
pub mod legend;
mod markdown;
pub mod merge;
mod message;
pub mod parts;
mod svg;

pub use dir::{
    Coverage, DirLock, LockHolder, LockState, check_writable, encode_records, new_run_id,
    read_verified, records_checksum,
};
pub use junit::{write_junit, write_junit_marked};
pub use legend::{METRICS, MetricDoc, render_legend};
pub use markdown::{TABLE_METRICS, pct, render_markdown, render_table};
pub use message::{outcome_name, request_message, test_name};

use crate::metrics::{
    self, BootstrapConfig, Breakdowns, Counts, Interval, MetricSet, RequestOutcome,
};
use crate::record::Record;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// What a run was: recorded in `summary.json` so a result can be traced and repeated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The system under test, as its factory (or adapter handshake) describes it.
    pub system: crate::system::SystemInfo,
    /// Name of the judge.
    pub judge: String,
    /// Name of the answerer.
    pub answerer: String,
    /// Where the data came from.
    pub dataset: String,
    /// SHA-256 of the dataset's instance files.
    pub dataset_checksum: String,
    /// Seed of the generated data, when generated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_seed: Option<u64>,
    /// Seed of the bootstrap.
    pub bootstrap_seed: u64,
    /// Bootstrap resamples.
    pub bootstrap_resamples: usize,
    /// Version of bemula.
    pub bemula_version: String,
    /// Anything else worth keeping (filters, gate, usage).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// The aggregate of a run: every figure the reports show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// How the run was made.
    pub config: RunInfo,
    /// RA, FE, PR, RLA, AR, RPR, FA, UG and Score, fractions in \[0, 1\] (null if undefined).
    pub metrics: MetricSet,
    /// Percentile cluster-bootstrap intervals, by metric name.
    pub intervals: BTreeMap<String, Interval>,
    /// Metrics by request type, attack type and tier.
    pub breakdowns: Breakdowns,
    /// Counts of records: correct, wrong, errors, unscored.
    pub counts: Counts,
    /// How the run was judged: judge, decided-by counts, unscored share.
    #[serde(default)]
    pub judging: metrics::Judging,
    /// Every request, passed or failed, with its failing items.
    pub requests: Vec<RequestOutcome>,
    /// The run that wrote this summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// SHA-256 of `results.jsonl` as written beside this summary; `bemula report` and
    /// `bemula compare` refuse a summary whose records file does not match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records_checksum: Option<String>,
    /// Requests expected versus present, where the run knew what it expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// The records' errors by kind, with the first message of each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<metrics::ErrorExample>,
}

impl Summary {
    /// Computes the summary of `records`.
    pub fn build(records: &[Record], mut config: RunInfo, bootstrap: &BootstrapConfig) -> Summary {
        config.bootstrap_seed = bootstrap.seed;
        config.bootstrap_resamples = bootstrap.resamples;
        if config.bemula_version.is_empty() {
            config.bemula_version = env!("CARGO_PKG_VERSION").to_string();
        }
        let mut judging = metrics::judging(records, &config.judge);
        judging.calibration = crate::judge::calibration::shipped_for(&config.judge);
        Summary {
            judging,
            config,
            metrics: metrics::compute(records),
            intervals: metrics::bootstrap(records, bootstrap).unwrap_or_default(),
            breakdowns: metrics::breakdowns(records),
            counts: metrics::counts(records),
            requests: metrics::request_outcomes(records),
            run_id: None,
            records_checksum: Some(records_checksum(records)),
            coverage: None,
            errors: metrics::error_examples(records),
        }
    }

    /// The first error message of each kind, one line each (at most `limit` kinds):
    /// `timeout (12 records), first at short_001/r1-eff-f05: …`.
    pub fn error_lines(&self, limit: usize) -> Vec<String> {
        self.errors
            .iter()
            .take(limit)
            .map(|e| {
                format!(
                    "{} ({} record{}), first at {}: {}",
                    e.kind,
                    e.count,
                    if e.count == 1 { "" } else { "s" },
                    e.first_at,
                    {
                        let first = crate::terminal::inline(&e.first);
                        match first.char_indices().nth(300) {
                            Some((at, _)) => format!("{}…", &first[..at]),
                            None => first.into_owned(),
                        }
                    }
                )
            })
            .collect()
    }

    /// Whether the summary covers fewer requests than expected.
    pub fn is_incomplete(&self) -> bool {
        self.coverage.as_ref().is_some_and(|c| !c.is_complete())
    }

    /// Requests that passed, and the total.
    pub fn passed(&self) -> (usize, usize) {
        (
            self.requests.iter().filter(|r| r.passed).count(),
            self.requests.len(),
        )
    }
}

/// A failure to write or read a report file.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct ReportError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl ReportError {
    pub(crate) fn io(path: &Path, err: impl std::fmt::Display) -> ReportError {
        ReportError {
            path: path.to_path_buf(),
            message: err.to_string(),
        }
    }
}

/// Names of the files a run writes.
pub const RESULTS: &str = "results.jsonl";
/// See [`RESULTS`].
pub const SUMMARY_JSON: &str = "summary.json";
/// See [`RESULTS`].
pub const SUMMARY_MD: &str = "summary.md";
/// See [`RESULTS`].
pub const JUNIT: &str = "junit.xml";

/// Writes `results.jsonl`, `summary.json`, `summary.md`, `junit.xml` and `report.html`
/// into `dir`.
/// `times` gives each request's wall time in seconds by test name, where known.
pub fn write_all(
    dir: &Path,
    records: &[Record],
    summary: &Summary,
    times: &BTreeMap<String, f64>,
) -> Result<(), ReportError> {
    write_all_marked(dir, records, summary, times, &Default::default())
}

/// [`write_all`], with the known failures of an expectations file and what makes each
/// one known (`junit.xml` shows them as skipped, and listed requests that passed as
/// unexpected passes).
pub fn write_all_marked(
    dir: &Path,
    records: &[Record],
    summary: &Summary,
    times: &BTreeMap<String, f64>,
    known: &BTreeMap<String, String>,
) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|e| ReportError::io(dir, e))?;
    write_records(&dir.join(RESULTS), records)?;
    let json = serde_json::to_string_pretty(summary).map_err(|e| ReportError::io(dir, e))?;
    write_file(&dir.join(SUMMARY_JSON), format!("{json}\n").as_bytes())?;
    let mut markdown = render_markdown(summary);
    if let Some(coverage) = summary.coverage.as_ref().filter(|c| !c.is_complete()) {
        markdown = format!(
            "**{}**: the figures below cover only the requests present.\n\n{markdown}",
            coverage.line()
        );
    }
    write_file(&dir.join(SUMMARY_MD), markdown.as_bytes())?;
    html::write_report(dir, summary, records)?;
    write_junit_marked(&dir.join(JUNIT), records, summary, times, known)
}

/// Removes the report files of an earlier run from `dir` (`results.jsonl`,
/// `summary.json`, `summary.md`, `junit.xml`, `report.html`), so that no stale report stays where a
/// current one is expected. Missing files are fine.
pub fn remove_reports(dir: &Path) -> Result<(), ReportError> {
    for name in [RESULTS, SUMMARY_JSON, SUMMARY_MD, JUNIT, html::REPORT_HTML] {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(ReportError::io(&path, e)),
        }
    }
    Ok(())
}

/// Writes records as JSON lines.
pub fn write_records(path: &Path, records: &[Record]) -> Result<(), ReportError> {
    write_file(path, &encode_records(records))
}

/// Reads records written by [`write_records`]; a bad line is an error naming it.
pub fn read_records(path: &Path) -> Result<Vec<Record>, ReportError> {
    let file = std::fs::File::open(path).map_err(|e| ReportError::io(path, e))?;
    let mut records = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| ReportError::io(path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let record = serde_json::from_str(&line).map_err(|e| ReportError {
            path: path.to_path_buf(),
            message: format!("line {}: {e}", n + 1),
        })?;
        records.push(record);
    }
    Ok(records)
}

/// Writes a file atomically: a temporary file beside it, then a rename, so a reader
/// never sees half a report and a link at `path` is replaced, never followed.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    crate::files::write_replacing(path, bytes).map_err(|e| ReportError::io(path, e))
}

/// One line quoting the judge's shipped calibration figures, or how to measure them.
pub fn calibration_line(j: &metrics::Judging) -> String {
    crate::judge::calibration::calibration_line(&j.judge, j.calibration.as_ref())
}

/// One line saying how a run was judged: the judge, the share each judge decided, the
/// share left unscored ("judge `rule`: decided by rule 98.2%, unscored 1.8%").
pub fn judging_line(j: &metrics::Judging) -> String {
    let pct = |x: Option<f64>| x.map_or("n/a".to_string(), |x| format!("{:.1}%", 100.0 * x));
    let decided: Vec<String> = j
        .decided_by
        .keys()
        .map(|k| format!("{k} {}", pct(j.share(k))))
        .collect();
    let decided = if decided.is_empty() {
        "nothing decided".to_string()
    } else {
        format!("decided by {}", decided.join(", "))
    };
    format!(
        "judge `{}`: {decided}, unscored {} ({} of {} judged records)",
        j.judge,
        pct(j.unscored_share),
        j.unscored,
        j.judged
    )
}
