//! Reversed reduction loops: a loop that counts down over the index set
//! the other version's loop counts up over, and only adds terms of the
//! index to accumulators, computes the same sums (`s += i` upwards vs
//! downwards, the "reversal of a sum loop").
//!
//! No lockstep invariant relates the two in linear arithmetic (after `k`
//! steps one sum holds `0 + … + (k-1)`, the other `(n-1) + … + (n-k)`), so
//! instead of an invariant this module uses a lemma: when every statement
//! of a body is `s = s + e` where `e` reads only the counter and variables
//! the loop does not write, cannot fault and reads no accumulator, the
//! final accumulators are sums of `e(i)` over the iterations' counters, and
//! a sum does not depend on the order of its terms (integers, and reals
//! under `math` semantics: the loop checker works there only). The down
//! loop `for (i = hi - 1; i >= lo; i--)` visits exactly `lo … hi-1`, as the
//! up loop `for (i = lo; i < hi; i++)` does (neither when `hi <= lo`), and
//! neither `lo` nor `hi` changes while it runs; so the down loop may be
//! replaced by the up one — except for the counter's final value, which
//! differs, so the counter must not be read after the loop.
//!
//! *Invariants:* the rewrite applies only to the pattern above, checked
//! syntactically (bounds compared structurally, locals by name), and only
//! where the other version has the matching up loop at the same position
//! among the top-level loops; the down version is rewritten, the up one
//! kept. Anything else is left unchanged.

use crate::ir::{BinOp, Expr, ExprKind, FuncId, Function, LocalId, Place, Program, Stmt, StmtKind};
use crate::verdict::Assumption;

/// The versions with their down-counting reduction loops turned around.
pub struct Reversed {
    /// The rewritten old version, if one of its loops was turned.
    pub old: Option<Program>,
    pub new: Option<Program>,
    /// What was turned, in words, for the proof.
    pub notes: Vec<Assumption>,
}

/// The two programs with each down-counting reduction loop of one version
/// that matches an up-counting one of the other turned around; `None` when
/// nothing matched.
pub fn reversed(old: (&Program, FuncId), new: (&Program, FuncId)) -> Option<Reversed> {
    // Blocks at the top level spliced in (C scopes a `for` in one; locals
    // are function-wide in the IR), so loops and their initialisers are
    // neighbours.
    let flat = |p: &Program, f: FuncId| -> Option<Function> {
        let mut g = p.function(f).body.as_ref().ok()?.clone();
        g.body = super::tail::flattened(std::mem::take(&mut g.body));
        Some(g)
    };
    let (fo, fnew) = (&flat(old.0, old.1)?, &flat(new.0, new.1)?);
    let (lo_old, lo_new) = (top_loops(fo), top_loops(fnew));
    if lo_old.len() != lo_new.len() {
        return None;
    }
    let mut go = fo.clone();
    let mut gn = fnew.clone();
    let (mut changed_old, mut changed_new) = (false, false);
    let mut notes = Vec::new();
    let note = |version: &'static str, f: &Function, at: usize| Assumption::LoopReversed {
        version,
        line: f.body[at].span.line(),
    };
    for (&a, &b) in lo_old.iter().zip(&lo_new) {
        let (ca, cb) = (counted(fo, a), counted(fnew, b));
        match (ca, cb) {
            (Some(up), Some(down))
                if up.direction == Direction::Up
                    && down.direction == Direction::Down
                    && same_bounds(fo, &up, fnew, &down) =>
            {
                turn_up(&mut gn, b, &down);
                notes.push(note("new", fnew, b));
                changed_new = true;
            }
            (Some(down), Some(up))
                if up.direction == Direction::Up
                    && down.direction == Direction::Down
                    && same_bounds(fnew, &up, fo, &down) =>
            {
                turn_up(&mut go, a, &down);
                notes.push(note("old", fo, a));
                changed_old = true;
            }
            _ => {}
        }
    }
    if !changed_old && !changed_new {
        return None;
    }
    let with = |p: &Program, f: FuncId, g: Function| {
        let mut q = p.clone();
        if let Some(def) = q.functions.get_mut(f.0 as usize) {
            def.body = Ok(g);
        }
        q
    };
    Some(Reversed {
        old: changed_old.then(|| with(old.0, old.1, go)),
        new: changed_new.then(|| with(new.0, new.1, gn)),
        notes,
    })
}

/// Positions of the top-level loops of `f`'s body.
fn top_loops(f: &Function) -> Vec<usize> {
    f.body
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.kind, StmtKind::Loop { .. }))
        .map(|(i, _)| i)
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Direction {
    Up,
    Down,
}

/// A counted reduction loop at `body[at]`, its counter initialised by
/// `body[at - 1]`.
struct Counted {
    direction: Direction,
    counter: LocalId,
    /// `lo` and `hi` of the index set `lo … hi-1`.
    lo: Expr,
    hi: Expr,
}

