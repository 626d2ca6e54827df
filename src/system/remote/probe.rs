//! The probes an adapter is checked with, shared by the preflight ([`super::preflight`])
//! and `bemula check-adapter` ([`super::check`]): canary namespaces and their codes,
//! the checks that the two versions of an instance are kept apart, that a reset empties
//! its own namespace and no other, and that concurrent calls stay apart; the
//! handshake's shape; and the outcome types they report.

use super::RemoteFactory;
use super::wire::{self, PROTOCOL_VERSION};
use crate::dataset::Version;
use crate::system::{
    AsyncMemorySystem, Namespace, Reply, SessionInfo, SystemFactory, SystemResult, TurnInput,
};
use serde_json::Value;
use std::time::{Duration, Instant};

/// The start of every canary namespace's instance id.
pub const CANARY_PREFIX: &str = "bemula-preflight-";

/// How many namespaces the concurrency check fills and asks at once.
pub const BURST_NAMESPACES: usize = 12;

/// How many facts each namespace of the concurrency check holds.
const BURST_FACTS: usize = 3;

/// A fresh nonce: eight hex digits from the clock and the process id.
pub(crate) fn nonce() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mixed = (nanos as u64) ^ (u64::from(std::process::id()) << 32) ^ (nanos >> 64) as u64;
    format!("{:08x}", (mixed ^ (mixed >> 29)) as u32)
}

/// The canary namespaces and tokens of one preflight (or one `check-adapter` run).
#[derive(Debug, Clone)]
pub(crate) struct Canary {
    nonce: String,
    /// The codes, by group then item: `zq<nonce>` and a tail of [`TAIL_LEN`] letters
    /// and digits, any two tails differing in at least [`MIN_DISTANCE`] places.
    tokens: Vec<Vec<String>>,
}

/// Length of the part of a canary code that tells codes apart.
const TAIL_LEN: usize = 8;

/// The fewest places in which two codes of a canary differ: a code copied with up to
/// [`COPY_SLIPS`] wrong characters (as a small model copies) is still nearer its own
/// code than any other.
const MIN_DISTANCE: usize = 2 * COPY_SLIPS + 2;

/// Wrong characters tolerated in a copied code.
const COPY_SLIPS: usize = 2;

/// Groups of codes: group 0 for the versions check, one per burst namespace after it.
const GROUPS: usize = BURST_NAMESPACES + 1;

/// Codes per group.
const ITEMS: usize = if BURST_FACTS > 2 { BURST_FACTS } else { 2 };

impl Canary {
    /// A canary with a fresh nonce.
    pub(crate) fn new() -> Canary {
        Canary::with_nonce(nonce())
    }

    fn with_nonce(nonce: String) -> Canary {
        use sha2::{Digest, Sha256};
        const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
        let mut tails: Vec<Vec<u8>> = Vec::with_capacity(GROUPS * ITEMS);
        let mut counter = 0u64;
        while tails.len() < GROUPS * ITEMS {
            let digest = Sha256::digest(format!("{nonce}/{counter}"));
            counter += 1;
            let tail: Vec<u8> = digest[..TAIL_LEN]
                .iter()
                .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()])
                .collect();
            if tails.iter().all(|t| distance(t, &tail) >= MIN_DISTANCE) {
                tails.push(tail);
            }
        }
        let tokens = tails
            .chunks(ITEMS)
            .map(|group| {
                group
                    .iter()
                    .map(|tail| format!("zq{nonce}{}", String::from_utf8_lossy(tail)))
                    .collect()
            })
            .collect();
        Canary { nonce, tokens }
    }

    /// The canary instance id for `tag` (a few lowercase letters or digits).
    fn instance(&self, tag: &str) -> String {
        format!("{CANARY_PREFIX}{}-{tag}", self.nonce)
    }

    /// The namespace of one version of the canary instance `tag`.
    fn namespace(&self, tag: &str, version: Version) -> Namespace {
        Namespace::new(&self.instance(tag), version)
    }

    /// A distinctive code: all have the same length, so none is a prefix of another,
    /// and any two differ in many places.
    fn token(&self, group: usize, item: usize) -> String {
        self.tokens[group][item].clone()
    }

    /// What every token of this canary starts with.
    fn token_prefix(&self) -> String {
        format!("zq{}", self.nonce)
    }

    /// The codes of this canary found in `reply` (exact or copied with a few slips),
    /// each as the code it was given as: `(group, item)`. A code-shaped word near no
    /// code given is not one: a wrong answer, never another namespace's fact. The reply
    /// is read as the rule judge reads answers: invisible characters removed,
    /// compatibility forms (fullwidth letters) made plain, case ignored.
    fn found(&self, reply: &str) -> Vec<(usize, usize)> {
        let reply = crate::text::fold::fold(reply).to_lowercase();
        let reply = reply.as_str();
        let prefix = self.token_prefix();
        let mut out = Vec::new();
        for (at, _) in reply.match_indices(&prefix) {
            let tail: Vec<u8> = reply.as_bytes()[at + prefix.len()..]
                .iter()
                .take(TAIL_LEN)
                .copied()
                .collect();
            if tail.len() < TAIL_LEN {
                continue;
            }
            let nearest = self
                .tokens
                .iter()
                .enumerate()
                .flat_map(|(g, group)| group.iter().enumerate().map(move |(i, t)| (g, i, t)))
                .map(|(g, i, t)| (distance(&t.as_bytes()[prefix.len()..], &tail), g, i))
                .min();
            if let Some((d, g, i)) = nearest
                && d <= COPY_SLIPS
            {
                out.push((g, i));
            }
        }
        out
    }

    /// Whether `reply` holds the code `(group, item)`, exactly or copied with a slip.
    fn holds(&self, reply: &str, group: usize, item: usize) -> bool {
        self.found(reply).contains(&(group, item))
    }
}

