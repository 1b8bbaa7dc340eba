//! Symbolic encoding of IR functions as Z3 terms, and the equivalence query
//! over two versions.
//!
//! Invariants: the meaning of every construct is the interpreter's
//! (`docs/semantics.md`); Z3 terms are never inspected by kind — models are
//! read by evaluating our own input constants. Both versions are encoded
//! over one [`InputSpace`], so "equal inputs" is built in; a different
//! relation between inputs (a crosswalk) would be a constraint over two
//! spaces.

pub mod exec;
pub mod model;
pub mod ops;

use crate::ir::{Lang, Program, Semantics, Type};
use exec::{ArrObj, PrintLog, Summary};
use ops::{EResult, EncodeError, Ops, Sym};
use rustc_hash::FxHashMap;
use z3::ast::{Array, Bool, Dynamic, Int};

/// One input of the pair (shared by both versions).
#[derive(Clone, Debug)]
pub enum InputVar {
    Scalar {
        name: String,
        ty: Type,
        value: Sym,
    },
    Array {
        name: String,
        elem: Type,
        len: Sym,
        /// The length the array has in both versions (a C array's declared
        /// one; see [`InputSpace::preconditions`]).
        declared_len: Option<u64>,
        data: Array,
        /// Whether the array is `null` (only where
        /// [`InputSpace::nullable_arrays`] lets a parameter be; its length
        /// and elements then mean nothing).
        null: Option<Bool>,
    },
}

impl InputVar {
    pub fn name(&self) -> &str {
        match self {
            InputVar::Scalar { name, .. } | InputVar::Array { name, .. } => name,
        }
    }

    /// The Z3 constants the input is made of (to quantify over).
    pub fn constants(&self) -> Vec<Dynamic> {
        match self {
            InputVar::Scalar { value, .. } => value.to_dyn().into_iter().collect(),
            InputVar::Array {
                len, data, null, ..
            } => {
                let mut out: Vec<Dynamic> = len.to_dyn().into_iter().collect();
                out.push(Dynamic::from_ast(data));
                out.extend(null.as_ref().map(|b| Dynamic::from_ast(b)));
                out
            }
        }
    }
}

/// The inputs both versions read, created on first use, in order.
#[derive(Default)]
pub struct InputSpace {
    pub vars: Vec<InputVar>,
    index: FxHashMap<String, usize>,
    /// Array parameters may be `null`: set for a Java pair where either
    /// version tests an array against `null` ([`nullable_arrays`]).
    /// Elsewhere every array input is an object, an assumption the
    /// verdicts name.
    pub nullable_arrays: bool,
}

/// Parameters that are no input: arrays of arrays (C's `char *argv[]`,
/// Java's `int[][]`, which the encoder cannot give a value) that no
/// statement of `f` reads. A `main` that ignores `argv` cannot tell the
/// versions apart by it, so such a parameter gets no value (and no
/// assumption) instead of refusing the whole method; one that is read still
/// refuses it, naming the input.
pub fn valueless_params(f: &crate::ir::Function) -> Vec<crate::ir::LocalId> {
    let reads = crate::abstraction::effects::read_counts(&f.body);
    f.params
        .iter()
        .copied()
        .filter(|p| {
            matches!(&f.local(*p).ty, Type::Array(elem) if matches!(**elem, Type::Array(_)))
                && !reads.contains_key(p)
        })
        .collect()
}

/// Which globals of `program` are outputs of `entry`: their final values
/// are compared between the versions. A global is an output only if the
/// method may change it: a return slot of `entry` (each call writes it), an
/// array (what stores through array globals reach is not tracked per global)
/// or a scalar `entry` or a callee of it assigns. Every other global ends
/// with its entry value, which both versions share (the same input, or the
/// same constant), so comparing it could only report differences the
/// versions do not have — e.g. a field whose declared type changed, or one
/// that is a constant in one version and an input in the other.
/// `effects` is [`crate::abstraction::effects::function_effects`] of
/// `program`. The symbolic encoding ([`exec::Executor::summarize`]) and the
/// replay ([`observable_globals`]) both ask this, so they observe the same
/// globals.
pub fn is_output(
    program: &Program,
    entry: crate::ir::FuncId,
    effects: &crate::abstraction::effects::FunctionEffectsMap,
    g: crate::ir::GlobalId,
) -> bool {
    let decl = program.global(g);
    match &decl.return_of {
        Some(f) => *f == program.function(entry).name,
        None => {
            matches!(decl.ty, Type::Array(_))
                || effects
                    .get(&entry)
                    .is_none_or(|e| e.writes_globals.contains(&g))
        }
    }
}

