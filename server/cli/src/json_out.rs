//! `check --format json`: one JSON document per run, schema in `docs/cli.md`.
//!
//! The document's structs are this crate's, field by field in the
//! documented order; nested values (spans, counterexamples, reasons,
//! certificates) use the core's serialisation. A method object adds to the
//! core's report two booleans, `bounded` and `partial`, so consumers can
//! tell a full proof from a bounded or partial one without looking inside
//! the verdict; the proof's bound is `bound`. A counterexample lists only
//! the inputs that have a value: one the core gives none
//! ([`Value::Void`], e.g. C's `char *argv[]` that no statement reads) fits
//! any value, which text shows as `argv = (any)` but JSON has no value
//! string for, so it is left out.

use eqlens_core::check::{
    AbstractionReport, Assumption, CheckerKind, Counterexample, Decider, FileError, FileReport,
    FunctionSummary, LoopInvariant, MethodReport, Summary, Unknown, Unpaired, Verdict,
};
use eqlens_core::ir::{Lang, Semantics, Span};
use eqlens_core::value::Value;
use serde::Serialize;
use std::borrow::Cow;
use std::path::Path;

/// A method object (docs/cli.md, "A method object has these fields").
#[derive(Serialize)]
struct MethodJson<'a> {
    name: &'a str,
    arity: usize,
    qualified: &'a str,
    label: &'a str,
    old_span: Span,
    new_span: Span,
    #[serde(flatten)]
    verdict: VerdictJson<'a>,
    checker: CheckerKind,
    decided_by: Option<Decider>,
    abstraction: Option<&'a AbstractionReport>,
    semantics: Semantics,
    loop_bound: u32,
    /// Milliseconds.
    time: f64,
    bounded: bool,
    partial: bool,
}

#[derive(Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
enum VerdictJson<'a> {
    Equivalent {
        bound: Option<u32>,
        /// A complete proof by unrolling every loop to at most this many
        /// iterations.
        #[serde(skip_serializing_if = "Option::is_none")]
        unrolled: Option<u32>,
        assumptions: &'a [Assumption],
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        invariants: &'a [LoopInvariant],
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        summaries: &'a [FunctionSummary],
    },
    NotEquivalent(Box<Cow<'a, Counterexample>>),
    Unknown(&'a Unknown),
}

fn method_json(m: &MethodReport) -> MethodJson<'_> {
    let verdict = match &m.verdict {
        Verdict::Equivalent(p) => VerdictJson::Equivalent {
            bound: p.bounded,
            unrolled: p.unrolled,
            assumptions: &p.assumptions,
            invariants: &p.invariants,
            summaries: &p.summaries,
        },
        Verdict::NotEquivalent(c) if c.inputs.iter().any(|b| b.value == Value::Void) => {
            let mut c = (**c).clone();
            c.inputs.retain(|b| b.value != Value::Void);
            VerdictJson::NotEquivalent(Box::new(Cow::Owned(c)))
        }
        Verdict::NotEquivalent(c) => VerdictJson::NotEquivalent(Box::new(Cow::Borrowed(c))),
        Verdict::Unknown(u) => VerdictJson::Unknown(u),
    };
    MethodJson {
        name: &m.name,
        arity: m.arity,
        qualified: &m.qualified,
        label: &m.label,
        old_span: m.old_span,
        new_span: m.new_span,
        verdict,
        checker: m.checker,
        decided_by: m.decided_by,
        abstraction: m.abstraction.as_ref(),
        semantics: m.semantics,
        loop_bound: m.loop_bound,
        time: m.time.as_secs_f64() * 1000.0,
        bounded: matches!(&m.verdict, Verdict::Equivalent(p) if p.bounded.is_some()),
        partial: matches!(&m.verdict, Verdict::Equivalent(p) if p.partial),
    }
}

/// The version of the document's schema: raised when a field is removed or
/// changes meaning (new fields may appear without it).
pub const SCHEMA: u32 = 1;

#[derive(Serialize)]
struct CheckJson<'a> {
    schema: u32,
    old: String,
    new: String,
    lang: Lang,
    summary: Summary,
    #[serde(skip_serializing_if = "<[FileError]>::is_empty")]
    syntax_errors: &'a [FileError],
    methods: Vec<MethodJson<'a>>,
    added: &'a [Unpaired],
    removed: &'a [Unpaired],
}

