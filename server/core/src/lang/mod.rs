//! Front ends: tree-sitter parse trees of Java and C lowered to the IR
//! ([`crate::ir`]).
//!
//! Invariant: lowering never fails as a whole and never panics. Every
//! function the file declares appears in [`Program::functions`]; one whose
//! body uses a construct outside the IR, or contains a syntax error, carries a
//! [`crate::ir::LowerError`] naming the first such construct and its span.

mod bits;
mod c;
pub(crate) mod java;
mod lower;

use crate::ir::{Lang, Program};
use rustc_hash::FxHashMap;
use tree_sitter::{InputEdit, Parser, Point, Tree};

/// Parses and lowers a whole source file.
pub fn lower(lang: Lang, source: &str) -> Program {
    match parse(lang, source, None) {
        Some(parsed) => lower_parsed(&parsed, source),
        None => Program {
            lang,
            functions: Vec::new(),
            globals: Vec::new(),
            class_parents: Vec::new(),
            syntax_errors: Vec::new(),
            cache: Default::default(),
        },
    }
}

/// A parsed source file. Kept by an editor integration so that the next
/// version of the text is parsed incrementally: after [`Parsed::edit`] with
/// the edits made since, [`parse`] reuses every subtree the edits did not
/// touch (a keystroke in a 5,000-line file reparses in a few milliseconds
/// instead of tens).
#[derive(Clone)]
pub struct Parsed {
    lang: Lang,
    tree: Tree,
}

/// One text edit, in bytes: where it starts, where the replaced text ended
/// and where the new text ends, as offsets and as (row, byte column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start_byte: usize,
    pub old_end_byte: usize,
    pub new_end_byte: usize,
    pub start: (usize, usize),
    pub old_end: (usize, usize),
    pub new_end: (usize, usize),
}

impl Parsed {
    /// Records an edit of the text this tree was parsed from (in order, for
    /// several); the next [`parse`] given this tree is incremental.
    pub fn edit(&mut self, e: &TextEdit) {
        let point = |(row, column): (usize, usize)| Point { row, column };
        self.tree.edit(&InputEdit {
            start_byte: e.start_byte,
            old_end_byte: e.old_end_byte,
            new_end_byte: e.new_end_byte,
            start_position: point(e.start),
            old_end_position: point(e.old_end),
            new_end_position: point(e.new_end),
        });
    }
}

/// Parses `source`, incrementally when `previous` is the edited tree of an
/// earlier version of the same language. `None` only if the parser cannot
/// be set up (a grammar/library version mismatch).
pub fn parse(lang: Lang, source: &str, previous: Option<&Parsed>) -> Option<Parsed> {
    let mut parser = Parser::new();
    let language: tree_sitter::Language = match lang {
        Lang::Java => tree_sitter_java::LANGUAGE.into(),
        Lang::C => tree_sitter_c::LANGUAGE.into(),
    };
    parser.set_language(&language).ok()?;
    let old = previous.filter(|p| p.lang == lang).map(|p| &p.tree);
    let tree = parser.parse(source, old)?;
    Some(Parsed { lang, tree })
}

/// Lowers a parsed file; `source` must be the text it was parsed from.
pub fn lower_parsed(parsed: &Parsed, source: &str) -> Program {
    let mut program = match parsed.lang {
        Lang::Java => java::lower(source, &parsed.tree),
        Lang::C => c::lower(source, &parsed.tree),
    };
    crate::passes::constant_locals::fold(&mut program);
    refuse_redefinitions(&mut program);
    if parsed.lang.grammar_errors_are_compile_errors() {
        program.syntax_errors = syntax_errors_outside_functions(&parsed.tree, &program);
    }
    program
}

/// Marks every function defined more than once — in C by name, in Java by
/// class, name and parameter types — as a redefinition: the compiler
/// rejects the file, and which definition a call or a pairing would pick is
/// anybody's guess, so neither is checked and calls to it are unanalysed.
fn refuse_redefinitions(program: &mut Program) {
    let key = |f: &crate::ir::FunctionDef| match program.lang {
        Lang::C => (Vec::new(), f.name.clone(), Vec::new()),
        Lang::Java => (f.owner.clone(), f.name.clone(), f.param_types.clone()),
    };
    let mut first: FxHashMap<_, usize> = FxHashMap::default();
    let mut twice = Vec::new();
    for (i, f) in program.functions.iter().enumerate() {
        if f.synthetic {
            continue;
        }
        match first.entry(key(f)) {
            std::collections::hash_map::Entry::Occupied(e) => twice.push((*e.get(), i)),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
            }
        }
    }
    for (a, b) in twice {
        let (sa, sb) = (
            program.functions[a].name_span,
            program.functions[b].name_span,
        );
        let name = program.functions[a].qualified_name();
        for (i, other) in [(a, sb), (b, sa)] {
            program.functions[i].body = Err(crate::ir::LowerError {
                kind: crate::ir::LowerErrorKind::Redefinition,
                what: format!("of {name} (also defined at {other})"),
                span: program.functions[i].name_span,
            });
        }
    }
}

