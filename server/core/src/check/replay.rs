//! Running both versions on the same inputs in the interpreter, the ground
//! truth: a difference it sees is a counterexample, with the inputs named
//! as the user wrote them. Solver models and concrete tests both end here.

use super::counterexample::Runs;
use super::{Behaviour, Binding, Counterexample, MethodPair, Options};
use crate::interp::{self, Comparison, Execution, Limits};
use crate::ir::Function;

use crate::symbolic::{self, PairEncoding, model};
use crate::value::Value;
use std::time::{Duration, Instant};

/// Runs both versions on the model's inputs; a counterexample only if the
/// interpreter sees a real difference.
pub(super) fn replay(
    pair: &MethodPair<'_>,
    enc: &PairEncoding,
    model: &z3::Model,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
) -> Result<Counterexample, String> {
    match replay_model(pair, enc, model, old_fn, new_fn, options, deadline) {
        Ok(cex) => Ok(cex),
        Err(Unreplayed::OldUndefined(_)) => Err("the old version is undefined on it: any \
                                                 behaviour of the new one refines it"
            .into()),
        Err(Unreplayed::No(why)) => Err(why),
        Err(Unreplayed::Unseen(_)) => Err("too many calls outside the files to replay".into()),
    }
}

/// Runs both versions on the model's inputs; the runs when the old version
/// is undefined there (C) and the new one behaves otherwise.
pub(super) fn replay_undefined(
    pair: &MethodPair<'_>,
    enc: &PairEncoding,
    model: &z3::Model,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
) -> Option<Counterexample> {
    match replay_model(pair, enc, model, old_fn, new_fn, options, deadline) {
        Err(Unreplayed::OldUndefined(cex)) => Some(*cex),
        _ => None,
    }
}

fn replay_model(
    pair: &MethodPair<'_>,
    enc: &PairEncoding,
    model: &z3::Model,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
) -> Result<Counterexample, Unreplayed> {
    let arity = new_fn.params.len();
    let (mut inputs, named) =
        model::read_inputs(model, &enc.ops, &enc.inputs, arity).map_err(Unreplayed::No)?;
    let named: Vec<Binding> = named
        .into_iter()
        .map(|(name, value)| input_binding(&name, value, old_fn, new_fn))
        .collect();
    // A little grace past the check's deadline: a candidate in hand is
    // worth finishing.
    let limits = Limits {
        deadline: Some(deadline + Duration::from_secs(1)),
        ..Limits::default()
    };
    // Calls outside the files do what the model says their uninterpreted
    // functions do, the same for both versions: each run that meets a call
    // without a stub gets one from the model and starts again. A
    // difference that shows only with the callees behaving as the model
    // says need not be one for the real callees (a JDK method the model
    // lets throw never does): `Counterexample::replayed` refuses runs that
    // used a stub.
    for _ in 0..MAX_CALLEE_STUBS {
        match run_both(pair, &inputs, named.clone(), options, &limits) {
            Err(Unreplayed::Unseen(call)) => {
                let stub = model::callee_stub(model, &enc.ops, &enc.ufs, &enc.strings, &call)
                    .map_err(Unreplayed::No)?;
                inputs.callees.push(stub);
            }
            other => return other,
        }
    }
    Err(Unreplayed::No(
        "too many calls outside the files to replay".into(),
    ))
}

/// Distinct calls outside the files one replay may stub.
const MAX_CALLEE_STUBS: usize = 64;

/// Why running both versions gave no counterexample.
pub(super) enum Unreplayed {
    /// A call outside the files without a stub.
    Unseen(crate::interp::UnseenCall),
    /// They behave the same, or a run was inconclusive (the reason).
    No(String),
    /// They differ, but the old version is undefined there (C): any
    /// behaviour of the new one refines it. The runs, as a counterexample
    /// would show them.
    OldUndefined(Box<Counterexample>),
}

