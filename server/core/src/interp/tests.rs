//! Interpreter tests on hand-built IR (the front ends are developed
//! separately; these pin down the semantics independently of them).

use super::*;
use crate::interval::Interval;
use crate::ir::*;
use crate::value::Real;
use num_bigint::BigInt;
use num_rational::BigRational;

// ----- a tiny IR builder ------------------------------------------------------

fn sp(line: u32) -> Span {
    Span {
        start: Pos {
            line: line.saturating_sub(1),
            col: 0,
            byte: 0,
        },
        end: Pos::default(),
    }
}

fn ex(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: sp(1),
    }
}

fn int(i: i128) -> Expr {
    ex(ExprKind::IntLit(i), Type::INT)
}

fn lit(i: i128, ty: Type) -> Expr {
    ex(ExprKind::IntLit(i), ty)
}

fn long(i: i128) -> Expr {
    lit(i, Type::LONG)
}

fn dbl(x: f64, text: &str) -> Expr {
    ex(
        ExprKind::FloatLit(FloatLit {
            value: x,
            text: text.into(),
        }),
        Type::DOUBLE,
    )
}

fn boolean(b: bool) -> Expr {
    ex(ExprKind::BoolLit(b), Type::Bool)
}

fn s(text: &str) -> Expr {
    ex(ExprKind::StrLit(text.into()), Type::Str)
}

fn loc(id: u32, ty: Type) -> Expr {
    ex(ExprKind::Local(LocalId(id)), ty)
}

fn glob(id: u32, ty: Type) -> Expr {
    ex(ExprKind::Global(GlobalId(id)), ty)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
        Type::Bool
    } else {
        a.ty.clone()
    };
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
}

fn un(op: UnOp, a: Expr) -> Expr {
    let ty = a.ty.clone();
    ex(ExprKind::Unary(op, Box::new(a)), ty)
}

fn cast(a: Expr, ty: Type) -> Expr {
    ex(ExprKind::Cast(Box::new(a)), ty)
}

fn index(a: Expr, i: Expr) -> Expr {
    let ty = a.ty.elem().cloned().unwrap_or(Type::Void);
    ex(ExprKind::Index(Box::new(a), Box::new(i)), ty)
}

fn intrinsic(k: Intrinsic, args: Vec<Expr>, ty: Type) -> Expr {
    ex(ExprKind::Intrinsic(k, args), ty)
}

fn st(kind: StmtKind, line: u32) -> Stmt {
    Stmt {
        kind,
        span: sp(line),
    }
}

fn ret(e: Expr, line: u32) -> Stmt {
    st(StmtKind::Return(Some(e)), line)
}

fn assign(id: u32, e: Expr, line: u32) -> Stmt {
    st(
        StmtKind::Assign {
            place: Place::Local(LocalId(id)),
            value: e,
        },
        line,
    )
}

fn println(args: Vec<Expr>, line: u32) -> Stmt {
    st(
        StmtKind::Print {
            kind: PrintKind::Java { newline: true },
            args,
        },
        line,
    )
}

fn int_arr() -> Type {
    Type::Array(Box::new(Type::INT))
}

/// A function whose first `nparams` locals are its parameters.
fn func(
    name: &str,
    locals: Vec<(&str, Type)>,
    nparams: usize,
    ret: Type,
    body: Block,
) -> FunctionDef {
    let f = Function {
        name: name.into(),
        params: (0..nparams as u32).map(LocalId).collect(),
        locals: locals
            .into_iter()
            .enumerate()
            .map(|(i, (n, t))| Local {
                name: n.into(),
                ty: t,
                kind: if i < nparams {
                    LocalKind::Param
                } else {
                    LocalKind::Var
                },
                span: sp(1),
                text: false,
            })
            .collect(),
        ret,
        body,
        span: sp(1),
        name_span: sp(1),
    };
    FunctionDef {
        name: name.into(),
        arity: nparams,
        span: sp(1),
        name_span: sp(1),
        body: Ok(f),
        synthetic: false,
        param_types: Vec::new(),
        owner: Vec::new(),
    }
}

fn prog(lang: Lang, functions: Vec<FunctionDef>) -> Program {
    Program {
        lang,
        functions,
        globals: Vec::new(),
        class_parents: Vec::new(),
        syntax_errors: Vec::new(),
        cache: Default::default(),
    }
}

fn run(p: &Program, sem: Semantics, args: Vec<Value>) -> Execution {
    execute(
        p,
        FuncId(0),
        &Inputs {
            args,
            globals: BTreeMap::new(),
            callees: Vec::new(),
        },
        sem,
        SignedOverflow::default(),
        &Limits::default(),
    )
}

/// [`eval_in`] for C under machine semantics compiled with `-fwrapv`.
fn eval_wrapping_c(e: Expr) -> Outcome {
    let ty = e.ty.clone();
    let p = prog(C, vec![func("f", vec![], 0, ty, vec![ret(e, 1)])]);
    execute(
        &p,
        FuncId(0),
        &Inputs::default(),
        Machine,
        SignedOverflow::Wraps,
        &Limits::default(),
    )
    .outcome
}

/// Evaluates `e` as the return value of a parameterless function.
fn eval_in(lang: Lang, sem: Semantics, e: Expr) -> Outcome {
    let ty = e.ty.clone();
    let p = prog(lang, vec![func("f", vec![], 0, ty, vec![ret(e, 1)])]);
    run(&p, sem, vec![]).outcome
}

fn returns(v: i64) -> Outcome {
    Outcome::Return(Value::int(v))
}

fn big(v: i128) -> Outcome {
    Outcome::Return(Value::Int(BigInt::from(v)))
}

fn fault_kind(o: &Outcome) -> Option<&FaultKind> {
    match o {
        Outcome::Fault { kind, .. } => Some(kind),
        _ => None,
    }
}

fn is_undefined(o: &Outcome) -> bool {
    matches!(fault_kind(o), Some(FaultKind::Undefined(_)))
}

use Lang::{C, Java};
use Semantics::{Machine, Math};

// ----- arithmetic -------------------------------------------------------------

#[test]
fn overflow_wraps_under_machine_only() {
    let e = || bin(BinOp::Add, int(i32::MAX as i128), int(1));
    assert_eq!(eval_in(Java, Machine, e()), returns(i32::MIN as i64));
    assert_eq!(eval_in(Java, Math, e()), returns(1 << 31));
    let m = || bin(BinOp::Mul, long(i64::MAX as i128), long(2));
    assert_eq!(eval_in(C, Math, m()), big(i64::MAX as i128 * 2));
    // Signed overflow in C is undefined, unless the project wraps (-fwrapv).
    assert!(is_undefined(&eval_in(C, Machine, m())));
    assert_eq!(eval_wrapping_c(m()), returns(-2));
    let neg_min = || un(UnOp::Neg, int(i32::MIN as i128));
    assert!(is_undefined(&eval_in(C, Machine, neg_min())));
    assert_eq!(eval_wrapping_c(neg_min()), returns(i32::MIN as i64));
    let abs_min = || intrinsic(Intrinsic::Abs, vec![int(i32::MIN as i128)], Type::INT);
    assert!(is_undefined(&eval_in(C, Machine, abs_min())));
    assert_eq!(eval_wrapping_c(abs_min()), returns(i32::MIN as i64));
    let sub = || bin(BinOp::Sub, int(i32::MIN as i128), int(1));
    assert!(is_undefined(&eval_in(C, Machine, sub())));
    // In range, at the edges: defined.
    let edge = bin(BinOp::Add, int(i32::MAX as i128 - 1), int(1));
    assert_eq!(eval_in(C, Machine, edge), returns(i32::MAX as i64));
    let edge = bin(BinOp::Mul, int(-(1 << 30)), int(2));
    assert_eq!(eval_in(C, Machine, edge), returns(i32::MIN as i64));
    // Unsigned wrap and negation.
    let u = bin(
        BinOp::Sub,
        lit(0, Type::Int(IntTy::U32)),
        lit(1, Type::Int(IntTy::U32)),
    );
    assert_eq!(eval_in(C, Machine, u), returns(u32::MAX as i64));
    assert_eq!(
        eval_in(Java, Machine, un(UnOp::Neg, int(i32::MIN as i128))),
        returns(i32::MIN as i64)
    );
    assert_eq!(
        eval_in(Java, Machine, un(UnOp::BitNot, int(5))),
        returns(-6)
    );
}