/// The effects of `entry` and the functions it reaches (what [`is_output`]
/// needs), at the cost of those functions, not of the whole program.
pub fn entry_effects(
    program: &Program,
    entry: crate::ir::FuncId,
) -> crate::abstraction::effects::FunctionEffectsMap {
    let scope = crate::scope::Scope::of_pair(program, program, entry, entry);
    crate::abstraction::effects::function_effects_in(program, scope.old_members())
}

/// The names of the globals whose final values the replay compares: the
/// non-constant globals that are an output ([`is_output`]) of either
/// version. A global only one version writes is compared with the other
/// version's entry value, which is its final value there.
pub fn observable_globals(
    old: (&Program, crate::ir::FuncId),
    new: (&Program, crate::ir::FuncId),
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (program, entry) in [old, new] {
        let effects = entry_effects(program, entry);
        for (i, g) in program.globals.iter().enumerate() {
            if g.constant.is_none()
                && is_output(program, entry, &effects, crate::ir::GlobalId(i as u32))
                && !names.contains(&g.name)
            {
                names.push(g.name.clone());
            }
        }
    }
    names
}

/// Whether the pair treats `null` array parameters as inputs: where either
/// version's file tests an array against `null` (`a == null`,
/// `Objects.requireNonNull`; in C `p == NULL`, `!p`), what the code does then is part of its
/// behaviour. Code that never mentions `null` would only differ on it by
/// which statement throws the `NullPointerException` first, so there it is
/// left out and the non-null assumption named instead. (The whole file, not
/// only the functions a method reaches: every checker and the verdict's
/// assumptions ask this same question.)
pub fn nullable_arrays(programs: &[&Program]) -> bool {
    programs.iter().any(|p| p.tests_null())
}

impl InputSpace {
    /// The input space of a pair (or of the versions given), with `null`
    /// array parameters where [`nullable_arrays`] says so.
    pub fn for_programs(programs: &[&Program]) -> InputSpace {
        InputSpace {
            nullable_arrays: nullable_arrays(programs),
            ..InputSpace::default()
        }
    }

    /// What holds of every input: arrays have a non-negative length (the
    /// declared one where it is fixed), and under math semantics unsigned
    /// integers range over ℕ.
    pub fn preconditions(&self) -> Vec<Bool> {
        let mut out = Vec::new();
        for v in &self.vars {
            if let InputVar::Scalar {
                ty: Type::Int(t),
                value: Sym::Int(i),
                ..
            } = v
                && !t.signed
            {
                out.push(i.ge(Int::from_i64(0)));
            }
            if let InputVar::Array {
                len, declared_len, ..
            } = v
            {
                // A null array's length is unconstrained but unused.
                match (len, declared_len) {
                    (Sym::Int(l), None) => out.push(l.ge(Int::from_i64(0))),
                    (Sym::Bv(l), None) => out.push(l.bvsge(z3::ast::BV::from_i64(0, l.get_size()))),
                    (Sym::Int(l), Some(n)) => out.push(l.eq(Int::from_u64(*n))),
                    (Sym::Bv(l), Some(n)) => {
                        out.push(l.eq(z3::ast::BV::from_u64(*n, l.get_size())))
                    }
                    _ => {}
                }
            }
        }
        out
    }

    pub fn scalar(&mut self, name: &str, ops: &Ops, ty: &Type) -> EResult<Sym> {
        if let Some(&i) = self.index.get(name) {
            return match &self.vars[i] {
                InputVar::Scalar { ty: t, value, .. } if t == ty || same_sort(ops, t, ty) => {
                    Ok(value.clone())
                }
                _ => Err(EncodeError::new(format!(
                    "input {} has different types in the two versions",
                    display_name(name)
                ))),
            };
        }
        let value = ops.input(name, ty)?;
        self.index.insert(name.to_string(), self.vars.len());
        self.vars.push(InputVar::Scalar {
            name: name.to_string(),
            ty: ty.clone(),
            value: value.clone(),
        });
        Ok(value)
    }

