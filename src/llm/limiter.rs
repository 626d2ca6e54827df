//! One adaptive concurrency limit per endpoint, shared by every role and model that
//! calls it.
//!
//! Clients get their [`EndpointLimiter`] from a process-wide registry keyed by the
//! normalised base URL ([`endpoint_key`]), so the answerer, every judge model and the
//! full-context system together never have more than `max_in_flight` requests open
//! at one endpoint. When clients configure different limits for the same endpoint,
//! the smaller one wins for all of them.
//!
//! The limit adapts (AIMD, as TCP congestion control does): a reply of HTTP 429, or
//! any reply with a `Retry-After` header, halves the current limit (floor 1), once per
//! round of requests that were started under the same limit; every `limit`
//! successful replies raise it by one, up to `max_in_flight`. The limiter counts
//! what the endpoint saw ([`EndpointUsage`]): peak and mean requests in flight, the
//! 429s, the lowest limit reached and the time requests waited for a permit.
//!
//! The registry holds limiters weakly: once the last client of an endpoint is
//! dropped, the next client starts afresh with its own limit.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// The registry key of a base URL: scheme and host in lower case, the scheme's default
/// port, any fragment and trailing `/` dropped
/// (`HTTPS://API.example.com:443/v1/` and `https://api.example.com/v1` are one
/// endpoint).
pub fn endpoint_key(base_url: &str) -> String {
    let url = base_url.trim();
    let url = url.split('#').next().unwrap_or(url);
    let (scheme, rest) = match url.split_once("://") {
        Some((s, r)) => (s.to_ascii_lowercase(), r),
        None => return url.trim_end_matches('/').to_string(),
    };
    let (authority, path) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let (userinfo, host) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let mut host = host.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => Some(":80"),
        "https" => Some(":443"),
        _ => None,
    };
    if let Some(port) = default_port
        && host.ends_with(port)
    {
        host.truncate(host.len() - port.len());
    }
    let (path, query) = match path.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path, None),
    };
    let mut key = format!("{scheme}://");
    if let Some(u) = userinfo {
        key.push_str(u);
        key.push('@');
    }
    key.push_str(&host);
    key.push_str(path.trim_end_matches('/'));
    if let Some(q) = query {
        key.push('?');
        key.push_str(q);
    }
    key
}

static REGISTRY: Mutex<Option<HashMap<String, Weak<EndpointLimiter>>>> = Mutex::new(None);

/// The limiter of `base_url`'s endpoint, created with `max_in_flight` when no live
/// client uses it yet. When one exists with a larger limit, its limit is lowered to
/// `max_in_flight` (the smaller wins) and a note says so on standard error.
pub fn limiter_for(base_url: &str, max_in_flight: usize) -> Arc<EndpointLimiter> {
    let key = endpoint_key(base_url);
    let mut registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let map = registry.get_or_insert_with(HashMap::new);
    map.retain(|_, w| w.strong_count() > 0);
    if let Some(limiter) = map.get(&key).and_then(Weak::upgrade) {
        let before = limiter.lower_max(max_in_flight);
        if before != max_in_flight {
            eprintln!(
                "bemula: LLM endpoint {}: at most {} requests in flight for every role and model (the smaller of the limits {} and {} configured for it)",
                super::display_url(base_url),
                before.min(max_in_flight),
                before,
                max_in_flight
            );
        }
        return limiter;
    }
    let limiter = Arc::new(EndpointLimiter::new(base_url, max_in_flight));
    map.insert(key, Arc::downgrade(&limiter));
    limiter
}

/// The live limiter of `base_url`'s endpoint, if a client uses it.
pub fn existing_limiter(base_url: &str) -> Option<Arc<EndpointLimiter>> {
    let key = endpoint_key(base_url);
    let registry = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    registry.as_ref()?.get(&key).and_then(Weak::upgrade)
}

