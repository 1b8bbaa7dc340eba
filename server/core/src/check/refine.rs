//! ARDiff's refinement heuristics: which abstracted statement to make
//! concrete next.
//!
//! - **H1**: blocks (uninterpreted functions) for which some value makes the
//!   two versions agree whatever the other functions return — for every
//!   input. Asked of Z3 as "is there an input such that for every value of
//!   this block's applications, some values of the others make the versions
//!   differ?"; unsatisfiable means the block qualifies. Quantified, so each
//!   question gets a short time box; no answer means "does not qualify".
//! - **H2**: blocks applied a different number of times in the two versions.
//! - Neither narrows the set: all blocks of the formula.
//! - **H3**: among the candidate blocks' statements, the lowest score of
//!   loop-nesting depth + non-linear operators; ties go to the earliest.

use crate::abstraction::{Abstraction, Applications, BlockId, Plan, StmtKey, Version};
use crate::symbolic::PairEncoding;
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic, exists_const, forall_const};
use z3::{Params, SatResult};

use crate::budget::{H1_QUESTION, H1_TOTAL};

#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub statement: StmtKey,
    /// `H1`, `H2` or `all`: what narrowed the candidate blocks.
    pub heuristic: &'static str,
}

/// The statement to refine, or `None` when nothing is left to refine.
/// Without an encoding (it timed out) only H3 applies, over every block.
pub fn choose(
    enc: Option<&PairEncoding>,
    abs: &Abstraction,
    plan: &Plan,
    deadline: Instant,
) -> Option<Choice> {
    let refinable = |b: BlockId| {
        abs.block(b)
            .is_some_and(|info| info.statements.iter().any(|s| !s.pinned))
    };
    let applied: Vec<BlockId> = match enc {
        Some(enc) => enc.apps.blocks(),
        None => abs.blocks.iter().map(|b| b.id).collect(),
    };
    let applied: Vec<BlockId> = applied.into_iter().filter(|&b| refinable(b)).collect();
    if applied.is_empty() {
        return None;
    }
    let (candidates, heuristic) = match enc {
        Some(enc) => {
            let h1 = h1(enc, &applied, deadline);
            if !h1.is_empty() {
                (h1, "H1")
            } else {
                let h2 = h2(&enc.apps, &applied);
                if !h2.is_empty() {
                    (h2, "H2")
                } else {
                    (applied.clone(), "all")
                }
            }
        }
        None => (applied.clone(), "all"),
    };
    h3(abs, plan, &candidates).map(|statement| Choice {
        statement,
        heuristic,
    })
}

/// H2: blocks applied a different number of times in the two versions.
pub fn h2(apps: &Applications, blocks: &[BlockId]) -> Vec<BlockId> {
    blocks
        .iter()
        .copied()
        .filter(|&b| apps.count(b, Version::Old) != apps.count(b, Version::New))
        .collect()
}

/// The statements to make concrete for `choice`: the chosen one and the
/// other refinable statements of its block that start on the same source
/// line. ARDiff refines source statements; the front ends lower one source
/// statement to several IR statements (a call with an object result is the
/// call plus one copy per field), and refining those one query at a time
/// multiplies the iterations without telling the heuristics anything new.
pub fn statements_of(abs: &Abstraction, plan: &Plan, choice: &Choice) -> Vec<StmtKey> {
    let mut out = vec![choice.statement];
    let Some(block) = abs
        .blocks
        .iter()
        .find(|b| b.statements.iter().any(|s| s.key == choice.statement))
    else {
        return out;
    };
    let Some(line) = block
        .statements
        .iter()
        .find(|s| s.key == choice.statement)
        .map(|s| s.span.start.line)
    else {
        return out;
    };
    out.extend(
        block
            .statements
            .iter()
            .filter(|s| {
                s.key != choice.statement
                    && s.span.start.line == line
                    && !s.pinned
                    && !plan.refined.contains(&s.key)
            })
            .map(|s| s.key),
    );
    out
}

/// H3: the statement with the lowest score among the candidate blocks.
pub fn h3(abs: &Abstraction, plan: &Plan, blocks: &[BlockId]) -> Option<StmtKey> {
    abs.blocks
        .iter()
        .filter(|b| blocks.contains(&b.id))
        .flat_map(|b| &b.statements)
        .filter(|s| !s.pinned && !plan.refined.contains(&s.key))
        .min_by_key(|s| (s.score, s.span.start))
        .map(|s| s.key)
}

