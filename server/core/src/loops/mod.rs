//! Unbounded loop equivalence with constrained Horn clauses: lockstep,
//! after decomposition and alignment.
//!
//! Two versions whose top-level loops correspond one to one are run as a
//! product program: loop `k` of each version in step with the other's,
//! related by an inductive invariant `Inv_k(V_old, V_new)` that Z3's CHC
//! engine (Spacer) finds. `shape.rs` cuts the bodies at their loops and
//! refuses what the first cut does not handle; `rearrange.rs` rewrites one
//! version's cut, exactly, so that loops which do not correspond one to
//! one as written do (phases, unrolling, a peeled last iteration,
//! fission); `encode.rs` builds the clauses with the symbolic executor run
//! on each loop-free stretch; `solve.rs` asks Spacer. `align.rs` lists the
//! candidate cuts, cheapest first, and `lockstep/prove.rs` searches them
//! under the deadline; this module is the entry (`prove_lockstep`): it
//! turns reversed loops around and prepares both versions.
//!
//! *Invariants:* a proof comes only from Horn clauses that Spacer finds
//! satisfiable (inductive invariants exist, so no bad state is reachable
//! from any input; see `solve.rs` for the polarity), with every construct encoded by the same executor as
//! the bounded checkers (so meaning equals the interpreter's,
//! `docs/semantics.md`); anything outside the encoding is an error naming
//! the construct. A satisfiable query is never a refutation here: it may
//! only mean the loops do not run in lockstep (counterexamples are the
//! `symbolic` checker's job, replayed by the interpreter).

pub mod invariants;
pub mod lockstep;
pub mod recursion;

pub use crate::passes::{constants, hoist, jumps, reverse, tail};
pub use invariants::{houdini, solve};
pub use lockstep::{encode, rearrange, shape};
pub use recursion::{callees, summaries};

use crate::ir::{FuncId, Program};
use crate::symbolic::ops::Ops;
use crate::verdict::Assumption;
use crate::verdict::{LoopInvariant, Unknown};
use lockstep::align::Candidate;
use lockstep::prove::prove_turned;
use std::time::Instant;

/// A proof by the loop checker.
#[derive(Debug)]
pub struct LoopProof {
    /// One per pair of loops: the certificate.
    pub invariants: Vec<LoopInvariant>,
    /// What the proof assumes, in words.
    pub assumptions: Vec<Assumption>,
    /// Equivalence only where both versions terminate (the interleaved
    /// product, [`encode::Product::Interleaved`]).
    pub partial: bool,
}

impl LoopProof {
    /// The proof by `enc`'s relations with `formulas` as their
    /// interpretations; `alignment(k)` tells how loop pair `k` was aligned
    /// (iterations peeled before it, the rearrangement in words).
    fn new(
        enc: &encode::Encoding,
        formulas: Vec<String>,
        partial: bool,
        alignment: impl Fn(usize) -> ((u32, u32), String),
    ) -> LoopProof {
        let mut assumptions = Vec::new();
        // A call of an opaque callee is assumed to return: runs in which
        // one does not are not compared (said as an assumption, as ARDiff
        // says it of common code with loops that it abstracts).
        if !enc.opaque_calls.is_empty() {
            assumptions.push(Assumption::OpaqueCalls(enc.opaque_calls.clone()));
        }
        if !enc.uninterpreted.is_empty() {
            assumptions.push(Assumption::Uninterpreted(enc.uninterpreted.clone()));
        }
        let invariants = enc
            .relations
            .iter()
            .zip(formulas)
            .enumerate()
            .map(|(k, (r, formula))| {
                let ((old_peeled, new_peeled), rearranged) = alignment(k);
                LoopInvariant {
                    old_line: r.old_span.line(),
                    new_line: r.new_span.line(),
                    old_peeled,
                    new_peeled,
                    rearranged,
                    formula,
                }
            })
            .collect();
        LoopProof {
            invariants,
            assumptions,
            partial,
        }
    }
}

/// Tries to prove the pair equivalent by a lockstep invariant: the
/// invariants found (one per pair of loops), or why not.
pub fn prove_lockstep(
    ops: Ops,
    old: (&Program, FuncId),
    new: (&Program, FuncId),
    deadline: Instant,
) -> Result<LoopProof, Unknown> {
    prove_with(ops, old, new, deadline, &|_| true)
}

