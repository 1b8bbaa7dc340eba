//! The function under construction, shared by both front ends: its locals,
//! the scopes naming them, fresh temporaries and labels, and the lowering
//! steps that depend on nothing but the IR (spilling operands, lazy `&&` /
//! `||`). Each front end embeds one [`FnBuilder`] in its per-function
//! context and keeps only what its syntax needs.
//!
//! Where the languages differ, the difference is data: the [`Style`] a
//! builder is made with (the prefix of temporaries, how operands are kept
//! past lifted statements) and the [`ScopeEntry`] type a name in scope
//! denotes (a local in Java, whose objects are scoped by the front end; a
//! local, struct or moving pointer in C).

use crate::ir::{Expr, ExprKind, LabelId, Local, LocalId, LocalKind, Span, Type};
use rustc_hash::FxHashMap;

/// What a front end's lowering does differently, as data.
pub(super) struct Style {
    /// Temporaries are named this followed by their local index (`$t3`,
    /// `tmp3`): a prefix no source name can take in that language.
    pub temp_prefix: &'static str,
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

    /// A new local that no name in scope denotes (a temporary, a part of
    /// an aggregate, a local the lowering itself needs).
    pub fn add_local(&mut self, name: String, ty: Type, kind: LocalKind, span: Span) -> LocalId {
        let id = LocalId(self.locals.len() as u32);
        self.locals.push(Local {
            name,
            ty,
            kind,
            span,
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
}

impl<E: ScopeEntry> super::bits::Temps for FnBuilder<E> {
    fn temp(&mut self, ty: Type, span: Span) -> LocalId {
        FnBuilder::temp(self, ty, span)
    }
}
