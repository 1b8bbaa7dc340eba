//! The Java front end: a tree-sitter-java parse tree lowered to the IR.
//!
//! Every method of every class in the file (nested classes included) becomes
//! one [`FunctionDef`]; constructors too, lowered only for value classes
//! (see [`objects`]), whose instance methods also get synthetic object-mode
//! copies. Fields become
//! [`Program::globals`] (inputs at method entry, except `final` fields with a
//! constant initialiser, which are values). A method that uses anything
//! outside the supported subset gets a [`LowerError`] naming the first such
//! construct; a method whose text has a syntax error gets a
//! [`LowerErrorKind::SyntaxError`] and the other methods are unaffected.
//!
//! The lowering keeps the IR invariants of [`crate::ir`]: side effects
//! (assignments, `++`/`--`, calls) are lifted into statements in Java's
//! left-to-right order (see [`FnCx::seq_with`]), every conversion is an
//! explicit [`ExprKind::Cast`] following Java's binary numeric promotion, and
//! conditions are `Bool`.
//!
//! Decisions worth knowing:
//! - A global is named after its field; a second field of the same name in
//!   another class is named `Class.field`. `this.x`, `C.x` and an unshadowed
//!   `x` all denote it.
//! - `final` fields (static or not) whose initialiser is a constant
//!   expression get [`Global::constant`]; references to other constants are
//!   inlined into it. Other initialisers are ignored.
//! - Calls resolve by name and arity in the named class, else the current
//!   class and its enclosing classes, else anywhere in the file; among
//!   overloads the most specific one applicable by widening wins, as in
//!   Java (JLS 15.12.2.5), whatever the declaration order; only when none
//!   applies, a variable-arity method (`T... xs`, an array parameter `T[]`)
//!   takes the trailing arguments packed into a fresh array (see
//!   [`overloads`]); a call with no such overload (it would need boxing, or
//!   is ambiguous) is refused.
//! - An operand is spilled to a temporary only when a later operand lifts
//!   statements that could change it (a write to a variable it reads; any
//!   call for globals and array elements) or when it could fault (division,
//!   array access), so that faults happen in Java's order.
//!
//! Layout: this file collects classes, fields and method signatures and holds
//! the type and literal helpers; `expr.rs` lowers expressions, `stmt.rs`
//! statements, `overloads.rs` chooses the method a call names.

mod expr;
pub(crate) mod facts;
mod jdk;
mod objects;
mod overloads;
mod statics;
mod stmt;
#[cfg(test)]
mod tests;

use crate::ir::{
    Expr, ExprKind, FloatLit, FloatTy, Function, FunctionDef, Global, GlobalId, IntTy, LabelId,
    Lang, LocalId, LocalKind, LowerError, LowerErrorKind, Pos, Program, Span, Stmt, StmtKind, Type,
};
use crate::lang::lower::{FnBuilder, Keep, Style};
use tree_sitter::{Node, Tree};

/// How Java is lowered where the front ends differ: temporaries are `$tN`,
/// and an earlier operand is spilled only when a later one's statements
/// could change it or it could fault, so faults happen in Java's order.
static JAVA: Style = Style {
    temp_prefix: "$t",
    keep: Keep::Affected,
};

type R<T> = Result<T, LowerError>;

/// Deepest expression/statement nesting lowered before giving up: the
/// lowering is recursive and must not overflow the stack on adversarial
/// input (long `else if` chains count one level per `if`).
const MAX_DEPTH: u32 = 1000;

/// Stack for the lowering thread: enough for [`MAX_DEPTH`] levels even in an
/// unoptimised build, whose frames are large. Only touched pages are
/// committed.
const STACK_SIZE: usize = 64 << 20;

/// Lowers a parsed Java compilation unit. Never panics.
///
/// The recursive lowering runs on its own thread with a large stack so that
/// deeply nested code cannot overflow the caller's (possibly small) stack.
pub(crate) fn lower(source: &str, tree: &Tree) -> Program {
    let joined = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("java-lower".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(s, || lower_here(source, tree))
            .map(|h| h.join())
    });
    match joined {
        Ok(Ok(p)) => p,
        // The thread could not be started: lower on this one.
        Err(_) => lower_here(source, tree),
        // Lowering panicked: a bug, but a file must still yield a program.
        Ok(Err(_)) => Program {
            lang: Lang::Java,
            functions: Vec::new(),
            globals: Vec::new(),
            class_parents: Vec::new(),
            syntax_errors: Vec::new(),
            cache: Default::default(),
        },
    }
}

fn lower_here(source: &str, tree: &Tree) -> Program {
    let mut program = Program {
        lang: Lang::Java,
        functions: Vec::new(),
        globals: Vec::new(),
        class_parents: Vec::new(),
        syntax_errors: Vec::new(),
        cache: Default::default(),
    };
    let mut cx = Ctx {
        src: source,
        classes: Vec::new(),
        fields: Vec::new(),
        methods: Vec::new(),
        globals: Vec::new(),
        imports: Vec::new(),
        values: Vec::new(),
        static_blocks: Vec::new(),
    };
    let root = tree.root_node();
    let mut walk = root.walk();
    for c in root.named_children(&mut walk) {
        if c.kind() == "import_declaration" {
            let text = cx.text(c);
            let path: String = text
                .trim()
                .trim_start_matches("import")
                .trim_end_matches(';')
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let path = path.replace(" .", ".").replace(". ", ".");
            cx.imports.push(path);
        }
    }
    cx.collect(root, None, 0);
    cx.compute_constants();
    cx.field_origins();
    cx.find_value_classes();
    for (i, m) in cx.methods.iter().enumerate() {
        let body = lower_method(&cx, i);
        program.functions.push(FunctionDef {
            name: m.name.clone(),
            arity: m.arity,
            span: span(m.node),
            name_span: m.name_span,
            body,
            synthetic: m.object_mode,
            param_types: cx.param_types(m.node),
            owner: cx.class_path(m.class),
        });
    }
    cx.keep_initial_values_of_unmentioned(root, &program.functions);
    program.globals = cx.globals;
    program.class_parents = cx
        .classes
        .iter()
        .filter_map(|c| Some((c.name.clone(), c.superclass.clone()?)))
        .collect();
    program
}

