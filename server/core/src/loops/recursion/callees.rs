//! Callees with loops that the loop checker runs as uninterpreted functions
//! instead of inlining them.
//!
//! The stretches between loop heads are run by the symbolic executor, which
//! inlines calls; a callee with a loop of its own would need that loop
//! unrolled in every stretch that calls it (EqBench `ran/gamdev` and
//! `ran/expdev` call `ran1`, whose loop runs 40 times, from a loop body: the
//! encoding ran out of time). When the callee is the same function in both
//! versions (equal modulo renaming, callees included:
//! [`Unchanged`]) and changes nothing its caller sees, a call is a
//! function of its arguments and of the globals it reads, so both versions'
//! calls can share one uninterpreted function for the result and one for
//! the fault ([`OpaqueCallee`]). What that loses is termination: the
//! function returns on every argument, so a proof with opaque calls
//! compares only runs in which they return, and says so.
//!
//! *Invariants:* only functions with a loop (or recursion) are made opaque
//! — loop-free callees stay inlined and exact; only pairs that
//! [`Unchanged`] pairs, whose [`function_effects`] show no global written,
//! no store through a shared array, no printing and no explicit throw, and
//! whose parameters and result are scalars.

use crate::abstraction::canonical::Unchanged;
use crate::abstraction::effects::{FunctionEffects, function_effects};
use crate::ir::{FuncId, GlobalId, Program, Type};
use crate::symbolic::exec::OpaqueCallee;
use std::collections::BTreeMap;

/// The opaque callees of each version, by its own function ids.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opaque {
    pub old: BTreeMap<FuncId, OpaqueCallee>,
    pub new: BTreeMap<FuncId, OpaqueCallee>,
}

/// The callees of `old` and `new` to run as uninterpreted functions (see
/// the module doc); the methods checked themselves never are.
pub fn opaque_callees(old: (&Program, FuncId), new: (&Program, FuncId)) -> Opaque {
    let unchanged = Unchanged::compute(old.0, new.0);
    let (effects_old, effects_new) = (function_effects(old.0), function_effects(new.0));
    let mut out = Opaque::default();
    for (i, _) in old.0.functions.iter().enumerate() {
        let o = FuncId(i as u32);
        let Some(n) = unchanged.partner(o) else {
            continue;
        };
        if o == old.1 || n == new.1 {
            continue;
        }
        let (Some(eo), Some(en)) = (effects_old.get(&o), effects_new.get(&n)) else {
            continue;
        };
        let eligible = opaque_effects(eo)
            && opaque_effects(en)
            && scalar_interface(old.0, o)
            && scalar_interface(new.0, n);
        if !eligible {
            continue;
        }
        let (Some(go), Some(gn)) = (read_globals(old.0, eo), read_globals(new.0, en)) else {
            continue;
        };
        out.old.insert(
            o,
            OpaqueCallee {
                globals: go,
                may_fault: eo.may_fault,
            },
        );
        out.new.insert(
            n,
            OpaqueCallee {
                globals: gn,
                may_fault: en.may_fault,
            },
        );
    }
    out
}

/// A callee with a loop whose only effect on its caller is its result (or
/// an implicit fault).
fn opaque_effects(e: &FunctionEffects) -> bool {
    e.has_loop && e.writes_globals.is_empty() && !e.stores_shared && !e.prints && !e.throws
}

/// Scalar parameters and a scalar (or no) result: the arguments are the
/// whole input of a call, and its result one value.
fn scalar_interface(p: &Program, f: FuncId) -> bool {
    let Ok(body) = &p.function(f).body else {
        return false;
    };
    let scalar = |t: &Type| !matches!(t, Type::Array(_) | Type::Str);
    body.params.iter().all(|l| scalar(&body.local(*l).ty)) && scalar(&body.ret)
}

/// The non-constant globals `e` reads, in order of their names; `None`
/// when one is not an input (a struct's return slot: scratch space whose
/// value depends on the call's context).
fn read_globals(p: &Program, e: &FunctionEffects) -> Option<Vec<GlobalId>> {
    let mut out: Vec<(&str, GlobalId)> = Vec::new();
    for g in &e.reads_globals {
        let global = p.globals.get(g.0 as usize)?;
        if global.constant.is_some() {
            continue;
        }
        if !global.is_input() {
            return None;
        }
        out.push((global.name.as_str(), *g));
    }
    out.sort();
    Some(out.into_iter().map(|(_, g)| g).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;

    fn opaque_of(old: &str, new: &str) -> Opaque {
        let (po, pn) = (
            crate::lang::lower(Lang::Java, old),
            crate::lang::lower(Lang::Java, new),
        );
        let entry = |p: &Program| p.find("f").next().expect("f").0;
        opaque_callees((&po, entry(&po)), (&pn, entry(&pn)))
    }

    const CALLEES: &str = "
        static int g;
        static int withLoop(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s + g; }
        static int loopFree(int n) { return n * 2; }
        static int writes(int n) { while (n > 0) { n--; g++; } return n; }
        static int prints(int n) { while (n > 0) { n--; System.out.println(n); } return n; }
        static int array(int[] a) { int s = 0; for (int i = 0; i < a.length; i++) s += a[i]; return s; }
    ";

    #[test]
    fn only_unchanged_callees_with_loops_and_no_effects_are_opaque() {
        let old = format!("class A {{ {CALLEES} int f(int x) {{ return withLoop(x); }} }}");
        let new = format!("class A {{ {CALLEES} int f(int x) {{ return withLoop(x) + 0; }} }}");
        let o = opaque_of(&old, &new);
        let po = crate::lang::lower(Lang::Java, &old);
        let names: Vec<&str> = o
            .old
            .keys()
            .map(|f| po.function(*f).name.as_str())
            .collect();
        assert_eq!(names, ["withLoop"]);
        assert_eq!(o.old.len(), o.new.len());
        let callee = o.old.values().next().expect("one");
        assert_eq!(callee.globals.len(), 1, "reads g");
        assert!(!callee.may_fault);
    }

    #[test]
    fn a_callee_that_may_fault_says_so() {
        let callee = "static int h(int n) { int s = 0; while (s < n) s++; return 100 / s; }";
        let old = format!("class A {{ {callee} int f(int x) {{ return h(x); }} }}");
        let new = format!("class A {{ {callee} int f(int x) {{ return h(x) + 0; }} }}");
        let o = opaque_of(&old, &new);
        assert_eq!(o.old.len(), 1);
        assert!(o.old.values().chain(o.new.values()).all(|c| c.may_fault));
    }

    #[test]
    fn a_changed_callee_is_not_opaque() {
        let old = "class A { static int h(int n) { int s = 0; while (s < n) s++; return s; } int f(int x) { return h(x); } }";
        let new = "class A { static int h(int n) { int s = 0; while (s < n) s += 2; return s; } int f(int x) { return h(x); } }";
        let o = opaque_of(old, new);
        assert!(o.old.is_empty() && o.new.is_empty(), "{o:?}");
    }
}
