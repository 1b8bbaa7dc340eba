//! The IR's invariants (module doc of [`crate::ir`]) checked on a lowered
//! program: every expression well typed with explicit conversions, every
//! condition `Bool`, every literal in its type's range, a non-empty span on
//! every statement and expression, labels unique within a function, every
//! `break` to an enclosing label and every `continue` to an enclosing loop,
//! call arguments and destinations of the callee's types, `return` values
//! of the function's type.
//!
//! Tests run it on every front end's output; the analyses rely on these
//! facts without checking them. Expressions are visited iteratively (they
//! can be deep); statements recursively (the front ends cap their nesting).

use super::{
    BinOp, Block, Expr, ExprKind, Function, IntTy, LabelId, Place, Program, Span, StmtKind, Type,
    UnOp,
};
use rustc_hash::FxHashSet;
use std::fmt;

/// One broken invariant: where (function and span) and what.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidationError {
    pub function: String,
    pub span: Span,
    pub violation: Violation,
}

/// What is wrong at a [`ValidationError`]'s span.
#[derive(Clone, Debug, PartialEq)]
pub enum Violation {
    /// A statement or expression whose span covers no text.
    EmptySpan { what: &'static str },
    /// Two types that the invariants say are equal differ: `what` names the
    /// pair (`"assignment"`, `"argument"`, `"operands of Add"`, …).
    TypeMismatch {
        what: String,
        expected: Type,
        found: Type,
    },
    /// An integer literal outside its type's range.
    LiteralOutOfRange { value: i128, ty: Type },
    /// A cast between equal types, to a non-numeric type, or from one
    /// other than a number or (to an integer) a `Bool`.
    BadCast { from: Type, to: Type },
    /// Indexing, a length or a `null` test of something that is no array.
    NotAnArray { found: Type },
    /// A literal of the wrong kind for its type (a float literal typed
    /// `int`).
    LiteralType { ty: Type },
    /// A call with a different number of arguments than the callee's
    /// parameters.
    Arity { expected: usize, found: usize },
    /// A label that two statements of the function declare.
    DuplicateLabel(LabelId),
    /// `break` to a label that does not enclose it.
    BreakOutside(LabelId),
    /// `continue` to a label that is no enclosing loop.
    ContinueOutside(LabelId),
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: ", self.function, self.span)?;
        match &self.violation {
            Violation::EmptySpan { what } => write!(f, "empty span on {what}"),
            Violation::TypeMismatch {
                what,
                expected,
                found,
            } => write!(f, "{what}: expected {expected}, found {found}"),
            Violation::LiteralOutOfRange { value, ty } => {
                write!(f, "literal {value} out of range of {ty}")
            }
            Violation::BadCast { from, to } => write!(f, "cast from {from} to {to}"),
            Violation::NotAnArray { found } => write!(f, "array operation on {found}"),
            Violation::LiteralType { ty } => write!(f, "literal of type {ty}"),
            Violation::Arity { expected, found } => {
                write!(f, "{found} arguments for {expected} parameters")
            }
            Violation::DuplicateLabel(l) => write!(f, "label {} declared twice", l.0),
            Violation::BreakOutside(l) => write!(f, "break to non-enclosing label {}", l.0),
            Violation::ContinueOutside(l) => write!(f, "continue to non-loop label {}", l.0),
        }
    }
}

