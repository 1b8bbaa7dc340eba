//! The concrete IR interpreter: runs one function of a [`Program`] on concrete
//! inputs under either [`Semantics`], recording its outcome, final state,
//! printed output and the lines it executed.
//!
//! It is the ground truth that counterexamples are replayed on: its meaning
//! of every IR construct must be exactly the symbolic encoder's
//! (`crate::symbolic`). Both follow `docs/semantics.md`.
//!
//! Invariant: never panics on any IR the front ends produce and any inputs;
//! resource exhaustion (steps, call depth, huge arrays) is an
//! [`Outcome::Limit`], not a crash.

use crate::ir::{FuncId, Lang, Program, Semantics, SignedOverflow, Span, Thrown, Type};
use crate::value::Value;
use std::collections::BTreeMap;

mod compare;
mod eval;
mod ops;
mod render;
#[cfg(test)]
mod tests;

pub use crate::value::fmt_f32;

/// Why evaluation stopped early (propagated with `?` up to the entry call).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Stop {
    Fault(FaultKind, Span),
    Limit(LimitKind),
}

/// The inputs of one execution: argument values (arrays as contents) and the
/// entry values of globals, by name. Globals not listed start at zero/false
/// (constants always have their declared value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inputs {
    pub args: Vec<Value>,
    pub globals: BTreeMap<String, Value>,
    /// What calls outside the files do, for replaying a counterexample
    /// found with them uninterpreted (empty: such a call ends the run
    /// inconclusively, see [`Execution::unseen_call`]).
    pub callees: Vec<CalleeStub>,
}

/// An argument of a call outside the files: a value with its type, or a
/// string literal.
#[derive(Clone, Debug, PartialEq)]
pub enum CalleeArg {
    Value(Value, Type),
    Text(String),
}

impl std::fmt::Display for CalleeArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CalleeArg::Value(v, _) => write!(f, "{v}"),
            CalleeArg::Text(t) => write!(f, "{t:?}"),
        }
    }
}

/// A call outside the files: who, on what, with which result type.
#[derive(Clone, Debug, PartialEq)]
pub struct UnseenCall {
    pub callee: String,
    pub args: Vec<CalleeArg>,
    pub ret: Type,
}

impl std::fmt::Display for UnseenCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let args: Vec<String> = self.args.iter().map(|a| a.to_string()).collect();
        write!(f, "{}({})", self.callee, args.join(", "))
    }
}

/// What a call outside the files does on given arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct CalleeStub {
    pub call: UnseenCall,
    pub result: CalleeResult,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CalleeResult {
    Returns(Value),
    /// Throws (ends the run); equal numbers are the same exception.
    Throws(i64),
}

impl std::fmt::Display for CalleeStub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.result {
            CalleeResult::Returns(Value::Void) => write!(f, "{} returns", self.call),
            CalleeResult::Returns(v) => write!(f, "{} returns {v}", self.call),
            CalleeResult::Throws(n) => write!(f, "{} throws exception #{n}", self.call),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Limits {
    /// Statements executed before giving up.
    pub max_steps: u64,
    pub max_call_depth: u32,
    /// Largest array the interpreter will allocate.
    pub max_array_len: usize,
    /// Wall-clock time after which the run stops ([`LimitKind::Steps`]).
    pub deadline: Option<std::time::Instant>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 1_000_000,
            max_call_depth: 64,
            max_array_len: 1 << 20,
            deadline: None,
        }
    }
}

