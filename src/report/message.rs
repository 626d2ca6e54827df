//! Test names of requests, and the readable message of a request's outcome: every
//! sub-assertion with ✓ or ✗, and for each ✗ the question, the expected answer, the
//! system's answer, the judge's reason and, for values, a word diff.

use crate::dataset::{RequestType, Suite};
use crate::metrics::effective::{self, Cause, Item};
use crate::metrics::outcomes::failed_item;
use crate::record::Record;
use similar::{ChangeTag, TextDiff};
use std::fmt::Write;

/// The test name of a request: `<instance>::<request>::<type>_<type name>`, e.g.
/// `short_003::r2::F3_semantic`, so that libtest filters select by instance
/// (`short_003::`), tier (`short_`), type (`F3`, `semantic`) or one request (`--exact`).
pub fn test_name(instance: &str, request: &str, kind: RequestType) -> String {
    format!("{instance}::{request}::{}_{}", kind.code(), kind.name())
}

/// The test name of a request outcome (`<instance>::<request>` when its type is unknown).
pub fn outcome_name(outcome: &crate::metrics::RequestOutcome) -> String {
    match outcome.request_type {
        Some(kind) => test_name(&outcome.instance, &outcome.request, kind),
        None => format!("{}::{}", outcome.instance, outcome.request),
    }
}

/// The message of one request: its items and the instance's preservation items, each
/// with ✓ or ✗ by effective correctness, and for each ✗ the cause the scorer found
/// (the record itself, or the control record it is conditioned on). `records` are the
/// records of its instance.
pub fn request_message(records: &[Record], request: &str) -> String {
    let items = effective::score(records);
    let (mine, preservation): (Vec<&Item<'_>>, Vec<&Item<'_>>) = items
        .iter()
        .filter(|i| {
            i.record.request.as_deref() == Some(request) || i.record.suite == Suite::Preservation
        })
        .partition(|i| i.record.request.as_deref() == Some(request));
    let failed = mine
        .iter()
        .chain(&preservation)
        .filter(|i| !i.effective())
        .count();
    let total = mine.len() + preservation.len();
    let mut out = String::new();
    if failed == 0 {
        let _ = writeln!(out, "all {total} sub-assertions hold");
    } else {
        let _ = writeln!(out, "{failed} of {total} sub-assertions fail");
    }
    for item in &mine {
        write_item(&mut out, item, false);
    }
    for item in &preservation {
        write_item(&mut out, item, true);
    }
    out
}

fn label(record: &Record) -> String {
    match record.attack {
        Some(attack) => format!("attack/{}", attack.name()),
        None => record.suite.name().to_string(),
    }
}

/// One item: ✓ or ✗, and for a ✗ the failure as every report states it
/// ([`crate::metrics::FailedItem`]: reason and detail), then the record a reader checks
/// (the control record, when the item fails on its control probe).
fn write_item(out: &mut String, item: &Item<'_>, preservation: bool) {
    let record = item.record;
    let mark = if item.effective() { '✓' } else { '✗' };
    let _ = writeln!(out, "  {mark} {:<20} {}", label(record), record.question_id);
    let Some(failed) = failed_item(item, preservation) else {
        return;
    };
    let _ = writeln!(out, "      {}: {}", failed.reason, one_line(&failed.detail));
    match item.cause {
        Some(Cause::ControlFailed(control)) => detail(out, control),
        Some(Cause::Error | Cause::Unscored | Cause::Wrong) => detail(out, record),
        Some(Cause::ControlMissing) | None => {}
    }
}

fn detail(out: &mut String, record: &Record) {
    let _ = writeln!(out, "      version:  {}", record.version);
    let _ = writeln!(out, "      question: {}", one_line(&record.question));
    let _ = writeln!(out, "      expected: {}", record.expected);
    match (&record.answer, &record.error) {
        (_, Some(error)) => {
            let _ = writeln!(out, "      error:    {}", one_line(error));
        }
        (Some(answer), None) => {
            let _ = writeln!(out, "      answer:   {}", one_line(answer));
            let _ = writeln!(
                out,
                "      judge:    {}{}",
                crate::terminal::inline(&record.reason),
                if record.unscored { " (unscored)" } else { "" }
            );
            if !record.expected.starts_with('[')
                && let Some(diff) = word_diff(&record.expected, answer)
            {
                let _ = writeln!(out, "      diff (-expected +answer): {diff}");
            }
        }
        (None, None) => {
            let _ = writeln!(out, "      no answer recorded");
        }
    }
}

fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Answers and errors come from the system under test: escape what could drive a
    // terminal or break a report.
    let flat = crate::terminal::inline(&flat).into_owned();
    if flat.chars().count() > 300 {
        let cut: String = flat.chars().take(300).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// A word diff as plain text: `[-removed-]` and `{+added+}`, no colour codes. Only
/// where it helps the reader: a near miss (the answer shares a content word with the
/// expected value and is not much longer); `None` otherwise, where the answer line
/// says it all.
fn word_diff(expected: &str, answer: &str) -> Option<String> {
    let answer = one_line(answer);
    let (expected_words, answer_words) = (
        expected.split_whitespace().count(),
        answer.split_whitespace().count(),
    );
    if answer_words > (3 * expected_words).max(expected_words + 6) {
        return None;
    }
    let diff = TextDiff::from_words(expected, answer.as_str());
    let shares_a_word = diff.iter_all_changes().any(|c| {
        let word = c.value().trim().to_lowercase();
        c.tag() == ChangeTag::Equal && !word.is_empty() && !crate::text::is_stop_word(&word)
    });
    if !shares_a_word {
        return None;
    }
    let mut out = String::new();
    for change in diff.iter_all_changes() {
        let value = change.value();
        if value.trim().is_empty() {
            out.push_str(value);
            continue;
        }
        match change.tag() {
            ChangeTag::Equal => out.push_str(value),
            ChangeTag::Delete => {
                let _ = write!(out, "[-{value}-]");
            }
            ChangeTag::Insert => {
                let _ = write!(out, "{{+{value}+}}");
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::Version;

    #[test]
    fn a_near_miss_gets_a_word_diff() {
        assert_eq!(
            word_diff("December 2024", "In Dec 2024").as_deref(),
            Some("[-December-]{+In+} {+Dec+} 2024")
        );
    }

    #[test]
    fn no_diff_where_it_would_not_help() {
        assert_eq!(
            word_diff("a Galaxy S23", "I don't have any information about that."),
            None,
            "nothing shared"
        );
        assert_eq!(
            word_diff("a Galaxy S23", "a layout"),
            None,
            "only a stop-word shared"
        );
        let long = "This might help: in February 2024 I earned an advanced Excel certification and that certificate has been useful";
        assert_eq!(
            word_diff("a first aid certificate", long),
            None,
            "a long sentence reads better whole"
        );
    }

    fn preservation(version: Version, answer: &str, correct: bool) -> Record {
        Record {
            instance: "short_001".into(),
            tier: crate::dataset::Tier::Short,
            request: None,
            request_type: None,
            suite: Suite::Preservation,
            attack: None,
            version,
            question_id: "pres-f07".into(),
            question: "Which city did I move to?".into(),
            expected: "Lisbon".into(),
            answer: Some(answer.into()),
            correct,
            error: None,
            unscored: false,
            conditioned_on: (version == Version::Forget).then(|| "pres-f07".into()),
            judge: "rule".into(),
            decided_by: None,
            reason: if correct {
                "gold found"
            } else {
                "gold not found"
            }
            .into(),
            restarts: 0,
            truncated_turns: 0,
        }
    }

    #[test]
    fn the_message_names_the_control_record_the_scorer_failed_the_item_on() {
        // Two control records share the probe's id (as merged parts can); the scorer
        // fails the item on the one that failed, and the message must show that one.
        let records = vec![
            preservation(Version::Control, "Lisbon, I think.", true),
            preservation(Version::Control, "Porto.", false),
            preservation(Version::Forget, "Lisbon.", true),
        ];
        let message = request_message(&records, "r1");
        assert!(
            message.starts_with("1 of 1 sub-assertions fail"),
            "{message}"
        );
        assert!(
            message.contains(
                "preservation item failed: control probe failed: pres-f07 on the control version: gold not found"
            ),
            "{message}"
        );
        assert!(message.contains("answer:   Porto."), "{message}");
        assert!(!message.contains("Lisbon, I think."), "{message}");
    }

    #[test]
    fn every_failing_item_is_stated_as_the_reports_state_it() {
        let mut efficacy = preservation(Version::Forget, "You live in Lisbon.", false);
        efficacy.suite = Suite::Efficacy;
        efficacy.request = Some("r1".into());
        efficacy.request_type = Some(RequestType::F1);
        efficacy.question_id = "eff-r1".into();
        efficacy.expected = "[FORGOTTEN]".into();
        efficacy.conditioned_on = Some("ret-r1".into());
        efficacy.reason = "the target is still stated".into();
        let mut retention = efficacy.clone();
        retention.suite = Suite::Retention;
        retention.version = Version::Control;
        retention.question_id = "ret-r1".into();
        retention.conditioned_on = None;
        retention.correct = true;
        retention.answer = Some("Lisbon.".into());
        let records = vec![
            retention,
            efficacy,
            preservation(Version::Control, "Porto.", false),
            preservation(Version::Forget, "Lisbon.", true),
        ];
        let outcomes = crate::metrics::request_outcomes(&records);
        assert_eq!(outcomes.len(), 1, "{outcomes:?}");
        assert_eq!(outcomes[0].failed.len(), 2, "{outcomes:?}");
        let message = request_message(&records, "r1");
        assert!(
            message.starts_with("2 of 3 sub-assertions fail"),
            "{message}"
        );
        for failed in &outcomes[0].failed {
            let line = format!("{}: {}", failed.reason, failed.detail);
            assert!(message.contains(&line), "{line:?} not in\n{message}");
        }
    }

    #[test]
    fn test_names_carry_instance_request_and_type() {
        assert_eq!(
            test_name("short_003", "r2", RequestType::F3),
            "short_003::r2::F3_semantic"
        );
    }
}
