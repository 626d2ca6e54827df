//! The system-spec grammar, parsed in one place: what `--system`, `bemula test` and
//! [`Harness::adapter`](crate::harness::Harness::adapter) accept.
//!
//! ```
//! use bemula::system::spec::SystemSpec;
//! assert_eq!("naive-rag".parse(), Ok(SystemSpec::Builtin("naive-rag".into())));
//! assert!(matches!("cmd:python3 my_adapter.py".parse(), Ok(SystemSpec::Stdio(_))));
//! assert!("full-context".parse::<SystemSpec>().is_err()); // a model is needed
//! ```

use super::builtin;
use std::fmt;
use std::str::FromStr;

/// A system under test, as a user names it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SystemSpec {
    /// A built-in reference system, by name (one of [`builtin::NAMES`]).
    Builtin(String),
    /// A measuring instrument that reads the dataset it is evaluated on (one of
    /// [`builtin::instrument::NAMES`]).
    Instrument(String),
    /// A stdio adapter: the whole spec, `cmd:COMMAND LINE`.
    Stdio(String),
    /// An HTTP adapter: its `http://` or `https://` URL.
    Http(String),
    /// The full-context system on a chat model: `full-context:MODEL` (the model).
    FullContext(String),
    /// Retrieval by embeddings on an embedding model: `embed-rag:MODEL` (the model).
    EmbedRag(String),
}

impl SystemSpec {
    /// Whether the system is reached over the adapter protocol (stdio or HTTP).
    pub fn is_adapter(&self) -> bool {
        matches!(self, SystemSpec::Stdio(_) | SystemSpec::Http(_))
    }
}

impl FromStr for SystemSpec {
    type Err = String;

    fn from_str(spec: &str) -> Result<SystemSpec, String> {
        if builtin::instrument::is_instrument(spec) {
            return Ok(SystemSpec::Instrument(spec.to_string()));
        }
        if builtin::NAMES.contains(&spec) {
            return Ok(SystemSpec::Builtin(spec.to_string()));
        }
        if let Some(command) = spec.strip_prefix("cmd:") {
            if command.trim().is_empty() {
                return Err(format!(
                    "bad system spec {spec:?}: the command line after `cmd:` is empty"
                ));
            }
            return Ok(SystemSpec::Stdio(spec.to_string()));
        }
        if spec.starts_with("http://") || spec.starts_with("https://") {
            return Ok(SystemSpec::Http(spec.to_string()));
        }
        if spec == "full-context" || spec.starts_with("full-context:") {
            let model = spec
                .strip_prefix("full-context:")
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .ok_or("the full-context system needs a model: `--system full-context:MODEL`")?;
            return Ok(SystemSpec::FullContext(model.to_string()));
        }
        if spec == "embed-rag" || spec.starts_with("embed-rag:") {
            let model = spec
                .strip_prefix("embed-rag:")
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .ok_or("the embed-rag system needs an embedding model: `--system embed-rag:MODEL` (e.g. embed-rag:text-embedding-3-small)")?;
            return Ok(SystemSpec::EmbedRag(model.to_string()));
        }
        Err(format!(
            "unknown system {spec:?}: expected one of {}, an instrument ({}), `full-context:MODEL`, `embed-rag:MODEL`, `cmd:COMMAND LINE` (a stdio adapter) or an http:// URL (an HTTP adapter)",
            builtin::NAMES.join(", "),
            builtin::instrument::NAMES.join(", ")
        ))
    }
}

impl fmt::Display for SystemSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SystemSpec::Builtin(name) | SystemSpec::Instrument(name) => f.write_str(name),
            SystemSpec::Stdio(spec) | SystemSpec::Http(spec) => f.write_str(spec),
            SystemSpec::FullContext(model) => write!(f, "full-context:{model}"),
            SystemSpec::EmbedRag(model) => write!(f, "embed-rag:{model}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_spec_parses_and_prints_back() {
        for (spec, want) in [
            ("null", SystemSpec::Builtin("null".into())),
            ("scoped-forget", SystemSpec::Builtin("scoped-forget".into())),
            ("oracle-wipe", SystemSpec::Instrument("oracle-wipe".into())),
            (
                "cmd:python3 a.py --x",
                SystemSpec::Stdio("cmd:python3 a.py --x".into()),
            ),
            (
                "http://127.0.0.1:8080/rpc",
                SystemSpec::Http("http://127.0.0.1:8080/rpc".into()),
            ),
            (
                "https://example.org/rpc",
                SystemSpec::Http("https://example.org/rpc".into()),
            ),
            (
                "full-context:gpt-4o-mini",
                SystemSpec::FullContext("gpt-4o-mini".into()),
            ),
            ("embed-rag:e5", SystemSpec::EmbedRag("e5".into())),
        ] {
            let parsed: SystemSpec = spec.parse().unwrap();
            assert_eq!(parsed, want, "{spec}");
            assert_eq!(parsed.to_string(), spec);
        }
    }

    #[test]
    fn malformed_specs_say_what_is_expected() {
        for (spec, needle) in [
            ("cmd:", "is empty"),
            ("cmd:   ", "is empty"),
            ("full-context", "needs a model"),
            ("full-context: ", "needs a model"),
            ("embed-rag:", "needs an embedding model"),
            ("naive_rag", "unknown system \"naive_rag\""),
            ("ftp://x", "expected one of null, transcript"),
        ] {
            let err = spec.parse::<SystemSpec>().unwrap_err();
            assert!(err.contains(needle), "{spec}: {err}");
        }
    }
}
