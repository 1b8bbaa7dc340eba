//! The meaning of every scalar operation (unary, binary, casts, intrinsics)
//! under both semantics, on the interpreter's internal values.
//!
//! These functions are the concrete counterpart of the symbolic encoder's
//! operator encodings: each rule here is a rule of `docs/semantics.md`, and
//! choices the document leaves open are written down next to the code.

use super::eval::V;
use super::{FaultKind, LimitKind, Stop};
use crate::interval::Interval;
use crate::ir::{
    BinOp, FloatTy, IntTy, Intrinsic, Lang, Semantics, SignedOverflow, Span, Type, UnOp,
};
use crate::value::{Real, Term, TermOp, same_term};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::sync::Arc;

/// Size (numerator + denominator bits) past which an exact rational is
/// continued as an `f64` approximation.
const MAX_EXACT_BITS: u64 = 4096;

/// The largest shift count the interpreter will perform on an unbounded
/// integer under math semantics (a left shift by `n` allocates `n` bits).
const MAX_MATH_SHIFT: u64 = 1 << 20;

/// The largest product, in bits, the interpreter computes on unbounded
/// integers under math semantics: repeated squaring doubles a number's
/// size each time, and a single product of numbers of millions of bits
/// takes seconds that no deadline check interrupts.
const MAX_MATH_PRODUCT_BITS: u64 = 1 << 16;

/// Scalar semantics for one execution: which meaning, which source language
/// (Java and C differ on shifts, casts and `MIN / -1`), and whether an
/// approximate value has been produced so far.
#[derive(Clone, Debug)]
pub(crate) struct Arith {
    pub math: bool,
    pub java: bool,
    /// Set whenever an approximation influenced a value.
    pub inexact: bool,
    /// Set when a value had to be picked from an interval that does not
    /// decide it (an approximate real converted to an integer where no
    /// error is possible): the run is then no evidence of anything.
    pub undecided: bool,
    /// C under `machine` without `-fwrapv`: a signed `+ - *`, `-x` or
    /// `abs` whose exact result does not fit is undefined behaviour.
    pub overflow_undefined: bool,
}

fn fault(kind: FaultKind, span: Span) -> Stop {
    Stop::Fault(kind, span)
}

fn undefined(what: &str, span: Span) -> Stop {
    Stop::Fault(FaultKind::Undefined(what.to_string()), span)
}

/// An operation the front ends never produce (ill-typed IR). Reported as a
/// fault rather than a panic, with a message that makes the cause findable.
/// The interpreter met IR it has no meaning for: a gap of eqlens, not a
/// behaviour of the program, so the run is inconclusive.
pub(crate) fn internal(what: &str, span: Span) -> Stop {
    Stop::Limit(LimitKind::Unanalysed(format!(
        "an operation the interpreter cannot run ({what}) at {span}"
    )))
}

/// `i` reduced to the range of `t` (two's complement wrap-around).
pub(crate) fn wrap(i: &BigInt, t: IntTy) -> BigInt {
    let bits = u32::from(t.bits);
    if bits == 0 {
        return BigInt::zero();
    }
    if bits < 128
        && let Some(v) = i.to_i128()
    {
        // Fast path: keep the low `bits` bits, then sign-extend.
        let m: u128 = (1u128 << bits) - 1;
        let low = (v as u128) & m;
        if t.signed && (low >> (bits - 1)) & 1 == 1 {
            return BigInt::from(low as i128 - (1i128 << bits));
        }
        return BigInt::from(low);
    }
    let modulus = BigInt::one() << bits;
    let r = i.mod_floor(&modulus);
    if t.signed && r >= (BigInt::one() << (bits - 1)) {
        r - modulus
    } else {
        r
    }
}

/// Smallest and largest value of `t`.
pub(crate) fn int_range(t: IntTy) -> (BigInt, BigInt) {
    let bits = u32::from(t.bits.max(1));
    if t.signed {
        (
            -(BigInt::one() << (bits - 1)),
            (BigInt::one() << (bits - 1)) - 1,
        )
    } else {
        (BigInt::zero(), (BigInt::one() << bits) - 1)
    }
}

fn clamp(i: BigInt, t: IntTy) -> BigInt {
    let (lo, hi) = int_range(t);
    if i < lo {
        lo
    } else if i > hi {
        hi
    } else {
        i
    }
}

/// The exact value of a finite double.
pub(crate) fn rat_of_f64(x: f64) -> Option<BigRational> {
    BigRational::from_float(x)
}

/// Parses decimal floating-point text (`1.5`, `.5`, `1e-3`, `2.`, with
/// optional Java `_` separators) into its exact rational value.
pub(crate) fn parse_decimal(text: &str) -> Option<BigRational> {
    let t: String = text.chars().filter(|&c| c != '_').collect();
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(p) => (&t[..p], t[p + 1..].parse::<i64>().ok()?),
        None => (t.as_str(), 0),
    };
    let (sign, mant) = match mant.strip_prefix('-') {
        Some(m) => (-1, m),
        None => (1, mant.strip_prefix('+').unwrap_or(mant)),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    // Exponents beyond this are not literals anyone writes; refuse rather
    // than allocate gigantic powers of ten.
    let exp = exp.checked_sub(i64::try_from(frac.len()).ok()?)?;
    if exp.unsigned_abs() > 10_000 {
        return None;
    }
    let digits = format!("{int}{frac}");
    let n: BigInt = if digits.is_empty() {
        BigInt::zero()
    } else {
        digits.parse().ok()?
    };
    let ten = BigInt::from(10);
    let p = num_traits::pow(ten, exp.unsigned_abs() as usize);
    let r = if exp >= 0 {
        BigRational::from_integer(n * p)
    } else {
        BigRational::new(n, p)
    };
    Some(if sign < 0 { -r } else { r })
}

/// The order of two reals; `None` when approximations leave it open.
fn real_cmp(a: &Real, b: &Real) -> Option<Ordering> {
    match (a, b) {
        (Real::Exact(x), Real::Exact(y)) => Some(x.cmp(y)),
        _ if same_term(a, b) => Some(Ordering::Equal),
        _ => a.interval().order(&b.interval()),
    }
}

