//! GumTree matching (Falleri et al., "Fine-grained and accurate source code
//! differencing", ASE 2014) on [`Tree`]s.
//!
//! Three phases, each building on the mapping of the previous one:
//! 1. **top-down**: isomorphic subtrees (equal hash, confirmed structurally)
//!    are matched greedily from the tallest down; when a subtree has several
//!    isomorphic partners, the pair that is also equal with local *names*
//!    wins (hashes ignore local identity, so `x = x + 1` and `y = y + 1` are
//!    isomorphic; an unrenamed partner is the better guess), then the pair
//!    whose parents are most alike, then the closest in position, so
//!    duplicated statements pair up in order. Classes too large to score
//!    (`MAX_SCORED_PAIRS`) are left whole to recovery.
//! 2. **bottom-up**: an unmatched container is matched with a container of the
//!    same label that holds most of the images of its matched descendants
//!    (dice ≥ [`MIN_DICE`]). The roots are always matched.
//! 3. **recovery**: below each matched pair from phase 2, unmatched children
//!    are paired by longest common subsequence, first of isomorphic subtrees,
//!    then of equal labels (the latter being updates), recursively; first
//!    within the gaps between already matched siblings, then across.
//!
//! Nothing here recurses on the tree: work lists and preorder ranges only.

use super::tree::{NodeId, Tree};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Smallest height of a subtree matched top-down: leaves alone (a lone `x`)
/// are too common to be evidence of anything.
pub const MIN_HEIGHT: u32 = 2;

/// Smallest dice coefficient for the bottom-up phase to match two containers.
pub const MIN_DICE: f64 = 0.5;

/// Above this many candidate pairs in one class of isomorphic subtrees, the
/// top-down phase does not score every pair (sorting, parent dice: quadratic
/// or worse) but leaves the class to recovery. Identity-free local hashing
/// makes such classes common: `acc = acc + 1` in every one of 80 loops.
const MAX_SCORED_PAIRS: usize = 1024;

/// Above this many LCS table cells, recovery pairs children greedily in order
/// instead, keeping the memory bounded on very wide blocks.
const MAX_LCS_CELLS: usize = 4_000_000;

/// A one-to-one partial mapping between the nodes of two trees.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    old_to_new: Vec<Option<NodeId>>,
    new_to_old: Vec<Option<NodeId>>,
}

impl Mapping {
    fn new(n_old: usize, n_new: usize) -> Mapping {
        Mapping {
            old_to_new: vec![None; n_old],
            new_to_old: vec![None; n_new],
        }
    }

    /// The new node matched to old node `a`.
    pub fn new_of(&self, a: NodeId) -> Option<NodeId> {
        self.old_to_new.get(a).copied().flatten()
    }

    /// The old node matched to new node `b`.
    pub fn old_of(&self, b: NodeId) -> Option<NodeId> {
        self.new_to_old.get(b).copied().flatten()
    }

    /// All pairs `(old, new)`, in old preorder.
    pub fn pairs(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.old_to_new
            .iter()
            .enumerate()
            .filter_map(|(a, b)| b.map(|b| (a, b)))
    }

    fn is_free(&self, a: NodeId, b: NodeId) -> bool {
        self.new_of(a).is_none() && self.old_of(b).is_none()
    }

    /// Links `a` and `b` if both are free; returns whether it did.
    fn link(&mut self, a: NodeId, b: NodeId) -> bool {
        if a >= self.old_to_new.len() || b >= self.new_to_old.len() || !self.is_free(a, b) {
            return false;
        }
        self.old_to_new[a] = Some(b);
        self.new_to_old[b] = Some(a);
        true
    }

    /// Links two isomorphic subtrees node by node (preorder ranges line up).
    fn link_subtree(&mut self, t1: &Tree, a: NodeId, t2: &Tree, b: NodeId) {
        for (x, y) in t1.subtree(a).zip(t2.subtree(b)) {
            self.link(x, y);
        }
    }
}

/// Matches `t1` (old) against `t2` (new).
pub fn match_trees(t1: &Tree, t2: &Tree) -> Mapping {
    let mut m = Mapping::new(t1.len(), t2.len());
    if t1.is_empty() || t2.is_empty() {
        return m;
    }
    top_down(t1, t2, &mut m);
    bottom_up(t1, t2, &mut m);
    m
}

