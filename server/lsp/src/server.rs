//! The LSP front: documents, baselines, scheduling, and every conversion
//! between the core's plain data and LSP types.
//!
//! Concurrency model: handlers never block. An edit bumps the document's
//! generation and spawns a debounced task; that task resolves the
//! baseline, plans on a blocking thread, and spawns one job per changed
//! method. Jobs take a permit of a bounded pool and run on a blocking
//! thread each (a Z3 context lives on one thread). Results always go into
//! the cache (keyed by content and options, so undo is instant); they are
//! published only if the document has not moved on.

use crate::analysis::{self, CheckResult, MethodId, Planned, RelOverride};
use crate::baseline::{self, Baseline};
use crate::config::{BaselineMode, LensVerbosity, Settings};
use crate::render;
use crate::text;
use dashmap::DashMap;
use eqlens_core::check::{OverrideAction, Verdict};
use eqlens_core::ir::{Lang, Program};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::Semaphore;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

pub const CMD_PIN: &str = "eqlens.pinBaseline";
pub const CMD_UNPIN: &str = "eqlens.unpinBaseline";
pub const CMD_ABSTRACT: &str = "eqlens.abstractBlock";
pub const CMD_REFINE: &str = "eqlens.refineBlock";
pub const CMD_CLEAR: &str = "eqlens.clearOverrides";
pub const CMD_RECHECK: &str = "eqlens.recheck";
pub const CMD_DETAILS: &str = "eqlens.showDetails";
const COMMANDS: &[&str] = &[
    CMD_PIN,
    CMD_UNPIN,
    CMD_ABSTRACT,
    CMD_REFINE,
    CMD_CLEAR,
    CMD_RECHECK,
    CMD_DETAILS,
];

/// What is shown for one method.
#[derive(Clone, Debug)]
enum MethodState {
    Unchanged,
    Pending,
    Done(Arc<CheckResult>),
}

#[derive(Clone, Debug)]
struct MethodView {
    m: Planned,
    state: MethodState,
}

/// What was last planned for a document: all LSP answers are computed from
/// it (with the texts it was computed on, so positions stay consistent even
/// while a newer version is being checked).
#[derive(Clone, Debug, Default)]
struct View {
    version: i32,
    new_text: Arc<str>,
    old_text: Option<Arc<str>>,
    baseline_label: String,
    /// Where related information about the baseline points.
    baseline_uri: Option<Uri>,
    /// Why nothing is checked (no baseline, not Java or C, too large).
    note: Option<String>,
    methods: Vec<MethodView>,
}

struct Doc {
    uri: Uri,
    text: String,
    version: i32,
    lang: Option<Lang>,
    path: Option<PathBuf>,
    generation: u64,
    /// Resolved baseline; `None` until fetched (refetched after settings
    /// change or `eqlens.recheck`).
    baseline: Option<Baseline>,
    pin: Option<Arc<str>>,
    overrides: HashMap<MethodId, Vec<RelOverride>>,
    loop_bound: Option<u32>,
    view: Arc<View>,
}

struct Inner {
    client: Client,
    docs: DashMap<Uri, Doc>,
    cache: DashMap<u64, Arc<CheckResult>>,
    settings: RwLock<Settings>,
    /// Bounds concurrent Z3 jobs: the editor stays responsive under typing.
    pool: Arc<Semaphore>,
    lens_refresh: AtomicBool,
    /// Settings problems found in `initialize`, shown once `initialized`.
    startup_problems: std::sync::Mutex<Vec<String>>,
}

pub struct Backend {
    inner: Arc<Inner>,
}

/// `eqlens/status`: the state of one document, for status bars and tests.
pub enum StatusNotification {}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusParams {
    pub uri: Uri,
    pub version: i32,
    /// `checking` while jobs run, `done`, or `idle` (nothing to check: see
    /// `note`).
    pub state: String,
    pub baseline: Option<String>,
    pub note: Option<String>,
    pub changed: usize,
    pub equivalent: usize,
    pub not_equivalent: usize,
    pub unknown: usize,
    pub pending: usize,
}

