//! Block extraction: what may and may not be abstracted, inputs and outputs.
use super::*;
use crate::ir::Lang;
use crate::lang::lower;

fn blocks(lang: Lang, old: &str, new: &str, plan: &Plan) -> Vec<(u32, u32, usize, usize)> {
    let (o, n) = (lower(lang, old), lower(lang, new));
    let ctx = Context::new(&o, &n);
    let a = ctx.abstraction(plan);
    a.blocks
        .iter()
        .map(|b| {
            (
                b.new_span.line(),
                b.new_span.end.line + 1,
                b.inputs,
                b.outputs,
            )
        })
        .collect()
}

fn java(old: &str, new: &str) -> Vec<(u32, u32, usize, usize)> {
    blocks(Lang::Java, old, new, &Plan::default())
}

const SUM: &str = "class T { static int f(int a, int b) {
    int s = a * b;
    int t = s + 1;
    if (a > 0) {
        return t;
    }
    return s;
} }";

#[test]
fn common_statements_form_one_block_and_returns_stay_concrete() {
    // The two assignments are one block (inputs a, b; outputs s, t); the
    // `if` holds a return, so it is opened and its return kept concrete.
    let new = SUM.replace("return s;", "return s - 1;");
    assert_eq!(java(SUM, &new), vec![(2, 3, 2, 2)]);
}

#[test]
fn a_changed_statement_splits_blocks() {
    let old = "class T { static int f(int a) {
    int x = a * 2;
    int y = x + 3;
    int z = y * y;
    return z;
} }";
    let new = old.replace("x + 3", "x + 4");
    // `x = a*2` and `z = y*y` are common, separately; `y = x + 4` changed.
    assert_eq!(java(old, &new), vec![(2, 2, 1, 1), (4, 4, 1, 1)]);
}

#[test]
fn loops_are_abstracted_whole_and_printing_is_an_output() {
    let old = "class T { static int f(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) { s = s + i; System.out.println(i); }
    return s;
} }";
    let new = old.replace("return s;", "return s + 0;");
    let b = java(old, &new);
    // One block: lines 2-3, input n, outputs s (i is read only inside the
    // loop but is still read, so it is an output too).
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!((b[0].0, b[0].1, b[0].2), (2, 3, 1));
}

#[test]
fn escaping_breaks_and_allocations_are_not_abstracted() {
    let old = "class T { static int f(int n) {
    int s = 0;
    while (true) {
        s = s + n;
        if (s > 100) break;
        n = n + 1;
    }
    int[] a = new int[n];
    return s + a.length;
} }";
    let new = old.replace("return s + a.length;", "return a.length + s;");
    let b = java(old, &new);
    // The loop is abstracted whole (its break stays inside); inside-out:
    // `s = 0` and the loop form one block; the allocation does not.
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!((b[0].0, b[0].1), (2, 7));
}

#[test]
fn inconsistent_renamings_are_not_common() {
    let old = "class T { static int f(int a, int b) { int x = a; int y = b; return x - y; } }";
    let new = "class T { static int f(int a, int b) { int y = a; int x = b; return x - y; } }";
    // Each declaration on its own is a consistent renaming; together they
    // are too (x↔y), and the return reads them swapped: the block is
    // common, but its outputs land on different variables, so the
    // difference survives abstraction.
    let b = java(old, new);
    assert!(b.iter().all(|&(s, e, _, _)| (s, e) == (1, 1)), "{b:?}");
}

/// Whether some abstracted block of `f` (new version) contains a call.
fn call_abstracted(old: &str, new: &str) -> bool {
    let (o, n) = (lower(Lang::Java, old), lower(Lang::Java, new));
    let ctx = Context::new(&o, &n);
    let a = ctx.abstraction(&Plan::default());
    let Some((_, f)) = n.find("f").next() else {
        return false;
    };
    let Ok(f) = &f.body else { return false };
    // Blocks start at a statement and cover `len` statements of its list.
    let mut lists: Vec<&[Stmt]> = vec![&f.body];
    while let Some(list) = lists.pop() {
        for (i, s) in list.iter().enumerate() {
            if let Some(site) = a.new.at(s) {
                let covered = &list[i..(i + site.len).min(list.len())];
                if covered
                    .iter()
                    .any(|c| matches!(c.kind, crate::ir::StmtKind::Call { .. }))
                {
                    return true;
                }
            }
            lists.extend(effects::child_blocks(s).into_iter().map(|b| b.as_slice()));
        }
    }
    false
}

#[test]
fn calls_to_changed_callees_are_changed_code() {
    let old = "class T {
    static int g(int a) { return a + 1; }
    static int f(int a) {
        int r = g(a);
        return r;
    } }";
    // g changed: the call in f is changed code, never abstracted.
    assert!(!call_abstracted(old, &old.replace("a + 1", "1 + a")));
    // The same call to an unchanged callee is common code.
    assert!(call_abstracted(
        old,
        &old.replace("return r;", "return r + 0;")
    ));
}

