//! Candidate invariants checked directly (Houdini: Flanagan and Leino,
//! "Houdini, an annotation assistant for ESC/Java", FME 2001), before
//! Spacer is asked.
//!
//! Most refactorings keep the loops' variables equal in both versions, or
//! at a constant offset, or at a constant value: per loop pair the
//! candidates are `old.x = new.x` for variables of the same name,
//! `old.x − new.x = d` and `v = c` where some clause entering a loop
//! gives them constant values, and `x = y` for any two variables some
//! clause entering a loop gives the same value (the same constant only
//! across the versions, for variables renamed between them). Over
//! bit-vectors, two such variables of different widths are equal once the
//! narrow one is extended (a counter widened to `long`, an index against
//! a pointer's offset) or in the narrow one's bits (an accumulator
//! widened and narrowed back). A loop
//! against a loop-free version also gets that version's result with its
//! input replaced by the loop's counter (`s = F(i − 1)`), a closed form
//! of any degree. Candidates that some clause does not
//! preserve are dropped until the rest is inductive; then, if no query
//! clause can reach `false` under them, the conjunction is a proof — the
//! same clauses Spacer gets, each checked valid by Z3 (an `unknown` drops
//! the candidate or fails the proof, never the other way round).
//!
//! It answers in milliseconds where it applies, and Spacer, which may take
//! seconds on forty-variable states (EqBench `bess/bessj`), keeps the
//! harder cases.

use super::cases::{self, Decided};
use super::encode::{Clause, Encoding};
use std::time::Instant;
use z3::ast::{Ast, BV, Bool, Dynamic, Int, Real};
use z3::{Model, SatResult};

/// Whether the negations of the loop guards are among the candidates
/// (over bit-vectors only): where one version no longer moves — a split's
/// later phase, a loop run while the other's guard held — its loop stays
/// exited, which nothing else states. They slow the proofs that do without
/// them (Java fission, several times over), so the loop checker asks for
/// them only on the alignments that make a version wait
/// (`Candidate::exits`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Exits {
    /// Not candidates.
    Omitted,
    /// The negation of every loop guard of the system is a candidate.
    Stated,
}

/// Per relation, the inductive conjunction of candidates that proves the
/// clauses safe, as SMT-LIB; `None` when the candidates do not suffice
/// (or time ran out).
pub fn prove(enc: &Encoding, exits: Exits, deadline: Instant) -> Option<Vec<String>> {
    let candidates: Vec<Vec<Bool>> = enc
        .relations
        .iter()
        .map(|r| candidates(enc, r.index, exits, deadline))
        .collect();
    prove_from(enc, candidates, false, deadline)
}

/// [`prove`] with the candidates fitted to concrete runs added
/// ([`fitted`](super::fitted): polynomial equalities and bounds the
/// syntax of the clauses does not suggest). Sampling the runs costs
/// queries of its own, so the loop checker asks for it only where the
/// syntactic candidates (and, over integers, Spacer) found no proof.
pub fn prove_fitted(enc: &Encoding, exits: Exits, deadline: Instant) -> Option<Vec<String>> {
    let fitted = super::fitted::candidates(enc, deadline);
    // In tiers, each tried only where the ones before do not suffice:
    // every candidate slows each check of the conjunction, a product among
    // them most (over bit-vectors past the per-check cap).
    let mut tried = 0;
    for tier in 0..super::fitted::TIERS {
        let extra: Vec<Vec<&Bool>> = fitted
            .iter()
            .map(|f| f.up_to(tier, enc.bit_vectors))
            .collect();
        let size: usize = extra.iter().map(Vec::len).sum();
        if size == tried {
            continue;
        }
        tried = size;
        let candidates: Vec<Vec<Bool>> = enc
            .relations
            .iter()
            .zip(extra)
            .map(|(r, extra)| {
                let mut cs = candidates(enc, r.index, exits, deadline);
                for c in extra {
                    if !cs.iter().any(|o| o.get_z3_ast() == c.get_z3_ast()) {
                        cs.push(c.clone());
                    }
                }
                cs
            })
            .collect();
        if let Some(proof) = prove_from(enc, candidates, true, deadline) {
            return Some(proof);
        }
    }
    None
}

/// Weakens `candidates` (per relation) to an inductive conjunction and
/// checks that it excludes every bad state.
fn prove_from(
    enc: &Encoding,
    mut candidates: Vec<Vec<Bool>>,
    interpret: bool,
    deadline: Instant,
) -> Option<Vec<String>> {
    // Each clause's hypotheses, with the exact meaning of its nonlinear
    // operations where asked (a polynomial candidate needs it).
    let hypotheses: Vec<Vec<Bool>> = enc
        .clauses
        .iter()
        .map(|c| {
            let mut h = c.hypotheses.clone();
            if interpret {
                h.extend(c.interpreted.iter().cloned());
            }
            h
        })
        .collect();
    // A query over bit-vectors that takes long is a conjunction too hard
    // for bit-blasting, better split (below) than waited for.
    let cap_ms = if enc.bit_vectors {
        crate::budget::HOUDINI_CHECK_BV
    } else {
        crate::budget::HOUDINI_CHECK
    }
    .as_millis();
    // Weaken until every clause with a relation in its head holds.
    loop {
        let mut dropped = false;
        for (clause, hypotheses) in enc.clauses.iter().zip(&hypotheses) {
            let Some((k, args)) = &clause.head else {
                continue;
            };
            let body = assumed(enc, clause, &candidates);
            let params = &enc.relations.get(*k)?.params;
            let sigma: Vec<(&Dynamic, &Dynamic)> = params.iter().zip(args).collect();
            let before = candidates.get(*k)?.len();
            let mut kept: Vec<Bool> = candidates.get(*k)?.clone();
            // Standard Houdini: while some candidate fails at the head, drop
            // those the counterexample falsifies (one query per round).
            loop {
                if crate::cancel::expired(deadline) {
                    return None;
                }
                let at_head: Vec<Bool> = kept.iter().map(|c| c.substitute(&sigma)).collect();
                let whole = Bool::and(&at_head);
                match check_within(hypotheses, &body, &whole, deadline, cap_ms) {
                    Check::Valid => break,
                    // The conjunction is too hard for one query (over
                    // bit-vectors, a product of a few equalities can be):
                    // ask for each candidate alone and keep those proved.
                    Check::Unknown => {
                        let still: Vec<Bool> = kept
                            .iter()
                            .zip(&at_head)
                            .filter(|(_, h)| {
                                matches!(
                                    check_within(hypotheses, &body, h, deadline, cap_ms),
                                    Check::Valid
                                )
                            })
                            .map(|(c, _)| c.clone())
                            .collect();
                        if still.len() == kept.len() {
                            // Each holds, so their conjunction does.
                            break;
                        }
                        kept = still;
                    }
                    Check::Counterexample(model) => {
                        let still: Vec<Bool> = kept
                            .iter()
                            .zip(&at_head)
                            .filter(|(_, h)| {
                                model.eval(*h, true).and_then(|v| v.as_bool()) == Some(true)
                            })
                            .map(|(c, _)| c.clone())
                            .collect();
                        if still.len() == kept.len() {
                            // The model does not say which: drop all.
                            kept.clear();
                            break;
                        }
                        kept = still;
                    }
                }
            }
            dropped |= kept.len() != before;
            candidates[*k] = kept;
        }
        if !dropped {
            break;
        }
    }
    // Safe: no clause with head `false` can fire.
    for (clause, hypotheses) in enc.clauses.iter().zip(&hypotheses) {
        if clause.head.is_some() {
            continue;
        }
        let body = assumed(enc, clause, &candidates);
        if !valid(hypotheses, &body, &Bool::from_bool(false), deadline) {
            return None;
        }
    }
    Some(
        candidates
            .iter()
            .zip(&enc.relations)
            .map(|(cs, rel)| shown(cs, rel))
            .collect(),
    )
}

