//! Counterexamples: inputs replayed on both versions, with what each did.

use super::Binding;
use crate::interp::{Execution, Outcome, Unanalysed};
use serde::Serialize;

/// What one version did on the counterexample's inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Behaviour {
    pub outcome: Outcome,
    /// Final values of the globals either version writes, and of array
    /// parameters.
    pub state: Vec<Binding>,
    pub output: String,
    /// One-based lines executed, in order.
    pub trace: Vec<u32>,
}

/// Inputs on which the two versions were run by the interpreter and
/// behaved differently.
///
/// *Invariant:* made only by `Counterexample::replayed`, from two runs
/// that passed through nothing eqlens did not analyse itself (no function
/// that did not lower, no operation the interpreter cannot run, no call
/// outside the files answered from the solver's model) and ended in an
/// outcome of the program, not a limit of the interpreter. The private
/// `replayed` field keeps every other module, and every other crate, from
/// making one.
#[derive(Clone, Debug, PartialEq)]
pub struct Counterexample {
    /// Parameters, then globals read.
    pub inputs: Vec<Binding>,
    pub old: Behaviour,
    pub new: Behaviour,
    /// What differs, one entry per observable: `return value: 3 vs 4`.
    pub differences: Vec<String>,
    replayed: Replayed,
}

/// The mark of a [`Counterexample`] made by [`Counterexample::replayed`].
#[derive(Clone, Debug, PartialEq)]
struct Replayed;

/// The runs of a candidate counterexample, checked before it becomes one.
pub(crate) struct Runs<'a> {
    pub old: &'a Execution,
    pub new: &'a Execution,
}

impl Counterexample {
    /// A counterexample from the interpreter's runs of both versions on
    /// `inputs`, or why those runs are no evidence of a difference: one of
    /// them passed through something eqlens did not analyse, or stopped at
    /// a limit of the interpreter, or nothing differs.
    pub(crate) fn replayed(
        inputs: Vec<Binding>,
        runs: Runs<'_>,
        old: Behaviour,
        new: Behaviour,
        differences: Vec<String>,
    ) -> Result<Counterexample, String> {
        for (side, run) in [("old", runs.old), ("new", runs.new)] {
            let (stubs, code): (Vec<&Unanalysed>, Vec<&Unanalysed>) = run
                .unanalysed
                .iter()
                .partition(|u| matches!(u, Unanalysed::Stub(_)));
            if !code.is_empty() {
                return Err(format!(
                    "the {side} version's run reached what eqlens could not analyse: {}",
                    join(&code)
                ));
            }
            if !stubs.is_empty() {
                return Err(format!(
                    "the versions differ only if calls outside the files behave so: {} ({})",
                    join(&stubs),
                    differences.join("; ")
                ));
            }
            if let Outcome::Limit(l) = &run.outcome {
                return Err(format!("the {side} version {}", l.describe()));
            }
        }
        if differences.is_empty() {
            return Err("both versions behave the same on it".into());
        }
        Ok(Counterexample {
            inputs,
            old,
            new,
            differences,
            replayed: Replayed,
        })
    }
}

impl Serialize for Counterexample {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Values are rendered as text: exact rationals and big integers have
        // no faithful JSON number.
        #[derive(Serialize)]
        struct B<'a> {
            name: &'a str,
            value: String,
        }
        #[derive(Serialize)]
        struct Beh<'a> {
            outcome: String,
            state: Vec<B<'a>>,
            output: &'a str,
            trace: &'a [u32],
        }
        #[derive(Serialize)]
        struct C<'a> {
            inputs: Vec<B<'a>>,
            old: Beh<'a>,
            new: Beh<'a>,
            differences: &'a [String],
        }
        fn bs(v: &[Binding]) -> Vec<B<'_>> {
            v.iter()
                .map(|b| B {
                    name: &b.name,
                    value: b.value.to_string(),
                })
                .collect()
        }
        fn beh(b: &Behaviour) -> Beh<'_> {
            Beh {
                outcome: super::describe_outcome(&b.outcome),
                state: bs(&b.state),
                output: &b.output,
                trace: &b.trace,
            }
        }
        C {
            inputs: bs(&self.inputs),
            old: beh(&self.old),
            new: beh(&self.new),
            differences: &self.differences,
        }
        .serialize(s)
    }
}