/// Checks every lowered function of `p`; all broken invariants, in
/// function and source order.
pub fn validate(p: &Program) -> Result<(), Vec<ValidationError>> {
    let mut errors = Vec::new();
    for def in &p.functions {
        if let Ok(f) = &def.body
            && let Err(mut e) = validate_function(p, f)
        {
            errors.append(&mut e);
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Checks one function of `p` (calls are checked against `p`'s callees).
pub fn validate_function(p: &Program, f: &Function) -> Result<(), Vec<ValidationError>> {
    let mut v = Validator {
        p,
        f,
        labels: FxHashSet::default(),
        open: Vec::new(),
        errors: Vec::new(),
    };
    v.block(&f.body);
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Validator<'a> {
    p: &'a Program,
    f: &'a Function,
    labels: FxHashSet<LabelId>,
    /// Enclosing labels, innermost last, with whether each is a loop.
    open: Vec<(LabelId, bool)>,
    errors: Vec<ValidationError>,
}

impl Validator<'_> {
    fn error(&mut self, span: Span, violation: Violation) {
        self.errors.push(ValidationError {
            function: self.f.name.clone(),
            span,
            violation,
        });
    }

    fn same(&mut self, span: Span, what: impl Into<String>, expected: &Type, found: &Type) {
        if expected != found {
            self.error(
                span,
                Violation::TypeMismatch {
                    what: what.into(),
                    expected: expected.clone(),
                    found: found.clone(),
                },
            );
        }
    }

    fn span(&mut self, span: Span, what: &'static str) {
        if span.end.byte <= span.start.byte {
            self.error(span, Violation::EmptySpan { what });
        }
    }

    /// The type of `place`, its operands checked; `None` when it indexes
    /// something that is no array (reported).
    fn place(&mut self, pl: &Place, span: Span) -> Option<Type> {
        match pl {
            Place::Local(id) => Some(self.f.local(*id).ty.clone()),
            Place::Global(g) => Some(self.p.global(*g).ty.clone()),
            Place::Index { array, index } => {
                self.expr(array);
                self.expr(index);
                self.index(index.span, &index.ty);
                let elem = array.ty.elem().cloned();
                if elem.is_none() {
                    self.error(
                        span,
                        Violation::NotAnArray {
                            found: array.ty.clone(),
                        },
                    );
                }
                elem
            }
        }
    }

    /// An index is of an integer type (Java `int`, C `size_t` after the
    /// usual conversions).
    fn index(&mut self, span: Span, ty: &Type) {
        if !matches!(ty, Type::Int(_)) {
            self.error(
                span,
                Violation::TypeMismatch {
                    what: "index".into(),
                    expected: Type::INT,
                    found: ty.clone(),
                },
            );
        }
    }

    fn label(&mut self, label: LabelId, span: Span) {
        if !self.labels.insert(label) {
            self.error(span, Violation::DuplicateLabel(label));
        }
    }

    fn block(&mut self, b: &Block) {
        for s in b {
            self.span(s.span, "statement");
            match &s.kind {
                StmtKind::Assign { place, value } => {
                    self.expr(value);
                    if let Some(t) = self.place(place, s.span) {
                        self.same(s.span, "assignment", &t, &value.ty);
                    }
                }
                StmtKind::Call { dest, func, args } => {
                    args.iter().for_each(|a| self.expr(a));
                    let Ok(callee) = self.p.function(*func).body.as_ref() else {
                        continue;
                    };
                    if callee.params.len() != args.len() {
                        self.error(
                            s.span,
                            Violation::Arity {
                                expected: callee.params.len(),
                                found: args.len(),
                            },
                        );
                    }
                    for (a, pid) in args.iter().zip(&callee.params) {
                        self.same(a.span, "argument", &callee.local(*pid).ty, &a.ty);
                    }
                    if let Some(d) = dest
                        && let Some(t) = self.place(d, s.span)
                    {
                        self.same(s.span, "call destination", &callee.ret, &t);
                    }
                }
                StmtKind::External {
                    dest, args, ret, ..
                } => {
                    args.iter().for_each(|a| self.expr(a));
                    if let Some(d) = dest
                        && let Some(t) = self.place(d, s.span)
                    {
                        self.same(s.span, "external call destination", ret, &t);
                    }
                }
                StmtKind::Print { args, .. } => args.iter().for_each(|a| self.expr(a)),
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    self.cond(cond);
                    self.block(then_branch);
                    self.block(else_branch);
                }
                StmtKind::Loop {
                    label,
                    cond,
                    body,
                    step,
                    ..
                } => {
                    self.label(*label, s.span);
                    self.cond(cond);
                    self.open.push((*label, true));
                    self.block(body);
                    self.block(step);
                    self.open.pop();
                }
                StmtKind::Labeled { label, body } => {
                    self.label(*label, s.span);
                    self.open.push((*label, false));
                    self.block(body);
                    self.open.pop();
                }
                StmtKind::Break(l) => {
                    if !self.open.iter().any(|(x, _)| x == l) {
                        self.error(s.span, Violation::BreakOutside(*l));
                    }
                }
                StmtKind::Continue(l) => {
                    if !self.open.iter().any(|(x, is_loop)| x == l && *is_loop) {
                        self.error(s.span, Violation::ContinueOutside(*l));
                    }
                }
                StmtKind::Return(Some(e)) => {
                    self.expr(e);
                    self.same(e.span, "return value", &self.f.ret, &e.ty);
                }
                StmtKind::Return(None) => self.same(s.span, "return", &self.f.ret, &Type::Void),
                StmtKind::Block(b) => self.block(b),
                StmtKind::Throw(_) => {}
                StmtKind::Try { .. } => {
                    for b in s.child_blocks() {
                        self.block(b);
                    }
                }
            }
        }
    }

    fn cond(&mut self, c: &Expr) {
        self.expr(c);
        self.same(c.span, "condition", &Type::Bool, &c.ty);
    }

    /// Checks `e` and all its subexpressions, each against its direct
    /// operands' types.
    fn expr(&mut self, e: &Expr) {
        e.walk(&mut |x| self.node(x));
    }

    fn node(&mut self, e: &Expr) {
        self.span(e.span, "expression");
        let sp = e.span;
        match &e.kind {
            ExprKind::IntLit(v) => match e.ty {
                Type::Int(t) if in_range(*v, t) => {}
                Type::Int(_) => self.error(
                    sp,
                    Violation::LiteralOutOfRange {
                        value: *v,
                        ty: e.ty.clone(),
                    },
                ),
                _ => self.error(sp, Violation::LiteralType { ty: e.ty.clone() }),
            },
            ExprKind::FloatLit(_) => {
                if !matches!(e.ty, Type::Float(_)) {
                    self.error(sp, Violation::LiteralType { ty: e.ty.clone() });
                }
            }
            ExprKind::BoolLit(_) => self.same(sp, "boolean literal", &Type::Bool, &e.ty),
            ExprKind::StrLit(_) => self.same(sp, "string literal", &Type::Str, &e.ty),
            ExprKind::Local(id) => self.same(sp, "local", &self.f.local(*id).ty, &e.ty),
            ExprKind::Global(g) => self.same(sp, "global", &self.p.global(*g).ty, &e.ty),
            ExprKind::Unary(UnOp::Not, a) => {
                self.same(sp, "operand of !", &Type::Bool, &a.ty);
                self.same(sp, "!", &Type::Bool, &e.ty);
            }
            ExprKind::Unary(op, a) => self.same(sp, format!("operand of {op:?}"), &e.ty, &a.ty),
            ExprKind::Binary(op, a, b) => self.binary(e, *op, a, b),
            ExprKind::Cond(c, a, b) => {
                self.same(sp, "condition", &Type::Bool, &c.ty);
                self.same(sp, "then value", &e.ty, &a.ty);
                self.same(sp, "else value", &e.ty, &b.ty);
            }
            ExprKind::Cast(a) => {
                let from_ok =
                    a.ty.is_numeric() || (a.ty == Type::Bool && matches!(e.ty, Type::Int(_)));
                if !(from_ok && e.ty.is_numeric() && a.ty != e.ty) {
                    self.error(
                        sp,
                        Violation::BadCast {
                            from: a.ty.clone(),
                            to: e.ty.clone(),
                        },
                    );
                }
            }
            ExprKind::Index(a, i) => {
                self.index(sp, &i.ty);
                match a.ty.elem() {
                    Some(t) => self.same(sp, "element", t, &e.ty),
                    None => self.error(
                        sp,
                        Violation::NotAnArray {
                            found: a.ty.clone(),
                        },
                    ),
                }
            }
            ExprKind::Length(a) | ExprKind::IsNull(a) => {
                let ty = if matches!(e.kind, ExprKind::Length(_)) {
                    Type::INT
                } else {
                    Type::Bool
                };
                self.same(sp, "result", &ty, &e.ty);
                if a.ty.elem().is_none() {
                    self.error(
                        sp,
                        Violation::NotAnArray {
                            found: a.ty.clone(),
                        },
                    );
                }
            }
            ExprKind::NewArray(n) => self.same(sp, "array size", &Type::INT, &n.ty),
            ExprKind::ArrayLit(xs) => match e.ty.elem().cloned() {
                Some(t) => xs
                    .iter()
                    .for_each(|x| self.same(x.span, "element", &t, &x.ty)),
                None => self.error(
                    sp,
                    Violation::NotAnArray {
                        found: e.ty.clone(),
                    },
                ),
            },
            ExprKind::Intrinsic(..) => {}
        }
    }

    fn binary(&mut self, e: &Expr, op: BinOp, a: &Expr, b: &Expr) {
        let sp = e.span;
        match op {
            BinOp::Shl | BinOp::Shr | BinOp::UShr => {
                self.same(sp, format!("left operand of {op:?}"), &e.ty, &a.ty)
            }
            BinOp::And | BinOp::Or => {
                self.same(sp, format!("left operand of {op:?}"), &Type::Bool, &a.ty);
                self.same(sp, format!("right operand of {op:?}"), &Type::Bool, &b.ty);
            }
            _ if op.is_comparison() => {
                self.same(sp, format!("operands of {op:?}"), &a.ty, &b.ty);
                self.same(sp, format!("result of {op:?}"), &Type::Bool, &e.ty);
            }
            _ => {
                self.same(sp, format!("operands of {op:?}"), &a.ty, &b.ty);
                self.same(sp, format!("result of {op:?}"), &a.ty, &e.ty);
            }
        }
    }
}

/// Whether `v` is a value of the integer type `t` (widths above 64 bits
/// are checked as 64).
pub(crate) fn in_range(v: i128, t: IntTy) -> bool {
    let bits = u32::from(t.bits.clamp(1, 64));
    if t.signed {
        v >= -(1i128 << (bits - 1)) && v < (1i128 << (bits - 1))
    } else {
        v >= 0 && v < (1i128 << bits)
    }
}

/// Panics with every broken invariant and the program's text (for tests of
/// the front ends and passes).
#[cfg(test)]
pub(crate) fn assert_valid(p: &Program) {
    if let Err(errors) = validate(p) {
        panic!(
            "IR invariants broken:\n{}\n{}",
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
            super::print::program(p)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;

    #[test]
    fn accepts_lowered_code_and_names_a_broken_condition() {
        let mut p = crate::lang::lower(
            Lang::Java,
            "class A { int f(int a) { int s = 0; while (a > 0) { s += a; a--; } return s; } }",
        );
        assert_eq!(validate(&p), Ok(()));
        let Ok(f) = &mut p.functions[0].body else {
            panic!("f did not lower")
        };
        let Some(StmtKind::Loop { cond, .. }) = f
            .body
            .iter_mut()
            .map(|s| &mut s.kind)
            .find(|k| matches!(k, StmtKind::Loop { .. }))
        else {
            panic!("no loop")
        };
        cond.ty = Type::INT;
        let errors = validate(&p).expect_err("an int condition");
        assert!(
            errors.iter().any(|e| e.function == "f"
                && matches!(&e.violation, Violation::TypeMismatch { what, .. } if what == "condition")),
            "{errors:?}"
        );
    }
}
