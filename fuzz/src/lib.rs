//! Shared harness code of the eqlens fuzz targets.
//!
//! Input formats (the seed script `scripts/fuzz-seeds.py` writes them):
//! - front ends: the source text itself (invalid UTF-8 is replaced);
//! - matcher: one selector byte (even: Java, odd: C), the old text, a NUL
//!   byte, the new text;
//! - LSP reader: raw bytes as a client would write them to the server's stdin;
//! - LSP session: one selector byte, the opened text, NUL, a second text
//!   (sent as a whole-document change after the baseline is pinned), NUL,
//!   then bytes decoded with `arbitrary` into a list of [`Op`]s.

use arbitrary::{Arbitrary, Unstructured};
use eqlens_core::check::Selection;
use eqlens_core::diff::{self, DiffContext};
use eqlens_core::ir::{FuncId, Lang, Program};
use eqlens_core::lang;
use eqlens_core::scope::Scope;
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::time::Duration;
use tower::{Service, ServiceExt};
use tower_lsp_server::jsonrpc::{Request, Response};
use tower_lsp_server::{ClientSocket, LspService};

/// The language a selector byte names.
pub fn lang_of(selector: u8) -> Lang {
    if selector % 2 == 0 {
        Lang::Java
    } else {
        Lang::C
    }
}

