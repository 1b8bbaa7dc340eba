//! A linear recursion as the loop that computes it, from its base case up.
//!
//! A method that recurses once per call on its own parameter minus one
//! (or plus one: everything below mirrored), every other argument passed
//! on unchanged,
//!
//! ```text
//! T f(…, n, …) { if (c1(n)) { B1; return e1; } …  t = f(…, n - 1, …); Q; return E; }
//! ```
//!
//! descends `n, n - 1, …` to the first value `m0` at which a base guard
//! holds, evaluates that base case there, and then, returning, applies
//! `Q; return E` once per level from `m0 + 1` up to `n`, each with the
//! result of the level below as `t`. The loop
//!
//! ```text
//! m = m0(n); if (c1(m)) { B1; acc = e1; } else …;
//! while (m < n) { m = m + 1; t = acc; Q[n := m]; acc = E[n := m]; }
//! return acc;
//! ```
//!
//! runs the same statements in the same order — the base case once, then
//! the levels bottom-up — so it has the same outcome, output, fault and
//! final state. What the recursion evaluates on the way down is only the
//! guards (which cannot fault: comparisons of `n` with literals and
//! parameters), operands spilled before the call (values of parameters
//! and literals that cannot fault, the same when the climb evaluates them
//! again; where their overflow is undefined it is so at either point) and
//! the argument `n - 1`, which the climb never needs:
//! `m0` is computed in closed form from the guards. For a base guard
//! `n <= c` the descent stops at `n` itself when it holds and at `c`
//! otherwise (a step of one cannot pass it); `n < c` is `n <= c - 1`; a
//! guard `n == p` with `p` a literal above the ray stops the descent at
//! `p` when `n ≥ p`. (Recursing on `n + 1`: the rays `n >= c`, `n > c`,
//! points below them, and the climb counts down.) So `m0 ≤ n` always,
//! and the climb `m < n` ends at `n` with no overflow (`m + 1 ≤ n`). The
//! pass requires a ray, so the descent always ends; guards without one
//! (`n == 0` alone, never reached from below) are refused.
//!
//! Then a pair of a recursion and a loop (or of two recursions) is a pair
//! of loops, which the lockstep encoding relates by an invariant — over
//! the two accumulators, typically `acc = r`, where the recursion rule
//! would need `loop(r, i) = r · f(n - i)`, a nonlinear summary.
//!
//! A tree recursion, with calls on `n - 1`, `n - 2`, … `n - K` at each
//! level (Fibonacci's), climbs the same way from the `K` base levels at
//! the bottom, keeping the last `K` results; see [`window`] for when that
//! is exact (pure levels, a base region without gaps).
//!
//! *Invariants:* only a body of that shape — base cases as `if`s whose
//! taken branch ends in its only `return` (code after an `if` whose
//! branches do not both return is copied into them), then the one recursive
//! call, after spills only, followed by statements that
//! do not return or recurse and a final `return`; no loop, label, jump or
//! exception anywhere; no parameter assigned; each level reads only
//! locals it wrote before (the climb's levels share a frame); `c - 1` of
//! a non-literal bound only where integers do not wrap (`c` may be the
//! least value).
//! Anything else leaves the program unchanged (`None`).

use crate::ir::make::assign;
use crate::ir::{
    BinOp, Block, Expr, ExprKind, FuncId, Function, Local, LocalId, LocalKind, LoopKind, Place,
    Program, Span, Stmt, StmtKind, Type, UnOp,
};

/// Base cases at most (guards and blocks).
const MAX_BASES: usize = 4;

/// The largest step of a recursive call (`f(n - 3)`) the climb keeps a
/// window of results for.
const MAX_STRIDE: i128 = 4;

/// `program` with `func`'s linear recursion replaced by its climb, or
/// `None` when `func` is not of that shape. `wraps`: integers wrap
/// (Java, or C with `-fwrapv`, under `machine`).
pub fn climbed(program: &Program, func: FuncId, wraps: bool) -> Option<Program> {
    let f = program.function(func).body.as_ref().ok()?;
    let climbed = climb(f, func, wraps)?;
    let mut p = program.clone();
    p.functions.get_mut(func.0 as usize)?.body = Ok(climbed);
    Some(p)
}

