//! Cost accounting: model calls, cache hits, retries and tokens per role, counted by a
//! shared [`UsageMeter`] and snapshot as [`UsageByRole`] for a run's summary.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Who made an LLM call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The LLM judge grading answers.
    Judge,
    /// The LLM answerer composing answers from retrieved memories.
    Answerer,
    /// A memory system's own calls (the full-context system).
    System,
    /// The start-up check of an endpoint.
    Preflight,
}

impl Role {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Role::Judge => "judge",
            Role::Answerer => "answerer",
            Role::System => "system",
            Role::Preflight => "preflight",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What one role used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Requests the model answered (paid calls; cache hits are not calls).
    pub calls: u64,
    /// Replies served from the response cache.
    pub cache_hits: u64,
    /// Attempts repeated after a connection error, a timeout, HTTP 429 or 5xx.
    pub retries: u64,
    /// Requests that failed for good (after their retries).
    pub failures: u64,
    /// Prompt tokens, as the endpoint's `usage` reported them.
    pub prompt_tokens: u64,
    /// Completion tokens, as the endpoint's `usage` reported them.
    pub completion_tokens: u64,
}

impl Usage {
    /// Prompt plus completion tokens.
    pub fn total_tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }

    /// The sum of two usages.
    pub fn plus(&self, other: &Usage) -> Usage {
        Usage {
            calls: self.calls + other.calls,
            cache_hits: self.cache_hits + other.cache_hits,
            retries: self.retries + other.retries,
            failures: self.failures + other.failures,
            prompt_tokens: self.prompt_tokens + other.prompt_tokens,
            completion_tokens: self.completion_tokens + other.completion_tokens,
        }
    }

    /// What was used since `earlier` (a snapshot of the same counters).
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            calls: self.calls.saturating_sub(earlier.calls),
            cache_hits: self.cache_hits.saturating_sub(earlier.cache_hits),
            retries: self.retries.saturating_sub(earlier.retries),
            failures: self.failures.saturating_sub(earlier.failures),
            prompt_tokens: self.prompt_tokens.saturating_sub(earlier.prompt_tokens),
            completion_tokens: self
                .completion_tokens
                .saturating_sub(earlier.completion_tokens),
        }
    }
}

/// A snapshot of the usage of every role, as put into `summary.json`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageByRole {
    /// The judge's calls.
    pub judge: Usage,
    /// The answerer's calls.
    pub answerer: Usage,
    /// The memory system's calls.
    pub system: Usage,
    /// Start-up checks.
    pub preflight: Usage,
}

impl UsageByRole {
    /// The usage of one role.
    pub fn get(&self, role: Role) -> &Usage {
        match role {
            Role::Judge => &self.judge,
            Role::Answerer => &self.answerer,
            Role::System => &self.system,
            Role::Preflight => &self.preflight,
        }
    }

    /// What each role used since `earlier`.
    pub fn since(&self, earlier: &UsageByRole) -> UsageByRole {
        UsageByRole {
            judge: self.judge.since(&earlier.judge),
            answerer: self.answerer.since(&earlier.answerer),
            system: self.system.since(&earlier.system),
            preflight: self.preflight.since(&earlier.preflight),
        }
    }

    /// All roles together.
    pub fn total(&self) -> Usage {
        self.judge
            .plus(&self.answerer)
            .plus(&self.system)
            .plus(&self.preflight)
    }
}

impl fmt::Display for UsageByRole {
    /// One line per role that made or reused a call, e.g.
    /// `judge: 120 calls, 30 cached, 2 retries, 81234 prompt + 9120 completion tokens`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut any = false;
        for role in [Role::Judge, Role::Answerer, Role::System, Role::Preflight] {
            let u = self.get(role);
            if *u == Usage::default() {
                continue;
            }
            any = true;
            writeln!(
                f,
                "{role}: {} calls, {} cached, {} retries, {} failed, {} prompt + {} completion tokens",
                u.calls, u.cache_hits, u.retries, u.failures, u.prompt_tokens, u.completion_tokens
            )?;
        }
        if !any {
            writeln!(f, "no LLM calls")?;
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
struct Counters {
    calls: AtomicU64,
    cache_hits: AtomicU64,
    retries: AtomicU64,
    failures: AtomicU64,
    prompt_tokens: AtomicU64,
    completion_tokens: AtomicU64,
}

impl Counters {
    fn snapshot(&self) -> Usage {
        Usage {
            calls: self.calls.load(Ordering::Relaxed),
            cache_hits: self.cache_hits.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            failures: self.failures.load(Ordering::Relaxed),
            prompt_tokens: self.prompt_tokens.load(Ordering::Relaxed),
            completion_tokens: self.completion_tokens.load(Ordering::Relaxed),
        }
    }
}

/// Counts usage per role; shared (`Arc<UsageMeter>`) by every client of a run.
#[derive(Debug, Default)]
pub struct UsageMeter {
    judge: Counters,
    answerer: Counters,
    system: Counters,
    preflight: Counters,
}

impl UsageMeter {
    /// A meter at zero.
    pub fn new() -> UsageMeter {
        UsageMeter::default()
    }

    fn counters(&self, role: Role) -> &Counters {
        match role {
            Role::Judge => &self.judge,
            Role::Answerer => &self.answerer,
            Role::System => &self.system,
            Role::Preflight => &self.preflight,
        }
    }

    /// Counts one answered call and its tokens.
    pub fn record_call(&self, role: Role, prompt_tokens: u64, completion_tokens: u64) {
        let c = self.counters(role);
        c.calls.fetch_add(1, Ordering::Relaxed);
        c.prompt_tokens.fetch_add(prompt_tokens, Ordering::Relaxed);
        c.completion_tokens
            .fetch_add(completion_tokens, Ordering::Relaxed);
    }

    /// Counts one reply served from the cache.
    pub fn record_cache_hit(&self, role: Role) {
        self.counters(role)
            .cache_hits
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one retried attempt.
    pub fn record_retry(&self, role: Role) {
        self.counters(role).retries.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one request that failed for good.
    pub fn record_failure(&self, role: Role) {
        self.counters(role).failures.fetch_add(1, Ordering::Relaxed);
    }

    /// The usage so far.
    pub fn snapshot(&self) -> UsageByRole {
        UsageByRole {
            judge: self.judge.snapshot(),
            answerer: self.answerer.snapshot(),
            system: self.system.snapshot(),
            preflight: self.preflight.snapshot(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_counts_per_role() {
        let m = UsageMeter::new();
        m.record_call(Role::Judge, 100, 7);
        m.record_call(Role::Judge, 50, 3);
        m.record_cache_hit(Role::Judge);
        m.record_retry(Role::Answerer);
        m.record_failure(Role::System);
        let s = m.snapshot();
        assert_eq!(s.judge.calls, 2);
        assert_eq!(s.judge.prompt_tokens, 150);
        assert_eq!(s.judge.completion_tokens, 10);
        assert_eq!(s.judge.cache_hits, 1);
        assert_eq!(s.answerer.retries, 1);
        assert_eq!(s.system.failures, 1);
        assert_eq!(s.total().total_tokens(), 160);
        let text = s.to_string();
        assert!(text.contains("judge: 2 calls, 1 cached"), "{text}");
        assert!(!text.contains("preflight"), "{text}");
    }
}
