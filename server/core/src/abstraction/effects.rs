//! What statements read and write, and what whole functions do besides
//! returning a value: the facts block extraction needs to decide whether a
//! run of common statements can be replaced by uninterpreted functions, and
//! which values flow in and out of it.
//!
//! Everything here is syntactic and conservative: a "may" set may say more
//! than happens, a "must" set less. Over-approximating inputs and outputs
//! costs precision (spurious candidates, more refinement), never soundness.

use crate::ir::{
    BinOp, Block, Expr, ExprKind, FuncId, GlobalId, LabelId, Lang, LocalId, Place, Program, Stmt,
    StmtKind, Type,
};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;

/// An array an element store goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArrayRoot {
    Local(LocalId),
    Global(GlobalId),
}

/// The effects of a statement run (or of an expression).
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// Locals whose value is read (array locals included: reading `a[i]`
    /// reads the reference `a`).
    pub reads: BTreeSet<LocalId>,
    /// Locals assigned somewhere.
    pub writes: BTreeSet<LocalId>,
    pub reads_globals: BTreeSet<GlobalId>,
    pub writes_globals: BTreeSet<GlobalId>,
    /// Arrays whose elements may be stored to.
    pub stores: BTreeSet<ArrayRoot>,
    /// Arrays read or written through (their length and contents are
    /// inputs of an abstracted block).
    pub arrays: BTreeSet<ArrayRoot>,
    /// Prints (directly or in a callee): the printed items are then also a
    /// function of the inputs.
    pub prints: bool,
    /// Something we do not abstract: allocating arrays, assigning
    /// an array reference, storing through an array we cannot name, calling
    /// a function with such effects. Says which, for the explanation.
    pub blocker: Option<&'static str>,
    /// `return`, or a `break`/`continue` whose target is outside the run.
    pub escapes: bool,
    pub may_fault: bool,
    /// An explicit `throw`/`abort()`/`exit`/`assert` (directly or in a
    /// callee): its outcome code is not one an abstracted block can report.
    pub throws: bool,
    pub has_loop: bool,
    /// Multiplications, divisions, remainders and non-linear intrinsics
    /// (ARDiff's H3 counts them).
    pub nonlinear: u32,
}

/// What a whole function does to the world (transitively through its
/// callees), by the ids of its own program.
#[derive(Clone, Debug, Default)]
pub struct FunctionEffects {
    pub reads_globals: BTreeSet<GlobalId>,
    pub writes_globals: BTreeSet<GlobalId>,
    /// Stores to arrays it does not allocate itself: may write through any
    /// array argument or array global.
    pub stores_shared: bool,
    pub prints: bool,
    pub may_fault: bool,
    pub throws: bool,
    pub has_loop: bool,
}

impl FunctionEffects {
    /// Adds a callee's effects; true when that changed anything.
    fn absorb(&mut self, callee: FunctionEffects) -> bool {
        let before = (self.reads_globals.len(), self.writes_globals.len());
        let flags = [
            self.stores_shared,
            self.prints,
            self.may_fault,
            self.throws,
            self.has_loop,
        ];
        self.reads_globals.extend(callee.reads_globals);
        self.writes_globals.extend(callee.writes_globals);
        self.stores_shared |= callee.stores_shared;
        self.prints |= callee.prints;
        self.may_fault |= callee.may_fault;
        self.throws |= callee.throws;
        self.has_loop |= callee.has_loop;
        before != (self.reads_globals.len(), self.writes_globals.len())
            || flags
                != [
                    self.stores_shared,
                    self.prints,
                    self.may_fault,
                    self.throws,
                    self.has_loop,
                ]
    }
}

/// [`FunctionEffects`] by function, for the functions a table was built for.
pub type FunctionEffectsMap = FxHashMap<FuncId, FunctionEffects>;

/// [`FunctionEffects`] of every function of a program, as a fixpoint over
/// the call graph (recursion included).
pub fn function_effects(program: &Program) -> FunctionEffectsMap {
    let all: Vec<FuncId> = (0..program.functions.len() as u32).map(FuncId).collect();
    function_effects_in(program, &all)
}

