//! Settings: from `initializationOptions` and
//! `workspace/didChangeConfiguration`. Each setting is validated on its
//! own: a bad value is reported (the caller shows it with
//! `window/showMessage`) and the previous value kept, so one typo never
//! stops the server nor resets the other settings.

use eqlens_core::check::{CheckerKind, LOOP_BOUND_RANGE, Options, TIMEOUT_MS_RANGE};
use eqlens_core::ir::Semantics;
use serde_json::Value;

/// Where the version to compare against comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaselineMode {
    /// The file at a git ref (`gitRef`, default `HEAD`).
    Git,
    /// A snapshot taken with `eqlens.pinBaseline`.
    Pinned,
    /// A sibling file: `X.orig` for `X`, `oldV.*` for `newV.*`.
    Paired,
}

/// Which methods get a lens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LensVerbosity {
    Off,
    /// Changed methods only (the default).
    Changed,
    /// Changed methods, and `unchanged` on the others.
    All,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub baseline: BaselineMode,
    pub git_ref: String,
    pub semantics: Semantics,
    pub checker: CheckerKind,
    pub timeout_ms: u64,
    pub loop_bound: u32,
    pub lens: LensVerbosity,
    pub debounce_ms: u64,
    /// Larger documents are not checked (the lens-less status says why).
    pub max_file_bytes: usize,
    /// Pinned baselines are also saved under `.eqlens/pins/` in the
    /// workspace, and come back when the file is opened again.
    pub persist_pins: bool,
    /// `false`: git is never run, so the `git` mode has no baseline. For a
    /// workspace the editor does not trust, whose repository configuration
    /// is not to be acted on at all.
    pub run_git: bool,
    /// Not a client setting: what the document's `eqlens.toml` declares
    /// about calls outside the files, filled in per check.
    pub callees: eqlens_core::check::CalleeDeclarations,
    /// Not a client setting either: how the project's C is compiled
    /// (`eqlens.toml` `[c] signed-overflow`), filled in per check.
    pub signed_overflow: eqlens_core::ir::SignedOverflow,
    /// Not a client setting: the fields `eqlens.toml` declares written
    /// outside the files (`[fields] written-outside`), filled in per check.
    pub written_outside: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        let o = Options::default();
        Settings {
            baseline: BaselineMode::Git,
            git_ref: "HEAD".into(),
            semantics: o.semantics,
            checker: o.checker,
            timeout_ms: o.timeout_ms,
            loop_bound: o.loop_bound,
            lens: LensVerbosity::Changed,
            debounce_ms: 300,
            max_file_bytes: 1 << 20,
            persist_pins: false,
            run_git: true,
            callees: Default::default(),
            signed_overflow: o.signed_overflow,
            written_outside: Vec::new(),
        }
    }
}

const KNOWN: &[&str] = &[
    "baseline",
    "gitRef",
    "semantics",
    "checker",
    "timeoutMs",
    "loopBound",
    "lens",
    "debounceMs",
    "maxFileBytes",
    "persistPins",
    "runGit",
];

/// Keys of the `eqlens` section that belong to the editor client, not to
/// the server: ignored rather than reported as unknown.
const CLIENT_SIDE: &[&str] = &["server", "trace"];

impl Settings {
    /// The core's options for these settings (overrides are per method and
    /// added by the scheduler).
    pub fn options(&self) -> Options {
        Options {
            semantics: self.semantics,
            checker: self.checker,
            loop_bound: self.loop_bound,
            timeout_ms: self.timeout_ms,
            overrides: Vec::new(),
            callees: self.callees.clone(),
            signed_overflow: self.signed_overflow,
            written_outside: self.written_outside.clone(),
        }
    }

    /// Applies the settings present in `value` (either the settings object
    /// itself or `{"eqlens": {...}}`, as `didChangeConfiguration` sends it).
    /// Returns one message per rejected setting.
    pub fn update(&mut self, value: &Value) -> Vec<String> {
        let obj = match value.get("eqlens").unwrap_or(value) {
            Value::Object(o) => o,
            Value::Null => return Vec::new(),
            // Lua clients encode an empty table as an array.
            Value::Array(a) if a.is_empty() => return Vec::new(),
            other => return vec![format!("eqlens settings must be an object, got {other}")],
        };
        let mut problems = Vec::new();
        for (key, v) in obj {
            // Client-side settings that editors keep in the same section
            // (`eqlens.server.path`, `eqlens.trace.server`).
            if CLIENT_SIDE.contains(&key.as_str()) {
                continue;
            }
            if let Err(e) = self.set(key, v) {
                problems.push(format!(
                    "eqlens setting '{key}': {e} (kept the previous value)"
                ));
            }
        }
        problems
    }