#[test]
fn refinement_and_overrides_make_statements_concrete() {
    let (o, n) = (
        lower(Lang::Java, SUM),
        lower(Lang::Java, &SUM.replace("return s;", "return s - 1;")),
    );
    let ctx = Context::new(&o, &n);
    let all = ctx.abstraction(&Plan::default());
    assert_eq!(all.blocks.len(), 1);
    // Refining the first statement leaves the second as a block.
    let first = all.blocks[0].statements[0].key;
    let mut plan = Plan::default();
    plan.refined.insert(first);
    let a = ctx.abstraction(&plan);
    assert_eq!(a.blocks.len(), 1);
    assert_eq!(a.blocks[0].new_span.line(), 3);
    // `--refine 3` keeps line 3 concrete; `--abstract 2` pins line 2.
    let plan = Plan {
        overrides: vec![
            Override {
                action: OverrideAction::Refine,
                first_line: 3,
                last_line: 3,
            },
            Override {
                action: OverrideAction::Abstract,
                first_line: 2,
                last_line: 2,
            },
            Override {
                action: OverrideAction::Abstract,
                first_line: 7,
                last_line: 7,
            },
        ],
        ..Plan::default()
    };
    let a = ctx.abstraction(&plan);
    assert_eq!(a.blocks.len(), 1);
    assert_eq!(a.blocks[0].new_span.line(), 2);
    assert!(a.blocks[0].statements[0].pinned);
    assert_eq!(a.overrides[0].statements, 1);
    assert_eq!(a.overrides[1].statements, 1);
    // Line 7 is the changed return: nothing to abstract there.
    assert_eq!(a.overrides[2].statements, 0);
    assert!(a.overrides[2].note.is_some());
}

#[test]
fn constants_stay_concrete_when_asked() {
    let old = "class T { static int f(int a) {
    int k = 6;
    int s = 0;
    for (int i = 0; i < k; i++) { s = s + a; }
    return s;
} }";
    let new = old.replace("return s;", "return s + 0;");
    let plan = Plan {
        keep_constants: true,
        ..Plan::default()
    };
    // `k = 6` only names a constant: lowering folds it into the loop
    // condition. `s = 0` stays concrete; the loop is one block, with inputs
    // a, s and i (the loop variable's initialisation is a constant too,
    // kept concrete before the block).
    assert_eq!(blocks(Lang::Java, old, &new, &plan), vec![(4, 4, 3, 2)]);
    // Without the option they join the loop's block.
    assert_eq!(java(old, &new), vec![(3, 4, 1, 2)]);
}

#[test]
fn c_blocks_may_fault() {
    let old = "int f(int a, int b) { int q = a / b; int r = q + 1; return r; }";
    let new = "int f(int a, int b) { int q = a / b; int r = q + 1; return r * 1; }";
    let (o, n) = (lower(Lang::C, old), lower(Lang::C, new));
    let ctx = Context::new(&o, &n);
    let a = ctx.abstraction(&Plan::default());
    assert_eq!(a.blocks.len(), 1);
    let site = a.new.map.values().next().expect("a site");
    assert!(site.may_fault);
    assert_eq!(site.inputs.len(), 2);
}

/// A class of `n` unrelated methods `m0 … m{n-1}` of two statements each.
fn many_methods(n: usize) -> String {
    let mut s = String::from("class M {\n");
    for i in 0..n {
        s.push_str(&format!(
            "  static int m{i}(int a) {{ int t = a + {i}; return t * 2; }}\n"
        ));
    }
    s.push_str("}\n");
    s
}

#[test]
fn a_pairs_context_holds_only_what_the_pair_reaches() {
    let (o, n) = (
        lower(Lang::Java, &many_methods(300)),
        lower(Lang::Java, &many_methods(300)),
    );
    let (fo, _) = o.find("m7").next().expect("m7");
    let (fnew, _) = n.find("m7").next().expect("m7");
    let ctx = Context::for_pair(&o, &n, fo, fnew);
    // One function each: the work of the analyses is the scope's, not the
    // file's 300 methods'.
    assert_eq!(ctx.old_effects.len(), 1);
    assert_eq!(ctx.new_effects.len(), 1);
    assert_eq!(ctx.pairs, vec![(fo, fnew)]);
    assert!(ctx.identical(fo, fnew));
}

#[test]
fn matching_and_abstraction_stop_when_the_deadline_has_passed() {
    let old = "class T { static int f(int a) { int x = a + 1; int y = x * 2; return y; } }";
    let new = "class T { static int f(int a) { int x = a + 1; int y = x * 3; return y; } }";
    let (o, n) = (lower(Lang::Java, old), lower(Lang::Java, new));
    let (f, _) = o.find("f").next().expect("f");
    let passed = crate::clock::now();
    assert!(Context::for_pair_until(&o, &n, f, f, passed).is_none());
    let later = passed + std::time::Duration::from_secs(3600);
    let ctx = Context::for_pair_until(&o, &n, f, f, later).expect("built in time");
    assert!(ctx.abstraction_until(&Plan::default(), passed).is_none());
    let abs = ctx
        .abstraction_until(&Plan::default(), later)
        .expect("extracted in time");
    assert_eq!(
        abs.blocks.len(),
        ctx.abstraction(&Plan::default()).blocks.len()
    );
}

#[test]
fn a_long_straight_line_run_is_one_block() {
    // Each statement extends the run: the extraction looks at each once.
    let mut body = String::from("int x0 = a;");
    for i in 1..2000 {
        body.push_str(&format!(" int x{i} = x{} + {};", i - 1, i % 7));
    }
    let old = format!("class T {{ static int f(int a) {{ {body} return x1999; }} }}");
    let new = format!("class T {{ static int f(int a) {{ {body} return x1999 + 0; }} }}");
    let b = java(&old, &new);
    assert_eq!(b.len(), 1, "{b:?}");
    assert_eq!(b[0].2, 1, "one input, a: {b:?}");
}
