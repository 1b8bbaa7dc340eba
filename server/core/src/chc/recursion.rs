//! The recursion rule: recursive functions summarised by Horn clause
//! relations, for pairs whose recursion the bounded checkers can only
//! unfold up to a depth.
//!
//! Each recursive function `f` of each version becomes a relation
//! `F(params, result)`: one clause per combination of the recursive calls a
//! run of `f`'s body makes, where each call is an atom `F(args, r)` with a
//! fresh `r` (the executor's [`CallAtom`]s) and the others' guards are
//! false. The least model of `F` is exactly the graph of `f` on the inputs
//! where it terminates. The query runs both entry methods over shared
//! inputs with their recursive calls as atoms and asks that no observable
//! differs. Spacer's model (an over-approximation of each graph, in
//! linear arithmetic) is the certificate.
//!
//! *What a proof means:* both versions return the same outcome on every
//! input on which **both terminate** (partial equivalence, as in the
//! Godlin–Strichman rule and REVE). Termination is not compared; the
//! verdict says so.
//!
//! *Invariants:* summarised functions and their callees store nothing the
//! caller sees, print nothing, cannot fault and hold no loops (checked
//! with [`crate::abstraction::effects`]), so a call is exactly its result.
//! Each clause is quantified over all of its constants; uninterpreted
//! functions are Ackermann constants constrained per clause, as in
//! `encode.rs`.

use super::encode::{Encoding, Relation};
use super::solve;
use crate::abstraction::effects::function_effects;
use crate::check::{FunctionSummary, Unknown, UnknownReason};
use crate::ir::{FuncId, Program, Semantics, Type};
use crate::symbolic::exec::{CallAtom, Executor, Summary};
use crate::symbolic::ops::{EncodeError, Ops, UfApplication, Ufs};
use crate::symbolic::{InputSpace, InputVar, Strings};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{FuncDecl, Sort};

/// Recursive calls in one run of a body: each combination of them taken or
/// not is a clause, so the clauses grow as 2^n.
const MAX_ATOMS_PER_BODY: usize = 6;
/// Recursive calls in both entry methods together, for the query.
const MAX_ATOMS_IN_QUERY: usize = 8;
/// Share of the budget for candidate summaries before Spacer.
const HOUDINI_SHARE: f64 = 0.3;

/// A proof by the recursion rule.
#[derive(Debug)]
pub struct RecursionProof {
    /// Spacer's summary of each recursive function: the certificate.
    pub summaries: Vec<FunctionSummary>,
    /// What the proof assumes, in words.
    pub assumptions: Vec<String>,
}

/// Each function's direct callees.
fn call_graph(program: &Program) -> Vec<BTreeSet<FuncId>> {
    program
        .functions
        .iter()
        .map(|d| match &d.body {
            Ok(f) => crate::diff::callees(f).into_iter().collect(),
            Err(_) => BTreeSet::new(),
        })
        .collect()
}

/// The functions `from` reaches through calls (themselves included).
fn reachable(calls: &[BTreeSet<FuncId>], from: FuncId) -> BTreeSet<FuncId> {
    let mut seen: BTreeSet<FuncId> = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(f) = stack.pop() {
        if seen.insert(f)
            && let Some(c) = calls.get(f.0 as usize)
        {
            stack.extend(c.iter().copied());
        }
    }
    seen
}

/// The functions reachable from `entry` (itself included) that lie on a
/// cycle of the call graph.
pub fn recursive_functions(program: &Program, entry: FuncId) -> BTreeSet<FuncId> {
    let calls = call_graph(program);
    let reach = |from: &BTreeSet<FuncId>| {
        let mut seen: BTreeSet<FuncId> = BTreeSet::new();
        let mut stack: Vec<FuncId> = from.iter().copied().collect();
        while let Some(f) = stack.pop() {
            if seen.insert(f)
                && let Some(c) = calls.get(f.0 as usize)
            {
                stack.extend(c.iter().copied());
            }
        }
        seen
    };
    let reachable = reach(&BTreeSet::from([entry]));
    reachable
        .into_iter()
        .filter(|f| {
            calls
                .get(f.0 as usize)
                .is_some_and(|c| reach(c).contains(f))
        })
        .collect()
}

fn not_encodable(detail: impl Into<String>) -> Unknown {
    Unknown {
        reason: UnknownReason::NotEncodable,
        detail: detail.into(),
    }
}

