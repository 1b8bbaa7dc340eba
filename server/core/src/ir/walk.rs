//! Walks over the IR: the direct children of an expression or a statement
//! ([`Expr::children`], [`Stmt::exprs`], [`Stmt::child_blocks`] and their
//! mutable twins), and searches built on them ([`any_stmt`],
//! [`contains_loop`]). Every walk over nested code goes through these, so a
//! new expression or statement kind is one match arm here, not a skipped
//! case somewhere else.

use super::{Block, Expr, ExprKind, LocalId, Place, Stmt, StmtKind};

impl Expr {
    /// Calls `f` on `self` and every subexpression (iteratively: expressions
    /// from generated code can be deep).
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            f(e);
            stack.extend(e.children());
        }
    }

    /// Every local `self` reads, mapped by `f` (for renaming passes).
    pub fn map_locals(&mut self, f: &mut dyn FnMut(LocalId) -> LocalId) {
        if let ExprKind::Local(l) = &mut self.kind {
            *l = f(*l);
        }
        for c in self.children_mut() {
            c.map_locals(f);
        }
    }

    /// [`Expr::children`], mutably (for rewriting passes).
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match &mut self.kind {
            ExprKind::IntLit(_)
            | ExprKind::FloatLit(_)
            | ExprKind::BoolLit(_)
            | ExprKind::StrLit(_)
            | ExprKind::Local(_)
            | ExprKind::Global(_) => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a)
            | ExprKind::Length(a)
            | ExprKind::IsNull(a)
            | ExprKind::NewArray(a) => vec![a],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Cond(c, a, b) => vec![c, a, b],
            ExprKind::ArrayLit(xs) | ExprKind::Intrinsic(_, xs) => xs.iter_mut().collect(),
        }
    }

    /// The direct subexpressions, left to right: one place for the shape of
    /// every expression walk.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::IntLit(_)
            | ExprKind::FloatLit(_)
            | ExprKind::BoolLit(_)
            | ExprKind::StrLit(_)
            | ExprKind::Local(_)
            | ExprKind::Global(_) => Vec::new(),
            ExprKind::Unary(_, a)
            | ExprKind::Cast(a)
            | ExprKind::Length(a)
            | ExprKind::IsNull(a)
            | ExprKind::NewArray(a) => vec![a],
            ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => vec![a, b],
            ExprKind::Cond(c, a, b) => vec![c, a, b],
            ExprKind::ArrayLit(xs) | ExprKind::Intrinsic(_, xs) => xs.iter().collect(),
        }
    }
}

/// Whether some statement of `body`, at any depth, satisfies `pred`
/// (calls not followed).
pub fn any_stmt(body: &[Stmt], pred: &mut dyn FnMut(&Stmt) -> bool) -> bool {
    body.iter()
        .any(|s| pred(s) || s.child_blocks().into_iter().any(|b| any_stmt(b, pred)))
}

impl Stmt {
    /// The local the statement itself (not a nested one) assigns: by
    /// assignment or as a call's result.
    pub fn assigned_local(&self) -> Option<LocalId> {
        let dest = match &self.kind {
            StmtKind::Assign { place, .. } => Some(place),
            StmtKind::Call { dest, .. } | StmtKind::External { dest, .. } => dest.as_ref(),
            _ => None,
        };
        match dest {
            Some(Place::Local(x)) => Some(*x),
            _ => None,
        }
    }

    /// Every local the statement and those nested in it read or assign,
    /// mapped by `f` (for renaming passes).
    pub fn map_locals(&mut self, f: &mut dyn FnMut(LocalId) -> LocalId) {
        if let StmtKind::Assign {
            place: Place::Local(l),
            ..
        }
        | StmtKind::Call {
            dest: Some(Place::Local(l)),
            ..
        }
        | StmtKind::External {
            dest: Some(Place::Local(l)),
            ..
        } = &mut self.kind
        {
            *l = f(*l);
        }
        for e in self.exprs_mut() {
            e.map_locals(f);
        }
        for b in self.child_blocks_mut() {
            for t in b.iter_mut() {
                t.map_locals(f);
            }
        }
    }

    /// Whether the statement itself (not a nested one) assigns local `l`.
    pub fn assigns_local(&self, l: LocalId) -> bool {
        self.assigned_local() == Some(l)
    }

