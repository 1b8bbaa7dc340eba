//! Locals that only name a constant, replaced by the constant.
//!
//! Refactorings often name a literal (`int loopVar = 2;` then
//! `for (im = 1; im <= loopVar; im++)`). Left as a local, the two versions'
//! IR differs exactly where a loop bound or a condition is, so the
//! statement differencing sees a changed loop that ARDiff cannot hide, and
//! the syntax identity fails. A local that is assigned once, by a
//! top-level statement of the body, from a constant (literals under
//! negation and casts: pure, fault-free), and never read before that
//! statement, has that constant's value at every read: substituting it is
//! exact under both semantics. The assignment is then dead and dropped.
//!
//! Runs on every lowered function, after the front ends and before any
//! checker, so that the differencing, the abstraction, the encodings and
//! the interpreter all see the same program.
//!
//! *Beside `constants`:* the loop checker's `constants` pass also takes
//! values computed from literals by operators that cannot fault, and keeps
//! the assignment; it runs on this pass's output, only in the loop
//! checker. They stay two passes because their outputs differ (see there).

use crate::ir::{Block, Expr, ExprKind, Function, LocalId, Place, Program, Stmt, StmtKind, UnOp};

/// Folds the constant locals of every function of `program`.
pub fn fold(program: &mut Program) {
    for f in &mut program.functions {
        if let Ok(body) = &mut f.body {
            fold_function(body);
        }
    }
}

fn fold_function(f: &mut Function) {
    // Candidates: top-level `local = constant` statements.
    let mut folds: Vec<(usize, LocalId, Expr)> = Vec::new();
    for (i, s) in f.body.iter().enumerate() {
        if let StmtKind::Assign {
            place: Place::Local(l),
            value,
        } = &s.kind
            && !f.params.contains(l)
            && is_constant(value)
            && value.ty == f.local(*l).ty
        {
            folds.push((i, *l, value.clone()));
        }
    }
    folds.retain(|(i, l, _)| {
        writes(&f.body, *l) == 1 && !f.body[..*i].iter().any(|s| reads_stmt(s, *l))
    });
    if folds.is_empty() {
        return;
    }
    for (_, l, value) in &folds {
        substitute_block(&mut f.body, *l, value);
    }
    let dead: Vec<usize> = folds.iter().map(|(i, _, _)| *i).collect();
    let mut index = 0;
    f.body.retain(|_| {
        let keep = !dead.contains(&index);
        index += 1;
        keep
    });
}

/// Literals, possibly negated or cast: no reads, no faults.
fn is_constant(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::IntLit(_) | ExprKind::FloatLit(_) | ExprKind::BoolLit(_) => true,
        ExprKind::Unary(UnOp::Neg, a) | ExprKind::Cast(a) => is_constant(a),
        _ => false,
    }
}

/// How many statements under `body` write local `l`.
fn writes(body: &Block, l: LocalId) -> usize {
    let mut count = 0;
    crate::ir::any_stmt(body, &mut |s| {
        if s.assigns_local(l) {
            count += 1;
        }
        false
    });
    count
}

/// Whether `s` (or a statement nested in it) reads local `l`.
fn reads_stmt(s: &Stmt, l: LocalId) -> bool {
    crate::ir::any_stmt(std::slice::from_ref(s), &mut |s| {
        s.exprs().into_iter().any(|e| {
            let mut found = false;
            e.walk(&mut |x| found |= x.kind == ExprKind::Local(l));
            found
        })
    })
}

fn substitute_block(body: &mut Block, l: LocalId, value: &Expr) {
    for s in body.iter_mut() {
        for e in s.exprs_mut() {
            substitute_expr(e, l, value);
        }
        for b in s.child_blocks_mut() {
            substitute_block(b, l, value);
        }
    }
}

fn substitute_expr(e: &mut Expr, l: LocalId, value: &Expr) {
    // Iterative: expressions from generated code can be deep.
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if e.kind == ExprKind::Local(l) {
            let span = e.span;
            *e = Expr {
                span,
                ..value.clone()
            };
            continue;
        }
        stack.extend(e.children_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, Local, LocalKind, Span, Type};

    fn local(i: u32) -> Expr {
        Expr {
            kind: ExprKind::Local(LocalId(i)),
            ty: Type::INT,
            span: Span::default(),
        }
    }

    fn int(v: i128) -> Expr {
        Expr {
            kind: ExprKind::IntLit(v),
            ty: Type::INT,
            span: Span::default(),
        }
    }

    fn assign(l: u32, value: Expr) -> Stmt {
        Stmt {
            kind: StmtKind::Assign {
                place: Place::Local(LocalId(l)),
                value,
            },
            span: Span::default(),
        }
    }

    fn function(body: Block) -> Function {
        Function {
            name: "f".into(),
            params: Vec::new(),
            locals: ["r", "m", "k"]
                .iter()
                .map(|n| Local {
                    name: n.to_string(),
                    ty: Type::INT,
                    kind: LocalKind::Var,
                    span: Span::default(),
                    text: false,
                })
                .collect(),
            ret: Type::INT,
            body,
            span: Span::default(),
            name_span: Span::default(),
        }
    }

    #[test]
    fn a_local_read_before_its_only_assignment_is_kept() {
        // r = m; m = 5; k = 7; return r + m + k  — m's first read sees its
        // entry value, not 5; k only names 7.
        let sum = Expr {
            kind: ExprKind::Binary(
                BinOp::Add,
                Box::new(Expr {
                    kind: ExprKind::Binary(BinOp::Add, Box::new(local(0)), Box::new(local(1))),
                    ty: Type::INT,
                    span: Span::default(),
                }),
                Box::new(local(2)),
            ),
            ty: Type::INT,
            span: Span::default(),
        };
        let ret = Stmt {
            kind: StmtKind::Return(Some(sum)),
            span: Span::default(),
        };
        let mut f = function(vec![
            assign(0, local(1)),
            assign(1, int(5)),
            assign(2, int(7)),
            ret,
        ]);
        fold_function(&mut f);
        assert_eq!(f.body.len(), 3, "only k = 7 is dropped: {:?}", f.body);
        assert_eq!(f.body[1], assign(1, int(5)));
        let StmtKind::Return(Some(e)) = &f.body[2].kind else {
            panic!("return expected");
        };
        let ExprKind::Binary(_, left, right) = &e.kind else {
            panic!("sum expected");
        };
        assert_eq!(**right, int(7));
        assert!(
            matches!(&left.kind, ExprKind::Binary(_, a, b) if **a == local(0) && **b == local(1))
        );
    }
}
