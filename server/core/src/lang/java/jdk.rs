//! JDK static methods of `Integer`, `Long`, `Math`, `Double`, `Float` and
//! `Character` (on ASCII) lowered to the IR as
//! the JDK implements them (`Integer.bitCount` is the JDK's branch-free
//! formula, `Math.floorMod` its sign fix-up), so they are exact wherever
//! the IR's operators are: in both semantics for comparisons and
//! arithmetic, under `machine` for the bit-level ones (bit operations are
//! uninterpreted under `math`, see `docs/semantics.md`). The interpreter
//! and the symbolic executor need nothing new, and they cannot disagree.

use super::expr::or;
use super::{FnCx, R, span, unsupported};
use crate::ir::{BinOp, Block, Expr, ExprKind, Place, StmtKind, Thrown, Type};
use crate::lang::bits::Build;
use tree_sitter::Node;

impl<'c, 't> FnCx<'c, 't> {
    /// `Integer.m(...)`, `Long.m(...)`, `Math.m(...)` that we model, or
    /// `None` for any other method (left to the caller).
    ///
    /// Long: one arm per JDK method (the rest in `jdk_more`).
    pub(super) fn jdk_method(
        &mut self,
        n: Node,
        class: &str,
        name: &str,
        arg_nodes: &[Node],
        out: &mut Block,
    ) -> R<Option<Expr>> {
        if let Some(e) = self.jdk_more(n, class, name, arg_nodes, out)? {
            return Ok(Some(e));
        }
        if class == "Character" {
            return self.character_method(n, name, arg_nodes, out);
        }
        if class == "Double"
            && matches!(name, "doubleToRawLongBits" | "doubleToLongBits")
            && let Some(e) = self.double_bits(n, name, arg_nodes)?
        {
            return Ok(Some(e));
        }
        if let Some(e) = self.floating_method(n, class, name, arg_nodes, out)? {
            return Ok(Some(e));
        }
        let b = Build { sp: span(n) };
        let int = Type::INT;
        let (ty, bits) = match class {
            "Integer" => (Type::INT, 32),
            "Long" => (Type::LONG, 64),
            "Math" | "StrictMath" => {
                if !matches!(name, "floorDiv" | "floorMod" | "addExact" | "subtractExact") {
                    return Ok(None);
                }
                // The integral overloads: the wider argument type decides
                // (probed on a scratch lowering).
                let wide = arg_nodes.len() == 2 && {
                    let mut probe = Vec::new();
                    let mut long = false;
                    for a in arg_nodes {
                        let e = self.expr(*a, &mut probe)?;
                        long |= e.ty == Type::LONG;
                        if !matches!(e.ty, Type::Int(_)) {
                            return Ok(None);
                        }
                    }
                    long
                };
                if wide {
                    (Type::LONG, 64)
                } else {
                    (Type::INT, 32)
                }
            }
            _ => return Ok(None),
        };
        let is_math = matches!(class, "Math" | "StrictMath");
        let arity = match (is_math, name) {
            (false, "signum" | "bitCount" | "lowestOneBit" | "highestOneBit")
            | (false, "numberOfLeadingZeros" | "numberOfTrailingZeros" | "toUnsignedLong") => 1,
            (false, "compare") => 2,
            (true, "floorDiv" | "floorMod" | "addExact" | "subtractExact") => 2,
            _ => return Ok(None),
        };
        if name == "toUnsignedLong" && bits != 32 {
            return Ok(None);
        }
        if arg_nodes.len() != arity {
            return Err(unsupported(
                n,
                format!("call to {class}.{name} with {} arguments", arg_nodes.len()),
            ));
        }
        let mut args = Vec::with_capacity(arity);
        for a in arg_nodes {
            let e = self.expr(*a, out)?;
            if !matches!(e.ty, Type::Int(_)) {
                return Err(unsupported(
                    *a,
                    format!("{class}.{name} of {}", super::jname(&e.ty)),
                ));
            }
            let e = self.convert(e, &ty, *a)?;
            args.push(b.hold(&mut self.fun, e, out));
        }
        let x = args[0].clone();
        let zero = b.lit(0, &ty);
        let one = b.lit(1, &ty);
        Ok(Some(match name {
            "signum" => b.cond(
                b.bin(BinOp::Gt, &x, &zero),
                b.lit(1, &int),
                b.cond(b.bin(BinOp::Lt, &x, &zero), b.lit(-1, &int), b.lit(0, &int)),
            ),
            "compare" => {
                let y = &args[1];
                b.cond(
                    b.bin(BinOp::Lt, &x, y),
                    b.lit(-1, &int),
                    b.cond(b.bin(BinOp::Eq, &x, y), b.lit(0, &int), b.lit(1, &int)),
                )
            }
            "lowestOneBit" => b.bin(BinOp::BitAnd, &x, &b.neg(&x)),
            "toUnsignedLong" => b.bin(
                BinOp::BitAnd,
                &b.cast(&x, &Type::LONG),
                &b.lit(0xffff_ffff, &Type::LONG),
            ),
            "bitCount" => b.bit_count(&mut self.fun, x, out),
            "numberOfLeadingZeros" => b.leading_zeros(&mut self.fun, x, out),
            "highestOneBit" => {
                // JDK: i & (MIN_VALUE >>> numberOfLeadingZeros(i)).
                let nlz = b.leading_zeros(&mut self.fun, x.clone(), out);
                let min = b.lit(-(1i128 << (bits - 1)), &ty);
                b.bin(
                    BinOp::BitAnd,
                    &x,
                    &b.bin(BinOp::UShr, &min, &b.cast(&nlz, &ty)),
                )
            }
            "numberOfTrailingZeros" => b.trailing_zeros(&mut self.fun, x, out),
            "floorDiv" | "floorMod" => {
                let y = &args[1];
                // `x / y` faults on 0 as Math.floorDiv does.
                let q = b.hold(&mut self.fun, b.bin(BinOp::Div, &x, y), out);
                let r = b.hold(&mut self.fun, b.bin(BinOp::Rem, &x, y), out);
                // Signs differ (JDK: (x ^ y) < 0), written exactly in both
                // semantics.
                let differ = |a: &Expr| {
                    b.bin(
                        BinOp::Ne,
                        &b.bin(BinOp::Lt, a, &zero),
                        &b.bin(BinOp::Lt, y, &zero),
                    )
                };
                let adjust = b.and(b.bin(BinOp::Ne, &r, &zero), differ(&r));
                if name == "floorDiv" {
                    b.cond(adjust, b.bin(BinOp::Sub, &q, &one), q)
                } else {
                    b.cond(adjust, b.bin(BinOp::Add, &r, y), r)
                }
            }
            "addExact" | "subtractExact" => {
                let y = args[1].clone();
                let op = if name == "addExact" {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let r = b.hold(&mut self.fun, b.bin(op, &x, &y), out);
                // Overflow, exactly in both semantics (never under math).
                let lt = |e: &Expr| b.bin(BinOp::Lt, e, &zero);
                let ge = |e: &Expr| b.bin(BinOp::Ge, e, &zero);
                let (ys_pos, ys_neg) = if op == BinOp::Add {
                    (b.bin(BinOp::Gt, &y, &zero), lt(&y))
                } else {
                    (lt(&y), b.bin(BinOp::Gt, &y, &zero))
                };
                let overflow = or(
                    b.and(b.and(ge(&x), ys_pos), lt(&r)),
                    b.and(b.and(lt(&x), ys_neg), ge(&r)),
                    b.sp,
                );
                out.push(arithmetic_exception_if(&b, overflow));
                r
            }
            _ => return Ok(None),
        }))
    }
}

impl FnCx<'_, '_> {
    /// `Double.doubleToRawLongBits(c)` / `doubleToLongBits(c)` of a
    /// constant: the IEEE-754 bit pattern of the double nearest to `c`, as
    /// Java computes it (a literal has no NaN payload to canonicalise).
    /// `None` for any other argument (see [`Self::floating_method`]).
    fn double_bits(&mut self, n: Node, name: &str, arg_nodes: &[Node]) -> R<Option<Expr>> {
        let [arg] = arg_nodes else {
            return Err(unsupported(
                n,
                format!("call to Double.{name} with {} arguments", arg_nodes.len()),
            ));
        };
        let mut scratch = Vec::new();
        let e = self.expr(*arg, &mut scratch)?;
        let value = match &e.kind {
            ExprKind::FloatLit(l) => Some(l.value),
            ExprKind::Unary(crate::ir::UnOp::Neg, inner) => match &inner.kind {
                ExprKind::FloatLit(l) => Some(-l.value),
                _ => None,
            },
            _ => None,
        };
        let (Some(v), true) = (value, scratch.is_empty()) else {
            return Ok(None);
        };
        let v = if e.ty == Type::Float(crate::ir::FloatTy::F32) {
            f64::from(v as f32)
        } else {
            v
        };
        Ok(Some(crate::ir::Expr {
            kind: ExprKind::IntLit(i128::from(v.to_bits() as i64)),
            ty: Type::LONG,
            span: span(n),
        }))
    }

