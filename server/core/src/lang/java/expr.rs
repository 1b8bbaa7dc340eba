//! Expression lowering: Java expressions to pure IR expressions, with side
//! effects (assignments, `++`/`--`, calls) lifted into statements placed
//! before the expression in Java's evaluation order.

use super::overloads::{self, Invocation, NoChoice};
use super::{
    FnCx, R, Role, TyErr, bnp, cast, decode_escapes, float_literal, int_in_range, int_literal,
    is_integral, java_type, mk, named_children, promote, span, st, unsupported,
};
use crate::ir::{
    BinOp, Block, Expr, ExprKind, FloatLit, FloatTy, FuncId, GlobalId, IntTy, Intrinsic, LocalId,
    Place, PrintKind, Span, StmtKind, Thrown, Type, UnOp,
};
use crate::lang::lower::{bool_lit, not};
use tree_sitter::Node;

/// An assignable location, with its operands already lowered.
#[derive(Clone)]
pub(super) enum PlaceL {
    Local(LocalId, Type),
    Global(GlobalId, Type),
    Index(Expr, Expr, Type),
}

impl PlaceL {
    fn ty(&self) -> Type {
        match self {
            PlaceL::Local(_, t) | PlaceL::Global(_, t) | PlaceL::Index(_, _, t) => t.clone(),
        }
    }

    /// The current value of the place.
    fn read(&self, sp: Span) -> Expr {
        match self {
            PlaceL::Local(id, t) => mk(ExprKind::Local(*id), t.clone(), sp),
            PlaceL::Global(id, t) => mk(ExprKind::Global(*id), t.clone(), sp),
            PlaceL::Index(a, i, t) => mk(
                ExprKind::Index(Box::new(a.clone()), Box::new(i.clone())),
                t.clone(),
                sp,
            ),
        }
    }

    fn to_ir(&self) -> Place {
        match self {
            PlaceL::Local(id, _) => Place::Local(*id),
            PlaceL::Global(id, _) => Place::Global(*id),
            PlaceL::Index(a, i, _) => Place::Index {
                array: Box::new(a.clone()),
                index: Box::new(i.clone()),
            },
        }
    }
}

/// Checks the arguments of a JDK or Guava helper modelled by its
/// documented behaviour: between `values` and `max` of them, and every one
/// after the first `values` a message argument, which must be inert (Java
/// evaluates every argument before the call; only a failure to build the
/// message could be observed).
fn helper_arguments(n: Node, callee: &str, arg_nodes: &[Node], values: usize, max: usize) -> R<()> {
    if arg_nodes.len() < values || arg_nodes.len() > max {
        return Err(unsupported(
            n,
            format!("call to {callee} with {} arguments", arg_nodes.len()),
        ));
    }
    if let Some(bad) = arg_nodes[values..]
        .iter()
        .find_map(|a| super::stmt::first_active(*a))
    {
        return Err(unsupported(
            bad,
            format!(
                "{} in a message argument of {callee} (only literals, variables and operators that cannot fail)",
                bad.kind().replace('_', " ")
            ),
        ));
    }
    Ok(())
}

/// Whether an assignment occurs in expression `n`.
fn assigns(n: Node) -> bool {
    n.kind() == "assignment_expression" || named_children(n).into_iter().any(assigns)
}

/// Whether `n` is `null` (through parentheses).
fn is_null_literal(n: Node) -> bool {
    match n.kind() {
        "null_literal" => true,
        "parenthesized_expression" => n.named_child(0).is_some_and(is_null_literal),
        _ => false,
    }
}

pub(super) fn or(a: Expr, b: Expr, sp: Span) -> Expr {
    mk(
        ExprKind::Binary(BinOp::Or, Box::new(a), Box::new(b)),
        Type::Bool,
        sp,
    )
}

fn first_named(n: Node) -> R<Node> {
    named_children(n)
        .into_iter()
        .next()
        .ok_or_else(|| unsupported(n, "empty expression"))
}

/// Shortens source text quoted in an error message.
fn short(t: &str) -> String {
    let one_line: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 40 {
        format!("{}…", one_line.chars().take(40).collect::<String>())
    } else {
        one_line
    }
}

/// Builds `a op b` with Java's typing: binary numeric promotion for
/// arithmetic, comparisons and integer bit operations, unary promotion of
/// each side for shifts, `Bool` for logical operators.
pub(super) fn binop(op: BinOp, a: Expr, b: Expr, n: Node, op_text: &str) -> R<Expr> {
    let sp = span(n);
    let mismatch = || {
        unsupported(
            n,
            format!(
                "operator {op_text} on {} and {}",
                super::jname(&a.ty),
                super::jname(&b.ty)
            ),
        )
    };
    let bin =
        |a: Expr, b: Expr, ty: Type| mk(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, sp);
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
            let t = bnp(&a.ty, &b.ty).ok_or_else(mismatch)?;
            Ok(bin(cast(a, &t), cast(b, &t), t))
        }
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
            if a.ty == Type::Bool && b.ty == Type::Bool {
                return Ok(bin(a, b, Type::Bool));
            }
            if !is_integral(&a.ty) || !is_integral(&b.ty) {
                return Err(mismatch());
            }
            let t = bnp(&a.ty, &b.ty).ok_or_else(mismatch)?;
            Ok(bin(cast(a, &t), cast(b, &t), t))
        }
        BinOp::Shl | BinOp::Shr | BinOp::UShr => {
            if !is_integral(&a.ty) || !is_integral(&b.ty) {
                return Err(mismatch());
            }
            let lt = promote(&a.ty);
            let rt = promote(&b.ty);
            Ok(bin(cast(a, &lt), cast(b, &rt), lt))
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let t = bnp(&a.ty, &b.ty).ok_or_else(mismatch)?;
            Ok(bin(cast(a, &t), cast(b, &t), Type::Bool))
        }
        BinOp::Eq | BinOp::Ne => {
            if a.ty == Type::Bool && b.ty == Type::Bool {
                return Ok(bin(a, b, Type::Bool));
            }
            if matches!(a.ty, Type::Array(_)) || matches!(b.ty, Type::Array(_)) {
                return Err(unsupported(n, "comparison of array references"));
            }
            let t = bnp(&a.ty, &b.ty).ok_or_else(mismatch)?;
            Ok(bin(cast(a, &t), cast(b, &t), Type::Bool))
        }
        BinOp::And | BinOp::Or => {
            if a.ty != Type::Bool || b.ty != Type::Bool {
                return Err(mismatch());
            }
            Ok(bin(a, b, Type::Bool))
        }
    }
}

/// The type of `c ? a : b` (JLS 15.25, numeric and boolean cases).
fn ternary_type(a: &Expr, b: &Expr) -> Option<Type> {
    if a.ty == b.ty {
        return Some(a.ty.clone());
    }
    let small = |t: &Type| matches!(t, Type::Int(i) if i.bits < 32);
    let fits = |lit: &Expr, t: &Type| match (&lit.kind, &lit.ty, t) {
        (ExprKind::IntLit(v), Type::Int(li), Type::Int(ti)) => {
            li.bits == 32 && li.signed && int_in_range(*v, *ti)
        }
        _ => false,
    };
    if small(&a.ty) && fits(b, &a.ty) {
        return Some(a.ty.clone());
    }
    if small(&b.ty) && fits(a, &b.ty) {
        return Some(b.ty.clone());
    }
    let byte = Type::Int(IntTy::I8);
    let short = Type::Int(IntTy::I16);
    if (a.ty == byte && b.ty == short) || (a.ty == short && b.ty == byte) {
        return Some(short);
    }
    bnp(&a.ty, &b.ty)
}

fn float_const(value: f64, ty: Type, sp: Span, text: String) -> Expr {
    mk(ExprKind::FloatLit(FloatLit { value, text }), ty, sp)
}

/// The `java.lang` classes whose static methods or constants the front end
/// models (`jdk.rs`, [`builtin_constant`], `Math` intrinsics).
const JDK_STATIC_CLASSES: &[&str] = &[
    "Math",
    "StrictMath",
    "Integer",
    "Long",
    "Short",
    "Byte",
    "Character",
    "Double",
    "Float",
    "Boolean",
];

/// `Math.PI`, `Integer.MAX_VALUE` and friends.
fn builtin_constant(class: &str, field: &str, sp: Span) -> Option<Expr> {
    let int = |v: i128, t: IntTy| Some(mk(ExprKind::IntLit(v), Type::Int(t), sp));
    let double = |v: f64, text: &str| Some(float_const(v, Type::DOUBLE, sp, text.into()));
    let float = |v: f32, text: &str| {
        Some(float_const(
            f64::from(v),
            Type::Float(FloatTy::F32),
            sp,
            text.into(),
        ))
    };
    match (class, field) {
        ("Math", "PI") => double(std::f64::consts::PI, &std::f64::consts::PI.to_string()),
        ("Math", "E") => double(std::f64::consts::E, &std::f64::consts::E.to_string()),
        ("Integer", "MAX_VALUE") => int(i128::from(i32::MAX), IntTy::I32),
        ("Integer", "MIN_VALUE") => int(i128::from(i32::MIN), IntTy::I32),
        ("Long", "MAX_VALUE") => int(i128::from(i64::MAX), IntTy::I64),
        ("Long", "MIN_VALUE") => int(i128::from(i64::MIN), IntTy::I64),
        ("Short", "MAX_VALUE") => int(i128::from(i16::MAX), IntTy::I16),
        ("Short", "MIN_VALUE") => int(i128::from(i16::MIN), IntTy::I16),
        ("Byte", "MAX_VALUE") => int(i128::from(i8::MAX), IntTy::I8),
        ("Byte", "MIN_VALUE") => int(i128::from(i8::MIN), IntTy::I8),
        // The widths in bits and bytes, ints in every class.
        ("Long" | "Double", "SIZE") => int(64, IntTy::I32),
        ("Integer" | "Float", "SIZE") => int(32, IntTy::I32),
        ("Short" | "Character", "SIZE") => int(16, IntTy::I32),
        ("Byte", "SIZE") => int(8, IntTy::I32),
        ("Long" | "Double", "BYTES") => int(8, IntTy::I32),
        ("Integer" | "Float", "BYTES") => int(4, IntTy::I32),
        ("Short" | "Character", "BYTES") => int(2, IntTy::I32),
        ("Byte", "BYTES") => int(1, IntTy::I32),
        ("Character", "MAX_VALUE") => int(0xFFFF, IntTy::JAVA_CHAR),
        ("Character", "MIN_VALUE") => int(0, IntTy::JAVA_CHAR),
        ("Double", "MAX_VALUE") => double(f64::MAX, &format!("{:e}", f64::MAX)),
        ("Double", "MIN_VALUE") => double(f64::from_bits(1), &format!("{:e}", f64::from_bits(1))),
        // The text of the value as a double (math reads the text).
        ("Float", "MAX_VALUE") => float(f32::MAX, &format!("{:e}", f64::from(f32::MAX))),
        ("Float", "MIN_VALUE") => float(f32::from_bits(1), &format!("{:e}", f32::from_bits(1))),
        ("Double", "MIN_NORMAL") => double(f64::MIN_POSITIVE, &format!("{:e}", f64::MIN_POSITIVE)),
        ("Float", "MIN_NORMAL") => float(f32::MIN_POSITIVE, &format!("{:e}", f32::MIN_POSITIVE)),
        // Exact under `machine`; under `math`, where a double is a real,
        // a method reaching one is refused by name (`check::non_real_literal`).
        ("Double", "NaN") => double(f64::NAN, "NaN"),
        ("Float", "NaN") => float(f32::NAN, "NaN"),
        ("Double", "POSITIVE_INFINITY") => double(f64::INFINITY, "Infinity"),
        ("Float", "POSITIVE_INFINITY") => float(f32::INFINITY, "Infinity"),
        ("Double", "NEGATIVE_INFINITY") => double(f64::NEG_INFINITY, "-Infinity"),
        ("Float", "NEGATIVE_INFINITY") => float(f32::NEG_INFINITY, "-Infinity"),
        _ => None,
    }
}

