//! Tests of the C front end. IR is compared through a compact printer so the
//! expectations read like the lowered code; every lowered program is
//! checked against the IR's invariants (`ir::validate`).

/// Parses and lowers (the front end's entry point under test), and checks
/// the IR's invariants on the result.
fn lower(src: &str) -> Program {
    let p = crate::lang::lower_unfolded(Lang::C, src);
    crate::ir::validate::assert_valid(&p);
    p
}
use crate::ir::*;

fn p(e: &Expr, f: &Function, prog: &Program) -> String {
    use ExprKind as K;
    match &e.kind {
        K::IntLit(v) => v.to_string(),
        K::FloatLit(x) => {
            if x.text.is_empty() {
                format!("{:?}", x.value)
            } else {
                x.text.clone()
            }
        }
        K::BoolLit(b) => b.to_string(),
        K::StrLit(s) => format!("{s:?}"),
        K::Local(id) => f.local(*id).name.clone(),
        K::Global(g) => prog.global(*g).name.clone(),
        K::Unary(op, a) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "!",
            };
            format!("{o}{}", p(a, f, prog))
        }
        K::Binary(op, a, b) => {
            let o = op.token();
            format!("({} {o} {})", p(a, f, prog), p(b, f, prog))
        }
        K::Cond(c, a, b) => format!(
            "({} ? {} : {})",
            p(c, f, prog),
            p(a, f, prog),
            p(b, f, prog)
        ),
        K::Cast(a) => format!("({}){}", e.ty, p(a, f, prog)),
        K::Index(a, i) => format!("{}[{}]", p(a, f, prog), p(i, f, prog)),
        K::Length(a) => format!("len({})", p(a, f, prog)),
        K::IsNull(a) => format!("isnull({})", p(a, f, prog)),
        K::NewArray(n) => format!(
            "new {}[{}]",
            e.ty.elem().map(|t| t.to_string()).unwrap_or_default(),
            p(n, f, prog)
        ),
        K::ArrayLit(xs) => format!(
            "{{{}}}",
            xs.iter()
                .map(|x| p(x, f, prog))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        K::Intrinsic(i, xs) => format!(
            "{}({})",
            i.name(),
            xs.iter()
                .map(|x| p(x, f, prog))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn place(pl: &Place, f: &Function, prog: &Program) -> String {
    match pl {
        Place::Local(id) => f.local(*id).name.clone(),
        Place::Global(g) => prog.global(*g).name.clone(),
        Place::Index { array, index } => format!("{}[{}]", p(array, f, prog), p(index, f, prog)),
    }
}

fn block(b: &Block, f: &Function, prog: &Program, ind: usize, out: &mut String) {
    for s in b {
        stmt(s, f, prog, ind, out);
    }
}

fn stmt(s: &Stmt, f: &Function, prog: &Program, ind: usize, out: &mut String) {
    let pad = "  ".repeat(ind);
    match &s.kind {
        StmtKind::Assign { place: pl, value } => out.push_str(&format!(
            "{pad}{} = {};\n",
            place(pl, f, prog),
            p(value, f, prog)
        )),
        StmtKind::Call { dest, func, args } => {
            let d = dest
                .as_ref()
                .map(|d| format!("{} = ", place(d, f, prog)))
                .unwrap_or_default();
            let a: Vec<String> = args.iter().map(|a| p(a, f, prog)).collect();
            out.push_str(&format!(
                "{pad}{d}{}({});\n",
                prog.function(*func).name,
                a.join(", ")
            ));
        }
        StmtKind::Print { kind, args } => {
            let a: Vec<String> = args.iter().map(|a| p(a, f, prog)).collect();
            let k = match kind {
                PrintKind::Printf { format } => format!("printf[{format:?}]"),
                PrintKind::C { newline } => format!("print[nl={newline}]"),
                PrintKind::Java { .. } => "java".into(),
            };
            out.push_str(&format!("{pad}{k}({});\n", a.join(", ")));
        }
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            out.push_str(&format!("{pad}if {} {{\n", p(cond, f, prog)));
            block(then_branch, f, prog, ind + 1, out);
            if !else_branch.is_empty() {
                out.push_str(&format!("{pad}}} else {{\n"));
                block(else_branch, f, prog, ind + 1, out);
            }
            out.push_str(&format!("{pad}}}\n"));
        }
        StmtKind::Loop {
            label,
            kind,
            cond,
            body,
            step,
        } => {
            let k = match kind {
                LoopKind::While => "while",
                LoopKind::DoWhile => "dowhile",
            };
            out.push_str(&format!("{pad}L{}: {k} {} {{\n", label.0, p(cond, f, prog)));
            block(body, f, prog, ind + 1, out);
            if !step.is_empty() {
                out.push_str(&format!("{pad}}} step {{\n"));
                block(step, f, prog, ind + 1, out);
            }
            out.push_str(&format!("{pad}}}\n"));
        }
        StmtKind::Labeled { label, body } => {
            out.push_str(&format!("{pad}L{}: {{\n", label.0));
            block(body, f, prog, ind + 1, out);
            out.push_str(&format!("{pad}}}\n"));
        }
        StmtKind::Break(l) => out.push_str(&format!("{pad}break L{};\n", l.0)),
        StmtKind::Continue(l) => out.push_str(&format!("{pad}continue L{};\n", l.0)),
        StmtKind::Return(None) => out.push_str(&format!("{pad}return;\n")),
        StmtKind::Return(Some(e)) => out.push_str(&format!("{pad}return {};\n", p(e, f, prog))),
        StmtKind::Block(b) => {
            out.push_str(&format!("{pad}{{\n"));
            block(b, f, prog, ind + 1, out);
            out.push_str(&format!("{pad}}}\n"));
        }
        StmtKind::Throw(t) => out.push_str(&format!("{pad}end {};\n", t.key())),
        StmtKind::Try { .. } => out.push_str(&format!("{pad}try;\n")),
        StmtKind::External {
            dest, callee, args, ..
        } => {
            let d = dest
                .as_ref()
                .map(|d| format!("{} = ", place(d, f, prog)))
                .unwrap_or_default();
            let a: Vec<String> = args.iter().map(|a| p(a, f, prog)).collect();
            out.push_str(&format!("{pad}{d}extern {callee}({});\n", a.join(", ")));
        }
    }
}

/// The lowered body of function `name`, printed.
fn show(src: &str, name: &str) -> String {
    let prog = lower(src);
    let def = prog
        .functions
        .iter()
        .find(|f| f.name == name)
        .expect("function");
    let f = match &def.body {
        Ok(f) => f,
        Err(e) => panic!("{name} not lowered: {e}"),
    };
    let mut out = String::new();
    block(&f.body, f, &prog, 0, &mut out);
    out
}

fn err(src: &str, name: &str) -> String {
    let prog = lower(src);
    let def = prog
        .functions
        .iter()
        .find(|f| f.name == name)
        .expect("function");
    match &def.body {
        Ok(_) => panic!("{name} unexpectedly lowered"),
        Err(e) => e.to_string(),
    }
}

fn func(src: &str, name: &str) -> (Program, Function) {
    let prog = lower(src);
    let f = prog
        .functions
        .iter()
        .find(|f| f.name == name)
        .expect("function")
        .body
        .clone()
        .expect("lowered");
    (prog, f)
}

/// Every expression in `b` (recursively), for invariant checks.
fn exprs<'a>(b: &'a Block, acc: &mut Vec<&'a Expr>) {
    fn e<'a>(x: &'a Expr, acc: &mut Vec<&'a Expr>) {
        acc.push(x);
        use ExprKind as K;
        match &x.kind {
            K::Unary(_, a) | K::Cast(a) | K::Length(a) | K::IsNull(a) | K::NewArray(a) => e(a, acc),
            K::Binary(_, a, b) | K::Index(a, b) => {
                e(a, acc);
                e(b, acc)
            }
            K::Cond(a, b, c) => {
                e(a, acc);
                e(b, acc);
                e(c, acc)
            }
            K::ArrayLit(xs) | K::Intrinsic(_, xs) => xs.iter().for_each(|x| e(x, acc)),
            _ => {}
        }
    }
    for s in b {
        match &s.kind {
            StmtKind::Assign { place, value } => {
                if let Place::Index { array, index } = place {
                    e(array, acc);
                    e(index, acc);
                }
                e(value, acc)
            }
            StmtKind::Call { args, .. } | StmtKind::Print { args, .. } => {
                args.iter().for_each(|x| e(x, acc))
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                e(cond, acc);
                exprs(then_branch, acc);
                exprs(else_branch, acc)
            }
            StmtKind::Loop {
                cond, body, step, ..
            } => {
                e(cond, acc);
                exprs(body, acc);
                exprs(step, acc)
            }
            StmtKind::Labeled { body, .. } | StmtKind::Block(body) => exprs(body, acc),
            StmtKind::Return(Some(x)) => e(x, acc),
            _ => {}
        }
    }
}

