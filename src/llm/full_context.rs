//! The built-in `full-context` system (the paper's Full Context LLM): it keeps the
//! whole ingested transcript, with session dates, and answers each question by giving
//! the model the entire transcript (prompt `full-context-v1`). It has no store to edit,
//! so forgetting is pure instruction following.
//!
//! A transcript that does not fit the model's window is never silently truncated.
//! [`FullContextFactory::check_window`] measures every selected instance before a run
//! (with the server's own token count where it offers one) and refuses the run once,
//! naming the instances that do not fit; with [`Truncate::Oldest`] the oldest turns are
//! dropped until the prompt fits and each answer says how many it did not see
//! ([`AsyncMemorySystem::truncated_turns`], recorded as `truncated_turns`).

use super::prompt::{FULL_CONTEXT, neutralise};
use super::{LlmClient, LlmConfig, LlmError, Message, Role, UsageMeter};
use crate::dataset::{Instance, Version};
use crate::system::{
    AsyncMemorySystem, Namespace, Reply, SessionInfo, SharedFactory, SystemError, SystemFactory,
    SystemInfo, SystemResult, TurnInput,
};
use async_trait::async_trait;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Name of the system.
pub const NAME: &str = "full-context";
/// Tokens allowed per message for the chat template around it.
const TEMPLATE_TOKENS_PER_MESSAGE: usize = 8;
/// The estimate without a server count: four characters a token.
const DEFAULT_TOKENS_PER_CHAR: f64 = 0.25;

/// What `full-context` does with a transcript that does not fit the model's window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Truncate {
    /// Refuse: the run stops before any call, naming the instances that do not fit
    /// (the paper leaves out models whose window is too short).
    #[default]
    Refuse,
    /// Keep the newest turns that fit; each record says how many turns its answer did
    /// not see (`truncated_turns`).
    Oldest,
}

impl Truncate {
    /// The flag's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Truncate::Refuse => "refuse",
            Truncate::Oldest => "oldest",
        }
    }
}

/// How prompts are measured against the window, shared by the factory and its
/// systems: tokens per character (the server's count over the longest prompts, or the
/// characters ÷ 4 estimate) and the truncation policy.
#[derive(Debug)]
struct Window {
    truncate: Truncate,
    tokens_per_char: AtomicU64,
    server_counted: AtomicBool,
}

impl Window {
    fn new(truncate: Truncate) -> Window {
        Window {
            truncate,
            tokens_per_char: AtomicU64::new(DEFAULT_TOKENS_PER_CHAR.to_bits()),
            server_counted: AtomicBool::new(false),
        }
    }

    fn scale(&self) -> f64 {
        f64::from_bits(self.tokens_per_char.load(Ordering::Relaxed))
    }

    fn tokens_of_chars(&self, chars: usize) -> usize {
        (chars as f64 * self.scale()).ceil() as usize
    }

    /// The prompt's tokens, template included.
    fn tokens(&self, messages: &[Message]) -> usize {
        let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
        self.tokens_of_chars(chars) + TEMPLATE_TOKENS_PER_MESSAGE * messages.len()
    }

    fn basis(&self) -> &'static str {
        if self.server_counted.load(Ordering::Relaxed) {
            "as the server counts them"
        } else {
            "estimated as characters / 4"
        }
    }
}

#[derive(Debug, Clone)]
struct TranscriptSession {
    id: String,
    date: String,
    turns: Vec<(String, String)>,
}

/// The full-context system. It keeps one transcript per namespace, so one value can
/// serve several evaluations at once (the factory makes one per namespace anyway).
#[derive(Debug)]
pub struct FullContext {
    client: LlmClient,
    window: Arc<Window>,
    transcripts: HashMap<Namespace, Vec<TranscriptSession>>,
    truncated: HashMap<Namespace, u32>,
}

impl FullContext {
    /// An empty system answering through `client`; a transcript that does not fit the
    /// window is refused.
    pub fn new(client: LlmClient) -> FullContext {
        FullContext::with_window(client, Arc::new(Window::new(Truncate::Refuse)))
    }

    fn with_window(client: LlmClient, window: Arc<Window>) -> FullContext {
        FullContext {
            client,
            window,
            transcripts: HashMap::new(),
            truncated: HashMap::new(),
        }
    }