/// [`prove_lockstep`] over the candidates `keep` lets through, after
/// turning reversed reduction loops around (`passes/reverse.rs`).
fn prove_with(
    ops: Ops,
    old: (&Program, FuncId),
    new: (&Program, FuncId),
    deadline: Instant,
    keep: &dyn Fn(&Candidate) -> bool,
) -> Result<LoopProof, Unknown> {
    // A sum does not depend on the order of its terms (on words, where
    // the pass finds the bounds cannot wrap).
    let words = if ops.machine() {
        reverse::Words::Machine {
            overflow_undefined: ops.overflow_undefined(),
        }
    } else {
        reverse::Words::Unbounded
    };
    let turned = reverse::reversed(old, new, words);
    let Some(turned) = turned else {
        return prove_turned(ops, old, new, deadline, keep);
    };
    let old = (turned.old.as_ref().unwrap_or(old.0), old.1);
    let new = (turned.new.as_ref().unwrap_or(new.0), new.1);
    prove_turned(ops, old, new, deadline, keep).map(|mut proof| {
        proof.assumptions.extend(turned.notes);
        proof
    })
}

/// `program` with `func` rewritten for the encoding, each step keeping its
/// meaning: `break` and `continue` as flags, loops inside branches brought
/// to the top level, constant locals replaced by their values. `None` when
/// nothing changed.
fn prepared(program: &Program, func: FuncId) -> Option<Program> {
    let jumped = jumps::flagged(program, func);
    let hoisted = hoist::hoisted(jumped.as_ref().unwrap_or(program), func).or(jumped);
    let base = hoisted.as_ref().unwrap_or(program);
    let mut f = base.function(func).body.as_ref().ok()?.clone();
    if !constants::propagate(&mut f) {
        return hoisted;
    }
    let mut p = hoisted.unwrap_or_else(|| program.clone());
    if let Some(def) = p.functions.get_mut(func.0 as usize) {
        def.body = Ok(f);
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Lang, Semantics};
    use crate::verdict::UnknownReason;
    use std::time::Duration;

    fn prove_java(old: &str, new: &str) -> Result<Vec<LoopInvariant>, Unknown> {
        prove_java_proof(old, new).map(|p| p.invariants)
    }

    fn prove_java_proof(old: &str, new: &str) -> Result<LoopProof, Unknown> {
        let (po, pn) = (
            crate::lang::lower(Lang::Java, old),
            crate::lang::lower(Lang::Java, new),
        );
        let ops = Ops::new(Semantics::Math, Lang::Java, Default::default());
        let deadline = crate::clock::now() + Duration::from_secs(20);
        prove_lockstep(ops, (&po, FuncId(0)), (&pn, FuncId(0)), deadline)
    }

    fn method(body: &str) -> String {
        format!("class A {{ {body} }}")
    }

    fn proved(old: &str, new: &str) -> Vec<LoopInvariant> {
        match prove_java(&method(old), &method(new)) {
            Ok(inv) => inv,
            Err(u) => panic!("expected a proof, got {u:?}"),
        }
    }

    fn not_proved(old: &str, new: &str) -> Unknown {
        match prove_java(&method(old), &method(new)) {
            Ok(inv) => panic!("must not be proved, got invariants {inv:?}"),
            Err(u) => u,
        }
    }

    fn prove_under(
        lang: Lang,
        sem: Semantics,
        signed_overflow: crate::ir::SignedOverflow,
        old: &str,
        new: &str,
    ) -> Result<LoopProof, Unknown> {
        let (po, pn) = (crate::lang::lower(lang, old), crate::lang::lower(lang, new));
        let ops = Ops::new(sem, lang, signed_overflow);
        let deadline = crate::clock::now() + Duration::from_secs(20);
        prove_lockstep(ops, (&po, FuncId(0)), (&pn, FuncId(0)), deadline)
    }

    /// Where C's signed overflow is undefined, a guard `i + 1 < n` may
    /// fail: the loops are still rearranged, and the invariant must show
    /// that no head state overflows it.
    #[test]
    fn c_loops_are_rearranged_where_signed_overflow_is_undefined() {
        use crate::ir::SignedOverflow;
        let c_machine = |old: &str, new: &str| {
            prove_under(
                Lang::C,
                Semantics::Machine,
                SignedOverflow::Undefined,
                old,
                new,
            )
        };
        let old = "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += 2 * i + 1; } \
                   return s; }";
        let unrolled = "int f(int n) { int s = 0; int i = 0; \
                        for (; i + 1 < n; i += 2) { s += 2 * i + 1; s += 2 * i + 3; } \
                        for (; i < n; i++) { s += 2 * i + 1; } return s; }";
        let proof = c_machine(old, unrolled).expect("proved over bit-vectors");
        assert!(
            proof.invariants.iter().any(|i| !i.rearranged.is_empty()),
            "{:?}",
            proof.invariants
        );
        // Without the remainder loop they differ (odd n).
        let no_remainder = "int f(int n) { int s = 0; int i = 0; \
                            for (; i + 1 < n; i += 2) { s += 2 * i + 1; s += 2 * i + 3; } \
                            return s; }";
        assert!(c_machine(old, no_remainder).is_err());
        // `i + 1 <= n` overflows for n = INT_MAX, where `i < n` stops: the
        // guard's failure is a bad state, never assumed away. (With the
        // sum above, both versions' `s` would overflow long before — both
        // undefined, which the new version refines — so the pair compared
        // keeps nothing that overflows but the guard.)
        let last = "int f(int n) { int c = 0; for (int i = 0; i < n; i++) { c = i; } return c; }";
        let overflowing = "int f(int n) { int c = 0; int i = 0; \
                           while (i + 1 <= n) { c = i; i++; } return c; }";
        assert!(c_machine(last, overflowing).is_err());
        let wrapping = prove_under(
            Lang::C,
            Semantics::Machine,
            SignedOverflow::Wraps,
            last,
            overflowing,
        );
        assert!(wrapping.is_err(), "with -fwrapv it spins for n = INT_MAX");
    }

    /// A loop run while the other version's guard held, its last
    /// iteration peeled: where only the old loop moves, the new one stays
    /// exited — a candidate over bit-vectors (Spacer finds it under math).
    #[test]
    fn a_break_into_the_guard_is_proved_under_machine() {
        let old = "class A { static int f(int n, int limit) { int s = 0; \
                   for (int i = 0; i < n; i++) { if (s > limit) { break; } s += i; } \
                   return s; } }";
        let new = "class A { static int f(int n, int limit) { int s = 0; int i = 0; \
                   while (i < n && s <= limit) { s += i; i++; } return s; } }";
        let machine = |old: &str, new: &str| {
            prove_under(Lang::Java, Semantics::Machine, Default::default(), old, new)
        };
        machine(old, new).expect("proved over bit-vectors");
        // Testing the budget after the update is a difference.
        let late = new.replace(
            "while (i < n && s <= limit) { s += i;",
            "while (i < n && s + i <= limit) { s += i;",
        );
        assert!(machine(old, &late).is_err());
    }

    #[test]
    fn an_unchanged_callee_with_a_loop_is_an_uninterpreted_function() {
        let h = "static int h(int k) { int r = 0; while (r < k) { r++; } return r / (k - 3); }";
        let old = format!(
            "int f(int n) {{ int s = 0; for (int i = 0; i < n; i++) {{ s += h(i); }} return s; }} {h}"
        );
        let new = format!(
            "int f(int n) {{ int s = 0; int i = 0; while (i < n) {{ s = s + h(i); i = i + 1; }} return s; }} {h}"
        );
        let proof = prove_java_proof(&method(&old), &method(&new)).expect("proved");
        assert!(
            proof
                .assumptions
                .iter()
                .any(|a| *a == Assumption::OpaqueCalls(vec!["h".into()])),
            "{:?}",
            proof.assumptions
        );
        // Another argument: the shared function does not make them equal.
        let wrong = format!(
            "int f(int n) {{ int s = 0; for (int i = 0; i < n; i++) {{ s += h(i + 1); }} return s; }} {h}"
        );
        not_proved(&old, &wrong);
        // A callee changed between the versions is not shared (it is
        // inlined, and its loop is beyond the stretches' encoding).
        let changed = new.replace("r / (k - 3)", "r / (k - 4)");
        not_proved(&old, &changed);
    }

    #[test]
    fn a_do_loop_holding_a_loop_runs_in_lockstep() {
        let inv = proved(
            "int f(int n, int c) { int s = 0; do { for (int i = 0; i < n; i++) { s += i; } c--; } while (c > 0); return s; }",
            "int f(int n, int c) { int s = 0; do { int i = 0; while (i < n) { s = s + i; i = i + 1; } c = c - 1; } while (c >= 1); return s; }",
        );
        assert_eq!(inv.len(), 2, "outer and inner loop: {inv:?}");
    }

    #[test]
    fn a_shifted_counter_is_proved_with_a_relational_invariant() {
        // REVE loop2: the counter starts one higher and the bound is `<=`.
        let inv = proved(
            "int f(int n) { int i = 1; int j = 0; while (i <= n) { j = j + 2; i++; } return j; }",
            "int f(int n) { int i = 0; int j = 0; while (i < n) { j = j + 2; i++; } return j; }",
        );
        assert_eq!(inv.len(), 1);
        assert!(inv[0].formula.contains("old.i"), "{inv:?}");
    }

    #[test]
    fn for_while_and_do_while_rewrites_are_proved() {
        let for_loop =
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }";
        let while_loop = "int f(int n) { int s = 0; int k = 0; while (k < n) { s = s + k; k = k + 1; } return s; }";
        proved(for_loop, while_loop);
        // A do-while loop's first iteration is its own stretch: it runs in
        // step with a while loop whose counter starts one later...
        let do_while = "int f(int n) { int s = 0; int k = 0; do { s = s + k; k++; } while (k < n); return s; }";
        let from_one =
            "int f(int n) { int s = 0; for (int i = 1; i < n; i++) { s += i; } return s; }";
        proved(do_while, from_one);
        // ...and with the same loop from zero once that one's first
        // iteration (adding 0) is peeled.
        let inv = proved(for_loop, do_while);
        assert_eq!((inv[0].old_peeled, inv[0].new_peeled), (1, 0));
    }

    #[test]
    fn early_returns_before_the_loop_must_agree() {
        let guarded = |early: &str| {
            format!(
                "int f(int n) {{ int s = 0; if (n < 0) return {early}; \
                 for (int i = 0; i < n; i++) {{ s += i; }} return s; }}"
            )
        };
        let while_guarded = "int f(int n) { if (n < 0) { return 0; } int s = 0; int k = 0; \
                             while (k < n) { s = s + k; k++; } return s; }";
        proved(&guarded("0"), while_guarded);
        not_proved(&guarded("-1"), while_guarded);
    }

    #[test]
    fn an_early_return_in_one_version_needs_the_other_loop_not_to_run() {
        let plain =
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i + 1; } return s; }";
        let guarded = |limit: &str, early: &str| {
            format!(
                "int f(int n) {{ if (n < {limit}) return {early}; int s = 0; \
                 for (int i = 0; i < n; i++) {{ s += i + 1; }} return s; }}"
            )
        };
        // Where the early return fires, the other loop does not run and
        // returns the same.
        proved(&guarded("1", "0"), plain);
        proved(plain, &guarded("1", "0"));
        // A different value, or an early return where the loop would run.
        not_proved(&guarded("1", "-1"), plain);
        not_proved(&guarded("5", "0"), plain);
        not_proved(plain, &guarded("5", "0"));
    }

    #[test]
    fn a_different_accumulator_in_lockstep_is_proved() {
        proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += 2 * i; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; s += i; } return s; }",
        );
    }

    #[test]
    fn differences_and_unaligned_loops_are_not_proved() {
        // A real difference: one more added per iteration.
        let u = not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i + 1; } return s; }",
        );
        assert_eq!(u.reason, UnknownReason::SolverUnknown);
        assert!(u.detail.contains("peeling"), "{}", u.detail);
        // Off by one in the bound.
        not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i <= n; i++) { s += i; } return s; }",
        );
        // Off by one the other way, which peeling could align but the
        // extra iteration changes the sum.
        not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i + 1; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i <= n; i++) { s += i + 1; } return s; }",
        );
    }

    #[test]
    fn an_extra_neutral_iteration_is_aligned_by_peeling() {
        // REVE barthe2big: the second loops run n+1 and n times (the extra
        // iteration adds 0): in step once the old one's first iteration is
        // peeled.
        let inv = proved(
            "int f(int n) { int i = 1; int x = 1; while (i <= n) { x = x * 5; i++; } \
             i = 0; while (i <= n) { x = x + i; i++; } return x; }",
            "int f(int n) { int i = 1; int x = 1; while (i <= n) { x = x * 5; i++; } \
             i = 1; while (i <= n) { x = x + i; i++; } return x; }",
        );
        assert_eq!(
            inv.iter()
                .map(|i| (i.old_peeled, i.new_peeled))
                .collect::<Vec<_>>(),
            vec![(0, 0), (1, 0)]
        );
    }

    #[test]
    fn nonlinear_operations_in_a_loop_are_uninterpreted() {
        // Spacer does not take `div` by a variable: the quotient is an
        // uninterpreted function of its operands, which is all this proof
        // needs (both versions divide the same numbers, fault at the same
        // iteration when d - i = 0).
        let old = "int f(int n, int d) { int s = 0; for (int i = 0; i < n; i++) { s += 100 / (d - i); } return s; }";
        let same = "int f(int n, int d) { int s = 0; int i = 0; while (i < n) { int q = 100 / (d - i); s = s + q; i++; } return s; }";
        proved(old, same);
        // Products commute: i * s and s * i are one product.
        let old =
            "int f(int n) { int s = 1; for (int i = 1; i < n; i++) { s = s * i + 1; } return s; }";
        let same =
            "int f(int n) { int s = 1; for (int i = 1; i < n; i++) { s = 1 + i * s; } return s; }";
        proved(old, same);
        // But an abstraction proves nothing wrong: a different divisor.
        let other = "int f(int n, int d) { int s = 0; for (int i = 0; i < n; i++) { s += 100 / (d + i); } return s; }";
        let old = "int f(int n, int d) { int s = 0; for (int i = 0; i < n; i++) { s += 100 / (d - i); } return s; }";
        not_proved(old, other);
        // Library functions are uninterpreted, named in the assumptions.
        let (po, pn) = (
            crate::lang::lower(
                Lang::Java,
                &method(
                    "double f(int n) { double s = 0; for (int i = 0; i < n; i++) { s += Math.sqrt(i) * 2; } return s; }",
                ),
            ),
            crate::lang::lower(
                Lang::Java,
                &method(
                    "double f(int n) { double s = 0; int i = 0; while (i < n) { double r = Math.sqrt(i); s = s + 2 * r; i = i + 1; } return s; }",
                ),
            ),
        );
        let ops = Ops::new(Semantics::Math, Lang::Java, Default::default());
        let deadline = crate::clock::now() + Duration::from_secs(20);
        let proof = prove_lockstep(ops, (&po, FuncId(0)), (&pn, FuncId(0)), deadline)
            .unwrap_or_else(|u| panic!("expected a proof, got {u:?}"));
        assert_eq!(
            proof.assumptions,
            vec![Assumption::Uninterpreted(vec!["sqrt".into()])]
        );
        not_proved(
            "double f(int n) { double s = 0; for (int i = 0; i < n; i++) { s += Math.sqrt(i); } return s; }",
            "double f(int n) { double s = 0; for (int i = 0; i < n; i++) { s += Math.sqrt(i + 1); } return s; }",
        );
    }

    #[test]
    fn nested_loops_run_in_lockstep_level_by_level() {
        let inv = proved(
            "int f(int n, int m) { int s = 0; for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) { s += i + j; } s = s * 1; } return s; }",
            "int f(int n, int m) { int s = 0; int i = 0; while (i < n) { int j = 0; while (j < m) { s = s + j + i; j++; } i = i + 1; } return s; }",
        );
        assert_eq!(inv.len(), 2, "one invariant per loop pair: {inv:?}");
        // The inner bound differs: never proved.
        not_proved(
            "int f(int n, int m) { int s = 0; for (int i = 0; i < n; i++) { for (int j = 0; j < m; j++) { s += i + j; } } return s; }",
            "int f(int n, int m) { int s = 0; for (int i = 0; i < n; i++) { for (int j = 0; j <= m; j++) { s += i + j; } } return s; }",
        );
        // A loop in a branch of a loop stays outside the encoding.
        let u = not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i > 2) { for (int j = 0; j < i; j++) { s++; } } } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i > 2) { for (int j = 0; j < i; j++) { s++; } } } return s + 0; }",
        );
        assert!(
            u.detail.contains("a loop inside a branch of a loop"),
            "{}",
            u.detail
        );
    }

    #[test]
    fn constructs_outside_the_encoding_are_named() {
        let u = not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } for (int j = 0; j < n; j++) { s += j; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; for (int j = 0; j < 0; j++) { s += j; } } return s; }",
        );
        assert_eq!(u.reason, UnknownReason::NotEncodable);
        assert!(
            u.detail.contains("nest their loops differently"),
            "{}",
            u.detail
        );
        let u = not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { if (i > 2) { while (s < 0) { s++; } } s += i; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }",
        );
        assert!(
            u.detail.contains("a loop inside a branch of a loop")
                && u.detail.contains("old version"),
            "{}",
            u.detail
        );
        // An extra loop that splitting cannot align (a different guard
        // variable, missing in the other version) is named with the counts.
        let u = not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }",
            "int f(int n) { int s = 0; for (int k = 0; k < n; k++) { s += k; } for (int j = 0; j < 0; j++) { } return s; }",
        );
        assert!(u.detail.contains("1 and 2 top-level loops"), "{}", u.detail);
        assert!(u.detail.contains("missing"), "{}", u.detail);
    }

    fn note_of(inv: &[LoopInvariant]) -> String {
        inv.iter()
            .map(|i| i.rearranged.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    }

    #[test]
    fn a_loop_split_into_phases_is_proved() {
        let single = "int f(int n) { int s = 0; int i = 0; \
                      while (i < n) { if (i < 10) { s = s + 2; } else { s = s + 1; } i++; } return s; }";
        let two = "int f(int n) { int s = 0; int i = 0; while (i < n && i < 10) { s = s + 2; i++; } \
                   while (i < n) { s = s + 1; i++; } return s; }";
        let inv = proved(single, two);
        assert_eq!(inv.len(), 2);
        assert!(note_of(&inv).contains("old loop split"), "{inv:?}");
        // And the other way round.
        let inv = proved(two, single);
        assert!(note_of(&inv).contains("new loop split"), "{inv:?}");
        // A dropped phase is not proved.
        let dropped = "int f(int n) { int s = 0; int i = 0; while (i < n && i < 10) { s = s + 2; i++; } \
                       while (i < n - 1) { s = s + 1; i++; } return s; }";
        not_proved(single, dropped);
    }

    #[test]
    fn unrolled_loops_with_and_without_remainder_are_proved() {
        let single = "int f(int n) { int s = 0; int i = 0; while (i < n) { s = s + 3; i = i + 1; } return s; }";
        for m in [2, 4, 8] {
            let copies = "s = s + 3; ".repeat(m);
            let unrolled = format!(
                "int f(int n) {{ int s = 0; int i = 0; while (i + {} < n) {{ {copies}i = i + {m}; }} \
                 while (i < n) {{ s = s + 3; i = i + 1; }} return s; }}",
                m - 1
            );
            let inv = proved(single, &unrolled);
            assert!(note_of(&inv).contains(&format!("unrolled ×{m}")), "{inv:?}");
            // A wrong remainder (one iteration short) is not proved.
            let wrong = unrolled.replace("while (i < n)", "while (i < n - 1)");
            not_proved(single, &wrong);
        }
        // Without a remainder: the counter of the unrolled loop counts blocks.
        let blocks = "int f(int n) { int s = 0; int i = 0; while (i < 4 * n) { s = s + 3; i = i + 1; } return s; }";
        let unrolled = "int f(int n) { int s = 0; int k = 0; while (k < n) { s = s + 3; s = s + 3; \
                        s = s + 3; s = s + 3; k = k + 1; } return s; }";
        let inv = proved(blocks, unrolled);
        assert!(note_of(&inv).contains("unrolled ×4"), "{inv:?}");
    }

    #[test]
    fn unrolled_loops_with_a_tail_after_them_are_proved() {
        // The unrolled loop stops while fewer than `m` iterations remain
        // and does them after it, not in a remainder loop: the single loop
        // is unrolled and its last (partial) iteration peeled.
        let single = "int f(int n) { int s = 0; int i = 0; while (i < n) { s = s + 2 * i + 1; i = i + 1; } return s; }";
        let tail = "int f(int n) { int s = 0; int i = 0; \
                    while (i + 1 < n) { s = s + 2 * i + 1; s = s + 2 * i + 3; i = i + 2; } \
                    if (i < n) { s = s + 2 * i + 1; } return s; }";
        let inv = proved(single, tail);
        let note = note_of(&inv);
        assert!(
            note.contains("unrolled ×2") && note.contains("guard holds"),
            "{inv:?}"
        );
        proved(tail, single);
        // Without the tail, odd counts lose their last iteration.
        let no_tail = tail.replace("if (i < n) { s = s + 2 * i + 1; }", "");
        not_proved(single, &no_tail);
        // A tail that runs its iteration twice is not proved either.
        let twice = tail.replace(
            "if (i < n) { s = s + 2 * i + 1; }",
            "if (i < n) { s = s + 2 * i + 1; } if (i < n) { s = s + 2 * i + 1; }",
        );
        not_proved(single, &twice);
    }

    #[test]
    fn a_peeled_last_iteration_is_proved() {
        // Consecutive states are not related linearly (s is reset past
        // 10): peeling the first iteration does not align these.
        let plain = "int f(int n) { int s = 0; int i = 0; \
                     while (i < n) { if (s > 10) { s = 0; } s = s + i; i++; } return s; }";
        let last = "int f(int n) { int s = 0; int i = 0; \
                    while (i < n - 1) { if (s > 10) { s = 0; } s = s + i; i++; } \
                    if (i < n) { if (s > 10) { s = 0; } s = s + i; i++; } return s; }";
        // Spacer aligns them by peeling the first iteration anyway; the
        // peeled last iteration, alone, proves them too.
        proved(plain, last);
        proved(last, plain);
        let only_last = |c: &Candidate| c.notes.iter().any(|n| n.contains("last iteration"));
        let (po, pn) = (
            crate::lang::lower(Lang::Java, &method(plain)),
            crate::lang::lower(Lang::Java, &method(last)),
        );
        let ops = Ops::new(Semantics::Math, Lang::Java, Default::default());
        let deadline = crate::clock::now() + Duration::from_secs(20);
        for (a, b) in [(&po, &pn), (&pn, &po)] {
            let inv = prove_with(ops, (a, FuncId(0)), (b, FuncId(0)), deadline, &only_last)
                .expect("proved by the peeled last iteration")
                .invariants;
            assert!(note_of(&inv).contains("last iteration"), "{inv:?}");
            assert_eq!(inv.len(), 2);
        }
        let wrong = last.replace("s = s + i; i++; } return", "s = s + i + 1; i++; } return");
        not_proved(plain, &wrong);
    }

    #[test]
    fn fission_and_fusion_are_proved_when_legal() {
        let fused = "int f(int n) { int s = 0; int p = 1; int i = 0; \
                     while (i < n) { s = s + i; p = p + 2 * i; i++; } return s - p; }";
        let fissioned = "int f(int n) { int s = 0; int p = 1; int i = 0; \
                         while (i < n) { s = s + i; i++; } i = 0; \
                         while (i < n) { p = p + 2 * i; i++; } return s - p; }";
        let inv = proved(fused, fissioned);
        assert!(note_of(&inv).contains("fission"), "{inv:?}");
        proved(fissioned, fused);
        // B2 reads B1's scalar: fission would change what it reads.
        let reads = "int f(int n) { int s = 0; int p = 1; int i = 0; \
                     while (i < n) { s = s + i; p = p + s; i++; } return p; }";
        let reads_split = "int f(int n) { int s = 0; int p = 1; int i = 0; \
                           while (i < n) { s = s + i; i++; } i = 0; \
                           while (i < n) { p = p + s; i++; } return p; }";
        not_proved(reads, reads_split);
    }

    #[test]
    fn arrays_are_loop_state_related_by_equality() {
        // Read only: the sum over an input array, for vs while.
        let inv = proved(
            "int f(int[] a) { int s = 0; for (int i = 0; i < a.length; i++) { s += a[i]; } return s; }",
            "int f(int[] a) { int s = 0; int i = 0; while (i < a.length) { s = s + a[i]; i++; } return s; }",
        );
        assert!(
            inv[0].formula.contains("(= old.a new.a)"),
            "{}",
            inv[0].formula
        );
        // Written in place: the parameter's final contents are compared.
        proved(
            "void f(int[] a, int k) { for (int i = 0; i < a.length; i++) { a[i] = a[i] + k; } }",
            "void f(int[] a, int k) { int i = 0; while (i < a.length) { a[i] += k; i += 1; } }",
        );
        // ... so a skipped element is never proved.
        not_proved(
            "void f(int[] a, int k) { for (int i = 0; i < a.length; i++) { a[i] = a[i] + k; } }",
            "void f(int[] a, int k) { for (int i = 1; i < a.length; i++) { a[i] = a[i] + k; } }",
        );
        // An array created before the loop is state too; one created in
        // the loop is dropped at the next head.
        proved(
            "int f(int n) { int[] b = new int[2]; int s = 0; for (int i = 0; i < n; i++) { b[i % 2] += i; int[] t = new int[1]; t[0] = i; s += t[0]; } return s + b[0]; }",
            "int f(int n) { int[] b = new int[2]; int s = 0; for (int i = 0; i < n; i++) { b[i % 2] = b[i % 2] + i; s += i; } return s + b[0]; }",
        );
    }

    #[test]
    fn an_array_variable_pointed_elsewhere_in_a_loop_is_refused() {
        let u = not_proved(
            "int f(int[] a, int[] b) { int[] c = a; for (int i = 0; i < 3; i++) { c = b; } return c.length; }",
            "int f(int[] a, int[] b) { for (int i = 0; i < 3; i++) { } return b.length; }",
        );
        assert_eq!(u.reason, UnknownReason::NotEncodable);
        assert!(u.detail.contains("names another array"), "{}", u.detail);
    }

    #[test]
    fn equalities_need_only_hold_while_a_loop_runs() {
        // The first iteration peeled: on an empty array the new counter
        // starts at 1 and the old one (not peeled) at 0, while neither
        // loop runs.
        let inv = proved(
            "void f(int[] y, int k) { for (int i = 0; i < y.length; i++) { y[i] = y[i] + k; } }",
            "void f(int[] y, int k) { if (y.length > 0) { y[0] += k; } for (int i = 1; i < y.length; i++) { y[i] += k; } }",
        );
        assert_eq!(inv[0].old_peeled, 1);
        assert!(
            inv[0].formula.contains("(= old.i new.i)"),
            "{}",
            inv[0].formula
        );
    }

    #[test]
    fn a_guard_over_a_local_the_other_version_lacks_goes_through_its_definition() {
        // `n = a.length` exists only in the unrolled version: the single
        // loop is split at `i + 3 < a.length`.
        let inv = proved(
            "void f(int[] a) { for (int i = 0; i < a.length; i++) { a[i] = a[i] + 1; } }",
            "void f(int[] a) { int n = a.length; int i = 0; for (; i + 3 < n; i += 4) { a[i] += 1; a[i + 1] += 1; a[i + 2] += 1; a[i + 3] += 1; } for (; i < n; i++) { a[i] += 1; } }",
        );
        assert!(
            inv[0].rearranged.contains("unrolled"),
            "{:?}",
            inv[0].rearranged
        );
        assert!(inv[0].formula.contains("new.n"), "{}", inv[0].formula);
    }

    #[test]
    fn loops_out_of_step_are_proved_only_where_both_terminate() {
        // REVE whileif: with t <= 0 the new loop spins forever while the
        // old one is skipped; where both terminate they agree.
        let old = "int f(int t, int c) { int x = 0; if (0 < t) { while (0 < c) { x++; c = c - 1; } } return x; }";
        let new = "int f(int t, int c) { int x = 0; while (0 < c) { if (0 < t) { x++; c = c - 1; } } return x; }";
        let proof =
            prove_java_proof(&method(old), &method(new)).expect("proved where both terminate");
        assert!(proof.partial);
        assert!(proof.invariants[0].rearranged.contains("interleaved"));
        // A difference on terminating inputs is never proved, interleaved
        // or not.
        not_proved(
            old,
            "int f(int t, int c) { int x = 0; while (0 < c) { if (0 < t) { x += 2; c = c - 1; } } return x; }",
        );
    }

    #[test]
    fn a_loop_is_summarised_against_straight_line_code() {
        // A search loop that returns from its body against a direct test,
        // either way round: the loop runs alone, and its early return is
        // compared with the loop-free version's whole run.
        let search = "boolean f(int k, int n) { for (int i = 0; i < n; i++) { if (i == k) { return true; } } return false; }";
        let test = "boolean f(int k, int n) { return 0 <= k && k < n; }";
        for (old, new) in [(search, test), (test, search)] {
            let proof = prove_java_proof(&method(old), &method(new))
                .expect("proved where the loop terminates");
            assert!(proof.partial);
            assert!(
                proof.invariants[0].rearranged.contains("alone"),
                "{:?}",
                proof.invariants[0].rearranged
            );
        }
        // An accumulator against its closed form.
        proved(
            "int f(int n) { int r = 0; while (n > 0) { r += 2; n--; } return r; }",
            "int f(int n) { return n > 0 ? 2 * n : 0; }",
        );
        // Off by one at either end is never proved.
        let u = not_proved(
            "boolean f(int k, int n) { for (int i = 0; i <= n; i++) { if (i == k) { return true; } } return false; }",
            test,
        );
        assert!(u.detail.contains("only the old version loops"), "{u:?}");
        not_proved(
            "int f(int n) { int r = 0; while (n > 0) { r += 2; n--; } return r; }",
            "int f(int n) { return n > 1 ? 2 * n : 0; }",
        );
    }

    #[test]
    fn a_loop_after_an_early_return_meets_a_closed_form_with_products() {
        // The loop-free version's product, made where it waits at its idle
        // loop's head, is instantiated at the state of the clause in which
        // the looping version returns early (`n <= 0`): there it is the
        // product of the early state, not of a free one.
        let looped = "long f(int n) { if (n <= 0) { return 0; } if (n > 5000) { n = 5000; } long s = 0; for (int i = 1; i <= n; i++) { s += i; } return s; }";
        proved(
            looped,
            "long f(int n) { long m = Math.min(Math.max(n, 0), 5000); return m * (m + 1) / 2; }",
        );
        not_proved(
            looped,
            "long f(int n) { long m = Math.min(Math.max(n, 0), 5000); return m * (m - 1) / 2; }",
        );
    }

    // Not run by default: the proof rests on one nonlinear safety query
    // that Z3 decides at about the unit cap of a Houdini check (about 10 M
    // units against a cap of 8 M and as much again by cases), and whether
    // it is decided varies between runs of the same binary with the work
    // of the phases before it. `cargo test -- --ignored` runs it.
    #[test]
    #[ignore = "decided at the edge of its per-check cap; the outcome varies between runs"]
    fn a_cubic_sum_is_proved_through_its_closed_form_at_the_counter() {
        // `6·s = (i − 1)·i·(2i − 1)` is beyond the fitted quadratics; the
        // other version's formula taken at `i − 1` is the invariant.
        let looped = "long f(int n) { if (n <= 0) { return 0; } if (n > 5000) { n = 5000; } long s = 0; for (int i = 1; i <= n; i++) { s += (long) i * i; } return s; }";
        let inv = proved(
            looped,
            "long f(int n) { long m = Math.min(Math.max(n, 0), 5000); return m * (m + 1) * (2 * m + 1) / 6; }",
        );
        assert!(inv[0].formula.contains("old.s"), "{inv:?}");
        not_proved(
            looped,
            "long f(int n) { long m = Math.min(Math.max(n, 0), 5000); return m * (m + 1) * (2 * m - 1) / 6; }",
        );
    }

    #[test]
    fn a_null_array_is_part_of_the_loop_state() {
        // Where the pair tests for null, `a` may be null: the guard
        // `i < a.length` fails on null unless the invariant rules it out
        // at the head (the early return does).
        let guarded = "int f(int[] a) { if (a == null) { return 0; } int s = 0; for (int i = 0; i < a.length; i++) { s += a[i]; } return s; }";
        let inv = proved(
            guarded,
            "int f(int[] a) { int s = 0; int n = a == null ? 0 : a.length; for (int i = 0; i < n; i++) { s += a[i]; } return s; }",
        );
        assert!(inv[0].formula.contains("(not old.a.null)"), "{inv:?}");
        // Without the guard the new loop's `a.length` throws on null.
        not_proved(
            guarded,
            "int f(int[] a) { int s = 0; for (int i = 0; i < a.length; i++) { s += a[i]; } return s; }",
        );
    }
}