impl<'c, 't> FnCx<'c, 't> {
    /// Lowers an expression whose value is used; lifted statements go to
    /// `out`.
    pub(super) fn expr(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        self.enter(n)?;
        let r = self.expr_inner(n, out);
        self.leave();
        let e = r?;
        if e.ty == Type::Void {
            return Err(unsupported(n, "use of a void method's result"));
        }
        Ok(e)
    }

    /// Lowers a condition, which must be `boolean`.
    pub(super) fn cond(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        self.result_hint = Some((n.id(), Type::Bool));
        let e = self.expr(n, out)?;
        if e.ty != Type::Bool {
            return Err(unsupported(
                n,
                format!("condition of type {}", super::jname(&e.ty)),
            ));
        }
        Ok(e)
    }

    /// Assignment conversion (declarations, `=`, `return`, arguments):
    /// numeric values are cast, everything else must already match.
    pub(super) fn convert(&self, e: Expr, ty: &Type, n: Node) -> R<Expr> {
        if &e.ty == ty {
            return Ok(e);
        }
        if e.ty.is_numeric() && ty.is_numeric() {
            return Ok(cast(e, ty));
        }
        Err(unsupported(
            n,
            format!(
                "conversion from {} to {}",
                super::jname(&e.ty),
                super::jname(ty)
            ),
        ))
    }

    /// Lowers `count` operands left to right. When an operand needs lifted
    /// statements, the operands before it are spilled to temporaries first,
    /// so they are evaluated before those statements, as in Java.
    pub(super) fn seq_with<F>(&mut self, count: usize, out: &mut Block, mut f: F) -> R<Vec<Expr>>
    where
        F: FnMut(&mut Self, usize, &mut Block) -> R<Expr>,
    {
        let mut vals: Vec<Expr> = Vec::with_capacity(count);
        for i in 0..count {
            let mut b = Vec::new();
            let e = f(self, i, &mut b)?;
            self.fun.keep_before(&mut vals, b, out);
            vals.push(e);
        }
        Ok(vals)
    }

    pub(super) fn seq(&mut self, nodes: &[Node], out: &mut Block) -> R<Vec<Expr>> {
        self.seq_with(nodes.len(), out, |s, i, b| match nodes.get(i) {
            Some(n) => s.expr(*n, b),
            None => Err(super::internal("operand")),
        })
    }

    fn two(&mut self, a: Node, b: Node, out: &mut Block) -> R<(Expr, Expr)> {
        let mut v = self.seq(&[a, b], out)?.into_iter();
        match (v.next(), v.next()) {
            (Some(x), Some(y)) => Ok((x, y)),
            _ => Err(unsupported(a, "operands")),
        }
    }

