//! `eqlens bench DIR`: run every pair of an EqBench-layout corpus with each
//! selected language and checker, tabulate how the verdicts compare with the
//! labels, and write per-pair results and a summary to `--out`.
//!
//! The worst outcome is a *wrong* verdict (an `Eq` pair refuted, or a `Neq`
//! pair proved or bounded-equivalent): those are listed loudly and make the
//! exit status 1.

use crate::corpus::{self, Label, PairDir};
use crate::error::CliError;
use crate::stats::{TimeStats, time_stats};
use crate::{BenchArgs, LangArg};
use anstyle::{AnsiColor, Style};
use eqlens_core::check::{CheckerKind, Options};
use eqlens_core::ir::{Lang, Semantics};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Error rows listed on the terminal (all are in results.csv).
const MAX_ERRORS_LISTED: usize = 10;

/// What a pair's run came to, coarser than a [`Verdict`](eqlens_core::check::Verdict).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PairOutcome {
    Equivalent,
    EquivalentBounded,
    /// Proved equivalent where both versions terminate, and the checker
    /// witnessed an input on which only one of them returns (the other ran
    /// past the interpreter's step limit): the versions differ at most in
    /// termination.
    EquivalentTerminationDiffers,
    /// C: proved equivalent where the old version is defined (refinement),
    /// with a witnessed input on which the old version is undefined and the
    /// new one is not: strictly, the versions differ there.
    EquivalentRefinesUndefined,
    NotEquivalent,
    Unknown,
    Unsupported,
    /// Could not be run: unreadable file, entry method missing, no shared
    /// method, or a crash inside the checker.
    Error,
}

impl PairOutcome {
    pub fn name(self) -> &'static str {
        match self {
            PairOutcome::Equivalent => "equivalent",
            PairOutcome::EquivalentBounded => "equivalent_bounded",
            PairOutcome::EquivalentTerminationDiffers => "equivalent_termination_differs",
            PairOutcome::EquivalentRefinesUndefined => "equivalent_refines_undefined",
            PairOutcome::NotEquivalent => "not_equivalent",
            PairOutcome::Unknown => "unknown",
            PairOutcome::Unsupported => "unsupported",
            PairOutcome::Error => "error",
        }
    }
}

/// Is `outcome` a wrong answer for a pair labelled `label`? A bounded proof
/// of a `Neq` pair is not: it claims only "equivalent up to k iterations",
/// which is true when the difference needs more; such pairs are counted in
/// their own column so that they stay visible. Likewise a proof "where both
/// terminate" of a `Neq` pair on which the checker itself witnessed a
/// termination difference: its claim is true when the difference is
/// termination (EqBench `REVE/triangularMod/Neq`: the old loop never ends
/// where the new one returns). A partial proof without such a witness is
/// an [`PairOutcome::Equivalent`], wrong on a `Neq` pair. And a C proof
/// that names an input on which the old version is undefined and the new
/// one is not: a refinement, where a label may count the undefined
/// behaviour as a difference.
pub fn is_wrong(label: Label, outcome: PairOutcome) -> bool {
    match label {
        Label::Eq => outcome == PairOutcome::NotEquivalent,
        Label::Neq => outcome == PairOutcome::Equivalent,
    }
}

/// One row of results.csv / results.json.
#[derive(Clone, Debug, Serialize)]
pub struct PairResult {
    pub id: String,
    pub lang: Lang,
    pub checker: CheckerKind,
    pub expected: Label,
    /// The entry method from the description file; `null` for whole-program
    /// pairs (every shared method checked).
    pub entry: Option<String>,
    pub outcome: PairOutcome,
    /// Set when the corpus label was corrected (`--disputed-labels`): why.
    pub disputed: Option<String>,
    /// For `equivalent_bounded`: the loop bound the proof holds up to.
    pub bounded: Option<u32>,
    pub wrong: bool,
    /// Method pairs checked.
    pub methods: usize,
    /// Wall-clock time for the pair (parsing included), milliseconds.
    pub time_ms: f64,
    /// What decided (`syntax`, `testing`, `ardiff`, ...), when decided.
    pub decided_by: Option<String>,
    /// Queries of the abstracting checkers, summed over the methods.
    pub iterations: Option<u32>,
    /// Why, in one line: the first difference, the unknown reason, the error.
    pub detail: String,
}

/// What decided and how many abstraction queries it took, from a child's
/// `check --format json` report (absent fields: `None`).
fn report_extras(run: &ChildRun) -> (Option<String>, Option<u32>) {
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&run.stdout) else {
        return (None, None);
    };
    let empty = Vec::new();
    let methods = doc["methods"].as_array().unwrap_or(&empty);
    let decided = methods
        .iter()
        .find_map(|m| m["decided_by"].as_str())
        .map(str::to_string);
    let iterations: Vec<u64> = methods
        .iter()
        .filter_map(|m| m["abstraction"]["iterations"].as_u64())
        .collect();
    let iterations = (!iterations.is_empty())
        .then(|| u32::try_from(iterations.iter().sum::<u64>()).unwrap_or(u32::MAX));
    (decided, iterations)
}

