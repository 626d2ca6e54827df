//! The preflight: a few seconds of checks that `bemula run`, `bemula test` and the
//! `cargo test` harness make once per adapter before any instance runs, so that an
//! adapter bug that would corrupt the scores stops the run instead.
//!
//! Every check works on canary namespaces named like the runner's, `<instance>/<version>`,
//! with an instance id that no dataset uses: `bemula-preflight-<nonce>-<tag>`, where the
//! nonce is fresh for every process. The checks:
//! - **the two versions of an instance are kept apart**: a fact observed in
//!   `…/forget` never comes back in `…/control`, and the other way round (an adapter that
//!   keys its store by the instance alone fails);
//! - **reset empties its own namespace and no other**: resetting `…/forget` removes its
//!   fact and leaves `…/control` whole (a global reset such as `Memory.reset()` fails);
//! - **concurrent calls across namespaces stay apart**: [`BURST_NAMESPACES`] namespaces
//!   are filled and asked at once, as the runner does, and each must recall its own facts
//!   and none of the others' (a thread-unsafe wrapper fails).
//!
//! A system that does not recall a freshly observed fact cannot be checked; the preflight
//! then says so as a warning instead of failing. `bemula check-adapter` runs the same
//! checks among its own (see [`super::check`]). Every canary namespace is reset at the
//! end.

use super::RemoteFactory;
pub use super::probe::{
    BURST_NAMESPACES, CANARY_PREFIX, CONCURRENT_APART, Finding, Outcome, RESET_SCOPE,
    VERSIONS_APART,
};
use super::probe::{Canary, burst_width, check_concurrency, check_handshake, check_versions};
use std::time::{Duration, Instant};

/// The result of a whole preflight.
#[derive(Debug, Clone)]
pub struct Preflight {
    /// The adapter spec.
    pub spec: String,
    /// Every check in order; the first is the handshake's shape.
    pub findings: Vec<Finding>,
    /// How long it took.
    pub elapsed: Duration,
}

impl Preflight {
    /// The first failed check, if any.
    pub fn failure(&self) -> Option<&Finding> {
        self.findings
            .iter()
            .find(|f| matches!(f.outcome, Outcome::Failed(_)))
    }

    /// The checks that could not be made.
    pub fn inconclusive(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| matches!(f.outcome, Outcome::Inconclusive(_)))
    }

    /// The result as one outcome: `Err` with the message of the first failure (naming
    /// the adapter, the property and what was seen, and how to skip the preflight).
    pub fn into_result(self) -> Result<Preflight, PreflightError> {
        match self.failure() {
            Some(failed) => Err(PreflightError {
                spec: self.spec.clone(),
                property: failed.name,
                seen: match &failed.outcome {
                    Outcome::Failed(seen) => seen.clone(),
                    _ => String::new(),
                },
            }),
            None => Ok(self),
        }
    }

    /// One line for the terminal: how many checks passed, in how long, and the ones that
    /// could not be made.
    pub fn summary_line(&self) -> String {
        let passed = self
            .findings
            .iter()
            .filter(|f| matches!(f.outcome, Outcome::Passed(_)))
            .count();
        let mut line = format!(
            "preflight of adapter `{}`: {passed} of {} checks passed in {:.2}s",
            self.spec,
            self.findings.len(),
            self.elapsed.as_secs_f64()
        );
        for f in self.inconclusive() {
            if let Outcome::Inconclusive(why) = &f.outcome {
                line.push_str(&format!(
                    "; warning: could not check that {}: {why}",
                    f.name
                ));
            }
        }
        line
    }
}

/// A failed preflight.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "preflight of adapter `{spec}` failed: {property}: {seen} (the run would give wrong \
     scores; fix the adapter, or skip with --no-preflight or BEMULA_NO_PREFLIGHT=1)"
)]
pub struct PreflightError {
    /// The adapter spec.
    pub spec: String,
    /// The property that does not hold.
    pub property: &'static str,
    /// What was seen.
    pub seen: String,
}

/// Runs the preflight against a connected adapter: the handshake's shape, then the
/// versions, reset and concurrency probes of [`super::probe`] on fresh canary
/// namespaces, each left reset. Call [`Preflight::into_result`] for a pass or fail.
pub async fn preflight(factory: &RemoteFactory) -> Preflight {
    let started = Instant::now();
    let handshake = check_handshake(factory.raw_handshake());
    let mut findings = vec![Finding {
        name: handshake.name,
        outcome: if handshake.passed {
            Outcome::Passed(handshake.detail)
        } else {
            Outcome::Failed(handshake.detail)
        },
    }];
    let canary = Canary::new();
    let (versions, recalls) = check_versions(factory, &canary).await;
    findings.extend(versions);
    findings.push(check_concurrency(factory, &canary, recalls, burst_width(factory)).await);
    Preflight {
        spec: factory.spec().to_string(),
        findings,
        elapsed: started.elapsed(),
    }
}
