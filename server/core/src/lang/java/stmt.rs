//! Statement lowering: blocks, declarations, control flow, switch.

use super::expr::{binop, or};
use super::{
    Cont, FnCx, R, Role, Target, TyErr, add_dims, children_by_field, java_type, mk, named_children,
    span, st, unsupported,
};
use crate::ir::{
    BinOp, Block, Catch, Expr, ExprKind, LabelId, LocalKind, LoopKind, Place, Span, StmtKind,
    Thrown, Type, any_stmt,
};
use crate::lang::lower::not;
use tree_sitter::Node;

impl<'c, 't> FnCx<'c, 't> {
    /// A `{ ... }` block, in its own scope.
    pub(super) fn block(&mut self, n: Node, out: &mut Block) -> R<()> {
        self.push_scope();
        for c in named_children(n) {
            self.stmt(c, out)?;
        }
        self.pop_scope();
        Ok(())
    }

    /// A statement that is the body of `if`/loops: its own scope.
    fn scoped(&mut self, n: Node, out: &mut Block) -> R<()> {
        self.push_scope();
        self.stmt(n, out)?;
        self.pop_scope();
        Ok(())
    }

    pub(super) fn stmt(&mut self, n: Node, out: &mut Block) -> R<()> {
        self.enter(n)?;
        let r = self.stmt_inner(n, out);
        self.leave();
        r
    }

