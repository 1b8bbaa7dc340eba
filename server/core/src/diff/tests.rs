use super::*;
use crate::ir::{Function, Lang, Program, Stmt, StmtKind};
use crate::lang::lower;
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;

fn program(lang: Lang, src: &str) -> Program {
    lower(lang, src)
}

fn func_in(prog: &Program, name: &str) -> Function {
    let (_, def) = prog.find(name).next().expect("function present");
    def.body.clone().expect("function lowered")
}

fn func(src: &str, name: &str) -> Function {
    func_in(&program(Lang::Java, src), name)
}

/// Diffs `f` of two Java sources with full program context, and checks the
/// result with the oracle.
fn diff(old: &str, new: &str) -> StatementDiff {
    diff_lang(Lang::Java, old, new, "f")
}

fn diff_lang(lang: Lang, old: &str, new: &str, name: &str) -> StatementDiff {
    let (p1, p2) = (program(lang, old), program(lang, new));
    let (f1, f2) = (func_in(&p1, name), func_in(&p2, name));
    let changed = changed_functions(&p1, &p2);
    let d = diff_functions_in(&DiffContext::new(&p1, &p2, &changed), &f1, &f2);
    check_oracle(&p1, &f1, &p2, &f2, &changed, &d);
    d
}

fn all_common(d: &StatementDiff) -> bool {
    d.is_unchanged()
        && d.edits == EditSummary::default()
        && d.old.len() == d.new.len()
        && d.old.iter().all(|e| e.partner.is_some())
}

fn changed_lines(entries: &[StmtEntry]) -> Vec<u32> {
    entries
        .iter()
        .filter(|e| e.status == StmtStatus::Changed)
        .map(|e| e.span.line())
        .collect()
}

