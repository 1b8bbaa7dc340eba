//! Which method of the file a call names (JLS 15.12.2): the candidates in
//! scope, and the one Java picks among them by argument types.
//!
//! The arguments eqlens lowers are primitives, arrays of primitives and
//! strings, and the parameters it models are of those types, so Java's
//! second phase (boxing) never applies a method the first one (identity
//! and primitive widening) does not: the phases that matter are the first
//! (15.12.2.2) and the third, variable arity (15.12.2.4), each followed by
//! the choice of the most specific applicable method (15.12.2.5). A
//! variable-arity parameter `T... xs` has the type `T[]`: in the first
//! phase a call passes it an array; in the third, which runs only when the
//! first applies no method, the call packs its trailing arguments into a
//! fresh array. Where Java's choice is not certain (an overload whose
//! signature is outside the IR could be the one boxing picks, or no
//! single method is most specific), the call is refused, never guessed.

use super::widens;
use crate::ir::Type;

/// How the chosen method is invoked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Invocation {
    /// One argument per parameter (a variable-arity parameter receives an
    /// array argument as it is).
    Fixed,
    /// The arguments from the variable-arity parameter's position on are
    /// packed into a new array of its element type.
    Variable,
}

/// Why no method is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NoChoice {
    /// No candidate takes the argument types by widening or variable arity.
    NoneApplicable,
    /// Several applicable candidates, none more specific than the others
    /// (a compile error in Java).
    Ambiguous,
    /// No candidate applies by widening and some candidate's signature is
    /// outside the IR: Java could pick it by boxing or variable arity.
    Unknown,
}

/// A candidate as overload resolution sees it: its parameter types and
/// whether the last one is variable-arity (`T... xs`, typed `T[]`); `None`
/// when its signature is outside the IR.
pub(super) type Sig<'a> = Option<(&'a [Type], bool)>;

/// The candidate a call with arguments of types `args` invokes, and how.
pub(super) fn choose(sigs: &[Sig], args: &[Type]) -> Result<(usize, Invocation), NoChoice> {
    let fixed: Vec<usize> = (0..sigs.len())
        .filter(|&i| sigs[i].is_some_and(|(ps, _)| applies_fixed(ps, args)))
        .collect();
    if !fixed.is_empty() {
        return most_specific(&fixed, |a, b| match (sigs[a], sigs[b]) {
            (Some((p, _)), Some((q, _))) => p.iter().zip(q).all(|(s, t)| widens(s, t)),
            _ => false,
        })
        .map(|i| (i, Invocation::Fixed));
    }
    if !sigs.iter().any(|s| s.is_some_and(|(_, var)| var)) {
        return Err(NoChoice::NoneApplicable);
    }
    if sigs.iter().any(Option::is_none) {
        return Err(NoChoice::Unknown);
    }
    let variable: Vec<usize> = (0..sigs.len())
        .filter(|&i| sigs[i].is_some_and(|(ps, var)| var && applies_variable(ps, args)))
        .collect();
    if variable.is_empty() {
        return Err(NoChoice::NoneApplicable);
    }
    let k = args.len();
    most_specific(&variable, |a, b| match (sigs[a], sigs[b]) {
        (Some((p, _)), Some((q, _))) => {
            // The first k variable arity parameter types of `a` are each a
            // subtype of `b`'s; and if `b` has k+1 parameters (its array
            // slot left empty), so is the (k+1)-th.
            let upto = if q.len() == k + 1 { k + 1 } else { k };
            (0..upto).all(|i| match (expanded(p, i), expanded(q, i)) {
                (Some(s), Some(t)) => widens(s, t),
                _ => false,
            })
        }
        _ => false,
    })
    .map(|i| (i, Invocation::Variable))
}

/// Phase 1: as many arguments as parameters, each widening to its
/// parameter's type (an array only to its own type).
fn applies_fixed(params: &[Type], args: &[Type]) -> bool {
    params.len() == args.len() && params.iter().zip(args).all(|(t, a)| widens(a, t))
}

/// Phase 3 for a variable-arity `params`: at least all but the last
/// parameter are given, the leading arguments widen to the leading
/// parameters and the trailing ones to the element type.
fn applies_variable(params: &[Type], args: &[Type]) -> bool {
    params.len() <= args.len() + 1
        && args
            .iter()
            .enumerate()
            .all(|(i, a)| expanded(params, i).is_some_and(|t| widens(a, t)))
}

/// The `i`-th variable arity parameter type of variable-arity `params`
/// (JLS 15.12.2.4): the `i`-th parameter before the last, the last one's
/// element type from there on.
fn expanded(params: &[Type], i: usize) -> Option<&Type> {
    let last = params.len().checked_sub(1)?;
    if i < last {
        return params.get(i);
    }
    match params.get(last)? {
        Type::Array(elem) => Some(elem),
        _ => None,
    }
}