/// Dice coefficient of the descendants of `a` and `b` under `m`: how much of
/// the two subtrees is matched *into each other*.
fn dice(t1: &Tree, a: NodeId, t2: &Tree, b: NodeId, m: &Mapping) -> f64 {
    let (d1, d2) = (t1.nodes[a].size - 1, t2.nodes[b].size - 1);
    if d1 + d2 == 0 {
        return 0.0;
    }
    let common = t1
        .subtree(a)
        .skip(1)
        .filter(|&x| m.new_of(x).is_some_and(|y| t2.is_descendant(y, b)))
        .count();
    2.0 * common as f64 / f64::from(d1 + d2)
}

fn push_children(t: &Tree, heap: &mut BinaryHeap<(u32, Reverse<NodeId>)>, id: NodeId) {
    for &c in &t.nodes[id].children {
        heap.push((t.nodes[c].height, Reverse(c)));
    }
}

fn pop_level(heap: &mut BinaryHeap<(u32, Reverse<NodeId>)>, h: u32) -> Vec<NodeId> {
    let mut out = Vec::new();
    while heap.peek().is_some_and(|&(hh, _)| hh == h) {
        if let Some((_, Reverse(id))) = heap.pop() {
            out.push(id);
        }
    }
    out
}

fn top_down(t1: &Tree, t2: &Tree, m: &mut Mapping) {
    let mut l1 = BinaryHeap::from([(t1.nodes[0].height, Reverse(0))]);
    let mut l2 = BinaryHeap::from([(t2.nodes[0].height, Reverse(0))]);
    // Pairs with more than one isomorphic partner, resolved at the end.
    let mut ambiguous: Vec<(NodeId, NodeId)> = Vec::new();
    loop {
        let h1 = l1.peek().map_or(0, |&(h, _)| h);
        let h2 = l2.peek().map_or(0, |&(h, _)| h);
        if h1.min(h2) < MIN_HEIGHT {
            break;
        }
        if h1 != h2 {
            // The taller side cannot match at this height: open it.
            let (t, heap, h) = if h1 > h2 {
                (t1, &mut l1, h1)
            } else {
                (t2, &mut l2, h2)
            };
            for id in pop_level(heap, h) {
                push_children(t, heap, id);
            }
            continue;
        }
        let (a_level, b_level) = (pop_level(&mut l1, h1), pop_level(&mut l2, h2));
        let mut by_hash: FxHashMap<u64, (Vec<NodeId>, Vec<NodeId>)> = FxHashMap::default();
        for &a in &a_level {
            by_hash.entry(t1.nodes[a].hash).or_default().0.push(a);
        }
        for &b in &b_level {
            by_hash.entry(t2.nodes[b].hash).or_default().1.push(b);
        }
        let mut matched1 = vec![false; a_level.len()];
        let mut matched2 = vec![false; b_level.len()];
        let pos1: FxHashMap<NodeId, usize> =
            a_level.iter().enumerate().map(|(i, &a)| (a, i)).collect();
        let pos2: FxHashMap<NodeId, usize> =
            b_level.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let mut keys: Vec<u64> = by_hash.keys().copied().collect();
        keys.sort_unstable(); // deterministic order
        for key in keys {
            let Some((as_, bs)) = by_hash.get(&key) else {
                continue;
            };
            if as_.len().saturating_mul(bs.len()) > MAX_SCORED_PAIRS {
                // Deferred: not linked here and not opened (every member is
                // isomorphic to another, barring collisions). Recovery pairs
                // them by LCS over whole sibling sequences inside matched
                // parents, which has the context this class lacks.
                for a in as_ {
                    if let Some(&i) = pos1.get(a) {
                        matched1[i] = true;
                    }
                }
                for b in bs {
                    if let Some(&j) = pos2.get(b) {
                        matched2[j] = true;
                    }
                }
                continue;
            }
            let pairs: Vec<(NodeId, NodeId)> = as_
                .iter()
                .flat_map(|&a| bs.iter().map(move |&b| (a, b)))
                .filter(|&(a, b)| t1.isomorphic(a, t2, b))
                .collect();
            for &(a, b) in &pairs {
                if let (Some(&i), Some(&j)) = (pos1.get(&a), pos2.get(&b)) {
                    matched1[i] = true;
                    matched2[j] = true;
                }
            }
            if pairs.len() == 1 && as_.len() == 1 && bs.len() == 1 {
                m.link_subtree(t1, pairs[0].0, t2, pairs[0].1);
            } else {
                ambiguous.extend(pairs);
            }
        }
        for (i, &a) in a_level.iter().enumerate() {
            if !matched1[i] {
                push_children(t1, &mut l1, a);
            }
        }
        for (j, &b) in b_level.iter().enumerate() {
            if !matched2[j] {
                push_children(t2, &mut l2, b);
            }
        }
    }
    resolve_ambiguous(t1, t2, m, ambiguous);
}