    fn stmt_inner(&mut self, n: Node, out: &mut Block) -> R<()> {
        let sp = span(n);
        match n.kind() {
            "block" => self.block(n, out),
            ";" => Ok(()),
            "local_variable_declaration" => self.local_decl(n, out),
            "expression_statement" => {
                let e = named_children(n)
                    .into_iter()
                    .next()
                    .ok_or_else(|| unsupported(n, "empty statement"))?;
                self.expr_stmt(e, out)
            }
            "if_statement" => {
                let (Some(c), Some(t)) = (
                    n.child_by_field_name("condition"),
                    n.child_by_field_name("consequence"),
                ) else {
                    return Err(unsupported(n, "if statement"));
                };
                let cond = self.cond(c, out)?;
                let mut then_branch = Vec::new();
                self.scoped(t, &mut then_branch)?;
                let mut else_branch = Vec::new();
                if let Some(e) = n.child_by_field_name("alternative") {
                    self.scoped(e, &mut else_branch)?;
                }
                out.push(st(
                    StmtKind::If {
                        cond,
                        then_branch,
                        else_branch,
                    },
                    sp,
                ));
                Ok(())
            }
            "while_statement" => self.while_stmt(n, None, out),
            "do_statement" => self.do_stmt(n, None, out),
            "for_statement" => self.for_stmt(n, None, out),
            "enhanced_for_statement" => self.foreach(n, None, out),
            "labeled_statement" => self.labeled(n, out),
            "break_statement" => {
                let name = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "identifier")
                    .map(|c| self.text(c));
                let target = match name {
                    Some(name) => self
                        .targets
                        .iter()
                        .rev()
                        .find(|t| t.name.as_deref() == Some(name)),
                    None => self.targets.iter().rev().find(|t| t.breakable),
                };
                let t = target.ok_or_else(|| unsupported(n, "break outside a loop or switch"))?;
                out.push(st(StmtKind::Break(t.brk), sp));
                Ok(())
            }
            "continue_statement" => {
                let name = named_children(n)
                    .into_iter()
                    .find(|c| c.kind() == "identifier")
                    .map(|c| self.text(c));
                let target = match name {
                    Some(name) => self
                        .targets
                        .iter()
                        .rev()
                        .find(|t| t.name.as_deref() == Some(name)),
                    None => self.targets.iter().rev().find(|t| t.cont.is_some()),
                };
                let kind = match target.and_then(|t| t.cont) {
                    Some(Cont::Continue(l)) => StmtKind::Continue(l),
                    Some(Cont::Break(l)) => StmtKind::Break(l),
                    None => return Err(unsupported(n, "continue outside a loop")),
                };
                out.push(st(kind, sp));
                Ok(())
            }
            "return_statement" => {
                let value = named_children(n).into_iter().next();
                if let (Some(v), Some(_)) = (value, &self.ret_obj) {
                    return self.object_return(n, v, out);
                }
                if value.is_none() && self.in_constructor() {
                    self.ctor_result(sp, out);
                }
                let ret = self.ret.clone();
                let v = match (value, &ret) {
                    (None, Type::Void) => None,
                    (Some(v), t) if *t != Type::Void => {
                        self.result_hint = Some((v.id(), t.clone()));
                        let e = self.expr(v, out)?;
                        Some(self.convert(e, t, v)?)
                    }
                    _ => {
                        return Err(unsupported(
                            n,
                            "return value does not match the method's type",
                        ));
                    }
                };
                out.push(st(StmtKind::Return(v), sp));
                Ok(())
            }
            "switch_expression" => self.switch(n, out),
            "try_statement" => self.try_stmt(n, out),
            "try_with_resources_statement" => Err(unsupported(n, "try-with-resources statement")),
            "throw_statement" => {
                let thrown = self.thrown(n)?;
                out.push(st(StmtKind::Throw(thrown), sp));
                Ok(())
            }
            "assert_statement" => Err(unsupported(n, "assert statement")),
            "synchronized_statement" => Err(unsupported(n, "synchronized statement")),
            "yield_statement" => Err(unsupported(n, "yield statement")),
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration" => Err(unsupported(n, "local class declaration")),
            k => Err(unsupported(n, k.replace('_', " "))),
        }
    }

    /// `try { } catch (A | B e) { } finally { }`. The caught object is not
    /// modelled: the clause's variable is left undeclared, so a use of it
    /// is reported as unsupported where it occurs.
    fn try_stmt(&mut self, n: Node, out: &mut Block) -> R<()> {
        let sp = span(n);
        let Some(b) = n.child_by_field_name("body") else {
            return Err(unsupported(n, "try statement"));
        };
        let mut body = Vec::new();
        self.block(b, &mut body)?;
        let mut catches = Vec::new();
        let mut finally = Vec::new();
        for c in named_children(n) {
            match c.kind() {
                "catch_clause" => {
                    let param = named_children(c)
                        .into_iter()
                        .find(|k| k.kind() == "catch_formal_parameter");
                    let types = param.and_then(|p| {
                        named_children(p)
                            .into_iter()
                            .find(|k| k.kind() == "catch_type")
                    });
                    let Some(types) = types else {
                        return Err(unsupported(c, "catch clause"));
                    };
                    let mut classes = Vec::new();
                    for t in named_children(types) {
                        let text = self.text(t);
                        let class = text.rsplit('.').next().unwrap_or(text).trim();
                        if class.is_empty() || class.contains('<') {
                            return Err(unsupported(t, format!("caught class {text}")));
                        }
                        classes.push(class.to_string());
                    }
                    let Some(cb) = c.child_by_field_name("body") else {
                        return Err(unsupported(c, "catch clause"));
                    };
                    let var = param
                        .and_then(|p| p.child_by_field_name("name"))
                        .map(|v| self.text(v).to_string());
                    let mut body = Vec::new();
                    self.caught.extend(var.clone());
                    let lowered = self.block(cb, &mut body);
                    if var.is_some() {
                        self.caught.pop();
                    }
                    lowered?;
                    catches.push(Catch { classes, body });
                }
                "finally_clause" => {
                    let Some(fb) = named_children(c).into_iter().find(|k| k.kind() == "block")
                    else {
                        return Err(unsupported(c, "finally clause"));
                    };
                    self.block(fb, &mut finally)?;
                }
                _ => {}
            }
        }
        out.push(st(
            StmtKind::Try {
                body,
                catches,
                finally,
            },
            sp,
        ));
        Ok(())
    }

    /// `throw new C(args)`: the outcome is the class (simple name). The
    /// arguments only build the message, which is not compared; they must
    /// be inert (no calls, array reads, divisions or assignments) so that
    /// skipping them hides no other exception or effect.
    fn thrown(&self, n: Node) -> R<Thrown> {
        let Some(e) = named_children(n).into_iter().next() else {
            return Err(unsupported(n, "throw statement"));
        };
        if e.kind() != "object_creation_expression" {
            return Err(unsupported(
                e,
                "throw of an existing exception object (only `throw new C(...)`)",
            ));
        }
        let Some(ty) = e.child_by_field_name("type") else {
            return Err(unsupported(e, "thrown object"));
        };
        if named_children(e).iter().any(|c| c.kind() == "class_body") {
            return Err(unsupported(e, "throw of an anonymous exception class"));
        }
        if let Some(args) = e.child_by_field_name("arguments")
            && let Some(bad) = first_active(args)
        {
            return Err(unsupported(
                bad,
                format!(
                    "{} in an exception's message (only literals, variables and operators that cannot fail)",
                    bad.kind().replace('_', " ")
                ),
            ));
        }
        if let Some(args) = e.child_by_field_name("arguments")
            && let Some((bad, op)) = first_string_misuse(args)
        {
            return Err(crate::ir::LowerError {
                kind: crate::ir::LowerErrorKind::TypeError,
                what: format!("operator {op} on a String (javac rejects it)"),
                span: span(bad),
            });
        }
        let text = self.text(ty);
        let class = text.rsplit('.').next().unwrap_or(text).trim();
        if class.is_empty() || class.contains('<') {
            return Err(unsupported(ty, format!("exception class {text}")));
        }
        Ok(Thrown::Exception(class.to_string()))
    }

    /// `T a = e, b[] = {..}, c;` — one local per declarator (unique id even
    /// when the name shadows a field or reappears in another block);
    /// declarators without initialiser need no statement (Java's definite
    /// assignment guarantees a write before any read).
    pub(super) fn local_decl(&mut self, n: Node, out: &mut Block) -> R<()> {
        let Some(tn) = n.child_by_field_name("type") else {
            return Err(unsupported(n, "local variable declaration"));
        };
        if let Some(c) = self.cx.value_class_of(tn) {
            return self.object_decl(n, c, out);
        }
        let is_var = self.text(tn) == "var";
        let base = if is_var {
            None
        } else {
            Some(java_type(self.cx.src, tn))
        };
        for d in children_by_field(n, "declarator") {
            let Some(name_node) = d.child_by_field_name("name") else {
                return Err(unsupported(d, "declarator"));
            };
            let name = self.text(name_node);
            let value = d.child_by_field_name("value");
            let mut text = false;
            let (ty, v) = match &base {
                Some(Ok(t)) => {
                    let ty = add_dims(t.clone(), d.child_by_field_name("dimensions"), self.cx.src)
                        .map_err(|e| unsupported(d, e.describe(Role::Var)))?;
                    let v = match value {
                        Some(v) => Some(self.initializer(v, &ty, out)?),
                        None => None,
                    };
                    (ty, v)
                }
                Some(Err(TyErr::Class(c)))
                    if c == "String" && d.child_by_field_name("dimensions").is_none() =>
                {
                    let v = match value {
                        Some(v) => Some(self.text_value(v, out)?),
                        None => None,
                    };
                    text = true;
                    (super::text_type(), v)
                }
                Some(Err(e)) => {
                    if let Some(v) = value.filter(|v| v.kind() == "object_creation_expression") {
                        return Err(self.object_creation(v));
                    }
                    let what = match e {
                        TyErr::Class(c) if c == "String" => "String variable".to_string(),
                        e => e.describe(Role::Var),
                    };
                    return Err(unsupported(n, what));
                }
                None => {
                    let Some(v) = value else {
                        return Err(unsupported(d, "var without initializer"));
                    };
                    let e = self.expr(v, out)?;
                    if matches!(e.ty, Type::Str | Type::Void) {
                        return Err(unsupported(
                            d,
                            format!("var of type {}", super::jname(&e.ty)),
                        ));
                    }
                    // `var s = "…"` or `var s = t` with `t` a String.
                    text = self.is_text_valued(v);
                    (e.ty.clone(), Some(e))
                }
            };
            let id = self.fun.declare(name, ty, LocalKind::Var, span(d));
            if text {
                self.fun.mark_text(id);
            }
            if let Some(v) = v {
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(id),
                        value: v,
                    },
                    span(d),
                ));
            }
        }
        Ok(())
    }

    fn loop_body(&mut self, n: Node, name: Option<String>, brk: LabelId, cont: Cont) -> R<Block> {
        let Some(b) = n.child_by_field_name("body") else {
            return Err(unsupported(n, "loop without a body"));
        };
        self.targets.push(Target {
            name,
            brk,
            cont: Some(cont),
            breakable: true,
        });
        let mut body = Vec::new();
        self.scoped(b, &mut body)?;
        self.targets.pop();
        Ok(body)
    }

    fn while_stmt(&mut self, n: Node, name: Option<String>, out: &mut Block) -> R<()> {
        let Some(c) = n.child_by_field_name("condition") else {
            return Err(unsupported(n, "while statement"));
        };
        let l = self.fun.label();
        let mut pre = Vec::new();
        let cond = self.cond(c, &mut pre)?;
        let body = self.loop_body(n, name, l, Cont::Continue(l))?;
        out.push(crate::lang::lower::pre_tested_loop(
            l,
            pre,
            cond,
            body,
            Vec::new(),
            span(n),
        ));
        Ok(())
    }

    /// `do body while (c)`. With a lifted condition, the body sits in a
    /// labeled block that `continue` leaves, followed by the condition code.
    fn do_stmt(&mut self, n: Node, name: Option<String>, out: &mut Block) -> R<()> {
        let Some(c) = n.child_by_field_name("condition") else {
            return Err(unsupported(n, "do statement"));
        };
        let sp = span(n);
        let l = self.fun.label();
        let mut pre = Vec::new();
        let cond = self.cond(c, &mut pre)?;
        if pre.is_empty() {
            let body = self.loop_body(n, name, l, Cont::Continue(l))?;
            out.push(st(
                StmtKind::Loop {
                    label: l,
                    kind: LoopKind::DoWhile,
                    cond,
                    body,
                    step: Vec::new(),
                },
                sp,
            ));
            return Ok(());
        }
        let lc = self.fun.label();
        let body = self.loop_body(n, name, l, Cont::Break(lc))?;
        let csp = cond.span;
        let mut b = vec![st(StmtKind::Labeled { label: lc, body }, sp)];
        b.extend(pre);
        b.push(st(
            StmtKind::If {
                cond: not(cond),
                then_branch: vec![st(StmtKind::Break(l), csp)],
                else_branch: Vec::new(),
            },
            csp,
        ));
        out.push(st(
            StmtKind::Loop {
                label: l,
                kind: LoopKind::While,
                cond: mk(ExprKind::BoolLit(true), Type::Bool, csp),
                body: b,
                step: Vec::new(),
            },
            sp,
        ));
        Ok(())
    }

    fn for_stmt(&mut self, n: Node, name: Option<String>, out: &mut Block) -> R<()> {
        self.push_scope();
        for init in children_by_field(n, "init") {
            if init.kind() == "local_variable_declaration" {
                self.local_decl(init, out)?;
            } else {
                self.expr_stmt(init, out)?;
            }
        }
        let l = self.fun.label();
        let mut pre = Vec::new();
        let cond = match n.child_by_field_name("condition") {
            Some(c) => self.cond(c, &mut pre)?,
            None => mk(ExprKind::BoolLit(true), Type::Bool, span(n)),
        };
        let mut step = Vec::new();
        for u in children_by_field(n, "update") {
            self.expr_stmt(u, &mut step)?;
        }
        let body = self.loop_body(n, name, l, Cont::Continue(l))?;
        out.push(crate::lang::lower::pre_tested_loop(
            l,
            pre,
            cond,
            body,
            step,
            span(n),
        ));
        self.pop_scope();
        Ok(())
    }

    /// `for (T x : arr)` as an index loop over a temporary copy of the
    /// array reference (evaluated once, as in Java).
    fn foreach(&mut self, n: Node, name: Option<String>, out: &mut Block) -> R<()> {
        let (Some(tn), Some(xn), Some(vn)) = (
            n.child_by_field_name("type"),
            n.child_by_field_name("name"),
            n.child_by_field_name("value"),
        ) else {
            return Err(unsupported(n, "enhanced for statement"));
        };
        let sp = span(n);
        self.push_scope();
        let arr = self.expr(vn, out)?;
        let Type::Array(elem) = arr.ty.clone() else {
            return Err(unsupported(
                vn,
                format!("enhanced for over {}", super::jname(&arr.ty)),
            ));
        };
        let asp = arr.span;
        let xty = if self.text(tn) == "var" {
            (*elem).clone()
        } else {
            java_type(self.cx.src, tn)
                .and_then(|t| add_dims(t, n.child_by_field_name("dimensions"), self.cx.src))
                .map_err(|e| unsupported(tn, e.describe(Role::Var)))?
        };
        let x = self
            .fun
            .declare(self.text(xn), xty.clone(), LocalKind::Var, span(xn));
        let l = self.fun.label();
        let rest = self.loop_body(n, name, l, Cont::Continue(l))?;
        // The array is evaluated once: a local the body never reassigns is
        // iterated directly, anything else through a copy.
        let av = match arr.kind {
            ExprKind::Local(v) if !any_stmt(&rest, &mut |s| s.assigns_local(v)) => arr,
            _ => {
                let a = self.fun.temp(arr.ty.clone(), asp);
                out.push(st(
                    StmtKind::Assign {
                        place: Place::Local(a),
                        value: arr.clone(),
                    },
                    asp,
                ));
                mk(ExprKind::Local(a), arr.ty.clone(), asp)
            }
        };
        let i = self.fun.temp(Type::INT, sp);
        out.push(st(
            StmtKind::Assign {
                place: Place::Local(i),
                value: mk(ExprKind::IntLit(0), Type::INT, sp),
            },
            sp,
        ));
        let iv = mk(ExprKind::Local(i), Type::INT, sp);
        let len = mk(ExprKind::Length(Box::new(av.clone())), Type::INT, asp);
        let cond = binop(BinOp::Lt, iv.clone(), len, n, "<")?;
        let elem_v = mk(
            ExprKind::Index(Box::new(av), Box::new(iv.clone())),
            *elem,
            span(xn),
        );
        let elem_v = self.convert(elem_v, &xty, xn)?;
        let mut body = vec![st(
            StmtKind::Assign {
                place: Place::Local(x),
                value: elem_v,
            },
            span(xn),
        )];
        body.extend(rest);
        let one = mk(ExprKind::IntLit(1), Type::INT, sp);
        let step = vec![st(
            StmtKind::Assign {
                place: Place::Local(i),
                value: binop(BinOp::Add, iv, one, n, "+")?,
            },
            sp,
        )];
        out.push(st(
            StmtKind::Loop {
                label: l,
                kind: LoopKind::While,
                cond,
                body,
                step,
            },
            sp,
        ));
        self.pop_scope();
        Ok(())
    }

    fn labeled(&mut self, n: Node, out: &mut Block) -> R<()> {
        let kids = named_children(n);
        let (Some(id), Some(s)) = (kids.iter().find(|c| c.kind() == "identifier"), kids.last())
        else {
            return Err(unsupported(n, "labeled statement"));
        };
        let name = Some(self.text(*id).to_string());
        match s.kind() {
            "while_statement" => self.while_stmt(*s, name, out),
            "do_statement" => self.do_stmt(*s, name, out),
            "for_statement" => self.for_stmt(*s, name, out),
            "enhanced_for_statement" => self.foreach(*s, name, out),
            _ => {
                let l = self.fun.label();
                self.targets.push(Target {
                    name,
                    brk: l,
                    cont: None,
                    breakable: false,
                });
                let mut body = Vec::new();
                self.scoped(*s, &mut body)?;
                self.targets.pop();
                out.push(st(StmtKind::Labeled { label: l, body }, span(n)));
                Ok(())
            }
        }
    }

    /// The constants of one `case` label as conditions `s == c`; `None`
    /// for `default`.
    fn case_conds(&mut self, label: Node, s: &Expr) -> R<Option<Vec<Expr>>> {
        let kids = named_children(label);
        if kids.is_empty() {
            return if self.text(label).trim_start().starts_with("default") {
                Ok(None)
            } else {
                Err(unsupported(label, "case label"))
            };
        }
        let mut conds = Vec::new();
        for k in kids {
            if matches!(
                k.kind(),
                "pattern" | "guard" | "type_pattern" | "record_pattern"
            ) {
                return Err(unsupported(k, "pattern case label"));
            }
            if s.ty == super::text_type() {
                // A switch on a String compares it with each label's
                // literal as `String.equals` does (`s` is not null here).
                let Some(units) = self.literal_arg(k)? else {
                    return Err(unsupported(
                        k,
                        "case label of a String switch other than a literal",
                    ));
                };
                conds.push(super::expr::text_equals(s, &units, span(k)));
                continue;
            }
            let mut b = Vec::new();
            let v = self.expr(k, &mut b)?;
            if !b.is_empty() {
                return Err(unsupported(k, "non-constant case label"));
            }
            conds.push(binop(BinOp::Eq, s.clone(), v, k, "==")?);
        }
        Ok(Some(conds))
    }

    /// `switch` statements, as `Labeled { label, body }` (`break` targets
    /// the label). Classic groups fall through: group `g` runs when
    /// `fall || s == c_g... || (g has default && !matched)` and sets `fall`,
    /// where `matched` says whether any case label equals the scrutinee —
    /// exactly Java's jump-to-label semantics, wherever `default` sits.
    /// Arrow rules do not fall through.
    fn switch(&mut self, n: Node, out: &mut Block) -> R<()> {
        let (Some(cn), Some(bn)) = (
            n.child_by_field_name("condition"),
            n.child_by_field_name("body"),
        ) else {
            return Err(unsupported(n, "switch statement"));
        };
        let sp = span(n);
        let scrut = self.expr(cn, out)?;
        let text = self.text_local(cn).is_some();
        if !text && !matches!(&scrut.ty, Type::Int(i) if i.bits <= 32) {
            return Err(unsupported(
                cn,
                format!("switch on {}", super::jname(&scrut.ty)),
            ));
        }
        if text {
            // Java switches on a String through its hash code: a null one
            // faults before any label is compared.
            self.fault_if_null(&scrut, sp, out);
        }
        let ssp = scrut.span;
        let sv = self.fun.temp(scrut.ty.clone(), ssp);
        let sty = scrut.ty.clone();
        out.push(st(
            StmtKind::Assign {
                place: Place::Local(sv),
                value: scrut,
            },
            ssp,
        ));
        let s = mk(ExprKind::Local(sv), sty, ssp);
        let l = self.fun.label();
        self.targets.push(Target {
            name: None,
            brk: l,
            cont: None,
            breakable: true,
        });
        self.push_scope();
        let groups = named_children(bn);
        let body = if groups.iter().any(|g| g.kind() == "switch_rule") {
            self.switch_rules(&groups, &s, l)?
        } else {
            let infos = self.switch_groups(&groups, &s)?;
            self.fall_through(infos, sp, out)?
        };
        self.pop_scope();
        self.targets.pop();
        out.push(st(StmtKind::Labeled { label: l, body }, sp));
        Ok(())
    }

    /// The body of an arrow-form switch on `s` (break label `l`): each rule
    /// runs alone, as `if (cases) { stmts; break }`, the default last.
    fn switch_rules(&mut self, groups: &[Node], s: &Expr, l: LabelId) -> R<Block> {
        let mut body = Vec::new();
        let mut default_body = None;
        for g in groups {
            let kids = named_children(*g);
            let Some(label) = kids.iter().find(|k| k.kind() == "switch_label") else {
                return Err(unsupported(*g, "switch rule"));
            };
            let conds = self.case_conds(*label, s)?;
            let mut b = Vec::new();
            for k in kids.iter().filter(|k| k.kind() != "switch_label") {
                self.stmt(*k, &mut b)?;
            }
            match conds {
                None => default_body = Some(b),
                Some(cs) => {
                    let gsp = span(*g);
                    let Some(c) = cs.into_iter().reduce(|a, b| or(a, b, gsp)) else {
                        return Err(unsupported(*label, "case label"));
                    };
                    b.push(st(StmtKind::Break(l), gsp));
                    body.push(st(
                        StmtKind::If {
                            cond: c,
                            then_branch: b,
                            else_branch: Vec::new(),
                        },
                        gsp,
                    ));
                }
            }
        }
        body.extend(default_body.unwrap_or_default());
        Ok(body)
    }

    /// The groups of a colon-form switch on `s`: their case conditions
    /// (all labels lowered before any statement) and statements.
    fn switch_groups<'a>(&mut self, groups: &[Node<'a>], s: &Expr) -> R<Vec<SwitchGroup<'a>>> {
        let mut infos = Vec::new();
        for g in groups {
            let mut info = SwitchGroup {
                conds: Vec::new(),
                default: false,
                stmts: Vec::new(),
                span: span(*g),
            };
            for k in named_children(*g) {
                if k.kind() == "switch_label" {
                    match self.case_conds(k, s)? {
                        Some(cs) => info.conds.extend(cs),
                        None => info.default = true,
                    }
                } else {
                    info.stmts.push(k);
                }
            }
            infos.push(info);
        }
        Ok(infos)
    }

    /// The body of a colon-form switch: a group runs when one of its cases
    /// matches or an earlier group ran (a `fall` flag), the default group
    /// when no case of the whole switch matches.
    fn fall_through(&mut self, infos: Vec<SwitchGroup>, sp: Span, out: &mut Block) -> R<Block> {
        let mut body = Vec::new();
        let matched = if infos.iter().any(|g| g.default) {
            let all = infos
                .iter()
                .flat_map(|g| g.conds.iter().cloned())
                .reduce(|a, b| or(a, b, sp));
            let m = self.fun.temp(Type::Bool, sp);
            let value = all.unwrap_or_else(|| mk(ExprKind::BoolLit(false), Type::Bool, sp));
            out.push(st(
                StmtKind::Assign {
                    place: Place::Local(m),
                    value,
                },
                sp,
            ));
            Some(mk(ExprKind::Local(m), Type::Bool, sp))
        } else {
            None
        };
        let fall = self.fun.temp(Type::Bool, sp);
        let fall_v = mk(ExprKind::Local(fall), Type::Bool, sp);
        out.push(st(
            StmtKind::Assign {
                place: Place::Local(fall),
                value: mk(ExprKind::BoolLit(false), Type::Bool, sp),
            },
            sp,
        ));
        for g in infos {
            let mut c = fall_v.clone();
            for x in g.conds {
                c = or(c, x, g.span);
            }
            if g.default
                && let Some(m) = &matched
            {
                c = or(c, not(m.clone()), g.span);
            }
            let mut then_branch = vec![st(
                StmtKind::Assign {
                    place: Place::Local(fall),
                    value: mk(ExprKind::BoolLit(true), Type::Bool, g.span),
                },
                g.span,
            )];
            for k in g.stmts {
                self.stmt(k, &mut then_branch)?;
            }
            body.push(st(
                StmtKind::If {
                    cond: c,
                    then_branch,
                    else_branch: Vec::new(),
                },
                g.span,
            ));
        }
        Ok(body)
    }
}

