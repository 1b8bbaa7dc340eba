//! Load, cancellation and progressive-result tests of `eqlens serve`, over
//! real stdio JSON-RPC against the built binary. No timing assertions on
//! speed: only that every request is answered, nothing the client sent is
//! lost, superseded work does not block newer work, and the final verdicts
//! are right.

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::*;

/// A check that Z3 cannot finish: x³ + y³ = z³ has no solution with
/// x, y, z > 1, and nonlinear integer arithmetic cannot show it. It runs
/// until its timeout.
const SPIN_OLD: &str = "\
class S {
    static int f(int x, int y, int z) {
        if (x > 1 && y > 1 && z > 1 && x * x * x + y * y * y == z * z * z) {
            return 1;
        }
        return 0;
    }
}
";

fn spin_new() -> String {
    SPIN_OLD.replace("return 1;", "return 0;")
}

fn repo_with(tag: &str, file: &str, text: &str) -> (Scratch, std::path::PathBuf) {
    let dir = Scratch::new(tag);
    let path = dir.write(file, text);
    dir.git(&["init", "-q"]);
    dir.git(&["add", file]);
    dir.git(&["commit", "-qm", "base"]);
    (dir, path)
}

fn replace_all(c: &mut Client, u: &str, version: i32, text: &str) {
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": version},
               "contentChanges": [{"text": text}]}),
    );
}

/// An edit that makes the long check obsolete interrupts it: the newer
/// version's verdict does not wait for the old query's one-minute timeout
/// (the server has a single worker on a two-core machine, so without the
/// interrupt the new job would queue behind it).
#[test]
fn a_superseded_check_is_interrupted() {
    let (dir, path) = repo_with("cancel", "S.java", SPIN_OLD);
    let mut c = Client::start(json!({"timeoutMs": 60_000, "debounceMs": 0}), &dir.0);
    let u = c.open(&path, "java", &spin_new());
    c.status(&u, |s| s["state"] == "checking");
    // Let the solver get deep into the query.
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    let refuted = spin_new().replace("return 0;\n    }\n}", "return 2;\n    }\n}");
    replace_all(&mut c, &u, 2, &refuted);
    let s = c.status(&u, |s| s["version"] == 2 && s["state"] == "done");
    assert_eq!(s["notEquivalent"], 1, "{s}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the new verdict waited for the superseded check: {:?}",
        started.elapsed()
    );
    // Back to the undecidable text: it was cancelled, not cached as a
    // verdict, so it is checked again.
    replace_all(&mut c, &u, 3, &spin_new());
    let s = c.status(&u, |s| s["version"] == 3);
    assert_eq!(s["state"], "checking", "{s}");
    c.shutdown();
}

/// A fast verdict first, then the stronger checker's: `dse` cannot see
/// through the abstracted `y = a + 1`, ARDiff refines it and proves.
#[test]
fn an_interim_verdict_is_replaced_by_the_proof() {
    let old = "class T {\n    static int f(int a) {\n        int y = a + 1;\n        return y - 1;\n    }\n}\n";
    let (dir, path) = repo_with("interim", "T.java", old);
    let mut c = Client::start(json!({}), &dir.0);
    let u = c.open(&path, "java", &old.replace("return y - 1;", "return a;"));
    let s = c.status(&u, |s| s["interim"] == 1);
    assert_eq!(
        (s["state"].as_str(), s["pending"].as_u64()),
        (Some("checking"), Some(1)),
        "{s}"
    );
    let s = c.status(&u, |s| s["state"] == "done");
    assert_eq!(
        (s["equivalent"].as_u64(), s["interim"].as_u64()),
        (Some(1), Some(0)),
        "{s}"
    );
    let lenses = c.wait_lens(&u, |t| t.starts_with("≡"));
    let title = lens_on(&lenses, 1);
    assert!(
        title.starts_with("≡ equivalent · ardiff · 1 refinement"),
        "{title}"
    );
    c.shutdown();
}

/// Methods of an EqBench-sized class: `n` small methods with a loop and a
/// branch each.
fn big_class(n: usize) -> String {
    let mut s = String::from("class Big {\n");
    for i in 0..n {
        s.push_str(&format!(
            "    static int m{i}(int a, int b) {{\n        int s = 0;\n        for (int k = 0; k < 4; k++) {{\n            s += a * k;\n        }}\n        if (s > b) {{\n            return s - b + {i};\n        }}\n        return b - s;\n    }}\n\n"
        ));
    }
    s.push_str("}\n");
    s
}

