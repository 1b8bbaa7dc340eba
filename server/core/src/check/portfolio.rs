//! The default checker: other checkers run in turn, cheapest answers first,
//! as a table of `Step`s — which checker, what share of the budget
//! (`crate::budget`), when it runs and what of its answer is taken.
//!
//! For pairs with loops in both versions or recursion in either
//! (`LOOPS_FIRST`): normalized-syntax identity, concrete tests, the loop
//! checker (an unbounded proof, taken at once), ARDiff, the loop checker
//! again if it ran out of time, then the full symbolic checker. For the
//! others (`PLAIN`): identity, ARDiff (which tests concretely first), the
//! loop checker on a proof up to the bound, then the full symbolic checker.
//! In both, a proof still only up to the bound is unrolled deeper
//! (`deepen::Deeper`) with most of the rest instead: the full checker
//! would ask the same question at the same bound.
//!
//! Every step goes through [`Checker::check`] with its own [`Budget`]; the
//! statement matching is built once per pair (`MethodPair::context`).
//! The verdict names what decided it.

use super::abstracted::{AbstractingChecker, Stages, pair_context};
use super::deepen::Deeper;
use super::loops::LoopsChecker;
use super::query::bodies;
use super::symbolic::SymbolicChecker;
use super::testing::TestingChecker;
use super::{
    Budget, Checker, Decider, Decision, MethodPair, Options, Proof, Unknown, UnknownReason, Verdict,
};
use crate::budget::{ARDIFF, DEEPER, FIRST_LOOPS, LOOPS_AFTER_ARDIFF, Portion};
use std::time::Duration;

pub struct PortfolioChecker;

/// One step of the schedule.
struct Step {
    run: Run,
    portion: Portion,
    when: When,
    take: Take,
}

/// The checker a step runs.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    /// Both versions equal modulo renaming and formatting, callees
    /// included.
    Syntax,
    /// Concrete tests in the interpreter (refutes only).
    Testing,
    /// The loop checker, on a Z3 context of its own (proves only).
    Loops,
    /// ARDiff, with or without its own concrete tests; never handing off
    /// to the loop checker, which the schedule runs itself.
    Ardiff { testing: bool },
    /// The full symbolic checker, without concrete tests (they ran).
    Symbolic,
    /// Both versions unrolled deeper than the loop bound, until no input
    /// runs a loop past the depth.
    Deeper,
}

impl Run {
    fn checker(self) -> Box<dyn Checker> {
        match self {
            Run::Syntax => Box::new(SyntaxChecker),
            Run::Testing => Box::new(TestingChecker),
            Run::Loops => Box::new(LoopsChecker.on_own_context()),
            Run::Ardiff { testing } => Box::new(AbstractingChecker::ardiff().with_stages(Stages {
                testing,
                loop_checker: false,
            })),
            Run::Symbolic => Box::new(SymbolicChecker { testing: false }),
            Run::Deeper => Box::new(Deeper),
        }
    }
}

/// When a step runs, given the answer so far.
#[derive(Clone, Copy)]
enum When {
    Always,
    /// The answer so far is not conclusive, no earlier step with the same
    /// checker ended other than by running out of time, and time is left.
    Undecided,
    /// A stronger checker may still improve the answer so far (see
    /// [`improvable`]), and time is left.
    Improvable,
    /// The answer so far is a proof only up to the loop bound, and time is
    /// left.
    Bounded,
}

/// What the schedule takes of a step's decision.
#[derive(Clone, Copy)]
enum Take {
    /// A conclusive verdict, or running out of time, ends the schedule
    /// with it; anything else is forgotten.
    Final,
    /// A full proof ends the schedule (keeping the answer so far's
    /// abstraction report); anything else is forgotten.
    Proof,
    /// It becomes the answer so far; a conclusive one ends the schedule.
    Answer,
    /// It replaces the answer so far when [`stronger`]; a conclusive one
    /// ends the schedule.
    Stronger,
}

