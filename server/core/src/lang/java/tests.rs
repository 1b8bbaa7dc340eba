//! Tests of the Java front end: IR shapes (lifting order, promotion,
//! short-circuit, switch), errors with positions, the IR invariants
//! (`ir::validate`) checked on every lowered program, a small evaluator for control-flow
//! semantics, and a sweep over the EqBench corpus.

/// Parses and lowers (the front end's entry point under test).
fn lower(src: &str) -> Program {
    crate::lang::lower_unfolded(Lang::Java, src)
}
use crate::ir::*;
use std::collections::BTreeMap;

// ---------------------------------------------------------------- helpers

fn prog(src: &str) -> Program {
    let p = lower(src);
    validate::assert_valid(&p);
    p
}

fn func<'a>(p: &'a Program, name: &str) -> &'a Function {
    let f = p
        .functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"));
    match &f.body {
        Ok(b) => b,
        Err(e) => panic!("{name} did not lower: {e}"),
    }
}

fn err<'a>(p: &'a Program, name: &str) -> &'a LowerError {
    let f = p
        .functions
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no function {name}"));
    match &f.body {
        Ok(_) => panic!("{name} lowered but should not"),
        Err(e) => e,
    }
}

/// Lowers `class A { <members> }` and renders the body of `name`.
fn body_of(members: &str, name: &str) -> String {
    let src = format!("class A {{\n{members}\n}}");
    let p = prog(&src);
    let f = func(&p, name);
    show_block(&p, f, &f.body)
}

fn show_block(p: &Program, f: &Function, b: &Block) -> String {
    b.iter()
        .map(|s| show_stmt(p, f, s))
        .collect::<Vec<_>>()
        .join("; ")
}

fn show_place(p: &Program, f: &Function, pl: &Place) -> String {
    match pl {
        Place::Local(id) => f.local(*id).name.clone(),
        Place::Global(g) => format!("@{}", p.global(*g).name),
        Place::Index { array, index } => format!("{}[{}]", show(p, f, array), show(p, f, index)),
    }
}

fn show_stmt(p: &Program, f: &Function, s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Assign { place, value } => {
            format!("{} = {}", show_place(p, f, place), show(p, f, value))
        }
        StmtKind::Call { dest, func, args } => {
            let args: Vec<String> = args.iter().map(|a| show(p, f, a)).collect();
            let call = format!("{}#{}({})", p.function(*func).name, func.0, args.join(", "));
            match dest {
                Some(d) => format!("{} = {call}", show_place(p, f, d)),
                None => call,
            }
        }
        StmtKind::Print { kind, args } => {
            let args: Vec<String> = args.iter().map(|a| show(p, f, a)).collect();
            let name = match kind {
                PrintKind::Java { newline: true } => "println",
                _ => "print",
            };
            format!("{name}({})", args.join(", "))
        }
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            let mut r = format!(
                "if {} {{ {} }}",
                show(p, f, cond),
                show_block(p, f, then_branch)
            );
            if !else_branch.is_empty() {
                r += &format!(" else {{ {} }}", show_block(p, f, else_branch));
            }
            r
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
            let mut r = format!(
                "L{}: {k} {} {{ {} }}",
                label.0,
                show(p, f, cond),
                show_block(p, f, body)
            );
            if !step.is_empty() {
                r += &format!(" step {{ {} }}", show_block(p, f, step));
            }
            r
        }
        StmtKind::Labeled { label, body } => {
            format!("L{}: {{ {} }}", label.0, show_block(p, f, body))
        }
        StmtKind::Break(l) => format!("break L{}", l.0),
        StmtKind::Continue(l) => format!("continue L{}", l.0),
        StmtKind::Return(None) => "return".into(),
        StmtKind::Return(Some(e)) => format!("return {}", show(p, f, e)),
        StmtKind::Block(b) => format!("{{ {} }}", show_block(p, f, b)),
        StmtKind::Throw(t) => format!("throw {}", t.key()),
        StmtKind::External {
            dest,
            callee,
            args,
            ret,
        } => {
            let args: Vec<String> = args.iter().map(|a| show(p, f, a)).collect();
            let call = format!("extern {callee}({}): {ret}", args.join(", "));
            match dest {
                Some(d) => format!("{} = {call}", show_place(p, f, d)),
                None => call,
            }
        }
        StmtKind::Try {
            body,
            catches,
            finally,
        } => {
            let mut r = format!("try {{ {} }}", show_block(p, f, body));
            for c in catches {
                r += &format!(
                    " catch {} {{ {} }}",
                    c.classes.join("|"),
                    show_block(p, f, &c.body)
                );
            }
            if !finally.is_empty() {
                r += &format!(" finally {{ {} }}", show_block(p, f, finally));
            }
            r
        }
    }
}

fn show(p: &Program, f: &Function, e: &Expr) -> String {
    match &e.kind {
        ExprKind::IntLit(v) => v.to_string(),
        ExprKind::FloatLit(l) => l.text.clone(),
        ExprKind::BoolLit(b) => b.to_string(),
        ExprKind::StrLit(s) => format!("{s:?}"),
        ExprKind::Local(id) => f.local(*id).name.clone(),
        ExprKind::Global(g) => format!("@{}", p.global(*g).name),
        ExprKind::Unary(op, a) => {
            let o = match op {
                UnOp::Neg => "-",
                UnOp::BitNot => "~",
                UnOp::Not => "!",
            };
            format!("{o}{}", show(p, f, a))
        }
        ExprKind::Binary(op, a, b) => {
            format!("({} {} {})", show(p, f, a), op.token(), show(p, f, b))
        }
        ExprKind::Cond(c, a, b) => format!(
            "({} ? {} : {})",
            show(p, f, c),
            show(p, f, a),
            show(p, f, b)
        ),
        ExprKind::Cast(a) => format!("({}){}", e.ty, show(p, f, a)),
        ExprKind::Index(a, i) => format!("{}[{}]", show(p, f, a), show(p, f, i)),
        ExprKind::Length(a) => format!("{}.length", show(p, f, a)),
        ExprKind::IsNull(a) => format!("({} == null)", show(p, f, a)),
        ExprKind::NewArray(n) => {
            format!(
                "new {}[{}]",
                e.ty.elem().map(|t| t.to_string()).unwrap_or_default(),
                show(p, f, n)
            )
        }
        ExprKind::ArrayLit(xs) => format!(
            "{{{}}}",
            xs.iter()
                .map(|x| show(p, f, x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ExprKind::Intrinsic(i, xs) => {
            format!(
                "{}({})",
                i.name(),
                xs.iter()
                    .map(|x| show(p, f, x))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    }
}

// ------------------------------------------------------ a tiny evaluator

/// Integer/boolean/array evaluator for control-flow tests (wrapping at the
/// declared widths; floats unsupported). Independent of `crate::interp`.
#[derive(Clone, Debug, PartialEq)]
enum V {
    I(i128),
    B(bool),
    A(std::rc::Rc<std::cell::RefCell<Vec<V>>>),
}

enum Flow {
    Next,
    Break(LabelId),
    Continue(LabelId),
    Return(Option<V>),
}

struct Ev<'a> {
    p: &'a Program,
    out: Vec<String>,
    globals: BTreeMap<u32, V>,
    steps: u32,
}

fn wrap(v: i128, t: &Type) -> i128 {
    let Type::Int(it) = t else { return v };
    let bits = u32::from(it.bits);
    let m = v.rem_euclid(1i128 << bits);
    if it.signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

impl Ev<'_> {
    fn call(&mut self, id: FuncId, args: Vec<V>) -> Option<V> {
        let f = self.p.function(id).body.as_ref().expect("lowered");
        let mut env: Vec<Option<V>> = vec![None; f.locals.len()];
        for (pid, a) in f.params.iter().zip(args) {
            env[pid.0 as usize] = Some(a);
        }
        match self.block(f, &f.body, &mut env) {
            Flow::Return(v) => v,
            _ => None,
        }
    }

    fn block(&mut self, f: &Function, b: &Block, env: &mut Vec<Option<V>>) -> Flow {
        for s in b {
            self.steps += 1;
            assert!(self.steps < 100_000, "runaway");
            let fl = self.stmt(f, s, env);
            if !matches!(fl, Flow::Next) {
                return fl;
            }
        }
        Flow::Next
    }

    fn set(&mut self, pl: &Place, v: V, env: &mut [Option<V>]) {
        match pl {
            Place::Local(id) => env[id.0 as usize] = Some(v),
            Place::Global(g) => {
                self.globals.insert(g.0, v);
            }
            Place::Index { array, index } => {
                let (V::A(a), V::I(i)) = (self.eval(array, env), self.eval(index, env)) else {
                    panic!()
                };
                a.borrow_mut()[i as usize] = v;
            }
        }
    }

    fn stmt(&mut self, f: &Function, s: &Stmt, env: &mut Vec<Option<V>>) -> Flow {
        match &s.kind {
            StmtKind::Assign { place, value } => {
                let v = self.eval(value, env);
                self.set(place, v, env);
            }
            StmtKind::Call { dest, func, args } => {
                let args = args.iter().map(|a| self.eval(a, env)).collect();
                let r = self.call(*func, args);
                if let (Some(d), Some(r)) = (dest, r) {
                    self.set(d, r, env);
                }
            }
            StmtKind::Print { args, .. } => {
                for a in args {
                    let s = match &a.kind {
                        ExprKind::StrLit(s) => s.clone(),
                        _ => format!("{:?}", self.eval(a, env)),
                    };
                    self.out.push(s);
                }
            }
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let b = self.eval(cond, env) == V::B(true);
                return self.block(f, if b { then_branch } else { else_branch }, env);
            }
            StmtKind::Loop {
                label,
                kind,
                cond,
                body,
                step,
            } => {
                let mut first = true;
                loop {
                    let test = !(first && *kind == LoopKind::DoWhile);
                    first = false;
                    if test && self.eval(cond, env) != V::B(true) {
                        break;
                    }
                    match self.block(f, body, env) {
                        Flow::Break(l) if l == *label => break,
                        Flow::Continue(l) if l == *label => {}
                        Flow::Next => {}
                        other => return other,
                    }
                    if let fl @ (Flow::Return(_) | Flow::Break(_) | Flow::Continue(_)) =
                        self.block(f, step, env)
                    {
                        return fl;
                    }
                }
            }
            StmtKind::Labeled { label, body } => match self.block(f, body, env) {
                Flow::Break(l) if l == *label => {}
                other => return other,
            },
            StmtKind::Break(l) => return Flow::Break(*l),
            StmtKind::Continue(l) => return Flow::Continue(*l),
            StmtKind::Return(v) => return Flow::Return(v.as_ref().map(|e| self.eval(e, env))),
            StmtKind::Block(b) => return self.block(f, b, env),
            StmtKind::Throw(_) | StmtKind::Try { .. } | StmtKind::External { .. } => {
                panic!("the control-flow test evaluator has no exceptions or external calls")
            }
        }
        Flow::Next
    }

    fn eval(&mut self, e: &Expr, env: &[Option<V>]) -> V {
        let int = |v: V| match v {
            V::I(i) => i,
            other => panic!("not int: {other:?}"),
        };
        let bl = |v: V| v == V::B(true);
        match &e.kind {
            ExprKind::IntLit(v) => V::I(*v),
            ExprKind::BoolLit(b) => V::B(*b),
            ExprKind::Local(id) => env[id.0 as usize]
                .clone()
                .expect("read of unassigned local"),
            ExprKind::Global(g) => self.globals.get(&g.0).cloned().unwrap_or(V::I(0)),
            ExprKind::Unary(UnOp::Neg, a) => V::I(wrap(-int(self.eval(a, env)), &e.ty)),
            ExprKind::Unary(UnOp::BitNot, a) => V::I(!int(self.eval(a, env))),
            ExprKind::Unary(UnOp::Not, a) => V::B(!bl(self.eval(a, env))),
            ExprKind::Binary(BinOp::And, a, b) => {
                V::B(bl(self.eval(a, env)) && bl(self.eval(b, env)))
            }
            ExprKind::Binary(BinOp::Or, a, b) => {
                V::B(bl(self.eval(a, env)) || bl(self.eval(b, env)))
            }
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.eval(a, env), self.eval(b, env));
                if let (V::B(x), V::B(y)) = (&x, &y) {
                    return V::B(match op {
                        BinOp::Eq => x == y,
                        BinOp::Ne => x != y,
                        BinOp::BitAnd => *x && *y,
                        BinOp::BitOr => *x || *y,
                        BinOp::BitXor => x ^ y,
                        _ => panic!(),
                    });
                }
                let (x, y) = (int(x), int(y));
                let r = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div => x / y,
                    BinOp::Rem => x % y,
                    BinOp::Shl => x << (y & 31),
                    BinOp::Shr => x >> (y & 31),
                    BinOp::BitAnd => x & y,
                    BinOp::BitOr => x | y,
                    BinOp::BitXor => x ^ y,
                    BinOp::Eq => return V::B(x == y),
                    BinOp::Ne => return V::B(x != y),
                    BinOp::Lt => return V::B(x < y),
                    BinOp::Le => return V::B(x <= y),
                    BinOp::Gt => return V::B(x > y),
                    BinOp::Ge => return V::B(x >= y),
                    _ => panic!("op {op:?}"),
                };
                V::I(wrap(r, &e.ty))
            }
            ExprKind::Cond(c, a, b) => {
                if bl(self.eval(c, env)) {
                    self.eval(a, env)
                } else {
                    self.eval(b, env)
                }
            }
            ExprKind::Cast(a) => V::I(wrap(int(self.eval(a, env)), &e.ty)),
            ExprKind::Index(a, i) => {
                let V::A(a) = self.eval(a, env) else { panic!() };
                let i = int(self.eval(i, env));
                a.borrow()[i as usize].clone()
            }
            ExprKind::Length(a) => {
                let V::A(a) = self.eval(a, env) else { panic!() };
                V::I(a.borrow().len() as i128)
            }
            ExprKind::NewArray(n) => {
                let n = int(self.eval(n, env));
                let zero = if e.ty.elem() == Some(&Type::Bool) {
                    V::B(false)
                } else {
                    V::I(0)
                };
                V::A(std::rc::Rc::new(std::cell::RefCell::new(vec![
                    zero;
                    n as usize
                ])))
            }
            ExprKind::ArrayLit(xs) => {
                let v = xs.iter().map(|x| self.eval(x, env)).collect();
                V::A(std::rc::Rc::new(std::cell::RefCell::new(v)))
            }
            ExprKind::Intrinsic(Intrinsic::Abs, xs) => V::I(int(self.eval(&xs[0], env)).abs()),
            other => panic!("evaluator: {other:?}"),
        }
    }
}

