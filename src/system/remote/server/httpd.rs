//! A small HTTP/1.1 server for the protocol: one JSON-RPC request per `POST` body
//! (`Content-Length` framing), keep-alive connections, no chunked bodies. Enough for the
//! adapter protocol and nothing more; it needs no HTTP library.

use super::Dispatcher;
use crate::system::SharedFactory;
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::RwLock;
use tokio::task::JoinHandle;

/// The path requests are posted to.
pub const RPC_PATH: &str = "/rpc";

/// Largest request head (request line and headers) accepted.
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Largest request body accepted: the protocol's message limit.
const MAX_BODY_BYTES: usize = crate::system::remote::lines::DEFAULT_MAX_MESSAGE_BYTES;

/// A running HTTP adapter server.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    dispatcher: Arc<Dispatcher>,
    /// Held shared by every request from dispatch until its response is written.
    in_flight: Arc<RwLock<()>>,
    task: JoinHandle<()>,
}

impl HttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL clients post to, `http://ADDR/rpc`.
    pub fn url(&self) -> String {
        format!("http://{}{RPC_PATH}", self.addr)
    }

    /// Completes once a client's `shutdown` call has been answered (and every response
    /// in flight written); the server then stops accepting connections.
    pub async fn wait(&self) {
        self.dispatcher.shut_down().await;
        let _quiet = self.in_flight.write().await;
    }

    /// Stops accepting connections now.
    pub fn stop(&self) {
        self.task.abort();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Binds `addr` (port 0 picks a free port) and serves the factory's systems over HTTP
/// at `RPC_PATH` until a `shutdown` call or [`HttpServer::stop`].
pub async fn serve_http(factory: SharedFactory, addr: SocketAddr) -> std::io::Result<HttpServer> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let dispatcher = Arc::new(Dispatcher::new(factory));
    let accepting = dispatcher.clone();
    let in_flight = Arc::new(RwLock::new(()));
    let guard = in_flight.clone();
    let task = tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = accepting.shut_down() => break,
            };
            // Accept errors (e.g. too many open files) are transient: keep serving.
            if let Ok((stream, _)) = accepted {
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve_connection(stream, accepting.clone(), guard.clone()));
            }
        }
    });
    Ok(HttpServer {
        addr,
        dispatcher,
        in_flight,
        task,
    })
}

/// A parsed request head.
struct Head {
    method: String,
    path: String,
    keep_alive: bool,
    content_length: Option<usize>,
    chunked: bool,
    expect_continue: bool,
}

/// Serves one connection: requests one after another until it closes.
async fn serve_connection(
    stream: TcpStream,
    dispatcher: Arc<Dispatcher>,
    in_flight: Arc<RwLock<()>>,
) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let head = match read_head(&mut reader).await {
            Ok(Some(head)) => head,
            Ok(None) => return,
            Err(message) => {
                let _ = respond(&mut write, 400, "Bad Request", message.as_bytes(), false).await;
                return;
            }
        };
        if head.chunked {
            let body = b"chunked request bodies are not supported; send Content-Length";
            let _ = respond(&mut write, 411, "Length Required", body, false).await;
            return;
        }
        let length = head.content_length.unwrap_or(0);
        if length > MAX_BODY_BYTES {
            let _ = respond(
                &mut write,
                413,
                "Payload Too Large",
                b"request body too large",
                false,
            )
            .await;
            return;
        }
        if head.expect_continue
            && write
                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                .await
                .is_err()
        {
            return;
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).await.is_err() {
            return;
        }
        let _busy = in_flight.read().await;
        let sent = if head.method != "POST" {
            respond(
                &mut write,
                405,
                "Method Not Allowed",
                b"POST one JSON-RPC request",
                head.keep_alive,
            )
            .await
        } else if head.path != RPC_PATH {
            let body = format!("not found; post to {RPC_PATH}");
            respond(
                &mut write,
                404,
                "Not Found",
                body.as_bytes(),
                head.keep_alive,
            )
            .await
        } else {
            let text = String::from_utf8_lossy(&body);
            match dispatcher.handle_text(&text).await {
                Some(response) => {
                    let bytes = serde_json::to_vec(&response)
                        .unwrap_or_else(|_| Value::Null.to_string().into_bytes());
                    respond(&mut write, 200, "OK", &bytes, head.keep_alive).await
                }
                None => respond(&mut write, 204, "No Content", b"", head.keep_alive).await,
            }
        };
        if sent.is_err() || !head.keep_alive {
            return;
        }
    }
}

