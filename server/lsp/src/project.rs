//! `eqlens.toml`, the project file: pairs of files that are versions of
//! each other when their names do not say so.
//!
//! ```toml
//! [[pair]]
//! old = "legacy/Billing.java"   # the baseline
//! new = "src/Billing.java"      # the document being edited
//!
//! [callees]                     # calls outside the compared files
//! pure = ["com.google.common.base.Strings.*"]
//! impure = ["com.acme.audit.*", "log_*"]
//!
//! [c]
//! signed-overflow = "wraps"     # compiled with -fwrapv (default "undefined")
//! ```
//!
//! Callees neither list names are assumed pure, and verdicts say so; see
//! `eqlens_core::check::CalleeDeclarations` for the patterns. `[c]` says
//! how the project's C is compiled: with `-fwrapv` signed overflow wraps,
//! otherwise it is undefined behaviour (`eqlens_core::ir::SignedOverflow`).
//!
//! Paths are relative to the directory of the `eqlens.toml`; the nearest
//! one above a document applies. The file is read whenever a paired
//! baseline is resolved (it is small), so edits to it apply on the next
//! re-check. Mistakes are reported with the file, line and column.

use eqlens_core::check::CalleeDeclarations;
use eqlens_core::ir::SignedOverflow;
use serde::{Deserialize, Deserializer};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "eqlens.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    #[serde(default)]
    pair: Vec<PairEntry>,
    #[serde(default)]
    callees: CalleesEntry,
    #[serde(default)]
    c: CEntry,
}

/// `[c]`: how the project's C is compiled.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CEntry {
    #[serde(default)]
    signed_overflow: SignedOverflow,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CalleesEntry {
    #[serde(default)]
    pure: Vec<CalleePattern>,
    #[serde(default)]
    impure: Vec<CalleePattern>,
}

/// A callee name, or a prefix ending in `*`; checked when read so that a
/// typo is reported at its position instead of silently matching nothing.
#[derive(Debug)]
struct CalleePattern(String);

impl<'de> Deserialize<'de> for CalleePattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let name = text.strip_suffix('*').unwrap_or(&text);
        let valid_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '.');
        if text.is_empty() {
            Err(serde::de::Error::custom("an empty callee name"))
        } else if let Some(c) = name.chars().find(|c| !valid_char(*c)) {
            Err(serde::de::Error::custom(format!(
                "'{text}' is not a callee name or a prefix ending in '*' (unexpected '{c}')"
            )))
        } else {
            Ok(CalleePattern(text))
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PairEntry {
    old: PathBuf,
    new: PathBuf,
}

/// The nearest `eqlens.toml` in `dir` or above.
pub fn find(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|p| p.is_file())
}

/// The baseline `eqlens.toml` names for `path`: `Ok(None)` when there is no
/// project file or it does not mention `path`; `Err` with a message naming
/// the file and position when it cannot be read.
pub fn paired_in_project(path: &Path) -> Result<Option<PathBuf>, String> {
    let Some(file) = path.parent().and_then(find) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    partner_in(&file, &text, path)
}

/// What a project file says about checking: the parts of the core's
/// options that describe the project rather than the user's preference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectSettings {
    /// `[callees]`.
    pub callees: CalleeDeclarations,
    /// `[c] signed-overflow`.
    pub signed_overflow: SignedOverflow,
}

