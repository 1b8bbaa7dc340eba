//! How a method's budget is shared out: every share a checker or a phase
//! gets, and every cap of a single solver call or small phase, in one
//! table.
//!
//! A share is taken of what is left at the moment it is handed out (or of
//! the whole budget, where a step says so), on the check's clock
//! ([`crate::clock`]): work, not wall time. It never exceeds what is left.
//! What a step does not use stays with the steps after it.
//!
//! The portfolio's schedule is a table of steps (`check/portfolio.rs`),
//! each with its [`Portion`]: for loops or recursion [`FIRST_LOOPS`] of the
//! budget, then ARDiff with [`ARDIFF`] of the budget (within which
//! [`ARDIFF_QUERY`] of what is left per query and [`ARDIFF_LOOPS`] for the
//! loop checker on a bounded proof), then [`LOOPS_AFTER_ARDIFF`] of what is
//! left for the loop checker, then, on a proof only up to the loop bound,
//! deeper unrolling ([`DEEPER`] of what is left, bounds up to
//! [`MAX_LOOP_BOUND`]), else the full symbolic checker with the rest. A
//! proof of the loop checker's that holds where both versions terminate
//! is deepened after the schedule ([`DEEPENING`] of what is left).
//! The editor's progressive run (`check/progressive.rs`) first gives `dse`
//! [`FAST_STAGE`] of the budget.

use std::time::{Duration, Instant};

/// What one step of a schedule may spend, from the moment it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Portion {
    /// A share of the method's whole budget.
    OfWhole(Share),
    /// A share of what is left before the schedule's deadline.
    OfLeft(Share),
    /// All that is left before the schedule's deadline.
    Rest,
}

impl Portion {
    /// The step's deadline on the check's clock, starting now, within a
    /// schedule of `whole` that ends at `deadline`.
    pub fn deadline(self, whole: Duration, deadline: Instant) -> Instant {
        let now = crate::clock::now();
        match self {
            Portion::OfWhole(share) => (now + share.of(whole)).min(deadline),
            Portion::OfLeft(share) => now + share.of(deadline.saturating_duration_since(now)),
            Portion::Rest => deadline,
        }
    }
}

/// A fraction of a duration, at least `at_least` and at most `at_most`,
/// and never more than the duration itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    pub fraction: f64,
    pub at_least: Duration,
    pub at_most: Duration,
}

impl Share {
    pub const fn fraction(fraction: f64) -> Share {
        Share {
            fraction,
            at_least: Duration::ZERO,
            at_most: Duration::MAX,
        }
    }

    pub const fn at_least(self, at_least: Duration) -> Share {
        Share { at_least, ..self }
    }

    pub const fn at_most(self, at_most: Duration) -> Share {
        Share { at_most, ..self }
    }

    /// This share of `left`.
    pub fn of(self, left: Duration) -> Duration {
        left.mul_f64(self.fraction)
            .max(self.at_least)
            .min(self.at_most)
            .min(left)
    }
}

/// The loop checker's first try in the portfolio, before ARDiff, of the
/// whole budget, for pairs with loops in both versions or recursion: the
/// pairs it proves it mostly proves within a small part of the default
/// budget, and most it cannot prove fail at once.
pub const FIRST_LOOPS: Share = Share::fraction(0.4).at_most(Duration::from_secs(4));

/// ARDiff in the portfolio, of the whole budget: it decides most pairs it
/// can decide quickly; the rest is kept for the full checker, which some
/// loop-heavy pairs need whole.
pub const ARDIFF: Share = Share::fraction(0.5);

/// The loop checker after ARDiff left a pair undecided or proved only up
/// to the bound, of what is left (the rest stays with the full checker,
/// which can still find counterexamples).
pub const LOOPS_AFTER_ARDIFF: Share = Share::fraction(0.5);