/// What one `eqlens check` child process produced.
#[derive(Debug)]
struct ChildRun {
    /// `None`: killed by a signal (or by us at the hard limit).
    code: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

/// The last meaningful line of a child's stderr, without our own prefix.
fn stderr_reason(stderr: &str) -> String {
    let line = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    line.strip_prefix("eqlens: error: ")
        .unwrap_or(line)
        .to_string()
}

/// Classifies one child run of `eqlens check --format json`.
fn classify(run: &ChildRun, hard_limit: Duration) -> (PairOutcome, Option<u32>, usize, String) {
    if run.timed_out {
        let detail = format!(
            "no answer within the hard limit of {} s: process killed",
            hard_limit.as_secs()
        );
        return (PairOutcome::Unknown, None, 0, detail);
    }
    match run.code {
        Some(0..=2) => {}
        Some(code) => {
            let why = stderr_reason(&run.stderr);
            return (
                PairOutcome::Error,
                None,
                0,
                if why.is_empty() {
                    format!("exit status {code}")
                } else {
                    why
                },
            );
        }
        None => {
            let why = stderr_reason(&run.stderr);
            return (
                PairOutcome::Error,
                None,
                0,
                format!("checker process crashed: {why}"),
            );
        }
    }
    let doc: serde_json::Value = match serde_json::from_str(&run.stdout) {
        Ok(doc) => doc,
        Err(_) => return (PairOutcome::Error, None, 0, stderr_reason(&run.stderr)),
    };
    classify_json(&doc)
}

/// Classifies a `check --format json` document (schema in docs/cli.md).
fn classify_json(doc: &serde_json::Value) -> (PairOutcome, Option<u32>, usize, String) {
    let empty = Vec::new();
    let methods = doc["methods"].as_array().unwrap_or(&empty);
    let n = methods.len();
    if n == 0 {
        return (
            PairOutcome::Error,
            None,
            0,
            "no method is present in both versions".to_string(),
        );
    }
    let name = |m: &serde_json::Value| m["name"].as_str().unwrap_or("?").to_string();
    match doc["summary"].as_str().unwrap_or("") {
        "equivalent" => {
            let termination_differs = methods.iter().any(|m| {
                m["partial"] == true
                    && m["assumptions"].as_array().is_some_and(|a| {
                        a.iter().any(|x| {
                            x.as_str().is_some_and(|x| {
                                x.starts_with(
                                    eqlens_core::check::assumption::TERMINATION_DIFFERENCE,
                                )
                            })
                        })
                    })
            });
            let refines = methods.iter().any(|m| {
                m["assumptions"].as_array().is_some_and(|a| {
                    a.iter().any(|x| {
                        x.as_str().is_some_and(|x| {
                            x.starts_with(eqlens_core::check::assumption::REFINEMENT_WITNESSED)
                        })
                    })
                })
            });
            let outcome = if termination_differs {
                PairOutcome::EquivalentTerminationDiffers
            } else if refines {
                PairOutcome::EquivalentRefinesUndefined
            } else {
                PairOutcome::Equivalent
            };
            (outcome, None, n, String::new())
        }
        "equivalent_bounded" => {
            let k = methods
                .iter()
                .filter_map(|m| m["bound"].as_u64())
                .max()
                .and_then(|k| u32::try_from(k).ok());
            (PairOutcome::EquivalentBounded, k, n, String::new())
        }
        "not_equivalent" => {
            let detail = methods
                .iter()
                .find(|m| m["verdict"] == "not_equivalent")
                .map(|m| {
                    format!(
                        "{}: {}",
                        name(m),
                        m["differences"][0].as_str().unwrap_or("differs")
                    )
                })
                .unwrap_or_default();
            (PairOutcome::NotEquivalent, None, n, detail)
        }
        "unknown" => {
            let unknowns: Vec<&serde_json::Value> = methods
                .iter()
                .filter(|m| m["verdict"] == "unknown")
                .collect();
            // One unsupported method makes the pair unsupported: that is the
            // root cause, whatever else timed out.
            let unsupported = unknowns
                .iter()
                .find(|m| m["reason"]["kind"] == "unsupported");
            let (outcome, first) = match unsupported {
                Some(m) => (PairOutcome::Unsupported, Some(*m)),
                None => (PairOutcome::Unknown, unknowns.first().copied()),
            };
            let detail = first
                .map(|m| {
                    let kind = m["reason"]["kind"].as_str().unwrap_or("unknown");
                    format!(
                        "{}: {kind}: {}",
                        name(m),
                        m["detail"].as_str().unwrap_or("")
                    )
                })
                .unwrap_or_default();
            (outcome, None, n, detail)
        }
        other => (
            PairOutcome::Error,
            None,
            n,
            format!("unexpected summary '{other}' in the check report"),
        ),
    }
}

/// One unit of work: a pair in one language with one checker.
struct Task<'a> {
    pair: &'a PairDir,
    lang: Lang,
    checker: CheckerKind,
    old: std::path::PathBuf,
    new: std::path::PathBuf,
    /// `--total-timeout-ms`, passed on to the pair's `eqlens check`.
    total_timeout_ms: Option<u64>,
}

/// The wall-clock limit for one pair's child process. The core's timeout
/// is per method pair and cooperative; this one is enforced by killing the
/// process, so a checker that hangs cannot stall the whole benchmark.
pub fn hard_limit(timeout_ms: u64) -> Duration {
    Duration::from_millis(timeout_ms.saturating_mul(6).max(60_000))
}

