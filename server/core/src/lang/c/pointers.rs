//! C pointers that walk an array, lowered to index arithmetic.
//!
//! Real C reads buffers through moving pointers (`while (len--) crc ^=
//! *buf++;`) and writes results through out-parameters (`*v = x;`). A
//! pointer eqlens follows points into one array known where the pointer is
//! written: a pointer parameter (an array input, as everywhere in eqlens),
//! a local or a global array. It is lowered as that array and an offset,
//! an `unsigned long` local that wraps like an address: `*p` is
//! `a[off]`, `p[i]` is `a[off + i]`, `p++` adds one to `off`, `&a[i]` is
//! offset `i`, and `p - q`, `p < q`, `p == q` compare offsets (as signed
//! distances: a pointer one before the array is below it). Every
//! dereference is checked against the array's length like any index, so
//! reading outside the array is undefined behaviour in the verdict.
//!
//! Forming a pointer outside the array without dereferencing it is also
//! undefined in ISO C; here only the dereference is (as GCC behaves). The
//! rest is refused, naming the construct: a pointer whose array is not
//! known statically (assigned from two arrays, returned by a call other
//! than `memchr`), `NULL` other than in a test of a pointer, a moved
//! pointer passed to a call or returned, pointers to pointers, and
//! conversions between pointer types other than the one below.
//!
//! A pointer tested against `NULL` (`p == NULL`, `!p`, `p` as a
//! condition) is its array's null flag and, once moved, also its offset
//! being zero (`NULL + k` is an address): a parameter's array may then be
//! a `NULL` input (`symbolic::nullable_arrays`), a local's never is.
//!
//! A cast between pointers to integer types of the same width
//! (`(const unsigned char *) data` for a `const char *data`, as hash and
//! checksum code reads its input) is a *view*: the same array and offset,
//! each element read converted to the view's type. Two's complement makes
//! that conversion the reinterpretation of the element's bits (under
//! `math`, where integer conversions are the identity, it is the identity
//! too, as the same element cast explicitly would be). Writing through a
//! view is refused.

use rustc_hash::FxHashSet;
use tree_sitter::Node;

use super::expr::{element_place, int_lit};
use super::structs::Binding;
use super::types::is_integer;
use super::{Fx, Res, kids};
use crate::ir::{
    BinOp, Block, Expr, ExprKind, IntTy, LocalId, LocalKind, Place, Span, StmtKind, Type,
};

/// The type of an offset: an address-sized unsigned integer, so that
/// stepping a pointer never raises a signed-overflow case.
const OFFSET: IntTy = IntTy::U64;

/// A pointer value: an array reference and an offset into it.
pub(super) struct Pointer {
    /// The array (a `Local` or `Global` read): the same for every value
    /// of a pointer variable.
    pub array: Expr,
    pub offset: Expr,
    /// Where the pointer is `NULL` (`memchr` found nothing); `None` when
    /// it never is.
    pub null: Option<Expr>,
    /// The element type the pointer reads the array's elements as, where
    /// a cast made it another integer type of the same width (a view).
    pub view: Option<Type>,
}

/// Whether two pointers point into the same array, as far as the lowering
/// can tell: reads of the same local or global.
fn same_array(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Local(x), ExprKind::Local(y)) => x == y,
        (ExprKind::Global(x), ExprKind::Global(y)) => x == y,
        _ => false,
    }
}

