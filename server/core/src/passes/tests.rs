//! Each pass against the interpreter: small functions lowered through
//! `lang`, run before and after the pass on a grid of inputs under both
//! semantics, must end alike (outcome, final arguments and globals,
//! printed text); the rewritten program must keep the IR's invariants.
//! The passes' own tests check their shapes.

use super::{climb, constant_locals, constants, hoist, inline, jumps, reverse, tail};
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

#[test]
fn climb_keeps_results() {
    let one = |src: &str| {
        let p = java(src);
        let f = p.find("f").next().map(|(id, _)| id).expect("f");
        (p, f)
    };
    let singles: Vec<Vec<i64>> = (-4..9).map(|n| vec![n]).collect();
    for (src, inputs) in [
        // A product, the bound a literal ray.
        (
            "static long f(long b, int e) { if (e <= 0) { return 1; } return b * f(b, e - 1); }",
            grid(),
        ),
        // The ternary form: the `return` after the `if` joins both branches.
        (
            "static int f(int n) { return n <= 0 ? 0 : n + f(n - 1); }",
            singles.clone(),
        ),
        // Points above the ray, a local and a print on the way up.
        (
            "static int f(int n) { if (n < 1) { return 0; } if (n == 3) { return 7; } \
             if (n == 5) { int z = n * 2; return z; } int r = f(n - 1); int w = r * 2 + n; \
             System.out.println(w); return w - n; }",
            singles.clone(),
        ),
        // A bound that is a parameter, the recursion in the `then` branch.
        (
            "static long f(int lo, int hi) { if (hi >= lo) { return (long) hi * f(lo, hi - 1); } \
             return 1; }",
            grid(),
        ),
        // Recursing upwards, the bound a parameter (strict: not wrapping).
        (
            "static int f(int i, int n) { if (i > n) { return 0; } return i * i + f(i + 1, n); }",
            grid(),
        ),
        // Upwards, a literal ray with a point below it.
        (
            "static int f(int i) { if (i >= 6) { return 1; } if (i == 2) { return 5; } \
             return 2 * f(i + 1) - i; }",
            singles.clone(),
        ),
        // A fault on the way up: the division faults at the same level.
        (
            "static int f(int n, int d) { if (n <= d) { return 100; } return f(n - 1, d) / (n - 2); }",
            grid(),
        ),
        // Two calls per level: a window of the last two results.
        (
            "static int f(int n) { if (n <= 1) { return n; } return f(n - 1) + f(n - 2); }",
            singles.clone(),
        ),
        // Three, the base region a ray continued by points, work between
        // the calls.
        (
            "static long f(int n) { if (n < 1) { return 0; } if (n == 1) { return 1; } \
             if (n == 2) { return 2; } long a = f(n - 1); long x = a * 3 - n; \
             long b = f(n - 3); long c = f(n - 2); return x + b - 2 * c; }",
            singles.clone(),
        ),
        // Upwards, the bound a parameter (not wrapping), a conditional level.
        (
            "static int f(int i, int n) { if (i >= n) { return i; } int x = f(i + 1, n); \
             int y = f(i + 2, n); if (x > y) { x = x - y; } return x * 2 + i; }",
            grid(),
        ),
        // The same call twice.
        (
            "static long f(long b, int e) { if (e <= 0) { return b; } return f(b, e - 1) + f(b, e - 1); }",
            grid(),
        ),
    ] {
        let (before, f) = one(src);
        let after = climb::climbed(&before, f, false).unwrap_or_else(|| panic!("climbed: {src}"));
        same_results(&before, &after, f, &inputs);
    }
    // C spills the left operand before the call (`tmp = b;`).
    let before = crate::lang::lower_unfolded(
        Lang::C,
        "long f(long b, int e) { if (e <= 0) return 1; return b * f(b, e - 1); }",
    );
    let after = climb::climbed(&before, FuncId(0), false).expect("climbed past the spill");
    same_results(&before, &after, FuncId(0), &grid());
    // A spilled operand that computes (and cannot fault) is evaluated
    // again on the way up.
    let before = crate::lang::lower_unfolded(
        Lang::C,
        "long f(int k) { if (k <= 0) return 0; return (2L * k - 1) + f(k - 1); }",
    );
    let after = climb::climbed(&before, FuncId(0), false).expect("climbed past the computed spill");
    let singles: Vec<Vec<i64>> = (-4..12).map(|n| vec![n]).collect();
    same_results(&before, &after, FuncId(0), &singles);
    let before = crate::lang::lower_unfolded(
        Lang::C,
        "int f(int n) { if (n < 2) return n; return f(n - 1) + f(n - 2); }",
    );
    let after = climb::climbed(&before, FuncId(0), true).expect("climbed in C");
    let singles: Vec<Vec<i64>> = (-4..12).map(|n| vec![n]).collect();
    same_results(&before, &after, FuncId(0), &singles);
}