/// The proof's candidates for relation `rel` as SMT-LIB text, without
/// those a stronger one among them implies (only clutter): weakened
/// equalities beside their stronger form, truncated beside extended
/// equalities. The conjunction is simplified except for the extended
/// equalities of [`widened`], which the simplifier would spell out bit by
/// bit (`((_ sign_extend 32) old.i)` stays as written).
fn shown(kept: &[Bool], rel: &super::encode::Relation) -> String {
    let weakened = |c: &Bool| match &rel.running {
        Some(running) => running.implies(c).get_z3_ast(),
        None => c.get_z3_ast(),
    };
    let mut implied: Vec<_> = match &rel.running {
        Some(_) => kept.iter().map(weakened).collect(),
        None => Vec::new(),
    };
    let mut extended = Vec::new();
    for (i, p) in rel.params.iter().enumerate() {
        for q in &rel.params {
            if let (Some(e), Some(t)) = (extend(rel, i, p, q), truncate(q, p)) {
                let e = e.eq(q);
                if kept.iter().any(|c| c.get_z3_ast() == e.get_z3_ast()) {
                    implied.push(p.eq(&t).get_z3_ast());
                }
                extended.push(e.get_z3_ast());
                extended.push(weakened(&e));
            }
        }
    }
    let (extended, plain): (Vec<Bool>, Vec<Bool>) = kept
        .iter()
        .filter(|c| !implied.contains(&c.get_z3_ast()))
        .cloned()
        .partition(|c| extended.contains(&c.get_z3_ast()));
    let plain = Bool::and(&plain).simplify();
    if extended.is_empty() {
        return plain.to_string();
    }
    let mut all = vec![plain];
    all.extend(extended);
    Bool::and(&all).to_string()
}

/// The candidates for relation `k`, over its parameters.
fn candidates(enc: &Encoding, k: usize, exits: Exits, deadline: Instant) -> Vec<Bool> {
    let Some(rel) = enc.relations.get(k) else {
        return Vec::new();
    };
    let mut out: Vec<Bool> = Vec::new();
    let mut push = |b: Bool| {
        if !out.iter().any(|o| o.get_z3_ast() == b.get_z3_ast()) {
            out.push(b);
        }
    };
    // Equalities between two parameters, kept apart to be weakened below.
    let mut equalities: Vec<Bool> = rel
        .same_name
        .iter()
        .map(|(i, j)| rel.params[*i].eq(&rel.params[*j]))
        .collect();
    // Constants and offsets as the clauses entering any loop give them
    // (every relation has the same parameters, the versions' states): a
    // constant set before the first loop is still one at the second.
    for clause in &enc.clauses {
        let Some((_, args)) = &clause.head else {
            continue;
        };
        for (p, a) in rel.params.iter().zip(args) {
            if let Some(c) = numeral(a) {
                push(p.eq(&c));
            }
        }
        // Variables that enter with the same value, whatever their names
        // (`int n = a.length;` beside `a.length`, a renamed copy of a
        // parameter): equal as long as neither changes. The same constant
        // counts only across the versions and where neither variable has a
        // namesake in the other (a renamed accumulator, `acc = 0` against
        // `h = 0`): else every zero-initialised local pairs with every other.
        let entering: Vec<Dynamic> = args.iter().map(Dynamic::simplify).collect();
        let renamed = |i: usize| renamed(rel, i);
        for i in 0..rel.params.len() {
            for j in i + 1..rel.params.len() {
                let across = i < rel.old_arity && j >= rel.old_arity && renamed(i) && renamed(j);
                if entering[i].get_z3_ast() == entering[j].get_z3_ast()
                    && rel.params[i].get_sort() == rel.params[j].get_sort()
                    && (across || numeral(&entering[i]).is_none())
                {
                    equalities.push(rel.params[i].eq(&rel.params[j]));
                }
            }
        }
        equalities.extend(widened(rel, &entering));
        for c in definitions(rel, args) {
            push(c);
        }
        for (i, j) in &rel.same_name {
            if let (Some(d), Some(pd)) = (
                difference(&args[*i], &args[*j]),
                difference(&rel.params[*i], &rel.params[*j]),
            ) && numeral(&d).is_some_and(|d| !is_zero(&d))
            {
                push(pd.eq(d.simplify()));
            }
        }
    }
    // Only where arrays may be null or over bit-vectors: elsewhere the
    // path into a loop rarely decides what syntax does not show, and the
    // extra solver calls change Spacer's later search on the same context
    // (the in-place prefix sum fixture loses its proof to them). Over
    // bit-vectors Spacer is not run and the candidates are all
    // there is: a branch flag the path into the loop fixes (`k ≥ 1` before
    // a do loop in an else branch) is one.
    if enc.nullable_arrays || enc.bit_vectors {
        equalities.extend(implied_by_entry(enc, k, deadline));
    }
    // Each equality also as long as either loop runs: versions aligned by
    // peeling may leave a counter unequal exactly when neither loop runs
    // (`i = 1` against `i = 0` on an empty array). Where the stronger form
    // holds, it stays.
    let weakened: Vec<Bool> = match &rel.running {
        Some(running) => equalities.iter().map(|e| running.implies(e)).collect(),
        None => Vec::new(),
    };
    for c in equalities.into_iter().chain(weakened) {
        push(c);
    }
    if enc.bit_vectors {
        for c in bit_vector_candidates(enc, rel) {
            push(c);
        }
    }
    // A waiting version's loop stays exited (see [`Exits`]). Spacer finds
    // these under `math` too, but not always in its share of the time
    // (a loop unrolled with its last iteration peeled, against a tail
    // after the other loop), and as candidates they cost one query each.
    if exits == Exits::Stated {
        for (old_guard, new_guard) in enc.relations.iter().filter_map(|r| r.guards.as_ref()) {
            push(old_guard.not());
            push(new_guard.not());
        }
    }
    if let Some((idle_old, form)) = &rel.closed_form {
        for c in closed_form_candidates(rel, *idle_old, form) {
            push(c);
        }
    }
    if enc.arrays {
        // An element read next to a counter needs the counter's bound
        // (`acc = a[i - 1]` with `i ≥ 1`: else the old version's `a[i - 1]`
        // faults); over bit-vectors the bounds are candidates already.
        if !enc.bit_vectors {
            for c in integer_entry_bounds(enc, rel) {
                push(c);
            }
        }
        for c in element_candidates(rel) {
            push(c);
        }
    }
    out
}