fn encoding_error(e: EncodeError) -> Unknown {
    if e.is_timeout() {
        return Unknown {
            reason: UnknownReason::Timeout,
            detail: "encoding the recursion ran out of time".into(),
        };
    }
    not_encodable(format!("recursion: {}", e.what))
}

/// One version: its program, entry method and recursive functions.
struct Side<'p> {
    program: &'p Program,
    entry: FuncId,
    recursive: BTreeSet<FuncId>,
    in_old: bool,
}

impl Side<'_> {
    fn tag(&self) -> &'static str {
        if self.in_old { "old" } else { "new" }
    }

    fn name(&self, f: FuncId) -> &str {
        &self.program.function(f).name
    }

    /// Refuses what a summary cannot stand for: effects the caller would
    /// see, loops (the executor would only unroll them). Faults are
    /// refused where a run is encoded (its outcome must be a normal
    /// return): statically, every C operation "may fail" (undefined
    /// behaviour under `machine`).
    fn check_effects(&self) -> Result<(), Unknown> {
        // (`has_loop` counts recursion as a loop; loop statements are
        // looked for in the IR.)
        let effects = function_effects(self.program);
        let calls = call_graph(self.program);
        let loops_below = |f: FuncId| {
            reachable(&calls, f).into_iter().any(|g| {
                matches!(&self.program.function(g).body, Ok(b) if crate::ir::contains_loop(&b.body))
            })
        };
        for &f in &self.recursive {
            let Some(e) = effects.get(f.0 as usize) else {
                return Err(not_encodable("internal: function out of range"));
            };
            let why = if loops_below(f) {
                Some("holds a loop")
            } else if !e.writes_globals.is_empty() || e.stores_shared {
                Some("changes state its caller sees")
            } else if e.prints {
                Some("prints")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(not_encodable(format!(
                    "the recursive function {} ({} version) {why}: only pure recursion is \
                     summarised",
                    self.name(f),
                    self.tag()
                )));
            }
        }
        if loops_below(self.entry) {
            return Err(not_encodable(format!(
                "{} ({} version) has loops beside its recursion",
                self.name(self.entry),
                self.tag()
            )));
        }
        Ok(())
    }
}

/// The relations (one per recursive function per version) and the
/// clauses over them.
struct System {
    ops: Ops,
    relations: Vec<Relation>,
    index: HashMap<(bool, FuncId), usize>,
    clauses: Vec<HornClause>,
    /// Per relation, how many of its last parameters are results.
    results: Vec<usize>,
    /// Guards of recursive calls over the parameters of their run (with
    /// the constants standing for those).
    guards: Vec<Guard>,
    uninterpreted: BTreeSet<String>,
    lines: Vec<(Option<bool>, String, u32)>,
    product: Option<Product>,
}

impl System {
    fn declare(&mut self, side: &Side<'_>, f: FuncId) -> Result<(), Unknown> {
        let def = side.program.function(f);
        let func = def
            .body
            .as_ref()
            .map_err(|e| not_encodable(e.to_string()))?;
        let results: &[&str] = if matches!(func.ret, Type::Void) {
            &[]
        } else {
            &["result"]
        };
        let name = format!("{}.{}", side.tag(), def.name);
        let index = self.relation(name, func, results, (def.span, def.span))?;
        self.index.insert((side.in_old, f), index);
        self.lines
            .push((Some(side.in_old), def.name.clone(), def.span.line()));
        Ok(())
    }

