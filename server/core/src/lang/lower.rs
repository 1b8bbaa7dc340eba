//! What both front ends share when building IR: the function under
//! construction ([`FnBuilder`]: its locals, the scopes naming them, fresh
//! temporaries and labels), the lowering steps that depend on nothing but
//! the IR (spilling operands, lazy `&&` / `||`), the meaning of operator
//! tokens and the shape of a loop whose condition needs lifted statements.
//! Each front end embeds one [`FnBuilder`] in its per-function context and
//! keeps only what its syntax needs.
//!
//! Where the languages differ, the difference is data: the [`Style`] a
//! builder is made with (the prefix of temporaries, which operands are
//! spilled before a later operand's statements) and the [`ScopeEntry`]
//! type a name in scope denotes (a local in Java, whose objects the front
//! end scopes itself; a local, struct or moving pointer in C).

use crate::ir::{
    BinOp, Block, Expr, ExprKind, LabelId, Lang, Local, LocalId, LocalKind, LoopKind, Place, Span,
    Stmt, StmtKind, Type, UnOp,
};
use rustc_hash::FxHashMap;

/// What a front end's lowering does differently, as data.
pub(super) struct Style {
    /// Temporaries are named this followed by their local index (`$t3`,
    /// `tmp3`). They are never named in a scope, so a source variable of
    /// the same name does not clash with one; the name is for people.
    pub temp_prefix: &'static str,
    /// Which earlier operands [`FnBuilder::keep_before`] spills.
    pub keep: Keep,
}

/// Which values of earlier operands are spilled to temporaries before the
/// statements a later operand lifts (they must be read before them).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Keep {
    /// Every one but literals and temporaries ([`FnBuilder::stable`]).
    Unstable,
    /// Only those whose value or faults the statements could change
    /// ([`FnBuilder::deferrable`]): a fault still happens where the
    /// operand is evaluated, in the source's order.
    Affected,
}

/// What a name in scope denotes: at least a plain local.
pub(super) trait ScopeEntry {
    /// The entry for a declared local.
    fn local(id: LocalId) -> Self;
    /// The local it is, if it is a plain one.
    fn as_local(&self) -> Option<LocalId>;
}

impl ScopeEntry for LocalId {
    fn local(id: LocalId) -> Self {
        id
    }
    fn as_local(&self) -> Option<LocalId> {
        Some(*self)
    }
}

/// The function being lowered: locals in declaration order (their index is
/// their [`LocalId`]), nested scopes from names to `E`, and the label
/// counter. Within a scope a later declaration of a name replaces the
/// earlier one; lookups search the innermost scope first.
pub(super) struct FnBuilder<E> {
    pub locals: Vec<Local>,
    scopes: Vec<FxHashMap<String, E>>,
    next_label: u32,
    style: &'static Style,
}

/// Locals and labels made so far, to undo a trial lowering
/// ([`FnBuilder::rewind`]).
#[derive(Clone, Copy)]
pub(super) struct Checkpoint {
    locals: usize,
    next_label: u32,
}

impl<E: ScopeEntry> FnBuilder<E> {
    /// An empty function with one (outermost) scope.
    pub fn new(style: &'static Style) -> Self {
        FnBuilder {
            locals: Vec::new(),
            scopes: vec![FxHashMap::default()],
            next_label: 0,
            style,
        }
    }

    /// A new local, named in the innermost scope unless it is a temporary.
    pub fn declare(&mut self, name: &str, ty: Type, kind: LocalKind, span: Span) -> LocalId {
        let bind = kind != LocalKind::Temp;
        let id = self.add_local(name.to_string(), ty, kind, span);
        if bind {
            self.bind(name, E::local(id));
        }
        id
    }

    /// Marks `id` as a Java `String` (see [`Local::text`]).
    pub fn mark_text(&mut self, id: LocalId) {
        if let Some(l) = self.locals.get_mut(id.0 as usize) {
            l.text = true;
        }
    }

    /// Whether `id` is a Java `String` (see [`Local::text`]).
    pub fn is_text(&self, id: LocalId) -> bool {
        self.locals.get(id.0 as usize).is_some_and(|l| l.text)
    }