/// Why an execution ended abnormally.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    /// Integer division or remainder by zero (Java `ArithmeticException`; C
    /// undefined behaviour), or real division by zero under math semantics.
    DivisionByZero,
    /// Array index outside `[0, length)` (Java
    /// `ArrayIndexOutOfBoundsException`; C undefined behaviour).
    IndexOutOfBounds { index: Value, length: usize },
    /// Java `NegativeArraySizeException`.
    NegativeArraySize,
    /// A `null` array input used (Java `NullPointerException`; C
    /// undefined behaviour).
    NullPointer,
    /// Other C undefined behaviour under machine semantics (shift count out
    /// of range, float-to-int conversion out of range, `INT_MIN / -1`).
    Undefined(String),
    /// What the program throws itself (`throw`, `abort()`, `exit(n)`, a
    /// failed `assert`).
    Thrown(Thrown),
    /// An exception of a method outside the files (a replay stub): `which`
    /// identifies it (equal numbers, same exception).
    Unseen { callee: String, which: i64 },
}

impl FaultKind {
    /// Equal keys are the same observable outcome: a Java implicit fault
    /// is the exception of its class, so `x / 0` and `throw new
    /// ArithmeticException()` agree (the index, message or span do not
    /// count); in C every undefined behaviour is one outcome, whichever
    /// operation had it. Mirrors the outcome codes of the symbolic
    /// encoding.
    pub fn outcome_key(&self, lang: Lang) -> String {
        let implicit = |i: usize| Thrown::Exception(Thrown::JAVA_IMPLICIT[i].into()).key();
        if self.is_undefined(lang) {
            return "undefined behaviour".into();
        }
        match self {
            FaultKind::DivisionByZero => implicit(0),
            FaultKind::IndexOutOfBounds { .. } => implicit(1),
            FaultKind::NegativeArraySize => implicit(2),
            FaultKind::NullPointer => Thrown::Exception(Thrown::JAVA_NULL_POINTER.into()).key(),
            FaultKind::Undefined(_) => "undefined behaviour".into(),
            FaultKind::Thrown(t) => t.key(),
            FaultKind::Unseen { which, .. } => format!("unseen exception {which}"),
        }
    }

    /// Whether this is undefined behaviour in `lang`: in C, every implicit
    /// fault (division by zero, an index out of range, a `NULL` array) and
    /// every other undefined operation; in Java, nothing.
    pub fn is_undefined(&self, lang: Lang) -> bool {
        match self {
            FaultKind::DivisionByZero
            | FaultKind::IndexOutOfBounds { .. }
            | FaultKind::NegativeArraySize
            | FaultKind::NullPointer => lang == Lang::C,
            FaultKind::Undefined(_) | FaultKind::Thrown(Thrown::Undefined(_)) => true,
            FaultKind::Thrown(_) | FaultKind::Unseen { .. } => false,
        }
    }

    /// The Java class of the exception this is, if it is one.
    pub fn java_class(&self) -> Option<String> {
        match self {
            FaultKind::DivisionByZero => Some(Thrown::JAVA_IMPLICIT[0].into()),
            FaultKind::IndexOutOfBounds { .. } => Some(Thrown::JAVA_IMPLICIT[1].into()),
            FaultKind::NegativeArraySize => Some(Thrown::JAVA_IMPLICIT[2].into()),
            FaultKind::NullPointer => Some(Thrown::JAVA_NULL_POINTER.into()),
            FaultKind::Thrown(Thrown::Exception(c)) => Some(c.clone()),
            FaultKind::Undefined(_) | FaultKind::Thrown(_) | FaultKind::Unseen { .. } => None,
        }
    }

