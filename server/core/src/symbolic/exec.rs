//! Symbolic execution of one version of a function into a [`Summary`]:
//! SSA-style, forking at branches and merging the states again with
//! `ite` at the join (no path explosion), loops unrolled up to the bound,
//! calls inlined.
//!
//! Returns, breaks and continues park the current state in the enclosing
//! frame or loop; the parked states are merged where control joins again.
//! Faults (division by zero, index out of bounds, ...) park the state as a
//! top-level exit with an outcome code.

use super::ops::{EResult, EncodeError, FaultCode, MayFault, ObjId, Ops, Sym, Ufs, ite};
use super::{InputSpace, Strings};
use crate::abstraction::{Application, Applications, Site, Sites, Slot, Version};
use crate::budget::{
    FEASIBILITY_CHECK_OVERHEAD, FEASIBILITY_CHECK_UNITS, FEASIBILITY_UNITS, FEASIBILITY_WALL,
};
use crate::ir::{
    BinOp, Block, Expr, ExprKind, FuncId, GlobalId, LabelId, LocalId, LoopKind, Place, PrintKind,
    Program, Stmt, StmtKind, Type, UnOp,
};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::{Duration, Instant};
use z3::Sort;
use z3::ast::{Array, Ast, BV, Bool, Dynamic, Float, Int};

/// Iterations of a loop whose guard is a constant `true` do not count
/// against the loop bound (they are not a choice), up to this cap.
const CONCRETE_ITERATION_CAP: u32 = 5_000;
/// Deepest inlined call chain.
const MAX_CALL_DEPTH: usize = 48;

/// An array object: its length (index sort) and contents.
#[derive(Clone, Debug)]
pub struct ArrObj {
    pub len: Sym,
    pub data: Array,
    pub elem: Type,
    /// Whether this "object" is `null` (a nullable array input,
    /// [`super::InputSpace::nullable_arrays`]); fixed for the object's
    /// life, `None` where it is never null.
    pub null: Option<Bool>,
    /// The contents element by element, while `data` is still the array
    /// literal they were stored into.
    pub items: Option<Rc<Items>>,
}

/// The elements of an array literal, for reading it at an unknown index
/// without the array theory: `select` over a chain of stores makes the
/// solver split on the index once per store (a 256-entry lookup table
/// takes seconds), a chain of `ite`s on the index is a plain multiplexer.
/// Both give the same value for every index, out of bounds included.
#[derive(Debug)]
pub struct Items {
    /// The array the elements were stored into: a read uses them only
    /// while the object's `data` is still this array, so a write, a merge
    /// of paths or a summary's result makes them unused, never wrong.
    of: Array,
    values: Vec<Dynamic>,
    /// The element every other index holds.
    zero: Dynamic,
}

/// Literals longer than this are read through the array theory: one read
/// would otherwise add as many terms as the literal has elements.
const MAX_ITEMS_LOOKUP: usize = 4096;

impl ArrObj {
    /// The element at `i`.
    fn read(&self, i: &Dynamic, ops: Ops) -> EResult<Dynamic> {
        let Some(t) = self.items.as_ref().filter(|t| t.of == self.data) else {
            return Ok(self.data.select(i));
        };
        let mut v = t.zero.clone();
        for (k, item) in t.values.iter().enumerate().rev() {
            let at = ops
                .index_lit(k as i64)
                .to_dyn()
                .ok_or_else(|| unsupported("internal: index"))?;
            v = i.eq(at).ite(item, &v);
        }
        Ok(v)
    }
}

/// Printed output as a growing sequence: a length and, per position, a tag
/// (what kind of item) and its payloads. Unused payloads are zero, so two
/// items are equal exactly when tag and both payloads are.
#[derive(Clone, Debug)]
pub struct PrintLog {
    pub len: Int,
    pub tags: Array,
    pub ints: Array,
    pub reals: Array,
}

/// Item tags; string constants get tags from [`Strings`].
pub mod tag {
    pub const NUMBER: i64 = 1;
    pub const CHAR: i64 = 2;
    pub const BOOL: i64 = 3;
    pub const DOUBLE: i64 = 4;
    pub const FLOAT: i64 = 5;
    pub const FIRST_STRING: i64 = 100;
}

#[derive(Clone, Debug)]
pub struct State {
    pub pc: Bool,
    pub locals: Vec<Sym>,
    pub globals: FxHashMap<GlobalId, Sym>,
    pub heap: Vec<ArrObj>,
    pub prints: PrintLog,
    /// Which exception a method outside the file threw, when the run ended
    /// that way ([`FaultCode`] of [`UNSEEN_EXCEPTION`]): an uninterpreted
    /// function of the callee and its arguments. `None` where no such call
    /// was made.
    pub thrown: Option<Int>,
}

/// The outcome key of a run ended by an exception of a method outside the
/// file; which exception is [`State::thrown`].
pub const UNSEEN_EXCEPTION: &str = "exception of a method outside the file";

/// What one version does, as terms over the shared inputs.
pub struct Summary {
    /// 0 for a normal return, else a [`FaultCode`].
    pub outcome: Int,
    pub ret: Sym,
    pub ret_ty: Type,
    /// Final values of the non-constant globals, by name.
    pub globals: Vec<(String, Type, Sym)>,
    /// Final heap (for array results).
    pub heap: Vec<ArrObj>,
    /// Objects of the array parameters, by position.
    pub param_arrays: Vec<(usize, ObjId)>,
    pub prints: PrintLog,
    /// Some input runs past the loop bound or the call depth.
    pub bound_exceeded: Bool,
    /// The outcome code of [`UNSEEN_EXCEPTION`] and [`State::thrown`] at
    /// the exit (meaningful where the outcome is that code).
    pub thrown: Option<(i64, Int)>,
}

/// A call left to a summary instead of being inlined
/// ([`Executor::run_summarizing`]): `result` stands for what `func`
/// returns on `args`, and the call happens only where `guard` holds.
#[derive(Clone, Debug)]
pub struct CallAtom {
    pub func: FuncId,
    pub args: Vec<Dynamic>,
    pub result: Option<Dynamic>,
    pub guard: Bool,
}

/// How a loop-free stretch of a function body ends ([`Executor::segment`]).
pub struct SegmentExits {
    /// The state after the stretch's last statement (`None` when no path
    /// gets there).
    pub end: Option<State>,
    /// States that executed `return`, with the returned value.
    pub returns: Vec<(State, Sym)>,
    /// States that failed inside the stretch, with the fault.
    pub faults: Vec<(State, FaultCode)>,
    /// Path conditions under which a bound was hit (a callee's loop or
    /// recursion): the encoding of the stretch is then partial.
    pub bounded: Vec<Bool>,
}

/// The heap object `obj` of `state`.
fn object(state: &State, obj: ObjId) -> EResult<&ArrObj> {
    state
        .heap
        .get(obj)
        .ok_or_else(|| unsupported("internal: heap"))
}

fn feasibility_solver(ops: Ops, floats: bool) -> z3::Solver {
    let solver = if floats {
        super::float_solver()
    } else {
        z3::Solver::new()
    };
    let mut params = z3::Params::new();
    params.set_u32("rlimit", FEASIBILITY_CHECK_UNITS);
    // No nlsat behind the nonlinear arithmetic of a pruning check: on
    // EqBench's ell/ellProgram (rj) libz3 4.8.12 spent minutes in it
    // ignoring every interrupt, in 4 runs out of 4; without it the check
    // answers `unknown` at once where it cannot decide, and an unknown only
    // keeps a path (sound).
    if ops.sem == crate::ir::Semantics::Math {
        params.set_bool("arith.nl.nra", false);
    }
    solver.set_params(&params);
    solver
}

/// An assignment target with its array and index already evaluated.
enum Target {
    Local(LocalId),
    Global(GlobalId),
    Element(Sym, Sym),
}

struct Frame {
    returns: Vec<(State, Sym)>,
    breaks: FxHashMap<LabelId, Vec<State>>,
    continues: FxHashMap<LabelId, Vec<State>>,
}

/// The prefix of the uninterpreted functions standing for opaque callees.
pub const OPAQUE_CALLEE: &str = "callee ";

/// A callee run as an uninterpreted function: sound where it is the same
/// function in both versions, changes nothing its caller sees (no stores
/// through shared arrays, no global written, nothing printed, nothing thrown
/// explicitly) and takes only scalars — then equal arguments and equal
/// values of the globals it reads give equal results and equal faults. That
/// it returns at all is assumed: the caller's proof compares only runs in
/// which it terminates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpaqueCallee {
    /// The globals it reads that are not constants, in order of their names
    /// (so both versions pass them alike).
    pub globals: Vec<GlobalId>,
    /// Whether a run of it may fault (an implicit fault).
    pub may_fault: bool,
}