/// Operands of arithmetic/comparison have one type; conditions are Bool.
fn check_typing(f: &Function) {
    let mut all = Vec::new();
    exprs(&f.body, &mut all);
    for x in all {
        match &x.kind {
            ExprKind::Binary(op, a, b) => {
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    assert_eq!(a.ty, x.ty, "shift type in {}", f.name);
                } else {
                    assert_eq!(a.ty, b.ty, "operand types of {op:?} in {}", f.name);
                    if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
                        assert_eq!(x.ty, Type::Bool);
                    } else {
                        assert_eq!(a.ty, x.ty);
                    }
                }
                if matches!(op, BinOp::And | BinOp::Or) {
                    assert_eq!(a.ty, Type::Bool);
                }
            }
            ExprKind::Cond(c, a, b) => {
                assert_eq!(c.ty, Type::Bool);
                assert_eq!(a.ty, x.ty);
                assert_eq!(b.ty, x.ty);
            }
            ExprKind::Unary(UnOp::Not, a) => assert_eq!(a.ty, Type::Bool),
            _ => {}
        }
    }
}

#[test]
fn signature_params_and_spans() {
    let src = "int add(int a, long b) {\n  return a + b;\n}\nint proto(int x);\nvoid v(void) { }\n";
    let prog = lower(src);
    assert_eq!(prog.functions.len(), 2, "prototypes are not functions");
    let add = &prog.functions[0];
    assert_eq!((add.name.as_str(), add.arity), ("add", 2));
    assert_eq!(add.name_span.to_string(), "1:5");
    let f = add.body.as_ref().expect("lowered");
    assert_eq!(f.ret, Type::INT);
    assert_eq!(f.local(f.params[1]).ty, Type::LONG);
    assert_eq!(show(src, "add"), "return (i32)((i64)a + b);\n");
    assert_eq!(prog.functions[1].arity, 0);
}

#[test]
fn side_effects_are_lifted_in_order() {
    let src = "int g(int x) { return x; }\nint f(int a) { int r = a + g(a++) * a; return r; }";
    assert_eq!(
        show(src, "f"),
        "tmp3 = a;\ntmp1 = a;\na = (a + 1);\ntmp2 = g(tmp1);\nr = (tmp3 + (tmp2 * a));\nreturn r;\n"
    );
}

#[test]
fn assignment_as_expression_and_compound() {
    let src = "int f(int x, double d) { int y; if ((y = x * 2) > 3) x += d; return y++ + --x; }";
    assert_eq!(
        show(src, "f"),
        "y = 0;\ny = (x * 2);\nif (y > 3) {\n  x = (i32)((double)x + d);\n}\ntmp3 = y;\ny = (y + 1);\nx = (x - 1);\nreturn (tmp3 + x);\n"
    );
}

