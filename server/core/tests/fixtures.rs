//! Table-driven check of the fixture corpus (`fixtures/<lang>/<case>/`).
//!
//! Every case directory holds `old.<ext>`, `new.<ext>` and `expect.json`
//! (`{"method", "math", "machine", "why", "loop_bound"?, "timeout_ms"?, "native"?,
//! "math_only"?, "machine_wraps"?, "loop_inputs"?, "loop_input_max"?,
//! "renamed"?, "unwritten"?, "refines_undefined"?}` —
//! `native` says why the differential harness cannot build the case, e.g.
//! calls to a library that is not here; `math_only` why its `math`
//! counterexample cannot reproduce natively, where integers wrap;
//! `timeout_ms` the budget per check where a proof needs more than the
//! table's 30 s on a loaded machine (at most 120 s);
//! `loop_inputs` and `loop_input_max` steer the harness's random inputs,
//! `renamed` (old field name → new) tells it which fields are one and
//! `unwritten` which hold their initial values;
//! `machine_wraps` (C) the verdict under `machine` when the project
//! compiles with `-fwrapv`, checked as a third run;
//! `refines_undefined` (C) the semantics (`math`, `machine`) under which
//! the proof names inputs where the old version is undefined and the new
//! one is not — a proof naming such inputs under any other is a mismatch;
//! verdicts
//! `equivalent`, `equivalent_bounded`, `equivalent_partial` — where both
//! terminate —, `not_equivalent`, `unknown`, `unsupported`; a list of them
//! where the solver decides within the budget only on some runs, e.g.
//! `["equivalent_bounded", "equivalent"]` for a proof that needs a nonlinear
//! invariant Spacer finds only sometimes — never a proof together with
//! `not_equivalent`); adding a case is adding a directory. Each case is
//! checked under both semantics and the entry method's verdict is compared
//! to the expectation. All mismatches are
//! collected and reported together in one table, so one broken case does not
//! hide the others; a panic inside the checker is caught and reported as a
//! mismatch of that case. A check that differs (weaker or stronger, never
//! wrong) is run once more after the sweep before it counts: a proof near
//! the end of its budget can be lost on a loaded machine.
//!
//! Every lowered version is also checked against the IR's invariants
//! (`ir::validate`).
//!
//! Set `EQLENS_FIXTURE=<substring>[,<substring>…]` to run only the cases
//! whose `<lang>/<case>` name contains one of them, and `EQLENS_SWEEP_TRACE`
//! to have the soundness sweep print each check as it starts (a solver that
//! aborts the process leaves no table behind) and ends, with its time.

use eqlens_core::check::{
    Assumption, CheckerKind, Options, Refinement, Selection, Verdict, check_sources,
};
use eqlens_core::ir::{Lang, Semantics, SignedOverflow};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The verdict labels `expect.json` uses.
/// Whether the case `id` is one `filter` (comma-separated substrings)
/// selects.
fn selected(filter: &str, id: &str) -> bool {
    filter.split(',').any(|f| id.contains(f.trim()))
}

const LABELS: &[&str] = &[
    "equivalent",
    "equivalent_bounded",
    "equivalent_partial",
    "not_equivalent",
    "unknown",
    "unsupported",
];

