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

/// A call's parameters as the protocol's typed shape ([`wire`]) puts them.
fn params(value: impl serde::Serialize) -> SystemResult<Value> {
    serde_json::to_value(value).map_err(|err| {
        SystemError::new(
            ErrorKind::Protocol,
            format!("could not encode a call's parameters: {err}"),
        )
    })
}

/// The parameters of a call that names only a namespace.
fn namespace_params(ns: &Namespace) -> SystemResult<Value> {
    params(wire::NamespaceParams {
        namespace: ns.clone(),
    })
}

#[async_trait]
impl AsyncMemorySystem for RemoteSystem {
    async fn reset(&mut self, ns: &Namespace) -> SystemResult<()> {
        let (_, generation) = self
            .client
            .call(method::RESET, namespace_params(ns)?, None)
            .await?;
        self.generation = Some(generation);
        Ok(())
    }

    async fn start_session(&mut self, ns: &Namespace, session: &SessionInfo) -> SystemResult<()> {
        self.call(
            method::START_SESSION,
            params(wire::StartSessionParams {
                namespace: ns.clone(),
                session: session.clone(),
            })?,
        )
        .await
        .map(drop)
    }

    async fn observe(&mut self, ns: &Namespace, turn: &TurnInput) -> SystemResult<()> {
        self.call(
            method::OBSERVE,
            params(wire::ObserveParams {
                namespace: ns.clone(),
                turn: turn.clone(),
            })?,
        )
        .await
        .map(drop)
    }

    async fn end_session(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.call(method::END_SESSION, namespace_params(ns)?)
            .await
            .map(drop)
    }

    async fn flush(&mut self, ns: &Namespace) -> SystemResult<()> {
        self.call(method::FLUSH, namespace_params(ns)?)
            .await
            .map(drop)
    }

    async fn query(&mut self, ns: &Namespace, question: &str) -> SystemResult<Reply> {
        let value = self
            .call(
                method::QUERY,
                params(wire::QueryParams {
                    namespace: ns.clone(),
                    question: question.to_string(),
                })?,
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