    /// An array input: its length, its elements, and whether it is null
    /// (`None` where it cannot be: globals, and every array of a pair
    /// without [`InputSpace::nullable_arrays`]).
    pub fn array(
        &mut self,
        name: &str,
        ops: &Ops,
        elem: &Type,
        declared_len: Option<u64>,
    ) -> EResult<(Sym, Array, Option<Bool>)> {
        if let Some(&i) = self.index.get(name) {
            return match &self.vars[i] {
                InputVar::Array {
                    elem: e,
                    len,
                    declared_len: d,
                    data,
                    null,
                    ..
                } if (e == elem || same_sort(ops, e, elem)) && *d == declared_len => {
                    Ok((len.clone(), data.clone(), null.clone()))
                }
                InputVar::Array {
                    declared_len: d, ..
                } if *d != declared_len => {
                    let len = |l: &Option<u64>| {
                        l.map_or("no fixed length".to_string(), |n| format!("{n} elements"))
                    };
                    Err(EncodeError::new(format!(
                        "array {} has a different declared length in each version ({} and {})",
                        display_name(name),
                        len(d),
                        len(&declared_len)
                    )))
                }
                _ => Err(EncodeError::new(format!(
                    "input {} has different types in the two versions",
                    display_name(name)
                ))),
            };
        }
        let isort = ops.index_sort();
        let len = ops.from_dyn(
            &index_type(ops),
            &Dynamic::new_const(format!("{name}.length"), &isort),
        )?;
        let data = Array::new_const(format!("{name}[]"), &isort, &ops.sort(elem)?);
        let null = (self.nullable_arrays && name.starts_with("arg"))
            .then(|| Bool::new_const(format!("{name}.null")));
        self.index.insert(name.to_string(), self.vars.len());
        self.vars.push(InputVar::Array {
            name: name.to_string(),
            elem: elem.clone(),
            len: len.clone(),
            declared_len,
            data: data.clone(),
            null: null.clone(),
        });
        Ok((len, data, null))
    }
}

