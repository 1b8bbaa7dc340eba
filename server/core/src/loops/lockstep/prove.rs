//! The search for a lockstep proof of prepared, turned versions: each
//! alignment of [`align::candidates`] encoded (`encode`) and solved
//! (candidate invariants, then Spacer) in order, under the deadline; when
//! every alignment is refused, the interleaved product; otherwise the
//! reason the last alignment tried was left unproved.
//!
//! *Invariants:* alignments are tried in the order given, each with the
//! share of the time left that `budget.rs` names, so the same inputs make
//! the same solver queries; a proof only from a satisfiable encoding.

use super::align::{self, Candidate};
use crate::ir::{FuncId, Program};
use crate::loops::encode::{self, EncodeFailure};
use crate::loops::{LoopProof, callees, houdini, prepared, solve};
use crate::symbolic::ops::Ops;
use crate::verdict::{Unknown, UnknownReason};
use std::time::Instant;

/// How the last alignment tried was left unproved.
enum Outcome {
    /// Some lockstep run reaches a bad state.
    Unsafe,
    /// Cut short by its time: more time may still prove it.
    Timeout,
    /// Over bit-vectors, no candidate invariant held (Spacer is not run
    /// there).
    NoCandidate,
    /// The solver gave up for another reason (its words).
    GaveUp(String),
}

/// At most this many candidate shapes are encoded and solved (each a
/// Spacer query, tens of milliseconds on the pairs we see): plain
/// lockstep, peeling, then rearrangements; pairs no candidate fits fail
/// after these.
const MAX_CANDIDATES: usize = 12;

/// [`crate::loops::prove_lockstep`] once loops are turned, over the
/// candidates `keep` lets through.
pub(in crate::loops) fn prove_turned(
    ops: Ops,
    old: (&Program, FuncId),
    new: (&Program, FuncId),
    deadline: Instant,
    keep: &dyn Fn(&Candidate) -> bool,
) -> Result<LoopProof, Unknown> {
    let not_rearranged = not_rearranged(old, new);
    let (old_prepared, new_prepared) = (prepared(old.0, old.1), prepared(new.0, new.1));
    let old = (old_prepared.as_ref().unwrap_or(old.0), old.1);
    let new = (new_prepared.as_ref().unwrap_or(new.0), new.1);
    let opaque = callees::opaque_callees(old, new);
    let old = encode::Version::new(old.0, old.1, true)
        .map_err(not_encodable)?
        .with_opaque(&opaque.old);
    let new = encode::Version::new(new.0, new.1, false)
        .map_err(not_encodable)?
        .with_opaque(&opaque.new);
    // Loops in one version only: summarised against the other first; the
    // alignments below still get what time is left.
    let summarised = match one_sided(ops, &old, &new, deadline) {
        Some(Ok(proof)) => return Ok(proof),
        Some(Err(unknown)) => Some(unknown),
        None => None,
    };
    let mut search = Search {
        last: None,
        tried: 0,
        refused: None,
        arrays: false,
        first: None,
        fitted_cut: false,
    };
    for cand in align::candidates(
        &old,
        &new,
        &mut search.refused,
        not_rearranged.map(|(_, full)| full),
        ops.overflow_undefined(),
    )
    .into_iter()
    .filter(|c| keep(c))
    {
        if search.tried >= MAX_CANDIDATES || crate::cancel::expired(deadline) {
            break;
        }
        match search.try_candidate(ops, &old, &new, cand, deadline)? {
            Tried::Proved(proof) => return Ok(proof),
            Tried::Next => {}
            Tried::Stop => break,
        }
    }
    // No alignment runs in lockstep (each refuted, none cut short): the
    // loops may still agree wherever both terminate, one of them running
    // alone where only its guard holds (REVE `whileif`: the new loop spins
    // forever where the old one is skipped).
    if matches!(search.last, Some(Outcome::Unsafe))
        && !ops.machine()
        && !crate::cancel::expired(deadline)
        && let Some(proof) = prove_interleaved(ops, &old, &new, deadline)
    {
        return Ok(proof);
    }
    // Then the likeliest alignment again, with candidates fitted to
    // concrete runs: costlier, so only once the syntactic ones failed
    // everywhere.
    if !crate::cancel::expired(deadline)
        && let Some(first) = &search.first
    {
        let until = fitted_until(deadline);
        if let Some(proof) = first.prove_fitted(until) {
            return Ok(proof);
        }
        search.fitted_cut = crate::clock::past(until);
    }
    if let Some(unknown) = summarised
        && search.tried == 0
    {
        return Err(unknown);
    }
    let loops = (old.shape.loops.len(), new.shape.loops.len());
    Err(search.unknown(ops, loops, not_rearranged, deadline))
}

