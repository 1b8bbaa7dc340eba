//! The full symbolic checker: both versions encoded whole (loops unrolled up
//! to the bound, calls inlined), one equivalence query, and every candidate
//! counterexample replayed on both versions by the interpreter before it is
//! reported.

use super::Assumption;
use super::counterexample::Runs;
use super::{
    Behaviour, Binding, Budget, Checker, CheckerKind, Counterexample, Decider, Decision,
    MethodPair, Options, Proof, Unknown, UnknownReason, Verdict, testing,
};
use crate::interp::{self, Comparison, Execution, LimitKind, Limits, Outcome};
use crate::ir::{Function, LowerError, LowerErrorKind, Program};
use crate::symbolic::ops::{Ops, Sym, normalize};
use crate::symbolic::{self, InputVar, PairEncoding, model};
use crate::value::Value;
use std::time::{Duration, Instant};
use z3::ast::{Ast, BV, Bool, Int};
use z3::{Params, SatResult, Solver};

/// Work the context-simplifying strategy gets before the plain one.
/// Work the search for a model with small inputs gets.
const NICER_MODEL_UNITS: u64 = 500 * crate::clock::UNITS_PER_MS;
const CONTEXT_SIMPLIFY_UNITS: u64 = 400 * crate::clock::UNITS_PER_MS;

/// Candidate counterexamples tried before giving up on a satisfiable query.
pub(crate) const MAX_CANDIDATES: usize = 4;

pub struct SymbolicChecker;

impl Checker for SymbolicChecker {
    fn kind(&self) -> CheckerKind {
        CheckerKind::Symbolic
    }

    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let deadline = budget.deadline;
        let (old_fn, new_fn) = match bodies(pair) {
            Ok(b) => b,
            Err(v) => return Decision::plain(v, Decider::Symbolic),
        };
        if let Some(cex) = test_concretely(pair, old_fn, new_fn, options, deadline) {
            return Decision::plain(Verdict::NotEquivalent(Box::new(cex)), Decider::Testing);
        }
        if crate::cancel::expired(deadline) {
            return Decision::plain(
                super::timeout(super::Phase::Testing, options.timeout_ms),
                Decider::Symbolic,
            );
        }
        let enc = match encode(pair, old_fn, new_fn, options, deadline, None) {
            Ok(enc) => enc,
            Err(v) => return Decision::plain(v, Decider::Symbolic),
        };
        let verdict = decide(
            pair,
            &enc,
            old_fn,
            new_fn,
            options,
            deadline,
            MAX_CANDIDATES,
        );
        Decision::plain(verdict, Decider::Symbolic)
    }
}

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
    let ops = Ops {
        sem: options.semantics,
        lang: pair.new_program.lang,
        signed_overflow: options.signed_overflow,
    };
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

/// The solver configuration for a pair. Under `machine` semantics Z3's
/// default strategy is an order of magnitude slower on arrays of
/// bit-vectors than the array/bit-vector logic (measured on the fixtures:
/// 10 s timeout vs 0.3 s); floating point needs the logic with FP.
pub(crate) fn logic_for(enc: &PairEncoding, old: &Program, new: &Program) -> Option<&'static str> {
    match enc.ops.sem {
        crate::ir::Semantics::Math => None,
        crate::ir::Semantics::Machine if uses_floats(old) || uses_floats(new) => Some("QF_ABVFP"),
        crate::ir::Semantics::Machine => Some("QF_ABV"),
    }
}

fn uses_floats(p: &Program) -> bool {
    fn float(t: &crate::ir::Type) -> bool {
        match t {
            crate::ir::Type::Float(_) => true,
            crate::ir::Type::Array(e) => float(e),
            _ => false,
        }
    }
    p.globals.iter().any(|g| float(&g.ty))
        || p.functions
            .iter()
            .filter_map(|f| f.body.as_ref().ok())
            .any(|f| float(&f.ret) || f.locals.iter().any(|l| float(&l.ty)))
}

/// A solver for the equivalence query. For `QF_ABV`, context-dependent
/// simplification first: a case assumption such as `n > k` then resolves
/// the conditions it implies, which leaves reordered sums syntactically
/// equal. It gets at most `CONTEXT_SIMPLIFY_UNITS` per check, so that
/// formulas it does not help with still get the plain strategy with what
/// is left.
pub(crate) struct QuerySolver {
    simplifying: Option<Solver>,
    plain: Solver,
    /// Which solver gave the last answer (its model, its reason).
    answered_first: bool,
}

