//! Human-readable text rendering of a [`FileReport`].
//!
//! One aligned line per method (symbol, `name(arity)`, verdict, details),
//! counterexample details indented below a not-equivalent method, then the
//! methods present in only one version and a one-line file summary. Styles
//! are embedded as ANSI escapes; the caller writes through `anstream`, which
//! strips them when the output is not a terminal or `NO_COLOR` is set.

use crate::trace;
use anstyle::{AnsiColor, Style};
use eqlens_core::check::{
    Behaviour, Counterexample, FileReport, MethodReport, Summary, Unknown, UnknownReason, Unpaired,
    Verdict, describe_outcome,
};
use eqlens_words::{
    abstraction_summary, bindings, duration, headline, plural, rearranged, unknown_reason,
};
use std::fmt::Write;

/// Traces longer than this (in characters, after compression) are cut.
const TRACE_CHARS: usize = 100;

fn green() -> Style {
    Style::new().fg_color(Some(AnsiColor::Green.into()))
}
fn red() -> Style {
    Style::new().fg_color(Some(AnsiColor::Red.into()))
}
fn yellow() -> Style {
    Style::new().fg_color(Some(AnsiColor::Yellow.into()))
}
fn dim() -> Style {
    Style::new().dimmed()
}
fn bold() -> Style {
    Style::new().bold()
}

/// One row of the aligned table.
struct Row {
    symbol: &'static str,
    style: Style,
    name: String,
    /// Padded to the verdict column width, unless `wide`.
    verdict: String,
    /// A verdict text that is the whole explanation (unsupported): printed
    /// unpadded and left out of the column width, so one long message does
    /// not push every other line's details to the right.
    wide: bool,
    details: String,
    /// Indented lines below the row.
    extra: Vec<String>,
}

/// `portfolio → ardiff · math · 12 ms`: the checker asked for, what
/// decided (when different), semantics, time.
fn provenance(m: &MethodReport) -> String {
    let who = match m.decided_by {
        Some(d) if d.name() != m.checker.name() => format!("{} → {}", m.checker.name(), d.name()),
        _ => m.checker.name().to_string(),
    };
    format!("{who} · {} · {}", m.semantics, duration(m.time))
}

/// `abstraction:` and `override:` lines for checkers that abstract common
/// code (nothing when no common block was found and no override given).
fn abstraction_lines(m: &MethodReport) -> Vec<String> {
    let Some(a) = &m.abstraction else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(summary) = abstraction_summary(a) {
        out.push(labelled("blocks", &summary));
    }
    for o in &a.overrides {
        let mut text = format!("{} ({})", o.over, plural(o.statements, "statement"));
        if let Some(note) = &o.note {
            text.push_str(&format!(": {note}"));
        }
        out.push(labelled("override", &text));
    }
    out
}

/// Label column of the indented lines, so their values line up.
const LABEL_WIDTH: usize = 12;

fn labelled(label: &str, value: &str) -> String {
    format!(
        "{:<width$}{value}",
        format!("{label}:"),
        width = LABEL_WIDTH
    )
}

fn behaviour_lines(side: &str, b: &Behaviour) -> String {
    labelled(side, &describe_outcome(&b.outcome))
}

/// Inputs longer than this are shortened on the method line and given in
/// full on an `inputs:` line below.
const INLINE_INPUTS_CHARS: usize = 60;

/// The inputs as shown on the method line, and whether that is all of them.
fn inline_inputs(cex: &Counterexample) -> (String, bool) {
    if cex.inputs.is_empty() {
        return ("no inputs".to_string(), true);
    }
    let all = bindings(&cex.inputs);
    if all.chars().count() <= INLINE_INPUTS_CHARS {
        (all, true)
    } else {
        let cut: String = all.chars().take(INLINE_INPUTS_CHARS - 1).collect();
        (format!("{cut}…"), false)
    }
}

