//! Statement-level differencing of two versions of a function, groundwork
//! for ARDiff-style checking (abstract what is common, focus the solver on
//! what changed).
//!
//! The IR body of each version becomes a neutral tree ([`tree`]), the two
//! trees are matched GumTree-style ([`matcher`]), and the node mapping is
//! summarised per statement. Working on the IR (not on tree-sitter trees)
//! makes this language-neutral and blind to formatting and comments; locals
//! are compared by position, not name, so renamings are common code.

pub mod matcher;
pub mod tree;

use crate::ir::{Function, Span};
use matcher::{Mapping, match_trees};
use serde::Serialize;
use std::collections::HashSet;
use tree::{NodeId, Tree};

/// Whether a statement's whole subtree is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StmtStatus {
    /// Matched to a statement of the other version with an identical subtree
    /// (possibly at another place: see `moved`).
    Common,
    /// Unmatched (inserted/deleted), or matched to a statement whose subtree
    /// differs somewhere (for a compound statement, possibly only in a nested
    /// statement).
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
    pub updated: Vec<SpanPair>,
    /// Matched statements under a different parent, or out of order relative
    /// to their matched siblings (an insertion before a statement does not
    /// move it).
    pub moved: Vec<SpanPair>,
}

/// Result of [`diff_functions`]; statements are listed in source (pre)order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatementDiff {
    pub old: Vec<StmtEntry>,
    pub new: Vec<StmtEntry>,
    pub edits: EditSummary,
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

/// Diffs the bodies of two versions of a function.
pub fn diff_functions(old: &Function, new: &Function) -> StatementDiff {
    let t1 = Tree::from_function(old);
    let t2 = Tree::from_function(new);
    let m = match_trees(&t1, &t2);
    let moved = moved_nodes(&t1, &t2, &m);
    let mut edits = EditSummary::default();
    let mut old_entries = Vec::new();
    for (a, n) in t1.nodes.iter().enumerate().filter(|(_, n)| n.is_stmt) {
        let partner = m.new_of(a).filter(|&b| t2.nodes[b].is_stmt);
        let mut entry = StmtEntry {
            span: n.span,
            kind: n.label.clone(),
            status: StmtStatus::Changed,
            partner: None,
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
                if n.hash == nb.hash {
                    entry.status = StmtStatus::Common;
                }
                if n.shallow_hash != nb.shallow_hash || n.label != nb.label {
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
                    moved: false,
                }
            }
            Some(a) => StmtEntry {
                span: n.span,
                kind: n.label.clone(),
                status: if t1.nodes[a].hash == n.hash {
                    StmtStatus::Common
                } else {
                    StmtStatus::Changed
                },
                partner: Some(t1.nodes[a].span),
                moved: moved.contains(&a),
            },
        };
        new_entries.push(entry);
    }
    StatementDiff {
        old: old_entries,
        new: new_entries,
        edits,
    }
}

/// Old statement nodes that moved: their parent is not matched to the new
/// parent, or they fall outside the longest increasing run of matched
/// siblings (the classic GumTree/Chawathe child alignment).
fn moved_nodes(t1: &Tree, t2: &Tree, m: &Mapping) -> HashSet<NodeId> {
    let mut moved = HashSet::new();
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

/// Indices of one longest strictly increasing subsequence of `xs`
/// (patience sorting, O(n log n)).
fn longest_increasing(xs: &[usize]) -> HashSet<usize> {
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
    let mut out = HashSet::new();
    let mut cur = tails.last().copied();
    while let Some(i) = cur {
        out.insert(i);
        cur = prev[i];
    }
    out
}

#[cfg(test)]
mod tests;
