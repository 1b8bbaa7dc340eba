//! The `loops` checker: unbounded proofs for pairs whose loops run in
//! lockstep, by a relational invariant found with Z3's CHC engine
//! (`crate::loops`); for pairs with recursion, by summaries of the
//! recursive functions (`crate::loops::recursion`, equivalence where both
//! versions terminate), after trying, with half of the time, an entry that
//! is a linear recursion as the loop that computes it
//! (`crate::passes::climb`), in lockstep.
//!
//! It proves or says why not; it never refutes (a satisfiable CHC query
//! only says that no lockstep invariant exists). Counterexamples are the
//! `symbolic` checker's, replayed by the interpreter; the portfolio runs
//! both.

use super::query::bodies;
use super::{Budget, Checker, Decider, Decision, MethodPair, Options, Proof, Verdict};
use crate::ir::FuncId;
use crate::symbolic::ops::Ops;
use std::time::Instant;

pub struct LoopsChecker;

impl Checker for LoopsChecker {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        if let Err(v) = bodies(pair) {
            return Decision::plain(v, Decider::Loops);
        }
        Decision::plain(prove(pair, options, budget.deadline), Decider::Loops)
    }
}

/// The loop checker on a Z3 context of its own, for schedules that run it
/// after queries of their own: Spacer's search depends on the context's
/// history (term ids, caches), and a proof must not depend on what ran
/// before it.
pub(crate) struct OnOwnContext;

impl LoopsChecker {
    pub(crate) fn on_own_context(self) -> OnOwnContext {
        OnOwnContext
    }
}

impl Checker for OnOwnContext {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        super::with_fresh_z3_context(|| LoopsChecker.check(pair, options, budget))
    }
}

/// A rewrite of a version's loops as tail recursion (`passes/tail.rs`).
type Rewrite = fn(
    &crate::ir::Program,
    FuncId,
) -> Result<Option<crate::ir::Program>, crate::loops::shape::NotEncodable>;

/// One version: its program, entry and its rewrite (if any).
type Version<'p> = (&'p crate::ir::Program, FuncId, Option<crate::ir::Program>);

/// Where the entry of one version loops (now `entry$loop1`) and the other
/// version's entry is itself recursive, that entry is replaced by a call of
/// it (`tail::call_of`): the query then compares `entry$loop1(params, …)`
/// with `entry(params)`, two atoms on the same arguments that the recursion
/// rule couples, rather than the loop with one unfolding of the recursion.
/// The programs (rewritten or not) and the entries to check.
fn loop_against_recursion(
    old: Version<'_>,
    new: Version<'_>,
) -> (
    Option<crate::ir::Program>,
    Option<crate::ir::Program>,
    FuncId,
    FuncId,
) {
    let entry_looped = |(p, f, _): &Version<'_>| {
        p.function(*f)
            .body
            .as_ref()
            .is_ok_and(|b| crate::ir::contains_loop(&b.body))
    };
    let entry_recursive =
        |(p, f, _): &Version<'_>| crate::loops::recursion::recursive_functions(p, *f).contains(f);
    let wrap = |(p, f, rewritten): Version<'_>| -> (Option<crate::ir::Program>, FuncId) {
        let mut q = rewritten.unwrap_or_else(|| p.clone());
        match crate::loops::tail::call_of(&mut q, f) {
            Some(g) => (Some(q), g),
            None => (None, f),
        }
    };
    let (old_loops, new_loops) = (
        old.2.is_some() && entry_looped(&old),
        new.2.is_some() && entry_looped(&new),
    );
    if old_loops && !new_loops && entry_recursive(&new) {
        let (o, of) = (old.2, old.1);
        let (n, nf) = wrap(new);
        (o, n, of, nf)
    } else if new_loops && !old_loops && entry_recursive(&old) {
        let (n, nf) = (new.2, new.1);
        let (o, of) = wrap(old);
        (o, n, of, nf)
    } else {
        (old.2, new.2, old.1, new.1)
    }
}

