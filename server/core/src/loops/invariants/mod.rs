//! Finding the inductive invariant of a product: candidate relations
//! checked Houdini-style first (`houdini`; fitted to concrete runs, `fitted`; per-case splitting of
//! conjunctions Z3 cannot settle at once, `cases`), Spacer after (`solve`,
//! which also fixes what a satisfiable answer means).

mod cases;
mod fitted;
pub mod houdini;
pub mod solve;

#[cfg(test)]
use super::lockstep::align::candidates;
use super::lockstep::encode;
#[cfg(test)]
use super::prepared;
