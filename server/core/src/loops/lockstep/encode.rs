//! The lockstep product of two versions as constrained Horn clauses.
//!
//! Both bodies are cut at their top-level loops ([`super::shape`]); loop
//! `k` of the old version runs in step with loop `k` of the new one. Per
//! loop pair there is one relation `Inv_k(V_old, V_new)` over both
//! versions' locals and globals. The loop-free stretches are encoded by the
//! symbolic executor ([`crate::symbolic::exec`]) run from a state of
//! fresh constants (`old.x`, `new.x`), so every construct means what it
//! means everywhere else. The clauses (each universally quantified):
//!
//! - entry: from the shared inputs, both first stretches reach the first
//!   loop → `Inv_1(end_old, end_new)`;
//! - step: `Inv_k ∧ G_old ∧ G_new ∧ both bodies finish → Inv_k(V_old', V_new')`;
//! - guards in step: `Inv_k ∧ (G_old ≠ G_new) → false`;
//! - exit: `Inv_k ∧ ¬G_old ∧ ¬G_new`, then the next stretches, to
//!   `Inv_{k+1}` or to the end;
//! - bad: wherever a stretch (or a body) can end the run — a return, a
//!   fault — both end and some observable differs (the same "differs"
//!   formula as the bounded checker's), or only one ends and the other,
//!   at a loop head, does not end alike at once (its loop not running and
//!   the stretch after it ending with equal observables). Where both end
//!   and the old version is undefined (C), nothing differs: any behaviour
//!   of the new one refines it; a body in which only the old version ends
//!   undefined while the new one goes on is still bad (conservative).
//!
//! The question is whether `false` is derivable. It is not exactly when
//! the clauses are satisfiable (the relations have inductive
//! interpretations, see `solve.rs` for the solver's polarity): then every
//! pair of runs from equal inputs stays in lockstep and ends alike, a proof
//! with no loop bound and no termination assumption (lockstep runs iterate
//! equally often).

use super::shape::{NotEncodable, Shape, shape};
use crate::ir::{Block, FuncId, Function, GlobalId, LocalId, Program, Semantics, Span, Type};
use crate::symbolic::exec::{
    ArrObj, Executor, OPAQUE_CALLEE, OpaqueCallee, SegmentExits, State, Summary,
};
use crate::symbolic::ops::{EncodeError, FaultCode, Ops, Sym, UfApplication, Ufs};
use crate::symbolic::{InputSpace, InputVar, Strings, index_type};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{FuncDecl, Sort};

/// Why the pair could not be encoded: the construct and the version.
#[derive(Clone, Debug, PartialEq)]
pub struct EncodeFailure {
    pub what: String,
    pub span: Option<Span>,
    /// `None` when it is about the pair (e.g. different loop counts).
    pub in_old: Option<bool>,
    /// The encoding ran out of time (not a limitation of the encoding).
    pub timeout: bool,
}

impl EncodeFailure {
    fn pair(what: impl Into<String>) -> Self {
        EncodeFailure {
            what: what.into(),
            span: None,
            in_old: None,
            timeout: false,
        }
    }
    fn construct(e: NotEncodable, in_old: bool) -> Self {
        EncodeFailure {
            what: e.what,
            span: Some(e.span),
            in_old: Some(in_old),
            timeout: false,
        }
    }
    fn encoding(e: EncodeError, in_old: bool) -> Self {
        EncodeFailure {
            timeout: e.is_timeout(),
            what: e.what,
            span: None,
            in_old: Some(in_old),
        }
    }
}

/// One clause, unquantified: `hypotheses ∧ body → head`, where `body`
/// mentions at most one relation, as that relation's `application` (so a
/// candidate interpretation is put in by substituting it), and the head is
/// a relation applied to terms or `false`.
pub struct Clause {
    pub hypotheses: Vec<Bool>,
    /// The exact meaning of the nonlinear products and divisions the
    /// clause holds as Ackermann constants (`r = a·b`): left out of what
    /// Spacer gets (it rarely finds nonlinear invariants and gives up on
    /// nonlinear division), but a polynomial candidate invariant
    /// (`invariants/fitted.rs`) is checked with it.
    pub interpreted: Vec<Bool>,
    pub body: Bool,
    /// `Some((k, args))`: `Inv_k(args)`; `None`: `false`.
    pub head: Option<(usize, Vec<Dynamic>)>,
}

/// One relation of the system: the invariant of a pair of loops.
pub struct Relation {
    /// Its position in [`Encoding::relations`].
    pub index: usize,
    /// Its parameters: the old version's state constants, then the new
    /// one's (what `application` applies it to).
    pub params: Vec<Dynamic>,
    /// Parameters of the same variable in both versions (old, new index).
    pub same_name: Vec<(usize, usize)>,
    /// Per parameter, whether it is an unsigned integer; empty when no
    /// parameter is (or the relation is not a loop pair's).
    pub unsigned: Vec<bool>,
    /// How many of the parameters are the old version's.
    pub old_arity: usize,
    pub decl: FuncDecl,
    /// `Inv_k` applied to the named state constants (`old.i`, `new.i`):
    /// evaluated in the solver's model it reads as the invariant.
    pub application: Bool,
    pub old_span: Span,
    pub new_span: Span,
    /// Where either loop still runs (`G_old ∨ G_new` over the
    /// parameters); `None` for relations that are not loop invariants.
    pub running: Option<Bool>,
    /// The two loops' guards over the parameters (old, new); `None` for
    /// relations that are not loop invariants.
    pub guards: Option<(Bool, Bool)>,
    /// Where one version's loop is idle (a loop-free version against a
    /// loop, `Shape::idle_loops_first`): whether that is the old version,
    /// and the value it returns, over its parameters in the relation, with
    /// products, quotients and remainders exact — the closed form the
    /// other version's loop computes ([`houdini`](crate::loops::houdini)
    /// tries it at the loop's counter).
    pub closed_form: Option<(bool, Dynamic)>,
}

/// The Horn clauses of the lockstep product of a pair.
pub struct Encoding {
    /// The clauses as Spacer gets them (universally quantified).
    pub rules: Vec<Bool>,
    /// The same clauses, unquantified, for checking candidate invariants.
    pub clauses: Vec<Clause>,
    pub relations: Vec<Relation>,
    /// Functions without an exact encoding the clauses apply (as
    /// Ackermann constants): the proof's assumption that they are
    /// functions (deterministic, no observable effects).
    pub uninterpreted: Vec<String>,
    /// Callees with loops whose calls are uninterpreted functions
    /// (`callees.rs`): the proof holds where they return.
    pub opaque_calls: Vec<String>,
    /// The loops' state holds arrays: an invariant over their elements may
    /// need a quantifier, which the solvers here do not find.
    pub arrays: bool,
    /// Array parameters may be `null` (`symbolic::nullable_arrays`).
    pub nullable_arrays: bool,
    /// The clauses are over bit-vectors (`machine` semantics): Spacer finds
    /// no invariants there in time, the candidates (`houdini.rs`) must.
    pub bit_vectors: bool,
}