/// The loop at `f.body[at]` as a counted reduction, if it is one.
fn counted(f: &Function, at: usize) -> Option<Counted> {
    let init = f.body.get(at.checked_sub(1)?)?;
    let StmtKind::Loop {
        cond, body, step, ..
    } = &f.body.get(at)?.kind
    else {
        return None;
    };
    let StmtKind::Assign {
        place: Place::Local(i),
        value: start,
    } = &init.kind
    else {
        return None;
    };
    let i = *i;
    let [step] = step.as_slice() else {
        return None;
    };
    let delta = increment(step, i)?;
    let ExprKind::Binary(op, l, r) = &cond.kind else {
        return None;
    };
    let (direction, lo, hi) = match (delta, op) {
        // for (i = lo; i < hi; i++)
        (1, BinOp::Lt) if is_local(l, i) => (Direction::Up, start.clone(), (**r).clone()),
        // for (i = hi - 1; i >= lo; i--)
        (-1, BinOp::Ge) if is_local(l, i) => {
            let ExprKind::Binary(BinOp::Sub, h, one) = &start.kind else {
                return None;
            };
            if !matches!(one.kind, ExprKind::IntLit(1)) {
                return None;
            }
            (Direction::Down, (**r).clone(), (**h).clone())
        }
        _ => return None,
    };
    // The body: accumulations only, of terms that read no accumulator,
    // nothing the loop writes but the counter, and cannot fault.
    let accumulators: Vec<LocalId> = body
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Assign {
                place: Place::Local(s),
                ..
            } => Some(*s),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if accumulators.contains(&i) {
        return None;
    }
    for s in body {
        let StmtKind::Assign {
            place: Place::Local(acc),
            value,
        } = &s.kind
        else {
            return None;
        };
        let ExprKind::Binary(BinOp::Add, a, term) = &value.kind else {
            return None;
        };
        if !is_local(a, *acc) || !pure_term(term, &accumulators) {
            return None;
        }
    }
    // The bounds do not change while the loop runs.
    if !pure_term(&lo, &accumulators)
        || !pure_term(&hi, &accumulators)
        || reads(&lo, i)
        || reads(&hi, i)
    {
        return None;
    }
    // The counter's final value is never read afterwards.
    if f.body[at + 1..].iter().any(|s| mentions(s, i)) {
        return None;
    }
    Some(Counted {
        direction,
        counter: i,
        lo,
        hi,
    })
}

/// `+1` for `i = i + 1`, `-1` for `i = i - 1`.
fn increment(s: &Stmt, i: LocalId) -> Option<i32> {
    let StmtKind::Assign {
        place: Place::Local(l),
        value,
    } = &s.kind
    else {
        return None;
    };
    if *l != i {
        return None;
    }
    match &value.kind {
        ExprKind::Binary(op, a, b) if is_local(a, i) && matches!(b.kind, ExprKind::IntLit(1)) => {
            match op {
                BinOp::Add => Some(1),
                BinOp::Sub => Some(-1),
                _ => None,
            }
        }
        _ => None,
    }
}

fn is_local(e: &Expr, l: LocalId) -> bool {
    matches!(e.kind, ExprKind::Local(x) if x == l)
}

/// Arithmetic over locals and literals that cannot fault and reads none of
/// `excluded`.
fn pure_term(e: &Expr, excluded: &[LocalId]) -> bool {
    match &e.kind {
        ExprKind::IntLit(_) | ExprKind::FloatLit(_) | ExprKind::BoolLit(_) => true,
        ExprKind::Local(l) => !excluded.contains(l),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => pure_term(a, excluded),
        ExprKind::Binary(op, a, b) => {
            matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
                && pure_term(a, excluded)
                && pure_term(b, excluded)
        }
        _ => false,
    }
}

fn reads(e: &Expr, l: LocalId) -> bool {
    match &e.kind {
        ExprKind::Local(x) => *x == l,
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => reads(a, l),
        ExprKind::Binary(_, a, b) => reads(a, l) || reads(b, l),
        _ => false,
    }
}

/// Whether `s` (or a statement nested in it) reads or assigns `l`.
fn mentions(s: &Stmt, l: LocalId) -> bool {
    fn in_expr(e: &Expr, l: LocalId) -> bool {
        matches!(e.kind, ExprKind::Local(x) if x == l) || e.children().iter().any(|c| in_expr(c, l))
    }
    let assigns = match &s.kind {
        StmtKind::Assign { place, .. } => matches!(place, Place::Local(x) if *x == l),
        StmtKind::Call { dest, .. } | StmtKind::External { dest, .. } => {
            matches!(dest, Some(Place::Local(x)) if *x == l)
        }
        _ => false,
    };
    assigns
        || s.exprs().iter().any(|e| in_expr(e, l))
        || s.child_blocks()
            .iter()
            .any(|b| b.iter().any(|t| mentions(t, l)))
}

