//! The answerer a spec names (`--answerer`): parsed here once, for every front end,
//! whether or not this build has the LLM answerer.
//!
//! - `oracle`: the oracle reader (the gold value when a retrieved memory holds it);
//! - `extractive`: the offline rule-based reader;
//! - `llm:MODEL`: a model reads the memories (one model).

use crate::judge::spec::{SpecError, model_list};
use std::fmt;
use std::str::FromStr;

/// An answerer as a spec names it; the model is a name, to be given an endpoint's
/// settings by the front end that builds the answerer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswererSpec {
    /// `oracle`.
    Oracle,
    /// `extractive`.
    Extractive,
    /// `llm:MODEL`.
    Llm(String),
}

impl FromStr for AnswererSpec {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<AnswererSpec, SpecError> {
        let spec = spec.trim();
        match spec {
            "oracle" => return Ok(AnswererSpec::Oracle),
            "extractive" => return Ok(AnswererSpec::Extractive),
            _ => {}
        }
        let Some(models) = spec.strip_prefix("llm:") else {
            return Err(SpecError(format!(
                "unknown answerer {spec:?}: expected `extractive`, `oracle` or `llm:MODEL`"
            )));
        };
        let mut models = model_list(models, "answerer", spec)?;
        if models.len() != 1 {
            return Err(SpecError(format!(
                "answerer {spec:?}: exactly one model is allowed"
            )));
        }
        Ok(AnswererSpec::Llm(models.remove(0)))
    }
}

impl fmt::Display for AnswererSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnswererSpec::Oracle => f.write_str("oracle"),
            AnswererSpec::Extractive => f.write_str("extractive"),
            AnswererSpec::Llm(model) => write!(f, "llm:{model}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back() {
        for (text, spec) in [
            ("oracle", AnswererSpec::Oracle),
            (" extractive ", AnswererSpec::Extractive),
            ("llm:llama3.1:8b", AnswererSpec::Llm("llama3.1:8b".into())),
            (
                "llm:Qwen/Qwen3-32B",
                AnswererSpec::Llm("Qwen/Qwen3-32B".into()),
            ),
        ] {
            let parsed: AnswererSpec = text.parse().unwrap();
            assert_eq!(parsed, spec, "{text}");
            assert_eq!(parsed.to_string().parse::<AnswererSpec>().unwrap(), spec);
        }
        for bad in ["", "rule", "llm:", "llm:a+b", "oracle2"] {
            let err = bad.parse::<AnswererSpec>().unwrap_err();
            assert!(err.0.contains("answerer"), "{bad}: {err}");
        }
    }
}