pub struct Executor<'a> {
    pub ops: Ops,
    pub program: &'a Program,
    pub inputs: &'a mut InputSpace,
    pub ufs: &'a mut Ufs,
    pub strings: &'a mut Strings,
    pub loop_bound: u32,
    pub deadline: Instant,
    /// Common code to apply as uninterpreted functions instead of running.
    abstraction: Option<(&'a Sites, Version)>,
    apps: &'a mut Applications,
    faults: Vec<(State, FaultCode)>,
    bound: Vec<Bool>,
    stack: Vec<FuncId>,
    /// Functions whose calls (below the top-level one) are not inlined but
    /// recorded as [`CallAtom`]s: the recursion rule's summaries.
    summarized: FxHashSet<FuncId>,
    /// How many nested calls of `summarized` functions below the top-level
    /// one are inlined before their calls become atoms (unfolding: the
    /// atoms of a body unfolded once are its calls' calls).
    unfold: u32,
    /// Callees run as uninterpreted functions of their arguments (the loop
    /// checker's unchanged callees with loops, `loops::callees`).
    opaque: BTreeMap<FuncId, OpaqueCallee>,
    atoms: Vec<CallAtom>,
    feasibility: z3::Solver,
    /// The engine its work is counted at.
    feasibility_engine: crate::clock::Engine,
    /// Resource units the feasibility checks used so far.
    feasibility_spent: u64,
    /// Time they took, for [`FEASIBILITY_WALL`].
    feasibility_time: Duration,
    /// `try` statements being executed: while above zero, fault states
    /// keep their locals (a `catch` or `finally` continues from them).
    try_depth: u32,
    /// Classes of the exceptions thrown so far, by outcome code (besides
    /// the implicit ones), for matching `catch` clauses.
    thrown_classes: FxHashMap<i64, String>,
    /// The outcome code of exceptions of unseen callees, once one was
    /// called: their class is unknown.
    unseen_code: Option<i64>,
    /// The method checked (the function whose entry state was built):
    /// its return slots are outputs, other functions' are not.
    entry: Option<FuncId>,
}

/// How a `try` body or `catch` clause was left, held until `finally` ran.
enum Leaving {
    Normal,
    Fault(FaultCode),
    Return(Sym),
    Break(LabelId),
    Continue(LabelId),
}

fn is_false(b: &Bool) -> bool {
    b.simplify().as_bool() == Some(false)
}

fn unsupported(what: impl Into<String>) -> EncodeError {
    EncodeError::new(what.into())
}

impl<'a> Executor<'a> {
    // Every argument is shared state of the pair encoding or a setting; a
    // struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ops: Ops,
        program: &'a Program,
        inputs: &'a mut InputSpace,
        ufs: &'a mut Ufs,
        strings: &'a mut Strings,
        loop_bound: u32,
        deadline: Instant,
        abstraction: Option<(&'a Sites, Version)>,
        apps: &'a mut Applications,
    ) -> Self {
        let floats = ops.sem == crate::ir::Semantics::Machine && super::uses_floats(program);
        Executor {
            ops,
            program,
            inputs,
            ufs,
            strings,
            loop_bound,
            deadline,
            abstraction,
            apps,
            faults: Vec::new(),
            bound: Vec::new(),
            stack: Vec::new(),
            summarized: FxHashSet::default(),
            unfold: 0,
            opaque: BTreeMap::new(),
            entry: None,
            atoms: Vec::new(),
            feasibility: feasibility_solver(ops, floats),
            feasibility_engine: if floats {
                crate::clock::Engine::Float
            } else {
                crate::clock::Engine::Smt
            },
            feasibility_spent: 0,
            feasibility_time: Duration::ZERO,
            try_depth: 0,
            thrown_classes: FxHashMap::default(),
            unseen_code: None,
        }
    }

    /// True when no input reaches a state with path condition `pc`: path
    /// conditions are checked with a short solver call, so that impossible
    /// branches, faults and loop iterations are dropped (sound: only UNSAT
    /// prunes). Each call is capped, and so is the total, in Z3's resource
    /// units (`crate::budget`).
    fn infeasible(&mut self, pc: &Bool) -> bool {
        if is_false(pc) {
            return true;
        }
        if self.feasibility_spent > FEASIBILITY_UNITS
            || self.feasibility_time > FEASIBILITY_WALL
            || crate::cancel::expired(self.deadline)
        {
            return false;
        }
        let (before, wall) = (crate::clock::solver_work(), Instant::now());
        let limit = crate::clock::Limit::capped(self.deadline, u64::from(FEASIBILITY_CHECK_UNITS))
            .on(self.feasibility_engine);
        let unsat = crate::clock::solve(&self.feasibility, limit, std::slice::from_ref(pc))
            == z3::SatResult::Unsat;
        self.feasibility_spent += crate::clock::solver_work() - before + FEASIBILITY_CHECK_OVERHEAD;
        self.feasibility_time += wall.elapsed();
        unsat
    }

    fn check_time(&self) -> EResult<()> {
        if crate::cancel::expired(self.deadline) {
            Err(EncodeError::timeout())
        } else {
            Ok(())
        }
    }

    /// Encodes `func` with its parameters and the program's globals bound
    /// to the shared inputs.
    pub fn run(mut self, func: FuncId) -> EResult<Summary> {
        let (state, args, param_arrays) = self.entry_inputs(func)?;
        let (normal, ret) = self.call(func, args, state)?;
        let ret_ty = self.return_type(func)?;
        let faults = std::mem::take(&mut self.faults);
        let bound_exceeded = Bool::or(&self.bound);
        self.summarize(
            normal.map(|s| (s, ret)),
            faults,
            ret_ty,
            param_arrays,
            bound_exceeded,
        )
    }

    /// [`Self::run`], except that calls to `summarized` functions below the
    /// top-level one are not inlined: each becomes a [`CallAtom`] whose
    /// result is a fresh constant, for a caller that constrains it with
    /// the callee's summary (a Horn clause relation). Such calls must not
    /// touch the caller's state (no stores, prints, faults): the caller
    /// checks that with [`crate::abstraction::effects`].
    ///
    /// With `unfold` above zero, the first `unfold` levels of such calls
    /// are inlined (the body unfolded) and only the calls below them are
    /// atoms: the same function, since a function is its body with its
    /// calls unfolded.
    pub fn run_summarizing(
        mut self,
        func: FuncId,
        summarized: FxHashSet<FuncId>,
        unfold: u32,
    ) -> EResult<(Summary, Vec<CallAtom>)> {
        self.summarized = summarized;
        self.unfold = unfold;
        let (state, args, param_arrays) = self.entry_inputs(func)?;
        let (normal, ret) = self.call(func, args, state)?;
        let ret_ty = self.return_type(func)?;
        let faults = std::mem::take(&mut self.faults);
        let bound_exceeded = Bool::or(&self.bound);
        let atoms = std::mem::take(&mut self.atoms);
        let summary = self.summarize(
            normal.map(|s| (s, ret)),
            faults,
            ret_ty,
            param_arrays,
            bound_exceeded,
        )?;
        Ok((summary, atoms))
    }

    /// A call to a summarized function: a fresh result, recorded.
    fn call_atom(
        &mut self,
        func: FuncId,
        args: Vec<Sym>,
        state: State,
    ) -> EResult<(Option<State>, Sym)> {
        let ret_ty = self.return_type(func)?;
        let mut dyn_args = Vec::with_capacity(args.len());
        for a in &args {
            dyn_args.push(
                a.to_dyn()
                    .ok_or_else(|| unsupported("an array argument to a recursive call"))?,
            );
        }
        let name = &self.program.function(func).name;
        let (result, value) = match &ret_ty {
            Type::Void => (None, Sym::Void),
            t => {
                let r = Dynamic::fresh_const(&format!("{name}.result"), &self.ops.sort(t)?);
                let v = self.ops.from_dyn(t, &r)?;
                (Some(r), v)
            }
        };
        self.atoms.push(CallAtom {
            func,
            args: dyn_args,
            result,
            guard: state.pc.clone(),
        });
        Ok((Some(state), value))
    }

    /// Calls of these functions become applications of uninterpreted
    /// functions (see [`OpaqueCallee`]) instead of being run.
    pub fn set_opaque(&mut self, opaque: BTreeMap<FuncId, OpaqueCallee>) {
        self.opaque = opaque;
    }

    /// A call of an opaque callee: its result, and the fault it ends in if
    /// any, are uninterpreted functions (named [`OPAQUE_CALLEE`] + its
    /// name, so both versions share them) of its arguments and the globals
    /// it reads. The fault is one of the implicit ones — an opaque callee
    /// throws nothing explicitly — chosen by a code as for an abstracted
    /// block.
    fn opaque_call(
        &mut self,
        func: FuncId,
        callee: &OpaqueCallee,
        args: Vec<Sym>,
        mut state: State,
    ) -> EResult<(Option<State>, Sym)> {
        let name = self.program.function(func).name.clone();
        let mut vals = Vec::with_capacity(args.len() + callee.globals.len());
        for a in &args {
            vals.push(
                a.to_dyn()
                    .ok_or_else(|| unsupported(format!("an array argument of {name}")))?,
            );
        }
        for g in &callee.globals {
            let v = state
                .globals
                .get(g)
                .and_then(Sym::to_dyn)
                .ok_or_else(|| unsupported(format!("a global {name} reads")))?;
            vals.push(v);
        }
        let key = format!("{OPAQUE_CALLEE}{name}");
        if callee.may_fault {
            let code = self
                .ufs
                .apply_defined(&format!("{key} fault"), &vals, &Sort::int())
                .as_int()
                .ok_or_else(|| unsupported("internal: opaque callee fault code"))?;
            self.implicit_fault_by_code(&mut state, &code);
        }
        let value = match self.return_type(func)? {
            Type::Void => Sym::Void,
            t => {
                let r = self.ufs.apply(&key, &vals, &self.ops.sort(&t)?);
                self.ops.from_dyn(&t, &r)?
            }
        };
        Ok((Some(state), value))
    }

