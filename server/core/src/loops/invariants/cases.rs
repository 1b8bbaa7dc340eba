//! Case splits for a candidate check Z3 cannot decide whole in time.
//!
//! A loop body with branches reaches a clause as if-then-else terms (the
//! executor merges its paths at each join). Over bit-vectors a step
//! through a body unrolled with a guard per copy (`B; if (i < n) B; …`)
//! can be slow for Z3 as one query — each comparison is a circuit whose
//! outcome hangs on the others' carries — while each path alone is easy
//! (the Java `unroll4-remainder` fixture's step is decided in a few cases
//! many times faster than whole).
//!
//! So a query left undecided is split on the condition `c` of one of its
//! if-then-else terms: `F` is unsatisfiable exactly when `F[c := true] ∧ c`
//! and `F[c := false] ∧ ¬c` both are, and a model of either case is a model
//! of `F`. That holds whatever `c` is, so which term is taken for an
//! if-then-else (found by the operator's name, as Z3 prints it) only
//! decides how fast the split goes, never its answer; a case Z3 does not
//! decide leaves the whole query undecided.
//!
//! Only a query Z3 did not decide whole within its cap is split. Splitting
//! after a shorter first try was measured and rejected: Z3's search
//! depends on the order terms are made in, and checks it decides whole
//! quickly were then often slower by cases (the split-phases fixtures
//! under `machine`).

use rustc_hash::FxHashSet;
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Dynamic};
use z3::{Model, SatResult, Solver};

/// At most this many solver calls per split query: each branch condition
/// doubles the cases, and the paths of a body with many branches are
/// better left to Spacer (or to an `unknown`).
const MAX_CALLS: usize = 32;

/// What the split found.
pub enum Decided {
    Unsat,
    /// A model of the formulas (of the case it came from, hence of all).
    Sat(Model),
    Unknown,
}

/// Decides the conjunction of `formulas`, which Z3 did not decide whole,
/// case by case from `branch` (one of their if-then-else conditions, see
/// [`innermost_condition`]), within `cap_ms`.
pub fn decide(formulas: &[Bool], branch: &Bool, deadline: Instant, cap_ms: u128) -> Decided {
    let deadline = deadline.min(crate::clock::now() + Duration::from_millis(cap_ms as u64));
    let mut calls = 0;
    split(formulas, branch, deadline, cap_ms, &mut calls)
}

/// Decides `formulas` split on `branch`, one of their if-then-else
/// conditions: each case is asked, and split further while Z3 does not
/// decide it and it has branches left.
fn split(
    formulas: &[Bool],
    branch: &Bool,
    deadline: Instant,
    cap_ms: u128,
    calls: &mut usize,
) -> Decided {
    for value in [true, false] {
        if *calls >= MAX_CALLS {
            return Decided::Unknown;
        }
        *calls += 1;
        let constant = Bool::from_bool(value);
        let literal = if value { branch.clone() } else { branch.not() };
        let case: Vec<Bool> = formulas
            .iter()
            .map(|f| f.substitute(&[(branch, &constant)]).simplify())
            .chain([literal])
            .collect();
        let next = innermost_condition(&case);
        let cap = if next.is_some() {
            crate::budget::BRANCHING_CASE.as_millis().min(cap_ms)
        } else {
            cap_ms
        };
        let decided = match (ask(&case, deadline, cap), next) {
            (Decided::Unknown, Some(next)) => split(&case, &next, deadline, cap_ms, calls),
            (decided, _) => decided,
        };
        match decided {
            Decided::Unsat => {}
            other => return other,
        }
    }
    Decided::Unsat
}

/// One solver call on the conjunction of `formulas`, capped at `cap_ms`.
fn ask(formulas: &[Bool], deadline: Instant, cap_ms: u128) -> Decided {
    let Some((solver, limit)) = capped_solver(deadline, cap_ms) else {
        return Decided::Unknown;
    };
    for f in formulas {
        solver.assert(f);
    }
    match crate::clock::solve(&solver, limit, &[]) {
        SatResult::Unsat => Decided::Unsat,
        SatResult::Sat => solver.get_model().map_or(Decided::Unknown, Decided::Sat),
        SatResult::Unknown => Decided::Unknown,
    }
}

/// A solver, and the limit for its calls: at most `cap_ms` of work, and
/// nothing past `deadline`; `None` once the deadline has passed.
pub fn capped_solver(deadline: Instant, cap_ms: u128) -> Option<(Solver, crate::clock::Limit)> {
    if crate::cancel::expired(deadline) {
        return None;
    }
    let cap = crate::clock::to_units(Duration::from_millis(
        u64::try_from(cap_ms).unwrap_or(u64::MAX),
    ));
    Some((Solver::new(), crate::clock::Limit::capped(deadline, cap)))
}

