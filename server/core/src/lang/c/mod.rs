//! The C front end: a tree-sitter-c parse tree lowered to the IR
//! ([`crate::ir`]).
//!
//! # What is supported
//! Functions over the C scalar types (LP64: `char` is signed 8-bit, `long`
//! and `long long` are 64-bit, `size_t` is `u64`), `_Bool`/`bool`, `float`,
//! `double`, `<stdint.h>` types and typedefs of these; local arrays of
//! constant (or variable) length; array parameters (`int a[]`, `int *a`) that
//! are only indexed; globals; `#define` constants; enums; the usual
//! statements; `math.h`/`stdlib.h` functions that have an
//! [`crate::ir::Intrinsic`]; `printf`, `puts`, `putchar`.
//!
//! # Choices the C standard leaves open (documented, deterministic)
//! - **Evaluation order.** C leaves the order of operand evaluation
//!   unspecified; we evaluate left to right (as gcc does for most code), and
//!   lift side effects in that order.
//! - **Uninitialised locals.** C locals without an initialiser are
//!   indeterminate (reading one is undefined behaviour); we zero them, scalars
//!   and arrays alike, so both versions read the same value.
//! - **Globals** that are not `const` are inputs: their initialiser is ignored
//!   (EqBench passes them as free inputs); `const` globals with constant
//!   initialisers get [`crate::ir::Global::constant`].
//! - **`#define` and enum constants** are substituted at the use site: an enum
//!   constant becomes an `int` literal, an object-like macro's body is parsed
//!   and lowered in place (as the preprocessor would paste it). A macro body
//!   that is not a primary expression is only accepted where precedence
//!   cannot change its meaning (a whole argument, initialiser, operand of
//!   parentheses, ...). `M_PI` & co. (`math.h`) and the `limits.h` bounds are
//!   predefined macros. Function-like macros are expanded on text first
//!   (`fn_macro.rs`), and each use's expansion is lowered the same way.
//! - Preprocessor conditionals (`#if`, `#ifdef`) are not evaluated; functions
//!   inside them are not seen.

mod expr;
mod fn_macro;
mod pointers;
mod stmt;
mod structs;
mod types;

#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap;
use tree_sitter::{Node, Parser, Tree};

use crate::lang::lower::{FnBuilder, Keep, Style};

use crate::ir::{
    Expr, ExprKind, FuncId, Function, FunctionDef, Global, GlobalId, IntTy, LabelId, Lang, LocalId,
    LocalKind, LowerError, LowerErrorKind, Program, Span, Type,
};

type Res<T> = Result<T, LowerError>;

/// How C is lowered where the front ends differ: temporaries are `tmpN`,
/// and every earlier operand but a literal or temporary is spilled before a
/// later one's statements.
static C: Style = Style {
    temp_prefix: "tmp",
    keep: Keep::Unstable,
};

/// Source span of a node (zero-based line/column, byte offsets).
fn span_of(n: Node) -> Span {
    let s = n.start_position();
    let e = n.end_position();
    Span {
        start: crate::ir::Pos {
            line: s.row as u32,
            col: s.column as u32,
            byte: n.start_byte() as u32,
        },
        end: crate::ir::Pos {
            line: e.row as u32,
            col: e.column as u32,
            byte: n.end_byte() as u32,
        },
    }
}

fn unsupported(span: Span, what: impl Into<String>) -> LowerError {
    LowerError {
        kind: LowerErrorKind::Unsupported,
        what: what.into(),
        span,
    }
}

/// Named children that are not comments (comments are named "extras" in
/// tree-sitter and may appear anywhere).
fn kids(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| k.kind() != "comment")
        .collect()
}

/// The first ERROR or MISSING node below `n` (in source order), as a
/// syntax error. Iterative: parse trees of generated code can be deep.
fn first_syntax_error(n: Node) -> Option<LowerError> {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            let what = if n.is_missing() {
                format!("missing '{}'", n.kind())
            } else {
                "syntax error".to_string()
            };
            return Some(LowerError {
                kind: LowerErrorKind::SyntaxError,
                what,
                span: span_of(n),
            });
        }
        if n.has_error() {
            let mut kids = all_children(n);
            kids.reverse();
            stack.extend(kids);
        }
    }
    None
}

/// Every node below `n` (pre-order), without recursion.
fn descendants(n: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    out
}

fn parser() -> Option<Parser> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_c::LANGUAGE.into()).ok()?;
    Some(p)
}

/// Macros of `math.h`, `limits.h` and `stdlib.h` that programs use as
/// constants.
const BUILTIN_MACROS: &[(&str, &str)] = &[
    ("EXIT_SUCCESS", "0"),
    ("EXIT_FAILURE", "1"),
    ("M_E", "2.7182818284590452354"),
    ("M_LOG2E", "1.4426950408889634074"),
    ("M_LOG10E", "0.43429448190325182765"),
    ("M_LN2", "0.69314718055994530942"),
    ("M_LN10", "2.30258509299404568402"),
    ("M_PI", "3.14159265358979323846"),
    ("M_PI_2", "1.57079632679489661923"),
    ("M_PI_4", "0.78539816339744830962"),
    ("M_1_PI", "0.31830988618379067154"),
    ("M_2_PI", "0.63661977236758134308"),
    ("M_2_SQRTPI", "1.12837916709551257390"),
    ("M_SQRT2", "1.41421356237309504880"),
    ("M_SQRT1_2", "0.70710678118654752440"),
    ("INT_MAX", "2147483647"),
    ("INT_MIN", "(-2147483647 - 1)"),
    ("UINT_MAX", "4294967295U"),
    ("LONG_MAX", "9223372036854775807L"),
    ("LONG_MIN", "(-9223372036854775807L - 1L)"),
    ("ULONG_MAX", "18446744073709551615UL"),
    ("LLONG_MAX", "9223372036854775807LL"),
    ("LLONG_MIN", "(-9223372036854775807LL - 1LL)"),
    ("SHRT_MAX", "32767"),
    ("SHRT_MIN", "(-32767 - 1)"),
    ("CHAR_MAX", "127"),
    ("CHAR_MIN", "(-127 - 1)"),
    ("SCHAR_MAX", "127"),
    ("SCHAR_MIN", "(-127 - 1)"),
    ("UCHAR_MAX", "255"),
    ("USHRT_MAX", "65535"),
    ("INT8_MAX", "127"),
    ("INT16_MAX", "32767"),
    ("INT32_MAX", "2147483647"),
    ("INT64_MAX", "9223372036854775807L"),
    ("INT8_MIN", "(-127 - 1)"),
    ("INT16_MIN", "(-32767 - 1)"),
    ("INT32_MIN", "(-2147483647 - 1)"),
    ("INT64_MIN", "(-9223372036854775807L - 1L)"),
    ("UINT8_MAX", "255"),
    ("UINT16_MAX", "65535"),
    ("UINT32_MAX", "4294967295U"),
    ("UINT64_MAX", "18446744073709551615UL"),
];

