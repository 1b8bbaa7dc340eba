//! How eqlens words a report for people.
//!
//! The command line and the language server say the same thing about a
//! method in the same words: its verdict's headline, why it is undecided,
//! what decided it, how long it took, its inputs, where its loop invariants
//! hold and what abstraction did. These are plain strings; each front end
//! adds its own layout (aligned columns and colours, lens titles, hover
//! Markdown). The core's report is plain data and words nothing itself,
//! beyond the outcome of one run (`check::describe_outcome`) that its JSON
//! carries.

use eqlens_core::check::{
    AbstractionReport, Binding, Counterexample, LoopInvariant, MethodReport, Unknown, Verdict,
    describe_outcome,
};
use std::time::Duration;

/// `12 ms`, `1.4 s`.
pub fn duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{} ms", ms.round() as u64)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// `a = 1, b = -2`; `no inputs` for a method without parameters.
pub fn bindings(list: &[Binding]) -> String {
    if list.is_empty() {
        return "no inputs".into();
    }
    list.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `1 query`, `2 queries`, `3 blocks`.
pub fn plural(n: usize, word: &str) -> String {
    match (n, word.strip_suffix('y')) {
        (1, _) => format!("{n} {word}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {word}s"),
    }
}

/// `s` cut to at most `n` characters, an ellipsis marking the cut.
pub fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let head: String = s.chars().take(n.saturating_sub(1)).collect();
        format!("{head}…")
    }
}

/// The verdict in a few words: `equivalent`, `equivalent up to 8
/// iterations`, `equivalent by unrolling every loop completely (at most 16
/// iterations)`, `equivalent where both terminate`, `not equivalent`,
/// `unsupported`, `unknown`.
pub fn headline(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Equivalent(p) => match p.bounded {
            None if p.partial => "equivalent where both terminate".into(),
            None => match p.unrolled {
                Some(k) => format!("equivalent {}", unrolled(k)),
                None => "equivalent".into(),
            },
            Some(k) => format!("equivalent up to {k} iterations"),
        },
        Verdict::NotEquivalent(_) => "not equivalent".into(),
        Verdict::Unknown(u) if u.reason.is_unsupported() => "unsupported".into(),
        Verdict::Unknown(_) => "unknown".into(),
    }
}

/// How a complete proof by unrolling was obtained: `by unrolling every
/// loop completely (at most 16 iterations)`.
pub fn unrolled(k: u32) -> String {
    format!("by unrolling every loop completely (at most {k} iterations)")
}

/// Why a verdict is undecided: the core's detail ("timed out after …")
/// when it gives one, else the reason's general words.
pub fn unknown_reason(u: &Unknown) -> String {
    if u.detail.is_empty() {
        u.reason.words().to_string()
    } else {
        u.detail.clone()
    }
}

/// What decided the verdict (`ardiff`, `loops`, …), or the checker asked
/// for when nothing did.
pub fn decider(m: &MethodReport) -> &'static str {
    match m.decided_by {
        Some(d) => d.name(),
        None => m.checker.name(),
    }
}

/// The first thing that tells the versions apart: `old returns 1, new
/// returns 2`, or the first difference of state or output when the
/// outcomes agree.
pub fn cex_summary(cex: &Counterexample) -> String {
    let (o, n) = (
        describe_outcome(&cex.old.outcome),
        describe_outcome(&cex.new.outcome),
    );
    if o != n {
        format!("old {o}, new {n}")
    } else {
        cex.differences.first().cloned().unwrap_or_default()
    }
}

/// What a proof of a loop or recursion rearranged before its invariant
/// held: `, 1 iteration of the old loop peeled`, `, old loop unrolled ×4`
/// (empty when nothing was).
pub fn rearranged(i: &LoopInvariant) -> String {
    let mut out = String::new();
    for (n, which) in [(i.old_peeled, "old"), (i.new_peeled, "new")] {
        if n > 0 {
            out.push_str(&format!(
                ", {} of the {which} loop peeled",
                plural(n as usize, "iteration")
            ));
        }
    }
    if !i.rearranged.is_empty() {
        out.push_str(", ");
        out.push_str(&i.rearranged);
    }
    out
}

/// What abstraction did: `3 blocks common, 1 still abstract after 2
/// queries; refined line 5 (H1); loops proved by the loop checker's
/// invariant`. `None` when no common block was found.
pub fn abstraction_summary(a: &AbstractionReport) -> Option<String> {
    if a.blocks == 0 {
        return None;
    }
    let mut text = format!(
        "{} common, {} still abstract after {}",
        plural(a.blocks, "block"),
        a.functions_left,
        plural(a.iterations as usize, "query")
    );
    if !a.refined.is_empty() {
        text.push_str(&format!("; refined line {}", a.refined_lines()));
    }
    if a.loop_invariant {
        text.push_str("; loops proved by the loop checker's invariant");
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_for_numbers_and_times() {
        assert_eq!(duration(Duration::from_micros(12_400)), "12 ms");
        assert_eq!(duration(Duration::from_millis(1460)), "1.5 s");
        assert_eq!(plural(1, "query"), "1 query");
        assert_eq!(plural(2, "query"), "2 queries");
        assert_eq!(plural(0, "block"), "0 blocks");
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
        assert_eq!(bindings(&[]), "no inputs");
    }
}
