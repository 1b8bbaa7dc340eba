//! Protocol-level tests of `eqlens serve`: the built binary, spoken to over
//! real stdio JSON-RPC (Content-Length framing), in temporary directories
//! and git repositories. Waits are polls with a generous deadline, never
//! sleeps standing in for an assertion.

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::*;

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

/// One editor session against a git baseline, step by step: open, lenses,
/// diagnostics, hover, the baseline request, the abstract action, pinning.
/// Long: each step depends on the server state the previous ones left.
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

    // Progress: begun when the checks start, ended when none is pending.
    let begin = c.wait_note("$/progress begin", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin"
    });
    assert_eq!(begin["params"]["value"]["title"], "eqlens", "{begin}");
    let token = begin["params"]["token"].clone();
    let end = c.wait_note("$/progress end", |m| {
        m["method"] == "$/progress"
            && m["params"]["token"] == token
            && m["params"]["value"]["kind"] == "end"
    });
    assert_eq!(end["params"]["value"]["message"], "≡ 1  ≢ 1  ? 0", "{end}");
    c.status(&u, |s| s["state"] == "done");

    // Lenses: one per changed method, none for the unchanged `twice`.
    let lenses = c.wait_lens(&u, |t| t.starts_with("≢"));
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
    assert_eq!(abs["command"]["arguments"][0]["method"], "A.sum");
    c.request("workspace/executeCommand", abs["command"].clone());
    // The override reaches the checker: the hover reports it.
    let until = Instant::now() + DEADLINE;
    loop {
        let h = c.hover(&u, sum_line, 16);
        // (An interim verdict of the fast stage may show first.)
        if h.contains("override abstract 3") && !h.contains("still running") {
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
        if h.contains("override refine 3") && !h.contains("still running") {
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

/// `[callees]` in `eqlens.toml`: a callee declared impure makes a changed
/// method that calls it unsupported, naming the call; editing the project
/// file applies on the next check; a mistake in it is shown, not ignored.
#[test]
fn project_callee_declarations() {
    let old = "import com.acme.Audit;\nclass B {\n    static int f(int a) {\n        Audit.record(a);\n        if (a > 0) return a;\n        return -a;\n    }\n}\n";
    let new = old.replace(
        "if (a > 0) return a;\n        return -a;",
        "return a > 0 ? a : -a;",
    );
    let dir = Scratch::new("callees");
    let doc = dir.write("B.java", &new);
    dir.write("B.java.orig", old);
    dir.write("eqlens.toml", "[callees]\nimpure = [\"com.acme.*\"]\n");
    let mut c = Client::start(json!({"baseline": "paired"}), &dir.0);
    let u = c.open(&doc, "java", &new);
    let lenses = c.wait_lens(&u, |t| t.starts_with("? unsupported"));
    let lens = lens_on(&lenses, 2);
    assert!(
        lens.contains("com.acme.Audit.record") && lens.contains("declares impure"),
        "{lenses:#?}"
    );
    // Declared pure instead: proved, and the lens's verdict stands on it.
    dir.write("eqlens.toml", "[callees]\npure = [\"com.acme.Audit.*\"]\n");
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.recheck", "arguments": [{"uri": u}]}),
    );
    c.wait_lens(&u, |t| t.starts_with("≡"));
    // A bad pattern is reported with its position, and nothing is checked.
    dir.write("eqlens.toml", "[callees]\npure = [\"Audit.record()\"]\n");
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.recheck", "arguments": [{"uri": u}]}),
    );
    let s = c.status(&u, |s| s["state"] == "idle" && s["note"].is_string());
    let note = s["note"].as_str().unwrap_or("");
    assert!(
        note.contains("eqlens.toml:2:") && note.contains("'Audit.record()'"),
        "{s}"
    );
    c.shutdown();
}

/// A broken `eqlens.toml` next to a git-tracked document: every check
/// shows it in the status note, but it is logged once per document while
/// it stays the same mistake (not on every keystroke); a different
/// mistake is logged again.
#[test]
fn a_broken_project_file_is_logged_once() {
    let dir = Scratch::new("toml-once");
    let path = dir.write("A.java", JAVA_OLD);
    dir.git(&["init", "-q"]);
    dir.git(&["add", "A.java"]);
    dir.git(&["commit", "-qm", "base"]);
    dir.write("eqlens.toml", "[c]\nsigned-overflow = \"wrap\"\n");
    let mut c = Client::start(json!({}), &dir.0);
    let new = java_new();
    let u = c.open(&path, "java", &new);
    let edit = |c: &mut Client, version: i32, text: String| {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
        c.status(&u, |s| {
            s["version"] == version && s["state"] == "idle" && s["note"].is_string()
        })
    };
    let s = c.status(&u, |s| s["state"] == "idle" && s["note"].is_string());
    assert!(
        s["note"]
            .as_str()
            .is_some_and(|n| n.contains("eqlens.toml:2:")),
        "{s}"
    );
    edit(&mut c, 2, format!("{new}\n"));
    edit(&mut c, 3, format!("{new}\n\n"));
    dir.write("eqlens.toml", "[c]\nsigned-overflow = \"wrapping\"\n");
    edit(&mut c, 4, new.clone());
    let logged = |what: &str| {
        c.0.notes
            .iter()
            .filter(|n| {
                n["method"] == "window/logMessage"
                    && n["params"]["message"]
                        .as_str()
                        .is_some_and(|m| m.contains(what))
            })
            .count()
    };
    assert_eq!(logged("`wrap`"), 1, "{:#?}", c.0.notes);
    assert_eq!(logged("`wrapping`"), 1, "{:#?}", c.0.notes);
    c.shutdown();
}

/// The other ways to name a baseline: a `[[pair]]` in `eqlens.toml`, a file
/// renamed since the git ref, and a pin that outlives the session.
#[test]
fn project_pairs_git_renames_and_persisted_pins() {
    let old = "class B {\n    static int f(int a) {\n        return a + 1;\n    }\n}\n";
    let new = old.replace("a + 1", "a + 2");

    // eqlens.toml names the partner.
    let dir = Scratch::new("project");
    dir.write("legacy/B.java", old);
    let doc = dir.write("src/B.java", &new);
    dir.write(
        "eqlens.toml",
        "[[pair]]\nold = \"legacy/B.java\"\nnew = \"src/B.java\"\n",
    );
    let mut c = Client::start(json!({"baseline": "paired"}), &dir.0);
    let u = c.open(&doc, "java", &new);
    let s = c.status(&u, |s| s["state"] == "done");
    assert_eq!(s["baseline"], "B.java", "{s}");
    let lenses = c.wait_lens(&u, |t| t.starts_with("≢"));
    assert!(
        lens_on(&lenses, 1).starts_with("≢ not equivalent · a = "),
        "{lenses:#?}"
    );
    // A mistake in the project file is reported with its position.
    dir.write(
        "eqlens.toml",
        "[[pair]]\nold = \"legacy/B.java\"\nnwe = \"src/B.java\"\n",
    );
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.recheck", "arguments": [{"uri": u}]}),
    );
    let s = c.status(&u, |s| s["state"] == "idle");
    let note = s["note"].as_str().unwrap_or("");
    assert!(
        note.contains("eqlens.toml:3:1") && note.contains("nwe"),
        "{s}"
    );
    c.shutdown();

    // A file renamed with `git mv` (and then edited) is compared with its
    // old self.
    let repo = Scratch::new("rename");
    repo.write("Old.java", old.replace("class B", "class Old"));
    repo.git(&["init", "-q"]);
    repo.git(&["add", "Old.java"]);
    repo.git(&["commit", "-qm", "base"]);
    repo.git(&["mv", "Old.java", "Renamed.java"]);
    let renamed_text = new.replace("class B", "class Old");
    let renamed = repo.write("Renamed.java", &renamed_text);
    let mut c = Client::start(json!({}), &repo.0);
    let u = c.open(&renamed, "java", &renamed_text);
    let s = c.status(&u, |s| s["state"] == "done");
    assert_eq!(s["baseline"], "HEAD:Old.java", "{s}");
    assert_eq!(s["notEquivalent"], 1, "{s}");
    c.shutdown();

    // Pins persist under .eqlens/ when asked to, and come back.
    let ws = Scratch::new("pins");
    let file = ws.write("P.java", old);
    let mut c = Client::start(json!({"baseline": "pinned", "persistPins": true}), &ws.0);
    let u = c.open(&file, "java", old);
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.pinBaseline", "arguments": [{"uri": u}]}),
    );
    c.status(&u, |s| s["baseline"] == "pinned");
    assert_eq!(
        std::fs::read_to_string(ws.0.join(".eqlens/pins/P.java"))
            .ok()
            .as_deref(),
        Some(old)
    );
    assert!(ws.0.join(".eqlens/.gitignore").is_file());
    c.shutdown();
    let mut c = Client::start(json!({"baseline": "pinned", "persistPins": true}), &ws.0);
    let u = c.open(&file, "java", &new);
    let s = c.status(&u, |s| s["state"] == "done");
    assert_eq!(
        (s["baseline"].as_str(), s["notEquivalent"].as_u64()),
        (Some("pinned"), Some(1)),
        "{s}"
    );
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.unpinBaseline", "arguments": [{"uri": u}]}),
    );
    c.status(&u, |s| s["state"] == "idle");
    assert!(!ws.0.join(".eqlens/pins/P.java").exists());
    c.shutdown();
}

