//! Candidate invariants fitted to concrete states, in the manner of
//! Sharma et al., "A Data Driven Approach for Algebraic Loop Invariants"
//! (ESOP 2013): the clauses are run forward on concrete values — an
//! entering clause with its inputs pinned to drawn numbers, each later
//! step one Z3 query from one concrete state — and the states each
//! relation is seen to hold are fitted with
//! - every polynomial equality of degree at most 2 they all satisfy (the
//!   null space of the matrix of their monomials, exact over ℚ, with
//!   integer coefficients): `2·s = i² − i` for a running sum, which no
//!   linear candidate and no linear CHC solver expresses;
//! - the octagon around them, `c ≤ p`, `p ≤ c` and `p − q ≤ c` at the
//!   extremes seen, also as "or not moved yet": the bound (`i ≤ n + 1 ∨
//!   i = 1`) that turns such an equality into the loop's result at its
//!   exit;
//! - congruences (`(old.x − new.x) mod 10 = 0` for a loop that subtracts
//!   10 against `x % 10`);
//! - the bounds the clause entering the loop allows (a guard before it).
//!
//! They are guesses from finitely many runs, so Houdini keeps only those
//! the clauses preserve: a fitted candidate never makes a proof unsound,
//! it only costs queries. Over bit-vectors an integer polynomial identity
//! holds modulo 2^w as well, so the same candidates apply there (on the
//! signed or unsigned reading of each value, as the variable has it),
//! stated where possible as the definition of one variable by the others
//! (`hi = n − 1 − lo`), which Z3 eliminates before bit-blasting.

use super::encode::{Clause, Encoding, Relation};
use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::VecDeque;
use std::time::Instant;
use z3::ast::{Ast, BV, Bool, Dynamic, Int};
use z3::{SatResult, Solver};

/// Entry states drawn per entering clause.
const ENTRIES: usize = 12;
/// States kept per relation; a loop beyond it is sampled no further.
const MAX_STATES: usize = 80;
/// Numeric parameters a relation may have to be fitted: the monomials of
/// degree 2 grow with the square, and the runs needed to pin them down
/// with them.
const MAX_FITTED: usize = 12;
/// The ranges the inputs pinned at entry are drawn from, in turn: small
/// numbers, where loops bounded by them run to their end within
/// [`MAX_STATES`] and a guard's other side is seen; and larger ones, for
/// loops that only start beyond a threshold (`while (x >= 10)`).
const RANGES: [(i64, i64); 2] = [(-4, 12), (-60, 150)];
/// One solver call of the sampling, in milliseconds (a step from a
/// concrete state is a ground query, usually far below it).
const STEP_CAP_MS: u128 = 200;

/// Per relation, the candidates fitted to its states.
pub fn candidates(enc: &Encoding, deadline: Instant) -> Vec<Fit> {
    let states = sample(enc, deadline);
    enc.relations
        .iter()
        .zip(&states)
        .map(|(rel, s)| {
            let mut fit = fit(rel, s);
            fit.linear.extend(entry_bounds(enc, rel, deadline));
            fit
        })
        .collect()
}

/// `p ≤ c` and `c ≤ p` for the extremes the clause entering `rel` allows
/// each numeric argument (by optimisation; none where it is unbounded,
/// or at the extreme of its sort): a guard before the loop (`n > 10000`
/// returns early) bounds a variable far beyond the values the runs try.
fn entry_bounds(enc: &Encoding, rel: &Relation, deadline: Instant) -> Vec<Bool> {
    let entering: Vec<&Clause> = enc
        .clauses
        .iter()
        .filter(|c| {
            matches!(&c.head, Some((k, _)) if *k == rel.index)
                && !enc
                    .relations
                    .iter()
                    .any(|r| super::houdini::mentions(&c.body, &r.application))
        })
        .collect();
    let [clause] = entering.as_slice() else {
        return Vec::new();
    };
    let Some((_, args)) = &clause.head else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in numeric(rel) {
        let (Some(p), Some(a)) = (rel.params.get(i), args.get(i)) else {
            continue;
        };
        if crate::cancel::expired(deadline) {
            break;
        }
        for upper in [true, false] {
            let Some(c) = extreme(
                clause,
                a,
                rel.unsigned.get(i).copied().unwrap_or(false),
                upper,
            ) else {
                continue;
            };
            if let Some(x) = p.as_int() {
                let c = Int::from_big_int(&c);
                out.push(if upper { x.le(&c) } else { c.le(&x) });
            } else if let Some(x) = p.as_bv() {
                let Some(c) = c.to_i64() else {
                    continue;
                };
                let c = BV::from_i64(c, x.get_size());
                let unsigned = rel.unsigned.get(i).copied().unwrap_or(false);
                let (a, b) = if upper { (&x, &c) } else { (&c, &x) };
                out.push(if unsigned { a.bvule(b) } else { a.bvsle(b) });
            }
        }
    }
    out
}