/// One version's state as a vector: its scalar locals, its scalar
/// globals, then per array object its length and its elements.
///
/// Arrays enter the state as the objects that exist when the run reaches
/// its first loop (parameters, globals, arrays created before the loop);
/// which object an array variable names is fixed from there on. A loop or
/// a later stretch that points an array variable at another object is
/// refused ([`Layout::values`]); arrays it creates are unreachable at the
/// next loop head (no variable names them) and left out.
struct Layout {
    locals: Vec<(LocalId, Type)>,
    globals: Vec<(GlobalId, Type)>,
    /// Array variables and the object each names at every loop head.
    array_locals: Vec<(LocalId, Sym)>,
    array_globals: Vec<(GlobalId, Sym)>,
    /// Element type of each array object, by object id, and whether it
    /// may be `null` (a nullable array parameter: a flag in the state).
    objects: Vec<(Type, bool)>,
    /// The named constants standing for a state at a loop head.
    vars: Vec<Dynamic>,
    /// The variables' names in the source (pairing the versions' state).
    names: Vec<String>,
    /// Per variable, whether it is an unsigned integer (its order is
    /// `bvule`, not `bvsle`, under `machine`).
    unsigned: Vec<bool>,
}

impl Layout {
    /// The layout of `f`'s state; `at_first_loop` is the state in which
    /// the run reaches its first loop (where the array objects come from),
    /// `loop_spans` where the loops are (their bodies scope the arrays
    /// declared in them).
    fn new(
        ops: &Ops,
        f: &Function,
        program: &Program,
        tag: &str,
        at_first_loop: Option<&State>,
        loop_spans: &[Span],
    ) -> Result<Layout, EncodeError> {
        let mut seen: FxHashMap<String, usize> = FxHashMap::default();
        let mut name = |base: &str| {
            let n = seen.entry(base.to_string()).or_insert(0);
            *n += 1;
            if *n == 1 {
                format!("{tag}.{base}")
            } else {
                format!("{tag}.{base}#{n}")
            }
        };
        let mut locals = Vec::new();
        let mut vars = Vec::new();
        let mut names = Vec::new();
        let mut unsigned = Vec::new();
        let is_unsigned = |ty: &Type| matches!(ty, Type::Int(t) if !t.signed);
        let mut array_locals = Vec::new();
        let mut object_names: FxHashMap<usize, String> = FxHashMap::default();
        for (i, l) in f.locals.iter().enumerate() {
            let id = LocalId(i as u32);
            if let Type::Array(_) = l.ty {
                // A front-end temporary is assigned and read within one
                // statement, so it is dead at every loop head: left out
                // (unset at the head; a read before its assignment would
                // be an encoding error, never a value).
                if l.kind == crate::ir::LocalKind::Temp {
                    continue;
                }
                let value = at_first_loop
                    .and_then(|s| s.locals.get(i).cloned())
                    .unwrap_or(Sym::Void);
                // Likewise an array variable declared inside a loop and not
                // set when the run reaches the first loop: its scope is the
                // body, which sets it before any read in every iteration.
                let in_a_loop = loop_spans
                    .iter()
                    .any(|sp| sp.start <= l.span.start && l.span.end <= sp.end);
                if matches!(value, Sym::Void) && in_a_loop {
                    continue;
                }
                if let Sym::Arr(o) = value {
                    object_names.entry(o).or_insert_with(|| l.name.clone());
                }
                array_locals.push((id, value));
                continue;
            }
            if matches!(l.ty, Type::Void | Type::Str) {
                continue;
            }
            let n = name(&l.name);
            names.push(n.trim_start_matches(tag).to_string());
            vars.push(Dynamic::new_const(n, &ops.sort(&l.ty)?));
            unsigned.push(is_unsigned(&l.ty));
            locals.push((id, l.ty.clone()));
        }
        let mut globals = Vec::new();
        let mut array_globals = Vec::new();
        for (i, g) in program.globals.iter().enumerate() {
            if g.constant.is_some() {
                continue;
            }
            let id = GlobalId(i as u32);
            if let Type::Array(_) = g.ty {
                let value = at_first_loop
                    .and_then(|s| s.globals.get(&id).cloned())
                    .unwrap_or(Sym::Void);
                if let Sym::Arr(o) = value {
                    object_names.entry(o).or_insert_with(|| g.name.clone());
                }
                array_globals.push((id, value));
                continue;
            }
            let n = name(&g.name);
            names.push(n.trim_start_matches(tag).to_string());
            vars.push(Dynamic::new_const(n, &ops.sort(&g.ty)?));
            unsigned.push(is_unsigned(&g.ty));
            globals.push((id, g.ty.clone()));
        }
        let mut objects = Vec::new();
        for (o, obj) in at_first_loop
            .map_or(&[][..], |s| &s.heap[..])
            .iter()
            .enumerate()
        {
            // An object no variable names keeps a positional name (it
            // cannot be read again, but a parameter's is still compared).
            let base = object_names
                .get(&o)
                .cloned()
                .unwrap_or_else(|| format!("array#{o}"));
            let len = name(&format!("{base}.length"));
            names.push(len.trim_start_matches(tag).to_string());
            vars.push(Dynamic::new_const(len, &ops.index_sort()));
            unsigned.push(false);
            let data = name(&base);
            names.push(data.trim_start_matches(tag).to_string());
            let sort = Sort::array(&ops.index_sort(), &ops.sort(&obj.elem)?);
            vars.push(Dynamic::new_const(data, &sort));
            unsigned.push(false);
            if obj.null.is_some() {
                let null = name(&format!("{base}.null"));
                names.push(null.trim_start_matches(tag).to_string());
                vars.push(Dynamic::new_const(null, &Sort::bool()));
                unsigned.push(false);
            }
            objects.push((obj.elem.clone(), obj.null.is_some()));
        }
        Ok(Layout {
            locals,
            globals,
            array_locals,
            array_globals,
            objects,
            vars,
            names,
            unsigned,
        })
    }