    fn expr_inner(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        let sp = span(n);
        match n.kind() {
            "parenthesized_expression" => {
                let inner = first_named(n)?;
                self.expr(inner, out)
            }
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                let (v, ty) = int_literal(self.text(n), false).map_err(|w| unsupported(n, w))?;
                Ok(mk(ExprKind::IntLit(v), ty, sp))
            }
            "decimal_floating_point_literal" => {
                let (lit, ty) =
                    float_literal(self.text(n), false).map_err(|w| unsupported(n, w))?;
                Ok(mk(ExprKind::FloatLit(lit), ty, sp))
            }
            "hex_floating_point_literal" => {
                Err(unsupported(n, "hexadecimal floating-point literal"))
            }
            "character_literal" => {
                let t = self.text(n);
                let body = t
                    .strip_prefix('\'')
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or("");
                let units = decode_escapes(body)
                    .map_err(|w| unsupported(n, format!("character literal: {w}")))?;
                match units.as_slice() {
                    [u] => Ok(mk(
                        ExprKind::IntLit(i128::from(*u)),
                        Type::Int(IntTy::JAVA_CHAR),
                        sp,
                    )),
                    _ => Err(unsupported(n, format!("character literal {t}"))),
                }
            }
            "true" => Ok(bool_lit(true, sp)),
            "false" => Ok(bool_lit(false, sp)),
            "null_literal" => Err(unsupported(n, "null")),
            "string_literal" => self.text_literal(n),
            "identifier" => self.ident(n),
            "this" => Err(unsupported(n, "use of this as a value")),
            "field_access" => self.field_access(n, out),
            "array_access" => {
                let (Some(an), Some(in_)) = (
                    n.child_by_field_name("array"),
                    n.child_by_field_name("index"),
                ) else {
                    return Err(unsupported(n, "array access"));
                };
                let (a, i) = self.two(an, in_, out)?;
                self.index(a, i, n)
            }
            "method_invocation" => self
                .invocation(n, out, true)?
                .ok_or_else(|| unsupported(n, "method call")),
            "assignment_expression" => self
                .assign(n, out, true)?
                .ok_or_else(|| unsupported(n, "assignment")),
            "update_expression" => self
                .update(n, out, true)?
                .ok_or_else(|| unsupported(n, "update")),
            "binary_expression" => self.binary(n, out),
            "unary_expression" => self.unary(n, out),
            "ternary_expression" => self.ternary(n, out),
            "cast_expression" => self.cast_expr(n, out),
            "array_creation_expression" => self.array_creation(n, out),
            "array_initializer" => Err(unsupported(n, "array initializer without a type")),
            "object_creation_expression" => match n
                .child_by_field_name("type")
                .and_then(|t| self.cx.value_class_of(t))
            {
                Some(_) => Err(unsupported(n, "object used as a value")),
                None => Err(self.object_creation(n)),
            },
            "lambda_expression" => Err(unsupported(n, "lambda expression")),
            "method_reference" => Err(unsupported(n, "method reference")),
            "instanceof_expression" => Err(unsupported(n, "instanceof expression")),
            "switch_expression" => Err(unsupported(n, "switch expression")),
            "class_literal" => Err(unsupported(n, "class literal")),
            k => Err(unsupported(n, k.replace('_', " "))),
        }
    }

    pub(super) fn object_creation(&self, n: Node) -> crate::ir::LowerError {
        let ty = n
            .child_by_field_name("type")
            .map(|t| self.text(t))
            .unwrap_or("?");
        unsupported(n, format!("object creation new {ty}(...)"))
    }

    fn index(&self, a: Expr, i: Expr, n: Node) -> R<Expr> {
        let Type::Array(elem) = a.ty.clone() else {
            return Err(unsupported(
                n,
                format!("indexing a value of type {}", super::jname(&a.ty)),
            ));
        };
        if !is_integral(&i.ty) {
            return Err(unsupported(
                n,
                format!("array index of type {}", super::jname(&i.ty)),
            ));
        }
        let i = cast(i, &Type::INT);
        Ok(mk(
            ExprKind::Index(Box::new(a), Box::new(i)),
            *elem,
            span(n),
        ))
    }

    fn ident(&mut self, n: Node) -> R<Expr> {
        let name = self.text(n);
        if !self.const_mode
            && let Some(id) = self.fun.lookup(name)
        {
            return Ok(mk(ExprKind::Local(id), self.fun.local_ty(id), span(n)));
        }
        if !self.const_mode
            && (self.lookup_object(name).is_some() || self.lookup_static_object(name).is_some())
        {
            return Err(unsupported(
                n,
                format!("object {name} used as a value (only its fields and methods are)"),
            ));
        }
        self.field_value(n, self.class, name)
    }

    /// The `java.lang` class (`Math`, `Integer`, …) whose member an
    /// unqualified `name` is through the file's static imports, when no
    /// method or field of the file has that name (those shadow imports).
    fn static_jdk_class(&self, name: &str) -> Option<&'static str> {
        if self.cx.methods.iter().any(|m| m.name == name)
            || self.cx.fields.iter().any(|f| f.name == name)
        {
            return None;
        }
        let full = self.cx.external_name(None, name)?;
        let class = full
            .strip_prefix("java.lang.")?
            .strip_suffix(name)?
            .strip_suffix('.')?;
        JDK_STATIC_CLASSES.iter().copied().find(|c| *c == class)
    }

    /// The value of field `name` as seen from `class`. In constant mode only
    /// constants are allowed and their value is inlined.
    fn field_value(&self, n: Node, class: Option<usize>, name: &str) -> R<Expr> {
        if let Some(id) = self.this_field(class, name) {
            return Ok(mk(ExprKind::Local(id), self.fun.local_ty(id), span(n)));
        }
        let Some(f) = self.cx.field(class, name) else {
            // A statically imported JDK constant (`PI` after `import static
            // java.lang.Math.PI;`) is the qualified one.
            if let Some(e) = self
                .static_jdk_class(name)
                .and_then(|c| builtin_constant(c, name, span(n)))
            {
                return Ok(e);
            }
            return Err(unsupported(n, format!("unknown identifier {name}")));
        };
        match (&f.ty, f.global) {
            (Err(e), _) => Err(unsupported(n, field_type_error(name, e))),
            (Ok(ty), Some(g)) => {
                if self.const_mode {
                    match self
                        .cx
                        .globals
                        .get(g.0 as usize)
                        .and_then(|g| g.constant.clone())
                    {
                        Some(mut c) => {
                            c.span = span(n);
                            Ok(c)
                        }
                        None => Err(unsupported(n, format!("non-constant field {name}"))),
                    }
                } else {
                    Ok(mk(ExprKind::Global(g), ty.clone(), span(n)))
                }
            }
            (Ok(_), None) => Err(unsupported(n, format!("field {name}"))),
        }
    }

    /// Whether an identifier names a value (local or field) rather than a
    /// class.
    fn is_value_name(&self, name: &str) -> bool {
        (!self.const_mode && self.fun.lookup(name).is_some())
            || self.cx.field(self.class, name).is_some()
    }

    fn field_access(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        let (Some(obj), Some(field)) = (
            n.child_by_field_name("object"),
            n.child_by_field_name("field"),
        ) else {
            return Err(unsupported(n, "field access"));
        };
        let fname = self.text(field);
        match obj.kind() {
            "this" => return self.field_value(n, self.class, fname),
            "identifier" => {
                let oname = self.text(obj);
                if let Some((c, ids)) = self.lookup_object(oname) {
                    let id = self.object_field(n, c, &ids, fname)?;
                    return Ok(mk(ExprKind::Local(id), self.fun.local_ty(id), span(n)));
                }
                if !self.const_mode
                    && let Some((c, globals)) = self.lookup_static_object(oname)
                {
                    return self.static_object_field(n, c, &globals, fname);
                }
                if !self.is_value_name(oname) {
                    if let Some(e) = builtin_constant(oname, fname, span(n)) {
                        return Ok(e);
                    }
                    if let Some(c) = self.cx.class_named(oname) {
                        return self.field_value(n, Some(c), fname);
                    }
                    return Err(unsupported(
                        n,
                        format!("field access {}", short(self.text(n))),
                    ));
                }
            }
            _ => {}
        }
        let o = self.expr(obj, out)?;
        if matches!(o.ty, Type::Array(_)) && fname == "length" {
            return Ok(mk(ExprKind::Length(Box::new(o)), Type::INT, span(n)));
        }
        Err(unsupported(
            n,
            format!("field access {}", short(self.text(n))),
        ))
    }

    fn binary(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        let (Some(l), Some(r), Some(opn)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
            n.child_by_field_name("operator"),
        ) else {
            return Err(unsupported(n, "binary expression"));
        };
        let op_text = self.text(opn);
        let op = crate::lang::lower::binop_token(op_text, crate::ir::Lang::Java)
            .ok_or_else(|| unsupported(opn, format!("operator {op_text}")))?;
        if op == BinOp::Add && self.stringy(n, 0) {
            return Err(unsupported(
                n,
                "string concatenation outside System.out.print",
            ));
        }
        if matches!(op, BinOp::And | BinOp::Or) {
            return self.logical(op, l, r, n, out);
        }
        if matches!(op, BinOp::Eq | BinOp::Ne) {
            let other = match (is_null_literal(l), is_null_literal(r)) {
                (true, false) => Some(r),
                (false, true) => Some(l),
                _ => None,
            };
            if let Some(other) = other {
                let test = self.null_test(other, n, out)?;
                return Ok(if op == BinOp::Eq { test } else { not(test) });
            }
        }
        let (a, b) = self.two(l, r, out)?;
        binop(op, a, b, n, op_text)
    }

    /// `x == null` where `x` is an array: the only use of `null` the IR
    /// has ([`ExprKind::IsNull`]). Objects of value classes are taken to be
    /// non-null and refused here.
    fn null_test(&mut self, x: Node, n: Node, out: &mut Block) -> R<Expr> {
        let e = self.expr(x, out)?;
        if !matches!(e.ty, Type::Array(_)) {
            return Err(unsupported(
                n,
                format!("comparison of a {} with null", super::jname(&e.ty)),
            ));
        }
        Ok(mk(ExprKind::IsNull(Box::new(e)), Type::Bool, span(n)))
    }

    /// `java.util.Objects.requireNonNull(a[, message])`, `isNull(a)` and
    /// `nonNull(a)` on an array, as the JDK defines them.
    fn null_helper(
        &mut self,
        n: Node,
        callee: &str,
        arg_nodes: &[Node],
        out: &mut Block,
        want: bool,
    ) -> R<Option<Expr>> {
        let sp = span(n);
        let name = callee.trim_start_matches("java.util.Objects.");
        let max = if name == "requireNonNull" { 2 } else { 1 };
        helper_arguments(n, callee, arg_nodes, 1, max)?;
        let first = arg_nodes[0];
        let e = self.expr(first, out)?;
        if !matches!(e.ty, Type::Array(_)) {
            return Err(unsupported(
                first,
                format!("{callee} of a {}", super::jname(&e.ty)),
            ));
        }
        let test = mk(ExprKind::IsNull(Box::new(e.clone())), Type::Bool, sp);
        match name {
            "requireNonNull" => {
                self.fault_if_null(&e, sp, out);
                Ok(want.then_some(e))
            }
            "isNull" => Ok(want.then_some(test)),
            _ => Ok(want.then(|| not(test))),
        }
    }

    /// `&&` / `||`: lazy. When the right operand lifts statements, they may
    /// only run when the left operand does not decide the result, so the
    /// whole expression becomes a temporary set by an `If`.
    fn logical(&mut self, op: BinOp, l: Node, r: Node, n: Node, out: &mut Block) -> R<Expr> {
        let a = self.cond(l, out)?;
        let mut rb = Vec::new();
        let b = self.cond(r, &mut rb)?;
        Ok(self.fun.logical(op, a, b, rb, span(n), out))
    }

    fn unary(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        let (Some(opn), Some(operand)) = (
            n.child_by_field_name("operator"),
            n.child_by_field_name("operand"),
        ) else {
            return Err(unsupported(n, "unary expression"));
        };
        let sp = span(n);
        let op = self.text(opn);
        if op == "-" {
            // Fold the sign into decimal literals (`-2147483648` is only
            // valid that way).
            match operand.kind() {
                "decimal_integer_literal" => {
                    let (v, ty) = int_literal(self.text(operand), true)
                        .map_err(|w| unsupported(operand, w))?;
                    return Ok(mk(ExprKind::IntLit(v), ty, sp));
                }
                "decimal_floating_point_literal" => {
                    let (lit, ty) = float_literal(self.text(operand), true)
                        .map_err(|w| unsupported(operand, w))?;
                    return Ok(mk(ExprKind::FloatLit(lit), ty, sp));
                }
                _ => {}
            }
        }
        let e = self.expr(operand, out)?;
        let bad = |e: &Expr| unsupported(n, format!("operator {op} on {}", super::jname(&e.ty)));
        match op {
            "-" | "+" | "~" => {
                if !e.ty.is_numeric() || (op == "~" && !is_integral(&e.ty)) {
                    return Err(bad(&e));
                }
                let t = promote(&e.ty);
                let e = cast(e, &t);
                if op == "+" {
                    return Ok(e);
                }
                let u = if op == "-" { UnOp::Neg } else { UnOp::BitNot };
                Ok(mk(ExprKind::Unary(u, Box::new(e)), t, sp))
            }
            "!" => {
                if e.ty != Type::Bool {
                    return Err(bad(&e));
                }
                Ok(mk(ExprKind::Unary(UnOp::Not, Box::new(e)), Type::Bool, sp))
            }
            _ => Err(unsupported(opn, format!("operator {op}"))),
        }
    }

    /// `c ? a : b`: a lazy `Cond`, or an `If` into a temporary when a branch
    /// lifts statements.
    fn ternary(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        let (Some(cn), Some(an), Some(bn)) = (
            n.child_by_field_name("condition"),
            n.child_by_field_name("consequence"),
            n.child_by_field_name("alternative"),
        ) else {
            return Err(unsupported(n, "conditional expression"));
        };
        let sp = span(n);
        let c = self.cond(cn, out)?;
        let mut ab = Vec::new();
        let a = self.expr(an, &mut ab)?;
        let mut bb = Vec::new();
        let b = self.expr(bn, &mut bb)?;
        let ty = ternary_type(&a, &b).ok_or_else(|| {
            unsupported(
                n,
                format!(
                    "conditional expression mixing {} and {}",
                    super::jname(&a.ty),
                    super::jname(&b.ty)
                ),
            )
        })?;
        let a = cast(a, &ty);
        let b = cast(b, &ty);
        if ab.is_empty() && bb.is_empty() {
            return Ok(mk(
                ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
                ty,
                sp,
            ));
        }
        let t = self.fun.temp(ty.clone(), sp);
        ab.push(st(
            StmtKind::Assign {
                place: Place::Local(t),
                value: a,
            },
            sp,
        ));
        bb.push(st(
            StmtKind::Assign {
                place: Place::Local(t),
                value: b,
            },
            sp,
        ));
        out.push(st(
            StmtKind::If {
                cond: c,
                then_branch: ab,
                else_branch: bb,
            },
            sp,
        ));
        Ok(mk(ExprKind::Local(t), ty, sp))
    }

    fn cast_expr(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        let (Some(tn), Some(vn)) = (
            n.child_by_field_name("type"),
            n.child_by_field_name("value"),
        ) else {
            return Err(unsupported(n, "cast"));
        };
        let ty = java_type(self.cx.src, tn)
            .map_err(|_| unsupported(n, format!("cast to {}", self.text(tn))))?;
        let e = self.expr(vn, out)?;
        if e.ty == ty {
            return Ok(e);
        }
        if e.ty.is_numeric() && ty.is_numeric() {
            let mut c = cast(e, &ty);
            c.span = span(n);
            return Ok(c);
        }
        Err(unsupported(
            n,
            format!("cast from {} to {}", super::jname(&e.ty), super::jname(&ty)),
        ))
    }

    fn array_creation(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        let Some(tn) = n.child_by_field_name("type") else {
            return Err(unsupported(n, "array creation"));
        };
        let elem = java_type(self.cx.src, tn)
            .map_err(|e| unsupported(n, format!("array of {}", e.describe(Role::Var))))?;
        let kids = named_children(n);
        let dim_exprs: Vec<Node> = kids
            .iter()
            .copied()
            .filter(|c| c.kind() == "dimensions_expr")
            .collect();
        let empty_dims: usize = kids
            .iter()
            .filter(|c| c.kind() == "dimensions")
            .map(|d| self.text(*d).matches('[').count())
            .sum();
        if dim_exprs.len() + empty_dims != 1 || matches!(elem, Type::Array(_)) {
            return Err(unsupported(n, "multi-dimensional array"));
        }
        let ty = Type::Array(Box::new(elem));
        if let Some(init) = n.child_by_field_name("value") {
            return self.array_init(init, &ty, out);
        }
        let Some(dn) = dim_exprs.first() else {
            return Err(unsupported(n, "array creation without a length"));
        };
        let len = self.expr(first_named(*dn)?, out)?;
        if !is_integral(&len.ty) {
            return Err(unsupported(
                *dn,
                format!("array length of type {}", super::jname(&len.ty)),
            ));
        }
        let len = cast(len, &Type::INT);
        Ok(mk(ExprKind::NewArray(Box::new(len)), ty, span(n)))
    }

    /// `{a, b, c}` as a value of array type `ty`.
    pub(super) fn array_init(&mut self, n: Node, ty: &Type, out: &mut Block) -> R<Expr> {
        if !matches!(ty, Type::Array(_)) {
            return Err(unsupported(
                n,
                format!("array initializer for {}", super::jname(ty)),
            ));
        }
        let items = named_children(n);
        if let Some(inner) = items.iter().find(|c| c.kind() == "array_initializer") {
            return Err(unsupported(*inner, "multi-dimensional array initializer"));
        }
        let vals = self.seq(&items, out)?;
        self.array_of(vals, &items, ty, span(n))
    }

    /// A fresh array of type `ty` holding `vals` (lowered from `items`, in
    /// order) each converted to the element type: an array initialiser's
    /// value, and the array a variable-arity call packs its trailing
    /// arguments into.
    pub(super) fn array_of(&self, vals: Vec<Expr>, items: &[Node], ty: &Type, sp: Span) -> R<Expr> {
        let Type::Array(elem) = ty else {
            return Err(super::internal("array type"));
        };
        let mut conv = Vec::with_capacity(vals.len());
        for (v, item) in vals.into_iter().zip(items.iter()) {
            conv.push(self.convert(v, elem, *item)?);
        }
        Ok(mk(ExprKind::ArrayLit(conv), ty.clone(), sp))
    }

    /// A declaration's or field's initialiser converted to `ty`.
    pub(super) fn initializer(&mut self, n: Node, ty: &Type, out: &mut Block) -> R<Expr> {
        if n.kind() == "array_initializer" {
            return self.array_init(n, ty, out);
        }
        self.result_hint = Some((n.id(), ty.clone()));
        let e = self.expr(n, out)?;
        self.convert(e, ty, n)
    }

    // ------------------------------------------------------ assignments

    fn place(&mut self, n: Node, out: &mut Block) -> R<PlaceL> {
        match n.kind() {
            "parenthesized_expression" => {
                let inner = first_named(n)?;
                self.place(inner, out)
            }
            "identifier" => {
                let name = self.text(n);
                if let Some(id) = self.fun.lookup(name) {
                    return Ok(PlaceL::Local(id, self.fun.local_ty(id)));
                }
                self.field_place(n, self.class, name)
            }
            "field_access" => {
                let (Some(obj), Some(field)) = (
                    n.child_by_field_name("object"),
                    n.child_by_field_name("field"),
                ) else {
                    return Err(unsupported(n, "field access"));
                };
                let fname = self.text(field);
                match obj.kind() {
                    "this" => self.field_place(n, self.class, fname),
                    "identifier" if !self.is_value_name(self.text(obj)) => {
                        match self.cx.class_named(self.text(obj)) {
                            Some(c) => self.field_place(n, Some(c), fname),
                            None => Err(unsupported(
                                n,
                                format!("assignment to {}", short(self.text(n))),
                            )),
                        }
                    }
                    _ => Err(unsupported(
                        n,
                        format!("assignment to {}", short(self.text(n))),
                    )),
                }
            }
            "array_access" => {
                let (Some(an), Some(in_)) = (
                    n.child_by_field_name("array"),
                    n.child_by_field_name("index"),
                ) else {
                    return Err(unsupported(n, "array access"));
                };
                let (a, i) = self.two(an, in_, out)?;
                match self.index(a, i, n)?.kind {
                    ExprKind::Index(a, i) => {
                        let elem = a.ty.elem().cloned().unwrap_or(Type::Void);
                        Ok(PlaceL::Index(*a, *i, elem))
                    }
                    _ => Err(unsupported(n, "array access")),
                }
            }
            _ => Err(unsupported(
                n,
                format!("assignment to {}", n.kind().replace('_', " ")),
            )),
        }
    }

    fn field_place(&self, n: Node, class: Option<usize>, name: &str) -> R<PlaceL> {
        if let Some(id) = self.this_field(class, name) {
            if !self.in_constructor() {
                return Err(unsupported(
                    n,
                    format!("assignment to field {name} of a value object outside its constructor"),
                ));
            }
            return Ok(PlaceL::Local(id, self.fun.local_ty(id)));
        }
        let Some(f) = self.cx.field(class, name) else {
            return Err(unsupported(n, format!("unknown identifier {name}")));
        };
        match (&f.ty, f.global) {
            (Err(e), _) => Err(unsupported(n, field_type_error(name, e))),
            (Ok(ty), Some(g)) => {
                if self
                    .cx
                    .globals
                    .get(g.0 as usize)
                    .is_some_and(|g| g.constant.is_some())
                {
                    return Err(unsupported(
                        n,
                        format!("assignment to constant field {name}"),
                    ));
                }
                Ok(PlaceL::Global(g, ty.clone()))
            }
            (Ok(_), None) => Err(unsupported(n, format!("field {name}"))),
        }
    }

    /// Freezes the array and index of an element place so that the
    /// statements `b`, lifted afterwards, cannot change which element is
    /// meant.
    fn stabilise(&mut self, p: PlaceL, b: &Block, out: &mut Block) -> PlaceL {
        match p {
            PlaceL::Index(a, i, t) => {
                let a = self.fun.keep_past(a, b, out);
                let i = self.fun.keep_past(i, b, out);
                PlaceL::Index(a, i, t)
            }
            other => other,
        }
    }

    /// `p = e` and `p op= e`. Compound assignment applies Java's implicit
    /// narrowing: `b += 1` is `b = (byte)(b + 1)`. The left operand is read
    /// before the right one is evaluated.
    pub(super) fn assign(&mut self, n: Node, out: &mut Block, want: bool) -> R<Option<Expr>> {
        let (Some(l), Some(r), Some(opn)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
            n.child_by_field_name("operator"),
        ) else {
            return Err(unsupported(n, "assignment"));
        };
        let sp = span(n);
        let op_text = self.text(opn);
        if self.is_object_variable(l) {
            self.object_assign(n, out)?;
            if want {
                return Err(unsupported(n, "object used as a value"));
            }
            return Ok(None);
        }
        let p = self.place(l, out)?;
        let pty = p.ty();
        let mut rb = Vec::new();
        let (p, value) = if op_text == "=" {
            self.result_hint = Some((r.id(), pty.clone()));
            let v = self.expr(r, &mut rb)?;
            let p = if rb.is_empty() {
                p
            } else {
                let p = self.stabilise(p, &rb, out);
                out.append(&mut rb);
                p
            };
            let v = self.convert(v, &pty, r)?;
            (p, v)
        } else {
            let bop_text = op_text.strip_suffix('=').unwrap_or(op_text);
            let op = crate::lang::lower::binop_token(bop_text, crate::ir::Lang::Java)
                .ok_or_else(|| unsupported(opn, format!("operator {op_text}")))?;
            if self.stringy(r, 0) {
                return Err(unsupported(
                    n,
                    "string concatenation outside System.out.print",
                ));
            }
            let v = self.expr(r, &mut rb)?;
            let (p, old) = if rb.is_empty() {
                let old = p.read(span(l));
                (p, old)
            } else {
                let p = self.stabilise(p, &rb, out);
                let old = p.read(span(l));
                let old = self.fun.keep_past(old, &rb, out);
                out.append(&mut rb);
                (p, old)
            };
            let val = binop(op, old, v, n, bop_text)?;
            if val.ty.is_numeric() != pty.is_numeric() {
                return Err(unsupported(
                    n,
                    format!("operator {op_text} on {}", super::jname(&pty)),
                ));
            }
            (p, cast(val, &pty))
        };
        out.push(st(
            StmtKind::Assign {
                place: p.to_ir(),
                value,
            },
            sp,
        ));
        Ok(want.then(|| p.read(sp)))
    }

    /// `++x`, `x--`, ... as `x = (T)(x + 1)`; a used postfix value is saved
    /// in a temporary first.
    pub(super) fn update(&mut self, n: Node, out: &mut Block, want: bool) -> R<Option<Expr>> {
        let sp = span(n);
        let mut c = n.walk();
        let kids: Vec<Node> = n.children(&mut c).collect();
        let prefix = kids
            .first()
            .is_some_and(|k| matches!(k.kind(), "++" | "--"));
        let inc = kids.iter().any(|k| k.kind() == "++");
        let operand = first_named(n)?;
        let p = self.place(operand, out)?;
        let pty = p.ty();
        if !pty.is_numeric() {
            return Err(unsupported(
                n,
                format!(
                    "{} on {}",
                    if inc { "++" } else { "--" },
                    super::jname(&pty)
                ),
            ));
        }
        let pt = promote(&pty);
        let one = match &pt {
            Type::Float(_) => mk(
                ExprKind::FloatLit(FloatLit {
                    value: 1.0,
                    text: "1".into(),
                }),
                pt.clone(),
                sp,
            ),
            _ => mk(ExprKind::IntLit(1), pt.clone(), sp),
        };
        let op = if inc { BinOp::Add } else { BinOp::Sub };
        let op_text = if inc { "+" } else { "-" };
        if want && !prefix {
            let old = p.read(sp);
            let t = self.fun.temp(pty.clone(), sp);
            out.push(st(
                StmtKind::Assign {
                    place: Place::Local(t),
                    value: old,
                },
                sp,
            ));
            let tv = mk(ExprKind::Local(t), pty.clone(), sp);
            let val = cast(binop(op, tv.clone(), one, n, op_text)?, &pty);
            out.push(st(
                StmtKind::Assign {
                    place: p.to_ir(),
                    value: val,
                },
                sp,
            ));
            return Ok(Some(tv));
        }
        let val = cast(binop(op, p.read(sp), one, n, op_text)?, &pty);
        out.push(st(
            StmtKind::Assign {
                place: p.to_ir(),
                value: val,
            },
            sp,
        ));
        Ok(want.then(|| p.read(sp)))
    }

    /// An expression used as a statement: its value is discarded.
    pub(super) fn expr_stmt(&mut self, n: Node, out: &mut Block) -> R<()> {
        self.enter(n)?;
        let r = match n.kind() {
            "assignment_expression" => self.assign(n, out, false).map(|_| ()),
            "update_expression" => self.update(n, out, false).map(|_| ()),
            "method_invocation" => self.invocation(n, out, false).map(|_| ()),
            "object_creation_expression" if self.is_object_expr(n) => {
                self.object_value(n, out).map(|_| ())
            }
            "object_creation_expression" => Err(self.object_creation(n)),
            "parenthesized_expression" => first_named(n).and_then(|i| self.expr_stmt(i, out)),
            k => Err(unsupported(
                n,
                format!("{} as a statement", k.replace('_', " ")),
            )),
        };
        self.leave();
        r
    }

    // ------------------------------------------------------------ calls

    /// Method calls: same-file methods (`f(x)`, `this.f(x)`, `C.f(x)`),
    /// `Math.*` intrinsics and `System.out.print/println`.
    pub(super) fn invocation(&mut self, n: Node, out: &mut Block, want: bool) -> R<Option<Expr>> {
        let Some(name_node) = n.child_by_field_name("name") else {
            return Err(unsupported(n, "method call"));
        };
        let name = self.text(name_node);
        let args: Vec<Node> = n
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        if n.child_by_field_name("type_arguments").is_some() {
            return Err(unsupported(n, "generic method call"));
        }
        if !self.const_mode {
            match self.object_call_inner(n, out, want)? {
                Some(super::objects::ObjectCall::Scalar(e)) => return Ok(e),
                Some(super::objects::ObjectCall::Object(..)) => {
                    if want {
                        return Err(unsupported(n, "object used as a value"));
                    }
                    return Ok(None);
                }
                None => {}
            }
        }
        let Some(obj) = n.child_by_field_name("object") else {
            // A statically imported JDK method is the same model as the
            // qualified call (`min(a, b)` after `import static
            // java.lang.Math.min;` is `Math.min(a, b)`).
            if let Some(class) = self.static_jdk_class(name) {
                if let Some(e) = self.jdk_method(n, class, name, &args, out)? {
                    return Ok(Some(e));
                }
                if class == "Math" || class == "StrictMath" {
                    return self.intrinsic(n, name, &args, out).map(Some);
                }
            }
            return self.program_call(n, None, name, &args, out, want);
        };
        let otext = self.text(obj);
        if self.caught.iter().any(|c| c == otext) {
            return Err(unsupported(
                obj,
                format!("use of the caught exception {otext}"),
            ));
        }
        match obj.kind() {
            "this" => return self.program_call(n, None, name, &args, out, want),
            "identifier" if !self.is_value_name(otext) => {
                if let Some(c) = self.cx.class_named(otext) {
                    return self.program_call(n, Some(c), name, &args, out, want);
                }
                if let Some(e) = self.jdk_method(n, otext, name, &args, out)? {
                    return Ok(Some(e));
                }
                if otext == "Math" || otext == "StrictMath" {
                    return self.intrinsic(n, name, &args, out).map(Some);
                }
                let callee = self
                    .cx
                    .external_name(Some(otext), name)
                    .unwrap_or_else(|| format!("{otext}.{name}"));
                return self.external_call(n, &callee, &args, out, want);
            }
            "field_access" if otext == "System.out" => {
                if !matches!(name, "println" | "print") {
                    return Err(unsupported(n, format!("call to System.out.{name}")));
                }
                if want {
                    return Err(unsupported(
                        n,
                        format!("use of the result of System.out.{name}"),
                    ));
                }
                self.print(n, name == "println", &args, out)?;
                return Ok(None);
            }
            _ => {}
        }
        if let Some(e) = self.string_method(n, obj, name, &args, out)? {
            return Ok(Some(e));
        }
        // A method of a value: report what the value is if it is itself
        // unsupported (a String field), else the call.
        let o = self.expr(obj, out)?;
        Err(unsupported(
            n,
            format!("call to method {name} of a {}", super::jname(&o.ty)),
        ))
    }

    fn program_call(
        &mut self,
        n: Node,
        class: Option<usize>,
        name: &str,
        arg_nodes: &[Node],
        out: &mut Block,
        want: bool,
    ) -> R<Option<Expr>> {
        if self.const_mode {
            return Err(unsupported(n, "call in a constant"));
        }
        let sp = span(n);
        let k = arg_nodes.len();
        let cands = self.candidates_where(class, name, |m| {
            m.arity == k || (m.varargs && m.arity <= k + 1)
        });
        if cands.is_empty() {
            if class.is_none() && !self.cx.methods.iter().any(|m| m.name == name) {
                // Not a method of the file: statically imported (a pure
                // function of its arguments, by assumption), or inherited
                // (its receiver's state is not modelled).
                let Some(callee) = self.cx.external_name(None, name) else {
                    return Err(unsupported(
                        n,
                        format!(
                            "call to {name}, which is neither in the file nor statically imported"
                        ),
                    ));
                };
                return self.external_call(n, &callee, arg_nodes, out, want);
            }
            return Err(unsupported(n, format!("call to unknown method {name}")));
        }
        let variable = cands
            .iter()
            .any(|&i| self.cx.methods.get(i).is_some_and(|m| m.varargs));
        if cands.len() == 1
            && self.cx.methods.get(cands[0]).is_some_and(|m| {
                (m.param_classes.iter().any(Option::is_some) || m.ret_class.is_some())
                    && !(m.varargs && m.arity != k)
            })
        {
            return self.object_program_call(n, cands[0], arg_nodes, out, want);
        }
        let args = self.seq_with(k, out, |s, i, b| match arg_nodes.get(i) {
            Some(n) => s.expr(*n, b),
            None => Err(super::internal("operand")),
        })?;
        let (pick, how) = match cands.as_slice() {
            [one] if !variable => (*one, Invocation::Fixed),
            _ => self.overload(n, name, &cands, &args, variable)?,
        };
        let Some(m) = self.cx.methods.get(pick) else {
            return Err(unsupported(n, format!("call to unknown method {name}")));
        };
        let (Ok(params), Ok(ret)) = (&m.params, &m.ret) else {
            return Err(unsupported(
                n,
                format!("call to method {name}, whose signature is unsupported"),
            ));
        };
        let fixed = match how {
            Invocation::Fixed => params.len(),
            Invocation::Variable => params.len().saturating_sub(1),
        };
        let mut conv = Vec::with_capacity(params.len());
        let mut rest = args.into_iter().zip(arg_nodes.iter().copied());
        for ((a, an), (_, t, _)) in rest.by_ref().take(fixed).zip(params.iter()) {
            conv.push(self.convert(a, t, an)?);
        }
        if how == Invocation::Variable {
            let Some((_, array_ty, _)) = params.last() else {
                return Err(super::internal("variable-arity parameter"));
            };
            let (vals, items): (Vec<Expr>, Vec<Node>) = rest.unzip();
            conv.push(self.array_of(vals, &items, array_ty, sp)?);
        }
        let func = FuncId(pick as u32);
        if want {
            if *ret == Type::Void {
                return Err(unsupported(
                    n,
                    format!("use of the result of void method {name}"),
                ));
            }
            let t = self.fun.temp(ret.clone(), sp);
            out.push(st(
                StmtKind::Call {
                    dest: Some(Place::Local(t)),
                    func,
                    args: conv,
                },
                sp,
            ));
            return Ok(Some(mk(ExprKind::Local(t), ret.clone(), sp)));
        }
        out.push(st(
            StmtKind::Call {
                dest: None,
                func,
                args: conv,
            },
            sp,
        ));
        Ok(None)
    }

    /// The overload among `cands` that Java calls with arguments `args`,
    /// and how (see [`overloads`]), or why none can be chosen; `variable`
    /// when some candidate has a variable-arity parameter. A call no
    /// overload takes, or no single most specific one takes (ambiguous in
    /// Java), is refused rather than guessed.
    fn overload(
        &self,
        n: Node,
        name: &str,
        cands: &[usize],
        args: &[Expr],
        variable: bool,
    ) -> R<(usize, Invocation)> {
        // Where variable arity is in play, a candidate with an object
        // parameter or result takes part as an unknown signature (its
        // calls are lowered by `object_program_call`, without packing).
        let known: Vec<Option<(Vec<Type>, bool)>> = cands
            .iter()
            .map(|&i| {
                let m = self.cx.methods.get(i)?;
                let objects = m.param_classes.iter().any(Option::is_some) || m.ret_class.is_some();
                if variable && objects {
                    return None;
                }
                let ps = m.params.as_ref().ok()?;
                Some((ps.iter().map(|(_, t, _)| t.clone()).collect(), m.varargs))
            })
            .collect();
        let sigs: Vec<overloads::Sig> = known
            .iter()
            .map(|s| s.as_ref().map(|(ps, var)| (ps.as_slice(), *var)))
            .collect();
        let types: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        let names = types
            .iter()
            .map(super::jname)
            .collect::<Vec<_>>()
            .join(", ");
        match overloads::choose(&sigs, &types) {
            Ok((i, how)) => cands
                .get(i)
                .map(|&m| (m, how))
                .ok_or_else(|| super::internal("overload")),
            Err(NoChoice::NoneApplicable) if variable => Err(unsupported(
                n,
                format!(
                    "call to {name}({names}): no overload takes these argument types by \
                     widening or variable arity (boxing is not modelled)"
                ),
            )),
            Err(NoChoice::NoneApplicable) => Err(unsupported(
                n,
                format!(
                    "call to {name}({names}): no overload takes these argument types by \
                     widening (boxing and variable arity are not modelled)"
                ),
            )),
            Err(NoChoice::Ambiguous) => Err(unsupported(
                n,
                format!("call to {name}({names}): no overload is most specific (ambiguous)"),
            )),
            Err(NoChoice::Unknown) => Err(unsupported(
                n,
                format!(
                    "call to {name}({names}): no overload takes these argument types by \
                     widening, and one whose signature is unsupported could be the one \
                     Java calls"
                ),
            )),
        }
    }

    /// A call to a method outside the file ([`StmtKind::External`]). Its
    /// arguments must be scalars or string literals (an array could be
    /// written by the callee); the result type comes from where the value
    /// goes (declaration, assignment, return, condition), as the file does
    /// not say it.
    fn external_call(
        &mut self,
        n: Node,
        callee: &str,
        arg_nodes: &[Node],
        out: &mut Block,
        want: bool,
    ) -> R<Option<Expr>> {
        if self.const_mode {
            return Err(unsupported(n, "call in a constant"));
        }
        if let Some(check) = Precondition::named(callee) {
            return self.precondition(n, check, callee, arg_nodes, out, want);
        }
        if matches!(
            callee,
            "java.util.Objects.requireNonNull"
                | "java.util.Objects.isNull"
                | "java.util.Objects.nonNull"
        ) {
            return self.null_helper(n, callee, arg_nodes, out, want);
        }
        let sp = span(n);
        let hint = self.hinted_type(n);
        let mut args = Vec::with_capacity(arg_nodes.len());
        for a in arg_nodes {
            if a.kind() == "string_literal" {
                args.push(self.string_literal(*a)?);
                continue;
            }
            let e = self.expr(*a, out)?;
            if !(e.ty.is_numeric() || e.ty == Type::Bool) {
                let ty = if self.text_local(*a).is_some() {
                    "String".to_string()
                } else {
                    super::jname(&e.ty)
                };
                return Err(unsupported(
                    *a,
                    format!("argument of type {ty} to {callee}, a method outside the file"),
                ));
            }
            args.push(e);
        }
        if !want {
            out.push(st(
                StmtKind::External {
                    dest: None,
                    callee: callee.to_string(),
                    args,
                    ret: Type::Void,
                },
                sp,
            ));
            return Ok(None);
        }
        let Some(ty) = hint.filter(|t| t.is_numeric() || *t == Type::Bool) else {
            return Err(unsupported(
                n,
                format!(
                    "the result of {callee}, a method outside the file, where its type is not given (use it to initialise or assign a variable, return it, or test it)"
                ),
            ));
        };
        let t = self.fun.temp(ty.clone(), sp);
        out.push(st(
            StmtKind::External {
                dest: Some(Place::Local(t)),
                callee: callee.to_string(),
                args,
                ret: ty.clone(),
            },
            sp,
        ));
        Ok(Some(mk(ExprKind::Local(t), ty, sp)))
    }

    /// A precondition helper of Guava or the JDK, with its documented
    /// behaviour instead of an uninterpreted function: `checkArgument(c,
    /// msg)` is `if (!c) throw new IllegalArgumentException(msg)`. Every
    /// argument is evaluated before the call (Java), so the message ones
    /// must be inert, as in a `throw`.
    fn precondition(
        &mut self,
        n: Node,
        check: Precondition,
        callee: &str,
        arg_nodes: &[Node],
        out: &mut Block,
        want: bool,
    ) -> R<Option<Expr>> {
        let sp = span(n);
        let scalars = match check {
            Precondition::Argument | Precondition::State => 1,
            Precondition::PositionIndexes
            | Precondition::ObjectsFromTo
            | Precondition::ObjectsFromSize => 3,
            _ => 2,
        };
        let max = match check {
            Precondition::ObjectsIndex => 2,
            Precondition::PositionIndexes
            | Precondition::ObjectsFromTo
            | Precondition::ObjectsFromSize => 3,
            Precondition::Argument | Precondition::State => usize::MAX,
            _ => 3,
        };
        helper_arguments(n, callee, arg_nodes, scalars, max)?;
        let throw = |class: &str| st(StmtKind::Throw(Thrown::Exception(class.into())), sp);
        let lit = |v: i128| mk(ExprKind::IntLit(v), Type::INT, sp);
        let cmp = |op: BinOp, a: &Expr, b: &Expr| {
            mk(
                ExprKind::Binary(op, Box::new(a.clone()), Box::new(b.clone())),
                Type::Bool,
                sp,
            )
        };
        if scalars == 1 {
            let c = self.cond(arg_nodes[0], out)?;
            let class = if check == Precondition::Argument {
                "IllegalArgumentException"
            } else {
                "IllegalStateException"
            };
            out.push(st(
                StmtKind::If {
                    cond: not(c),
                    then_branch: vec![throw(class)],
                    else_branch: Vec::new(),
                },
                sp,
            ));
            return Ok(None);
        }
        // Index checks: both operands once, as ints, into temporaries.
        let mut vals = Vec::new();
        for a in &arg_nodes[..scalars] {
            let e = self.expr(*a, out)?;
            let e = self.convert(e, &Type::INT, *a)?;
            let t = self.fun.temp(Type::INT, sp);
            out.push(st(
                StmtKind::Assign {
                    place: Place::Local(t),
                    value: e,
                },
                sp,
            ));
            vals.push(mk(ExprKind::Local(t), Type::INT, sp));
        }
        // `index` is the one Guava's message reports first (`start` for
        // a range); `size` the last argument.
        let (index, size) = (&vals[0], &vals[scalars - 1]);
        let past_end = match check {
            Precondition::PositionIndex => cmp(BinOp::Gt, index, size),
            Precondition::PositionIndexes | Precondition::ObjectsFromTo => {
                let end = &vals[1];
                or(cmp(BinOp::Lt, end, index), cmp(BinOp::Gt, end, size), sp)
            }
            Precondition::ObjectsFromSize => {
                // The JDK's `(length | from | size) < 0 || size > length -
                // from`: the subtraction runs only on non-negative operands
                // (lazy `||`), so it cannot overflow.
                let count = &vals[1];
                let room = mk(
                    ExprKind::Binary(BinOp::Sub, Box::new(size.clone()), Box::new(index.clone())),
                    Type::INT,
                    sp,
                );
                or(
                    or(
                        cmp(BinOp::Lt, count, &lit(0)),
                        cmp(BinOp::Lt, size, &lit(0)),
                        sp,
                    ),
                    cmp(BinOp::Gt, count, &room),
                    sp,
                )
            }
            _ => cmp(BinOp::Ge, index, size),
        };
        let bad = or(cmp(BinOp::Lt, index, &lit(0)), past_end, sp);
        let thrown = if matches!(
            check,
            Precondition::ObjectsIndex
                | Precondition::ObjectsFromTo
                | Precondition::ObjectsFromSize
        ) {
            vec![throw("IndexOutOfBoundsException")]
        } else {
            // Guava builds the message first, and that throws
            // IllegalArgumentException for a negative size with an index
            // that is not negative (for a range: a start that is not
            // negative, which is then past the negative size).
            vec![st(
                StmtKind::If {
                    cond: mk(
                        ExprKind::Binary(
                            BinOp::And,
                            Box::new(cmp(BinOp::Ge, index, &lit(0))),
                            Box::new(cmp(BinOp::Lt, size, &lit(0))),
                        ),
                        Type::Bool,
                        sp,
                    ),
                    then_branch: vec![throw("IllegalArgumentException")],
                    else_branch: vec![throw("IndexOutOfBoundsException")],
                },
                sp,
            )]
        };
        out.push(st(
            StmtKind::If {
                cond: bad,
                then_branch: thrown,
                else_branch: Vec::new(),
            },
            sp,
        ));
        if check == Precondition::PositionIndexes {
            // `void` in Guava.
            if want {
                return Err(unsupported(n, format!("use of the result of {callee}")));
            }
            return Ok(None);
        }
        Ok(want.then(|| index.clone()))
    }

    /// The type [`FnCx::result_hint`] gives `n` (through parentheses).
    fn hinted_type(&self, n: Node) -> Option<Type> {
        let (id, ty) = self.result_hint.as_ref()?;
        let mut cur = Some(n);
        while let Some(c) = cur {
            if c.id() == *id {
                return Some(ty.clone());
            }
            cur = c
                .parent()
                .filter(|p| p.kind() == "parenthesized_expression");
        }
        None
    }

    /// Methods named `name` with `arity` parameters: of `class` when the
    /// call names one; otherwise of the current class, then of its enclosing
    /// classes, then anywhere in the file.
    pub(super) fn candidates(&self, class: Option<usize>, name: &str, arity: usize) -> Vec<usize> {
        self.candidates_where(class, name, |m| m.arity == arity)
    }

    /// Methods named `name` that `fits`, searched as [`Self::candidates`]
    /// does: the first class (named, current, enclosing) with one, else
    /// the whole file.
    fn candidates_where(
        &self,
        class: Option<usize>,
        name: &str,
        fits: impl Fn(&super::MethodInfo) -> bool,
    ) -> Vec<usize> {
        let matching = |c: Option<usize>| -> Vec<usize> {
            self.cx
                .methods
                .iter()
                .enumerate()
                .filter(|(_, m)| m.class == c && m.name == name && fits(m))
                .map(|(i, _)| i)
                .collect()
        };
        if class.is_some() {
            return matching(class);
        }
        let mut c = self.class;
        let mut guard = 0;
        while let Some(ci) = c {
            let v = matching(Some(ci));
            if !v.is_empty() {
                return v;
            }
            c = self.cx.classes.get(ci).and_then(|k| k.outer);
            guard += 1;
            if guard > self.cx.classes.len() {
                break;
            }
        }
        self.cx
            .methods
            .iter()
            .enumerate()
            .filter(|(_, m)| m.name == name && fits(m))
            .map(|(i, _)| i)
            .collect()
    }

    /// `Math.f(...)`: arguments promoted as Java's overload resolution
    /// would (`abs/min/max` keep int/long/float/double; `round` and
    /// `getExponent` take float unless given a double; the rest double).
    fn intrinsic(&mut self, n: Node, name: &str, arg_nodes: &[Node], out: &mut Block) -> R<Expr> {
        use Intrinsic as I;
        let sp = span(n);
        let (f, arity) = match name {
            "abs" => (I::Abs, 1),
            "min" => (I::Min, 2),
            "max" => (I::Max, 2),
            "floor" => (I::Floor, 1),
            "ceil" => (I::Ceil, 1),
            "round" => (I::Round, 1),
            "sqrt" => (I::Sqrt, 1),
            "cbrt" => (I::Cbrt, 1),
            "pow" => (I::Pow, 2),
            "exp" => (I::Exp, 1),
            "log" => (I::Log, 1),
            "log10" => (I::Log10, 1),
            "sin" => (I::Sin, 1),
            "cos" => (I::Cos, 1),
            "tan" => (I::Tan, 1),
            "asin" => (I::Asin, 1),
            "acos" => (I::Acos, 1),
            "atan" => (I::Atan, 1),
            "atan2" => (I::Atan2, 2),
            "sinh" => (I::Sinh, 1),
            "cosh" => (I::Cosh, 1),
            "tanh" => (I::Tanh, 1),
            "hypot" => (I::Hypot, 2),
            "getExponent" => (I::GetExponent, 1),
            _ => return Err(unsupported(n, format!("call to Math.{name}"))),
        };
        if arg_nodes.len() != arity {
            return Err(unsupported(
                n,
                format!("call to Math.{name} with {} arguments", arg_nodes.len()),
            ));
        }
        let args = self.seq(arg_nodes, out)?;
        if let Some(a) = args.iter().find(|a| !a.ty.is_numeric()) {
            return Err(unsupported(
                n,
                format!("Math.{name} of {}", super::jname(&a.ty)),
            ));
        }
        let f32_ = Type::Float(FloatTy::F32);
        let (args, ty): (Vec<Expr>, Type) = match f {
            I::Abs => {
                let t = args.first().map(|a| promote(&a.ty)).unwrap_or(Type::INT);
                (args.into_iter().map(|a| cast(a, &t)).collect(), t)
            }
            I::Min | I::Max => {
                let t = match (args.first(), args.get(1)) {
                    (Some(a), Some(b)) => bnp(&a.ty, &b.ty).unwrap_or(Type::DOUBLE),
                    _ => Type::DOUBLE,
                };
                (args.into_iter().map(|a| cast(a, &t)).collect(), t)
            }
            I::Round | I::GetExponent => {
                let is_double = args.first().is_some_and(|a| a.ty == Type::DOUBLE);
                let at = if is_double { Type::DOUBLE } else { f32_ };
                let rt = if f == I::Round && is_double {
                    Type::LONG
                } else {
                    Type::INT
                };
                (args.into_iter().map(|a| cast(a, &at)).collect(), rt)
            }
            _ => (
                args.into_iter().map(|a| cast(a, &Type::DOUBLE)).collect(),
                Type::DOUBLE,
            ),
        };
        Ok(mk(ExprKind::Intrinsic(f, args), ty, sp))
    }

    // ------------------------------------------------------------ print

    /// Whether `n` has static type `String` (decides whether `+` is a
    /// concatenation).
    fn stringy(&self, n: Node, depth: u32) -> bool {
        if depth > super::MAX_DEPTH {
            return false;
        }
        match n.kind() {
            "string_literal" => true,
            "parenthesized_expression" => first_named(n).is_ok_and(|i| self.stringy(i, depth + 1)),
            "binary_expression" => {
                n.child_by_field_name("operator")
                    .is_some_and(|o| self.text(o) == "+")
                    && (n
                        .child_by_field_name("left")
                        .is_some_and(|l| self.stringy(l, depth + 1))
                        || n.child_by_field_name("right")
                            .is_some_and(|r| self.stringy(r, depth + 1)))
            }
            "ternary_expression" => {
                n.child_by_field_name("consequence")
                    .is_some_and(|c| self.stringy(c, depth + 1))
                    || n.child_by_field_name("alternative")
                        .is_some_and(|c| self.stringy(c, depth + 1))
            }
            "identifier" => {
                let name = self.text(n);
                if let Some(id) = self.fun.lookup(name) {
                    return self.fun.is_text(id);
                }
                self.cx
                    .field(self.class, name)
                    .is_some_and(|f| matches!(&f.ty, Err(TyErr::Class(c)) if c == "String"))
            }
            "method_invocation" => n
                .child_by_field_name("name")
                .is_some_and(|m| matches!(self.text(m), "toString" | "valueOf")),
            _ => false,
        }
    }

    /// The operands of a string concatenation in Java's evaluation order:
    /// `"a" + x + y` → `["a", x, y]`, `x + y + "a"` → `[x + y, "a"]`.
    fn flatten<'a>(&self, n: Node<'a>, parts: &mut Vec<Node<'a>>, depth: u32) -> R<()> {
        if depth > super::MAX_DEPTH {
            return Err(unsupported(n, "string concatenation nested too deeply"));
        }
        if self.stringy(n, 0) {
            match n.kind() {
                "parenthesized_expression" => {
                    return self.flatten(first_named(n)?, parts, depth + 1);
                }
                "binary_expression" => {
                    if let (Some(l), Some(r)) = (
                        n.child_by_field_name("left"),
                        n.child_by_field_name("right"),
                    ) {
                        self.flatten(l, parts, depth + 1)?;
                        return self.flatten(r, parts, depth + 1);
                    }
                }
                _ => {}
            }
        }
        parts.push(n);
        Ok(())
    }

    fn print(&mut self, n: Node, newline: bool, args: &[Node], out: &mut Block) -> R<()> {
        let sp = span(n);
        let mut parts = Vec::new();
        match args {
            [] if newline => {}
            [a] => self.flatten(*a, &mut parts, 0)?,
            _ => {
                return Err(unsupported(
                    n,
                    format!("System.out.print with {} arguments", args.len()),
                ));
            }
        }
        let vals = self.seq_with(parts.len(), out, |s, i, b| {
            let Some(p) = parts.get(i).copied() else {
                return Err(unsupported(n, "print argument"));
            };
            if p.kind() == "string_literal" {
                return s.string_literal(p);
            }
            if s.text_local(p).is_some() {
                return Err(unsupported(p, "printing a String variable"));
            }
            let e = s.expr(p, b)?;
            if matches!(e.ty, Type::Array(_)) {
                return Err(unsupported(p, "printing an array"));
            }
            Ok(e)
        })?;
        out.push(st(
            StmtKind::Print {
                kind: PrintKind::Java { newline },
                args: vals,
            },
            sp,
        ));
        Ok(())
    }

    /// The local a String-valued expression names (through parentheses).
    pub(super) fn text_local(&self, n: Node) -> Option<LocalId> {
        let mut n = n;
        while n.kind() == "parenthesized_expression" {
            n = first_named(n).ok()?;
        }
        if n.kind() != "identifier" {
            return None;
        }
        self.fun
            .lookup(self.text(n))
            .filter(|id| self.fun.is_text(*id))
    }

    /// The initialiser of a String variable: a literal or another String
    /// variable.
    pub(super) fn text_value(&mut self, n: Node, out: &mut Block) -> R<Expr> {
        if self.is_text_valued(n) {
            return self.expr(n, out);
        }
        Err(unsupported(
            n,
            "String value other than a literal or a String variable",
        ))
    }

    /// Whether `n` is a string literal or a String variable (through
    /// parentheses).
    pub(super) fn is_text_valued(&self, n: Node) -> bool {
        let mut v = n;
        while v.kind() == "parenthesized_expression" {
            match first_named(v) {
                Ok(inner) => v = inner,
                Err(_) => return false,
            }
        }
        v.kind() == "string_literal" || self.text_local(v).is_some()
    }

    /// The UTF-16 units of string literal `n`.
    fn literal_units(&self, n: Node) -> R<Vec<u16>> {
        let t = self.text(n);
        if t.starts_with("\"\"\"") {
            return Err(unsupported(n, "text block"));
        }
        let body = t
            .strip_prefix('"')
            .and_then(|t| t.strip_suffix('"'))
            .unwrap_or("");
        decode_escapes(body).map_err(|w| unsupported(n, format!("string literal: {w}")))
    }

    /// A string literal as a value: a fresh `char` array of its units (a
    /// String no code writes, so a fresh copy is the same value).
    fn text_literal(&self, n: Node) -> R<Expr> {
        let sp = span(n);
        let ch = Type::Int(crate::ir::IntTy::JAVA_CHAR);
        let units = self.literal_units(n)?;
        let items = units
            .iter()
            .map(|u| mk(ExprKind::IntLit(i128::from(*u)), ch.clone(), sp))
            .collect();
        Ok(mk(ExprKind::ArrayLit(items), super::text_type(), sp))
    }

    /// `s.length()`, `s.isEmpty()`, `s.charAt(i)` on a String variable or
    /// literal, and `"…".indexOf(c)` on a literal, as the JDK defines them;
    /// `None` when `obj` is not a String. Other String methods are refused.
    fn string_method(
        &mut self,
        n: Node,
        obj: Node,
        name: &str,
        args: &[Node],
        out: &mut Block,
    ) -> R<Option<Expr>> {
        let sp = span(n);
        let mut o = obj;
        while o.kind() == "parenthesized_expression" {
            o = first_named(o)?;
        }
        let literal = (o.kind() == "string_literal")
            .then(|| self.literal_units(o))
            .transpose()?;
        let recv = match (&literal, self.text_local(o)) {
            (Some(_), _) => self.text_literal(o)?,
            (None, Some(id)) => mk(ExprKind::Local(id), super::text_type(), span(o)),
            (None, None) => return Ok(None),
        };
        let int = |v: i128| mk(ExprKind::IntLit(v), Type::INT, sp);
        let bin = |op: BinOp, a: Expr, b: Expr, ty: Type| {
            mk(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, sp)
        };
        let length = |r: &Expr| mk(ExprKind::Length(Box::new(r.clone())), Type::INT, sp);
        match (name, args) {
            ("length", []) => Ok(Some(length(&recv))),
            ("isEmpty", []) => Ok(Some(bin(BinOp::Eq, length(&recv), int(0), Type::Bool))),
            ("charAt", [i]) => {
                // The receiver first, then the index (which may assign the
                // receiver's variable: Java calls the String it read
                // before); the call then faults on a null receiver before
                // it checks the index.
                let recv = if literal.is_some() || assigns(*i) {
                    let t = self.fun.temp(super::text_type(), sp);
                    out.push(st(
                        StmtKind::Assign {
                            place: Place::Local(t),
                            value: recv,
                        },
                        sp,
                    ));
                    mk(ExprKind::Local(t), super::text_type(), sp)
                } else {
                    recv
                };
                let ie = self.expr(*i, out)?;
                let ie = self.convert(ie, &Type::INT, *i)?;
                let t = self.fun.temp(Type::INT, sp);
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(t),
                        value: ie,
                    },
                    sp,
                ));
                let idx = mk(ExprKind::Local(t), Type::INT, sp);
                let bad = bin(
                    BinOp::Or,
                    bin(BinOp::Ge, idx.clone(), length(&recv), Type::Bool),
                    bin(BinOp::Lt, idx.clone(), int(0), Type::Bool),
                    Type::Bool,
                );
                out.push(st(
                    StmtKind::If {
                        cond: bad,
                        then_branch: vec![st(
                            StmtKind::Throw(Thrown::Exception(
                                "StringIndexOutOfBoundsException".into(),
                            )),
                            sp,
                        )],
                        else_branch: Vec::new(),
                    },
                    sp,
                ));
                let ch = Type::Int(crate::ir::IntTy::JAVA_CHAR);
                Ok(Some(mk(
                    ExprKind::Index(Box::new(recv), Box::new(idx)),
                    ch,
                    sp,
                )))
            }
            ("indexOf", [c]) if literal.is_some() => {
                let units = literal.unwrap_or_default();
                if units.iter().any(|u| (0xD800..0xE000).contains(u)) {
                    return Err(unsupported(
                        o,
                        "String.indexOf on a literal with surrogate pairs",
                    ));
                }
                let ce = self.expr(*c, out)?;
                if !super::is_integral(&ce.ty) {
                    return Err(unsupported(
                        *c,
                        "String.indexOf of a String (only of a character)",
                    ));
                }
                let ce = self.convert(ce, &Type::INT, *c)?;
                let t = self.fun.temp(Type::INT, sp);
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(t),
                        value: ce,
                    },
                    sp,
                ));
                // A character below U+10000 is found as the unit it is;
                // any other value is no unit of the literal.
                let c = mk(ExprKind::Local(t), Type::INT, sp);
                let mut e = int(-1);
                for (k, u) in units.iter().enumerate().rev() {
                    let hit = bin(BinOp::Eq, c.clone(), int(i128::from(*u)), Type::Bool);
                    e = mk(
                        ExprKind::Cond(Box::new(hit), Box::new(int(k as i128)), Box::new(e)),
                        Type::INT,
                        sp,
                    );
                }
                Ok(Some(e))
            }
            ("equals", [a]) => self.string_equals(recv, literal.as_deref(), *a, out),
            ("startsWith" | "endsWith", [a]) => {
                let Some(units) = self.literal_arg(*a)? else {
                    return Err(unsupported(
                        *a,
                        format!("String.{name} of a String other than a literal"),
                    ));
                };
                if literal.is_none() {
                    self.fault_if_null(&recv, sp, out);
                }
                Ok(Some(affix(&recv, &units, name == "endsWith", sp)))
            }
            _ => Err(unsupported(
                n,
                format!(
                    "String.{name} with {} argument(s) (a String is read with length, charAt, \
                     isEmpty, equals, startsWith and endsWith of a literal; a literal's indexOf \
                     of a character)",
                    args.len()
                ),
            )),
        }
    }

    /// The units of `n` when it is a string literal (through parentheses).
    pub(super) fn literal_arg(&self, n: Node) -> R<Option<Vec<u16>>> {
        let mut a = n;
        while a.kind() == "parenthesized_expression" {
            a = first_named(a)?;
        }
        (a.kind() == "string_literal")
            .then(|| self.literal_units(a))
            .transpose()
    }

    /// `if (x == null) throw new NullPointerException()`: a method of a null
    /// String called, a null String switched on, `requireNonNull` of null.
    pub(super) fn fault_if_null(&mut self, x: &Expr, sp: Span, out: &mut Block) {
        out.push(st(
            StmtKind::If {
                cond: mk(ExprKind::IsNull(Box::new(x.clone())), Type::Bool, sp),
                then_branch: vec![st(
                    StmtKind::Throw(Thrown::Exception(Thrown::JAVA_NULL_POINTER.into())),
                    sp,
                )],
                else_branch: Vec::new(),
            },
            sp,
        ));
    }

    /// `recv.equals(a)` on a String receiver (`recv_units` when it is a
    /// literal), as the JDK defines it: a null receiver faults, a null
    /// argument is unequal, and otherwise the units are compared. With a
    /// literal on either side that is a fixed conjunction of unit
    /// comparisons ([`text_equals`]); two String variables are compared by
    /// a loop over their units ([`Self::units_equal_loop`]).
    fn string_equals(
        &mut self,
        recv: Expr,
        recv_units: Option<&[u16]>,
        a: Node,
        out: &mut Block,
    ) -> R<Option<Expr>> {
        let sp = span(a);
        let mut an = a;
        while an.kind() == "parenthesized_expression" {
            an = first_named(an)?;
        }
        if recv_units.is_none() {
            self.fault_if_null(&recv, sp, out);
        }
        let arg_units = self.literal_arg(an)?;
        let bool_lit = |b: bool| mk(ExprKind::BoolLit(b), Type::Bool, sp);
        match (recv_units, arg_units) {
            (Some(r), Some(u)) => Ok(Some(bool_lit(r == u.as_slice()))),
            (None, Some(u)) => Ok(Some(text_equals(&recv, &u, sp))),
            (_, None) if an.kind() == "null_literal" => Ok(Some(bool_lit(false))),
            (Some(r), None) => {
                let Some(id) = self.text_local(an) else {
                    return Err(unsupported(
                        a,
                        "String.equals of a value other than a String variable or literal",
                    ));
                };
                let x = mk(ExprKind::Local(id), super::text_type(), span(an));
                Ok(Some(text_equals(&x, r, sp)))
            }
            (None, None) => {
                let Some(id) = self.text_local(an) else {
                    return Err(unsupported(
                        a,
                        "String.equals of a value other than a String variable or literal",
                    ));
                };
                let other = mk(ExprKind::Local(id), super::text_type(), span(an));
                Ok(Some(self.units_equal_loop(&recv, &other, sp, out)))
            }
        }
    }

    /// Compares two Strings, `recv` not null, unit by unit as
    /// `String.equals` does: `r = other != null && recv.length ==
    /// other.length; for (i = 0; r && i < recv.length; i++) if (recv[i] !=
    /// other[i]) r = false;` — a loop, as the number of units compared is
    /// the Strings' length. Returns `r`.
    fn units_equal_loop(&mut self, recv: &Expr, other: &Expr, sp: Span, out: &mut Block) -> Expr {
        let ch = Type::Int(crate::ir::IntTy::JAVA_CHAR);
        let length = |x: &Expr| mk(ExprKind::Length(Box::new(x.clone())), Type::INT, sp);
        let r = self.fun.temp(Type::Bool, sp);
        let i = self.fun.temp(Type::INT, sp);
        let rv = mk(ExprKind::Local(r), Type::Bool, sp);
        let iv = mk(ExprKind::Local(i), Type::INT, sp);
        let assign = |place: LocalId, value: Expr| {
            st(
                StmtKind::Assign {
                    place: Place::Local(place),
                    value,
                },
                sp,
            )
        };
        let not_null = not(mk(
            ExprKind::IsNull(Box::new(other.clone())),
            Type::Bool,
            sp,
        ));
        let same_length = mk(
            ExprKind::Binary(BinOp::Eq, Box::new(length(recv)), Box::new(length(other))),
            Type::Bool,
            sp,
        );
        out.push(assign(r, and(not_null, same_length, sp)));
        out.push(assign(i, int_lit(0, sp)));
        let at = |x: &Expr| {
            mk(
                ExprKind::Index(Box::new(x.clone()), Box::new(iv.clone())),
                ch.clone(),
                sp,
            )
        };
        let differ = mk(
            ExprKind::Binary(BinOp::Ne, Box::new(at(recv)), Box::new(at(other))),
            Type::Bool,
            sp,
        );
        let more = mk(
            ExprKind::Binary(BinOp::Lt, Box::new(iv.clone()), Box::new(length(recv))),
            Type::Bool,
            sp,
        );
        let next = mk(
            ExprKind::Binary(BinOp::Add, Box::new(iv.clone()), Box::new(int_lit(1, sp))),
            Type::INT,
            sp,
        );
        out.push(st(
            StmtKind::Loop {
                label: self.fun.label(),
                kind: crate::ir::LoopKind::While,
                cond: and(rv.clone(), more, sp),
                body: vec![st(
                    StmtKind::If {
                        cond: differ,
                        then_branch: vec![assign(r, mk(ExprKind::BoolLit(false), Type::Bool, sp))],
                        else_branch: Vec::new(),
                    },
                    sp,
                )],
                step: vec![assign(i, next)],
            },
            sp,
        ));
        rv
    }

    fn string_literal(&self, n: Node) -> R<Expr> {
        let units = self.literal_units(n)?;
        Ok(mk(
            ExprKind::StrLit(String::from_utf16_lossy(&units)),
            Type::Str,
            span(n),
        ))
    }
}

