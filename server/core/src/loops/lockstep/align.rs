//! The alignments the lockstep search tries, cheapest and likeliest first:
//! pairs of shapes whose loops correspond one to one, either as written
//! (with first iterations peeled) or after one version is rearranged
//! ([`rearrange`]: unrolling, a peeled last iteration, phases, fission).
//!
//! *Invariant:* the order of [`candidates`] is the order the search
//! encodes and solves them in, so it fixes which proof is found and how
//! the budget is spent; every shape here is an exact rewrite of its
//! version (the rewrites' own invariant).

use crate::ir::Expr;
use crate::loops::encode::Version;
use crate::loops::houdini;
use crate::loops::rearrange;
use crate::loops::shape::{LoopPiece, Shape};

/// A pair of shapes to run in lockstep, and how they came about (per pair
/// of loops: iterations peeled before it, and what was rearranged).
pub(in crate::loops) struct Candidate {
    pub(in crate::loops) old: Shape,
    pub(in crate::loops) new: Shape,
    pub(in crate::loops) peeled: Vec<(u32, u32)>,
    pub(in crate::loops) notes: Vec<String>,
    /// Whether Houdini states the loops' exits ([`houdini::Exits`]):
    /// `Stated` for the phases of a split and where one loop runs on
    /// alone, where a later relation needs an earlier loop's guard to
    /// stay false.
    pub(in crate::loops) exits: houdini::Exits,
}

/// The candidates, cheapest and likeliest first: plain lockstep and the
/// first-iteration peels when the loop counts agree, then the
/// rearrangements of [`rearrange`] (one version rewritten, the other
/// kept): with equal counts, unrolling by the counters' step ratio and a
/// peeled last iteration; with one version having more loops, unrolling
/// with a remainder loop, splitting into phases and fission. `refused`
/// keeps the first reason a rearrangement did not apply.
pub(in crate::loops) fn candidates(
    old: &Version<'_>,
    new: &Version<'_>,
    refused: &mut Option<String>,
    not_rearranged: Option<&str>,
    overflow_undefined: bool,
) -> Vec<Candidate> {
    let mut out = peeled(old, new);
    if let Some(why) = not_rearranged {
        refused.get_or_insert(why.into());
        return out;
    }
    for old_side in [true, false] {
        let (this, other) = if old_side { (old, new) } else { (new, old) };
        let (me, them) = if old_side {
            ("old", "new")
        } else {
            ("new", "old")
        };
        let side = Side {
            old_side,
            this,
            other,
            me,
            them,
        };
        let (p, q) = (this.shape.loops.len(), other.shape.loops.len());
        if p == q {
            for j in 0..p {
                side.unrolled(&mut out, refused, j);
                side.last_iteration_peeled(&mut out, refused, j, &side.this.shape, "");
            }
        }
        if q <= p {
            continue;
        }
        for j in 0..p {
            side.split_or_fissioned(&mut out, refused, overflow_undefined, j);
        }
    }
    out
}

/// Plain lockstep and the first-iteration peels, when the loop counts
/// agree (none otherwise).
fn peeled(old: &Version<'_>, new: &Version<'_>) -> Vec<Candidate> {
    let (n_old, n_new) = (old.shape.loops.len(), new.shape.loops.len());
    let mut out = Vec::new();
    if n_old == n_new {
        for peels in alignments(n_old).into_iter().take(MAX_ALIGNMENTS) {
            let (mut o, mut n) = (old.shape.clone(), new.shape.clone());
            for (k, p) in peels.iter().enumerate() {
                match p {
                    Peel::None => {}
                    Peel::Old => {
                        o.peel(k);
                    }
                    Peel::New => {
                        n.peel(k);
                    }
                }
            }
            let peeled = peels
                .iter()
                .map(|p| (u32::from(*p == Peel::Old), u32::from(*p == Peel::New)))
                .collect();
            out.push(Candidate {
                old: o,
                new: n,
                peeled,
                notes: Vec::new(),
                exits: houdini::Exits::Omitted,
            });
            // Beyond the first peel of each loop the rearrangements
            // below are likelier.
            if out.len() > 2 * n_old.min(2) {
                break;
            }
        }
    }
    out
}

/// One version rearranged (`this`), the other kept as written (`other`).
struct Side<'s, 'p> {
    /// Whether `this` is the old version.
    old_side: bool,
    this: &'s Version<'p>,
    other: &'s Version<'p>,
    /// `this` and `other` in words ("old", "new").
    me: &'static str,
    them: &'static str,
}

impl Side<'_, '_> {
    /// `e`, an expression of `other`, over `this`'s variables; `None` (the
    /// reason kept in `refused`) when it has no translation.
    fn translate(&self, e: &Expr, refused: &mut Option<String>) -> Option<Expr> {
        match rearrange::translate(
            e,
            (self.other.program, self.other.body),
            (self.this.program, self.this.body),
        ) {
            Ok(g) => Some(g),
            Err(e) => {
                refused.get_or_insert(format!("{} at {}", e.what, e.span));
                None
            }
        }
    }

