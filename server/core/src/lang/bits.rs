//! Bit-counting functions lowered to IR code, shared by the JDK's
//! `Integer`/`Long` methods and C's `__builtin_clz`/`ctz`/`popcount`: one
//! formula each (the JDK's), so the two front ends cannot model the same
//! operation differently. They are plain IR — comparisons, shifts, masks —
//! exact wherever the IR's operators are (bit operations are uninterpreted
//! under `math`, see `docs/semantics.md`), and the interpreter and the
//! symbolic executor need nothing of their own for them.
//!
//! The argument's type decides the width and the shift: a signed type
//! shifts right with `>>>`, an unsigned one (C) with `>>`, which is logical
//! on it.

use crate::ir::{BinOp, Block, Expr, ExprKind, LocalId, Place, Span, Stmt, StmtKind, Type, UnOp};

/// A front end's supply of fresh temporaries.
pub(super) trait Temps {
    fn temp(&mut self, ty: Type, span: Span) -> LocalId;
}

/// Building IR terms at one span.
pub(super) struct Build {
    pub sp: Span,
}

impl Build {
    pub fn lit(&self, v: i128, ty: &Type) -> Expr {
        self.expr(ExprKind::IntLit(v), ty.clone())
    }

    /// A floating literal of type `ty`.
    pub fn float(&self, v: f64, ty: &Type) -> Expr {
        let text = format!("{v:?}");
        self.expr(
            ExprKind::FloatLit(crate::ir::FloatLit { value: v, text }),
            ty.clone(),
        )
    }

    pub fn bin(&self, op: BinOp, a: &Expr, b: &Expr) -> Expr {
        let ty = if op.is_comparison() {
            Type::Bool
        } else {
            a.ty.clone()
        };
        self.expr(
            ExprKind::Binary(op, Box::new(a.clone()), Box::new(b.clone())),
            ty,
        )
    }

    pub fn and(&self, a: Expr, b: Expr) -> Expr {
        crate::ir::make::and_at(a, b, self.sp)
    }