/// Whether the bounds of the two loops are the same expressions, locals
/// compared by name.
fn same_bounds(fa: &Function, a: &Counted, fb: &Function, b: &Counted) -> bool {
    same_expr(fa, &a.lo, fb, &b.lo) && same_expr(fa, &a.hi, fb, &b.hi)
}

fn same_expr(fa: &Function, a: &Expr, fb: &Function, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::IntLit(x), ExprKind::IntLit(y)) => x == y,
        (ExprKind::Local(x), ExprKind::Local(y)) => {
            fa.local(*x).name == fb.local(*y).name && fa.local(*x).ty == fb.local(*y).ty
        }
        (ExprKind::Binary(o, a1, a2), ExprKind::Binary(p, b1, b2)) => {
            o == p && same_expr(fa, a1, fb, b1) && same_expr(fa, a2, fb, b2)
        }
        (ExprKind::Unary(o, a1), ExprKind::Unary(p, b1)) => o == p && same_expr(fa, a1, fb, b1),
        _ => false,
    }
}

/// Rewrites the down loop at `g.body[at]` as `for (i = lo; i < hi; i++)`.
fn turn_up(g: &mut Function, at: usize, down: &Counted) {
    let i = down.counter;
    let ty = g.local(i).ty.clone();
    if let Some(init) = at.checked_sub(1).and_then(|k| g.body.get_mut(k))
        && let StmtKind::Assign { value, .. } = &mut init.kind
    {
        *value = down.lo.clone();
    }
    if let Some(StmtKind::Loop { cond, step, .. }) = g.body.get_mut(at).map(|s| &mut s.kind) {
        let span = cond.span;
        let counter = Expr {
            kind: ExprKind::Local(i),
            ty: ty.clone(),
            span,
        };
        cond.kind = ExprKind::Binary(
            BinOp::Lt,
            Box::new(counter.clone()),
            Box::new(down.hi.clone()),
        );
        if let Some(StmtKind::Assign { value, .. }) = step.first_mut().map(|s| &mut s.kind)
            && let ExprKind::Binary(op, _, _) = &mut value.kind
        {
            *op = BinOp::Add;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;

    fn lower(src: &str) -> Program {
        crate::lang::lower(Lang::Java, &format!("class A {{ {src} }}"))
    }

    #[test]
    fn a_reversed_sum_is_turned_up() {
        let old = lower(
            "static int f(int n, int k) { int s = 0; int t = 0; for (int i = 0; i < n; i++) { s += i; t += 2 * i + k; } return s - t; }",
        );
        let new = lower(
            "static int f(int n, int k) { int s = 0; int t = 0; for (int i = n - 1; i >= 0; i--) { t += 2 * i + k; s += i; } return s - t; }",
        );
        let r = reversed((&old, FuncId(0)), (&new, FuncId(0))).expect("matched");
        assert!(r.old.is_none());
        assert!(
            r.notes[0]
                == Assumption::LoopReversed {
                    version: "new",
                    line: 1
                },
            "{:?}",
            r.notes
        );
        let n = r.new.expect("the new version turned");
        // The turned loop computes what the down loop computed.
        for args in [[0, 0], [1, 3], [5, -2], [-3, 1], [7, 7]] {
            let run = |p: &Program| {
                let inputs = crate::interp::Inputs {
                    args: args
                        .iter()
                        .map(|a| crate::value::Value::Int((*a).into()))
                        .collect(),
                    globals: Default::default(),
                    callees: Vec::new(),
                };
                crate::interp::execute(
                    p,
                    FuncId(0),
                    &inputs,
                    crate::ir::Semantics::Math,
                    Default::default(),
                    &Default::default(),
                )
                .outcome
            };
            assert_eq!(run(&new), run(&n), "{args:?}");
        }
    }

    #[test]
    fn loops_outside_the_pattern_are_left_alone() {
        let up =
            "static int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }";
        for down in [
            // The counter read after the loop.
            "static int f(int n) { int s = 0; int i; for (i = n - 1; i >= 0; i--) { s += i; } return s + i; }",
            // A term that reads the accumulator: order matters.
            "static int f(int n) { int s = 0; for (int i = n - 1; i >= 0; i--) { s += s + i; } return s; }",
            // Other bounds.
            "static int f(int n) { int s = 0; for (int i = n; i >= 0; i--) { s += i; } return s; }",
            // A term that may fault.
            "static int f(int n) { int s = 0; for (int i = n - 1; i >= 0; i--) { s += 10 / (i - 3); } return s; }",
        ] {
            assert!(
                reversed((&lower(up), FuncId(0)), (&lower(down), FuncId(0))).is_none(),
                "{down}"
            );
        }
    }
}