    /// The transcript of a namespace as the prompt shows it: one
    /// `## Session <id> (<date>)` block per session, `User:` and `Assistant:` lines per
    /// turn, all text neutralised.
    pub fn transcript(&self, ns: &Namespace) -> String {
        self.transcript_from(ns, 0)
    }

    /// The transcript without its `skip` oldest turns (a session left with no turn is
    /// left out).
    fn transcript_from(&self, ns: &Namespace, skip: usize) -> String {
        let mut out = String::new();
        let mut seen = 0;
        for s in self.transcripts.get(ns).into_iter().flatten() {
            let kept = s.turns.len().saturating_sub(skip.saturating_sub(seen));
            seen += s.turns.len();
            if kept == 0 && !s.turns.is_empty() {
                continue;
            }
            let _ = writeln!(
                out,
                "## Session {} ({})",
                neutralise(&s.id),
                neutralise(&s.date)
            );
            for (user, assistant) in &s.turns[s.turns.len() - kept..] {
                let _ = writeln!(out, "User: {}", neutralise(user));
                let _ = writeln!(out, "Assistant: {}", neutralise(assistant));
            }
            out.push('\n');
        }
        out.trim_end().to_string()
    }

    /// Each turn's tokens in the transcript, oldest first.
    fn turn_tokens(&self, ns: &Namespace) -> Vec<usize> {
        self.transcripts
            .get(ns)
            .into_iter()
            .flatten()
            .flat_map(|s| &s.turns)
            .map(|(user, assistant)| {
                let chars = neutralise(user).chars().count()
                    + neutralise(assistant).chars().count()
                    + "User: \nAssistant: \n".len();
                self.window.tokens_of_chars(chars)
            })
            .collect()
    }

    /// The messages for a question, without the `skip` oldest turns.
    fn messages(&self, ns: &Namespace, question: &str, skip: usize) -> Vec<Message> {
        let user = FULL_CONTEXT.render(
            "user",
            &[
                ("transcript", &self.transcript_from(ns, skip)),
                ("question", &neutralise(question)),
            ],
        );
        vec![
            Message::system(FULL_CONTEXT.section("system")),
            Message::user(user),
        ]
    }

    /// The messages for a question that fit the window, and how many of the oldest
    /// turns they leave out (0 unless the policy is [`Truncate::Oldest`]).
    fn fitting_messages(
        &self,
        ns: &Namespace,
        question: &str,
    ) -> Result<(Vec<Message>, usize), LlmError> {
        let config = self.client.config();
        let budget = config.max_tokens as usize;
        let too_long = |needed: usize| LlmError::ContextTooLong {
            endpoint: config.endpoint(),
            what: format!("namespace {ns}"),
            needed,
            basis: self.window.basis().to_string(),
            window: config.context_tokens,
        };
        let messages = self.messages(ns, question, 0);
        let needed = self.window.tokens(&messages) + budget;
        if needed <= config.context_tokens {
            return Ok((messages, 0));
        }
        if self.window.truncate == Truncate::Refuse {
            return Err(too_long(needed));
        }
        let turns = self.turn_tokens(ns);
        let mut excess = needed - config.context_tokens;
        let mut skip = 0;
        while excess > 0 && skip < turns.len() {
            excess = excess.saturating_sub(turns[skip]);
            skip += 1;
        }
        loop {
            let messages = self.messages(ns, question, skip);
            let needed = self.window.tokens(&messages) + budget;
            if needed <= config.context_tokens {
                return Ok((messages, skip));
            }
            if skip >= turns.len() {
                return Err(too_long(needed));
            }
            skip += 1;
        }
    }
}

