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
//!
//! [fields]                      # fields other code of the project writes
//! written-outside = ["Config.limit", "g_*"]
//! ```
//!
//! Callees neither list names are assumed pure, and verdicts say so; see
//! `eqlens_core::check::CalleeDeclarations` for the patterns. `[c]` says
//! how the project's C is compiled: with `-fwrapv` signed overflow wraps,
//! otherwise it is undefined behaviour (`eqlens_core::ir::SignedOverflow`).
//! `[fields] written-outside` names fields and globals that code outside
//! the compared files writes: without it, one that no code of the file
//! writes after initialisation holds its initial value, and verdicts say
//! so (`eqlens_core::check::Options::written_outside`).
//!
//! Paths are relative to the directory of the `eqlens.toml`. This module
//! reads the text; finding the file and resolving its paths is the front
//! ends' (`eqlens_server::project`). Mistakes are reported with their line
//! and column.

use crate::check::CalleeDeclarations;
use crate::ir::SignedOverflow;
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
    #[serde(default)]
    fields: FieldsEntry,
}

/// `[fields]`: what the project does to the compared files' fields.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FieldsEntry {
    #[serde(default)]
    written_outside: Vec<CalleePattern>,
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

/// What a project file says about checking: the parts of the core's
/// options that describe the project rather than the user's preference.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectSettings {
    /// `[callees]`.
    pub callees: CalleeDeclarations,
    /// `[c] signed-overflow`.
    pub signed_overflow: SignedOverflow,
    /// `[fields] written-outside`.
    pub written_outside: Vec<String>,
}

/// A project file, read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Project {
    /// `[[pair]]`: (old, new), relative to the file's directory, as written.
    pub pairs: Vec<(PathBuf, PathBuf)>,
    pub settings: ProjectSettings,
}

/// A mistake in a project file: where (one-based line and column, when
/// the parser knows) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectError {
    pub at: Option<(usize, usize)>,
    pub message: String,
}

impl ProjectError {
    /// `eqlens.toml:3:1: unknown field …`, naming `file`.
    pub fn in_file(&self, file: &Path) -> String {
        match self.at {
            Some((line, col)) => format!("{}:{line}:{col}: {}", file.display(), self.message),
            None => format!("{}: {}", file.display(), self.message),
        }
    }
}

/// Reads the text of a project file.
pub fn parse(text: &str) -> Result<Project, ProjectError> {
    let file: ProjectFile = toml::from_str(text).map_err(|e| ProjectError {
        at: e.span().map(|s| {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            (line, col)
        }),
        message: e.message().to_string(),
    })?;
    let names = |list: Vec<CalleePattern>| list.into_iter().map(|p| p.0).collect();
    Ok(Project {
        pairs: file.pair.into_iter().map(|p| (p.old, p.new)).collect(),
        settings: ProjectSettings {
            callees: CalleeDeclarations {
                pure: names(file.callees.pure),
                impure: names(file.callees.impure),
            },
            signed_overflow: file.c.signed_overflow,
            written_outside: names(file.fields.written_outside),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_file_is_read_and_its_mistakes_located() {
        let p = parse("[[pair]]\nold = \"a\"\nnew = \"b\"\n[c]\nsigned-overflow = \"wraps\"\n")
            .unwrap();
        assert_eq!(p.pairs, [(PathBuf::from("a"), PathBuf::from("b"))]);
        assert_eq!(p.settings.signed_overflow, SignedOverflow::Wraps);
        let f = parse("[fields]\nwritten-outside = [\"Config.limit\", \"g_*\"]\n").unwrap();
        assert_eq!(f.settings.written_outside, ["Config.limit", "g_*"]);
        let e = parse("[fields]\nwritten-outside = [\"a b\"]\n").unwrap_err();
        assert_eq!(e.at.map(|a| a.0), Some(2));
        assert_eq!(parse("").unwrap(), Project::default());
        let e = parse("[[pair]]\nold = \"a\"\nnwe = \"b\"\n").unwrap_err();
        assert_eq!(e.at, Some((3, 1)));
        assert!(e.message.contains("nwe"), "{e:?}");
        assert!(
            e.in_file(Path::new("/w/eqlens.toml"))
                .starts_with("/w/eqlens.toml:3:1: ")
        );
    }
}
