//! The LSP front: the `LanguageServer` handlers and the commands. Handlers
//! answer from the document's current view (see `scheduler.rs`) and never
//! wait for a check.

use crate::analysis::RelOverride;
use crate::baseline::Baseline;
use crate::config::{BaselineMode, LensVerbosity};
use crate::convert;
use crate::pins;
use crate::protocol::*;
use crate::render;
use crate::scheduler::{Doc, Inner, MethodState, View};
use crate::text;
use eqlens_core::check::{OverrideAction, Verdict};
use eqlens_core::ir::Lang;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

pub struct Backend {
    inner: Arc<Inner>,
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend {
            inner: Arc::new(Inner::new(client)),
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
                .find(|mv| mv.m.is(method, arity))
                .ok_or_else(|| invalid(format!("no checked method {method}({arity})")))?;
            let start = mv.m.new_span.line();
            let (f, l) = convert::lines_in_method(mv, first, last)
                .ok_or_else(|| invalid(format!("lines {first}-{last} are outside {method}")))?;
            let id = (mv.m.id.clone(), arity);
            let list = d.overrides.entry(id).or_default();
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
        #[allow(deprecated)] // `rootUri`: older clients send only that
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .map(|f| f.uri.clone())
            .or(params.root_uri.clone())
            .and_then(|u| u.to_file_path().map(|p| p.into_owned()));
        if let Ok(mut r) = self.inner.root.write() {
            *r = root;
        }
        let refresh = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false);
        self.inner.lens_refresh.store(refresh, Ordering::Relaxed);
        let progress = params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false);
        self.inner
            .progress_supported
            .store(progress, Ordering::Relaxed);
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
        let d = Doc::new(doc.uri.clone(), doc.text, doc.version, lang);
        let path = d.path.clone();
        // Inserted before any await: requests about the document that
        // arrive meanwhile find it.
        self.inner.docs.insert(doc.uri.clone(), d);
        if self.inner.settings().persist_pins
            && let (Some(root), Some(path)) = (self.inner.root(), path)
            && let Some(pin) = pins::load(&root, &path).await
            && let Some(mut d) = self.inner.docs.get_mut(&doc.uri)
            && d.pin.is_none()
        {
            d.pin = Some(pin.into());
        }
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
                d.edit(c);
            }
            d.version = p.text_document.version;
        }
        self.inner.schedule(&uri, true);
        self.reschedule_partners_of(&uri);
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        if let Some((uri, mut doc)) = self.inner.docs.remove(&p.text_document.uri) {
            doc.cancel_all();
            self.inner.end_progress(&uri).await;
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
            self.inner.schedule_rebased(&uri, false);
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
        let uri = &p.text_document.uri;
        let lenses = view
            .methods
            .iter()
            .filter_map(|mv| {
                let title = convert::lens_title(&mv.state, verbosity == LensVerbosity::All)?;
                Some(convert::lens(uri, &view, mv, title))
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
                if convert::changed_on_trace(r).iter().any(|c| c.new.start.line == line));
            on_head || on_diag
        });
        let Some(mv) = found else {
            return Ok(None);
        };
        let value = match &mv.state {
            MethodState::Done(r) => render::hover_markdown(r, &view.baseline_label),
            MethodState::Interim(r) => format!(
                "{}\n\n*A stronger check is still running.*",
                render::hover_markdown(r, &view.baseline_label)
            ),
            MethodState::Pending => format!("**{}**: checking…", mv.m.label),
            MethodState::Unchanged => format!(
                "**{}**: unchanged since the baseline ({}), modulo formatting and renaming",
                mv.m.label, view.baseline_label
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
        // Abstract/refine are refactorings of the proof (light bulb);
        // re-check and pinning are source actions (menu only).
        let mut add = |c: Command, kind: &str| {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: c.title.clone(),
                kind: Some(CodeActionKind::from(kind.to_string())),
                command: Some(c),
                ..CodeAction::default()
            }))
        };
        let (first, last) = convert::line_range(p.range);
        if let Some(mv) = convert::method_at(&view, p.range.start.line)
            && !matches!(mv.state, MethodState::Unchanged)
            // The lines as the override will store them: inside the method.
            && let Some((first, last)) = convert::lines_in_method(mv, first, last)
        {
            let lines = if first == last {
                format!("line {first}")
            } else {
                format!("lines {first}-{last}")
            };
            let args = json!({"uri": uri, "method": mv.m.id, "arity": mv.m.arity,
                              "firstLine": first, "lastLine": last});
            add(
                convert::command(
                    format!("Abstract this block ({lines})"),
                    CMD_ABSTRACT,
                    args.clone(),
                ),
                KIND_PROOF,
            );
            add(
                convert::command(format!("Refine this block ({lines})"), CMD_REFINE, args),
                KIND_PROOF,
            );
            let bound = mv.m.options.loop_bound.saturating_mul(2);
            add(
                convert::command(
                    format!("Re-check with a larger loop bound ({bound})"),
                    CMD_RECHECK,
                    json!({"uri": uri, "loopBound": bound}),
                ),
                KIND_RECHECK,
            );
        }
        let pinned = self.inner.docs.get(&uri).is_some_and(|d| d.pin.is_some());
        if pinned {
            add(
                convert::command("Unpin baseline", CMD_UNPIN, json!({"uri": uri})),
                KIND_PIN,
            );
        } else {
            add(
                convert::command(
                    "Pin current version as baseline",
                    CMD_PIN,
                    json!({"uri": uri}),
                ),
                KIND_PIN,
            );
        }
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
                let pinned = self.inner.docs.get_mut(&a.uri).map(|mut d| {
                    d.pin = (p.command == CMD_PIN).then(|| d.text.as_str().into());
                    (d.path.clone(), d.pin.clone())
                });
                self.inner.schedule_rebased(&a.uri, false);
                if let (true, Some(root), Some((Some(path), pin))) = (
                    self.inner.settings().persist_pins,
                    self.inner.root(),
                    pinned,
                ) {
                    match pin {
                        Some(text) => {
                            if let Err(e) = pins::save(&root, &path, &text).await {
                                self.inner
                                    .client
                                    .show_message(
                                        MessageType::WARNING,
                                        format!("eqlens: pinned in memory only: {e}"),
                                    )
                                    .await;
                            }
                        }
                        None => pins::remove(&root, &path).await,
                    }
                }
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
                    && !eqlens_core::check::LOOP_BOUND_RANGE.contains(&k)
                {
                    return Err(invalid(format!(
                        "loopBound must be in {}..={}",
                        eqlens_core::check::LOOP_BOUND_RANGE.start(),
                        eqlens_core::check::LOOP_BOUND_RANGE.end()
                    )));
                }
                if let Some(mut d) = self.inner.docs.get_mut(&a.uri)
                    && a.loop_bound.is_some()
                {
                    d.loop_bound = a.loop_bound;
                }
                self.inner.schedule_rebased(&a.uri, false);
                Ok(None)
            }
            CMD_DETAILS => {
                let view = self.view(&a.uri).unwrap_or_default();
                let mv = view
                    .methods
                    .iter()
                    .find(|mv| match (&a.method, a.arity) {
                        (Some(m), Some(n)) => mv.m.is(m, n),
                        _ => false,
                    })
                    .ok_or_else(|| invalid("no such method"))?;
                match &mv.state {
                    MethodState::Done(r) => {
                        let msg = match &r.report.verdict {
                            Verdict::NotEquivalent(c) => format!(
                                "{}: {} → {}",
                                render::lens_title(&r.report),
                                eqlens_words::bindings(&c.inputs),
                                eqlens_words::cex_summary(c)
                            ),
                            _ => render::lens_title(&r.report),
                        };
                        if !a.quiet {
                            self.inner.client.show_message(MessageType::INFO, msg).await;
                        }
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
        // The documents whose resolved baseline is this file (no file
        // system access here: this runs on every keystroke). One whose
        // baseline is not resolved yet reads this text when it is.
        let partners: Vec<Uri> = self
            .inner
            .docs
            .iter()
            .filter(
                |d| matches!(&d.baseline, Some(Baseline::Text { file: Some(f), .. }) if *f == path),
            )
            .map(|d| d.uri.clone())
            .collect();
        for u in partners {
            self.inner.schedule_rebased(&u, true);
        }
    }
}
