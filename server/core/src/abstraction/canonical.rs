//! Exact equality of code in the two versions, modulo a consistent renaming
//! of locals and labels: the soundness gate for sharing an uninterpreted
//! function between them.
//!
//! The GumTree matcher ([`crate::diff`]) says which statements *correspond*;
//! it is a similarity search and may pair statements that differ. Before a
//! run of statements is abstracted by the same function symbol in both
//! versions, this module checks that the two runs compute the same function
//! of their inputs: same shape, operators, literals and types; locals in a
//! one-to-one correspondence; globals the same by name (constants by value);
//! callees the same by name and themselves unchanged.

use crate::ir::{
    Expr, ExprKind, FuncId, Function, GlobalId, LabelId, LocalId, Place, Program, Stmt, StmtKind,
};
use crate::scope::Scope;
use rustc_hash::{FxHashMap, FxHashSet};

/// Functions (by index in the old program) whose old and new versions are
/// equal modulo renaming, and whose callees are too.
#[derive(Clone, Debug, Default)]
pub struct Unchanged {
    /// Old function → its new counterpart.
    pairs: FxHashMap<FuncId, FuncId>,
}

impl Unchanged {
    /// The new counterpart of an unchanged old function.
    pub fn partner(&self, old: FuncId) -> Option<FuncId> {
        self.pairs.get(&old).copied()
    }

    /// Greatest fixpoint: start from every pair with the same classes,
    /// name and arity (the only one such in each version) and a body in
    /// both versions, drop pairs whose bodies differ
    /// (callees judged by the current set) until nothing changes. Identical
    /// mutually recursive functions stay unchanged, as they should: equal
    /// bodies over equal callees have equal meanings.
    pub fn compute(old: &Program, new: &Program) -> Unchanged {
        Unchanged::compute_in(old, new, &Scope::whole(old, new))
    }

    /// [`Unchanged::compute`] for the functions in `scope`.
    pub fn compute_in(old: &Program, new: &Program, scope: &Scope) -> Unchanged {
        let mut pairs = FxHashMap::default();
        for &i in scope.old_members() {
            let d = old.function(i);
            if d.body.is_err() {
                continue;
            }
            let mut same = new.find(&d.name).filter(|(j, n)| {
                n.arity == d.arity && n.owner == d.owner && n.body.is_ok() && scope.has_new(*j)
            });
            if let (Some((j, _)), None) = (same.next(), same.next()) {
                pairs.insert(i, j);
            }
        }
        let mut unchanged = Unchanged { pairs };
        loop {
            let drop: Vec<FuncId> = unchanged
                .pairs
                .iter()
                .filter(|&(&o, &n)| {
                    let (Ok(fo), Ok(fnew)) = (&old.function(o).body, &new.function(n).body) else {
                        return true;
                    };
                    !Canon::new(old, fo, new, fnew, &unchanged).function_equal()
                })
                .map(|(&o, _)| o)
                .collect();
            if drop.is_empty() {
                return unchanged;
            }
            for o in drop {
                unchanged.pairs.remove(&o);
            }
        }
    }
}

/// An in-progress comparison: the correspondences found so far.
#[derive(Clone)]
pub struct Canon<'a> {
    old_prog: &'a Program,
    old_fn: &'a Function,
    new_prog: &'a Program,
    new_fn: &'a Function,
    unchanged: &'a Unchanged,
    locals: FxHashMap<LocalId, LocalId>,
    locals_back: FxHashMap<LocalId, LocalId>,
    labels: FxHashMap<LabelId, LabelId>,
    labels_back: FxHashMap<LabelId, LabelId>,
    /// Every correspondence added, in order, so that [`Canon::try_stmts`]
    /// can take back those of a failed comparison. Each local and label
    /// is added at most once, so it holds at most that many entries.
    journal: Vec<Added>,
}

/// One correspondence recorded in [`Canon`]'s journal (old, new).
#[derive(Clone, Copy)]
enum Added {
    Local(LocalId, LocalId),
    Label(LabelId, LabelId),
}

impl<'a> Canon<'a> {
    pub fn new(
        old_prog: &'a Program,
        old_fn: &'a Function,
        new_prog: &'a Program,
        new_fn: &'a Function,
        unchanged: &'a Unchanged,
    ) -> Self {
        Canon {
            old_prog,
            old_fn,
            new_prog,
            new_fn,
            unchanged,
            locals: FxHashMap::default(),
            locals_back: FxHashMap::default(),
            labels: FxHashMap::default(),
            labels_back: FxHashMap::default(),
            journal: Vec::new(),
        }
    }

    /// The new local an old local corresponds to.
    pub fn new_local(&self, old: LocalId) -> Option<LocalId> {
        self.locals.get(&old).copied()
    }