/// The number of places in which two equally long byte strings differ.
fn distance(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len())
}

/// The locker fact used throughout: a distinctive code per locker number.
pub(crate) fn locker_fact(locker: usize, code: &str) -> String {
    format!("The code of locker number {locker} is {code}.")
}

/// The question whose answer is [`locker_fact`]'s code.
pub(crate) fn locker_question(locker: usize) -> String {
    format!("What is the code of locker number {locker}?")
}

/// A namespace's system with the namespace it belongs to.
pub(crate) struct Probe {
    pub(crate) ns: Namespace,
    pub(crate) system: Box<dyn AsyncMemorySystem>,
}

impl Probe {
    /// A system of `factory` for `ns`.
    pub(crate) async fn new(factory: &dyn SystemFactory, ns: Namespace) -> SystemResult<Probe> {
        let system = factory.make(&ns).await?;
        Ok(Probe { ns, system })
    }

    /// Resets the namespace.
    pub(crate) async fn reset(&mut self) -> Result<(), String> {
        self.system
            .reset(&self.ns)
            .await
            .map_err(|e| format!("reset in `{}`: {e}", self.ns))
    }

    /// Resets, then [`fill`](Probe::fill)s.
    pub(crate) async fn ingest(&mut self, utterances: &[String]) -> Result<Duration, String> {
        self.reset().await?;
        self.fill(utterances).await
    }

    /// Observes the utterances as one session, then flushes; returns how long the
    /// flush took.
    pub(crate) async fn fill(&mut self, utterances: &[String]) -> Result<Duration, String> {
        let ns = &self.ns;
        let step = |what: &str, e: crate::system::SystemError| format!("{what} in `{ns}`: {e}");
        let session = SessionInfo {
            id: "check-session".into(),
            date: "2024-01-01".into(),
        };
        self.system
            .start_session(ns, &session)
            .await
            .map_err(|e| step("start_session", e))?;
        for (index, user) in utterances.iter().enumerate() {
            let turn = TurnInput {
                index,
                user: user.clone(),
                assistant: "Noted.".into(),
            };
            self.system
                .observe(ns, &turn)
                .await
                .map_err(|e| step("observe", e))?;
        }
        self.system
            .end_session(ns)
            .await
            .map_err(|e| step("end_session", e))?;
        let started = Instant::now();
        self.system.flush(ns).await.map_err(|e| step("flush", e))?;
        Ok(started.elapsed())
    }

    /// The reply to a question as one text (memories joined by newlines).
    pub(crate) async fn ask(&mut self, question: &str) -> Result<String, String> {
        match self.system.query(&self.ns, question).await {
            Ok(Reply::Answer(answer)) => Ok(answer),
            Ok(Reply::Memories(memories)) => Ok(memories
                .iter()
                .map(|m| m.text.as_str())
                .collect::<Vec<_>>()
                .join("\n")),
            Err(e) => Err(format!("query in `{}`: {e}", self.ns)),
        }
    }
}

/// The outcome of one preflight check.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// The property holds.
    Passed(String),
    /// The property does not hold: what was seen.
    Failed(String),
    /// The property could not be checked (the system did not recall a fact it had just
    /// observed): why.
    Inconclusive(String),
}