/// A class (or enum/interface/record) declared in the file.
struct ClassInfo {
    name: String,
    outer: Option<usize>,
    /// The simple name of the class it `extends`, if any.
    superclass: Option<String>,
    /// Whether its body has an instance initialiser block.
    has_initializer: bool,
}

/// A field declarator. Fields of unsupported types have no global; using
/// one is reported then.
struct FieldInfo<'t> {
    class: Option<usize>,
    name: String,
    ty: Result<Type, TyErr>,
    global: Option<GlobalId>,
    is_final: bool,
    is_static: bool,
    init: Option<Node<'t>>,
    /// The declared type, when the declarator adds no array dimensions
    /// (`C f;`, not `C f[];`): how a static field of a value class is found.
    type_node: Option<Node<'t>>,
    /// A non-final static field holding an object of a value class: the
    /// class and one global per field of the object (see [`objects`]).
    object: Option<(usize, Vec<GlobalId>)>,
    span: Span,
}

/// A method with its signature, resolved before any body is lowered so that
/// calls can be typed. Index `i` in [`Ctx::methods`] is `FuncId(i)`.
struct MethodInfo<'t> {
    class: Option<usize>,
    name: String,
    name_span: Span,
    arity: usize,
    /// Whether the last parameter is variable-arity (`T... xs`, JLS
    /// 8.4.1): its entry in `params` has the array type `T[]`, and a call
    /// may pass its trailing arguments packed into a fresh array (see
    /// `FnCx::program_call`).
    varargs: bool,
    /// Whether each parameter is a `String` (its type is [`text_type`]).
    text_params: Vec<bool>,
    node: Node<'t>,
    params: R<Vec<(String, Type, Span)>>,
    ret: R<Type>,
    is_static: bool,
    is_ctor: bool,
    /// The value class of each parameter that is an object (its `Type` is
    /// then `Void`); see [`objects`].
    param_classes: Vec<Option<usize>>,
    /// The value class of the object the method returns (its `ret` is then
    /// `Void`), and the return slots it writes.
    ret_class: Option<usize>,
    ret_slots: Vec<GlobalId>,
    /// A synthetic copy of an instance method of a value class whose
    /// first parameters are its object's fields.
    object_mode: bool,
    /// For an instance method of a value class: its object-mode copy.
    variant: Option<usize>,
    /// An instance method of a value class that assigns its object's
    /// fields: calls of it are refused (objects are values, see
    /// [`objects`]).
    mutates: bool,
}

/// File-level facts shared by all method lowerings.
struct Ctx<'t> {
    src: &'t str,
    classes: Vec<ClassInfo>,
    fields: Vec<FieldInfo<'t>>,
    methods: Vec<MethodInfo<'t>>,
    globals: Vec<Global>,
    /// The file's imports, as written without `import`/`;`: `java.util.Objects`,
    /// `static com.google.common.base.Preconditions.checkArgument`,
    /// `static java.lang.Math.*`.
    imports: Vec<String>,
    /// Per class: the fields of its objects, if it is a value class (see
    /// [`objects`]), as indices into `fields`.
    values: Vec<Option<Vec<usize>>>,
    /// The static initialiser blocks, with their classes, in textual order.
    static_blocks: Vec<(Option<usize>, Node<'t>)>,
}