    /// Whether the state holds arrays (a failed proof may then need a
    /// quantified invariant).
    fn has_arrays(&self) -> bool {
        !self.objects.is_empty()
    }

    /// A state whose locals, globals and array objects are the layout's
    /// constants.
    fn symbolic_state(
        &self,
        ops: &Ops,
        f: &Function,
        ex: &Executor<'_>,
        pc: Bool,
    ) -> Result<State, EncodeError> {
        let internal = || EncodeError::new("internal: layout");
        let mut locals = vec![Sym::Void; f.locals.len()];
        let mut vars = self.vars.iter();
        for (id, ty) in &self.locals {
            let v = vars.next().ok_or_else(internal)?;
            *locals.get_mut(id.0 as usize).ok_or_else(internal)? = ops.from_dyn(ty, v)?;
        }
        for (id, value) in &self.array_locals {
            *locals.get_mut(id.0 as usize).ok_or_else(internal)? = value.clone();
        }
        let mut globals = FxHashMap::default();
        for (id, ty) in &self.globals {
            let v = vars.next().ok_or_else(internal)?;
            globals.insert(*id, ops.from_dyn(ty, v)?);
        }
        for (id, value) in &self.array_globals {
            if !matches!(value, Sym::Void) {
                globals.insert(*id, value.clone());
            }
        }
        let mut heap = Vec::new();
        for (elem, nullable) in &self.objects {
            let len = vars.next().ok_or_else(internal)?;
            let data = vars.next().ok_or_else(internal)?;
            let null = match nullable {
                true => Some(vars.next().and_then(|v| v.as_bool()).ok_or_else(internal)?),
                false => None,
            };
            heap.push(ArrObj {
                len: ops.from_dyn(&index_type(ops), len)?,
                data: data.as_array().ok_or_else(internal)?,
                elem: elem.clone(),
                null,
                items: None,
            });
        }
        Ok(State {
            pc,
            locals,
            globals,
            heap,
            prints: ex.empty_prints(),
            thrown: None,
        })
    }

    /// The values of a state, in layout order; an error when an array
    /// variable names another object than at the first loop.
    fn values(&self, s: &State) -> Result<Vec<Dynamic>, EncodeError> {
        let missing = || EncodeError::new("internal: state value missing");
        let mut out = Vec::new();
        for (id, _) in &self.locals {
            let v = s.locals.get(id.0 as usize).ok_or_else(missing)?;
            out.push(v.to_dyn().ok_or_else(missing)?);
        }
        for (id, _) in &self.globals {
            out.push(
                s.globals
                    .get(id)
                    .and_then(Sym::to_dyn)
                    .ok_or_else(missing)?,
            );
        }
        let same_object = |a: Option<&Sym>, b: &Sym| match (a, b) {
            (Some(Sym::Arr(x)), Sym::Arr(y)) => x == y,
            (None | Some(Sym::Void), Sym::Void) => true,
            _ => false,
        };
        let moved = self
            .array_locals
            .iter()
            .any(|(id, v)| !same_object(s.locals.get(id.0 as usize), v))
            || self
                .array_globals
                .iter()
                .any(|(id, v)| !same_object(s.globals.get(id), v));
        if moved {
            return Err(EncodeError::new(
                "an array variable that names another array after the first loop \
                 in a method with loops",
            ));
        }
        // Arrays created since the first loop (by the stretch itself, or
        // a callee's local array) are dropped: no array variable names them
        // (checked above; temporaries are dead here) and no array holds
        // references, so nothing after this point can reach them.
        if s.heap.len() < self.objects.len() {
            return Err(missing());
        }
        for (obj, (_, nullable)) in s.heap.iter().zip(&self.objects) {
            out.push(obj.len.to_dyn().ok_or_else(missing)?);
            out.push(Dynamic::from_ast(&obj.data));
            if *nullable {
                out.push(Dynamic::from_ast(obj.null.as_ref().ok_or_else(missing)?));
            }
        }
        Ok(out)
    }
}

/// A loop-free stretch of one version, run from a known state.
struct Step {
    /// Reaches the stretch's end and goes on (to the next loop head).
    cont: Bool,
    /// The state vector there (`None` when nothing reaches it).
    cont_values: Option<Vec<Dynamic>>,
    /// Ends the run inside the stretch (a return, a fault).
    term: Bool,
    /// Ends the run inside the stretch other than in undefined behaviour
    /// (`term` in Java): where the old version ends undefined (C), any
    /// behaviour of the new one is allowed (see
    /// [`crate::symbolic::difference`]), also when the new one, alone,
    /// goes on looping (see [`interleaved_clauses`]).
    term_defined: Bool,
    /// What the run shows when it ends here.
    summary: Summary,
}

/// Everything the rules need from one version.
struct Pieces {
    layout: Layout,
    entry: Step,
    /// Per loop: guard over the layout's constants, one iteration (from the
    /// layout's constants, guard true), the stretch after it (guard false).
    guards: Vec<Bool>,
    /// Per loop: where evaluating the guard fails (a `null` array's
    /// `length`; `false` for most guards). Every head state must avoid it
    /// (a bad clause): then `guards` is the guard wherever it is
    /// evaluated.
    guard_faults: Vec<Bool>,
    bodies: Vec<Step>,
    after: Vec<Step>,
    spans: Vec<Span>,
}

