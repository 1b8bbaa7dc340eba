//! Expressions: lowered to pure IR expressions, with side effects (
//! assignments, `++`/`--`, calls) lifted into statements in evaluation order.

use tree_sitter::Node;

use super::types::{self, is_arith, is_integer, promote, usual};
use super::{Fx, Res, kids};
use crate::ir::{
    BinOp, Block, Expr, ExprKind, FloatLit, FloatTy, IntTy, Intrinsic, LowerError, Place,
    PrintKind, Span, Stmt, StmtKind, Thrown, Type, UnOp,
};

fn mk(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span }
}

/// Element `index` of `array` as an assignable place, with its read.
pub(super) fn element_place(array: Expr, index: Expr, span: Span) -> (Place, Expr) {
    let ty = array.ty.elem().cloned().unwrap_or(Type::Void);
    let read = mk(
        ExprKind::Index(Box::new(array.clone()), Box::new(index.clone())),
        ty,
        span,
    );
    let place = Place::Index {
        array: Box::new(array),
        index: Box::new(index),
    };
    (place, read)
}

pub(super) fn int_lit(v: i128, t: IntTy, span: Span) -> Expr {
    mk(ExprKind::IntLit(v), Type::Int(t), span)
}

/// The zero of a scalar type (for `x != 0` and zero-initialisation).
pub(super) fn zero(ty: &Type, span: Span) -> Option<Expr> {
    Some(match ty {
        Type::Bool => mk(ExprKind::BoolLit(false), Type::Bool, span),
        Type::Int(i) => int_lit(0, *i, span),
        Type::Float(_) => mk(
            ExprKind::FloatLit(FloatLit {
                value: 0.0,
                text: String::new(),
            }),
            ty.clone(),
            span,
        ),
        _ => return None,
    })
}

/// Folds an integer constant expression (array sizes, case labels).
pub(super) fn const_int(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::IntLit(v) => Some(*v),
        ExprKind::BoolLit(b) => Some(i128::from(*b)),
        ExprKind::Cast(x) => {
            let v = const_int(x)?;
            match &e.ty {
                Type::Int(t) => Some(types::wrap(v, t)),
                Type::Bool => Some(i128::from(v != 0)),
                _ => None,
            }
        }
        ExprKind::Unary(UnOp::Neg, x) => const_int(x)?.checked_neg(),
        ExprKind::Unary(UnOp::BitNot, x) => Some(!const_int(x)?),
        ExprKind::Unary(UnOp::Not, x) => Some(i128::from(const_int(x)? == 0)),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (const_int(a)?, const_int(b)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div => a.checked_div(b),
                BinOp::Rem => a.checked_rem(b),
                BinOp::Shl => u32::try_from(b)
                    .ok()
                    .filter(|b| *b < 64)
                    .and_then(|b| a.checked_mul(1i128 << b)),
                BinOp::Shr => u32::try_from(b).ok().filter(|b| *b < 64).map(|b| a >> b),
                BinOp::BitAnd => Some(a & b),
                BinOp::BitOr => Some(a | b),
                BinOp::BitXor => Some(a ^ b),
                BinOp::Eq => Some(i128::from(a == b)),
                BinOp::Ne => Some(i128::from(a != b)),
                BinOp::Lt => Some(i128::from(a < b)),
                BinOp::Le => Some(i128::from(a <= b)),
                BinOp::Gt => Some(i128::from(a > b)),
                BinOp::Ge => Some(i128::from(a >= b)),
                BinOp::And => Some(i128::from(a != 0 && b != 0)),
                BinOp::Or => Some(i128::from(a != 0 || b != 0)),
                BinOp::UShr => None,
            }
            .and_then(|v| match &e.ty {
                Type::Int(t) if types::fits(v, t) => Some(v),
                Type::Bool => Some(v),
                _ => None,
            })
        }
        ExprKind::Cond(c, a, b) => {
            if const_int(c)? != 0 {
                const_int(a)
            } else {
                const_int(b)
            }
        }
        _ => None,
    }
}

/// GCC's bit-counting builtins (and POSIX `ffs`): what they count, and
/// the unsigned type their argument is taken as (`ffs` takes an `int`, but
/// its result depends on the bits alone).
#[derive(Clone, Copy, PartialEq)]
enum BitCount {
    /// `__builtin_clz`: leading zeros; undefined for 0.
    LeadingZeros,
    /// `__builtin_ctz`: trailing zeros; undefined for 0.
    TrailingZeros,
    /// `__builtin_popcount`: one bits.
    Ones,
    /// `__builtin_parity`: one bits mod 2.
    Parity,
    /// `__builtin_ffs`: one plus the index of the lowest one bit, 0 for 0.
    FirstSet,
}

fn bit_builtin(name: &str) -> Option<(BitCount, IntTy)> {
    let (base, suffix) = match name.strip_suffix("ll") {
        Some(b) => (b, IntTy::U64),
        None => match name.strip_suffix('l') {
            Some(b) => (b, IntTy::U64),
            None => (name, IntTy::U32),
        },
    };
    let kind = match base {
        "__builtin_clz" => BitCount::LeadingZeros,
        "__builtin_ctz" => BitCount::TrailingZeros,
        "__builtin_popcount" => BitCount::Ones,
        "__builtin_parity" => BitCount::Parity,
        "__builtin_ffs" | "ffs" => BitCount::FirstSet,
        _ => return None,
    };
    Some((kind, suffix))
}

/// The library functions that map onto intrinsics.
#[derive(Clone, Copy)]
enum Lib {
    /// `abs`, `labs`, `llabs`: argument converted to this integer type.
    IntAbs(IntTy),
    /// A `double` → `double` function.
    Unary(Intrinsic),
    /// A `(double, double)` → `double` function.
    Binary(Intrinsic),
    /// `fmin`/`fmax`: lowered to comparisons with C's NaN rule.
    MinMax { max: bool },
}

fn library(name: &str) -> Option<Lib> {
    use Intrinsic as I;
    Some(match name {
        "abs" => Lib::IntAbs(IntTy::I32),
        "labs" | "llabs" => Lib::IntAbs(IntTy::I64),
        "fabs" => Lib::Unary(I::Abs),
        "floor" => Lib::Unary(I::Floor),
        "ceil" => Lib::Unary(I::Ceil),
        "round" => Lib::Unary(I::RoundHalfAway),
        "sqrt" => Lib::Unary(I::Sqrt),
        "cbrt" => Lib::Unary(I::Cbrt),
        "exp" => Lib::Unary(I::Exp),
        "log" => Lib::Unary(I::Log),
        "log10" => Lib::Unary(I::Log10),
        "sin" => Lib::Unary(I::Sin),
        "cos" => Lib::Unary(I::Cos),
        "tan" => Lib::Unary(I::Tan),
        "asin" => Lib::Unary(I::Asin),
        "acos" => Lib::Unary(I::Acos),
        "atan" => Lib::Unary(I::Atan),
        "sinh" => Lib::Unary(I::Sinh),
        "cosh" => Lib::Unary(I::Cosh),
        "tanh" => Lib::Unary(I::Tanh),
        "pow" => Lib::Binary(I::Pow),
        "atan2" => Lib::Binary(I::Atan2),
        "hypot" => Lib::Binary(I::Hypot),
        "fmin" => Lib::MinMax { max: false },
        "fmax" => Lib::MinMax { max: true },
        _ => return None,
    })
}

/// Readable names for expression kinds we do not lower.
fn describe(kind: &str) -> String {
    match kind {
        "pointer_expression" => "pointer expression".into(),
        "field_expression" => "struct member access".into(),
        "compound_literal_expression" => "compound literal".into(),
        "string_literal" | "concatenated_string" => "string value".into(),
        "null" => "NULL pointer".into(),
        "alignof_expression" => "alignof".into(),
        "offsetof_expression" => "offsetof".into(),
        "generic_expression" => "_Generic selection".into(),
        "gnu_asm_expression" => "inline assembly".into(),
        "initializer_list" => "brace initialiser".into(),
        "compound_statement" => "statement expression".into(),
        other => other.replace('_', " "),
    }
}

