//! The messages of the `bemula-adapter/1` protocol (see `conformance/PROTOCOL.md`):
//! JSON-RPC 2.0 envelopes, the method names, the parameter and result shapes, and the
//! error codes. Shared by the client ([`super::RemoteFactory`]) and the server
//! ([`super::server`]).

use crate::system::{ErrorKind, Namespace, SessionInfo, TurnInput};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The protocol version this crate speaks, sent and expected in `handshake`.
pub const PROTOCOL_VERSION: &str = "bemula-adapter/1";

/// The JSON-RPC version string of every message.
pub const JSONRPC: &str = "2.0";

/// Method names of the protocol.
pub mod method {
    /// Protocol and system description; the first call on every connection.
    pub const HANDSHAKE: &str = "handshake";
    /// Forget everything in a namespace.
    pub const RESET: &str = "reset";
    /// A session begins in a namespace.
    pub const START_SESSION: &str = "start_session";
    /// One exchange of the current session.
    pub const OBSERVE: &str = "observe";
    /// The current session ends.
    pub const END_SESSION: &str = "end_session";
    /// Returns once everything observed is indexed.
    pub const FLUSH: &str = "flush";
    /// Answer a question or return retrieved memories.
    pub const QUERY: &str = "query";
    /// The adapter stops after answering.
    pub const SHUTDOWN: &str = "shutdown";
}

/// JSON-RPC error codes: the standard five and the protocol's own (-32000…-32099).
pub mod code {
    /// The request was not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON was not a valid JSON-RPC request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Parameters missing or of the wrong type.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A fault in the adapter itself.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// The memory system raised an error while doing the call.
    pub const SYSTEM_FAILURE: i64 = -32000;
    /// The namespace was never reset on this server (its state is unknown or lost).
    pub const UNKNOWN_NAMESPACE: i64 = -32001;
    /// The system cannot do this call (e.g. it has no query face).
    pub const NOT_SUPPORTED: i64 = -32002;
    /// The system is busy; retry later (`data.retry_after_ms` may say when).
    pub const BUSY: i64 = -32003;
    /// The system gave up waiting on its own backend (e.g. indexing in `flush`).
    pub const SYSTEM_TIMEOUT: i64 = -32004;
    /// The client's protocol version is not supported.
    pub const PROTOCOL_MISMATCH: i64 = -32005;

    /// The error kind a client records for an error object with this code.
    pub fn kind(code: i64) -> super::ErrorKind {
        use super::ErrorKind;
        match code {
            METHOD_NOT_FOUND | NOT_SUPPORTED => ErrorKind::Unsupported,
            PARSE_ERROR | INVALID_REQUEST | INVALID_PARAMS | PROTOCOL_MISMATCH => {
                ErrorKind::Protocol
            }
            BUSY => ErrorKind::Overloaded,
            SYSTEM_TIMEOUT => ErrorKind::Timeout,
            _ => ErrorKind::System,
        }
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// One of the codes in [`code`] (or any other integer).
    pub code: i64,
    /// What went wrong, in words.
    pub message: String,
    /// Extra detail (e.g. a traceback, `retry_after_ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error object without data.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
}

/// A request as a JSON value; `id: None` makes it a notification.
pub fn request(id: Option<u64>, method: &str, params: Value) -> Value {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), JSONRPC.into());
    obj.insert("method".into(), method.into());
    obj.insert("params".into(), params);
    if let Some(id) = id {
        obj.insert("id".into(), id.into());
    }
    Value::Object(obj)
}

/// A success response.
pub fn success(id: Value, result: Value) -> Value {
    json!({"jsonrpc": JSONRPC, "id": id, "result": result})
}

/// An error response.
pub fn failure(id: Value, error: RpcError) -> Value {
    json!({"jsonrpc": JSONRPC, "id": id, "error": error})
}

/// A response as a client reads it: the id and either the result or the error.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The id of the request it answers (`Value::Null` when the server could not read it).
    pub id: Value,
    /// The result or the error object.
    pub outcome: Result<Value, RpcError>,
}

/// Reads a JSON value as a JSON-RPC response; the error says what is wrong with it.
pub fn parse_response(value: Value) -> Result<Response, String> {
    let Value::Object(mut obj) = value else {
        return Err("a response must be a JSON object".into());
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC) {
        return Err("a response must carry \"jsonrpc\": \"2.0\"".into());
    }
    let id = obj.remove("id").ok_or("a response must carry an \"id\"")?;
    match (obj.remove("result"), obj.remove("error")) {
        (Some(result), None) => Ok(Response {
            id,
            outcome: Ok(result),
        }),
        (None, Some(error)) => {
            let error: RpcError = serde_json::from_value(error)
                .map_err(|e| format!("malformed error object ({e})"))?;
            Ok(Response {
                id,
                outcome: Err(error),
            })
        }
        (Some(_), Some(_)) => Err("a response must not carry both \"result\" and \"error\"".into()),
        (None, None) => Err("a response must carry \"result\" or \"error\"".into()),
    }
}