/// Why the versions are not rearranged (in short and in full), if so. The
/// rearrangements rest on guards that cannot fail; `a.length` fails on a
/// null array. (A guard that may overflow in C, `i + 1 < n` where signed
/// overflow is undefined, is rearranged: the encoding makes the invariant
/// show that no head state overflows it, see `encode::version_pieces`.)
fn not_rearranged(
    old: (&Program, FuncId),
    new: (&Program, FuncId),
) -> Option<(&'static str, &'static str)> {
    if crate::symbolic::nullable_arrays(&[old.0, new.0]) {
        Some((
            "array parameters may be null",
            "array parameters that may be null: the loops are not rearranged (a guard \
                 brought from the other version may read a null array's length)",
        ))
    } else {
        None
    }
}

/// The state of the search over alignments.
struct Search {
    /// How the last alignment tried was left unproved (an earlier timeout
    /// stays the reason).
    last: Option<Outcome>,
    /// Alignments encoded so far.
    tried: usize,
    /// The first reason a rearrangement did not apply.
    refused: Option<String>,
    /// Whether some encoding's state holds arrays.
    arrays: bool,
    /// The first alignment tried (plain lockstep where it applies, the
    /// likeliest): given the candidates fitted to concrete runs when no
    /// alignment is proved otherwise.
    first: Option<Unproved>,
    /// Whether the fitted candidates ran out of their share of the time
    /// before every tier was tried.
    fitted_cut: bool,
}

/// When the candidates fitted to concrete runs must be done by.
fn fitted_until(deadline: Instant) -> Instant {
    let left = deadline.saturating_duration_since(crate::clock::now());
    (crate::clock::now() + crate::budget::FITTED_CANDIDATES.of(left)).min(deadline)
}

/// An alignment's clauses, kept for a later attempt.
struct Unproved {
    enc: std::rc::Rc<encode::Encoding>,
    exits: houdini::Exits,
    peeled: Vec<(u32, u32)>,
    notes: Vec<String>,
}

impl Unproved {
    /// A proof by the syntactic candidates together with those fitted to
    /// concrete runs of the clauses (`invariants/fitted.rs`): polynomial
    /// and modular relations, bounds the path into the loop sets.
    fn prove_fitted(&self, deadline: Instant) -> Option<LoopProof> {
        let formulas = houdini::prove_fitted(&self.enc, self.exits, deadline)?;
        Some(LoopProof::new(&self.enc, formulas, false, |k| {
            (
                self.peeled.get(k).copied().unwrap_or((0, 0)),
                self.notes.get(k).cloned().unwrap_or_default(),
            )
        }))
    }
}

/// What trying one alignment leaves the search to do.
enum Tried {
    Proved(LoopProof),
    /// Try the next alignment.
    Next,
    /// Stop the search: out of time, or the solver gave up.
    Stop,
}