/// An object-like macro: its body, parsed as the expression statement of a
/// wrapper function so that it can be lowered where it is used.
struct Macro {
    text: String,
    tree: Option<Tree>,
    /// Parsed as `return <body>`: the body is an expression (see
    /// [`Macro::expression`]).
    returned: bool,
}

/// Prefix and suffix of the wrapper a macro body is parsed in.
const MACRO_PREFIX: &str = "void __eqlens_macro(void) {\n";
const MACRO_SUFFIX: &str = "\n;}\n";

impl Macro {
    fn new(body: &str, parser: &mut Option<Parser>) -> Macro {
        let text = format!("{MACRO_PREFIX}{body}{MACRO_SUFFIX}");
        let tree = parser.as_mut().and_then(|p| p.parse(&text, None));
        Macro {
            text,
            tree,
            returned: false,
        }
    }

    /// `body` parsed as an expression when it is one, else as statements.
    /// As a statement `a * b` would parse as a pointer declaration; after
    /// `return` it can only be an expression.
    fn expression(body: &str, parser: &mut Option<Parser>) -> Macro {
        let returned = Macro {
            returned: true,
            ..Macro::new(&format!("return {body}"), parser)
        };
        if returned.expr().is_some() {
            returned
        } else {
            Macro::new(body, parser)
        }
    }

    /// The body's statements (the wrapper's closing `;` included, an
    /// empty statement), when the body parses.
    fn statements(&self) -> Option<Vec<Node<'_>>> {
        let tree = self.tree.as_ref()?;
        let root = tree.root_node();
        if root.has_error() {
            return None;
        }
        let func = kids(root).into_iter().next()?;
        Some(kids(func.child_by_field_name("body")?))
    }

    /// The body's expression node, when the body is exactly one expression.
    fn expr(&self) -> Option<Node<'_>> {
        let tree = self.tree.as_ref()?;
        let root = tree.root_node();
        if root.has_error() {
            return None;
        }
        let func = kids(root).into_iter().next()?;
        let body = func.child_by_field_name("body")?;
        let stmts = kids(body);
        let wanted = if self.returned {
            "return_statement"
        } else {
            "expression_statement"
        };
        if stmts.len() != 1 || stmts[0].kind() != wanted {
            return None;
        }
        kids(stmts[0]).into_iter().find(|k| k.kind() != "return")
    }
}

/// The signature of a function defined in the file.
struct Sig {
    name: String,
    /// `Void` for a function returning a struct.
    ret: Res<Type>,
    /// The struct the function returns, and its return slots (see
    /// [`structs`]).
    ret_struct: Option<usize>,
    ret_slots: Vec<GlobalId>,
    params: Res<Vec<Param>>,
    span: Span,
}

struct Param {
    name: Option<String>,
    /// `Void` for a struct parameter.
    ty: Type,
    /// The struct of a struct parameter (passed by value, as its leaves).
    strukt: Option<usize>,
    span: Span,
}

/// An enum specifier's constants, in order, and its tag with the type gcc
/// gives it.
#[derive(Default)]
struct EnumDecl {
    consts: Vec<(String, i128)>,
    tag: Option<(String, Type)>,
}

/// What the whole file declares; shared by the lowering of every function.
struct FileCx<'t> {
    src: &'t str,
    /// Typedef name → type, or why the type is unsupported.
    typedefs: FxHashMap<String, Result<Type, String>>,
    enum_consts: FxHashMap<String, i128>,
    /// The constants of enums declared inside function bodies, in scope
    /// only where their declaration is (checked there): the value, or
    /// `None` where two such enums give one name different values.
    local_enum_consts: FxHashMap<String, Option<i128>>,
    /// The enumerators of the enum being read, for the later ones'
    /// values (`B = A + 2`).
    enum_scratch: FxHashMap<String, i128>,
    /// Enum tag → the integer type gcc gives it.
    enum_types: FxHashMap<String, Type>,
    macros: FxHashMap<String, Macro>,
    /// `(f(x)) * y` misparsed as a cast of `*y` to type `f(x)`: start byte
    /// of the cast → the parenthesised text reparsed as an expression.
    reparsed_casts: FxHashMap<usize, Macro>,
    fn_macros: fn_macro::FnMacros,
    /// Uses of function-like macros in the file: start byte of the call →
    /// its expansion, parsed on its own (or why it has none).
    macro_calls: FxHashMap<usize, Result<Macro, String>>,
    globals: Vec<Global>,
    global_map: FxHashMap<String, GlobalId>,
    /// Static local variables, as globals named `function.variable`: the
    /// start byte of their declaration → each declarator's name and
    /// global.
    static_locals: FxHashMap<usize, Vec<(String, GlobalId)>>,
    /// Globals left out because of their type → why.
    bad_globals: FxHashMap<String, String>,
    /// Globals declared `const` (not assignable).
    global_const: Vec<bool>,
    sigs: Vec<Sig>,
    fn_map: FxHashMap<String, FuncId>,
    /// Functions the file declares (a prototype) but does not define:
    /// calls outside the file.
    prototypes: FxHashMap<String, Sig>,
    structs: structs::Structs,
}

/// Where `break`/`continue` go from inside a loop or switch.
#[derive(Clone, Copy)]
enum Jump {
    Loop { brk: LabelId, cont: ContTarget },
    Switch { brk: LabelId },
}