/// A base case: its guard and its block, whose last statement is its only
/// `return`.
struct Base {
    guard: Expr,
    block: Block,
}

fn climb(f: &Function, func: FuncId, wraps: bool) -> Option<Function> {
    let forbidden = |s: &Stmt| {
        matches!(
            s.kind,
            StmtKind::Loop { .. }
                | StmtKind::Labeled { .. }
                | StmtKind::Break(_)
                | StmtKind::Continue(_)
                | StmtKind::Throw(_)
                | StmtKind::Try { .. }
        ) || f.params.iter().any(|&p| s.assigns_local(p))
    };
    if crate::ir::any_stmt(&f.body, &mut |s| forbidden(s)) {
        return None;
    }
    let (bases, rec) = chain(flat(&f.body), func)?;
    if bases.is_empty() || bases.len() > MAX_BASES {
        return None;
    }
    if rec.iter().filter(|s| calls(s, func)).count() > 1 {
        return window(f, func, wraps, &bases, &rec);
    }
    // The recursive rest: operands spilled before the call (`tmp = b;`,
    // evaluated again on the way up, where they have the same value), the
    // call, then code that neither returns nor recurses, then the return.
    let spilled = rec.iter().take_while(|s| spill(f, s).is_some()).count();
    let (pre, rec) = rec.split_at(spilled);
    let (call, rest) = rec.split_first()?;
    let StmtKind::Call {
        dest: Some(Place::Local(t)),
        func: callee,
        args,
    } = &call.kind
    else {
        return None;
    };
    if *callee != func || args.len() != f.params.len() {
        return None;
    }
    let (ret, middle) = rest.split_last()?;
    let StmtKind::Return(Some(result)) = &ret.kind else {
        return None;
    };
    if middle.iter().any(|s| returns(s) || calls(s, func)) {
        return None;
    }
    // Each level reads only what it wrote itself: on the way up the
    // levels share one frame, so a local read before it is written would
    // see the level below's value instead of a fresh frame's.
    let mut written: Vec<LocalId> = f.params.clone();
    for s in pre.iter().chain(std::iter::once(call)).chain(middle) {
        if !reads_only(s, &written) {
            return None;
        }
        written.extend(s.assigned_local());
    }
    if !reads_only(ret, &written) {
        return None;
    }
    let (k, up, 1) = stepped(f, args)? else {
        return None;
    };
    let n = f.params[k];
    if f.params.contains(t) {
        return None;
    }
    let start = start(f, n, &bases, up, wraps)?;

    let mut out = f.clone();
    let ty = f.local(n).ty.clone();
    let span = f.span;
    let m = push_local(&mut out, &format!("{}$level", f.local(n).name), ty.clone());
    let acc = push_local(&mut out, "$acc", f.ret.clone());
    let read = |l: LocalId, ty: &Type| Expr {
        kind: ExprKind::Local(l),
        ty: ty.clone(),
        span,
    };
    let at_m = |e: &Expr| renamed(e, n, m);
    let mut body: Block = vec![assign(m, start, span)];
    // The base cases at `m0`: the first guard that holds picks one, as in
    // the recursion's last call.
    body.push(base_cases(&bases, n, m, acc, span)?);
    // The climb: one level per iteration, the level below's result as `t`.
    let mut step: Block = vec![next_level(m, &ty, up, span)];
    step.extend(pre.iter().map(|s| renamed_stmt(s, n, m)));
    step.push(assign(*t, read(acc, &f.ret), call.span));
    step.extend(middle.iter().map(|s| renamed_stmt(s, n, m)));
    step.push(assign(acc, at_m(result), ret.span));
    body.push(climb_loop(m, n, &ty, up, step, span));
    body.push(Stmt {
        kind: StmtKind::Return(Some(read(acc, &f.ret))),
        span: ret.span,
    });
    out.body = body;
    Some(out)
}

