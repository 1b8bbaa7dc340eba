//! Equivalence checking: the [`Checker`] interface, the options every
//! checker takes, and the plain-data reports they return.
//!
//! The entry point for front layers (CLI, language server) is
//! [`check_sources`]: two source texts in, one [`FileReport`] out. Nothing in
//! here does I/O or knows who asked.

pub mod abstracted;
pub mod deepen;
pub mod loops;
pub mod pairing;
pub mod portfolio;
pub mod progressive;
pub(crate) mod query;
pub mod refine;
pub(crate) mod replay;
mod state;
pub mod symbolic;
pub mod testing;
mod undefined;

pub use crate::abstraction::{Override, OverrideAction, OverrideReport};
use crate::ir::{FuncId, Lang, LowerError, Program, Semantics, SignedOverflow, Span};
pub use crate::verdict::{
    Assumption, Behaviour, Binding, Counterexample, FunctionSummary, LoopInvariant, Phase, Proof,
    Refinement, Unknown, UnknownReason, Verdict, assumption, describe_outcome,
};
pub(crate) use crate::verdict::{counterexample, timeout};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which algorithm decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckerKind {
    /// Syntactic identity, then `ardiff`, then `symbolic` when it can still
    /// decide something.
    #[default]
    Portfolio,
    /// ARDiff: abstraction of common code, refined by heuristics until
    /// decided.
    Ardiff,
    /// Differential symbolic execution: every common block abstracted, one
    /// query.
    Dse,
    /// Impacted summaries: code impacted by the change kept concrete, the
    /// rest abstracted, one query.
    Imps,
    /// Full symbolic execution of both versions with bounded loops.
    Symbolic,
    /// Unbounded proofs for pairs whose loops run in lockstep: a relational
    /// loop invariant found by Z3's CHC engine (never refutes).
    Loops,
}

impl CheckerKind {
    pub const ALL: &'static [CheckerKind] = &[
        CheckerKind::Portfolio,
        CheckerKind::Ardiff,
        CheckerKind::Dse,
        CheckerKind::Imps,
        CheckerKind::Symbolic,
        CheckerKind::Loops,
    ];
    pub fn name(self) -> &'static str {
        match self {
            CheckerKind::Portfolio => "portfolio",
            CheckerKind::Ardiff => "ardiff",
            CheckerKind::Dse => "dse",
            CheckerKind::Imps => "imps",
            CheckerKind::Symbolic => "symbolic",
            CheckerKind::Loops => "loops",
        }
    }
    pub fn from_name(name: &str) -> Option<CheckerKind> {
        CheckerKind::ALL.iter().copied().find(|c| c.name() == name)
    }
}

/// Options for one check. Plain data, so that a job can be keyed on it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Options {
    pub semantics: Semantics,
    pub checker: CheckerKind,
    /// Loop iterations unrolled (and recursion depth inlined) before the
    /// encoding stops and records that the bound may be exceeded.
    pub loop_bound: u32,
    /// Wall-clock budget for one method pair, in milliseconds.
    pub timeout_ms: u64,
    /// Line ranges of the new version the user forced abstract or concrete
    /// (checkers that abstract common code honour them).
    pub overrides: Vec<Override>,
    /// What the project declares about calls outside the files.
    pub callees: CalleeDeclarations,
    /// C under `machine`: whether signed overflow is undefined behaviour
    /// (ISO C, the default) or wraps (`-fwrapv`).
    pub signed_overflow: SignedOverflow,
    /// Fields and globals the project declares written by code outside the
    /// compared files (`[fields] written-outside` of `eqlens.toml`): names
    /// as verdicts print them, or prefixes ending in `*`. They are inputs
    /// even where no code of the file writes them.
    pub written_outside: Vec<String>,
}

/// The loop bounds front layers accept ([`Options::loop_bound`]): at least
/// one iteration (0 would prove nothing about any loop), at most 10,000. The
/// CLI's `--loop-bound`, the server's `loopBound` setting and its
/// `eqlens.recheck` command all check against this one range.
pub const LOOP_BOUND_RANGE: std::ops::RangeInclusive<u32> = 1..=10_000;

/// The time budgets front layers accept ([`Options::timeout_ms`]): a budget
/// of 0 ms cannot decide anything, and one hour per method pair is the most
/// any front layer offers.
pub const TIMEOUT_MS_RANGE: std::ops::RangeInclusive<u64> = 1..=3_600_000;

/// The file budgets front layers accept ([`FileBudget::total_timeout_ms`]):
/// as for one method, 0 ms decides nothing; a day is the most a run over a
/// whole file is given.
pub const TOTAL_TIMEOUT_MS_RANGE: std::ops::RangeInclusive<u64> = 1..=86_400_000;

/// A wall-clock budget for a whole file ([`check_sources_within`]), beside
/// each method's own [`Options::timeout_ms`]: lowering both versions and
/// every method's check draw on it, and each method gets at most what is
/// left. When it is spent, the methods not yet decided are reported
/// `unknown` ([`UnknownReason::FileBudget`]), never left out. It is not
/// part of [`Options`], which key one method's check: a file's budget says
/// nothing about a method's verdict on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FileBudget {
    /// `None`: no budget beyond the methods' own.
    pub total_timeout_ms: Option<u64>,
}

/// What the project declares about calls outside the compared files (the
/// `[callees]` table of `eqlens.toml`). Without a declaration a callee is
/// assumed pure and every verdict relying on that says so; a callee
/// declared impure makes a changed method that calls it `unsupported`, as
/// its effects are not modelled.
///
/// Patterns are full callee names as the front ends resolve them
/// (`java.util.Objects.hash`, `crc32`), or a prefix ending in `*`
/// (`com.acme.audit.*`, `log_*`, `*`). The most specific pattern wins: an
/// exact name over any prefix, a longer prefix over a shorter one, and
/// `impure` when the same pattern is in both lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct CalleeDeclarations {
    pub pure: Vec<String>,
    pub impure: Vec<String>,
}

/// How a callee outside the files is treated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purity {
    /// No declaration: assumed pure, and the verdict names the assumption.
    AssumedPure,
    DeclaredPure,
    DeclaredImpure,
}

impl CalleeDeclarations {
    pub fn is_empty(&self) -> bool {
        self.pure.is_empty() && self.impure.is_empty()
    }

    pub fn purity(&self, callee: &str) -> Purity {
        // Specificity of the best match of `patterns`: exact names beat
        // every prefix; longer prefixes beat shorter ones.
        let best = |patterns: &[String]| -> Option<usize> {
            patterns
                .iter()
                .filter_map(|p| match p.strip_suffix('*') {
                    Some(prefix) => callee.starts_with(prefix).then_some(prefix.len()),
                    None => (p == callee).then_some(usize::MAX),
                })
                .max()
        };
        match (best(&self.pure), best(&self.impure)) {
            (None, None) => Purity::AssumedPure,
            (Some(p), Some(i)) if p > i => Purity::DeclaredPure,
            (Some(_), None) => Purity::DeclaredPure,
            _ => Purity::DeclaredImpure,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            semantics: Semantics::Math,
            checker: CheckerKind::Portfolio,
            loop_bound: 8,
            timeout_ms: 10_000,
            overrides: Vec::new(),
            callees: CalleeDeclarations::default(),
            signed_overflow: SignedOverflow::Undefined,
            written_outside: Vec::new(),
        }
    }
}

/// What decided a verdict: a checker, or one of the portfolio's shortcuts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decider {
    /// Equal modulo renaming and formatting, callees included.
    Syntax,
    /// Concrete testing found the difference before any solving.
    Testing,
    Ardiff,
    Dse,
    Imps,
    Symbolic,
    Loops,
}

