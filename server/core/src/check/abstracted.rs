//! The checkers that abstract common code: `dse`, `imps` and `ardiff`. They
//! share everything but the starting plan and whether they refine:
//!
//! - `dse` (differential symbolic execution, as ARDiff re-implemented it):
//!   every common block abstracted, one query.
//! - `imps` (impacted summaries): common code impacted by the change — by
//!   data or control dependence, forwards or backwards — kept concrete, the
//!   rest abstracted, one query.
//! - `ardiff`: start like `dse`; on an unsatisfiable query the versions are
//!   equivalent (uninterpreted functions only weaken the formula); on a
//!   model, replay it — a real difference is `not equivalent` at once;
//!   otherwise (spurious model, solver unknown, time slice used up) refine
//!   one statement chosen by ARDiff's heuristics ([`super::refine`]) and go
//!   again, until decided, nothing is left to refine, or time is up.
//!
//! Loops that stay concrete (changed code, or refined) are only unrolled up
//! to the loop bound, so refinement can end with a proof "up to k
//! iterations". There `ardiff` goes beyond the paper: at its first such
//! proof it hands the pair, once, to the CHC loop checker
//! ([`super::loops`]: a lockstep invariant, or the recursion rule), whose
//! proof holds for every iteration count; if refinement ends undecided
//! without having asked, the loop checker gets the time left. A caller
//! that schedules the loop checker itself (the portfolio) turns the
//! hand-off off.

use super::query::{MAX_CANDIDATES, bodies, decide, encode};
use super::refine;
use super::testing::test_concretely;
use super::{
    AbstractionReport, Budget, Checker, Decider, Decision, MethodPair, Options, Phase, Verdict,
};
use crate::abstraction::{Abstraction, Context, Plan, StmtKey};
use rustc_hash::FxHashSet;
use std::time::Instant;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Dse,
    Imps,
    Ardiff,
}

pub struct AbstractingChecker {
    mode: Mode,
    stages: Stages,
}

impl AbstractingChecker {
    pub fn dse() -> Self {
        AbstractingChecker {
            mode: Mode::Dse,
            stages: Stages::all(),
        }
    }
    pub fn imps() -> Self {
        AbstractingChecker {
            mode: Mode::Imps,
            stages: Stages::all(),
        }
    }
    pub fn ardiff() -> Self {
        AbstractingChecker {
            mode: Mode::Ardiff,
            stages: Stages::all(),
        }
    }

    /// This checker without the stages a schedule runs itself.
    pub(crate) fn with_stages(self, stages: Stages) -> Self {
        AbstractingChecker { stages, ..self }
    }

    fn decider(&self) -> Decider {
        match self.mode {
            Mode::Dse => Decider::Dse,
            Mode::Imps => Decider::Imps,
            Mode::Ardiff => Decider::Ardiff,
        }
    }
}

impl Checker for AbstractingChecker {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let deadline = budget.deadline;
        let ctx = match pair_context(pair, deadline, options.timeout_ms, self.decider()) {
            Ok(ctx) => ctx,
            Err(timeout) => return *timeout,
        };
        self.run(pair, options, ctx, deadline)
    }
}

/// What an abstracting checker does besides abstraction and refinement; a
/// schedule that runs a stage itself turns it off
/// ([`AbstractingChecker::with_stages`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stages {
    /// Concrete tests before any solving (a counterexample is final).
    pub testing: bool,
    /// `ardiff` only: hand a proof up to the loop bound, or an unknown, to
    /// the CHC loop checker.
    pub loop_checker: bool,
}

impl Stages {
    pub fn all() -> Stages {
        Stages {
            testing: true,
            loop_checker: true,
        }
    }
}