/// One query of ARDiff's refinement loop, of what is left, when blocks are
/// abstracted: a query the abstraction makes hard does not eat the budget
/// of the refinements that would make it easy.
pub const ARDIFF_QUERY: Share = Share::fraction(0.5).at_least(Duration::from_secs(1));

/// The loop checker inside an abstracting checker, of what is left, on a
/// proof only up to the bound (outside the portfolio, which schedules the
/// loop checker itself).
pub const ARDIFF_LOOPS: Share = Share::fraction(0.3).at_most(Duration::from_secs(3));

/// Deeper unrolling (`check/deepen.rs`) of a proof from the loop checker
/// that holds where both versions terminate, of what is left after it:
/// capped, since a loop whose trip count is an input spends it all in
/// vain.
pub const DEEPENING: Share = Share::fraction(0.5).at_most(Duration::from_secs(2));

/// Deeper unrolling of a proof still only up to the loop bound in the
/// portfolio, of what is left: most of it, since the full checker would
/// only ask the same question again; the rest is for what follows a proof
/// (C's search for inputs on which the old version is undefined), which a
/// deep query that cannot be decided would otherwise starve.
pub const DEEPER: Share = Share::fraction(0.75);

/// The deepest loop bound deepening unrolls to: a loop that some input
/// still runs past it is taken to have an unbounded trip count.
pub const MAX_LOOP_BOUND: u32 = 64;

/// ARDiff's H1 heuristic: each of its questions, and all of them together.
pub const H1_QUESTION: Duration = Duration::from_millis(150);
pub const H1_TOTAL: Duration = Duration::from_millis(600);

/// The loop checker's candidate invariants for an alignment of the loops
/// after the first, of what is left (the first alignment, plain lockstep,
/// may use all that is left: it proves most pairs).
pub const LATER_ALIGNMENT_CANDIDATES: Share =
    Share::fraction(1.0 / 3.0).at_most(Duration::from_secs(2));

/// The candidates fitted to concrete runs (`loops/invariants/fitted.rs`),
/// of what is left: tried where the others failed, they must leave time
/// to the checkers after (and to Spacer, where it follows them).
pub const FITTED_CANDIDATES: Share = Share::fraction(0.5).at_most(Duration::from_secs(4));

/// Spacer on the first alignment of the loops (plain lockstep, the
/// likeliest), of what is left: one hard alignment must not starve the
/// others.
pub const FIRST_ALIGNMENT_SPACER: Share = Share::fraction(0.5).at_least(Duration::from_secs(1));

/// Spacer on each later alignment, of what is left.
pub const LATER_ALIGNMENT_SPACER: Share = Share::fraction(1.0 / 3.0)
    .at_least(Duration::from_secs(1))
    .at_most(Duration::from_secs(2));

/// Candidate function summaries before Spacer in the recursion rule, of
/// what is left.
pub const RECURSION_CANDIDATES: Share = Share::fraction(0.3);

/// The fast stage of the editor's progressive run (`dse`, one query with
/// every common block abstract), of the whole budget.
pub const FAST_STAGE: Share = Share::fraction(0.1).at_most(Duration::from_secs(1));

/// After a proof of a C pair, the search for inputs on which the old
/// version is undefined and the new one is not (`check/undefined.rs`), of
/// the whole budget and never past the check's deadline.
pub const UNDEFINED_WITNESS: Share = Share::fraction(0.2).at_most(Duration::from_secs(2));

// Caps of single solver calls and of small phases, in work on the clock
// (`crate::clock`); each phase also stops at the deadline it is given.

