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
//! # What a leaf hashes to
//! - **Locals** hash without their identity: a variable is `var:<type>`, a
//!   front-end temporary `tmp:<type>`, a parameter `p<position>:<type>`. So
//!   subtrees that differ only by a consistent renaming are isomorphic, and
//!   inserting a variable does not shift anything. The identity is kept aside
//!   in [`Node::local`]; whether a renaming is *consistent* is decided after
//!   matching, against one bijection for the whole function (`super`).
//! - **Callees** hash by `name/arity` and **globals** by `name:type`, because
//!   `FuncId`/`GlobalId` are indices that differ between two programs. A
//!   constant global also hashes its constant expression (`=<hash>`), so
//!   `N = 5` → `N = 6` changes every use of `N`.
//! - A leaf whose meaning may differ between the versions although its text
//!   does not (a call to a changed function, a global or callee that cannot be
//!   resolved) is [`Node::tainted`]. Taint is kept out of the hashes so that
//!   matching still pairs such statements in place; the report then refuses
//!   to call any statement containing a tainted node common.

use crate::ir::{
    Block, Expr, ExprKind, FuncId, Function, GlobalId, LocalId, LocalKind, Place, PrintKind,
    Program, Span, Stmt, StmtKind,
};
use rustc_hash::FxHashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// How deep constant globals may refer to other constants before we give up
/// and treat the global as unresolvable (tainted). Java front ends inline
/// constants, so real chains are short; this only bounds adversarial input.
const MAX_CONSTANT_DEPTH: usize = 32;

/// Leaf values of the callees and globals of one program, and whether each is
/// tainted. Built once per program pair (see [`super::DiffContext`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    /// `None`: no program known, every callee/global is opaque and tainted.
    callees: Option<FxHashMap<FuncId, (String, bool)>>,
    globals: Option<Vec<(String, bool)>>,
}

impl Names {
    /// No program at hand: callees and globals are known only by index, which
    /// means nothing across versions, so every call and global use is tainted.
    pub fn opaque() -> Names {
        Names::default()
    }

    /// Names of `prog`'s callees (`A.B.f/arity`, tainted when `callee_changed`
    /// says so) and globals (`name:type`, plus the constant's hash).
    pub fn of_program(prog: &Program, callee_changed: impl Fn(FuncId) -> bool) -> Names {
        let all: Vec<FuncId> = (0..prog.functions.len() as u32).map(FuncId).collect();
        Names::of_functions(prog, &all, callee_changed)
    }

    /// [`Names::of_program`] for the callees in `members` (a scope closed
    /// under calls); any other callee is opaque and tainted.
    pub fn of_functions(
        prog: &Program,
        members: &[FuncId],
        callee_changed: impl Fn(FuncId) -> bool,
    ) -> Names {
        let callees = members
            .iter()
            .filter_map(|&i| {
                let f = prog.functions.get(i.0 as usize)?;
                Some((
                    i,
                    (
                        format!("{}/{}", f.qualified_name(), f.arity),
                        callee_changed(i),
                    ),
                ))
            })
            .collect();
        Names {
            callees: Some(callees),
            globals: Some(global_values(prog)),
        }
    }

    fn callee(&self, f: FuncId) -> (String, bool) {
        self.callees
            .as_ref()
            .and_then(|c| c.get(&f).cloned())
            .unwrap_or_else(|| (format!("f#{}", f.0), true))
    }

    fn global(&self, g: GlobalId) -> (String, bool) {
        self.globals
            .as_ref()
            .and_then(|c| c.get(g.0 as usize).cloned())
            .unwrap_or_else(|| (format!("g#{}", g.0), true))
    }
}

/// Resolves callees and globals to leaf values while building a tree.
trait Resolve {
    fn callee(&self, f: FuncId) -> (String, bool);
    fn global(&self, g: GlobalId) -> (String, bool);
}

impl Resolve for Names {
    fn callee(&self, f: FuncId) -> (String, bool) {
        Names::callee(self, f)
    }
    fn global(&self, g: GlobalId) -> (String, bool) {
        Names::global(self, g)
    }
}

