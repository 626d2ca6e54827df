//! The OpenAI-compatible chat-completions client: the endpoint's shared, adaptive
//! concurrency limit ([`super::limiter`]), retries with
//! exponential backoff (honouring `Retry-After`), the response cache, usage metering,
//! and a start-up [`LlmClient::preflight`] that turns a wrong key or model into one
//! clear error.

use super::cache::{CacheEntry, CacheKey, ResponseCache};
use super::error::excerpt;
use super::limiter::{self, EndpointLimiter, Feedback};
use super::{ApiKey, LlmConfig, LlmError, Role, UsageMeter};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

/// Characters of an error body kept in an error message.
const BODY_EXCERPT: usize = 300;
/// The preflight's prompt version in the cache key, its message and reply budget.
const PREFLIGHT_VERSION: &str = "preflight";
const PREFLIGHT_PROMPT: &str = "Reply with the single word OK.";
const PREFLIGHT_TOKENS: u32 = 16;
/// Longest wait for the one probe of an endpoint whose preflight the cache recorded.
const REPLAY_PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Message {
        Message {
            role: "system".into(),
            content: content.into(),
        }
    }
    /// A user message.
    pub fn user(content: impl Into<String>) -> Message {
        Message {
            role: "user".into(),
            content: content.into(),
        }
    }
    /// An assistant message.
    pub fn assistant(content: impl Into<String>) -> Message {
        Message {
            role: "assistant".into(),
            content: content.into(),
        }
    }
}

/// A model's reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// `choices[0].message.content`.
    pub content: String,
    /// The model that was asked.
    pub model: String,
    /// Prompt tokens (from the original call when cached).
    pub prompt_tokens: u64,
    /// Completion tokens (from the original call when cached).
    pub completion_tokens: u64,
    /// Whether the reply came from the cache (no call was made).
    pub cached: bool,
}

struct Shared {
    http: reqwest::Client,
    key: Option<ApiKey>,
    limiter: Arc<EndpointLimiter>,
    cache: Option<ResponseCache>,
    meter: Arc<UsageMeter>,
    /// Set when the endpoint was unreachable at the preflight but the cache recorded a
    /// preflight of it: the run replays from the cache, and a request the cache cannot
    /// answer fails at once instead of waiting out retries on a dead server.
    replay_only: std::sync::atomic::AtomicBool,
}

/// A client for one model on one endpoint. Cheap to clone; clones and
/// [`LlmClient::with_model`] share the connection pool, the cache and the meter. The
/// concurrency limit is the endpoint's: every client of the same base URL in the
/// process shares it (see [`super::limiter`]).
#[derive(Clone)]
pub struct LlmClient {
    config: LlmConfig,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("config", &self.config)
            .field("key", &self.shared.key)
            .finish()
    }
}

/// What one attempt ended with, before retries are decided.
enum Attempt {
    Reply(String, u64, u64),
    Connection(String),
    Timeout,
    Status(u16, Option<Duration>, String),
    Redirect(u16, String),
    Malformed(String),
}

#[derive(Deserialize)]
struct WireReply {
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    message: WireMessage,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    messages: &'a [Message],
    temperature: f64,
    max_tokens: u32,
}

impl LlmClient {
    /// A client whose key is read from the environment variable
    /// [`LlmConfig::api_key_env`] (no key when it is unset).
    pub fn new(config: LlmConfig, meter: Arc<UsageMeter>) -> Result<LlmClient, LlmError> {
        let key = ApiKey::from_env(&config.api_key_env);
        LlmClient::with_api_key(config, key, meter)
    }