#[test]
fn division_truncates_and_faults() {
    for sem in [Math, Machine] {
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::Div, int(-7), int(2))),
            returns(-3)
        );
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::Rem, int(-7), int(2))),
            returns(-1)
        );
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::Rem, int(7), int(-2))),
            returns(1)
        );
        let o = eval_in(C, sem, bin(BinOp::Div, int(1), int(0)));
        assert_eq!(fault_kind(&o), Some(&FaultKind::DivisionByZero));
        let o = eval_in(Java, sem, bin(BinOp::Rem, int(1), int(0)));
        assert_eq!(fault_kind(&o), Some(&FaultKind::DivisionByZero));
    }
    let min = || int(i32::MIN as i128);
    assert_eq!(
        eval_in(Java, Machine, bin(BinOp::Div, min(), int(-1))),
        returns(i32::MIN as i64)
    );
    assert_eq!(
        eval_in(Java, Machine, bin(BinOp::Rem, min(), int(-1))),
        returns(0)
    );
    assert_eq!(
        eval_in(Java, Math, bin(BinOp::Div, min(), int(-1))),
        returns(1 << 31)
    );
    assert!(is_undefined(&eval_in(
        C,
        Machine,
        bin(BinOp::Div, min(), int(-1))
    )));
    assert_eq!(
        eval_in(C, Math, bin(BinOp::Div, min(), int(-1))),
        returns(1 << 31)
    );
    // Real division: exact under math (fault on zero), IEEE under machine.
    let o = eval_in(
        Java,
        Math,
        bin(BinOp::Div, dbl(1.0, "1.0"), dbl(0.0, "0.0")),
    );
    assert_eq!(fault_kind(&o), Some(&FaultKind::DivisionByZero));
    assert_eq!(
        eval_in(
            Java,
            Machine,
            bin(BinOp::Div, dbl(1.0, "1.0"), dbl(0.0, "0.0"))
        ),
        Outcome::Return(Value::F64(f64::INFINITY))
    );
    let third = BigRational::new(BigInt::from(1), BigInt::from(3));
    assert_eq!(
        eval_in(Java, Math, bin(BinOp::Div, dbl(1.0, "1.0"), dbl(3.0, "3"))),
        Outcome::Return(Value::Real(Real::Exact(third)))
    );
    // Real remainder: sign of the dividend.
    let rem = || bin(BinOp::Rem, dbl(-7.5, "-7.5"), dbl(2.0, "2"));
    assert_eq!(
        eval_in(Java, Machine, rem()),
        Outcome::Return(Value::F64(-1.5))
    );
    let r = BigRational::new(BigInt::from(-3), BigInt::from(2));
    assert_eq!(
        eval_in(Java, Math, rem()),
        Outcome::Return(Value::Real(Real::Exact(r)))
    );
}

#[test]
fn float_literals_are_exact_under_math() {
    let e = || {
        bin(
            BinOp::Eq,
            bin(BinOp::Add, dbl(0.1, "0.1"), dbl(0.2, "0.2")),
            dbl(0.3, "0.3"),
        )
    };
    assert_eq!(eval_in(Java, Math, e()), Outcome::Return(Value::Bool(true)));
    assert_eq!(
        eval_in(Java, Machine, e()),
        Outcome::Return(Value::Bool(false))
    );
    // Synthesised literal (no text): the double's exact value.
    let half = BigRational::new(BigInt::from(1), BigInt::from(2));
    assert_eq!(
        eval_in(Java, Math, dbl(0.5, "")),
        Outcome::Return(Value::Real(Real::Exact(half)))
    );
    assert_eq!(
        ops::parse_decimal("1.5e-3"),
        Some(BigRational::new(BigInt::from(3), BigInt::from(2000)))
    );
    assert_eq!(
        ops::parse_decimal("2."),
        Some(BigRational::from_integer(BigInt::from(2)))
    );
    assert_eq!(ops::parse_decimal("0x1p3"), None);
}

#[test]
fn shifts() {
    for sem in [Math, Machine] {
        // Java masks the count by the left operand's width.
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::Shl, int(1), int(33))),
            returns(2)
        );
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::Shl, long(1), int(33))),
            returns(1 << 33)
        );
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::Shr, int(-8), int(1))),
            returns(-4)
        );
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::Shr, int(-7), int(1))),
            returns(-4)
        );
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::UShr, int(-1), int(28))),
            returns(15)
        );
        assert_eq!(
            eval_in(Java, sem, bin(BinOp::UShr, long(-1), int(60))),
            returns(15)
        );
        assert!(is_undefined(&eval_in(
            C,
            sem,
            bin(BinOp::Shl, int(1), int(32))
        )));
        assert!(is_undefined(&eval_in(
            C,
            sem,
            bin(BinOp::Shl, int(1), int(-1))
        )));
    }
    // Overflowing left shift: wraps vs exact.
    assert_eq!(
        eval_in(Java, Machine, bin(BinOp::Shl, int(3), int(31))),
        returns(i32::MIN as i64)
    );
    assert_eq!(
        eval_in(Java, Math, bin(BinOp::Shl, int(3), int(31))),
        returns(3 << 31)
    );
    // C: >> on unsigned is logical.
    let u = Type::Int(IntTy::U32);
    assert_eq!(
        eval_in(C, Machine, bin(BinOp::Shr, lit(0xFFFF_FFFF, u), int(28))),
        returns(15)
    );
    // Bitwise ops on negative unbounded integers are two's complement.
    assert_eq!(
        eval_in(Java, Math, bin(BinOp::BitAnd, int(-6), int(7))),
        returns(2)
    );
    assert_eq!(
        eval_in(Java, Math, bin(BinOp::BitXor, int(-1), int(5))),
        returns(-6)
    );
}

#[test]
fn casts() {
    let to_int = |x: f64| cast(dbl(x, ""), Type::INT);
    assert_eq!(
        eval_in(Java, Machine, to_int(1e10)),
        returns(i32::MAX as i64)
    );
    assert_eq!(
        eval_in(Java, Machine, to_int(-1e10)),
        returns(i32::MIN as i64)
    );
    assert_eq!(eval_in(Java, Machine, to_int(f64::NAN)), returns(0));
    assert_eq!(eval_in(Java, Machine, to_int(-2.7)), returns(-2));
    assert_eq!(
        eval_in(Java, Machine, cast(dbl(f64::INFINITY, ""), Type::LONG)),
        returns(i64::MAX)
    );
    // Narrow targets go through int: (byte)(int)300.0 = 44, (char)(int)-1.0.
    assert_eq!(
        eval_in(Java, Machine, cast(dbl(300.0, ""), Type::Int(IntTy::I8))),
        returns(44)
    );
    assert_eq!(
        eval_in(
            Java,
            Machine,
            cast(dbl(-1.0, ""), Type::Int(IntTy::JAVA_CHAR))
        ),
        returns(65535)
    );
    assert_eq!(
        eval_in(Java, Machine, cast(dbl(1e10, ""), Type::Int(IntTy::I16))),
        returns(-1)
    );
    // C: out of range is undefined.
    assert!(is_undefined(&eval_in(C, Machine, to_int(1e10))));
    assert!(is_undefined(&eval_in(C, Machine, to_int(f64::NAN))));
    assert!(is_undefined(&eval_in(
        C,
        Machine,
        cast(dbl(300.0, ""), Type::Int(IntTy::C_CHAR))
    )));
    assert_eq!(eval_in(C, Machine, to_int(-2.9)), returns(-2));
    // Math: truncation, integer casts are the identity.
    assert_eq!(
        eval_in(Java, Math, cast(dbl(-2.7, "-2.7"), Type::INT)),
        returns(-2)
    );
    assert_eq!(eval_in(Java, Math, to_int(1e10)), returns(10_000_000_000));
    assert_eq!(
        eval_in(Java, Math, cast(int(200), Type::Int(IntTy::I8))),
        returns(200)
    );
    assert_eq!(
        eval_in(Java, Machine, cast(int(200), Type::Int(IntTy::I8))),
        returns(-56)
    );
    assert_eq!(
        eval_in(C, Machine, cast(int(-1), Type::Int(IntTy::U64))),
        big(u64::MAX as i128)
    );
    // int → float rounds to nearest even.
    let f = eval_in(
        Java,
        Machine,
        cast(int(16_777_217), Type::Float(FloatTy::F32)),
    );
    assert_eq!(f, Outcome::Return(Value::F32(16_777_216.0)));
}

