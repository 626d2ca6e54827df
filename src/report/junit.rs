//! JUnit XML: one `testsuite` per run, one `testcase` per request (classname = the
//! instance), failure text in the element body, no colour codes.

use super::{ReportError, Summary, request_message};
use crate::record::Record;
use junit_report::{
    Duration, OffsetDateTime, ReportBuilder, TestCase, TestCaseBuilder, TestSuiteBuilder,
};
use std::collections::BTreeMap;
use std::path::Path;

/// Writes `junit.xml` for the requests of `summary`; `times` are seconds by test name.
pub fn write_junit(
    path: &Path,
    records: &[Record],
    summary: &Summary,
    times: &BTreeMap<String, f64>,
) -> Result<(), ReportError> {
    write_junit_marked(path, records, summary, times, &BTreeMap::new())
}

/// [`write_junit`] with known failures: `known` maps the test names an expectations
/// file lists to what says so (the file). A listed request that fails is a
/// `<skipped message="known failure: …">` with its failure text, never a `<failure>`; a
/// listed request that passes is a success whose output says it passed unexpectedly.
pub fn write_junit_marked(
    path: &Path,
    records: &[Record],
    summary: &Summary,
    times: &BTreeMap<String, f64>,
    known: &BTreeMap<String, String>,
) -> Result<(), ReportError> {
    let mut by_instance: BTreeMap<&str, Vec<Record>> = BTreeMap::new();
    for record in records {
        by_instance
            .entry(record.instance.as_str())
            .or_default()
            .push(record.clone());
    }
    let mut suite = TestSuiteBuilder::new(&format!("bemula::{}", summary.config.system.name));
    suite.set_timestamp(OffsetDateTime::now_utc());
    for outcome in &summary.requests {
        let name = super::outcome_name(outcome);
        let time = Duration::seconds_f64(times.get(&name).copied().unwrap_or(0.0));
        let listed = known.get(&name);
        let case = if outcome.passed {
            let mut case = TestCaseBuilder::success(&name, time);
            if let Some(source) = listed {
                case.set_system_out(&format!(
                    "unexpected pass: listed as a known failure in {source}; remove it from the list (or rewrite the list with BEMULA_BLESS=1)"
                ));
            }
            case.set_classname(&outcome.instance);
            case.build()
        } else {
            let instance_records = by_instance
                .get(outcome.instance.as_str())
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let body = request_message(instance_records, &outcome.request);
            let summary_line = body.lines().next().unwrap_or("failed").to_string();
            match listed {
                Some(source) => {
                    let mut case = TestCase::skipped_with_cause(
                        &name,
                        "known failure",
                        &format!("known failure (listed in {source}): {summary_line}"),
                    );
                    case.time = time;
                    case.set_classname(&outcome.instance);
                    case.set_system_out(&body);
                    case
                }
                None => {
                    let mut case = TestCaseBuilder::failure(&name, time, "bemula", &summary_line);
                    case.set_trace(&body);
                    case.set_classname(&outcome.instance);
                    case.build()
                }
            }
        };
        suite.add_testcase(case);
    }
    let report = ReportBuilder::new().add_testsuite(suite.build()).build();
    let mut bytes = Vec::new();
    report.write_xml(&mut bytes).map_err(|e| ReportError {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    super::write_file(path, &bytes)
}