#[allow(clippy::too_many_arguments)]
fn version_pieces(
    ops: Ops,
    program: &Program,
    func: FuncId,
    f: &Function,
    shape: &Shape,
    opaque: &BTreeMap<FuncId, OpaqueCallee>,
    inputs: &mut InputSpace,
    ufs: &mut Ufs,
    strings: &mut Strings,
    deadline: Instant,
    tag: &str,
) -> Result<Pieces, EncodeFailure> {
    let in_old = tag == "old";
    let enc = |e: EncodeError| EncodeFailure::encoding(e, in_old);
    let mut apps = crate::abstraction::Applications::default();
    // The executor's loop bound never matters: stretches hold no loops, and
    // a callee that needs one is refused below (a bound hit).
    let mut ex = Executor::new(
        ops, program, inputs, ufs, strings, 8, deadline, None, &mut apps,
    );
    ex.set_opaque(opaque.clone());
    let last = shape.loops.len();
    ex.ufs.origin = origin(0, in_old);
    let entry_state = ex.entry_state(func).map_err(enc)?;
    // The parameters' arrays, compared at every end like the bounded
    // checkers compare them (the objects, even if a parameter is pointed
    // elsewhere later).
    let param_arrays: Vec<(usize, usize)> = f
        .params
        .iter()
        .enumerate()
        .filter_map(|(pos, p)| match entry_state.locals.get(p.0 as usize) {
            Some(Sym::Arr(o)) => Some((pos, *o)),
            _ => None,
        })
        .collect();
    let exits = ex
        .segment(func, &shape.segments[0], entry_state)
        .map_err(enc)?;
    let loop_spans: Vec<Span> = shape.loops.iter().map(|l| l.span).collect();
    let layout =
        Layout::new(&ops, f, program, tag, exits.end.as_ref(), &loop_spans).map_err(enc)?;
    let entry = step(&mut ex, &layout, f, &param_arrays, exits, last == 0).map_err(enc)?;
    let mut guards = Vec::new();
    let mut guard_faults = Vec::new();
    let mut bodies = Vec::new();
    let mut after = Vec::new();
    for (k, lp) in shape.loops.iter().enumerate() {
        ex.ufs.origin = origin(1 + 2 * k, in_old);
        let mut head = layout
            .symbolic_state(&ops, f, &ex, Bool::from_bool(true))
            .map_err(enc)?;
        let (g, faults) = ex.condition(&lp.cond, &mut head).map_err(enc)?;
        // A guard may fail: a nullable array's `length`, an index, a
        // division, in C a signed `i + 1` overflowing (undefined under
        // `machine`), or a guard brought from the other version by a
        // rearrangement. The invariant must then show that no head state
        // makes it fail (a bad clause, `guard_faults`); proved, the guard
        // is its value wherever it is evaluated, and a rearranged run
        // evaluates only guards that cannot fail, as `rearrange.rs` needs.
        let run = |ex: &mut Executor<'_>, pc: Bool, stmts: &Block, last: bool| {
            let s = layout.symbolic_state(&ops, f, ex, pc)?;
            let exits = ex.segment(func, stmts, s)?;
            step(ex, &layout, f, &param_arrays, exits, last)
        };
        bodies.push(run(&mut ex, g.clone(), &lp.body, false).map_err(enc)?);
        ex.ufs.origin = origin(2 + 2 * k, in_old);
        let ends = shape.after_destination(k).is_none();
        after.push(run(&mut ex, g.not(), &shape.segments[k + 1], ends).map_err(enc)?);
        guards.push(g);
        guard_faults.push(Bool::or(
            &faults
                .iter()
                .map(|(state, _)| state.pc.clone())
                .collect::<Vec<_>>(),
        ));
    }
    Ok(Pieces {
        layout,
        entry,
        guards,
        guard_faults,
        bodies,
        after,
        spans: shape.loops.iter().map(|l| l.span).collect(),
    })
}

/// Collects a stretch's exits. In the last stretch, falling off the end is
/// a return (of zero for a non-void C function, as in the executor).
fn step(
    ex: &mut Executor<'_>,
    layout: &Layout,
    f: &Function,
    param_arrays: &[(usize, usize)],
    exits: SegmentExits,
    last: bool,
) -> Result<Step, EncodeError> {
    let SegmentExits {
        end,
        mut returns,
        faults,
        bounded,
    } = exits;
    if !bounded.is_empty() {
        return Err(EncodeError::new(
            "a call to a function with a loop or recursion in a method with loops",
        ));
    }
    let states = end
        .iter()
        .chain(returns.iter().map(|r| &r.0))
        .chain(faults.iter().map(|r| &r.0));
    for s in states {
        if s.prints.len.simplify().as_i64() != Some(0) {
            return Err(EncodeError::new("printing in a method with loops"));
        }
    }
    let mut cont = Bool::from_bool(false);
    let mut cont_values = None;
    match end {
        Some(e) if last => {
            let v = match &f.ret {
                Type::Void | Type::Array(_) | Type::Str => Sym::Void,
                t => ex.ops.zero(t)?,
            };
            returns.push((e, v));
        }
        Some(e) => {
            cont = e.pc.clone();
            cont_values = Some(layout.values(&e)?);
        }
        None => {}
    }
    let pcs: Vec<Bool> = returns
        .iter()
        .map(|r| r.0.pc.clone())
        .chain(faults.iter().map(|r| r.0.pc.clone()))
        .collect();
    let term = Bool::or(&pcs);
    let undefined = |code: &FaultCode| {
        ex.ops.lang == crate::ir::Lang::C && code.outcome(ex.ops.lang) == FaultCode::UNDEFINED
    };
    let defined_pcs: Vec<Bool> = returns
        .iter()
        .map(|r| r.0.pc.clone())
        .chain(
            faults
                .iter()
                .filter(|(_, code)| !undefined(code))
                .map(|r| r.0.pc.clone()),
        )
        .collect();
    let term_defined = Bool::or(&defined_pcs);
    // A stretch that never ends the run has nothing to compare (and its
    // summary no heap to find the parameters' arrays in).
    let param_arrays = if pcs.is_empty() {
        Vec::new()
    } else {
        param_arrays.to_vec()
    };
    let normal = ex.merge_returns(returns)?;
    let summary = ex.summarize(
        normal,
        faults,
        f.ret.clone(),
        param_arrays,
        Bool::from_bool(false),
    )?;
    Ok(Step {
        cont,
        cont_values,
        term,
        term_defined,
        summary,
    })
}

/// A version's function and its shape, cut at its loops.
pub struct Version<'p> {
    pub program: &'p Program,
    pub func: FuncId,
    pub body: &'p Function,
    pub shape: Shape,
    /// Callees run as uninterpreted functions (`callees.rs`).
    pub opaque: &'p BTreeMap<FuncId, OpaqueCallee>,
}

/// No opaque callees.
static NO_OPAQUE: BTreeMap<FuncId, OpaqueCallee> = BTreeMap::new();

impl<'p> Version<'p> {
    /// `func` of `program`, cut at its loops (`in_old` says which version,
    /// for the error).
    pub fn new(program: &'p Program, func: FuncId, in_old: bool) -> Result<Self, EncodeFailure> {
        let body = program
            .function(func)
            .body
            .as_ref()
            .map_err(|e| EncodeFailure {
                what: e.what.clone(),
                span: Some(e.span),
                in_old: Some(in_old),
                timeout: false,
            })?;
        let shape = shape(body).map_err(|e| EncodeFailure::construct(e, in_old))?;
        Ok(Version {
            program,
            func,
            body,
            shape,
            opaque: &NO_OPAQUE,
        })
    }

    /// The same version with calls of `opaque` run as uninterpreted
    /// functions.
    pub fn with_opaque(self, opaque: &'p BTreeMap<FuncId, OpaqueCallee>) -> Self {
        Version { opaque, ..self }
    }
}