/// The statements of `body` in the documented IR preorder, written
/// independently of the tree builder.
fn ir_preorder(body: &[Stmt]) -> Vec<&Stmt> {
    fn walk<'a>(b: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
        for s in b {
            out.push(s);
            match &s.kind {
                StmtKind::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    walk(then_branch, out);
                    walk(else_branch, out);
                }
                StmtKind::Loop { body, step, .. } => {
                    walk(body, out);
                    walk(step, out);
                }
                StmtKind::Labeled { body, .. } | StmtKind::Block(body) => walk(body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(body, &mut out);
    out
}

/// A statement as JSON with spans dropped, locals mapped by `local`, globals
/// and callees by name (constants with their value, callees with their
/// changed flag), loop labels numbered by first appearance.
fn normalise(
    s: &Stmt,
    prog: &Program,
    local: &dyn Fn(u64) -> i64,
    callee_changed: &dyn Fn(FuncId) -> bool,
) -> Value {
    fn go(
        v: Value,
        prog: &Program,
        local: &dyn Fn(u64) -> i64,
        callee_changed: &dyn Fn(FuncId) -> bool,
        labels: &mut Vec<u64>,
    ) -> Value {
        let label = |n: &Value, labels: &mut Vec<u64>| {
            let n = n.as_u64().expect("label");
            let i = labels.iter().position(|&l| l == n).unwrap_or_else(|| {
                labels.push(n);
                labels.len() - 1
            });
            Value::from(i)
        };
        match v {
            Value::Object(map) => {
                let mut out = serde_json::Map::new();
                for (k, x) in map {
                    let x = match (k.as_str(), &x) {
                        ("span", _) => continue,
                        ("Local", Value::Number(n)) => Value::from(local(n.as_u64().expect("id"))),
                        ("Global", Value::Number(n)) => {
                            let g =
                                prog.global(crate::ir::GlobalId(n.as_u64().expect("id") as u32));
                            let c = serde_json::to_value(&g.constant).expect("json");
                            let c = go(c, prog, local, callee_changed, labels);
                            Value::from(format!("{}:{}={c}", g.name, g.ty))
                        }
                        ("func", Value::Number(n)) => {
                            let id = FuncId(n.as_u64().expect("id") as u32);
                            let f = prog.function(id);
                            Value::from(format!("{}/{}/{}", f.name, f.arity, callee_changed(id)))
                        }
                        ("label" | "Break" | "Continue", Value::Number(_)) => label(&x, labels),
                        _ => go(x, prog, local, callee_changed, labels),
                    };
                    out.insert(k, x);
                }
                Value::Object(out)
            }
            Value::Array(xs) => Value::Array(
                xs.into_iter()
                    .map(|x| go(x, prog, local, callee_changed, labels))
                    .collect(),
            ),
            v => v,
        }
    }
    let v = serde_json::to_value(s).expect("json");
    go(v, prog, local, callee_changed, &mut Vec::new())
}

/// Checks what every diff must satisfy, independently of the matcher:
/// entries are in IR preorder, partner indices are mutual, the bijection is
/// injective, and every common pair is the same statement up to the reported
/// local bijection (the soundness the abstraction relies on).
fn check_oracle(
    p1: &Program,
    f1: &Function,
    p2: &Program,
    f2: &Function,
    changed: &ChangedFunctions,
    d: &StatementDiff,
) {
    let (s1, s2) = (ir_preorder(&f1.body), ir_preorder(&f2.body));
    assert_eq!(s1.len(), d.old.len());
    assert_eq!(s2.len(), d.new.len());
    for (s, e) in s1.iter().zip(&d.old).chain(s2.iter().zip(&d.new)) {
        assert_eq!(s.span, e.span, "entries are in IR preorder");
    }
    for (i, e) in d.old.iter().enumerate() {
        if let Some(j) = e.partner_index {
            assert_eq!(d.new[j].partner_index, Some(i));
            assert_eq!(e.partner, Some(d.new[j].span));
            assert_eq!(e.status, d.new[j].status);
        } else {
            assert_eq!(e.partner, None);
        }
    }
    let news: FxHashSet<LocalId> = d.locals.iter().map(|&(_, n)| n).collect();
    assert_eq!(news.len(), d.locals.len(), "bijection is injective");
    let bij: FxHashMap<u64, i64> = d
        .locals
        .iter()
        .map(|&(o, n)| (u64::from(o.0), i64::from(n.0)))
        .collect();
    let map_old = |l: u64| bij.get(&l).copied().unwrap_or(-1 - l as i64);
    let keep = |l: u64| l as i64;
    for (i, e) in d.old.iter().enumerate() {
        if e.status != StmtStatus::Common {
            continue;
        }
        let j = e.partner_index.expect("common has a partner");
        let a = normalise(s1[i], p1, &map_old, &|f| changed.is_old_changed(f));
        let b = normalise(s2[j], p2, &keep, &|f| changed.is_new_changed(f));
        assert_eq!(
            a, b,
            "common statements differ: {:?} vs {:?}",
            e.span, d.new[j].span
        );
        assert!(
            !a.to_string().contains("/true"),
            "common statement calls a changed function"
        );
    }
}

const BASE: &str = "class T { static int f(int a, int b) {
    int s = a + b;
    int t = s * 2;
    if (s > 3) { t = t - 1; } else { t = t + 1; }
    for (int i = 0; i < a; i++) { s = s + i; }
    return s + t;
} }";

#[test]
fn diff_identical_bodies_are_common() {
    let d = diff(BASE, BASE);
    assert!(!d.old.is_empty());
    assert!(all_common(&d), "{d:#?}");
}

#[test]
fn diff_reformatting_and_comments_are_common() {
    let new = "class T {
    // a comment
    static int f(int a,int b){int s=a+b; /* x */ int t=s*2;
        if(s>3){t=t-1;}else{t=t+1;}
        for(int i=0;i<a;i++){s=s+i;}
        return s+t;}
}";
    let d = diff(BASE, new);
    assert!(all_common(&d), "{d:#?}");
}

#[test]
fn diff_renamed_locals_are_common() {
    let new = "class T { static int f(int x, int y) {
    int sum = x + y;
    int tmp = sum * 2;
    if (sum > 3) { tmp = tmp - 1; } else { tmp = tmp + 1; }
    for (int k = 0; k < x; k++) { sum = sum + k; }
    return sum + tmp;
} }";
    let d = diff(BASE, new);
    assert!(all_common(&d), "{d:#?}");
}