/// `p = F[v := c + d]` for a loop against a loop-free version returning
/// `F`: the looping version's variable `p` holds the closed form at its
/// counter `c` in place of the input `v` the form is a function of, with
/// `d` in {−1, 0, 1} (a counter from 1 to `n`, from 0 to `n − 1`, or
/// one step ahead) — a running sum against its formula is `s = F(i − 1)`
/// at every head, `c = F(i − 1)` for a count of the multiples below `i`.
/// The form's clamps and guards come along: they hold for the counter's
/// values as they hold for the input's.
fn closed_form_candidates(
    rel: &super::encode::Relation,
    idle_old: bool,
    form: &Dynamic,
) -> Vec<Bool> {
    let split = rel.old_arity.min(rel.params.len());
    let (idle, looping) = if idle_old {
        (&rel.params[..split], &rel.params[split..])
    } else {
        (&rel.params[split..], &rel.params[..split])
    };
    let mut out = Vec::new();
    let inputs = idle.iter().filter(|v| {
        (v.as_int().is_some() || v.as_bv().is_some()) && super::encode::mentions(form, v)
    });
    for v in inputs {
        for c in looping.iter().filter(|c| c.get_sort() == v.get_sort()) {
            for d in [-1i64, 0, 1] {
                let at = if let Some(c) = c.as_int() {
                    Dynamic::from_ast(&Int::add(&[&c, &Int::from_i64(d)]))
                } else if let Some(c) = c.as_bv() {
                    Dynamic::from_ast(&c.bvadd(BV::from_i64(d, c.get_size())))
                } else {
                    continue;
                };
                let f = form.substitute(&[(v, &at)]);
                for p in looping
                    .iter()
                    .filter(|p| p.get_sort() == form.get_sort() && p.get_z3_ast() != c.get_z3_ast())
                {
                    if out.len() >= MAX_CLOSED_FORM_CANDIDATES {
                        return out;
                    }
                    out.push(p.eq(&f));
                }
            }
        }
    }
    out
}

/// The most [`closed_form_candidates`] per relation.
const MAX_CLOSED_FORM_CANDIDATES: usize = 36;

/// `p = e` for each parameter `p` a clause enters with a value computed
/// from what other parameters enter with (`negative = x < 0.0` beside `x`):
/// the entering value written over the relation's own parameters. It holds
/// as long as neither the variable nor its operands change — what a flag
/// or a derived value set before the loops keeps, which one version tests
/// where the other recomputes it (`negative` against `x < 0.0` after the
/// loops). Only small terms over parameters alone: anything else the
/// clause mentions is not the relation's to state.
fn definitions(rel: &super::encode::Relation, args: &[Dynamic]) -> Vec<Bool> {
    // The entering values that are plain variables, each standing for the
    // first parameter that enters with it.
    let mut atoms: Vec<(Dynamic, &Dynamic)> = Vec::new();
    for (p, a) in rel.params.iter().zip(args) {
        let a = a.simplify();
        if a.num_children() == 0
            && numeral(&a).is_none()
            && !atoms.iter().any(|(b, _)| b.get_z3_ast() == a.get_z3_ast())
        {
            atoms.push((a, p));
        }
    }
    if atoms.is_empty() {
        return Vec::new();
    }
    let sigma: Vec<(&Dynamic, &Dynamic)> = atoms.iter().map(|(a, p)| (a, *p)).collect();
    let allowed: Vec<&Dynamic> = rel.params.iter().collect();
    let mut out = Vec::new();
    for (p, a) in rel.params.iter().zip(args) {
        let a = a.simplify();
        if a.num_children() == 0 || !scalar_or_flag(&a) {
            continue;
        }
        let e = a.substitute(&sigma);
        let mut nodes = MAX_DEFINITION_NODES;
        if within(&e, &allowed, &mut nodes)
            && e.get_z3_ast() != p.get_z3_ast()
            && e.get_sort() == p.get_sort()
        {
            out.push(p.eq(&e));
            if let (Some(flag), Some(e)) = (truth(p), truth(&e)) {
                out.extend(flag_implications(&flag, &e));
            }
        }
    }
    out
}

/// What a flag's value says as a condition: a Boolean itself, an integer
/// flag (`int ok = a != NULL`, entering as `ite(c, 1, 0)`) `c`, or its
/// negation for `ite(c, 0, 1)`. `None` for anything else.
fn truth(d: &Dynamic) -> Option<Bool> {
    if let Some(b) = d.as_bool() {
        return Some(b);
    }
    let decl = d.safe_decl().ok()?;
    let kids = d.children();
    if !cases::is_if_then_else(&decl.name(), kids.len()) {
        // A parameter: true where it is not zero.
        if kids.is_empty() && numeral(d).is_none() {
            return nonzero(d);
        }
        return None;
    }
    let c = kids.first()?.as_bool()?;
    let (t, e) = (numeral(kids.get(1)?)?, numeral(kids.get(2)?)?);
    match (is_one(&t), is_zero(&e), is_zero(&t), is_one(&e)) {
        (true, true, _, _) => Some(c),
        (_, _, true, true) => Some(c.not()),
        _ => None,
    }
}

/// `d ≠ 0` for an integer or bit-vector `d`.
fn nonzero(d: &Dynamic) -> Option<Bool> {
    if let Some(i) = d.as_int() {
        return Some(i.eq(Int::from_i64(0)).not());
    }
    let b = d.as_bv()?;
    Some(b.eq(BV::from_u64(0, b.get_size())).not())
}

fn is_one(d: &Dynamic) -> bool {
    d.as_int().and_then(|i| i.as_i64()) == Some(1) || d.as_bv().and_then(|b| b.as_u64()) == Some(1)
}

/// For a flag `p` entering with the value `e`: `p ⇒ e` and `¬p ⇒ ¬e`,
/// and the same for each conjunct (disjunct) of `e`. A flag a loop only
/// ever clears (`ok = ok && …`, `if (…) ok = false`, `eq = a[i] == b[i]`
/// under `eq` in the guard) keeps the first: what held when it was set
/// still holds while it is — `eq ⇒ b ≠ null ∧ a.length = b.length` is
/// what makes its reads in bounds. A flag a loop only ever sets
/// (`found = true`) keeps the second.
fn flag_implications(p: &Bool, e: &Bool) -> Vec<Bool> {
    let parts = |op: &str| -> Vec<Bool> {
        match e.safe_decl() {
            Ok(d) if d.name() == op && e.num_children() > 1 => {
                e.children().iter().filter_map(Dynamic::as_bool).collect()
            }
            _ => Vec::new(),
        }
    };
    let (conjuncts, disjuncts) = (parts("and"), parts("or"));
    let mut out: Vec<Bool> = conjuncts.iter().map(|c| p.implies(c)).collect();
    if conjuncts.is_empty() {
        out.push(p.implies(e));
    }
    out.extend(disjuncts.iter().map(|d| p.not().implies(d.not())));
    if disjuncts.is_empty() {
        out.push(p.not().implies(e.not()));
    }
    out
}

