//! ARDiff-style abstraction of common code: which runs of statements the two
//! versions share, and how each becomes uninterpreted functions of its
//! inputs — the same function symbols in both versions, so that equal inputs
//! give equal outputs.
//!
//! The result, an [`Abstraction`], is plain data keyed by statement identity
//! ([`StmtKey`]); the symbolic executor consults it while encoding and
//! applies a block instead of executing its statements. Which blocks exist
//! is decided by a [`Plan`]: statements made concrete by refinement, and the
//! user's overrides (`--abstract`/`--refine` line ranges). This module does
//! no solving; the checkers in [`crate::check`] drive it.
//!
//! Soundness rests on three rules, each enforced here:
//! - a block is abstracted only if its two versions are equal modulo a
//!   consistent renaming ([`canonical`]), so one function describes both;
//! - its inputs include everything its result can depend on (locals read
//!   before being definitely written, locals it may leave unwritten, globals
//!   and arrays it touches, callees' effects), and its outputs everything it
//!   may change that is observed later; the executor refuses a block whose
//!   arrays alias;
//! - nothing that leaves the block (return, break/continue out of it),
//!   prints, or allocates arrays is abstracted.

pub mod canonical;
pub mod effects;
mod extract;

use crate::ir::{FuncId, GlobalId, LocalId, Program, Span, Stmt, Type};
use crate::scope::Scope;
use canonical::Unchanged;
use effects::FunctionEffectsMap;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic};

pub use extract::blocks_of;

/// The identity of a statement of a lowered program: its address. Stable
/// for as long as the programs are borrowed, which spans a whole check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtKey(usize);

impl StmtKey {
    pub fn of(s: &Stmt) -> StmtKey {
        StmtKey(std::ptr::from_ref(s) as usize)
    }
}

/// A block of common code, the same in both versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct BlockId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Version {
    Old,
    New,
}

/// A value flowing into or out of a block, in one version's ids. An array
/// slot stands for the array object the variable refers to: as an input its
/// length and contents, as an output its contents.
#[derive(Clone, Debug, PartialEq)]
pub enum Slot {
    Local(LocalId, Type),
    Global(GlobalId, Type),
}

impl Slot {
    pub fn ty(&self) -> &Type {
        match self {
            Slot::Local(_, t) | Slot::Global(_, t) => t,
        }
    }
}

/// Where a block starts in one version, and what to do instead of running it.
#[derive(Clone, Debug)]
pub struct Site {
    pub block: BlockId,
    /// Number of statements of the enclosing statement list it replaces.
    pub len: usize,
    /// Inputs and outputs, position by position the same in both versions.
    pub inputs: Vec<Slot>,
    pub outputs: Vec<Slot>,
    /// The block may fail (division by zero, index out of bounds, undefined
    /// behaviour): its outcome code is then also a function of its inputs.
    pub may_fault: bool,
    /// The block may print: the items it prints are a function of its
    /// inputs too, appended to the output so far.
    pub prints: bool,
}

/// A variable, for the dependence analysis of IMP-S: a local of a function
/// (new version ids) or a global by name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    Local(FuncId, LocalId),
    Global(String),
}

/// A statement of a block that refinement can make concrete.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Refinable {
    #[serde(skip)]
    pub key: StmtKey,
    /// What it reads and may write (for impact analysis).
    #[serde(skip)]
    pub reads: Vec<Var>,
    #[serde(skip)]
    pub writes: Vec<Var>,
    /// Span in the new version.
    pub span: Span,
    /// ARDiff's H3: loop-nesting depth plus non-linear operators. Lower is
    /// refined first.
    pub score: u32,
    /// Covered by an `--abstract` override: never refined.
    pub pinned: bool,
}

/// One abstracted block, for reports and for the refinement heuristics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BlockInfo {
    pub id: BlockId,
    /// The function it is in (by name).
    pub function: String,
    pub old_span: Span,
    pub new_span: Span,
    /// Top-level statements of the block, in order.
    pub statements: Vec<Refinable>,
    pub inputs: usize,
    pub outputs: usize,
    /// Contains a loop or (transitively) a recursive call: the proof then
    /// compares only executions in which it terminates.
    pub contains_loop: bool,
    /// Nested in a changed `if` or loop: control-dependent on a change.
    pub under_change: bool,
}

/// Force a line range of the new version abstract or concrete: the editor's
/// "abstract/refine this block" action and the CLI's `--abstract`/`--refine`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Override {
    pub action: OverrideAction,
    /// One-based, inclusive, in the new version.
    pub first_line: u32,
    pub last_line: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OverrideAction {
    /// Keep abstracted: refinement never makes these statements concrete.
    Abstract,
    /// Keep concrete: never abstracted.
    Refine,
}

