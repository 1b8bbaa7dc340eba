//! Loops inside branches, brought to the top level of the body so that the
//! lockstep encoding ([`super::shape`]) can cut at them.
//!
//! `if (c) { A; while (g) B; C } else { D }` means exactly
//!
//! ```text
//! $branch1 = c;
//! if ($branch1) { A }
//! while ($branch1 && g) B
//! if ($branch1) { C }
//! $branch2 = !$branch1;
//! if ($branch2) { D }
//! ```
//!
//! because `$branch1` is a fresh local nothing else writes: `c` is
//! evaluated once, where it was (same faults), the loop runs only when the
//! branch was taken (`&&` does not evaluate `g` otherwise), and exactly one
//! of the two branches' statements run, in their order. Branches nested in
//! branches get a flag that already includes the outer one
//! (`$inner = $outer && c`), so a guard is always one flag.
//!
//! A `do … while` loop under a flag becomes `if (flag) { B } while (flag &&
//! g) B` — the shape's own rewriting of `do`, guarded. Loops inside
//! `switch` or labeled statements stay where they are (the shape refuses
//! them with their name).
//!
//! A `do … while` loop whose body holds a loop cannot have its first
//! iteration copied before it (the copy would be a loop in a stretch), so
//! first, anywhere in the body, it becomes
//!
//! ```text
//! $do1 = true;
//! while ($do1 || g) { $do1 = false; B }
//! ```
//!
//! which runs `B` once without evaluating `g` (`||` is lazy) and then
//! exactly while `g` holds: the same runs, faults included, as `$do1` is a
//! fresh local only this rewrite writes. Its inner loops are then cut like
//! those of any `while` loop (EqBench `ran/gamdev`: a `do` in a `do` in a
//! branch).

use crate::ir::make::{and, assign, bool_lit, fresh_flag, not, or, read, under};
use crate::ir::{Block, Expr, FuncId, Function, LocalId, LoopKind, Program, Stmt, StmtKind};
use crate::loops::shape::contains_loop;

/// `program` with `func`'s loops hoisted out of its branches, or `None`
/// when no loop sits in a branch (nothing to do).
pub fn hoisted(program: &Program, func: FuncId) -> Option<Program> {
    let f = program.function(func).body.as_ref().ok()?;
    let mut g = f.clone();
    let mut body = std::mem::take(&mut g.body);
    let flagged = flag_do_loops(&mut body, &mut g);
    let needed = body.iter().any(|s| match &s.kind {
        StmtKind::If { .. } | StmtKind::Block(_) => loop_in_branch(s),
        _ => false,
    });
    if !needed && !flagged {
        return None;
    }
    if needed {
        let mut out = Vec::new();
        hoist_block(&body, None, &mut out, &mut g);
        body = out;
    }
    g.body = body;
    let mut p = program.clone();
    if let Some(def) = p.functions.get_mut(func.0 as usize) {
        def.body = Ok(g);
    }
    Some(p)
}

/// Rewrites every `do B while (g)` whose `B` holds a loop, at any depth of
/// `stmts`, as `$doN = true; while ($doN || g) { $doN = false; B }` (see
/// the module doc); whether any was.
fn flag_do_loops(stmts: &mut Block, f: &mut Function) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(stmts.len());
    for mut s in std::mem::take(stmts) {
        for b in s.child_blocks_mut() {
            changed |= flag_do_loops(b, f);
        }
        let holds_loop = matches!(&s.kind, StmtKind::Loop { kind: LoopKind::DoWhile, body, .. }
            if body.iter().any(contains_loop));
        if holds_loop {
            let first = fresh_flag(f, "$do", s.span);
            let (set, reset, flag) = (
                assign(first, bool_lit(true, s.span), s.span),
                assign(first, bool_lit(false, s.span), s.span),
                read(first, s.span),
            );
            if let StmtKind::Loop {
                kind, cond, body, ..
            } = &mut s.kind
            {
                *kind = LoopKind::While;
                let g = std::mem::replace(cond, flag.clone());
                *cond = or(flag, g);
                body.insert(0, reset);
            }
            out.push(set);
            changed = true;
        }
        out.push(s);
    }
    *stmts = out;
    changed
}

/// Whether `s` (an `if` or a block) has a loop inside one of its `if`s.
fn loop_in_branch(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::If { .. } => contains_loop(s),
        StmtKind::Block(b) => b.iter().any(loop_in_branch),
        _ => false,
    }
}

fn hoist_block(stmts: &Block, guard: Option<LocalId>, out: &mut Block, f: &mut Function) {
    for s in stmts {
        match &s.kind {
            StmtKind::Block(b) => hoist_block(b, guard, out, f),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } if contains_loop(s) => {
                let taken = flag(f, s);
                out.push(assign(taken, guarded_cond(guard, cond.clone()), s.span));
                hoist_block(then_branch, Some(taken), out, f);
                if !else_branch.is_empty() {
                    // Not taken: the outer guard held and `c` did not.
                    let other = flag(f, s);
                    let not_taken = not(read(taken, s.span));
                    out.push(assign(other, guarded_cond(guard, not_taken), s.span));
                    hoist_block(else_branch, Some(other), out, f);
                }
            }
            StmtKind::Loop {
                label,
                kind,
                cond,
                body,
                step,
            } => match guard {
                None => out.push(s.clone()),
                Some(g) => {
                    if *kind == LoopKind::DoWhile {
                        let mut first = body.clone();
                        first.extend(step.iter().cloned());
                        out.push(under(read(g, s.span), first, s.span));
                    }
                    out.push(Stmt {
                        kind: StmtKind::Loop {
                            label: *label,
                            kind: LoopKind::While,
                            cond: and(read(g, s.span), cond.clone()),
                            body: body.clone(),
                            step: step.clone(),
                        },
                        span: s.span,
                    });
                }
            },
            _ => match guard {
                None => out.push(s.clone()),
                Some(g) => out.push(under(read(g, s.span), vec![s.clone()], s.span)),
            },
        }
    }
}