/// A session with a git-tracked Java document open and its verdicts
/// shown: what malformed input must leave intact.
fn session_with_verdicts(tag: &str) -> (Scratch, Client, String, Vec<String>) {
    let dir = Scratch::new(tag);
    let path = dir.write("A.java", JAVA_OLD);
    dir.git(&["init", "-q"]);
    dir.git(&["add", "A.java"]);
    dir.git(&["commit", "-qm", "base"]);
    let mut c = Client::start(json!({}), &dir.0);
    let u = c.open(&path, "java", &java_new());
    let titles = lens_titles(&c.wait_lens(&u, |t| t.starts_with("≢")));
    (dir, c, u, titles)
}

/// Sends `raw`, expects an error response with `code` and `id` null, then
/// checks that the session goes on: the open document's lenses are still
/// there (same verdicts, from the server's state), and `shutdown`/`exit`
/// end the server normally.
fn malformed_input_is_answered(tag: &str, raw: &[u8], code: i64) {
    let (_dir, mut c, u, before) = session_with_verdicts(tag);
    c.0.send_raw(raw);
    let reply = c.wait_note("the error response", |m| {
        m.get("method").is_none() && m["error"]["code"] == code
    });
    assert_eq!(reply["id"], serde_json::Value::Null, "{reply}");
    c.wait_note("the log message", |m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|s| s.contains("bad input"))
    });
    let after = lens_titles(
        &c.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}))
            .as_array()
            .cloned()
            .unwrap_or_default(),
    );
    assert_eq!(after, before);
    c.shutdown();
}

