//! The built-in `full-context` system (the paper's Full Context LLM): it keeps the
//! whole ingested transcript, with session dates, and answers each question by giving
//! the model the entire transcript (prompt `full-context-v1`). It has no store to edit,
//! so forgetting is pure instruction following. A transcript that does not fit the
//! model's window is an error naming the namespace, never a silent truncation.

use super::prompt::{FULL_CONTEXT, neutralise};
use super::{LlmClient, LlmConfig, LlmError, Message, Role, UsageMeter};
use crate::system::{
    AsyncMemorySystem, ErrorKind, Namespace, Reply, SessionInfo, SharedFactory, SystemError,
    SystemFactory, SystemInfo, SystemResult, TurnInput,
};
use async_trait::async_trait;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// Name of the system.
pub const NAME: &str = "full-context";

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
    transcripts: HashMap<Namespace, Vec<TranscriptSession>>,
}

impl FullContext {
    /// An empty system answering through `client`.
    pub fn new(client: LlmClient) -> FullContext {
        FullContext {
            client,
            transcripts: HashMap::new(),
        }
    }

    /// The transcript of a namespace as the prompt shows it: one
    /// `## Session <id> (<date>)` block per session, `User:` and `Assistant:` lines per
    /// turn, all text neutralised.
    pub fn transcript(&self, ns: &Namespace) -> String {
        let mut out = String::new();
        for s in self.transcripts.get(ns).into_iter().flatten() {
            let _ = writeln!(
                out,
                "## Session {} ({})",
                neutralise(&s.id),
                neutralise(&s.date)
            );
            for (user, assistant) in &s.turns {
                let _ = writeln!(out, "User: {}", neutralise(user));
                let _ = writeln!(out, "Assistant: {}", neutralise(assistant));
            }
            out.push('\n');
        }
        out.trim_end().to_string()
    }

    /// The messages for a question.
    fn messages(&self, ns: &Namespace, question: &str) -> Vec<Message> {
        let user = FULL_CONTEXT.render(
            "user",
            &[
                ("transcript", &self.transcript(ns)),
                ("question", &neutralise(question)),
            ],
        );
        vec![
            Message::system(FULL_CONTEXT.section("system")),
            Message::user(user),
        ]
    }
}

/// An LLM failure as a system error of the matching kind.
fn system_error(e: &LlmError) -> SystemError {
    let kind = match e {
        LlmError::Connection { .. } => ErrorKind::Connection,
        LlmError::Timeout { .. } => ErrorKind::Timeout,
        LlmError::Overloaded { .. } => ErrorKind::Overloaded,
        _ => ErrorKind::System,
    };
    SystemError::new(kind, format!("{NAME}: {e}"))
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
        let messages = self.messages(ns, question);
        let config = self.client.config();
        let chars: usize = messages.iter().map(|m| m.content.chars().count()).sum();
        let needed = chars.div_ceil(4) + config.max_tokens as usize;
        if needed > config.context_tokens {
            let e = LlmError::ContextTooLong {
                endpoint: config.endpoint(),
                what: format!("namespace {ns}"),
                needed,
                window: config.context_tokens,
            };
            return Err(system_error(&e));
        }
        let reply = self
            .client
            .chat(Role::System, FULL_CONTEXT.version, &messages)
            .await
            .map_err(|e| system_error(&e))?;
        Ok(Reply::Answer(reply.content.trim().to_string()))
    }
}

/// Makes one [`FullContext`] per (instance, version), all sharing one client.
#[derive(Debug, Clone)]
pub struct FullContextFactory {
    client: LlmClient,
}

impl FullContextFactory {
    /// A factory over a client.
    pub fn new(client: LlmClient) -> FullContextFactory {
        FullContextFactory { client }
    }
}

#[async_trait]
impl SystemFactory for FullContextFactory {
    async fn make(&self, _ns: &Namespace) -> SystemResult<Box<dyn AsyncMemorySystem>> {
        Ok(Box::new(FullContext::new(self.client.clone())))
    }

    fn info(&self) -> SystemInfo {
        let c = self.client.config();
        let mut settings = serde_json::Map::new();
        settings.insert("model".into(), c.model.clone().into());
        settings.insert("base_url".into(), super::display_url(&c.base_url).into());
        settings.insert("context_tokens".into(), c.context_tokens.into());
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
