//! Structs, by value. The IR has scalar values only, so a struct variable,
//! parameter or global is lowered to its scalar fields (its *leaves*), one
//! IR local or global each, named by path (`s.center.x`):
//! - assignment, initialisation and argument passing copy every leaf, which
//!   is exactly C's copy semantics for structs;
//! - a function returning a struct writes the leaves of the returned value
//!   into return slots (globals `f().center.x`, see
//!   [`crate::ir::Global::return_of`]) and returns; its caller copies the
//!   slots out right after the call, before anything else can call `f`.
//!
//! Refused, naming what and where: pointers to structs (`->`, `struct S *`),
//! arrays of structs, struct fields of array or pointer type, bit-fields,
//! unions, brace initialisers and compound literals, structs defined inside
//! a function.

use rustc_hash::FxHashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::expr::zero;
use super::{Fx, Res, kids, span_of, unsupported};
use crate::ir::{
    Block, Expr, ExprKind, Global, GlobalId, LocalId, LocalKind, Place, Span, Stmt, StmtKind, Type,
};

/// A struct type of the file: its fields in declaration order.
pub(super) struct StructDef {
    /// The tag or typedef name, for messages.
    pub name: String,
    pub fields: Vec<Field>,
}

pub(super) struct Field {
    pub name: String,
    /// Why the field's type is unsupported, if it is.
    pub shape: Result<Shape, String>,
}

/// What a type is for lowering: a scalar IR type, or a struct of the file.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape {
    Scalar(Type),
    Struct(usize),
}

/// The structs a file defines, and the names that denote them.
#[derive(Default)]
pub(super) struct Structs {
    defs: Vec<StructDef>,
    /// Start byte of a `struct_specifier` with a body → its struct.
    at: FxHashMap<usize, usize>,
    tags: FxHashMap<String, usize>,
    pub typedefs: FxHashMap<String, usize>,
    /// Globals of struct type: name → struct and leaf globals.
    pub globals: FxHashMap<String, (usize, Vec<GlobalId>)>,
}

/// Structs nest by value only, so paths are short; the bound guards
/// against pathological input.
const MAX_NESTING: u32 = 32;

impl Structs {
    pub fn name(&self, sid: usize) -> &str {
        self.defs.get(sid).map_or("?", |d| d.name.as_str())
    }

    /// The scalar leaves of a struct, in declaration order, as paths
    /// relative to the struct (`center.x`) with their types.
    pub fn leaves(&self, sid: usize) -> Result<Vec<(String, Type)>, String> {
        let mut out = Vec::new();
        self.collect_leaves(sid, "", 0, &mut out)?;
        if out.is_empty() {
            return Err(format!("struct {} without fields", self.name(sid)));
        }
        Ok(out)
    }

    fn collect_leaves(
        &self,
        sid: usize,
        prefix: &str,
        depth: u32,
        out: &mut Vec<(String, Type)>,
    ) -> Result<(), String> {
        let def = self.defs.get(sid).ok_or("unknown struct")?;
        if depth > MAX_NESTING {
            return Err(format!("struct {} nested too deeply", def.name));
        }
        for f in &def.fields {
            let path = format!("{prefix}{}", f.name);
            match &f.shape {
                Ok(Shape::Scalar(t)) => out.push((path, t.clone())),
                Ok(Shape::Struct(inner)) => {
                    self.collect_leaves(*inner, &format!("{path}."), depth + 1, out)?
                }
                Err(why) => {
                    return Err(format!(
                        "struct {} with field {} of unsupported type ({why})",
                        def.name, f.name
                    ));
                }
            }
        }
        Ok(())
    }

    /// Where field `name` of struct `sid` sits among the struct's leaves,
    /// and its shape.
    fn field(&self, sid: usize, name: &str) -> Result<(Range<usize>, Shape), String> {
        let def = self.defs.get(sid).ok_or("unknown struct")?;
        let mut start = 0;
        for f in &def.fields {
            let shape = f.shape.clone()?;
            let width = match &shape {
                Shape::Scalar(_) => 1,
                Shape::Struct(inner) => self.leaves(*inner)?.len(),
            };
            if f.name == name {
                return Ok((start..start + width, shape));
            }
            start += width;
        }
        Err(format!("struct {} has no field {name}", def.name))
    }
}

