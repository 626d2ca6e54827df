use super::*;
use crate::system::builtin;

#[test]
fn canary_namespaces_have_the_runners_shape_and_a_reserved_instance() {
    let canary = Canary::new();
    let ns = canary.namespace("v", Version::Forget);
    let (instance, version) = ns.0.rsplit_once('/').unwrap();
    assert!(instance.starts_with(CANARY_PREFIX), "{ns}");
    assert_eq!(version, "forget");
    assert!(!instance.contains('/'), "one slash, as the runner's: {ns}");
    let tokens: Vec<String> = (0..3)
        .flat_map(|g| (0..3).map(move |i| (g, i)))
        .map(|(g, i)| canary.token(g, i))
        .collect();
    for a in &tokens {
        assert!(a.starts_with(&canary.token_prefix()));
        for b in &tokens {
            assert!(a == b || !a.starts_with(b.as_str()), "{a} {b}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correct_system_passes_every_check() {
    let factory = builtin::factory("naive-rag").unwrap();
    let canary = Canary::new();
    let (findings, recalls) = check_versions(factory.as_ref(), &canary).await;
    assert!(recalls, "{findings:?}");
    for f in &findings {
        assert!(matches!(f.outcome, Outcome::Passed(_)), "{f:?}");
    }
    let burst = check_concurrency(factory.as_ref(), &canary, recalls, BURST_NAMESPACES).await;
    assert!(matches!(burst.outcome, Outcome::Passed(_)), "{burst:?}");
}

/// A store shared by every system of a factory, keyed by `key(namespace)`; `reset`
/// clears the whole store when `global`.
#[derive(Clone)]
struct Shared {
    store: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<String>>>>,
    key: fn(&Namespace) -> String,
    global: bool,
}

impl crate::system::MemorySystem for Shared {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        let mut store = self.store.lock().unwrap();
        if self.global {
            store.clear();
        }
        store.insert((self.key)(ns), Vec::new());
        Ok(())
    }
    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        let mut store = self.store.lock().unwrap();
        store
            .entry((self.key)(ns))
            .or_default()
            .push(turn.user.clone());
        Ok(())
    }
    fn query(&mut self, ns: &Namespace, _: &str) -> SystemResult<Reply> {
        let store = self.store.lock().unwrap();
        let texts = store.get(&(self.key)(ns)).cloned().unwrap_or_default();
        Ok(Reply::Answer(texts.join(" ")))
    }
}

fn shared(key: fn(&Namespace) -> String, global: bool) -> impl SystemFactory {
    let system = Shared {
        store: Default::default(),
        key,
        global,
    };
    crate::system::FnFactory::new("shared", move || system.clone())
}

fn whole(ns: &Namespace) -> String {
    ns.0.clone()
}

fn instance_only(ns: &Namespace) -> String {
    ns.0.rsplit_once('/')
        .map_or(ns.0.clone(), |(i, _)| i.to_string())
}

fn outcome_of<'a>(findings: &'a [Finding], name: &str) -> &'a Outcome {
    &findings.iter().find(|f| f.name == name).unwrap().outcome
}

#[tokio::test]
async fn one_store_per_namespace_in_a_shared_process_passes() {
    let factory = shared(whole, false);
    let canary = Canary::new();
    let (findings, recalls) = check_versions(&factory, &canary).await;
    assert!(recalls);
    assert!(matches!(
        outcome_of(&findings, RESET_SCOPE),
        Outcome::Passed(_)
    ));
    let burst = check_concurrency(&factory, &canary, recalls, BURST_NAMESPACES).await;
    assert!(matches!(burst.outcome, Outcome::Passed(_)), "{burst:?}");
}

#[tokio::test]
async fn a_store_keyed_by_the_instance_alone_fails_the_versions_check() {
    let factory = shared(instance_only, false);
    let canary = Canary::new();
    let (findings, _) = check_versions(&factory, &canary).await;
    match outcome_of(&findings, VERSIONS_APART) {
        Outcome::Failed(seen) => assert!(seen.contains("/control` came back in"), "{seen}"),
        other => panic!("{other:?}"),
    }
    let burst = check_concurrency(&factory, &canary, true, BURST_NAMESPACES).await;
    assert!(matches!(burst.outcome, Outcome::Failed(_)), "{burst:?}");
}

