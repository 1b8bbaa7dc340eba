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

/// Pairs functions with the same name and arity. With
/// [`Selection::Method`], only that entry point is paired (every overload of
/// that name present in both versions); added/removed lists stay complete.
pub fn pair_functions(old: &Program, new: &Program, selection: &Selection) -> Pairing {
    let key = |f: &FunctionDef| (f.name.clone(), f.arity);
    let mut pairs = Vec::new();
    let mut added = Vec::new();
    for (i, nf) in new.functions.iter().enumerate() {
        if nf.synthetic {
            continue;
        }
        match old.functions.iter().position(|of| key(of) == key(nf)) {
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
        .filter(|of| !of.synthetic && !new.functions.iter().any(|nf| key(nf) == key(of)))
        .map(unpaired)
        .collect();
    Pairing {
        pairs,
        added,
        removed,
    }
}