/// A minute of typing (one keystroke every few tens of milliseconds, as
/// incremental changes) interleaved with lens and hover requests, some of
/// them cancelled by the client at once. Every request is answered, the
/// server keeps the client's text exactly (the final verdicts and lens
/// lines are those of the final text), and the state settles.
#[test]
fn a_minute_of_typing_loses_nothing() {
    let secs: u64 = std::env::var("EQLENS_TYPING_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let base = big_class(250); // about 2,750 lines
    let (dir, path) = repo_with("typing", "Big.java", &base);
    let mut c = Client::start(json!({"debounceMs": 150}), &dir.0);
    let u = c.open(&path, "java", &base);
    c.status(&u, |s| s["state"] == "done");

    // Type `+ 1` into the return of m7, then keep typing a comment line by
    // line into m200, deleting it again, for `secs` seconds.
    let target_line = line_of(&base, "return s - b + 7;") as u64;
    let m7_head = line_of(&base, "static int m7(");
    let col = "            return s - b + 7".len() as u64;
    let mut text = base.clone();
    let mut version = 1;
    let mut pending_ids: Vec<i64> = Vec::new();
    let mut answered = 0usize;
    let insert = |text: &mut String, line: u64, col: u64, s: &str| {
        let offset: usize = text
            .split_inclusive('\n')
            .take(line as usize)
            .map(str::len)
            .sum::<usize>()
            + col as usize;
        text.insert_str(offset, s);
    };
    for (k, ch) in [" ", "+", " ", "1"].into_iter().enumerate() {
        version += 1;
        let at = col + k as u64;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version},
                   "contentChanges": [{"range": {"start": {"line": target_line, "character": at},
                                                 "end": {"line": target_line, "character": at}},
                                       "text": ch}]}),
        );
        insert(&mut text, target_line, at, ch);
    }
    // A trailing comment after m200's return, typed and deleted over and
    // over (formatting only: m200 stays unchanged).
    let comment_line = line_of(&text, "return s - b + 200;") as u64;
    let cc = "            return s - b + 200;".len() as u64;
    let typed = "// a comment being typed while the checks run";
    let start = Instant::now();
    let mut step = 0usize;
    while start.elapsed() < Duration::from_secs(secs) {
        // Type the comment character by character, then delete it whole.
        let i = step % (typed.len() + 1);
        version += 1;
        let change = if i < typed.len() {
            let ch = &typed[i..i + 1];
            let at = cc + i as u64;
            let r = json!({"start": {"line": comment_line, "character": at},
                           "end": {"line": comment_line, "character": at}});
            insert(&mut text, comment_line, at, ch);
            json!({"range": r, "text": ch})
        } else {
            let r = json!({"start": {"line": comment_line, "character": cc},
                           "end": {"line": comment_line, "character": cc + typed.len() as u64}});
            let line_start: usize = text
                .split_inclusive('\n')
                .take(comment_line as usize)
                .map(str::len)
                .sum();
            let from = line_start + cc as usize;
            text.replace_range(from..from + typed.len(), "");
            json!({"range": r, "text": ""})
        };
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": version}, "contentChanges": [change]}),
        );
        // Every few keystrokes the editor asks for lenses and a hover; some
        // of those it cancels right away.
        if step.is_multiple_of(4) {
            let id = c.send_request("textDocument/codeLens", json!({"textDocument": {"uri": u}}));
            pending_ids.push(id);
            if step.is_multiple_of(8) {
                c.notify("$/cancelRequest", json!({"id": id}));
            }
            let id = c.send_request(
                "textDocument/hover",
                json!({"textDocument": {"uri": u}, "position": {"line": m7_head, "character": 16}}),
            );
            pending_ids.push(id);
        }
        answered += c.collect_responses(&mut pending_ids);
        step += 1;
        std::thread::sleep(Duration::from_millis(25));
    }
    // Every request gets its answer (a result, or "cancelled").
    let until = Instant::now() + DEADLINE;
    while !pending_ids.is_empty() {
        assert!(
            Instant::now() < until,
            "unanswered requests: {pending_ids:?}"
        );
        answered += c.collect_responses(&mut pending_ids);
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(answered > 0);

    // The server has exactly the client's text: the verdicts are those of
    // the final text (m7 changed: not equivalent; nothing else changed
    // unless the comment was left half typed, which is equivalent).
    let s = c.status(&u, |s| s["version"] == version && s["state"] == "done");
    assert_eq!(s["notEquivalent"], 1, "{s}");
    assert_eq!(s["unknown"], 0, "{s}");
    let lenses = c.wait_lens(&u, |t| t.starts_with("≢"));
    assert!(
        lens_on(&lenses, m7_head).starts_with("≢ not equivalent"),
        "{lenses:#?}"
    );
    assert_eq!(lenses.len(), 1, "only m7 changed: {lenses:#?}");
    assert!(
        text.contains("return s - b + 7 + 1;"),
        "the test's own edit"
    );
    let hover = c.hover(&u, m7_head, 16);
    assert!(hover.contains("Inputs:"), "{hover}");
    c.shutdown();
}

