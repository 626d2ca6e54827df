//! The judge a spec names (`--judge`, `BEMULA_JUDGE`): parsed here once, for every
//! front end, whether or not this build has the LLM judge.
//!
//! - `rule`: the deterministic rule judge (or any other offline judge of
//!   [`super::OFFLINE`], by its name);
//! - `llm:MODEL[+MODEL…]`: the LLM judge of one or more models (`,` also separates
//!   them; a model name may hold `:` and `/`, as in `llm:llama3.1:8b` or
//!   `llm:Qwen/Qwen3-32B`), the majority deciding;
//! - `rule+llm:MODEL[+MODEL…]`: the hybrid judge, the rules deciding what they can and
//!   the LLM judge only what they leave unscored.

use super::Judge;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// A judge as a spec names it; the models are names, to be given an endpoint's
/// settings by the front end that builds the judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeSpec {
    /// An offline judge by its name ([`super::OFFLINE`]): `rule`.
    Offline(&'static str),
    /// `llm:M1[+M2…]`.
    Llm(Vec<String>),
    /// `rule+llm:M1[+M2…]`.
    Hybrid(Vec<String>),
}

/// A spec that names no judge, with what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

impl FromStr for JudgeSpec {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<JudgeSpec, SpecError> {
        let spec = spec.trim();
        if let Some(entry) = super::offline(spec) {
            return Ok(JudgeSpec::Offline(entry.name));
        }
        if let Some(second) = spec.strip_prefix("rule+") {
            let Some(models) = second.strip_prefix("llm:") else {
                return Err(SpecError(format!(
                    "unknown judge {spec:?}: the hybrid judge is `rule+llm:MODEL[+MODEL…]`"
                )));
            };
            return model_list(models, "judge", spec).map(JudgeSpec::Hybrid);
        }
        let Some(models) = spec.strip_prefix("llm:") else {
            let offline: Vec<String> = super::OFFLINE
                .iter()
                .map(|e| format!("`{}`", e.name))
                .collect();
            return Err(SpecError(format!(
                "unknown judge {spec:?}: expected {}, `llm:MODEL[+MODEL…]` or `rule+llm:MODEL[+MODEL…]`",
                offline.join(", ")
            )));
        };
        model_list(models, "judge", spec).map(JudgeSpec::Llm)
    }
}

impl fmt::Display for JudgeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeSpec::Offline(name) => f.write_str(name),
            JudgeSpec::Llm(models) => write!(f, "llm:{}", models.join("+")),
            JudgeSpec::Hybrid(models) => write!(f, "rule+llm:{}", models.join("+")),
        }
    }
}

impl JudgeSpec {
    /// Whether the judge calls a model.
    pub fn needs_model(&self) -> bool {
        !matches!(self, JudgeSpec::Offline(_))
    }

    /// The rule judge's spec.
    pub fn rule() -> JudgeSpec {
        JudgeSpec::Offline("rule")
    }

    /// The judge itself, when it works offline (`None` for the judges that need a
    /// model endpoint, which the front ends build with their endpoint settings).
    pub fn offline(&self) -> Option<Arc<dyn Judge>> {
        match self {
            JudgeSpec::Offline(name) => super::offline(name).map(|e| (e.make)()),
            JudgeSpec::Llm(_) | JudgeSpec::Hybrid(_) => None,
        }
    }
}

/// The models of `llm:…` in a spec of `what` (a judge, an answerer): separated by `+` or
/// `,`, none empty, none twice.
pub fn model_list(list: &str, what: &str, spec: &str) -> Result<Vec<String>, SpecError> {
    let models: Vec<String> = list
        .split(['+', ','])
        .map(|m| m.trim().to_string())
        .collect();
    if models.iter().any(String::is_empty) {
        return Err(SpecError(format!(
            "{what} {spec:?}: a model name is empty (expected llm:MODEL[+MODEL…])"
        )));
    }
    for (i, m) in models.iter().enumerate() {
        if models[..i].contains(m) {
            return Err(SpecError(format!(
                "{what} {spec:?}: model {m:?} is listed twice"
            )));
        }
    }
    Ok(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_and_prints_back() {
        for (text, spec) in [
            ("rule", JudgeSpec::rule()),
            (" rule ", JudgeSpec::rule()),
            ("llm:m", JudgeSpec::Llm(vec!["m".into()])),
            (
                "llm:a+llama3.1:8b,Qwen/Q",
                JudgeSpec::Llm(vec!["a".into(), "llama3.1:8b".into(), "Qwen/Q".into()]),
            ),
            (
                "rule+llm:a+b",
                JudgeSpec::Hybrid(vec!["a".into(), "b".into()]),
            ),
        ] {
            let parsed: JudgeSpec = text.parse().unwrap();
            assert_eq!(parsed, spec, "{text}");
            assert_eq!(parsed.to_string().parse::<JudgeSpec>().unwrap(), spec);
        }
        assert!(!JudgeSpec::rule().needs_model());
        assert_eq!(
            JudgeSpec::rule().offline().map(|j| j.name()).as_deref(),
            Some("rule")
        );
        assert!(JudgeSpec::Llm(vec!["m".into()]).offline().is_none());
        assert!(JudgeSpec::Hybrid(vec!["m".into()]).needs_model());
    }

    #[test]
    fn a_spec_naming_no_judge_says_what_was_expected() {
        for (bad, says) in [
            ("gpt-4", "expected `rule`"),
            ("rules", "expected `rule`"),
            ("rule+rule", "the hybrid judge is"),
            ("rule+gpt", "the hybrid judge is"),
            ("llm:", "a model name is empty"),
            ("llm:a++b", "a model name is empty"),
            ("llm:a+a", "listed twice"),
            ("rule+llm:", "a model name is empty"),
        ] {
            let err = bad.parse::<JudgeSpec>().unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