/// How one request through a [`Permit`] ended, for the adaptive limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feedback {
    /// The endpoint answered: counts towards raising the limit.
    Success,
    /// HTTP 429 or a `Retry-After` header: the endpoint asks for less.
    Overloaded,
    /// Anything else (a connection error, a 5xx without `Retry-After`): no change.
    Neutral,
}

/// An adaptive concurrency limit for one endpoint (see the module documentation).
pub struct EndpointLimiter {
    endpoint: String,
    state: Mutex<State>,
    notify: Notify,
}

impl fmt::Debug for EndpointLimiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.lock();
        f.debug_struct("EndpointLimiter")
            .field("endpoint", &self.endpoint)
            .field("max_in_flight", &s.max)
            .field("limit", &s.limit)
            .field("in_flight", &s.in_flight)
            .finish()
    }
}

struct State {
    max: usize,
    limit: usize,
    in_flight: usize,
    /// Successes since the limit last changed.
    successes: usize,
    /// Bumped on every decrease; a permit taken before it cannot decrease again.
    generation: u64,
    last_change: Instant,
    totals: Totals,
    /// Highest in flight and lowest limit ever.
    peak: usize,
    min_limit: usize,
    /// Highest in flight since the last [`EndpointLimiter::mark`].
    window_peak: usize,
    /// Lowest limit since the last [`EndpointLimiter::mark`].
    window_min_limit: usize,
}

/// Cumulative counters of one endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Totals {
    requests: u64,
    overloaded: u64,
    decreases: u64,
    waited: u64,
    wait: Duration,
    /// In-flight requests integrated over time (request-seconds).
    in_flight_secs: f64,
    /// Time with at least one request in flight.
    busy: Duration,
}

impl State {
    /// Brings the time integrals up to `now`.
    fn advance(&mut self, now: Instant) {
        let dt = now.saturating_duration_since(self.last_change);
        if self.in_flight > 0 {
            self.totals.in_flight_secs += self.in_flight as f64 * dt.as_secs_f64();
            self.totals.busy += dt;
        }
        self.last_change = now;
    }
}

/// The right to have one request in flight; released when dropped.
#[derive(Debug)]
pub struct Permit {
    limiter: Arc<EndpointLimiter>,
    generation: u64,
}

impl Permit {
    /// Tells the limiter how the request ended (and releases the permit).
    pub fn finish(self, feedback: Feedback) {
        self.limiter.feedback(self.generation, feedback);
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.limiter.release();
    }
}

impl EndpointLimiter {
    /// A limiter for `base_url` allowing `max_in_flight` requests (at least 1).
    pub fn new(base_url: &str, max_in_flight: usize) -> EndpointLimiter {
        let max = max_in_flight.max(1);
        EndpointLimiter {
            endpoint: super::display_url(base_url),
            state: Mutex::new(State {
                max,
                limit: max,
                in_flight: 0,
                successes: 0,
                generation: 0,
                last_change: Instant::now(),
                totals: Totals::default(),
                peak: 0,
                min_limit: max,
                window_peak: 0,
                window_min_limit: max,
            }),
            notify: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The endpoint, as it may be shown.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The configured limit (the smallest of those configured for the endpoint).
    pub fn max_in_flight(&self) -> usize {
        self.lock().max
    }

    /// The current, adapted limit.
    pub fn limit(&self) -> usize {
        self.lock().limit
    }

    /// Lowers the configured limit to `max` if that is smaller; returns the limit
    /// before.
    fn lower_max(&self, max: usize) -> usize {
        let mut s = self.lock();
        let before = s.max;
        let max = max.max(1);
        if max < s.max {
            s.max = max;
            s.limit = s.limit.min(max);
            s.window_min_limit = s.window_min_limit.min(s.limit);
            s.min_limit = s.min_limit.min(s.limit);
        }
        before
    }

    /// Waits until fewer requests than the current limit are in flight and takes a
    /// permit.
    pub async fn acquire(self: &Arc<Self>) -> Permit {
        let started = Instant::now();
        let mut waited = false;
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut s = self.lock();
                if s.in_flight < s.limit {
                    let now = Instant::now();
                    s.advance(now);
                    s.in_flight += 1;
                    s.window_peak = s.window_peak.max(s.in_flight);
                    s.peak = s.peak.max(s.in_flight);
                    s.totals.requests += 1;
                    if waited {
                        s.totals.waited += 1;
                        s.totals.wait += now.saturating_duration_since(started);
                    }
                    return Permit {
                        limiter: Arc::clone(self),
                        generation: s.generation,
                    };
                }
            }
            waited = true;
            notified.await;
        }
    }