/// Whether `expect.json`'s `method` names `m`: a bare name (`f`), one
/// with its classes (`B.f`, `A.B.f`), or the label an overload is shown by
/// (`clamp(long)`).
fn names_it(method: &str, m: &eqlens_core::check::MethodReport) -> bool {
    method == m.label
        || m.qualified == method
        || m.qualified
            .strip_suffix(method)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// One fixture directory, parsed.
#[derive(Debug)]
struct Case {
    /// `java/<name>` or `c/<name>`.
    id: String,
    lang: Lang,
    old: String,
    new: String,
    method: String,
    math: Expected,
    machine: Expected,
    /// C: the verdict under `machine` with `-fwrapv`, when the case says.
    machine_wraps: Option<Expected>,
    loop_bound: Option<u32>,
    /// The budget per check, where the case needs more than
    /// [`TABLE_TIMEOUT_MS`] to be decided on a loaded machine.
    timeout_ms: u64,
    /// C: the semantics under which a proof names inputs on which the old
    /// version is undefined and the new one is not (`math`, `machine`).
    refines_undefined: Vec<String>,
}

/// One way a case is checked: the semantics, and for C under `machine`
/// what signed overflow does.
#[derive(Clone, Copy, Debug)]
struct Model {
    semantics: Semantics,
    signed_overflow: SignedOverflow,
}

impl Model {
    fn label(&self) -> String {
        match (self.semantics, self.signed_overflow) {
            (Semantics::Machine, SignedOverflow::Wraps) => "machine, -fwrapv".into(),
            (s, _) => s.to_string(),
        }
    }
}

/// The verdicts a check may come out with: usually one label, several
/// where the solver decides only on some runs.
#[derive(Debug, Clone)]
struct Expected(Vec<&'static str>);

impl Expected {
    fn admits(&self, got: &str) -> bool {
        self.0.contains(&got)
    }

    /// The worst severity `got` has against any admitted label.
    fn severity(&self, got: &str) -> Severity {
        if self.0.iter().any(|e| severity(e, got) == Severity::Wrong) {
            Severity::Wrong
        } else {
            Severity::Differs
        }
    }
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join(" or "))
    }
}

impl Case {
    /// Each model the case is checked under, with its expected verdict.
    fn runs(&self) -> Vec<(Model, &Expected)> {
        let model = |semantics, signed_overflow| Model {
            semantics,
            signed_overflow,
        };
        let mut runs = vec![
            (
                model(Semantics::Math, SignedOverflow::Undefined),
                &self.math,
            ),
            (
                model(Semantics::Machine, SignedOverflow::Undefined),
                &self.machine,
            ),
        ];
        if let Some(v) = &self.machine_wraps {
            runs.push((model(Semantics::Machine, SignedOverflow::Wraps), v));
        }
        runs
    }
}

/// How an observed verdict relates to the expected one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Severity {
    /// A proof where a real difference exists, or a counterexample where the
    /// versions are equivalent: the checker (or the fixture) is wrong.
    Wrong,
    /// Any other disagreement: weaker or stronger than expected, or the
    /// entry method is missing from the report.
    Differs,
    /// The checker panicked.
    Panic,
    /// The fixture itself is malformed.
    BadFixture,
}

impl Severity {
    fn tag(self) -> &'static str {
        match self {
            Severity::Wrong => "WRONG VERDICT",
            Severity::Differs => "differs",
            Severity::Panic => "panic",
            Severity::BadFixture => "bad fixture",
        }
    }
}

#[derive(Debug)]
struct Mismatch {
    id: String,
    semantics: String,
    expected: String,
    got: String,
    severity: Severity,
    detail: String,
}

/// Maps a verdict to its `expect.json` label.
fn label(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Equivalent(p) if p.bounded.is_some() => "equivalent_bounded",
        Verdict::Equivalent(p) if p.partial => "equivalent_partial",
        Verdict::Equivalent(_) => "equivalent",
        Verdict::NotEquivalent(_) => "not_equivalent",
        Verdict::Unknown(u) if u.reason.is_unsupported() => "unsupported",
        Verdict::Unknown(_) => "unknown",
    }
}

/// A proof contradicting a counterexample (either way round) is a wrong
/// verdict; everything else is a difference in precision.
fn severity(expected: &str, got: &str) -> Severity {
    let proved = |l: &str| l.starts_with("equivalent");
    if (proved(expected) && got == "not_equivalent")
        || (expected == "not_equivalent" && proved(got))
    {
        Severity::Wrong
    } else {
        Severity::Differs
    }
}

