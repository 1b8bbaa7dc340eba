//! Protocol-level tests of `eqlens serve`: the built binary, spoken to over
//! real stdio JSON-RPC (Content-Length framing), in temporary directories
//! and git repositories. Waits are polls with a generous deadline, never
//! sleeps standing in for an assertion.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long any one wait may take before the test fails (checks are
/// decided in well under a second on these inputs; the margin is for a
/// loaded CI machine).
const DEADLINE: Duration = Duration::from_secs(120);

struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("eqlens-lsp-test-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }
    fn write(&self, rel: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::write(&p, text).expect("write");
        p
    }
    fn git(&self, args: &[&str]) {
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

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// A client: writes requests, a reader thread parses frames, answers the
/// server's own requests (e.g. `workspace/codeLens/refresh`) with null, and
/// queues everything else.
struct Client {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications received and not yet consumed.
    notes: Vec<Value>,
}

fn send(stdin: &Mutex<ChildStdin>, msg: &Value) {
    let body = msg.to_string();
    let mut w = stdin.lock().expect("stdin lock");
    write!(w, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write frame");
    w.flush().expect("flush");
}

impl Client {
    fn start(init_options: Value, root: &Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_eqlens"))
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn eqlens serve");
        let stdin = Arc::new(Mutex::new(child.stdin.take().expect("stdin")));
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        let answer = stdin.clone();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        len = v.trim().parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; len.expect("Content-Length header")];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let msg: Value = serde_json::from_slice(&body).expect("JSON body");
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
        let mut c = Client {
            child,
            stdin,
            rx,
            next_id: 0,
            notes: Vec::new(),
        };
        let init = c.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": uri(root),
                "capabilities": {"workspace": {"codeLens": {"refreshSupport": true}}},
                "initializationOptions": init_options,
            }),
        );
        assert!(
            init["capabilities"]["codeLensProvider"].is_object(),
            "{init}"
        );
        c.notify("initialized", json!({}));
        c
    }

    fn recv(&mut self, until: Instant) -> Value {
        let left = until.saturating_duration_since(Instant::now());
        match self.rx.recv_timeout(left) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("no message from the server in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        send(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        );
        let until = Instant::now() + DEADLINE;
        loop {
            let msg = self.recv(until);
            if msg.get("id") == Some(&json!(id)) {
                return msg;
            }
            self.notes.push(msg);
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let r = self.call(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    fn notify(&mut self, method: &str, params: Value) {
        send(
            &self.stdin,
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        );
    }

    /// The first notification (queued or to come) that `pred` accepts;
    /// earlier ones stay queued.
    fn wait_note(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.notes.iter().position(&pred) {
            return self.notes.remove(i);
        }
        let until = Instant::now() + DEADLINE;
        loop {
            if Instant::now() >= until {
                panic!("timed out waiting for {what}; got {:#?}", self.notes);
            }
            let msg = self.recv(until);
            if pred(&msg) {
                return msg;
            }
            self.notes.push(msg);
        }
    }

    fn open(&mut self, path: &Path, lang: &str, text: &str) -> String {
        let u = uri(path);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": lang, "version": 1, "text": text}}),
        );
        u
    }

    /// Polls `textDocument/codeLens` until one lens title satisfies `pred`
    /// (lenses are computed in the background; "… checking" until done).
    fn wait_lens(&mut self, u: &str, pred: impl Fn(&str) -> bool) -> Vec<Value> {
        let until = Instant::now() + DEADLINE;
        loop {
            let lenses = self.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}));
            let lenses = lenses.as_array().cloned().unwrap_or_default();
            if lenses
                .iter()
                .any(|l| pred(l["command"]["title"].as_str().unwrap_or("")))
            {
                return lenses;
            }
            assert!(
                Instant::now() < until,
                "no matching lens in time; last: {lenses:#?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn diagnostics(&mut self, u: &str, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
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

    fn status(&mut self, u: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let u = u.to_string();
        self.wait_note("eqlens/status", |m| {
            m["method"] == "eqlens/status" && m["params"]["uri"] == u.as_str() && pred(&m["params"])
        })["params"]
            .clone()
    }

    fn hover(&mut self, u: &str, line: u32, col: u32) -> String {
        let h = self.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": {"line": line, "character": col}}),
        );
        h["contents"]["value"].as_str().unwrap_or("").to_string()
    }

    fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let until = Instant::now() + DEADLINE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "eqlens serve exited with {status}");
                return;
            }
            assert!(Instant::now() < until, "eqlens serve did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lens_titles(lenses: &[Value]) -> Vec<String> {
    lenses
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap_or("").to_string())
        .collect()
}

