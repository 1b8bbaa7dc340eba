//! What a check concludes about a method pair, as plain data: the verdict
//! (a proof with its bound, assumptions and certificates; a replayed
//! counterexample; or why it is undecided). A leaf of the crate: the
//! checkers and the loop machinery produce these types, and nothing here
//! depends on how.

pub mod assumption;
pub(crate) mod counterexample;

use crate::interp::Outcome;
use crate::ir::LowerError;
use crate::value::Value;
pub use assumption::{Assumption, Refinement};
pub use counterexample::{Behaviour, Counterexample};
use serde::Serialize;

/// The answer for one method pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    /// Proved: no input tells the versions apart (or, when `bounded`, none
    /// that stays within the loop bound).
    Equivalent(Proof),
    /// A counterexample replayed on both versions by the interpreter.
    NotEquivalent(Box<Counterexample>),
    /// Neither proved nor refuted.
    Unknown(Unknown),
}

impl Verdict {
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Equivalent(p) if p.bounded.is_some() => "equivalent up to bound",
            Verdict::Equivalent(p) if p.partial => "equivalent where both terminate",
            Verdict::Equivalent(_) => "equivalent",
            Verdict::NotEquivalent(_) => "not equivalent",
            Verdict::Unknown(u) if u.reason.is_unsupported() => "unsupported",
            Verdict::Unknown(_) => "unknown",
        }
    }
    /// Proved without any loop bound.
    pub fn is_proved(&self) -> bool {
        matches!(self, Verdict::Equivalent(p) if p.bounded.is_none())
    }

    /// No other checker can improve on it: a full proof, a replayed
    /// counterexample, or code that no checker can read.
    pub fn is_conclusive(&self) -> bool {
        match self {
            Verdict::Equivalent(p) => p.bounded.is_none(),
            Verdict::NotEquivalent(_) => true,
            Verdict::Unknown(u) => u.reason.is_unsupported(),
        }
    }

    /// Orders verdicts by what they tell the user: conclusive, then proved
    /// up to a bound, then unknown.
    pub fn strength(&self) -> u8 {
        match self {
            v if v.is_conclusive() => 2,
            Verdict::Equivalent(_) => 1,
            _ => 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Proof {
    /// `Some(k)`: holds only for executions within `k` loop iterations /
    /// call depth `k`.
    pub bounded: Option<u32>,
    /// `Some(k)`: a proof for all inputs (`bounded` is `None`) obtained by
    /// unrolling every loop completely: on every path the entry reaches,
    /// each loop exits (and recursion returns) within `k` iterations /
    /// call depth `k`, so the unrolled encoding is the whole behaviour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrolled: Option<u32>,
    /// Assumptions the proof rests on (e.g. array parameters do not
    /// alias).
    pub assumptions: Vec<Assumption>,
    /// The certificate of a proof by the loop checker: the inductive
    /// relational invariant of each pair of loops (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<LoopInvariant>,
    /// Holds only for inputs on which both versions terminate (partial
    /// equivalence: the recursion rule does not compare termination).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// The certificate of a proof by the recursion rule: a summary of each
    /// recursive function (empty otherwise).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub summaries: Vec<FunctionSummary>,
}

impl Proof {
    /// A proof for all inputs, or up to `bounded`, with no certificate.
    pub fn new(bounded: Option<u32>, assumptions: Vec<Assumption>) -> Proof {
        Proof {
            bounded,
            unrolled: None,
            assumptions,
            invariants: Vec::new(),
            partial: false,
            summaries: Vec::new(),
        }
    }
}

/// What a recursive function computes, as Spacer found it: a formula over
/// its parameters and `result` (an over-approximation of its graph on the
/// inputs where it terminates), in SMT-LIB syntax.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionSummary {
    /// `old` or `new`: the version whose function it summarises; `both`:
    /// the product of a recursive function and its namesake (what they
    /// return on the same arguments, terminating).
    pub version: String,
    pub function: String,
    /// One-based line of its declaration.
    pub line: u32,
    pub formula: String,
}

/// The invariant relating one loop of the old version to its partner in the
/// new one, as Spacer found it: a formula over `old.x`/`new.x` (the
/// variables' values at the loop heads), in SMT-LIB syntax.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LoopInvariant {
    /// One-based lines of the two loops.
    pub old_line: u32,
    pub new_line: u32,
    /// Iterations of each loop run before the lockstep product (peeled
    /// to align loops whose iteration counts differ by one).
    pub old_peeled: u32,
    pub new_peeled: u32,
    /// How the loops were rearranged into lockstep (loop split into
    /// phases, unrolled, fission, last iteration peeled), in words; empty
    /// when they ran in step as written.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub rearranged: String,
    pub formula: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unknown {
    pub reason: UnknownReason,
    /// Human-readable detail (what timed out, which construct, where).
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UnknownReason {
    /// The method's budget (`Options::timeout_ms`) ran out in `phase`.
    Timeout { phase: Phase },
    /// The file's budget (`FileBudget`) ran out before this method was
    /// done: while the files were lowered, while this method was checked
    /// (`phase`), or before it was started (`None`).
    FileBudget { phase: Option<Phase> },
    /// The solver gave up (typically nonlinear arithmetic).
    SolverUnknown,
    /// A candidate counterexample that did not replay (uninterpreted
    /// functions, bound, approximation).
    SpuriousCounterexample,
    /// Only executions past the loop bound could differ.
    Bound,
    /// A construct the front end or the encoder does not handle.
    Unsupported { error: LowerError, in_old: bool },
    /// Anything else that went wrong inside the checker (caught, never a
    /// crash).
    Internal,
    /// The check did not stop at its budget (a solver call that ignored
    /// both its limit and the interrupt) and was abandoned.
    Unresponsive,
    /// Outside what the loop checker encodes yet (the detail names the
    /// construct); other checkers may still decide the pair.
    NotEncodable,
    /// A checker that can only prove (or only refute) did not, within its
    /// budget: normalized syntax differs, concrete tests found no
    /// difference. A schedule of checkers goes on to the next.
    Inconclusive,
}

impl UnknownReason {
    pub fn is_unsupported(&self) -> bool {
        matches!(self, UnknownReason::Unsupported { .. })
    }

    /// The reason in words, for front layers that have no detail to show.
    pub fn words(&self) -> &'static str {
        match self {
            UnknownReason::Timeout { phase } => match phase {
                Phase::Lowering => "timeout while lowering",
                Phase::Matching => "timeout while matching",
                Phase::Testing => "timeout while testing",
                Phase::Abstraction => "timeout while abstracting",
                Phase::Encoding => "timeout while encoding",
                Phase::Solving => "timeout while solving",
                Phase::Replay => "timeout while replaying",
            },
            UnknownReason::FileBudget { .. } => "the file's time budget ran out",
            UnknownReason::SolverUnknown => "the solver gave up",
            UnknownReason::SpuriousCounterexample => "a candidate counterexample did not replay",
            UnknownReason::Bound => "may differ only beyond the loop bound",
            UnknownReason::Unsupported { .. } => "unsupported",
            UnknownReason::Internal => "internal error",
            UnknownReason::Unresponsive => "the check did not stop at its budget",
            UnknownReason::NotEncodable => "outside the loop encoding",
            UnknownReason::Inconclusive => "no answer from this checker",
        }
    }
}

/// The part of a check that was running when its time ran out
/// ([`UnknownReason::Timeout`]). Each phase tests the deadline as it goes,
/// so that a check ends close to its budget whatever the size of its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Parsing and lowering the files (before any method's check starts:
    /// bounded by the file's budget).
    Lowering,
    /// Pairing the statements of the two versions, finding the unchanged
    /// functions and what each function may do.
    Matching,
    /// Running concrete inputs through the interpreter.
    Testing,
    /// Choosing the common code that is abstracted.
    Abstraction,
    /// Executing the versions symbolically into the query.
    Encoding,
    /// The solver (including the loop checker's Horn clauses).
    Solving,
    /// Running a candidate counterexample on both versions.
    Replay,
}

