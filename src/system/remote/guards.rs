//! What keeps a client safe from its adapter: writes that come back after their
//! deadline, and the breaker that stops calling an adapter that keeps failing.

use super::*;

/// How long a write that timed out for its caller goes on, as a multiple of the call
/// timeout.
pub const LATE_WRITE_FACTOR: u32 = 5;

/// Writes (`reset`, `observe`, …) that timed out for their caller but may still be
/// carried out by the adapter, by namespace. A `reset` of the namespace first waits
/// until each has been answered or has failed for good. A stdio adapter's write is
/// waited for up to one more call timeout, then cut off by replacing the process (the
/// namespaces it held restart their passes); an HTTP write, whose server cannot be
/// stopped from here, is waited for as long as it goes on ([`LATE_WRITE_FACTOR`]
/// timeouts), then its connection is closed. So a late write never lands in memory
/// after the reset that restarts its pass: between two resets a turn is observed at
/// most once.
#[derive(Default)]
pub(super) struct LateWrites {
    pub(super) by_namespace:
        std::sync::Mutex<std::collections::HashMap<String, Vec<JoinHandle<bool>>>>,
}

pub(super) type JoinHandle<T> = tokio::task::JoinHandle<T>;

impl LateWrites {
    pub(super) fn add(&self, namespace: &str, call: JoinHandle<bool>) {
        self.by_namespace
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(namespace.to_string())
            .or_default()
            .push(call);
    }

    /// Waits up to `wait` for the late writes of `namespace`; whether every one came
    /// to an end the adapter saw (an answer, an error, a closed connection). Those
    /// still running are cut off.
    pub(super) async fn settle(&self, namespace: &str, wait: Duration) -> bool {
        let calls = self
            .by_namespace
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(namespace)
            .unwrap_or_default();
        if calls.is_empty() {
            return true;
        }
        let aborts: Vec<_> = calls.iter().map(JoinHandle::abort_handle).collect();
        let all = async {
            let mut settled = true;
            for call in calls {
                settled &= call.await.unwrap_or(false);
            }
            settled
        };
        match tokio::time::timeout(wait, all).await {
            Ok(settled) => settled,
            Err(_) => {
                aborts.iter().for_each(tokio::task::AbortHandle::abort);
                false
            }
        }
    }
}

/// Whether `method` changes a namespace's memory.
pub(super) fn is_write(method: &str) -> bool {
    matches!(
        method,
        method::RESET
            | method::START_SESSION
            | method::OBSERVE
            | method::END_SESSION
            | method::FLUSH
    )
}

/// Counts consecutive timeouts; past the limit it opens for good and says why.
#[derive(Default)]
pub(super) struct Breaker {
    pub(super) consecutive: AtomicU32,
    pub(super) open: std::sync::Mutex<Option<String>>,
}

impl Breaker {
    pub(super) fn open_reason(&self) -> Option<String> {
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Notes the outcome of one call.
    pub(super) fn note(&self, spec: &str, limit: u32, outcome: &Result<(Value, u64), CallError>) {
        match outcome {
            Err(err) if err.kind == ErrorKind::Timeout && err.code.is_none() => {
                let n = self.consecutive.fetch_add(1, Ordering::Relaxed) + 1;
                if limit > 0 && n >= limit {
                    let mut open = self
                        .open
                        .lock()
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                    open.get_or_insert_with(|| {
                        format!(
                            "adapter `{spec}` did not answer {n} calls in a row within the \
                             timeout; the remaining calls were not sent (circuit breaker)"
                        )
                    });
                }
            }
            Ok(_) => self.consecutive.store(0, Ordering::Relaxed),
            Err(_) => {}
        }
    }
}
