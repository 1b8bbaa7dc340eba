//! Concrete testing before proving: run both versions on edge-case and
//! pseudo-random inputs in the interpreter. A difference found this way is a
//! real counterexample (the interpreter is the ground truth), found in
//! microseconds where the solver may need seconds (floating point under
//! `machine`, nonlinear arithmetic under `math`). Finding none proves
//! nothing; the symbolic query still decides.

use super::replay::{input_binding, run_both};
use super::{Assumption, Binding, Counterexample, MethodPair, Options};
use crate::interp::{self, Inputs, LimitKind, Limits, Outcome};
use crate::ir::{FloatTy, Function, IntTy, Program, Semantics, Type};
use crate::value::{Real, Value};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift64*): the same pair gets the
/// same tests every run, so verdicts are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Rounds of [`InputGen::extreme`] values (machine semantics).
const EXTREMES: usize = 8;
/// The longest declared array length random tests build inputs of.
const MAX_TESTED_LENGTH: u64 = 4096;

/// How many inputs to try and for how long.
pub struct Budget {
    pub runs: usize,
    pub time: Duration,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            runs: 96,
            time: crate::budget::CONCRETE_TESTS,
        }
    }
}

/// One input slot: a parameter position or a global name, with its type.
enum Slot {
    Arg(usize, Type),
    /// A global, with the length it has when it is an array of a declared
    /// length.
    Global(String, Type, Option<u64>),
}

/// Yields candidate inputs for the pair; `None` when a parameter's type
/// cannot be generated (then no testing is done).
pub struct InputGen {
    slots: Vec<Slot>,
    arity: usize,
    semantics: Semantics,
    rng: Rng,
    count: usize,
    /// Integers already drawn this round: reusing one makes two inputs
    /// equal (`i == j`), which random draws alone rarely do.
    drawn: Vec<BigInt>,
    /// Array parameters may be `null` (`crate::symbolic::nullable_arrays`).
    nullable_arrays: bool,
}