#[test]
fn climb_refuses_what_is_not_a_linear_recursion_by_one() {
    for src in [
        // Two calls that skip a level: `n - 1` is never reached from `n`.
        "static int f(int n) { if (n <= 2) { return 1; } return f(n - 2) + f(n - 3); }",
        // Two calls, a level that may fault (evaluated once per call).
        "static int f(int n, int d) { if (n <= 1) { return n; } return f(n - 1, d) / d + f(n - 2, d); }",
        // Two calls, a gap in the base region: level 1 recurses below it.
        "static int f(int n) { if (n <= 0) { return 0; } if (n == 2) { return 1; } \
         return f(n - 1) + f(n - 2); }",
        // Upwards with only a ray below: the ascent never stops.
        "static int f(int i) { if (i <= 0) { return 0; } return 1 + f(i + 1); }",
        // A stride of two.
        "static int f(int n) { if (n <= 0) { return 0; } return n + f(n - 2); }",
        // A parameter assigned.
        "static int f(int n) { if (n <= 0) { return 0; } n = n - 1; return 1 + f(n); }",
        // No base ray below: `n == 0` is never reached from below.
        "static int f(int n) { if (n == 0) { return 0; } return 1 + f(n - 1); }",
        // Work before the call (it would run on the way down).
        "static int f(int n, int[] a) { if (n <= 0) { return 0; } int x = a[n]; \
         return x + f(n - 1, a); }",
        // A second argument that changes.
        "static int f(int n, int s) { if (n <= 0) { return s; } return f(n - 1, s + n); }",
    ] {
        let p = java(src);
        let f = p.find("f").next().map(|(id, _)| id).expect("f");
        assert!(climb::climbed(&p, f, false).is_none(), "climbed: {src}");
    }
    // A local read before its level writes it (C): a fresh frame's value
    // in the recursion, the level below's in a loop.
    let p = crate::lang::lower_unfolded(
        Lang::C,
        "int f(int n) { int z; if (n <= 0) return 0; int r = f(n - 1); z = z + r; return z; }",
    );
    assert!(climb::climbed(&p, FuncId(0), false).is_none());
    // `hi < lo` is `hi <= lo - 1` only where `lo - 1` cannot wrap.
    let p = java(
        "static int f(int lo, int hi) { if (hi < lo) { return 0; } return 1 + f(lo, hi - 1); }",
    );
    let f = p.find("f").next().map(|(id, _)| id).expect("f");
    assert!(climb::climbed(&p, f, true).is_none());
    let after = climb::climbed(&p, f, false).expect("climbed without wrapping");
    same_results(&p, &after, f, &grid());
}

#[test]
fn inline_keeps_results() {
    for src in [
        // A helper with a loop, its result used.
        "static int f(int a, int b) { int x = a + 1; int y = g(x, b); return y * 2; } \
         static int g(int p, int q) { int s = 0; for (int i = 0; i < q; i++) { s += p; } return s; }",
        // Two call sites, each with its own locals.
        "static int f(int a, int b) { return g(a, b) - g(b, a); } \
         static int g(int p, int q) { int s = p; if (p > q) { s = s * 3; } return s - q; }",
        // Labels on both sides: the helper's are renumbered past the caller's.
        "static int f(int a, int b) { int t = 0; for (int i = 0; i < 3; i++) { t += i; } \
         return t + g(a, b); } \
         static int g(int p, int q) { while (true) { if (p > q) { break; } p += 2; } return p; }",
        // A helper that faults.
        "static int f(int a, int b) { int r = 0; if (a > 0) { r = g(a, b); } return r; } \
         static int g(int p, int q) { return p / q; }",
        // Its result unused: still evaluated, and it may fault.
        "static int f(int a, int b) { g(b, a); return a; } \
         static int g(int p, int q) { return p / q; }",
    ] {
        let before = java(src);
        let f = before.find("f").next().map(|(id, _)| id).expect("f");
        let g = before.find("g").next().map(|(id, _)| id).expect("g");
        let after = inline::inlined(&before, f, g).unwrap_or_else(|| panic!("inlined: {src}"));
        assert!(
            !crate::ir::any_stmt(
                &after.function(f).body.as_ref().expect("body").body,
                &mut |s| { matches!(&s.kind, ir::StmtKind::Call { func, .. } if *func == g) }
            ),
            "a call is left: {src}"
        );
        same_results(&before, &after, f, &grid());
    }
}

#[test]
fn inline_refuses_what_it_cannot_keep_exact() {
    for src in [
        // A call in a loop: the helper's locals would keep their values.
        "static int f(int a, int b) { int t = 0; for (int i = 0; i < b; i++) { t += g(a, i); } \
         return t; } static int g(int p, int q) { int s = p; return s + q; }",
        // A return before the end.
        "static int f(int a, int b) { return g(a, b); } \
         static int g(int p, int q) { if (p > q) { return p; } return q; }",
        // A recursive helper.
        "static int f(int a, int b) { return g(a, b); } \
         static int g(int p, int q) { int r = 0; if (p > 0) { r = g(p - 1, q) + q; } return r; }",
        // No call.
        "static int f(int a, int b) { return a + b; } static int g(int p, int q) { return p; }",
    ] {
        let p = java(src);
        let f = p.find("f").next().map(|(id, _)| id).expect("f");
        let g = p.find("g").next().map(|(id, _)| id).expect("g");
        assert!(inline::inlined(&p, f, g).is_none(), "inlined: {src}");
    }
}
