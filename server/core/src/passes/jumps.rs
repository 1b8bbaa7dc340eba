//! `break` and `continue` of a loop as flags, so that the lockstep
//! encoding ([`super::shape`]), whose loop bodies run as one loop-free step
//! from head to head, can take loops that leave early (EqBench
//! `ell/sncndn`: `if (fabs(a - emc) <= CA * a) break;`).
//!
//! In a loop labelled `l`, each `break l` becomes `$break1 = true` and each
//! `continue l` becomes `$continue1 = true`; after any statement that may
//! have set a flag, the rest of its block runs under `if (!flags) { … }`
//! (block by block, out to the loop body), the step runs under
//! `if (!$break1)`, the guard becomes `!$break1 && g`, and the flags are
//! reset where the original would not have jumped: `$break1 = false` before
//! the loop, `$continue1 = false` at the start of each iteration. The runs
//! are the same: after a `break` nothing else of the body or the step runs
//! and the guard is not evaluated (`&&` is lazy), so the loop ends where it
//! ended; after a `continue` the rest of the body is skipped and the step
//! and the guard run as before. The flags are fresh locals nothing else
//! writes.
//!
//! *Invariants:* a loop is rewritten only when every jump to it sits in
//! its own body outside nested loops and `try` statements (a labelled
//! `break` out of an inner loop, or one that runs a `finally`, is left for
//! the shape to refuse by name); jumps to other statements (a `switch`
//! inside the body, an enclosing loop) are untouched. Nested loops are
//! rewritten inside out, each with its own flags.

use crate::ir::make::{and, assign, bool_lit, fresh_flag, not, or, read, under};
use crate::ir::{Block, Expr, FuncId, Function, LabelId, LocalId, Program, Span, Stmt, StmtKind};

/// `program` with `func`'s `break`s and `continue`s of loops turned into
/// flags; `None` when there are none (or none that can be).
pub fn flagged(program: &Program, func: FuncId) -> Option<Program> {
    let f = program.function(func).body.as_ref().ok()?;
    let mut g = f.clone();
    let mut body = std::mem::take(&mut g.body);
    if !rewrite_loops(&mut body, &mut g) {
        return None;
    }
    g.body = body;
    let mut p = program.clone();
    if let Some(def) = p.functions.get_mut(func.0 as usize) {
        def.body = Ok(g);
    }
    Some(p)
}

/// Rewrites every loop of `stmts` (at any depth) that jumps out early;
/// whether any was.
fn rewrite_loops(stmts: &mut Block, f: &mut Function) -> bool {
    let mut changed = false;
    let mut out = Vec::with_capacity(stmts.len());
    for mut s in std::mem::take(stmts) {
        for b in s.child_blocks_mut() {
            changed |= rewrite_loops(b, f);
        }
        let span = s.span;
        let StmtKind::Loop {
            label,
            cond,
            body,
            step,
            ..
        } = &mut s.kind
        else {
            out.push(s);
            continue;
        };
        let jumps = Jumps::of(*label, body);
        if !(jumps.breaks || jumps.continues) || jumps.unsafe_ || Jumps::of(*label, step).any() {
            out.push(s);
            continue;
        }
        let brk = jumps.breaks.then(|| fresh_flag(f, "$break", span));
        let cont = jumps.continues.then(|| fresh_flag(f, "$continue", span));
        let flags = Flags {
            label: *label,
            brk,
            cont,
        };
        let mut new_body = Vec::new();
        if let Some(c) = cont {
            new_body.push(assign(c, bool_lit(false, span), span));
        }
        new_body.extend(flags.block(std::mem::take(body), span));
        if let Some(b) = brk {
            let rest = std::mem::take(step);
            if !rest.is_empty() {
                new_body.push(under(not(read(b, span)), rest, span));
            }
            let g = std::mem::replace(cond, read(b, span));
            *cond = and(not(read(b, span)), g);
            out.push(assign(b, bool_lit(false, span), span));
        }
        *body = new_body;
        changed = true;
        out.push(s);
    }
    *stmts = out;
    changed
}

/// Where the jumps to one loop sit in its body.
#[derive(Default)]
struct Jumps {
    breaks: bool,
    continues: bool,
    /// One inside a nested loop or a `try`: not rewritten.
    unsafe_: bool,
}

impl Jumps {
    fn of(label: LabelId, stmts: &[Stmt]) -> Jumps {
        let mut j = Jumps::default();
        for s in stmts {
            j.visit(label, s, false);
        }
        j
    }

    fn any(&self) -> bool {
        self.breaks || self.continues
    }

    fn visit(&mut self, label: LabelId, s: &Stmt, nested: bool) {
        match &s.kind {
            StmtKind::Break(l) if *l == label => {
                self.breaks = true;
                self.unsafe_ |= nested;
            }
            StmtKind::Continue(l) if *l == label => {
                self.continues = true;
                self.unsafe_ |= nested;
            }
            StmtKind::Loop { .. } | StmtKind::Try { .. } => {
                for b in s.child_blocks() {
                    for t in b {
                        self.visit(label, t, true);
                    }
                }
            }
            _ => {
                for b in s.child_blocks() {
                    for t in b {
                        self.visit(label, t, nested);
                    }
                }
            }
        }
    }
}

