//! Baselines: the version a document is compared against.
//!
//! Resolution only reads (git, sibling files); it never fails loudly: a
//! missing baseline is a [`Baseline::Missing`] with a reason, quiet when
//! nothing is wrong (a new file simply has nothing to compare with).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long `git show` may take before the baseline counts as missing.
const GIT_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone, Debug)]
pub enum Baseline {
    Text {
        text: Arc<str>,
        /// `HEAD`, `pinned`, `oldV.java`: shown in hovers and statuses.
        label: String,
        /// The baseline's own file, when it is one (paired mode): related
        /// information then points into it.
        file: Option<PathBuf>,
    },
    Missing {
        reason: String,
        /// Nothing is wrong (new file, a file that is itself a baseline):
        /// no message to the user, only the status.
        quiet: bool,
    },
}

impl Baseline {
    pub fn missing(reason: impl Into<String>, quiet: bool) -> Baseline {
        Baseline::Missing {
            reason: reason.into(),
            quiet,
        }
    }

    /// A baseline from bytes read from git or disk.
    fn from_bytes(bytes: Vec<u8>, label: String, file: Option<PathBuf>) -> Baseline {
        match String::from_utf8(bytes) {
            Ok(text) => Baseline::Text {
                text: text.into(),
                label,
                file,
            },
            Err(_) => Baseline::missing(format!("the baseline ({label}) is not UTF-8 text"), false),
        }
    }
}

/// Settings put on every git command line. Command-line settings win
/// over every configuration file, so whatever the repository's own
/// `.git/config` (or an `include` of it) says, none of the commands below
/// runs a program of its choosing:
/// - `core.fsmonitor`: a hook git runs when it reads the index;
/// - `core.hooksPath`: hooks such as `post-index-change`;
/// - `core.pager`, `diff.external`: a pager or an external diff
///   (`--no-pager`, `--no-ext-diff` say it twice);
/// - `log.showSignature`: `gpg.program` on a commit;
/// - `safe.bareRepository=explicit`: a bare repository committed inside
///   the project (and its configuration) is not picked up as the
///   repository of a file in it.
const SAFE_CONFIG: &[&str] = &[
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "diff.external=",
    "log.showSignature=false",
    "safe.bareRepository=explicit",
];

/// The one way this server runs git: `git <safe settings> <args>` in `dir`,
/// with no terminal prompts, no system configuration, no optional index
/// writes (`GIT_OPTIONAL_LOCKS=0`), and a timeout. `Err` is the baseline to
/// report.
async fn run_git(dir: &Path, args: &[&str]) -> Result<std::process::Output, Baseline> {
    let mut cmd = tokio::process::Command::new("git");
    cmd.arg("--no-pager");
    for setting in SAFE_CONFIG {
        cmd.args(["-c", setting]);
    }
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env_remove("GIT_EXTERNAL_DIFF")
        .env_remove("GIT_PAGER")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    match tokio::time::timeout(GIT_TIMEOUT, cmd.output()).await {
        Err(_) => Err(Baseline::missing(
            format!("git {} timed out", args.join(" ")),
            false,
        )),
        Ok(Err(e)) => Err(Baseline::missing(format!("could not run git: {e}"), false)),
        Ok(Ok(o)) => Ok(o),
    }
}

/// The file at `git_ref`, through `git show <ref>:./<name>` run in the
/// file's directory (so the path is resolved by git, relative to the
/// repository the file is in). A file that is not at the ref under its
/// name but was renamed (a rename git detects among staged changes: `git
/// mv`, or `git add` of both sides) is compared with its old self.
pub async fn git(path: &Path, git_ref: &str) -> Baseline {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Baseline::missing(format!("{} is not a file path", path.display()), false);
    };
    let name = name.to_string_lossy();
    let spec = format!("{git_ref}:./{name}");
    let output = match run_git(dir, &["show", "--no-textconv", &spec]).await {
        Ok(o) => o,
        Err(b) => return b,
    };
    if output.status.success() {
        return Baseline::from_bytes(output.stdout, git_ref.to_string(), None);
    }
    let err = String::from_utf8_lossy(&output.stderr);
    if err.contains("not a git repository") {
        Baseline::missing(
            format!(
                "{} is not inside a git repository: no git baseline (use the pinned or paired mode)",
                path.display()
            ),
            false,
        )
    } else if err.contains("exists on disk, but not in") || err.contains("does not exist in") {
        if let Some(old) = renamed_from(dir, &name, git_ref).await {
            let spec = format!("{git_ref}:{old}");
            if let Ok(o) = run_git(dir, &["show", "--no-textconv", &spec]).await
                && o.status.success()
            {
                return Baseline::from_bytes(o.stdout, spec, None);
            }
        }
        Baseline::missing(
            format!(
                "new file: not in {git_ref}, nothing to compare (if it was renamed, `git add` it so that git can detect the rename)"
            ),
            true,
        )
    } else if err.contains("invalid object name") || err.contains("bad revision") {
        Baseline::missing(
            format!("git ref '{git_ref}' not found (a shallow clone or no commit yet?)"),
            false,
        )
    } else {
        Baseline::missing(format!("git show {spec} failed: {}", err.trim()), false)
    }
}