    fn return_type(&self, func: FuncId) -> EResult<Type> {
        let def = self.program.function(func);
        let f = def.body.as_ref().map_err(|e| unsupported(e.to_string()))?;
        Ok(f.ret.clone())
    }

    /// The state before `func` is called from outside: globals bound to the
    /// shared inputs (constants are evaluated on use), and the argument
    /// values (the shared inputs `arg0`, `arg1`, ...) with the objects of
    /// the array parameters by position.
    #[allow(clippy::type_complexity)]
    fn entry_inputs(&mut self, func: FuncId) -> EResult<(State, Vec<Sym>, Vec<(usize, ObjId)>)> {
        let def = self.program.function(func);
        let f = def.body.as_ref().map_err(|e| unsupported(e.to_string()))?;
        self.entry = Some(func);
        let empty_log = self.empty_prints();
        let mut state = State {
            pc: Bool::from_bool(true),
            locals: Vec::new(),
            globals: FxHashMap::default(),
            heap: Vec::new(),
            prints: empty_log,
            thrown: None,
        };
        for (i, g) in self.program.globals.iter().enumerate() {
            let v = if g.is_input() {
                self.input_value(&format!("g.{}", g.name), &g.ty, g.declared_len, &mut state)?
            } else if g.return_of.is_some() {
                self.ops.zero(&g.ty)?
            } else {
                continue;
            };
            state.globals.insert(GlobalId(i as u32), v);
        }
        let mut args = Vec::new();
        let mut param_arrays = Vec::new();
        let valueless = super::valueless_params(f);
        for (pos, p) in f.params.iter().enumerate() {
            if valueless.contains(p) {
                args.push(Sym::Void);
                continue;
            }
            let local = f.local(*p);
            let v = self.input_value(&format!("arg{pos}"), &local.ty, None, &mut state)?;
            if let Sym::Arr(o) = v {
                param_arrays.push((pos, o));
            }
            args.push(v);
        }
        Ok((state, args, param_arrays))
    }

    /// The state at the first statement of `func` called from outside:
    /// `Self::entry_inputs` with the frame's locals in place (parameters
    /// bound, other locals zero). For callers that execute the body in
    /// pieces with [`Self::segment`].
    pub fn entry_state(&mut self, func: FuncId) -> EResult<State> {
        let (mut state, args, _) = self.entry_inputs(func)?;
        let def = self.program.function(func);
        let f = def.body.as_ref().map_err(|e| unsupported(e.to_string()))?;
        state.locals = self.frame_locals(f, args)?;
        Ok(state)
    }

    /// Runs `stmts`, a loop-free stretch of `func`'s body, from `state`
    /// (whose locals are `func`'s): the state after the last statement,
    /// the returns and faults on the way, and where a bound was hit (a
    /// callee's loop or recursion; the encoding is then partial). A `break`
    /// or `continue` leaving the stretch is an error: the caller cuts
    /// stretches where control stays inside them.
    pub fn segment(&mut self, func: FuncId, stmts: &Block, state: State) -> EResult<SegmentExits> {
        let faults_before = self.faults.len();
        let bound_before = self.bound.len();
        let mut frame = Frame {
            returns: Vec::new(),
            breaks: FxHashMap::default(),
            continues: FxHashMap::default(),
        };
        self.stack.push(func);
        let end = self.block(&mut frame, stmts, state);
        self.stack.pop();
        let end = end?;
        if frame
            .breaks
            .values()
            .chain(frame.continues.values())
            .any(|v| !v.is_empty())
        {
            return Err(unsupported("break or continue leaving a loop-free stretch"));
        }
        Ok(SegmentExits {
            end,
            returns: frame.returns,
            faults: self.faults.split_off(faults_before),
            bounded: self.bound.split_off(bound_before),
        })
    }

    /// Evaluates a condition in `state`; the faults it may raise are
    /// returned (and `state.pc` narrowed to the rest).
    pub fn condition(
        &mut self,
        cond: &Expr,
        state: &mut State,
    ) -> EResult<(Bool, Vec<(State, FaultCode)>)> {
        let faults_before = self.faults.len();
        let c = self.cond(cond, state)?;
        Ok((c, self.faults.split_off(faults_before)))
    }

    /// One version's observable result from its exits: the normal exit
    /// (with its returned value) and the faults, merged by path condition
    /// (outcome 0 for the normal exit, else the fault code).
    pub fn summarize(
        &self,
        normal: Option<(State, Sym)>,
        faults: Vec<(State, FaultCode)>,
        ret_ty: Type,
        param_arrays: Vec<(usize, ObjId)>,
        bound_exceeded: Bool,
    ) -> EResult<Summary> {
        // Without a normal exit the returned value is never compared (the
        // outcome is a fault code), but it must have the return type's
        // sort so that it can be compared with the other version's.
        let mut ret = self.ops.zero(&ret_ty).unwrap_or(Sym::Void);
        let mut exits: Vec<(State, i64)> = Vec::new();
        if let Some((s, r)) = normal {
            exits.push((s, 0));
            ret = r;
        }
        for (s, code) in faults {
            exits.push((s, code.0));
        }
        let Some((first, first_code)) = exits.pop() else {
            // No input terminates within the bound.
            return Ok(Summary {
                outcome: Int::from_i64(0),
                ret: self.ops.zero(&ret_ty).unwrap_or(Sym::Void),
                ret_ty,
                globals: Vec::new(),
                heap: Vec::new(),
                param_arrays,
                prints: self.empty_prints(),
                bound_exceeded,
                thrown: None,
            });
        };
        let mut outcome = Int::from_i64(first_code);
        let mut fin = first;
        for (s, code) in exits.into_iter().rev() {
            outcome = s.pc.ite(&Int::from_i64(code), &outcome);
            fin = self.merge(s, fin)?;
        }
        // Only the method's outputs (`super::is_output`); without an entry
        // (no call made yet) nothing but plain globals can be one.
        let effects = match self.entry {
            Some(e) => super::entry_effects(self.program, e),
            None => Default::default(),
        };
        let globals = self
            .program
            .globals
            .iter()
            .enumerate()
            .filter(|(i, g)| match self.entry {
                Some(e) => super::is_output(self.program, e, &effects, GlobalId(*i as u32)),
                None => g.return_of.is_none(),
            })
            .filter_map(|(i, g)| {
                fin.globals
                    .get(&GlobalId(i as u32))
                    .map(|v| (g.name.clone(), g.ty.clone(), v.clone()))
            })
            .collect();
        Ok(Summary {
            outcome,
            ret: if matches!(ret_ty, Type::Void) {
                Sym::Void
            } else {
                ret
            },
            ret_ty,
            globals,
            heap: fin.heap,
            param_arrays,
            prints: fin.prints,
            bound_exceeded,
            thrown: self.unseen_code.zip(fin.thrown),
        })
    }

    /// Merges the returns of a frame into one exit: the state and the
    /// returned value (`None` when nothing returns).
    pub fn merge_returns(&self, returns: Vec<(State, Sym)>) -> EResult<Option<(State, Sym)>> {
        let mut it = returns.into_iter();
        let Some((mut acc, mut val)) = it.next() else {
            return Ok(None);
        };
        for (s, v) in it {
            val = self.ops.ite(&s.pc, &v, &val)?;
            acc = self.merge(s, acc)?;
        }
        Ok(Some((acc, val)))
    }

    /// A function's locals on entry: parameters bound to `args`, every
    /// other scalar zero, arrays unassigned.
    fn frame_locals(&self, f: &crate::ir::Function, args: Vec<Sym>) -> EResult<Vec<Sym>> {
        let mut locals = Vec::with_capacity(f.locals.len());
        for l in &f.locals {
            locals.push(match &l.ty {
                Type::Array(_) | Type::Str | Type::Void => Sym::Void,
                t => self.ops.zero(t)?,
            });
        }
        for (p, a) in f.params.iter().zip(args) {
            if let Some(slot) = locals.get_mut(p.0 as usize) {
                *slot = a;
            }
        }
        Ok(locals)
    }

    /// An empty output log (what a fresh state starts with).
    pub fn empty_prints(&self) -> PrintLog {
        PrintLog {
            len: Int::from_i64(0),
            tags: Array::const_array(&Sort::int(), &Int::from_i64(0)),
            ints: Array::const_array(&Sort::int(), &self.print_int_zero()),
            reals: Array::const_array(&Sort::int(), &self.print_real_zero()),
        }
    }

    fn print_int_zero(&self) -> Dynamic {
        if self.ops.machine() {
            Dynamic::from_ast(&BV::from_i64(0, 64))
        } else {
            Dynamic::from_ast(&Int::from_i64(0))
        }
    }

    fn print_real_zero(&self) -> Dynamic {
        if self.ops.machine() {
            Dynamic::from_ast(&Float::from_f64(0.0).to_ieee_bv())
        } else {
            Dynamic::from_ast(&crate::symbolic::ops::real_const(0, 1))
        }
    }