/// Runs `cmd`, killing it after `limit`. Output is read on helper threads
/// so a large report cannot block the child on a full pipe.
fn run_child(mut cmd: Command, limit: Duration) -> std::io::Result<ChildRun> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if start.elapsed() > limit {
            timed_out = true;
            let _ = child.kill();
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok(ChildRun {
        code: status.code(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        timed_out,
    })
}

/// Checks one pair in a child `eqlens check` process: a crash (stack
/// overflow, abort) or a hang in the core then costs one pair, not the run.
/// The entry candidates from the description are tried in order; the next
/// one is tried only when the child reports a usage error (entry missing).
fn run_task(task: &Task<'_>, base: &Options, exe: &Path) -> PairResult {
    let candidates = corpus::entry_candidates(task.pair, task.lang);
    let limit = hard_limit(base.timeout_ms);
    let attempt = |entry: Option<&str>| {
        let mut cmd = Command::new(exe);
        cmd.args(["--color", "never", "check"])
            .arg(&task.old)
            .arg(&task.new);
        cmd.arg(format!("--checker={}", task.checker.name()));
        cmd.arg(format!("--semantics={}", base.semantics));
        // Explicit, so that an eqlens.toml near the corpus does not decide.
        cmd.arg(format!("--signed-overflow={}", base.signed_overflow));
        cmd.arg(format!("--loop-bound={}", base.loop_bound));
        cmd.arg(format!("--timeout-ms={}", base.timeout_ms));
        if let Some(total) = task.total_timeout_ms {
            cmd.arg(format!("--total-timeout-ms={total}"));
        }
        cmd.arg("--format=json");
        if let Some(name) = entry {
            cmd.arg(format!("--method={name}"));
        }
        run_child(cmd, limit)
    };
    let start = Instant::now();
    let mut entry = None;
    let mut run = None;
    if candidates.is_empty() {
        run = Some(attempt(None));
    }
    for (i, name) in candidates.iter().enumerate() {
        let r = attempt(Some(name));
        let entry_missing =
            matches!(&r, Ok(c) if c.code == Some(crate::EXIT_USAGE.into()) && !c.timed_out);
        entry = Some(name.clone());
        run = Some(r);
        if !(entry_missing && i + 1 < candidates.len()) {
            break;
        }
    }
    let (decided_by, iterations) = match &run {
        Some(Ok(run)) if !run.timed_out => report_extras(run),
        _ => (None, None),
    };
    let (outcome, bounded, methods, detail) = match run {
        Some(Ok(run)) => classify(&run, limit),
        Some(Err(e)) => (
            PairOutcome::Error,
            None,
            0,
            format!("cannot run '{}': {e}", exe.display()),
        ),
        None => (PairOutcome::Error, None, 0, "nothing was run".to_string()),
    };
    PairResult {
        id: task.pair.id.clone(),
        lang: task.lang,
        checker: task.checker,
        expected: task.pair.label,
        entry,
        outcome,
        bounded,
        wrong: is_wrong(task.pair.label, outcome),
        disputed: task.pair.disputed.clone(),
        methods,
        time_ms: start.elapsed().as_secs_f64() * 1000.0,
        decided_by,
        iterations,
        detail,
    }
}

/// Totals for one language × checker.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GroupSummary {
    pub lang: String,
    pub checker: String,
    pub pairs: usize,
    pub eq_total: usize,
    /// Eq pairs proved without a bound.
    pub eq_proved: usize,
    /// Eq pairs proved only up to the loop bound.
    pub eq_bounded: usize,
    pub neq_total: usize,
    pub neq_refuted: usize,
    /// Neq pairs proved only up to the loop bound (not wrong: the claim is
    /// bounded, but the difference lies past the bound).
    pub neq_bounded: usize,
    /// Neq pairs proved equivalent where both terminate, with a witnessed
    /// termination difference (not wrong: see [`is_wrong`]).
    pub neq_termination: usize,
    /// Neq pairs proved equivalent as a refinement of the old version's
    /// undefined behaviour, with a witness (not wrong: see [`is_wrong`]).
    pub neq_refines: usize,
    pub wrong: usize,
    pub unknown: usize,
    pub unsupported: usize,
    pub errors: usize,
    /// Per-pair wall-clock time, milliseconds.
    pub time_ms: TimeStats,
    /// Mean abstraction queries per pair (abstracting checkers only).
    pub iterations_mean: Option<f64>,
    /// Decided pairs by what decided them.
    pub decided_by: std::collections::BTreeMap<String, usize>,
}