    fn feedback(&self, generation: u64, feedback: Feedback) {
        let mut s = self.lock();
        match feedback {
            Feedback::Success => {
                if s.limit < s.max {
                    s.successes += 1;
                    if s.successes >= s.limit {
                        s.limit += 1;
                        s.successes = 0;
                        drop(s);
                        self.notify.notify_waiters();
                    }
                }
            }
            Feedback::Overloaded => {
                s.totals.overloaded += 1;
                if generation == s.generation && s.limit > 1 {
                    s.limit = (s.limit / 2).max(1);
                    s.successes = 0;
                    s.generation += 1;
                    s.totals.decreases += 1;
                    s.window_min_limit = s.window_min_limit.min(s.limit);
                    s.min_limit = s.min_limit.min(s.limit);
                }
            }
            Feedback::Neutral => {}
        }
    }

    fn release(&self) {
        {
            let mut s = self.lock();
            s.advance(Instant::now());
            s.in_flight = s.in_flight.saturating_sub(1);
        }
        self.notify.notify_waiters();
    }

    /// The counters so far, and the start of a new window for
    /// [`EndpointUsage::peak_in_flight`] and [`EndpointUsage::min_limit`].
    pub fn mark(&self) -> EndpointMark {
        let mut s = self.lock();
        s.advance(Instant::now());
        let mark = EndpointMark { totals: s.totals };
        s.window_peak = s.in_flight;
        s.window_min_limit = s.limit;
        mark
    }

    /// What the endpoint saw since `mark`, or since the limiter was made when `None`.
    pub fn usage_since(&self, mark: Option<&EndpointMark>) -> EndpointUsage {
        let mut s = self.lock();
        s.advance(Instant::now());
        let before = mark.map(|m| m.totals).unwrap_or_default();
        let t = &s.totals;
        let busy = t.busy.saturating_sub(before.busy);
        let in_flight_secs = (t.in_flight_secs - before.in_flight_secs).max(0.0);
        EndpointUsage {
            endpoint: self.endpoint.clone(),
            max_in_flight: s.max,
            requests: t.requests - before.requests,
            peak_in_flight: if mark.is_some() {
                s.window_peak
            } else {
                s.peak
            },
            mean_in_flight: if busy.is_zero() {
                0.0
            } else {
                in_flight_secs / busy.as_secs_f64()
            },
            busy_secs: busy.as_secs_f64(),
            rate_limited: t.overloaded - before.overloaded,
            limit_decreases: t.decreases - before.decreases,
            min_limit: if mark.is_some() {
                s.window_min_limit
            } else {
                s.min_limit
            },
            final_limit: s.limit,
            waited: t.waited - before.waited,
            permit_wait_secs: t.wait.saturating_sub(before.wait).as_secs_f64(),
        }
    }
}

/// The counters of an endpoint at one moment (see [`EndpointLimiter::mark`]).
#[derive(Debug, Clone, Copy)]
pub struct EndpointMark {
    totals: Totals,
}

