//! Objects of *value classes*, lowered to their fields.
//!
//! The IR has scalars and arrays only. A class of the file is a value class
//! when its objects behave as values: it extends nothing and nothing in the
//! file extends it, has no instance initialiser block, its instance fields
//! are scalars, and no code in the file assigns an instance field outside
//! the class's own constructors and *mutators* (its instance methods that
//! assign their own object's fields). A call of a mutator is refused where
//! it is made, so no lowered run changes an object after construction;
//! then an object is fully described by its fields, and reference identity
//! is never observed by the supported uses, so a variable of that class
//! can be lowered to one local per field (`o.x`, `o.y`):
//! - `new C(args)` calls the constructor, lowered as a function whose fields
//!   are locals (defaults, then initialisers, then the body) and which
//!   returns them through return slots (globals `C().x`, see
//!   [`crate::ir::Global::return_of`]);
//! - `o.m(args)` calls a synthetic copy of instance method `m` whose first
//!   parameters are the object's fields (`this.x`), named `C.m`
//!   ([`crate::ir::FunctionDef::synthetic`]);
//! - a method returning an object writes its fields to its return slots;
//! - `o.f` reads a field; assigning a variable copies the fields;
//! - a non-final static field of the class is one global per field
//!   (`cs.real`, see [`crate::ir::Global::static_object`]).
//!
//! Refused, naming what and where: `null`, `==` on objects, objects passed
//! outside the file, printed, stored in arrays or instance fields, calls of
//! mutators, `static final` object fields, constructors calling
//! `this(...)`/`super(...)`, classes the file extends, and every other class
//! type. An object parameter of the checked method is taken to be non-null
//! and of exactly its class (a subclass from outside the file could
//! override the methods called), and a static object field non-null on
//! entry; the verdict says so.

use tree_sitter::Node;

use super::{
    Ctx, FnCx, R, Type, children_by_field, java_type, mk, named_children, span, st, unsupported,
};
use crate::ir::{
    Block, Expr, ExprKind, FuncId, Global, GlobalId, LocalId, LocalKind, Place, Span, StmtKind,
};

/// The object whose fields a function's `this.f` denotes.
#[derive(Clone)]
pub(super) struct ThisObject {
    pub class: usize,
    /// (field index in [`Ctx::fields`], local).
    pub leaves: Vec<(usize, LocalId)>,
    /// Lowering a constructor: fields are assignable, and every return
    /// hands them to the return slots.
    pub ctor: Option<Vec<GlobalId>>,
}

impl<'t> Ctx<'t> {
    /// Finds the value classes (module docs), then gives every method its
    /// object parameters and results, the constructors of value classes a
    /// body, instance methods their object-mode copies, and everything that
    /// returns an object its return slots.
    pub(super) fn find_value_classes(&mut self) {
        self.values = (0..self.classes.len())
            .map(|c| self.value_fields(c))
            .collect();
        if self.values.iter().all(Option::is_none) {
            return;
        }
        self.static_objects();
        // Signatures, now that object types are known.
        for i in 0..self.methods.len() {
            self.resolve_signature(i);
        }
        // Mutators: instance methods assigning their object's fields.
        for i in 0..self.methods.len() {
            let m = &self.methods[i];
            let Some(c) = m.class else { continue };
            let Some(fields) = self.values[c].as_ref() else {
                continue;
            };
            if m.is_static || m.is_ctor {
                continue;
            }
            let names: Vec<&str> = fields
                .iter()
                .map(|&f| self.fields[f].name.as_str())
                .collect();
            let mutates = self.assigns_field(m.node, true, false, &names);
            self.methods[i].mutates = mutates;
        }
        // Object-mode copies of instance methods.
        let count = self.methods.len();
        for i in 0..count {
            let m = &self.methods[i];
            let Some(c) = m.class else { continue };
            if m.is_static || m.is_ctor || self.values[c].is_none() {
                continue;
            }
            let copy = object_mode_copy(m, format!("{}.{}", self.classes[c].name, m.name));
            let idx = self.methods.len();
            self.methods.push(copy);
            self.methods[i].variant = Some(idx);
        }
        // Return slots.
        for i in 0..self.methods.len() {
            let m = &self.methods[i];
            let class = match (m.is_ctor, m.class, m.ret_class) {
                (true, Some(c), _) if self.values[c].is_some() => c,
                (_, _, Some(c)) => c,
                _ => continue,
            };
            let name = m.name.clone();
            let fields = self.values[class].clone().unwrap_or_default();
            let mut slots = Vec::new();
            for fi in fields {
                let (fname, ty) = match &self.fields[fi] {
                    super::FieldInfo {
                        name, ty: Ok(t), ..
                    } => (name.clone(), t.clone()),
                    _ => continue,
                };
                self.globals.push(Global {
                    name: format!("{name}().{fname}"),
                    ty,
                    constant: None,
                    return_of: Some(name.clone()),
                    static_object: None,
                    uncomputed: false,
                    origin: None,
                    initial: None,
                    declared_len: None,
                    file_local: false,
                    span: self.methods[i].name_span,
                });
                slots.push(GlobalId((self.globals.len() - 1) as u32));
            }
            self.methods[i].ret_slots = slots;
        }
    }