/// Splits `data` at its first NUL byte (all of it and nothing when none).
pub fn split_nul(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// Parses and lowers one text, both from scratch and incrementally after
/// an edit that appends the text to an empty file (the two must agree:
/// `lang/mod.rs` promises an incremental parse lowers to the same program).
pub fn front_end(lang: Lang, source: &str) {
    let whole = lang::lower(lang, source);
    let Some(mut empty) = lang::parse(lang, "", None) else {
        return;
    };
    let end = position_at(source, source.len());
    empty.edit(&lang::TextEdit {
        start_byte: 0,
        old_end_byte: 0,
        new_end_byte: source.len(),
        start: (0, 0),
        old_end: (0, 0),
        new_end: end,
    });
    if let Some(again) = lang::parse(lang, source, Some(&empty)) {
        let incremental = lang::lower_parsed(&again, source);
        assert_eq!(
            format!("{:?}", whole.functions),
            format!("{:?}", incremental.functions),
            "incremental parse lowered differently"
        );
    }
}

/// (row, byte column) of a byte offset, as tree-sitter counts them.
fn position_at(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let col = offset
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
    (row, col)
}

/// Lowers two versions and diffs every pair of functions the way the
/// checkers do: pairing by name and arity (`check::pairing`), then the
/// statement matcher with the whole-program context and with the context
/// of the pair's reachable scope (`abstraction`).
pub fn matcher(lang: Lang, old: &str, new: &str) {
    let old_p = lang::lower(lang, old);
    let new_p = lang::lower(lang, new);
    let pairing = eqlens_core::check::pairing::pair_functions(&old_p, &new_p, &Selection::All);
    let whole = DiffContext::for_programs(&old_p, &new_p);
    for &(o, n) in &pairing.pairs {
        diff_pair(&whole, &old_p, &new_p, o, n);
        let scope = Scope::of_pair(&old_p, &new_p, o, n);
        let scoped = DiffContext::for_scope(&old_p, &new_p, &scope);
        diff_pair(&scoped, &old_p, &new_p, o, n);
    }
}

fn diff_pair(cx: &DiffContext, old: &Program, new: &Program, o: FuncId, n: FuncId) {
    if let (Ok(fo), Ok(fnew)) = (&old.function(o).body, &new.function(n).body) {
        let d = diff::diff_functions_in(cx, fo, fnew);
        // A function diffed with itself is unchanged.
        let same = diff::diff_functions_in(&DiffContext::opaque(), fo, fo);
        let _ = d.is_unchanged();
        let _ = same.is_unchanged();
    }
}

/// One runtime shaped like the one `eqlens_server::run_stdio` builds.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// The server's service, built as `eqlens_server::run_stdio` builds it.
fn service() -> (LspService<eqlens_server::Backend>, ClientSocket) {
    LspService::build(eqlens_server::Backend::new)
        .custom_method("eqlens/baseline", eqlens_server::Backend::baseline)
        .finish()
}

// ---------------------------------------------------------------------------
// The LSP reader target's entry: the server's own transport and service,
// as `run_stdio` runs them, over `input` as stdin (output discarded).
// ---------------------------------------------------------------------------
/// Feeds `input` to the server as its whole stdin and runs it until it has
/// read everything and answered what it read.
pub fn serve_bytes(input: &[u8]) {
    let rt = runtime();
    rt.block_on(async {
        let stdin = std::io::Cursor::new(input.to_vec());
        // A framing error ends the session with `Err`: an outcome, not a
        // crash.
        let _ = eqlens_server::serve(stdin, tokio::io::sink()).await;
    });
    // As in `run_stdio`: a check still running does not hold the process.
    rt.shutdown_timeout(Duration::from_millis(50));
}

/// One step of an LSP session.
#[derive(Arbitrary, Debug)]
pub enum Op {
    /// Insert text at a position (any line and UTF-16 column, also past
    /// the end: the server must cope with what a broken client sends).
    Insert { line: u8, col: u8, text: String },
    /// Delete a range given by its start and a length in lines and columns.
    Delete {
        line: u8,
        col: u8,
        lines: u8,
        cols: u8,
    },
    /// Replace a whole line (syntax breaks and comes back).
    ReplaceLine { line: u8, text: String },
    /// Request code lenses.
    CodeLens,
    /// Hover at a position.
    Hover { line: u8, col: u8 },
    /// Code actions over a range of lines.
    CodeAction { line: u8, lines: u8 },
    /// Send a code lens request and cancel it before it is answered.
    CancelledLens,
    /// Let the debounce expire and checks start.
    Wait { ms: u8 },
    /// Close and reopen the document with its current text.
    Reopen,
    /// A command of `docs/server.md`.
    Command {
        which: u8,
        line: u8,
        lines: u8,
        bound: u16,
    },
    /// Change a setting.
    Setting { which: u8 },
}

/// Runs one session: initialize, open, pin, edit per `ops`, close, shut
/// down. Every request must be answered; the session must end.
pub fn session(lang: Lang, first: &str, second: &str, ops: &[u8]) {
    let mut u = Unstructured::new(ops);
    let mut list = Vec::new();
    while !u.is_empty() && list.len() < 64 {
        match Op::arbitrary(&mut u) {
            Ok(op) => list.push(op),
            Err(_) => break,
        }
    }
    let rt = runtime();
    rt.block_on(run_session(lang, first, second, list));
    rt.shutdown_timeout(Duration::from_millis(50));
}

struct Session {
    service: LspService<eqlens_server::Backend>,
    next_id: i64,
    uri: String,
    lang_id: &'static str,
    text: String,
    version: i32,
    open: bool,
}

impl Session {
    async fn request(&mut self, method: &'static str, params: Value) -> Option<Response> {
        let req = self.build(method, params, true);
        let svc = self.service.ready().await.expect("service ready");
        svc.call(req).await.expect("service answered")
    }

    fn build(&mut self, method: &'static str, params: Value, id: bool) -> Request {
        let b = Request::build(method).params(params);
        if id {
            self.next_id += 1;
            b.id(self.next_id).finish()
        } else {
            b.finish()
        }
    }

    async fn notify(&mut self, method: &'static str, params: Value) {
        let req = self.build(method, params, false);
        let svc = self.service.ready().await.expect("service ready");
        let _ = svc.call(req).await.expect("service answered");
    }

    async fn change(&mut self, range: Value, text: String) {
        if !self.open {
            return;
        }
        self.version += 1;
        apply_lsp_edit(&mut self.text, &range, &text);
        let (uri, version) = (self.uri.clone(), self.version);
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"range": range, "text": text}]}),
        )
        .await;
    }

    async fn open(&mut self) {
        self.version += 1;
        let p = json!({"textDocument": {"uri": self.uri, "languageId": self.lang_id,
            "version": self.version, "text": self.text}});
        self.notify("textDocument/didOpen", p).await;
        self.open = true;
    }
}

