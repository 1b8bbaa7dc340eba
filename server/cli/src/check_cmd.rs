//! `eqlens check OLD NEW`: read two files, check them, render, and map the
//! file verdict to an exit status.

use crate::error::{CliError, catch_panic};
use crate::{CheckArgs, Format, json_out, render};
use eqlens_core::check::{FileReport, Selection, Summary, check_sources_within};
use eqlens_core::ir::Lang;
use eqlens_core::lang::lang_of_path;
use std::io::Write;
use std::path::Path;

/// Stack for the checking thread: deep expressions and call chains recurse
/// in the front ends and encoder, and a stack overflow aborts the process
/// (it cannot be caught like a panic).
const CHECK_STACK: usize = 64 << 20;

/// Exit statuses of `check` (like `diff`).
pub const EXIT_EQUIVALENT: u8 = 0;
pub const EXIT_NOT_EQUIVALENT: u8 = 1;
pub const EXIT_WEAKER: u8 = 2;

/// The file-level verdict as `check` reports it: [`FileReport::summary`],
/// except that a report with no paired method proves nothing and is
/// `Unknown` (the core's summary of an empty list is vacuously equivalent).
pub fn file_summary(report: &FileReport) -> Summary {
    if report.methods.is_empty() {
        Summary::Unknown
    } else {
        report.summary()
    }
}

pub fn exit_status(summary: Summary) -> u8 {
    match summary {
        Summary::Equivalent => EXIT_EQUIVALENT,
        Summary::NotEquivalent => EXIT_NOT_EQUIVALENT,
        Summary::EquivalentBounded | Summary::Unknown => EXIT_WEAKER,
    }
}

fn lang_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Java => "Java",
        Lang::C => "C",
    }
}

/// The language of `path` from its extension, or a usage error naming the
/// file (`role` is `OLD` or `NEW`).
pub fn lang_of(path: &Path, role: &str) -> Result<Lang, CliError> {
    let text = path.to_string_lossy();
    lang_of_path(&text).ok_or_else(|| {
        let ext = match path.extension() {
            Some(e) => format!("extension '.{}'", e.to_string_lossy()),
            None => "no extension".to_string(),
        };
        CliError::usage(format!(
            "{role} file '{}' has {ext}: cannot tell its language (expected .java, .c or .h)",
            path.display()
        ))
    })
}