#[tokio::test]
async fn a_reset_of_everything_fails_the_reset_scope_check() {
    let factory = shared(whole, true);
    let canary = Canary::new();
    let (findings, _) = check_versions(&factory, &canary).await;
    assert!(matches!(
        outcome_of(&findings, VERSIONS_APART),
        Outcome::Passed(_)
    ));
    match outcome_of(&findings, RESET_SCOPE) {
        Outcome::Failed(seen) => assert!(seen.contains("control` too"), "{seen}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_system_that_recalls_nothing_is_inconclusive_not_failed() {
    let factory = builtin::factory("null").unwrap();
    let canary = Canary::new();
    let (findings, recalls) = check_versions(factory.as_ref(), &canary).await;
    assert!(!recalls);
    for f in &findings {
        assert!(matches!(f.outcome, Outcome::Inconclusive(_)), "{f:?}");
    }
    let burst = check_concurrency(factory.as_ref(), &canary, recalls, BURST_NAMESPACES).await;
    assert!(matches!(burst.outcome, Outcome::Passed(_)), "{burst:?}");
}

/// A correct memory whose answers copy codes as a small model does: the last two
/// characters of every code it returns are wrong (`…g02i02` as `…g02i17`).
#[derive(Clone, Default)]
struct Sloppy {
    store: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Vec<String>>>>,
}

impl crate::system::MemorySystem for Sloppy {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.store.lock().unwrap().insert(ns.0.clone(), Vec::new());
        Ok(())
    }
    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        let mut store = self.store.lock().unwrap();
        store
            .entry(ns.0.clone())
            .or_default()
            .push(turn.user.clone());
        Ok(())
    }
    fn query(&mut self, ns: &Namespace, _: &str) -> SystemResult<Reply> {
        let store = self.store.lock().unwrap();
        let text = store.get(&ns.0).cloned().unwrap_or_default().join(" ");
        // Every word that looks like a code: its last two characters swapped for
        // others.
        let words: Vec<String> = text
            .split(' ')
            .map(|w| match w.strip_prefix("zq") {
                Some(_) if w.len() > 4 => {
                    let cut = w.trim_end_matches('.');
                    let keep = &cut[..cut.len() - 2];
                    let slipped: String = cut[cut.len() - 2..]
                        .chars()
                        .map(|c| if c == '7' { '3' } else { '7' })
                        .collect();
                    format!("{keep}{slipped}{}", &w[cut.len()..])
                }
                _ => w.to_string(),
            })
            .collect();
        Ok(Reply::Answer(words.join(" ")))
    }
}

#[test]
fn codes_differ_in_many_places_and_a_slip_is_read_as_the_code_it_copies() {
    let canary = Canary::new();
    let all: Vec<String> = canary.tokens.iter().flatten().cloned().collect();
    assert_eq!(all.len(), GROUPS * ITEMS);
    for (n, a) in all.iter().enumerate() {
        for b in &all[n + 1..] {
            assert!(
                distance(a.as_bytes(), b.as_bytes()) >= MIN_DISTANCE,
                "{a} {b}"
            );
        }
    }
    let code = canary.token(3, 1);
    let mut slipped = code.clone().into_bytes();
    let n = slipped.len();
    slipped[n - 1] = if slipped[n - 1] == b'x' { b'y' } else { b'x' };
    slipped[n - 4] = if slipped[n - 4] == b'x' { b'y' } else { b'x' };
    let slipped = String::from_utf8(slipped).unwrap();
    assert_eq!(canary.found(&format!("It is {slipped}.")), vec![(3, 1)]);
    assert!(canary.holds(&format!("code {code}"), 3, 1));
    // A code-shaped word near no code given is no code at all.
    let unknown = format!("{}abcdefgh", canary.token_prefix());
    let far = all
        .iter()
        .all(|t| distance(t.as_bytes(), unknown.as_bytes()) > COPY_SLIPS);
    assert!(!far || canary.found(&unknown).is_empty());
}

/// A code written with invisible characters inside it, in capitals or in
/// fullwidth letters is still the code: a system that recalls its own fact in such
/// a form has not lost it, and one that shows another namespace's code so has
/// leaked it.
#[test]
fn a_code_hidden_by_invisible_characters_or_another_form_is_still_found() {
    let canary = Canary::new();
    let code = canary.token(2, 0);
    let split = code.len() - 6;
    let hidden = format!("{}\u{200B}{}", &code[..split], &code[split..]);
    assert_eq!(canary.found(&format!("It was {hidden}.")), vec![(2, 0)]);
    let soft = format!("{}\u{00AD}{}", &code[..3], &code[3..]);
    assert!(canary.holds(&soft, 2, 0));
    assert!(canary.holds(&code.to_uppercase(), 2, 0));
    let wide: String = code
        .chars()
        .map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap())
        .collect();
    assert!(canary.holds(&format!("code: {wide}"), 2, 0), "{wide}");
}

#[tokio::test]
async fn a_system_that_copies_codes_with_slips_passes_and_is_not_called_a_leak() {
    let factory = crate::system::FnFactory::new("sloppy", Sloppy::default);
    let canary = Canary::new();
    let (findings, recalls) = check_versions(&factory, &canary).await;
    assert!(recalls, "{findings:?}");
    for f in &findings {
        assert!(matches!(f.outcome, Outcome::Passed(_)), "{f:?}");
    }
    let burst = check_concurrency(&factory, &canary, recalls, BURST_NAMESPACES).await;
    assert!(matches!(burst.outcome, Outcome::Passed(_)), "{burst:?}");
}