    /// The old local a new local corresponds to.
    pub fn old_local(&self, new: LocalId) -> Option<LocalId> {
        self.locals_back.get(&new).copied()
    }

    /// Whole functions: same signature, parameters by position, bodies equal.
    fn function_equal(mut self) -> bool {
        let (o, n) = (self.old_fn, self.new_fn);
        if o.ret != n.ret || o.params.len() != n.params.len() {
            return false;
        }
        for (&a, &b) in o.params.iter().zip(&n.params) {
            if !self.local(a, b) {
                return false;
            }
        }
        self.stmts(&o.body, &n.body)
    }

    /// Compares two statement runs, extending the correspondences. On
    /// `false` the correspondences are unspecified: compare on a clone when
    /// the caller wants to go on.
    pub fn stmts(&mut self, a: &[Stmt], b: &[Stmt]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| self.stmt(x, y))
    }

    /// [`Canon::stmts`], except that on `false` the correspondences are
    /// those from before the call: a run can be extended statement by
    /// statement without copying what it has found so far (the cost is
    /// the compared statements', not the run's).
    pub fn try_stmts(&mut self, a: &[Stmt], b: &[Stmt]) -> bool {
        let mark = self.journal.len();
        if self.stmts(a, b) {
            return true;
        }
        for added in self.journal.drain(mark..) {
            match added {
                Added::Local(o, n) => {
                    self.locals.remove(&o);
                    self.locals_back.remove(&n);
                }
                Added::Label(o, n) => {
                    self.labels.remove(&o);
                    self.labels_back.remove(&n);
                }
            }
        }
        false
    }

    fn stmt(&mut self, a: &Stmt, b: &Stmt) -> bool {
        use StmtKind as K;
        match (&a.kind, &b.kind) {
            (K::Assign { place: p, value: v }, K::Assign { place: q, value: w }) => {
                self.place(p, q) && self.expr(v, w)
            }
            (
                K::Call {
                    dest: d1,
                    func: f1,
                    args: a1,
                },
                K::Call {
                    dest: d2,
                    func: f2,
                    args: a2,
                },
            ) => {
                self.dest(d1, d2)
                    && self.unchanged.partner(*f1) == Some(*f2)
                    && a1.len() == a2.len()
                    && a1.iter().zip(a2).all(|(x, y)| self.expr(x, y))
            }
            (
                K::External {
                    dest: d1,
                    callee: c1,
                    args: a1,
                    ret: r1,
                },
                K::External {
                    dest: d2,
                    callee: c2,
                    args: a2,
                    ret: r2,
                },
            ) => {
                // The same callee (by its full name) on equal arguments:
                // whatever it does, it does in both versions.
                self.dest(d1, d2)
                    && c1 == c2
                    && r1 == r2
                    && a1.len() == a2.len()
                    && a1.iter().zip(a2).all(|(x, y)| self.expr(x, y))
            }
            (K::Throw(t1), K::Throw(t2)) => t1 == t2,
            (K::Print { kind: k1, args: a1 }, K::Print { kind: k2, args: a2 }) => {
                k1 == k2 && a1.len() == a2.len() && a1.iter().zip(a2).all(|(x, y)| self.expr(x, y))
            }
            (
                K::If {
                    cond: c1,
                    then_branch: t1,
                    else_branch: e1,
                },
                K::If {
                    cond: c2,
                    then_branch: t2,
                    else_branch: e2,
                },
            ) => self.expr(c1, c2) && self.stmts(t1, t2) && self.stmts(e1, e2),
            (
                K::Loop {
                    label: l1,
                    kind: k1,
                    cond: c1,
                    body: b1,
                    step: s1,
                },
                K::Loop {
                    label: l2,
                    kind: k2,
                    cond: c2,
                    body: b2,
                    step: s2,
                },
            ) => {
                k1 == k2
                    && self.label(*l1, *l2)
                    && self.expr(c1, c2)
                    && self.stmts(b1, b2)
                    && self.stmts(s1, s2)
            }
            (
                K::Labeled {
                    label: l1,
                    body: b1,
                },
                K::Labeled {
                    label: l2,
                    body: b2,
                },
            ) => self.label(*l1, *l2) && self.stmts(b1, b2),
            (K::Break(l1), K::Break(l2)) | (K::Continue(l1), K::Continue(l2)) => {
                self.label(*l1, *l2)
            }
            (K::Return(x), K::Return(y)) => match (x, y) {
                (Some(x), Some(y)) => self.expr(x, y),
                (None, None) => true,
                _ => false,
            },
            (K::Block(x), K::Block(y)) => self.stmts(x, y),
            _ => false,
        }
    }

    /// Where two calls put their results: both nowhere, or equal places.
    fn dest(&mut self, a: &Option<Place>, b: &Option<Place>) -> bool {
        match (a, b) {
            (Some(p), Some(q)) => self.place(p, q),
            (None, None) => true,
            _ => false,
        }
    }

    fn place(&mut self, a: &Place, b: &Place) -> bool {
        match (a, b) {
            (Place::Local(x), Place::Local(y)) => self.local(*x, *y),
            (Place::Global(x), Place::Global(y)) => self.global(*x, *y),
            (
                Place::Index {
                    array: a1,
                    index: i1,
                },
                Place::Index {
                    array: a2,
                    index: i2,
                },
            ) => self.expr(a1, a2) && self.expr(i1, i2),
            _ => false,
        }
    }

    fn local(&mut self, a: LocalId, b: LocalId) -> bool {
        let (Some(la), Some(lb)) = (
            self.old_fn.locals.get(a.0 as usize),
            self.new_fn.locals.get(b.0 as usize),
        ) else {
            return false;
        };
        if la.ty != lb.ty {
            return false;
        }
        match (self.locals.get(&a), self.locals_back.get(&b)) {
            (Some(&x), Some(&y)) => x == b && y == a,
            (None, None) => {
                self.locals.insert(a, b);
                self.locals_back.insert(b, a);
                self.journal.push(Added::Local(a, b));
                true
            }
            _ => false,
        }
    }

    fn label(&mut self, a: LabelId, b: LabelId) -> bool {
        match (self.labels.get(&a), self.labels_back.get(&b)) {
            (Some(&x), Some(&y)) => x == b && y == a,
            (None, None) => {
                self.labels.insert(a, b);
                self.labels_back.insert(b, a);
                self.journal.push(Added::Label(a, b));
                true
            }
            _ => false,
        }
    }

    fn global(&self, a: GlobalId, b: GlobalId) -> bool {
        same_global(
            self.old_prog,
            a,
            self.new_prog,
            b,
            &mut FxHashSet::default(),
        )
    }

    fn expr(&mut self, a: &Expr, b: &Expr) -> bool {
        if a.ty != b.ty {
            return false;
        }
        use ExprKind as E;
        match (&a.kind, &b.kind) {
            (E::IntLit(x), E::IntLit(y)) => x == y,
            // Same value and same text: under math semantics the text is
            // the value.
            (E::FloatLit(x), E::FloatLit(y)) => {
                x.value.to_bits() == y.value.to_bits() && x.text == y.text
            }
            (E::BoolLit(x), E::BoolLit(y)) => x == y,
            (E::StrLit(x), E::StrLit(y)) => x == y,
            (E::Local(x), E::Local(y)) => self.local(*x, *y),
            (E::Global(x), E::Global(y)) => self.global(*x, *y),
            (E::Unary(o1, x), E::Unary(o2, y)) => o1 == o2 && self.expr(x, y),
            (E::Binary(o1, x1, y1), E::Binary(o2, x2, y2)) => {
                o1 == o2 && self.expr(x1, x2) && self.expr(y1, y2)
            }
            (E::Cond(c1, x1, y1), E::Cond(c2, x2, y2)) => {
                self.expr(c1, c2) && self.expr(x1, x2) && self.expr(y1, y2)
            }
            (E::Cast(x), E::Cast(y)) | (E::Length(x), E::Length(y)) => self.expr(x, y),
            (E::NewArray(x), E::NewArray(y)) => self.expr(x, y),
            (E::Index(a1, i1), E::Index(a2, i2)) => self.expr(a1, a2) && self.expr(i1, i2),
            (E::ArrayLit(x), E::ArrayLit(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| self.expr(p, q))
            }
            (E::Intrinsic(f1, x), E::Intrinsic(f2, y)) => {
                f1 == f2 && x.len() == y.len() && x.iter().zip(y).all(|(p, q)| self.expr(p, q))
            }
            _ => false,
        }
    }
}