    /// Gives each non-final static field of a value class type one global
    /// per field of its object (`cs.real`): assigning the field copies an
    /// object's fields into them, reading it reads them. As objects of a
    /// value class never change after construction, this is exact — but
    /// for `null`, which the entry value is assumed not to be (the verdict
    /// says so). A `static final` one stays unsupported: its fixed
    /// initialiser is not an input, and constant objects are not modelled.
    fn static_objects(&mut self) {
        for fi in 0..self.fields.len() {
            let f = &self.fields[fi];
            if !f.is_static || f.is_final || f.ty.is_ok() {
                continue;
            }
            let Some(c) = f.type_node.and_then(|t| self.value_class_of(t)) else {
                continue;
            };
            let Some(leaves) = self.values[c].clone() else {
                continue;
            };
            let (name, sp) = (f.name.clone(), f.span);
            let mut globals = Vec::new();
            for leaf in leaves {
                let Ok(ty) = self.fields[leaf].ty.clone() else {
                    continue;
                };
                let mut gname = format!("{name}.{}", self.fields[leaf].name);
                if self.globals.iter().any(|g| g.name == gname) {
                    let owner = self.fields[fi].class.and_then(|k| self.classes.get(k));
                    gname = format!("{}.{gname}", owner.map_or("?", |k| k.name.as_str()));
                }
                self.globals.push(Global {
                    name: gname,
                    ty,
                    constant: None,
                    return_of: None,
                    static_object: Some(name.clone()),
                    uncomputed: false,
                    origin: None,
                    initial: None,
                    declared_len: None,
                    file_local: false,
                    span: sp,
                });
                globals.push(GlobalId((self.globals.len() - 1) as u32));
            }
            self.fields[fi].object = Some((c, globals));
        }
    }

    /// The fields of class `c`'s objects when it is a value class.
    fn value_fields(&self, c: usize) -> Option<Vec<usize>> {
        let class = self.classes.get(c)?;
        // A subclass could override the methods we inline for the class.
        let extended = self
            .classes
            .iter()
            .any(|k| k.superclass.as_deref() == Some(class.name.as_str()));
        if class.superclass.is_some() || class.has_initializer || extended {
            return None;
        }
        let mut leaves = Vec::new();
        for (i, f) in self.fields.iter().enumerate() {
            if f.class != Some(c) || f.is_static {
                continue;
            }
            let ty = f.ty.as_ref().ok()?;
            if !matches!(ty, Type::Bool | Type::Int(_) | Type::Float(_)) {
                return None;
            }
            let constant = f
                .global
                .and_then(|g| self.globals.get(g.0 as usize))
                .is_some_and(|g| g.constant.is_some());
            if !constant {
                leaves.push(i);
            }
        }
        if leaves.is_empty() {
            return None;
        }
        let names: Vec<&str> = leaves
            .iter()
            .map(|&i| self.fields[i].name.as_str())
            .collect();
        let writes_outside = self.methods.iter().any(|m| {
            let own = m.class == Some(c);
            if own && m.is_ctor {
                return false;
            }
            // A *mutator* — an instance method of the class assigning only
            // its own object's fields (`f = …`, `this.f = …`) — leaves the
            // class a value class: its object-mode copy refuses those
            // assignments, so every call of it is `unsupported` and no
            // lowered run ever changes an object after construction.
            let mutator = own && !m.is_static;
            self.assigns_field(m.node, self.within(m.class, c), mutator, &names)
        });
        (!writes_outside).then_some(leaves)
    }

    /// Whether class `inner` is class `c` or nested in it (its code can
    /// name `c`'s fields bare).
    fn within(&self, inner: Option<usize>, c: usize) -> bool {
        let mut k = inner;
        for _ in 0..=self.classes.len() {
            match k {
                Some(i) if i == c => return true,
                Some(i) => k = self.classes.get(i).and_then(|x| x.outer),
                None => return false,
            }
        }
        false
    }

