//! Benchmark corpora in the EqBench layout:
//! `DIR/<benchmark>/<program>/<Eq|Neq>/{oldV,newV}.{java,c}` with
//! `J-Desc.json` / `C-Desc.json` naming the entry method.
//!
//! Pairs are found by walking for `Eq`/`Neq` directories at any depth (some
//! corpora nest differently). Description files are hand-written and not
//! always valid JSON, so the entry name is read leniently; a pair without a
//! description is a whole-program pair (every shared method is checked).

use eqlens_core::ir::Lang;
use std::path::{Path, PathBuf};

/// How deep the walk goes before giving up on a branch (guards against
/// pathological trees; EqBench pairs sit at depth 3).
const MAX_DEPTH: usize = 12;

/// The expected answer of a pair, from its directory name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Label {
    Eq,
    Neq,
}

impl Label {
    pub fn name(self) -> &'static str {
        match self {
            Label::Eq => "Eq",
            Label::Neq => "Neq",
        }
    }
}

/// One `Eq`/`Neq` directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairDir {
    /// Path relative to the corpus root with `/` separators, e.g.
    /// `tsafe/conflict/Neq`: stable across machines, used in every output.
    pub id: String,
    pub dir: PathBuf,
    pub label: Label,
    /// Why the directory's label was replaced (see `--disputed-labels`).
    pub disputed: Option<String>,
}

/// A corpus label known to be wrong, with the evidence.
#[derive(Debug, serde::Deserialize)]
pub struct DisputedLabel {
    pub pair: String,
    /// The corrected label.
    pub label: String,
    pub reason: String,
}

/// Applies corrected labels; an entry naming no discovered pair is an error
/// (a stale list should not pass silently).
pub fn apply_disputed(pairs: &mut [PairDir], disputed: &[DisputedLabel]) -> Result<(), String> {
    for d in disputed {
        let label = match d.label.as_str() {
            "Eq" => Label::Eq,
            "Neq" => Label::Neq,
            other => {
                return Err(format!(
                    "disputed label for {}: '{other}' is not Eq or Neq",
                    d.pair
                ));
            }
        };
        let Some(p) = pairs.iter_mut().find(|p| p.id == d.pair) else {
            return Err(format!("disputed label names unknown pair {}", d.pair));
        };
        p.label = label;
        p.disputed = Some(d.reason.clone());
    }
    Ok(())
}

/// Finds every `Eq`/`Neq` directory under `root`, sorted by id.
pub fn discover(root: &Path) -> std::io::Result<Vec<PairDir>> {
    let mut found = Vec::new();
    walk(root, &mut Vec::new(), 0, &mut found)?;
    found.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(found)
}

fn walk(
    dir: &Path,
    rel: &mut Vec<String>,
    depth: usize,
    found: &mut Vec<PairDir>,
) -> std::io::Result<()> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        // `file_type` does not follow symlinks: a link cycle cannot trap us.
        let Ok(ft) = e.file_type() else { continue };
        if !ft.is_dir() {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        rel.push(name.clone());
        let label = match name.as_str() {
            "Eq" => Some(Label::Eq),
            "Neq" => Some(Label::Neq),
            _ => None,
        };
        match label {
            Some(label) => found.push(PairDir {
                id: rel.join("/"),
                dir: e.path(),
                label,
                disputed: None,
            }),
            // An unreadable subdirectory is skipped, not fatal: the rest of
            // the corpus is still worth running.
            None => {
                let _ = walk(&e.path(), rel, depth + 1, found);
            }
        }
        rel.pop();
    }
    Ok(())
}

pub fn extension(lang: Lang) -> &'static str {
    match lang {
        Lang::Java => "java",
        Lang::C => "c",
    }
}

/// `(oldV.ext, newV.ext)` when both exist.
pub fn sources(pair: &PairDir, lang: Lang) -> Option<(PathBuf, PathBuf)> {
    let ext = extension(lang);
    let old = pair.dir.join(format!("oldV.{ext}"));
    let new = pair.dir.join(format!("newV.{ext}"));
    (old.is_file() && new.is_file()).then_some((old, new))
}

/// The entry methods to try for a pair, best first; empty when the pair
/// has no description (a whole-program pair).
pub fn entry_candidates(pair: &PairDir, lang: Lang) -> Vec<String> {
    let file = match lang {
        Lang::Java => "J-Desc.json",
        Lang::C => "C-Desc.json",
    };
    match std::fs::read(pair.dir.join(file)) {
        Ok(bytes) => parse_entries(&String::from_utf8_lossy(&bytes)),
        Err(_) => Vec::new(),
    }
}

/// Keys naming the changed method, compared after dropping case and
/// non-letters (`"method name"`, `"Method_Name"`, `"functionName"`).
const METHOD_KEYS: &[&str] = &["methodname", "functionname"];
/// The key naming the program; `Prog.entry` names the entry point.
const PROGRAM_KEYS: &[&str] = &["programname"];

