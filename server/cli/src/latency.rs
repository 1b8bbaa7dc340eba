//! `eqlens bench --latency DIR`: how long an editor waits. One
//! `eqlens serve` (this binary, spawned as a child and spoken to over stdio,
//! as an editor does) and, for each pair, a document that starts as the old
//! version (nothing to check) and is edited into the new one in a single
//! change, with the old version as its paired baseline:
//!
//! - *first verdict*: edit → the first status in which some changed method
//!   has a verdict (interim or final);
//! - *final lenses (cold)*: edit → every method final and the
//!   `textDocument/codeLens` answer in hand;
//! - *final lenses (cached)*: the same edit again after undoing it (the
//!   verdicts come from the cache).
//!
//! Debounce is 0 so that the numbers measure the server; an editor adds the
//! `debounceMs` setting on top. Nothing is asserted: the numbers go to the
//! terminal and to `latency.json` (rows and summary) in `--out`.

use crate::BenchArgs;
use crate::bench::select;
use crate::corpus;
use crate::error::CliError;
use crate::stats::{TimeStats, time_stats};
use eqlens_core::check::CheckerKind;
use eqlens_server::client::{ClientError, StdioClient};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Pairs whose checks together took at most this long are the ones the
/// editor-latency target is about.
const DECIDED_WITHIN_MS: f64 = 500.0;

#[derive(Debug, Serialize)]
struct Row {
    pair: String,
    lang: String,
    /// Methods that changed (lenses shown).
    methods: usize,
    /// Sum of the checker's own time over those methods.
    check_ms: f64,
    first_verdict_ms: f64,
    cold_ms: f64,
    cached_ms: f64,
}

#[derive(Debug, Serialize)]
struct Summary {
    pairs: usize,
    skipped: usize,
    checker: String,
    timeout_ms: u64,
    debounce_ms: u64,
    first_verdict: TimeStats,
    cold: TimeStats,
    cold_decided_within_500ms: TimeStats,
    cold_decided_within_500ms_pairs: usize,
    /// Cold latency minus the checker's own time: what the server adds.
    overhead: TimeStats,
    cached: TimeStats,
}

fn client_error(pair: &str, e: ClientError) -> CliError {
    CliError::Internal(format!("{pair}: {e}"))
}

fn file_uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

pub fn run(args: &BenchArgs) -> Result<u8, CliError> {
    let (pairs, langs) = select(args)?;
    std::fs::create_dir_all(&args.out).map_err(|e| {
        CliError::usage(format!(
            "cannot create output directory '{}': {e}",
            args.out.display()
        ))
    })?;
    let checker = args
        .checkers
        .first()
        .copied()
        .unwrap_or(CheckerKind::Portfolio);
    let exe = std::env::current_exe()
        .map_err(|e| CliError::usage(format!("cannot locate the eqlens executable: {e}")))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("serve").stderr(std::process::Stdio::null());
    let mut server =
        StdioClient::spawn(cmd).map_err(|e| CliError::Internal(format!("eqlens serve: {e}")))?;
    let timeout_ms = args.common.timeout_ms;
    let settings = json!({
        "baseline": "paired",
        "debounceMs": 0,
        "checker": checker.name(),
        "timeoutMs": timeout_ms,
        "loopBound": args.common.loop_bound,
        "semantics": match args.common.semantics {
            crate::SemanticsArg::Math => "math",
            crate::SemanticsArg::Machine => "machine",
        },
    });
    let root = std::fs::canonicalize(&args.dir).unwrap_or_else(|_| args.dir.clone());
    server
        .initialize(&file_uri(&root), settings, Duration::from_secs(30))
        .map_err(|e| client_error("initialize", e))?;

    let mut rows = Vec::new();
    let mut skipped = 0;
    for &lang in &langs {
        for pair in &pairs {
            let Some((old, new)) = corpus::sources(pair, lang) else {
                continue;
            };
            let (Ok(old_text), Ok(new_text)) =
                (std::fs::read_to_string(&old), std::fs::read_to_string(&new))
            else {
                skipped += 1;
                continue;
            };
            let new = std::fs::canonicalize(&new).unwrap_or(new);
            // A pair with many slow methods may take each one's timeout.
            let wait =
                Duration::from_millis(timeout_ms.saturating_mul(20)) + Duration::from_secs(60);
            let measured = match measure(&mut server, &new, lang, &old_text, &new_text, wait) {
                // A pair whose checks do not settle in time is skipped (its
                // document is closed, which cancels them); the run goes on.
                Err(ClientError::Timeout(what)) => {
                    eprintln!(
                        "{} ({lang}): skipped: timed out waiting for {what}",
                        pair.id
                    );
                    close(&mut server, &file_uri(&new));
                    None
                }
                other => other.map_err(|e| client_error(&pair.id, e))?,
            };
            match measured {
                Some(mut row) => {
                    row.pair = pair.id.clone();
                    row.lang = lang.to_string();
                    eprintln!(
                        "{:<40} {:>4} {:>8.1} ms cold {:>7.1} ms cached",
                        format!("{} ({})", row.pair, row.lang),
                        row.methods,
                        row.cold_ms,
                        row.cached_ms
                    );
                    rows.push(row);
                }
                None => skipped += 1,
            }
        }
    }
    let _ = server.shutdown(Duration::from_secs(10));

    let col = |f: &dyn Fn(&Row) -> f64, keep: &dyn Fn(&Row) -> bool| -> Vec<f64> {
        rows.iter().filter(|r| keep(r)).map(f).collect()
    };
    let all = |_: &Row| true;
    let quick = |r: &Row| r.check_ms <= DECIDED_WITHIN_MS;
    let summary = Summary {
        pairs: rows.len(),
        skipped,
        checker: checker.name().into(),
        timeout_ms,
        debounce_ms: 0,
        first_verdict: time_stats(&col(&|r| r.first_verdict_ms, &all)),
        cold: time_stats(&col(&|r| r.cold_ms, &all)),
        cold_decided_within_500ms: time_stats(&col(&|r| r.cold_ms, &quick)),
        cold_decided_within_500ms_pairs: rows.iter().filter(|r| quick(r)).count(),
        overhead: time_stats(&col(&|r| (r.cold_ms - r.check_ms).max(0.0), &all)),
        cached: time_stats(&col(&|r| r.cached_ms, &all)),
    };
    print_summary(&summary);
    let path = args.out.join("latency.json");
    let json = serde_json::to_string_pretty(&json!({"summary": summary, "rows": rows}))
        .map_err(|e| CliError::Internal(e.to_string()))?;
    std::fs::write(&path, json)
        .map_err(|e| CliError::usage(format!("cannot write '{}': {e}", path.display())))?;
    println!("\nrows and summary: {}", path.display());
    Ok(0)
}