impl<'t> Ctx<'t> {
    fn text(&self, n: Node) -> &'t str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    /// Walks the tree collecting classes, fields and methods. Descends into
    /// ERROR nodes too, so a syntax error elsewhere does not hide a method.
    fn collect(&mut self, n: Node<'t>, class: Option<usize>, depth: u32) {
        if depth > 2 * MAX_DEPTH {
            return;
        }
        match n.kind() {
            "class_declaration"
            | "enum_declaration"
            | "interface_declaration"
            | "record_declaration" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|c| self.text(c).to_string())
                    .unwrap_or_default();
                let superclass = n.child_by_field_name("superclass").and_then(|s| {
                    let t = named_children(s).into_iter().next()?;
                    let text = self.text(t);
                    let simple = text.rsplit('.').next().unwrap_or(text).trim();
                    (!simple.is_empty() && !simple.contains('<')).then(|| simple.to_string())
                });
                let has_initializer = n
                    .child_by_field_name("body")
                    .is_some_and(|b| named_children(b).iter().any(|k| k.kind() == "block"));
                self.classes.push(ClassInfo {
                    name,
                    outer: class,
                    superclass,
                    has_initializer,
                });
                let idx = self.classes.len() - 1;
                for c in named_children(n) {
                    self.collect(c, Some(idx), depth + 1);
                }
            }
            "field_declaration" | "constant_declaration" => self.collect_field(n, class),
            // Constructors are listed (so that pairing and `--method` find
            // them); only those of value classes are lowered (objects.rs).
            "method_declaration" | "constructor_declaration" => self.collect_method(n, class),
            // Initialiser blocks are not functions, but a static one changes
            // the constants (see [`statics`]); method bodies contain no
            // further methods we lower (local and anonymous classes are
            // unsupported inside them).
            "static_initializer" => self.static_blocks.push((class, n)),
            "block" | "compact_constructor_declaration" => {}
            _ => {
                for c in named_children(n) {
                    self.collect(c, class, depth + 1);
                }
            }
        }
    }

    /// The name a field is known by in reports and paired by across
    /// versions: a top-level class's field by its own name, a nested
    /// class's as `B.f` — what a reader of the file would write — and with
    /// the enclosing classes (`A.B.f`) where that name is taken already.
    /// Nesting, not declaration order, decides: adding a class before
    /// another does not rename the other's fields.
    fn field_global_name(&self, class: Option<usize>, name: &str) -> String {
        let taken = |n: &str| self.globals.iter().any(|g| g.name == n);
        let mut path = Vec::new();
        let mut c = class;
        while let Some(k) = c.and_then(|c| self.classes.get(c)) {
            path.push(k.name.as_str());
            c = k.outer;
            if path.len() > self.classes.len() {
                break;
            }
        }
        path.reverse();
        let mut candidates = (0..path.len())
            .rev()
            .map(|from| format!("{}.{name}", path[from..].join(".")));
        let nested = path.len() > 1;
        let first = if nested {
            candidates.next()
        } else {
            Some(name.to_string())
        };
        std::iter::once(first)
            .flatten()
            .chain(candidates)
            .find(|n| !taken(n))
            .unwrap_or_else(|| name.to_string())
    }

    fn collect_field(&mut self, n: Node<'t>, class: Option<usize>) {
        let (is_static, is_final) = modifiers(n);
        let is_private = has_modifier(n, "private");
        // Interface fields are implicitly static.
        let is_static = is_static || n.kind() == "constant_declaration";
        // Interface constants are implicitly static final.
        let is_final = is_final || n.kind() == "constant_declaration";
        let base = n
            .child_by_field_name("type")
            .map(|t| java_type(self.src, t));
        for d in children_by_field(n, "declarator") {
            let Some(name_node) = d.child_by_field_name("name") else {
                continue;
            };
            let name = self.text(name_node).to_string();
            let ty = match &base {
                Some(Ok(t)) => add_dims(t.clone(), d.child_by_field_name("dimensions"), self.src),
                Some(Err(e)) => Err(e.clone()),
                None => Err(TyErr::Other("field".into())),
            };
            let global = match &ty {
                Ok(t) => {
                    let gname = self.field_global_name(class, &name);
                    self.globals.push(Global {
                        name: gname,
                        ty: t.clone(),
                        constant: None,
                        return_of: None,
                        static_object: None,
                        uncomputed: false,
                        origin: None,
                        initial: None,
                        declared_len: None,
                        file_local: is_private,
                        span: span(d),
                    });
                    Some(GlobalId((self.globals.len() - 1) as u32))
                }
                Err(_) => None,
            };
            let init = d.child_by_field_name("value");
            let type_node = n
                .child_by_field_name("type")
                .filter(|_| d.child_by_field_name("dimensions").is_none());
            self.fields.push(FieldInfo {
                class,
                name,
                ty,
                global,
                is_final,
                is_static,
                init,
                type_node,
                object: None,
                span: span(d),
            });
        }
    }

    fn collect_method(&mut self, n: Node<'t>, class: Option<usize>) {
        let name_node = n.child_by_field_name("name");
        let name = name_node
            .map(|c| self.text(c).to_string())
            .unwrap_or_default();
        let name_span = name_node.map(span).unwrap_or_else(|| span(n));
        let mut arity = 0;
        let mut varargs = false;
        let mut text_params = Vec::new();
        let mut params = Ok(Vec::new());
        if let Some(ps) = n.child_by_field_name("parameters") {
            for p in named_children(ps) {
                match p.kind() {
                    "formal_parameter" => {
                        arity += 1;
                        let pname = p
                            .child_by_field_name("name")
                            .map(|c| self.text(c).to_string())
                            .unwrap_or_default();
                        let ty = match p.child_by_field_name("type") {
                            Some(t) => java_type(self.src, t).and_then(|t| {
                                add_dims(t, p.child_by_field_name("dimensions"), self.src)
                            }),
                            None => Err(TyErr::Other("parameter".into())),
                        };
                        // A String parameter is a `char` array no code writes
                        // (see `FnCx::string_method`).
                        let is_text = matches!(&ty, Err(TyErr::Class(c)) if c == "String");
                        let ty = if is_text { Ok(text_type()) } else { ty };
                        text_params.push(is_text);
                        match (ty, &mut params) {
                            (Ok(t), Ok(v)) => v.push((pname, t, span(p))),
                            (Err(e), Ok(_)) => {
                                params = Err(unsupported(p, e.describe(Role::Param)))
                            }
                            _ => {}
                        }
                    }
                    "spread_parameter" => {
                        arity += 1;
                        varargs = true;
                        let (name, ty) = spread_param(self.src, p);
                        let pname = name.map(|c| self.text(c).to_string()).unwrap_or_default();
                        text_params.push(false);
                        match (ty, &mut params) {
                            (Ok(t), Ok(v)) => v.push((pname, t, span(p))),
                            (Err(e), Ok(_)) => {
                                params = Err(unsupported(p, e.describe(Role::Param)))
                            }
                            _ => {}
                        }
                    }
                    _ => {}
                }
            }
        }
        let ret = match n.child_by_field_name("type") {
            Some(t) => java_type(self.src, t)
                .and_then(|t| add_dims(t, n.child_by_field_name("dimensions"), self.src))
                .map_err(|e| unsupported(t, e.describe(Role::Return))),
            None if n.kind() == "constructor_declaration" => Err(unsupported(n, "constructor")),
            None => Err(unsupported(n, "method without a return type")),
        };
        self.methods.push(MethodInfo {
            class,
            name,
            name_span,
            arity,
            varargs,
            text_params,
            node: n,
            params,
            ret,
            is_static: modifiers(n).0,
            is_ctor: n.kind() == "constructor_declaration",
            param_classes: Vec::new(),
            ret_class: None,
            ret_slots: Vec::new(),
            object_mode: false,
            variant: None,
            mutates: false,
        });
    }

    /// Evaluates the initialisers of `final` and `static` fields that are
    /// constant expressions (literals, operators, other constants, `Math`
    /// functions, array initialisers), and the static blocks between them in
    /// textual order, as the class initialiser runs them (see [`statics`]).
    /// A final field's value is its constant; a non-final static field's is
    /// its [`Global::initial`] value, which a method relies on only where
    /// no code writes the field (`check::state`). Instance fields are
    /// inputs at method entry.
    fn compute_constants(&mut self) {
        let blocks = self.static_blocks.clone();
        let mut next = blocks.iter().peekable();
        for i in 0..self.fields.len() {
            let at = self.fields[i].span.start.byte as usize;
            while let Some(&&(class, b)) = next.peek() {
                if b.start_byte() > at {
                    break;
                }
                self.run_static_block(class, b);
                next.next();
            }
            let f = &self.fields[i];
            // A non-final static field without an initialiser starts at
            // its type's zero (arrays at null: no value).
            if let (None, Some(gid), Ok(ty), true) =
                (f.init, f.global, &f.ty, f.is_static && !f.is_final)
                && let Ok(zero) = objects::zero_of(ty, f.span)
                && let Some(g) = self.globals.get_mut(gid.0 as usize)
            {
                g.constant = Some(zero);
            }
            let f = &self.fields[i];
            let (Some(init), Some(gid), Ok(ty), true) =
                (f.init, f.global, f.ty.clone(), f.is_final || f.is_static)
            else {
                continue;
            };
            let mut fx = FnCx::new(self, f.class, Type::Void);
            fx.const_mode = true;
            let mut out = Vec::new();
            let value = fx.initializer(init, &ty, &mut out);
            if let (Ok(v), true) = (value, out.is_empty())
                && let Some(g) = self.globals.get_mut(gid.0 as usize)
            {
                g.constant = Some(v);
            }
        }
        for &(class, b) in next {
            self.run_static_block(class, b);
        }
        for f in &self.fields {
            if let (true, Some(g)) = (f.is_static && !f.is_final, f.global)
                && let Some(g) = self.globals.get_mut(g.0 as usize)
            {
                g.initial = g.constant.take();
            }
        }
        // What is left without a constant among the fields no method can
        // assign: static finals (set once, by code not evaluated) and
        // instance finals with an initialiser (the same value in every
        // object). A blank instance final is set by each constructor from
        // its arguments: an input like any field of the receiver.
        for f in &self.fields {
            if let (true, Some(g)) = (f.is_final && (f.is_static || f.init.is_some()), f.global)
                && let Some(g) = self.globals.get_mut(g.0 as usize)
                && g.constant.is_none()
            {
                g.uncomputed = true;
            }
        }
    }

    /// Drops the [`Global::initial`] value of every field whose name occurs
    /// where the IR does not show what the code does: a method that was
    /// not lowered (a constructor, an unsupported construct), an instance
    /// initialiser, another field's initialiser. Lowered bodies, static
    /// blocks (evaluated or not, see [`statics`]) and the declarators'
    /// names are left out of the search.
    fn keep_initial_values_of_unmentioned(&mut self, root: Node, functions: &[FunctionDef]) {
        if self.globals.iter().all(|g| g.initial.is_none()) {
            return;
        }
        let mut analysed: Vec<std::ops::Range<usize>> = Vec::new();
        for (m, def) in self.methods.iter().zip(functions) {
            let node_ok = self
                .methods
                .iter()
                .zip(functions)
                .filter(|(k, _)| k.node == m.node)
                .all(|(_, d)| d.body.is_ok());
            if def.body.is_ok() && node_ok {
                analysed.push(m.node.byte_range());
            }
        }
        analysed.extend(self.static_blocks.iter().map(|(_, b)| b.byte_range()));
        for f in &self.fields {
            let own = f.span.start.byte as usize..f.span.end.byte as usize;
            let evaluated = f
                .global
                .and_then(|g| self.globals.get(g.0 as usize))
                .is_some_and(|g| g.constant.is_some() || g.initial.is_some());
            // The declarator, and its initialiser when that was evaluated
            // as a constant expression (which writes nothing).
            match f.init {
                Some(init) if !evaluated => analysed.push(own.start..init.start_byte()),
                _ => analysed.push(own),
            }
        }
        let mentioned = crate::lang::mentioned_outside(root, self.src, &analysed);
        for f in &self.fields {
            if let Some(g) = f.global.and_then(|g| self.globals.get_mut(g.0 as usize))
                && mentioned.contains(&f.name)
            {
                g.initial = None;
            }
        }
    }

    /// The field `name` visible from `class`: the class itself, then its
    /// enclosing classes. Outside any class, any field of that name.
    fn field(&self, class: Option<usize>, name: &str) -> Option<&FieldInfo<'t>> {
        let mut c = class;
        let mut guard = 0;
        while let Some(ci) = c {
            if let Some(f) = self
                .fields
                .iter()
                .find(|f| f.class == Some(ci) && f.name == name)
            {
                return Some(f);
            }
            c = self.classes.get(ci).and_then(|k| k.outer);
            guard += 1;
            if guard > self.classes.len() {
                break;
            }
        }
        if class.is_none() {
            return self.fields.iter().find(|f| f.name == name);
        }
        None
    }

    /// The parameter types of method `n` as written (array dimensions on
    /// the name included), without whitespace.
    fn param_types(&self, n: Node) -> Vec<String> {
        let Some(ps) = n.child_by_field_name("parameters") else {
            return Vec::new();
        };
        named_children(ps)
            .into_iter()
            .filter(|p| matches!(p.kind(), "formal_parameter" | "spread_parameter"))
            .map(|p| {
                let ty = p
                    .child_by_field_name("type")
                    .or_else(|| spread_type_node(p))
                    .map_or("", |t| self.text(t));
                let dims = p
                    .child_by_field_name("dimensions")
                    .map_or("", |d| self.text(d));
                let dots = if p.kind() == "spread_parameter" {
                    "..."
                } else {
                    ""
                };
                format!("{ty}{dims}{dots}")
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect()
            })
            .collect()
    }

    /// The names of `class` and its enclosing classes, outermost first.
    fn class_path(&self, class: Option<usize>) -> Vec<String> {
        let mut path = Vec::new();
        let mut c = class;
        while let Some(ci) = c {
            let Some(info) = self.classes.get(ci) else {
                break;
            };
            path.push(info.name.clone());
            // Classes are pushed before their members, so an enclosing
            // class has a smaller index: the walk ends.
            c = info.outer.filter(|&o| o < ci);
        }
        path.reverse();
        path
    }

    fn class_named(&self, name: &str) -> Option<usize> {
        self.classes.iter().position(|c| c.name == name)
    }

    /// The full name of a call outside the file, through the imports, so
    /// that changing an import alone changes which method is called:
    /// `Objects.hash` with `import java.util.Objects;` is
    /// `java.util.Objects.hash`; an unqualified `checkArgument` is the
    /// statically imported one. `None` for an unqualified name no import
    /// provides (a method inherited from outside, whose receiver state we
    /// do not model) or more than one wildcard could.
    fn external_name(&self, qualifier: Option<&str>, name: &str) -> Option<String> {
        let plain: Vec<&str> = self
            .imports
            .iter()
            .filter_map(|i| (!i.starts_with("static ")).then_some(i.as_str()))
            .collect();
        let statics: Vec<&str> = self
            .imports
            .iter()
            .filter_map(|i| i.strip_prefix("static "))
            .collect();
        match qualifier {
            Some(q) => {
                let first = q.split('.').next().unwrap_or(q);
                let full = plain
                    .iter()
                    .find(|i| i.rsplit('.').next() == Some(first))
                    .map(|i| format!("{}{}", i, &q[first.len()..]));
                Some(format!("{}.{name}", full.as_deref().unwrap_or(q)))
            }
            None => {
                if let Some(i) = statics.iter().find(|i| i.rsplit('.').next() == Some(name)) {
                    return Some(i.to_string());
                }
                let stars: Vec<&&str> = statics.iter().filter(|i| i.ends_with(".*")).collect();
                match stars.as_slice() {
                    [one] => Some(format!("{}.{name}", one.trim_end_matches(".*"))),
                    _ => None,
                }
            }
        }
    }
}