    /// Adds the candidate of `this_shape` and `other_shape` (`peeled_this`
    /// iterations peeled from `this`'s loops).
    fn push(
        &self,
        out: &mut Vec<Candidate>,
        this_shape: Shape,
        other_shape: Shape,
        notes: Vec<String>,
        peeled_this: Vec<u32>,
        exits: houdini::Exits,
    ) {
        let peeled = peeled_this
            .iter()
            .map(|&n| if self.old_side { (n, 0) } else { (0, n) })
            .collect();
        let (o, n) = if self.old_side {
            (this_shape, other_shape)
        } else {
            (other_shape, this_shape)
        };
        out.push(Candidate {
            old: o,
            new: n,
            peeled,
            notes,
            exits,
        });
    }

    /// Adds `this_shape` with the other version as written, nothing peeled.
    fn push_rearranged(
        &self,
        out: &mut Vec<Candidate>,
        this_shape: Shape,
        notes: Vec<String>,
        exits: houdini::Exits,
    ) {
        let unpeeled = vec![0; notes.len()];
        self.push(
            out,
            this_shape,
            self.other.shape.clone(),
            notes,
            unpeeled,
            exits,
        );
    }

    /// Equal loop counts: loop `j` unrolled by the ratio of the counters'
    /// steps; then the same with its last iteration peeled, for the
    /// other version's loop stopping while fewer than `m` iterations
    /// remain and doing them after it (`for (; i + 1 < n; i += 2) …`
    /// then `if (i < n) …`).
    fn unrolled(&self, out: &mut Vec<Candidate>, refused: &mut Option<String>, j: usize) {
        let (this, other) = (self.this, self.other);
        let p = this.shape.loops.len();
        let (lt, lo) = (&this.shape.loops[j], &other.shape.loops[j]);
        if let Some(m) = rearrange::unroll_factor((lt, this.body), (lo, other.body))
            && let Some(s) = rearrange::unroll(&this.shape, j, m, &lt.cond)
        {
            let mut notes = vec![String::new(); p];
            let how = format!("{} loop unrolled ×{m}", self.me);
            notes[j] = how.clone();
            self.push_rearranged(out, s.clone(), notes, houdini::Exits::Omitted);
            self.last_iteration_peeled(out, refused, j, &s, &format!("{how}, "));
        }
    }

    /// Equal loop counts: the other version stops one iteration early and
    /// does the last body after its loop: run this loop `j` while the
    /// other's guard holds, peel the next iteration, and give the rest
    /// (which then does not run) an empty partner.
    ///
    /// `base` is this version's shape (as written or already rearranged,
    /// `how` saying how, as the start of the note).
    fn last_iteration_peeled(
        &self,
        out: &mut Vec<Candidate>,
        refused: &mut Option<String>,
        j: usize,
        base: &Shape,
        how: &str,
    ) {
        let (other, me, them) = (self.other, self.me, self.them);
        let p = base.loops.len();
        let (Some(lt), Some(lo)) = (base.loops.get(j), other.shape.loops.get(j)) else {
            return;
        };
        let Some(g) = self.translate(&lo.cond, refused) else {
            return;
        };
        if g == lt.cond {
            return;
        }
        let Some(mut s) = rearrange::split(base, j, std::slice::from_ref(&g)) else {
            return;
        };
        s.peel(j + 1);
        let after = &other.shape.segments[j + 1];
        let pos = after
            .iter()
            .position(|st| matches!(st.kind, crate::ir::StmtKind::Return(_)))
            .unwrap_or(after.len());
        let Some(ph) = rearrange::phantom(&other.shape, j + 1, pos, lo.span) else {
            return;
        };
        let mut notes = vec![String::new(); p + 1];
        notes[j] = format!("{how}{me} loop run while the {them} loop's guard holds");
        notes[j + 1] = format!(
            "{me} loop's last iteration peeled after it; the {them} version runs \
             its last iteration after its loop (no loop here)"
        );
        let mut peeled = vec![0; p + 1];
        peeled[j + 1] = 1;
        self.push(out, s, ph, notes, peeled, houdini::Exits::Stated);
    }