/// A question approximations do not answer stops the run: its outcome
/// would rest on approximation error.
fn decided<T>(v: Option<T>) -> Result<T, Stop> {
    v.ok_or(Stop::Limit(LimitKind::Approximation))
}

fn cmp_result(op: BinOp, o: Option<Ordering>) -> bool {
    match (op, o) {
        (BinOp::Ne, None) => true,
        (_, None) => false,
        (BinOp::Eq, Some(o)) => o == Ordering::Equal,
        (BinOp::Ne, Some(o)) => o != Ordering::Equal,
        (BinOp::Lt, Some(o)) => o == Ordering::Less,
        (BinOp::Le, Some(o)) => o != Ordering::Greater,
        (BinOp::Gt, Some(o)) => o == Ordering::Greater,
        (BinOp::Ge, Some(o)) => o != Ordering::Less,
        _ => false,
    }
}

/// IEEE operations shared by `f32` and `f64` (Rust's operators are IEEE-754
/// round-to-nearest-even; `%` is C `fmod` / Java `%`).
macro_rules! ieee_binary {
    ($op:expr, $a:expr, $b:expr, $wrap:path, $span:expr) => {{
        let (a, b) = ($a, $b);
        Ok(match $op {
            BinOp::Add => $wrap(a + b),
            BinOp::Sub => $wrap(a - b),
            BinOp::Mul => $wrap(a * b),
            BinOp::Div => $wrap(a / b),
            BinOp::Rem => $wrap(a % b),
            op if op.is_comparison() => V::Bool(cmp_result(op, a.partial_cmp(&b))),
            _ => {
                return Err(internal(
                    "bitwise operator on floating-point operands",
                    $span,
                ));
            }
        })
    }};
}

impl Arith {
    pub fn new(semantics: Semantics, lang: Lang, signed_overflow: SignedOverflow) -> Arith {
        Arith {
            math: semantics == Semantics::Math,
            java: lang == Lang::Java,
            inexact: false,
            undecided: false,
            overflow_undefined: semantics == Semantics::Machine
                && lang == Lang::C
                && signed_overflow == SignedOverflow::Undefined,
        }
    }

    /// `r`, the exact result of a `+ - *`, `-x` or `abs` of type `ty`:
    /// undefined when the type is a signed integer it does not fit and
    /// overflow is undefined here.
    fn check_overflow(&self, r: &BigInt, ty: &Type, span: Span) -> Result<(), Stop> {
        if let Type::Int(t) = ty
            && self.overflow_undefined
            && t.signed
        {
            let (lo, hi) = int_range(*t);
            if *r < lo || *r > hi {
                return Err(undefined("signed integer overflow", span));
            }
        }
        Ok(())
    }

    /// Wraps an integer result to its type under machine semantics.
    fn fit_int(&self, i: BigInt, t: IntTy) -> BigInt {
        if self.math { i } else { wrap(&i, t) }
    }

    /// A real result, noting approximations. Exact rationals whose size
    /// explodes (recurrences multiply denominators: each step slower than
    /// the last) continue as approximations, so a run stays fast.
    fn real(&mut self, r: Real) -> V {
        let r = match r {
            Real::Exact(q) if q.numer().bits() + q.denom().bits() > MAX_EXACT_BITS => {
                let iv = Interval::of_rational(&q);
                Real::Approx(iv, Some(Arc::new(Term::Exact(q))))
            }
            r => r,
        };
        if !r.is_exact() {
            self.inexact = true;
        }
        V::Real(r)
    }

    /// An approximation of unknown provenance.
    fn approx(&mut self, x: Interval) -> V {
        self.real(Real::Approx(x, None))
    }

    /// `x`, an interval around `op` applied to `args`.
    fn derived(&mut self, x: Interval, op: TermOp, args: &[&Real]) -> V {
        self.real(Real::Approx(x, Term::apply(op, args)))
    }

    /// The zero of a type (locals and unlisted globals start there).
    pub fn zero(&self, ty: &Type) -> V {
        match ty {
            Type::Void => V::Void,
            Type::Bool => V::Bool(false),
            Type::Int(_) => V::Int(BigInt::zero()),
            Type::Float(_) if self.math => V::Real(Real::Exact(BigRational::zero())),
            Type::Float(FloatTy::F32) => V::F32(0.0),
            Type::Float(FloatTy::F64) => V::F64(0.0),
            Type::Array(_) => V::Null,
            Type::Str => V::Str(String::new()),
        }
    }

    /// The value of a floating-point literal: its exact decimal value under
    /// math semantics, the nearest binary32/64 under machine semantics.
    pub fn float_lit(&mut self, value: f64, text: &str, ty: &Type) -> V {
        if self.math {
            let exact = if text.is_empty() {
                None
            } else {
                parse_decimal(text)
            };
            return match exact.or_else(|| rat_of_f64(value)) {
                Some(r) => V::Real(Real::Exact(r)),
                None => self.approx(Interval::point(value)),
            };
        }
        match ty {
            // Parse the text directly: rounding the f64 again to f32 could
            // double-round.
            Type::Float(FloatTy::F32) => {
                V::F32(text.replace('_', "").parse::<f32>().unwrap_or(value as f32))
            }
            _ => V::F64(value),
        }
    }

    pub fn int_lit(&mut self, i: i128, ty: &Type) -> V {
        let b = BigInt::from(i);
        match ty {
            Type::Int(t) => V::Int(self.fit_int(b, *t)),
            Type::Float(_) => self.coerce(V::Int(b), ty),
            _ => V::Int(b),
        }
    }

    pub fn unary(&mut self, op: UnOp, v: V, ty: &Type, span: Span) -> Result<V, Stop> {
        Ok(match (op, v) {
            (UnOp::Not, V::Bool(b)) | (UnOp::BitNot, V::Bool(b)) => V::Bool(!b),
            (UnOp::Neg, V::Int(i)) => {
                self.check_overflow(&-&i, ty, span)?;
                V::Int(self.fit_ty(-i, ty))
            }
            (UnOp::BitNot, V::Int(i)) => V::Int(self.fit_ty(!i, ty)),
            (UnOp::Neg, V::Real(Real::Exact(r))) => V::Real(Real::Exact(-r)),
            (UnOp::Neg, V::Real(r @ Real::Approx(..))) => {
                self.derived(-r.interval(), TermOp::Neg, &[&r])
            }
            (UnOp::Neg, V::F32(x)) => V::F32(-x),
            (UnOp::Neg, V::F64(x)) => V::F64(-x),
            _ => return Err(internal("ill-typed unary operand", span)),
        })
    }