/// Runs method `name` of `src` on integer arguments.
fn run(src: &str, name: &str, args: &[i128]) -> (Option<V>, Vec<String>) {
    let p = prog(src);
    let (id, _) = p.find(name).next().expect("function");
    func(&p, name);
    let mut ev = Ev {
        p: &p,
        out: Vec::new(),
        globals: BTreeMap::new(),
        steps: 0,
    };
    let r = ev.call(id, args.iter().map(|a| V::I(*a)).collect());
    (r, ev.out)
}

fn run_int(src: &str, name: &str, args: &[i128]) -> i128 {
    match run(src, name, args).0 {
        Some(V::I(v)) => v,
        other => panic!("result {other:?}"),
    }
}

// ------------------------------------------------------------------ tests

#[test]
fn promotion_and_return_conversion() {
    assert_eq!(
        body_of("long f(int a, long b) { return a + b; }", "f"),
        "return ((i64)a + b)"
    );
    assert_eq!(
        body_of("double f(int a) { return a / 2; }", "f"),
        "return (double)(a / 2)"
    );
    assert_eq!(
        body_of("int f(char c) { return c + 1; }", "f"),
        "return ((i32)c + 1)"
    );
    assert_eq!(
        body_of("int f(byte a, short b) { return a * b; }", "f"),
        "return ((i32)a * (i32)b)"
    );
    assert_eq!(
        body_of("float f(float a, int b) { return a * b; }", "f"),
        "return (a * (float)b)"
    );
    assert_eq!(
        body_of("double f(float a, long b) { return a - b; }", "f"),
        "return (double)(a - (float)b)"
    );
}

#[test]
fn shifts_keep_left_type_and_ushr() {
    assert_eq!(
        body_of("long f(long a, int n) { return a << n; }", "f"),
        "return (a << n)"
    );
    assert_eq!(
        body_of("int f(int a, long n) { return a >>> n; }", "f"),
        "return (a >>> n)"
    );
    assert_eq!(
        body_of("int f(byte a, byte n) { return a >> n; }", "f"),
        "return ((i32)a >> (i32)n)"
    );
}

#[test]
fn compound_assignment_narrows() {
    assert_eq!(
        body_of("byte g(byte b) { b += 1; return b; }", "g"),
        "b = (i8)((i32)b + 1); return b"
    );
    assert_eq!(
        body_of("int g(int i, double d) { i *= d; return i; }", "g"),
        "i = (i32)((double)i * d); return i"
    );
    assert_eq!(
        body_of("char g(char c) { c++; return c; }", "g"),
        "c = (char)((i32)c + 1); return c"
    );
    assert_eq!(
        body_of("long g(long x) { x <<= 2; return x; }", "g"),
        "x = (x << 2); return x"
    );
    assert_eq!(
        body_of("boolean g(boolean a, boolean b) { a &= b; return a; }", "g"),
        "a = (a & b); return a"
    );
    assert_eq!(
        body_of("double g(double d) { d--; return d; }", "g"),
        "d = (d - 1); return d"
    );
}

#[test]
fn side_effects_are_lifted_in_evaluation_order() {
    // The left operand is read before the assignment on the right runs.
    assert_eq!(
        body_of("int f(int x) { int y = x + (x = 3); return y; }", "f"),
        "$t1 = x; x = 3; y = ($t1 + x); return y"
    );
    assert_eq!(
        body_of("int f(int x) { return x++ + x; }", "f"),
        "$t1 = x; x = ($t1 + 1); return ($t1 + x)"
    );
    assert_eq!(
        body_of("int f(int x) { return ++x * 2; }", "f"),
        "x = (x + 1); return (x * 2)"
    );
    assert_eq!(
        body_of(
            "int f(int a) { return a + g(a); } int g(int a) { return a; }",
            "f"
        ),
        "$t1 = g#1(a); return (a + $t1)"
    );
    // A call may change a global read before it: the read is spilled.
    assert_eq!(
        body_of(
            "int c; int f(int a) { return c + g(a); } int g(int a) { c++; return a; }",
            "f"
        ),
        "$t2 = @c; $t1 = g#1(a); return ($t2 + $t1)"
    );
    // A division before a call faults before the call runs.
    assert_eq!(
        body_of(
            "int f(int a) { return 10 / a + g(a); } int g(int a) { return a; }",
            "f"
        ),
        "$t2 = (10 / a); $t1 = g#1(a); return ($t2 + $t1)"
    );
    assert_eq!(
        body_of(
            "int f(int a) { return g(a) - g(a + 1); } int g(int a) { return a; }",
            "f"
        ),
        "$t1 = g#1(a); $t2 = g#1((a + 1)); return ($t1 - $t2)"
    );
    // Literals need no spilling.
    assert_eq!(
        body_of(
            "int f(int a) { return 1 + g(a); } int g(int a) { return a; }",
            "f"
        ),
        "$t1 = g#1(a); return (1 + $t1)"
    );
    // Arguments: an earlier argument is evaluated before a later call.
    assert_eq!(
        body_of(
            "int f(int a) { return h(a, g(a)); } int g(int a) { return a; } int h(int a, int b) { return b; }",
            "f"
        ),
        "$t1 = g#1(a); $t2 = h#2(a, $t1); return $t2"
    );
    assert_eq!(
        run_int(
            "class A { int f(int x) { int y = x + (x = 3); return y * 10 + x; } }",
            "f",
            &[5]
        ),
        83
    );
    assert_eq!(
        run_int(
            "class A { int f(int x) { int y = x++ + x++; return y * 10 + x; } }",
            "f",
            &[5]
        ),
        117
    );
    assert_eq!(
        run_int(
            "class A { int f(int x) { int y = --x - x--; return y * 10 + x; } }",
            "f",
            &[5]
        ),
        3
    );
}