/// A recursion with several calls per level, on `n - d` for every `d` in
/// `1..=K` (a tree recursion such as Fibonacci's), as a climb that keeps
/// the results of the last `K` levels: `r0` the level below's, `r1` the
/// one below that, and so on.
///
/// The recursion evaluates a level many times, the climb once. That is
/// exact because every level is pure: besides the calls, a level only
/// assigns locals values that cannot fault (no division but by a nonzero
/// literal, no array, field or call), so evaluating it again, or in
/// another order, changes nothing; arithmetic overflow either wraps or is
/// undefined wherever it happens. And the climb evaluates exactly the
/// levels the recursion reaches: with the base region `n <= c` (a ray,
/// extended by literal points right above it), `n` itself when `n <= c`;
/// otherwise every level from `n` down to `c + 1` (each reached from the
/// one above through its call on `n - 1`) and, below them, the `K` base
/// levels `c - K + 1 ..= c`, which `c + 1`'s calls reach.
fn window(
    f: &Function,
    func: FuncId,
    wraps: bool,
    bases: &[Base],
    rec: &[Stmt],
) -> Option<Function> {
    let (ret, level) = rec.split_last()?;
    let StmtKind::Return(Some(result)) = &ret.kind else {
        return None;
    };
    let mut stepping: Option<(usize, bool)> = None;
    let mut strides: Vec<i128> = Vec::new();
    for s in level {
        match &s.kind {
            StmtKind::Call {
                dest: Some(Place::Local(t)),
                func: g,
                args,
            } if *g == func => {
                if args.len() != f.params.len() || f.params.contains(t) {
                    return None;
                }
                let (k, up, d) = stepped(f, args)?;
                if *stepping.get_or_insert((k, up)) != (k, up) {
                    return None;
                }
                strides.push(d);
            }
            _ if calm_stmt(s) => {}
            _ => return None,
        }
    }
    let (k, up) = stepping?;
    let depth = strides.iter().copied().max()?;
    if !(1..=depth).all(|d| strides.contains(&d)) || !calm(result) {
        return None;
    }
    // Levels share one frame in the climb: each reads only what it wrote.
    let mut written: Vec<LocalId> = f.params.clone();
    for s in level {
        if !reads_only(s, &written) {
            return None;
        }
        written.extend(s.assigned_local());
    }
    if !reads_only(ret, &written) {
        return None;
    }
    for base in bases {
        let (last, stmts) = base.block.split_last()?;
        let StmtKind::Return(Some(value)) = &last.kind else {
            return None;
        };
        let mut written: Vec<LocalId> = f.params.clone();
        for s in stmts {
            if !calm_stmt(s) || !reads_only(s, &written) {
                return None;
            }
            written.extend(s.assigned_local());
        }
        if !calm(&base.guard) || !calm(value) || !reads_only(last, &written) {
            return None;
        }
    }
    let n = f.params[k];
    let ty = f.local(n).ty.clone();
    let Type::Int(int) = &ty else {
        return None;
    };
    let end = region_end(f, n, bases, up, wraps)?;
    // The lowest level: `c - (K - 1)` (`+` climbing down).
    let below = depth - 1;
    let bottom = match &end.kind {
        _ if below == 0 => end.clone(),
        ExprKind::IntLit(c) => {
            let b = if up { c + below } else { c - below };
            crate::ir::validate::in_range(b, *int).then(|| Expr {
                kind: ExprKind::IntLit(b),
                ..end.clone()
            })?
        }
        // As the recursion's own `c + 1 - K` at level `c + 1`, which
        // wraps around to a level that never reaches the base region.
        _ if wraps => return None,
        _ => Expr {
            kind: ExprKind::Binary(
                if up { BinOp::Add } else { BinOp::Sub },
                Box::new(end.clone()),
                Box::new(Expr {
                    kind: ExprKind::IntLit(below),
                    ..end.clone()
                }),
            ),
            ..end.clone()
        },
    };

    let mut out = f.clone();
    let span = f.span;
    let m = push_local(&mut out, &format!("{}$level", f.local(n).name), ty.clone());
    let acc = push_local(&mut out, "$acc", f.ret.clone());
    let window: Vec<LocalId> = (0..depth)
        .map(|j| push_local(&mut out, &format!("$r{j}"), f.ret.clone()))
        .collect();
    let read = |l: LocalId, ty: &Type| Expr {
        kind: ExprKind::Local(l),
        ty: ty.clone(),
        span,
    };
    // Within the base region: the base case at `n`.
    let within = vec![
        assign(m, read(n, &ty), span),
        base_cases(bases, n, m, acc, span)?,
    ];
    // Beyond it: the `K` base levels from the bottom up, then the climb.
    let mut beyond = vec![assign(m, bottom, span)];
    for (j, &r) in window.iter().enumerate().rev() {
        if j + 1 < window.len() {
            beyond.push(next_level(m, &ty, up, span));
        }
        beyond.push(base_cases(bases, n, m, r, span)?);
    }
    let mut step: Block = vec![next_level(m, &ty, up, span)];
    for s in level {
        match &s.kind {
            StmtKind::Call {
                dest: Some(Place::Local(t)),
                args,
                ..
            } => {
                let (_, _, d) = stepped(f, args)?;
                let below = window.get(usize::try_from(d - 1).ok()?)?;
                step.push(assign(*t, read(*below, &f.ret), s.span));
            }
            _ => step.push(renamed_stmt(s, n, m)),
        }
    }
    for j in (1..window.len()).rev() {
        step.push(assign(window[j], read(window[j - 1], &f.ret), span));
    }
    step.push(assign(window[0], renamed(result, n, m), ret.span));
    beyond.push(climb_loop(m, n, &ty, up, step, span));
    beyond.push(assign(acc, read(window[0], &f.ret), span));
    let cmp = if up { BinOp::Ge } else { BinOp::Le };
    out.body = vec![
        Stmt {
            kind: StmtKind::If {
                cond: Expr {
                    kind: ExprKind::Binary(cmp, Box::new(read(n, &ty)), Box::new(end)),
                    ty: Type::Bool,
                    span,
                },
                then_branch: within,
                else_branch: beyond,
            },
            span,
        },
        Stmt {
            kind: StmtKind::Return(Some(read(acc, &f.ret))),
            span: ret.span,
        },
    ];
    Some(out)
}

