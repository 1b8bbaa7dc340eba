//! Exact rewrites that put a version in the shape the lockstep encoding
//! takes: jumps out of loops as flags (`jumps`), loops inside branches
//! hoisted to the top level (`hoist`), constant locals replaced by their
//! values (`constants`), a reduction counted down turned around
//! (`reverse`). Each keeps the function's meaning under both semantics.

pub mod constants;
pub mod hoist;
pub mod jumps;
pub mod reverse;

use super::lockstep::{build, shape};
use super::recursion::tail;