    pub fn cond(&self, c: Expr, a: Expr, b: Expr) -> Expr {
        let ty = a.ty.clone();
        self.expr(ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)), ty)
    }

    pub fn neg(&self, a: &Expr) -> Expr {
        self.expr(
            ExprKind::Unary(UnOp::Neg, Box::new(a.clone())),
            a.ty.clone(),
        )
    }

    pub fn cast(&self, a: &Expr, ty: &Type) -> Expr {
        if &a.ty == ty {
            return a.clone();
        }
        self.expr(ExprKind::Cast(Box::new(a.clone())), ty.clone())
    }

    /// `e` shifted right by `k` filling with zeros, whatever its signedness.
    pub fn shift_right_logical(&self, e: &Expr, k: i128) -> Expr {
        let op = match e.ty {
            Type::Int(t) if !t.signed => BinOp::Shr,
            _ => BinOp::UShr,
        };
        self.bin(op, e, &self.lit(k, &Type::INT))
    }

    /// `if (cond) { then_branch }`.
    pub fn when(&self, cond: Expr, then_branch: Block) -> Stmt {
        self.stmt(StmtKind::If {
            cond,
            then_branch,
            else_branch: Vec::new(),
        })
    }

    pub fn stmt(&self, kind: StmtKind) -> Stmt {
        Stmt {
            kind,
            span: self.sp,
        }
    }

    fn expr(&self, kind: ExprKind, ty: Type) -> Expr {
        Expr {
            kind,
            ty,
            span: self.sp,
        }
    }

    /// `value` into a fresh temporary (evaluated once, read many times).
    pub fn hold(&self, temps: &mut impl Temps, value: Expr, out: &mut Block) -> Expr {
        let ty = value.ty.clone();
        let t = temps.temp(ty.clone(), self.sp);
        out.push(self.stmt(StmtKind::Assign {
            place: Place::Local(t),
            value,
        }));
        self.expr(ExprKind::Local(t), ty)
    }

    /// `to = value` for a temporary `to` made by [`Build::hold`].
    pub fn reassign(&self, to: &Expr, value: Expr, out: &mut Block) {
        if let ExprKind::Local(t) = to.kind {
            out.push(self.stmt(StmtKind::Assign {
                place: Place::Local(t),
                value,
            }));
        }
    }

    /// The JDK's `bitCount` (Hacker's Delight 5-1) of a 32- or 64-bit `x`,
    /// as an `int`.
    pub fn bit_count(&self, temps: &mut impl Temps, x: Expr, out: &mut Block) -> Expr {
        let ty = x.ty.clone();
        let bits = width(&ty);
        let mask = |v: u64| {
            // As a literal of the type (these masks are positive in both
            // widths and both signednesses).
            let v = if bits == 32 { v & 0xffff_ffff } else { v };
            self.lit(i128::from(v), &ty)
        };
        let i = self.hold(temps, x, out);
        let v = self.bin(
            BinOp::Sub,
            &i,
            &self.bin(
                BinOp::BitAnd,
                &self.shift_right_logical(&i, 1),
                &mask(0x5555_5555_5555_5555),
            ),
        );
        self.reassign(&i, v, out);
        let m3 = mask(0x3333_3333_3333_3333);
        let v = self.bin(
            BinOp::Add,
            &self.bin(BinOp::BitAnd, &i, &m3),
            &self.bin(BinOp::BitAnd, &self.shift_right_logical(&i, 2), &m3),
        );
        self.reassign(&i, v, out);
        let v = self.bin(
            BinOp::BitAnd,
            &self.bin(BinOp::Add, &i, &self.shift_right_logical(&i, 4)),
            &mask(0x0f0f_0f0f_0f0f_0f0f),
        );
        self.reassign(&i, v, out);
        let mut shifts = vec![8, 16];
        if bits == 64 {
            shifts.push(32);
        }
        for k in shifts {
            let v = self.bin(BinOp::Add, &i, &self.shift_right_logical(&i, k));
            self.reassign(&i, v, out);
        }
        let top = if bits == 32 { 0x3f } else { 0x7f };
        self.cast(
            &self.bin(BinOp::BitAnd, &i, &self.lit(top, &ty)),
            &Type::INT,
        )
    }

    /// The JDK's `numberOfLeadingZeros` (binary search on the magnitude) of
    /// a 32- or 64-bit `x`, as an `int`: the width for 0.
    pub fn leading_zeros(&self, temps: &mut impl Temps, x: Expr, out: &mut Block) -> Expr {
        let ty = x.ty.clone();
        let bits = width(&ty);
        let int = Type::INT;
        let i = self.hold(temps, x, out);
        let n = self.hold(temps, self.lit(i128::from(bits) - 1, &int), out);
        let zero = self.lit(0, &ty);
        // Negative: no leading zeros; zero: all of them. The search below
        // runs on positive values only (its result is then overwritten).
        let mut steps = vec![16, 8, 4, 2];
        if bits == 64 {
            steps.insert(0, 32);
        }
        for k in steps {
            let cond = self.bin(BinOp::Ge, &i, &self.lit(1i128 << k, &ty));
            let mut then_branch = Vec::new();
            self.reassign(
                &n,
                self.bin(BinOp::Sub, &n, &self.lit(k, &int)),
                &mut then_branch,
            );
            self.reassign(&i, self.shift_right_logical(&i, k), &mut then_branch);
            out.push(self.when(cond, then_branch));
        }
        let searched = self.bin(
            BinOp::Sub,
            &n,
            &self.cast(&self.shift_right_logical(&i, 1), &int),
        );
        // A negative or zero `i` was never shifted (the tests above are
        // false for it), so the sign test still sees the argument. (An
        // unsigned `i` is never negative: `<= 0` is `== 0` for it.)
        self.cond(
            self.bin(BinOp::Le, &i, &zero),
            self.cond(
                self.bin(BinOp::Eq, &i, &zero),
                self.lit(i128::from(bits), &int),
                self.lit(0, &int),
            ),
            searched,
        )
    }

    /// `numberOfTrailingZeros` of a 32- or 64-bit `x`, as an `int`: the
    /// leading zeros counted up from the lowest one bit, `bits - 1 -
    /// nlz(x & -x)`, or the width for 0.
    pub fn trailing_zeros(&self, temps: &mut impl Temps, x: Expr, out: &mut Block) -> Expr {
        let bits = width(&x.ty);
        let int = Type::INT;
        let zero = self.lit(0, &x.ty);
        let low = self.hold(temps, self.bin(BinOp::BitAnd, &x, &self.neg(&x)), out);
        let nlz = self.leading_zeros(temps, low.clone(), out);
        self.cond(
            self.bin(BinOp::Eq, &low, &zero),
            self.lit(i128::from(bits), &int),
            self.bin(BinOp::Sub, &self.lit(i128::from(bits) - 1, &int), &nlz),
        )
    }
}

/// The width of an integer type; the bit functions exist for 32 and 64.
fn width(ty: &Type) -> u32 {
    match ty {
        Type::Int(t) if t.bits == 64 => 64,
        _ => 32,
    }
}

#[cfg(test)]
mod tests {
    //! The formulas, through both front ends and the interpreter, against
    //! Rust's own bit counting (`machine`), on values around every bit
    //! boundary.
    use crate::interp::Outcome;
    use crate::ir::{Lang, Program, Semantics};
    use crate::value::Value;
    use num_bigint::BigInt;

    /// 0, 1, the all-ones value, and each power of two with its neighbours.
    fn samples(bits: u32) -> Vec<u64> {
        let mut v = vec![0, 1, u64::MAX >> (64 - bits)];
        for k in 0..bits {
            let p = 1u64 << k;
            v.extend([p, p - 1, p | 1, p.wrapping_add(p >> 1), p.wrapping_mul(3)]);
        }
        v.into_iter()
            .map(|x| x & (u64::MAX >> (64 - bits)))
            .collect()
    }

