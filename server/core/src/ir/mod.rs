//! The language-neutral, typed intermediate representation.
//!
//! Both front ends (Java, C) lower every method/function into this IR; the
//! concrete interpreter ([`crate::interp`]) and the symbolic encoder
//! (`crate::symbolic`) give it one meaning each, and those two meanings must
//! agree (a replayed counterexample is only trusted because they do).
//!
//! # Invariants the front ends guarantee
//! - **Expressions are free of side effects.** Assignments, `++`/`--`, and
//!   calls to program functions are lifted into statements before the
//!   expression that used them, keeping Java/C left-to-right evaluation order
//!   (earlier operands are spilled to temporaries when a later operand has
//!   effects) and short-circuit order (`a && f()` becomes an `If`).
//!   Expressions can still *fault* (integer division by zero, array index out
//!   of bounds): `And`, `Or` and `Cond` are lazy, so a fault in an operand that
//!   is not evaluated does not happen.
//! - **Expressions are well typed, conversions explicit.** Operands of
//!   arithmetic, bitwise and comparison operators have the same type
//!   (binary numeric promotion / usual arithmetic conversions are inserted as
//!   [`ExprKind::Cast`]); the result of arithmetic and bitwise ops has that
//!   type; comparisons and logical ops have type [`Type::Bool`]. Shifts are the
//!   exception: the left operand has the result type, the right operand may be
//!   any integer type. Conditions (`if`, loops, `!`, `&&`, `?:`) are `Bool`; the C
//!   front end inserts `x != 0`. A cast changes the type, to a number, from
//!   a number or (C) from `Bool` to an integer. Array indexes are of an
//!   integer type (Java `int`, C `size_t`); literals are in their type's range.
//! - **Control is structured.** Labels are unique within a function; a
//!   `break` targets an enclosing loop or labeled block, a `continue` an
//!   enclosing loop. Calls pass arguments of the parameters' types.
//! - Every statement and expression carries the [`Span`] of the source it
//!   came from (lifted temporaries carry the span of the expression they hold).
//!
//! [`validate()`] checks these on a program (tests run it on every front
//! end's output). Beside the types: `walk` (children of expressions and
//! statements, [`any_stmt`]), `calls` ([`callees`], [`Program::reaches`]),
//! `make` (well-typed constructors for passes), `print` (a readable text
//! form for test messages and debugging).
//!
//! # Semantics in brief (full rules in `docs/semantics.md`)
//! Under [`Semantics::Math`] every integer type is ℤ (integer casts are the
//! identity) and every floating type is ℝ; under [`Semantics::Machine`]
//! integers wrap in two's complement at their width and floats are IEEE-754.
//! Integer `/` and `%` truncate toward zero in both.

mod calls;
pub(crate) mod make;
pub mod print;
pub mod validate;
mod walk;

pub use calls::callees;
pub use validate::{ValidationError, Violation, validate};
pub use walk::{any_stmt, contains_loop};

use rustc_hash::FxHashMap;
use serde::Serialize;
use std::fmt;

/// A source position: zero-based line and column (column counted in bytes),
/// plus the byte offset. Displayed one-based, as editors and compilers do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub byte: u32,
}

/// A range of source text `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub start: Pos,
    pub end: Pos,
}

impl Span {
    /// One-based line of the start, as shown to users.
    pub fn line(&self) -> u32 {
        self.start.line + 1
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.start.line + 1, self.start.col + 1)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    Java,
    C,
}

impl Lang {
    /// Whether a syntax error of the language's tree-sitter grammar is one
    /// its compiler reports too: true for Java; not for C, whose grammar
    /// reads the text before preprocessing (a calling-convention macro in a
    /// declarator makes valid code an error there).
    pub fn grammar_errors_are_compile_errors(self) -> bool {
        match self {
            Lang::Java => true,
            Lang::C => false,
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lang::Java => "java",
            Lang::C => "c",
        })
    }
}

/// The two meanings a program can be given; every verdict names one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Semantics {
    /// Integers are mathematical integers, floating-point numbers are reals
    /// (the convention of ARDiff and of the EqBench labels).
    #[default]
    Math,
    /// Java: two's-complement 8/16/32/64-bit, IEEE-754 binary32/64.
    /// C: LP64 x86-64 sizes, IEEE-754; signed overflow as
    /// [`SignedOverflow`] says.
    Machine,
}