impl Phase {
    /// `encoding`, as in "timeout while encoding".
    pub fn name(self) -> &'static str {
        match self {
            Phase::Lowering => "lowering",
            Phase::Matching => "matching",
            Phase::Testing => "testing",
            Phase::Abstraction => "abstracting",
            Phase::Encoding => "encoding",
            Phase::Solving => "solving",
            Phase::Replay => "replaying",
        }
    }
}

/// The verdict of a method whose budget of `timeout_ms` ran out in `phase`.
pub(crate) fn timeout(phase: Phase, timeout_ms: u64) -> Verdict {
    Verdict::Unknown(Unknown {
        reason: UnknownReason::Timeout { phase },
        detail: format!("timeout while {} ({timeout_ms} ms)", phase.name()),
    })
}

/// A named input value.
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    pub name: String,
    pub value: Value,
}

impl std::fmt::Display for Binding {
    /// `name = value`. An input without a value is one neither version
    /// reads (a Java String that only builds exception messages): any.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            Value::Void => write!(f, "{} = (any)", self.name),
            v => write!(f, "{} = {v}", self.name),
        }
    }
}

/// `returns 3`, `throws ArithmeticException (division by zero) at 4:9`.
pub fn describe_outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Return(Value::Void) => "returns".into(),
        Outcome::Return(v) => format!("returns {v}"),
        Outcome::Fault { kind, span, lang } => format!("{} at {span}", kind.describe(*lang)),
        Outcome::Limit(limit) => limit.describe(),
    }
}