/// `continue` is an IR `Continue`, or (do-while whose condition needs
/// statements) a `Break` out of the labeled body block.
#[derive(Clone, Copy)]
enum ContTarget {
    Continue(LabelId),
    Break(LabelId),
}

/// Lowering state of one function (or of a global initialiser).
struct Fx<'t> {
    file: &'t FileCx<'t>,
    /// Text the nodes being lowered index into (the file, or a macro body).
    src: &'t str,
    /// While lowering a macro body: the span of the use site.
    span_override: Option<Span>,
    /// Locals, scopes of names, temporaries and labels.
    fun: FnBuilder<structs::Binding>,
    /// Lengths of local arrays of constant size (for `sizeof`).
    array_len: FxHashMap<LocalId, u64>,
    jumps: Vec<Jump>,
    ret: Type,
    /// For a function returning a struct: the struct and its return slots.
    ret_struct: Option<(usize, Vec<GlobalId>)>,
    /// Macros being expanded (guards against recursive macros).
    expanding: Vec<String>,
    /// Nesting depth of expressions/statements being lowered (guards the
    /// stack against pathologically nested input).
    depth: u32,
}

/// Deeper nesting is reported as unsupported rather than risking the stack.
const MAX_DEPTH: u32 = 400;

/// Stack for lowering: expressions are lowered recursively (bounded by
/// [`MAX_DEPTH`]); a dedicated thread makes that bound independent of the
/// caller's stack (test threads have 2 MiB). Memory is reserved lazily.
const LOWER_STACK: usize = 256 << 20;

/// Lowers a parsed C translation unit.
pub(crate) fn lower(source: &str, tree: &Tree) -> Program {
    let worker = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("eqlens-c-lower".into())
            .stack_size(LOWER_STACK)
            .spawn_scoped(s, || lower_here(source, tree))
            .ok()
            .and_then(|h| h.join().ok())
    });
    // Spawning can fail (resource limits): lower on this thread then.
    worker.unwrap_or_else(|| lower_here(source, tree))
}

fn lower_here(source: &str, tree: &Tree) -> Program {
    // Macro bodies and misparsed casts are parsed on their own.
    let mut parser = parser();
    let root = tree.root_node();
    let mut file = FileCx {
        src: source,
        typedefs: FxHashMap::default(),
        enum_consts: FxHashMap::default(),
        local_enum_consts: FxHashMap::default(),
        enum_scratch: FxHashMap::default(),
        enum_types: FxHashMap::default(),
        macros: FxHashMap::default(),
        reparsed_casts: FxHashMap::default(),
        fn_macros: FxHashMap::default(),
        macro_calls: FxHashMap::default(),
        globals: Vec::new(),
        global_map: FxHashMap::default(),
        static_locals: FxHashMap::default(),
        bad_globals: FxHashMap::default(),
        global_const: Vec::new(),
        sigs: Vec::new(),
        fn_map: FxHashMap::default(),
        prototypes: FxHashMap::default(),
        structs: structs::Structs::default(),
    };
    // Macros first (anywhere in the file), then the builtin ones the source
    // mentions and does not define itself.
    collect_macros(root, &mut file, &mut parser);
    for (name, body) in BUILTIN_MACROS {
        if !file.macros.contains_key(*name) && source.contains(name) {
            file.macros
                .insert((*name).to_string(), Macro::new(body, &mut parser));
        }
    }

    // Top-level declarations, in order: typedefs, enums, globals, functions.
    let mut defs: Vec<Node> = Vec::new();
    let mut pending_inits: Vec<PendingGlobal> = Vec::new();
    for item in kids(root) {
        match item.kind() {
            "type_definition" => file.typedef(item),
            "declaration" => file.global_decl(item, &mut pending_inits),
            "function_definition" => {
                file.register_function(item);
                file.static_locals_of(item, &mut pending_inits);
                file.local_enums_of(item);
                defs.push(item);
            }
            "ERROR" => {
                // A function swallowed by a syntax error is still reported.
                let mut c = item.walk();
                for k in item.children(&mut c) {
                    if k.kind() == "function_definition" {
                        file.register_function(k);
                        defs.push(k);
                    }
                }
            }
            _ => {
                // `enum E {...};` / `struct S {...};` on its own.
                if item.kind() == "enum_specifier" {
                    file.note_type_decl(item);
                }
                file.note_struct(item);
            }
        }
    }

    // Return slots of the functions returning a struct.
    for i in 0..file.sigs.len() {
        let (name, ret_struct, span) = {
            let s = &file.sigs[i];
            (s.name.clone(), s.ret_struct, s.span)
        };
        if let Some(sid) = ret_struct {
            let slots = file.return_slots(&name, sid, span);
            file.sigs[i].ret_slots = slots;
        }
    }

    // Function-like macros expanded where they are used.
    let mut calls = FxHashMap::default();
    for n in descendants(root) {
        if n.kind() != "call_expression" {
            continue;
        }
        let (Some(f), Some(args)) = (
            n.child_by_field_name("function"),
            n.child_by_field_name("arguments"),
        ) else {
            continue;
        };
        let name = file.text(f);
        if f.kind() != "identifier" || !file.fn_macros.contains_key(name) {
            continue;
        }
        let expansion = fn_macro::arguments_of(file.text(args))
            .ok_or_else(|| format!("arguments of macro {name}"))
            .and_then(|a| {
                let a: Vec<&str> = a.iter().map(String::as_str).collect();
                fn_macro::expand_call(name, &a, &file.fn_macros)
            })
            .map(|text| Macro::expression(&text, &mut parser));
        calls.insert(n.start_byte(), expansion);
    }
    file.macro_calls = calls;

    // Casts that are really multiplications (needs the typedefs).
    let mut casts = FxHashMap::default();
    find_misparsed_casts(root, &file, &mut parser, &mut casts);
    file.reparsed_casts = casts;

    // Constant initialisers: the value of a `const` global, the initial
    // value of another.
    // An array's length is fixed by its declaration (its size, else its
    // initialiser's items), whatever its elements are.
    let mut constants = Vec::new();
    let mut lengths = Vec::new();
    for p in pending_inits {
        let mut fx = Fx::new(&file, Type::Void);
        let ty = file.globals[p.gid.0 as usize].ty.clone();
        let size = fx.global_array_size(p.decl);
        let value = p
            .init
            .and_then(|init| fx.global_init(init, p.decl, &ty).ok());
        let len = match value.as_ref().map(|e| &e.kind) {
            Some(ExprKind::ArrayLit(items)) => Some(items.len() as u64),
            _ => size,
        };
        lengths.push((p.gid, len, p.zero));
        if let Some(e) = value {
            constants.push((p.gid, e));
        }
    }
    for (gid, len, zero) in lengths {
        if let Some(g) = file.globals.get_mut(gid.0 as usize) {
            g.declared_len = len;
            if let (true, Some(n), Type::Array(_)) = (zero, len, &g.ty) {
                g.initial = Some(Expr {
                    kind: ExprKind::NewArray(Box::new(expr::int_lit(
                        i128::from(n),
                        IntTy::I32,
                        g.span,
                    ))),
                    ty: g.ty.clone(),
                    span: g.span,
                });
            }
        }
    }
    for (gid, e) in constants {
        let is_const = file.global_const.get(gid.0 as usize) == Some(&true);
        if let Some(g) = file.globals.get_mut(gid.0 as usize) {
            if is_const {
                g.constant = Some(e);
            } else {
                g.initial = Some(e);
            }
        }
    }
    // A `const` global keeps its initial value (writing it is undefined):
    // without a computed constant, that value is unknown, not an input.
    for (g, &is_const) in file.globals.iter_mut().zip(&file.global_const) {
        g.uncomputed = is_const && g.constant.is_none();
    }

    let functions: Vec<FunctionDef> = defs
        .iter()
        .enumerate()
        .map(|(i, node)| lower_function(&file, FuncId(i as u32), *node))
        .collect();
    keep_initial_values_of_unmentioned(&mut file.globals, root, source, &defs, &functions);
    Program {
        lang: Lang::C,
        functions,
        globals: file.globals,
        class_parents: Vec::new(),
        syntax_errors: Vec::new(),
        cache: Default::default(),
    }
}

