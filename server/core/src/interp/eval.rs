//! Statement and expression evaluation: frames, the global store, the array
//! heap, control flow, calls, printing and the resource limits.

use super::ops::{Arith, internal};
use super::render::{self, PArg};
use super::{
    CalleeArg, CalleeResult, CalleeStub, Execution, FaultKind, Inputs, LimitKind, Limits, Outcome,
    Printed, Stop, Unanalysed, UnseenCall,
};
use crate::ir::{
    BinOp, Block, Expr, ExprKind, FuncId, Function, LabelId, LoopKind, Place, PrintKind, Program,
    Semantics, SignedOverflow, Span, Stmt, StmtKind, Type,
};
use crate::value::{Real, Value};
use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};
use std::collections::BTreeMap;

/// A value inside the interpreter. Arrays are references into the heap so
/// that aliasing (two locals, an argument and a local) behaves as in Java/C.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum V {
    Void,
    Bool(bool),
    Int(BigInt),
    Real(Real),
    F32(f32),
    F64(f64),
    /// A string literal being printed.
    Str(String),
    /// A reference to `heap[n]`.
    Arr(usize),
    /// `null`: an array input passed as `null`, or an array variable that
    /// was never assigned (locals start here; the front ends'
    /// definite-assignment rules make that unobservable). Using it faults
    /// ([`FaultKind::NullPointer`]).
    Null,
}

/// How a block finished.
enum Flow {
    Normal,
    Break(LabelId),
    Continue(LabelId),
    Return(V),
}

/// A resolved assignment target. Array element targets are bounds-checked
/// only when stored to, after the right-hand side was evaluated (Java order,
/// JLS 15.26.1).
enum Loc {
    Local(usize),
    Global(usize),
    Elem { array: Option<usize>, index: BigInt },
}

struct Frame {
    locals: Vec<V>,
}

pub(crate) struct Interp<'p> {
    program: &'p Program,
    limits: &'p Limits,
    ar: Arith,
    heap: Vec<Vec<V>>,
    /// Total array elements allocated, to bound memory across allocations.
    heap_cells: usize,
    globals: Vec<V>,
    steps: u64,
    depth: u32,
    printed: Vec<Printed>,
    trace: Vec<u32>,
    callees: &'p [CalleeStub],
    unseen_call: Option<UnseenCall>,
    /// Parts of the run eqlens did not analyse itself (see
    /// [`Execution::unanalysed`]).
    unanalysed: Vec<Unanalysed>,
}

/// Total elements the interpreter allocates over one run, as a multiple of
/// the single-array limit.
const HEAP_FACTOR: usize = 4;

