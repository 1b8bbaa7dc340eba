//! Static initialiser blocks (`static { … }`) and the constants they change.
//!
//! A class's field initialisers and static blocks run once, in textual
//! order, before any method of the class runs. A `final` field's value is
//! therefore what its initialiser gives *as changed by the static blocks*:
//! `static final double[] T = new double[2]; static { T[0] = 1.0; }` holds
//! `{1.0, 0.0}` in every method, and a blank `static final int N;` holds
//! what the block assigns.
//!
//! A block is evaluated exactly when each of its statements is an
//! assignment `F = c` (to a blank final field `F` of the block's own class)
//! or `F[k] = c` (to a final array field of that class whose constant has a
//! known length, at a literal index within it), with `c` a constant
//! expression in the sense of [`super::Ctx::compute_constants`]. Any other
//! block leaves no invented value behind: every final field it may change
//! loses its constant and is an input at method entry like any non-constant
//! field — the same input in both versions of a pair, as globals are paired
//! by name. The fields it may change are those it assigns or whose elements
//! it writes by name, and, when it calls a method, creates an object or
//! writes elements through anything but a field's name, every final array
//! field of the file (a callee or an alias could write any of them).
//!
//! Non-final static fields are evaluated the same way (and may be assigned
//! more than once); what they hold at the end is their
//! [`crate::ir::Global::initial`] value, not a constant: methods may write
//! them.

use super::{Ctx, FnCx, R, int_in_range, mk, named_children, unsupported};
use crate::ir::{Expr, ExprKind, Type};
use tree_sitter::Node;

/// Longest array constant a static block's element writes are applied to:
/// the constant then lists every element.
const MAX_ELEMENTS: i128 = 1 << 16;

impl<'t> Ctx<'t> {
    /// Applies the static block `block` (a `static_initializer` node) of
    /// `class` to the constants computed so far (see the module doc).
    pub(super) fn run_static_block(&mut self, class: Option<usize>, block: Node<'t>) {
        let saved: Vec<Option<Expr>> = self.globals.iter().map(|g| g.constant.clone()).collect();
        let stmts: Vec<Node<'t>> = named_children(block)
            .into_iter()
            .filter(|c| c.kind() == "block")
            .flat_map(named_children)
            .filter(|s| s.kind() != "line_comment" && s.kind() != "block_comment")
            .collect();
        let exact = stmts
            .iter()
            .all(|&s| self.static_assignment(class, s).is_ok());
        if exact {
            return;
        }
        for (g, c) in self.globals.iter_mut().zip(saved) {
            g.constant = c;
        }
        let (names, all_arrays) = written_fields(self, block);
        for f in &self.fields {
            let Some(g) = f.global else { continue };
            let is_array = matches!(f.ty, Ok(Type::Array(_)));
            let written = names.iter().any(|n| n == &f.name) || (all_arrays && is_array);
            if (f.is_final || f.is_static)
                && written
                && let Some(g) = self.globals.get_mut(g.0 as usize)
            {
                g.constant = None;
            }
        }
    }