#[test]
fn array_element_updates() {
    assert_eq!(
        body_of("int f(int[] a, int i) { a[i++] += 2; return i; }", "f"),
        "$t2 = i; i = ($t2 + 1); a[$t2] = (a[$t2] + 2); return i"
    );
    assert_eq!(
        body_of("int f(int[] a, int i) { return a[i]++; }", "f"),
        "$t2 = a[i]; a[i] = ($t2 + 1); return $t2"
    );
    // Compound assignment reads the element before the call on the right.
    assert_eq!(
        body_of(
            "int f(int[] a, int i) { a[i] += g(i); return 0; } int g(int i) { return i; }",
            "f"
        ),
        "$t3 = a[i]; $t2 = g#1(i); a[i] = ($t3 + $t2); return 0"
    );
    let src = "class A { int f(int n) { int[] a = new int[3]; int i = 0; a[i++] = i; a[i] += 5; return a[0] * 100 + a[1] * 10 + i; } }";
    assert_eq!(run_int(src, "f", &[0]), 151);
}

#[test]
fn assignment_as_expression_in_condition() {
    assert_eq!(
        body_of(
            "double f(double x) { double ax; if ((ax = Math.abs(x)) < 8.0) return ax; return 0; }",
            "f"
        ),
        "ax = abs(x); if (ax < 8.0) { return ax }; return 0"
    );
    assert_eq!(
        body_of("int f(int a, int b) { a = b = 4; return a; }", "f"),
        "b = 4; a = b; return a"
    );
}

#[test]
fn short_circuit_with_calls_becomes_if() {
    let m = "boolean f(int a) { return a > 0 && g(a) > 1; } int g(int a) { return a; }";
    assert_eq!(
        body_of(m, "f"),
        "$t2 = (a > 0); if $t2 { $t1 = g#1(a); $t2 = ($t1 > 1) }; return $t2"
    );
    let m = "boolean f(int a) { return a > 0 || g(a) > 1; } int g(int a) { return a; }";
    assert_eq!(
        body_of(m, "f"),
        "$t2 = (a > 0); if !$t2 { $t1 = g#1(a); $t2 = ($t1 > 1) }; return $t2"
    );
    // Without effects it stays a lazy expression.
    assert_eq!(
        body_of("boolean f(int a) { return a > 0 && 10 / a > 1; }", "f"),
        "return ((a > 0) && ((10 / a) > 1))"
    );
    // Effects only happen when the left operand lets them.
    let src = "class A { int c; int f(int a) { c = 0; if (a > 0 && bump() > 0) {} if (a > 0 || bump() > 0) {} return c; } int bump() { c++; return 1; } }";
    assert_eq!(run_int(src, "f", &[1]), 1);
    assert_eq!(run_int(src, "f", &[0]), 1);
}

#[test]
fn ternary_lazy_and_typed() {
    assert_eq!(
        body_of("int f(int a, int b) { return a < b ? a : b; }", "f"),
        "return ((a < b) ? a : b)"
    );
    assert_eq!(
        body_of(
            "int f(int a) { return a > 0 ? g(a) : 0; } int g(int a) { return a; }",
            "f"
        ),
        "if (a > 0) { $t1 = g#1(a); $t2 = $t1 } else { $t2 = 0 }; return $t2"
    );
    assert_eq!(
        body_of("char f(boolean c, char x) { return c ? x : 'a'; }", "f"),
        "return (c ? x : 97)"
    );
    // A char/int-constant mix keeps char; int/double promotes.
    let p = prog(
        "class A { char f(boolean c, char x) { return c ? x : 0; } double g(boolean c, int x) { return c ? x : 1.5; } }",
    );
    let f = func(&p, "f");
    let StmtKind::Return(Some(e)) = &f.body[0].kind else {
        panic!()
    };
    assert_eq!(e.ty, Type::Int(IntTy::JAVA_CHAR));
    assert_eq!(
        show(
            &p,
            func(&p, "g"),
            match &func(&p, "g").body[0].kind {
                StmtKind::Return(Some(e)) => e,
                _ => panic!(),
            }
        ),
        "(c ? (double)x : 1.5)"
    );
}

#[test]
fn literals() {
    let show_ret = |e: &str, ty: &str| body_of(&format!("{ty} f() {{ return {e}; }}"), "f");
    assert_eq!(show_ret("0xFFFFFFFF", "int"), "return -1");
    assert_eq!(show_ret("0x7fff_ffff", "int"), "return 2147483647");
    assert_eq!(show_ret("1_000L", "long"), "return 1000");
    assert_eq!(show_ret("017", "int"), "return 15");
    assert_eq!(show_ret("0b101", "int"), "return 5");
    assert_eq!(show_ret("-2147483648", "int"), "return -2147483648");
    assert_eq!(
        show_ret("-9223372036854775808L", "long"),
        "return -9223372036854775808"
    );
    assert_eq!(show_ret("0xFFFFFFFFFFFFFFFFL", "long"), "return -1");
    assert_eq!(show_ret("'a'", "char"), "return 97");
    assert_eq!(show_ret("'\\n'", "char"), "return 10");
    assert_eq!(show_ret("'\\u0041'", "char"), "return 65");
    assert_eq!(show_ret("'\\''", "char"), "return 39");
    assert_eq!(show_ret("'\\101'", "char"), "return 65");
    assert_eq!(show_ret("1e-3", "double"), "return 1e-3");
    assert_eq!(show_ret("1.5E10", "double"), "return 1.5e10");
    assert_eq!(show_ret(".5", "double"), "return 0.5");
    assert_eq!(show_ret("2.", "double"), "return 2.0");
    assert_eq!(show_ret("1_0.2_5d", "double"), "return 10.25");
    assert_eq!(show_ret("-0.25", "double"), "return -0.25");
    assert_eq!(show_ret("true", "boolean"), "return true");
    assert_eq!(show_ret("0", "double"), "return 0");
    let p = prog("class A { float f() { return .1f; } }");
    let StmtKind::Return(Some(e)) = &func(&p, "f").body[0].kind else {
        panic!()
    };
    assert_eq!(e.ty, Type::Float(FloatTy::F32));
    let ExprKind::FloatLit(l) = &e.kind else {
        panic!()
    };
    assert_eq!(l.text, "0.1");
    assert_eq!(l.value, f64::from(0.1f32));
    let p = prog("class A { int f() { return 2147483648; } }");
    assert!(err(&p, "f").what.contains("out of range"));
}

#[test]
fn builtin_constants() {
    assert_eq!(
        body_of("int f() { return Integer.MAX_VALUE; }", "f"),
        "return 2147483647"
    );
    assert_eq!(
        body_of("long f() { return Long.MIN_VALUE; }", "f"),
        "return -9223372036854775808"
    );
    assert_eq!(
        body_of("int f() { return Short.MAX_VALUE + Byte.MIN_VALUE; }", "f"),
        "return (32767 + -128)"
    );
    assert_eq!(
        body_of("double f() { return Math.PI; }", "f"),
        "return 3.141592653589793"
    );
}

#[test]
fn math_intrinsics() {
    assert_eq!(
        body_of("int f(byte b) { return Math.abs(b); }", "f"),
        "return abs((i32)b)"
    );
    assert_eq!(
        body_of("long f(int a, long b) { return Math.max(a, b); }", "f"),
        "return max((i64)a, b)"
    );
    assert_eq!(
        body_of("double f(int x) { return Math.sqrt(x); }", "f"),
        "return sqrt((double)x)"
    );
    assert_eq!(
        body_of("long f(double x) { return Math.round(x); }", "f"),
        "return round(x)"
    );
    assert_eq!(
        body_of("int f(int x) { return Math.round(x); }", "f"),
        "return round((float)x)"
    );
    assert_eq!(
        body_of("double f(double x) { return Math.pow(2, x); }", "f"),
        "return pow(2, x)"
    );
    assert_eq!(
        body_of("int f(double x) { return Math.getExponent(x); }", "f"),
        "return getExponent(x)"
    );
    // Math.signum(double) is lowered as branches (jdk.rs); a Math method the
    // front end does not know is unsupported, naming the call.
    let p = prog("class A { double f(double x) { return Math.nextUp(x); } }");
    assert_eq!(err(&p, "f").what, "call to Math.nextUp");
}

#[test]
fn print_flattens_concatenation() {
    assert_eq!(
        body_of(
            "void f(int x, int y) { System.out.println(\"a\" + x + y); }",
            "f"
        ),
        "println(\"a\", x, y)"
    );
    assert_eq!(
        body_of(
            "void f(int x, int y) { System.out.println(x + y + \"a\"); }",
            "f"
        ),
        "println((x + y), \"a\")"
    );
    assert_eq!(
        body_of(
            "void f(int x, int y) { System.out.print(\"a\" + (x + y)); }",
            "f"
        ),
        "print(\"a\", (x + y))"
    );
    assert_eq!(
        body_of("void f() { System.out.println(); }", "f"),
        "println()"
    );
    assert_eq!(
        body_of("void f(double d) { System.out.println(d); }", "f"),
        "println(d)"
    );
    assert_eq!(
        body_of("void f(char c) { System.out.print(c + \"\\t\"); }", "f"),
        "print(c, \"\\t\")"
    );
    let p = prog("class A { int f(int x) { int y = 0; y = x + \"a\".hashCode(); return y; } }");
    assert!(err(&p, "f").what.contains("String.hashCode"));
}