/// A file-scope variable whose initial value or length needs expressions
/// lowered once every declaration is known.
struct PendingGlobal<'n> {
    gid: GlobalId,
    init: Option<Node<'n>>,
    /// The declarator (for an array's size).
    decl: Node<'n>,
    /// No initialiser, static storage: it starts at zero.
    zero: bool,
}

/// Drops the [`Global::initial`] value of every global whose name occurs
/// where the IR does not show what the code does: a function that was not
/// lowered, a declaration other than the global's own evaluated one (a
/// pointer initialised with its address), a macro's body. Lowered bodies
/// and the globals' evaluated declarations are left out of the search.
fn keep_initial_values_of_unmentioned(
    globals: &mut [Global],
    root: Node,
    source: &str,
    defs: &[Node],
    functions: &[FunctionDef],
) {
    if globals.iter().all(|g| g.initial.is_none()) {
        return;
    }
    let mut analysed: Vec<std::ops::Range<usize>> = defs
        .iter()
        .zip(functions)
        .filter(|(_, f)| f.body.is_ok())
        .map(|(n, _)| n.byte_range())
        .collect();
    // A declaration all of whose declarators are globals with a value.
    for item in kids(root).into_iter().filter(|i| i.kind() == "declaration") {
        let range = item.byte_range();
        let declared: Vec<&Global> = globals
            .iter()
            .filter(|g| {
                let at = g.span.start.byte as usize;
                range.start <= at && at < range.end
            })
            .collect();
        let mut c = item.walk();
        let declarators = item.children_by_field_name("declarator", &mut c).count();
        if declarators > 0
            && declared.len() == declarators
            && declared
                .iter()
                .all(|g| g.constant.is_some() || g.initial.is_some())
        {
            analysed.push(range);
        }
    }
    let mentioned = crate::lang::mentioned_outside(root, source, &analysed);
    for g in globals.iter_mut() {
        if mentioned.contains(&g.name) {
            g.initial = None;
        }
    }
}

/// Finds `(name(args)) * x`, which tree-sitter parses as a cast of `*x` to
/// a type `name(args)` when `name` is not a known type: C gives it only the
/// multiplication reading. Only `*` is reinterpreted: for `*` the cast's
/// precedence equals the multiplication's, for `-`, `+`, `&` it does not.
fn find_misparsed_casts(
    n: Node,
    file: &FileCx,
    parser: &mut Option<Parser>,
    out: &mut FxHashMap<usize, Macro>,
) {
    for n in descendants(n) {
        if n.kind() != "cast_expression" {
            continue;
        }
        let ty = n.child_by_field_name("type");
        let base = ty.and_then(|t| t.child_by_field_name("type"));
        let value = n.child_by_field_name("value");
        let is_deref = value.is_some_and(|v| {
            v.kind() == "pointer_expression"
                && v.child_by_field_name("operator")
                    .and_then(|o| o.utf8_text(file.src.as_bytes()).ok())
                    == Some("*")
        });
        let unknown_type = base.is_some_and(|b| {
            b.kind() == "type_identifier"
                && !file.typedefs.contains_key(file.text(b))
                && file.text(b) != "_Bool"
        });
        if let (true, true, Some(t)) = (is_deref, unknown_type, ty) {
            out.insert(n.start_byte(), Macro::new(file.text(t), parser));
        }
    }
}

/// Collects every `#define` and function-like macro of the file.
fn collect_macros(root: Node, file: &mut FileCx, parser: &mut Option<Parser>) {
    for n in descendants(root) {
        let Some(name) = n.child_by_field_name("name") else {
            continue;
        };
        let name = name
            .utf8_text(file.src.as_bytes())
            .unwrap_or("")
            .to_string();
        match n.kind() {
            "preproc_def" => {
                let body = n
                    .child_by_field_name("value")
                    .and_then(|v| v.utf8_text(file.src.as_bytes()).ok())
                    .unwrap_or("")
                    .trim()
                    .to_string();
                file.macros
                    .entry(name)
                    .or_insert_with(|| Macro::new(&body, parser));
            }
            "preproc_function_def" => {
                let text = |field: &str| {
                    n.child_by_field_name(field)
                        .and_then(|v| v.utf8_text(file.src.as_bytes()).ok())
                        .unwrap_or("")
                };
                // `(a, b)`: the parameter names between the parentheses.
                let params = text("parameters");
                let inner = params.trim().trim_start_matches('(').trim_end_matches(')');
                let params: Vec<&str> = if inner.trim().is_empty() {
                    Vec::new()
                } else {
                    inner.split(',').collect()
                };
                let def = fn_macro::FnMacro::new(&name, &params, text("value"));
                file.fn_macros.entry(name).or_insert(def);
            }
            _ => {}
        }
    }
}

