//! What a proof takes for granted.
//!
//! A proof holds under its assumptions: the inputs it leaves out, the
//! executions it does not compare, what it takes callees to be. Consumers
//! tell them apart by kind; people read their wording ([`fmt::Display`]),
//! which is also how reports serialize them (a JSON string each).

use serde::{Serialize, Serializer};
use std::fmt;

/// How the wording of [`Assumption::TerminationDiffers`] begins: the
/// consumers of serialized reports (the bench) tell by it that the
/// versions were seen to differ in termination.
pub const TERMINATION_DIFFERENCE: &str = "only inputs on which both terminate: on ";

/// How the wording of a witnessed [`Assumption::RefinesUndefined`] begins:
/// the bench tells by it that a C proof is a refinement of undefined
/// behaviour the old version has.
pub const REFINEMENT_WITNESSED: &str = "where the old version is undefined, any behaviour of the \
                                        new one is allowed (refinement): the old version is \
                                        undefined for ";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Assumption {
    /// C under `machine`: the project compiles with `-fwrapv`.
    SignedOverflowWraps,
    /// These functions compared as uninterpreted functions: equal
    /// arguments give equal results.
    Uninterpreted(Vec<String>),
    /// Calls of these unchanged callees with loops compared as
    /// uninterpreted functions; runs in which such a call does not return
    /// are not compared.
    OpaqueCalls(Vec<String>),
    /// Recursion is as deep as it needs to be (no stack overflow).
    UnboundedRecursion,
    /// Common code with loops abstracted at these lines of the new version
    /// (`a` or `a-z`): executions in which it does not terminate are not
    /// compared.
    AbstractedLoopsTerminate(Vec<String>),
    /// The proof holds where both versions terminate, and testing found an
    /// input on which only one does: the input and what each version did,
    /// in words.
    TerminationDiffers(String),
    /// The loop of one version at `line` counts down over the index set
    /// the other counts up over, adding terms of the index only: it is
    /// compared run upwards.
    LoopReversed { version: &'static str, line: u32 },
    /// The method `function` of one version recurses once per call, one
    /// parameter down by one: it is compared as the loop that computes it
    /// (its base case, then each level from the bottom up).
    RecursionAsLoop {
        version: &'static str,
        function: String,
    },
    /// A field whose initialiser is evaluated in one version only has the
    /// same initial value in both.
    SameInitialValue(String),
    /// A field of the old version is the new version's field of another
    /// name (renamed: same type, and the same spelling up to case or the
    /// same initialising code): one field, with one value.
    SameField { old: String, new: String },
    /// No code outside the file writes these fields or globals (nor their
    /// elements): none in the file does after initialisation, so they hold
    /// their initial values.
    UnwrittenOutside(Vec<String>),
    /// These array inputs are not null (`NULL` in C).
    ArraysNotNull { names: Vec<String>, c: bool },
    /// Array inputs are distinct objects.
    ArraysDoNotAlias,
    /// A Java static field holding an object is not null when the method
    /// starts.
    StaticFieldNotNull(String),
    /// Java exceptions compare by class, not by message.
    ExceptionsCompareByClass,
    /// A Java object parameter is not null and of exactly its declared
    /// class.
    ObjectParameter(String),
    /// A callee outside the files is pure (`declared`: the project says
    /// so).
    PureCallee { name: String, declared: bool },
    /// C: the proof allows any behaviour of the new version where the old
    /// one is undefined (refinement), and inputs on which the old version
    /// is undefined and the new one is not may exist. Absent when there
    /// are none.
    RefinesUndefined(Refinement),
}

/// What is known of the inputs on which the old version is undefined and
/// the new one is not (see [`Assumption::RefinesUndefined`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refinement {
    /// Such inputs, replayed on both versions, in words: `x = 1073741824
    /// (signed integer overflow); the new one returns -2147483648`.
    Witnessed(String),
    /// None within this many loop iterations; beyond them, not decided.
    NoneWithin(u32),
    /// Not decided (the budget ran out, or the query was too hard).
    Undecided,
}