#[test]
fn loops_with_lifted_conditions() {
    let m = "int f(int n) { int i = 0; while (g(i) < n) { i++; } return i; } int g(int i) { return i; }";
    assert_eq!(
        body_of(m, "f"),
        "i = 0; L0: while true { $t2 = g#1(i); if !($t2 < n) { break L0 }; i = (i + 1) }; return i"
    );
    let m =
        "int f(int n) { int s = 0; for (int i = 0, j = 1; i < n; i++, j += 2) s += j; return s; }";
    assert_eq!(
        body_of(m, "f"),
        "s = 0; i = 0; j = 1; L0: while (i < n) { s = (s + j) } step { i = (i + 1); j = (j + 2) }; return s"
    );
    let src = "class A { int f(int n) { int i = 0, s = 0; do { i++; if (i == 2) continue; s += i; } while (i++ < n); return s * 100 + i; } }";
    // i: 1 (s=1), cond 1<5 -> i=2; i=3 (s=4), 3<5 -> 4; i=5 (s=9), 5<5 false -> i=6
    assert_eq!(run_int(src, "f", &[5]), 906);
    let src = "class A { int f(int n) { int i = 0, s = 0; do { i++; if (i == 3) continue; s += i; } while (i < n); return s; } }";
    assert_eq!(run_int(src, "f", &[5]), 12);
    let src = "class A { int f(int n) { int s = 0; for (int i = 0; i++ < n;) { if (i == 2) continue; s += i; } return s; } }";
    assert_eq!(run_int(src, "f", &[4]), 8);
}

#[test]
fn labeled_break_and_continue() {
    let src = "class A { int f(int n) { int c = 0;
        outer: for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (j == i) continue outer;
                if (i + j > 5) break outer;
                c = c * 3 + j;
            }
        }
        lbl: { if (n > 2) break lbl; c = -1; }
        return c; } }";
    // i=0: j=0 continue; i=1: j=0 c=0; j=1 cont; i=2: j=0 c=0, j=1 c=1, j=2 cont; i=3: j=0 c=3, j=1 c=10, j=2 c=32, j=3 cont
    // i=4: j=0 c=96, j=1 c=289, j=2 (6>5) break outer.
    assert_eq!(run_int(src, "f", &[5]), 289);
    assert_eq!(run_int(src, "f", &[2]), -1);
}

#[test]
fn enhanced_for_over_array() {
    assert_eq!(
        body_of(
            "int f(int[] a) { int s = 0; for (int x : a) s += x; return s; }",
            "f"
        ),
        "s = 0; $t3 = 0; L0: while ($t3 < a.length) { x = a[$t3]; s = (s + x) } step { $t3 = ($t3 + 1) }; return s"
    );
    // An array variable the body reassigns is iterated through a copy (the
    // array expression is evaluated once).
    assert_eq!(
        body_of(
            "int f(int[] a, int[] b) { int s = 0; for (int x : a) { s += x; a = b; } return s; }",
            "f"
        ),
        "s = 0; $t4 = a; $t5 = 0; L0: while ($t5 < $t4.length) { x = $t4[$t5]; s = (s + x); a = b } step { $t5 = ($t5 + 1) }; return s"
    );
    let src = "class A { long f(int n) { int[] a = {1, 2, 3, n}; long s = 0; for (long x : a) { if (x == 2) continue; s = s * 10 + x; } return s; } }";
    assert_eq!(run_int(src, "f", &[7]), 137);
}

#[test]
fn switch_fallthrough_and_default_anywhere() {
    let src = "class A { int f(int x) { int r = 0;
        switch (x) {
            case 1: r += 1;
            case 2: r += 10; break;
            default: r += 100;
            case 3: r += 1000;
            case 4: { r += 10000; break; }
            case 5: r += 100000;
        }
        return r; } }";
    assert_eq!(run_int(src, "f", &[1]), 11);
    assert_eq!(run_int(src, "f", &[2]), 10);
    assert_eq!(run_int(src, "f", &[3]), 11000);
    assert_eq!(run_int(src, "f", &[4]), 10000);
    assert_eq!(run_int(src, "f", &[5]), 100000);
    assert_eq!(run_int(src, "f", &[9]), 11100);
    // Shape: scrutinee, matched and fall temporaries, one If per group.
    let b = body_of(
        "int f(int x) { switch (x) { case 1: x = 2; break; default: x = 3; } return x; }",
        "f",
    );
    assert_eq!(
        b,
        "$t1 = x; $t2 = ($t1 == 1); $t3 = false; L0: { if ($t3 || ($t1 == 1)) { $t3 = true; x = 2; break L0 }; if ($t3 || !$t2) { $t3 = true; x = 3 } }; return x"
    );
    // char scrutinee with char constants; break inside a loop inside the switch targets the loop.
    let src = "class A { int f(char c) { int r = 0; switch (c) { case 'a': for (int i = 0; i < 3; i++) { if (i == 1) break; r++; } case 'b': r += 5; break; } return r; } }";
    assert_eq!(run_int(src, "f", &[97]), 6);
    assert_eq!(run_int(src, "f", &[98]), 5);
    assert_eq!(run_int(src, "f", &[99]), 0);
}

#[test]
fn arrow_switch() {
    let src = "class A { int f(int x) { int r = 0; switch (x) { case 1, 2 -> r = 5; default -> { r = 7; } case 3 -> { r = 9; break; } } return r; } }";
    assert_eq!(run_int(src, "f", &[1]), 5);
    assert_eq!(run_int(src, "f", &[2]), 5);
    assert_eq!(run_int(src, "f", &[3]), 9);
    assert_eq!(run_int(src, "f", &[4]), 7);
}

#[test]
fn continue_inside_switch_targets_loop() {
    let src = "class A { int f(int n) { int s = 0; for (int i = 0; i < n; i++) { switch (i % 3) { case 0: continue; case 1: s += 1; break; default: s += 10; } s += 100; } return s; } }";
    // i=0 cont; 1: 101; 2: 110; 3 cont; 4: 101 -> 312
    assert_eq!(run_int(src, "f", &[5]), 312);
}

#[test]
fn scoping_and_shadowing() {
    let src = "class A { int x; int f(int n) { int s = 0; { int x = 5; s += x; } for (int i = 0; i < 2; i++) { int y = i; s += y; } for (int i = 10; i < 11; i++) { int y = i; s += y; } s += x; this.x = 100; return s + x; } }";
    let p = prog(src);
    let f = func(&p, "f");
    let names: Vec<&str> = f.locals.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["n", "s", "x", "i", "y", "i", "y"]);
    let (r, _) = run(src, "f", &[0]);
    assert_eq!(r, Some(V::I(5 + 1 + 10 + 100)));
    assert_eq!(
        body_of("int x; int f() { int x = 1; return this.x + x; }", "f"),
        "x = 1; return (@x + x)"
    );
}

#[test]
fn fields_and_constants() {
    let src = "class A {
        static final int N = 4;
        static final int M = N * 2 + 1;
        static final double D = 1.0 / 3;
        static final int[] T = {1, 2, N};
        final int k = 3;
        static int counter = 7;
        private static String s;
        int f() { counter++; return N + M + counter + k; }
        String g() { return s; }
        int h() { return s.length(); }
    }";
    let p = prog(src);
    let names: Vec<&str> = p.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["N", "M", "D", "T", "k", "counter"]);
    let c = |n: &str| p.global(p.find_global(n).unwrap()).constant.clone();
    assert!(matches!(c("N").unwrap().kind, ExprKind::IntLit(4)));
    assert!(matches!(
        c("M").unwrap().kind,
        ExprKind::Binary(BinOp::Add, _, _)
    ));
    assert!(matches!(c("T").unwrap().kind, ExprKind::ArrayLit(ref v) if v.len() == 3));
    assert!(c("D").is_some());
    assert!(
        c("counter").is_none(),
        "non-final initialisers are not applied"
    );
    assert_eq!(
        body_of_p(&p, "f"),
        "@counter = (@counter + 1); return (((@N + @M) + @counter) + @k)"
    );
    assert_eq!(err(&p, "g").what, "method returning String");
    assert_eq!(err(&p, "h").what, "String field s");
    let p = prog("class A { static final int N = 1; void f() { N = 2; } }");
    assert_eq!(err(&p, "f").what, "assignment to constant field N");
}

fn body_of_p(p: &Program, name: &str) -> String {
    let f = func(p, name);
    show_block(p, f, &f.body)
}

#[test]
fn calls_qualified_and_overloaded() {
    let src = "class A {
        static int h(int x) { return 1; }
        static int h(double x) { return 2; }
        static int h(long x) { return 3; }
        int k(int a, int b) { return 0; }
        int f(int i, long l, float fl, short s) { return h(i) + A.h(1.5) + this.h(l) + h(fl) + h(s) + k(s, 'c'); }
        static class B { static int h(int x) { return 4; } int g() { return h(1) + A.h(1); } }
    }";
    let p = prog(src);
    assert_eq!(
        body_of_p(&p, "f"),
        "$t4 = h#0(i); $t5 = h#1(1.5); $t6 = h#2(l); $t7 = h#1((double)fl); $t8 = h#0((i32)s); $t9 = k#3((i32)s, 99); return ((((($t4 + $t5) + $t6) + $t7) + $t8) + $t9)"
    );
    assert_eq!(
        body_of_p(&p, "g"),
        "$t0 = h#5(1); $t1 = h#0(1); return ($t0 + $t1)"
    );
    let p = prog("class A { int f() { return nope(1); } void v() {} int g() { return v(); } }");
    assert_eq!(
        err(&p, "f").what,
        "call to nope, which is neither in the file nor statically imported"
    );
    assert_eq!(err(&p, "g").what, "use of the result of void method v");
}

