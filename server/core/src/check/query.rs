//! One equivalence query, shared by every checker that asks Z3: both
//! versions encoded ([`encode`]), the query solved case by case
//! ([`decide`]), and each model replayed on both versions by the
//! interpreter ([`super::replay`]) before it counts as a counterexample.

use super::replay::replay;
use super::{Assumption, MethodPair, Options, Proof, Unknown, UnknownReason, Verdict};
use crate::ir::{Function, LowerError, LowerErrorKind};
use crate::symbolic::ops::{Ops, Sym, normalize};
use crate::symbolic::{self, InputVar, PairEncoding, model};
use std::time::Instant;
use z3::ast::{Ast, BV, Bool, Int};
use z3::{Params, SatResult, Solver};

/// Candidate counterexamples tried before giving up on a satisfiable query.
pub(crate) const MAX_CANDIDATES: usize = 4;

/// Encodes both versions (with `abstraction` applied, if any), or the
/// verdict that explains why not.
pub(crate) fn encode(
    pair: &MethodPair<'_>,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
    abstraction: Option<&crate::abstraction::Abstraction>,
) -> Result<PairEncoding, Verdict> {
    let ops = Ops::new(
        options.semantics,
        pair.new_program.lang,
        options.signed_overflow,
    );
    match symbolic::encode_pair(
        ops,
        (pair.old_program, pair.old),
        (pair.new_program, pair.new),
        options.loop_bound,
        deadline,
        abstraction,
    ) {
        Ok(enc) => Ok(enc),
        Err(e) if e.error.is_timeout() => {
            Err(super::timeout(super::Phase::Encoding, options.timeout_ms))
        }
        Err(e) => {
            let f = if e.in_old { old_fn } else { new_fn };
            let error = e.error.lowering.unwrap_or(LowerError {
                kind: LowerErrorKind::Unsupported,
                what: e.error.what,
                span: f.span,
            });
            Err(super::unsupported(&error, e.in_old))
        }
    }
}

/// The lowered bodies of the pair, or the unsupported verdict.
pub(crate) fn bodies<'p>(pair: &MethodPair<'p>) -> Result<(&'p Function, &'p Function), Verdict> {
    let old = &pair.old_program.function(pair.old).body;
    let new = &pair.new_program.function(pair.new).body;
    match (old, new) {
        (Ok(o), Ok(n)) => Ok((o, n)),
        (Err(e), _) => Err(super::unsupported(e, true)),
        (_, Err(e)) => Err(super::unsupported(e, false)),
    }
}

pub(crate) fn unknown(reason: UnknownReason, detail: impl Into<String>) -> Verdict {
    Verdict::Unknown(Unknown {
        reason,
        detail: detail.into(),
    })
}

/// How the equivalence query of a pair is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// Z3's default strategy (`math` semantics, linear arithmetic).
    Arithmetic,
    /// `math` semantics where the code multiplies or divides two unknowns:
    /// the default strategy, bounded by CPU time
    /// ([`crate::clock::Engine::Nonlinear`]).
    Nonlinear,
    /// `machine` integers: the array/bit-vector tactic, which is much faster
    /// than the default strategy on arrays of bit-vectors.
    BitVectors,
    /// `machine` floating point: the float solver
    /// ([`crate::symbolic::float_solver`]).
    Floats,
}

/// The strategy for a pair's query.
pub(crate) fn strategy_for(pair: &MethodPair<'_>, enc: &PairEncoding) -> Strategy {
    use crate::symbolic::{nonlinear, uses_floats};
    let (old, new) = (pair.old_program, pair.new_program);
    match enc.ops.sem {
        crate::ir::Semantics::Math if nonlinear(old, pair.old) || nonlinear(new, pair.new) => {
            Strategy::Nonlinear
        }
        crate::ir::Semantics::Math => Strategy::Arithmetic,
        crate::ir::Semantics::Machine if uses_floats(old) || uses_floats(new) => Strategy::Floats,
        crate::ir::Semantics::Machine => Strategy::BitVectors,
    }
}

/// A solver for the equivalence query, after its [`Strategy`]. For
/// [`Strategy::BitVectors`], context-dependent simplification first: a case assumption such as `n > k` then resolves
/// the conditions it implies, which leaves reordered sums syntactically
/// equal. It gets at most `budget::CONTEXT_SIMPLIFY` per check, so that
/// formulas it does not help with still get the plain strategy with what
/// is left.
pub(crate) struct QuerySolver {
    simplifying: Option<Solver>,
    plain: Solver,
    /// The engine the plain solver's work is counted at.
    engine: crate::clock::Engine,
    /// Which solver gave the last answer (its model, its reason).
    answered_first: bool,
}