/// How the two versions' loops are composed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    /// Guards required equal at every head: a proof is total equivalence.
    Lockstep,
    /// Where only one guard holds, that version's loop steps alone while
    /// the other waits at its head (loops without inner loops only; a body
    /// that ends the run while the other waits is a bad state unless the
    /// waiting version ends alike at once). Every
    /// pair of terminating runs from equal inputs is one run of this
    /// product, so a proof is equivalence where both terminate.
    Interleaved,
}

/// Encodes the lockstep product of `old` and `new` as Horn clauses.
pub fn encode(
    ops: Ops,
    old: &Version<'_>,
    new: &Version<'_>,
    deadline: Instant,
) -> Result<Encoding, EncodeFailure> {
    encode_product(ops, old, new, deadline, Product::Lockstep)
}

/// Encodes the product of `old` and `new` as Horn clauses.
pub fn encode_product(
    ops: Ops,
    old: &Version<'_>,
    new: &Version<'_>,
    deadline: Instant,
    product: Product,
) -> Result<Encoding, EncodeFailure> {
    let n_loops = pairable(ops, old, new)?;
    let mut inputs = InputSpace::for_programs(&[old.program, new.program]);
    let mut ufs = Ufs::ackermann();
    let mut strings = Strings::default();
    let o = version_pieces(
        ops,
        old.program,
        old.func,
        old.body,
        &old.shape,
        old.opaque,
        &mut inputs,
        &mut ufs,
        &mut strings,
        deadline,
        "old",
    )?;
    let n = version_pieces(
        ops,
        new.program,
        new.func,
        new.body,
        &new.shape,
        new.opaque,
        &mut inputs,
        &mut ufs,
        &mut strings,
        deadline,
        "new",
    )?;
    if !ufs.facts.is_empty() {
        return Err(EncodeFailure::pair(
            "internal: a fact about an uninterpreted function outside Ackermann mode",
        ));
    }
    let input_vars: Vec<Dynamic> = inputs.vars.iter().flat_map(InputVar::constants).collect();
    let mut state_vars: Vec<Dynamic> = o.layout.vars.clone();
    state_vars.extend(n.layout.vars.iter().cloned());
    let mut quantified: Vec<Dynamic> = input_vars;
    quantified.extend(state_vars);

    let mut relations = (0..n_loops)
        .map(|k| relation(&o, &n, k))
        .collect::<Result<Vec<_>, _>>()?;
    for (k, rel) in relations.iter_mut().enumerate() {
        rel.closed_form = closed_form(&o, k, ufs.applications())
            .map(|t| (true, t))
            .or_else(|| closed_form(&n, k, ufs.applications()).map(|t| (false, t)));
    }

    let mut rules = Rules {
        quantified,
        applications: ufs.applications().to_vec(),
        rules: Vec::new(),
        clauses: Vec::new(),
    };
    let pre0 = Bool::and(&inputs.preconditions());
    let sides = Sides {
        ops,
        inputs: &inputs,
        o: &o,
        n: &n,
    };
    let differs = sides.differs(&o.entry, &n.entry)?;
    let al = sides.alike(0, &o.entry, &n.entry, &mut rules.applications)?;
    rules.stretch(pre0, &o.entry, &n.entry, differs, al, relations.first())?;
    for k in 0..n_loops {
        loop_clauses(&mut rules, &sides, &relations, &old.shape, product, k)?;
    }
    Ok(Encoding {
        rules: rules.rules,
        clauses: rules.clauses,
        relations,
        // Products, quotients and remainders are exact operations the
        // encoding chose to abstract (see `Ufs::abstracts_nonlinear`): no
        // assumption about them.
        uninterpreted: ufs
            .used
            .iter()
            .filter(|f| {
                !matches!(f.as_str(), "mul" | "div" | "rem") && !f.starts_with(OPAQUE_CALLEE)
            })
            .cloned()
            .collect(),
        opaque_calls: ufs
            .used
            .iter()
            .filter_map(|f| f.strip_prefix(OPAQUE_CALLEE).map(str::to_string))
            .collect(),
        arrays: o.layout.has_arrays() || n.layout.has_arrays(),
        nullable_arrays: inputs.nullable_arrays,
        bit_vectors: ops.sem == Semantics::Machine,
    })
}

/// The number of loop pairs when `old` and `new` can run as one product
/// (as many loops, nested alike, no machine floats, the same globals), or
/// why not.
fn pairable(ops: Ops, old: &Version<'_>, new: &Version<'_>) -> Result<usize, EncodeFailure> {
    let (n_old, n_new) = (old.shape.loops.len(), new.shape.loops.len());
    if n_old == 0 && n_new == 0 {
        return Err(EncodeFailure::pair("no loops"));
    }
    if n_old != n_new {
        return Err(EncodeFailure::pair(format!(
            "the versions have {n_old} and {n_new} top-level loops \
             (aligning unbalanced loops is not implemented yet)"
        )));
    }
    let parents = |s: &Shape| s.loops.iter().map(|l| l.parent).collect::<Vec<_>>();
    if parents(&old.shape) != parents(&new.shape) {
        return Err(EncodeFailure::pair(
            "the versions nest their loops differently (lockstep needs the same nesting)",
        ));
    }
    if ops.sem == Semantics::Machine
        && [old.body, new.body]
            .iter()
            .any(|f| f.locals.iter().any(|l| matches!(l.ty, Type::Float(_))))
    {
        return Err(EncodeFailure::pair(
            "floating point under machine semantics in a method with loops",
        ));
    }
    if global_names(old.program) != global_names(new.program) {
        return Err(EncodeFailure::pair(
            "the versions have different global variables",
        ));
    }
    Ok(n_old)
}

