//! Block extraction: maximal runs of common statements at the same nesting
//! level, each checked equal in both versions and given its inputs and
//! outputs.
//!
//! Driven by the new version: its statement lists are scanned in order; a
//! statement whose GumTree partner is the next statement of the old run
//! extends the run, as long as the two runs stay equal modulo renaming and
//! nothing in the run blocks abstraction. A statement that cannot start a
//! run is opened up: the statement lists nested in it are scanned instead.
//! So a changed `if` keeps its condition concrete while the common code in
//! its branches is still abstracted, and `return`s are never abstracted.

use super::canonical::Canon;
use super::effects::{self, ArrayRoot, Effects, child_blocks, run_effects};
use super::{
    Abstraction, BlockId, BlockInfo, Context, OverrideAction, OverrideReport, Plan, Refinable,
    Site, Slot, StmtKey, Var,
};
use crate::diff::StatementDiff;
use crate::ir::{Block, FuncId, Function, LocalId, Span, Stmt, StmtKind, Type};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;
use std::time::Instant;

/// The abstraction of every paired function under `plan`.
pub fn blocks_of(ctx: &Context<'_>, plan: &Plan) -> Abstraction {
    // Without a deadline it always answers.
    blocks_of_until(ctx, plan, None).unwrap_or_default()
}

/// [`blocks_of`], or `None` once `deadline` has passed (tested as the
/// statement lists are scanned).
pub fn blocks_of_until(
    ctx: &Context<'_>,
    plan: &Plan,
    deadline: Option<Instant>,
) -> Option<Abstraction> {
    let mut out = Abstraction::default();
    let mut next_id = 0u32;
    let mut pinned_count = vec![0usize; plan.overrides.len()];
    let mut refine_count = vec![0usize; plan.overrides.len()];
    let mut changed_in_abstract = vec![false; plan.overrides.len()];
    for &(o, n) in &ctx.pairs {
        let (Ok(old_fn), Ok(new_fn)) = (&ctx.old.function(o).body, &ctx.new.function(n).body)
        else {
            continue;
        };
        let partners = ctx.partners.get(&n).cloned().unwrap_or_default();
        let mut ex = Extractor {
            ctx,
            plan,
            old_fn,
            new_fn,
            new_id: n,
            partners,
            old_positions: positions(&old_fn.body),
            new_reads: effects::read_counts(&new_fn.body),
            old_reads: effects::read_counts(&old_fn.body),
            next_id: &mut next_id,
            out: &mut out,
            deadline,
            stopped: false,
        };
        ex.scan(&new_fn.body, 0, false);
        if ex.stopped {
            return None;
        }
        ex.note_old_changes();
        // Override bookkeeping: what each range touched.
        for (i, ov) in plan.overrides.iter().enumerate() {
            for s in preorder(&new_fn.body) {
                if !ov.covers(s.span) {
                    continue;
                }
                let common = ex.partners.contains_key(&StmtKey::of(s));
                match ov.action {
                    OverrideAction::Refine => refine_count[i] += 1,
                    OverrideAction::Abstract if !common => changed_in_abstract[i] = true,
                    OverrideAction::Abstract => {}
                }
            }
        }
    }
    for b in &out.blocks {
        for s in &b.statements {
            for (i, ov) in plan.overrides.iter().enumerate() {
                if ov.action == OverrideAction::Abstract && ov.covers(s.span) {
                    pinned_count[i] += 1;
                }
            }
        }
    }
    out.overrides = plan
        .overrides
        .iter()
        .enumerate()
        .map(|(i, ov)| {
            let (statements, note) = match ov.action {
                OverrideAction::Abstract => (
                    pinned_count[i],
                    if pinned_count[i] == 0 {
                        Some("no abstractable common code in this range".to_string())
                    } else if changed_in_abstract[i] {
                        Some("part of the range is changed code, which stays concrete".to_string())
                    } else {
                        None
                    },
                ),
                OverrideAction::Refine => (
                    refine_count[i],
                    (refine_count[i] == 0).then(|| "no statement in this range".to_string()),
                ),
            };
            OverrideReport {
                over: ov.clone(),
                statements,
                note,
            }
        })
        .collect();
    Some(out)
}

/// Statements of a body in preorder: a statement, then the statements
/// nested in it in order — the order of [`StatementDiff`]'s entries.
fn preorder(body: &Block) -> Vec<&Stmt> {
    let mut out = Vec::new();
    let mut stack: Vec<&Stmt> = body.iter().rev().collect();
    while let Some(s) = stack.pop() {
        out.push(s);
        for b in child_blocks(s).into_iter().rev() {
            stack.extend(b.iter().rev());
        }
    }
    out
}

