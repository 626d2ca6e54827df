//! Records: each reply answered and judged in a task of its own (on the reading pool
//! when that is asked and the reader and judge work offline), and the records of
//! questions that could not be asked.

use super::{Runner, reading};
use crate::answer::ReadingCache;
use crate::dataset::{Instance, Question, Version};
use crate::judge::JudgeItem;
use crate::record::Record;
use crate::system::Reply;
use std::sync::Arc;

/// Longest answer kept in a record; a longer one is cut with a visible marker.
pub const MAX_STORED_ANSWER_BYTES: usize = 64 * 1024;

impl Runner {
    /// Answers (from memories, when the system returned them) and judges a reply in a
    /// task of its own, so the pass can send its next query meanwhile.
    pub(super) fn judge_later(
        &self,
        instance: &Arc<Instance>,
        mut record: Record,
        question: &Question,
        reply: Reply,
        (reading, permit): (&Arc<ReadingCache>, tokio::sync::OwnedSemaphorePermit),
        events: &super::PassEvents,
    ) -> tokio::task::JoinHandle<Record> {
        let version = record.version;
        let reading = reading.clone();
        let (answerer, judge, events) = (self.answerer.clone(), self.judge.clone(), events.clone());
        let (instance, question) = (instance.clone(), question.clone());
        // Offline reading runs on the reading pool, so the passes' calls never queue
        // behind it; a reader or judge that waits on a model stays on the runtime.
        let offline = self.config.reading_pool
            && self.judge.runs_offline()
            && (matches!(reply, Reply::Answer(_)) || self.answerer.runs_offline());
        let work = async move {
            // Held until the record is made: then the reply no longer waits.
            let _permit = permit;
            let mut answer = match reply {
                Reply::Answer(answer) => answer,
                Reply::Memories(memories) => {
                    match answerer
                        .answer_in_pass(&reading, &instance, &question, version, &memories)
                        .await
                    {
                        Ok(answer) => answer,
                        Err(err) => {
                            record.error = Some(err.to_string());
                            record.reason = format!("error: {err}");
                            events.judged();
                            return record;
                        }
                    }
                }
            };
            // Before it is judged or capped: a secret cut in half by the cap would
            // no longer be found whole.
            crate::redact::redact_in_place(&mut answer);
            let item = JudgeItem {
                suite: question.suite,
                attack: question.attack,
                version,
                question: &question.text,
                expected: question.gold_on(version).unwrap_or_default(),
                accepted: &question.accepted,
                leak: &question.leak,
            };
            let verdict = judge.judge(&item, &answer).await;
            record.correct = verdict.correct == Some(true);
            record.unscored = verdict.correct.is_none();
            record.reason = verdict.reason;
            record.decided_by = verdict.decided_by;
            record.answer = Some(cap_answer(answer));
            events.judged();
            record
        };
        if offline {
            reading::spawn(work)
        } else {
            tokio::spawn(work)
        }
    }

    pub(super) fn base_record(
        &self,
        instance: &Instance,
        version: Version,
        question: &Question,
    ) -> Record {
        let request_type = question
            .request
            .as_deref()
            .and_then(|r| instance.request(r))
            .map(|r| r.kind);
        Record {
            instance: instance.id.clone(),
            tier: instance.tier,
            request: question.request.clone(),
            request_type,
            suite: question.suite,
            attack: question.attack,
            version,
            question_id: question.id.clone(),
            question: question.text.clone(),
            expected: question.gold_on(version).unwrap_or_default().to_string(),
            answer: None,
            correct: false,
            error: None,
            unscored: false,
            conditioned_on: if version == question.suite.scored_on() {
                question.conditioned_on.clone()
            } else {
                None
            },
            judge: self.judge.name(),
            reason: String::new(),
            restarts: 0,
            truncated_turns: 0,
            decided_by: None,
        }
    }

    pub(super) fn error_record(
        &self,
        instance: &Instance,
        version: Version,
        question: &Question,
        reason: &str,
    ) -> Record {
        let mut record = self.base_record(instance, version, question);
        record.error = Some(reason.to_string());
        record.reason = format!("error: {reason}");
        record
    }
}

/// The message of a task (of `who`) that panicked or was cancelled.
pub(super) fn panic_message(err: tokio::task::JoinError, who: &str, version: Version) -> String {
    if err.is_panic() {
        let payload = err.into_panic();
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        format!("{who} panicked during the {version} pass: {text}")
    } else {
        format!("the {version} pass was cancelled")
    }
}

/// An answer cut to [`MAX_STORED_ANSWER_BYTES`] (at a character boundary), with a
/// marker saying how long it was.
pub fn cap_answer(answer: String) -> String {
    if answer.len() <= MAX_STORED_ANSWER_BYTES {
        return answer;
    }
    let mut end = MAX_STORED_ANSWER_BYTES;
    while !answer.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{} […truncated by bemula: {} bytes in all]",
        &answer[..end],
        answer.len()
    )
}