/// What signed integer overflow does in C under `machine` semantics (Java
/// always wraps; under `math` nothing overflows). A property of how the
/// project is compiled, so it is a project setting (`eqlens.toml`), not a
/// per-check choice. Deserialized from `eqlens.toml` by these names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignedOverflow {
    /// ISO C: `+ - *`, unary `-` and `++`/`--` on a signed type whose
    /// exact result does not fit are undefined behaviour, an outcome of
    /// their own (C11 6.5p5).
    #[default]
    Undefined,
    /// Two's-complement wrap-around, as GCC and Clang give with `-fwrapv`.
    Wraps,
}

impl fmt::Display for SignedOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SignedOverflow::Undefined => "undefined",
            SignedOverflow::Wraps => "wraps",
        })
    }
}

impl fmt::Display for Semantics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Semantics::Math => "math",
            Semantics::Machine => "machine",
        })
    }
}

/// An integer type: width, signedness, and whether values print as characters
/// (Java `char`; C `char` prints as a number unless formatted with `%c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct IntTy {
    pub bits: u8,
    pub signed: bool,
    pub is_char: bool,
}

impl IntTy {
    pub const I8: IntTy = IntTy {
        bits: 8,
        signed: true,
        is_char: false,
    };
    pub const I16: IntTy = IntTy {
        bits: 16,
        signed: true,
        is_char: false,
    };
    pub const I32: IntTy = IntTy {
        bits: 32,
        signed: true,
        is_char: false,
    };
    pub const I64: IntTy = IntTy {
        bits: 64,
        signed: true,
        is_char: false,
    };
    pub const U8: IntTy = IntTy {
        bits: 8,
        signed: false,
        is_char: false,
    };
    pub const U16: IntTy = IntTy {
        bits: 16,
        signed: false,
        is_char: false,
    };
    pub const U32: IntTy = IntTy {
        bits: 32,
        signed: false,
        is_char: false,
    };
    pub const U64: IntTy = IntTy {
        bits: 64,
        signed: false,
        is_char: false,
    };
    /// Java `char`: unsigned 16-bit, prints as a character.
    pub const JAVA_CHAR: IntTy = IntTy {
        bits: 16,
        signed: false,
        is_char: true,
    };
    /// C `char` (signed on x86-64).
    pub const C_CHAR: IntTy = IntTy {
        bits: 8,
        signed: true,
        is_char: true,
    };
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum FloatTy {
    F32,
    F64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Type {
    Void,
    Bool,
    Int(IntTy),
    Float(FloatTy),
    /// A reference to an array (Java arrays; C arrays and array parameters).
    Array(Box<Type>),
    /// Only for string literals that are printed.
    Str,
}

impl Type {
    pub const INT: Type = Type::Int(IntTy::I32);
    pub const LONG: Type = Type::Int(IntTy::I64);
    pub const DOUBLE: Type = Type::Float(FloatTy::F64);

    pub fn is_numeric(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Float(_))
    }
    pub fn elem(&self) -> Option<&Type> {
        match self {
            Type::Array(t) => Some(t),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Bool => f.write_str("boolean"),
            Type::Int(t) if t.is_char => f.write_str("char"),
            Type::Int(t) => write!(f, "{}{}", if t.signed { "i" } else { "u" }, t.bits),
            Type::Float(FloatTy::F32) => f.write_str("float"),
            Type::Float(FloatTy::F64) => f.write_str("double"),
            Type::Array(t) => write!(f, "{t}[]"),
            Type::Str => f.write_str("string"),
        }
    }
}

/// Index of a local (parameter, variable or front-end temporary) in
/// [`Function::locals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LocalId(pub u32);

/// Index of a global (Java field, C global variable) in [`Program::globals`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct GlobalId(pub u32);

/// Index of a function in [`Program::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FuncId(pub u32);

/// A loop or breakable block, the target of `break`/`continue`; unique within
/// a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct LabelId(pub u32);

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

/// A floating-point literal. The source text is kept because under
/// [`Semantics::Math`] `0.1` means exactly 1/10, not the nearest double.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FloatLit {
    pub value: f64,
    /// Decimal text without suffix (`1e-3`, `0.5`); empty when synthesised.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ExprKind {
    /// An integer (or character) literal, already in range of `ty`.
    IntLit(i128),
    FloatLit(FloatLit),
    BoolLit(bool),
    /// Only as an argument of [`StmtKind::Print`].
    StrLit(String),
    Local(LocalId),
    Global(GlobalId),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`, lazy.
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Conversion to `self.ty`: int↔int (widen/narrow), int↔float (float→int
    /// truncates toward zero), float↔float, bool→int (C), int→bool is never a
    /// cast (the front end writes `x != 0`).
    Cast(Box<Expr>),
    /// Array element read. Faults when the index is out of bounds.
    Index(Box<Expr>, Box<Expr>),
    /// Length of an array (Java `a.length`; C arrays of known size).
    /// Faults when the array is `null`.
    Length(Box<Expr>),
    /// Java `a == null` on an array (`Bool`). Only array *inputs* can be
    /// null: the front end refuses `null` anywhere else, so an array
    /// variable is null exactly when it holds a parameter passed as `null`
    /// (`crate::symbolic::InputSpace::nullable_arrays`).
    IsNull(Box<Expr>),
    /// A fresh array of the given length, zero-filled. Faults on a negative
    /// length. Each evaluation allocates a new array.
    NewArray(Box<Expr>),
    /// A fresh array with these elements (`{1, 2, 3}`).
    ArrayLit(Vec<Expr>),
    Intrinsic(Intrinsic, Vec<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    /// Arithmetic negation.
    Neg,
    /// Bitwise complement (integers).
    BitNot,
    /// Logical not (Bool).
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Integer: truncates toward zero, faults on zero divisor.
    /// Float: IEEE under machine, exact under math (zero divisor faults
    /// under math only, as ℝ has no infinity).
    Div,
    /// Integer: sign follows the dividend (Java/C `%`), faults on zero.
    /// Float: `fmod`-style remainder (Java `%` on doubles).
    Rem,
    /// On integers bitwise; on Bool eager logical (Java `&`, `|`, `^`).
    BitAnd,
    BitOr,
    BitXor,
    /// Shifts. Java masks the count (`& 31` / `& 63`); C shifts by an
    /// out-of-range count are undefined.
    Shl,
    /// Arithmetic for signed left operands, logical for unsigned ones.
    Shr,
    /// Java `>>>`: logical shift right.
    UShr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Lazy `&&` and `||` on Bool.
    And,
    Or,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    /// The operator as Java and C write it.
    pub fn token(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::UShr => ">>>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// Library functions with a fixed meaning (`Math.*`, `math.h`, `stdlib.h`).
/// Argument and result types are in the [`Expr`]; the front end converts
/// arguments (e.g. `Math.sqrt(int)` gets a cast to double).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Intrinsic {
    /// Exact, on ints or floats (Java `Math.abs`, C `abs`/`labs`/`fabs`).
    Abs,
    /// Exact, on ints or floats.
    Min,
    Max,
    /// Exact: floating → floating with an integral value.
    Floor,
    Ceil,
    /// `Math.round`: floor(x + 1/2), result long (int for float args).
    Round,
    /// C `round`: the nearest integer, halves away from zero (a floating
    /// value).
    RoundHalfAway,
    /// Below: no exact model; uninterpreted functions in the symbolic
    /// encoding (machine semantics: `Sqrt` is exact IEEE), `f64` in the
    /// interpreter (results flagged inexact under math semantics).
    Sqrt,
    Cbrt,
    Pow,
    Exp,
    Log,
    Log10,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Hypot,
    /// `Math.getExponent(double)`: unbiased exponent, int. Exact under
    /// `machine` (from the IEEE bits); uninterpreted under `math`.
    GetExponent,
    /// Java `Double.compare`/`Float.compare`: -1, 0 or 1; under `machine`
    /// -0.0 is below +0.0 and NaN above everything and equal to itself.
    Compare,
    /// `StrictMath.copySign(magnitude, sign)`: a NaN sign counts as
    /// positive (Java's `Math.copySign` leaves that case open, and the
    /// front end keeps it a call outside the files).
    CopySign,
    /// `Double.doubleToLongBits`/`Float.floatToIntBits`: the IEEE bits, a
    /// NaN as the canonical one (`0x7ff8000000000000L`, `0x7fc00000`).
    /// Exact under `machine`; uninterpreted under `math`, where a real
    /// has no bits.
    FloatBits,
    /// `Double.longBitsToDouble`/`Float.intBitsToFloat`: the value of the
    /// bits (every NaN pattern is NaN). Exact under `machine`.
    BitsToFloat,
    /// C `frexp(x, &e)`: the mantissa `m` with `x = m · 2^e`, `0.5 <= |m| <
    /// 1` (zero, infinities and NaN as they are); the exponent is
    /// [`Intrinsic::FrexpExponent`] of the same argument, stored by the
    /// front end. Uninterpreted in the symbolic encoding.
    Frexp,
    /// The exponent `frexp` stores through its pointer (0 for zero,
    /// infinities and NaN, as glibc does), an `int`.
    FrexpExponent,
}

