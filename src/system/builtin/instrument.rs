//! Measuring instruments: systems that read the dataset they are evaluated on, so a
//! run with one measures the data, the judge and the metrics rather than a memory.
//! Neither is a memory system anyone could deploy; reports label them as instruments
//! and `bemula run` leaves them out of its default table.
//!
//! - `oracle-forget`, the **positive control**: keeps every exchange, returns all of
//!   them for every question (so retrieval never loses a fact), and at each forget
//!   request exchange of the forget version drops exactly what the request names:
//!   every stored exchange whose `mentions` hold one of the request's targets, and the
//!   request exchange itself. An F6 request is the exception: what stays is one memory
//!   stating the new value (the gold of the request's efficacy question), and nothing
//!   else of the request exchange, which also restates the old value. Later exchanges that mention a
//!   forgotten target are not stored. With the oracle reader and the rule judge every
//!   request it fails is a defect of the data, the judge or the metrics. It cannot
//!   pass F4: the derived target is never stated, so the oracle reader cannot answer
//!   its control probes (see [`crate::oracle`]).
//! - `oracle-wipe`, the **degenerate control**: the same store, emptied completely at
//!   each request exchange of the forget version (the request exchange is not kept).
//!   It forgets everything it should and everything it should not, so its Score is
//!   near 0.
//!
//! Both find the request exchanges from the dataset (the session id and the turn's
//! index), never from the text of a turn. A namespace whose instance is not in the
//! dataset is an error of the call.

use super::{Clock, format_turn};
use crate::dataset::{Instance, RequestType, Version};
use crate::system::{
    AsyncMemorySystem, Memory, MemorySystem, Namespace, Reply, SessionInfo, SharedFactory,
    SystemError, SystemFactory, SystemInfo, SystemResult, TurnInput,
};
use async_trait::async_trait;
use serde_json::{Map, Value, json};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Names of the instrument systems.
pub const NAMES: [&str; 2] = ["oracle-forget", "oracle-wipe"];

/// What an instrument does at a request exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Drop what the request names.
    Forget,
    /// Drop everything.
    Wipe,
}

/// The factory of an instrument by name, reading `instances`; `None` for a name that
/// is not an instrument.
pub fn factory(name: &str, instances: &[Instance]) -> Option<SharedFactory> {
    let mode = match name {
        "oracle-forget" => Mode::Forget,
        "oracle-wipe" => Mode::Wipe,
        _ => return None,
    };
    let instances = instances
        .iter()
        .map(|i| (i.id.clone(), Arc::new(i.clone())))
        .collect();
    Some(Arc::new(InstrumentFactory {
        name: name.to_string(),
        mode,
        instances: Arc::new(instances),
    }))
}

/// Whether `name` is an instrument (or a report of one: the setting `instrument`).
pub fn is_instrument(name: &str) -> bool {
    NAMES.contains(&name)
}

struct InstrumentFactory {
    name: String,
    mode: Mode,
    instances: Arc<HashMap<String, Arc<Instance>>>,
}

#[async_trait]
impl SystemFactory for InstrumentFactory {
    async fn make(&self, ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        let _ = ns;
        Ok(Box::new(Instrument {
            mode: self.mode,
            instances: self.instances.clone(),
            spaces: HashMap::new(),
        }))
    }