/// The inclusive end `c` of the base region `n <= c` (`n >= c` upwards):
/// the one ray of the guards, extended by literal points that continue it
/// without a gap; `None` when the guards leave a gap or have no ray.
fn region_end(f: &Function, n: LocalId, bases: &[Base], up: bool, wraps: bool) -> Option<Expr> {
    let mut ray: Option<Expr> = None;
    let mut points: Vec<i128> = Vec::new();
    for base in bases {
        match stop(f, n, &base.guard, up, wraps)? {
            Stop::Ray(b) if ray.is_none() => ray = Some(b),
            Stop::Ray(_) => return None,
            Stop::Point(p) => points.push(p),
        }
    }
    let end = ray?;
    let ExprKind::IntLit(mut c) = end.kind else {
        return points.is_empty().then_some(end);
    };
    let by = if up { -1 } else { 1 };
    points.retain(|&p| if up { p < c } else { p > c });
    points.sort_unstable_by_key(|&p| p * by);
    points.dedup();
    for p in points {
        if p != c + by {
            return None;
        }
        c = p;
    }
    Some(Expr {
        kind: ExprKind::IntLit(c),
        ..end
    })
}

/// Whether `s` only assigns locals values that cannot fault ([`calm`]),
/// in nested `if`s and blocks at most.
fn calm_stmt(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Assign {
            place: Place::Local(_),
            value,
        } => calm(value),
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => calm(cond) && then_branch.iter().chain(else_branch).all(calm_stmt),
        StmtKind::Block(b) => b.iter().all(calm_stmt),
        _ => false,
    }
}

