//! Answerers: turn the memories a system retrieved into an answer, the same way for
//! every system (the paper's uniform answering side).
//!
//! The built-in [`Extractive`] answerer runs offline: it answers with the retrieved
//! text that best matches the question, or says it has no such information.

use async_trait::async_trait;

/// A failure to compose an answer; recorded as an error on the question.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("answerer failed: {0}")]
pub struct AnswerError(pub String);

/// Composes an answer to a question from retrieved memories.
#[async_trait]
pub trait Answerer: Send + Sync {
    /// The answer to `question` given `memories` (possibly none).
    async fn answer(&self, question: &str, memories: &[String]) -> Result<String, AnswerError>;
    /// Name recorded in the run's configuration.
    fn name(&self) -> String;
}

/// The answer an answerer gives when nothing relevant is in memory.
pub const NO_INFORMATION: &str = "I don't have any information about that.";