#[test]
fn short_circuit_with_calls_becomes_if() {
    let src = "int g(int x) { return x; }\nint f(int a) { if (a > 0 && g(a) > 1) return 1; return a || g(2); }";
    assert_eq!(
        show(src, "f"),
        "tmp2 = (a > 0);\nif tmp2 {\n  tmp1 = g(a);\n  tmp2 = (tmp1 > 1);\n}\nif tmp2 {\n  return 1;\n}\n\
tmp4 = (a != 0);\nif !tmp4 {\n  tmp3 = g(2);\n  tmp4 = (tmp3 != 0);\n}\nreturn (i32)tmp4;\n"
    );
    // Without effects on the right: a plain lazy And.
    assert_eq!(
        show("int f(int a, int b) { return a && b; }", "f"),
        "return (i32)((a != 0) && (b != 0));\n"
    );
}

#[test]
fn ternary_with_effects_and_comma() {
    let src = "int g(int x) { return x; }\nint f(int a) { int b = (a, a > 0 ? g(a) : 2); return a ? b : 1.5; }";
    assert_eq!(
        show(src, "f"),
        "if (a > 0) {\n  tmp1 = g(a);\n  tmp2 = tmp1;\n} else {\n  tmp2 = 2;\n}\nb = tmp2;\nreturn (i32)((a != 0) ? (double)b : 1.5);\n"
    );
}

#[test]
fn switch_with_fallthrough_and_default_in_the_middle() {
    let src = "int f(int x) { int r = 0; switch (x) { case 1: r = 1; case 2: r += 2; break; default: r = 9; case 3: r = 3; } return r; }";
    assert_eq!(
        show(src, "f"),
        "r = 0;\ntmp2 = x;\ntmp3 = false;\nL0: {\n\
\x20 if (tmp3 || (tmp2 == 1)) {\n    tmp3 = true;\n    r = 1;\n  }\n\
\x20 if (tmp3 || (tmp2 == 2)) {\n    tmp3 = true;\n    r = (r + 2);\n    break L0;\n  }\n\
\x20 if (tmp3 || !(((tmp2 == 1) || (tmp2 == 2)) || (tmp2 == 3))) {\n    tmp3 = true;\n    r = 9;\n  }\n\
\x20 if (tmp3 || (tmp2 == 3)) {\n    tmp3 = true;\n    r = 3;\n  }\n}\nreturn r;\n"
    );
}

#[test]
fn switch_in_loop_break_and_continue_targets() {
    let src = "int f(int n) { int s = 0; for (int i = 0; i < n; i++) { switch (i) { case 0: continue; default: break; } s++; } return s; }";
    let out = show(src, "f");
    assert!(out.contains("continue L0;"), "{out}");
    assert!(out.contains("break L1;"), "{out}");
    assert!(out.contains("L0: while (i < n) {"), "{out}");
    assert!(out.contains("} step {\n    i = (i + 1);"), "{out}");
}

#[test]
fn conversions_follow_c_rules() {
    let src = "int f(unsigned u, int i, char c, short s, long l, float fl, unsigned long ul) {\n\
  long a = u + i;\n  int b = c + s;\n  long d = l + u;\n  unsigned long e = ul + l;\n  float g = fl * 2;\n  double h = fl * 2.0;\n  int k = i < u;\n  _Bool z = i;\n  return k + z;\n}";
    assert_eq!(
        show(src, "f"),
        "a = (i64)(u + (u32)i);\nb = ((i32)c + (i32)s);\nd = (l + (i64)u);\ne = (ul + (u64)l);\n\
g = (fl * (float)2);\nh = ((double)fl * 2.0);\nk = (i32)((u32)i < u);\nz = (i != 0);\nreturn (k + (i32)z);\n"
    );
    let (_, f) = func(src, "f");
    check_typing(&f);
}

#[test]
fn shifts_keep_the_promoted_left_type() {
    assert_eq!(
        show("long f(char c, long n) { return c << n; }", "f"),
        "return (i64)((i32)c << n);\n"
    );
}

#[test]
fn literals() {
    let src = "long f(void) { unsigned a = 0xFFFFFFFF; long b = 0x7fffffffffffffffL; int c = 017; unsigned long d = 10ul; \
int e = '\\n' + '\\x41' + '\\0'; float g = 0.5f; double h = 1e-3; double k = .25; long m = 4294967296; return b; }";
    let (_, f) = func(src, "f");
    let mut all = Vec::new();
    exprs(&f.body, &mut all);
    let lit = |name: &str| -> (String, Type) {
        let s = f.body.iter().find_map(|s| match &s.kind {
            StmtKind::Assign {
                place: Place::Local(id),
                value,
            } if f.local(*id).name == name => Some(value.clone()),
            _ => None,
        });
        let v = s.expect("assignment");
        (format!("{:?}", v.kind), v.ty)
    };
    assert_eq!(
        lit("a"),
        ("IntLit(4294967295)".into(), Type::Int(IntTy::U32))
    );
    assert_eq!(lit("b").1, Type::LONG);
    assert_eq!(lit("c").0, "IntLit(15)");
    assert_eq!(lit("d").1, Type::Int(IntTy::U64));
    let g = lit("g");
    assert_eq!(g.1, Type::Float(FloatTy::F32));
    assert!(g.0.contains("text: \"0.5\""), "{}", g.0);
    assert!(lit("h").0.contains("text: \"1e-3\""));
    assert!(lit("k").0.contains("value: 0.25"));
    assert_eq!(lit("m"), ("IntLit(4294967296)".into(), Type::LONG));
    assert_eq!(
        show(
            "int f(void) { return '\\n' + '\\x41' + '\\0' + '\\377'; }",
            "f"
        ),
        "return (((10 + 65) + 0) + -1);\n"
    );
}