impl super::FileCx<'_> {
    /// Registers a struct specifier with a body (and the structs nested in
    /// it), in source order: a field may only use structs declared before.
    pub(super) fn note_struct(&mut self, t: Node) {
        if t.kind() != "struct_specifier" || self.structs.at.contains_key(&t.start_byte()) {
            return;
        }
        let Some(body) = t.child_by_field_name("body") else {
            return;
        };
        let tag = t
            .child_by_field_name("name")
            .map(|n| self.text(n).to_string());
        let mut fields = Vec::new();
        for fd in kids(body) {
            if fd.kind() != "field_declaration" {
                continue;
            }
            let Some(ftype) = fd.child_by_field_name("type") else {
                continue;
            };
            self.note_struct(ftype);
            let shape = self.shape_of(ftype, self.src).map_err(|e| e.what);
            let bitfield = kids(fd).iter().any(|k| k.kind() == "bitfield_clause");
            let mut c = fd.walk();
            for d in fd.children_by_field_name("declarator", &mut c) {
                let name = super::declarator_name(d)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let shape = match d.kind() {
                    _ if bitfield => Err("bit-field".to_string()),
                    "field_identifier" => shape.clone(),
                    "array_declarator" => Err("array field".to_string()),
                    "pointer_declarator" => Err("pointer field".to_string()),
                    other => Err(other.replace('_', " ")),
                };
                fields.push(Field { name, shape });
            }
        }
        let sid = self.structs.defs.len();
        self.structs.defs.push(StructDef {
            name: tag.clone().unwrap_or_else(|| "(anonymous)".into()),
            fields,
        });
        self.structs.at.insert(t.start_byte(), sid);
        if let Some(tag) = tag {
            self.structs.tags.insert(tag, sid);
        }
    }

    /// What a type specifier denotes: a struct of the file, or a scalar
    /// type ([`Self::base_type`]).
    pub(super) fn shape_of(&self, t: Node, src: &str) -> Res<Shape> {
        match t.kind() {
            "struct_specifier" => {
                if let Some(&sid) = self.structs.at.get(&t.start_byte())
                    && src == self.src
                {
                    return Ok(Shape::Struct(sid));
                }
                if t.child_by_field_name("body").is_some() {
                    return Err(unsupported(span_of(t), "struct defined inside a function"));
                }
                let tag = t
                    .child_by_field_name("name")
                    .and_then(|n| n.utf8_text(src.as_bytes()).ok())
                    .unwrap_or("");
                match self.structs.tags.get(tag) {
                    Some(&sid) => Ok(Shape::Struct(sid)),
                    None => Err(unsupported(
                        span_of(t),
                        format!("struct {tag} without a definition"),
                    )),
                }
            }
            "type_identifier" => {
                let name = t.utf8_text(src.as_bytes()).unwrap_or("");
                match self.structs.typedefs.get(name) {
                    Some(&sid) => Ok(Shape::Struct(sid)),
                    None => self.base_type(t, src).map(Shape::Scalar),
                }
            }
            _ => self.base_type(t, src).map(Shape::Scalar),
        }
    }

    /// Declares the leaf globals of global struct `name` (inputs, like
    /// every non-`const` global).
    pub(super) fn struct_global(&mut self, name: &str, sid: usize, span: Span) {
        let leaves = match self.structs.leaves(sid) {
            Ok(l) => l,
            Err(why) => {
                self.bad_globals.entry(name.to_string()).or_insert(why);
                return;
            }
        };
        let mut ids = Vec::new();
        for (path, ty) in leaves {
            ids.push(self.push_global(Global {
                name: format!("{name}.{path}"),
                ty,
                constant: None,
                return_of: None,
                static_object: None,
                uncomputed: false,
                origin: None,
                initial: None,
                declared_len: None,
                file_local: false,
                span,
            }));
        }
        self.structs.globals.insert(name.to_string(), (sid, ids));
    }

    /// The return slots of function `func`, returning struct `sid`.
    pub(super) fn return_slots(&mut self, func: &str, sid: usize, span: Span) -> Vec<GlobalId> {
        let leaves = self.structs.leaves(sid).unwrap_or_default();
        leaves
            .into_iter()
            .map(|(path, ty)| {
                self.push_global(Global {
                    name: format!("{func}().{path}"),
                    ty,
                    constant: None,
                    return_of: Some(func.to_string()),
                    static_object: None,
                    uncomputed: false,
                    origin: None,
                    initial: None,
                    declared_len: None,
                    file_local: false,
                    span,
                })
            })
            .collect()
    }

    fn push_global(&mut self, g: Global) -> GlobalId {
        let id = GlobalId(self.globals.len() as u32);
        self.globals.push(g);
        self.global_const.push(false);
        id
    }
}

