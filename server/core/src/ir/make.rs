//! Small constructors of IR for the rewriting passes (`hoist.rs`,
//! `jumps.rs`): fresh boolean flags and the statements and expressions
//! over them, with the span of the code they stand for.

use crate::ir::{
    BinOp, Block, Expr, ExprKind, Function, Local, LocalId, LocalKind, Place, Span, Stmt, StmtKind,
    Type, UnOp,
};

/// A fresh boolean local `{prefix}N`, numbered in order of creation (so
/// both versions' flags pair up by name when their code does).
pub(in crate::loops) fn fresh_flag(f: &mut Function, prefix: &str, span: Span) -> LocalId {
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
    });
    id
}

/// The value of the boolean local `l`.
pub(in crate::loops) fn read(l: LocalId, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Local(l),
        ty: Type::Bool,
        span,
    }
}

pub(in crate::loops) fn bool_lit(b: bool, span: Span) -> Expr {
    Expr {
        kind: ExprKind::BoolLit(b),
        ty: Type::Bool,
        span,
    }
}

pub(in crate::loops) fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
        ty: Type::Bool,
        span,
    }
}

/// `a && b` (lazy: `b` is evaluated only where `a` holds).
pub(in crate::loops) fn and(a: Expr, b: Expr) -> Expr {
    binary(BinOp::And, a, b)
}

/// `a || b` (lazy: `b` is evaluated only where `a` fails).
pub(in crate::loops) fn or(a: Expr, b: Expr) -> Expr {
    binary(BinOp::Or, a, b)
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = b.span;
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        ty: Type::Bool,
        span,
    }
}

/// `l = value`.
pub(in crate::loops) fn assign(l: LocalId, value: Expr, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            place: Place::Local(l),
            value,
        },
        span,
    }
}

/// `if (cond) { stmts }`.
pub(in crate::loops) fn under(cond: Expr, stmts: Block, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::If {
            cond,
            then_branch: stmts,
            else_branch: Vec::new(),
        },
        span,
    }
}