impl Notification for StatusNotification {
    type Params = StatusParams;
    const METHOD: &'static str = "eqlens/status";
}

#[derive(Debug, Deserialize)]
pub struct BaselineParams {
    pub uri: Uri,
}

#[derive(Debug, Serialize)]
pub struct BaselineResponse {
    /// `null` when there is no baseline (see `reason`).
    pub text: Option<String>,
    pub label: Option<String>,
    pub reason: Option<String>,
}

/// Arguments of the commands (one JSON object).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CommandArgs {
    uri: Uri,
    method: Option<String>,
    arity: Option<usize>,
    first_line: Option<u32>,
    last_line: Option<u32>,
    loop_bound: Option<u32>,
}

fn invalid(msg: impl Into<String>) -> Error {
    Error::invalid_params(msg.into())
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        let workers = std::thread::available_parallelism()
            .map(|n| n.get().saturating_sub(1))
            .unwrap_or(1)
            .max(1);
        Backend {
            inner: Arc::new(Inner {
                client,
                docs: DashMap::new(),
                cache: DashMap::new(),
                settings: RwLock::new(Settings::default()),
                pool: Arc::new(Semaphore::new(workers)),
                lens_refresh: AtomicBool::new(false),
                startup_problems: Default::default(),
            }),
        }
    }

    /// `eqlens/baseline`: the baseline text, for a diff view.
    pub async fn baseline(&self, p: BaselineParams) -> Result<BaselineResponse> {
        let doc = self
            .inner
            .docs
            .get(&p.uri)
            .map(|d| (d.baseline.clone(), d.pin.clone()));
        let Some((b, pin)) = doc else {
            return Ok(BaselineResponse {
                text: None,
                label: None,
                reason: Some("document not open".into()),
            });
        };
        let b = match (pin, b) {
            (Some(pin), _) => Some(Baseline::Text {
                text: pin,
                label: "pinned".into(),
                file: None,
            }),
            (None, b) => b,
        };
        Ok(match b {
            Some(Baseline::Text { text, label, .. }) => BaselineResponse {
                text: Some(text.to_string()),
                label: Some(label),
                reason: None,
            },
            Some(Baseline::Missing { reason, .. }) => BaselineResponse {
                text: None,
                label: None,
                reason: Some(reason),
            },
            None => BaselineResponse {
                text: None,
                label: None,
                reason: Some("not resolved yet".into()),
            },
        })
    }
}

impl Inner {
    fn settings(&self) -> Settings {
        self.settings.read().map(|s| s.clone()).unwrap_or_default()
    }

    fn is_current(&self, uri: &Uri, generation: u64) -> bool {
        self.docs
            .get(uri)
            .is_some_and(|d| d.generation == generation)
    }

    /// Bumps the generation (superseding every job of the document) and
    /// starts a (debounced) check.
    fn schedule(self: &Arc<Self>, uri: &Uri, debounce: bool) {
        let generation = match self.docs.get_mut(uri) {
            Some(mut d) => {
                d.generation += 1;
                d.generation
            }
            None => return,
        };
        let me = self.clone();
        let uri = uri.clone();
        tokio::spawn(async move { me.check_document(uri, generation, debounce).await });
    }

    async fn resolve_baseline(&self, uri: &Uri) -> Baseline {
        let (path, pin) = match self.docs.get(uri) {
            Some(d) => (d.path.clone(), d.pin.clone()),
            None => return Baseline::missing("document closed", true),
        };
        if let Some(pin) = pin {
            return Baseline::Text {
                text: pin,
                label: "pinned".into(),
                file: None,
            };
        }
        let settings = self.settings();
        let Some(path) = path else {
            return Baseline::missing("not a file on disk: no baseline", true);
        };
        match settings.baseline {
            BaselineMode::Pinned => Baseline::missing(
                "no pinned baseline yet: run \"Pin current version as baseline\"",
                true,
            ),
            BaselineMode::Git => baseline::git(&path, &settings.git_ref).await,
            BaselineMode::Paired => {
                // The partner's unsaved text wins when it is open.
                if let Ok(partner) = baseline::paired_path(&path)
                    && let Some(text) = self
                        .docs
                        .iter()
                        .find(|d| d.path.as_ref() == Some(&partner))
                        .map(|d| d.text.clone())
                {
                    let label = partner
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    return Baseline::Text {
                        text: text.into(),
                        label,
                        file: Some(partner),
                    };
                }
                baseline::paired(&path).await
            }
        }
    }