    /// `Double`/`Float` `compare`, `doubleToLongBits`, `floatToIntBits`,
    /// their `Raw` variants, `longBitsToDouble`, `intBitsToFloat`, and
    /// `Math`/`StrictMath` `copySign`, as intrinsics (exact under
    /// `machine`; see [`crate::ir::Intrinsic`]). The raw bits of a NaN and
    /// `Math.copySign` with a NaN sign depend on where the NaN came from,
    /// which values do not record: there the call stays a call outside
    /// the files. `None` for other methods.
    fn floating_method(
        &mut self,
        n: Node,
        class: &str,
        name: &str,
        arg_nodes: &[Node],
        out: &mut Block,
    ) -> R<Option<Expr>> {
        use crate::ir::{FloatTy, Intrinsic as I};
        let float = Type::Float(FloatTy::F32);
        // (intrinsic, parameter types, result type, raw: a NaN argument
        // goes to the JDK's method)
        let (f, params, ret, raw) = match (class, name) {
            ("Double", "compare") => (I::Compare, vec![Type::DOUBLE; 2], Type::INT, false),
            ("Float", "compare") => (I::Compare, vec![float.clone(); 2], Type::INT, false),
            ("Double", "doubleToLongBits" | "doubleToRawLongBits") => (
                I::FloatBits,
                vec![Type::DOUBLE],
                Type::LONG,
                name == "doubleToRawLongBits",
            ),
            ("Float", "floatToIntBits" | "floatToRawIntBits") => (
                I::FloatBits,
                vec![float.clone()],
                Type::INT,
                name == "floatToRawIntBits",
            ),
            ("Double", "longBitsToDouble") => {
                (I::BitsToFloat, vec![Type::LONG], Type::DOUBLE, false)
            }
            ("Float", "intBitsToFloat") => (I::BitsToFloat, vec![Type::INT], float.clone(), false),
            ("Math" | "StrictMath", "copySign") => {
                // The float overload, the more specific one, whenever both
                // arguments widen to float (an integer does): JLS 15.12.2.5.
                let mut probe = Vec::new();
                let mut all_float = true;
                for a in arg_nodes {
                    all_float &= super::widens(&self.expr(*a, &mut probe)?.ty, &float);
                }
                let ty = if all_float {
                    float.clone()
                } else {
                    Type::DOUBLE
                };
                (I::CopySign, vec![ty.clone(); 2], ty, class == "Math")
            }
            _ => return Ok(None),
        };
        if arg_nodes.len() != params.len() {
            return Err(unsupported(
                n,
                format!("call to {class}.{name} with {} arguments", arg_nodes.len()),
            ));
        }
        let b = Build { sp: span(n) };
        let mut args = Vec::with_capacity(params.len());
        for (a, ty) in arg_nodes.iter().zip(&params) {
            let e = self.expr(*a, out)?;
            if !e.ty.is_numeric() {
                return Err(unsupported(
                    *a,
                    format!("{class}.{name} of {}", super::jname(&e.ty)),
                ));
            }
            let e = self.convert(e, ty, *a)?;
            args.push(if raw {
                b.hold(&mut self.fun, e, out)
            } else {
                e
            });
        }
        let exact = Expr {
            kind: ExprKind::Intrinsic(f, args.clone()),
            ty: ret.clone(),
            span: b.sp,
        };
        if !raw {
            return Ok(Some(exact));
        }
        // The NaN whose sign or payload decides: the last argument.
        let Some(nan) = args.last() else {
            return Ok(Some(exact));
        };
        let not_nan = b.bin(BinOp::Eq, nan, nan);
        Ok(Some(
            self.exact_where(&b, not_nan, exact, class, name, args, out),
        ))
    }