/// The relation `inv{k+1}` over both versions' state at loop pair `k`'s
/// heads.
fn relation(o: &Pieces, n: &Pieces, k: usize) -> Result<Relation, EncodeFailure> {
    let domain: Vec<Sort> = o
        .layout
        .vars
        .iter()
        .chain(&n.layout.vars)
        .map(|v| v.get_sort())
        .collect();
    let refs: Vec<&Sort> = domain.iter().collect();
    let decl = FuncDecl::new(format!("inv{}", k + 1), &refs, &Sort::bool());
    let application = apply(&decl, o.layout.vars.iter().chain(&n.layout.vars))
        .ok_or_else(|| EncodeFailure::pair("internal: relation application"))?;
    let params: Vec<Dynamic> = o
        .layout
        .vars
        .iter()
        .chain(&n.layout.vars)
        .cloned()
        .collect();
    let old_arity = o.layout.vars.len();
    let same_name = o
        .layout
        .names
        .iter()
        .enumerate()
        .filter_map(|(i, name)| {
            let j = n.layout.names.iter().position(|m| m == name)?;
            (params[i].get_sort() == params[old_arity + j].get_sort()).then_some((i, old_arity + j))
        })
        .collect();
    let unsigned = o
        .layout
        .unsigned
        .iter()
        .chain(&n.layout.unsigned)
        .copied()
        .collect();
    Ok(Relation {
        index: k,
        params,
        same_name,
        unsigned,
        old_arity,
        decl,
        application,
        old_span: o.spans[k],
        new_span: n.spans[k],
        running: Some(Bool::or(&[&o.guards[k], &n.guards[k]])),
        guards: Some((o.guards[k].clone(), n.guards[k].clone())),
        closed_form: None,
    })
}

/// The value version `v` returns after its last loop, when its loop `k`
/// is idle (its guard is `false`): a term over its state at the loop's
/// head, products and quotients made exact from `applications`.
fn closed_form(v: &Pieces, k: usize, applications: &[UfApplication]) -> Option<Dynamic> {
    if v.guards.get(k)?.simplify().as_bool() != Some(false) {
        return None;
    }
    let ret = v.after.last()?.summary.ret.to_dyn()?;
    if ret.as_int().is_none() && ret.as_bv().is_none() {
        return None;
    }
    let exact: Vec<(Dynamic, Dynamic)> = applications
        .iter()
        .filter_map(|a| Some((a.result.clone(), crate::symbolic::ops::exact_term(a)?)))
        .collect();
    let pairs: Vec<(&Dynamic, &Dynamic)> = exact.iter().map(|(a, b)| (a, b)).collect();
    // Arguments may hold earlier applications' results: substitute until
    // none is left (each round removes one level of nesting).
    let mut term = ret;
    for _ in 0..8 {
        let next = term.substitute(&pairs);
        if next.get_z3_ast() == term.get_z3_ast() {
            return applications
                .iter()
                .all(|a| !mentions(&term, &a.result))
                .then(|| term.simplify());
        }
        term = next;
    }
    None
}

/// An encoding error about the pair, not one version.
fn pair_err(e: EncodeError) -> EncodeFailure {
    EncodeFailure {
        timeout: e.is_timeout(),
        what: e.what,
        span: None,
        in_old: None,
    }
}

/// Both versions' pieces over their shared input space: what the clauses
/// of a stretch compare.
struct Sides<'a> {
    ops: Ops,
    inputs: &'a InputSpace,
    o: &'a Pieces,
    n: &'a Pieces,
}

impl Sides<'_> {
    /// "Some observable differs" between the ends of `a` (old) and `b`
    /// (new), with its witnesses.
    fn differs(&self, a: &Step, b: &Step) -> Result<(Bool, Vec<Dynamic>), EncodeFailure> {
        crate::symbolic::difference(&self.ops, self.inputs, &a.summary, &b.summary)
            .map_err(pair_err)
    }

    /// One version (`a`, the old one when `a_is_old`) reaches loop `j`'s
    /// head while the other has ended: fine exactly when loop `j` does not
    /// run and the stretch after it ends the run alike (e.g. an early
    /// `return` added before a loop that would not have run). More than
    /// that would need a solo invariant.
    fn ends_alike(
        &self,
        a: &Pieces,
        a_is_old: bool,
        j: usize,
        step: &Step,
        other: &Step,
        applications: &mut Vec<UfApplication>,
    ) -> Result<(Bool, Vec<Dynamic>), EncodeFailure> {
        let Some(vals) = &step.cont_values else {
            return Ok((Bool::from_bool(false), Vec::new()));
        };
        let (fine, witnesses) = self.waits_alike(a, a_is_old, j, other)?;
        let sigma: Vec<(Dynamic, Dynamic)> = a
            .layout
            .vars
            .iter()
            .cloned()
            .zip(vals.iter().cloned())
            .collect();
        Ok((instantiated(&fine, sigma, applications), witnesses))
    }

    /// [`Sides::ends_alike`] for a version waiting at loop `j`'s head in
    /// its head state (`a.layout.vars`) while the other's `other` ended.
    fn waits_alike(
        &self,
        a: &Pieces,
        a_is_old: bool,
        j: usize,
        other: &Step,
    ) -> Result<(Bool, Vec<Dynamic>), EncodeFailure> {
        let (Some(g), Some(after), Some(fails)) =
            (a.guards.get(j), a.after.get(j), a.guard_faults.get(j))
        else {
            return Ok((Bool::from_bool(false), Vec::new()));
        };
        let (differs, witnesses) = if a_is_old {
            crate::symbolic::difference(&self.ops, self.inputs, &after.summary, &other.summary)
        } else {
            crate::symbolic::difference(&self.ops, self.inputs, &other.summary, &after.summary)
        }
        .map_err(pair_err)?;
        let fine = Bool::and(&[&fails.not(), &g.not(), &after.term, &differs.not()]);
        Ok((fine, witnesses))
    }

    /// [`Sides::ends_alike`] both ways, after stretches `a` (old) and `b`
    /// (new) reaching loop `j`.
    fn alike(
        &self,
        j: usize,
        a: &Step,
        b: &Step,
        applications: &mut Vec<UfApplication>,
    ) -> Result<Alike, EncodeFailure> {
        let (old_alike, mut witnesses) = self.ends_alike(self.o, true, j, a, b, applications)?;
        let (new_alike, w) = self.ends_alike(self.n, false, j, b, a, applications)?;
        witnesses.extend(w);
        Ok(Alike {
            old_alone: old_alike,
            new_alone: new_alike,
            witnesses,
        })
    }
}