    /// The expressions the statement evaluates itself (not those of nested
    /// statements), operands of array places included.
    pub fn exprs(&self) -> Vec<&Expr> {
        fn place<'a>(p: &'a Place, out: &mut Vec<&'a Expr>) {
            if let Place::Index { array, index } = p {
                out.push(array);
                out.push(index);
            }
        }
        let mut out = Vec::new();
        match &self.kind {
            StmtKind::Assign { place: p, value } => {
                place(p, &mut out);
                out.push(value);
            }
            StmtKind::Call { dest, args, .. } | StmtKind::External { dest, args, .. } => {
                if let Some(p) = dest {
                    place(p, &mut out);
                }
                out.extend(args.iter());
            }
            StmtKind::Print { args, .. } => out.extend(args.iter()),
            StmtKind::If { cond, .. } | StmtKind::Loop { cond, .. } => out.push(cond),
            StmtKind::Return(Some(e)) => out.push(e),
            StmtKind::Return(None)
            | StmtKind::Labeled { .. }
            | StmtKind::Break(_)
            | StmtKind::Continue(_)
            | StmtKind::Block(_)
            | StmtKind::Throw(_)
            | StmtKind::Try { .. } => {}
        }
        out
    }

    /// [`Stmt::exprs`], mutably (for rewriting passes).
    pub fn exprs_mut(&mut self) -> Vec<&mut Expr> {
        fn place<'a>(p: &'a mut Place, out: &mut Vec<&'a mut Expr>) {
            if let Place::Index { array, index } = p {
                out.push(array);
                out.push(index);
            }
        }
        let mut out = Vec::new();
        match &mut self.kind {
            StmtKind::Assign { place: p, value } => {
                place(p, &mut out);
                out.push(value);
            }
            StmtKind::Call { dest, args, .. } | StmtKind::External { dest, args, .. } => {
                if let Some(p) = dest {
                    place(p, &mut out);
                }
                out.extend(args.iter_mut());
            }
            StmtKind::Print { args, .. } => out.extend(args.iter_mut()),
            StmtKind::If { cond, .. } | StmtKind::Loop { cond, .. } => out.push(cond),
            StmtKind::Return(Some(e)) => out.push(e),
            StmtKind::Return(None)
            | StmtKind::Labeled { .. }
            | StmtKind::Break(_)
            | StmtKind::Continue(_)
            | StmtKind::Block(_)
            | StmtKind::Throw(_)
            | StmtKind::Try { .. } => {}
        }
        out
    }

    /// [`Stmt::child_blocks`], mutably (for rewriting passes).
    pub fn child_blocks_mut(&mut self) -> Vec<&mut Block> {
        match &mut self.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => vec![then_branch, else_branch],
            StmtKind::Loop { body, step, .. } => vec![body, step],
            StmtKind::Labeled { body, .. } | StmtKind::Block(body) => vec![body],
            StmtKind::Try {
                body,
                catches,
                finally,
            } => std::iter::once(body)
                .chain(catches.iter_mut().map(|c| &mut c.body))
                .chain(std::iter::once(finally))
                .collect(),
            StmtKind::Assign { .. }
            | StmtKind::Call { .. }
            | StmtKind::External { .. }
            | StmtKind::Print { .. }
            | StmtKind::Break(_)
            | StmtKind::Continue(_)
            | StmtKind::Return(_)
            | StmtKind::Throw(_) => Vec::new(),
        }
    }

    /// The statement lists nested directly in this statement, in source
    /// order. Walkers use this so that a new compound statement cannot be
    /// skipped silently.
    pub fn child_blocks(&self) -> Vec<&Block> {
        match &self.kind {
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => vec![then_branch, else_branch],
            StmtKind::Loop { body, step, .. } => vec![body, step],
            StmtKind::Labeled { body, .. } | StmtKind::Block(body) => vec![body],
            StmtKind::Try {
                body,
                catches,
                finally,
            } => std::iter::once(body)
                .chain(catches.iter().map(|c| &c.body))
                .chain(std::iter::once(finally))
                .collect(),
            StmtKind::Assign { .. }
            | StmtKind::Call { .. }
            | StmtKind::External { .. }
            | StmtKind::Print { .. }
            | StmtKind::Break(_)
            | StmtKind::Continue(_)
            | StmtKind::Return(_)
            | StmtKind::Throw(_) => Vec::new(),
        }
    }
}

/// Whether `body` has a loop statement anywhere (calls not followed).
pub fn contains_loop(body: &[Stmt]) -> bool {
    any_stmt(body, &mut |s| matches!(s.kind, StmtKind::Loop { .. }))
}