    /// `exact` where `known` holds, else the JDK method `class.name` itself
    /// on `args`: a call outside the files (uninterpreted, shared by both
    /// versions) for the inputs eqlens does not model.
    #[allow(clippy::too_many_arguments)]
    fn exact_where(
        &mut self,
        b: &Build,
        known: Expr,
        exact: Expr,
        class: &str,
        name: &str,
        args: Vec<Expr>,
        out: &mut Block,
    ) -> Expr {
        let ret = exact.ty.clone();
        let callee = self
            .cx
            .external_name(Some(class), name)
            .unwrap_or_else(|| format!("{class}.{name}"));
        let t = self.fun.temp(ret.clone(), b.sp);
        out.push(b.stmt(StmtKind::If {
            cond: known,
            then_branch: vec![b.stmt(StmtKind::Assign {
                place: Place::Local(t),
                value: exact,
            })],
            else_branch: vec![b.stmt(StmtKind::External {
                dest: Some(Place::Local(t)),
                callee,
                args,
                ret: ret.clone(),
            })],
        }));
        Expr {
            kind: ExprKind::Local(t),
            ty: ret,
            span: b.sp,
        }
    }
}

impl FnCx<'_, '_> {
    /// `Character`'s digit, letter, case and whitespace tests, `toUpperCase`,
    /// `toLowerCase` and `digit`: exact on ASCII (code points 0–127), where
    /// the JDK's tables say what the code below says; above ASCII the call
    /// stays the uninterpreted function of the JDK method (shared by both
    /// versions, pure — as it is), since the Unicode tables are not
    /// modelled. `None` for the other methods of `Character`.
    fn character_method(
        &mut self,
        n: Node,
        name: &str,
        arg_nodes: &[Node],
        out: &mut Block,
    ) -> R<Option<Expr>> {
        let arity = match name {
            "isDigit" | "isLetter" | "isLetterOrDigit" | "isAlphabetic" | "isUpperCase"
            | "isLowerCase" | "isWhitespace" | "toUpperCase" | "toLowerCase" => 1,
            "digit" => 2,
            _ => return Ok(None),
        };
        if arg_nodes.len() != arity {
            return Err(unsupported(
                n,
                format!(
                    "call to Character.{name} with {} arguments",
                    arg_nodes.len()
                ),
            ));
        }
        let b = Build { sp: span(n) };
        let raw = self.expr(arg_nodes[0], out)?;
        // The `char` overload for a `char`, else the code-point (`int`) one;
        // `isAlphabetic` has only the latter. A `long` or a floating value
        // selects no overload.
        let param = match &raw.ty {
            Type::Int(i) if i.is_char && name != "isAlphabetic" => raw.ty.clone(),
            t @ Type::Int(_) if *t != Type::LONG => Type::INT,
            t => {
                return Err(unsupported(
                    arg_nodes[0],
                    format!("Character.{name} of {}", super::jname(t)),
                ));
            }
        };
        let converted = self.convert(raw, &param, arg_nodes[0])?;
        let c = b.hold(&mut self.fun, converted, out);
        let mut args = vec![c.clone()];
        if name == "digit" {
            let radix = self.expr(arg_nodes[1], out)?;
            if !matches!(radix.ty, Type::Int(_)) || radix.ty == Type::LONG {
                return Err(unsupported(
                    arg_nodes[1],
                    format!("Character.digit radix of {}", super::jname(&radix.ty)),
                ));
            }
            let radix = self.convert(radix, &Type::INT, arg_nodes[1])?;
            args.push(b.hold(&mut self.fun, radix, out));
        }
        let lit = |v: i128| b.lit(v, &param);
        let within = |lo: i128, hi: i128| {
            b.and(
                b.bin(BinOp::Ge, &c, &lit(lo)),
                b.bin(BinOp::Le, &c, &lit(hi)),
            )
        };
        let or = |x: Expr, y: Expr| b.bin(BinOp::Or, &x, &y);
        let (digit, upper, lower) = (within(48, 57), within(65, 90), within(97, 122));
        let exact = match name {
            "isDigit" => digit,
            "isUpperCase" => upper,
            "isLowerCase" => lower,
            "isLetter" | "isAlphabetic" => or(upper, lower),
            "isLetterOrDigit" => or(digit, or(upper, lower)),
            // HT, LF, VT, FF, CR; FS, GS, RS, US and the space.
            "isWhitespace" => or(within(9, 13), within(28, 32)),
            "toUpperCase" => b.cond(lower, b.bin(BinOp::Sub, &c, &lit(32)), c.clone()),
            "toLowerCase" => b.cond(upper, b.bin(BinOp::Add, &c, &lit(32)), c.clone()),
            _ => {
                // digit: the value of a 0-9, a-z or A-Z digit when it is
                // below a radix in 2..=36, else -1.
                let int = Type::INT;
                let code = b.cast(&c, &int);
                let minus = |k: i128| b.bin(BinOp::Sub, &code, &b.lit(k, &int));
                let value = b.hold(
                    &mut self.fun,
                    b.cond(
                        digit,
                        minus(48),
                        b.cond(lower, minus(87), b.cond(upper, minus(55), b.lit(-1, &int))),
                    ),
                    out,
                );
                let radix = &args[1];
                let usable = b.and(
                    b.and(
                        b.bin(BinOp::Ge, radix, &b.lit(2, &int)),
                        b.bin(BinOp::Le, radix, &b.lit(36, &int)),
                    ),
                    b.and(
                        b.bin(BinOp::Ge, &value, &b.lit(0, &int)),
                        b.bin(BinOp::Lt, &value, radix),
                    ),
                );
                b.cond(usable, value, b.lit(-1, &int))
            }
        };
        let ascii = b.and(
            b.bin(BinOp::Ge, &c, &lit(0)),
            b.bin(BinOp::Lt, &c, &lit(128)),
        );
        Ok(Some(self.exact_where(
            &b,
            ascii,
            exact,
            "Character",
            name,
            args,
            out,
        )))
    }
}

/// `if (cond) throw new ArithmeticException()`, as the `*Exact` methods do.
fn arithmetic_exception_if(b: &Build, cond: Expr) -> crate::ir::Stmt {
    b.when(
        cond,
        vec![b.stmt(StmtKind::Throw(Thrown::Exception(
            "ArithmeticException".into(),
        )))],
    )
}

/// The integral type of the `*Exact` overload chosen for an argument of
/// type `t`: `long` for `long`, else `int`.
fn exact_type(t: &Type) -> Type {
    if *t == Type::LONG {
        Type::LONG
    } else {
        Type::INT
    }
}

impl FnCx<'_, '_> {
    /// The rest of the JDK methods modelled exactly, each as the JDK
    /// implements it: `Integer`/`Long` `rotateLeft`/`rotateRight`,
    /// `reverse`, `reverseBytes`, `compareUnsigned`, `divideUnsigned`,
    /// `remainderUnsigned`; `Math` `negateExact`, `incrementExact`,
    /// `decrementExact`, `absExact`, `toIntExact`, `multiplyExact`,
    /// `signum` of a floating value; `Double`/`Float` `isNaN`,
    /// `isInfinite`, `isFinite`. `None` for anything else.
    ///
    /// Long: one arm per JDK method, each a few lines of IR; the table reads
    /// best whole, beside the JDK's own list.
    fn jdk_more(
        &mut self,
        n: Node,
        class: &str,
        name: &str,
        arg_nodes: &[Node],
        out: &mut Block,
    ) -> R<Option<Expr>> {
        let arity = match (class, name) {
            (
                "Integer" | "Long",
                "rotateLeft" | "rotateRight" | "compareUnsigned" | "divideUnsigned"
                | "remainderUnsigned",
            )
            | ("Math" | "StrictMath", "multiplyExact") => 2,
            ("Integer" | "Long", "reverse" | "reverseBytes")
            | (
                "Math" | "StrictMath",
                "negateExact" | "incrementExact" | "decrementExact" | "absExact" | "toIntExact"
                | "signum",
            )
            | ("Double" | "Float", "isNaN" | "isInfinite" | "isFinite") => 1,
            _ => return Ok(None),
        };
        if arg_nodes.len() != arity {
            return Err(unsupported(
                n,
                format!("call to {class}.{name} with {} arguments", arg_nodes.len()),
            ));
        }
        let b = Build { sp: span(n) };
        let mut raw = Vec::with_capacity(arity);
        for a in arg_nodes {
            let e = self.expr(*a, out)?;
            if !e.ty.is_numeric() {
                return Err(unsupported(
                    *a,
                    format!("{class}.{name} of {}", super::jname(&e.ty)),
                ));
            }
            raw.push((e, *a));
        }
        // The parameter types of the overload the call selects.
        let class_type = match class {
            "Integer" => Type::INT,
            "Long" => Type::LONG,
            "Float" => Type::Float(crate::ir::FloatTy::F32),
            "Double" => Type::DOUBLE,
            _ => {
                match name {
                    "toIntExact" => Type::LONG,
                    "signum" if raw.first().is_some_and(|(e, _)| e.ty == Type::DOUBLE) => {
                        Type::DOUBLE
                    }
                    "signum" => Type::Float(crate::ir::FloatTy::F32),
                    // The `long` overload when an argument is a `long`.
                    _ if raw.iter().any(|(e, _)| exact_type(&e.ty) == Type::LONG) => Type::LONG,
                    _ => Type::INT,
                }
            }
        };
        let is_rotate = matches!(name, "rotateLeft" | "rotateRight");
        let mut args = Vec::with_capacity(arity);
        for (i, (e, node)) in raw.into_iter().enumerate() {
            if matches!(class_type, Type::Int(_)) && !matches!(e.ty, Type::Int(_)) {
                return Err(unsupported(
                    node,
                    format!("{class}.{name} of {}", super::jname(&e.ty)),
                ));
            }
            let to = if is_rotate && i == 1 {
                Type::INT
            } else {
                class_type.clone()
            };
            let e = self.convert(e, &to, node)?;
            args.push(b.hold(&mut self.fun, e, out));
        }
        let x = args[0].clone();
        let ty = class_type;
        let int = Type::INT;
        let zero = b.lit(0, &ty);
        let bits: i128 = if ty == Type::LONG { 64 } else { 32 };
        let min = b.lit(-(1i128 << (bits - 1)), &ty);
        let shl = |e: &Expr, k: &Expr| b.bin(BinOp::Shl, e, k);
        let ushr = |e: &Expr, k: &Expr| b.bin(BinOp::UShr, e, k);
        let and = |e: &Expr, m: i128| b.bin(BinOp::BitAnd, e, &b.lit(m, &ty));
        let orb = |a: Expr, c: Expr| b.bin(BinOp::BitOr, &a, &c);
        let k = |v: i128| b.lit(v, &int);
        // `a < b` as unsigned values (the JDK's `compare(a + MIN, b + MIN)`).
        let unsigned_lt = |a: &Expr, c: &Expr| {
            b.bin(
                BinOp::Lt,
                &b.bin(BinOp::Add, a, &min),
                &b.bin(BinOp::Add, c, &min),
            )
        };
        Ok(Some(match name {
            "rotateLeft" | "rotateRight" => {
                let d = &args[1];
                let neg_d = b.neg(d);
                if name == "rotateLeft" {
                    orb(shl(&x, d), ushr(&x, &neg_d))
                } else {
                    orb(ushr(&x, d), shl(&x, &neg_d))
                }
            }
            "reverseBytes" => self.reverse_bytes(&b, x, out),
            "reverse" => {
                let i = b.hold(&mut self.fun, x, out);
                for (shift, mask) in [
                    (1, 0x5555_5555_5555_5555u64),
                    (2, 0x3333_3333_3333_3333),
                    (4, 0x0f0f_0f0f_0f0f_0f0f),
                ] {
                    let m = i128::from(if bits == 32 { mask & 0xffff_ffff } else { mask });
                    let v = orb(shl(&and(&i, m), &k(shift)), and(&ushr(&i, &k(shift)), m));
                    b.reassign(&i, v, out);
                }
                self.reverse_bytes(&b, i, out)
            }
            "compareUnsigned" => {
                let y = &args[1];
                b.cond(
                    unsigned_lt(&x, y),
                    b.lit(-1, &int),
                    b.cond(b.bin(BinOp::Eq, &x, y), b.lit(0, &int), b.lit(1, &int)),
                )
            }
            "divideUnsigned" | "remainderUnsigned" if bits == 32 => {
                // JDK: (int) (toUnsignedLong(x) / toUnsignedLong(y)).
                let long = Type::LONG;
                let wide =
                    |e: &Expr| b.bin(BinOp::BitAnd, &b.cast(e, &long), &b.lit(0xffff_ffff, &long));
                let op = if name == "divideUnsigned" {
                    BinOp::Div
                } else {
                    BinOp::Rem
                };
                let r = b.hold(&mut self.fun, b.bin(op, &wide(&x), &wide(&args[1])), out);
                b.cast(&r, &int)
            }
            "divideUnsigned" | "remainderUnsigned" => {
                // Hacker's Delight 9-3 (the JDK's since 18; 17's BigInteger
                // path computes the same): a divisor with its top bit set
                // goes at most once; else divide the halved dividend and
                // correct by one. Faults on 0 as the JDK throws.
                let y = args[1].clone();
                let half = b.hold(&mut self.fun, b.bin(BinOp::Div, &ushr(&x, &k(1)), &y), out);
                let q = b.hold(&mut self.fun, shl(&half, &k(1)), out);
                let r = b.hold(
                    &mut self.fun,
                    b.bin(BinOp::Sub, &x, &b.bin(BinOp::Mul, &q, &y)),
                    out,
                );
                let one = b.lit(1, &ty);
                let small = b.cond(unsigned_lt(&r, &y), q.clone(), b.bin(BinOp::Add, &q, &one));
                let big = b.cond(unsigned_lt(&x, &y), zero.clone(), one);
                let quotient = b.hold(
                    &mut self.fun,
                    b.cond(b.bin(BinOp::Lt, &y, &zero), big, small),
                    out,
                );
                if name == "divideUnsigned" {
                    quotient
                } else {
                    b.bin(BinOp::Sub, &x, &b.bin(BinOp::Mul, &quotient, &y))
                }
            }
            "multiplyExact" if bits == 32 => {
                // The JDK's code: `long r = (long) x * (long) y; if ((int) r
                // != r) throw ...; return (int) r;` — one 64-bit product (a
                // second, 32-bit one makes the bit-vector query much harder).
                let wide = |e: &Expr| b.cast(e, &Type::LONG);
                let product = b.hold(
                    &mut self.fun,
                    b.bin(BinOp::Mul, &wide(&x), &wide(&args[1])),
                    out,
                );
                let r = b.hold(&mut self.fun, b.cast(&product, &ty), out);
                let overflow = b.bin(BinOp::Ne, &wide(&r), &product);
                out.push(arithmetic_exception_if(&b, overflow));
                r
            }
            "multiplyExact" => {
                let y = args[1].clone();
                let r = b.hold(&mut self.fun, b.bin(BinOp::Mul, &x, &y), out);
                // The JDK's division check.
                let overflow = {
                    or(
                        b.and(
                            b.bin(BinOp::Ne, &y, &zero),
                            b.bin(BinOp::Ne, &b.bin(BinOp::Div, &r, &y), &x),
                        ),
                        // MIN * -1 wraps to MIN, and MIN / -1 is MIN again.
                        b.and(
                            b.and(
                                b.bin(BinOp::Eq, &x, &min),
                                b.bin(BinOp::Eq, &y, &b.lit(-1, &ty)),
                            ),
                            b.bin(BinOp::Eq, &r, &min),
                        ),
                        b.sp,
                    )
                };
                out.push(arithmetic_exception_if(&b, overflow));
                r
            }
            // Each overflow test reads the result, as the JDK's do, so that
            // under `math` (no wrapping) nothing ever overflows.
            "negateExact" | "absExact" => {
                let r = if name == "negateExact" {
                    b.neg(&x)
                } else {
                    b.cond(b.bin(BinOp::Lt, &x, &zero), b.neg(&x), x.clone())
                };
                let r = b.hold(&mut self.fun, r, out);
                // Only MIN stays negative when negated.
                let overflow = b.and(b.bin(BinOp::Lt, &x, &zero), b.bin(BinOp::Lt, &r, &zero));
                out.push(arithmetic_exception_if(&b, overflow));
                r
            }
            "incrementExact" | "decrementExact" => {
                let (op, past) = if name == "incrementExact" {
                    (BinOp::Add, BinOp::Lt)
                } else {
                    (BinOp::Sub, BinOp::Gt)
                };
                let r = b.hold(&mut self.fun, b.bin(op, &x, &b.lit(1, &ty)), out);
                out.push(arithmetic_exception_if(&b, b.bin(past, &r, &x)));
                r
            }
            "toIntExact" => {
                let r = b.hold(&mut self.fun, b.cast(&x, &int), out);
                out.push(arithmetic_exception_if(
                    &b,
                    b.bin(BinOp::Ne, &b.cast(&r, &Type::LONG), &x),
                ));
                r
            }
            "signum" => {
                // ±0 and NaN are returned as they are.
                let f = |v: f64| b.float(v, &ty);
                b.cond(
                    b.bin(BinOp::Gt, &x, &f(0.0)),
                    f(1.0),
                    b.cond(b.bin(BinOp::Lt, &x, &f(0.0)), f(-1.0), x.clone()),
                )
            }
            "isNaN" => b.bin(BinOp::Ne, &x, &x),
            // x - x is 0 for every finite x and NaN for ±∞ and NaN (and
            // always 0 under math, where every real is finite).
            "isInfinite" | "isFinite" => {
                let diff = b.bin(BinOp::Sub, &x, &x);
                let finite = b.bin(BinOp::Eq, &diff, &diff);
                if name == "isFinite" {
                    finite
                } else {
                    b.and(b.bin(BinOp::Eq, &x, &x), b.bin(BinOp::Ne, &diff, &diff))
                }
            }
            _ => return Ok(None),
        }))
    }

