//! A hard deadline for Z3 calls.
//!
//! Z3's `timeout` parameter is not honoured everywhere: quantifier
//! instantiation (ARDiff's H1 questions) and some preprocessing run past
//! it. A watchdog thread interrupts the thread-local context at the
//! deadline; Z3 then returns `unknown` ("canceled") and the context stays
//! usable (checked on libz3 4.8.12).

use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Instant;

/// Runs `f` (which calls Z3 on this thread's context), interrupting it at
/// `deadline`.
pub fn until<T>(deadline: Instant, f: impl FnOnce() -> T) -> T {
    let ctx = z3::Context::thread_local();
    let handle = ctx.handle();
    let (done, finished) = channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            let wait = deadline.saturating_duration_since(Instant::now());
            if let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(wait) {
                handle.interrupt();
            }
        });
        let out = f();
        // The receiver may be gone already (it timed out): nothing to do.
        let _ = done.send(());
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use z3::ast::Int;
    use z3::{SatResult, Solver};

    #[test]
    fn an_interrupted_check_is_unknown_and_the_context_recovers() {
        let s = Solver::new();
        let (x, y, z) = (
            Int::new_const("x"),
            Int::new_const("y"),
            Int::new_const("z"),
        );
        let cube = |a: &Int| Int::mul(&[a, a, a]);
        // x³ + y³ = z³ with x, y, z > 1: no solution, and Z3 cannot show it.
        s.assert(Int::add(&[cube(&x), cube(&y)]).eq(cube(&z)));
        for v in [&x, &y, &z] {
            s.assert(v.gt(Int::from_i64(1)));
        }
        let r = until(Instant::now() + Duration::from_millis(200), || s.check());
        assert_eq!(r, SatResult::Unknown);
        let s = Solver::new();
        s.assert(x.gt(Int::from_i64(1)));
        assert_eq!(s.check(), SatResult::Sat);
    }
}
