//! Symbolic values and the meaning of every IR operator as Z3 terms, under
//! either semantics. The rules are those of `docs/semantics.md`; the
//! interpreter implements the same rules concretely.
//!
//! Terms are built through the z3 crate's typed API only; nothing here asks
//! Z3 what kind a term is (the bindings' enum numbering is wrong for the
//! system libz3 4.8.12).

use crate::ir::{BinOp, FloatTy, IntTy, Intrinsic, Lang, Semantics, SignedOverflow, Type};
use num_bigint::BigInt;
use num_rational::BigRational;
use rustc_hash::FxHashMap;
use z3::ast::RoundingMode;
use z3::ast::{Ast, BV, Bool, Dynamic, Float, Int, Real};
use z3::{FuncDecl, Sort};

/// Index of an array object on the symbolic heap.
pub type ObjId = usize;

/// A symbolic value of one IR type.
#[derive(Clone, Debug)]
pub enum Sym {
    Void,
    Bool(Bool),
    /// Math semantics integers.
    Int(Int),
    /// Math semantics floating point.
    Real(Real),
    /// Machine semantics integers (width from the type).
    Bv(BV),
    /// Machine semantics floating point.
    Fp(Float),
    /// A reference to an array object. Concrete: the encoder keeps array
    /// identity exact, so aliasing through locals is precise.
    Arr(ObjId),
}

impl Sym {
    pub fn to_dyn(&self) -> Option<Dynamic> {
        Some(match self {
            Sym::Bool(b) => Dynamic::from_ast(b),
            Sym::Int(i) => Dynamic::from_ast(i),
            Sym::Real(r) => Dynamic::from_ast(r),
            Sym::Bv(b) => Dynamic::from_ast(b),
            Sym::Fp(f) => Dynamic::from_ast(f),
            Sym::Void | Sym::Arr(_) => return None,
        })
    }
}

/// Why a term could not be built.
#[derive(Debug, Clone)]
pub struct EncodeError {
    pub what: String,
    /// Set when the cause is a callee that could not be lowered: its own
    /// error, with the precise position.
    pub lowering: Option<crate::ir::LowerError>,
    /// The deadline stopped the encoding (nothing was found unsupported).
    timed_out: bool,
}

impl EncodeError {
    pub fn new(what: impl Into<String>) -> Self {
        EncodeError {
            what: what.into(),
            lowering: None,
            timed_out: false,
        }
    }
    /// The encoding ran out of time.
    pub fn timeout() -> Self {
        EncodeError {
            what: "timeout".into(),
            lowering: None,
            timed_out: true,
        }
    }
    /// A callee that could not be lowered, with its own error.
    pub fn lowering(what: impl Into<String>, error: crate::ir::LowerError) -> Self {
        EncodeError {
            what: what.into(),
            lowering: Some(error),
            timed_out: false,
        }
    }
    pub fn is_timeout(&self) -> bool {
        self.timed_out
    }
}

pub type EResult<T> = Result<T, EncodeError>;

fn err<T>(what: impl Into<String>) -> EResult<T> {
    Err(EncodeError::new(what.into()))
}

/// A fault an operation may raise, with the condition under which it does.
pub struct MayFault {
    pub cond: Bool,
    pub code: FaultCode,
}

/// Outcome codes: how an execution ended, compared between versions (0 is
/// a normal return). The implicit faults have fixed codes; what a program
/// throws itself gets a code from the pair's [`super::Strings`] table, so
/// both versions number it alike ([`FaultCode::thrown`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultCode(pub i64);

impl FaultCode {
    /// Java `ArithmeticException`; C undefined behaviour.
    pub const DIVISION_BY_ZERO: FaultCode = FaultCode(1);
    /// Java `ArrayIndexOutOfBoundsException`; C undefined behaviour.
    pub const INDEX_OUT_OF_BOUNDS: FaultCode = FaultCode(2);
    pub const NEGATIVE_ARRAY_SIZE: FaultCode = FaultCode(3);
    /// Other C undefined behaviour.
    pub const UNDEFINED: FaultCode = FaultCode(4);
    /// Java `NullPointerException`: a `null` array input used.
    pub const NULL_POINTER: FaultCode = FaultCode(5);
    /// The implicit faults, each a code an abstracted block may report.
    pub const IMPLICIT: [FaultCode; 5] = [
        Self::DIVISION_BY_ZERO,
        Self::INDEX_OUT_OF_BOUNDS,
        Self::NEGATIVE_ARRAY_SIZE,
        Self::UNDEFINED,
        Self::NULL_POINTER,
    ];

    /// The Java class of an implicit fault's code.
    pub fn java_implicit_class(self) -> Option<&'static str> {
        if self == Self::NULL_POINTER {
            return Some(crate::ir::Thrown::JAVA_NULL_POINTER);
        }
        usize::try_from(self.0 - 1)
            .ok()
            .and_then(|i| crate::ir::Thrown::JAVA_IMPLICIT.get(i).copied())
    }

    /// The code of an explicit throw: a Java exception of an implicit
    /// fault's class shares that fault's code (`throw new
    /// ArithmeticException()` and `x / 0` are the same outcome).
    pub fn thrown(t: &crate::ir::Thrown, strings: &mut super::Strings) -> FaultCode {
        if let crate::ir::Thrown::Exception(class) = t
            && let Some(i) = crate::ir::Thrown::JAVA_IMPLICIT
                .iter()
                .position(|c| c == class)
        {
            return FaultCode(i as i64 + 1);
        }
        if let crate::ir::Thrown::Exception(class) = t
            && class == crate::ir::Thrown::JAVA_NULL_POINTER
        {
            return Self::NULL_POINTER;
        }
        if let crate::ir::Thrown::Undefined(_) = t {
            return Self::UNDEFINED;
        }
        FaultCode(strings.tag(&t.key()))
    }

    /// The outcome this code stands for in `lang`: in C every undefined
    /// behaviour is one outcome, whichever operation had it (as
    /// `FaultKind::outcome_key` has it for the interpreter).
    pub fn outcome(self, lang: Lang) -> FaultCode {
        let implicit_ub = [
            Self::DIVISION_BY_ZERO,
            Self::INDEX_OUT_OF_BOUNDS,
            Self::NEGATIVE_ARRAY_SIZE,
            Self::NULL_POINTER,
        ];
        if lang == Lang::C && implicit_ub.contains(&self) {
            Self::UNDEFINED
        } else {
            self
        }
    }
}

/// The operator semantics for one language under one semantics.
#[derive(Clone, Copy)]
pub struct Ops {
    pub sem: Semantics,
    pub lang: Lang,
    /// C under `machine`: whether signed `+ - *` and `-x` may fault.
    pub signed_overflow: SignedOverflow,
    /// Machine remainders written through their quotients (`x - (x / y) *
    /// y`), so that quotient and remainder of the same words live in one
    /// ring. Set where the compared code multiplies a quotient: there a
    /// remainder can cancel against it. Elsewhere the remainder's own
    /// circuit is kept: its bit-level facts (its sign is the dividend's)
    /// are cheap for it and costly through a multiplier.
    pub remainders_as_quotients: bool,
}

fn rne() -> RoundingMode {
    RoundingMode::round_nearest_ties_to_even()
}

impl Ops {
    /// The operators of one semantics and language; remainders keep their
    /// own circuit ([`Ops::remainders_as_quotients`] is the encoder's to set).
    pub fn new(sem: Semantics, lang: Lang, signed_overflow: SignedOverflow) -> Ops {
        Ops {
            sem,
            lang,
            signed_overflow,
            remainders_as_quotients: false,
        }
    }

    pub fn machine(&self) -> bool {
        self.sem == Semantics::Machine
    }

    /// Whether signed overflow is undefined behaviour here: C under
    /// `machine` unless the project compiles with `-fwrapv`.
    pub fn overflow_undefined(&self) -> bool {
        self.lang == Lang::C && self.machine() && self.signed_overflow == SignedOverflow::Undefined
    }

    /// The Z3 sort of a scalar IR type.
    pub fn sort(&self, ty: &Type) -> EResult<Sort> {
        Ok(match (ty, self.sem) {
            (Type::Bool, _) => Sort::bool(),
            (Type::Int(_), Semantics::Math) => Sort::int(),
            (Type::Float(_), Semantics::Math) => Sort::real(),
            (Type::Int(t), Semantics::Machine) => Sort::bitvector(t.bits as u32),
            (Type::Float(FloatTy::F32), Semantics::Machine) => Sort::float32(),
            (Type::Float(FloatTy::F64), Semantics::Machine) => Sort::double(),
            (t, _) => return err(format!("values of type {t}")),
        })
    }

    /// Sort of array indices and lengths.
    pub fn index_sort(&self) -> Sort {
        match (self.sem, self.lang) {
            (Semantics::Math, _) => Sort::int(),
            (Semantics::Machine, Lang::Java) => Sort::bitvector(32),
            (Semantics::Machine, Lang::C) => Sort::bitvector(64),
        }
    }

