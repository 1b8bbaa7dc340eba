//! Semantics-preserving rewrites of a [`Shape`] that bring two versions'
//! loops into lockstep when they are not (after ALIEN: Hamza and
//! Fedyukovich, TACAS 2023): splitting a loop into phases, unrolling it,
//! fission, and an empty loop standing for a peeled last iteration.
//!
//! Each rewrite changes only how one version is *cut*, never what it does:
//! same outcome, same fault, same final state, same (non-)termination, on
//! every input and under both semantics. The arguments, one per rewrite,
//! rest on what [`super::shape`] guarantees — a loop body has no `break`
//! out of it, no `continue` and no print; a `return` or a call of a
//! loop-free function inside `B` ends the run, or runs, the same way in
//! either form (fission refuses both, see [`fission`]) — and on one lemma:
//!
//! **Guarded iterations.** Let `B` be a loop body and `c` its guard, and let
//! a program run `B` only from states where `c` holds, stop only in a state
//! where `c` does not hold, and otherwise evaluate only guards that have no
//! effect and cannot fault. Then it runs `B` exactly as often, from exactly
//! the same states, as `while (c) B` — the latter's run is the unique
//! sequence "`B` while `c`" — so both end in the same state or fault alike,
//! or both run forever.
//!
//! Guards brought in from the other version are therefore restricted to
//! expressions that cannot fault ([`safe_expr`]): integer and boolean
//! literals, variables, `+ - *`, comparisons, logic, bit operations and
//! integer casts (no division, remainder, shift, array, float or library
//! call). Overflow wraps under `machine` in Java and in C compiled with
//! `-fwrapv` (docs/semantics.md). Where C's signed overflow is undefined,
//! `i + 1 < n` may fail; the loop encoding then makes the invariant show
//! that no head state makes a guard fail (`encode::version_pieces`), so the
//! runs it proves evaluate only guards that do not fail, which is all the
//! lemma asks.

use super::shape::{LoopPiece, NotEncodable, Shape};
use crate::ir::make;
use crate::ir::{
    BinOp, Block, Expr, ExprKind, Function, GlobalId, LocalId, LocalKind, Place, Program, Span,
    Stmt, StmtKind, Type,
};
use std::collections::BTreeSet;

fn not_encodable(what: impl Into<String>, span: Span) -> NotEncodable {
    NotEncodable {
        what: what.into(),
        span,
    }
}

/// Splits loop `k` into phases: `while (c) B` becomes
/// `while (c && g1) B; …; while (c && gd) B; while (c) B` (`d + 1`
/// loops, empty stretches between them).
///
/// *Sound* for any `g_i` that cannot fault (checked): every loop runs `B`
/// only where `c` holds; the first `d` stop where `c` or `g_i` fails, and
/// the last stops only where `c` fails (guarded iterations). `None` when
/// there is no loop `k` or a guard may fault.
pub fn split(shape: &Shape, k: usize, guards: &[Expr]) -> Option<Shape> {
    // Rearrangements take top-level loops only (a loop's `body` is all
    // of its body only then).
    if !shape.is_flat() {
        return None;
    }
    let lp = shape.loops.get(k)?;
    if !guards.iter().all(safe_expr) {
        return None;
    }
    let mut pieces: Vec<LoopPiece> = guards
        .iter()
        .map(|g| LoopPiece {
            cond: make::and_at(lp.cond.clone(), g.clone(), lp.cond.span),
            body: lp.body.clone(),
            span: lp.span,
            parent: None,
        })
        .collect();
    pieces.push(lp.clone());
    Some(replace_loop(shape, k, pieces, Vec::new()))
}

/// Unrolls loop `k` by `m`: its body `B` becomes `B; if (c) B; …` (`m`
/// copies), where `c` is `inner`, the guard the loop had before any split
/// (which the current guard implies: it is `c` or `c && g`).
///
/// *Sound*: the first copy runs where the loop's guard holds, hence `c`;
/// each further copy only where `c` holds; where `c` fails, the remaining
/// copies are skipped (the state is unchanged, so each test fails again)
/// and the loop's guard fails next. Together with the phase after it (a
/// split always ends with plain `while (c) B`) the program stops only
/// where `c` fails: guarded iterations. `None` when there is no loop `k`,
/// `m < 2`, or `inner` may fault.
pub fn unroll(shape: &Shape, k: usize, m: usize, inner: &Expr) -> Option<Shape> {
    if !shape.is_flat() {
        return None;
    }
    let lp = shape.loops.get(k)?;
    if m < 2 || !safe_expr(inner) {
        return None;
    }
    let mut body = lp.body.clone();
    for _ in 1..m {
        body.push(Stmt {
            kind: StmtKind::If {
                cond: inner.clone(),
                then_branch: lp.body.clone(),
                else_branch: Vec::new(),
            },
            span: lp.span,
        });
    }
    let mut out = shape.clone();
    if let Some(l) = out.loops.get_mut(k) {
        l.body = body;
    }
    Some(out)
}