    async fn check_document(self: Arc<Self>, uri: Uri, generation: u64, debounce: bool) {
        let settings = self.settings();
        if debounce && settings.debounce_ms > 0 {
            tokio::time::sleep(Duration::from_millis(settings.debounce_ms)).await;
        }
        if !self.is_current(&uri, generation) {
            return;
        }
        let needs_baseline = self.docs.get(&uri).is_some_and(|d| d.baseline.is_none());
        if needs_baseline {
            let b = self.resolve_baseline(&uri).await;
            if let Baseline::Missing {
                reason,
                quiet: false,
            } = &b
            {
                self.client
                    .log_message(MessageType::WARNING, format!("eqlens: {reason}"))
                    .await;
            }
            if let Some(mut d) = self.docs.get_mut(&uri) {
                d.baseline = Some(b);
            }
        }
        let Some((text, version, lang, base, overrides, loop_bound)) =
            self.docs.get(&uri).map(|d| {
                (
                    Arc::<str>::from(d.text.as_str()),
                    d.version,
                    d.lang,
                    d.baseline.clone(),
                    d.overrides.clone(),
                    d.loop_bound,
                )
            })
        else {
            return;
        };
        let mut view = View {
            version,
            new_text: text.clone(),
            ..View::default()
        };
        let (old_text, label, file) = match base {
            Some(Baseline::Text { text, label, file }) => (text, label, file),
            Some(Baseline::Missing { reason, .. }) => {
                view.note = Some(reason);
                self.install(&uri, generation, view).await;
                return;
            }
            None => return,
        };
        view.baseline_label = label;
        view.baseline_uri = baseline_uri(&uri, file.as_deref(), &view.baseline_label);
        view.old_text = Some(old_text.clone());
        let Some(lang) = lang else {
            view.note = Some("not a Java or C file".into());
            self.install(&uri, generation, view).await;
            return;
        };
        if text.len() > settings.max_file_bytes || old_text.len() > settings.max_file_bytes {
            view.note = Some(format!(
                "file larger than maxFileBytes ({} bytes): not checked",
                settings.max_file_bytes
            ));
            self.install(&uri, generation, view).await;
            return;
        }
        let planned = {
            let (o, n, s) = (old_text.clone(), text.clone(), settings.clone());
            tokio::task::spawn_blocking(move || {
                std::panic::catch_unwind(|| {
                    analysis::plan(lang, &o, &n, &s, loop_bound, &overrides)
                })
            })
            .await
        };
        let plan = match planned {
            Ok(Ok(p)) => p,
            _ => {
                view.note = Some("internal error while parsing (reported as a bug)".into());
                self.install(&uri, generation, view).await;
                return;
            }
        };
        let mut jobs = Vec::new();
        for m in plan.methods {
            let state = if m.unchanged {
                MethodState::Unchanged
            } else if let Some(r) = self.cache.get(&m.key) {
                MethodState::Done(r.clone())
            } else {
                jobs.push(m.clone());
                MethodState::Pending
            };
            view.methods.push(MethodView { m, state });
        }
        if !self.install(&uri, generation, view).await {
            return;
        }
        for m in jobs {
            let me = self.clone();
            let (uri, old, new) = (uri.clone(), plan.old.clone(), plan.new.clone());
            tokio::spawn(async move { me.job(uri, generation, old, new, m).await });
        }
    }

