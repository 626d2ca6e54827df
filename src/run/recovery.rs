//! What the runner does about a system call that failed for good (after the adapter
//! client's safe re-sends, [`crate::system::retry`]).
//!
//! Every failure of a call that writes to memory (`reset`, `start_session`,
//! `observe`, `end_session`, `flush`) may have acted: a timeout, a reset connection, a
//! garbled reply, an HTTP 5xx, an error object, a crash. Sending it again could store a
//! turn twice, so the runner never does; it **restarts the pass** instead: it resets the
//! namespace and ingests the dialogue again from the start, at most `max_restarts` times
//! ([`DEFAULT_MAX_RESTARTS`]). A failed `query` does not write (the protocol forbids it),
//! so it is recorded as an error on its question and never re-sent; only when the
//! system lost its state (a crash) does the pass restart. An unsupported call is
//! recorded as it is: restarting cannot change the answer.

use crate::system::{ErrorKind, SystemError};

/// How many times a pass is restarted after a failure that may have acted, by default.
pub const DEFAULT_MAX_RESTARTS: u32 = 2;

/// What the runner does about a call that failed for good (after the client's safe
/// re-sends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Recovery {
    /// Record the failure as an error on the question(s) it affects.
    Record,
    /// Reset the namespace and ingest the dialogue again from the start.
    RestartPass,
}

/// The kinds of call, as far as recovery cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallKind {
    /// `reset`, `start_session`, `observe`, `end_session`, `flush`: they change memory.
    Write,
    /// `query`: it only reads.
    Query,
}

/// The recovery of a failed call of kind `call` (see the module docs).
pub fn recovery(err: &SystemError, call: CallKind) -> Recovery {
    match (err.kind, call) {
        (ErrorKind::Unsupported, _) => Recovery::Record,
        (ErrorKind::Crashed, _) => Recovery::RestartPass,
        (_, CallKind::Write) => Recovery::RestartPass,
        (_, CallKind::Query) => Recovery::Record,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_that_may_have_acted_restart_the_pass_and_queries_are_recorded() {
        let err = |kind| SystemError::new(kind, "x");
        for kind in [
            ErrorKind::Timeout,
            ErrorKind::Connection,
            ErrorKind::Protocol,
            ErrorKind::Overloaded,
            ErrorKind::System,
            ErrorKind::Crashed,
        ] {
            assert_eq!(
                recovery(&err(kind), CallKind::Write),
                Recovery::RestartPass,
                "{kind}"
            );
        }
        for kind in [
            ErrorKind::Timeout,
            ErrorKind::Protocol,
            ErrorKind::System,
            ErrorKind::Overloaded,
        ] {
            assert_eq!(
                recovery(&err(kind), CallKind::Query),
                Recovery::Record,
                "{kind}"
            );
        }
        assert_eq!(
            recovery(&err(ErrorKind::Crashed), CallKind::Query),
            Recovery::RestartPass
        );
        assert_eq!(
            recovery(&err(ErrorKind::Unsupported), CallKind::Write),
            Recovery::Record
        );
    }
}
