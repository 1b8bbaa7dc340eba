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
use z3::ast::{Ast, Bool, Dynamic};
use z3::{AstKind, SatResult, Solver};

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
    match array_terms(&enc.rules) {
        ArrayTerms::Plain => {}
        // The encodings name their conditionals over arrays
        // (`name_array_conditionals`); what remains is refused rather than
        // risked.
        ArrayTerms::Conditional => {
            return Answer::GaveUp(
                "an if-then-else over arrays inside a quantified part of the clauses, which \
                 the CHC solver cannot eliminate"
                    .into(),
            );
        }
        ArrayTerms::Opaque(name) => {
            return Answer::GaveUp(format!(
                "an array computed by `{name}` inside the clauses, which the CHC solver \
                 cannot eliminate"
            ));
        }
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

/// The compound array terms of Horn clauses, as Spacer's model-based
/// projection of arrays meets them. libz3 4.8.12 projects an array variable
/// out of an equality between arrays only where the side holding a store
/// on it is that store itself; a store under any other array-valued
/// function (an if-then-else, an uninterpreted function) reaches an
/// `UNREACHABLE` there (`mbp_arrays.cpp`), which ends the whole process.
#[derive(Debug, PartialEq)]
enum ArrayTerms {
    /// Array variables, stores, constant arrays and reads only.
    Plain,
    /// Also if-then-else over arrays.
    Conditional,
    /// An array-valued application of the named function.
    Opaque(String),
}

fn array_terms(rules: &[Bool]) -> ArrayTerms {
    let mut found = ArrayTerms::Plain;
    let mut seen: rustc_hash::FxHashSet<Dynamic> = rustc_hash::FxHashSet::default();
    let mut stack: Vec<Dynamic> = rules.iter().map(|r| Dynamic::from_ast(r)).collect();
    while let Some(t) = stack.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        match t.kind() {
            AstKind::Quantifier => {
                stack.extend(quantifier_body(&t));
                continue;
            }
            AstKind::App => {}
            // Bound variables, numerals: no arguments.
            _ => continue,
        }
        let children = t.children();
        if t.as_array().is_some()
            && !children.is_empty()
            && let Ok(decl) = t.safe_decl()
        {
            let name = decl.name();
            match name.as_str() {
                "store" | "const" | "select" => {}
                _ if super::cases::is_if_then_else(&name, children.len()) => {
                    found = ArrayTerms::Conditional;
                }
                _ => return ArrayTerms::Opaque(name),
            }
        }
        stack.extend(children);
    }
    found
}

/// `rule` (unquantified) with each if-then-else over arrays named by a
/// fresh array constant, defined by `c → m = a` and `¬c → m = b` in front
/// of the rule, and those constants, which the caller quantifies with the
/// rule's own. Every such `m` is determined by its definition, so the rule
/// holds for all of them exactly when the original holds, and Spacer's
/// projection sees array equalities between stores and constants only (see
/// [`ArrayTerms`]). Quantified subformulas are left as they are.
pub fn name_array_conditionals(rule: &Bool) -> (Bool, Vec<Dynamic>) {
    // Conditionals in post-order: inner ones before those around them.
    let mut order: Vec<Dynamic> = Vec::new();
    let mut seen: rustc_hash::FxHashSet<Dynamic> = rustc_hash::FxHashSet::default();
    let mut stack: Vec<(Dynamic, bool)> = vec![(Dynamic::from_ast(rule), false)];
    while let Some((t, expanded)) = stack.pop() {
        if expanded {
            let conditional = t.as_array().is_some()
                && t.safe_decl()
                    .is_ok_and(|d| super::cases::is_if_then_else(&d.name(), t.num_children()));
            if conditional {
                order.push(t);
            }
            continue;
        }
        if t.kind() != AstKind::App || !seen.insert(t.clone()) {
            continue;
        }
        let children = t.children();
        stack.push((t, true));
        stack.extend(children.into_iter().map(|c| (c, false)));
    }
    if order.is_empty() {
        return (rule.clone(), Vec::new());
    }
    let mut names: Vec<(Dynamic, Dynamic)> = Vec::new();
    let mut definitions = Vec::new();
    for t in order {
        let (Some(domain), Some(range)) = (t.get_sort().array_domain(), t.get_sort().array_range())
        else {
            continue;
        };
        let pairs: Vec<(&Dynamic, &Dynamic)> = names.iter().map(|(a, b)| (a, b)).collect();
        let inner = t.substitute(&pairs);
        let parts = inner.children();
        let (Some(c), Some(then), Some(otherwise)) = (
            parts.first().and_then(Dynamic::as_bool),
            parts.get(1),
            parts.get(2),
        ) else {
            continue;
        };
        let m = Dynamic::from_ast(&z3::ast::Array::fresh_const("ite", &domain, &range));
        definitions.push(c.implies(m.eq(then)));
        definitions.push(c.not().implies(m.eq(otherwise)));
        names.push((t, m));
    }
    let pairs: Vec<(&Dynamic, &Dynamic)> = names.iter().map(|(a, b)| (a, b)).collect();
    let named = rule.substitute(&pairs);
    let fresh = names.into_iter().map(|(_, m)| m).collect();
    (Bool::and(&definitions).implies(&named), fresh)
}