/// Short human-readable detail of a verdict for the mismatch table.
fn detail(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Equivalent(p) => match p.bounded {
            Some(k) => format!("bounded at {k}"),
            None => String::new(),
        },
        Verdict::NotEquivalent(cex) => {
            let inputs: Vec<String> = cex
                .inputs
                .iter()
                .map(|b| format!("{}={}", b.name, b.value))
                .collect();
            format!(
                "inputs {}; {}",
                inputs.join(", "),
                cex.differences.join("; ")
            )
        }
        Verdict::Unknown(u) => u.detail.clone(),
    }
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Reads one case directory; a malformed fixture is an error message.
fn read_case(dir: &Path, lang: Lang, ext: &str) -> Result<Case, String> {
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("?");
    let id = format!("{ext}/{name}");
    let read = |file: &str| {
        std::fs::read_to_string(dir.join(file))
            .map_err(|e| format!("{id}: cannot read {file}: {e}"))
    };
    let old = read(&format!("old.{ext}"))?;
    let new = read(&format!("new.{ext}"))?;
    let expect: serde_json::Value = serde_json::from_str(&read("expect.json")?)
        .map_err(|e| format!("{id}: expect.json: {e}"))?;
    let field = |key: &str| -> Result<String, String> {
        expect
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| format!("{id}: expect.json lacks string field {key:?}"))
    };
    let verdict_field = |key: &str| -> Result<Expected, String> {
        let one = |v: &serde_json::Value| {
            v.as_str()
                .and_then(|v| LABELS.iter().copied().find(|l| *l == v))
                .ok_or_else(|| format!("{id}: expect.json {key:?} has {v}, not one of {LABELS:?}"))
        };
        let labels = match expect.get(key) {
            None => return Err(format!("{id}: expect.json lacks verdict field {key:?}")),
            Some(serde_json::Value::Array(list)) if !list.is_empty() => {
                list.iter().map(one).collect::<Result<Vec<_>, _>>()?
            }
            Some(v) => vec![one(v)?],
        };
        let proves = labels.iter().any(|l| l.starts_with("equivalent"));
        if proves && labels.contains(&"not_equivalent") {
            return Err(format!(
                "{id}: expect.json {key:?} admits both a proof and a counterexample"
            ));
        }
        Ok(Expected(labels))
    };
    let loop_bound = match expect.get("loop_bound") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    format!("{id}: expect.json loop_bound is not a small non-negative integer")
                })?,
        ),
    };
    let timeout_ms = match expect.get("timeout_ms") {
        None => TABLE_TIMEOUT_MS,
        Some(v) => v
            .as_u64()
            .filter(|ms| (TABLE_TIMEOUT_MS..=120_000).contains(ms))
            .ok_or_else(|| {
                format!("{id}: expect.json timeout_ms is not between {TABLE_TIMEOUT_MS} and 120000")
            })?,
    };
    field("why")?;
    let method = field("method")?;
    let math = verdict_field("math")?;
    let machine = verdict_field("machine")?;
    let machine_wraps = match expect.get("machine_wraps") {
        None => None,
        Some(_) if lang != Lang::C => {
            return Err(format!(
                "{id}: expect.json machine_wraps is for C (-fwrapv), not {ext}"
            ));
        }
        Some(_) => Some(verdict_field("machine_wraps")?),
    };
    let refines_undefined = match expect.get("refines_undefined") {
        None => Vec::new(),
        Some(v) => v
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().filter(|s| ["math", "machine"].contains(s)))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|l| l.len() == v.as_array().map_or(0, Vec::len))
            .ok_or_else(|| {
                format!("{id}: expect.json refines_undefined is not a list of \"math\"/\"machine\"")
            })?,
    };
    Ok(Case {
        id,
        lang,
        old,
        new,
        method,
        math,
        machine,
        machine_wraps,
        loop_bound,
        timeout_ms,
        refines_undefined,
    })
}