    /// Runs one method job on the pool.
    async fn job(
        self: Arc<Self>,
        uri: Uri,
        generation: u64,
        old: Arc<Program>,
        new: Arc<Program>,
        m: Planned,
    ) {
        let Ok(permit) = self.pool.clone().acquire_owned().await else {
            return;
        };
        // Superseded while waiting: not worth a thread (the new generation
        // plans its own job if the method still needs one).
        if !self.is_current(&uri, generation) {
            return;
        }
        // The core enforces the timeout itself; this guard only catches a
        // job that ignores it, so that the method does not stay pending.
        let guard =
            Duration::from_millis(m.options.timeout_ms.saturating_mul(2)) + Duration::from_secs(5);
        let m2 = m.clone();
        let handle = tokio::task::spawn_blocking(move || {
            let _permit = permit; // released when the thread is really free
            analysis::run(&old, &new, &m2)
        });
        let (result, cacheable) = match tokio::time::timeout(guard, handle).await {
            Ok(Ok(r)) => (r, true),
            Ok(Err(e)) => (
                CheckResult {
                    report: analysis::internal(&m, Duration::ZERO, &format!("job failed: {e}")),
                    changed: Vec::new(),
                },
                false,
            ),
            Err(_) => (
                CheckResult {
                    report: analysis::internal(
                        &m,
                        guard,
                        "the check did not stop at its timeout (abandoned)",
                    ),
                    changed: Vec::new(),
                },
                false,
            ),
        };
        let result = Arc::new(result);
        if cacheable {
            self.cache.insert(m.key, result.clone());
        }
        let updated = match self.docs.get_mut(&uri) {
            Some(mut d) if d.generation == generation => {
                let mut view = (*d.view).clone();
                for mv in &mut view.methods {
                    if mv.m.key == m.key {
                        mv.state = MethodState::Done(result.clone());
                    }
                }
                d.view = Arc::new(view);
                true
            }
            _ => false,
        };
        if updated {
            self.publish(&uri).await;
        }
    }

    /// Stores a view if the generation is still current, then publishes.
    async fn install(&self, uri: &Uri, generation: u64, view: View) -> bool {
        match self.docs.get_mut(uri) {
            Some(mut d) if d.generation == generation => d.view = Arc::new(view),
            _ => return false,
        }
        self.publish(uri).await;
        true
    }

    /// Diagnostics, status and a lens refresh for the document's view.
    async fn publish(&self, uri: &Uri) {
        let Some(view) = self.docs.get(uri).map(|d| d.view.clone()) else {
            return;
        };
        let diags = view
            .methods
            .iter()
            .filter_map(|mv| diagnostic(uri, &view, mv))
            .collect();
        self.client
            .publish_diagnostics(uri.clone(), diags, Some(view.version))
            .await;
        let count =
            |f: &dyn Fn(&MethodState) -> bool| view.methods.iter().filter(|m| f(&m.state)).count();
        let verdict = |f: fn(&Verdict) -> bool| move |s: &MethodState| matches!(s, MethodState::Done(r) if f(&r.report.verdict));
        let pending = count(&|s| matches!(s, MethodState::Pending));
        let status = StatusParams {
            uri: uri.clone(),
            version: view.version,
            state: if view.note.is_some() {
                "idle"
            } else if pending > 0 {
                "checking"
            } else {
                "done"
            }
            .into(),
            baseline: (!view.baseline_label.is_empty()).then(|| view.baseline_label.clone()),
            note: view.note.clone(),
            changed: count(&|s| !matches!(s, MethodState::Unchanged)),
            equivalent: count(&verdict(|v| matches!(v, Verdict::Equivalent(_)))),
            not_equivalent: count(&verdict(|v| matches!(v, Verdict::NotEquivalent(_)))),
            unknown: count(&verdict(|v| matches!(v, Verdict::Unknown(_)))),
            pending,
        };
        self.client
            .send_notification::<StatusNotification>(status)
            .await;
        if self.lens_refresh.load(Ordering::Relaxed) {
            let client = self.client.clone();
            // Not awaited here: the client answers when it likes.
            tokio::spawn(async move {
                let _ = client.code_lens_refresh().await;
            });
        }
    }
}

/// Where related information about the baseline points: the paired file,
/// or `eqlens-baseline:<path>?<label>`, a virtual document whose text the
/// `eqlens/baseline` request returns.
fn baseline_uri(doc: &Uri, file: Option<&std::path::Path>, label: &str) -> Option<Uri> {
    if let Some(f) = file {
        return Uri::from_file_path(f);
    }
    let s = doc.as_str();
    let rest = s.strip_prefix("file://")?;
    let label: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._~".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("eqlens-baseline://{rest}?{label}").parse().ok()
}

