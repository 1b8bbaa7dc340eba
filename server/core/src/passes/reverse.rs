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

use crate::ir::{
    BinOp, Expr, ExprKind, FuncId, Function, LocalId, Place, Program, Stmt, StmtKind, Type,
};
use crate::verdict::Assumption;

/// The integers the versions compute with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Words {
    /// Unbounded integers and reals (`math`).
    Unbounded,
    /// Machine words that wrap (`machine`); `overflow_undefined`: C's
    /// signed overflow is undefined, so a signed sum may overflow in one
    /// order and not in the other.
    Machine { overflow_undefined: bool },
}

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
pub fn reversed(
    old: (&Program, FuncId),
    new: (&Program, FuncId),
    words: Words,
) -> Option<Reversed> {
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
        let (ca, cb) = (counted(fo, a, words), counted(fnew, b, words));
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

/// One end of an index set: `base + offset`, or the literal `offset` when
/// there is no `base`.
#[derive(Clone, Debug)]
struct End {
    base: Option<Expr>,
    offset: i128,
}

impl End {
    /// `e` with a literal added or subtracted split off (`None` when the
    /// literals overflow).
    fn of(e: &Expr) -> Option<End> {
        match &e.kind {
            ExprKind::IntLit(n) => Some(End {
                base: None,
                offset: *n,
            }),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, c) => match c.kind {
                ExprKind::IntLit(k) if *op == BinOp::Add => End::of(a)?.shifted(k),
                ExprKind::IntLit(k) => End::of(a)?.shifted(k.checked_neg()?),
                _ => Some(End::whole(e)),
            },
            _ => Some(End::whole(e)),
        }
    }

    fn whole(e: &Expr) -> End {
        End {
            base: Some(e.clone()),
            offset: 0,
        }
    }

    fn shifted(self, k: i128) -> Option<End> {
        let offset = self.offset.checked_add(k)?;
        Some(End { offset, ..self })
    }
}

/// `e + 1`, in `e`'s type.
fn plus_one(e: &Expr) -> Expr {
    let one = Expr {
        kind: ExprKind::IntLit(1),
        ty: e.ty.clone(),
        span: e.span,
    };
    Expr {
        kind: ExprKind::Binary(BinOp::Add, Box::new(e.clone()), Box::new(one)),
        ty: e.ty.clone(),
        span: e.span,
    }
}

/// A counted reduction loop at `body[at]`, its counter initialised by
/// `body[at - 1]`: it visits every index of `first … last` once, in
/// `direction`.
struct Counted {
    direction: Direction,
    counter: LocalId,
    first: End,
    last: End,
    /// The expressions of the down loop's ends as written: its initial
    /// value (`last`) and its exit test's bound (`first`, before `+ 1`
    /// for `i > lo`).
    written_first: Expr,
    written_last: Expr,
}

/// How an accumulator combines its terms: each is a commutative and
/// associative operation on integers (and on reals, for the sum and the
/// product, under `math`), so the result does not depend on the order of
/// the terms.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Combine {
    Sum,
    Product,
    Or,
    And,
    Xor,
}

/// `acc = acc ⊕ term` (or `acc = term ⊕ acc`, `acc = acc - term`): the
/// accumulator, how it combines and the term.
fn accumulation(s: &Stmt) -> Option<(LocalId, Combine, &Expr)> {
    let StmtKind::Assign {
        place: Place::Local(acc),
        value,
    } = &s.kind
    else {
        return None;
    };
    let ExprKind::Binary(op, a, b) = &value.kind else {
        return None;
    };
    let combine = match op {
        BinOp::Add | BinOp::Sub => Combine::Sum,
        BinOp::Mul => Combine::Product,
        BinOp::BitOr => Combine::Or,
        BinOp::BitAnd => Combine::And,
        BinOp::BitXor => Combine::Xor,
        _ => return None,
    };
    if is_local(a, *acc) {
        Some((*acc, combine, b))
    } else if is_local(b, *acc) && *op != BinOp::Sub {
        Some((*acc, combine, a))
    } else {
        None
    }
}

/// What can make an expression fault: Java raises one exception class per
/// kind, so terms that can fault in only one way fault the same in any
/// order (the first faulting index differs, the outcome does not).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// Integer division or remainder by a value that may be zero.
    Division,
    /// Reading an array (out of bounds, or `null`): one array, since
    /// another array could be `null` where this one is out of bounds.
    Array(ArrayRef),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum ArrayRef {
    Local(LocalId),
    Global(crate::ir::GlobalId),
}