/// What the nearest `eqlens.toml` above `path` declares: the defaults when
/// there is no project file; `Err` with a message naming the file and
/// position when it cannot be read.
pub fn settings(path: &Path) -> Result<ProjectSettings, String> {
    let Some(file) = path.parent().and_then(find) else {
        return Ok(ProjectSettings::default());
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    settings_in(&file, &text)
}

fn settings_in(file: &Path, text: &str) -> Result<ProjectSettings, String> {
    let project = parse(file, text)?;
    let names = |list: Vec<CalleePattern>| list.into_iter().map(|p| p.0).collect();
    Ok(ProjectSettings {
        callees: CalleeDeclarations {
            pure: names(project.callees.pure),
            impure: names(project.callees.impure),
        },
        signed_overflow: project.c.signed_overflow,
    })
}

fn parse(file: &Path, text: &str) -> Result<ProjectFile, String> {
    toml::from_str(text).map_err(|e| {
        let at = e
            .span()
            .map(|s| {
                let before = &text[..s.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                format!(":{line}:{col}")
            })
            .unwrap_or_default();
        format!("{}{at}: {}", file.display(), e.message())
    })
}

fn partner_in(file: &Path, text: &str, path: &Path) -> Result<Option<PathBuf>, String> {
    let project = parse(file, text)?;
    let root = file.parent().unwrap_or(Path::new("."));
    let same = |a: &Path, b: &Path| {
        a == b
            || matches!(
                (std::fs::canonicalize(a), std::fs::canonicalize(b)),
                (Ok(x), Ok(y)) if x == y
            )
    };
    Ok(project
        .pair
        .iter()
        .find(|p| same(&root.join(&p.new), path))
        .map(|p| root.join(&p.old)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partner(text: &str, doc: &str) -> Result<Option<PathBuf>, String> {
        partner_in(Path::new("/w/eqlens.toml"), text, Path::new(doc))
    }

    #[test]
    fn a_listed_file_gets_its_partner() {
        let t = "[[pair]]\nold = \"legacy/B.java\"\nnew = \"src/B.java\"\n";
        assert_eq!(
            partner(t, "/w/src/B.java"),
            Ok(Some(PathBuf::from("/w/legacy/B.java")))
        );
        assert_eq!(partner(t, "/w/src/C.java"), Ok(None));
        assert_eq!(partner("", "/w/src/C.java"), Ok(None));
    }

    #[test]
    fn mistakes_name_the_file_and_position() {
        let e = partner("[[pair]]\nold = \"a\"\nnwe = \"b\"\n", "/w/b").unwrap_err();
        assert!(e.starts_with("/w/eqlens.toml:3:1: "), "{e}");
        assert!(e.contains("nwe"), "{e}");
        let e = partner("[[pair]\n", "/w/b").unwrap_err();
        assert!(e.starts_with("/w/eqlens.toml:1:"), "{e}");
    }

    fn callees(text: &str) -> Result<CalleeDeclarations, String> {
        settings_in(Path::new("/w/eqlens.toml"), text).map(|s| s.callees)
    }

    fn overflow(text: &str) -> Result<SignedOverflow, String> {
        settings_in(Path::new("/w/eqlens.toml"), text).map(|s| s.signed_overflow)
    }

    #[test]
    fn the_c_signed_overflow_model_is_read() {
        assert_eq!(overflow(""), Ok(SignedOverflow::Undefined));
        assert_eq!(
            overflow("[c]\nsigned-overflow = \"wraps\"\n"),
            Ok(SignedOverflow::Wraps)
        );
        assert_eq!(
            overflow("[c]\nsigned-overflow = \"undefined\"\n"),
            Ok(SignedOverflow::Undefined)
        );
        let e = overflow("[c]\nsigned-overflow = \"wrap\"\n").unwrap_err();
        assert!(
            e.starts_with("/w/eqlens.toml:2:") && e.contains("wrap"),
            "{e}"
        );
        let e = overflow("[c]\nsigned_overflow = \"wraps\"\n").unwrap_err();
        assert!(e.starts_with("/w/eqlens.toml:2:1: "), "{e}");
    }

    #[test]
    fn callee_declarations_are_read() {
        let t =
            "[callees]\npure = [\"java.util.Objects.hash\", \"com.acme.*\"]\nimpure = [\"*\"]\n";
        let d = callees(t).unwrap();
        assert_eq!(d.pure, ["java.util.Objects.hash", "com.acme.*"]);
        assert_eq!(d.impure, ["*"]);
        // Pairs and callees live side by side; neither is required.
        assert_eq!(callees("").unwrap(), CalleeDeclarations::default());
        let both = "[[pair]]\nold = \"a\"\nnew = \"b\"\n[callees]\nimpure = [\"log_*\"]\n";
        assert_eq!(callees(both).unwrap().impure, ["log_*"]);
        assert_eq!(partner(both, "/w/b"), Ok(Some(PathBuf::from("/w/a"))));
    }

    #[test]
    fn bad_callee_declarations_name_the_position() {
        let e = callees("[callees]\npure = [\"Objects.hash()\"]\n").unwrap_err();
        assert!(e.starts_with("/w/eqlens.toml:2:"), "{e}");
        assert!(e.contains("'Objects.hash()'") && e.contains("'('"), "{e}");
        let e = callees("[callees]\nimpure = [\"\"]\n").unwrap_err();
        assert!(e.contains("empty callee name"), "{e}");
        let e = callees("[callees]\nimpur = [\"x\"]\n").unwrap_err();
        assert!(
            e.starts_with("/w/eqlens.toml:2:1: ") && e.contains("impur"),
            "{e}"
        );
        let e = callees("[callees]\npure = \"x\"\n").unwrap_err();
        assert!(e.starts_with("/w/eqlens.toml:2:"), "{e}");
        // A prefix star only at the end.
        assert!(callees("[callees]\npure = [\"a*b\"]\n").is_err());
    }
}
