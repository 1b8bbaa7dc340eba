//! How the two versions' globals are related before any checker runs.
//!
//! Every checker pairs the versions' globals by name and gives a global
//! that is an input in both the same entry value: a method is compared
//! against one state of the world, in which a field has one value. Three
//! adjustments make that pairing the one the change means:
//! - a field renamed between the versions is one field: the old program's
//!   global takes the new version's name ([`rename_fields`]);
//! - a field that no code writes after initialisation holds its initial
//!   value, in each version its own ([`keep_initial_values`]);
//! - a field that is a constant in one version and an input in the other
//!   gets the constant in both ([`share_constants`]).
//!
//! Each is named in a proof that rests on it (see
//! [`Assumption::SameField`](super::Assumption::SameField),
//! [`Assumption::UnwrittenOutside`](super::Assumption::UnwrittenOutside) and
//! [`Assumption::SameInitialValue`](super::Assumption::SameInitialValue)),
//! and none lets a counterexample give two values to what the versions
//! hold as one field.

use crate::ir::{Expr, ExprKind, GlobalId, Program, StmtKind};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pair's programs as the checkers see them, and what was related.
pub(super) struct Related {
    pub old: Program,
    pub new: Program,
    /// (old name, new name) of each renamed field.
    pub renamed: Vec<(String, String)>,
    /// Names of the globals code outside the file could write that were
    /// given their initial values.
    pub unwritten: Vec<String>,
    /// Names (the new version's) of the fields given a constant of the
    /// other version.
    pub shared: Vec<String>,
}

/// The programs with renamed fields matched, initial values kept and
/// constants shared; `None` when none of it applies.
pub(super) fn relate(old: &Program, new: &Program, written_outside: &[String]) -> Option<Related> {
    let (renamed_old, renamed) = match rename_fields(old, new) {
        Some((p, r)) => (Some(p), r),
        None => (None, Vec::new()),
    };
    let base = renamed_old.as_ref().unwrap_or(old);
    let (kept_old, kept_new, unwritten) = match keep_initial_values(base, new, written_outside) {
        Some((o, n, names)) => (Some(o), Some(n), names),
        None => (renamed_old, None, Vec::new()),
    };
    let (o, n) = (
        kept_old.as_ref().unwrap_or(old),
        kept_new.as_ref().unwrap_or(new),
    );
    match share_constants(o, n) {
        Some((o, n, shared)) => Some(Related {
            old: o,
            new: n,
            renamed,
            unwritten,
            shared,
        }),
        None if kept_old.is_some() || kept_new.is_some() => Some(Related {
            old: kept_old.unwrap_or_else(|| old.clone()),
            new: kept_new.unwrap_or_else(|| new.clone()),
            renamed,
            unwritten,
            shared: Vec::new(),
        }),
        None => None,
    }
}

/// The programs with every global that no code writes after
/// initialisation given its initial value as a constant, and the names of
/// those that code outside the file could see (`None` when no global
/// qualifies).
///
/// A global qualifies in a version when the front end computed its initial
/// value ([`crate::ir::Global::initial`]: it also checked that no code the
/// IR does not show names it), no lowered function assigns it or — for an
/// array — stores into it or lets its reference go anywhere but an index
/// or a length ([`possibly_written`]), and `eqlens.toml` does not declare it
/// written outside the file (`written_outside`, patterns as for callees). A
/// global of both versions is kept only when it qualifies in both: else
/// one version would read a fixed value where the other reads any, and a
/// counterexample could give the one field two values. Each version keeps
/// its own initial value, so a changed initialiser is a difference.
fn keep_initial_values(
    old: &Program,
    new: &Program,
    written_outside: &[String],
) -> Option<(Program, Program, Vec<String>)> {
    let declared = |name: &str| {
        written_outside.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => p == name,
        })
    };
    let qualifying = |p: &Program| -> FxHashMap<String, usize> {
        let written = possibly_written(p);
        p.globals
            .iter()
            .enumerate()
            .filter(|(i, g)| {
                g.initial.is_some()
                    && g.constant.is_none()
                    && g.return_of.is_none()
                    && g.static_object.is_none()
                    && !written.contains(&GlobalId(*i as u32))
                    && !declared(&g.name)
            })
            .map(|(i, g)| (g.name.clone(), i))
            .collect()
    };
    let (old_ok, new_ok) = (qualifying(old), qualifying(new));
    let names =
        |p: &Program| -> FxHashSet<String> { p.globals.iter().map(|g| g.name.clone()).collect() };
    let (old_names, new_names) = (names(old), names(new));
    let kept = |ok: &FxHashMap<String, usize>,
                other: &FxHashSet<String>,
                other_ok: &FxHashMap<String, usize>| {
        let mut idx: Vec<usize> = ok
            .iter()
            .filter(|(name, _)| other_ok.contains_key(*name) || !other.contains(*name))
            .map(|(_, &i)| i)
            .collect();
        idx.sort_unstable();
        idx
    };
    let (old_kept, new_kept) = (
        kept(&old_ok, &new_names, &new_ok),
        kept(&new_ok, &old_names, &old_ok),
    );
    if old_kept.is_empty() && new_kept.is_empty() {
        return None;
    }
    let mut outside = Vec::new();
    let apply = |p: &Program, idx: &[usize], outside: &mut Vec<String>| {
        let mut p = p.clone();
        for &i in idx {
            let g = &mut p.globals[i];
            g.constant = g.initial.clone();
            if !g.file_local && !outside.contains(&g.name) {
                outside.push(g.name.clone());
            }
        }
        p
    };
    let o = apply(old, &old_kept, &mut outside);
    let n = apply(new, &new_kept, &mut outside);
    Some((o, n, outside))
}