/// The lens whose range starts on `line` (zero-based).
fn lens_on(lenses: &[Value], line: u32) -> String {
    lenses
        .iter()
        .find(|l| l["range"]["start"]["line"] == line)
        .map(|l| l["command"]["title"].as_str().unwrap_or("").to_string())
        .unwrap_or_default()
}

/// Zero-based line of the first line containing `needle`.
fn line_of(text: &str, needle: &str) -> u32 {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in text")) as u32
}

const JAVA_OLD: &str = "\
class A {
    static int sum(int a, int b) {
        int s = a + b;
        return s;
    }

    static int clamp(int a) {
        if (a > 10) {
            return 10;
        }
        return a;
    }

    static int twice(int x) {
        return x * 2;
    }
}
";

fn java_new() -> String {
    JAVA_OLD
        .replace("int s = a + b;", "int s = b + a;")
        .replace("return 10;", "return 11;")
}

#[test]
fn java_git_baseline_lenses_diagnostics_hover_actions_pin() {
    let dir = Scratch::new("java-git");
    let path = dir.write("A.java", JAVA_OLD);
    dir.git(&["init", "-q"]);
    dir.git(&["add", "A.java"]);
    dir.git(&["commit", "-qm", "base"]);
    let mut c = Client::start(json!({"checker": "portfolio"}), &dir.0);
    let new = java_new();
    let u = c.open(&path, "java", &new);

    // Lenses: one per changed method, none for the unchanged `twice`.
    let lenses = c.wait_lens(&u, |t| t.starts_with("≢"));
    let lenses = if lenses.iter().any(|l| l["command"]["title"] == "… checking") {
        c.wait_lens(&u, |t| t.starts_with("≡"))
    } else {
        lenses
    };
    let clamp_line = line_of(&new, "static int clamp");
    let sum_line = line_of(&new, "static int sum");
    let clamp = lens_on(&lenses, clamp_line);
    assert!(clamp.starts_with("≢ not equivalent · a = "), "{clamp}");
    let a: i64 = clamp
        .rsplit("a = ")
        .next()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no value for a in {clamp}"));
    assert!(
        a > 10,
        "the counterexample must take the changed branch: {clamp}"
    );
    let sum = lens_on(&lenses, sum_line);
    assert!(sum.starts_with("≡ equivalent · "), "{sum}");
    assert!(
        !lens_titles(&lenses).iter().any(|t| t.contains("twice")) && lenses.len() == 2,
        "unchanged methods get no lens: {lenses:#?}"
    );

    // Diagnostic: a warning on the changed statement the counterexample ran,
    // related information in the baseline.
    let ret_line = line_of(&new, "return 11;");
    let diags = c.diagnostics(&u, |d| d["code"] == "not-equivalent");
    let d = diags
        .iter()
        .find(|d| d["code"] == "not-equivalent")
        .expect("diag");
    assert_eq!(d["severity"], 2, "{d}");
    assert_eq!(d["range"]["start"]["line"], ret_line, "{d}");
    assert_eq!(d["range"]["start"]["character"], 12, "{d}");
    assert_eq!(d["range"]["end"]["line"], ret_line, "{d}");
    let msg = d["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("clamp(1) is not equivalent") && msg.contains(&format!("a = {a}")),
        "{msg}"
    );
    assert!(
        msg.contains("returns 10") && msg.contains("returns 11"),
        "{msg}"
    );
    let rel = &d["relatedInformation"][0];
    assert!(
        rel["location"]["uri"]
            .as_str()
            .unwrap_or("")
            .starts_with("eqlens-baseline://"),
        "{rel}"
    );
    assert_eq!(
        rel["location"]["range"]["start"]["line"],
        line_of(JAVA_OLD, "return 10;")
    );

    // Hover on the name: inputs, both outcomes, line traces.
    let hover = c.hover(&u, clamp_line, 16);
    for needle in [
        &format!("a = {a}") as &str,
        "returns 10",
        "returns 11",
        "lines:",
    ] {
        assert!(
            hover.contains(needle),
            "{needle:?} missing in hover:\n{hover}"
        );
    }
    let hover = c.hover(&u, sum_line, 16);
    assert!(
        hover.contains("Proved for all inputs") && hover.contains("semantics `math`"),
        "{hover}"
    );

    // The baseline request returns the committed text.
    let b = c.request("eqlens/baseline", json!({"uri": u}));
    assert_eq!(b["text"], JAVA_OLD);
    assert_eq!(b["label"], "HEAD");

    // Code actions inside `sum`, then abstract its first statement.
    let stmt_line = line_of(&new, "int s = b + a;");
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": u},
               "range": {"start": {"line": stmt_line, "character": 8}, "end": {"line": stmt_line, "character": 10}},
               "context": {"diagnostics": []}}),
    );
    let actions = actions.as_array().cloned().unwrap_or_default();
    let titles: Vec<&str> = actions.iter().filter_map(|a| a["title"].as_str()).collect();
    for t in [
        "Abstract this block (line 3)",
        "Refine this block (line 3)",
        "Re-check with a larger loop bound (16)",
        "Pin current version as baseline",
    ] {
        assert!(titles.contains(&t), "{t:?} not in {titles:?}");
    }
    let abs = actions
        .iter()
        .find(|a| a["command"]["command"] == "eqlens.abstractBlock")
        .expect("abstract action");
    assert_eq!(abs["command"]["arguments"][0]["method"], "sum");
    c.request("workspace/executeCommand", abs["command"].clone());
    // The override reaches the checker: the hover reports it.
    let until = Instant::now() + DEADLINE;
    loop {
        let h = c.hover(&u, sum_line, 16);
        if h.contains("override abstract 3") {
            assert!(h.contains("equivalent"), "{h}");
            break;
        }
        assert!(Instant::now() < until, "override not reported:\n{h}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let refine = actions
        .iter()
        .find(|a| a["command"]["command"] == "eqlens.refineBlock")
        .expect("refine action");
    c.request("workspace/executeCommand", refine["command"].clone());
    let until = Instant::now() + DEADLINE;
    loop {
        let h = c.hover(&u, sum_line, 16);
        if h.contains("override refine 3") {
            break;
        }
        assert!(Instant::now() < until, "refine override not reported:\n{h}");
        std::thread::sleep(Duration::from_millis(50));
    }

    // Pin: the current text becomes the baseline, so nothing differs...
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.pinBaseline", "arguments": [{"uri": u}]}),
    );
    let until = Instant::now() + DEADLINE;
    loop {
        let lenses = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}));
        if lenses.as_array().is_some_and(|l| l.is_empty()) {
            break;
        }
        assert!(Instant::now() < until, "lenses after pinning: {lenses:#?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let b = c.request("eqlens/baseline", json!({"uri": u}));
    assert_eq!(b["label"], "pinned");
    // ...until an incremental edit changes `twice`.
    let twice_ret = line_of(&new, "return x * 2;");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2},
               "contentChanges": [{"range": {"start": {"line": twice_ret, "character": 19},
                                             "end": {"line": twice_ret, "character": 20}},
                                   "text": "3"}]}),
    );
    let lenses = c.wait_lens(&u, |t| t.starts_with("≢"));
    let t = lens_on(&lenses, line_of(&new, "static int twice"));
    assert!(t.starts_with("≢ not equivalent · x = "), "{lenses:#?}");
    c.shutdown();
}

