//! A small, language-neutral tree built from an IR function body, the input
//! of the GumTree matcher ([`super::matcher`]).
//!
//! Why a separate tree rather than matching the IR directly: the matcher needs
//! uniform nodes (label, value, children) with precomputed height, size and
//! structural hash, and it needs to refer to nodes by index. Nodes are stored
//! in **preorder**, so the subtree of node `i` is exactly the index range
//! `i .. i + size`: isomorphism checks and subtree mappings are plain zips over
//! two ranges, with no recursion.
//!
//! Locals are identified by a per-function index (parameter position, or order
//! of declaration among variables/temporaries), never by name, so a renamed
//! local still matches. Known limitation: inserting a new variable shifts the
//! indices of the variables declared after it.

use crate::ir::{
    Block, Expr, ExprKind, Function, LocalKind, Place, PrintKind, Span, Stmt, StmtKind,
};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// Index of a node in [`Tree::nodes`].
pub type NodeId = usize;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Kind of the node, with the operator folded in (`Binary(Add)`), so that
    /// only nodes of the same kind and operator are ever "the same".
    pub label: String,
    /// Leaf payload: literal text, local index (`var#0`), callee, ...
    pub value: Option<String>,
    pub children: Vec<NodeId>,
    pub parent: Option<NodeId>,
    pub span: Span,
    /// True for nodes that stand for an IR [`Stmt`]; the statement-level
    /// report is built from these only.
    pub is_stmt: bool,
    /// 1 for a leaf.
    pub height: u32,
    /// Number of nodes in the subtree, this one included.
    pub size: u32,
    /// Hash of label, value and children hashes: equal subtrees have equal
    /// hashes (the converse is checked, see [`Tree::isomorphic`]).
    pub hash: u64,
    /// Like `hash`, but nested statements are left out: it changes only when
    /// the statement itself (its condition, operands, ...) changes, so an edit
    /// deep inside an `if` is an update of the inner statement, not of the `if`.
    pub shallow_hash: u64,
    /// The break/continue label a loop or labeled block binds, used to turn
    /// `Break(label)` into a relative nesting depth.
    binds: Option<u32>,
}

/// The tree of one function body; node 0 is the root (`Body`).
#[derive(Clone, Debug, PartialEq)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