/// The globals some lowered function of `p` may change: those it assigns,
/// and the arrays it stores into or whose reference it uses other than to
/// index it, take its length or test it against `null` (passed on, stored,
/// returned: an alias could then write it).
fn possibly_written(p: &Program) -> FxHashSet<GlobalId> {
    fn place(pl: &crate::ir::Place, out: &mut FxHashSet<GlobalId>) {
        match pl {
            crate::ir::Place::Global(g) => {
                out.insert(*g);
            }
            crate::ir::Place::Index { array, .. } => {
                if let ExprKind::Global(g) = array.kind {
                    out.insert(g);
                }
            }
            crate::ir::Place::Local(_) => {}
        }
    }
    // Array globals used as a whole reference: anywhere but the array
    // operand of an index, a length or a null test.
    fn escapes(e: &Expr, out: &mut FxHashSet<GlobalId>) {
        match &e.kind {
            ExprKind::Global(g) if matches!(e.ty, crate::ir::Type::Array(_)) => {
                out.insert(*g);
            }
            ExprKind::Index(a, i) => {
                if !matches!(a.kind, ExprKind::Global(_)) {
                    escapes(a, out);
                }
                escapes(i, out);
            }
            ExprKind::Length(a) | ExprKind::IsNull(a) => {
                if !matches!(a.kind, ExprKind::Global(_)) {
                    escapes(a, out);
                }
            }
            _ => {
                for c in e.children() {
                    escapes(c, out);
                }
            }
        }
    }
    fn block(b: &[crate::ir::Stmt], out: &mut FxHashSet<GlobalId>) {
        for s in b {
            match &s.kind {
                StmtKind::Assign { place: pl, value } => {
                    place(pl, out);
                    if let crate::ir::Place::Index { index, .. } = pl {
                        escapes(index, out);
                    }
                    escapes(value, out);
                }
                StmtKind::Call { dest, args, .. } | StmtKind::External { dest, args, .. } => {
                    if let Some(pl) = dest {
                        place(pl, out);
                    }
                    for a in args {
                        escapes(a, out);
                    }
                }
                _ => {
                    for e in s.exprs() {
                        escapes(e, out);
                    }
                }
            }
            for c in s.child_blocks() {
                block(c, out);
            }
        }
    }
    let mut out = FxHashSet::default();
    for f in &p.functions {
        if let Ok(body) = &f.body {
            block(&body.body, &mut out);
        }
    }
    out
}

