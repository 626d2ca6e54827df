//! The reports a harness process writes: a plain run's, or its part of a
//! cargo-nextest run (see [`crate::report::parts`]).

use super::*;

/// Which reports a harness process writes.
pub(super) enum ReportRun<'a> {
    /// Its part of the cargo-nextest run of this id.
    NextestPart(&'a str),
    /// The reports of a plain run, under the run's id (its journal's) when it has one.
    Plain(Option<String>),
}

pub(super) fn write_reports(
    settings: &Settings,
    (session, info): (&Session, &RunInfo),
    records: &[Record],
    outcomes: &BTreeMap<String, TrialOutcome>,
    run: ReportRun<'_>,
    expected: &BTreeSet<String>,
    expectations: &Expectations,
) -> Result<Option<Summary>, HarnessError> {
    let dir = &settings.report_dir;
    let run_id = match run {
        ReportRun::Plain(run_id) => run_id,
        ReportRun::NextestPart(run) => {
            // One process per test: leave this process's part; `bemula report DIR` assembles.
            let part_dir = dir.join(PARTS).join(sanitize(run));
            std::fs::create_dir_all(&part_dir)
                .map_err(|e| HarnessError::Io(format!("{}: {e}", part_dir.display())))?;
            let stem = outcomes
                .keys()
                .next()
                .map(|n| sanitize(n))
                .unwrap_or_else(|| format!("pid{}", std::process::id()));
            report::write_records(&part_dir.join(format!("{stem}.jsonl")), records)?;
            let part = Part {
                info: info.clone(),
                trials: outcomes.clone(),
                expected: expected.iter().cloned().collect(),
            };
            let json = serde_json::to_vec_pretty(&part)
                .map_err(|e| HarnessError::Io(format!("{}: {e}", part_dir.display())))?;
            report::write_file(&part_dir.join(format!("{stem}.trials.json")), &json)?;
            return Ok(None);
        }
    };
    let summary = session.summarise(records, info.clone(), run_id.as_deref(), expected);
    let times = outcomes
        .iter()
        .map(|(n, o)| (n.clone(), o.seconds))
        .collect();
    let known = known_map(settings.expectations.as_deref(), expectations);
    report::write_all_marked(dir, records, &summary, &times, &known)?;
    Ok(Some(summary))
}

pub(super) fn known_map(
    path: Option<&Path>,
    expectations: &Expectations,
) -> BTreeMap<String, String> {
    let source = path.map(|p| p.display().to_string()).unwrap_or_default();
    expectations
        .names()
        .map(|n| (n.clone(), source.clone()))
        .collect()
}