    /// Wraps a dynamic term of the sort of `ty`.
    // A conversion made by the operator table, not of it.
    #[allow(clippy::wrong_self_convention)]
    pub fn from_dyn(&self, ty: &Type, d: &Dynamic) -> EResult<Sym> {
        let bad = || EncodeError::new(format!("internal: sort mismatch for {ty}"));
        Ok(match (ty, self.sem) {
            (Type::Bool, _) => Sym::Bool(d.as_bool().ok_or_else(bad)?),
            (Type::Int(_), Semantics::Math) => Sym::Int(d.as_int().ok_or_else(bad)?),
            (Type::Float(_), Semantics::Math) => Sym::Real(d.as_real().ok_or_else(bad)?),
            (Type::Int(_), Semantics::Machine) => Sym::Bv(d.as_bv().ok_or_else(bad)?),
            (Type::Float(_), Semantics::Machine) => Sym::Fp(d.as_float().ok_or_else(bad)?),
            (t, _) => return err(format!("values of type {t}")),
        })
    }

    /// A fresh input constant named `name`.
    pub fn input(&self, name: &str, ty: &Type) -> EResult<Sym> {
        let sort = self.sort(ty)?;
        self.from_dyn(ty, &Dynamic::new_const(name, &sort))
    }

    /// The zero / false value of a type (fresh locals, new arrays).
    pub fn zero(&self, ty: &Type) -> EResult<Sym> {
        Ok(match (ty, self.sem) {
            (Type::Bool, _) => Sym::Bool(Bool::from_bool(false)),
            (Type::Int(_), Semantics::Math) => Sym::Int(Int::from_i64(0)),
            (Type::Float(_), Semantics::Math) => Sym::Real(real_const(0, 1)),
            (Type::Int(t), Semantics::Machine) => Sym::Bv(BV::from_i64(0, t.bits as u32)),
            (Type::Float(FloatTy::F32), Semantics::Machine) => Sym::Fp(Float::from_f32(0.0)),
            (Type::Float(FloatTy::F64), Semantics::Machine) => Sym::Fp(Float::from_f64(0.0)),
            (t, _) => return err(format!("values of type {t}")),
        })
    }

    pub fn int_lit(&self, v: i128, ty: &Type) -> EResult<Sym> {
        Ok(match (ty, self.sem) {
            (Type::Int(_), Semantics::Math) => Sym::Int(Int::from_i128(v)),
            (Type::Int(t), Semantics::Machine) => Sym::Bv(bv_from_i128(v, t.bits as u32)),
            (Type::Float(_), _) => self.float_lit(&v.to_string(), v as f64, ty)?,
            (t, _) => return err(format!("integer literal of type {t}")),
        })
    }

    pub fn float_lit(&self, text: &str, value: f64, ty: &Type) -> EResult<Sym> {
        Ok(match (ty, self.sem) {
            (Type::Float(_), Semantics::Math) => {
                let r = decimal_to_rational(text).or_else(|| BigRational::from_float(value));
                match r {
                    Some(r) => Sym::Real(Real::from_big_rational(&r)),
                    None => return err(format!("literal {value} has no real value")),
                }
            }
            (Type::Float(FloatTy::F32), Semantics::Machine) => {
                Sym::Fp(Float::from_f32(value as f32))
            }
            (Type::Float(FloatTy::F64), Semantics::Machine) => Sym::Fp(Float::from_f64(value)),
            (t, _) => return err(format!("float literal of type {t}")),
        })
    }

    /// An index/length value as the index sort, from an integer symbol.
    // A conversion made by the operator table, not of it.
    #[allow(clippy::wrong_self_convention)]
    pub fn to_index(&self, v: &Sym, from: &IntTy) -> EResult<Sym> {
        match (v, self.sem, self.lang) {
            (Sym::Int(_), _, _) => Ok(v.clone()),
            (Sym::Bv(b), Semantics::Machine, Lang::Java) => Ok(Sym::Bv(resize_bv(b, from, 32))),
            (Sym::Bv(b), Semantics::Machine, Lang::C) => Ok(Sym::Bv(resize_bv(b, from, 64))),
            _ => err("internal: index of non-integer sort"),
        }
    }

    pub fn index_lit(&self, v: i64) -> Sym {
        match (self.sem, self.lang) {
            (Semantics::Math, _) => Sym::Int(Int::from_i64(v)),
            (Semantics::Machine, Lang::Java) => Sym::Bv(BV::from_i64(v, 32)),
            (Semantics::Machine, Lang::C) => Sym::Bv(BV::from_i64(v, 64)),
        }
    }

    /// `0 <= i < len` on index-sort values.
    pub fn in_bounds(&self, i: &Sym, len: &Sym) -> EResult<Bool> {
        match (i, len) {
            (Sym::Int(i), Sym::Int(l)) => Ok(Bool::and(&[i.ge(Int::from_i64(0)), i.lt(l)])),
            (Sym::Bv(i), Sym::Bv(l)) => {
                let zero = BV::from_i64(0, i.get_size());
                Ok(Bool::and(&[i.bvsge(&zero), i.bvslt(l)]))
            }
            _ => err("internal: index sorts"),
        }
    }

    pub fn is_negative_index(&self, len: &Sym) -> EResult<Bool> {
        match len {
            Sym::Int(l) => Ok(l.lt(Int::from_i64(0))),
            Sym::Bv(l) => Ok(l.bvslt(BV::from_i64(0, l.get_size()))),
            _ => err("internal: index sorts"),
        }
    }

    pub fn ite(&self, c: &Bool, a: &Sym, b: &Sym) -> EResult<Sym> {
        Ok(match (a, b) {
            (Sym::Void, Sym::Void) => Sym::Void,
            (Sym::Bool(x), Sym::Bool(y)) => Sym::Bool(ite(c, x, y)),
            (Sym::Int(x), Sym::Int(y)) => Sym::Int(ite(c, x, y)),
            (Sym::Real(x), Sym::Real(y)) => Sym::Real(ite(c, x, y)),
            (Sym::Bv(x), Sym::Bv(y)) => Sym::Bv(ite(c, x, y)),
            (Sym::Fp(x), Sym::Fp(y)) => Sym::Fp(ite(c, x, y)),
            (Sym::Arr(x), Sym::Arr(y)) if x == y => Sym::Arr(*x),
            (Sym::Arr(_), Sym::Arr(_)) => return err("array reference chosen by a condition"),
            _ => return err("internal: merging values of different sorts"),
        })
    }

    /// Observational equality: what a user could tell apart. Machine floats
    /// compare by bits except that all NaNs are alike.
    pub fn obs_eq(&self, a: &Sym, b: &Sym) -> EResult<Bool> {
        Ok(match (a, b) {
            (Sym::Void, Sym::Void) => Bool::from_bool(true),
            (Sym::Bool(x), Sym::Bool(y)) => x.eq(y),
            (Sym::Int(x), Sym::Int(y)) => x.eq(y),
            (Sym::Real(x), Sym::Real(y)) => x.eq(y),
            (Sym::Bv(x), Sym::Bv(y)) if x.get_size() == y.get_size() => x.eq(y),
            (Sym::Fp(x), Sym::Fp(y)) => Bool::or(&[
                Bool::and(&[x.is_nan(), y.is_nan()]),
                x.to_ieee_bv().eq(y.to_ieee_bv()),
            ]),
            _ => return err("return or state types differ between the versions"),
        })
    }

    pub fn not(&self, v: &Sym) -> EResult<Bool> {
        match v {
            Sym::Bool(b) => Ok(b.not()),
            _ => err("internal: ! on non-boolean"),
        }
    }

    /// `-v`; `ty` is the operand's (promoted) type. Negating a signed
    /// minimum is undefined in C (see [`SignedOverflow`]).
    pub fn neg(&self, v: &Sym, ty: &Type) -> EResult<(Sym, Vec<MayFault>)> {
        let mut faults = Vec::new();
        let out = match v {
            Sym::Int(x) => Sym::Int(x.unary_minus()),
            Sym::Real(x) => Sym::Real(x.unary_minus()),
            Sym::Bv(x) => {
                if self.overflow_undefined() && matches!(ty, Type::Int(t) if t.signed) {
                    faults.push(MayFault {
                        cond: x.eq(bv_min(x.get_size())),
                        code: FaultCode::UNDEFINED,
                    });
                }
                Sym::Bv(x.bvneg())
            }
            Sym::Fp(x) => Sym::Fp(x.unary_neg()),
            _ => return err("internal: negation of non-number"),
        };
        Ok((out, faults))
    }

    pub fn bitnot(&self, v: &Sym, uf: &mut Ufs) -> EResult<Sym> {
        Ok(match v {
            // ~x = -x - 1 on two's-complement unbounded integers.
            Sym::Int(x) => Sym::Int(Int::sub(&[x.unary_minus(), Int::from_i64(1)])),
            Sym::Bv(x) => Sym::Bv(x.bvnot()),
            _ => {
                let _ = uf;
                return err("internal: ~ on non-integer");
            }
        })
    }

