//! Loops of callees as tail recursion, so that the recursion rule
//! (`recursion.rs`) can summarise a callee that loops.
//!
//! A method without loops of its own may call a function that has one
//! (EqBench `REVE/triangularMod`: `f` calls `tr`, whose loop never ends when
//! `n > 0`). The lockstep encoding has no loop to align there, and the
//! bounded checkers unroll the callee's loop only up to the bound. But a
//! top-level loop of a function `g` and everything after it *is* a function
//! of `g`'s locals at the loop head:
//!
//! ```text
//! T g(p) { A; while (c) B; C }
//! ```
//!
//! means exactly
//!
//! ```text
//! T g(p)              { A; $ret = g$loop1(all locals); return $ret; }
//! T g$loop1(all locals) { if (c) { B; $ret = g$loop1(all locals); return $ret; } C }
//! ```
//!
//! (`do B while (c); C` becomes `B; if (c) { … } C`) because `B` neither
//! `break`s nor `continue`s the loop, so after `B` the run is back at the
//! head with the locals as they are — the recursive call's arguments — and
//! a `return` in `B` or `C` returns `g`'s result either way. Locals are
//! function-wide in the IR, so "all locals" is the whole frame. Further
//! top-level loops in `C` are rewritten the same way in `g$loop1`. The
//! recursion rule then summarises `g$loop1` as a relation over its frame
//! and result; its proofs hold where both versions terminate (it does not
//! compare termination), which is what a loop that may run forever needs.
//!
//! The same rewrite of a checked method's own loops serves a pair where
//! the other version recurses (a loop refactored into recursion, or back):
//! `f$loop1`'s first parameters are `f`'s, so the recursion rule couples
//! `f$loop1` with the other version's recursive `f` on equal arguments,
//! and [`call_of`] makes that `f` one atom in the query.
//!
//! *Invariants:* only functions whose loops are all at the top level (inner
//! loops would sit in a branch of the new function), whose `break`s and
//! `continue`s `jumps.rs` turns into flags, and with only scalar locals (the recursion rule's calls
//! take scalars); anything else leaves the program unchanged with the
//! construct named. The methods checked are rewritten only for a pair with
//! recursion (elsewhere their loops are the lockstep encoding's), and new
//! functions are appended, so every existing `FuncId` keeps its meaning.
//! The new names are the same in both versions (`g$loop1`, `g$loop2`, …),
//! so the recursion rule couples them.

use crate::ir::{
    Block, Expr, ExprKind, FuncId, Function, FunctionDef, Local, LocalId, LocalKind, LoopKind,
    Place, Program, Stmt, StmtKind, Type,
};
use crate::loops::shape::{NotEncodable, check_loop_body, contains_loop};
use std::collections::BTreeSet;

/// `program` with the loops of every function `entry` reaches (not `entry`
/// itself) turned into tail-recursive functions; `Ok(None)` when no such
/// function has a loop, `Err` naming the first loop that cannot be.
pub fn callee_loops_as_recursion(
    program: &Program,
    entry: FuncId,
) -> Result<Option<Program>, NotEncodable> {
    loops_reached_as_recursion(program, entry, false)
}

/// `program` with the loops of `entry` itself and of every function it
/// reaches turned into tail-recursive functions, for a pair whose other
/// version recurses (a loop refactored into recursion, or back): the
/// recursion rule then couples `entry$loop1` with the other version's
/// recursive `entry` (see [`call_of`]). `Ok(None)` when no function
/// reached has a loop.
pub fn loops_as_recursion(
    program: &Program,
    entry: FuncId,
) -> Result<Option<Program>, NotEncodable> {
    loops_reached_as_recursion(program, entry, true)
}

/// A synthetic function `f` of the same parameters whose body is only the
/// call of `f` (`return f(params);`), appended to `program`: a run of it
/// with `f` summarised is one atom `f(params)` — the meaning of `f` as a
/// whole, where a run of `f`'s own body would unfold its recursion once.
/// Used as the entry of a recursive version whose other version is a
/// loop, so that the two results are coupled on the same arguments.
pub fn call_of(program: &mut Program, f: FuncId) -> Option<FuncId> {
    let def = program.function(f);
    let Ok(g) = &def.body else {
        return None;
    };
    let span = def.span;
    let mut h = Function {
        name: g.name.clone(),
        params: (0..g.params.len() as u32).map(LocalId).collect(),
        locals: g.params.iter().map(|&p| g.local(p).clone()).collect(),
        ret: g.ret.clone(),
        body: Vec::new(),
        span,
        name_span: g.name_span,
    };
    // The call passes every local of `h` (its parameters) before the
    // result slot exists.
    let ret = (g.ret != Type::Void).then_some(LocalId(h.locals.len() as u32));
    h.body = tail_call(f, &h, ret, span);
    if ret.is_some() {
        h.locals.push(Local {
            name: "$ret".into(),
            ty: g.ret.clone(),
            kind: LocalKind::Temp,
            span,
            text: false,
        });
    }
    let wrapper = FunctionDef {
        name: def.name.clone(),
        arity: def.arity,
        span,
        name_span: def.name_span,
        body: Ok(h),
        synthetic: true,
        param_types: def.param_types.clone(),
        owner: def.owner.clone(),
    };
    let id = FuncId(program.functions.len() as u32);
    program.functions.push(wrapper);
    Some(id)
}