#[test]
fn intrinsics() {
    let round = |x: f64| intrinsic(Intrinsic::Round, vec![dbl(x, "")], Type::LONG);
    assert_eq!(eval_in(Java, Machine, round(2.5)), returns(3));
    assert_eq!(eval_in(Java, Machine, round(-2.5)), returns(-2));
    assert_eq!(
        eval_in(Java, Machine, round(0.49999999999999994)),
        returns(0)
    );
    assert_eq!(eval_in(Java, Machine, round(f64::NAN)), returns(0));
    assert_eq!(eval_in(Java, Machine, round(1e300)), returns(i64::MAX));
    assert_eq!(eval_in(Java, Math, round(-2.5)), returns(-2));
    let abs = intrinsic(Intrinsic::Abs, vec![int(i32::MIN as i128)], Type::INT);
    assert_eq!(eval_in(Java, Machine, abs), returns(i32::MIN as i64));
    let max = intrinsic(
        Intrinsic::Max,
        vec![dbl(f64::NAN, ""), dbl(1.0, "")],
        Type::DOUBLE,
    );
    assert!(
        matches!(eval_in(Java, Machine, max.clone()), Outcome::Return(Value::F64(x)) if x.is_nan())
    );
    assert_eq!(eval_in(C, Machine, max), Outcome::Return(Value::F64(1.0)));
    let ge = |x: f64| intrinsic(Intrinsic::GetExponent, vec![dbl(x, "")], Type::INT);
    assert_eq!(eval_in(Java, Machine, ge(8.0)), returns(3));
    assert_eq!(eval_in(Java, Machine, ge(0.0)), returns(-1023));
    assert_eq!(eval_in(Java, Machine, ge(f64::INFINITY)), returns(1024));
    // sqrt: exact on perfect squares under math, approximate otherwise.
    let p = |x: f64, text: &str| {
        let e = intrinsic(Intrinsic::Sqrt, vec![dbl(x, text)], Type::DOUBLE);
        run(
            &prog(
                Java,
                vec![func("f", vec![], 0, Type::DOUBLE, vec![ret(e, 1)])],
            ),
            Math,
            vec![],
        )
    };
    let r = p(2.25, "2.25");
    let exact = BigRational::new(BigInt::from(3), BigInt::from(2));
    assert_eq!(r.outcome, Outcome::Return(Value::Real(Real::Exact(exact))));
    assert!(!r.inexact);
    let r = p(2.0, "2");
    assert!(r.inexact);
    assert!(
        matches!(r.outcome, Outcome::Return(Value::Real(Real::Approx(x, _))) if x.lo() <= 2f64.sqrt() && 2f64.sqrt() <= x.hi())
    );
    let floor = intrinsic(Intrinsic::Floor, vec![dbl(-1.5, "-1.5")], Type::DOUBLE);
    let m2 = BigRational::from_integer(BigInt::from(-2));
    assert_eq!(
        eval_in(Java, Math, floor),
        Outcome::Return(Value::Real(Real::Exact(m2)))
    );
}

// ----- control flow -----------------------------------------------------------

#[test]
fn lazy_and_does_not_fault() {
    let div0 = || bin(BinOp::Eq, bin(BinOp::Div, int(1), int(0)), int(0));
    let e = bin(BinOp::And, boolean(false), div0());
    assert_eq!(
        eval_in(Java, Machine, e),
        Outcome::Return(Value::Bool(false))
    );
    let e = bin(BinOp::Or, boolean(true), div0());
    assert_eq!(eval_in(Java, Math, e), Outcome::Return(Value::Bool(true)));
    let e = ex(
        ExprKind::Cond(
            Box::new(boolean(true)),
            Box::new(int(1)),
            Box::new(bin(BinOp::Div, int(1), int(0))),
        ),
        Type::INT,
    );
    assert_eq!(eval_in(Java, Math, e), returns(1));
    // Eager `&` on booleans evaluates both sides.
    let e = bin(BinOp::BitAnd, boolean(false), div0());
    assert_eq!(
        fault_kind(&eval_in(Java, Machine, e)),
        Some(&FaultKind::DivisionByZero)
    );
}

/// sum = 0; for (i = 0; i < n; i++) { if (i == 2) continue; if (i == 5) break; sum += i; } return sum;
fn loop_program(kind: LoopKind) -> Program {
    let (n, i, sum) = (0, 1, 2);
    let l = LabelId(0);
    let body = vec![
        st(
            StmtKind::If {
                cond: bin(BinOp::Eq, loc(i, Type::INT), int(2)),
                then_branch: vec![st(StmtKind::Continue(l), 4)],
                else_branch: vec![],
            },
            4,
        ),
        st(
            StmtKind::If {
                cond: bin(BinOp::Eq, loc(i, Type::INT), int(5)),
                then_branch: vec![st(StmtKind::Break(l), 5)],
                else_branch: vec![],
            },
            5,
        ),
        assign(
            sum,
            bin(BinOp::Add, loc(sum, Type::INT), loc(i, Type::INT)),
            6,
        ),
    ];
    let body = vec![
        assign(sum, int(0), 2),
        assign(i, int(0), 3),
        st(
            StmtKind::Loop {
                label: l,
                kind,
                cond: bin(BinOp::Lt, loc(i, Type::INT), loc(n, Type::INT)),
                body,
                step: vec![assign(i, bin(BinOp::Add, loc(i, Type::INT), int(1)), 3)],
            },
            3,
        ),
        ret(loc(sum, Type::INT), 8),
    ];
    prog(
        Java,
        vec![func(
            "f",
            vec![("n", Type::INT), ("i", Type::INT), ("sum", Type::INT)],
            1,
            Type::INT,
            body,
        )],
    )
}

#[test]
fn loops_break_continue_step() {
    let p = loop_program(LoopKind::While);
    assert_eq!(
        run(&p, Math, vec![Value::int(10)]).outcome,
        returns(1 + 3 + 4)
    );
    assert_eq!(run(&p, Math, vec![Value::int(4)]).outcome, returns(1 + 3));
    assert_eq!(run(&p, Math, vec![Value::int(0)]).outcome, returns(0));
    // do-while: the body runs once even when the condition is false.
    let p = loop_program(LoopKind::DoWhile);
    assert_eq!(run(&p, Machine, vec![Value::int(0)]).outcome, returns(0));
    assert_eq!(run(&p, Machine, vec![Value::int(-5)]).outcome, returns(0));
    let r = run(&p, Machine, vec![Value::int(10)]);
    assert_eq!(r.outcome, returns(8));
    // Trace: one-based lines, consecutive repeats collapsed.
    let r = run(&loop_program(LoopKind::While), Math, vec![Value::int(1)]);
    assert_eq!(r.trace, vec![2, 3, 4, 5, 6, 3, 8]);
}

