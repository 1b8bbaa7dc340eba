//! Small constructors of IR: boolean literals, `!`, `&&`, `||`, fresh
//! boolean flags and the statements over them, each with the span of the
//! code it stands for. Every expression built here is well typed (the
//! IR's invariants, see [`crate::ir`]), so a caller cannot get a `!` of an
//! integer or an `&&` typed other than `Bool`.

use super::{
    BinOp, Block, Expr, ExprKind, Function, Local, LocalId, LocalKind, Place, Span, Stmt, StmtKind,
    Type, UnOp,
};

/// A fresh boolean local `{prefix}N`, numbered in order of creation (so
/// both versions' flags pair up by name when their code does).
pub(crate) fn fresh_flag(f: &mut Function, prefix: &str, span: Span) -> LocalId {
    let id = LocalId(f.locals.len() as u32);
    let n = f
        .locals
        .iter()
        .filter(|l| l.kind == LocalKind::Temp && l.name.starts_with(prefix))
        .count();
    f.locals.push(Local {
        name: format!("{prefix}{}", n + 1),
        ty: Type::Bool,
        kind: LocalKind::Temp,
        span,
        text: false,
    });
    id
}

/// The value of the boolean local `l`.
pub(crate) fn read(l: LocalId, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Local(l),
        ty: Type::Bool,
        span,
    }
}

pub(crate) fn bool_lit(b: bool, span: Span) -> Expr {
    Expr {
        kind: ExprKind::BoolLit(b),
        ty: Type::Bool,
        span,
    }
}

pub(crate) fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
        ty: Type::Bool,
        span,
    }
}

/// `a && b` (lazy: `b` is evaluated only where `a` holds), at `b`'s span.
pub(crate) fn and(a: Expr, b: Expr) -> Expr {
    let span = b.span;
    and_at(a, b, span)
}

/// `a && b` at `span`.
pub(crate) fn and_at(a: Expr, b: Expr, span: Span) -> Expr {
    logical(BinOp::And, a, b, span)
}

/// `a || b` (lazy: `b` is evaluated only where `a` fails), at `b`'s span.
pub(crate) fn or(a: Expr, b: Expr) -> Expr {
    let span = b.span;
    logical(BinOp::Or, a, b, span)
}

fn logical(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: Type::Bool,
        span,
    }
}

/// `l = value`.
pub(crate) fn assign(l: LocalId, value: Expr, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            place: Place::Local(l),
            value,
        },
        span,
    }
}

/// `if (cond) { stmts }`.
pub(crate) fn under(cond: Expr, stmts: Block, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::If {
            cond,
            then_branch: stmts,
            else_branch: Vec::new(),
        },
        span,
    }
}
