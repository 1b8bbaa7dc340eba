//! Comparing two executions on observable behaviour, with tolerance for
//! approximated reals (math semantics) and no conclusion on limits.

use super::{Comparison, Execution, FaultKind, Outcome};
use crate::value::{Real, Value};

/// Relative and absolute error an approximated value may carry. A
/// difference counts only when it exceeds both.
const REL_TOL: f64 = 1e-6;
const ABS_TOL: f64 = 1e-9;

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

fn close_f64(a: f64, b: f64) -> Close {
    if a == b {
        return Close::Equal;
    }
    if !(a.is_finite() && b.is_finite()) {
        // NaN or infinity from an approximation: nothing can be concluded.
        return Close::Within;
    }
    let diff = (a - b).abs();
    let scale = a.abs().max(b.abs());
    if diff > ABS_TOL && diff > REL_TOL * scale {
        Close::Different
    } else {
        Close::Within
    }
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
            _ => close_f64(x.to_f64(), y.to_f64()),
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
        if old.inexact || new.inexact {
            match close_text(&old.output_text, &new.output_text) {
                Some(Close::Different) => d.real.push(what),
                Some(_) => d
                    .doubtful
                    .push(format!("{what} (within approximation error)")),
                None => d
                    .doubtful
                    .push(format!("{what} (approximated values involved)")),
            }
        } else {
            d.real.push(what);
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

/// A piece of printed text: a number, or anything else.
#[derive(Debug, PartialEq)]
enum Tok<'a> {
    Num(f64),
    Other(&'a str),
}

/// Splits text into numbers (optionally `≈`-marked, signed, with fraction
/// and exponent; also `NaN`/`Infinity`/`inf`/`nan`) and the text between.
fn tokens(s: &str) -> Vec<Tok<'_>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut other_start = 0;
    while i < b.len() {
        let start = i;
        let mut j = i;
        if s[j..].starts_with('≈') {
            j += '≈'.len_utf8();
        }
        let num_start = j;
        if j < b.len() && (b[j] == b'-' || b[j] == b'+') {
            j += 1;
        }
        let digits_start = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j < b.len() && b[j] == b'.' {
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
        }
        let mantissa_ok = s[digits_start..j].bytes().any(|c| c.is_ascii_digit());
        if mantissa_ok && j < b.len() && (b[j] == b'e' || b[j] == b'E') {
            let mut k = j + 1;
            if k < b.len() && (b[k] == b'-' || b[k] == b'+') {
                k += 1;
            }
            if k < b.len() && b[k].is_ascii_digit() {
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                j = k;
            }
        }
        let mut num = if mantissa_ok {
            s[num_start..j].parse::<f64>().ok()
        } else {
            None
        };
        if num.is_none() {
            for (word, v) in [
                ("NaN", f64::NAN),
                ("nan", f64::NAN),
                ("Infinity", f64::INFINITY),
                ("inf", f64::INFINITY),
            ] {
                if s[digits_start..].starts_with(word) {
                    let neg = digits_start > num_start && b[num_start] == b'-';
                    num = Some(if neg { -v } else { v });
                    j = digits_start + word.len();
                    break;
                }
            }
        }
        match num {
            Some(v) => {
                if other_start < start {
                    out.push(Tok::Other(&s[other_start..start]));
                }
                out.push(Tok::Num(v));
                i = j;
                other_start = j;
            }
            None => {
                // Advance by one character (text may be any UTF-8).
                i += s[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
    }
    if other_start < s.len() {
        out.push(Tok::Other(&s[other_start..]));
    }
    out
}

/// Compares printed texts number by number with tolerance; `None` when
/// their structure (the text between numbers) does not align.
fn close_text(a: &str, b: &str) -> Option<Close> {
    let (ta, tb) = (tokens(a), tokens(b));
    if ta.len() != tb.len() {
        return None;
    }
    let mut worst = Close::Equal;
    for (x, y) in ta.iter().zip(&tb) {
        let c = match (x, y) {
            (Tok::Num(p), Tok::Num(q)) => {
                if p.is_nan() && q.is_nan() {
                    Close::Equal
                } else {
                    close_f64(*p, *q)
                }
            }
            (Tok::Other(p), Tok::Other(q)) if p == q => Close::Equal,
            _ => return None,
        };
        worst = worst.max(c);
    }
    Some(worst)
}
