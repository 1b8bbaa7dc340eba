//! The full symbolic checker: both versions encoded whole (loops unrolled up
//! to the bound, calls inlined), one equivalence query, and every candidate
//! counterexample replayed on both versions by the interpreter before it is
//! reported.

use super::query::{MAX_CANDIDATES, bodies, decide, encode};
use super::testing::test_concretely;
use super::{Budget, Checker, Decider, Decision, MethodPair, Options, Verdict};

pub struct SymbolicChecker {
    /// Concrete tests before the query (off where a schedule has run
    /// them).
    pub(crate) testing: bool,
}

impl Checker for SymbolicChecker {
    fn check(&self, pair: &MethodPair<'_>, options: &Options, budget: Budget) -> Decision {
        let deadline = budget.deadline;
        let (old_fn, new_fn) = match bodies(pair) {
            Ok(b) => b,
            Err(v) => return Decision::plain(v, Decider::Symbolic),
        };
        if self.testing {
            if let Some(cex) = test_concretely(pair, old_fn, new_fn, options, deadline) {
                return Decision::plain(Verdict::NotEquivalent(Box::new(cex)), Decider::Testing);
            }
            if crate::cancel::expired(deadline) {
                return Decision::plain(
                    super::timeout(super::Phase::Testing, options.timeout_ms),
                    Decider::Symbolic,
                );
            }
        }
        let enc = match encode(pair, old_fn, new_fn, options, deadline, None) {
            Ok(enc) => enc,
            Err(v) => return Decision::plain(v, Decider::Symbolic),
        };
        let verdict = decide(
            pair,
            &enc,
            old_fn,
            new_fn,
            options,
            deadline,
            MAX_CANDIDATES,
        );
        Decision::plain(verdict, Decider::Symbolic)
    }
}

#[cfg(test)]
mod tests {
    //! Encoder-level tests on hand-built IR (no front end, no replay): the
    //! proof side of the checker. Counterexample replay is covered by the
    //! fixture suite.
    use super::*;
    use crate::check::{CheckerKind, MethodPair, Options, Proof};
    use crate::ir::*;

    fn sp() -> Span {
        Span::default()
    }
    fn e(kind: ExprKind, ty: Type) -> Expr {
        Expr {
            kind,
            ty,
            span: sp(),
        }
    }
    fn local(i: u32) -> Expr {
        e(ExprKind::Local(LocalId(i)), Type::INT)
    }
    fn int(v: i128) -> Expr {
        e(ExprKind::IntLit(v), Type::INT)
    }
    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        let ty = if op.is_comparison() {
            Type::Bool
        } else {
            Type::INT
        };
        e(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty)
    }
    fn st(kind: StmtKind) -> Stmt {
        Stmt { kind, span: sp() }
    }
    fn program(params: u32, extra_locals: u32, body: Block) -> Program {
        let locals = (0..params + extra_locals)
            .map(|i| Local {
                name: format!("v{i}"),
                ty: Type::INT,
                kind: if i < params {
                    LocalKind::Param
                } else {
                    LocalKind::Var
                },
                span: sp(),
                text: false,
            })
            .collect();
        let f = Function {
            name: "f".into(),
            params: (0..params).map(LocalId).collect(),
            locals,
            ret: Type::INT,
            body,
            span: sp(),
            name_span: sp(),
        };
        Program {
            lang: Lang::Java,
            functions: vec![FunctionDef {
                name: "f".into(),
                arity: params as usize,
                span: sp(),
                name_span: sp(),
                body: Ok(f),
                synthetic: false,
                param_types: Vec::new(),
                owner: Vec::new(),
            }],
            globals: vec![],
            class_parents: Vec::new(),
            syntax_errors: Vec::new(),
            cache: Default::default(),
        }
    }
    fn check(old: &Program, new: &Program, semantics: Semantics) -> Verdict {
        let pair = MethodPair::new("f", old, FuncId(0), new, FuncId(0));
        let options = Options {
            semantics,
            checker: CheckerKind::Symbolic,
            loop_bound: 4,
            timeout_ms: 10_000,
            overrides: Vec::new(),
            ..Options::default()
        };
        SymbolicChecker { testing: true }
            .check(&pair, &options, Budget::from_now(options.timeout_ms))
            .verdict
    }
    fn ret(x: Expr) -> Stmt {
        st(StmtKind::Return(Some(x)))
    }

    #[test]
    fn commuted_addition_is_proved_under_both_semantics() {
        let old = program(2, 0, vec![ret(bin(BinOp::Add, local(0), local(1)))]);
        let new = program(2, 0, vec![ret(bin(BinOp::Add, local(1), local(0)))]);
        for sem in [Semantics::Math, Semantics::Machine] {
            assert_eq!(
                check(&old, &new, sem),
                Verdict::Equivalent(Proof {
                    bounded: None,
                    unrolled: None,
                    assumptions: vec![],
                    invariants: Vec::new(),
                    partial: false,
                    summaries: Vec::new(),
                })
            );
        }
    }

    #[test]
    fn division_guard_and_truncation() {
        // x / 2 * 2 + x % 2 == x for all x (truncating division).
        let q = bin(BinOp::Mul, bin(BinOp::Div, local(0), int(2)), int(2));
        let old = program(
            1,
            0,
            vec![ret(bin(BinOp::Add, q, bin(BinOp::Rem, local(0), int(2))))],
        );
        let new = program(1, 0, vec![ret(local(0))]);
        for sem in [Semantics::Math, Semantics::Machine] {
            assert!(check(&old, &new, sem).is_proved(), "{sem}");
        }
    }

    #[test]
    fn constant_loop_is_fully_unrolled_and_symbolic_loop_is_bounded() {
        // s = 0; i = 0; while (i < 10) { s = s + i; i = i + 1 } return s;  vs return 45
        let loop_of = |bound: Expr| {
            vec![
                st(StmtKind::Assign {
                    place: Place::Local(LocalId(1)),
                    value: int(0),
                }),
                st(StmtKind::Assign {
                    place: Place::Local(LocalId(2)),
                    value: int(0),
                }),
                st(StmtKind::Loop {
                    label: LabelId(0),
                    kind: LoopKind::While,
                    cond: bin(BinOp::Lt, local(2), bound),
                    body: vec![st(StmtKind::Assign {
                        place: Place::Local(LocalId(1)),
                        value: bin(BinOp::Add, local(1), local(2)),
                    })],
                    step: vec![st(StmtKind::Assign {
                        place: Place::Local(LocalId(2)),
                        value: bin(BinOp::Add, local(2), int(1)),
                    })],
                }),
                ret(local(1)),
            ]
        };
        let old = program(1, 2, loop_of(int(10)));
        let new = program(1, 2, vec![ret(int(45))]);
        assert!(check(&old, &new, Semantics::Math).is_proved());
        // Same loop to a symbolic bound against itself with the operands
        // swapped: equivalent, but only up to the bound.
        let old = program(1, 2, loop_of(local(0)));
        let mut swapped = loop_of(local(0));
        if let StmtKind::Loop { body, .. } = &mut swapped[2].kind {
            body[0] = st(StmtKind::Assign {
                place: Place::Local(LocalId(1)),
                value: bin(BinOp::Add, local(2), local(1)),
            });
        }
        let new = program(1, 2, swapped);
        match check(&old, &new, Semantics::Math) {
            Verdict::Equivalent(p) => assert_eq!(p.bounded, Some(4)),
            v => panic!("expected a bounded proof, got {v:?}"),
        }
    }
}