/// Inputs that are wrong in ways a server meets in the wild.
#[test]
fn binary_baselines_shallow_clones_and_huge_files() {
    // A committed baseline that is not UTF-8.
    let dir = Scratch::new("binary");
    let path = dir.write("Bin.java", b"class B { /* \xff\xfe */ }\n");
    dir.git(&["init", "-q"]);
    dir.git(&["add", "Bin.java"]);
    dir.git(&["commit", "-qm", "base"]);
    let mut c = Client::start(json!({}), &dir.0);
    let u = c.open(&path, "java", "class B { }\n");
    let s = c.status(&u, |p| p["state"] == "idle");
    assert!(
        s["note"].as_str().unwrap_or("").contains("not UTF-8"),
        "{s}"
    );

    // A shallow clone asked for a ref it does not have.
    let (origin, _) = repo_with(
        "origin",
        "A.java",
        "class A { static int f(int a) { return a; } }\n",
    );
    origin.write(
        "A.java",
        "class A { static int f(int a) { return a + 0; } }\n",
    );
    origin.git(&["commit", "-qam", "second"]);
    let shallow = Scratch::new("shallow");
    let ok = std::process::Command::new("git")
        .args(["clone", "-q", "--depth", "1"])
        .arg(format!("file://{}", origin.0.display()))
        .arg(&shallow.0)
        .status()
        .expect("git clone")
        .success();
    assert!(ok);
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"eqlens": {"gitRef": "HEAD~1"}}}),
    );
    let a = shallow.0.join("A.java");
    let text = std::fs::read_to_string(&a).expect("read clone");
    let ua = c.open(&a, "java", &text);
    let s = c.status(&ua, |p| p["state"] == "idle");
    assert!(
        s["note"].as_str().unwrap_or("").contains("HEAD~1"),
        "the note names the missing ref: {s}"
    );

    // A 5,000-line file with three changed methods: checked, each verdict
    // in place.
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"eqlens": {"gitRef": "HEAD"}}}),
    );
    let base = big_class(455); // about 5,000 lines
    let (_big_dir, big) = repo_with("big", "Big.java", &base);
    let new = base
        .replace("return s - b + 10;", "return s - b + 11;")
        .replace("return s - b + 300;", "return 300 + s - b;")
        .replace("return s - b + 450;", "return s + 450 - b;");
    assert!(new.lines().count() > 5_000);
    let ub = c.open(&big, "java", &new);
    let s = c.status(&ub, |p| p["state"] == "done");
    assert_eq!(
        (
            s["changed"].as_u64(),
            s["equivalent"].as_u64(),
            s["notEquivalent"].as_u64()
        ),
        (Some(3), Some(2), Some(1)),
        "{s}"
    );
    let lenses = c.wait_lens(&ub, |t| t.starts_with("≢"));
    assert_eq!(lenses.len(), 3, "{lenses:#?}");
    assert!(lens_on(&lenses, line_of(&new, "static int m10(")).starts_with("≢"));
    assert!(lens_on(&lenses, line_of(&new, "static int m300(")).starts_with("≡"));
    c.shutdown();
}