    /// The value of a shared input; arrays become heap objects.
    /// An input of type `ty`; an array one has `len` elements when given.
    fn input_value(
        &mut self,
        name: &str,
        ty: &Type,
        len: Option<u64>,
        state: &mut State,
    ) -> EResult<Sym> {
        match ty {
            Type::Array(elem) => {
                if matches!(**elem, Type::Array(_)) {
                    return Err(unsupported("multi-dimensional array input"));
                }
                let (len, data, null) = self.inputs.array(name, &self.ops, elem, len)?;
                state.heap.push(ArrObj {
                    len,
                    data,
                    elem: (**elem).clone(),
                    null,
                    items: None,
                });
                Ok(Sym::Arr(state.heap.len() - 1))
            }
            // Only passed on or put in exception messages (see the Java
            // lowering's `string_argument`): no value to choose.
            Type::Str => Ok(Sym::Void),
            _ => self.inputs.scalar(name, &self.ops, ty),
        }
    }

    /// Inlines a call. Returns the state after it (None if no path returns)
    /// and the return value.
    fn call(
        &mut self,
        func: FuncId,
        args: Vec<Sym>,
        mut state: State,
    ) -> EResult<(Option<State>, Sym)> {
        self.check_time()?;
        let def = self.program.function(func);
        let f = match &def.body {
            Ok(f) => f,
            Err(e) => {
                let mut lowering = e.clone();
                lowering.what = format!("{} (in {})", e.what, def.name);
                return Err(EncodeError::lowering(lowering.to_string(), lowering));
            }
        };
        let unfolding = !self.stack.is_empty() && self.summarized.contains(&func);
        if unfolding {
            let nested = self.stack[1..]
                .iter()
                .filter(|g| self.summarized.contains(g))
                .count();
            if nested >= self.unfold as usize {
                return self.call_atom(func, args, state);
            }
        }
        if let Some(callee) = self.opaque.get(&func).cloned() {
            return self.opaque_call(func, &callee, args, state);
        }
        // An unfolded call is bounded by `unfold`, not by the loop bound.
        let recursion = self.stack.iter().filter(|&&g| g == func).count() as u32;
        if (!unfolding && recursion > self.loop_bound) || self.stack.len() >= MAX_CALL_DEPTH {
            self.bound.push(state.pc.clone());
            return Ok((None, Sym::Void));
        }
        let locals = self.frame_locals(f, args)?;
        let saved = std::mem::replace(&mut state.locals, locals);
        self.stack.push(func);
        let mut frame = Frame {
            returns: Vec::new(),
            breaks: FxHashMap::default(),
            continues: FxHashMap::default(),
        };
        let faults_before = self.faults.len();
        let end = self.block(&mut frame, &f.body, state)?;
        self.stack.pop();
        if self.try_depth > 0 {
            // A handler in a caller continues with the caller's locals.
            for (s, _) in &mut self.faults[faults_before..] {
                s.locals = saved.clone();
            }
        }
        if let Some(s) = end {
            // Falling off the end: void return (C non-void: undefined, we
            // treat it as returning zero).
            let v = match &f.ret {
                Type::Void | Type::Array(_) | Type::Str => Sym::Void,
                t => self.ops.zero(t)?,
            };
            frame.returns.push((s, v));
        }
        let Some((mut acc, val)) = self.merge_returns(frame.returns)? else {
            return Ok((None, Sym::Void));
        };
        acc.locals = saved;
        Ok((Some(acc), val))
    }

    /// Merges two disjoint states: `a` where `a.pc`, else `b`.
    fn merge(&self, a: State, b: State) -> EResult<State> {
        let c = a.pc.clone();
        let mut out = State {
            pc: Bool::or(&[&a.pc, &b.pc]),
            locals: Vec::with_capacity(a.locals.len()),
            globals: FxHashMap::default(),
            heap: Vec::new(),
            prints: PrintLog {
                len: ite(&c, &a.prints.len, &b.prints.len),
                tags: ite(&c, &a.prints.tags, &b.prints.tags),
                ints: ite(&c, &a.prints.ints, &b.prints.ints),
                reals: ite(&c, &a.prints.reals, &b.prints.reals),
            },
            // Where only one side has it, its value elsewhere is never read
            // (the outcome code guards it).
            thrown: match (&a.thrown, &b.thrown) {
                (Some(x), Some(y)) => Some(ite(&c, x, y)),
                (x, y) => x.clone().or_else(|| y.clone()),
            },
        };
        for (x, y) in a.locals.iter().zip(&b.locals) {
            out.locals.push(match (x, y) {
                (Sym::Void, other) | (other, Sym::Void) => other.clone(),
                _ => self.ops.ite(&c, x, y)?,
            });
        }
        for (k, x) in &a.globals {
            let v = match b.globals.get(k) {
                Some(y) => self.ops.ite(&c, x, y)?,
                None => x.clone(),
            };
            out.globals.insert(*k, v);
        }
        for (k, y) in &b.globals {
            out.globals.entry(*k).or_insert_with(|| y.clone());
        }
        let n = a.heap.len().max(b.heap.len());
        for i in 0..n {
            out.heap.push(match (a.heap.get(i), b.heap.get(i)) {
                (Some(x), Some(y)) => ArrObj {
                    len: self.ops.ite(&c, &x.len, &y.len)?,
                    data: ite(&c, &x.data, &y.data),
                    elem: x.elem.clone(),
                    // Nullness is the object's identity, the same on
                    // every path.
                    null: x.null.clone(),
                    // Still used where both paths left the literal
                    // unwritten: the merged data is then the same array.
                    items: x.items.clone(),
                },
                (Some(x), None) => x.clone(),
                (None, Some(y)) => y.clone(),
                (None, None) => continue,
            });
        }
        Ok(out)
    }

    fn merge_all(&self, states: Vec<State>) -> EResult<Option<State>> {
        let mut it = states.into_iter();
        let Some(mut acc) = it.next() else {
            return Ok(None);
        };
        for s in it {
            acc = self.merge(s, acc)?;
        }
        Ok(Some(acc))
    }

    fn block(&mut self, frame: &mut Frame, stmts: &Block, state: State) -> EResult<Option<State>> {
        let mut cur = Some(state);
        let mut i = 0;
        while i < stmts.len() {
            // A long run of straight-line code must notice the deadline
            // too, not only loops and calls.
            if i % 64 == 63 {
                self.check_time()?;
            }
            let Some(mut s) = cur.take() else { break };
            let site = self.abstraction.and_then(|(sites, _)| sites.at(&stmts[i]));
            if let Some(site) = site
                && site.len > 0
                && i + site.len <= stmts.len()
                && self.apply_block(site, &mut s)?
            {
                cur = Some(s);
                i += site.len;
                continue;
            }
            cur = self.stmt(frame, &stmts[i], s)?;
            i += 1;
        }
        Ok(cur)
    }

    /// Replaces the statements of an abstracted block by fresh results:
    /// each output becomes the value of the block's function on the inputs,
    /// and when the block may fail, so does its outcome code. Returns false
    /// (leaving `state` untouched) when the block cannot be applied here,
    /// e.g. because two of its arrays are the same object; the statements
    /// are then executed as usual.
    fn apply_block(&mut self, site: &Site, state: &mut State) -> EResult<bool> {
        let Some((_, version)) = self.abstraction else {
            return Ok(false);
        };
        let mut args: Vec<Dynamic> = Vec::new();
        let mut objects: Vec<ObjId> = Vec::new();
        for slot in &site.inputs {
            match self.slot_value(slot, state)? {
                None => return Ok(false),
                Some(Sym::Arr(obj)) => {
                    if objects.contains(&obj) {
                        return Ok(false);
                    }
                    objects.push(obj);
                    let Some(o) = state.heap.get(obj) else {
                        return Ok(false);
                    };
                    // A block's function would not see whether the array
                    // is null (two applications on a null and an empty
                    // array would be forced to agree): not abstracted.
                    if o.null.is_some() {
                        return Ok(false);
                    }
                    let Some(len) = o.len.to_dyn() else {
                        return Ok(false);
                    };
                    args.push(len);
                    args.push(Dynamic::from_ast(&o.data));
                }
                Some(v) => match v.to_dyn() {
                    Some(d) => args.push(d),
                    None => return Ok(false),
                },
            }
        }
        // Outputs: where they go, and the sort of their fresh value.
        let mut targets: Vec<(&Slot, Option<ObjId>, Sort, Option<crate::ir::Type>)> = Vec::new();
        for slot in &site.outputs {
            match slot.ty() {
                Type::Array(elem) => {
                    let Some(Sym::Arr(obj)) = self.slot_value(slot, state)? else {
                        return Ok(false);
                    };
                    if !objects.contains(&obj) {
                        // Stored to but not among the inputs: cannot happen
                        // for a well-formed site; do not abstract.
                        return Ok(false);
                    }
                    let sort = Sort::array(&self.ops.index_sort(), &self.ops.sort(elem)?);
                    targets.push((slot, Some(obj), sort, None));
                }
                t => targets.push((slot, None, self.ops.sort(t)?, Some(t.clone()))),
            }
        }
        let name = format!("blk{}", site.block.0);
        let results = match self.apps.reuse(site.block, &args) {
            Some(r) => r,
            None => {
                let mut r: Vec<Dynamic> = targets
                    .iter()
                    .enumerate()
                    .map(|(k, (_, _, sort, _))| Dynamic::fresh_const(&format!("{name}.{k}"), sort))
                    .collect();
                if site.may_fault {
                    r.push(Dynamic::from_ast(&Int::fresh_const(&format!(
                        "{name}.fault"
                    ))));
                }
                if site.prints {
                    let count = Int::fresh_const(&format!("{name}.printed"));
                    // A count is never negative: saying so spares the
                    // refinement loop meaningless candidates.
                    self.ufs.facts.push(count.ge(Int::from_i64(0)));
                    r.push(Dynamic::from_ast(&count));
                    let int = Sort::int();
                    for (part, range) in [
                        ("tags", Sort::int()),
                        ("ints", self.print_int_zero().get_sort()),
                        ("reals", self.print_real_zero().get_sort()),
                    ] {
                        let a = Array::fresh_const(&format!("{name}.{part}"), &int, &range);
                        r.push(Dynamic::from_ast(&a));
                    }
                }
                r
            }
        };
        self.apps.record(Application {
            block: site.block,
            version,
            args,
            results: results.clone(),
        });
        for ((slot, obj, _, ty), value) in targets.iter().zip(&results) {
            match (obj, ty) {
                (Some(obj), _) => {
                    let Some(data) = value.as_array() else {
                        return Err(unsupported("internal: block array output"));
                    };
                    state.heap[*obj].data = data;
                }
                (None, Some(ty)) => {
                    let v = self.ops.from_dyn(ty, value)?;
                    match slot {
                        Slot::Local(l, _) => {
                            let cell = state
                                .locals
                                .get_mut(l.0 as usize)
                                .ok_or_else(|| unsupported("internal: local out of range"))?;
                            *cell = v;
                        }
                        Slot::Global(g, _) => {
                            state.globals.insert(*g, v);
                        }
                    }
                }
                (None, None) => return Err(unsupported("internal: block output")),
            }
        }
        if site.prints {
            let at = targets.len() + usize::from(site.may_fault);
            self.append_block_output(&results[at.min(results.len())..], state)?;
        }
        if site.may_fault {
            let code = results
                .get(targets.len())
                .and_then(|d| d.as_int())
                .ok_or_else(|| unsupported("internal: block fault code"))?;
            self.implicit_fault_by_code(state, &code);
        }
        Ok(true)
    }