/// Inserts an empty loop `while (false) {}` in stretch `seg`, before its
/// top-level statement `pos` (at the end when `pos` is past it). It never
/// runs, so the shape means the same; it gives the other version's extra
/// loop (e.g. one holding a peeled last iteration) a partner whose guard
/// must then be false in step. `None` when there is no stretch `seg`.
pub fn phantom(shape: &Shape, seg: usize, pos: usize, span: Span) -> Option<Shape> {
    if !shape.is_flat() {
        return None;
    }
    let stretch = shape.segments.get(seg)?;
    let pos = pos.min(stretch.len());
    let mut out = shape.clone();
    let tail = out.segments.get_mut(seg)?.split_off(pos);
    out.segments.insert(seg + 1, tail);
    out.loops.insert(
        seg,
        LoopPiece {
            cond: make::bool_lit(false, span),
            body: Vec::new(),
            span,
            parent: None,
        },
    );
    Some(out)
}

/// Fission of loop `k` into `cuts.len() + 1` loops, cutting its body
/// (without the step) before the top-level statements `cuts`:
/// `i = e0; …; while (c) { B1; B2; S }` becomes
/// `i = e0; …; while (c) { B1; S }; i = e0; while (c) { B2; S }`.
/// (Fusion is the same rewrite applied to the other version.)
///
/// The step `S` is the longest suffix of the body assigning only variables
/// the guard reads (the counters). Legal only when (each condition is
/// needed):
/// - no part, no step and no guard can fault: fission reorders the
///   iterations of different parts, so a fault would happen in another
///   state (a fault of `B1` in iteration 5 comes, fissioned, before `B2`
///   ran iterations 0–4; one of `B2` in iteration 3 after `B1` ran all of
///   its iterations) — the final state at the fault differs. Calls and
///   `return`s (which the shape allows in loop bodies) would be reordered
///   alike: `Effects` refuses anything but scalar assignments and `if`s
///   over fault-free expressions;
/// - no part reads what another writes: `B2` reading `B1`'s scalar would
///   see its final value instead of the one of the same iteration (and
///   `B1` reading `B2`'s its initial one); and parts write disjoint
///   variables, or the last writer would change;
/// - no part writes what the guard or `S` reads or writes (the counters
///   are written only by the step): then the counters run through the
///   same values in every loop, so every loop iterates equally often, with
///   the same counter values — or every loop forever, like the fused one
///   (the first fissioned loop then never ends);
/// - every counter `i` is set by a top-level `i = e0` in the stretch
///   before the loop, `e0` cannot fault, and neither the statements after
///   it nor the loop write `i` (before the loop) or what `e0` reads:
///   re-running `i = e0` between the loops restores the counters' start
///   values exactly, and writes nothing else.
///
/// Under these conditions each part runs through the same sequence of
/// states of its own variables as in the fused loop, the counters end
/// with the same values, and nothing else is written.
///
/// `overflow_undefined` (C under `machine` without `-fwrapv`): `+ - *`
/// then fault on a signed overflow, which [`safe_expr`] lets through. The
/// run is undefined in both forms alike — a part or the step overflows in
/// one form exactly when it does in the other, each part seeing the same
/// states — and the outcome is one (`undefined behaviour`), but the state
/// at the fault differs. Locals are not observed after a fault; globals
/// are (like arrays, which no part can write), so with undefined overflow
/// no part and no step may write a global.
pub fn fission(
    shape: &Shape,
    k: usize,
    cuts: &[usize],
    overflow_undefined: bool,
) -> Result<Shape, NotEncodable> {
    let refuse = |what: &str, span: Span| Err(not_encodable(what, span));
    let Some(lp) = shape.loops.get(k) else {
        return refuse("fission: no such loop", Span::default());
    };
    if !shape.is_flat() {
        return refuse("fission: nested loops", lp.span);
    }
    let counters_read = expr_vars(&lp.cond);
    let step_len = step_suffix(&lp.body, &counters_read);
    let body = &lp.body[..lp.body.len() - step_len];
    let step = &lp.body[lp.body.len() - step_len..];
    if cuts.is_empty() || cuts.windows(2).any(|w| w[0] >= w[1]) {
        return refuse("fission: bad cuts", lp.span);
    }
    if cuts[0] == 0 || cuts.last().is_some_and(|&c| c >= body.len()) {
        return refuse("fission: a part would be empty", lp.span);
    }
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(body.len());
    let parts: Vec<&[Stmt]> = bounds.windows(2).map(|w| &body[w[0]..w[1]]).collect();
    let effects: Vec<Effects> = parts.iter().map(|p| Effects::of(p)).collect();
    if let Some(e) = effects.iter().find(|e| e.unsafe_at.is_some()) {
        return refuse(
            "fission: a part of the loop may fault or leave it",
            e.unsafe_at.unwrap_or(lp.span),
        );
    }
    for (a, ea) in effects.iter().enumerate() {
        for eb in effects.iter().skip(a + 1) {
            if !ea.writes.is_disjoint(&eb.reads)
                || !eb.writes.is_disjoint(&ea.reads)
                || !ea.writes.is_disjoint(&eb.writes)
            {
                return refuse("fission: the parts of the loop share variables", lp.span);
            }
        }
    }
    let step_fx = Effects::of(step);
    if step_fx.unsafe_at.is_some() {
        return refuse("fission: the loop step may fault", lp.span);
    }
    let writes_global = |e: &Effects| e.writes.iter().any(|v| matches!(v, Var::Global(_)));
    if overflow_undefined && (effects.iter().any(writes_global) || writes_global(&step_fx)) {
        return refuse(
            "fission: the loop writes a global and may overflow (undefined behaviour would \
             leave the global in another state)",
            lp.span,
        );
    }
    let mut control = counters_read.clone();
    control.extend(step_fx.reads.iter().copied());
    control.extend(step_fx.writes.iter().copied());
    if effects.iter().any(|e| !e.writes.is_disjoint(&control)) {
        return refuse("fission: the loop body writes its counter", lp.span);
    }
    let whole = Effects::of(&lp.body);
    let before = shape.segments.get(k).map_or(&[][..], Vec::as_slice);
    let mut inits = Vec::new();
    for v in &step_fx.writes {
        let Some(init) = reinit(before, *v, &whole.writes) else {
            return refuse(
                "fission: the loop counter's start value cannot be restored",
                lp.span,
            );
        };
        inits.push(init);
    }
    if !safe_expr(&lp.cond) {
        return refuse("fission: the loop condition may fault", lp.span);
    }
    let pieces: Vec<LoopPiece> = parts
        .iter()
        .map(|p| {
            let mut b: Block = p.to_vec();
            b.extend(step.iter().cloned());
            LoopPiece {
                cond: lp.cond.clone(),
                body: b,
                span: lp.span,
                parent: None,
            }
        })
        .collect();
    Ok(replace_loop(shape, k, pieces, inits))
}