impl QuerySolver {
    pub(crate) fn new(strategy: Strategy) -> QuerySolver {
        use crate::clock::Engine;
        let (simplifying, plain, engine) = match strategy {
            Strategy::BitVectors => (
                Some(
                    z3::Tactic::new("simplify")
                        .and_then(&z3::Tactic::new("propagate-values"))
                        .and_then(&z3::Tactic::new("ctx-simplify"))
                        .and_then(&z3::Tactic::new("simplify"))
                        .and_then(&z3::Tactic::new("qfaufbv"))
                        .solver(),
                ),
                z3::Tactic::new("qfaufbv").solver(),
                Engine::Smt,
            ),
            Strategy::Floats => (None, crate::symbolic::float_solver(), Engine::Float),
            Strategy::Nonlinear => (None, Solver::new(), Engine::Nonlinear),
            Strategy::Arithmetic => (None, Solver::new(), Engine::Smt),
        };
        QuerySolver {
            simplifying,
            plain,
            engine,
            answered_first: false,
        }
    }

    pub(crate) fn assert(&self, b: &Bool) {
        if let Some(s) = &self.simplifying {
            s.assert(b);
        }
        self.plain.assert(b);
    }

    /// Checks the assertions with what is left before `deadline`.
    pub(crate) fn check(&mut self, deadline: Instant) -> SatResult {
        if let Some(s) = &self.simplifying {
            let limit = crate::clock::Limit::capped(
                deadline,
                crate::clock::to_units(crate::budget::CONTEXT_SIMPLIFY),
            );
            let r = crate::clock::solve(s, limit, &[]);
            let gave_up = r == SatResult::Unknown
                && s.get_reason_unknown()
                    .is_some_and(|w| crate::clock::stopped(&w));
            if !gave_up || crate::cancel::expired(deadline) {
                self.answered_first = true;
                return r;
            }
        }
        self.answered_first = false;
        crate::clock::solve(
            &self.plain,
            crate::clock::Limit::until(deadline).on(self.engine),
            &[],
        )
    }

    fn last(&self) -> &Solver {
        match &self.simplifying {
            Some(s) if self.answered_first => s,
            _ => &self.plain,
        }
    }

    pub(crate) fn get_model(&self) -> Option<z3::Model> {
        self.last().get_model()
    }

    pub(crate) fn get_reason_unknown(&self) -> Option<String> {
        self.last().get_reason_unknown()
    }

    pub(crate) fn get_assertions(&self) -> Vec<Bool> {
        self.plain.get_assertions()
    }
}

/// Solves the equivalence query of `enc`: equivalent when unsatisfiable,
/// not equivalent when one of at most `max_candidates` models replays as a
/// real difference, unknown otherwise.
pub(crate) fn decide(
    pair: &MethodPair<'_>,
    enc: &PairEncoding,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
    max_candidates: usize,
) -> Verdict {
    let diff = match enc.difference() {
        Ok(d) => d,
        Err(e) => {
            let error = LowerError {
                kind: LowerErrorKind::Unsupported,
                what: e.what,
                span: new_fn.span,
            };
            return super::unsupported(&error, false);
        }
    };
    let strategy = strategy_for(pair, enc);
    let mut query: Vec<Bool> = enc.ufs.facts.clone();
    query.extend(enc.inputs.preconditions());
    query.push(Bool::and(&[
        enc.old.bound_exceeded.not(),
        enc.new.bound_exceeded.not(),
    ]));
    query.push(diff);
    let query = Bool::and(&query);
    let mut spurious: Option<String> = None;
    let mut undecided: Option<Verdict> = None;
    for case in query_cases(&query, enc, options) {
        if crate::cancel::expired(deadline) {
            return super::timeout(super::Phase::Solving, options.timeout_ms);
        }
        let mut solver = QuerySolver::new(strategy);
        solver.assert(&case);
        for attempt in 0..max_candidates {
            if crate::cancel::expired(deadline) {
                return super::timeout(super::Phase::Solving, options.timeout_ms);
            }
            match solver.check(deadline) {
                SatResult::Unsat => break,
                SatResult::Unknown => {
                    let why = solver.get_reason_unknown().unwrap_or_default();
                    if crate::clock::stopped(&why) || crate::cancel::expired(deadline) {
                        return super::timeout(super::Phase::Solving, options.timeout_ms);
                    }
                    let uses = enc.ufs.used.iter().cloned().collect::<Vec<_>>().join(", ");
                    let detail = if uses.is_empty() {
                        format!("solver: {why}")
                    } else {
                        format!("solver: {why} (nonlinear: {uses})")
                    };
                    undecided = Some(unknown(UnknownReason::SolverUnknown, detail));
                    break;
                }
                SatResult::Sat => {
                    let Some(model) = solver.get_model() else {
                        return unknown(UnknownReason::Internal, "solver returned no model");
                    };
                    let model = nicer_model(&solver, enc, deadline).unwrap_or(model);
                    match replay(pair, enc, &model, old_fn, new_fn, options, deadline) {
                        Ok(cex) => return Verdict::NotEquivalent(Box::new(cex)),
                        Err(reason) => spurious = Some(reason),
                    }
                    if attempt + 1 < max_candidates && crate::cancel::expired(deadline) {
                        return super::timeout(super::Phase::Replay, options.timeout_ms);
                    }
                    match model::block(&model, &enc.inputs) {
                        Some(b) if attempt + 1 < max_candidates => solver.assert(&b),
                        _ => break,
                    }
                }
            }
        }
    }
    if let Some(reason) = spurious {
        return unknown(
            UnknownReason::SpuriousCounterexample,
            format!("candidate counterexample did not replay: {reason}"),
        );
    }
    if let Some(v) = undecided {
        return v;
    }
    proved(enc, pair, options, deadline)
}

