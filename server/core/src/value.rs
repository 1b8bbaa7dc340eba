//! Concrete values: the inputs of a counterexample and the outputs the
//! interpreter computes. Plain data, shared by the interpreter, the checkers
//! (which build inputs from solver models) and the front layers (which render
//! them).

use crate::interval::Interval;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};
use std::fmt;
use std::sync::Arc;

/// A real number under math semantics: exact when every operation that
/// produced it was exact, otherwise an interval that contains it (results
/// of `sin`, `exp`, ... or of arithmetic on such results; see
/// [`crate::interval`]) and, while it is small, the term it was computed
/// by.
#[derive(Clone, Debug, PartialEq)]
pub enum Real {
    Exact(BigRational),
    Approx(Interval, Option<Arc<Term>>),
}

/// How an approximate real was computed from exact ones. Every operation
/// of a term is a function of the reals, so two equal terms denote the
/// same real, however wide their intervals: `f(a) > f(b)` with `a = b` is
/// decided (false) and `f(a) - f(a)` is exactly 0, which intervals alone
/// cannot tell (each side's error is counted as independent).
#[derive(Debug, PartialEq, Eq)]
pub enum Term {
    Exact(BigRational),
    Apply {
        op: TermOp,
        args: Vec<Arc<Term>>,
        /// Nodes below and including this one, counted per use: what
        /// comparing two terms costs at most.
        size: usize,
    },
}

/// An operation of a [`Term`]: real arithmetic or a library function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TermOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Neg,
    Abs,
    Min,
    Max,
    Library(crate::ir::Intrinsic),
}

/// Terms grow with every operation of a loop; past this size an
/// approximation keeps only its interval.
pub const MAX_TERM_SIZE: usize = 256;

impl Term {
    /// `op` applied to `args`, when each argument has a term (an exact
    /// real is its own) and the result stays small.
    pub fn apply(op: TermOp, args: &[&Real]) -> Option<Arc<Term>> {
        let args: Vec<Arc<Term>> = args
            .iter()
            .map(|r| match r {
                Real::Exact(q) => Some(Arc::new(Term::Exact(q.clone()))),
                Real::Approx(_, t) => t.clone(),
            })
            .collect::<Option<_>>()?;
        let size = 1 + args.iter().map(|t| t.size()).sum::<usize>();
        (size <= MAX_TERM_SIZE).then(|| Arc::new(Term::Apply { op, args, size }))
    }

    fn size(&self) -> usize {
        match self {
            Term::Exact(_) => 1,
            Term::Apply { size, .. } => *size,
        }
    }
}

/// Whether `a` and `b` are the same real because they were computed the
/// same way (both approximate, equal terms).
pub fn same_term(a: &Real, b: &Real) -> bool {
    match (a, b) {
        (Real::Approx(_, Some(s)), Real::Approx(_, Some(t))) => Arc::ptr_eq(s, t) || s == t,
        _ => false,
    }
}

impl Real {
    /// The value as a double: the nearest one when exact, a representative
    /// of the interval otherwise (for display and for functions computed in
    /// `f64`, never for a decision).
    pub fn to_f64(&self) -> f64 {
        match self {
            Real::Exact(r) => r.to_f64().unwrap_or(f64::NAN),
            Real::Approx(x, _) => x.mid(),
        }
    }
    pub fn is_exact(&self) -> bool {
        matches!(self, Real::Exact(_))
    }
    /// An interval that contains the value.
    pub fn interval(&self) -> Interval {
        match self {
            Real::Exact(r) => Interval::of_rational(r),
            Real::Approx(x, _) => *x,
        }
    }
}

impl fmt::Display for Real {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Real::Exact(r) => fmt_rational(r, f),
            Real::Approx(x, _) if x.is_entire() => f.write_str("≈?"),
            Real::Approx(x, _) => write!(f, "≈{}", fmt_f64(x.mid())),
        }
    }
}

/// Decimal when the expansion terminates within 20 digits, `p/q` otherwise:
/// distinct rationals never print alike.
fn fmt_rational(r: &BigRational, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if r.is_integer() {
        return write!(f, "{}.0", r.numer());
    }
    let mut den = r.denom().clone();
    let two = BigInt::from(2);
    let five = BigInt::from(5);
    while (&den % &two).is_zero() {
        den /= &two;
    }
    while (&den % &five).is_zero() {
        den /= &five;
    }
    if den == BigInt::from(1) {
        // Terminating: print exactly.
        let neg = r.is_negative();
        let a = r.abs();
        let int = a.trunc().to_integer();
        let mut frac = a.fract();
        let mut digits = String::new();
        let ten = BigRational::from_integer(BigInt::from(10));
        while !frac.is_zero() && digits.len() < 40 {
            frac *= &ten;
            let d = frac.trunc().to_integer();
            digits.push_str(&d.to_string());
            frac = frac.fract();
        }
        if frac.is_zero() {
            return write!(f, "{}{}.{}", if neg { "-" } else { "" }, int, digits);
        }
    }
    write!(f, "{}/{}", r.numer(), r.denom())
}