/// The fission cut positions to try for loop `k` into `parts` parts, all
/// combinations (in order) of cut points of the body without its step.
pub fn fission_cuts(lp: &LoopPiece, parts: usize) -> Vec<Vec<usize>> {
    let step_len = step_suffix(&lp.body, &expr_vars(&lp.cond));
    let len = lp.body.len() - step_len;
    let mut out = Vec::new();
    if parts < 2 || len < parts {
        return out;
    }
    let mut cur = Vec::new();
    combos(1, len, parts - 1, &mut cur, &mut out);
    out
}

fn combos(from: usize, len: usize, left: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    if left == 0 {
        out.push(cur.clone());
        return;
    }
    for c in from..len {
        if out.len() >= 64 {
            return;
        }
        cur.push(c);
        combos(c + 1, len, left - 1, cur, out);
        cur.pop();
    }
}

/// Top-level statements of the body without its step (how much work
/// each iteration does, to rank fission cuts against the other version).
pub fn work_len(lp: &LoopPiece) -> usize {
    lp.body.len() - step_suffix(&lp.body, &expr_vars(&lp.cond))
}

/// Sizes of the parts that cuts give.
pub fn part_lens(lp: &LoopPiece, cuts: &[usize]) -> Vec<usize> {
    let len = work_len(lp);
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(len);
    bounds.windows(2).map(|w| w[1] - w[0]).collect()
}

/// Replaces loop `k` by `pieces`, with `between` as the stretch between
/// consecutive pieces.
fn replace_loop(shape: &Shape, k: usize, pieces: Vec<LoopPiece>, between: Block) -> Shape {
    let mut out = shape.clone();
    let extra = pieces.len().saturating_sub(1);
    out.loops.splice(k..=k, pieces);
    for _ in 0..extra {
        out.segments.insert(k + 1, between.clone());
    }
    out
}

/// The longest suffix of `body` whose statements assign only variables in
/// `counters` (top-level assignments that cannot fault).
fn step_suffix(body: &[Stmt], counters: &BTreeSet<Var>) -> usize {
    body.iter()
        .rev()
        .take_while(|s| match &s.kind {
            StmtKind::Assign { place, value } => {
                place_var(place).is_some_and(|v| counters.contains(&v)) && safe_expr(value)
            }
            _ => false,
        })
        .count()
}

/// `v = e0` as the last top-level write of `v` in `before`, when nothing
/// after it in `before` writes `v` or what `e0` reads, and the loop
/// (`loop_writes`) does not write what `e0` reads.
fn reinit(before: &[Stmt], v: Var, loop_writes: &BTreeSet<Var>) -> Option<Stmt> {
    let t = before
        .iter()
        .rposition(|s| Effects::of(std::slice::from_ref(s)).writes.contains(&v))?;
    let s = &before[t];
    let StmtKind::Assign { place, value } = &s.kind else {
        return None;
    };
    if place_var(place) != Some(v) || !safe_expr(value) {
        return None;
    }
    let reads = expr_vars(value);
    let later = Effects::of(&before[t + 1..]);
    if later.writes.contains(&v)
        || !later.writes.is_disjoint(&reads)
        || !loop_writes.is_disjoint(&reads)
    {
        return None;
    }
    Some(s.clone())
}

