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
//! differs. A recursive function of the old version and its counterpart
//! in the new one (its namesake, or for a loop refactored into recursion
//! the loop's function `f$loop1` and the recursive `f`) also get a product
//! relation `both.f(args, r_old, r_new)`
//! (arguments by position): calls of the two that agree on their common
//! arguments are coupled through it (REVE's coupling), so that the
//! summary needed can be relational — `r_old = r_new`, `r_new = r_old +
//! acc` — where the functions themselves are not linear. The model found
//! (an over-approximation of each graph, in linear arithmetic; by
//! `summaries.rs` or Spacer) is the certificate.
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

mod align;
pub mod callees;
pub mod summaries;

use super::encode;

use super::encode::{Encoding, Relation};
use super::solve;
use crate::abstraction::effects::function_effects;
use crate::ir::{FuncId, Program, Semantics, Type};
use crate::symbolic::exec::{CallAtom, Executor, Summary};
use crate::symbolic::ops::{EncodeError, Ops, UfApplication, Ufs};
use crate::symbolic::{InputSpace, InputVar, Strings};
use crate::verdict::Assumption;
use crate::verdict::{FunctionSummary, Unknown, UnknownReason};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic};
use z3::{FuncDecl, Sort};

/// Recursive calls in one run of a body: each combination of them taken or
/// not is a clause, so the clauses grow as 2^n.
const MAX_ATOMS_PER_BODY: usize = 6;
/// Recursive calls in both entry methods together, for the query.
const MAX_ATOMS_IN_QUERY: usize = 8;

/// A proof by the recursion rule.
#[derive(Debug)]
pub struct RecursionProof {
    /// Spacer's summary of each recursive function: the certificate.
    pub summaries: Vec<FunctionSummary>,
    /// What the proof assumes, in words.
    pub assumptions: Vec<Assumption>,
}

