//! Adaptive loop bounds: a proof only up to the loop bound becomes a
//! complete one when every loop's trip count is bounded by a constant on
//! the paths the entry reaches (a loop over a fixed table, a constant
//! count, an argument the method clamps first).
//!
//! [`Deepening`] runs its `first` checker with the whole budget. Only when
//! that answer is `equivalent up to k iterations`, or `equivalent where
//! both terminate` from the loop checker (its loops may not terminate:
//! a loop whose trip count is bounded does), does it unroll deeper,
//! doubling the bound (`2k`, `4k`, … up to `budget::MAX_LOOP_BOUND`) within its
//! share of what is left (`budget::DEEPENING`). At each depth both
//! versions are encoded (on a fresh Z3 context: the deep encodings are
//! large and a verdict must not depend on what an earlier depth built),
//! and first the cheap question is asked: can some input the entry admits
//! still run a loop past this depth (`query::bound_exceeded`, the check
//! that makes a proof bounded)? While it can, the next depth is tried; at
//! `budget::MAX_LOOP_BOUND` the trip count is taken to be unbounded and the
//! first answer stands. When it cannot, the encoding is every behaviour of
//! both versions, and the difference query at that depth decides:
//! unsatisfiable is a proof for all inputs (`Proof::unrolled` names the
//! depth), a replayed model is a real counterexample.
//!
//! A trip count that is an input (unbounded) exceeds every depth, so
//! deepening costs such a pair its share in vain: the share is capped.
//! Which depths are tried depends only on the pair and the bound, never on
//! how long an earlier depth took, so the verdict does not depend on the
//! machine's load beyond the deadline every checker has.
//!
//! The answer is never weaker than `first`'s: an encoding that fails or
//! runs out of the share, a solver that gives up, a candidate that does
//! not replay — each keeps the bounded proof.

use super::query::{MAX_CANDIDATES, bodies, bound_exceeded, decide, encode};
use super::{Budget, Checker, Decider, Decision, MethodPair, Options, Verdict};
use crate::budget::{DEEPENING, MAX_LOOP_BOUND, Portion};
use std::time::{Duration, Instant};
use z3::SatResult;

/// `first`, then deeper unrolling of a proof it could give only up to the
/// loop bound.
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
    GaveUp,
}

impl Checker for Deepening {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let first = self.first.check(pair, options, budget);
        let Verdict::Equivalent(proof) = &first.verdict else {
            return first;
        };
        // A proof up to the bound, or one where both versions terminate
        // from the loop checker (no recursion): either is complete once no
        // input runs a loop past some depth.
        let bound = match proof.bounded {
            Some(bound) => bound,
            None if proof.partial && proof.summaries.is_empty() && !proof.invariants.is_empty() => {
                options.loop_bound
            }
            None => return first,
        };
        let whole = Duration::from_millis(options.timeout_ms);
        let deadline = Portion::OfLeft(DEEPENING).deadline(whole, budget.deadline);
        let mut depth = bound;
        while depth < MAX_LOOP_BOUND && !crate::cancel::expired(deadline) {
            depth = depth.saturating_mul(2).min(MAX_LOOP_BOUND);
            let deeper = Options {
                loop_bound: depth,
                ..options.clone()
            };
            match super::with_fresh_z3_context(|| at_depth(pair, &deeper, deadline)) {
                AtDepth::Exceeds => continue,
                AtDepth::GaveUp => return first,
                AtDepth::Complete(Verdict::Equivalent(p)) if p.bounded.is_none() => {
                    let proof = super::Proof {
                        unrolled: Some(depth),
                        ..p
                    };
                    return Decision::plain(Verdict::Equivalent(proof), Decider::Symbolic);
                }
                AtDepth::Complete(v @ Verdict::NotEquivalent(_)) => {
                    return Decision::plain(v, Decider::Symbolic);
                }
                AtDepth::Complete(_) => return first,
            }
        }
        first
    }
}

/// Both versions unrolled to `options.loop_bound`: whether a loop can run
/// past it, and if none can, the difference query's verdict.
fn at_depth(pair: &MethodPair<'_>, options: &Options, deadline: Instant) -> AtDepth {
    let Ok((old_fn, new_fn)) = bodies(pair) else {
        return AtDepth::GaveUp;
    };
    let Ok(enc) = encode(pair, old_fn, new_fn, options, deadline, None) else {
        return AtDepth::GaveUp;
    };
    match bound_exceeded(&enc, pair, deadline) {
        SatResult::Sat => AtDepth::Exceeds,
        SatResult::Unknown => AtDepth::GaveUp,
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