/// Lowers one method body, or says why not.
fn lower_method(cx: &Ctx, idx: usize) -> R<Function> {
    let m = cx.methods.get(idx).ok_or_else(|| LowerError {
        kind: LowerErrorKind::Unsupported,
        what: "method".into(),
        span: Span::default(),
    })?;
    if m.node.has_error()
        && let Some(e) = first_error(m.node)
    {
        let what = if e.is_missing() {
            format!("missing {}", e.kind())
        } else {
            "syntax error".to_string()
        };
        return Err(LowerError {
            kind: LowerErrorKind::SyntaxError,
            what,
            span: span(e),
        });
    }
    let params = m.params.clone()?;
    let ret = m.ret.clone()?;
    let Some(body) = m.node.child_by_field_name("body") else {
        return Err(unsupported(m.node, "method without a body"));
    };
    let mut fx = FnCx::new(cx, m.class, ret.clone());
    let mut param_ids = Vec::new();
    let mut out = Vec::new();
    // The object's fields (constructors and object-mode copies) come
    // before the parameters: field initialisers cannot see them.
    fx.enter_object(m, &mut param_ids, &mut out)?;
    for (i, (name, ty, sp)) in params.into_iter().enumerate() {
        match m.param_classes.get(i).copied().flatten() {
            Some(c) => param_ids.extend(fx.declare_object(&name, c, LocalKind::Param, sp)?),
            None => {
                let id = fx.fun.declare(&name, ty, LocalKind::Param, sp);
                if m.text_params.get(i).copied().unwrap_or(false) {
                    fx.fun.mark_text(id);
                }
                param_ids.push(id);
            }
        }
    }
    fx.ret_obj = m.ret_class.map(|c| (c, m.ret_slots.clone()));
    fx.block(body, &mut out)?;
    fx.ctor_result(m.name_span, &mut out);
    Ok(Function {
        name: m.name.clone(),
        params: param_ids,
        locals: fx.fun.locals,
        ret,
        body: out,
        span: span(m.node),
        name_span: m.name_span,
    })
}

