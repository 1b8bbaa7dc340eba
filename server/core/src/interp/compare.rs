//! Comparing two executions on observable behaviour: approximate reals
//! differ only where their intervals are disjoint, and limits give no
//! conclusion.

use super::{Comparison, Execution, FaultKind, Outcome, Printed};
use crate::value::{Real, Value};

/// How close two values are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Close {
    Equal,
    /// Different, but only within approximation error.
    Within,
    /// Values of different kinds (a field whose type changed between the
    /// versions): no exact comparison means anything, so no conclusion.
    Incomparable,
    Different,
}

fn close(a: &Value, b: &Value) -> Close {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => match (x, y) {
            (Real::Exact(p), Real::Exact(q)) => {
                if p == q {
                    Close::Equal
                } else {
                    Close::Different
                }
            }
            (Real::Exact(p), Real::Approx(i, _)) | (Real::Approx(i, _), Real::Exact(p)) => {
                if i.contains(p) {
                    Close::Within
                } else {
                    Close::Different
                }
            }
            _ if crate::value::same_term(x, y) => Close::Equal,
            (Real::Approx(i, _), Real::Approx(j, _)) => {
                if i.disjoint(j) {
                    Close::Different
                } else {
                    Close::Within
                }
            }
        },
        // Machine floats are exact IEEE results: compared bit for bit, but
        // every NaN is the same NaN.
        (Value::F64(x), Value::F64(y)) => {
            same_float(x.is_nan() && y.is_nan(), x.to_bits() == y.to_bits())
        }
        (Value::F32(x), Value::F32(y)) => {
            same_float(x.is_nan() && y.is_nan(), x.to_bits() == y.to_bits())
        }
        (Value::Array(xs), Value::Array(ys)) => {
            if xs.len() != ys.len() {
                return Close::Different;
            }
            xs.iter()
                .zip(ys)
                .map(|(x, y)| close(x, y))
                .max()
                .unwrap_or(Close::Equal)
        }
        // A float field that became a double (or back): widening a float
        // to a double is exact, so the numbers compare exactly.
        (Value::F32(x), Value::F64(y)) | (Value::F64(y), Value::F32(x)) => {
            let x = f64::from(*x);
            same_float(x.is_nan() && y.is_nan(), x.to_bits() == y.to_bits())
        }
        // `null` against an array is a real difference.
        (Value::Null, _) | (_, Value::Null) => {
            if a == b {
                Close::Equal
            } else {
                Close::Different
            }
        }
        (a, b) => {
            if std::mem::discriminant(a) != std::mem::discriminant(b) {
                Close::Incomparable
            } else if a == b {
                Close::Equal
            } else {
                Close::Different
            }
        }
    }
}

fn same_float(both_nan: bool, same_bits: bool) -> Close {
    if both_nan || same_bits {
        Close::Equal
    } else {
        Close::Different
    }
}

fn describe(o: &Outcome) -> String {
    o.describe()
}

/// Collected differences: real ones, and reasons for no conclusion.
#[derive(Default)]
struct Diffs {
    real: Vec<String>,
    doubtful: Vec<String>,
}

impl Diffs {
    fn value(&mut self, what: String, a: &Value, b: &Value) {
        match close(a, b) {
            Close::Equal => {}
            Close::Within => self.doubtful.push(format!(
                "{what} differs only within approximation error: {a} vs {b}"
            )),
            Close::Incomparable => self.doubtful.push(format!(
                "{what} has values of different types in the two versions: {a} vs {b}"
            )),
            Close::Different => self.real.push(format!("{what}: {a} vs {b}")),
        }
    }
}

/// How a compared global is named to the user: a return slot of the
/// method (`f().center.x`, a field of the struct it returns) is part of its
/// result.
fn observable_global(name: &str) -> String {
    match name.split_once("().") {
        Some((_, path)) => format!("result.{path}"),
        None => format!("global {name}"),
    }
}