/// The query, split into cases that together cover every input.
///
/// Under `machine` semantics, bit-blasting loops whose trip count is a
/// symbolic input is slow (a sum in reverse order over an array: seconds
/// at bound 4, a timeout at 8), while each concrete count is easy once it
/// is substituted into the terms. So the query is split on the input that
/// controls the loops (see [`split_variable`]): `0, 1, …, k` (substituted)
/// and `> k`.
fn query_cases(query: &Bool, enc: &PairEncoding, options: &Options) -> Vec<Bool> {
    let whole = vec![query.clone()];
    if options.semantics != crate::ir::Semantics::Machine {
        return whole;
    }
    let vars = split_variables(enc);
    if vars.is_empty() {
        return whole;
    }
    let k = options.loop_bound.min(16) as i64;
    // Every combination of `v = 0..=k` or `v > k` for each split variable:
    // (substitutions, constraints).
    type Case = (Vec<(BV, BV)>, Vec<Bool>);
    let mut cases: Vec<Case> = vec![(Vec::new(), Vec::new())];
    for v in &vars {
        let w = v.get_size();
        let mut next = Vec::new();
        for (subst, constraints) in &cases {
            for j in 0..=k {
                let mut s = subst.clone();
                s.push((v.clone(), BV::from_i64(j, w)));
                next.push((s, constraints.clone()));
            }
            let mut c = constraints.clone();
            c.push(v.bvsgt(BV::from_i64(k, w)));
            next.push((subst.clone(), c));
        }
        cases = next;
    }
    cases
        .into_iter()
        .map(|(subst, mut constraints)| {
            let pairs: Vec<(&BV, &BV)> = subst.iter().map(|(a, b)| (a, b)).collect();
            let q = if pairs.is_empty() {
                query.clone()
            } else {
                normalize(&query.substitute(&pairs))
            };
            constraints.extend(subst.iter().map(|(v, value)| v.eq(value)));
            constraints.push(q);
            Bool::and(&constraints)
        })
        .collect()
}

/// The inputs (integer scalars first, then array lengths; at most two)
/// that bound the loops: those for which `0` makes "the bound is exceeded"
/// simplify to false. Reads only our own input constants and `simplify`'s
/// verdict.
fn split_variables(enc: &PairEncoding) -> Vec<BV> {
    let exceeded = Bool::or(&[&enc.old.bound_exceeded, &enc.new.bound_exceeded]);
    if exceeded.simplify().as_bool() == Some(false) {
        return Vec::new();
    }
    let lengths = enc.inputs.vars.iter().filter_map(|v| match v {
        InputVar::Array {
            len: Sym::Bv(l), ..
        } => Some(l.clone()),
        _ => None,
    });
    let scalars = enc.inputs.vars.iter().filter_map(|v| match v {
        InputVar::Scalar {
            value: Sym::Bv(b), ..
        } if b.get_size() >= 8 => Some(b.clone()),
        _ => None,
    });
    scalars
        .chain(lengths)
        .filter(|v| {
            let zero = BV::from_i64(0, v.get_size());
            exceeded.substitute(&[(v, &zero)]).simplify().as_bool() == Some(false)
        })
        .take(2)
        .collect()
}