fn single_update(old: &str, new: &str, line: u32) {
    let d = diff(old, new);
    assert!(d.edits.inserted.is_empty(), "{:#?}", d.edits);
    assert!(d.edits.deleted.is_empty(), "{:#?}", d.edits);
    assert!(d.edits.moved.is_empty(), "{:#?}", d.edits);
    assert_eq!(d.edits.updated.len(), 1, "{:#?}", d.edits);
    assert_eq!(d.edits.updated[0].old.line(), line);
    assert_eq!(d.edits.updated[0].new.line(), line);
    let changed: Vec<_> = d
        .old
        .iter()
        .filter(|e| e.status == StmtStatus::Changed)
        .collect();
    // The updated statement, plus its enclosing compound statements.
    assert!(changed.iter().any(|e| e.span.line() == line));
    assert!(changed.iter().all(|e| e.partner.is_some()));
}

#[test]
fn diff_operator_change_is_one_update() {
    single_update(BASE, &BASE.replace("int s = a + b;", "int s = a * b;"), 2);
    single_update(BASE, &BASE.replace("int t = s * 2;", "int t = s << 2;"), 3);
}

#[test]
fn diff_nested_operator_change_updates_only_the_inner_statement() {
    let new = BASE.replace("t = t - 1;", "t = t * 1;");
    single_update(BASE, &new, 4);
    let d = diff(BASE, &new);
    // The enclosing `if` has a changed subtree but is not itself updated.
    let if_entry = d.old.iter().find(|e| e.kind == "If").expect("if");
    assert_eq!(if_entry.status, StmtStatus::Changed);
    let loop_entry = d
        .old
        .iter()
        .find(|e| e.kind.starts_with("Loop"))
        .expect("loop");
    assert_eq!(loop_entry.status, StmtStatus::Common);
}

#[test]
fn diff_moved_statement_is_a_move() {
    let old = "class T { static int f(int a) {
    int x = a + 1;
    int y = a * 2;
    int z = a - 3;
    return x + y + z;
} }";
    let new = "class T { static int f(int a) {
    int y = a * 2;
    int z = a - 3;
    int x = a + 1;
    return x + y + z;
} }";
    let d = diff(old, new);
    assert!(
        d.edits.inserted.is_empty() && d.edits.deleted.is_empty(),
        "{:#?}",
        d.edits
    );
    assert_eq!(d.edits.moved.len(), 1, "{:#?}", d.edits);
    assert_eq!(d.edits.moved[0].old.line(), 2);
    assert_eq!(d.edits.moved[0].new.line(), 4);
}

#[test]
fn diff_move_into_branch_is_a_move() {
    let old = "class T { static int f(int a) {
    int x = a + 1;
    if (a > 0) { x = x * 2; }
    return x;
} }";
    let new = "class T { static int f(int a) {
    int x = 0;
    if (a > 0) { x = a + 1; x = x * 2; }
    return x;
} }";
    let d = diff(old, new);
    assert!(!d.is_unchanged());
    assert!(
        d.edits
            .moved
            .iter()
            .any(|p| p.old.line() == 2 && p.new.line() == 3)
            || d.edits.updated.iter().any(|p| p.old.line() == 2),
        "{:#?}",
        d.edits
    );
}

#[test]
fn diff_inserted_and_deleted_statements() {
    let new = BASE.replace("int t = s * 2;", "int t = s * 2;\n    s = s - 7;");
    let d = diff(BASE, &new);
    assert_eq!(d.edits.inserted.len(), 1, "{:#?}", d.edits);
    assert_eq!(d.edits.inserted[0].line(), 4);
    assert!(d.edits.deleted.is_empty() && d.edits.updated.is_empty() && d.edits.moved.is_empty());
    let changed_new: Vec<_> = d
        .new
        .iter()
        .filter(|e| e.status == StmtStatus::Changed)
        .collect();
    assert_eq!(changed_new.len(), 1, "{changed_new:#?}");

    let d = diff(&new, BASE);
    assert_eq!(d.edits.deleted.len(), 1, "{:#?}", d.edits);
    assert_eq!(d.edits.deleted[0].line(), 4);
    assert!(d.edits.inserted.is_empty() && d.edits.updated.is_empty() && d.edits.moved.is_empty());
}

