//! JDK static methods of `Integer`, `Long` and `Math` lowered to the IR as
//! the JDK implements them (`Integer.bitCount` is the JDK's branch-free
//! formula, `Math.floorMod` its sign fix-up), so they are exact wherever
//! the IR's operators are: in both semantics for comparisons and
//! arithmetic, under `machine` for the bit-level ones (bit operations are
//! uninterpreted under `math`, see `docs/semantics.md`). The interpreter
//! and the symbolic executor need nothing new, and they cannot disagree.

use super::expr::or;
use super::{FnCx, R, mk, span, st, unsupported};
use crate::ir::{BinOp, Block, Expr, ExprKind, Place, Span, StmtKind, Thrown, Type, UnOp};
use tree_sitter::Node;

/// Building IR terms of one type at one span.
struct Build {
    sp: Span,
}

impl Build {
    fn lit(&self, v: i128, ty: &Type) -> Expr {
        mk(ExprKind::IntLit(v), ty.clone(), self.sp)
    }
    fn bin(&self, op: BinOp, a: &Expr, b: &Expr) -> Expr {
        let ty = if op.is_comparison() {
            Type::Bool
        } else {
            a.ty.clone()
        };
        mk(
            ExprKind::Binary(op, Box::new(a.clone()), Box::new(b.clone())),
            ty,
            self.sp,
        )
    }
    fn and(&self, a: Expr, b: Expr) -> Expr {
        mk(
            ExprKind::Binary(BinOp::And, Box::new(a), Box::new(b)),
            Type::Bool,
            self.sp,
        )
    }
    fn cond(&self, c: Expr, a: Expr, b: Expr) -> Expr {
        let ty = a.ty.clone();
        mk(
            ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)),
            ty,
            self.sp,
        )
    }
    fn neg(&self, a: &Expr) -> Expr {
        mk(
            ExprKind::Unary(UnOp::Neg, Box::new(a.clone())),
            a.ty.clone(),
            self.sp,
        )
    }
    fn cast(&self, a: &Expr, ty: &Type) -> Expr {
        if &a.ty == ty {
            return a.clone();
        }
        mk(ExprKind::Cast(Box::new(a.clone())), ty.clone(), self.sp)
    }
}

impl<'c, 't> FnCx<'c, 't> {
    /// `value` into a fresh temporary (evaluated once, read many times).
    fn hold(&mut self, value: Expr, out: &mut Block) -> Expr {
        let (ty, sp) = (value.ty.clone(), value.span);
        let t = self.temp(ty.clone(), sp);
        out.push(st(
            StmtKind::Assign {
                place: Place::Local(t),
                value,
            },
            sp,
        ));
        mk(ExprKind::Local(t), ty, sp)
    }

    fn reassign(&mut self, to: &Expr, value: Expr, out: &mut Block) {
        if let ExprKind::Local(t) = to.kind {
            let sp = value.span;
            out.push(st(
                StmtKind::Assign {
                    place: Place::Local(t),
                    value,
                },
                sp,
            ));
        }
    }