#[test]
fn labeled_block_is_a_switch() {
    // switch (x) { case 1: r = 10; break; case 2: r = 20; default: r += 1; }
    let (x, r) = (0, 1);
    let l = LabelId(7);
    let is = |v| bin(BinOp::Eq, loc(x, Type::INT), int(v));
    let body = vec![
        st(
            StmtKind::Labeled {
                label: l,
                body: vec![
                    st(
                        StmtKind::If {
                            cond: is(1),
                            then_branch: vec![assign(r, int(10), 2), st(StmtKind::Break(l), 2)],
                            else_branch: vec![],
                        },
                        2,
                    ),
                    st(
                        StmtKind::If {
                            cond: is(2),
                            then_branch: vec![assign(r, int(20), 3)],
                            else_branch: vec![],
                        },
                        3,
                    ),
                    assign(r, bin(BinOp::Add, loc(r, Type::INT), int(1)), 4),
                ],
            },
            1,
        ),
        ret(loc(r, Type::INT), 5),
    ];
    let p = prog(
        Java,
        vec![func(
            "f",
            vec![("x", Type::INT), ("r", Type::INT)],
            1,
            Type::INT,
            body,
        )],
    );
    assert_eq!(run(&p, Math, vec![Value::int(1)]).outcome, returns(10));
    assert_eq!(run(&p, Math, vec![Value::int(2)]).outcome, returns(21));
    assert_eq!(run(&p, Math, vec![Value::int(3)]).outcome, returns(1));
}

fn fact_program() -> Program {
    // long fact(n) { if (n <= 1) return 1; t = fact(n - 1); return n * t; }
    let body = vec![
        st(
            StmtKind::If {
                cond: bin(BinOp::Le, loc(0, Type::LONG), long(1)),
                then_branch: vec![ret(long(1), 1)],
                else_branch: vec![],
            },
            1,
        ),
        st(
            StmtKind::Call {
                dest: Some(Place::Local(LocalId(1))),
                func: FuncId(0),
                args: vec![bin(BinOp::Sub, loc(0, Type::LONG), long(1))],
            },
            2,
        ),
        ret(bin(BinOp::Mul, loc(0, Type::LONG), loc(1, Type::LONG)), 3),
    ];
    prog(
        Java,
        vec![func(
            "fact",
            vec![("n", Type::LONG), ("t", Type::LONG)],
            1,
            Type::LONG,
            body,
        )],
    )
}

#[test]
fn calls_recursion_and_limits() {
    let p = fact_program();
    assert_eq!(
        run(&p, Machine, vec![Value::int(10)]).outcome,
        returns(3_628_800)
    );
    // 21! overflows a long.
    let m = run(&p, Machine, vec![Value::int(21)]).outcome;
    let e = run(&p, Math, vec![Value::int(21)]).outcome;
    assert_eq!(e, big(51_090_942_171_709_440_000));
    assert_eq!(
        m,
        big((51_090_942_171_709_440_000u128 as u64) as i64 as i128)
    );
    assert_eq!(
        run(&p, Math, vec![Value::int(1000)]).outcome,
        Outcome::Limit(LimitKind::CallDepth)
    );
    // while (true) {} hits the step limit.
    let body = vec![st(
        StmtKind::Loop {
            label: LabelId(0),
            kind: LoopKind::While,
            cond: boolean(true),
            body: vec![],
            step: vec![],
        },
        1,
    )];
    let p = prog(Java, vec![func("f", vec![], 0, Type::Void, body)]);
    let lim = Limits {
        max_steps: 1000,
        ..Limits::default()
    };
    let r = execute(
        &p,
        FuncId(0),
        &Inputs::default(),
        Math,
        Default::default(),
        &lim,
    );
    assert_eq!(r.outcome, Outcome::Limit(LimitKind::Steps));
    // A call to a function that could not be lowered is not a crash, nor
    // an outcome of the program: the run is inconclusive.
    let mut p = fact_program();
    p.functions[0].body = Err(LowerError {
        kind: LowerErrorKind::Unsupported,
        what: "try statement".into(),
        span: sp(1),
    });
    let e = run(&p, Math, vec![Value::int(3)]);
    assert!(
        matches!(e.outcome, Outcome::Limit(LimitKind::Unanalysed(_))),
        "{:?}",
        e.outcome
    );
    assert_eq!(e.unanalysed.len(), 1);
}

// ----- arrays and globals -----------------------------------------------------

#[test]
fn arrays_alias_and_fault() {
    // b = a; b[0] = 5; c = new int[2]; c[1] = a[0] + 1; return c[1];
    let (a, b, c) = (0, 1, 2);
    let set = |arr: u32, i: i128, v: Expr, line| {
        st(
            StmtKind::Assign {
                place: Place::Index {
                    array: Box::new(loc(arr, int_arr())),
                    index: Box::new(int(i)),
                },
                value: v,
            },
            line,
        )
    };
    let body = vec![
        assign(b, loc(a, int_arr()), 1),
        set(b, 0, int(5), 2),
        assign(c, ex(ExprKind::NewArray(Box::new(int(2))), int_arr()), 3),
        set(
            c,
            1,
            bin(BinOp::Add, index(loc(a, int_arr()), int(0)), int(1)),
            4,
        ),
        ret(index(loc(c, int_arr()), int(1)), 5),
    ];
    let p = prog(
        Java,
        vec![func(
            "f",
            vec![("a", int_arr()), ("b", int_arr()), ("c", int_arr())],
            1,
            Type::INT,
            body,
        )],
    );
    let r = run(
        &p,
        Machine,
        vec![Value::Array(vec![Value::int(1), Value::int(2)])],
    );
    assert_eq!(r.outcome, returns(6));
    assert_eq!(
        r.args_final,
        vec![Value::Array(vec![Value::int(5), Value::int(2)])]
    );
    assert_eq!(r.arg_names, vec!["a".to_string()]);
    // Empty input array: the write faults, and the state is still reported.
    let r = run(&p, Machine, vec![Value::Array(vec![])]);
    assert_eq!(
        fault_kind(&r.outcome),
        Some(&FaultKind::IndexOutOfBounds {
            index: Value::int(0),
            length: 0
        })
    );
    assert_eq!(r.args_final, vec![Value::Array(vec![])]);

    let len = ex(
        ExprKind::Length(Box::new(ex(
            ExprKind::ArrayLit(vec![int(1), int(2), int(3)]),
            int_arr(),
        ))),
        Type::INT,
    );
    assert_eq!(eval_in(Java, Math, len), returns(3));
    let neg = ex(ExprKind::NewArray(Box::new(int(-1))), int_arr());
    assert_eq!(
        fault_kind(&eval_in(Java, Machine, neg.clone())),
        Some(&FaultKind::NegativeArraySize)
    );
    assert!(is_undefined(&eval_in(C, Machine, neg)));
    let huge = ex(ExprKind::NewArray(Box::new(long(1 << 40))), int_arr());
    assert_eq!(
        eval_in(Java, Math, huge),
        Outcome::Limit(LimitKind::ArrayTooLarge)
    );
    // Repeated squaring doubles the size: 2^120 squared 9 times has 61441
    // bits and is computed; once more and the product is refused.
    let squared =
        |times: usize| (0..times).fold(long(1 << 120), |e, _| bin(BinOp::Mul, e.clone(), e));
    assert!(matches!(
        eval_in(Java, Math, squared(9)),
        Outcome::Return(_)
    ));
    assert_eq!(
        eval_in(Java, Math, squared(10)),
        Outcome::Limit(LimitKind::IntegerTooLarge)
    );
    let oob = index(ex(ExprKind::ArrayLit(vec![int(1)]), int_arr()), int(-1));
    assert!(matches!(
        fault_kind(&eval_in(C, Math, oob)),
        Some(FaultKind::IndexOutOfBounds { .. })
    ));
}