impl Intrinsic {
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic::Abs => "abs",
            Intrinsic::Min => "min",
            Intrinsic::Max => "max",
            Intrinsic::Floor => "floor",
            Intrinsic::Ceil => "ceil",
            Intrinsic::Round => "round",
            Intrinsic::RoundHalfAway => "round half away",
            Intrinsic::Sqrt => "sqrt",
            Intrinsic::Cbrt => "cbrt",
            Intrinsic::Pow => "pow",
            Intrinsic::Exp => "exp",
            Intrinsic::Log => "log",
            Intrinsic::Log10 => "log10",
            Intrinsic::Sin => "sin",
            Intrinsic::Cos => "cos",
            Intrinsic::Tan => "tan",
            Intrinsic::Asin => "asin",
            Intrinsic::Acos => "acos",
            Intrinsic::Atan => "atan",
            Intrinsic::Atan2 => "atan2",
            Intrinsic::Sinh => "sinh",
            Intrinsic::Cosh => "cosh",
            Intrinsic::Tanh => "tanh",
            Intrinsic::Hypot => "hypot",
            Intrinsic::GetExponent => "getExponent",
            Intrinsic::Frexp => "frexp",
            Intrinsic::FrexpExponent => "frexp exponent",
            Intrinsic::Compare => "compare",
            Intrinsic::CopySign => "copySign",
            Intrinsic::FloatBits => "floatBits",
            Intrinsic::BitsToFloat => "bitsToFloat",
        }
    }
}

