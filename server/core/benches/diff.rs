//! Speed of the statement matcher (`eqlens_core::diff`), against the
//! requirement "well under 10 ms for a 300-line method".
//!
//! The input is a generated Java method of realistic shape (declarations,
//! nested `if`s and loops, array reads and writes, calls to a helper and to
//! `Math`), diffed against a version with a few edits: operator changes, a
//! changed constant, an inserted local, a statement moved within its block
//! and a local renamed throughout. Lowering is outside the timed part: the
//! diff is what is measured. Run with `cargo bench -p eqlens-core --bench diff`.

use criterion::{Criterion, criterion_group, criterion_main};
use eqlens_core::diff::{DiffContext, changed_functions, diff_functions_in};
use eqlens_core::ir::{Function, Lang, Program};
use eqlens_core::lang::lower;
use std::hint::black_box;

/// Which version of the generated method to write.
#[derive(Clone, Copy, PartialEq)]
enum Version {
    Old,
    New,
}

/// One block of about ten lines; `k` varies constants and names. Edits in
/// the new version fall on a few fixed blocks.
fn block(out: &mut String, k: usize, v: Version) {
    let new = v == Version::New;
    let var = if new && k == 7 {
        format!("w{k}") // renamed local
    } else {
        format!("v{k}")
    };
    let i = format!("i{k}");
    if new && k == 3 {
        out.push_str(&format!("        int extra{k} = a * {k};\n")); // inserted local
    }
    out.push_str(&format!("        int {var} = a + {k};\n"));
    let add = if new && k == 5 { "-" } else { "+" }; // operator change
    let moved = format!("        acc = acc {add} {var};\n");
    if new && k == 20 {
        out.push_str(&moved); // moved before the loop
    }
    out.push_str(&format!(
        "        for (int {i} = 0; {i} < n; {i}++) {{\n\
         \x20           if (arr[{i}] > {var}) {{\n\
         \x20               acc = acc + arr[{i}] * {k};\n\
         \x20               if (acc > {big}) {{ acc = acc % {m}; }}\n\
         \x20           }} else {{\n\
         \x20               acc = acc - helper({var});\n\
         \x20           }}\n\
         \x20           arr[{i}] = Math.max(acc % {m}, {var});\n\
         \x20       }}\n",
        big = 1000 + k,
        m = if new && k == 12 { k + 8 } else { k + 7 }, // constant change
    ));
    out.push_str(&format!(
        "        while ({var} > b) {{ {var} = {var} / 2; acc = acc + 1; }}\n"
    ));
    if !(new && k == 20) {
        out.push_str(&moved);
    }
}

/// A class with a helper and a method `f` of about `lines` lines.
fn source(lines: usize, v: Version) -> String {
    let mut s = String::from(
        "class B {\n    static int helper(int v) { return v * 3 + 1; }\n\
         \x20   static int f(int a, int b, int[] arr) {\n\
         \x20       int acc = 0;\n        int n = arr.length;\n",
    );
    let mut k = 0;
    while s.lines().count() < lines {
        block(&mut s, k, v);
        k += 1;
    }
    s.push_str("        return acc;\n    }\n}\n");
    s
}

fn function(p: &Program) -> Function {
    let (_, def) = p.find("f").next().expect("generated f");
    def.body.clone().expect("generated f lowers")
}

struct Case {
    name: &'static str,
    old: Program,
    new: Program,
}

fn case(name: &'static str, lines: usize) -> Case {
    Case {
        name,
        old: lower(Lang::Java, &source(lines, Version::Old)),
        new: lower(Lang::Java, &source(lines, Version::New)),
    }
}

fn bench_diff(c: &mut Criterion) {
    for case in [case("300 lines", 300), case("1000 lines", 1000)] {
        let (f_old, f_new) = (function(&case.old), function(&case.new));
        let changed = changed_functions(&case.old, &case.new);
        let cx = DiffContext::new(&case.old, &case.new, &changed);
        let d = diff_functions_in(&cx, &f_old, &f_new);
        let common = |es: &[eqlens_core::diff::StmtEntry]| {
            es.iter()
                .filter(|e| e.status == eqlens_core::diff::StmtStatus::Common)
                .count()
        };
        eprintln!(
            "{}: {} / {} statements, {} / {} common; edits: {} inserted, {} deleted, {} updated, {} moved",
            case.name,
            d.old.len(),
            d.new.len(),
            common(&d.old),
            common(&d.new),
            d.edits.inserted.len(),
            d.edits.deleted.len(),
            d.edits.updated.len(),
            d.edits.moved.len(),
        );
        // Where the edits landed (old line -> new line), so a reader of the
        // output can see that the matcher found the edits that were made.
        let lines = |ps: &[eqlens_core::diff::SpanPair]| {
            ps.iter()
                .map(|p| format!("{}->{}", p.old.line(), p.new.line()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        eprintln!(
            "  updated: {}; moved: {}",
            lines(&d.edits.updated),
            lines(&d.edits.moved)
        );
        c.bench_function(&format!("diff_functions_in, {}, edited", case.name), |b| {
            b.iter(|| diff_functions_in(black_box(&cx), black_box(&f_old), black_box(&f_new)))
        });
        c.bench_function(
            &format!("diff_functions_in, {}, identical", case.name),
            |b| b.iter(|| diff_functions_in(black_box(&cx), black_box(&f_old), black_box(&f_old))),
        );
        c.bench_function(
            &format!("changed_functions + DiffContext, {}", case.name),
            |b| {
                b.iter(|| {
                    let ch = changed_functions(black_box(&case.old), black_box(&case.new));
                    DiffContext::new(&case.old, &case.new, &ch)
                })
            },
        );
    }
}

criterion_group!(benches, bench_diff);
criterion_main!(benches);