    /// A binary operator; returns the value and the faults it may raise
    /// (conditions relative to the operands being evaluated).
    pub fn binary(
        &self,
        op: BinOp,
        ty: &Type,
        lhs_ty: &Type,
        a: &Sym,
        b: &Sym,
        uf: &mut Ufs,
    ) -> EResult<(Sym, Vec<MayFault>)> {
        use BinOp::*;
        let mut faults = Vec::new();
        let v = match (a, b) {
            (Sym::Bool(x), Sym::Bool(y)) => Sym::Bool(match op {
                Eq => x.eq(y),
                Ne => x.eq(y).not(),
                BitAnd | And => Bool::and(&[x, y]),
                BitOr | Or => Bool::or(&[x, y]),
                BitXor => x.xor(y),
                _ => return err(format!("operator {op:?} on booleans")),
            }),
            (Sym::Int(x), Sym::Int(y)) => match op {
                Add => Sym::Int(Int::add(&[x, y])),
                Sub => Sym::Int(Int::sub(&[x, y])),
                Mul if uf.abstracts_nonlinear()
                    && x.simplify().as_i64().is_none()
                    && y.simplify().as_i64().is_none() =>
                {
                    let (a, b) = commuted(x, y);
                    Sym::Int(uf.apply_int("mul", &[a, b]))
                }
                Mul => Sym::Int(Int::mul(&[x, y])),
                Div | Rem => {
                    faults.push(MayFault {
                        cond: y.eq(Int::from_i64(0)),
                        code: FaultCode::DIVISION_BY_ZERO,
                    });
                    if uf.abstracts_nonlinear() && y.simplify().as_i64().is_none() {
                        let name = if op == Div { "div" } else { "rem" };
                        return Ok((Sym::Int(uf.apply_int(name, &[x, y])), faults));
                    }
                    let q = tdiv(x, y);
                    if op == Div {
                        Sym::Int(q)
                    } else {
                        Sym::Int(Int::sub(&[x.clone(), Int::mul(&[y, &q])]))
                    }
                }
                Eq => Sym::Bool(x.eq(y)),
                Ne => Sym::Bool(x.eq(y).not()),
                Lt => Sym::Bool(x.lt(y)),
                Le => Sym::Bool(x.le(y)),
                Gt => Sym::Bool(x.gt(y)),
                Ge => Sym::Bool(x.ge(y)),
                Shl | Shr | UShr => self.math_shift(op, lhs_ty, x, y, uf, &mut faults)?,
                BitAnd | BitOr | BitXor => {
                    // With a literal mask the operation is exact linear
                    // arithmetic ([`and_constant`]); otherwise uninterpreted.
                    let masked = match (x.simplify().as_i64(), y.simplify().as_i64()) {
                        (_, Some(m)) => Some((x, m)),
                        (Some(m), None) => Some((y, m)),
                        (None, None) => None,
                    };
                    match masked.and_then(|(v, m)| Some((v, m, and_constant(v, m)?))) {
                        Some((v, m, and)) => {
                            let m = Int::from_i64(m);
                            Sym::Int(match op {
                                BitAnd => and,
                                // a | m = a + m − (a & m); a ^ m = a + m − 2(a & m)
                                BitOr => Int::sub(&[&Int::add(&[v, &m]), &and]),
                                _ => Int::sub(&[
                                    &Int::add(&[v, &m]),
                                    &Int::mul(&[&Int::from_i64(2), &and]),
                                ]),
                            })
                        }
                        None => {
                            let name = match op {
                                BitAnd => "bitand",
                                BitOr => "bitor",
                                _ => "bitxor",
                            };
                            Sym::Int(uf.apply_int(name, &[x, y]))
                        }
                    }
                }
                And | Or => return err("internal: && on integers"),
            },
            (Sym::Real(x), Sym::Real(y)) => match op {
                Add => Sym::Real(Real::add(&[x, y])),
                Sub => Sym::Real(Real::sub(&[x, y])),
                Mul if uf.abstracts_nonlinear()
                    && x.simplify().as_rational().is_none()
                    && y.simplify().as_rational().is_none() =>
                {
                    let (a, b) = commuted(x, y);
                    let r = uf.apply(
                        "mul",
                        &[Dynamic::from_ast(a), Dynamic::from_ast(b)],
                        &Sort::real(),
                    );
                    Sym::Real(
                        r.as_real()
                            .ok_or_else(|| EncodeError::new("internal: real product"))?,
                    )
                }
                Mul => Sym::Real(Real::mul(&[x, y])),
                Div | Rem if uf.abstracts_nonlinear() && y.simplify().as_rational().is_none() => {
                    faults.push(MayFault {
                        cond: y.eq(real0()),
                        code: FaultCode::DIVISION_BY_ZERO,
                    });
                    let name = if op == Div { "div" } else { "rem" };
                    let r = uf.apply(
                        name,
                        &[Dynamic::from_ast(x), Dynamic::from_ast(y)],
                        &Sort::real(),
                    );
                    Sym::Real(
                        r.as_real()
                            .ok_or_else(|| EncodeError::new("internal: real division"))?,
                    )
                }
                Div => {
                    faults.push(MayFault {
                        cond: y.eq(real0()),
                        code: FaultCode::DIVISION_BY_ZERO,
                    });
                    Sym::Real(x.div(y))
                }
                Rem => {
                    faults.push(MayFault {
                        cond: y.eq(real0()),
                        code: FaultCode::DIVISION_BY_ZERO,
                    });
                    let q = real_trunc(&x.div(y)).to_real();
                    Sym::Real(Real::sub(&[x.clone(), Real::mul(&[y, &q])]))
                }
                Eq => Sym::Bool(x.eq(y)),
                Ne => Sym::Bool(x.eq(y).not()),
                Lt => Sym::Bool(x.lt(y)),
                Le => Sym::Bool(x.le(y)),
                Gt => Sym::Bool(x.gt(y)),
                Ge => Sym::Bool(x.ge(y)),
                _ => return err(format!("operator {op:?} on reals")),
            },
            (Sym::Bv(x), Sym::Bv(y)) => self.machine_int(op, ty, lhs_ty, x, y, &mut faults)?,
            (Sym::Fp(x), Sym::Fp(y)) => match op {
                Add => Sym::Fp(x.add_with_rounding_mode(y, &rne())),
                Sub => Sym::Fp(x.sub_with_rounding_mode(y, &rne())),
                Mul => Sym::Fp(x.mul_with_rounding_mode(y, &rne())),
                Div => Sym::Fp(x.div_with_rounding_mode(y, &rne())),
                Rem => Sym::Fp(fmod(x, y)),
                Eq => Sym::Bool(x.eq_fpa(y)),
                Ne => Sym::Bool(x.eq_fpa(y).not()),
                Lt => Sym::Bool(x.lt(y)),
                Le => Sym::Bool(x.le(y)),
                Gt => Sym::Bool(x.gt(y)),
                Ge => Sym::Bool(x.ge(y)),
                _ => return err(format!("operator {op:?} on floating point")),
            },
            _ => return err(format!("internal: operands of {op:?} have different sorts")),
        };
        Ok((v, faults))
    }

    fn math_shift(
        &self,
        op: BinOp,
        lhs_ty: &Type,
        x: &Int,
        y: &Int,
        uf: &mut Ufs,
        faults: &mut Vec<MayFault>,
    ) -> EResult<Sym> {
        let width = match lhs_ty {
            Type::Int(t) => t.bits as i64,
            _ => 32,
        };
        if self.lang == Lang::C {
            // Undefined in C whatever the integer model.
            let ok = Bool::and(&[y.ge(Int::from_i64(0)), y.lt(Int::from_i64(width))]);
            faults.push(MayFault {
                cond: ok.not(),
                code: FaultCode::UNDEFINED,
            });
        }
        let count = y.simplify().as_i64();
        let count = match (self.lang, count) {
            (Lang::Java, Some(c)) => Some(c & if width == 64 { 63 } else { 31 }),
            (_, c) => c,
        };
        Ok(match (op, count) {
            (BinOp::Shl, Some(c)) if (0..=64).contains(&c) => Sym::Int(Int::mul(&[
                x.clone(),
                Int::from_big_int(&(BigInt::from(1) << c as usize)),
            ])),
            (BinOp::Shr, Some(c)) if (0..=64).contains(&c) => {
                // Floor division by a positive power of two.
                Sym::Int(x.div(Int::from_big_int(&(BigInt::from(1) << c as usize))))
            }
            _ => {
                let name = match op {
                    BinOp::Shl => "shl",
                    BinOp::Shr => "shr",
                    _ => "ushr",
                };
                let name = format!("{name}{width}");
                Sym::Int(uf.apply_int(&name, &[x, y]))
            }
        })
    }

