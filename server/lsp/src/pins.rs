//! Pinned baselines on disk: `<workspace>/.eqlens/pins/<path in the
//! workspace>`, written when the `persistPins` setting is on, so that a pin
//! survives closing the file or restarting the editor. The directory gets
//! its own `.gitignore` (`*`): snapshots are not meant to be committed.

use std::path::{Path, PathBuf};

const DIR: &str = ".eqlens";

/// Where the pin of `file` lives, if `file` is inside `root`.
pub fn location(root: &Path, file: &Path) -> Option<PathBuf> {
    let rel = file.strip_prefix(root).ok()?;
    if rel.starts_with(DIR) {
        return None; // a pin is never pinned
    }
    Some(root.join(DIR).join("pins").join(rel))
}

pub async fn save(root: &Path, file: &Path, text: &str) -> Result<PathBuf, String> {
    let at = location(root, file).ok_or_else(|| {
        format!(
            "{} is outside the workspace {}",
            file.display(),
            root.display()
        )
    })?;
    if let Some(dir) = at.parent() {
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let ignore = root.join(DIR).join(".gitignore");
    if !ignore.exists() {
        let _ = tokio::fs::write(&ignore, "*\n").await;
    }
    tokio::fs::write(&at, text)
        .await
        .map_err(|e| format!("cannot write {}: {e}", at.display()))?;
    Ok(at)
}

/// The saved pin of `file`; `None` when there is none (or it is not text).
pub async fn load(root: &Path, file: &Path) -> Option<String> {
    let at = location(root, file)?;
    let bytes = tokio::fs::read(at).await.ok()?;
    String::from_utf8(bytes).ok()
}

pub async fn remove(root: &Path, file: &Path) {
    if let Some(at) = location(root, file) {
        let _ = tokio::fs::remove_file(at).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_mirror_the_workspace_layout() {
        let root = Path::new("/w");
        assert_eq!(
            location(root, Path::new("/w/src/A.java")),
            Some(PathBuf::from("/w/.eqlens/pins/src/A.java"))
        );
        assert_eq!(location(root, Path::new("/elsewhere/A.java")), None);
        assert_eq!(location(root, Path::new("/w/.eqlens/pins/A.java")), None);
    }
}