/// New statement → its GumTree partner in the old version.
pub(super) fn partners(
    old_fn: &Function,
    new_fn: &Function,
    diff: &StatementDiff,
) -> FxHashMap<StmtKey, StmtKey> {
    let old_pre = preorder(&old_fn.body);
    let new_pre = preorder(&new_fn.body);
    let mut out = FxHashMap::default();
    if old_pre.len() != diff.old.len() || new_pre.len() != diff.new.len() {
        // The diff does not describe these bodies; abstract nothing.
        return out;
    }
    for (j, e) in diff.new.iter().enumerate() {
        if let Some(&old) = e.partner_index.and_then(|i| old_pre.get(i)) {
            out.insert(StmtKey::of(new_pre[j]), StmtKey::of(old));
        }
    }
    out
}

/// Every statement of a body → (its statement list, its index there).
fn positions(body: &Block) -> FxHashMap<StmtKey, (&[Stmt], usize)> {
    let mut out = FxHashMap::default();
    let mut stack: Vec<&[Stmt]> = vec![body];
    while let Some(list) = stack.pop() {
        for (i, s) in list.iter().enumerate() {
            out.insert(StmtKey::of(s), (list, i));
            for b in child_blocks(s) {
                stack.push(b);
            }
        }
    }
    out
}

struct Extractor<'c, 'a> {
    ctx: &'c Context<'a>,
    plan: &'c Plan,
    old_fn: &'a Function,
    new_fn: &'a Function,
    new_id: FuncId,
    partners: FxHashMap<StmtKey, StmtKey>,
    old_positions: FxHashMap<StmtKey, (&'a [Stmt], usize)>,
    new_reads: FxHashMap<LocalId, usize>,
    old_reads: FxHashMap<LocalId, usize>,
    next_id: &'c mut u32,
    out: &'c mut Abstraction,
    deadline: Option<Instant>,
    /// The deadline passed: the scan stopped, the abstraction is partial.
    stopped: bool,
}

impl<'a> Extractor<'_, 'a> {
    fn scan(&mut self, list: &'a [Stmt], loop_depth: u32, under_change: bool) {
        let mut j = 0;
        while j < list.len() {
            if self.stopped || (j % 64 == 0 && self.deadline.is_some_and(crate::cancel::expired)) {
                self.stopped = true;
                return;
            }
            if let Some(len) = self.try_block(list, j, loop_depth, under_change) {
                j += len;
                continue;
            }
            let s = &list[j];
            let changed = !self.equal_to_partner(s);
            if changed {
                self.note_changed(s);
            }
            let inner = loop_depth + u32::from(matches!(s.kind, StmtKind::Loop { .. }));
            let compound = !child_blocks(s).is_empty();
            // Nothing inside a `try` is abstracted: a run failing midway
            // leaves locals that a `catch` or `finally` reads as they were
            // at the failure, which the run's function cannot say.
            if !matches!(s.kind, StmtKind::Try { .. }) {
                for b in child_blocks(s) {
                    self.scan(b, inner, under_change || (compound && changed));
                }
            }
            j += 1;
        }
    }

    /// Whether `s` has a GumTree partner equal to it modulo renaming.
    fn equal_to_partner(&self, s: &Stmt) -> bool {
        let Some(&(list, i)) = self
            .partners
            .get(&StmtKey::of(s))
            .and_then(|k| self.old_positions.get(k))
        else {
            return false;
        };
        let mut canon = Canon::new(
            self.ctx.old,
            self.old_fn,
            self.ctx.new,
            self.new_fn,
            &self.ctx.unchanged,
        );
        canon.stmts(&list[i..=i], std::slice::from_ref(s))
    }

    /// Records what a changed statement itself reads and writes (a
    /// compound's own condition only: its nested statements are scanned on
    /// their own).
    fn note_changed(&mut self, s: &Stmt) {
        let (reads, writes) = if child_blocks(s).is_empty() {
            self.vars_of(std::slice::from_ref(s))
        } else {
            (own_reads(s, self.new_id, Some), Vec::new())
        };
        self.out.changed_reads.extend(reads);
        self.out.changed_writes.extend(writes);
    }