    /// The product relation of the two entries: their parameters, then
    /// the old and the new result.
    fn declare_product(&mut self, sides: &[Side<'_>; 2]) -> Result<usize, Unknown> {
        let def = sides[0].program.function(sides[0].entry);
        let func = def
            .body
            .as_ref()
            .map_err(|e| not_encodable(e.to_string()))?;
        if matches!(func.ret, Type::Void) {
            return Err(not_encodable("recursive entries that return nothing"));
        }
        let spans = (def.span, sides[1].program.function(sides[1].entry).span);
        let name = format!("both.{}", def.name);
        let index = self.relation(name, func, &["old.result", "new.result"], spans)?;
        self.lines.push((None, def.name.clone(), def.span.line()));
        Ok(index)
    }

    /// A relation over `func`'s parameters and `results` (constants of its
    /// return sort, named so that the summary reads well).
    fn relation(
        &mut self,
        name: String,
        func: &crate::ir::Function,
        results: &[&str],
        (old_span, new_span): (crate::ir::Span, crate::ir::Span),
    ) -> Result<usize, Unknown> {
        let mut params = Vec::new();
        for p in &func.params {
            let local = func.local(*p);
            let sort = self.ops.sort(&local.ty).map_err(encoding_error)?;
            params.push(Dynamic::new_const(local.name.as_str(), &sort));
        }
        for r in results {
            let sort = self.ops.sort(&func.ret).map_err(encoding_error)?;
            params.push(Dynamic::new_const(*r, &sort));
        }
        let sorts: Vec<Sort> = params.iter().map(|p| p.get_sort()).collect();
        let refs: Vec<&Sort> = sorts.iter().collect();
        let decl = FuncDecl::new(name, &refs, &Sort::bool());
        let application =
            apply(&decl, &params).ok_or_else(|| not_encodable("internal: relation application"))?;
        let index = self.relations.len();
        self.relations.push(Relation {
            index,
            params,
            same_name: Vec::new(),
            decl,
            application,
            old_span,
            new_span,
        });
        self.results.push(results.len());
        Ok(index)
    }

    /// The relation application standing for `atom` of `side`.
    fn atom(&self, in_old: bool, atom: &CallAtom) -> Result<Application, Unknown> {
        let k = self
            .index
            .get(&(in_old, atom.func))
            .ok_or_else(|| not_encodable("internal: call to an unsummarised function"))?;
        let args: Vec<Dynamic> = atom
            .args
            .iter()
            .cloned()
            .chain(atom.result.iter().cloned())
            .collect();
        if args.len() != self.relations[*k].params.len() {
            return Err(not_encodable("internal: relation application (arity)"));
        }
        Ok((*k, args))
    }

    /// The clauses defining relation `k` by one run from its entry over
    /// `inputs`: `k(arguments, results)` in the head.
    #[allow(clippy::too_many_arguments)]
    fn define(
        &mut self,
        k: usize,
        inputs: &InputSpace,
        arguments: &[Dynamic],
        results: Vec<Dynamic>,
        applications: &[UfApplication],
        atoms: &[(bool, &CallAtom)],
        limit: usize,
    ) -> Result<(), Unknown> {
        let head_args: Vec<Dynamic> = arguments.iter().cloned().chain(results).collect();
        if head_args.len() != self.relations[k].params.len() {
            return Err(not_encodable("internal: relation head (arity)"));
        }
        self.add(
            Clause {
                quantified: &input_constants(inputs),
                arguments,
                hypotheses: &inputs.preconditions(),
                applications,
                body: Bool::from_bool(true),
                head: Some((k, head_args)),
            },
            atoms,
            limit,
        )
    }

    /// One clause per combination of `atoms` taken: `hypotheses ∧ taken
    /// guards ∧ their relations ∧ ¬(other guards) ∧ body → head`.
    fn add(
        &mut self,
        base: Clause<'_>,
        atoms: &[(bool, &CallAtom)],
        limit: usize,
    ) -> Result<(), Unknown> {
        if atoms.len() > limit {
            return Err(not_encodable(format!(
                "{} recursive calls in one body (at most {limit} are summarised)",
                atoms.len()
            )));
        }
        let (ack_hyps, ack_results) = ackermann(base.applications);
        for app in base.applications {
            self.uninterpreted
                .insert(app.key.split(':').next().unwrap_or("?").to_string());
        }
        let mut vars: Vec<Dynamic> = base.quantified.to_vec();
        vars.extend(ack_results);
        vars.extend(atoms.iter().filter_map(|(_, a)| a.result.clone()));
        // Guards over the parameters alone: candidate case splits for the
        // summaries (`summaries.rs`).
        let results: Vec<Dynamic> = atoms.iter().filter_map(|(_, a)| a.result.clone()).collect();
        for (_, a) in atoms {
            if !results
                .iter()
                .any(|r| super::encode::mentions(&Dynamic::from_ast(&a.guard), r))
            {
                self.guards.push((base.arguments.to_vec(), a.guard.clone()));
            }
        }
        for mask in 0u32..(1 << atoms.len()) {
            let taken: Vec<usize> = (0..atoms.len()).filter(|i| mask & (1 << i) != 0).collect();
            let couple = self.couple(atoms, &taken);
            let mut parts: Vec<Bool> = base.hypotheses.to_vec();
            parts.extend(ack_hyps.iter().cloned());
            let mut apps = Vec::new();
            for (i, (in_old, a)) in atoms.iter().enumerate() {
                if !taken.contains(&i) {
                    parts.push(a.guard.not());
                    continue;
                }
                parts.push(a.guard.clone());
                if couple.is_none_or(|(x, y)| i != x && i != y) {
                    apps.push(self.atom(*in_old, a)?);
                }
            }
            parts.push(base.body.clone());
            match couple {
                Some((x, y)) => {
                    // The two entries called on equal arguments: the
                    // product relation; on different ones: each alone.
                    let (a, b) = (atoms[x].1, atoms[y].1);
                    let same: Vec<Bool> =
                        a.args.iter().zip(&b.args).map(|(p, q)| p.eq(q)).collect();
                    let same = Bool::and(&same);
                    let mut coupled = (parts.clone(), apps.clone());
                    coupled.0.push(same.clone());
                    coupled.1.push(self.product(a, b)?);
                    self.emit(&vars, coupled.0, coupled.1, base.head.clone());
                    parts.push(same.not());
                    apps.extend([self.atom(true, a)?, self.atom(false, b)?]);
                    self.emit(&vars, parts, apps, base.head.clone());
                }
                None => self.emit(&vars, parts, apps, base.head.clone()),
            }
        }
        Ok(())
    }
}

impl System {
    /// `parts ∧ apps → head`, unless the body is false.
    fn emit(
        &mut self,
        vars: &[Dynamic],
        parts: Vec<Bool>,
        apps: Vec<Application>,
        head: Option<Application>,
    ) {
        // Simplified: the comparison of empty print logs (constant arrays)
        // disappears, and Spacer works in arithmetic alone.
        let body = Bool::and(&parts).simplify();
        if body.as_bool() == Some(false) {
            return;
        }
        self.clauses.push(HornClause {
            vars: vars.to_vec(),
            body,
            apps,
            head,
        });
    }