pub(crate) fn run(
    program: &Program,
    func: FuncId,
    inputs: &Inputs,
    semantics: Semantics,
    signed_overflow: SignedOverflow,
    limits: &Limits,
) -> Execution {
    let mut it = Interp {
        program,
        limits,
        ar: Arith::new(semantics, program.lang, signed_overflow),
        heap: Vec::new(),
        heap_cells: 0,
        globals: Vec::new(),
        steps: 0,
        depth: 0,
        printed: Vec::new(),
        trace: Vec::new(),
        callees: &inputs.callees,
        unseen_call: None,
        unanalysed: Vec::new(),
    };
    // Under machine semantics inputs are converted to IEEE values, so an
    // approximate input real is no longer an approximation of anything.
    let input_approx = semantics == Semantics::Math
        && inputs
            .args
            .iter()
            .chain(inputs.globals.values())
            .any(has_approx);

    // Globals: constants evaluate their initialiser (in declaration order,
    // so a constant may use earlier ones); the rest are inputs.
    let empty = Frame { locals: Vec::new() };
    for g in &program.globals {
        let v = match (&g.constant, inputs.globals.get(&g.name)) {
            (Some(e), _) => match it.eval(&empty, e) {
                Ok(v) => v,
                Err(_) => {
                    it.unanalysed
                        .push(Unanalysed::Code(format!("the initial value of {}", g.name)));
                    it.ar.zero(&g.ty)
                }
            },
            (None, Some(v)) => it.import(v, &g.ty),
            (None, None) => it.ar.zero(&g.ty),
        };
        it.globals.push(v);
    }

    // Arguments, converted to the parameter types. The original references
    // are kept: `args_final` reports what the caller's arrays hold at the end.
    let param_tys: Vec<Type> = match program.functions.get(func.0 as usize).map(|d| &d.body) {
        Some(Ok(f)) => f
            .params
            .iter()
            .map(|p| {
                f.locals
                    .get(p.0 as usize)
                    .map_or(Type::Void, |l| l.ty.clone())
            })
            .collect(),
        _ => Vec::new(),
    };
    let args: Vec<V> = inputs
        .args
        .iter()
        .enumerate()
        .map(|(i, v)| match param_tys.get(i) {
            Some(t) => it.import(v, t),
            None => it.import_raw(v),
        })
        .collect();

    let result = it.call(func, args.clone(), Span::default());
    // A value picked from an undecided approximation may have steered
    // whatever came after it.
    let result = match result {
        Ok(_) | Err(Stop::Fault(..)) if it.ar.undecided => {
            Err(Stop::Limit(LimitKind::Approximation))
        }
        r => r,
    };
    let outcome = match result {
        Ok(v) => Outcome::Return(it.export(&v)),
        Err(Stop::Fault(kind, span)) => Outcome::Fault {
            kind,
            span,
            lang: program.lang,
        },
        Err(Stop::Limit(l)) => {
            if let LimitKind::Unanalysed(what) = &l {
                it.unanalysed.push(Unanalysed::Code(what.clone()));
            }
            Outcome::Limit(l)
        }
    };
    let args_final = args.iter().map(|v| it.export(v)).collect();
    let globals_final: BTreeMap<String, Value> = program
        .globals
        .iter()
        .zip(&it.globals)
        .map(|(g, v)| (g.name.clone(), it.export(v)))
        .collect();
    let output_text = render::render_output(&it.printed);
    let arg_names = param_names(program, func);
    Execution {
        outcome,
        args_final,
        globals_final,
        globals_entry: inputs.globals.clone(),
        output_text,
        printed: it.printed,
        trace: it.trace,
        inexact: it.ar.inexact || input_approx,
        arg_names,
        unseen_call: it.unseen_call,
        unanalysed: it.unanalysed,
    }
}

