//! `eqlens.toml`, the project file: pairs of files that are versions of
//! each other when their names do not say so.
//!
//! ```toml
//! [[pair]]
//! old = "legacy/Billing.java"   # the baseline
//! new = "src/Billing.java"      # the document being edited
//! ```
//!
//! Paths are relative to the directory of the `eqlens.toml`; the nearest
//! one above a document applies. The file is read whenever a paired
//! baseline is resolved (it is small), so edits to it apply on the next
//! re-check. Mistakes are reported with the file, line and column.

use serde::Deserialize;
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "eqlens.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    #[serde(default)]
    pair: Vec<PairEntry>,
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

fn partner_in(file: &Path, text: &str, path: &Path) -> Result<Option<PathBuf>, String> {
    let project: ProjectFile = toml::from_str(text).map_err(|e| {
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
    })?;
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
}