#[test]
fn globals_inputs_constants_and_final_state() {
    // count = count + K; return count;   (K is a constant 10)
    let body = vec![
        st(
            StmtKind::Assign {
                place: Place::Global(GlobalId(0)),
                value: bin(BinOp::Add, glob(0, Type::INT), glob(1, Type::INT)),
            },
            1,
        ),
        ret(glob(0, Type::INT), 2),
    ];
    let mut p = prog(Java, vec![func("f", vec![], 0, Type::INT, body)]);
    p.globals = vec![
        Global {
            name: "count".into(),
            ty: Type::INT,
            constant: None,
            return_of: None,
            static_object: None,
            uncomputed: false,
            origin: None,
            initial: None,
            declared_len: None,
            file_local: false,
            span: sp(1),
        },
        Global {
            name: "K".into(),
            ty: Type::INT,
            constant: Some(int(10)),
            return_of: None,
            static_object: None,
            uncomputed: false,
            origin: None,
            initial: None,
            declared_len: None,
            file_local: false,
            span: sp(1),
        },
    ];
    let mut inputs = Inputs::default();
    inputs.globals.insert("count".into(), Value::int(5));
    inputs.globals.insert("K".into(), Value::int(99)); // ignored: a constant
    let r = execute(
        &p,
        FuncId(0),
        &inputs,
        Machine,
        Default::default(),
        &Limits::default(),
    );
    assert_eq!(r.outcome, returns(15));
    assert_eq!(r.globals_final.get("count"), Some(&Value::int(15)));
    assert_eq!(r.globals_final.get("K"), Some(&Value::int(10)));
    // Unlisted globals start at zero.
    let r = execute(
        &p,
        FuncId(0),
        &Inputs::default(),
        Machine,
        SignedOverflow::default(),
        &Limits::default(),
    );
    assert_eq!(r.outcome, returns(10));
}

// ----- printing ---------------------------------------------------------------

#[test]
fn java_printing() {
    let body = vec![
        println(vec![s("x = "), int(42)], 1),
        println(vec![lit(65, Type::Int(IntTy::JAVA_CHAR)), boolean(true)], 2),
        println(
            vec![
                dbl(1.0, "1.0"),
                s(" "),
                dbl(1e10, ""),
                s(" "),
                ex(
                    ExprKind::FloatLit(FloatLit {
                        value: 0.1,
                        text: "0.1".into(),
                    }),
                    Type::Float(FloatTy::F32),
                ),
            ],
            3,
        ),
        st(
            StmtKind::Print {
                kind: PrintKind::Java { newline: false },
                args: vec![s("end")],
            },
            4,
        ),
    ];
    let p = prog(Java, vec![func("f", vec![], 0, Type::Void, body)]);
    let r = run(&p, Machine, vec![]);
    assert_eq!(r.output_text, "x = 42\nAtrue\n1.0 1.0E10 0.1\nend");
    assert_eq!(r.outcome, Outcome::Return(Value::Void));
    let r = run(&p, Math, vec![]);
    assert_eq!(r.output_text, "x = 42\nAtrue\n1.0 10000000000.0 0.1\nend");
    assert_eq!(fmt_f32(1.0e-5), "1.0E-5");
    assert_eq!(fmt_f32(100.0), "100.0");
}

#[test]
fn printf_matches_glibc() {
    use render::{PArg, printf};
    let i = |v: i64| PArg::Val(Value::int(v), Type::INT);
    let l = |v: i64| PArg::Val(Value::int(v), Type::LONG);
    let d = |v: f64| PArg::Val(Value::F64(v), Type::DOUBLE);
    let st = |v: &str| PArg::Str(v.into());
    let fmt = "[%d|%5d|%-5d|%05d|%+d|% d|%.3d|%x|%#X|%o|%#o|%u|%ld|%hhd|%c|%s|%.2s|%8.3f|%-8.2e|%g|%g|%g|%G|%#g|%f|%e|%g|%%|%lu]\n";
    let args = vec![
        i(42),
        i(42),
        i(42),
        i(-42),
        i(5),
        i(5),
        i(7),
        i(255),
        i(255),
        i(8),
        i(8),
        i(-1),
        l(-5),
        i(300),
        i(65),
        st("hello"),
        st("hello"),
        d(1.23456),
        d(12345.678),
        d(0.0001),
        d(1e-5),
        d(123456789.0),
        d(1.5e20),
        d(1.0),
        d(-0.0),
        d(0.000123),
        d(100.0),
        l(-1),
    ];
    let want = "[42|   42|42   |-0042|+5| 5|007|ff|0XFF|10|010|4294967295|-5|44|A|hello|he|   1.235|1.23e+04|0.0001|1e-05|1.23457e+08|1.5E+20|1.00000|-0.000000|1.230000e-04|100|%|18446744073709551615]\n";
    assert_eq!(printf(fmt, &args, false), want);
    let fmt = "[%.0f|%.0e|%g|%10.4g|%-10g|%010.3f|%+.1e]\n";
    let args = vec![
        d(2.5),
        d(15000.0),
        d(0.5),
        d(1.23456789),
        d(2.0),
        d(-1.23456),
        d(12345.0),
    ];
    assert_eq!(
        printf(fmt, &args, false),
        "[2|2e+04|0.5|     1.235|2         |-00001.235|+1.2e+04]\n"
    );
    // Math: %d prints the exact integer, reals go through f64.
    let big = PArg::Val(Value::Int(BigInt::from(1u64 << 40)), Type::INT);
    let half = PArg::Val(
        Value::Real(Real::Exact(BigRational::new(
            BigInt::from(1),
            BigInt::from(2),
        ))),
        Type::DOUBLE,
    );
    assert_eq!(
        printf("%d %.2f %*d", &[big, half, i(4), i(7)], true),
        "1099511627776 0.50    7"
    );
}

#[test]
fn c_output_statements() {
    let ch = IntTy::C_CHAR;
    let c = |v| lit(v, Type::Int(ch));
    let body = vec![
        st(
            StmtKind::Print {
                kind: PrintKind::Printf {
                    format: "%d-%s\n".into(),
                },
                args: vec![int(3), s("ok")],
            },
            1,
        ),
        st(
            StmtKind::Print {
                kind: PrintKind::C { newline: false },
                args: vec![int(72)],
            },
            2,
        ),
        st(
            StmtKind::Print {
                kind: PrintKind::C { newline: true },
                args: vec![s("i")],
            },
            3,
        ),
        st(
            StmtKind::Print {
                kind: PrintKind::Printf {
                    format: "%s|\n".into(),
                },
                args: vec![ex(
                    ExprKind::ArrayLit(vec![c(104), c(105), c(0), c(33)]),
                    Type::Array(Box::new(Type::Int(ch))),
                )],
            },
            4,
        ),
    ];
    let p = prog(C, vec![func("f", vec![], 0, Type::Void, body)]);
    assert_eq!(run(&p, Machine, vec![]).output_text, "3-ok\nHi\nhi|\n");
}

// ----- compare ----------------------------------------------------------------

fn exec(outcome: Outcome) -> Execution {
    Execution {
        outcome,
        args_final: vec![],
        globals_final: BTreeMap::new(),
        globals_entry: BTreeMap::new(),
        printed: vec![],
        output_text: String::new(),
        trace: vec![],
        inexact: false,
        arg_names: vec![],
        unseen_call: None,
        unanalysed: vec![],
    }
}