fn long_method(n: usize, edit_at: Option<usize>) -> String {
    let mut s = String::from("class T { static int f(int a) {\n    int x = a;\n");
    for i in 0..n {
        if Some(i) == edit_at {
            s.push_str(&format!("    x = x * {};\n", i % 7 + 1));
        } else {
            s.push_str(&format!("    x = x + {};\n", i % 7 + 1));
        }
    }
    s.push_str("    return x;\n} }");
    s
}

#[test]
fn diff_300_statement_method() {
    let old = long_method(300, None);
    let d = diff(&old, &old);
    assert_eq!(d.old.len(), 302);
    assert!(all_common(&d));

    let new = long_method(300, Some(150));
    let d = diff(&old, &new);
    assert_eq!(d.edits.updated.len(), 1, "{:#?}", d.edits);
    // Line 1 is the class header, line 2 `int x`, statement i on line i + 3.
    assert_eq!(d.edits.updated[0].old.line(), 153);
    assert!(d.edits.inserted.is_empty() && d.edits.deleted.is_empty() && d.edits.moved.is_empty());
    let changed = d
        .old
        .iter()
        .filter(|e| e.status == StmtStatus::Changed)
        .count();
    assert_eq!(changed, 1);
}

#[test]
fn diff_result_serializes() {
    let d = diff(BASE, &BASE.replace("a + b", "a - b"));
    let json = serde_json::to_string(&d).expect("serializable");
    assert!(json.contains("\"updated\""));
}

/// Deep expression nesting (built by hand, past what a front end accepts)
/// must not overflow the stack: tree building and matching are iterative.
#[test]
fn diff_deep_nesting_does_not_overflow() {
    use crate::ir::{Expr, ExprKind, Stmt, StmtKind, Type, UnOp};
    let mut f = func(BASE, "f");
    let mut e = Expr {
        kind: ExprKind::IntLit(1),
        ty: Type::INT,
        span: Span::default(),
    };
    for _ in 0..5000 {
        e = Expr {
            kind: ExprKind::Unary(UnOp::Neg, Box::new(e)),
            ty: Type::INT,
            span: Span::default(),
        };
    }
    f.body.insert(
        0,
        Stmt {
            kind: StmtKind::Return(Some(e)),
            span: Span::default(),
        },
    );
    let d = diff_functions(&f, &f);
    assert!(all_common(&d));
    let d = diff_functions(&func(BASE, "f"), &f);
    assert_eq!(d.edits.inserted.len(), 1, "{:#?}", d.edits);
}

#[test]
fn diff_operator_updates_table() {
    // (old text, new text, line): each is one update of one statement.
    let cases = [
        ("int s = a + b;", "int s = a - b;", 2),
        ("int s = a + b;", "int s = a * b;", 2),
        ("int t = s * 2;", "int t = s << 2;", 3),
        ("if (s > 3)", "if (s >= 3)", 4),
        ("i < a;", "i <= a;", 5),
        ("return s + t;", "return s - t;", 6),
        ("int t = s * 2;", "int t = s * 3;", 3),
    ];
    for (from, to, line) in cases {
        assert!(BASE.contains(from), "{from}");
        let new = BASE.replace(from, to);
        single_update(BASE, &new, line);
        let d = diff(BASE, &new);
        assert!(
            changed_lines(&d.old).contains(&line),
            "{from} -> {to}: {d:#?}"
        );
        assert!(!all_common(&d), "{from} -> {to}");
    }
}