impl Override {
    /// Whether a statement falls inside the range (its first line does).
    pub fn covers(&self, span: Span) -> bool {
        let line = span.line();
        self.first_line <= line && line <= self.last_line
    }
}

impl std::fmt::Display for Override {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.action {
            OverrideAction::Abstract => "abstract",
            OverrideAction::Refine => "refine",
        };
        if self.first_line == self.last_line {
            write!(f, "{what} {}", self.first_line)
        } else {
            write!(f, "{what} {}-{}", self.first_line, self.last_line)
        }
    }
}

/// How an override was honoured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverrideReport {
    #[serde(rename = "override")]
    pub over: Override,
    /// Statements of common code it applied to.
    pub statements: usize,
    /// Why it could not apply (to some of) its range, e.g. the range holds
    /// changed code, which can never share a function with the other version.
    pub note: Option<String>,
}

/// What to abstract: everything common, except these statements (new
/// version) which refinement or the user made concrete.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub refined: FxHashSet<StmtKey>,
    pub overrides: Vec<Override>,
    /// Keep loop-free blocks without inputs concrete: they compute
    /// constants, hiding them gains nothing and costs refinements (a
    /// constant loop bound behind a function makes the loop symbolic).
    /// ARDiff as published abstracts them too; `dse` and `imps` do.
    pub keep_constants: bool,
}

/// Sites of one version.
#[derive(Clone, Debug, Default)]
pub struct Sites {
    map: FxHashMap<StmtKey, Site>,
}

impl Sites {
    pub fn at(&self, s: &Stmt) -> Option<&Site> {
        self.map.get(&StmtKey::of(s))
    }
    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The abstraction of a method pair under one plan.
#[derive(Clone, Debug, Default)]
pub struct Abstraction {
    pub old: Sites,
    pub new: Sites,
    pub blocks: Vec<BlockInfo>,
    pub overrides: Vec<OverrideReport>,
    /// Variables read and written by the changed code of the new version
    /// (statements with no equal partner, and the conditions of changed
    /// `if`s and loops): the seeds of IMP-S's impact analysis.
    pub changed_reads: std::collections::BTreeSet<Var>,
    pub changed_writes: std::collections::BTreeSet<Var>,
}

impl Abstraction {
    pub fn sites(&self, v: Version) -> &Sites {
        match v {
            Version::Old => &self.old,
            Version::New => &self.new,
        }
    }
    pub fn block(&self, id: BlockId) -> Option<&BlockInfo> {
        self.blocks.iter().find(|b| b.id == id)
    }
}

/// What is computed once per pair of programs and reused by every plan.
pub struct Context<'a> {
    pub old: &'a Program,
    pub new: &'a Program,
    pub unchanged: Unchanged,
    pub old_effects: FunctionEffectsMap,
    pub new_effects: FunctionEffectsMap,
    /// Function pairs (old, new) paired by name and arity, both lowered.
    pub pairs: Vec<(FuncId, FuncId)>,
    /// Per new function of a pair: each new statement's GumTree partner.
    pub partners: FxHashMap<FuncId, FxHashMap<StmtKey, StmtKey>>,
    /// Per new function of a pair: the matcher's old → new local bijection.
    pub locals: FxHashMap<FuncId, FxHashMap<LocalId, LocalId>>,
}