const C_OLD: &str = "\
int f(int x) {
  if (x > 3) {
    return x - 1;
  }
  return x;
}

int g(int y) {
  return y + 1;
}
";

#[test]
fn c_paired_baseline() {
    let dir = Scratch::new("c-paired");
    dir.write("oldV.c", C_OLD);
    let new = C_OLD.replace("return x - 1;", "return x - 2;");
    let path = dir.write("newV.c", &new);
    let mut c = Client::start(json!({"baseline": "paired"}), &dir.0);
    let u = c.open(&path, "c", &new);
    let lenses = c.wait_lens(&u, |t| t.starts_with("≢"));
    let t = lens_on(&lenses, 0);
    assert!(t.starts_with("≢ not equivalent · x = "), "{lenses:#?}");
    assert_eq!(lenses.len(), 1, "g is unchanged: {lenses:#?}");
    let diags = c.diagnostics(&u, |d| d["code"] == "not-equivalent");
    let d = &diags[0];
    assert_eq!(d["range"]["start"]["line"], 2, "{d}");
    let rel = d["relatedInformation"][0]["location"]["uri"]
        .as_str()
        .unwrap_or("");
    assert!(rel.ends_with("/oldV.c"), "{rel}");
    let hover = c.hover(&u, 0, 4);
    assert!(
        hover.contains("old (oldV.c):") && hover.contains("new:"),
        "{hover}"
    );
    let b = c.request("eqlens/baseline", json!({"uri": u}));
    assert_eq!(b["text"], C_OLD);

    // Opening the old version itself: it is a baseline, nothing to check.
    let old_uri = c.open(&dir.0.join("oldV.c"), "c", C_OLD);
    let s = c.status(&old_uri, |p| p["state"] == "idle");
    assert!(
        s["note"].as_str().unwrap_or("").contains("baseline itself"),
        "{s}"
    );
    c.shutdown();
}

