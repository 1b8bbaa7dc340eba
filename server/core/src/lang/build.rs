//! IR-building pieces both front ends share: the meaning of operator tokens
//! and the shape of a loop whose condition needs lifted statements.

use crate::ir::make;
use crate::ir::{BinOp, Block, Expr, LabelId, Lang, LoopKind, Span, Stmt, StmtKind};

/// The binary operator a token denotes (`>>>` exists only in Java).
pub(super) fn binop_token(text: &str, lang: Lang) -> Option<BinOp> {
    Some(match text {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        ">>>" if lang == Lang::Java => BinOp::UShr,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "&&" => BinOp::And,
        "||" => BinOp::Or,
        _ => return None,
    })
}

/// A pre-tested loop. When the condition needs statements (`pre`), they must
/// run before every test, so it becomes `loop(true) { pre; if (!c) break;
/// body } step` — `continue` still runs `step` first.
pub(super) fn pre_tested_loop(
    label: LabelId,
    pre: Block,
    cond: Expr,
    body: Block,
    step: Block,
    span: Span,
) -> Stmt {
    let stmt = |kind, span| Stmt { kind, span };
    if pre.is_empty() {
        return stmt(
            StmtKind::Loop {
                label,
                kind: LoopKind::While,
                cond,
                body,
                step,
            },
            span,
        );
    }
    let cspan = cond.span;
    let not_cond = make::not(cond);
    let mut b = pre;
    b.push(stmt(
        StmtKind::If {
            cond: not_cond,
            then_branch: vec![stmt(StmtKind::Break(label), cspan)],
            else_branch: Vec::new(),
        },
        cspan,
    ));
    b.extend(body);
    let always = make::bool_lit(true, cspan);
    stmt(
        StmtKind::Loop {
            label,
            kind: LoopKind::While,
            cond: always,
            body: b,
            step,
        },
        span,
    )
}