    fn machine_int(
        &self,
        op: BinOp,
        ty: &Type,
        lhs_ty: &Type,
        x: &BV,
        y: &BV,
        faults: &mut Vec<MayFault>,
    ) -> EResult<Sym> {
        use BinOp::*;
        let signed = match (op.is_comparison(), lhs_ty, ty) {
            (_, Type::Int(t), _) => t.signed,
            (false, _, Type::Int(t)) => t.signed,
            _ => true,
        };
        let w = x.get_size();
        let c = self.lang == Lang::C;
        if signed && matches!(op, Add | Sub | Mul) && self.overflow_undefined() {
            faults.push(MayFault {
                cond: signed_overflow(op, x, y),
                code: FaultCode::UNDEFINED,
            });
        }
        Ok(match op {
            Add => Sym::Bv(x.bvadd(y)),
            Sub => Sym::Bv(x.bvsub(y)),
            Mul => Sym::Bv(x.bvmul(y)),
            Div | Rem => {
                faults.push(MayFault {
                    cond: y.eq(BV::from_i64(0, w)),
                    code: FaultCode::DIVISION_BY_ZERO,
                });
                if c && signed {
                    let min = bv_min(w);
                    let overflow = Bool::and(&[x.eq(&min), y.eq(BV::from_i64(-1, w))]);
                    faults.push(MayFault {
                        cond: overflow,
                        code: FaultCode::UNDEFINED,
                    });
                }
                // `x - (x / y) * y` is the remainder for every x and y in Z3's
                // bit-vector semantics (y = 0 and MIN / -1 included); in one
                // ring with the quotient, word-level normalisation cancels
                // `(x / y) * y + x % y` to `x`, where two divider circuits would
                // be left to the SAT solver.
                let quotient = || if signed { x.bvsdiv(y) } else { x.bvudiv(y) };
                Sym::Bv(match op {
                    Div => quotient(),
                    _ if self.remainders_as_quotients => x.bvsub(quotient().bvmul(y)),
                    _ if signed => x.bvsrem(y),
                    _ => x.bvurem(y),
                })
            }
            BitAnd => Sym::Bv(x.bvand(y)),
            BitOr => Sym::Bv(x.bvor(y)),
            BitXor => Sym::Bv(x.bvxor(y)),
            Shl | Shr | UShr => {
                // The count has its own type; bring it to the left operand's width.
                let count = resize_bv_signed(y, w);
                let count = if c {
                    let ok = Bool::and(&[
                        count.bvsge(BV::from_i64(0, w)),
                        count.bvslt(BV::from_i64(w as i64, w)),
                    ]);
                    faults.push(MayFault {
                        cond: ok.not(),
                        code: FaultCode::UNDEFINED,
                    });
                    count
                } else {
                    count.bvand(BV::from_i64(if w == 64 { 63 } else { 31 }, w))
                };
                Sym::Bv(match op {
                    Shl => x.bvshl(&count),
                    Shr if signed => x.bvashr(&count),
                    _ => x.bvlshr(&count),
                })
            }
            Eq => Sym::Bool(x.eq(y)),
            Ne => Sym::Bool(x.eq(y).not()),
            Lt => Sym::Bool(if signed { x.bvslt(y) } else { x.bvult(y) }),
            Le => Sym::Bool(if signed { x.bvsle(y) } else { x.bvule(y) }),
            Gt => Sym::Bool(if signed { x.bvsgt(y) } else { x.bvugt(y) }),
            Ge => Sym::Bool(if signed { x.bvsge(y) } else { x.bvuge(y) }),
            And | Or => return err("internal: && on integers"),
        })
    }

    /// Conversion of `v` from type `from` to type `to`.
    pub fn cast(&self, v: &Sym, from: &Type, to: &Type) -> EResult<(Sym, Vec<MayFault>)> {
        let mut faults = Vec::new();
        let out = match (v, from, to) {
            (_, f, t) if f == t => v.clone(),
            (Sym::Bool(b), Type::Bool, Type::Int(_)) => {
                let one = self.int_lit(1, to)?;
                let zero = self.int_lit(0, to)?;
                self.ite(b, &one, &zero)?
            }
            (Sym::Int(_), Type::Int(_), Type::Int(_)) => v.clone(),
            (Sym::Int(x), Type::Int(_), Type::Float(_)) => Sym::Real(x.to_real()),
            (Sym::Real(x), Type::Float(_), Type::Int(_)) => Sym::Int(real_trunc(x)),
            (Sym::Real(_), Type::Float(_), Type::Float(_)) => v.clone(),
            (Sym::Bv(x), Type::Int(f), Type::Int(t)) => Sym::Bv(resize_bv(x, f, t.bits as u32)),
            (Sym::Bv(x), Type::Int(f), Type::Float(t)) => Sym::Fp(bv_to_fp(x, f.signed, *t)),
            (Sym::Fp(x), Type::Float(_), Type::Float(t)) => {
                let sort = match t {
                    FloatTy::F32 => Sort::float32(),
                    FloatTy::F64 => Sort::double(),
                };
                Sym::Fp(x.to_fp_with_rounding_mode(&rne(), &sort))
            }
            (Sym::Fp(x), Type::Float(_), Type::Int(t)) => {
                let (v, f) = self.fp_to_int(x, t);
                faults.extend(f);
                Sym::Bv(v)
            }
            _ => return err(format!("conversion from {from} to {to}")),
        };
        Ok((out, faults))
    }

    /// Float → integer: Java saturates (NaN → 0) through `int`/`long`; C is
    /// undefined out of range.
    fn fp_to_int(&self, x: &Float, t: &IntTy) -> (BV, Vec<MayFault>) {
        let rtz = RoundingMode::round_towards_zero();
        match self.lang {
            Lang::Java => {
                // Java narrows to byte/short/char through int.
                let wide = if t.bits == 64 { 64 } else { 32 };
                let (lo, hi) = if wide == 64 {
                    (i64::MIN as f64, 9.223372036854776e18)
                } else {
                    (-2147483648.0, 2147483648.0)
                };
                let min = bv_min(wide);
                let max = bv_max(wide);
                let conv = x.to_sbv_with_rounding_mode(&rtz, wide);
                let r = x.is_nan().ite(
                    &BV::from_i64(0, wide),
                    &x.le(Float::from_f64(lo).to_fp_with_rounding_mode(&rne(), &fp_sort_of(x)))
                        .ite(
                            &min,
                            &x.ge(Float::from_f64(hi)
                                .to_fp_with_rounding_mode(&rne(), &fp_sort_of(x)))
                                .ite(&max, &conv),
                        ),
                );
                let from = IntTy {
                    bits: wide as u8,
                    signed: true,
                    is_char: false,
                };
                (resize_bv(&r, &from, t.bits as u32), Vec::new())
            }
            Lang::C => {
                let conv = if t.signed {
                    x.to_sbv_with_rounding_mode(&rtz, t.bits as u32)
                } else {
                    x.to_ubv_with_rounding_mode(&rtz, t.bits as u32)
                };
                // In range iff lo <= trunc(x) < hi, both bounds powers of two
                // (exact in every float format).
                let sort = fp_sort_of(x);
                let pow2 =
                    |e: i32| Float::from_f64(2f64.powi(e)).to_fp_with_rounding_mode(&rne(), &sort);
                let bits = t.bits as i32;
                let truncated = x.round_to_integral_with_rounding_mode(&rtz);
                let (lo, hi) = if t.signed {
                    (pow2(bits - 1).unary_neg(), pow2(bits - 1))
                } else {
                    (
                        Float::from_f64(0.0).to_fp_with_rounding_mode(&rne(), &sort),
                        pow2(bits),
                    )
                };
                let ok = Bool::and(&[x.is_nan().not(), truncated.ge(&lo), truncated.lt(&hi)]);
                (
                    conv,
                    vec![MayFault {
                        cond: ok.not(),
                        code: FaultCode::UNDEFINED,
                    }],
                )
            }
        }
    }

    /// The undefined behaviour an intrinsic call may have: C's `abs` and
    /// `labs` of the minimum (see [`SignedOverflow`]).
    pub fn intrinsic_faults(
        &self,
        f: Intrinsic,
        ty: &Type,
        args: &[Sym],
    ) -> EResult<Vec<MayFault>> {
        match (f, args.first()) {
            (Intrinsic::Abs, Some(x)) => Ok(self.neg(x, ty)?.1),
            _ => Ok(Vec::new()),
        }
    }