    /// The JDK's `reverseBytes` of an `int` or `long`.
    fn reverse_bytes(&mut self, b: &Build, x: Expr, out: &mut Block) -> Expr {
        let ty = x.ty.clone();
        let int = Type::INT;
        let k = |v: i128| b.lit(v, &int);
        let shl = |e: &Expr, s: i128| b.bin(BinOp::Shl, e, &k(s));
        let ushr = |e: &Expr, s: i128| b.bin(BinOp::UShr, e, &k(s));
        let and = |e: &Expr, m: i128| b.bin(BinOp::BitAnd, e, &b.lit(m, &ty));
        let orb = |a: Expr, c: Expr| b.bin(BinOp::BitOr, &a, &c);
        let i = b.hold(&mut self.fun, x, out);
        if ty == Type::LONG {
            let m = 0x00ff_00ff_00ff_00ff;
            let v = orb(shl(&and(&i, m), 8), and(&ushr(&i, 8), m));
            b.reassign(&i, v, out);
            orb(
                orb(shl(&i, 48), shl(&and(&i, 0xffff_0000), 16)),
                orb(and(&ushr(&i, 16), 0xffff_0000), ushr(&i, 48)),
            )
        } else {
            orb(
                orb(shl(&i, 24), shl(&and(&i, 0xff00), 8)),
                orb(and(&ushr(&i, 8), 0xff00), ushr(&i, 24)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    //! Each method, lowered and run in the interpreter under `machine`,
    //! against Rust's own operation of the same meaning, on values at the
    //! edges (0, ±1, MIN, MAX, powers of two and their neighbours).
    use crate::interp::Outcome;
    use crate::ir::{FuncId, Lang, Program, Semantics};
    use crate::value::Value;

    fn edges64() -> Vec<i64> {
        let mut v = vec![0, 1, -1, 2, -2, 3, 7, -7, i64::MIN, i64::MAX, i64::MIN + 1];
        for k in [8, 15, 16, 31, 32, 33, 47, 62, 63] {
            let p = 1i64.wrapping_shl(k);
            v.extend([p, p.wrapping_sub(1), p.wrapping_neg(), p ^ 0x5a5a]);
        }
        v
    }

    fn edges32() -> Vec<i32> {
        let mut v = vec![0, 1, -1, 2, -2, 3, 7, -7, i32::MIN, i32::MAX, i32::MIN + 1];
        for k in [4, 8, 15, 16, 23, 30, 31] {
            let p = 1i32.wrapping_shl(k);
            v.extend([p, p.wrapping_sub(1), p.wrapping_neg(), p ^ 0x5a5a]);
        }
        v
    }

    fn run(program: &Program, name: &str, args: Vec<Value>) -> Outcome {
        run_in(Semantics::Machine, program, name, args)
    }

    fn run_in(sem: Semantics, program: &Program, name: &str, args: Vec<Value>) -> Outcome {
        crate::interp::run_named(program, name, sem, args)
    }

    fn int(v: i64) -> Value {
        Value::int(v)
    }

    fn returns(v: i64) -> Outcome {
        Outcome::Return(Value::int(v))
    }

    fn big(v: i128) -> Outcome {
        Outcome::Return(Value::Int(num_bigint::BigInt::from(v)))
    }

    fn throws_arithmetic(o: &Outcome) -> bool {
        matches!(o, Outcome::Fault { kind, .. }
            if kind.java_class().as_deref() == Some("ArithmeticException"))
    }

    /// `Some(v)`: returns v; `None`: throws ArithmeticException.
    fn expect(o: Outcome, want: Option<i64>, what: &str) {
        match want {
            Some(v) => assert_eq!(o, returns(v), "{what}"),
            None => assert!(throws_arithmetic(&o), "{what}: {o:?}"),
        }
    }

    #[test]
    fn int_and_long_methods_match_rust() {
        let p = crate::lang::lower(
            Lang::Java,
            "class J {
                static int rotl(int x, int d) { return Integer.rotateLeft(x, d); }
                static int rotr(int x, int d) { return Integer.rotateRight(x, d); }
                static long rotll(long x, int d) { return Long.rotateLeft(x, d); }
                static long rotrl(long x, int d) { return Long.rotateRight(x, d); }
                static int rev(int x) { return Integer.reverse(x); }
                static long revl(long x) { return Long.reverse(x); }
                static int swap(int x) { return Integer.reverseBytes(x); }
                static long swapl(long x) { return Long.reverseBytes(x); }
                static int cmpu(int x, int y) { return Integer.compareUnsigned(x, y); }
                static int cmpul(long x, long y) { return Long.compareUnsigned(x, y); }
                static int divu(int x, int y) { return Integer.divideUnsigned(x, y); }
                static int remu(int x, int y) { return Integer.remainderUnsigned(x, y); }
                static long divul(long x, long y) { return Long.divideUnsigned(x, y); }
                static long remul(long x, long y) { return Long.remainderUnsigned(x, y); }
                static int sizes() { return Integer.SIZE + Long.BYTES + Character.SIZE; }
            }",
        );
        assert_eq!(run(&p, "sizes", vec![]), returns(32 + 8 + 16));
        for x in edges32() {
            let u = x as u32;
            for d in [0i32, 1, 5, 31, 32, 33, -1, -7] {
                let s = d.rem_euclid(32) as u32;
                let what = format!("x={x} d={d}");
                assert_eq!(
                    run(&p, "rotl", vec![int(x.into()), int(d.into())]),
                    returns((u.rotate_left(s) as i32).into()),
                    "rotl {what}"
                );
                assert_eq!(
                    run(&p, "rotr", vec![int(x.into()), int(d.into())]),
                    returns((u.rotate_right(s) as i32).into()),
                    "rotr {what}"
                );
            }
            assert_eq!(
                run(&p, "rev", vec![int(x.into())]),
                returns((u.reverse_bits() as i32).into()),
                "rev {x}"
            );
            assert_eq!(
                run(&p, "swap", vec![int(x.into())]),
                returns((u.swap_bytes() as i32).into()),
                "swap {x}"
            );
            for y in edges32() {
                let (v, w) = (u, y as u32);
                let what = format!("x={x} y={y}");
                assert_eq!(
                    run(&p, "cmpu", vec![int(x.into()), int(y.into())]),
                    returns(v.cmp(&w) as i64),
                    "cmpu {what}"
                );
                let q = v.checked_div(w).map(|q| i64::from(q as i32));
                let r = v.checked_rem(w).map(|r| i64::from(r as i32));
                expect(
                    run(&p, "divu", vec![int(x.into()), int(y.into())]),
                    q,
                    &format!("divu {what}"),
                );
                expect(
                    run(&p, "remu", vec![int(x.into()), int(y.into())]),
                    r,
                    &format!("remu {what}"),
                );
            }
        }
        for x in edges64() {
            let u = x as u64;
            for d in [0i64, 1, 5, 63, 64, 65, -1, -9] {
                let s = d.rem_euclid(64) as u32;
                let what = format!("x={x} d={d}");
                assert_eq!(
                    run(&p, "rotll", vec![int(x), int(d)]),
                    returns(u.rotate_left(s) as i64),
                    "rotll {what}"
                );
                assert_eq!(
                    run(&p, "rotrl", vec![int(x), int(d)]),
                    returns(u.rotate_right(s) as i64),
                    "rotrl {what}"
                );
            }
            assert_eq!(
                run(&p, "revl", vec![int(x)]),
                returns(u.reverse_bits() as i64),
                "revl {x}"
            );
            assert_eq!(
                run(&p, "swapl", vec![int(x)]),
                returns(u.swap_bytes() as i64),
                "swapl {x}"
            );
            for y in edges64() {
                let w = y as u64;
                let what = format!("x={x} y={y}");
                assert_eq!(
                    run(&p, "cmpul", vec![int(x), int(y)]),
                    returns(u.cmp(&w) as i64),
                    "cmpul {what}"
                );
                expect(
                    run(&p, "divul", vec![int(x), int(y)]),
                    u.checked_div(w).map(|q| q as i64),
                    &format!("divul {what}"),
                );
                expect(
                    run(&p, "remul", vec![int(x), int(y)]),
                    u.checked_rem(w).map(|r| r as i64),
                    &format!("remul {what}"),
                );
            }
        }
    }

    #[test]
    fn exact_methods_throw_exactly_on_overflow() {
        let p = crate::lang::lower(
            Lang::Java,
            "class J {
                static int mul(int x, int y) { return Math.multiplyExact(x, y); }
                static long mull(long x, long y) { return Math.multiplyExact(x, y); }
                static int neg(int x) { return Math.negateExact(x); }
                static long negl(long x) { return Math.negateExact(x); }
                static int inc(int x) { return Math.incrementExact(x); }
                static long decl(long x) { return Math.decrementExact(x); }
                static int abs(int x) { return Math.absExact(x); }
                static int toInt(long x) { return Math.toIntExact(x); }
            }",
        );
        for x in edges32() {
            let i = |v: Option<i32>| v.map(i64::from);
            expect(
                run(&p, "neg", vec![int(x.into())]),
                i(x.checked_neg()),
                &format!("neg {x}"),
            );
            expect(
                run(&p, "inc", vec![int(x.into())]),
                i(x.checked_add(1)),
                &format!("inc {x}"),
            );
            expect(
                run(&p, "abs", vec![int(x.into())]),
                i(x.checked_abs()),
                &format!("abs {x}"),
            );
            for y in edges32() {
                expect(
                    run(&p, "mul", vec![int(x.into()), int(y.into())]),
                    i(x.checked_mul(y)),
                    &format!("mul {x} {y}"),
                );
            }
        }
        // Under math nothing overflows: the tests read the exact result.
        let min = i64::from(i32::MIN);
        let math = |f: &str, args: Vec<Value>| run_in(Semantics::Math, &p, f, args);
        assert_eq!(math("neg", vec![int(min)]), returns(-min));
        assert_eq!(math("abs", vec![int(min)]), returns(-min));
        assert_eq!(
            math("inc", vec![int(i32::MAX.into())]),
            returns(i64::from(i32::MAX) + 1)
        );
        assert_eq!(
            math("decl", vec![int(i64::MIN)]),
            big(i128::from(i64::MIN) - 1)
        );
        assert_eq!(
            math("mull", vec![int(i64::MIN), int(-1)]),
            big(-i128::from(i64::MIN))
        );
        assert_eq!(math("mul", vec![int(min), int(-1)]), returns(-min));
        for x in edges64() {
            expect(
                run(&p, "negl", vec![int(x)]),
                x.checked_neg(),
                &format!("negl {x}"),
            );
            expect(
                run(&p, "decl", vec![int(x)]),
                x.checked_sub(1),
                &format!("decl {x}"),
            );
            let narrow = i32::try_from(x).ok().map(i64::from);
            expect(
                run(&p, "toInt", vec![int(x)]),
                narrow,
                &format!("toInt {x}"),
            );
            for y in edges64() {
                expect(
                    run(&p, "mull", vec![int(x), int(y)]),
                    x.checked_mul(y),
                    &format!("mull {x} {y}"),
                );
            }
        }
    }

    #[test]
    fn floating_classification_and_signum() {
        let p = crate::lang::lower(
            Lang::Java,
            "class J {
                static boolean nan(double x) { return Double.isNaN(x); }
                static boolean inf(double x) { return Double.isInfinite(x); }
                static boolean fin(double x) { return Double.isFinite(x); }
                static boolean finf(float x) { return Float.isInfinite(x); }
                static double sig(double x) { return Math.signum(x); }
            }",
        );
        for x in [
            0.0,
            -0.0,
            1.5,
            -2.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ] {
            let b = |v: bool| Outcome::Return(Value::Bool(v));
            assert_eq!(
                run(&p, "nan", vec![Value::F64(x)]),
                b(x.is_nan()),
                "nan {x}"
            );
            assert_eq!(
                run(&p, "inf", vec![Value::F64(x)]),
                b(x.is_infinite()),
                "inf {x}"
            );
            assert_eq!(
                run(&p, "fin", vec![Value::F64(x)]),
                b(x.is_finite()),
                "fin {x}"
            );
            let f = x as f32;
            assert_eq!(
                run(&p, "finf", vec![Value::F32(f)]),
                b(f.is_infinite()),
                "finf {x}"
            );
            let want = if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            };
            match run(&p, "sig", vec![Value::F64(x)]) {
                Outcome::Return(Value::F64(got)) => {
                    assert_eq!(got.to_bits(), want.to_bits(), "signum {x}: {got}")
                }
                o => panic!("signum {x}: {o:?}"),
            }
        }
    }

