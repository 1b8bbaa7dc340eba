//! eqlens-core: the analysis library behind the eqlens language server and
//! CLI. It takes source texts and options and returns plain data (verdicts,
//! counterexamples, spans). It knows nothing of LSP, async runtimes, files or
//! terminals; see `docs/ARCHITECTURE.md`.

pub mod abstraction;
pub(crate) mod budget;
pub mod cancel;
pub mod check;
pub(crate) mod clock;
pub mod diff;
pub mod interp;
pub mod interval;
pub mod ir;
pub mod lang;
pub(crate) mod loops;
pub(crate) mod passes;
pub mod project;
pub mod scope;
pub(crate) mod symbolic;
pub mod value;
pub(crate) mod verdict;
pub(crate) mod watchdog;
