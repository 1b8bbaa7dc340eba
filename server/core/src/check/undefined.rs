//! C's undefined behaviour as refinement: where the old version is
//! undefined, any behaviour of the new one is allowed (the notion compilers
//! are held to, as in Alive2); a new version undefined where the old one is
//! defined differs like any other outcome.
//!
//! Every checker proves equivalence in that sense: the difference they
//! refute (`crate::symbolic::difference`) excludes runs in which the old
//! version is undefined, and a replayed difference whose old run is
//! undefined is no counterexample (`super::replay::run_both`). This module
//! makes a proof say so: [`Refining`] wraps the checker of a C pair and,
//! after a proof, looks for inputs on which the old version is undefined
//! and the new one is not. Found and replayed, they are named in the proof
//! ([`Assumption::RefinesUndefined`]); when there are none within the loop
//! bound and no loop goes past it (or the proof holds only up to the bound
//! anyway), the versions are equivalent outright and nothing is added;
//! otherwise the proof says how far the search went.

use super::query::{self, MAX_CANDIDATES, QuerySolver, bodies, strategy_for};
use super::replay::replay_undefined;
use super::{
    Assumption, Budget, Checker, Decider, Decision, MethodPair, Options, Refinement, Verdict,
};
use crate::budget::{Portion, UNDEFINED_WITNESS};
use crate::ir::Lang;
use crate::symbolic::model;
use crate::symbolic::ops::FaultCode;
use std::time::{Duration, Instant};
use z3::SatResult;
use z3::ast::{Ast, Bool, Int};

/// A checker whose proofs of C pairs name the inputs on which the old
/// version is undefined and the new one is not.
pub(super) struct Refining {
    pub inner: Box<dyn Checker>,
}

impl Checker for Refining {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let mut decision = self.inner.check(pair, options, budget);
        // Versions equal modulo renaming (callees included) are undefined
        // on the same inputs: nothing to search.
        if pair.old_program.lang != Lang::C || decision.decided_by == Some(Decider::Syntax) {
            return decision;
        }
        if let Verdict::Equivalent(proof) = &mut decision.verdict {
            let whole = Duration::from_millis(options.timeout_ms);
            let deadline = Portion::OfWhole(UNDEFINED_WITNESS).deadline(whole, budget.deadline);
            let bounded = proof.bounded.is_some();
            if let Some(a) = refinement(pair, options, bounded, deadline) {
                proof.assumptions.push(a);
            }
        }
        decision
    }
}

/// What a proof of `pair` takes for granted about the old version's
/// undefined behaviour: nothing (`None`) when no input within the loop
/// bound makes the old version undefined and the new one not, and either
/// the proof holds only within that bound (`bounded`) or no run exceeds it.
fn refinement(
    pair: &MethodPair<'_>,
    options: &Options,
    bounded: bool,
    deadline: Instant,
) -> Option<Assumption> {
    let undecided = Some(Assumption::RefinesUndefined(Refinement::Undecided));
    if crate::clock::now() >= deadline {
        return undecided;
    }
    let Ok((old_fn, new_fn)) = bodies(pair) else {
        return undecided;
    };
    let Ok(enc) = query::encode(pair, old_fn, new_fn, options, deadline, None) else {
        return undecided;
    };
    let strategy = strategy_for(pair, &enc);
    let undefined = Int::from_i64(FaultCode::UNDEFINED.0);
    let mut facts: Vec<Bool> = enc.ufs.facts.clone();
    facts.extend(enc.inputs.preconditions());
    let mut solver = QuerySolver::new(strategy);
    solver.assert(&Bool::and(&facts));
    solver.assert(&Bool::and(&[
        enc.old.bound_exceeded.not(),
        enc.new.bound_exceeded.not(),
        enc.old.outcome.eq(&undefined),
        enc.new.outcome.eq(&undefined).not(),
    ]));
    let mut none_within_bound = false;
    for _ in 0..MAX_CANDIDATES {
        match solver.check(deadline) {
            SatResult::Unsat => {
                none_within_bound = true;
                break;
            }
            SatResult::Unknown => return undecided,
            SatResult::Sat => {
                let found = solver.get_model()?;
                if let Some(cex) =
                    replay_undefined(pair, &enc, &found, old_fn, new_fn, options, deadline)
                {
                    let inputs: Vec<String> = cex.inputs.iter().map(|b| b.to_string()).collect();
                    let witness = format!(
                        "{} ({}); the new one {}",
                        if inputs.is_empty() {
                            "every input".to_string()
                        } else {
                            inputs.join(", ")
                        },
                        undefined_what(&cex.old.outcome.describe()),
                        cex.new.outcome.describe(),
                    );
                    return Some(Assumption::RefinesUndefined(Refinement::Witnessed(witness)));
                }
                match model::block(&found, &enc.inputs) {
                    Some(b) => solver.assert(&b),
                    None => return undecided,
                }
            }
        }
    }
    if !none_within_bound {
        return undecided;
    }
    // None within the bound: whether runs go past it decides the rest.
    let exceeded = Bool::or(&[&enc.old.bound_exceeded, &enc.new.bound_exceeded]);
    if bounded || exceeded.simplify().as_bool() == Some(false) {
        return None;
    }
    let mut past = QuerySolver::new(strategy);
    past.assert(&Bool::and(&facts));
    past.assert(&exceeded);
    match past.check(deadline) {
        SatResult::Unsat => None,
        SatResult::Sat => Some(Assumption::RefinesUndefined(Refinement::NoneWithin(
            options.loop_bound,
        ))),
        SatResult::Unknown => undecided,
    }
}