/// The changed statements the counterexample's new path goes through,
/// innermost first (a changed `if` is marked by the changed statement
/// inside it that ran).
fn changed_on_trace(r: &CheckResult) -> Vec<&analysis::ChangedStmt> {
    let Verdict::NotEquivalent(cex) = &r.report.verdict else {
        return Vec::new();
    };
    let on: Vec<_> = r
        .changed
        .iter()
        .filter(|c| cex.new.trace.contains(&c.new.line()))
        .collect();
    let inside = |a: &eqlens_core::ir::Span, b: &eqlens_core::ir::Span| {
        a != b && b.start.byte <= a.start.byte && a.end.byte <= b.end.byte
    };
    on.iter()
        .copied()
        .filter(|c| !on.iter().any(|d| inside(&d.new, &c.new)))
        .collect()
}

fn diagnostic(uri: &Uri, view: &View, mv: &MethodView) -> Option<Diagnostic> {
    let MethodState::Done(r) = &mv.state else {
        return None;
    };
    let text = &view.new_text;
    let name_range = text::range_of(text, mv.m.new_name_span);
    let old_loc = |span| {
        Some(Location {
            uri: view.baseline_uri.clone()?,
            range: text::range_of(view.old_text.as_deref()?, span),
        })
    };
    match &r.report.verdict {
        Verdict::NotEquivalent(cex) => {
            let on = changed_on_trace(r);
            let range = on
                .first()
                .map_or(name_range, |c| text::first_line_range(text, c.new));
            let mut related = Vec::new();
            if let Some(first) = on.first() {
                let (span, what) = match first.old {
                    Some(s) => (s, "this statement in the baseline"),
                    None => (
                        mv.m.old_span,
                        "the method in the baseline (statement added)",
                    ),
                };
                if let Some(location) = old_loc(span) {
                    related.push(DiagnosticRelatedInformation {
                        location,
                        message: format!("{what} ({})", view.baseline_label),
                    });
                }
            } else if let Some(location) = old_loc(mv.m.old_name_span) {
                related.push(DiagnosticRelatedInformation {
                    location,
                    message: format!("the method in the baseline ({})", view.baseline_label),
                });
            }
            for c in on.iter().skip(1).take(5) {
                related.push(DiagnosticRelatedInformation {
                    location: Location {
                        uri: uri.clone(),
                        range: text::first_line_range(text, c.new),
                    },
                    message: "also changed and on the counterexample's path".into(),
                });
            }
            Some(Diagnostic {
                range,
                severity: Some(DiagnosticSeverity::WARNING),
                code: Some(NumberOrString::String("not-equivalent".into())),
                source: Some("eqlens".into()),
                message: format!(
                    "{}({}) is not equivalent to the baseline ({}): {} → {}",
                    mv.m.name,
                    mv.m.arity,
                    view.baseline_label,
                    render::bindings(&cex.inputs),
                    render::cex_summary(cex)
                ),
                related_information: Some(related),
                ..Diagnostic::default()
            })
        }
        Verdict::Unknown(u) => Some(Diagnostic {
            range: name_range,
            severity: Some(DiagnosticSeverity::INFORMATION),
            code: Some(NumberOrString::String(
                if u.reason.is_unsupported() {
                    "unsupported"
                } else {
                    "unknown"
                }
                .into(),
            )),
            source: Some("eqlens".into()),
            message: format!(
                "equivalence of {}({}) not decided: {}",
                mv.m.name,
                mv.m.arity,
                render::unknown_reason(&u.reason, &u.detail)
            ),
            ..Diagnostic::default()
        }),
        Verdict::Equivalent(_) => None,
    }
}

/// One-based line range of an LSP range (a selection ending at column 0
/// does not include that line).
fn line_range(r: Range) -> (u32, u32) {
    let first = r.start.line + 1;
    let mut last = r.end.line + 1;
    if r.end.character == 0 && r.end.line > r.start.line {
        last -= 1;
    }
    (first, last.max(first))
}