/// The largest (or smallest) value of `arg` the clause allows, unless it
/// is unbounded or the extreme of its sort.
fn extreme(clause: &Clause, arg: &Dynamic, unsigned: bool, upper: bool) -> Option<BigInt> {
    let mut params = z3::Params::new();
    params.set_u32("timeout", u32::try_from(STEP_CAP_MS).unwrap_or(200));
    // First the cheap question, one ground query: can the argument lie
    // far out (beyond ±2^40, or a quarter of its bit-vector range)? Then
    // it is unbounded for this purpose, and the optimiser, which may
    // search until its timeout on an unbounded objective, is not asked.
    let far: Bool = if let Some(x) = arg.as_int() {
        let big = Int::from_i64(1 << 40);
        if upper {
            x.gt(&big)
        } else {
            x.lt(big.unary_minus())
        }
    } else if let Some(b) = arg.as_bv() {
        let w = b.get_size();
        if w < 4 {
            return None;
        }
        let quarter = BV::from_u64(1, w).bvshl(BV::from_u64(u64::from(w) - 2, w));
        match (unsigned, upper) {
            (true, true) => b.bvuge(&quarter),
            (true, false) => return None,
            (false, true) => b.bvsge(&quarter),
            (false, false) => b.bvsle(quarter.bvneg()),
        }
    } else {
        return None;
    };
    if !excludes(clause, &far, &params) {
        return None;
    }
    let opt = z3::Optimize::new();
    opt.set_params(&params);
    for h in &clause.hypotheses {
        opt.assert(h);
    }
    opt.assert(&clause.body);
    // Over bit-vectors the objective is unsigned: a signed value flips its
    // sign bit to be ordered as such.
    let objective: Dynamic = match (arg.as_int(), arg.as_bv()) {
        (Some(x), _) => Dynamic::from_ast(&x),
        (_, Some(b)) if unsigned => Dynamic::from_ast(&b),
        (_, Some(b)) => {
            let w = b.get_size();
            let sign = BV::from_u64(1, w).bvshl(BV::from_u64(u64::from(w) - 1, w));
            Dynamic::from_ast(&b.bvxor(&sign))
        }
        _ => return None,
    };
    if upper {
        opt.maximize(&objective);
    } else {
        opt.minimize(&objective);
    }
    if opt.check(&[]) != SatResult::Sat {
        return None;
    }
    let model = opt.get_model()?;
    let value = model.eval(arg, true)?;
    if let Some(v) = value.as_int() {
        // An unbounded objective leaves the model at some finite value:
        // confirm that nothing lies beyond it.
        let v = BigInt::from(v.as_i64()?);
        let beyond = if upper {
            arg.as_int()?.gt(Int::from_big_int(&v))
        } else {
            arg.as_int()?.lt(Int::from_big_int(&v))
        };
        return excludes(clause, &beyond, &params).then_some(v);
    }
    let b = value.as_bv()?;
    let w = b.get_size();
    let v = reading(w, b.as_u64()?, unsigned);
    // The sort's own extreme bounds nothing.
    let limit = if unsigned {
        if upper {
            (BigInt::one() << w) - 1
        } else {
            BigInt::zero()
        }
    } else if upper {
        (BigInt::one() << (w - 1)) - 1
    } else {
        -(BigInt::one() << (w - 1))
    };
    (v != limit).then_some(v)
}

/// Whether `clause` admits no state where `condition` holds (an unknown
/// answer is "it may").
fn excludes(clause: &Clause, condition: &Bool, params: &z3::Params) -> bool {
    let solver = Solver::new();
    solver.set_params(params);
    for h in &clause.hypotheses {
        solver.assert(h);
    }
    solver.assert(&clause.body);
    solver.assert(condition);
    solver.check() == SatResult::Unsat
}

/// The integer the low `width` bits of `bits` stand for, read signed or
/// unsigned.
pub(super) fn reading(width: u32, bits: u64, unsigned: bool) -> BigInt {
    if unsigned || width == 0 || width > 64 {
        return BigInt::from(bits);
    }
    let shift = 64 - width;
    BigInt::from(((bits << shift) as i64) >> shift)
}

/// A relation's state: the values of its parameters (model values).
type State = Vec<Dynamic>;

/// A state seen, and whether a step of the relation's own loop reached it
/// (rather than a clause entering the relation).
struct Seen {
    state: State,
    moved: bool,
}

