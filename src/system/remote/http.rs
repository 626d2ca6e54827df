//! The HTTP transport: one JSON-RPC request per POST body, the response in the reply's
//! body. Failures are classified for the retry loop in [`super::Client`] (the rules are
//! [`crate::system::retry`]'s): a refused connection and 429 (with `Retry-After`) are safe to
//! re-send; a timeout, a reset connection and a 5xx are not (the system may have acted
//! on the call).

use super::wire;
use super::{CallError, LATE_WRITE_FACTOR, RemoteError, Transport, TransportKind};
use crate::system::ErrorKind;
use reqwest::header::{CONTENT_TYPE, RETRY_AFTER};
use serde_json::Value;
use std::error::Error as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A client for one adapter URL.
pub(crate) struct HttpClient {
    url: reqwest::Url,
    client: reqwest::Client,
    next_id: AtomicU64,
    max_body_bytes: usize,
}

impl HttpClient {
    /// A client for the URL in `spec`.
    pub(crate) fn new(spec: &str, max_body_bytes: usize) -> Result<HttpClient, RemoteError> {
        let url = reqwest::Url::parse(spec).map_err(|e| RemoteError::BadSpec {
            spec: spec.to_string(),
            reason: format!("not a valid URL: {e}"),
        })?;
        // A redirect is refused, not followed: the report must name the system that
        // actually answered.
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| RemoteError::Spawn {
                spec: spec.to_string(),
                message: format!("cannot build an HTTP client: {e}"),
            })?;
        Ok(HttpClient {
            url,
            client,
            next_id: AtomicU64::new(1),
            max_body_bytes,
        })
    }

    /// One attempt of a call.
    pub(crate) async fn call(
        &self,
        method: &str,
        params: &Value,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = wire::request(Some(id), method, params.clone()).to_string();
        let url = &self.url;
        let response = self
            .client
            .post(url.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(body)
            .timeout(timeout)
            .send()
            .await
            .map_err(|e| self.transport_error(method, &e, timeout))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        if status.is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .unwrap_or_else(|| "no Location header".into());
            return Err(CallError::new(
                ErrorKind::Protocol,
                format!(
                    "adapter {url} answered `{method}` with HTTP {status}, a redirect to \
                     {location:?}; redirects are not followed: give the adapter's own URL"
                ),
            ));
        }
        let mut response = response;
        let too_large = |length: String| {
            CallError::new(
                ErrorKind::Protocol,
                format!(
                    "adapter {url} answered `{method}` with a body of {length} bytes, over the \
                     limit of {} bytes (--max-message-bytes)",
                    self.max_body_bytes
                ),
            )
        };
        if let Some(length) = response.content_length()
            && length > self.max_body_bytes as u64
        {
            return Err(too_large(length.to_string()));
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(method, &e, timeout))?
        {
            if bytes.len() + chunk.len() > self.max_body_bytes {
                return Err(too_large(format!("more than {}", self.max_body_bytes)));
            }
            bytes.extend_from_slice(&chunk);
        }
        let text = String::from_utf8_lossy(&bytes);
        if status.as_u16() == 429 {
            return Err(CallError::new(
                ErrorKind::Overloaded,
                format!("adapter {url} answered `{method}` with HTTP 429 (too many requests)"),
            )
            .retryable(retry_after));
        }
        if status.is_server_error() {
            // Not re-sent: the server may have acted on the call before it failed.
            return Err(CallError::new(
                ErrorKind::Overloaded,
                format!(
                    "adapter {url} answered `{method}` with HTTP {status}: {}",
                    wire::shorten(text.trim(), 200)
                ),
            ));
        }
        let value: Value = serde_json::from_slice(&bytes).map_err(|_| {
            CallError::new(
                ErrorKind::Protocol,
                format!(
                    "adapter {url} answered `{method}` with HTTP {status} and a body that is not \
                     JSON: {:?}",
                    wire::shorten(text.trim(), 200)
                ),
            )
        })?;
        let response = wire::parse_response(value.clone()).map_err(|reason| {
            CallError::new(
                ErrorKind::Protocol,
                format!(
                    "adapter {url} answered `{method}` (HTTP {status}) with a message that is not \
                     a JSON-RPC response ({reason}): {}",
                    wire::brief(&value)
                ),
            )
        })?;
        if response.id.as_u64() != Some(id) {
            if let (Value::Null, Err(error)) = (&response.id, &response.outcome) {
                return Err(CallError::new(
                    ErrorKind::Protocol,
                    format!(
                        "adapter {url} could not read the `{method}` request: error {}: {}",
                        error.code, error.message
                    ),
                ));
            }
            return Err(CallError::new(
                ErrorKind::Protocol,
                format!(
                    "adapter {url} answered `{method}` with id {} instead of {id}",
                    response.id
                ),
            ));
        }
        response
            .outcome
            .map_err(|error| CallError::from_rpc(method, &error))
    }

    fn transport_error(&self, method: &str, err: &reqwest::Error, timeout: Duration) -> CallError {
        let url = &self.url;
        if err.is_timeout() {
            return CallError::new(
                ErrorKind::Timeout,
                format!(
                    "adapter {url} did not answer `{method}` within {:.1} s",
                    timeout.as_secs_f64()
                ),
            );
        }
        let mut detail = err.to_string();
        let mut source = err.source();
        while let Some(cause) = source {
            detail.push_str(": ");
            detail.push_str(&cause.to_string());
            source = cause.source();
        }
        let error = CallError::new(
            ErrorKind::Connection,
            format!("cannot reach adapter {url} for `{method}`: {detail}"),
        );
        if err.is_connect() {
            error.retryable(None)
        } else {
            error
        }
    }
}
#[async_trait::async_trait]
impl Transport for HttpClient {
    fn kind(&self) -> TransportKind {
        TransportKind::Http
    }

    /// An HTTP adapter's write may still land after its call was cut off: a reset waits
    /// [`LATE_WRITE_FACTOR`] timeouts for it.
    fn late_write_wait(&self, timeout: Duration) -> Duration {
        timeout.saturating_mul(LATE_WRITE_FACTOR)
    }

    async fn call_once(
        &self,
        method: &str,
        params: &Value,
        _expect_generation: Option<u64>,
        timeout: Duration,
    ) -> Result<(Value, u64), CallError> {
        self.call(method, params, timeout)
            .await
            .map(|value| (value, 0))
    }
}