/// Equalities across bit-vector parameters of different widths, one per
/// version, whose entering values agree:
/// - `ext(narrow) = wide`, the narrow one extended as its signedness
///   converts: a variable widened in the other version (`int i = 0`
///   against `long i = 0`, an `int` index against a pointer's 64-bit
///   offset, `n` against `(size_t) n`), equal while neither wraps;
/// - `narrow = trunc(wide)`: an accumulator widened in the other version
///   whose result is narrowed back (`int s` against `long s` returned as
///   `(int) s`), equal modulo the narrow width whatever wraps.
///
/// A constant counts only where neither variable has a namesake in the
/// other version, as for equalities of one width.
fn widened(rel: &super::encode::Relation, entering: &[Dynamic]) -> Vec<Bool> {
    let mut out = Vec::new();
    for i in 0..rel.old_arity.min(rel.params.len()) {
        for j in rel.old_arity..rel.params.len() {
            let (Some(a), Some(b)) = (rel.params[i].as_bv(), rel.params[j].as_bv()) else {
                continue;
            };
            let (narrow, wide) = match a.get_size().cmp(&b.get_size()) {
                std::cmp::Ordering::Less => (i, j),
                std::cmp::Ordering::Greater => (j, i),
                std::cmp::Ordering::Equal => continue,
            };
            let (Some(from), Some(to)) = (entering.get(narrow), entering.get(wide)) else {
                continue;
            };
            if numeral(from).is_some() && !(renamed(rel, i) && renamed(rel, j)) {
                continue;
            }
            let (p, q) = (&rel.params[narrow], &rel.params[wide]);
            if let (Some(e), Some(pe)) = (extend(rel, narrow, from, to), extend(rel, narrow, p, q))
                && e.simplify().get_z3_ast() == to.get_z3_ast()
            {
                out.push(pe.eq(q));
            }
            if let (Some(t), Some(qt)) = (truncate(to, from), truncate(q, p))
                && t.simplify().get_z3_ast() == from.get_z3_ast()
            {
                out.push(p.eq(&qt));
            }
        }
    }
    out
}

/// Whether parameter `i` has no namesake of its sort in the other version.
pub(super) fn renamed(rel: &super::encode::Relation, i: usize) -> bool {
    !rel.same_name.iter().any(|&(o, n)| o == i || n == i)
}

/// `value`, a bit-vector of parameter `narrow`'s width, extended to the
/// width of `like` as parameter `narrow`'s signedness converts it.
fn extend(
    rel: &super::encode::Relation,
    narrow: usize,
    value: &Dynamic,
    like: &Dynamic,
) -> Option<Dynamic> {
    let (v, w) = (value.as_bv()?, like.as_bv()?);
    let by = w.get_size().checked_sub(v.get_size()).filter(|d| *d > 0)?;
    let unsigned = rel.unsigned.get(narrow).copied().unwrap_or(false);
    Some(Dynamic::from_ast(&if unsigned {
        v.zero_ext(by)
    } else {
        v.sign_ext(by)
    }))
}

/// The low bits of bit-vector `value`, as many as `like` has.
fn truncate(value: &Dynamic, like: &Dynamic) -> Option<Dynamic> {
    let (v, w) = (value.as_bv()?, like.as_bv()?);
    (w.get_size() < v.get_size()).then(|| Dynamic::from_ast(&v.extract(w.get_size() - 1, 0)))
}

/// The largest entering value [`definitions`] restates.
const MAX_DEFINITION_NODES: usize = 24;

fn scalar_or_flag(d: &Dynamic) -> bool {
    d.as_int().is_some() || d.as_real().is_some() || d.as_bool().is_some() || d.as_bv().is_some()
}

/// Whether `e` has at most `*nodes` nodes and its only uninterpreted
/// constants are among `allowed` (numerals are fine).
fn within(e: &Dynamic, allowed: &[&Dynamic], nodes: &mut usize) -> bool {
    if *nodes == 0 {
        return false;
    }
    *nodes -= 1;
    if e.num_children() == 0 {
        return numeral(e).is_some() || allowed.iter().any(|p| p.get_z3_ast() == e.get_z3_ast());
    }
    e.children().iter().all(|c| within(c, allowed, nodes))
}

/// `c ≤ p` and `p ≤ c` for each integer parameter every clause entering
/// the relation gives the same constant `c`.
fn integer_entry_bounds(enc: &Encoding, rel: &super::encode::Relation) -> Vec<Bool> {
    let mut out = Vec::new();
    for (p, c) in rel.params.iter().zip(entry_constants(enc, rel)) {
        if let (Some(p), Some(c)) = (p.as_int(), c.and_then(|c| c.as_int())) {
            out.push(p.ge(&c));
            out.push(p.le(&c));
        }
    }
    out
}

/// Per parameter of `rel`, the constant every clause entering it gives
/// that parameter; `None` where they disagree or give a non-constant.
fn entry_constants(enc: &Encoding, rel: &super::encode::Relation) -> Vec<Option<Dynamic>> {
    let entering = heads(enc, rel, false);
    (0..rel.params.len())
        .map(|i| {
            let mut c: Option<Dynamic> = None;
            for args in &entering {
                let v = args.get(i).and_then(numeral)?;
                match &c {
                    Some(c) if c.get_z3_ast() != v.get_z3_ast() => return None,
                    _ => c = Some(v),
                }
            }
            c
        })
        .collect()
}

/// A scalar that holds an array element next to a counter: `acc =
/// a[i - 1]` or `acc = a[i]`, in either version (a prefix sum kept in an
/// accumulator against one that reads the previous element back). Spacer
/// finds these too, but in seconds; as candidates they cost one query.
fn element_candidates(rel: &super::encode::Relation) -> Vec<Bool> {
    let mut out = Vec::new();
    for array in rel.params.iter().filter_map(Dynamic::as_array) {
        let sort = array.get_sort();
        let (Some(index), Some(element)) = (sort.array_domain(), sort.array_range()) else {
            continue;
        };
        let counters = rel.params.iter().filter(|p| p.get_sort() == index);
        for i in counters {
            let before = if let Some(i) = i.as_int() {
                Dynamic::from_ast(&Int::sub(&[&i, &Int::from_i64(1)]))
            } else if let Some(i) = i.as_bv() {
                Dynamic::from_ast(&i.bvsub(BV::from_i64(1, i.get_size())))
            } else {
                continue;
            };
            for s in rel.params.iter().filter(|p| p.get_sort() == element) {
                out.push(s.eq(array.select(&before)));
                out.push(s.eq(array.select(i)));
            }
        }
    }
    out
}