#[test]
fn arrays_locals_literals_and_params() {
    let src = "int f(int a[], int *b, int n) {\n  int t[4];\n  int u[] = {1, 2, 3};\n  double v[3] = {1};\n  t[n] = a[0] + b[1];\n  return sizeof(u) / sizeof(u[0]) + t[1] + v[2];\n}";
    assert_eq!(
        show(src, "f"),
        "t = new i32[4];\nu = {1, 2, 3};\nv = {(double)1, 0.0, 0.0};\nt[n] = (a[0] + b[1]);\n\
return (i32)((double)(((12 / 4) + (u64)t[1])) + v[2]);\n"
            .replace("(((12 / 4) + (u64)t[1]))", "((12 / 4) + (u64)t[1])")
    );
    let (_, f) = func(src, "f");
    assert_eq!(f.local(f.params[0]).ty, Type::Array(Box::new(Type::INT)));
    assert_eq!(f.local(f.params[1]).ty, Type::Array(Box::new(Type::INT)));
    // A pointer parameter is an array: `*p` is its first element.
    assert_eq!(show("int f(int *p) { return *p; }", "f"), "return p[0];\n");
    assert_eq!(
        show("int f(int *p) {\n  return p[0] + *(p + 1);\n}", "f"),
        "return (p[0] + p[(0 + 1)]);\n"
    );
    assert_eq!(
        err("int f(int x) { int *p = &x; return 0; }", "f"),
        "unsupported: address-of operator at 1:25"
    );
    assert_eq!(
        err("int f(int x) { int m[2][2]; return 0; }", "f"),
        "unsupported: multi-dimensional array at 1:20"
    );
    assert_eq!(
        err("int f(int x) { char s[] = \"ab\"; return 0; }", "f"),
        "unsupported: string variable at 1:27"
    );
}

#[test]
fn loops_with_conditions_that_need_statements() {
    let src = "int g(int x) { return x; }\nint f(int n) { int i = 0; while (g(i) < n) { i++; if (i == 5) continue; } do { i--; } while (g(i) > 0); return i; }";
    assert_eq!(
        show(src, "f"),
        "i = 0;\nL0: while true {\n  tmp2 = g(i);\n  if !(tmp2 < n) {\n    break L0;\n  }\n  i = (i + 1);\n  if (i == 5) {\n    continue L0;\n  }\n}\n\
L1: while true {\n  L2: {\n    i = (i - 1);\n  }\n  tmp3 = g(i);\n  if !(tmp3 > 0) {\n    break L1;\n  }\n}\nreturn i;\n"
    );
    let simple = show(
        "int f(int i) { do i--; while (i); for (;;) break; return i; }",
        "f",
    );
    assert_eq!(
        simple,
        "L0: dowhile (i != 0) {\n  i = (i - 1);\n}\nL1: while true {\n  break L1;\n}\nreturn i;\n"
    );
}

#[test]
fn block_scoping_and_shadowing_get_distinct_locals() {
    let src = "int f(int x) { int y = x; { int x = 2; y += x; } for (int x = 0; x < 1; x++) y += x; return x + y; }";
    let (_, f) = func(src, "f");
    let xs: Vec<_> = f.locals.iter().filter(|l| l.name == "x").collect();
    assert_eq!(xs.len(), 3);
    assert_eq!(
        show(src, "f"),
        "y = x;\n{\n  x = 2;\n  y = (y + x);\n}\n{\n  x = 0;\n  L0: while (x < 1) {\n    y = (y + x);\n  } step {\n    x = (x + 1);\n  }\n}\nreturn (x + y);\n"
    );
}

#[test]
fn array_globals_have_their_declared_length() {
    let src = "#define N 8\nint t[N];\nint u[] = {1, 2, 3};\nstatic double z[4];\nextern int e[5];\n\
int f(int i) { return t[i] + u[i] + (int)z[i] + e[i]; }";
    let prog = lower(src);
    let lens: Vec<(&str, Option<u64>)> = prog
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.declared_len))
        .collect();
    assert_eq!(
        lens,
        [
            ("t", Some(8)),
            ("u", Some(3)),
            ("z", Some(4)),
            ("e", Some(5))
        ]
    );
    let zeros = |name: &str| {
        let g = prog
            .globals
            .iter()
            .find(|g| g.name == name)
            .expect("global");
        match g.initial.as_ref().map(|e| &e.kind) {
            Some(ExprKind::NewArray(n)) => Some(n.kind.clone()),
            _ => None,
        }
    };
    // Static storage without an initialiser starts as that many zeros; an
    // `extern` array is initialised elsewhere.
    assert_eq!(zeros("t"), Some(ExprKind::IntLit(8)));
    assert_eq!(zeros("z"), Some(ExprKind::IntLit(4)));
    assert_eq!(zeros("e"), None);
}

#[test]
fn globals_defines_enums() {
    let src = "#include <stdio.h>\n#define N 8\n#define HALF (N / 2)\n#define TWICE N*2\nenum Color { RED, GREEN = 5, BLUE };\n\
static const unsigned int primes[4] = { 2, 3, 5 };\nconst double PI2 = 2 * M_PI;\nint counter;\n\
int f(int i) { counter += BLUE; int a = TWICE; return primes[i] + N + HALF + a; }\nint g(int i) { return TWICE + 1; }";
    let prog = lower(src);
    assert_eq!(prog.globals.len(), 3);
    assert_eq!(prog.globals[0].name, "primes");
    assert_eq!(
        prog.globals[0].ty,
        Type::Array(Box::new(Type::Int(IntTy::U32)))
    );
    assert!(
        matches!(&prog.globals[0].constant, Some(Expr { kind: ExprKind::ArrayLit(xs), .. }) if xs.len() == 4)
    );
    assert!(prog.globals[1].constant.is_some());
    assert!(
        prog.globals[2].constant.is_none(),
        "non-const globals are inputs"
    );
    assert_eq!(
        show(src, "f"),
        "counter = (counter + 6);\na = (8 * 2);\nreturn (i32)((((primes[(u32)i] + 8) + (u32)(8 / 2)) + (u32)a));\n"
            .replace("primes[(u32)i]", "primes[i]")
            .replace("(i32)((((", "(i32)(((")
            .replace("(u32)a))", "(u32)a)")
    );
    assert_eq!(
        err(src, "g"),
        "unsupported: macro TWICE with an unparenthesised body used inside an operator at 10:23"
    );
}