/// The loop checker's verdict by `deadline`: a proof with its invariants,
/// or unknown with the reason.
pub(crate) fn prove(pair: &MethodPair<'_>, options: &Options, deadline: Instant) -> Verdict {
    let ops = Ops::new(
        options.semantics,
        pair.new_program.lang,
        options.signed_overflow,
    );
    let recursive = !crate::loops::recursion::recursive_functions(pair.old_program, pair.old)
        .is_empty()
        || !crate::loops::recursion::recursive_functions(pair.new_program, pair.new).is_empty();
    // Methods without loops of their own that call functions with loops:
    // those loops as tail recursion, for the recursion rule.
    let loopless = |p: &crate::ir::Program, f| {
        p.function(f)
            .body
            .as_ref()
            .is_ok_and(|b| !crate::ir::contains_loop(&b.body))
    };
    let rewrite = if recursive {
        // Recursion in either version: every loop either entry reaches,
        // the entries' own included, as tail recursion — a loop against a
        // recursion (iteration refactored into recursion, or back) is then
        // two recursions the recursion rule couples.
        Some(crate::loops::tail::loops_as_recursion as Rewrite)
    } else if loopless(pair.old_program, pair.old) && loopless(pair.new_program, pair.new) {
        Some(crate::loops::tail::callee_loops_as_recursion as Rewrite)
    } else {
        None
    };
    let callee_loops = if let Some(rewrite) = rewrite {
        let old = rewrite(pair.old_program, pair.old);
        let new = rewrite(pair.new_program, pair.new);
        match (old, new) {
            (Ok(None), Ok(None)) => None,
            (Ok(o), Ok(n)) => Some(Ok((o, n))),
            (Err(e), _) => Some(Err((e, "old"))),
            (_, Err(e)) => Some(Err((e, "new"))),
        }
    } else {
        None
    };
    let (old_rewritten, new_rewritten) = match callee_loops {
        Some(Err((e, version))) => {
            return super::query::unknown(
                super::UnknownReason::NotEncodable,
                format!("{} at {} ({version} version)", e.what, e.span),
            );
        }
        Some(Ok(pair)) => pair,
        None => (None, None),
    };
    let (old_rewritten, new_rewritten, old_entry, new_entry) = loop_against_recursion(
        (pair.old_program, pair.old, old_rewritten),
        (pair.new_program, pair.new, new_rewritten),
    );
    let recursive = recursive || old_rewritten.is_some() || new_rewritten.is_some();
    let old = (
        old_rewritten.as_ref().unwrap_or(pair.old_program),
        old_entry,
    );
    let new = (
        new_rewritten.as_ref().unwrap_or(pair.new_program),
        new_entry,
    );
    // A linear recursion against a loop or another recursion: first as
    // the loop that computes it, with half of the time (an invariant over
    // the accumulators, where the recursion rule would need a nonlinear
    // summary), then by the recursion rule.
    let deadline = if recursive {
        let half =
            crate::clock::now() + deadline.saturating_duration_since(crate::clock::now()) / 2;
        // A panic inside Z3 (the z3 crate's) is no proof, as `None` is.
        if let Ok(Some(proof)) =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| climbed(ops, pair, half)))
        {
            return Verdict::Equivalent(proof);
        }
        deadline
    } else {
        deadline
    };
    let run = || {
        if recursive {
            // Recursion: summaries of the recursive functions (partial
            // equivalence), not loop invariants.
            crate::loops::recursion::prove_recursive(ops, old, new, deadline).map(|p| Proof {
                bounded: None,
                unrolled: None,
                assumptions: p.assumptions,
                invariants: Vec::new(),
                partial: true,
                summaries: p.summaries,
            })
        } else {
            crate::loops::prove_lockstep(ops, old, new, deadline).map(|p| Proof {
                bounded: None,
                unrolled: None,
                assumptions: p.assumptions,
                invariants: p.invariants,
                partial: p.partial,
                summaries: Vec::new(),
            })
        }
    };
    // The z3 crate panics on some Z3 errors; a panic here is an unknown
    // verdict, never a crash of the caller.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(Ok(mut proof)) => {
            // A proof where both terminate: say so when testing finds an
            // input on which only one of them returns.
            if proof.partial
                && let Ok((old_fn, new_fn)) = bodies(pair)
                && let Some(note) =
                    super::testing::termination_difference(pair, old_fn, new_fn, options)
            {
                proof.assumptions.insert(0, note);
            }
            Verdict::Equivalent(proof)
        }
        Ok(Err(unknown)) => Verdict::Unknown(unknown),
        Err(_) => super::query::unknown(
            super::UnknownReason::Internal,
            "the loop checker failed inside Z3",
        ),
    }
}