#[test]
fn diff_renamed_locals_give_the_bijection() {
    let new = "class T { static int f(int x, int y) {
    int sum = x + y;
    int tmp = sum * 2;
    if (sum > 3) { tmp = tmp - 1; } else { tmp = tmp + 1; }
    for (int k = 0; k < x; k++) { sum = sum + k; }
    return sum + tmp;
} }";
    let (p1, p2) = (program(Lang::Java, BASE), program(Lang::Java, new));
    let d = diff_named(&p1, &p2, "f", 2).expect("diffed");
    assert!(all_common(&d), "{d:#?}");
    let (f1, f2) = (func_in(&p1, "f"), func_in(&p2, "f"));
    let names: Vec<(&str, &str)> = d
        .locals
        .iter()
        .map(|&(o, n)| (f1.local(o).name.as_str(), f2.local(n).name.as_str()))
        .collect();
    for pair in [
        ("a", "x"),
        ("b", "y"),
        ("s", "sum"),
        ("t", "tmp"),
        ("i", "k"),
    ] {
        assert!(names.contains(&pair), "{pair:?} not in {names:?}");
    }
}

/// An inserted local declaration early on must not disturb the rest: locals
/// are hashed without their index.
#[test]
fn diff_inserted_local_keeps_the_rest_common() {
    let new = BASE.replace("int s = a + b;", "int z = a * 3;\n    int s = a + b;");
    let d = diff(BASE, &new);
    assert!(
        d.old.iter().all(|e| e.status == StmtStatus::Common),
        "{d:#?}"
    );
    assert_eq!(changed_lines(&d.new), vec![2], "{d:#?}");
    assert_eq!(d.edits.inserted.len(), 1);
    assert!(d.edits.updated.is_empty() && d.edits.moved.is_empty() && d.edits.deleted.is_empty());

    // Also when the new local is used later, only that use changes.
    let new2 = new.replace("return s + t;", "return s + t + z;");
    let d = diff(BASE, &new2);
    assert_eq!(changed_lines(&d.old), vec![6], "{d:#?}");
    assert_eq!(changed_lines(&d.new), vec![2, 7], "{d:#?}");
}

const SWAP_OLD: &str = "class T { static int f(int a, int b) {
    int x = a;
    int y = b;
    return x - y;
} }";

/// `x = a; y = b; return x - y` vs `y = a; x = b; return x - y`: each
/// statement alone is a renaming of its partner, but no single renaming
/// explains all three (the function now returns b - a).
#[test]
fn diff_inconsistent_renaming_is_changed() {
    let new = "class T { static int f(int a, int b) {
    int y = a;
    int x = b;
    return x - y;
} }";
    let d = diff(SWAP_OLD, new);
    assert!(!all_common(&d), "{d:#?}");
    assert!(!changed_lines(&d.old).is_empty());
    // And in the other direction of the same trap: a consistent swap of the
    // names is a pure renaming.
    let renamed = "class T { static int f(int a, int b) {
    int y = a;
    int x = b;
    return y - x;
} }";
    let d = diff(SWAP_OLD, renamed);
    assert!(all_common(&d), "{d:#?}");
}

/// The same trap, where statement-local voting alone would be fooled: every
/// statement is isomorphic to its partner, and the majority decides which.
#[test]
fn diff_inconsistent_renaming_majority() {
    let old = "class T { static int f(int a, int b) {
    int x = a;
    int y = b;
    x = x + 1;
    x = x * 2;
    return x;
} }";
    let new = "class T { static int f(int a, int b) {
    int y = a;
    int x = b;
    x = x + 1;
    x = x * 2;
    return x;
} }";
    let d = diff(old, new);
    // x ↔ x wins (5 leaves against 1), so the two declarations disagree.
    assert_eq!(changed_lines(&d.old), vec![2, 3], "{d:#?}");
    assert_eq!(changed_lines(&d.new), vec![2, 3], "{d:#?}");
    assert_eq!(d.edits.updated.len(), 2, "{:#?}", d.edits);
}

const CALLS: &str = "class T {
    static int g(int v) { return v + 1; }
    static int h(int v) { return g(v) * 2; }
    static int f(int a) {
        int r = g(a);
        int q = a * 3;
        return r + q;
    }
}";