/// The states the relations are seen to hold: entry states with pinned
/// inputs, then their successors, breadth first, within [`MAX_STATES`]
/// per relation and the deadline.
fn sample(enc: &Encoding, deadline: Instant) -> Vec<Vec<Seen>> {
    let mut states: Vec<Vec<Seen>> = (0..enc.relations.len()).map(|_| Vec::new()).collect();
    if enc.relations.iter().any(|r| numeric(r).len() > MAX_FITTED) {
        return states;
    }
    let applied = |c: &Clause| {
        enc.relations
            .iter()
            .position(|r| super::houdini::mentions(&c.body, &r.application))
    };
    let mut work: VecDeque<(usize, usize)> = VecDeque::new();
    let mut seed = Seed(0x9e37_79b9_7f4a_7c15);
    for clause in &enc.clauses {
        let Some((k, args)) = &clause.head else {
            continue;
        };
        if applied(clause).is_some() {
            continue;
        }
        for n in 0..ENTRIES {
            let range = RANGES[n % RANGES.len()];
            let Some(state) = entry_state(clause, args, &mut seed, range, deadline) else {
                break;
            };
            add(&mut states, &mut work, *k, state, false);
        }
    }
    // Per clause with a relation in its body and in its head: which
    // relation it steps from, and a solver holding the clause (each step
    // asks it under the state's values as assumptions).
    let steps: Vec<(usize, &Clause, Solver)> = enc
        .clauses
        .iter()
        .filter(|c| c.head.is_some())
        .filter_map(|c| {
            let j = applied(c)?;
            let rel = enc.relations.get(j)?;
            let solver = Solver::new();
            for h in c.hypotheses.iter().chain(&c.interpreted) {
                solver.assert(h);
            }
            solver.assert(
                c.body
                    .substitute(&[(&rel.application, &Bool::from_bool(true))]),
            );
            Some((j, c, solver))
        })
        .collect();
    while let Some((j, at)) = work.pop_front() {
        if crate::cancel::expired(deadline) {
            break;
        }
        let Some(state) = states
            .get(j)
            .and_then(|s| s.get(at))
            .map(|s| s.state.clone())
        else {
            continue;
        };
        for (from, clause, solver) in &steps {
            let Some((k, args)) = &clause.head else {
                continue;
            };
            if *from != j || states.get(*k).is_none_or(|s| s.len() >= MAX_STATES) {
                continue;
            }
            if let Some(next) = step(enc, solver, j, &state, args, deadline) {
                add(&mut states, &mut work, *k, next, *k == j);
            }
        }
    }
    states
}

fn add(
    states: &mut [Vec<Seen>],
    work: &mut VecDeque<(usize, usize)>,
    k: usize,
    state: State,
    moved: bool,
) {
    let Some(seen) = states.get_mut(k) else {
        return;
    };
    let same = |a: &Seen| {
        a.state
            .iter()
            .zip(&state)
            .all(|(x, y)| x.get_z3_ast() == y.get_z3_ast())
    };
    if seen.len() < MAX_STATES && !seen.iter().any(same) {
        seen.push(Seen { state, moved });
        work.push_back((k, seen.len() - 1));
    }
}

/// A deterministic generator of the pinned inputs (splitmix64): the same
/// pair samples the same states every run.
struct Seed(u64);

impl Seed {
    fn next(&mut self, low: i64, high: i64) -> i64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let span = u64::try_from(high - low + 1).unwrap_or(1);
        low + i64::try_from(z % span).unwrap_or(0)
    }
}

fn capped(deadline: Instant) -> Option<(Solver, crate::clock::Limit)> {
    super::cases::capped_solver(deadline, STEP_CAP_MS)
}

/// A state the entering `clause` gives, its numeric arguments pinned to
/// drawn values one by one where the clause allows them (an argument the
/// clause fixes, `i = 0`, keeps its value).
fn entry_state(
    clause: &Clause,
    args: &[Dynamic],
    seed: &mut Seed,
    (low, high): (i64, i64),
    deadline: Instant,
) -> Option<State> {
    let (solver, limit) = capped(deadline)?;
    for h in clause.hypotheses.iter().chain(&clause.interpreted) {
        solver.assert(h);
    }
    solver.assert(&clause.body);
    for a in args {
        let value = seed.next(low, high);
        let pin = if let Some(i) = a.as_int() {
            i.eq(Int::from_i64(value))
        } else if let Some(b) = a.as_bv() {
            b.eq(BV::from_i64(value, b.get_size()))
        } else {
            continue;
        };
        solver.push();
        solver.assert(&pin);
        if crate::clock::solve(&solver, limit, &[]) != SatResult::Sat {
            solver.pop(1);
        }
    }
    if crate::clock::solve(&solver, limit, &[]) != SatResult::Sat {
        return None;
    }
    let model = solver.get_model()?;
    args.iter().map(|a| model.eval(a, true)).collect()
}