/// What one endpoint saw over a window of a run, as put into `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EndpointUsage {
    /// The base URL, without credentials or query.
    pub endpoint: String,
    /// The configured limit of requests in flight (the smallest configured).
    pub max_in_flight: usize,
    /// HTTP requests sent (every attempt, retries included).
    pub requests: u64,
    /// Most requests in flight at once.
    pub peak_in_flight: usize,
    /// Mean requests in flight while at least one was.
    pub mean_in_flight: f64,
    /// Seconds with at least one request in flight.
    pub busy_secs: f64,
    /// Replies of HTTP 429 or with a `Retry-After` header.
    pub rate_limited: u64,
    /// Times the limit was halved because of them.
    pub limit_decreases: u64,
    /// Lowest limit reached.
    pub min_limit: usize,
    /// The limit at the end.
    pub final_limit: usize,
    /// Requests that had to wait for a permit.
    pub waited: u64,
    /// Seconds requests spent waiting for a permit, summed over requests.
    pub permit_wait_secs: f64,
}

impl fmt::Display for EndpointUsage {
    /// One line, e.g. `http://127.0.0.1:8080/v1: 2982 requests, peak 8 in flight (limit
    /// 8), mean 7.6, 0 rate-limited (429), 1204 waited for a permit (61.3 s in all)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} requests, peak {} in flight (limit {}), mean {:.1}, {} rate-limited (429)",
            self.endpoint,
            self.requests,
            self.peak_in_flight,
            self.max_in_flight,
            self.mean_in_flight,
            self.rate_limited
        )?;
        if self.limit_decreases > 0 {
            write!(
                f,
                ", limit lowered {} times (to {} at least, {} at the end)",
                self.limit_decreases, self.min_limit, self.final_limit
            )?;
        }
        write!(f, ", {:.1} s waiting for a permit", self.permit_wait_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_normalise_case_default_ports_and_slashes() {
        let k = endpoint_key("https://api.example.com/v1");
        for same in [
            "HTTPS://API.Example.com:443/v1/",
            " https://api.example.com/v1// ",
            "https://api.example.com/v1#frag",
        ] {
            assert_eq!(endpoint_key(same), k, "{same}");
        }
        for other in [
            "http://api.example.com/v1",
            "https://api.example.com:8443/v1",
            "https://api.example.com/v2",
            "https://other.example.com/v1",
        ] {
            assert_ne!(endpoint_key(other), k, "{other}");
        }
        assert_eq!(
            endpoint_key("http://127.0.0.1:80/"),
            endpoint_key("http://127.0.0.1")
        );
    }

    #[tokio::test]
    async fn the_registry_shares_one_limiter_and_the_smaller_limit_wins() {
        let a = limiter_for("http://registry-test.invalid:1/v1", 8);
        let b = limiter_for("HTTP://registry-test.invalid:1/v1/", 3);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.max_in_flight(), 3);
        let c = limiter_for("http://registry-test.invalid:1/v1", 5);
        assert_eq!(c.max_in_flight(), 3, "a larger limit does not raise it");
        let other = limiter_for("http://registry-test.invalid:2/v1", 8);
        assert!(!Arc::ptr_eq(&a, &other));
        drop((a, b, c));
        let fresh = limiter_for("http://registry-test.invalid:1/v1", 8);
        assert_eq!(fresh.max_in_flight(), 8, "dropped limiters are forgotten");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn never_more_than_the_limit_in_flight() {
        let limiter = Arc::new(EndpointLimiter::new("http://h/v1", 3));
        let now = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let peak = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..40 {
            let (limiter, now, peak) = (limiter.clone(), now.clone(), peak.clone());
            tasks.spawn(async move {
                let permit = limiter.acquire().await;
                let n = now.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                peak.fetch_max(n, std::sync::atomic::Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(5)).await;
                now.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                permit.finish(Feedback::Success);
            });
        }
        while tasks.join_next().await.is_some() {}
        let u = limiter.usage_since(None);
        assert_eq!(peak.load(std::sync::atomic::Ordering::SeqCst), 3);
        assert_eq!(u.peak_in_flight, 3);
        assert_eq!(u.requests, 40);
        assert!(u.waited > 0 && u.permit_wait_secs > 0.0, "{u:?}");
        assert!(u.mean_in_flight > 1.0 && u.mean_in_flight <= 3.0, "{u:?}");
    }

    #[tokio::test]
    async fn overload_halves_once_per_round_and_successes_grow_it_back() {
        let limiter = Arc::new(EndpointLimiter::new("http://h/v1", 8));
        let permits: Vec<Permit> = futures_take(&limiter, 8).await;
        // Eight requests of the same round are rejected: one halving, not eight.
        for p in permits {
            p.finish(Feedback::Overloaded);
        }
        assert_eq!(limiter.limit(), 4);
        // A request started under the new limit may halve again.
        limiter.acquire().await.finish(Feedback::Overloaded);
        assert_eq!(limiter.limit(), 2);
        limiter.acquire().await.finish(Feedback::Overloaded);
        limiter.acquire().await.finish(Feedback::Overloaded);
        assert_eq!(limiter.limit(), 1, "the floor is one");
        limiter.acquire().await.finish(Feedback::Overloaded);
        assert_eq!(limiter.limit(), 1);
        // Additive increase: `limit` successes raise it by one.
        limiter.acquire().await.finish(Feedback::Success);
        assert_eq!(limiter.limit(), 2);
        for _ in 0..2 {
            limiter.acquire().await.finish(Feedback::Success);
        }
        assert_eq!(limiter.limit(), 3);
        limiter.acquire().await.finish(Feedback::Neutral);
        assert_eq!(limiter.limit(), 3);
        for _ in 0..100 {
            limiter.acquire().await.finish(Feedback::Success);
        }
        assert_eq!(limiter.limit(), 8, "never above the configured limit");
        let u = limiter.usage_since(None);
        assert_eq!(u.rate_limited, 12);
        assert_eq!(u.limit_decreases, 3, "no decrease counted at the floor");
        assert_eq!(u.min_limit, 1);
        assert_eq!(u.final_limit, 8);
        let text = u.to_string();
        assert!(text.contains("12 rate-limited (429)"), "{text}");
        assert!(text.contains("lowered 3 times"), "{text}");
    }

    #[tokio::test]
    async fn a_lowered_limit_holds_back_new_requests() {
        let limiter = Arc::new(EndpointLimiter::new("http://h/v1", 4));
        let mut held = futures_take(&limiter, 4).await;
        held.pop().unwrap().finish(Feedback::Overloaded);
        // Limit 2, three in flight: a new request waits until two have finished.
        let waiter = {
            let limiter = limiter.clone();
            tokio::spawn(async move { limiter.acquire().await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished());
        drop(held.pop());
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiter.is_finished(), "two still in flight at limit 2");
        drop(held.pop());
        let permit = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("woken when a permit frees")
            .unwrap();
        drop(permit);
        let u = limiter.usage_since(None);
        assert_eq!(u.waited, 1);
        assert!(u.permit_wait_secs >= 0.03, "{u:?}");
    }

    #[tokio::test]
    async fn a_mark_starts_a_new_window() {
        let limiter = Arc::new(EndpointLimiter::new("http://h/v1", 4));
        let held = futures_take(&limiter, 4).await;
        drop(held);
        let mark = limiter.mark();
        limiter.acquire().await.finish(Feedback::Success);
        let u = limiter.usage_since(Some(&mark));
        assert_eq!(u.requests, 1);
        assert_eq!(u.peak_in_flight, 1);
        let all = limiter.usage_since(None);
        assert_eq!((all.requests, all.peak_in_flight), (5, 4));
    }

    async fn futures_take(limiter: &Arc<EndpointLimiter>, n: usize) -> Vec<Permit> {
        let mut permits = Vec::new();
        for _ in 0..n {
            permits.push(limiter.acquire().await);
        }
        permits
    }
}
