//! The product program of two versions whose loops run in step: bodies cut
//! at their top-level loops (`shape`), one version rewritten so that its
//! loops correspond one to one with the other's (`rearrange`: phases,
//! unrolling, peeling, fission), and the
//! Horn clauses of the product, built with the symbolic executor on each
//! loop-free stretch (`encode`); the alignments to try, cheapest first
//! (`align`), and the search that encodes and solves them in turn
//! (`prove`).

pub(super) mod align;
pub mod encode;
pub(super) mod prove;
pub mod rearrange;
pub mod shape;

use crate::passes::constants;