const fn step(run: Run, portion: Portion, when: When, take: Take) -> Step {
    Step {
        run,
        portion,
        when,
        take,
    }
}

/// Pairs with loops in both versions, or recursion in either: concrete
/// tests refute a buggy loop in milliseconds, then the loop checker proves
/// most provable pairs in well under a second with part of the budget,
/// where ARDiff would spend half of it on a proof up to the bound.
const LOOPS_FIRST: &[Step] = &[
    step(Run::Syntax, Portion::Rest, When::Always, Take::Final),
    step(Run::Testing, Portion::Rest, When::Always, Take::Final),
    step(
        Run::Loops,
        Portion::OfWhole(FIRST_LOOPS),
        When::Always,
        Take::Proof,
    ),
    step(
        Run::Ardiff { testing: false },
        Portion::OfWhole(ARDIFF),
        When::Always,
        Take::Answer,
    ),
    step(
        Run::Loops,
        Portion::OfLeft(LOOPS_AFTER_ARDIFF),
        When::Undecided,
        Take::Proof,
    ),
    step(
        Run::Deeper,
        Portion::OfLeft(DEEPER),
        When::Bounded,
        Take::Stronger,
    ),
    step(
        Run::Symbolic,
        Portion::Rest,
        When::Improvable,
        Take::Stronger,
    ),
];

/// Every other pair: ARDiff decides most pairs it can decide quickly (and
/// tests concretely first); a bounded proof or an unknown goes to the loop
/// checker (a lockstep invariant may remove the bound), then to the full
/// symbolic checker with the rest (a constant loop unrolled completely is
/// a full proof; a query ARDiff's slices cut short may finish).
const PLAIN: &[Step] = &[
    step(Run::Syntax, Portion::Rest, When::Always, Take::Final),
    step(
        Run::Ardiff { testing: true },
        Portion::OfWhole(ARDIFF),
        When::Always,
        Take::Answer,
    ),
    step(
        Run::Loops,
        Portion::OfLeft(LOOPS_AFTER_ARDIFF),
        When::Undecided,
        Take::Proof,
    ),
    step(
        Run::Deeper,
        Portion::OfLeft(DEEPER),
        When::Bounded,
        Take::Stronger,
    ),
    step(
        Run::Symbolic,
        Portion::Rest,
        When::Improvable,
        Take::Stronger,
    ),
];

impl Checker for PortfolioChecker {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let schedule = if loops_first(pair) {
            LOOPS_FIRST
        } else {
            PLAIN
        };
        run_schedule(schedule, pair, options, budget)
    }
}

/// Loops in both versions, or recursion in either.
fn loops_first(pair: &MethodPair<'_>) -> bool {
    let loops = |p: &crate::ir::Program, f| {
        p.function(f)
            .body
            .as_ref()
            .is_ok_and(|b| crate::ir::contains_loop(&b.body))
    };
    let loops_in_both = loops(pair.old_program, pair.old) && loops(pair.new_program, pair.new);
    loops_in_both
        || [(pair.old_program, pair.old), (pair.new_program, pair.new)]
            .iter()
            .any(|(p, f)| !crate::loops::recursion::recursive_functions(p, *f).is_empty())
}

