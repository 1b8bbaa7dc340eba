//! Unbounded loop equivalence with constrained Horn clauses (issue 6, first
//! cut: lockstep).
//!
//! Two versions whose top-level loops correspond one to one are run as a
//! product program: loop `k` of each version in step with the other's,
//! related by an inductive invariant `Inv_k(V_old, V_new)` that Z3's CHC
//! engine (Spacer) finds. `shape.rs` cuts the bodies at their loops and
//! refuses what the first cut does not handle; `encode.rs` builds the
//! clauses with the symbolic executor run on each loop-free stretch;
//! `solve.rs` asks Spacer.
//!
//! *Invariants:* a proof comes only from Horn clauses that Spacer finds
//! satisfiable (inductive invariants exist, so no bad state is reachable
//! from any input; see `solve.rs` for the polarity), with every construct encoded by the same executor as
//! the bounded checkers (so meaning equals the interpreter's,
//! `docs/semantics.md`); anything outside the encoding is an error naming
//! the construct. A satisfiable query is never a refutation here: it may
//! only mean the loops do not run in lockstep (counterexamples are the
//! `symbolic` checker's job, replayed by the interpreter).

pub mod constants;
pub mod encode;
pub mod hoist;
pub mod houdini;
pub mod shape;
pub mod solve;

use crate::check::{LoopInvariant, Unknown, UnknownReason};
use crate::ir::{FuncId, Program};
use crate::symbolic::ops::Ops;
use encode::EncodeFailure;
use std::time::Instant;

/// A proof by the loop checker.
#[derive(Debug)]
pub struct LoopProof {
    /// One per pair of loops: the certificate.
    pub invariants: Vec<LoopInvariant>,
    /// What the proof assumes, in words.
    pub assumptions: Vec<String>,
}

/// Tries to prove the pair equivalent by a lockstep invariant: the
/// invariants found (one per pair of loops), or why not.
pub fn prove_lockstep(
    ops: Ops,
    old: (&Program, FuncId),
    new: (&Program, FuncId),
    deadline: Instant,
) -> Result<LoopProof, Unknown> {
    if ops.sem == crate::ir::Semantics::Machine {
        // The encoding itself works over bit-vectors, but Spacer on libz3
        // 4.8.12 finds no invariant for even the simplest 32-bit counter
        // pairs within 10 s (measured on the loop fixtures); refusing at
        // once keeps the portfolio's budget for the bounded checker.
        return Err(Unknown {
            reason: UnknownReason::NotEncodable,
            detail: "machine semantics: Spacer finds no bit-vector loop invariants in time \
                     (the loop checker works under math semantics)"
                .into(),
        });
    }
    let (old_prepared, new_prepared) = (prepared(old.0, old.1), prepared(new.0, new.1));
    let old = (old_prepared.as_ref().unwrap_or(old.0), old.1);
    let new = (new_prepared.as_ref().unwrap_or(new.0), new.1);
    let old = encode::Version::new(old.0, old.1, true).map_err(not_encodable)?;
    let new = encode::Version::new(new.0, new.1, false).map_err(not_encodable)?;
    let loops = old.shape.loops.len();
    let mut last = None;
    for peels in alignments(loops).into_iter().take(MAX_ALIGNMENTS) {
        if crate::cancel::expired(deadline) {
            break;
        }
        let (mut o, mut n) = (old.shape.clone(), new.shape.clone());
        for (k, p) in peels.iter().enumerate() {
            match p {
                Peel::None => {}
                Peel::Old => {
                    o.peel(k);
                }
                Peel::New => {
                    n.peel(k);
                }
            }
        }
        let (vo, vn) = (
            encode::Version { shape: o, ..old },
            encode::Version { shape: n, ..new },
        );
        let enc = encode::encode(ops, &vo, &vn, deadline).map_err(not_encodable)?;
        // Candidate invariants first (milliseconds when they apply), then
        // Spacer.
        let answer = match houdini::prove(&enc, deadline) {
            Some(formulas) => solve::Answer::Safe(formulas),
            None => solve::solve(&enc, deadline),
        };
        match answer {
            solve::Answer::Safe(formulas) => {
                let mut assumptions = Vec::new();
                if !enc.uninterpreted.is_empty() {
                    assumptions.push(format!(
                        "{} treated as uninterpreted functions (equal arguments give equal results)",
                        enc.uninterpreted.join(", ")
                    ));
                }
                let invariants = enc
                    .relations
                    .iter()
                    .zip(formulas)
                    .zip(&peels)
                    .map(|((r, formula), p)| LoopInvariant {
                        old_line: r.old_span.line(),
                        new_line: r.new_span.line(),
                        old_peeled: u32::from(*p == Peel::Old),
                        new_peeled: u32::from(*p == Peel::New),
                        formula,
                    })
                    .collect();
                return Ok(LoopProof {
                    invariants,
                    assumptions,
                });
            }
            // Not in step this way: try the next alignment.
            solve::Answer::Unsafe => last = Some(solve::Answer::Unsafe),
            other => {
                last = Some(other);
                break;
            }
        }
    }
    Err(match last {
        Some(solve::Answer::Unknown(r)) if r == "timeout" => Unknown {
            reason: UnknownReason::Timeout,
            detail: "the CHC solver ran out of time".into(),
        },
        Some(solve::Answer::Unknown(r)) => Unknown {
            reason: UnknownReason::SolverUnknown,
            detail: format!("the CHC solver gave up: {r}"),
        },
        None => Unknown {
            reason: UnknownReason::Timeout,
            detail: "no time left for the loop checker".into(),
        },
        _ => Unknown {
            reason: UnknownReason::SolverUnknown,
            detail: "no relational invariant found in lockstep, with or without peeling \
                     one iteration (the versions may differ, or their loops do not run in step)"
                .into(),
        },
    })
}

