//! Which method bodies the lockstep encoding takes, and the pieces it cuts
//! them into: loop-free stretches and the top-level loops between them.
//!
//! The first cut takes a body whose loops all sit at its top level (blocks
//! are flattened; `for` initialisers are plain statements before the loop;
//! loops in branches are hoisted first, `passes/hoist.rs`), whose loop bodies
//! hold loops only at their own top level, no `continue` and no `break`
//! out of the loop (`passes/jumps.rs` turns those into flags first; a `return` and
//! calls are fine), and which
//! prints nothing (arrays are state like scalars, laid out by
//! `encode.rs`). Everything else is [`NotEncodable`] with the construct
//! named, so the checker can say `unknown: <construct>` instead of guessing.

use crate::ir::{Block, Expr, Function, LabelId, LoopKind, Span, Stmt, StmtKind};

/// Why a body is outside what the lockstep encoding handles.
#[derive(Clone, Debug, PartialEq)]
pub struct NotEncodable {
    pub what: String,
    pub span: Span,
}

impl NotEncodable {
    pub(crate) fn new(what: impl Into<String>, span: Span) -> Self {
        NotEncodable {
            what: what.into(),
            span,
        }
    }
}

/// A body cut at its top-level loops.
#[derive(Clone, Debug)]
pub struct Shape {
    /// Loop-free stretches: before the first loop, between consecutive
    /// loops, after the last one (`loops.len() + 1` of them).
    pub segments: Vec<Block>,
    pub loops: Vec<LoopPiece>,
}

/// One top-level loop as a `while` loop: `do … while` loops have their
/// first iteration moved into the stretch before them.
#[derive(Clone, Debug)]
pub struct LoopPiece {
    pub cond: Expr,
    /// The body followed by the step (without `continue` the step always
    /// runs after the body) — up to the first inner loop, when it has
    /// some (the rest is in the stretches after the inner loops).
    pub body: Block,
    pub span: Span,
    /// The loop this one is nested in (loops are numbered in preorder).
    pub parent: Option<usize>,
}

impl Shape {
    /// Runs the first iteration of loop `k` before it, as `if (c) body`:
    /// `while (c) B` means exactly `if (c) B; while (c) B` when `B` has no
    /// `break` or `continue` of the loop (which [`shape`] guarantees; a
    /// `return` in `B` ends the run in either form), so the shape means the
    /// same afterwards. Used to align loops whose iteration
    /// counts differ by one. `false` when there is no loop `k`.
    pub fn peel(&mut self, k: usize) -> bool {
        // Only when every loop is at the top level: then `segments[k]` is
        // the stretch right before loop k and its body is all in `body`.
        if !self.is_flat() {
            return false;
        }
        let Some(lp) = self.loops.get(k) else {
            return false;
        };
        let first = Stmt {
            kind: StmtKind::If {
                cond: lp.cond.clone(),
                then_branch: lp.body.clone(),
                else_branch: Vec::new(),
            },
            span: lp.span,
        };
        match self.segments.get_mut(k) {
            Some(seg) => {
                seg.push(first);
                true
            }
            None => false,
        }
    }
}

impl Shape {
    /// A loop-free shape as one with `n` top-level loops that never run in
    /// front of its body: `while (false) {}` `n` times, then the body, which
    /// means exactly the body. Paired with a version that has `n` top-level
    /// loops, the interleaved product runs each of those alone against the
    /// other version's straight-line code. `None` when `self` has loops.
    pub fn idle_loops_first(&self, n: usize, span: Span) -> Option<Shape> {
        if !self.loops.is_empty() {
            return None;
        }
        let mut segments = vec![Vec::new(); n];
        segments.push(self.segments.concat());
        let idle = LoopPiece {
            cond: crate::ir::make::bool_lit(false, span),
            body: Vec::new(),
            span,
            parent: None,
        };
        Some(Shape {
            segments,
            loops: vec![idle; n],
        })
    }
}

/// Cuts `f`'s body at its top-level loops, or says which construct the
/// encoding does not handle.
pub fn shape(f: &Function) -> Result<Shape, NotEncodable> {
    let mut out = Shape {
        segments: vec![Vec::new()],
        loops: Vec::new(),
    };
    cut(&f.body, &mut out, None, &mut Stretch::Segment(0))?;
    Ok(out)
}

/// Where the statements being cut go: the stretch after loop `k` (or the
/// entry stretch, `Segment(0)`), or the start of loop `k`'s body.
#[derive(Clone, Copy)]
enum Stretch {
    Segment(usize),
    Body(usize),
}

impl Shape {
    fn stretch(&mut self, at: Stretch) -> Option<&mut Block> {
        match at {
            Stretch::Segment(i) => self.segments.get_mut(i),
            Stretch::Body(k) => self.loops.get_mut(k).map(|l| &mut l.body),
        }
    }

