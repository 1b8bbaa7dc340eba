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
//! parameter, a sum of two, zero, one, minus one; `=`, `≤`, `≥`) and keeps
//! the largest subset that is inductive over the clauses. If that subset
//! makes every query clause unsatisfiable, it is a model of the clauses: a
//! proof.
//!
//! The checks are plain SMT queries, so unlike Spacer they can reason
//! through the products the encoding abstracts: each assumes its clause's
//! exact meanings ([`HornClause::exact`], `r = a·b`), which is what makes
//! `old.result = new.result` inductive between `b * (b * r)` and
//! `(b * b) * r`.
//!
//! *Invariants:* every candidate is checked against every clause that
//! defines its relation, with all candidates of the relations in the body
//! and the clause's exact meanings assumed (facts of every run, so a
//! surviving set is a model of the clauses as the versions mean them); a
//! candidate is only ever dropped (a model falsified it), so the loop
//! ends. Z3 terms are built, substituted and evaluated, never classified.

use super::encode::Relation;
use super::{Guard, HornClause};
use std::time::{Duration, Instant};
use z3::ast::{Ast, BV, Bool, Dynamic, Int};
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
///
/// Equalities are tried alone first: most summaries a refactoring needs
/// are equalities under case splits, and without the bounds beside them
/// each check is cheaper — over bit-vectors, where a bound is a comparator
/// circuit, the difference between a check that ends and one that does
/// not.
pub fn prove(
    relations: &[Relation],
    results: &[usize],
    clauses: &[HornClause],
    guards: &[Guard],
    until: Instant,
) -> Option<Vec<String>> {
    let all: Vec<Vec<(Bool, Kind)>> = relations
        .iter()
        .zip(results)
        .map(|(r, &n)| candidates(r, n, guards))
        .collect();
    let equalities = all
        .iter()
        .map(|c| {
            c.iter()
                .filter(|(_, k)| *k == Kind::Equality)
                .cloned()
                .collect()
        })
        .collect();
    // Over bit-vectors every operation of a body is a circuit, and the
    // inductive step of a body that divides takes longer to refute.
    let bit_vectors = relations
        .iter()
        .any(|r| r.params.iter().any(|p| p.as_bv().is_some()));
    let cap = if bit_vectors {
        crate::budget::SUMMARY_CHECK_BV
    } else {
        crate::budget::SUMMARY_CHECK
    };
    prove_with(relations, clauses, equalities, until, cap)
        .or_else(|| prove_with(relations, clauses, all, until, cap))
}

/// Whether a candidate equates (the first tier) or bounds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Equality,
    Bound,
}