pub fn summarise(lang: Lang, checker: CheckerKind, results: &[&PairResult]) -> GroupSummary {
    let mut g = GroupSummary {
        lang: lang.to_string(),
        checker: checker.name().to_string(),
        ..Default::default()
    };
    for r in results {
        g.pairs += 1;
        match r.expected {
            Label::Eq => {
                g.eq_total += 1;
                // EqBench's Eq pairs include ones that differ only in
                // termination (`REVE/whileif`).
                g.eq_proved += usize::from(matches!(
                    r.outcome,
                    PairOutcome::Equivalent
                        | PairOutcome::EquivalentTerminationDiffers
                        | PairOutcome::EquivalentRefinesUndefined
                ));
                g.eq_bounded += usize::from(r.outcome == PairOutcome::EquivalentBounded);
            }
            Label::Neq => {
                g.neq_total += 1;
                g.neq_refuted += usize::from(r.outcome == PairOutcome::NotEquivalent);
                g.neq_bounded += usize::from(r.outcome == PairOutcome::EquivalentBounded);
                g.neq_termination +=
                    usize::from(r.outcome == PairOutcome::EquivalentTerminationDiffers);
                g.neq_refines += usize::from(r.outcome == PairOutcome::EquivalentRefinesUndefined);
            }
        }
        g.wrong += usize::from(r.wrong);
        g.unknown += usize::from(r.outcome == PairOutcome::Unknown);
        g.unsupported += usize::from(r.outcome == PairOutcome::Unsupported);
        g.errors += usize::from(r.outcome == PairOutcome::Error);
    }
    let times: Vec<f64> = results.iter().map(|r| r.time_ms).collect();
    g.time_ms = time_stats(&times);
    let iterations: Vec<f64> = results
        .iter()
        .filter_map(|r| r.iterations.map(f64::from))
        .collect();
    g.iterations_mean =
        (!iterations.is_empty()).then(|| iterations.iter().sum::<f64>() / iterations.len() as f64);
    for r in results {
        if let Some(d) = &r.decided_by {
            *g.decided_by.entry(d.clone()).or_default() += 1;
        }
    }
    g
}