    fn info(&self) -> SystemInfo {
        let settings = match self.mode {
            Mode::Forget => json!({
                "instrument": "positive control: reads the dataset",
                "deletion": "exactly the request's targets (turns mentioning them), at the request exchange; F6 keeps the new value",
                "stores": "turns",
                "retrieval": "all turns",
            }),
            Mode::Wipe => json!({
                "instrument": "degenerate control: reads the dataset",
                "deletion": "everything, at each request exchange",
                "stores": "turns",
                "retrieval": "all turns",
            }),
        };
        SystemInfo {
            name: self.name.clone(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            settings: match settings {
                Value::Object(map) => map,
                _ => Map::new(),
            },
        }
    }
}

/// One stored exchange and the facts it mentions.
#[derive(Debug, Clone)]
struct Kept {
    memory: Memory,
    mentions: Vec<String>,
}

/// The state of one namespace.
#[derive(Debug, Default)]
struct Space {
    clock: Clock,
    session: String,
    turns: Vec<Kept>,
    forgotten: BTreeSet<String>,
}

/// The memory an F6 request leaves: the fact's predicate with its new value, the gold
/// of the request's efficacy question. `None` when the data has no such question.
fn new_value_memory(
    instance: &Instance,
    request: &crate::dataset::ForgetRequest,
) -> Option<String> {
    let new = instance
        .questions
        .iter()
        .find(|q| {
            q.request.as_deref() == Some(request.id.as_str())
                && q.suite == crate::dataset::Suite::Efficacy
        })?
        .gold
        .trim()
        .trim_end_matches('.');
    let predicate = request
        .targets
        .first()
        .and_then(|t| instance.fact(t))
        .map(|f| f.predicate.as_str())
        .unwrap_or("detail");
    Some(format_turn(
        &format!("My {predicate} is {new} now."),
        "Noted.",
    ))
}

struct Instrument {
    mode: Mode,
    instances: Arc<HashMap<String, Arc<Instance>>>,
    spaces: HashMap<Namespace, Space>,
}

impl Instrument {
    /// The instance and version of a namespace `<instance>/<version>`.
    fn locate(&self, ns: &Namespace) -> SystemResult<(Arc<Instance>, Version)> {
        let (id, version) = ns.as_str().rsplit_once('/').ok_or_else(|| {
            SystemError::system(format!(
                "namespace {ns:?} is not <instance>/<version>: the instrument cannot find its instance"
            ))
        })?;
        let version = match version {
            "forget" => Version::Forget,
            "control" => Version::Control,
            other => {
                return Err(SystemError::system(format!(
                    "namespace {ns:?}: unknown version {other:?} (expected forget or control)"
                )));
            }
        };
        let instance = self.instances.get(id).cloned().ok_or_else(|| {
            SystemError::system(format!(
                "namespace {ns:?}: instance {id:?} is not in the dataset the instrument was made from"
            ))
        })?;
        Ok((instance, version))
    }
}

impl MemorySystem for Instrument {
    fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.locate(ns)?;
        self.spaces.remove(ns);
        Ok(())
    }

    fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        let space = self.spaces.entry(ns.clone()).or_default();
        space.clock.session(&session.date);
        space.session = session.id.clone();
        Ok(())
    }

    fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        let (instance, version) = self.locate(ns)?;
        let mode = self.mode;
        let space = self.spaces.entry(ns.clone()).or_default();
        let time = space.clock.tick();
        let memory = Memory {
            text: format_turn(&turn.user, &turn.assistant),
            time,
        };
        // The dataset's record of this exchange (none for a relearning dialogue).
        let stored = instance
            .sessions
            .iter()
            .find(|s| s.id == space.session)
            .and_then(|s| s.turns.get(turn.index));
        let mentions = stored.map(|t| t.mentions.clone()).unwrap_or_default();
        let request = (version == Version::Forget)
            .then(|| {
                instance
                    .requests
                    .iter()
                    .find(|r| r.position.session == space.session && r.position.turn == turn.index)
            })
            .flatten();
        if let Some(request) = request {
            match mode {
                Mode::Wipe => space.turns.clear(),
                Mode::Forget => {
                    let targets: BTreeSet<&String> = request.targets.iter().collect();
                    space
                        .turns
                        .retain(|k| !k.mentions.iter().any(|m| targets.contains(m)));
                    if request.kind == RequestType::F6 {
                        // The request exchange restates the old value too; what stays
                        // is the new value alone.
                        if let Some(text) = new_value_memory(&instance, request) {
                            space.turns.push(Kept {
                                memory: Memory {
                                    text,
                                    time: memory.time,
                                },
                                mentions: Vec::new(),
                            });
                        }
                    } else {
                        space.forgotten.extend(request.targets.iter().cloned());
                    }
                }
            }
            return Ok(());
        }
        if mentions.iter().any(|m| space.forgotten.contains(m)) {
            return Ok(());
        }
        space.turns.push(Kept { memory, mentions });
        Ok(())
    }

    fn query(&mut self, ns: &Namespace, _question: &str) -> SystemResult<Reply> {
        Ok(Reply::Memories(
            self.spaces
                .get(ns)
                .map(|s| s.turns.iter().map(|k| k.memory.clone()).collect())
                .unwrap_or_default(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written instance: two sessions, an F1 request (the allergy) and an F6
    /// request (the employer, whose request exchange restates the old value).
    fn instance() -> Instance {
        serde_json::from_value(json!({
            "id": "hand_001",
            "tier": "short",
            "profile": {"name": "Ada", "facts": [
                {"id": "f1", "subject": "user", "predicate": "allergy", "value": "penicillin",
                 "category": "health", "sensitivity": "high", "statement": "I am allergic to penicillin."},
                {"id": "f2", "subject": "user", "predicate": "employer", "value": "Acme Tools",
                 "category": "work", "sensitivity": "low", "statement": "I work at Acme Tools."},
                {"id": "f3", "subject": "user", "predicate": "pet", "value": "a tabby cat",
                 "category": "home", "sensitivity": "low", "statement": "I have a tabby cat."}
            ]},
            "sessions": [
                {"id": "s1", "date": "2025-03-01", "scenario": "chat", "turns": [
                    {"user": "I'm allergic to penicillin, so my doctor noted it.", "assistant": "Good to know.", "mentions": ["f1"]},
                    {"user": "I work at Acme Tools these days.", "assistant": "Sounds busy.", "mentions": ["f2"]},
                    {"user": "My tabby cat sleeps all day.", "assistant": "Cats do.", "mentions": ["f3"]}
                ]},
                {"id": "s2", "date": "2025-04-01", "scenario": "chat", "turns": [
                    {"user": "Please forget what I told you about my allergy.", "assistant": "Done."},
                    {"user": "I left Acme Tools; I work at Birch Labs now.", "assistant": "Updated."},
                    {"user": "The penicillin thing came up again at the clinic.", "assistant": "I see.", "mentions": ["f1"]}
                ]}
            ],
            "requests": [
                {"id": "r1", "type": "F1", "style": "direct", "targets": ["f1"],
                 "position": {"session": "s2", "turn": 0},
                 "turn": {"user": "Please forget what I told you about my allergy.", "assistant": "Done."},
                 "filler": {"user": "The weather was mild today.", "assistant": "Nice."}},
                {"id": "r2", "type": "F6", "style": "direct", "targets": ["f2"],
                 "position": {"session": "s2", "turn": 1},
                 "turn": {"user": "I left Acme Tools; I work at Birch Labs now.", "assistant": "Updated."},
                 "filler": {"user": "I made soup for lunch.", "assistant": "Tasty."}}
            ],
            "questions": [
                {"id": "r2-eff-f2", "suite": "efficacy", "request": "r2", "fact": "f2",
                 "text": "Where do I work?", "gold": "Birch Labs", "leak": ["Acme Tools"]}
            ]
        }))
        .expect("a valid hand-written instance")
    }

    async fn memories(name: &str, version: &str) -> Vec<String> {
        let instances = vec![instance()];
        let factory = factory(name, &instances).expect("an instrument");
        let ns = Namespace(format!("hand_001/{version}"));
        let mut system = factory.make(&ns).await.unwrap();
        system.reset(&ns).await.unwrap();
        let version = if version == "forget" {
            Version::Forget
        } else {
            Version::Control
        };
        for session in instances[0].dialogue(version) {
            let info = SessionInfo {
                id: session.id.clone(),
                date: session.date.clone(),
            };
            system.start_session(&ns, &info).await.unwrap();
            for (index, t) in session.turns.iter().enumerate() {
                let turn = TurnInput {
                    index,
                    user: t.user.clone(),
                    assistant: t.assistant.clone(),
                };
                system.observe(&ns, &turn).await.unwrap();
            }
            system.end_session(&ns).await.unwrap();
        }
        match system.query(&ns, "Where do I work?").await.unwrap() {
            Reply::Memories(m) => m.into_iter().map(|m| m.text).collect(),
            Reply::Answer(a) => panic!("an instrument returns memories, got {a:?}"),
        }
    }

    #[tokio::test]
    async fn oracle_forget_drops_exactly_the_targets_and_keeps_only_the_new_value() {
        let kept = memories("oracle-forget", "forget").await.join("\n");
        assert!(!kept.contains("penicillin"), "{kept}");
        assert!(
            !kept.contains("allergy"),
            "the request exchange is dropped: {kept}"
        );
        assert!(
            !kept.contains("Acme Tools"),
            "the old value is gone: {kept}"
        );
        assert!(kept.contains("Birch Labs"), "the new value stays: {kept}");
        assert!(kept.contains("tabby cat"), "other facts stay: {kept}");
    }

    #[tokio::test]
    async fn on_the_control_version_nothing_is_forgotten() {
        for name in NAMES {
            let kept = memories(name, "control").await.join("\n");
            for value in ["penicillin", "Acme Tools", "tabby cat", "weather", "soup"] {
                assert!(kept.contains(value), "{name}: {value} missing from {kept}");
            }
        }
    }

    #[tokio::test]
    async fn oracle_wipe_forgets_everything_at_each_request_and_goes_on_storing() {
        let kept = memories("oracle-wipe", "forget").await;
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(kept[0].contains("clinic"), "{kept:?}");
    }

    #[tokio::test]
    async fn a_namespace_outside_the_dataset_is_an_error_naming_it() {
        let factory = factory("oracle-forget", &[instance()]).unwrap();
        let ns = Namespace("other_002/forget".into());
        let mut system = factory.make(&ns).await.unwrap();
        let err = system.reset(&ns).await.unwrap_err();
        assert!(err.message.contains("other_002"), "{err}");
        assert!(factory_is_none_for_other_names());
    }

    fn factory_is_none_for_other_names() -> bool {
        factory("wipe", &[]).is_none() && factory("null", &[]).is_none()
    }
}