    /// Whether the code under `n` assigns one of the fields `names`: as
    /// `x.f` anywhere (except `this.f` when `this_ok`), or as a bare `f`
    /// when `inside` the class and not `this_ok` (a local of the same name
    /// counts too: the test errs on the safe side).
    fn assigns_field(&self, n: Node, inside: bool, this_ok: bool, names: &[&str]) -> bool {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            let target = match n.kind() {
                "assignment_expression" => n.child_by_field_name("left"),
                "update_expression" => named_children(n).into_iter().next(),
                _ => None,
            };
            if let Some(t) = target {
                let hit = match t.kind() {
                    "identifier" => inside && !this_ok && names.contains(&self.text(t)),
                    "field_access" => {
                        let of_this = t
                            .child_by_field_name("object")
                            .is_some_and(|o| o.kind() == "this");
                        !(this_ok && of_this)
                            && t.child_by_field_name("field")
                                .is_some_and(|f| names.contains(&self.text(f)))
                    }
                    _ => false,
                };
                if hit {
                    return true;
                }
            }
            stack.extend(named_children(n));
        }
        false
    }

    /// The class `t` names, if it is a value class.
    pub(super) fn value_class_of(&self, t: Node) -> Option<usize> {
        if t.kind() != "type_identifier" {
            return None;
        }
        let c = self.class_named(self.text(t))?;
        self.values.get(c)?.as_ref().map(|_| c)
    }

    /// Recomputes method `i`'s parameters and result with object types.
    fn resolve_signature(&mut self, i: usize) {
        let m = &self.methods[i];
        let n = m.node;
        let mut classes = Vec::new();
        let mut params: R<Vec<(String, Type, Span)>> = Ok(Vec::new());
        if let Some(ps) = n.child_by_field_name("parameters") {
            for p in named_children(ps) {
                if p.kind() == "spread_parameter" {
                    // An array parameter; arrays of objects are refused
                    // (java_type does not know the class).
                    let (name, ty) = super::spread_param(self.src, p);
                    let name = name.map(|c| self.text(c).to_string()).unwrap_or_default();
                    match (ty, &mut params) {
                        (Ok(t), Ok(v)) => {
                            v.push((name, t, span(p)));
                            classes.push(None);
                        }
                        (Err(e), Ok(_)) => {
                            params = Err(unsupported(p, e.describe(super::Role::Param)))
                        }
                        _ => {}
                    }
                    continue;
                }
                if p.kind() != "formal_parameter" {
                    continue;
                }
                let name = p
                    .child_by_field_name("name")
                    .map(|c| self.text(c).to_string())
                    .unwrap_or_default();
                let tnode = p.child_by_field_name("type");
                let object = tnode
                    .and_then(|t| self.value_class_of(t))
                    .filter(|_| p.child_by_field_name("dimensions").is_none());
                let ty = match (object, tnode) {
                    (Some(_), _) => Ok(Type::Void),
                    (None, Some(t)) => java_type(self.src, t)
                        .and_then(|t| {
                            super::add_dims(t, p.child_by_field_name("dimensions"), self.src)
                        })
                        .map_err(|e| unsupported(p, e.describe(super::Role::Param))),
                    (None, None) => Err(unsupported(p, "parameter")),
                };
                match (ty, &mut params) {
                    (Ok(t), Ok(v)) => {
                        v.push((name, t, span(p)));
                        classes.push(object);
                    }
                    (Err(e), Ok(_)) => params = Err(e),
                    _ => {}
                }
            }
        }
        let mut ret_class = None;
        let ret = match n.child_by_field_name("type") {
            Some(t) => match self.value_class_of(t) {
                Some(c) if n.child_by_field_name("dimensions").is_none() => {
                    ret_class = Some(c);
                    Ok(Type::Void)
                }
                _ => m.ret.clone(),
            },
            None if m.is_ctor
                && m.class
                    .is_some_and(|c| self.values.get(c).is_some_and(Option::is_some)) =>
            {
                Ok(Type::Void)
            }
            None => m.ret.clone(),
        };
        let m = &mut self.methods[i];
        m.params = params;
        m.param_classes = classes;
        m.ret = ret;
        m.ret_class = ret_class;
    }
}

/// The object-mode copy of instance method `m`, named `name`: the same
/// body, lowered with the object's fields as leading parameters.
fn object_mode_copy<'t>(m: &super::MethodInfo<'t>, name: String) -> super::MethodInfo<'t> {
    super::MethodInfo {
        class: m.class,
        name,
        name_span: m.name_span,
        arity: m.arity,
        varargs: m.varargs,
        text_params: m.text_params.clone(),
        node: m.node,
        params: m.params.clone(),
        ret: m.ret.clone(),
        is_static: false,
        is_ctor: false,
        param_classes: m.param_classes.clone(),
        ret_class: m.ret_class,
        ret_slots: Vec::new(),
        object_mode: true,
        variant: None,
        mutates: m.mutates,
    }
}

