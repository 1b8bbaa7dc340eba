//! A minimal blocking LSP client over a child process's stdio, for driving
//! `eqlens serve` the way an editor does: the protocol tests and the
//! latency benchmark (`eqlens bench --latency`) both use it, so that what
//! is measured is the real binary behind real JSON-RPC framing.
//!
//! It answers the server's own requests (`workspace/codeLens/refresh`,
//! `window/workDoneProgress/create`) with `null` and queues notifications
//! until asked for.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug)]
pub enum ClientError {
    Spawn(std::io::Error),
    /// No message within the wait.
    Timeout(String),
    /// The server closed its output (it exited or crashed).
    Closed,
    /// The server answered a request with an error.
    Response(Value),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Spawn(e) => write!(f, "cannot start the server: {e}"),
            ClientError::Timeout(what) => write!(f, "timed out waiting for {what}"),
            ClientError::Closed => write!(f, "the server closed its output"),
            ClientError::Response(e) => write!(f, "the server answered with an error: {e}"),
        }
    }
}

impl std::error::Error for ClientError {}

pub type ClientResult<T> = Result<T, ClientError>;

pub struct StdioClient {
    child: Child,
    /// `None` once closed.
    stdin: Arc<Mutex<Option<ChildStdin>>>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications (and stray responses) received and not yet consumed.
    pub notes: Vec<Value>,
}

fn send(stdin: &Mutex<Option<ChildStdin>>, msg: &Value) {
    let body = msg.to_string();
    if let Ok(mut guard) = stdin.lock()
        && let Some(w) = guard.as_mut()
    {
        // A dead server shows up as `Closed` on the next receive.
        let _ = write!(w, "Content-Length: {}\r\n\r\n{body}", body.len());
        let _ = w.flush();
    }
}

/// Reads one framed message; `None` at end of stream or on a bad frame.
fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length:") {
            len = v.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl StdioClient {
    /// Spawns `command` (stderr inherited) and starts reading its output.
    pub fn spawn(mut command: Command) -> ClientResult<StdioClient> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(ClientError::Spawn)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(ClientError::Closed);
        };
        let stdin = Arc::new(Mutex::new(Some(stdin)));
        let (tx, rx) = channel();
        let answer = stdin.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(msg) = read_frame(&mut r) {
                if msg.get("method").is_some() && msg.get("id").is_some() {
                    send(
                        &answer,
                        &json!({"jsonrpc": "2.0", "id": msg["id"], "result": null}),
                    );
                    continue;
                }
                if tx.send(msg).is_err() {
                    return;
                }
            }
        });
        Ok(StdioClient {
            child,
            stdin,
            rx,
            next_id: 0,
            notes: Vec::new(),
        })
    }

    /// `initialize` (with editor-like capabilities) and `initialized`;
    /// returns the server's capabilities.
    pub fn initialize(
        &mut self,
        root_uri: &str,
        init_options: Value,
        wait: Duration,
    ) -> ClientResult<Value> {
        let init = self.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "capabilities": {
                    "workspace": {"codeLens": {"refreshSupport": true}},
                    "window": {"workDoneProgress": true},
                },
                "initializationOptions": init_options,
            }),
            wait,
        )?;
        self.notify("initialized", json!({}));
        Ok(init["capabilities"].clone())
    }

    /// The next message, waiting until `until`.
    pub fn recv(&mut self, until: Instant) -> ClientResult<Value> {
        let left = until.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(v) => Ok(v),
            Err(RecvTimeoutError::Timeout) => Err(ClientError::Timeout("a message".into())),
            Err(RecvTimeoutError::Disconnected) => Err(ClientError::Closed),
        }
    }

    /// Sends a request without waiting; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        send(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        id
    }

    /// Sends a request and returns the whole response (`result` or
    /// `error`); notifications that arrive meanwhile are queued.
    pub fn call(&mut self, method: &str, params: Value, wait: Duration) -> ClientResult<Value> {
        let id = self.send_request(method, params);
        let until = Instant::now() + wait;
        loop {
            let msg = self.recv(until).map_err(|e| match e {
                ClientError::Timeout(_) => ClientError::Timeout(format!("the answer to {method}")),
                e => e,
            })?;
            if msg.get("id") == Some(&json!(id)) && msg.get("method").is_none() {
                return Ok(msg);
            }
            self.notes.push(msg);
        }
    }

    /// A request's `result`, or its error.
    pub fn request(&mut self, method: &str, params: Value, wait: Duration) -> ClientResult<Value> {
        let r = self.call(method, params, wait)?;
        match r.get("error") {
            Some(e) => Err(ClientError::Response(e.clone())),
            None => Ok(r["result"].clone()),
        }
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        send(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        );
    }

    /// The first notification (queued or to come) that `pred` accepts;
    /// earlier ones stay queued.
    pub fn wait_note(
        &mut self,
        what: &str,
        until: Instant,
        pred: impl Fn(&Value) -> bool,
    ) -> ClientResult<Value> {
        if let Some(i) = self.notes.iter().position(&pred) {
            return Ok(self.notes.remove(i));
        }
        loop {
            let msg = self.recv(until).map_err(|e| match e {
                ClientError::Timeout(_) => ClientError::Timeout(what.to_string()),
                e => e,
            })?;
            if pred(&msg) {
                return Ok(msg);
            }
            self.notes.push(msg);
        }
    }

    /// Messages that have already arrived, without waiting.
    pub fn try_recv(&mut self) -> Option<Value> {
        self.rx.try_recv().ok()
    }

    /// Writes bytes as they are, framing included: for tests of malformed
    /// input.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        if let Ok(mut guard) = self.stdin.lock()
            && let Some(w) = guard.as_mut()
        {
            let _ = w.write_all(bytes);
            let _ = w.flush();
        }
    }

    /// Closes the server's input (end of file).
    pub fn close_stdin(&mut self) {
        if let Ok(mut guard) = self.stdin.lock() {
            guard.take();
        }
    }

    /// The server's stderr, when the command given to [`spawn`](Self::spawn)
    /// piped it.
    pub fn take_stderr(&mut self) -> Option<std::process::ChildStderr> {
        self.child.stderr.take()
    }

    /// Waits for the server to exit on its own (without `exit`).
    pub fn wait_exit(&mut self, wait: Duration) -> ClientResult<ExitStatus> {
        let until = Instant::now() + wait;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Ok(status);
            }
            if Instant::now() >= until {
                return Err(ClientError::Timeout("the server to exit".into()));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `shutdown`, `exit`, and the server's exit status.
    pub fn shutdown(mut self, wait: Duration) -> ClientResult<ExitStatus> {
        self.request("shutdown", Value::Null, wait)?;
        self.notify("exit", Value::Null);
        self.wait_exit(wait)
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