/// The body of a reduction loop: the per-iteration temporaries it
/// defines, the accumulators and the expressions it evaluates.
struct Reduction<'a> {
    accumulators: Vec<(LocalId, Combine)>,
    temporaries: Vec<LocalId>,
    evaluated: Vec<&'a Expr>,
}

/// `body` as a reduction: top-level statements that define a temporary
/// from the index (`x = a[i]`, before any read of it), accumulations, and
/// branches on such values whose arms only accumulate.
fn reduction(body: &[Stmt]) -> Option<Reduction<'_>> {
    let mut r = Reduction {
        accumulators: Vec::new(),
        temporaries: Vec::new(),
        evaluated: Vec::new(),
    };
    fn accumulate<'a>(r: &mut Reduction<'a>, s: &'a Stmt) -> Option<()> {
        let (acc, combine, term) = accumulation(s)?;
        match r.accumulators.iter().find(|(a, _)| *a == acc) {
            Some((_, c)) if *c != combine => return None,
            Some(_) => {}
            None => r.accumulators.push((acc, combine)),
        }
        r.evaluated.push(term);
        Some(())
    }
    fn branch<'a>(r: &mut Reduction<'a>, s: &'a Stmt) -> Option<()> {
        match &s.kind {
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                r.evaluated.push(cond);
                for t in then_branch.iter().chain(else_branch) {
                    branch(r, t)?;
                }
                Some(())
            }
            _ => accumulate(r, s),
        }
    }
    for (k, s) in body.iter().enumerate() {
        if branch(&mut r, s).is_some() {
            continue;
        }
        // A temporary: assigned once, here, and not read before.
        let StmtKind::Assign {
            place: Place::Local(t),
            value,
        } = &s.kind
        else {
            return None;
        };
        let t = *t;
        let defined_here = !body[..k].iter().any(|e| mentions(e, t))
            && !body[k + 1..]
                .iter()
                .any(|e| crate::ir::any_stmt(std::slice::from_ref(e), &mut |x| x.assigns_local(t)));
        if !defined_here {
            return None;
        }
        r.temporaries.push(t);
        r.evaluated.push(value);
    }
    let accs: Vec<LocalId> = r.accumulators.iter().map(|(a, _)| *a).collect();
    if r.temporaries.iter().any(|t| accs.contains(t)) {
        return None;
    }
    Some(r)
}