    fn set(&mut self, key: &str, v: &Value) -> Result<(), String> {
        let text = || {
            v.as_str()
                .ok_or_else(|| format!("expected a string, got {v}"))
        };
        let number = |min: u64, max: u64| -> Result<u64, String> {
            match v.as_u64() {
                Some(n) if (min..=max).contains(&n) => Ok(n),
                _ => Err(format!("expected an integer in {min}..={max}, got {v}")),
            }
        };
        match key {
            "baseline" => {
                self.baseline = match text()? {
                    "git" => BaselineMode::Git,
                    "pinned" => BaselineMode::Pinned,
                    "paired" => BaselineMode::Paired,
                    s => return Err(format!("unknown mode '{s}' (known: git, pinned, paired)")),
                }
            }
            "gitRef" => {
                let r = text()?;
                // `git show <ref>:<path>`: a ref with a colon or a leading
                // dash would change what git is asked.
                if r.is_empty()
                    || r.starts_with('-')
                    || r.contains(':')
                    || r.contains(char::is_whitespace)
                {
                    return Err(format!("'{r}' is not a git ref"));
                }
                self.git_ref = r.to_string();
            }
            "semantics" => {
                self.semantics = match text()? {
                    "math" => Semantics::Math,
                    "machine" => Semantics::Machine,
                    s => return Err(format!("unknown semantics '{s}' (known: math, machine)")),
                }
            }
            "checker" => {
                let s = text()?;
                self.checker = CheckerKind::from_name(s).ok_or_else(|| {
                    let known: Vec<&str> = CheckerKind::ALL.iter().map(|c| c.name()).collect();
                    format!("unknown checker '{s}' (known: {})", known.join(", "))
                })?;
            }
            "timeoutMs" => {
                self.timeout_ms = number(*TIMEOUT_MS_RANGE.start(), *TIMEOUT_MS_RANGE.end())?
            }
            "loopBound" => {
                let (lo, hi) = (*LOOP_BOUND_RANGE.start(), *LOOP_BOUND_RANGE.end());
                // In range, so it fits a u32.
                self.loop_bound = number(u64::from(lo), u64::from(hi))? as u32
            }
            "lens" => {
                self.lens = match text()? {
                    "off" => LensVerbosity::Off,
                    "changed" => LensVerbosity::Changed,
                    "all" => LensVerbosity::All,
                    s => {
                        return Err(format!(
                            "unknown lens verbosity '{s}' (known: off, changed, all)"
                        ));
                    }
                }
            }
            "debounceMs" => self.debounce_ms = number(0, 10_000)?,
            "maxFileBytes" => self.max_file_bytes = number(1, 1 << 30)? as usize,
            "persistPins" => {
                self.persist_pins = v
                    .as_bool()
                    .ok_or_else(|| format!("expected true or false, got {v}"))?
            }
            "runGit" => {
                self.run_git = v
                    .as_bool()
                    .ok_or_else(|| format!("expected true or false, got {v}"))?
            }
            _ => {
                return Err(format!("unknown setting (known: {})", KNOWN.join(", ")));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bad_values_are_reported_and_the_rest_applied() {
        let mut s = Settings::default();
        let problems = s.update(&json!({"eqlens": {
            "checker": "ardiff", "loopBound": "many", "baseline": "svn", "lens": "all"
        }}));
        assert_eq!(s.checker, CheckerKind::Ardiff);
        assert_eq!(s.lens, LensVerbosity::All);
        assert_eq!(s.loop_bound, Settings::default().loop_bound);
        assert_eq!(s.baseline, BaselineMode::Git);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(s.update(&json!(3)).len() == 1);
        assert!(s.update(&json!([])).is_empty());
        assert!(
            s.update(&json!({"eqlens": {"server": {"path": "/x"}, "trace": {"server": "off"}}}))
                .is_empty()
        );
        assert!(s.update(&json!({"gitRef": "--output=x"})).len() == 1);
    }
}