/// What `break`/`continue` inside a loop or switch turn into.
#[derive(Clone, Copy)]
enum Cont {
    /// `continue` is the loop's own continue.
    Continue(LabelId),
    /// `continue` leaves an inner labeled block (do-while with a lifted
    /// condition, where the condition code follows the body).
    Break(LabelId),
}

#[derive(Clone)]
struct Target {
    /// The Java label (`outer:`) naming this statement, if any.
    name: Option<String>,
    brk: LabelId,
    /// `Some` for loops.
    cont: Option<Cont>,
    /// Whether an unlabeled `break` may target it (loops and switches).
    breakable: bool,
}

/// Per-function lowering state.
struct FnCx<'c, 't> {
    cx: &'c Ctx<'t>,
    class: Option<usize>,
    ret: Type,
    /// Locals, scopes of local names, temporaries and labels.
    fun: FnBuilder<LocalId>,
    targets: Vec<Target>,
    /// Lowering a field initialiser: identifiers may only name constants,
    /// whose values are inlined.
    const_mode: bool,
    depth: u32,
    /// The type the value of the expression node with this id must have
    /// (declarations, assignments, returns, conditions): the result type
    /// of a call to a method outside the file, which the file cannot tell.
    result_hint: Option<(usize, Type)>,
    /// Variables of the enclosing `catch` clauses (the caught objects are
    /// not modelled).
    caught: Vec<String>,
    /// The object `this` denotes in a constructor or object-mode copy of a
    /// value class ([`objects`]).
    this_obj: Option<objects::ThisObject>,
    /// For a method returning an object: its class and return slots.
    ret_obj: Option<(usize, Vec<GlobalId>)>,
    /// Object variables in scope: name, class, field locals.
    objects: Vec<Vec<(String, usize, Vec<LocalId>)>>,
}