/// `program` with `func` rewritten for the encoding, each step keeping its
/// meaning: loops inside branches brought to the top level, constant
/// locals replaced by their values. `None` when nothing changed.
fn prepared(program: &Program, func: FuncId) -> Option<Program> {
    let hoisted = hoist::hoisted(program, func);
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

/// At most this many alignments are tried (each an encoding and a Spacer
/// query, tens of milliseconds on the pairs we see).
const MAX_ALIGNMENTS: usize = 9;

/// Which version's loop runs its first iteration before the lockstep
/// product (the other version's loop then runs one iteration fewer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Peel {
    None,
    Old,
    New,
}

/// The alignments to try for `loops` pairs of loops: plain lockstep first,
/// then one loop pair peeled, then more, in a fixed order.
fn alignments(loops: usize) -> Vec<Vec<Peel>> {
    let mut all: Vec<Vec<Peel>> = vec![Vec::new()];
    for _ in 0..loops {
        let mut next = Vec::with_capacity(all.len() * 3);
        for v in &all {
            for p in [Peel::None, Peel::Old, Peel::New] {
                let mut w = v.clone();
                w.push(p);
                next.push(w);
            }
            if next.len() > 3 * MAX_ALIGNMENTS {
                break;
            }
        }
        all = next;
    }
    all.sort_by_key(|v| v.iter().filter(|p| **p != Peel::None).count());
    all
}

fn not_encodable(e: EncodeFailure) -> Unknown {
    if e.timeout {
        return Unknown {
            reason: UnknownReason::Timeout,
            detail: "encoding the loops ran out of time".into(),
        };
    }
    let mut detail = e.what;
    if let Some(span) = e.span {
        detail.push_str(&format!(" at {span}"));
    }
    if let Some(in_old) = e.in_old {
        detail.push_str(if in_old {
            " (old version)"
        } else {
            " (new version)"
        });
    }
    Unknown {
        reason: UnknownReason::NotEncodable,
        detail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Lang, Semantics};
    use std::time::Duration;

    fn prove_java(old: &str, new: &str) -> Result<Vec<LoopInvariant>, Unknown> {
        let (po, pn) = (
            crate::lang::lower(Lang::Java, old),
            crate::lang::lower(Lang::Java, new),
        );
        let ops = Ops {
            sem: Semantics::Math,
            lang: Lang::Java,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        prove_lockstep(ops, (&po, FuncId(0)), (&pn, FuncId(0)), deadline).map(|p| p.invariants)
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
    fn alignments_start_with_plain_lockstep_and_are_capped() {
        assert_eq!(alignments(0), vec![Vec::<Peel>::new()]);
        let one = alignments(1);
        assert_eq!(
            one,
            vec![vec![Peel::None], vec![Peel::Old], vec![Peel::New]]
        );
        let two = alignments(2);
        assert_eq!(two.len(), 9);
        assert_eq!(two[0], vec![Peel::None, Peel::None]);
        assert!(two[1..5].iter().all(|v| v.contains(&Peel::None)));
        assert!(alignments(8).len() <= 3 * MAX_ALIGNMENTS + 3);
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
        let ops = Ops {
            sem: Semantics::Math,
            lang: Lang::Java,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        let proof = prove_lockstep(ops, (&po, FuncId(0)), (&pn, FuncId(0)), deadline)
            .unwrap_or_else(|u| panic!("expected a proof, got {u:?}"));
        assert_eq!(
            proof.assumptions,
            vec!["sqrt treated as uninterpreted functions (equal arguments give equal results)"]
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
            "int f(int n) { int s = 0; do { for (int i = 0; i < n; i++) { s += i; } } while (s < 0); return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }",
        );
        assert!(
            u.detail.contains("a loop inside a do-while loop") && u.detail.contains("old version"),
            "{}",
            u.detail
        );
        let u = not_proved(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } for (int i = 0; i < 0; i++) { } return s; }",
        );
        assert!(u.detail.contains("1 and 2 top-level loops"), "{}", u.detail);
    }
}