/// The state the clause `solver` holds leads to from `state` of relation
/// `j` (its head arguments `args`); `None` when the clause does not apply
/// there (its guard is false) or Z3 does not answer within the cap.
fn step(
    enc: &Encoding,
    solver: &Solver,
    j: usize,
    state: &State,
    args: &[Dynamic],
    deadline: Instant,
) -> Option<State> {
    let rel = enc.relations.get(j)?;
    if crate::cancel::expired(deadline) {
        return None;
    }
    let limit = crate::clock::Limit::capped(
        deadline,
        crate::clock::to_units(std::time::Duration::from_millis(
            u64::try_from(STEP_CAP_MS).unwrap_or(u64::MAX),
        )),
    );
    // Arrays are left free: their model values may name functions of the
    // model that another solver does not know.
    let at: Vec<Bool> = rel
        .params
        .iter()
        .zip(state)
        .filter(|(p, _)| p.as_array().is_none())
        .map(|(p, v)| p.eq(v))
        .collect();
    if crate::clock::solve(solver, limit, &at) != SatResult::Sat {
        return None;
    }
    let model = solver.get_model()?;
    args.iter().map(|a| model.eval(a, true)).collect()
}

/// The parameters fitted: integers and bit-vectors of at most 64 bits.
fn numeric(rel: &Relation) -> Vec<usize> {
    rel.params
        .iter()
        .enumerate()
        .filter(|(_, p)| p.as_int().is_some() || p.as_bv().is_some_and(|b| b.get_size() <= 64))
        .map(|(i, _)| i)
        .collect()
}

/// The integer a model value stands for (a bit-vector read as the
/// variable is: signed or unsigned).
fn integer(rel: &Relation, i: usize, v: &Dynamic) -> Option<BigInt> {
    if let Some(n) = v.as_int() {
        return n.as_i64().map(BigInt::from);
    }
    let b = v.as_bv()?;
    let unsigned = rel.unsigned.get(i).copied().unwrap_or(false);
    Some(reading(b.get_size(), b.as_u64()?, unsigned))
}

/// A variable of the fit: its parameter, with its values in the states.
struct Column {
    param: usize,
    values: Vec<BigInt>,
    /// What it holds in every entry state, if anything does.
    start: Option<Start>,
}

/// A variable's value where its loop has not moved yet.
enum Start {
    /// The same constant in every entry state (a counter's start).
    Constant(BigInt),
    /// Another variable's value, in every entry state (an input the loop
    /// counts down, still equal to the other version's copy of it).
    Copy(usize),
}

/// What the states of a relation suggest.
pub struct Fit {
    /// Constants, copies, bounds within a version, congruences and the
    /// linear equalities.
    pub linear: Vec<Bool>,
    /// Bounds between the two versions' variables (many, and rarely
    /// needed: tried after the others).
    pub across: Vec<Bool>,
    /// The equalities of degree 2 (costlier to check, over bit-vectors
    /// especially: tried only where the others do not suffice).
    pub quadratic: Vec<Bool>,
}

/// How many tiers [`Fit::up_to`] has.
pub const TIERS: usize = 3;

impl Fit {
    /// The candidates up to tier `tier`: 0 the linear ones; then the
    /// quadratic equalities and the bounds across versions, in the order
    /// they cost: over integers a product is cheap to check and the bounds
    /// across versions many, over bit-vectors a product is what takes
    /// longest.
    pub fn up_to(&self, tier: usize, bit_vectors: bool) -> Vec<&Bool> {
        let mut out: Vec<&Bool> = self.linear.iter().collect();
        let (second, third) = if bit_vectors {
            (&self.across, &self.quadratic)
        } else {
            (&self.quadratic, &self.across)
        };
        if tier >= 1 {
            out.extend(second);
        }
        if tier >= 2 {
            out.extend(third);
        }
        out
    }
}