    /// With a product relation: the one taken call of the old entry and
    /// the one of the new entry, if so.
    fn couple(&self, atoms: &[(bool, &CallAtom)], taken: &[usize]) -> Option<(usize, usize)> {
        let p = self.product.as_ref()?;
        let calls = |in_old: bool, f: FuncId| -> Vec<usize> {
            taken
                .iter()
                .copied()
                .filter(|&i| {
                    atoms[i].0 == in_old && atoms[i].1.func == f && atoms[i].1.result.is_some()
                })
                .collect()
        };
        match (
            calls(true, p.old).as_slice(),
            calls(false, p.new).as_slice(),
        ) {
            ([x], [y]) => Some((*x, *y)),
            _ => None,
        }
    }

    /// The product relation applied to an old and a new call on equal
    /// arguments (the old call's).
    fn product(&self, a: &CallAtom, b: &CallAtom) -> Result<Application, Unknown> {
        let p = self
            .product
            .as_ref()
            .ok_or_else(|| not_encodable("internal: no product relation"))?;
        let (Some(ra), Some(rb)) = (&a.result, &b.result) else {
            return Err(not_encodable("internal: coupled void calls"));
        };
        let args: Vec<Dynamic> = a
            .args
            .iter()
            .cloned()
            .chain([ra.clone(), rb.clone()])
            .collect();
        if args.len() != self.relations[p.relation].params.len() {
            return Err(not_encodable("internal: product application (arity)"));
        }
        Ok((p.relation, args))
    }
}

/// `P(x, r_old, r_new)`: the old entry returns `r_old` on `x` and the new
/// one `r_new` (both terminating). When both entries are recursive, their
/// calls on equal arguments are coupled through it, so that the proof is
/// by induction over both recursions at once (REVE's coupling, for equal
/// arguments): `r_old = r_new` is then an inductive invariant, where
/// separate summaries would each have to be exact.
struct Product {
    old: FuncId,
    new: FuncId,
    relation: usize,
}

/// A relation applied to arguments.
pub type Application = (usize, Vec<Dynamic>);

/// A condition over the parameters of some run, with the constants that
/// stand for those parameters in it.
pub type Guard = (Vec<Dynamic>, Bool);

/// One Horn clause, unquantified: `body ∧ apps → head` (`None`: false),
/// for all values of `vars`.
pub struct HornClause {
    pub vars: Vec<Dynamic>,
    pub body: Bool,
    pub apps: Vec<Application>,
    pub head: Option<Application>,
}

impl HornClause {
    /// The clause as Spacer takes it: quantified, relations applied.
    fn rule(&self, relations: &[Relation]) -> Result<Bool, Unknown> {
        let app = |(k, args): &Application| {
            relations
                .get(*k)
                .and_then(|r| apply(&r.decl, args))
                .ok_or_else(|| not_encodable("internal: relation application (sorts)"))
        };
        let mut parts = vec![self.body.clone()];
        for a in &self.apps {
            parts.push(app(a)?);
        }
        let head = match &self.head {
            Some(h) => app(h)?,
            None => Bool::from_bool(false),
        };
        let vars: Vec<&dyn Ast> = self.vars.iter().map(|v| v as &dyn Ast).collect();
        Ok(z3::ast::forall_const(
            &vars,
            &[],
            &Bool::and(&parts).implies(head),
        ))
    }
}

/// What every clause of one body shares.
struct Clause<'a> {
    quantified: &'a [Dynamic],
    /// The constants standing for the run's parameters.
    arguments: &'a [Dynamic],
    hypotheses: &'a [Bool],
    applications: &'a [UfApplication],
    body: Bool,
    head: Option<Application>,
}

