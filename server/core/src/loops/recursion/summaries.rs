//! Candidate summaries for the recursion rule's relations, checked
//! Houdini-style before Spacer runs.
//!
//! Spacer finds the summary of one recursive function at once, but on a
//! query over two (`F_old(x, r1) ∧ F_new(x, r2) → r1 = r2`) it can search
//! for seconds without settling on the exact summaries both need. Most
//! summaries a refactoring needs are case splits on the recursion's own
//! guards with a linear result: `x > 0 → result = x`, `i = 0 → result = j`,
//! `result = i + j`. This module guesses those (conditions: the guards of
//! the recursive calls in either version, and their negations; results: a
//! parameter, a sum of two, zero; `=`, `≤`, `≥`) and keeps the largest
//! subset that is inductive over the clauses. If that subset makes every
//! query clause unsatisfiable, it is a model of the clauses: a proof.
//!
//! *Invariants:* every candidate is checked against every clause that
//! defines its relation, with all candidates of the relations in the body
//! assumed; a candidate is only ever dropped (a model falsified it), so
//! the loop ends. Z3 terms are built, substituted and evaluated, never
//! classified.

use super::encode::Relation;
use super::{Guard, HornClause};
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::{SatResult, Solver};

/// Case splits per relation (before negation), to keep the candidate set
/// small.
const MAX_CONDITIONS: usize = 6;

/// A relation's candidates: formulas over its parameters.
struct Candidates {
    formulas: Vec<Bool>,
    alive: Vec<bool>,
}