    /// The function `name` of `program` on one argument, under `machine`.
    fn run(program: &Program, name: &str, arg: Value) -> Outcome {
        crate::interp::run_named(program, name, Semantics::Machine, vec![arg])
    }

    fn returns(v: i64) -> Outcome {
        Outcome::Return(Value::int(v))
    }

    #[test]
    fn jdk_bit_counts_match_rust() {
        let program = crate::lang::lower(
            Lang::Java,
            "class B {
                static int nlz(int x) { return Integer.numberOfLeadingZeros(x); }
                static int ntz(int x) { return Integer.numberOfTrailingZeros(x); }
                static int ones(int x) { return Integer.bitCount(x); }
                static int nlzl(long x) { return Long.numberOfLeadingZeros(x); }
                static int ntzl(long x) { return Long.numberOfTrailingZeros(x); }
                static int onesl(long x) { return Long.bitCount(x); }
            }",
        );
        for x in samples(32) {
            let arg = Value::int(i64::from(x as u32 as i32));
            let x = x as u32;
            assert_eq!(
                run(&program, "nlz", arg.clone()),
                returns(x.leading_zeros().into()),
                "{x:#x}"
            );
            assert_eq!(
                run(&program, "ntz", arg.clone()),
                returns(x.trailing_zeros().into()),
                "{x:#x}"
            );
            assert_eq!(
                run(&program, "ones", arg),
                returns(x.count_ones().into()),
                "{x:#x}"
            );
        }
        for x in samples(64) {
            let arg = Value::int(x as i64);
            assert_eq!(
                run(&program, "nlzl", arg.clone()),
                returns(x.leading_zeros().into()),
                "{x:#x}"
            );
            assert_eq!(
                run(&program, "ntzl", arg.clone()),
                returns(x.trailing_zeros().into()),
                "{x:#x}"
            );
            assert_eq!(
                run(&program, "onesl", arg),
                returns(x.count_ones().into()),
                "{x:#x}"
            );
        }
    }

    #[test]
    fn gcc_builtins_match_rust_and_zero_is_undefined_for_clz_and_ctz() {
        let program = crate::lang::lower(
            Lang::C,
            "int clz(unsigned x) { return __builtin_clz(x); }
             int ctz(unsigned x) { return __builtin_ctz(x); }
             int pop(unsigned x) { return __builtin_popcount(x); }
             int par(unsigned x) { return __builtin_parity(x); }
             int ffs32(int x) { return __builtin_ffs(x); }
             int clzll(unsigned long long x) { return __builtin_clzll(x); }
             int ctzl(unsigned long x) { return __builtin_ctzl(x); }
             int popl(unsigned long x) { return __builtin_popcountl(x); }
             int ffsl64(long x) { return __builtin_ffsl(x); }",
        );
        for x in samples(32) {
            let u = Value::int(i64::from(x as u32));
            let s = Value::int(i64::from(x as u32 as i32));
            let x = x as u32;
            let ones = x.count_ones();
            assert_eq!(
                run(&program, "pop", u.clone()),
                returns(ones.into()),
                "{x:#x}"
            );
            assert_eq!(
                run(&program, "par", u.clone()),
                returns((ones % 2).into()),
                "{x:#x}"
            );
            let ffs = if x == 0 { 0 } else { x.trailing_zeros() + 1 };
            assert_eq!(run(&program, "ffs32", s), returns(ffs.into()), "{x:#x}");
            if x != 0 {
                assert_eq!(
                    run(&program, "clz", u.clone()),
                    returns(x.leading_zeros().into()),
                    "{x:#x}"
                );
                assert_eq!(
                    run(&program, "ctz", u),
                    returns(x.trailing_zeros().into()),
                    "{x:#x}"
                );
            }
        }
        for x in samples(64) {
            let u = Value::Int(BigInt::from(x));
            let s = Value::int(x as i64);
            assert_eq!(
                run(&program, "popl", u.clone()),
                returns(x.count_ones().into()),
                "{x:#x}"
            );
            let ffs = if x == 0 { 0 } else { x.trailing_zeros() + 1 };
            assert_eq!(run(&program, "ffsl64", s), returns(ffs.into()), "{x:#x}");
            if x != 0 {
                assert_eq!(
                    run(&program, "clzll", u.clone()),
                    returns(x.leading_zeros().into()),
                    "{x:#x}"
                );
                assert_eq!(
                    run(&program, "ctzl", u),
                    returns(x.trailing_zeros().into()),
                    "{x:#x}"
                );
            }
        }
        for f in ["clz", "ctz", "clzll", "ctzl"] {
            let outcome = run(&program, f, Value::int(0));
            let Outcome::Fault { kind, .. } = &outcome else {
                panic!("{f}(0) returned: {outcome:?}");
            };
            assert_eq!(kind.outcome_key(Lang::C), "undefined behaviour", "{f}(0)");
        }
    }
}
