//! The checkers that abstract common code: `dse`, `imps` and `ardiff`. They
//! share everything but the starting plan and whether they refine:
//!
//! - `dse` (differential symbolic execution, as ARDiff re-implemented it):
//!   every common block abstracted, one query.
//! - `imps` (impacted summaries): common code impacted by the change — by
//!   data or control dependence, forwards or backwards — kept concrete, the
//!   rest abstracted, one query.
//! - `ardiff`: start like `dse`; on an unsatisfiable query the versions are
//!   equivalent (uninterpreted functions only weaken the formula); on a
//!   model, replay it — a real difference is `not equivalent` at once;
//!   otherwise (spurious model, solver unknown, time slice used up) refine
//!   one statement chosen by ARDiff's heuristics ([`super::refine`]) and go
//!   again, until decided, nothing is left to refine, or time is up.

use super::refine;
use super::symbolic::{MAX_CANDIDATES, bodies, decide, encode, test_concretely, unknown};
use super::{
    AbstractionReport, Checker, CheckerKind, Decider, Decision, MethodPair, Options, UnknownReason,
    Verdict,
};
use crate::abstraction::{Abstraction, Context, Plan, StmtKey};
use std::collections::HashSet;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Dse,
    Imps,
    Ardiff,
}

pub struct AbstractingChecker {
    mode: Mode,
}

impl AbstractingChecker {
    pub fn dse() -> Self {
        AbstractingChecker { mode: Mode::Dse }
    }
    pub fn imps() -> Self {
        AbstractingChecker { mode: Mode::Imps }
    }
    pub fn ardiff() -> Self {
        AbstractingChecker { mode: Mode::Ardiff }
    }

    fn decider(&self) -> Decider {
        match self.mode {
            Mode::Dse => Decider::Dse,
            Mode::Imps => Decider::Imps,
            Mode::Ardiff => Decider::Ardiff,
        }
    }
}

impl Checker for AbstractingChecker {
    fn kind(&self) -> CheckerKind {
        match self.mode {
            Mode::Dse => CheckerKind::Dse,
            Mode::Imps => CheckerKind::Imps,
            Mode::Ardiff => CheckerKind::Ardiff,
        }
    }

    fn check(&self, pair: &MethodPair<'_>, options: &Options) -> Decision {
        let deadline = Instant::now() + Duration::from_millis(options.timeout_ms);
        let ctx = Context::for_pair(pair.old_program, pair.new_program, pair.old, pair.new);
        self.run(pair, options, &ctx, deadline, true)
    }
}