    #[test]
    fn character_tests_are_exact_on_ascii() {
        let p = crate::lang::lower(
            Lang::Java,
            "class C {
                static boolean digit(char c) { return Character.isDigit(c); }
                static boolean letter(char c) { return Character.isLetter(c); }
                static boolean alnum(char c) { return Character.isLetterOrDigit(c); }
                static boolean alpha(int c) { return Character.isAlphabetic(c); }
                static boolean upper(char c) { return Character.isUpperCase(c); }
                static boolean lower(char c) { return Character.isLowerCase(c); }
                static boolean space(char c) { return Character.isWhitespace(c); }
                static char up(char c) { return Character.toUpperCase(c); }
                static int down(int c) { return Character.toLowerCase(c); }
                static int value(char c, int radix) { return Character.digit(c, radix); }
            }",
        );
        // What the JDK answers on ASCII (its whitespace includes the
        // separators FS, GS, RS and US).
        let java_space = |c: u8| matches!(c, 9..=13 | 28..=32);
        for sem in [Semantics::Machine, Semantics::Math] {
            for c in 0u8..128 {
                let ch = char::from(c);
                let arg = || vec![int(c.into())];
                let flag = |name: &str, want: bool| {
                    assert_eq!(
                        run_in(sem, &p, name, arg()),
                        Outcome::Return(Value::Bool(want)),
                        "{name}({c}) under {sem:?}"
                    );
                };
                flag("digit", ch.is_ascii_digit());
                flag("letter", ch.is_ascii_alphabetic());
                flag("alnum", ch.is_ascii_alphanumeric());
                flag("alpha", ch.is_ascii_alphabetic());
                flag("upper", ch.is_ascii_uppercase());
                flag("lower", ch.is_ascii_lowercase());
                flag("space", java_space(c));
                let up = ch.to_ascii_uppercase() as i64;
                assert_eq!(run_in(sem, &p, "up", arg()), returns(up), "up({c})");
                let down = ch.to_ascii_lowercase() as i64;
                assert_eq!(run_in(sem, &p, "down", arg()), returns(down), "down({c})");
                for radix in [0, 1, 2, 8, 10, 16, 36, 37, -5] {
                    let want = if (2..=36).contains(&radix) {
                        ch.to_digit(radix as u32).map_or(-1, i64::from)
                    } else {
                        -1
                    };
                    assert_eq!(
                        run_in(sem, &p, "value", vec![int(c.into()), int(radix)]),
                        returns(want),
                        "digit({c}, {radix})"
                    );
                }
            }
        }
        // Above ASCII (and for negative code points) the JDK's tables
        // decide: the call stays a call outside the files.
        let calls = |name: &str| {
            let f = p.functions.iter().position(|f| f.name == name).unwrap();
            let mut callees = Vec::new();
            p.reaches(FuncId(f as u32), &mut |s| {
                if let crate::ir::StmtKind::External { callee, .. } = &s.kind {
                    callees.push(callee.clone());
                }
                false
            });
            callees
        };
        assert_eq!(calls("letter"), ["Character.isLetter"]);
        assert_eq!(calls("value"), ["Character.digit"]);
    }