/// The candidates the states of `rel` suggest.
fn fit(rel: &Relation, states: &[Seen]) -> Fit {
    let numeric = numeric(rel);
    let (rows, moved): (Vec<Vec<BigInt>>, Vec<bool>) = states
        .iter()
        .filter_map(|s| {
            let row: Option<Vec<BigInt>> = numeric
                .iter()
                .map(|&i| integer(rel, i, s.state.get(i)?))
                .collect();
            Some((row?, s.moved))
        })
        .unzip();
    let mut out = Vec::new();
    let mut across = Vec::new();
    let mut quadratic = Vec::new();
    if rows.len() < 3 {
        return Fit {
            linear: out,
            across,
            quadratic,
        };
    }
    // Per sort (integers, or one width of bit-vector): a polynomial
    // relates only terms of one sort.
    let mut sorts: Vec<z3::Sort> = Vec::new();
    for &i in &numeric {
        let sort = rel.params[i].get_sort();
        if !sorts.contains(&sort) {
            sorts.push(sort);
        }
    }
    for sort in sorts {
        let mut columns: Vec<Column> = Vec::new();
        for (c, &i) in numeric.iter().enumerate() {
            if rel.params[i].get_sort() != sort {
                continue;
            }
            let values: Vec<BigInt> = rows.iter().map(|r| r[c].clone()).collect();
            // A constant is a candidate of its own, not a variable of the
            // fit; so is a copy of another variable.
            if values.iter().all(|v| *v == values[0]) {
                out.push(polynomial(rel, &[(BigInt::one(), vec![i])], &values[0]));
                continue;
            }
            if let Some(same) = columns.iter().find(|c| c.values == values) {
                out.push(rel.params[i].eq(&rel.params[same.param]));
                continue;
            }
            let mut entries = values
                .iter()
                .zip(&moved)
                .filter(|(_, m)| !**m)
                .map(|(v, _)| v);
            let start = entries
                .next()
                .filter(|first| entries.all(|v| v == *first))
                .cloned()
                .map(Start::Constant);
            columns.push(Column {
                param: i,
                values,
                start,
            });
        }
        // A variable without a constant start may start as a copy of
        // another.
        let at_entry = |c: &Column| -> Vec<BigInt> {
            c.values
                .iter()
                .zip(&moved)
                .filter(|(_, m)| !**m)
                .map(|(v, _)| v.clone())
                .collect()
        };
        let copies: Vec<Option<usize>> = columns
            .iter()
            .map(|p| {
                let mine = at_entry(p);
                columns
                    .iter()
                    .find(|q| q.param != p.param && !mine.is_empty() && at_entry(q) == mine)
                    .map(|q| q.param)
            })
            .collect();
        for (c, copy) in columns.iter_mut().zip(copies) {
            if c.start.is_none() {
                c.start = copy.map(Start::Copy);
            }
        }
        let (within, pairs) = octagon(rel, &columns, &moved);
        out.extend(within);
        across.extend(pairs);
        out.extend(congruences(rel, &columns));
        let (linear, square) = equalities(rel, &columns, rows.len());
        out.extend(linear);
        quadratic.extend(square);
    }
    Fit {
        linear: out,
        across,
        quadratic,
    }
}

/// The largest modulus a congruence candidate uses: beyond it a common
/// divisor of the differences seen is more likely chance than a step.
const MAX_MODULUS: u64 = 1024;

/// `p ≡ p₀ (mod m)` for a variable whose values all differ by multiples
/// of some `m > 1`, and `p ≡ q (mod m)` for two whose differences do (a
/// loop that subtracts 10 against `x % 10`: the remainder it keeps). Over
/// bit-vectors only for powers of two, which wrapping preserves.
fn congruences(rel: &Relation, columns: &[Column]) -> Vec<Bool> {
    let mut out = Vec::new();
    let modulus = |diffs: &mut dyn Iterator<Item = BigInt>| -> Option<u64> {
        let g = diffs.fold(BigInt::zero(), |g, d| g.gcd(&d)).to_u64()?;
        (g > 1 && g <= MAX_MODULUS).then_some(g)
    };
    let congruent = |p: usize, q: Option<usize>, m: u64, r: &BigInt| -> Option<Bool> {
        let x = &rel.params[p];
        if let Some(x) = x.as_int() {
            let d = match q {
                Some(q) => Int::sub(&[&x, &rel.params[q].as_int()?]),
                None => x,
            };
            let m = Int::from_u64(m);
            return Some(
                d.modulo(&m)
                    .eq(Int::from_big_int(&r.mod_floor(&BigInt::from(m.as_u64()?)))),
            );
        }
        let x = x.as_bv()?;
        if !m.is_power_of_two() {
            return None;
        }
        let w = x.get_size();
        let d = match q {
            Some(q) => x.bvsub(rel.params[q].as_bv()?),
            None => x,
        };
        let mask = BV::from_u64(m - 1, w);
        let r = r.mod_floor(&BigInt::from(m)).to_u64()?;
        Some(d.bvand(&mask).eq(BV::from_u64(r, w)))
    };
    for (n, p) in columns.iter().enumerate() {
        let first = &p.values[0];
        if let Some(m) = modulus(&mut p.values.iter().map(|v| v - first)) {
            out.extend(congruent(p.param, None, m, first));
        }
        for q in columns.iter().skip(n + 1) {
            let diffs: Vec<BigInt> = p.values.iter().zip(&q.values).map(|(a, b)| a - b).collect();
            let d0 = diffs[0].clone();
            if let Some(m) = modulus(&mut diffs.iter().map(|d| d - &d0)) {
                out.extend(congruent(p.param, Some(q.param), m, &d0));
            }
        }
    }
    out
}