    /// `Integer.m(...)`, `Long.m(...)`, `Math.m(...)` that we model, or
    /// `None` for any other method (left to the caller).
    pub(super) fn jdk_method(
        &mut self,
        n: Node,
        class: &str,
        name: &str,
        arg_nodes: &[Node],
        out: &mut Block,
    ) -> R<Option<Expr>> {
        let b = Build { sp: span(n) };
        let int = Type::INT;
        if class == "Double" && matches!(name, "doubleToRawLongBits" | "doubleToLongBits") {
            return self.double_bits(n, name, arg_nodes, out).map(Some);
        }
        let (ty, bits) = match class {
            "Integer" => (Type::INT, 32),
            "Long" => (Type::LONG, 64),
            "Math" | "StrictMath" => {
                if !matches!(
                    name,
                    "floorDiv" | "floorMod" | "addExact" | "subtractExact" | "multiplyExact"
                ) {
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
            (true, "multiplyExact") if bits == 32 => 2,
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
            args.push(self.hold(e, out));
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
            "bitCount" => self.bit_count(&b, x, bits, out),
            "numberOfLeadingZeros" => self.leading_zeros(&b, x, bits, out),
            "highestOneBit" => {
                // JDK: i & (MIN_VALUE >>> numberOfLeadingZeros(i)).
                let nlz = self.leading_zeros(&b, x.clone(), bits, out);
                let min = b.lit(-(1i128 << (bits - 1)), &ty);
                b.bin(
                    BinOp::BitAnd,
                    &x,
                    &b.bin(BinOp::UShr, &min, &b.cast(&nlz, &ty)),
                )
            }
            "numberOfTrailingZeros" => {
                // The trailing zeros of i are the leading zeros counted up
                // from the lowest one bit: bits - 1 - nlz(i & -i), or bits for 0.
                let low = self.hold(b.bin(BinOp::BitAnd, &x, &b.neg(&x)), out);
                let nlz = self.leading_zeros(&b, low.clone(), bits, out);
                b.cond(
                    b.bin(BinOp::Eq, &low, &zero),
                    b.lit(bits as i128, &int),
                    b.bin(BinOp::Sub, &b.lit(bits as i128 - 1, &int), &nlz),
                )
            }
            "floorDiv" | "floorMod" => {
                let y = &args[1];
                // `x / y` faults on 0 as Math.floorDiv does.
                let q = self.hold(b.bin(BinOp::Div, &x, y), out);
                let r = self.hold(b.bin(BinOp::Rem, &x, y), out);
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
            "addExact" | "subtractExact" | "multiplyExact" => {
                let y = args[1].clone();
                let op = match name {
                    "addExact" => BinOp::Add,
                    "subtractExact" => BinOp::Sub,
                    _ => BinOp::Mul,
                };
                let r = self.hold(b.bin(op, &x, &y), out);
                // Overflow, exactly in both semantics (never under math).
                let overflow = if op == BinOp::Mul {
                    let wide = |e: &Expr| b.cast(e, &Type::LONG);
                    b.bin(
                        BinOp::Ne,
                        &b.bin(BinOp::Mul, &wide(&x), &wide(&y)),
                        &wide(&r),
                    )
                } else {
                    let lt = |e: &Expr| b.bin(BinOp::Lt, e, &zero);
                    let ge = |e: &Expr| b.bin(BinOp::Ge, e, &zero);
                    let (ys_pos, ys_neg) = if op == BinOp::Add {
                        (b.bin(BinOp::Gt, &y, &zero), lt(&y))
                    } else {
                        (lt(&y), b.bin(BinOp::Gt, &y, &zero))
                    };
                    or(
                        b.and(b.and(ge(&x), ys_pos), lt(&r)),
                        b.and(b.and(lt(&x), ys_neg), ge(&r)),
                        b.sp,
                    )
                };
                out.push(st(
                    StmtKind::If {
                        cond: overflow,
                        then_branch: vec![st(
                            StmtKind::Throw(Thrown::Exception("ArithmeticException".into())),
                            b.sp,
                        )],
                        else_branch: Vec::new(),
                    },
                    b.sp,
                ));
                r
            }
            _ => return Ok(None),
        }))
    }

    /// The JDK's `bitCount` (Hacker's Delight 5-1), as an `int`.
    fn bit_count(&mut self, b: &Build, x: Expr, bits: u32, out: &mut Block) -> Expr {
        let ty = x.ty.clone();
        let mask = |v: u64| {
            let v = if bits == 32 { v & 0xffff_ffff } else { v };
            // As a signed literal of the type.
            let s = if bits == 32 {
                i128::from(v as u32 as i32)
            } else {
                i128::from(v as i64)
            };
            b.lit(s, &ty)
        };
        let sh = |e: &Expr, k: i128| b.bin(BinOp::UShr, e, &b.lit(k, &Type::INT));
        let i = self.hold(x, out);
        let v = b.bin(
            BinOp::Sub,
            &i,
            &b.bin(BinOp::BitAnd, &sh(&i, 1), &mask(0x5555_5555_5555_5555)),
        );
        self.reassign(&i, v, out);
        let m3 = mask(0x3333_3333_3333_3333);
        let v = b.bin(
            BinOp::Add,
            &b.bin(BinOp::BitAnd, &i, &m3),
            &b.bin(BinOp::BitAnd, &sh(&i, 2), &m3),
        );
        self.reassign(&i, v, out);
        let v = b.bin(
            BinOp::BitAnd,
            &b.bin(BinOp::Add, &i, &sh(&i, 4)),
            &mask(0x0f0f_0f0f_0f0f_0f0f),
        );
        self.reassign(&i, v, out);
        let mut shifts = vec![8, 16];
        if bits == 64 {
            shifts.push(32);
        }
        for k in shifts {
            let v = b.bin(BinOp::Add, &i, &sh(&i, k));
            self.reassign(&i, v, out);
        }
        let top = if bits == 32 { 0x3f } else { 0x7f };
        b.cast(&b.bin(BinOp::BitAnd, &i, &b.lit(top, &ty)), &Type::INT)
    }

    /// The JDK's `numberOfLeadingZeros` (binary search on the magnitude),
    /// as an `int`.
    fn leading_zeros(&mut self, b: &Build, x: Expr, bits: u32, out: &mut Block) -> Expr {
        let ty = x.ty.clone();
        let int = Type::INT;
        let i = self.hold(x, out);
        let n = self.hold(b.lit(bits as i128 - 1, &int), out);
        let zero = b.lit(0, &ty);
        // Negative: no leading zeros; zero: all of them. The search below
        // runs on positive values only (its result is then overwritten).
        let mut steps = vec![16, 8, 4, 2];
        if bits == 64 {
            steps.insert(0, 32);
        }
        for k in steps {
            let cond = b.bin(BinOp::Ge, &i, &b.lit(1i128 << k, &ty));
            let mut then_branch = Vec::new();
            self.reassign(&n, b.bin(BinOp::Sub, &n, &b.lit(k, &int)), &mut then_branch);
            self.reassign(
                &i,
                b.bin(BinOp::UShr, &i, &b.lit(k, &int)),
                &mut then_branch,
            );
            out.push(st(
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch: Vec::new(),
                },
                b.sp,
            ));
        }
        let searched = b.bin(
            BinOp::Sub,
            &n,
            &b.cast(&b.bin(BinOp::UShr, &i, &b.lit(1, &int)), &int),
        );
        // A negative or zero `i` was never shifted (the tests above are
        // false for it), so the sign test still sees the argument.
        b.cond(
            b.bin(BinOp::Le, &i, &zero),
            b.cond(
                b.bin(BinOp::Eq, &i, &zero),
                b.lit(bits as i128, &int),
                b.lit(0, &int),
            ),
            searched,
        )
    }
}

impl FnCx<'_, '_> {
    /// `Double.doubleToRawLongBits(c)` / `doubleToLongBits(c)` of a
    /// constant: the IEEE-754 bit pattern of the double nearest to `c`, as
    /// Java computes it (a literal has no NaN payload to canonicalise).
    /// A variable argument is refused: under `math` a double is a real,
    /// which has no bit pattern.
    fn double_bits(&mut self, n: Node, name: &str, arg_nodes: &[Node], out: &mut Block) -> R<Expr> {
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
            return Err(unsupported(
                n,
                format!("Double.{name} of a value that is not a constant"),
            ));
        };
        let _ = out;
        let v = if e.ty == Type::Float(crate::ir::FloatTy::F32) {
            f64::from(v as f32)
        } else {
            v
        };
        Ok(crate::ir::Expr {
            kind: ExprKind::IntLit(i128::from(v.to_bits() as i64)),
            ty: Type::LONG,
            span: span(n),
        })
    }
}