    #[test]
    fn floating_compare_bits_and_copy_sign_follow_the_jdk() {
        let p = crate::lang::lower(
            Lang::Java,
            "class D {
                static int cmp(double a, double b) { return Double.compare(a, b); }
                static int cmpf(float a, float b) { return Float.compare(a, b); }
                static long bits(double x) { return Double.doubleToLongBits(x); }
                static int bitsf(float x) { return Float.floatToIntBits(x); }
                static double back(long b) { return Double.longBitsToDouble(b); }
                static float backf(int b) { return Float.intBitsToFloat(b); }
                static double sign(double m, double s) { return StrictMath.copySign(m, s); }
                static int exp(double x) { return Math.getExponent(x); }
            }",
        );
        let d = |x: f64| Value::F64(x);
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.5,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        // Java's Double.compare: NaN equal to itself and above +inf; -0.0
        // below +0.0.
        let java_compare = |a: f64, b: f64| -> i64 {
            match (a.is_nan(), b.is_nan()) {
                (true, true) => 0,
                (true, false) => 1,
                (false, true) => -1,
                _ => a.total_cmp(&b) as i64,
            }
        };
        for &a in &values {
            for &b in &values {
                assert_eq!(
                    run(&p, "cmp", vec![d(a), d(b)]),
                    returns(java_compare(a, b)),
                    "compare({a}, {b})"
                );
                let (fa, fb) = (a as f32, b as f32);
                assert_eq!(
                    run(&p, "cmpf", vec![Value::F32(fa), Value::F32(fb)]),
                    returns(java_compare(fa.into(), fb.into())),
                    "compare({fa}f, {fb}f)"
                );
                let want = if b.is_nan() { a.abs() } else { a.copysign(b) };
                match run(&p, "sign", vec![d(a), d(b)]) {
                    Outcome::Return(Value::F64(r)) => assert!(
                        r.to_bits() == want.to_bits() || (r.is_nan() && want.is_nan()),
                        "copySign({a}, {b}) = {r}"
                    ),
                    other => panic!("copySign({a}, {b}): {other:?}"),
                }
            }
            let canonical = if a.is_nan() {
                0x7ff8_0000_0000_0000
            } else {
                a.to_bits() as i64
            };
            assert_eq!(run(&p, "bits", vec![d(a)]), returns(canonical), "bits({a})");
            let fa = a as f32;
            let canonical = if fa.is_nan() {
                0x7fc0_0000
            } else {
                fa.to_bits() as i32
            };
            assert_eq!(
                run(&p, "bitsf", vec![Value::F32(fa)]),
                returns(canonical.into()),
                "bits({fa}f)"
            );
            match run(&p, "back", vec![int(a.to_bits() as i64)]) {
                Outcome::Return(Value::F64(r)) => {
                    assert!(
                        r.to_bits() == a.to_bits() || (r.is_nan() && a.is_nan()),
                        "{a}"
                    )
                }
                other => panic!("longBitsToDouble({a}): {other:?}"),
            }
            match run(&p, "backf", vec![int(i64::from(fa.to_bits() as i32))]) {
                Outcome::Return(Value::F32(r)) => {
                    assert!(
                        r.to_bits() == fa.to_bits() || (r.is_nan() && fa.is_nan()),
                        "{fa}"
                    )
                }
                other => panic!("intBitsToFloat({fa}): {other:?}"),
            }
        }
        // The JDK: MAX_EXPONENT + 1 for NaN and the infinities,
        // MIN_EXPONENT - 1 for zeros and subnormals.
        for (x, e) in [
            (1.0, 0),
            (0.75, -1),
            (f64::MAX, 1023),
            (f64::MIN_POSITIVE, -1022),
            (5e-324, -1023),
            (0.0, -1023),
            (f64::NAN, 1024),
            (f64::NEG_INFINITY, 1024),
        ] {
            assert_eq!(run(&p, "exp", vec![d(x)]), returns(e), "getExponent({x})");
        }
    }
}