/// `c ≤ p`, `p ≤ c`, `q + c ≤ p` and `p ≤ q + c` at the extremes the
/// states show; and for a variable that enters with a constant, the same
/// bounds over the states its loop has moved to, "or not moved yet"
/// (`i ≤ n + 1 ∨ i = 1`: a counter bounded by an input only where its loop
/// runs at all).
fn octagon(rel: &Relation, columns: &[Column], moved: &[bool]) -> (Vec<Bool>, Vec<Bool>) {
    let (mut within, mut across) = (Vec::new(), Vec::new());
    let unsigned = |i: usize| rel.unsigned.get(i).copied().unwrap_or(false);
    let bound = |p: usize, q: Option<usize>, c: &BigInt, upper: bool| -> Option<Bool> {
        let x = &rel.params[p];
        if let Some(x) = x.as_int() {
            let c = Int::from_big_int(c);
            let y = match q {
                Some(q) => Int::add(&[&rel.params[q].as_int()?, &c]),
                None => c,
            };
            return Some(if upper { x.le(&y) } else { y.le(&x) });
        }
        let x = x.as_bv()?;
        let c = BV::from_i64(c.to_i64()?, x.get_size());
        let y = match q {
            Some(q) => rel.params[q].as_bv()?.bvadd(&c),
            None => c,
        };
        let (a, b) = if upper { (&x, &y) } else { (&y, &x) };
        Some(if unsigned(p) { a.bvule(b) } else { a.bvsle(b) })
    };
    let not_moved = |c: &Column| -> Option<Bool> {
        Some(match c.start.as_ref()? {
            Start::Constant(k) => polynomial(rel, &[(BigInt::one(), vec![c.param])], k),
            Start::Copy(q) => rel.params[c.param].eq(&rel.params[*q]),
        })
    };
    // The extremes of `values` over every state, and over the moved ones.
    let extremes = |values: &[BigInt]| {
        let all = (values.iter().min().cloned(), values.iter().max().cloned());
        let moved: Vec<&BigInt> = values
            .iter()
            .zip(moved)
            .filter(|(_, m)| **m)
            .map(|(v, _)| v)
            .collect();
        let after = (
            moved.iter().min().map(|v| (*v).clone()),
            moved.iter().max().map(|v| (*v).clone()),
        );
        (all, after)
    };
    let emit = |out: &mut Vec<Bool>, p: &Column, q: Option<&Column>, values: &[BigInt]| {
        let ((lo, hi), (mlo, mhi)) = extremes(values);
        let qp = q.map(|q| q.param);
        for (c, upper) in [(lo, false), (hi, true)] {
            if let Some(c) = c {
                out.extend(bound(p.param, qp, &c, upper));
            }
        }
        let excuses: Vec<Bool> = [Some(p), q]
            .into_iter()
            .flatten()
            .filter_map(not_moved)
            .collect();
        for (c, upper) in [(mlo, false), (mhi, true)] {
            let Some(b) = c.and_then(|c| bound(p.param, qp, &c, upper)) else {
                continue;
            };
            for e in &excuses {
                out.push(Bool::or(&[&b, e]));
            }
        }
    };
    for (n, p) in columns.iter().enumerate() {
        emit(&mut within, p, None, &p.values);
        for q in columns.iter().skip(n + 1) {
            // Across versions too, apart: a loop that only subtracts
            // keeps its variable below the other version's copy of the
            // input (`old.x ≤ new.x − 10` once it has moved).
            if unsigned(p.param) != unsigned(q.param) {
                continue;
            }
            let same_version = (p.param < rel.old_arity) == (q.param < rel.old_arity);
            let diffs: Vec<BigInt> = p.values.iter().zip(&q.values).map(|(a, b)| a - b).collect();
            emit(
                if same_version {
                    &mut within
                } else {
                    &mut across
                },
                p,
                Some(q),
                &diffs,
            );
        }
    }
    (within, across)
}

/// The polynomial equalities every state satisfies: first the linear
/// ones; then, over the variables they leave independent (each linear
/// equality removes one, so that its multiples `L·x = 0` do not come back
/// as quadratic ones), those of degree 2 — where there are enough states
/// to pin their monomials down. Linear and quadratic apart.
fn equalities(rel: &Relation, columns: &[Column], n_rows: usize) -> (Vec<Bool>, Vec<Bool>) {
    let all: Vec<usize> = (0..columns.len()).collect();
    let linear = monomials(&all, 1);
    let (out, dependent) = fitted(rel, columns, &linear, n_rows);
    let independent: Vec<usize> = all.into_iter().filter(|c| !dependent.contains(c)).collect();
    let square = monomials(&independent, 2);
    let (quadratic, _) = fitted(rel, columns, &square, n_rows);
    (out, quadratic)
}