#[test]
fn diff_changed_callee_makes_the_call_changed() {
    let new = CALLS.replace("return v + 1;", "return v + 2;");
    let d = diff(CALLS, &new);
    // Line 5 `int r = g(a);` reads the same but g changed.
    assert_eq!(changed_lines(&d.old), vec![5], "{d:#?}");
    assert_eq!(changed_lines(&d.new), vec![5], "{d:#?}");
    assert_eq!(d.edits.updated.len(), 1, "{:#?}", d.edits);
    assert_eq!(d.edits.updated[0].old.line(), 5);

    let (p1, p2) = (program(Lang::Java, CALLS), program(Lang::Java, &new));
    let c = changed_functions(&p1, &p2);
    let changed = |name: &str| {
        let (id, _) = p1.find(name).next().expect("present");
        c.is_old_changed(id)
    };
    assert!(changed("g"));
    assert!(changed("h"), "h calls g: changed transitively");
    assert!(changed("f"));
}

#[test]
fn diff_unchanged_callee_keeps_the_call_common() {
    // Reformatted, and a new function inserted first so every FuncId shifts.
    let new = "class T {
    static int k(int w) { return w; }
    static int g(int v) {
        return v+1;
    }
    static int h(int v) { return g(v) * 2; }
    static int f(int a) { int r = g(a); int q = a * 3; return r + q; }
}";
    let d = diff(CALLS, new);
    assert!(all_common(&d), "{d:#?}");
    let (p1, p2) = (program(Lang::Java, CALLS), program(Lang::Java, new));
    let c = changed_functions(&p1, &p2);
    assert_eq!(c.pairs().len(), 3);
    assert!(c.pairs().iter().all(|p| !p.changed), "{c:#?}");
    let (k, _) = p2.find("k").next().expect("k");
    assert!(c.is_new_changed(k), "unpaired is changed");
}

/// Identical mutually recursive functions are unchanged (greatest fixpoint);
/// a change in one makes both changed.
#[test]
fn changed_functions_recursion() {
    let src = "class T {
    static boolean even(int n) { if (n == 0) { return true; } return odd(n - 1); }
    static boolean odd(int n) { if (n == 0) { return false; } return even(n - 1); }
    static int fact(int n) { if (n <= 1) { return 1; } return n * fact(n - 1); }
}";
    let (p1, p2) = (program(Lang::Java, src), program(Lang::Java, src));
    let c = changed_functions(&p1, &p2);
    assert_eq!(c.pairs().len(), 3);
    assert!(c.pairs().iter().all(|p| !p.changed), "{c:#?}");

    let new = src.replace("return false;", "return true;");
    let p2 = program(Lang::Java, &new);
    let c = changed_functions(&p1, &p2);
    let changed = |name: &str| c.is_old_changed(p1.find(name).next().expect("fn").0);
    assert!(changed("odd") && changed("even"));
    assert!(!changed("fact"));
}

#[test]
fn changed_functions_unlowered_or_retyped_is_changed() {
    let old = "class T { static int g(int v) { return v; } static int f(int a) { return a; } }";
    // g's body uses an unsupported construct; f's parameter type changes.
    let new = "class T { static int g(int v) { try { return v; } finally { } } \
               static int f(long a) { return (int) a; } }";
    let (p1, p2) = (program(Lang::Java, old), program(Lang::Java, new));
    let c = changed_functions(&p1, &p2);
    assert_eq!(c.pairs().len(), 2);
    assert!(c.pairs().iter().all(|p| p.changed), "{c:#?}");
}