/// The clauses of loop pair `k`: its heads, its bodies and the stretches
/// after it.
fn loop_clauses(
    rules: &mut Rules,
    sides: &Sides<'_>,
    relations: &[Relation],
    old_shape: &Shape,
    product: Product,
    k: usize,
) -> Result<(), EncodeFailure> {
    let (o, n) = (sides.o, sides.n);
    let inv = &relations[k].application;
    let (go, gn) = (&o.guards[k], &n.guards[k]);
    // No head state may make a guard fail (see `Pieces::guard_faults`).
    let fails = Bool::or(&[&o.guard_faults[k], &n.guard_faults[k]]);
    if fails.simplify().as_bool() != Some(false) {
        rules.add(Bool::and(&[inv, &fails]), None, &[]);
    }
    // The body runs to its first inner loop's head or back to its own;
    // after the exit the run goes to the next loop at the same level,
    // the enclosing loop's head or the end (the same in both versions,
    // checked by `pairable`).
    let into = old_shape.body_destination(k);
    if product == Product::Interleaved && into == k {
        interleaved_clauses(rules, sides, &relations[k])?;
    } else {
        // Guards agree at every head: the loops run in lockstep.
        rules.add(Bool::and(&[inv, &go.xor(gn)]), None, &[]);
    }
    let differs = sides.differs(&o.bodies[k], &n.bodies[k])?;
    let al = sides.alike(into, &o.bodies[k], &n.bodies[k], &mut rules.applications)?;
    rules.stretch(
        Bool::and(&[inv, go, gn]),
        &o.bodies[k],
        &n.bodies[k],
        differs,
        al,
        relations.get(into),
    )?;
    let differs = sides.differs(&o.after[k], &n.after[k])?;
    let next = old_shape.after_destination(k);
    let al = sides.alike(
        next.unwrap_or(usize::MAX),
        &o.after[k],
        &n.after[k],
        &mut rules.applications,
    )?;
    rules.stretch(
        Bool::and(&[inv, &go.not(), &gn.not()]),
        &o.after[k],
        &n.after[k],
        differs,
        al,
        next.and_then(|j| relations.get(j)),
    )
}

/// The interleaved product's head clauses for `rel`'s loop pair: one loop
/// steps alone while the other waits at its head (its state unchanged); a
/// body that ends the run meanwhile is a bad state unless the waiting
/// version ends alike at once.
fn interleaved_clauses(
    rules: &mut Rules,
    sides: &Sides<'_>,
    rel: &Relation,
) -> Result<(), EncodeFailure> {
    let (o, n) = (sides.o, sides.n);
    let k = rel.index;
    let inv = &rel.application;
    let (go, gn) = (&o.guards[k], &n.guards[k]);
    let (ob, nb) = (&o.bodies[k], &n.bodies[k]);
    let old_alone = Bool::and(&[inv, go, &gn.not()]);
    if let Some(vals) = &ob.cont_values {
        rules.reach(
            Bool::and(&[&old_alone, &ob.cont]),
            rel,
            vals,
            &n.layout.vars,
        )?;
    }
    // A body that ends the run while the other version waits at its head
    // is bad unless the waiting version ends alike at once (its loop does
    // not run and the stretch after it ends the run with equal
    // observables): a search loop's `return` against a direct test.
    let (waits, witnesses) = sides.waits_alike(n, false, k, ob)?;
    rules.add(
        Bool::and(&[&old_alone, &ob.term_defined, &waits.not()]),
        None,
        &witnesses,
    );
    let new_alone = Bool::and(&[inv, &go.not(), gn]);
    if let Some(vals) = &nb.cont_values {
        rules.reach(
            Bool::and(&[&new_alone, &nb.cont]),
            rel,
            &o.layout.vars,
            vals,
        )?;
    }
    let (waits, witnesses) = sides.waits_alike(o, true, k, nb)?;
    rules.add(
        Bool::and(&[&new_alone, &nb.term, &waits.not()]),
        None,
        &witnesses,
    );
    Ok(())
}

/// Where one version ended and the other reached a loop head: when the
/// latter still ends alike (its loop does not run, the stretch after it
/// ends the run with equal observables), over the stretch's start state.
struct Alike {
    old_alone: Bool,
    new_alone: Bool,
    /// Witnesses of the two "differs" formulas inside.
    witnesses: Vec<Dynamic>,
}

/// The clauses being built, each quantified over every input and state
/// constant (plus its own witnesses and the results of the uninterpreted
/// function applications it mentions).
struct Rules {
    quantified: Vec<Dynamic>,
    /// Applications of functions without an exact encoding (`exp`, `pow`,
    /// bitwise operators under `math`), as Ackermann constants.
    applications: Vec<UfApplication>,
    rules: Vec<Bool>,
    clauses: Vec<Clause>,
}

impl Rules {
    /// Adds `body → head` (`head`: relation `k` applied to the terms, or
    /// `false`), quantified over `extra` too.
    fn add(&mut self, body: Bool, head: Option<(usize, Bool, Vec<Dynamic>)>, extra: &[Dynamic]) {
        let mut vars: Vec<&dyn Ast> = self.quantified.iter().map(|v| v as &dyn Ast).collect();
        vars.extend(extra.iter().map(|v| v as &dyn Ast));
        let head_formula = match &head {
            Some((_, app, _)) => app.clone(),
            None => Bool::from_bool(false),
        };
        let rule = body.implies(&head_formula);
        let (hypotheses, results, interpreted) = self.ackermann(&rule);
        vars.extend(results.iter().map(|v| v as &dyn Ast));
        let quantified_rule = if hypotheses.is_empty() {
            rule
        } else {
            Bool::and(&hypotheses).implies(&rule)
        };
        let (quantified_rule, named) =
            crate::loops::invariants::solve::name_array_conditionals(&quantified_rule);
        vars.extend(named.iter().map(|v| v as &dyn Ast));
        self.rules
            .push(z3::ast::forall_const(&vars, &[], &quantified_rule));
        self.clauses.push(Clause {
            hypotheses,
            interpreted,
            body,
            head: head.map(|(k, _, args)| (k, args)),
        });
    }