/// Whether `e` is arithmetic, comparisons and logic over literals,
/// locals and globals that cannot fault: integer division only by a
/// nonzero literal, no array, field or intrinsic. (Overflow wraps, or is
/// undefined wherever it happens.)
fn calm(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::IntLit(_)
        | ExprKind::FloatLit(_)
        | ExprKind::BoolLit(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_) => true,
        ExprKind::Unary(_, a) => calm(a),
        ExprKind::Cast(a) => e.ty.is_numeric() && a.ty.is_numeric() && calm(a),
        ExprKind::Cond(c, a, b) => calm(c) && calm(a) && calm(b),
        ExprKind::Binary(op, a, b) => {
            let divides = matches!(op, BinOp::Div | BinOp::Rem) && matches!(b.ty, Type::Int(_));
            (!divides || matches!(b.kind, ExprKind::IntLit(k) if k != 0)) && calm(a) && calm(b)
        }
        _ => false,
    }
}

/// `m = m + 1` (`m - 1` climbing down, `up`).
fn next_level(m: LocalId, ty: &Type, up: bool, span: Span) -> Stmt {
    let int = |kind| Expr {
        kind,
        ty: ty.clone(),
        span,
    };
    let next = int(ExprKind::Binary(
        if up { BinOp::Sub } else { BinOp::Add },
        Box::new(int(ExprKind::Local(m))),
        Box::new(int(ExprKind::IntLit(1))),
    ));
    assign(m, next, span)
}

/// `while (m < n) step` (`m > n` climbing down, `up`).
fn climb_loop(m: LocalId, n: LocalId, ty: &Type, up: bool, step: Block, span: Span) -> Stmt {
    let read = |l| Expr {
        kind: ExprKind::Local(l),
        ty: ty.clone(),
        span,
    };
    Stmt {
        kind: StmtKind::Loop {
            label: crate::ir::LabelId(0),
            kind: LoopKind::While,
            cond: Expr {
                kind: ExprKind::Binary(
                    if up { BinOp::Gt } else { BinOp::Lt },
                    Box::new(read(m)),
                    Box::new(read(n)),
                ),
                ty: Type::Bool,
                span,
            },
            body: step,
            step: Vec::new(),
        },
        span,
    }
}

/// The base cases evaluated at level `m` into `target`: the first guard
/// that holds picks its block, the last being the `else` (the caller
/// knows one of the guards holds at `m`).
fn base_cases(bases: &[Base], n: LocalId, m: LocalId, target: LocalId, span: Span) -> Option<Stmt> {
    let mut chain: Option<Stmt> = None;
    for (i, base) in bases.iter().enumerate().rev() {
        let (last, stmts) = base.block.split_last()?;
        let StmtKind::Return(Some(value)) = &last.kind else {
            return None;
        };
        let mut block: Block = stmts.iter().map(|s| renamed_stmt(s, n, m)).collect();
        block.push(assign(target, renamed(value, n, m), last.span));
        chain = Some(match chain {
            None if i + 1 == bases.len() => Stmt {
                kind: StmtKind::Block(block),
                span,
            },
            other => Stmt {
                kind: StmtKind::If {
                    cond: renamed(&base.guard, n, m),
                    then_branch: block,
                    else_branch: other.into_iter().collect(),
                },
                span,
            },
        });
    }
    chain
}

/// Whether `s` (nested statements included) reads no local but those of
/// `written`, and writes only locals outside it or assigns them first.
fn reads_only(s: &Stmt, written: &[LocalId]) -> bool {
    let mut ok = true;
    let mut check = |e: &Expr| {
        e.walk(&mut |e| {
            if let ExprKind::Local(l) = e.kind
                && !written.contains(&l)
            {
                ok = false;
            }
        })
    };
    for e in s.exprs() {
        check(e);
    }
    // Nested blocks: conservatively, no local they write counts as written
    // for the reads after them in the same block.
    for b in s.child_blocks() {
        let mut inner = written.to_vec();
        for t in b {
            if !reads_only(t, &inner) {
                return false;
            }
            inner.extend(t.assigned_local());
        }
    }
    ok
}