fn field_type_error(name: &str, e: &TyErr) -> String {
    match e {
        TyErr::Class(c) if c == "String" => format!("String field {name}"),
        TyErr::Class(c) => format!("field {name} of class type {c}"),
        TyErr::MultiDim(t) => format!("field {name} of multi-dimensional array type {t}"),
        TyErr::Other(t) => format!("field {name} of type {t}"),
    }
}

/// Precondition helpers whose documented behaviour eqlens models exactly
/// (full names, as resolved through the imports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Precondition {
    /// Guava `checkArgument(boolean, ...)`: `IllegalArgumentException`.
    Argument,
    /// Guava `checkState(boolean, ...)`: `IllegalStateException`.
    State,
    /// Guava `checkElementIndex(index, size[, desc])`: `0 <= index < size`.
    ElementIndex,
    /// Guava `checkPositionIndex(index, size[, desc])`: `0 <= index <= size`.
    PositionIndex,
    /// Guava `checkPositionIndexes(start, end, size)`: `0 <= start <= end
    /// <= size`.
    PositionIndexes,
    /// JDK `java.util.Objects.checkIndex(index, length)`.
    ObjectsIndex,
    /// JDK `Objects.checkFromToIndex(from, to, length)`: `0 <= from <= to
    /// <= length`, returns `from`.
    ObjectsFromTo,
    /// JDK `Objects.checkFromIndexSize(from, size, length)`: `0 <= from`,
    /// `0 <= size`, `from + size <= length` (without overflow), returns
    /// `from`.
    ObjectsFromSize,
}