impl fmt::Display for Assumption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Assumption::SignedOverflowWraps => {
                f.write_str("signed overflow wraps (the project compiles with -fwrapv)")
            }
            Assumption::Uninterpreted(names) => write!(
                f,
                "{} treated as uninterpreted functions (equal arguments give equal results)",
                names.join(", ")
            ),
            Assumption::OpaqueCalls(names) => write!(
                f,
                "calls of {} (unchanged, with loops) treated as uninterpreted functions: \
                 equal arguments give equal results and faults; runs in which such a call \
                 does not return are not compared",
                names.join(", ")
            ),
            Assumption::UnboundedRecursion => {
                f.write_str("recursion depth is unbounded (no stack overflow)")
            }
            Assumption::AbstractedLoopsTerminate(lines) => write!(
                f,
                "common code with loops abstracted (lines {} of the new version): executions \
                 in which it does not terminate are not compared",
                lines.join(", ")
            ),
            Assumption::TerminationDiffers(what) => write!(f, "{TERMINATION_DIFFERENCE}{what}"),
            Assumption::LoopReversed { version, line } => write!(
                f,
                "the {version} loop at line {line} counts down over the index set the other \
                 counts up over and only adds terms of the index: run upwards (a sum does not \
                 depend on the order of its terms)"
            ),
            Assumption::RecursionAsLoop { version, function } => write!(
                f,
                "the recursion of {function} ({version} version) is compared as the loop that \
                 computes it: its base case, then each call's level from the bottom up"
            ),
            Assumption::SameInitialValue(name) => write!(
                f,
                "{name} has the same initial value in both versions (its initialiser is \
                 evaluated in one only)"
            ),
            Assumption::SameField { old, new } => write!(
                f,
                "{old} (old) and {new} (new) are the same field, renamed: one value in both \
                 versions"
            ),
            Assumption::UnwrittenOutside(names) => write!(
                f,
                "{} {}: nothing in the file writes {} after initialisation, and code outside \
                 it is taken not to (eqlens.toml [fields] written-outside says otherwise)",
                names.join(", "),
                if names.len() == 1 {
                    "holds its initial value"
                } else {
                    "hold their initial values"
                },
                if names.len() == 1 { "it" } else { "them" },
            ),
            Assumption::ArraysNotNull { names, c } => {
                let (what, are) = if names.len() == 1 {
                    ("array input", "is")
                } else {
                    ("array inputs", "are")
                };
                let null = if *c { "NULL" } else { "null" };
                write!(f, "{what} {} {are} not {null}", names.join(", "))
            }
            Assumption::ArraysDoNotAlias => f.write_str("array inputs do not alias each other"),
            Assumption::StaticFieldNotNull(name) => write!(
                f,
                "static field {name} is not null when the method starts (its object's fields \
                 are inputs)"
            ),
            Assumption::ExceptionsCompareByClass => {
                f.write_str("exceptions compare by class: their messages are not compared")
            }
            Assumption::ObjectParameter(name) => write!(
                f,
                "object parameter {name} is not null and of exactly its declared class, not a \
                 subclass overriding its methods (its fields are the inputs)"
            ),
            Assumption::RefinesUndefined(r) => {
                if let Refinement::Witnessed(witness) = r {
                    return write!(f, "{REFINEMENT_WITNESSED}{witness}");
                }
                f.write_str(
                    "where the old version is undefined, any behaviour of the new one is \
                     allowed (refinement)",
                )?;
                match r {
                    Refinement::Witnessed(_) => Ok(()),
                    Refinement::NoneWithin(k) => write!(
                        f,
                        "; no input within {k} loop iterations makes the old version undefined \
                         and the new one not, beyond them it was not decided"
                    ),
                    Refinement::Undecided => f.write_str(
                        "; whether an input makes the old version undefined and the new one \
                         not was not decided",
                    ),
                }
            }
            Assumption::PureCallee { name, declared } => write!(
                f,
                "{name} {}: for equal arguments it returns the same value or ends the run the \
                 same way (throws the same exception), and does nothing else the caller can \
                 observe",
                if *declared {
                    "is pure, as the project declares"
                } else {
                    "is pure"
                }
            ),
        }
    }
}

impl Serialize for Assumption {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assumption_serializes_as_its_wording() {
        let a = Assumption::ArraysNotNull {
            names: vec!["a".into(), "b".into()],
            c: true,
        };
        assert_eq!(a.to_string(), "array inputs a, b are not NULL");
        assert_eq!(
            serde_json::to_string(&a).ok().as_deref(),
            Some("\"array inputs a, b are not NULL\"")
        );
        let t = Assumption::TerminationDiffers("n = 3 …".into());
        assert!(t.to_string().starts_with(TERMINATION_DIFFERENCE));
    }
}
