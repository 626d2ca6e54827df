//! Connecting to an adapter: its processes started (a pool of them, each handshaken and
//! checked against the first), or its HTTP endpoint reached.

use super::*;

/// Connects to the adapter named by `spec` (`cmd:…` or `http(s)://…`) and runs the
/// handshake; with `options.processes` above 1, starts that many copies of a stdio
/// adapter, which must all answer the same handshake. A failure names the spec and says
/// what went wrong.
pub async fn connect(spec: &str, options: &RemoteOptions) -> Result<RemoteFactory, RemoteError> {
    let bad = |reason: &str| RemoteError::BadSpec {
        spec: spec.to_string(),
        reason: reason.to_string(),
    };
    if options.max_in_flight == 0 {
        return Err(bad("max_in_flight must be at least 1"));
    }
    if options.processes == 0 {
        return Err(bad("the number of adapter processes must be at least 1"));
    }
    let started = if let Some(command) = spec.strip_prefix("cmd:") {
        start_processes(spec, command, options).await?
    } else if spec.starts_with("http://") || spec.starts_with("https://") {
        if options.processes > 1 {
            return Err(bad(
                "a pool of adapter processes (--adapter-processes) is for stdio adapters \
                 (`cmd:…`); an HTTP adapter's server decides how many calls it serves at once",
            ));
        }
        vec![http_transport(spec, options).await?]
    } else {
        return Err(bad(
            "expected `cmd:<command line>` or an `http://` / `https://` URL",
        ));
    };
    let mut members = Vec::with_capacity(started.len());
    let mut settled: Option<RemoteOptions> = None;
    let mut first: Option<HandshakeResult> = None;
    for (index, (transport, raw)) in started.into_iter().enumerate() {
        let handshake = match parse_handshake(&raw) {
            Ok(handshake) => handshake,
            Err(message) => {
                close_all(&members, Some(transport.as_ref())).await;
                return Err(RemoteError::Handshake {
                    spec: spec.to_string(),
                    message: in_process(index, options.processes, message),
                });
            }
        };
        if let Some(first) = &first
            && let Some(difference) = handshake_difference(first, &handshake)
        {
            close_all(&members, Some(transport.as_ref())).await;
            return Err(RemoteError::Handshake {
                spec: spec.to_string(),
                message: format!(
                    "the processes of the pool answered different handshakes: {difference} \
                     (process 1 and process {})",
                    index + 1
                ),
            });
        }
        // The declared timeout is read (and warned about) once, from the first process.
        let member_options = settled
            .get_or_insert_with(|| with_declared_timeout(spec, options, &handshake))
            .clone();
        first.get_or_insert_with(|| handshake.clone());
        members.push(Arc::new(Client::new(
            spec,
            member_options,
            transport,
            handshake,
            raw,
        )));
    }
    Ok(RemoteFactory {
        pool: Arc::new(Pool::new(members)),
    })
}

/// `message`, naming the process when there is a pool of them.
pub(super) fn in_process(index: usize, processes: usize, message: String) -> String {
    if processes > 1 {
        format!("process {} of {processes}: {message}", index + 1)
    } else {
        message
    }
}

/// Starts the processes of a stdio adapter side by side (an interpreter and its
/// libraries may take seconds to load), each with its handshake. When one fails, the
/// others are closed and the first failure is returned.
pub(super) async fn start_processes(
    spec: &str,
    command: &str,
    options: &RemoteOptions,
) -> Result<Vec<(Box<dyn Transport>, Value)>, RemoteError> {
    let n = options.processes;
    if n == 1 {
        let (client, raw) = stdio::StdioClient::start(spec, command, options, None).await?;
        return Ok(vec![(Box::new(client) as Box<dyn Transport>, raw)]);
    }
    let tasks: Vec<_> = (0..n)
        .map(|index| {
            let (spec, command, options) = (spec.to_string(), command.to_string(), options.clone());
            tokio::spawn(async move {
                stdio::StdioClient::start(&spec, &command, &options, Some((index + 1, n))).await
            })
        })
        .collect();
    let mut started = Vec::with_capacity(n);
    let mut failure = None;
    for (index, task) in tasks.into_iter().enumerate() {
        match task.await {
            Ok(Ok((client, raw))) => started.push((Box::new(client) as Box<dyn Transport>, raw)),
            Ok(Err(err)) => {
                failure.get_or_insert(match err {
                    RemoteError::Spawn { spec, message } => RemoteError::Spawn {
                        spec,
                        message: in_process(index, n, message),
                    },
                    RemoteError::Handshake { spec, message } => RemoteError::Handshake {
                        spec,
                        message: in_process(index, n, message),
                    },
                    other => other,
                });
            }
            Err(join) => {
                failure.get_or_insert(RemoteError::Spawn {
                    spec: spec.to_string(),
                    message: in_process(index, n, format!("its start was cut short: {join}")),
                });
            }
        }
    }
    match failure {
        None => Ok(started),
        Some(err) => {
            for client in started
                .iter()
                .filter_map(|(transport, _)| transport.stdio())
            {
                client.close().await;
            }
            Err(err)
        }
    }
}

/// Closes the stdio processes started so far when a pool cannot be made.
pub(super) async fn close_all(members: &[Arc<Client>], also: Option<&dyn Transport>) {
    let transports = members.iter().map(|m| m.transport.as_ref()).chain(also);
    for client in transports.filter_map(|t| t.stdio()) {
        client.close().await;
    }
}

#[cfg(feature = "http")]
pub(super) async fn http_transport(
    spec: &str,
    options: &RemoteOptions,
) -> Result<(Box<dyn Transport>, Value), RemoteError> {
    let client = http::HttpClient::new(spec, options.max_message_bytes)?;
    let mut attempt = 0;
    loop {
        match client
            .call(
                method::HANDSHAKE,
                &handshake_params(),
                options.timeout.max(HANDSHAKE_TIMEOUT),
            )
            .await
        {
            Ok(raw) => return Ok((Box::new(client), raw)),
            Err(err) if err.retryable && attempt < options.retries => {
                let policy = RetryPolicy::with_retries(options.retries);
                tokio::time::sleep(policy.backoff(attempt, err.retry_after)).await;
                attempt += 1;
            }
            Err(err) => {
                return Err(RemoteError::Handshake {
                    spec: spec.to_string(),
                    message: err.to_string(),
                });
            }
        }
    }
}

#[cfg(not(feature = "http"))]
pub(super) async fn http_transport(
    spec: &str,
    _options: &RemoteOptions,
) -> Result<(Box<dyn Transport>, Value), RemoteError> {
    Err(RemoteError::HttpDisabled {
        spec: spec.to_string(),
    })
}