impl<'c, 't> FnCx<'c, 't> {
    /// Sets up `this` for a constructor of a value class (fields are locals
    /// set to their defaults, then to their initialisers) or for an
    /// object-mode copy (fields are the first parameters).
    pub(super) fn enter_object(
        &mut self,
        m: &super::MethodInfo<'t>,
        params: &mut Vec<LocalId>,
        out: &mut Block,
    ) -> R<()> {
        let Some(c) = m.class else { return Ok(()) };
        let Some(fields) = self.cx.values.get(c).cloned().flatten() else {
            return Ok(());
        };
        if !m.is_ctor && !m.object_mode {
            return Ok(());
        }
        let mut leaves = Vec::new();
        for &fi in &fields {
            let f = &self.cx.fields[fi];
            let ty = f.ty.clone().map_err(|_| super::internal("field type"))?;
            let kind = if m.is_ctor {
                LocalKind::Var
            } else {
                LocalKind::Param
            };
            let id = self
                .fun
                .declare(&format!("this.{}", f.name), ty, kind, m.name_span);
            leaves.push((fi, id));
            if m.object_mode {
                params.push(id);
            }
        }
        self.this_obj = Some(ThisObject {
            class: c,
            leaves: leaves.clone(),
            ctor: m.is_ctor.then(|| m.ret_slots.clone()),
        });
        if m.is_ctor {
            // Defaults first, then the initialisers in textual order.
            for (_, id) in &leaves {
                let ty = self.fun.local_ty(*id);
                let zero = zero_of(&ty, m.name_span)?;
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(*id),
                        value: zero,
                    },
                    m.name_span,
                ));
            }
            for (fi, id) in &leaves {
                if let Some(init) = self.cx.fields[*fi].init {
                    let ty = self.fun.local_ty(*id);
                    let v = self.initializer(init, &ty, out)?;
                    out.push(st(
                        StmtKind::Assign {
                            place: Place::Local(*id),
                            value: v,
                        },
                        span(init),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The end of a constructor (and every `return` in it): the object's
    /// fields go to the return slots.
    pub(super) fn ctor_result(&self, sp: Span, out: &mut Block) {
        let Some(ThisObject {
            leaves,
            ctor: Some(slots),
            ..
        }) = &self.this_obj
        else {
            return;
        };
        for ((_, id), g) in leaves.iter().zip(slots) {
            let v = mk(ExprKind::Local(*id), self.fun.local_ty(*id), sp);
            out.push(st(
                StmtKind::Assign {
                    place: Place::Global(*g),
                    value: v,
                },
                sp,
            ));
        }
    }

    /// The local for field `name` of the current object, if `class` is its
    /// class and `name` one of its fields.
    pub(super) fn this_field(&self, class: Option<usize>, name: &str) -> Option<LocalId> {
        let this = self.this_obj.as_ref()?;
        if class != Some(this.class) {
            return None;
        }
        this.leaves
            .iter()
            .find(|(fi, _)| self.cx.fields[*fi].name == name)
            .map(|(_, id)| *id)
    }

    /// Whether the current function may assign its object's fields.
    pub(super) fn in_constructor(&self) -> bool {
        self.this_obj.as_ref().is_some_and(|t| t.ctor.is_some())
    }

    /// Declares object variable (or parameter) `name` of value class `c`.
    pub(super) fn declare_object(
        &mut self,
        name: &str,
        c: usize,
        kind: LocalKind,
        sp: Span,
    ) -> R<Vec<LocalId>> {
        let fields = self
            .cx
            .values
            .get(c)
            .cloned()
            .flatten()
            .ok_or_else(|| super::internal("value class"))?;
        let mut ids = Vec::new();
        for fi in fields {
            let f = &self.cx.fields[fi];
            let ty = f.ty.clone().map_err(|_| super::internal("field type"))?;
            ids.push(
                self.fun
                    .declare(&format!("{name}.{}", f.name), ty, kind.clone(), sp),
            );
        }
        if let Some(s) = self.objects.last_mut() {
            s.push((name.to_string(), c, ids.clone()));
        }
        Ok(ids)
    }

    /// The object variable `name` denotes: its class and field locals.
    pub(super) fn lookup_object(&self, name: &str) -> Option<(usize, Vec<LocalId>)> {
        self.objects
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _, _)| n == name)
            .map(|(_, c, ids)| (*c, ids.clone()))
    }

    /// The static field `name` denotes as seen from the current method,
    /// when it holds an object of a value class (and no local or field of
    /// the current object shadows it): its class and globals.
    pub(super) fn lookup_static_object(&self, name: &str) -> Option<(usize, Vec<GlobalId>)> {
        if self.fun.lookup(name).is_some()
            || self.lookup_object(name).is_some()
            || self.this_field(self.class, name).is_some()
        {
            return None;
        }
        self.cx.field(self.class, name)?.object.clone()
    }

    fn global_reads(&self, globals: &[GlobalId], sp: Span) -> Vec<Expr> {
        globals
            .iter()
            .map(|g| {
                let ty = self
                    .cx
                    .globals
                    .get(g.0 as usize)
                    .map_or(Type::Void, |g| g.ty.clone());
                mk(ExprKind::Global(*g), ty, sp)
            })
            .collect()
    }

    /// Refuses an object of class `got` where one of class `want` goes.
    fn same_class(&self, got: usize, want: usize, n: Node) -> R<()> {
        if got == want {
            return Ok(());
        }
        Err(unsupported(
            n,
            format!(
                "object of class {} where {} is expected",
                self.class_name(got),
                self.class_name(want)
            ),
        ))
    }

    fn class_name(&self, c: usize) -> &str {
        self.cx.classes.get(c).map_or("?", |k| k.name.as_str())
    }

    fn reads(&self, ids: &[LocalId], sp: Span) -> Vec<Expr> {
        ids.iter()
            .map(|id| mk(ExprKind::Local(*id), self.fun.local_ty(*id), sp))
            .collect()
    }

    /// Field `fname` of object variable `ids` of class `c`.
    pub(super) fn object_field(
        &self,
        n: Node,
        c: usize,
        ids: &[LocalId],
        fname: &str,
    ) -> R<LocalId> {
        let i = self.field_position(n, c, fname)?;
        ids.get(i)
            .copied()
            .ok_or_else(|| super::internal("object field"))
    }

    /// Field `fname` of the object static field `globals` (of class `c`)
    /// refers to.
    pub(super) fn static_object_field(
        &self,
        n: Node,
        c: usize,
        globals: &[GlobalId],
        fname: &str,
    ) -> R<Expr> {
        let i = self.field_position(n, c, fname)?;
        let g = globals
            .get(i)
            .copied()
            .ok_or_else(|| super::internal("object field"))?;
        let ty = self
            .cx
            .globals
            .get(g.0 as usize)
            .map_or(Type::Void, |g| g.ty.clone());
        Ok(mk(ExprKind::Global(g), ty, span(n)))
    }

    /// The position of field `fname` among the fields of class `c`'s
    /// objects.
    fn field_position(&self, n: Node, c: usize, fname: &str) -> R<usize> {
        let fields = self.cx.values.get(c).cloned().flatten().unwrap_or_default();
        fields
            .iter()
            .position(|fi| self.cx.fields[*fi].name == fname)
            .ok_or_else(|| {
                unsupported(
                    n,
                    format!("field {fname} of an object of class {}", self.class_name(c)),
                )
            })
    }

    /// Lowers an expression whose value is an object: its class and the
    /// values of its fields (stable: variable reads or temporaries).
    pub(super) fn object_value(&mut self, n: Node, out: &mut Block) -> R<(usize, Vec<Expr>)> {
        let sp = span(n);
        match n.kind() {
            "parenthesized_expression" => match named_children(n).first() {
                Some(k) => self.object_value(*k, out),
                None => Err(unsupported(n, "empty parentheses")),
            },
            "identifier" => {
                let name = self.text(n);
                if let Some((c, ids)) = self.lookup_object(name) {
                    return Ok((c, self.reads(&ids, sp)));
                }
                match self.lookup_static_object(name) {
                    Some((c, globals)) => Ok((c, self.global_reads(&globals, sp))),
                    None => Err(unsupported(n, "a value where an object is expected")),
                }
            }
            "this" => match &self.this_obj {
                Some(t) => {
                    let ids: Vec<LocalId> = t.leaves.iter().map(|(_, id)| *id).collect();
                    Ok((t.class, self.reads(&ids, sp)))
                }
                None => Err(unsupported(n, "use of this as a value")),
            },
            "object_creation_expression" => self.creation(n, out),
            "method_invocation" => {
                let (c, slots) = self.object_call(n, out, true)?;
                let c = c.ok_or_else(|| unsupported(n, "a value where an object is expected"))?;
                Ok((c, self.copy_slots(&slots, sp, out)))
            }
            "assignment_expression" => self.object_assign(n, out),
            "null_literal" => Err(unsupported(n, "null")),
            "ternary_expression" => Err(unsupported(n, "conditional expression of object type")),
            _ => Err(unsupported(n, "a value where an object is expected")),
        }
    }

    /// Reads return slots into temporaries, right after the call.
    fn copy_slots(&mut self, slots: &[GlobalId], sp: Span, out: &mut Block) -> Vec<Expr> {
        slots
            .iter()
            .map(|g| {
                let ty = self
                    .cx
                    .globals
                    .get(g.0 as usize)
                    .map_or(Type::Void, |g| g.ty.clone());
                let read = mk(ExprKind::Global(*g), ty, sp);
                self.fun.spill(read, out)
            })
            .collect()
    }

    /// `new C(args)` for a value class `C`.
    fn creation(&mut self, n: Node, out: &mut Block) -> R<(usize, Vec<Expr>)> {
        let sp = span(n);
        let Some(c) = n
            .child_by_field_name("type")
            .and_then(|t| self.cx.value_class_of(t))
        else {
            return Err(self.object_creation(n));
        };
        if n.child_by_field_name("body").is_some()
            || named_children(n).iter().any(|k| k.kind() == "class_body")
        {
            return Err(unsupported(n, "anonymous class"));
        }
        let args: Vec<Node> = n
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        let ctors: Vec<usize> = self
            .cx
            .methods
            .iter()
            .enumerate()
            .filter(|(_, m)| m.is_ctor && m.class == Some(c) && m.arity == args.len())
            .map(|(i, _)| i)
            .collect();
        let pick = match ctors.as_slice() {
            [one] => *one,
            [] if args.is_empty()
                && !self
                    .cx
                    .methods
                    .iter()
                    .any(|m| m.is_ctor && m.class == Some(c)) =>
            {
                return Err(unsupported(
                    n,
                    format!("default constructor of {}", self.class_name(c)),
                ));
            }
            [] => {
                return Err(unsupported(
                    n,
                    format!(
                        "no constructor of {} takes {} arguments",
                        self.class_name(c),
                        args.len()
                    ),
                ));
            }
            _ => {
                return Err(unsupported(
                    n,
                    format!("overloaded constructors of {}", self.class_name(c)),
                ));
            }
        };
        let vals = self.call_args(n, pick, &args, out)?;
        out.push(st(
            StmtKind::Call {
                dest: None,
                func: FuncId(pick as u32),
                args: vals,
            },
            sp,
        ));
        let slots = self.cx.methods[pick].ret_slots.clone();
        Ok((c, self.copy_slots(&slots, sp, out)))
    }

    /// Arguments for method `callee`: objects as their fields, scalars
    /// converted to the parameter types; earlier values are kept past the
    /// statements later arguments lift.
    pub(super) fn call_args(
        &mut self,
        n: Node,
        callee: usize,
        args: &[Node],
        out: &mut Block,
    ) -> R<Vec<Expr>> {
        let m = &self.cx.methods[callee];
        let params = m.params.clone().map_err(|_| {
            unsupported(
                n,
                format!("call to {}, whose signature is unsupported", m.name),
            )
        })?;
        let classes = m.param_classes.clone();
        let mut vals: Vec<Expr> = Vec::new();
        for (i, (a, (_, ty, _))) in args.iter().zip(&params).enumerate() {
            let mut b = Vec::new();
            let these = match classes.get(i).copied().flatten() {
                Some(c) => {
                    let (got, v) = self.object_value(*a, &mut b)?;
                    self.same_class(got, c, *a)?;
                    v
                }
                None => {
                    let e = self.expr(*a, &mut b)?;
                    vec![self.convert(e, ty, *a)?]
                }
            };
            self.fun.keep_before(&mut vals, b, out);
            vals.extend(these);
        }
        Ok(vals)
    }

    /// `recv.m(args)` where `recv` is an object, or `m(args)`/`this.m(args)`
    /// inside an object-mode method or constructor: a call of `m`'s
    /// object-mode copy. `None` when `n` is not such a call. Returns the
    /// class of the object the method returns (with its slots) or the
    /// scalar result.
    pub(super) fn object_call(
        &mut self,
        n: Node,
        out: &mut Block,
        want: bool,
    ) -> R<(Option<usize>, Vec<GlobalId>)> {
        match self.object_call_inner(n, out, want)? {
            Some(ObjectCall::Object(c, slots)) => Ok((Some(c), slots)),
            Some(ObjectCall::Scalar(_)) => {
                Err(unsupported(n, "a value where an object is expected"))
            }
            None => self.static_object_call(n, out),
        }
    }

    /// A call of a static method (or one named through its class) that
    /// returns an object.
    fn static_object_call(
        &mut self,
        n: Node,
        out: &mut Block,
    ) -> R<(Option<usize>, Vec<GlobalId>)> {
        let sp = span(n);
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x))
            .unwrap_or("");
        let args: Vec<Node> = n
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        let class = match n.child_by_field_name("object") {
            None => None,
            Some(o) if o.kind() == "identifier" => self.cx.class_named(self.text(o)),
            Some(_) => return Err(unsupported(n, "a value where an object is expected")),
        };
        let cands: Vec<usize> = self
            .candidates(class, name, args.len())
            .into_iter()
            .filter(|&i| self.cx.methods[i].ret_class.is_some())
            .collect();
        let [pick] = cands.as_slice() else {
            return Err(unsupported(n, "a value where an object is expected"));
        };
        let pick = *pick;
        let vals = self.call_args(n, pick, &args, out)?;
        out.push(st(
            StmtKind::Call {
                dest: None,
                func: FuncId(pick as u32),
                args: vals,
            },
            sp,
        ));
        let m = &self.cx.methods[pick];
        Ok((m.ret_class, m.ret_slots.clone()))
    }

    /// Lowers `n` if it is a call on an object (see [`Self::object_call`]).
    pub(super) fn object_call_inner(
        &mut self,
        n: Node,
        out: &mut Block,
        want: bool,
    ) -> R<Option<ObjectCall>> {
        let sp = span(n);
        let Some(name_node) = n.child_by_field_name("name") else {
            return Ok(None);
        };
        let name = self.text(name_node).to_string();
        let args: Vec<Node> = n
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        let obj = n.child_by_field_name("object");
        let Some((c, recv)) = self.call_receiver(obj, out)? else {
            return Ok(None);
        };
        let Some(pick) = self.object_method(n, c, &name, args.len(), obj.is_none())? else {
            return Ok(None);
        };
        let m = &self.cx.methods[pick];
        if m.is_static {
            // A static method named through an object, or an unqualified
            // static call: a plain call.
            return Ok(None);
        }
        if m.mutates {
            return Err(unsupported(
                n,
                format!(
                    "call to {name}, which changes its object (objects are modelled as values)"
                ),
            ));
        }
        let Some(variant) = m.variant else {
            return Err(unsupported(n, format!("call to method {name}")));
        };
        let recv = match recv {
            Some(v) => v,
            None => {
                let ids: Vec<LocalId> = self
                    .this_obj
                    .as_ref()
                    .map(|t| t.leaves.iter().map(|(_, id)| *id).collect())
                    .unwrap_or_default();
                self.reads(&ids, sp)
            }
        };
        let ret = m.ret.clone();
        let ret_class = m.ret_class;
        let mut vals = recv;
        let mut b = Vec::new();
        let rest = self.call_args(n, variant, &args, &mut b)?;
        self.fun.keep_before(&mut vals, b, out);
        vals.extend(rest);
        let call = VariantCall {
            n,
            name: &name,
            variant,
            ret,
            ret_class,
            args: vals,
        };
        self.variant_call(call, want, out).map(Some)
    }

    /// The receiver of a call on an object, `None` if it is not one: the
    /// class and, for an object expression, its field values (`None` for
    /// the current object, implicit or `this`).
    fn call_receiver(
        &mut self,
        obj: Option<Node>,
        out: &mut Block,
    ) -> R<Option<(usize, Option<Vec<Expr>>)>> {
        Ok(Some(match obj {
            None => match &self.this_obj {
                Some(t) => (t.class, None),
                None => return Ok(None),
            },
            Some(o) if o.kind() == "this" => match &self.this_obj {
                Some(t) => (t.class, None),
                None => return Ok(None),
            },
            Some(o) if self.is_object_expr(o) => {
                let (c, vals) = self.object_value(o, out)?;
                (c, Some(vals))
            }
            Some(_) => return Ok(None),
        }))
    }

    /// The one method `name` of class `c` taking `arity` arguments, or
    /// `None` (an unqualified call, `implicit`, to a method the class does
    /// not have is not a call on the object).
    fn object_method(
        &self,
        n: Node,
        c: usize,
        name: &str,
        arity: usize,
        implicit: bool,
    ) -> R<Option<usize>> {
        let cands: Vec<usize> = self
            .cx
            .methods
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                m.class == Some(c)
                    && m.name == name
                    && m.arity == arity
                    && !m.is_ctor
                    && !m.object_mode
            })
            .map(|(i, _)| i)
            .collect();
        match cands.as_slice() {
            [one] => Ok(Some(*one)),
            [] if implicit => Ok(None),
            [] => Err(unsupported(
                n,
                format!(
                    "call to unknown method {name} of class {}",
                    self.class_name(c)
                ),
            )),
            _ => Err(unsupported(
                n,
                format!(
                    "call to overloaded method {name} of class {}",
                    self.class_name(c)
                ),
            )),
        }
    }

    /// Emits the call of an object-mode copy: its result is an object's
    /// return slots, a scalar (when `want`) or nothing.
    fn variant_call(&mut self, call: VariantCall, want: bool, out: &mut Block) -> R<ObjectCall> {
        let VariantCall {
            n,
            name,
            variant,
            ret,
            ret_class,
            args: vals,
        } = call;
        let sp = span(n);
        let func = FuncId(variant as u32);
        if let Some(rc) = ret_class {
            out.push(st(
                StmtKind::Call {
                    dest: None,
                    func,
                    args: vals,
                },
                sp,
            ));
            let slots = self.cx.methods[variant].ret_slots.clone();
            return Ok(ObjectCall::Object(rc, slots));
        }
        let ret = ret.map_err(|e| e.clone())?;
        if want && ret != Type::Void {
            let t = self.fun.temp(ret.clone(), sp);
            out.push(st(
                StmtKind::Call {
                    dest: Some(Place::Local(t)),
                    func,
                    args: vals,
                },
                sp,
            ));
            return Ok(ObjectCall::Scalar(Some(mk(ExprKind::Local(t), ret, sp))));
        }
        if want {
            return Err(unsupported(
                n,
                format!("use of the result of void method {name}"),
            ));
        }
        out.push(st(
            StmtKind::Call {
                dest: None,
                func,
                args: vals,
            },
            sp,
        ));
        Ok(ObjectCall::Scalar(None))
    }

    /// Whether expression `n` has an object type (without lowering it).
    pub(super) fn is_object_expr(&self, n: Node) -> bool {
        match n.kind() {
            "parenthesized_expression" => named_children(n)
                .first()
                .is_some_and(|k| self.is_object_expr(*k)),
            "identifier" => {
                self.lookup_object(self.text(n)).is_some()
                    || self.lookup_static_object(self.text(n)).is_some()
            }
            "this" => self.this_obj.is_some(),
            "object_creation_expression" => n
                .child_by_field_name("type")
                .and_then(|t| self.cx.value_class_of(t))
                .is_some(),
            "method_invocation" => {
                let Some(name) = n.child_by_field_name("name").map(|x| self.text(x)) else {
                    return false;
                };
                let arity = n
                    .child_by_field_name("arguments")
                    .map_or(0, |a| named_children(a).len());
                self.cx.methods.iter().any(|m| {
                    m.name == name && m.arity == arity && m.ret_class.is_some() && !m.object_mode
                })
            }
            "assignment_expression" => n
                .child_by_field_name("left")
                .is_some_and(|l| self.is_object_variable(l)),
            _ => false,
        }
    }

    /// Whether `n` names a variable holding an object: a local, a
    /// parameter or a static field of a value class.
    pub(super) fn is_object_variable(&self, n: Node) -> bool {
        n.kind() == "identifier"
            && (self.lookup_object(self.text(n)).is_some()
                || self.lookup_static_object(self.text(n)).is_some())
    }

    /// `o = e` for an object variable `o`: copies the fields.
    pub(super) fn object_assign(&mut self, n: Node, out: &mut Block) -> R<(usize, Vec<Expr>)> {
        let sp = span(n);
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return Err(unsupported(n, "assignment"));
        };
        let name = self.text(left);
        let target = match (left.kind() == "identifier")
            .then(|| self.lookup_object(name))
            .flatten()
        {
            Some((c, ids)) => Some((c, ids.into_iter().map(Place::Local).collect::<Vec<_>>())),
            None => (left.kind() == "identifier")
                .then(|| self.lookup_static_object(name))
                .flatten()
                .map(|(c, gs)| (c, gs.into_iter().map(Place::Global).collect())),
        };
        let Some((c, places)) = target else {
            return Err(unsupported(left, "assignment of an object to this target"));
        };
        if n.child_by_field_name("operator").map(|o| self.text(o)) != Some("=") {
            return Err(unsupported(n, "compound assignment to an object"));
        }
        let (got, vals) = self.object_value(right, out)?;
        self.same_class(got, c, right)?;
        let mut reads = Vec::new();
        for (place, v) in places.into_iter().zip(vals) {
            let ty = v.ty.clone();
            reads.push(match &place {
                Place::Local(id) => mk(ExprKind::Local(*id), ty, sp),
                Place::Global(g) => mk(ExprKind::Global(*g), ty, sp),
                _ => return Err(super::internal("object field place")),
            });
            out.push(st(StmtKind::Assign { place, value: v }, sp));
        }
        Ok((c, reads))
    }

    /// `C a = e, b;` for a value class `C`.
    pub(super) fn object_decl(&mut self, n: Node, c: usize, out: &mut Block) -> R<()> {
        for d in children_by_field(n, "declarator") {
            let Some(name_node) = d.child_by_field_name("name") else {
                return Err(unsupported(d, "declarator"));
            };
            if d.child_by_field_name("dimensions").is_some() {
                return Err(unsupported(d, "array of objects"));
            }
            let sp = span(d);
            let vals = match d.child_by_field_name("value") {
                Some(v) => {
                    let (got, vals) = self.object_value(v, out)?;
                    self.same_class(got, c, v)?;
                    Some(vals)
                }
                None => None,
            };
            let name = self.text(name_node).to_string();
            let ids = self.declare_object(&name, c, LocalKind::Var, sp)?;
            // Java requires definite assignment before a read: an
            // uninitialised variable gets its fields' defaults.
            for (i, id) in ids.iter().enumerate() {
                let v = match &vals {
                    Some(v) => v
                        .get(i)
                        .cloned()
                        .ok_or_else(|| super::internal("field value"))?,
                    None => zero_of(&self.fun.local_ty(*id), sp)?,
                };
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(*id),
                        value: v,
                    },
                    sp,
                ));
            }
        }
        Ok(())
    }

    /// `return e;` in a method returning an object: the slots get `e`'s
    /// fields.
    pub(super) fn object_return(&mut self, n: Node, value: Node, out: &mut Block) -> R<()> {
        let sp = span(n);
        let Some((want, slots)) = self.ret_obj.clone() else {
            return Err(super::internal("object return"));
        };
        let (got, vals) = self.object_value(value, out)?;
        self.same_class(got, want, value)?;
        for (g, v) in slots.iter().zip(vals) {
            out.push(st(
                StmtKind::Assign {
                    place: Place::Global(*g),
                    value: v,
                },
                sp,
            ));
        }
        out.push(st(StmtKind::Return(None), sp));
        Ok(())
    }
}