/// Every constant of an input space, to quantify.
fn input_constants(inputs: &InputSpace) -> Vec<Dynamic> {
    let mut out = Vec::new();
    for v in &inputs.vars {
        match v {
            InputVar::Scalar { value, .. } => out.extend(value.to_dyn()),
            InputVar::Array { len, data, .. } => {
                out.extend(len.to_dyn());
                out.push(Dynamic::from_ast(data));
            }
        }
    }
    out
}

/// Facts and Ackermann's constraints (equal arguments → equal results)
/// over the applications of one clause, and their results to quantify.
fn ackermann(apps: &[UfApplication]) -> (Vec<Bool>, Vec<Dynamic>) {
    let mut hyps: Vec<Bool> = apps.iter().flat_map(|a| a.facts.iter().cloned()).collect();
    for (i, a) in apps.iter().enumerate() {
        for b in &apps[i + 1..] {
            if a.key != b.key || a.args.len() != b.args.len() {
                continue;
            }
            let eqs: Vec<Bool> = a.args.iter().zip(&b.args).map(|(x, y)| x.eq(y)).collect();
            hyps.push(Bool::and(&eqs).implies(a.result.eq(&b.result)));
        }
    }
    (hyps, apps.iter().map(|a| a.result.clone()).collect())
}

/// A summary that ends normally and within every bound, or why not.
fn plain_run(summary: &Summary, what: &str) -> Result<(), Unknown> {
    if summary.bound_exceeded.simplify().as_bool() != Some(false) {
        return Err(not_encodable(format!(
            "{what} reaches a bound (a loop or non-summarised recursion in a callee)"
        )));
    }
    Ok(())
}