/// The one of `applicable` more specific than every other (then strictly,
/// so it is the only maximally specific one, as Java requires); none is an
/// ambiguity.
fn most_specific(
    applicable: &[usize],
    more_specific: impl Fn(usize, usize) -> bool,
) -> Result<usize, NoChoice> {
    let best: Vec<usize> = applicable
        .iter()
        .copied()
        .filter(|&m| applicable.iter().all(|&o| more_specific(m, o)))
        .collect();
    match best.as_slice() {
        [one] => Ok(*one),
        _ => Err(NoChoice::Ambiguous),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FloatTy, IntTy};

    const BYTE: Type = Type::Int(IntTy::I8);
    const SHORT: Type = Type::Int(IntTy::I16);
    const FLOAT: Type = Type::Float(FloatTy::F32);

    fn arr(t: Type) -> Type {
        Type::Array(Box::new(t))
    }

    fn run(sigs: &[(Vec<Type>, bool)], args: &[Type]) -> Result<(usize, Invocation), NoChoice> {
        let sigs: Vec<Sig> = sigs.iter().map(|(p, v)| Some((p.as_slice(), *v))).collect();
        choose(&sigs, args)
    }

    #[test]
    fn a_variable_arity_method_takes_any_number_of_elements() {
        let min = [(vec![arr(BYTE)], true)];
        for k in [0, 1, 2, 5] {
            assert_eq!(
                run(&min, &vec![BYTE; k]),
                Ok((0, Invocation::Variable)),
                "{k} arguments"
            );
        }
        // Elements widen to the element type; nothing narrows.
        let sum = [(vec![Type::INT, arr(Type::LONG)], true)];
        assert_eq!(
            run(&sum, &[SHORT, Type::INT, BYTE]),
            Ok((0, Invocation::Variable))
        );
        assert_eq!(run(&sum, &[]), Err(NoChoice::NoneApplicable));
        assert_eq!(run(&min, &[Type::INT]), Err(NoChoice::NoneApplicable));
    }

    #[test]
    fn an_array_argument_is_passed_as_it_is() {
        let min = [(vec![arr(Type::INT)], true)];
        assert_eq!(run(&min, &[arr(Type::INT)]), Ok((0, Invocation::Fixed)));
        // int[] is not a long[], nor an element of one.
        let longs = [(vec![arr(Type::LONG)], true)];
        assert_eq!(
            run(&longs, &[arr(Type::INT)]),
            Err(NoChoice::NoneApplicable)
        );
    }

    #[test]
    fn fixed_arity_overloads_are_chosen_before_variable_arity() {
        let sigs = [
            (vec![arr(Type::INT)], true),
            (vec![Type::INT, Type::INT], false),
            (vec![Type::LONG], false),
        ];
        assert_eq!(
            run(&sigs, &[Type::INT, Type::INT]),
            Ok((1, Invocation::Fixed))
        );
        assert_eq!(run(&sigs, &[Type::INT]), Ok((2, Invocation::Fixed)));
        // Three ints: only the variable-arity one applies.
        assert_eq!(run(&sigs, &[Type::INT; 3]), Ok((0, Invocation::Variable)));
        // A double applies to none.
        assert_eq!(run(&sigs, &[Type::DOUBLE]), Err(NoChoice::NoneApplicable));
    }

    #[test]
    fn the_most_specific_variable_arity_method_wins() {
        let sigs = [(vec![arr(Type::LONG)], true), (vec![arr(Type::INT)], true)];
        assert_eq!(
            run(&sigs, &[Type::INT, SHORT]),
            Ok((1, Invocation::Variable))
        );
        assert_eq!(run(&sigs, &[Type::LONG]), Ok((0, Invocation::Variable)));
        // With no argument both apply and int... is more specific.
        assert_eq!(run(&sigs, &[]), Ok((1, Invocation::Variable)));
    }

    #[test]
    fn ambiguous_variable_arity_calls_are_refused() {
        // f(int, long...) and f(int...) on f(1): javac reports an
        // ambiguity (each is more specific than the other by 15.12.2.5's
        // k+1 rule).
        let sigs = [
            (vec![Type::INT, arr(Type::LONG)], true),
            (vec![arr(Type::INT)], true),
        ];
        assert_eq!(run(&sigs, &[Type::INT]), Err(NoChoice::Ambiguous));
        // f(int, int...) and f(int...) on f(1, 2): each expands to
        // (int, int).
        let same = [
            (vec![Type::INT, arr(Type::INT)], true),
            (vec![arr(Type::INT)], true),
        ];
        assert_eq!(
            run(&same, &[Type::INT, Type::INT]),
            Err(NoChoice::Ambiguous)
        );
    }

    #[test]
    fn an_unknown_signature_blocks_the_variable_arity_phase() {
        let ints = vec![arr(Type::INT)];
        // f(Integer) (outside the IR) would be chosen by boxing on f(1).
        let sigs: Vec<Sig> = vec![None, Some((&ints, true))];
        assert_eq!(choose(&sigs, &[Type::INT]), Err(NoChoice::Unknown));
        // Phase 1 is unaffected: an int[] argument is passed as it is.
        assert_eq!(choose(&sigs, &[arr(Type::INT)]), Ok((1, Invocation::Fixed)));
    }

    #[test]
    fn without_variable_arity_it_is_phase_one() {
        let sigs = [(vec![Type::LONG], false), (vec![Type::INT], false)];
        assert_eq!(run(&sigs, &[SHORT]), Ok((1, Invocation::Fixed)));
        assert_eq!(run(&sigs, &[FLOAT]), Err(NoChoice::NoneApplicable));
        let sigs: Vec<Sig> = vec![None];
        assert_eq!(choose(&sigs, &[Type::INT]), Err(NoChoice::NoneApplicable));
    }
}