impl AbstractingChecker {
    fn run(
        &self,
        pair: &MethodPair<'_>,
        options: &Options,
        ctx: &Context<'_>,
        deadline: Instant,
    ) -> Decision {
        let stages = self.stages;
        let hand_off = self.mode == Mode::Ardiff && stages.loop_checker && loops_or_recursion(pair);
        let mut loops = LoopHandOff {
            enabled: hand_off,
            tried: false,
        };
        let mut run = self.refine_loop(pair, options, ctx, deadline, stages.testing, &mut loops);
        // Ended undecided (or bounded) without having asked the loop
        // checker: it gets the time left.
        if !run.verdict.is_conclusive()
            && loops.enabled
            && !loops.tried
            && !crate::cancel::expired(deadline)
            && let Some(proof) = loops.prove(pair, options, deadline)
        {
            run.verdict = proof;
            run.decided_by = Some(self.decider());
            if let Some(report) = run.abstraction.as_mut() {
                report.loop_invariant = true;
            }
        }
        run
    }

    /// ARDiff's abstraction-refinement loop (or DSE's and IMP-S's single
    /// query), by `deadline`. One loop over refinements that share the
    /// plan, the report and the bounded proof kept so far; every exit goes
    /// through `done`, which lets a kept bounded proof stand over an
    /// unknown — so it stays one function.
    fn refine_loop(
        &self,
        pair: &MethodPair<'_>,
        options: &Options,
        ctx: &Context<'_>,
        deadline: Instant,
        with_testing: bool,
        loops: &mut LoopHandOff,
    ) -> Decision {
        let by = self.decider();
        // A proof that holds only up to the loop bound, kept while ARDiff
        // refines towards an unbounded one; it stands if that fails.
        let bounded_proof: std::cell::RefCell<Option<Verdict>> = std::cell::RefCell::new(None);
        let done = |verdict: Verdict, report: Option<AbstractionReport>| {
            let verdict = match (verdict, bounded_proof.borrow().as_ref()) {
                (Verdict::Unknown(_), Some(proof)) => proof.clone(),
                (v, _) => v,
            };
            let decided = !matches!(verdict, Verdict::Unknown(_));
            Decision {
                verdict,
                decided_by: decided.then_some(by),
                abstraction: report,
            }
        };
        let (old_fn, new_fn) =
            match self.before_abstraction(pair, options, ctx, deadline, with_testing) {
                Ok(bodies) => bodies,
                Err(Early::Done(done_with)) => return done(done_with.0, done_with.1),
                Err(Early::Decided(decision)) => return *decision,
            };
        let mut plan = Plan {
            refined: FxHashSet::default(),
            overrides: options.overrides.clone(),
            keep_constants: self.mode == Mode::Ardiff,
        };
        let abstraction_timeout = |report| {
            done(
                super::timeout(Phase::Abstraction, options.timeout_ms),
                report,
            )
        };
        if self.mode == Mode::Imps {
            let Some(dse) = ctx.abstraction_until(&plan, deadline) else {
                return abstraction_timeout(None);
            };
            plan.refined = impacted(&dse);
        }
        let mut report = AbstractionReport::default();
        loop {
            let Some(abs) = ctx.abstraction_until(&plan, deadline) else {
                return abstraction_timeout(Some(report));
            };
            if report.iterations == 0 {
                report.blocks = abs.blocks.len();
                report.overrides = abs.overrides.clone();
            }
            report.iterations += 1;
            let Some(left) = crate::cancel::remaining(deadline) else {
                return abstraction_timeout(Some(report));
            };
            // ARDiff gets more than one query: give each a slice, so a
            // query the abstraction makes hard does not eat the budget of
            // the refinements that would make it easy.
            let iteration_deadline = if self.mode == Mode::Ardiff && !abs.blocks.is_empty() {
                crate::clock::now() + crate::budget::ARDIFF_QUERY.of(left)
            } else {
                deadline
            };
            let enc = match encode(
                pair,
                old_fn,
                new_fn,
                options,
                iteration_deadline,
                Some(&abs),
            ) {
                Ok(enc) => enc,
                Err(v) => {
                    if self.refinable(&v, &abs, deadline) {
                        // Encoding itself timed out: nothing to learn from
                        // a model; refine by the statement heuristic alone.
                        match refine::choose(None, &abs, &plan, deadline) {
                            Some(choice) => {
                                note_refinement(&mut report, &abs, &choice);
                                plan.refined
                                    .extend(refine::statements_of(&abs, &plan, &choice));
                                continue;
                            }
                            None => return done(v, Some(report)),
                        }
                    }
                    return done(v, Some(report));
                }
            };
            let applied = enc.apps.blocks();
            report.functions_left = applied.len();
            let candidates = if applied.is_empty() {
                MAX_CANDIDATES
            } else {
                1
            };
            let verdict = decide(
                pair,
                &enc,
                old_fn,
                new_fn,
                options,
                iteration_deadline,
                candidates,
            );
            match verdict {
                Verdict::Equivalent(mut proof) => {
                    proof
                        .assumptions
                        .extend(termination_assumptions(&abs, &applied));
                    let bounded = proof.bounded.is_some();
                    // Proved up to the bound: the loop checker may prove it
                    // for every iteration count, typically faster than
                    // refinement gets there (if it can at all).
                    if bounded && loops.enabled && !loops.tried {
                        let left = deadline.saturating_duration_since(crate::clock::now());
                        let slice = crate::budget::ARDIFF_LOOPS.of(left);
                        if let Some(full) = loops.prove(pair, options, crate::clock::now() + slice)
                        {
                            report.loop_invariant = true;
                            return done(full, Some(report));
                        }
                    }
                    let proof = Verdict::Equivalent(proof);
                    // Bounded only because an abstracted value controls a
                    // loop? Making it concrete may give a full proof.
                    if bounded
                        && self.refinable(&proof, &abs, deadline)
                        && !applied.is_empty()
                        && let Some(choice) = refine::choose(Some(&enc), &abs, &plan, deadline)
                    {
                        note_refinement(&mut report, &abs, &choice);
                        plan.refined
                            .extend(refine::statements_of(&abs, &plan, &choice));
                        *bounded_proof.borrow_mut() = Some(proof);
                        continue;
                    }
                    return done(proof, Some(report));
                }
                Verdict::NotEquivalent(_) => {
                    return done(verdict, Some(report));
                }
                Verdict::Unknown(_) if applied.is_empty() => {
                    return done(verdict, Some(report));
                }
                Verdict::Unknown(_) if !self.refinable(&verdict, &abs, deadline) => {
                    let verdict = explain_abstraction(verdict, &applied);
                    return done(verdict, Some(report));
                }
                Verdict::Unknown(_) => match refine::choose(Some(&enc), &abs, &plan, deadline) {
                    Some(choice) => {
                        note_refinement(&mut report, &abs, &choice);
                        plan.refined
                            .extend(refine::statements_of(&abs, &plan, &choice));
                    }
                    None => {
                        let verdict = explain_abstraction(verdict, &applied);
                        return done(verdict, Some(report));
                    }
                },
            }
        }
    }

