//! The part of two programs that one method check can reach.
//!
//! The whole-program analyses behind a check (which functions changed,
//! which are unchanged modulo renaming, the statement matcher's context)
//! cost time in proportion to the file, paid by every method's check. A check only ever looks at the pair's
//! callees, transitively, so those analyses run over a [`Scope`]: the
//! functions reachable from the pair in either version, closed under
//! calls and under pairing by name and arity. Because the analyses only
//! relate a function to its callees and to its same-named partner, their
//! answers for the functions in the scope are exactly the whole-program
//! answers.

use crate::ir::{FuncId, Program};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    old: Vec<bool>,
    new: Vec<bool>,
    /// The marked functions of each version, in id order: the analyses
    /// iterate over these, so that their cost is the scope's, not the
    /// file's.
    old_members: Vec<FuncId>,
    new_members: Vec<FuncId>,
}

impl Scope {
    /// Every function of both programs.
    pub fn whole(old: &Program, new: &Program) -> Scope {
        let all = |p: &Program| (0..p.functions.len() as u32).map(FuncId).collect();
        Scope {
            old: vec![true; old.functions.len()],
            new: vec![true; new.functions.len()],
            old_members: all(old),
            new_members: all(new),
        }
    }

    /// The functions reachable from `o` (in `old`) and `n` (in `new`).
    pub fn of_pair(old: &Program, new: &Program, o: FuncId, n: FuncId) -> Scope {
        let programs = [old, new];
        let mut scope = Scope {
            old: vec![false; old.functions.len()],
            new: vec![false; new.functions.len()],
            old_members: Vec::new(),
            new_members: Vec::new(),
        };
        // (version: 0 old, 1 new; function)
        let mut work = vec![(0usize, o), (1usize, n)];
        while let Some((v, f)) = work.pop() {
            let Some(def) = programs[v].functions.get(f.0 as usize) else {
                continue;
            };
            let (marks, members) = if v == 0 {
                (&mut scope.old, &mut scope.old_members)
            } else {
                (&mut scope.new, &mut scope.new_members)
            };
            if std::mem::replace(&mut marks[f.0 as usize], true) {
                continue;
            }
            members.push(f);
            if let Ok(body) = &def.body {
                work.extend(crate::ir::callees(body).into_iter().map(|c| (v, c)));
            }
            // Every function of either version under the same name and
            // arity: a key that is ambiguous stays ambiguous inside the
            // scope.
            for w in [0, 1] {
                work.extend(
                    programs[w]
                        .find(&def.name)
                        .filter(|(_, g)| g.arity == def.arity)
                        .map(|(g, _)| (w, g)),
                );
            }
        }
        scope.old_members.sort_unstable();
        scope.new_members.sort_unstable();
        scope
    }

    pub fn has_old(&self, f: FuncId) -> bool {
        self.old.get(f.0 as usize).copied().unwrap_or(false)
    }

    pub fn has_new(&self, f: FuncId) -> bool {
        self.new.get(f.0 as usize).copied().unwrap_or(false)
    }

    /// The old program's functions in the scope, in id order.
    pub fn old_members(&self) -> &[FuncId] {
        &self.old_members
    }

    /// The new program's functions in the scope, in id order.
    pub fn new_members(&self) -> &[FuncId] {
        &self.new_members
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;

    fn lower(src: &str) -> Program {
        crate::lang::lower(Lang::Java, src)
    }

    fn names(p: &Program, marks: impl Fn(FuncId) -> bool) -> Vec<String> {
        (0..p.functions.len() as u32)
            .map(FuncId)
            .filter(|&f| marks(f))
            .map(|f| p.function(f).name.clone())
            .collect()
    }

    #[test]
    fn callees_and_partners_in_either_version_are_in_scope() {
        let old = lower(
            "class A { static int f(int a) { return g(a); } static int g(int a) { return a; }
                       static int h(int a) { return a; } static int k(int a) { return a; } }",
        );
        // The new f calls h instead: h is reachable through the new version,
        // g through the old one; k is out of reach.
        let new = lower(
            "class A { static int f(int a) { return h(a); } static int g(int a) { return a; }
                       static int h(int a) { return a; } static int k(int a) { return a; } }",
        );
        let s = Scope::of_pair(&old, &new, FuncId(0), FuncId(0));
        assert_eq!(names(&old, |f| s.has_old(f)), ["f", "g", "h"]);
        assert_eq!(names(&new, |f| s.has_new(f)), ["f", "g", "h"]);
        let w = Scope::whole(&old, &new);
        assert!(w.has_old(FuncId(3)) && w.has_new(FuncId(3)));
        assert!(!w.has_new(FuncId(9)));
    }

    /// The scoped analyses agree with the whole-program ones on the scope.
    #[test]
    fn scoped_analyses_agree_with_whole_program_ones() {
        let src = "class A {
            static int f(int a) { return g(a) + 1; }
            static int g(int a) { return a * 2; }
            static int p(int a) { return q(a); }
            static int q(int a) { return a; }
        }";
        let old = lower(src);
        let new = lower(
            &src.replace("a * 2", "a + a")
                .replace("return a; }", "return a + 0; }"),
        );
        let scope = Scope::of_pair(&old, &new, FuncId(0), FuncId(0));
        let whole = crate::diff::changed_functions(&old, &new);
        let part = crate::diff::changed_functions_in(&old, &new, &scope);
        for i in 0..old.functions.len() as u32 {
            if scope.has_old(FuncId(i)) {
                assert_eq!(
                    whole.is_old_changed(FuncId(i)),
                    part.is_old_changed(FuncId(i))
                );
            }
        }
        let u = crate::abstraction::canonical::Unchanged::compute(&old, &new);
        let v = crate::abstraction::canonical::Unchanged::compute_in(&old, &new, &scope);
        for i in 0..old.functions.len() as u32 {
            if scope.has_old(FuncId(i)) {
                assert_eq!(u.partner(FuncId(i)), v.partner(FuncId(i)));
            }
        }
    }
}