/// Parameters of `handshake`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandshakeParams {
    /// The protocol version the client speaks.
    pub protocol: String,
    /// The client program.
    pub client: ClientInfo,
}

/// The client named in a handshake.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientInfo {
    /// Program name.
    pub name: String,
    /// Program version.
    pub version: String,
}

/// What a system's `query` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum QueryCapability {
    /// `{answer}` only.
    Answer,
    /// `{memories}` only.
    Memories,
    /// Either, call by call.
    Both,
}

/// The capabilities announced in the handshake.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// The shape of `query` results.
    pub query: QueryCapability,
    /// Whether `flush` does real work (asynchronous indexing); `false` means it is a no-op.
    pub flush: bool,
    /// Whether session boundaries matter to the system.
    pub sessions: bool,
}

impl Default for Capabilities {
    fn default() -> Capabilities {
        Capabilities {
            query: QueryCapability::Both,
            flush: true,
            sessions: true,
        }
    }
}

/// The result of `handshake`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HandshakeResult {
    /// The protocol version the server speaks; must equal [`PROTOCOL_VERSION`].
    pub protocol: String,
    /// Name of the memory system.
    pub name: String,
    /// Its version, if known.
    #[serde(default)]
    pub version: Option<String>,
    /// Settings that decide how it forgets.
    #[serde(default)]
    pub settings: Map<String, Value>,
    /// What it can do.
    pub capabilities: Capabilities,
    /// The most calls the adapter serves at once, when it has a limit; bemula then
    /// keeps at most this many namespaces in flight (two per instance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<usize>,
    /// Timeouts the adapter asks for, e.g. a longer call timeout for a system that
    /// calls an LLM on every `observe`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<Timeouts>,
}

/// Timeouts an adapter declares in its handshake (`"timeouts": {"call_s": 600}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeouts {
    /// The longest one call may take, in seconds. bemula waits the larger of this and
    /// its default `--adapter-timeout`; an explicit `--adapter-timeout` wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_s: Option<f64>,
}

/// Parameters naming only a namespace (`reset`, `end_session`, `flush`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamespaceParams {
    /// The evaluation the call belongs to.
    pub namespace: Namespace,
}

/// Parameters of `start_session`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartSessionParams {
    /// The evaluation the call belongs to.
    pub namespace: Namespace,
    /// The session that begins.
    pub session: SessionInfo,
}

/// Parameters of `observe`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObserveParams {
    /// The evaluation the call belongs to.
    pub namespace: Namespace,
    /// The exchange.
    pub turn: TurnInput,
}

/// Parameters of `query`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryParams {
    /// The evaluation the call belongs to.
    pub namespace: Namespace,
    /// The question.
    pub question: String,
}

/// Reads a `query` result: exactly one of `answer` (a string) or `memories` (a list
/// whose items are strings or `{"text": …, "time": …}` objects, `time` optional). The
/// error says what is wrong.
pub fn parse_query_result(value: &Value) -> Result<crate::system::Reply, String> {
    use crate::system::{Memory, Reply};
    let Value::Object(obj) = value else {
        return Err(format!(
            "query result must be an object, got {}",
            brief(value)
        ));
    };
    let memory = |i: usize, item: &Value| -> Result<Memory, String> {
        match item {
            Value::String(s) => Ok(Memory::from(s.clone())),
            Value::Object(m) => {
                let text = match m.get("text") {
                    Some(Value::String(t)) => t.clone(),
                    other => {
                        return Err(format!(
                            "query result `memories[{i}].text` must be a string, got {}",
                            other.map_or("nothing".to_string(), brief)
                        ));
                    }
                };
                let time = match m.get("time") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(t)) => Some(t.clone()),
                    Some(other) => {
                        return Err(format!(
                            "query result `memories[{i}].time` must be a string (ISO 8601), got {}",
                            brief(other)
                        ));
                    }
                };
                if let Some(key) = m.keys().find(|k| !matches!(k.as_str(), "text" | "time")) {
                    return Err(format!(
                        "query result `memories[{i}]` has an unknown field `{key}`; a memory \
                         is a string or {{\"text\", \"time\"}}"
                    ));
                }
                Ok(Memory { text, time })
            }
            other => Err(format!(
                "query result `memories[{i}]` must be a string or an object with `text` \
                 (and `time`), got {}",
                brief(other)
            )),
        }
    };
    match (obj.get("answer"), obj.get("memories")) {
        (Some(Value::String(answer)), None) => Ok(Reply::Answer(answer.clone())),
        (Some(other), None) => Err(format!(
            "query result `answer` must be a string, got {}",
            brief(other)
        )),
        (None, Some(Value::Array(items))) => items
            .iter()
            .enumerate()
            .map(|(i, item)| memory(i, item))
            .collect::<Result<Vec<_>, _>>()
            .map(Reply::Memories),
        (None, Some(other)) => Err(format!(
            "query result `memories` must be a list, got {}",
            brief(other)
        )),
        (Some(_), Some(_)) => {
            Err("query result must carry `answer` or `memories`, not both".into())
        }
        (None, None) => Err(format!(
            "query result must carry `answer` or `memories`, got {}",
            brief(value)
        )),
    }
}

