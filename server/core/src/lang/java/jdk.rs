//! JDK static methods of `Integer`, `Long` and `Math` lowered to the IR as
//! the JDK implements them (`Integer.bitCount` is the JDK's branch-free
//! formula, `Math.floorMod` its sign fix-up), so they are exact wherever
//! the IR's operators are: in both semantics for comparisons and
//! arithmetic, under `machine` for the bit-level ones (bit operations are
//! uninterpreted under `math`, see `docs/semantics.md`). The interpreter
//! and the symbolic executor need nothing new, and they cannot disagree.

use super::expr::or;
use super::{FnCx, R, span, st, unsupported};
use crate::ir::{BinOp, Block, Expr, ExprKind, Span, StmtKind, Thrown, Type};
use crate::lang::bits::{Build, Temps};
use tree_sitter::Node;

impl Temps for FnCx<'_, '_> {
    fn temp(&mut self, ty: Type, span: Span) -> crate::ir::LocalId {
        FnCx::temp(self, ty, span)
    }
}

impl<'c, 't> FnCx<'c, 't> {
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
            args.push(b.hold(self, e, out));
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
            "bitCount" => b.bit_count(self, x, out),
            "numberOfLeadingZeros" => b.leading_zeros(self, x, out),
            "highestOneBit" => {
                // JDK: i & (MIN_VALUE >>> numberOfLeadingZeros(i)).
                let nlz = b.leading_zeros(self, x.clone(), out);
                let min = b.lit(-(1i128 << (bits - 1)), &ty);
                b.bin(
                    BinOp::BitAnd,
                    &x,
                    &b.bin(BinOp::UShr, &min, &b.cast(&nlz, &ty)),
                )
            }
            "numberOfTrailingZeros" => b.trailing_zeros(self, x, out),
            "floorDiv" | "floorMod" => {
                let y = &args[1];
                // `x / y` faults on 0 as Math.floorDiv does.
                let q = b.hold(self, b.bin(BinOp::Div, &x, y), out);
                let r = b.hold(self, b.bin(BinOp::Rem, &x, y), out);
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
                let r = b.hold(self, b.bin(op, &x, &y), out);
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
