//! The handshake: what the client sends, how a reply is read, and how two processes'
//! handshakes may differ.

use super::*;

/// The parameters of the handshake this client sends.
pub(crate) fn handshake_params() -> Value {
    let params = wire::HandshakeParams {
        protocol: PROTOCOL_VERSION.to_string(),
        client: wire::ClientInfo {
            name: "bemula".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        },
    };
    // Plain strings always serialise.
    serde_json::to_value(params).unwrap_or_default()
}

/// Checks a handshake answer: the protocol version must match and the shape must parse.
pub(crate) fn parse_handshake(value: &Value) -> Result<HandshakeResult, String> {
    let protocol = value.get("protocol").and_then(Value::as_str);
    match protocol {
        Some(PROTOCOL_VERSION) => {}
        Some(other) => {
            return Err(format!(
                "adapter speaks protocol `{other}`, this client speaks `{PROTOCOL_VERSION}`"
            ));
        }
        None => {
            return Err(format!(
                "handshake result has no `protocol` string: {}",
                wire::brief(value)
            ));
        }
    }
    let mut value = value.clone();
    // Capabilities may be left out; the defaults assume the most work.
    if let Value::Object(obj) = &mut value {
        obj.entry("capabilities")
            .or_insert_with(|| json!(wire::Capabilities::default()));
    }
    serde_json::from_value(value).map_err(|e| format!("malformed handshake result: {e}"))
}

/// The options with the call timeout the handshake declares, where it is longer than
/// the default: `max(declared, options.timeout)`, unless the user set the timeout
/// (then it holds, and a warning names what the adapter asked for).
pub(super) fn with_declared_timeout(
    spec: &str,
    options: &RemoteOptions,
    handshake: &HandshakeResult,
) -> RemoteOptions {
    let mut options = options.clone();
    let Some(declared) = handshake.timeouts.as_ref().and_then(|t| t.call_s) else {
        return options;
    };
    let Ok(declared) = Duration::try_from_secs_f64(declared) else {
        eprintln!(
            "bemula: adapter `{}` declares timeouts.call_s {declared}, which is not a number of seconds; ignored",
            crate::terminal::inline(spec)
        );
        return options;
    };
    if declared <= options.timeout {
        return options;
    }
    if options.timeout_explicit {
        eprintln!(
            "bemula: adapter `{}` asks for a call timeout of {} s; --adapter-timeout {} s holds (leave it out to use the adapter's)",
            crate::terminal::inline(spec),
            declared.as_secs_f64(),
            options.timeout.as_secs_f64()
        );
    } else {
        options.timeout = declared;
    }
    options
}

/// What differs between two processes' handshakes, in what the runner relies on.
pub(super) fn handshake_difference(a: &HandshakeResult, b: &HandshakeResult) -> Option<String> {
    if a.name != b.name {
        return Some(format!("name {:?} and {:?}", a.name, b.name));
    }
    if a.protocol != b.protocol {
        return Some(format!("protocol {:?} and {:?}", a.protocol, b.protocol));
    }
    if a.capabilities != b.capabilities {
        return Some(format!(
            "capabilities {} and {}",
            json!(a.capabilities),
            json!(b.capabilities)
        ));
    }
    None
}
