//! Front ends: tree-sitter parse trees of Java and C lowered to the IR
//! ([`crate::ir`]).
//!
//! Invariant: lowering never fails as a whole and never panics. Every
//! function the file declares appears in [`Program::functions`]; one whose
//! body uses a construct outside the IR, or contains a syntax error, carries a
//! [`crate::ir::LowerError`] naming the first such construct and its span.

mod build;
mod c;
mod java;

use crate::ir::{Lang, Program};

/// Parses and lowers a whole source file.
pub fn lower(lang: Lang, source: &str) -> Program {
    match lang {
        Lang::Java => java::lower(source),
        Lang::C => c::lower(source),
    }
}

/// The language of a file, from its extension.
pub fn lang_of_path(path: &str) -> Option<Lang> {
    let ext = path.rsplit_once('.')?.1;
    match ext {
        "java" => Some(Lang::Java),
        "c" | "h" => Some(Lang::C),
        _ => None,
    }
}
