//! Solving the Horn clauses with Z3's CHC engine (Spacer, through the
//! `HORN` logic), under the checker's deadline.
//!
//! Mind the polarity: asserted as formulas (each query a clause with head
//! `false`), the clauses are *satisfiable* exactly when the bad states are
//! unreachable — the model interprets the relations as inductive
//! invariants. `unsat` means `false` is derivable. (`Fixedpoint::query`
//! answers the other way round: there, `unsat` is safe.) The test
//! `polarity_of_the_horn_solver` pins this down on libz3 4.8.12.

use super::encode::Encoding;
use std::time::Instant;
use z3::{SatResult, Solver};

/// What Spacer said about the clauses.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// `false` is not derivable: the clauses have a model, the relations'
    /// interpretations (one formula per relation, in SMT-LIB syntax over
    /// the named state constants).
    Safe(Vec<String>),
    /// `false` is derivable: some lockstep run reaches a bad state (a real
    /// difference, or a pair of runs the lockstep product cannot align).
    Unsafe,
    /// Stopped by its deadline, its work budget or a cancellation: more
    /// time may still give an answer.
    Timeout,
    /// No answer for another reason (Z3's words).
    GaveUp(String),
}

/// Checks the clauses with Spacer, interrupting it at `deadline`.
pub fn solve(enc: &Encoding, deadline: Instant) -> Answer {
    let Some(solver) = Solver::new_for_logic("HORN") else {
        return Answer::GaveUp("Z3 has no HORN solver".into());
    };
    if crate::cancel::expired(deadline) {
        return Answer::Timeout;
    }
    for r in &enc.rules {
        solver.assert(r);
    }
    let limit = crate::clock::Limit::until(deadline).on(crate::clock::Engine::Horn);
    let result = crate::clock::solve(&solver, limit, &[]);
    match result {
        SatResult::Sat => {
            let formulas = match solver.get_model() {
                Some(model) => enc
                    .relations
                    .iter()
                    // No model completion: the state constants stay
                    // symbolic, so the result reads as a formula over them.
                    .map(|r| match model.eval(&r.application, false) {
                        Some(f) => f.to_string(),
                        None => "(not available)".into(),
                    })
                    .collect(),
                None => enc
                    .relations
                    .iter()
                    .map(|_| "(not available)".into())
                    .collect(),
            };
            Answer::Safe(formulas)
        }
        SatResult::Unsat => Answer::Unsafe,
        SatResult::Unknown => {
            let reason = solver
                .get_reason_unknown()
                .unwrap_or_else(|| "unknown".into());
            if crate::cancel::expired(deadline) || crate::clock::stopped(&reason) {
                Answer::Timeout
            } else {
                Answer::GaveUp(reason)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::{Ast, Bool, Dynamic, Int};
    use z3::{FuncDecl, Sort};

    /// `x := 0; loop x := x + 1` with the bad state `x = bad`.
    fn counter(bad: i64) -> Encoding {
        let inv = FuncDecl::new("inv", &[&Sort::int()], &Sort::bool());
        let x = Int::new_const("x");
        let app = |t: &Int| inv.apply(&[t as &dyn Ast]).as_bool().expect("bool");
        let all = |b: Bool| z3::ast::forall_const(&[&x], &[], &b);
        let rules = vec![
            all(x.eq(Int::from_i64(0)).implies(app(&x))),
            all(app(&x).implies(app(&(&x + 1)))),
            all(Bool::and(&[app(&x), x.eq(Int::from_i64(bad))]).implies(Bool::from_bool(false))),
        ];
        Encoding {
            rules,
            clauses: Vec::new(),
            relations: vec![super::super::encode::Relation {
                index: 0,
                params: vec![Dynamic::from_ast(&x)],
                same_name: Vec::new(),
                unsigned: Vec::new(),
                old_arity: 0,
                application: app(&x),
                decl: inv,
                old_span: Default::default(),
                new_span: Default::default(),
                running: None,
                guards: None,
                closed_form: None,
            }],
            uninterpreted: Vec::new(),
            opaque_calls: Vec::new(),
            arrays: false,
            nullable_arrays: false,
            bit_vectors: false,
        }
    }

    #[test]
    fn polarity_of_the_horn_solver() {
        let deadline = crate::clock::now() + std::time::Duration::from_secs(10);
        match solve(&counter(-1), deadline) {
            Answer::Safe(f) => {
                // The invariant mentions the counter and excludes -1.
                assert_eq!(f.len(), 1);
                assert!(f[0].contains('x'), "{f:?}");
            }
            other => panic!("x = -1 is unreachable, got {other:?}"),
        }
        assert_eq!(solve(&counter(5), deadline), Answer::Unsafe);
    }
}