/// The condition of an if-then-else term of `formulas` with no
/// if-then-else inside it — the earliest branch of its path, whose value
/// simplifies the later ones — or `None` when there is none.
///
/// The terms are shared (a body's merged state repeats its parts), so each
/// is visited once; the walk is iterative because a long chain of
/// branches nests deep.
pub fn innermost_condition(formulas: &[Bool]) -> Option<Bool> {
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    // (term, whether its children were pushed)
    let mut stack: Vec<(Dynamic, bool)> = formulas
        .iter()
        .map(|f| (Dynamic::from_ast(f), false))
        .collect();
    while let Some((term, expanded)) = stack.pop() {
        let Ok(decl) = term.safe_decl() else {
            continue;
        };
        let children = term.children();
        if expanded {
            // Post-order: any if-then-else within the condition came first.
            if is_if_then_else(&decl.name(), children.len())
                && let Some(c) = children.first().and_then(Dynamic::as_bool)
            {
                return Some(c);
            }
            continue;
        }
        if !seen.insert(term.get_z3_ast().as_ptr() as usize) {
            continue;
        }
        stack.push((term, true));
        // The condition last, so that it is walked first.
        for child in children.into_iter().rev() {
            stack.push((child, false));
        }
    }
    None
}

/// Z3 names the operator `if` (4.8) or `ite`.
pub(super) fn is_if_then_else(name: &str, arity: usize) -> bool {
    arity == 3 && (name == "if" || name == "ite")
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    fn bv(name: &str) -> BV {
        BV::new_const(name, 32)
    }

    fn deadline() -> Instant {
        crate::clock::now() + Duration::from_secs(20)
    }

    /// Four guarded copies of `s += 2·i + 1; i++` against the unrolled
    /// `s += 8·i + 16`, under `0 ≤ i`, `i ≡ 0 mod 4`, `i + 3 < n` (no
    /// wrapping) — the step of the Java unroll-by-4 fixture.
    fn unrolled_step(bug: bool) -> Vec<Bool> {
        let (i, n, s) = (bv("i"), bv("n"), bv("s"));
        let c = |k: i64| BV::from_i64(k, 32);
        let (mut si, mut ii) = (s.clone(), i.clone());
        for _ in 0..4 {
            let runs = ii.bvslt(&n);
            let stepped = si.bvadd(c(2).bvmul(&ii)).bvadd(c(1));
            si = runs.ite(&stepped, &si);
            ii = runs.ite(&ii.bvadd(c(1)), &ii);
        }
        let unrolled = s.bvadd(c(8).bvmul(&i)).bvadd(c(if bug { 17 } else { 16 }));
        vec![
            c(0).bvsle(&i),
            i.bvand(c(3)).eq(c(0)),
            Bool::or(&[&i.bvsle(&n), &i.eq(c(0))]),
            i.bvadd(c(3)).bvslt(&n),
            si.eq(&unrolled).not(),
        ]
    }

    fn decided(formulas: &[Bool]) -> Decided {
        let branch = innermost_condition(formulas).expect("the step branches");
        decide(formulas, &branch, deadline(), 2_000)
    }

    #[test]
    fn a_step_through_guarded_copies_is_decided_by_cases() {
        assert!(matches!(decided(&unrolled_step(false)), Decided::Unsat));
    }

    #[test]
    fn a_model_of_a_case_is_a_model_of_the_whole() {
        let formulas = unrolled_step(true);
        let Decided::Sat(model) = decided(&formulas) else {
            panic!("the off-by-one step has a counterexample");
        };
        for f in &formulas {
            assert_eq!(model.eval(f, true).and_then(|v| v.as_bool()), Some(true));
        }
    }

    #[test]
    fn a_comparison_has_no_branch() {
        let (i, n) = (bv("i"), bv("n"));
        assert!(innermost_condition(&[i.bvslt(&n)]).is_none());
    }

    #[test]
    fn the_earliest_branch_is_split_first() {
        let (i, n) = (bv("i"), bv("n"));
        let one = BV::from_i64(1, 32);
        let first = i.bvslt(&n);
        let next = first.ite(&i.bvadd(&one), &i);
        let second = next.bvslt(&n);
        let f = second.ite(&next.bvadd(&one), &next).eq(&n);
        let c = innermost_condition(&[f]).expect("a branch");
        assert_eq!(c.get_z3_ast(), first.get_z3_ast());
    }
}