/// The body of a quantified formula (the z3 crate does not expose it).
fn quantifier_body(q: &Dynamic) -> Option<Dynamic> {
    let ctx = q.get_ctx();
    // SAFETY: a read of a live quantifier of this context; the body is
    // wrapped (and reference-counted) by the crate.
    unsafe {
        z3_sys::Z3_get_quantifier_body(ctx.get_z3_context(), q.get_z3_ast())
            .map(|body| Dynamic::wrap(ctx, body))
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

    /// `a` and `b` scaled in place, `a` by one or, while a second element
    /// remains, two elements per step — a conditional over arrays in the
    /// step. The bad state: both done, arrays differ. `b` steps the same
    /// way (the condition negated, the branches swapped) when `same`, and
    /// otherwise always by a pair, which writes past the end for odd `n`.
    fn scaled_pairs(same: bool) -> Vec<Bool> {
        let (int, arr) = (Sort::int(), Sort::array(&Sort::int(), &Sort::int()));
        let inv = FuncDecl::new("inv", &[&int, &int, &arr, &arr], &Sort::bool());
        let (n, i) = (Int::new_const("n"), Int::new_const("i"));
        let a = z3::ast::Array::new_const("a", &int, &int);
        let b = z3::ast::Array::new_const("b", &int, &int);
        let at = |n: &Int, i: &Int, a: &z3::ast::Array, b: &z3::ast::Array| {
            inv.apply(&[n as &dyn Ast, i, a, b])
                .as_bool()
                .expect("bool")
        };
        let scale = |x: &z3::ast::Array, k: &Int| {
            let v = x.select(k).as_int().expect("int");
            x.store(k, &(v * 3))
        };
        let one = |x: &z3::ast::Array| scale(x, &i);
        let two = |x: &z3::ast::Array| scale(&scale(x, &i), &(&i + 1));
        let step_a = (&i + 1).lt(&n).ite(&two(&a), &one(&a));
        let step_b = if same {
            (&i + 1).ge(&n).ite(&one(&b), &two(&b))
        } else {
            two(&b)
        };
        let entry = n.ge(Int::from_i64(0));
        let vars: [&dyn Ast; 4] = [&n, &i, &a, &b];
        let rules = [
            entry.implies(at(&n, &Int::from_i64(0), &a, &a)),
            Bool::and(&[at(&n, &i, &a, &b), i.lt(&n)]).implies(at(&n, &(&i + 2), &step_a, &step_b)),
            Bool::and(&[at(&n, &i, &a, &b), i.ge(&n), a.eq(&b).not()])
                .implies(Bool::from_bool(false)),
        ];
        rules
            .iter()
            .map(|r| {
                let (r, named) = name_array_conditionals(r);
                let mut all: Vec<&dyn Ast> = vars.to_vec();
                all.extend(named.iter().map(|m| m as &dyn Ast));
                z3::ast::forall_const(&all, &[], &r)
            })
            .collect()
    }

    #[test]
    fn conditionals_over_arrays_are_named_and_the_clauses_keep_their_meaning() {
        let rules = scaled_pairs(true);
        assert_eq!(array_terms(&rules), ArrayTerms::Plain);
        assert_eq!(array_terms(&scaled_pairs(false)), ArrayTerms::Plain);
        let deadline = crate::clock::now() + std::time::Duration::from_secs(20);
        let enc = |rules| Encoding {
            rules,
            ..counter(0)
        };
        assert_eq!(solve(&enc(scaled_pairs(false)), deadline), Answer::Unsafe);
        assert!(matches!(
            solve(&enc(scaled_pairs(true)), deadline),
            Answer::Safe(_)
        ));
    }

    #[test]
    fn a_named_conditional_is_the_conditional() {
        let (int, c) = (Sort::int(), Bool::new_const("c"));
        let a = z3::ast::Array::new_const("a", &int, &int);
        let inner = c.ite(&a.store(&Int::from_i64(1), &Int::from_i64(2)), &a);
        let outer = c
            .not()
            .ite(&inner, &a.store(&Int::from_i64(0), &Int::from_i64(5)));
        let rule = outer
            .select(&Int::from_i64(1))
            .as_int()
            .expect("int")
            .eq(Int::from_i64(2));
        assert_eq!(
            array_terms(std::slice::from_ref(&rule)),
            ArrayTerms::Conditional
        );
        let f = FuncDecl::new("f", &[&int], &Sort::array(&int, &int));
        let made = f
            .apply(&[&Int::new_const("x") as &dyn Ast])
            .as_array()
            .expect("array");
        let opaque = made
            .select(&Int::from_i64(0))
            .as_int()
            .expect("int")
            .eq(Int::from_i64(1));
        assert_eq!(array_terms(&[opaque]), ArrayTerms::Opaque("f".into()));
        let (named, fresh) = name_array_conditionals(&rule);
        assert_eq!(fresh.len(), 2);
        assert_eq!(array_terms(std::slice::from_ref(&named)), ArrayTerms::Plain);
        // `definitions → rule'`: where the definitions hold (and some
        // names satisfy them for every value of the rest), `rule'` is `rule`.
        let parts = named.children();
        let (Some(definitions), Some(body)) = (
            parts.first().and_then(Dynamic::as_bool),
            parts.get(1).and_then(Dynamic::as_bool),
        ) else {
            panic!("not an implication: {named}");
        };
        let solver = Solver::new();
        solver.assert(&definitions);
        solver.assert(body.eq(&rule).not());
        assert_eq!(solver.check(), SatResult::Unsat);
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
