//! The adapter self-test behind `bemula check-adapter`: a short series of protocol
//! checks against a connected adapter, each passing or failing with what is wrong.
//!
//! Beyond the wire format, it checks the two properties a forgetting benchmark depends
//! on: namespaces are kept apart, and `reset` empties its namespace completely (past 100
//! memories, where one Mem0 release stopped deleting) and no other (a bulk delete once
//! wiped every user's store). It also runs the checks of the [preflight](super::preflight):
//! the two versions of one instance kept apart, and many namespaces served at once
//! without mixing them up.

use super::RemoteFactory;
use super::probe::{self, Canary, Probe, locker_fact, locker_question};
pub use super::probe::{Check, check_handshake};
use super::wire::{self, code, method};
use crate::system::Namespace;
use serde_json::json;

/// How many turns are observed before the reset check (more than 100 on purpose).
pub const RESET_TURNS: usize = 120;

/// Runs every check against `factory` and returns them in order. Leaves the namespaces
/// it used reset.
pub async fn run_checks(factory: &RemoteFactory) -> Vec<Check> {
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos() % 10_000);
    let token = |tag: &str, i: usize| format!("zq{nonce:04}{tag}{i:03}");
    let mut checks = vec![check_handshake(factory.raw_handshake())];

    let probe = |tag: &str| {
        let ns = Namespace(format!("bemula-check-{nonce}-{tag}/forget"));
        Probe::new(factory, ns)
    };
    let mut a = probe("a").await;
    let mut b = probe("b").await;
    let mut c = probe("c").await;
    let (token_a, token_b) = (token("a", 7), token("b", 7));
    let question = locker_question(7);

    // observe + flush + query in one namespace
    let name = "observe, flush and query work in a namespace";
    let a_ok = match &mut a {
        Ok(a) => {
            let utterances = vec![
                "I just moved to a new gym downtown.".to_string(),
                locker_fact(7, &token_a),
                "My trainer there is called Ines.".to_string(),
            ];
            let result = async {
                a.ingest(&utterances).await?;
                let reply = a.ask(&question).await?;
                if reply.contains(&token_a) {
                    Ok(format!("the observed fact came back ({})", wire::shorten(&reply, 80)))
                } else {
                    Err(format!(
                        "asked {question:?} after observing {:?}; the reply lacks `{token_a}`: {:?}",
                        locker_fact(7, &token_a),
                        wire::shorten(&reply, 200)
                    ))
                }
            }
            .await;
            let ok = result.is_ok();
            checks.push(Check::from_result(name, result));
            ok
        }
        Err(e) => {
            checks.push(Check::fail(name, format!("make: {e}")));
            false
        }
    };

    // namespaces apart
    let name = "namespaces are kept apart";
    let mut b_filled = false;
    let result = match (&mut a, &mut b) {
        (Ok(a), Ok(b)) if a_ok => {
            async {
                b.ingest(&[locker_fact(7, &token_b)]).await?;
                b_filled = true;
                let in_b = b.ask(&question).await?;
                let in_a = a.ask(&question).await?;
                if in_b.contains(&token_a) {
                    Err(format!(
                        "a fact observed in `{}` came back in `{}`: {:?}",
                        a.ns,
                        b.ns,
                        wire::shorten(&in_b, 200)
                    ))
                } else if in_a.contains(&token_b) {
                    Err(format!(
                        "a fact observed in `{}` came back in `{}`: {:?}",
                        b.ns,
                        a.ns,
                        wire::shorten(&in_a, 200)
                    ))
                } else if !in_a.contains(&token_a) {
                    Err(format!(
                        "`{}` lost its own fact once `{}` was reset and filled (does reset \
                         wipe other namespaces?): {:?}",
                        a.ns,
                        b.ns,
                        wire::shorten(&in_a, 200)
                    ))
                } else if !in_b.contains(&token_b) {
                    Err(format!(
                        "`{}` did not return its own fact: {:?}",
                        b.ns,
                        wire::shorten(&in_b, 200)
                    ))
                } else {
                    Ok("each namespace returned only its own fact".to_string())
                }
            }
            .await
        }
        (Err(e), _) | (_, Err(e)) => Err(format!("make: {e}")),
        _ => Err("skipped: the single-namespace check failed".into()),
    };
    checks.push(Check::from_result(name, result));

    // reset empties its namespace, past 100 memories; flush in time
    let reset_name = "reset empties its namespace (after 120 memories)";
    let flush_name = "flush returns within the timeout";
    match &mut c {
        Ok(c) => {
            let facts: Vec<String> = (0..RESET_TURNS)
                .map(|i| locker_fact(i, &token("c", i)))
                .collect();
            match c.ingest(&facts).await {
                Ok(flushed) => {
                    checks.push(Check::pass(
                        flush_name,
                        format!(
                            "flush after {RESET_TURNS} observes took {:.0} ms",
                            flushed.as_secs_f64() * 1000.0
                        ),
                    ));
                    checks.push(Check::from_result(reset_name, check_reset(c, &token).await));
                }
                Err(e) => {
                    let flush_failed = e.starts_with("flush");
                    checks.push(Check {
                        name: flush_name,
                        passed: !flush_failed,
                        detail: if flush_failed {
                            e.clone()
                        } else {
                            "not reached".into()
                        },
                    });
                    checks.push(Check::fail(reset_name, e));
                }
            }
        }
        Err(e) => {
            checks.push(Check::fail(flush_name, format!("make: {e}")));
            checks.push(Check::fail(reset_name, format!("make: {e}")));
        }
    }

    // reset leaves other namespaces alone
    let name = "reset leaves other namespaces alone";
    let result = match (&mut a, &mut b) {
        (Ok(a), Ok(b)) if b_filled => {
            async {
                for (probe, own) in [(a, &token_a), (b, &token_b)] {
                    let reply = probe.ask(&question).await?;
                    if !reply.contains(own.as_str()) {
                        return Err(format!(
                            "resetting another namespace emptied `{}` too: asked {question:?}, \
                             got {:?}",
                            probe.ns,
                            wire::shorten(&reply, 200)
                        ));
                    }
                }
                Ok("the other namespaces kept their facts".to_string())
            }
            .await
        }
        (Err(e), _) | (_, Err(e)) => Err(format!("make: {e}")),
        _ => Err("skipped: the namespaces could not be filled".into()),
    };
    checks.push(Check::from_result(name, result));

    // the two versions of one instance, and many namespaces at once
    let canary = Canary::new();
    let (versions, recalls) = probe::check_versions(factory, &canary).await;
    checks.extend(versions.iter().map(|f| f.to_check()));
    checks.push(
        probe::check_concurrency(factory, &canary, recalls, probe::burst_width(factory))
            .await
            .to_check(),
    );

    checks.push(check_unknown_method(factory).await);
    checks.push(check_malformed_params(factory).await);

    for probe in [a, b, c].into_iter().flatten() {
        let mut probe = probe;
        let _ = probe.system.reset(&probe.ns).await;
    }
    checks
}