#[test]
fn diff_constant_global_change() {
    let old = "class T {
    static final int N = 5;
    static int G;
    static int f(int a) {
        int x = a + N;
        int y = a * G;
        return x + y;
    }
}";
    let d = diff(old, old);
    assert!(all_common(&d), "{d:#?}");
    // Declaring another field first shifts the GlobalIds: still common.
    let shifted = old.replace(
        "static final int N = 5;",
        "static int Z;\n    static final int N = 5;",
    );
    let d = diff(old, &shifted);
    assert!(all_common(&d), "{d:#?}");
    let new = old.replace("N = 5", "N = 6");
    let d = diff(old, &new);
    assert_eq!(changed_lines(&d.old), vec![5], "{d:#?}");
    assert_eq!(d.edits.updated.len(), 1, "{:#?}", d.edits);
}

#[test]
fn diff_opaque_context_never_calls_calls_or_globals_common() {
    let p = program(Lang::Java, CALLS);
    let f = func_in(&p, "f");
    let d = diff_functions(&f, &f);
    // Without program context the callee is unknown.
    assert_eq!(changed_lines(&d.old), vec![5], "{d:#?}");
}

const C_BASE: &str = "
const int N = 4;
int g(int v) { return v * 2; }
int f(int a, int b) {
    int s = a + b;
    int t = g(s);
    for (int i = 0; i < N; i++) { s = s + i; }
    /* comment */
    return s + t;
}
";

#[test]
fn diff_c_renaming_reformatting_and_insertion() {
    let renamed = "
const int N = 4;
int g(int w) {
  return w * 2;
}
int f(int x, int y)
{
    int z = x; // inserted
    int sum = x + y; int tmp = g(sum);
    for (int k = 0; k < N; k++)
        sum = sum + k;
    return sum + tmp;
}
";
    let d = diff_lang(Lang::C, C_BASE, renamed, "f");
    assert!(
        d.old.iter().all(|e| e.status == StmtStatus::Common),
        "{d:#?}"
    );
    assert_eq!(d.edits.inserted.len(), 1, "{:#?}", d.edits);
    assert!(
        d.edits.updated.is_empty() && d.edits.moved.is_empty(),
        "{:#?}",
        d.edits
    );
}

#[test]
fn diff_c_changed_callee_and_constant() {
    let d = diff_lang(Lang::C, C_BASE, &C_BASE.replace("v * 2", "v * 3"), "f");
    assert_eq!(changed_lines(&d.old), vec![6], "{d:#?}");
    let d = diff_lang(Lang::C, C_BASE, &C_BASE.replace("N = 4", "N = 5"), "f");
    // The loop condition reads N: the loop (and the block C's `for` with a
    // declaration lowers to) changes, not its body, initialiser or step.
    let changed: Vec<&str> = d
        .old
        .iter()
        .filter(|e| e.status == StmtStatus::Changed)
        .map(|e| e.kind.as_str())
        .collect();
    assert_eq!(changed, ["Block", "Loop(While)"], "{d:#?}");
    let d = diff_lang(Lang::C, C_BASE, &C_BASE.replace("s + i", "s - i"), "f");
    assert_eq!(d.edits.updated.len(), 1, "{:#?}", d.edits);
}

#[test]
fn diff_c_move() {
    let old = "int f(int a) { int x = a + 1; int y = a * 2; int z = a - 3; return x + y + z; }";
    let new = "int f(int a) { int y = a * 2; int z = a - 3; int x = a + 1; return x + y + z; }";
    let d = diff_lang(Lang::C, old, new, "f");
    assert_eq!(d.edits.moved.len(), 1, "{:#?}", d.edits);
    assert!(d.old.iter().all(|e| e.status == StmtStatus::Common));
}

/// Entries follow IR preorder: If then-branch before else-branch, loop body
/// before step, nested blocks in order. (The oracle checks spans; this checks
/// the kinds of a shape that exercises every container.)
#[test]
fn diff_entries_are_in_ir_preorder() {
    let src = "class T { static int f(int a) {
    int s = 0;
    outer: for (int i = 0; i < a; i++) {
        if (i > 2) { s = s + 1; } else { s = s - 1; continue; }
        { s = s * 2; }
        switch (a) { case 1: s = 3; break; default: s = 4; }
        if (s > 100) break outer;
    }
    return s;
} }";
    let d = diff(src, src);
    let f = func(src, "f");
    let kinds: Vec<String> = ir_preorder(&f.body)
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Loop { kind, .. } => format!("Loop({kind:?})"),
            StmtKind::Call { dest: Some(_), .. } => "CallAssign".into(),
            k => format!("{k:?}")
                .split(['(', ' ', '{'])
                .next()
                .unwrap_or("")
                .to_string(),
        })
        .collect();
    let got: Vec<&str> = d.old.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, got);
    assert!(all_common(&d), "{d:#?}");
    for (i, e) in d.old.iter().enumerate() {
        assert_eq!(e.partner_index, Some(i));
    }
}