    /// What comes before any abstraction: the bodies, identity modulo
    /// renaming (`ardiff`), concrete tests — or how the check ends there.
    fn before_abstraction<'p>(
        &self,
        pair: &MethodPair<'p>,
        options: &Options,
        ctx: &Context<'_>,
        deadline: Instant,
        with_testing: bool,
    ) -> Result<(&'p crate::ir::Function, &'p crate::ir::Function), Early> {
        let (old_fn, new_fn) = match bodies(pair) {
            Ok(b) => b,
            Err(v) => return Err(Early::Done(Box::new((v, None)))),
        };
        // Equal modulo renaming and formatting, callees included (say once
        // a refactoring's named constant is folded back): nothing changed,
        // nothing to abstract or refine — where the returns inside loops
        // would keep the whole body concrete.
        if self.mode == Mode::Ardiff && ctx.identical(pair.old, pair.new) {
            let proof = Verdict::Equivalent(super::Proof {
                bounded: None,
                unrolled: None,
                assumptions: Vec::new(),
                invariants: Vec::new(),
                partial: false,
                summaries: Vec::new(),
            });
            return Err(Early::Done(Box::new((
                proof,
                Some(AbstractionReport::default()),
            ))));
        }
        if with_testing {
            if let Some(cex) = test_concretely(pair, old_fn, new_fn, options, deadline) {
                return Err(Early::Decided(Box::new(Decision::plain(
                    Verdict::NotEquivalent(Box::new(cex)),
                    Decider::Testing,
                ))));
            }
            if crate::cancel::expired(deadline) {
                return Err(Early::Done(Box::new((
                    super::timeout(Phase::Testing, options.timeout_ms),
                    None,
                ))));
            }
        }
        Ok((old_fn, new_fn))
    }

    /// Whether a verdict is worth another, more concrete, try: not
    /// conclusive (an unknown that is not `unsupported`, or a proof that
    /// holds only up to the loop bound).
    fn refinable(&self, v: &Verdict, abs: &Abstraction, deadline: Instant) -> bool {
        self.mode == Mode::Ardiff
            && !abs.blocks.is_empty()
            && !crate::cancel::expired(deadline)
            && !v.is_conclusive()
    }
}