#[test]
fn math_and_printing() {
    let src = "#include <math.h>\nvoid f(double x, float y, int i, char c) {\n  printf(\"%f %f %d %s\\n\", sqrt(i) + fabs(x), y, c, \"hi\");\n  puts(\"done\");\n  putchar(i);\n  double m = fmin(x, pow(x, 2));\n  int a = abs(i);\n}";
    assert_eq!(
        show(src, "f"),
        "printf[\"%f %f %d %s\\n\"]((sqrt((double)i) + abs(x)), (double)y, (i32)c, \"hi\");\n\
print[nl=true](\"done\");\nprint[nl=false]((char)i);\n\
tmp4 = pow(x, (double)2);\nm = ((tmp4 != tmp4) ? x : ((x <= tmp4) ? x : tmp4));\na = abs(i);\n"
    );
    assert_eq!(
        show("double f(double x) { return round(x); }", "f"),
        "return round half away(x);\n"
    );
    assert_eq!(
        err("long f(double x) { return lround(x); }", "f"),
        "unsupported: lround (C rounds halves away from zero) at 1:27"
    );
}

/// `frexp(x, &e)` stores the exponent, then yields the mantissa; run
/// concretely it agrees with glibc (`x = m * 2^e`, `0.5 <= |m| < 1`).
#[test]
fn frexp_stores_the_exponent_and_yields_the_mantissa() {
    let src = "#include <math.h>\ndouble f(double x) { int e; double m = frexp(x * 2.0, &e); return m + e * 10; }";
    assert_eq!(
        show(src, "f"),
        "e = 0;\ntmp2 = (x * 2.0);\ne = frexp exponent(tmp2);\nm = frexp(tmp2);\nreturn (m + (double)(e * 10));\n"
    );
    let p = lower(src);
    let run = |x: f64| {
        crate::interp::run_named(
            &p,
            "f",
            crate::ir::Semantics::Machine,
            vec![crate::value::Value::F64(x)],
        )
    };
    let returns = |v: f64| crate::interp::Outcome::Return(crate::value::Value::F64(v));
    // 3.0 = 0.75 * 2^2; -0.375 = -0.75 * 2^-1; 0 and NaN: exponent 0.
    assert_eq!(run(1.5), returns(0.75 + 20.0));
    assert_eq!(run(-0.1875), returns(-0.75 - 10.0));
    assert_eq!(run(0.0), returns(0.0));
    assert_eq!(
        err(
            "#include <math.h>\ndouble f(double x, int *p) { return frexp(x, p); }",
            "f"
        ),
        "unsupported: frexp's exponent pointer other than &variable at 2:46"
    );
    assert_eq!(
        err(
            "#include <math.h>\ndouble f(double x) { long e; return frexp(x, &e); }",
            "f"
        ),
        "unsupported: frexp's exponent stored into type i64 at 2:47"
    );
}

/// A pointer parameter tested against `NULL` (`p == NULL`, `p != 0`,
/// `!p`, `p` as a condition) is the array input's null test; a pointer
/// that has moved is not `NULL` even where its array is (an address past
/// it), and a local array never is. Run concretely on `NULL` and on an
/// array.
#[test]
fn null_tests_of_pointer_parameters() {
    use crate::interp::Outcome;
    use crate::value::Value;
    let src = "#include <stddef.h>\n\
        int eq(const int *a) { return a == NULL ? 1 : 0; }\n\
        int ne(const int *a) { return a != 0 ? 1 : 0; }\n\
        int bang(const int *a, int n) { if (!a || n <= 0) return -1; return a[0]; }\n\
        int moved(const int *a) { const int *p = a; p++; return p ? 1 : 0; }\n\
        int local(void) { int b[2] = {1, 2}; return b == NULL ? 1 : 0; }\n";
    assert_eq!(
        show(src, "eq"),
        "return (isnull(a) ? 1 : 0);\n",
        "a NULL test is the array's null flag"
    );
    let p = lower(src);
    let run = |name: &str, args: Vec<Value>| {
        crate::interp::run_named(&p, name, crate::ir::Semantics::Machine, args)
    };
    let array = || Value::Array(vec![Value::int(7)]);
    let int = |v: i64| Outcome::Return(Value::int(v));
    assert_eq!(run("eq", vec![Value::Null]), int(1));
    assert_eq!(run("eq", vec![array()]), int(0));
    assert_eq!(run("ne", vec![Value::Null]), int(0));
    assert_eq!(run("bang", vec![Value::Null, Value::int(3)]), int(-1));
    assert_eq!(run("bang", vec![array(), Value::int(3)]), int(7));
    assert_eq!(run("moved", vec![Value::Null]), int(1));
    assert_eq!(run("local", vec![]), int(0));
}

#[test]
fn function_like_macros_expand_where_used() {
    let src = "#include <stdlib.h>\n\
#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))\n\
#define BUG_ON(c) do { if (c) abort(); } while (0)\n\
#define SQ(a) a * a\n\
int f(int x, int y) { BUG_ON(x > y); return MAX(DIV_ROUND_UP(x, 4), y); }\n\
int g(int x) { int i = 0; int m = MAX(i++, x); return m + i; }\n\
int h(int x) { return 2 * SQ(x); }\n\
int k(int x) { return MAX(x); }\n";
    let p = lower(src);
    let run = |name: &str, args: &[i64]| {
        let args = args.iter().map(|&a| crate::value::Value::int(a)).collect();
        crate::interp::run_named(&p, name, crate::ir::Semantics::Machine, args)
    };
    let returns = |v: i64| crate::interp::Outcome::Return(crate::value::Value::int(v));
    assert_eq!(run("f", &[9, 10]), returns(10), "MAX(3, 10)");
    assert_eq!(run("f", &[-3, -2]), returns(0), "MAX((-3 + 3) / 4, -2)");
    assert!(
        matches!(run("f", &[11, 10]), crate::interp::Outcome::Fault { .. }),
        "BUG_ON aborts"
    );
    // The argument is pasted twice, as the preprocessor does: i++ runs
    // twice when it is the larger.
    assert_eq!(run("g", &[-5]), returns(1 + 2));
    assert_eq!(run("g", &[5]), returns(5 + 1));
    // An unparenthesised body inside an operator is refused (2 * x * x
    // happens to be right, but a + in the body would not be).
    assert_eq!(
        err(src, "h"),
        "unsupported: macro SQ with an unparenthesised body used inside an operator at 8:27"
    );
    assert_eq!(
        err(src, "k"),
        "unsupported: macro MAX takes 2 arguments, given 1 at 9:23"
    );
}

