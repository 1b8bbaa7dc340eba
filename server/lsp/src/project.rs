//! `eqlens.toml`, the project file, found and applied: the nearest one
//! above a document names its baseline (`[[pair]]`) and the project's
//! settings. The file is read whenever a paired baseline is resolved (it
//! is small), so edits to it apply on the next re-check. Its format and its
//! reading are the core's (`eqlens_core::project`); mistakes are reported
//! with the file, line and column.

#[cfg(test)]
use eqlens_core::check::CalleeDeclarations;
#[cfg(test)]
use eqlens_core::ir::SignedOverflow;
use eqlens_core::project::parse;
pub use eqlens_core::project::{FILE_NAME, ProjectSettings};
use std::path::{Path, PathBuf};

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
    parse(text).map(|p| p.settings).map_err(|e| e.in_file(file))
}

fn partner_in(file: &Path, text: &str, path: &Path) -> Result<Option<PathBuf>, String> {
    let project = parse(text).map_err(|e| e.in_file(file))?;
    let root = file.parent().unwrap_or(Path::new("."));
    let same = |a: &Path, b: &Path| {
        a == b
            || matches!(
                (std::fs::canonicalize(a), std::fs::canonicalize(b)),
                (Ok(x), Ok(y)) if x == y
            )
    };
    Ok(project
        .pairs
        .iter()
        .find(|(_, new)| same(&root.join(new), path))
        .map(|(old, _)| root.join(old)))
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