/// The span of a syntax tree node (lines 0-based, columns in bytes).
pub(crate) fn node_span(n: tree_sitter::Node) -> crate::ir::Span {
    let pos = |p: tree_sitter::Point, byte: usize| crate::ir::Pos {
        line: p.row as u32,
        col: p.column as u32,
        byte: byte as u32,
    };
    crate::ir::Span {
        start: pos(n.start_position(), n.start_byte()),
        end: pos(n.end_position(), n.end_byte()),
    }
}

/// The leaves of `nodes` (comments left out) as one string of tokens
/// separated by spaces, each identifier spelled `own` replaced by `@`: what
/// [`crate::ir::Global::origin`] holds. Layout and comments do not matter;
/// every other token does. Iterative: trees can be deep.
pub(crate) fn origin_tokens(nodes: &[tree_sitter::Node], source: &str, own: &str) -> String {
    let mut out = String::new();
    for &root in nodes {
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.is_extra() || n.kind().ends_with("comment") {
                continue;
            }
            if n.child_count() == 0 {
                let text = source.get(n.byte_range()).unwrap_or_default();
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(if n.kind() == "identifier" && text == own {
                    "@"
                } else {
                    text
                });
                continue;
            }
            let mut c = n.walk();
            let children: Vec<_> = n.children(&mut c).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out
}

/// The identifiers of the tree under `root` that lie outside every range of
/// `analysed` (byte ranges). A front end passes the code whose effects the
/// IR shows — the bodies of the functions it lowered, the declarators'
/// own names, what it evaluates itself — and learns which names the rest
/// (functions it could not lower, initialisers of other kinds) may touch:
/// a global named there may be written by code no check sees. Iterative:
/// trees can be deep.
pub(crate) fn mentioned_outside(
    root: tree_sitter::Node,
    source: &str,
    analysed: &[std::ops::Range<usize>],
) -> rustc_hash::FxHashSet<String> {
    let inside = |r: std::ops::Range<usize>| {
        analysed
            .iter()
            .any(|a| a.start <= r.start && r.end <= a.end)
    };
    let mut out = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if inside(n.byte_range()) {
            continue;
        }
        if n.kind() == "identifier" || n.kind() == "field_identifier" {
            if let Some(t) = source.get(n.byte_range()) {
                out.insert(t.to_string());
            }
            continue;
        }
        // A C macro's body is text: every word of it counts.
        if n.kind() == "preproc_arg" {
            let text = source.get(n.byte_range()).unwrap_or_default();
            out.extend(
                text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty())
                    .map(str::to_string),
            );
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    out
}

/// At most this many syntax errors outside functions are listed.
const MAX_FILE_ERRORS: usize = 20;

/// The ERROR and MISSING nodes of `tree` that lie outside every function
/// of `program` (the same for every language: what differs is only which
/// nodes the grammar makes errors). Iterative: trees can be deep.
fn syntax_errors_outside_functions(tree: &Tree, program: &Program) -> Vec<crate::ir::LowerError> {
    let root = tree.root_node();
    if !root.has_error() {
        return Vec::new();
    }
    let mut spans: Vec<(usize, usize)> = program
        .functions
        .iter()
        .filter(|f| !f.synthetic)
        .map(|f| (f.span.start.byte as usize, f.span.end.byte as usize))
        .collect();
    spans.sort_unstable();
    let inside = |n: &tree_sitter::Node| {
        let (start, end) = (n.start_byte(), n.end_byte());
        let i = spans.partition_point(|&(s, _)| s <= start);
        i > 0 && spans[i - 1].1 >= end
    };
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if found.len() >= MAX_FILE_ERRORS {
            break;
        }
        if inside(&n) {
            continue;
        }
        if n.is_error() || n.is_missing() {
            // An ERROR node that holds a function (the grammar recovered
            // around it) is reported at its first part outside them.
            let mut c = n.walk();
            let at = n.children(&mut c).find(|k| !inside(k)).unwrap_or(n);
            found.push(crate::ir::LowerError {
                kind: crate::ir::LowerErrorKind::SyntaxError,
                what: if n.is_missing() {
                    format!("missing '{}'", n.kind())
                } else {
                    "syntax error".to_string()
                },
                span: node_span(at),
            });
            continue;
        }
        if n.has_error() {
            let mut c = n.walk();
            let mut kids: Vec<_> = n.children(&mut c).collect();
            kids.reverse();
            stack.extend(kids);
        }
    }
    found
}

