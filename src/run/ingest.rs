//! Ingestion: a pass's system set up (reset, the dialogue session by session and turn by
//! turn, flush) and the relearning dialogues.

use super::recovery::CallKind;
use super::{Failure, Runner};
use crate::dataset::{Instance, Question, Version};
use crate::system::{
    AsyncMemorySystem, Namespace, SessionInfo, SystemError, SystemResult, TurnInput,
};

impl Runner {
    /// A fresh system for the pass, its namespace reset, the dialogue ingested and
    /// flushed, and the relearning dialogues of `relearned` ingested again.
    pub(super) async fn set_up(
        &self,
        instance: &Instance,
        version: Version,
        ns: &Namespace,
        questions: &[&Question],
        relearned: &[usize],
        last_date: &str,
    ) -> Result<Box<dyn AsyncMemorySystem>, Failure> {
        let mut system = self.factory.make(ns).await.map_err(|err| {
            Failure::new(
                &err,
                CallKind::Write,
                format!("could not create the system for {ns}: {err}"),
            )
        })?;
        self.ingest(system.as_mut(), instance, version, ns).await?;
        for &index in relearned {
            let question = questions[index];
            let info = SessionInfo {
                id: format!("{}/relearn", question.id),
                date: last_date.to_string(),
            };
            if let Some(dialogue) = &question.relearn {
                self.relearn(system.as_mut(), ns, &info, dialogue).await?;
            }
        }
        Ok(system)
    }

    pub(super) async fn relearn(
        &self,
        system: &mut dyn AsyncMemorySystem,
        ns: &Namespace,
        info: &SessionInfo,
        dialogue: &[crate::dataset::Turn],
    ) -> Result<(), Failure> {
        let turns = dialogue.iter().enumerate().map(|(index, t)| TurnInput {
            index,
            user: t.user.clone(),
            assistant: t.assistant.clone(),
        });
        let result = match self.ingest_session(system, ns, info, turns).await {
            Ok(()) => system.flush(ns).await,
            Err(e) => Err(e),
        };
        result.map_err(|err| {
            Failure::new(
                &err,
                CallKind::Write,
                format!("ingesting the relearning dialogue failed: {err}"),
            )
        })
    }

    pub(super) async fn ingest(
        &self,
        system: &mut dyn AsyncMemorySystem,
        instance: &Instance,
        version: Version,
        ns: &Namespace,
    ) -> Result<(), Failure> {
        let write = |err: &SystemError, reason: String| Failure::new(err, CallKind::Write, reason);
        system
            .reset(ns)
            .await
            .map_err(|e| write(&e, format!("reset of {ns} failed: {e}")))?;
        for session in instance.dialogue(version) {
            let info = SessionInfo {
                id: session.id.clone(),
                date: session.date.clone(),
            };
            let turns = session
                .turns
                .iter()
                .enumerate()
                .map(|(index, t)| TurnInput {
                    index,
                    user: t.user.clone(),
                    assistant: t.assistant.clone(),
                });
            self.ingest_session(system, ns, &info, turns)
                .await
                .map_err(|e| {
                    write(
                        &e,
                        format!("ingesting session {} of {ns} failed: {e}", session.id),
                    )
                })?;
        }
        system
            .flush(ns)
            .await
            .map_err(|e| write(&e, format!("flush of {ns} failed: {e}")))
    }

    pub(super) async fn ingest_session(
        &self,
        system: &mut dyn AsyncMemorySystem,
        ns: &Namespace,
        info: &SessionInfo,
        turns: impl Iterator<Item = TurnInput>,
    ) -> SystemResult<()> {
        system.start_session(ns, info).await?;
        for turn in turns {
            system.observe(ns, &turn).await.map_err(|e| {
                SystemError::new(e.kind, format!("turn {}: {}", turn.index, e.message))
            })?;
        }
        system.end_session(ns).await
    }
}