/// H1 (see the module doc).
pub fn h1(enc: &PairEncoding, blocks: &[BlockId], deadline: Instant) -> Vec<BlockId> {
    let Ok(diff) = enc.difference() else {
        return Vec::new();
    };
    let mut body: Vec<Bool> = enc.ufs.facts.clone();
    body.extend(enc.inputs.preconditions());
    body.push(Bool::and(&[
        enc.old.bound_exceeded.not(),
        enc.new.bound_exceeded.not(),
    ]));
    body.push(diff);
    let body = Bool::and(&body);
    // Quantified questions over arrays (an array stored and read back on
    // every unrolled iteration) can send libz3 4.8.12 into a pass that
    // neither the interrupt nor the resource limit stops: such a formula
    // qualifies no block by H1, and H2 or H3 choose. Arrays that are only
    // read (inputs, the empty output log) do not count.
    if updates_array(&body) {
        return Vec::new();
    }
    let results_of = |pred: &dyn Fn(BlockId) -> bool| -> Vec<Dynamic> {
        let mut out: Vec<Dynamic> = Vec::new();
        for a in enc.apps.apps.iter().filter(|a| pred(a.block)) {
            for r in &a.results {
                if !out.iter().any(|x| x.get_z3_ast() == r.get_z3_ast()) {
                    out.push(r.clone());
                }
            }
        }
        out
    };
    let all_end = deadline.min(crate::clock::now() + H1_TOTAL);
    let mut out = Vec::new();
    for &b in blocks {
        if crate::cancel::expired(all_end) {
            break;
        }
        let mine = results_of(&|x| x == b);
        let others = results_of(&|x| x != b);
        let inner = if others.is_empty() {
            body.clone()
        } else {
            let bounds: Vec<&dyn Ast> = others.iter().map(|d| d as &dyn Ast).collect();
            exists_const(&bounds, &[], &body)
        };
        let bounds: Vec<&dyn Ast> = mine.iter().map(|d| d as &dyn Ast).collect();
        let query = forall_const(&bounds, &[], &inner);
        // The SMT core (E-matching and MBQI), without nlsat: the default
        // solver picks a quantifier-elimination tactic for these
        // nonlinear real questions, and in it (as in nlsat) libz3 4.8.12
        // can ignore the interrupt for a long time. A question the core cannot settle in its box just does not
        // qualify the block.
        let solver = z3::Tactic::new("smt").solver();
        let mut params = Params::new();
        params.set_bool("arith.nl.nra", false);
        solver.set_params(&params);
        solver.assert(&query);
        let box_end = all_end.min(crate::clock::now() + H1_QUESTION);
        let limit = crate::clock::Limit::until(box_end);
        if crate::clock::solve(&solver, limit, &[]) == SatResult::Unsat {
            out.push(b);
        }
    }
    out
}