/// The leaf value of every global of `prog`. A constant's value includes the
/// hash of its expression tree, whose own global leaves are resolved first
/// (memoised, so each global is hashed once; cycles and chains deeper than
/// [`MAX_CONSTANT_DEPTH`] are tainted rather than followed).
fn global_values(prog: &Program) -> Vec<(String, bool)> {
    struct Memo<'p> {
        prog: &'p Program,
        done: Vec<Option<(String, bool)>>,
        visiting: Vec<bool>,
    }
    impl Resolve for Memo<'_> {
        fn callee(&self, f: FuncId) -> (String, bool) {
            (format!("f#{}", f.0), true)
        }
        fn global(&self, g: GlobalId) -> (String, bool) {
            self.done
                .get(g.0 as usize)
                .cloned()
                .flatten()
                .unwrap_or_else(|| (format!("g#{}", g.0), true))
        }
    }
    impl Memo<'_> {
        fn compute(&mut self, g: usize, depth: usize) {
            if self.done.get(g).is_none_or(|d| d.is_some()) {
                return;
            }
            let Some(global) = self.prog.globals.get(g) else {
                return;
            };
            let base = format!("{}:{}", global.name, global.ty);
            let Some(c) = &global.constant else {
                self.done[g] = Some((base, false));
                return;
            };
            if self.visiting[g] || depth > MAX_CONSTANT_DEPTH {
                self.done[g] = Some((format!("{base}=?"), true));
                return;
            }
            self.visiting[g] = true;
            for r in referenced_globals(c) {
                self.compute(r.0 as usize, depth + 1);
            }
            self.visiting[g] = false;
            if self.done[g].is_some() {
                return; // settled (tainted) by a cycle through itself
            }
            let t = Tree::build(Work::Expr(c), &[], &[], self);
            let root = &t.nodes[0];
            let tainted = t.nodes.iter().any(|n| n.tainted);
            self.done[g] = Some((format!("{base}={:016x}", root.hash), tainted));
        }
    }
    let n = prog.globals.len();
    let mut memo = Memo {
        prog,
        done: vec![None; n],
        visiting: vec![false; n],
    };
    for g in 0..n {
        memo.compute(g, 0);
    }
    memo.done
        .into_iter()
        .map(|d| d.unwrap_or_else(|| ("?".into(), true)))
        .collect()
}

/// Globals read anywhere in `e` (iterative walk).
fn referenced_globals(e: &Expr) -> Vec<GlobalId> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let ExprKind::Global(g) = e.kind {
            out.push(g);
        }
        stack.extend(e.children());
    }
    out
}