/// The candidates that stand in for Spacer over bit-vectors (`machine`
/// semantics, where Spacer on libz3 4.8.12 finds no invariant in time and
/// is not run): what its `math` invariants hold beyond equalities.
///
/// - The order of a counter and another variable of its version, both
///   ways (`i ≤ n`), also as "or not moved yet" (`i ≤ n ∨ i = 0`): a
///   counter that stays at or below its bound is what keeps `i + 1` from
///   wrapping in an unrolled or split guard.
/// - Bounds at the constants variables enter with (`0 ≤ i`), and the
///   residue of a counter stepping by 2, 4 or 8 (`i` even).
/// - Linear relations between variables that move by constant steps in
///   every iteration (`t = 3·i` after strength reduction, `j − i = n`),
///   fixed by their values on entry. Modular arithmetic keeps them exact:
///   both sides wrap alike.
///
/// Signed variables are ordered by `bvsle`, unsigned ones by `bvule`; only
/// variables of one sort and signedness are compared.
fn bit_vector_candidates(enc: &Encoding, rel: &super::encode::Relation) -> Vec<Bool> {
    let unsigned = |i: usize| rel.unsigned.get(i).copied().unwrap_or(false);
    let le = |i: usize, a: &BV, b: &BV| {
        if unsigned(i) { a.bvule(b) } else { a.bvsle(b) }
    };
    let bvs: Vec<(usize, BV)> = rel
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some((i, p.as_bv()?)))
        .collect();
    let alike = |i: usize, a: &BV, j: usize, b: &BV| {
        a.get_size() == b.get_size() && unsigned(i) == unsigned(j)
    };
    let entering = heads(enc, rel, false);
    // The constant each variable enters with, where every entry agrees.
    let start: Vec<Option<BV>> = entry_constants(enc, rel)
        .into_iter()
        .map(|c| c.and_then(|c| c.as_bv()))
        .collect();
    let mut out = Vec::new();
    // Order within a version, between a counter (a variable moving by a
    // constant step in every iteration) and another variable; for a counter
    // that enters with a constant, also "ordered, or not moved yet"
    // (`i ≤ n ∨ i = 0`: a counter whose loop does not run when `n < 0`).
    // Two accumulators are not compared: the candidates grow with the
    // square of the state, and each costs the queries time.
    let steps = constant_steps(enc, rel, &bvs);
    let counter = |i: usize| steps.iter().any(|(k, _, _)| *k == i);
    for (x, (i, p)) in bvs.iter().enumerate() {
        for (j, q) in bvs.iter().skip(x + 1) {
            let same_version = (*i < rel.old_arity) == (*j < rel.old_arity);
            if !same_version || !alike(*i, p, *j, q) || !(counter(*i) || counter(*j)) {
                continue;
            }
            for (a, b) in [(p, q), (q, p)] {
                let ordered = le(*i, a, b);
                out.push(ordered.clone());
                for (k, v) in [(*i, p), (*j, q)] {
                    if let (true, Some(c)) = (counter(k), &start[k]) {
                        out.push(Bool::or(&[&ordered, &v.eq(c)]));
                    }
                }
            }
        }
    }
    // Bounds at entry constants.
    for (i, p) in &bvs {
        if let Some(c) = &start[*i] {
            out.push(le(*i, c, p));
            out.push(le(*i, p, c));
        }
    }
    // The range of a variable that only ever holds constants (a state of
    // an enum, a flag set to 0 or 1): what a case split on it needs, `st
    // ≠ SPACE` meaning `st = WORD` only within {SPACE, WORD}.
    for (i, p) in &bvs {
        if let Some((low, high)) = constant_range(enc, rel, *i, p, unsigned(*i)) {
            out.push(le(*i, &low, p));
            out.push(le(*i, p, &high));
        }
    }
    // Linear relations between variables with constant steps.
    // Residues: a counter moving by 2, 4 or 8 from a constant keeps its
    // remainder (`i` even after unrolling by 2, so `i + 1` never reaches
    // past an odd bound and wraps).
    for (i, p, a) in &steps {
        let (Some(step), Some(c)) = (a.as_u64(), &start[*i]) else {
            continue;
        };
        if step > 1 && step.is_power_of_two() {
            let mask = BV::from_u64(step - 1, p.get_size());
            out.push(p.bvand(&mask).eq(c.bvand(&mask).simplify()));
        }
    }
    for (x, (i, p, a)) in steps.iter().enumerate() {
        for (j, q, b) in steps.iter().skip(x + 1) {
            if !alike(*i, p, *j, q) {
                continue;
            }
            // b·p − a·q does not change in an iteration; with equal steps
            // that is p − q.
            let (cp, cq) = if a.get_z3_ast() == b.get_z3_ast() {
                (BV::from_i64(1, p.get_size()), BV::from_i64(1, p.get_size()))
            } else {
                (b.clone(), a.clone())
            };
            let combination = |p: &BV, q: &BV| cp.bvmul(p).bvsub(cq.bvmul(q));
            for args in &entering {
                let (Some(p0), Some(q0)) = (
                    args.get(*i).and_then(|d| d.as_bv()),
                    args.get(*j).and_then(|d| d.as_bv()),
                ) else {
                    continue;
                };
                let at_entry = combination(&p0, &q0).simplify();
                let now = combination(p, q);
                if numeral(&Dynamic::from_ast(&at_entry)).is_some() {
                    out.push(now.eq(&at_entry));
                    continue;
                }
                // A variable that entered with that value (`j − i = n`).
                for (r, rv) in &bvs {
                    let same = args
                        .get(*r)
                        .and_then(|d| d.as_bv())
                        .is_some_and(|d| d.simplify().get_z3_ast() == at_entry.get_z3_ast());
                    if same && rv.get_size() == p.get_size() {
                        out.push(now.eq(rv));
                    }
                }
            }
        }
    }
    out
}

/// The least and greatest value parameter `i` (`p`) of `rel` holds, in
/// signed or unsigned order, where every clause defining `rel` gives it a
/// constant, or (in a clause that loops on `rel`) keeps it, through any
/// if-then-else; `None` otherwise or where it holds one value only (the
/// entry bounds state that).
fn constant_range(
    enc: &Encoding,
    rel: &super::encode::Relation,
    i: usize,
    p: &BV,
    unsigned: bool,
) -> Option<(BV, BV)> {
    let width = p.get_size();
    let mut values: Vec<BV> = Vec::new();
    for (looping, args) in heads(enc, rel, false)
        .into_iter()
        .map(|a| (false, a))
        .chain(heads(enc, rel, true).into_iter().map(|a| (true, a)))
    {
        let mut stack = vec![args.get(i)?.simplify()];
        while let Some(term) = stack.pop() {
            if let Some(c) = term.as_bv().filter(|b| b.as_u64().is_some()) {
                values.push(c);
                continue;
            }
            if looping && term.get_z3_ast() == p.get_z3_ast() {
                continue;
            }
            let decl = term.safe_decl().ok()?;
            let children = term.children();
            if !cases::is_if_then_else(&decl.name(), children.len()) {
                return None;
            }
            stack.extend(children.into_iter().skip(1));
            if stack.len() > MAX_RANGE_TERMS {
                return None;
            }
        }
    }
    let key = |b: &BV| super::fitted::reading(width, b.as_u64().unwrap_or(0), unsigned);
    let low = values.iter().min_by_key(|b| key(b))?.clone();
    let high = values.iter().max_by_key(|b| key(b))?.clone();
    (key(&low) != key(&high)).then_some((low, high))
}

/// The most terms [`constant_range`] walks through per clause: a range
/// comes from a few branches, not from a long chain of them.
const MAX_RANGE_TERMS: usize = 64;

/// The bit-vector parameters of `rel` that every clause looping on it
/// changes by the same nonzero constant, with that constant.
fn constant_steps(
    enc: &Encoding,
    rel: &super::encode::Relation,
    bvs: &[(usize, BV)],
) -> Vec<(usize, BV, BV)> {
    let looping = heads(enc, rel, true);
    if looping.is_empty() {
        return Vec::new();
    }
    bvs.iter()
        .filter_map(|(i, p)| {
            let mut step: Option<BV> = None;
            for args in &looping {
                let d = args.get(*i)?.as_bv()?.bvsub(p).simplify();
                d.as_u64()?;
                match &step {
                    Some(s) if s.get_z3_ast() != d.get_z3_ast() => return None,
                    _ => step = Some(d),
                }
            }
            let step = step?;
            (step.as_u64() != Some(0)).then(|| (*i, p.clone(), step))
        })
        .collect()
}