/// Runs both versions on `inputs` and keeps a real difference: one where
/// the old version is not undefined (see [`crate::symbolic::difference`]).
pub(super) fn run_both(
    pair: &MethodPair<'_>,
    inputs: &interp::Inputs,
    named: Vec<Binding>,
    options: &Options,
    limits: &Limits,
) -> Result<Counterexample, Unreplayed> {
    let old = interp::execute(
        pair.old_program,
        pair.old,
        inputs,
        options.semantics,
        options.signed_overflow,
        limits,
    );
    let new = interp::execute(
        pair.new_program,
        pair.new,
        inputs,
        options.semantics,
        options.signed_overflow,
        limits,
    );
    if let Some(call) = old.unseen_call.clone().or_else(|| new.unseen_call.clone()) {
        return Err(Unreplayed::Unseen(call));
    }
    let globals = crate::symbolic::observable_globals(
        (pair.old_program, pair.old),
        (pair.new_program, pair.new),
    );
    let differences = match interp::compare(&old, &new, &globals) {
        Comparison::Differ(differences) => differences,
        Comparison::Same => {
            return Err(Unreplayed::No("both versions behave the same on it".into()));
        }
        Comparison::Inconclusive(why) => return Err(Unreplayed::No(why)),
    };
    // Entry values of globals neither version touches (e.g. Java instance
    // fields when a static method is checked) are noise.
    let inputs_shown = named
        .into_iter()
        .filter(|b| relevant_input(pair, inputs, &b.name))
        .collect();
    let cex = Counterexample::replayed(
        inputs_shown,
        Runs {
            old: &old,
            new: &new,
        },
        behaviour(&old, &globals, &new),
        behaviour(&new, &globals, &old),
        differences,
    )
    .map_err(Unreplayed::No)?;
    if old.outcome.is_undefined() {
        return Err(Unreplayed::OldUndefined(Box::new(cex)));
    }
    Ok(cex)
}

/// What one version did; state lists the globals and array arguments whose
/// final values differ between the versions.
fn behaviour(this: &Execution, globals: &[String], other: &Execution) -> Behaviour {
    let mut state = Vec::new();
    for g in globals {
        let (a, b) = (this.globals_final.get(g), other.globals_final.get(g));
        if let Some(a) = a
            && a != b.unwrap_or(&Value::Void)
        {
            state.push(Binding {
                name: g.clone(),
                value: a.clone(),
            });
        }
    }
    for (i, (a, b)) in this.args_final.iter().zip(&other.args_final).enumerate() {
        if matches!(a, Value::Array(_)) && a != b {
            state.push(Binding {
                name: format!("argument {i}"),
                value: a.clone(),
            });
        }
    }
    Behaviour {
        outcome: this.outcome.clone(),
        state,
        output: this.output_text.clone(),
        trace: this.trace.clone(),
    }
}

/// `arg1` → the parameter's name (`b`, or `b (old: y)` when renamed);
/// `g.count` → `count`.
/// Whether a counterexample input named `label` matters: a parameter, or
/// a global that either version touches (entry values of the others, such
/// as Java instance fields when a static method is checked, are noise).
fn relevant_input(pair: &MethodPair<'_>, inputs: &interp::Inputs, label: &str) -> bool {
    let (Ok(old_fn), Ok(new_fn)) = (
        &pair.old_program.function(pair.old).body,
        &pair.new_program.function(pair.new).body,
    ) else {
        return true;
    };
    let is_param = (0..inputs.args.len())
        .any(|pos| input_label(&format!("arg{pos}"), old_fn, new_fn) == label);
    let is_global = pair.old_program.find_global(label).is_some()
        || pair.new_program.find_global(label).is_some();
    is_param
        || !is_global
        || pair.old_program.uses_global(pair.old, label)
        || pair.new_program.uses_global(pair.new, label)
}

/// Input `name` (`argN` for parameter N) with `value`, as the user sees it:
/// a Java String parameter's `char` array as text.
pub(super) fn input_binding(
    name: &str,
    value: Value,
    old_fn: &Function,
    new_fn: &Function,
) -> Binding {
    let text = name
        .strip_prefix("arg")
        .and_then(|p| p.parse::<usize>().ok())
        .and_then(|pos| new_fn.params.get(pos))
        .is_some_and(|p| new_fn.local(*p).text);
    let value = match value {
        Value::Array(items) if text => {
            let units: Option<Vec<u16>> = items
                .iter()
                .map(|v| v.as_int().and_then(|i| u16::try_from(i).ok()))
                .collect();
            units.map_or(Value::Array(items), Value::Text)
        }
        v => v,
    };
    Binding {
        name: input_label(name, old_fn, new_fn),
        value,
    }
}

pub(super) fn input_label(name: &str, old_fn: &Function, new_fn: &Function) -> String {
    if let Some(pos) = name
        .strip_prefix("arg")
        .and_then(|p| p.parse::<usize>().ok())
    {
        let param = |f: &Function| f.params.get(pos).map(|p| f.local(*p).name.clone());
        return match (param(old_fn), param(new_fn)) {
            (Some(o), Some(n)) if o != n => format!("{n} (old: {o})"),
            (_, Some(n)) => n,
            (Some(o), None) => o,
            _ => name.to_string(),
        };
    }
    symbolic::display_name(name).to_string()
}