    /// Whether every loop sits at the top level of the body.
    pub fn is_flat(&self) -> bool {
        self.loops.iter().all(|l| l.parent.is_none())
    }

    /// Where the run goes after loop `k`'s body stretch: its first inner
    /// loop's head, else back to its own head.
    pub fn body_destination(&self, k: usize) -> usize {
        match self.loops.get(k + 1) {
            Some(next) if next.parent == Some(k) => k + 1,
            _ => k,
        }
    }

    /// Where the run goes after loop `k` exits and the stretch after it
    /// runs: the next loop at the same level, else the enclosing loop's
    /// head, else the end of the method (`None`).
    pub fn after_destination(&self, k: usize) -> Option<usize> {
        let parent = self.loops.get(k)?.parent;
        // The first loop after k's inner loops (preorder): a sibling when
        // it has the same parent.
        let next = (k + 1..self.loops.len()).find(|&j| !self.inside(j, k));
        match next {
            Some(j) if self.loops[j].parent == parent => Some(j),
            _ => parent,
        }
    }

    /// Whether loop `j` is nested (at any depth) inside loop `k`.
    fn inside(&self, j: usize, k: usize) -> bool {
        let mut p = self.loops.get(j).and_then(|l| l.parent);
        while let Some(q) = p {
            if q == k {
                return true;
            }
            p = self.loops.get(q).and_then(|l| l.parent);
        }
        false
    }
}

fn cut(
    stmts: &Block,
    out: &mut Shape,
    parent: Option<usize>,
    at: &mut Stretch,
) -> Result<(), NotEncodable> {
    for s in stmts {
        match &s.kind {
            StmtKind::Block(b) => cut(b, out, parent, at)?,
            StmtKind::Loop {
                label,
                kind,
                cond,
                body,
                step,
            } => {
                check_loop_body(*label, body.iter().chain(step))?;
                let mut whole: Block = body.clone();
                whole.extend(step.iter().cloned());
                if *kind == LoopKind::DoWhile {
                    if whole.iter().any(contains_loop) {
                        return Err(NotEncodable::new("a loop inside a do-while loop", s.span));
                    }
                    // do B while (c)  ≡  B; while (c) B
                    if let Some(stretch) = out.stretch(*at) {
                        stretch.extend(whole.iter().cloned());
                    }
                }
                let k = out.loops.len();
                out.loops.push(LoopPiece {
                    cond: cond.clone(),
                    body: Vec::new(),
                    span: s.span,
                    parent,
                });
                out.segments.push(Vec::new());
                // The body up to its first inner loop is loop k's body
                // stretch; inner loops and the stretches after them follow.
                let mut inner = Stretch::Body(k);
                cut(&whole, out, Some(k), &mut inner)?;
                *at = Stretch::Segment(k + 1);
            }
            _ => {
                if let Some(span) = find_stmt(std::slice::from_ref(s), &|k| {
                    matches!(k, StmtKind::Loop { .. })
                }) {
                    return Err(NotEncodable::new(
                        if parent.is_some() {
                            "a loop inside a branch of a loop"
                        } else {
                            "a loop inside a branch, switch or labeled block"
                        },
                        span,
                    ));
                }
                if let Some(span) = find_stmt(std::slice::from_ref(s), &|k| {
                    matches!(k, StmtKind::Print { .. })
                }) {
                    return Err(NotEncodable::new("printing in a method with loops", span));
                }
                if let Some(stretch) = out.stretch(*at) {
                    stretch.push(s.clone());
                }
            }
        }
    }
    Ok(())
}

/// A loop body the encoding runs as one loop-free step.
pub(crate) fn check_loop_body<'a>(
    label: LabelId,
    stmts: impl Iterator<Item = &'a Stmt>,
) -> Result<(), NotEncodable> {
    let stmts: Vec<&Stmt> = stmts.collect();
    // Labels of switches and labeled blocks inside the body: a `break` to
    // one of them stays inside the body.
    let mut inner = Vec::new();
    for s in &stmts {
        walk(s, &mut |s| {
            if let StmtKind::Labeled { label, .. } = &s.kind {
                inner.push(*label);
            }
        });
    }
    let mut problem: Option<NotEncodable> = None;
    for s in &stmts {
        walk(s, &mut |s| {
            if problem.is_some() {
                return;
            }
            let what = match &s.kind {
                // Inner loops are cut like the outer ones (`cut`); one in
                // a branch is refused there.
                // Calls are inlined by the executor (a callee with a loop
                // or recursion is refused when its stretch is encoded), and
                // a `return` ends the run inside the body's stretch, which
                // the clauses compare like any other end.
                StmtKind::Continue(_) => Some("a continue inside a loop"),
                StmtKind::Break(l) if *l == label || !inner.contains(l) => {
                    Some("a break out of a loop")
                }
                StmtKind::Print { .. } => Some("printing inside a loop"),
                _ => None,
            };
            if let Some(what) = what {
                problem = Some(NotEncodable::new(what, s.span));
            }
        });
    }
    problem.map_or(Ok(()), Err)
}