/// Index of a node in [`Tree::nodes`].
pub type NodeId = usize;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Kind of the node, with the operator folded in (`Binary(Add)`), so that
    /// only nodes of the same kind and operator are ever "the same".
    pub label: String,
    /// Leaf payload: literal text, local kind and type (`var:i32`), callee
    /// (`foo/2`), global (`N:i32=…`), ...
    pub value: Option<String>,
    /// The local a `Local`/`Store(Local)` leaf reads or writes. Not hashed:
    /// see the module doc.
    pub local: Option<LocalId>,
    /// The leaf may mean something else in the other version even if it reads
    /// the same (call to a changed function, unresolvable global or callee).
    pub tainted: bool,
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
    /// Like `hash`, but also over the source names of locals: used only to
    /// break ties between isomorphic candidates (prefer the unrenamed one).
    pub name_hash: u64,
    /// Position among the parent's children (0 for the root).
    pub sibling: u32,
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
        self.nodes[id].sibling as usize
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

    /// Builds the tree of `f`'s body without program context: callees and
    /// globals are opaque, hence tainted (see [`Names::opaque`]).
    pub fn from_function(f: &Function) -> Tree {
        Tree::with_names(f, &Names::opaque())
    }

    /// Builds the tree of `f`'s body, resolving callees and globals by `names`.
    pub fn with_names(f: &Function, names: &Names) -> Tree {
        let values = local_values(f);
        let local_names: Vec<&str> = f.locals.iter().map(|l| l.name.as_str()).collect();
        Tree::build(
            Work::Group("Body", &f.body, f.span),
            &values,
            &local_names,
            names,
        )
    }

    fn build(
        root: Work<'_>,
        local_values: &[String],
        local_names: &[&str],
        names: &dyn Resolve,
    ) -> Tree {
        let mut nodes: Vec<Node> = Vec::new();
        let cx = LeafCx {
            locals: local_values,
            names,
        };
        // (work, parent)
        let mut stack: Vec<(Work<'_>, Option<NodeId>)> = vec![(root, None)];
        while let Some((work, parent)) = stack.pop() {
            let id = nodes.len();
            let mut kids: Vec<Work<'_>> = Vec::new();
            let mut leaf = Leaf::default();
            let (label, span, is_stmt, binds): (String, Span, bool, Option<u32>) = match work {
                Work::Group(label, block, span) => {
                    kids.extend(block.iter().map(Work::Stmt));
                    (label.to_string(), span, false, None)
                }
                Work::Leaf(label, value, span) => {
                    leaf.value = value;
                    (label.to_string(), span, false, None)
                }
                Work::Place(place, span) => {
                    let label = match place {
                        Place::Local(l) => {
                            leaf = cx.local(*l);
                            "Store(Local)"
                        }
                        Place::Global(g) => {
                            leaf = cx.global(*g);
                            "Store(Global)"
                        }
                        Place::Index { array, index } => {
                            kids.push(Work::Expr(array));
                            kids.push(Work::Expr(index));
                            "Store(Index)"
                        }
                    };
                    (label.to_string(), span, false, None)
                }
                Work::Expr(e) => {
                    let label = expr_label(e, &cx, &mut leaf, &mut kids);
                    (label, e.span, false, None)
                }
                Work::Stmt(s) => {
                    let (label, binds) = stmt_label(s, &nodes, parent, &cx, &mut leaf, &mut kids);
                    (label, s.span, true, binds)
                }
            };
            let sibling = match parent {
                Some(p) => nodes[p].children.len() as u32,
                None => 0,
            };
            nodes.push(Node {
                label,
                value: leaf.value,
                local: leaf.local,
                tainted: leaf.tainted,
                children: Vec::new(),
                parent,
                span,
                is_stmt,
                height: 1,
                size: 1,
                hash: 0,
                shallow_hash: 0,
                name_hash: 0,
                sibling,
                binds,
            });
            if let Some(p) = parent {
                nodes[p].children.push(id);
            }
            // Reversed, so children are popped (and numbered) in order.
            stack.extend(kids.into_iter().rev().map(|k| (k, Some(id))));
        }
        let mut tree = Tree { nodes };
        tree.compute_metrics(local_names);
        tree
    }

    /// Height, size and hashes bottom-up: in preorder every child has a
    /// larger index than its parent, so a reverse scan sees children first.
    fn compute_metrics(&mut self, local_names: &[&str]) {
        for i in (0..self.nodes.len()).rev() {
            let mut height = 1;
            let mut size = 1;
            let mut h = DefaultHasher::new();
            let mut sh = DefaultHasher::new();
            let mut nh = DefaultHasher::new();
            let n = &self.nodes[i];
            n.label.hash(&mut h);
            n.value.hash(&mut h);
            n.label.hash(&mut sh);
            n.value.hash(&mut sh);
            n.label.hash(&mut nh);
            n.value.hash(&mut nh);
            n.local
                .and_then(|l| local_names.get(l.0 as usize))
                .hash(&mut nh);
            for &c in &n.children {
                let cn = &self.nodes[c];
                height = height.max(cn.height + 1);
                size += cn.size;
                cn.hash.hash(&mut h);
                cn.name_hash.hash(&mut nh);
                if !cn.is_stmt {
                    cn.shallow_hash.hash(&mut sh);
                }
            }
            let (hash, shallow, named) = (h.finish(), sh.finish(), nh.finish());
            let n = &mut self.nodes[i];
            n.height = height;
            n.size = size;
            n.hash = hash;
            n.shallow_hash = shallow;
            n.name_hash = named;
        }
    }
}