#[test]
fn unsupported_constructs_name_the_construct_and_position() {
    let src = "int f(int x) {\n  if (x) goto end;\n  return 1;\nend:\n  return 0;\n}\n\
struct P { int a; };\nint g(struct P *p) { return p->a; }\nint h(int x) { return foo(x); }\n\
#define CAT(a, b) a ## b\nint k(int x) { return CAT(x, 1); }\n\
int m(int x) { { static int c = 1; } { static int c = 2; return c; } }";
    assert_eq!(err(src, "f"), "unsupported: goto statement at 2:10");
    assert_eq!(err(src, "g"), "unsupported: pointer to struct at 8:16");
    assert_eq!(
        err(src, "h"),
        "unsupported: call to unknown function foo at 9:23"
    );
    assert_eq!(
        err(src, "k"),
        "unsupported: macro CAT using # or ## (stringizing or pasting) at 11:23"
    );
    // Two static locals of one name in one function are not told apart.
    assert_eq!(err(src, "m"), "unsupported: static local variable at 12:40");
}

#[test]
fn static_locals_are_globals_of_their_function() {
    let src = "int days(int m) {\n\
  static const int len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};\n\
  return len[m - 1];\n\
}\n\
int len(int k) { int len = k; { static int calls; calls++; len += calls; } return len; }\n";
    let p = lower(src);
    let names: Vec<&str> = p.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["days.len", "len.calls"]);
    // The table has its initial values; the counter starts at zero.
    assert!(p.globals.iter().all(|g| g.file_local));
    let run = |name: &str, args: &[i64]| {
        let args = args.iter().map(|&a| crate::value::Value::int(a)).collect();
        crate::interp::run_named(&p, name, crate::ir::Semantics::Machine, args)
    };
    let returns = |v: i64| crate::interp::Outcome::Return(crate::value::Value::int(v));
    assert_eq!(run("days", &[2]), returns(28));
    assert_eq!(run("days", &[12]), returns(31));
    assert!(matches!(
        run("days", &[13]),
        crate::interp::Outcome::Fault { .. }
    ));
    // The counter is named apart from the function `len` and its local
    // `len`; it starts at zero on the first call.
    assert_eq!(run("len", &[10]), returns(11));
}

#[test]
fn syntax_error_only_affects_its_function() {
    let src = "int ok(int x) { return x; }\nint bad(int x) {\n  return x +;\n}\nint ok2(int y) { return y; }\n";
    let prog = lower(src);
    let names: Vec<_> = prog.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["ok", "bad", "ok2"]);
    assert!(prog.functions[0].body.is_ok());
    assert!(prog.functions[2].body.is_ok());
    let e = prog.functions[1].body.as_ref().expect_err("syntax error");
    assert_eq!(e.kind, LowerErrorKind::SyntaxError);
    assert_eq!(e.span.line(), 3);
}

#[test]
fn calls_convert_arguments_and_check_arity() {
    let src = "double h(double a, int b[]) { return a + b[0]; }\nvoid f(int x, int arr[]) { h(x, arr); double d = h(1, arr); }\nint g(int x) { return h(x); }";
    assert_eq!(
        show(src, "f"),
        "h((double)x, arr);\ntmp2 = h((double)1, arr);\nd = tmp2;\n"
    );
    assert_eq!(
        err(src, "g"),
        "unsupported: call to h with 1 arguments instead of 2 at 3:23"
    );
}

#[test]
fn array_element_assignment_value_is_kept_in_a_temp() {
    let src = "int f(int a[], int i) { int x = a[i] = 3; a[a[0]] += x; a[i]++; return x; }";
    assert_eq!(
        show(src, "f"),
        "a[i] = 3;\nx = 3;\na[a[0]] = (a[a[0]] + x);\na[i] = (a[i] + 1);\nreturn x;\n"
    );
}

#[test]
fn parenthesised_call_times_value_is_a_multiplication() {
    let src = "double sq(double a) { return a * a; }\ndouble f(double x, double y) { return (sq(x))*y/3.0; }";
    assert_eq!(
        show(src, "f"),
        "tmp2 = sq(x);\nreturn ((tmp2 * y) / 3.0);\n"
    );
    // A real type stays a cast (here of a dereference).
    assert_eq!(
        show("double f(double *y) { return (double)*y; }", "f"),
        "return y[0];\n"
    );
}

#[test]
fn macros_paste_like_the_preprocessor() {
    let src = "#define NEG -1\n#define D (double)2\n#define K (x + 1)\n#define SUM 1 + 2\nint f(int x) { int a = NEG * 3 + K; return SUM; }\n\
double g(int x) { return D * x; }\nint h(int x) { return SUM * 2; }\n#define R R\nint r(void) { return R; }";
    assert_eq!(
        show(src, "f"),
        "a = ((-1 * 3) + (x + 1));\nreturn (1 + 2);\n"
    );
    assert_eq!(show(src, "g"), "return ((double)2 * (double)x);\n");
    assert!(err(src, "h").contains("macro SUM with an unparenthesised body"));
    assert_eq!(err(src, "r"), "unsupported: recursive macro R at 9:22");
}

#[test]
fn globals_of_unsupported_types_are_named_at_the_use() {
    let src = "struct S { int a; };\nstruct S s;\nint *p;\nint f(void) { return p[0]; }";
    assert_eq!(
        err(src, "f"),
        "unsupported: global p of unsupported type (pointer or multi-dimensional array) at 4:22"
    );
}