/// Whether a subterm of `term` is an array made from another array (a
/// store, or any other update): one an unrolled loop writes. Fresh array
/// constants and constant arrays are only read.
fn updates_array(term: &Bool) -> bool {
    let mut seen: rustc_hash::FxHashSet<Dynamic> = rustc_hash::FxHashSet::default();
    let mut stack = vec![Dynamic::from_ast(term)];
    while let Some(t) = stack.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        let children = t.children();
        if t.as_array().is_some() && children.iter().any(|c| c.as_array().is_some()) {
            return true;
        }
        stack.extend(children);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abstraction::{Application, BlockInfo, Refinable};
    use crate::ir::{Pos, Span, Stmt, StmtKind};
    use z3::ast::Int;

    fn span(line: u32) -> Span {
        let p = Pos {
            line,
            col: 0,
            byte: line * 10,
        };
        Span { start: p, end: p }
    }

    #[test]
    fn h3_takes_the_lowest_score_then_the_earliest_and_skips_pinned_and_refined() {
        let stmts: Vec<Stmt> = (0..4)
            .map(|i| Stmt {
                kind: StmtKind::Break(crate::ir::LabelId(i)),
                span: span(i),
            })
            .collect();
        let r = |i: usize, score: u32, pinned: bool| Refinable {
            key: StmtKey::of(&stmts[i]),
            reads: vec![],
            writes: vec![],
            span: span(i as u32),
            score,
            pinned,
        };
        let block = |id: u32, statements: Vec<Refinable>| BlockInfo {
            id: BlockId(id),
            function: "f".into(),
            old_span: span(0),
            new_span: span(0),
            statements,
            inputs: 1,
            outputs: 1,
            contains_loop: false,
            under_change: false,
        };
        let abs = Abstraction {
            blocks: vec![
                block(0, vec![r(0, 3, false), r(1, 1, true)]),
                block(1, vec![r(2, 2, false), r(3, 2, false)]),
            ],
            ..Abstraction::default()
        };
        let mut plan = Plan::default();
        let both = [BlockId(0), BlockId(1)];
        // Score 1 is pinned; score 2 twice: the earlier wins.
        assert_eq!(h3(&abs, &plan, &both), Some(StmtKey::of(&stmts[2])));
        plan.refined.insert(StmtKey::of(&stmts[2]));
        assert_eq!(h3(&abs, &plan, &both), Some(StmtKey::of(&stmts[3])));
        // Only block 0: its unpinned statement.
        assert_eq!(h3(&abs, &plan, &[BlockId(0)]), Some(StmtKey::of(&stmts[0])));
        plan.refined.insert(StmtKey::of(&stmts[0]));
        assert_eq!(h3(&abs, &plan, &[BlockId(0)]), None);
    }

    #[test]
    fn a_choice_takes_the_other_statements_of_its_block_on_the_same_line() {
        // Statements 0-2 are one source line (say a call with an object
        // result and its two field copies), 3 the next line; 4 is on the
        // same line but in another block, 2 is pinned.
        let stmts: Vec<Stmt> = (0..5)
            .map(|i| Stmt {
                kind: StmtKind::Break(crate::ir::LabelId(i)),
                span: span(0),
            })
            .collect();
        let lines = [7, 7, 7, 8, 7];
        let r = |i: usize, pinned: bool| Refinable {
            key: StmtKey::of(&stmts[i]),
            reads: vec![],
            writes: vec![],
            span: span(lines[i]),
            score: 0,
            pinned,
        };
        let block = |id: u32, statements: Vec<Refinable>| BlockInfo {
            id: BlockId(id),
            function: "f".into(),
            old_span: span(0),
            new_span: span(0),
            statements,
            inputs: 1,
            outputs: 1,
            contains_loop: false,
            under_change: false,
        };
        let abs = Abstraction {
            blocks: vec![
                block(0, vec![r(0, false), r(1, false), r(2, true), r(3, false)]),
                block(1, vec![r(4, false)]),
            ],
            ..Abstraction::default()
        };
        let mut plan = Plan::default();
        let choice = |i: usize| Choice {
            statement: StmtKey::of(&stmts[i]),
            heuristic: "all",
        };
        let key = |i: usize| StmtKey::of(&stmts[i]);
        assert_eq!(statements_of(&abs, &plan, &choice(0)), vec![key(0), key(1)]);
        assert_eq!(statements_of(&abs, &plan, &choice(3)), vec![key(3)]);
        plan.refined.insert(key(0));
        assert_eq!(statements_of(&abs, &plan, &choice(1)), vec![key(1)]);
    }

    #[test]
    fn h2_finds_blocks_applied_unequally() {
        let mut apps = Applications::default();
        let app = |block: u32, version| Application {
            block: BlockId(block),
            version,
            args: vec![],
            results: vec![Dynamic::from_ast(&Int::from_i64(0))],
        };
        apps.record(app(0, Version::Old));
        apps.record(app(0, Version::New));
        apps.record(app(1, Version::Old));
        apps.record(app(1, Version::Old));
        apps.record(app(1, Version::New));
        assert_eq!(h2(&apps, &[BlockId(0), BlockId(1)]), vec![BlockId(1)]);
    }

    #[test]
    fn only_an_array_made_from_another_counts_as_updated() {
        use z3::Sort;
        use z3::ast::Array;
        let int = Sort::int();
        let xs = Array::fresh_const("xs", &int, &int);
        let empty = Array::const_array(&int, &Int::from_i64(0));
        let i = Int::new_const("i");
        let read = xs.select(&i).as_int().expect("int").eq(Int::from_i64(1));
        let logs = empty.eq(&xs);
        assert!(!updates_array(&Bool::and(&[read.clone(), logs])));
        let stored = xs.store(&i, &Int::from_i64(2));
        let back = stored
            .select(&i)
            .as_int()
            .expect("int")
            .eq(Int::from_i64(2));
        assert!(updates_array(&Bool::and(&[read, back])));
    }
}