impl<'t> FileCx<'t> {
    fn text(&self, n: Node) -> &'t str {
        n.utf8_text(self.src.as_bytes()).unwrap_or("")
    }

    fn typedef(&mut self, n: Node) {
        let Some(tnode) = n.child_by_field_name("type") else {
            return;
        };
        self.note_type_decl(tnode);
        self.note_struct(tnode);
        let strukt = match self.shape_of(tnode, self.src) {
            Ok(structs::Shape::Struct(sid)) => Some(sid),
            _ => None,
        };
        let base = self.base_type(tnode, self.src);
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        for d in decls {
            if let (Some(sid), "type_identifier") = (strukt, d.kind()) {
                let name = self.text(d).to_string();
                self.structs.typedefs.insert(name.clone(), sid);
                self.typedefs.insert(name, Err("struct type".into()));
                continue;
            }
            let result = match d.kind() {
                "type_identifier" | "primitive_type" => base.clone().map_err(|e| e.what),
                "pointer_declarator" => Err("pointer type".to_string()),
                "array_declarator" => Err("array typedef".to_string()),
                "function_declarator" => Err("function type".to_string()),
                _ => Err("typedef".to_string()),
            };
            let name = declarator_name(d).map(|id| self.text(id).to_string());
            if let Some(name) = name {
                self.typedefs.insert(name, result);
            }
        }
    }

    /// Registers the constants and type of an `enum` specifier with a body.
    fn note_type_decl(&mut self, t: Node) {
        if t.kind() != "enum_specifier" {
            return;
        }
        let EnumDecl { consts, tag } = self.enumerators(t);
        for (name, v) in consts {
            self.enum_consts.insert(name, v);
        }
        if let Some((tag, ty)) = tag {
            self.enum_types.insert(tag, ty);
        }
    }

    /// The constants of `enum` specifier `t` with a body, in order (an
    /// enumerator whose value is not a constant this evaluates is left
    /// out, and its uses stay unsupported), and its tag with the type gcc
    /// gives it.
    fn enumerators(&mut self, t: Node) -> EnumDecl {
        let Some(body) = t.child_by_field_name("body") else {
            return EnumDecl::default();
        };
        let mut out: Vec<(String, i128)> = Vec::new();
        let mut next: i128 = 0;
        let mut any_negative = false;
        for e in kids(body) {
            if e.kind() != "enumerator" {
                continue;
            }
            let Some(name) = e.child_by_field_name("name") else {
                continue;
            };
            if let Some(v) = e.child_by_field_name("value") {
                match self.const_eval(v) {
                    Some(x) => next = x,
                    None => continue,
                }
            }
            any_negative |= next < 0;
            let name = self.text(name).to_string();
            self.enum_scratch.insert(name.clone(), next);
            out.push((name, next));
            next += 1;
        }
        self.enum_scratch.clear();
        // gcc: `unsigned int` unless some enumerator is negative.
        let ty = if any_negative {
            Type::INT
        } else {
            Type::Int(IntTy::U32)
        };
        let tag = t
            .child_by_field_name("name")
            .map(|tag| (self.text(tag).to_string(), ty));
        EnumDecl { consts: out, tag }
    }

    /// The enums declared inside function definition `f`: their constants
    /// go to [`FileCx::local_enum_consts`] (a name two of them give
    /// different values is kept as conflicting).
    fn local_enums_of(&mut self, f: Node) {
        let Some(body) = f.child_by_field_name("body") else {
            return;
        };
        for t in descendants(body) {
            if t.kind() != "enum_specifier" {
                continue;
            }
            let EnumDecl { consts, tag } = self.enumerators(t);
            // A tag of the file's own keeps its type.
            if let Some((tag, ty)) = tag {
                self.enum_types.entry(tag).or_insert(ty);
            }
            for (name, v) in consts {
                self.local_enum_consts
                    .entry(name)
                    .and_modify(|old| {
                        if *old != Some(v) {
                            *old = None;
                        }
                    })
                    .or_insert(Some(v));
            }
        }
    }

    /// Integer constant expressions in enum bodies, evaluated on the tree
    /// (before any function context exists).
    fn const_eval(&self, n: Node) -> Option<i128> {
        match n.kind() {
            "number_literal" => types::int_literal(self.text(n)).ok().map(|(v, _)| v),
            "char_literal" => types::char_literal(self.text(n)).ok(),
            "parenthesized_expression" => self.const_eval(*kids(n).first()?),
            "identifier" => {
                let name = self.text(n);
                self.enum_scratch
                    .get(name)
                    .or_else(|| self.enum_consts.get(name))
                    .copied()
            }
            "unary_expression" => {
                let v = self.const_eval(n.child_by_field_name("argument")?)?;
                match self.text(n.child_by_field_name("operator")?) {
                    "-" => v.checked_neg(),
                    "+" => Some(v),
                    "~" => Some(!v),
                    "!" => Some((v == 0) as i128),
                    _ => None,
                }
            }
            "binary_expression" => {
                let a = self.const_eval(n.child_by_field_name("left")?)?;
                let b = self.const_eval(n.child_by_field_name("right")?)?;
                match self.text(n.child_by_field_name("operator")?) {
                    "+" => a.checked_add(b),
                    "-" => a.checked_sub(b),
                    "*" => a.checked_mul(b),
                    "/" => a.checked_div(b),
                    "%" => a.checked_rem(b),
                    "<<" => u32::try_from(b)
                        .ok()
                        .filter(|b| *b < 64)
                        .and_then(|b| a.checked_mul(1i128 << b)),
                    ">>" => u32::try_from(b).ok().filter(|b| *b < 64).map(|b| a >> b),
                    "&" => Some(a & b),
                    "|" => Some(a | b),
                    "^" => Some(a ^ b),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The static local variables of function definition `f`, registered
    /// as globals named `f.name`: a static local is a global that only its
    /// function names — initialised once, before any call, by a constant
    /// initialiser (or zero), and keeping its value from one call to the
    /// next. Two of the same name in one function are left out (their
    /// uses stay unsupported).
    fn static_locals_of<'n>(&mut self, f: Node<'n>, pending: &mut Vec<PendingGlobal<'n>>) {
        let Some(fname) = self.sigs.last().map(|s| s.name.clone()) else {
            return;
        };
        let Some(body) = f.child_by_field_name("body") else {
            return;
        };
        let mut decls: Vec<Node<'n>> = descendants(body)
            .into_iter()
            .filter(|d| {
                d.kind() == "declaration"
                    && storage_class(*d, self.src).as_deref() == Some("static")
            })
            .collect();
        decls.sort_by_key(Node::start_byte);
        for d in decls {
            let before = self.globals.len();
            self.global_decl_named(d, pending, Some(&fname));
            let names: Vec<(String, GlobalId)> = (before..self.globals.len())
                .filter_map(|i| {
                    let g = &self.globals[i];
                    let local = g.name.strip_prefix(&format!("{fname}."))?.to_string();
                    let gid = GlobalId(i as u32);
                    (self.global_map.get(&g.name) == Some(&gid)).then_some((local, gid))
                })
                .collect();
            if !names.is_empty() {
                self.static_locals.insert(d.start_byte(), names);
            }
        }
    }

    /// A file-scope declaration: prototypes are skipped (they are not
    /// functions), variables become globals.
    fn global_decl<'n>(&mut self, n: Node<'n>, pending: &mut Vec<PendingGlobal<'n>>) {
        self.global_decl_named(n, pending, None);
    }

    /// [`FileCx::global_decl`], with the globals' names qualified by
    /// `function` for a static local declaration.
    fn global_decl_named<'n>(
        &mut self,
        n: Node<'n>,
        pending: &mut Vec<PendingGlobal<'n>>,
        function: Option<&str>,
    ) {
        let Some(tnode) = n.child_by_field_name("type") else {
            return;
        };
        self.note_type_decl(tnode);
        self.note_struct(tnode);
        let is_const = has_qualifier(n, self.src, "const");
        let strukt = match self.shape_of(tnode, self.src) {
            Ok(structs::Shape::Struct(sid)) => Some(sid),
            _ => None,
        };
        let base = self.base_type(tnode, self.src);
        let mut c = n.walk();
        let decls: Vec<Node> = n.children_by_field_name("declarator", &mut c).collect();
        let decls_len = decls.len();
        for d in decls {
            let (decl, init) = if d.kind() == "init_declarator" {
                (
                    d.child_by_field_name("declarator"),
                    d.child_by_field_name("value"),
                )
            } else {
                (Some(d), None)
            };
            let Some(decl) = decl else { continue };
            if contains_function_declarator(decl) {
                if decls_len == 1 {
                    let sig = self.signature(n);
                    if !sig.name.is_empty() {
                        self.prototypes.entry(sig.name.clone()).or_insert(sig);
                    }
                }
                continue;
            }
            let Some(name_node) = declarator_name(decl) else {
                continue;
            };
            let name = match function {
                Some(f) => format!("{f}.{}", self.text(name_node)),
                None => self.text(name_node).to_string(),
            };
            if function.is_some() && self.global_map.contains_key(&name) {
                continue;
            }
            if let Some(sid) = strukt {
                match (decl.kind(), init, is_const) {
                    ("identifier", None, false) => self.struct_global(&name, sid, span_of(d)),
                    ("identifier", _, _) => {
                        self.bad_globals
                            .entry(name)
                            .or_insert_with(|| "initialised or const struct".into());
                    }
                    _ => {
                        self.bad_globals
                            .entry(name)
                            .or_insert_with(|| "array of structs or pointer to struct".into());
                    }
                }
                continue;
            }
            // Globals of unsupported types are left out: a function that
            // uses one fails at the use, naming the global.
            let ty = match base.clone() {
                Ok(b) => global_type(b, decl)
                    .ok_or_else(|| "pointer or multi-dimensional array".to_string()),
                Err(e) => Err(e.what),
            };
            let ty = match ty {
                Ok(t) => t,
                Err(why) => {
                    self.bad_globals.entry(name).or_insert(why);
                    continue;
                }
            };
            let gid = GlobalId(self.globals.len() as u32);
            // Static storage without an initialiser starts at zero (an
            // `extern` one is defined, and initialised, elsewhere): as a
            // scalar, set up by the same code as one initialised to `0`.
            let zero = init.is_none()
                && !is_const
                && storage_class(n, self.src).as_deref() != Some("extern");
            let origin = match init {
                Some(i) => Some(crate::lang::origin_tokens(&[i], self.src, &name)),
                None if zero && !matches!(ty, Type::Array(_)) => Some("0".to_string()),
                None => None,
            };
            self.globals.push(Global {
                name: name.clone(),
                ty,
                constant: None,
                return_of: None,
                static_object: None,
                uncomputed: false,
                origin,
                initial: None,
                declared_len: None,
                file_local: storage_class(n, self.src).as_deref() == Some("static"),
                span: span_of(d),
            });
            self.global_const.push(is_const);
            self.global_map.entry(name).or_insert(gid);
            let g = &mut self.globals[gid.0 as usize];
            if zero {
                g.initial = expr::zero(&g.ty, g.span);
            }
            if init.is_some() || matches!(g.ty, Type::Array(_)) {
                pending.push(PendingGlobal {
                    gid,
                    init,
                    decl,
                    zero,
                });
            }
        }
    }

    fn register_function(&mut self, n: Node) {
        let sig = self.signature(n);
        let id = FuncId(self.sigs.len() as u32);
        self.fn_map.entry(sig.name.clone()).or_insert(id);
        self.sigs.push(sig);
    }

    fn signature(&self, n: Node) -> Sig {
        let span = span_of(n);
        let fdecl = n
            .child_by_field_name("declarator")
            .and_then(find_function_declarator);
        let name = fdecl
            .and_then(|f| f.child_by_field_name("declarator"))
            .and_then(declarator_name)
            .map(|i| self.text(i).to_string())
            .unwrap_or_default();
        let mut ret_struct = None;
        let ret = match n.child_by_field_name("type") {
            Some(t) => match self.shape_of(t, self.src) {
                Ok(structs::Shape::Struct(sid)) => match self.structs.leaves(sid) {
                    Ok(_) => {
                        ret_struct = Some(sid);
                        Ok(Type::Void)
                    }
                    Err(why) => Err(unsupported(span_of(t), why)),
                },
                Ok(structs::Shape::Scalar(t)) => Ok(t),
                Err(e) => Err(e),
            },
            None => Err(unsupported(span, "function without a return type")),
        };
        // `int *f(...)`: the function declarator is wrapped in a pointer one.
        let ret = match n.child_by_field_name("declarator") {
            Some(d) if d.kind() != "function_declarator" => {
                Err(unsupported(span_of(d), "pointer return type"))
            }
            _ => ret,
        };
        let params = match fdecl.and_then(|f| f.child_by_field_name("parameters")) {
            Some(p) => self.params(p),
            None => Err(unsupported(span, "function declarator")),
        };
        Sig {
            name,
            ret,
            ret_struct,
            ret_slots: Vec::new(),
            params,
            span,
        }
    }

    fn params(&self, list: Node) -> Res<Vec<Param>> {
        let mut out = Vec::new();
        let ps = kids(list);
        for p in &ps {
            match p.kind() {
                "parameter_declaration" => {}
                "variadic_parameter" => return Err(unsupported(span_of(*p), "variadic function")),
                _ => return Err(unsupported(span_of(*p), "old-style parameter declaration")),
            }
            let tnode = p
                .child_by_field_name("type")
                .ok_or_else(|| unsupported(span_of(*p), "parameter"))?;
            let decl = p.child_by_field_name("declarator");
            if let structs::Shape::Struct(sid) = self.shape_of(tnode, self.src)? {
                let name = match decl {
                    None => None,
                    Some(d) if d.kind() == "identifier" => Some(self.text(d).to_string()),
                    Some(d) => return Err(unsupported(span_of(d), "pointer to struct")),
                };
                self.structs
                    .leaves(sid)
                    .map_err(|why| unsupported(span_of(*p), why))?;
                out.push(Param {
                    name,
                    ty: Type::Void,
                    strukt: Some(sid),
                    span: span_of(*p),
                });
                continue;
            }
            let base = self.base_type(tnode, self.src)?;
            if base == Type::Void && decl.is_none() {
                if ps.len() == 1 {
                    return Ok(out);
                }
                return Err(unsupported(span_of(*p), "void parameter"));
            }
            let (name, ty) = match decl {
                None => (None, base),
                Some(d) => param_type(base, d, self.src)?,
            };
            if ty == Type::Void {
                return Err(unsupported(span_of(*p), "void parameter"));
            }
            out.push(Param {
                name,
                ty,
                strukt: None,
                span: span_of(*p),
            });
        }
        Ok(out)
    }
}