/// The old program with each field renamed in the new version given its
/// new name, and the (old, new) names of those that are inputs in either
/// version; `None` when no field was renamed.
///
/// A global of the old version whose name the new version does not have is
/// matched with one of the new version whose name the old one does not
/// have when they have the same type and either the same spelling up to
/// case and underscores (`EVERY_SIXTEENTH` and `everySixteenth`) or the
/// same origin (the same initialiser and static-block statements, the own
/// name aside), and each is the other's only match. Anything less certain
/// is left as two fields. Only plain fields are matched: not return slots,
/// not the fields of an object a static field holds, and not a name given
/// to more than one global.
fn rename_fields(old: &Program, new: &Program) -> Option<(Program, Vec<(String, String)>)> {
    fn count(p: &Program) -> FxHashMap<&str, usize> {
        let mut n: FxHashMap<&str, usize> = FxHashMap::default();
        for g in &p.globals {
            *n.entry(g.name.as_str()).or_default() += 1;
        }
        n
    }
    let (old_names, new_names) = (count(old), count(new));
    let only = |p: &'_ Program, own: &FxHashMap<&str, usize>, other: &FxHashMap<&str, usize>| {
        p.globals
            .iter()
            .enumerate()
            .filter(|(_, g)| {
                g.return_of.is_none()
                    && g.static_object.is_none()
                    && own.get(g.name.as_str()) == Some(&1)
                    && !other.contains_key(g.name.as_str())
            })
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    };
    let old_only = only(old, &old_names, &new_names);
    let new_only = only(new, &new_names, &old_names);
    if old_only.is_empty() || new_only.is_empty() {
        return None;
    }
    // The spelling is the stronger evidence: origins are compared only
    // among the fields it leaves unmatched.
    let by_spelling = |i: usize, j: usize| {
        let (a, b) = (&old.globals[i], &new.globals[j]);
        a.ty == b.ty && a.declared_len == b.declared_len && same_spelling(&a.name, &b.name)
    };
    let by_origin = |i: usize, j: usize| {
        let (a, b) = (&old.globals[i], &new.globals[j]);
        a.ty == b.ty
            && a.declared_len == b.declared_len
            && a.origin.is_some()
            && a.origin == b.origin
    };
    let mut pairs = unique_matches(&old_only, &new_only, by_spelling);
    let old_left: Vec<usize> = old_only
        .iter()
        .copied()
        .filter(|i| pairs.iter().all(|(k, _)| k != i))
        .collect();
    let new_left: Vec<usize> = new_only
        .iter()
        .copied()
        .filter(|j| pairs.iter().all(|(_, k)| k != j))
        .collect();
    pairs.extend(unique_matches(&old_left, &new_left, by_origin));
    if pairs.is_empty() {
        return None;
    }
    let mut renamed = Vec::new();
    let mut program = old.clone();
    for (i, j) in pairs {
        let (a, b) = (&old.globals[i], new.global(GlobalId(j as u32)));
        // Constants are values, read alike whatever their names: only a
        // rename that makes one input of two is named.
        if a.constant.is_none() || b.constant.is_none() {
            renamed.push((a.name.clone(), b.name.clone()));
        }
        program.globals[i].name = b.name.clone();
    }
    Some((program, renamed))
}

/// The pairs `(i, j)` of `olds` × `news` that `related` holds of where
/// each is the other's only relative.
fn unique_matches(
    olds: &[usize],
    news: &[usize],
    related: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for &i in olds {
        let mut matches = news.iter().copied().filter(|&j| related(i, j));
        let (Some(j), None) = (matches.next(), matches.next()) else {
            continue;
        };
        if olds.iter().filter(|&&k| related(k, j)).count() == 1 {
            out.push((i, j));
        }
    }
    out
}