fn key_norm(k: &str) -> String {
    k.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Entry candidates from a description. In EqBench, `"program name":
/// "Comp.main"` means the behaviour compared is that of `main`, while
/// `"method name": "foo"` is the method that was changed (a callee of
/// `main`): checking `foo` alone would call an intended refactoring "not
/// equivalent". So the program name's method comes first, when it has one,
/// and the method name second (for descriptions where the program name is
/// just a name, like `"conflict"`).
pub fn parse_entries(text: &str) -> Vec<String> {
    let text = text.trim_start_matches('\u{feff}');
    let mut out: Vec<String> = Vec::new();
    if let Some(program) = desc_value(text, PROGRAM_KEYS)
        && program.contains('.')
        && let Some(name) = normalise_name(&program)
    {
        out.push(name);
    }
    if let Some(name) = desc_value(text, METHOD_KEYS).and_then(|m| normalise_name(&m))
        && !out.contains(&name)
    {
        out.push(name);
    }
    out
}

/// The string value of the first of `keys`: strict JSON first, then a
/// textual scan for `"key": "..."` that tolerates trailing commas,
/// comments, missing quotes and the like.
fn desc_value(text: &str, keys: &[&str]) -> Option<String> {
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(text) {
        return map
            .iter()
            .find(|(k, _)| keys.contains(&key_norm(k).as_str()))
            .and_then(|(_, v)| v.as_str())
            .map(str::to_string);
    }
    scan_value(text, keys)
}

fn scan_value(text: &str, keys: &[&str]) -> Option<String> {
    // Every quoted string followed by a colon is a key candidate.
    let mut rest = text;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        let close = after.find('"')?;
        let key = &after[..close];
        let tail = &after[close + 1..];
        let tail_trim = tail.trim_start();
        if let Some(value_part) = tail_trim.strip_prefix(':')
            && keys.contains(&key_norm(key).as_str())
        {
            let v = value_part.trim_start();
            let v = match v.strip_prefix('"') {
                Some(quoted) => quoted.split('"').next().unwrap_or(""),
                None => v.split([',', '\n', '}', '\r']).next().unwrap_or(""),
            };
            return Some(v.trim().to_string());
        }
        rest = tail;
    }
    None
}

/// `Foo.bar(int, int)` → `bar`; blank → none.
fn normalise_name(raw: &str) -> Option<String> {
    let s = raw.trim().trim_matches('\'');
    let s = s.split('(').next().unwrap_or(s).trim();
    let s = s.rsplit(['.', ':']).next().unwrap_or(s).trim();
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    ok.then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> Option<String> {
        parse_entries(text).into_iter().next()
    }

    #[test]
    fn program_entry_comes_first() {
        let t =
            r#"{"benchmark name": "CLEVER", "program name": "Comp.main", "function name": "foo"}"#;
        assert_eq!(parse_entries(t), ["main", "foo"]);
        let t = r#"{"program name": "triangularMod.f", "function name": "f"}"#;
        assert_eq!(parse_entries(t), ["f"]);
        let t = r#"{"program name": "conflict", "method name": "snippet"}"#;
        assert_eq!(parse_entries(t), ["snippet"]);
        let t = "{\"program name\": \"P.client\", \"method name\": \"lib\",}";
        assert_eq!(parse_entries(t), ["client", "lib"]);
    }

    #[test]
    fn strict_json() {
        assert_eq!(
            first(r#"{"benchmark name": "x", "method name": "snippet", "LOC": 3}"#).as_deref(),
            Some("snippet")
        );
        assert_eq!(first(r#"{"function name": "lib"}"#).as_deref(), Some("lib"));
    }

    #[test]
    fn sloppy_json() {
        let t = "{\n \"method name\": \"foo\",\n \"changes\": [ {\"a\": 1}, ],\n}";
        assert_eq!(first(t).as_deref(), Some("foo"));
        assert_eq!(first("{ \"Method_Name\" : bar , }").as_deref(), Some("bar"));
        assert_eq!(
            first("\u{feff}{\"functionName\":\"Cls.baz(int a)\"}").as_deref(),
            Some("baz")
        );
    }

    #[test]
    fn missing_or_blank_entry() {
        assert_eq!(first(r#"{"benchmark name": "x"}"#), None);
        assert_eq!(first(r#"{"method name": "  "}"#), None);
        assert_eq!(first("not json at all \"method name"), None);
        assert_eq!(first(""), None);
    }

    #[test]
    fn discovery_finds_pairs_at_any_depth() {
        let root = std::env::temp_dir().join(format!("eqlens-corpus-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for d in ["a/p/Eq", "a/p/Neq", "b/Eq", "c/d/e/Neq"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("a/p/Eq/oldV.c"), "").unwrap();
        std::fs::write(root.join("a/p/Eq/newV.c"), "").unwrap();
        let pairs = discover(&root).unwrap();
        let ids: Vec<&str> = pairs.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["a/p/Eq", "a/p/Neq", "b/Eq", "c/d/e/Neq"]);
        assert_eq!(pairs[1].label, Label::Neq);
        assert!(sources(&pairs[0], Lang::C).is_some());
        assert!(sources(&pairs[0], Lang::Java).is_none());
        assert!(entry_candidates(&pairs[0], Lang::C).is_empty());
        let _ = std::fs::remove_dir_all(&root);
    }
}
