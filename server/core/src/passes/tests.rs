//! Each pass against the interpreter: small functions lowered through
//! `lang`, run before and after the pass on a grid of inputs under both
//! semantics, must end alike (outcome, final arguments and globals,
//! printed text); the rewritten program must keep the IR's invariants.
//! The passes' own tests check their shapes.

use super::{constant_locals, constants, hoist, jumps, reverse, tail};
use crate::interp::{self, Execution, Inputs, Limits, Outcome};
use crate::ir::{self, FuncId, Lang, Program, Semantics};
use crate::value::Value;

fn run(p: &Program, func: FuncId, args: &[i64], semantics: Semantics) -> Execution {
    let inputs = Inputs {
        args: args.iter().map(|a| Value::Int((*a).into())).collect(),
        globals: Default::default(),
        callees: Vec::new(),
    };
    interp::execute(
        p,
        func,
        &inputs,
        semantics,
        Default::default(),
        &Limits::default(),
    )
}

/// Every pair of arguments in `-3..5`.
pub(super) fn grid() -> Vec<Vec<i64>> {
    (-3..5)
        .flat_map(|a| (-3..5).map(move |b| vec![a, b]))
        .collect()
}

/// `before` and `after` run `func` alike on every input of `inputs`
/// under both semantics, and `after` is valid IR.
pub(super) fn same_results(before: &Program, after: &Program, func: FuncId, inputs: &[Vec<i64>]) {
    if let Err(errors) = ir::validate(after) {
        panic!(
            "the pass broke IR invariants: {errors:?}\n{}",
            ir::print::program(after)
        );
    }
    assert_ne!(before, after, "the pass changed nothing");
    for semantics in [Semantics::Math, Semantics::Machine] {
        for args in inputs {
            let (a, b) = (
                run(before, func, args, semantics),
                run(after, func, args, semantics),
            );
            let context = || {
                format!(
                    "{semantics:?} {args:?}\nbefore:\n{}\nafter:\n{}",
                    ir::print::program(before),
                    ir::print::program(after)
                )
            };
            assert!(
                !matches!(a.outcome, Outcome::Limit(_)),
                "ran out of steps: {}",
                context()
            );
            assert_eq!(a.outcome, b.outcome, "{}", context());
            assert_eq!(a.args_final, b.args_final, "{}", context());
            assert_eq!(a.globals_final, b.globals_final, "{}", context());
            assert_eq!(a.output_text, b.output_text, "{}", context());
        }
    }
}

fn java(src: &str) -> Program {
    crate::lang::lower_unfolded(Lang::Java, &format!("class A {{ {src} }}"))
}

#[test]
fn constant_locals_keeps_results() {
    for (lang, src) in [
        (
            Lang::Java,
            "class A { static int f(int a, int b) { int two = 2; long big = -5L; \
             int s = 0; for (int i = 0; i < two; i++) { s += a * two - b; } \
             return s + (int) big; } }",
        ),
        (
            Lang::C,
            "int f(int a, int b) { int lim = 3; unsigned m = 7u; int s = 0; \
             while (a < lim) { s += (int) ((unsigned) b & m); a++; } return s; }",
        ),
    ] {
        let before = crate::lang::lower_unfolded(lang, src);
        let mut after = before.clone();
        constant_locals::fold(&mut after);
        same_results(&before, &after, FuncId(0), &grid());
    }
}

#[test]
fn constants_keeps_results() {
    let before = java(
        "static int f(int a, int b) { int k = 2 * 3 + 1; int s = 0; \
         int m = -(2 << 3); while (a < b) { s += k * a + m; a++; } return s; }",
    );
    let mut after = before.clone();
    let Some(Ok(f)) = after.functions.get_mut(0).map(|d| d.body.as_mut()) else {
        panic!("f did not lower")
    };
    assert!(constants::propagate(f), "constant locals to propagate");
    same_results(&before, &after, FuncId(0), &grid());
}

#[test]
fn jumps_keeps_results() {
    let before = java(
        "static int f(int a, int b) { int s = 0; for (int i = 0; i < 10; i++) { \
         if (i == a) continue; if (s > b + 6) break; s += i; } return s; }",
    );
    let after = jumps::flagged(&before, FuncId(0)).expect("jumps to flag");
    same_results(&before, &after, FuncId(0), &grid());
}

#[test]
fn hoist_keeps_results() {
    let before = java(
        "static int f(int a, int b) { int x = 0; if (a > 0) { x = 1; \
         while (b < 3) { x += a; b++; } x = x * 2; } else { x = 100 / (a - 1); } \
         return x + b; }",
    );
    let after = hoist::hoisted(&before, FuncId(0)).expect("a loop in a branch");
    same_results(&before, &after, FuncId(0), &grid());
}

#[test]
fn reverse_keeps_results() {
    let up = java(
        "static int f(int n, int k) { int s = 0; for (int i = 0; i < n; i++) \
         { s += 3 * i - k; } return s; }",
    );
    let down = java(
        "static int f(int n, int k) { int s = 0; for (int i = n - 1; i >= 0; i--) \
         { s += 3 * i - k; } return s; }",
    );
    let r = reverse::reversed(
        (&up, FuncId(0)),
        (&down, FuncId(0)),
        reverse::Words::Unbounded,
    )
    .expect("matched");
    let after = r.new.expect("the down version turned");
    same_results(&down, &after, FuncId(0), &grid());
}

#[test]
fn tail_keeps_results() {
    let before = java(
        "static int f(int a, int b) { return g(a, b) + 1; } \
         static int g(int n, int m) { int s = 0; while (n < m) { s += n; n++; } \
         if (s > 5) return s; do { s--; } while (s > 20); return -s; }",
    );
    let entry = before.find("f").next().map(|(id, _)| id).expect("f");
    let after = tail::callee_loops_as_recursion(&before, entry)
        .expect("encodable")
        .expect("a callee loop");
    same_results(&before, &after, entry, &grid());
}