/// A name in a function's scope.
#[derive(Clone, Debug)]
pub(super) enum Binding {
    Local(LocalId),
    /// A struct variable: its struct and leaf locals.
    Struct(usize, Vec<LocalId>),
    /// A pointer variable that moves through an array
    /// ([`super::pointers`]): the array and the offset local.
    Cursor {
        array: Expr,
        offset: LocalId,
        /// A `bool` local that is true where the pointer is `NULL` (a
        /// pointer `memchr` found); `None` for pointers that never are.
        null: Option<LocalId>,
        /// The element type the pointer reads as, where a cast made it
        /// another of the same width (`super::pointers`).
        view: Option<Type>,
    },
    /// A static local variable: the global it is.
    Static(GlobalId),
}

impl crate::lang::lower::ScopeEntry for Binding {
    fn local(id: LocalId) -> Self {
        Binding::Local(id)
    }
    /// `None` for a struct variable or a moving pointer.
    fn as_local(&self) -> Option<LocalId> {
        match self {
            Binding::Local(id) => Some(*id),
            Binding::Struct(..) | Binding::Cursor { .. } | Binding::Static(_) => None,
        }
    }
}

/// A struct lvalue: which struct, and the places of its leaves.
pub(super) struct Aggregate {
    pub sid: usize,
    pub leaves: Vec<Place>,
    pub tys: Vec<Type>,
}

/// What a variable or member expression denotes.
pub(super) enum Member {
    Whole(Aggregate),
    Scalar(Place, Type),
}

impl<'t> Fx<'t> {
    /// Declares struct variable (or parameter) `name`: one local per leaf.
    pub(super) fn declare_struct(
        &mut self,
        name: &str,
        sid: usize,
        kind: LocalKind,
        span: Span,
    ) -> Res<Vec<LocalId>> {
        let leaves = self
            .file
            .structs
            .leaves(sid)
            .map_err(|why| unsupported(span, why))?;
        let mut ids = Vec::new();
        for (path, ty) in leaves {
            ids.push(
                self.fun
                    .add_local(format!("{name}.{path}"), ty, kind.clone(), span),
            );
        }
        self.fun.bind(name, Binding::Struct(sid, ids.clone()));
        Ok(ids)
    }

    fn aggregate(&self, sid: usize, leaves: Vec<Place>) -> Aggregate {
        let tys = self
            .file
            .structs
            .leaves(sid)
            .map(|l| l.into_iter().map(|(_, t)| t).collect())
            .unwrap_or_default();
        Aggregate { sid, leaves, tys }
    }

    /// The struct variable or member `n` denotes, if it is one (`s`,
    /// `s.center`, `s.center.x`); `None` for anything else.
    pub(super) fn member(&self, n: Node<'t>) -> Res<Option<Member>> {
        match n.kind() {
            "parenthesized_expression" => match kids(n).first() {
                Some(k) => self.member(*k),
                None => Ok(None),
            },
            "identifier" => {
                let name = self.text(n);
                if let Some(b) = self.fun.binding(name) {
                    return Ok(match b {
                        Binding::Struct(sid, ids) => Some(Member::Whole(
                            self.aggregate(*sid, ids.iter().map(|l| Place::Local(*l)).collect()),
                        )),
                        Binding::Local(_) | Binding::Cursor { .. } | Binding::Static(_) => None,
                    });
                }
                Ok(self.file.structs.globals.get(name).map(|(sid, ids)| {
                    Member::Whole(
                        self.aggregate(*sid, ids.iter().map(|g| Place::Global(*g)).collect()),
                    )
                }))
            }
            "field_expression" => {
                self.no_arrow(n)?;
                let arg = self.field(n, "argument")?;
                let base = match self.member(arg)? {
                    Some(Member::Whole(a)) => a,
                    Some(Member::Scalar(..)) => {
                        return Err(self.unsup(n, "member access on a value that is not a struct"));
                    }
                    None => return Ok(None),
                };
                let fname = self.text(self.field(n, "field")?);
                let (range, shape) = self
                    .file
                    .structs
                    .field(base.sid, fname)
                    .map_err(|why| self.unsup(n, why))?;
                let (Some(leaves), Some(tys)) =
                    (base.leaves.get(range.clone()), base.tys.get(range))
                else {
                    return Err(self.unsup(n, "struct member"));
                };
                Ok(Some(match shape {
                    Shape::Struct(sid) => Member::Whole(Aggregate {
                        sid,
                        leaves: leaves.to_vec(),
                        tys: tys.to_vec(),
                    }),
                    Shape::Scalar(t) => Member::Scalar(leaves[0].clone(), t),
                }))
            }
            _ => Ok(None),
        }
    }

    fn no_arrow(&self, n: Node<'t>) -> Res<()> {
        let op = n
            .child_by_field_name("operator")
            .map(|o| self.text(o))
            .unwrap_or(".");
        if op == "->" {
            return Err(self.unsup(n, "pointer to struct (->)"));
        }
        Ok(())
    }