#[test]
fn deep_nesting_is_unsupported_not_a_crash() {
    let expr = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let src = format!("int f(void) {{ return {expr}; }}");
    let prog = lower(&src);
    assert_eq!(prog.functions.len(), 1);
    let e = prog.functions[0].body.as_ref().expect_err("too deep");
    assert_eq!(e.what, "expression nested too deeply");
    let chain = vec!["x"; 3000].join(" + ");
    let src = format!("int f(int x) {{ return {chain}; }}");
    let prog = lower(&src);
    assert_eq!(prog.functions.len(), 1);
}

#[test]
fn bool_and_typedefs() {
    let src = "#include <stdbool.h>\n#include <stdint.h>\ntypedef unsigned long long u64;\ntypedef int32_t myint;\n\
bool f(u64 x, myint y, bool b) { bool r = b || x > 3; b++; return !r && y; }";
    let (_, f) = func(src, "f");
    assert_eq!(f.local(f.params[0]).ty, Type::Int(IntTy::U64));
    assert_eq!(f.local(f.params[1]).ty, Type::INT);
    assert_eq!(f.ret, Type::Bool);
    assert_eq!(
        show(src, "f"),
        "r = (b || (x > 3));\nb = (((i32)b + 1) != 0);\nreturn (!r && (y != 0));\n"
    );
    check_typing(&f);
}

#[test]
fn every_node_has_a_span() {
    let src = "int g(int x) { return x; }\nint f(int a) {\n  int s = 0;\n  for (int i = 0; i < a; i++) s += g(i) > 2 ? i : -i;\n  return s;\n}";
    let (_, f) = func(src, "f");
    let mut all = Vec::new();
    exprs(&f.body, &mut all);
    for e in all {
        assert!(
            e.span.end.byte > e.span.start.byte,
            "empty span on {:?}",
            e.kind
        );
    }
}

/// Lowers every EqBench C file: no panics, and a tally of what remains
/// unsupported (`cargo test -p eqlens-core eqbench_c -- --nocapture`).
#[test]
fn eqbench_c_corpus() {
    let root = std::path::Path::new("/work/shared/corpora/eqbench-dev");
    if !root.exists() {
        eprintln!("note: {} absent; skipping the corpus test", root.display());
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "c") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut ok, mut total) = (0, 0);
    let mut tally: std::collections::BTreeMap<String, (usize, String)> = Default::default();
    for path in &files {
        let Ok(src) = std::fs::read_to_string(path) else {
            continue;
        };
        let prog = lower(&src);
        for f in &prog.functions {
            total += 1;
            match &f.body {
                Ok(func) => {
                    ok += 1;
                    check_typing(func);
                }
                Err(e) => {
                    let entry = tally.entry(e.what.clone()).or_insert((0, String::new()));
                    entry.0 += 1;
                    if entry.1.is_empty() {
                        entry.1 = format!("{}:{}", path.display(), e.span);
                    }
                }
            }
        }
    }
    let mut by_count: Vec<_> = tally.into_iter().collect();
    by_count.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    println!(
        "EqBench C: {} files, {ok}/{total} functions lowered",
        files.len()
    );
    for (what, (n, example)) in by_count {
        println!("  {n:4}  {what}  (e.g. {example})");
    }
    assert!(total > 0);
}

#[test]
fn abort_exit_and_assert_end_the_run() {
    let src = "#include <stdlib.h>\n#include <assert.h>\nint f(int x) {\n  assert(x != 3);\n  if (x < 0) abort();\n  if (x > 9) exit(EXIT_FAILURE);\n  if (x > 5) exit(-1);\n  return x;\n}\nint g(int x) {\n  exit(x);\n}\nint h(int x) {\n  return abort();\n}";
    assert_eq!(
        show(src, "f"),
        "if !(x != 3) {\n  end abort;\n}\nif (x < 0) {\n  end abort;\n}\nif (x > 9) {\n  end exit 1;\n}\nif (x > 5) {\n  end exit 255;\n}\nreturn x;\n"
    );
    assert_eq!(
        err(src, "g"),
        "unsupported: exit with a non-constant status at 11:8"
    );
    assert_eq!(
        err(src, "h"),
        "unsupported: use of the result of abort at 14:10"
    );
}

#[test]
fn declared_but_undefined_functions_are_calls_outside_the_file() {
    let src = "int step(int crc, int byte);\nvoid log_value(long v);\nint *find(int key);\nint f(int a) {\n  log_value(a);\n  return step(-1, a) + 1;\n}\nint g(int a) {\n  find(a);\n  return 0;\n}\nint h(int a) {\n  return undeclared(a);\n}";
    assert_eq!(
        show(src, "f"),
        "extern log_value((i64)a);\ntmp1 = extern step(-1, a);\nreturn (tmp1 + 1);\n"
    );
    assert!(
        err(src, "g").contains("declared with an unsupported signature"),
        "{}",
        err(src, "g")
    );
    assert_eq!(
        err(src, "h"),
        "unsupported: call to unknown function undeclared at 13:10"
    );
}