impl<'c, 't> FnCx<'c, 't> {
    fn new(cx: &'c Ctx<'t>, class: Option<usize>, ret: Type) -> Self {
        FnCx {
            cx,
            class,
            ret,
            fun: FnBuilder::new(&JAVA),
            targets: Vec::new(),
            const_mode: false,
            depth: 0,
            result_hint: None,
            caught: Vec::new(),
            this_obj: None,
            ret_obj: None,
            objects: vec![Vec::new()],
        }
    }

    fn text(&self, n: Node) -> &'t str {
        self.cx.text(n)
    }

    /// A new scope for locals and for objects.
    fn push_scope(&mut self) {
        self.fun.push_scope();
        self.objects.push(Vec::new());
    }

    fn pop_scope(&mut self) {
        self.fun.pop_scope();
        self.objects.pop();
    }

    /// Guards recursion depth; pair with [`FnCx::leave`].
    fn enter(&mut self, n: Node) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(unsupported(n, "code nested too deeply"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
}

// ---------------------------------------------------------------- helpers

fn pos(p: tree_sitter::Point, byte: usize) -> Pos {
    Pos {
        line: p.row as u32,
        col: p.column as u32,
        byte: byte as u32,
    }
}

fn span(n: Node) -> Span {
    Span {
        start: pos(n.start_position(), n.start_byte()),
        end: pos(n.end_position(), n.end_byte()),
    }
}

fn unsupported(n: Node, what: impl Into<String>) -> LowerError {
    LowerError {
        kind: LowerErrorKind::Unsupported,
        what: what.into(),
        span: span(n),
    }
}

fn named_children(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c).filter(|c| !c.is_extra()).collect()
}

fn children_by_field<'a>(n: Node<'a>, field: &str) -> Vec<Node<'a>> {
    let mut c = n.walk();
    n.children_by_field_name(field, &mut c).collect()
}

fn first_error(n: Node) -> Option<Node> {
    if n.is_error() || n.is_missing() {
        return Some(n);
    }
    let mut c = n.walk();
    let children: Vec<Node> = n.children(&mut c).collect();
    children
        .into_iter()
        .filter(|c| c.has_error())
        .find_map(first_error)
}

/// `(is_static, is_final)` from a declaration's `modifiers` child.
fn modifiers(n: Node) -> (bool, bool) {
    let mut st = false;
    let mut fi = false;
    let mut c = n.walk();
    for m in n.children(&mut c).filter(|c| c.kind() == "modifiers") {
        let mut c2 = m.walk();
        for t in m.children(&mut c2) {
            match t.kind() {
                "static" => st = true,
                "final" => fi = true,
                _ => {}
            }
        }
    }
    (st, fi)
}

/// Whether the declaration `n` has the modifier `m` (`private`, …).
fn has_modifier(n: Node, m: &str) -> bool {
    let mut c = n.walk();
    n.children(&mut c)
        .filter(|c| c.kind() == "modifiers")
        .any(|ms| {
            let mut c2 = ms.walk();
            ms.children(&mut c2).any(|t| t.kind() == m)
        })
}

/// The IR type of a Java `String`: its UTF-16 units (see [`crate::ir::Local::text`]).
fn text_type() -> Type {
    Type::Array(Box::new(Type::Int(crate::ir::IntTy::JAVA_CHAR)))
}

fn mk(kind: ExprKind, ty: Type, span: Span) -> Expr {
    Expr { kind, ty, span }
}

fn st(kind: StmtKind, span: Span) -> Stmt {
    Stmt { kind, span }
}

// ------------------------------------------------------------------ types

/// Why a Java type has no IR counterpart.
#[derive(Clone, Debug, PartialEq)]
enum TyErr {
    /// A class type (`String`, `complex`, `Integer`, generics).
    Class(String),
    /// `int[][]` and deeper.
    MultiDim(String),
    Other(String),
}

/// Where a type occurs, for the error message.
#[derive(Clone, Copy)]
enum Role {
    Var,
    Param,
    Return,
}

impl TyErr {
    fn describe(&self, role: Role) -> String {
        match (self, role) {
            (TyErr::Class(c), Role::Var) if c == "String" => "String variable".into(),
            (TyErr::Class(c), Role::Var) => format!("variable of class type {c}"),
            (TyErr::Class(c), Role::Param) => format!("parameter of type {c}"),
            (TyErr::Class(c), Role::Return) => format!("method returning {c}"),
            (TyErr::MultiDim(t), _) => format!("multi-dimensional array {t}"),
            (TyErr::Other(t), _) => format!("type {t}"),
        }
    }
}