/// The loops of the functions `entry` reaches (`entry`'s own too when
/// `with_entry`) as tail recursion.
fn loops_reached_as_recursion(
    program: &Program,
    entry: FuncId,
    with_entry: bool,
) -> Result<Option<Program>, NotEncodable> {
    let mut reached: BTreeSet<FuncId> = BTreeSet::new();
    let mut stack = vec![entry];
    while let Some(f) = stack.pop() {
        if !reached.insert(f) {
            continue;
        }
        if let Ok(body) = &program.function(f).body {
            stack.extend(crate::ir::callees(body));
        }
    }
    let mut out: Option<Program> = None;
    for f in reached {
        if f == entry && !with_entry {
            continue;
        }
        let Ok(body) = &program.function(f).body else {
            continue;
        };
        if !body.body.iter().any(contains_loop) {
            continue;
        }
        let p = out.get_or_insert_with(|| program.clone());
        rewrite(p, f, &body.name)?;
    }
    Ok(out)
}

/// Rewrites `f`'s first top-level loop (and, through the new function,
/// the ones after it) in place; the new functions are named after `base`,
/// the function written in the source.
fn rewrite(p: &mut Program, f: FuncId, base: &str) -> Result<(), NotEncodable> {
    // `break` and `continue` as flags first (`jumps.rs`).
    if let Some(q) = super::jumps::flagged(p, f) {
        *p = q;
    }
    let Ok(mut g) = p.function(f).body.clone() else {
        return Ok(());
    };
    g.body = flattened(std::mem::take(&mut g.body));
    let Some(at) = g.body.iter().position(contains_loop) else {
        return Ok(());
    };
    let head = &g.body[at];
    let StmtKind::Loop {
        label,
        kind,
        cond,
        body,
        step,
    } = &head.kind
    else {
        return Err(NotEncodable::new(
            format!(
                "a loop inside a branch of `{base}` (only a function's top-level loops are \
                 summarised as tail recursion)"
            ),
            head.span,
        ));
    };
    let span = head.span;
    if let Some(l) = g
        .locals
        .iter()
        .find(|l| matches!(l.ty, Type::Array(_) | Type::Str))
    {
        return Err(NotEncodable::new(
            format!(
                "a non-scalar local `{}` in `{base}`, whose loop would be summarised as tail \
                 recursion (over scalars only)",
                l.name
            ),
            l.span,
        ));
    }
    let mut iteration: Block = body.clone();
    iteration.extend(step.iter().cloned());
    check_loop_body(*label, iteration.iter())?;
    if iteration.iter().any(contains_loop) {
        return Err(NotEncodable::new(
            format!(
                "a nested loop in `{base}` (only a function's top-level loops are summarised as \
                 tail recursion)"
            ),
            span,
        ));
    }
    let (kind, cond) = (kind.clone(), cond.clone());
    let rest: Block = g.body.split_off(at + 1);
    g.body.pop();
    // The result slot, in both functions' frames.
    let ret = (g.ret != Type::Void).then(|| {
        let id = LocalId(g.locals.len() as u32);
        g.locals.push(Local {
            name: "$ret".into(),
            ty: g.ret.clone(),
            kind: LocalKind::Temp,
            span,
            text: false,
        });
        id
    });
    let id = FuncId(p.functions.len() as u32);
    let n = p
        .functions
        .iter()
        .filter(|d| d.name.starts_with(&format!("{base}$loop")))
        .count();
    let name = format!("{base}$loop{}", n + 1);
    let again = tail_call(id, &g, ret, span);
    let mut loop_body = match kind {
        LoopKind::While => vec![Stmt {
            kind: StmtKind::If {
                cond,
                then_branch: iteration.into_iter().chain(again).collect(),
                else_branch: Vec::new(),
            },
            span,
        }],
        LoopKind::DoWhile => {
            let mut b = iteration;
            b.push(Stmt {
                kind: StmtKind::If {
                    cond,
                    then_branch: again,
                    else_branch: Vec::new(),
                },
                span,
            });
            b
        }
    };
    loop_body.extend(rest);
    let h = Function {
        name: name.clone(),
        params: (0..g.locals.len() as u32).map(LocalId).collect(),
        locals: g
            .locals
            .iter()
            .map(|l| Local {
                kind: LocalKind::Param,
                ..l.clone()
            })
            .collect(),
        ret: g.ret.clone(),
        body: loop_body,
        span,
        name_span: span,
    };
    g.body.extend(tail_call(id, &g, ret, span));
    let arity = h.params.len();
    p.functions.push(FunctionDef {
        name,
        arity,
        span,
        name_span: span,
        body: Ok(h),
        synthetic: true,
        param_types: Vec::new(),
        owner: Vec::new(),
    });
    if let Some(def) = p.functions.get_mut(f.0 as usize) {
        def.body = Ok(g);
    }
    // Loops after this one are in the new function's tail.
    rewrite(p, id, base)
}