#[test]
fn c_pinned_mode_and_settings() {
    let dir = Scratch::new("c-pinned");
    let path = dir.write("m.c", C_OLD);
    // A bad setting is reported, the good ones applied.
    let mut c = Client::start(json!({"baseline": "pinned", "loopBound": "lots"}), &dir.0);
    let m = c.wait_note("showMessage", |m| m["method"] == "window/showMessage");
    assert!(
        m["params"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("loopBound"),
        "{m}"
    );
    let u = c.open(&path, "c", C_OLD);
    let s = c.status(&u, |p| p["state"] == "idle");
    assert!(
        s["note"]
            .as_str()
            .unwrap_or("")
            .contains("no pinned baseline"),
        "{s}"
    );
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.pinBaseline", "arguments": [{"uri": u}]}),
    );
    // Replace the whole `g` body line (incremental change).
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 8, "character": 9},
                                             "end": {"line": 8, "character": 14}},
                                   "text": "1 + y"}]}),
    );
    let lenses = c.wait_lens(&u, |t| t.starts_with("≡"));
    assert!(
        lens_on(&lenses, 7).starts_with("≡ equivalent"),
        "{lenses:#?}"
    );

    // Bad configuration later: a message, the server keeps answering.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"eqlens": {"checker": "magic"}}}),
    );
    let m = c.wait_note("showMessage", |m| m["method"] == "window/showMessage");
    assert!(
        m["params"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("unknown checker"),
        "{m}"
    );
    let lenses = c.wait_lens(&u, |t| t.starts_with("≡"));
    assert!(!lenses.is_empty());
    c.shutdown();
}

#[test]
fn bad_input_never_stops_the_server() {
    let dir = Scratch::new("bad");
    let committed = dir.write("B.java", "class B { static int f(int a) { return a; } }\n");
    dir.git(&["init", "-q"]);
    dir.git(&["add", "B.java"]);
    dir.git(&["commit", "-qm", "base"]);
    let mut c = Client::start(json!({}), &dir.0);

    // A syntax error in the new version: the lens says why.
    let u = c.open(
        &committed,
        "java",
        "class B { static int f(int a) { return a +; } }\n",
    );
    let lenses = c.wait_lens(&u, |t| t.starts_with('?'));
    assert!(
        lens_titles(&lenses)[0].contains("syntax error"),
        "{lenses:#?}"
    );

    // A new, untracked file: quietly nothing to compare.
    let fresh = dir.write("New.java", "class N { static int g() { return 1; } }\n");
    let u2 = c.open(&fresh, "java", "class N { static int g() { return 1; } }\n");
    let s = c.status(&u2, |p| p["state"] == "idle");
    assert!(s["note"].as_str().unwrap_or("").contains("new file"), "{s}");

    // Outside any repository.
    let outside = Scratch::new("outside");
    let p = outside.write("C.java", "class C {}\n");
    let u3 = c.open(&p, "java", "class C {}\n");
    let s = c.status(&u3, |p| p["state"] == "idle");
    assert!(
        s["note"]
            .as_str()
            .unwrap_or("")
            .contains("not inside a git repository"),
        "{s}"
    );

    // Requests about unknown documents and bad command arguments are
    // answered.
    let r = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": "file:///nope.java"}}),
    );
    assert!(r.is_null(), "{r}");
    let r = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": "file:///nope.java"}, "position": {"line": 0, "character": 0}}),
    );
    assert!(r.is_null(), "{r}");
    let r = c.call(
        "workspace/executeCommand",
        json!({"command": "eqlens.abstractBlock", "arguments": [42]}),
    );
    assert!(r.get("error").is_some(), "{r}");
    let r = c.call("workspace/executeCommand", json!({"command": "eqlens.abstractBlock", "arguments": [{"uri": u, "method": "f", "arity": 1, "firstLine": 9, "lastLine": 2}]}));
    assert!(r.get("error").is_some(), "{r}");
    let r = c.request("eqlens/baseline", json!({"uri": "file:///nope.java"}));
    assert!(r["text"].is_null(), "{r}");

    // A position far past the end of an edit: clamped, not a crash.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 999, "character": 999},
                                             "end": {"line": 999, "character": 999}},
                                   "text": "\u{00e9}\u{1F600}"}]}),
    );
    // A huge document (well past maxFileBytes): skipped with a note.
    let big = dir.write("Big.java", "");
    let huge = format!(
        "class Big {{\n{}}}\n",
        "    // filler line of a large file\n".repeat(40_000)
    );
    let u4 = c.open(&big, "java", &huge);
    let s = c.status(&u4, |p| p["state"] == "idle");
    assert!(s["note"].is_string(), "{s}");
    let r = c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}));
    assert!(r.is_array(), "{r}");
    c.shutdown();
}
