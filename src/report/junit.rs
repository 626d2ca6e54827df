//! JUnit XML: one `testsuite` per run, one `testcase` per request (classname = the
//! instance), failure text in the element body, no colour codes. Every text is passed
//! through [`xml_text`] first, so the file is valid XML 1.0 whatever a system answered.

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
    let mut suite = TestSuiteBuilder::new(&xml_text(&format!(
        "bemula::{}",
        summary.config.system.name
    )));
    suite.set_timestamp(OffsetDateTime::now_utc());
    let mut skipped = 0usize;
    for outcome in &summary.requests {
        let name = xml_text(&super::outcome_name(outcome));
        let time = Duration::seconds_f64(times.get(&name).copied().unwrap_or(0.0));
        let listed = known.get(&name);
        let case = if outcome.passed {
            let mut case = TestCaseBuilder::success(&name, time);
            if let Some(source) = listed {
                case.set_system_out(&format!(
                    "unexpected pass: listed as a known failure in {source}; remove it from the list (or rewrite the list with BEMULA_BLESS=1)"
                ));
            }
            case.set_classname(&xml_text(&outcome.instance));
            case.build()
        } else {
            let instance_records = by_instance
                .get(outcome.instance.as_str())
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let body = xml_text(&request_message(instance_records, &outcome.request));
            let summary_line = body.lines().next().unwrap_or("failed").to_string();
            match listed {
                Some(source) => {
                    skipped += 1;
                    let mut case = TestCase::skipped_with_cause(
                        &name,
                        "known failure",
                        &xml_text(&format!(
                            "known failure (listed in {source}): {summary_line}"
                        )),
                    );
                    case.time = time;
                    case.set_classname(&xml_text(&outcome.instance));
                    case.set_system_out(&body);
                    case
                }
                None => {
                    let mut case = TestCaseBuilder::failure(&name, time, "bemula", &summary_line);
                    case.set_trace(&body);
                    case.set_classname(&xml_text(&outcome.instance));
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
    // The testsuite counts its skipped cases (known failures) as CI tools expect.
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let text = match text.find("<testsuite ") {
        Some(at) => {
            let at = at + "<testsuite ".len();
            format!("{}skipped=\"{skipped}\" {}", &text[..at], &text[at..])
        }
        None => text,
    };
    super::write_file(path, text.as_bytes())
}

/// `text` made safe for an XML 1.0 document and a CDATA section: characters XML 1.0
/// does not allow (control characters other than tab, line feed and carriage return,
/// U+FFFE, U+FFFF) are shown as Rust escapes such as `\u{1b}`, and `]]>` as
/// `]]\u{3e}` so it cannot end a CDATA section.
pub fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let allowed = matches!(c, '\t' | '\n' | '\r')
            || (c >= '\u{20}' && c != '\u{FFFE}' && c != '\u{FFFF}');
        if allowed {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    out.replace("]]>", "]]\\u{3e}")
}

#[cfg(test)]
mod tests {
    use super::xml_text;

    #[test]
    fn characters_xml_forbids_are_shown_escaped() {
        assert_eq!(xml_text("a\u{1b}[31mred\u{0}"), "a\\u{1b}[31mred\\u{0}");
        assert_eq!(xml_text("tab\tnew\nline\r"), "tab\tnew\nline\r");
        assert_eq!(xml_text("x\u{fffe}y\u{ffff}"), "x\\u{fffe}y\\u{ffff}");
        assert_eq!(xml_text("café ✓ 𝄞"), "café ✓ 𝄞");
        assert_eq!(xml_text("a]]>b"), "a]]\\u{3e}b");
    }
}
