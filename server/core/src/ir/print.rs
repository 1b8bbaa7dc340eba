//! A readable, deterministic text form of the IR, for test failure
//! messages and debugging: Java-like pseudo code, one statement per line,
//! two spaces per nesting level, every local declared with its type, every
//! binary operation parenthesised (so the tree is unambiguous), casts
//! written with their target type, globals as `@name`, labels as `L<n>`.
//! The same IR always prints the same text; spans are not printed.
//! Expressions are printed iteratively (they can be deep).

use super::{
    Block, Expr, ExprKind, Function, LocalKind, LoopKind, Place, PrintKind, Program, StmtKind,
    Thrown, UnOp,
};
use std::fmt::Write;

/// The whole program: globals, then every function (one that did not
/// lower as a comment naming its error).
pub fn program(p: &Program) -> String {
    let mut out = String::new();
    for g in &p.globals {
        let _ = write!(out, "static {} {}", g.ty, g.name);
        if let Some(c) = &g.constant {
            let _ = write!(out, " = {}", expr_in(p, None, c));
        }
        out.push_str(";\n");
    }
    for def in &p.functions {
        if !out.is_empty() {
            out.push('\n');
        }
        match &def.body {
            Ok(f) => out.push_str(&function(p, f)),
            Err(e) => {
                let _ = writeln!(out, "// {}: not lowered: {e}", def.name);
            }
        }
    }
    out
}

/// One function of `p`: its signature, its locals, its body.
pub fn function(p: &Program, f: &Function) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|&id| format!("{} {}", f.local(id).ty, f.local(id).name))
        .collect();
    let mut out = format!("{} {}({}) {{\n", f.ret, f.name, params.join(", "));
    for l in &f.locals {
        match l.kind {
            LocalKind::Param => {}
            LocalKind::Var => {
                let _ = writeln!(out, "  {} {};", l.ty, l.name);
            }
            LocalKind::Temp => {
                let _ = writeln!(out, "  {} {}; // temporary", l.ty, l.name);
            }
        }
    }
    let printer = Printer { p, f };
    printer.block(&f.body, 1, &mut out);
    out.push_str("}\n");
    out
}

/// One expression of `f` (in `p`), on one line.
pub fn expr(p: &Program, f: &Function, e: &Expr) -> String {
    expr_in(p, Some(f), e)
}

struct Printer<'a> {
    p: &'a Program,
    f: &'a Function,
}

impl Printer<'_> {
    fn e(&self, e: &Expr) -> String {
        expr_in(self.p, Some(self.f), e)
    }

    fn args(&self, args: &[Expr]) -> String {
        args.iter()
            .map(|a| self.e(a))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn place(&self, pl: &Place) -> String {
        match pl {
            Place::Local(id) => self.f.local(*id).name.clone(),
            Place::Global(g) => format!("@{}", self.p.global(*g).name),
            Place::Index { array, index } => format!("{}[{}]", self.e(array), self.e(index)),
        }
    }

    fn dest(&self, dest: &Option<Place>) -> String {
        dest.as_ref()
            .map(|d| format!("{} = ", self.place(d)))
            .unwrap_or_default()
    }

    fn block(&self, b: &Block, depth: usize, out: &mut String) {
        for s in b {
            let pad = "  ".repeat(depth);
            let line = |out: &mut String, text: String| {
                let _ = writeln!(out, "{pad}{text}");
            };
            match &s.kind {
                StmtKind::Assign { place, value } => {
                    line(out, format!("{} = {};", self.place(place), self.e(value)))
                }
                StmtKind::Call { dest, func, args } => line(
                    out,
                    format!(
                        "{}{}({});",
                        self.dest(dest),
                        self.p.function(*func).name,
                        self.args(args)
                    ),
                ),
                StmtKind::External {
                    dest,
                    callee,
                    args,
                    ret,
                } => line(
                    out,
                    format!(
                        "{}extern {ret} {callee}({});",
                        self.dest(dest),
                        self.args(args)
                    ),
                ),
                StmtKind::Print { kind, args } => {
                    let text = match kind {
                        PrintKind::Java { newline: false } => {
                            format!("print({});", self.args(args))
                        }
                        PrintKind::Java { newline: true } => {
                            format!("println({});", self.args(args))
                        }
                        PrintKind::Printf { format } if args.is_empty() => {
                            format!("printf({format:?});")
                        }
                        PrintKind::Printf { format } => {
                            format!("printf({format:?}, {});", self.args(args))
                        }
                        PrintKind::C { newline } => {
                            let nl = if *newline { "ln" } else { "" };
                            format!("cprint{nl}({});", self.args(args))
                        }
                    };
                    line(out, text)
                }
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    line(out, format!("if ({}) {{", self.e(cond)));
                    self.block(then_branch, depth + 1, out);
                    if !else_branch.is_empty() {
                        line(out, "} else {".into());
                        self.block(else_branch, depth + 1, out);
                    }
                    line(out, "}".into());
                }
                StmtKind::Loop {
                    label,
                    kind,
                    cond,
                    body,
                    step,
                } => {
                    let head = match kind {
                        LoopKind::While => format!("L{}: while ({}) {{", label.0, self.e(cond)),
                        LoopKind::DoWhile => format!("L{}: do {{", label.0),
                    };
                    line(out, head);
                    self.block(body, depth + 1, out);
                    if !step.is_empty() {
                        line(out, "} step {".into());
                        self.block(step, depth + 1, out);
                    }
                    match kind {
                        LoopKind::While => line(out, "}".into()),
                        LoopKind::DoWhile => line(out, format!("}} while ({});", self.e(cond))),
                    }
                }
                StmtKind::Labeled { label, body } => {
                    line(out, format!("L{}: {{", label.0));
                    self.block(body, depth + 1, out);
                    line(out, "}".into());
                }
                StmtKind::Break(l) => line(out, format!("break L{};", l.0)),
                StmtKind::Continue(l) => line(out, format!("continue L{};", l.0)),
                StmtKind::Return(Some(e)) => line(out, format!("return {};", self.e(e))),
                StmtKind::Return(None) => line(out, "return;".into()),
                StmtKind::Block(b) => {
                    line(out, "{".into());
                    self.block(b, depth + 1, out);
                    line(out, "}".into());
                }
                StmtKind::Throw(t) => line(out, throw(t)),
                StmtKind::Try {
                    body,
                    catches,
                    finally,
                } => {
                    line(out, "try {".into());
                    self.block(body, depth + 1, out);
                    for c in catches {
                        line(out, format!("}} catch ({}) {{", c.classes.join(" | ")));
                        self.block(&c.body, depth + 1, out);
                    }
                    if !finally.is_empty() {
                        line(out, "} finally {".into());
                        self.block(finally, depth + 1, out);
                    }
                    line(out, "}".into());
                }
            }
        }
    }
}