/// Type of a global from its declarator: scalars and arrays of scalars.
fn global_type(base: Type, decl: Node) -> Option<Type> {
    match decl.kind() {
        "identifier" => Some(base),
        "array_declarator" => {
            let inner = decl.child_by_field_name("declarator")?;
            if inner.kind() == "identifier" {
                Some(Type::Array(Box::new(base)))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Type of a parameter: pointers and arrays (at any depth) become arrays,
/// which the body may only index.
fn param_type(base: Type, d: Node, src: &str) -> Res<(Option<String>, Type)> {
    match d.kind() {
        "identifier" => Ok((
            Some(d.utf8_text(src.as_bytes()).unwrap_or("").to_string()),
            base,
        )),
        "array_declarator"
        | "pointer_declarator"
        | "abstract_array_declarator"
        | "abstract_pointer_declarator" => {
            if base == Type::Void {
                return Err(unsupported(span_of(d), "void pointer"));
            }
            let ty = Type::Array(Box::new(base));
            match d.child_by_field_name("declarator") {
                Some(inner) => param_type(ty, inner, src),
                None => Ok((None, ty)),
            }
        }
        "parenthesized_declarator" | "abstract_parenthesized_declarator" => match kids(d).first() {
            Some(inner) => param_type(base, *inner, src),
            None => Err(unsupported(span_of(d), "parameter declarator")),
        },
        "function_declarator" | "abstract_function_declarator" => {
            Err(unsupported(span_of(d), "function pointer parameter"))
        }
        _ => Err(unsupported(span_of(d), "parameter declarator")),
    }
}

fn has_qualifier(n: Node, src: &str, q: &str) -> bool {
    all_children(n).iter().any(|k| {
        k.kind() == "type_qualifier" && k.utf8_text(src.as_bytes()).map(|t| t == q).unwrap_or(false)
    })
}

fn storage_class(n: Node, src: &str) -> Option<String> {
    all_children(n)
        .iter()
        .find(|k| k.kind() == "storage_class_specifier")
        .map(|k| k.utf8_text(src.as_bytes()).unwrap_or("").to_string())
}

/// All children, anonymous ones included.
fn all_children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.children(&mut c).collect()
}

/// The identifier a declarator declares.
fn declarator_name(d: Node) -> Option<Node> {
    match d.kind() {
        "identifier" | "type_identifier" | "field_identifier" | "primitive_type" => Some(d),
        "parenthesized_declarator" | "attributed_declarator" => {
            kids(d).into_iter().find_map(declarator_name)
        }
        _ => d
            .child_by_field_name("declarator")
            .and_then(declarator_name),
    }
}

fn find_function_declarator(d: Node) -> Option<Node> {
    match d.kind() {
        "function_declarator" => Some(d),
        "parenthesized_declarator" | "attributed_declarator" => {
            kids(d).into_iter().find_map(find_function_declarator)
        }
        _ => d
            .child_by_field_name("declarator")
            .and_then(find_function_declarator),
    }
}

fn contains_function_declarator(d: Node) -> bool {
    find_function_declarator(d).is_some()
}

fn lower_function(file: &FileCx, id: FuncId, n: Node) -> FunctionDef {
    let span = span_of(n);
    let sig = &file.sigs[id.0 as usize];
    let name_span = n
        .child_by_field_name("declarator")
        .and_then(find_function_declarator)
        .and_then(|f| f.child_by_field_name("declarator"))
        .and_then(declarator_name)
        .map(span_of)
        .unwrap_or(span);
    let arity = sig.params.as_ref().map(|p| p.len()).unwrap_or_else(|_| {
        // Count the parameter declarations even when their types fail.
        n.child_by_field_name("declarator")
            .and_then(find_function_declarator)
            .and_then(|f| f.child_by_field_name("parameters"))
            .map(|p| kids(p).len())
            .unwrap_or(0)
    });
    let body = match first_syntax_error(n) {
        Some(e) => Err(e),
        None => Fx::new(file, Type::Void).function(sig, n, span, name_span),
    };
    FunctionDef {
        name: sig.name.clone(),
        arity,
        span,
        name_span,
        body,
        synthetic: false,
        param_types: Vec::new(),
        owner: Vec::new(),
    }
}

impl<'t> Fx<'t> {
    fn new(file: &'t FileCx<'t>, ret: Type) -> Fx<'t> {
        Fx {
            file,
            src: file.src,
            span_override: None,
            fun: FnBuilder::new(&C),
            array_len: FxHashMap::default(),
            jumps: Vec::new(),
            ret,
            ret_struct: None,
            expanding: Vec::new(),
            depth: 0,
        }
    }

    fn function(mut self, sig: &Sig, n: Node<'t>, span: Span, name_span: Span) -> Res<Function> {
        let ret = sig.ret.clone()?;
        let params = match &sig.params {
            Ok(p) => p,
            Err(e) => return Err(e.clone()),
        };
        self.ret = ret.clone();
        self.ret_struct = sig.ret_struct.map(|sid| (sid, sig.ret_slots.clone()));
        let mut ids = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let name = p.name.clone().unwrap_or_else(|| format!("arg{i}"));
            match p.strukt {
                Some(sid) => {
                    ids.extend(self.declare_struct(&name, sid, LocalKind::Param, p.span)?)
                }
                None => ids.push(
                    self.fun
                        .declare(&name, p.ty.clone(), LocalKind::Param, p.span),
                ),
            }
        }
        let body_node = n
            .child_by_field_name("body")
            .ok_or_else(|| unsupported(span, "function without a body"))?;
        let mut body = Vec::new();
        let array_params: Vec<&str> = ids
            .iter()
            .filter_map(|id| self.fun.locals.get(id.0 as usize))
            .filter(|l| matches!(l.ty, Type::Array(_)))
            .map(|l| l.name.as_str())
            .collect();
        let moved = pointers::moved_params(self.src, body_node, &array_params);
        for id in ids.clone() {
            let name = self.fun.locals[id.0 as usize].name.clone();
            if moved.contains(&name) {
                self.make_cursor(&name, id, &mut body);
            }
        }
        // The body shares the parameters' scope, as in C.
        for s in kids(body_node) {
            self.stmt(s, &mut body)?;
        }
        Ok(Function {
            name: sig.name.clone(),
            params: ids,
            locals: self.fun.locals,
            ret,
            body,
            span,
            name_span,
        })
    }

    fn text(&self, n: Node) -> &'t str {
        n.utf8_text(self.src.as_bytes()).unwrap_or("")
    }

    fn sp(&self, n: Node) -> Span {
        self.span_override.unwrap_or_else(|| span_of(n))
    }

    fn unsup(&self, n: Node, what: impl Into<String>) -> LowerError {
        unsupported(self.sp(n), what)
    }

    fn field(&self, n: Node<'t>, name: &str) -> Res<Node<'t>> {
        n.child_by_field_name(name).ok_or_else(|| LowerError {
            kind: LowerErrorKind::SyntaxError,
            what: format!("missing {name}"),
            span: self.sp(n),
        })
    }

    /// The constant size of an array declarator (`t[8]`, `t[N]`); `None`
    /// without one or when it is not a non-negative constant.
    fn global_array_size(&mut self, decl: Node<'t>) -> Option<u64> {
        let size = decl.child_by_field_name("size")?;
        let mut out = Vec::new();
        let e = self.expr(size, &mut out).ok()?;
        u64::try_from(expr::const_int(&e)?).ok()
    }

    /// Lowers the initialiser of a `const` global; it must be constant.
    fn global_init(&mut self, init: Node<'t>, decl: Node<'t>, ty: &Type) -> Res<Expr> {
        let mut out = Vec::new();
        let e = match ty {
            Type::Array(elem) => {
                let len = match decl.child_by_field_name("size") {
                    Some(s) => {
                        let e = self.expr(s, &mut out)?;
                        Some(
                            expr::const_int(&e)
                                .ok_or_else(|| self.unsup(s, "non-constant array size"))?,
                        )
                    }
                    None => None,
                };
                self.array_init(init, elem, len, &mut out)?
            }
            _ => {
                let e = self.expr(init, &mut out)?;
                self.convert(e, ty, self.sp(init))?
            }
        };
        if !out.is_empty() || !self.fun.locals.is_empty() || self.reads_variable_global(&e) {
            return Err(self.unsup(init, "non-constant initialiser"));
        }
        Ok(e)
    }

    /// Whether `e` reads a global that is not `const` (an input).
    fn reads_variable_global(&self, e: &Expr) -> bool {
        use ExprKind as K;
        match &e.kind {
            K::Global(g) => !self
                .file
                .global_const
                .get(g.0 as usize)
                .copied()
                .unwrap_or(false),
            K::IntLit(_) | K::FloatLit(_) | K::BoolLit(_) | K::StrLit(_) | K::Local(_) => false,
            K::Unary(_, a) | K::Cast(a) | K::Length(a) | K::IsNull(a) | K::NewArray(a) => {
                self.reads_variable_global(a)
            }
            K::Binary(_, a, b) | K::Index(a, b) => {
                self.reads_variable_global(a) || self.reads_variable_global(b)
            }
            K::Cond(a, b, c) => [a, b, c].iter().any(|x| self.reads_variable_global(x)),
            K::ArrayLit(xs) | K::Intrinsic(_, xs) => {
                xs.iter().any(|x| self.reads_variable_global(x))
            }
        }
    }
}