/// The head arguments of the clauses that define `rel`: those that loop
/// on it (their body applies it) or those that enter it.
fn heads<'e>(
    enc: &'e Encoding,
    rel: &super::encode::Relation,
    looping: bool,
) -> Vec<&'e Vec<Dynamic>> {
    enc.clauses
        .iter()
        .filter_map(|c| match &c.head {
            Some((h, args))
                if *h == rel.index && mentions(&c.body, &rel.application) == looping =>
            {
                Some(args)
            }
            _ => None,
        })
        .collect()
}

/// Whether `body` applies the relation (`application` occurs in it): Z3
/// shares equal terms, so a substitution that changes nothing returns the
/// same term.
pub(super) fn mentions(body: &Bool, application: &Bool) -> bool {
    let gone = body.substitute(&[(application, &Bool::from_bool(true))]);
    gone.get_z3_ast() != body.get_z3_ast()
}

/// Most pairs of parameters [`implied_by_entry`] compares (a bound on its
/// solver calls, each capped at `budget::ENTRY_CHECK`).
const MAX_ENTRY_CHECKS: usize = 64;

/// Equalities and boolean values that the first clause entering relation
/// `k` implies although its terms differ: the path into the loop decides
/// them (`int n = a == null ? 0 : a.length;` after `if (a == null)
/// return 0;` enters as `a.length`, and the null flag as `false`). Checked
/// by Z3 on the clause with every relation taken as `true` (a weaker
/// body, so whatever holds there holds on entry).
fn implied_by_entry(enc: &Encoding, k: usize, deadline: Instant) -> Vec<Bool> {
    let Some(rel) = enc.relations.get(k) else {
        return Vec::new();
    };
    let Some(clause) = enc
        .clauses
        .iter()
        .find(|c| matches!(&c.head, Some((h, _)) if *h == k))
    else {
        return Vec::new();
    };
    let Some((_, args)) = &clause.head else {
        return Vec::new();
    };
    let all_true: Vec<Vec<Bool>> = enc.relations.iter().map(|_| Vec::new()).collect();
    let body = assumed(enc, clause, &all_true);
    let scalar = |d: &Dynamic| d.as_int().is_some() || d.as_real().is_some();
    let mut out = Vec::new();
    let mut checks = 0;
    let mut holds = |what: Bool| {
        checks += 1;
        checks <= MAX_ENTRY_CHECKS
            && matches!(
                check_within(
                    &clause.hypotheses,
                    &body,
                    &what,
                    deadline,
                    crate::budget::ENTRY_CHECK.as_millis(),
                ),
                Check::Valid
            )
    };
    for (i, (p, a)) in rel.params.iter().zip(args).enumerate() {
        if let (Some(p), Some(a)) = (p.as_bool(), a.as_bool())
            && numeral(&Dynamic::from_ast(&a)).is_none()
        {
            if holds(a.not()) {
                out.push(p.not());
                continue;
            } else if holds(a.clone()) {
                out.push(p);
                continue;
            }
            // A flag against another computed differently, or against
            // its negation (`ok` against `bad`).
            for (q, b) in rel.params.iter().zip(args).skip(i + 1) {
                let (Some(q), Some(b)) = (q.as_bool(), b.as_bool()) else {
                    continue;
                };
                if numeral(&Dynamic::from_ast(&b)).is_some() {
                    continue;
                }
                if a.simplify().get_z3_ast() != b.simplify().get_z3_ast() && holds(a.eq(&b)) {
                    out.push(p.eq(&q));
                } else if holds(a.eq(b.not())) {
                    out.push(p.eq(q.not()));
                }
            }
            continue;
        }
        // Integer flags (C's `int ok = …`) compared by truth: equal or
        // negated (`ok` against `bad`) as conditions, whatever 1 or 0 the
        // other version stores.
        let flag = |p: &Dynamic, a: &Dynamic| {
            let ite = a
                .safe_decl()
                .is_ok_and(|d| cases::is_if_then_else(&d.name(), a.num_children()));
            if !ite {
                return None;
            }
            Some((truth(p)?, truth(a)?))
        };
        if let Some((pt, at)) = flag(p, a) {
            for (q, b) in rel.params.iter().zip(args).skip(i + 1) {
                let Some((qt, bt)) = flag(q, b) else {
                    continue;
                };
                if holds(at.eq(&bt)) {
                    out.push(pt.eq(&qt));
                } else if holds(at.eq(bt.not())) {
                    out.push(pt.eq(qt.not()));
                }
            }
        }
        for (q, b) in rel.params.iter().zip(args).skip(i + 1) {
            if scalar(a)
                && p.get_sort() == q.get_sort()
                && a.simplify().get_z3_ast() != b.simplify().get_z3_ast()
                && numeral(a).is_none()
                && numeral(b).is_none()
                && holds(a.eq(b))
            {
                out.push(p.eq(q));
            }
        }
    }
    out
}

/// `a` simplified when it is a number (or a boolean constant).
fn numeral(a: &Dynamic) -> Option<Dynamic> {
    let s = a.simplify();
    if let Some(i) = s.as_int() {
        return i.as_i64().map(|_| s.clone());
    }
    if let Some(r) = s.as_real() {
        return r.as_rational().map(|_| s.clone());
    }
    if let Some(b) = s.as_bool() {
        return b.as_bool().map(|_| s.clone());
    }
    if let Some(b) = s.as_bv() {
        return b.as_u64().map(|_| s.clone());
    }
    None
}

fn is_zero(d: &Dynamic) -> bool {
    d.as_int().and_then(|i| i.as_i64()) == Some(0)
        || d.as_bv().and_then(|b| b.as_u64()) == Some(0)
        || d.as_real().and_then(|r| r.as_rational()) == Some((0, 1))
}

/// `a − b` for integers, reals or bit-vectors (wrapping, which keeps a
/// constant offset exact).
fn difference(a: &Dynamic, b: &Dynamic) -> Option<Dynamic> {
    if let (Some(x), Some(y)) = (a.as_bv(), b.as_bv()) {
        return (x.get_size() == y.get_size()).then(|| Dynamic::from_ast(&x.bvsub(&y)));
    }
    if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
        return Some(Dynamic::from_ast(&Int::sub(&[&x, &y])));
    }
    if let (Some(x), Some(y)) = (a.as_real(), b.as_real()) {
        return Some(Dynamic::from_ast(&Real::sub(&[&x, &y])));
    }
    None
}

/// The clause's body with every relation replaced by its candidates.
fn assumed(enc: &Encoding, clause: &Clause, candidates: &[Vec<Bool>]) -> Bool {
    let conj: Vec<Bool> = candidates.iter().map(|cs| Bool::and(cs)).collect();
    let sigma: Vec<(&Bool, &Bool)> = enc
        .relations
        .iter()
        .zip(&conj)
        .map(|(r, c)| (&r.application, c))
        .collect();
    clause.body.substitute(&sigma)
}

enum Check {
    Valid,
    Counterexample(Model),
    Unknown,
}

/// Whether `hypotheses ∧ body → head` is valid, or a model of its negation.
fn counterexample(hypotheses: &[Bool], body: &Bool, head: &Bool, deadline: Instant) -> Check {
    check_within(
        hypotheses,
        body,
        head,
        deadline,
        crate::budget::HOUDINI_CHECK.as_millis(),
    )
}

