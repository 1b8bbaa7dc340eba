//! Errors that end a command before (or instead of) a verdict, and the exit
//! status each maps to.

use crate::EXIT_USAGE;
use anstyle::{AnsiColor, Style};
use std::fmt;
use std::io::Write;

/// Exit status when the checker itself failed (a panic caught at the
/// boundary): nothing was proved, so it is "weaker than equivalent" (2), not
/// an input error.
pub const EXIT_INTERNAL: u8 = 2;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CliError {
    /// Bad invocation or unusable input (missing file, unknown extension,
    /// method not found, unwritable output directory). Exit 3.
    Usage(String),
    /// The analysis failed internally. Exit 2.
    Internal(String),
}

impl CliError {
    pub fn usage(msg: impl Into<String>) -> CliError {
        CliError::Usage(msg.into())
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => EXIT_USAGE,
            CliError::Internal(_) => EXIT_INTERNAL,
        }
    }

    /// Prints `eqlens: error: ...` as one line on stderr.
    pub fn report(&self) {
        let red = Style::new().fg_color(Some(AnsiColor::Red.into())).bold();
        let mut err = anstream::stderr().lock();
        let _ = writeln!(err, "eqlens: {red}error:{red:#} {self}");
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Usage(m) => f.write_str(m),
            CliError::Internal(m) => write!(f, "internal error: {m}"),
        }
    }
}

thread_local! {
    /// The last panic seen on this thread, as the quiet hook recorded it.
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Replaces the default panic hook (which would print over the progress bar
/// and before our own one-line error) with one that records the message and
/// location for [`catch_panic`]. With `EQLENS_DEBUG_PANICS` set the default
/// hook (and its backtrace, with `RUST_BACKTRACE`) stays, for debugging.
/// `RUST_BACKTRACE` alone does not keep it: it is often set globally, and a
/// backtrace per failing pair would bury the benchmark table.
pub fn install_quiet_panic_hook() {
    if std::env::var_os("EQLENS_DEBUG_PANICS").is_some() {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string().replace('\n', " ");
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
    }));
}

/// Runs `f`, turning a panic inside the core into an error message: one bad
/// pair must not take down a whole benchmark run, and `check` must still
/// exit with a documented status.
pub fn catch_panic<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    LAST_PANIC.with(|p| p.borrow_mut().take());
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| panic_message(payload.as_ref()))
    })
}

/// The message of a caught panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-text payload".to_string()
    }
}