/// A fresh boolean local for the branch `at`, numbered in the order of the
/// branches (so both versions' flags pair up by name when their branches
/// do).
fn flag(f: &mut Function, at: &Stmt) -> LocalId {
    fresh_flag(f, "$branch", at.span)
}

/// `guard && c` (lazy: `c` is evaluated only when the guard holds), or `c`.
fn guarded_cond(guard: Option<LocalId>, c: Expr) -> Expr {
    match guard {
        Some(g) => {
            let span = c.span;
            and(read(g, span), c)
        }
        None => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, Inputs, Limits};
    use crate::ir::{Lang, Semantics};
    use crate::value::Value;

    fn run(p: &Program, args: &[i64]) -> interp::Execution {
        let inputs = Inputs {
            args: args.iter().map(|a| Value::Int((*a).into())).collect(),
            globals: Default::default(),
            callees: Vec::new(),
        };
        interp::execute(
            p,
            FuncId(0),
            &inputs,
            Semantics::Math,
            Default::default(),
            &Limits::default(),
        )
    }

    /// Runs `f` of both programs on `args` with the interpreter.
    fn agree(src: &str, inputs: &[Vec<i64>]) {
        let p = crate::lang::lower(Lang::Java, src);
        let h = hoisted(&p, FuncId(0)).expect("a loop in a branch");
        let body = h.function(FuncId(0)).body.as_ref().expect("lowered");
        assert!(
            body.body
                .iter()
                .all(|s| !matches!(&s.kind, StmtKind::If { .. }) || !contains_loop(s)),
            "every loop at the top level: {:#?}",
            body.body
        );
        for args in inputs {
            let (a, b) = (run(&p, args), run(&h, args));
            assert_eq!(a.outcome, b.outcome, "inputs {args:?}");
            assert!(
                !matches!(a.outcome, interp::Outcome::Limit(_)),
                "inputs {args:?} ran out of steps"
            );
        }
    }

    #[test]
    fn hoisting_keeps_the_meaning() {
        let inputs: Vec<Vec<i64>> = (-2..4)
            .flat_map(|a| (-2..5).map(move |b| vec![a, b]))
            .collect();
        agree(
            "class A { int f(int t, int c) { int x = 0; if (0 < t) { x = 5; while (0 < c) { x++; c--; } x = x * 2; } else { x = 7; do { x--; c++; } while (c < 3); } return x + c; } }",
            &inputs,
        );
        agree(
            "class A { int f(int t, int c) { int x = 1; if (t > 0) { if (c > 1) { while (c > 0) { x = x + t; c--; } } else { return 100 / t; } } return x; } }",
            &inputs,
        );
        // The condition changes what the branch reads: evaluated once.
        agree(
            "class A { int f(int t, int c) { int x = 0; if (c > 0) { c = -1; for (int i = 0; i < t; i++) { x += 2; } } else { x = 3; } return x + c; } }",
            &inputs,
        );
    }

    #[test]
    fn a_do_loop_holding_a_loop_tests_its_guard_after_a_flagged_first_iteration() {
        let inputs: Vec<Vec<i64>> = (-2..4)
            .flat_map(|a| (-2..5).map(move |b| vec![a, b]))
            .collect();
        // A `do` in a `do` in a branch (EqBench `ran/gamdev`'s shape), and
        // a guard that would fault if evaluated before the first iteration.
        let src = "class A { int f(int t, int c) { int x = 0; int d = 0; if (t > 0) { x = 1; } else { do { do { x++; c++; } while (c < 2); d = d + x; } while (100 / (t - d) > 0 && d < 30); } return x + c + d; } }";
        agree(src, &inputs);
        let p = crate::lang::lower(Lang::Java, src);
        let h = hoisted(&p, FuncId(0)).expect("rewritten");
        let f = h.function(FuncId(0)).body.as_ref().expect("lowered");
        let flags: Vec<&str> = f
            .locals
            .iter()
            .filter(|l| l.name.starts_with("$do"))
            .map(|l| l.name.as_str())
            .collect();
        assert_eq!(flags, ["$do1"], "only the outer `do` holds a loop");
        assert!(crate::loops::shape::shape(f).is_ok(), "the shape takes it");
        // At the top level, with no branch to hoist, too.
        agree(
            "class A { int f(int t, int c) { int s = 0; do { int i = 0; while (i < t) { s += i; i++; } c--; } while (c > 0); return s; } }",
            &inputs,
        );
    }

    #[test]
    fn nothing_to_do_without_a_loop_in_a_branch() {
        let p = crate::lang::lower(
            Lang::Java,
            "class A { int f(int n) { int s = 0; if (n < 0) { return 0; } while (s < n) { s++; } return s; } }",
        );
        assert!(hoisted(&p, FuncId(0)).is_none());
    }
}