/// An approximate real: `x` within `ulps` steps either side.
fn approx(x: f64, ulps: u32) -> Value {
    Value::Real(Real::Approx(Interval::around(x, ulps), None))
}

#[test]
fn compare_outcomes_state_and_output() {
    assert_eq!(
        compare(&exec(returns(3)), &exec(returns(3)), &[]),
        Comparison::Same
    );
    assert_eq!(
        compare(&exec(returns(3)), &exec(returns(4)), &[]),
        Comparison::Differ(vec!["return value: 3 vs 4".into()])
    );
    let f = |kind| Outcome::Fault {
        kind,
        span: sp(3),
        lang: Lang::Java,
    };
    let g = |kind| Outcome::Fault {
        kind,
        span: sp(9),
        lang: Lang::Java,
    };
    assert_eq!(
        compare(&exec(returns(3)), &exec(f(FaultKind::DivisionByZero)), &[]),
        Comparison::Differ(vec![
            "outcome: returns 3 vs throws ArithmeticException (division by zero)".into()
        ])
    );
    // An implicit fault is the explicit throw of its class; other classes
    // differ, named plainly.
    let thrown = |c: &str| FaultKind::Thrown(Thrown::Exception(c.into()));
    assert_eq!(
        compare(
            &exec(f(FaultKind::DivisionByZero)),
            &exec(g(thrown("ArithmeticException"))),
            &[]
        ),
        Comparison::Same
    );
    assert_eq!(
        compare(
            &exec(f(thrown("IllegalArgumentException"))),
            &exec(g(FaultKind::DivisionByZero)),
            &[]
        ),
        Comparison::Differ(vec![
            "outcome: throws IllegalArgumentException vs throws ArithmeticException (division by zero)"
                .into()
        ])
    );
    let c_fault = |kind| Outcome::Fault {
        kind,
        span: sp(3),
        lang: Lang::C,
    };
    assert_eq!(
        compare(
            &exec(c_fault(FaultKind::Thrown(Thrown::Exit(1)))),
            &exec(c_fault(FaultKind::Thrown(Thrown::Exit(2)))),
            &[]
        ),
        Comparison::Differ(vec![
            "outcome: exits with status 1 vs exits with status 2".into()
        ])
    );
    // Faults compare by kind only.
    let oob = |i: i64| FaultKind::IndexOutOfBounds {
        index: Value::int(i),
        length: 2,
    };
    assert_eq!(
        compare(&exec(f(oob(5))), &exec(g(oob(7))), &[]),
        Comparison::Same
    );
    assert!(matches!(
        compare(&exec(f(oob(5))), &exec(g(FaultKind::DivisionByZero)), &[]),
        Comparison::Differ(_)
    ));
    // In C they are all undefined behaviour: one outcome.
    let ub = |what: &str| FaultKind::Undefined(what.into());
    for (a, b) in [
        (oob(5), FaultKind::DivisionByZero),
        (ub("signed integer overflow"), oob(2)),
        (
            ub("shift count out of range"),
            ub("signed integer overflow"),
        ),
    ] {
        assert_eq!(
            compare(&exec(c_fault(a)), &exec(c_fault(b)), &[]),
            Comparison::Same
        );
    }
    assert!(matches!(
        compare(
            &exec(c_fault(FaultKind::DivisionByZero)),
            &exec(c_fault(FaultKind::Thrown(Thrown::Abort))),
            &[]
        ),
        Comparison::Differ(_)
    ));
    assert!(matches!(
        compare(
            &exec(returns(1)),
            &exec(Outcome::Limit(LimitKind::Steps)),
            &[]
        ),
        Comparison::Inconclusive(_)
    ));

    let mut a = exec(Outcome::Return(Value::Void));
    let mut b = a.clone();
    a.arg_names = vec!["a".into()];
    a.args_final = vec![Value::Array(vec![Value::int(1), Value::int(2)])];
    b.args_final = vec![Value::Array(vec![Value::int(1), Value::int(3)])];
    a.globals_final.insert("count".into(), Value::int(1));
    b.globals_final.insert("count".into(), Value::int(2));
    a.globals_final.insert("other".into(), Value::int(1));
    b.globals_final.insert("other".into(), Value::int(5));
    a.output_text = "a\n".into();
    b.output_text = "b\n".into();
    assert_eq!(
        compare(&a, &b, &["count".into()]),
        Comparison::Differ(vec![
            "array argument 0 (a): {1, 2} vs {1, 3}".into(),
            "global count: 1 vs 2".into(),
            "output: \"a\\n\" vs \"b\\n\"".into(),
        ])
    );
}

#[test]
fn compare_with_approximations() {
    let r = |v: Value| exec(Outcome::Return(v));
    let third = Value::Real(Real::Exact(BigRational::new(
        BigInt::from(1),
        BigInt::from(3),
    )));
    // An exact value inside an interval, or overlapping intervals: no
    // conclusion.
    assert!(matches!(
        compare(&r(approx(1.0 / 3.0, 2)), &r(third.clone()), &[]),
        Comparison::Inconclusive(_)
    ));
    assert!(matches!(
        compare(&r(approx(1.0, 2)), &r(approx(1.0 + f64::EPSILON, 2)), &[]),
        Comparison::Inconclusive(_)
    ));
    // Equal intervals: each may stand for any of its values.
    assert!(matches!(
        compare(&r(approx(2.0, 2)), &r(approx(2.0, 2)), &[]),
        Comparison::Inconclusive(_)
    ));
    // Outside the interval, however close: a real difference (the
    // interval holds every value the approximation may stand for).
    assert!(matches!(
        compare(&r(approx(1.0 / 3.0 + 1e-12, 2)), &r(third.clone()), &[]),
        Comparison::Differ(_)
    ));
    assert!(matches!(
        compare(&r(approx(0.5, 2)), &r(third), &[]),
        Comparison::Differ(_)
    ));
    // Machine doubles: exact, even when tiny.
    assert!(matches!(
        compare(&r(Value::F64(1.0)), &r(Value::F64(1.0 + f64::EPSILON)), &[]),
        Comparison::Differ(_)
    ));
    assert_eq!(
        compare(&r(Value::F64(f64::NAN)), &r(Value::F64(-f64::NAN)), &[]),
        Comparison::Same
    );
    // Printed output: values printed in both compare as values, text
    // rendered from approximations decides nothing, other text is exact.
    let printed = |items: Vec<Printed>| {
        let mut e = r(Value::Void);
        e.output_text = super::render::render_output(&items);
        e.printed = items;
        e
    };
    let text = |s: &str| Printed::Text(s.into());
    let sqrt2 = std::f64::consts::SQRT_2;
    let a = printed(vec![
        text("x="),
        Printed::Value(approx(sqrt2, 2), Type::DOUBLE),
    ]);
    let near = printed(vec![
        text("x="),
        Printed::Value(approx(sqrt2, 4), Type::DOUBLE),
    ]);
    let far = printed(vec![
        text("x="),
        Printed::Value(approx(1.5, 2), Type::DOUBLE),
    ]);
    assert!(matches!(
        compare(&a, &near, &[]),
        Comparison::Inconclusive(_) | Comparison::Same
    ));
    assert!(matches!(compare(&a, &far, &[]), Comparison::Differ(_)));
    let renamed = printed(vec![
        text("y="),
        Printed::Value(approx(sqrt2, 2), Type::DOUBLE),
    ]);
    assert!(matches!(compare(&a, &renamed, &[]), Comparison::Differ(_)));
    let f = printed(vec![Printed::ApproxText("x=1.414214".into())]);
    let g = printed(vec![Printed::ApproxText("x=1.414213".into())]);
    assert!(matches!(compare(&f, &g, &[]), Comparison::Inconclusive(_)));
    // Without approximations any text difference is real.
    let h = printed(vec![text("x=1.414214")]);
    let k = printed(vec![text("x=1.414213")]);
    assert!(matches!(compare(&h, &k, &[]), Comparison::Differ(_)));
}

