//! Pairing the functions of two versions of a file: by name and arity.

use super::{Selection, Unpaired};
use crate::ir::{FuncId, FunctionDef, Program};

pub struct Pairing {
    /// (old, new), in the order of the new file.
    pub pairs: Vec<(FuncId, FuncId)>,
    /// In the new version only.
    pub added: Vec<Unpaired>,
    /// In the old version only.
    pub removed: Vec<Unpaired>,
}

fn unpaired(f: &FunctionDef) -> Unpaired {
    Unpaired {
        name: f.name.clone(),
        arity: f.arity,
        span: f.name_span,
    }
}

/// Pairs functions with the same name and arity; overloads that share a
/// name and an arity are paired by their parameter types as written (and
/// left unpaired when those differ). With [`Selection::Method`], only that
/// entry point is paired (every overload of that name present in both
/// versions); added/removed lists stay complete.
pub fn pair_functions(old: &Program, new: &Program, selection: &Selection) -> Pairing {
    let mut pairs = Vec::new();
    let mut added = Vec::new();
    for (i, nf) in new.functions.iter().enumerate() {
        if nf.synthetic {
            continue;
        }
        match counterpart(nf, new, old) {
            Some(j) => {
                let wanted = match selection {
                    Selection::All => true,
                    Selection::Method(name) => &nf.name == name,
                };
                if wanted {
                    pairs.push((FuncId(j as u32), FuncId(i as u32)));
                }
            }
            None => added.push(unpaired(nf)),
        }
    }
    let removed = old
        .functions
        .iter()
        .filter(|of| !of.synthetic && counterpart(of, old, new).is_none())
        .map(unpaired)
        .collect();
    Pairing {
        pairs,
        added,
        removed,
    }
}

/// The index in `other` of the function paired with `f` (of program
/// `own`): the one with its name and arity when each version has exactly
/// one (a changed parameter type is then a change to check, not a new
/// method), else the one with the same parameter types too.
fn counterpart(f: &FunctionDef, own: &Program, other: &Program) -> Option<usize> {
    let same_name = |g: &FunctionDef| !g.synthetic && g.name == f.name && g.arity == f.arity;
    let mine = own.functions.iter().filter(|g| same_name(g)).count();
    let theirs: Vec<usize> = other
        .functions
        .iter()
        .enumerate()
        .filter(|(_, g)| same_name(g))
        .map(|(j, _)| j)
        .collect();
    match theirs.as_slice() {
        [j] if mine == 1 => Some(*j),
        _ => theirs
            .into_iter()
            .find(|&j| other.functions[j].param_types == f.param_types),
    }
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
}
