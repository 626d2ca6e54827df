//! One namespace's system over the protocol: each call of the runner sent to the
//! adapter process the namespace is leased to.

use super::*;

/// One namespace's handle on a remote system; all handles share the factory's
/// connection (in a pool, the one process that serves the namespace).
///
/// A stdio adapter that was restarted after a crash has lost every namespace's memory; a
/// handle whose namespace was reset on the old process then fails its calls as
/// [`ErrorKind::Crashed`] until the namespace is reset again, so lost memory never reads
/// as forgetting.
pub struct RemoteSystem {
    pub(super) client: Arc<Client>,
    pub(super) generation: Option<u64>,
    pub(super) _lease: Lease,
}

impl RemoteSystem {
    pub(super) async fn call(&self, method: &str, params: Value) -> SystemResult<Value> {
        let (value, _) = self.client.call(method, params, self.generation).await?;
        Ok(value)
    }
}

#[async_trait]
impl AsyncMemorySystem for RemoteSystem {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        let (_, generation) = self
            .client
            .call(method::RESET, json!({ "namespace": ns }), None)
            .await?;
        self.generation = Some(generation);
        Ok(())
    }

    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.call(
            method::START_SESSION,
            json!({ "namespace": ns, "session": session }),
        )
        .await
        .map(drop)
    }

    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.call(method::OBSERVE, json!({ "namespace": ns, "turn": turn }))
            .await
            .map(drop)
    }

    async fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.call(method::END_SESSION, json!({ "namespace": ns }))
            .await
            .map(drop)
    }

    async fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.call(method::FLUSH, json!({ "namespace": ns }))
            .await
            .map(drop)
    }

    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        let value = self
            .call(
                method::QUERY,
                json!({ "namespace": ns, "question": question }),
            )
            .await?;
        wire::parse_query_result(&value).map_err(|message| {
            SystemError::new(
                ErrorKind::Protocol,
                format!("adapter `{}`: {message}", self.client.spec),
            )
        })
    }
}