/// Every case under `fixtures/`, sorted; malformed ones as errors.
fn collect_cases() -> Vec<Result<Case, String>> {
    let root = fixtures_root();
    let mut cases = Vec::new();
    for (lang, ext) in [(Lang::Java, "java"), (Lang::C, "c")] {
        let Ok(entries) = std::fs::read_dir(root.join(ext)) else {
            cases.push(Err(format!("cannot read {}", root.join(ext).display())));
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        cases.extend(dirs.iter().map(|d| read_case(d, lang, ext)));
    }
    cases
}

/// The process-wide panic hook type.
/// The name of the threads that run the table's checks, whose panic
/// messages the table silences (it lists the panics itself).
const TABLE_WORKER: &str = "fixture-check";

/// Runs `f` on every job on as many threads (named `name`) as the machine
/// has cores, and returns the results in the order of the jobs. The checks
/// are independent: each has its own Z3 context and work clock.
fn in_parallel<J: Sync, R: Send>(jobs: &[J], name: &str, f: impl Fn(&J) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers.min(jobs.len()).max(1))
            .map(|_| {
                std::thread::Builder::new()
                    .name(name.into())
                    .spawn_scoped(s, || {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(job) = jobs.get(i) else {
                                return done;
                            };
                            done.push((i, f(job)));
                        }
                    })
                    .expect("spawning a fixture worker")
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a fixture worker panicked outside a check"))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

type PanicHook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// The message of a caught panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Expected verdicts say what can be decided, not how fast (timings belong
/// in docs/benchmarks.md): three times the default budget keeps them
/// independent of the load on a CI machine.
const TABLE_TIMEOUT_MS: u64 = 30_000;

/// The sweep's budget per check, far below the default one: five checkers
/// on every fixture must fit in CI beside the table, and what a checker
/// decides quickly (most refutations, the proofs of most pairs) is what
/// this sweep checks; the default checker at a full budget is the table's.
/// A check a checker cannot decide runs to the wall-time safety net
/// (`clock::wall_bound`), so those checks cost in proportion to this
/// budget; the rest of the sweep's time is the number of its checks.
const SWEEP_TIMEOUT_MS: u64 = 1_000;

/// Checks one case under one semantics with one checker and budget; `None`
/// when it matches. `refines` (when given) is whether a proof must name
/// inputs on which the old version is undefined and the new one is not.
fn run_one(
    case: &Case,
    model: Model,
    checker: CheckerKind,
    timeout_ms: u64,
    expected: &Expected,
    refines: Option<bool>,
) -> (Option<Mismatch>, Duration) {
    let mut options = Options {
        semantics: model.semantics,
        signed_overflow: model.signed_overflow,
        checker,
        timeout_ms,
        ..Default::default()
    };
    if let Some(k) = case.loop_bound {
        options.loop_bound = k;
    }
    let selection = Selection::Method(case.method.clone());
    let start = Instant::now();
    let result = std::panic::catch_unwind(|| {
        check_sources(case.lang, &case.old, &case.new, &selection, &options)
    });
    let elapsed = start.elapsed();
    let mismatch = |got: &str, severity: Severity, detail: String| Mismatch {
        id: case.id.clone(),
        semantics: model.label(),
        expected: expected.to_string(),
        got: got.to_string(),
        severity,
        detail,
    };
    let outcome = match result {
        Err(payload) => Some(mismatch(
            "-",
            Severity::Panic,
            panic_message(payload.as_ref()),
        )),
        Ok(report) => match report.methods.iter().find(|m| names_it(&case.method, m)) {
            None => {
                let names: Vec<&str> = report.methods.iter().map(|m| m.label.as_str()).collect();
                Some(mismatch(
                    "-",
                    Severity::Differs,
                    format!("method not in report (paired: {names:?})"),
                ))
            }
            Some(m) => {
                let got = label(&m.verdict);
                match (&m.verdict, refines) {
                    _ if !expected.admits(got) => {
                        Some(mismatch(got, expected.severity(got), detail(&m.verdict)))
                    }
                    (Verdict::Equivalent(p), Some(want)) if witnessed(p) != want => Some(mismatch(
                        got,
                        Severity::Differs,
                        if want {
                            "expected the proof to name inputs on which the old version is \
                             undefined (refines_undefined)"
                                .into()
                        } else {
                            format!(
                                "the proof names inputs on which the old version is undefined, \
                                 not declared in refines_undefined: {}",
                                p.assumptions
                                    .iter()
                                    .map(ToString::to_string)
                                    .collect::<Vec<_>>()
                                    .join("; ")
                            )
                        },
                    )),
                    _ => None,
                }
            }
        },
    };
    (outcome, elapsed)
}

/// Whether a proof names inputs on which the old version is undefined and
/// the new one is not.
fn witnessed(p: &eqlens_core::check::Proof) -> bool {
    p.assumptions
        .iter()
        .any(|a| matches!(a, Assumption::RefinesUndefined(Refinement::Witnessed(_))))
}

/// Truncates long details so the table stays readable.
fn clip(s: &str, max: usize) -> String {
    let one_line = s.replace('\n', " ");
    if one_line.chars().count() <= max {
        one_line
    } else {
        let cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

fn render_table(mismatches: &[Mismatch]) -> String {
    let headers = ["case", "semantics", "expected", "got", "kind", "detail"];
    let rows: Vec<[String; 6]> = mismatches
        .iter()
        .map(|m| {
            [
                m.id.clone(),
                m.semantics.clone(),
                m.expected.clone(),
                m.got.clone(),
                m.severity.tag().to_string(),
                clip(&m.detail, 100),
            ]
        })
        .collect();
    let mut widths = headers.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, "  {}", padded.join(" | ").trim_end());
    };
    line(&mut out, &headers.map(str::to_string));
    line(&mut out, &widths.map(|w| "-".repeat(w)));
    for row in &rows {
        line(&mut out, row);
    }
    out
}

/// One check of the table: the default checker with the case's budget.
fn run_table_check(
    case: &Case,
    model: Model,
    expected: &Expected,
    refines: Option<bool>,
) -> (Option<Mismatch>, Duration) {
    run_one(
        case,
        model,
        CheckerKind::default(),
        case.timeout_ms,
        expected,
        refines,
    )
}

#[test]
fn fixtures_match_expected_verdicts() {
    let filter = std::env::var("EQLENS_FIXTURE").ok();
    let cases = collect_cases();
    assert!(
        !cases.is_empty(),
        "no fixtures found under {}",
        fixtures_root().display()
    );

    // Silence panic messages of the table's workers while checking: they
    // are caught and listed in the table instead of interleaving
    // backtraces. Other threads (tests running in parallel) keep the
    // previous hook.
    let previous_hook: std::sync::Arc<PanicHook> = std::panic::take_hook().into();
    let forward = std::sync::Arc::clone(&previous_hook);
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() != Some(TABLE_WORKER) {
            forward(info);
        }
    }));
    let mut mismatches = Vec::new();
    let mut slow = Vec::new();
    let mut retries = Vec::new();
    let mut jobs = Vec::new();
    for case in &cases {
        let case = match case {
            Ok(c) => c,
            Err(e) => {
                mismatches.push(Mismatch {
                    id: e.split(':').next().unwrap_or("?").to_string(),
                    semantics: "-".into(),
                    expected: "-".into(),
                    got: "-".into(),
                    severity: Severity::BadFixture,
                    detail: e.clone(),
                });
                continue;
            }
        };
        if filter.as_deref().is_some_and(|f| !selected(f, &case.id)) {
            continue;
        }
        for (model, expected) in case.runs() {
            // Under -fwrapv (a third run) what remains undefined is not
            // declared separately.
            let refines = (model.signed_overflow == SignedOverflow::Undefined).then(|| {
                case.refines_undefined
                    .contains(&model.semantics.to_string())
            });
            jobs.push((case, model, expected, refines));
        }
    }
    let checked = jobs.len();
    // The checks run on every core: what decides a verdict is the budget's
    // work clock, which counts the solver's work the same under any load;
    // what a busy core can still cost (the CPU time charged outside solver
    // calls) is what the second run below absorbs.
    let results = in_parallel(&jobs, TABLE_WORKER, |&(case, model, expected, refines)| {
        run_table_check(case, model, expected, refines)
    });
    for (&(case, model, expected, refines), (mismatch, elapsed)) in jobs.iter().zip(results) {
        if elapsed > Duration::from_secs(5) {
            slow.push(format!(
                "{} [{}]: {:.1}s",
                case.id,
                model.label(),
                elapsed.as_secs_f64()
            ));
        }
        match mismatch {
            Some(m) if m.severity == Severity::Differs => {
                retries.push((case, model, expected, refines, m));
            }
            Some(m) => mismatches.push(m),
            None => {}
        }
    }
    // A check that came out otherwise than expected (never a wrong verdict
    // or a panic) is run once more, alone: the budget's clock charges the
    // work outside solver calls by CPU time, which a loaded machine
    // inflates, so a proof that needs nearly all of its budget can be lost
    // beside the other checks. A regression differs again; the checks that
    // recovered are listed.
    let mut recovered = Vec::new();
    for (case, model, expected, refines, first) in retries {
        let (again, _) = std::thread::scope(|s| {
            std::thread::Builder::new()
                .name(TABLE_WORKER.into())
                .spawn_scoped(s, || run_table_check(case, model, expected, refines))
                .expect("spawning a fixture check")
                .join()
                .expect("a fixture check panicked outside its catch_unwind")
        });
        match again {
            None => recovered.push(format!(
                "{} [{}]: {} at first",
                case.id,
                model.label(),
                first.got
            )),
            Some(m) => mismatches.push(m),
        }
    }
    if !recovered.is_empty() {
        eprintln!(
            "fixture checks that matched only when run again:\n  {}",
            recovered.join("\n  ")
        );
    }
    let _ = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| previous_hook(info)));

    if !slow.is_empty() {
        eprintln!("slow fixture checks (> 5 s):\n  {}", slow.join("\n  "));
    }
    if mismatches.is_empty() {
        return;
    }
    let wrong = mismatches
        .iter()
        .filter(|m| m.severity == Severity::Wrong)
        .count();
    let panics = mismatches
        .iter()
        .filter(|m| m.severity == Severity::Panic)
        .count();
    let bad = mismatches
        .iter()
        .filter(|m| m.severity == Severity::BadFixture)
        .count();
    panic!(
        "{} of {checked} fixture checks do not match ({wrong} WRONG VERDICTS, {panics} panics, {bad} bad fixtures, {} other differences):\n{}",
        mismatches.len(),
        mismatches.len() - wrong - panics - bad,
        render_table(&mismatches)
    );
}