    /// The old version's changed statements (no equal partner in the new
    /// version) are seeds of impact too: `return y - 1` → `return a` makes
    /// what computes `y` impacted. Their locals are translated through the
    /// matcher's bijection; a local with no new counterpart is read by no
    /// new statement and is dropped.
    fn note_old_changes(&mut self) {
        let bijection = self
            .ctx
            .locals
            .get(&self.new_id)
            .cloned()
            .unwrap_or_default();
        let new_pre = preorder(&self.new_fn.body);
        let equal_partners: FxHashSet<StmtKey> = new_pre
            .iter()
            .filter(|s| self.equal_to_partner(s))
            .filter_map(|s| self.partners.get(&StmtKey::of(s)).copied())
            .collect();
        let (old_prog, old_effects) = (self.ctx.old, &self.ctx.old_effects);
        for s in preorder(&self.old_fn.body) {
            if equal_partners.contains(&StmtKey::of(s)) {
                continue;
            }
            let (reads, writes) = if child_blocks(s).is_empty() {
                let e = run_effects(old_prog, old_effects, std::slice::from_ref(s));
                let globals = |gs: &BTreeSet<crate::ir::GlobalId>| -> Vec<Var> {
                    gs.iter()
                        .map(|g| Var::Global(old_prog.global(*g).name.clone()))
                        .collect()
                };
                let mut r: Vec<Var> = e
                    .reads
                    .iter()
                    .filter_map(|l| bijection.get(l))
                    .map(|l| Var::Local(self.new_id, *l))
                    .collect();
                r.extend(globals(&e.reads_globals));
                let mut w: Vec<Var> = e
                    .writes
                    .iter()
                    .filter_map(|l| bijection.get(l))
                    .map(|l| Var::Local(self.new_id, *l))
                    .collect();
                w.extend(globals(&e.writes_globals));
                (r, w)
            } else {
                let reads = own_reads(s, self.new_id, |l| bijection.get(&l).copied());
                (reads, Vec::new())
            };
            self.out.changed_reads.extend(reads);
            self.out.changed_writes.extend(writes);
        }
    }

    /// Variables a run reads and may write, globals by name.
    fn vars_of(&self, run: &[Stmt]) -> (Vec<Var>, Vec<Var>) {
        let e = run_effects(self.ctx.new, &self.ctx.new_effects, run);
        let global = |g: &crate::ir::GlobalId| Var::Global(self.ctx.new.global(*g).name.clone());
        let root = |r: &ArrayRoot| match r {
            ArrayRoot::Local(l) => Var::Local(self.new_id, *l),
            ArrayRoot::Global(g) => global(g),
        };
        let mut reads: Vec<Var> = e
            .reads
            .iter()
            .map(|l| Var::Local(self.new_id, *l))
            .collect();
        reads.extend(e.reads_globals.iter().map(global));
        reads.extend(e.arrays.iter().map(root));
        let mut writes: Vec<Var> = e
            .writes
            .iter()
            .map(|l| Var::Local(self.new_id, *l))
            .collect();
        writes.extend(e.writes_globals.iter().map(global));
        writes.extend(e.stores.iter().map(root));
        (reads, writes)
    }

    /// May `s` be part of a block at all (before checking it against the old
    /// version)?
    fn eligible(&self, s: &Stmt) -> bool {
        if self.plan.refined.contains(&StmtKey::of(s)) {
            return false;
        }
        if self
            .plan
            .overrides
            .iter()
            .any(|o| o.action == OverrideAction::Refine && o.covers(s.span))
        {
            return false;
        }
        !matches!(
            s.kind,
            StmtKind::Return(_) | StmtKind::Break(_) | StmtKind::Continue(_)
        )
    }

