use super::*;
use crate::ir::{Function, Lang};
use crate::lang::lower;

fn func(src: &str, name: &str) -> Function {
    let prog = lower(Lang::Java, src);
    let (_, def) = prog.find(name).next().expect("function present");
    def.body.clone().expect("function lowered")
}

fn diff(old: &str, new: &str) -> StatementDiff {
    diff_functions(&func(old, "f"), &func(new, "f"))
}

fn all_common(d: &StatementDiff) -> bool {
    d.is_unchanged()
        && d.edits == EditSummary::default()
        && d.old.len() == d.new.len()
        && d.old.iter().all(|e| e.partner.is_some())
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
    let d = diff_functions(&func(old, "f"), &func(new, "f"));
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
    let d = diff_functions(&func(old, "f"), &func(new, "f"));
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