impl Search {
    /// Encodes and solves `cand`: candidate invariants first, then (over
    /// integers) Spacer, each with its share of the time left.
    fn try_candidate(
        &mut self,
        ops: Ops,
        old: &encode::Version<'_>,
        new: &encode::Version<'_>,
        cand: Candidate,
        deadline: Instant,
    ) -> Result<Tried, Unknown> {
        let (vo, vn) = (
            encode::Version {
                shape: cand.old,
                ..*old
            },
            encode::Version {
                shape: cand.new,
                ..*new
            },
        );
        let enc = encode::encode(ops, &vo, &vn, deadline).map_err(not_encodable)?;
        self.arrays |= enc.arrays;
        self.tried += 1;
        let tried = self.tried;
        let enc = std::rc::Rc::new(enc);
        if tried == 1 {
            self.first = Some(Unproved {
                enc: enc.clone(),
                exits: cand.exits,
                peeled: cand.peeled.clone(),
                notes: cand.notes.clone(),
            });
        }
        // Candidate invariants first (`houdini.rs`: milliseconds when they
        // apply, and they fail as fast where they do not). On plain
        // lockstep they may take all that is left: they prove most pairs,
        // and a large body (EqBench `ell/dbrent`) needs the time.
        let left = deadline.saturating_duration_since(crate::clock::now());
        let candidates_until = crate::clock::now()
            + if tried == 1 {
                left
            } else {
                crate::budget::LATER_ALIGNMENT_CANDIDATES.of(left)
            };
        let answer = match houdini::prove(&enc, cand.exits, candidates_until.min(deadline)) {
            Some(formulas) => solve::Answer::Safe(formulas),
            // Over bit-vectors the candidates are all there is: Spacer on
            // libz3 4.8.12 finds no invariant for even the simplest 32-bit
            // counter pairs within a method's default budget.
            // Cut short by the time given, the search may still succeed
            // with more: a timeout (the portfolio retries those).
            None if enc.bit_vectors => {
                if crate::clock::now() >= candidates_until.min(deadline) {
                    self.last = Some(Outcome::Timeout);
                } else if self.last.is_none() {
                    self.last = Some(Outcome::NoCandidate);
                }
                return Ok(Tried::Next);
            }
            None => {
                // Then Spacer. One hard candidate must not starve the
                // others: plain lockstep, the likeliest, gets half of what
                // is left (an invariant relating an accumulator to an array
                // element is slow for Spacer), each later one a third
                // within bounds (`crate::budget`): their proofs are
                // quick when they exist.
                let left = deadline.saturating_duration_since(crate::clock::now());
                let share = if tried == 1 {
                    crate::budget::FIRST_ALIGNMENT_SPACER.of(left)
                } else {
                    crate::budget::LATER_ALIGNMENT_SPACER.of(left)
                };
                solve::solve(&enc, (crate::clock::now() + share).min(deadline))
            }
        };
        match answer {
            solve::Answer::Safe(formulas) => {
                return Ok(Tried::Proved(LoopProof::new(&enc, formulas, false, |k| {
                    (
                        cand.peeled.get(k).copied().unwrap_or((0, 0)),
                        cand.notes.get(k).cloned().unwrap_or_default(),
                    )
                })));
            }
            // Not in step this way: try the next alignment. An earlier
            // timeout stays the reason: the search was cut short there (and
            // the portfolio gives a timed-out loop checker a second try).
            solve::Answer::Unsafe => {
                if self.last.is_none() {
                    self.last = Some(Outcome::Unsafe);
                }
            }
            solve::Answer::Timeout if !crate::cancel::expired(deadline) => {
                self.last = Some(Outcome::Timeout);
            }
            solve::Answer::Timeout => {
                self.last = Some(Outcome::Timeout);
                return Ok(Tried::Stop);
            }
            solve::Answer::GaveUp(r) => {
                self.last = Some(Outcome::GaveUp(r));
                return Ok(Tried::Stop);
            }
        }
        Ok(Tried::Next)
    }

