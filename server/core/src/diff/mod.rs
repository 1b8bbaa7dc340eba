//! Statement-level differencing of two versions of a function, groundwork
//! for ARDiff-style checking (abstract what is common, focus the solver on
//! what changed).
//!
//! The IR body of each version becomes a neutral tree ([`tree`]), the two
//! trees are matched GumTree-style ([`matcher`]), and the node mapping is
//! summarised per statement. Working on the IR (not on tree-sitter trees)
//! makes this language-neutral and blind to formatting and comments.
//!
//! # What "common" means
//! Tree hashes ignore which local a leaf names, so matching sees through
//! renamings. After matching, one bijection between the old and the new
//! locals is chosen for the whole function ([`StatementDiff::locals`]:
//! parameters by position, other locals by majority vote of the matched local
//! leaves, each new local used at most once). A statement is
//! [`StmtStatus::Common`] only when its subtree is isomorphic to its
//! partner's, every local leaf in it corresponds to its partner's leaf under
//! that bijection, and nothing in it is tainted (a call to a function that
//! changed, see [`changed_functions`], or a global/callee that cannot be
//! resolved). So a common statement, run on states related by the bijection,
//! leaves states related by the bijection: it can be abstracted.
//!
//! # Order of the entries
//! [`StatementDiff::old`] and [`StatementDiff::new`] list statements in IR
//! preorder: a statement, then the statements nested in it in order (`If`:
//! then-branch, then else-branch; `Loop`: body, then step; `Labeled`: body;
//! `Block`: children). Code that walks the IR the same way can zip its
//! statements with the entries; [`StmtEntry::partner_index`] indexes the
//! other list.

pub mod matcher;
pub mod tree;

pub use crate::ir::callees;
use crate::ir::{FuncId, Function, LocalId, LocalKind, Program, Span};
use crate::scope::Scope;
use matcher::{Mapping, longest_increasing, match_trees};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Instant;
use tree::{Names, NodeId, Tree};

/// Whether a statement's whole subtree is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StmtStatus {
    /// Matched to a statement of the other version with an identical subtree
    /// up to the function's local bijection, calling no changed function
    /// (possibly at another place: see `moved`).
    Common,
    /// Unmatched (inserted/deleted), or matched to a statement whose subtree
    /// differs somewhere (for a compound statement, possibly only in a nested
    /// statement), renames a local inconsistently, or calls a changed function.
    Changed,
}

/// One statement of one version.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StmtEntry {
    pub span: Span,
    /// Statement kind (`Assign`, `If`, `Loop(While)`, ...).
    pub kind: String,
    pub status: StmtStatus,
    /// Span of the matched statement in the other version.
    pub partner: Option<Span>,
    /// Index of the matched statement in the other version's entry list.
    pub partner_index: Option<usize>,
    /// Matched, but under a different parent or out of order among its
    /// matched siblings.
    pub moved: bool,
}

/// A matched pair of statements: `(old, new)` spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpanPair {
    pub old: Span,
    pub new: Span,
}

/// The edit script, at statement granularity.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EditSummary {
    /// New statements without an old partner.
    pub inserted: Vec<Span>,
    /// Old statements without a new partner.
    pub deleted: Vec<Span>,
    /// Matched statements whose own content (nested statements excluded)
    /// differs: an edit inside an `if` body updates the inner statement only.
    /// Own content includes which locals it uses (under the bijection) and
    /// the callee's meaning: a call to a changed function is updated even
    /// when its text is not.
    pub updated: Vec<SpanPair>,
    /// Matched statements under a different parent, or out of order relative
    /// to their matched siblings (an insertion before a statement does not
    /// move it).
    pub moved: Vec<SpanPair>,
}

/// Result of [`diff_functions_in`]; statements are listed in IR preorder (see
/// the module doc).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatementDiff {
    pub old: Vec<StmtEntry>,
    pub new: Vec<StmtEntry>,
    pub edits: EditSummary,
    /// The bijection between old and new locals that common statements agree
    /// with, sorted by old local. Locals absent here (inserted, deleted, or
    /// outvoted) make every statement that uses them changed.
    pub locals: Vec<(LocalId, LocalId)>,
}