fn param_names(program: &Program, func: FuncId) -> Vec<String> {
    match program.functions.get(func.0 as usize).map(|d| &d.body) {
        Some(Ok(f)) => f
            .params
            .iter()
            .map(|p| {
                f.locals
                    .get(p.0 as usize)
                    .map_or(String::new(), |l| l.name.clone())
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn has_approx(v: &Value) -> bool {
    match v {
        Value::Real(r) => !r.is_exact(),
        Value::Array(items) => items.iter().any(has_approx),
        _ => false,
    }
}

impl Interp<'_> {
    // ----- boundary -------------------------------------------------------

    /// An input value, brought to its declared type (ints wrapped under
    /// machine semantics, floats to the semantics' representation); arrays
    /// are copied into the heap.
    fn import(&mut self, v: &Value, ty: &Type) -> V {
        match (v, ty) {
            (Value::Array(items), Type::Array(elem)) => {
                let vals = items.iter().map(|x| self.import(x, elem)).collect();
                self.alloc_unchecked(vals)
            }
            (Value::Text(units), Type::Array(_)) => {
                let vals = units.iter().map(|u| V::Int(BigInt::from(*u))).collect();
                self.alloc_unchecked(vals)
            }
            (Value::Null, Type::Array(_)) => V::Null,
            (Value::Array(_) | Value::Null | Value::Text(_), _) => self.ar.zero(ty),
            (v, ty) => {
                let raw = self.import_raw(v);
                self.ar.coerce(raw, ty)
            }
        }
    }

    fn import_raw(&mut self, v: &Value) -> V {
        match v {
            Value::Void => V::Void,
            Value::Bool(b) => V::Bool(*b),
            Value::Int(i) => V::Int(i.clone()),
            Value::Real(r) => V::Real(r.clone()),
            Value::F32(x) => V::F32(*x),
            Value::F64(x) => V::F64(*x),
            Value::Null => V::Null,
            Value::Array(items) => {
                let vals = items.iter().map(|x| self.import_raw(x)).collect();
                self.alloc_unchecked(vals)
            }
            Value::Text(units) => {
                let vals = units.iter().map(|u| V::Int(BigInt::from(*u))).collect();
                self.alloc_unchecked(vals)
            }
        }
    }

    fn export(&self, v: &V) -> Value {
        match v {
            V::Void | V::Str(_) => Value::Void,
            V::Bool(b) => Value::Bool(*b),
            V::Int(i) => Value::Int(i.clone()),
            V::Real(r) => Value::Real(r.clone()),
            V::F32(x) => Value::F32(*x),
            V::F64(x) => Value::F64(*x),
            V::Null => Value::Null,
            V::Arr(r) => Value::Array(
                self.heap
                    .get(*r)
                    .map_or_else(Vec::new, |a| a.iter().map(|x| self.export(x)).collect()),
            ),
        }
    }

    fn alloc_unchecked(&mut self, vals: Vec<V>) -> V {
        self.heap_cells = self.heap_cells.saturating_add(vals.len());
        self.heap.push(vals);
        V::Arr(self.heap.len() - 1)
    }

    fn alloc(&mut self, vals: Vec<V>) -> Result<V, Stop> {
        if vals.len() > self.limits.max_array_len
            || self.heap_cells.saturating_add(vals.len())
                > self.limits.max_array_len.saturating_mul(HEAP_FACTOR)
        {
            return Err(Stop::Limit(LimitKind::ArrayTooLarge));
        }
        Ok(self.alloc_unchecked(vals))
    }

    // ----- calls and statements --------------------------------------------

    fn call(&mut self, func: FuncId, args: Vec<V>, span: Span) -> Result<V, Stop> {
        let program = self.program;
        let Some(def) = program.functions.get(func.0 as usize) else {
            return Err(internal("call to a function that does not exist", span));
        };
        let f: &Function = match &def.body {
            Ok(f) => f,
            // Not undefined behaviour of the program: a part eqlens could
            // not read. Nothing may be concluded from this run.
            Err(e) => {
                return Err(Stop::Limit(LimitKind::Unanalysed(format!(
                    "a call to {}, which could not be analysed ({e})",
                    def.qualified_name()
                ))));
            }
        };
        if self.depth >= self.limits.max_call_depth {
            return Err(Stop::Limit(LimitKind::CallDepth));
        }
        let mut frame = Frame {
            locals: f.locals.iter().map(|l| self.ar.zero(&l.ty)).collect(),
        };
        for (p, v) in f.params.iter().zip(args) {
            if let Some(slot) = frame.locals.get_mut(p.0 as usize) {
                *slot = v;
            }
        }
        self.depth += 1;
        let flow = self.exec_block(&mut frame, &f.body);
        self.depth -= 1;
        Ok(match flow? {
            Flow::Return(v) => v,
            // Falling off the end (void functions; C non-void is UB only if
            // the value is used, so give the type's zero).
            _ => self.ar.zero(&f.ret),
        })
    }

    fn tick(&mut self, span: Span) -> Result<(), Stop> {
        self.steps += 1;
        if self.steps > self.limits.max_steps {
            return Err(Stop::Limit(LimitKind::Steps));
        }
        if self.steps.is_multiple_of(1024)
            && self.limits.deadline.is_some_and(crate::cancel::expired)
        {
            return Err(Stop::Limit(LimitKind::Steps));
        }
        let line = span.line();
        if self.trace.last() != Some(&line) {
            self.trace.push(line);
        }
        Ok(())
    }

    fn exec_block(&mut self, fr: &mut Frame, block: &Block) -> Result<Flow, Stop> {
        for s in block {
            match self.exec(fr, s)? {
                Flow::Normal => {}
                other => return Ok(other),
            }
        }
        Ok(Flow::Normal)
    }

    /// Runs one statement. Long: one arm per `StmtKind`, the interpreter's
    /// definition of each statement's meaning in one place.
    fn exec(&mut self, fr: &mut Frame, s: &Stmt) -> Result<Flow, Stop> {
        // Plain blocks are structure, not statements: they are not traced.
        if !matches!(s.kind, StmtKind::Block(_)) {
            self.tick(s.span)?;
        }
        match &s.kind {
            StmtKind::Assign { place, value } => {
                let loc = self.place(fr, place)?;
                let v = self.eval(fr, value)?;
                self.store(fr, loc, v, s.span)?;
            }
            StmtKind::Call { dest, func, args } => {
                let loc = match dest {
                    Some(p) => Some(self.place(fr, p)?),
                    None => None,
                };
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(self.eval(fr, a)?);
                }
                let r = self.call(*func, vals, s.span)?;
                if let Some(loc) = loc {
                    self.store(fr, loc, r, s.span)?;
                }
            }
            StmtKind::Print { kind, args } => self.print(fr, kind, args)?,
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let b = self.eval_bool(fr, cond)?;
                return self.exec_block(fr, if b { then_branch } else { else_branch });
            }
            StmtKind::Loop {
                label,
                kind,
                cond,
                body,
                step,
            } => {
                let mut first = true;
                loop {
                    // Every iteration is a step, so an empty infinite loop
                    // still reaches the step limit.
                    if !first {
                        self.tick(s.span)?;
                    }
                    let skip_test = first && *kind == LoopKind::DoWhile;
                    if !skip_test && !self.eval_bool(fr, cond)? {
                        break;
                    }
                    first = false;
                    match self.exec_block(fr, body)? {
                        Flow::Normal => {}
                        Flow::Continue(l) if l == *label => {}
                        Flow::Break(l) if l == *label => break,
                        other => return Ok(other),
                    }
                    match self.exec_block(fr, step)? {
                        Flow::Normal => {}
                        other => return Ok(other),
                    }
                }
            }
            StmtKind::Labeled { label, body } => {
                return Ok(match self.exec_block(fr, body)? {
                    Flow::Break(l) if l == *label => Flow::Normal,
                    other => other,
                });
            }
            StmtKind::Break(l) => return Ok(Flow::Break(*l)),
            StmtKind::Continue(l) => return Ok(Flow::Continue(*l)),
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(fr, e)?,
                    None => V::Void,
                };
                return Ok(Flow::Return(v));
            }
            StmtKind::Block(b) => return self.exec_block(fr, b),
            StmtKind::Throw(t) => return Err(Stop::Fault(FaultKind::Thrown(t.clone()), s.span)),
            StmtKind::External {
                dest,
                callee,
                args,
                ret,
            } => {
                let loc = match dest {
                    Some(p) => Some(self.place(fr, p)?),
                    None => None,
                };
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(match self.eval(fr, a)? {
                        V::Str(t) => CalleeArg::Text(t),
                        v => CalleeArg::Value(self.export(&v), a.ty.clone()),
                    });
                }
                let call = UnseenCall {
                    callee: callee.clone(),
                    args: vals,
                    ret: ret.clone(),
                };
                let stub = self.callees.iter().find(|c| c.call == call);
                if let Some(stub) = stub {
                    self.unanalysed.push(Unanalysed::Stub(stub.clone()));
                }
                match stub.map(|c| &c.result) {
                    Some(CalleeResult::Returns(v)) => {
                        if let Some(loc) = loc {
                            let v = self.import(v, ret);
                            self.store(fr, loc, v, s.span)?;
                        }
                    }
                    Some(CalleeResult::Throws(which)) => {
                        return Err(Stop::Fault(
                            FaultKind::Unseen {
                                callee: callee.clone(),
                                which: *which,
                            },
                            s.span,
                        ));
                    }
                    // What an unseen callee does is not known concretely:
                    // no conclusion from this run.
                    None => {
                        self.unseen_call = Some(call);
                        return Err(Stop::Limit(LimitKind::UnseenCall));
                    }
                }
            }
            StmtKind::Try {
                body,
                catches,
                finally,
            } => {
                let mut result = self.exec_block(fr, body);
                if let Err(Stop::Fault(kind, _)) = &result
                    && let Some(class) = kind.java_class()
                {
                    match crate::lang::java::facts::first_catching(
                        catches,
                        &class,
                        &self.program.class_parents,
                    ) {
                        Ok(Some(i)) => {
                            if let Some(clause) = catches.get(i) {
                                result = self.exec_block(fr, &clause.body);
                            }
                        }
                        Ok(None) => {}
                        // The checkers refuse this too.
                        Err(_) => return Err(Stop::Limit(LimitKind::UnknownCatch)),
                    }
                } else if let Err(Stop::Fault(FaultKind::Unseen { .. }, _)) = &result
                    && let Some(first) = catches.first()
                {
                    // What an unseen callee throws: only `Throwable` surely
                    // takes it (the checkers refuse any other clause too).
                    if !first.classes.iter().any(|k| k == "Throwable") {
                        return Err(Stop::Limit(LimitKind::UnknownCatch));
                    }
                    result = self.exec_block(fr, &first.body);
                }
                if finally.is_empty() || matches!(result, Err(Stop::Limit(_))) {
                    return result;
                }
                // `finally` runs on every way out; leaving it abruptly
                // overrides how the body or clause left.
                return match self.exec_block(fr, finally)? {
                    Flow::Normal => result,
                    other => Ok(other),
                };
            }
        }
        Ok(Flow::Normal)
    }

    /// Records a read of an uncomputed global (see [`crate::ir::Global::uncomputed`]):
    /// the run goes on with the value it was given, but is not evidence of
    /// what the program does.
    fn note_uncomputed(&mut self, name: &str) {
        let what = format!(
            "the value of {name}, set before the method runs by code eqlens does not evaluate"
        );
        if !self
            .unanalysed
            .iter()
            .any(|u| matches!(u, Unanalysed::Code(w) if *w == what))
        {
            self.unanalysed.push(Unanalysed::Code(what));
        }
    }

    fn place(&mut self, fr: &Frame, p: &Place) -> Result<Loc, Stop> {
        Ok(match p {
            Place::Local(id) => Loc::Local(id.0 as usize),
            Place::Global(id) => Loc::Global(id.0 as usize),
            Place::Index { array, index } => {
                let a = self.eval(fr, array)?;
                let i = self.eval(fr, index)?;
                let array = match a {
                    V::Arr(r) => Some(r),
                    V::Null => None,
                    _ => return Err(internal("indexing a non-array", array.span)),
                };
                let V::Int(index) = i else {
                    return Err(internal("non-integer index", index.span));
                };
                Loc::Elem { array, index }
            }
        })
    }

    fn store(&mut self, fr: &mut Frame, loc: Loc, v: V, span: Span) -> Result<(), Stop> {
        let slot = match loc {
            Loc::Local(i) => fr.locals.get_mut(i),
            Loc::Global(i) => self.globals.get_mut(i),
            Loc::Elem { array, index } => {
                // Java checks for `null` after evaluating the value (JLS
                // 15.26.1), as for the bounds.
                let Some(array) = array else {
                    return Err(Stop::Fault(FaultKind::NullPointer, span));
                };
                let array = Some(array);
                let len = array.and_then(|r| self.heap.get(r)).map_or(0, Vec::len);
                let i = checked_index(&index, len).ok_or(Stop::Fault(
                    FaultKind::IndexOutOfBounds {
                        index: Value::Int(index.clone()),
                        length: len,
                    },
                    span,
                ))?;
                array
                    .and_then(|r| self.heap.get_mut(r))
                    .and_then(|a| a.get_mut(i))
            }
        };
        match slot {
            Some(slot) => {
                *slot = v;
                Ok(())
            }
            None => Err(internal("assignment to an unknown variable", span)),
        }
    }

    fn print(&mut self, fr: &Frame, kind: &PrintKind, args: &[Expr]) -> Result<(), Stop> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push((self.eval(fr, a)?, &a.ty));
        }
        match kind {
            PrintKind::Java { newline } => {
                for (v, ty) in vals {
                    let item = match v {
                        V::Str(s) => Printed::Text(s),
                        v => Printed::Value(self.export(&v), ty.clone()),
                    };
                    self.printed.push(item);
                }
                if *newline {
                    self.printed.push(Printed::Newline);
                }
            }
            PrintKind::Printf { format } => {
                let pargs: Vec<PArg> = vals.into_iter().map(|(v, ty)| self.parg(v, ty)).collect();
                let text = render::printf(format, &pargs, self.ar.math);
                let approx = pargs
                    .iter()
                    .any(|a| matches!(a, PArg::Val(Value::Real(Real::Approx(..)), _)));
                self.printed.push(if approx {
                    Printed::ApproxText(text)
                } else {
                    Printed::Text(text)
                });
            }
            PrintKind::C { newline } => {
                for (v, ty) in vals {
                    let item = match self.parg(v, ty) {
                        PArg::Str(s) => Printed::Text(s),
                        // putchar: the value converted to unsigned char.
                        PArg::Val(Value::Int(i), _) => {
                            Printed::Text(render::c_char(&i).to_string())
                        }
                        PArg::Val(v @ Value::Real(Real::Approx(..)), ty) => {
                            Printed::ApproxText(render::java_value(&v, &ty))
                        }
                        PArg::Val(v, ty) => Printed::Text(render::java_value(&v, &ty)),
                    };
                    self.printed.push(item);
                }
                if *newline {
                    self.printed.push(Printed::Newline);
                }
            }
        }
        Ok(())
    }

    /// A printf/puts argument: strings (literals, or C char arrays up to the
    /// terminating NUL) as text, everything else as a value.
    fn parg(&self, v: V, ty: &Type) -> PArg {
        match (v, ty) {
            (V::Str(s), _) => PArg::Str(s),
            (v @ (V::Arr(_) | V::Null), Type::Array(elem)) if matches!(**elem, Type::Int(t) if t.bits == 8) =>
            {
                let Value::Array(items) = self.export(&v) else {
                    return PArg::Str(String::new());
                };
                let s = items
                    .iter()
                    .map_while(|x| match x {
                        Value::Int(i) if !i.is_zero() => Some(render::c_char(i)),
                        _ => None,
                    })
                    .collect();
                PArg::Str(s)
            }
            (v, ty) => PArg::Val(self.export(&v), ty.clone()),
        }
    }

    // ----- expressions -----------------------------------------------------

    fn eval_bool(&mut self, fr: &Frame, e: &Expr) -> Result<bool, Stop> {
        match self.eval(fr, e)? {
            V::Bool(b) => Ok(b),
            _ => Err(internal("condition is not a boolean", e.span)),
        }
    }

    /// The heap object `e` refers to; `None` for `null` (an array input
    /// passed as `null`), whose use faults once the rest of the operation's
    /// operands are evaluated.
    fn array_ref(&mut self, fr: &Frame, e: &Expr) -> Result<Option<usize>, Stop> {
        match self.eval(fr, e)? {
            V::Arr(r) => Ok(Some(r)),
            V::Null => Ok(None),
            _ => Err(internal("not an array", e.span)),
        }
    }

    fn eval(&mut self, fr: &Frame, e: &Expr) -> Result<V, Stop> {
        let span = e.span;
        Ok(match &e.kind {
            ExprKind::IntLit(i) => self.ar.int_lit(*i, &e.ty),
            ExprKind::FloatLit(l) => self.ar.float_lit(l.value, &l.text, &e.ty),
            ExprKind::BoolLit(b) => V::Bool(*b),
            ExprKind::StrLit(s) => V::Str(s.clone()),
            ExprKind::Local(id) => match fr.locals.get(id.0 as usize) {
                Some(v) => v.clone(),
                None => return Err(internal("unknown local", span)),
            },
            ExprKind::Global(id) => {
                if let Some(g) = self.program.globals.get(id.0 as usize)
                    && g.uncomputed
                {
                    self.note_uncomputed(&g.name);
                }
                match self.globals.get(id.0 as usize) {
                    Some(v) => v.clone(),
                    None => return Err(internal("unknown global", span)),
                }
            }
            ExprKind::Unary(op, a) => {
                let a = self.eval(fr, a)?;
                self.ar.unary(*op, a, &e.ty, span)?
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let x = self.eval_bool(fr, a)?;
                // Lazy: the right operand (and any fault in it) is only
                // evaluated when it decides the result.
                if x == (*op == BinOp::Or) {
                    V::Bool(x)
                } else {
                    V::Bool(self.eval_bool(fr, b)?)
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(fr, a)?;
                let y = self.eval(fr, b)?;
                self.ar.binary(*op, x, y, &e.ty, &a.ty, span)?
            }
            ExprKind::Cond(c, a, b) => {
                if self.eval_bool(fr, c)? {
                    self.eval(fr, a)?
                } else {
                    self.eval(fr, b)?
                }
            }
            ExprKind::Cast(a) => {
                let v = self.eval(fr, a)?;
                self.ar.cast(v, &e.ty, span)?
            }
            ExprKind::Index(a, i) => {
                let r = self.array_ref(fr, a)?;
                let V::Int(idx) = self.eval(fr, i)? else {
                    return Err(internal("non-integer index", i.span));
                };
                if r.is_none() {
                    return Err(Stop::Fault(FaultKind::NullPointer, span));
                }
                let arr = r.and_then(|r| self.heap.get(r));
                let len = arr.map_or(0, Vec::len);
                match checked_index(&idx, len).and_then(|k| arr.and_then(|a| a.get(k))) {
                    Some(v) => v.clone(),
                    None => {
                        return Err(Stop::Fault(
                            FaultKind::IndexOutOfBounds {
                                index: Value::Int(idx),
                                length: len,
                            },
                            span,
                        ));
                    }
                }
            }
            ExprKind::Length(a) => {
                let Some(r) = self.array_ref(fr, a)? else {
                    return Err(Stop::Fault(FaultKind::NullPointer, span));
                };
                V::Int(BigInt::from(self.heap.get(r).map_or(0, Vec::len)))
            }
            ExprKind::IsNull(a) => V::Bool(self.array_ref(fr, a)?.is_none()),
            ExprKind::NewArray(n) => {
                let V::Int(n) = self.eval(fr, n)? else {
                    return Err(internal("non-integer array length", n.span));
                };
                if n < BigInt::zero() {
                    return Err(Stop::Fault(
                        if self.ar.java {
                            FaultKind::NegativeArraySize
                        } else {
                            FaultKind::Undefined("negative array size".into())
                        },
                        span,
                    ));
                }
                let len = match n.to_usize() {
                    Some(len) if len <= self.limits.max_array_len => len,
                    _ => return Err(Stop::Limit(LimitKind::ArrayTooLarge)),
                };
                let elem = e.ty.elem().cloned().unwrap_or(Type::Void);
                let zero = self.ar.zero(&elem);
                self.alloc(vec![zero; len])?
            }
            ExprKind::ArrayLit(items) => {
                let mut vals = Vec::with_capacity(items.len());
                for x in items {
                    vals.push(self.eval(fr, x)?);
                }
                self.alloc(vals)?
            }
            ExprKind::Intrinsic(k, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for x in args {
                    vals.push(self.eval(fr, x)?);
                }
                self.ar.intrinsic(*k, vals, &e.ty, span)?
            }
        })
    }
}

/// `i` as an index into an array of length `len`, if in bounds.
fn checked_index(i: &BigInt, len: usize) -> Option<usize> {
    i.to_usize().filter(|&k| k < len)
}
