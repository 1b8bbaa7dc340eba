//! IR rewrites: each takes a function (or a program and a function in it)
//! to one with the same meaning under both semantics (`docs/semantics.md`)
//! — the same outcomes, outputs and faults for every input — and says in
//! its module doc what it preserves and where it applies.
//!
//! - `constant_locals`: run by `lang::lower_parsed` on every program; a
//!   local that only names a literal is replaced by it and its assignment
//!   dropped.
//! - `constants`: run by the loop checker; a local assigned once from a
//!   fault-free constant expression is replaced by it where it is read.
//! - `jumps`: `break`/`continue` of a loop as flags.
//! - `hoist`: loops inside branches brought to the top level under flags.
//! - `reverse`: a down-counting reduction loop turned around to match the
//!   other version's up-counting one.
//! - `tail`: loops of callees as tail-recursive functions.
//! - `climb`: a recursion by one step (or a tree recursion on `n - 1 … n - K`)
//!   as the loop from its base cases up.
//! - `inline`: calls of a function that does not recurse replaced by its
//!   body (a climbed recursive helper into the method that calls it).
//!
//! The last seven put a version in the shape the lockstep encoding
//! (`loops::lockstep`) takes; they refuse, by returning the input
//! unchanged (`None`/`false`) or naming the construct, anything outside
//! the pattern they prove exact.

pub mod climb;
pub mod constant_locals;
pub mod constants;
pub mod hoist;
pub mod inline;
pub mod jumps;
pub mod reverse;
pub mod tail;

#[cfg(test)]
mod tests;