/// The checkers of one language side by side, in the shape of ARDiff's
/// table: solved Eq (without and with a loop bound) and Neq, wrong
/// verdicts, time, abstraction queries.
pub fn render_comparison(groups: &[&GroupSummary]) -> String {
    let header = [
        "checker",
        "eq proved",
        "+bounded",
        "neq refuted",
        "wrong",
        "mean ms",
        "median ms",
        "mean queries",
        "decided by",
    ];
    let rows: Vec<[String; 9]> = groups
        .iter()
        .map(|g| {
            let pct = |a: usize, b: usize| {
                if b == 0 {
                    "-".to_string()
                } else {
                    format!("{a}/{b} ({:.0} %)", 100.0 * a as f64 / b as f64)
                }
            };
            [
                g.checker.clone(),
                pct(g.eq_proved, g.eq_total),
                g.eq_bounded.to_string(),
                pct(g.neq_refuted, g.neq_total),
                g.wrong.to_string(),
                format!("{:.1}", g.time_ms.mean),
                format!("{:.1}", g.time_ms.median),
                g.iterations_mean
                    .map(|i| format!("{i:.2}"))
                    .unwrap_or_else(|| "-".into()),
                g.decided_by
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i == 0 {
                out.push_str(&format!("  {c:<w$}", w = widths[i]));
            } else if i + 1 == cells.len() {
                out.push_str(&format!("  {c}"));
            } else {
                out.push_str(&format!("  {c:>w$}", w = widths[i]));
            }
        }
        out.push('\n');
        out
    };
    let mut out = line(header.to_vec());
    for r in &rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
}

const TABLE_HEADER: [&str; 14] = [
    "pairs",
    "eq proved",
    "eq bounded",
    "neq refuted",
    "neq bounded",
    "neq term.",
    "neq refines",
    "wrong",
    "unknown",
    "unsupported",
    "errors",
    "mean ms",
    "median ms",
    "p95 ms",
];

/// The per-group table: one header line, one row.
pub fn render_table(g: &GroupSummary) -> String {
    let cells = [
        g.pairs.to_string(),
        format!("{}/{}", g.eq_proved, g.eq_total),
        g.eq_bounded.to_string(),
        format!("{}/{}", g.neq_refuted, g.neq_total),
        g.neq_bounded.to_string(),
        g.neq_termination.to_string(),
        g.neq_refines.to_string(),
        g.wrong.to_string(),
        g.unknown.to_string(),
        g.unsupported.to_string(),
        g.errors.to_string(),
        format!("{:.1}", g.time_ms.mean),
        format!("{:.1}", g.time_ms.median),
        format!("{:.1}", g.time_ms.p95),
    ];
    let mut head = String::new();
    let mut row = String::new();
    for (h, c) in TABLE_HEADER.iter().zip(&cells) {
        let w = h.len().max(c.len());
        head.push_str(&format!("  {h:>w$}"));
        row.push_str(&format!("  {c:>w$}"));
    }
    format!("{head}\n{row}\n")
}

/// Quotes a CSV field when it needs it (RFC 4180: comma, quote, line
/// break; also leading/trailing spaces, which some readers trim).
pub fn csv_field(s: &str) -> String {
    let needs = s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ');
    if needs {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn results_csv(results: &[PairResult]) -> String {
    let mut out = String::from(
        "id,lang,checker,expected,entry,outcome,bounded,wrong,methods,time_ms,decided_by,iterations,detail\n",
    );
    for r in results {
        let fields = [
            r.id.clone(),
            r.lang.to_string(),
            r.checker.name().to_string(),
            r.expected.name().to_string(),
            r.entry.clone().unwrap_or_default(),
            r.outcome.name().to_string(),
            r.bounded.map(|k| k.to_string()).unwrap_or_default(),
            r.wrong.to_string(),
            r.methods.to_string(),
            format!("{:.3}", r.time_ms),
            r.decided_by.clone().unwrap_or_default(),
            r.iterations.map(|i| i.to_string()).unwrap_or_default(),
            r.detail.clone(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

#[derive(Serialize)]
struct WrongEntry<'a> {
    id: &'a str,
    lang: Lang,
    checker: CheckerKind,
    expected: Label,
    outcome: PairOutcome,
    detail: &'a str,
}

#[derive(Serialize)]
struct SummaryJson<'a> {
    corpus: String,
    semantics: eqlens_core::ir::Semantics,
    /// C under `machine`.
    signed_overflow: eqlens_core::ir::SignedOverflow,
    loop_bound: u32,
    timeout_ms: u64,
    jobs: u32,
    filter: Option<&'a str>,
    wall_time_ms: f64,
    groups: &'a [GroupSummary],
    wrong: Vec<WrongEntry<'a>>,
}

fn dedup<T: PartialEq + Copy>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

fn write_file(dir: &Path, name: &str, text: &str) -> Result<(), CliError> {
    let path = dir.join(name);
    std::fs::write(&path, text)
        .map_err(|e| CliError::usage(format!("cannot write '{}': {e}", path.display())))
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v)
        .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialise: {e}\"}}"))
        + "\n"
}

/// The pairs and languages `args` select: the corpus discovered, disputed
/// labels applied, `--filter` and `--lang` honoured; every problem is a
/// usage error naming the path.
pub fn select(args: &BenchArgs) -> Result<(Vec<PairDir>, Vec<Lang>), CliError> {
    let dir = &args.dir;
    if !dir.is_dir() {
        let why = if dir.exists() {
            "is not a directory"
        } else {
            "does not exist"
        };
        return Err(CliError::usage(format!(
            "corpus directory '{}' {why}",
            dir.display()
        )));
    }
    let pairs = corpus::discover(dir).map_err(|e| {
        CliError::usage(format!(
            "cannot read corpus directory '{}': {e}",
            dir.display()
        ))
    })?;
    if pairs.is_empty() {
        return Err(CliError::usage(format!(
            "no Eq/Neq pair directories under '{}' (expected <benchmark>/<program>/<Eq|Neq>/)",
            dir.display()
        )));
    }
    let mut pairs = pairs;
    if let Some(path) = &args.disputed_labels {
        let text = std::fs::read_to_string(path).map_err(|e| {
            CliError::usage(format!(
                "cannot read disputed labels '{}': {e}",
                path.display()
            ))
        })?;
        let list: Vec<corpus::DisputedLabel> = serde_json::from_str(&text)
            .map_err(|e| CliError::usage(format!("disputed labels '{}': {e}", path.display())))?;
        corpus::apply_disputed(&mut pairs, &list)
            .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
    }
    let pairs: Vec<PairDir> = match &args.filter {
        Some(f) => pairs
            .into_iter()
            .filter(|p| p.id.contains(f.as_str()))
            .collect(),
        None => pairs,
    };
    if pairs.is_empty() {
        let f = args.filter.as_deref().unwrap_or_default();
        return Err(CliError::usage(format!(
            "no pair id under '{}' contains '{f}' (--filter)",
            dir.display()
        )));
    }
    let langs: Vec<Lang> = if args.langs.is_empty() {
        vec![Lang::Java, Lang::C]
    } else {
        dedup(args.langs.iter().map(|&l: &LangArg| Lang::from(l)))
    };
    Ok((pairs, langs))
}

pub fn run(args: &BenchArgs) -> Result<u8, CliError> {
    if args.latency {
        return crate::latency::run(args);
    }
    let dir = &args.dir;
    let (pairs, langs) = select(args)?;
    let checkers: Vec<CheckerKind> = if args.checkers.is_empty() {
        CheckerKind::ALL.to_vec()
    } else {
        dedup(args.checkers.iter().copied())
    };
    // Fail on an unusable output directory before spending minutes checking.
    std::fs::create_dir_all(&args.out).map_err(|e| {
        CliError::usage(format!(
            "cannot create output directory '{}': {e}",
            args.out.display()
        ))
    })?;

    let tasks = tasks(args, &pairs, &langs, &checkers);
    if tasks.is_empty() {
        let names: Vec<String> = langs.iter().map(|l| l.to_string()).collect();
        return Err(CliError::usage(format!(
            "no pair under '{}' has oldV/newV sources for {}",
            dir.display(),
            names.join(" or ")
        )));
    }

    let base = args.common.options(CheckerKind::default());
    // Pairs are checked by this same binary's `check` command in child
    // processes (see `run_task`).
    let exe = std::env::current_exe()
        .map_err(|e| CliError::usage(format!("cannot locate the eqlens executable: {e}")))?;
    let started = Instant::now();
    let results = run_parallel(&tasks, &base, &exe, args.jobs as usize);
    let wall_time_ms = started.elapsed().as_secs_f64() * 1000.0;

    let mut text = String::new();
    let groups = render_groups(&mut text, &langs, &checkers, &base, &results);
    render_disputed(&mut text, &results);
    let wrong: Vec<&PairResult> = results.iter().filter(|r| r.wrong).collect();
    render_wrong(&mut text, &wrong);
    render_errors(&mut text, &results);
    text.push_str(&format!(
        "{} runs in {:.1} s; results in {}\n",
        results.len(),
        wall_time_ms / 1000.0,
        args.out.display()
    ));

    write_file(&args.out, "results.csv", &results_csv(&results))?;
    write_file(&args.out, "results.json", &to_json(&results))?;
    let summary = SummaryJson {
        corpus: dir.display().to_string(),
        semantics: base.semantics,
        signed_overflow: base.signed_overflow,
        loop_bound: base.loop_bound,
        timeout_ms: base.timeout_ms,
        jobs: args.jobs,
        filter: args.filter.as_deref(),
        wall_time_ms,
        groups: &groups,
        wrong: wrong
            .iter()
            .map(|r| WrongEntry {
                id: &r.id,
                lang: r.lang,
                checker: r.checker,
                expected: r.expected,
                outcome: r.outcome,
                detail: &r.detail,
            })
            .collect(),
    };
    write_file(&args.out, "summary.json", &to_json(&summary))?;

    let mut out = anstream::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(if wrong.is_empty() { 0 } else { 1 })
}

/// One task per language, checker and pair (in that order) with sources
/// for the language.
fn tasks<'a>(
    args: &BenchArgs,
    pairs: &'a [PairDir],
    langs: &[Lang],
    checkers: &[CheckerKind],
) -> Vec<Task<'a>> {
    let mut tasks = Vec::new();
    for &lang in langs {
        for &checker in checkers {
            for pair in pairs {
                if let Some((old, new)) = corpus::sources(pair, lang) {
                    tasks.push(Task {
                        pair,
                        lang,
                        checker,
                        old,
                        new,
                        total_timeout_ms: args.common.total_timeout_ms,
                    });
                }
            }
        }
    }
    tasks
}

