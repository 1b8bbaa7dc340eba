//! Pairing the functions of two versions of a file, and naming them.
//!
//! A function is identified in its file by its enclosing classes, its name
//! and its parameter types ([`FunctionDef::owner`], `name`,
//! `param_types`): two classes of one file may each have an `f(int)`, and
//! each is paired with its own counterpart. Pairing is linear in the number
//! of functions (hash maps keyed by those parts).

use super::{Selection, Unpaired};
use crate::ir::{FuncId, FunctionDef, Program};
use rustc_hash::FxHashMap;

pub struct Pairing {
    /// (old, new), in the order of the new file.
    pub pairs: Vec<(FuncId, FuncId)>,
    /// In the new version only.
    pub added: Vec<Unpaired>,
    /// In the old version only.
    pub removed: Vec<Unpaired>,
}

fn unpaired(f: &FunctionDef, label: String) -> Unpaired {
    Unpaired {
        name: f.name.clone(),
        arity: f.arity,
        qualified: f.qualified_name(),
        label,
        span: f.name_span,
    }
}

/// Functions grouped by (enclosing classes, name, arity), in file order.
type Groups<'p> = FxHashMap<(&'p [String], &'p str, usize), Vec<usize>>;

fn group_key(f: &FunctionDef) -> (&[String], &str, usize) {
    (&f.owner, &f.name, f.arity)
}

fn groups(p: &Program) -> Groups<'_> {
    let mut g: Groups<'_> = FxHashMap::default();
    for (i, f) in p.functions.iter().enumerate() {
        if !f.synthetic {
            g.entry(group_key(f)).or_default().push(i);
        }
    }
    g
}

/// Pairs the functions of the same classes, name and arity; overloads
/// that share those are paired by their parameter types as written (and
/// left unpaired when those differ). A function whose classes have no such
/// counterpart (a class renamed) is paired with the one function of its
/// name and arity left unpaired in the other version, when there is
/// exactly one on each side. With [`Selection::Method`], only the entry
/// points it names are paired (see [`selects`]); added/removed lists stay
/// complete.
pub fn pair_functions(old: &Program, new: &Program, selection: &Selection) -> Pairing {
    let (old_groups, new_groups) = (groups(old), groups(new));
    // The k-th definition of a signature pairs with the k-th of the other
    // version: a signature defined twice (a program no compiler accepts,
    // refused when lowered) still pairs each definition once.
    let old_counterpart = |i: usize| {
        let f = &new.functions[i];
        let key = group_key(f);
        let candidates = old_groups.get(&key)?;
        let siblings = new_groups.get(&key).map(Vec::as_slice).unwrap_or_default();
        match candidates.as_slice() {
            [j] if siblings.len() == 1 => Some(*j),
            _ => {
                let same_types = |g: &FunctionDef| same_signature(&g.param_types, &f.param_types);
                let rank = siblings
                    .iter()
                    .take_while(|&&s| s != i)
                    .filter(|&&s| same_types(&new.functions[s]))
                    .count();
                candidates
                    .iter()
                    .copied()
                    .filter(|&j| same_types(&old.functions[j]))
                    .nth(rank)
            }
        }
    };
    let mut old_taken = vec![false; old.functions.len()];
    let mut new_partner: Vec<Option<usize>> = vec![None; new.functions.len()];
    for (i, nf) in new.functions.iter().enumerate() {
        if nf.synthetic {
            continue;
        }
        if let Some(j) = old_counterpart(i) {
            new_partner[i] = Some(j);
            old_taken[j] = true;
        }
    }
    // Classes renamed: a lone leftover of a name and arity on each side,
    // whose classes have no function of that name and arity in the other
    // version (an overload whose types changed stays added and removed).
    let old_left = leftovers(old, &|j| {
        old_taken[j] || new_groups.contains_key(&group_key(&old.functions[j]))
    });
    let new_left = leftovers(new, &|i| {
        new_partner[i].is_some() || old_groups.contains_key(&group_key(&new.functions[i]))
    });
    for (key, news) in &new_left {
        if let ([i], Some([j])) = (news.as_slice(), old_left.get(key).map(Vec::as_slice)) {
            new_partner[*i] = Some(*j);
            old_taken[*j] = true;
        }
    }
    let (old_labels, new_labels) = (labels(old), labels(new));
    let mut pairs = Vec::new();
    let mut added = Vec::new();
    for (i, nf) in new.functions.iter().enumerate() {
        if nf.synthetic {
            continue;
        }
        match new_partner[i] {
            Some(j) if selects(selection, nf) || selects(selection, &old.functions[j]) => {
                pairs.push((FuncId(j as u32), FuncId(i as u32)));
            }
            Some(_) => {}
            None => added.push(unpaired(nf, new_labels[i].clone())),
        }
    }
    let removed = old
        .functions
        .iter()
        .enumerate()
        .filter(|(j, of)| !of.synthetic && !old_taken[*j])
        .map(|(j, of)| unpaired(of, old_labels[j].clone()))
        .collect();
    Pairing {
        pairs,
        added,
        removed,
    }
}