/// The local a statement `x = v` spills an operand into, where `v` reads
/// only parameters (never assigned) and literals and cannot fault
/// ([`calm`]): it has the same value wherever it is evaluated at one
/// level, so evaluating it on the way up instead of down changes nothing.
/// (Its overflow, where undefined, is undefined at either point, as the
/// faults of C levels are: one outcome.)
fn spill(f: &Function, s: &Stmt) -> Option<LocalId> {
    match &s.kind {
        StmtKind::Assign {
            place: Place::Local(x),
            value,
        } if !f.params.contains(x) && calm(value) && reads_params(f, value) => Some(*x),
        _ => None,
    }
}

/// Whether the only locals `e` reads are parameters.
fn reads_params(f: &Function, e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |e| match e.kind {
        ExprKind::Local(l) if !f.params.contains(&l) => ok = false,
        ExprKind::Global(_) => ok = false,
        _ => {}
    });
    ok
}

/// The body with nested blocks spliced in (locals are function-wide).
fn flat(body: &[Stmt]) -> Block {
    let mut out = Vec::new();
    for s in body {
        match &s.kind {
            StmtKind::Block(b) => out.extend(flat(b)),
            _ => out.push(s.clone()),
        }
    }
    out
}

/// The base cases in order and the recursive rest, or `None`.
fn chain(mut rest: Block, func: FuncId) -> Option<(Vec<Base>, Block)> {
    let mut bases = Vec::new();
    let mut copied = false;
    loop {
        let first = rest.first()?;
        let StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } = &first.kind
        else {
            return Some((bases, rest));
        };
        let (then_branch, else_branch) = (flat(then_branch), flat(else_branch));
        let tail = &rest[1..];
        let recursive = |b: &[Stmt]| b.iter().any(|s| calls(s, func));
        if !recursive(&then_branch) && ends_in_return(&then_branch) {
            bases.push(Base {
                guard: cond.clone(),
                block: then_branch,
            });
            rest = else_branch
                .into_iter()
                .chain(tail.iter().cloned())
                .collect();
        } else if !else_branch.is_empty()
            && !recursive(&else_branch)
            && ends_in_return(&else_branch)
        {
            bases.push(Base {
                guard: negated(cond),
                block: else_branch,
            });
            rest = then_branch
                .into_iter()
                .chain(tail.iter().cloned())
                .collect();
        } else if else_branch.is_empty()
            && !recursive(tail)
            && ends_in_return(tail)
            && recursive(&then_branch)
        {
            bases.push(Base {
                guard: negated(cond),
                block: tail.to_vec(),
            });
            rest = then_branch;
        } else if !copied && !tail.is_empty() && !recursive(tail) {
            // `if (c) { t = a; } else { t = g(…); } return t;`: the code
            // after the `if` runs after either branch.
            copied = true;
            let join = |b: Block| b.into_iter().chain(tail.iter().cloned()).collect();
            rest = vec![Stmt {
                kind: StmtKind::If {
                    cond: cond.clone(),
                    then_branch: join(then_branch),
                    else_branch: join(else_branch),
                },
                span: first.span,
            }];
            continue;
        } else {
            return None;
        }
        copied = false;
    }
}

/// Whether `block` ends in a `return` of a value and returns nowhere else.
fn ends_in_return(block: &[Stmt]) -> bool {
    match block.split_last() {
        Some((last, before)) => {
            matches!(last.kind, StmtKind::Return(Some(_))) && !before.iter().any(returns)
        }
        None => false,
    }
}

fn returns(s: &Stmt) -> bool {
    crate::ir::any_stmt(std::slice::from_ref(s), &mut |s| {
        matches!(s.kind, StmtKind::Return(_))
    })
}

fn calls(s: &Stmt, func: FuncId) -> bool {
    crate::ir::any_stmt(
        std::slice::from_ref(s),
        &mut |s| matches!(&s.kind, StmtKind::Call { func: g, .. } if *g == func),
    )
}

