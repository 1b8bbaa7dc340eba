//! The clock a check's budgets run on: the work done, not wall time.
//!
//! Every budget of a check — [`Options::timeout_ms`](crate::check::Options)
//! and each share of it a checker gives a phase or a solver call — is a
//! deadline on this clock. It advances with the work the check does:
//!
//! - in solver calls (made through [`solve`]), by the resource units Z3
//!   counts, converted at the rate of the call's [`Engine`] ([`UNITS_PER_MS`]
//!   for SMT queries, [`HORN_UNITS_PER_MS`] for Spacer). Each call's `rlimit` is the
//!   work left, so whether a query is decided in its budget is the same on
//!   every machine under every load. A search that counts units slowly
//!   is bounded and charged by its CPU time instead (see [`CPU_FACTOR`],
//!   [`CPU_CAPPED_DIVISOR`] and [`CPU_CHARGE_DIVISOR`]); queries over
//!   nonlinear arithmetic, which always do, get their allowance in CPU time
//!   ([`Engine::Nonlinear`]).
//! - elsewhere (encoding, testing, replay, building terms), by the CPU
//!   time of the checking thread, which a loaded machine inflates far less
//!   than wall time (on a VM beside CPU-bound threads, still up to
//!   threefold).
//!
//! The solver's part of a check, usually most of it, is then the same work
//! on every machine under every load; the rest moves the clock with the
//! machine's speed, so a proof that needs nearly all of its budget can
//! still be lost on a slower or busier machine. Hash maps hash
//! deterministically (`clippy.toml`), so the same inputs make the same
//! queries in the same order. The rate is calibrated so that on the
//! reference machine of `docs/benchmarks.md` a budget lasts about as long
//! in wall time as it says.
//!
//! Wall time is a safety net only, for work the clock does not see (a
//! search whose units are slow): the clock never runs slower than
//! 1/[`SAFETY`] of wall time after [`SLACK`], so a budget `b` ends at the
//! latest after `SAFETY` × `b` + `SLACK` of wall time.
//!
//! Deadlines stay `std::time::Instant`s: [`now`] is the clock's start plus
//! the work done, so `now() + budget` and `deadline - now()` mean what they
//! say. Code that measures a budget uses [`now`], never `Instant::now()`
//! (which is for the time shown to the user). The clock is per thread —
//! one check runs on one thread, as its Z3 context does — and [`run`]
//! gives a check a fresh one.

use std::cell::Cell;
use std::time::{Duration, Instant};
use z3::ast::Bool;
use z3::{Params, SatResult, Solver};

/// Z3 resource units per millisecond of budget: the rate at which the
/// solver calls of the fixture table count units per millisecond of CPU
/// time on the reference machine (docs/benchmarks.md, "Work budgets").
pub const UNITS_PER_MS: u64 = 4_000;

/// Z3 resource units per millisecond of budget in Spacer (CHC) searches:
/// Spacer counts units at well under half the rate of SMT queries, about
/// 1,500 per millisecond over the Horn queries of the fixtures on the
/// reference machine (docs/benchmarks.md, "Work budgets"). Converted at
/// [`UNITS_PER_MS`], a Spacer search would last more than twice its budget.
pub const HORN_UNITS_PER_MS: u64 = 1_500;

/// Z3 resource units per millisecond of budget in queries over machine
/// floating point: searches over the circuits of float multiplication and
/// division count about 2,150 per millisecond on the reference machine,
/// about half the rate of other queries (docs/benchmarks.md, "Work
/// budgets").
pub const FLOAT_UNITS_PER_MS: u64 = 2_000;

/// The kind of search a solver call runs, which fixes the rate at which
/// its resource units count as budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// SMT queries (bit-blasting, arithmetic): [`UNITS_PER_MS`].
    #[default]
    Smt,
    /// Spacer, Z3's constrained-Horn-clause engine: [`HORN_UNITS_PER_MS`].
    Horn,
    /// Queries over machine floating point (bit-blasted float circuits):
    /// [`FLOAT_UNITS_PER_MS`].
    Float,
    /// Queries over nonlinear integer or real arithmetic (`math` semantics):
    /// counted at [`UNITS_PER_MS`], but their searches count far fewer units
    /// than that (about 0.1 per µs), so they always end on CPU time; they
    /// get their allowance in CPU time once ([`NONLINEAR_CPU_FACTOR`]),
    /// not [`CPU_FACTOR`] times it.
    Nonlinear,
}

impl Engine {
    fn units_per_ms(self) -> u64 {
        match self {
            Engine::Smt | Engine::Nonlinear => UNITS_PER_MS,
            Engine::Horn => HORN_UNITS_PER_MS,
            Engine::Float => FLOAT_UNITS_PER_MS,
        }
    }