#[test]
fn invalid_json_is_a_parse_error_and_the_session_goes_on() {
    malformed_input_is_answered(
        "bad-json",
        b"Content-Length: 16\r\n\r\n{\"jsonrpc\": 2.0,",
        -32700,
    );
}

#[test]
fn a_json_array_is_an_invalid_request_and_the_session_goes_on() {
    let body = r#"[{"jsonrpc":"2.0","id":99,"method":"shutdown"}]"#;
    malformed_input_is_answered(
        "json-array",
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes(),
        -32600,
    );
}

#[test]
fn a_header_without_length_is_skipped_and_the_session_goes_on() {
    malformed_input_is_answered(
        "no-length",
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}",
        -32700,
    );
}

#[test]
fn a_length_that_is_not_a_number_is_skipped_and_the_session_goes_on() {
    malformed_input_is_answered(
        "length-abc",
        b"Content-Length: abc\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"initialized\"}",
        -32700,
    );
}

/// Framing that cannot be followed ends the server with a non-zero status,
/// the problem on stderr and in a `window/logMessage`.
#[test]
fn unrecoverable_framing_is_logged_and_exits_non_zero() {
    use std::io::Read;
    let cases: [(&[u8], &str); 2] = [
        // A body shorter than its Content-Length, then end of input.
        (
            b"Content-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\"}",
            "ended after 17 of the 100 bytes",
        ),
        // A header block that is not headers.
        (b"hello world\r\n\r\n", "not a header line"),
    ];
    for (raw, needle) in cases {
        let dir = Scratch::new("framing");
        let mut c = Client::start_with(json!({}), &dir.0, std::process::Stdio::piped());
        let mut stderr = c.0.take_stderr().expect("piped stderr");
        c.0.send_raw(raw);
        c.0.close_stdin();
        let log = c.wait_note("the log message", |m| m["method"] == "window/logMessage");
        let msg = log["params"]["message"].as_str().unwrap_or("");
        assert!(msg.contains(needle), "{log}");
        assert_eq!(log["params"]["type"], 1, "{log}");
        let status = c.0.wait_exit(DEADLINE).expect("exit");
        assert!(!status.success(), "{status}");
        let mut err = String::new();
        let _ = stderr.read_to_string(&mut err);
        assert!(err.contains(needle), "stderr: {err}");
    }
}