/// The conjunction of candidates that proves the clauses safe, one
/// formula per relation (SMT-LIB), or `None`.
///
/// `results[k]`: how many of relation `k`'s last parameters are results
/// (1 for a function, 2 for the product of two, 0 for `void`).
/// `guards`: conditions over the parameters of some run (with the
/// constants standing for those parameters).
pub fn prove(
    relations: &[Relation],
    results: &[usize],
    clauses: &[HornClause],
    guards: &[Guard],
    until: Instant,
) -> Option<Vec<String>> {
    let mut cands: Vec<Candidates> = relations
        .iter()
        .zip(results)
        .map(|(r, &n)| {
            let formulas = candidates(r, n, guards);
            Candidates {
                alive: vec![true; formulas.len()],
                formulas,
            }
        })
        .collect();
    loop {
        let mut changed = false;
        for clause in clauses {
            let Some((k, head_args)) = &clause.head else {
                continue;
            };
            loop {
                if crate::cancel::expired(until) {
                    return None;
                }
                let goals: Vec<(usize, Bool)> = cands[*k]
                    .formulas
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| cands[*k].alive[*i])
                    .map(|(i, f)| (i, instantiate(f, &relations[*k], head_args)))
                    .collect();
                if goals.is_empty() {
                    break;
                }
                let solver = Solver::new();
                assume(&solver, clause, relations, &cands);
                let all: Vec<&Bool> = goals.iter().map(|(_, g)| g).collect();
                solver.assert(Bool::and(&all).not());
                match crate::clock::solve(&solver, limit(until), &[]) {
                    SatResult::Unsat => break,
                    SatResult::Unknown => return None,
                    SatResult::Sat => {
                        let model = solver.get_model()?;
                        let mut dropped = false;
                        for (i, g) in &goals {
                            if model.eval(g, true).and_then(|v| v.as_bool()) == Some(false) {
                                cands[*k].alive[*i] = false;
                                dropped = true;
                            }
                        }
                        if !dropped {
                            return None;
                        }
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    for clause in clauses.iter().filter(|c| c.head.is_none()) {
        if crate::cancel::expired(until) {
            return None;
        }
        let solver = Solver::new();
        assume(&solver, clause, relations, &cands);
        if crate::clock::solve(&solver, limit(until), &[]) != SatResult::Unsat {
            return None;
        }
    }
    Some(cands.iter().map(|c| shortest(c, until)).collect())
}

/// The live candidates of a relation as one formula, without those the
/// others imply (for reading; the proof holds with all of them).
fn shortest(c: &Candidates, until: Instant) -> String {
    let kept: Vec<Bool> = c
        .formulas
        .iter()
        .zip(&c.alive)
        .filter(|(_, a)| **a)
        .map(|(f, _)| f.clone())
        .collect();
    // One incremental solver: candidate `j` is asserted under the
    // indicator `on_j`, its negation under `off_j`.
    let solver = Solver::new();
    let on: Vec<Bool> = (0..kept.len()).map(|_| Bool::fresh_const("on")).collect();
    let off: Vec<Bool> = (0..kept.len()).map(|_| Bool::fresh_const("off")).collect();
    for (j, f) in kept.iter().enumerate() {
        solver.assert(on[j].implies(f));
        solver.assert(off[j].implies(f.not()));
    }
    let mut live = vec![true; kept.len()];
    // From the back: the weakest candidates (case splits, bounds) go
    // first, unconditional equalities stay.
    for i in (0..kept.len()).rev() {
        if crate::cancel::expired(until) {
            break;
        }
        let mut assumptions: Vec<Bool> = (0..kept.len())
            .filter(|&j| j != i && live[j])
            .map(|j| on[j].clone())
            .collect();
        assumptions.push(off[i].clone());
        if crate::clock::solve(&solver, limit(until), &assumptions) == SatResult::Unsat {
            live[i] = false;
        }
    }
    let kept: Vec<Bool> = kept
        .into_iter()
        .zip(live)
        .filter_map(|(f, l)| l.then_some(f))
        .collect();
    Bool::and(&kept).simplify().to_string()
}

/// A call's limit: at most `CHECK_MS` of work, nothing past `until`.
fn limit(until: Instant) -> crate::clock::Limit {
    let cap = crate::clock::to_units(crate::budget::SUMMARY_CHECK);
    crate::clock::Limit::capped(until, cap)
}

/// Asserts the clause's body and the live candidates of the relations it
/// applies.
fn assume(solver: &Solver, clause: &HornClause, relations: &[Relation], cands: &[Candidates]) {
    solver.assert(&clause.body);
    for (j, args) in &clause.apps {
        let (Some(c), Some(r)) = (cands.get(*j), relations.get(*j)) else {
            continue;
        };
        for (f, alive) in c.formulas.iter().zip(&c.alive) {
            if *alive {
                solver.assert(instantiate(f, r, args));
            }
        }
    }
}

/// `formula` (over the relation's parameters) at `args`.
fn instantiate(formula: &Bool, relation: &Relation, args: &[Dynamic]) -> Bool {
    let pairs: Vec<(&Dynamic, &Dynamic)> = relation.params.iter().zip(args).collect();
    formula.substitute(&pairs)
}

/// The candidate formulas of one relation (see the module doc).
fn candidates(relation: &Relation, results: usize, guards: &[Guard]) -> Vec<Bool> {
    let n = relation.params.len();
    let inputs = &relation.params[..n.saturating_sub(results)];
    let outs = &relation.params[n.saturating_sub(results)..];
    let mut conditions: Vec<Bool> = Vec::new();
    for (args, guard) in guards {
        if args.len() != inputs.len()
            || args
                .iter()
                .zip(inputs)
                .any(|(a, p)| a.get_sort() != p.get_sort())
        {
            continue;
        }
        let pairs: Vec<(&Dynamic, &Dynamic)> = args.iter().zip(inputs).collect();
        let c = guard.substitute(&pairs).simplify();
        if c.as_bool().is_some() || conditions.iter().any(|d| d == &c) {
            continue;
        }
        if conditions.len() < MAX_CONDITIONS {
            conditions.push(c);
        }
    }
    let mut cases = vec![Bool::from_bool(true)];
    for c in &conditions {
        cases.push(c.clone());
        cases.push(c.not());
    }
    let ints: Vec<Int> = inputs.iter().filter_map(|p| p.as_int()).collect();
    let mut terms = vec![Int::from_i64(0)];
    terms.extend(ints.iter().cloned());
    for (i, a) in ints.iter().enumerate() {
        for b in &ints[i + 1..] {
            terms.push(Int::add(&[a, b]));
        }
    }
    let mut out = Vec::new();
    // Where the recursion terminates at all (`i ≥ 0`).
    for p in &ints {
        out.push(p.ge(Int::from_i64(0)));
        out.push(p.le(Int::from_i64(0)));
    }
    // The two versions' results agree, or differ by a parameter or a
    // sum of two (an accumulator: `r_new = r_old + s`), each also off by
    // one (a counter that starts at 1 where the other version's base case
    // counts the last step, or at 0 where it does not).
    if let [a, b] = outs {
        out.push(a.eq(b));
        if let (Some(a), Some(b)) = (a.as_int(), b.as_int()) {
            for t in &terms {
                for offset in [-1, 0, 1] {
                    if t == &terms[0] && offset == 0 {
                        continue;
                    }
                    let d = Int::add(&[t, &Int::from_i64(offset)]);
                    out.push(b.eq(Int::add(&[&a, &d])));
                    out.push(a.eq(Int::add(&[&b, &d])));
                }
            }
        }
    }
    for r in outs.iter().filter_map(|r| r.as_int()) {
        for case in &cases {
            for t in &terms {
                for atom in [r.eq(t), r.ge(t), r.le(t)] {
                    out.push(case.implies(&atom));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{FuncDecl, Sort};

    fn relation(params: Vec<Dynamic>) -> Relation {
        let sorts: Vec<Sort> = params.iter().map(|p| p.get_sort()).collect();
        let refs: Vec<&Sort> = sorts.iter().collect();
        let decl = FuncDecl::new("F", &refs, &Sort::bool());
        let args: Vec<&dyn Ast> = params.iter().map(|p| p as &dyn Ast).collect();
        let application = decl.apply(&args).as_bool().expect("bool");
        Relation {
            index: 0,
            params,
            same_name: Vec::new(),
            unsigned: Vec::new(),
            old_arity: 0,
            decl,
            application,
            old_span: Default::default(),
            new_span: Default::default(),
            running: None,
            guards: None,
        }
    }

    /// `F(x) = x > 0 ? F(x - 1) + 1 : 0`, and the query `F(x, r) ∧ x > 0 ∧
    /// r ≠ x`: safe, with the case split on the recursion's guard.
    fn clamp(bad_result: i64) -> (Relation, Vec<HornClause>, Vec<Guard>) {
        let (x, r) = (Int::new_const("x"), Int::new_const("result"));
        let rel = relation(vec![Dynamic::from_ast(&x), Dynamic::from_ast(&r)]);
        let (a, res) = (Int::new_const("arg0"), Int::new_const("r1"));
        let guard = a.gt(Int::from_i64(0));
        let clauses = vec![
            HornClause {
                vars: vec![],
                body: guard.not(),
                apps: vec![],
                head: Some((
                    0,
                    vec![Dynamic::from_ast(&a), Dynamic::from_ast(&Int::from_i64(0))],
                )),
            },
            HornClause {
                vars: vec![],
                body: guard.clone(),
                apps: vec![(
                    0,
                    vec![Dynamic::from_ast(&(&a - 1)), Dynamic::from_ast(&res)],
                )],
                head: Some((
                    0,
                    vec![Dynamic::from_ast(&a), Dynamic::from_ast(&(&res + 1))],
                )),
            },
            HornClause {
                vars: vec![],
                body: Bool::and(&[x.gt(Int::from_i64(0)), r.eq(&x + bad_result).not()]),
                apps: vec![(0, vec![Dynamic::from_ast(&x), Dynamic::from_ast(&r)])],
                head: None,
            },
        ];
        (rel, clauses, vec![(vec![Dynamic::from_ast(&a)], guard)])
    }

    #[test]
    fn guarded_linear_summaries_prove_a_clamped_count() {
        let until = crate::clock::now() + std::time::Duration::from_secs(10);
        let (rel, clauses, guards) = clamp(0);
        let found = prove(&[rel], &[1], &clauses, &guards, until).expect("a summary");
        assert!(found[0].contains("result"), "{found:?}");
    }

    #[test]
    fn a_false_query_is_not_proved() {
        let until = crate::clock::now() + std::time::Duration::from_secs(10);
        let (rel, clauses, guards) = clamp(1);
        assert_eq!(prove(&[rel], &[1], &clauses, &guards, until), None);
    }
}
