//! The one backoff of every caller that sends a call again: the adapter client's safe
//! re-sends ([`crate::system::retry`]), the chat and embeddings clients' retries
//! ([`crate::llm`]), and the runner's pause before it restarts a pass. How many
//! re-sends, the wait doubling from a base up to a cap, and a server's `Retry-After`
//! honoured (the wait is never shorter than the doubling's, nor longer than a last cap).

use std::time::Duration;

/// How many times a call the system did not act on is re-sent, by default.
pub const DEFAULT_RETRIES: u32 = 3;

/// Re-sends of calls the system certainly did not act on: how many, and the backoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Re-sends after the first try.
    pub retries: u32,
    /// Wait before the first re-send; doubled for each further one.
    pub base: Duration,
    /// Longest wait of the doubling.
    pub max_backoff: Duration,
    /// Longest wait even when the server asks for more.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            retries: DEFAULT_RETRIES,
            base: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            max_wait: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The policy with `retries` re-sends and the default backoff.
    pub fn with_retries(retries: u32) -> RetryPolicy {
        RetryPolicy {
            retries,
            ..RetryPolicy::default()
        }
    }

    /// The wait before re-send number `attempt + 1`: `base` doubling up to
    /// `max_backoff`, or what the server asked for when that is longer (at most
    /// `max_wait`).
    pub fn backoff(&self, attempt: u32, asked: Option<Duration>) -> Duration {
        let exp = self
            .base
            .saturating_mul(1u32 << attempt.min(16))
            .min(self.max_backoff);
        asked.map_or(exp, |asked| asked.max(exp)).min(self.max_wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_honours_the_server() {
        let p = RetryPolicy::default();
        assert_eq!(p.backoff(0, None), Duration::from_millis(100));
        assert_eq!(p.backoff(1, None), Duration::from_millis(200));
        assert_eq!(p.backoff(10, None), Duration::from_secs(5));
        assert_eq!(p.backoff(40, None), Duration::from_secs(5));
        assert_eq!(
            p.backoff(0, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            p.backoff(0, Some(Duration::from_secs(600))),
            Duration::from_secs(60)
        );
    }

    #[test]
    fn a_model_endpoints_policy_keeps_its_own_caps() {
        let p = RetryPolicy {
            retries: 5,
            base: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
            max_wait: Duration::from_secs(300),
        };
        assert_eq!(p.backoff(0, None), Duration::from_secs(1));
        assert_eq!(p.backoff(3, None), Duration::from_secs(8));
        assert_eq!(p.backoff(9, None), Duration::from_secs(60));
        assert_eq!(
            p.backoff(0, Some(Duration::from_secs(120))),
            Duration::from_secs(120),
            "a longer Retry-After is honoured"
        );
        assert_eq!(
            p.backoff(2, Some(Duration::from_secs(1))),
            Duration::from_secs(4),
            "never shorter than the doubling"
        );
        assert_eq!(
            p.backoff(0, Some(Duration::from_secs(3_600))),
            Duration::from_secs(300)
        );
    }
}