/// The expected verdicts are the default checker's; every other checker
/// may be weaker (unknown, bounded) but never wrong and never panics.
///
/// The checks are independent (each has its own Z3 context and clock), so
/// they run on as many threads as the machine has cores; only wrong verdicts
/// and panics count here, which a busy machine cannot cause. Each check has
/// [`SWEEP_TIMEOUT_MS`]: every verdict a checker reaches within it must be
/// sound, and a check it cannot decide there ends `unknown`, which is never
/// wrong.
#[test]
fn every_checker_is_sound_on_every_fixture() {
    let sweep_timeout_ms = SWEEP_TIMEOUT_MS;
    let filter = std::env::var("EQLENS_FIXTURE").ok();
    let cases: Vec<Case> = collect_cases()
        .into_iter()
        .flatten()
        .filter(|case| filter.as_deref().is_none_or(|f| selected(f, &case.id)))
        .collect();
    let jobs: Vec<(&Case, CheckerKind, Model, &Expected)> = cases
        .iter()
        .flat_map(|case| {
            CheckerKind::ALL
                .iter()
                .copied()
                .filter(|&c| c != CheckerKind::default())
                .flat_map(move |checker| {
                    case.runs()
                        .into_iter()
                        .map(move |(model, expected)| (case, checker, model, expected))
                })
        })
        .collect();
    let mut bad: Vec<Mismatch> =
        in_parallel(&jobs, "sweep-check", |&(case, checker, model, expected)| {
            let trace = std::env::var("EQLENS_SWEEP_TRACE").is_ok();
            if trace {
                eprintln!("SWEEP {} {} {}", case.id, checker.name(), model.label());
            }
            let (mismatch, elapsed) =
                run_one(case, model, checker, sweep_timeout_ms, expected, None);
            if trace {
                eprintln!(
                    "SWEPT {} {} {} {:.2}s",
                    case.id,
                    checker.name(),
                    model.label(),
                    elapsed.as_secs_f64()
                );
            }
            mismatch
                .filter(|m| matches!(m.severity, Severity::Wrong | Severity::Panic))
                .map(|mut m| {
                    m.id = format!("{} ({})", m.id, checker.name());
                    m
                })
        })
        .into_iter()
        .flatten()
        .collect();
    bad.sort_by(|a, b| a.id.cmp(&b.id));
    assert!(
        bad.is_empty(),
        "{} of {} checks are wrong or panicked:\n{}",
        bad.len(),
        jobs.len(),
        render_table(&bad)
    );
}