    /// An intrinsic call. `arg_tys` are the argument types, `ty` the result.
    ///
    /// Long: one arm per `ir::Intrinsic`, mirroring `interp::ops`, so that
    /// the two meanings of each can be read side by side.
    pub fn intrinsic(&self, f: Intrinsic, ty: &Type, args: &[Sym], uf: &mut Ufs) -> EResult<Sym> {
        use Intrinsic::*;
        let arg = |i: usize| {
            args.get(i)
                .ok_or_else(|| EncodeError::new(format!("{} needs more arguments", f.name())))
        };
        match f {
            Abs => {
                let x = arg(0)?;
                let zero = self.zero(ty)?;
                let (neg, _) = self.binary(BinOp::Lt, &Type::Bool, ty, x, &zero, uf)?;
                // Its undefined case is `intrinsic_faults`'s.
                let (n, _) = self.neg(x, ty)?;
                match (neg, x) {
                    // fabs clears the sign bit, also of -0.0 and NaN.
                    (_, Sym::Fp(v)) => Ok(Sym::Fp(v.unary_abs())),
                    (Sym::Bool(c), _) => self.ite(&c, &n, x),
                    _ => err("internal: abs"),
                }
            }
            Min | Max => {
                let (x, y) = (arg(0)?, arg(1)?);
                match (x, y) {
                    (Sym::Fp(a), Sym::Fp(b)) => {
                        // Java Math.min/max: NaN wins; -0.0 < +0.0.
                        let nan = Float::nan(&fp_sort_of(a));
                        let pick_a = if f == Min {
                            Bool::or(&[a.lt(b), Bool::and(&[a.eq_fpa(b), a.is_negative()])])
                        } else {
                            Bool::or(&[a.gt(b), Bool::and(&[a.eq_fpa(b), a.is_positive()])])
                        };
                        Ok(Sym::Fp(
                            Bool::or(&[a.is_nan(), b.is_nan()]).ite(&nan, &pick_a.ite(a, b)),
                        ))
                    }
                    _ => {
                        let op = if f == Min { BinOp::Le } else { BinOp::Ge };
                        let (c, _) = self.binary(op, &Type::Bool, ty, x, y, uf)?;
                        match c {
                            Sym::Bool(c) => self.ite(&c, x, y),
                            _ => err("internal: min/max"),
                        }
                    }
                }
            }
            Floor | Ceil => match arg(0)? {
                Sym::Real(x) => Ok(Sym::Real(if f == Floor {
                    x.to_int().to_real()
                } else {
                    x.unary_minus().to_int().to_real().unary_minus()
                })),
                Sym::Fp(x) => Ok(Sym::Fp(x.round_to_integral_with_rounding_mode(
                    &if f == Floor {
                        RoundingMode::round_towards_negative()
                    } else {
                        RoundingMode::round_towards_positive()
                    },
                ))),
                _ => err("floor/ceil of a non-floating value"),
            },
            Round => match (arg(0)?, ty) {
                (Sym::Real(x), Type::Int(_)) => {
                    Ok(Sym::Int(Real::add(&[x.clone(), real_const(1, 2)]).to_int()))
                }
                (Sym::Fp(x), Type::Int(t)) => {
                    // Java: closest integer, ties toward +∞, NaN → 0, saturating.
                    let fl = x.round_to_integral_with_rounding_mode(
                        &RoundingMode::round_towards_negative(),
                    );
                    let diff = x.sub_with_rounding_mode(&fl, &rne());
                    let half =
                        Float::from_f64(0.5).to_fp_with_rounding_mode(&rne(), &fp_sort_of(x));
                    let one = Float::from_f64(1.0).to_fp_with_rounding_mode(&rne(), &fp_sort_of(x));
                    let r = diff
                        .ge(&half)
                        .ite(&fl.add_with_rounding_mode(&one, &rne()), &fl);
                    let (v, _) = self.fp_to_int(&r, t);
                    Ok(Sym::Bv(v))
                }
                _ => err("round of a non-floating value"),
            },
            RoundHalfAway => match arg(0)? {
                Sym::Real(x) => {
                    let half = real_const(1, 2);
                    let up = Real::add(&[x.clone(), half.clone()]).to_int().to_real();
                    let down = Real::add(&[x.unary_minus(), half])
                        .to_int()
                        .to_real()
                        .unary_minus();
                    Ok(Sym::Real(x.ge(real0()).ite(&up, &down)))
                }
                Sym::Fp(x) => Ok(Sym::Fp(x.round_to_integral_with_rounding_mode(
                    &RoundingMode::round_nearest_ties_to_away(),
                ))),
                _ => err("round of a non-floating value"),
            },
            GetExponent if self.machine() => match arg(0)? {
                Sym::Fp(x) => {
                    let (ebits, sbits) = fp_widths(x)?;
                    let bias = (1i64 << (ebits - 1)) - 1;
                    // The biased exponent field, then unbiased: zeros and
                    // subnormals give -bias, as in the JDK. NaN and the
                    // infinities give bias + 1 (their field is all ones,
                    // but `to_ieee_bv` of a NaN is not pinned down).
                    let field = x.to_ieee_bv().extract(ebits + sbits - 2, sbits - 1);
                    let e = field.zero_ext(32 - ebits).bvsub(BV::from_i64(bias, 32));
                    let special = Bool::or(&[x.is_nan(), x.is_infinite()]);
                    Ok(Sym::Bv(special.ite(&BV::from_i64(bias + 1, 32), &e)))
                }
                _ => err("getExponent of a non-floating value"),
            },
            Compare => {
                let (x, y) = (arg(0)?, arg(1)?);
                let int = |v: i128| self.int_lit(v, ty);
                let (lt, gt) = match (x, y) {
                    (Sym::Fp(a), Sym::Fp(b)) => {
                        // Not ordered by `<`: equal values, the two zeros,
                        // or a NaN; then -0.0 < +0.0 and NaN is greatest.
                        let (an, bn) = (a.is_nan(), b.is_nan());
                        let below = Bool::or(&[
                            a.lt(b),
                            Bool::and(&[an.not(), bn.clone()]),
                            Bool::and(&[
                                a.is_zero(),
                                b.is_zero(),
                                a.is_negative(),
                                b.is_positive(),
                            ]),
                        ]);
                        let above = Bool::or(&[
                            a.gt(b),
                            Bool::and(&[an, bn.not()]),
                            Bool::and(&[
                                a.is_zero(),
                                b.is_zero(),
                                a.is_positive(),
                                b.is_negative(),
                            ]),
                        ]);
                        (below, above)
                    }
                    _ => {
                        let (lt, _) =
                            self.binary(BinOp::Lt, &Type::Bool, &Type::DOUBLE, x, y, uf)?;
                        let (gt, _) =
                            self.binary(BinOp::Gt, &Type::Bool, &Type::DOUBLE, x, y, uf)?;
                        match (lt, gt) {
                            (Sym::Bool(lt), Sym::Bool(gt)) => (lt, gt),
                            _ => return err("internal: compare"),
                        }
                    }
                };
                let rest = self.ite(&gt, &int(1)?, &int(0)?)?;
                self.ite(&lt, &int(-1)?, &rest)
            }
            CopySign => match (arg(0)?, arg(1)?) {
                // fp.isNegative is false of NaN: a NaN sign is positive.
                (Sym::Fp(m), Sym::Fp(s)) => Ok(Sym::Fp(
                    s.is_negative()
                        .ite(&m.unary_abs().unary_neg(), &m.unary_abs()),
                )),
                (Sym::Real(m), Sym::Real(s)) => {
                    let abs = m.lt(real0()).ite(&m.unary_minus(), m);
                    Ok(Sym::Real(s.lt(real0()).ite(&abs.unary_minus(), &abs)))
                }
                _ => err("copySign of a non-floating value"),
            },
            FloatBits if self.machine() => match arg(0)? {
                Sym::Fp(x) => {
                    let (ebits, sbits) = fp_widths(x)?;
                    let width = ebits + sbits;
                    // The JDK's canonical NaN: exponent all ones, the top
                    // significand bit set.
                    let nan = ((1i128 << (ebits + 1)) - 1) << (sbits - 2);
                    Ok(Sym::Bv(
                        x.is_nan().ite(&bv_from_i128(nan, width), &x.to_ieee_bv()),
                    ))
                }
                _ => err("floatBits of a non-floating value"),
            },
            BitsToFloat if self.machine() => match arg(0)? {
                Sym::Bv(b) => {
                    let sort = self.sort(ty)?;
                    let (Some(ebits), Some(sbits)) =
                        (sort.float_exponent_size(), sort.float_significand_size())
                    else {
                        return err("bitsToFloat to a non-floating type");
                    };
                    let width = ebits + sbits;
                    if b.get_size() != width {
                        return err("bitsToFloat of bits of the wrong width");
                    }
                    // The value whose bits are `b`: a function of `b`
                    // pinned down by its facts (every NaN pattern is NaN;
                    // any other pattern is the one value with those bits).
                    let r = uf.apply_defined("bitsToFloat", &[Dynamic::from_ast(b)], &sort);
                    let Some(f) = r.as_float() else {
                        return err("internal: bitsToFloat");
                    };
                    let exponent = b.extract(width - 2, sbits - 1);
                    let all_ones = BV::from_i64(-1, ebits);
                    let fraction = b.extract(sbits - 2, 0);
                    let nan_bits = Bool::and(&[
                        exponent.eq(&all_ones),
                        fraction.eq(BV::from_i64(0, sbits - 1)).not(),
                    ]);
                    uf.fact(nan_bits.ite(&f.is_nan(), &f.to_ieee_bv().eq(b)));
                    Ok(Sym::Fp(f))
                }
                _ => err("bitsToFloat of a non-integer value"),
            },
            Sqrt if self.machine() => match arg(0)? {
                Sym::Fp(x) => Ok(Sym::Fp(x.sqrt())),
                _ => err("sqrt of a non-floating value"),
            },
            _ => {
                // No exact model: the same uninterpreted function in both
                // versions, so equal arguments give equal results.
                let dyns: Vec<Dynamic> = args.iter().filter_map(Sym::to_dyn).collect();
                if dyns.len() != args.len() {
                    return err(format!("arguments of {}", f.name()));
                }
                let range = self.sort(ty)?;
                let r = uf.apply(f.name(), &dyns, &range);
                let out = self.from_dyn(ty, &r)?;
                // Sound facts; over the reals (`math`), the algebraic ones
                // define the function where it is real-valued.
                if let (Sqrt, Sym::Real(x), Sym::Real(y)) = (f, &args[0], &out) {
                    uf.fact(x.ge(real0()).implies(square_root(x, y)));
                }
                // A positive base to any power is positive (so never a zero divisor).
                if let (Pow, Some(Sym::Real(b)), Sym::Real(y)) = (f, args.first(), &out) {
                    uf.fact(b.gt(real0()).implies(y.gt(real0())));
                    if let Some(Sym::Real(e)) = args.get(1)
                        && let Some(fact) = literal_power(b, e, y)
                    {
                        uf.fact(fact);
                    }
                }
                if let (Exp, Sym::Real(y)) = (f, &out) {
                    uf.fact(y.gt(real0()));
                }
                Ok(out)
            }
        }
    }
}