fn run_schedule(
    schedule: &[Step],
    pair: &MethodPair<'_>,
    options: &Options,
    budget: Budget,
) -> Decision {
    let whole = Duration::from_millis(options.timeout_ms);
    let deadline = budget.deadline;
    let mut answer: Option<Decision> = None;
    // Checkers that ended other than by running out of time.
    let mut answered: Vec<Run> = Vec::new();
    for step in schedule {
        let runs = match step.when {
            When::Always => true,
            When::Undecided => {
                answer.as_ref().is_none_or(|a| !a.verdict.is_conclusive())
                    && !answered.contains(&step.run)
                    && !crate::cancel::expired(deadline)
            }
            When::Improvable => {
                answer.as_ref().is_none_or(improvable) && !crate::cancel::expired(deadline)
            }
            When::Bounded => {
                answer.as_ref().is_some_and(
                    |a| matches!(&a.verdict, Verdict::Equivalent(p) if p.bounded.is_some()),
                ) && !crate::cancel::expired(deadline)
            }
        };
        if !runs {
            continue;
        }
        let step_budget = Budget::until(step.portion.deadline(whole, deadline));
        let decision = step.run.checker().check(pair, options, step_budget);
        if !is_timeout(&decision.verdict) {
            answered.push(step.run);
        }
        match step.take {
            Take::Final => {
                if decision.verdict.is_conclusive() || is_timeout(&decision.verdict) {
                    return decision;
                }
            }
            Take::Proof => {
                if decision.verdict.is_proved() {
                    return Decision {
                        abstraction: answer.and_then(|a| a.abstraction),
                        ..decision
                    };
                }
            }
            Take::Answer => {
                if decision.verdict.is_conclusive() {
                    return decision;
                }
                answer = Some(decision);
            }
            Take::Stronger => {
                let better = answer
                    .as_ref()
                    .is_none_or(|a| stronger(&decision.verdict, &a.verdict));
                if better {
                    let decision = Decision {
                        abstraction: answer.and_then(|a| a.abstraction),
                        ..decision
                    };
                    if decision.verdict.is_conclusive() {
                        return decision;
                    }
                    answer = Some(decision);
                }
            }
        }
    }
    answer.unwrap_or_else(|| {
        Decision::plain(
            Verdict::Unknown(Unknown {
                reason: UnknownReason::Inconclusive,
                detail: "no step of the schedule answered".into(),
            }),
            Decider::Syntax,
        )
    })
}

fn is_timeout(v: &Verdict) -> bool {
    matches!(v, Verdict::Unknown(u) if matches!(u.reason, UnknownReason::Timeout { .. }))
}

/// Whether the full checker may still do better than `answer`: undecided
/// (unless ARDiff's last query had nothing abstracted and was not cut
/// short — the full checker would ask the same question again), or proved
/// only up to the bound with code still abstracted (with nothing
/// abstracted, the full checker at the same bound asks the same question).
fn improvable(answer: &Decision) -> bool {
    let same_question = answer
        .abstraction
        .as_ref()
        .is_some_and(|a| a.functions_left == 0);
    match &answer.verdict {
        Verdict::Unknown(u) if same_question => matches!(u.reason, UnknownReason::Timeout { .. }),
        Verdict::Unknown(u) => !u.reason.is_unsupported(),
        Verdict::Equivalent(p) => p.bounded.is_some() && !same_question,
        Verdict::NotEquivalent(_) => false,
    }
}

/// `new` tells the user more than `old`: any answer over an unknown, a
/// full proof over a bounded one.
fn stronger(new: &Verdict, old: &Verdict) -> bool {
    match (new, old) {
        (Verdict::Unknown(_), _) => false,
        (Verdict::Equivalent(p), Verdict::Equivalent(_)) => p.bounded.is_none(),
        _ => true,
    }
}

/// Equivalent when both versions are equal modulo renaming and formatting,
/// callees included; otherwise it has no answer.
pub(crate) struct SyntaxChecker;

impl Checker for SyntaxChecker {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        if let Err(v) = bodies(pair) {
            return Decision::plain(v, Decider::Syntax);
        }
        let ctx = match pair_context(pair, budget.deadline, options.timeout_ms, Decider::Syntax) {
            Ok(ctx) => ctx,
            Err(timeout) => return *timeout,
        };
        let verdict = if ctx.identical(pair.old, pair.new) {
            Verdict::Equivalent(Proof {
                bounded: None,
                unrolled: None,
                assumptions: Vec::new(),
                invariants: Vec::new(),
                partial: false,
                summaries: Vec::new(),
            })
        } else {
            Verdict::Unknown(Unknown {
                reason: UnknownReason::Inconclusive,
                detail: "the versions differ beyond renaming and formatting".into(),
            })
        };
        Decision::plain(verdict, Decider::Syntax)
    }
}