impl Decider {
    pub fn name(self) -> &'static str {
        match self {
            Decider::Syntax => "syntax",
            Decider::Testing => "testing",
            Decider::Ardiff => "ardiff",
            Decider::Dse => "dse",
            Decider::Imps => "imps",
            Decider::Symbolic => "symbolic",
            Decider::Loops => "loops",
        }
    }
}

/// How abstraction went, for checkers that abstract common code.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AbstractionReport {
    /// Queries run (1 for `dse` and `imps`).
    pub iterations: u32,
    /// Common blocks abstracted at the start.
    pub blocks: usize,
    /// Blocks still abstracted (as uninterpreted functions) at the end.
    pub functions_left: usize,
    /// Statements made concrete by refinement, in order (new version).
    pub refined: Vec<Span>,
    /// Which heuristic chose each refinement (`H1`, `H2`, `all`).
    pub heuristics: Vec<String>,
    pub overrides: Vec<OverrideReport>,
    /// The abstraction proved the loops only up to the bound (or not at
    /// all) and the CHC loop checker proved them for every iteration count
    /// (`ardiff` run on its own).
    pub loop_invariant: bool,
}

impl AbstractionReport {
    /// The refined statements as text for people: each run of refinements
    /// chosen by the same heuristic as its sorted lines (consecutive ones
    /// as ranges) and the heuristic, e.g. `4, 17-20 (timeout), 56 (H1)`.
    /// Empty when nothing was refined.
    pub fn refined_lines(&self) -> String {
        let mut groups: Vec<(&str, Vec<u32>)> = Vec::new();
        for (span, heuristic) in self.refined.iter().zip(&self.heuristics) {
            match groups.last_mut() {
                Some((h, lines)) if *h == heuristic.as_str() => lines.push(span.line()),
                _ => groups.push((heuristic, vec![span.line()])),
            }
        }
        let texts: Vec<String> = groups
            .into_iter()
            .map(|(heuristic, mut lines)| {
                lines.sort_unstable();
                lines.dedup();
                let mut ranges: Vec<(u32, u32)> = Vec::new();
                for l in lines {
                    match ranges.last_mut() {
                        Some((_, end)) if *end + 1 == l => *end = l,
                        _ => ranges.push((l, l)),
                    }
                }
                let ranges: Vec<String> = ranges
                    .into_iter()
                    .map(|(a, z)| {
                        if a == z {
                            format!("{a}")
                        } else {
                            format!("{a}-{z}")
                        }
                    })
                    .collect();
                format!("{} ({heuristic})", ranges.join(", "))
            })
            .collect();
        texts.join(", ")
    }
}

/// A checker's answer: the verdict, who decided it, how abstraction went.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub verdict: Verdict,
    pub decided_by: Option<Decider>,
    pub abstraction: Option<AbstractionReport>,
}

impl Decision {
    pub fn plain(verdict: Verdict, by: Decider) -> Decision {
        let decided = !matches!(verdict, Verdict::Unknown(_));
        Decision {
            verdict,
            decided_by: decided.then_some(by),
            abstraction: None,
        }
    }
}

/// The two versions of one method, already lowered. `old_program` and
/// `new_program` give the context (callees, globals).
///
/// The relation between the two versions' inputs is equality of
/// like-named parameters (by position) and globals; relative equivalence
/// (a crosswalk between different interfaces) will generalise this.
pub struct MethodPair<'a> {
    pub name: &'a str,
    pub old_program: &'a Program,
    pub old: FuncId,
    pub new_program: &'a Program,
    pub new: FuncId,
    /// The statement matching of the two versions, built once for every
    /// checker that runs on the pair (see [`MethodPair::context`]).
    context: std::sync::OnceLock<crate::abstraction::Context<'a>>,
}

impl<'a> MethodPair<'a> {
    pub fn new(
        name: &'a str,
        old_program: &'a Program,
        old: FuncId,
        new_program: &'a Program,
        new: FuncId,
    ) -> MethodPair<'a> {
        MethodPair {
            name,
            old_program,
            old,
            new_program,
            new,
            context: std::sync::OnceLock::new(),
        }
    }

    /// The two versions' statement matching, built by `deadline` the first
    /// time a checker asks for it and shared by the checkers after it;
    /// `None` when the deadline passes first (and then built anew on the
    /// next request).
    pub(crate) fn context(&self, deadline: Instant) -> Option<&crate::abstraction::Context<'a>> {
        if let Some(ctx) = self.context.get() {
            return Some(ctx);
        }
        let ctx = crate::abstraction::Context::for_pair_until(
            self.old_program,
            self.new_program,
            self.old,
            self.new,
            deadline,
        )?;
        Some(self.context.get_or_init(|| ctx))
    }
}

/// What a checker may spend on one pair: the work before `deadline` on the
/// check's clock (`crate::clock`). A checker that runs others gives each
/// a share of its own (`crate::budget`). Reports name the method's whole
/// budget (`Options::timeout_ms`), not a share of it.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub deadline: Instant,
}

impl Budget {
    /// `ms` of work from now on this thread's clock.
    pub fn from_now(ms: u64) -> Budget {
        Budget::until(crate::clock::now() + Duration::from_millis(ms))
    }

    pub fn until(deadline: Instant) -> Budget {
        Budget { deadline }
    }
}

/// An equivalence checking algorithm. Checkers hold no state between
/// checks (`Sync`): each check runs on a Z3 context of its own.
pub trait Checker: Send + Sync {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision;
}

/// The checker an option names.
pub fn checker(kind: CheckerKind) -> Box<dyn Checker> {
    match kind {
        CheckerKind::Portfolio => Box::new(deepen::Deepening {
            first: Box::new(portfolio::PortfolioChecker),
        }),
        CheckerKind::Ardiff => Box::new(abstracted::AbstractingChecker::ardiff()),
        CheckerKind::Dse => Box::new(abstracted::AbstractingChecker::dse()),
        CheckerKind::Imps => Box::new(abstracted::AbstractingChecker::imps()),
        CheckerKind::Symbolic => Box::new(symbolic::SymbolicChecker { testing: true }),
        CheckerKind::Loops => Box::new(loops::LoopsChecker),
    }
}

/// The result for one method pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MethodReport {
    pub name: String,
    pub arity: usize,
    /// With its enclosing classes: `A.B.f` (Java), `f` (C).
    pub qualified: String,
    /// How it is named to the user, unambiguous in its file: `f(2)`,
    /// `B.f(1)` or `f(int, long)` (see [`pairing::labels`]).
    pub label: String,
    /// Spans of the method in each version (for editors).
    pub old_span: Span,
    pub new_span: Span,
    #[serde(flatten)]
    pub verdict: Verdict,
    /// The checker asked for.
    pub checker: CheckerKind,
    /// What decided the verdict (none when unknown).
    pub decided_by: Option<Decider>,
    pub abstraction: Option<AbstractionReport>,
    pub semantics: Semantics,
    pub loop_bound: u32,
    #[serde(serialize_with = "ser_ms")]
    pub time: Duration,
}

fn ser_ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

/// A method present in only one version.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unpaired {
    pub name: String,
    pub arity: usize,
    /// As in [`MethodReport::qualified`].
    pub qualified: String,
    /// As in [`MethodReport::label`].
    pub label: String,
    pub span: Span,
}

/// A syntax error outside every method, and which version has it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileError {
    pub in_old: bool,
    pub error: LowerError,
}

/// The result for a pair of files.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileReport {
    pub lang: Lang,
    /// Syntax errors outside every method, in either version: the file
    /// does not compile, so the file-level verdict is no stronger than
    /// unknown (the methods were checked all the same; each method's own
    /// errors are in its verdict).
    pub syntax_errors: Vec<FileError>,
    pub methods: Vec<MethodReport>,
    pub added: Vec<Unpaired>,
    pub removed: Vec<Unpaired>,
}