pub(crate) fn compare(old: &Execution, new: &Execution, globals: &[String]) -> Comparison {
    for (side, e) in [("old", old), ("new", new)] {
        if let Outcome::Limit(l) = &e.outcome {
            return Comparison::Inconclusive(format!("the {side} version {}", l.describe()));
        }
    }
    let mut d = Diffs::default();
    match (&old.outcome, &new.outcome) {
        (Outcome::Return(a), Outcome::Return(b)) => d.value("return value".into(), a, b),
        // Faults compare by outcome only: the index, the message or the span
        // is not part of the observable behaviour (Java compares by the
        // exception's class).
        (
            Outcome::Fault {
                kind: a, lang: la, ..
            },
            Outcome::Fault {
                kind: b, lang: lb, ..
            },
        ) if a.outcome_key(*la) == b.outcome_key(*lb) => {}
        // What an unseen callee throws has no known class: it may be the
        // very exception (or exit) the other version ends with.
        (o @ Outcome::Fault { kind: a, .. }, n @ Outcome::Fault { kind: b, .. })
            if matches!(a, FaultKind::Unseen { .. }) != matches!(b, FaultKind::Unseen { .. }) =>
        {
            d.doubtful.push(format!(
                "outcome: {} vs {} (whether they are the same exception is not known)",
                describe(o),
                describe(n)
            ))
        }
        (a, b) => d
            .real
            .push(format!("outcome: {} vs {}", describe(a), describe(b))),
    }
    for (i, (a, b)) in old.args_final.iter().zip(&new.args_final).enumerate() {
        if matches!(a, Value::Array(_) | Value::Null) || matches!(b, Value::Array(_) | Value::Null)
        {
            let name = old
                .arg_names
                .get(i)
                .or(new.arg_names.get(i))
                .filter(|n| !n.is_empty());
            let what = match name {
                Some(n) => format!("array argument {i} ({n})"),
                None => format!("array argument {i}"),
            };
            d.value(what, a, b);
        }
    }
    for g in globals {
        match (old.globals_final.get(g), new.globals_final.get(g)) {
            (Some(a), Some(b)) => d.value(observable_global(g), a, b),
            // A global only one version declares keeps its entry value in
            // the other (the symbolic encoding's rule).
            (Some(a), None) => match new.globals_entry.get(g) {
                Some(b) => d.value(observable_global(g), a, b),
                None => d
                    .real
                    .push(format!("{}: {a} vs (absent)", observable_global(g))),
            },
            (None, Some(b)) => match old.globals_entry.get(g) {
                Some(a) => d.value(observable_global(g), a, b),
                None => d
                    .real
                    .push(format!("{}: (absent) vs {b}", observable_global(g))),
            },
            (None, None) => {}
        }
    }
    if old.output_text != new.output_text {
        let what = format!("output: {:?} vs {:?}", old.output_text, new.output_text);
        match close_printed(&old.printed, &new.printed) {
            Close::Different => d.real.push(what),
            _ => d
                .doubtful
                .push(format!("{what} (within approximation error)")),
        }
    }
    if !d.real.is_empty() {
        Comparison::Differ(d.real)
    } else if !d.doubtful.is_empty() {
        Comparison::Inconclusive(d.doubtful.join("; "))
    } else {
        Comparison::Same
    }
}

/// Printed outputs that differ as text, item by item: values printed in
/// both compare as values, text rendered from approximations decides
/// nothing, and any other difference is real. Where the items do not pair
/// up (one print split in two, in a run with approximations) nothing is
/// concluded.
fn close_printed(a: &[Printed], b: &[Printed]) -> Close {
    let approx = |items: &[Printed]| {
        items.iter().any(|p| {
            matches!(
                p,
                Printed::ApproxText(_) | Printed::Value(Value::Real(Real::Approx(..)), _)
            )
        })
    };
    if !approx(a) && !approx(b) {
        return Close::Different;
    }
    if a.len() != b.len() {
        return Close::Within;
    }
    let pair = |x: &Printed, y: &Printed| match (x, y) {
        (Printed::Newline, Printed::Newline) => Close::Equal,
        (Printed::Text(p), Printed::Text(q)) => {
            if p == q {
                Close::Equal
            } else {
                Close::Different
            }
        }
        (Printed::Value(p, _), Printed::Value(q, _)) => close(p, q),
        (Printed::Text(p) | Printed::ApproxText(p), Printed::Text(q) | Printed::ApproxText(q))
            if p == q =>
        {
            Close::Equal
        }
        _ => Close::Within,
    };
    a.iter()
        .zip(b)
        .map(|(x, y)| pair(x, y))
        .max()
        .unwrap_or(Close::Equal)
}
