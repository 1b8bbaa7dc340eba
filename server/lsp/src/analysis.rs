//! The blocking side: lowering a document pair, planning one job per
//! changed method pair, and running a job. Everything here runs on a
//! blocking thread (Z3 contexts are thread-local: one job, one thread) and
//! knows nothing of LSP.

use crate::config::Settings;
use eqlens_core::cancel::Cancellation;
use eqlens_core::check::progressive::check_pair_progressively;
use eqlens_core::check::{
    MethodPair, MethodReport, Options, Override, OverrideAction, Selection, Unknown, UnknownReason,
    Verdict, pairing,
};
use eqlens_core::ir::{FuncId, Lang, Program, Span};
use eqlens_core::lang::Parsed;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

/// A method is identified across edits by its key (qualified name, with
/// parameter types among overloads: `eqlens_core::check::pairing::keys`)
/// and arity, as the core pairs methods.
pub type MethodId = (String, usize);

/// A user override, stored relative to the method's first line so that it
/// follows the method when lines are inserted above it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RelOverride {
    pub action: OverrideAction,
    pub first: u32,
    pub last: u32,
}

/// One method pair of a document, ready to check.
#[derive(Clone, Debug)]
pub struct Planned {
    pub name: String,
    pub arity: usize,
    /// What editors' commands name it by (with `arity`, see [`MethodId`]).
    pub id: String,
    /// How it is named to the user (`f(2)`, `B.f(1)`, `f(int, long)`).
    pub label: String,
    pub old: FuncId,
    pub new: FuncId,
    pub old_span: Span,
    pub old_name_span: Span,
    pub new_span: Span,
    pub new_name_span: Span,
    /// Equal modulo renaming and formatting, callees included: no job.
    pub unchanged: bool,
    /// Its own text differs from the baseline's (not only a callee's):
    /// what the user just edited, whose verdict is awaited first.
    pub edited: bool,
    /// The cache key: both versions' method text and context, options.
    pub key: u64,
    pub options: Options,
}

impl Planned {
    /// Whether an editor's command that names `method` with `arity` means
    /// this method (commands carry [`Planned::id`]).
    pub fn is(&self, method: &str, arity: usize) -> bool {
        self.id == method && self.arity == arity
    }
}

pub struct Plan {
    pub old: Arc<Program>,
    pub new: Arc<Program>,
    pub methods: Vec<Planned>,
}

/// A version of a document lowered lately, kept so that returning to it
/// (undo, redo) costs no parsing.
#[derive(Clone)]
pub struct Lowered {
    pub text: Arc<str>,
    pub program: Arc<Program>,
    pub parsed: Option<Parsed>,
}

/// How many recent versions a document keeps lowered.
pub const RECENT_VERSIONS: usize = 4;

/// Both versions of a document, lowered.
pub struct Versions {
    pub old: Arc<Program>,
    pub new: Arc<Program>,
    /// The new version's syntax tree, for the next incremental parse.
    pub parsed: Option<Parsed>,
}

/// Lowers both versions, reusing what the document kept: the baseline's
/// program when its text has not changed (it rarely does), and the edited
/// syntax tree of the previous version for an incremental parse.
pub fn lower_versions(
    lang: Lang,
    old_text: &Arc<str>,
    new_text: &str,
    kept_old: Option<(Arc<str>, Arc<Program>)>,
    previous: Option<&Parsed>,
    recent: &[Lowered],
) -> Versions {
    let old = match kept_old {
        Some((text, program)) if text == *old_text && program.lang == lang => program,
        _ => Arc::new(eqlens_core::lang::lower(lang, old_text)),
    };
    // Undo, redo, or switching back: this very text was lowered lately.
    if let Some(hit) = recent
        .iter()
        .find(|r| &*r.text == new_text && r.program.lang == lang)
    {
        return Versions {
            old,
            new: hit.program.clone(),
            parsed: hit.parsed.clone(),
        };
    }
    let parsed = eqlens_core::lang::parse(lang, new_text, previous);
    let new = Arc::new(match &parsed {
        Some(p) => eqlens_core::lang::lower_parsed(p, new_text),
        None => eqlens_core::lang::lower(lang, new_text),
    });
    Versions { old, new, parsed }
}