/// The functions of `p` that `taken` leaves, by name and arity.
fn leftovers<'p>(
    p: &'p Program,
    taken: &dyn Fn(usize) -> bool,
) -> FxHashMap<(&'p str, usize), Vec<usize>> {
    let mut by_name: FxHashMap<(&str, usize), Vec<usize>> = FxHashMap::default();
    for (i, f) in p.functions.iter().enumerate() {
        if !f.synthetic && !taken(i) {
            by_name.entry((&f.name, f.arity)).or_default().push(i);
        }
    }
    by_name
}

/// Whether `selection` names `f`: every function for [`Selection::All`];
/// for [`Selection::Method`] a name with as many enclosing classes as the
/// user wrote (`f`, `B.f`, `A.B.f`), optionally with parameter types
/// (`f(int, long)`; whitespace ignored).
pub fn selects(selection: &Selection, f: &FunctionDef) -> bool {
    let Selection::Method(wanted) = selection else {
        return true;
    };
    let wanted: String = wanted.chars().filter(|c| !c.is_whitespace()).collect();
    let (path, params) = match wanted.split_once('(') {
        Some((path, rest)) => (path, Some(rest.trim_end_matches(')'))),
        None => (wanted.as_str(), None),
    };
    let qualified = f.qualified_name();
    let path_matches = qualified == path
        || qualified
            .strip_suffix(path)
            .is_some_and(|rest| rest.ends_with('.'));
    let params_match = params.is_none_or(|p| {
        let split: Vec<&str> = p.split(',').filter(|t| !t.is_empty()).collect();
        if f.param_types.is_empty() {
            // C: only the number of parameters is known by type text.
            split.len() == f.arity
        } else {
            same_signature(&split, &f.param_types)
        }
    });
    path_matches && params_match
}

/// Whether two lists of parameter types as written denote the same
/// signature: Java's variable-arity `T...` is the array type `T[]` (a
/// method may change one into the other, and a class cannot declare both).
fn same_signature<A: AsRef<str>, B: AsRef<str>>(a: &[A], b: &[B]) -> bool {
    let array = |t: &str| match t.strip_suffix("...") {
        Some(elem) => format!("{elem}[]"),
        None => t.to_string(),
    };
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| array(x.as_ref()) == array(y.as_ref()))
}

/// How each function of `p` is identified by editors' commands (by index):
/// its qualified name (`A.B.f`), with its parameter types (`A.f(int,
/// long)`) when an overload of its class has as many parameters. With the
/// arity, unique in the file.
pub fn keys(p: &Program) -> Vec<String> {
    let mut by_class: FxHashMap<(&[String], &str, usize), usize> = FxHashMap::default();
    for f in p.functions.iter().filter(|f| !f.synthetic) {
        *by_class.entry((&f.owner, &f.name, f.arity)).or_default() += 1;
    }
    p.functions
        .iter()
        .map(|f| {
            let overloaded = by_class
                .get(&(f.owner.as_slice(), f.name.as_str(), f.arity))
                .is_some_and(|&n| n > 1);
            if overloaded && f.param_types.len() == f.arity {
                format!("{}({})", f.qualified_name(), f.param_types.join(", "))
            } else {
                f.qualified_name()
            }
        })
        .collect()
}