    /// Tries to start a block at `list[j]`; returns its length.
    fn try_block(
        &mut self,
        list: &'a [Stmt],
        j: usize,
        loop_depth: u32,
        under_change: bool,
    ) -> Option<usize> {
        let first = &list[j];
        if !self.eligible(first) {
            return None;
        }
        let old_key = self.partners.get(&StmtKey::of(first))?;
        let &(old_list, old_pos) = self.old_positions.get(old_key)?;
        let mut canon = Canon::new(
            self.ctx.old,
            self.old_fn,
            self.ctx.new,
            self.new_fn,
            &self.ctx.unchanged,
        );
        let mut len = 0;
        while j + len < list.len() && old_pos + len < old_list.len() {
            let s = &list[j + len];
            let o = &old_list[old_pos + len];
            if !self.eligible(s)
                || self.partners.get(&StmtKey::of(s)) != Some(&StmtKey::of(o))
                || (self.plan.keep_constants && self.is_constant(s))
            {
                break;
            }
            // Whether a run blocks abstraction, escapes or throws is
            // whether one of its statements does: a label a statement
            // jumps to is bound by a statement enclosing it, never by a
            // sibling. So each statement is looked at once.
            let e = run_effects(self.ctx.new, &self.ctx.new_effects, std::slice::from_ref(s));
            let eo = run_effects(self.ctx.old, &self.ctx.old_effects, std::slice::from_ref(o));
            if e.blocker.is_some()
                || e.escapes
                || e.throws
                || eo.blocker.is_some()
                || eo.escapes
                || eo.throws
            {
                break;
            }
            if !canon.try_stmts(std::slice::from_ref(o), std::slice::from_ref(s)) {
                break;
            }
            len += 1;
        }
        if len == 0 {
            return None;
        }
        let new_run = &list[j..j + len];
        let old_run = &old_list[old_pos..old_pos + len];
        let site_new = self.site(new_run, &canon)?;
        if self.plan.keep_constants
            && site_new.inputs.is_empty()
            && !run_effects(self.ctx.new, &self.ctx.new_effects, new_run).has_loop
        {
            return None;
        }
        let site_old = self.translate(&site_new, &canon)?;
        let id = BlockId(*self.next_id);
        *self.next_id += 1;
        let e = run_effects(self.ctx.new, &self.ctx.new_effects, new_run);
        let info = BlockInfo {
            id,
            function: self.ctx.new.function(self.new_id).name.clone(),
            old_span: cover(old_run),
            new_span: cover(new_run),
            statements: new_run
                .iter()
                .map(|s| {
                    let (reads, writes) = self.vars_of(std::slice::from_ref(s));
                    (s, reads, writes)
                })
                .map(|(s, reads, writes)| Refinable {
                    key: StmtKey::of(s),
                    reads,
                    writes,
                    span: s.span,
                    score: loop_depth + nested_loop_depth(s) + self.nonlinear(s),
                    pinned: self
                        .plan
                        .overrides
                        .iter()
                        .any(|o| o.action == OverrideAction::Abstract && o.covers(s.span)),
                })
                .collect(),
            inputs: site_new.inputs.len(),
            outputs: site_new.outputs.len(),
            contains_loop: e.has_loop,
            under_change,
        };
        let len_new = site_new.len;
        self.out.new.map.insert(
            StmtKey::of(&new_run[0]),
            Site {
                block: id,
                ..site_new
            },
        );
        self.out.old.map.insert(
            StmtKey::of(&old_run[0]),
            Site {
                block: id,
                ..site_old
            },
        );
        self.out.blocks.push(info);
        Some(len_new)
    }

    /// A loop-free statement that reads no variable: it computes constants.
    fn is_constant(&self, s: &Stmt) -> bool {
        let e = run_effects(self.ctx.new, &self.ctx.new_effects, std::slice::from_ref(s));
        let globals = &self.ctx.new.globals;
        !e.has_loop
            && e.reads.is_empty()
            && e.arrays.is_empty()
            && e.reads_globals.iter().all(|g| {
                globals
                    .get(g.0 as usize)
                    .is_some_and(|g| g.constant.is_some())
            })
    }

    fn nonlinear(&self, s: &Stmt) -> u32 {
        run_effects(self.ctx.new, &self.ctx.new_effects, std::slice::from_ref(s)).nonlinear
    }