impl Precondition {
    fn named(callee: &str) -> Option<Precondition> {
        let guava = callee.strip_prefix("com.google.common.base.Preconditions.");
        Some(match (guava, callee) {
            (Some("checkArgument"), _) => Precondition::Argument,
            (Some("checkState"), _) => Precondition::State,
            (Some("checkElementIndex"), _) => Precondition::ElementIndex,
            (Some("checkPositionIndex"), _) => Precondition::PositionIndex,
            (Some("checkPositionIndexes"), _) => Precondition::PositionIndexes,
            (None, "java.util.Objects.checkIndex") => Precondition::ObjectsIndex,
            (None, "java.util.Objects.checkFromToIndex") => Precondition::ObjectsFromTo,
            (None, "java.util.Objects.checkFromIndexSize") => Precondition::ObjectsFromSize,
            _ => return None,
        })
    }
}

/// `x` (a String: a `char` array, possibly null) holds exactly `units`:
/// `x != null && x.length == n && x[0] == u0 && …`, lazily, so no unit is
/// read past the length.
pub(super) fn text_equals(x: &Expr, units: &[u16], sp: Span) -> Expr {
    let not_null = not(mk(ExprKind::IsNull(Box::new(x.clone())), Type::Bool, sp));
    let same_length = mk(
        ExprKind::Binary(
            BinOp::Eq,
            Box::new(mk(ExprKind::Length(Box::new(x.clone())), Type::INT, sp)),
            Box::new(mk(ExprKind::IntLit(units.len() as i128), Type::INT, sp)),
        ),
        Type::Bool,
        sp,
    );
    let mut e = and(not_null, same_length, sp);
    for (k, u) in units.iter().enumerate() {
        e = and(e, unit_is(x, int_lit(k as i128, sp), *u, sp), sp);
    }
    e
}

