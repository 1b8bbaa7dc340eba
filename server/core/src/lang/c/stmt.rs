//! Statements and local declarations.

use tree_sitter::Node;

use crate::lang::lower::{bool_lit, not};

use super::expr::{const_int, int_lit, zero};
use super::types::{is_integer, promote};
use super::{ContTarget, Fx, Jump, Res, kids, storage_class};
use crate::ir::{
    BinOp, Block, Expr, ExprKind, IntTy, LocalKind, LoopKind, Place, Span, Stmt, StmtKind, Type,
};

pub(super) fn st(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

impl<'t> Fx<'t> {
    /// Lowers one statement, appending to `out`.
    pub(super) fn stmt(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        if self.depth >= super::MAX_DEPTH {
            return Err(self.unsup(n, "statement nested too deeply"));
        }
        self.depth += 1;
        let r = self.stmt_inner(n, out);
        self.depth -= 1;
        r
    }

    fn stmt_inner(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        let span = self.sp(n);
        match n.kind() {
            "compound_statement" => {
                let b = self.scoped_block(n)?;
                out.push(st(StmtKind::Block(b), span));
            }
            "declaration" => self.declaration(n, out)?,
            "expression_statement" => {
                if let Some(e) = kids(n).into_iter().next() {
                    self.effect(e, out)?;
                }
            }
            "if_statement" => {
                let c = self.cond(self.field(n, "condition")?, out)?;
                let then_branch = self.body(self.field(n, "consequence")?)?;
                let else_branch = match n.child_by_field_name("alternative") {
                    Some(alt) => match kids(alt).into_iter().next() {
                        Some(s) => self.body(s)?,
                        None => Vec::new(),
                    },
                    None => Vec::new(),
                };
                out.push(st(
                    StmtKind::If {
                        cond: c,
                        then_branch,
                        else_branch,
                    },
                    span,
                ));
            }
            "while_statement" => {
                let label = self.fun.label();
                let mut pre = Vec::new();
                let c = self.cond(self.field(n, "condition")?, &mut pre)?;
                self.jumps.push(Jump::Loop {
                    brk: label,
                    cont: ContTarget::Continue(label),
                });
                let body = self.body(self.field(n, "body")?);
                self.jumps.pop();
                out.push(crate::lang::lower::pre_tested_loop(
                    label,
                    pre,
                    c,
                    body?,
                    Vec::new(),
                    span,
                ));
            }
            "do_statement" => self.do_while(n, out)?,
            "for_statement" => {
                self.fun.push_scope();
                let r = self.for_loop(n, out);
                self.fun.pop_scope();
                r?;
            }
            "break_statement" => match self.jumps.last() {
                Some(Jump::Loop { brk, .. }) | Some(Jump::Switch { brk }) => {
                    out.push(st(StmtKind::Break(*brk), span))
                }
                None => return Err(self.unsup(n, "break outside a loop or switch")),
            },
            "continue_statement" => {
                let target = self.jumps.iter().rev().find_map(|j| match j {
                    Jump::Loop { cont, .. } => Some(*cont),
                    Jump::Switch { .. } => None,
                });
                match target {
                    Some(ContTarget::Continue(l)) => out.push(st(StmtKind::Continue(l), span)),
                    Some(ContTarget::Break(l)) => out.push(st(StmtKind::Break(l), span)),
                    None => return Err(self.unsup(n, "continue outside a loop")),
                }
            }
            "return_statement" => self.ret_stmt(n, out)?,
            "switch_statement" => self.switch(n, out)?,
            "goto_statement" => return Err(self.unsup(n, "goto statement")),
            "labeled_statement" => return Err(self.unsup(n, "labeled statement")),
            "case_statement" => {
                return Err(self.unsup(n, "case label outside the top level of a switch"));
            }
            "type_definition" => return Err(self.unsup(n, "typedef inside a function")),
            // `enum { A, B = A + 2 };` on its own: constants only.
            "enum_specifier" => match n.child_by_field_name("body") {
                Some(body) => self.local_enum(body)?,
                None => return Err(self.unsup(n, "enum specifier without a body")),
            },
            "struct_specifier" | "union_specifier" => {
                return Err(self.unsup(
                    n,
                    format!("{} inside a function", n.kind().replace('_', " ")),
                ));
            }
            "preproc_def"
            | "preproc_function_def"
            | "preproc_call"
            | "preproc_include"
            | "comment"
            | ";" => {}
            "ERROR" => {
                return Err(crate::ir::LowerError {
                    kind: crate::ir::LowerErrorKind::SyntaxError,
                    what: "syntax error".into(),
                    span,
                });
            }
            "function_definition" => return Err(self.unsup(n, "nested function")),
            other if other.starts_with("preproc_") => {
                return Err(self.unsup(n, "preprocessor conditional"));
            }
            other => return Err(self.unsup(n, other.replace('_', " "))),
        }
        Ok(())
    }

    /// A statement used as a body (`if`, loops): its own scope.
    fn body(&mut self, n: Node<'t>) -> Res<Block> {
        if n.kind() == "compound_statement" {
            return self.scoped_block(n);
        }
        self.fun.push_scope();
        let mut b = Vec::new();
        let r = self.stmt(n, &mut b);
        self.fun.pop_scope();
        r.map(|_| b)
    }

    fn scoped_block(&mut self, n: Node<'t>) -> Res<Block> {
        self.fun.push_scope();
        let mut b = Vec::new();
        let mut r = Ok(());
        for s in kids(n) {
            r = self.stmt(s, &mut b);
            if r.is_err() {
                break;
            }
        }
        self.fun.pop_scope();
        r.map(|_| b)
    }

    fn do_while(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        let span = self.sp(n);
        let label = self.fun.label();
        let cnode = self.field(n, "condition")?;
        // The condition is lowered first only to learn whether it needs
        // statements; `continue` must then skip to them, so the body goes
        // in a labeled block that `continue` leaves.
        let mut probe = Vec::new();
        let saved = self.fun.checkpoint();
        let probe_ok = self.cond(cnode, &mut probe).is_ok();
        self.fun.rewind(saved);
        if probe_ok && probe.is_empty() {
            self.jumps.push(Jump::Loop {
                brk: label,
                cont: ContTarget::Continue(label),
            });
            let body = self.body(self.field(n, "body")?);
            self.jumps.pop();
            let body = body?;
            let c = self.cond(cnode, &mut Vec::new())?;
            out.push(st(
                StmtKind::Loop {
                    label,
                    kind: LoopKind::DoWhile,
                    cond: c,
                    body,
                    step: Vec::new(),
                },
                span,
            ));
            return Ok(());
        }
        let inner = self.fun.label();
        self.jumps.push(Jump::Loop {
            brk: label,
            cont: ContTarget::Break(inner),
        });
        let body = self.body(self.field(n, "body")?);
        self.jumps.pop();
        let body = body?;
        let mut b = vec![st(StmtKind::Labeled { label: inner, body }, span)];
        let c = self.cond(cnode, &mut b)?;
        let cspan = c.span;
        b.push(st(
            StmtKind::If {
                cond: not(c),
                then_branch: vec![st(StmtKind::Break(label), cspan)],
                else_branch: Vec::new(),
            },
            cspan,
        ));
        out.push(st(
            StmtKind::Loop {
                label,
                kind: LoopKind::While,
                cond: bool_lit(true, cspan),
                body: b,
                step: Vec::new(),
            },
            span,
        ));
        Ok(())
    }

    fn for_loop(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        let span = self.sp(n);
        let mut init = Vec::new();
        if let Some(i) = n.child_by_field_name("initializer") {
            if i.kind() == "declaration" {
                self.declaration(i, &mut init)?;
            } else {
                self.effect(i, &mut init)?;
            }
        }
        let label = self.fun.label();
        let mut pre = Vec::new();
        let c = match n.child_by_field_name("condition") {
            Some(c) => self.cond(c, &mut pre)?,
            None => bool_lit(true, span),
        };
        let mut step = Vec::new();
        if let Some(u) = n.child_by_field_name("update") {
            self.effect(u, &mut step)?;
        }
        self.jumps.push(Jump::Loop {
            brk: label,
            cont: ContTarget::Continue(label),
        });
        let body = self.body(self.field(n, "body")?);
        self.jumps.pop();
        let lp = crate::lang::lower::pre_tested_loop(label, pre, c, body?, step, span);
        if init.is_empty() {
            out.push(lp);
        } else {
            init.push(lp);
            out.push(st(StmtKind::Block(init), span));
        }
        Ok(())
    }

    fn ret_stmt(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        let span = self.sp(n);
        if let Some((sid, slots)) = self.ret_struct.clone() {
            return self.struct_return(n, sid, &slots, out);
        }
        let value = kids(n).into_iter().next();
        match (value, self.ret.clone()) {
            (None, Type::Void) => out.push(st(StmtKind::Return(None), span)),
            (None, _) => return Err(self.unsup(n, "return without a value in a non-void function")),
            (Some(v), Type::Void) => {
                self.effect(v, out)?;
                out.push(st(StmtKind::Return(None), span));
            }
            (Some(v), ret) => {
                let e = self.expr(v, out)?;
                if matches!(ret, Type::Array(_)) || matches!(e.ty, Type::Array(_)) {
                    return Err(self.unsup(n, "returning a pointer"));
                }
                let e = self.convert(e, &ret, span)?;
                out.push(st(StmtKind::Return(Some(e)), span));
            }
        }
        Ok(())
    }

    /// `switch`: with scrutinee temp `s` and `fall` flag,
    /// ```text
    /// s = e; fall = false;
    /// L: { if (fall || s == c1) { fall = true; seg1 }  ...
    ///      if (fall || !(s == c1 || ...)) { fall = true; default_seg } ... }
    /// ```
    /// which runs from the matching label (or `default`, wherever it is) and
    /// falls through the following segments until `break L`.
    fn switch(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        let span = self.sp(n);
        let scrut = self.expr(self.field(n, "condition")?, out)?;
        if !is_integer(&scrut.ty) {
            return Err(self.unsup(n, "switch on a non-integer value"));
        }
        let sty = promote(&scrut.ty);
        let scrut = self.convert(scrut, &sty, span)?;
        let s = self.fun.temp_of(scrut, out);
        let fall = self.fun.temp(Type::Bool, span);
        out.push(st(
            StmtKind::Assign {
                place: Place::Local(fall),
                value: bool_lit(false, span),
            },
            span,
        ));
        let label = self.fun.label();

        let body = self.field(n, "body")?;
        // Case labels and their values, in source order.
        let mut labels: Vec<(Node<'t>, Option<Expr>)> = Vec::new();
        for k in kids(body) {
            if k.kind() != "case_statement" {
                continue;
            }
            let v = match k.child_by_field_name("value") {
                Some(v) => {
                    let mut scratch = Vec::new();
                    let e = self.expr(v, &mut scratch)?;
                    if !scratch.is_empty() || !is_integer(&e.ty) || const_int(&e).is_none() {
                        return Err(self.unsup(v, "non-constant case label"));
                    }
                    Some(self.convert(e, &sty, self.sp(v))?)
                }
                None => None,
            };
            labels.push((k, v));
        }
        let eq = |v: &Expr, sp: Span| Expr {
            kind: ExprKind::Binary(BinOp::Eq, Box::new(s.clone()), Box::new(v.clone())),
            ty: Type::Bool,
            span: sp,
        };
        let any_case = labels
            .iter()
            .filter_map(|(_, v)| v.as_ref())
            .map(|v| eq(v, v.span))
            .reduce(|a, b| {
                let sp = a.span;
                Expr {
                    kind: ExprKind::Binary(BinOp::Or, Box::new(a), Box::new(b)),
                    ty: Type::Bool,
                    span: sp,
                }
            });

        self.jumps.push(Jump::Switch { brk: label });
        self.fun.push_scope();
        let mut segs = Vec::new();
        let mut result = Ok(());
        for (k, v) in &labels {
            let ksp = self.sp(*k);
            let matches = match v {
                Some(v) => eq(v, ksp),
                None => match &any_case {
                    Some(a) => not(a.clone()),
                    None => bool_lit(true, ksp),
                },
            };
            let fall_e = self.fun.local_expr(fall, ksp);
            let cond = Expr {
                kind: ExprKind::Binary(BinOp::Or, Box::new(fall_e), Box::new(matches)),
                ty: Type::Bool,
                span: ksp,
            };
            let mut seg = vec![st(
                StmtKind::Assign {
                    place: Place::Local(fall),
                    value: bool_lit(true, ksp),
                },
                ksp,
            )];
            let value_id = k.child_by_field_name("value").map(|v| v.id());
            for s in kids(*k) {
                if Some(s.id()) == value_id {
                    continue;
                }
                result = self.stmt(s, &mut seg);
                if result.is_err() {
                    break;
                }
            }
            if result.is_err() {
                break;
            }
            segs.push(st(
                StmtKind::If {
                    cond,
                    then_branch: seg,
                    else_branch: Vec::new(),
                },
                ksp,
            ));
        }
        self.fun.pop_scope();
        self.jumps.pop();
        result?;
        out.push(st(StmtKind::Labeled { label, body: segs }, span));
        Ok(())
    }

    /// A local declaration: `int x = e, a[3] = {1, 2}, b[n];`.
    pub(super) fn declaration(&mut self, n: Node<'t>, out: &mut Block) -> Res<()> {
        if let Some(sc) = storage_class(n, self.src)
            && sc != "register"
            && sc != "auto"
        {
            // A static local is a global (initialised before any call, see
            // `FileCx::static_locals_of`): its name is bound to it here, and
            // the declaration runs nothing.
            if sc == "static"
                && let Some(names) = self.file.static_locals.get(&n.start_byte())
            {
                for (name, gid) in names {
                    self.fun.bind(name, super::structs::Binding::Static(*gid));
                }
                return Ok(());
            }
            return Err(self.unsup(n, format!("{sc} local variable")));
        }
        let tnode = self.field(n, "type")?;
        if tnode.kind() == "enum_specifier"
            && let Some(body) = tnode.child_by_field_name("body")
        {
            self.local_enum(body)?;
        }
        if let Ok(super::structs::Shape::Struct(sid)) = self.file.shape_of(tnode, self.src) {
            return self.struct_declaration(n, sid, out);
        }
        if tnode.kind() == "struct_specifier"
            && let Err(e) = self.file.shape_of(tnode, self.src)
        {
            return Err(self.unsup(tnode, e.what));
        }
        let base = self
            .file
            .base_type(tnode, self.src)
            .map_err(|e| self.unsup(tnode, e.what))?;
        let mut c = n.walk();
        let decls: Vec<Node<'t>> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            let (decl, init) = if d.kind() == "init_declarator" {
                (self.field(d, "declarator")?, d.child_by_field_name("value"))
            } else {
                (d, None)
            };
            self.local_decl(base.clone(), decl, init, out)?;
        }
        Ok(())
    }

    /// An enum declared in a function (`body` its enumerator list): its
    /// constants are [`FileCx::local_enum_consts`], read like the file's
    /// own; that is exact where nothing else of the same name is in scope
    /// here, and the enumerators of the file's enums, the variables in
    /// scope and the file's globals are checked for that.
    fn local_enum(&mut self, body: Node<'t>) -> Res<()> {
        for e in super::kids(body) {
            let Some(name) = e.child_by_field_name("name") else {
                continue;
            };
            let text = self.text(name);
            let clash = if self.file.enum_consts.contains_key(text) {
                Some("an enumerator of the file")
            } else if self.fun.binding(text).is_some() {
                Some("a variable in scope")
            } else if self.file.global_map.contains_key(text) {
                Some("a global variable")
            } else {
                None
            };
            if let Some(what) = clash {
                return Err(self.unsup(name, format!("enumerator {text} shadowing {what}")));
            }
            match self.file.local_enum_consts.get(text) {
                Some(Some(_)) => {}
                Some(None) => {
                    return Err(self.unsup(
                        name,
                        format!(
                            "enumerator {text}, given different values by enums of two functions"
                        ),
                    ));
                }
                None => {
                    return Err(self.unsup(
                        name,
                        format!("enumerator {text}: its value is not a constant expression here"),
                    ));
                }
            }
        }
        Ok(())
    }

    fn local_decl(
        &mut self,
        base: Type,
        decl: Node<'t>,
        init: Option<Node<'t>>,
        out: &mut Block,
    ) -> Res<()> {
        let span = self.sp(decl);
        match decl.kind() {
            "identifier" => {
                if base == Type::Void {
                    return Err(self.unsup(decl, "void variable"));
                }
                let name = self.text(decl);
                let value = match init {
                    Some(i) if i.kind() == "initializer_list" => {
                        return Err(self.unsup(i, "brace initialiser for a scalar"));
                    }
                    Some(i) => {
                        let e = self.expr(i, out)?;
                        if matches!(e.ty, Type::Array(_)) {
                            return Err(self.unsup(i, "pointer variable"));
                        }
                        self.convert(e, &base, self.sp(i))?
                    }
                    // Indeterminate in C; zeroed here (see module docs).
                    None => zero(&base, span).ok_or_else(|| self.unsup(decl, "variable type"))?,
                };
                let id = self.fun.declare(name, base, LocalKind::Var, span);
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(id),
                        value,
                    },
                    span,
                ));
                Ok(())
            }
            "array_declarator" => {
                let inner = self.field(decl, "declarator")?;
                if inner.kind() != "identifier" {
                    let what = if inner.kind() == "array_declarator" {
                        "multi-dimensional array"
                    } else {
                        "array declarator"
                    };
                    return Err(self.unsup(decl, what));
                }
                if !matches!(base, Type::Bool | Type::Int(_) | Type::Float(_)) {
                    return Err(self.unsup(decl, "array of this element type"));
                }
                let name = self.text(inner);
                // Length: constant, or a variable-length array.
                let (len_const, len_expr) = match decl.child_by_field_name("size") {
                    Some(sz) => {
                        let e = self.expr(sz, out)?;
                        if !is_integer(&e.ty) {
                            return Err(self.unsup(sz, "non-integer array size"));
                        }
                        match const_int(&e) {
                            Some(v) if v < 0 => return Err(self.unsup(sz, "negative array size")),
                            Some(v) => (Some(v), None),
                            None => (None, Some(e)),
                        }
                    }
                    None => (None, None),
                };
                let value = match (init, len_expr) {
                    (Some(i), None) => self.array_init(i, &base, len_const, out)?,
                    (Some(i), Some(_)) => {
                        return Err(self.unsup(i, "initialiser for a variable-length array"));
                    }
                    (None, Some(e)) => {
                        let it = promote(&e.ty);
                        let e = self.convert(e, &it, span)?;
                        Expr {
                            kind: ExprKind::NewArray(Box::new(e)),
                            ty: Type::Array(Box::new(base.clone())),
                            span,
                        }
                    }
                    (None, None) => match len_const {
                        Some(v) => Expr {
                            kind: ExprKind::NewArray(Box::new(int_lit(v, IntTy::I32, span))),
                            ty: Type::Array(Box::new(base.clone())),
                            span,
                        },
                        None => return Err(self.unsup(decl, "array without a size")),
                    },
                };
                let len = match &value.kind {
                    ExprKind::ArrayLit(items) => Some(items.len() as u64),
                    _ => len_const.and_then(|v| u64::try_from(v).ok()),
                };
                let id = self
                    .fun
                    .declare(name, Type::Array(Box::new(base)), LocalKind::Var, span);
                if let Some(len) = len {
                    self.array_len.insert(id, len);
                }
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(id),
                        value,
                    },
                    span,
                ));
                Ok(())
            }
            "pointer_declarator" => self.pointer_decl(&base, decl, init, out),
            "function_declarator" => Ok(()),
            "parenthesized_declarator" => Err(self.unsup(decl, "parenthesized declarator")),
            other => Err(self.unsup(decl, other.replace('_', " "))),
        }
    }

    /// `{a, b, c}` for an array of `elem` with optional declared length:
    /// elements converted, the rest zero-filled.
    pub(super) fn array_init(
        &mut self,
        i: Node<'t>,
        elem: &Type,
        len: Option<i128>,
        out: &mut Block,
    ) -> Res<Expr> {
        let span = self.sp(i);
        if i.kind() != "initializer_list" {
            let what = if matches!(i.kind(), "string_literal" | "concatenated_string") {
                "string variable"
            } else {
                "array initialised from an expression"
            };
            return Err(self.unsup(i, what));
        }
        let items = kids(i);
        if let Some(bad) = items
            .iter()
            .find(|k| matches!(k.kind(), "initializer_list" | "initializer_pair"))
        {
            let what = if bad.kind() == "initializer_pair" {
                "designated initialiser"
            } else {
                "nested initialiser"
            };
            return Err(self.unsup(*bad, what));
        }
        let vals = self.operands(&items, out)?;
        let mut elems = Vec::with_capacity(vals.len());
        for v in vals {
            if matches!(v.ty, Type::Array(_)) {
                return Err(crate::lang::c::unsupported(
                    v.span,
                    "pointer in an array initialiser",
                ));
            }
            let sp = v.span;
            elems.push(self.convert(v, elem, sp)?);
        }
        if let Some(len) = len {
            let len = usize::try_from(len).map_err(|_| self.unsup(i, "array size"))?;
            if elems.len() > len {
                return Err(self.unsup(i, "more initialisers than array elements"));
            }
            if len > 1 << 20 {
                return Err(self.unsup(i, "array too large"));
            }
            while elems.len() < len {
                elems.push(zero(elem, span).ok_or_else(|| self.unsup(i, "array element type"))?);
            }
        }
        Ok(Expr {
            kind: ExprKind::ArrayLit(elems),
            ty: Type::Array(Box::new(elem.clone())),
            span,
        })
    }
}