/// `signed integer overflow` of `undefined behaviour: signed integer
/// overflow`: the sentence already says it is undefined.
fn undefined_what(described: &str) -> &str {
    described
        .strip_prefix("undefined behaviour: ")
        .unwrap_or(described)
}

#[cfg(test)]
mod tests {
    use crate::check::{Assumption, Options, Refinement, Selection, Verdict, check_sources};
    use crate::ir::{Lang, Semantics, SignedOverflow};

    fn verdict(old: &str, new: &str, semantics: Semantics) -> Verdict {
        let options = Options {
            semantics,
            ..Options::default()
        };
        let report = check_sources(Lang::C, old, new, &Selection::All, &options);
        report.methods[0].verdict.clone()
    }

    fn refinement(v: &Verdict) -> Option<Refinement> {
        match v {
            Verdict::Equivalent(p) => p.assumptions.iter().find_map(|a| match a {
                Assumption::RefinesUndefined(r) => Some(r.clone()),
                _ => None,
            }),
            other => panic!("expected a proof, got {other:?}"),
        }
    }

    const MUL: &str = "int f(int x) {\n    return x * 2;\n}\n";
    const SHIFT: &str = "int f(int x) {\n    return x << 1;\n}\n";

    #[test]
    fn undefined_in_the_old_version_only_is_a_named_refinement() {
        let v = verdict(MUL, SHIFT, Semantics::Machine);
        match refinement(&v) {
            Some(Refinement::Witnessed(w)) => {
                assert!(w.contains("signed integer overflow"), "{w}");
                assert!(w.contains("the new one returns"), "{w}");
            }
            other => panic!("expected a witness, got {other:?}"),
        }
    }

    #[test]
    fn undefined_in_the_new_version_only_is_a_difference() {
        match verdict(SHIFT, MUL, Semantics::Machine) {
            Verdict::NotEquivalent(cex) => {
                assert!(!cex.old.outcome.is_undefined(), "{cex:?}");
                assert!(cex.new.outcome.is_undefined(), "{cex:?}");
            }
            other => panic!("expected a counterexample, got {other:?}"),
        }
    }

    #[test]
    fn undefined_alike_is_plain_equivalence() {
        let old = "int f(int x, int y) {\n    return x + y;\n}\n";
        let new = "int f(int x, int y) {\n    return y + x;\n}\n";
        assert_eq!(refinement(&verdict(old, new, Semantics::Machine)), None);
    }

    #[test]
    fn with_wrapping_overflow_nothing_is_undefined() {
        let options = Options {
            semantics: Semantics::Machine,
            signed_overflow: SignedOverflow::Wraps,
            ..Options::default()
        };
        let report = check_sources(Lang::C, MUL, SHIFT, &Selection::All, &options);
        assert_eq!(refinement(&report.methods[0].verdict), None);
    }

    #[test]
    fn a_difference_where_the_old_version_is_defined_is_found() {
        let new =
            "int f(int x) {\n    if (x == 5) {\n        return 11;\n    }\n    return x << 1;\n}\n";
        match verdict(MUL, new, Semantics::Machine) {
            Verdict::NotEquivalent(cex) => assert!(!cex.old.outcome.is_undefined()),
            other => panic!("expected a counterexample, got {other:?}"),
        }
    }
}