/// One named preflight check and its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The property checked.
    pub name: &'static str,
    /// What came of it.
    pub outcome: Outcome,
}

impl Finding {
    /// The finding as a `check-adapter` check: an inconclusive one fails there.
    pub fn to_check(&self) -> Check {
        match &self.outcome {
            Outcome::Passed(detail) => Check::pass(self.name, detail.clone()),
            Outcome::Failed(detail) => Check::fail(self.name, detail.clone()),
            Outcome::Inconclusive(detail) => {
                Check::fail(self.name, format!("cannot check: {detail}"))
            }
        }
    }
}

/// Name of the cross-version check.
pub const VERSIONS_APART: &str = "the two versions of an instance are kept apart";
/// Name of the reset-scope check.
pub const RESET_SCOPE: &str = "reset empties its own namespace and no other";
/// Name of the concurrency check.
pub const CONCURRENT_APART: &str = "concurrent calls across namespaces stay apart";

fn short(text: &str) -> String {
    format!("{:?}", wire::shorten(text, 200))
}

/// The versions of one canary instance: a fact in each, each version must return only
/// its own; then resetting `…/forget` must empty it and leave `…/control` whole.
/// Returns the findings [`VERSIONS_APART`] and [`RESET_SCOPE`], and whether the system
/// recalled what it observed (so later checks can count on it).
pub(crate) async fn check_versions(
    factory: &dyn SystemFactory,
    canary: &Canary,
) -> (Vec<Finding>, bool) {
    let forget_ns = canary.namespace("v", Version::Forget);
    let control_ns = canary.namespace("v", Version::Control);
    let (token_f, token_c) = (canary.token(0, 0), canary.token(0, 1));
    let question = locker_question(7);
    let finding = |name, outcome| Finding { name, outcome };
    let made = async {
        Ok::<_, crate::system::SystemError>((
            Probe::new(factory, forget_ns).await?,
            Probe::new(factory, control_ns).await?,
        ))
    };
    let (mut forget_probe, mut control_probe) = match made.await {
        Ok(pair) => pair,
        Err(e) => {
            let outcome = Outcome::Failed(format!("make: {e}"));
            return (
                vec![
                    finding(VERSIONS_APART, outcome.clone()),
                    finding(RESET_SCOPE, outcome),
                ],
                false,
            );
        }
    };
    let (forget, control) = (&mut forget_probe, &mut control_probe);
    let result: Result<(Outcome, bool), String> = async {
        // Both resets come first, so that a reset wiping everything shows up below as
        // what it is, not as a fact lost between the two fills.
        forget.reset().await?;
        control.reset().await?;
        let shared = "My trainer at the new gym downtown is called Ines.".to_string();
        forget
            .fill(&[shared.clone(), locker_fact(7, &token_f)])
            .await?;
        control.fill(&[shared, locker_fact(7, &token_c)]).await?;
        let in_forget = forget.ask(&question).await?;
        let in_control = control.ask(&question).await?;
        for (probe, reply, other, other_ns) in [
            (&*forget, &in_forget, 1, &control.ns),
            (&*control, &in_control, 0, &forget.ns),
        ] {
            if canary.holds(reply, 0, other) {
                return Ok((
                    Outcome::Failed(format!(
                        "a fact observed only in `{other_ns}` came back in `{}`: asked \
                         {question:?}, got {}",
                        probe.ns,
                        short(reply)
                    )),
                    true,
                ));
            }
        }
        for (probe, reply, own, item) in [
            (&*forget, &in_forget, &token_f, 0),
            (&*control, &in_control, &token_c, 1),
        ] {
            if !canary.holds(reply, 0, item) {
                return Ok((
                    Outcome::Inconclusive(format!(
                        "`{}` did not recall a fact it had just observed ({:?}): asked \
                         {question:?}, got {}",
                        probe.ns,
                        locker_fact(7, own),
                        short(reply)
                    )),
                    false,
                ));
            }
        }
        Ok((
            Outcome::Passed("each version returned only its own fact".into()),
            true,
        ))
    }
    .await;
    let (versions, recalls) = match result {
        Ok(pair) => pair,
        Err(e) => (Outcome::Failed(e), false),
    };
    let scope = match &versions {
        Outcome::Passed(_) => reset_scope(forget, control, &question, canary)
            .await
            .unwrap_or_else(Outcome::Failed),
        Outcome::Failed(_) => Outcome::Inconclusive(format!("needs `{VERSIONS_APART}` to hold")),
        Outcome::Inconclusive(why) => Outcome::Inconclusive(why.clone()),
    };
    let _ = forget.reset().await;
    let _ = control.reset().await;
    (
        vec![
            finding(VERSIONS_APART, versions),
            finding(RESET_SCOPE, scope),
        ],
        recalls,
    )
}