    /// Reads a leaf place.
    pub(super) fn read_place(&self, place: &Place, ty: &Type, span: Span) -> Expr {
        match place {
            Place::Local(id) => self.fun.local_expr(*id, span),
            Place::Global(g) => Expr {
                kind: ExprKind::Global(*g),
                ty: ty.clone(),
                span,
            },
            Place::Index { array, index } => Expr {
                kind: ExprKind::Index(array.clone(), index.clone()),
                ty: ty.clone(),
                span,
            },
        }
    }

    fn reads(&self, a: &Aggregate, span: Span) -> Vec<Expr> {
        a.leaves
            .iter()
            .zip(&a.tys)
            .map(|(p, t)| self.read_place(p, t, span))
            .collect()
    }

    /// The values of member `n` (`e.f`) of a struct that is not a variable
    /// (`f().x`), and the member's shape.
    fn member_values(&mut self, n: Node<'t>, out: &mut Block) -> Res<(Shape, Vec<Expr>)> {
        self.no_arrow(n)?;
        let (sid, vals) = self.struct_value(self.field(n, "argument")?, out)?;
        let fname = self.text(self.field(n, "field")?);
        let (range, shape) = self
            .file
            .structs
            .field(sid, fname)
            .map_err(|why| self.unsup(n, why))?;
        let vals = vals
            .get(range)
            .ok_or_else(|| self.unsup(n, "struct member"))?
            .to_vec();
        Ok((shape, vals))
    }

    /// A scalar member of a struct that is not a variable (`f().x`).
    pub(super) fn member_of_value(&mut self, n: Node<'t>, out: &mut Block) -> Res<Expr> {
        match self.member_values(n, out)? {
            (Shape::Scalar(_), vals) if vals.len() == 1 => Ok(vals[0].clone()),
            _ => Err(self.unsup(n, "struct value used as a number")),
        }
    }

    /// Lowers an expression of struct type: its struct and the values of
    /// its leaves (stable: variable reads or temporaries).
    pub(super) fn struct_value(&mut self, n: Node<'t>, out: &mut Block) -> Res<(usize, Vec<Expr>)> {
        let span = self.sp(n);
        match n.kind() {
            "parenthesized_expression" => match kids(n).first() {
                Some(k) => self.struct_value(*k, out),
                None => Err(self.unsup(n, "empty parentheses")),
            },
            "identifier" | "field_expression" => match self.member(n)? {
                Some(Member::Whole(a)) => Ok((a.sid, self.reads(&a, span))),
                Some(Member::Scalar(..)) => {
                    Err(self.unsup(n, "a number where a struct is expected"))
                }
                None if n.kind() == "field_expression" => match self.member_values(n, out)? {
                    (Shape::Struct(inner), vals) => Ok((inner, vals)),
                    _ => Err(self.unsup(n, "a number where a struct is expected")),
                },
                None => Err(self.unsup(n, "a number where a struct is expected")),
            },
            "call_expression" => self.struct_call(n, out),
            "assignment_expression" => self.struct_assign(n, out),
            "comma_expression" => {
                self.effect(self.field(n, "left")?, out)?;
                self.struct_value(self.field(n, "right")?, out)
            }
            "initializer_list" | "compound_literal_expression" => {
                Err(self.unsup(n, "brace initialiser for a struct"))
            }
            "conditional_expression" => Err(self.unsup(n, "conditional expression of struct type")),
            _ => Err(self.unsup(n, "a number where a struct is expected")),
        }
    }

    /// `a = b` for a struct `a`: copies every leaf; the value is `a`'s.
    pub(super) fn struct_assign(
        &mut self,
        n: Node<'t>,
        out: &mut Block,
    ) -> Res<(usize, Vec<Expr>)> {
        let span = self.sp(n);
        let left = self.field(n, "left")?;
        let Some(Member::Whole(target)) = self.member(left)? else {
            return Err(self.unsup(left, "assignment of a struct to a non-struct"));
        };
        if self.text(self.field(n, "operator")?) != "=" {
            return Err(self.unsup(n, "compound assignment to a struct"));
        }
        let right = self.field(n, "right")?;
        let (sid, vals) = self.struct_value(right, out)?;
        self.same_struct(target.sid, sid, right)?;
        self.store_leaves(&target.leaves, vals, span, out);
        Ok((target.sid, self.reads(&target, span)))
    }