impl StatementDiff {
    /// True when no statement changed or moved.
    pub fn is_unchanged(&self) -> bool {
        self.old
            .iter()
            .chain(&self.new)
            .all(|e| e.status == StmtStatus::Common && !e.moved)
    }
}

/// What [`diff_functions_in`] needs to know about the two programs: how to
/// name callees and globals across versions, and which callees changed.
/// Built once per program pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffContext {
    old: Names,
    new: Names,
}

impl DiffContext {
    /// Callees and globals resolved by name; calls to functions that
    /// `changed` reports as changed are never common.
    pub fn new(old: &Program, new: &Program, changed: &ChangedFunctions) -> DiffContext {
        DiffContext {
            old: Names::of_program(old, |f| changed.is_old_changed(f)),
            new: Names::of_program(new, |f| changed.is_new_changed(f)),
        }
    }

    /// [`changed_functions`] and [`DiffContext::new`] in one step.
    pub fn for_programs(old: &Program, new: &Program) -> DiffContext {
        DiffContext::new(old, new, &changed_functions(old, new))
    }

    /// [`DiffContext::for_programs`] for diffing functions of `scope`.
    pub fn for_scope(old: &Program, new: &Program, scope: &Scope) -> DiffContext {
        // Without a deadline it always answers.
        DiffContext::for_scope_until(old, new, scope, None).unwrap_or_default()
    }

    /// [`DiffContext::for_scope`], or `None` once `deadline` has passed
    /// (tested between the functions diffed).
    pub fn for_scope_until(
        old: &Program,
        new: &Program,
        scope: &Scope,
        deadline: Option<Instant>,
    ) -> Option<DiffContext> {
        let changed = changed_functions_until(old, new, scope, deadline)?;
        Some(DiffContext {
            old: Names::of_functions(old, scope.old_members(), |f| changed.is_old_changed(f)),
            new: Names::of_functions(new, scope.new_members(), |f| changed.is_new_changed(f)),
        })
    }

    /// No program known: every call and every global use is treated as
    /// possibly different (never common), since ids mean nothing across
    /// programs.
    pub fn opaque() -> DiffContext {
        DiffContext::default()
    }
}

/// Diffs two function bodies without program context (see
/// [`DiffContext::opaque`]): statements that call functions or use globals
/// are never common. Use [`diff_functions_in`] when the programs are known.
pub fn diff_functions(old: &Function, new: &Function) -> StatementDiff {
    diff_functions_in(&DiffContext::opaque(), old, new)
}

/// Diffs the function named `name` with `arity` parameters in two programs,
/// computing the changed functions first. `None` when either version lacks it
/// or could not lower it. A convenience for one-off use and tests; callers
/// that diff several functions should build one [`DiffContext`].
pub fn diff_named(old: &Program, new: &Program, name: &str, arity: usize) -> Option<StatementDiff> {
    let body = |p: &'_ Program| -> Option<Function> {
        p.functions
            .iter()
            .find(|f| f.name == name && f.arity == arity)
            .and_then(|f| f.body.as_ref().ok().cloned())
    };
    let (f_old, f_new) = (body(old)?, body(new)?);
    Some(diff_functions_in(
        &DiffContext::for_programs(old, new),
        &f_old,
        &f_new,
    ))
}