/// Whether two names are spelled the same up to case and underscores,
/// segment by segment (`B.MAX_SIZE` and `B.maxSize`).
fn same_spelling(a: &str, b: &str) -> bool {
    let key = |s: &str| {
        s.split('.')
            .map(|seg| {
                seg.chars()
                    .filter(|&c| c != '_')
                    .flat_map(char::to_lowercase)
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
    };
    let (ka, kb) = (key(a), key(b));
    ka.iter().all(|s| !s.is_empty()) && ka == kb
}

/// The pair with one value per field: where a global is a constant in one
/// version and an input in the other (`2 * Math.PI` is a constant
/// expression, `2 * FastMath.PI` is not), the input is given the constant's
/// initialiser, with the names of the globals so shared (a proof names the
/// assumption); `None` when there is no such global.
///
/// Every checker relates the versions' globals by name and gives a global
/// that is an input in both the same entry value: the method is compared
/// against one state of the world, in which a field has one value. A
/// constant on one side is that value, so the other side must see it too —
/// else a counterexample could rest on the two versions reading different
/// values of the same field, which no real run does. Only where that holds
/// unchanged is the input replaced: same type, an initialiser that names no
/// other global (its meaning is the same in either program), and no
/// function of the input's version assigns the global (it is final there in
/// effect, so its value is its initialiser's). Otherwise the pair is left
/// as it is.
fn share_constants(old: &Program, new: &Program) -> Option<(Program, Program, Vec<String>)> {
    // (old index, new index, constant, whether it goes into old): found by
    // name first, so that a file without such a global costs a scan only.
    // The first global of each name, as a lookup by position would find.
    let mut new_index: FxHashMap<&str, usize> = FxHashMap::default();
    for (j, g) in new.globals.iter().enumerate() {
        new_index.entry(g.name.as_str()).or_insert(j);
    }
    let mut candidates = Vec::new();
    for (i, og) in old.globals.iter().enumerate() {
        let Some(&j) = new_index.get(og.name.as_str()) else {
            continue;
        };
        let ng = &new.globals[j];
        if og.ty != ng.ty {
            continue;
        }
        let (c, into_old) = match (&og.constant, &ng.constant) {
            (Some(c), None) if ng.is_input() => (c, false),
            (None, Some(c)) if og.is_input() => (c, true),
            _ => continue,
        };
        let mut names_global = false;
        c.walk(&mut |x| names_global |= matches!(x.kind, crate::ir::ExprKind::Global(_)));
        if !names_global {
            candidates.push((i, j, c, into_old));
        }
    }
    if candidates.is_empty() {
        return None;
    }
    let assigned = |p: &Program| -> std::collections::BTreeSet<crate::ir::GlobalId> {
        crate::abstraction::effects::function_effects(p)
            .into_values()
            .flat_map(|e| e.writes_globals)
            .collect()
    };
    let (old_assigned, new_assigned) = (assigned(old), assigned(new));
    let mut out: Option<(Program, Program, Vec<String>)> = None;
    for (i, j, c, into_old) in candidates {
        let written = if into_old {
            old_assigned.contains(&crate::ir::GlobalId(i as u32))
        } else {
            new_assigned.contains(&crate::ir::GlobalId(j as u32))
        };
        if written {
            continue;
        }
        let (o, n, names) = out.get_or_insert_with(|| (old.clone(), new.clone(), Vec::new()));
        if into_old {
            o.globals[i].constant = Some(c.clone());
        } else {
            n.globals[j].constant = Some(c.clone());
        }
        names.push(old.globals[i].name.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Lang;

    fn renamed(lang: Lang, old: &str, new: &str) -> Vec<(String, String)> {
        let (o, n) = (crate::lang::lower(lang, old), crate::lang::lower(lang, new));
        rename_fields(&o, &n).map(|(_, r)| r).unwrap_or_default()
    }

    fn pair(o: &str, n: &str) -> (String, String) {
        (o.to_string(), n.to_string())
    }

    #[test]
    fn a_field_spelled_alike_is_renamed() {
        let old = "class A { static int[] MAX_SIZES = new int[2]; \
                   static int f(int i) { return MAX_SIZES[i]; } }";
        let new = "class A { static int[] maxSizes = new int[2]; \
                   static int f(int i) { return maxSizes[i]; } }";
        assert_eq!(
            renamed(Lang::Java, old, new),
            vec![pair("MAX_SIZES", "maxSizes")]
        );
    }

    #[test]
    fn a_field_with_the_same_origin_is_renamed_when_unambiguous() {
        let old = "class A { static int hits = 0; static double rate = 0.5; \
                   static int f() { hits++; return hits; } }";
        let new = "class A { static int count = 0; static double ratio = 0.5; \
                   static int f() { count++; return count; } }";
        let mut got = renamed(Lang::Java, old, new);
        got.sort();
        assert_eq!(got, vec![pair("hits", "count"), pair("rate", "ratio")]);
    }

    #[test]
    fn ambiguous_origins_and_other_types_are_left_apart() {
        // Two old and two new int fields all initialised to 0: no match.
        let old = "class A { static int a = 0; static int b = 0; static long c = 1; \
                   static int f() { return a + b; } }";
        let new = "class A { static int x = 0; static int y = 0; static int c2 = 1; \
                   static int f() { return x + y; } }";
        assert!(renamed(Lang::Java, old, new).is_empty());
    }

    #[test]
    fn spelling_wins_over_a_shared_origin() {
        let old = "static int hit_count = 0; static int miss_count = 0; \
                   int f(int k) { if (k) hit_count++; else miss_count++; return 0; }";
        let new = "static int hitCount = 0; static int missCount = 0; \
                   int f(int k) { if (k) hitCount++; else missCount++; return 0; }";
        let mut got = renamed(Lang::C, old, new);
        got.sort();
        assert_eq!(
            got,
            vec![
                pair("hit_count", "hitCount"),
                pair("miss_count", "missCount")
            ]
        );
    }

    #[test]
    fn renamed_constants_are_matched_but_not_named() {
        let old = "class A { static final int LIMIT = 3; static int f() { return LIMIT; } }";
        let new = "class A { static final int limit = 3; static int f() { return limit; } }";
        let (o, n) = (
            crate::lang::lower(Lang::Java, old),
            crate::lang::lower(Lang::Java, new),
        );
        let (p, named) = rename_fields(&o, &n).expect("matched");
        assert!(named.is_empty());
        assert_eq!(p.globals[0].name, "limit");
    }

    #[test]
    fn origins_ignore_layout_and_the_own_name() {
        let old =
            "class A { static int[] T = new int[2];\n static { T[0] = 1; /* one */ T[1] = 2; } }";
        let new =
            "class A { static int[] u = new int[ 2 ];\n static {\n  u[0] = 1;\n  u[1] = 2;\n } }";
        let (o, n) = (
            crate::lang::lower(Lang::Java, old),
            crate::lang::lower(Lang::Java, new),
        );
        assert!(o.globals[0].origin.is_some());
        assert_eq!(o.globals[0].origin, n.globals[0].origin);
    }

    fn kept(lang: Lang, old: &str, new: &str) -> Vec<(String, bool)> {
        let (o, n) = (crate::lang::lower(lang, old), crate::lang::lower(lang, new));
        let Some((o, _, _)) = keep_initial_values(&o, &n, &[]) else {
            return Vec::new();
        };
        o.globals
            .iter()
            .filter(|g| g.initial.is_some())
            .map(|g| (g.name.clone(), g.constant.is_some()))
            .collect()
    }

    #[test]
    fn an_unwritten_field_keeps_its_initial_value_and_a_written_one_does_not() {
        let src = "class A { static int[] T = {1, 2}; static int n = 3; static int m; \
                   static int f(int i) { return T[i] + n + m; } \
                   static void g() { m = 4; } }";
        assert_eq!(
            kept(Lang::Java, src, src),
            vec![
                ("T".to_string(), true),
                ("n".to_string(), true),
                ("m".to_string(), false)
            ]
        );
    }

    #[test]
    fn an_escaping_array_or_a_field_named_in_unlowered_code_stays_an_input() {
        // `h` passes T on (an alias could write it); the constructor is not
        // lowered and names n.
        let src = "class A { static int[] T = {1, 2}; static int n = 3; \
                   A() { n = 5; } \
                   static int h(int[] a) { a[0] = 9; return 0; } \
                   static int f(int i) { h(T); return T[i] + n; } }";
        assert!(kept(Lang::Java, src, src).iter().all(|(_, kept)| !kept));
    }

    #[test]
    fn a_field_written_in_one_version_only_is_an_input_in_both() {
        let old = "static int k = 2; int f(int x) { return x * k; }";
        let new = "static int k = 2; int f(int x) { return x * k; } void s(void) { k = 1; }";
        assert!(kept(Lang::C, old, new).is_empty());
        let plain = "static int k = 2; int f(int x) { return x * k; }";
        assert_eq!(kept(Lang::C, plain, plain), vec![("k".to_string(), true)]);
    }

    #[test]
    fn a_declared_written_outside_field_stays_an_input() {
        let src = "int k = 2; int f(int x) { return x * k; }";
        let p = crate::lang::lower(Lang::C, src);
        assert!(keep_initial_values(&p, &p, &["k".to_string()]).is_none());
        let (o, _, outside) = keep_initial_values(&p, &p, &[]).expect("kept");
        assert!(o.globals[0].constant.is_some());
        assert_eq!(outside, ["k"]);
    }
}