/// The first statement (in preorder) whose kind satisfies `pred`.
fn find_stmt(stmts: &[Stmt], pred: &dyn Fn(&StmtKind) -> bool) -> Option<Span> {
    let mut found = None;
    for s in stmts {
        walk(s, &mut |s| {
            if found.is_none() && pred(&s.kind) {
                found = Some(s.span);
            }
        });
    }
    found
}

/// Whether `s` is or contains a loop.
pub(crate) fn contains_loop(s: &Stmt) -> bool {
    find_stmt(std::slice::from_ref(s), &|k| {
        matches!(k, StmtKind::Loop { .. })
    })
    .is_some()
}

/// Visits `s` and every statement nested in it, in preorder.
fn walk(s: &Stmt, f: &mut dyn FnMut(&Stmt)) {
    f(s);
    for b in s.child_blocks() {
        for t in b {
            walk(t, f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;

    fn shape_of(src: &str) -> Result<Shape, NotEncodable> {
        let p = crate::lang::lower(Lang::Java, src);
        let f = p.functions[0].body.as_ref().expect("lowers");
        shape(f)
    }

    #[test]
    fn top_level_loops_cut_the_body_into_stretches() {
        let s = shape_of(
            "class A { int f(int n) { int s = 0; for (int i = 0; i < n; i++) { s += i; } \
             int j = 0; while (j < n) { j++; } return s + j; } }",
        )
        .expect("encodable");
        assert_eq!(s.loops.len(), 2);
        assert_eq!(s.segments.len(), 3);
        // The for loop's step runs after its body.
        assert_eq!(s.loops[0].body.len(), 2);
        assert!(matches!(
            s.segments[2].last().map(|s| &s.kind),
            Some(StmtKind::Return(_))
        ));
    }

    #[test]
    fn a_do_while_loop_runs_its_first_iteration_before_the_loop() {
        let s = shape_of(
            "class A { int f(int n) { int i = 0; do { i++; } while (i < n); return i; } }",
        )
        .expect("encodable");
        assert_eq!(s.loops.len(), 1);
        // `int i = 0;` then the first `i++`.
        assert_eq!(s.segments[0].len(), 2);
    }

    #[test]
    fn peeling_runs_the_first_iteration_guarded_before_the_loop() {
        let mut s =
            shape_of("class A { int f(int n) { int i = 0; while (i < n) { i++; } return i; } }")
                .expect("encodable");
        assert!(s.peel(0));
        assert!(!s.peel(1));
        let Some(StmtKind::If {
            cond,
            then_branch,
            else_branch,
        }) = s.segments[0].last().map(|s| &s.kind)
        else {
            panic!("expected the peeled iteration, got {:?}", s.segments[0]);
        };
        assert_eq!(cond, &s.loops[0].cond);
        assert_eq!(then_branch, &s.loops[0].body);
        assert!(else_branch.is_empty());
        assert_eq!(s.loops.len(), 1);
    }

    #[test]
    fn constructs_outside_the_first_cut_are_named() {
        let nested = "class A { int f(int n) { int s = 0; for (int i = 0; i < n; i++) { \
                      for (int j = 0; j < i; j++) { s++; } } return s; } }";
        let s = shape_of(nested).expect("nested loops are cut");
        assert_eq!(s.loops.len(), 2);
        assert_eq!(s.loops[1].parent, Some(0));
        // The outer body runs into the inner loop; after the inner loop's
        // exit the step `i++` runs and the outer head comes back; after the
        // outer loop's exit, the return.
        assert_eq!(s.body_destination(0), 1);
        assert_eq!(s.body_destination(1), 1);
        assert_eq!(s.after_destination(1), Some(0));
        assert_eq!(s.after_destination(0), None);
        assert!(!s.is_flat());
        let in_branch = "class A { int f(int n) { int s = 0; for (int i = 0; i < n; i++) { \
                         if (i > 1) { for (int j = 0; j < i; j++) { s++; } } } return s; } }";
        assert_eq!(
            shape_of(in_branch).unwrap_err().what,
            "a loop inside a branch of a loop"
        );
        let brk = "class A { int f(int n) { int i = 0; while (true) { if (i > n) break; i++; } return i; } }";
        assert_eq!(shape_of(brk).unwrap_err().what, "a break out of a loop");
        let inside_if =
            "class A { int f(int n) { int i = 0; if (n > 0) { while (i < n) i++; } return i; } }";
        assert_eq!(
            shape_of(inside_if).unwrap_err().what,
            "a loop inside a branch, switch or labeled block"
        );
        // Arrays are state like any variable (`encode.rs` lays them out).
        let arrays = "class A { int f(int[] a) { int s = 0; for (int i = 0; i < a.length; i++) s += a[i]; return s; } }";
        assert_eq!(shape_of(arrays).map(|s| s.loops.len()), Ok(1));
    }
}