/// Plans a job per method pair of the two lowered versions.
pub fn plan(
    lang: Lang,
    versions: &Versions,
    old_text: &str,
    new_text: &str,
    settings: &Settings,
    loop_bound: Option<u32>,
    overrides: &FxHashMap<MethodId, Vec<RelOverride>>,
) -> Plan {
    let (old, new) = (versions.old.clone(), versions.new.clone());
    let unchanged = eqlens_core::abstraction::canonical::Unchanged::compute(&old, &new);
    let pairing = pairing::pair_functions(&old, &new, &Selection::All);
    let (ids, labels) = (pairing::keys(&new), pairing::labels(&new));
    let mut base = settings.options();
    if let Some(k) = loop_bound {
        base.loop_bound = k;
    }
    let methods = pairing
        .pairs
        .iter()
        .map(|&(o, n)| {
            let (of, nf) = (old.function(o), new.function(n));
            let mut options = base.clone();
            let first = nf.span.line();
            let id = ids.get(n.0 as usize).cloned().unwrap_or_default();
            if let Some(list) = overrides.get(&(id.clone(), nf.arity)) {
                options.overrides = list
                    .iter()
                    .map(|r| Override {
                        action: r.action,
                        first_line: first + r.first,
                        last_line: first + r.last,
                    })
                    .collect();
            }
            let mut h = DefaultHasher::new();
            lang.hash(&mut h);
            context_hash(&old, old_text, o, &mut h);
            context_hash(&new, new_text, n, &mut h);
            options.hash(&mut h);
            Planned {
                name: nf.name.clone(),
                arity: nf.arity,
                id,
                label: labels.get(n.0 as usize).cloned().unwrap_or_default(),
                old: o,
                new: n,
                old_span: of.span,
                old_name_span: of.name_span,
                new_span: nf.span,
                new_name_span: nf.name_span,
                unchanged: unchanged.partner(o) == Some(n),
                edited: old_text.get(of.span.start.byte as usize..of.span.end.byte as usize)
                    != new_text.get(nf.span.start.byte as usize..nf.span.end.byte as usize),
                key: h.finish(),
                options,
            }
        })
        .collect();
    Plan { old, new, methods }
}

/// Hashes what a method's verdict (and the positions in it) depends on:
/// its text, position and lowered form, those of every function it
/// reaches, and the globals. Editing another method leaves the hash alone; undo restores
/// it.
fn context_hash(p: &Program, text: &str, f: FuncId, h: &mut DefaultHasher) {
    let mut seen = BTreeSet::new();
    let mut stack = vec![f];
    while let Some(g) = stack.pop() {
        if (g.0 as usize) >= p.functions.len() || !seen.insert(g) {
            continue;
        }
        if let Ok(body) = &p.function(g).body {
            stack.extend(eqlens_core::diff::callees(body));
        }
    }
    let slice = |s: Span| text.get(s.start.byte as usize..s.end.byte as usize);
    for g in seen {
        let d = p.function(g);
        (
            g == f,
            &d.name,
            d.arity,
            d.span.start.line,
            d.span.start.col,
        )
            .hash(h);
        slice(d.span).hash(h);
        // What the text alone does not show: macros, enum constants,
        // typedefs and imports defined outside the function change its
        // lowered form (and so its verdict) without changing its text.
        format!("{:?}", d.body).hash(h);
    }
    for g in &p.globals {
        (g.span.start.line, slice(g.span)).hash(h);
    }
}

/// A changed statement of the new version and its partner in the old one.
#[derive(Clone, Debug)]
pub struct ChangedStmt {
    pub new: Span,
    pub old: Option<Span>,
}

/// A finished job.
#[derive(Clone, Debug)]
pub struct CheckResult {
    pub report: MethodReport,
    /// Changed statements of the new version (only computed for a
    /// counterexample: diagnostics mark those its path goes through).
    pub changed: Vec<ChangedStmt>,
}

/// What a job tells the scheduler as it goes.
pub enum JobEvent {
    /// A fast verdict that a stronger checker may still improve.
    Interim(CheckResult),
    /// The job's last word (`None` when it was cancelled).
    Final(Option<CheckResult>),
}

/// Runs one job, progressively (see `eqlens_core::check::progressive`):
/// `send` gets each interim verdict and then the final one. A panic
/// anywhere in the core becomes this method's `unknown` (the server and
/// the other methods are unaffected).
pub fn run(
    old: &Program,
    new: &Program,
    m: &Planned,
    token: &Cancellation,
    mut send: impl FnMut(JobEvent),
) {
    let start = std::time::Instant::now();
    let pair = MethodPair::new(&m.name, old, m.old, new, m.new);
    let with_changes = |report: MethodReport| {
        let changed = if matches!(report.verdict, Verdict::NotEquivalent(_)) {
            catch_unwind(AssertUnwindSafe(|| changed_stmts(old, new, m))).unwrap_or_default()
        } else {
            Vec::new()
        };
        CheckResult { report, changed }
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        check_pair_progressively(&pair, &m.options, token, |interim| {
            send(JobEvent::Interim(with_changes(interim.clone())))
        })
    }));
    let last = match outcome {
        Ok(report) => report,
        Err(panic) => Some(internal(
            m,
            start.elapsed(),
            &format!("the checker panicked: {}", panic_text(&panic)),
        )),
    };
    send(JobEvent::Final(last.map(with_changes)));
}

