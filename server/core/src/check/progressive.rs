//! Progressive checking: a fast verdict first, a stronger one later.
//!
//! An editor wants an answer within a fraction of a second, but the
//! strongest checker may take the whole budget. The default checker
//! (`portfolio`) is therefore run in stages: `dse` (one query, every
//! common block abstract) with a small share of the budget, whose verdict
//! is final when it is conclusive (a full proof, a replayed
//! counterexample, unsupported code); otherwise it is reported as an
//! interim verdict and the portfolio runs with what is left of the budget.
//! The final verdict is never weaker than the interim one.
//!
//! The caller only sees "interim" and "final", whatever the stages.

use super::{CheckerKind, MethodPair, MethodReport, Options, check_pair};
use crate::budget::{FAST_STAGE, Portion};
use crate::cancel::{Cancellation, with_cancellation};
use std::time::{Duration, Instant};

/// The stages of the default checker: each checker with its portion of the
/// budget. Other checkers run in one stage with all of it.
const STAGES: &[(CheckerKind, Portion)] = &[
    (CheckerKind::Dse, Portion::OfWhole(FAST_STAGE)),
    (CheckerKind::Portfolio, Portion::Rest),
];

/// Checks `pair` stage by stage, calling `interim` with each verdict that a
/// later stage may still improve. Returns the final report, or `None` when
/// `token` was cancelled. The final report names the checker the options
/// asked for and counts the whole time spent.
pub fn check_pair_progressively(
    pair: &MethodPair<'_>,
    options: &Options,
    token: &Cancellation,
    interim: impl FnMut(&MethodReport),
) -> Option<MethodReport> {
    let start = Instant::now();
    // One clock for all stages: the last gets what the others left.
    crate::clock::run(|| stages_until_conclusive(pair, options, token, interim)).map(|mut r| {
        r.checker = options.checker;
        r.time = start.elapsed();
        r
    })
}

fn stages_until_conclusive(
    pair: &MethodPair<'_>,
    options: &Options,
    token: &Cancellation,
    mut interim: impl FnMut(&MethodReport),
) -> Option<MethodReport> {
    let whole = Duration::from_millis(options.timeout_ms);
    let deadline = crate::clock::now() + whole;
    let single = [(options.checker, Portion::Rest)];
    let stages = if options.checker == CheckerKind::Portfolio {
        STAGES
    } else {
        &single[..]
    };
    let last = stages.len() - 1;
    let mut best: Option<MethodReport> = None;
    for (i, &(checker, portion)) in stages.iter().enumerate() {
        let now = crate::clock::now();
        let left = portion
            .deadline(whole, deadline)
            .saturating_duration_since(now);
        let timeout_ms = (left.as_millis() as u64).max(1);
        let stage = Options {
            checker,
            timeout_ms,
            ..options.clone()
        };
        let report = with_cancellation(token, || check_pair(pair, &stage));
        if token.is_cancelled() {
            return None;
        }
        let conclusive = report.verdict.is_conclusive();
        let better = best
            .as_ref()
            .is_none_or(|b| report.verdict.strength() > b.verdict.strength());
        if better {
            best = Some(report);
        }
        if conclusive || i == last {
            break;
        }
        if let Some(b) = &best {
            interim(b);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{Decider, Selection, Verdict, pairing};
    use crate::ir::Lang;

    /// Runs the progressive check on the first method pair; returns the
    /// interim reports and the final one.
    fn progress(
        old: &str,
        new: &str,
        options: &Options,
        token: &Cancellation,
    ) -> (Vec<MethodReport>, Option<MethodReport>) {
        let (op, np) = (
            crate::lang::lower(Lang::Java, old),
            crate::lang::lower(Lang::Java, new),
        );
        let pairing = pairing::pair_functions(&op, &np, &Selection::All);
        let (o, n) = pairing.pairs[0];
        let pair = MethodPair::new("f", &op, o, &np, n);
        let mut seen = Vec::new();
        let last = check_pair_progressively(&pair, options, token, |r| seen.push(r.clone()));
        (seen, last)
    }

    const OLD: &str = "class T { static int f(int a) {\n    int y = a + 1;\n    return y - 1;\n} }";

    #[test]
    fn a_conclusive_fast_verdict_is_final_at_once() {
        let new = OLD.replace("return y - 1;", "return y;");
        let (seen, last) = progress(OLD, &new, &Options::default(), &Cancellation::new());
        assert!(seen.is_empty(), "{seen:?}");
        let last = last.expect("not cancelled");
        assert!(matches!(last.verdict, Verdict::NotEquivalent(_)));
        // Decided by the fast stage (its concrete tests or its query).
        assert!(
            matches!(last.decided_by, Some(Decider::Testing | Decider::Dse)),
            "{:?}",
            last.decided_by
        );
        assert_eq!(last.checker, CheckerKind::Portfolio);
    }

    #[test]
    fn an_inconclusive_fast_verdict_is_interim_and_then_improved() {
        // DSE abstracts `y = a + 1` and cannot see that `y - 1 == a`.
        let new = OLD.replace("return y - 1;", "return a;");
        let (seen, last) = progress(OLD, &new, &Options::default(), &Cancellation::new());
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(matches!(seen[0].verdict, Verdict::Unknown(_)));
        let last = last.expect("not cancelled");
        assert!(last.verdict.is_proved(), "{:?}", last.verdict);
        assert_eq!(last.decided_by, Some(Decider::Ardiff));
    }

    #[test]
    fn other_checkers_run_once() {
        let new = OLD.replace("return y - 1;", "return a;");
        let options = Options {
            checker: CheckerKind::Dse,
            ..Options::default()
        };
        let (seen, last) = progress(OLD, &new, &options, &Cancellation::new());
        assert!(seen.is_empty());
        assert_eq!(last.map(|r| r.checker), Some(CheckerKind::Dse));
    }

    #[test]
    fn a_cancelled_check_has_no_verdict() {
        let token = Cancellation::new();
        token.cancel();
        let (seen, last) = progress(OLD, OLD, &Options::default(), &token);
        assert!(seen.is_empty() && last.is_none());
    }
}