    /// A new local that no name in scope denotes (a temporary, a part of
    /// an aggregate, a local the lowering itself needs).
    pub fn add_local(&mut self, name: String, ty: Type, kind: LocalKind, span: Span) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(Local {
            name,
            ty,
            kind,
            span,
            text: false,
        });
        id
    }

    /// A fresh temporary.
    pub fn temp(&mut self, ty: Type, span: Span) -> LocalId {
        let name = format!("{}{}", self.style.temp_prefix, self.locals.len());
        self.add_local(name, ty, LocalKind::Temp, span)
    }

    /// Names `entry` `name` in the innermost scope.
    pub fn bind(&mut self, name: &str, entry: E) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), entry);
        }
    }

    /// What `name` denotes, innermost scope first.
    pub fn binding(&self, name: &str) -> Option<&E> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    /// The plain local `name` denotes (`None` when its innermost binding
    /// is something else).
    pub fn lookup(&self, name: &str) -> Option<LocalId> {
        self.binding(name)?.as_local()
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(FxHashMap::default());
    }

    pub fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    /// A fresh label.
    pub fn label(&mut self) -> LabelId {
        let l = LabelId(self.next_label);
        self.next_label += 1;
        l
    }

    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            locals: self.locals.len(),
            next_label: self.next_label,
        }
    }

    /// Forgets the locals and labels made since `c`.
    pub fn rewind(&mut self, c: Checkpoint) {
        self.locals.truncate(c.locals);
        self.next_label = c.next_label;
    }

    /// The type of local `id` (`Void` for an unknown id).
    pub fn local_ty(&self, id: LocalId) -> Type {
        self.locals
            .get(id.0 as usize)
            .map(|l| l.ty.clone())
            .unwrap_or(Type::Void)
    }

    pub fn is_temp(&self, id: LocalId) -> bool {
        self.locals
            .get(id.0 as usize)
            .is_some_and(|l| l.kind == LocalKind::Temp)
    }

    /// A read of local `id`.
    pub fn local_expr(&self, id: LocalId, span: Span) -> Expr {
        Expr {
            kind: ExprKind::Local(id),
            ty: self.local_ty(id),
            span,
        }
    }

    /// Stores `e` in a fresh temporary; returns the read of it.
    pub fn temp_of(&mut self, e: Expr, out: &mut Block) -> Expr {
        let span = e.span;
        let t = self.temp(e.ty.clone(), span);
        out.push(Stmt {
            kind: StmtKind::Assign {
                place: Place::Local(t),
                value: e,
            },
            span,
        });
        self.local_expr(t, span)
    }

    /// True when re-evaluating `e` later gives the same value whatever
    /// statements run in between: literals and front-end temporaries
    /// (each is assigned once per evaluation of its expression).
    pub fn stable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::IntLit(_)
            | ExprKind::FloatLit(_)
            | ExprKind::BoolLit(_)
            | ExprKind::StrLit(_) => true,
            ExprKind::Local(id) => self.is_temp(*id),
            _ => false,
        }
    }

    /// Evaluates `e` now into a temporary (unless it is stable) so that
    /// later side effects cannot change it and its faults happen now.
    pub fn spill(&mut self, e: Expr, out: &mut Block) -> Expr {
        if self.stable(&e) {
            e
        } else {
            self.temp_of(e, out)
        }
    }

    /// True when evaluating `e` after the statements `b` gives the value and
    /// the faults it would give before them: `e` cannot fault and reads no
    /// variable that `b` may write (calls may write globals, never the
    /// caller's locals). Array reads are never deferred.
    pub fn deferrable(&self, e: &Expr, b: &Block) -> bool {
        match &e.kind {
            ExprKind::IntLit(_)
            | ExprKind::FloatLit(_)
            | ExprKind::BoolLit(_)
            | ExprKind::StrLit(_) => true,
            ExprKind::Local(id) => {
                self.is_temp(*id) || !writes(b, &|p| matches!(p, Place::Local(x) if x == id), false)
            }
            ExprKind::Global(g) => !writes(b, &|p| matches!(p, Place::Global(x) if x == g), true),
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => self.deferrable(a, b),
            ExprKind::Binary(op, x, y) => {
                !matches!(op, BinOp::Div | BinOp::Rem)
                    && self.deferrable(x, b)
                    && self.deferrable(y, b)
            }
            ExprKind::Cond(c, x, y) => {
                self.deferrable(c, b) && self.deferrable(x, b) && self.deferrable(y, b)
            }
            ExprKind::Intrinsic(_, xs) => xs.iter().all(|x| self.deferrable(x, b)),
            _ => false,
        }
    }

    /// Keeps `e` for use after the statements `b` (about to be appended to
    /// `out`), spilling it to a temporary first unless that is unnecessary.
    pub fn keep_past(&mut self, e: Expr, b: &Block, out: &mut Block) -> Expr {
        if self.deferrable(&e, b) {
            e
        } else {
            self.spill(e, out)
        }
    }

    /// Appends the statements `b` a later operand lifted, first spilling
    /// the values of the earlier operands (those [`Style::keep`] says) so
    /// they are read before them.
    pub fn keep_before(&mut self, vals: &mut Vec<Expr>, b: Block, out: &mut Block) {
        if b.is_empty() {
            return;
        }
        for v in std::mem::take(vals) {
            let v = match self.style.keep {
                Keep::Unstable => self.spill(v, out),
                Keep::Affected => self.keep_past(v, &b, out),
            };
            vals.push(v);
        }
        out.extend(b);
    }

    /// `a && b` or `a || b` (`op`), lazy; lowering `b` lifted the
    /// statements `rb`. If there are any, they may only run when `a` does
    /// not decide the result, so the whole expression becomes a temporary
    /// set by an `If`.
    pub fn logical(
        &mut self,
        op: BinOp,
        a: Expr,
        b: Expr,
        mut rb: Block,
        span: Span,
        out: &mut Block,
    ) -> Expr {
        if rb.is_empty() {
            return Expr {
                kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
                ty: Type::Bool,
                span,
            };
        }
        let t = self.temp(Type::Bool, span);
        let tv = self.local_expr(t, span);
        let assign = |value| Stmt {
            kind: StmtKind::Assign {
                place: Place::Local(t),
                value,
            },
            span,
        };
        out.push(assign(a));
        rb.push(assign(b));
        let cond = if op == BinOp::And {
            tv.clone()
        } else {
            not(tv.clone())
        };
        out.push(Stmt {
            kind: StmtKind::If {
                cond,
                then_branch: rb,
                else_branch: Vec::new(),
            },
            span,
        });
        tv
    }
}