    /// How many times its allowance a call may run in CPU time.
    fn cpu_factor(self) -> u32 {
        match self {
            Engine::Nonlinear => NONLINEAR_CPU_FACTOR,
            Engine::Float => FLOAT_CPU_FACTOR,
            Engine::Smt | Engine::Horn => CPU_FACTOR,
        }
    }

    /// `units` of budget (at [`UNITS_PER_MS`]) as this engine's units.
    fn units_for(self, units: u64) -> u64 {
        scale(units, self.units_per_ms(), UNITS_PER_MS)
    }

    /// `units` counted by this engine as units of budget.
    fn to_budget(self, units: u64) -> u64 {
        scale(units, UNITS_PER_MS, self.units_per_ms())
    }
}

/// `units × num / den`, saturating.
fn scale(units: u64, num: u64, den: u64) -> u64 {
    u64::try_from(u128::from(units) * u128::from(num) / u128::from(den.max(1))).unwrap_or(u64::MAX)
}

/// The wall-time safety net: the clock runs at least at 1/`SAFETY` of wall
/// time once [`SLACK`] has passed.
pub const SAFETY: u32 = 5;
pub const SLACK: Duration = Duration::from_secs(1);

/// A solver call also stops when it has used `CPU_FACTOR` times its
/// allowance in CPU time: a safety net for searches that count few units
/// per millisecond (nonlinear real arithmetic counts about 0.1 per µs),
/// which would otherwise run until the wall-time safety net. It is set far
/// above the rates of ordinary queries (bit-vector and Spacer searches
/// count 1 to 4 units per µs), so that their calls end on their units —
/// the same answer and the same solver state on every machine under every
/// load — and only searches that are slow for their units end on CPU time.
pub const CPU_FACTOR: u32 = 6;

/// The CPU factor of [`Engine::Nonlinear`]: a search that never ends on its
/// units gains no determinism from a high factor, only overrun — at
/// [`CPU_FACTOR`], the one query of a check given all that is left ran six
/// times the check's budget.
pub const NONLINEAR_CPU_FACTOR: u32 = 1;

/// The CPU factor of [`Engine::Float`]: float circuits count units at
/// rates 15-fold apart (from about 1,200 per millisecond down to 80 on the
/// reference machine, squares of products of doubles the slowest), so that
/// at [`CPU_FACTOR`] one check of such queries ran three and a half times
/// its budget.
pub const FLOAT_CPU_FACTOR: u32 = 2;

/// A call stopped by its CPU cap is charged at least its CPU time divided
/// by `CPU_CAPPED_DIVISOR`: a budget spent in searches too slow for their
/// units lasts at most twice its length in CPU time, not `CPU_FACTOR` times.
pub const CPU_CAPPED_DIVISOR: u32 = 2;

/// A solver call is charged at least its CPU time divided by
/// `CPU_CHARGE_DIVISOR`, so that searches that count few units still move
/// the clock. Calls that count units faster than `UNITS_PER_MS /
/// CPU_CHARGE_DIVISOR` per millisecond of CPU (one unit per 4 µs) are
/// charged their units alone. The divisor leaves room below the slowest
/// ordinary queries (about one unit per µs) for the CPU time a busy machine
/// inflates: on the 2-core VM, beside CPU-bound threads, a thread's CPU time
/// for the same work grows up to threefold (docs/benchmarks.md, "Work
/// budgets").
pub const CPU_CHARGE_DIVISOR: u32 = 16;

#[derive(Clone, Copy)]
struct Clock {
    /// When the clock started, in wall time; also the origin of [`now`].
    start: Instant,
    /// The thread's CPU time when the clock started.
    cpu_start: Duration,
    /// Units counted by solver calls since.
    work: u64,
    /// CPU time spent in those calls (counted as units instead).
    solver_cpu: Duration,
}

impl Clock {
    fn fresh() -> Clock {
        Clock {
            start: Instant::now(),
            cpu_start: thread_cpu(),
            work: 0,
            solver_cpu: Duration::ZERO,
        }
    }

    /// Work done since the clock started.
    fn elapsed(&self) -> Duration {
        let outside = thread_cpu()
            .saturating_sub(self.cpu_start)
            .saturating_sub(self.solver_cpu);
        to_duration(self.work) + outside
    }
}

/// The CPU time this thread has used.
#[cfg(unix)]
fn thread_cpu() -> Duration {
    read_clock(libc::CLOCK_THREAD_CPUTIME_ID).unwrap_or_else(wall_since_first_use)
}