/// The file-level verdict: the weakest of the methods' verdicts
/// (any not-equivalent → not equivalent; else any unknown → unknown; else
/// any bounded → bounded; else equivalent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Summary {
    Equivalent,
    EquivalentBounded,
    NotEquivalent,
    Unknown,
}

impl FileReport {
    pub fn summary(&self) -> Summary {
        if !self.syntax_errors.is_empty() {
            return Summary::Unknown;
        }
        let mut s = Summary::Equivalent;
        for m in &self.methods {
            match &m.verdict {
                Verdict::NotEquivalent(_) => return Summary::NotEquivalent,
                Verdict::Unknown(_) => s = Summary::Unknown,
                Verdict::Equivalent(p) if p.bounded.is_some() && s == Summary::Equivalent => {
                    s = Summary::EquivalentBounded
                }
                Verdict::Equivalent(_) => {}
            }
        }
        s
    }
}

/// Which methods to check.
#[derive(Clone, Debug, Default)]
pub enum Selection {
    /// Every method present in both versions.
    #[default]
    All,
    /// One entry point by name (its callees are part of its behaviour).
    Method(String),
}

/// Checks two versions of a source file. `old` and `new` are source texts.
pub fn check_sources(
    lang: Lang,
    old: &str,
    new: &str,
    selection: &Selection,
    options: &Options,
) -> FileReport {
    check_sources_within(lang, old, new, selection, options, FileBudget::default())
}

/// [`check_sources`] within a budget for the whole file: lowering and the
/// methods' checks, one after another, end close to it. The file's budget
/// is wall time — it bounds how long the caller waits — while each
/// method's budget is work on the clock (`crate::clock`), which makes its
/// verdict independent of the machine's load as far as solver work goes.
pub fn check_sources_within(
    lang: Lang,
    old: &str,
    new: &str,
    selection: &Selection,
    options: &Options,
    budget: FileBudget,
) -> FileReport {
    let deadline = budget
        .total_timeout_ms
        .map(|ms| std::time::Instant::now() + Duration::from_millis(ms));
    let old_program = crate::lang::lower(lang, old);
    let new_program = crate::lang::lower(lang, new);
    // Parsing and lowering do not stop midway: the time they took counts
    // against the file's budget, and when they used it all no method is
    // started.
    let lowered_late = deadline.is_some_and(|d| wall_left(d).is_none());
    check_programs_until(
        &old_program,
        &new_program,
        selection,
        options,
        deadline.map(|d| (d, budget.total_timeout_ms.unwrap_or_default(), lowered_late)),
    )
}

/// Checks two lowered programs.
pub fn check_programs(
    old: &Program,
    new: &Program,
    selection: &Selection,
    options: &Options,
) -> FileReport {
    check_programs_until(old, new, selection, options, None)
}

/// [`check_programs`] by a file deadline, if any: (deadline, the budget in
/// ms for the reports' words, whether lowering already went past it).
fn check_programs_until(
    old: &Program,
    new: &Program,
    selection: &Selection,
    options: &Options,
    file: Option<(std::time::Instant, u64, bool)>,
) -> FileReport {
    let pairing = pairing::pair_functions(old, new, selection);
    let labels = pairing::labels(new);
    // Each method's check runs on a thread of its own, which owns the
    // programs (see `on_own_thread`).
    let shared =
        (!pairing.pairs.is_empty()).then(|| (Arc::new(old.clone()), Arc::new(new.clone())));
    let methods = pairing
        .pairs
        .iter()
        .zip(std::iter::repeat(shared))
        .map(|(&(o, n), shared)| {
            let pair = MethodPair::new(&old.function(o).name, old, o, new, n);
            let label = labels.get(n.0 as usize).cloned().unwrap_or_default();
            let start = std::time::Instant::now();
            let (own, file_ms) = match file {
                None => (options.clone(), None),
                Some((deadline, total_ms, lowered_late)) => {
                    match own_budget(options, deadline, total_ms, lowered_late) {
                        Ok(own) => own,
                        Err(verdict) => {
                            let none = Decision::plain(verdict, Decider::Syntax);
                            return report_of(&pair, options, label, none, start);
                        }
                    }
                }
            };
            let Some((old_arc, new_arc)) = shared else {
                return check_pair_labelled_within(&pair, &own, label, file_ms);
            };
            let (thread_options, thread_label) = (own.clone(), label.clone());
            let limit = wall_time_bound(own.timeout_ms) + ABANDON_GRACE;
            let outcome = on_own_thread(limit, move || {
                let pair = MethodPair::new(&old_arc.function(o).name, &old_arc, o, &new_arc, n);
                check_pair_labelled_within(&pair, &thread_options, thread_label, file_ms)
            });
            match outcome {
                Ok(report) => report,
                Err(stopped) => {
                    let verdict = Verdict::Unknown(stopped.unknown(own.timeout_ms));
                    let decision = Decision {
                        verdict,
                        decided_by: None,
                        abstraction: None,
                    };
                    report_of(&pair, &own, label, decision, start)
                }
            }
        })
        .collect();
    let syntax_errors = [(old, true), (new, false)]
        .into_iter()
        .flat_map(|(p, in_old)| {
            p.syntax_errors.iter().map(move |e| FileError {
                in_old,
                error: e.clone(),
            })
        })
        .collect();
    FileReport {
        lang: old.lang,
        syntax_errors,
        methods,
        added: pairing.added,
        removed: pairing.removed,
    }
}

/// Checks one method pair with the checker the options name.
pub fn check_pair(pair: &MethodPair<'_>, options: &Options) -> MethodReport {
    let label = pairing::label(pair.new_program, pair.new);
    check_pair_labelled(pair, options, label)
}

/// A method's own options under the file's deadline: its own budget or
/// what is left of the file's, whichever is less, and (when the file's is
/// less) the budget in ms for the reports' words; with nothing left, the
/// verdict that says so (the method is not started).
fn own_budget(
    options: &Options,
    deadline: std::time::Instant,
    total_ms: u64,
    lowered_late: bool,
) -> Result<(Options, Option<u64>), Verdict> {
    let left = wall_left(deadline).map(|d| d.as_millis() as u64);
    let left = match left {
        Some(ms) if ms > 0 && !lowered_late => ms,
        _ => {
            return Err(file_spent(
                total_ms,
                lowered_late.then_some(Phase::Lowering),
            ));
        }
    };
    let file_binds = left < options.timeout_ms;
    let mut own = options.clone();
    own.timeout_ms = own.timeout_ms.min(left);
    Ok((own, file_binds.then_some(total_ms)))
}

/// The verdict of a method the file's budget (`total_ms`) cut short in
/// `phase` (`None`: before it started).
fn file_spent(total_ms: u64, phase: Option<Phase>) -> Verdict {
    let when = match phase {
        Some(Phase::Lowering) => "while the files were lowered".to_string(),
        Some(p) => format!("while {} this method", p.name()),
        None => "before this method was checked".to_string(),
    };
    Verdict::Unknown(Unknown {
        reason: UnknownReason::FileBudget { phase },
        detail: format!("the file's time budget ({total_ms} ms) ran out {when}"),
    })
}

/// One method's check; when the file's budget (`file_ms`, if it binds)
/// was less than the method's own, a timeout is reported as the file's
/// budget running out, with the phase it interrupted.
fn check_pair_labelled_within(
    pair: &MethodPair<'_>,
    options: &Options,
    label: String,
    file_ms: Option<u64>,
) -> MethodReport {
    let mut report = check_pair_labelled(pair, options, label);
    if let Some(total_ms) = file_ms
        && let Verdict::Unknown(Unknown {
            reason: UnknownReason::Timeout { phase },
            ..
        }) = report.verdict
    {
        report.verdict = file_spent(total_ms, Some(phase));
    }
    report
}