/// The monomials of degree at most `degree` (1 or 2) over `vars`, as lists
/// of columns (`[]` is 1).
fn monomials(vars: &[usize], degree: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![vec![]];
    out.extend(vars.iter().map(|&i| vec![i]));
    if degree >= 2 {
        for (n, &i) in vars.iter().enumerate() {
            for &j in &vars[n..] {
                out.push(vec![i, j]);
            }
        }
    }
    out
}

/// The equalities `Σ c·m = 0` over `monomials` that every state satisfies
/// (a basis of the null space of their matrix), with per equality the
/// column of the monomial it may be solved for (a free column of the
/// reduction, of degree 1 in a linear fit). None unless there are two
/// states more than monomials: a null space vector is then a relation of
/// the data, not an artefact of too few of them.
fn fitted(
    rel: &Relation,
    columns: &[Column],
    monomials: &[Vec<usize>],
    n_rows: usize,
) -> (Vec<Bool>, Vec<usize>) {
    if n_rows < monomials.len() + 2 {
        return (Vec::new(), Vec::new());
    }
    let matrix: Vec<Vec<BigRational>> = (0..n_rows)
        .map(|r| {
            monomials
                .iter()
                .map(|m| {
                    let mut x = BigInt::one();
                    for &c in m {
                        x *= &columns[c].values[r];
                    }
                    BigRational::from_integer(x)
                })
                .collect()
        })
        .collect();
    let mut solved_for = Vec::new();
    let equalities = null_space(matrix, monomials.len())
        .into_iter()
        .filter_map(|(free, coefficients)| {
            if let [c] = monomials[free].as_slice() {
                solved_for.push(*c);
            }
            let terms: Vec<(BigInt, Vec<usize>)> = coefficients
                .into_iter()
                .zip(monomials)
                .filter(|(c, _)| !c.is_zero())
                .map(|(c, m)| (c, m.iter().map(|&k| columns[k].param).collect()))
                .collect();
            // `Σ c·m = 0` with the constant on the right: `Σ c·m = −c₀`.
            let constant = terms
                .iter()
                .find(|(_, m)| m.is_empty())
                .map(|(c, _)| -c.clone())
                .unwrap_or_default();
            let rest: Vec<(BigInt, Vec<usize>)> =
                terms.into_iter().filter(|(_, m)| !m.is_empty()).collect();
            (!rest.is_empty()).then(|| polynomial(rel, &rest, &constant))
        })
        .collect();
    (equalities, solved_for)
}

/// `Σ c·m = constant` over the parameters of `rel` (all of one sort), as
/// `Σ positive terms = Σ negated negative terms + constant`.
fn polynomial(rel: &Relation, terms: &[(BigInt, Vec<usize>)], constant: &BigInt) -> Bool {
    let first = &rel.params[terms[0].1[0]];
    if let Some(bv) = first.as_bv() {
        let w = bv.get_size();
        let lit = |c: &BigInt| {
            let m = BigInt::one() << w;
            let r = c.mod_floor(&m);
            BV::from_str(w, &r.to_string()).unwrap_or_else(|| BV::from_u64(0, w))
        };
        let term = |c: &BigInt, m: &[usize]| {
            let mut t = lit(c);
            for &p in m {
                if let Some(x) = rel.params[p].as_bv() {
                    t = t.bvmul(&x);
                }
            }
            t
        };
        if let Some(j) = solvable(rel, terms) {
            // `±p + Σ rest = k` is `p = ±(k − Σ rest)`: ±1 is its own
            // inverse modulo 2^w, so the definition is the same equality.
            let (sign, defined) = (&terms[j].0, terms[j].1[0]);
            let mut value = lit(&(sign * constant));
            for (n, (c, m)) in terms.iter().enumerate() {
                if n != j {
                    value = value.bvadd(term(&-(sign * c), m).simplify());
                }
            }
            if let Some(p) = rel.params[defined].as_bv() {
                return p.eq(value.simplify());
            }
        }
        let side = |positive: bool| {
            let mut sum = if positive {
                BV::from_u64(0, w)
            } else {
                lit(constant)
            };
            for (c, m) in terms.iter().filter(|(c, _)| c.is_positive() == positive) {
                sum = sum.bvadd(term(&c.abs(), m).simplify());
            }
            sum.simplify()
        };
        return side(true).eq(side(false));
    }
    let term = |c: &BigInt, m: &[usize]| {
        let mut factors: Vec<Int> = Vec::new();
        if !c.is_one() {
            factors.push(Int::from_big_int(c));
        }
        factors.extend(m.iter().filter_map(|&p| rel.params[p].as_int()));
        if factors.len() == 1 {
            factors.swap_remove(0)
        } else {
            Int::mul(&factors)
        }
    };
    let side = |positive: bool| {
        let mut parts: Vec<Int> = terms
            .iter()
            .filter(|(c, _)| c.is_positive() == positive)
            .map(|(c, m)| term(&c.abs(), m))
            .collect();
        if !positive && !constant.is_zero() || parts.is_empty() {
            parts.push(Int::from_big_int(constant));
        }
        if parts.len() == 1 {
            parts.swap_remove(0)
        } else {
            Int::add(&parts)
        }
    };
    side(true).eq(side(false))
}

