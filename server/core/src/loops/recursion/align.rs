//! Parameter alignment of counterpart recursions: the product relation
//! takes the two functions' parameters by position, and couples calls
//! that agree on them, so the parameter that drives one recursion must sit
//! where the other's does.
//!
//! A loop made tail recursion (`passes/tail.rs`) takes its whole frame,
//! the method's parameters first: `sum(n)` summed by a loop down from
//! `i = n` becomes `sum$loop1(n, s, i)`, which steps `i` while the
//! recursive `sum` steps `n`. By position, `sum(n - 1)` is never coupled
//! with `sum$loop1(n, s + i, i - 1)`. Here the counterpart's parameters are
//! reordered so that each parameter the other version steps by a constant
//! `c` is matched with one stepped by the same `c` (or a multiple: the
//! stride rule then unfolds): `sum$loop1(i, s, n)`, and the calls couple
//! on `i = n` with the accumulator `s` relating the results. A parameter
//! stepped by a function of itself alone (`n / 10`, `n >> 1`) is matched
//! with one stepped by the same function.
//!
//! *Invariants:* only a function that is not the checked method is
//! reordered (the entries share their inputs by position), and every call
//! of it in the program is reordered alike, so the program means what it
//! did; parameters are only matched with parameters of the same type.

use super::{Side, run_all, shift};
use crate::ir::{FuncId, Program, StmtKind, Type};
use crate::symbolic::InputSpace;
use crate::symbolic::exec::CallAtom;
use crate::symbolic::ops::Ops;
use std::time::Instant;
use z3::ast::{Ast, Dynamic};

/// `new`'s program with the parameters of each recursive function that
/// is the counterpart of one in `old` reordered to match its strides, or
/// `None` when no reordering helps.
pub(super) fn aligned(
    ops: Ops,
    old: &Side<'_>,
    new: &Side<'_>,
    deadline: Instant,
) -> Option<Program> {
    let mut program: Option<Program> = None;
    for &f in &old.recursive {
        let of = old.program.function(f);
        for &g in &new.recursive {
            let current = program.as_ref().unwrap_or(new.program);
            let ng = current.function(g);
            if g == new.entry || !super::counterparts(of, ng) {
                continue;
            }
            let side = Side {
                program: current,
                entry: new.entry,
                recursive: new.recursive.clone(),
                in_old: false,
            };
            let Ok((inputs, _, runs)) = run_all(ops, &[(old, f), (&side, g)], &[], deadline) else {
                continue;
            };
            let strides = [
                steps(&inputs, old.program, f, &runs[0].1),
                steps(&inputs, current, g, &runs[1].1),
            ];
            let types = [param_types(old.program, f), param_types(current, g)];
            if let Some(order) = order(&strides, &types) {
                program = Some(reordered(current, g, &order));
            }
        }
    }
    program
}

/// How a function's recursive calls step one of its parameters.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step {
    /// `p + c` in every call (`c` may be 0: passed on unchanged).
    By(i64),
    /// The same function of `p` alone in every call (`p / 10`), as a term
    /// over one canonical constant per sort.
    Of(Dynamic),
}

/// Per parameter position of `f`, how its recursive calls in `atoms` (a
/// run of `f` from its entry) step it, where every call steps it alike.
pub(super) fn steps(
    inputs: &InputSpace,
    program: &Program,
    f: FuncId,
    atoms: &[CallAtom],
) -> Vec<Option<Step>> {
    let Ok(params) = super::entry_arguments(inputs, program, f) else {
        return Vec::new();
    };
    let calls: Vec<&CallAtom> = atoms.iter().filter(|a| a.func == f).collect();
    let step = |i: usize, p: &Dynamic, arg: &Dynamic| -> Option<Step> {
        if let Some(c) = shift(arg, p) {
            return Some(Step::By(c));
        }
        let x = Dynamic::new_const("step", &p.get_sort());
        let term = arg.substitute(&[(p, &x)]).simplify();
        let alone = params
            .iter()
            .enumerate()
            .all(|(j, q)| j == i || !super::encode::mentions(&term, q));
        (alone && super::encode::mentions(&term, &x)).then_some(Step::Of(term))
    };
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut each = calls.iter().map(|a| step(i, p, a.args.get(i)?));
            let first = each.next()??;
            each.all(|s| s.as_ref() == Some(&first)).then_some(first)
        })
        .collect()
}

