//! Locals that are constants in all but name (`double half = 0.5;`,
//! `int IEXP = 2 * 1024;`), replaced by their value where they are read.
//!
//! The loop encoding treats a product of two variables as an
//! uninterpreted function (`Ufs::abstracts_nonlinear`): `half * (a + b)`
//! would not equal the old version's `0.5 * (a + b)` though `half` is
//! always 0.5. A local qualifies when it is not a parameter, is assigned
//! exactly once in the whole body, by a top-level statement, with a value
//! built from literals by operators that cannot fault (no division, no
//! array, no call), and is not read before that statement. Replacing its
//! reads after the assignment by the value changes no outcome; the
//! assignment itself stays.
//!
//! *Beside `constant_locals`:* that pass runs on every lowered program and
//! takes only literals under `-` and casts, dropping the assignment; this
//! one runs only where the loop checker prepares a version (after `jumps`
//! and `hoist`), so by then the literal locals are gone and what it
//! replaces are the compound constants (`2 * 1024`, `c ? 1 : 2`). Their
//! outputs differ (compound values, the kept assignment), so they are not
//! one pass: taking compound constants in `constant_locals` would change
//! the program every other checker and the differencing see.

use crate::ir::{
    BinOp, Block, Expr, ExprKind, Function, LocalId, LocalKind, Place, Stmt, StmtKind,
};

/// Deeper expressions are left alone (the rewriting recurses).
const MAX_DEPTH: usize = 200;

/// Propagates `f`'s constant locals into their reads; whether any was.
pub fn propagate(f: &mut Function) -> bool {
    if f.body.iter().any(too_deep) {
        return false;
    }
    let assignments = assignment_counts(f);
    let mut changed = false;
    for i in 0..f.body.len() {
        let StmtKind::Assign {
            place: Place::Local(l),
            value,
        } = &f.body[i].kind
        else {
            continue;
        };
        let (l, value) = (*l, value.clone());
        let is_param = f
            .locals
            .get(l.0 as usize)
            .is_none_or(|local| local.kind == LocalKind::Param);
        if is_param || assignments.get(l.0 as usize) != Some(&1) || !constant(&value) {
            continue;
        }
        if f.body[..i].iter().any(|s| reads(s, l)) {
            continue;
        }
        for s in &mut f.body[i + 1..] {
            replace_in_stmt(s, l, &value);
        }
        changed = true;
    }
    changed
}

/// Built from literals by operators that cannot fault.
fn constant(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |e| {
        ok &= match &e.kind {
            ExprKind::IntLit(_) | ExprKind::FloatLit(_) | ExprKind::BoolLit(_) => true,
            ExprKind::Unary(..) | ExprKind::Cast(_) | ExprKind::Cond(..) => true,
            ExprKind::Binary(op, ..) => !matches!(op, BinOp::Div | BinOp::Rem),
            _ => false,
        }
    });
    ok
}

fn reads(s: &Stmt, l: LocalId) -> bool {
    let mut found = false;
    walk_stmts(s, &mut |s| {
        for e in s.exprs() {
            e.walk(&mut |e| found |= matches!(e.kind, ExprKind::Local(x) if x == l));
        }
    });
    found
}

fn too_deep(s: &Stmt) -> bool {
    let mut deep = false;
    walk_stmts(s, &mut |s| {
        for e in s.exprs() {
            let mut stack = vec![(e, 1usize)];
            while let Some((e, d)) = stack.pop() {
                if d > MAX_DEPTH {
                    deep = true;
                    return;
                }
                stack.extend(e.children().into_iter().map(|c| (c, d + 1)));
            }
        }
    });
    deep
}

/// How often `f`'s body assigns each local (assignments and call
/// results), by local id.
pub(crate) fn assignment_counts(f: &Function) -> Vec<usize> {
    let mut assignments = vec![0usize; f.locals.len()];
    for s in &f.body {
        walk_stmts(s, &mut |s| {
            if let Some(l) = s.assigned_local()
                && let Some(n) = assignments.get_mut(l.0 as usize)
            {
                *n += 1;
            }
        });
    }
    assignments
}

/// Visits `s` and the statements nested in it.
fn walk_stmts(s: &Stmt, f: &mut dyn FnMut(&Stmt)) {
    f(s);
    for b in blocks(s) {
        for t in b {
            walk_stmts(t, f);
        }
    }
}

fn blocks(s: &Stmt) -> Vec<&Block> {
    s.child_blocks()
}