/// A field whose type changed between float and double: widening a float
/// is exact, so equal numbers are the same value and different ones differ;
/// values of kinds with no exact relation give no conclusion, never a
/// difference.
#[test]
fn compare_mixed_float_widths_and_kinds() {
    let g = |v: Value| {
        let mut e = exec(Outcome::Return(Value::Void));
        e.globals_final.insert("f".into(), v);
        e
    };
    let f = ["f".to_string()];
    assert_eq!(
        compare(&g(Value::F32(2.0)), &g(Value::F64(2.0)), &f),
        Comparison::Same
    );
    assert_eq!(
        compare(&g(Value::F64(0.0)), &g(Value::F32(0.0)), &f),
        Comparison::Same
    );
    assert_eq!(
        compare(&g(Value::F32(f32::NAN)), &g(Value::F64(f64::NAN)), &f),
        Comparison::Same
    );
    // 0.1f is not the double 0.1.
    assert!(matches!(
        compare(&g(Value::F32(0.1)), &g(Value::F64(0.1)), &f),
        Comparison::Differ(_)
    ));
    assert!(matches!(
        compare(&g(Value::int(2)), &g(Value::F64(2.0)), &f),
        Comparison::Inconclusive(_)
    ));
    // A null array against an array is a real difference.
    assert!(matches!(
        compare(&g(Value::Null), &g(Value::Array(vec![])), &f),
        Comparison::Differ(_)
    ));
}

#[test]
fn approximate_arithmetic_is_flagged() {
    // return sin(x) * 2 + 1
    let e = bin(
        BinOp::Add,
        bin(
            BinOp::Mul,
            intrinsic(Intrinsic::Sin, vec![loc(0, Type::DOUBLE)], Type::DOUBLE),
            dbl(2.0, "2"),
        ),
        dbl(1.0, "1"),
    );
    let p = prog(
        Java,
        vec![func(
            "f",
            vec![("x", Type::DOUBLE)],
            1,
            Type::DOUBLE,
            vec![ret(e, 1)],
        )],
    );
    let r = run(
        &p,
        Math,
        vec![Value::Real(Real::Exact(BigRational::from_integer(
            BigInt::from(1),
        )))],
    );
    assert!(r.inexact);
    // sin(1)·2 + 1 ≈ 2.6829419696: a narrow interval around it.
    match &r.outcome {
        Outcome::Return(Value::Real(Real::Approx(i, _))) => {
            let v = 2.0 * 1f64.sin() + 1.0;
            assert!(i.lo() < v && v < i.hi());
            assert!(i.hi() - i.lo() < 1e-12);
        }
        other => panic!("expected an approximate real, got {other:?}"),
    }
    let r = run(&p, Machine, vec![Value::F64(0.0)]);
    assert!(!r.inexact);
    assert_eq!(r.outcome, Outcome::Return(Value::F64(1.0)));
}

#[test]
fn try_catch_finally_and_throws() {
    let src = "class A { static int g;
        static int f(int x) {
            try {
                if (x > 0 && x <= 10) throw new IllegalStateException();
                if (x > 100) throw new UnknownThing();
                g = 1;
                return 10 / x;
            } catch (ArithmeticException e) {
                g = 5;
                return -1;
            } catch (RuntimeException e) {
                g = 20;
                throw new IllegalArgumentException();
            } finally {
                g = g + 2;
                if (x > 10 && x <= 100) return 7;
            }
        } }";
    let p = crate::lang::lower(Lang::Java, src);
    let f = p.find("f").next().expect("f").0;
    let go = |x: i64| {
        let e = execute(
            &p,
            f,
            &Inputs {
                args: vec![Value::int(x)],
                globals: BTreeMap::new(),
                callees: Vec::new(),
            },
            Semantics::Machine,
            SignedOverflow::default(),
            &Limits::default(),
        );
        let g = e.globals_final.get("g").cloned();
        (e.outcome, g)
    };
    let thrown = |c: &str| FaultKind::Thrown(Thrown::Exception(c.into()));
    // Caught division by zero: the clause's return, after finally's update.
    let (o, g) = go(0);
    assert_eq!(o, returns(-1));
    assert_eq!(g, Some(Value::int(7)));
    // Normal return through finally.
    let (o, g) = go(-2);
    assert_eq!(o, returns(-5));
    assert_eq!(g, Some(Value::int(3)));
    // Caught by the broader clause, which throws another class; finally
    // still runs.
    let (o, g) = go(3);
    assert_eq!(fault_kind(&o), Some(&thrown("IllegalArgumentException")));
    assert_eq!(g, Some(Value::int(22)));
    // A return in finally overrides the return of the body.
    let (o, _) = go(50);
    assert_eq!(o, returns(7));
    // A class outside the known hierarchy meeting `catch (RuntimeException)`:
    // no conclusion rather than a guess.
    let (o, _) = go(200);
    assert_eq!(o, Outcome::Limit(LimitKind::UnknownCatch));
}

#[test]
fn java_catch_follows_the_jdk_hierarchy() {
    use crate::lang::java::facts::java_catches;
    assert_eq!(
        java_catches("ArithmeticException", "ArithmeticException", &[]),
        Some(true)
    );
    assert_eq!(
        java_catches("RuntimeException", "ArithmeticException", &[]),
        Some(true)
    );
    assert_eq!(
        java_catches("Exception", "ArrayIndexOutOfBoundsException", &[]),
        Some(true)
    );
    assert_eq!(
        java_catches(
            "IndexOutOfBoundsException",
            "ArrayIndexOutOfBoundsException",
            &[]
        ),
        Some(true)
    );
    assert_eq!(
        java_catches(
            "ArrayIndexOutOfBoundsException",
            "IndexOutOfBoundsException",
            &[]
        ),
        Some(false)
    );
    assert_eq!(
        java_catches("IllegalStateException", "ArithmeticException", &[]),
        Some(false)
    );
    assert_eq!(
        java_catches("Exception", "AssertionError", &[]),
        Some(false)
    );
    assert_eq!(java_catches("Throwable", "MyOwnException", &[]), Some(true));
    assert_eq!(
        java_catches("MyOwnException", "MyOwnException", &[]),
        Some(true)
    );
    assert_eq!(
        java_catches("RuntimeException", "MyOwnException", &[]),
        None
    );
}

#[test]
fn calls_outside_the_files_run_from_stubs() {
    let src = "class A { static int f(int x) { int y = Other.twice(x); Audit.record(y); return y + 1; } }";
    let p = crate::lang::lower(Lang::Java, src);
    let f = p.find("f").next().expect("f").0;
    let twice = |arg: i64| UnseenCall {
        callee: "Other.twice".into(),
        args: vec![CalleeArg::Value(Value::int(arg), Type::INT)],
        ret: Type::INT,
    };
    let record = |arg: i64| UnseenCall {
        callee: "Audit.record".into(),
        args: vec![CalleeArg::Value(Value::int(arg), Type::INT)],
        ret: Type::Void,
    };
    let go = |callees: Vec<CalleeStub>| {
        execute(
            &p,
            f,
            &Inputs {
                args: vec![Value::int(3)],
                globals: BTreeMap::new(),
                callees,
            },
            Semantics::Math,
            SignedOverflow::default(),
            &Limits::default(),
        )
    };
    // Without a stub: inconclusive, naming the call.
    let e = go(Vec::new());
    assert_eq!(e.outcome, Outcome::Limit(LimitKind::UnseenCall));
    assert_eq!(e.unseen_call, Some(twice(3)));
    // With the first stub, the next call is the missing one.
    let first = CalleeStub {
        call: twice(3),
        result: CalleeResult::Returns(Value::int(7)),
    };
    let e = go(vec![first.clone()]);
    assert_eq!(e.unseen_call, Some(record(7)));
    // Both: the run completes; a throwing stub ends it.
    let ok = CalleeStub {
        call: record(7),
        result: CalleeResult::Returns(Value::Void),
    };
    assert_eq!(go(vec![first.clone(), ok]).outcome, returns(8));
    let throws = CalleeStub {
        call: record(7),
        result: CalleeResult::Throws(4),
    };
    assert_eq!(throws.to_string(), "Audit.record(7) throws exception #4");
    let e = go(vec![first, throws]);
    assert_eq!(
        fault_kind(&e.outcome),
        Some(&FaultKind::Unseen {
            callee: "Audit.record".into(),
            which: 4
        })
    );
}