#[test]
fn variable_arity_parameters_are_arrays_and_calls_pack_their_elements() {
    let p = prog(
        "class A {
            static long sum(int k, long... xs) { long s = k; for (long x : xs) s += x; return s + xs.length; }
            long f(int a, short b) { return sum(a, b, a); }
            long g(int a) { return sum(a); }
            long h(long[] v) { return sum(1, v); }
            long i(byte b) { return sum(b, new long[]{b}); }
        }",
    );
    let sum = func(&p, "sum");
    let xs = sum.params[1];
    assert_eq!(
        sum.locals[xs.0 as usize].ty,
        Type::Array(Box::new(Type::LONG))
    );
    // Trailing arguments, widened to the element type, in a fresh array.
    assert_eq!(
        body_of_p(&p, "f"),
        "$t2 = sum#0(a, {(i64)b, (i64)a}); return $t2"
    );
    // No trailing argument: an empty array.
    assert_eq!(body_of_p(&p, "g"), "$t1 = sum#0(a, {}); return $t1");
    // An array in the variable-arity position is passed as it is.
    assert_eq!(body_of_p(&p, "h"), "$t1 = sum#0(1, v); return $t1");
    assert_eq!(
        body_of_p(&p, "i"),
        "$t1 = sum#0((i32)b, {(i64)b}); return $t1"
    );
    let labels: Vec<&[String]> = p
        .functions
        .iter()
        .map(|f| f.param_types.as_slice())
        .collect();
    assert_eq!(labels[0], ["int".to_string(), "long...".to_string()]);
}

#[test]
fn a_fixed_arity_overload_applicable_by_widening_wins_over_variable_arity() {
    let p = prog(
        "class A {
            static int m(int... xs) { return 0; }
            static int m(long a, long b) { return 2; }
            static int m(int a) { return 1; }
            int two(int a) { return m(a, a); }
            int one(short a) { return m(a); }
            int three(int a) { return m(a, a, a); }
            int none() { return m(); }
            int amb(int a) { return n(a); }
            static int n(int a, long... r) { return 0; }
            static int n(int... r) { return 1; }
        }",
    );
    assert_eq!(
        body_of_p(&p, "two"),
        "$t1 = m#1((i64)a, (i64)a); return $t1"
    );
    assert_eq!(body_of_p(&p, "one"), "$t1 = m#2((i32)a); return $t1");
    assert_eq!(body_of_p(&p, "three"), "$t1 = m#0({a, a, a}); return $t1");
    assert_eq!(body_of_p(&p, "none"), "$t0 = m#0({}); return $t0");
    // javac: "reference to n is ambiguous".
    assert_eq!(
        err(&p, "amb").what,
        "call to n(int): no overload is most specific (ambiguous)"
    );
}

#[test]
fn variable_arity_is_refused_where_java_could_choose_otherwise() {
    // m(Integer) is outside the IR; Java would call it by boxing.
    let p = prog(
        "class A { static int m(Integer a) { return 1; } static int m(int... xs) { return 0; } int f(int a) { return m(a); } int g(int[] v) { return m(v); } }",
    );
    assert!(
        err(&p, "f").what.contains("whose signature is unsupported"),
        "{}",
        err(&p, "f").what
    );
    assert_eq!(body_of_p(&p, "g"), "$t1 = m#1(v); return $t1");
    // Arrays of arrays and of classes stay outside the IR.
    let p = prog(
        "class A { static int a(int[]... xs) { return 0; } static int b(String... xs) { return 0; } }",
    );
    assert!(
        err(&p, "a").what.contains("multi-dimensional"),
        "{}",
        err(&p, "a").what
    );
    assert!(
        err(&p, "b").what.contains("String"),
        "{}",
        err(&p, "b").what
    );
}

#[test]
fn overloads_resolve_to_the_most_specific() {
    // Java calls the most specific applicable overload (JLS 15.12.2.5),
    // whatever the declaration order.
    for members in [
        "static double p(double a, double b) { return 1.0; } static double p(float a, double b) { return 2.0; }",
        "static double p(float a, double b) { return 2.0; } static double p(double a, double b) { return 1.0; }",
    ] {
        let p = prog(&format!(
            "class A {{ {members} double f(float x) {{ return p(x, x); }} double g(double x) {{ return p(x, x); }} }}"
        ));
        let float_one = func(&p, "p");
        let float_first = matches!(&float_one.body[..], [s] if matches!(&s.kind, StmtKind::Return(Some(e)) if matches!(&e.kind, ExprKind::FloatLit(l) if l.value == 2.0)));
        let (pf, pd) = if float_first { (0, 1) } else { (1, 0) };
        assert_eq!(
            body_of_p(&p, "f"),
            format!("$t1 = p#{pf}(x, (double)x); return $t1")
        );
        assert_eq!(
            body_of_p(&p, "g"),
            format!("$t1 = p#{pd}(x, x); return $t1")
        );
    }
    // (int, int) fits both; neither (long, int) nor (int, long) is more
    // specific than the other: Java rejects the call, and so do we.
    let p = prog(
        "class A { static int q(long a, int b) { return 1; } static int q(int a, long b) { return 2; } int f(int x) { return q(x, x); } int g(long x) { return q(x, 1); } }",
    );
    assert_eq!(
        err(&p, "f").what,
        "call to q(int, int): no overload is most specific (ambiguous)"
    );
    assert_eq!(body_of_p(&p, "g"), "$t1 = q#0(x, 1); return $t1");
    // No overload takes a boolean by widening (boxing is not modelled).
    let p = prog(
        "class A { static int r(int a) { return 1; } static int r(long a) { return 2; } int f(boolean b) { return r(b); } }",
    );
    assert!(
        err(&p, "f")
            .what
            .contains("no overload takes these argument types"),
        "{}",
        err(&p, "f").what
    );
    // Math.copySign's float overload is the more specific for int arguments.
    assert_eq!(
        body_of(
            "float f(int a, float b) { return Math.copySign(a, b); }",
            "f"
        ),
        body_of(
            "float f(int a, float b) { return Math.copySign((float) a, b); }",
            "f"
        )
    );
}

#[test]
fn static_initializers_change_constants() {
    let p = prog(
        "class A {
            static final double[] T = new double[3];
            static final int N;
            static final int[] U = {1, 2};
            static final int[] V = {1, 2};
            static final int K = 5;
            static {
                T[1] = 0.5;
                N = K + 1;
            }
            static { for (int i = 0; i < 2; i++) U[i] = i; }
            double f() { return T[1]; }
        }",
    );
    let c = |n: &str| p.global(p.find_global(n).unwrap()).constant.clone();
    let t = c("T").expect("T is evaluated");
    let ExprKind::ArrayLit(elems) = &t.kind else {
        panic!("T: {t:?}")
    };
    let values: Vec<f64> = elems
        .iter()
        .map(|e| match &e.kind {
            ExprKind::FloatLit(l) => l.value,
            other => panic!("element {other:?}"),
        })
        .collect();
    assert_eq!(values, [0.0, 0.5, 0.0]);
    assert!(c("N").is_some(), "a blank final assigned a constant");
    // A block that is not evaluated leaves the fields it may write inputs:
    // U, which it writes by name, but not V.
    assert!(c("U").is_none());
    assert!(c("V").is_some());
    assert!(c("K").is_some(), "a scalar final with an initialiser stays");
    // A call could write any array field; scalar finals keep their values.
    let p = prog(
        "class A { static final int[] V = {1, 2}; static final int K = 5; static { fill(); } static void fill() { } }",
    );
    let c = |n: &str| p.global(p.find_global(n).unwrap()).constant.clone();
    assert!(c("V").is_none());
    assert!(c("K").is_some());
    // So could an alias.
    let p = prog("class A { static final int[] V = {1, 2}; static { int[] a = V; a[0] = 3; } }");
    assert!(p.global(p.find_global("V").unwrap()).constant.is_none());
    // A block that is not evaluated does not keep what it began.
    let p = prog(
        "class A { static final int[] T = {1, 2}; static final int M; static { T[0] = 3; M = 4; T[1] = g(); } static int g() { return 1; } }",
    );
    let c = |n: &str| p.global(p.find_global(n).unwrap()).constant.clone();
    assert!(c("T").is_none());
    assert!(c("M").is_none());
}

#[test]
fn unsupported_constructs_have_positions() {
    let src = "class A {\n  int f(int x) {\n    synchronized (this) { x = 1; }\n    return x;\n  }\n  int g(int x) { return x; }\n}";
    let p = prog(src);
    let e = err(&p, "f");
    assert_eq!(e.kind, LowerErrorKind::Unsupported);
    assert_eq!(e.to_string(), "unsupported: synchronized statement at 3:5");
    func(&p, "g");
    let src = "class A {\n  double f(double r) {\n    complex c = new complex(r, 0.0);\n    return r;\n  }\n}\nclass complex { double re; String tag; complex(double a, double b) { re = a; } double get() { return re; } void set(double v) { re = v; } }";
    let p = prog(src);
    assert_eq!(
        err(&p, "f").to_string(),
        "unsupported: object creation new complex(...) at 3:17"
    );
    assert_eq!(body_of_p(&p, "get"), "return @re");
    // Constructors are listed, so that they pair up, but not lowered
    // (unless the class is a value class).
    assert_eq!(p.functions.len(), 4);
    assert_eq!(err(&p, "complex").what, "constructor");
    let p = prog(
        "class A { int f(int[][] m) { return 0; } int g() { int[][] m = new int[2][3]; return 0; } int h() { String s = \"x\"; return 0; } }",
    );
    assert_eq!(err(&p, "f").what, "multi-dimensional array int[][]");
    assert_eq!(err(&p, "g").what, "multi-dimensional array int[][]");
    func(&p, "h");
    let p = prog("class A { int g(Object o) { return 0; } }");
    assert_eq!(err(&p, "g").what, "parameter of type Object");
}