/// The position of the one parameter the call steps, whether up
/// (`n + d`), and by how much (`d`, from 1 to [`MAX_STRIDE`]), every
/// other argument being its own parameter.
fn stepped(f: &Function, args: &[Expr]) -> Option<(usize, bool, i128)> {
    let mut k = None;
    for (i, (a, &p)) in args.iter().zip(&f.params).enumerate() {
        if matches!(a.kind, ExprKind::Local(l) if l == p) {
            continue;
        }
        let ExprKind::Binary(op, x, y) = &a.kind else {
            return None;
        };
        let (ExprKind::Local(l), ExprKind::IntLit(d)) = (&x.kind, &y.kind) else {
            return None;
        };
        let d = match op {
            _ if *l != p => return None,
            BinOp::Sub => -*d,
            BinOp::Add => *d,
            _ => return None,
        };
        if d == 0 || d.abs() > MAX_STRIDE {
            return None;
        }
        if k.is_some() || !matches!(f.local(p).ty, Type::Int(_)) || a.ty != f.local(p).ty {
            return None;
        }
        k = Some((i, d > 0, d.abs()));
    }
    k
}

/// `!c`, with a comparison flipped rather than wrapped.
fn negated(c: &Expr) -> Expr {
    if let ExprKind::Binary(op, a, b) = &c.kind {
        let flipped = match op {
            BinOp::Lt => Some(BinOp::Ge),
            BinOp::Le => Some(BinOp::Gt),
            BinOp::Gt => Some(BinOp::Le),
            BinOp::Ge => Some(BinOp::Lt),
            BinOp::Eq => Some(BinOp::Ne),
            BinOp::Ne => Some(BinOp::Eq),
            _ => None,
        };
        if let Some(op) = flipped
            && matches!(a.ty, Type::Int(_))
        {
            return Expr {
                kind: ExprKind::Binary(op, a.clone(), b.clone()),
                ..c.clone()
            };
        }
    }
    if let ExprKind::Unary(UnOp::Not, inner) = &c.kind {
        return (**inner).clone();
    }
    crate::ir::make::not(c.clone())
}

/// A base guard on `n`: the ray `n <= bound` or the point `n == p`.
enum Stop {
    Ray(Expr),
    Point(i128),
}

/// The first level the descent from `n` reaches at which a base guard
/// holds, in closed form; `None` when the guards are not a ray below
/// (`n <= c`, `n < c`) and literal points above it.
fn start(f: &Function, n: LocalId, bases: &[Base], up: bool, wraps: bool) -> Option<Expr> {
    let mut ray: Option<Expr> = None;
    let mut points: Vec<i128> = Vec::new();
    for base in bases {
        match stop(f, n, &base.guard, up, wraps)? {
            Stop::Ray(b) => {
                if ray.is_some() {
                    return None;
                }
                ray = Some(b);
            }
            Stop::Point(p) => points.push(p),
        }
    }
    let bound = ray?;
    let ty = f.local(n).ty.clone();
    let span = bound.span;
    let read_n = Expr {
        kind: ExprKind::Local(n),
        ty: ty.clone(),
        span,
    };
    let cmp = |op: BinOp, a: Expr, b: Expr| Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: Type::Bool,
        span,
    };
    let cond = |c: Expr, a: Expr, b: Expr| Expr {
        kind: ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
        ty: ty.clone(),
        span,
    };
    let lit = |v: i128| Expr {
        kind: ExprKind::IntLit(v),
        ty: ty.clone(),
        span,
    };
    if !points.is_empty() {
        // Points are ordered against a literal ray only.
        let ExprKind::IntLit(c) = bound.kind else {
            return None;
        };
        points.retain(|&p| if up { p < c } else { p > c });
    }
    points.sort_unstable();
    points.dedup();
    if up {
        points.reverse();
    }
    // Past the ray: the nearest point the descent reaches first, else the
    // ray's end.
    let (toward, within) = if up {
        (BinOp::Le, BinOp::Ge)
    } else {
        (BinOp::Ge, BinOp::Le)
    };
    let mut beyond = bound.clone();
    for &p in &points {
        beyond = cond(cmp(toward, read_n.clone(), lit(p)), lit(p), beyond);
    }
    Some(cond(cmp(within, read_n.clone(), bound), read_n, beyond))
}