fn changed_stmts(old: &Program, new: &Program, m: &Planned) -> Vec<ChangedStmt> {
    let (Ok(fo), Ok(fnew)) = (&old.function(m.old).body, &new.function(m.new).body) else {
        return Vec::new();
    };
    let cx = eqlens_core::diff::DiffContext::for_programs(old, new);
    let d = eqlens_core::diff::diff_functions_in(&cx, fo, fnew);
    d.new
        .iter()
        .filter(|e| e.status == eqlens_core::diff::StmtStatus::Changed)
        .map(|e| ChangedStmt {
            new: e.span,
            old: e.partner,
        })
        .collect()
}

/// A report for a job that failed outside the checker's own error handling.
pub fn internal(m: &Planned, time: Duration, detail: &str) -> MethodReport {
    MethodReport {
        name: m.name.clone(),
        arity: m.arity,
        qualified: m.id.clone(),
        label: m.label.clone(),
        old_span: m.old_name_span,
        new_span: m.new_name_span,
        verdict: Verdict::Unknown(Unknown {
            reason: UnknownReason::Internal,
            detail: detail.to_string(),
        }),
        checker: m.options.checker,
        decided_by: None,
        abstraction: None,
        semantics: m.options.semantics,
        loop_bound: m.options.loop_bound,
        time,
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "class A {\n  static int f(int a) { return a + 1; }\n  static int g(int a) { return a * 2; }\n}\n";

    /// Lowers from scratch and plans with default settings.
    fn plan_of(old: &str, new: &str) -> Plan {
        plan_in(Lang::Java, old, new)
    }

    fn plan_in(lang: Lang, old: &str, new: &str) -> Plan {
        let versions = lower_versions(lang, &Arc::from(old), new, None, None, &[]);
        plan(
            lang,
            &versions,
            old,
            new,
            &Settings::default(),
            None,
            &FxHashMap::default(),
        )
    }

    fn keys(new: &str) -> Vec<(String, bool, u64)> {
        plan_of(OLD, new)
            .methods
            .into_iter()
            .map(|m| (m.name, m.unchanged, m.key))
            .collect()
    }

    #[test]
    fn editing_one_method_keeps_the_other_key() {
        let a = keys(OLD);
        assert!(a.iter().all(|m| m.1), "{a:?}");
        let b = keys(&OLD.replace("a * 2", "a + a"));
        assert_eq!(a[0], b[0]);
        assert_ne!(a[1].2, b[1].2);
        assert!(!b[1].1);
        // Undo: the same key again.
        assert_eq!(keys(OLD), a);
    }

    #[test]
    fn editing_a_macro_or_an_import_changes_the_users_key() {
        let key = |lang: Lang, old: &str, new: &str, name: &str| {
            plan_in(lang, old, new)
                .methods
                .into_iter()
                .find(|m| m.name == name)
                .map(|m| m.key)
                .expect("planned")
        };
        let c = "#define K 2\n#define TWICE(x) ((x) * K)\nint f(int a) { return TWICE(a); }\nint g(int a) { return a; }\n";
        let edited = c.replace("#define K 2", "#define K 3");
        assert_ne!(key(Lang::C, c, c, "f"), key(Lang::C, c, &edited, "f"));
        assert_eq!(key(Lang::C, c, c, "g"), key(Lang::C, c, &edited, "g"));
        let java = "import static a.B.h;\nclass A { static int f(int x) { return h(x); } }\n";
        let edited = java.replace("a.B.h", "c.D.h");
        assert_ne!(
            key(Lang::Java, java, java, "f"),
            key(Lang::Java, java, &edited, "f")
        );
    }

    /// Runs a job to the end; returns its interim and final results.
    fn events(p: &Plan, m: &Planned, token: &Cancellation) -> (usize, Option<CheckResult>) {
        let (mut interim, mut last) = (0, None);
        run(&p.old, &p.new, m, token, |e| match e {
            JobEvent::Interim(_) => interim += 1,
            JobEvent::Final(r) => last = r,
        });
        (interim, last)
    }

    #[test]
    fn a_panic_is_this_methods_unknown() {
        let p = plan_of(OLD, OLD);
        let mut m = p.methods[0].clone();
        m.new = FuncId(999); // out of range: the core indexes and panics
        let (_, r) = events(&p, &m, &Cancellation::new());
        let r = r.expect("a final result");
        assert!(
            matches!(&r.report.verdict, Verdict::Unknown(u) if u.reason == UnknownReason::Internal),
            "{:?}",
            r.report.verdict
        );
    }

    #[test]
    fn a_counterexample_marks_the_changed_statements_and_cancelling_yields_nothing() {
        let new = OLD.replace("a * 2", "a * 3");
        let p = plan_of(OLD, &new);
        let m = &p.methods[1];
        let (interim, r) = events(&p, m, &Cancellation::new());
        let r = r.expect("a final result");
        assert_eq!(interim, 0, "a counterexample is conclusive at once");
        assert!(matches!(r.report.verdict, Verdict::NotEquivalent(_)));
        assert_eq!(r.changed.len(), 1, "{:?}", r.changed);
        let token = Cancellation::new();
        token.cancel();
        assert!(events(&p, m, &token).1.is_none());
    }
}
