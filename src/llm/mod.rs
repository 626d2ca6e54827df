//! LLM parts over any OpenAI-compatible chat-completions endpoint (hosted APIs, vLLM,
//! Ollama, llama.cpp): the [`LlmJudge`] with deterministic leak [`guard`]s, the
//! [`LlmAnswerer`], the built-in [`full_context`] system, the built-in [`embed`]-based
//! `embed-rag` system (over an OpenAI-compatible embeddings endpoint), and what they share: the
//! [`LlmClient`] (bounded concurrency, retries, preflight), the on-disk response
//! [`cache`] and cost accounting ([`UsageMeter`]).
//!
//! Prompts are versioned text files under `conformance/prompts/`, compiled in; the
//! version is part of every cache key and recorded with every verdict.
//!
//! ```no_run
//! # async fn demo() -> Result<(), bemula::llm::LlmError> {
//! use bemula::llm::{LlmConfig, LlmJudge, UsageMeter};
//! use std::sync::Arc;
//! let meter = Arc::new(UsageMeter::new());
//! let config = LlmConfig::new("http://localhost:11434/v1", "qwen3:32b");
//! let judge = LlmJudge::from_configs(&[config], meter.clone())?;
//! judge.preflight().await?; // a wrong key or model fails here, once
//! // … judge items through `bemula::judge::Judge` …
//! println!("{}", meter.snapshot());
//! # Ok(()) }
//! ```

mod answer;
pub mod args;
pub mod cache;
mod client;
mod config;
pub mod embed;
mod error;
pub mod full_context;
pub mod guard;
mod judge;
pub mod limiter;
pub mod prompt;
mod usage;

pub use answer::LlmAnswerer;
pub use args::LlmArgs;
pub use client::{Completion, LlmClient, Message};
pub use config::{
    ApiKey, DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, LlmConfig, REDACT_MIN, default_cache_dir,
    display_url,
};
pub use embed::{EmbedClient, EmbedRag, EmbedRagFactory, embed_rag_factory};
pub use error::LlmError;
pub use full_context::{
    FullContext, FullContextFactory, Overflow, Truncate, WindowCheck, full_context_factory,
};
pub use judge::{JudgeDetail, JudgeStats, LlmJudge, ModelVote, parse_verdict};
pub use limiter::{EndpointLimiter, EndpointUsage};
pub use usage::{Role, Usage, UsageByRole, UsageMeter};

/// A judge chosen on the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeSpec {
    /// `rule`: the deterministic rule judge.
    Rule,
    /// `llm:M1[+M2…]`: an LLM judge of one or more models (majority decides).
    Llm(Vec<LlmConfig>),
}

/// An answerer chosen on the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswererSpec {
    /// `extractive`: the offline extractive answerer.
    Extractive,
    /// `llm:MODEL`: an LLM answerer.
    Llm(LlmConfig),
}

/// Parses `rule` or `llm:MODEL[+MODEL…]` (the grammar of [`crate::judge::spec`]); each
/// model gets a copy of `base` with its name. The hybrid form is built by the front ends
/// from [`crate::judge::spec::JudgeSpec`] and is not a single judge.
pub fn parse_judge_spec(spec: &str, base: &LlmConfig) -> Result<JudgeSpec, LlmError> {
    use crate::judge::spec::JudgeSpec as Parsed;
    match spec.parse::<Parsed>() {
        Ok(Parsed::Offline("rule")) => Ok(JudgeSpec::Rule),
        Ok(Parsed::Offline(name)) => Err(LlmError::Config(format!(
            "judge {name:?}: an offline judge other than `rule` is not an LLM judge spec"
        ))),
        Ok(Parsed::Llm(models)) => Ok(JudgeSpec::Llm(
            models.into_iter().map(|m| base.for_model(m)).collect(),
        )),
        Ok(Parsed::Hybrid(_)) => Err(LlmError::Config(format!(
            "judge {:?}: the hybrid judge is the rule judge with an LLM judge, not an LLM judge",
            spec.trim()
        ))),
        Err(err) => Err(LlmError::Config(err.0)),
    }
}

/// Parses `extractive` or `llm:MODEL` into an answerer choice.
pub fn parse_answerer_spec(spec: &str, base: &LlmConfig) -> Result<AnswererSpec, LlmError> {
    use crate::answer::spec::AnswererSpec as Parsed;
    match spec.parse::<Parsed>() {
        Ok(Parsed::Extractive) => Ok(AnswererSpec::Extractive),
        Ok(Parsed::Llm(model)) => Ok(AnswererSpec::Llm(base.for_model(model))),
        Ok(Parsed::Oracle) => Err(LlmError::Config(format!(
            "unknown answerer {:?}: expected `extractive` or `llm:MODEL`",
            spec.trim()
        ))),
        Err(err) => Err(LlmError::Config(err.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judge_specs() {
        let base = LlmConfig::new("http://h/v1", "unused");
        assert_eq!(parse_judge_spec("rule", &base).unwrap(), JudgeSpec::Rule);
        let JudgeSpec::Llm(cs) = parse_judge_spec("llm:a+llama3.1:8b,Qwen/Q", &base).unwrap()
        else {
            panic!("not llm")
        };
        let names: Vec<_> = cs.iter().map(|c| c.model.as_str()).collect();
        assert_eq!(names, ["a", "llama3.1:8b", "Qwen/Q"]);
        assert_eq!(cs[0].base_url, "http://h/v1");
        for bad in ["llm:", "llm:a++b", "gpt", "llm:a+a"] {
            let e = parse_judge_spec(bad, &base).unwrap_err().to_string();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn answerer_specs() {
        let base = LlmConfig::new("http://h/v1", "unused");
        assert_eq!(
            parse_answerer_spec("extractive", &base).unwrap(),
            AnswererSpec::Extractive
        );
        assert!(matches!(
            parse_answerer_spec("llm:m", &base).unwrap(),
            AnswererSpec::Llm(c) if c.model == "m"
        ));
        assert!(parse_answerer_spec("llm:a+b", &base).is_err());
    }
}