impl<E: ScopeEntry> super::bits::Temps for FnBuilder<E> {
    fn temp(&mut self, ty: Type, span: Span) -> LocalId {
        FnBuilder::temp(self, ty, span)
    }
}

/// The IR's own constructors, for the front ends.
pub(super) use crate::ir::make::{bool_lit, not};

/// Whether the statements `b` may write a place matching `pred` (any
/// global when `calls_write` and `b` contains a call).
fn writes(b: &Block, pred: &dyn Fn(&Place) -> bool, calls_write: bool) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Assign { place, .. } => pred(place),
        StmtKind::Call { dest, .. } => calls_write || dest.as_ref().is_some_and(pred),
        // Pure by assumption: writes only its destination.
        StmtKind::External { dest, .. } => dest.as_ref().is_some_and(pred),
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => writes(then_branch, pred, calls_write) || writes(else_branch, pred, calls_write),
        StmtKind::Loop { body, step, .. } => {
            writes(body, pred, calls_write) || writes(step, pred, calls_write)
        }
        StmtKind::Labeled { body, .. } | StmtKind::Block(body) => writes(body, pred, calls_write),
        StmtKind::Try { .. } => s
            .child_blocks()
            .into_iter()
            .any(|b| writes(b, pred, calls_write)),
        StmtKind::Print { .. }
        | StmtKind::Break(_)
        | StmtKind::Continue(_)
        | StmtKind::Return(_)
        | StmtKind::Throw(_) => false,
    })
}

/// The binary operator a token denotes (`>>>` exists only in Java).
pub(super) fn binop_token(text: &str, lang: Lang) -> Option<BinOp> {
    Some(match text {
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        "%" => BinOp::Rem,
        "&" => BinOp::BitAnd,
        "|" => BinOp::BitOr,
        "^" => BinOp::BitXor,
        "<<" => BinOp::Shl,
        ">>" => BinOp::Shr,
        ">>>" if lang == Lang::Java => BinOp::UShr,
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "&&" => BinOp::And,
        "||" => BinOp::Or,
        _ => return None,
    })
}

/// A pre-tested loop. When the condition needs statements (`pre`), they must
/// run before every test. Where they only assign locals (`while (--i >= 0)`,
/// `while (i-- > 0)`), the loop is rotated: `{ pre; loop(c) { body } step;
/// pre }` — the same statements in the same order, `continue` running
/// `step` and then `pre` before the next test, and the loop's guard is `c`,
/// as the loop checker and the passes expect of a loop. Otherwise it becomes
/// `loop(true) { pre; if (!c) break; body } step` — `continue` still runs
/// `step` first.
pub(super) fn pre_tested_loop(
    label: LabelId,
    pre: Block,
    cond: Expr,
    body: Block,
    step: Block,
    span: Span,
) -> Stmt {
    let stmt = |kind, span| Stmt { kind, span };
    let locals_only = pre.iter().all(|s| {
        matches!(
            &s.kind,
            StmtKind::Assign {
                place: Place::Local(_),
                ..
            }
        )
    });
    if !pre.is_empty() && locals_only {
        let mut step = step;
        step.extend(pre.iter().cloned());
        let mut block = pre;
        block.push(stmt(
            StmtKind::Loop {
                label,
                kind: LoopKind::While,
                cond,
                body,
                step,
            },
            span,
        ));
        return stmt(StmtKind::Block(block), span);
    }
    if pre.is_empty() {
        return stmt(
            StmtKind::Loop {
                label,
                kind: LoopKind::While,
                cond,
                body,
                step,
            },
            span,
        );
    }
    let cspan = cond.span;
    let not_cond = Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(cond)),
        ty: Type::Bool,
        span: cspan,
    };
    let mut b = pre;
    b.push(stmt(
        StmtKind::If {
            cond: not_cond,
            then_branch: vec![stmt(StmtKind::Break(label), cspan)],
            else_branch: Vec::new(),
        },
        cspan,
    ));
    b.extend(body);
    let always = Expr {
        kind: ExprKind::BoolLit(true),
        ty: Type::Bool,
        span: cspan,
    };
    stmt(
        StmtKind::Loop {
            label,
            kind: LoopKind::While,
            cond: always,
            body: b,
            step,
        },
        span,
    )
}
