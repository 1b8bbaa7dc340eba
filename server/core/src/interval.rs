//! Intervals that enclose reals eqlens computes only approximately.
//!
//! Under `math` semantics a real is exact (a rational) until a library
//! function without a rational result (`sin`, `exp`, a non-square `sqrt`)
//! or a rational too large to keep exact makes it approximate. An
//! approximate real is an [`Interval`] `[lo, hi]` of `f64` bounds that
//! contains the exact value, kept so through every operation:
//!
//! - `+ - * /` and `sqrt` are correctly rounded in IEEE arithmetic, so each
//!   bound computed in round-to-nearest and moved one step outward
//!   (`next_down`/`next_up`) still encloses the exact result;
//! - the other library functions come from the platform's `libm`, whose
//!   documented error on x86-64 (glibc's "Known Maximum Errors in Math
//!   Functions") is at most a few ulps; bounds move [`LIBM_ULPS`] steps
//!   outward. A function is applied to an interval by its monotonicity
//!   (`exp`, `log`, `atan`, ...) or its Lipschitz bound (`sin`, `cos`), and
//!   gives [`Interval::ENTIRE`] — "any real" — outside the part of its domain
//!   where that is known;
//! - a bound that overflows becomes infinite, meaning unbounded on that
//!   side; a NaN (no real value, such as `0 · ∞` of two bounds) becomes
//!   unbounded.
//!
//! A question about an approximate value is decided only when the interval
//! decides it for every real inside: `x < y` when `x.hi < y.lo`, never on
//! overlapping intervals. The interpreter stops a run at an undecided
//! branch (no conclusion), and two runs differ in an approximate value
//! only where the intervals are disjoint, so a counterexample never rests
//! on approximation error.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{FromPrimitive, ToPrimitive};
use std::cmp::Ordering;

/// Steps outward for a result of the platform's `libm` (documented
/// maximum errors of glibc on x86-64 are 1–4 ulps for the functions used).
pub const LIBM_ULPS: u32 = 8;

/// A closed interval of reals with `f64` bounds, `lo <= hi`. An infinite
/// bound means unbounded on that side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    lo: f64,
    hi: f64,
}

fn down(x: f64) -> f64 {
    if x.is_nan() {
        f64::NEG_INFINITY
    } else {
        x.next_down()
    }
}

fn up(x: f64) -> f64 {
    if x.is_nan() {
        f64::INFINITY
    } else {
        x.next_up()
    }
}

/// `x` moved `n` steps down (a NaN: unbounded).
fn down_n(x: f64, n: u32) -> f64 {
    (0..n).fold(x, |x, _| down(x))
}

fn up_n(x: f64, n: u32) -> f64 {
    (0..n).fold(x, |x, _| up(x))
}

/// A product of bounds where `0 · ∞` is 0 (the infinite bound stands for
/// a finite real).
fn bound_mul(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
}