/// Globals are the same when they have the same name, type and declared
/// length and, for constants, structurally equal initialisers (a
/// constant's initialiser refers only to literals and other globals).
fn same_global(
    old: &Program,
    a: GlobalId,
    new: &Program,
    b: GlobalId,
    visiting: &mut FxHashSet<(GlobalId, GlobalId)>,
) -> bool {
    let (ga, gb) = (old.global(a), new.global(b));
    if ga.name != gb.name || ga.ty != gb.ty || ga.declared_len != gb.declared_len {
        return false;
    }
    match (&ga.constant, &gb.constant) {
        (None, None) => true,
        (Some(x), Some(y)) => {
            if !visiting.insert((a, b)) {
                return true;
            }
            const_expr_equal(old, x, new, y, visiting)
        }
        _ => false,
    }
}

fn const_expr_equal(
    old: &Program,
    a: &Expr,
    new: &Program,
    b: &Expr,
    visiting: &mut FxHashSet<(GlobalId, GlobalId)>,
) -> bool {
    if a.ty != b.ty {
        return false;
    }
    use ExprKind as E;
    let mut both = |x: &Expr, y: &Expr| const_expr_equal(old, x, new, y, visiting);
    match (&a.kind, &b.kind) {
        (E::IntLit(x), E::IntLit(y)) => x == y,
        (E::FloatLit(x), E::FloatLit(y)) => {
            x.value.to_bits() == y.value.to_bits() && x.text == y.text
        }
        (E::BoolLit(x), E::BoolLit(y)) => x == y,
        (E::Global(x), E::Global(y)) => same_global(old, *x, new, *y, visiting),
        (E::Unary(o1, x), E::Unary(o2, y)) => o1 == o2 && both(x, y),
        (E::Binary(o1, x1, y1), E::Binary(o2, x2, y2)) => o1 == o2 && both(x1, x2) && both(y1, y2),
        (E::Cond(c1, x1, y1), E::Cond(c2, x2, y2)) => both(c1, c2) && both(x1, x2) && both(y1, y2),
        (E::Cast(x), E::Cast(y)) | (E::NewArray(x), E::NewArray(y)) => both(x, y),
        (E::ArrayLit(x), E::ArrayLit(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| both(p, q))
        }
        (E::Intrinsic(f1, x), E::Intrinsic(f2, y)) => {
            f1 == f2 && x.len() == y.len() && x.iter().zip(y).all(|(p, q)| both(p, q))
        }
        // Locals cannot appear in constant initialisers.
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;
    use crate::lang::lower;

    fn unchanged(old: &str, new: &str) -> Vec<String> {
        let (o, n) = (lower(Lang::Java, old), lower(Lang::Java, new));
        let u = Unchanged::compute(&o, &n);
        let mut names: Vec<String> = o
            .functions
            .iter()
            .enumerate()
            .filter(|(i, _)| u.partner(FuncId(*i as u32)).is_some())
            .map(|(_, f)| f.name.clone())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn renamed_locals_and_reformatting_are_unchanged() {
        let old = "class T { static int f(int a) { int s = 0; for (int i = 0; i < a; i++) { s += i; } return s; } }";
        let new = "class T {
            static int f(int n) {
                int acc = 0;
                for (int k = 0; k < n; k++) {
                    acc += k;   // same loop
                }
                return acc;
            }
        }";
        assert_eq!(unchanged(old, new), vec!["f"]);
    }

    #[test]
    fn an_inconsistent_renaming_is_a_change() {
        // x and y swap roles: not a renaming.
        let old = "class T { static int f(int a, int b) { int x = a; int y = b; return x; } }";
        let new = "class T { static int f(int a, int b) { int y = a; int x = b; return x; } }";
        assert!(unchanged(old, new).is_empty());
    }

    #[test]
    fn changes_propagate_to_callers_and_constants_count() {
        let old = "class T { static final int N = 5;
            static int g(int a) { return a + N; }
            static int h(int a) { return a * 2; }
            static int f(int a) { return g(a) + h(a); } }";
        let new = "class T { static final int N = 6;
            static int g(int a) { return a + N; }
            static int h(int a) { return a * 2; }
            static int f(int a) { return g(a) + h(a); } }";
        assert_eq!(unchanged(old, new), vec!["h"]);
    }

    #[test]
    fn operator_changes_are_changes() {
        let old = "class T { static int f(int a) { return a * 2; } }";
        let new = "class T { static int f(int a) { return a << 1; } }";
        assert!(unchanged(old, new).is_empty());
    }

    #[test]
    fn calls_outside_the_files_and_throws_compare_by_callee_and_class() {
        let old = "import com.acme.Audit; class T {
            static int f(int a) { if (a < 0) throw new IllegalArgumentException(); Audit.record(a); return a; }
            static int g(int a) { Audit.record(a); return a; }
            static int h(int a) { if (a < 0) throw new IllegalArgumentException(); return a; } }";
        let new = "import com.acme.Audit; class T {
            static int f(int b) { if (b < 0) throw new IllegalArgumentException(\"neg\"); Audit.record(b); return b; }
            static int g(int a) { Audit.log(a); return a; }
            static int h(int a) { if (a < 0) throw new IllegalStateException(); return a; } }";
        // Messages are not compared (docs/semantics.md); callee and class are.
        assert_eq!(unchanged(old, new), vec!["f"]);
    }

    #[test]
    fn identical_mutual_recursion_is_unchanged() {
        let src = "class T {
            static boolean even(int n) { if (n == 0) return true; return odd(n - 1); }
            static boolean odd(int n) { if (n == 0) return false; return even(n - 1); } }";
        assert_eq!(unchanged(src, src), vec!["even", "odd"]);
    }
}