/// Pending work of the iterative builder: one IR piece to turn into a node.
/// Iterative so that no input nesting depth can overflow the stack.
enum Work<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
    Place(&'a Place, Span),
    Group(&'static str, &'a Block, Span),
    Leaf(&'static str, Option<String>, Span),
}

impl Tree {
    pub fn root(&self) -> NodeId {
        0
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Preorder range of the subtree rooted at `id`.
    pub fn subtree(&self, id: NodeId) -> std::ops::Range<NodeId> {
        id..id + self.nodes[id].size as usize
    }

    /// True when `d` is a strict descendant of `a`.
    pub fn is_descendant(&self, d: NodeId, a: NodeId) -> bool {
        d > a && d < a + self.nodes[a].size as usize
    }

    /// Position of `id` among its parent's children (0 for the root).
    pub fn sibling_index(&self, id: NodeId) -> usize {
        match self.nodes[id].parent {
            Some(p) => self.nodes[p]
                .children
                .iter()
                .position(|&c| c == id)
                .unwrap_or(0),
            None => 0,
        }
    }

    /// Exact structural equality of two subtrees (guards against hash
    /// collisions): same shape, labels and values in preorder.
    pub fn isomorphic(&self, a: NodeId, other: &Tree, b: NodeId) -> bool {
        let (na, nb) = (&self.nodes[a], &other.nodes[b]);
        if na.hash != nb.hash || na.size != nb.size {
            return false;
        }
        self.subtree(a).zip(other.subtree(b)).all(|(x, y)| {
            let (x, y) = (&self.nodes[x], &other.nodes[y]);
            x.label == y.label && x.value == y.value && x.children.len() == y.children.len()
        })
    }

    /// Builds the tree of `f`'s body.
    pub fn from_function(f: &Function) -> Tree {
        let local_names = local_values(f);
        let mut nodes: Vec<Node> = Vec::new();
        let root_span = f.span;
        // (work, parent)
        let mut stack: Vec<(Work<'_>, Option<NodeId>)> =
            vec![(Work::Group("Body", &f.body, root_span), None)];
        while let Some((work, parent)) = stack.pop() {
            let id = nodes.len();
            let mut kids: Vec<Work<'_>> = Vec::new();
            let (label, value, span, is_stmt, binds): (
                String,
                Option<String>,
                Span,
                bool,
                Option<u32>,
            ) = match work {
                Work::Group(label, block, span) => {
                    kids.extend(block.iter().map(Work::Stmt));
                    (label.to_string(), None, span, false, None)
                }
                Work::Leaf(label, value, span) => (label.to_string(), value, span, false, None),
                Work::Place(place, span) => {
                    let (label, value) = match place {
                        Place::Local(l) => ("Store(Local)", local_names.get(l.0 as usize).cloned()),
                        Place::Global(g) => ("Store(Global)", Some(format!("g#{}", g.0))),
                        Place::Index { array, index } => {
                            kids.push(Work::Expr(array));
                            kids.push(Work::Expr(index));
                            ("Store(Index)", None)
                        }
                    };
                    (label.to_string(), value, span, false, None)
                }
                Work::Expr(e) => {
                    let (label, value) = expr_label(e, &local_names, &mut kids);
                    (label, value, e.span, false, None)
                }
                Work::Stmt(s) => {
                    let (label, value, binds) = stmt_label(s, &nodes, parent, &mut kids);
                    (label, value, s.span, true, binds)
                }
            };
            nodes.push(Node {
                label,
                value,
                children: Vec::new(),
                parent,
                span,
                is_stmt,
                height: 1,
                size: 1,
                hash: 0,
                shallow_hash: 0,
                binds,
            });
            if let Some(p) = parent {
                nodes[p].children.push(id);
            }
            // Reversed, so children are popped (and numbered) in order.
            stack.extend(kids.into_iter().rev().map(|k| (k, Some(id))));
        }
        let mut tree = Tree { nodes };
        tree.compute_metrics();
        tree
    }

    /// Height, size and hashes bottom-up: in preorder every child has a
    /// larger index than its parent, so a reverse scan sees children first.
    fn compute_metrics(&mut self) {
        for i in (0..self.nodes.len()).rev() {
            let mut height = 1;
            let mut size = 1;
            let mut h = DefaultHasher::new();
            let mut sh = DefaultHasher::new();
            let n = &self.nodes[i];
            n.label.hash(&mut h);
            n.value.hash(&mut h);
            n.label.hash(&mut sh);
            n.value.hash(&mut sh);
            for &c in &n.children {
                let cn = &self.nodes[c];
                height = height.max(cn.height + 1);
                size += cn.size;
                cn.hash.hash(&mut h);
                if !cn.is_stmt {
                    cn.shallow_hash.hash(&mut sh);
                }
            }
            let (hash, shallow) = (h.finish(), sh.finish());
            let n = &mut self.nodes[i];
            n.height = height;
            n.size = size;
            n.hash = hash;
            n.shallow_hash = shallow;
        }
    }
}

/// The name-independent value of each local: `p#i` for the i-th parameter,
/// `v#i` / `t#i` for the i-th variable / temporary in declaration order.
fn local_values(f: &Function) -> Vec<String> {
    let (mut vars, mut temps) = (0usize, 0usize);
    f.locals
        .iter()
        .enumerate()
        .map(|(i, l)| match l.kind {
            LocalKind::Param => {
                let pos = f.params.iter().position(|p| p.0 as usize == i).unwrap_or(i);
                format!("p#{pos}")
            }
            LocalKind::Var => {
                vars += 1;
                format!("v#{}", vars - 1)
            }
            LocalKind::Temp => {
                temps += 1;
                format!("t#{}", temps - 1)
            }
        })
        .collect()
}

fn expr_label<'a>(
    e: &'a Expr,
    locals: &[String],
    kids: &mut Vec<Work<'a>>,
) -> (String, Option<String>) {
    let mut push = |x: &'a Expr| kids.push(Work::Expr(x));
    match &e.kind {
        ExprKind::IntLit(v) => ("Int".into(), Some(v.to_string())),
        ExprKind::FloatLit(f) => {
            let text = if f.text.is_empty() {
                f.value.to_string()
            } else {
                f.text.clone()
            };
            ("Float".into(), Some(text))
        }
        ExprKind::BoolLit(b) => ("Bool".into(), Some(b.to_string())),
        ExprKind::StrLit(s) => ("Str".into(), Some(s.clone())),
        ExprKind::Local(l) => ("Local".into(), locals.get(l.0 as usize).cloned()),
        ExprKind::Global(g) => ("Global".into(), Some(format!("g#{}", g.0))),
        ExprKind::Unary(op, a) => {
            push(a);
            (format!("Unary({op:?})"), None)
        }
        ExprKind::Binary(op, a, b) => {
            push(a);
            push(b);
            (format!("Binary({op:?})"), None)
        }
        ExprKind::Cond(c, a, b) => {
            push(c);
            push(a);
            push(b);
            ("Cond".into(), None)
        }
        ExprKind::Cast(a) => {
            push(a);
            ("Cast".into(), Some(e.ty.to_string()))
        }
        ExprKind::Index(a, i) => {
            push(a);
            push(i);
            ("Index".into(), None)
        }
        ExprKind::Length(a) => {
            push(a);
            ("Length".into(), None)
        }
        ExprKind::NewArray(n) => {
            push(n);
            ("NewArray".into(), Some(e.ty.to_string()))
        }
        ExprKind::ArrayLit(xs) => {
            xs.iter().for_each(push);
            ("ArrayLit".into(), Some(e.ty.to_string()))
        }
        ExprKind::Intrinsic(f, xs) => {
            xs.iter().for_each(push);
            ("Intrinsic".into(), Some(f.name().to_string()))
        }
    }
}

/// Label, value and bound break label of a statement. `Break`/`Continue`
/// get the relative depth of their target (how many enclosing loops/labeled
/// blocks out), which survives renumbering of labels.
fn stmt_label<'a>(
    s: &'a Stmt,
    nodes: &[Node],
    parent: Option<NodeId>,
    kids: &mut Vec<Work<'a>>,
) -> (String, Option<String>, Option<u32>) {
    let target_depth = |label: u32| -> Option<String> {
        let mut depth = 0u32;
        let mut cur = parent;
        while let Some(p) = cur {
            if let Some(b) = nodes[p].binds {
                if b == label {
                    return Some(depth.to_string());
                }
                depth += 1;
            }
            cur = nodes[p].parent;
        }
        Some(format!("?{label}"))
    };
    match &s.kind {
        StmtKind::Assign { place, value } => {
            kids.push(Work::Place(place, s.span));
            kids.push(Work::Expr(value));
            ("Assign".into(), None, None)
        }
        StmtKind::Call { dest, func, args } => {
            if let Some(d) = dest {
                kids.push(Work::Place(d, s.span));
            }
            kids.extend(args.iter().map(Work::Expr));
            let label = if dest.is_some() { "CallAssign" } else { "Call" };
            (label.into(), Some(format!("f#{}", func.0)), None)
        }
        StmtKind::Print { kind, args } => {
            kids.extend(args.iter().map(Work::Expr));
            let (label, value) = match kind {
                PrintKind::Java { newline } => ("Print(Java)", Some(newline.to_string())),
                PrintKind::Printf { format } => ("Print(printf)", Some(format.clone())),
                PrintKind::C { newline } => ("Print(C)", Some(newline.to_string())),
            };
            (label.into(), value, None)
        }
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            kids.push(Work::Expr(cond));
            kids.push(Work::Group("Then", then_branch, s.span));
            kids.push(Work::Group("Else", else_branch, s.span));
            ("If".into(), None, None)
        }
        StmtKind::Loop {
            label,
            kind,
            cond,
            body,
            step,
        } => {
            kids.push(Work::Expr(cond));
            kids.push(Work::Group("LoopBody", body, s.span));
            kids.push(Work::Group("LoopStep", step, s.span));
            (format!("Loop({kind:?})"), None, Some(label.0))
        }
        StmtKind::Labeled { label, body } => {
            kids.push(Work::Group("LabeledBody", body, s.span));
            ("Labeled".into(), None, Some(label.0))
        }
        StmtKind::Break(l) => ("Break".into(), target_depth(l.0), None),
        StmtKind::Continue(l) => ("Continue".into(), target_depth(l.0), None),
        StmtKind::Return(e) => {
            match e {
                Some(e) => kids.push(Work::Expr(e)),
                None => kids.push(Work::Leaf("NoValue", None, s.span)),
            }
            ("Return".into(), None, None)
        }
        StmtKind::Block(b) => {
            kids.extend(b.iter().map(Work::Stmt));
            ("Block".into(), None, None)
        }
    }
}