impl InputGen {
    pub fn new(
        old: &Program,
        new: &Program,
        old_fn: &Function,
        new_fn: &Function,
        semantics: Semantics,
    ) -> Option<Self> {
        let mut slots = Vec::new();
        let (old_valueless, new_valueless) = (
            crate::symbolic::valueless_params(old_fn),
            crate::symbolic::valueless_params(new_fn),
        );
        for (pos, (p, q)) in old_fn.params.iter().zip(&new_fn.params).enumerate() {
            if old_valueless.contains(p) && new_valueless.contains(q) {
                // Neither version reads it: the symbolic checkers give it no
                // value, and a drawn one would only clutter the inputs shown.
                continue;
            }
            let (a, b) = (&old_fn.local(*p).ty, &new_fn.local(*q).ty);
            if a != b && semantics == Semantics::Machine {
                return None;
            }
            slots.push(Slot::Arg(pos, b.clone()));
        }
        for g in old.globals.iter().chain(&new.globals) {
            if g.is_input() && g.declared_len.is_some_and(|n| n > MAX_TESTED_LENGTH) {
                // Arrays that long are left to the symbolic checkers.
                return None;
            }
            // One input cannot have two lengths: an array declared with
            // another length in the other version is no shared input.
            let other = old
                .globals
                .iter()
                .chain(&new.globals)
                .find(|h| h.name == g.name);
            if other.is_some_and(|h| h.declared_len != g.declared_len) {
                return None;
            }
            if g.is_input()
                && !slots
                    .iter()
                    .any(|s| matches!(s, Slot::Global(n, ..) if *n == g.name))
            {
                slots.push(Slot::Global(g.name.clone(), g.ty.clone(), g.declared_len));
            }
        }
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for b in new_fn.name.bytes() {
            seed = (seed ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
        Some(InputGen {
            slots,
            arity: new_fn.params.len(),
            semantics,
            rng: Rng(seed | 1),
            count: 0,
            drawn: Vec::new(),
            nullable_arrays: crate::symbolic::nullable_arrays(&[old, new]),
        })
    }

    /// The next input; the first few use the same edge value everywhere.
    pub fn next_inputs(&mut self) -> Inputs {
        let mut inputs = Inputs {
            args: vec![Value::Void; self.arity],
            globals: Default::default(),
            callees: Vec::new(),
        };
        let round = self.count;
        self.count += 1;
        self.drawn.clear();
        for i in 0..self.slots.len() {
            let (ty, len) = match &self.slots[i] {
                Slot::Arg(_, t) => (t.clone(), None),
                Slot::Global(_, t, len) => (t.clone(), *len),
            };
            let is_arg = matches!(self.slots[i], Slot::Arg(..));
            let v = if is_arg && self.null_now(&ty, round) {
                Value::Null
            } else {
                self.value(&ty, round)
            };
            let v = match (v, len) {
                (Value::Array(items), Some(n)) => Value::Array(self.resized(items, &ty, n, round)),
                (v, _) => v,
            };
            match &self.slots[i] {
                Slot::Arg(pos, _) => inputs.args[*pos] = v,
                Slot::Global(name, ..) => {
                    inputs.globals.insert(name.clone(), v);
                }
            }
        }
        inputs
    }

    /// `items` cut or extended to `n` elements: drawn ones while the array
    /// is short enough to draw, zeros (static storage's start) beyond.
    fn resized(&mut self, mut items: Vec<Value>, ty: &Type, n: u64, round: usize) -> Vec<Value> {
        const DRAWN: usize = 64;
        let Type::Array(elem) = ty else { return items };
        let n = usize::try_from(n.min(MAX_TESTED_LENGTH)).unwrap_or(0);
        items.truncate(n);
        while items.len() < n.min(DRAWN) {
            let v = self.value(elem, round.max(4));
            items.push(v);
        }
        let zero = match &**elem {
            Type::Bool => Value::Bool(false),
            Type::Float(_) if self.semantics == Semantics::Math => {
                Value::Real(Real::Exact(BigRational::from_integer(BigInt::from(0))))
            }
            Type::Float(FloatTy::F32) => Value::F32(0.0),
            Type::Float(FloatTy::F64) => Value::F64(0.0),
            _ => Value::Int(BigInt::from(0)),
        };
        items.resize(n, zero);
        items
    }

    /// Whether this round passes `null` for the slot: every nullable
    /// array parameter in the second simple round, then one in five.
    fn null_now(&mut self, ty: &Type, round: usize) -> bool {
        if !self.nullable_arrays || !matches!(ty, Type::Array(_)) {
            return false;
        }
        round == 1 || (round >= 4 && self.rng.below(5) == 0)
    }

    fn value(&mut self, ty: &Type, round: usize) -> Value {
        // Rounds 0..3: all-equal simple values; 4..35: small structured
        // values (arrays of length 4 with non-zero elements, integers that
        // are valid indices and often equal to each other); afterwards
        // random mixes.
        let simple = round < 4;
        if (4..36).contains(&round) {
            return self.structured(ty);
        }
        if self.semantics == Semantics::Machine && (36..36 + EXTREMES).contains(&round) {
            return self.extreme(ty, round - 36);
        }
        match ty {
            Type::Bool => Value::Bool(if simple {
                round % 2 == 1
            } else {
                self.rng.below(2) == 1
            }),
            Type::Int(t) => Value::Int(self.int(t, simple.then_some(round))),
            Type::Float(f) => self.float(*f, simple.then_some(round)),
            Type::Array(elem) => {
                let len = if simple {
                    round.min(3)
                } else {
                    self.rng.below(6) as usize
                };
                Value::Array((0..len).map(|_| self.value(elem, round.max(4))).collect())
            }
            Type::Void | Type::Str => Value::Void,
        }
    }

    /// Every input at the same extreme (largest, smallest, subnormal, NaN,
    /// infinite...): overflow, rounding and NaN differences under `machine`
    /// usually need *all* operands extreme at once, which random draws
    /// almost never produce.
    fn extreme(&mut self, ty: &Type, k: usize) -> Value {
        match ty {
            Type::Bool => Value::Bool(k.is_multiple_of(2)),
            Type::Int(t) => {
                let (lo, hi): (i128, i128) = if t.signed {
                    (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
                } else {
                    (0, (1i128 << t.bits) - 1)
                };
                let v = [hi, lo, hi - 1, lo + 1, hi / 2 + 1, lo / 2, 1, -1][k % 8].clamp(lo, hi);
                Value::Int(BigInt::from(v))
            }
            Type::Float(FloatTy::F64) => Value::F64(
                [
                    f64::MAX,
                    f64::MIN,
                    f64::MIN_POSITIVE,
                    5e-324,
                    f64::NAN,
                    f64::INFINITY,
                    -5e-324,
                    1e308,
                ][k % 8],
            ),
            Type::Float(FloatTy::F32) => Value::F32(
                [
                    f32::MAX,
                    f32::MIN,
                    f32::MIN_POSITIVE,
                    1e-45,
                    f32::NAN,
                    f32::INFINITY,
                    -1e-45,
                    1e38,
                ][k % 8],
            ),
            Type::Array(elem) => Value::Array((0..3).map(|_| self.extreme(elem, k)).collect()),
            Type::Void | Type::Str => Value::Void,
        }
    }

    fn structured(&mut self, ty: &Type) -> Value {
        match ty {
            Type::Bool => Value::Bool(self.rng.below(2) == 1),
            Type::Int(_) => {
                let v = if !self.drawn.is_empty() && self.rng.below(2) == 0 {
                    let i = self.rng.below(self.drawn.len() as u64) as usize;
                    self.drawn[i].clone()
                } else {
                    BigInt::from(self.rng.below(5))
                };
                self.drawn.push(v.clone());
                Value::Int(v)
            }
            Type::Float(f) => {
                let x = self.rng.below(5) as f64;
                match (self.semantics, f) {
                    (Semantics::Math, _) => Value::Real(Real::Exact(BigRational::from_integer(
                        BigInt::from(x as i64),
                    ))),
                    (Semantics::Machine, FloatTy::F32) => Value::F32(x as f32),
                    (Semantics::Machine, FloatTy::F64) => Value::F64(x),
                }
            }
            Type::Array(elem) => Value::Array(
                (0..4)
                    .map(|_| match &**elem {
                        Type::Int(_) => Value::Int(BigInt::from(1 + self.rng.below(9))),
                        other => self.structured(other),
                    })
                    .collect(),
            ),
            Type::Void | Type::Str => Value::Void,
        }
    }

    fn int(&mut self, t: &IntTy, simple: Option<usize>) -> BigInt {
        let (lo, hi): (i128, i128) = if t.signed {
            (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
        } else {
            (0, (1i128 << t.bits) - 1)
        };
        if let Some(r) = simple {
            // Small non-negative values first: valid indices into the
            // arrays of the same round, so index-based paths get covered.
            return BigInt::from([0i128, 1, 2, -1][r].clamp(lo, hi));
        }
        if !self.drawn.is_empty() && self.rng.below(3) == 0 {
            let i = self.rng.below(self.drawn.len() as u64) as usize;
            let v = self.drawn[i].clone();
            if v >= BigInt::from(lo) && v <= BigInt::from(hi) {
                return v;
            }
        }
        let machine = self.semantics == Semantics::Machine;
        let v: i128 = match self.rng.below(10) {
            0 if machine => *self.rng.pick(&[lo, hi, lo + 1, hi - 1]),
            0 | 1 => *self
                .rng
                .pick(&[0, 1, -1, 2, -2, 3, 7, 8, 10, 100, -100, 255, 256, 1000]),
            2 | 3 => self.rng.below(2001) as i128 - 1000,
            4 => self.rng.below(21) as i128 - 10,
            // Likely indices into the generated arrays (length < 6).
            5 => self.rng.below(6) as i128,
            6 => self.rng.below(1 << 31) as i128 - (1 << 30),
            _ => self.rng.below(201) as i128 - 100,
        };
        let v = BigInt::from(v.clamp(lo, hi));
        self.drawn.push(v.clone());
        v
    }

    fn float(&mut self, f: FloatTy, simple: Option<usize>) -> Value {
        let machine = self.semantics == Semantics::Machine;
        let x: f64 = match simple {
            Some(r) => [0.0, 1.0, 2.0, -1.0][r],
            None => match self.rng.below(10) {
                0 if machine => *self.rng.pick(&[
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    -0.0,
                    f64::MAX,
                    f64::MIN_POSITIVE,
                    1e300,
                    0.1,
                ]),
                0 | 1 => *self.rng.pick(&[
                    0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 3.0, 10.0, 100.0, 0.25, 1e6, -1e6,
                ]),
                2 | 3 => (self.rng.below(8001) as f64 - 4000.0) / 8.0,
                4 | 5 => (self.rng.below(201) as f64 - 100.0) / 4.0,
                6 => (self.rng.below(2_000_001) as f64 - 1_000_000.0) / 1024.0,
                // Decimal fractions: not exact in binary, so rounding shows.
                7 => (self.rng.below(20_001) as f64 - 10_000.0) / 10.0,
                8 if machine => {
                    f64::from_bits(self.rng.next() >> 2 | 0x3000_0000_0000_0000)
                        * if self.rng.below(2) == 0 { 1.0 } else { -1.0 }
                }
                _ => self.rng.below(41) as f64 - 20.0,
            },
        };
        match (self.semantics, f) {
            (Semantics::Math, _) => match BigRational::from_float(x) {
                Some(r) => Value::Real(Real::Exact(r)),
                None => Value::Real(Real::Exact(BigRational::from_integer(BigInt::from(0)))),
            },
            (Semantics::Machine, FloatTy::F32) => Value::F32(x as f32),
            (Semantics::Machine, FloatTy::F64) => Value::F64(x),
        }
    }
}

/// Tries inputs until `found` accepts one (returns `Some`) or the budget is
/// spent.
pub fn search<T>(
    generator: &mut InputGen,
    budget: &Budget,
    mut found: impl FnMut(&Inputs) -> Option<T>,
) -> Option<T> {
    let start = crate::clock::now();
    for _ in 0..budget.runs {
        if crate::clock::now() - start > budget.time {
            break;
        }
        let inputs = generator.next_inputs();
        if let Some(t) = found(&inputs) {
            return Some(t);
        }
    }
    None
}

/// The input generator, budget and interpreter limits of a concrete test
/// run over the pair (`None` when a parameter type has no generator).
fn test_setup(
    pair: &MethodPair<'_>,
    old_fn: &Function,
    new_fn: &Function,
    options: &Options,
    deadline: Instant,
) -> Option<(InputGen, Budget, Limits)> {
    let generator = InputGen::new(
        pair.old_program,
        pair.new_program,
        old_fn,
        new_fn,
        options.semantics,
    )?;
    let budget = Budget::default();
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
    search(&mut generator, &budget, |inputs| {
        let mut named: Vec<Binding> = inputs
            .args
            .iter()
            .enumerate()
            .map(|(pos, v)| input_binding(&format!("arg{pos}"), v.clone(), old_fn, new_fn))
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
    let own = crate::clock::now() + Budget::default().time;
    let (mut generator, budget, limits) = test_setup(pair, old_fn, new_fn, options, own)?;
    // Only small inputs: on large ones a deep but finite recursion hits
    // the call depth limit too, and that is no evidence.
    let small = |v: &Value| match v {
        Value::Int(i) => i.magnitude() <= &num_bigint::BigUint::from(SMALL_INPUT),
        Value::Array(_) => false,
        _ => true,
    };
    search(&mut generator, &budget, |inputs| {
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
                input_binding(&format!("arg{pos}"), v.clone(), old_fn, new_fn).to_string()
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

/// Concrete tests as a checker: a replayed counterexample, running out of
/// time, or no answer (finding no difference proves nothing).
pub(crate) struct TestingChecker;

impl super::Checker for TestingChecker {
    fn check(
        &self,
        pair: &MethodPair<'_>,
        options: &Options,
        budget: super::Budget,
    ) -> super::Decision {
        use super::{Decider, Decision, Phase, Unknown, UnknownReason, Verdict};
        let (old_fn, new_fn) = match super::query::bodies(pair) {
            Ok(b) => b,
            Err(v) => return Decision::plain(v, Decider::Testing),
        };
        if let Some(cex) = test_concretely(pair, old_fn, new_fn, options, budget.deadline) {
            return Decision::plain(Verdict::NotEquivalent(Box::new(cex)), Decider::Testing);
        }
        if crate::cancel::expired(budget.deadline) {
            return Decision::plain(
                super::timeout(Phase::Testing, options.timeout_ms),
                Decider::Testing,
            );
        }
        Decision::plain(
            Verdict::Unknown(Unknown {
                reason: UnknownReason::Inconclusive,
                detail: "concrete tests found no difference".into(),
            }),
            Decider::Testing,
        )
    }
}