/// `x.startsWith(units)` (or `endsWith` when `at_end`) on a non-null
/// String `x`: its length is at least `n` and its first (last) `n` units
/// are `units`.
fn affix(x: &Expr, units: &[u16], at_end: bool, sp: Span) -> Expr {
    let len = mk(ExprKind::Length(Box::new(x.clone())), Type::INT, sp);
    let n = units.len() as i128;
    let mut e = mk(
        ExprKind::Binary(BinOp::Ge, Box::new(len.clone()), Box::new(int_lit(n, sp))),
        Type::Bool,
        sp,
    );
    for (k, u) in units.iter().enumerate() {
        let at = if at_end {
            // len - n + k
            mk(
                ExprKind::Binary(
                    BinOp::Add,
                    Box::new(mk(
                        ExprKind::Binary(
                            BinOp::Sub,
                            Box::new(len.clone()),
                            Box::new(int_lit(n, sp)),
                        ),
                        Type::INT,
                        sp,
                    )),
                    Box::new(int_lit(k as i128, sp)),
                ),
                Type::INT,
                sp,
            )
        } else {
            int_lit(k as i128, sp)
        };
        e = and(e, unit_is(x, at, *u, sp), sp);
    }
    e
}

fn int_lit(v: i128, sp: Span) -> Expr {
    mk(ExprKind::IntLit(v), Type::INT, sp)
}

/// `x[at] == u` for a `char` unit `u`.
fn unit_is(x: &Expr, at: Expr, u: u16, sp: Span) -> Expr {
    let ch = Type::Int(crate::ir::IntTy::JAVA_CHAR);
    mk(
        ExprKind::Binary(
            BinOp::Eq,
            Box::new(mk(
                ExprKind::Index(Box::new(x.clone()), Box::new(at)),
                ch.clone(),
                sp,
            )),
            Box::new(mk(ExprKind::IntLit(i128::from(u)), ch, sp)),
        ),
        Type::Bool,
        sp,
    )
}

fn and(a: Expr, b: Expr, sp: Span) -> Expr {
    mk(
        ExprKind::Binary(BinOp::And, Box::new(a), Box::new(b)),
        Type::Bool,
        sp,
    )
}