/// How a check ends before any abstraction: a verdict for `done` (with
/// the report so far), or a decision as it is (a concrete test's
/// counterexample).
enum Early {
    Done(Box<(Verdict, Option<AbstractionReport>)>),
    Decided(Box<Decision>),
}

/// `ardiff`'s hand-off to the loop checker: asked once, with a proof taken
/// and anything else ignored (it never refutes).
struct LoopHandOff {
    enabled: bool,
    tried: bool,
}

impl LoopHandOff {
    fn prove(&mut self, pair: &MethodPair<'_>, options: &Options, by: Instant) -> Option<Verdict> {
        self.tried = true;
        let verdict = super::loops::LoopsChecker
            .on_own_context()
            .check(pair, options, Budget::until(by))
            .verdict;
        verdict.is_proved().then_some(verdict)
    }
}

/// Whether either version has a loop (in the method or a callee) or
/// recursion: the pairs the loop checker may prove without a bound.
fn loops_or_recursion(pair: &MethodPair<'_>) -> bool {
    [(pair.old_program, pair.old), (pair.new_program, pair.new)]
        .iter()
        .any(|&(program, f)| {
            program.reaches(f, &mut |s| {
                matches!(s.kind, crate::ir::StmtKind::Loop { .. })
            }) || !crate::loops::recursion::recursive_functions(program, f).is_empty()
        })
}

fn note_refinement(report: &mut AbstractionReport, abs: &Abstraction, choice: &refine::Choice) {
    let span = abs
        .blocks
        .iter()
        .flat_map(|b| &b.statements)
        .find(|s| s.key == choice.statement)
        .map(|s| s.span)
        .unwrap_or_default();
    report.refined.push(span);
    report.heuristics.push(choice.heuristic.to_string());
}

/// One-shot checkers end with functions still abstracted: say so.
fn explain_abstraction(v: Verdict, applied: &[crate::abstraction::BlockId]) -> Verdict {
    match v {
        Verdict::Unknown(mut u) if !applied.is_empty() => {
            u.detail = format!(
                "{} ({} common block{} abstracted)",
                u.detail,
                applied.len(),
                if applied.len() == 1 { "" } else { "s" }
            );
            Verdict::Unknown(u)
        }
        v => v,
    }
}