/// Something that can be assigned to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Place {
    Local(LocalId),
    Global(GlobalId),
    /// `array[index] = ...`; `array` evaluates to an array reference.
    Index {
        array: Box<Expr>,
        index: Box<Expr>,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

pub type Block = Vec<Stmt>;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum LoopKind {
    /// `while`/`for`: `cond` is tested before each iteration.
    While,
    /// `do … while`: `cond` is tested after each iteration.
    DoWhile,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum PrintKind {
    /// Java `System.out.print`/`println`: the arguments are the flattened
    /// operands of a string concatenation, printed one after another.
    Java { newline: bool },
    /// C `printf(format, args...)`.
    Printf { format: String },
    /// C `puts(s)` / `putchar(c)` style: arguments printed, then a newline
    /// when `newline`.
    C { newline: bool },
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum StmtKind {
    /// `place = value`. The value's type equals the place's type.
    Assign {
        place: Place,
        value: Expr,
    },
    /// A call to a function of the same program; the result (if used) is
    /// stored in `dest`. Arguments are already converted to parameter types.
    Call {
        dest: Option<Place>,
        func: FuncId,
        args: Vec<Expr>,
    },
    /// A call to a method or function outside the files being compared
    /// (another class, a library): `callee` as written (`Objects.hash`).
    /// Modelled as a pure function of its arguments shared by both
    /// versions, which returns or throws the same way for equal arguments
    /// (an assumption every verdict names). `dest`'s type is the result's.
    External {
        dest: Option<Place>,
        callee: String,
        args: Vec<Expr>,
        ret: Type,
    },
    /// Output that is part of observable behaviour.
    Print {
        kind: PrintKind,
        args: Vec<Expr>,
    },
    If {
        cond: Expr,
        then_branch: Block,
        else_branch: Block,
    },
    /// A loop. `continue` runs `step` then re-tests `cond`; `break` leaves.
    Loop {
        label: LabelId,
        kind: LoopKind,
        cond: Expr,
        body: Block,
        step: Block,
    },
    /// A block that `break label` can leave (switch statements, labeled
    /// statements).
    Labeled {
        label: LabelId,
        body: Block,
    },
    Break(LabelId),
    Continue(LabelId),
    Return(Option<Expr>),
    Block(Block),
    /// The execution ends abnormally with this outcome (Java `throw`, C
    /// `abort()`/`exit(n)`/a failed `assert`); compared between versions
    /// like a return value.
    Throw(Thrown),
    /// Java `try { body } catch (C1 | C2 e) { ... } finally { ... }`: an
    /// exception raised in `body` (directly or in a callee) whose class is
    /// caught by a clause runs that clause; `finally` runs on every way out
    /// of `body` and the clauses (normal end, return, break, exception).
    Try {
        body: Block,
        catches: Vec<Catch>,
        finally: Block,
    },
}

/// One `catch` clause: the classes it names (simple names) and its body.
/// The caught exception object itself is not modelled (using it is
/// unsupported).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Catch {
    pub classes: Vec<String>,
    pub body: Block,
}

/// An abnormal end a program asks for itself. Implicit ones (division by
/// zero, index out of bounds) are faults of the operation instead; Java's
/// implicit exceptions compare equal to the explicit throw of their class
/// (see [`Thrown::JAVA_IMPLICIT`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Thrown {
    /// Java `throw new C(...)`: the simple class name (`IllegalStateException`;
    /// a package qualifier is dropped). The message is not compared.
    Exception(String),
    /// C `abort()`.
    Abort,
    /// C `exit(status)`, the status as the parent process sees it (0–255).
    Exit(u8),
    /// C `assert(cond)` with `cond` false (`NDEBUG` is not defined): the
    /// same outcome as `abort()`, after a message on stderr.
    AssertFailed,
    /// C undefined behaviour the front end makes explicit (`__builtin_clz(0)`),
    /// what it is: the same outcome as the undefined behaviour of an
    /// operation ([`crate::interp::FaultKind::Undefined`]).
    Undefined(String),
}

impl Thrown {
    /// The Java classes of the implicit exceptions, in the order of the
    /// fault codes of the symbolic encoding.
    pub const JAVA_IMPLICIT: [&'static str; 3] = [
        "ArithmeticException",
        "ArrayIndexOutOfBoundsException",
        "NegativeArraySizeException",
    ];
    /// The class of the implicit fault of using a `null` array (its
    /// outcome code follows C's undefined behaviour, after the others).
    pub const JAVA_NULL_POINTER: &'static str = "NullPointerException";

    /// `throws IllegalStateException`, `calls abort()`, `exits with status 1`.
    pub fn describe(&self) -> String {
        match self {
            Thrown::Exception(c) => format!("throws {c}"),
            Thrown::Abort => "calls abort()".into(),
            Thrown::Exit(n) => format!("exits with status {n}"),
            Thrown::AssertFailed => "fails an assertion (abort)".into(),
            Thrown::Undefined(what) => format!("undefined behaviour: {what}"),
        }
    }

    /// A stable key: equal keys are equal outcomes.
    pub fn key(&self) -> String {
        match self {
            Thrown::Exception(c) => format!("exception {c}"),
            Thrown::Abort => "abort".into(),
            Thrown::Exit(n) => format!("exit {n}"),
            // A failed assertion prints to stderr (not compared) and aborts.
            Thrown::AssertFailed => "abort".into(),
            Thrown::Undefined(_) => "undefined behaviour".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum LocalKind {
    Param,
    Var,
    /// Introduced by the front end (lifted call results, spilled operands).
    Temp,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Local {
    pub name: String,
    pub ty: Type,
    pub kind: LocalKind,
    pub span: Span,
    /// A Java `String`: a `char` array (`ty`) that no code writes, shown
    /// to the user as text.
    pub text: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Function {
    pub name: String,
    /// The parameters, in order, as indices into `locals`.
    pub params: Vec<LocalId>,
    pub locals: Vec<Local>,
    pub ret: Type,
    pub body: Block,
    /// The whole declaration.
    pub span: Span,
    /// The name token, where editors put lenses and hovers.
    pub name_span: Span,
}

impl Function {
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

/// Why a function could not be lowered: the first offending construct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LowerError {
    pub kind: LowerErrorKind,
    /// What it is, in the user's terms: `try statement`, `call to unknown
    /// method foo`, `syntax error`.
    pub what: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LowerErrorKind {
    Unsupported,
    SyntaxError,
    /// Code its language's compiler rejects for its types (Java `"a" - 1`).
    TypeError,
    /// A function defined twice (C: the same name; Java: the same name and
    /// parameter types in one class): no version of the file is the
    /// program, so neither definition is checked or called.
    Redefinition,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            LowerErrorKind::Unsupported => "unsupported",
            LowerErrorKind::SyntaxError => "syntax error",
            LowerErrorKind::TypeError => "type error",
            LowerErrorKind::Redefinition => "redefinition",
        };
        if self.kind == LowerErrorKind::SyntaxError && self.what == "syntax error" {
            write!(f, "{kind} at {}", self.span)
        } else if self.kind == LowerErrorKind::Redefinition {
            write!(f, "{kind} {} at {}", self.what, self.span)
        } else {
            write!(f, "{kind}: {} at {}", self.what, self.span)
        }
    }
}

/// One function of a program as the front end found it: always present with
/// its name and signature, with a body if it could be lowered.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionDef {
    pub name: String,
    /// Number of parameters: methods are paired by name and arity.
    pub arity: usize,
    pub span: Span,
    pub name_span: Span,
    pub body: Result<Function, LowerError>,
    /// Made by the front end, not written by the user (a copy of a Java
    /// instance method that takes its object's fields as parameters):
    /// callable, but never paired, listed or checked on its own.
    pub synthetic: bool,
    /// The parameter types as written, without whitespace (Java): what
    /// tells apart overloads of the same name and arity when pairing.
    pub param_types: Vec<String>,
    /// The classes it is declared in, outermost first (Java: `["A", "B"]`
    /// for a method of the nested class `A.B`); empty for C functions.
    /// With the name and the parameter types it identifies the function in
    /// its file.
    pub owner: Vec<String>,
}

impl FunctionDef {
    /// `A.B.f` for a method of the class `A.B`, `f` for a C function.
    pub fn qualified_name(&self) -> String {
        let mut parts = self.owner.clone();
        parts.push(self.name.clone());
        parts.join(".")
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Global {
    pub name: String,
    pub ty: Type,
    /// Java `static final` / C `const` with a constant initialiser: a value,
    /// not an input.
    pub constant: Option<Expr>,
    /// Set (to the function's name) for a slot through which a function
    /// returns one field of a struct: the IR has scalar values only, so the
    /// front end lowers `return s;` to writes of the slots and the call to a
    /// read of them right after it. A slot is not an input (it starts at
    /// zero) and is an output only of the method its function is: another
    /// function's slots are scratch space.
    pub return_of: Option<String>,
    /// Set (to the field's name) for a global holding one field of the
    /// object a Java static field refers to (`cs.real` for `static Complex
    /// cs`, see `lang/java/objects.rs`). Its entry value is an input like
    /// any global's; a proof that reads it assumes the reference was not
    /// `null`.
    pub static_object: Option<String>,
    /// A value fixed before any method runs (a Java `static final` field, a
    /// C `const` global) that eqlens does not compute: its initialiser, or
    /// the static block that sets it, is not evaluated. A proof treats it
    /// as an input like any global's entry value (it then holds for every
    /// value, the real one among them); a replay that reads it records it
    /// as unanalysed, so no counterexample rests on a value the field may
    /// never hold.
    pub uncomputed: bool,
    /// The code that gives the global its initial value — its initialiser
    /// and the statements of static initialisers that mention it — as
    /// tokens, with the global's own name replaced by `@` (see
    /// `lang::origin_tokens`); `None` when it has no such code.
    /// Two globals with equal origins are set up by the same code: the
    /// evidence a renamed field is matched across versions by.
    pub origin: Option<String>,
    /// The value a global that is not a constant holds before any function
    /// runs (a Java static field's initialiser as its class's static blocks
    /// leave it, a C global's initialiser or zero), when the front end
    /// computes it as it computes constants. Whether a method may rely on
    /// it — no code writes the global after initialisation — is decided
    /// per pair (`check::state`).
    pub initial: Option<Expr>,
    /// A C array's length, fixed by its declaration (`int t[8]`, `int t[]
    /// = {1, 2}`): its entry value, when an input, has exactly this many
    /// elements.
    pub declared_len: Option<u64>,
    /// Only code of the file can write the global: a Java `private` field,
    /// a C `static` global.
    pub file_local: bool,
    pub span: Span,
}

impl Global {
    /// Whether the final value of this global is something the caller of
    /// `entry` observes (every non-constant global except other functions'
    /// return slots).
    pub fn observable_from(&self, entry: &str) -> bool {
        self.constant.is_none() && self.return_of.as_deref().is_none_or(|f| f == entry)
    }

    /// Whether the global's entry value is an input of the method.
    pub fn is_input(&self) -> bool {
        self.constant.is_none() && self.return_of.is_none()
    }
}

/// A lowered source file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Program {
    pub lang: Lang,
    pub functions: Vec<FunctionDef>,
    pub globals: Vec<Global>,
    /// Java classes of the file declared with `extends`: (class,
    /// superclass), simple names. They extend the JDK hierarchy
    /// the Java front end knows (user exception classes).
    pub class_parents: Vec<(String, String)>,
    /// Syntax errors outside every function (a stray `}` between two
    /// methods): the file does not compile, whatever its functions do.
    /// Errors inside a function are that function's [`LowerError`].
    pub syntax_errors: Vec<LowerError>,
    /// Facts derived from the functions, computed on first use.
    #[serde(skip)]
    pub cache: ProgramCache,
}

/// What [`Program`] derives from its functions on first use, so that a
/// question about the whole file costs its walk once, not once per method
/// checked: function ids by name ([`Program::find`]), and whether some
/// function tests an array against `null` ([`Program::tests_null`]). Each
/// records how many functions it was computed for, and a program that has
/// gained functions since is answered without it. It takes no part in
/// comparing or cloning programs (a clone computes its own).
#[derive(Default)]
pub struct ProgramCache {
    by_name: std::sync::OnceLock<(usize, FxHashMap<String, Vec<FuncId>>)>,
    tests_null: std::sync::OnceLock<(usize, bool)>,
}

impl Clone for ProgramCache {
    fn clone(&self) -> Self {
        ProgramCache::default()
    }
}

impl PartialEq for ProgramCache {
    fn eq(&self, _: &ProgramCache) -> bool {
        true
    }
}

impl fmt::Debug for ProgramCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ProgramCache")
    }
}

impl Program {
    pub fn function(&self, id: FuncId) -> &FunctionDef {
        &self.functions[id.0 as usize]
    }
    pub fn global(&self, id: GlobalId) -> &Global {
        &self.globals[id.0 as usize]
    }
    /// Functions with this name (several when overloaded).
    pub fn find(&self, name: &str) -> impl Iterator<Item = (FuncId, &FunctionDef)> {
        let (built_for, index) = self.cache.by_name.get_or_init(|| {
            let mut m: FxHashMap<String, Vec<FuncId>> = FxHashMap::default();
            for (i, f) in self.functions.iter().enumerate() {
                m.entry(f.name.clone()).or_default().push(FuncId(i as u32));
            }
            (self.functions.len(), m)
        });
        let ids: Vec<FuncId> = if *built_for == self.functions.len() {
            index.get(name).cloned().unwrap_or_default()
        } else {
            (0..self.functions.len() as u32)
                .map(FuncId)
                .filter(|&i| self.function(i).name == name)
                .collect()
        };
        ids.into_iter()
            .filter_map(|i| self.functions.get(i.0 as usize).map(|f| (i, f)))
            .filter(move |(_, f)| f.name == name)
    }
    /// Whether some function's body tests an array against `null`.
    pub fn tests_null(&self) -> bool {
        let walk = || {
            self.functions.iter().any(|f| {
                f.body.as_ref().is_ok_and(|f| {
                    any_stmt(&f.body, &mut |s| {
                        s.exprs().iter().any(|e| {
                            let mut found = false;
                            e.walk(&mut |x| found |= matches!(x.kind, ExprKind::IsNull(_)));
                            found
                        })
                    })
                })
            })
        };
        match self
            .cache
            .tests_null
            .get_or_init(|| (self.functions.len(), walk()))
        {
            &(built_for, found) if built_for == self.functions.len() => found,
            _ => walk(),
        }
    }
    pub fn find_global(&self, name: &str) -> Option<GlobalId> {
        self.globals
            .iter()
            .position(|g| g.name == name)
            .map(|i| GlobalId(i as u32))
    }
}