#[test]
fn throws_and_try_statements() {
    assert_eq!(
        body_of(
            "int f(int x) { if (x < 0) throw new java.lang.IllegalArgumentException(\"x = \" + x + '!'); return x; }",
            "f"
        ),
        "if (x < 0) { throw exception IllegalArgumentException }; return x"
    );
    assert_eq!(
        body_of(
            "int f(int x, int d) { try { x = x / d; } catch (ArithmeticException | IllegalStateException e) { x = 0; } catch (RuntimeException e) { x = 1; } finally { x++; } return x; }",
            "f"
        ),
        "try { x = (x / d) } catch ArithmeticException|IllegalStateException { x = 0 } catch RuntimeException { x = 1 } finally { x = (x + 1) }; return x"
    );
    // What we cannot follow is refused where it is.
    let p = prog(
        "class A {\n  int f(int x) {\n    return x;\n  }\n  int g(int x) {\n    throw new IllegalStateException(\"bad \" + (10 / x));\n  }\n  int h(int[] a) {\n    throw new IllegalStateException(describe(a[0]));\n  }\n  int k(int x) {\n    try { return x; } catch (ArithmeticException e) { return e.hashCode(); }\n  }\n  int m(int x) {\n    try (Res r = open()) { return x; }\n  }\n}",
    );
    assert_eq!(
        err(&p, "g").to_string(),
        "unsupported: binary expression in an exception's message (only literals, variables and operators that cannot fail) at 6:47"
    );
    assert!(
        err(&p, "h")
            .what
            .starts_with("method invocation in an exception's message"),
        "{}",
        err(&p, "h")
    );
    assert_eq!(err(&p, "h").span.line(), 9);
    assert_eq!(err(&p, "k").span.line(), 12);
    assert_eq!(err(&p, "m").what, "try-with-resources statement");
    let p = prog("class A { RuntimeException e; int f(int x) { throw e; } }");
    assert_eq!(
        err(&p, "f").what,
        "throw of an existing exception object (only `throw new C(...)`)"
    );
}

#[test]
fn syntax_errors_are_per_method() {
    let src = "class A {\n  int f(int x) {\n    x = x + ;\n    return x;\n  }\n  int g(int x) { return x + 1; }\n}";
    let p = prog(src);
    let e = err(&p, "f");
    assert_eq!(e.kind, LowerErrorKind::SyntaxError);
    assert_eq!(e.span.line(), 3);
    assert_eq!(body_of_p(&p, "g"), "return (x + 1)");
    let p = prog("class A {\n  int f(int x) {\n    return x\n  }\n  int g() { return 2; }\n}");
    let e = err(&p, "f");
    assert_eq!(e.kind, LowerErrorKind::SyntaxError);
    assert!(e.to_string().starts_with("syntax error"), "{e}");
    func(&p, "g");
}

#[test]
fn arrays() {
    assert_eq!(
        body_of(
            "int f(int n) { int[] a = new int[n]; int b[] = {1, 'c'}; double[] d = new double[]{1, 2.5}; return a.length + b[1]; }",
            "f"
        ),
        "a = new i32[n]; b = {1, 99}; d = {1, 2.5}; return (a.length + b[1])"
    );
    assert_eq!(
        body_of("int f(int[] a, long i) { return a[(int) i]; }", "f"),
        "return a[(i32)i]"
    );
    assert_eq!(
        body_of("int f(int[] a, char i) { return a[i]; }", "f"),
        "return a[(i32)i]"
    );
}

#[test]
fn never_panics_on_garbage() {
    for src in [
        "",
        "class",
        "class A { int f( { }",
        "class A { int f() { return ((((((1)))))); } }",
        "int f(int x) { return x; }",
        "class A { void f() { for (;;) { break; } } }",
        "class A { void f() { x: ; } }",
        "class A { void f() { break; } }",
        "class A { int f() { return 'ab'; } }",
        "class A { int f() { return 0x; } }",
        "class A { double f() { return 1e999; } }",
    ] {
        let _ = prog(src);
    }
    let deep = format!(
        "class A {{ int f(int x) {{ return {}x{}; }} }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let p = prog(&deep);
    assert!(p.functions[0].body.is_err());
    let long = format!(
        "class A {{ int f(int x) {{ return x{}; }} }}",
        " + x".repeat(3000)
    );
    assert!(prog(&long).functions[0].body.is_err());
    let ok = format!(
        "class A {{ int f(int x) {{ return x{}; }} }}",
        " + x".repeat(400)
    );
    assert!(prog(&ok).functions[0].body.is_ok());
    let chain: String = (0..450)
        .map(|i| format!("if (x == {i}) return {i}; else "))
        .collect();
    let chain = format!("class A {{ int f(int x) {{ {chain} return -1; }} }}");
    assert_eq!(run_int(&chain, "f", &[449]), 449);
    for depth in [900, 3000] {
        let nested = format!(
            "class A {{ int f(int x) {{ {} x = x + 1 - 2 * (x / 3 + g(x)); {} return x; }} int g(int y) {{ return y; }} }}",
            "while (x > 0) { if (x < 2) { switch (x) { case 1: ".repeat(depth / 3),
            "} } }".repeat(depth / 3)
        );
        let _ = prog(&nested);
    }
}

/// Lowers every EqBench Java version and prints a tally of what remains
/// unsupported (`cargo test -p eqlens-core eqbench -- --nocapture`).
#[test]
fn eqbench_corpus_lowers_without_panic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpora/eqbench-dev");
    let root = if root.exists() {
        root
    } else {
        std::path::PathBuf::from("/work/shared/corpora/eqbench-dev")
    };
    if !root.exists() {
        println!(
            "note: EqBench corpus not found at {}; skipping",
            root.display()
        );
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![root];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "java") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut ok, mut bad) = (0, 0);
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    let mut syntax = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let p = prog(&src);
        for f in &p.functions {
            match &f.body {
                Ok(_) => ok += 1,
                Err(e) => {
                    bad += 1;
                    if e.kind == LowerErrorKind::SyntaxError {
                        syntax.push(format!("{}: {e}", path.display()));
                    }
                    let key = e.what.split(" at ").next().unwrap_or("").to_string();
                    *tally.entry(key).or_default() += 1;
                }
            }
        }
    }
    println!(
        "eqbench: {} files, {ok} methods lowered, {bad} not",
        files.len()
    );
    let mut v: Vec<_> = tally.into_iter().collect();
    v.sort_by_key(|x| std::cmp::Reverse(x.1));
    for (what, n) in v {
        println!("  {n:4}  {what}");
    }
    assert!(syntax.is_empty(), "syntax errors in corpus: {syntax:?}");
    assert!(ok > bad, "most methods should lower");
}

#[test]
fn print_with_calls_and_var_and_nested_classes() {
    let p = prog(
        "class A { int x; int g(int v) { x++; return v; }
           void f(int v) { System.out.println(\"a\" + x + g(v) + x); }
           int h() { var k = 3L; var arr = new int[]{1}; return (int) k + arr[0]; }
           static class B { int x; int get() { return x; } } }",
    );
    assert_eq!(
        body_of_p(&p, "f"),
        "$t2 = @x; $t1 = g#0(v); println(\"a\", $t2, $t1, @x)"
    );
    assert_eq!(
        body_of_p(&p, "h"),
        "k = 3; arr = {1}; return ((i32)k + arr[0])"
    );
    let names: Vec<&str> = p.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["x", "B.x"]);
    assert_eq!(body_of_p(&p, "get"), "return @B.x");
    // Methods outside any class (a snippet) lower too.
    let p = prog("int twice(int a) { return 2 * a; }");
    assert_eq!(body_of_p(&p, "twice"), "return (2 * a)");
}

#[test]
fn calls_outside_the_file_are_external_with_import_aware_names() {
    let src = "import static org.checks.Checks.require;\nimport static org.util.Bits.*;\nimport java.util.Objects;\nclass A {\n  int f(int a, int b) {\n    require(a > 0, \"a must be positive\");\n    int h = Objects.hash(a, b);\n    if (Valid.ok(h)) { return h; }\n    h = mix(h);\n    return Other.twice(h);\n  }\n  int g(int a) {\n    return Other.twice(a) + 1;\n  }\n  int k(int[] a) {\n    return Other.sum(a);\n  }\n}";
    let p = prog(src);
    assert_eq!(
        body_of_p(&p, "f"),
        "extern org.checks.Checks.require((a > 0), \"a must be positive\"): void; $t2 = extern java.util.Objects.hash(a, b): i32; h = $t2; $t4 = extern Valid.ok(h): boolean; if $t4 { return h }; $t5 = extern org.util.Bits.mix(h): i32; h = $t5; $t6 = extern Other.twice(h): i32; return $t6"
    );
    assert!(
        err(&p, "g").what.starts_with(
            "the result of Other.twice, a method outside the file, where its type is not given"
        ),
        "{}",
        err(&p, "g")
    );
    assert_eq!(
        err(&p, "k").what,
        "argument of type int[] to Other.sum, a method outside the file"
    );
    // Two wildcard imports could both provide it: refused.
    let p = prog(
        "import static a.X.*;\nimport static b.Y.*;\nclass A { int f(int a) { return mix(a); } }",
    );
    assert_eq!(
        err(&p, "f").what,
        "call to mix, which is neither in the file nor statically imported"
    );
}

#[test]
fn known_precondition_helpers_are_modelled_exactly() {
    let src = "import static com.google.common.base.Preconditions.*;\nimport java.util.Objects;\nclass A {\n  int f(int a, int n) {\n    checkArgument(n > 0, \"n = %s\", n);\n    int i = checkElementIndex(a, n);\n    return Objects.checkIndex(i, n);\n  }\n  void g(int a) {\n    checkState(a != 0, describe(a));\n  }\n}";
    let p = prog(src);
    assert_eq!(
        body_of_p(&p, "f"),
        "if !(n > 0) { throw exception IllegalArgumentException }; $t2 = a; $t3 = n; if (($t2 < 0) || ($t2 >= $t3)) { if (($t2 >= 0) && ($t3 < 0)) { throw exception IllegalArgumentException } else { throw exception IndexOutOfBoundsException } }; i = $t2; $t5 = i; $t6 = n; if (($t5 < 0) || ($t5 >= $t6)) { throw exception IndexOutOfBoundsException }; return $t5"
    );
    assert!(
        err(&p, "g")
            .what
            .starts_with("method invocation in a message argument of com.google.common.base.Preconditions.checkState"),
        "{}",
        err(&p, "g")
    );
}