/// What `guard` stops the descent at (the ascent, `up`), if it is a
/// comparison of `n` with a bound that reads only parameters and literals.
fn stop(f: &Function, n: LocalId, guard: &Expr, up: bool, wraps: bool) -> Option<Stop> {
    let (op, other) = match &guard.kind {
        ExprKind::Binary(op, a, b) if matches!(a.kind, ExprKind::Local(l) if l == n) => (*op, &**b),
        ExprKind::Binary(op, a, b) if matches!(b.kind, ExprKind::Local(l) if l == n) => {
            let mirrored = match op {
                BinOp::Lt => BinOp::Gt,
                BinOp::Le => BinOp::Ge,
                BinOp::Gt => BinOp::Lt,
                BinOp::Ge => BinOp::Le,
                other => *other,
            };
            (mirrored, &**a)
        }
        _ => return None,
    };
    if other.ty != f.local(n).ty || !bound_expr(f, n, other) {
        return None;
    }
    let Type::Int(t) = &f.local(n).ty else {
        return None;
    };
    // The inclusive ray, its strict form (one step in), the points.
    let (inclusive, strict, by) = if up {
        (BinOp::Ge, BinOp::Gt, 1)
    } else {
        (BinOp::Le, BinOp::Lt, -1)
    };
    match (op, &other.kind) {
        (op, _) if op == inclusive => Some(Stop::Ray(other.clone())),
        (op, ExprKind::IntLit(c)) if op == strict => {
            let c = c.checked_add(by)?;
            crate::ir::validate::in_range(c, *t).then(|| {
                Stop::Ray(Expr {
                    kind: ExprKind::IntLit(c),
                    ..other.clone()
                })
            })
        }
        // `c ∓ 1` wraps where `c` is the least (greatest) value.
        (op, _) if op == strict && !wraps => Some(Stop::Ray(Expr {
            kind: ExprKind::Binary(
                if up { BinOp::Add } else { BinOp::Sub },
                Box::new(other.clone()),
                Box::new(Expr {
                    kind: ExprKind::IntLit(1),
                    ..other.clone()
                }),
            ),
            ..other.clone()
        })),
        (BinOp::Eq, ExprKind::IntLit(p)) => Some(Stop::Point(*p)),
        _ => None,
    }
}

/// Whether `e` reads only parameters other than `n` and literals, through
/// operations that cannot fault.
fn bound_expr(f: &Function, n: LocalId, e: &Expr) -> bool {
    match &e.kind {
        ExprKind::IntLit(_) => true,
        ExprKind::Local(l) => *l != n && f.params.contains(l),
        ExprKind::Unary(UnOp::Neg, a) | ExprKind::Cast(a) => bound_expr(f, n, a),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
            bound_expr(f, n, a) && bound_expr(f, n, b)
        }
        _ => false,
    }
}

fn push_local(f: &mut Function, name: &str, ty: Type) -> LocalId {
    let id = LocalId(f.locals.len() as u32);
    f.locals.push(Local {
        name: name.to_string(),
        ty,
        kind: LocalKind::Temp,
        span: f.span,
        text: false,
    });
    id
}

/// `e` with reads of `from` reading `to`.
fn renamed(e: &Expr, from: LocalId, to: LocalId) -> Expr {
    let mut e = e.clone();
    e.map_locals(&mut |l| if l == from { to } else { l });
    e
}

/// `s` with reads of `from` reading `to` (`from` is a parameter no
/// statement assigns).
fn renamed_stmt(s: &Stmt, from: LocalId, to: LocalId) -> Stmt {
    let mut s = s.clone();
    s.map_locals(&mut |l| if l == from { to } else { l });
    s
}