fn counterexample_lines(cex: &Counterexample) -> Vec<String> {
    let mut out = Vec::new();
    if !inline_inputs(cex).1 {
        out.push(labelled("inputs", &bindings(&cex.inputs)));
    }
    out.push(behaviour_lines("old", &cex.old));
    out.push(behaviour_lines("new", &cex.new));
    for d in &cex.differences {
        out.push(labelled("differs", d));
    }
    if cex.old.output != cex.new.output {
        out.push(labelled("old output", &format!("{:?}", cex.old.output)));
        out.push(labelled("new output", &format!("{:?}", cex.new.output)));
    }
    if !cex.old.trace.is_empty() || !cex.new.trace.is_empty() {
        out.push(labelled(
            "old lines",
            &trace::compress(&cex.old.trace, TRACE_CHARS),
        ));
        out.push(labelled(
            "new lines",
            &trace::compress(&cex.new.trace, TRACE_CHARS),
        ));
    }
    out
}

/// A solver formula on one line (Z3 pretty-prints over several).
fn one_line(formula: &str) -> String {
    formula.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn method_row(m: &MethodReport) -> Row {
    let name = m.label.clone();
    match &m.verdict {
        Verdict::Equivalent(p) => {
            let verdict = headline(&m.verdict);
            let style = if p.bounded.is_some() {
                yellow()
            } else {
                green()
            };
            Row {
                symbol: "≡",
                style,
                name,
                verdict,
                wide: false,
                details: provenance(m),
                extra: p
                    .assumptions
                    .iter()
                    .map(|a| labelled("assumes", &a.to_string()))
                    .chain(p.invariants.iter().map(|i| {
                        labelled(
                            "invariant",
                            &format!(
                                "loops at lines {} (old) / {} (new){}: {}",
                                i.old_line,
                                i.new_line,
                                rearranged(i),
                                one_line(&i.formula)
                            ),
                        )
                    }))
                    .chain(p.summaries.iter().map(|s| {
                        labelled(
                            "summary",
                            &format!(
                                "{} ({}, line {}): {}",
                                s.function,
                                s.version,
                                s.line,
                                one_line(&s.formula)
                            ),
                        )
                    }))
                    .chain(abstraction_lines(m))
                    .collect(),
            }
        }
        Verdict::NotEquivalent(cex) => Row {
            symbol: "≢",
            style: red(),
            name,
            verdict: headline(&m.verdict),
            wide: false,
            details: inline_inputs(cex).0,
            extra: counterexample_lines(cex)
                .into_iter()
                .chain(abstraction_lines(m))
                .collect(),
        },
        Verdict::Unknown(Unknown {
            reason: UnknownReason::Unsupported { error, in_old },
            ..
        }) => Row {
            symbol: "?",
            style: yellow(),
            name,
            verdict: format!("{error} ({} version)", if *in_old { "old" } else { "new" }),
            wide: true,
            details: String::new(),
            extra: Vec::new(),
        },
        Verdict::Unknown(u) => {
            // The core's detail already says what happened ("timed out
            // after ..."); the generic words are only a fallback.
            let mut details = unknown_reason(u);
            details.push_str(" · ");
            details.push_str(&provenance(m));
            Row {
                symbol: "?",
                style: yellow(),
                name,
                verdict: headline(&m.verdict),
                wide: false,
                details,
                extra: abstraction_lines(m),
            }
        }
    }
}

fn unpaired_row(u: &Unpaired, added: bool) -> Row {
    Row {
        symbol: if added { "+" } else { "-" },
        style: dim(),
        name: u.label.clone(),
        verdict: format!(
            "only in the {} version (line {})",
            if added { "new" } else { "old" },
            u.span.line()
        ),
        wide: true,
        details: String::new(),
        extra: Vec::new(),
    }
}

/// `2 of 4 methods differ`, or `the only method differs` when there is one.
fn part(k: usize, n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("the only method {singular}")
    } else {
        format!("{k} of {n} methods {plural}")
    }
}