impl QuerySolver {
    pub(crate) fn new(logic: Option<&str>) -> QuerySolver {
        let (simplifying, plain) = match logic {
            Some("QF_ABV") => (
                Some(
                    z3::Tactic::new("simplify")
                        .and_then(&z3::Tactic::new("propagate-values"))
                        .and_then(&z3::Tactic::new("ctx-simplify"))
                        .and_then(&z3::Tactic::new("simplify"))
                        .and_then(&z3::Tactic::new("qfaufbv"))
                        .solver(),
                ),
                z3::Tactic::new("qfaufbv").solver(),
            ),
            Some(l) => (None, Solver::new_for_logic(l).unwrap_or_default()),
            None => (None, Solver::new()),
        };
        QuerySolver {
            simplifying,
            plain,
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
            let limit = crate::clock::Limit::capped(deadline, CONTEXT_SIMPLIFY_UNITS);
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
        crate::clock::solve(&self.plain, crate::clock::Limit::until(deadline), &[])
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
    let logic = logic_for(enc, pair.old_program, pair.new_program);
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
        let mut solver = QuerySolver::new(logic);
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
    let exceeded = Bool::or(&[&enc.old.bound_exceeded, &enc.new.bound_exceeded]);
    let bounded = match exceeded.simplify().as_bool() {
        Some(false) => false,
        _ => {
            let mut s = QuerySolver::new(logic_for(enc, pair.old_program, pair.new_program));
            for f in enc.ufs.facts.iter().chain(&enc.inputs.preconditions()) {
                s.assert(f);
            }
            s.assert(&exceeded);
            s.check(deadline) != SatResult::Unsat
        }
    };
    Verdict::Equivalent(Proof {
        bounded: bounded.then_some(options.loop_bound),
        assumptions,
        invariants: Vec::new(),
        partial: false,
        summaries: Vec::new(),
    })
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
    let limit = crate::clock::Limit::capped(deadline, NICER_MODEL_UNITS);
    if crate::clock::solve(&look, limit, &[]) == SatResult::Sat {
        look.get_model()
    } else {
        None
    }
}

/// Runs both versions on the model's inputs; a counterexample only if the
/// interpreter sees a real difference.
fn replay(
    pair: &MethodPair<'_>,
    enc: &PairEncoding,
    model: &z3::Model,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
) -> Result<Counterexample, String> {
    let arity = new_fn.params.len();
    let (mut inputs, named) = model::read_inputs(model, &enc.ops, &enc.inputs, arity)?;
    let named: Vec<Binding> = named
        .into_iter()
        .map(|(name, value)| Binding {
            name: input_label(&name, old_fn, new_fn),
            value,
        })
        .collect();
    // A little grace past the check's deadline: a candidate in hand is
    // worth finishing.
    let limits = Limits {
        deadline: Some(deadline + Duration::from_secs(1)),
        ..Limits::default()
    };
    // Calls outside the files do what the model says their uninterpreted
    // functions do, the same for both versions: each run that meets a call
    // without a stub gets one from the model and starts again. A
    // difference that shows only with the callees behaving as the model
    // says need not be one for the real callees (a JDK method the model
    // lets throw never does): `Counterexample::replayed` refuses runs that
    // used a stub.
    for _ in 0..MAX_CALLEE_STUBS {
        match run_both(pair, &inputs, named.clone(), options, &limits) {
            Err(Unreplayed::Unseen(call)) => {
                let stub = model::callee_stub(model, &enc.ops, &enc.ufs, &enc.strings, &call)?;
                inputs.callees.push(stub);
            }
            Err(Unreplayed::No(why)) => return Err(why),
            Ok(cex) => return Ok(cex),
        }
    }
    Err("too many calls outside the files to replay".into())
}

/// Distinct calls outside the files one replay may stub.
const MAX_CALLEE_STUBS: usize = 64;

/// Why running both versions gave no counterexample.
enum Unreplayed {
    /// A call outside the files without a stub.
    Unseen(crate::interp::UnseenCall),
    /// They behave the same, or a run was inconclusive (the reason).
    No(String),
}

/// Runs both versions on `inputs` and keeps a real difference.
fn run_both(
    pair: &MethodPair<'_>,
    inputs: &interp::Inputs,
    named: Vec<Binding>,
    options: &Options,
    limits: &Limits,
) -> Result<Counterexample, Unreplayed> {
    let old = interp::execute(
        pair.old_program,
        pair.old,
        inputs,
        options.semantics,
        options.signed_overflow,
        limits,
    );
    let new = interp::execute(
        pair.new_program,
        pair.new,
        inputs,
        options.semantics,
        options.signed_overflow,
        limits,
    );
    if let Some(call) = old.unseen_call.clone().or_else(|| new.unseen_call.clone()) {
        return Err(Unreplayed::Unseen(call));
    }
    let globals = crate::symbolic::observable_globals(
        (pair.old_program, pair.old),
        (pair.new_program, pair.new),
    );
    let differences = match interp::compare(&old, &new, &globals) {
        Comparison::Differ(differences) => differences,
        Comparison::Same => {
            return Err(Unreplayed::No("both versions behave the same on it".into()));
        }
        Comparison::Inconclusive(why) => return Err(Unreplayed::No(why)),
    };
    // Entry values of globals neither version touches (e.g. Java instance
    // fields when a static method is checked) are noise.
    let inputs_shown = named
        .into_iter()
        .filter(|b| relevant_input(pair, inputs, &b.name))
        .collect();
    Counterexample::replayed(
        inputs_shown,
        Runs {
            old: &old,
            new: &new,
        },
        behaviour(&old, &globals, &new),
        behaviour(&new, &globals, &old),
        differences,
    )
    .map_err(Unreplayed::No)
}

/// The input generator, budget and interpreter limits of a concrete test
/// run over the pair (`None` when a parameter type has no generator).
fn test_setup(
    pair: &MethodPair<'_>,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
) -> Option<(testing::InputGen, testing::Budget, Limits)> {
    let generator = testing::InputGen::new(
        pair.old_program,
        pair.new_program,
        old_fn,
        new_fn,
        options.semantics,
    )?;
    let budget = testing::Budget::default();
    let limits = Limits {
        max_steps: 20_000,
        max_call_depth: 64,
        max_array_len: 1 << 16,
        deadline: Some((crate::clock::now() + budget.time).min(deadline)),
    };
    Some((generator, budget, limits))
}

/// Edge cases and pseudo-random inputs through the interpreter, before any
/// solving (see [`super::testing`]).
pub(crate) fn test_concretely(
    pair: &MethodPair<'_>,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
) -> Option<Counterexample> {
    let (mut generator, budget, limits) = test_setup(pair, old_fn, new_fn, options, deadline)?;
    testing::search(&mut generator, &budget, |inputs| {
        let mut named: Vec<Binding> = inputs
            .args
            .iter()
            .enumerate()
            .map(|(pos, v)| Binding {
                name: input_label(&format!("arg{pos}"), old_fn, new_fn),
                value: v.clone(),
            })
            .collect();
        named.extend(inputs.globals.iter().map(|(g, v)| Binding {
            name: g.clone(),
            value: v.clone(),
        }));
        // Calls outside the files are not run concretely: such inputs
        // are inconclusive here.
        run_both(pair, inputs, named, options, &limits).ok()
    })
}

/// Integer inputs up to this magnitude are "small" for
/// [`termination_difference`].
const SMALL_INPUT: u32 = 16;

/// An input on which one version returns and the other does not finish
/// within the interpreter's limits, in words — evidence (not proof) that
/// the versions differ in termination, for proofs that hold only where
/// both terminate.
pub(crate) fn termination_difference(
    pair: &MethodPair<'_>,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
) -> Option<Assumption> {
    // Its own testing budget only: it runs after a proof, which it
    // qualifies (the proof stands without it).
    let own = crate::clock::now() + testing::Budget::default().time;
    let (mut generator, budget, limits) = test_setup(pair, old_fn, new_fn, options, own)?;
    // Only small inputs: on large ones a deep but finite recursion hits
    // the call depth limit too, and that is no evidence.
    let small = |v: &Value| match v {
        Value::Int(i) => i.magnitude() <= &num_bigint::BigUint::from(SMALL_INPUT),
        Value::Array(_) => false,
        _ => true,
    };
    testing::search(&mut generator, &budget, |inputs| {
        if !inputs.args.iter().chain(inputs.globals.values()).all(small) {
            return None;
        }
        let run = |p, f| {
            interp::execute(
                p,
                f,
                inputs,
                options.semantics,
                options.signed_overflow,
                &limits,
            )
            .outcome
        };
        let (old, new) = (
            run(pair.old_program, pair.old),
            run(pair.new_program, pair.new),
        );
        let (stuck, done, outcome, limit) = match (&old, &new) {
            (Outcome::Limit(l), Outcome::Return(_)) => ("old", "new", &new, l),
            (Outcome::Return(_), Outcome::Limit(l)) => ("new", "old", &old, l),
            _ => return None,
        };
        if !matches!(limit, LimitKind::Steps | LimitKind::CallDepth) {
            return None;
        }
        let mut named: Vec<String> = inputs
            .args
            .iter()
            .enumerate()
            .map(|(pos, v)| {
                format!(
                    "{} = {v}",
                    input_label(&format!("arg{pos}"), old_fn, new_fn)
                )
            })
            .collect();
        named.extend(inputs.globals.iter().map(|(g, v)| format!("{g} = {v}")));
        Some(Assumption::TerminationDiffers(format!(
            "{} the {stuck} version {} (interpreter) while the {done} one {}",
            named.join(", "),
            limit.describe(),
            super::describe_outcome(outcome)
        )))
    })
}

/// What one version did; state lists the globals and array arguments whose
/// final values differ between the versions.
fn behaviour(this: &Execution, globals: &[String], other: &Execution) -> Behaviour {
    let mut state = Vec::new();
    for g in globals {
        let (a, b) = (this.globals_final.get(g), other.globals_final.get(g));
        if let Some(a) = a
            && a != b.unwrap_or(&Value::Void)
        {
            state.push(Binding {
                name: g.clone(),
                value: a.clone(),
            });
        }
    }
    for (i, (a, b)) in this.args_final.iter().zip(&other.args_final).enumerate() {
        if matches!(a, Value::Array(_)) && a != b {
            state.push(Binding {
                name: format!("argument {i}"),
                value: a.clone(),
            });
        }
    }
    Behaviour {
        outcome: this.outcome.clone(),
        state,
        output: this.output_text.clone(),
        trace: this.trace.clone(),
    }
}

/// `arg1` → the parameter's name (`b`, or `b (old: y)` when renamed);
/// `g.count` → `count`.
/// Whether a counterexample input named `label` matters: a parameter, or
/// a global that either version touches (entry values of the others, such
/// as Java instance fields when a static method is checked, are noise).
fn relevant_input(pair: &MethodPair<'_>, inputs: &interp::Inputs, label: &str) -> bool {
    let (Ok(old_fn), Ok(new_fn)) = (
        &pair.old_program.function(pair.old).body,
        &pair.new_program.function(pair.new).body,
    ) else {
        return true;
    };
    let is_param = (0..inputs.args.len())
        .any(|pos| input_label(&format!("arg{pos}"), old_fn, new_fn) == label);
    let is_global = pair.old_program.find_global(label).is_some()
        || pair.new_program.find_global(label).is_some();
    is_param
        || !is_global
        || pair.old_program.uses_global(pair.old, label)
        || pair.new_program.uses_global(pair.new, label)
}

fn input_label(name: &str, old_fn: &Function, new_fn: &Function) -> String {
    if let Some(pos) = name
        .strip_prefix("arg")
        .and_then(|p| p.parse::<usize>().ok())
    {
        let param = |f: &Function| f.params.get(pos).map(|p| f.local(*p).name.clone());
        return match (param(old_fn), param(new_fn)) {
            (Some(o), Some(n)) if o != n => format!("{n} (old: {o})"),
            (_, Some(n)) => n,
            (Some(o), None) => o,
            _ => name.to_string(),
        };
    }
    symbolic::display_name(name).to_string()
}

#[cfg(test)]
mod tests {
    //! Encoder-level tests on hand-built IR (no front end, no replay): the
    //! proof side of the checker. Counterexample replay is covered by the
    //! fixture suite.
    use super::*;
    use crate::check::{CheckerKind, MethodPair, Options};
    use crate::ir::*;

    fn sp() -> Span {
        Span::default()
    }
    fn e(kind: ExprKind, ty: Type) -> Expr {
        Expr {
            kind,
            ty,
            span: sp(),
        }
    }
    fn local(i: u32) -> Expr {
        e(ExprKind::Local(LocalId(i)), Type::INT)
    }
    fn int(v: i128) -> Expr {
        e(ExprKind::IntLit(v), Type::INT)
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        let ty = if op.is_comparison() {
            Type::Bool
        } else {
            Type::INT
        };
        e(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
    }
    fn st(kind: StmtKind) -> Stmt {
        Stmt { kind, span: sp() }
    }
    fn program(params: u32, extra_locals: u32, body: Block) -> Program {
        let locals = (0..params + extra_locals)
            .map(|i| Local {
                name: format!("v{i}"),
                ty: Type::INT,
                kind: if i < params {
                    LocalKind::Param
                } else {
                    LocalKind::Var
                },
                span: sp(),
            })
            .collect();
        let f = Function {
            name: "f".into(),
            params: (0..params).map(LocalId).collect(),
            locals,
            ret: Type::INT,
            body,
            span: sp(),
            name_span: sp(),
        };
        Program {
            lang: Lang::Java,
            functions: vec![FunctionDef {
                name: "f".into(),
                arity: params as usize,
                span: sp(),
                name_span: sp(),
                body: Ok(f),
                synthetic: false,
                param_types: Vec::new(),
                owner: Vec::new(),
            }],
            globals: vec![],
            class_parents: Vec::new(),
            syntax_errors: Vec::new(),
            cache: Default::default(),
        }
    }
    fn check(old: &Program, new: &Program, semantics: Semantics) -> Verdict {
        let pair = MethodPair {
            name: "f",
            old_program: old,
            old: FuncId(0),
            new_program: new,
            new: FuncId(0),
        };
        let options = Options {
            semantics,
            checker: CheckerKind::Symbolic,
            loop_bound: 4,
            timeout_ms: 10_000,
            overrides: Vec::new(),
            ..Options::default()
        };
        SymbolicChecker
            .check(&pair, &options, Budget::from_now(options.timeout_ms))
            .verdict
    }
    fn ret(x: Expr) -> Stmt {
        st(StmtKind::Return(Some(x)))
    }

    #[test]
    fn commuted_addition_is_proved_under_both_semantics() {
        let old = program(2, 0, vec![ret(bin(BinOp::Add, local(0), local(1)))]);
        let new = program(2, 0, vec![ret(bin(BinOp::Add, local(1), local(0)))]);
        for sem in [Semantics::Math, Semantics::Machine] {
            assert_eq!(
                check(&old, &new, sem),
                Verdict::Equivalent(Proof {
                    bounded: None,
                    assumptions: vec![],
                    invariants: Vec::new(),
                    partial: false,
                    summaries: Vec::new(),
                })
            );
        }
    }

    #[test]
    fn division_guard_and_truncation() {
        // x / 2 * 2 + x % 2 == x for all x (truncating division).
        let q = bin(BinOp::Mul, bin(BinOp::Div, local(0), int(2)), int(2));
        let old = program(
            1,
            0,
            vec![ret(bin(BinOp::Add, q, bin(BinOp::Rem, local(0), int(2))))],
        );
        let new = program(1, 0, vec![ret(local(0))]);
        for sem in [Semantics::Math, Semantics::Machine] {
            assert!(check(&old, &new, sem).is_proved(), "{sem}");
        }
    }

    #[test]
    fn constant_loop_is_fully_unrolled_and_symbolic_loop_is_bounded() {
        // s = 0; i = 0; while (i < 10) { s = s + i; i = i + 1 } return s;  vs return 45
        let loop_of = |bound: Expr| {
            vec![
                st(StmtKind::Assign {
                    place: Place::Local(LocalId(1)),
                    value: int(0),
                }),
                st(StmtKind::Assign {
                    place: Place::Local(LocalId(2)),
                    value: int(0),
                }),
                st(StmtKind::Loop {
                    label: LabelId(0),
                    kind: LoopKind::While,
                    cond: bin(BinOp::Lt, local(2), bound),
                    body: vec![st(StmtKind::Assign {
                        place: Place::Local(LocalId(1)),
                        value: bin(BinOp::Add, local(1), local(2)),
                    })],
                    step: vec![st(StmtKind::Assign {
                        place: Place::Local(LocalId(2)),
                        value: bin(BinOp::Add, local(2), int(1)),
                    })],
                }),
                ret(local(1)),
            ]
        };
        let old = program(1, 2, loop_of(int(10)));
        let new = program(1, 2, vec![ret(int(45))]);
        assert!(check(&old, &new, Semantics::Math).is_proved());
        // Same loop to a symbolic bound against itself with the operands
        // swapped: equivalent, but only up to the bound.
        let old = program(1, 2, loop_of(local(0)));
        let mut swapped = loop_of(local(0));
        if let StmtKind::Loop { body, .. } = &mut swapped[2].kind {
            body[0] = st(StmtKind::Assign {
                place: Place::Local(LocalId(1)),
                value: bin(BinOp::Add, local(2), local(1)),
            });
        }
        let new = program(1, 2, swapped);
        match check(&old, &new, Semantics::Math) {
            Verdict::Equivalent(p) => assert_eq!(p.bounded, Some(4)),
            v => panic!("expected a bounded proof, got {v:?}"),
        }
    }
}