/// After both versions returned their own facts: reset `…/forget`, then it must be
/// empty and `…/control` whole.
async fn reset_scope(
    forget: &mut Probe,
    control: &mut Probe,
    question: &str,
    canary: &Canary,
) -> Result<Outcome, String> {
    forget.reset().await?;
    let in_control = control.ask(question).await?;
    if !canary.holds(&in_control, 0, 1) {
        return Ok(Outcome::Failed(format!(
            "resetting `{}` emptied `{}` too (a reset must empty its own namespace only): \
             asked {question:?}, got {}",
            forget.ns,
            control.ns,
            short(&in_control)
        )));
    }
    let in_forget = forget.ask(question).await?;
    if canary.holds(&in_forget, 0, 0) {
        return Ok(Outcome::Failed(format!(
            "after its reset, `{}` still returned its fact: asked {question:?}, got {}",
            forget.ns,
            short(&in_forget)
        )));
    }
    Ok(Outcome::Passed(format!(
        "resetting `{}` emptied it and left `{}` whole",
        forget.ns, control.ns
    )))
}

/// What one namespace of the burst saw: per question, the reply.
type BurstResult = Result<Vec<String>, String>;

/// [`BURST_NAMESPACES`] namespaces (both versions of half as many canary instances)
/// filled and asked at once, at most `parallel` of them in flight; each must recall its
/// own facts (when `recalls`: the system recalled facts in [`check_versions`]) and none
/// of another's.
pub(crate) async fn check_concurrency(
    factory: &dyn SystemFactory,
    canary: &Canary,
    recalls: bool,
    parallel: usize,
) -> Finding {
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(parallel.max(1)));
    let finding = |outcome| Finding {
        name: CONCURRENT_APART,
        outcome,
    };
    let mut probes = Vec::with_capacity(BURST_NAMESPACES);
    for group in 0..BURST_NAMESPACES {
        let version = if group % 2 == 0 {
            Version::Forget
        } else {
            Version::Control
        };
        let ns = canary.namespace(&format!("c{:02}", group / 2), version);
        match Probe::new(factory, ns).await {
            Ok(probe) => probes.push(probe),
            Err(e) => return finding(Outcome::Failed(format!("make: {e}"))),
        }
    }
    // Every namespace holds the same lockers with its own codes: a mixed-up store
    // answers with another namespace's code. All are filled at once, then all asked at
    // once, so every namespace exists while the others are served.
    let mut tasks = tokio::task::JoinSet::new();
    for (group, mut probe) in probes.into_iter().enumerate() {
        let facts: Vec<String> = (0..BURST_FACTS)
            .map(|item| locker_fact(40 + item, &canary.token(group + 1, item)))
            .collect();
        let permits = permits.clone();
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let result = probe.ingest(&facts).await.map(drop);
            (group, probe, result)
        });
    }
    let mut filled = Vec::with_capacity(BURST_NAMESPACES);
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(done) => filled.push(done),
            Err(e) => return finding(Outcome::Failed(format!("a concurrent task failed: {e}"))),
        }
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (group, mut probe, filled) in filled {
        let permits = permits.clone();
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let result: BurstResult = async {
                filled?;
                let mut replies = Vec::with_capacity(BURST_FACTS);
                for item in 0..BURST_FACTS {
                    replies.push(probe.ask(&locker_question(40 + item)).await?);
                }
                Ok(replies)
            }
            .await;
            (group, probe, result)
        });
    }
    let mut results: Vec<(usize, Probe, BurstResult)> = Vec::with_capacity(BURST_NAMESPACES);
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(done) => results.push(done),
            Err(e) => return finding(Outcome::Failed(format!("a concurrent task failed: {e}"))),
        }
    }
    results.sort_by_key(|(group, _, _)| *group);
    let mut outcome = None;
    for (group, probe, result) in &results {
        let replies = match result {
            Ok(replies) => replies,
            Err(e) => {
                outcome = Some(Outcome::Failed(format!(
                    "a call failed while {BURST_NAMESPACES} namespaces were served at once: {e}"
                )));
                break;
            }
        };
        for (item, reply) in replies.iter().enumerate() {
            let own = canary.token(group + 1, item);
            // Only a code given to another namespace is its fact; a code-shaped word
            // near no code given (a model's slip) is a wrong answer.
            let foreign = canary
                .found(reply)
                .into_iter()
                .find(|(g, _)| *g != group + 1);
            if let Some((g, _)) = foreign {
                let from = results
                    .iter()
                    .find(|(other, _, _)| other + 1 == g)
                    .map_or_else(
                        || "another namespace".to_string(),
                        |(_, p, _)| format!("`{}`", p.ns),
                    );
                outcome = Some(Outcome::Failed(format!(
                    "with {BURST_NAMESPACES} namespaces served at once, `{}` returned a fact \
                     observed only in {from} (is the adapter safe under concurrent calls?): \
                     asked {:?}, got {}",
                    probe.ns,
                    locker_question(40 + item),
                    short(reply)
                )));
                break;
            }
            if recalls && !canary.holds(reply, group + 1, item) {
                outcome = Some(Outcome::Failed(format!(
                    "with {BURST_NAMESPACES} namespaces served at once, `{}` lost its own fact \
                     {:?} (recalled when served alone; is the adapter safe under concurrent \
                     calls?): asked {:?}, got {}",
                    probe.ns,
                    locker_fact(40 + item, &own),
                    locker_question(40 + item),
                    short(reply)
                )));
                break;
            }
        }
        if outcome.is_some() {
            break;
        }
    }
    for (_, probe, _) in results.iter_mut() {
        let _ = probe.reset().await;
    }
    finding(outcome.unwrap_or_else(|| {
        Outcome::Passed(format!(
            "{BURST_NAMESPACES} namespaces served at once each returned only {}",
            if recalls {
                "and all of its own facts"
            } else {
                "its own facts (none recalled: loss is not checked)"
            }
        ))
    }))
}

