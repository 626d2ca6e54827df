//! Errors of LLM calls. Every message names the endpoint (model and base URL) and
//! never the API key.

use std::path::PathBuf;
use std::time::Duration;

/// A failed LLM call or a bad LLM setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The endpoint could not be reached, even after retries.
    #[error("{endpoint}: cannot connect after {attempts} attempt(s): {detail}")]
    Connection {
        /// Model and base URL.
        endpoint: String,
        /// Attempts made.
        attempts: u32,
        /// What the connection error was.
        detail: String,
    },
    /// Every attempt ran past the configured timeout.
    #[error("{endpoint}: no reply within {timeout:?} after {attempts} attempt(s)")]
    Timeout {
        /// Model and base URL.
        endpoint: String,
        /// Attempts made.
        attempts: u32,
        /// The per-request time limit.
        timeout: Duration,
    },
    /// The endpoint kept answering HTTP 429 or 5xx.
    #[error("{endpoint}: still HTTP {status} after {attempts} attempt(s): {detail}")]
    Overloaded {
        /// Model and base URL.
        endpoint: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// Start of the last error body.
        detail: String,
    },
    /// HTTP 401 or 403: the key is missing, wrong or not allowed to use the model.
    #[error(
        "{endpoint}: HTTP {status}, the API key was rejected ({key_note}); check the key \
         in ${api_key_env}: {detail}"
    )]
    Unauthorized {
        /// Model and base URL.
        endpoint: String,
        /// 401 or 403.
        status: u16,
        /// Name of the environment variable the key was read from.
        api_key_env: String,
        /// Whether a key was sent at all.
        key_note: String,
        /// Start of the error body, with the key redacted.
        detail: String,
    },
    /// HTTP 404: an unknown model or a base URL that does not serve chat completions.
    #[error(
        "{endpoint}: HTTP 404, unknown model or wrong base URL (it should end with the API \
         version, e.g. /v1): {detail}"
    )]
    NotFound {
        /// Model and base URL.
        endpoint: String,
        /// Start of the error body.
        detail: String,
    },
    /// Another 4xx: the request itself was refused (e.g. max_tokens too large).
    #[error("{endpoint}: HTTP {status}, request refused: {detail}")]
    Rejected {
        /// Model and base URL.
        endpoint: String,
        /// The status.
        status: u16,
        /// Start of the error body.
        detail: String,
    },
    /// HTTP 3xx: the endpoint redirects elsewhere. Redirects are not followed, so the
    /// key goes only to the configured endpoint.
    #[error(
        "{endpoint}: HTTP {status}, a redirect to {location}; redirects are not followed: \
         set the base URL to the endpoint itself"
    )]
    Redirected {
        /// Model and base URL.
        endpoint: String,
        /// The 3xx status.
        status: u16,
        /// The `Location` header (without credentials or query).
        location: String,
    },
    /// HTTP 200 but not a chat-completions reply.
    #[error("{endpoint}: malformed reply: {detail}")]
    Protocol {
        /// Model and base URL.
        endpoint: String,
        /// What was wrong with it.
        detail: String,
    },
    /// The response cache could not be read or written.
    #[error("response cache {path}: {detail}")]
    Cache {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        detail: String,
    },
    /// A prompt does not fit the model's context window.
    #[error(
        "{endpoint}: the prompt for {what} needs about {needed} tokens ({basis}) but \
         the context window is {window} tokens (set with context_tokens); refusing to \
         truncate it"
    )]
    ContextTooLong {
        /// Model and base URL.
        endpoint: String,
        /// What the prompt was for, e.g. the namespace `short_003/forget`.
        what: String,
        /// Estimated tokens of the prompt plus the reply budget.
        needed: usize,
        /// How the tokens were counted (the server's count, or characters / 4).
        basis: String,
        /// The configured window.
        window: usize,
    },
    /// A bad setting or specification, e.g. `llm:` with no model.
    #[error("{0}")]
    Config(String),
}

impl LlmError {
    /// Whether the error is a transient overload, connection or timeout failure
    /// (as opposed to a refusal that will repeat).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            LlmError::Connection { .. } | LlmError::Timeout { .. } | LlmError::Overloaded { .. }
        )
    }
}

/// The first `max` characters of an error body, on one line.
pub(crate) fn excerpt(body: &str, max: usize) -> String {
    let one_line: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > max {
        let cut: String = one_line.chars().take(max).collect();
        format!("{cut}…")
    } else if one_line.is_empty() {
        "(empty body)".to_string()
    } else {
        one_line
    }
}

impl LlmError {
    /// This failure as the error of the system `system` whose call it failed (the
    /// built-in `full-context` and `embed-rag` systems call an endpoint), of the
    /// matching kind, so the runner retries and classifies it as any system's.
    pub(crate) fn as_system_error(&self, system: &str) -> crate::system::SystemError {
        use crate::system::ErrorKind;
        let kind = match self {
            LlmError::Connection { .. } => ErrorKind::Connection,
            LlmError::Timeout { .. } => ErrorKind::Timeout,
            LlmError::Overloaded { .. } => ErrorKind::Overloaded,
            _ => ErrorKind::System,
        };
        crate::system::SystemError::new(kind, format!("{system}: {self}"))
    }
}