/// Diffs the bodies of two versions of a function.
pub fn diff_functions_in(cx: &DiffContext, old: &Function, new: &Function) -> StatementDiff {
    let t1 = Tree::with_names(old, &cx.old);
    let t2 = Tree::with_names(new, &cx.new);
    let m = match_trees(&t1, &t2);
    let moved = moved_nodes(&t1, &t2, &m);
    let bij = local_bijection(old, new, &t1, &t2, &m);
    let (taint1, taint2) = (taint_prefix(&t1), taint_prefix(&t2));
    let index1 = entry_indices(&t1);
    let index2 = entry_indices(&t2);
    let mut edits = EditSummary::default();
    // Status of each matched old statement, reused for its new partner.
    let mut common_old = vec![false; t1.len()];
    let mut old_entries = Vec::new();
    for (a, n) in t1.nodes.iter().enumerate().filter(|(_, n)| n.is_stmt) {
        let partner = m.new_of(a).filter(|&b| t2.nodes[b].is_stmt);
        let mut entry = StmtEntry {
            span: n.span,
            kind: n.label.clone(),
            status: StmtStatus::Changed,
            partner: None,
            partner_index: None,
            moved: false,
        };
        match partner {
            None => edits.deleted.push(n.span),
            Some(b) => {
                let nb = &t2.nodes[b];
                let pair = SpanPair {
                    old: n.span,
                    new: nb.span,
                };
                entry.partner = Some(nb.span);
                entry.partner_index = index2[b];
                let untainted = !tainted(&t1, &taint1, a) && !tainted(&t2, &taint2, b);
                if untainted && t1.isomorphic(a, &t2, b) && deep_locals_agree(&t1, a, &t2, b, &bij)
                {
                    entry.status = StmtStatus::Common;
                    common_old[a] = true;
                }
                if n.shallow_hash != nb.shallow_hash
                    || n.label != nb.label
                    || !own_locals_agree(&t1, a, &t2, b, &bij)
                    || own_tainted(&t1, a)
                    || own_tainted(&t2, b)
                {
                    edits.updated.push(pair);
                }
                if moved.contains(&a) {
                    entry.moved = true;
                    edits.moved.push(pair);
                }
            }
        }
        old_entries.push(entry);
    }
    let mut new_entries = Vec::new();
    for (b, n) in t2.nodes.iter().enumerate().filter(|(_, n)| n.is_stmt) {
        let partner = m.old_of(b).filter(|&a| t1.nodes[a].is_stmt);
        let entry = match partner {
            None => {
                edits.inserted.push(n.span);
                StmtEntry {
                    span: n.span,
                    kind: n.label.clone(),
                    status: StmtStatus::Changed,
                    partner: None,
                    partner_index: None,
                    moved: false,
                }
            }
            Some(a) => StmtEntry {
                span: n.span,
                kind: n.label.clone(),
                status: if common_old[a] {
                    StmtStatus::Common
                } else {
                    StmtStatus::Changed
                },
                partner: Some(t1.nodes[a].span),
                partner_index: index1[a],
                moved: moved.contains(&a),
            },
        };
        new_entries.push(entry);
    }
    let locals = bij
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.map(|b| (LocalId(i as u32), b)))
        .collect();
    StatementDiff {
        old: old_entries,
        new: new_entries,
        edits,
        locals,
    }
}

