//! `eqlens`: check two versions of a Java or C file for equivalence, or run
//! a benchmark corpus.
//!
//! This binary is a thin layer over `eqlens_core`: it reads files, calls
//! [`eqlens_core::check::check_sources`] and renders the reports. No analysis
//! happens here. Exit statuses follow `diff`: 0 proved equivalent, 1 not
//! equivalent, 2 anything weaker, 3 usage or input error (see `docs/cli.md`).

mod bench;
mod check_cmd;
mod corpus;
mod error;
mod json_out;
mod latency;
mod render;
mod stats;
mod trace;

use clap::{Args, Parser, Subcommand, ValueEnum};
use eqlens_core::check::{
    CheckerKind, FileBudget, LOOP_BOUND_RANGE, Options, Override, OverrideAction, TIMEOUT_MS_RANGE,
    TOTAL_TIMEOUT_MS_RANGE,
};
use eqlens_core::ir::{Semantics, SignedOverflow};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status for usage and input errors (clap's own errors included).
pub const EXIT_USAGE: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "eqlens",
    version,
    about = "Equivalence checking for two versions of Java or C methods"
)]
struct Cli {
    /// When to colour the output (NO_COLOR and CLICOLOR_FORCE are honoured
    /// under `auto`).
    #[arg(long, value_enum, default_value_t = ColorWhen::Auto, global = true, value_name = "WHEN")]
    color: ColorWhen,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check two versions of a source file; the exit status tells the verdict.
    Check(CheckArgs),
    /// Run every pair of an EqBench-layout corpus and tabulate the verdicts.
    Bench(BenchArgs),
    /// Speak the Language Server Protocol on stdin/stdout (`docs/server.md`).
    Serve,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// `--semantics` values (mirrors [`Semantics`], which has no clap derive:
/// the core does not depend on clap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SemanticsArg {
    Math,
    Machine,
}

impl From<SemanticsArg> for Semantics {
    fn from(s: SemanticsArg) -> Semantics {
        match s {
            SemanticsArg::Math => Semantics::Math,
            SemanticsArg::Machine => Semantics::Machine,
        }
    }
}

/// `--signed-overflow` values (mirrors [`SignedOverflow`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SignedOverflowArg {
    Undefined,
    Wraps,
}

impl From<SignedOverflowArg> for SignedOverflow {
    fn from(s: SignedOverflowArg) -> SignedOverflow {
        match s {
            SignedOverflowArg::Undefined => SignedOverflow::Undefined,
            SignedOverflowArg::Wraps => SignedOverflow::Wraps,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    Java,
    C,
}

impl From<LangArg> for eqlens_core::ir::Lang {
    fn from(l: LangArg) -> eqlens_core::ir::Lang {
        match l {
            LangArg::Java => eqlens_core::ir::Lang::Java,
            LangArg::C => eqlens_core::ir::Lang::C,
        }
    }
}

/// Options shared by `check` and `bench`: they become [`Options`].
#[derive(Args, Debug, Clone)]
pub struct CommonOptions {
    /// Integer/float semantics: `math` (unbounded integers, real numbers) or
    /// `machine` (fixed-width integers, IEEE-754).
    #[arg(long, value_enum, default_value_t = SemanticsArg::Math, value_name = "SEMANTICS")]
    pub semantics: SemanticsArg,
    /// Loop iterations unrolled (and recursion depth inlined) before a proof
    /// becomes bounded (1 to 10000).
    // Negative numbers are taken as values, so that `--loop-bound -1` is
    // refused by the range check rather than read as an unknown option.
    #[arg(long, default_value_t = Options::default().loop_bound, value_parser = parse_loop_bound,
          allow_negative_numbers = true, value_name = "K")]
    pub loop_bound: u32,
    /// Wall-clock budget per method pair, in milliseconds (1 to 3600000).
    #[arg(long, default_value_t = Options::default().timeout_ms, value_parser = parse_timeout_ms,
          allow_negative_numbers = true, value_name = "N")]
    pub timeout_ms: u64,
    /// Wall-clock budget for the whole file, in milliseconds (1 to
    /// 86400000): lowering and every method's check draw on it; methods
    /// left when it is spent are reported unknown. Default: none.
    #[arg(long, value_parser = parse_total_timeout_ms, allow_negative_numbers = true,
          value_name = "N")]
    pub total_timeout_ms: Option<u64>,
    /// C under `machine`: signed overflow is `undefined` behaviour (ISO C)
    /// or `wraps` (compiled with -fwrapv). Default: `[c] signed-overflow`
    /// of the nearest eqlens.toml (`check`), else `undefined`.
    #[arg(long, value_enum, value_name = "MODEL")]
    pub signed_overflow: Option<SignedOverflowArg>,
}

