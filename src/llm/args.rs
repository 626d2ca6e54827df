//! Command-line flags of an LLM endpoint, shared by every subcommand that calls a model
//! (`#[command(flatten)] llm: LlmArgs`), resolved into an [`LlmConfig`] in one place.

use super::{DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, LlmConfig, default_cache_dir};
use std::path::PathBuf;
use std::time::Duration;

/// Endpoint flags. The key itself is never a flag (it would show in `ps` and shell
/// history): only the name of the variable holding it.
#[derive(Debug, Clone, clap::Args)]
pub struct LlmArgs {
    /// Base URL of the OpenAI-compatible endpoint, up to the API version
    /// (e.g. http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM).
    #[arg(long, env = "BEMULA_LLM_BASE_URL", default_value = DEFAULT_BASE_URL)]
    pub base_url: String,
    /// Name of the environment variable holding the API key (unset: no key is sent).
    #[arg(long, default_value = DEFAULT_API_KEY_ENV, value_name = "VAR")]
    pub api_key_env: String,
    /// Response cache directory [default: $XDG_CACHE_HOME/bemula, else
    /// ~/.cache/bemula, else target/bemula-cache].
    #[arg(long, env = "BEMULA_CACHE", value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Do not read or write the response cache.
    #[arg(long, conflicts_with = "cache")]
    pub no_cache: bool,
    /// Most model requests in flight at once at the endpoint, for the answerer, the
    /// judge models and the full-context system together (halved on HTTP 429, then
    /// grown back).
    #[arg(long, default_value_t = 8, value_name = "N")]
    pub max_in_flight: usize,
    /// Time limit of one model request, in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECS")]
    pub llm_timeout: f64,
    /// Retries of a request after a connection error, a timeout, HTTP 429 or 5xx.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub retries: u32,
    /// Most tokens a model may generate per reply.
    #[arg(long, default_value_t = 1024, value_name = "N")]
    pub max_tokens: u32,
    /// The model's context window in tokens (for the full-context system).
    #[arg(long, default_value_t = 128_000, value_name = "N")]
    pub context_tokens: usize,
    /// Base URL of the OpenAI-compatible embeddings endpoint (for `embed-rag:MODEL`)
    /// [default: the --base-url]. Its key is read from $BEMULA_EMBED_API_KEY when that is
    /// set, else from the --api-key-env variable.
    #[arg(long, env = "BEMULA_EMBED_BASE_URL", value_name = "URL")]
    pub embed_base_url: Option<String>,
    /// What the full-context system does with a transcript longer than the window:
    /// `refuse` stops the run before any call, naming the instances that do not fit;
    /// `oldest` keeps the newest turns that fit and records how many were left out.
    #[arg(long, value_enum, default_value_t = super::Truncate::Refuse, value_name = "POLICY")]
    pub truncate: super::Truncate,
}

impl Default for LlmArgs {
    /// The flags' defaults, as when none is given (their environment variables read).
    fn default() -> LlmArgs {
        #[derive(clap::Parser)]
        struct Flags {
            #[command(flatten)]
            llm: LlmArgs,
        }
        <Flags as clap::Parser>::parse_from(["bemula"]).llm
    }
}

impl LlmArgs {
    /// The configuration these flags describe, for `model`.
    pub fn config(&self, model: &str) -> Result<LlmConfig, String> {
        if !(self.llm_timeout.is_finite() && self.llm_timeout > 0.0) {
            return Err(format!(
                "--llm-timeout {}: expected a number of seconds > 0",
                self.llm_timeout
            ));
        }
        let mut config = LlmConfig::new(self.base_url.clone(), model);
        config.api_key_env = self.api_key_env.clone();
        config.cache_dir = if self.no_cache {
            None
        } else {
            Some(self.cache.clone().unwrap_or_else(default_cache_dir))
        };
        config.max_in_flight = self.max_in_flight;
        config.timeout = Duration::from_secs_f64(self.llm_timeout);
        config.retries = self.retries;
        config.max_tokens = self.max_tokens;
        config.context_tokens = self.context_tokens;
        Ok(config)
    }

    /// The configuration of the embeddings endpoint for `model`: the chat endpoint's
    /// settings with the --embed-base-url (when given) and the key of
    /// [`EMBED_API_KEY_ENV`] (when that variable is set).
    pub fn embed_config(&self, model: &str) -> Result<LlmConfig, String> {
        let mut config = self.config(model)?;
        if let Some(url) = self
            .embed_base_url
            .as_ref()
            .filter(|u| !u.trim().is_empty())
        {
            config.base_url = url.trim().to_string();
        }
        if super::ApiKey::from_env(EMBED_API_KEY_ENV).is_some() {
            config.api_key_env = EMBED_API_KEY_ENV.to_string();
        }
        Ok(config)
    }
}

/// The environment variable an embeddings endpoint's own key is read from; when it is
/// unset the chat endpoint's key variable is used.
pub const EMBED_API_KEY_ENV: &str = "BEMULA_EMBED_API_KEY";