#[async_trait]
impl AsyncMemorySystem for FullContext {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.transcripts.remove(ns);
        Ok(())
    }

    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        let sessions = self.transcripts.entry(ns.clone()).or_default();
        sessions.push(TranscriptSession {
            id: session.id.clone(),
            date: session.date.clone(),
            turns: Vec::new(),
        });
        Ok(())
    }

    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        let Some(session) = self.transcripts.get_mut(ns).and_then(|s| s.last_mut()) else {
            return Err(SystemError::system(format!(
                "{NAME}: namespace {ns}: a turn arrived before any session started"
            )));
        };
        session
            .turns
            .push((turn.user.clone(), turn.assistant.clone()));
        Ok(())
    }

    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        self.truncated.remove(ns);
        let (messages, skipped) = self
            .fitting_messages(ns, question)
            .map_err(|e| e.as_system_error(NAME))?;
        if skipped > 0 {
            self.truncated
                .insert(ns.clone(), u32::try_from(skipped).unwrap_or(u32::MAX));
        }
        let reply = self
            .client
            .chat(Role::System, FULL_CONTEXT.version, &messages)
            .await
            .map_err(|e| e.as_system_error(NAME))?;
        Ok(Reply::Answer(reply.content.trim().to_string()))
    }

    fn truncated_turns(&self, ns: &Namespace) -> u32 {
        self.truncated.get(ns).copied().unwrap_or(0)
    }
}

/// Makes one [`FullContext`] per (instance, version), all sharing one client.
#[derive(Debug, Clone)]
pub struct FullContextFactory {
    client: LlmClient,
    window: Arc<Window>,
}

/// One instance that does not fit the window: its id and the tokens its longest
/// prompt needs (reply budget included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overflow {
    /// The instance id.
    pub instance: String,
    /// Tokens its longest prompt needs, the reply budget included.
    pub needed: usize,
}

/// What [`FullContextFactory::check_window`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowCheck {
    /// Instances measured.
    pub instances: usize,
    /// The most tokens any instance's prompt needs, the reply budget included.
    pub longest: usize,
    /// Whether the server counted the tokens (otherwise they are estimated).
    pub server_counted: bool,
    /// The instances that do not fit, longest first.
    pub overflows: Vec<Overflow>,
}

impl FullContextFactory {
    /// A factory over a client; a transcript that does not fit is refused.
    pub fn new(client: LlmClient) -> FullContextFactory {
        FullContextFactory::with_truncate(client, Truncate::Refuse)
    }

    /// A factory over a client with a truncation policy.
    pub fn with_truncate(client: LlmClient, truncate: Truncate) -> FullContextFactory {
        FullContextFactory {
            client,
            window: Arc::new(Window::new(truncate)),
        }
    }

    /// The client.
    pub fn client(&self) -> &LlmClient {
        &self.client
    }