impl CommonOptions {
    pub fn options(&self, checker: CheckerKind) -> Options {
        Options {
            semantics: self.semantics.into(),
            checker,
            loop_bound: self.loop_bound,
            timeout_ms: self.timeout_ms,
            overrides: Vec::new(),
            // From the project file, per document (`project::settings`).
            callees: Default::default(),
            signed_overflow: self.signed_overflow.map(Into::into).unwrap_or_default(),
            written_outside: Vec::new(),
        }
    }

    /// The budget for a whole file (`--total-timeout-ms`).
    pub fn file_budget(&self) -> FileBudget {
        FileBudget {
            total_timeout_ms: self.total_timeout_ms,
        }
    }
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The old version (.java, .c or .h).
    #[arg(value_name = "OLD")]
    pub old: PathBuf,
    /// The new version, in the same language as OLD.
    #[arg(value_name = "NEW")]
    pub new: PathBuf,
    /// Check only this method (every overload present in both versions);
    /// by default every method present in both is checked.
    #[arg(long, value_name = "NAME")]
    pub method: Option<String>,
    /// The checking algorithm.
    #[arg(long, value_parser = parse_checker, default_value = CheckerKind::default().name(), value_name = "NAME")]
    pub checker: CheckerKind,
    #[command(flatten)]
    pub common: CommonOptions,
    /// Output format: `text` for people, `json` for programs.
    #[arg(long, value_enum, default_value_t = Format::Text, value_name = "FORMAT")]
    pub format: Format,
    /// Keep the common code on these lines of the new version abstracted
    /// (never refined), e.g. `12-30` (repeatable).
    #[arg(long = "abstract", value_parser = parse_abstract, allow_negative_numbers = true,
          value_name = "L1-L2")]
    pub abstract_lines: Vec<Override>,
    /// Keep the code on these lines of the new version concrete (never
    /// abstracted), e.g. `12-30` (repeatable).
    #[arg(long = "refine", value_parser = parse_refine, allow_negative_numbers = true,
          value_name = "L1-L2")]
    pub refine_lines: Vec<Override>,
}

impl CheckArgs {
    /// The options of this run: the shared ones plus the overrides.
    pub fn options(&self) -> Options {
        let mut o = self.common.options(self.checker);
        o.overrides = self
            .abstract_lines
            .iter()
            .chain(&self.refine_lines)
            .cloned()
            .collect();
        o
    }
}

fn parse_abstract(s: &str) -> Result<Override, String> {
    parse_range(s, OverrideAction::Abstract)
}

fn parse_refine(s: &str) -> Result<Override, String> {
    parse_range(s, OverrideAction::Refine)
}

