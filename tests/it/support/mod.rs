//! What several test modules share: the scripted chat-completions server and HTTP
//! adapters started as child processes.

#[cfg(feature = "llm")]
pub(crate) mod chat_server;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A child process serving the adapter protocol over HTTP; killed when dropped.
pub(crate) struct HttpChild {
    child: Child,
    /// The URL it printed: `http://127.0.0.1:PORT/rpc`.
    pub url: String,
}

impl Drop for HttpChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `program ARGS --http 127.0.0.1:0` and reads the bound URL from its first line
/// (`listening on URL`); its standard error goes to the test's.
pub(crate) fn start_http(program: &str, args: &[&str]) -> HttpChild {
    let mut command = Command::new(program);
    scrub(&mut command);
    let mut child = command
        .args(args)
        .args(["--http", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout piped"))
        .read_line(&mut line)
        .expect("first stdout line");
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line of {program} is {line:?}"))
        .to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/rpc"),
        "{url}"
    );
    HttpChild { child, url }
}

/// [`start_http`] of a command line, split as a shell would.
pub(crate) fn start_http_command(command: &str) -> HttpChild {
    let words = shlex::split(command).expect("test command splits");
    let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    start_http(&words[0], &args)
}

/// Leaves the test process's settings out of a command it starts: every `BEMULA_*`
/// variable (data, gates, endpoints, cache) and cargo-nextest's run id; a test sets
/// what it needs after this.
pub(crate) fn scrub(command: &mut Command) {
    for (var, _) in std::env::vars_os() {
        let name = var.to_string_lossy();
        if name.starts_with("BEMULA_") || name == "NEXTEST_RUN_ID" {
            command.env_remove(&var);
        }
    }
}