/// [`prove`] with these candidates per relation.
fn prove_with(
    relations: &[Relation],
    clauses: &[HornClause],
    candidates: Vec<Vec<(Bool, Kind)>>,
    until: Instant,
    cap: Duration,
) -> Option<Vec<String>> {
    let mut cands: Vec<Candidates> = candidates
        .into_iter()
        .map(|c| {
            let formulas: Vec<Bool> = c.into_iter().map(|(f, _)| f).collect();
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
                match crate::clock::solve(&solver, limit(until, cap), &[]) {
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
        if crate::clock::solve(&solver, limit(until, cap), &[]) != SatResult::Unsat {
            return None;
        }
    }
    Some(cands.iter().map(|c| shortest(c, until, cap)).collect())
}

/// The live candidates of a relation as one formula, without those the
/// others imply (for reading; the proof holds with all of them).
fn shortest(c: &Candidates, until: Instant, cap: Duration) -> String {
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
        if crate::clock::solve(&solver, limit(until, cap), &assumptions) == SatResult::Unsat {
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

/// A call's limit: at most `cap` of work, nothing past `until`.
fn limit(until: Instant, cap: Duration) -> crate::clock::Limit {
    crate::clock::Limit::capped(until, crate::clock::to_units(cap))
}

/// Asserts the clause's body and the live candidates of the relations it
/// applies.
fn assume(solver: &Solver, clause: &HornClause, relations: &[Relation], cands: &[Candidates]) {
    solver.assert(&clause.body);
    for fact in &clause.exact {
        solver.assert(fact);
    }
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
fn candidates(relation: &Relation, results: usize, guards: &[Guard]) -> Vec<(Bool, Kind)> {
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
    let nums: Vec<Num> = inputs.iter().filter_map(Num::of).collect();
    let mut out = Vec::new();
    // Where the recursion terminates at all (`i ≥ 0`).
    for p in &nums {
        out.push((p.ge(&p.zero()), Kind::Bound));
        out.push((p.le(&p.zero()), Kind::Bound));
    }
    // The terms a result is compared with, of the result's own sort: zero,
    // a parameter, a sum of two (narrower bit-vectors sign-extended, as a
    // Java `int` is widened to a `long`).
    let terms = |of: &Num| -> Vec<Num> {
        let fitted: Vec<Num> = nums.iter().filter_map(|p| p.fitted_to(of)).collect();
        let mut terms = vec![of.zero()];
        terms.extend(fitted.iter().cloned());
        for (i, a) in fitted.iter().enumerate() {
            for b in &fitted[i + 1..] {
                terms.push(a.add(b));
            }
        }
        terms
    };
    // The two versions' results agree, or differ by a parameter or a
    // sum of two (an accumulator: `r_new = r_old + s`), each also off by
    // one (a counter that starts at 1 where the other version's base case
    // counts the last step, or at 0 where it does not).
    if let [a, b] = outs {
        out.push((a.eq(b), Kind::Equality));
        if let (Some(a), Some(b)) = (Num::of(a), Num::of(b))
            && a.same_sort(&b)
        {
            let terms = terms(&a);
            for (k, t) in terms.iter().enumerate() {
                for offset in [-1, 0, 1] {
                    if k == 0 && offset == 0 {
                        continue;
                    }
                    let d = t.add(&t.constant(offset));
                    out.push((b.eq(&a.add(&d)), Kind::Equality));
                    out.push((a.eq(&b.add(&d)), Kind::Equality));
                }
            }
        }
    }
    for r in outs.iter().filter_map(Num::of) {
        let terms = terms(&r);
        for case in &cases {
            for t in &terms {
                out.push((case.implies(r.eq(t)), Kind::Equality));
                for atom in [r.ge(t), r.le(t)] {
                    out.push((case.implies(&atom), Kind::Bound));
                }
            }
            // The base values of products and searches: `n < 2 → fact = 1`,
            // `i = n → find = -1`.
            for c in [1, -1] {
                out.push((case.implies(r.eq(&r.constant(c))), Kind::Equality));
            }
        }
    }
    out
}

/// A term of a numeric sort: an unbounded integer (`math`) or a
/// bit-vector (`machine`, compared as signed: the candidates are checked,
/// so the choice only decides which summaries can be found).
#[derive(Clone)]
enum Num {
    Int(Int),
    Bv(BV),
}

impl Num {
    fn of(d: &Dynamic) -> Option<Num> {
        d.as_int().map(Num::Int).or_else(|| d.as_bv().map(Num::Bv))
    }

    fn same_sort(&self, other: &Num) -> bool {
        match (self, other) {
            (Num::Int(_), Num::Int(_)) => true,
            (Num::Bv(a), Num::Bv(b)) => a.get_size() == b.get_size(),
            _ => false,
        }
    }

    fn constant(&self, v: i64) -> Num {
        match self {
            Num::Int(_) => Num::Int(Int::from_i64(v)),
            Num::Bv(b) => Num::Bv(BV::from_i64(v, b.get_size())),
        }
    }

    fn zero(&self) -> Num {
        self.constant(0)
    }

    /// `self` as a term of `of`'s sort: itself, or a narrower bit-vector
    /// sign-extended; `None` for anything else.
    fn fitted_to(&self, of: &Num) -> Option<Num> {
        match (self, of) {
            (Num::Int(_), Num::Int(_)) => Some(self.clone()),
            (Num::Bv(a), Num::Bv(b)) if a.get_size() == b.get_size() => Some(self.clone()),
            (Num::Bv(a), Num::Bv(b)) if a.get_size() < b.get_size() => {
                Some(Num::Bv(a.sign_ext(b.get_size() - a.get_size())))
            }
            _ => None,
        }
    }

    /// `self + other`; both of one sort (the callers build them so).
    fn add(&self, other: &Num) -> Num {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Num::Int(Int::add(&[a, b])),
            (Num::Bv(a), Num::Bv(b)) => Num::Bv(a.bvadd(b)),
            _ => self.clone(),
        }
    }

    fn eq(&self, other: &Num) -> Bool {
        self.dynamic().eq(other.dynamic())
    }

    fn ge(&self, other: &Num) -> Bool {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a.ge(b),
            (Num::Bv(a), Num::Bv(b)) => a.bvsge(b),
            _ => Bool::from_bool(false),
        }
    }

    fn le(&self, other: &Num) -> Bool {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a.le(b),
            (Num::Bv(a), Num::Bv(b)) => a.bvsle(b),
            _ => Bool::from_bool(false),
        }
    }

    fn dynamic(&self) -> Dynamic {
        match self {
            Num::Int(a) => Dynamic::from_ast(a),
            Num::Bv(b) => Dynamic::from_ast(b),
        }
    }
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
            closed_form: None,
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
                exact: vec![],
                vars: vec![],
                body: guard.not(),
                apps: vec![],
                head: Some((
                    0,
                    vec![Dynamic::from_ast(&a), Dynamic::from_ast(&Int::from_i64(0))],
                )),
            },
            HornClause {
                exact: vec![],
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
                exact: vec![],
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
