//! Settings of one OpenAI-compatible endpoint ([`LlmConfig`]), the API key it is called
//! with ([`ApiKey`], never printed), and where the response cache lives by default.

use serde::Serialize;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Name of the environment variable the API key is read from unless told otherwise.
pub const DEFAULT_API_KEY_ENV: &str = "OPENAI_API_KEY";

/// Default base URL: the OpenAI API.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// How to call one model on one OpenAI-compatible chat-completions endpoint.
///
/// The API key is not part of the configuration: only the name of the environment
/// variable holding it ([`LlmConfig::api_key_env`]), so a configuration can be logged
/// or recorded in a run's summary without exposing it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmConfig {
    /// Base URL up to and including the API version, e.g. `https://api.openai.com/v1`
    /// or `http://localhost:11434/v1` (Ollama); `/chat/completions` is appended.
    pub base_url: String,
    /// Name of the environment variable holding the API key (default
    /// [`DEFAULT_API_KEY_ENV`]). When it is unset or empty no `Authorization` header is
    /// sent, as local servers (vLLM, Ollama, llama.cpp) usually want.
    pub api_key_env: String,
    /// The model id sent with every request.
    pub model: String,
    /// Sampling temperature (0 for judging, as in the paper).
    pub temperature: f64,
    /// Most tokens the model may generate per reply.
    pub max_tokens: u32,
    /// Time limit of one HTTP request.
    pub timeout: Duration,
    /// Most requests in flight at once at this endpoint, for every client of its base
    /// URL in the process together (the smallest of their settings wins; see
    /// [`crate::llm::limiter`]). HTTP 429 lowers the limit for a while.
    pub max_in_flight: usize,
    /// How many times a failed request is retried on a connection error, a timeout,
    /// HTTP 429 or 5xx (so at most `retries + 1` attempts).
    pub retries: u32,
    /// First backoff between retries; it doubles on each retry (capped at 60 s). A
    /// longer `Retry-After` header of a reply is honoured, up to 300 s
    /// ([`LlmConfig::retry_policy`]).
    pub backoff: Duration,
    /// The model's context window in tokens, for the full-context system (tokens are
    /// estimated as characters / 4).
    pub context_tokens: usize,
    /// Directory of the response cache; `None` turns caching off.
    pub cache_dir: Option<PathBuf>,
}

impl LlmConfig {
    /// A configuration for `model` at `base_url` with the defaults: key from
    /// `OPENAI_API_KEY`, temperature 0, 1,024 output tokens, 120 s timeout, 8 requests
    /// in flight, 5 retries from a 1 s backoff, a 128K-token window, cache in
    /// [`default_cache_dir`].
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> LlmConfig {
        LlmConfig {
            base_url: base_url.into(),
            api_key_env: DEFAULT_API_KEY_ENV.to_string(),
            model: model.into(),
            temperature: 0.0,
            max_tokens: 1024,
            timeout: Duration::from_secs(120),
            max_in_flight: 8,
            retries: 5,
            backoff: Duration::from_secs(1),
            context_tokens: 128_000,
            cache_dir: Some(default_cache_dir()),
        }
    }

    /// The retries of a request to this endpoint: `retries` re-sends, the wait doubling
    /// from `backoff` up to 60 s, a longer `Retry-After` honoured up to 300 s.
    pub fn retry_policy(&self) -> crate::backoff::RetryPolicy {
        crate::backoff::RetryPolicy {
            retries: self.retries,
            base: self.backoff,
            max_backoff: Duration::from_secs(60),
            max_wait: Duration::from_secs(300),
        }
    }

    /// The same configuration for another model.
    pub fn for_model(&self, model: impl Into<String>) -> LlmConfig {
        LlmConfig {
            model: model.into(),
            ..self.clone()
        }
    }

    /// The chat-completions URL: the base URL without a trailing `/`, plus
    /// `/chat/completions`.
    pub fn completions_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// The endpoint for messages: base URL (without any user, password or query part)
    /// and model.
    pub fn endpoint(&self) -> String {
        format!("model {:?} at {}", self.model, display_url(&self.base_url))
    }
}