fn join(parts: &[&Unanalysed]) -> String {
    let words: Vec<String> = parts.iter().map(|u| u.to_string()).collect();
    words.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, Inputs, LimitKind, Limits};
    use crate::ir::{FuncId, Lang, Program, Semantics, SignedOverflow};
    use crate::value::Value;

    /// A caller of a function that does not lower (the result of a method
    /// outside the file used where its type is not given), once plainly and
    /// once inside a `catch (Throwable)` that must not see it as a throw.
    const SOURCE: &str = "class U {
        static int opaque(int x) { return Ext.m(x) + 1; }
        static int plain(int x) { return opaque(x); }
        static int caught(int x) {
            try { return opaque(x); } catch (Throwable t) { return -1; }
        }
    }";

    fn run(program: &Program, name: &str) -> Execution {
        let id = program
            .functions
            .iter()
            .position(|f| f.name == name)
            .expect("the source defines it");
        interp::execute(
            program,
            FuncId(id as u32),
            &Inputs {
                args: vec![Value::int(3)],
                ..Inputs::default()
            },
            Semantics::Machine,
            SignedOverflow::default(),
            &Limits::default(),
        )
    }

    #[test]
    fn a_call_of_code_that_did_not_lower_is_no_outcome_of_the_program() {
        let program = crate::lang::lower(Lang::Java, SOURCE);
        assert!(program.functions[0].body.is_err(), "opaque must not lower");
        for name in ["plain", "caught"] {
            let e = run(&program, name);
            assert!(
                matches!(&e.outcome, interp::Outcome::Limit(LimitKind::Unanalysed(w)) if w.contains("U.opaque")),
                "{name}: {:?}",
                e.outcome
            );
            assert!(
                matches!(e.unanalysed.as_slice(), [Unanalysed::Code(w)] if w.contains("U.opaque")),
                "{name}: {:?}",
                e.unanalysed
            );
        }
    }

    fn behaviour(e: &Execution) -> Behaviour {
        Behaviour {
            outcome: e.outcome.clone(),
            state: Vec::new(),
            output: String::new(),
            trace: Vec::new(),
        }
    }

    #[test]
    fn no_counterexample_from_a_run_through_unanalysed_code() {
        let program = crate::lang::lower(Lang::Java, SOURCE);
        let through = run(&program, "plain");
        let mut clean = through.clone();
        clean.outcome = interp::Outcome::Return(Value::int(4));
        clean.unanalysed.clear();
        let differences = vec!["outcome: … vs returns 4".to_string()];
        for (old, new) in [(&through, &clean), (&clean, &through)] {
            let made = Counterexample::replayed(
                Vec::new(),
                Runs { old, new },
                behaviour(old),
                behaviour(new),
                differences.clone(),
            );
            let why = made.expect_err("a run through unanalysed code is no evidence");
            assert!(why.contains("could not analyse"), "{why}");
        }
        // Even a run that ended normally after a stubbed call outside the
        // files is refused.
        let mut stubbed = clean.clone();
        stubbed
            .unanalysed
            .push(Unanalysed::Stub(interp::CalleeStub {
                call: interp::UnseenCall {
                    callee: "Ext.m".into(),
                    args: Vec::new(),
                    ret: crate::ir::Type::INT,
                },
                result: interp::CalleeResult::Returns(Value::int(1)),
            }));
        let made = Counterexample::replayed(
            Vec::new(),
            Runs {
                old: &clean,
                new: &stubbed,
            },
            behaviour(&clean),
            behaviour(&stubbed),
            differences,
        );
        assert!(made.is_err());
    }
}