/// Each function's direct callees.
fn call_graph(program: &Program) -> Vec<BTreeSet<FuncId>> {
    program
        .functions
        .iter()
        .map(|d| match &d.body {
            Ok(f) => crate::ir::callees(f).into_iter().collect(),
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
            reason: UnknownReason::Timeout {
                phase: crate::verdict::Phase::Encoding,
            },
            detail: "timeout while encoding the recursion".into(),
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

    /// `f`'s name for messages ([`shown`]); a loop made a function by
    /// `passes/tail.rs` also says where it is.
    fn name(&self, f: FuncId) -> String {
        let d = self.program.function(f);
        if d.synthetic && d.name.contains("$loop") {
            format!("{} (line {}, as tail recursion)", shown(d), d.span.line())
        } else {
            d.name.clone()
        }
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
            let Some(e) = effects.get(&f) else {
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
    index: FxHashMap<(bool, FuncId), usize>,
    clauses: Vec<HornClause>,
    /// Per relation, how many of its last parameters are results.
    results: Vec<usize>,
    /// Guards of recursive calls over the parameters of their run (with
    /// the constants standing for those).
    guards: Vec<Guard>,
    uninterpreted: BTreeSet<String>,
    lines: Vec<(Option<bool>, String, u32)>,
    products: Vec<Product>,
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
            .push((Some(side.in_old), shown(def), def.span.line()));
        Ok(())
    }

    /// The product relation of a recursive function of the old version
    /// and its namesake in the new one: their parameters by position (the
    /// longer list), then the old and the new result. `None` when they do
    /// not fit (a parameter or the result of another type, or `void`).
    fn declare_product(
        &mut self,
        (old_side, old_f): (&Side<'_>, FuncId),
        (new_side, new_f): (&Side<'_>, FuncId),
    ) -> Result<Option<usize>, Unknown> {
        let (od, nd) = (
            old_side.program.function(old_f),
            new_side.program.function(new_f),
        );
        let (Ok(of), Ok(nf)) = (&od.body, &nd.body) else {
            return Ok(None);
        };
        if matches!(of.ret, Type::Void) || of.ret != nf.ret {
            return Ok(None);
        }
        let mut params: Vec<Dynamic> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for pos in 0..of.params.len().max(nf.params.len()) {
            let local = |f: &crate::ir::Function| f.params.get(pos).map(|p| f.local(*p).clone());
            let (o, n) = (local(of), local(nf));
            if let (Some(o), Some(n)) = (&o, &n)
                && o.ty != n.ty
            {
                return Ok(None);
            }
            let Some(l) = o.or(n) else {
                return Ok(None);
            };
            let mut name = l.name.clone();
            while names.contains(&name) {
                name.push('\'');
            }
            let sort = self.ops.sort(&l.ty).map_err(encoding_error)?;
            params.push(Dynamic::new_const(name.as_str(), &sort));
            names.push(name);
        }
        let sort = self.ops.sort(&of.ret).map_err(encoding_error)?;
        for r in ["old.result", "new.result"] {
            params.push(Dynamic::new_const(r, &sort));
        }
        // Distinct names: Z3 identifies relations of one name and sorts.
        let name = if od.name == nd.name {
            od.name.clone()
        } else {
            format!("{}~{}", od.name, nd.name)
        };
        let index = self.push_relation(format!("both.{name}"), params, (od.span, nd.span), 2)?;
        let shown_name = if od.name == nd.name {
            shown(od)
        } else {
            format!("{} ~ {}", shown(od), shown(nd))
        };
        self.lines.push((None, shown_name, od.span.line()));
        self.products.push(Product {
            old: old_f,
            new: new_f,
            relation: index,
        });
        Ok(Some(index))
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
        self.push_relation(name, params, (old_span, new_span), results.len())
    }

    /// A relation named `name` over `params`, the last `results` of them
    /// results.
    fn push_relation(
        &mut self,
        name: String,
        params: Vec<Dynamic>,
        (old_span, new_span): (crate::ir::Span, crate::ir::Span),
        results: usize,
    ) -> Result<usize, Unknown> {
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
            unsigned: Vec::new(),
            old_arity: 0,
            decl,
            application,
            old_span,
            new_span,
            running: None,
            guards: None,
            closed_form: None,
        });
        self.results.push(results);
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
        let exact: Vec<Bool> = base
            .applications
            .iter()
            .filter_map(crate::symbolic::ops::interpretation)
            .collect();
        // Products, quotients and remainders are exact operations the
        // encoding chose to abstract (`Ufs::abstracts_nonlinear`): no
        // assumption about them.
        for app in base.applications {
            let name = app.key.split(':').next().unwrap_or("?");
            if !matches!(name, "mul" | "div" | "rem") {
                self.uninterpreted.insert(name.to_string());
            }
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
            let couples = self.couple(atoms, &taken);
            let coupled = |i: usize| couples.iter().any(|&(x, y, _)| i == x || i == y);
            let mut parts: Vec<Bool> = base.hypotheses.to_vec();
            parts.extend(ack_hyps.iter().cloned());
            let mut apps = Vec::new();
            for (i, (in_old, a)) in atoms.iter().enumerate() {
                if !taken.contains(&i) {
                    parts.push(a.guard.not());
                    continue;
                }
                parts.push(a.guard.clone());
                if !coupled(i) {
                    apps.push(self.atom(*in_old, a)?);
                }
            }
            parts.push(base.body.clone());
            // Each coupled pair of calls: on equal arguments (where both
            // have one) the product relation, otherwise each alone.
            let mut variants = vec![(parts, apps)];
            for &(x, y, p) in &couples {
                let (a, b) = (atoms[x].1, atoms[y].1);
                let same: Vec<Bool> = a.args.iter().zip(&b.args).map(|(p, q)| p.eq(q)).collect();
                let same = Bool::and(&same);
                let product = self.product(a, b, p)?;
                let (alone_a, alone_b) = (self.atom(true, a)?, self.atom(false, b)?);
                let mut next = Vec::with_capacity(variants.len() * 2);
                for (parts, apps) in variants {
                    let mut with = (parts.clone(), apps.clone());
                    with.0.push(same.clone());
                    with.1.push(product.clone());
                    next.push(with);
                    let mut without = (parts, apps);
                    without.0.push(same.not());
                    without.1.extend([alone_a.clone(), alone_b.clone()]);
                    next.push(without);
                }
                variants = next;
            }
            for (parts, apps) in variants {
                self.emit(&vars, parts, apps, base.head.clone(), &exact);
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
        exact: &[Bool],
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
            exact: exact.to_vec(),
        });
    }

    /// Per product relation: the one taken call of its old function and
    /// the one of its new function, if each has exactly one (atom
    /// positions and the product's index).
    fn couple(&self, atoms: &[(bool, &CallAtom)], taken: &[usize]) -> Vec<(usize, usize, usize)> {
        let calls = |in_old: bool, f: FuncId| -> Vec<usize> {
            taken
                .iter()
                .copied()
                .filter(|&i| {
                    atoms[i].0 == in_old && atoms[i].1.func == f && atoms[i].1.result.is_some()
                })
                .collect()
        };
        self.products
            .iter()
            .enumerate()
            .filter_map(|(k, p)| {
                match (
                    calls(true, p.old).as_slice(),
                    calls(false, p.new).as_slice(),
                ) {
                    ([x], [y]) => Some((*x, *y, k)),
                    _ => None,
                }
            })
            .collect()
    }

    /// Product `p` applied to an old and a new call that agree on the
    /// positions both have: the arguments by position, then both results.
    fn product(&self, a: &CallAtom, b: &CallAtom, p: usize) -> Result<Application, Unknown> {
        let p = self
            .products
            .get(p)
            .ok_or_else(|| not_encodable("internal: no product relation"))?;
        let (Some(ra), Some(rb)) = (&a.result, &b.result) else {
            return Err(not_encodable("internal: coupled void calls"));
        };
        let longer = if a.args.len() >= b.args.len() {
            &a.args
        } else {
            &b.args
        };
        let args: Vec<Dynamic> = longer
            .iter()
            .enumerate()
            .map(|(i, x)| a.args.get(i).unwrap_or(x).clone())
            .chain([ra.clone(), rb.clone()])
            .collect();
        if args.len() != self.relations[p.relation].params.len() {
            return Err(not_encodable("internal: product application (arity)"));
        }
        Ok((p.relation, args))
    }
}

/// `P(x, r_old, r_new)`: the old version's recursive function returns
/// `r_old` on `x` and its namesake in the new version `r_new` (both
/// terminating; arguments matched by position, the longer list). Calls of
/// the two that agree on their common positions are coupled through it,
/// so that the proof is by induction over both recursions at once (REVE's
/// coupling): `r_old = r_new`, or `r_new = r_old + s`, is then an
/// inductive fact, where separate summaries would each have to be exact
/// (and linear).
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
    /// The exact meaning of the body's abstracted products, quotients and
    /// remainders (`r = a·b`, see [`interpretation`]): true of every run,
    /// so the candidate checks of `summaries.rs`, which are plain SMT
    /// queries, assume them; Spacer's rules leave them out (it rarely finds
    /// an invariant through nonlinear arithmetic, and "equal operands,
    /// equal results" is what most proofs need).
    pub exact: Vec<Bool>,
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
        let (rule, named) = crate::loops::invariants::solve::name_array_conditionals(
            &Bool::and(&parts).implies(head),
        );
        let vars: Vec<&dyn Ast> = self
            .vars
            .iter()
            .chain(&named)
            .map(|v| v as &dyn Ast)
            .collect();
        Ok(z3::ast::forall_const(&vars, &[], &rule))
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
    inputs.vars.iter().flat_map(InputVar::constants).collect()
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
    let old_side = Side {
        program: old.0,
        entry: old.1,
        recursive: recursive_functions(old.0, old.1),
        in_old: true,
    };
    let mut new_side = Side {
        program: new.0,
        entry: new.1,
        recursive: recursive_functions(new.0, new.1),
        in_old: false,
    };
    // Counterparts' parameters where their strides couple them.
    let aligned = align::aligned(ops, &old_side, &new_side, deadline);
    if let Some(program) = &aligned {
        new_side.program = program;
    }
    let sides = [old_side, new_side];
    if sides.iter().all(|s| s.recursive.is_empty()) {
        return Err(not_encodable("no recursion"));
    }
    for side in &sides {
        side.check_effects()?;
    }
    let mut system = System {
        ops,
        relations: Vec::new(),
        index: FxHashMap::default(),
        clauses: Vec::new(),
        results: Vec::new(),
        guards: Vec::new(),
        uninterpreted: BTreeSet::new(),
        lines: Vec::new(),
        products: Vec::new(),
    };
    for side in &sides {
        for &f in &side.recursive {
            system.declare(side, f)?;
        }
    }
    define_relations(&mut system, ops, &sides, deadline)?;
    let pairs = products(&mut system, ops, &sides, deadline)?;
    match pairs.iter().find(|&&(f, g, _)| f == old.1 && g == new.1) {
        // Both entries recursive: the query over their product.
        Some(&(_, _, relation)) => add_product_query(&mut system, ops, old, relation)?,
        None => add_query(&mut system, ops, &sides, deadline)?,
    }
    match solve_system(&mut system, deadline)? {
        solve::Answer::Safe(formulas) => Ok(recursion_proof(&system, &sides, formulas)),
        solve::Answer::Unsafe => Err(Unknown {
            reason: UnknownReason::SolverUnknown,
            detail: "no function summaries show the versions equal where both terminate (they \
                     may differ, or the summaries need nonlinear arithmetic)"
                .into(),
        }),
        solve::Answer::Timeout => Err(Unknown {
            reason: UnknownReason::Timeout {
                phase: crate::verdict::Phase::Solving,
            },
            detail: "the CHC solver ran out of time on the recursion summaries".into(),
        }),
        solve::Answer::GaveUp(r) => Err(Unknown {
            reason: UnknownReason::SolverUnknown,
            detail: format!("the CHC solver gave up on the recursion summaries: {r}"),
        }),
    }
}

/// The clauses defining each declared relation: its function run once
/// over fresh inputs, its recursive calls atoms.
fn define_relations(
    system: &mut System,
    ops: Ops,
    sides: &[Side<'_>; 2],
    deadline: Instant,
) -> Result<(), Unknown> {
    for side in sides {
        for &f in &side.recursive {
            let (inputs, ufs, mut runs) = run_all(ops, &[(side, f)], &[], deadline)?;
            let (summary, atoms) = runs
                .pop()
                .ok_or_else(|| not_encodable("internal: no run"))?;
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
    Ok(())
}

/// A function's name as the user knows it: a loop made a function by
/// `passes/tail.rs` (`g$loop1`) is "loop 1 of g".
fn shown(def: &crate::ir::FunctionDef) -> String {
    if !def.synthetic {
        return def.name.clone();
    }
    let mut parts = def.name.split('$');
    let base = parts.next().unwrap_or_default().to_string();
    parts.fold(base, |inner, part| match part.strip_prefix("loop") {
        Some(n) => format!("loop {n} of {inner}"),
        None => format!("{inner}${part}"),
    })
}

/// Whether a recursive function of one version and one of the other
/// stand for the same computation: namesakes, or the first loop of a
/// function made tail recursion (`f$loop1`, `passes/tail.rs`) and its
/// namesake's recursion in the other version — a loop refactored into
/// recursion (or back), whose first parameters are `f`'s.
fn counterparts(a: &crate::ir::FunctionDef, b: &crate::ir::FunctionDef) -> bool {
    let first_loop_of = |d: &crate::ir::FunctionDef| {
        d.synthetic
            .then(|| d.name.strip_suffix("$loop1"))
            .flatten()
            .map(str::to_string)
    };
    a.name == b.name
        || first_loop_of(a).is_some_and(|base| base == b.name && !b.synthetic)
        || first_loop_of(b).is_some_and(|base| base == a.name && !a.synthetic)
}

/// Products: each recursive function of the old version with its
/// counterparts in the new one ([`counterparts`]), declared first (their
/// definitions couple calls through any of them), then defined. The pairs
/// `(old f, new g, product relation)`.
fn products(
    system: &mut System,
    ops: Ops,
    sides: &[Side<'_>; 2],
    deadline: Instant,
) -> Result<Vec<(FuncId, FuncId, usize)>, Unknown> {
    let mut pairs = Vec::new();
    for &f in &sides[0].recursive {
        let od = sides[0].program.function(f);
        for &g in &sides[1].recursive {
            if counterparts(od, sides[1].program.function(g))
                && let Some(k) = system.declare_product((&sides[0], f), (&sides[1], g))?
            {
                pairs.push((f, g, k));
            }
        }
    }
    for &(f, g, k) in &pairs {
        define_product(system, ops, sides, (f, g, k), deadline)?;
    }
    Ok(pairs)
}

/// The query when both entries are recursive: no tuple of their product
/// `relation` has results that differ.
fn add_product_query(
    system: &mut System,
    ops: Ops,
    old: (&Program, FuncId),
    relation: usize,
) -> Result<(), Unknown> {
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
        exact: Vec::new(),
    };
    system.clauses.push(query);
    Ok(())
}

/// Candidate summaries first (milliseconds when they apply), then
/// Spacer, which finds each summary alone at once but can lose itself on
/// the conjunction of two. Spacer takes the relations out of `system`.
fn solve_system(system: &mut System, deadline: Instant) -> Result<solve::Answer, Unknown> {
    // Spacer follows the candidates only over unbounded integers; over
    // bit-vectors they have all the time.
    let houdini_until = if system.ops.sem == Semantics::Machine {
        deadline
    } else {
        crate::clock::now()
            + crate::budget::RECURSION_CANDIDATES
                .of(deadline.saturating_duration_since(crate::clock::now()))
    };
    Ok(
        match super::summaries::prove(
            &system.relations,
            &system.results,
            &system.clauses,
            &system.guards,
            houdini_until,
        ) {
            Some(formulas) => solve::Answer::Safe(formulas),
            // Over bit-vectors the candidates are all there is: Spacer on
            // libz3 4.8.12 finds no bit-vector summary within a method's
            // budget, and would only spend it.
            None if system.ops.sem == Semantics::Machine => {
                if crate::clock::now() >= houdini_until {
                    solve::Answer::Timeout
                } else {
                    return Err(Unknown {
                        reason: UnknownReason::SolverUnknown,
                        detail: "no candidate summary shows the versions equal where both \
                                 terminate (over machine integers the recursion rule tries \
                                 linear summaries only)"
                            .into(),
                    });
                }
            }
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
                    opaque_calls: Vec::new(),
                    arrays: false,
                    nullable_arrays: false,
                    bit_vectors: false,
                };
                solve::solve(&encoding, deadline)
            }
        },
    )
}

/// The proof by `formulas`, one per relation of `system` (in `lines`'
/// order), with what it assumes.
fn recursion_proof(
    system: &System,
    sides: &[Side<'_>; 2],
    formulas: Vec<String>,
) -> RecursionProof {
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
    // Under math semantics a call stack never overflows; a real JVM or C
    // stack does, and that is an outcome too — but not for a callee's loop
    // summarised as tail recursion (`tail.rs`).
    let source_recursion = sides.iter().any(|s| {
        s.recursive.iter().any(|f| {
            let d = s.program.function(*f);
            !(d.synthetic && d.name.contains("$loop"))
        })
    });
    let mut assumptions = Vec::new();
    if source_recursion {
        assumptions.push(Assumption::UnboundedRecursion);
    }
    if !system.uninterpreted.is_empty() {
        assumptions.push(Assumption::Uninterpreted(
            system.uninterpreted.iter().cloned().collect(),
        ));
    }
    RecursionProof {
        summaries,
        assumptions,
    }
}

/// The clauses defining product `k` of old `f` and new `g`: both run over
/// shared inputs (arguments by position), their results in the head.
///
/// When one recursion steps a parameter by a multiple of the other's
/// stride (`f(n - 1)` against `g(n - 2)`), the shorter-stepping body is
/// unfolded until its calls step as far ([`unfolding`]), so that the calls
/// of the two agree and are coupled; otherwise no pair of calls would ever
/// agree on its arguments.
fn define_product(
    system: &mut System,
    ops: Ops,
    sides: &[Side<'_>; 2],
    (f, g, k): (FuncId, FuncId, usize),
    deadline: Instant,
) -> Result<(), Unknown> {
    let funcs = [(&sides[0], f), (&sides[1], g)];
    let (mut inputs, mut ufs, mut runs) = run_all(ops, &funcs, &[], deadline)?;
    let unfold = unfolding(
        &stride(&inputs, sides[0].program, f, &runs[0].1),
        &stride(&inputs, sides[1].program, g, &runs[1].1),
    );
    // Unfolded bodies make more calls; past the query's limit, or where the
    // unfolded run cannot be encoded, the plain definition stands.
    if unfold != [0, 0]
        && let Ok(unfolded) = run_all(ops, &funcs, &unfold, deadline)
        && unfolded.2.iter().map(|r| r.1.len()).sum::<usize>() <= MAX_ATOMS_IN_QUERY
    {
        (inputs, ufs, runs) = unfolded;
    }
    for (run, (side, func)) in runs.iter().zip([(&sides[0], f), (&sides[1], g)]) {
        if run.0.outcome.simplify().as_i64() != Some(0) {
            return Err(not_encodable(format!(
                "the recursive function {} may fail",
                side.name(func)
            )));
        }
    }
    let results: Vec<Dynamic> = runs.iter().filter_map(|r| r.0.ret.to_dyn()).collect();
    let (a, b) = (
        entry_arguments(&inputs, sides[0].program, f)?,
        entry_arguments(&inputs, sides[1].program, g)?,
    );
    let arguments = if a.len() >= b.len() { a } else { b };
    let atoms: Vec<(bool, &CallAtom)> = runs[0]
        .1
        .iter()
        .map(|a| (true, a))
        .chain(runs[1].1.iter().map(|a| (false, a)))
        .collect();
    system.define(
        k,
        &inputs,
        &arguments,
        results,
        ufs.applications(),
        &atoms,
        MAX_ATOMS_IN_QUERY,
    )
}

/// A run of each function from its entry over one shared input
/// space (arguments by position), recursive calls as atoms; each run
/// within every bound. `unfold[i]`, where given, is how far the `i`th function's recursive
/// calls are unfolded ([`Executor::run_summarizing`]).
#[allow(clippy::type_complexity)]
fn run_all(
    ops: Ops,
    funcs: &[(&Side<'_>, FuncId)],
    unfold: &[u32],
    deadline: Instant,
) -> Result<(InputSpace, Ufs, Vec<(Summary, Vec<CallAtom>)>), Unknown> {
    let programs: Vec<&Program> = funcs.iter().map(|(side, _)| side.program).collect();
    let mut inputs = InputSpace::for_programs(&programs);
    let mut ufs = Ufs::ackermann();
    let mut strings = Strings::default();
    let mut runs = Vec::new();
    for (i, &(side, func)) in funcs.iter().enumerate() {
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
        .run_summarizing(
            func,
            side.recursive.iter().copied().collect(),
            unfold.get(i).copied().unwrap_or(0),
        )
        .map_err(encoding_error)?;
        plain_run(&run.0, &side.name(func))?;
        runs.push(run);
    }
    Ok((inputs, ufs, runs))
}

/// The query when the entries are not a product: both run over shared
/// inputs, their recursive calls atoms (coupled where a product applies),
/// and no observable may differ.
fn add_query(
    system: &mut System,
    ops: Ops,
    sides: &[Side<'_>; 2],
    deadline: Instant,
) -> Result<(), Unknown> {
    let (inputs, ufs, runs) = run_all(
        ops,
        &[(&sides[0], sides[0].entry), (&sides[1], sides[1].entry)],
        &[],
        deadline,
    )?;
    let atoms: Vec<(bool, &CallAtom)> = runs[0]
        .1
        .iter()
        .map(|a| (true, a))
        .chain(runs[1].1.iter().map(|a| (false, a)))
        .collect();
    let arguments = entry_arguments(&inputs, sides[0].program, sides[0].entry)?;
    let (differs, witnesses) = crate::symbolic::difference(&ops, &inputs, &runs[0].0, &runs[1].0)
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
    )
}

/// Deepest unfolding the stride rule asks for: a call stepping four times
/// as far as its counterpart's.
const MAX_UNFOLD: i64 = 3;

/// Per parameter position of `f`, the constant by which its recursive
/// calls in `atoms` (a run of `f` from its entry) step it: `Some(c)` when
/// every such call passes `param + c`, `None` otherwise (or when `f`
/// makes no such call).
fn stride(
    inputs: &InputSpace,
    program: &Program,
    f: FuncId,
    atoms: &[CallAtom],
) -> Vec<Option<i64>> {
    align::steps(inputs, program, f, atoms)
        .into_iter()
        .map(|s| match s {
            Some(align::Step::By(c)) => Some(c),
            _ => None,
        })
        .collect()
}

/// `arg - param` where it is a constant: integers, or bit-vectors of one
/// width read as signed (`n - 1` steps by −1 in any width).
fn shift(arg: &Dynamic, param: &Dynamic) -> Option<i64> {
    if let (Some(a), Some(p)) = (arg.as_int(), param.as_int()) {
        return (a - &p).simplify().as_i64();
    }
    let (a, p) = (arg.as_bv()?, param.as_bv()?);
    let width = a.get_size();
    if width != p.get_size() || width > 64 {
        return None;
    }
    let bits = a.bvsub(&p).simplify().as_u64()?;
    let signed = if width == 64 {
        bits as i64
    } else if bits >> (width - 1) & 1 == 1 {
        (bits as i64) - (1i64 << width)
    } else {
        bits as i64
    };
    Some(signed)
}

/// How far to unfold the old and the new function of a product so that
/// their recursive calls step the same: where at some position one steps
/// by `c` and the other by `m·c` (`m` from 2 to `MAX_UNFOLD + 1`), the
/// first is unfolded `m - 1` times. `[0, 0]` when the strides agree or do
/// not compare.
fn unfolding(old: &[Option<i64>], new: &[Option<i64>]) -> [u32; 2] {
    let times = |short: i64, long: i64| -> Option<u32> {
        (short != 0 && long % short == 0)
            .then(|| long / short - 1)
            .filter(|m| (1..=MAX_UNFOLD).contains(m))
            .and_then(|m| u32::try_from(m).ok())
    };
    old.iter()
        .zip(new)
        .find_map(|pair| match pair {
            (Some(o), Some(n)) => times(*o, *n)
                .map(|t| [t, 0])
                .or_else(|| times(*n, *o).map(|t| [0, t])),
            _ => None,
        })
        .unwrap_or([0, 0])
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
        let ops = Ops::new(Semantics::Math, Lang::Java, Default::default());
        let deadline = crate::clock::now() + Duration::from_secs(20);
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
            proof.assumptions.contains(&Assumption::UnboundedRecursion),
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
    fn unfolds_the_shorter_stride_to_couple_a_quadratic_sum() {
        // No linear summary of either: only the product proves it, and its
        // calls agree (on x - 2) once the one-step body is unfolded.
        let old = "int f(int x) { if (x <= 0) { return 0; } return x + f(x - 1); }";
        let new = "int f(int x) { if (x <= 0) { return 0; } if (x == 1) { return 1; } \
                   return x + (x - 1) + f(x - 2); }";
        check(old, new).expect("a proof by unfolding");
        check(new, old).expect("a proof by unfolding the new version");
        let wrong = new.replace("return 1;", "return 2;");
        check(old, &wrong).expect_err("no proof of a wrong base case");
    }

    #[test]
    fn couples_products_through_their_exact_meaning() {
        // The unfolded body multiplies `b * (b * r)`, the other `(b * b) *
        // r`: equal only by the products' meaning, which the candidate
        // checks assume (Spacer sees the products abstracted).
        let old = "long f(long b, int e) { if (e <= 0) { return 1; } return b * f(b, e - 1); }";
        let new = "long f(long b, int e) { if (e <= 0) { return 1; } if (e == 1) { return b; } \
                   return b * b * f(b, e - 2); }";
        check(old, new).expect("a proof through the products' meaning");
        // A base value of 1 of one version's own summary (`e < 2 → 1`).
        let old = "long f(int n) { if (n < 2) { return 1; } return n * f(n - 1); }";
        let new =
            "long f(int n) { if (n < 2) { return 1; } return (long) n * (n - 1) * f(n - 2); }";
        check(old, new).expect("a factorial two factors per call");
        let short = "long f(long b, int e) { if (e <= 0) { return 1; } if (e == 1) { return b; } \
                     return b * f(b, e - 2); }";
        let old = "long f(long b, int e) { if (e <= 0) { return 1; } return b * f(b, e - 1); }";
        check(old, short).expect_err("no proof with a factor missing");
    }

    #[test]
    fn unfolds_by_the_ratio_of_the_strides() {
        let (one, two, three) = (Some(1), Some(2), Some(3));
        assert_eq!(unfolding(&[Some(-1)], &[Some(-2)]), [1, 0]);
        assert_eq!(unfolding(&[three], &[one]), [0, 2]);
        assert_eq!(unfolding(&[None, one], &[two, three]), [2, 0]);
        assert_eq!(unfolding(&[two], &[three]), [0, 0], "not a multiple");
        assert_eq!(unfolding(&[one], &[Some(-2)]), [0, 0], "opposite ways");
        assert_eq!(unfolding(&[one], &[Some(9)]), [0, 0], "too deep");
        assert_eq!(unfolding(&[one], &[one]), [0, 0]);
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
        let proof = check(old, new).expect("a proof by coupling");
        // `x * x` is abstracted, an exact operation: no assumption.
        assert!(
            !proof
                .assumptions
                .iter()
                .any(|a| a.to_string().contains("mul")),
            "{:?}",
            proof.assumptions
        );
    }

    #[test]
    fn couples_namesakes_of_different_arity_through_an_accumulator() {
        // REVE's triangular: the sum is quadratic, but the product of the
        // two helpers has the linear summary new = old + acc.
        let old = "int g(int n) { if (n <= 0) { return 0; } return g(n - 1) + n; } \
                   int f(int n) { return g(n); }";
        let new = "int g(int n, int acc) { if (n <= 0) { return acc; } return g(n - 1, acc + n); } \
                   int f(int n) { return g(n, 0); }";
        let proof = check(old, new).expect("a proof by coupling");
        let both = proof
            .summaries
            .iter()
            .find(|s| s.version == "both")
            .expect("the product's summary");
        assert!(both.formula.contains("new.result"), "{both:?}");
        let wrong = new.replace("acc + n)", "acc + n + 1)");
        check(old, &wrong).expect_err("no proof of a wrong accumulator");
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