/// The base URL as it may be shown: any `user:password@` part and any query string
/// are dropped, since either may hold a credential.
pub fn display_url(url: &str) -> String {
    let without_query = url.split(['?', '#']).next().unwrap_or(url);
    match without_query.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = match rest.find('/') {
                Some(i) => rest.split_at(i),
                None => (rest, ""),
            };
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{path}")
        }
        None => without_query.to_string(),
    }
}

/// Where the response cache lives unless `--cache DIR` says otherwise:
/// `$XDG_CACHE_HOME/bemula`, else `$HOME/.cache/bemula`, else `target/bemula-cache`
/// under the current directory. A per-user directory is the default so that
/// `cargo clean` does not throw away replies that were paid for; entries are keyed by
/// everything that determines a reply, so sharing it between projects is safe.
pub fn default_cache_dir() -> PathBuf {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
        PathBuf::from(xdg).join("bemula")
    } else if let Some(home) = non_empty("HOME") {
        PathBuf::from(home).join(".cache").join("bemula")
    } else {
        PathBuf::from("target").join("bemula-cache")
    }
}

/// An API key. Its `Debug` and `Display` print `[redacted]`, so it cannot slip into a
/// log, an error or a report by formatting.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key given directly (for programs that get keys from elsewhere than the
    /// environment).
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The key in the environment variable `name`; `None` when it is unset or empty.
    pub fn from_env(name: &str) -> Option<ApiKey> {
        std::env::var(name)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .map(|k| ApiKey(k.trim().to_string()))
    }

    /// The key itself, for the `Authorization` header only.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with the key replaced by `[redacted]` (servers sometimes echo a key,
    /// whole or cut, in an error body or even in a reply). Every run of
    /// [`REDACT_MIN`] or more characters that is part of the key is replaced too, so a
    /// prefix or a suffix of the key left by a cut, or a key a server shows shortened,
    /// never survives. A key shorter than [`REDACT_MIN`] is replaced only whole.
    pub fn redact(&self, text: &str) -> String {
        crate::redact::Secrets::of_key(&self.0)
            .redact(text)
            .into_owned()
    }
}

/// The shortest part of a key that [`ApiKey::redact`] replaces on its own.
pub const REDACT_MIN: usize = crate::redact::REDACT_MIN;

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_replaces_the_key_and_any_long_part_of_it() {
        let key = ApiKey::new("sk-live-0123456789abcdef");
        assert_eq!(
            key.redact("bad key sk-live-0123456789abcdef here"),
            "bad key [redacted] here"
        );
        // A prefix left by a cut, a suffix, and a shortened form.
        assert_eq!(key.redact("key sk-live-0123…"), "key [redacted]…");
        assert_eq!(key.redact("…456789abcdef was"), "…[redacted] was");
        assert_eq!(
            key.redact("key sk-live-...89abcdef"),
            "key [redacted]...[redacted]"
        );
        // Short runs that merely share a few characters stay.
        assert_eq!(key.redact("sk-live is a prefix"), "sk-live is a prefix");
        assert_eq!(key.redact("no key at all"), "no key at all");
    }

    #[test]
    fn a_short_key_is_replaced_only_whole() {
        let key = ApiKey::new("abc12");
        assert_eq!(key.redact("abc12 and abc1"), "[redacted] and abc1");
        assert_eq!(
            ApiKey::new("é-clé-secrète").redact("la é-clé-secrète"),
            "la [redacted]"
        );
    }

    #[test]
    fn display_url_drops_credentials_and_query() {
        assert_eq!(
            display_url("https://user:pw@api.example.com/v1?key=abc"),
            "https://api.example.com/v1"
        );
        assert_eq!(
            display_url("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(display_url("localhost/v1"), "localhost/v1");
    }

    #[test]
    fn completions_url_joins_without_double_slash() {
        let c = LlmConfig::new("http://h/v1/", "m");
        assert_eq!(c.completions_url(), "http://h/v1/chat/completions");
        assert_eq!(c.endpoint(), "model \"m\" at http://h/v1/");
    }

    #[test]
    fn api_key_never_formats() {
        let k = ApiKey::new("sk-secret");
        assert_eq!(format!("{k} {k:?}"), "[redacted] [redacted]");
        assert_eq!(k.redact("bad key sk-secret!"), "bad key [redacted]!");
    }
}
