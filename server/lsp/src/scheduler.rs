//! Documents, views and scheduling: what is checked when, and what the
//! client is told while it happens.
//!
//! Concurrency model: handlers never block. An edit bumps the document's
//! generation and spawns a debounced task; that task resolves the
//! baseline, plans on a blocking thread, and installs a new [`View`]. Each
//! changed method that has no cached verdict needs a job, keyed by the hash
//! of both versions and the options: a job already running for that key
//! keeps running (editing one method does not restart the others), a
//! running job whose key no longer appears is cancelled (its Z3 query is
//! interrupted), and new keys get a new job. Jobs take a permit of a
//! bounded pool and run on a blocking thread each (a Z3 context lives on
//! one thread); they report a fast verdict first and the final one later.
//! Results go into the cache (so undo is instant) and into whichever view
//! of the document still shows that key.

use crate::analysis::{self, CheckResult, JobEvent, Lowered, MethodId, Planned, RelOverride};
use crate::baseline::{self, Baseline};
use crate::config::{BaselineMode, Settings};
use crate::convert;
use crate::protocol::{StatusNotification, StatusParams};
use dashmap::DashMap;
use eqlens_core::cancel::Cancellation;
use eqlens_core::ir::{Lang, Program};
use eqlens_core::lang::Parsed;
use rustc_hash::{FxHashMap, FxHashSet};

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::Semaphore;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::notification::Progress;
use tower_lsp_server::ls_types::*;

/// What is shown for one method.
#[derive(Clone, Debug)]
pub enum MethodState {
    Unchanged,
    Pending,
    /// A fast verdict; a stronger checker is still running.
    Interim(Arc<CheckResult>),
    Done(Arc<CheckResult>),
}

impl MethodState {
    /// Not final yet (counts as pending in statuses and progress).
    pub fn is_pending(&self) -> bool {
        matches!(self, MethodState::Pending | MethodState::Interim(_))
    }
}

#[derive(Clone, Debug)]
pub struct MethodView {
    pub m: Planned,
    pub state: MethodState,
}

/// What was last planned for a document: all LSP answers are computed from
/// it (with the texts it was computed on, so positions stay consistent even
/// while a newer version is being checked).
#[derive(Clone, Debug, Default)]
pub struct View {
    pub version: i32,
    pub new_text: Arc<str>,
    pub old_text: Option<Arc<str>>,
    pub baseline_label: String,
    /// Where related information about the baseline points.
    pub baseline_uri: Option<Uri>,
    /// Why nothing is checked (no baseline, not Java or C, too large).
    pub note: Option<String>,
    pub methods: Vec<MethodView>,
}

/// States of a job's thread (see `Inner::job`).
const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const ABANDONED: u8 = 2;

/// A job that is running (or waiting for a worker) for one key.
struct RunningJob {
    id: u64,
    token: Cancellation,
}

pub struct Doc {
    pub uri: Uri,
    pub text: String,
    pub version: i32,
    pub lang: Option<Lang>,
    pub path: Option<PathBuf>,
    pub generation: u64,
    /// Resolved baseline; `None` until fetched (refetched after settings
    /// change or `eqlens.recheck`).
    pub baseline: Option<Baseline>,
    pub pin: Option<Arc<str>>,
    pub overrides: FxHashMap<MethodId, Vec<RelOverride>>,
    pub loop_bound: Option<u32>,
    pub view: Arc<View>,
    running: FxHashMap<u64, RunningJob>,
    /// The syntax tree of the last parsed version, with the edits made
    /// since applied (see [`Doc::edit`]): the next parse is incremental.
    parsed: Option<Parsed>,
    /// The baseline's program and the text it was lowered from.
    old_program: Option<(Arc<str>, Arc<Program>)>,
    /// The last few versions lowered, newest first.
    recent: Vec<Lowered>,
}

impl Doc {
    pub fn new(uri: Uri, text: String, version: i32, lang: Option<Lang>) -> Doc {
        let path = uri.to_file_path().map(|p| p.into_owned());
        Doc {
            uri,
            text,
            version,
            lang,
            path,
            generation: 0,
            baseline: None,
            pin: None,
            overrides: FxHashMap::default(),
            loop_bound: None,
            view: Arc::default(),
            running: FxHashMap::default(),
            parsed: None,
            old_program: None,
            recent: Vec::new(),
        }
    }