fn method_at(view: &View, line0: u32) -> Option<&MethodView> {
    view.methods
        .iter()
        .find(|mv| mv.m.new_span.start.line <= line0 && line0 <= mv.m.new_span.end.line)
}

fn command(title: impl Into<String>, name: &str, args: Value) -> Command {
    Command {
        title: title.into(),
        command: name.into(),
        arguments: Some(vec![args]),
    }
}

impl Backend {
    fn view(&self, uri: &Uri) -> Option<Arc<View>> {
        self.inner.docs.get(uri).map(|d| d.view.clone())
    }

    /// Stores an override for a method (lines are one-based, of the current
    /// text) and re-checks.
    fn add_override(&self, a: &CommandArgs, action: OverrideAction) -> Result<Option<Value>> {
        let (Some(method), Some(arity), Some(first), Some(last)) =
            (&a.method, a.arity, a.first_line, a.last_line)
        else {
            return Err(invalid(
                "expected {uri, method, arity, firstLine, lastLine}",
            ));
        };
        if first == 0 || first > last {
            return Err(invalid(
                "firstLine and lastLine: one-based, firstLine <= lastLine",
            ));
        }
        {
            let mut d = self
                .inner
                .docs
                .get_mut(&a.uri)
                .ok_or_else(|| invalid("document not open"))?;
            let mv = d
                .view
                .methods
                .iter()
                .find(|mv| &mv.m.name == method && mv.m.arity == arity)
                .ok_or_else(|| invalid(format!("no checked method {method}({arity})")))?;
            let start = mv.m.new_span.line();
            let end = mv.m.new_span.end.line + 1;
            let (f, l) = (first.max(start), last.min(end));
            if f > l {
                return Err(invalid(format!(
                    "lines {first}-{last} are outside {method}"
                )));
            }
            let list = d.overrides.entry((method.clone(), arity)).or_default();
            let o = RelOverride {
                action,
                first: f - start,
                last: l - start,
            };
            // A newer override of the same lines replaces the older one.
            list.retain(|x| (x.first, x.last) != (o.first, o.last));
            list.push(o);
        }
        self.inner.schedule(&a.uri, false);
        Ok(None)
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        if let Some(opts) = &params.initialization_options
            && let Ok(mut s) = self.inner.settings.write()
        {
            let problems = s.update(opts);
            if let Ok(mut p) = self.inner.startup_problems.lock() {
                *p = problems;
            }
        }
        let refresh = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false);
        self.inner.lens_refresh.store(refresh, Ordering::Relaxed);
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: COMMANDS.iter().map(|c| c.to_string()).collect(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "eqlens".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let problems = self
            .inner
            .startup_problems
            .lock()
            .map(|mut p| std::mem::take(&mut *p))
            .unwrap_or_default();
        for p in problems {
            self.inner
                .client
                .show_message(MessageType::WARNING, p)
                .await;
        }
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, p: DidOpenTextDocumentParams) {
        let doc = p.text_document;
        let path = doc.uri.to_file_path().map(|p| p.into_owned());
        let lang = match doc.language_id.as_str() {
            "java" => Some(Lang::Java),
            "c" => Some(Lang::C),
            _ => path
                .as_ref()
                .and_then(|p| eqlens_core::lang::lang_of_path(&p.to_string_lossy())),
        };
        self.inner.docs.insert(
            doc.uri.clone(),
            Doc {
                uri: doc.uri.clone(),
                text: doc.text,
                version: doc.version,
                lang,
                path,
                generation: 0,
                baseline: None,
                pin: None,
                overrides: HashMap::new(),
                loop_bound: None,
                view: Arc::default(),
            },
        );
        self.inner.schedule(&doc.uri, false);
        self.reschedule_partners_of(&doc.uri);
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        let uri = p.text_document.uri;
        {
            let Some(mut d) = self.inner.docs.get_mut(&uri) else {
                return;
            };
            for c in &p.content_changes {
                text::apply_change(&mut d.text, c);
            }
            d.version = p.text_document.version;
        }
        self.inner.schedule(&uri, true);
        self.reschedule_partners_of(&uri);
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        if let Some((uri, _)) = self.inner.docs.remove(&p.text_document.uri) {
            self.inner
                .client
                .publish_diagnostics(uri, Vec::new(), None)
                .await;
        }
    }