impl<'t> Fx<'t> {
    /// Lowers an expression whose value is used. Statements it needs (in
    /// evaluation order) are appended to `out`.
    pub(super) fn expr(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        if self.depth >= super::MAX_DEPTH {
            return Err(self.unsup(n, "expression nested too deeply"));
        }
        self.depth += 1;
        let r = self.expr_inner(n, out);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        let span = self.sp(n);
        match n.kind() {
            "parenthesized_expression" => {
                let inner = kids(n)
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.unsup(n, "empty parentheses"))?;
                self.expr(inner, out)
            }
            "number_literal" => self.number(n),
            "char_literal" => {
                let v = types::char_literal(self.text(n)).map_err(|w| self.unsup(n, w))?;
                Ok(int_lit(v, IntTy::I32, span))
            }
            "true" => Ok(mk(ExprKind::BoolLit(true), Type::Bool, span)),
            "false" => Ok(mk(ExprKind::BoolLit(false), Type::Bool, span)),
            "identifier" => self.ident(n, out),
            "unary_expression" => self.unary(n, out),
            "binary_expression" => self.binary(n, out),
            "assignment_expression" => Ok(self
                .assign(n, out, true)?
                .unwrap_or_else(|| int_lit(0, IntTy::I32, span))),
            "update_expression" => Ok(self
                .update(n, out, true)?
                .unwrap_or_else(|| int_lit(0, IntTy::I32, span))),
            "conditional_expression" => self.conditional(n, out),
            "comma_expression" => {
                self.effect(self.field(n, "left")?, out)?;
                self.expr(self.field(n, "right")?, out)
            }
            "cast_expression" if self.is_misparsed_cast(n) => self.misparsed_cast(n, out),
            "cast_expression" => {
                let ty = self.type_descriptor(self.field(n, "type")?)?;
                let e = self.expr(self.field(n, "value")?, out)?;
                if ty == Type::Void {
                    return Err(self.unsup(n, "use of a void value"));
                }
                if matches!(e.ty, Type::Array(_)) || matches!(ty, Type::Array(_)) {
                    return Err(self.unsup(n, "pointer cast"));
                }
                self.convert(e, &ty, span)
            }
            "call_expression" => match self.call(n, out, true)? {
                Some(e) => Ok(e),
                None => Err(self.unsup(n, "use of a void value")),
            },
            "subscript_expression" if self.walks_pointer(n) => self.deref_value(n, out),
            "subscript_expression" => {
                let (array, index) = self.subscript(n, out)?;
                let ty = array.ty.elem().cloned().unwrap_or(Type::Void);
                Ok(mk(
                    ExprKind::Index(Box::new(array), Box::new(index)),
                    ty,
                    span,
                ))
            }
            "sizeof_expression" => self.size_of(n),
            "field_expression" => match self.member(n)? {
                Some(super::structs::Member::Scalar(place, ty)) => {
                    Ok(self.read_place(&place, &ty, span))
                }
                Some(super::structs::Member::Whole(_)) => {
                    Err(self.unsup(n, "struct value used as a number"))
                }
                None => self.member_of_value(n, out),
            },
            "pointer_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                if op == "&" {
                    Err(self.unsup(n, "address-of operator"))
                } else {
                    self.deref_value(n, out)
                }
            }
            "ERROR" => Err(LowerError {
                kind: crate::ir::LowerErrorKind::SyntaxError,
                what: "syntax error".into(),
                span,
            }),
            other => Err(self.unsup(n, describe(other))),
        }
    }

    /// Lowers an expression as a condition (type `Bool`): `x` becomes
    /// `x != 0`.
    pub(super) fn cond(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        if let Some(test) = self.null_test(n) {
            return Ok(test);
        }
        let e = self.expr(n, out)?;
        self.to_bool(e)
    }

    pub(super) fn to_bool(&self, e: Expr) -> Res<Expr> {
        let span = e.span;
        match &e.ty {
            Type::Bool => Ok(e),
            Type::Int(_) | Type::Float(_) => {
                let z = zero(&e.ty, span).ok_or_else(|| super::unsupported(span, "condition"))?;
                Ok(mk(
                    ExprKind::Binary(BinOp::Ne, Box::new(e), Box::new(z)),
                    Type::Bool,
                    span,
                ))
            }
            Type::Array(_) => Err(super::unsupported(span, "pointer used as a condition")),
            _ => Err(super::unsupported(span, "non-scalar condition")),
        }
    }

    /// Lowers an expression whose value is discarded (expression statements,
    /// `for` updates, the left of a comma).
    pub(super) fn effect(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        let span = self.sp(n);
        match n.kind() {
            "assignment_expression" => self.assign(n, out, false).map(|_| ()),
            "update_expression" => self.update(n, out, false).map(|_| ()),
            "call_expression" => self.call(n, out, false).map(|_| ()),
            "comma_expression" => {
                self.effect(self.field(n, "left")?, out)?;
                self.effect(self.field(n, "right")?, out)
            }
            "parenthesized_expression"
                if kids(n).first().map(|k| k.kind()) != Some("compound_statement") =>
            {
                let inner = kids(n)
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.unsup(n, "empty parentheses"))?;
                self.effect(inner, out)
            }
            "conditional_expression" => {
                let c = self.cond(self.field(n, "condition")?, out)?;
                let mut a = Vec::new();
                let mut b = Vec::new();
                self.effect(self.field(n, "consequence")?, &mut a)?;
                self.effect(self.field(n, "alternative")?, &mut b)?;
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond: c,
                        then_branch: a,
                        else_branch: b,
                    },
                    span,
                });
                Ok(())
            }
            "cast_expression" if self.is_misparsed_cast(n) => {
                let e = self.misparsed_cast(n, out)?;
                self.keep_faults(e, out);
                Ok(())
            }
            "cast_expression" => {
                let ty = self.type_descriptor(self.field(n, "type")?)?;
                if ty == Type::Void {
                    return self.effect(self.field(n, "value")?, out);
                }
                let e = self.expr(n, out)?;
                self.keep_faults(e, out);
                Ok(())
            }
            _ => {
                let e = self.expr(n, out)?;
                self.keep_faults(e, out);
                Ok(())
            }
        }
    }

    /// A discarded value that may still fault (`x / y;`) is evaluated into a
    /// temporary so the fault is kept.
    fn keep_faults(&mut self, e: Expr, out: &mut Block) {
        if !matches!(
            e.kind,
            ExprKind::IntLit(_)
                | ExprKind::FloatLit(_)
                | ExprKind::BoolLit(_)
                | ExprKind::Local(_)
                | ExprKind::Global(_)
        ) {
            self.fun.temp_of(e, out);
        }
    }

    /// Lowers several operands left to right. When a later operand needs
    /// statements, earlier values are spilled to temporaries first so they
    /// are read before those side effects.
    pub(super) fn operands(&mut self, nodes: &[Node<'t>], out: &mut Block) -> Res<Vec<Expr>> {
        let mut vals: Vec<Expr> = Vec::with_capacity(nodes.len());
        for n in nodes {
            let mut b = Vec::new();
            let e = self.expr(*n, &mut b)?;
            self.fun.keep_before(&mut vals, b, out);
            vals.push(e);
        }
        Ok(vals)
    }

    fn number(&self, n: Node) -> Res<Expr> {
        let text = self.text(n);
        let span = self.sp(n);
        // tree-sitter-c folds a leading sign into the literal (`-1000`); it
        // is still the unary operator applied to the constant.
        if let Some(rest) = text.strip_prefix('-') {
            let e = self.number_text(rest.trim_start(), span, n)?;
            return self.negate(e, span);
        }
        let text = text.strip_prefix('+').unwrap_or(text).trim_start();
        self.number_text(text, span, n)
    }

    fn number_text(&self, text: &str, span: Span, n: Node) -> Res<Expr> {
        if types::is_float_literal(text) {
            let (value, ty, text) = types::float_literal(text).map_err(|w| self.unsup(n, w))?;
            Ok(mk(
                ExprKind::FloatLit(FloatLit { value, text }),
                Type::Float(ty),
                span,
            ))
        } else {
            let (v, ty) = types::int_literal(text).map_err(|w| self.unsup(n, w))?;
            Ok(int_lit(v, ty, span))
        }
    }

    fn ident(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        let name = self.text(n);
        let span = self.sp(n);
        if let Some(m) = self.file.macros.get(name) {
            return self.expand_macro(n, name, m, out);
        }
        if let Some(id) = self.fun.lookup(name) {
            return Ok(self.fun.local_expr(id, span));
        }
        if let Some(super::structs::Binding::Cursor { .. }) = self.fun.binding(name) {
            return Err(self.unsup(
                n,
                format!(
                    "moved pointer {name} used as a value (followed: *{name}, {name}[i], \
                     {name} ± n, and differences and comparisons of pointers into one array)"
                ),
            ));
        }
        if self.member(n)?.is_some() {
            return Err(self.unsup(n, format!("struct {name} used as a number")));
        }
        let static_local = match self.fun.binding(name) {
            Some(super::structs::Binding::Static(g)) => Some(g),
            _ => None,
        };
        if static_local.is_none()
            && let Some(v) = self.file.enum_consts.get(name)
        {
            return Ok(int_lit(*v, IntTy::I32, span));
        }
        // Checked where the enum is declared (`local_enum`): no constant
        // of the file nor a variable in scope has the name.
        match self.file.local_enum_consts.get(name) {
            Some(Some(v)) if static_local.is_none() => return Ok(int_lit(*v, IntTy::I32, span)),
            Some(None) => {
                return Err(self.unsup(
                    n,
                    format!("enumerator {name}, given different values by enums of two functions"),
                ));
            }
            _ => {}
        }
        if let Some(g) = static_local.or_else(|| self.file.global_map.get(name)) {
            let ty = self
                .file
                .globals
                .get(g.0 as usize)
                .map(|g| g.ty.clone())
                .unwrap_or(Type::Void);
            return Ok(mk(ExprKind::Global(*g), ty, span));
        }
        if self.file.fn_map.contains_key(name) {
            return Err(self.unsup(n, format!("function {name} used as a value")));
        }
        if let Some(why) = self.file.bad_globals.get(name) {
            return Err(self.unsup(n, format!("global {name} of unsupported type ({why})")));
        }
        Err(self.unsup(n, format!("unknown identifier {name}")))
    }

    fn is_misparsed_cast(&self, n: Node) -> bool {
        self.span_override.is_none() && self.file.reparsed_casts.contains_key(&n.start_byte())
    }

    /// `(f(x)) * y`, parsed as a cast: lowered as the multiplication.
    fn misparsed_cast(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        let span = self.sp(n);
        let tnode = self.field(n, "type")?;
        let m = self
            .file
            .reparsed_casts
            .get(&n.start_byte())
            .ok_or_else(|| self.unsup(n, "cast"))?;
        let body = m
            .expr()
            .ok_or_else(|| self.unsup(tnode, "cast to an unknown type"))?;
        let left = self.foreign(m, body, super::span_of(tnode), out)?;
        let arg = self.field(self.field(n, "value")?, "argument")?;
        let mut rb = Vec::new();
        let right = self.expr(arg, &mut rb)?;
        let left = if rb.is_empty() {
            left
        } else {
            self.fun.spill(left, out)
        };
        out.extend(rb);
        self.arith(BinOp::Mul, left, right, span)
    }

    /// Lowers `body`, a node of the separately parsed text of `m`, with every
    /// span set to `span` (the place it stands for in the file).
    fn foreign(
        &mut self,
        m: &'t super::Macro,
        body: Node<'t>,
        span: Span,
        out: &mut Block,
    ) -> Res<Expr> {
        self.in_text_of(m, span, |fx| fx.expr(body, out))
    }

    /// Runs `lower` on nodes of `m`'s separately parsed text, with every
    /// span set to `span` (the place it stands for in the file; an outer
    /// expansion's place wins).
    fn in_text_of<R>(
        &mut self,
        m: &'t super::Macro,
        span: Span,
        lower: impl FnOnce(&mut Self) -> R,
    ) -> R {
        let saved_src = self.src;
        let saved_span = self.span_override;
        self.src = &m.text;
        self.span_override = Some(saved_span.unwrap_or(span));
        let r = lower(self);
        self.src = saved_src;
        self.span_override = saved_span;
        r
    }

    /// A use of a function-like macro: its expansion (see `fn_macro.rs`)
    /// lowered where the use stands — an expression like an object-like
    /// macro's body, or statements (`do { ... } while (0)`) where the use
    /// is a statement.
    fn fn_macro_use(
        &mut self,
        n: Node<'t>,
        f: Node<'t>,
        name: &str,
        out: &mut Block,
        want: bool,
    ) -> Res<Option<Expr>> {
        let file = self.file;
        // Uses inside an expansion were expanded with it; one left there
        // could not be (its arguments did not split).
        let found = match self.span_override {
            None => file.macro_calls.get(&n.start_byte()),
            Some(_) => None,
        };
        let m = match found {
            Some(Ok(m)) => m,
            Some(Err(why)) => return Err(self.unsup(f, why.clone())),
            None => return Err(self.unsup(f, format!("function-like macro {name}"))),
        };
        if m.expr().is_some() {
            return self.expand_macro(n, name, m, out).map(Some);
        }
        if want {
            return Err(self.unsup(
                n,
                format!("macro {name}, whose body is not an expression, used as a value"),
            ));
        }
        let stmts = m.statements().ok_or_else(|| {
            self.unsup(n, format!("macro {name}, whose expansion does not parse"))
        })?;
        self.expanding.push(name.to_string());
        let r = self.in_text_of(m, super::span_of(n), |fx| {
            stmts.into_iter().try_for_each(|s| fx.stmt(s, out))
        });
        self.expanding.pop();
        r.map(|()| None)
    }

    /// Lowers the body of an object-like macro where it is used.
    fn expand_macro(
        &mut self,
        n: Node<'t>,
        name: &str,
        m: &'t super::Macro,
        out: &mut Block,
    ) -> Res<Expr> {
        if self.expanding.iter().any(|x| x == name) || self.expanding.len() > 32 {
            return Err(self.unsup(n, format!("recursive macro {name}")));
        }
        let body = m.expr().ok_or_else(|| {
            self.unsup(n, format!("macro {name} whose body is not an expression"))
        })?;
        // Primary expressions paste safely anywhere; unary-level ones (`-1`,
        // `(double)1`, `f(x)`) anywhere but as the operand of a postfix
        // operator.
        let primary = matches!(
            body.kind(),
            "number_literal"
                | "char_literal"
                | "identifier"
                | "parenthesized_expression"
                | "true"
                | "false"
        );
        let unary_level = matches!(
            body.kind(),
            "unary_expression"
                | "cast_expression"
                | "call_expression"
                | "sizeof_expression"
                | "subscript_expression"
        ) && !n.parent().is_some_and(|p| {
            matches!(
                p.kind(),
                "subscript_expression"
                    | "call_expression"
                    | "field_expression"
                    | "update_expression"
            )
        });
        let atomic = primary || unary_level;
        if !atomic && !self.precedence_safe(n) {
            return Err(self.unsup(
                n,
                format!("macro {name} with an unparenthesised body used inside an operator"),
            ));
        }
        self.expanding.push(name.to_string());
        let r = self.foreign(m, body, super::span_of(n), out);
        self.expanding.pop();
        r
    }

    /// Whether a macro pasted at `n` is a whole operand whose meaning cannot
    /// depend on the precedence of its body.
    fn precedence_safe(&self, n: Node) -> bool {
        let Some(p) = n.parent() else { return false };
        let is = |field: &str| p.child_by_field_name(field).map(|c| c.id()) == Some(n.id());
        match p.kind() {
            "parenthesized_expression"
            | "argument_list"
            | "return_statement"
            | "expression_statement"
            | "initializer_list"
            | "case_statement"
            | "array_declarator" => true,
            "init_declarator" => is("value"),
            "assignment_expression" => is("right"),
            "subscript_expression" => is("index"),
            "conditional_expression" => is("consequence") || is("alternative"),
            _ => false,
        }
    }

    fn unary(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        let span = self.sp(n);
        let op = self.text(self.field(n, "operator")?);
        let arg = self.field(n, "argument")?;
        if op == "!" {
            let c = self.cond(arg, out)?;
            return Ok(mk(
                ExprKind::Unary(UnOp::Not, Box::new(c)),
                Type::Bool,
                span,
            ));
        }
        let e = self.expr(arg, out)?;
        if !is_arith(&e.ty) {
            return Err(self.unsup(n, format!("unary {op} on a pointer")));
        }
        let ty = promote(&e.ty);
        if op == "~" && !is_integer(&e.ty) {
            return Err(self.unsup(n, "~ on a floating-point operand"));
        }
        let e = self.convert(e, &ty, span)?;
        match op {
            "+" => Ok(e),
            "-" => self.negate(e, span),
            "~" => Ok(mk(ExprKind::Unary(UnOp::BitNot, Box::new(e)), ty, span)),
            _ => Err(self.unsup(n, format!("operator {op}"))),
        }
    }

    /// `-e` on a promoted operand; `-literal` is folded when in range so
    /// that constants read naturally.
    fn negate(&self, e: Expr, span: Span) -> Res<Expr> {
        let ty = promote(&e.ty);
        let e = self.convert(e, &ty, span)?;
        if let (ExprKind::IntLit(v), Type::Int(t)) = (&e.kind, &ty)
            && types::fits(-v, t)
        {
            return Ok(int_lit(-v, *t, span));
        }
        Ok(mk(ExprKind::Unary(UnOp::Neg, Box::new(e)), ty, span))
    }

    fn binary(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        let span = self.sp(n);
        let op = self.text(self.field(n, "operator")?);
        let (left, right) = (self.field(n, "left")?, self.field(n, "right")?);
        if op == "&&" || op == "||" {
            return self.logical(op == "&&", left, right, span, out);
        }
        if let Some(test) = self.null_test(n) {
            return Ok(test);
        }
        let bop = crate::lang::lower::binop_token(op, crate::ir::Lang::C)
            .ok_or_else(|| self.unsup(n, format!("operator {op}")))?;
        if (bop == BinOp::Sub || bop.is_comparison())
            && self.is_pointer(left)
            && self.is_pointer(right)
        {
            return self.pointer_pair(bop, left, right, out);
        }
        let mut v = self.operands(&[left, right], out)?;
        let (Some(r), Some(l)) = (v.pop(), v.pop()) else {
            return Err(self.unsup(n, "binary expression"));
        };
        self.arith(bop, l, r, span)
    }

    /// `l op r` with C's conversions; operands are pure.
    pub(super) fn arith(&self, op: BinOp, l: Expr, r: Expr, span: Span) -> Res<Expr> {
        if !is_arith(&l.ty) || !is_arith(&r.ty) {
            let what = if matches!(l.ty, Type::Array(_)) || matches!(r.ty, Type::Array(_)) {
                if op.is_comparison() {
                    "pointer comparison"
                } else {
                    "pointer arithmetic"
                }
            } else {
                "operator on non-arithmetic operands"
            };
            return Err(super::unsupported(span, what));
        }
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            if !is_integer(&l.ty) || !is_integer(&r.ty) {
                return Err(super::unsupported(
                    span,
                    "shift of a floating-point operand",
                ));
            }
            let (lt, rt) = (promote(&l.ty), promote(&r.ty));
            let l = self.convert(l, &lt, span)?;
            let r = self.convert(r, &rt, span)?;
            return Ok(mk(ExprKind::Binary(op, Box::new(l), Box::new(r)), lt, span));
        }
        let ty = usual(&l.ty, &r.ty).ok_or_else(|| super::unsupported(span, "operands"))?;
        if matches!(
            op,
            BinOp::Rem | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
        ) && !is_integer(&ty)
        {
            return Err(super::unsupported(
                span,
                "integer operator on floating-point operands",
            ));
        }
        let l = self.convert(l, &ty, span)?;
        let r = self.convert(r, &ty, span)?;
        let rty = if op.is_comparison() { Type::Bool } else { ty };
        Ok(mk(
            ExprKind::Binary(op, Box::new(l), Box::new(r)),
            rty,
            span,
        ))
    }

    /// `a && b`, `a || b`: lazy. When `b` needs statements they run only
    /// when `b` is evaluated, inside an `If` that sets a temporary.
    fn logical(
        &mut self,
        and: bool,
        left: Node<'t>,
        right: Node<'t>,
        span: Span,
        out: &mut Block,
    ) -> Res<Expr> {
        let l = self.cond(left, out)?;
        let mut rb = Vec::new();
        let r = self.cond(right, &mut rb)?;
        let op = if and { BinOp::And } else { BinOp::Or };
        Ok(self.fun.logical(op, l, r, rb, span, out))
    }

    fn conditional(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        let span = self.sp(n);
        let c = self.cond(self.field(n, "condition")?, out)?;
        let mut ab = Vec::new();
        let mut bb = Vec::new();
        let a = self.expr(self.field(n, "consequence")?, &mut ab)?;
        let b = self.expr(self.field(n, "alternative")?, &mut bb)?;
        let ty = if a.ty == b.ty {
            a.ty.clone()
        } else {
            usual(&a.ty, &b.ty)
                .ok_or_else(|| self.unsup(n, "conditional with operands of different types"))?
        };
        let a = self.convert(a, &ty, span)?;
        let b = self.convert(b, &ty, span)?;
        if ab.is_empty() && bb.is_empty() {
            return Ok(mk(
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                ty,
                span,
            ));
        }
        let t = self.fun.temp(ty, span);
        ab.push(Stmt {
            kind: StmtKind::Assign {
                place: Place::Local(t),
                value: a,
            },
            span,
        });
        bb.push(Stmt {
            kind: StmtKind::Assign {
                place: Place::Local(t),
                value: b,
            },
            span,
        });
        out.push(Stmt {
            kind: StmtKind::If {
                cond: c,
                then_branch: ab,
                else_branch: bb,
            },
            span,
        });
        Ok(self.fun.local_expr(t, span))
    }

    /// Converts `e` to `to` (assignment, argument passing, casts, and the
    /// arithmetic conversions). Conversion to `Bool` is `e != 0`.
    pub(super) fn convert(&self, e: Expr, to: &Type, span: Span) -> Res<Expr> {
        if &e.ty == to {
            return Ok(e);
        }
        match (&e.ty, to) {
            (_, Type::Bool) if is_arith(&e.ty) => self.to_bool(e),
            (from, Type::Int(t)) if is_arith(from) => {
                if let ExprKind::IntLit(v) = e.kind
                    && types::fits(v, t)
                {
                    return Ok(int_lit(v, *t, e.span));
                }
                Ok(mk(ExprKind::Cast(Box::new(e)), to.clone(), span))
            }
            (from, Type::Float(_)) if is_arith(from) => {
                Ok(mk(ExprKind::Cast(Box::new(e)), to.clone(), span))
            }
            (Type::Array(_), Type::Array(_)) => {
                Err(super::unsupported(span, "conversion between pointer types"))
            }
            (Type::Array(_), _) | (_, Type::Array(_)) => Err(super::unsupported(
                span,
                "conversion between pointer and value",
            )),
            (Type::Void, _) => Err(super::unsupported(span, "use of a void value")),
            _ => Err(super::unsupported(
                span,
                format!("conversion from {} to {}", e.ty, to),
            )),
        }
    }

    /// The type of a cast or `sizeof` operand (`(unsigned long)`).
    pub(super) fn type_descriptor(&self, n: Node) -> Res<Type> {
        if let Some(d) = n.child_by_field_name("declarator") {
            let what = if d.kind().contains("pointer") {
                "pointer type"
            } else {
                "derived type"
            };
            return Err(self.unsup(d, what));
        }
        let t = self.field(n, "type")?;
        self.file
            .base_type(t, self.src)
            .map_err(|e| self.unsup(t, e.what))
    }

    /// `a[i]`: `a` must be an array (pointer parameters count as arrays).
    fn subscript(&mut self, n: Node<'t>, out: &mut Block) -> Res<(Expr, Expr)> {
        let span = self.sp(n);
        let mut v = self.operands(&[self.field(n, "argument")?, self.field(n, "index")?], out)?;
        let (Some(index), Some(array)) = (v.pop(), v.pop()) else {
            return Err(self.unsup(n, "subscript"));
        };
        if !matches!(array.ty, Type::Array(_)) {
            return Err(self.unsup(n, "subscript of a non-array value"));
        }
        if !is_integer(&index.ty) {
            return Err(self.unsup(n, "non-integer array index"));
        }
        let it = promote(&index.ty);
        let index = self.convert(index, &it, span)?;
        Ok((array, index))
    }

    /// An assignable place, the expression reading it, and its type.
    fn place(&mut self, n: Node<'t>, out: &mut Block) -> Res<(Place, Expr)> {
        let span = self.sp(n);
        match n.kind() {
            "parenthesized_expression" => {
                let inner = kids(n)
                    .into_iter()
                    .next()
                    .ok_or_else(|| self.unsup(n, "empty parentheses"))?;
                self.place(inner, out)
            }
            "identifier" => {
                let name = self.text(n);
                if self.file.macros.contains_key(name) {
                    return Err(self.unsup(n, format!("assignment to macro {name}")));
                }
                let e = self.ident(n, out)?;
                if matches!(e.ty, Type::Array(_)) {
                    return Err(self.unsup(n, "assignment to an array variable"));
                }
                match e.kind {
                    ExprKind::Local(id) => Ok((Place::Local(id), e)),
                    ExprKind::Global(g) => {
                        if self
                            .file
                            .global_const
                            .get(g.0 as usize)
                            .copied()
                            .unwrap_or(false)
                        {
                            return Err(self.unsup(n, format!("assignment to const global {name}")));
                        }
                        Ok((Place::Global(g), e))
                    }
                    _ => Err(self.unsup(n, format!("assignment to constant {name}"))),
                }
            }
            "subscript_expression" if self.walks_pointer(n) => self.deref(n, out),
            "subscript_expression" => {
                let (array, index) = self.subscript(n, out)?;
                if matches!(array.ty.elem(), Some(Type::Array(_))) {
                    return Err(self.unsup(n, "assignment to an array"));
                }
                Ok(element_place(array, index, span))
            }
            "field_expression" => match self.member(n)? {
                Some(super::structs::Member::Scalar(place, ty)) => {
                    let read = self.read_place(&place, &ty, span);
                    Ok((place, read))
                }
                Some(super::structs::Member::Whole(_)) => {
                    Err(self.unsup(n, "assignment to a whole struct here"))
                }
                None => Err(self.unsup(n, "assignment to a member of a struct value")),
            },
            "pointer_expression"
                if n.child_by_field_name("operator").map(|o| self.text(o)) == Some("*") =>
            {
                self.deref(n, out)
            }
            "pointer_expression" => Err(self.unsup(n, "assignment to an address")),
            _ => Err(self.unsup(n, "assignment to a non-variable")),
        }
    }

    /// Makes the operands of an array place stable across statements that
    /// are about to be emitted.
    fn stabilize(&mut self, place: Place, read: Expr, out: &mut Block) -> (Place, Expr) {
        match place {
            Place::Index { array, index } => {
                let array = self.fun.spill(*array, out);
                let index = self.fun.spill(*index, out);
                let read = Expr {
                    kind: ExprKind::Index(Box::new(array.clone()), Box::new(index.clone())),
                    ty: read.ty,
                    span: read.span,
                };
                (
                    Place::Index {
                        array: Box::new(array),
                        index: Box::new(index),
                    },
                    read,
                )
            }
            p => (p, read),
        }
    }

    /// `x = e`, `x op= e`. Returns the value of the assignment when `want`.
    pub(super) fn assign(&mut self, n: Node<'t>, out: &mut Block, want: bool) -> Res<Option<Expr>> {
        let span = self.sp(n);
        let op = self.text(self.field(n, "operator")?);
        if let Some(super::structs::Member::Whole(_)) = self.member(self.field(n, "left")?)? {
            self.struct_assign(n, out)?;
            if want {
                return Err(self.unsup(n, "struct value used as a number"));
            }
            return Ok(None);
        }
        if self.is_cursor(self.field(n, "left")?) {
            return self.move_pointer(n, out, want);
        }
        let (mut place, mut read) = self.place(self.field(n, "left")?, out)?;
        let mut rb = Vec::new();
        let rhs = self.expr(self.field(n, "right")?, &mut rb)?;
        if !rb.is_empty() {
            (place, read) = self.stabilize(place, read, out);
            out.extend(rb);
        }
        let pty = read.ty.clone();
        let value = if op == "=" {
            self.convert(rhs, &pty, span)?
        } else {
            let bop = op
                .strip_suffix('=')
                .and_then(|t| crate::lang::lower::binop_token(t, crate::ir::Lang::C))
                .ok_or_else(|| self.unsup(n, format!("operator {op}")))?;
            let r = self.arith(bop, read.clone(), rhs, span)?;
            self.convert(r, &pty, span)?
        };
        Ok(self.store(place, read, value, span, out, want))
    }

    /// Emits `place = value`; the assignment's value is re-read from a local
    /// place, or kept in a temporary for array elements (the index might
    /// read the element just written).
    fn store(
        &mut self,
        place: Place,
        read: Expr,
        value: Expr,
        span: Span,
        out: &mut Block,
        want: bool,
    ) -> Option<Expr> {
        if want && matches!(place, Place::Index { .. }) {
            let v = self.fun.spill(value, out);
            out.push(Stmt {
                kind: StmtKind::Assign {
                    place,
                    value: v.clone(),
                },
                span,
            });
            return Some(v);
        }
        out.push(Stmt {
            kind: StmtKind::Assign { place, value },
            span,
        });
        want.then_some(Expr { span, ..read })
    }

    /// `++x`, `x--`, ...
    pub(super) fn update(&mut self, n: Node<'t>, out: &mut Block, want: bool) -> Res<Option<Expr>> {
        let span = self.sp(n);
        let op_node = self.field(n, "operator")?;
        let arg = self.field(n, "argument")?;
        let inc = self.text(op_node) == "++";
        let prefix = op_node.start_byte() < arg.start_byte();
        if self.is_cursor(arg) {
            return self.move_pointer(n, out, want);
        }
        let (place, read) = self.place(arg, out)?;
        if !is_arith(&read.ty) {
            return Err(self.unsup(n, "pointer arithmetic"));
        }
        let one = int_lit(1, IntTy::I32, span);
        let r = self.arith(
            if inc { BinOp::Add } else { BinOp::Sub },
            read.clone(),
            one,
            span,
        )?;
        let pty = read.ty.clone();
        let value = self.convert(r, &pty, span)?;
        if want && !prefix {
            let old = self.fun.temp_of(
                Expr {
                    span,
                    ..read.clone()
                },
                out,
            );
            out.push(Stmt {
                kind: StmtKind::Assign { place, value },
                span,
            });
            return Ok(Some(old));
        }
        Ok(self.store(place, read, value, span, out, want))
    }

    /// The arguments of a call to `name`, evaluated in order and converted
    /// to the parameter types (an array only to its own type).
    fn arguments(
        &mut self,
        n: Node<'t>,
        name: &str,
        args: &[Node<'t>],
        params: &[Type],
        out: &mut Block,
    ) -> Res<Vec<Expr>> {
        if params.len() != args.len() {
            return Err(self.unsup(
                n,
                format!(
                    "call to {name} with {} arguments instead of {}",
                    args.len(),
                    params.len()
                ),
            ));
        }
        let vals = self.operands(args, out)?;
        let mut conv = Vec::with_capacity(vals.len());
        for (v, p) in vals.into_iter().zip(params) {
            if let (Type::Array(_), Type::Array(_)) = (&v.ty, p)
                && &v.ty != p
            {
                return Err(super::unsupported(
                    v.span,
                    format!("array argument of type {} for {}", v.ty, p),
                ));
            }
            let sp = v.span;
            conv.push(self.convert(v, p, sp)?);
        }
        Ok(conv)
    }

    /// The arguments of a call to file function `name`, evaluated in order:
    /// a struct argument as its leaves, a scalar converted to its
    /// parameter's type (an array only to its own type).
    fn call_args(
        &mut self,
        n: Node<'t>,
        name: &str,
        args: &[Node<'t>],
        params: &[super::Param],
        out: &mut Block,
    ) -> Res<Vec<Expr>> {
        if params.len() != args.len() {
            return Err(self.unsup(
                n,
                format!(
                    "call to {name} with {} arguments instead of {}",
                    args.len(),
                    params.len()
                ),
            ));
        }
        let mut vals: Vec<Expr> = Vec::new();
        for (a, p) in args.iter().zip(params) {
            let mut b = Vec::new();
            let these = match p.strukt {
                Some(sid) => {
                    let (got, v) = self.struct_value(*a, &mut b)?;
                    self.same_struct(sid, got, *a)?;
                    v
                }
                None => {
                    let v = self.expr(*a, &mut b)?;
                    if let (Type::Array(_), Type::Array(_)) = (&v.ty, &p.ty)
                        && v.ty != p.ty
                    {
                        return Err(super::unsupported(
                            v.span,
                            format!("array argument of type {} for {}", v.ty, p.ty),
                        ));
                    }
                    let sp = v.span;
                    vec![self.convert(v, &p.ty, sp)?]
                }
            };
            // Earlier arguments are read before this one's effects.
            self.fun.keep_before(&mut vals, b, out);
            vals.extend(these);
        }
        Ok(vals)
    }

    /// A call to a function the file declares but does not define
    /// ([`StmtKind::External`]): scalar parameters and result only (a
    /// pointer could be written through or returned).
    fn external_call(
        &mut self,
        n: Node<'t>,
        name: &str,
        args: &[Node<'t>],
        out: &mut Block,
        want: bool,
    ) -> Res<Option<Expr>> {
        let span = self.sp(n);
        let Some(sig) = self.file.prototypes.get(name) else {
            return Err(self.unsup(n, format!("call to unknown function {name}")));
        };
        if sig.ret_struct.is_some() {
            return Err(self.unsup(
                n,
                format!("call to {name}, a function outside the file, returning a struct"),
            ));
        }
        if let Ok(ps) = &sig.params
            && ps.iter().any(|p| p.strukt.is_some())
        {
            return Err(self.unsup(
                n,
                format!("call to {name}, a function outside the file, with a struct parameter"),
            ));
        }
        let (params, ret) = match (&sig.params, &sig.ret) {
            (Ok(p), Ok(r)) => (
                p.iter().map(|p| p.ty.clone()).collect::<Vec<Type>>(),
                r.clone(),
            ),
            _ => {
                return Err(self.unsup(
                    n,
                    format!("call to {name}, declared with an unsupported signature"),
                ));
            }
        };
        if let Some(p) = params.iter().find(|t| !(is_arith(t) || **t == Type::Bool)) {
            return Err(self.unsup(
                n,
                format!(
                    "call to {name}, a function outside the file, with a parameter of type {p}"
                ),
            ));
        }
        if !(is_arith(&ret) || ret == Type::Bool || ret == Type::Void) {
            return Err(self.unsup(
                n,
                format!("call to {name}, a function outside the file, returning {ret}"),
            ));
        }
        if want && ret == Type::Void {
            return Err(self.unsup(n, format!("use of the result of void function {name}")));
        }
        let conv = self.arguments(n, name, args, &params, out)?;
        let dest = if want {
            Some(self.fun.temp(ret.clone(), span))
        } else {
            None
        };
        out.push(Stmt {
            kind: StmtKind::External {
                dest: dest.map(crate::ir::Place::Local),
                callee: name.to_string(),
                args: conv,
                ret: if want { ret.clone() } else { Type::Void },
            },
            span,
        });
        Ok(dest.map(|d| self.fun.local_expr(d, span)))
    }

    /// `abort()`, `exit(status)`, `assert(cond)`: the execution ends with
    /// that outcome (`assert` only where `cond` is false: `NDEBUG` is not
    /// defined). The exit status must be a constant; it is taken modulo 256,
    /// as the parent process sees it.
    fn abnormal_end(
        &mut self,
        n: Node<'t>,
        name: &str,
        args: &[Node<'t>],
        out: &mut Block,
    ) -> Res<()> {
        let span = self.sp(n);
        let arity = if name == "abort" { 0 } else { 1 };
        if args.len() != arity {
            return Err(self.unsup(n, format!("call to {name} with {} arguments", args.len())));
        }
        let end = |t: Thrown| Stmt {
            kind: StmtKind::Throw(t),
            span,
        };
        match name {
            "abort" => out.push(end(Thrown::Abort)),
            "assert" => {
                let c = self.cond(args[0], out)?;
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond: Expr {
                            kind: ExprKind::Unary(UnOp::Not, Box::new(c)),
                            ty: Type::Bool,
                            span,
                        },
                        then_branch: vec![end(Thrown::AssertFailed)],
                        else_branch: Vec::new(),
                    },
                    span,
                });
            }
            _ => {
                let status = self.operands(args, out)?;
                let Some(v) = status.first().and_then(const_int) else {
                    return Err(self.unsup(args[0], format!("{name} with a non-constant status")));
                };
                out.push(end(Thrown::Exit(v.rem_euclid(256) as u8)));
            }
        }
        Ok(())
    }

    /// Calls: functions of the file, library functions, output functions.
    pub(super) fn call(&mut self, n: Node<'t>, out: &mut Block, want: bool) -> Res<Option<Expr>> {
        let span = self.sp(n);
        let f = self.field(n, "function")?;
        let args = kids(self.field(n, "arguments")?);
        if f.kind() != "identifier" {
            return Err(self.unsup(f, "call through a function pointer"));
        }
        let name = self.text(f);
        // The preprocessor runs first: a macro wins over a function.
        if self.file.fn_macros.contains_key(name) {
            return self.fn_macro_use(n, f, name, out, want);
        }
        if let Some(&id) = self.file.fn_map.get(name) {
            let sig = &self.file.sigs[id.0 as usize];
            if want && sig.ret_struct.is_some() {
                return Err(self.unsup(n, format!("struct returned by {name} used as a number")));
            }
            let params: &[super::Param] = match &sig.params {
                Ok(p) => p,
                Err(_) => {
                    return Err(self.unsup(
                        n,
                        format!("call to {name}, whose parameters are unsupported"),
                    ));
                }
            };
            let ret = sig.ret.clone().map_err(|_| {
                self.unsup(
                    n,
                    format!("call to {name}, whose return type is unsupported"),
                )
            })?;
            let conv = self.call_args(n, name, &args, params, out)?;
            let dest = if want && ret != Type::Void {
                Some(self.fun.temp(ret.clone(), span))
            } else {
                None
            };
            out.push(Stmt {
                kind: StmtKind::Call {
                    dest: dest.map(crate::ir::Place::Local),
                    func: id,
                    args: conv,
                },
                span,
            });
            return Ok(dest.map(|d| self.fun.local_expr(d, span)));
        }
        match name {
            "fprintf" => {
                if want {
                    return Err(self.unsup(n, "use of the result of fprintf"));
                }
                let Some((stream, rest)) = args.split_first() else {
                    return Err(self.unsup(n, "fprintf without a stream"));
                };
                match self.text(*stream) {
                    "stdout" => self.print(n, "printf", rest, out)?,
                    // Standard error is not an observable (only standard
                    // output is compared); its arguments are still
                    // evaluated, for their effects and faults.
                    "stderr" => {
                        if rest
                            .first()
                            .and_then(|f| types::string_literal(*f, self.src))
                            .is_none()
                        {
                            return Err(self.unsup(n, "fprintf with a non-literal format"));
                        }
                        for a in rest.iter().skip(1) {
                            if types::string_literal(*a, self.src).is_none() {
                                self.effect(*a, out)?;
                            }
                        }
                    }
                    other => {
                        return Err(self.unsup(*stream, format!("fprintf to {other}")));
                    }
                }
                return Ok(None);
            }
            "printf" | "puts" | "putchar" => {
                if want {
                    return Err(self.unsup(n, format!("use of the result of {name}")));
                }
                self.print(n, name, &args, out)?;
                return Ok(None);
            }
            "frexp" => return self.frexp(n, &args, out).map(Some),
            "lround" | "llround" => {
                return Err(self.unsup(n, format!("{name} (C rounds halves away from zero)")));
            }
            _ if bit_builtin(name).is_some() => {
                return self.bit_builtin(n, name, &args, out).map(Some);
            }
            "abort" | "exit" | "_Exit" | "assert" => {
                if want {
                    return Err(self.unsup(n, format!("use of the result of {name}")));
                }
                self.abnormal_end(n, name, &args, out)?;
                return Ok(None);
            }
            _ => {}
        }
        let Some(lib) = library(name) else {
            if self.file.prototypes.contains_key(name) {
                return self.external_call(n, name, &args, out, want);
            }
            return Err(self.unsup(f, format!("call to unknown function {name}")));
        };
        let arity = match lib {
            Lib::IntAbs(_) | Lib::Unary(_) => 1,
            Lib::Binary(_) | Lib::MinMax { .. } => 2,
        };
        if args.len() != arity {
            return Err(self.unsup(n, format!("call to {name} with {} arguments", args.len())));
        }
        let vals = self.operands(&args, out)?;
        for v in &vals {
            if !is_arith(&v.ty) {
                return Err(super::unsupported(
                    v.span,
                    format!("non-numeric argument to {name}"),
                ));
            }
        }
        let (intr, ty) = match lib {
            Lib::IntAbs(t) => (Intrinsic::Abs, Type::Int(t)),
            Lib::Unary(i) | Lib::Binary(i) => (i, Type::DOUBLE),
            Lib::MinMax { max } => {
                let mut vals = vals.into_iter();
                let (Some(a), Some(b)) = (vals.next(), vals.next()) else {
                    return Err(self.unsup(n, name));
                };
                return Ok(Some(self.min_max(max, a, b, span, out)?));
            }
        };
        let mut conv = Vec::new();
        for v in vals {
            conv.push(self.convert(v, &ty, span)?);
        }
        Ok(Some(mk(ExprKind::Intrinsic(intr, conv), ty, span)))
    }

    /// `frexp(x, &e)`: the exponent stored into `e` first, then the
    /// mantissa as the call's value — two intrinsics of the same `x`
    /// (evaluated once, into a temporary unless it is a variable or a
    /// literal). The pointer must be the address of an `int` variable or
    /// element.
    fn frexp(&mut self, n: Node<'t>, args: &[Node<'t>], out: &mut Block) -> Res<Expr> {
        let span = self.sp(n);
        let [x, pointer] = args else {
            return Err(self.unsup(n, format!("call to frexp with {} arguments", args.len())));
        };
        let target = (pointer.kind() == "pointer_expression"
            && pointer
                .child_by_field_name("operator")
                .map(|o| self.text(o))
                == Some("&"))
        .then(|| pointer.child_by_field_name("argument"))
        .flatten()
        .ok_or_else(|| self.unsup(*pointer, "frexp's exponent pointer other than &variable"))?;
        let x = self.expr(*x, out)?;
        if !is_arith(&x.ty) {
            return Err(super::unsupported(x.span, "non-numeric argument to frexp"));
        }
        let x = self.convert(x, &Type::DOUBLE, span)?;
        let x = if matches!(x.kind, ExprKind::Local(_) | ExprKind::FloatLit(_)) {
            x
        } else {
            self.fun.temp_of(x, out)
        };
        let (place, read) = self.place(target, out)?;
        if read.ty != Type::INT {
            return Err(self.unsup(
                target,
                format!("frexp's exponent stored into type {}", read.ty),
            ));
        }
        out.push(Stmt {
            kind: StmtKind::Assign {
                place,
                value: mk(
                    ExprKind::Intrinsic(Intrinsic::FrexpExponent, vec![x.clone()]),
                    Type::INT,
                    span,
                ),
            },
            span,
        });
        Ok(mk(
            ExprKind::Intrinsic(Intrinsic::Frexp, vec![x]),
            Type::DOUBLE,
            span,
        ))
    }

    /// `fmin(a, b)` is `b != b ? a : (a <= b ? a : b)` (`fmax` with `>=`):
    /// a NaN argument yields the other one, as C requires and glibc does.
    fn min_max(&mut self, max: bool, a: Expr, b: Expr, span: Span, out: &mut Block) -> Res<Expr> {
        let a = self.convert(a, &Type::DOUBLE, span)?;
        let b = self.convert(b, &Type::DOUBLE, span)?;
        let simple = |e: &Expr| {
            matches!(
                e.kind,
                ExprKind::Local(_) | ExprKind::FloatLit(_) | ExprKind::Global(_)
            )
        };
        let a = if simple(&a) {
            a
        } else {
            self.fun.temp_of(a, out)
        };
        let b = if simple(&b) {
            b
        } else {
            self.fun.temp_of(b, out)
        };
        let bin = |op, x: &Expr, y: &Expr| {
            mk(
                ExprKind::Binary(op, Box::new(x.clone()), Box::new(y.clone())),
                Type::Bool,
                span,
            )
        };
        let pick = bin(if max { BinOp::Ge } else { BinOp::Le }, &a, &b);
        let inner = mk(
            ExprKind::Cond(Box::new(pick), Box::new(a.clone()), Box::new(b.clone())),
            Type::DOUBLE,
            span,
        );
        let b_nan = bin(BinOp::Ne, &b, &b);
        Ok(mk(
            ExprKind::Cond(Box::new(b_nan), Box::new(a), Box::new(inner)),
            Type::DOUBLE,
            span,
        ))
    }

    fn print(&mut self, n: Node<'t>, name: &str, args: &[Node<'t>], out: &mut Block) -> Res<()> {
        let span = self.sp(n);
        let strlit = |s: String, sp: Span| mk(ExprKind::StrLit(s), Type::Str, sp);
        match name {
            "puts" => {
                let [arg] = args else {
                    return Err(self.unsup(n, "puts with other than one argument"));
                };
                let s = types::string_literal(*arg, self.src)
                    .ok_or_else(|| self.unsup(*arg, "puts of a non-literal string"))?;
                let sp = self.sp(*arg);
                out.push(Stmt {
                    kind: StmtKind::Print {
                        kind: PrintKind::C { newline: true },
                        args: vec![strlit(s, sp)],
                    },
                    span,
                });
            }
            "putchar" => {
                let [arg] = args else {
                    return Err(self.unsup(n, "putchar with other than one argument"));
                };
                let e = self.expr(*arg, out)?;
                if !is_arith(&e.ty) {
                    return Err(self.unsup(*arg, "non-numeric argument to putchar"));
                }
                let sp = e.span;
                let e = self.convert(e, &Type::Int(IntTy::C_CHAR), sp)?;
                out.push(Stmt {
                    kind: StmtKind::Print {
                        kind: PrintKind::C { newline: false },
                        args: vec![e],
                    },
                    span,
                });
            }
            _ => {
                let Some((fmt_node, rest)) = args.split_first() else {
                    return Err(self.unsup(n, "printf without a format"));
                };
                let format = types::string_literal(*fmt_node, self.src)
                    .ok_or_else(|| self.unsup(*fmt_node, "printf with a non-literal format"))?;
                // String literal arguments stay literals; others are values
                // with the default argument promotions.
                let mut vals: Vec<Expr> = Vec::new();
                for a in rest {
                    if let Some(s) = types::string_literal(*a, self.src) {
                        vals.push(strlit(s, self.sp(*a)));
                        continue;
                    }
                    let mut v = self.operands(&[*a], out)?;
                    let Some(e) = v.pop() else { continue };
                    vals.push(e);
                }
                let mut conv = Vec::new();
                for e in vals {
                    let sp = e.span;
                    let e = match &e.ty {
                        Type::Str => e,
                        Type::Float(FloatTy::F32) => self.convert(e, &Type::DOUBLE, sp)?,
                        t if is_integer(t) => {
                            let p = promote(t);
                            self.convert(e, &p, sp)?
                        }
                        Type::Float(_) => e,
                        _ => return Err(super::unsupported(sp, "printf of a pointer argument")),
                    };
                    conv.push(e);
                }
                out.push(Stmt {
                    kind: StmtKind::Print {
                        kind: PrintKind::Printf { format },
                        args: conv,
                    },
                    span,
                });
            }
        }
        Ok(())
    }

    fn size_of(&mut self, n: Node<'t>) -> Res<Expr> {
        let span = self.sp(n);
        let ty = if let Some(t) = n.child_by_field_name("type") {
            // `sizeof(x)` may parse as a type name when `x` is a variable.
            let tnode = t.child_by_field_name("type");
            let is_var = tnode.is_some_and(|tn| {
                tn.kind() == "type_identifier" && self.fun.lookup(self.text(tn)).is_some()
            });
            match (is_var, tnode) {
                (true, Some(tn)) => return self.size_of_value(tn, n),
                _ => self.type_descriptor(t)?,
            }
        } else {
            return self.size_of_value(self.field(n, "value")?, n);
        };
        let size = types::size_of(&ty).ok_or_else(|| self.unsup(n, format!("sizeof of {ty}")))?;
        Ok(int_lit(i128::from(size), IntTy::U64, span))
    }

    /// `sizeof expr`: the operand is not evaluated.
    fn size_of_value(&mut self, v: Node<'t>, n: Node<'t>) -> Res<Expr> {
        let span = self.sp(n);
        let mut scratch = Vec::new();
        let e = if v.kind() == "type_identifier" {
            let name = self.text(v);
            let id = self
                .fun
                .lookup(name)
                .ok_or_else(|| self.unsup(v, format!("unknown identifier {name}")))?;
            self.fun.local_expr(id, span)
        } else {
            self.expr(v, &mut scratch)?
        };
        let size = match (&e.ty, &e.kind) {
            (Type::Array(elem), ExprKind::Local(id)) => {
                let len = self
                    .array_len
                    .get(id)
                    .ok_or_else(|| self.unsup(n, "sizeof of an array parameter"))?;
                types::size_of(elem).and_then(|s| s.checked_mul(*len))
            }
            (t, _) => types::size_of(t),
        };
        let size = size.ok_or_else(|| self.unsup(n, "sizeof of this operand"))?;
        Ok(int_lit(i128::from(size), IntTy::U64, span))
    }
}