/// Both versions of every case (under the filter) lower to IR that keeps
/// the IR's invariants (`ir::validate`).
#[test]
fn every_fixture_lowers_to_valid_ir() {
    let filter = std::env::var("EQLENS_FIXTURE").ok();
    let mut broken = Vec::new();
    for case in collect_cases().into_iter().flatten() {
        if filter.as_deref().is_some_and(|f| !selected(f, &case.id)) {
            continue;
        }
        for (version, text) in [("old", &case.old), ("new", &case.new)] {
            let program = eqlens_core::lang::lower(case.lang, text);
            if let Err(errors) = eqlens_core::ir::validate(&program) {
                broken.extend(
                    errors
                        .iter()
                        .map(|e| format!("{} ({version}): {e}", case.id)),
                );
            }
        }
    }
    assert!(
        broken.is_empty(),
        "{} broken IR invariants:\n  {}",
        broken.len(),
        broken.join("\n  ")
    );
}

#[test]
fn every_fixture_is_well_formed() {
    let problems: Vec<String> = collect_cases()
        .into_iter()
        .filter_map(Result::err)
        .collect();
    assert!(
        problems.is_empty(),
        "malformed fixtures:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn a_list_of_verdicts_admits_each_and_a_counterexample_against_it_is_wrong() {
    let either = Expected(vec!["equivalent_bounded", "equivalent"]);
    assert!(either.admits("equivalent") && either.admits("equivalent_bounded"));
    assert!(!either.admits("unknown"));
    assert_eq!(either.severity("not_equivalent"), Severity::Wrong);
    assert_eq!(either.severity("unknown"), Severity::Differs);
    assert_eq!(either.to_string(), "equivalent_bounded or equivalent");
}

#[test]
fn severity_separates_wrong_verdicts_from_imprecision() {
    assert_eq!(severity("equivalent", "not_equivalent"), Severity::Wrong);
    assert_eq!(
        severity("equivalent_bounded", "not_equivalent"),
        Severity::Wrong
    );
    assert_eq!(severity("not_equivalent", "equivalent"), Severity::Wrong);
    assert_eq!(
        severity("not_equivalent", "equivalent_bounded"),
        Severity::Wrong
    );
    assert_eq!(
        severity("not_equivalent", "equivalent_partial"),
        Severity::Wrong
    );
    assert_eq!(
        severity("equivalent_partial", "not_equivalent"),
        Severity::Wrong
    );
    assert_eq!(severity("equivalent", "unknown"), Severity::Differs);
    assert_eq!(
        severity("equivalent", "equivalent_bounded"),
        Severity::Differs
    );
    assert_eq!(severity("unknown", "not_equivalent"), Severity::Differs);
    assert_eq!(severity("unsupported", "unknown"), Severity::Differs);
}

#[test]
fn verdict_labels_follow_expect_json() {
    use eqlens_core::check::{Proof, Unknown, UnknownReason};
    use eqlens_core::ir::{LowerError, LowerErrorKind, Span};
    let proof = |bounded| {
        Verdict::Equivalent(Proof {
            bounded,
            unrolled: None,
            assumptions: vec![],
            invariants: Vec::new(),
            partial: false,
            summaries: Vec::new(),
        })
    };
    assert_eq!(label(&proof(None)), "equivalent");
    let partial = Verdict::Equivalent(Proof {
        partial: true,
        ..Proof::new(None, Vec::new())
    });
    assert_eq!(label(&partial), "equivalent_partial");
    assert_eq!(label(&proof(Some(8))), "equivalent_bounded");
    let unknown = |reason| {
        Verdict::Unknown(Unknown {
            reason,
            detail: String::new(),
        })
    };
    assert_eq!(
        label(&unknown(UnknownReason::Timeout {
            phase: eqlens_core::check::Phase::Solving,
        })),
        "unknown"
    );
    let error = LowerError {
        kind: LowerErrorKind::SyntaxError,
        what: "syntax error".into(),
        span: Span::default(),
    };
    assert_eq!(
        label(&unknown(UnknownReason::Unsupported {
            error,
            in_old: false
        })),
        "unsupported"
    );
}