    /// Why the search found no proof, for versions with `n_old` and
    /// `n_new` top-level loops.
    fn unknown(
        mut self,
        ops: Ops,
        (n_old, n_new): (usize, usize),
        not_rearranged: Option<(&str, &str)>,
        deadline: Instant,
    ) -> Unknown {
        // Over bit-vectors, alignments left untried for want of time make
        // the search a timeout, whatever the tried ones said (the portfolio
        // retries a timeout with more time; under load the first
        // alignment's candidates can take the whole first share), and so
        // do fitted candidates cut short by their share of it.
        if ops.machine()
            && matches!(self.last, Some(Outcome::NoCandidate))
            && (crate::cancel::expired(deadline) || self.fitted_cut)
        {
            self.last = Some(Outcome::Timeout);
        }
        let solver_gave_up = matches!(
            self.last,
            Some(Outcome::Timeout | Outcome::NoCandidate | Outcome::GaveUp(_))
        );
        let arrays = self.arrays;
        let unknown = self.reason((n_old, n_new), not_rearranged, deadline);
        if arrays && solver_gave_up {
            // Relations between arrays that the loops fill or read part by
            // part (`∀k < i. old.a[k] = new.a[k]`) need a quantifier; the
            // candidates are quantifier-free and Spacer on libz3 4.8.12
            // does not find quantified invariants (it runs out of time
            // instead). A refuted lockstep query (`Unsafe`) is not about
            // quantifiers and keeps its own message.
            Unknown {
                detail: format!(
                    "needs a quantified invariant: the loops' state holds arrays, whose \
                     relation may need a quantifier over their elements (∀k), which the CHC \
                     solver does not find ({})",
                    unknown.detail
                ),
                ..unknown
            }
        } else {
            unknown
        }
    }

    /// [`Search::unknown`] before arrays are considered: the last outcome
    /// in words.
    fn reason(
        self,
        (n_old, n_new): (usize, usize),
        not_rearranged: Option<(&str, &str)>,
        deadline: Instant,
    ) -> Unknown {
        let Search {
            last,
            tried,
            refused,
            ..
        } = self;
        match last {
            Some(Outcome::Timeout) => Unknown {
                reason: UnknownReason::Timeout {
                    phase: crate::verdict::Phase::Solving,
                },
                detail: if tried > 1 {
                    format!(
                        "the CHC solver ran out of time ({tried} alignments of the loops tried)"
                    )
                } else {
                    "the CHC solver ran out of time".into()
                },
            },
            Some(Outcome::NoCandidate) => Unknown {
                reason: UnknownReason::SolverUnknown,
                detail: format!(
                    "no relational invariant among the candidates (variables equal, at a \
                     constant offset or ordered, constants, counters moving in step){}{}; under \
                     machine semantics Spacer is not run (it finds no bit-vector invariants in \
                     time)",
                    if tried > 1 {
                        format!(", {tried} alignments of the loops tried")
                    } else {
                        String::new()
                    },
                    refused.map(|r| format!(" ({r})")).unwrap_or_default()
                ),
            },
            Some(Outcome::GaveUp(r)) => Unknown {
                reason: UnknownReason::SolverUnknown,
                detail: format!("the CHC solver gave up: {r}"),
            },
            None if n_old != n_new && !crate::cancel::expired(deadline) => Unknown {
                reason: UnknownReason::NotEncodable,
                detail: format!(
                    "the versions have {n_old} and {n_new} top-level loops and no loop split, \
                     unrolling or fission aligns them{}",
                    refused.map(|r| format!(" ({r})")).unwrap_or_default()
                ),
            },
            None => Unknown {
                reason: UnknownReason::Timeout {
                    phase: crate::verdict::Phase::Solving,
                },
                detail: "no time left for the loop checker".into(),
            },
            _ => Unknown {
                reason: UnknownReason::SolverUnknown,
                detail: format!(
                    "no relational invariant found in lockstep, with or without peeling \
                     one iteration{} (the versions may differ, or their loops do not run in \
                     step)",
                    if let Some((why, _)) = not_rearranged {
                        format!("; not rearranged, as {why}")
                    } else if tried > 1 && n_old != n_new {
                        ", splitting, unrolling or fission".into()
                    } else if tried > 1 {
                        ", unrolling or peeling the last iteration".into()
                    } else {
                        String::new()
                    }
                ),
            },
        }
    }
}