    /// Appends a block's printed items (`[count, tags, ints, reals]`) to
    /// the output so far: position `i` of the new log is the old log's below
    /// its length, the block's item `i - len` above.
    fn append_block_output(&mut self, items: &[Dynamic], state: &mut State) -> EResult<()> {
        let bad = || unsupported("internal: block output items");
        let [count, tags, ints, reals] = items else {
            return Err(bad());
        };
        let count = count.as_int().ok_or_else(bad)?;
        let len = state.prints.len.clone();
        let i = Int::fresh_const("i");
        let below = i.lt(&len);
        let shifted = Int::sub(&[&i, &len]);
        let concat = |log: &Array, block: &Dynamic| -> EResult<Array> {
            let block = block.as_array().ok_or_else(bad)?;
            let body = below.ite(&log.select(&i), &block.select(&shifted));
            Ok(z3::ast::lambda_const(&[&i], &body))
        };
        let p = &state.prints;
        let new_log = PrintLog {
            len: Int::add(&[&len, &count]),
            tags: concat(&p.tags, tags)?,
            ints: concat(&p.ints, ints)?,
            reals: concat(&p.reals, reals)?,
        };
        state.prints = new_log;
        Ok(())
    }

    /// The current value of a block input or output; `None` when it has no
    /// value to abstract over (an array variable not yet assigned).
    fn slot_value(&mut self, slot: &Slot, state: &mut State) -> EResult<Option<Sym>> {
        let v = match slot {
            Slot::Local(l, _) => state.locals.get(l.0 as usize).cloned(),
            Slot::Global(g, _) => Some(self.global(*g, state)?),
        };
        Ok(v.filter(|v| !matches!(v, Sym::Void)))
    }