/// For each node, its index in the entry list when it is a statement.
fn entry_indices(t: &Tree) -> Vec<Option<usize>> {
    let mut next = 0;
    t.nodes
        .iter()
        .map(|n| {
            n.is_stmt.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// `p[i]` = number of tainted nodes among the first `i`: the subtree test is
/// then O(1), as subtrees are preorder ranges.
fn taint_prefix(t: &Tree) -> Vec<u32> {
    let mut p = Vec::with_capacity(t.len() + 1);
    let mut acc = 0u32;
    p.push(0);
    for n in &t.nodes {
        acc += u32::from(n.tainted);
        p.push(acc);
    }
    p
}

fn tainted(t: &Tree, prefix: &[u32], a: NodeId) -> bool {
    let r = t.subtree(a);
    prefix.get(r.end).copied().unwrap_or(u32::MAX) > prefix.get(r.start).copied().unwrap_or(0)
}

/// Nodes of statement `a` itself: its subtree minus nested statements.
fn own_nodes(t: &Tree, a: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    let end = t.subtree(a).end;
    let mut i = a;
    std::iter::from_fn(move || {
        if i >= end {
            return None;
        }
        let cur = i;
        i += if cur != a && t.nodes[cur].is_stmt {
            t.nodes[cur].size as usize
        } else {
            1
        };
        Some(cur)
    })
    .filter(move |&n| n == a || !t.nodes[n].is_stmt)
}

fn own_tainted(t: &Tree, a: NodeId) -> bool {
    own_nodes(t, a).any(|n| t.nodes[n].tainted)
}

/// Does local leaf `x` (old) correspond to local leaf `y` (new) under `bij`?
fn agrees(bij: &[Option<LocalId>], x: Option<LocalId>, y: Option<LocalId>) -> bool {
    match (x, y) {
        (None, None) => true,
        (Some(x), Some(y)) => bij.get(x.0 as usize).copied().flatten() == Some(y),
        _ => false,
    }
}

/// Every local leaf of the (isomorphic) subtrees `a`, `b` agrees with `bij`.
fn deep_locals_agree(t1: &Tree, a: NodeId, t2: &Tree, b: NodeId, bij: &[Option<LocalId>]) -> bool {
    t1.subtree(a)
        .zip(t2.subtree(b))
        .all(|(x, y)| agrees(bij, t1.nodes[x].local, t2.nodes[y].local))
}

/// The statements' own local leaves (nested statements excluded), in order,
/// agree with `bij`. Different counts disagree.
fn own_locals_agree(t1: &Tree, a: NodeId, t2: &Tree, b: NodeId, bij: &[Option<LocalId>]) -> bool {
    let xs: Vec<_> = own_nodes(t1, a).filter_map(|n| t1.nodes[n].local).collect();
    let ys: Vec<_> = own_nodes(t2, b).filter_map(|n| t2.nodes[n].local).collect();
    xs.len() == ys.len()
        && xs
            .iter()
            .zip(&ys)
            .all(|(&x, &y)| agrees(bij, Some(x), Some(y)))
}

/// The function-wide local bijection, indexed by old local. Parameters pair
/// by position (they are the interface). Other locals: every matched pair of
/// local leaves with equal value (same kind and type) is a vote; votes are
/// taken greedily, most votes first (ties: same source name, then lowest
/// ids), each old and each new local used at most once.
fn local_bijection(
    old: &Function,
    new: &Function,
    t1: &Tree,
    t2: &Tree,
    m: &Mapping,
) -> Vec<Option<LocalId>> {
    let mut bij: Vec<Option<LocalId>> = vec![None; old.locals.len()];
    let mut used = vec![false; new.locals.len()];
    for (&p, &q) in old.params.iter().zip(&new.params) {
        let (pi, qi) = (p.0 as usize, q.0 as usize);
        if pi < bij.len() && qi < used.len() && bij[pi].is_none() && !used[qi] {
            bij[pi] = Some(q);
            used[qi] = true;
        }
    }
    let is_param = |f: &Function, l: LocalId| {
        f.locals
            .get(l.0 as usize)
            .is_none_or(|l| l.kind == LocalKind::Param)
    };
    let mut votes: FxHashMap<(LocalId, LocalId), u32> = FxHashMap::default();
    for (a, b) in m.pairs() {
        let (na, nb) = (&t1.nodes[a], &t2.nodes[b]);
        if let (Some(x), Some(y)) = (na.local, nb.local)
            && na.value == nb.value
            && !is_param(old, x)
            && !is_param(new, y)
        {
            *votes.entry((x, y)).or_default() += 1;
        }
    }
    let same_name = |x: LocalId, y: LocalId| {
        old.locals.get(x.0 as usize).map(|l| &l.name)
            == new.locals.get(y.0 as usize).map(|l| &l.name)
    };
    let mut votes: Vec<((LocalId, LocalId), u32)> = votes.into_iter().collect();
    votes.sort_by(|((x1, y1), c1), ((x2, y2), c2)| {
        c2.cmp(c1)
            .then(same_name(*x2, *y2).cmp(&same_name(*x1, *y1)))
            .then((x1, y1).cmp(&(x2, y2)))
    });
    for ((x, y), _) in votes {
        let (xi, yi) = (x.0 as usize, y.0 as usize);
        if xi < bij.len() && yi < used.len() && bij[xi].is_none() && !used[yi] {
            bij[xi] = Some(y);
            used[yi] = true;
        }
    }
    bij
}

/// Which functions changed between two programs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ChangedFunctions {
    /// Old functions paired and unchanged; every other is changed.
    old_unchanged: BTreeSet<FuncId>,
    /// New functions paired and unchanged.
    new_unchanged: BTreeSet<FuncId>,
    pairs: Vec<FunctionPair>,
}

/// Two versions of one function, paired by name and arity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionPair {
    pub old: FuncId,
    pub new: FuncId,
    pub changed: bool,
}

impl ChangedFunctions {
    /// True for a changed or unpaired old function (and for an unknown id).
    pub fn is_old_changed(&self, f: FuncId) -> bool {
        !self.old_unchanged.contains(&f)
    }

    /// True for a changed or unpaired new function (and for an unknown id).
    pub fn is_new_changed(&self, f: FuncId) -> bool {
        !self.new_unchanged.contains(&f)
    }

    /// The paired functions, in old order.
    pub fn pairs(&self) -> &[FunctionPair] {
        &self.pairs
    }
}

/// Which functions changed. Functions pair by enclosing classes, name and arity (one that occurs twice in one program pairs with nothing). A pair is
/// arity that occurs twice in one program pairs with nothing). A pair is
/// unchanged when both versions lowered, have the same signature, their
/// bodies diff as all-common and unmoved, and every callee is unchanged; this
/// is the greatest fixpoint, so identical (mutually) recursive functions are
/// unchanged. Anything unpaired or unlowered is changed.
pub fn changed_functions(old: &Program, new: &Program) -> ChangedFunctions {
    changed_functions_in(old, new, &Scope::whole(old, new))
}

/// [`changed_functions`] for the functions in `scope` (the others count as
/// changed, and nothing in the scope calls them).
pub fn changed_functions_in(old: &Program, new: &Program, scope: &Scope) -> ChangedFunctions {
    changed_functions_until(old, new, scope, None).unwrap_or_default()
}

/// [`changed_functions_in`], or `None` once `deadline` has passed (tested
/// before each function pair is diffed; without a deadline it always
/// answers).
fn changed_functions_until(
    old: &Program,
    new: &Program,
    scope: &Scope,
    deadline: Option<Instant>,
) -> Option<ChangedFunctions> {
    type Key<'p> = (&'p [String], &'p str, usize);
    fn keys<'p>(p: &'p Program, members: &[FuncId]) -> FxHashMap<Key<'p>, Vec<FuncId>> {
        let mut k: FxHashMap<Key<'_>, Vec<FuncId>> = FxHashMap::default();
        for &i in members {
            let f = p.function(i);
            k.entry((f.owner.as_slice(), f.name.as_str(), f.arity))
                .or_default()
                .push(i);
        }
        k
    }
    let (k1, k2) = (
        keys(old, scope.old_members()),
        keys(new, scope.new_members()),
    );
    let mut pairs: Vec<(FuncId, FuncId)> = k1
        .iter()
        .filter_map(
            |(key, ids1)| match (ids1.as_slice(), k2.get(key).map(Vec::as_slice)) {
                ([a], Some([b])) => Some((*a, *b)),
                _ => None,
            },
        )
        .collect();
    pairs.sort();
    let pair_of_old: FxHashMap<FuncId, usize> = pairs
        .iter()
        .enumerate()
        .map(|(i, &(a, _))| (a, i))
        .collect();
    let pair_of_new: FxHashMap<FuncId, usize> = pairs
        .iter()
        .enumerate()
        .map(|(i, &(_, b))| (b, i))
        .collect();
    // Optimistic: every paired callee is assumed unchanged while diffing; the
    // fixpoint below withdraws that for callees that turn out changed.
    let cx = DiffContext {
        old: Names::of_functions(old, scope.old_members(), |f| !pair_of_old.contains_key(&f)),
        new: Names::of_functions(new, scope.new_members(), |f| !pair_of_new.contains_key(&f)),
    };
    let mut unchanged = vec![false; pairs.len()];
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); pairs.len()];
    for (i, &(a, b)) in pairs.iter().enumerate() {
        if deadline.is_some_and(crate::cancel::expired) {
            return None;
        }
        let (Ok(f1), Ok(f2)) = (&old.function(a).body, &new.function(b).body) else {
            continue;
        };
        for c in callees(f1) {
            if let Some(&j) = pair_of_old.get(&c) {
                callers[j].push(i);
            }
        }
        for c in callees(f2) {
            if let Some(&j) = pair_of_new.get(&c) {
                callers[j].push(i);
            }
        }
        unchanged[i] = same_signature(f1, f2) && diff_functions_in(&cx, f1, f2).is_unchanged();
    }
    let mut work: Vec<usize> = (0..pairs.len()).filter(|&i| !unchanged[i]).collect();
    while let Some(j) = work.pop() {
        for &i in &callers[j] {
            if unchanged[i] {
                unchanged[i] = false;
                work.push(i);
            }
        }
    }
    let kept = || pairs.iter().zip(&unchanged).filter(|(_, u)| **u);
    Some(ChangedFunctions {
        old_unchanged: kept().map(|(&(o, _), _)| o).collect(),
        new_unchanged: kept().map(|(&(_, n), _)| n).collect(),
        pairs: pairs
            .iter()
            .enumerate()
            .map(|(i, &(old, new))| FunctionPair {
                old,
                new,
                changed: !unchanged[i],
            })
            .collect(),
    })
}

