//! Reports to words: lens titles, hover markdown, diagnostic messages.
//! Plain strings only; positions and LSP types are the server's business.

use crate::analysis::CheckResult;
use eqlens_core::check::{Behaviour, MethodReport, Verdict, describe_outcome};
use eqlens_words::{
    abstraction_summary, bindings, cut, decider, duration, headline, plural, unknown_reason,
};
use std::fmt::Write;

/// Inputs on a lens are cut to this many characters (the hover has them
/// all).
const LENS_INPUTS_CHARS: usize = 60;
/// Line traces in hovers are cut to this many entries.
const TRACE_ENTRIES: usize = 40;

/// `≡ equivalent · ardiff · 2 refinements · 41 ms`,
/// `≢ not equivalent · a = 10, b = 10`, `? unknown · timed out after 10 s`,
/// `≡ equivalent up to 8 iterations · symbolic · 3 ms`.
pub fn lens_title(m: &MethodReport) -> String {
    match &m.verdict {
        Verdict::Equivalent(_) => {
            let mut t = format!("≡ {} · {}", headline(&m.verdict), decider(m));
            if let Some(a) = &m.abstraction
                && !a.refined.is_empty()
            {
                write!(t, " · {}", plural(a.refined.len(), "refinement")).ok();
            }
            write!(t, " · {}", duration(m.time)).ok();
            t
        }
        Verdict::NotEquivalent(cex) => {
            format!(
                "≢ {} · {}",
                headline(&m.verdict),
                cut(&bindings(&cex.inputs), LENS_INPUTS_CHARS)
            )
        }
        Verdict::Unknown(u) => format!("? {} · {}", headline(&m.verdict), unknown_reason(u)),
    }
}

/// An interim verdict, while a stronger checker runs:
/// `≡ equivalent up to 8 iterations · dse · 3 ms · proving…`, or
/// `… checking (dse: inconclusive)` when the fast check decided nothing.
pub fn interim_lens_title(m: &MethodReport) -> String {
    match &m.verdict {
        Verdict::Unknown(_) => format!("… checking ({}: inconclusive)", decider(m)),
        _ => format!("{} · proving…", lens_title(m)),
    }
}

fn trace(t: &[u32]) -> String {
    let mut s: Vec<String> = t.iter().take(TRACE_ENTRIES).map(u32::to_string).collect();
    if t.len() > TRACE_ENTRIES {
        s.push(format!("… ({} more)", t.len() - TRACE_ENTRIES));
    }
    s.join(" → ")
}

fn behaviour(out: &mut String, side: &str, b: &Behaviour) {
    writeln!(out, "- **{side}** {}", describe_outcome(&b.outcome)).ok();
    if !b.state.is_empty() {
        writeln!(out, "  - final state: `{}`", bindings(&b.state)).ok();
    }
    if !b.output.is_empty() {
        writeln!(out, "  - printed: `{:?}`", b.output).ok();
    }
    if !b.trace.is_empty() {
        writeln!(out, "  - lines: {}", trace(&b.trace)).ok();
    }
}