    fn stmt(&mut self, frame: &mut Frame, stmt: &Stmt, mut state: State) -> EResult<Option<State>> {
        match &stmt.kind {
            StmtKind::Assign { place, value } => {
                // Java order: the element's array and index first, then the
                // value, then the bounds check.
                let target = self.target(place, &mut state)?;
                let v = self.expr(value, &mut state)?;
                self.store(target, v, &mut state)?;
                Ok(Some(state))
            }
            StmtKind::Call { dest, func, args } => {
                let target = match dest {
                    Some(place) => Some(self.target(place, &mut state)?),
                    None => None,
                };
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a, &mut state)?);
                }
                let (after, ret) = self.call(*func, vals, state)?;
                let Some(mut after) = after else {
                    return Ok(None);
                };
                if let Some(target) = target {
                    self.store(target, ret, &mut after)?;
                }
                Ok(Some(after))
            }
            StmtKind::Print { kind, args } => {
                self.print(kind, args, &mut state)?;
                Ok(Some(state))
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = self.cond(cond, &mut state)?;
                let then_pc = Bool::and(&[&state.pc, &c]);
                let else_pc = Bool::and(&[&state.pc, &c.not()]);
                let then_live = !self.infeasible(&then_pc);
                let else_live = !self.infeasible(&else_pc);
                let then_end = if then_live {
                    let mut s = state.clone();
                    s.pc = then_pc;
                    self.block(frame, then_branch, s)?
                } else {
                    None
                };
                let else_end = if else_live {
                    let mut s = state;
                    s.pc = else_pc;
                    self.block(frame, else_branch, s)?
                } else {
                    None
                };
                Ok(match (then_end, else_end) {
                    (Some(a), Some(b)) => Some(self.merge(a, b)?),
                    (a, b) => a.or(b),
                })
            }
            StmtKind::Loop {
                label,
                kind,
                cond,
                body,
                step,
            } => self.run_loop(frame, *label, kind, cond, body, step, state),
            StmtKind::Labeled { label, body } => {
                let end = self.block(frame, body, state)?;
                let mut states = frame.breaks.remove(label).unwrap_or_default();
                states.extend(end);
                self.merge_all(states)
            }
            StmtKind::Break(label) => {
                frame.breaks.entry(*label).or_default().push(state);
                Ok(None)
            }
            StmtKind::Continue(label) => {
                frame.continues.entry(*label).or_default().push(state);
                Ok(None)
            }
            StmtKind::Return(value) => {
                let v = match value {
                    Some(e) => self.expr(e, &mut state)?,
                    None => Sym::Void,
                };
                frame.returns.push((state, v));
                Ok(None)
            }
            StmtKind::Block(b) => self.block(frame, b, state),
            StmtKind::Try {
                body,
                catches,
                finally,
            } => self.run_try(frame, body, catches, finally, state),
            StmtKind::External {
                dest,
                callee,
                args,
                ret,
            } => {
                self.external(dest.as_ref(), callee, args, ret, &mut state)?;
                Ok(Some(state))
            }
            StmtKind::Throw(t) => {
                let code = FaultCode::thrown(t, self.strings);
                if let crate::ir::Thrown::Exception(class) = t {
                    self.thrown_classes.insert(code.0, class.clone());
                }
                self.fault(
                    &mut state,
                    vec![MayFault {
                        cond: Bool::from_bool(true),
                        code,
                    }],
                );
                Ok(None)
            }
        }
    }

    /// A call outside the files: uninterpreted functions of the callee and
    /// its arguments, shared by both versions, say whether it throws,
    /// which exception, and what it returns (string literal arguments
    /// count by their text).
    fn external(
        &mut self,
        dest: Option<&Place>,
        callee: &str,
        args: &[Expr],
        ret: &Type,
        state: &mut State,
    ) -> EResult<()> {
        let target = match dest {
            Some(p) => Some(self.target(p, state)?),
            None => None,
        };
        let mut vals: Vec<Dynamic> = Vec::with_capacity(args.len());
        for a in args {
            let v = match &a.kind {
                ExprKind::StrLit(text) => Dynamic::from_ast(&Int::from_i64(self.strings.tag(text))),
                _ => self
                    .expr(a, state)?
                    .to_dyn()
                    .ok_or_else(|| unsupported(format!("an argument of {callee}")))?,
            };
            vals.push(v);
        }
        let name = format!("call {callee}");
        if !crate::lang::java::facts::external_never_throws(callee) {
            self.external_may_throw(&name, &vals, state)?;
        }
        if let Some(target) = target {
            let range = self.ops.sort(ret)?;
            let r = self.ufs.apply(&name, &vals, &range);
            let v = self.ops.from_dyn(ret, &r)?;
            self.store(target, v, state)?;
        }
        Ok(())
    }

    /// Whether the call `name` throws, and which exception: uninterpreted
    /// functions of its arguments, shared by both versions.
    fn external_may_throw(
        &mut self,
        name: &str,
        vals: &[Dynamic],
        state: &mut State,
    ) -> EResult<()> {
        let throws = self
            .ufs
            .apply(&format!("{name} throws"), vals, &Sort::bool())
            .as_bool()
            .ok_or_else(|| unsupported("internal: throws"))?;
        let which = self
            .ufs
            .apply(&format!("{name} exception"), vals, &Sort::int())
            .as_int()
            .ok_or_else(|| unsupported("internal: exception"))?;
        let code = FaultCode(self.strings.tag(UNSEEN_EXCEPTION));
        self.unseen_code = Some(code.0);
        let before = state.thrown.clone();
        state.thrown = Some(which);
        self.fault(state, vec![MayFault { cond: throws, code }]);
        state.thrown = before;
        Ok(())
    }

    /// `try`/`catch`/`finally`: the faults raised in `body` go to the first
    /// clause that catches their class; every way out of the body and the
    /// clauses then runs `finally`, and leaves as it was about to unless
    /// `finally` itself leaves otherwise.
    fn run_try(
        &mut self,
        frame: &mut Frame,
        body: &Block,
        catches: &[crate::ir::Catch],
        finally: &Block,
        state: State,
    ) -> EResult<Option<State>> {
        let faults_before = self.faults.len();
        let returns_before = frame.returns.len();
        let jumps_before = |m: &FxHashMap<LabelId, Vec<State>>| -> FxHashMap<LabelId, usize> {
            m.iter().map(|(k, v)| (*k, v.len())).collect()
        };
        let (breaks_before, continues_before) =
            (jumps_before(&frame.breaks), jumps_before(&frame.continues));
        self.try_depth += 1;
        let run = self.try_clauses(frame, body, catches, state, faults_before);
        if finally.is_empty() {
            self.try_depth -= 1;
        }
        let mut normal = run?;
        if finally.is_empty() {
            if self.try_depth == 0 {
                for (s, _) in &mut self.faults[faults_before..] {
                    s.locals = Vec::new();
                }
            }
            return self.merge_all(normal);
        }
        // Every pending exit of the body and the clauses goes through
        // `finally` (with locals: `finally` may read them).
        let mut pending: Vec<(State, Leaving)> =
            normal.drain(..).map(|s| (s, Leaving::Normal)).collect();
        pending.extend(
            self.faults
                .split_off(faults_before)
                .into_iter()
                .map(|(s, c)| (s, Leaving::Fault(c))),
        );
        self.try_depth -= 1;
        pending.extend(
            frame
                .returns
                .split_off(returns_before)
                .into_iter()
                .map(|(s, v)| (s, Leaving::Return(v))),
        );
        for (jumps, before, is_break) in [
            (&mut frame.breaks, &breaks_before, true),
            (&mut frame.continues, &continues_before, false),
        ] {
            for (label, states) in jumps.iter_mut() {
                let at = before.get(label).copied().unwrap_or(0);
                for s in states.split_off(at.min(states.len())) {
                    let how = if is_break {
                        Leaving::Break(*label)
                    } else {
                        Leaving::Continue(*label)
                    };
                    pending.push((s, how));
                }
            }
        }
        let mut ends = Vec::new();
        for (s, how) in pending {
            let Some(mut after) = self.block(frame, finally, s)? else {
                continue;
            };
            match how {
                Leaving::Normal => ends.push(after),
                Leaving::Fault(code) => {
                    if self.try_depth == 0 {
                        after.locals = Vec::new();
                    }
                    self.faults.push((after, code));
                }
                Leaving::Return(v) => frame.returns.push((after, v)),
                Leaving::Break(l) => frame.breaks.entry(l).or_default().push(after),
                Leaving::Continue(l) => frame.continues.entry(l).or_default().push(after),
            }
        }
        self.merge_all(ends)
    }

    /// Runs a `try` body and its `catch` clauses: the states that end
    /// normally. Faults the clauses do not catch (and those raised in the
    /// clauses) stay in `self.faults` from `faults_before` on.
    fn try_clauses(
        &mut self,
        frame: &mut Frame,
        body: &Block,
        catches: &[crate::ir::Catch],
        state: State,
        faults_before: usize,
    ) -> EResult<Vec<State>> {
        let mut normal: Vec<State> = self.block(frame, body, state)?.into_iter().collect();
        let raised = self.faults.split_off(faults_before);
        let mut caught: Vec<Vec<State>> = vec![Vec::new(); catches.len()];
        for (s, code) in raised {
            match self.catching_clause(code, catches)? {
                Some(i) => caught[i].push(s),
                None => self.faults.push((s, code)),
            }
        }
        for (clause, states) in catches.iter().zip(caught) {
            if let Some(s) = self.merge_all(states)?
                && let Some(end) = self.block(frame, &clause.body, s)?
            {
                normal.push(end);
            }
        }
        Ok(normal)
    }

    /// The first clause of `catches` that catches the outcome `code`;
    /// an error when the class hierarchy cannot tell.
    fn catching_clause(
        &self,
        code: FaultCode,
        catches: &[crate::ir::Catch],
    ) -> EResult<Option<usize>> {
        if Some(code.0) == self.unseen_code {
            // Whatever an unseen callee throws: only `Throwable` surely
            // catches it.
            return match catches.first() {
                Some(c) if c.classes.iter().any(|k| k == "Throwable") => Ok(Some(0)),
                None => Ok(None),
                Some(_) => Err(unsupported(
                    "a catch clause around a call to a method outside the file (what it throws is not known)",
                )),
            };
        }
        let class = match code.java_implicit_class() {
            Some(c) => c,
            None => match self.thrown_classes.get(&code.0) {
                Some(c) => c.as_str(),
                // C undefined behaviour, abort or exit: never caught.
                None => return Ok(None),
            },
        };
        crate::lang::java::facts::first_catching(catches, class, &self.program.class_parents)
            .map_err(|k| {
                unsupported(format!(
                    "catch ({k}) of a {class}: their class hierarchy is unknown"
                ))
            })
    }

    #[allow(clippy::too_many_arguments)]
    fn run_loop(
        &mut self,
        frame: &mut Frame,
        label: LabelId,
        kind: &LoopKind,
        cond: &Expr,
        body: &Block,
        step: &Block,
        state: State,
    ) -> EResult<Option<State>> {
        let mut exits = Vec::new();
        let mut cur = Some(state);
        let mut symbolic_iterations = 0u32;
        let mut iteration = 0u32;
        while let Some(mut s) = cur.take() {
            self.check_time()?;
            if iteration > 0 || *kind == LoopKind::While {
                let c = self.cond(cond, &mut s)?;
                match c.simplify().as_bool() {
                    Some(false) => {
                        exits.push(s);
                        break;
                    }
                    Some(true) => {}
                    None => symbolic_iterations += 1,
                }
                let stay = Bool::and(&[&s.pc, &c]);
                let leave = Bool::and(&[&s.pc, &c.not()]);
                if !self.infeasible(&leave) {
                    let mut e = s.clone();
                    e.pc = leave;
                    exits.push(e);
                }
                if self.infeasible(&stay) {
                    break;
                }
                if symbolic_iterations > self.loop_bound || iteration >= CONCRETE_ITERATION_CAP {
                    self.bound.push(stay);
                    break;
                }
                s.pc = stay;
            }
            let end = self.block(frame, body, s)?;
            let mut states = frame.continues.remove(&label).unwrap_or_default();
            states.extend(end);
            cur = match self.merge_all(states)? {
                Some(s) => self.block(frame, step, s)?,
                None => None,
            };
            iteration += 1;
        }
        exits.extend(frame.breaks.remove(&label).unwrap_or_default());
        self.merge_all(exits)
    }

    /// Evaluates the parts of an assignment target that come before the
    /// assigned value.
    fn target(&mut self, place: &Place, state: &mut State) -> EResult<Target> {
        Ok(match place {
            Place::Local(id) => Target::Local(*id),
            Place::Global(g) => Target::Global(*g),
            Place::Index { array, index } => {
                let arr = self.expr(array, state)?;
                let i = self.index_value(index, state)?;
                Target::Element(arr, i)
            }
        })
    }

    fn store(&mut self, target: Target, v: Sym, state: &mut State) -> EResult<()> {
        match target {
            Target::Local(LocalId(i)) => {
                let slot = state
                    .locals
                    .get_mut(i as usize)
                    .ok_or_else(|| unsupported("internal: local out of range"))?;
                *slot = v;
            }
            Target::Global(g) => {
                state.globals.insert(g, v);
            }
            Target::Element(arr, i) => {
                let obj = self.checked_obj(&arr, &i, state)?;
                let d = v.to_dyn().ok_or_else(|| unsupported("arrays of arrays"))?;
                let o = &mut state.heap[obj];
                let di = i.to_dyn().ok_or_else(|| unsupported("internal: index"))?;
                o.data = o.data.store(&di, &d);
            }
        }
        Ok(())
    }

    /// Evaluates an index expression into the index sort.
    fn index_value(&mut self, index: &Expr, state: &mut State) -> EResult<Sym> {
        let i = self.expr(index, state)?;
        match &index.ty {
            Type::Int(t) => self.ops.to_index(&i, t),
            t => Err(unsupported(format!("array index of type {t}"))),
        }
    }

    /// The object `arr` refers to, after forking off the out-of-bounds
    /// fault for index `i`.
    fn checked_obj(&mut self, arr: &Sym, i: &Sym, state: &mut State) -> EResult<ObjId> {
        let Sym::Arr(obj) = arr else {
            return Err(unsupported("use of an array that may be unassigned"));
        };
        let obj = *obj;
        self.null_fault(obj, state)?;
        let len = object(state, obj)?.len.clone();
        let ok = self.ops.in_bounds(i, &len)?;
        self.fault(
            state,
            vec![MayFault {
                cond: ok.not(),
                code: FaultCode::INDEX_OUT_OF_BOUNDS,
            }],
        );
        Ok(obj)
    }

    /// Forks off the `NullPointerException` of using object `obj` when it
    /// may be a `null` array input.
    fn null_fault(&mut self, obj: ObjId, state: &mut State) -> EResult<()> {
        if let Some(null) = object(state, obj)?.null.clone() {
            self.fault(
                state,
                vec![MayFault {
                    cond: null,
                    code: FaultCode::NULL_POINTER,
                }],
            );
        }
        Ok(())
    }

    /// Parks the faulting part of `state` as a top-level exit and narrows
    /// `state` to the rest.
    /// The implicit fault whose code `code` is, if it is one: how code run
    /// as an uninterpreted function (an abstracted block, an opaque callee)
    /// says whether and how it faults.
    fn implicit_fault_by_code(&mut self, state: &mut State, code: &Int) {
        let faults = FaultCode::IMPLICIT
            .into_iter()
            .map(|c| MayFault {
                cond: code.eq(Int::from_i64(c.0)),
                code: c,
            })
            .collect();
        self.fault(state, faults);
    }

    fn fault(&mut self, state: &mut State, faults: Vec<MayFault>) {
        for mut f in faults {
            f.code = f.code.outcome(self.ops.lang);
            let fault_pc = Bool::and(&[&state.pc, &f.cond]);
            if self.infeasible(&fault_pc) {
                continue;
            }
            // Outside a `try` a fault ends the whole execution: only
            // globals, heap and output matter, not the (possibly callee's)
            // locals. Inside one, a handler continues from the locals (the
            // caller's, once the callee's frame is left: see `call`).
            let s = State {
                pc: fault_pc,
                locals: if self.try_depth > 0 {
                    state.locals.clone()
                } else {
                    Vec::new()
                },
                globals: state.globals.clone(),
                heap: state.heap.clone(),
                prints: state.prints.clone(),
                thrown: state.thrown.clone(),
            };
            self.faults.push((s, f.code));
            state.pc = Bool::and(&[&state.pc, &f.cond.not()]);
        }
    }

    fn cond(&mut self, e: &Expr, state: &mut State) -> EResult<Bool> {
        match self.expr(e, state)? {
            Sym::Bool(b) => Ok(b),
            _ => Err(unsupported("internal: non-boolean condition")),
        }
    }

    /// An expression's value. Long: one arm per `ExprKind`, mirroring the
    /// interpreter's `eval`.
    fn expr(&mut self, e: &Expr, state: &mut State) -> EResult<Sym> {
        let ops = self.ops;
        Ok(match &e.kind {
            ExprKind::IntLit(v) => ops.int_lit(*v, &e.ty)?,
            ExprKind::FloatLit(f) => ops.float_lit(&f.text, f.value, &e.ty)?,
            ExprKind::BoolLit(b) => Sym::Bool(Bool::from_bool(*b)),
            // A String passed to a method of the file, where it can only
            // build an exception's message or be passed on (the lowering
            // refuses every other use): nothing observes its value.
            ExprKind::StrLit(_) => Sym::Void,
            ExprKind::Local(LocalId(i)) => state
                .locals
                .get(*i as usize)
                .cloned()
                .ok_or_else(|| unsupported("internal: local out of range"))?,
            ExprKind::Global(g) => self.global(*g, state)?,
            ExprKind::Unary(op, a) => {
                let v = self.expr(a, state)?;
                match op {
                    UnOp::Neg => {
                        let (v, faults) = ops.neg(&v, &a.ty)?;
                        self.fault(state, faults);
                        v
                    }
                    UnOp::Not => Sym::Bool(ops.not(&v)?),
                    UnOp::BitNot => ops.bitnot(&v, self.ufs)?,
                }
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let x = self.cond(a, state)?;
                // The right operand runs only when the left does not decide.
                let run_right = if *op == BinOp::And {
                    x.clone()
                } else {
                    x.not()
                };
                let saved = state.pc.clone();
                state.pc = Bool::and(&[&saved, &run_right]);
                let y = if is_false(&state.pc) {
                    Bool::from_bool(false)
                } else {
                    self.cond(b, state)?
                };
                let skipped = Bool::and(&[&saved, &run_right.not()]);
                state.pc = Bool::or(&[&skipped, &state.pc]);
                Sym::Bool(if *op == BinOp::And {
                    Bool::and(&[&x, &y])
                } else {
                    Bool::or(&[&x, &y])
                })
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a, state)?;
                let y = self.expr(b, state)?;
                let (v, faults) = ops.binary(*op, &e.ty, &a.ty, &x, &y, self.ufs)?;
                self.fault(state, faults);
                v
            }
            ExprKind::Cond(c, a, b) => {
                let c = self.cond(c, state)?;
                let saved = state.pc.clone();
                let then_pc = Bool::and(&[&saved, &c]);
                let else_pc = Bool::and(&[&saved, &c.not()]);
                state.pc = then_pc.clone();
                let x = if is_false(&then_pc) {
                    None
                } else {
                    Some(self.expr(a, state)?)
                };
                let then_after = state.pc.clone();
                state.pc = else_pc.clone();
                let y = if is_false(&else_pc) {
                    None
                } else {
                    Some(self.expr(b, state)?)
                };
                let else_after = state.pc.clone();
                state.pc = Bool::or(&[&then_after, &else_after]);
                match (x, y) {
                    (Some(x), Some(y)) => ops.ite(&c, &x, &y)?,
                    (Some(x), None) => x,
                    (None, Some(y)) => y,
                    (None, None) => ops.zero(&e.ty).unwrap_or(Sym::Void),
                }
            }
            ExprKind::Cast(a) => {
                let v = self.expr(a, state)?;
                let (v, faults) = ops.cast(&v, &a.ty, &e.ty)?;
                self.fault(state, faults);
                v
            }
            ExprKind::Index(a, i) => {
                let arr = self.expr(a, state)?;
                let i = self.index_value(i, state)?;
                let obj = self.checked_obj(&arr, &i, state)?;
                let di = i.to_dyn().ok_or_else(|| unsupported("internal: index"))?;
                let d = state.heap[obj].read(&di, ops)?;
                ops.from_dyn(&e.ty, &d)?
            }
            ExprKind::Length(a) => {
                let Sym::Arr(obj) = self.expr(a, state)? else {
                    return Err(unsupported("length of an array that may be unassigned"));
                };
                self.null_fault(obj, state)?;
                let len = object(state, obj)?.len.clone();
                // Lengths live in the index sort; bring them to the expression's type.
                self.index_to_type(&len, &e.ty)?
            }
            ExprKind::IsNull(a) => {
                let Sym::Arr(obj) = self.expr(a, state)? else {
                    return Err(unsupported("null test of an array that may be unassigned"));
                };
                let null = object(state, obj)?.null.clone();
                Sym::Bool(null.unwrap_or_else(|| Bool::from_bool(false)))
            }
            ExprKind::NewArray(n) => {
                let Type::Array(elem) = &e.ty else {
                    return Err(unsupported("internal: new array type"));
                };
                let len = self.index_value(n, state)?;
                let neg = ops.is_negative_index(&len)?;
                self.fault(
                    state,
                    vec![MayFault {
                        cond: neg,
                        code: FaultCode::NEGATIVE_ARRAY_SIZE,
                    }],
                );
                self.alloc(elem, len, &[], state)?
            }
            ExprKind::ArrayLit(items) => {
                let Type::Array(elem) = &e.ty else {
                    return Err(unsupported("internal: array literal type"));
                };
                let mut vals = Vec::new();
                for it in items {
                    vals.push(self.expr(it, state)?);
                }
                let len = ops.index_lit(vals.len() as i64);
                self.alloc(elem, len, &vals, state)?
            }
            ExprKind::Intrinsic(f, args) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a, state)?);
                }
                let faults = ops.intrinsic_faults(*f, &e.ty, &vals)?;
                self.fault(state, faults);
                ops.intrinsic(*f, &e.ty, &vals, self.ufs)?
            }
        })
    }

    fn index_to_type(&self, len: &Sym, ty: &Type) -> EResult<Sym> {
        match (len, ty) {
            (Sym::Int(_), _) => Ok(len.clone()),
            (Sym::Bv(b), Type::Int(t)) => {
                let from = crate::ir::IntTy {
                    bits: b.get_size() as u8,
                    signed: true,
                    is_char: false,
                };
                Ok(Sym::Bv(super::ops::resize_bv(b, &from, t.bits as u32)))
            }
            _ => Err(unsupported("internal: length type")),
        }
    }

    fn alloc(&mut self, elem: &Type, len: Sym, items: &[Sym], state: &mut State) -> EResult<Sym> {
        if matches!(elem, Type::Array(_)) {
            return Err(unsupported("arrays of arrays"));
        }
        let zero = self
            .ops
            .zero(elem)?
            .to_dyn()
            .ok_or_else(|| unsupported("internal: array element"))?;
        let mut data = Array::const_array(&self.ops.index_sort(), &zero);
        let mut values = Vec::with_capacity(items.len());
        for (i, v) in items.iter().enumerate() {
            let idx = self
                .ops
                .index_lit(i as i64)
                .to_dyn()
                .ok_or_else(|| unsupported("internal: index"))?;
            let d = v.to_dyn().ok_or_else(|| unsupported("arrays of arrays"))?;
            data = data.store(&idx, &d);
            values.push(d);
        }
        let items = (!values.is_empty() && values.len() <= MAX_ITEMS_LOOKUP).then(|| {
            Rc::new(Items {
                of: data.clone(),
                values,
                zero,
            })
        });
        state.heap.push(ArrObj {
            len,
            data,
            elem: elem.clone(),
            null: None,
            items,
        });
        Ok(Sym::Arr(state.heap.len() - 1))
    }

    fn global(&mut self, g: GlobalId, state: &mut State) -> EResult<Sym> {
        if let Some(v) = state.globals.get(&g) {
            return Ok(v.clone());
        }
        let decl = self.program.global(g);
        match &decl.constant {
            Some(init) => {
                let init = init.clone();
                let v = self.expr(&init, state)?;
                // Constant arrays are allocated once and then shared.
                if matches!(v, Sym::Arr(_)) {
                    state.globals.insert(g, v.clone());
                }
                Ok(v)
            }
            None => Err(unsupported(format!(
                "internal: global {} has no value",
                decl.name
            ))),
        }
    }

    /// Printed output is kept as a sequence of items in a canonical form:
    /// every literal character is its own `CHAR` item and every printed
    /// value one item tagged by how it is formatted. Equal sequences print
    /// equal text, and splitting or joining print calls does not change the
    /// sequence.
    fn print(&mut self, kind: &PrintKind, args: &[Expr], state: &mut State) -> EResult<()> {
        match kind {
            PrintKind::Java { newline } | PrintKind::C { newline } => {
                for a in args {
                    self.print_value(a, None, state)?;
                }
                if *newline {
                    self.append_text(state, "\n")?;
                }
            }
            PrintKind::Printf { format } => {
                let mut rest = args.iter();
                for piece in split_format(format) {
                    match piece {
                        FormatPiece::Text(t) => self.append_text(state, &t)?,
                        FormatPiece::Conversion(spec) => {
                            let Some(a) = rest.next() else {
                                return Err(unsupported(
                                    "printf with fewer arguments than conversions",
                                ));
                            };
                            self.print_value(a, Some(&spec), state)?;
                        }
                    }
                }
                // Extra arguments are evaluated (they may fault) but not printed.
                for a in rest {
                    if !matches!(a.kind, ExprKind::StrLit(_)) {
                        self.expr(a, state)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn append_text(&mut self, state: &mut State, text: &str) -> EResult<()> {
        for ch in text.chars() {
            let code = self.ops.int_lit(ch as i128, &Type::LONG)?;
            self.append(state, tag::CHAR, Some((code, &Type::LONG)))?;
        }
        Ok(())
    }

    /// One printed argument; `spec` is its printf conversion (`%d`, `%.2f`).
    fn print_value(&mut self, a: &Expr, spec: Option<&str>, state: &mut State) -> EResult<()> {
        if let ExprKind::StrLit(text) = &a.kind {
            return match spec {
                None => self.append_text(state, text),
                Some("%s") => self.append_text(state, text),
                Some(s) => Err(unsupported(format!("printf conversion {s} of a string"))),
            };
        }
        let v = self.expr(a, state)?;
        let t = match (spec, &a.ty) {
            (Some(s), _)
                if s.ends_with('c')
                    && !s[1..].contains(|c: char| c.is_ascii_digit() || c == '-') =>
            {
                tag::CHAR
            }
            (Some(s), Type::Int(t))
                if t.signed && matches!(s, "%d" | "%i" | "%ld" | "%li" | "%lld" | "%lli") =>
            {
                tag::NUMBER
            }
            (Some(s), _) => self.strings.tag(s),
            (None, Type::Bool) => tag::BOOL,
            (None, Type::Int(t)) if t.is_char => tag::CHAR,
            (None, Type::Int(_)) => tag::NUMBER,
            (None, Type::Float(crate::ir::FloatTy::F32)) => tag::FLOAT,
            (None, Type::Float(_)) => tag::DOUBLE,
            (None, t) => return Err(unsupported(format!("printing a value of type {t}"))),
        };
        let v = match v {
            Sym::Bool(b) => self.ops.cast(&Sym::Bool(b), &Type::Bool, &Type::LONG)?.0,
            other => other,
        };
        self.append(state, t, Some((v, &a.ty)))
    }

    fn append(&mut self, state: &mut State, t: i64, value: Option<(Sym, &Type)>) -> EResult<()> {
        let pos = state.prints.len.clone();
        let mut int_payload = self.print_int_zero();
        let mut real_payload = self.print_real_zero();
        if let Some((v, ty)) = value {
            match (&v, ty) {
                (Sym::Int(i), _) => int_payload = Dynamic::from_ast(i),
                (Sym::Bv(b), Type::Int(it)) => {
                    int_payload = Dynamic::from_ast(&super::ops::resize_bv(b, it, 64));
                }
                (Sym::Bv(b), _) => int_payload = Dynamic::from_ast(b),
                (Sym::Real(r), _) => real_payload = Dynamic::from_ast(r),
                (Sym::Fp(f), _) => {
                    let d = f.to_fp_with_rounding_mode(
                        &z3::ast::RoundingMode::round_nearest_ties_to_even(),
                        &Sort::double(),
                    );
                    real_payload = Dynamic::from_ast(&d.to_ieee_bv());
                }
                _ => return Err(unsupported("printing this value")),
            }
        }
        let p = &mut state.prints;
        p.tags = p.tags.store(&pos, &Int::from_i64(t));
        p.ints = p.ints.store(&pos, &int_payload);
        p.reals = p.reals.store(&pos, &real_payload);
        p.len = Int::add(&[&pos, &Int::from_i64(1)]);
        Ok(())
    }
}

/// A piece of a printf format string.
#[derive(Debug, PartialEq)]
enum FormatPiece {
    Text(String),
    /// A whole conversion specification, `%` to conversion character.
    Conversion(String),
}

fn split_format(format: &str) -> Vec<FormatPiece> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            text.push('%');
            continue;
        }
        let mut spec = String::from("%");
        for d in chars.by_ref() {
            spec.push(d);
            if d.is_ascii_alphabetic() && !matches!(d, 'l' | 'h' | 'z' | 'j' | 't' | 'L' | 'q') {
                break;
            }
        }
        if !text.is_empty() {
            out.push(FormatPiece::Text(std::mem::take(&mut text)));
        }
        out.push(FormatPiece::Conversion(spec));
    }
    if !text.is_empty() {
        out.push(FormatPiece::Text(text));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cap that makes pruning independent of the machine's load must
    /// be Z3's resource count, honoured: a factoring query far beyond the
    /// cap comes back `unknown` after about the cap's units.
    #[test]
    fn feasibility_checks_stop_at_their_resource_cap() {
        let ops = Ops::new(
            crate::ir::Semantics::Machine,
            crate::ir::Lang::C,
            crate::ir::SignedOverflow::Undefined,
        );
        let solver = feasibility_solver(ops, false);
        // The pigeonhole principle for 11 pigeons in 10 holes: unsat, and
        // exponential for the resolution proofs a SAT solver finds.
        let (pigeons, holes) = (11, 10);
        let at: Vec<Vec<Bool>> = (0..pigeons)
            .map(|p| {
                (0..holes)
                    .map(|h| Bool::new_const(format!("p{p}h{h}")))
                    .collect()
            })
            .collect();
        let mut clauses: Vec<Bool> = at.iter().map(|row| Bool::or(row)).collect();
        // No hole holds two pigeons.
        for (p, row) in at.iter().enumerate() {
            for other in &at[p + 1..] {
                for (a, b) in row.iter().zip(other) {
                    clauses.push(Bool::or(&[a.not(), b.not()]));
                }
            }
        }
        let pc = Bool::and(&clauses);
        let units = || match solver.get_statistics().value("rlimit count") {
            Some(z3::StatisticsValue::UInt(n)) => u64::from(n),
            other => panic!("no resource count: {other:?}"),
        };
        let before = units();
        assert_eq!(solver.check_assumptions(&[pc]), z3::SatResult::Unknown);
        let used = units() - before;
        let cap = u64::from(FEASIBILITY_CHECK_UNITS);
        assert!(
            (cap / 2..=cap * 2).contains(&used),
            "used {used} units for a cap of {cap}"
        );
    }

    #[test]
    fn printf_formats_split_into_text_and_conversions() {
        let pieces = split_format("x=%d, y=%.2f%%\n%ld%c");
        assert_eq!(
            pieces,
            vec![
                FormatPiece::Text("x=".into()),
                FormatPiece::Conversion("%d".into()),
                FormatPiece::Text(", y=".into()),
                FormatPiece::Conversion("%.2f".into()),
                FormatPiece::Text("%\n".into()),
                FormatPiece::Conversion("%ld".into()),
                FormatPiece::Conversion("%c".into()),
            ]
        );
    }
}