/// Malformed IR (ids out of range) is never common and never panics.
#[test]
fn diff_malformed_ids_do_not_panic() {
    use crate::ir::{Expr, ExprKind, GlobalId, Type};
    let mut f = func(BASE, "f");
    let bad = |kind| Expr {
        kind,
        ty: Type::INT,
        span: Span::default(),
    };
    f.body.insert(
        0,
        Stmt {
            kind: StmtKind::Call {
                dest: Some(crate::ir::Place::Local(LocalId(999))),
                func: FuncId(777),
                args: vec![
                    bad(ExprKind::Global(GlobalId(555))),
                    bad(ExprKind::Local(LocalId(444))),
                ],
            },
            span: Span::default(),
        },
    );
    let p = program(Lang::Java, BASE);
    let cx = DiffContext::for_programs(&p, &p);
    let d = diff_functions_in(&cx, &f, &f);
    assert_eq!(d.old[0].status, StmtStatus::Changed);
    assert!(d.old[1..].iter().all(|e| e.status == StmtStatus::Common));
}

/// An edited statement pairs with its counterpart in place, not with a
/// same-kind insertion earlier in the block (recovery works within the gaps
/// between matched siblings first).
#[test]
fn diff_edit_pairs_in_place_not_with_an_insertion() {
    let old = "class T { static int f(int a) {
    int x = a + 1;
    int y = a * 2;
    int z = a - 3;
    x = x + y;
    return x + y + z;
} }";
    let new = "class T { static int f(int a) {
    int w = a * 7;
    int x = a + 1;
    int y = a * 2;
    int z = a - 3;
    x = x - y;
    return x + y + z;
} }";
    let d = diff(old, new);
    assert_eq!(d.edits.inserted.len(), 1, "{:#?}", d.edits);
    assert_eq!(d.edits.inserted[0].line(), 2);
    assert_eq!(d.edits.updated.len(), 1, "{:#?}", d.edits);
    assert_eq!(
        (d.edits.updated[0].old.line(), d.edits.updated[0].new.line()),
        (5, 6)
    );
    assert!(
        d.edits.moved.is_empty() && d.edits.deleted.is_empty(),
        "{:#?}",
        d.edits
    );
}

/// Many identical statements (a class too large to score top-down) are
/// still aligned by position: one edit among 120 copies stays one update.
#[test]
fn diff_large_class_of_identical_statements_aligns() {
    let body = |edit: Option<usize>| {
        let mut s = String::from("class T { static int f(int a) {\n    int acc = 0;\n");
        for i in 0..120 {
            let op = if Some(i) == edit { "-" } else { "+" };
            s.push_str(&format!("    if (a > {i}) {{ acc = acc {op} 1; }}\n"));
            s.push_str("    acc = acc * 2;\n");
        }
        s.push_str("    return acc;\n} }");
        s
    };
    let d = diff(&body(None), &body(Some(60)));
    assert_eq!(d.edits.updated.len(), 1, "{:#?}", d.edits);
    // Line 1 header, 2 `int acc`, pair i on lines 3 + 2i and 4 + 2i.
    assert_eq!(d.edits.updated[0].old.line(), 123);
    assert_eq!(d.edits.updated[0].new.line(), 123);
    assert!(d.edits.inserted.is_empty() && d.edits.deleted.is_empty() && d.edits.moved.is_empty());
    assert_eq!(
        changed_lines(&d.old),
        vec![123, 123],
        "the if and its inner assignment"
    );
}