    async fn did_change_configuration(&self, p: DidChangeConfigurationParams) {
        let problems = match self.inner.settings.write() {
            Ok(mut s) => s.update(&p.settings),
            Err(_) => vec!["eqlens: settings unavailable".into()],
        };
        for msg in problems {
            self.inner
                .client
                .show_message(MessageType::ERROR, msg)
                .await;
        }
        let uris: Vec<Uri> = self.inner.docs.iter().map(|d| d.uri.clone()).collect();
        for uri in uris {
            if let Some(mut d) = self.inner.docs.get_mut(&uri) {
                d.baseline = None;
            }
            self.inner.schedule(&uri, false);
        }
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let Some(view) = self.view(&p.text_document.uri) else {
            return Ok(None);
        };
        let verbosity = self.inner.settings().lens;
        if verbosity == LensVerbosity::Off {
            return Ok(Some(Vec::new()));
        }
        let lenses = view
            .methods
            .iter()
            .filter_map(|mv| {
                let title = match &mv.state {
                    MethodState::Unchanged if verbosity == LensVerbosity::All => "unchanged".into(),
                    MethodState::Unchanged => return None,
                    MethodState::Pending => "… checking".into(),
                    MethodState::Done(r) => render::lens_title(&r.report),
                };
                let line = text::position_of(&view.new_text, mv.m.new_span.start).line;
                Some(CodeLens {
                    range: Range::new(Position::new(line, 0), Position::new(line, 0)),
                    command: Some(command(
                        title,
                        CMD_DETAILS,
                        json!({"uri": p.text_document.uri, "method": mv.m.name, "arity": mv.m.arity}),
                    )),
                    data: None,
                })
            })
            .collect();
        Ok(Some(lenses))
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        let pos = p.text_document_position_params;
        let Some(view) = self.view(&pos.text_document.uri) else {
            return Ok(None);
        };
        let line = pos.position.line;
        let found = view.methods.iter().find(|mv| {
            let on_head = mv.m.new_span.start.line <= line && line <= mv.m.new_name_span.start.line;
            let on_diag = matches!(&mv.state, MethodState::Done(r)
                if changed_on_trace(r).iter().any(|c| c.new.start.line == line));
            on_head || on_diag
        });
        let Some(mv) = found else {
            return Ok(None);
        };
        let value = match &mv.state {
            MethodState::Done(r) => render::hover_markdown(r, &view.baseline_label),
            MethodState::Pending => format!("**{}({})**: checking…", mv.m.name, mv.m.arity),
            MethodState::Unchanged => format!(
                "**{}({})**: unchanged since the baseline ({}), modulo formatting and renaming",
                mv.m.name, mv.m.arity, view.baseline_label
            ),
        };
        Ok(Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: Some(text::range_of(&view.new_text, mv.m.new_name_span)),
        }))
    }

    async fn code_action(&self, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = p.text_document.uri;
        let Some(view) = self.view(&uri) else {
            return Ok(None);
        };
        let mut actions = Vec::new();
        let mut add = |c: Command| {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: c.title.clone(),
                kind: Some(CodeActionKind::EMPTY),
                command: Some(c),
                ..CodeAction::default()
            }))
        };
        if let Some(mv) = method_at(&view, p.range.start.line)
            && !matches!(mv.state, MethodState::Unchanged)
        {
            let (first, last) = line_range(p.range);
            let lines = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}-{last}")
            };
            let args = json!({"uri": uri, "method": mv.m.name, "arity": mv.m.arity,
                              "firstLine": first, "lastLine": last});
            add(command(
                format!("Abstract this block ({lines})"),
                CMD_ABSTRACT,
                args.clone(),
            ));
            add(command(
                format!("Refine this block ({lines})"),
                CMD_REFINE,
                args,
            ));
            let bound = mv.m.options.loop_bound.saturating_mul(2);
            add(command(
                format!("Re-check with a larger loop bound ({bound})"),
                CMD_RECHECK,
                json!({"uri": uri, "loopBound": bound}),
            ));
        }
        add(command(
            "Pin current version as baseline",
            CMD_PIN,
            json!({"uri": uri}),
        ));
        Ok(Some(actions))
    }

    async fn execute_command(&self, p: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        let arg = p.arguments.into_iter().next().unwrap_or(Value::Null);
        let a: CommandArgs = serde_json::from_value(arg)
            .map_err(|e| invalid(format!("{}: bad arguments: {e}", p.command)))?;
        if !self.inner.docs.contains_key(&a.uri) {
            return Err(invalid("document not open"));
        }
        match p.command.as_str() {
            CMD_PIN | CMD_UNPIN => {
                if let Some(mut d) = self.inner.docs.get_mut(&a.uri) {
                    d.pin = (p.command == CMD_PIN).then(|| d.text.as_str().into());
                    d.baseline = None;
                }
                self.inner.schedule(&a.uri, false);
                Ok(None)
            }
            CMD_ABSTRACT => self.add_override(&a, OverrideAction::Abstract),
            CMD_REFINE => self.add_override(&a, OverrideAction::Refine),
            CMD_CLEAR => {
                if let Some(mut d) = self.inner.docs.get_mut(&a.uri) {
                    match (&a.method, a.arity) {
                        (Some(m), Some(n)) => {
                            d.overrides.remove(&(m.clone(), n));
                        }
                        _ => d.overrides.clear(),
                    }
                }
                self.inner.schedule(&a.uri, false);
                Ok(None)
            }
            CMD_RECHECK => {
                if let Some(k) = a.loop_bound
                    && !(1..=10_000).contains(&k)
                {
                    return Err(invalid("loopBound must be in 1..=10000"));
                }
                if let Some(mut d) = self.inner.docs.get_mut(&a.uri) {
                    d.baseline = None;
                    if a.loop_bound.is_some() {
                        d.loop_bound = a.loop_bound;
                    }
                }
                self.inner.schedule(&a.uri, false);
                Ok(None)
            }
            CMD_DETAILS => {
                let view = self.view(&a.uri).unwrap_or_default();
                let mv = view
                    .methods
                    .iter()
                    .find(|mv| Some(&mv.m.name) == a.method.as_ref() && Some(mv.m.arity) == a.arity)
                    .ok_or_else(|| invalid("no such method"))?;
                match &mv.state {
                    MethodState::Done(r) => {
                        let msg = match &r.report.verdict {
                            Verdict::NotEquivalent(c) => format!(
                                "{}: {} → {}",
                                render::lens_title(&r.report),
                                render::bindings(&c.inputs),
                                render::cex_summary(c)
                            ),
                            _ => render::lens_title(&r.report),
                        };
                        self.inner.client.show_message(MessageType::INFO, msg).await;
                        Ok(Some(json!({
                            "markdown": render::hover_markdown(r, &view.baseline_label),
                            "report": r.report,
                        })))
                    }
                    _ => Ok(None),
                }
            }
            other => Err(invalid(format!("unknown command {other}"))),
        }
    }
}

impl Backend {
    /// In paired mode a document is the baseline of its partner: editing it
    /// re-checks the partner.
    fn reschedule_partners_of(&self, uri: &Uri) {
        if self.inner.settings().baseline != BaselineMode::Paired {
            return;
        }
        let Some(path) = self.inner.docs.get(uri).and_then(|d| d.path.clone()) else {
            return;
        };
        let partners: Vec<Uri> = self
            .inner
            .docs
            .iter()
            .filter(|d| {
                d.path.as_ref().and_then(|p| baseline::paired_path(p).ok()) == Some(path.clone())
            })
            .map(|d| d.uri.clone())
            .collect();
        for u in partners {
            if let Some(mut d) = self.inner.docs.get_mut(&u) {
                d.baseline = None;
            }
            self.inner.schedule(&u, true);
        }
    }
}
