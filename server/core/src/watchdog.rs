//! A hard deadline for Z3 calls: the wall-time safety net behind the
//! resource limits of the clock (`crate::clock`), and the way a cancellation
//! reaches a running query.
//!
//! Z3's `timeout` parameter is not honoured everywhere: quantifier
//! instantiation (ARDiff's H1 questions) and some preprocessing run past
//! it. A watchdog thread interrupts the thread-local context at the
//! deadline; Z3 then returns `unknown` ("canceled").
//!
//! An interrupt that arrives when no Z3 call is running leaves the context
//! canceled, and the next call (even `simplify`, which the z3 crate unwraps)
//! fails. So the watchdog interrupts only while `f` runs (a mutex orders
//! the two), and if it fired at all, a trivial check afterwards clears the
//! cancellation (checked on libz3 4.8.12: a solver check resets it).
//!
//! The same watchdog interrupts the query when the thread's
//! [`Cancellation`] is set.

use crate::cancel::Cancellation;
use std::sync::Mutex;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How often the watchdog looks at the thread's cancellation token.
const POLL: Duration = Duration::from_millis(20);

/// Runs `f` (which calls Z3 on this thread's context), interrupting it at
/// `deadline`.
#[cfg(test)]
pub fn until<T>(deadline: Instant, f: impl FnOnce() -> T) -> T {
    until_or(deadline, || false, f)
}

/// Runs `f` (which calls Z3 on this thread's context), interrupting it at
/// `deadline` or as soon as `stop` (asked from the watchdog's thread at
/// each poll) says so.
pub fn until_or<T>(deadline: Instant, stop: impl Fn() -> bool + Sync, f: impl FnOnce() -> T) -> T {
    let token = crate::cancel::current();
    let ctx = z3::Context::thread_local();
    let handle = ctx.handle();
    // (f still running, watchdog fired)
    let state = Mutex::new((true, false));
    let (done, finished) = channel::<()>();
    let out = std::thread::scope(|s| {
        let (state, stop) = (&state, &stop);
        s.spawn(move || {
            // Wake at the deadline, and every POLL to see a cancellation;
            // from then on interrupt every POLL until f returns. Z3 clears
            // its cancellation flag when a check starts, so an interrupt
            // that lands while f is still setting up its query is lost
            // (seen on libz3 4.8.12: a feasibility check ran for minutes
            // past its deadline).
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                let cancelled = token.as_ref().is_some_and(Cancellation::is_cancelled);
                if left.is_zero() || cancelled || stop() {
                    match state.lock() {
                        Ok(mut st) if st.0 => {
                            handle.interrupt();
                            st.1 = true;
                        }
                        _ => return,
                    }
                }
                let wait = if left.is_zero() { POLL } else { left.min(POLL) };
                match finished.recv_timeout(wait) {
                    Err(RecvTimeoutError::Timeout) => continue,
                    _ => return, // f finished
                }
            }
        });
        let out = f();
        if let Ok(mut st) = state.lock() {
            st.0 = false;
        }
        // The receiver may be gone already (it timed out): nothing to do.
        let _ = done.send(());
        out
    });
    let fired = state.lock().map(|st| st.1).unwrap_or(true);
    if fired {
        let _ = z3::Solver::new().check();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use z3::ast::{Ast, Int};
    use z3::{SatResult, Solver};

    /// A solver that cannot finish: x³ + y³ = z³ with x, y, z > 1 has no
    /// solution, and Z3 cannot show it. Returns it and `x`.
    fn unsolvable() -> (Solver, Int) {
        let s = Solver::new();
        let (x, y, z) = (
            Int::new_const("x"),
            Int::new_const("y"),
            Int::new_const("z"),
        );
        let cube = |a: &Int| Int::mul(&[a, a, a]);
        s.assert(Int::add(&[cube(&x), cube(&y)]).eq(cube(&z)));
        for v in [&x, &y, &z] {
            s.assert(v.gt(Int::from_i64(1)));
        }
        (s, x)
    }

    #[test]
    fn an_interrupted_check_is_unknown_and_the_context_recovers() {
        let (s, x) = unsolvable();
        let r = until(Instant::now() + Duration::from_millis(200), || s.check());
        assert_eq!(r, SatResult::Unknown);
        // Simplification (unwrapped by the z3 crate) and checks work again.
        let e = Int::add(&[&x, &Int::from_i64(0)]).simplify();
        assert_eq!(e.to_string(), "x");
        let s = Solver::new();
        s.assert(x.gt(Int::from_i64(1)));
        assert_eq!(s.check(), SatResult::Sat);
    }

    #[test]
    fn cancelling_interrupts_a_running_query_long_before_its_deadline() {
        let (s, x) = unsolvable();
        let token = crate::cancel::Cancellation::new();
        let canceller = {
            let t = token.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                t.cancel();
            })
        };
        let start = Instant::now();
        let r = crate::cancel::with_cancellation(&token, || {
            until(Instant::now() + Duration::from_secs(60), || s.check())
        });
        let _ = canceller.join();
        assert_eq!(r, SatResult::Unknown);
        // Not a timing assertion on the solver: only that the 60 s deadline
        // was not what stopped it.
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{:?}",
            start.elapsed()
        );
        let s = Solver::new();
        s.assert(x.gt(Int::from_i64(1)));
        assert_eq!(s.check(), SatResult::Sat);
    }

    #[test]
    fn an_interrupt_that_lands_before_the_check_starts_is_repeated() {
        // The deadline passes while f is still setting up: Z3 clears the
        // first interrupt when the check starts; a later one stops it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (s, _) = unsolvable();
            let r = until(Instant::now(), || {
                std::thread::sleep(Duration::from_millis(100));
                s.check()
            });
            let _ = tx.send(r);
        });
        // Not a timing assertion on the solver: without a repeated
        // interrupt the check never returns.
        let r = rx.recv_timeout(Duration::from_secs(60));
        assert_eq!(r, Ok(SatResult::Unknown));
    }

    #[test]
    fn a_deadline_already_past_does_not_poison_later_calls() {
        let x = Int::new_const("x");
        for _ in 0..20 {
            let r = until(Instant::now(), || 1 + 1);
            assert_eq!(r, 2);
            let e = Int::add(&[&x, &Int::from_i64(0)]).simplify();
            assert_eq!(e.to_string(), "x");
        }
    }
}