/// The repository path `name` (in `dir`) had at `git_ref`, when git's
/// rename detection pairs them in the staged changes.
///
/// This is the one command that reads the index. It compares the ref with
/// the index only (`--cached`): the working tree is not read, so no clean
/// filter (`filter.<driver>.clean`, named by the project's
/// `.gitattributes`) runs, and the index is loaded with `core.fsmonitor`
/// off (`SAFE_CONFIG`), not refreshed, not rewritten.
async fn renamed_from(dir: &Path, name: &str, git_ref: &str) -> Option<String> {
    let prefix = run_git(dir, &["rev-parse", "--show-prefix"]).await.ok()?;
    let me = format!("{}{name}", String::from_utf8_lossy(&prefix.stdout).trim());
    let diff = run_git(
        dir,
        &[
            "diff",
            "--cached",
            "--no-ext-diff",
            "--no-textconv",
            "--name-status",
            "-M",
            "-z",
            git_ref,
            "--",
        ],
    )
    .await
    .ok()?;
    if !diff.status.success() {
        return None;
    }
    rename_source(&String::from_utf8_lossy(&diff.stdout), &me)
}

/// In `git diff --name-status -z` output, the source of the rename whose
/// destination is `dest`.
fn rename_source(out: &str, dest: &str) -> Option<String> {
    let mut fields = out.split('\0').filter(|f| !f.is_empty());
    while let Some(status) = fields.next() {
        if status.starts_with('R') {
            let (from, to) = (fields.next()?, fields.next()?);
            if to == dest {
                return Some(from.to_string());
            }
        } else if status.starts_with('C') {
            fields.next()?;
            fields.next()?;
        } else {
            fields.next()?;
        }
    }
    None
}

/// The paired file of `path`: the one `eqlens.toml` names, else `X.orig`
/// for `X`, `oldV.*` for `newV.*`. `Err` says why there is none: quietly
/// when nothing is wrong (the file is itself a baseline, or has no
/// partner), loudly for a broken `eqlens.toml`.
pub fn paired_path(path: &Path) -> Result<PathBuf, (String, bool)> {
    match crate::project::paired_in_project(path) {
        Ok(Some(partner)) => return Ok(partner),
        Ok(None) => {}
        Err(msg) => return Err((msg, false)),
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.ends_with(".orig") || name.starts_with("oldV") {
        return Err(("this file is a baseline itself".into(), true));
    }
    if let Some(rest) = name.strip_prefix("newV") {
        return Ok(path.with_file_name(format!("oldV{rest}")));
    }
    let orig = path.with_file_name(format!("{name}.orig"));
    if orig.exists() {
        return Ok(orig);
    }
    Err((
        format!(
            "no paired file for {name} (expected {name}.orig, oldV.* beside newV.*, or a [[pair]] in eqlens.toml)"
        ),
        true,
    ))
}

/// Reads the paired file from disk (the caller prefers an open document's
/// text when the client has the partner open).
pub async fn paired(path: &Path) -> Baseline {
    let partner = match paired_path(path) {
        Ok(p) => p,
        Err((reason, quiet)) => return Baseline::missing(reason, quiet),
    };
    let label = partner
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match tokio::fs::read(&partner).await {
        Ok(bytes) => Baseline::from_bytes(bytes, label, Some(partner)),
        Err(e) => Baseline::missing(format!("cannot read {}: {e}", partner.display()), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_sources_from_name_status_output() {
        let out = "M\0a.txt\0R087\0old/B.java\0src/B.java\0C100\0x\0y\0A\0n.c\0";
        assert_eq!(
            rename_source(out, "src/B.java").as_deref(),
            Some("old/B.java")
        );
        assert_eq!(rename_source(out, "y"), None);
        assert_eq!(rename_source(out, "n.c"), None);
        assert_eq!(rename_source("", "n.c"), None);
    }

    #[test]
    fn paired_names() {
        assert_eq!(
            paired_path(Path::new("/x/newV.java")).ok(),
            Some(PathBuf::from("/x/oldV.java"))
        );
        assert!(paired_path(Path::new("/x/oldV.c")).is_err());
        assert!(paired_path(Path::new("/x/A.java.orig")).is_err());
        assert!(paired_path(Path::new("/nonexistent/A.java")).is_err());
    }
}
