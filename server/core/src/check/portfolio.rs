//! The default checker: cheapest answers first.
//!
//! 1. Normalized-syntax identity: both versions equal modulo renaming and
//!    formatting, callees included → equivalent, in microseconds.
//! 2. When both versions have loops, or either has recursion: concrete
//!    tests (a counterexample is final), then the `loops` checker (40 % of
//!    the budget, at most 4 s; lockstep invariants or the recursion rule)
//!    — an unbounded proof, taken at once.
//! 3. `ardiff` (which tests concretely before any solving).
//! 4. When `ardiff` ended undecided or with a proof that holds only up to
//!    the loop bound, and the loop checker has not answered yet (or ran
//!    out of time): the `loops` checker (a lockstep invariant, CHC) with
//!    half the time left — its proof is taken, anything else ignored (it
//!    never refutes) —
//! 5. then the full `symbolic` checker with the time left; its answer
//!    replaces ARDiff's when it is stronger.
//!
//! The verdict names what decided it.

use super::abstracted::{AbstractingChecker, Stages};
use super::symbolic::{MAX_CANDIDATES, bodies, decide, encode, test_concretely};
use super::{
    Budget, Checker, CheckerKind, Decider, Decision, MethodPair, Options, Phase, Proof,
    UnknownReason, Verdict,
};
use std::time::Duration;

pub struct PortfolioChecker;

impl Checker for PortfolioChecker {
    fn kind(&self) -> CheckerKind {
        CheckerKind::Portfolio
    }

    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let deadline = budget.deadline;
        let (old_fn, new_fn) = match bodies(pair) {
            Ok(b) => b,
            Err(v) => return Decision::plain(v, Decider::Syntax),
        };
        let ctx = match super::abstracted::pair_context(
            pair,
            deadline,
            options.timeout_ms,
            Decider::Syntax,
        ) {
            Ok(ctx) => ctx,
            Err(timeout) => return *timeout,
        };
        if ctx.identical(pair.old, pair.new) {
            return Decision::plain(
                Verdict::Equivalent(Proof {
                    bounded: None,
                    assumptions: Vec::new(),
                    invariants: Vec::new(),
                    partial: false,
                    summaries: Vec::new(),
                }),
                Decider::Syntax,
            );
        }
        // Pairs with loops in both versions or recursion in either:
        // concrete tests first (a buggy loop is refuted in milliseconds),
        // then the loop checker (lockstep invariants, or the recursion
        // rule) with part of the budget — an unbounded proof in well under
        // a second on the pairs it proves, where ARDiff would spend half
        // the budget on a proof up to the bound.
        let loops_in_both =
            crate::ir::contains_loop(&old_fn.body) && crate::ir::contains_loop(&new_fn.body);
        let recursion = [(pair.old_program, pair.old), (pair.new_program, pair.new)]
            .iter()
            .any(|(p, f)| !crate::loops::recursion::recursive_functions(p, *f).is_empty());
        let unbounded_first = loops_in_both || recursion;
        let mut loops_done = false;
        if unbounded_first {
            if let Some(cex) = test_concretely(pair, old_fn, new_fn, options, deadline) {
                return Decision::plain(Verdict::NotEquivalent(Box::new(cex)), Decider::Testing);
            }
            if crate::cancel::expired(deadline) {
                return Decision::plain(
                    super::timeout(Phase::Testing, options.timeout_ms),
                    Decider::Testing,
                );
            }
            let first = crate::budget::FIRST_LOOPS.of(Duration::from_millis(options.timeout_ms));
            let verdict = super::loops::on_own_context(
                pair,
                options,
                Budget::until(crate::clock::now() + first),
            );
            if verdict.is_proved() {
                return Decision::plain(verdict, Decider::Loops);
            }
            // Only a timeout is worth a second try after ARDiff.
            loops_done = !matches!(&verdict, Verdict::Unknown(u) if matches!(u.reason, UnknownReason::Timeout { .. }));
        }
        // ARDiff decides most pairs it can decide quickly; keep part of the
        // budget for the full checker, which some loop-heavy pairs need
        // whole (abstraction can turn a constant loop bound symbolic).
        let budget = Duration::from_millis(options.timeout_ms);
        let ardiff_deadline = crate::clock::now() + crate::budget::ARDIFF.of(budget);
        // The portfolio schedules the loop checker itself (before ARDiff
        // and after it), so ARDiff does not hand off to it.
        let stages = Stages {
            testing: !unbounded_first,
            loop_checker: false,
        };
        let run = AbstractingChecker::ardiff().run(pair, options, &ctx, ardiff_deadline, stages);
        // Undecided, or proved only up to the bound: the full checker, with
        // all the time left, may still do better (a constant loop unrolled
        // completely is a full proof; a query ARDiff's slices cut short may
        // finish).
        // ARDiff's last query had nothing abstracted and was not cut short:
        // the full checker would ask the same question again.
        let same_question = run
            .abstraction
            .as_ref()
            .is_some_and(|a| a.functions_left == 0);
        let improvable = match &run.verdict {
            Verdict::Unknown(u) if same_question => {
                matches!(u.reason, UnknownReason::Timeout { .. })
            }
            Verdict::Unknown(u) => !u.reason.is_unsupported(),
            Verdict::Equivalent(p) => p.bounded.is_some(),
            Verdict::NotEquivalent(_) => false,
        };
        // A bounded proof or an unknown (even one the full checker could
        // not improve, e.g. a difference only beyond the bound): a lockstep
        // invariant may prove the pair without a bound. Only a proof is
        // taken; the loop checker answers at once on pairs without loops.
        if !run.verdict.is_conclusive() && !loops_done && !crate::cancel::expired(deadline) {
            let left = deadline.saturating_duration_since(crate::clock::now());
            let loops_deadline = crate::clock::now() + crate::budget::LOOPS_AFTER_ARDIFF.of(left);
            let by_loops =
                super::loops::on_own_context(pair, options, Budget::until(loops_deadline));
            if by_loops.is_proved() {
                return Decision {
                    verdict: by_loops,
                    decided_by: Some(Decider::Loops),
                    abstraction: run.abstraction,
                };
            }
        }
        if !improvable || crate::cancel::expired(deadline) {
            return run;
        }
        let enc = match encode(pair, old_fn, new_fn, options, deadline, None) {
            Ok(enc) => enc,
            Err(_) => return run,
        };
        let verdict = decide(
            pair,
            &enc,
            old_fn,
            new_fn,
            options,
            deadline,
            MAX_CANDIDATES,
        );
        let stronger = match (&verdict, &run.verdict) {
            (Verdict::Unknown(_), _) => false,
            (Verdict::Equivalent(p), Verdict::Equivalent(_)) => p.bounded.is_none(),
            _ => true,
        };
        if !stronger {
            return run;
        }
        Decision {
            verdict,
            decided_by: Some(Decider::Symbolic),
            abstraction: run.abstraction,
        }
    }
}