/// How many namespaces of the concurrency check are in flight at once: all of them,
/// unless the adapter's handshake declared a lower `max_concurrency` (the runner keeps
/// to it too).
pub(crate) fn burst_width(factory: &RemoteFactory) -> usize {
    factory
        .max_concurrency()
        .map_or(BURST_NAMESPACES, |n| n.min(BURST_NAMESPACES))
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// What was checked.
    pub name: &'static str,
    /// Whether it passed.
    pub passed: bool,
    /// What was seen (on failure: what is wrong).
    pub detail: String,
}

impl Check {
    pub(crate) fn pass(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            passed: true,
            detail: detail.into(),
        }
    }

    pub(crate) fn fail(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            passed: false,
            detail: detail.into(),
        }
    }

    pub(crate) fn from_result(name: &'static str, result: Result<String, String>) -> Check {
        match result {
            Ok(detail) => Check::pass(name, detail),
            Err(detail) => Check::fail(name, detail),
        }
    }
}

/// The handshake result's shape.
pub fn check_handshake(raw: &Value) -> Check {
    let name = "handshake is well-formed";
    let mut problems = Vec::new();
    match raw.get("protocol").and_then(Value::as_str) {
        Some(PROTOCOL_VERSION) => {}
        Some(other) => problems.push(format!(
            "protocol is `{other}`, expected `{PROTOCOL_VERSION}`"
        )),
        None => problems.push("no `protocol` string".to_string()),
    }
    match raw.get("name").and_then(Value::as_str) {
        Some(name) if !name.trim().is_empty() => {}
        _ => problems.push("no non-empty `name` string".to_string()),
    }
    if !matches!(
        raw.get("version"),
        None | Some(Value::Null | Value::String(_))
    ) {
        problems.push("`version` must be a string or null".to_string());
    }
    if !matches!(raw.get("settings"), None | Some(Value::Object(_))) {
        problems.push("`settings` must be an object".to_string());
    }
    match raw.get("capabilities") {
        Some(Value::Object(caps)) => {
            match caps.get("query").and_then(Value::as_str) {
                Some("answer" | "memories" | "both") => {}
                _ => problems.push(
                    "`capabilities.query` must be \"answer\", \"memories\" or \"both\"".to_string(),
                ),
            }
            for key in ["flush", "sessions"] {
                if !caps.get(key).is_some_and(Value::is_boolean) {
                    problems.push(format!("`capabilities.{key}` must be a boolean"));
                }
            }
        }
        _ => problems.push("no `capabilities` object".to_string()),
    }
    if problems.is_empty() {
        Check::pass(
            name,
            format!(
                "{} {} ({})",
                raw["name"].as_str().unwrap_or_default(),
                raw.get("version")
                    .and_then(Value::as_str)
                    .unwrap_or("(no version)"),
                raw["capabilities"]
            ),
        )
    } else {
        Check::fail(name, problems.join("; "))
    }
}

#[cfg(test)]
mod tests;