/// The hover: the counterexample, or how the proof went.
pub fn hover_markdown(r: &CheckResult, baseline: &str) -> String {
    let m = &r.report;
    let mut out = String::new();
    writeln!(out, "**{}** — {}  \n", m.label, lens_title(m)).ok();
    match &m.verdict {
        Verdict::NotEquivalent(cex) => {
            writeln!(out, "Inputs: `{}`\n", bindings(&cex.inputs)).ok();
            behaviour(&mut out, &format!("old ({baseline}):"), &cex.old);
            behaviour(&mut out, "new:", &cex.new);
            if !cex.differences.is_empty() {
                writeln!(out, "\nDiffers:").ok();
                for d in &cex.differences {
                    writeln!(out, "- {d}").ok();
                }
            }
        }
        Verdict::Equivalent(p) => {
            match p.bounded {
                None if p.partial => writeln!(
                    out,
                    "Proved for all inputs on which both versions terminate (partial \
                     equivalence: whether they terminate is not compared)."
                )
                .ok(),
                None => match p.unrolled {
                    Some(k) => writeln!(
                        out,
                        "Proved for all inputs, {}: every loop provably exits within \
                         {k} iterations.",
                        eqlens_words::unrolled(k)
                    )
                    .ok(),
                    None => writeln!(out, "Proved for all inputs.").ok(),
                },
                Some(k) => writeln!(
                    out,
                    "Proved for executions within {k} loop iterations / call depth {k} only."
                )
                .ok(),
            };
            for a in &p.assumptions {
                writeln!(out, "- assumes: {a}").ok();
            }
            for i in &p.invariants {
                writeln!(
                    out,
                    "\nLoop invariant (line {} old, line {} new{}{}):\n```smt2\n{}\n```",
                    i.old_line,
                    i.new_line,
                    match (i.old_peeled, i.new_peeled) {
                        (0, 0) => String::new(),
                        (o, n) => format!("; iterations peeled first: {o} old, {n} new"),
                    },
                    if i.rearranged.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", i.rearranged)
                    },
                    i.formula
                )
                .ok();
            }
            for s in &p.summaries {
                writeln!(
                    out,
                    "\nSummary of `{}` ({}, line {}):\n```smt2\n{}\n```",
                    s.function, s.version, s.line, s.formula
                )
                .ok();
            }
        }
        Verdict::Unknown(u) => {
            writeln!(out, "Undecided: {}", unknown_reason(u)).ok();
        }
    }
    writeln!(
        out,
        "\nChecker `{}`{}, semantics `{}`, loop bound {}, {} (baseline: {baseline}).",
        m.checker.name(),
        m.decided_by
            .map(|d| format!(" (decided by `{}`)", d.name()))
            .unwrap_or_default(),
        m.semantics,
        m.loop_bound,
        duration(m.time)
    )
    .ok();
    if let Some(a) = &m.abstraction {
        if let Some(summary) = abstraction_summary(a) {
            writeln!(out, "\nAbstraction: {summary}.").ok();
        }
        for o in &a.overrides {
            writeln!(
                out,
                "- override {} ({}){}",
                o.over,
                plural(o.statements, "statement"),
                o.note
                    .as_ref()
                    .map(|n| format!(": {n}"))
                    .unwrap_or_default()
            )
            .ok();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use eqlens_core::check::{CheckerKind, LoopInvariant, Proof};
    use eqlens_core::ir::Semantics;

    #[test]
    fn the_hover_shows_loop_invariants() {
        let report = MethodReport {
            name: "f".into(),
            arity: 1,
            qualified: "f".into(),
            label: "f(1)".into(),
            old_span: Default::default(),
            new_span: Default::default(),
            verdict: Verdict::Equivalent(Proof {
                bounded: None,
                unrolled: None,
                assumptions: vec![],
                invariants: vec![LoopInvariant {
                    old_line: 4,
                    new_line: 6,
                    old_peeled: 0,
                    new_peeled: 0,
                    rearranged: "old loop unrolled ×4".into(),
                    formula: "(= old.s new.s)".into(),
                }],
                partial: false,
                summaries: Vec::new(),
            }),
            checker: CheckerKind::Portfolio,
            decided_by: Some(eqlens_core::check::Decider::Loops),
            abstraction: None,
            semantics: Semantics::Math,
            loop_bound: 8,
            time: std::time::Duration::from_millis(40),
        };
        let md = hover_markdown(
            &CheckResult {
                report,
                changed: vec![],
            },
            "HEAD",
        );
        assert!(md.contains("Proved for all inputs."), "{md}");
        assert!(
            md.contains(
                "Loop invariant (line 4 old, line 6 new; old loop unrolled ×4):\n\
                 ```smt2\n(= old.s new.s)\n```"
            ),
            "{md}"
        );
        assert!(md.contains("decided by `loops`"), "{md}");
    }
}