impl AbstractingChecker {
    pub(crate) fn run(
        &self,
        pair: &MethodPair<'_>,
        options: &Options,
        ctx: &Context<'_>,
        deadline: Instant,
        with_testing: bool,
    ) -> Decision {
        let by = self.decider();
        // A proof that holds only up to the loop bound, kept while ARDiff
        // refines towards an unbounded one; it stands if that fails.
        let bounded_proof: std::cell::RefCell<Option<Verdict>> = std::cell::RefCell::new(None);
        let done = |verdict: Verdict, report: Option<AbstractionReport>| {
            let verdict = match (verdict, bounded_proof.borrow().as_ref()) {
                (Verdict::Unknown(_), Some(proof)) => proof.clone(),
                (v, _) => v,
            };
            let decided = !matches!(verdict, Verdict::Unknown(_));
            Decision {
                verdict,
                decided_by: decided.then_some(by),
                abstraction: report,
            }
        };
        let (old_fn, new_fn) = match bodies(pair) {
            Ok(b) => b,
            Err(v) => return done(v, None),
        };
        if with_testing && let Some(cex) = test_concretely(pair, old_fn, new_fn, options) {
            return Decision::plain(Verdict::NotEquivalent(Box::new(cex)), Decider::Testing);
        }
        let mut plan = Plan {
            refined: HashSet::new(),
            overrides: options.overrides.clone(),
            keep_constants: self.mode == Mode::Ardiff,
        };
        if self.mode == Mode::Imps {
            let dse = ctx.abstraction(&plan);
            plan.refined = impacted(&dse);
        }
        let mut report = AbstractionReport::default();
        loop {
            let abs = ctx.abstraction(&plan);
            if report.iterations == 0 {
                report.blocks = abs.blocks.len();
                report.overrides = abs.overrides.clone();
            }
            report.iterations += 1;
            let Some(left) = crate::cancel::remaining(deadline) else {
                let v = unknown(
                    UnknownReason::Timeout,
                    format!("out of time after {} ms", options.timeout_ms),
                );
                return done(v, Some(report));
            };
            // ARDiff gets more than one query: give each a slice, so a
            // query the abstraction makes hard does not eat the budget of
            // the refinements that would make it easy.
            let iteration_deadline = if self.mode == Mode::Ardiff && !abs.blocks.is_empty() {
                Instant::now() + (left / 2).max(left.min(Duration::from_secs(1)))
            } else {
                deadline
            };
            let enc = match encode(
                pair,
                old_fn,
                new_fn,
                options,
                iteration_deadline,
                Some(&abs),
            ) {
                Ok(enc) => enc,
                Err(v) => {
                    if self.refinable(&v, &abs, deadline) {
                        // Encoding itself timed out: nothing to learn from
                        // a model; refine by the statement heuristic alone.
                        match refine::choose(None, &abs, &plan, deadline) {
                            Some(choice) => {
                                note_refinement(&mut report, &abs, &choice);
                                plan.refined.insert(choice.statement);
                                continue;
                            }
                            None => return done(v, Some(report)),
                        }
                    }
                    return done(v, Some(report));
                }
            };
            let applied = enc.apps.blocks();
            report.functions_left = applied.len();
            let candidates = if applied.is_empty() {
                MAX_CANDIDATES
            } else {
                1
            };
            let verdict = decide(
                pair,
                &enc,
                old_fn,
                new_fn,
                options,
                iteration_deadline,
                candidates,
            );
            match verdict {
                Verdict::Equivalent(mut proof) => {
                    proof
                        .assumptions
                        .extend(termination_assumptions(&abs, &applied));
                    let bounded = proof.bounded.is_some();
                    let proof = Verdict::Equivalent(proof);
                    // Bounded only because an abstracted value controls a
                    // loop? Making it concrete may give a full proof.
                    if bounded
                        && self.refinable(&proof, &abs, deadline)
                        && !applied.is_empty()
                        && let Some(choice) = refine::choose(Some(&enc), &abs, &plan, deadline)
                    {
                        note_refinement(&mut report, &abs, &choice);
                        plan.refined.insert(choice.statement);
                        *bounded_proof.borrow_mut() = Some(proof);
                        continue;
                    }
                    return done(proof, Some(report));
                }
                Verdict::NotEquivalent(_) => {
                    return done(verdict, Some(report));
                }
                Verdict::Unknown(_) if applied.is_empty() => {
                    return done(verdict, Some(report));
                }
                Verdict::Unknown(_) if !self.refinable(&verdict, &abs, deadline) => {
                    let verdict = explain_abstraction(verdict, &applied);
                    return done(verdict, Some(report));
                }
                Verdict::Unknown(_) => match refine::choose(Some(&enc), &abs, &plan, deadline) {
                    Some(choice) => {
                        note_refinement(&mut report, &abs, &choice);
                        plan.refined.insert(choice.statement);
                    }
                    None => {
                        let verdict = explain_abstraction(verdict, &applied);
                        return done(verdict, Some(report));
                    }
                },
            }
        }
    }

    /// Whether an unknown verdict is worth another, more concrete, try.
    /// Whether a verdict is worth another, more concrete, try: unknown, or
    /// a proof that holds only up to the loop bound.
    fn refinable(&self, v: &Verdict, abs: &Abstraction, deadline: Instant) -> bool {
        let improvable = match v {
            Verdict::Unknown(u) => !u.reason.is_unsupported(),
            Verdict::Equivalent(p) => p.bounded.is_some(),
            Verdict::NotEquivalent(_) => false,
        };
        self.mode == Mode::Ardiff
            && !abs.blocks.is_empty()
            && !crate::cancel::expired(deadline)
            && improvable
    }
}

fn note_refinement(report: &mut AbstractionReport, abs: &Abstraction, choice: &refine::Choice) {
    let span = abs
        .blocks
        .iter()
        .flat_map(|b| &b.statements)
        .find(|s| s.key == choice.statement)
        .map(|s| s.span)
        .unwrap_or_default();
    report.refined.push(span);
    report.heuristics.push(choice.heuristic.to_string());
}

/// One-shot checkers end with functions still abstracted: say so.
fn explain_abstraction(v: Verdict, applied: &[crate::abstraction::BlockId]) -> Verdict {
    match v {
        Verdict::Unknown(mut u) if !applied.is_empty() => {
            u.detail = format!(
                "{} ({} common block{} abstracted)",
                u.detail,
                applied.len(),
                if applied.len() == 1 { "" } else { "s" }
            );
            Verdict::Unknown(u)
        }
        v => v,
    }
}

/// Abstracted loops are assumed to terminate: the proof compares the
/// executions in which they do.
fn termination_assumptions(
    abs: &Abstraction,
    applied: &[crate::abstraction::BlockId],
) -> Vec<String> {
    let lines: Vec<String> = abs
        .blocks
        .iter()
        .filter(|b| b.contains_loop && applied.contains(&b.id))
        .map(|b| {
            let (a, z) = (b.new_span.line(), b.new_span.end.line + 1);
            if a == z {
                format!("{a}")
            } else {
                format!("{a}-{z}")
            }
        })
        .collect();
    if lines.is_empty() {
        return Vec::new();
    }
    vec![format!(
        "common code with loops abstracted (lines {} of the new version): executions in which it does not terminate are not compared",
        lines.join(", ")
    )]
}

