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

/// The commands `eqlens` has, for messages about a missing or unknown one.
const COMMANDS: &[&str] = &["check", "bench", "serve"];

/// An option or operand as clap names it (`--loop-bound <K>`, `<NEW>`), as
/// the user types or reads it in the usage line: `--loop-bound`, `NEW`.
fn arg_name(clap_name: &str) -> String {
    let first = clap_name.split_whitespace().next().unwrap_or(clap_name);
    first
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string()
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A clap error as the one line `docs/cli.md` promises: what is wrong,
/// naming the option and the value. Kinds without a rewording below keep
/// clap's own first paragraph, joined onto one line.
pub fn command_line_message(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |kind: ContextKind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::StyledStr(s)) => Some(s.to_string()),
        _ => None,
    };
    let list = |kind: ContextKind| match e.get(kind) {
        Some(ContextValue::Strings(v)) => v.clone(),
        Some(ContextValue::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    };
    let arg = text(ContextKind::InvalidArg).map(|a| arg_name(&a));
    let value = text(ContextKind::InvalidValue);
    let commands = || one_of(&COMMANDS.iter().map(|c| c.to_string()).collect::<Vec<_>>());
    let message = match (e.kind(), &arg, &value) {
        (ErrorKind::InvalidValue, Some(arg), Some(v)) if v.is_empty() => {
            let valid = list(ContextKind::ValidValue);
            if valid.is_empty() {
                Some(format!("{arg} needs a value"))
            } else {
                Some(format!("{arg} needs a value: {}", one_of(&valid)))
            }
        }
        (ErrorKind::InvalidValue, Some(arg), Some(v)) => {
            let valid = list(ContextKind::ValidValue);
            Some(if valid.is_empty() {
                format!("invalid value '{v}' for {arg}")
            } else {
                format!("invalid value '{v}' for {arg}: expected {}", one_of(&valid))
            })
        }
        (ErrorKind::ValueValidation, Some(arg), Some(v)) => {
            Some(match std::error::Error::source(e) {
                Some(why) => format!("invalid value '{v}' for {arg}: {why}"),
                None => format!("invalid value '{v}' for {arg}"),
            })
        }
        (ErrorKind::UnknownArgument, Some(arg), _) => {
            let suggestion = text(ContextKind::SuggestedArg)
                .map(|s| format!(" (did you mean '{}'?)", arg_name(&s)))
                .unwrap_or_default();
            Some(if arg.starts_with('-') {
                format!("unknown option '{arg}'{suggestion}")
            } else {
                format!("unexpected argument '{arg}'{suggestion}")
            })
        }
        (ErrorKind::InvalidSubcommand, _, _) => text(ContextKind::InvalidSubcommand)
            .map(|c| format!("unknown command '{c}' (expected {})", commands())),
        (
            ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand,
            _,
            _,
        ) => Some(format!("missing command (expected {})", commands())),
        (ErrorKind::MissingRequiredArgument, _, _) => {
            let missing: Vec<String> = list(ContextKind::InvalidArg)
                .iter()
                .map(|a| arg_name(a))
                .collect();
            match missing.len() {
                0 => None,
                1 => Some(format!("missing {}", missing[0])),
                _ => Some(format!(
                    "missing {}",
                    one_of(&missing).replace(" or ", " and ")
                )),
            }
        }
        (ErrorKind::ArgumentConflict, Some(arg), _) => {
            let prior: Vec<String> = list(ContextKind::PriorArg)
                .iter()
                .map(|a| arg_name(a))
                .collect();
            if prior.is_empty() || prior.iter().all(|p| p == arg) {
                Some(format!("{arg} given more than once"))
            } else {
                Some(format!("{arg} cannot be used with {}", prior.join(", ")))
            }
        }
        _ => None,
    };
    message.unwrap_or_else(|| {
        // clap's rendering: `error: WHAT\n  DETAILS\n\nUsage: ...`; its first
        // paragraph on one line.
        let rendered = e.render().to_string();
        let first = rendered.split("\n\n").next().unwrap_or_default();
        let first = first.strip_prefix("error:").unwrap_or(first);
        first.split_whitespace().collect::<Vec<_>>().join(" ")
    })
}

/// Prints a command-line error: `eqlens: error: …` (see
/// [`command_line_message`]), then one line naming the help to read, for
/// the command given in `argv` if any.
pub fn report_command_line(e: &clap::Error, argv: &[std::ffi::OsString]) {
    CliError::usage(command_line_message(e)).report();
    let help = match command_of(argv) {
        Some(c) => format!("eqlens {c} --help"),
        None => "eqlens --help".to_string(),
    };
    let mut err = anstream::stderr().lock();
    let _ = writeln!(err, "  (try '{help}')");
}

/// The command an invocation names: the first argument after the program
/// name that is one (only `--color WHEN`, whose values are no command
/// names, can come before it).
fn command_of(argv: &[std::ffi::OsString]) -> Option<&'static str> {
    argv.iter()
        .skip(1)
        .find_map(|a| COMMANDS.iter().copied().find(|c| a.to_str() == Some(c)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn message(args: &[&str]) -> String {
        match crate::Cli::try_parse_from(args) {
            Ok(_) => panic!("{args:?} parsed"),
            Err(e) => command_line_message(&e),
        }
    }

    #[test]
    fn clap_errors_become_one_line() {
        assert_eq!(
            message(&["eqlens", "check", "a.c", "b.c", "--loop-bound", "-1"]),
            "invalid value '-1' for --loop-bound: must be an integer from 1 to 10000"
        );
        assert_eq!(
            message(&["eqlens", "check", "a.c", "b.c", "--semantcs", "math"]),
            "unknown option '--semantcs' (did you mean '--semantics'?)"
        );
        assert_eq!(
            message(&["eqlens", "check", "a.c", "b.c", "c.c"]),
            "unexpected argument 'c.c'"
        );
        assert_eq!(
            message(&["eqlens"]),
            "missing command (expected check, bench or serve)"
        );
        for args in [
            &["eqlens", "check", "a.c", "b.c", "--timeout-ms", "0"][..],
            &["eqlens", "serve", "--nope"],
            &["eqlens", "check", "a.c", "b.c", "--abstract", "3-1"],
        ] {
            let m = message(args);
            assert!(!m.contains('\n') && !m.is_empty(), "{args:?}: {m}");
        }
    }

    #[test]
    fn the_hint_names_the_command_given() {
        let argv = |a: &[&str]| a.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            command_of(&argv(&["eqlens", "--color", "never", "bench", "x"])),
            Some("bench")
        );
        assert_eq!(command_of(&argv(&["eqlens", "--nope"])), None);
    }
}