/// `L` or `L1-L2`, one-based and inclusive.
fn parse_range(s: &str, action: OverrideAction) -> Result<Override, String> {
    let line = |t: &str| -> Result<u32, String> {
        match t.trim().parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err("expected L or L1-L2 with one-based line numbers".to_string()),
        }
    };
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (line(a)?, line(b)?),
        None => {
            let n = line(s)?;
            (n, n)
        }
    };
    if a > b {
        return Err("the range ends before it starts".to_string());
    }
    Ok(Override {
        action,
        first_line: a,
        last_line: b,
    })
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Corpus root in the EqBench layout (`<benchmark>/<program>/<Eq|Neq>/`).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Languages to run (repeatable; default: java and c).
    #[arg(long = "lang", value_enum, value_name = "LANG")]
    pub langs: Vec<LangArg>,
    /// Checkers to run (repeatable; default: every checker).
    #[arg(long = "checker", value_parser = parse_checker, value_name = "NAME")]
    pub checkers: Vec<CheckerKind>,
    #[command(flatten)]
    pub common: CommonOptions,
    /// Worker threads checking pairs in parallel (1 to 256).
    #[arg(long, default_value_t = 2, value_parser = parse_jobs, allow_negative_numbers = true,
          value_name = "N")]
    pub jobs: u32,
    /// Directory for results.csv, results.json and summary.json.
    #[arg(long, default_value = "bench-out", value_name = "DIR")]
    pub out: PathBuf,
    /// Run only pairs whose id (`benchmark/program/Eq`) contains SUBSTR.
    #[arg(long, value_name = "SUBSTR")]
    pub filter: Option<String>,
    /// Measure the language server instead of the checkers: for each pair,
    /// edit the old version into the new one in a running `eqlens serve`
    /// and time edit → final lenses, cold and cached (`docs/benchmarks.md`).
    #[arg(long)]
    pub latency: bool,
    /// JSON list of corpus labels known to be wrong, `[{"pair": ID,
    /// "label": "Eq"|"Neq", "reason": TEXT}]`: those pairs are scored
    /// against the corrected label and listed as disputed.
    #[arg(long, value_name = "FILE")]
    pub disputed_labels: Option<PathBuf>,
}

/// An integer in `range`, or what the value must be (clap shows the message
/// after "invalid value ... for '--option'").
fn parse_in_range<T>(s: &str, range: std::ops::RangeInclusive<T>) -> Result<T, String>
where
    T: Copy + std::fmt::Display + TryFrom<i128> + PartialOrd,
{
    s.trim()
        .parse::<i128>()
        .ok()
        .and_then(|n| T::try_from(n).ok())
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            format!(
                "must be an integer from {} to {}",
                range.start(),
                range.end()
            )
        })
}

/// `--loop-bound`: the range the editor setting has too.
fn parse_loop_bound(s: &str) -> Result<u32, String> {
    parse_in_range(s, LOOP_BOUND_RANGE)
}

/// `--timeout-ms`: the range the editor setting has too.
fn parse_timeout_ms(s: &str) -> Result<u64, String> {
    parse_in_range(s, TIMEOUT_MS_RANGE)
}

/// `--total-timeout-ms`: the core's range for a file's budget.
fn parse_total_timeout_ms(s: &str) -> Result<u64, String> {
    parse_in_range(s, TOTAL_TIMEOUT_MS_RANGE)
}

/// `--jobs`: at least one worker; more than 256 is surely a typo.
fn parse_jobs(s: &str) -> Result<u32, String> {
    parse_in_range(s, 1..=256)
}

/// Parses a checker name, listing the known ones on failure (clap shows the
/// message after "invalid value ... for '--checker'").
fn parse_checker(name: &str) -> Result<CheckerKind, String> {
    CheckerKind::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = CheckerKind::ALL.iter().map(|c| c.name()).collect();
        format!("unknown checker '{name}' (known: {})", known.join(", "))
    })
}

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&argv) {
        Ok(cli) => cli,
        // `--help` and `--version` arrive as errors too but are not
        // failures: clap prints them, on stdout, and the status is 0.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        // Every real usage error is one `eqlens: error:` line (and the help
        // to try) and exits 3, not clap's 2 (2 means "not proved" here).
        Err(e) => {
            error::report_command_line(&e, &argv);
            return ExitCode::from(EXIT_USAGE);
        }
    };
    match cli.color {
        ColorWhen::Auto => {}
        ColorWhen::Always => anstream::ColorChoice::Always.write_global(),
        ColorWhen::Never => anstream::ColorChoice::Never.write_global(),
    }
    let result = match cli.command {
        Command::Check(args) => check_cmd::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Serve => {
            // stdout carries the protocol: errors go to stderr only.
            return match eqlens_server::run_stdio() {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("eqlens serve: {e}");
                    ExitCode::FAILURE
                }
            };
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            e.report();
            ExitCode::from(e.exit_code())
        }
    }
}