/// A repository whose configuration names programs (an fsmonitor hook, a
/// hooks directory, a pager, an external diff, clean filter and textconv
/// drivers for every file): resolving a git baseline, through the rename
/// path too, runs none of them, and the baseline still works.
#[test]
fn repository_configuration_never_runs_programs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("untrusted");
    dir.write("Old.java", JAVA_OLD);
    dir.git(&["init", "-q"]);
    dir.git(&["add", "Old.java"]);
    dir.git(&["commit", "-qm", "base"]);
    dir.git(&["mv", "Old.java", "Renamed.java"]);
    let new = java_new();
    let path = dir.write("Renamed.java", &new);

    // Set up last, so that the test's own git commands run none of it.
    let marker = dir.path("ran");
    let script = dir.write(
        "evil.sh",
        format!("#!/bin/sh\necho \"$0 $*\" >> '{}'\ncat\n", marker.display()),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    for hook in ["post-index-change", "pre-commit", "post-checkout"] {
        let h = dir.write(
            &format!("hooks/{hook}"),
            std::fs::read(&script).expect("read"),
        );
        std::fs::set_permissions(&h, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    dir.write(".gitattributes", "* filter=evil diff=evil\n");
    let s = script.display();
    let config = std::fs::read_to_string(dir.path(".git/config")).expect("config");
    dir.write(
        ".git/config",
        format!(
            "{config}[core]\n\tfsmonitor = {s}\n\thooksPath = {}\n\tpager = {s}\n\
             [diff]\n\texternal = {s}\n[diff \"evil\"]\n\ttextconv = {s}\n\
             [filter \"evil\"]\n\tclean = {s}\n\tsmudge = {s}\n[log]\n\tshowSignature = true\n",
            dir.path("hooks").display()
        ),
    );

    let mut c = Client::start(json!({}), &dir.0);
    let u = c.open(&path, "java", &new);
    let lenses = c.wait_lens(&u, |t| t.starts_with("≢"));
    assert!(!lenses.is_empty());
    let b = c.request("eqlens/baseline", json!({"uri": u}));
    assert_eq!(b["label"], "HEAD:Old.java", "{b}");
    assert_eq!(b["text"], JAVA_OLD);
    // Re-reading the baseline runs the same commands again.
    c.request(
        "workspace/executeCommand",
        json!({"command": "eqlens.recheck", "arguments": [{"uri": u}]}),
    );
    c.wait_lens(&u, |t| t.starts_with("≢"));
    c.shutdown();
    let ran = std::fs::read_to_string(&marker).unwrap_or_default();
    assert!(ran.is_empty(), "the repository made git run: {ran}");
}

/// `runGit: false` (what an editor sends for an untrusted workspace): no
/// git baseline, and the status says why.
#[test]
fn run_git_off_means_no_git_baseline() {
    let dir = Scratch::new("no-git");
    let path = dir.write("A.java", JAVA_OLD);
    dir.git(&["init", "-q"]);
    dir.git(&["add", "A.java"]);
    dir.git(&["commit", "-qm", "base"]);
    let mut c = Client::start(json!({"runGit": false}), &dir.0);
    let u = c.open(&path, "java", &java_new());
    let s = c.status(&u, |p| p["state"] == "idle");
    assert!(
        s["note"].as_str().unwrap_or("").contains("git is off"),
        "{s}"
    );
    c.shutdown();
}

#[test]
fn a_baseline_setting_changed_while_git_runs_is_the_one_used() {
    // Back-to-back setting changes: the check started by the first one may
    // still be reading the git baseline when the second arrives. What it
    // resolves belongs to a superseded setting and must not be kept.
    let dir = Scratch::new("rebase-race");
    let path = dir.write("A.java", JAVA_OLD);
    dir.git(&["init", "-q"]);
    dir.git(&["add", "A.java"]);
    dir.git(&["commit", "-qm", "base"]);
    let mut c = Client::start(json!({"debounceMs": 0}), &dir.0);
    let u = c.open(&path, "java", &java_new());
    c.wait_lens(&u, |t| t.starts_with("≢"));
    for round in 0..8 {
        c.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"eqlens": {"baseline": "git", "debounceMs": 0}}}),
        );
        c.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"eqlens": {"baseline": "paired", "debounceMs": 0}}}),
        );
        // Long enough for the first check's git to finish: under the race,
        // it would store the superseded baseline now, and the edit below
        // would be checked against it.
        std::thread::sleep(Duration::from_millis(300));
        let version = 2 + round;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version},
                   "contentChanges": [{"text": format!("{}// {round}\n", java_new())}]}),
        );
        let s = c.status(&u, |p| {
            p["version"] == version && (p["state"] == "idle" || p["state"] == "done")
        });
        assert!(
            s["note"].as_str().unwrap_or("").contains("no paired file"),
            "round {round}: the git baseline of the superseded setting was used: {s}"
        );
    }
    c.shutdown();
}