    /// Measures the longest prompt of every instance (either version, every relearning
    /// dialogue ingested, its longest question) against the window, before a run.
    /// Tokens are counted by the server where it offers a count
    /// ([`LlmClient::count_tokens`]; the largest tokens-per-character ratio seen then
    /// measures every prompt of the run), else estimated as characters ÷ 4. With
    /// [`Truncate::Refuse`] any instance that does not fit is an error naming each
    /// such instance and its count; with [`Truncate::Oldest`] they are listed in the
    /// result and the run truncates them.
    pub async fn check_window(&self, instances: &[Instance]) -> Result<WindowCheck, LlmError> {
        let config = self.client.config();
        let ns_of = |i: &Instance, v: Version| Namespace::new(&i.id, v);
        let mut prompts = Vec::with_capacity(instances.len());
        for instance in instances {
            let question = instance
                .questions
                .iter()
                .map(|q| q.text.as_str())
                .max_by_key(|t| t.chars().count())
                .unwrap_or_default();
            let mut longest: Option<(usize, Vec<Message>)> = None;
            for version in [Version::Control, Version::Forget] {
                let ns = ns_of(instance, version);
                let mut system = FullContext::with_window(self.client.clone(), self.window.clone());
                let mut sessions: Vec<TranscriptSession> = instance
                    .dialogue(version)
                    .into_iter()
                    .map(|s| TranscriptSession {
                        id: s.id,
                        date: s.date,
                        turns: s.turns.into_iter().map(|t| (t.user, t.assistant)).collect(),
                    })
                    .collect();
                let last_date = sessions.last().map(|s| s.date.clone()).unwrap_or_default();
                if version == Version::Forget {
                    for q in &instance.questions {
                        if let Some(dialogue) = &q.relearn {
                            sessions.push(TranscriptSession {
                                id: format!("{}/relearn", q.id),
                                date: last_date.clone(),
                                turns: dialogue
                                    .iter()
                                    .map(|t| (t.user.clone(), t.assistant.clone()))
                                    .collect(),
                            });
                        }
                    }
                }
                system.transcripts.insert(ns.clone(), sessions);
                let messages = system.messages(&ns, question, 0);
                let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
                if longest.as_ref().is_none_or(|(c, _)| chars > *c) {
                    longest = Some((chars, messages));
                }
            }
            if let Some(prompt) = longest {
                prompts.push((instance.id.clone(), prompt));
            }
        }
        // The server's count, where it offers one: the largest ratio measures all.
        let mut ratio: Option<f64> = None;
        for (_, (chars, messages)) in &prompts {
            let text: String = messages
                .iter()
                .map(|m| m.content.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            match self.client.count_tokens(&text).await {
                Some(tokens) if *chars > 0 => {
                    let r = tokens as f64 / *chars as f64;
                    ratio = Some(ratio.map_or(r, |old: f64| old.max(r)));
                }
                Some(_) => {}
                None => break,
            }
        }
        if let Some(r) = ratio {
            self.window
                .tokens_per_char
                .store(r.to_bits(), Ordering::Relaxed);
            self.window.server_counted.store(true, Ordering::Relaxed);
        }
        let budget = config.max_tokens as usize;
        let mut check = WindowCheck {
            instances: prompts.len(),
            longest: 0,
            server_counted: ratio.is_some(),
            overflows: Vec::new(),
        };
        for (instance, (_, messages)) in &prompts {
            let needed = self.window.tokens(messages) + budget;
            check.longest = check.longest.max(needed);
            if needed > config.context_tokens {
                check.overflows.push(Overflow {
                    instance: instance.clone(),
                    needed,
                });
            }
        }
        check
            .overflows
            .sort_by(|a, b| b.needed.cmp(&a.needed).then(a.instance.cmp(&b.instance)));
        if !check.overflows.is_empty() && self.window.truncate == Truncate::Refuse {
            return Err(LlmError::Config(format!(
                "{NAME}: {}: {} of {} instances do not fit the context window of {} tokens \
                 (--context-tokens; tokens {}, the reply budget of {} included): {}. Nothing \
                 was asked. Raise --context-tokens if the model's window is larger, leave \
                 these instances out (--instance), or pass --truncate oldest to keep the \
                 newest turns that fit (each record then says how many turns its answer \
                 did not see)",
                config.endpoint(),
                check.overflows.len(),
                check.instances,
                config.context_tokens,
                self.window.basis(),
                budget,
                describe_overflows(&check.overflows)
            )));
        }
        Ok(check)
    }
}

/// `long_001 (15612 tokens), short_002 (9001 tokens)`.
pub fn describe_overflows(overflows: &[Overflow]) -> String {
    overflows
        .iter()
        .map(|o| format!("{} ({} tokens)", o.instance, o.needed))
        .collect::<Vec<_>>()
        .join(", ")
}

#[async_trait]
impl SystemFactory for FullContextFactory {
    async fn make(&self, _ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        Ok(Box::new(FullContext::with_window(
            self.client.clone(),
            self.window.clone(),
        )))
    }

    fn info(&self) -> SystemInfo {
        let c = self.client.config();
        let mut settings = serde_json::Map::new();
        settings.insert("model".into(), c.model.clone().into());
        settings.insert("base_url".into(), super::display_url(&c.base_url).into());
        settings.insert("context_tokens".into(), c.context_tokens.into());
        settings.insert("truncate".into(), self.window.truncate.name().into());
        settings.insert("prompt_version".into(), FULL_CONTEXT.version.into());
        settings.insert("deletion".into(), "instruction following only".into());
        SystemInfo {
            name: NAME.to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
            settings,
        }
    }
}

/// The `full-context` system's factory for a configuration (key from its environment
/// variable), counting its calls into `meter` under [`Role::System`].
pub fn full_context_factory(
    config: LlmConfig,
    meter: Arc<UsageMeter>,
) -> Result<SharedFactory, LlmError> {
    Ok(Arc::new(FullContextFactory::new(LlmClient::new(
        config, meter,
    )?)))
}