/// One Houdini check of the loop checker's candidate invariants (is a
/// clause valid under the candidates left?), over bit-vectors: a query
/// that takes long is a conjunction too hard for bit-blasting, better
/// split into cases (`loops/invariants/cases.rs`) than waited for.
pub const HOUDINI_CHECK_BV: Duration = Duration::from_millis(500);
/// One Houdini check over integers and reals.
pub const HOUDINI_CHECK: Duration = Duration::from_millis(2_000);
/// One check of an equality the path into a loop implies (many are
/// asked; each is cheap or not worth it).
pub const ENTRY_CHECK: Duration = Duration::from_millis(50);
/// One call of a case split on a case that still has branches: most
/// infeasible cases are refuted quickly, and one that is not is split
/// further.
pub const BRANCHING_CASE: Duration = Duration::from_millis(30);
/// One check of the recursion rule's candidate summaries.
pub const SUMMARY_CHECK: Duration = Duration::from_millis(500);
/// One check of the recursion rule's candidate summaries over
/// bit-vectors, where they are all the rule tries (no Spacer after them):
/// the inductive step of a body that divides by a constant is a division
/// circuit per version.
pub const SUMMARY_CHECK_BV: Duration = Duration::from_millis(2_000);
/// Work the context-simplifying strategy gets in the equivalence query
/// before the plain one.
pub const CONTEXT_SIMPLIFY: Duration = Duration::from_millis(400);
/// Work the search for a counterexample with small inputs gets.
pub const NICER_MODEL: Duration = Duration::from_millis(500);
/// Concrete tests before any solving, in all: a safety net only. The
/// number of runs (`check::testing::Budget::runs`) is the limit, so that
/// which inputs are tried — and so whether a difference is found — does
/// not depend on the machine's speed; this bounds runs that are slow
/// (long loops, interval replay of library functions on every draw).
pub const CONCRETE_TESTS: Duration = Duration::from_millis(250);

/// Path feasibility in the symbolic executor: each check, and all of a
/// check's together, in Z3's resource units (`rlimit`), not in time: which
/// paths get pruned shapes the final query, so a time cap would make a
/// verdict depend on the machine's load. In units, the same pair prunes
/// the same paths everywhere.
pub const FEASIBILITY_CHECK_UNITS: u32 = 400_000;
pub const FEASIBILITY_UNITS: u64 = 8_000_000;
/// What a feasibility check costs besides the units Z3 counts (setting up
/// the query), so that many trivial checks also exhaust the budget.
pub const FEASIBILITY_CHECK_OVERHEAD: u64 = 2_000;
/// A safety net in wall time for all feasibility checks, beside the
/// clock's own per call, for searches whose units are slow (pure SAT
/// search). It is far above what the units allow on a busy machine, so
/// that which paths are pruned depends on the units alone.
pub const FEASIBILITY_WALL: Duration = Duration::from_secs(20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_its_fraction_within_its_bounds_and_never_more_than_what_is_left() {
        let s = |ms| Duration::from_millis(ms);
        assert_eq!(FIRST_LOOPS.of(s(5_000)), s(2_000));
        assert_eq!(FIRST_LOOPS.of(s(20_000)), s(4_000));
        assert_eq!(ARDIFF_QUERY.of(s(10_000)), s(5_000));
        assert_eq!(ARDIFF_QUERY.of(s(1_500)), s(1_000));
        assert_eq!(ARDIFF_QUERY.of(s(600)), s(600));
        assert_eq!(LATER_ALIGNMENT_SPACER.of(s(9_000)), s(2_000));
        assert_eq!(LATER_ALIGNMENT_SPACER.of(s(1_200)), s(1_000));
        assert_eq!(FAST_STAGE.of(s(10_000)), s(1_000));
    }

    #[test]
    fn a_portion_never_ends_after_the_schedule() {
        let now = crate::clock::now();
        let whole = Duration::from_secs(10);
        let soon = now + Duration::from_secs(2);
        let whole_half = Portion::OfWhole(Share::fraction(0.5));
        assert!(whole_half.deadline(whole, soon) <= soon);
        let late = now + Duration::from_secs(60);
        let d = whole_half.deadline(whole, late);
        assert!(d >= now + Duration::from_secs(5) && d < late);
        assert!(Portion::OfLeft(Share::fraction(0.5)).deadline(whole, soon) <= soon);
        assert_eq!(Portion::Rest.deadline(whole, soon), soon);
    }
}