/// A scalar variable of one version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Var {
    Local(LocalId),
    Global(GlobalId),
}

fn place_var(p: &Place) -> Option<Var> {
    match p {
        Place::Local(l) => Some(Var::Local(*l)),
        Place::Global(g) => Some(Var::Global(*g)),
        Place::Index { .. } => None,
    }
}

fn expr_vars(e: &Expr) -> BTreeSet<Var> {
    let mut out = BTreeSet::new();
    walk_expr(e, &mut |e| match &e.kind {
        ExprKind::Local(l) => {
            out.insert(Var::Local(*l));
        }
        ExprKind::Global(g) => {
            out.insert(Var::Global(*g));
        }
        _ => {}
    });
    out
}

/// What a list of statements reads and writes, and the first statement
/// that may fault or leave (anything but assignments of safe expressions
/// to scalars, `if`s with safe conditions, and blocks).
struct Effects {
    reads: BTreeSet<Var>,
    writes: BTreeSet<Var>,
    unsafe_at: Option<Span>,
}

impl Effects {
    fn of(stmts: &[Stmt]) -> Effects {
        let mut fx = Effects {
            reads: BTreeSet::new(),
            writes: BTreeSet::new(),
            unsafe_at: None,
        };
        for s in stmts {
            fx.stmt(s);
        }
        fx
    }

    fn flag(&mut self, span: Span) {
        if self.unsafe_at.is_none() {
            self.unsafe_at = Some(span);
        }
    }

    fn expr(&mut self, e: &Expr, span: Span) {
        if !safe_expr(e) {
            self.flag(span);
        }
        self.reads.extend(expr_vars(e));
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { place, value } => {
                self.expr(value, s.span);
                match place_var(place) {
                    Some(v) => {
                        self.writes.insert(v);
                    }
                    None => self.flag(s.span),
                }
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.expr(cond, s.span);
                for t in then_branch.iter().chain(else_branch) {
                    self.stmt(t);
                }
            }
            StmtKind::Block(b) => {
                for t in b {
                    self.stmt(t);
                }
            }
            // Calls, prints, loops, labeled blocks and jumps: not taken.
            _ => self.flag(s.span),
        }
    }
}

/// An expression that cannot fault under either semantics and has only
/// integer or boolean values: literals, variables, `+ - *`, comparisons,
/// logic, bit operations, `?:` and integer casts.
pub fn safe_expr(e: &Expr) -> bool {
    let mut ok = true;
    walk_expr(e, &mut |e| {
        // The length of an array variable: an array input is never null
        // (the verdicts name that assumption), and an unset array local is
        // an encoding error, not a value. Its operand, an array, is not a
        // scalar: accepted here, so its own visit below must be too.
        if let ExprKind::Length(a) = &e.kind {
            ok &= matches!(a.kind, ExprKind::Local(_) | ExprKind::Global(_));
            return;
        }
        if matches!(e.ty, Type::Array(_))
            && matches!(e.kind, ExprKind::Local(_) | ExprKind::Global(_))
        {
            return;
        }
        let scalar = matches!(e.ty, Type::Int(_) | Type::Bool);
        let kind_ok = match &e.kind {
            ExprKind::IntLit(_)
            | ExprKind::BoolLit(_)
            | ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Unary(..)
            | ExprKind::Cond(..)
            | ExprKind::Cast(_) => true,
            ExprKind::Binary(op, _, _) => !matches!(
                op,
                BinOp::Div | BinOp::Rem | BinOp::Shl | BinOp::Shr | BinOp::UShr
            ),
            _ => false,
        };
        ok &= scalar && kind_ok;
    });
    ok
}

fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        f(e);
        stack.extend(e.children());
    }
}

/// Rewrites an expression of one version (`from`) over the other's
/// (`to`) variables, matched by name: a local to the one local of that
/// name and type in `to`, a global to the global of that name and type.
/// Refused (the reason named) when the expression may fault, a name is
/// missing or ambiguous, a type differs, or a local is a front-end
/// temporary.
pub fn translate(
    e: &Expr,
    from: (&Program, &Function),
    to: (&Program, &Function),
) -> Result<Expr, NotEncodable> {
    translate_within(e, from, to, 0)
}

/// How many definitions [`translate`] substitutes one inside another.
const MAX_DEFINITIONS: usize = 4;