    /// The applications `rule` mentions (directly or inside the arguments
    /// of one it mentions): their results, to quantify, and as hypotheses
    /// their facts and Ackermann's constraints (equal arguments → equal
    /// results) pairwise. Such a clause is at least as strong as the
    /// clause with any function that satisfies the facts in place of the
    /// constants, so invariants for it are invariants for every such
    /// function.
    fn ackermann(&self, rule: &Bool) -> (Vec<Bool>, Vec<Dynamic>, Vec<Bool>) {
        let mut included = vec![false; self.applications.len()];
        let mut terms: Vec<Dynamic> = vec![Dynamic::from_ast(rule)];
        loop {
            let mut grew = false;
            for (i, app) in self.applications.iter().enumerate() {
                if included[i] || !terms.iter().any(|t| mentions(t, &app.result)) {
                    continue;
                }
                included[i] = true;
                terms.extend(app.args.iter().cloned());
                grew = true;
            }
            if !grew {
                break;
            }
        }
        let apps: Vec<&UfApplication> = self
            .applications
            .iter()
            .zip(&included)
            .filter_map(|(a, inc)| inc.then_some(a))
            .collect();
        let mut hypotheses: Vec<Bool> = apps.iter().flat_map(|a| a.facts.iter().cloned()).collect();
        for (i, a) in apps.iter().enumerate() {
            for b in &apps[i + 1..] {
                // Only between the two versions' runs of corresponding
                // stretches, where a lockstep proof needs "equal operands,
                // equal results"; leaving a constraint out only makes the
                // clause stronger (still sound) and keeps it small (the
                // constraints are quadratic in the applications).
                if a.key != b.key
                    || a.args.len() != b.args.len()
                    || !corresponding(a.origin, b.origin)
                {
                    continue;
                }
                let args_eq: Vec<Bool> = a.args.iter().zip(&b.args).map(|(x, y)| x.eq(y)).collect();
                let mut same_args = Bool::and(&args_eq);
                // The uninterpreted product is commutative, as the real one.
                if a.key.starts_with("mul:") && a.args.len() == 2 {
                    let swapped = Bool::and(&[a.args[0].eq(&b.args[1]), a.args[1].eq(&b.args[0])]);
                    same_args = Bool::or(&[same_args, swapped]);
                }
                hypotheses.push(same_args.implies(a.result.eq(&b.result)));
            }
        }
        let interpreted = apps
            .iter()
            .filter_map(|a| crate::symbolic::ops::interpretation(a))
            .collect();
        (
            hypotheses,
            apps.iter().map(|a| a.result.clone()).collect(),
            interpreted,
        )
    }

    /// Adds `body → rel(old_values, new_values)`.
    fn reach(
        &mut self,
        body: Bool,
        rel: &Relation,
        old_values: &[Dynamic],
        new_values: &[Dynamic],
    ) -> Result<(), EncodeFailure> {
        let head = apply(&rel.decl, old_values.iter().chain(new_values))
            .ok_or_else(|| EncodeFailure::pair("internal: relation application"))?;
        let args: Vec<Dynamic> = old_values.iter().chain(new_values).cloned().collect();
        self.add(body, Some((rel.index, head, args)), &[]);
        Ok(())
    }

    /// Where both versions run a stretch from `pre`: they go on together
    /// to `next`'s loop head, or end alike (`differs` is "some observable
    /// differs" between the two ends, with its witnesses).
    fn stretch(
        &mut self,
        pre: Bool,
        a: &Step,
        b: &Step,
        (differs, mut witnesses): (Bool, Vec<Dynamic>),
        alike: Alike,
        next: Option<&Relation>,
    ) -> Result<(), EncodeFailure> {
        witnesses.extend(alike.witnesses);
        if let (Some(next), Some(va), Some(vb)) = (next, &a.cont_values, &b.cont_values) {
            self.reach(Bool::and(&[&pre, &a.cont, &b.cont]), next, va, vb)?;
        }
        let mismatch = Bool::or(&[
            Bool::and(&[&a.cont, &b.term, &alike.old_alone.not()]),
            Bool::and(&[&a.term, &b.cont, &alike.new_alone.not()]),
            Bool::and(&[&a.term, &b.term, &differs]),
        ]);
        self.add(Bool::and(&[&pre, &mismatch]), None, &witnesses);
        Ok(())
    }
}

/// The [`Ufs::origin`] of applications made while running stretch `stretch`
/// (0 the entry, then per loop its body and the stretch after it) of one
/// version.
fn origin(stretch: usize, in_old: bool) -> u32 {
    (stretch as u32) * 2 + u32::from(!in_old)
}

/// Applications made by the two versions in the same stretch.
fn corresponding(a: u32, b: u32) -> bool {
    a / 2 == b / 2 && a % 2 != b % 2
}

/// `formula` with `sigma` applied, where the uninterpreted applications it
/// mentions (Ackermann constants, recorded with their arguments over the
/// state the formula was made in) are instantiated too: an application
/// whose arguments the substitution changes gets a fresh result constant
/// with its arguments and facts substituted, recorded in `applications`.
/// Substituting the formula alone would leave its products standing for
/// the products of the *unsubstituted* state, a free one in the clause
/// that uses it: sound (the clause only gets stronger) but too strong to
/// hold.
fn instantiated(
    formula: &Bool,
    mut sigma: Vec<(Dynamic, Dynamic)>,
    applications: &mut Vec<UfApplication>,
) -> Bool {
    let mut copies = Vec::new();
    // In creation order: an application's arguments mention only the
    // results of earlier ones, whose renaming is then in `sigma`.
    for app in applications.iter() {
        let pairs: Vec<(&Dynamic, &Dynamic)> = sigma.iter().map(|(a, b)| (a, b)).collect();
        let args: Vec<Dynamic> = app.args.iter().map(|a| a.substitute(&pairs)).collect();
        if args
            .iter()
            .zip(&app.args)
            .all(|(x, y)| x.get_z3_ast() == y.get_z3_ast())
        {
            continue;
        }
        let result = Dynamic::fresh_const("inst", &app.result.get_sort());
        sigma.push((app.result.clone(), result.clone()));
        let pairs: Vec<(&Dynamic, &Dynamic)> = sigma.iter().map(|(a, b)| (a, b)).collect();
        let facts = app.facts.iter().map(|f| f.substitute(&pairs)).collect();
        copies.push(UfApplication {
            key: app.key.clone(),
            args,
            result,
            facts,
            origin: app.origin,
        });
    }
    applications.extend(copies);
    let pairs: Vec<(&Dynamic, &Dynamic)> = sigma.iter().map(|(a, b)| (a, b)).collect();
    formula.substitute(&pairs)
}

/// Whether `term` contains the constant `c`: replacing it changes the term
/// (terms are hash-consed, so an unchanged term is the same pointer). No
/// classification of Z3 terms by kind (wrong on libz3 4.8.12).
pub(in crate::loops) fn mentions(term: &Dynamic, c: &Dynamic) -> bool {
    let probe = Dynamic::fresh_const("probe", &c.get_sort());
    term.substitute(&[(c, &probe)]).get_z3_ast() != term.get_z3_ast()
}

fn global_names(p: &Program) -> Vec<&str> {
    let mut v: Vec<&str> = p
        .globals
        .iter()
        .filter(|g| g.is_input())
        .map(|g| g.name.as_str())
        .collect();
    v.sort_unstable();
    v
}

fn apply<'a>(decl: &FuncDecl, args: impl Iterator<Item = &'a Dynamic>) -> Option<Bool> {
    let args: Vec<&dyn Ast> = args.map(|a| a as &dyn Ast).collect();
    decl.apply(&args).as_bool()
}