/// Reads a request head; `Ok(None)` when the connection closed before one began.
async fn read_head<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<Option<Head>, String> {
    let mut lines = Vec::new();
    let mut total = 0;
    loop {
        let mut line = Vec::new();
        let read = crate::system::remote::lines::read_line(reader, &mut line, MAX_HEAD_BYTES)
            .await
            .map_err(|e| format!("reading the request: {e}"))?;
        let n = match read {
            crate::system::remote::lines::Line::Eof if lines.is_empty() => return Ok(None),
            crate::system::remote::lines::Line::Eof => {
                return Err("connection closed inside the request head".into());
            }
            crate::system::remote::lines::Line::TooLong(_) => {
                return Err("request head too large".into());
            }
            crate::system::remote::lines::Line::Read => line.len() + 1,
        };
        total += n;
        if total > MAX_HEAD_BYTES {
            return Err("request head too large".into());
        }
        let line = String::from_utf8_lossy(&line).trim_end().to_string();
        if line.is_empty() {
            if lines.is_empty() {
                continue; // tolerate blank lines between requests
            }
            break;
        }
        lines.push(line);
    }
    let mut parts = lines[0].split_whitespace();
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("malformed request line {:?}", lines[0]));
    };
    let http10 = version == "HTTP/1.0";
    let mut head = Head {
        method: method.to_string(),
        path: target.split('?').next().unwrap_or(target).to_string(),
        keep_alive: !http10,
        content_length: None,
        chunked: false,
        expect_continue: false,
    };
    for line in &lines[1..] {
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("malformed header {line:?}"));
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => {
                let length = value
                    .parse()
                    .map_err(|_| format!("bad Content-Length {value:?}"))?;
                head.content_length = Some(length);
            }
            "transfer-encoding" => head.chunked = !value.eq_ignore_ascii_case("identity"),
            "connection" => {
                let value = value.to_ascii_lowercase();
                if value.contains("close") {
                    head.keep_alive = false;
                } else if value.contains("keep-alive") {
                    head.keep_alive = true;
                }
            }
            "expect" => head.expect_continue = value.eq_ignore_ascii_case("100-continue"),
            _ => {}
        }
    }
    Ok(Some(head))
}

async fn respond<W: AsyncWriteExt + Unpin>(
    write: &mut W,
    status: u16,
    reason: &str,
    body: &[u8],
    keep_alive: bool,
) -> std::io::Result<()> {
    let content_type = if status == 200 {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    let connection = if keep_alive { "keep-alive" } else { "close" };
    let mut message = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: {connection}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    message.extend_from_slice(body);
    write.write_all(&message).await?;
    write.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn parses_heads() {
        let raw = b"POST /rpc?x=1 HTTP/1.1\r\nContent-Length: 12\r\nConnection: close\r\n\r\n";
        let mut reader = BufReader::new(&raw[..]);
        let head = read_head(&mut reader).await.unwrap().unwrap();
        assert_eq!(head.method, "POST");
        assert_eq!(head.path, "/rpc");
        assert_eq!(head.content_length, Some(12));
        assert!(!head.keep_alive);
        let mut reader = BufReader::new(&b"GARBAGE\r\n\r\n"[..]);
        assert!(read_head(&mut reader).await.is_err());
        let mut reader = BufReader::new(&b""[..]);
        assert!(read_head(&mut reader).await.unwrap().is_none());
        let raw = b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n";
        assert!(read_head(&mut BufReader::new(&raw[..])).await.is_err());
    }
}