/// [`translate`], `nested` definitions deep: a local missing in `to` that
/// `from` assigns exactly once, at the top level (`int n = a.length;`), is
/// replaced by its value. Any guard splits a loop exactly (the meaning of
/// the rewritten version never depends on it), so this only has to give
/// a guard that is well formed and safe in `to` — and, to be useful, the
/// one the other version means.
fn translate_within(
    e: &Expr,
    from: (&Program, &Function),
    to: (&Program, &Function),
    nested: usize,
) -> Result<Expr, NotEncodable> {
    if !safe_expr(e) {
        return Err(not_encodable(
            "a loop guard that may fault cannot split the other version's loop",
            e.span,
        ));
    }
    if depth(e) > MAX_GUARD_DEPTH {
        return Err(not_encodable(
            "a loop guard too deeply nested to carry over to the other version",
            e.span,
        ));
    }
    let mut problem: Option<NotEncodable> = None;
    let out = map_expr(e, &mut |x| match &x.kind {
        ExprKind::Local(l) => {
            let Some(src) = from.1.locals.get(l.0 as usize) else {
                problem.get_or_insert(not_encodable("internal: local out of range", x.span));
                return None;
            };
            if src.kind == LocalKind::Temp {
                problem.get_or_insert(not_encodable(
                    "a loop guard over a temporary cannot split the other version's loop",
                    x.span,
                ));
                return None;
            }
            let found: Vec<usize> =
                to.1.locals
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| t.name == src.name)
                    .map(|(i, _)| i)
                    .collect();
            match found.as_slice() {
                [i] if to.1.locals[*i].ty == src.ty => Some(ExprKind::Local(LocalId(*i as u32))),
                [_] => {
                    problem.get_or_insert(not_encodable(
                        format!(
                            "variable {} has different types in the two versions",
                            src.name
                        ),
                        x.span,
                    ));
                    None
                }
                [] => {
                    let defined = (nested < MAX_DEFINITIONS)
                        .then(|| definition(from.1, *l))
                        .flatten()
                        .map(|d| translate_within(d, from, to, nested + 1));
                    if let Some(Ok(d)) = defined
                        && d.ty == x.ty
                    {
                        return Some(d.kind);
                    }
                    problem.get_or_insert(not_encodable(
                        format!(
                            "variable {} of a loop guard is missing in the other version",
                            src.name
                        ),
                        x.span,
                    ));
                    None
                }
                _ => {
                    problem.get_or_insert(not_encodable(
                        format!(
                            "variable {} is declared more than once in the other version",
                            src.name
                        ),
                        x.span,
                    ));
                    None
                }
            }
        }
        ExprKind::Global(g) => {
            let Some(src) = from.0.globals.get(g.0 as usize) else {
                problem.get_or_insert(not_encodable("internal: global out of range", x.span));
                return None;
            };
            match to.0.find_global(&src.name) {
                Some(id) if to.0.global(id).ty == src.ty => Some(ExprKind::Global(id)),
                _ => {
                    problem.get_or_insert(not_encodable(
                        format!("global {} differs in the other version", src.name),
                        x.span,
                    ));
                    None
                }
            }
        }
        _ => None,
    });
    match problem {
        Some(p) => Err(p),
        None => Ok(out),
    }
}

/// The value of local `l` when `f` assigns it exactly once, by a
/// top-level statement (and it is not a parameter).
fn definition(f: &Function, l: LocalId) -> Option<&Expr> {
    if f.locals.get(l.0 as usize)?.kind == LocalKind::Param {
        return None;
    }
    if super::constants::assignment_counts(f).get(l.0 as usize) != Some(&1) {
        return None;
    }
    f.body.iter().find_map(|s| match &s.kind {
        StmtKind::Assign {
            place: Place::Local(p),
            value,
        } if *p == l => Some(value),
        _ => None,
    })
}

/// Guards nested deeper than this are not translated ([`map_expr`]
/// recurses).
const MAX_GUARD_DEPTH: usize = 64;

/// The nesting depth of an expression, without recursion.
fn depth(e: &Expr) -> usize {
    let mut max = 0;
    let mut stack = vec![(e, 1usize)];
    while let Some((e, d)) = stack.pop() {
        max = max.max(d);
        stack.extend(e.children().into_iter().map(|c| (c, d + 1)));
    }
    max
}

/// A copy of `e` with every leaf `f` maps replaced (recursion depth is
/// bounded by [`MAX_GUARD_DEPTH`], checked by the caller).
fn map_expr(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<ExprKind>) -> Expr {
    let kind = match f(e) {
        Some(k) => k,
        None => match &e.kind {
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(map_expr(a, f))),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(map_expr(a, f)), Box::new(map_expr(b, f)))
            }
            ExprKind::Cond(c, a, b) => ExprKind::Cond(
                Box::new(map_expr(c, f)),
                Box::new(map_expr(a, f)),
                Box::new(map_expr(b, f)),
            ),
            ExprKind::Cast(a) => ExprKind::Cast(Box::new(map_expr(a, f))),
            ExprKind::Length(a) => ExprKind::Length(Box::new(map_expr(a, f))),
            other => other.clone(),
        },
    };
    Expr {
        kind,
        ty: e.ty.clone(),
        span: e.span,
    }
}