/// The front end's own lowering, before the IR clean-ups every other
/// caller gets (what the front ends' unit tests look at).
#[cfg(test)]
pub(crate) fn lower_unfolded(lang: Lang, source: &str) -> Program {
    let Some(parsed) = parse(lang, source, None) else {
        return lower(lang, source);
    };
    match lang {
        Lang::Java => java::lower(source, &parsed.tree),
        Lang::C => c::lower(source, &parsed.tree),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `edit` (replace `old` by `new`, first occurrence) to `text`
    /// and returns the new text with the edit in tree-sitter terms.
    fn edit(text: &str, old: &str, new: &str) -> (String, TextEdit) {
        let start = text.find(old).expect("needle");
        let point = |t: &str, at: usize| {
            let before = &t[..at];
            let row = before.matches('\n').count();
            (row, at - before.rfind('\n').map_or(0, |i| i + 1))
        };
        let out = format!("{}{new}{}", &text[..start], &text[start + old.len()..]);
        let e = TextEdit {
            start_byte: start,
            old_end_byte: start + old.len(),
            new_end_byte: start + new.len(),
            start: point(text, start),
            old_end: point(text, start + old.len()),
            new_end: point(&out, start + new.len()),
        };
        (out, e)
    }

    #[test]
    fn incremental_parses_lower_like_full_ones() {
        for (lang, text, edits) in [
            (
                Lang::Java,
                "class A {\n  static int f(int a) { return a + 1; }\n  static int g(int b) { return b; }\n}\n",
                vec![
                    ("a + 1", "a +"),
                    ("a +", "a * 2"),
                    ("return b;", "int c = b;\n    return c - 1;"),
                ],
            ),
            (
                Lang::C,
                "int f(int a) { return a + 1; }\nint g(int b) { return b; }\n",
                vec![("a + 1", "a << 1"), ("int g", "long g"), ("return b;", "")],
            ),
        ] {
            let mut text = text.to_string();
            let mut parsed = parse(lang, &text, None).expect("parser");
            for (old, new) in edits {
                let (next, e) = edit(&text, old, new);
                parsed.edit(&e);
                parsed = parse(lang, &next, Some(&parsed)).expect("parser");
                text = next;
                let incremental = lower_parsed(&parsed, &text);
                let full = lower(lang, &text);
                assert_eq!(format!("{incremental:?}"), format!("{full:?}"), "{text}");
            }
        }
    }

    #[test]
    fn a_function_defined_twice_is_refused_in_both_places() {
        let c = "static int f(int x) { return x; }\nstatic int f(int x) { return 1; }\nint g(void) { return 2; }\n";
        let p = lower(Lang::C, c);
        let errs: Vec<String> = p
            .functions
            .iter()
            .filter_map(|f| f.body.as_ref().err().map(|e| e.to_string()))
            .collect();
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert!(
            errs[0].starts_with("redefinition of f (also defined at 2:"),
            "{errs:?}"
        );
        assert!(p.functions[2].body.is_ok());
        // Java: the same name and parameter types in one class only.
        let j = "class A { int f(int x) { return x; } int f(long x) { return 1; }
                 static class B { int f(int y) { return 2; } } int f(int z) { return 3; } }";
        let p = lower(Lang::Java, j);
        let refused: Vec<(String, bool)> = p
            .functions
            .iter()
            .filter(|f| !f.synthetic)
            .map(|f| (f.qualified_name(), f.body.is_err()))
            .collect();
        assert_eq!(
            refused,
            [
                ("A.f".to_string(), true),
                ("A.f".to_string(), false),
                ("A.B.f".to_string(), false),
                ("A.f".to_string(), true)
            ]
        );
    }

    #[test]
    fn syntax_errors_outside_methods_are_the_files_and_inside_are_the_methods() {
        let ok = "class T {\n  static int f(int x) { return x; }\n}\n";
        assert!(lower(Lang::Java, ok).syntax_errors.is_empty());
        // A stray brace after the class: the file's error, f unaffected.
        let stray = lower(Lang::Java, &format!("{ok}}}\n"));
        assert_eq!(stray.syntax_errors.len(), 1, "{:?}", stray.syntax_errors);
        assert_eq!(stray.syntax_errors[0].span.line(), 4);
        assert!(stray.functions[0].body.is_ok());
        // An error inside f is f's own, not the file's.
        let inside = lower(Lang::Java, &ok.replace("return x;", "return x +;"));
        assert!(
            inside.syntax_errors.is_empty(),
            "{:?}",
            inside.syntax_errors
        );
        assert!(inside.functions[0].body.is_err());
        // C's grammar reads unpreprocessed text: valid code with a
        // calling-convention macro is no compile error.
        let c = "typedef struct h { void *(CDECL *alloc)(unsigned long n); } h;\nint f(int x) { return x; }\n";
        assert!(lower(Lang::C, c).syntax_errors.is_empty());
    }
}