/// `$ret = h(all locals of g); return $ret;` (or the call and `return;`).
fn tail_call(h: FuncId, g: &Function, ret: Option<LocalId>, span: crate::ir::Span) -> Block {
    let args = g
        .locals
        .iter()
        .enumerate()
        .map(|(i, l)| Expr {
            kind: ExprKind::Local(LocalId(i as u32)),
            ty: l.ty.clone(),
            span,
        })
        .collect();
    let read = |l: LocalId| Expr {
        kind: ExprKind::Local(l),
        ty: g.ret.clone(),
        span,
    };
    vec![
        Stmt {
            kind: StmtKind::Call {
                dest: ret.map(Place::Local),
                func: h,
                args,
            },
            span,
        },
        Stmt {
            kind: StmtKind::Return(ret.map(read)),
            span,
        },
    ]
}

/// Top-level blocks spliced into their parent (locals are function-wide).
pub(super) fn flattened(stmts: Block) -> Block {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s.kind {
            StmtKind::Block(b) => out.extend(flattened(b)),
            _ => out.push(s),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, Inputs, Limits, Outcome};
    use crate::ir::{Lang, Semantics};
    use crate::value::Value;

    fn run(p: &Program, f: FuncId, args: &[i64]) -> Outcome {
        let inputs = Inputs {
            args: args.iter().map(|a| Value::Int((*a).into())).collect(),
            globals: Default::default(),
            callees: Vec::new(),
        };
        interp::execute(
            p,
            f,
            &inputs,
            Semantics::Math,
            Default::default(),
            &Limits::default(),
        )
        .outcome
    }

    /// The rewritten program computes what the original does, on a grid.
    fn agree(src: &str) -> Program {
        let p = crate::lang::lower(Lang::Java, src);
        let entry = p.find("f").next().expect("f").0;
        let q = callee_loops_as_recursion(&p, entry)
            .expect("rewritable")
            .expect("a callee with a loop");
        for a in -3..6 {
            for b in -3..6 {
                let (x, y) = (run(&p, entry, &[a, b]), run(&q, entry, &[a, b]));
                assert_eq!(x, y, "f({a}, {b})");
            }
        }
        q
    }

    #[test]
    fn loops_of_callees_become_tail_recursive_functions_with_the_same_meaning() {
        let q = agree(
            "class A { static int g(int n, int k) { int s = 0; int i = 0; while (i < n) { s += i * k; if (s > 20) { return -s; } i++; } int j = 0; do { s--; j++; } while (j < k); return s; } int f(int a, int b) { return g(a, b) + g(b, a); } }",
        );
        let names: Vec<&str> = q
            .functions
            .iter()
            .filter(|d| d.synthetic)
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(names, ["g$loop1", "g$loop2"]);
        for d in &q.functions {
            let body = d.body.as_ref().expect("lowered");
            assert!(
                !crate::ir::contains_loop(&body.body) || d.name == "f",
                "{} still loops",
                d.name
            );
        }
        // A void callee, a `for` with its step.
        agree(
            "class A { static int t; static void g(int n) { for (int i = 0; i < n; i++) { t += i; } } int f(int a, int b) { t = b; g(a); return t; } }",
        );
    }

    #[test]
    fn what_cannot_be_rewritten_is_named() {
        let p = crate::lang::lower(
            Lang::Java,
            "class A { static int g(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i == 3) { break; } s += i; } return s; } int f(int a) { return g(a); } }",
        );
        let entry = p.find("f").next().expect("f").0;
        // A break becomes a flag (`jumps.rs`), then the loop a function.
        let q = callee_loops_as_recursion(&p, entry)
            .expect("a break is fine")
            .expect("rewritten");
        for a in -2..7 {
            assert_eq!(run(&p, entry, &[a]), run(&q, entry, &[a]), "f({a})");
        }
        let p = crate::lang::lower(
            Lang::Java,
            "class A { static int g(int n) { int s = 0; if (n > 0) { while (s < n) { s++; } } return s; } int f(int a) { return g(a); } }",
        );
        let entry = p.find("f").next().expect("f").0;
        let e = callee_loops_as_recursion(&p, entry).expect_err("a loop in a branch");
        assert!(e.what.contains("branch"), "{e:?}");
        // No callee with a loop: nothing to do.
        let p = crate::lang::lower(
            Lang::Java,
            "class A { static int g(int n) { return n + 1; } int f(int a) { int s = 0; while (s < a) { s++; } return g(s); } }",
        );
        let entry = p.find("f").next().expect("f").0;
        assert!(
            callee_loops_as_recursion(&p, entry)
                .expect("fine")
                .is_none()
        );
    }
}