/// Masks with more runs of one bits than this stay uninterpreted in
/// [`and_constant`]: each run is two remainders.
const MAX_MASK_RUNS: usize = 2;

/// `a & m` for a literal `m` on unbounded two's-complement integers, as
/// linear arithmetic: the bits `i..j` of `a` are `(a mod 2^j) − (a mod 2^i)`
/// (Euclidean `mod`, so for a negative `a` too), summed over the runs of
/// ones of `m ≥ 0`; for `m < 0`, `a − (a & !m)`. `None` for a mask of more
/// than [`MAX_MASK_RUNS`] runs.
fn and_constant(a: &Int, m: i64) -> Option<Int> {
    if m < 0 {
        return Some(Int::sub(&[a, &and_constant(a, !m)?]));
    }
    let low_bits = |k: u32| {
        if k == 0 {
            Int::from_i64(0)
        } else {
            a.modulo(Int::from_u64(1u64 << k))
        }
    };
    let mut runs = Vec::new();
    let mut bit = 0u32;
    while bit < 64 {
        if (m >> bit) & 1 == 1 {
            let start = bit;
            while bit < 64 && (m >> bit) & 1 == 1 {
                bit += 1;
            }
            runs.push(Int::sub(&[&low_bits(bit), &low_bits(start)]));
        } else {
            bit += 1;
        }
    }
    if runs.len() > MAX_MASK_RUNS {
        return None;
    }
    Some(if runs.is_empty() {
        Int::from_i64(0)
    } else {
        Int::add(&runs.iter().collect::<Vec<_>>())
    })
}

/// `y` is the square root of `x ≥ 0`: the one non-negative real whose
/// square is `x`.
fn square_root(x: &Real, y: &Real) -> Bool {
    Bool::and(&[y.ge(real0()), (y * y).eq(x)])
}

/// Exponents up to this magnitude are multiplied out in
/// [`literal_power`]: beyond it the product's degree makes nonlinear
/// queries hopeless anyway.
const MAX_MULTIPLIED_EXPONENT: i64 = 8;

/// The definition of `y = pow(b, e)` over the reals for a literal exponent
/// `e`, where the power is real-valued: `bⁿ` multiplied out for an integer
/// `0 ≤ n ≤` [`MAX_MULTIPLIED_EXPONENT`] (`pow(b, 0)` is 1 for every `b`),
/// `y · b⁻ⁿ = 1` for a negative one where `b ≠ 0`, the square root for `½`
/// where `b ≥ 0`. `None` for any other exponent.
fn literal_power(b: &Real, e: &Real, y: &Real) -> Option<Bool> {
    let (num, den) = e.simplify().as_rational()?;
    let product = |n: i64| (0..n).fold(real_const(1, 1), |acc, _| acc * b);
    match (num, den) {
        (1, 2) => Some(b.ge(real0()).implies(square_root(b, y))),
        (n, 1) if (0..=MAX_MULTIPLIED_EXPONENT).contains(&n) => Some(y.eq(product(n))),
        (n, 1) if (-MAX_MULTIPLIED_EXPONENT..0).contains(&n) => Some(
            b.eq(real0())
                .not()
                .implies((y * product(-n)).eq(real_const(1, 1))),
        ),
        _ => None,
    }
}

/// The operands of a commutative operator in a fixed order (by Z3's term
/// identity, the same in both versions for the same terms), so that `a * b`
/// and `b * a` are one application of an uninterpreted product.
fn commuted<'t, T: Ast>(x: &'t T, y: &'t T) -> (&'t T, &'t T) {
    if x.get_z3_ast().as_ptr() <= y.get_z3_ast().as_ptr() {
        (x, y)
    } else {
        (y, x)
    }
}

/// Uninterpreted functions shared by both versions (same name and sorts →
/// same symbol), plus the facts asserted about their applications.
#[derive(Default)]
pub struct Ufs {
    decls: FxHashMap<String, FuncDecl>,
    pub facts: Vec<Bool>,
    /// Names of the functions used, for the verdict's explanation.
    pub used: std::collections::BTreeSet<String>,
    /// Ackermann mode: applications are fresh constants recorded here
    /// instead of Z3 function applications (see [`Ufs::ackermann`]).
    applications: Option<Vec<UfApplication>>,
    /// The application the next [`Ufs::fact`] is about.
    last: Option<usize>,
    /// Where the applications being made come from (the CHC encoding's
    /// stretch and version), recorded in each [`UfApplication`].
    pub origin: u32,
}

/// One application in Ackermann mode: `result` stands for `key(args)`.
#[derive(Clone, Debug)]
pub struct UfApplication {
    /// The function's name and sorts: applications of the same key with
    /// equal arguments have equal results.
    pub key: String,
    pub args: Vec<Dynamic>,
    pub result: Dynamic,
    /// Sound facts about this application (e.g. `exp(x) > 0`).
    pub facts: Vec<Bool>,
    /// [`Ufs::origin`] when it was made.
    pub origin: u32,
}

impl Ufs {
    /// Ufs whose applications are fresh constants ([`Ufs::applications`])
    /// rather than Z3 function symbols. The CHC encoding needs this: a free
    /// function symbol in Horn clauses is one the solver may *choose*,
    /// while ours must stand for every function; with Ackermann's reduction
    /// each clause holds for all results consistent with "equal arguments,
    /// equal results", hence for every interpretation.
    pub fn ackermann() -> Ufs {
        Ufs {
            applications: Some(Vec::new()),
            ..Ufs::default()
        }
    }

    /// The applications made in Ackermann mode (empty otherwise).
    pub fn applications(&self) -> &[UfApplication] {
        self.applications.as_deref().unwrap_or(&[])
    }

    /// Whether nonlinear products and divisions by a non-constant are
    /// uninterpreted functions too (in Ackermann mode: Spacer gives up on
    /// nonlinear division and rarely finds nonlinear invariants, while
    /// "equal operands, equal results" is all most equivalence proofs need).
    pub fn abstracts_nonlinear(&self) -> bool {
        self.applications.is_some()
    }

    /// Records a sound fact about the application just made.
    pub fn fact(&mut self, fact: Bool) {
        match (self.applications.as_mut(), self.last) {
            (Some(apps), Some(i)) => match apps.get_mut(i) {
                Some(app) => app.facts.push(fact),
                None => self.facts.push(fact),
            },
            _ => self.facts.push(fact),
        }
    }

    /// [`Ufs::apply`] for a function the caller pins down completely with
    /// [`Ufs::fact`]s (a fresh term per distinct argument, but no freedom
    /// left): not reported as an uninterpreted function in the verdict's
    /// assumptions.
    pub fn apply_defined(&mut self, name: &str, args: &[Dynamic], range: &Sort) -> Dynamic {
        let was_used = self.used.contains(name);
        let r = self.apply(name, args, range);
        if !was_used {
            self.used.remove(name);
        }
        r
    }

    pub fn apply(&mut self, name: &str, args: &[Dynamic], range: &Sort) -> Dynamic {
        let (sorts, key) = uf_key(name, args, range);
        self.used.insert(name.to_string());
        if let Some(apps) = self.applications.as_mut() {
            // Syntactically the same arguments (terms are hash-consed):
            // the same result term, so both versions' terms stay equal.
            let same = apps.iter().position(|a| {
                a.key == key
                    && a.args.len() == args.len()
                    && a.args
                        .iter()
                        .zip(args)
                        .all(|(x, y)| x.get_z3_ast() == y.get_z3_ast())
            });
            let i = match same {
                Some(i) => i,
                None => {
                    apps.push(UfApplication {
                        result: Dynamic::fresh_const(name, range),
                        key,
                        args: args.to_vec(),
                        facts: Vec::new(),
                        origin: self.origin,
                    });
                    apps.len() - 1
                }
            };
            self.last = Some(i);
            return apps[i].result.clone();
        }
        let decl = self.decls.entry(key).or_insert_with(|| {
            let refs: Vec<&Sort> = sorts.iter().collect();
            FuncDecl::new(format!("{name}!{}", sorts.len()), &refs, range)
        });
        let refs: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
        decl.apply(&refs)
    }

    /// The value the function `name` (as applied by [`Ufs::apply`]) takes
    /// on `args` in `model`, with model completion; `None` when the
    /// encoding never applied it to arguments of these sorts (any value is
    /// then consistent with the model).
    pub fn eval_in(
        &self,
        model: &z3::Model,
        name: &str,
        args: &[Dynamic],
        range: &Sort,
    ) -> Option<Dynamic> {
        let (_, key) = uf_key(name, args, range);
        let decl = self.decls.get(&key)?;
        let refs: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
        model.eval(&decl.apply(&refs), true)
    }