    /// Inputs and outputs of the new run, in the new version's ids.
    fn site(&self, run: &[Stmt], canon: &Canon<'_>) -> Option<Site> {
        let e: Effects = run_effects(self.ctx.new, &self.ctx.new_effects, run);
        let (early, defined) = effects::definitely_written_first(run);
        let f = self.new_fn;
        let ty = |l: LocalId| f.locals.get(l.0 as usize).map(|x| x.ty.clone());
        // Scalars read before being written, or possibly left unwritten.
        let mut inputs: Vec<Slot> = Vec::new();
        let mut scalar_in: BTreeSet<LocalId> = early.clone();
        scalar_in.extend(e.writes.difference(&defined).copied());
        for l in scalar_in {
            let t = ty(l)?;
            if !matches!(t, Type::Array(_)) {
                inputs.push(Slot::Local(l, t));
            }
        }
        let globals = &self.ctx.new.globals;
        for g in e.reads_globals.union(&e.writes_globals) {
            let t = globals.get(g.0 as usize)?.ty.clone();
            if !matches!(t, Type::Array(_)) && globals[g.0 as usize].constant.is_none() {
                inputs.push(Slot::Global(*g, t));
            }
        }
        // An array root as a slot: the object the variable refers to.
        let root_slot = |r: &ArrayRoot| -> Option<Slot> {
            Some(match r {
                ArrayRoot::Local(l) => Slot::Local(*l, ty(*l)?),
                ArrayRoot::Global(g) => Slot::Global(*g, globals.get(g.0 as usize)?.ty.clone()),
            })
        };
        for r in &e.arrays {
            inputs.push(root_slot(r)?);
        }
        // Outputs: written scalars that are read anywhere in either version
        // (after the block, or by the block itself on a later loop
        // iteration; both versions, since liveness may differ between
        // them), written globals, stored arrays.
        let mut outputs = Vec::new();
        for &l in &e.writes {
            let t = ty(l)?;
            if matches!(t, Type::Array(_)) {
                continue;
            }
            let read_new = self.new_reads.get(&l).copied().unwrap_or(0) > 0;
            let read_old = canon
                .old_local(l)
                .and_then(|o| self.old_reads.get(&o))
                .is_some_and(|&n| n > 0);
            if read_new || read_old {
                outputs.push(Slot::Local(l, t));
            }
        }
        for g in &e.writes_globals {
            let t = globals.get(g.0 as usize)?.ty.clone();
            if !matches!(t, Type::Array(_)) {
                outputs.push(Slot::Global(*g, t));
            }
        }
        for r in &e.stores {
            outputs.push(root_slot(r)?);
        }
        if e.may_fault {
            // A run that fails midway leaves each global it writes as it was
            // before the run or as the run set it: the failing outcome's
            // state is a function of the inputs only with those entry
            // values among them (else two versions whose values differ
            // before the run would be taken to agree after a fault in it).
            // Locals do not outlive a failure (outside a `try`, and runs
            // inside one are not abstracted); arrays written are inputs
            // already.
            for o in &outputs {
                if matches!(o, Slot::Global(..)) && !inputs.contains(o) {
                    inputs.push(o.clone());
                }
            }
        }
        Some(Site {
            block: BlockId(0),
            len: run.len(),
            inputs,
            outputs,
            may_fault: e.may_fault,
            prints: e.prints,
        })
    }

    /// The same site in the old version's ids, through the renaming.
    fn translate(&self, site: &Site, canon: &Canon<'_>) -> Option<Site> {
        let map = |s: &Slot| -> Option<Slot> {
            match s {
                Slot::Local(l, t) => Some(Slot::Local(canon.old_local(*l)?, t.clone())),
                Slot::Global(g, t) => {
                    let name = &self.ctx.new.global(*g).name;
                    Some(Slot::Global(self.ctx.old.find_global(name)?, t.clone()))
                }
            }
        };
        Some(Site {
            block: site.block,
            len: site.len,
            inputs: site.inputs.iter().map(map).collect::<Option<_>>()?,
            outputs: site.outputs.iter().map(map).collect::<Option<_>>()?,
            may_fault: site.may_fault,
            prints: site.prints,
        })
    }
}

/// The locals a compound statement's own expressions (its condition) read,
/// as variables of the new function `f` through `map`.
fn own_reads(s: &Stmt, f: FuncId, map: impl Fn(LocalId) -> Option<LocalId>) -> Vec<Var> {
    let mut set = BTreeSet::new();
    effects::for_each_expr(s, &mut |e| effects::expr_locals(e, &mut set));
    set.into_iter()
        .filter_map(map)
        .map(|l| Var::Local(f, l))
        .collect()
}

/// Deepest loop nesting inside a statement (1 for a loop without inner
/// loops, 0 for straight-line code).
fn nested_loop_depth(s: &Stmt) -> u32 {
    let own = u32::from(matches!(s.kind, StmtKind::Loop { .. }));
    own + child_blocks(s)
        .into_iter()
        .flat_map(|b| b.iter())
        .map(nested_loop_depth)
        .max()
        .unwrap_or(0)
}

fn cover(run: &[Stmt]) -> Span {
    match (run.first(), run.last()) {
        (Some(a), Some(b)) => Span {
            start: a.span.start,
            end: b.span.end,
        },
        _ => Span::default(),
    }
}