/// Abstracted loops are assumed to terminate: the proof compares the
/// executions in which they do.
fn termination_assumptions(
    abs: &Abstraction,
    applied: &[crate::abstraction::BlockId],
) -> Vec<super::Assumption> {
    let lines: Vec<String> = abs
        .blocks
        .iter()
        .filter(|b| b.contains_loop && applied.contains(&b.id))
        .map(|b| {
            let (a, z) = (b.new_span.line(), b.new_span.end.line + 1);
            if a == z {
                format!("{a}")
            } else {
                format!("{a}-{z}")
            }
        })
        .collect();
    if lines.is_empty() {
        return Vec::new();
    }
    vec![super::Assumption::AbstractedLoopsTerminate(lines)]
}

/// IMP-S: the common statements impacted by the change. Forward: reading a
/// variable the changed code (or an impacted statement) writes. Backward:
/// writing a variable the changed code (or an impacted statement) reads.
/// Control: nested in a changed `if` or loop. Variable-level and
/// flow-insensitive, like the impacted-summaries analysis of Backes et al.
fn impacted(dse: &Abstraction) -> FxHashSet<StmtKey> {
    let mut fwd = dse.changed_writes.clone();
    let mut bwd = dse.changed_reads.clone();
    let mut out = FxHashSet::default();
    for b in dse.blocks.iter().filter(|b| b.under_change) {
        for s in &b.statements {
            if !s.pinned {
                out.insert(s.key);
                fwd.extend(s.writes.iter().cloned());
                bwd.extend(s.reads.iter().cloned());
            }
        }
    }
    loop {
        let mut grew = false;
        for s in dse.blocks.iter().flat_map(|b| &b.statements) {
            if s.pinned || out.contains(&s.key) {
                continue;
            }
            let forward = s.reads.iter().any(|v| fwd.contains(v));
            let backward = s.writes.iter().any(|v| bwd.contains(v));
            if forward || backward {
                out.insert(s.key);
                fwd.extend(s.writes.iter().cloned());
                bwd.extend(s.reads.iter().cloned());
                grew = true;
            }
        }
        if !grew {
            return out;
        }
    }
}

/// The pair's matching context (see [`MethodPair::context`]); a timeout in
/// the matching phase (decided by `by`) when `deadline` passes first.
pub(crate) fn pair_context<'a, 'p>(
    pair: &'a MethodPair<'p>,
    deadline: Instant,
    timeout_ms: u64,
    by: Decider,
) -> Result<&'a Context<'p>, Box<Decision>> {
    pair.context(deadline).ok_or_else(|| {
        Box::new(Decision::plain(
            super::timeout(Phase::Matching, timeout_ms),
            by,
        ))
    })
}

#[cfg(test)]
mod tests {
    //! The refinement loop on small pairs whose iterations are known.
    use crate::check::{CheckerKind, Options, Selection, Verdict, check_sources};
    use crate::ir::Lang;

    fn run(lang: Lang, old: &str, new: &str, checker: CheckerKind) -> crate::check::MethodReport {
        let options = Options {
            checker,
            ..Options::default()
        };
        let mut r = check_sources(lang, old, new, &Selection::All, &options);
        r.methods.remove(0)
    }