/// [`function_effects`] of `members`, a set of functions closed under
/// calls (a [`crate::scope::Scope`]'s): the work is theirs, whatever the
/// size of the program. A callee outside `members` (or out of range)
/// contributes nothing here; [`run_effects`] refuses a call of a function
/// the table lacks.
pub fn function_effects_in(program: &Program, members: &[FuncId]) -> FunctionEffectsMap {
    let mut out = FunctionEffectsMap::with_capacity_and_hasher(members.len(), Default::default());
    // Direct effects and callees.
    let mut callees: FxHashMap<FuncId, BTreeSet<FuncId>> =
        FxHashMap::with_capacity_and_hasher(members.len(), Default::default());
    for &id in members {
        let Some(def) = program.functions.get(id.0 as usize) else {
            continue;
        };
        let Ok(f) = &def.body else {
            // Never abstracted over anyway (a call of it is unsupported in
            // every checker), but nothing is known of it: it may do
            // anything but touch globals it cannot name.
            out.insert(
                id,
                FunctionEffects {
                    stores_shared: true,
                    prints: true,
                    may_fault: true,
                    throws: true,
                    has_loop: true,
                    ..FunctionEffects::default()
                },
            );
            callees.insert(id, BTreeSet::new());
            continue;
        };
        let mut w = Walker::new(program, None);
        w.block(&f.body);
        let own_arrays: FxHashSet<LocalId> = f
            .locals
            .iter()
            .enumerate()
            .filter(|(i, l)| {
                matches!(l.ty, Type::Array(_)) && !f.params.contains(&LocalId(*i as u32))
            })
            .map(|(i, _)| LocalId(i as u32))
            .collect();
        let e = &w.effects;
        out.insert(
            id,
            FunctionEffects {
                reads_globals: e.reads_globals.clone(),
                writes_globals: e.writes_globals.clone(),
                // Stores into arrays the function allocated itself stay
                // local only if the array is a local that is not a
                // parameter; any other root (parameter, global) is shared.
                stores_shared: e.stores.iter().any(|r| match r {
                    ArrayRoot::Local(l) => !own_arrays.contains(l),
                    ArrayRoot::Global(_) => true,
                }) || w.unnamed_store,
                prints: w.prints,
                may_fault: e.may_fault,
                throws: e.throws,
                has_loop: e.has_loop,
            },
        );
        callees.insert(id, w.calls);
    }
    // Propagate through callees until nothing changes.
    loop {
        let mut changed = false;
        for &i in members {
            let Some(cs) = callees.get(&i) else {
                continue;
            };
            for c in cs {
                if *c == i {
                    continue;
                }
                let Some(ce) = out.get(c).cloned() else {
                    continue;
                };
                if let Some(e) = out.get_mut(&i) {
                    changed |= e.absorb(ce);
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Recursion is a loop for termination purposes.
    for &i in members {
        if reaches(&callees, i, i)
            && let Some(e) = out.get_mut(&i)
        {
            e.has_loop = true;
        }
    }
    out
}

fn reaches(callees: &FxHashMap<FuncId, BTreeSet<FuncId>>, from: FuncId, to: FuncId) -> bool {
    let mut seen = FxHashSet::default();
    let mut stack: Vec<FuncId> = callees
        .get(&from)
        .map(|c| c.iter().copied().collect())
        .unwrap_or_default();
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        if seen.insert(f)
            && let Some(c) = callees.get(&f)
        {
            stack.extend(c.iter().copied());
        }
    }
    false
}

/// The effects of a run of statements, with callees' effects folded in.
pub fn run_effects(
    program: &Program,
    callee_effects: &FunctionEffectsMap,
    run: &[Stmt],
) -> Effects {
    let mut w = Walker::new(program, Some(callee_effects));
    w.block(run);
    let mut e = w.effects;
    e.prints = w.prints;
    if w.unnamed_store {
        e.blocker = e.blocker.or(Some("a store through an unnamed array"));
    }
    e.escapes |= w
        .escaping_labels
        .iter()
        .any(|l| !w.bound_labels.contains(l));
    e
}

/// Locals that are definitely assigned by `run` before being read, looking
/// only at top-level unconditional assignments and both branches of `if`s.
pub fn definitely_written_first(run: &[Stmt]) -> (BTreeSet<LocalId>, BTreeSet<LocalId>) {
    // Returns (read before any definite write, definitely written).
    let mut defined = BTreeSet::new();
    let mut early_reads = BTreeSet::new();
    must_write_block(run, &mut defined, &mut early_reads);
    (early_reads, defined)
}

fn must_write_block(b: &[Stmt], defined: &mut BTreeSet<LocalId>, early: &mut BTreeSet<LocalId>) {
    for s in b {
        must_write_stmt(s, defined, early);
    }
}

fn must_write_stmt(s: &Stmt, defined: &mut BTreeSet<LocalId>, early: &mut BTreeSet<LocalId>) {
    let mut reads = BTreeSet::new();
    let note = |e: &Expr, reads: &mut BTreeSet<LocalId>| expr_locals(e, reads);
    match &s.kind {
        StmtKind::Assign { place, value } => {
            place_reads(place, &mut reads);
            note(value, &mut reads);
            early.extend(reads.difference(defined).copied());
            if let Place::Local(l) = place {
                defined.insert(*l);
            }
        }
        StmtKind::Call { dest, args, .. } | StmtKind::External { dest, args, .. } => {
            if let Some(p) = dest {
                place_reads(p, &mut reads);
            }
            args.iter().for_each(|a| note(a, &mut reads));
            early.extend(reads.difference(defined).copied());
            if let Some(Place::Local(l)) = dest {
                defined.insert(*l);
            }
        }
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            note(cond, &mut reads);
            early.extend(reads.difference(defined).copied());
            let mut d1 = defined.clone();
            let mut d2 = defined.clone();
            must_write_block(then_branch, &mut d1, early);
            must_write_block(else_branch, &mut d2, early);
            defined.extend(d1.intersection(&d2).copied());
        }
        _ => {
            // Loops (may run zero times), labeled blocks (may be left
            // early), nested blocks: every local read counts as early, and
            // nothing becomes definitely written.
            let mut w = Walker::bare();
            w.stmt(s);
            early.extend(w.effects.reads.difference(defined).copied());
        }
    }
}

fn place_reads(p: &Place, out: &mut BTreeSet<LocalId>) {
    if let Place::Index { array, index } = p {
        expr_locals(array, out);
        expr_locals(index, out);
    }
}

/// The locals an expression reads.
pub fn expr_locals(e: &Expr, out: &mut BTreeSet<LocalId>) {
    let mut all = Vec::new();
    collect_reads(e, &mut all);
    out.extend(all);
}

/// Number of times each local is read in `body`.
pub fn read_counts(body: &Block) -> FxHashMap<LocalId, usize> {
    let mut counts = FxHashMap::default();
    let mut w = CountingWalker {
        read_counts: FxHashMap::default(),
    };
    w.block(body);
    for (l, n) in w.read_counts {
        counts.insert(l, n);
    }
    counts
}

/// A signed integer type: where C's overflow is undefined behaviour.
fn signed_int(ty: &Type) -> bool {
    matches!(ty, Type::Int(t) if t.signed)
}

/// Syntax walker collecting [`Effects`].
struct Walker<'a> {
    program: Option<&'a Program>,
    callee_effects: Option<&'a FunctionEffectsMap>,
    effects: Effects,
    prints: bool,
    unnamed_store: bool,
    calls: BTreeSet<FuncId>,
    bound_labels: FxHashSet<LabelId>,
    escaping_labels: FxHashSet<LabelId>,
    lang: Lang,
}

/// A walker that only counts local reads (see [`read_counts`]).
struct CountingWalker {
    read_counts: FxHashMap<LocalId, usize>,
}

impl CountingWalker {
    fn block(&mut self, b: &[Stmt]) {
        let mut stack: Vec<&Stmt> = b.iter().rev().collect();
        while let Some(s) = stack.pop() {
            let mut reads = Vec::new();
            for_each_expr(s, &mut |e| collect_reads(e, &mut reads));
            for l in reads {
                *self.read_counts.entry(l).or_default() += 1;
            }
            for child in child_blocks(s).into_iter().rev() {
                stack.extend(child.iter().rev());
            }
        }
    }
}

/// Every occurrence of a local in `e` (not each distinct local).
fn collect_reads(e: &Expr, out: &mut Vec<LocalId>) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let ExprKind::Local(l) = e.kind {
            out.push(l);
        }
        stack.extend(e.children());
    }
}