/// The JSON document (pretty-printed, no trailing newline). `summary` is
/// the file verdict as `check` decided it (see `check_cmd::file_summary`).
pub fn check_json(report: &FileReport, old: &Path, new: &Path, summary: Summary) -> String {
    let doc = CheckJson {
        schema: SCHEMA,
        old: old.display().to_string(),
        new: new.display().to_string(),
        lang: report.lang,
        summary,
        syntax_errors: &report.syntax_errors,
        methods: report.methods.iter().map(method_json).collect(),
        added: &report.added,
        removed: &report.removed,
    };
    // Serialising plain data with string keys cannot fail; fall back to a
    // valid document rather than panicking if it ever does.
    serde_json::to_string_pretty(&doc).unwrap_or_else(|e| {
        serde_json::json!({ "error": format!("cannot serialise the report: {e}") }).to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use eqlens_core::check::{CheckerKind, Proof, Unknown, UnknownReason};
    use eqlens_core::ir::Semantics;
    use std::time::Duration;

    fn method(verdict: Verdict) -> MethodReport {
        MethodReport {
            name: "f".into(),
            arity: 2,
            qualified: "f".into(),
            label: "f(2)".into(),
            old_span: Default::default(),
            new_span: Default::default(),
            verdict,
            checker: CheckerKind::Symbolic,
            decided_by: None,
            abstraction: None,
            semantics: Semantics::Machine,
            loop_bound: 4,
            time: Duration::from_micros(1500),
        }
    }

    #[test]
    fn document_has_the_documented_fields() {
        let report = FileReport {
            lang: Lang::C,
            syntax_errors: Vec::new(),
            methods: vec![
                method(Verdict::Equivalent(Proof {
                    bounded: Some(4),
                    unrolled: None,
                    assumptions: vec![],
                    invariants: Vec::new(),
                    partial: false,
                    summaries: Vec::new(),
                })),
                method(Verdict::Unknown(Unknown {
                    reason: UnknownReason::Timeout {
                        phase: eqlens_core::check::Phase::Solving,
                    },
                    detail: "t".into(),
                })),
            ],
            added: vec![Unpaired {
                name: "g".into(),
                arity: 0,
                qualified: "g".into(),
                label: "g(0)".into(),
                span: Default::default(),
            }],
            removed: vec![],
        };
        let text = check_json(
            &report,
            Path::new("a.c"),
            Path::new("b.c"),
            Summary::Unknown,
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema"], SCHEMA);
        assert_eq!(v["old"], "a.c");
        assert_eq!(v["new"], "b.c");
        assert_eq!(v["lang"], "c");
        assert_eq!(v["summary"], "unknown");
        let m = &v["methods"][0];
        assert_eq!(m["name"], "f");
        assert_eq!(m["arity"], 2);
        assert_eq!(m["verdict"], "equivalent");
        assert_eq!(m["bounded"], true);
        assert_eq!(m["bound"], 4);
        assert_eq!(
            text.matches("\"bounded\"").count(),
            2,
            "one per method, no duplicate key: {text}"
        );
        assert_eq!(m["checker"], "symbolic");
        assert_eq!(m["semantics"], "machine");
        assert_eq!(m["loop_bound"], 4);
        assert_eq!(m["time"], 1.5);
        assert_eq!(m["old_span"]["start"]["line"], 0);
        let m = &v["methods"][1];
        assert_eq!(m["verdict"], "unknown");
        assert_eq!(m["bounded"], false);
        assert!(m.get("bound").is_none());
        assert_eq!(m["reason"]["kind"], "timeout");
        assert_eq!(v["added"][0]["name"], "g");
        assert!(v["removed"].as_array().unwrap().is_empty());
    }

    #[test]
    fn loop_invariants_are_serialized_only_when_present() {
        let proof = |invariants| {
            Verdict::Equivalent(Proof {
                bounded: None,
                unrolled: None,
                assumptions: vec![],
                invariants,
                partial: false,
                summaries: Vec::new(),
            })
        };
        let report = FileReport {
            lang: Lang::Java,
            syntax_errors: Vec::new(),
            methods: vec![
                method(proof(vec![eqlens_core::check::LoopInvariant {
                    old_line: 3,
                    new_line: 5,
                    old_peeled: 0,
                    new_peeled: 0,
                    rearranged: String::new(),
                    formula: "(= old.s new.s)".into(),
                }])),
                method(proof(Vec::new())),
            ],
            added: vec![],
            removed: vec![],
        };
        let text = check_json(
            &report,
            Path::new("a.java"),
            Path::new("b.java"),
            Summary::Equivalent,
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let inv = &v["methods"][0]["invariants"][0];
        assert_eq!(inv["old_line"], 3);
        assert_eq!(inv["new_line"], 5);
        assert_eq!(inv["formula"], "(= old.s new.s)");
        assert!(v["methods"][1].get("invariants").is_none());
        // Only a rearranged pair of loops says how.
        assert!(inv.get("rearranged").is_none());
    }
}