/// Same return type and parameter types: a body can read the same and still
/// mean something else when a type changed (`int f` → `long f`).
fn same_signature(f1: &Function, f2: &Function) -> bool {
    fn ty<'f>(f: &'f Function, l: &LocalId) -> Option<&'f crate::ir::Type> {
        f.locals.get(l.0 as usize).map(|l| &l.ty)
    }
    f1.ret == f2.ret
        && f1.params.len() == f2.params.len()
        && f1
            .params
            .iter()
            .zip(&f2.params)
            .all(|(p, q)| ty(f1, p).is_some() && ty(f1, p) == ty(f2, q))
}

/// Old statement nodes that moved: their parent is not matched to the new
/// parent, or they fall outside the longest increasing run of matched
/// siblings (the classic GumTree/Chawathe child alignment).
fn moved_nodes(t1: &Tree, t2: &Tree, m: &Mapping) -> FxHashSet<NodeId> {
    let mut moved = FxHashSet::default();
    for (a, b) in m.pairs() {
        if !t1.nodes[a].is_stmt {
            continue;
        }
        let (p1, p2) = (t1.nodes[a].parent, t2.nodes[b].parent);
        let same_parent = match (p1, p2) {
            (Some(p1), Some(p2)) => m.new_of(p1) == Some(p2),
            (None, None) => true,
            _ => false,
        };
        if !same_parent {
            moved.insert(a);
        }
    }
    // Order among siblings, for every matched container pair.
    for (p1, p2) in m.pairs() {
        let kids: Vec<(NodeId, usize)> = t1.nodes[p1]
            .children
            .iter()
            .filter(|&&c| t1.nodes[c].is_stmt)
            .filter_map(|&c| {
                let y = m.new_of(c)?;
                (t2.nodes[y].parent == Some(p2)).then(|| (c, t2.sibling_index(y)))
            })
            .collect();
        let keep = longest_increasing(&kids.iter().map(|&(_, j)| j).collect::<Vec<_>>());
        for (i, &(c, _)) in kids.iter().enumerate() {
            if !keep.contains(&i) {
                moved.insert(c);
            }
        }
    }
    moved
}

#[cfg(test)]
mod tests;