/// IMP-S: the common statements impacted by the change. Forward: reading a
/// variable the changed code (or an impacted statement) writes. Backward:
/// writing a variable the changed code (or an impacted statement) reads.
/// Control: nested in a changed `if` or loop. Variable-level and
/// flow-insensitive, like the impacted-summaries analysis of Backes et al.
fn impacted(dse: &Abstraction) -> HashSet<StmtKey> {
    let mut fwd = dse.changed_writes.clone();
    let mut bwd = dse.changed_reads.clone();
    let mut out = HashSet::new();
    for b in dse.blocks.iter().filter(|b| b.under_change) {
        for s in &b.statements {
            if !s.pinned {
                out.insert(s.key);
                fwd.extend(s.writes.iter().cloned());
                bwd.extend(s.reads.iter().cloned());
            }
        }
    }
    loop {
        let mut grew = false;
        for s in dse.blocks.iter().flat_map(|b| &b.statements) {
            if s.pinned || out.contains(&s.key) {
                continue;
            }
            let forward = s.reads.iter().any(|v| fwd.contains(v));
            let backward = s.writes.iter().any(|v| bwd.contains(v));
            if forward || backward {
                out.insert(s.key);
                fwd.extend(s.writes.iter().cloned());
                bwd.extend(s.reads.iter().cloned());
                grew = true;
            }
        }
        if !grew {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    //! The refinement loop on small pairs whose iterations are known.
    use crate::check::{CheckerKind, Options, Selection, Verdict, check_sources};
    use crate::ir::Lang;

    fn run(lang: Lang, old: &str, new: &str, checker: CheckerKind) -> crate::check::MethodReport {
        let options = Options {
            checker,
            ..Options::default()
        };
        let mut r = check_sources(lang, old, new, &Selection::All, &options);
        r.methods.remove(0)
    }

    const OLD: &str = "class T { static int f(int a) {
    int y = a + 1;
    return y - 1;
} }";
    const NEW: &str = "class T { static int f(int a) {
    int y = a + 1;
    return a;
} }";

    #[test]
    fn ardiff_refines_the_block_h1_points_at() {
        let m = run(Lang::Java, OLD, NEW, CheckerKind::Ardiff);
        assert!(m.verdict.is_proved(), "{:?}", m.verdict);
        let a = m.abstraction.expect("abstraction report");
        assert_eq!(a.iterations, 2);
        assert_eq!(a.blocks, 1);
        assert_eq!(a.functions_left, 0);
        assert_eq!(a.heuristics, vec!["H1"]);
        assert_eq!(
            a.refined.iter().map(|s| s.line()).collect::<Vec<_>>(),
            vec![2]
        );
    }

    #[test]
    fn dse_stops_at_the_spurious_candidate_and_imps_keeps_the_impacted_code() {
        let m = run(Lang::Java, OLD, NEW, CheckerKind::Dse);
        assert!(matches!(m.verdict, Verdict::Unknown(_)), "{:?}", m.verdict);
        assert_eq!(m.abstraction.map(|a| a.iterations), Some(1));
        // `y` is read by the changed return: impacted, kept concrete.
        let m = run(Lang::Java, OLD, NEW, CheckerKind::Imps);
        assert!(m.verdict.is_proved(), "{:?}", m.verdict);
        let a = m.abstraction.expect("abstraction report");
        assert_eq!((a.iterations, a.functions_left), (1, 0));
    }

    #[test]
    fn ardiff_refines_a_bounded_proof_into_a_full_one() {
        let old = "int f(int x) { int s = 0; for (int i = 0; i < 6; i++) { s += x; } return s; }";
        let new = "int f(int x) { int s = 0; int i = 0; do { s = s + x; i++; } while (i < 6); return s; }";
        let m = run(Lang::C, old, new, CheckerKind::Ardiff);
        assert!(m.verdict.is_proved(), "{:?}", m.verdict);
        let a = m.abstraction.expect("abstraction report");
        // The first proof is bounded (the loop counter is abstracted);
        // refining the counter and the sum makes the loop concrete.
        assert_eq!(a.iterations, 3);
        assert_eq!(a.refined.len(), 2);
    }

    #[test]
    fn portfolio_names_syntax_for_renamings() {
        let old = "class T { static int f(int a) { int s = a * 2; return s; } }";
        let new = "class T {
            static int f(int b) {
                int t = b * 2;   // renamed
                return t;
            }
        }";
        let m = run(Lang::Java, old, new, CheckerKind::Portfolio);
        assert!(m.verdict.is_proved());
        assert_eq!(m.decided_by, Some(crate::check::Decider::Syntax));
    }
}