/// Calls `f` on every expression a statement evaluates itself (not those of
/// nested statements), places' subexpressions included.
pub fn for_each_expr<'s>(s: &'s Stmt, f: &mut dyn FnMut(&'s Expr)) {
    let place = |p: &'s Place, f: &mut dyn FnMut(&'s Expr)| {
        if let Place::Index { array, index } = p {
            f(array);
            f(index);
        }
    };
    match &s.kind {
        StmtKind::Assign { place: p, value } => {
            place(p, f);
            f(value);
        }
        StmtKind::Call { dest, args, .. } | StmtKind::External { dest, args, .. } => {
            if let Some(p) = dest {
                place(p, f);
            }
            args.iter().for_each(&mut *f);
        }
        StmtKind::Print { args, .. } => args.iter().for_each(&mut *f),
        StmtKind::If { cond, .. } | StmtKind::Loop { cond, .. } => f(cond),
        StmtKind::Return(Some(e)) => f(e),
        _ => {}
    }
}

/// The statement lists nested directly in `s`, in preorder order.
pub fn child_blocks(s: &Stmt) -> Vec<&Block> {
    s.child_blocks()
}

impl<'a> Walker<'a> {
    /// A walker without program context: callees and global types unknown.
    fn bare() -> Self {
        Walker {
            program: None,
            callee_effects: None,
            effects: Effects::default(),
            prints: false,
            unnamed_store: false,
            calls: BTreeSet::new(),
            bound_labels: FxHashSet::default(),
            escaping_labels: FxHashSet::default(),
            lang: Lang::Java,
        }
    }