/// Guava's `checkPositionIndexes`, message construction included (which
/// throws `IllegalArgumentException` for a negative size), against the
/// lowering, on every small triple.
#[test]
fn check_position_indexes_throws_what_guava_throws() {
    // Guava 33, translated: checkPositionIndexes → badPositionIndexes →
    // badPositionIndex.
    fn bad_position_index(index: i64, size: i64) -> &'static str {
        if index < 0 {
            "IndexOutOfBoundsException"
        } else if size < 0 {
            "IllegalArgumentException"
        } else {
            "IndexOutOfBoundsException"
        }
    }
    fn guava(start: i64, end: i64, size: i64) -> Option<&'static str> {
        if !(start < 0 || end < start || end > size) {
            return None;
        }
        Some(if start < 0 || start > size {
            bad_position_index(start, size)
        } else if end < 0 || end > size {
            bad_position_index(end, size)
        } else {
            "IndexOutOfBoundsException"
        })
    }
    let p = prog(
        "import static com.google.common.base.Preconditions.checkPositionIndexes;\n\
         class A { static int f(int start, int end, int size) { checkPositionIndexes(start, end, size); return 0; } }",
    );
    for start in -2..=3 {
        for end in -2..=3 {
            for size in -2..=3 {
                let args = [start, end, size].map(crate::value::Value::int).to_vec();
                let got = crate::interp::run_named(&p, "f", crate::ir::Semantics::Machine, args);
                let thrown = match &got {
                    crate::interp::Outcome::Fault { kind, .. } => kind.java_class(),
                    _ => None,
                };
                assert_eq!(
                    thrown.as_deref(),
                    guava(start, end, size),
                    "checkPositionIndexes({start}, {end}, {size}): {got:?}"
                );
            }
        }
    }
}

#[test]
fn jdk_integer_methods_are_lowered_as_the_jdk_implements_them() {
    assert_eq!(
        body_of("int f(int x) { return Integer.signum(x); }", "f"),
        "$t1 = x; return (($t1 > 0) ? 1 : (($t1 < 0) ? -1 : 0))"
    );
    assert_eq!(
        body_of("int f(int x, int y) { return Math.floorMod(x, y); }", "f"),
        "$t2 = x; $t3 = y; $t4 = ($t2 / $t3); $t5 = ($t2 % $t3); return ((($t5 != 0) && (($t5 < 0) != ($t3 < 0))) ? ($t5 + $t3) : $t5)"
    );
    let p = prog(
        "class A { int f(double d) { return Integer.signum(d); } int g(int x) { return Integer.hashCode(x) + 1; } }",
    );
    assert_eq!(err(&p, "f").what, "Integer.signum of double");
    // Not modelled (yet): a call outside the file, whose result type the
    // context must give.
    assert!(
        err(&p, "g")
            .what
            .starts_with("the result of Integer.hashCode, a method outside the file"),
        "{}",
        err(&p, "g")
    );
}

#[test]
fn value_objects_are_lowered_to_their_fields() {
    let src = "class A {\n\
    static final class P {\n\
        final int x;\n\
        final int y;\n\
        int pad = 7;\n\
        P(int x, int y) { this.x = x; this.y = y + pad; }\n\
        P twice() { return new P(2 * x, 2 * y); }\n\
        int sum() { return x + y + pad; }\n\
    }\n\
    static int f(int a) { P p = new P(a, 1); return p.twice().sum() + p.x; }\n\
}";
    let p = prog(src);
    // The constructor: defaults, initialisers, body, then the return slots.
    let ctor = func(&p, "P");
    assert_eq!(
        show_block(&p, ctor, &ctor.body),
        "this.x = 0; this.y = 0; this.pad = 0; this.pad = 7; this.x = x; \
this.y = (y + this.pad); @P().x = this.x; @P().y = this.y; @P().pad = this.pad"
    );
    let slots: Vec<(&str, Option<&str>)> = p
        .globals
        .iter()
        .filter(|g| g.return_of.is_some())
        .map(|g| (g.name.as_str(), g.return_of.as_deref()))
        .collect();
    assert_eq!(
        slots,
        [
            ("P().x", Some("P")),
            ("P().y", Some("P")),
            ("P().pad", Some("P")),
            ("twice().x", Some("twice")),
            ("twice().y", Some("twice")),
            ("twice().pad", Some("twice")),
            ("P.twice().x", Some("P.twice")),
            ("P.twice().y", Some("P.twice")),
            ("P.twice().pad", Some("P.twice")),
        ]
    );
    // Object-mode copies are synthetic and take the fields first.
    let copy = p
        .functions
        .iter()
        .find(|f| f.name == "P.sum")
        .expect("object-mode copy");
    assert!(copy.synthetic);
    let sum = func(&p, "P.sum");
    let params: Vec<&str> = sum
        .params
        .iter()
        .map(|l| sum.local(*l).name.as_str())
        .collect();
    assert_eq!(params, ["this.x", "this.y", "this.pad"]);
    // Calls copy the slots out at once; the receiver's fields come first.
    let f = func(&p, "f");
    assert_eq!(
        show_block(&p, f, &f.body),
        "P#0(a, 1); $t1 = @P().x; $t2 = @P().y; $t3 = @P().pad; \
p.x = $t1; p.y = $t2; p.pad = $t3; P.twice#4(p.x, p.y, p.pad); \
$t7 = @P.twice().x; $t8 = @P.twice().y; $t9 = @P.twice().pad; \
$t10 = P.sum#5($t7, $t8, $t9); return ($t10 + p.x)"
    );
}

#[test]
fn a_static_field_holding_a_value_object_is_one_global_per_field() {
    // C has a mutator (set): still a value class, as long as nothing calls
    // set. `cur` is a static field of class C: its object's fields are the
    // globals `cur.re` and `cur.im`, written by assignment, read by calls.
    let src = "class A {\n\
    static C cur;\n\
    static final C ONE = new C(1, 0);\n\
    static void put(double a) { cur = new C(a, 0); }\n\
    static double get() { return cur.re + cur.abs(); }\n\
    static double one() { return ONE.re; }\n\
    static void set(double v) { cur.set(v); }\n\
}\n\
class C {\n\
    double re, im;\n\
    C(double r, double i) { re = r; im = i; }\n\
    double abs() { return re * re + im * im; }\n\
    void set(double v) { this.re = v; }\n\
}";
    let p = prog(src);
    let objects: Vec<(&str, Option<&str>)> = p
        .globals
        .iter()
        .filter(|g| g.static_object.is_some())
        .map(|g| (g.name.as_str(), g.static_object.as_deref()))
        .collect();
    assert_eq!(objects, [("cur.re", Some("cur")), ("cur.im", Some("cur"))]);
    assert_eq!(
        body_of_p(&p, "put"),
        "C#4(a, 0); $t1 = @C().re; $t2 = @C().im; @cur.re = $t1; @cur.im = $t2"
    );
    assert_eq!(
        body_of_p(&p, "get"),
        "$t1 = @cur.re; $t0 = C.abs#7(@cur.re, @cur.im); return ($t1 + $t0)"
    );
    // A static final object would be a constant, not an input: refused.
    assert_eq!(
        err(&p, "one").to_string(),
        "unsupported: field ONE of class type C at 6:30"
    );
    assert_eq!(
        err(&p, "set").to_string(),
        "unsupported: call to set, which changes its object (objects are modelled as values) at 7:29"
    );
}

#[test]
fn objects_outside_value_classes_are_refused_by_name() {
    let src = "class A {\n\
    static final class P { final int x; P(int x) { this.x = x; } }\n\
    static final class M { int n; M() {} void inc() { n++; } }\n\
    static int eq(int a) { P p = new P(a); P q = new P(a); return p == q ? 1 : 0; }\n\
    static int nul(int a) { P p = null; return a; }\n\
    static int mut(int a) { M m = new M(); m.inc(); return m.n; }\n\
}";
    let p = prog(src);
    assert_eq!(
        err(&p, "eq").to_string(),
        "unsupported: object p used as a value (only its fields and methods are) at 4:63"
    );
    assert_eq!(err(&p, "nul").to_string(), "unsupported: null at 5:31");
    // M is a value class whose method inc() changes its object: calling
    // it is refused where it is called.
    assert_eq!(
        err(&p, "mut").to_string(),
        "unsupported: call to inc, which changes its object (objects are modelled as values) at 6:40"
    );
}

#[test]
fn a_class_the_file_extends_is_not_a_value_class() {
    // Q overrides get(): inlining P's get() for a P-typed value would be
    // wrong for a Q, so P's objects stay unsupported.
    let src = "class A {\n\
    static class P { final int x; P(int x) { this.x = x; } int get() { return x; } }\n\
    static class Q extends P { Q(int x) { super(x); } int get() { return 0; } }\n\
    static int f(int a) { P p = new P(a); return p.get(); }\n\
}";
    let p = prog(src);
    assert_eq!(
        err(&p, "f").to_string(),
        "unsupported: object creation new P(...) at 4:29"
    );
}

#[test]
fn the_pipeline_folds_locals_that_only_name_a_constant() {
    // What every checker sees (`crate::lang::lower`), unlike the front
    // end's own output the other tests look at.
    let folded = |members: &str, name: &str| {
        let p = crate::lang::lower(Lang::Java, &format!("class A {{ {members} }}"));
        let f = func(&p, name);
        show_block(&p, f, &f.body)
    };
    assert_eq!(
        folded(
            "static int f(int n) { int k = 2; double h = -0.5; int s = 0; for (int i = 0; i < k; i++) s += n; return s + k + (int) h; }",
            "f"
        ),
        "s = 0; i = 0; L0: while (i < 2) { s = (s + n) } step { i = (i + 1) }; return ((s + 2) + (i32)-0.5)"
    );
    // Assigned twice, set in a branch (only top-level assignments
    // qualify), or a parameter: all stay.
    assert_eq!(
        folded(
            "static int g(int p, boolean b) { int k = 1; k = 3; int c; if (b) c = 1; else c = 2; p = 4; return k + c + p; }",
            "g"
        ),
        "k = 1; k = 3; if b { c = 1 } else { c = 2 }; p = 4; return ((k + c) + p)"
    );
}