/// Equivalent within the bound; find out whether the bound matters.
fn proved(
    enc: &PairEncoding,
    pair: &MethodPair<'_>,
    options: &Options,
    deadline: Instant,
) -> Verdict {
    // Array inputs being distinct objects is named by `check_pair` for
    // every checker (they all lay arrays out that way).
    let mut assumptions = Vec::new();
    if options.semantics == crate::ir::Semantics::Machine
        && pair.new_program.lang == crate::ir::Lang::C
        && options.signed_overflow == crate::ir::SignedOverflow::Wraps
    {
        assumptions.push(Assumption::SignedOverflowWraps);
    }
    // Calls outside the files are named by `check_pair`, checker-independently.
    let intrinsics: Vec<String> = enc
        .ufs
        .used
        .iter()
        .filter(|n| !n.starts_with("call "))
        .cloned()
        .collect();
    if !intrinsics.is_empty() {
        assumptions.push(Assumption::Uninterpreted(intrinsics));
    }
    let bounded = bound_exceeded(enc, pair, deadline) != SatResult::Unsat;
    Verdict::Equivalent(Proof {
        bounded: bounded.then_some(options.loop_bound),
        unrolled: None,
        assumptions,
        invariants: Vec::new(),
        partial: false,
        summaries: Vec::new(),
    })
}

/// Whether some input the entry admits runs a loop of either version past
/// the encoding's bound (or recursion past its depth): `Unsat` when every
/// loop provably exits within the bound on every path, so the encoding is
/// the versions' whole behaviour.
pub(crate) fn bound_exceeded(
    enc: &PairEncoding,
    pair: &MethodPair<'_>,
    deadline: Instant,
) -> SatResult {
    let exceeded = Bool::or(&[&enc.old.bound_exceeded, &enc.new.bound_exceeded]);
    if exceeded.simplify().as_bool() == Some(false) {
        return SatResult::Unsat;
    }
    let mut s = QuerySolver::new(strategy_for(pair, enc));
    for f in enc.ufs.facts.iter().chain(&enc.inputs.preconditions()) {
        s.assert(f);
    }
    s.assert(&exceeded);
    s.check(deadline)
}

/// A model with small input values, when one exists: easier to read.
fn nicer_model(solver: &QuerySolver, enc: &PairEncoding, deadline: Instant) -> Option<z3::Model> {
    let mut small = Vec::new();
    for v in &enc.inputs.vars {
        match v {
            InputVar::Scalar {
                value: Sym::Int(i), ..
            } => small.push(Bool::and(&[
                i.ge(Int::from_i64(-100)),
                i.le(Int::from_i64(100)),
            ])),
            InputVar::Scalar {
                value: Sym::Real(r),
                ..
            } => small.push(Bool::and(&[
                r.ge(crate::symbolic::ops::real_const(-100, 1)),
                r.le(crate::symbolic::ops::real_const(100, 1)),
            ])),
            InputVar::Scalar {
                value: Sym::Bv(b), ..
            } if b.get_size() > 8 => {
                let w = b.get_size();
                small.push(Bool::and(&[
                    b.bvsge(BV::from_i64(-100, w)),
                    b.bvsle(BV::from_i64(100, w)),
                ]))
            }
            InputVar::Array {
                len: Sym::Int(l), ..
            } => small.push(l.le(Int::from_i64(5))),
            InputVar::Array {
                len: Sym::Bv(l), ..
            } => small.push(l.bvsle(BV::from_i64(5, l.get_size()))),
            _ => {}
        }
    }
    if small.is_empty() {
        return None;
    }
    // A short look only: the plain model is already in hand. On a solver of
    // its own, so that the bounds do not stay on the main solver (which
    // checks again after a spurious candidate), and under `math` without
    // nlsat: bounding the reals of a nonlinear query sends it there, where
    // libz3 4.8.12 ignores interrupts.
    let look = Solver::new();
    if enc.ops.sem == crate::ir::Semantics::Math {
        let mut params = Params::new();
        params.set_bool("arith.nl.nra", false);
        look.set_params(&params);
    }
    for assertion in solver.get_assertions() {
        look.assert(&assertion);
    }
    look.assert(Bool::and(&small));
    let limit =
        crate::clock::Limit::capped(deadline, crate::clock::to_units(crate::budget::NICER_MODEL));
    if crate::clock::solve(&look, limit, &[]) == SatResult::Sat {
        look.get_model()
    } else {
        None
    }
}