/// The time of clock `id`, if it can be read.
#[cfg(unix)]
fn read_clock(id: libc::clockid_t) -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    (rc == 0).then(|| {
        Duration::new(
            u64::try_from(ts.tv_sec).unwrap_or(0),
            u32::try_from(ts.tv_nsec).unwrap_or(0),
        )
    })
}

/// A thread's CPU clock, readable from another thread (the watchdog's).
#[derive(Clone, Copy)]
struct CpuClock(#[cfg(unix)] Option<libc::clockid_t>);

impl CpuClock {
    /// This thread's.
    #[cfg(unix)]
    fn of_this_thread() -> CpuClock {
        let mut id: libc::clockid_t = 0;
        // SAFETY: `pthread_self` is this thread; `id` is a valid, writable
        // clockid_t the call only writes.
        let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
        CpuClock((rc == 0).then_some(id))
    }

    #[cfg(not(unix))]
    fn of_this_thread() -> CpuClock {
        CpuClock()
    }

    /// The CPU time the thread has used, if it can be read.
    #[cfg(unix)]
    fn read(&self) -> Option<Duration> {
        read_clock(self.0?)
    }

    #[cfg(not(unix))]
    fn read(&self) -> Option<Duration> {
        None
    }
}

/// Without a per-thread CPU clock, wall time stands in for it.
#[cfg(not(unix))]
fn thread_cpu() -> Duration {
    wall_since_first_use()
}

fn wall_since_first_use() -> Duration {
    static ORIGIN: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed()
}

thread_local! {
    static CLOCK: Cell<Option<Clock>> = const { Cell::new(None) };
}

fn current() -> Clock {
    CLOCK.with(|c| match c.get() {
        Some(clock) => clock,
        None => {
            let clock = Clock::fresh();
            c.set(Some(clock));
            clock
        }
    })
}

/// Runs `f` on a fresh clock, restoring this thread's previous clock
/// afterwards (even if `f` panics): one check's budgets do not depend on
/// the work of the checks the thread ran before.
///
/// The work is also the enclosing clock's: a caller's budget that spans
/// several checks sees what each of them did.
pub fn run<T>(f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Clock>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let mut previous = self.0.take();
            CLOCK.with(|c| {
                if let (Some(p), Some(inner)) = (previous.as_mut(), c.get()) {
                    p.work = p.work.saturating_add(inner.work);
                    p.solver_cpu += inner.solver_cpu;
                }
                c.set(previous)
            });
        }
    }
    let _restore = Restore(CLOCK.with(|c| c.replace(Some(Clock::fresh()))));
    f()
}

/// The clock's time: its start plus the work done, or plus the safety
/// net's floor if that is later.
pub fn now() -> Instant {
    let c = current();
    let floor = c.start.elapsed().saturating_sub(SLACK) / SAFETY;
    c.start + c.elapsed().max(floor)
}

/// The units solver calls have counted on this clock so far.
pub fn solver_work() -> u64 {
    current().work
}

/// Records solver work: `units` counted, taking `cpu` of this thread.
fn charge_solver(units: u64, cpu: Duration) {
    let mut c = current();
    c.work = c.work.saturating_add(units);
    c.solver_cpu += cpu;
    CLOCK.with(|cell| cell.set(Some(c)));
}

/// Records `units` of work as if a solver call had counted them.
#[cfg(test)]
fn charge(units: u64) {
    charge_solver(units, Duration::ZERO);
}

/// The longest a budget of `d` can last in wall time: the safety net.
pub fn wall_bound(d: Duration) -> Duration {
    d.saturating_mul(SAFETY) + SLACK
}

/// The work a budget of `d` stands for.
pub fn to_units(d: Duration) -> u64 {
    u64::try_from(d.as_micros() * u128::from(UNITS_PER_MS) / 1000).unwrap_or(u64::MAX)
}

fn to_duration(units: u64) -> Duration {
    let nanos = u128::from(units) * 1_000_000 / u128::from(UNITS_PER_MS);
    Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX))
}

/// Units of work left before `deadline`.
pub fn units_until(deadline: Instant) -> u64 {
    to_units(deadline.saturating_duration_since(now()))
}

/// The wall time at which the safety net's floor reaches `deadline`.
fn wall_limit(deadline: Instant) -> Instant {
    let c = current();
    let length = deadline.saturating_duration_since(c.start);
    c.start + length.saturating_mul(SAFETY) + SLACK
}

/// `deadline` has passed: the work before it is done, or the safety net
/// has run out.
pub fn past(deadline: Instant) -> bool {
    now() >= deadline
}