    /// Applies one change of incremental sync to the text, and to the kept
    /// syntax tree (a whole-text replacement drops it).
    pub fn edit(&mut self, change: &TextDocumentContentChangeEvent) {
        match crate::text::apply_change(&mut self.text, change) {
            Some(e) => {
                if let Some(p) = &mut self.parsed {
                    p.edit(&e);
                }
            }
            None => self.parsed = None,
        }
    }

    /// Cancels every job of this document (it is closing).
    pub fn cancel_all(&mut self) {
        for (_, job) in self.running.drain() {
            job.token.cancel();
        }
    }
}

pub struct Inner {
    pub client: Client,
    pub docs: DashMap<Uri, Doc>,
    pub cache: DashMap<u64, Arc<CheckResult>>,
    /// Interim verdicts of running jobs, so that a view planned while the
    /// job runs (typing in another method) shows them too.
    interim: DashMap<u64, Arc<CheckResult>>,
    pub settings: RwLock<Settings>,
    /// Bounds concurrent Z3 jobs: the editor stays responsive under typing.
    pool: Arc<Semaphore>,
    pub lens_refresh: AtomicBool,
    /// The client accepts `window/workDoneProgress/create`.
    pub progress_supported: AtomicBool,
    /// Serialises each document's publications (see [`Inner::publish`]).
    publishing: DashMap<Uri, Arc<tokio::sync::Mutex<()>>>,
    /// The open `$/progress` of each document that is being checked.
    progress: tokio::sync::Mutex<FxHashMap<Uri, ProgressToken>>,
    next_id: AtomicU64,
    /// Settings problems found in `initialize`, shown once `initialized`.
    pub startup_problems: std::sync::Mutex<Vec<String>>,
    /// The workspace root (first workspace folder), where pins persist.
    pub root: RwLock<Option<PathBuf>>,
    /// The `eqlens.toml` problem last logged for each document: a broken
    /// file is logged once, not on every keystroke's check (the status
    /// note shows it each time).
    project_problems: DashMap<Uri, String>,
}

/// What a check copies out of its document before lowering it.
struct Snapshot {
    text: Arc<str>,
    version: i32,
    lang: Option<Lang>,
    base: Option<Baseline>,
    /// Where the document is saved: its `eqlens.toml` applies.
    path: Option<PathBuf>,
    kept: Kept,
}

/// What the document keeps for lowering and planning its versions: the
/// user's overrides and loop bound, and what the last check lowered.
struct Kept {
    overrides: FxHashMap<MethodId, Vec<RelOverride>>,
    loop_bound: Option<u32>,
    old_program: Option<(Arc<str>, Arc<Program>)>,
    parsed: Option<Parsed>,
    recent: Vec<Lowered>,
}

impl Inner {
    pub fn new(client: Client) -> Inner {
        let workers = std::thread::available_parallelism()
            .map(|n| n.get().saturating_sub(1))
            .unwrap_or(1)
            .max(1);
        Inner {
            client,
            docs: DashMap::new(),
            cache: DashMap::new(),
            interim: DashMap::new(),
            settings: RwLock::new(Settings::default()),
            pool: Arc::new(Semaphore::new(workers)),
            lens_refresh: AtomicBool::new(false),
            progress_supported: AtomicBool::new(false),
            progress: Default::default(),
            publishing: DashMap::new(),
            next_id: AtomicU64::new(1),
            startup_problems: Default::default(),
            root: RwLock::new(None),
            project_problems: DashMap::new(),
        }
    }

    pub fn root(&self) -> Option<PathBuf> {
        self.root.read().ok().and_then(|r| r.clone())
    }

    pub fn settings(&self) -> Settings {
        self.settings.read().map(|s| s.clone()).unwrap_or_default()
    }

    fn is_current(&self, uri: &Uri, generation: u64) -> bool {
        self.docs
            .get(uri)
            .is_some_and(|d| d.generation == generation)
    }

    /// Bumps the generation (superseding the document's pending plan) and
    /// starts a (debounced) check.
    pub fn schedule(self: &Arc<Self>, uri: &Uri, debounce: bool) {
        self.schedule_with(uri, debounce, false);
    }