/// The loop at `f.body[at]` as a counted reduction, if it is one.
fn counted(f: &Function, at: usize, words: Words) -> Option<Counted> {
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
    // `i = E; i = i ± c;` before the loop (a counter stepped before its
    // first test, as `while (--i >= 0)` is lowered) starts at `E ± c`.
    let composed;
    let start = if in_expr(start, i) {
        let StmtKind::Assign {
            place: Place::Local(j),
            value: set,
        } = &f.body.get(at.checked_sub(2)?)?.kind
        else {
            return None;
        };
        let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), l, r) = &start.kind else {
            return None;
        };
        if *j != i || !is_local(l, i) || !matches!(r.kind, ExprKind::IntLit(_)) {
            return None;
        }
        composed = Expr {
            kind: ExprKind::Binary(*op, Box::new(set.clone()), r.clone()),
            ty: start.ty.clone(),
            span: start.span,
        };
        &composed
    } else {
        start
    };
    let [step] = step.as_slice() else {
        return None;
    };
    let delta = increment(step, i)?;
    let ExprKind::Binary(op, l, r) = &cond.kind else {
        return None;
    };
    if !is_local(l, i) {
        return None;
    }
    let (direction, first, last) = match (delta, op) {
        // for (i = lo; i < hi; i++), for (i = lo; i <= hi; i++)
        (1, BinOp::Lt) => (Direction::Up, End::of(start)?, End::of(r)?.shifted(-1)?),
        (1, BinOp::Le) => (Direction::Up, End::of(start)?, End::of(r)?),
        // for (i = hi; i >= lo; i--), for (i = hi; i > lo; i--)
        (-1, BinOp::Ge) => (Direction::Down, End::of(r)?, End::of(start)?),
        (-1, BinOp::Gt) => (Direction::Down, End::of(r)?.shifted(1)?, End::of(start)?),
        _ => return None,
    };
    let reduction = reduction(body)?;
    let accumulators: Vec<LocalId> = reduction.accumulators.iter().map(|(a, _)| *a).collect();
    if accumulators.contains(&i) || reduction.temporaries.contains(&i) {
        return None;
    }
    // Terms and conditions read the index, the temporaries and what the
    // loop does not write, never an accumulator; the bounds read neither
    // (so they do not change while the loop runs).
    let mut faults = Vec::new();
    let terms_pure = reduction
        .evaluated
        .iter()
        .all(|e| pure_term(e, &accumulators, &mut faults));
    let mut not_in_bounds = accumulators.clone();
    not_in_bounds.extend(&reduction.temporaries);
    not_in_bounds.push(i);
    let bounds_pure =
        pure_term(start, &not_in_bounds, &mut faults) && pure_term(r, &not_in_bounds, &mut faults);
    if !terms_pure || !bounds_pure {
        return None;
    }
    faults.dedup();
    if faults.len() > 1 {
        return None;
    }
    if let Words::Machine { overflow_undefined } = words {
        // Combining in another order is exact on words that wrap; on
        // floats it is not, and C's signed overflow may happen in one
        // order only.
        let wraps = |ty: &Type| matches!(ty, Type::Int(t) if !(overflow_undefined && t.signed));
        if !accumulators.iter().all(|a| wraps(&f.local(*a).ty)) {
            return None;
        }
        // The ends as integers are the ends as words: literals and array
        // lengths (at least 0) minus at most 1, where neither loop wraps
        // its counter (an up loop to `<= MAX`, a down loop to `>= MIN`
        // would not stop).
        let small = |e: &End, offsets: std::ops::RangeInclusive<i128>| match &e.base {
            None => e.offset > i128::from(i32::MIN) && e.offset < i128::from(i32::MAX),
            Some(b) => matches!(b.kind, ExprKind::Length(_)) && offsets.contains(&e.offset),
        };
        // The turned loop counts up to `last` inclusive: below the
        // largest word.
        if !small(&first, -1..=0) || !small(&last, -1..=-1) {
            return None;
        }
        if *op == BinOp::Gt && first.base.is_some() {
            return None;
        }
    }
    // Neither the counter's final value nor a temporary's is read
    // afterwards (they differ between the directions).
    if f.body[at + 1..]
        .iter()
        .any(|s| mentions(s, i) || reduction.temporaries.iter().any(|t| mentions(s, *t)))
    {
        return None;
    }
    Some(Counted {
        direction,
        counter: i,
        first,
        last,
        written_first: match op {
            BinOp::Gt => plus_one(r),
            _ => (**r).clone(),
        },
        written_last: start.clone(),
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

/// Side-effect-free arithmetic, comparisons and array reads that read
/// none of `excluded`; each way it can fault is added to `faults`.
fn pure_term(e: &Expr, excluded: &[LocalId], faults: &mut Vec<Fault>) -> bool {
    let array = |a: &Expr| match a.kind {
        ExprKind::Local(l) if !excluded.contains(&l) => Some(ArrayRef::Local(l)),
        ExprKind::Global(g) => Some(ArrayRef::Global(g)),
        _ => None,
    };
    match &e.kind {
        ExprKind::IntLit(_) | ExprKind::FloatLit(_) | ExprKind::BoolLit(_) => true,
        ExprKind::Local(l) => !excluded.contains(l),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => pure_term(a, excluded, faults),
        ExprKind::Cond(c, a, b) => {
            pure_term(c, excluded, faults)
                && pure_term(a, excluded, faults)
                && pure_term(b, excluded, faults)
        }
        ExprKind::Binary(op, a, b) => {
            let ok = match op {
                BinOp::Div | BinOp::Rem => {
                    let nonzero = matches!(b.kind, ExprKind::IntLit(k) if k != 0);
                    if !nonzero {
                        faults.push(Fault::Division);
                    }
                    // Integers only: real division by zero is not the
                    // integer's fault.
                    nonzero || matches!(b.ty, Type::Int(_))
                }
                BinOp::Shl | BinOp::Shr | BinOp::UShr => false,
                _ => true,
            };
            ok && pure_term(a, excluded, faults) && pure_term(b, excluded, faults)
        }
        ExprKind::Index(a, k) => match array(a) {
            Some(r) => {
                faults.push(Fault::Array(r));
                pure_term(k, excluded, faults)
            }
            None => false,
        },
        ExprKind::Length(a) => match array(a) {
            Some(r) => {
                faults.push(Fault::Array(r));
                true
            }
            None => false,
        },
        _ => false,
    }
}

/// Whether `e` reads `l`.
fn in_expr(e: &Expr, l: LocalId) -> bool {
    matches!(e.kind, ExprKind::Local(x) if x == l) || e.children().iter().any(|c| in_expr(c, l))
}

/// Whether `s` (or a statement nested in it) reads or assigns `l`.
fn mentions(s: &Stmt, l: LocalId) -> bool {
    s.assigns_local(l)
        || s.exprs().iter().any(|e| in_expr(e, l))
        || s.child_blocks()
            .iter()
            .any(|b| b.iter().any(|t| mentions(t, l)))
}

/// Whether the two loops visit the same index set: their ends are the same
/// expressions (locals compared by name) plus the same literals.
fn same_bounds(fa: &Function, a: &Counted, fb: &Function, b: &Counted) -> bool {
    let same_end = |x: &End, y: &End| {
        x.offset == y.offset
            && match (&x.base, &y.base) {
                (None, None) => true,
                (Some(p), Some(q)) => same_expr(fa, p, fb, q),
                _ => false,
            }
    };
    same_end(&a.first, &b.first) && same_end(&a.last, &b.last)
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
        (ExprKind::Length(a1), ExprKind::Length(b1)) => same_expr(fa, a1, fb, b1),
        _ => false,
    }
}

/// Rewrites the down loop at `g.body[at]` as
/// `for (i = first; i <= last; i++)`, its ends as the down loop wrote them.
fn turn_up(g: &mut Function, at: usize, down: &Counted) {
    let i = down.counter;
    let ty = g.local(i).ty.clone();
    if let Some(init) = at.checked_sub(1).and_then(|k| g.body.get_mut(k))
        && let StmtKind::Assign { value, .. } = &mut init.kind
    {
        *value = down.written_first.clone();
    }
    if let Some(StmtKind::Loop { cond, step, .. }) = g.body.get_mut(at).map(|s| &mut s.kind) {
        let span = cond.span;
        let counter = Expr {
            kind: ExprKind::Local(i),
            ty: ty.clone(),
            span,
        };
        cond.kind = ExprKind::Binary(
            BinOp::Le,
            Box::new(counter.clone()),
            Box::new(down.written_last.clone()),
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
    fn a_counter_stepped_in_the_guard_is_turned_up() {
        // `while (--i >= 0)` is lowered rotated: `i = n; i = i - 1;` then
        // `while (i >= 0)` stepping `i = i - 1`; its start is `n - 1`.
        let old = lower(
            "static int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += 3 * i; } return s; }",
        );
        let new = lower(
            "static int f(int n) { int s = 0; int i = n; while (--i >= 0) { s += 3 * i; } return s; }",
        );
        let r = reversed((&old, FuncId(0)), (&new, FuncId(0)), Words::Unbounded).expect("matched");
        let turned = r.new.expect("the new version turned up");
        for n in [-3, 0, 1, 2, 7] {
            let run = |p: &Program| {
                crate::interp::run_named(
                    p,
                    "f",
                    crate::ir::Semantics::Math,
                    vec![crate::value::Value::int(n)],
                )
            };
            assert_eq!(run(&turned), run(&new), "n = {n}");
        }
        // Stepped by two before the loop: not the index set the up loop has.
        let two = lower(
            "static int f(int n) { int s = 0; int i = n; i = i - 2; while (i >= 0) { s += 3 * i; i--; } return s; }",
        );
        assert!(reversed((&old, FuncId(0)), (&two, FuncId(0)), Words::Unbounded).is_none());
    }

    #[test]
    fn a_reversed_sum_is_turned_up() {
        let old = lower(
            "static int f(int n, int k) { int s = 0; int t = 0; for (int i = 0; i < n; i++) { s += i; t += 2 * i + k; } return s - t; }",
        );
        let new = lower(
            "static int f(int n, int k) { int s = 0; int t = 0; for (int i = n - 1; i >= 0; i--) { t += 2 * i + k; s += i; } return s - t; }",
        );
        let r = reversed((&old, FuncId(0)), (&new, FuncId(0)), Words::Unbounded).expect("matched");
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
        let mut inputs = crate::passes::tests::grid();
        inputs.extend([vec![5, -2], vec![7, 7]]);
        crate::passes::tests::same_results(&new, &n, FuncId(0), &inputs);
    }

    #[test]
    fn conditional_terms_temporaries_and_inclusive_bounds_are_turned() {
        let up = lower(
            "static int f(int n) { int s = 0; int c = 1; for (int d = 1; d <= n; d++) \
             { int q = n % d; if (q == 0) { s += d; } else { c *= 2; } } return s + c; }",
        );
        let down = lower(
            "static int f(int n) { int s = 0; int c = 1; for (int d = n; d > 0; d--) \
             { int q = n % d; if (q == 0) { s = d + s; } else { c = 2 * c; } } return s + c; }",
        );
        let r = reversed((&up, FuncId(0)), (&down, FuncId(0)), Words::Unbounded)
            .expect("a conditional reduction");
        let turned = r.new.expect("the down version turned");
        let inputs: Vec<Vec<i64>> = [0, 1, 6, 12, -4].map(|n| vec![n]).into();
        crate::passes::tests::same_results(&down, &turned, FuncId(0), &inputs);
    }

    #[test]
    fn on_machine_words_only_bounds_that_cannot_wrap_are_turned() {
        let machine = Words::Machine {
            overflow_undefined: false,
        };
        let over_array = |dir: &str| {
            lower(&format!(
                "static int f(int[] a) {{ int s = 0; for ({dir}) {{ s += a[i]; }} return s; }}"
            ))
        };
        let up = over_array("int i = 0; i < a.length; i++");
        let down = over_array("int i = a.length - 1; i >= 0; i--");
        assert!(reversed((&up, FuncId(0)), (&down, FuncId(0)), machine).is_some());
        // `n - 1` wraps for the smallest n: the down loop then runs.
        let over_n = |dir: &str| {
            lower(&format!(
                "static int f(int n) {{ int s = 0; for ({dir}) {{ s += i; }} return s; }}"
            ))
        };
        let (up, down) = (
            over_n("int i = 0; i < n; i++"),
            over_n("int i = n - 1; i >= 0; i--"),
        );
        assert!(reversed((&up, FuncId(0)), (&down, FuncId(0)), Words::Unbounded).is_some());
        assert!(reversed((&up, FuncId(0)), (&down, FuncId(0)), machine).is_none());
        // Floats do not add associatively; C's signed sums may overflow in
        // one order only.
        let float_up = lower(
            "static double f(double[] a) { double s = 0; for (int i = 0; i < a.length; i++) { s += a[i]; } return s; }",
        );
        let float_down = lower(
            "static double f(double[] a) { double s = 0; for (int i = a.length - 1; i >= 0; i--) { s += a[i]; } return s; }",
        );
        assert!(reversed((&float_up, FuncId(0)), (&float_down, FuncId(0)), machine).is_none());
        let undefined = Words::Machine {
            overflow_undefined: true,
        };
        let (up, down) = (
            over_array("int i = 0; i < a.length; i++"),
            over_array("int i = a.length - 1; i >= 0; i--"),
        );
        assert!(reversed((&up, FuncId(0)), (&down, FuncId(0)), undefined).is_none());
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
            // Terms that may fault in two ways (the first fault decides).
            "static int f(int n, int[] a) { int s = 0; for (int i = n - 1; i >= 0; i--) { s += a[i] / (i - 3); } return s; }",
            // A temporary read before it is set: the previous iteration's.
            "static int f(int n) { int s = 0; int t = 0; for (int i = n - 1; i >= 0; i--) { s += t; t = i; } return s; }",
            // One accumulator combined two ways.
            "static int f(int n) { int s = 0; for (int i = n - 1; i >= 0; i--) { s += i; s *= 2; } return s; }",
        ] {
            assert!(
                reversed(
                    (&lower(up), FuncId(0)),
                    (&lower(down), FuncId(0)),
                    Words::Unbounded
                )
                .is_none(),
                "{down}"
            );
        }
    }
}