    /// The other version has more loops: this loop `j` split at the other
    /// loops' guards (unrolled first, then a remainder loop; or in
    /// phases), then by fission.
    fn split_or_fissioned(
        &self,
        out: &mut Vec<Candidate>,
        refused: &mut Option<String>,
        overflow_undefined: bool,
        j: usize,
    ) {
        let (this, other, me, them) = (self.this, self.other, self.me, self.them);
        let (p, q) = (this.shape.loops.len(), other.shape.loops.len());
        let d = q - p;
        let lt = &this.shape.loops[j];
        let guards: Option<Vec<_>> = other.shape.loops[j..j + d]
            .iter()
            .map(|l| self.translate(&l.cond, refused))
            .collect();
        let base_notes = |what: &dyn Fn(usize) -> String| phase_notes(q, j, d, what);
        if let Some(guards) = &guards {
            // Unrolled, then a remainder loop: the first phase does
            // `m` iterations per iteration of the other's.
            if d == 1
                && let Some(m) =
                    rearrange::unroll_factor((lt, this.body), (&other.shape.loops[j], other.body))
                && let Some(sp) = rearrange::split(&this.shape, j, guards)
                && let Some(s) = rearrange::unroll(&sp, j, m, &lt.cond)
            {
                let notes = base_notes(&|i| {
                    if i == 0 {
                        format!(
                            "{me} loop split at the {them} loops' guards; phase 1 unrolled ×{m}"
                        )
                    } else {
                        format!("{me} loop split at the {them} loops' guards; phase 2 (remainder)")
                    }
                });
                self.push_rearranged(out, s, notes, houdini::Exits::Omitted);
            }
            if let Some(s) = rearrange::split(&this.shape, j, guards) {
                let notes = base_notes(&|i| {
                    format!(
                        "{me} loop split at the {them} loops' guards: phase {} of {}",
                        i + 1,
                        d + 1
                    )
                });
                self.push_rearranged(out, s, notes, houdini::Exits::Stated);
            }
        }
        self.fissioned(out, refused, overflow_undefined, j, lt, d);
    }

    /// This loop `j` (`lt`) split by fission into `d + 1` parts: the cuts
    /// whose parts are closest in size to the other version's loop bodies
    /// first; two at most.
    fn fissioned(
        &self,
        out: &mut Vec<Candidate>,
        refused: &mut Option<String>,
        overflow_undefined: bool,
        j: usize,
        lt: &LoopPiece,
        d: usize,
    ) {
        let q = self.other.shape.loops.len();
        let me = self.me;
        let mut cuts = rearrange::fission_cuts(lt, d + 1);
        let want: Vec<usize> = self.other.shape.loops[j..=j + d]
            .iter()
            .map(rearrange::work_len)
            .collect();
        cuts.sort_by_key(|c| {
            rearrange::part_lens(lt, c)
                .iter()
                .zip(&want)
                .map(|(a, b)| a.abs_diff(*b))
                .sum::<usize>()
        });
        let mut legal = 0;
        for c in cuts {
            if legal == 2 {
                break;
            }
            match rearrange::fission(&self.this.shape, j, &c, overflow_undefined) {
                Ok(s) => {
                    legal += 1;
                    let notes = phase_notes(q, j, d, &|i| {
                        format!("{me} loop split by fission: part {} of {}", i + 1, d + 1)
                    });
                    self.push_rearranged(out, s, notes, houdini::Exits::Omitted);
                }
                Err(e) => {
                    refused.get_or_insert(format!("{} at {}", e.what, e.span));
                }
            }
        }
    }
}

/// Notes for `q` loops where loops `j..=j + d` are the parts of one loop
/// (`what(i)` for part `i`), the others unchanged.
fn phase_notes(q: usize, j: usize, d: usize, what: &dyn Fn(usize) -> String) -> Vec<String> {
    let mut notes = vec![String::new(); q];
    for (i, note) in notes.iter_mut().enumerate().skip(j).take(d + 1) {
        *note = what(i - j);
    }
    notes
}

/// At most this many alignments are tried (each an encoding and a Spacer
/// query, tens of milliseconds on the pairs we see).
const MAX_ALIGNMENTS: usize = 9;

/// Which version's loop runs its first iteration before the lockstep
/// product (the other version's loop then runs one iteration fewer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Peel {
    None,
    Old,
    New,
}

/// The alignments to try for `loops` pairs of loops: plain lockstep first,
/// then one loop pair peeled, then more, in a fixed order.
fn alignments(loops: usize) -> Vec<Vec<Peel>> {
    let mut all: Vec<Vec<Peel>> = vec![Vec::new()];
    for _ in 0..loops {
        let mut next = Vec::with_capacity(all.len() * 3);
        for v in &all {
            for p in [Peel::None, Peel::Old, Peel::New] {
                let mut w = v.clone();
                w.push(p);
                next.push(w);
            }
            if next.len() > 3 * MAX_ALIGNMENTS {
                break;
            }
        }
        all = next;
    }
    all.sort_by_key(|v| v.iter().filter(|p| **p != Peel::None).count());
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignments_start_with_plain_lockstep_and_are_capped() {
        assert_eq!(alignments(0), vec![Vec::<Peel>::new()]);
        let one = alignments(1);
        assert_eq!(
            one,
            vec![vec![Peel::None], vec![Peel::Old], vec![Peel::New]]
        );
        let two = alignments(2);
        assert_eq!(two.len(), 9);
        assert_eq!(two[0], vec![Peel::None, Peel::None]);
        assert!(two[1..5].iter().all(|v| v.contains(&Peel::None)));
        assert!(alignments(8).len() <= 3 * MAX_ALIGNMENTS + 3);
    }
}