fn java_type(src: &str, n: Node) -> Result<Type, TyErr> {
    let text = src.get(n.byte_range()).unwrap_or("");
    match n.kind() {
        "integral_type" => match text {
            "int" => Ok(Type::INT),
            "long" => Ok(Type::LONG),
            "short" => Ok(Type::Int(IntTy::I16)),
            "byte" => Ok(Type::Int(IntTy::I8)),
            "char" => Ok(Type::Int(IntTy::JAVA_CHAR)),
            _ => Err(TyErr::Other(text.into())),
        },
        "floating_point_type" => match text {
            "float" => Ok(Type::Float(FloatTy::F32)),
            "double" => Ok(Type::DOUBLE),
            _ => Err(TyErr::Other(text.into())),
        },
        "boolean_type" => Ok(Type::Bool),
        "void_type" => Ok(Type::Void),
        "array_type" => {
            let elem = n
                .child_by_field_name("element")
                .ok_or_else(|| TyErr::Other(text.into()))?;
            let elem = java_type(src, elem)?;
            add_dims(elem, n.child_by_field_name("dimensions"), src)
        }
        "type_identifier" | "generic_type" | "scoped_type_identifier" => {
            Err(TyErr::Class(text.into()))
        }
        _ => Err(TyErr::Other(text.into())),
    }
}

/// Applies `[]` dimensions (`int a[]`, `int[] f()[]`) to a type.
fn add_dims(ty: Type, dims: Option<Node>, src: &str) -> Result<Type, TyErr> {
    let count = dims
        .map(|d| src.get(d.byte_range()).unwrap_or("").matches('[').count())
        .unwrap_or(0);
    let mut t = ty;
    for _ in 0..count {
        if matches!(t, Type::Array(_)) {
            return Err(TyErr::MultiDim(format!("{}[]", jname(&t))));
        }
        if t == Type::Void {
            return Err(TyErr::Other("void[]".into()));
        }
        t = Type::Array(Box::new(t));
    }
    Ok(t)
}

/// A variable-arity parameter `T... xs` (JLS 8.4.1): its name and, inside
/// the method, its type `T[]`, or why that type is outside the IR (`T` a
/// class or an array: arrays are one-dimensional).
fn spread_param<'t>(src: &str, p: Node<'t>) -> (Option<Node<'t>>, Result<Type, TyErr>) {
    let decl = named_children(p)
        .into_iter()
        .find(|k| k.kind() == "variable_declarator");
    let name = decl.and_then(|d| d.child_by_field_name("name"));
    let ty = match (spread_type_node(p), decl) {
        (Some(t), Some(d)) if d.child_by_field_name("dimensions").is_none() => java_type(src, t)
            .and_then(|t| match t {
                Type::Array(_) => Err(TyErr::MultiDim(format!("{}[]", jname(&t)))),
                Type::Void => Err(TyErr::Other("void...".into())),
                t => Ok(Type::Array(Box::new(t))),
            }),
        _ => Err(TyErr::Other("variable-arity parameter".into())),
    };
    (name, ty)
}

/// The element type `T` of a variable-arity parameter `T... xs` as
/// written (the grammar gives it no field name).
fn spread_type_node(p: Node) -> Option<Node> {
    named_children(p).into_iter().find(|k| {
        !matches!(
            k.kind(),
            "variable_declarator" | "modifiers" | "annotation" | "marker_annotation"
        )
    })
}

/// A type as Java spells it, for messages.
fn jname(t: &Type) -> String {
    match t {
        Type::Int(i) if i.is_char => "char".into(),
        Type::Int(i) => match i.bits {
            8 => "byte",
            16 => "short",
            32 => "int",
            _ => "long",
        }
        .into(),
        Type::Float(FloatTy::F32) => "float".into(),
        Type::Float(FloatTy::F64) => "double".into(),
        Type::Array(e) => format!("{}[]", jname(e)),
        Type::Str => "String".into(),
        other => other.to_string(),
    }
}

fn is_integral(t: &Type) -> bool {
    matches!(t, Type::Int(_))
}

/// Unary numeric promotion: `byte`, `short`, `char` become `int`.
fn promote(t: &Type) -> Type {
    match t {
        Type::Int(i) if i.bits < 32 => Type::INT,
        _ => t.clone(),
    }
}

/// Binary numeric promotion (JLS 5.6.2); `None` unless both are numeric.
fn bnp(a: &Type, b: &Type) -> Option<Type> {
    if !a.is_numeric() || !b.is_numeric() {
        return None;
    }
    let f64_ = Type::DOUBLE;
    let f32_ = Type::Float(FloatTy::F32);
    Some(if *a == f64_ || *b == f64_ {
        f64_
    } else if *a == f32_ || *b == f32_ {
        f32_
    } else if *a == Type::LONG || *b == Type::LONG {
        Type::LONG
    } else {
        Type::INT
    })
}

/// Widening primitive conversion or identity (JLS 5.1.2), used to choose
/// among overloads.
fn widens(from: &Type, to: &Type) -> bool {
    if from == to {
        return true;
    }
    let rank = |t: &Type| match t {
        Type::Int(i) if i.is_char => Some(1),
        Type::Int(i) => Some(match i.bits {
            8 => 0,
            16 => 1,
            32 => 2,
            _ => 3,
        }),
        Type::Float(FloatTy::F32) => Some(4),
        Type::Float(FloatTy::F64) => Some(5),
        _ => None,
    };
    match (from, to) {
        // char widens to int and beyond only; nothing widens to char.
        (Type::Int(f), _) if f.is_char => rank(to).is_some_and(|r| r >= 2),
        (_, Type::Int(t)) if t.is_char => false,
        _ => matches!((rank(from), rank(to)), (Some(a), Some(b)) if a < b),
    }
}

fn int_in_range(v: i128, t: IntTy) -> bool {
    let bits = u32::from(t.bits.min(64));
    if t.signed {
        v >= -(1i128 << (bits - 1)) && v < (1i128 << (bits - 1))
    } else {
        v >= 0 && v < (1i128 << bits)
    }
}