/// How the function `id` of `p` is named to the user (see [`labels`]).
pub fn label(p: &Program, id: FuncId) -> String {
    let f = p.function(id);
    let related = |g: &&FunctionDef| !g.synthetic && g.name == f.name && g.arity == f.arity;
    let group: Vec<&FunctionDef> = p.functions.iter().filter(related).collect();
    label_in(f, &group)
}

fn label_in(f: &FunctionDef, group: &[&FunctionDef]) -> String {
    let classes_differ = group.iter().any(|g| g.owner != f.owner);
    let overloaded = group.iter().filter(|g| g.owner == f.owner).count() > 1;
    let name = if classes_differ {
        f.qualified_name()
    } else {
        f.name.clone()
    };
    let label = if overloaded && f.param_types.len() == f.arity {
        format!("{name}({})", f.param_types.join(", "))
    } else {
        format!("{name}({})", f.arity)
    };
    // A signature defined twice (refused when lowered) is told apart by
    // the line of each definition.
    let defined_again = group
        .iter()
        .filter(|g| g.owner == f.owner && same_signature(&g.param_types, &f.param_types))
        .count()
        > 1;
    if defined_again {
        format!("{label} (line {})", f.name_span.start.line + 1)
    } else {
        label
    }
}

/// How each function of `p` is named to the user (by index; synthetic
/// functions get their bare name): `f(2)` when it is the only `f` with two
/// parameters in its file; its classes in front (`B.f(2)`) when another
/// class has one too; its parameter types (`f(int, long)`) when an
/// overload of its class has as many parameters.
pub fn labels(p: &Program) -> Vec<String> {
    let mut by_name: FxHashMap<(&str, usize), Vec<usize>> = FxHashMap::default();
    for (i, f) in p.functions.iter().enumerate() {
        if !f.synthetic {
            by_name.entry((&f.name, f.arity)).or_default().push(i);
        }
    }
    p.functions
        .iter()
        .map(|f| {
            let group: Vec<&FunctionDef> = by_name
                .get(&(f.name.as_str(), f.arity))
                .map(|g| g.iter().map(|&j| &p.functions[j]).collect())
                .unwrap_or_default();
            label_in(f, &group)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Lang, Span};

    fn function(name: &str, types: &[&str]) -> FunctionDef {
        FunctionDef {
            name: name.into(),
            arity: types.len(),
            span: Span::default(),
            name_span: Span::default(),
            body: Err(crate::ir::LowerError {
                kind: crate::ir::LowerErrorKind::Unsupported,
                what: "test".into(),
                span: Span::default(),
            }),
            synthetic: false,
            param_types: types.iter().map(|t| t.to_string()).collect(),
            owner: Vec::new(),
        }
    }

    fn program(functions: Vec<FunctionDef>) -> Program {
        Program {
            lang: Lang::Java,
            functions,
            globals: Vec::new(),
            class_parents: Vec::new(),
            syntax_errors: Vec::new(),
            cache: Default::default(),
        }
    }

    #[test]
    fn overloads_of_one_arity_pair_by_parameter_types_whatever_their_order() {
        let old = program(vec![
            function("assign", &["double"]),
            function("assign", &["Complex"]),
        ]);
        let new = program(vec![
            function("assign", &["Complex"]),
            function("assign", &["double"]),
        ]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert_eq!(
            p.pairs,
            vec![(FuncId(1), FuncId(0)), (FuncId(0), FuncId(1))]
        );
        assert!(p.added.is_empty() && p.removed.is_empty());
    }

    #[test]
    fn a_lone_method_whose_parameter_type_changed_is_still_paired() {
        let old = program(vec![function("f", &["int"])]);
        let new = program(vec![function("f", &["long"])]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert_eq!(p.pairs, vec![(FuncId(0), FuncId(0))]);
    }

    #[test]
    fn an_overload_whose_types_changed_is_added_and_removed_not_paired_with_a_sibling() {
        let old = program(vec![function("g", &["int"]), function("g", &["double"])]);
        let new = program(vec![function("g", &["long"]), function("g", &["double"])]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert_eq!(p.pairs, vec![(FuncId(1), FuncId(1))]);
        assert_eq!(p.added.len(), 1);
        assert_eq!(p.removed.len(), 1);
    }

    #[test]
    fn a_variable_arity_overload_pairs_with_its_array_form() {
        let old = program(vec![
            function("min", &["int..."]),
            function("min", &["long"]),
        ]);
        let new = program(vec![
            function("min", &["long"]),
            function("min", &["int[]"]),
        ]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert_eq!(
            p.pairs,
            vec![(FuncId(1), FuncId(0)), (FuncId(0), FuncId(1))]
        );
        assert!(selects(
            &Selection::Method("min(int[])".into()),
            &old.functions[0]
        ));
        assert!(selects(
            &Selection::Method("min(int...)".into()),
            &new.functions[1]
        ));
    }

    fn in_class(owner: &[&str], name: &str) -> FunctionDef {
        let mut f = function(name, &["int"]);
        f.owner = owner.iter().map(|c| c.to_string()).collect();
        f
    }

    #[test]
    fn methods_of_two_classes_pair_with_their_own_class_whatever_the_order() {
        let old = program(vec![in_class(&["A"], "f"), in_class(&["B"], "f")]);
        let new = program(vec![in_class(&["B"], "f"), in_class(&["A"], "f")]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert_eq!(
            p.pairs,
            vec![(FuncId(1), FuncId(0)), (FuncId(0), FuncId(1))]
        );
        assert_eq!(labels(&new), vec!["B.f(1)", "A.f(1)"]);
        let only_b = pair_functions(&old, &new, &Selection::Method("B.f".into()));
        assert_eq!(only_b.pairs, vec![(FuncId(1), FuncId(0))]);
        let nested = program(vec![in_class(&["A"], "f"), in_class(&["A", "B"], "f")]);
        let p = pair_functions(&nested, &nested, &Selection::Method("A.B.f".into()));
        assert_eq!(p.pairs, vec![(FuncId(1), FuncId(1))]);
        // A bare name selects every class's method of that name.
        let all = pair_functions(&old, &new, &Selection::Method("f".into()));
        assert_eq!(all.pairs.len(), 2);
    }

    #[test]
    fn a_method_of_a_renamed_class_is_still_paired_when_unambiguous() {
        let old = program(vec![in_class(&["Old"], "f")]);
        let new = program(vec![in_class(&["New"], "f")]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert_eq!(p.pairs, vec![(FuncId(0), FuncId(0))]);
        // Two candidates: nothing is guessed.
        let old = program(vec![in_class(&["A"], "f"), in_class(&["B"], "f")]);
        let new = program(vec![in_class(&["C"], "f"), in_class(&["D"], "f")]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert!(p.pairs.is_empty());
        assert_eq!((p.added.len(), p.removed.len()), (2, 2));
    }

    #[test]
    fn overloads_are_labelled_by_their_types() {
        let p = program(vec![function("g", &["int"]), function("g", &["double"])]);
        assert_eq!(labels(&p), vec!["g(int)", "g(double)"]);
        assert_eq!(keys(&p), vec!["g(int)", "g(double)"]);
        let sel = |s: &str| Selection::Method(s.into());
        assert!(selects(&sel("g(double)"), &p.functions[1]));
        assert!(!selects(&sel("g(double)"), &p.functions[0]));
    }

    #[test]
    fn each_definition_of_a_signature_defined_twice_pairs_once_and_is_labelled_by_its_line() {
        let at_line = |line: u32| {
            let mut f = function("f", &[]);
            f.arity = 1;
            f.name_span.start.line = line;
            f
        };
        let old = program(vec![at_line(0), at_line(1)]);
        let new = program(vec![at_line(0), at_line(1)]);
        let p = pair_functions(&old, &new, &Selection::All);
        assert_eq!(
            p.pairs,
            vec![(FuncId(0), FuncId(0)), (FuncId(1), FuncId(1))]
        );
        assert!(p.added.is_empty() && p.removed.is_empty());
        assert_eq!(labels(&new), vec!["f(1) (line 1)", "f(1) (line 2)"]);
    }
}