/// Orders the ambiguous isomorphic pairs by equality of local names, parent
/// similarity, then closeness of position, and links them greedily.
fn resolve_ambiguous(t1: &Tree, t2: &Tree, m: &mut Mapping, pairs: Vec<(NodeId, NodeId)>) {
    let mut parent_dice: FxHashMap<(NodeId, NodeId), f64> = FxHashMap::default();
    let n1 = t1.len().max(1) as f64;
    let n2 = t2.len().max(1) as f64;
    let mut scored: Vec<(bool, f64, usize, f64, NodeId, NodeId)> = pairs
        .into_iter()
        .map(|(a, b)| {
            let d = match (t1.nodes[a].parent, t2.nodes[b].parent) {
                (Some(p1), Some(p2)) => *parent_dice
                    .entry((p1, p2))
                    .or_insert_with(|| dice(t1, p1, t2, p2, m)),
                _ => 0.0,
            };
            let sib = t1.sibling_index(a).abs_diff(t2.sibling_index(b));
            let rel = (a as f64 / n1 - b as f64 / n2).abs();
            let named = t1.nodes[a].name_hash == t2.nodes[b].name_hash;
            (named, d, sib, rel, a, b)
        })
        .collect();
    scored.sort_by(|x, y| {
        y.0.cmp(&x.0)
            .then(y.1.partial_cmp(&x.1).unwrap_or(Ordering::Equal))
            .then(x.2.cmp(&y.2))
            .then(x.3.partial_cmp(&y.3).unwrap_or(Ordering::Equal))
            .then((x.4, x.5).cmp(&(y.4, y.5)))
    });
    for (_, _, _, _, a, b) in scored {
        if m.is_free(a, b) {
            m.link_subtree(t1, a, t2, b);
        }
    }
}

fn bottom_up(t1: &Tree, t2: &Tree, m: &mut Mapping) {
    // `seen[p] == stamp` marks ancestors visited for the current node; one
    // stamp per node instead of a fresh vector keeps this linear in memory
    // and time per candidate walk.
    let mut seen = vec![usize::MAX; t2.len()];
    // Reverse preorder: every node after all of its descendants.
    for a in (0..t1.len()).rev() {
        if m.new_of(a).is_some() {
            continue;
        }
        if a == t1.root() {
            if t1.nodes[a].label == t2.nodes[t2.root()].label && m.link(a, t2.root()) {
                recover(t1, t2, m, a, t2.root());
            }
            continue;
        }
        if t1.nodes[a].children.is_empty() {
            continue;
        }
        // Candidates: unmatched same-label ancestors of the images of a's
        // matched descendants. Walking up stops at nodes already seen.
        let mut best: Option<(f64, NodeId)> = None;
        for d in t1.subtree(a).skip(1) {
            let Some(mut y) = m.new_of(d) else { continue };
            while let Some(p) = t2.nodes[y].parent {
                if seen[p] == a {
                    break;
                }
                seen[p] = a;
                if m.old_of(p).is_none() && t2.nodes[p].label == t1.nodes[a].label {
                    let s = dice(t1, a, t2, p, m);
                    if best.is_none_or(|(bs, _)| s > bs) {
                        best = Some((s, p));
                    }
                }
                y = p;
            }
        }
        if let Some((s, b)) = best
            && s >= MIN_DICE
            && m.link(a, b)
        {
            recover(t1, t2, m, a, b);
        }
    }
}