    fn fit_ty(&self, i: BigInt, ty: &Type) -> BigInt {
        match ty {
            Type::Int(t) => self.fit_int(i, *t),
            _ => i,
        }
    }

    /// A binary operator other than the lazy `And`/`Or` (which the evaluator
    /// handles). `ty` is the expression's type, `lhs_ty` the left operand's
    /// (they differ for comparisons).
    pub fn binary(
        &mut self,
        op: BinOp,
        a: V,
        b: V,
        ty: &Type,
        lhs_ty: &Type,
        span: Span,
    ) -> Result<V, Stop> {
        match (a, b) {
            (V::Bool(x), V::Bool(y)) => Ok(V::Bool(match op {
                BinOp::BitAnd | BinOp::And => x & y,
                BinOp::BitOr | BinOp::Or => x | y,
                BinOp::BitXor | BinOp::Ne => x ^ y,
                BinOp::Eq => x == y,
                _ => return Err(internal("arithmetic on booleans", span)),
            })),
            (V::Int(x), V::Int(y)) => {
                let t = match (ty, lhs_ty) {
                    (Type::Int(t), _) | (_, Type::Int(t)) => *t,
                    _ => return Err(internal("integer operands of a non-integer type", span)),
                };
                self.int_binary(op, x, y, t, span)
            }
            (V::Real(x), V::Real(y)) => self.real_binary(op, x, y, span),
            (V::F64(x), V::F64(y)) => ieee_binary!(op, x, y, V::F64, span),
            (V::F32(x), V::F32(y)) => ieee_binary!(op, x, y, V::F32, span),
            (V::Null, _) | (_, V::Null) | (V::Arr(_), _) | (_, V::Arr(_))
                if matches!(op, BinOp::Eq | BinOp::Ne) =>
            {
                Err(internal("comparison of array references", span))
            }
            _ => Err(internal("ill-typed binary operands", span)),
        }
    }