    const OLD: &str = "class T { static int f(int a) {
    int y = a + 1;
    return y - 1;
} }";
    const NEW: &str = "class T { static int f(int a) {
    int y = a + 1;
    return a;
} }";

    #[test]
    fn ardiff_refines_the_block_h1_points_at() {
        let m = run(Lang::Java, OLD, NEW, CheckerKind::Ardiff);
        assert!(m.verdict.is_proved(), "{:?}", m.verdict);
        let a = m.abstraction.expect("abstraction report");
        assert_eq!(a.iterations, 2);
        assert_eq!(a.blocks, 1);
        assert_eq!(a.functions_left, 0);
        assert_eq!(a.heuristics, vec!["H1"]);
        assert_eq!(
            a.refined.iter().map(|s| s.line()).collect::<Vec<_>>(),
            vec![2]
        );
    }

    #[test]
    fn dse_stops_at_the_spurious_candidate_and_imps_keeps_the_impacted_code() {
        let m = run(Lang::Java, OLD, NEW, CheckerKind::Dse);
        assert!(matches!(m.verdict, Verdict::Unknown(_)), "{:?}", m.verdict);
        assert_eq!(m.abstraction.map(|a| a.iterations), Some(1));
        // `y` is read by the changed return: impacted, kept concrete.
        let m = run(Lang::Java, OLD, NEW, CheckerKind::Imps);
        assert!(m.verdict.is_proved(), "{:?}", m.verdict);
        let a = m.abstraction.expect("abstraction report");
        assert_eq!((a.iterations, a.functions_left), (1, 0));
    }

    /// `ardiff` with its hand-off to the loop checker turned off: the
    /// abstraction-refinement loop alone.
    fn refinement_only(lang: Lang, old: &str, new: &str) -> crate::check::Decision {
        let (old_p, new_p) = (crate::lang::lower(lang, old), crate::lang::lower(lang, new));
        let pair = crate::check::MethodPair::new(
            "f",
            &old_p,
            old_p.find("f").next().expect("f").0,
            &new_p,
            new_p.find("f").next().expect("f").0,
        );
        let stages = super::Stages {
            testing: true,
            loop_checker: false,
        };
        crate::check::Checker::check(
            &super::AbstractingChecker::ardiff().with_stages(stages),
            &pair,
            &Options::default(),
            crate::check::Budget::from_now(10_000),
        )
    }

    #[test]
    fn ardiff_refines_a_bounded_proof_into_a_full_one() {
        let old = "int f(int x) { int s = 0; for (int i = 0; i < 6; i++) { s += x; } return s; }";
        let new = "int f(int x) { int s = 0; int i = 0; do { s = s + x; i++; } while (i < 6); return s; }";
        let d = refinement_only(Lang::C, old, new);
        assert!(d.verdict.is_proved(), "{:?}", d.verdict);
        let a = d.abstraction.expect("abstraction report");
        // The first proof is bounded (the loop counter is abstracted);
        // refining the counter and the sum makes the loop concrete.
        assert_eq!(a.iterations, 3);
        assert_eq!(a.refined.len(), 2);
        assert!(!a.loop_invariant);
    }

    #[test]
    fn ardiff_hands_a_loop_it_proves_only_up_to_the_bound_to_the_loop_checker() {
        // The changed statement sits in a loop with a symbolic bound:
        // unrolling proves it up to the bound only, whatever is refined.
        let old = "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += 2; } return s; }";
        let new =
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s = s + 1 + 1; } return s; }";
        let m = run(Lang::C, old, new, CheckerKind::Ardiff);
        match &m.verdict {
            Verdict::Equivalent(p) => {
                assert!(p.bounded.is_none(), "{p:?}");
                assert!(!p.invariants.is_empty(), "{p:?}");
            }
            other => panic!("expected a proof, got {other:?}"),
        }
        assert_eq!(m.decided_by, Some(crate::check::Decider::Ardiff));
        assert!(m.abstraction.expect("abstraction report").loop_invariant);
        // Without the hand-off the same run ends with the bounded proof.
        let d = refinement_only(Lang::C, old, new);
        match &d.verdict {
            Verdict::Equivalent(p) => assert!(p.bounded.is_some(), "{p:?}"),
            other => panic!("expected a bounded proof, got {other:?}"),
        }
        assert!(!d.abstraction.expect("abstraction report").loop_invariant);
    }

    #[test]
    fn portfolio_names_syntax_for_renamings() {
        let old = "class T { static int f(int a) { int s = a * 2; return s; } }";
        let new = "class T {
            static int f(int b) {
                int t = b * 2;   // renamed
                return t;
            }
        }";
        let m = run(Lang::Java, old, new, CheckerKind::Portfolio);
        assert!(m.verdict.is_proved());
        assert_eq!(m.decided_by, Some(crate::check::Decider::Syntax));
    }
}