/// The wire form of a reply: `{answer}` or `{memories}`; a memory without a time is a
/// plain string, one with a time `{"text", "time"}`.
pub fn query_result(reply: &crate::system::Reply) -> Value {
    use crate::system::Reply;
    match reply {
        Reply::Answer(answer) => json!({ "answer": answer }),
        Reply::Memories(memories) => {
            let items: Vec<Value> = memories
                .iter()
                .map(|m| match &m.time {
                    None => Value::String(m.text.clone()),
                    Some(time) => json!({ "text": m.text, "time": time }),
                })
                .collect();
            json!({ "memories": items })
        }
    }
}

/// A JSON value shortened for error messages (at most about 120 characters).
pub fn brief(value: &Value) -> String {
    let text = value.to_string();
    shorten(&text, 120)
}

/// Text shortened to about `max` characters, on a character boundary.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}…")
}

/// The kind of error a client records for a JSON-RPC error object.
pub fn error_kind(error: &RpcError) -> ErrorKind {
    code::kind(error.code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Reply;

    #[test]
    fn parses_success_and_error_responses() {
        let ok = parse_response(json!({"jsonrpc":"2.0","id":3,"result":{"answer":"x"}})).unwrap();
        assert_eq!(ok.id, json!(3));
        assert_eq!(ok.outcome, Ok(json!({"answer":"x"})));
        let err =
            parse_response(json!({"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}))
                .unwrap();
        assert_eq!(err.outcome.unwrap_err().code, code::METHOD_NOT_FOUND);
    }

    #[test]
    fn rejects_malformed_responses() {
        assert!(parse_response(json!([1])).is_err());
        assert!(parse_response(json!({"id":1,"result":1})).is_err());
        assert!(parse_response(json!({"jsonrpc":"2.0","result":1})).is_err());
        assert!(parse_response(json!({"jsonrpc":"2.0","id":1})).is_err());
        assert!(
            parse_response(
                json!({"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":""}})
            )
            .is_err()
        );
        assert!(parse_response(json!({"jsonrpc":"2.0","id":1,"error":{"code":"x"}})).is_err());
    }

    #[test]
    fn query_results_are_checked_for_shape() {
        assert_eq!(
            parse_query_result(&json!({"answer":"Paris"})),
            Ok(Reply::Answer("Paris".into()))
        );
        assert_eq!(
            parse_query_result(&json!({"memories":["a","b"]})),
            Ok(Reply::memories(["a", "b"]))
        );
        let err = parse_query_result(&json!({"answer":42})).unwrap_err();
        assert!(err.contains("`answer` must be a string"), "{err}");
        let err = parse_query_result(&json!({"memories":["a",1]})).unwrap_err();
        assert!(err.contains("memories[1]"), "{err}");
        assert!(parse_query_result(&json!({"memories":"a"})).is_err());
        assert!(parse_query_result(&json!({"answer":"a","memories":[]})).is_err());
        assert!(parse_query_result(&json!({})).is_err());
        assert!(parse_query_result(&json!(null)).is_err());
    }

    #[test]
    fn error_codes_map_to_kinds() {
        assert_eq!(code::kind(code::METHOD_NOT_FOUND), ErrorKind::Unsupported);
        assert_eq!(code::kind(code::NOT_SUPPORTED), ErrorKind::Unsupported);
        assert_eq!(code::kind(code::BUSY), ErrorKind::Overloaded);
        assert_eq!(code::kind(code::SYSTEM_FAILURE), ErrorKind::System);
        assert_eq!(code::kind(code::INVALID_PARAMS), ErrorKind::Protocol);
        assert_eq!(code::kind(-1), ErrorKind::System);
    }

    #[test]
    fn shortens_on_char_boundaries() {
        assert_eq!(shorten("ééééé", 3), "ééé…");
        assert_eq!(shorten("abc", 3), "abc");
    }

    #[test]
    fn memories_may_carry_times() {
        use crate::system::{Memory, Reply};
        let value = json!({"memories": ["plain", {"text": "dated", "time": "2025-06-22"}]});
        let reply = parse_query_result(&value).unwrap();
        assert_eq!(
            reply,
            Reply::Memories(vec![
                Memory::from("plain"),
                Memory::at("dated", "2025-06-22")
            ])
        );
        assert_eq!(query_result(&reply), value);
        let bad = json!({"memories": [{"text": "x", "time": 5}]});
        assert!(
            parse_query_result(&bad)
                .unwrap_err()
                .contains("memories[0].time")
        );
        let unknown = json!({"memories": [{"text": "x", "when": "today"}]});
        assert!(
            parse_query_result(&unknown)
                .unwrap_err()
                .contains("unknown field `when`")
        );
    }
}