/// The proof by lockstep of the versions with the one recursion each entry
/// reaches — the entry itself, or a helper it calls outside loops —
/// replaced by the loop that computes it (`passes/climb.rs`; a helper's
/// loop then inlined into the entry, `passes/inline.rs`), by `deadline`;
/// `None` when neither version has such a recursion, another recursion
/// remains, or no invariant was found.
fn climbed(ops: Ops, pair: &MethodPair<'_>, deadline: Instant) -> Option<Proof> {
    let wraps = ops.machine() && !ops.overflow_undefined();
    // The program with its recursion climbed, and the recursive function.
    type Climbed = Option<(crate::ir::Program, FuncId)>;
    let side = |p: &crate::ir::Program, f: FuncId| -> Option<Climbed> {
        let rec = crate::loops::recursion::recursive_functions(p, f);
        if rec.is_empty() {
            return Some(None);
        }
        let (&g, 1) = (rec.first()?, rec.len()) else {
            return None;
        };
        let climbed = crate::passes::climb::climbed(p, g, wraps)?;
        if g == f {
            return Some(Some((climbed, g)));
        }
        // A recursive helper of the method: its climb inlined where the
        // method calls it, so that its loop is one of the method's.
        crate::passes::inline::inlined(&climbed, f, g).map(|q| Some((q, g)))
    };
    let (o, n) = (
        side(pair.old_program, pair.old)?,
        side(pair.new_program, pair.new)?,
    );
    if o.is_none() && n.is_none() {
        return None;
    }
    let mut notes = vec![crate::verdict::Assumption::UnboundedRecursion];
    for (version, program, climbed) in
        [("old", pair.old_program, &o), ("new", pair.new_program, &n)]
    {
        if let Some((_, g)) = climbed {
            notes.push(crate::verdict::Assumption::RecursionAsLoop {
                version,
                function: program.function(*g).name.clone(),
            });
        }
    }
    let (o, n) = (o.map(|(p, _)| p), n.map(|(p, _)| p));
    let old = (o.as_ref().unwrap_or(pair.old_program), pair.old);
    let new = (n.as_ref().unwrap_or(pair.new_program), pair.new);
    let p = crate::loops::prove_lockstep(ops, old, new, deadline).ok()?;
    let mut assumptions = notes;
    assumptions.extend(p.assumptions);
    Some(Proof {
        bounded: None,
        unrolled: None,
        assumptions,
        invariants: p.invariants,
        partial: p.partial,
        summaries: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{CheckerKind, Selection, check_sources};
    use super::*;
    use crate::ir::Lang;

    fn proof(old: &str, new: &str) -> Proof {
        match verdict(old, new) {
            Verdict::Equivalent(p) => p,
            other => panic!("expected a proof, got {other:?}"),
        }
    }

    #[test]
    fn recursion_proofs_are_partial_and_name_a_termination_difference() {
        let diverging = "int f(int x) { if (x == 0) { return 0; } return f(x - 1); }";
        let p = proof(diverging, "int f(int x) { return 0; }");
        assert!(p.partial && p.bounded.is_none());
        assert!(
            matches!(&p.assumptions[0], crate::check::Assumption::TerminationDiffers(what)
                if what.contains("old version")),
            "{:?}",
            p.assumptions
        );
        // Terminating everywhere (small inputs): no such note.
        let counting = "int f(int x) { if (x <= 0) { return 0; } return f(x - 1) + 2; }";
        let p = proof(
            counting,
            "int f(int x) { if (x <= 0) { return 0; } return 2 * x; }",
        );
        assert!(p.partial);
        assert!(
            !p.assumptions
                .iter()
                .any(|a| matches!(a, crate::check::Assumption::TerminationDiffers(_))),
            "{:?}",
            p.assumptions
        );
        // The recursion compared as the loop that computes it, against the
        // closed form: the loop alone, where it terminates.
        assert!(!p.summaries.is_empty() || !p.invariants.is_empty(), "{p:?}");
    }

    fn verdict(old: &str, new: &str) -> Verdict {
        let options = Options {
            checker: CheckerKind::Loops,
            ..Default::default()
        };
        let report = check_sources(
            Lang::Java,
            &format!("class A {{ {old} }}"),
            &format!("class A {{ {new} }}"),
            &Selection::Method("f".into()),
            &options,
        );
        report.methods[0].verdict.clone()
    }

    #[test]
    fn a_loop_against_a_recursion_is_proved_through_coupled_summaries() {
        // Euclid: no linear summary of gcd exists; the loop's function and
        // the recursion are coupled on the same arguments at every step.
        let looping =
            "int f(int a, int b) { while (b != 0) { int t = a % b; a = b; b = t; } return a; }";
        let recursive = "int f(int a, int b) { if (b == 0) { return a; } return f(b, a % b); }";
        for (old, new) in [(looping, recursive), (recursive, looping)] {
            let p = proof(old, new);
            assert!(p.partial && p.bounded.is_none(), "{p:?}");
            assert!(
                p.summaries
                    .iter()
                    .any(|s| s.version == "both" && s.function.contains("loop 1 of f")),
                "{:?}",
                p.summaries
            );
        }
        // An accumulator: old.result = s + new.result.
        let p = proof(
            "int f(int n) { int s = 0; while (n > 0) { s += n; n--; } return s; }",
            "int f(int n) { if (n <= 0) { return 0; } return n + f(n - 1); }",
        );
        assert!(p.partial, "{p:?}");
    }

    #[test]
    fn a_linear_recursion_against_a_loop_counting_up_is_compared_as_a_loop() {
        // No coupling: the recursion steps `e` down, the loop `i` up, and
        // `loop(r, i) = r * f(e - i)` is not linear. As the loop from its
        // base case up, the recursion runs in lockstep with `acc = r`.
        let recursive =
            "long f(long b, int e) { if (e <= 0) { return 1; } return b * f(b, e - 1); }";
        let looping = "long f(long b, int e) { long r = 1; for (int i = 0; i < e; i++) { r *= b; } return r; }";
        for (old, new) in [(recursive, looping), (looping, recursive)] {
            let p = proof(old, new);
            assert!(!p.partial && p.bounded.is_none(), "{p:?}");
            assert!(
                p.assumptions
                    .iter()
                    .any(|a| matches!(a, crate::check::Assumption::RecursionAsLoop { .. })),
                "{:?}",
                p.assumptions
            );
        }
        let once_more = looping.replace("i < e", "i <= e");
        let v = verdict(recursive, &once_more);
        assert!(!matches!(v, Verdict::Equivalent(_)), "{v:?}");
    }

    #[test]
    fn a_loop_against_a_recursion_that_differs_is_not_proved() {
        let looping =
            "int f(int a, int b) { while (b != 0) { int t = a % b; a = b; b = t; } return a; }";
        let base_changed =
            "int f(int a, int b) { if (b == 0) { return a + 1; } return f(b, a % b); }";
        let v = verdict(looping, base_changed);
        assert!(!matches!(v, Verdict::Equivalent(_)), "{v:?}");
    }
}
