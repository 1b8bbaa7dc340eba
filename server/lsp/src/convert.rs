//! Views to LSP types: diagnostics, lenses, statuses, progress messages,
//! and LSP positions back to method lines. Plain functions of a [`View`];
//! no state, no I/O.

use crate::analysis::{self, CheckResult};
use crate::protocol::{CMD_DETAILS, StatusParams};
use crate::render;
use crate::scheduler::{MethodState, MethodView, View};
use crate::text;
use eqlens_core::check::Verdict;
use serde_json::{Value, json};
use tower_lsp_server::ls_types::*;

/// Where related information about the baseline points: the paired file,
/// or `eqlens-baseline:<path>?<label>`, a virtual document whose text the
/// `eqlens/baseline` request returns.
pub fn baseline_uri(doc: &Uri, file: Option<&std::path::Path>, label: &str) -> Option<Uri> {
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
pub fn changed_on_trace(r: &CheckResult) -> Vec<&analysis::ChangedStmt> {
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

pub fn diagnostic(uri: &Uri, view: &View, mv: &MethodView) -> Option<Diagnostic> {
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
                    "{} is not equivalent to the baseline ({}): {} → {}",
                    mv.m.label,
                    view.baseline_label,
                    eqlens_words::bindings(&cex.inputs),
                    eqlens_words::cex_summary(cex)
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
                "equivalence of {} not decided: {}",
                mv.m.label,
                eqlens_words::unknown_reason(u)
            ),
            ..Diagnostic::default()
        }),
        Verdict::Equivalent(_) => None,
    }
}

/// One-based line range of an LSP range (a selection ending at column 0
/// does not include that line).
pub fn line_range(r: Range) -> (u32, u32) {
    let first = r.start.line + 1;
    let mut last = r.end.line + 1;
    if r.end.character == 0 && r.end.line > r.start.line {
        last -= 1;
    }
    (first, last.max(first))
}

/// The one-based lines `first..=last` cut to the method's own lines;
/// `None` when nothing of them is inside it.
pub fn lines_in_method(mv: &MethodView, first: u32, last: u32) -> Option<(u32, u32)> {
    let (start, end) = (mv.m.new_span.line(), mv.m.new_span.end.line + 1);
    let (f, l) = (first.max(start), last.min(end));
    (f <= l).then_some((f, l))
}

pub fn method_at(view: &View, line0: u32) -> Option<&MethodView> {
    view.methods
        .iter()
        .find(|mv| mv.m.new_span.start.line <= line0 && line0 <= mv.m.new_span.end.line)
}

pub fn command(title: impl Into<String>, name: &str, args: Value) -> Command {
    Command {
        title: title.into(),
        command: name.into(),
        arguments: Some(vec![args]),
    }
}

/// The lens title of a method in its current state (`None`: no lens).
pub fn lens_title(state: &MethodState, show_unchanged: bool) -> Option<String> {
    Some(match state {
        MethodState::Unchanged if show_unchanged => "unchanged".into(),
        MethodState::Unchanged => return None,
        MethodState::Pending => "… checking".into(),
        MethodState::Interim(r) => render::interim_lens_title(&r.report),
        MethodState::Done(r) => render::lens_title(&r.report),
    })
}

/// The lens of one method: its title on the method's first line; clicking
/// shows the details.
pub fn lens(uri: &Uri, view: &View, mv: &MethodView, title: String) -> CodeLens {
    let line = text::position_of(&view.new_text, mv.m.new_span.start).line;
    CodeLens {
        range: Range::new(Position::new(line, 0), Position::new(line, 0)),
        command: Some(command(
            title,
            CMD_DETAILS,
            json!({"uri": uri, "method": mv.m.id, "arity": mv.m.arity}),
        )),
        data: None,
    }
}

/// `eqlens/status` for a view.
pub fn status(uri: &Uri, view: &View) -> StatusParams {
    let count =
        |f: &dyn Fn(&MethodState) -> bool| view.methods.iter().filter(|m| f(&m.state)).count();
    let verdict = |f: fn(&Verdict) -> bool| move |s: &MethodState| matches!(s, MethodState::Done(r) if f(&r.report.verdict));
    let pending = count(&MethodState::is_pending);
    StatusParams {
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
        interim: count(&|s| matches!(s, MethodState::Interim(_))),
    }
}

/// `≡ 3  ≢ 1  ? 0`: the verdict counts of a status.
pub fn summary(s: &StatusParams) -> String {
    format!(
        "≡ {}  ≢ {}  ? {}",
        s.equivalent, s.not_equivalent, s.unknown
    )
}

/// `A.java: 2 of 5 methods checked`.
pub fn progress_message(uri: &Uri, s: &StatusParams) -> String {
    let name = uri
        .path()
        .as_str()
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string();
    format!(
        "{name}: {} of {} changed methods checked",
        s.changed - s.pending,
        s.changed
    )
}

pub fn percentage(s: &StatusParams) -> u32 {
    if s.changed == 0 {
        return 100;
    }
    (100 * (s.changed - s.pending) / s.changed) as u32
}