/// The first node under `n` whose evaluation could fail or have an effect
/// (a call, an array read, a division, an assignment, an allocation, a
/// reference cast), if any.
/// The first operator other than `+` applied to a String (a literal, or a
/// concatenation that has one) below `n`, with the operator: code javac
/// rejects, where the lowering skips the expression (an exception's
/// message) and would otherwise never type it.
pub(super) fn first_string_misuse(n: Node) -> Option<(Node, String)> {
    if n.kind() == "binary_expression"
        && let Some(op) = n.child_by_field_name("operator")
        && op.kind() != "+"
        && has_string_operand(n)
    {
        return Some((n, op.kind().to_string()));
    }
    named_children(n).into_iter().find_map(first_string_misuse)
}

/// Whether a binary expression has a String operand (see [`is_string`]).
fn has_string_operand(n: Node) -> bool {
    ["left", "right"]
        .into_iter()
        .filter_map(|f| n.child_by_field_name(f))
        .any(is_string)
}

/// Whether `n` is a String by its form: a literal, or a concatenation
/// with one (parentheses looked through).
fn is_string(n: Node) -> bool {
    match n.kind() {
        "string_literal" => true,
        "parenthesized_expression" => named_children(n).into_iter().any(is_string),
        "binary_expression" => {
            n.child_by_field_name("operator").map(|o| o.kind()) == Some("+")
                && has_string_operand(n)
        }
        _ => false,
    }
}

pub(super) fn first_active(n: Node) -> Option<Node> {
    let inert = match n.kind() {
        "method_invocation"
        | "array_access"
        | "assignment_expression"
        | "update_expression"
        | "object_creation_expression"
        | "array_creation_expression"
        | "cast_expression"
        | "lambda_expression"
        | "switch_expression"
        | "method_reference" => false,
        "binary_expression" => !matches!(
            n.child_by_field_name("operator").map(|o| o.kind()),
            Some("/" | "%")
        ),
        _ => true,
    };
    if !inert {
        return Some(n);
    }
    named_children(n).into_iter().find_map(first_active)
}

/// A group of a colon-form switch: its case conditions, whether it has
/// the `default` label, and its statements.
struct SwitchGroup<'a> {
    conds: Vec<Expr>,
    default: bool,
    stmts: Vec<Node<'a>>,
    span: Span,
}