/// Shortest round-tripping form of a double, as Java's `Double.toString`
/// prints it (`1.0`, `1.0E10`).
pub fn fmt_f64(x: f64) -> String {
    java_float_text(
        x.is_nan(),
        x.is_infinite(),
        x > 0.0,
        (1e-3..1e7).contains(&x.abs()) || x == 0.0,
        || (format!("{x:?}"), format!("{x:e}")),
    )
}

/// The same for a float, as Java's `Float.toString` prints it.
pub fn fmt_f32(x: f32) -> String {
    java_float_text(
        x.is_nan(),
        x.is_infinite(),
        x > 0.0,
        (1e-3..1e7).contains(&x.abs()) || x == 0.0,
        || (format!("{x:?}"), format!("{x:e}")),
    )
}

/// Java's layout around Rust's shortest digits: plain for 10⁻³ ≤ |x| < 10⁷
/// (always with a fraction digit), computerized scientific notation
/// otherwise. `texts` gives the `{:?}` and `{:e}` renderings.
fn java_float_text(
    nan: bool,
    infinite: bool,
    positive: bool,
    plain: bool,
    texts: impl FnOnce() -> (String, String),
) -> String {
    if nan {
        return "NaN".into();
    }
    if infinite {
        return if positive {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let (debug, sci) = texts();
    if plain {
        if debug.contains('.') || debug.contains('e') {
            debug
        } else {
            format!("{debug}.0")
        }
    } else {
        let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
        let mant = if mant.contains('.') {
            mant.to_string()
        } else {
            format!("{mant}.0")
        };
        format!("{mant}E{exp}")
    }
}

/// A concrete value. Integers are kept as [`BigInt`] under both semantics
/// (under machine semantics they are always within their type's range).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Void,
    Bool(bool),
    Int(BigInt),
    /// Math semantics.
    Real(Real),
    /// Machine semantics.
    F32(f32),
    F64(f64),
    /// An array's contents (arrays are references inside the interpreter;
    /// at the boundary they are copied out as plain data).
    Array(Vec<Value>),
    /// A `null` array (Java array inputs only).
    Null,
    /// A Java `String` input's UTF-16 units, as shown to the user (inside
    /// the interpreter a String is an [`Value::Array`] of `char`s).
    Text(Vec<u16>),
}

impl Value {
    pub fn int(v: i64) -> Value {
        Value::Int(BigInt::from(v))
    }
    pub fn as_int(&self) -> Option<&BigInt> {
        match self {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Void => f.write_str("void"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Real(r) => write!(f, "{r}"),
            Value::F32(x) => f.write_str(&fmt_f32(*x)),
            Value::F64(x) => f.write_str(&fmt_f64(*x)),
            Value::Null => f.write_str("null"),
            Value::Text(units) => {
                // A Java string literal: escapes for quotes, backslashes and
                // anything not printable ASCII.
                f.write_str("\"")?;
                for &u in units {
                    match u {
                        0x22 => f.write_str("\\\"")?,
                        0x5c => f.write_str("\\\\")?,
                        0x0a => f.write_str("\\n")?,
                        0x09 => f.write_str("\\t")?,
                        0x0d => f.write_str("\\r")?,
                        0x20..=0x7e => write!(f, "{}", char::from(u as u8))?,
                        _ => write!(f, "\\u{u:04x}")?,
                    }
                }
                f.write_str("\"")
            }
            Value::Array(items) => {
                f.write_str("{")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rationals_print_exactly_and_distinctly() {
        let r = |n: i64, d: i64| {
            Real::Exact(BigRational::new(BigInt::from(n), BigInt::from(d))).to_string()
        };
        assert_eq!(r(1, 2), "0.5");
        assert_eq!(r(-3, 4), "-0.75");
        assert_eq!(r(4, 2), "2.0");
        assert_eq!(r(1, 3), "1/3");
    }

    #[test]
    fn doubles_print_like_java() {
        assert_eq!(fmt_f64(1.0), "1.0");
        assert_eq!(fmt_f64(0.1), "0.1");
        assert_eq!(fmt_f64(1e10), "1.0E10");
        assert_eq!(fmt_f64(1.5e-5), "1.5E-5");
        assert_eq!(fmt_f64(f64::NAN), "NaN");
    }
}