/// A table per language and checker that ran, then (with several
/// checkers) the checkers side by side per language; the groups' summaries.
fn render_groups(
    text: &mut String,
    langs: &[Lang],
    checkers: &[CheckerKind],
    base: &Options,
    results: &[PairResult],
) -> Vec<GroupSummary> {
    let mut groups = Vec::new();
    let bold = Style::new().bold();
    for &lang in langs {
        for &checker in checkers {
            let rows: Vec<&PairResult> = results
                .iter()
                .filter(|r| r.lang == lang && r.checker == checker)
                .collect();
            if rows.is_empty() {
                continue;
            }
            let g = summarise(lang, checker, &rows);
            let semantics = match (lang, base.semantics) {
                (Lang::C, Semantics::Machine) => {
                    format!("machine (signed overflow {})", base.signed_overflow)
                }
                (_, s) => s.to_string(),
            };
            text.push_str(&format!(
                "{bold}{lang} · {} · {} · loop bound {} · timeout {} ms{bold:#}\n",
                checker.name(),
                semantics,
                base.loop_bound,
                base.timeout_ms
            ));
            text.push_str(&render_table(&g));
            text.push('\n');
            groups.push(g);
        }
    }
    if checkers.len() > 1 {
        for &lang in langs {
            let side: Vec<&GroupSummary> = groups
                .iter()
                .filter(|g| g.lang == lang.to_string())
                .collect();
            if side.len() > 1 {
                text.push_str(&format!("{bold}{lang} · checkers side by side{bold:#}\n"));
                text.push_str(&render_comparison(&side));
                text.push('\n');
            }
        }
    }
    groups
}

/// The corrected corpus labels the results were scored against: one line
/// per pair and language, whatever the number of checkers.
fn render_disputed(text: &mut String, results: &[PairResult]) {
    let mut disputed: Vec<&PairResult> = results.iter().filter(|r| r.disputed.is_some()).collect();
    disputed.sort_by(|a, b| {
        (&a.id, a.lang.to_string(), a.outcome.name()).cmp(&(
            &b.id,
            b.lang.to_string(),
            b.outcome.name(),
        ))
    });
    disputed.dedup_by(|a, b| a.id == b.id && a.lang == b.lang && a.outcome == b.outcome);
    if !disputed.is_empty() {
        text.push_str(
            "corpus labels corrected (--disputed-labels), scored against the correction:\n",
        );
        for r in &disputed {
            text.push_str(&format!(
                "  {} [{}]: now {}, got {} — {}\n",
                r.id,
                r.lang,
                r.expected.name(),
                r.outcome.name(),
                r.disputed.as_deref().unwrap_or_default()
            ));
        }
    }
}

/// The wrong verdicts, each named, or that there are none.
fn render_wrong(text: &mut String, wrong: &[&PairResult]) {
    if wrong.is_empty() {
        let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
        text.push_str(&format!("{green}no wrong verdicts{green:#}\n"));
    } else {
        let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
        text.push_str(&format!("{red}WRONG VERDICTS: {}{red:#}\n", wrong.len()));
        for r in wrong {
            let detail = if r.detail.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.detail)
            };
            text.push_str(&format!(
                "{red}  ✗ {} [{} {}]: labelled {}, got {}{detail}{red:#}\n",
                r.id,
                r.lang,
                r.checker.name(),
                r.expected.name(),
                r.outcome.name()
            ));
        }
    }
}

/// Pairs that could not be run hide verdicts: name a few so a broken
/// corpus or a crashing front end is noticed.
fn render_errors(text: &mut String, results: &[PairResult]) {
    let errors: Vec<&PairResult> = results
        .iter()
        .filter(|r| r.outcome == PairOutcome::Error)
        .collect();
    if !errors.is_empty() {
        let yellow = Style::new().fg_color(Some(AnsiColor::Yellow.into()));
        text.push_str(&format!(
            "{yellow}pairs that could not be run: {}{yellow:#}\n",
            errors.len()
        ));
        for r in errors.iter().take(MAX_ERRORS_LISTED) {
            text.push_str(&format!(
                "  {} [{} {}]: {}\n",
                r.id,
                r.lang,
                r.checker.name(),
                r.detail
            ));
        }
        if errors.len() > MAX_ERRORS_LISTED {
            text.push_str(&format!(
                "  … and {} more (see results.csv)\n",
                errors.len() - MAX_ERRORS_LISTED
            ));
        }
    }
}