    /// A client with a key given directly (`None`: no `Authorization` header).
    pub fn with_api_key(
        config: LlmConfig,
        key: Option<ApiKey>,
        meter: Arc<UsageMeter>,
    ) -> Result<LlmClient, LlmError> {
        validate(&config)?;
        if let Some(key) = &key {
            // Whatever its variable is called, the key is redacted from everything
            // bemula writes (adapters see the same environment and may echo it).
            crate::redact::register(key.expose());
        }
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            // A redirect is refused, not followed: the key must go only to the
            // configured endpoint, and the report names the endpoint that answered.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| {
                LlmError::Config(format!(
                    "{}: cannot build an HTTP client: {}",
                    config.endpoint(),
                    e.without_url()
                ))
            })?;
        let cache = config.cache_dir.as_ref().map(ResponseCache::new);
        Ok(LlmClient {
            shared: Arc::new(Shared {
                http,
                key,
                limiter: limiter::limiter_for(&config.base_url, config.max_in_flight),
                cache,
                meter,
                replay_only: std::sync::atomic::AtomicBool::new(false),
            }),
            config,
        })
    }

    /// The same endpoint, key, pool, limit, cache and meter for another model.
    pub fn with_model(&self, model: impl Into<String>) -> LlmClient {
        LlmClient {
            config: self.config.for_model(model),
            shared: Arc::clone(&self.shared),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// The endpoint's concurrency limiter, shared with every client of the endpoint.
    pub fn limiter(&self) -> &Arc<EndpointLimiter> {
        &self.shared.limiter
    }

    /// The meter the client counts into.
    pub fn meter(&self) -> &Arc<UsageMeter> {
        &self.shared.meter
    }

    /// One tiny call, to be made once at start-up: a wrong key (401/403), an unknown
    /// model or base URL (404) or an unreachable endpoint fails here with a clear error
    /// instead of on every item of a run. A successful preflight is recorded in the
    /// response cache; when the cache has one, the endpoint gets a single probe (no
    /// retries, at most 10 s) and, if it cannot be connected to (a probe that times out
    /// finds a busy endpoint, which the run then calls as usual), the run goes on from
    /// the cache alone: a recorded run replays with no server running, and a request the
    /// cache cannot answer then fails at once, naming the endpoint. An endpoint that
    /// answers and refuses (401, 404, …) fails the preflight as ever.
    pub async fn preflight(&self) -> Result<(), LlmError> {
        let messages = [Message::user(PREFLIGHT_PROMPT)];
        let digest = self.digest(PREFLIGHT_VERSION, &messages, PREFLIGHT_TOKENS);
        let recorded = match &self.shared.cache {
            Some(cache) => cache.get(&digest).await.is_some(),
            None => false,
        };
        if !recorded {
            let completion = self
                .call(
                    Role::Preflight,
                    &messages,
                    PREFLIGHT_TOKENS,
                    self.config.retries + 1,
                    self.config.timeout,
                )
                .await?;
            return self
                .store(&digest, PREFLIGHT_VERSION, &completion)
                .await
                .map(|_| ());
        }
        let probe_timeout = self.config.timeout.min(REPLAY_PROBE_TIMEOUT);
        match self
            .call(
                Role::Preflight,
                &messages,
                PREFLIGHT_TOKENS,
                1,
                probe_timeout,
            )
            .await
        {
            Ok(_) => Ok(()),
            // Something listens but did not answer in time (a busy local server): the
            // run calls it as usual, with its own timeout and retries; the cache has
            // answered the preflight.
            Err(LlmError::Timeout { .. }) => {
                self.shared.meter.record_cache_hit(Role::Preflight);
                Ok(())
            }
            Err(e @ LlmError::Connection { .. }) => {
                // The failed probe was counted as a failure; the preflight itself was
                // answered by the cache.
                self.shared.meter.record_cache_hit(Role::Preflight);
                self.shared
                    .replay_only
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                eprintln!(
                    "bemula: LLM endpoint {} is unreachable ({e}); replaying from the cache {}: a request it has no reply for fails",
                    self.config.endpoint(),
                    self.shared
                        .cache
                        .as_ref()
                        .map(|c| c.dir().display().to_string())
                        .unwrap_or_default()
                );
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// The server's own count of `text`'s tokens, where it offers one: llama.cpp's
    /// `POST /tokenize` (`{"content": …}`), llama-cpp-python's `/extras/tokenize`
    /// (`{"input": …}`) or vLLM's `/tokenize` (`{"prompt": …}`), all at the root above
    /// the API version, answering `{"tokens": […]}` or `{"count": N}`. `None` when none
    /// answers (hosted APIs): the caller estimates. A count is cached like a reply.
    pub async fn count_tokens(&self, text: &str) -> Option<usize> {
        let messages = [Message::user(text)];
        let digest = self.digest("tokenize", &messages, 0);
        if let Some(cache) = &self.shared.cache
            && let Some(entry) = cache.get(&digest).await
            && let Ok(count) = entry.content.parse::<usize>()
        {
            return Some(count);
        }
        if self.replay_only() {
            return None;
        }
        let base = self.config.base_url.trim_end_matches('/');
        let root = base.strip_suffix("/v1").unwrap_or(base);
        let body = serde_json::json!({
            "model": self.config.model,
            "content": text,
            "input": text,
            "prompt": text,
        });
        for path in ["/tokenize", "/extras/tokenize"] {
            let mut request = self
                .shared
                .http
                .post(format!("{root}{path}"))
                .timeout(self.config.timeout.min(REPLAY_PROBE_TIMEOUT * 3))
                .json(&body);
            if let Some(key) = &self.shared.key {
                request = request.bearer_auth(key.expose());
            }
            let Ok(response) = request.send().await else {
                continue;
            };
            if !response.status().is_success() {
                continue;
            }
            let Ok(reply) = response.json::<serde_json::Value>().await else {
                continue;
            };
            let count = reply["tokens"]
                .as_array()
                .map(Vec::len)
                .or_else(|| reply["count"].as_u64().map(|n| n as usize));
            if let Some(count) = count {
                let completion = Completion {
                    content: count.to_string(),
                    model: self.config.model.clone(),
                    prompt_tokens: 0,
                    completion_tokens: 0,
                    cached: false,
                };
                let _ = self.store(&digest, "tokenize", &completion).await;
                return Some(count);
            }
        }
        None
    }

    /// Whether the endpoint was unreachable at the preflight and the client answers
    /// from the cache alone (see [`LlmClient::preflight`]).
    pub fn replay_only(&self) -> bool {
        self.shared
            .replay_only
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn digest(&self, prompt_version: &str, messages: &[Message], max_tokens: u32) -> String {
        CacheKey {
            base_url: &self.config.base_url,
            model: &self.config.model,
            prompt_version,
            messages,
            temperature: self.config.temperature,
            max_tokens,
        }
        .digest()
    }

    async fn store(
        &self,
        digest: &str,
        prompt_version: &str,
        completion: &Completion,
    ) -> Result<(), LlmError> {
        if let Some(cache) = &self.shared.cache {
            let entry = CacheEntry::new(
                &self.config.model,
                prompt_version,
                &completion.content,
                completion.prompt_tokens,
                completion.completion_tokens,
            );
            cache.put(digest, &entry).await?;
        }
        Ok(())
    }

    /// Sends `messages` (built from the prompt `prompt_version`) and returns the reply,
    /// from the cache when the same request was answered before.
    pub async fn chat(
        &self,
        role: Role,
        prompt_version: &str,
        messages: &[Message],
    ) -> Result<Completion, LlmError> {
        let digest = self.digest(prompt_version, messages, self.config.max_tokens);
        if let Some(cache) = &self.shared.cache
            && let Some(entry) = cache.get(&digest).await
        {
            self.shared.meter.record_cache_hit(role);
            return Ok(Completion {
                content: self.redact(&entry.content),
                model: self.config.model.clone(),
                prompt_tokens: entry.prompt_tokens,
                completion_tokens: entry.completion_tokens,
                cached: true,
            });
        }
        if self.replay_only() {
            self.shared.meter.record_failure(role);
            return Err(LlmError::Connection {
                endpoint: self.config.endpoint(),
                attempts: 0,
                detail: "the endpoint was unreachable at the preflight and the cache has no \
                         reply for this request"
                    .into(),
            });
        }
        let completion = self
            .call(
                role,
                messages,
                self.config.max_tokens,
                self.config.retries + 1,
                self.config.timeout,
            )
            .await?;
        self.store(&digest, prompt_version, &completion).await?;
        Ok(completion)
    }

    /// Makes the call with retries; counts it.
    async fn call(
        &self,
        role: Role,
        messages: &[Message],
        max_tokens: u32,
        attempts_allowed: u32,
        timeout: Duration,
    ) -> Result<Completion, LlmError> {
        let meter = &self.shared.meter;
        let body = WireRequest {
            model: &self.config.model,
            messages,
            temperature: self.config.temperature,
            max_tokens,
        };
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = {
                let permit = self.shared.limiter.acquire().await;
                let outcome = self.attempt(&body, timeout).await;
                permit.finish(feedback(&outcome));
                outcome
            };
            let retry_after = match &outcome {
                Attempt::Reply(content, prompt_tokens, completion_tokens) => {
                    meter.record_call(role, *prompt_tokens, *completion_tokens);
                    return Ok(Completion {
                        content: content.clone(),
                        model: self.config.model.clone(),
                        prompt_tokens: *prompt_tokens,
                        completion_tokens: *completion_tokens,
                        cached: false,
                    });
                }
                Attempt::Connection(_) | Attempt::Timeout => None,
                Attempt::Status(status, retry_after, _) if is_retryable(*status) => *retry_after,
                Attempt::Status(..) | Attempt::Redirect(..) | Attempt::Malformed(_) => {
                    meter.record_failure(role);
                    return Err(self.final_error(outcome, attempt, timeout));
                }
            };
            if attempt >= attempts_allowed {
                meter.record_failure(role);
                return Err(self.final_error(outcome, attempt, timeout));
            }
            meter.record_retry(role);
            let wait = self.config.retry_policy().backoff(attempt - 1, retry_after);
            tokio::time::sleep(wait).await;
        }
    }

    /// One HTTP request.
    async fn attempt(&self, body: &WireRequest<'_>, timeout: Duration) -> Attempt {
        let mut request = self
            .shared
            .http
            .post(self.config.completions_url())
            .timeout(timeout)
            .json(body);
        if let Some(key) = &self.shared.key {
            request = request.bearer_auth(key.expose());
        }
        let response = match request.send().await {
            Ok(r) => r,
            Err(e) => return classify(e),
        };
        let status = response.status().as_u16();
        if response.status().is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|v| self.redact(&String::from_utf8_lossy(v.as_bytes())))
                .map(|l| super::config::display_url(&l))
                .unwrap_or_else(|| "no Location header".into());
            return Attempt::Redirect(status, location);
        }
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        // The key is redacted from the whole body before it is cut, parsed, cached or
        // shown: a server may echo it in an error body or even in a reply.
        let text = match response.text().await {
            Ok(t) => self.redact(&t),
            Err(e) => return classify(e),
        };
        if status != 200 {
            return Attempt::Status(status, retry_after, text);
        }
        match serde_json::from_str::<WireReply>(&text) {
            Ok(reply) => {
                let usage = reply.usage.unwrap_or(WireUsage {
                    prompt_tokens: 0,
                    completion_tokens: 0,
                });
                match reply.choices.into_iter().next() {
                    Some(choice) => Attempt::Reply(
                        self.redact(&choice.message.content.unwrap_or_default()),
                        usage.prompt_tokens,
                        usage.completion_tokens,
                    ),
                    None => Attempt::Malformed("no choices in the reply".into()),
                }
            }
            Err(e) => Attempt::Malformed(format!(
                "not a chat-completions reply ({e}): {}",
                excerpt(&text, BODY_EXCERPT)
            )),
        }
    }

    fn redact(&self, text: &str) -> String {
        let text = match &self.shared.key {
            Some(key) => key.redact(text),
            None => text.to_string(),
        };
        crate::redact::redact(&text).into_owned()
    }

    fn final_error(&self, outcome: Attempt, attempts: u32, timeout: Duration) -> LlmError {
        let endpoint = self.config.endpoint();
        match outcome {
            Attempt::Reply(..) => unreachable!("a reply is not an error"),
            Attempt::Connection(detail) => LlmError::Connection {
                endpoint,
                attempts,
                detail: self.redact(&detail),
            },
            Attempt::Timeout => LlmError::Timeout {
                endpoint,
                attempts,
                timeout,
            },
            Attempt::Redirect(status, location) => LlmError::Redirected {
                endpoint,
                status,
                location,
            },
            Attempt::Malformed(detail) => LlmError::Protocol {
                endpoint,
                detail: self.redact(&detail),
            },
            Attempt::Status(status, _, body) => {
                // `body` was redacted whole when it was read; cut it only now.
                let detail = self.redact(&excerpt(&body, BODY_EXCERPT));
                match status {
                    401 | 403 => LlmError::Unauthorized {
                        endpoint,
                        status,
                        api_key_env: self.config.api_key_env.clone(),
                        key_note: if self.shared.key.is_some() {
                            "a key was sent".into()
                        } else {
                            format!("no key was sent: ${} is unset", self.config.api_key_env)
                        },
                        detail,
                    },
                    404 => LlmError::NotFound { endpoint, detail },
                    s if is_retryable(s) => LlmError::Overloaded {
                        endpoint,
                        status,
                        attempts,
                        detail,
                    },
                    _ => LlmError::Rejected {
                        endpoint,
                        status,
                        detail,
                    },
                }
            }
        }
    }
}

/// What an attempt tells the endpoint's adaptive limit: 429 or a `Retry-After`
/// header asks for fewer requests in flight; a reply allows more.
fn feedback(outcome: &Attempt) -> Feedback {
    match outcome {
        Attempt::Reply(..) => Feedback::Success,
        Attempt::Status(429, ..) | Attempt::Status(_, Some(_), _) => Feedback::Overloaded,
        _ => Feedback::Neutral,
    }
}

/// Statuses worth retrying: 408 (request timeout), 429 (rate limit), 5xx.
fn is_retryable(status: u16) -> bool {
    status == 408 || status == 429 || (500..600).contains(&status)
}

/// A transport error as an attempt outcome, with its causes; the URL is stripped.
fn classify(e: reqwest::Error) -> Attempt {
    if e.is_timeout() {
        return Attempt::Timeout;
    }
    let e = e.without_url();
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    Attempt::Connection(detail)
}

fn validate(config: &LlmConfig) -> Result<(), LlmError> {
    let problem =
        if !(config.base_url.starts_with("http://") || config.base_url.starts_with("https://")) {
            Some(format!(
                "base URL {:?} must start with http:// or https://",
                super::config::display_url(&config.base_url)
            ))
        } else if config.model.trim().is_empty() {
            Some("the model name is empty".to_string())
        } else if !(config.temperature.is_finite() && config.temperature >= 0.0) {
            Some(format!(
                "temperature {} is not a number ≥ 0",
                config.temperature
            ))
        } else if config.max_in_flight == 0 {
            Some("max_in_flight must be at least 1".to_string())
        } else if config.max_tokens == 0 {
            Some("max_tokens must be at least 1".to_string())
        } else {
            None
        };
    match problem {
        Some(p) => Err(LlmError::Config(format!(
            "LLM endpoint {}: {p}",
            config.endpoint()
        ))),
        None => Ok(()),
    }
}