/// The term of `terms` (a polynomial equality over bit-vectors) to state
/// it as a definition, `p = …`: a parameter with coefficient ±1 that
/// occurs in no other term, preferably one without a namesake in the
/// other version (the index a refactoring replaced, defined by those both
/// keep). Bit-blasted, an equality between two sums leaves the solver two
/// adders to relate at every step of the proof; a definition it
/// eliminates before bit-blasting (for two converging indices, `hi = n −
/// 1 − lo` rather than `lo + hi = n − 1`).
fn solvable(rel: &Relation, terms: &[(BigInt, Vec<usize>)]) -> Option<usize> {
    let alone = |j: usize| {
        let (c, m) = &terms[j];
        let [p] = m.as_slice() else {
            return false;
        };
        c.abs().is_one()
            && terms
                .iter()
                .enumerate()
                .all(|(n, (_, other))| n == j || !other.contains(p))
    };
    let solvable: Vec<usize> = (0..terms.len()).filter(|&j| alone(j)).collect();
    solvable
        .iter()
        .copied()
        .find(|&j| super::houdini::renamed(rel, terms[j].1[0]))
        .or(solvable.first().copied())
}

/// A basis of `{ x | matrix · x = 0 }` with integer entries (each vector's
/// entries coprime), by reduction to row echelon form over ℚ; each vector
/// with its free column (where it is 1 and the others are 0).
fn null_space(mut matrix: Vec<Vec<BigRational>>, n: usize) -> Vec<(usize, Vec<BigInt>)> {
    let mut pivots: Vec<usize> = Vec::new();
    let mut row = 0;
    for col in 0..n {
        let Some(p) = (row..matrix.len()).find(|&r| !matrix[r][col].is_zero()) else {
            continue;
        };
        matrix.swap(row, p);
        let pivot = matrix[row][col].clone();
        for x in &mut matrix[row] {
            *x = &*x / &pivot;
        }
        let reduced = matrix[row].clone();
        for (r, other) in matrix.iter_mut().enumerate() {
            if r != row && !other[col].is_zero() {
                let factor = other[col].clone();
                for (x, y) in other.iter_mut().zip(&reduced) {
                    *x -= &factor * y;
                }
            }
        }
        pivots.push(col);
        row += 1;
        if row == matrix.len() {
            break;
        }
    }
    (0..n)
        .filter(|c| !pivots.contains(c))
        .map(|free| {
            let mut x = vec![BigRational::zero(); n];
            x[free] = BigRational::one();
            for (r, &p) in pivots.iter().enumerate() {
                x[p] = -matrix[r][free].clone();
            }
            let lcm = x.iter().fold(BigInt::one(), |l, q| l.lcm(q.denom()));
            let ints: Vec<BigInt> = x.iter().map(|q| (q * &lcm).to_integer()).collect();
            let gcd = ints.iter().fold(BigInt::zero(), |g, i| g.gcd(i));
            let vector = if gcd.is_zero() {
                ints
            } else {
                ints.into_iter().map(|i| i / &gcd).collect()
            };
            (free, vector)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64) -> BigRational {
        BigRational::from_integer(BigInt::from(n))
    }

    #[test]
    fn the_null_space_of_a_running_sum_is_its_closed_form() {
        // Columns 1, i, s, i², i·s, s² for s = 0 + 1 + … + (i − 1).
        let rows: Vec<Vec<BigRational>> = (0..8)
            .map(|i: i64| {
                let s = i * (i - 1) / 2;
                vec![q(1), q(i), q(s), q(i * i), q(i * s), q(s * s)]
            })
            .collect();
        let basis = null_space(rows, 6);
        // 2·s − i² + i = 0 is in the span; with s determined by i, the
        // only relations among the six monomials over these rows are
        // that one and its multiples by i and s... restricted to degree
        // 2, exactly one vector.
        let expected: Vec<BigInt> = [0, 1, 2, -1, 0, 0]
            .iter()
            .map(|&c| BigInt::from(c))
            .collect();
        let negated: Vec<BigInt> = expected.iter().map(|c| -c).collect();
        assert!(
            basis.iter().any(|(_, b)| *b == expected || *b == negated),
            "{basis:?}"
        );
    }
}