/// After ingesting the locker facts: they are retrievable, then a reset removes them all.
async fn check_reset(
    c: &mut Probe,
    token: &impl Fn(&str, usize) -> String,
) -> Result<String, String> {
    let sample = [0, 1, 50, 99, 100, 101, 110, RESET_TURNS - 1];
    let before = c.ask(&locker_question(110)).await?;
    if !before.contains(&token("c", 110)) {
        return Err(format!(
            "cannot judge: before the reset, {:?} did not return `{}`: {:?}",
            locker_question(110),
            token("c", 110),
            wire::shorten(&before, 200)
        ));
    }
    c.system
        .reset(&c.ns)
        .await
        .map_err(|e| format!("reset in `{}`: {e}", c.ns))?;
    let prefix = token("c", 0);
    let prefix = &prefix[..prefix.len() - 3];
    for locker in sample {
        let reply = c.ask(&locker_question(locker)).await?;
        if reply.contains(prefix) {
            return Err(format!(
                "after reset, {:?} still returned stored facts: {:?}",
                locker_question(locker),
                wire::shorten(&reply, 200)
            ));
        }
    }
    Ok(format!(
        "none of lockers {sample:?} came back after the reset"
    ))
}

async fn check_unknown_method(factory: &RemoteFactory) -> Check {
    let name = "an unknown method gives error -32601";
    match factory.call("bemula_no_such_method", json!({})).await {
        Err(e) if e.code == Some(code::METHOD_NOT_FOUND) => Check::pass(name, e.message),
        Err(e) => Check::fail(
            name,
            match e.code {
                Some(c) => format!("got error code {c} instead of -32601: {}", e.message),
                None => format!("no well-formed JSON-RPC error: {e}"),
            },
        ),
        Ok(v) => Check::fail(name, format!("the call succeeded with {}", wire::brief(&v))),
    }
}

async fn check_malformed_params(factory: &RemoteFactory) -> Check {
    let name = "malformed params give a well-formed error";
    let params = json!({"namespace": "bemula-check/malformed", "turn": {"index": "zero"}});
    match factory.call(method::OBSERVE, params).await {
        Err(e) if e.code == Some(code::INVALID_PARAMS) => Check::pass(name, e.message),
        Err(e) => match e.code {
            Some(c) => Check::pass(
                name,
                format!("error code {c} (-32602 is the usual one): {}", e.message),
            ),
            None => Check::fail(name, format!("no well-formed JSON-RPC error: {e}")),
        },
        Ok(v) => Check::fail(
            name,
            format!(
                "observe with a non-numeric turn index succeeded with {}",
                wire::brief(&v)
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::remote::wire::PROTOCOL_VERSION;

    #[test]
    fn handshake_shape_is_checked() {
        let good = json!({"protocol": PROTOCOL_VERSION, "name": "x", "version": "1",
            "settings": {}, "capabilities": {"query": "both", "flush": true, "sessions": false}});
        assert!(check_handshake(&good).passed);
        let bad =
            json!({"protocol": "v0", "name": "", "capabilities": {"query": "all", "flush": 1}});
        let check = check_handshake(&bad);
        assert!(!check.passed);
        for needle in [
            "v0",
            "`name`",
            "capabilities.query",
            "capabilities.flush",
            "capabilities.sessions",
        ] {
            assert!(
                check.detail.contains(needle),
                "{needle} not in {}",
                check.detail
            );
        }
    }
}