/// What a call on an object gives.
pub(super) enum ObjectCall {
    /// An object of this class, in these return slots.
    Object(usize, Vec<GlobalId>),
    /// A scalar (or nothing).
    Scalar(Option<Expr>),
}

/// The default value of a field of type `ty`.
pub(super) fn zero_of(ty: &Type, sp: Span) -> R<Expr> {
    let kind = match ty {
        Type::Bool => ExprKind::BoolLit(false),
        Type::Int(_) => ExprKind::IntLit(0),
        Type::Float(_) => ExprKind::FloatLit(crate::ir::FloatLit {
            value: 0.0,
            text: "0".into(),
        }),
        _ => return Err(super::internal("default of a non-scalar field")),
    };
    Ok(mk(kind, ty.clone(), sp))
}

impl FnCx<'_, '_> {
    /// A call of a plain (static, or ordinary instance) method of the file
    /// that takes or returns objects: arguments through
    /// [`Self::call_args`], an object result through the return slots.
    pub(super) fn object_program_call(
        &mut self,
        n: Node,
        callee: usize,
        args: &[Node],
        out: &mut Block,
        want: bool,
    ) -> R<Option<Expr>> {
        let sp = span(n);
        let vals = self.call_args(n, callee, args, out)?;
        let m = &self.cx.methods[callee];
        if m.ret_class.is_some() {
            out.push(st(
                StmtKind::Call {
                    dest: None,
                    func: FuncId(callee as u32),
                    args: vals,
                },
                sp,
            ));
            if want {
                return Err(unsupported(n, "object used as a value"));
            }
            return Ok(None);
        }
        let ret = m.ret.clone()?;
        if want && ret != Type::Void {
            let t = self.fun.temp(ret.clone(), sp);
            out.push(st(
                StmtKind::Call {
                    dest: Some(Place::Local(t)),
                    func: FuncId(callee as u32),
                    args: vals,
                },
                sp,
            ));
            return Ok(Some(mk(ExprKind::Local(t), ret, sp)));
        }
        if want {
            return Err(unsupported(
                n,
                format!("use of the result of void method {}", m.name),
            ));
        }
        out.push(st(
            StmtKind::Call {
                dest: None,
                func: FuncId(callee as u32),
                args: vals,
            },
            sp,
        ));
        Ok(None)
    }
}

/// A call of an object-mode copy, its arguments lowered.
struct VariantCall<'n, 'a> {
    n: Node<'n>,
    name: &'a str,
    variant: usize,
    ret: R<Type>,
    ret_class: Option<usize>,
    args: Vec<Expr>,
}