fn same_sort(ops: &Ops, a: &Type, b: &Type) -> bool {
    match (ops.sort(a), ops.sort(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// The solver for queries over machine floating point: Z3's `qffp`
/// strategy (floats to bit-vectors, then bit-blasting), whose steps stop
/// when interrupted or out of resource units. The general solver turns
/// floats into circuits inside its core, where libz3 4.8.12 neither counts
/// units nor heeds an interrupt: a few chained double multiplications and
/// divisions hold a query for seconds past its limit, and the same
/// circuits unrolled through a convergence loop for half a minute and
/// gigabytes.
pub fn float_solver() -> z3::Solver {
    z3::Tactic::new("qffp").solver()
}

/// Whether `p` computes with floating-point values anywhere.
pub fn uses_floats(p: &Program) -> bool {
    fn float(t: &Type) -> bool {
        match t {
            Type::Float(_) => true,
            Type::Array(e) => float(e),
            _ => false,
        }
    }
    p.globals.iter().any(|g| float(&g.ty))
        || p.functions
            .iter()
            .filter_map(|f| f.body.as_ref().ok())
            .any(|f| float(&f.ret) || f.locals.iter().any(|l| float(&l.ty)))
}

/// Whether `entry` or a function it reaches multiplies an integer quotient
/// (`(x / y) * y`, or `q * y` after `q = x / y`): there a remainder can
/// cancel against it ([`Ops::remainders_as_quotients`]).
pub fn multiplies_quotients(p: &Program, entry: crate::ir::FuncId) -> bool {
    use crate::ir::{BinOp, Expr, ExprKind, Place, StmtKind};
    fn quotient(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Binary(BinOp::Div, ..) => matches!(e.ty, Type::Int(_)),
            ExprKind::Cast(e) => quotient(e),
            _ => false,
        }
    }
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![entry];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Ok(f) = &p.function(id).body else {
            continue;
        };
        stack.extend(crate::ir::callees(f));
        let mut quotients = rustc_hash::FxHashSet::default();
        crate::ir::any_stmt(&f.body, &mut |s| {
            if let StmtKind::Assign {
                place: Place::Local(l),
                value,
            } = &s.kind
                && quotient(value)
            {
                quotients.insert(*l);
            }
            false
        });
        let held = |e: &Expr| {
            quotient(e) || matches!(&e.kind, ExprKind::Local(l) if quotients.contains(l))
        };
        let found = crate::ir::any_stmt(&f.body, &mut |s| {
            let mut found = false;
            for e in s.exprs() {
                e.walk(&mut |x| {
                    found |= matches!(&x.kind, ExprKind::Binary(BinOp::Mul, a, b)
                        if held(a) || held(b));
                });
            }
            found
        });
        if found {
            return true;
        }
    }
    false
}

/// Whether `entry` or a function it reaches multiplies, divides or takes
/// the remainder of two values neither of which is a literal, or takes a
/// square root or a power (defined by products over the reals): under
/// `math` its queries are nonlinear arithmetic
/// ([`crate::clock::Engine::Nonlinear`]).
pub fn nonlinear(p: &Program, entry: crate::ir::FuncId) -> bool {
    use crate::ir::{BinOp, Expr, ExprKind, Intrinsic, UnOp};
    fn literal(e: &Expr) -> bool {
        match &e.kind {
            ExprKind::IntLit(_) | ExprKind::FloatLit(_) => true,
            ExprKind::Cast(e) | ExprKind::Unary(UnOp::Neg, e) => literal(e),
            _ => false,
        }
    }
    p.reaches(entry, &mut |s| {
        let mut found = false;
        for e in s.exprs() {
            e.walk(&mut |x| {
                found |= matches!(&x.kind, ExprKind::Binary(BinOp::Mul | BinOp::Div | BinOp::Rem, a, b)
                    if !literal(a) && !literal(b))
                    || matches!(&x.kind, ExprKind::Intrinsic(Intrinsic::Sqrt | Intrinsic::Pow, _));
            });
        }
        found
    })
}

/// The IR type whose sort is the index sort.
pub fn index_type(ops: &Ops) -> Type {
    match (ops.sem, ops.lang) {
        (Semantics::Machine, Lang::C) => Type::LONG,
        _ => Type::INT,
    }
}

/// `arg0` → position 0; `g.count` → global `count`.
pub fn display_name(name: &str) -> &str {
    name.strip_prefix("g.").unwrap_or(name)
}

/// Interned printed strings: the same text gets the same tag in both
/// versions.
#[derive(Default)]
pub struct Strings {
    tags: FxHashMap<String, i64>,
}

impl Strings {
    /// The tag `s` got, if it got one.
    pub fn get(&self, s: &str) -> Option<i64> {
        self.tags.get(s).copied()
    }

    pub fn tag(&mut self, s: &str) -> i64 {
        let n = self.tags.len() as i64;
        *self
            .tags
            .entry(s.to_string())
            .or_insert(exec::tag::FIRST_STRING + n)
    }
}

/// Both versions encoded over one input space.
pub struct PairEncoding {
    pub ops: Ops,
    pub inputs: InputSpace,
    /// Uninterpreted functions; `facts` includes the functional consistency
    /// of abstracted blocks' applications.
    pub ufs: ops::Ufs,
    /// Applications of abstracted blocks (empty without abstraction).
    pub apps: crate::abstraction::Applications,
    /// Tags of the string constants (printed, or passed to calls outside
    /// the files).
    pub strings: Strings,
    pub old: Summary,
    pub new: Summary,
}

/// Which version an encoding error came from.
pub struct PairError {
    pub error: EncodeError,
    pub in_old: bool,
}

pub fn encode_pair(
    ops: Ops,
    old: (&Program, crate::ir::FuncId),
    new: (&Program, crate::ir::FuncId),
    loop_bound: u32,
    deadline: std::time::Instant,
    abstraction: Option<&crate::abstraction::Abstraction>,
) -> Result<PairEncoding, PairError> {
    use crate::abstraction::Version;
    let ops = Ops {
        remainders_as_quotients: ops.machine()
            && (multiplies_quotients(old.0, old.1) || multiplies_quotients(new.0, new.1)),
        ..ops
    };
    let mut inputs = InputSpace::for_programs(&[old.0, new.0]);
    let mut ufs = ops::Ufs::default();
    let mut strings = Strings::default();
    let mut apps = crate::abstraction::Applications::default();
    let old_sum = exec::Executor::new(
        ops,
        old.0,
        &mut inputs,
        &mut ufs,
        &mut strings,
        loop_bound,
        deadline,
        abstraction.map(|a| (&a.old, Version::Old)),
        &mut apps,
    )
    .run(old.1)
    .map_err(|error| PairError {
        error,
        in_old: true,
    })?;
    let new_sum = exec::Executor::new(
        ops,
        new.0,
        &mut inputs,
        &mut ufs,
        &mut strings,
        loop_bound,
        deadline,
        abstraction.map(|a| (&a.new, Version::New)),
        &mut apps,
    )
    .run(new.1)
    .map_err(|error| PairError {
        error,
        in_old: false,
    })?;
    ufs.facts.extend(apps.consistency());
    Ok(PairEncoding {
        ops,
        inputs,
        ufs,
        apps,
        strings,
        old: old_sum,
        new: new_sum,
    })
}

impl PairEncoding {
    /// "Some observable differs", over fresh witness indices for the
    /// element-wise comparisons.
    pub fn difference(&self) -> EResult<Bool> {
        Ok(difference(&self.ops, &self.inputs, &self.old, &self.new)?.0)
    }
}

/// "Some observable differs" between two summaries over `inputs`, and the
/// fresh witness constants (indices of the element-wise comparisons) the
/// formula uses: a caller that quantifies the formula itself (the CHC
/// encoder) must bind them too.
///
/// `o` is the old version. In C an execution of the old version that is
/// undefined allows any behaviour of the new one (refinement, as compilers
/// are held to it): no difference is counted there. A new version that is
/// undefined where the old one is defined differs as any other outcome.
pub fn difference(
    ops: &Ops,
    inputs: &InputSpace,
    o: &Summary,
    n: &Summary,
) -> EResult<(Bool, Vec<Dynamic>)> {
    let mut witnesses = Vec::new();
    let mut diffs = vec![o.outcome.eq(&n.outcome).not()];
    let both_normal = Bool::and(&[
        o.outcome.eq(Int::from_i64(0)),
        n.outcome.eq(Int::from_i64(0)),
    ]);
    let ret_diff = match (&o.ret, &n.ret) {
        (Sym::Arr(a), Sym::Arr(b)) => {
            array_diff(ops, o.heap.get(*a), n.heap.get(*b), "ret", &mut witnesses)?
        }
        (a, b) => ops
            .obs_eq(a, b)
            .map_err(|_| EncodeError::new("the return types differ"))?
            .not(),
    };
    diffs.push(Bool::and(&[both_normal, ret_diff]));
    // Both ended by exceptions of unseen callees: which ones must agree.
    if let (Some((code, a)), Some((_, b))) = (&o.thrown, &n.thrown) {
        let unseen = Int::from_i64(*code);
        diffs.push(Bool::and(&[
            o.outcome.eq(&unseen),
            n.outcome.eq(&unseen),
            a.eq(b).not(),
        ]));
    }
    // Globals by name; one present in only one version keeps its input value
    // in the other.
    let mut names: Vec<&str> = o.globals.iter().map(|g| g.0.as_str()).collect();
    for g in &n.globals {
        if !names.contains(&g.0.as_str()) {
            names.push(&g.0);
        }
    }
    for name in names {
        let find = |s: &Summary| s.globals.iter().find(|g| g.0 == name).map(|g| g.2.clone());
        let input = inputs.vars.iter().find(|v| v.name() == format!("g.{name}"));
        let (a, b) = (find(o), find(n));
        let input_val = match input {
            Some(InputVar::Scalar { value, .. }) => Some(value.clone()),
            _ => None,
        };
        match (a.or_else(|| input_val.clone()), b.or(input_val)) {
            (Some(Sym::Arr(x)), Some(Sym::Arr(y))) => diffs.push(array_diff(
                ops,
                o.heap.get(x),
                n.heap.get(y),
                name,
                &mut witnesses,
            )?),
            (Some(x), Some(y)) => diffs.push(ops.obs_eq(&x, &y)?.not()),
            _ => {}
        }
    }
    for (pos, obj) in &o.param_arrays {
        if let Some((_, obj2)) = n.param_arrays.iter().find(|(p, _)| p == pos) {
            diffs.push(array_diff(
                ops,
                o.heap.get(*obj),
                n.heap.get(*obj2),
                &format!("arg{pos}"),
                &mut witnesses,
            )?);
        }
    }
    diffs.push(print_diff(&o.prints, &n.prints, &mut witnesses));
    let differs = Bool::or(&diffs);
    if ops.lang == Lang::C {
        let undefined = Int::from_i64(ops::FaultCode::UNDEFINED.0);
        return Ok((
            Bool::and(&[o.outcome.eq(&undefined).not(), differs]),
            witnesses,
        ));
    }
    Ok((differs, witnesses))
}

fn array_diff(
    ops: &Ops,
    a: Option<&ArrObj>,
    b: Option<&ArrObj>,
    name: &str,
    witnesses: &mut Vec<Dynamic>,
) -> EResult<Bool> {
    let (Some(a), Some(b)) = (a, b) else {
        return Err(EncodeError::new("internal: array object missing"));
    };
    let k = ops.from_dyn(
        &index_type(ops),
        &Dynamic::fresh_const(&format!("k.{name}"), &ops.index_sort()),
    )?;
    let kd = k
        .to_dyn()
        .ok_or_else(|| EncodeError::new("internal: index"))?;
    witnesses.push(kd.clone());
    let len_diff = ops.obs_eq(&a.len, &b.len)?.not();
    let x = ops.from_dyn(&a.elem, &a.data.select(&kd))?;
    let y = ops.from_dyn(&b.elem, &b.data.select(&kd))?;
    let elem_diff = Bool::and(&[ops.in_bounds(&k, &a.len)?, ops.obs_eq(&x, &y)?.not()]);
    Ok(Bool::or(&[len_diff, elem_diff]))
}

fn print_diff(a: &PrintLog, b: &PrintLog, witnesses: &mut Vec<Dynamic>) -> Bool {
    let k = Int::fresh_const("k.print");
    witnesses.push(Dynamic::from_ast(&k));
    let in_range = Bool::and(&[k.ge(Int::from_i64(0)), k.lt(&a.len)]);
    let item_diff = Bool::or(&[
        a.tags.select(&k).eq(b.tags.select(&k)).not(),
        a.ints.select(&k).eq(b.ints.select(&k)).not(),
        a.reals.select(&k).eq(b.reals.select(&k)).not(),
    ]);
    Bool::or(&[a.len.eq(&b.len).not(), Bool::and(&[in_range, item_diff])])
}

#[cfg(test)]
mod shape_tests {
    use super::*;

    fn entry(src: &str) -> (Program, crate::ir::FuncId) {
        let p = crate::lang::lower(Lang::C, src);
        let id = p.find("f").next().map(|(id, _)| id).expect("f is defined");
        (p, id)
    }

    #[test]
    fn a_quotient_multiplied_directly_or_through_a_local_or_a_callee_is_found() {
        for src in [
            "int f(int x, int y) { return (x / y) * y; }",
            "int f(int x, int y) { int q = x / y; return y * q + x % y; }",
            "int g(int x, int y) { return x / y * 3; } int f(int x, int y) { return g(x, y); }",
        ] {
            let (p, f) = entry(src);
            assert!(multiplies_quotients(&p, f), "{src}");
        }
        for src in [
            "int f(int x, int y) { return x / y + x % y; }",
            "int f(int x, int y) { int q = x / y; return q + 2 * (x * y); }",
        ] {
            let (p, f) = entry(src);
            assert!(!multiplies_quotients(&p, f), "{src}");
        }
    }

    #[test]
    fn only_products_of_two_unknowns_are_nonlinear() {
        for (src, expected) in [
            ("int f(int x, int y) { return x * y; }", true),
            ("int f(int x, int y) { return x % y; }", true),
            ("int f(int x, int y) { return 3 * x + y / -2; }", false),
            ("long f(int x) { return (long)x * 1000L; }", false),
        ] {
            let (p, f) = entry(src);
            assert_eq!(nonlinear(&p, f), expected, "{src}");
        }
    }
}