fn replace_in_stmt(s: &mut Stmt, l: LocalId, value: &Expr) {
    let fix_place = |p: &mut Place| {
        if let Place::Index { array, index } = p {
            replace(array, l, value);
            replace(index, l, value);
        }
    };
    match &mut s.kind {
        StmtKind::Assign { place, value: v } => {
            fix_place(place);
            replace(v, l, value);
        }
        StmtKind::Call { dest, args, .. } | StmtKind::External { dest, args, .. } => {
            if let Some(p) = dest {
                fix_place(p);
            }
            for a in args {
                replace(a, l, value);
            }
        }
        StmtKind::Print { args, .. } => {
            for a in args {
                replace(a, l, value);
            }
        }
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            replace(cond, l, value);
            for t in then_branch.iter_mut().chain(else_branch.iter_mut()) {
                replace_in_stmt(t, l, value);
            }
        }
        StmtKind::Loop {
            cond, body, step, ..
        } => {
            replace(cond, l, value);
            for t in body.iter_mut().chain(step.iter_mut()) {
                replace_in_stmt(t, l, value);
            }
        }
        StmtKind::Labeled { body, .. } | StmtKind::Block(body) => {
            for t in body {
                replace_in_stmt(t, l, value);
            }
        }
        StmtKind::Try {
            body,
            catches,
            finally,
        } => {
            let all = body
                .iter_mut()
                .chain(catches.iter_mut().flat_map(|c| c.body.iter_mut()))
                .chain(finally.iter_mut());
            for t in all {
                replace_in_stmt(t, l, value);
            }
        }
        StmtKind::Return(Some(e)) => replace(e, l, value),
        StmtKind::Return(None)
        | StmtKind::Break(_)
        | StmtKind::Continue(_)
        | StmtKind::Throw(_) => {}
    }
}

/// Replaces reads of `l` in `e` (depth bounded by [`MAX_DEPTH`], checked
/// before).
fn replace(e: &mut Expr, l: LocalId, value: &Expr) {
    if matches!(e.kind, ExprKind::Local(x) if x == l) {
        let span = e.span;
        *e = value.clone();
        e.span = span;
        return;
    }
    match &mut e.kind {
        ExprKind::Unary(_, a)
        | ExprKind::Cast(a)
        | ExprKind::Length(a)
        | ExprKind::IsNull(a)
        | ExprKind::NewArray(a) => replace(a, l, value),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            replace(a, l, value);
            replace(b, l, value);
        }
        ExprKind::Cond(a, b, c) => {
            replace(a, l, value);
            replace(b, l, value);
            replace(c, l, value);
        }
        ExprKind::ArrayLit(items) | ExprKind::Intrinsic(_, items) => {
            for i in items {
                replace(i, l, value);
            }
        }
        ExprKind::IntLit(_)
        | ExprKind::FloatLit(_)
        | ExprKind::BoolLit(_)
        | ExprKind::StrLit(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;

    fn body_after(src: &str) -> (Function, bool) {
        let p = crate::lang::lower(Lang::Java, &format!("class A {{ {src} }}"));
        let mut f = p.functions[0].body.clone().expect("lowers");
        let changed = propagate(&mut f);
        (f, changed)
    }

    fn reads_local(f: &Function, name: &str) -> bool {
        let Some(i) = f.locals.iter().position(|l| l.name == name) else {
            return false;
        };
        f.body.iter().any(|s| reads(s, LocalId(i as u32)))
    }

    #[test]
    fn a_constant_local_is_replaced_by_its_value() {
        let (f, changed) = body_after(
            "double f(double a, int n) { double half = 0.5; int k = 2 * 1024; double s = 0; \
             for (int i = 0; i < n; i++) { s = s + half * a + k; } return s; }",
        );
        assert!(changed);
        assert!(!reads_local(&f, "half") && !reads_local(&f, "k"));
        // `s` and `i` are assigned again: not constants.
        assert!(reads_local(&f, "s") && reads_local(&f, "i"));
    }

    #[test]
    fn reassigned_read_early_or_faulting_locals_stay() {
        for src in [
            "int f(int n) { int k = 3; if (n > 0) { k = 4; } return k * n; }",
            "int f(int n) { int k = 3; k++; return k * n; }",
            "int f(int n) { int k = 1 / 1; return k * n; }",
            "int f(int n) { int k = n; return k * n; }",
            "int f(int n) { if (n > 0) { int k = 3; return k * n; } return 0; }",
        ] {
            let (f, _) = body_after(src);
            assert!(reads_local(&f, "k"), "{src}");
        }
    }
}
