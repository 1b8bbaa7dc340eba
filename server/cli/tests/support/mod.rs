//! Shared by the integration tests: scratch directories and git
//! repositories, and a test LSP client for `eqlens serve` that spawns the
//! built binary and speaks real stdio JSON-RPC (Content-Length framing).
#![allow(dead_code)] // each test file uses its own part

use eqlens_server::client::StdioClient;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long any one wait may take before the test fails (checks are
/// decided in well under a second on these inputs; the margin is for a
/// loaded CI machine).
pub const DEADLINE: Duration = Duration::from_secs(120);

/// A scratch directory, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("eqlens-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }

    /// Writes a file (creating its directories).
    pub fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&p, text).expect("write file");
        p
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    pub fn git(&self, args: &[&str]) {
        let ok = Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .current_dir(&self.0)
            .stdout(Stdio::null())
            .status()
            .expect("run git")
            .success();
        assert!(ok, "git {args:?} failed");
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// A test client: the server crate's [`StdioClient`] on the built binary,
/// with waits that fail the test (after [`DEADLINE`]) instead of returning
/// errors.
pub struct Client(pub StdioClient);

impl Client {
    pub fn start(init_options: Value, root: &Path) -> Client {
        Client::start_with(init_options, root, Stdio::inherit())
    }

    /// [`start`](Self::start) with the server's stderr going to `stderr`
    /// (`Stdio::piped()` for tests that read it: `self.0.take_stderr()`).
    pub fn start_with(init_options: Value, root: &Path, stderr: Stdio) -> Client {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_eqlens"));
        cmd.arg("serve").stderr(stderr);
        let mut c = StdioClient::spawn(cmd).expect("spawn eqlens serve");
        let caps = c
            .initialize(&uri(root), init_options, DEADLINE)
            .expect("initialize");
        assert!(caps["codeLensProvider"].is_object(), "{caps}");
        Client(c)
    }

    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.0.send_request(method, params)
    }

    /// Takes the responses that have arrived for `ids` (without waiting),
    /// removing them from `ids`; queues notifications. Returns how many.
    pub fn collect_responses(&mut self, ids: &mut Vec<i64>) -> usize {
        let mut n = 0;
        while let Some(msg) = self.0.try_recv() {
            match msg.get("id").and_then(Value::as_i64) {
                Some(id) if msg.get("method").is_none() && ids.contains(&id) => {
                    // A result, or the "request cancelled" error.
                    assert!(
                        msg.get("result").is_some() || msg["error"]["code"] == json!(-32800),
                        "request {id} failed: {msg}"
                    );
                    ids.retain(|&i| i != id);
                    n += 1;
                }
                _ => self.0.notes.push(msg),
            }
        }
        n
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.0
            .call(method, params, DEADLINE)
            .unwrap_or_else(|e| panic!("{method}: {e}"))
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let r = self.call(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.0.notify(method, params)
    }

    /// The first notification (queued or to come) that `pred` accepts;
    /// earlier ones stay queued.
    pub fn wait_note(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let until = Instant::now() + DEADLINE;
        match self.0.wait_note(what, until, pred) {
            Ok(v) => v,
            Err(e) => panic!("{e}; got {:#?}", self.0.notes),
        }
    }

    pub fn open(&mut self, path: &Path, lang: &str, text: &str) -> String {
        let u = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": lang, "version": 1, "text": text}}),
        );
        u
    }

    /// Polls `textDocument/codeLens` until every lens is final and one
    /// title satisfies `pred` (lenses are computed in the background:
    /// "… checking", or an interim verdict "… proving…", until done).
    pub fn wait_lens(&mut self, u: &str, pred: impl Fn(&str) -> bool) -> Vec<Value> {
        let until = Instant::now() + DEADLINE;
        loop {
            let lenses = self.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}));
            let lenses = lenses.as_array().cloned().unwrap_or_default();
            let titles: Vec<&str> = lenses
                .iter()
                .map(|l| l["command"]["title"].as_str().unwrap_or(""))
                .collect();
            // Only final lenses: no method still checking or proving.
            let settled = !titles
                .iter()
                .any(|t| t.starts_with("… checking") || t.ends_with("proving…"));
            if settled && titles.iter().any(|t| pred(t)) {
                return lenses;
            }
            assert!(
                Instant::now() < until,
                "no matching lens in time; last: {lenses:#?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn diagnostics(&mut self, u: &str, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let u = u.to_string();
        let n = self.wait_note("diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == u.as_str()
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(&pred))
        });
        n["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    pub fn status(&mut self, u: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let u = u.to_string();
        self.wait_note("eqlens/status", |m| {
            m["method"] == "eqlens/status" && m["params"]["uri"] == u.as_str() && pred(&m["params"])
        })["params"]
            .clone()
    }

    pub fn hover(&mut self, u: &str, line: u32, col: u32) -> String {
        let h = self.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": line, "character": col}}),
        );
        h["contents"]["value"].as_str().unwrap_or("").to_string()
    }

    pub fn shutdown(self) {
        let status = self.0.shutdown(DEADLINE).expect("shutdown");
        assert!(status.success(), "eqlens serve exited with {status}");
    }
}

pub fn lens_titles(lenses: &[Value]) -> Vec<String> {
    lenses
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The lens whose range starts on `line` (zero-based).
pub fn lens_on(lenses: &[Value], line: u32) -> String {
    lenses
        .iter()
        .find(|l| l["range"]["start"]["line"] == line)
        .map(|l| l["command"]["title"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Zero-based line of the first line containing `needle`.
pub fn line_of(text: &str, needle: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in text")) as u32
}