/// Stack of the thread a method's check runs on: the symbolic executor,
/// the interpreter and the matcher recurse over nested statements.
const CHECK_STACK: usize = 64 << 20;

/// Wall time past a method's [`wall_time_bound`] that its check is waited
/// for before it is abandoned.
const ABANDON_GRACE: Duration = Duration::from_secs(5);

/// Why a check on its own thread gave no report.
#[derive(Debug)]
enum Stopped {
    /// It did not return within its wall-time bound and the grace.
    Abandoned(Duration),
    /// It panicked (the message).
    Panicked(String),
}

impl Stopped {
    fn unknown(&self, timeout_ms: u64) -> Unknown {
        match self {
            Stopped::Abandoned(after) => Unknown {
                reason: UnknownReason::Unresponsive,
                detail: format!(
                    "the check did not stop at its budget ({timeout_ms} ms) and was abandoned after {} s",
                    after.as_secs()
                ),
            },
            Stopped::Panicked(what) => Unknown {
                reason: UnknownReason::Internal,
                detail: format!("the checker panicked: {what}"),
            },
        }
    }
}

/// Runs `check` on a thread of its own (with this thread's cancellation)
/// and waits for it at most `limit` (a method's wall-time bound and
/// [`ABANDON_GRACE`]). The budget is enforced inside the check, on the
/// clock and by the watchdog's interrupts; this is the net for a solver
/// call that ignores both (libz3 4.8.12 does, rarely, in nonlinear
/// arithmetic), so that one method cannot hold up the others and the
/// caller. An abandoned thread runs on, detached, until its call returns,
/// and its result is dropped. A panic in `check` is this method's alone.
fn on_own_thread<T: Send + 'static>(
    limit: Duration,
    check: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Stopped> {
    let (tx, rx) = std::sync::mpsc::channel();
    let token = crate::cancel::current();
    let run = move || {
        let guarded = || std::panic::catch_unwind(std::panic::AssertUnwindSafe(check));
        let outcome = match &token {
            Some(token) => crate::cancel::with_cancellation(token, guarded),
            None => guarded(),
        };
        // The receiver is gone when the check was abandoned.
        let _ = tx.send(outcome.map_err(|panic| Stopped::Panicked(panic_text(&*panic))));
    };
    let spawned = std::thread::Builder::new()
        .name("eqlens-check".into())
        .stack_size(CHECK_STACK)
        .spawn(run);
    if let Err(e) = spawned {
        return Err(Stopped::Panicked(format!("no thread for the check: {e}")));
    }
    match rx.recv_timeout(limit) {
        Ok(outcome) => outcome,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(Stopped::Abandoned(limit)),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(Stopped::Panicked(
            "the checking thread ended without a report".into(),
        )),
    }
}

/// A panic's message, when it has one.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}

/// The longest a method's check with `Options::timeout_ms` of `timeout_ms`
/// can take in wall time. The budget is work (see the crate's `clock`), and
/// wall time only its safety net: on a machine or under a load that makes
/// the work slower than on the reference machine, a check takes longer,
/// up to this bound.
pub fn wall_time_bound(timeout_ms: u64) -> Duration {
    crate::clock::wall_bound(Duration::from_millis(timeout_ms))
}

/// Wall time left before the file's `deadline`; `None` when it has passed
/// or the check was cancelled.
fn wall_left(deadline: std::time::Instant) -> Option<Duration> {
    if crate::cancel::requested() {
        return None;
    }
    deadline
        .checked_duration_since(std::time::Instant::now())
        .filter(|d| !d.is_zero())
}