/// Applies an LSP range edit the lenient way a client mirror would: lines
/// and UTF-16 columns past the end are clamped. Only used so that later
/// ops aim at text that exists; the server keeps its own copy.
fn apply_lsp_edit(text: &mut String, range: &Value, new: &str) {
    let pos = |p: &Value| -> usize {
        let line = p["line"].as_u64().unwrap_or(0) as usize;
        let col = p["character"].as_u64().unwrap_or(0) as usize;
        let mut start = 0;
        for _ in 0..line {
            match text[start..].find('\n') {
                Some(i) => start += i + 1,
                None => return text.len(),
            }
        }
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let mut units = 0;
        for (i, ch) in text[start..end].char_indices() {
            if units >= col {
                return start + i;
            }
            units += ch.len_utf16();
        }
        end
    };
    let (a, b) = (pos(&range["start"]), pos(&range["end"]));
    let (a, b) = (a.min(b), a.max(b));
    text.replace_range(a..b, new);
}

fn range(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
    json!({"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}})
}

async fn run_session(lang: Lang, first: &str, second: &str, ops: Vec<Op>) {
    let (service, socket) = service();
    // The client side: answer every server request with `null` and drop
    // notifications, so that no handler waits on a client that never answers.
    let (mut requests, mut responses) = socket.split();
    let client = tokio::spawn(async move {
        while let Some(req) = requests.next().await {
            if let Some(id) = req.id().cloned()
                && responses
                    .send(Response::from_ok(id, Value::Null))
                    .await
                    .is_err()
            {
                break;
            }
        }
    });
    let (lang_id, ext) = match lang {
        Lang::Java => ("java", "java"),
        Lang::C => ("c", "c"),
    };
    let mut s = Session {
        service,
        next_id: 0,
        uri: format!("file:///eqlens-fuzz/Doc.{ext}"),
        lang_id,
        text: first.to_string(),
        version: 0,
        open: false,
    };
    let init = json!({
        "processId": null,
        "rootUri": null,
        "capabilities": {"window": {"workDoneProgress": true},
                         "workspace": {"codeLens": {"refreshSupport": true}}},
        "initializationOptions": {"baseline": "pinned", "debounceMs": 0, "timeoutMs": 300,
                                  "loopBound": 2}
    });
    let r = s.request("initialize", init).await;
    assert!(r.is_some_and(|r| r.is_ok()), "initialize failed");
    s.notify("initialized", json!({})).await;
    s.open().await;
    let uri = s.uri.clone();
    let pin = json!({"command": "eqlens.pinBaseline", "arguments": [{"uri": uri}]});
    let _ = s.request("workspace/executeCommand", pin).await;
    let end = position_at(&s.text, s.text.len());
    s.change(range(0, 0, end.0 as u32 + 1, 0), second.to_string())
        .await;
    let mut cancelled = Vec::new();
    for op in ops {
        match op {
            Op::Insert { line, col, text } => {
                let (l, c) = (line as u32, col as u32);
                s.change(range(l, c, l, c), text).await;
            }
            Op::Delete {
                line,
                col,
                lines,
                cols,
            } => {
                let (l, c) = (line as u32, col as u32);
                let r = range(l, c, l + (lines % 4) as u32, c + cols as u32);
                s.change(r, String::new()).await;
            }
            Op::ReplaceLine { line, text } => {
                let l = line as u32;
                s.change(range(l, 0, l + 1, 0), text + "\n").await;
            }
            Op::CodeLens => {
                let _ = s
                    .request(
                        "textDocument/codeLens",
                        json!({"textDocument": {"uri": uri}}),
                    )
                    .await;
            }
            Op::Hover { line, col } => {
                let p = json!({"textDocument": {"uri": uri},
                               "position": {"line": line, "character": col}});
                let _ = s.request("textDocument/hover", p).await;
            }
            Op::CodeAction { line, lines } => {
                let l = line as u32;
                let p = json!({"textDocument": {"uri": uri},
                               "range": range(l, 0, l + lines as u32, 0),
                               "context": {"diagnostics": []}});
                let _ = s.request("textDocument/codeAction", p).await;
            }
            Op::CancelledLens => {
                let req = s.build(
                    "textDocument/codeLens",
                    json!({"textDocument": {"uri": uri}}),
                    true,
                );
                let id = s.next_id;
                let fut = s.service.ready().await.expect("service ready").call(req);
                cancelled.push(tokio::spawn(fut));
                s.notify("$/cancelRequest", json!({"id": id})).await;
            }
            Op::Wait { ms } => tokio::time::sleep(Duration::from_millis((ms % 32) as u64)).await,
            Op::Reopen => {
                if s.open {
                    s.notify(
                        "textDocument/didClose",
                        json!({"textDocument": {"uri": uri}}),
                    )
                    .await;
                    s.open = false;
                } else {
                    s.open().await;
                }
            }
            Op::Command {
                which,
                line,
                lines,
                bound,
            } => {
                let first = line as u32 + 1;
                let last = first + lines as u32;
                let (name, args) = match which % 8 {
                    0 => ("eqlens.pinBaseline", json!({"uri": uri})),
                    1 => ("eqlens.unpinBaseline", json!({"uri": uri})),
                    2 | 3 => {
                        let name = if which % 8 == 2 {
                            "eqlens.abstractBlock"
                        } else {
                            "eqlens.refineBlock"
                        };
                        let method = first_method_name(&s.text);
                        (
                            name,
                            json!({"uri": uri, "method": method, "arity": lines % 3,
                                      "firstLine": first, "lastLine": last}),
                        )
                    }
                    4 => ("eqlens.clearOverrides", json!({"uri": uri})),
                    5 => ("eqlens.recheck", json!({"uri": uri, "loopBound": bound})),
                    6 => {
                        let method = first_method_name(&s.text);
                        (
                            "eqlens.showDetails",
                            json!({"uri": uri, "method": method,
                                                      "arity": lines % 3, "quiet": true}),
                        )
                    }
                    _ => ("eqlens.nonexistent", json!({"uri": uri})),
                };
                let p = json!({"command": name, "arguments": [args]});
                let _ = s.request("workspace/executeCommand", p).await;
            }
            Op::Setting { which } => {
                let settings = match which % 6 {
                    0 => json!({"semantics": "machine"}),
                    1 => json!({"semantics": "math"}),
                    2 => json!({"checker": "dse"}),
                    3 => json!({"checker": "portfolio"}),
                    4 => json!({"lens": "all"}),
                    _ => json!({"loopBound": "not a number", "bogus": 1}),
                };
                s.notify(
                    "workspace/didChangeConfiguration",
                    json!({"settings": settings}),
                )
                .await;
            }
        }
    }
    let _ = s
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let _ = s.request("eqlens/baseline", json!({"uri": uri})).await;
    if s.open {
        s.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }
    for c in cancelled {
        c.await
            .expect("cancelled request task")
            .expect("service answered");
    }
    let r = s.request("shutdown", Value::Null).await;
    assert!(r.is_some_and(|r| r.is_ok()), "shutdown failed");
    s.notify("exit", Value::Null).await;
    drop(s);
    let _ = client.await;
}

/// The first identifier followed by `(` at the start of a declaration-ish
/// line: enough to aim commands at a method that may exist.
fn first_method_name(text: &str) -> String {
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(i) = t.find('(') {
            let head = &t[..i];
            if let Some(name) = head.split_whitespace().last()
                && head.split_whitespace().count() >= 2
                && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            {
                return name.to_string();
            }
        }
    }
    "f".to_string()
}