impl Interval {
    /// Any real: what an approximation without a usable bound stands for.
    pub const ENTIRE: Interval = Interval {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// `[lo, hi]`; a NaN bound or `lo > hi` gives [`Interval::ENTIRE`]. A
    /// lower bound of `+∞` (the value exceeds every double) becomes
    /// `f64::MAX`, an upper bound of `-∞` becomes `-f64::MAX`.
    pub fn new(lo: f64, hi: f64) -> Interval {
        if lo.is_nan() || hi.is_nan() || lo > hi {
            return Interval::ENTIRE;
        }
        Interval {
            lo: if lo == f64::INFINITY { f64::MAX } else { lo },
            hi: if hi == f64::NEG_INFINITY {
                -f64::MAX
            } else {
                hi
            },
        }
    }

    /// The exact value `x` (a double is a rational).
    pub fn point(x: f64) -> Interval {
        Interval::new(x, x)
    }

    /// An interval around `x`, the result of a computation within `ulps`
    /// steps of the exact value.
    pub fn around(x: f64, ulps: u32) -> Interval {
        Interval::new(down_n(x, ulps), up_n(x, ulps))
    }

    /// An interval that contains the rational `q`.
    pub fn of_rational(q: &BigRational) -> Interval {
        match q.to_f64() {
            Some(x) if x.is_finite() => {
                // Exact when `q` is that double; otherwise one step either
                // side of the nearest double encloses it.
                if rational_of(x).as_ref() == Some(q) {
                    Interval::point(x)
                } else {
                    Interval::around(x, 1)
                }
            }
            _ if q > &BigRational::from_integer(BigInt::from(0)) => {
                Interval::new(f64::MAX, f64::INFINITY)
            }
            _ => Interval::new(f64::NEG_INFINITY, -f64::MAX),
        }
    }

    pub fn lo(&self) -> f64 {
        self.lo
    }

    pub fn hi(&self) -> f64 {
        self.hi
    }

    /// A representative value: the midpoint of a bounded interval, else
    /// its finite bound, else 0. Shown as `≈x`; never decides anything.
    pub fn mid(&self) -> f64 {
        match (self.lo.is_finite(), self.hi.is_finite()) {
            (true, true) => self.lo / 2.0 + self.hi / 2.0,
            (true, false) => self.lo,
            (false, true) => self.hi,
            (false, false) => 0.0,
        }
    }

    pub fn is_entire(&self) -> bool {
        self.lo == f64::NEG_INFINITY && self.hi == f64::INFINITY
    }

    /// Whether the exact rational `q` may be the value.
    pub fn contains(&self, q: &BigRational) -> bool {
        let above_lo = !self.lo.is_finite() || rational_of(self.lo).is_none_or(|l| &l <= q);
        let below_hi = !self.hi.is_finite() || rational_of(self.hi).is_none_or(|h| q <= &h);
        above_lo && below_hi
    }

    /// Whether no real is in both.
    pub fn disjoint(&self, other: &Interval) -> bool {
        self.hi < other.lo || other.hi < self.lo
    }

    /// The order of every value of `self` against every value of `other`,
    /// when one order holds for all of them; `None` when it depends on
    /// where in the intervals the exact values lie.
    pub fn order(&self, other: &Interval) -> Option<Ordering> {
        if self.hi < other.lo {
            Some(Ordering::Less)
        } else if other.hi < self.lo {
            Some(Ordering::Greater)
        } else if self.lo == self.hi && other.lo == other.hi && self.lo == other.lo {
            Some(Ordering::Equal)
        } else {
            None
        }
    }

    /// Whether every value is `<= other`'s every value (`Some(true)`), none
    /// is (`Some(false)`), or it depends (`None`).
    pub fn le(&self, other: &Interval) -> Option<bool> {
        if self.hi <= other.lo {
            Some(true)
        } else if other.hi < self.lo {
            Some(false)
        } else {
            None
        }
    }

    pub fn abs(self) -> Interval {
        if self.lo >= 0.0 {
            self
        } else if self.hi <= 0.0 {
            -self
        } else {
            Interval::new(0.0, (-self.lo).max(self.hi))
        }
    }

    /// `self / o`; `None` when `o` may be zero.
    pub fn checked_div(self, o: Interval) -> Option<Interval> {
        if o.lo <= 0.0 && o.hi >= 0.0 {
            return None;
        }
        let q = |a: f64, b: f64| {
            if a.is_infinite() && b.is_infinite() {
                f64::NAN
            } else {
                a / b
            }
        };
        let p = [
            q(self.lo, o.lo),
            q(self.lo, o.hi),
            q(self.hi, o.lo),
            q(self.hi, o.hi),
        ];
        if p.iter().any(|x| x.is_nan()) {
            return Some(Interval::ENTIRE);
        }
        let lo = p.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Some(Interval::new(down(lo), up(hi)))
    }

    /// `min(a, b)` over all values: `[min(lo), min(hi)]`.
    pub fn min(self, o: Interval) -> Interval {
        Interval::new(self.lo.min(o.lo), self.hi.min(o.hi))
    }

    pub fn max(self, o: Interval) -> Interval {
        Interval::new(self.lo.max(o.lo), self.hi.max(o.hi))
    }

    /// The integers `f` (floor, ceil, trunc, round) maps the interval to:
    /// `[f(lo), f(hi)]` (each is monotone).
    pub fn integer_part(self, f: fn(f64) -> f64) -> Interval {
        Interval::new(f(self.lo), f(self.hi))
    }

    /// The only integer `f` maps every value to, if there is one.
    pub fn unique_integer(self, f: fn(f64) -> f64) -> Option<BigInt> {
        let (a, b) = (f(self.lo), f(self.hi));
        if a == b && a.is_finite() {
            BigInt::from_f64(a)
        } else {
            None
        }
    }

    /// `√x` (correctly rounded in IEEE); `None` outside `[0, ∞)`.
    pub fn sqrt(self) -> Option<Interval> {
        if self.lo < 0.0 {
            return None;
        }
        Some(Interval::new(
            down(self.lo.sqrt()).max(0.0),
            up(self.hi.sqrt()),
        ))
    }

    /// A `libm` function increasing on `[lo_dom, hi_dom]`, applied to a
    /// part of it; [`Interval::ENTIRE`] when the interval leaves it.
    pub fn increasing(self, f: fn(f64) -> f64, lo_dom: f64, hi_dom: f64) -> Interval {
        if self.lo < lo_dom || self.hi > hi_dom {
            return Interval::ENTIRE;
        }
        Interval::new(down_n(f(self.lo), LIBM_ULPS), up_n(f(self.hi), LIBM_ULPS))
    }

    /// As [`Interval::increasing`], for a decreasing function.
    pub fn decreasing(self, f: fn(f64) -> f64, lo_dom: f64, hi_dom: f64) -> Interval {
        if self.lo < lo_dom || self.hi > hi_dom {
            return Interval::ENTIRE;
        }
        Interval::new(down_n(f(self.hi), LIBM_ULPS), up_n(f(self.lo), LIBM_ULPS))
    }

    /// A `libm` function with values in `[-1, 1]` and slope at most 1
    /// (`sin`, `cos`): within the half-width of its value at the midpoint.
    pub fn lipschitz_unit(self, f: fn(f64) -> f64) -> Interval {
        if !(self.lo.is_finite() && self.hi.is_finite()) || self.hi - self.lo > 4.0 {
            return Interval::new(-1.0, 1.0);
        }
        let m = self.mid();
        let r = up(self.hi - m).max(up(m - self.lo));
        let y = f(m);
        Interval::new(
            down_n(down(y - r), LIBM_ULPS).max(-1.0),
            up_n(up(y + r), LIBM_ULPS).min(1.0),
        )
    }

    /// `cosh`: decreasing below 0, increasing above.
    pub fn cosh(self) -> Interval {
        if self.lo >= 0.0 {
            self.increasing(f64::cosh, 0.0, f64::INFINITY)
        } else if self.hi <= 0.0 {
            self.decreasing(f64::cosh, f64::NEG_INFINITY, 0.0)
        } else {
            let top = self.lo.abs().max(self.hi);
            Interval::new(1.0, up_n(top.cosh(), LIBM_ULPS))
        }
    }

    /// `tan`, increasing between its poles: on an interval shorter than
    /// π/2 where `cos` has one sign at both ends (then no pole lies
    /// between), else any real.
    pub fn tan(self) -> Interval {
        let (a, b) = (self.lo.cos(), self.hi.cos());
        let clear = 1e-6;
        if self.hi - self.lo < 1.5 && ((a > clear && b > clear) || (a < -clear && b < -clear)) {
            Interval::new(
                down_n(self.lo.tan(), LIBM_ULPS),
                up_n(self.hi.tan(), LIBM_ULPS),
            )
        } else {
            Interval::ENTIRE
        }
    }

    /// `hypot(x, y)`, increasing in `|x|` and `|y|`.
    pub fn hypot(self, o: Interval) -> Interval {
        let (x, y) = (self.abs(), o.abs());
        Interval::new(
            down_n(x.lo.hypot(y.lo), LIBM_ULPS),
            up_n(x.hi.hypot(y.hi), LIBM_ULPS),
        )
    }

    /// `x^n` for an integer `n` by repeated multiplication (an enclosure,
    /// wider than the exact range where `x` straddles 0); `None` where a
    /// negative power may divide by zero.
    pub fn powi(self, n: i64) -> Option<Interval> {
        let mut acc = Interval::point(1.0);
        let mut base = self;
        let mut k = n.unsigned_abs();
        while k > 0 {
            if k & 1 == 1 {
                acc = acc * base;
            }
            base = base * base;
            k >>= 1;
        }
        if n < 0 {
            Interval::point(1.0).checked_div(acc)
        } else {
            Some(acc)
        }
    }

    /// `x^y` for `x > 0` as `exp(y · ln x)`; any real elsewhere.
    pub fn pow(self, y: Interval) -> Interval {
        if self.lo <= 0.0 {
            return Interval::ENTIRE;
        }
        let ln = self.increasing(f64::ln, 0.0, f64::INFINITY);
        (y * ln).increasing(f64::exp, f64::NEG_INFINITY, f64::INFINITY)
    }

    /// `atan2(y, x)` (`self` is `y`): `atan(y / x)` where `x > 0`, that
    /// plus π where `x < 0 ≤ y` and minus π where `x < 0` and `y < 0`;
    /// any real where the quadrant is not decided.
    pub fn atan2(self, x: Interval) -> Interval {
        let pi = Interval::around(std::f64::consts::PI, 1);
        let shift = if x.lo > 0.0 {
            Interval::point(0.0)
        } else if x.hi < 0.0 && self.lo >= 0.0 {
            pi
        } else if x.hi < 0.0 && self.hi < 0.0 {
            -pi
        } else {
            return Interval::ENTIRE;
        };
        match self.checked_div(x) {
            Some(q) => q.increasing(f64::atan, f64::NEG_INFINITY, f64::INFINITY) + shift,
            None => Interval::ENTIRE,
        }
    }
}

/// The rational value of a finite double.
pub fn rational_of(x: f64) -> Option<BigRational> {
    BigRational::from_float(x)
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{:e}, {:e}]", self.lo, self.hi)
    }
}