    fn int_binary(
        &mut self,
        op: BinOp,
        x: BigInt,
        y: BigInt,
        t: IntTy,
        span: Span,
    ) -> Result<V, Stop> {
        if op == BinOp::Mul && x.bits() + y.bits() > MAX_MATH_PRODUCT_BITS {
            return Err(Stop::Limit(LimitKind::IntegerTooLarge));
        }
        let r = match op {
            BinOp::Add => x + y,
            BinOp::Sub => x - y,
            BinOp::Mul => x * y,
            BinOp::Div | BinOp::Rem => {
                if y.is_zero() {
                    return Err(fault(FaultKind::DivisionByZero, span));
                }
                // C: `MIN / -1` (and `MIN % -1`, whose quotient is the same
                // unrepresentable value, C11 6.5.5p6) is undefined.
                if !self.math
                    && !self.java
                    && t.signed
                    && y == BigInt::from(-1)
                    && x == int_range(t).0
                {
                    return Err(undefined("signed integer overflow in division", span));
                }
                // BigInt `/` and `%` truncate toward zero, as Java and C do.
                if op == BinOp::Div { x / y } else { x % y }
            }
            BinOp::BitAnd => x & y,
            BinOp::BitOr => x | y,
            BinOp::BitXor => x ^ y,
            BinOp::Shl | BinOp::Shr | BinOp::UShr => return self.shift(op, x, y, t, span),
            op if op.is_comparison() => return Ok(V::Bool(cmp_result(op, Some(x.cmp(&y))))),
            _ => return Err(internal("logical operator on integers", span)),
        };
        if matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul) {
            self.check_overflow(&r, &Type::Int(t), span)?;
        }
        Ok(V::Int(self.fit_int(r, t)))
    }

    /// Shifts. `t` is the (promoted) left operand's type.
    ///
    /// - Java (both semantics): the count is masked by `& 31` for operands
    ///   of 32 bits or less, `& 63` for `long`.
    /// - C: a count outside `[0, width)` is undefined behaviour. We apply
    ///   this under math semantics too: it is a property of the source
    ///   language, not of the integer model, and keeps counts bounded.
    /// - Math: `x << n = x·2ⁿ`, `x >> n = ⌊x / 2ⁿ⌋` on unbounded integers.
    /// - `>>>` (Java only) under both semantics: the left operand is reduced
    ///   to its type's width (as machine semantics would hold it), shifted
    ///   logically, and the result read back as the signed type. For an
    ///   in-range operand this is exactly Java's `>>>`; under math it is the
    ///   only meaning that does not depend on an infinite sign extension.
    fn shift(&mut self, op: BinOp, x: BigInt, n: BigInt, t: IntTy, span: Span) -> Result<V, Stop> {
        let width = u64::from(t.bits);
        let n: u64 = if self.java {
            let mask = if t.bits > 32 { 63 } else { 31 };
            (n & BigInt::from(mask)).to_u64().unwrap_or(0)
        } else {
            match n.to_u64() {
                Some(n) if n < width => n,
                _ => return Err(undefined("shift count out of range", span)),
            }
        };
        if n > MAX_MATH_SHIFT {
            return Err(Stop::Limit(LimitKind::ArrayTooLarge));
        }
        let n = n as usize;
        let r = match op {
            BinOp::Shl => x << n,
            // BigInt `>>` rounds toward negative infinity: arithmetic shift
            // for signed values, logical for the non-negative unsigned ones.
            BinOp::Shr => x >> n,
            _ => {
                let u = x.mod_floor(&(BigInt::one() << t.bits));
                return Ok(V::Int(wrap(&(u >> n), t)));
            }
        };
        Ok(V::Int(self.fit_int(r, t)))
    }

    fn real_binary(&mut self, op: BinOp, x: Real, y: Real, span: Span) -> Result<V, Stop> {
        if op.is_comparison() {
            if !(x.is_exact() && y.is_exact()) {
                self.inexact = true;
            }
            return Ok(V::Bool(cmp_result(op, Some(decided(real_cmp(&x, &y))?))));
        }
        if matches!(op, BinOp::Div | BinOp::Rem)
            && let Real::Exact(r) = &y
            && r.is_zero()
        {
            return Err(fault(FaultKind::DivisionByZero, span));
        }
        match (x, y) {
            (Real::Exact(a), Real::Exact(b)) => {
                let r = match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    // a - b·trunc(a/b): the sign follows the dividend.
                    BinOp::Rem => {
                        let q = (&a / &b).trunc();
                        a - b * q
                    }
                    _ => return Err(internal("bitwise operator on reals", span)),
                };
                Ok(self.real(Real::Exact(r)))
            }
            // An approximate divisor that may be zero (a tiny non-zero
            // number or a true zero) decides nothing.
            // The same real computed twice: their difference is exact.
            (x, y) if op == BinOp::Sub && same_term(&x, &y) => {
                Ok(V::Real(Real::Exact(BigRational::zero())))
            }
            (x, y) => {
                let (a, b) = (x.interval(), y.interval());
                let (r, term_op) = match op {
                    BinOp::Add => (a + b, TermOp::Add),
                    BinOp::Sub => (a - b, TermOp::Sub),
                    BinOp::Mul => (a * b, TermOp::Mul),
                    BinOp::Div => (decided(a.checked_div(b))?, TermOp::Div),
                    // a - b·trunc(a/b), where the quotient's integer part is
                    // one integer for every value.
                    BinOp::Rem => {
                        let q = decided(a.checked_div(b))?;
                        decided(q.unique_integer(f64::trunc))?;
                        (a - b * Interval::point(q.lo().trunc()), TermOp::Rem)
                    }
                    _ => return Err(internal("bitwise operator on reals", span)),
                };
                Ok(self.derived(r, term_op, &[&x, &y]))
            }
        }
    }

    /// An explicit conversion to `to` (`ExprKind::Cast`).
    pub fn cast(&mut self, v: V, to: &Type, span: Span) -> Result<V, Stop> {
        match (v, to) {
            (V::Int(i), Type::Int(t)) => Ok(V::Int(self.fit_int(i, *t))),
            (V::Bool(b), Type::Int(_)) => Ok(V::Int(BigInt::from(u8::from(b)))),
            (V::Real(r), Type::Int(t)) => {
                let i = match r {
                    Real::Exact(q) => q.trunc().to_integer(),
                    Real::Approx(x, _) => {
                        self.inexact = true;
                        decided(x.unique_integer(f64::trunc))?
                    }
                };
                Ok(V::Int(self.fit_int(i, *t)))
            }
            (V::F64(x), Type::Int(t)) => self.float_to_int(x, *t, span),
            (V::F32(x), Type::Int(t)) => self.float_to_int(f64::from(x), *t, span),
            (v, to) => Ok(self.coerce(v, to)),
        }
    }

    /// Machine float → integer. Java: NaN → 0, saturating to `long` for
    /// 64-bit targets and to `int` otherwise, then narrowing `int` → `byte`
    /// /`short`/`char` by wrap-around (JLS 5.1.3). C: NaN or a truncated
    /// value outside the target's range is undefined behaviour.
    fn float_to_int(&mut self, x: f64, t: IntTy, span: Span) -> Result<V, Stop> {
        if self.java {
            if x.is_nan() {
                return Ok(V::Int(BigInt::zero()));
            }
            let via = if t.bits > 32 {
                IntTy {
                    bits: t.bits,
                    signed: t.signed,
                    is_char: false,
                }
            } else {
                IntTy::I32
            };
            let i = match BigInt::from_f64(x.trunc()) {
                Some(i) => clamp(i, via),
                None if x > 0.0 => int_range(via).1,
                None => int_range(via).0,
            };
            return Ok(V::Int(wrap(&i, t)));
        }
        let i = BigInt::from_f64(x.trunc());
        match i {
            Some(i)
                if {
                    let (lo, hi) = int_range(t);
                    lo <= i && i <= hi
                } =>
            {
                Ok(V::Int(i))
            }
            _ => Err(undefined(
                "floating-point value out of range of the integer type",
                span,
            )),
        }
    }

    /// Converts without ever failing: int ↔ float, float ↔ float, bool → int,
    /// and (for robustness) anything else to the target's zero. Used for
    /// casts that cannot fault and to bring inputs to their declared types.
    pub fn coerce(&mut self, v: V, to: &Type) -> V {
        match (v, to) {
            (V::Int(i), Type::Int(t)) => V::Int(self.fit_int(i, *t)),
            (V::Bool(b), Type::Int(_)) => V::Int(BigInt::from(u8::from(b))),
            (V::Bool(b), Type::Bool) => V::Bool(b),
            (V::Int(i), Type::Bool) => V::Bool(!i.is_zero()),
            (V::Int(i), Type::Float(f)) => {
                if self.math {
                    V::Real(Real::Exact(BigRational::from_integer(i)))
                } else {
                    // `i128 as f32/f64` rounds correctly (to nearest even).
                    let w = i.to_i128();
                    match (f, w) {
                        (FloatTy::F32, Some(w)) => V::F32(w as f32),
                        (FloatTy::F64, Some(w)) => V::F64(w as f64),
                        (FloatTy::F32, None) => V::F32(i.to_f32().unwrap_or(f32::NAN)),
                        (FloatTy::F64, None) => V::F64(i.to_f64().unwrap_or(f64::NAN)),
                    }
                }
            }
            (V::Bool(b), Type::Float(_)) => self.coerce(V::Int(BigInt::from(u8::from(b))), to),
            (V::Real(r), Type::Float(f)) => {
                if self.math {
                    self.real(r)
                } else {
                    let x = r.to_f64();
                    if *f == FloatTy::F32 {
                        V::F32(x as f32)
                    } else {
                        V::F64(x)
                    }
                }
            }
            (V::F64(x), Type::Float(_)) if self.math => match rat_of_f64(x) {
                Some(r) => V::Real(Real::Exact(r)),
                None => self.approx(Interval::point(x)),
            },
            (V::F32(x), Type::Float(_)) if self.math => match rat_of_f64(f64::from(x)) {
                Some(r) => V::Real(Real::Exact(r)),
                None => self.approx(Interval::point(f64::from(x))),
            },
            (V::F64(x), Type::Float(FloatTy::F32)) => V::F32(x as f32),
            (V::F64(x), Type::Float(FloatTy::F64)) => V::F64(x),
            (V::F32(x), Type::Float(FloatTy::F64)) => V::F64(f64::from(x)),
            (V::F32(x), Type::Float(FloatTy::F32)) => V::F32(x),
            (V::Real(r), Type::Int(t)) => {
                let i = match r {
                    Real::Exact(q) => q.trunc().to_integer(),
                    Real::Approx(x, _) => x.unique_integer(f64::trunc).unwrap_or_else(|| {
                        self.undecided = true;
                        BigInt::from_f64(x.mid().trunc()).unwrap_or_default()
                    }),
                };
                V::Int(self.fit_int(i, *t))
            }
            (V::F64(x), Type::Int(t)) => {
                V::Int(wrap(&BigInt::from_f64(x.trunc()).unwrap_or_default(), *t))
            }
            (V::F32(x), Type::Int(t)) => {
                V::Int(wrap(&BigInt::from_f32(x.trunc()).unwrap_or_default(), *t))
            }
            (v @ (V::Arr(_) | V::Null), Type::Array(_)) => v,
            (v @ V::Str(_), Type::Str) => v,
            (_, to) => self.zero(to),
        }
    }

    /// A library function. Exact ones (abs, min, max, floor, ceil, round)
    /// are computed exactly; the rest in `f64`, approximate under math.
    pub fn intrinsic(
        &mut self,
        k: Intrinsic,
        args: Vec<V>,
        ty: &Type,
        span: Span,
    ) -> Result<V, Stop> {
        let mut it = args.into_iter();
        let Some(a) = it.next() else {
            return Err(internal("intrinsic without arguments", span));
        };
        let b = it.next();
        let two = |b: Option<V>| b.ok_or_else(|| internal("intrinsic needs two arguments", span));
        let r = match k {
            Intrinsic::Abs => match a {
                V::Int(i) => {
                    self.check_overflow(&i.abs(), ty, span)?;
                    V::Int(self.fit_ty(i.abs(), ty))
                }
                V::Real(Real::Exact(r)) => V::Real(Real::Exact(r.abs())),
                V::Real(r @ Real::Approx(..)) => {
                    self.derived(r.interval().abs(), TermOp::Abs, &[&r])
                }
                V::F64(x) => V::F64(x.abs()),
                V::F32(x) => V::F32(x.abs()),
                _ => return Err(internal("abs of a non-number", span)),
            },
            Intrinsic::Min | Intrinsic::Max => {
                self.min_max(k == Intrinsic::Max, a, two(b)?, span)?
            }
            Intrinsic::Floor | Intrinsic::Ceil => {
                let up = k == Intrinsic::Ceil;
                match a {
                    V::Int(i) => V::Int(i),
                    V::Real(Real::Exact(r)) => {
                        V::Real(Real::Exact(if up { r.ceil() } else { r.floor() }))
                    }
                    V::Real(r @ Real::Approx(..)) => {
                        let (f, x) = (if up { f64::ceil } else { f64::floor }, r.interval());
                        match x.unique_integer(f) {
                            Some(i) => V::Real(Real::Exact(BigRational::from_integer(i))),
                            None => self.derived(x.integer_part(f), TermOp::Library(k), &[&r]),
                        }
                    }
                    V::F64(x) => V::F64(if up { x.ceil() } else { x.floor() }),
                    V::F32(x) => V::F32(if up { x.ceil() } else { x.floor() }),
                    _ => return Err(internal("floor/ceil of a non-number", span)),
                }
            }
            Intrinsic::Round => self.round(a, ty, span)?,
            Intrinsic::RoundHalfAway => self.round_half_away(a, span)?,
            Intrinsic::GetExponent => self.get_exponent(a, span)?,
            Intrinsic::Frexp => {
                let (m, _) = frexp(self.nearest_double(&a, span)?);
                self.float_result(m, ty)
            }
            Intrinsic::FrexpExponent => {
                let (_, e) = frexp(self.nearest_double(&a, span)?);
                V::Int(BigInt::from(e))
            }
            Intrinsic::Compare => self.compare_floats(a, two(b)?, span)?,
            Intrinsic::CopySign => self.copy_sign(a, two(b)?, span)?,
            Intrinsic::FloatBits => self.float_bits(a, span)?,
            Intrinsic::BitsToFloat => self.bits_to_float(a, ty, span)?,
            Intrinsic::Sqrt => match a {
                V::F64(x) => V::F64(x.sqrt()),
                V::F32(x) => V::F32(x.sqrt()),
                V::Real(Real::Exact(r)) => match exact_sqrt(&r) {
                    Some(s) => V::Real(Real::Exact(s)),
                    None => {
                        let root = Interval::of_rational(&r).sqrt().unwrap_or(Interval::ENTIRE);
                        self.derived(root, TermOp::Library(k), &[&Real::Exact(r)])
                    }
                },
                V::Real(r @ Real::Approx(..)) => {
                    let root = r.interval().sqrt().unwrap_or(Interval::ENTIRE);
                    self.derived(root, TermOp::Library(k), &[&r])
                }
                other => {
                    let x = self.f64_of(&other, span)?;
                    self.float_result(x.sqrt(), ty)
                }
            },
            _ if self.math => self.real_library(k, a, b, span)?,
            _ => {
                let x = self.f64_of(&a, span)?;
                let y = match b {
                    Some(b) => Some(self.f64_of(&b, span)?),
                    None => None,
                };
                let y2 = || y.ok_or_else(|| internal("intrinsic needs two arguments", span));
                let r = match k {
                    Intrinsic::Cbrt => x.cbrt(),
                    Intrinsic::Pow => x.powf(y2()?),
                    Intrinsic::Exp => x.exp(),
                    Intrinsic::Log => x.ln(),
                    Intrinsic::Log10 => x.log10(),
                    Intrinsic::Sin => x.sin(),
                    Intrinsic::Cos => x.cos(),
                    Intrinsic::Tan => x.tan(),
                    Intrinsic::Asin => x.asin(),
                    Intrinsic::Acos => x.acos(),
                    Intrinsic::Atan => x.atan(),
                    Intrinsic::Atan2 => x.atan2(y2()?),
                    Intrinsic::Sinh => x.sinh(),
                    Intrinsic::Cosh => x.cosh(),
                    Intrinsic::Tanh => x.tanh(),
                    Intrinsic::Hypot => x.hypot(y2()?),
                    _ => return Err(internal("unhandled intrinsic", span)),
                };
                self.float_result(r, ty)
            }
        };
        // The result type is the expression's; bring odd combinations
        // (e.g. an integer-typed floor) to it.
        Ok(match (&r, ty) {
            (V::Int(_), Type::Int(_))
            | (V::Real(_) | V::F32(_) | V::F64(_), Type::Float(_))
            | (V::Bool(_), Type::Bool) => r,
            _ => self.coerce(r, ty),
        })
    }

    /// A library function without exact rational results, under math:
    /// an interval around its value (exact only for an integer power of
    /// an exact real).
    fn real_library(&mut self, k: Intrinsic, a: V, b: Option<V>, span: Span) -> Result<V, Stop> {
        let x = self.real_of(&a, span)?;
        let y = match &b {
            Some(b) => Some(self.real_of(b, span)?),
            None => None,
        };
        let y2 = || {
            y.clone()
                .ok_or_else(|| internal("intrinsic needs two arguments", span))
        };
        // The exact values at 0 (and log 1): common arguments whose
        // results are rational.
        if let Real::Exact(q) = &x {
            let exact = |n: i64| {
                Ok(V::Real(Real::Exact(BigRational::from_integer(
                    BigInt::from(n),
                ))))
            };
            let one = BigRational::one();
            match k {
                Intrinsic::Sin
                | Intrinsic::Tan
                | Intrinsic::Asin
                | Intrinsic::Atan
                | Intrinsic::Sinh
                | Intrinsic::Tanh
                | Intrinsic::Cbrt
                    if q.is_zero() =>
                {
                    return exact(0);
                }
                Intrinsic::Cos | Intrinsic::Cosh | Intrinsic::Exp if q.is_zero() => {
                    return exact(1);
                }
                Intrinsic::Log | Intrinsic::Log10 if *q == one => return exact(0),
                _ => {}
            }
        }
        let (xi, inf) = (x.interval(), f64::INFINITY);
        let r = match k {
            Intrinsic::Pow => {
                let y = y2()?;
                let n = match &y {
                    Real::Exact(q) if q.is_integer() => {
                        q.to_integer().to_i64().filter(|n| n.abs() <= 1024)
                    }
                    _ => None,
                };
                match (&x, n) {
                    (Real::Exact(q), Some(n)) if !(q.is_zero() && n < 0) => {
                        let p = q.pow(i32::try_from(n).unwrap_or(0));
                        return Ok(self.real(Real::Exact(p)));
                    }
                    (_, Some(n)) => xi.powi(n).unwrap_or(Interval::ENTIRE),
                    _ => xi.pow(y.interval()),
                }
            }
            Intrinsic::Cbrt => xi.increasing(f64::cbrt, -inf, inf),
            Intrinsic::Exp => xi.increasing(f64::exp, -inf, inf),
            Intrinsic::Log | Intrinsic::Log10 if xi.lo() <= 0.0 => Interval::ENTIRE,
            Intrinsic::Log => xi.increasing(f64::ln, 0.0, inf),
            Intrinsic::Log10 => xi.increasing(f64::log10, 0.0, inf),
            Intrinsic::Sin => xi.lipschitz_unit(f64::sin),
            Intrinsic::Cos => xi.lipschitz_unit(f64::cos),
            Intrinsic::Tan => xi.tan(),
            Intrinsic::Asin => xi.increasing(f64::asin, -1.0, 1.0),
            Intrinsic::Acos => xi.decreasing(f64::acos, -1.0, 1.0),
            Intrinsic::Atan => xi.increasing(f64::atan, -inf, inf),
            Intrinsic::Atan2 => xi.atan2(y2()?.interval()),
            Intrinsic::Sinh => xi.increasing(f64::sinh, -inf, inf),
            Intrinsic::Cosh => xi.cosh(),
            Intrinsic::Tanh => xi.increasing(f64::tanh, -inf, inf),
            Intrinsic::Hypot => xi.hypot(y2()?.interval()),
            _ => return Err(internal("unhandled intrinsic", span)),
        };
        let args: Vec<&Real> = std::iter::once(&x).chain(y.as_ref()).collect();
        Ok(self.derived(r, TermOp::Library(k), &args))
    }

    /// An argument of a library function as a real (math semantics).
    fn real_of(&mut self, v: &V, span: Span) -> Result<Real, Stop> {
        Ok(match v {
            V::Real(r) => r.clone(),
            V::Int(i) => Real::Exact(BigRational::from_integer(i.clone())),
            _ => return Err(internal("library function of a non-number", span)),
        })
    }

    /// An `f64` library result as a value of type `ty`.
    fn float_result(&mut self, x: f64, ty: &Type) -> V {
        if self.math {
            return self.approx(Interval::around(x, crate::interval::LIBM_ULPS));
        }
        match ty {
            Type::Float(FloatTy::F32) => V::F32(x as f32),
            _ => V::F64(x),
        }
    }

    /// The `f64` an argument of a non-exact library function is computed on.
    fn f64_of(&mut self, v: &V, span: Span) -> Result<f64, Stop> {
        Ok(match v {
            V::F64(x) => *x,
            V::F32(x) => f64::from(*x),
            V::Real(r) => r.to_f64(),
            V::Int(i) => i.to_f64().unwrap_or(f64::NAN),
            _ => return Err(internal("library function of a non-number", span)),
        })
    }

    /// `Math.min`/`max` (Java: NaN wins, -0.0 < +0.0) or C `fmin`/`fmax`
    /// (a NaN operand is ignored); exact on integers and exact reals.
    fn min_max(&mut self, max: bool, a: V, b: V, span: Span) -> Result<V, Stop> {
        let pick_b = |o: Ordering| {
            if max {
                o == Ordering::Less
            } else {
                o == Ordering::Greater
            }
        };
        macro_rules! ieee {
            ($x:expr, $y:expr, $w:path) => {{
                let (x, y) = ($x, $y);
                if self.java {
                    if x.is_nan() || y.is_nan() {
                        $w(x + y)
                    } else if x == 0.0 && y == 0.0 {
                        // Signed zeros: min prefers -0.0, max +0.0.
                        let neg = if max {
                            x.is_sign_negative() && y.is_sign_negative()
                        } else {
                            x.is_sign_negative() || y.is_sign_negative()
                        };
                        $w(if neg { -0.0 } else { 0.0 })
                    } else {
                        $w(if pick_b(x.partial_cmp(&y).unwrap_or(Ordering::Equal)) {
                            y
                        } else {
                            x
                        })
                    }
                } else if x.is_nan() {
                    $w(y)
                } else if y.is_nan() {
                    $w(x)
                } else {
                    $w(if pick_b(x.partial_cmp(&y).unwrap_or(Ordering::Equal)) {
                        y
                    } else {
                        x
                    })
                }
            }};
        }
        Ok(match (a, b) {
            (V::Int(x), V::Int(y)) => V::Int(if pick_b(x.cmp(&y)) { y } else { x }),
            (V::Real(x), V::Real(y)) => {
                if !(x.is_exact() && y.is_exact()) {
                    self.inexact = true;
                }
                match real_cmp(&x, &y) {
                    Some(o) => V::Real(if pick_b(o) { y } else { x }),
                    // Either may be the smaller: every value of the result
                    // lies between the two intervals' bounds.
                    None => {
                        let (a, b) = (x.interval(), y.interval());
                        let (r, op) = if max {
                            (a.max(b), TermOp::Max)
                        } else {
                            (a.min(b), TermOp::Min)
                        };
                        self.derived(r, op, &[&x, &y])
                    }
                }
            }
            (V::F64(x), V::F64(y)) => ieee!(x, y, V::F64),
            (V::F32(x), V::F32(y)) => ieee!(x, y, V::F32),
            _ => return Err(internal("min/max of mismatched operands", span)),
        })
    }

    /// `Math.round`: ⌊x + ½⌋ computed exactly. Integer results: under math
    /// the exact integer; under machine NaN → 0 and saturation to the result
    /// type (`long` for double arguments, `int` for float ones).
    fn round(&mut self, a: V, ty: &Type, span: Span) -> Result<V, Stop> {
        let half = BigRational::new(BigInt::one(), BigInt::from(2));
        let exact_round = |r: &BigRational| (r + &half).floor().to_integer();
        match a {
            V::Int(i) => Ok(V::Int(i)),
            V::Real(Real::Exact(r)) => {
                let i = exact_round(&r);
                Ok(match ty {
                    Type::Int(_) => V::Int(i),
                    _ => V::Real(Real::Exact(BigRational::from_integer(i))),
                })
            }
            V::Real(r @ Real::Approx(..)) => {
                self.inexact = true;
                let shifted = r.interval() + Interval::point(0.5);
                Ok(match (ty, shifted.unique_integer(f64::floor)) {
                    (Type::Int(_), i) => V::Int(decided(i)?),
                    (_, Some(i)) => V::Real(Real::Exact(BigRational::from_integer(i))),
                    (_, None) => {
                        let x = shifted.integer_part(f64::floor);
                        self.derived(x, TermOp::Library(Intrinsic::Round), &[&r])
                    }
                })
            }
            V::F64(_) | V::F32(_) => {
                let (x, is32) = match a {
                    V::F32(x) => (f64::from(x), true),
                    V::F64(x) => (x, false),
                    _ => return Err(internal("round", span)),
                };
                match ty {
                    Type::Int(t) => {
                        if x.is_nan() {
                            return Ok(V::Int(BigInt::zero()));
                        }
                        let i = match rat_of_f64(x) {
                            Some(r) => exact_round(&r),
                            None if x > 0.0 => int_range(*t).1,
                            None => int_range(*t).0,
                        };
                        Ok(V::Int(clamp(i, *t)))
                    }
                    _ => {
                        // Float-typed result: ⌊x + ½⌋ is an integer, exactly
                        // representable whenever |x| < 2^52; larger finite
                        // values are integers already.
                        let r = match rat_of_f64(x) {
                            Some(r) if x.abs() < 4_503_599_627_370_496.0 => {
                                exact_round(&r).to_f64().unwrap_or(x)
                            }
                            _ => x,
                        };
                        Ok(if is32 { V::F32(r as f32) } else { V::F64(r) })
                    }
                }
            }
            _ => Err(internal("round of a non-number", span)),
        }
    }

    /// C `round` (floating result): halves away from zero, which is what
    /// Rust's `f64::round` does for every IEEE value (NaN and infinities
    /// included).
    fn round_half_away(&mut self, a: V, span: Span) -> Result<V, Stop> {
        let half = BigRational::new(BigInt::one(), BigInt::from(2));
        match a {
            V::Real(Real::Exact(r)) => {
                let i = if r >= BigRational::zero() {
                    (&r + &half).floor().to_integer()
                } else {
                    -(-&r + &half).floor().to_integer()
                };
                Ok(V::Real(Real::Exact(BigRational::from_integer(i))))
            }
            V::Real(r @ Real::Approx(..)) => {
                self.inexact = true;
                let x = r.interval();
                Ok(match x.unique_integer(f64::round) {
                    Some(i) => V::Real(Real::Exact(BigRational::from_integer(i))),
                    None => {
                        let op = TermOp::Library(Intrinsic::RoundHalfAway);
                        self.derived(x.integer_part(f64::round), op, &[&r])
                    }
                })
            }
            V::F64(x) => Ok(V::F64(x.round())),
            V::F32(x) => Ok(V::F32(x.round())),
            _ => Err(internal("round of a non-floating value", span)),
        }
    }

    /// Java `Math.getExponent`: the unbiased binary exponent; `MAX+1` for
    /// NaN and infinities, `MIN-1` for zero and subnormals. Under math the
    /// argument is taken as the double nearest to the real.
    /// Java's `Double.compare`: the numeric order, then -0.0 below +0.0,
    /// NaN above everything and equal to itself (whatever its payload).
    fn compare_floats(&mut self, a: V, b: V, span: Span) -> Result<V, Stop> {
        fn ieee(x: f64, y: f64) -> Ordering {
            match (x.is_nan(), y.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                // Orders -0.0 below +0.0, and agrees with `<` otherwise.
                (false, false) => x.total_cmp(&y),
            }
        }
        let o = match (a, b) {
            (V::Real(x), V::Real(y)) => {
                if !(x.is_exact() && y.is_exact()) {
                    self.inexact = true;
                }
                decided(real_cmp(&x, &y))?
            }
            (V::F64(x), V::F64(y)) => ieee(x, y),
            (V::F32(x), V::F32(y)) => ieee(f64::from(x), f64::from(y)),
            (V::Int(x), V::Int(y)) => x.cmp(&y),
            _ => return Err(internal("compare of mismatched operands", span)),
        };
        Ok(V::Int(BigInt::from(o as i8)))
    }

    /// `StrictMath.copySign`: the magnitude of `m` with the sign of `s`, a
    /// NaN `s` counting as positive.
    fn copy_sign(&mut self, m: V, s: V, span: Span) -> Result<V, Stop> {
        Ok(match (m, s) {
            (V::Real(m), V::Real(s)) => {
                if !(m.is_exact() && s.is_exact()) {
                    self.inexact = true;
                }
                let magnitude = match m {
                    Real::Exact(r) => Real::Exact(r.abs()),
                    r @ Real::Approx(..) => {
                        Real::Approx(r.interval().abs(), Term::apply(TermOp::Abs, &[&r]))
                    }
                };
                let negative =
                    decided(real_cmp(&s, &Real::Exact(BigRational::zero())))? == Ordering::Less;
                V::Real(match (negative, magnitude) {
                    (false, r) => r,
                    (true, Real::Exact(r)) => Real::Exact(-r),
                    (true, r @ Real::Approx(..)) => {
                        Real::Approx(-r.interval(), Term::apply(TermOp::Neg, &[&r]))
                    }
                })
            }
            (V::F64(m), V::F64(s)) => V::F64(if s.is_nan() { m.abs() } else { m.copysign(s) }),
            (V::F32(m), V::F32(s)) => V::F32(if s.is_nan() { m.abs() } else { m.copysign(s) }),
            _ => return Err(internal("copySign of mismatched operands", span)),
        })
    }

    /// `doubleToLongBits`/`floatToIntBits`: the IEEE bits as a signed
    /// integer, NaN canonical. Under `math` the real's nearest double,
    /// flagged inexact unless the real is that double.
    fn float_bits(&mut self, a: V, span: Span) -> Result<V, Stop> {
        let bits = match a {
            V::F32(x) => i64::from(if x.is_nan() {
                0x7fc0_0000
            } else {
                x.to_bits() as i32
            }),
            other => {
                let x = self.nearest_double(&other, span)?;
                if x.is_nan() {
                    0x7ff8_0000_0000_0000
                } else {
                    x.to_bits() as i64
                }
            }
        };
        Ok(V::Int(BigInt::from(bits)))
    }

    /// `longBitsToDouble`/`intBitsToFloat` of a 64- or 32-bit pattern.
    /// Under `math` infinities and NaN have no real value: inexact.
    fn bits_to_float(&mut self, a: V, ty: &Type, span: Span) -> Result<V, Stop> {
        let V::Int(i) = a else {
            return Err(internal("bitsToFloat of a non-integer", span));
        };
        let single = matches!(ty, Type::Float(FloatTy::F32));
        let x = if single {
            let b = i.to_i64().map_or(0, |v| v as u32);
            f64::from(f32::from_bits(b))
        } else {
            let b = i
                .to_i64()
                .map_or_else(|| i.to_u64().unwrap_or(0), |v| v as u64);
            f64::from_bits(b)
        };
        Ok(if self.math {
            match rat_of_f64(x) {
                Some(q) => V::Real(Real::Exact(q)),
                None => {
                    self.inexact = true;
                    self.approx(Interval::point(x))
                }
            }
        } else if single {
            V::F32(x as f32)
        } else {
            V::F64(x)
        })
    }

    /// The double nearest to a value; under `math` the run is flagged
    /// inexact unless the real is exactly that double (bit-level functions
    /// of a real are computed on it).
    fn nearest_double(&mut self, v: &V, span: Span) -> Result<f64, Stop> {
        let x = self.f64_of(v, span)?;
        if let V::Real(r) = v {
            let exact = match r {
                Real::Exact(q) => rat_of_f64(x).as_ref() == Some(q),
                // Which double is nearest depends on where in the interval
                // the exact value lies.
                Real::Approx(..) => return Err(Stop::Limit(LimitKind::Approximation)),
            };
            if !exact {
                self.inexact = true;
            }
        }
        Ok(x)
    }

    fn get_exponent(&mut self, a: V, span: Span) -> Result<V, Stop> {
        let e: i64 = match a {
            V::F32(x) => {
                let bits = (x.to_bits() >> 23) & 0xff;
                if bits == 0xff {
                    128
                } else if bits == 0 {
                    -127
                } else {
                    i64::from(bits) - 127
                }
            }
            other => {
                let x = self.nearest_double(&other, span)?;
                let bits = (x.to_bits() >> 52) & 0x7ff;
                if bits == 0x7ff {
                    1024
                } else if bits == 0 {
                    -1023
                } else {
                    bits as i64 - 1023
                }
            }
        };
        Ok(V::Int(BigInt::from(e)))
    }
}

/// C's `frexp`: `x = m · 2^e` with `0.5 <= |m| < 1`; zero, the infinities
/// and NaN come back as they are, with exponent 0 (glibc).
pub(crate) fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    if field == 0 {
        // Subnormal: scaled into the normal range first (exact).
        let (m, e) = frexp(x * 2f64.powi(54));
        return (m, e - 54);
    }
    let mantissa = (bits & !(0x7ffu64 << 52)) | (1022u64 << 52);
    (f64::from_bits(mantissa), field - 1022)
}

/// The exact square root of a non-negative rational whose numerator and
/// denominator are perfect squares.
fn exact_sqrt(r: &BigRational) -> Option<BigRational> {
    if r.is_negative() {
        return None;
    }
    let n = r.numer().sqrt();
    let d = r.denom().sqrt();
    if &(&n * &n) == r.numer() && &(&d * &d) == r.denom() {
        Some(BigRational::new(n, d))
    } else {
        None
    }
}