/// [`counterexample`] with each solver call capped at `cap_ms`; a query
/// with branches that Z3 does not decide whole in that time is then
/// decided case by case (see [`cases`](super::cases)), within as long
/// again.
fn check_within(
    hypotheses: &[Bool],
    body: &Bool,
    head: &Bool,
    deadline: Instant,
    cap_ms: u128,
) -> Check {
    // The solver before the negated head: Z3's search depends on the order
    // terms are made in, and the loop timings were taken with this one.
    let Some((solver, limit)) = cases::capped_solver(deadline, cap_ms) else {
        return Check::Unknown;
    };
    for h in hypotheses {
        solver.assert(h);
    }
    solver.assert(body);
    let negated = head.not();
    solver.assert(&negated);
    match crate::clock::solve(&solver, limit, &[]) {
        SatResult::Unsat => Check::Valid,
        SatResult::Sat => match solver.get_model() {
            Some(m) => Check::Counterexample(m),
            None => Check::Unknown,
        },
        // Too hard whole: path by path, if it has branches.
        SatResult::Unknown => {
            let formulas: Vec<Bool> = hypotheses.iter().chain([body, &negated]).cloned().collect();
            let Some(branch) = cases::innermost_condition(&formulas) else {
                return Check::Unknown;
            };
            match cases::decide(&formulas, &branch, deadline, cap_ms) {
                Decided::Unsat => Check::Valid,
                Decided::Sat(model) => Check::Counterexample(model),
                Decided::Unknown => Check::Unknown,
            }
        }
    }
}

/// Whether `hypotheses ∧ body → head` is valid (Z3 says unsat to its
/// negation within the deadline).
fn valid(hypotheses: &[Bool], body: &Bool, head: &Bool, deadline: Instant) -> bool {
    matches!(
        counterexample(hypotheses, body, head, deadline),
        Check::Valid
    )
}

#[cfg(test)]
mod tests {
    use super::super::encode;
    use super::*;
    use crate::ir::{FuncId, Lang, Semantics};
    use crate::symbolic::ops::Ops;
    use std::time::Duration;

    fn houdini(old: &str, new: &str) -> Option<Vec<String>> {
        houdini_under(Semantics::Math, old, new)
    }

    fn houdini_under(sem: Semantics, old: &str, new: &str) -> Option<Vec<String>> {
        houdini_with(sem, Exits::Omitted, old, new)
    }

    fn houdini_machine(old: &str, new: &str) -> Option<Vec<String>> {
        houdini_under(Semantics::Machine, old, new)
    }

    fn houdini_with(sem: Semantics, exits: Exits, old: &str, new: &str) -> Option<Vec<String>> {
        let (po, pn) = (lowered(old), lowered(new));
        let deadline = crate::clock::now() + Duration::from_secs(10);
        let vo = encode::Version::new(&po, FuncId(0), true).expect("encodable");
        let vn = encode::Version::new(&pn, FuncId(0), false).expect("encodable");
        let enc = encode::encode(java_under(sem), &vo, &vn, deadline).expect("encoded");
        prove(&enc, exits, deadline)
    }

    /// Unfolded: `int k = 3;` must stay a variable for the constant
    /// candidate to be tested (the pipeline would fold it away).
    fn lowered(src: &str) -> crate::ir::Program {
        crate::lang::lower_unfolded(Lang::Java, &format!("class A {{ {src} }}"))
    }

    fn java_under(sem: Semantics) -> Ops {
        Ops::new(sem, Lang::Java, Default::default())
    }

    /// Whether some alignment the loop checker would try (rearrangements
    /// included) is proved by the candidates.
    fn some_alignment_proved(exits: Exits, old: &str, new: &str) -> bool {
        first_alignment_proved(old, new, |enc, _, deadline| prove(enc, exits, deadline)).is_some()
    }

    /// The first proof `proof` gives (from an encoding under machine
    /// semantics, the alignment's own `exits` and a deadline) over the
    /// alignments the loop checker would try.
    fn first_alignment_proved(
        old: &str,
        new: &str,
        proof: impl Fn(&Encoding, Exits, Instant) -> Option<Vec<String>>,
    ) -> Option<Vec<String>> {
        let (po, pn) = (lowered(old), lowered(new));
        let (jo, jn) = (
            super::super::prepared(&po, FuncId(0)),
            super::super::prepared(&pn, FuncId(0)),
        );
        let (po, pn) = (jo.as_ref().unwrap_or(&po), jn.as_ref().unwrap_or(&pn));
        let vo = encode::Version::new(po, FuncId(0), true).expect("encodable");
        let vn = encode::Version::new(pn, FuncId(0), false).expect("encodable");
        let mut refused = None;
        super::super::candidates(&vo, &vn, &mut refused, None, false)
            .into_iter()
            .find_map(|cand| {
                let (o, n) = (
                    encode::Version {
                        shape: cand.old,
                        ..vo
                    },
                    encode::Version {
                        shape: cand.new,
                        ..vn
                    },
                );
                let deadline = crate::clock::now() + Duration::from_secs(20);
                let enc = encode::encode(java_under(Semantics::Machine), &o, &n, deadline)
                    .expect("encoded");
                proof(&enc, cand.exits, deadline)
            })
    }

    #[test]
    fn converging_indices_are_proved_by_a_definition_over_bit_vectors() {
        // Two indices converging from both ends against one index and its
        // mirror: the fitted `lo + hi = n − 1` holds; stated as the
        // definition of the index the new version no longer has, bit-
        // blasting decides it within the per-check cap.
        let old = "void f(int[] a) { int lo = 0, hi = a.length - 1; \
                   while (lo < hi) { int t = a[lo]; a[lo] = a[hi]; a[hi] = t; lo++; hi--; } }";
        let new = "void f(int[] a) { int n = a.length; \
                   for (int i = 0; i < n / 2; i++) { int t = a[i]; a[i] = a[n - 1 - i]; a[n - 1 - i] = t; } }";
        let inv = first_alignment_proved(old, new, prove_fitted).expect("proved");
        assert!(
            inv.iter()
                .any(|i| i.contains("(= old.lo (bvadd") || i.contains("(= old.hi (bvadd")),
            "{inv:?}"
        );
        // One index off, the same candidates prove nothing.
        let wrong = new.replace("n - 1 - i", "n - 2 - i");
        assert!(first_alignment_proved(old, &wrong, prove_fitted).is_none());
    }