    /// How a user reads it, in the terms of `lang`: `throws
    /// ArithmeticException (division by zero)` in Java, `undefined
    /// behaviour: division by zero` in C.
    pub fn describe(&self, lang: Lang) -> String {
        let what = match self {
            FaultKind::Thrown(t) => return t.describe(),
            FaultKind::Unseen { callee, which } => {
                return match lang {
                    Lang::Java => format!("throws what {callee} throws (exception #{which})"),
                    Lang::C => format!("ends the run inside {callee} (outcome #{which})"),
                };
            }
            FaultKind::DivisionByZero => "division by zero".to_string(),
            FaultKind::IndexOutOfBounds { index, length } => {
                format!("index {index} out of bounds for length {length}")
            }
            FaultKind::NegativeArraySize => "negative array size".to_string(),
            FaultKind::NullPointer => "use of a null array".to_string(),
            FaultKind::Undefined(what) => return format!("undefined behaviour: {what}"),
        };
        match (lang, self) {
            (Lang::Java, FaultKind::DivisionByZero) => {
                format!("throws {} ({what})", Thrown::JAVA_IMPLICIT[0])
            }
            (Lang::Java, FaultKind::IndexOutOfBounds { .. }) => {
                format!("throws {} ({what})", Thrown::JAVA_IMPLICIT[1])
            }
            (Lang::Java, FaultKind::NegativeArraySize) => {
                format!("throws {}", Thrown::JAVA_IMPLICIT[2])
            }
            (Lang::Java, FaultKind::NullPointer) => {
                format!("throws {} ({what})", Thrown::JAVA_NULL_POINTER)
            }
            _ => format!("undefined behaviour: {what}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum LimitKind {
    Steps,
    CallDepth,
    ArrayTooLarge,
    /// Under math semantics, a product of unbounded integers too large to
    /// compute within a step: one multiplication of numbers of millions
    /// of bits runs for seconds and heeds no deadline.
    IntegerTooLarge,
    /// Under math semantics, a decision (a branch, a division by a value
    /// that may be zero, an integer taken from a real) hinged on an
    /// approximate value whose interval does not decide it.
    Approximation,
    /// An exception met a `catch` clause whose relation to its class is
    /// unknown (a class outside the JDK hierarchy we know).
    UnknownCatch,
    /// A method or function outside the files being compared was called:
    /// its behaviour is not known concretely.
    UnseenCall,
    /// The run reached a part of the program eqlens could not analyse (a
    /// function of the file that did not lower, an operation the
    /// interpreter has no meaning for), named here. A gap of eqlens, never a
    /// behaviour of the program: no outcome, fault or value stands for it.
    Unanalysed(String),
}

impl LimitKind {
    pub fn describe(&self) -> String {
        let text = match self {
            LimitKind::Steps => "did not finish within the step limit",
            LimitKind::CallDepth => "exceeded the call depth limit",
            LimitKind::ArrayTooLarge => "allocated an array too large to run",
            LimitKind::IntegerTooLarge => "computed an integer too large to run",
            LimitKind::Approximation => {
                "reached a decision that values known only within approximation error do not settle"
            }
            LimitKind::UnknownCatch => {
                "threw an exception whose catch clause is unknown (class hierarchy)"
            }
            LimitKind::UnseenCall => {
                "called a method outside the file (its behaviour is not known)"
            }
            LimitKind::Unanalysed(what) => return format!("reached {what}"),
        };
        text.into()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Normal completion with the returned value ([`Value::Void`] for void).
    Return(Value),
    Fault {
        kind: FaultKind,
        span: Span,
        /// The program's language: it names the fault (Java exceptions, C
        /// undefined behaviour).
        lang: Lang,
    },
    /// The interpreter gave up; nothing may be concluded from this run.
    Limit(LimitKind),
}

impl Outcome {
    /// Whether the run ended in undefined behaviour (C only).
    pub fn is_undefined(&self) -> bool {
        matches!(self, Outcome::Fault { kind, lang, .. } if kind.is_undefined(*lang))
    }

    /// As shown in a difference: `returns 3`, `undefined behaviour: signed
    /// integer overflow` (no span: spans differ between versions without
    /// meaning anything).
    pub fn describe(&self) -> String {
        match self {
            Outcome::Return(Value::Void) => "returns".into(),
            Outcome::Return(v) => format!("returns {v}"),
            Outcome::Fault { kind, lang, .. } => kind.describe(*lang),
            Outcome::Limit(l) => l.describe(),
        }
    }
}

/// One item of printed output, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Printed {
    Text(String),
    /// Text rendered from approximate reals (`printf("%f", sin(x))` under
    /// math): its digits are those of a representative of each interval.
    ApproxText(String),
    /// A printed value with its static type (decides how it is rendered).
    Value(Value, Type),
    Newline,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    pub outcome: Outcome,
    /// Final values of the arguments (arrays may have been written).
    pub args_final: Vec<Value>,
    /// Final values of every global the program declares, by name.
    pub globals_final: BTreeMap<String, Value>,
    /// The entry values the run was given for globals, by name (also for
    /// globals only the other version declares: such a global keeps its
    /// entry value in this version, as in the symbolic encoding).
    pub globals_entry: BTreeMap<String, Value>,
    pub printed: Vec<Printed>,
    /// `printed` rendered as the program would print it.
    pub output_text: String,
    /// One-based source lines of the executed statements, in order,
    /// consecutive repeats collapsed.
    pub trace: Vec<u32>,
    /// Some value that influenced the result was approximated (math
    /// semantics: results of `sin`, `exp`, ...).
    pub inexact: bool,
    /// Names of the entry function's parameters, in order (to name array
    /// arguments in differences).
    pub arg_names: Vec<String>,
    /// The call outside the files that had no stub, when that ended the
    /// run ([`LimitKind::UnseenCall`]).
    pub unseen_call: Option<UnseenCall>,
    /// Every part of the run that eqlens did not analyse itself: a call of a function that did not lower or an operation the
    /// interpreter cannot run (both end the run,
    /// [`LimitKind::Unanalysed`]), a call outside the files answered from
    /// a stub (what the solver's model says it does), a constant whose
    /// initial value could not be computed. A run with any is no evidence
    /// of a difference (see `check::Counterexample`).
    pub unanalysed: Vec<Unanalysed>,
}

/// A part of a run that eqlens did not analyse itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Unanalysed {
    /// Code of the files: a function that did not lower, an operation the
    /// interpreter cannot run, a constant's initial value (in words).
    Code(String),
    /// A call outside the files, answered as the solver's model says.
    Stub(CalleeStub),
}

impl std::fmt::Display for Unanalysed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unanalysed::Code(what) => f.write_str(what),
            Unanalysed::Stub(stub) => write!(f, "{stub}"),
        }
    }
}

