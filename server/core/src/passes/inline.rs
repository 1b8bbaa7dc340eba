//! Calls of a function that does not recurse, replaced by its body.
//!
//! In `f`, a call `dest = g(a1, …, ak);` whose callee's body is `B;
//! return e;` — that final `return` its only one — becomes
//!
//! ```text
//! g$p1 = a1; … g$pk = ak; B'; dest = e';
//! ```
//!
//! where `B'` and `e'` read and write `g`'s locals as fresh locals of `f`
//! (one set per call site) and `g`'s labels are renumbered past `f`'s.
//! The arguments are evaluated in the same order (they are already
//! converted to the parameters' types), the body runs the same
//! statements, and everything `g` can do besides returning — faults,
//! exceptions, output, stores to arrays and globals — happens at the same
//! point of `f`'s run, so the meaning is the same under both semantics.
//!
//! *Invariants:* the callee has a body, does not call itself (directly:
//! callers inline a function only where it reaches no recursion), has no
//! `try` (its catch clauses bind no locals of ours to rename) and returns
//! only at its end. Each call site is outside every loop of `f`, so the
//! fresh locals are untouched when the inlined body starts, as a new
//! frame's are. Anything else leaves the program unchanged (`None`).

use crate::ir::{
    Block, Expr, FuncId, LabelId, Local, LocalId, LocalKind, Place, Program, Stmt, StmtKind,
};

/// `program` with every call of `callee` in `caller` replaced by the
/// callee's body, or `None` when a call is in a loop, there is none, or
/// the callee is not of the shape above.
pub fn inlined(program: &Program, caller: FuncId, callee: FuncId) -> Option<Program> {
    if caller == callee {
        return None;
    }
    let g = program.function(callee).body.as_ref().ok()?;
    let f = program.function(caller).body.as_ref().ok()?;
    let (last, body) = match g.body.split_last() {
        Some((last, body)) if matches!(last.kind, StmtKind::Return(_)) => (Some(last), body),
        _ => (None, &g.body[..]),
    };
    let unfit = |s: &Stmt| {
        matches!(s.kind, StmtKind::Return(_) | StmtKind::Try { .. })
            || matches!(&s.kind, StmtKind::Call { func, .. } if *func == callee)
    };
    if crate::ir::any_stmt(body, &mut |s| unfit(s)) {
        return None;
    }
    let result = match last.map(|s| &s.kind) {
        Some(StmtKind::Return(Some(e))) => Some(e),
        Some(StmtKind::Return(None)) | None => None,
        Some(_) => return None,
    };
    let mut out = f.clone();
    let mut next_label = labels_end(&f.body);
    let mut sites = 0;
    let mut body_out = std::mem::take(&mut out.body);
    let site = &mut |dest: &Option<Place>, args: &[Expr], out: &mut crate::ir::Function| {
        // One fresh set of the callee's locals per call site.
        let base = out.locals.len() as u32;
        out.locals.extend(g.locals.iter().map(|l| Local {
            name: format!("{}${}", g.name, l.name),
            kind: LocalKind::Temp,
            ..l.clone()
        }));
        let labels = next_label;
        next_label += labels_end(&g.body);
        let map = |l: LocalId| LocalId(base + l.0);
        let mut block: Block = g
            .params
            .iter()
            .zip(args)
            .map(|(&p, a)| crate::ir::make::assign(map(p), a.clone(), a.span))
            .collect();
        for s in body {
            let mut s = s.clone();
            s.map_locals(&mut |l| map(l));
            relabel(&mut s, labels);
            block.push(s);
        }
        match (dest, result) {
            (dest, Some(e)) => {
                let mut e = e.clone();
                e.map_locals(&mut |l| map(l));
                // A result nobody uses is still evaluated (it may fault).
                let place = match dest {
                    Some(place) => place.clone(),
                    None => {
                        let id = LocalId(out.locals.len() as u32);
                        out.locals.push(Local {
                            name: format!("{}$result", g.name),
                            ty: g.ret.clone(),
                            kind: LocalKind::Temp,
                            span: g.span,
                            text: false,
                        });
                        Place::Local(id)
                    }
                };
                block.push(Stmt {
                    span: e.span,
                    kind: StmtKind::Assign { place, value: e },
                });
            }
            (Some(_), None) => return None,
            (None, None) => {}
        }
        sites += 1;
        Some(block)
    };
    replace_calls(&mut body_out, callee, &mut out, site)?;
    out.body = body_out;
    if sites == 0 {
        return None;
    }
    let mut p = program.clone();
    p.functions.get_mut(caller.0 as usize)?.body = Ok(out);
    Some(p)
}

type Site<'a> = dyn FnMut(&Option<Place>, &[Expr], &mut crate::ir::Function) -> Option<Block> + 'a;

/// Replaces each call of `callee` in `block` (outside loops) by what
/// `site` makes of it; `None` when a call is inside a loop or `site`
/// refuses one.
fn replace_calls(
    block: &mut Block,
    callee: FuncId,
    f: &mut crate::ir::Function,
    site: &mut Site<'_>,
) -> Option<()> {
    for s in block.iter_mut() {
        match &s.kind {
            StmtKind::Call { dest, func, args } if *func == callee => {
                let inlined = site(dest, args, f)?;
                s.kind = StmtKind::Block(inlined);
            }
            StmtKind::Loop { .. } => {
                let calls = crate::ir::any_stmt(
                    std::slice::from_ref(s),
                    &mut |t| matches!(&t.kind, StmtKind::Call { func, .. } if *func == callee),
                );
                if calls {
                    return None;
                }
            }
            _ => {
                for b in s.child_blocks_mut() {
                    replace_calls(b, callee, f, site)?;
                }
            }
        }
    }
    Some(())
}

/// One past the largest label `block` uses (0 when none).
fn labels_end(block: &[Stmt]) -> u32 {
    let mut end = 0;
    crate::ir::any_stmt(block, &mut |s| {
        if let StmtKind::Loop { label, .. }
        | StmtKind::Labeled { label, .. }
        | StmtKind::Break(label)
        | StmtKind::Continue(label) = &s.kind
        {
            end = end.max(label.0 + 1);
        }
        false
    });
    end
}

/// `s` with its labels (and those nested in it) moved up by `by`.
fn relabel(s: &mut Stmt, by: u32) {
    if let StmtKind::Loop { label, .. }
    | StmtKind::Labeled { label, .. }
    | StmtKind::Break(label)
    | StmtKind::Continue(label) = &mut s.kind
    {
        *label = LabelId(label.0 + by);
    }
    for b in s.child_blocks_mut() {
        for t in b.iter_mut() {
            relabel(t, by);
        }
    }
}