/// The file-level summary line (without styling) and its style.
fn summary_line(report: &FileReport) -> (String, Style) {
    let n = report.methods.len();
    let count =
        |f: &dyn Fn(&Verdict) -> bool| report.methods.iter().filter(|m| f(&m.verdict)).count();
    let (mut text, style) = if !report.syntax_errors.is_empty() {
        (
            format!(
                "unknown: the file does not compile ({} outside methods; the methods were checked as written)",
                plural(report.syntax_errors.len(), "syntax error")
            ),
            yellow(),
        )
    } else if n == 0 {
        (
            "nothing checked: no method is present in both versions".to_string(),
            yellow(),
        )
    } else {
        match report.summary() {
            Summary::Equivalent => (
                format!("equivalent ({} proved)", plural(n, "method")),
                green(),
            ),
            Summary::EquivalentBounded => {
                let b = count(&|v| matches!(v, Verdict::Equivalent(p) if p.bounded.is_some()));
                (
                    format!(
                        "equivalent up to the loop bound ({})",
                        part(b, n, "is bounded", "bounded")
                    ),
                    yellow(),
                )
            }
            Summary::NotEquivalent => {
                let d = count(&|v| matches!(v, Verdict::NotEquivalent(_)));
                (
                    format!("not equivalent ({})", part(d, n, "differs", "differ")),
                    red(),
                )
            }
            Summary::Unknown => {
                let u = count(&|v| matches!(v, Verdict::Unknown(_)));
                (
                    format!("unknown ({})", part(u, n, "is undecided", "undecided")),
                    yellow(),
                )
            }
        }
    };
    if !report.added.is_empty() || !report.removed.is_empty() {
        let _ = write!(
            text,
            "; {} added, {} removed",
            report.added.len(),
            report.removed.len()
        );
    }
    (format!("file: {text}"), style)
}