/// What a [`solve`] call may spend: what is left before the deadline, and
/// at most `cap` units of budget if given, counted at its engine's rate.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    pub deadline: Instant,
    pub cap: Option<u64>,
    pub engine: Engine,
}

impl Limit {
    pub fn until(deadline: Instant) -> Limit {
        Limit {
            deadline,
            cap: None,
            engine: Engine::Smt,
        }
    }

    pub fn capped(deadline: Instant, cap: u64) -> Limit {
        Limit {
            deadline,
            cap: Some(cap),
            engine: Engine::Smt,
        }
    }

    /// The same limit for a search by `engine`.
    pub fn on(self, engine: Engine) -> Limit {
        Limit { engine, ..self }
    }
}

/// Z3's count of resource units on this thread's current context.
fn units_counted(solver: &Solver) -> Option<u64> {
    match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(n)) => Some(u64::from(n)),
        _ => None,
    }
}

/// True when `reason` (Z3's reason for `unknown`) says a limit or an
/// interrupt stopped the search, rather than an incomplete theory.
pub fn stopped(reason: &str) -> bool {
    reason.contains("resource")
        || reason.contains("rlimit")
        || reason.contains("timeout")
        || reason.contains("cancel")
        || reason.contains("interrupt")
}

/// Checks `solver` under `assumptions` within `limit`: Z3's `rlimit` is the
/// work left, the watchdog interrupts the call at its wall-time safety net
/// (and on cancellation), and the units the call counted are charged to
/// the clock. `Unknown` without a call when nothing is left.
pub fn solve(solver: &Solver, limit: Limit, assumptions: &[Bool]) -> SatResult {
    if crate::cancel::requested() || past(limit.deadline) {
        return SatResult::Unknown;
    }
    let left = units_until(limit.deadline);
    // `allowed` is budget; `rlimit` the same budget in the engine's units.
    let engine = limit.engine;
    let allowed = limit
        .cap
        .map_or(left, |cap| cap.min(left))
        .clamp(1, engine.to_budget(u64::from(u32::MAX)));
    let rlimit = engine.units_for(allowed).clamp(1, u64::from(u32::MAX));
    let mut params = Params::new();
    params.set_u32("rlimit", u32::try_from(rlimit).unwrap_or(u32::MAX));
    solver.set_params(&params);
    // Wall time bounds the call only through the budget's own safety net:
    // a per-call wall limit would end calls on a busy machine that a quiet
    // one finishes on their units.
    let wall = wall_limit(limit.deadline);
    let before = units_counted(solver);
    let cpu = thread_cpu();
    let cpu_clock = CpuClock::of_this_thread();
    // The same clock `thread_cpu` reads, read from the watchdog's thread.
    let factor = engine.cpu_factor();
    let cpu_cap = cpu + to_duration(allowed).saturating_mul(factor);
    let over_cpu = || cpu_clock.read().is_some_and(|now| now >= cpu_cap);
    let result = crate::watchdog::until_or(wall, over_cpu, || {
        if assumptions.is_empty() {
            solver.check()
        } else {
            solver.check_assumptions(assumptions)
        }
    });
    let counted = match (before, units_counted(solver)) {
        (Some(b), Some(a)) => engine.to_budget(a.saturating_sub(b)),
        _ => allowed,
    };
    // A call stopped by its limit or by the safety net used all it was
    // allowed: what follows is the same as when the units ran out.
    let spent = thread_cpu().saturating_sub(cpu);
    let stopped_by_limit =
        result == SatResult::Unknown && solver.get_reason_unknown().is_some_and(|r| stopped(&r));
    let used = if stopped_by_limit && spent >= to_duration(allowed).saturating_mul(factor) {
        allowed.max(to_units(spent / CPU_CAPPED_DIVISOR))
    } else if stopped_by_limit {
        counted.max(allowed)
    } else {
        counted.max(to_units(spent / CPU_CHARGE_DIVISOR))
    };
    charge_solver(used, spent);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Int;

    #[test]
    fn work_moves_the_clock_and_run_gives_a_fresh_one() {
        run(|| {
            // Besides the charges, only this test's own CPU time moves
            // the clock: a few milliseconds at most.
            let near = |d: Duration, ms: u64| {
                let ms = Duration::from_millis(ms);
                d >= ms && d < ms + Duration::from_millis(100)
            };
            let t0 = now();
            charge(UNITS_PER_MS * 250);
            assert!(near(now() - t0, 250));
            run(|| {
                assert!(now() < t0 + Duration::from_millis(250));
                charge(UNITS_PER_MS * 100);
            });
            assert!(near(now() - t0, 350), "restored, with the inner work");
        });
    }

    #[test]
    fn the_safety_net_moves_a_clock_that_sees_no_work() {
        run(|| {
            let t0 = now();
            std::thread::sleep(SLACK + Duration::from_millis(500));
            assert!(
                now() >= t0 + Duration::from_millis(500) / SAFETY,
                "at least 1/SAFETY of wall time past the slack"
            );
            assert!(solver_work() == 0, "sleeping is no work");
        });
    }

    #[test]
    fn an_expired_deadline_is_past_without_waiting() {
        run(|| {
            let deadline = now() + Duration::from_secs(5);
            assert!(!past(deadline));
            charge(to_units(Duration::from_secs(5)));
            assert!(past(deadline));
            assert_eq!(units_until(deadline), 0);
        });
    }

    /// A search that needs far more work than it is allowed stops on its
    /// units, its reason says so, and the clock is charged what it was
    /// allowed: the same answer after the same work on every machine.
    #[test]
    fn a_solver_call_stops_on_its_units_and_charges_them() {
        run(|| {
            let solver = Solver::new();
            // Factoring a 64-bit product: bit-blasted multiplication, far
            // beyond the cap.
            let [x, y] = ["x", "y"].map(|n| z3::ast::BV::new_const(n, 64));
            solver.assert(
                x.bvmul(&y)
                    .eq(z3::ast::BV::from_u64(0x9e37_79b9_7f4a_7c15, 64)),
            );
            for v in [&x, &y] {
                solver.assert(v.bvugt(z3::ast::BV::from_u64(1, 64)));
                solver.assert(v.bvult(z3::ast::BV::from_u64(u64::from(u32::MAX), 64)));
            }
            let (start, before) = (now(), solver_work());
            let deadline = start + Duration::from_secs(600);
            let r = solve(&solver, Limit::capped(deadline, 200_000), &[]);
            assert_eq!(r, SatResult::Unknown);
            let why = solver.get_reason_unknown().unwrap_or_default();
            assert!(stopped(&why), "{why}");
            let spent = solver_work() - before;
            assert!((200_000..400_000).contains(&spent), "{spent}");
            assert!(now() - start >= to_duration(200_000));
        });
    }

    /// Spacer's units count at its own rate: a Horn search stopped on its
    /// limit counted the budget in Spacer's units, and the clock is
    /// charged the budget.
    #[test]
    fn a_horn_search_counts_its_units_at_spacers_rate() {
        run(|| {
            let Some(solver) = Solver::new_for_logic("HORN") else {
                panic!("Z3 has no HORN solver");
            };
            // A triangular sum checked after a thousand steps: without a
            // nonlinear invariant Spacer unrolls the steps one by one, far
            // beyond the cap.
            let int = z3::Sort::int();
            let inv = z3::FuncDecl::new("inv", &[&int, &int], &z3::Sort::bool());
            let [x, y] = ["x", "y"].map(Int::new_const);
            let at = |a: &Int, b: &Int| {
                inv.apply(&[a, b])
                    .as_bool()
                    .unwrap_or_else(|| Bool::from_bool(false))
            };
            solver.assert(at(&Int::from_i64(0), &Int::from_i64(0)));
            let step = at(&x, &y).implies(at(&(&x + 1), &(&y + &x)));
            solver.assert(z3::ast::forall_const(&[&x, &y], &[], &step));
            let bad = Bool::and(&[
                at(&x, &y),
                x.eq(Int::from_i64(1000)),
                y.eq(Int::from_i64(499_500)).not(),
            ]);
            solver.assert(z3::ast::forall_const(&[&x, &y], &[], &bad.not()));
            let (before, units) = (solver_work(), units_counted(&solver).unwrap_or(0));
            let limit = Limit::capped(now() + Duration::from_secs(600), 40_000).on(Engine::Horn);
            let r = solve(&solver, limit, &[]);
            assert_eq!(r, SatResult::Unknown);
            let counted = units_counted(&solver).unwrap_or(0) - units;
            let rlimit = Engine::Horn.units_for(40_000);
            assert!((rlimit..2 * rlimit).contains(&counted), "{counted}");
            let charged = solver_work() - before;
            assert!((40_000..80_000).contains(&charged), "{charged}");
        });
    }

    #[test]
    fn nothing_left_means_no_call() {
        run(|| {
            let solver = Solver::new();
            solver.assert(Int::new_const("x").eq(Int::from_i64(1)));
            let deadline = now();
            assert_eq!(
                solve(&solver, Limit::until(deadline), &[]),
                SatResult::Unknown
            );
            let later = now() + Duration::from_secs(1);
            assert_eq!(solve(&solver, Limit::until(later), &[]), SatResult::Sat);
        });
    }
}