    pub(super) fn same_struct(&self, want: usize, got: usize, n: Node<'t>) -> Res<()> {
        if want != got {
            return Err(self.unsup(
                n,
                format!(
                    "struct {} where struct {} is expected",
                    self.file.structs.name(got),
                    self.file.structs.name(want)
                ),
            ));
        }
        Ok(())
    }

    /// Assigns `vals` to the leaf places, in order. The values are stable
    /// reads, but a read of one of the places written earlier would see the
    /// new value (`a = a` aside, only a self-overlapping copy like
    /// `s.inner = s` could do that, which C's types forbid).
    pub(super) fn store_leaves(
        &mut self,
        places: &[Place],
        vals: Vec<Expr>,
        span: Span,
        out: &mut Block,
    ) {
        for (p, v) in places.iter().zip(vals) {
            out.push(Stmt {
                kind: StmtKind::Assign {
                    place: p.clone(),
                    value: v,
                },
                span,
            });
        }
    }

    /// A call of a file function that returns a struct: the call, then the
    /// return slots copied to temporaries.
    fn struct_call(&mut self, n: Node<'t>, out: &mut Block) -> Res<(usize, Vec<Expr>)> {
        let span = self.sp(n);
        let f = self.field(n, "function")?;
        let name = self.text(f);
        let returned = self
            .file
            .fn_map
            .get(name)
            .and_then(|id| self.file.sigs.get(id.0 as usize))
            .and_then(|s| s.ret_struct.map(|sid| (sid, s.ret_slots.clone())));
        let Some((sid, slots)) = returned else {
            if self.file.prototypes.contains_key(name) {
                return Err(self.unsup(
                    n,
                    format!("call to {name}, a function outside the file, returning a struct"),
                ));
            }
            return Err(self.unsup(n, "a number where a struct is expected"));
        };
        self.call(n, out, false)?;
        let tys = self
            .file
            .structs
            .leaves(sid)
            .map_err(|why| self.unsup(n, why))?;
        let mut vals = Vec::new();
        for (g, (_, ty)) in slots.iter().zip(tys) {
            let read = self.read_place(&Place::Global(*g), &ty, span);
            vals.push(self.fun.temp_of(read, out));
        }
        Ok((sid, vals))
    }

    /// A local declaration of struct type: `S a, b = f(x);`.
    pub(super) fn struct_declaration(
        &mut self,
        n: Node<'t>,
        sid: usize,
        out: &mut Block,
    ) -> Res<()> {
        let mut c = n.walk();
        let decls: Vec<Node<'t>> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let (decl, init) = if d.kind() == "init_declarator" {
                (self.field(d, "declarator")?, d.child_by_field_name("value"))
            } else {
                (d, None)
            };
            let span = self.sp(decl);
            match decl.kind() {
                "identifier" => {}
                "array_declarator" => return Err(self.unsup(decl, "array of structs")),
                "pointer_declarator" => return Err(self.unsup(decl, "pointer to struct")),
                other => return Err(self.unsup(decl, other.replace('_', " "))),
            }
            // The initialiser is evaluated before the variable exists.
            let vals = match init {
                Some(i) => {
                    let (got, vals) = self.struct_value(i, out)?;
                    self.same_struct(sid, got, i)?;
                    vals
                }
                None => {
                    // Indeterminate in C; zeroed, as scalars are.
                    let leaves = self
                        .file
                        .structs
                        .leaves(sid)
                        .map_err(|why| self.unsup(decl, why))?;
                    let mut vals = Vec::new();
                    for (_, ty) in leaves {
                        vals.push(zero(&ty, span).ok_or_else(|| self.unsup(decl, "field type"))?);
                    }
                    vals
                }
            };
            let ids = self.declare_struct(self.text(decl), sid, LocalKind::Var, span)?;
            let places: Vec<Place> = ids.into_iter().map(Place::Local).collect();
            self.store_leaves(&places, vals, span, out);
        }
        Ok(())
    }

    /// `return e;` in a function returning a struct: the slots get `e`'s
    /// leaves.
    pub(super) fn struct_return(
        &mut self,
        n: Node<'t>,
        sid: usize,
        slots: &[GlobalId],
        out: &mut Block,
    ) -> Res<()> {
        let span = self.sp(n);
        let Some(v) = kids(n).into_iter().next() else {
            return Err(self.unsup(n, "return without a value in a non-void function"));
        };
        let (got, vals) = self.struct_value(v, out)?;
        self.same_struct(sid, got, v)?;
        let places: Vec<Place> = slots.iter().map(|g| Place::Global(*g)).collect();
        self.store_leaves(&places, vals, span, out);
        out.push(Stmt {
            kind: StmtKind::Return(None),
            span,
        });
        Ok(())
    }
}