#[test]
fn structs_are_lowered_to_their_leaves() {
    let src = "typedef struct { double x; double y; } vec;\n\
struct seg { vec a; vec b; int tag; };\n\
vec mk(double x, double y) { vec v; v.x = x; v.y = y; return v; }\n\
double len1(struct seg s) { return s.b.x - s.a.x + s.b.y - s.a.y; }\n\
struct seg g;\n\
double f(double x) { struct seg s; s.a = mk(x, 1.0); s.b = s.a; s.b.x += 2.0; g = s; return len1(s) + mk(x, x).y; }";
    let (prog, f) = func(src, "len1");
    let params: Vec<&str> = f.params.iter().map(|p| f.local(*p).name.as_str()).collect();
    assert_eq!(params, ["s.a.x", "s.a.y", "s.b.x", "s.b.y", "s.tag"]);
    let (_, mk) = func(src, "mk");
    assert_eq!(mk.ret, Type::Void);
    let slots: Vec<(&str, Option<&str>)> = prog
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.return_of.as_deref()))
        .collect();
    assert_eq!(
        slots,
        [
            ("g.a.x", None),
            ("g.a.y", None),
            ("g.b.x", None),
            ("g.b.y", None),
            ("g.tag", None),
            ("mk().x", Some("mk")),
            ("mk().y", Some("mk")),
        ]
    );
    assert_eq!(
        show(src, "mk"),
        "v.x = 0.0;\nv.y = 0.0;\nv.x = x;\nv.y = y;\nmk().x = v.x;\nmk().y = v.y;\nreturn;\n"
    );
    // The call's results are copied out of the slots before anything else
    // can call mk again; struct assignment copies every leaf.
    assert_eq!(
        show(src, "f"),
        "s.a.x = 0.0;\ns.a.y = 0.0;\ns.b.x = 0.0;\ns.b.y = 0.0;\ns.tag = 0;\n\
mk(x, 1.0);\ntmp6 = mk().x;\ntmp7 = mk().y;\ns.a.x = tmp6;\ns.a.y = tmp7;\n\
s.b.x = s.a.x;\ns.b.y = s.a.y;\ns.b.x = (s.b.x + 2.0);\n\
g.a.x = s.a.x;\ng.a.y = s.a.y;\ng.b.x = s.b.x;\ng.b.y = s.b.y;\ng.tag = s.tag;\n\
tmp8 = len1(s.a.x, s.a.y, s.b.x, s.b.y, s.tag);\n\
mk(x, x);\ntmp9 = mk().x;\ntmp10 = mk().y;\nreturn (tmp8 + tmp10);\n"
    );
    check_typing(&func(src, "f").1);
}

#[test]
fn struct_misuse_names_the_construct() {
    let src = "struct P { int a; int b; };\nstruct Q { int a; };\n\
int f(struct P p) { return p; }\n\
int g(int x) { struct P ps[3]; return 0; }\n\
int h(int x) { struct P p = {1, 2}; return p.a; }\n\
int k(struct P p) { struct Q q; q = p; return q.a; }\n\
int m(struct P p) { return p.c; }\n\
struct R { int v[4]; };\nint n(struct R r) { return 0; }";
    assert_eq!(
        err(src, "f"),
        "unsupported: struct p used as a number at 3:28"
    );
    assert_eq!(err(src, "g"), "unsupported: array of structs at 4:25");
    assert_eq!(
        err(src, "h"),
        "unsupported: brace initialiser for a struct at 5:29"
    );
    assert_eq!(
        err(src, "k"),
        "unsupported: struct P where struct Q is expected at 6:37"
    );
    assert_eq!(
        err(src, "m"),
        "unsupported: struct P has no field c at 7:28"
    );
    assert_eq!(
        err(src, "n"),
        "unsupported: struct R with field v of unsupported type (array field) at 9:7"
    );
}

#[test]
fn enums_declared_in_functions_are_constants_where_nothing_shadows_them() {
    let src = "enum { TOP = 7 };\nint g;\n\
int f(int k) {\n  enum state { IDLE, RUN = IDLE + 3, DONE } s = RUN;\n  enum { STEP = 2 };\n  return k == DONE ? s : STEP;\n}\n\
int clash_file(int k) { enum { TOP = 1 }; return k; }\n\
int clash_local(int IDLE2) { enum { IDLE2 }; return 0; }\n\
int clash_global(int k) { enum { g }; return k; }\n\
int two(int k) { enum { A = 1 }; return A; }\nint other(int k) { enum { A = 2 }; return A; }\n";
    let p = lower(src);
    let run = |name: &str, args: &[i64]| {
        let args = args.iter().map(|&a| crate::value::Value::int(a)).collect();
        crate::interp::run_named(&p, name, crate::ir::Semantics::Machine, args)
    };
    let returns = |v: i64| crate::interp::Outcome::Return(crate::value::Value::int(v));
    assert_eq!(run("f", &[4]), returns(3));
    assert_eq!(run("f", &[0]), returns(2));
    assert_eq!(
        err(src, "clash_file"),
        "unsupported: enumerator TOP shadowing an enumerator of the file at 8:32"
    );
    assert_eq!(
        err(src, "clash_local"),
        "unsupported: enumerator IDLE2 shadowing a variable in scope at 9:37"
    );
    assert_eq!(
        err(src, "clash_global"),
        "unsupported: enumerator g shadowing a global variable at 10:34"
    );
    // One name given two values by two functions' enums is not guessed.
    assert_eq!(
        err(src, "two"),
        "unsupported: enumerator A, given different values by enums of two functions at 11:25"
    );
}

#[test]
fn loops_whose_guards_step_a_counter_are_rotated_and_keep_their_meaning() {
    let src = "int down(int n) { int c = 0; int i = n; while (--i >= 0) c += i; return c; }\n\
int post(int n) { int c = 0; while (n-- > 0) { if (n % 3 == 0) continue; c += n; } return c * 100 + n; }\n";
    let p = lower(src);
    // The guard is the loop's own condition (not `while (1)` with a break).
    let f = p.functions[0].body.as_ref().expect("lowers");
    assert!(crate::ir::any_stmt(&f.body, &mut |s| matches!(
        &s.kind,
        StmtKind::Loop { cond, .. } if !matches!(cond.kind, ExprKind::BoolLit(true))
    )));
    let run = |name: &str, n: i64| {
        crate::interp::run_named(
            &p,
            name,
            crate::ir::Semantics::Machine,
            vec![crate::value::Value::int(n)],
        )
    };
    let returns = |v: i64| crate::interp::Outcome::Return(crate::value::Value::int(v));
    for n in -2i64..8 {
        let down: i64 = (0..n.max(0)).sum();
        assert_eq!(run("down", n), returns(down), "down({n})");
        let mut c = 0;
        let mut m = n;
        loop {
            let t = m;
            m -= 1;
            if t <= 0 {
                break;
            }
            if m % 3 == 0 {
                continue;
            }
            c += m;
        }
        assert_eq!(run("post", n), returns(c * 100 + m), "post({n})");
    }
}