/// That `path` names something a source file can be read from, before its
/// extension is looked at: a directory (`eqlens check src new.java`) or a
/// missing path is named as such, not as a file with an unknown extension.
/// Other failures (permissions, a path component that is a file) are left
/// to [`read_source`], which names them.
pub fn check_operand(path: &Path, role: &str) -> Result<(), CliError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(CliError::usage(format!(
            "{role} '{}' is a directory, expected a .java, .c or .h file",
            path.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(CliError::usage(format!(
            "cannot read {role} file '{}': no such file",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Reads a source file as UTF-8 text, or a usage error naming the file and
/// the reason.
pub fn read_source(path: &Path, role: &str) -> Result<String, CliError> {
    let bytes = std::fs::read(path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            std::io::ErrorKind::IsADirectory => "is a directory".to_string(),
            _ => e.to_string(),
        };
        CliError::usage(format!(
            "cannot read {role} file '{}': {why}",
            path.display()
        ))
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        CliError::usage(format!(
            "{role} file '{}' is not valid UTF-8 (first bad byte at offset {at})",
            path.display()
        ))
    })
}

/// With `--method NAME` and nothing paired: which version lacks it.
fn method_not_found(report: &FileReport, name: &str, old: &Path, new: &Path) -> CliError {
    // `B.f` or `B.f(int)` names the methods whose qualified name ends so.
    let path = name.split('(').next().unwrap_or(name).trim();
    let arities = |list: &[eqlens_core::check::Unpaired]| {
        list.iter()
            .filter(|u| {
                u.qualified == path
                    || u.qualified
                        .strip_suffix(path)
                        .is_some_and(|rest| rest.ends_with('.'))
            })
            .map(|u| u.label.clone())
            .collect::<Vec<_>>()
    };
    let in_old = arities(&report.removed);
    let in_new = arities(&report.added);
    let msg = match (in_old.is_empty(), in_new.is_empty()) {
        (true, true) => format!(
            "method '{name}' not found in OLD file '{}' nor in NEW file '{}'",
            old.display(),
            new.display()
        ),
        (false, true) => format!(
            "method '{name}' not found in NEW file '{}' (only the old version has it)",
            new.display()
        ),
        (true, false) => format!(
            "method '{name}' not found in OLD file '{}' (only the new version has it)",
            old.display()
        ),
        (false, false) => format!(
            "method '{name}' has different parameter counts: OLD file '{}' has {}, NEW file '{}' has {}",
            old.display(),
            in_old.join(", "),
            new.display(),
            in_new.join(", ")
        ),
    };
    CliError::usage(msg)
}

/// With `--method NAME` matching more than one method (`f` in two classes,
/// or overloads): which ones, and how to name one. All of them are checked.
fn ambiguity_note(report: &FileReport, name: &str) -> Option<String> {
    if report.methods.len() < 2 {
        return None;
    }
    let labels: Vec<&str> = report.methods.iter().map(|m| m.label.as_str()).collect();
    let nested = report
        .methods
        .iter()
        .map(|m| m.qualified.as_str())
        .filter(|q| *q != report.methods[0].qualified)
        .max_by_key(|q| q.matches('.').count());
    let how = match nested {
        Some(q) => format!("name one with its class (--method {q})"),
        None => format!("add the parameter types (--method '{name}(int)')"),
    };
    Some(format!(
        "--method {name} matches {} methods ({}), all checked; {how} to check one",
        labels.len(),
        labels.join(", ")
    ))
}

pub fn run(args: &CheckArgs) -> Result<u8, CliError> {
    check_operand(&args.old, "OLD")?;
    check_operand(&args.new, "NEW")?;
    let old_lang = lang_of(&args.old, "OLD")?;
    let new_lang = lang_of(&args.new, "NEW")?;
    if old_lang != new_lang {
        return Err(CliError::usage(format!(
            "OLD file '{}' is {} but NEW file '{}' is {}: both versions must be in the same language",
            args.old.display(),
            lang_name(old_lang),
            args.new.display(),
            lang_name(new_lang)
        )));
    }
    if let Some(name) = &args.method
        && name.trim().is_empty()
    {
        return Err(CliError::usage("--method needs a non-empty method name"));
    }
    let old_src = read_source(&args.old, "OLD")?;
    let new_src = read_source(&args.new, "NEW")?;
    let selection = match &args.method {
        Some(name) => Selection::Method(name.clone()),
        None => Selection::All,
    };
    let mut options = args.options();
    // The nearest eqlens.toml above NEW, as in the editor: its `[callees]`
    // say which calls outside the files are pure or impure, its `[c]` how
    // the C is compiled (a `--signed-overflow` given here wins). Searched
    // from the absolute path, so that a relative NEW still finds the
    // project's file in a directory above the current one.
    let new_path = std::fs::canonicalize(&args.new).unwrap_or_else(|_| args.new.clone());
    let project = eqlens_server::project::settings(&new_path).map_err(CliError::usage)?;
    options.callees = project.callees;
    options.written_outside = project.written_outside;
    if args.common.signed_overflow.is_none() {
        options.signed_overflow = project.signed_overflow;
    }
    crate::error::install_quiet_panic_hook();
    let budget = args.common.file_budget();
    let check = || {
        catch_panic(|| {
            check_sources_within(old_lang, &old_src, &new_src, &selection, &options, budget)
        })
    };
    // On a thread with a large stack: deep nesting recurses in the front
    // ends, and a stack overflow aborts instead of unwinding.
    let report = std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .stack_size(CHECK_STACK)
            .spawn_scoped(scope, check)
        {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|_| Err("the checking thread failed".to_string())),
            Err(_) => check(),
        }
    })
    .map_err(CliError::Internal)?;
    if let Some(name) = &args.method
        && report.methods.is_empty()
    {
        return Err(method_not_found(&report, name, &args.old, &args.new));
    }
    if let Some(note) = args
        .method
        .as_deref()
        .and_then(|name| ambiguity_note(&report, name))
    {
        let _ = writeln!(anstream::stderr().lock(), "eqlens: {note}");
    }
    let summary = file_summary(&report);
    let text = match args.format {
        Format::Text => render::render_text(&report),
        Format::Json => json_out::check_json(&report, &args.old, &args.new, summary) + "\n",
    };
    let mut out = anstream::stdout().lock();
    // A closed pipe (`eqlens check ... | head`) is not worth a panic; the
    // exit status still tells the verdict.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(exit_status(summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ambiguous_method_name_is_explained() {
        let src = "class A { static int f(int x) { return x; } static class B { static int f(int x) { return x + 1; } } }";
        let report = eqlens_core::check::check_sources(
            Lang::Java,
            src,
            src,
            &Selection::Method("f".into()),
            &eqlens_core::check::Options::default(),
        );
        let note = ambiguity_note(&report, "f").expect("two methods named f");
        assert!(note.contains("A.f(1), A.B.f(1)"), "{note}");
        assert!(note.contains("--method A.B.f"), "{note}");
        let one = eqlens_core::check::check_sources(
            Lang::Java,
            src,
            src,
            &Selection::Method("B.f".into()),
            &eqlens_core::check::Options::default(),
        );
        assert_eq!(ambiguity_note(&one, "B.f"), None);
    }

    #[test]
    fn exit_statuses_follow_diff() {
        assert_eq!(exit_status(Summary::Equivalent), 0);
        assert_eq!(exit_status(Summary::NotEquivalent), 1);
        assert_eq!(exit_status(Summary::EquivalentBounded), 2);
        assert_eq!(exit_status(Summary::Unknown), 2);
    }

    #[test]
    fn empty_report_is_unknown() {
        let r = FileReport {
            lang: Lang::C,
            syntax_errors: Vec::new(),
            methods: vec![],
            added: vec![],
            removed: vec![],
        };
        assert_eq!(file_summary(&r), Summary::Unknown);
    }

    #[test]
    fn unknown_extension_names_file() {
        let e = lang_of(Path::new("dir/a.py"), "OLD").unwrap_err();
        assert!(
            e.to_string().contains("'dir/a.py'") && e.to_string().contains(".py"),
            "{e}"
        );
        let e = lang_of(Path::new("Makefile"), "NEW").unwrap_err();
        assert!(e.to_string().contains("no extension"), "{e}");
        assert_eq!(lang_of(Path::new("x/A.java"), "OLD"), Ok(Lang::Java));
    }

    #[test]
    fn missing_file_is_named() {
        let e = read_source(Path::new("/nonexistent/eqlens/x.c"), "OLD").unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read OLD file '/nonexistent/eqlens/x.c': no such file"
        );
        assert_eq!(e.exit_code(), 3);
    }

    #[test]
    fn directory_and_missing_operands_are_named_before_extensions() {
        let dir = std::env::temp_dir();
        let e = check_operand(&dir, "OLD").unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "OLD '{}' is a directory, expected a .java, .c or .h file",
                dir.display()
            )
        );
        let e = check_operand(Path::new("/nonexistent/eqlens/Makefile"), "NEW").unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read NEW file '/nonexistent/eqlens/Makefile': no such file"
        );
    }

    #[test]
    fn method_not_found_says_which_file() {
        use eqlens_core::check::Unpaired;
        let u = |a| Unpaired {
            name: "f".into(),
            arity: a,
            qualified: "f".into(),
            label: format!("f({a})"),
            span: Default::default(),
        };
        let (o, n) = (Path::new("o.c"), Path::new("n.c"));
        let r = FileReport {
            lang: Lang::C,
            syntax_errors: Vec::new(),
            methods: vec![],
            added: vec![],
            removed: vec![u(1)],
        };
        assert!(
            method_not_found(&r, "f", o, n)
                .to_string()
                .contains("not found in NEW file 'n.c'")
        );
        let r = FileReport {
            lang: Lang::C,
            syntax_errors: Vec::new(),
            methods: vec![],
            added: vec![u(2)],
            removed: vec![],
        };
        assert!(
            method_not_found(&r, "f", o, n)
                .to_string()
                .contains("not found in OLD file 'o.c'")
        );
        let r = FileReport {
            lang: Lang::C,
            syntax_errors: Vec::new(),
            methods: vec![],
            added: vec![u(2)],
            removed: vec![u(1)],
        };
        assert!(
            method_not_found(&r, "f", o, n)
                .to_string()
                .contains("different parameter counts")
        );
        let r = FileReport {
            lang: Lang::C,
            syntax_errors: Vec::new(),
            methods: vec![],
            added: vec![],
            removed: vec![],
        };
        assert!(
            method_not_found(&r, "g", o, n)
                .to_string()
                .contains("nor in NEW")
        );
    }
}