fn throw(t: &Thrown) -> String {
    match t {
        Thrown::Exception(c) => format!("throw new {c}();"),
        Thrown::Abort => "abort();".into(),
        Thrown::Exit(n) => format!("exit({n});"),
        Thrown::AssertFailed => "assert(false);".into(),
        Thrown::Undefined(what) => format!("undefined({what:?});"),
    }
}

/// `e` printed bottom-up with an explicit stack; `f` names the locals
/// (global initialisers have none).
fn expr_in(p: &Program, f: Option<&Function>, e: &Expr) -> String {
    let mut work: Vec<(&Expr, bool)> = vec![(e, false)];
    let mut done: Vec<String> = Vec::new();
    while let Some((x, children_done)) = work.pop() {
        let children = x.children();
        if children_done {
            let args = done.split_off(done.len().saturating_sub(children.len()));
            done.push(node(p, f, x, args));
        } else {
            work.push((x, true));
            work.extend(children.into_iter().rev().map(|c| (c, false)));
        }
    }
    done.pop().unwrap_or_default()
}

/// One expression node, its operands already printed (`args`, left to
/// right as [`Expr::children`] lists them).
fn node(p: &Program, f: Option<&Function>, e: &Expr, args: Vec<String>) -> String {
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    match &e.kind {
        ExprKind::IntLit(v) => v.to_string(),
        ExprKind::FloatLit(l) if l.text.is_empty() => format!("{:?}", l.value),
        ExprKind::FloatLit(l) => l.text.clone(),
        ExprKind::BoolLit(b) => b.to_string(),
        ExprKind::StrLit(s) => format!("{s:?}"),
        ExprKind::Local(id) => match f.and_then(|f| f.locals.get(id.0 as usize)) {
            Some(l) => l.name.clone(),
            None => format!("$local{}", id.0),
        },
        ExprKind::Global(g) => format!("@{}", p.global(*g).name),
        ExprKind::Unary(op, _) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "!",
            };
            format!("{o}{}", arg(0))
        }
        ExprKind::Binary(op, _, _) => format!("({} {} {})", arg(0), op.token(), arg(1)),
        ExprKind::Cond(..) => format!("({} ? {} : {})", arg(0), arg(1), arg(2)),
        ExprKind::Cast(_) => format!("({}) {}", e.ty, arg(0)),
        ExprKind::Index(..) => format!("{}[{}]", arg(0), arg(1)),
        ExprKind::Length(_) => format!("{}.length", arg(0)),
        ExprKind::IsNull(_) => format!("({} == null)", arg(0)),
        ExprKind::NewArray(_) => match e.ty.elem() {
            Some(t) => format!("new {t}[{}]", arg(0)),
            None => format!("new ?[{}]", arg(0)),
        },
        ExprKind::ArrayLit(_) => format!("{{{}}}", args.join(", ")),
        ExprKind::Intrinsic(i, _) => format!("{}({})", i.name(), args.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::Lang;

    #[test]
    fn prints_a_function_one_statement_per_line() {
        let p = crate::lang::lower(
            Lang::Java,
            "class A { static int f(int a, long b) { int s = 0; \
             for (int i = 0; i < a; i++) { if (i % 2 == 0) s += i; else break; } \
             return (int) (s + b); } }",
        );
        let text = super::program(&p);
        assert_eq!(
            text,
            "i32 f(i32 a, i64 b) {\n  i32 s;\n  i32 i;\n  s = 0;\n  i = 0;\n  \
             L0: while ((i < a)) {\n    if (((i % 2) == 0)) {\n      s = (s + i);\n    \
             } else {\n      break L0;\n    }\n  } step {\n    i = (i + 1);\n  }\n  \
             return (i32) ((i64) s + b);\n}\n",
            "{text}"
        );
    }
}