    fn apply_int(&mut self, name: &str, args: &[&Int]) -> Int {
        let dyns: Vec<Dynamic> = args.iter().map(|a| Dynamic::from_ast(*a)).collect();
        self.apply(name, &dyns, &Sort::int())
            .as_int()
            .unwrap_or_else(|| Int::from_i64(0))
    }
}

/// The argument sorts of an application of `name`, and the key of its
/// function declaration (one per name and signature).
fn uf_key(name: &str, args: &[Dynamic], range: &Sort) -> (Vec<Sort>, String) {
    let sorts: Vec<Sort> = args.iter().map(|a| a.get_sort()).collect();
    let key = format!(
        "{name}:{}->{range}",
        sorts
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    (sorts, key)
}

/// `c ? a : b`, or just `a` when both sides are the same term (hash-consed
/// by Z3, so this is a pointer comparison). Merging states after a branch
/// leaves most values untouched; not wrapping those keeps terms small.
pub fn ite<T: Ast + Clone>(c: &Bool, a: &T, b: &T) -> T {
    if a.get_z3_ast() == b.get_z3_ast() {
        a.clone()
    } else {
        c.ite(a, b)
    }
}

fn real0() -> Real {
    real_const(0, 1)
}

/// The exact meaning of an application that stands for a nonlinear
/// product, division or remainder of integers (see
/// [`Ufs::abstracts_nonlinear`]): `r = a·b`, and `b ≠ 0 → r = a / b`
/// (truncating) or `r = a % b` (a division by zero faults before its
/// result is used). `None` for any other function.
pub fn interpretation(app: &UfApplication) -> Option<Bool> {
    let [_, b] = app.args.as_slice() else {
        return None;
    };
    let nonzero = b.as_int()?.eq(Int::from_i64(0)).not();
    let is_product = app.key.split(':').next() == Some("mul");
    let exact = app.result.eq(exact_term(app)?);
    Some(if is_product {
        exact
    } else {
        nonzero.implies(exact)
    })
}

/// The exact value of a product, quotient or remainder application, as a
/// term of its arguments (a zero divisor gives Z3's value for it: only for
/// candidate invariants, which are checked).
pub fn exact_term(app: &UfApplication) -> Option<Dynamic> {
    let name = app.key.split(':').next()?;
    let [a, b] = app.args.as_slice() else {
        return None;
    };
    let (a, b) = (a.as_int()?, b.as_int()?);
    app.result.as_int()?;
    Some(Dynamic::from_ast(&match name {
        "mul" => Int::mul(&[&a, &b]),
        "div" => tdiv(&a, &b),
        "rem" => Int::sub(&[a.clone(), Int::mul(&[&b, &tdiv(&a, &b)])]),
        _ => return None,
    }))
}

/// Truncating integer division (Java/C), from Z3's floor-style `div` on
/// non-negative operands.
fn tdiv(x: &Int, y: &Int) -> Int {
    let zero = Int::from_i64(0);
    let ax = x.ge(&zero).ite(x, &x.unary_minus());
    let ay = y.ge(&zero).ite(y, &y.unary_minus());
    let q = ax.div(&ay);
    let same_sign = x.ge(&zero).eq(y.ge(&zero));
    same_sign.ite(&q, &q.unary_minus())
}

/// Truncation toward zero of a real.
pub fn real_trunc(x: &Real) -> Int {
    x.ge(real0())
        .ite(&x.to_int(), &x.unary_minus().to_int().unary_minus())
}

/// C `fmod` / Java `%` on floats from IEEE remainder: shift the result by
/// |y| toward the dividend's sign when the signs disagree (exact).
fn fmod(x: &Float, y: &Float) -> Float {
    let r = x.rem(y);
    let ay = y.unary_abs();
    let fix = Bool::and(&[r.is_zero().not(), r.is_negative().eq(x.is_negative()).not()]);
    let adj = x.is_negative().ite(
        &r.sub_with_rounding_mode(&ay, &rne()),
        &r.add_with_rounding_mode(&ay, &rne()),
    );
    fix.ite(&adj, &r)
}

fn fp_sort_of(x: &Float) -> Sort {
    x.get_sort()
}

/// Exponent and significand widths of a floating term (11 and 53 for a
/// double).
fn fp_widths(x: &Float) -> EResult<(u32, u32)> {
    let sort = x.get_sort();
    match (sort.float_exponent_size(), sort.float_significand_size()) {
        (Some(e), Some(s)) => Ok((e, s)),
        _ => err("internal: a floating term of a non-floating sort"),
    }
}

pub fn bv_from_i128(v: i128, bits: u32) -> BV {
    let masked = if bits >= 128 {
        v as u128
    } else {
        (v as u128) & ((1u128 << bits) - 1)
    };
    if bits <= 64 {
        BV::from_u64(masked as u64, bits)
    } else {
        BV::from_int(&Int::from_u128(masked), bits)
    }
}

/// Whether signed `x op y` (`+`, `-`, `*`) overflows its width.
///
/// `+` and `-` by the sign bits of the operands and of the wrapped result
/// (the sum of two operands of one sign has the other sign; for `x - y`,
/// `y` of the other sign): the result's own adder is shared with the
/// value, so the check adds no arithmetic for the solver to bit-blast (a
/// wide adder per operation made bounded loops over sums about twice as
/// slow: `docs/benchmarks.md`). `*` compares the exact double-width product with the
/// wrapped one; Z3's own `bvsmul_noudfl` is not used: on libz3 4.8.12 it
/// calls `-127 * -1` an underflow at 8 bits (see the test below).
fn signed_overflow(op: BinOp, x: &BV, y: &BV) -> Bool {
    let w = x.get_size();
    let negative = |v: &BV| v.bvslt(BV::from_i64(0, w));
    match op {
        BinOp::Add | BinOp::Sub => {
            let (r, same_sign_operands) = if op == BinOp::Add {
                (x.bvadd(y), negative(x).eq(negative(y)))
            } else {
                (x.bvsub(y), negative(x).eq(negative(y)).not())
            };
            Bool::and(&[same_sign_operands, negative(&r).eq(negative(x)).not()])
        }
        _ => {
            let wide = |v: &BV| v.sign_ext(w);
            wide(x).bvmul(wide(y)).eq(wide(&x.bvmul(y))).not()
        }
    }
}

fn bv_min(w: u32) -> BV {
    bv_from_i128(-(1i128 << (w - 1)), w)
}

fn bv_max(w: u32) -> BV {
    bv_from_i128((1i128 << (w - 1)) - 1, w)
}

/// Width change by the source type's signedness.
pub fn resize_bv(x: &BV, from: &IntTy, to_bits: u32) -> BV {
    let w = x.get_size();
    if to_bits == w {
        x.clone()
    } else if to_bits < w {
        x.extract(to_bits - 1, 0)
    } else if from.signed {
        x.sign_ext(to_bits - w)
    } else {
        x.zero_ext(to_bits - w)
    }
}

fn resize_bv_signed(x: &BV, to_bits: u32) -> BV {
    resize_bv(x, &IntTy::I64, to_bits)
}

fn bv_to_fp(x: &BV, signed: bool, t: FloatTy) -> Float {
    let sort = match t {
        FloatTy::F32 => Sort::float32(),
        FloatTy::F64 => Sort::double(),
    };
    let ctx = x.get_ctx();
    let rm = rne();
    // The z3 crate has no wrapper for these two conversions.
    unsafe {
        let raw = if signed {
            z3_sys::Z3_mk_fpa_to_fp_signed(
                ctx.get_z3_context(),
                rm.get_z3_ast(),
                x.get_z3_ast(),
                sort.get_z3_sort(),
            )
        } else {
            z3_sys::Z3_mk_fpa_to_fp_unsigned(
                ctx.get_z3_context(),
                rm.get_z3_ast(),
                x.get_z3_ast(),
                sort.get_z3_sort(),
            )
        };
        match raw {
            Some(ast) => Float::wrap(ctx, ast),
            None => Float::nan(&sort),
        }
    }
}

/// The exact rational value of a decimal literal (`1.5e-3`, `.5`, `2.`).
pub fn decimal_to_rational(text: &str) -> Option<BigRational> {
    let t = text.trim();
    if t.is_empty() || t.starts_with("0x") || t.starts_with("0X") {
        return None;
    }
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i64>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    let digits = format!("{int}{frac}");
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n: BigInt = digits.parse().ok()?;
    let scale = exp - frac.len() as i64;
    if scale.abs() > 4000 {
        return None;
    }
    let ten = BigInt::from(10);
    Some(if scale >= 0 {
        BigRational::from_integer(n * num_traits::pow(ten, scale as usize))
    } else {
        BigRational::new(n, num_traits::pow(ten, (-scale) as usize))
    })
}

/// A rational constant. (The z3 crate's `Real::from_rational` calls
/// `Z3_mk_real_int64`, which libz3 4.8.12 lacks; numerals work everywhere.)
pub fn real_const(num: i64, den: i64) -> Real {
    Real::from_rational_str(&num.to_string(), &den.to_string())
        .unwrap_or_else(|| Int::from_i64(num).to_real())
}

/// `simplify` with sums in a canonical order (`som`, `bv_sort_ac`), so that
/// the same additions in a different order become the same term. Bit-blasted
/// adder chains in different orders are otherwise very hard for the SAT
/// solver (a 5-element sum reassociated: seconds; 6: a timeout).
pub fn normalize(b: &Bool) -> Bool {
    use std::ffi::CString;
    use z3_sys::*;
    let ctx = b.get_ctx();
    let c = ctx.get_z3_context();
    // SAFETY: plain Z3 C API calls on this context; every object is
    // reference-counted as the API requires and released before returning.
    unsafe {
        let Some(params) = Z3_mk_params(c) else {
            return b.simplify();
        };
        Z3_params_inc_ref(c, params);
        for name in ["som", "bv_sort_ac"] {
            if let Ok(key) = CString::new(name)
                && let Some(sym) = Z3_mk_string_symbol(c, key.as_ptr())
            {
                Z3_params_set_bool(c, params, sym, true);
            }
        }
        let result = Z3_simplify_ex(c, b.get_z3_ast(), params);
        let out = match result {
            Some(ast) => Bool::wrap(ctx, ast),
            None => b.simplify(),
        };
        Z3_params_dec_ref(c, params);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `fact` implies `claim` (its negation is unsatisfiable).
    fn implies(fact: &Bool, claim: &Bool) -> bool {
        let solver = z3::Solver::new();
        solver.assert(fact);
        solver.assert(claim.not());
        solver.check() == z3::SatResult::Unsat
    }

    /// `a & m`, `a | m` and `a ^ m` with literal masks agree with BigInt's
    /// two's-complement operations (the interpreter's) on negative and
    /// positive values.
    #[test]
    fn constant_masks_are_exact_on_unbounded_integers() {
        use num_traits::ToPrimitive;
        let masks = [
            0i64,
            1,
            32,
            0xFF,
            -32,
            !0x0F0,
            0x0F0F,
            i64::MAX,
            -1,
            i64::MIN,
        ];
        let values = [-1_000_000_007i64, -33, -32, -1, 0, 1, 31, 32, 95, 1 << 40];
        for m in masks {
            for a in values {
                let exact = |op: BinOp| {
                    let (x, y) = (BigInt::from(a), BigInt::from(m));
                    match op {
                        BinOp::BitAnd => x & y,
                        BinOp::BitOr => x | y,
                        _ => x ^ y,
                    }
                };
                let and = and_constant(&Int::from_i64(a), m).expect("a short mask");
                let mi = Int::from_i64(m);
                let ai = Int::from_i64(a);
                let got = [
                    (BinOp::BitAnd, and.clone()),
                    (BinOp::BitOr, Int::sub(&[&Int::add(&[&ai, &mi]), &and])),
                    (
                        BinOp::BitXor,
                        Int::sub(&[
                            &Int::add(&[&ai, &mi]),
                            &Int::mul(&[&Int::from_i64(2), &and]),
                        ]),
                    ),
                ];
                for (op, term) in got {
                    let value = term.simplify().as_i64();
                    assert_eq!(value, exact(op).to_i64(), "{a} {op:?} {m}");
                }
            }
        }
        // A mask of many runs stays uninterpreted.
        assert!(and_constant(&Int::new_const("a"), 0x5555).is_none());
    }

    #[test]
    fn literal_powers_are_defined_over_the_reals() {
        let (b, y) = (Real::new_const("b"), Real::new_const("y"));
        let pow = |num: i64, den: i64| literal_power(&b, &real_const(num, den), &y);
        let cube = pow(3, 1).expect("an integer exponent");
        assert!(implies(&cube, &y.eq(&b * &b * &b)));
        assert!(!implies(&cube, &y.eq(&b * &b)));
        let zero = pow(0, 1).expect("exponent 0");
        assert!(implies(&zero, &y.eq(real_const(1, 1))));
        let inverse = pow(-2, 1).expect("a negative exponent");
        let at_two = Bool::and(&[inverse, b.eq(real_const(2, 1))]);
        assert!(implies(&at_two, &y.eq(real_const(1, 4))));
        let root = pow(1, 2).expect("exponent one half");
        let at_nine = Bool::and(&[root, b.eq(real_const(9, 1))]);
        assert!(implies(&at_nine, &y.eq(real_const(3, 1))));
        // No definition where it would be a guess or a huge product.
        assert!(pow(1, 3).is_none());
        assert!(pow(MAX_MULTIPLIED_EXPONENT + 1, 1).is_none());
    }

    #[test]
    fn a_square_root_is_the_non_negative_one() {
        let (x, y) = (Real::new_const("x"), Real::new_const("y"));
        let root = square_root(&(&x * &x), &y);
        let abs = x.ge(real0()).ite(&x, &x.unary_minus());
        assert!(implies(&root, &y.eq(abs)));
        assert!(!implies(&root, &y.eq(&x)));
    }

    #[test]
    fn decimal_literals_are_exact() {
        let r = |s: &str| decimal_to_rational(s).map(|r| r.to_string());
        assert_eq!(r("0.1").as_deref(), Some("1/10"));
        assert_eq!(r("1.5e-3").as_deref(), Some("3/2000"));
        assert_eq!(r("2.").as_deref(), Some("2"));
        assert_eq!(r(".25").as_deref(), Some("1/4"));
        assert_eq!(r("1e3").as_deref(), Some("1000"));
        assert_eq!(r("abc"), None);
    }

    /// The overflow predicates agree with exact arithmetic at the edges
    /// (Z3's own multiplication predicates included, on the libz3 in use).
    #[test]
    fn signed_overflow_predicates_match_exact_arithmetic() {
        for w in [8u32, 32, 64] {
            let min = -(1i128 << (w - 1));
            let max = (1i128 << (w - 1)) - 1;
            let values = [
                min,
                min + 1,
                -2,
                -1,
                0,
                1,
                2,
                3,
                max / 2,
                max / 2 + 1,
                max - 1,
                max,
            ];
            for op in [BinOp::Add, BinOp::Sub, BinOp::Mul] {
                for &a in &values {
                    for &b in &values {
                        let exact = match op {
                            BinOp::Add => a + b,
                            BinOp::Sub => a - b,
                            _ => a * b,
                        };
                        let expected = exact < min || exact > max;
                        let bv = |v: i128| BV::from_i64(v as i64, w);
                        let solver = z3::Solver::new();
                        solver.assert(signed_overflow(op, &bv(a), &bv(b)));
                        let got = solver.check() == z3::SatResult::Sat;
                        assert_eq!(got, expected, "{a} {op:?} {b} at {w} bits");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod normalize_tests {
    use super::*;

    #[test]
    fn reordered_bit_vector_sums_normalize_to_true() {
        let v: Vec<BV> = (0..6).map(|i| BV::new_const(format!("x{i}"), 32)).collect();
        let forward = v.iter().skip(1).fold(v[0].clone(), |acc, x| acc.bvadd(x));
        let backward = v
            .iter()
            .rev()
            .skip(1)
            .fold(v[5].clone(), |acc, x| x.bvadd(&acc));
        assert_eq!(normalize(&forward.eq(&backward)).as_bool(), Some(true));
    }
}

#[cfg(test)]
mod remainder_tests {
    use super::*;

    fn machine(lang: Lang) -> Ops {
        Ops {
            sem: Semantics::Machine,
            lang,
            signed_overflow: Default::default(),
            remainders_as_quotients: true,
        }
    }

    fn rem(ops: &Ops, signed: bool, x: &BV, y: &BV) -> BV {
        let ty = Type::Int(IntTy {
            bits: 8,
            signed,
            is_char: false,
        });
        let (Sym::Bv(r), _) = ops
            .binary(
                BinOp::Rem,
                &ty,
                &ty,
                &Sym::Bv(x.clone()),
                &Sym::Bv(y.clone()),
                &mut Ufs::default(),
            )
            .expect("an 8-bit remainder encodes")
        else {
            panic!("a machine remainder is a bit-vector");
        };
        r
    }

    /// The remainder written through the quotient is Z3's own remainder for
    /// every pair of 8-bit words, zero and MIN / -1 included.
    #[test]
    fn remainder_through_the_quotient_is_exact() {
        let (x, y) = (BV::new_const("x", 8), BV::new_const("y", 8));
        for lang in [Lang::Java, Lang::C] {
            for signed in [true, false] {
                let ours = rem(&machine(lang), signed, &x, &y);
                let z3 = if signed { x.bvsrem(&y) } else { x.bvurem(&y) };
                let solver = z3::Solver::new();
                solver.assert(ours.eq(&z3).not());
                assert_eq!(
                    solver.check(),
                    z3::SatResult::Unsat,
                    "{lang:?} signed={signed}"
                );
            }
        }
    }

    /// `(x / y) * y + x % y` is `x` by word-level normalisation alone.
    #[test]
    fn quotient_times_divisor_plus_remainder_normalises_to_the_dividend() {
        let (x, y) = (BV::new_const("x", 8), BV::new_const("y", 8));
        let ops = machine(Lang::Java);
        let back = x.bvsdiv(&y).bvmul(&y).bvadd(rem(&ops, true, &x, &y));
        assert_eq!(normalize(&back.eq(&x)).as_bool(), Some(true));
    }
}