    #[test]
    fn a_widened_variable_is_related_by_extension_or_truncation() {
        // A counter widened to long: equal once extended, which the guard
        // and the index need.
        let inv = houdini_machine(
            "int f(int[] a, int n) { int s = 0; for (int i = 0; i < n; i++) { s += a[i]; } return s; }",
            "int f(int[] a, int n) { int s = 0; for (long k = 0; k < n; k++) { s += a[(int) k]; } return s; }",
        )
        .expect("proved by the extended equality");
        assert!(
            inv[0].contains("((_ sign_extend 32) old.i) new.k"),
            "{inv:?}"
        );
        // An accumulator widened to long: equal in its low 32 bits only.
        let inv = houdini_machine(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i * i; } return s; }",
            "int f(int n) { long t = 0; for (int i = 0; i < n; i++) { t += i * i; } return (int) t; }",
        )
        .expect("proved by the truncated equality");
        assert!(
            inv[0].contains("(= old.s ((_ extract 31 0) new.t))"),
            "{inv:?}"
        );
        // Widened but not narrowed back: no equality survives the wrap.
        assert!(
            houdini_machine(
                "long f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i * i; } return s; }",
                "long f(int n) { long t = 0; for (int i = 0; i < n; i++) { t += i * i; } return t; }",
            )
            .is_none()
        );
    }

    #[test]
    fn a_loop_left_early_needs_its_exit_stated_over_bit_vectors() {
        // Aligned as the old loop run while the new guard holds, then the
        // rest of the old loop alone: that the new loop stays exited (and
        // the old one, once its flag is set) is what proves them equal.
        let old = "int f(int n, int limit) { int s = 0; \
                   for (int i = 0; i < n; i++) { if (s > limit) { break; } s += i; } \
                   return s; }";
        let new = "int f(int n, int limit) { int s = 0; int i = 0; \
                   while (i < n && s <= limit) { s += i; i++; } return s; }";
        assert!(!some_alignment_proved(Exits::Omitted, old, new));
        assert!(some_alignment_proved(Exits::Stated, old, new));
    }

    #[test]
    fn a_value_derived_before_the_loops_keeps_its_definition() {
        // The old version keeps the sign in a flag, the new one tests the
        // unchanged input again after two loops.
        let old = "int f(int x, int n) { boolean neg = x < 0; int s = 0; \
                   for (int i = 0; i < n; i++) { s += 2; } \
                   for (int j = 0; j < n; j++) { s += 1; } return neg ? -s : s; }";
        let new = "int f(int x, int n) { int s = 0; \
                   for (int i = 0; i < n; i++) { s += 2; } \
                   for (int j = 0; j < n; j++) { s += 1; } return x < 0 ? -s : s; }";
        let inv = houdini(old, new).expect("proved by candidates");
        assert!(inv[1].contains("old.neg"), "{inv:?}");
        // A flag that does not match the later test is never proved.
        let wrong = new.replace("x < 0 ?", "x <= 0 ?");
        assert!(houdini(old, &wrong).is_none());
    }

    #[test]
    fn equalities_constants_and_offsets_are_found() {
        // A temporary introduced, a constant folded: variables equal, the
        // constant kept.
        let inv = houdini(
            "int f(int n) { int k = 3; int s = 0; for (int i = 0; i < n; i++) { s = s + k + i; } return s; }",
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { int t = 3 + i; s = s + t; } return s; }",
        )
        .expect("proved by candidates");
        assert!(
            inv[0].contains("(= old.k 3)") && inv[0].contains("(= old.s new.s)"),
            "{inv:?}"
        );
        // A counter shifted by one: the offset is a candidate.
        let inv = houdini(
            "int f(int n) { int i = 1; int s = 0; while (i <= n) { s += 2; i++; } return s; }",
            "int f(int n) { int i = 0; int s = 0; while (i < n) { s += 2; i++; } return s; }",
        )
        .expect("proved by candidates");
        assert!(
            inv[0].contains("old.i") && inv[0].contains("new.i"),
            "{inv:?}"
        );
    }

    #[test]
    fn a_variable_holding_only_constants_keeps_their_range_over_bit_vectors() {
        // `st != 0` means `st == 1` only within {0, 1}: without the range
        // the old version's else branch may keep a state the new one has
        // no counterpart of.
        let inv = houdini_machine(
            "int f(int[] a) { int st = 0; int c = 0; for (int i = 0; i < a.length; i++) { if (a[i] == 0) { st = 0; } else if (st == 0) { st = 1; c++; } } return c; }",
            "int f(int[] a) { int w = 0; int c = 0; for (int i = 0; i < a.length; i++) { if (a[i] != 0 && w == 0) { c++; } w = a[i] != 0 ? 1 : 0; } return c; }",
        )
        .expect("proved by candidates");
        assert!(inv[0].contains("(bvsle old.st #x00000001)"), "{inv:?}");
    }

    #[test]
    fn a_real_difference_is_never_proved() {
        assert!(
            houdini(
                "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s = s + i; } return s; }",
                "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s = s + i + 1; } return s; }",
            )
            .is_none()
        );
        assert!(
            houdini(
                "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s = s + i; } return s; }",
                "int f(int n) { int s = 0; for (int i = 0; i <= n; i++) { s = s + i; } return s; }",
            )
            .is_none()
        );
    }

    #[test]
    fn bit_vector_candidates_prove_what_wrapping_keeps() {
        // Strength reduction: `t = 3·i` holds modulo 2^32 as well.
        let inv = houdini_machine(
            "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += 3 * i; } return s; }",
            "int f(int n) { int s = 0; int t = 0; for (int i = 0; i < n; i++) { s += t; t += 3; } return s; }",
        )
        .expect("proved by candidates over bit-vectors");
        assert!(inv[0].contains("new.t"), "{inv:?}");
        // A counter moving by 2 keeps its parity: with `0 ≤ i` and `i ≤ n`
        // (or not moved yet) that is what keeps `i + 1` from wrapping.
        let inv = houdini_machine(
            "int f(int n) { int s = 0; for (int i = 0; i + 1 < n; i += 2) { s += i; } return s; }",
            "int f(int n) { int s = 0; int i = 0; while (i + 1 < n) { s = s + i; i = i + 2; } return s; }",
        )
        .expect("proved by candidates over bit-vectors");
        assert!(inv[0].contains("(= old.s new.s)"), "{inv:?}");
    }

    #[test]
    fn what_wrapping_breaks_is_never_proved_over_bit_vectors() {
        // `2 * i` wraps as an int before it is widened; `i + i` added to a
        // long twice does not: they differ once `i > 2^30`.
        assert!(
            houdini_machine(
                "long f(int n) { long s = 0; for (int i = 0; i < n; i++) { s += 2 * i; } return s; }",
                "long f(int n) { long s = 0; for (int i = 0; i < n; i++) { s += i; s += i; } return s; }",
            )
            .is_none()
        );
        // `i <= n` never fails for n = Integer.MAX_VALUE: the old loop
        // spins where the new one stops (under math they agree).
        let old =
            "int f(int n) { int i = 1; int j = 0; while (i <= n) { j = j + 2; i++; } return j; }";
        let new =
            "int f(int n) { int i = 0; int j = 0; while (i < n) { j = j + 2; i++; } return j; }";
        assert!(houdini_machine(old, new).is_none());
        assert!(houdini(old, new).is_some());
    }

    #[test]
    fn an_accumulator_holding_the_previous_element_is_a_candidate() {
        // In-place prefix sums: the new version keeps `a[i - 1]` in `acc`;
        // `i ≥ 1` keeps the old version's `a[i - 1]` in bounds.
        let old =
            "void f(int[] a) { for (int i = 1; i < a.length; i++) { a[i] = a[i] + a[i - 1]; } }";
        let new = "void f(int[] a) { if (a.length == 0) { return; } int acc = a[0]; int i = 1; \
                   while (i < a.length) { acc += a[i]; a[i] = acc; i++; } }";
        for sem in [Semantics::Math, Semantics::Machine] {
            let inv = houdini_under(sem, old, new).expect("proved by candidates");
            assert!(inv[0].contains("select"), "{sem:?}: {inv:?}");
        }
        // Reading the element after the counter instead is a difference.
        let wrong = new.replace("a[i] = acc;", "a[i] = acc + 1;");
        assert!(houdini(old, &wrong).is_none());
    }
}