/// Names of the pointer parameters among `params` that the body assigns
/// (`p++`, `p += n`, `p = q`): they get an offset local.
pub(super) fn moved_params<'t>(src: &str, body: Node<'t>, params: &[&str]) -> FxHashSet<String> {
    let mut moved = FxHashSet::default();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        let target = match n.kind() {
            "update_expression" => n.child_by_field_name("argument"),
            "assignment_expression" => n.child_by_field_name("left"),
            _ => None,
        };
        if let Some(t) = target.map(strip_parens)
            && t.kind() == "identifier"
        {
            let name = t.utf8_text(src.as_bytes()).unwrap_or("");
            if params.contains(&name) {
                moved.insert(name.to_string());
            }
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    moved
}

fn strip_parens(n: Node) -> Node {
    let mut n = n;
    while n.kind() == "parenthesized_expression" {
        match kids(n).first() {
            Some(k) => n = *k,
            None => break,
        }
    }
    n
}

impl<'t> Fx<'t> {
    /// Gives pointer parameter `param` (an array local) an offset local,
    /// zero at entry, and binds its name to the pair.
    pub(super) fn make_cursor(&mut self, name: &str, param: LocalId, out: &mut Block) {
        let span = self
            .fun
            .locals
            .get(param.0 as usize)
            .map(|l| l.span)
            .unwrap_or_default();
        let offset = self.offset_local(name, span);
        out.push(super::stmt::st(
            StmtKind::Assign {
                place: Place::Local(offset),
                value: int_lit(0, OFFSET, span),
            },
            span,
        ));
        let array = self.fun.local_expr(param, span);
        self.fun.bind(
            name,
            Binding::Cursor {
                array,
                offset,
                null: None,
                view: None,
            },
        );
    }

    /// A `bool` local of the lowering (a pointer's `NULL` flag).
    fn flag_local(&mut self, name: &str, span: crate::ir::Span) -> LocalId {
        self.lowering_local(name, Type::Bool, span)
    }

    /// A local of the lowering (an offset, a flag, a search counter), its
    /// name containing `#` so that it cannot clash with the program's (`#`
    /// is not a C name character).
    fn lowering_local(&mut self, name: &str, ty: Type, span: crate::ir::Span) -> LocalId {
        self.fun
            .add_local(name.to_string(), ty, LocalKind::Var, span)
    }

    fn offset_local(&mut self, name: &str, span: crate::ir::Span) -> LocalId {
        self.lowering_local(&format!("{name}#offset"), Type::Int(OFFSET), span)
    }

    /// `T *name = init;`: a local pointer into the array `init` points to.
    pub(super) fn pointer_decl(
        &mut self,
        elem: &Type,
        decl: Node<'t>,
        init: Option<Node<'t>>,
        out: &mut Block,
    ) -> Res<()> {
        let inner = self.field(decl, "declarator")?;
        if inner.kind() != "identifier" {
            let what = if inner.kind() == "pointer_declarator" {
                "pointer to a pointer"
            } else {
                "pointer declarator"
            };
            return Err(self.unsup(decl, what));
        }
        let Some(init) = init else {
            return Err(self.unsup(decl, "pointer variable without an initialiser"));
        };
        let p = self.pointer(init, out)?;
        if p.view.as_ref().or(p.array.ty.elem()) != Some(elem) {
            return Err(self.unsup(init, "conversion between pointer types"));
        }
        let span = self.sp(decl);
        let name = self.text(inner);
        let offset = self.offset_local(name, span);
        out.push(super::stmt::st(
            StmtKind::Assign {
                place: Place::Local(offset),
                value: p.offset,
            },
            span,
        ));
        let null = match p.null {
            Some(is_null) => {
                let id = self.flag_local(&format!("{name}#null"), span);
                out.push(super::stmt::st(
                    StmtKind::Assign {
                        place: Place::Local(id),
                        value: is_null,
                    },
                    span,
                ));
                Some(id)
            }
            None => None,
        };
        self.fun.bind(
            name,
            Binding::Cursor {
                array: p.array,
                offset,
                null,
                view: p.view,
            },
        );
        Ok(())
    }

    /// Whether `n` has pointer type, without lowering it.
    pub(super) fn is_pointer(&self, n: Node) -> bool {
        let n = strip_parens(n);
        match n.kind() {
            "identifier" => {
                let name = self.text(n);
                match self.fun.binding(name) {
                    Some(Binding::Cursor { .. }) => true,
                    Some(Binding::Local(id)) => self
                        .fun
                        .locals
                        .get(id.0 as usize)
                        .is_some_and(|l| matches!(l.ty, Type::Array(_))),
                    Some(Binding::Struct(..)) => false,
                    Some(Binding::Static(g)) => self
                        .file
                        .globals
                        .get(g.0 as usize)
                        .is_some_and(|g| matches!(g.ty, Type::Array(_))),
                    None => self.file.global_map.get(name).is_some_and(|g| {
                        self.file
                            .globals
                            .get(g.0 as usize)
                            .is_some_and(|g| matches!(g.ty, Type::Array(_)))
                    }),
                }
            }
            "cast_expression" => n
                .child_by_field_name("type")
                .and_then(|t| t.child_by_field_name("declarator"))
                .is_some_and(|d| d.kind() == "abstract_pointer_declarator"),
            "binary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let side = |f: &str| n.child_by_field_name(f).is_some_and(|s| self.is_pointer(s));
                match op {
                    "+" => side("left") || side("right"),
                    "-" => side("left") && !side("right"),
                    _ => false,
                }
            }
            "update_expression" => n
                .child_by_field_name("argument")
                .is_some_and(|a| self.is_pointer(a)),
            "assignment_expression" => n
                .child_by_field_name("left")
                .is_some_and(|a| self.is_pointer(a)),
            "pointer_expression" => {
                n.child_by_field_name("operator").map(|o| self.text(o)) == Some("&")
                    && n.child_by_field_name("argument")
                        .is_some_and(|a| strip_parens(a).kind() == "subscript_expression")
            }
            _ => false,
        }
    }

    /// Whether `n` is a pointer variable with an offset (not a plain array).
    pub(super) fn is_cursor(&self, n: Node) -> bool {
        let n = strip_parens(n);
        n.kind() == "identifier"
            && matches!(self.fun.binding(self.text(n)), Some(Binding::Cursor { .. }))
    }

    /// Lowers a pointer-typed expression to its array and offset.
    pub(super) fn pointer(&mut self, n: Node<'t>, out: &mut Block) -> Res<Pointer> {
        let span = self.sp(n);
        let n = strip_parens(n);
        match n.kind() {
            "identifier" => self.pointer_variable(n, span, out),
            "binary_expression" => self.pointer_arith(n, out),
            "update_expression" => self.pointer_update(n, span, out),
            "assignment_expression" => self.pointer_assign(n, span, out),
            "pointer_expression"
                if n.child_by_field_name("operator").map(|o| self.text(o)) == Some("&") =>
            {
                self.address_of(n, out)
            }
            "call_expression" => self.memchr(n, out),
            "null" => Err(self.unsup(n, "NULL pointer")),
            "conditional_expression" => Err(self.unsup(n, "pointer chosen by a conditional")),
            "cast_expression" => self.pointer_cast(n, out),
            _ => Err(self.unsup(n, "pointer expression")),
        }
    }

    /// `(T *) p`: the same pointer where `T` is its element type, a view
    /// where `T` is another integer type of the same width.
    fn pointer_cast(&mut self, n: Node<'t>, out: &mut Block) -> Res<Pointer> {
        let descriptor = self.field(n, "type")?;
        let declarator = descriptor.child_by_field_name("declarator");
        let single = declarator.is_some_and(|d| {
            d.kind() == "abstract_pointer_declarator"
                && d.child_by_field_name("declarator").is_none()
        });
        if !single {
            return Err(self.unsup(n, "pointer cast"));
        }
        let to = self
            .file
            .base_type(self.field(descriptor, "type")?, self.src)
            .map_err(|e| self.unsup(descriptor, e.what))?;
        let p = self.pointer(self.field(n, "value")?, out)?;
        let array_elem = p.array.ty.elem().cloned();
        let from = p.view.clone().or_else(|| array_elem.clone());
        if from.as_ref() == Some(&to) {
            return Ok(p);
        }
        match (&from, &to) {
            (Some(Type::Int(a)), Type::Int(b)) if a.bits == b.bits => Ok(Pointer {
                view: (array_elem.as_ref() != Some(&to)).then_some(to),
                ..p
            }),
            (Some(Type::Int(_)), Type::Int(_)) => Err(self.unsup(
                n,
                format!(
                    "conversion to a pointer to integers of another width ({})",
                    self.text(descriptor)
                ),
            )),
            _ => Err(self.unsup(
                n,
                format!(
                    "conversion between pointer types ({})",
                    self.text(descriptor)
                ),
            )),
        }
    }

    /// A pointer variable (a cursor, checked not to be NULL where it may
    /// be) or an array used as a pointer to its start.
    fn pointer_variable(&mut self, n: Node<'t>, span: Span, out: &mut Block) -> Res<Pointer> {
        if let Some(Binding::Cursor {
            array,
            offset,
            null,
            view,
        }) = self.fun.binding(self.text(n))
        {
            let (array, offset, null, view) = (array.clone(), *offset, *null, view.clone());
            // Any use of a NULL pointer as a pointer (dereference,
            // arithmetic, difference) is undefined behaviour; only
            // the tests for NULL (`cond`) read the flag itself.
            if let Some(null) = null {
                let is_null = self.fun.local_expr(null, span);
                out.push(super::stmt::st(
                    StmtKind::If {
                        cond: is_null,
                        then_branch: vec![super::stmt::st(
                            StmtKind::Throw(crate::ir::Thrown::Undefined(
                                "use of a NULL pointer".into(),
                            )),
                            span,
                        )],
                        else_branch: Vec::new(),
                    },
                    span,
                ));
            }
            return Ok(Pointer {
                array: Expr { span, ..array },
                offset: self.fun.local_expr(offset, span),
                null: None,
                view,
            });
        }
        let array = self.expr(n, out)?;
        if !matches!(array.ty, Type::Array(_)) {
            return Err(self.unsup(n, "integer used as a pointer"));
        }
        Ok(Pointer {
            array,
            offset: int_lit(0, OFFSET, span),
            null: None,
            view: None,
        })
    }

    /// `p + k`, `k + p`, `p - k`.
    fn pointer_arith(&mut self, n: Node<'t>, out: &mut Block) -> Res<Pointer> {
        let op = self.text(self.field(n, "operator")?);
        let (left, right) = (self.field(n, "left")?, self.field(n, "right")?);
        let (ptr_side, int_side) = if self.is_pointer(left) {
            (left, right)
        } else {
            (right, left)
        };
        let sub = match op {
            "+" => false,
            "-" if ptr_side == left => true,
            _ => return Err(self.unsup(n, format!("pointer operator {op}"))),
        };
        let p = self.pointer(ptr_side, out)?;
        let step = self.offset_step(p, int_side, sub, out)?;
        Ok(step)
    }

    /// `p++`, `--p` and kin: the offset moves; the value is the old or
    /// the new position.
    fn pointer_update(&mut self, n: Node<'t>, span: Span, out: &mut Block) -> Res<Pointer> {
        let op_node = self.field(n, "operator")?;
        let arg = self.field(n, "argument")?;
        let offset = self.cursor_offset(arg)?;
        let prefix = op_node.start_byte() < arg.start_byte();
        let Pointer { array, view, .. } = self.pointer(arg, out)?;
        let read = self.fun.local_expr(offset, span);
        let old = self.fun.temp_of(read.clone(), out);
        let one = int_lit(1, OFFSET, span);
        let op = if self.text(op_node) == "++" {
            BinOp::Add
        } else {
            BinOp::Sub
        };
        let new = self.arith(op, old.clone(), one, span)?;
        let new = self.fun.temp_of(new, out);
        out.push(super::stmt::st(
            StmtKind::Assign {
                place: Place::Local(offset),
                value: new.clone(),
            },
            span,
        ));
        Ok(Pointer {
            array,
            offset: if prefix { new } else { old },
            null: None,
            view,
        })
    }

    /// `p = q` (within the same array), `p += k`, `p -= k`.
    fn pointer_assign(&mut self, n: Node<'t>, span: Span, out: &mut Block) -> Res<Pointer> {
        let left = self.field(n, "left")?;
        let offset = self.cursor_offset(left)?;
        let op = self.text(self.field(n, "operator")?);
        let right = self.field(n, "right")?;
        let cur = self.pointer(left, out)?;
        let new = match op {
            "=" => {
                let p = self.pointer(right, out)?;
                if p.null.is_some() {
                    return Err(self.unsup(
                        n,
                        "pointer that may be NULL assigned to an existing pointer \
                         (followed where it initialises its own variable)",
                    ));
                }
                if !same_array(&p.array, &cur.array) {
                    return Err(self.unsup(n, "pointer moved to another array"));
                }
                if p.view != cur.view {
                    return Err(self.unsup(n, "pointer assigned a pointer of another element type"));
                }
                p
            }
            "+=" | "-=" => self.offset_step(cur, right, op == "-=", out)?,
            _ => return Err(self.unsup(n, format!("pointer operator {op}"))),
        };
        let value = self.fun.temp_of(new.offset, out);
        out.push(super::stmt::st(
            StmtKind::Assign {
                place: Place::Local(offset),
                value: value.clone(),
            },
            span,
        ));
        Ok(Pointer {
            array: new.array,
            offset: value,
            null: None,
            view: new.view,
        })
    }

    /// `&a[i]`.
    fn address_of(&mut self, n: Node<'t>, out: &mut Block) -> Res<Pointer> {
        let arg = strip_parens(self.field(n, "argument")?);
        if arg.kind() != "subscript_expression" {
            return Err(self.unsup(n, "address-of operator"));
        }
        let (array, index, view) = self.element(arg, out)?;
        Ok(Pointer {
            array,
            offset: index,
            null: None,
            view,
        })
    }

    /// Whether subscript `n` indexes through a pointer with an offset
    /// (`q[i]` for a moved `q`, `(p + 1)[i]`) rather than an array.
    pub(super) fn walks_pointer(&self, n: Node) -> bool {
        n.child_by_field_name("argument").is_some_and(|a| {
            self.is_cursor(a) || (self.is_pointer(a) && strip_parens(a).kind() != "identifier")
        })
    }

    /// `p++`, `p += n`, `p = q` on a pointer variable, as a statement.
    pub(super) fn move_pointer(
        &mut self,
        n: Node<'t>,
        out: &mut Block,
        want: bool,
    ) -> Res<Option<Expr>> {
        if want {
            return Err(self.unsup(n, "pointer used as a number"));
        }
        self.pointer(n, out)?;
        Ok(None)
    }

    /// The offset local of pointer variable `n`, which is being assigned.
    fn cursor_offset(&self, n: Node) -> Res<LocalId> {
        let n = strip_parens(n);
        match self.fun.binding(self.text(n)) {
            Some(Binding::Cursor { offset, .. }) if n.kind() == "identifier" => Ok(*offset),
            _ => Err(self.unsup(n, "assignment to an array variable")),
        }
    }

    /// `p + i` or `p - i`: `i` is lowered after `p`, whose offset is read
    /// before any side effect of `i`.
    fn offset_step(
        &mut self,
        p: Pointer,
        int_side: Node<'t>,
        sub: bool,
        out: &mut Block,
    ) -> Res<Pointer> {
        let span = self.sp(int_side);
        let mut b = Vec::new();
        let i = self.expr(int_side, &mut b)?;
        if !is_integer(&i.ty) {
            return Err(self.unsup(int_side, "pointer arithmetic with a non-integer"));
        }
        let mut offset = p.offset;
        if !b.is_empty() {
            offset = self.fun.spill(offset, out);
            out.extend(b);
        }
        let i = self.convert(i, &Type::Int(OFFSET), span)?;
        let op = if sub { BinOp::Sub } else { BinOp::Add };
        Ok(Pointer {
            array: p.array,
            offset: self.arith(op, offset, i, span)?,
            null: None,
            view: p.view,
        })
    }

    /// `p[i]` for a pointer `p`, or `*p` with `i` absent: the array, the
    /// index of the element and the pointer's view.
    pub(super) fn element(
        &mut self,
        n: Node<'t>,
        out: &mut Block,
    ) -> Res<(Expr, Expr, Option<Type>)> {
        let p = self.pointer(self.field(n, "argument")?, out)?;
        let p = match n.kind() {
            "subscript_expression" => self.offset_step(p, self.field(n, "index")?, false, out)?,
            _ => p,
        };
        Ok((p.array, p.offset, p.view))
    }

    /// `*p` or `p[i]` as an assignable place (and its read).
    pub(super) fn deref(&mut self, n: Node<'t>, out: &mut Block) -> Res<(Place, Expr)> {
        let span = self.sp(n);
        let (array, index, view) = self.element(n, out)?;
        if matches!(array.ty.elem(), Some(Type::Array(_))) {
            return Err(self.unsup(n, "pointer to a pointer"));
        }
        if view.is_some() {
            return Err(self.unsup(n, "write through a pointer cast to another element type"));
        }
        Ok(element_place(array, index, span))
    }

    /// `*p` or `p[i]` as a value: the element, as the pointer's view reads it.
    pub(super) fn deref_value(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        let span = self.sp(n);
        let (array, index, view) = self.element(n, out)?;
        if matches!(array.ty.elem(), Some(Type::Array(_))) {
            return Err(self.unsup(n, "pointer to a pointer"));
        }
        let (_, read) = element_place(array, index, span);
        match view {
            Some(ty) => self.convert(read, &ty, span),
            None => Ok(read),
        }
    }

    /// `memchr(s, c, n)`, the one library call whose pointer result is
    /// followed: the first of the `n` bytes from `s` equal to `c` (both as
    /// `unsigned char`), or `NULL`. Lowered as the search itself — each
    /// byte read is bounds-checked like any other, so a search past the
    /// buffer is undefined behaviour, as natively — into an offset and a
    /// "not found" flag.
    fn memchr(&mut self, n: Node<'t>, out: &mut Block) -> Res<Pointer> {
        let span = self.sp(n);
        let f = self.field(n, "function")?;
        let name = self.text(f);
        let own = self.file.fn_map.contains_key(name) || self.file.fn_macros.contains_key(name);
        if f.kind() != "identifier" || name != "memchr" || own {
            return Err(self.unsup(n, "pointer returned by a call"));
        }
        let args = kids(self.field(n, "arguments")?);
        let [s_node, c_node, n_node] = args[..] else {
            return Err(self.unsup(n, format!("call to memchr with {} arguments", args.len())));
        };
        let s = self.pointer(s_node, out)?;
        let start = self.fun.spill(s.offset, out);
        let byte = Type::Int(IntTy::U8);
        let c = self.expr(c_node, out)?;
        if !is_integer(&c.ty) {
            return Err(self.unsup(c_node, "memchr of a non-integer"));
        }
        let c = self.convert(c, &byte, span)?;
        let c = self.fun.temp_of(c, out);
        let count = self.expr(n_node, out)?;
        if !is_integer(&count.ty) {
            return Err(self.unsup(n_node, "memchr with a non-integer length"));
        }
        let count = self.convert(count, &Type::Int(OFFSET), span)?;
        let count = self.fun.temp_of(count, out);
        // `k = 0; while (k < n && (unsigned char) s[k] != c) k++;` — found
        // exactly where `k < n` after the loop.
        let k = self.lowering_local("memchr#k", Type::Int(OFFSET), span);
        let st = super::stmt::st;
        let k_read = self.fun.local_expr(k, span);
        out.push(st(
            StmtKind::Assign {
                place: Place::Local(k),
                value: int_lit(0, OFFSET, span),
            },
            span,
        ));
        let at = self.arith(BinOp::Add, start.clone(), k_read.clone(), span)?;
        let (_, elem) = element_place(s.array.clone(), at, span);
        if !is_integer(&elem.ty) {
            return Err(self.unsup(s_node, "memchr over a non-integer array"));
        }
        let elem = self.convert(elem, &byte, span)?;
        let miss = self.arith(BinOp::Ne, elem, c, span)?;
        let within = self.arith(BinOp::Lt, k_read.clone(), count.clone(), span)?;
        let searching = Expr {
            kind: ExprKind::Binary(BinOp::And, Box::new(within), Box::new(miss)),
            ty: Type::Bool,
            span,
        };
        let next = self.arith(BinOp::Add, k_read.clone(), int_lit(1, OFFSET, span), span)?;
        let label = self.fun.label();
        out.push(st(
            StmtKind::Loop {
                label,
                kind: crate::ir::LoopKind::While,
                cond: searching,
                body: vec![st(
                    StmtKind::Assign {
                        place: Place::Local(k),
                        value: next,
                    },
                    span,
                )],
                step: Vec::new(),
            },
            span,
        ));
        Ok(Pointer {
            array: s.array,
            offset: self.arith(BinOp::Add, start, k_read.clone(), span)?,
            null: Some(self.arith(BinOp::Ge, k_read, count, span)?),
            view: s.view,
        })
    }

    /// A test of a pointer that may be `NULL` (`p`, `!p` via `cond`, `p ==
    /// NULL`, `p != 0`): its flag. `None` when `n` is no such test.
    pub(super) fn null_test(&self, n: Node<'t>) -> Option<Expr> {
        let n = strip_parens(n);
        let flag = |id: Option<Node<'t>>| -> Option<Expr> {
            let id = strip_parens(id?);
            if id.kind() != "identifier" {
                return None;
            }
            let span = self.sp(id);
            match self.fun.binding(self.text(id)) {
                Some(Binding::Cursor {
                    null: Some(null), ..
                }) => Some(self.fun.local_expr(*null, span)),
                // A pointer walking an array is NULL where the array is
                // (a NULL parameter) and it has not moved: `NULL + k` for
                // `k ≠ 0` is an address, not NULL.
                Some(Binding::Cursor {
                    array,
                    offset,
                    null: None,
                    ..
                }) => {
                    let at_start = self
                        .arith(
                            BinOp::Eq,
                            self.fun.local_expr(*offset, span),
                            int_lit(0, OFFSET, span),
                            span,
                        )
                        .ok()?;
                    Some(Expr {
                        span,
                        kind: ExprKind::Binary(
                            BinOp::And,
                            Box::new(Self::null_array(array.clone(), span)),
                            Box::new(at_start),
                        ),
                        ty: Type::Bool,
                    })
                }
                // An array parameter may be NULL; a local or global array
                // never is (the symbolic state's null flag says which).
                Some(Binding::Local(local))
                    if matches!(self.fun.local_ty(*local), Type::Array(_)) =>
                {
                    Some(Self::null_array(self.fun.local_expr(*local, span), span))
                }
                _ => None,
            }
        };
        let not = |e: Expr| Expr {
            span: e.span,
            kind: ExprKind::Unary(crate::ir::UnOp::Not, Box::new(e)),
            ty: Type::Bool,
        };
        match n.kind() {
            "identifier" => flag(Some(n)).map(not),
            "binary_expression" => {
                let op = self.text(n.child_by_field_name("operator")?);
                let (l, r) = (
                    n.child_by_field_name("left")?,
                    n.child_by_field_name("right")?,
                );
                let is_null = |x: Node| {
                    let x = strip_parens(x);
                    x.kind() == "null" || (x.kind() == "number_literal" && self.text(x) == "0")
                };
                let is_null_flag = if is_null(r) {
                    flag(Some(l))?
                } else if is_null(l) {
                    flag(Some(r))?
                } else {
                    return None;
                };
                match op {
                    "==" => Some(is_null_flag),
                    "!=" => Some(not(is_null_flag)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `array == NULL`.
    fn null_array(array: Expr, span: Span) -> Expr {
        Expr {
            span,
            kind: ExprKind::IsNull(Box::new(array)),
            ty: Type::Bool,
        }
    }

    /// Whether `n` names a pointer variable that may be `NULL`.
    fn maybe_null(&self, n: Node) -> bool {
        let n = strip_parens(n);
        n.kind() == "identifier"
            && matches!(
                self.fun.binding(self.text(n)),
                Some(Binding::Cursor { null: Some(_), .. })
            )
    }

    /// `p - q`, `p < q`, `p == q`, ... on two pointers into one array.
    pub(super) fn pointer_pair(
        &mut self,
        op: BinOp,
        left: Node<'t>,
        right: Node<'t>,
        out: &mut Block,
    ) -> Res<Expr> {
        let span = self.sp(left);
        // C defines `p == q` for a NULL `p` (false); as a pointer use it
        // would be undefined here, so it is refused rather than modelled
        // wrongly. `p - q` on NULL is undefined in C too.
        if op.is_comparison() && (self.maybe_null(left) || self.maybe_null(right)) {
            return Err(self.unsup(
                left,
                "comparison of a pointer that may be NULL with another pointer",
            ));
        }
        let l = self.pointer(left, out)?;
        let mut b = Vec::new();
        let r = self.pointer(right, &mut b)?;
        let mut lo = l.offset;
        if !b.is_empty() {
            lo = self.fun.spill(lo, out);
            out.extend(b);
        }
        if !same_array(&l.array, &r.array) {
            return Err(self.unsup(right, "pointers into different arrays compared"));
        }
        match op {
            BinOp::Sub => {
                let d = self.arith(BinOp::Sub, lo, r.offset, span)?;
                // ptrdiff_t
                self.convert(d, &Type::LONG, span)
            }
            // Relational comparisons of addresses near one array order
            // them by their signed distance: a pointer stepped one before
            // the array (`a + n` with `n = -1`) compares below it, as the
            // machine's addresses do — as an unsigned offset it would wrap
            // to the top.
            op if op.is_comparison() => {
                let lo = self.convert(lo, &Type::LONG, span)?;
                let ro = self.convert(r.offset, &Type::LONG, span)?;
                self.arith(op, lo, ro, span)
            }
            _ => Err(self.unsup(left, "pointer arithmetic")),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Lang, Program};

    fn lower(src: &str) -> Program {
        crate::lang::lower(Lang::C, src)
    }

    fn error_of(src: &str) -> String {
        let p = lower(src);
        let Some(f) = p.functions.iter().find(|f| f.name == "f") else {
            return "no function f".into();
        };
        match &f.body {
            Ok(_) => "lowered".into(),
            // 1-based, as editors show positions.
            Err(e) => format!(
                "{}:{} {}",
                e.span.start.line + 1,
                e.span.start.col + 1,
                e.what
            ),
        }
    }

    #[test]
    fn walking_pointers_and_out_parameters_lower() {
        for src in [
            "int f(const unsigned char *p, long n) { int s = 0; while (n--) s += *p++; return s; }",
            "void f(unsigned *v, unsigned x) { *v = x; }",
            "int f(int *a, int n) { int *end = a + n; int s = 0; for (int *q = a; q < end; q++) s += *q; return s; }",
            "long f(const char *s, int n) { const char *p = s; while (p < s + n && *p) p++; return p - s; }",
            "int f(int *a) { int *q = &a[2]; return q[1] + *(q - 1); }",
            "#include <string.h>\nlong f(const char *s, int n) { const char *p = memchr(s + 1, 'x', n); if (p == NULL) return -1; return !p ? 0 : (p - s) + *p; }",
        ] {
            assert_eq!(error_of(src), "lowered", "{src}");
        }
    }

    /// `memchr` against its definition (the C standard's 7.24.5.1) on
    /// every small buffer: the offset found, or NULL; a search past the
    /// buffer's end is undefined behaviour.
    #[test]
    fn memchr_finds_the_first_byte_or_null() {
        use crate::value::Value;
        let p = lower(
            "#include <string.h>\nlong f(const char *s, int c, unsigned long n) { const char *p = memchr(s, c, n); return p ? p - s : -1; }",
        );
        for buf in [vec![], vec![0], vec![3, 0, 3], vec![-1, 5], vec![7, 7, 7]] {
            for c in [0i64, 3, 7, 255, -1, 256 + 5] {
                for n in 0..=buf.len() + 1 {
                    let args = vec![
                        Value::Array(buf.iter().map(|&b: &i64| Value::int(b)).collect()),
                        Value::int(c),
                        Value::int(n as i64),
                    ];
                    let got =
                        crate::interp::run_named(&p, "f", crate::ir::Semantics::Machine, args);
                    let byte = |x: i64| x.rem_euclid(256);
                    let found = buf.iter().take(n).position(|&b| byte(b) == byte(c));
                    let expected = match found {
                        Some(i) => Some(i as i64),
                        None if n > buf.len() => None,
                        None => Some(-1),
                    };
                    match (&got, expected) {
                        (crate::interp::Outcome::Return(v), Some(e)) => {
                            assert_eq!(v, &Value::int(e), "{buf:?} {c} {n}")
                        }
                        (crate::interp::Outcome::Fault { kind, .. }, None) => assert!(
                            kind.outcome_key(crate::ir::Lang::C) == "undefined behaviour",
                            "{buf:?} {c} {n}: {kind:?}"
                        ),
                        _ => panic!("{buf:?} {c} {n}: {got:?}, expected {expected:?}"),
                    }
                }
            }
        }
    }

    /// A pointer cast to another integer type of the same width reads the
    /// array's elements converted: natively a reinterpretation of the
    /// bytes, under `math` (conversions are the identity) the same value.
    #[test]
    fn a_cast_pointer_reads_the_elements_converted() {
        use crate::interp::Outcome;
        use crate::ir::Semantics;
        use crate::value::Value;
        let p = lower(
            "int f(const char *s, int i) { const unsigned char *u = (const unsigned char *) s; \
             const unsigned char *v = u + 1; return u[i] + *(const signed char *) v + ((const unsigned char *) s)[0]; }",
        );
        let run = |sem, bytes: &[i64], i| {
            let args = vec![
                Value::Array(bytes.iter().map(|&b| Value::int(b)).collect()),
                Value::int(i),
            ];
            crate::interp::run_named(&p, "f", sem, args)
        };
        // u[0] = 200, *(signed char *) (u + 1) = -1, u[0] = 200.
        let bytes = [-56, -1];
        assert_eq!(
            run(Semantics::Machine, &bytes, 0),
            Outcome::Return(Value::int(200 - 1 + 200))
        );
        assert_eq!(
            run(Semantics::Math, &bytes, 0),
            Outcome::Return(Value::int(-56 - 1 - 56))
        );
    }

    #[test]
    fn pointers_it_cannot_follow_are_named() {
        let cases = [
            (
                "#include <string.h>\nint f(const char *s) { const char *p = strchr(s, 0); return p ? 1 : 0; }",
                "pointer returned by a call",
            ),
            (
                "#include <string.h>\nint f(const char *s, int n) { const char *p = memchr(s, 0, n); return p == s; }",
                "comparison of a pointer that may be NULL",
            ),
            (
                "#include <string.h>\nint f(const char *s, int n) { const char *p = s; p = memchr(s, 0, n); return *p; }",
                "pointer that may be NULL assigned to an existing pointer",
            ),
            (
                "int f(int *a, int *b) { int *p = a; p = b; return *p; }",
                "pointer moved to another array",
            ),
            (
                "int f(int *a, int *b) { return a < b; }",
                "pointers into different arrays compared",
            ),
            (
                "int f(int *a) { int *p; p = a; return *p; }",
                "pointer variable without an initialiser",
            ),
            ("int f(int **a) { return **a; }", "pointer"),
            (
                "int g(const int a[]) { return a[0]; }\nint f(const int *a) { a++; return g(a); }",
                "2:37 moved pointer a used as a value",
            ),
            (
                "int f(int *a) { char *c = a; return *c; }",
                "conversion between pointer types",
            ),
            (
                "unsigned f(const unsigned char *b) { return *(const unsigned *) b; }",
                "conversion to a pointer to integers of another width (const unsigned *)",
            ),
            (
                "void f(char *s) { unsigned char *u = (unsigned char *) s; u[0] = 200; }",
                "write through a pointer cast to another element type",
            ),
            (
                "void f(char *s) { unsigned char *u = (unsigned char *) s; (*u)++; }",
                "write through a pointer cast to another element type",
            ),
            (
                "int f(char *s) { char *t = s; unsigned char *u = (unsigned char *) s; t = u; return *t; }",
                "pointer assigned a pointer of another element type",
            ),
            (
                "int f(char **s) { return **(unsigned char **) s; }",
                "pointer",
            ),
        ];
        for (src, what) in cases {
            let e = error_of(src);
            assert!(e.contains(what), "{src}: {e}");
        }
    }
}