fn param_types(program: &Program, f: FuncId) -> Vec<Type> {
    match &program.function(f).body {
        Ok(func) => func
            .params
            .iter()
            .map(|p| func.local(*p).ty.clone())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Whether steps `a` and `b` couple: the same step, or constant strides
/// one a multiple of the other (what [`super::unfolding`] makes agree).
/// Passing a parameter on unchanged couples nothing.
fn couples(a: &Step, b: &Step, exact: bool) -> bool {
    match (a, b) {
        (Step::By(0), _) | (_, Step::By(0)) => false,
        (Step::By(a), Step::By(b)) if !exact => (a % b == 0 || b % a == 0) && (*a > 0) == (*b > 0),
        _ => a == b,
    }
}

/// The new function's parameters in their new order (`order[k]`: the
/// parameter now at position `k`), or `None` when the positions already
/// couple (some position steps alike in both) or nothing would.
///
/// Each old parameter with a step takes an unmatched new one of its type
/// stepped the same (else by a multiple); the other positions keep the
/// remaining new parameters in their order, one of the old parameter's
/// type first where there is one.
fn order(steps: &[Vec<Option<Step>>; 2], types: &[Vec<Type>; 2]) -> Option<Vec<usize>> {
    let [old, new] = steps;
    let n = types[1].len();
    if new.len() != n || old.len() != types[0].len() {
        return None;
    }
    let by_position = old.iter().zip(new).any(|pair| match pair {
        (Some(a), Some(b)) => couples(a, b, false),
        _ => false,
    });
    if by_position {
        return None;
    }
    let mut slot: Vec<Option<usize>> = vec![None; old.len().min(n)];
    let mut taken = vec![false; n];
    for exact in [true, false] {
        for i in 0..slot.len() {
            let Some(a) = &old[i] else { continue };
            if slot[i].is_some() {
                continue;
            }
            let found = (0..n).find(|&j| {
                !taken[j]
                    && types[1][j] == types[0][i]
                    && new[j].as_ref().is_some_and(|b| couples(a, b, exact))
            });
            if let Some(j) = found {
                slot[i] = Some(j);
                taken[j] = true;
            }
        }
    }
    if slot.iter().all(Option::is_none) {
        return None;
    }
    for (i, s) in slot.iter_mut().enumerate() {
        if s.is_none() {
            let fits = (0..n).find(|&j| !taken[j] && types[1][j] == types[0][i]);
            let any = (0..n).find(|&j| !taken[j]);
            if let Some(j) = fits.or(any) {
                *s = Some(j);
                taken[j] = true;
            }
        }
    }
    let mut order: Vec<usize> = slot.into_iter().flatten().collect();
    order.extend((0..n).filter(|&j| !taken[j]));
    (order.len() == n && order.iter().enumerate().any(|(k, &j)| k != j)).then_some(order)
}

/// `program` with `g`'s parameters in `order` (`order[k]`: the old
/// position of the parameter now at `k`) and every call of `g` passing
/// its arguments alike.
fn reordered(program: &Program, g: FuncId, order: &[usize]) -> Program {
    fn permute<T>(v: &mut Vec<T>, order: &[usize]) {
        if v.len() == order.len() {
            let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
            *v = order
                .iter()
                .filter_map(|&j| slots.get_mut(j).and_then(Option::take))
                .collect();
        }
    }
    let mut out = program.clone();
    for (k, def) in out.functions.iter_mut().enumerate() {
        if k == g.0 as usize {
            if let Ok(func) = &mut def.body {
                permute(&mut func.params, order);
            }
            permute(&mut def.param_types, order);
        }
        if let Ok(func) = &mut def.body {
            let mut stack: Vec<&mut crate::ir::Stmt> = func.body.iter_mut().collect();
            while let Some(s) = stack.pop() {
                if let StmtKind::Call { func, args, .. } = &mut s.kind
                    && *func == g
                {
                    permute(args, order);
                }
                for block in s.child_blocks_mut() {
                    stack.extend(block.iter_mut());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_parameter_stepped_alike() {
        let int = Type::INT;
        // Old `sum(n)` steps `n` by −1; the loop's frame `(n, s, i)` steps
        // `i` by −1 and `n` not at all.
        let strides = [
            vec![Some(Step::By(-1))],
            vec![Some(Step::By(0)), None, Some(Step::By(-1))],
        ];
        let types = [vec![int.clone()], vec![int.clone(), int.clone(), int]];
        assert_eq!(order(&strides, &types), Some(vec![2, 0, 1]));
    }

    #[test]
    fn keeps_positions_that_already_couple() {
        let int = Type::INT;
        let strides = [
            vec![Some(Step::By(-1)), None],
            vec![Some(Step::By(-2)), None],
        ];
        let types = [vec![int.clone(), int.clone()], vec![int.clone(), int]];
        assert_eq!(order(&strides, &types), None);
    }

    #[test]
    fn matches_only_parameters_of_one_type() {
        let int = Type::INT;
        let long = Type::LONG;
        let strides = [vec![Some(Step::By(1))], vec![None, Some(Step::By(1))]];
        let types = [vec![int.clone()], vec![int, long]];
        assert_eq!(order(&strides, &types), None);
    }
}