    fn new(program: &'a Program, callee_effects: Option<&'a FunctionEffectsMap>) -> Self {
        Walker {
            program: Some(program),
            callee_effects,
            effects: Effects::default(),
            prints: false,
            unnamed_store: false,
            calls: BTreeSet::new(),
            bound_labels: FxHashSet::default(),
            escaping_labels: FxHashSet::default(),
            lang: program.lang,
        }
    }

    fn block(&mut self, b: &[Stmt]) {
        for s in b {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { place, value } => {
                self.place(place, &value.ty);
                self.expr(value);
            }
            StmtKind::Call { dest, func, args } => {
                if let Some(p) = dest {
                    let ty = self
                        .program
                        .and_then(|p| p.function(*func).body.as_ref().ok())
                        .map(|f| f.ret.clone())
                        .unwrap_or(Type::Void);
                    self.place(p, &ty);
                }
                args.iter().for_each(|a| self.expr(a));
                self.call(*func, args);
            }
            StmtKind::Print { args, .. } => {
                self.prints = true;
                args.iter().for_each(|a| self.expr(a));
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.expr(cond);
                self.block(then_branch);
                self.block(else_branch);
            }
            StmtKind::Loop {
                label,
                cond,
                body,
                step,
                ..
            } => {
                self.effects.has_loop = true;
                self.bound_labels.insert(*label);
                self.expr(cond);
                self.block(body);
                self.block(step);
            }
            StmtKind::Labeled { label, body } => {
                self.bound_labels.insert(*label);
                self.block(body);
            }
            StmtKind::Break(l) | StmtKind::Continue(l) => {
                self.escaping_labels.insert(*l);
            }
            StmtKind::Return(e) => {
                self.effects.escapes = true;
                if let Some(e) = e {
                    self.expr(e);
                }
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Throw(_) => {
                self.effects.may_fault = true;
                self.effects.throws = true;
            }
            // An unseen callee may end the run with an outcome no abstracted
            // block can report.
            StmtKind::External { dest, args, .. } => {
                if let Some(p) = dest {
                    // Results are scalars (the front ends refuse others).
                    self.place(p, &Type::Void);
                }
                args.iter().for_each(|a| self.expr(a));
                self.effects.may_fault = true;
                self.effects.throws = true;
            }
            // What a `try` catches changes outcome codes in ways an
            // abstracted block cannot report: never part of one.
            StmtKind::Try { .. } => {
                self.effects.throws = true;
                for b in s.child_blocks() {
                    self.block(b);
                }
            }
        }
    }

    fn call(&mut self, func: FuncId, args: &[Expr]) {
        self.calls.insert(func);
        let Some(all) = self.callee_effects else {
            return;
        };
        let Some(ce) = all.get(&func) else {
            self.effects.blocker = Some("a call to an unknown function");
            return;
        };
        self.effects
            .reads_globals
            .extend(ce.reads_globals.iter().copied());
        self.effects
            .writes_globals
            .extend(ce.writes_globals.iter().copied());
        self.effects.may_fault |= ce.may_fault;
        self.effects.throws |= ce.throws;
        self.effects.has_loop |= ce.has_loop;
        self.prints |= ce.prints;
        // Arrays passed in are read; stored to if the callee stores to
        // arrays it did not allocate.
        for a in args {
            if matches!(a.ty, Type::Array(_)) {
                match self.root(a) {
                    Some(r) => {
                        self.effects.arrays.insert(r);
                        if ce.stores_shared {
                            self.effects.stores.insert(r);
                        }
                    }
                    None => self.unnamed_store = true,
                }
            }
        }
        if ce.stores_shared {
            // Array globals it touches are written too.
            if let Some(p) = self.program {
                for g in ce.reads_globals.iter().chain(&ce.writes_globals) {
                    if matches!(p.global(*g).ty, Type::Array(_)) {
                        self.effects.arrays.insert(ArrayRoot::Global(*g));
                        self.effects.stores.insert(ArrayRoot::Global(*g));
                    }
                }
            }
        }
        // Array globals the callee reads are inputs.
        if let Some(p) = self.program {
            for g in &ce.reads_globals {
                if matches!(p.global(*g).ty, Type::Array(_)) {
                    self.effects.arrays.insert(ArrayRoot::Global(*g));
                }
            }
        }
    }

    fn root(&self, e: &Expr) -> Option<ArrayRoot> {
        match &e.kind {
            ExprKind::Local(l) => Some(ArrayRoot::Local(*l)),
            ExprKind::Global(g) => Some(ArrayRoot::Global(*g)),
            _ => None,
        }
    }

    fn place(&mut self, p: &Place, ty: &Type) {
        match p {
            Place::Local(l) => {
                self.effects.writes.insert(*l);
                if matches!(ty, Type::Array(_)) {
                    self.effects.blocker = self
                        .effects
                        .blocker
                        .or(Some("an assignment of an array reference"));
                }
            }
            Place::Global(g) => {
                self.effects.writes_globals.insert(*g);
                if matches!(ty, Type::Array(_)) {
                    self.effects.blocker = self
                        .effects
                        .blocker
                        .or(Some("an assignment of an array reference"));
                }
            }
            Place::Index { array, index } => {
                self.effects.may_fault = true;
                match self.root(array) {
                    Some(r) => {
                        self.effects.stores.insert(r);
                        self.effects.arrays.insert(r);
                    }
                    None => self.unnamed_store = true,
                }
                self.expr(array);
                self.expr(index);
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        let mut stack = vec![e];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Local(l) => {
                    self.effects.reads.insert(*l);
                    if matches!(e.ty, Type::Array(_)) {
                        self.effects.arrays.insert(ArrayRoot::Local(*l));
                    }
                }
                ExprKind::Global(g) => {
                    self.effects.reads_globals.insert(*g);
                    if matches!(e.ty, Type::Array(_)) {
                        self.effects.arrays.insert(ArrayRoot::Global(*g));
                    }
                }
                ExprKind::Unary(op, a) => {
                    // C: `-INT_MIN` is undefined under machine semantics.
                    if self.lang == Lang::C && *op == crate::ir::UnOp::Neg && signed_int(&a.ty) {
                        self.effects.may_fault = true;
                    }
                    stack.push(a);
                }
                // A `null` array input: Java's NullPointerException.
                ExprKind::Length(a) if self.lang == Lang::Java => {
                    self.effects.may_fault = true;
                    stack.push(a);
                }
                ExprKind::Length(a) | ExprKind::IsNull(a) => stack.push(a),
                ExprKind::Cast(a) => {
                    // C: out-of-range float→int conversions are undefined.
                    if self.lang == Lang::C
                        && matches!(a.ty, Type::Float(_))
                        && matches!(e.ty, Type::Int(_))
                    {
                        self.effects.may_fault = true;
                    }
                    stack.push(a);
                }
                ExprKind::Binary(op, a, b) => {
                    match op {
                        BinOp::Mul => self.effects.nonlinear += 1,
                        BinOp::Div | BinOp::Rem => {
                            self.effects.nonlinear += 1;
                            self.effects.may_fault = true;
                        }
                        BinOp::Shl | BinOp::Shr | BinOp::UShr if self.lang == Lang::C => {
                            self.effects.may_fault = true;
                        }
                        _ => {}
                    }
                    // C: signed overflow is undefined under machine
                    // semantics. (Floating-point arithmetic never faults: a
                    // block of `double` sums left fault-free is not asked,
                    // at every application, which fault it raised: such
                    // questions are costly and can only answer "none".)
                    if self.lang == Lang::C
                        && matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
                        && [&e.ty, &a.ty, &b.ty].into_iter().any(signed_int)
                    {
                        self.effects.may_fault = true;
                    }
                    stack.push(a);
                    stack.push(b);
                }
                ExprKind::Index(a, i) => {
                    self.effects.may_fault = true;
                    stack.push(a);
                    stack.push(i);
                }
                ExprKind::Cond(c, a, b) => {
                    stack.push(c);
                    stack.push(a);
                    stack.push(b);
                }
                ExprKind::NewArray(a) => {
                    self.effects.blocker = self.effects.blocker.or(Some("an array allocation"));
                    self.effects.may_fault = true;
                    stack.push(a);
                }
                ExprKind::ArrayLit(xs) => {
                    self.effects.blocker = self.effects.blocker.or(Some("an array allocation"));
                    stack.extend(xs);
                }
                ExprKind::Intrinsic(f, xs) => {
                    use crate::ir::Intrinsic::*;
                    if !matches!(f, Abs | Min | Max | Floor | Ceil | Round) {
                        self.effects.nonlinear += 1;
                    }
                    // C's `abs` of the minimum is undefined (the only
                    // intrinsic the executor lets fault,
                    // `Ops::intrinsic_faults`).
                    if self.lang == Lang::C && *f == Abs && signed_int(&e.ty) {
                        self.effects.may_fault = true;
                    }
                    stack.extend(xs);
                }
                ExprKind::IntLit(_)
                | ExprKind::FloatLit(_)
                | ExprKind::BoolLit(_)
                | ExprKind::StrLit(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;
    use crate::lang::lower;

    fn body(src: &str) -> (Program, crate::ir::Function) {
        let p = lower(Lang::Java, src);
        let f = p.find("f").next().and_then(|(_, d)| d.body.clone().ok());
        let f = f.expect("f lowers");
        (p, f)
    }

    #[test]
    fn effects_of_a_run_name_its_reads_writes_and_blockers() {
        let (p, f) = body(
            "class T { static int g; static int f(int a, int[] xs) {
                int b = a * 2;
                xs[0] = b;
                g = g + 1;
                System.out.println(b);
                return b;
            } }",
        );
        let fe = function_effects(&p);
        let e = run_effects(&p, &fe, &f.body[..3]);
        assert!(e.blocker.is_none(), "{:?}", e.blocker);
        assert!(!e.escapes);
        assert!(e.may_fault, "array store may fault");
        assert_eq!(e.nonlinear, 1);
        assert_eq!(e.stores.len(), 1);
        assert_eq!(e.writes_globals.len(), 1);
        let e = run_effects(&p, &fe, &f.body[..4]);
        assert!(e.blocker.is_none() && e.prints);
        let e = run_effects(&p, &fe, &f.body[4..]);
        assert!(e.escapes);
    }

    /// In C only what the executor lets fault makes a block faultable:
    /// signed integer arithmetic (undefined on overflow under `machine`),
    /// float→integer conversions, `abs` of an `int` — not `double`
    /// arithmetic, unsigned arithmetic or `fabs`, whose blocks would
    /// otherwise branch on a fault code at every application.
    #[test]
    fn c_blocks_fault_only_where_the_executor_can() {
        let faults = |stmt: &str| {
            let src = format!(
                "#include <math.h>\nint f(int i, unsigned u, double d) {{ int r = 0; double e = 0; unsigned w = 0; {stmt} return r; }}"
            );
            let p = lower(Lang::C, &src);
            let f = p.find("f").next().and_then(|(_, d)| d.body.clone().ok());
            let f = f.expect("f lowers");
            let fe = function_effects(&p);
            // The statement under test, just before the return.
            let n = f.body.len();
            assert!(n >= 2, "{stmt}: {:?}", f.body);
            run_effects(&p, &fe, &f.body[n - 2..n - 1]).may_fault
        };
        for (stmt, expected) in [
            ("e = d * d + 1.0 - d;", false),
            ("e = -d;", false),
            ("e = fabs(d) + exp(d);", false),
            ("e = (double) i;", false),
            ("w = u * u + 1u;", false),
            ("r = i + 1;", true),
            ("r = -i;", true),
            ("r = i * i;", true),
            ("r = (int) d;", true),
            ("r = abs(i);", true),
            ("r = i / 2;", true),
        ] {
            assert_eq!(faults(stmt), expected, "{stmt}");
        }
    }

    #[test]
    fn callee_effects_are_transitive() {
        let (p, _) = body(
            "class T { static int g; static int[] h;
              static void w(int[] a) { a[0] = 1; }
              static void v(int[] a) { w(a); g = 2; }
              static void pr() { System.out.println(1); }
              static void q() { pr(); }
              static int f(int a) { return a; } }",
        );
        let fe = function_effects(&p);
        let v = p.find("v").next().map(|(id, _)| id);
        let q = p.find("q").next().map(|(id, _)| id);
        let (v, q) = (v.expect("v"), q.expect("q"));
        assert!(fe[&v].stores_shared);
        assert_eq!(fe[&v].writes_globals.len(), 1);
        assert!(!fe[&v].prints);
        assert!(fe[&q].prints);
    }

    #[test]
    fn definite_writes_need_both_branches() {
        let (_, f) = body(
            "class T { static int f(int a, int c) {
                int x; int y;
                if (c > 0) { x = 1; y = 1; } else { x = 2; }
                a = x + y;
                return a;
            } }",
        );
        // The run: the `if` and the assignment to `a`.
        let (early, defined) = definitely_written_first(&f.body[..2]);
        let name = |l: &LocalId| f.local(*l).name.clone();
        let early: Vec<String> = early.iter().map(name).collect();
        let defined: Vec<String> = defined.iter().map(name).collect();
        assert!(early.contains(&"c".to_string()));
        assert!(early.contains(&"y".to_string()), "{early:?}");
        assert!(!early.contains(&"x".to_string()), "{early:?}");
        assert!(defined.contains(&"x".to_string()));
        assert!(defined.contains(&"a".to_string()));
    }
}