/// How two executions compare on observable behaviour.
#[derive(Clone, Debug, PartialEq)]
pub enum Comparison {
    Same,
    /// A real difference; each string names one observable that differs,
    /// e.g. `return value: 3 vs 4`.
    Differ(Vec<String>),
    /// The results differ only within approximation error, or one side hit a
    /// limit: no conclusion.
    Inconclusive(String),
}

/// Runs `func` of `program` on `inputs`. `signed_overflow` matters only
/// for C under `machine` semantics.
pub fn execute(
    program: &Program,
    func: FuncId,
    inputs: &Inputs,
    semantics: Semantics,
    signed_overflow: SignedOverflow,
    limits: &Limits,
) -> Execution {
    eval::run(program, func, inputs, semantics, signed_overflow, limits)
}

/// Tests: the outcome of the function named `name` of `program` on `args`
/// (no globals, no callee stubs, default limits).
#[cfg(test)]
pub(crate) fn run_named(
    program: &Program,
    name: &str,
    semantics: Semantics,
    args: Vec<Value>,
) -> Outcome {
    let func = program
        .functions
        .iter()
        .position(|f| f.name == name)
        .expect("the test source defines it");
    let inputs = Inputs {
        args,
        globals: BTreeMap::new(),
        callees: Vec::new(),
    };
    execute(
        program,
        FuncId(func as u32),
        &inputs,
        semantics,
        SignedOverflow::default(),
        &Limits::default(),
    )
    .outcome
}

/// Compares two executions on: outcome (returned value, or fault kind),
/// final values of the array arguments, of the globals named in `globals`
/// (those written by either version), and the printed output.
pub fn compare(old: &Execution, new: &Execution, globals: &[String]) -> Comparison {
    compare::compare(old, new, globals)
}