/// Longest common subsequence of `xs` and `ys` under `eq`, as index pairs.
/// Falls back to greedy in-order pairing when the table would be too large.
fn lcs<X, Y>(xs: &[X], ys: &[Y], eq: impl Fn(&X, &Y) -> bool) -> Vec<(usize, usize)> {
    let (n, k) = (xs.len(), ys.len());
    if n == 0 || k == 0 {
        return Vec::new();
    }
    if n.saturating_mul(k) > MAX_LCS_CELLS {
        let mut out = Vec::new();
        let mut j0 = 0;
        for (i, x) in xs.iter().enumerate() {
            if let Some(j) = (j0..k).find(|&j| eq(x, &ys[j])) {
                out.push((i, j));
                j0 = j + 1;
            }
        }
        return out;
    }
    // table[i][j] = LCS length of xs[i..], ys[j..]
    let w = k + 1;
    let mut table = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..k).rev() {
            table[i * w + j] = if eq(&xs[i], &ys[j]) {
                table[(i + 1) * w + j + 1] + 1
            } else {
                table[(i + 1) * w + j].max(table[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < k {
        if eq(&xs[i], &ys[j]) {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if table[(i + 1) * w + j] >= table[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// Pairs the unmatched children of matched containers: first within each
/// gap between order-consistent matched siblings (so an edited statement
/// pairs with its counterpart in place rather than with an insertion
/// elsewhere), then across the whole child lists (moves); in each, first
/// isomorphic subtrees, then same-label nodes (recursing into those with a
/// work list).
fn recover(t1: &Tree, t2: &Tree, m: &mut Mapping, a: NodeId, b: NodeId) {
    let mut work = vec![(a, b)];
    while let Some((a, b)) = work.pop() {
        let (k1, k2) = (&t1.nodes[a].children, &t2.nodes[b].children);
        for (g1, g2) in gaps(k1, k2, m) {
            pair_free(t1, t2, m, &k1[g1], &k2[g2], &mut work);
        }
        pair_free(t1, t2, m, k1, k2, &mut work);
    }
}

/// The index ranges of `k1`/`k2` between consecutive anchors: matched
/// sibling pairs that keep their order (one longest increasing run).
fn gaps(
    k1: &[NodeId],
    k2: &[NodeId],
    m: &Mapping,
) -> Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let pos2: FxHashMap<NodeId, usize> = k2.iter().enumerate().map(|(j, &c)| (c, j)).collect();
    let cand: Vec<(usize, usize)> = k1
        .iter()
        .enumerate()
        .filter_map(|(i, &c)| Some((i, *pos2.get(&m.new_of(c)?)?)))
        .collect();
    let keep = longest_increasing(&cand.iter().map(|&(_, j)| j).collect::<Vec<_>>());
    let mut anchors: Vec<(usize, usize)> = cand
        .iter()
        .enumerate()
        .filter(|(k, _)| keep.contains(k))
        .map(|(_, &p)| p)
        .collect();
    anchors.push((k1.len(), k2.len()));
    let mut out = Vec::new();
    let (mut i0, mut j0) = (0, 0);
    for (i, j) in anchors {
        if i > i0 && j > j0 {
            out.push((i0..i, j0..j));
        }
        (i0, j0) = (i + 1, j + 1);
    }
    out
}

/// LCS-pairs the free nodes among `c1` and `c2`: isomorphic subtrees first
/// (linked whole), then equal labels (queued for recovery of their children).
fn pair_free(
    t1: &Tree,
    t2: &Tree,
    m: &mut Mapping,
    c1: &[NodeId],
    c2: &[NodeId],
    work: &mut Vec<(NodeId, NodeId)>,
) {
    let free1 = |m: &Mapping| -> Vec<NodeId> {
        c1.iter()
            .copied()
            .filter(|&c| m.new_of(c).is_none())
            .collect()
    };
    let free2 = |m: &Mapping| -> Vec<NodeId> {
        c2.iter()
            .copied()
            .filter(|&c| m.old_of(c).is_none())
            .collect()
    };
    let (f1, f2) = (free1(m), free2(m));
    if f1.is_empty() || f2.is_empty() {
        return;
    }
    for (i, j) in lcs(&f1, &f2, |&x, &y| t1.isomorphic(x, t2, y)) {
        m.link_subtree(t1, f1[i], t2, f2[j]);
    }
    let (f1, f2) = (free1(m), free2(m));
    for (i, j) in lcs(&f1, &f2, |&x, &y| t1.nodes[x].label == t2.nodes[y].label) {
        if m.link(f1[i], f2[j]) {
            work.push((f1[i], f2[j]));
        }
    }
}

/// Indices of one longest strictly increasing subsequence of `xs`
/// (patience sorting, O(n log n)).
pub(crate) fn longest_increasing(xs: &[usize]) -> FxHashSet<usize> {
    let mut tails: Vec<usize> = Vec::new(); // indices into xs
    let mut prev: Vec<Option<usize>> = vec![None; xs.len()];
    for (i, &x) in xs.iter().enumerate() {
        let pos = tails.partition_point(|&t| xs[t] < x);
        if pos > 0 {
            prev[i] = Some(tails[pos - 1]);
        }
        if pos == tails.len() {
            tails.push(i);
        } else {
            tails[pos] = i;
        }
    }
    let mut out = FxHashSet::default();
    let mut cur = tails.last().copied();
    while let Some(i) = cur {
        out.insert(i);
        cur = prev[i];
    }
    out
}