/// The flags of one loop being rewritten.
struct Flags {
    label: LabelId,
    brk: Option<LocalId>,
    cont: Option<LocalId>,
}

impl Flags {
    /// `stmts` with the jumps replaced, and everything after a statement
    /// that may jump under "no flag set".
    fn block(&self, stmts: Block, span: Span) -> Block {
        let mut out = Vec::with_capacity(stmts.len());
        let mut rest = stmts.into_iter();
        while let Some(s) = rest.next() {
            let jumps = Jumps::of(self.label, std::slice::from_ref(&s)).any();
            out.push(self.stmt(s, span));
            if jumps {
                let tail: Block = rest.collect();
                if !tail.is_empty() {
                    out.push(under(self.none_set(span), self.block(tail, span), span));
                }
                break;
            }
        }
        out
    }

    fn stmt(&self, mut s: Stmt, span: Span) -> Stmt {
        match &s.kind {
            StmtKind::Break(l) if *l == self.label => {
                if let Some(b) = self.brk {
                    return assign(b, bool_lit(true, s.span), s.span);
                }
            }
            StmtKind::Continue(l) if *l == self.label => {
                if let Some(c) = self.cont {
                    return assign(c, bool_lit(true, s.span), s.span);
                }
            }
            // Nested loops and `try` hold no jump to this loop (checked).
            StmtKind::Loop { .. } | StmtKind::Try { .. } => return s,
            _ => {}
        }
        for b in s.child_blocks_mut() {
            let inner = std::mem::take(b);
            *b = self.block(inner, span);
        }
        s
    }

    /// `!($break || $continue)` over the flags this loop has.
    fn none_set(&self, span: Span) -> Expr {
        let flags: Vec<Expr> = [self.brk, self.cont]
            .into_iter()
            .flatten()
            .map(|l| read(l, span))
            .collect();
        let any = flags
            .into_iter()
            .reduce(or)
            .unwrap_or_else(|| bool_lit(false, span));
        not(any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{self, Inputs, Limits, Outcome};
    use crate::ir::{Lang, Semantics};
    use crate::value::Value;

    fn run(p: &Program, args: &[i64]) -> Outcome {
        let inputs = Inputs {
            args: args.iter().map(|a| Value::Int((*a).into())).collect(),
            globals: Default::default(),
            callees: Vec::new(),
        };
        interp::execute(
            p,
            FuncId(0),
            &inputs,
            Semantics::Math,
            Default::default(),
            &Limits::default(),
        )
        .outcome
    }

    /// The rewritten function computes what the original does on a grid,
    /// and the shape takes it.
    fn agree(lang: Lang, src: &str) {
        let p = crate::lang::lower(lang, src);
        let q = flagged(&p, FuncId(0)).expect("a jump to rewrite");
        let f = q.function(FuncId(0)).body.as_ref().expect("lowered");
        if let Err(e) = crate::loops::shape::shape(f) {
            panic!("the shape refuses the rewritten body: {e:?}");
        }
        for a in -3..7 {
            for b in -3..7 {
                assert_eq!(run(&p, &[a, b]), run(&q, &[a, b]), "f({a}, {b})");
            }
        }
    }

    #[test]
    fn breaks_and_continues_become_flags_with_the_same_meaning() {
        // A break in the middle of the body, the step skipped after it.
        agree(
            Lang::Java,
            "class A { int f(int n, int k) { int s = 0; int i; for (i = 0; i < n; i++) { s += i; if (s > k) { break; } s++; } return s * 100 + i; } }",
        );
        // A continue deep in branches, the step still run; a break too.
        agree(
            Lang::Java,
            "class A { int f(int n, int k) { int s = 0; for (int i = 0; i < n; i++) { if (i % 2 == 0) { if (i == k) { continue; } s += 10; } else { if (s > 40) { break; } } s += i; } return s; } }",
        );
        // A do loop, and a switch whose breaks stay in the body.
        agree(
            Lang::C,
            "int f(int n, int k) { int s = 0; int i = 0; do { switch (i % 3) { case 0: s += 1; break; default: s += 2; } i++; if (i > k) break; } while (i < n); return s * 10 + i; }",
        );
        // Nested loops: each loop its own flags.
        agree(
            Lang::Java,
            "class A { int f(int n, int k) { int s = 0; for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) { if (j > i) { break; } s += j; } if (s > k) { break; } } return s; } }",
        );
    }

    #[test]
    fn jumps_out_of_nested_loops_are_left_alone() {
        let p = crate::lang::lower(
            Lang::Java,
            "class A { int f(int n, int k) { int s = 0; outer: for (int i = 0; i < n; i++) { for (int j = 0; j < n; j++) { if (j == k) { break outer; } s++; } } return s; } }",
        );
        let q = flagged(&p, FuncId(0));
        let f = q
            .as_ref()
            .unwrap_or(&p)
            .function(FuncId(0))
            .body
            .as_ref()
            .expect("lowered");
        assert!(
            crate::loops::shape::shape(f).is_err(),
            "left for the shape to refuse"
        );
        let p = crate::lang::lower(
            Lang::Java,
            "class A { int f(int n) { int s = 0; while (s < n) { s++; } return s; } }",
        );
        assert!(flagged(&p, FuncId(0)).is_none());
    }
}