#[test]
fn an_unseen_callees_exception_is_not_told_from_a_known_one() {
    let at = |kind| Outcome::Fault {
        kind,
        span: sp(3),
        lang: Lang::Java,
    };
    let unseen = |which| FaultKind::Unseen {
        callee: "Checks.require".into(),
        which,
    };
    let iae = FaultKind::Thrown(Thrown::Exception("IllegalArgumentException".into()));
    // It may be that very exception: no conclusion.
    assert!(matches!(
        compare(&exec(at(unseen(2))), &exec(at(iae)), &[]),
        Comparison::Inconclusive(_)
    ));
    // Two unseen exceptions compare by identity; returning is a difference.
    assert_eq!(
        compare(&exec(at(unseen(2))), &exec(at(unseen(2))), &[]),
        Comparison::Same
    );
    assert!(matches!(
        compare(&exec(at(unseen(2))), &exec(returns(0)), &[]),
        Comparison::Differ(_)
    ));
}

#[test]
fn frexp_splits_like_glibc() {
    use super::ops::frexp;
    for (x, m, e) in [
        (1.0, 0.5, 1),
        (0.75, 0.75, 0),
        (-3.0, -0.75, 2),
        (1024.0, 0.5, 11),
        (f64::MAX, 1.0 - f64::EPSILON / 2.0, 1024),
        (5e-324, 0.5, -1073),
        (0.0, 0.0, 0),
        (f64::INFINITY, f64::INFINITY, 0),
    ] {
        assert_eq!(frexp(x), (m, e), "frexp({x})");
        if x.is_normal() {
            assert_eq!(m * 2f64.powi(e - 1) * 2.0, x, "{x} = {m} * 2^{e}");
        }
    }
    assert!(frexp(f64::NAN).0.is_nan());
}

/// Under math, a branch on an approximate real is taken only when its
/// interval decides it; otherwise the run stops without an outcome, and an
/// integer taken from an interval that straddles one is no evidence.
#[test]
fn approximations_decide_only_what_their_intervals_decide() {
    let src = "class A {
        static int above(double x) { if (Math.sin(x) > 0.5) return 1; return 0; }
        static int floorOf(double x) { return (int) Math.floor(Math.exp(x)); }
        static double quotient(double x) { return 1.0 / (Math.cos(x) - 1.0); }
    }";
    let p = crate::lang::lower(Lang::Java, src);
    let go = |name: &str, x: BigRational| {
        let f = p.find(name).next().expect("method").0;
        execute(
            &p,
            f,
            &Inputs {
                args: vec![Value::Real(Real::Exact(x))],
                globals: BTreeMap::new(),
                callees: Vec::new(),
            },
            Semantics::Math,
            SignedOverflow::default(),
            &Limits::default(),
        )
        .outcome
    };
    let q = |n: i64, d: i64| BigRational::new(BigInt::from(n), BigInt::from(d));
    // sin(1) ≈ 0.84 and sin(1/10) ≈ 0.0998: decided.
    assert_eq!(go("above", q(1, 1)), Outcome::Return(Value::int(1)));
    assert_eq!(go("above", q(1, 10)), Outcome::Return(Value::int(0)));
    // The double nearest π/6, as a rational: sin of it is within an ulp of
    // 1/2, and no interval of f64 bounds can tell on which side.
    let pi6 = crate::interval::rational_of(std::f64::consts::FRAC_PI_6).expect("finite");
    assert_eq!(go("above", pi6), Outcome::Limit(LimitKind::Approximation));
    // exp(1) ≈ 2.718: floor 2; exp(0) = 1 exactly. exp of the double
    // nearest ln 2 is within an ulp of 2: its interval straddles 2.
    assert_eq!(go("floorOf", q(1, 1)), Outcome::Return(Value::int(2)));
    assert_eq!(go("floorOf", q(0, 1)), Outcome::Return(Value::int(1)));
    let ln2 = crate::interval::rational_of(std::f64::consts::LN_2).expect("finite");
    assert_eq!(go("floorOf", ln2), Outcome::Limit(LimitKind::Approximation));
    // cos(0) - 1 is exactly 0: a division by zero. cos of the double
    // nearest 2π minus 1 may be 0: dividing by it decides nothing.
    assert!(matches!(
        go("quotient", q(0, 1)),
        Outcome::Fault {
            kind: FaultKind::DivisionByZero,
            ..
        }
    ));
    let tau = crate::interval::rational_of(std::f64::consts::TAU).expect("finite");
    assert_eq!(
        go("quotient", tau),
        Outcome::Limit(LimitKind::Approximation)
    );
}

/// Two approximations computed the same way from the same values are the
/// same real, though their intervals overlap: comparing them, subtracting
/// them and returning them decide, where computations that differ do not.
#[test]
fn approximations_computed_alike_are_the_same_real() {
    let src = "class A {
        static int larger(double v, double w, double b) {
            double r = Math.pow(v, 2.0) / Math.tan(b) / 3.0;
            double s = Math.pow(w, 2.0) / Math.tan(b) / 3.0;
            if (r > s) return 1;
            return 0;
        }
        static double cancel(double b) { return Math.sin(b) * 2.0 - Math.sin(b) * 2.0; }
        static int unlike(double b) { if (Math.sin(b) * 2.0 > Math.sin(b) + Math.sin(b)) return 1; return 0; }
    }";
    let p = crate::lang::lower(Lang::Java, src);
    let go = |name: &str, xs: Vec<BigRational>| {
        let f = p.find(name).next().expect("method").0;
        execute(
            &p,
            f,
            &Inputs {
                args: xs
                    .into_iter()
                    .map(|x| Value::Real(Real::Exact(x)))
                    .collect(),
                globals: BTreeMap::new(),
                callees: Vec::new(),
            },
            Semantics::Math,
            SignedOverflow::default(),
            &Limits::default(),
        )
        .outcome
    };
    let q = |n: i64| BigRational::from_integer(BigInt::from(n));
    // v = w: the same real on both sides, so not larger.
    assert_eq!(
        go("larger", vec![q(1), q(1), q(1)]),
        Outcome::Return(Value::int(0))
    );
    // v = -1, w = 1: pow gives 1 exactly for both; still the same real.
    assert_eq!(
        go("larger", vec![q(-1), q(1), q(1)]),
        Outcome::Return(Value::int(0))
    );
    // v = 2 > w = 1 and tan(1) > 0: decided by the intervals.
    assert_eq!(
        go("larger", vec![q(2), q(1), q(1)]),
        Outcome::Return(Value::int(1))
    );
    assert_eq!(
        go("cancel", vec![q(1)]),
        Outcome::Return(Value::Real(Real::Exact(q(0))))
    );
    // Equal over the reals, but computed differently: not decided.
    assert_eq!(
        go("unlike", vec![q(1)]),
        Outcome::Limit(LimitKind::Approximation)
    );
}