impl<'a> Context<'a> {
    pub fn new(old: &'a Program, new: &'a Program) -> Context<'a> {
        Context::new_in(old, new, &Scope::whole(old, new), None)
            .expect("without a deadline a context is always built")
    }

    /// The context for checking the pair `o` → `n`: only what it can reach
    /// (see [`Scope`]), so that its cost does not grow with the file.
    pub fn for_pair(old: &'a Program, new: &'a Program, o: FuncId, n: FuncId) -> Context<'a> {
        let scope = Scope::of_pair(old, new, o, n);
        Context::new_in(old, new, &scope, None)
            .expect("without a deadline a context is always built")
    }

    /// [`Context::for_pair`], or `None` once `deadline` has passed: the
    /// deadline is tested between the functions matched, so the time
    /// spent past it is at most one function's matching.
    pub fn for_pair_until(
        old: &'a Program,
        new: &'a Program,
        o: FuncId,
        n: FuncId,
        deadline: Instant,
    ) -> Option<Context<'a>> {
        let scope = Scope::of_pair(old, new, o, n);
        Context::new_in(old, new, &scope, Some(deadline))
    }

    fn new_in(
        old: &'a Program,
        new: &'a Program,
        scope: &Scope,
        deadline: Option<Instant>,
    ) -> Option<Context<'a>> {
        let expired = || deadline.is_some_and(crate::cancel::expired);
        let mut pairs = Vec::new();
        for &i in scope.new_members() {
            let d = new.function(i);
            if d.body.is_err() {
                continue;
            }
            let mut same = old.find(&d.name).filter(|(j, o)| {
                o.arity == d.arity && o.owner == d.owner && o.body.is_ok() && scope.has_old(*j)
            });
            if let (Some((o, _)), None) = (same.next(), same.next()) {
                pairs.push((o, i));
            }
        }
        let diff_cx = crate::diff::DiffContext::for_scope_until(old, new, scope, deadline)?;
        let mut partners = FxHashMap::default();
        let mut locals = FxHashMap::default();
        for &(o, n) in &pairs {
            if expired() {
                return None;
            }
            if let (Ok(fo), Ok(fnew)) = (&old.function(o).body, &new.function(n).body) {
                let d = crate::diff::diff_functions_in(&diff_cx, fo, fnew);
                partners.insert(n, extract::partners(fo, fnew, &d));
                locals.insert(n, d.locals.iter().copied().collect());
            }
        }
        let unchanged = Unchanged::compute_in(old, new, scope);
        if expired() {
            return None;
        }
        let context = Context {
            old,
            new,
            partners,
            locals,
            unchanged,
            old_effects: effects::function_effects_in(old, scope.old_members()),
            new_effects: effects::function_effects_in(new, scope.new_members()),
            pairs,
        };
        (!expired()).then_some(context)
    }

    /// Whether the old function is equal to its new version modulo
    /// renaming, callees included: then the pair is equivalent outright.
    pub fn identical(&self, old: FuncId, new: FuncId) -> bool {
        self.unchanged.partner(old) == Some(new)
    }

    /// The abstraction under `plan`.
    pub fn abstraction(&self, plan: &Plan) -> Abstraction {
        blocks_of(self, plan)
    }

    /// [`Context::abstraction`], or `None` once `deadline` has passed.
    pub fn abstraction_until(&self, plan: &Plan, deadline: Instant) -> Option<Abstraction> {
        extract::blocks_of_until(self, plan, Some(deadline))
    }
}

/// Applications of the block functions met while encoding both versions.
///
/// Each application gets fresh result constants, and [`Self::consistency`]
/// states that equal arguments give equal results (Ackermann's reduction of
/// uninterpreted functions): the same meaning as a Z3 function symbol, but
/// every application is a named term the refinement heuristics can quantify
/// over and count.
#[derive(Default)]
pub struct Applications {
    pub apps: Vec<Application>,
}

pub struct Application {
    pub block: BlockId,
    pub version: Version,
    pub args: Vec<Dynamic>,
    /// One per output, then the outcome code when the block may fault, then
    /// the printed items (count, tags, integer and real payloads) when it
    /// may print.
    pub results: Vec<Dynamic>,
}

impl Applications {
    /// Results of an earlier application of the same block to syntactically
    /// the same arguments (terms are hash-consed): reusing them keeps the two
    /// versions' terms identical where their inputs are.
    pub fn reuse(&self, block: BlockId, args: &[Dynamic]) -> Option<Vec<Dynamic>> {
        self.apps
            .iter()
            .find(|a| {
                a.block == block
                    && a.args.len() == args.len()
                    && a.args
                        .iter()
                        .zip(args)
                        .all(|(x, y)| x.get_z3_ast() == y.get_z3_ast())
            })
            .map(|a| a.results.clone())
    }

    pub fn record(&mut self, app: Application) {
        self.apps.push(app);
    }

    /// Equal arguments → equal results, for every pair of applications of
    /// the same block whose results are not already the same terms.
    pub fn consistency(&self) -> Vec<Bool> {
        let mut out = Vec::new();
        for (i, a) in self.apps.iter().enumerate() {
            for b in &self.apps[i + 1..] {
                if a.block != b.block || a.args.len() != b.args.len() {
                    continue;
                }
                let same_results = a
                    .results
                    .iter()
                    .zip(&b.results)
                    .all(|(x, y)| x.get_z3_ast() == y.get_z3_ast());
                if same_results {
                    continue;
                }
                let args_eq: Vec<Bool> = a.args.iter().zip(&b.args).map(|(x, y)| x.eq(y)).collect();
                let res_eq: Vec<Bool> = a
                    .results
                    .iter()
                    .zip(&b.results)
                    .map(|(x, y)| x.eq(y))
                    .collect();
                out.push(Bool::and(&args_eq).implies(Bool::and(&res_eq)));
            }
        }
        out
    }

    /// Applications of `block` in one version (ARDiff's H2 compares them).
    pub fn count(&self, block: BlockId, version: Version) -> usize {
        self.apps
            .iter()
            .filter(|a| a.block == block && a.version == version)
            .count()
    }

    /// Blocks applied at least once.
    pub fn blocks(&self) -> Vec<BlockId> {
        let mut ids: Vec<BlockId> = self.apps.iter().map(|a| a.block).collect();
        ids.sort();
        ids.dedup();
        ids
    }
}

#[cfg(test)]
mod tests;