/// How much a loop body adds to each counter per iteration: locals whose
/// only writes in the body are top-level `v = v ± literal` (through
/// integer casts), by name.
fn increments(lp: &LoopPiece, f: &Function) -> Vec<(String, i128)> {
    let fx = Effects::of(&lp.body);
    let mut out: Vec<(String, i128)> = Vec::new();
    for v in &fx.writes {
        let Var::Local(id) = v else { continue };
        let mut total: Option<i128> = Some(0);
        for s in &lp.body {
            let writes = Effects::of(std::slice::from_ref(s)).writes;
            if !writes.contains(v) {
                continue;
            }
            total = match (&s.kind, total) {
                (StmtKind::Assign { place, value }, Some(t)) if place_var(place) == Some(*v) => {
                    literal_step(value, *id).and_then(|d| t.checked_add(d))
                }
                _ => None,
            };
        }
        if let (Some(t), Some(l)) = (total, f.locals.get(id.0 as usize))
            && t != 0
        {
            out.push((l.name.clone(), t));
        }
    }
    out
}

/// `d` when `e` is `v + d` or `v - d` with a literal `d` (casts peeled).
fn literal_step(e: &Expr, v: LocalId) -> Option<i128> {
    fn strip(mut e: &Expr) -> &Expr {
        while let ExprKind::Cast(a) = &e.kind {
            if !matches!(a.ty, Type::Int(_)) {
                break;
            }
            e = a;
        }
        e
    }
    let e = strip(e);
    let ExprKind::Binary(op, a, b) = &e.kind else {
        return None;
    };
    let (a, b) = (strip(a), strip(b));
    let lit = |x: &Expr| match x.kind {
        ExprKind::IntLit(n) => Some(n),
        _ => None,
    };
    let is_v = |x: &Expr| matches!(x.kind, ExprKind::Local(l) if l == v);
    match op {
        BinOp::Add if is_v(a) => lit(b),
        BinOp::Add if is_v(b) => lit(a),
        BinOp::Sub if is_v(a) => lit(b).and_then(i128::checked_neg),
        _ => None,
    }
}