/// Runs every task on `jobs` worker threads, with a progress bar on stderr
/// (drawn only when stderr is a terminal). Results come back in task order.
fn run_parallel(tasks: &[Task<'_>], base: &Options, exe: &Path, jobs: usize) -> Vec<PairResult> {
    let bar = ProgressBar::with_draw_target(Some(tasks.len() as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40} {pos}/{len} [{elapsed_precise}, eta {eta}] {wide_msg}",
    ) {
        bar.set_style(style);
    }
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<PairResult>>> = Mutex::new(vec![None; tasks.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, tasks.len().max(1)) {
            let worker = || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(task) = tasks.get(i) else { break };
                    let result = run_task(task, base, exe);
                    bar.set_message(format!(
                        "{} [{}] {}",
                        task.pair.id,
                        task.lang,
                        result.outcome.name()
                    ));
                    bar.inc(1);
                    let mut slots = slots.lock().unwrap_or_else(|p| p.into_inner());
                    if let Some(slot) = slots.get_mut(i) {
                        *slot = Some(result);
                    }
                }
            };
            let spawned = std::thread::Builder::new().spawn_scoped(scope, worker);
            if spawned.is_err() {
                // Could not get a thread (resource limits): help drain the
                // queue from here instead.
                worker();
            }
        }
    });
    bar.finish_and_clear();
    let slots = slots.into_inner().unwrap_or_else(|p| p.into_inner());
    // Every index below tasks.len() was taken by exactly one worker, so no
    // slot is empty; re-running is only a fallback that cannot panic.
    let mut out = Vec::with_capacity(tasks.len());
    for (slot, task) in slots.into_iter().zip(tasks) {
        out.push(slot.unwrap_or_else(|| run_task(task, base, exe)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(expected: Label, outcome: PairOutcome, ms: f64) -> PairResult {
        PairResult {
            id: "b/p/Eq".into(),
            lang: Lang::Java,
            checker: CheckerKind::Symbolic,
            expected,
            entry: Some("f".into()),
            outcome,
            bounded: None,
            wrong: is_wrong(expected, outcome),
            disputed: None,
            methods: 1,
            time_ms: ms,
            decided_by: None,
            iterations: None,
            detail: String::new(),
        }
    }

    #[test]
    fn comparison_table_lists_checkers_side_by_side() {
        let mut a = result(Label::Eq, PairOutcome::Equivalent, 10.0);
        a.checker = CheckerKind::Ardiff;
        a.decided_by = Some("ardiff".into());
        a.iterations = Some(3);
        let b = result(Label::Neq, PairOutcome::Unknown, 30.0);
        let ga = summarise(Lang::Java, CheckerKind::Ardiff, &[&a]);
        let gb = summarise(Lang::Java, CheckerKind::Symbolic, &[&b]);
        assert_eq!(ga.iterations_mean, Some(3.0));
        assert_eq!(ga.decided_by.get("ardiff"), Some(&1));
        let t = render_comparison(&[&ga, &gb]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert!(
            lines[1].contains("ardiff") && lines[1].contains("1/1 (100 %)"),
            "{t}"
        );
        assert!(
            lines[1].contains("3.00") && lines[1].contains("ardiff 1"),
            "{t}"
        );
        assert!(
            lines[2].contains("symbolic") && lines[2].contains("0/1 (0 %)"),
            "{t}"
        );
    }

    #[test]
    fn wrong_verdicts() {
        assert!(is_wrong(Label::Eq, PairOutcome::NotEquivalent));
        assert!(!is_wrong(Label::Eq, PairOutcome::Unknown));
        assert!(!is_wrong(Label::Eq, PairOutcome::EquivalentBounded));
        assert!(is_wrong(Label::Neq, PairOutcome::Equivalent));
        assert!(!is_wrong(Label::Neq, PairOutcome::EquivalentBounded));
        assert!(!is_wrong(
            Label::Neq,
            PairOutcome::EquivalentTerminationDiffers
        ));
        assert!(!is_wrong(
            Label::Eq,
            PairOutcome::EquivalentTerminationDiffers
        ));
        assert!(!is_wrong(
            Label::Neq,
            PairOutcome::EquivalentRefinesUndefined
        ));
        assert!(!is_wrong(
            Label::Eq,
            PairOutcome::EquivalentRefinesUndefined
        ));
        assert!(!is_wrong(Label::Neq, PairOutcome::Unsupported));
        assert!(!is_wrong(Label::Neq, PairOutcome::Error));
    }

    #[test]
    fn group_counts() {
        let rs = [
            result(Label::Eq, PairOutcome::Equivalent, 1.0),
            result(Label::Eq, PairOutcome::EquivalentBounded, 2.0),
            result(Label::Eq, PairOutcome::NotEquivalent, 3.0),
            result(Label::Neq, PairOutcome::NotEquivalent, 4.0),
            result(Label::Neq, PairOutcome::EquivalentBounded, 5.0),
            result(Label::Neq, PairOutcome::Unsupported, 6.0),
            result(Label::Neq, PairOutcome::Error, 7.0),
        ];
        let refs: Vec<&PairResult> = rs.iter().collect();
        let g = summarise(Lang::Java, CheckerKind::Symbolic, &refs);
        assert_eq!(
            (g.pairs, g.eq_total, g.eq_proved, g.eq_bounded),
            (7, 3, 1, 1)
        );
        assert_eq!(
            (g.neq_total, g.neq_refuted, g.neq_bounded, g.wrong),
            (4, 1, 1, 1)
        );
        assert_eq!((g.unknown, g.unsupported, g.errors), (0, 1, 1));
        assert_eq!(g.time_ms.median, 4.0);
        let table = render_table(&g);
        assert!(
            table.contains("eq proved") && table.contains("1/3") && table.contains("1/4"),
            "{table}"
        );
    }

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
        assert_eq!(csv_field(" pad"), "\" pad\"");
        let mut r = result(Label::Eq, PairOutcome::Unknown, 1.5);
        r.detail = "f: timeout: after 10,000 ms".into();
        let csv = results_csv(&[r]);
        let mut lines = csv.lines();
        assert_eq!(lines.next().map(|h| h.split(',').count()), Some(13));
        assert_eq!(
            lines.next(),
            Some(
                "b/p/Eq,java,symbolic,Eq,f,unknown,,false,1,1.500,,,\"f: timeout: after 10,000 ms\""
            )
        );
    }

    fn run(code: Option<i32>, stdout: &str, stderr: &str) -> ChildRun {
        ChildRun {
            code,
            stdout: stdout.into(),
            stderr: stderr.into(),
            timed_out: false,
        }
    }

    #[test]
    fn classify_child_failures() {
        let limit = Duration::from_secs(60);
        let (o, _, _, d) = classify(
            &run(
                Some(3),
                "",
                "eqlens: error: method 'f' not found in NEW file 'n.c' (only the old version has it)\n",
            ),
            limit,
        );
        assert_eq!(o, PairOutcome::Error);
        assert!(d.starts_with("method 'f' not found in NEW"), "{d}");
        let (o, _, _, d) = classify(&run(None, "", "thread overflowed its stack\n"), limit);
        assert_eq!(o, PairOutcome::Error);
        assert!(d.contains("crashed") && d.contains("overflowed"), "{d}");
        let (o, _, _, d) = classify(
            &run(Some(2), "", "eqlens: error: internal error: boom\n"),
            limit,
        );
        assert_eq!(
            (o, d.as_str()),
            (PairOutcome::Error, "internal error: boom")
        );
        let mut r = run(None, "", "");
        r.timed_out = true;
        let (o, _, _, d) = classify(&r, limit);
        assert_eq!(
            o,
            PairOutcome::Unknown,
            "a killed run is no answer, never wrong"
        );
        assert!(d.contains("hard limit of 60 s"), "{d}");
    }

    #[test]
    fn classify_reports() {
        let doc = |summary: &str, methods: serde_json::Value| {
            serde_json::json!({ "summary": summary, "methods": methods }).to_string()
        };
        let limit = Duration::from_secs(60);
        let eq = doc(
            "equivalent",
            serde_json::json!([{ "name": "f", "verdict": "equivalent", "bound": null }]),
        );
        assert_eq!(
            classify(&run(Some(0), &eq, ""), limit).0,
            PairOutcome::Equivalent
        );
        let b = doc(
            "equivalent_bounded",
            serde_json::json!([{ "name": "f", "verdict": "equivalent", "bound": 8 }, { "name": "g", "verdict": "equivalent", "bound": null }]),
        );
        let (o, k, n, _) = classify(&run(Some(2), &b, ""), limit);
        assert_eq!((o, k, n), (PairOutcome::EquivalentBounded, Some(8), 2));
        let ne = doc(
            "not_equivalent",
            serde_json::json!([{ "name": "f", "verdict": "not_equivalent", "differences": ["return value: 1 vs 2"] }]),
        );
        let (o, _, _, d) = classify(&run(Some(1), &ne, ""), limit);
        assert_eq!(
            (o, d.as_str()),
            (PairOutcome::NotEquivalent, "f: return value: 1 vs 2")
        );
        let un = doc(
            "unknown",
            serde_json::json!([
                { "name": "f", "verdict": "unknown", "reason": { "kind": "timeout" }, "detail": "t" },
                { "name": "g", "verdict": "unknown", "reason": { "kind": "unsupported" }, "detail": "try" }
            ]),
        );
        let (o, _, _, d) = classify(&run(Some(2), &un, ""), limit);
        assert_eq!(
            (o, d.as_str()),
            (PairOutcome::Unsupported, "g: unsupported: try")
        );
        let none = doc("unknown", serde_json::json!([]));
        let (o, _, _, d) = classify(&run(Some(2), &none, ""), limit);
        assert_eq!(o, PairOutcome::Error);
        assert!(d.contains("no method"), "{d}");
    }

    #[test]
    fn child_processes_are_killed_at_the_limit() {
        let mut cmd = Command::new("sleep");
        cmd.arg("30");
        let start = Instant::now();
        let Ok(r) = run_child(cmd, Duration::from_millis(200)) else {
            return;
        }; // no `sleep`: nothing to test
        assert!(r.timed_out);
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn hard_limit_is_generous() {
        assert_eq!(hard_limit(10_000), Duration::from_secs(60));
        assert_eq!(hard_limit(20_000), Duration::from_secs(120));
        assert_eq!(hard_limit(u64::MAX), Duration::from_millis(u64::MAX));
    }
}