    /// Like [`schedule`](Self::schedule), after forgetting the resolved
    /// baseline (a setting, pin or partner changed). The reset and the new
    /// generation are one step under the document's lock: a check of an
    /// older generation still resolving its baseline cannot store it in
    /// between, and the new check resolves the baseline afresh.
    pub fn schedule_rebased(self: &Arc<Self>, uri: &Uri, debounce: bool) {
        self.schedule_with(uri, debounce, true);
    }

    fn schedule_with(self: &Arc<Self>, uri: &Uri, debounce: bool, rebase: bool) {
        let generation = match self.docs.get_mut(uri) {
            Some(mut d) => {
                if rebase {
                    d.baseline = None;
                }
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
            BaselineMode::Git if !settings.run_git => Baseline::missing(
                "git is off (runGit: false, e.g. an untrusted workspace): no git baseline; use the pinned or paired mode",
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
        let mut settings = self.settings();
        if debounce && settings.debounce_ms > 0 {
            tokio::time::sleep(Duration::from_millis(settings.debounce_ms)).await;
        }
        if !self.is_current(&uri, generation) {
            return;
        }
        if !self.ensure_baseline(&uri, generation).await {
            return;
        }
        let Some(Snapshot {
            text,
            version,
            lang,
            base,
            path,
            kept,
        }) = self.snapshot(&uri)
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
        view.baseline_uri = convert::baseline_uri(&uri, file.as_deref(), &view.baseline_label);
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
        // Read per check, like the pairs (the file is small): an edit to
        // it applies on the next check, and its declarations are part of
        // each job's key.
        if let Some(path) = path
            && let Err(msg) = self.read_project(&uri, path, &mut settings).await
        {
            view.note = Some(msg);
            self.install(&uri, generation, view).await;
            return;
        }
        let Some(plan) = self
            .plan_versions(&uri, generation, lang, (&old_text, &text), &settings, kept)
            .await
        else {
            view.note = Some("internal error while parsing (reported as a bug)".into());
            self.install(&uri, generation, view).await;
            return;
        };
        let wanted = self.method_views(plan.methods, &mut view);
        let Some(mut start) = self.install_plan(&uri, generation, view, &wanted) else {
            return;
        };
        // The methods the user edited first, then those checked again only
        // because a callee changed (a helper called from every method of
        // a large class): the pool serves jobs in the order they ask, so
        // the verdict the user waits for does not queue behind its callers.
        start.sort_by_key(|(m, _, _)| !m.edited);
        self.publish(&uri).await;
        for (m, id, token) in start {
            let me = self.clone();
            let (uri, old, new) = (uri.clone(), plan.old.clone(), plan.new.clone());
            tokio::spawn(async move { me.job(uri, old, new, m, id, token).await });
        }
    }

    /// Resolves the document's baseline if it has none yet; `false` when
    /// the document is gone or this generation is superseded.
    async fn ensure_baseline(&self, uri: &Uri, generation: u64) -> bool {
        let needs_baseline = self.docs.get(uri).is_some_and(|d| d.baseline.is_none());
        if needs_baseline {
            let b = self.resolve_baseline(uri).await;
            if let Baseline::Missing {
                reason,
                quiet: false,
            } = &b
            {
                self.client
                    .log_message(MessageType::WARNING, format!("eqlens: {reason}"))
                    .await;
            }
            // A baseline resolved for a superseded generation may be the
            // wrong one (the setting changed while git ran): only the
            // current generation stores it.
            match self.docs.get_mut(uri) {
                Some(mut d) if d.generation == generation => d.baseline = Some(b),
                _ => return false,
            }
        }
        true
    }

    /// What a check needs of the document, copied out of it.
    fn snapshot(&self, uri: &Uri) -> Option<Snapshot> {
        self.docs.get(uri).map(|d| Snapshot {
            text: Arc::<str>::from(d.text.as_str()),
            version: d.version,
            lang: d.lang,
            base: d.baseline.clone(),
            path: d.path.clone(),
            kept: Kept {
                overrides: d.overrides.clone(),
                loop_bound: d.loop_bound,
                old_program: d.old_program.clone(),
                parsed: d.parsed.clone(),
                recent: d.recent.clone(),
            },
        })
    }

    /// `settings` with the project file's declarations at `path`; its
    /// problem (logged once while it stays the same) when it cannot be
    /// read.
    async fn read_project(
        &self,
        uri: &Uri,
        path: PathBuf,
        settings: &mut Settings,
    ) -> Result<(), String> {
        // A file read: off the event loop, like the planning.
        let read = tokio::task::spawn_blocking(move || crate::project::settings(&path))
            .await
            .unwrap_or_else(|e| Err(format!("reading eqlens.toml failed: {e}")));
        match read {
            Ok(project) => {
                self.project_problems.remove(uri);
                settings.callees = project.callees;
                settings.signed_overflow = project.signed_overflow;
                settings.written_outside = project.written_outside;
                Ok(())
            }
            Err(msg) => {
                let repeated = self
                    .project_problems
                    .insert(uri.clone(), msg.clone())
                    .is_some_and(|last| last == msg);
                if !repeated {
                    self.client
                        .log_message(MessageType::WARNING, format!("eqlens: {msg}"))
                        .await;
                }
                Err(msg)
            }
        }
    }

    /// Lowers both versions (`texts`: old, new) and plans their checks off
    /// the event loop, keeping in the document what the next check
    /// reuses; `None` when lowering or planning panicked.
    async fn plan_versions(
        &self,
        uri: &Uri,
        generation: u64,
        lang: Lang,
        (old_text, text): (&Arc<str>, &Arc<str>),
        settings: &Settings,
        kept: Kept,
    ) -> Option<analysis::Plan> {
        let Kept {
            overrides,
            loop_bound,
            old_program: kept_old,
            parsed: previous,
            recent,
        } = kept;
        let planned = {
            let (o, n, s) = (old_text.clone(), text.clone(), settings.clone());
            tokio::task::spawn_blocking(move || {
                std::panic::catch_unwind(|| {
                    let versions = analysis::lower_versions(
                        lang,
                        &o,
                        &n,
                        kept_old,
                        previous.as_ref(),
                        &recent,
                    );
                    let plan = analysis::plan(lang, &versions, &o, &n, &s, loop_bound, &overrides);
                    (plan, versions)
                })
            })
            .await
        };
        match planned {
            Ok(Ok((p, versions))) => {
                // Keep the baseline's program, and the new tree when no edit
                // arrived meanwhile (otherwise the document's tree, edited
                // since, is the right base for the next parse).
                if let Some(mut d) = self.docs.get_mut(uri) {
                    d.old_program = Some((old_text.clone(), versions.old.clone()));
                    d.recent.retain(|r| r.text != *text);
                    d.recent.insert(
                        0,
                        Lowered {
                            text: text.clone(),
                            program: versions.new.clone(),
                            parsed: versions.parsed.clone(),
                        },
                    );
                    d.recent.truncate(analysis::RECENT_VERSIONS);
                    if d.generation == generation {
                        d.parsed = versions.parsed;
                    }
                }
                Some(p)
            }
            _ => None,
        }
    }

    /// The planned methods into `view`, each unchanged, cached, interim or
    /// pending; the methods still to check.
    fn method_views(&self, methods: Vec<Planned>, view: &mut View) -> Vec<Planned> {
        let mut wanted = Vec::new();
        for m in methods {
            let state = if m.unchanged {
                MethodState::Unchanged
            } else if let Some(r) = self.cache.get(&m.key) {
                MethodState::Done(r.clone())
            } else {
                wanted.push(m.clone());
                match self.interim.get(&m.key) {
                    Some(r) => MethodState::Interim(r.clone()),
                    None => MethodState::Pending,
                }
            };
            view.methods.push(MethodView { m, state });
        }
        wanted
    }

    /// Installs a planned view if its generation is still current: cancels
    /// the running jobs nobody waits for any more, and returns the jobs to
    /// start (keys wanted and not already running).
    fn install_plan(
        &self,
        uri: &Uri,
        generation: u64,
        view: View,
        wanted: &[Planned],
    ) -> Option<Vec<(Planned, u64, Cancellation)>> {
        let mut d = self.docs.get_mut(uri)?;
        if d.generation != generation {
            return None;
        }
        let keys: FxHashSet<u64> = wanted.iter().map(|m| m.key).collect();
        d.running.retain(|key, job| {
            let keep = keys.contains(key);
            if !keep {
                job.token.cancel();
            }
            keep
        });
        let mut start = Vec::new();
        for m in wanted {
            if d.running.contains_key(&m.key) {
                continue;
            }
            let id = self.next_id.fetch_add(1, Ordering::Relaxed);
            let token = Cancellation::new();
            d.running.insert(
                m.key,
                RunningJob {
                    id,
                    token: token.clone(),
                },
            );
            start.push((m.clone(), id, token));
        }
        d.view = Arc::new(view);
        Some(start)
    }

    /// Runs one method job on the pool, delivering its interim and final
    /// verdicts as they come.
    async fn job(
        self: Arc<Self>,
        uri: Uri,
        old: Arc<Program>,
        new: Arc<Program>,
        m: Planned,
        id: u64,
        token: Cancellation,
    ) {
        let Ok(permit) = self.pool.clone().acquire_owned().await else {
            return;
        };
        // Cancelled while waiting: not worth a thread.
        if token.is_cancelled() {
            return;
        }
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let (m2, t2) = (m.clone(), token.clone());
        // running → finished, or running → abandoned (by the guard below).
        let state = Arc::new(AtomicU8::new(RUNNING));
        let thread_state = state.clone();
        // Detached: the thread stops when the check does (at its deadline
        // or when cancelled); its permit is released only then.
        let _detached = tokio::task::spawn_blocking(move || {
            analysis::run(&old, &new, &m2, &t2, |e| {
                let _ = tx.send(e);
            });
            let abandoned = thread_state
                .compare_exchange(RUNNING, FINISHED, Ordering::AcqRel, Ordering::Acquire)
                .is_err();
            if abandoned {
                // The guard gave the pool a permit in this one's place.
                permit.forget();
            }
        });
        // The core enforces the timeout itself (in work, with a wall-time
        // safety net); this guard only catches a job that ignores it, so
        // that the method does not stay pending.
        let guard =
            eqlens_core::check::wall_time_bound(m.options.timeout_ms) + Duration::from_secs(5);
        let deadline = tokio::time::Instant::now() + guard;
        let last = loop {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(JobEvent::Interim(r))) => {
                    let r = Arc::new(r);
                    self.interim.insert(m.key, r.clone());
                    self.deliver(&uri, m.key, MethodState::Interim(r)).await;
                }
                Ok(Some(JobEvent::Final(r))) => break r.map(|r| (r, true)),
                // The thread died outside the core's panic guard.
                Ok(None) => {
                    break Some((
                        failed(&m, Duration::ZERO, "the job stopped unexpectedly"),
                        false,
                    ));
                }
                Err(_) => {
                    token.cancel();
                    // A Z3 call that ignores both its timeout and the
                    // interrupt (it happens on libz3 4.8.12, in nonlinear
                    // arithmetic) would hold its worker for good: the pool
                    // gets a permit in its place so that the server keeps
                    // checking; the stuck thread forgets its own permit
                    // when (if) it ends, so the pool keeps its size.
                    if state
                        .compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        self.pool.add_permits(1);
                    }
                    break Some((
                        failed(
                            &m,
                            guard,
                            "the check did not stop at its timeout (abandoned)",
                        ),
                        false,
                    ));
                }
            }
        };
        self.interim.remove(&m.key);
        if let Some(mut d) = self.docs.get_mut(&uri)
            && d.running.get(&m.key).is_some_and(|j| j.id == id)
        {
            d.running.remove(&m.key);
        }
        let Some((result, cacheable)) = last else {
            return; // cancelled: nobody wants it
        };
        let result = Arc::new(result);
        if cacheable {
            self.cache.insert(m.key, result.clone());
        }
        self.deliver(&uri, m.key, MethodState::Done(result)).await;
    }

