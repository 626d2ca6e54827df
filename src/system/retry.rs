//! The re-sends of bemula's system calls: a call is **re-sent** only when the system
//! certainly did not act on it: the connection was refused before anything was sent,
//! the server answered HTTP 429, or it answered the JSON-RPC error `-32003 busy`.
//! Those re-sends happen in one place, the adapter client ([`crate::system::remote`]),
//! at most [`RetryPolicy::retries`] times (3 by default) with exponential backoff from
//! 100 ms doubling to 5 s (longer when the server asks, at most 60 s).
//!
//! Every other failure is the runner's to recover from, never by sending the call
//! again: see [`crate::run::recovery`].

pub use crate::backoff::{DEFAULT_RETRIES, RetryPolicy};