#[test]
fn strings_are_char_arrays_read_with_length_char_at_and_is_empty() {
    let src = "class A {\n  static int check(String role, int x) {\n    if (x < 0) throw new IllegalArgumentException(role + \" < 0\");\n    return x;\n  }\n  static int f(int x) { return check(\"x\", x) + check((\"y\"), x); }\n  static int g(String role, int x) { return check(role, x); }\n  static int h(String role) { return role.length(); }\n  static int k(int x) { String s = \"x\"; return check(s, x); }\n  static char c(String s, int i) { return s.isEmpty() ? ' ' : s.charAt(i); }\n  static int v(char c) { return \"aeiou\".indexOf(c); }\n  static String u(String s) { return s.trim(); }\n  static int t(String s) { return s.trim().length(); }\n  static int p(String s) { String t = s + \"!\"; return t.length(); }\n  static char w() { var s = \"ab\"; return s.charAt(1); }\n  static char r(String s, String t) { return s.charAt((s = t) == null ? 0 : 1); }\n}";
    let p = prog(src);
    let check = func(&p, "check");
    let role = check.local(check.params[0]);
    assert_eq!(role.ty, Type::Array(Box::new(Type::Int(IntTy::JAVA_CHAR))));
    assert!(role.text);
    func(&p, "f");
    func(&p, "g");
    let body = |name: &str| {
        let f = func(&p, name);
        show_block(&p, f, &f.body)
    };
    assert_eq!(body("h"), "return role.length");
    func(&p, "k");
    // `charAt` checks its index against the length (a null receiver
    // faults there first) and throws StringIndexOutOfBoundsException.
    let c = body("c");
    assert!(c.contains("StringIndexOutOfBoundsException"), "{c}");
    assert!(c.contains("s.length"), "{c}");
    assert!(body("v").contains("? 4 : -1"), "{}", body("v"));
    assert_eq!(
        err(&p, "u").to_string(),
        "unsupported: method returning String at 12:10"
    );
    assert_eq!(
        err(&p, "t").to_string(),
        "unsupported: String.trim with 0 argument(s) (a String is read with length, charAt, isEmpty, equals, startsWith and endsWith of a literal; a literal's indexOf of a character) at 13:35"
    );
    assert_eq!(
        err(&p, "p").to_string(),
        "unsupported: String value other than a literal or a String variable at 14:39"
    );
    // `var` of a literal is a String too.
    func(&p, "w");
    // The receiver is read before the index assigns its variable.
    let r = body("r");
    assert!(!r.contains("s["), "{r}");
}

#[test]
fn strings_compare_with_literals_by_equals_affixes_and_switch() {
    let src = "class A {\n\
  static boolean e(String s) { return s.equals(\"ab\"); }\n\
  static boolean l(String s) { return \"ab\".equals(s); }\n\
  static boolean n(String s) { return s.equals(null); }\n\
  static boolean k() { return \"a\".equals(\"a\"); }\n\
  static boolean p(String s) { return s.startsWith(\"x\"); }\n\
  static boolean q(String s) { return s.endsWith(\"y\"); }\n\
  static int w(String s) { switch (s) { case \"a\": return 1; default: return 0; } }\n\
  static boolean v(String s, String t) { return s.equals(t); }\n\
  static boolean x(String s, String t) { return s.startsWith(t); }\n\
  static int y(String s) { switch (s) { case \"a\" + \"b\": return 1; default: return 0; } }\n\
}";
    let p = prog(src);
    // A String receiver faults when null; a literal receiver does not, and
    // a null argument is unequal. Units are read only within the length.
    assert_eq!(
        body_of_p(&p, "e"),
        "if (s == null) { throw exception NullPointerException }; \
         return (((!(s == null) && (s.length == 2)) && (s[0] == 97)) && (s[1] == 98))"
    );
    assert_eq!(
        body_of_p(&p, "l"),
        "return (((!(s == null) && (s.length == 2)) && (s[0] == 97)) && (s[1] == 98))"
    );
    assert!(body_of_p(&p, "n").ends_with("return false"));
    assert_eq!(body_of_p(&p, "k"), "return true");
    assert!(body_of_p(&p, "p").ends_with("return ((s.length >= 1) && (s[0] == 120))"));
    assert!(
        body_of_p(&p, "q")
            .ends_with("return ((s.length >= 1) && (s[((s.length - 1) + 0)] == 121))"),
        "{}",
        body_of_p(&p, "q")
    );
    // Switching on a null String faults before any label is compared.
    let w = body_of_p(&p, "w");
    assert!(
        w.starts_with("if (s == null) { throw exception NullPointerException }"),
        "{w}"
    );
    assert!(w.contains("($t1[0] == 97)"), "{w}");
    // Two variables: a loop over the units once the lengths agree.
    let v = body_of_p(&p, "v");
    assert!(
        v.contains("$t2 = (!(t == null) && (s.length == t.length))")
            && v.contains("while ($t2 && ($t3 < s.length)) { if (s[$t3] != t[$t3]) { $t2 = false } } step { $t3 = ($t3 + 1) }; return $t2"),
        "{v}"
    );
    assert_eq!(
        err(&p, "x").what,
        "String.startsWith of a String other than a literal"
    );
    assert_eq!(
        err(&p, "y").what,
        "case label of a String switch other than a literal"
    );
}

#[test]
fn null_tests_of_arrays_are_lowered_and_other_nulls_refused() {
    let src = "import java.util.Objects;\n\
class A {\n\
  int f(int[] a) { if (a == null) { return 0; } return a.length; }\n\
  boolean g(int[] a, int[] b) { return (null != a) && Objects.isNull(b); }\n\
  int h(int[] a) { int[] b = Objects.requireNonNull(a, \"a\"); return b.length; }\n\
  int k(int x) { return x == null ? 0 : 1; }\n\
  int m(int[] a) { a = null; return 0; }\n\
  int n(int[] a) { Objects.requireNonNull(a, describe(a)); return 0; }\n\
}";
    let p = prog(src);
    assert_eq!(
        body_of_p(&p, "f"),
        "if (a == null) { return 0 }; return a.length"
    );
    assert_eq!(body_of_p(&p, "g"), "return (!(a == null) && (b == null))");
    assert_eq!(
        body_of_p(&p, "h"),
        "if (a == null) { throw exception NullPointerException }; b = a; return b.length"
    );
    assert_eq!(err(&p, "k").what, "comparison of a int with null");
    assert_eq!(err(&p, "m").to_string(), "unsupported: null at 7:22");
    assert!(
        err(&p, "n").what.starts_with(
            "method invocation in a message argument of java.util.Objects.requireNonNull"
        ),
        "{}",
        err(&p, "n")
    );
}

/// `Objects.checkFromToIndex` and `checkFromIndexSize` against the JDK 17
/// definitions (`Preconditions.checkFromToIndex`/`checkFromIndexSize`), on
/// every small triple and at the int range's edge, where the JDK's
/// subtraction cannot overflow.
#[test]
fn objects_range_checks_throw_what_the_jdk_throws() {
    fn from_to(from: i64, to: i64, length: i64) -> bool {
        from < 0 || from > to || to > length
    }
    fn from_size(from: i64, size: i64, length: i64) -> bool {
        (length | from | size) < 0 || size > length - from
    }
    let p = prog(
        "import java.util.Objects;\n\
         class A {\n\
           static int f(int a, int b, int n) { return Objects.checkFromToIndex(a, b, n); }\n\
           static int g(int a, int b, int n) { return Objects.checkFromIndexSize(a, b, n); }\n\
         }",
    );
    let edge = [
        i32::MIN as i64,
        -2,
        -1,
        0,
        1,
        2,
        3,
        i32::MAX as i64 - 1,
        i32::MAX as i64,
    ];
    for a in edge {
        for b in edge {
            for n in edge {
                for (name, jdk) in [
                    ("f", from_to as fn(i64, i64, i64) -> bool),
                    ("g", from_size),
                ] {
                    let args = [a, b, n].map(crate::value::Value::int).to_vec();
                    let got =
                        crate::interp::run_named(&p, name, crate::ir::Semantics::Machine, args);
                    let expected = if jdk(a, b, n) {
                        crate::interp::Outcome::Fault {
                            kind: crate::interp::FaultKind::Thrown(Thrown::Exception(
                                "IndexOutOfBoundsException".into(),
                            )),
                            span: Default::default(),
                            lang: Lang::Java,
                        }
                    } else {
                        crate::interp::Outcome::Return(crate::value::Value::int(a))
                    };
                    let same = match (&got, &expected) {
                        (
                            crate::interp::Outcome::Fault { kind: k1, .. },
                            crate::interp::Outcome::Fault { kind: k2, .. },
                        ) => k1 == k2,
                        _ => got == expected,
                    };
                    assert!(same, "{name}({a}, {b}, {n}): {got:?}, JDK {expected:?}");
                }
            }
        }
    }
}

#[test]
fn fields_of_nested_classes_are_named_with_their_class() {
    // By nesting, not by clashes: `B.d` whether or not another `d` exists,
    // and a top-level class's field keeps its own name wherever the nested
    // class is declared.
    let p = prog(
        "class A { static class B { static int d; static int x; }
           static int x; static int d() { return B.d; } }",
    );
    let names: Vec<&str> = p.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["B.d", "B.x", "x"]);
    let p = prog("class A { static class B { static class C { static int e; } static int e; } }");
    let names: Vec<&str> = p.globals.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, ["C.e", "B.e"]);
}