impl std::ops::Neg for Interval {
    type Output = Interval;
    fn neg(self) -> Interval {
        Interval::new(-self.hi, -self.lo)
    }
}

impl std::ops::Add for Interval {
    type Output = Interval;
    fn add(self, o: Interval) -> Interval {
        Interval::new(down(self.lo + o.lo), up(self.hi + o.hi))
    }
}

impl std::ops::Sub for Interval {
    type Output = Interval;
    fn sub(self, o: Interval) -> Interval {
        self + -o
    }
}

impl std::ops::Mul for Interval {
    type Output = Interval;
    fn mul(self, o: Interval) -> Interval {
        let p = [
            bound_mul(self.lo, o.lo),
            bound_mul(self.lo, o.hi),
            bound_mul(self.hi, o.lo),
            bound_mul(self.hi, o.hi),
        ];
        let lo = p.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Interval::new(down(lo), up(hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    #[test]
    fn arithmetic_encloses_the_exact_result() {
        // 0.1 is not a double: its interval contains it, and 3 · 0.1 lies
        // in the product although 0.1 + 0.1 + 0.1 != 0.3 in IEEE.
        let tenth = Interval::of_rational(&q(1, 10));
        assert!(tenth.contains(&q(1, 10)));
        let three = Interval::of_rational(&q(3, 1));
        assert_eq!(three, Interval::point(3.0));
        let p = tenth * three;
        assert!(p.contains(&q(3, 10)));
        let s = tenth + tenth + tenth;
        assert!(s.contains(&q(3, 10)));
        assert!((p - s).contains(&q(0, 1)));
        assert!(
            tenth
                .checked_div(three)
                .expect("nonzero")
                .contains(&q(1, 30))
        );
        assert_eq!(tenth.checked_div(tenth - tenth), None);
    }

    #[test]
    fn only_disjoint_intervals_decide_an_order() {
        let a = Interval::new(1.0, 2.0);
        let b = Interval::new(2.5, 3.0);
        assert_eq!(a.order(&b), Some(Ordering::Less));
        assert_eq!(b.order(&a), Some(Ordering::Greater));
        assert_eq!(a.order(&Interval::new(1.5, 3.0)), None);
        assert_eq!(a.order(&Interval::ENTIRE), None);
        assert_eq!(
            Interval::point(2.0).order(&Interval::point(2.0)),
            Some(Ordering::Equal)
        );
        assert_eq!(a.le(&Interval::new(2.0, 5.0)), Some(true));
        assert_eq!(a.le(&Interval::new(1.5, 5.0)), None);
    }

    #[test]
    fn library_functions_enclose_their_values() {
        // sin(π/6) = 1/2 for the real π/6, which no double is: the interval
        // of sin around the nearest double contains 1/2.
        let x = Interval::around(std::f64::consts::FRAC_PI_6, 1);
        let s = x.lipschitz_unit(f64::sin);
        assert!(s.contains(&q(1, 2)));
        assert!(s.hi() - s.lo() < 1e-14);
        let e = Interval::point(1.0).increasing(f64::exp, f64::NEG_INFINITY, f64::INFINITY);
        assert!(e.lo() < std::f64::consts::E && std::f64::consts::E < e.hi());
        // Outside the domain: any real.
        assert!(
            Interval::new(-1.0, 1.0)
                .increasing(f64::ln, 0.0, f64::INFINITY)
                .is_entire()
        );
        assert_eq!(Interval::new(-1.0, 1.0).sqrt(), None);
        let t = Interval::new(0.1, 0.2).tan();
        assert!(t.lo() <= 0.1f64.tan() && 0.2f64.tan() <= t.hi());
        assert!(
            Interval::new(1.0, 2.0).tan().is_entire(),
            "a pole at π/2 lies between"
        );
        let p = Interval::point(2.0).pow(Interval::point(0.5));
        assert!(p.lo() < std::f64::consts::SQRT_2 && std::f64::consts::SQRT_2 < p.hi());
        let a = Interval::point(1.0).atan2(Interval::point(-1.0));
        assert!(
            a.lo() < 3.0 * std::f64::consts::FRAC_PI_4
                && 3.0 * std::f64::consts::FRAC_PI_4 < a.hi()
        );
        let b = Interval::point(-1.0).atan2(Interval::point(-1.0));
        assert!(
            b.lo() < -3.0 * std::f64::consts::FRAC_PI_4
                && -3.0 * std::f64::consts::FRAC_PI_4 < b.hi()
        );
        assert!(
            Interval::new(-1.0, 1.0)
                .atan2(Interval::point(-1.0))
                .is_entire()
        );
        let c = Interval::new(-1.0, 2.0).cosh();
        assert_eq!(c.lo(), 1.0);
        assert!(c.hi() >= 2f64.cosh());
    }

    #[test]
    fn integer_parts_are_unique_only_away_from_integers() {
        let x = Interval::new(2.2, 2.7);
        assert_eq!(x.unique_integer(f64::floor), Some(BigInt::from(2)));
        let y = Interval::around(3.0, 1);
        assert_eq!(y.unique_integer(f64::floor), None);
        assert_eq!(y.integer_part(f64::floor), Interval::new(2.0, 3.0));
        let sq = Interval::new(-1.0, 1.0).powi(2).expect("a positive power");
        assert!(sq.contains(&q(0, 1)) && sq.contains(&q(1, 1)));
        assert!(
            Interval::of_rational(&q(1, 3))
                .powi(3)
                .expect("positive")
                .contains(&q(1, 27))
        );
        assert_eq!(Interval::new(-1.0, 1.0).powi(-1), None);
    }

    #[test]
    fn overflow_and_nan_bounds_mean_unbounded() {
        let big = Interval::point(f64::MAX);
        let s = big + big;
        assert_eq!(s.hi(), f64::INFINITY);
        assert!(s.lo() >= f64::MAX);
        assert!(Interval::new(f64::NAN, 1.0).is_entire());
        assert!((Interval::ENTIRE * Interval::point(0.0)).contains(&q(0, 1)));
    }
}