    /// Shows a job's result in the document's current view, if that view
    /// still has the job's key waiting.
    async fn deliver(&self, uri: &Uri, key: u64, state: MethodState) {
        let updated = match self.docs.get_mut(uri) {
            Some(mut d) => {
                let waiting = |mv: &MethodView| mv.m.key == key && mv.state.is_pending();
                if d.view.methods.iter().any(waiting) {
                    let mut view = (*d.view).clone();
                    for mv in view.methods.iter_mut().filter(|mv| waiting(mv)) {
                        mv.state = state.clone();
                    }
                    d.view = Arc::new(view);
                    true
                } else {
                    false
                }
            }
            None => false,
        };
        if updated {
            self.publish(uri).await;
        }
    }

    /// Stores a view that needs no jobs (a note instead of methods) if the
    /// generation is still current, then publishes.
    async fn install(&self, uri: &Uri, generation: u64, view: View) -> bool {
        if self.install_plan(uri, generation, view, &[]).is_none() {
            return false;
        }
        self.publish(uri).await;
        true
    }

    /// Diagnostics, status, progress and a lens refresh for the document's
    /// view.
    pub async fn publish(&self, uri: &Uri) {
        // One publication per document at a time, from reading the view to
        // the last message: otherwise a slower publication of an older view
        // could arrive after a newer one (seen: a stale `checking` status
        // after `done`, leaving a client's spinner running).
        let lock = self
            .publishing
            .entry(uri.clone())
            .or_default()
            .value()
            .clone();
        let _one_at_a_time = lock.lock().await;
        let Some(view) = self.docs.get(uri).map(|d| d.view.clone()) else {
            return;
        };
        let diags = view
            .methods
            .iter()
            .filter_map(|mv| convert::diagnostic(uri, &view, mv))
            .collect();
        self.client
            .publish_diagnostics(uri.clone(), diags, Some(view.version))
            .await;
        let status = convert::status(uri, &view);
        self.report_progress(uri, &status).await;
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

    /// `$/progress` for a document: begun when its methods start being
    /// checked, reported as they finish, ended when none is pending (or the
    /// document closes).
    pub async fn report_progress(&self, uri: &Uri, status: &StatusParams) {
        if !self.progress_supported.load(Ordering::Relaxed) {
            return;
        }
        let mut open = self.progress.lock().await;
        let checking = status.state == "checking";
        let value = match (open.get(uri), checking) {
            (None, false) => return,
            (Some(token), false) => {
                let token = token.clone();
                open.remove(uri);
                (
                    token,
                    WorkDoneProgress::End(WorkDoneProgressEnd {
                        message: Some(convert::summary(status)),
                    }),
                )
            }
            (Some(token), true) => (
                token.clone(),
                WorkDoneProgress::Report(WorkDoneProgressReport {
                    message: Some(convert::progress_message(uri, status)),
                    percentage: Some(convert::percentage(status)),
                    cancellable: Some(false),
                }),
            ),
            (None, true) => {
                let token = ProgressToken::String(format!(
                    "eqlens/{}",
                    self.next_id.fetch_add(1, Ordering::Relaxed)
                ));
                // A client that does not answer must not hold the check up.
                let created = tokio::time::timeout(
                    Duration::from_secs(2),
                    self.client.create_work_done_progress(token.clone()),
                )
                .await;
                if !matches!(created, Ok(Ok(()))) {
                    return;
                }
                open.insert(uri.clone(), token.clone());
                (
                    token,
                    WorkDoneProgress::Begin(WorkDoneProgressBegin {
                        title: "eqlens".into(),
                        message: Some(convert::progress_message(uri, status)),
                        percentage: Some(convert::percentage(status)),
                        cancellable: Some(false),
                    }),
                )
            }
        };
        self.client
            .send_notification::<Progress>(ProgressParams {
                token: value.0,
                value: ProgressParamsValue::WorkDone(value.1),
            })
            .await;
    }

    /// Ends a closed document's progress (and forgets its publication
    /// lock).
    pub async fn end_progress(&self, uri: &Uri) {
        self.publishing.remove(uri);
        let token = self.progress.lock().await.remove(uri);
        if let Some(token) = token {
            self.client
                .send_notification::<Progress>(ProgressParams {
                    token,
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(
                        WorkDoneProgressEnd { message: None },
                    )),
                })
                .await;
        }
    }
}

/// A result for a job that failed outside the checker's own error handling.
fn failed(m: &Planned, time: Duration, detail: &str) -> CheckResult {
    CheckResult {
        report: analysis::internal(m, time, detail),
        changed: Vec::new(),
    }
}