impl<'t> Fx<'t> {
    /// `__builtin_clz(x)` and its kin, lowered with the formulas the JDK's
    /// `Integer`/`Long` methods use (`lang::bits`) on the argument
    /// converted to the builtin's parameter type, as the call converts it.
    /// `clz`/`ctz` of 0 is undefined behaviour (GCC documents it; x86's
    /// `bsr` leaves the result unspecified): an outcome of its own.
    fn bit_builtin(
        &mut self,
        n: Node<'t>,
        name: &str,
        args: &[Node<'t>],
        out: &mut Block,
    ) -> Res<Expr> {
        let Some((kind, param)) = bit_builtin(name) else {
            return Err(self.unsup(n, format!("call to {name}")));
        };
        let [arg] = args else {
            return Err(self.unsup(n, format!("call to {name} with {} arguments", args.len())));
        };
        let span = self.sp(n);
        let b = crate::lang::bits::Build { sp: span };
        let v = self.expr(*arg, out)?;
        if !is_integer(&v.ty) {
            return Err(super::unsupported(
                v.span,
                format!("non-integer argument to {name}"),
            ));
        }
        let v = self.convert(v, &Type::Int(param), span)?;
        // The counts depend on the bits alone; computing them unsigned
        // keeps the formulas' own arithmetic (`x & -x`) free of signed
        // overflow (`__builtin_ffs` takes an `int`).
        let unsigned = IntTy {
            signed: false,
            ..param
        };
        let v = self.convert(v, &Type::Int(unsigned), span)?;
        let x = b.hold(&mut self.fun, v, out);
        let int = Type::INT;
        let zero = b.lit(0, &x.ty);
        if matches!(kind, BitCount::LeadingZeros | BitCount::TrailingZeros) {
            out.push(b.when(
                b.bin(BinOp::Eq, &x, &zero),
                vec![b.stmt(StmtKind::Throw(Thrown::Undefined(format!("{name}(0)"))))],
            ));
        }
        Ok(match kind {
            BitCount::LeadingZeros => b.leading_zeros(&mut self.fun, x, out),
            BitCount::TrailingZeros => b.trailing_zeros(&mut self.fun, x, out),
            BitCount::Ones => b.bit_count(&mut self.fun, x, out),
            BitCount::Parity => {
                let ones = b.bit_count(&mut self.fun, x, out);
                b.bin(BinOp::Rem, &ones, &b.lit(2, &int))
            }
            BitCount::FirstSet => {
                let tz = b.trailing_zeros(&mut self.fun, x.clone(), out);
                b.cond(
                    b.bin(BinOp::Eq, &x, &zero),
                    b.lit(0, &int),
                    b.bin(BinOp::Add, &tz, &b.lit(1, &int)),
                )
            }
        })
    }
}