/// Renders the whole report. Lines end with `\n`.
pub fn render_text(report: &FileReport) -> String {
    let mut rows: Vec<Row> = report.methods.iter().map(method_row).collect();
    rows.extend(report.added.iter().map(|u| unpaired_row(u, true)));
    rows.extend(report.removed.iter().map(|u| unpaired_row(u, false)));
    let name_w = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0);
    let verdict_w = rows
        .iter()
        .filter(|r| !r.wide)
        .map(|r| r.verdict.chars().count())
        .max()
        .unwrap_or(0);
    let indent = " ".repeat(2 + name_w + 3);
    let mut out = String::new();
    for r in &rows {
        let s = r.style;
        let name = format!("{:<name_w$}", r.name);
        if r.wide || r.details.is_empty() {
            let _ = write!(out, "{s}{}{s:#} {name}   {s}{}{s:#}", r.symbol, r.verdict);
        } else {
            let verdict = format!("{:<verdict_w$}", r.verdict);
            let d = dim();
            let _ = write!(
                out,
                "{s}{}{s:#} {name}   {s}{verdict}{s:#}   {d}{}{d:#}",
                r.symbol, r.details
            );
        }
        out.push('\n');
        for e in &r.extra {
            let _ = writeln!(out, "{indent}{e}");
        }
    }
    for e in &report.syntax_errors {
        let version = if e.in_old { "old" } else { "new" };
        let y = yellow();
        let _ = writeln!(out, "{y}!{y:#} {} ({version} version)", e.error);
    }
    let (line, style) = summary_line(report);
    let b = bold();
    let _ = writeln!(out, "{b}{style}{line}{style:#}{b:#}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use eqlens_core::check::{Binding, CheckerKind, Proof};
    use eqlens_core::interp::Outcome;
    use eqlens_core::ir::{Lang, LowerError, LowerErrorKind, Pos, Semantics, Span};
    use eqlens_core::value::Value;

    fn span(line: u32) -> Span {
        Span {
            start: Pos {
                line,
                col: 4,
                byte: 0,
            },
            end: Pos {
                line,
                col: 8,
                byte: 0,
            },
        }
    }

    fn method(name: &str, arity: usize, verdict: Verdict, ms: u64) -> MethodReport {
        MethodReport {
            name: name.into(),
            arity,
            qualified: name.into(),
            label: format!("{name}({arity})"),
            old_span: span(1),
            new_span: span(1),
            verdict,
            checker: CheckerKind::Symbolic,
            decided_by: None,
            abstraction: None,
            semantics: Semantics::Math,
            loop_bound: 8,
            time: std::time::Duration::from_millis(ms),
        }
    }

    fn behaviour(v: i64, trace: Vec<u32>) -> Behaviour {
        Behaviour {
            outcome: Outcome::Return(Value::Int(v.into())),
            state: vec![],
            output: String::new(),
            trace,
        }
    }

    /// A counterexample with the given contents. Only the core makes
    /// counterexamples (from replayed runs), so one is made there and its
    /// contents replaced.
    fn counterexample(
        inputs: Vec<Binding>,
        old: Behaviour,
        new: Behaviour,
        differences: Vec<String>,
    ) -> Counterexample {
        let report = eqlens_core::check::check_sources(
            Lang::Java,
            "class T { static int f(int a) { return a; } }",
            "class T { static int f(int a) { return a + 1; } }",
            &eqlens_core::check::Selection::All,
            &eqlens_core::check::Options::default(),
        );
        let Some(Verdict::NotEquivalent(cex)) = report.methods.first().map(|m| &m.verdict) else {
            panic!("a + 1 differs from a: {report:?}");
        };
        let mut cex = cex.as_ref().clone();
        cex.inputs = inputs;
        cex.old = old;
        cex.new = new;
        cex.differences = differences;
        cex
    }

    fn sample() -> FileReport {
        let cex = counterexample(
            vec![
                Binding {
                    name: "a".into(),
                    value: Value::Int(10.into()),
                },
                Binding {
                    name: "b".into(),
                    value: Value::Int(10.into()),
                },
            ],
            behaviour(3, vec![3, 4, 5, 7]),
            behaviour(4, vec![3, 4, 5, 9]),
            vec!["return value: 3 vs 4".into()],
        );
        FileReport {
            lang: Lang::Java,
            syntax_errors: Vec::new(),
            methods: vec![
                method(
                    "foo",
                    2,
                    Verdict::Equivalent(Proof {
                        bounded: None,
                        unrolled: None,
                        assumptions: vec![],
                        invariants: Vec::new(),
                        partial: false,
                        summaries: Vec::new(),
                    }),
                    12,
                ),
                method(
                    "bar",
                    1,
                    Verdict::Equivalent(Proof {
                        bounded: Some(8),
                        unrolled: None,
                        assumptions: vec![],
                        invariants: Vec::new(),
                        partial: false,
                        summaries: Vec::new(),
                    }),
                    40,
                ),
                method("baz", 2, Verdict::NotEquivalent(Box::new(cex)), 3),
                method(
                    "qux",
                    1,
                    Verdict::Unknown(Unknown {
                        reason: UnknownReason::Unsupported {
                            error: LowerError {
                                kind: LowerErrorKind::Unsupported,
                                what: "try statement".into(),
                                span: span(11),
                            },
                            in_old: false,
                        },
                        detail: "whatever".into(),
                    }),
                    1,
                ),
            ],
            added: vec![Unpaired {
                name: "fresh".into(),
                arity: 0,
                qualified: "fresh".into(),
                label: "fresh(0)".into(),
                span: span(20),
            }],
            removed: vec![],
        }
    }

    fn plain(s: &str) -> String {
        anstream::adapter::strip_str(s).to_string()
    }

    #[test]
    fn lines_are_aligned_and_say_the_verdict() {
        let text = plain(&render_text(&sample()));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "≡ foo(2)     equivalent                      symbolic · math · 12 ms"
        );
        assert_eq!(
            lines[1],
            "≡ bar(1)     equivalent up to 8 iterations   symbolic · math · 40 ms"
        );
        assert_eq!(
            lines[2],
            "≢ baz(2)     not equivalent                  a = 10, b = 10"
        );
        assert!(text.contains("old:        returns 3"), "{text}");
        assert!(text.contains("new:        returns 4"), "{text}");
        assert!(text.contains("differs:    return value: 3 vs 4"), "{text}");
        assert!(text.contains("old lines:  3-5,7"), "{text}");
        assert!(
            text.contains("? qux(1)     unsupported: try statement at 12:5 (new version)"),
            "{text}"
        );
        assert!(
            text.contains("+ fresh(0)   only in the new version (line 21)"),
            "{text}"
        );
        assert_eq!(
            lines.last().copied(),
            Some("file: not equivalent (1 of 4 methods differ); 1 added, 0 removed")
        );
    }

    #[test]
    fn long_inputs_get_their_own_line() {
        let mut r = sample();
        let text = plain(&render_text(&r));
        assert!(
            !text.contains("inputs:"),
            "short inputs stay on the method line: {text}"
        );
        if let Verdict::NotEquivalent(c) = &mut r.methods[2].verdict {
            c.inputs = (0..20)
                .map(|i| Binding {
                    name: format!("arg{i}"),
                    value: Value::Int(123456.into()),
                })
                .collect();
        }
        let text = plain(&render_text(&r));
        assert!(
            text.contains("…") && text.contains("inputs:     arg0 = 123456"),
            "{text}"
        );
        assert!(text.contains("arg19 = 123456"), "{text}");
    }

    #[test]
    fn outputs_shown_only_when_they_differ() {
        let mut r = sample();
        let text = plain(&render_text(&r));
        assert!(!text.contains("old output"));
        if let Verdict::NotEquivalent(c) = &mut r.methods[2].verdict {
            c.new.output = "x\n".into();
        }
        let text = plain(&render_text(&r));
        assert!(text.contains("new output: \"x\\n\""), "{text}");
    }

    #[test]
    fn summaries() {
        let mut r = sample();
        r.methods.truncate(1);
        r.added.clear();
        assert_eq!(summary_line(&r).0, "file: equivalent (1 method proved)");
        assert_eq!(part(1, 1, "differs", "differ"), "the only method differs");
        assert_eq!(part(2, 5, "differs", "differ"), "2 of 5 methods differ");
        r.methods.clear();
        assert!(summary_line(&r).0.contains("nothing checked"));
    }

    #[test]
    fn loop_invariants_are_printed_on_one_line() {
        let mut r = sample();
        r.methods[0].verdict = Verdict::Equivalent(Proof {
            bounded: None,
            unrolled: None,
            assumptions: vec![],
            invariants: vec![eqlens_core::check::LoopInvariant {
                old_line: 3,
                new_line: 4,
                old_peeled: 1,
                new_peeled: 0,
                rearranged: String::new(),
                formula: "(and (= old.i (+ new.i 1))\n     (= old.j new.j))".into(),
            }],
            partial: false,
            summaries: Vec::new(),
        });
        let text = plain(&render_text(&r));
        assert!(
            text.contains(
                "loops at lines 3 (old) / 4 (new), 1 iteration of the old loop peeled: \
                 (and (= old.i (+ new.i 1)) (= old.j new.j))"
            ),
            "{text}"
        );
        if let Verdict::Equivalent(p) = &mut r.methods[0].verdict {
            p.invariants[0].old_peeled = 0;
            p.invariants[0].rearranged = "old loop unrolled ×4".into();
        }
        let text = plain(&render_text(&r));
        assert!(
            text.contains("loops at lines 3 (old) / 4 (new), old loop unrolled ×4: (and"),
            "{text}"
        );
    }

    #[test]
    fn assumptions_are_printed() {
        let mut r = sample();
        r.methods[0].verdict = Verdict::Equivalent(Proof {
            bounded: None,
            unrolled: None,
            assumptions: vec![eqlens_core::check::Assumption::ArraysDoNotAlias],
            invariants: Vec::new(),
            partial: false,
            summaries: Vec::new(),
        });
        let text = plain(&render_text(&r));
        assert!(
            text.contains("assumes:    array inputs do not alias each other"),
            "{text}"
        );
    }
}