fn check_pair_labelled(pair: &MethodPair<'_>, options: &Options, label: String) -> MethodReport {
    let start = std::time::Instant::now();
    let related = state::relate(pair.old_program, pair.new_program, &options.written_outside);
    let pair = &match &related {
        Some(r) => MethodPair::new(pair.name, &r.old, pair.old, &r.new, pair.new),
        None => MethodPair::new(
            pair.name,
            pair.old_program,
            pair.old,
            pair.new_program,
            pair.new,
        ),
    };
    let checker = match pair.new_program.lang {
        crate::ir::Lang::C => Box::new(undefined::Refining {
            inner: checker(options.checker),
        }),
        crate::ir::Lang::Java => checker(options.checker),
    };
    let mut decision = match interface_mismatch(pair) {
        Some(why) => Decision::plain(
            Verdict::Unknown(Unknown {
                detail: why.clone(),
                reason: UnknownReason::Unsupported {
                    error: LowerError {
                        kind: crate::ir::LowerErrorKind::Unsupported,
                        what: why,
                        span: pair.new_program.function(pair.new).name_span,
                    },
                    in_old: false,
                },
            }),
            Decider::Syntax,
        ),
        None => match impure_call(pair, &options.callees)
            .or_else(|| non_real_literal(pair, options.semantics))
        {
            Some(verdict) => Decision::plain(verdict, Decider::Syntax),
            None => crate::clock::run(|| {
                with_fresh_z3_context(|| {
                    checker.check(pair, options, Budget::from_now(options.timeout_ms))
                })
            }),
        },
    };
    if let Verdict::Equivalent(proof) = &mut decision.verdict {
        proof
            .assumptions
            .extend(outcome_assumptions(pair, &options.callees));
        if let Some(r) = &related {
            // Only the fields the method uses (in either version).
            let used = |p: &Program, f: crate::ir::FuncId| {
                crate::symbolic::entry_effects(p, f)
                    .get(&f)
                    .map(|e| {
                        e.reads_globals
                            .iter()
                            .chain(&e.writes_globals)
                            .map(|g| p.global(*g).name.clone())
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            };
            let mut used_names = used(pair.old_program, pair.old);
            used_names.extend(used(pair.new_program, pair.new));
            // A renamed field still an input (not given its initial value).
            let input = |n: &str| r.new.globals.iter().any(|g| g.name == n && g.is_input());
            proof.assumptions.extend(
                r.renamed
                    .iter()
                    .filter(|(_, n)| used_names.contains(n) && input(n))
                    .map(|(o, n)| Assumption::SameField {
                        old: o.clone(),
                        new: n.clone(),
                    }),
            );
            let outside: Vec<String> = r
                .unwritten
                .iter()
                .filter(|n| used_names.contains(n))
                .cloned()
                .collect();
            if !outside.is_empty() {
                proof
                    .assumptions
                    .push(Assumption::UnwrittenOutside(outside));
            }
            proof.assumptions.extend(
                r.shared
                    .iter()
                    .filter(|n| used_names.contains(n))
                    .map(|n| Assumption::SameInitialValue(n.clone())),
            );
        }
    }
    report_of(pair, options, label, decision, start)
}

/// The report of `pair` with `decision`, timed from `start`.
fn report_of(
    pair: &MethodPair<'_>,
    options: &Options,
    label: String,
    decision: Decision,
    start: std::time::Instant,
) -> MethodReport {
    let old = pair.old_program.function(pair.old);
    let new = pair.new_program.function(pair.new);
    MethodReport {
        name: pair.name.to_string(),
        arity: old.arity,
        qualified: new.qualified_name(),
        label,
        old_span: old.name_span,
        new_span: new.name_span,
        verdict: decision.verdict,
        checker: options.checker,
        decided_by: decision.decided_by,
        abstraction: decision.abstraction,
        semantics: options.semantics,
        loop_bound: options.loop_bound,
        time: start.elapsed(),
    }
}

/// Runs `check` on a Z3 context of its own, dropped when it returns.
///
/// Z3's search depends on its context's history (term ids, caches), and the
/// symbolic executor prunes paths with budgeted solver calls: on one shared
/// thread-local context a pair's verdict would depend on which pairs the
/// thread had checked before. A fresh context per pair makes a verdict a function of the pair
/// and the options, and returns the memory of every term built for it.
pub(crate) fn with_fresh_z3_context<R: Send + Sync>(check: impl FnOnce() -> R + Send + Sync) -> R {
    z3::with_z3_config(&z3::Config::new(), check)
}

/// Why the two versions' interfaces cannot be related by position, if they
/// cannot. Inputs are related by position; a struct parameter is its
/// fields (leaf locals named `param.path`), so both versions must flatten
/// it to the same fields in the same order, and a returned struct must
/// have the same fields — else positions would pair unrelated fields.
fn interface_mismatch(pair: &MethodPair<'_>) -> Option<String> {
    let (Ok(old), Ok(new)) = (
        &pair.old_program.function(pair.old).body,
        &pair.new_program.function(pair.new).body,
    ) else {
        return None;
    };
    let fields = |f: &crate::ir::Function| -> Vec<(Option<String>, crate::ir::Type)> {
        f.params
            .iter()
            .map(|p| {
                let l = f.local(*p);
                let path = l.name.split_once('.').map(|(_, path)| path.to_string());
                (path, l.ty.clone())
            })
            .collect()
    };
    if fields(old) != fields(new)
        && fields(old)
            .iter()
            .chain(&fields(new))
            .any(|f| f.0.is_some())
    {
        return Some(
            "the struct parameters have different fields in the two versions (inputs are related by position)"
                .into(),
        );
    }
    let slots = |p: &Program| -> Vec<(String, crate::ir::Type)> {
        p.globals
            .iter()
            .filter(|g| g.return_of.as_deref() == Some(pair.name))
            .map(|g| (g.name.clone(), g.ty.clone()))
            .collect()
    };
    if slots(pair.old_program) != slots(pair.new_program) {
        return Some("the two versions return structs with different fields".into());
    }
    None
}

/// Under `math` a double is a real, and `Double.NaN` or an infinity has no
/// value: a method that reaches such a literal is refused by name (every
/// checker would, and the concrete testing would otherwise run it on the
/// interpreter's approximate NaN and report a difference no real input
/// has). Under `machine` it is checked as written.
fn non_real_literal(pair: &MethodPair<'_>, semantics: crate::ir::Semantics) -> Option<Verdict> {
    if semantics != crate::ir::Semantics::Math {
        return None;
    }
    for (program, func, in_old) in [
        (pair.old_program, pair.old, true),
        (pair.new_program, pair.new, false),
    ] {
        // The first such literal in the source, by position.
        let mut found: Option<(crate::ir::Span, String)> = None;
        program.reaches(func, &mut |s| {
            for e in s.exprs() {
                e.walk(&mut |x| {
                    // `1e999` in C is infinite as a `double` but its text
                    // is an exact real, which `math` means.
                    if let crate::ir::ExprKind::FloatLit(l) = &x.kind
                        && !l.value.is_finite()
                        && crate::symbolic::ops::decimal_to_rational(&l.text).is_none()
                        && found
                            .as_ref()
                            .is_none_or(|(at, _)| x.span.start.byte < at.start.byte)
                    {
                        found = Some((x.span, l.text.clone()));
                    }
                });
            }
            false
        });
        if let Some((span, text)) = found {
            let what = format!(
                "literal {text} has no real value under math semantics (--semantics machine models it)"
            );
            return Some(unsupported(
                &LowerError {
                    kind: crate::ir::LowerErrorKind::Unsupported,
                    what,
                    span,
                },
                in_old,
            ));
        }
    }
    None
}

/// `unsupported` when a version of a changed method calls a callee the
/// project declares impure: the uninterpreted function that stands for a
/// call cannot express effects on state the checker does not see, nor
/// results that differ between calls. Identical code (modulo renaming and
/// formatting) makes the same calls in the same order, and is left to the
/// checker, which proves it equivalent.
fn impure_call(pair: &MethodPair<'_>, callees: &CalleeDeclarations) -> Option<Verdict> {
    use crate::ir::StmtKind;
    if callees.impure.is_empty() {
        return None;
    }
    let mut found = None;
    for (program, func, in_old) in [
        (pair.new_program, pair.new, false),
        (pair.old_program, pair.old, true),
    ] {
        program.reaches(func, &mut |s| {
            if let StmtKind::External { callee, .. } = &s.kind
                && found.is_none()
                && callees.purity(callee) == Purity::DeclaredImpure
            {
                found = Some((callee.clone(), s.span, in_old));
            }
            false
        });
        if found.is_some() {
            break;
        }
    }
    let (callee, span, in_old) = found?;
    let ctx = crate::abstraction::Context::for_pair(
        pair.old_program,
        pair.new_program,
        pair.old,
        pair.new,
    );
    if ctx.identical(pair.old, pair.new) {
        return None;
    }
    let what = format!(
        "call to {callee}, which the project declares impure (its effects are not modelled)"
    );
    Some(Verdict::Unknown(Unknown {
        detail: format!(
            "{what} at {span} ({} version)",
            if in_old { "old" } else { "new" }
        ),
        reason: UnknownReason::Unsupported {
            error: LowerError {
                kind: crate::ir::LowerErrorKind::Unsupported,
                what,
                span,
            },
            in_old,
        },
    }))
}

/// What a proof of `pair` takes for granted about exceptions and calls
/// outside the files, whichever checker proved it: Java exceptions compare
/// by class only; each unseen callee is a pure function (as assumed, or as
/// the project declares).
fn outcome_assumptions(pair: &MethodPair<'_>, declared: &CalleeDeclarations) -> Vec<Assumption> {
    use crate::ir::{StmtKind, Thrown};
    let mut throws = false;
    let mut callees = std::collections::BTreeSet::new();
    let mut scan = |s: &crate::ir::Stmt| {
        match &s.kind {
            StmtKind::Throw(Thrown::Exception(_)) => throws = true,
            StmtKind::External { callee, .. } => {
                callees.insert(callee.clone());
            }
            _ => {}
        }
        false
    };
    pair.old_program.reaches(pair.old, &mut scan);
    pair.new_program.reaches(pair.new, &mut scan);
    // Java static fields holding objects are their objects' fields (see
    // lang/java/objects.rs): a null reference is not among their values.
    // Array globals read are inputs, and so never null (below).
    let mut static_objects = std::collections::BTreeSet::new();
    let mut array_globals = std::collections::BTreeSet::new();
    // A C array of declared length is an object, never NULL.
    let mut declared_arrays = std::collections::BTreeSet::new();
    for (program, func) in [(pair.old_program, pair.old), (pair.new_program, pair.new)] {
        program.reaches(func, &mut |s| {
            crate::abstraction::effects::for_each_expr(s, &mut |e| {
                e.walk(&mut |x| {
                    if let crate::ir::ExprKind::Global(g) = &x.kind
                        && let Some(g) = program.globals.get(g.0 as usize)
                    {
                        if let Some(name) = &g.static_object {
                            static_objects.insert(name.clone());
                        }
                        if g.is_input() && matches!(g.ty, crate::ir::Type::Array(_)) {
                            array_globals.insert(g.name.clone());
                            if g.declared_len.is_some() {
                                declared_arrays.insert(g.name.clone());
                            }
                        }
                    }
                })
            });
            false
        });
    }
    let mut out = Vec::new();
    let arrays = array_inputs(pair, array_globals.clone());
    // Where the pair tests arrays against `null`, array parameters may be
    // null inputs (`symbolic::nullable_arrays`): only the globals are
    // assumed to be objects.
    let non_null: Vec<String> =
        if crate::symbolic::nullable_arrays(&[pair.old_program, pair.new_program]) {
            array_globals.into_iter().collect()
        } else {
            arrays.clone()
        }
        .into_iter()
        .filter(|a| !declared_arrays.contains(a))
        .collect();
    if !non_null.is_empty() {
        out.push(Assumption::ArraysNotNull {
            names: non_null,
            c: pair.old_program.lang == Lang::C,
        });
    }
    // Every checker gives each array input an object of its own, so a
    // write through one is never seen through another.
    if arrays.len() > 1 {
        out.push(Assumption::ArraysDoNotAlias);
    }
    out.extend(
        static_objects
            .into_iter()
            .map(Assumption::StaticFieldNotNull),
    );
    if throws {
        out.push(Assumption::ExceptionsCompareByClass);
    }
    // Java object parameters are their fields (see lang/java/objects.rs):
    // a null reference is not among the inputs.
    if pair.old_program.lang == Lang::Java
        && let Ok(f) = &pair.new_program.function(pair.new).body
    {
        let mut objects: Vec<&str> = Vec::new();
        for p in &f.params {
            if let Some((object, _)) = f.local(*p).name.split_once('.')
                && !object.starts_with("this")
                && !objects.contains(&object)
            {
                objects.push(object);
            }
        }
        out.extend(
            objects
                .into_iter()
                .map(|o| Assumption::ObjectParameter(o.to_string())),
        );
    }
    out.extend(callees.into_iter().filter_map(|c| {
        let declared = match declared.purity(&c) {
            Purity::AssumedPure => false,
            Purity::DeclaredPure => true,
            // Only identical code reaches here: it calls the callee the
            // same way in both versions, whatever the callee does.
            Purity::DeclaredImpure => return None,
        };
        Some(Assumption::PureCallee { name: c, declared })
    }));
    out
}

/// The array inputs of the pair, by name: array (and C pointer)
/// parameters of the checked method, then the array globals either version
/// reads. Unless the pair tests arrays against `null`, a null array is not
/// among the inputs, so a version that reads an array the other ignores is
/// proved equivalent only for non-null arrays — which the verdict must
/// say.
fn array_inputs(pair: &MethodPair<'_>, globals: std::collections::BTreeSet<String>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    if let Ok(f) = &pair.new_program.function(pair.new).body {
        let valueless = crate::symbolic::valueless_params(f);
        for p in f.params.iter().filter(|p| !valueless.contains(p)) {
            let l = f.local(*p);
            if matches!(l.ty, crate::ir::Type::Array(_)) {
                names.push(l.name.clone());
            }
        }
    }
    names.extend(globals);
    names
}

/// Lowering errors of the pair (and of the callees it reaches), as a verdict.
pub(crate) fn unsupported(error: &LowerError, in_old: bool) -> Verdict {
    Verdict::Unknown(Unknown {
        // The verdict's label already says "unsupported"; the detail says
        // what and where.
        detail: match error.kind {
            crate::ir::LowerErrorKind::Unsupported => format!(
                "{} at {} ({} version)",
                error.what,
                error.span,
                if in_old { "old" } else { "new" }
            ),
            crate::ir::LowerErrorKind::SyntaxError
            | crate::ir::LowerErrorKind::TypeError
            | crate::ir::LowerErrorKind::Redefinition => {
                format!("{error} ({} version)", if in_old { "old" } else { "new" })
            }
        },
        reason: UnknownReason::Unsupported {
            error: error.clone(),
            in_old,
        },
    })
}

#[cfg(test)]
mod interface_tests {
    use super::*;

    fn verdict(old: &str, new: &str, method: &str) -> Verdict {
        let report = check_sources(
            Lang::C,
            old,
            new,
            &Selection::Method(method.into()),
            &Options::default(),
        );
        report
            .methods
            .into_iter()
            .find(|m| m.name == method)
            .map(|m| m.verdict)
            .expect("method checked")
    }

    #[test]
    fn struct_parameters_with_reordered_fields_are_not_paired_by_position() {
        let old = "struct P { int a; int b; };\nint f(struct P p) { return p.a - p.b; }";
        let new = "struct P { int b; int a; };\nint f(struct P p) { return p.a - p.b; }";
        let v = verdict(old, new, "f");
        assert_eq!(v.label(), "unsupported", "{v:?}");
        let Verdict::Unknown(u) = v else {
            unreachable!()
        };
        assert!(
            u.detail.contains("struct parameters have different fields"),
            "{}",
            u.detail
        );
        // Same fields in the same order: checked (and equivalent).
        let v = verdict(old, old, "f");
        assert!(v.is_proved(), "{v:?}");
    }

    #[test]
    fn a_returned_struct_is_the_methods_output_and_other_slots_are_not() {
        // `mk` is an output of itself only: `g` calls it differently but
        // returns the same value, so g's versions are equivalent even
        // though mk's return slots end with different values.
        let old = "struct V { int x; int y; };\n\
struct V mk(int x, int y) { struct V v; v.x = x; v.y = y; return v; }\n\
int g(int a) { struct V v = mk(a, 1); return v.x; }";
        let new = "struct V { int x; int y; };\n\
struct V mk(int x, int y) { struct V v; v.x = x; v.y = y; return v; }\n\
int g(int a) { struct V v = mk(a, 2); return v.x; }";
        assert!(verdict(old, new, "g").is_proved());
        let new_mk = "struct V { int x; int y; };\n\
struct V mk(int x, int y) { struct V v; v.x = x; v.y = x; return v; }\n\
int g(int a) { struct V v = mk(a, 1); return v.x; }";
        let v = verdict(old, new_mk, "mk");
        let Verdict::NotEquivalent(cex) = &v else {
            panic!("{v:?}")
        };
        assert!(
            cex.differences.iter().any(|d| d.contains("result.y")),
            "{:?}",
            cex.differences
        );
        assert!(verdict(old, new_mk, "g").is_proved());
    }
}

#[cfg(test)]
mod own_thread_tests {
    use super::*;

    #[test]
    fn a_check_that_does_not_return_is_abandoned_and_a_panic_stays_its_own() {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let stuck = on_own_thread(Duration::from_millis(50), move || wait.recv().is_ok());
        assert!(matches!(stuck, Err(Stopped::Abandoned(_))), "{stuck:?}");
        drop(release);
        let panicked = on_own_thread(Duration::from_secs(60), || -> u32 { panic!("boom") });
        match panicked {
            Err(Stopped::Panicked(what)) => assert_eq!(what, "boom"),
            other => panic!("{other:?}"),
        }
        assert_eq!(on_own_thread(Duration::from_secs(60), || 7).ok(), Some(7));
    }

    #[test]
    fn the_check_thread_sees_the_callers_cancellation() {
        let token = crate::cancel::Cancellation::new();
        token.cancel();
        let seen = crate::cancel::with_cancellation(&token, || {
            on_own_thread(Duration::from_secs(60), crate::cancel::requested)
        });
        assert_eq!(seen.ok(), Some(true));
    }
}

#[cfg(test)]
mod report_tests {
    use super::*;
    use crate::ir::Pos;

    #[test]
    fn refined_lines_groups_runs_of_a_heuristic_into_sorted_ranges() {
        let at = |line: u32| {
            let p = Pos {
                line,
                col: 0,
                byte: 0,
            };
            Span { start: p, end: p }
        };
        let report = AbstractionReport {
            // Lines are zero-based in spans, one-based in the text.
            refined: [3, 1, 2, 2, 9, 4].map(at).to_vec(),
            heuristics: ["all", "all", "all", "all", "all", "H1"]
                .map(String::from)
                .to_vec(),
            ..AbstractionReport::default()
        };
        assert_eq!(report.refined_lines(), "2-4, 10 (all), 5 (H1)");
        assert_eq!(AbstractionReport::default().refined_lines(), "");
    }
}

#[cfg(test)]
mod callee_tests {
    use super::*;

    fn declared(pure: &[&str], impure: &[&str]) -> CalleeDeclarations {
        CalleeDeclarations {
            pure: pure.iter().map(|s| s.to_string()).collect(),
            impure: impure.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_most_specific_pattern_decides() {
        let d = declared(
            &["com.acme.Math.*", "log_debug"],
            &["com.acme.*", "log_*", "*"],
        );
        assert_eq!(d.purity("com.acme.Math.gcd"), Purity::DeclaredPure);
        assert_eq!(d.purity("com.acme.Audit.record"), Purity::DeclaredImpure);
        assert_eq!(d.purity("log_debug"), Purity::DeclaredPure);
        assert_eq!(d.purity("log_error"), Purity::DeclaredImpure);
        assert_eq!(d.purity("java.util.Objects.hash"), Purity::DeclaredImpure);
        // The same pattern in both lists: impure, the safe side.
        assert_eq!(declared(&["f"], &["f"]).purity("f"), Purity::DeclaredImpure);
        let d = declared(&["java.util.*"], &[]);
        assert_eq!(d.purity("java.util.Objects.hash"), Purity::DeclaredPure);
        assert_eq!(d.purity("java.utility.X.y"), Purity::AssumedPure);
        assert_eq!(d.purity("com.acme.X.y"), Purity::AssumedPure);
    }

    const OLD: &str = "import com.acme.Audit; import java.util.Objects; class A {
        int f(int x, int y) { Audit.record(x); int h = Objects.hash(x, y); if (x > 0) return h + 1; return h; }
        int g(int x, int y) { int h = Objects.hash(x, y); if (x > 0) return h + 1; return h; }
        int k(int x) { Audit.record(x); return x; } }";
    const NEW: &str = "import com.acme.Audit; import java.util.Objects; class A {
        int f(int x, int y) { Audit.record(x); int h = Objects.hash(x, y); return x > 0 ? h + 1 : h; }
        int g(int x, int y) { int h = Objects.hash(x, y); return x > 0 ? h + 1 : h; }
        int k(int y) { Audit.record(y); return y; } }";

    fn verdicts(callees: CalleeDeclarations) -> Vec<(String, Verdict)> {
        let options = Options {
            callees,
            ..Options::default()
        };
        check_sources(Lang::Java, OLD, NEW, &Selection::All, &options)
            .methods
            .into_iter()
            .map(|m| (m.name, m.verdict))
            .collect()
    }

    fn assumptions(v: &Verdict) -> Vec<String> {
        match v {
            Verdict::Equivalent(p) => p.assumptions.iter().map(|a| a.to_string()).collect(),
            other => panic!("expected equivalent, got {other:?}"),
        }
    }

    /// A null array is not among the inputs, so a proof must say so:
    /// reading `a.length` in one version only throws for `a == null`.
    #[test]
    fn array_inputs_are_named_as_not_null() {
        let proof = |lang, old: &str, new: &str| {
            let report = check_sources(lang, old, new, &Selection::All, &Options::default());
            assumptions(&report.methods[0].verdict)
        };
        let java = proof(
            Lang::Java,
            "class A { static int[] t = {1}; static int f(int[] a, int x) { return x + t[0]; } \
             static void s(int v) { t[0] = v; } }",
            "class A { static int[] t = {1}; \
             static int f(int[] a, int x) { int n = a.length; return x + t[0]; } \
             static void s(int v) { t[0] = v; } }",
        );
        assert!(
            java.contains(&"array inputs a, t are not null".to_string()),
            "{java:?}"
        );
        let c = proof(
            Lang::C,
            "int f(int *p, int x) { return p[0] + x; }",
            "int f(int *p, int x) { return x + *p; }",
        );
        assert!(
            c.contains(&"array input p is not NULL".to_string()),
            "{c:?}"
        );
        let none = proof(
            Lang::Java,
            "class A { static int f(int x) { return x + 1; } }",
            "class A { static int f(int x) { return 1 + x; } }",
        );
        assert!(!none.iter().any(|a| a.contains("null")), "{none:?}");
        // Where a version tests an array against null, null array
        // parameters are inputs: only the global is assumed non-null.
        let nullable = proof(
            Lang::Java,
            "class A { static int[] t = {1}; static int f(int[] a, int x) { if (a == null) { return x; } return x + t[0] + 0 * a.length; } \
             static void s(int v) { t[0] = v; } }",
            "class A { static int[] t = {1}; static int f(int[] a, int x) { return a == null ? x : x + t[0] + 0 * a.length; } \
             static void s(int v) { t[0] = v; } }",
        );
        assert!(
            nullable.contains(&"array input t is not null".to_string()),
            "{nullable:?}"
        );
    }

    /// A null array parameter is an input where the pair tests for null:
    /// a dropped guard is refuted on `null`, replayed (the interpreter
    /// throws NullPointerException), by every checker that answers.
    #[test]
    fn dropped_null_guards_are_refuted_on_null() {
        let old = "class A { static int f(int[] a, int d) { if (a == null) { return d; } return a.length + d; } }";
        let new = "class A { static int f(int[] a, int d) { return a.length + d; } }";
        for checker in [
            CheckerKind::Symbolic,
            CheckerKind::Ardiff,
            CheckerKind::Portfolio,
        ] {
            let options = Options {
                checker,
                ..Options::default()
            };
            let report = check_sources(Lang::Java, old, new, &Selection::All, &options);
            let Verdict::NotEquivalent(cex) = &report.methods[0].verdict else {
                panic!("{checker:?}: {:?}", report.methods[0].verdict);
            };
            let shown: Vec<String> = cex.inputs.iter().map(|b| b.to_string()).collect();
            assert!(
                shown.iter().any(|b| b == "a = null"),
                "{checker:?}: {shown:?}"
            );
            assert!(
                format!("{:?}", cex.new.outcome).contains("NullPointer"),
                "{checker:?}: {:?}",
                cex.new
            );
        }
    }

    /// An array of arrays no statement reads (`main`'s `argv`) is no
    /// input: the method is checked, the proof assumes nothing of it and a
    /// counterexample leaves it free. One that is read still refuses.
    #[test]
    fn unread_argv_is_no_input() {
        let check = |old: &str, new: &str| {
            let options = Options {
                checker: CheckerKind::Portfolio,
                ..Options::default()
            };
            check_sources(Lang::C, old, new, &Selection::All, &options)
                .methods
                .remove(0)
                .verdict
        };
        let proved = check(
            "int main(int x, char *argv[]) { if (x > 0) return x + 1; return 0; }",
            "int main(int x, char *argv[]) { if (x <= 0) return 0; return 1 + x; }",
        );
        assert!(
            !assumptions(&proved).iter().any(|a| a.contains("argv")),
            "{proved:?}"
        );
        let refuted = check(
            "int main(int x, char *argv[]) { return x + 1; }",
            "int main(int x, char *argv[]) { return x + 2; }",
        );
        let Verdict::NotEquivalent(cex) = &refuted else {
            panic!("{refuted:?}");
        };
        let shown: Vec<String> = cex.inputs.iter().map(|b| b.to_string()).collect();
        assert!(
            !shown
                .iter()
                .any(|b| b.starts_with("argv") && b != "argv = (any)"),
            "{shown:?}"
        );
        let read = check(
            "int main(int x, char *argv[]) { return argv[0][0] + x; }",
            "int main(int x, char *argv[]) { return x + argv[0][0]; }",
        );
        assert!(
            matches!(&read, Verdict::Unknown(u) if u.detail.contains("multi-dimensional array")),
            "{read:?}"
        );
    }

    /// `Double.NaN` and the infinities: exact under `machine` (a returned
    /// NaN against `0.0 / 0.0` is proved, against -Infinity refuted), and
    /// refused by name under `math`, where no real is NaN — neither proved
    /// nor refuted on the interpreter's approximate NaN.
    #[test]
    fn non_finite_constants_are_exact_under_machine_and_refused_under_math() {
        let nan = "class N { static double f(double x) { if (x < 0) return Double.NaN; return x > 1e308 ? Double.POSITIVE_INFINITY : x; } }";
        let same = "class N { static double f(double x) { return x < 0 ? 0.0 / 0.0 : (x > 1e308 ? 1.0 / 0.0 : x); } }";
        let other = "class N { static double f(double x) { return x < 0 ? Double.NEGATIVE_INFINITY : (x > 1e308 ? 1.0 / 0.0 : x); } }";
        let check = |new: &str, semantics| {
            let options = Options {
                semantics,
                ..Options::default()
            };
            check_sources(Lang::Java, nan, new, &Selection::All, &options)
                .methods
                .remove(0)
                .verdict
        };
        let proved = check(same, Semantics::Machine);
        assert!(
            matches!(&proved, Verdict::Equivalent(p) if p.bounded.is_none()),
            "{proved:?}"
        );
        let refuted = check(other, Semantics::Machine);
        assert!(matches!(refuted, Verdict::NotEquivalent(_)), "{refuted:?}");
        for new in [same, other] {
            let refused = check(new, Semantics::Math);
            assert!(
                matches!(&refused, Verdict::Unknown(u)
                    if u.reason.is_unsupported() && u.detail.contains("literal NaN has no real value")),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn undeclared_callees_are_assumed_pure_and_named() {
        let v = verdicts(CalleeDeclarations::default());
        let f = assumptions(&v[0].1);
        assert!(
            f.iter()
                .any(|a| a.starts_with("com.acme.Audit.record is pure:"))
        );
        assert!(
            f.iter()
                .any(|a| a.starts_with("java.util.Objects.hash is pure:"))
        );
    }

    #[test]
    fn impure_callees_make_changed_methods_unsupported() {
        let v = verdicts(declared(&["java.util.Objects.hash"], &["com.acme.*"]));
        // f changed and calls Audit.record.
        match &v[0].1 {
            Verdict::Unknown(u) => {
                assert!(u.reason.is_unsupported(), "{u:?}");
                assert!(
                    u.detail.starts_with(
                        "call to com.acme.Audit.record, which the project declares impure"
                    ) && u.detail.contains("at 2:31 (new version)"),
                    "{}",
                    u.detail
                );
            }
            other => panic!("f: {other:?}"),
        }
        // g calls only the declared-pure callee, and says it is declared.
        let g = assumptions(&v[1].1);
        assert!(
            g.iter()
                .any(|a| a.starts_with("java.util.Objects.hash is pure, as the project declares:")),
            "{g:?}"
        );
        // k is the same code with a renamed parameter: the same call, so
        // equivalent whatever Audit.record does, and nothing assumed of it.
        let k = assumptions(&v[2].1);
        assert!(!k.iter().any(|a| a.contains("Audit")), "{k:?}");
    }

    /// A JDK method documented never to throw gets no "throws" in the
    /// solver's model: the unknown names the value it would have to return.
    #[test]
    fn never_throwing_jdk_callees_only_return() {
        let old = "class A { static boolean d(char c) { return c >= '0' && c <= '9'; } }";
        let new = "class A { static boolean d(char c) { return Character.isDigit(c); } }";
        for semantics in [Semantics::Math, Semantics::Machine] {
            let options = Options {
                semantics,
                ..Options::default()
            };
            let report = check_sources(Lang::Java, old, new, &Selection::All, &options);
            match &report.methods[0].verdict {
                Verdict::Unknown(u) => assert!(
                    u.detail.contains("Character.isDigit(")
                        && u.detail.contains("returns true")
                        && !u.detail.contains("throws"),
                    "{}",
                    u.detail
                ),
                other => panic!("{other:?}"),
            }
        }
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;

    /// One straight-line method of `n` statements; `changed` rewrites one
    /// in the middle (equivalently).
    fn straight_line(n: usize, changed: bool) -> String {
        let mut s =
            String::from("class S {\n  static int f(int a, int b) {\n    int x0 = a + b;\n");
        for i in 1..n {
            let rhs = if changed && i == n / 2 {
                format!("{} + x{}", i % 7 + 1, i - 1)
            } else {
                format!("x{} + {}", i - 1, i % 7 + 1)
            };
            s.push_str(&format!("    int x{i} = {rhs};\n"));
        }
        s.push_str(&format!("    return x{};\n  }}\n}}\n", n - 1));
        s
    }

    #[test]
    fn a_large_method_under_a_tiny_budget_ends_unknown_naming_the_phase() {
        let (old, new) = (straight_line(3000, false), straight_line(3000, true));
        for checker in [
            CheckerKind::Portfolio,
            CheckerKind::Dse,
            CheckerKind::Symbolic,
        ] {
            let options = Options {
                checker,
                timeout_ms: 1,
                ..Options::default()
            };
            let report = check_sources(Lang::Java, &old, &new, &Selection::All, &options);
            let [m] = report.methods.as_slice() else {
                panic!("one method: {report:?}")
            };
            let Verdict::Unknown(u) = &m.verdict else {
                panic!("{checker:?}: {:?}", m.verdict)
            };
            let UnknownReason::Timeout { phase } = u.reason else {
                panic!("{checker:?}: {u:?}")
            };
            assert_eq!(u.detail, format!("timeout while {} (1 ms)", phase.name()));
            assert_eq!(u.reason.words(), format!("timeout while {}", phase.name()));
        }
    }

    #[test]
    fn methods_left_when_the_file_budget_is_spent_are_reported_not_dropped() {
        // Lowering 2 × 2 × 3,000 statements takes more than a millisecond.
        let two = |changed: bool| {
            let f = straight_line(3000, changed);
            let g = f.replacen("static int f(", "static int g(", 1);
            // Both methods in one class.
            let body = |s: &str| s["class S {\n".len()..s.len() - "}\n".len()].to_string();
            format!("class S {{\n{}{}}}\n", body(&f), body(&g))
        };
        let (old, new) = (two(false), two(true));
        let budget = FileBudget {
            total_timeout_ms: Some(1),
        };
        let report = check_sources_within(
            Lang::Java,
            &old,
            &new,
            &Selection::All,
            &Options::default(),
            budget,
        );
        assert_eq!(report.methods.len(), 2, "{report:?}");
        for m in &report.methods {
            let Verdict::Unknown(u) = &m.verdict else {
                panic!("{:?}", m.verdict)
            };
            assert_eq!(
                u.reason,
                UnknownReason::FileBudget {
                    phase: Some(Phase::Lowering)
                }
            );
            assert!(
                u.detail
                    .contains("(1 ms) ran out while the files were lowered"),
                "{}",
                u.detail
            );
        }
        assert_eq!(report.summary(), Summary::Unknown);
        // Without a file budget the same files are checked.
        let report = check_sources_within(
            Lang::Java,
            &old,
            &new,
            &Selection::All,
            &Options::default(),
            FileBudget::default(),
        );
        assert!(report.methods.iter().all(|m| !matches!(
            &m.verdict,
            Verdict::Unknown(Unknown {
                reason: UnknownReason::FileBudget { .. },
                ..
            })
        )));
    }
}