/// Converts `e` to `ty`: the identity when already of that type, a literal
/// when `e` is an integer literal that fits, else an explicit cast.
fn cast(e: Expr, ty: &Type) -> Expr {
    if &e.ty == ty {
        return e;
    }
    if let ExprKind::IntLit(v) = e.kind {
        match ty {
            Type::Int(it) if int_in_range(v, *it) => {
                return mk(ExprKind::IntLit(v), ty.clone(), e.span);
            }
            Type::Float(ft) => {
                let value = match ft {
                    FloatTy::F32 => f64::from(v as f32),
                    FloatTy::F64 => v as f64,
                };
                return mk(
                    ExprKind::FloatLit(FloatLit {
                        value,
                        text: v.to_string(),
                    }),
                    ty.clone(),
                    e.span,
                );
            }
            _ => {}
        }
    }
    let sp = e.span;
    mk(ExprKind::Cast(Box::new(e)), ty.clone(), sp)
}

// --------------------------------------------------------------- literals

/// An integer literal's value and type. `negate` folds a unary minus into a
/// decimal literal so that `-2147483648` and `-9223372036854775808L` are
/// representable, as in Java.
fn int_literal(text: &str, negate: bool) -> Result<(i128, Type), String> {
    let clean: String = text.chars().filter(|c| *c != '_').collect();
    let (body, long) = match clean.strip_suffix(['l', 'L']) {
        Some(b) => (b.to_string(), true),
        None => (clean.clone(), false),
    };
    let lower = body.to_ascii_lowercase();
    let (digits, radix) = if let Some(h) = lower.strip_prefix("0x") {
        (h.to_string(), 16)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (b.to_string(), 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (lower[1..].to_string(), 8)
    } else {
        (lower.clone(), 10)
    };
    let bad = || format!("integer literal {text}");
    let v = u128::from_str_radix(&digits, radix).map_err(|_| bad())?;
    let (bits, ty) = if long {
        (64u32, Type::LONG)
    } else {
        (32u32, Type::INT)
    };
    let v = if radix == 10 {
        let max = if negate {
            1u128 << (bits - 1)
        } else {
            (1u128 << (bits - 1)) - 1
        };
        if v > max {
            return Err(format!("integer literal {text} out of range"));
        }
        let v = v as i128;
        if negate { -v } else { v }
    } else {
        // Hex, octal and binary literals denote bit patterns.
        if v >= (1u128 << bits) {
            return Err(format!("integer literal {text} out of range"));
        }
        let v = if v >= (1u128 << (bits - 1)) {
            v as i128 - (1i128 << bits)
        } else {
            v as i128
        };
        if negate { -v } else { v }
    };
    if let Type::Int(it) = ty
        && !int_in_range(v, it)
    {
        return Err(format!("integer literal {text} out of range"));
    }
    Ok((v, ty))
}

/// A decimal floating literal: value, type, and normalised decimal text
/// (no suffix, no underscores, `.5` → `0.5`, `1.` → `1.0`).
fn float_literal(text: &str, negate: bool) -> Result<(FloatLit, Type), String> {
    let clean: String = text
        .chars()
        .filter(|c| *c != '_')
        .collect::<String>()
        .to_ascii_lowercase();
    let (body, ty) = if let Some(b) = clean.strip_suffix('f') {
        (b.to_string(), Type::Float(FloatTy::F32))
    } else if let Some(b) = clean.strip_suffix('d') {
        (b.to_string(), Type::DOUBLE)
    } else {
        (clean.clone(), Type::DOUBLE)
    };
    let mut norm = body.clone();
    if norm.starts_with('.') {
        norm.insert(0, '0');
    }
    norm = norm.replace(".e", ".0e");
    if norm.ends_with('.') {
        norm.push('0');
    }
    if negate {
        norm.insert(0, '-');
    }
    let value = match ty {
        Type::Float(FloatTy::F32) => norm
            .parse::<f32>()
            .map(f64::from)
            .map_err(|_| format!("float literal {text}"))?,
        _ => norm
            .parse::<f64>()
            .map_err(|_| format!("float literal {text}"))?,
    };
    if !value.is_finite() {
        return Err(format!("float literal {text} out of range"));
    }
    Ok((FloatLit { value, text: norm }, ty))
}

/// Decodes the body of a char or string literal (without quotes) into
/// UTF-16 code units, resolving Java escapes.
fn decode_escapes(s: &str) -> Result<Vec<u16>, String> {
    let mut out = Vec::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            out.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        let Some(e) = it.next() else {
            return Err("dangling escape".into());
        };
        let unit: u16 = match e {
            'n' => 10,
            't' => 9,
            'b' => 8,
            'r' => 13,
            'f' => 12,
            's' => 32,
            '\'' => 39,
            '"' => 34,
            '\\' => 92,
            'u' => {
                while it.peek() == Some(&'u') {
                    it.next();
                }
                let hex: String = (0..4).filter_map(|_| it.next()).collect();
                u16::from_str_radix(&hex, 16).map_err(|_| format!("escape \\u{hex}"))?
            }
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                let max_len = if e <= '3' { 3 } else { 2 };
                for _ in 1..max_len {
                    match it.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            it.next();
                        }
                        None => break,
                    }
                }
                v as u16
            }
            other => return Err(format!("escape \\{other}")),
        };
        out.push(unit);
    }
    Ok(out)
}

/// An error that a well-formed tree never produces (kept instead of a
/// panic).
fn internal(what: &str) -> LowerError {
    LowerError {
        kind: LowerErrorKind::Unsupported,
        what: what.to_string(),
        span: Span::default(),
    }
}
