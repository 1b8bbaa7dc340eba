//! Calls in the IR: what a function calls ([`callees`]) and questions about
//! a function together with everything it calls ([`Program::reaches`],
//! [`Program::uses_global`]).

use super::{ExprKind, FuncId, Function, Place, Program, Stmt, StmtKind, any_stmt};

impl Program {
    /// Whether `func`, or a function it calls (transitively), has a
    /// statement satisfying `pred`.
    pub fn reaches(&self, func: FuncId, pred: &mut dyn FnMut(&Stmt) -> bool) -> bool {
        let mut seen = vec![false; self.functions.len()];
        let mut stack = vec![func];
        while let Some(f) = stack.pop() {
            match seen.get_mut(f.0 as usize) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            let Ok(body) = &self.function(f).body else {
                continue;
            };
            let found = any_stmt(&body.body, &mut |s| {
                if let StmtKind::Call { func, .. } = &s.kind {
                    stack.push(*func);
                }
                pred(s)
            });
            if found {
                return true;
            }
        }
        false
    }

    /// Whether `func`, or a function it calls, reads or writes global
    /// `name`.
    pub fn uses_global(&self, func: FuncId, name: &str) -> bool {
        let Some(g) = self.find_global(name) else {
            return false;
        };
        self.reaches(func, &mut |s| {
            let mut found = match &s.kind {
                StmtKind::Assign { place, .. }
                | StmtKind::Call {
                    dest: Some(place), ..
                }
                | StmtKind::External {
                    dest: Some(place), ..
                } => *place == Place::Global(g),
                _ => false,
            };
            for e in s.exprs() {
                e.walk(&mut |x| found |= matches!(x.kind, ExprKind::Global(id) if id == g));
            }
            found
        })
    }
}

/// Every function `f` calls (iterative walk), with repetitions. Public so
/// that front layers can key cached verdicts on a method and what it calls.
pub fn callees(f: &Function) -> Vec<FuncId> {
    let mut out = Vec::new();
    let mut stack: Vec<&Stmt> = f.body.iter().collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Call { func, .. } => out.push(*func),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                stack.extend(then_branch);
                stack.extend(else_branch);
            }
            StmtKind::Loop { body, step, .. } => {
                stack.extend(body);
                stack.extend(step);
            }
            StmtKind::Labeled { body, .. } | StmtKind::Block(body) => stack.extend(body),
            StmtKind::Try { .. } => {
                for b in s.child_blocks() {
                    stack.extend(b);
                }
            }
            StmtKind::Assign { .. }
            | StmtKind::Print { .. }
            | StmtKind::Break(_)
            | StmtKind::Continue(_)
            | StmtKind::Return(_)
            | StmtKind::External { .. }
            | StmtKind::Throw(_) => {}
        }
    }
    out
}