    /// Sets each field global's [`crate::ir::Global::origin`]: the tokens of
    /// its initialiser and of the statements of its class's static blocks
    /// that mention it, in textual order.
    pub(super) fn field_origins(&mut self) {
        let statements: Vec<(Option<usize>, Node<'t>)> = self
            .static_blocks
            .iter()
            .flat_map(|&(class, b)| {
                named_children(b)
                    .into_iter()
                    .filter(|c| c.kind() == "block")
                    .flat_map(named_children)
                    .map(move |s| (class, s))
            })
            .collect();
        for f in &self.fields {
            let Some(g) = f.global else { continue };
            let mut nodes: Vec<Node> = f.init.into_iter().collect();
            nodes.extend(
                statements
                    .iter()
                    .filter(|(class, s)| *class == f.class && mentions(*s, self.src, &f.name))
                    .map(|&(_, s)| s),
            );
            if let (false, Some(g)) = (nodes.is_empty(), self.globals.get_mut(g.0 as usize)) {
                g.origin = Some(crate::lang::origin_tokens(&nodes, self.src, &f.name));
            }
        }
    }

    /// Applies one statement of a static block if it is an assignment
    /// evaluated exactly (see the module doc); an error otherwise, which
    /// only says the block is not evaluated.
    fn static_assignment(&mut self, class: Option<usize>, s: Node<'t>) -> R<()> {
        let refuse = || unsupported(s, "static initialiser statement");
        let a = (s.kind() == "expression_statement")
            .then(|| named_children(s).into_iter().next())
            .flatten()
            .filter(|a| a.kind() == "assignment_expression")
            .ok_or_else(refuse)?;
        let (Some(l), Some(r), Some(op)) = (
            a.child_by_field_name("left"),
            a.child_by_field_name("right"),
            a.child_by_field_name("operator"),
        ) else {
            return Err(refuse());
        };
        if self.text(op) != "=" {
            return Err(refuse());
        }
        let (target, index) = match l.kind() {
            "array_access" => (
                l.child_by_field_name("array").ok_or_else(refuse)?,
                Some(l.child_by_field_name("index").ok_or_else(refuse)?),
            ),
            _ => (l, None),
        };
        let fi = self.own_field(class, target).ok_or_else(refuse)?;
        let f = &self.fields[fi];
        let (Some(gid), Ok(ty), true) = (f.global, f.ty.clone(), f.is_final || f.is_static) else {
            return Err(refuse());
        };
        let reassignable = !f.is_final;
        let current = self
            .globals
            .get(gid.0 as usize)
            .and_then(|g| g.constant.clone());
        let no_init = f.init.is_none();
        let mut fx = FnCx::new(self, class, Type::Void);
        fx.const_mode = true;
        let mut out = Vec::new();
        let value = match (index, current) {
            // A blank final assigned once; a non-final field, at any time.
            (None, None) if no_init => fx.initializer(r, &ty, &mut out)?,
            (None, Some(_)) if reassignable => fx.initializer(r, &ty, &mut out)?,
            (Some(k), Some(array)) => {
                let Type::Array(elem) = &ty else {
                    return Err(refuse());
                };
                let k = fx.expr(k, &mut out)?;
                let v = fx.initializer(r, elem, &mut out)?;
                let mut elems = elements(array, elem).ok_or_else(refuse)?;
                let k = literal_int(&k)
                    .and_then(|k| usize::try_from(k).ok())
                    .filter(|&k| k < elems.len())
                    .ok_or_else(refuse)?;
                elems[k] = v;
                mk(ExprKind::ArrayLit(elems), ty.clone(), super::span(l))
            }
            _ => return Err(refuse()),
        };
        if !out.is_empty() {
            return Err(refuse());
        }
        if let Some(g) = self.globals.get_mut(gid.0 as usize) {
            g.constant = Some(value);
        }
        Ok(())
    }

    /// The field of `class` itself that `n` (`F` or `C.F`, `C` being
    /// `class`) names. Fields of other classes are initialised when their
    /// own class is, which a static block does not order.
    fn own_field(&self, class: Option<usize>, n: Node) -> Option<usize> {
        let name = match n.kind() {
            "identifier" => self.text(n),
            "field_access" => {
                let obj = n.child_by_field_name("object")?;
                let c = self.class_named(self.text(obj))?;
                if Some(c) != class {
                    return None;
                }
                self.text(n.child_by_field_name("field")?)
            }
            _ => return None,
        };
        self.fields
            .iter()
            .position(|f| f.class == class && f.class.is_some() && f.name == name)
    }
}

/// Whether an identifier spelled `name` occurs in `n`.
fn mentions(n: Node, src: &str, name: &str) -> bool {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.kind() == "identifier" && src.get(n.byte_range()) == Some(name) {
            return true;
        }
        stack.extend(named_children(n));
    }
    false
}

/// The elements of an array constant, when its length is known: an
/// initialiser's, or `new T[n]`'s (zeros) for a literal `n`.
fn elements(array: Expr, elem: &Type) -> Option<Vec<Expr>> {
    match array.kind {
        ExprKind::ArrayLit(es) => Some(es),
        ExprKind::NewArray(len) => {
            let n = literal_int(&len).filter(|&n| (0..=MAX_ELEMENTS).contains(&n))?;
            let zero = super::objects::zero_of(elem, array.span).ok()?;
            Some(vec![zero; n as usize])
        }
        _ => None,
    }
}

/// The value of an integer literal, also through widening casts of one
/// (`(int) 'a'`, a `char` index).
fn literal_int(e: &Expr) -> Option<i128> {
    match &e.kind {
        ExprKind::IntLit(v) => Some(*v),
        ExprKind::Cast(inner) if matches!(inner.ty, Type::Int(_)) => {
            let v = literal_int(inner)?;
            match e.ty {
                Type::Int(t) if int_in_range(v, t) => Some(v),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The names of the fields a static block assigns or writes elements of,
/// and whether it may also write elements of any array (it calls a method,
/// creates an object, or writes elements through anything but a field's
/// name).
fn written_fields(cx: &Ctx, block: Node) -> (Vec<String>, bool) {
    let mut names = Vec::new();
    let mut all_arrays = false;
    let mut stack = vec![block];
    while let Some(n) = stack.pop() {
        let target = match n.kind() {
            "assignment_expression" => n.child_by_field_name("left"),
            "update_expression" => named_children(n).into_iter().next(),
            "method_invocation"
            | "object_creation_expression"
            | "explicit_constructor_invocation"
            | "method_reference"
            | "lambda_expression" => {
                all_arrays = true;
                None
            }
            _ => None,
        };
        if let Some(mut t) = target {
            while t.kind() == "parenthesized_expression" {
                match named_children(t).into_iter().next() {
                    Some(i) => t = i,
                    None => break,
                }
            }
            let element = t.kind() == "array_access";
            if element {
                t = t.child_by_field_name("array").unwrap_or(t);
            }
            let name = match t.kind() {
                "identifier" => Some(cx.text(t)),
                "field_access" => t.child_by_field_name("field").map(|f| cx.text(f)),
                _ => None,
            };
            // A local of the block named like a field counts as the field:
            // the over-approximation only loses a constant. Elements
            // written through a local (an alias) may be any array field's.
            match name {
                Some(name) => {
                    if element && !cx.fields.iter().any(|f| f.name == name) {
                        all_arrays = true;
                    }
                    names.push(name.to_string());
                }
                None => all_arrays = true,
            }
        }
        stack.extend(named_children(n));
    }
    (names, all_arrays)
}
