//! Adaptive loop bounds: a proof only up to the loop bound becomes a
//! complete one when every loop's trip count is bounded by a constant on
//! the paths the entry reaches (a loop over a fixed table, a constant
//! count, an argument the method clamps first).
//!
//! [`Deeper`] unrolls both versions deeper than the loop bound `k`,
//! doubling it (`2k`, `4k`, … up to `budget::MAX_LOOP_BOUND`) within its
//! budget. At each depth both versions are encoded (on a fresh Z3 context:
//! the deep encodings are large and a verdict must not depend on what an
//! earlier depth built), and first the cheap question is asked: can some
//! input the entry admits still run a loop past this depth
//! (`query::bound_exceeded`, the check that makes a proof bounded)? While
//! it can, the next depth is tried; at `budget::MAX_LOOP_BOUND` the trip
//! count is taken to be unbounded. When it cannot, the encoding is every
//! behaviour of both versions, and the difference query at that depth
//! decides: unsatisfiable is a proof for all inputs (`Proof::unrolled`
//! names the depth), a replayed model is a real counterexample. Anything
//! else is an unknown, which a schedule never takes over a bounded proof.
//!
//! The portfolio runs [`Deeper`] as a step of its own on a proof still up
//! to the bound, with most of what is left (`budget::DEEPER`), instead of
//! the full checker at the same bound. [`Deepening`] wraps a checker whose proof may hold only
//! where both versions terminate (the loop checker's): a loop whose trip
//! count is bounded terminates, so deeper unrolling can complete it too,
//! within a capped share (`budget::DEEPENING`) of what is left.
//!
//! A trip count that is an input (unbounded) exceeds every depth, so such
//! a pair spends the time of the cheap questions in vain. Which depths are
//! tried depends only on the pair and the bound, never on how long an
//! earlier depth took, so the verdict does not depend on the machine's
//! load beyond the deadline every checker has.

use super::query::{MAX_CANDIDATES, bodies, bound_exceeded, decide, encode, unknown};
use super::{Budget, Checker, Decider, Decision, MethodPair, Options, UnknownReason, Verdict};
use crate::budget::{DEEPENING, MAX_LOOP_BOUND, Portion};
use std::time::{Duration, Instant};
use z3::SatResult;

/// Unrolling deeper than `Options::loop_bound` until no input runs a loop
/// past the depth: a complete proof or a counterexample, else unknown.
pub struct Deeper;

impl Checker for Deeper {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let deadline = budget.deadline;
        let mut depth = options.loop_bound.max(1);
        while depth < MAX_LOOP_BOUND {
            if crate::cancel::expired(deadline) {
                return Decision::plain(
                    super::timeout(super::Phase::Solving, options.timeout_ms),
                    Decider::Symbolic,
                );
            }
            depth = depth.saturating_mul(2).min(MAX_LOOP_BOUND);
            let deeper = Options {
                loop_bound: depth,
                ..options.clone()
            };
            match super::with_fresh_z3_context(|| at_depth(pair, &deeper, deadline)) {
                AtDepth::Exceeds => continue,
                AtDepth::GaveUp(verdict) => return Decision::plain(verdict, Decider::Symbolic),
                AtDepth::Complete(Verdict::Equivalent(p)) if p.bounded.is_none() => {
                    let proof = super::Proof {
                        unrolled: Some(depth),
                        ..p
                    };
                    return Decision::plain(Verdict::Equivalent(proof), Decider::Symbolic);
                }
                AtDepth::Complete(v) => return Decision::plain(v, Decider::Symbolic),
            }
        }
        let detail = format!("some input runs a loop past {MAX_LOOP_BOUND} iterations");
        Decision::plain(
            unknown(UnknownReason::Inconclusive, detail),
            Decider::Symbolic,
        )
    }
}

/// `first`, then deeper unrolling of a proof it gave only where both
/// versions terminate.
pub struct Deepening {
    pub first: Box<dyn Checker>,
}

/// What one depth showed.
enum AtDepth {
    /// Some input runs a loop past this depth.
    Exceeds,
    /// Every loop exits within this depth; the difference query's answer.
    Complete(Verdict),
    /// The encoding or a solver call failed or ran out of time.
    GaveUp(Verdict),
}

impl Checker for Deepening {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let first = self.first.check(pair, options, budget);
        let Verdict::Equivalent(proof) = &first.verdict else {
            return first;
        };
        // Where both versions terminate, from the loop checker (no
        // recursion): complete once no input runs a loop past some depth.
        if !(proof.partial && proof.summaries.is_empty() && !proof.invariants.is_empty()) {
            return first;
        }
        let whole = Duration::from_millis(options.timeout_ms);
        let deadline = Portion::OfLeft(DEEPENING).deadline(whole, budget.deadline);
        let deeper = Deeper.check(pair, options, Budget::until(deadline));
        match deeper.verdict {
            Verdict::Equivalent(ref p) if p.bounded.is_none() && !p.partial => deeper,
            Verdict::NotEquivalent(_) => deeper,
            _ => first,
        }
    }
}

/// Both versions unrolled to `options.loop_bound`: whether a loop can run
/// past it, and if none can, the difference query's verdict.
fn at_depth(pair: &MethodPair<'_>, options: &Options, deadline: Instant) -> AtDepth {
    let (old_fn, new_fn) = match bodies(pair) {
        Ok(b) => b,
        Err(v) => return AtDepth::GaveUp(v),
    };
    let enc = match encode(pair, old_fn, new_fn, options, deadline, None) {
        Ok(enc) => enc,
        Err(v) => return AtDepth::GaveUp(v),
    };
    match bound_exceeded(&enc, pair, deadline) {
        SatResult::Sat => AtDepth::Exceeds,
        SatResult::Unknown if crate::cancel::expired(deadline) => {
            AtDepth::GaveUp(super::timeout(super::Phase::Solving, options.timeout_ms))
        }
        SatResult::Unknown => AtDepth::GaveUp(unknown(
            UnknownReason::SolverUnknown,
            format!(
                "whether a loop runs past {} iterations is undecided",
                options.loop_bound
            ),
        )),
        SatResult::Unsat => AtDepth::Complete(decide(
            pair,
            &enc,
            old_fn,
            new_fn,
            options,
            deadline,
            MAX_CANDIDATES,
        )),
    }
}