/// Tries to prove the pair equivalent where both terminate, with each
/// recursive function summarised by a Horn clause relation.
pub fn prove_recursive(
    ops: Ops,
    old: (&Program, FuncId),
    new: (&Program, FuncId),
    deadline: Instant,
) -> Result<RecursionProof, Unknown> {
    if ops.sem == Semantics::Machine {
        return Err(not_encodable(
            "machine semantics: Spacer finds no bit-vector summaries in time (the recursion \
             rule works under math semantics)",
        ));
    }
    let sides = [
        Side {
            program: old.0,
            entry: old.1,
            recursive: recursive_functions(old.0, old.1),
            in_old: true,
        },
        Side {
            program: new.0,
            entry: new.1,
            recursive: recursive_functions(new.0, new.1),
            in_old: false,
        },
    ];
    if sides.iter().all(|s| s.recursive.is_empty()) {
        return Err(not_encodable("no recursion"));
    }
    for side in &sides {
        side.check_effects()?;
    }
    let mut system = System {
        ops,
        relations: Vec::new(),
        index: HashMap::new(),
        clauses: Vec::new(),
        results: Vec::new(),
        guards: Vec::new(),
        uninterpreted: BTreeSet::new(),
        lines: Vec::new(),
        product: None,
    };
    for side in &sides {
        for &f in &side.recursive {
            system.declare(side, f)?;
        }
    }
    // The clauses defining each relation.
    for side in &sides {
        let summarized: HashSet<FuncId> = side.recursive.iter().copied().collect();
        for &f in &side.recursive {
            let mut inputs = InputSpace::default();
            let mut ufs = Ufs::ackermann();
            let mut strings = Strings::default();
            let mut apps = crate::abstraction::Applications::default();
            let (summary, atoms) = Executor::new(
                ops,
                side.program,
                &mut inputs,
                &mut ufs,
                &mut strings,
                0,
                deadline,
                None,
                &mut apps,
            )
            .run_summarizing(f, summarized.clone())
            .map_err(encoding_error)?;
            plain_run(&summary, side.name(f))?;
            if summary.outcome.simplify().as_i64() != Some(0) {
                return Err(not_encodable(format!(
                    "the recursive function {} may fail",
                    side.name(f)
                )));
            }
            let k = *system
                .index
                .get(&(side.in_old, f))
                .ok_or_else(|| not_encodable("internal: undeclared relation"))?;
            let tagged: Vec<(bool, &CallAtom)> = atoms.iter().map(|a| (side.in_old, a)).collect();
            let arguments = entry_arguments(&inputs, side.program, f)?;
            system.define(
                k,
                &inputs,
                &arguments,
                summary.ret.to_dyn().into_iter().collect(),
                ufs.applications(),
                &tagged,
                MAX_ATOMS_PER_BODY,
            )?;
        }
    }
    // The query: both entries over shared inputs, no observable differs.
    let mut inputs = InputSpace::default();
    let mut ufs = Ufs::ackermann();
    let mut strings = Strings::default();
    let mut runs = Vec::new();
    for side in &sides {
        let mut apps = crate::abstraction::Applications::default();
        let run = Executor::new(
            ops,
            side.program,
            &mut inputs,
            &mut ufs,
            &mut strings,
            0,
            deadline,
            None,
            &mut apps,
        )
        .run_summarizing(side.entry, side.recursive.iter().copied().collect())
        .map_err(encoding_error)?;
        plain_run(&run.0, side.name(side.entry))?;
        runs.push(run);
    }
    let (old_run, new_run) = (&runs[0], &runs[1]);
    let atoms: Vec<(bool, &CallAtom)> = old_run
        .1
        .iter()
        .map(|a| (true, a))
        .chain(new_run.1.iter().map(|a| (false, a)))
        .collect();
    let both_recursive = sides.iter().all(|s| s.recursive.contains(&s.entry));
    if both_recursive {
        // Both entries recursive: the product relation, defined by both
        // bodies over shared inputs, and the query over it.
        let relation = system.declare_product(&sides)?;
        system.product = Some(Product {
            old: old.1,
            new: new.1,
            relation,
        });
        let mut results = Vec::new();
        for run in [old_run, new_run] {
            if run.0.outcome.simplify().as_i64() != Some(0) {
                return Err(not_encodable("a recursive entry that may fail"));
            }
            results.extend(run.0.ret.to_dyn());
        }
        let arguments = entry_arguments(&inputs, old.0, old.1)?;
        system.define(
            relation,
            &inputs,
            &arguments,
            results,
            ufs.applications(),
            &atoms,
            MAX_ATOMS_IN_QUERY,
        )?;
        let r = &system.relations[relation];
        let n = r.params.len();
        let ret_ty = &old
            .0
            .function(old.1)
            .body
            .as_ref()
            .map_err(|e| not_encodable(e.to_string()))?
            .ret;
        let (r_old, r_new) = (
            ops.from_dyn(ret_ty, &r.params[n - 2])
                .map_err(encoding_error)?,
            ops.from_dyn(ret_ty, &r.params[n - 1])
                .map_err(encoding_error)?,
        );
        let differs = ops.obs_eq(&r_old, &r_new).map_err(encoding_error)?.not();
        let query = HornClause {
            vars: r.params.clone(),
            body: differs,
            apps: vec![(relation, r.params.clone())],
            head: None,
        };
        system.clauses.push(query);
    } else {
        let arguments = entry_arguments(&inputs, old.0, old.1)?;
        let (differs, witnesses) =
            crate::symbolic::difference(&ops, &inputs, &old_run.0, &new_run.0)
                .map_err(encoding_error)?;
        let mut quantified = input_constants(&inputs);
        quantified.extend(witnesses);
        system.add(
            Clause {
                quantified: &quantified,
                arguments: &arguments,
                hypotheses: &inputs.preconditions(),
                applications: ufs.applications(),
                body: differs,
                head: None,
            },
            &atoms,
            MAX_ATOMS_IN_QUERY,
        )?;
    }
    // Candidate summaries first (milliseconds when they apply), then
    // Spacer, which finds each summary alone at once but can lose itself
    // on the conjunction of two.
    let houdini_until = Instant::now()
        + deadline
            .saturating_duration_since(Instant::now())
            .mul_f64(HOUDINI_SHARE);
    let answer = match super::summaries::prove(
        &system.relations,
        &system.results,
        &system.clauses,
        &system.guards,
        houdini_until,
    ) {
        Some(formulas) => solve::Answer::Safe(formulas),
        None => {
            let rules = system
                .clauses
                .iter()
                .map(|c| c.rule(&system.relations))
                .collect::<Result<Vec<_>, _>>()?;
            let encoding = Encoding {
                rules,
                clauses: Vec::new(),
                relations: std::mem::take(&mut system.relations),
                uninterpreted: Vec::new(),
            };
            solve::solve(&encoding, deadline)
        }
    };
    match answer {
        solve::Answer::Safe(formulas) => {
            let summaries = system
                .lines
                .iter()
                .zip(formulas)
                .map(|((in_old, function, line), formula)| FunctionSummary {
                    version: match in_old {
                        Some(true) => "old",
                        Some(false) => "new",
                        None => "both",
                    }
                    .into(),
                    function: function.clone(),
                    line: *line,
                    formula,
                })
                .collect();
            // Under math semantics a call stack never overflows; a real
            // JVM or C stack does, and that is an outcome too.
            let mut assumptions =
                vec!["recursion depth is unbounded (no stack overflow)".to_string()];
            if !system.uninterpreted.is_empty() {
                assumptions.push(format!(
                    "{} treated as uninterpreted functions (equal arguments give equal results)",
                    system
                        .uninterpreted
                        .iter()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            Ok(RecursionProof {
                summaries,
                assumptions,
            })
        }
        solve::Answer::Unsafe => Err(Unknown {
            reason: UnknownReason::SolverUnknown,
            detail: "no function summaries show the versions equal where both terminate (they \
                     may differ, or the summaries need nonlinear arithmetic)"
                .into(),
        }),
        solve::Answer::Unknown(r) if r == "timeout" => Err(Unknown {
            reason: UnknownReason::Timeout,
            detail: "the CHC solver ran out of time on the recursion summaries".into(),
        }),
        solve::Answer::Unknown(r) => Err(Unknown {
            reason: UnknownReason::SolverUnknown,
            detail: format!("the CHC solver gave up on the recursion summaries: {r}"),
        }),
    }
}

/// The input constants standing for `f`'s parameters in a run from its
/// entry ([`Executor::run_summarizing`] names them `arg0`, `arg1`, ...).
fn entry_arguments(
    inputs: &InputSpace,
    program: &Program,
    f: FuncId,
) -> Result<Vec<Dynamic>, Unknown> {
    let def = program.function(f);
    let func = def
        .body
        .as_ref()
        .map_err(|e| not_encodable(e.to_string()))?;
    let mut out = Vec::new();
    for pos in 0..func.params.len() {
        let name = format!("arg{pos}");
        let value = inputs
            .vars
            .iter()
            .find(|v| v.name() == name)
            .and_then(|v| match v {
                InputVar::Scalar { value, .. } => value.to_dyn(),
                InputVar::Array { .. } => None,
            })
            .ok_or_else(|| {
                not_encodable(format!(
                    "the recursive function {} takes an array",
                    def.name
                ))
            })?;
        out.push(value);
    }
    Ok(out)
}

fn apply(decl: &FuncDecl, args: &[Dynamic]) -> Option<Bool> {
    let refs: Vec<&dyn Ast> = args.iter().map(|a| a as &dyn Ast).collect();
    decl.apply(&refs).as_bool()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;
    use std::time::Duration;

    /// Checks the first methods of two Java classes (the entry is the
    /// method named `f`).
    fn check(old: &str, new: &str) -> Result<RecursionProof, Unknown> {
        let (po, pn) = (
            crate::lang::lower(Lang::Java, &format!("class A {{ {old} }}")),
            crate::lang::lower(Lang::Java, &format!("class A {{ {new} }}")),
        );
        let entry = |p: &Program| {
            p.functions
                .iter()
                .position(|f| f.name == "f")
                .map(|i| FuncId(i as u32))
                .expect("a method f")
        };
        let ops = Ops {
            sem: Semantics::Math,
            lang: Lang::Java,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        prove_recursive(ops, (&po, entry(&po)), (&pn, entry(&pn)), deadline)
    }

    const COUNT: &str = "int f(int x) { if (x > 0) { return f(x - 1) + 1; } return 0; }";

    #[test]
    fn finds_recursive_functions_reachable_from_the_entry() {
        let p = crate::lang::lower(
            Lang::Java,
            "class A { int f(int x) { return g(x) + h(x); } \
             int g(int x) { if (x > 0) { return g(x - 1); } return 0; } \
             int h(int x) { return x; } \
             int unused(int x) { return unused(x); } \
             int even(int x) { if (x == 0) { return 1; } return odd(x - 1); } \
             int odd(int x) { if (x == 0) { return 0; } return even(x - 1); } }",
        );
        let id = |name: &str| {
            FuncId(
                p.functions
                    .iter()
                    .position(|f| f.name == name)
                    .expect("declared") as u32,
            )
        };
        assert_eq!(recursive_functions(&p, id("f")), BTreeSet::from([id("g")]));
        assert_eq!(
            recursive_functions(&p, id("even")),
            BTreeSet::from([id("even"), id("odd")])
        );
    }

    #[test]
    fn proves_a_recursion_stepping_by_two() {
        let new = "int f(int x) { if (x > 1) { return f(x - 2) + 2; } \
                   if (x == 1) { return 1; } return 0; }";
        let proof = check(COUNT, new).expect("a proof");
        assert!(
            proof
                .assumptions
                .iter()
                .any(|a| a.contains("stack overflow")),
            "{:?}",
            proof.assumptions
        );
        let old_summary = proof
            .summaries
            .iter()
            .find(|s| s.version == "old")
            .expect("the old summary");
        assert!(old_summary.formula.contains("result"), "{old_summary:?}");
    }

    #[test]
    fn proves_a_recursion_against_its_closed_form() {
        let new = "int f(int x) { if (x > 0) { return x; } return 0; }";
        check(COUNT, new).expect("a proof");
    }

    #[test]
    fn couples_calls_on_equal_arguments() {
        // Only the product relation (`r_old = r_new` on equal arguments)
        // proves this: neither summary is linear in the parameters.
        let old = "int f(int x) { if (x <= 0) { return 1; } return f(x - 1) * 3 + x * x; }";
        let new =
            "int f(int x) { if (x <= 0) { return 1; } int r = f(x - 1); return 3 * r + x * x; }";
        check(old, new).expect("a proof by coupling");
    }

    #[test]
    fn does_not_prove_a_changed_base_case() {
        let new = "int f(int x) { if (x > 1) { return f(x - 2) + 2; } return 0; }";
        let u = check(COUNT, new).expect_err("no proof");
        assert_eq!(u.reason, UnknownReason::SolverUnknown, "{u:?}");
    }

    #[test]
    fn refuses_what_a_summary_cannot_stand_for() {
        let with_loop = "int f(int x) { int s = 0; for (int i = 0; i < x; i++) { s += i; } \
                         if (x > 0) { return f(x - 1) + s; } return 0; }";
        let u = check(COUNT, with_loop).expect_err("refused");
        assert_eq!(u.reason, UnknownReason::NotEncodable);
        assert!(u.detail.contains("loop"), "{u:?}");
        let printing = "int f(int x) { System.out.println(x); \
                        if (x > 0) { return f(x - 1) + 1; } return 0; }";
        let u = check(COUNT, printing).expect_err("refused");
        assert!(u.detail.contains("prints"), "{u:?}");
        let u = check(
            "int f(int x) { return x; }",
            "int f(int x) { return x + 0; }",
        )
        .expect_err("no recursion");
        assert_eq!(u.detail, "no recursion");
    }
}