fn print_summary(s: &Summary) {
    println!(
        "\nedit → lens latency · eqlens serve · {} pairs ({} skipped) · checker {} · timeout {} ms · debounce 0 ms",
        s.pairs, s.skipped, s.checker, s.timeout_ms
    );
    println!(
        "{:<36} {:>6} {:>10} {:>10}",
        "", "pairs", "p50 ms", "p95 ms"
    );
    let line = |name: &str, n: usize, t: &TimeStats| {
        println!("{name:<36} {n:>6} {:>10.1} {:>10.1}", t.median, t.p95);
    };
    line("first verdict (cold)", s.pairs, &s.first_verdict);
    line("final lenses (cold)", s.pairs, &s.cold);
    line(
        "  pairs decided within 500 ms",
        s.cold_decided_within_500ms_pairs,
        &s.cold_decided_within_500ms,
    );
    line("  server overhead (minus checking)", s.pairs, &s.overhead);
    line("final lenses (cached)", s.pairs, &s.cached);
}

/// One pair: returns `None` when the server checks nothing (no changed
/// method, or a note such as an unsupported file).
fn measure(
    c: &mut StdioClient,
    path: &Path,
    lang: eqlens_core::ir::Lang,
    old_text: &str,
    new_text: &str,
    wait: Duration,
) -> Result<Option<Row>, ClientError> {
    let uri = file_uri(path);
    let lang_id = lang.to_string(); // `java`, `c`: the LSP language ids
    c.notes.clear();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": lang_id, "version": 1, "text": old_text}}),
    );
    settle(c, &uri, 1, wait)?;
    let edit = |c: &mut StdioClient, version: i32, text: &str| {
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
    };

    // Cold: the first verdict, then all final and the lenses in hand.
    let t0 = Instant::now();
    edit(c, 2, new_text);
    let until = t0 + wait;
    let first = c.wait_note("a first verdict", until, |m| {
        is_status(m, &uri, 2)
            && (m["params"]["state"] != "checking"
                || m["params"]["interim"].as_u64() > Some(0)
                || m["params"]["pending"].as_u64() < m["params"]["changed"].as_u64())
    })?;
    let first_verdict_ms = ms(t0);
    let done = if first["params"]["state"] == "checking" {
        settle(c, &uri, 2, wait)?
    } else {
        first["params"].clone()
    };
    let lenses = c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
        wait,
    )?;
    let cold_ms = ms(t0);
    let lenses = lenses.as_array().cloned().unwrap_or_default();
    if done["state"] != "done" || lenses.is_empty() {
        close(c, &uri);
        return Ok(None);
    }
    let mut check_ms = 0.0;
    for l in &lenses {
        let details = c.request("workspace/executeCommand", l["command"].clone(), wait)?;
        check_ms += details["report"]["time"].as_f64().unwrap_or(0.0);
    }

    // Cached: undo, then the same edit again.
    edit(c, 3, old_text);
    settle(c, &uri, 3, wait)?;
    let t1 = Instant::now();
    edit(c, 4, new_text);
    settle(c, &uri, 4, wait)?;
    c.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
        wait,
    )?;
    let cached_ms = ms(t1);
    close(c, &uri);
    Ok(Some(Row {
        pair: String::new(),
        lang: String::new(),
        methods: lenses.len(),
        check_ms,
        first_verdict_ms,
        cold_ms,
        cached_ms,
    }))
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn is_status(m: &Value, uri: &str, version: i32) -> bool {
    m["method"] == "eqlens/status" && m["params"]["uri"] == uri && m["params"]["version"] == version
}

/// Waits until the document's `version` is no longer being checked;
/// returns that status.
fn settle(
    c: &mut StdioClient,
    uri: &str,
    version: i32,
    wait: Duration,
) -> Result<Value, ClientError> {
    let m = c.wait_note("the checks to finish", Instant::now() + wait, |m| {
        is_status(m, uri, version) && m["params"]["state"] != "checking"
    })?;
    Ok(m["params"].clone())
}

fn close(c: &mut StdioClient, uri: &str) {
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    c.notes.clear();
}