/// A proof of equivalence where both versions terminate, by an invariant
/// of the interleaved product of the shapes as written; `None` when there
/// is none (or no time).
fn prove_interleaved(
    ops: Ops,
    old: &encode::Version<'_>,
    new: &encode::Version<'_>,
    deadline: Instant,
) -> Option<LoopProof> {
    let enc = encode::encode_product(ops, old, new, deadline, encode::Product::Interleaved).ok()?;
    // The syntactic candidates, then those fitted to concrete runs (a
    // loop against a closed form needs a polynomial relation), then over
    // integers Spacer: over bit-vectors the candidates are all there is
    // (see `Search::try_candidate`).
    let formulas = match houdini::prove(&enc, houdini::Exits::Omitted, deadline) {
        Some(f) => f,
        None => {
            match houdini::prove_fitted(&enc, houdini::Exits::Omitted, fitted_until(deadline)) {
                Some(f) => f,
                None if enc.bit_vectors => return None,
                None => match solve::solve(&enc, deadline) {
                    solve::Answer::Safe(f) => f,
                    _ => return None,
                },
            }
        }
    };
    Some(LoopProof::new(&enc, formulas, true, |_| {
        (
            (0, 0),
            "interleaved: a loop whose guard alone holds steps while the other waits".into(),
        )
    }))
}

/// A version with top-level loops against one with none (a loop against
/// its closed form, a search against a direct test): the loop-free version
/// is given idle loops in front of its body (`Shape::idle_loops_first`),
/// so that in the interleaved product each loop runs alone, its invariant
/// relating its state to the inputs the other version still holds, and at
/// its exit the other version's straight-line code runs to the compared
/// end. A proof is equivalence where the loops terminate (the loop-free
/// version always does). `None` when the pair is not of this kind.
fn one_sided(
    ops: Ops,
    old: &encode::Version<'_>,
    new: &encode::Version<'_>,
    deadline: Instant,
) -> Option<Result<LoopProof, Unknown>> {
    let (n_old, n_new) = (old.shape.loops.len(), new.shape.loops.len());
    let flat = |v: &encode::Version<'_>| v.shape.loops.iter().all(|l| l.parent.is_none());
    let idle = |v: &encode::Version<'_>, n| v.shape.idle_loops_first(n, v.body.span);
    let (o, n) = match (n_old, n_new) {
        (0, 0) => return None,
        (0, n) if flat(new) => (idle(old, n)?, new.shape.clone()),
        (n, 0) if flat(old) => (old.shape.clone(), idle(new, n)?),
        _ => return None,
    };
    let looping = if n_old == 0 { "new" } else { "old" };
    let (vo, vn) = (
        encode::Version { shape: o, ..*old },
        encode::Version { shape: n, ..*new },
    );
    Some(match prove_interleaved(ops, &vo, &vn, deadline) {
        Some(mut proof) => {
            for inv in &mut proof.invariants {
                inv.rearranged = format!(
                    "the {looping} version's loop alone, against the other version's \
                     straight-line code"
                );
            }
            Ok(proof)
        }
        None if crate::cancel::expired(deadline) => Err(Unknown {
            reason: UnknownReason::Timeout {
                phase: crate::verdict::Phase::Solving,
            },
            detail: format!(
                "only the {looping} version loops; no invariant relating its loop to the \
                 other version's straight-line result was found in time"
            ),
        }),
        None => Err(Unknown {
            reason: UnknownReason::SolverUnknown,
            detail: format!(
                "only the {looping} version loops; no invariant relating its loop to the \
                 other version's straight-line result was found ({})",
                if ops.machine() {
                    "among the candidate invariants: under machine semantics the CHC solver \
                     is not run, it finds no bit-vector invariants in time"
                } else {
                    "the versions may differ, or the relation needs more than linear \
                     arithmetic"
                }
            ),
        }),
    })
}

/// The loop checker's [`Unknown`] for an encoding failure.
fn not_encodable(e: EncodeFailure) -> Unknown {
    if e.timeout {
        return Unknown {
            reason: UnknownReason::Timeout {
                phase: crate::verdict::Phase::Encoding,
            },
            detail: "timeout while encoding the loops".into(),
        };
    }
    let mut detail = e.what;
    if let Some(span) = e.span {
        detail.push_str(&format!(" at {span}"));
    }
    if let Some(in_old) = e.in_old {
        detail.push_str(if in_old {
            " (old version)"
        } else {
            " (new version)"
        });
    }
    Unknown {
        reason: UnknownReason::NotEncodable,
        detail,
    }
}
