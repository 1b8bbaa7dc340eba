//! Cooperative cancellation of a check.
//!
//! A caller that no longer wants a result (the language server, when an
//! edit makes a running job's method obsolete) sets a [`Cancellation`] from
//! another thread. The check notices it wherever it already watches its
//! deadline: the Z3 watchdog interrupts the running query, and the
//! executor, interpreter and refinement loop treat cancellation as "the
//! deadline has passed". The token is installed per thread (one check runs
//! on one thread, as its Z3 context does), so no signature deep in the
//! checkers has to carry it.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A shareable "stop now" flag.
#[derive(Clone, Debug, Default)]
pub struct Cancellation(Arc<AtomicBool>);

impl Cancellation {
    pub fn new() -> Cancellation {
        Cancellation::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Cancellation>> = const { RefCell::new(None) };
}

/// Runs `f` with `token` as this thread's cancellation (restoring the
/// previous one afterwards, even if `f` panics).
pub fn with_cancellation<T>(token: &Cancellation, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<Cancellation>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|c| c.borrow_mut().replace(token.clone()));
    let _restore = Restore(previous);
    f()
}

/// This thread's token, for helper threads (the watchdog) that must poll
/// it.
pub(crate) fn current() -> Option<Cancellation> {
    CURRENT.with(|c| c.borrow().clone())
}

/// True when this thread's check has been cancelled.
pub(crate) fn requested() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(Cancellation::is_cancelled))
}

/// The deadline has passed on the check's [clock](crate::clock) or the
/// check was cancelled.
pub(crate) fn expired(deadline: Instant) -> bool {
    requested() || crate::clock::past(deadline)
}

/// Time left before `deadline`; `None` when [`expired`].
pub(crate) fn remaining(deadline: Instant) -> Option<Duration> {
    if expired(deadline) {
        return None;
    }
    deadline
        .checked_duration_since(crate::clock::now())
        .filter(|d| !d.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_seen_only_inside_its_scope() {
        let t = Cancellation::new();
        let far = crate::clock::now() + Duration::from_secs(60);
        with_cancellation(&t, || {
            assert!(!expired(far));
            t.cancel();
            assert!(expired(far));
            assert_eq!(remaining(far), None);
        });
        assert!(!requested());
        assert!(remaining(far).is_some());
    }

    #[test]
    fn the_previous_token_comes_back_after_a_panic() {
        let outer = Cancellation::new();
        outer.cancel();
        with_cancellation(&outer, || {
            let inner = Cancellation::new();
            let r = std::panic::catch_unwind(|| with_cancellation(&inner, || panic!("boom")));
            assert!(r.is_err());
            assert!(requested(), "outer token restored");
        });
    }
}