/// How many iterations of `single` one iteration of `multi` does, by the
/// counters' steps (a counter of the same name stepping `d` and `m·d`),
/// else by the bodies' lengths; `Some(m)` only for `m` in {2, 4, 8}.
pub fn unroll_factor(
    single: (&LoopPiece, &Function),
    multi: (&LoopPiece, &Function),
) -> Option<usize> {
    let a = increments(single.0, single.1);
    let b = increments(multi.0, multi.1);
    let ok = |m: i128| [2, 4, 8].contains(&m).then_some(m as usize);
    for (name, d) in &a {
        if let Some((_, e)) = b.iter().find(|(n, _)| n == name) {
            // A shared counter decides (the increments are never zero).
            return (e % d == 0).then(|| ok(e / d)).flatten();
        }
    }
    let (la, lb) = (work_len(single.0), work_len(multi.0));
    if la > 0 && lb % la == 0 {
        return ok((lb / la) as i128);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{Comparison, Inputs, Limits};
    use crate::ir::{FuncId, LabelId, Lang, LoopKind, Semantics};
    use crate::loops::shape::shape;
    use crate::value::Value;

    fn lower(src: &str) -> Program {
        crate::lang::lower(Lang::Java, src)
    }

    fn func(p: &Program) -> &Function {
        p.functions[0].body.as_ref().expect("lowers")
    }

    /// The shape as a body again: stretches and `while` loops in order.
    fn body_of(s: &Shape) -> Block {
        let mut out = Vec::new();
        for (k, seg) in s.segments.iter().enumerate() {
            out.extend(seg.iter().cloned());
            if let Some(lp) = s.loops.get(k) {
                out.push(Stmt {
                    kind: StmtKind::Loop {
                        label: LabelId(1_000_000 + k as u32),
                        kind: LoopKind::While,
                        cond: lp.cond.clone(),
                        body: lp.body.clone(),
                        step: Vec::new(),
                    },
                    span: lp.span,
                });
            }
        }
        out
    }

    /// Runs the original program and the rewritten shape on `inputs`
    /// (one argument list each) and requires the same observables.
    fn same_runs(p: &Program, rewritten: &Shape, inputs: &[Vec<i64>]) {
        let mut q = p.clone();
        if let Ok(f) = q.functions[0].body.as_mut() {
            f.body = body_of(rewritten);
        }
        for args in inputs {
            let inputs = Inputs {
                args: args.iter().map(|a| Value::int(*a)).collect(),
                globals: Default::default(),
                callees: Vec::new(),
            };
            let limits = Limits::default();
            let a = crate::interp::execute(
                p,
                FuncId(0),
                &inputs,
                Semantics::Math,
                Default::default(),
                &limits,
            );
            let b = crate::interp::execute(
                &q,
                FuncId(0),
                &inputs,
                Semantics::Math,
                Default::default(),
                &limits,
            );
            assert_eq!(
                crate::interp::compare(&a, &b, &[]),
                Comparison::Same,
                "inputs {args:?}: {:?} vs {:?}",
                a.outcome,
                b.outcome
            );
            assert_eq!(a.outcome, b.outcome);
        }
    }

    fn inputs2() -> Vec<Vec<i64>> {
        let mut v = Vec::new();
        for n in [-3, 0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17] {
            for k in [-1, 0, 1, 3, 6, 20] {
                v.push(vec![n, k]);
            }
        }
        v
    }

    const SUM: &str = "class A { int f(int n, int k) { int s = 0; int t = 1; int i = 0; \
                       while (i < n) { s = s + i * k; t = t + 2; i = i + 1; } return s + t; } }";

    #[test]
    fn splitting_keeps_the_meaning_for_any_guard() {
        let p = lower(SUM);
        let f = func(&p);
        let s = shape(f).expect("encodable");
        let q = lower(
            "class A { int f(int n, int k) { int i = 0; while (i < k) { i++; } return i; } }",
        );
        let g =
            translate(&func(&q).body_of_loop_cond(), (&q, func(&q)), (&p, f)).expect("same names");
        let split2 = split(&s, 0, std::slice::from_ref(&g)).expect("splits");
        assert_eq!(split2.loops.len(), 2);
        assert_eq!(split2.segments.len(), 3);
        assert!(split2.segments[1].is_empty());
        same_runs(&p, &split2, &inputs2());
        let split3 = split(&s, 0, &[g.clone(), g]).expect("splits");
        assert_eq!(split3.loops.len(), 3);
        same_runs(&p, &split3, &inputs2());
    }

    #[test]
    fn unrolling_after_a_split_keeps_the_meaning() {
        let p = lower(SUM);
        let f = func(&p);
        let s = shape(f).expect("encodable");
        let q = lower(
            "class A { int f(int n, int k) { int i = 0; while (i + 3 < n) { i += 4; } return i; } }",
        );
        let g =
            translate(&func(&q).body_of_loop_cond(), (&q, func(&q)), (&p, f)).expect("same names");
        let c = s.loops[0].cond.clone();
        for m in [2, 4, 8] {
            let sp = split(&s, 0, std::slice::from_ref(&g)).expect("splits");
            let un = unroll(&sp, 0, m, &c).expect("unrolls");
            assert_eq!(un.loops[0].body.len(), s.loops[0].body.len() + m - 1);
            same_runs(&p, &un, &inputs2());
            // Unrolled without a split, too.
            same_runs(&p, &unroll(&s, 0, m, &c).expect("unrolls"), &inputs2());
        }
        assert!(unroll(&s, 0, 1, &c).is_none());
    }

    #[test]
    fn a_phantom_loop_never_runs() {
        let p = lower(SUM);
        let s = shape(func(&p)).expect("encodable");
        let ph = phantom(&s, 1, 0, Span::default()).expect("inserted");
        assert_eq!(ph.loops.len(), 2);
        assert_eq!(ph.segments.len(), 3);
        same_runs(&p, &ph, &inputs2());
        assert!(phantom(&s, 5, 0, Span::default()).is_none());
        // The last-iteration candidate: split, the next iteration peeled,
        // an empty partner loop for the rest.
        let f = func(&p);
        let q = lower(
            "class A { int f(int n, int k) { int i = 0; while (i < n - 1) { i++; } return i; } }",
        );
        let g = translate(&func(&q).body_of_loop_cond(), (&q, func(&q)), (&p, f)).expect("names");
        let mut last = split(&s, 0, &[g]).expect("splits");
        assert!(last.peel(1));
        same_runs(&p, &last, &inputs2());
    }

    #[test]
    fn fission_into_three_keeps_the_meaning() {
        let p = lower(
            "class A { int f(int n, int k) { int s = 0; int t = 1; int u = k; int i = 0; \
             while (i < n) { s = s + i; t = t * 2 - i; if (u > 3) { u = u - 1; } i = i + 1; } \
             return s + t + u; } }",
        );
        let s = shape(func(&p)).expect("encodable");
        let fi = fission(&s, 0, &[1, 2], false).expect("legal");
        assert_eq!(fi.loops.len(), 3);
        same_runs(&p, &fi, &inputs2());
    }

    #[test]
    fn guards_that_may_fault_are_not_carried_over() {
        let p = lower(SUM);
        let q = lower(
            "class A { int f(int n, int k) { int i = 0; while (i < n / k) { i++; } return i; } }",
        );
        let e = translate(
            &func(&q).body_of_loop_cond(),
            (&q, func(&q)),
            (&p, func(&p)),
        )
        .expect_err("division");
        assert!(e.what.contains("fault"), "{}", e.what);
    }

    #[test]
    fn fission_of_independent_parts_keeps_the_meaning() {
        let p = lower(SUM);
        let f = func(&p);
        let s = shape(f).expect("encodable");
        assert_eq!(fission_cuts(&s.loops[0], 2), vec![vec![1]]);
        let fi = fission(&s, 0, &[1], false).expect("legal");
        assert_eq!(fi.loops.len(), 2);
        // The counter is reset between the loops.
        assert_eq!(fi.segments[1].len(), 1);
        same_runs(&p, &fi, &inputs2());
    }

    #[test]
    fn illegal_fissions_are_refused() {
        let refused = |src: &str, cuts: &[usize]| {
            let p = lower(src);
            let f = func(&p);
            let s = shape(f).expect("encodable");
            fission(&s, 0, cuts, false).expect_err("illegal").what
        };
        // B2 reads B1's scalar.
        let w = refused(
            "class A { int f(int n) { int s = 0; int t = 0; int i = 0; \
             while (i < n) { s = s + i; t = t + s; i++; } return t; } }",
            &[1],
        );
        assert!(w.contains("share"), "{w}");
        // B1 reads what B2 writes.
        refused(
            "class A { int f(int n) { int s = 0; int t = 0; int i = 0; \
             while (i < n) { s = s + t; t = t + i; i++; } return s; } }",
            &[1],
        );
        // A part writes the counter.
        let w = refused(
            "class A { int f(int n) { int s = 0; int t = 0; int i = 0; \
             while (i < n) { s = s + i; i = i + t; t = t + 1; i++; } return s; } }",
            &[1],
        );
        assert!(w.contains("counter") || w.contains("share"), "{w}");
        // A part may fault (division).
        let w = refused(
            "class A { int f(int n, int d) { int s = 0; int t = 0; int i = 0; \
             while (i < n) { s = s + 10 / d; t = t + 1; i++; } return s + t; } }",
            &[1],
        );
        assert!(w.contains("fault"), "{w}");
        // The counter's start value is changed after it is set.
        let w = refused(
            "class A { int f(int n, int k) { int s = 0; int t = 0; int i = k; k = k + 1; \
             while (i < n) { s = s + 1; t = t + 2; i++; } return s + t; } }",
            &[1],
        );
        assert!(w.contains("start value"), "{w}");
    }

    /// Where C's signed overflow is undefined a part may fault after all;
    /// the state at the fault is then observed only through globals.
    #[test]
    fn fission_writing_a_global_needs_defined_overflow() {
        let fissioned = |src: &str, overflow_undefined: bool| {
            let p = crate::lang::lower(Lang::C, src);
            let s = shape(func(&p)).expect("encodable");
            fission(&s, 0, &[1], overflow_undefined)
        };
        let global = "int g; int f(int n) { int s = 0; int i = 0; \
                      while (i < n) { s = s + i; g = g + 2; i++; } return s; }";
        let w = fissioned(global, true).expect_err("a global at the fault");
        assert!(w.what.contains("global"), "{}", w.what);
        assert!(fissioned(global, false).is_ok());
        let locals = "int f(int n) { int s = 0; int t = 0; int i = 0; \
                      while (i < n) { s = s + i; t = t + 2; i++; } return s - t; }";
        assert!(fissioned(locals, true).is_ok());
    }

    #[test]
    fn translation_is_by_name_and_refuses_what_it_cannot_map() {
        let p = lower(SUM);
        let q = lower("class A { int f(int m) { int j = 0; while (j < m) { j++; } return j; } }");
        let e = translate(
            &func(&q).body_of_loop_cond(),
            (&q, func(&q)),
            (&p, func(&p)),
        )
        .expect_err("no j in p");
        assert!(e.what.contains("missing"), "{}", e.what);
        let twice = lower(
            "class A { int f(int n) { int s = 0; for (int i = 0; i < n; i++) s++; \
             for (int i = 0; i < n; i++) s++; return s; } }",
        );
        let e = translate(
            &func(&p).body_of_loop_cond(),
            (&p, func(&p)),
            (&twice, func(&twice)),
        )
        .expect_err("two i");
        assert!(e.what.contains("more than once"), "{}", e.what);
    }

    #[test]
    fn unroll_factors_come_from_the_counter_steps() {
        let p = lower(SUM);
        let q = lower(
            "class A { int f(int n, int k) { int s = 0; int i = 0; \
             while (i + 3 < n) { s = s + i; i = i + 4; } return s; } }",
        );
        let (sp, sq) = (shape(func(&p)).expect("ok"), shape(func(&q)).expect("ok"));
        assert_eq!(
            unroll_factor((&sp.loops[0], func(&p)), (&sq.loops[0], func(&q))),
            Some(4)
        );
        assert_eq!(
            unroll_factor((&sq.loops[0], func(&q)), (&sp.loops[0], func(&p))),
            None
        );
    }

    trait FirstLoop {
        fn body_of_loop_cond(&self) -> Expr;
    }

    impl FirstLoop for Function {
        /// The condition of the function's first top-level loop.
        fn body_of_loop_cond(&self) -> Expr {
            shape(self).expect("encodable").loops[0].cond.clone()
        }
    }
}