/// The identity-free value of each local: `p<position>:<type>` for a
/// parameter (positions are the interface, so they stay), `var:<type>` and
/// `tmp:<type>` for variables and front-end temporaries.
fn local_values(f: &Function) -> Vec<String> {
    f.locals
        .iter()
        .enumerate()
        .map(|(i, l)| match l.kind {
            LocalKind::Param => {
                let pos = f.params.iter().position(|p| p.0 as usize == i).unwrap_or(i);
                format!("p{pos}:{}", l.ty)
            }
            LocalKind::Var => format!("var:{}", l.ty),
            LocalKind::Temp => format!("tmp:{}", l.ty),
        })
        .collect()
}

/// Payload of the node being built.
#[derive(Default)]
struct Leaf {
    value: Option<String>,
    local: Option<LocalId>,
    tainted: bool,
}

/// What leaf values are resolved against.
struct LeafCx<'c> {
    locals: &'c [String],
    names: &'c dyn Resolve,
}

impl LeafCx<'_> {
    fn local(&self, l: LocalId) -> Leaf {
        match self.locals.get(l.0 as usize) {
            Some(v) => Leaf {
                value: Some(v.clone()),
                local: Some(l),
                tainted: false,
            },
            // Not a local of this function: malformed IR, never common.
            None => Leaf {
                value: Some(format!("?l#{}", l.0)),
                local: None,
                tainted: true,
            },
        }
    }
    fn global(&self, g: GlobalId) -> Leaf {
        let (value, tainted) = self.names.global(g);
        Leaf {
            value: Some(value),
            local: None,
            tainted,
        }
    }
}

fn expr_label<'a>(
    e: &'a Expr,
    cx: &LeafCx<'_>,
    leaf: &mut Leaf,
    kids: &mut Vec<Work<'a>>,
) -> String {
    let mut push = |x: &'a Expr| kids.push(Work::Expr(x));
    let (label, value): (String, Option<String>) = match &e.kind {
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
        ExprKind::Local(l) => {
            *leaf = cx.local(*l);
            return "Local".into();
        }
        ExprKind::Global(g) => {
            *leaf = cx.global(*g);
            return "Global".into();
        }
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
        ExprKind::IsNull(a) => {
            push(a);
            ("IsNull".into(), None)
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
    };
    leaf.value = value;
    label
}

/// Label and bound break label of a statement (its value goes to `leaf`).
/// `Break`/`Continue` get the relative depth of their target (how many
/// enclosing loops/labeled blocks out), which survives renumbering of labels.
fn stmt_label<'a>(
    s: &'a Stmt,
    nodes: &[Node],
    parent: Option<NodeId>,
    cx: &LeafCx<'_>,
    leaf: &mut Leaf,
    kids: &mut Vec<Work<'a>>,
) -> (String, Option<u32>) {
    let (label, value, binds) = stmt_parts(s, nodes, parent, cx, leaf, kids);
    if value.is_some() {
        leaf.value = value;
    }
    (label, binds)
}

fn stmt_parts<'a>(
    s: &'a Stmt,
    nodes: &[Node],
    parent: Option<NodeId>,
    cx: &LeafCx<'_>,
    leaf: &mut Leaf,
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
            let (callee, tainted) = cx.names.callee(*func);
            leaf.tainted = tainted;
            (label.into(), Some(callee), None)
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
        StmtKind::Throw(t) => ("Throw".into(), Some(t.key()), None),
        StmtKind::External {
            dest, callee, args, ..
        } => {
            if let Some(d) = dest {
                kids.push(Work::Place(d, s.span));
            }
            kids.extend(args.iter().map(Work::Expr));
            let label = if dest.is_some() {
                "ExternalAssign"
            } else {
                "External"
            };
            (label.into(), Some(callee.clone()), None)
        }
        StmtKind::Try {
            body,
            catches,
            finally,
        } => {
            kids.push(Work::Group("TryBody", body, s.span));
            for c in catches {
                kids.push(Work::Leaf("Caught", Some(c.classes.join("|")), s.span));
                kids.push(Work::Group("CatchBody", &c.body, s.span));
            }
            kids.push(Work::Group("Finally", finally, s.span));
            ("Try".into(), None, None)
        }
    }
}
