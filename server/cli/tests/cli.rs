//! Integration tests of the `eqlens` binary: exit statuses, usage errors,
//! text and JSON output, and a bench run on a tiny corpus.
//!
//! Tests marked "verdict" need the core's front ends and checker; the
//! usage-error tests need only the CLI.

mod support;

use std::path::Path;
use std::process::{Command, Output};
use support::Scratch;

fn eqlens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eqlens"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run eqlens")
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 temp path")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[track_caller]
fn assert_status(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
}

const JAVA_ADD: &str =
    "class A {\n    static int f(int a, int b) {\n        return a + b;\n    }\n}\n";
const JAVA_ADD_SWAPPED: &str =
    "class A {\n    static int f(int a, int b) {\n        return b + a;\n    }\n}\n";
const JAVA_ADD_ONE: &str = "class A {\n    static int f(int a, int b) {\n        if (a == 10) {\n            return a + b + 1;\n        }\n        return a + b;\n    }\n}\n";

// ---------------------------------------------------------------- usage errors

#[test]
fn no_arguments_is_a_usage_error() {
    let o = eqlens(&[]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(
        err.starts_with("eqlens: error: missing command") && err.contains("check"),
        "{err}"
    );
}

/// A usage error as `docs/cli.md` describes it: exit 3, one
/// `eqlens: error: …` line, then the help to try; returns the first line.
#[track_caller]
fn usage_error(o: &Output, help: &str) -> String {
    assert_status(o, 3);
    let err = stderr(o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "an error line and a hint line: {err}");
    assert!(lines[0].starts_with("eqlens: error: "), "{err}");
    assert_eq!(lines[1], format!("  (try '{help}')"), "{err}");
    lines[0].to_string()
}

#[test]
fn option_errors_are_one_line_naming_the_option_and_value() {
    let s = Scratch::new("clapline");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD);
    let check = |extra: &[&str]| {
        let mut args = vec!["check", p(&old), p(&new)];
        args.extend_from_slice(extra);
        eqlens(&args)
    };
    let e = usage_error(&check(&["--loop-bound", "-1"]), "eqlens check --help");
    assert_eq!(
        e,
        "eqlens: error: invalid value '-1' for --loop-bound: must be an integer from 1 to 10000"
    );
    let e = usage_error(&check(&["--nope"]), "eqlens check --help");
    assert_eq!(e, "eqlens: error: unknown option '--nope'");
    let e = usage_error(&check(&["--format", "xml"]), "eqlens check --help");
    assert_eq!(
        e,
        "eqlens: error: invalid value 'xml' for --format: expected text or json"
    );
    let e = usage_error(&check(&["--format"]), "eqlens check --help");
    assert_eq!(e, "eqlens: error: --format needs a value: text or json");
    let e = usage_error(&check(&["--checker", "oracle"]), "eqlens check --help");
    assert!(
        e.contains("'oracle' for --checker") && e.contains("symbolic"),
        "{e}"
    );
    let e = usage_error(
        &check(&["--format", "json", "--format", "text"]),
        "eqlens check --help",
    );
    assert_eq!(e, "eqlens: error: --format given more than once");
    let e = usage_error(&eqlens(&["check", p(&old)]), "eqlens check --help");
    assert_eq!(e, "eqlens: error: missing NEW");
    let e = usage_error(&eqlens(&["check"]), "eqlens check --help");
    assert_eq!(e, "eqlens: error: missing OLD and NEW");
    let e = usage_error(&eqlens(&["frobnicate"]), "eqlens --help");
    assert_eq!(
        e,
        "eqlens: error: unknown command 'frobnicate' (expected check, bench or serve)"
    );
    let e = usage_error(
        &eqlens(&["bench", "corpus", "--jobs", "0"]),
        "eqlens bench --help",
    );
    assert_eq!(
        e,
        "eqlens: error: invalid value '0' for --jobs: must be an integer from 1 to 256"
    );
    let e = usage_error(
        &eqlens(&["--color", "sometimes", "check", p(&old), p(&new)]),
        "eqlens check --help",
    );
    assert!(e.contains("'sometimes' for --color"), "{e}");
}

#[test]
fn loop_bound_and_timeout_have_the_editor_settings_ranges() {
    let s = Scratch::new("ranges");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD_SWAPPED);
    for bad in ["0", "10001", "-1", "many", "4294967296"] {
        let o = eqlens(&["check", p(&old), p(&new), "--loop-bound", bad]);
        let e = usage_error(&o, "eqlens check --help");
        assert_eq!(
            e,
            format!(
                "eqlens: error: invalid value '{bad}' for --loop-bound: must be an integer from 1 to 10000"
            )
        );
    }
    for bad in ["0", "-5", "3600001"] {
        let o = eqlens(&["check", p(&old), p(&new), "--timeout-ms", bad]);
        let e = usage_error(&o, "eqlens check --help");
        assert_eq!(
            e,
            format!(
                "eqlens: error: invalid value '{bad}' for --timeout-ms: must be an integer from 1 to 3600000"
            )
        );
    }
    // The ends of the ranges are accepted (bench shares the options).
    let o = eqlens(&[
        "check",
        p(&old),
        p(&new),
        "--loop-bound",
        "10000",
        "--timeout-ms",
        "3600000",
    ]);
    assert_status(&o, 0);
    assert_status(
        &eqlens(&["check", p(&old), p(&new), "--loop-bound", "1"]),
        0,
    );
    let e = usage_error(
        &eqlens(&["bench", p(&s.0), "--loop-bound", "0"]),
        "eqlens bench --help",
    );
    assert!(e.contains("--loop-bound"), "{e}");
}

#[test]
fn the_file_budget_is_validated_and_reports_every_method_it_could_not_check() {
    let s = Scratch::new("total");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD_SWAPPED);
    for bad in ["0", "-5", "86400001"] {
        let o = eqlens(&["check", p(&old), p(&new), "--total-timeout-ms", bad]);
        let e = usage_error(&o, "eqlens check --help");
        assert_eq!(
            e,
            format!(
                "eqlens: error: invalid value '{bad}' for --total-timeout-ms: must be an integer from 1 to 86400000"
            )
        );
    }
    // A generous budget changes nothing.
    assert_status(
        &eqlens(&["check", p(&old), p(&new), "--total-timeout-ms", "86400000"]),
        0,
    );
    // Two methods of 3,000 statements each: lowering alone takes more than
    // a millisecond, so neither is started, and both are reported.
    let body = |name: &str, swapped: bool| {
        let mut m = format!("    static int {name}(int a, int b) {{\n        int x0 = a + b;\n");
        for i in 1..3000 {
            let rhs = if swapped && i == 1500 {
                format!("1 + x{}", i - 1)
            } else {
                format!("x{} + 1", i - 1)
            };
            m.push_str(&format!("        int x{i} = {rhs};\n"));
        }
        m.push_str("        return x2999;\n    }\n");
        m
    };
    let old = s.write(
        "big_a.java",
        format!("class A {{\n{}{}}}\n", body("f", false), body("g", false)),
    );
    let new = s.write(
        "big_b.java",
        format!("class A {{\n{}{}}}\n", body("f", true), body("g", true)),
    );
    let o = eqlens(&[
        "check",
        p(&old),
        p(&new),
        "--total-timeout-ms",
        "1",
        "--format",
        "json",
    ]);
    assert_status(&o, 2);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let methods = doc["methods"].as_array().expect("methods");
    assert_eq!(methods.len(), 2, "{doc}");
    for m in methods {
        assert_eq!(m["verdict"], "unknown", "{m}");
        assert_eq!(m["reason"]["kind"], "file_budget", "{m}");
        assert!(
            m["detail"]
                .as_str()
                .is_some_and(|d| d.contains("file's time budget (1 ms) ran out")),
            "{m}"
        );
    }
}

#[test]
fn help_and_version_succeed() {
    let o = eqlens(&["--help"]);
    assert_status(&o, 0);
    assert!(stdout(&o).contains("check") && stdout(&o).contains("bench"));
    let o = eqlens(&["check", "--help"]);
    assert_status(&o, 0);
    assert!(stdout(&o).contains("--semantics"));
    assert_status(&eqlens(&["--version"]), 0);
}

#[test]
fn unknown_subcommand_and_missing_operand_exit_3() {
    assert_status(&eqlens(&["frobnicate"]), 3);
    let s = Scratch::new("operand");
    let old = s.write("a.java", JAVA_ADD);
    let o = eqlens(&["check", p(&old)]);
    assert_status(&o, 3);
    assert!(stderr(&o).contains("NEW"), "{}", stderr(&o));
}

#[test]
fn missing_file_is_named() {
    let s = Scratch::new("missing");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.path("nope.java");
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(
        err.contains("nope.java") && err.contains("no such file") && err.contains("NEW"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one-line error: {err}");
}

#[test]
fn directory_instead_of_file_is_an_input_error() {
    let s = Scratch::new("dirfile");
    let old = s.write("a.c", "int f(int x) { return x; }\n");
    std::fs::create_dir_all(s.path("d.c")).expect("mkdir");
    let o = eqlens(&["check", p(&old), p(&s.path("d.c"))]);
    assert_status(&o, 3);
    assert!(stderr(&o).contains("d.c"), "{}", stderr(&o));
}

/// An input error: exit 3 and exactly one `eqlens: error: …` line; returns
/// the message after the prefix.
#[track_caller]
fn input_error(o: &Output) -> String {
    assert_status(o, 3);
    let err = stderr(o);
    assert_eq!(err.lines().count(), 1, "one-line error: {err}");
    err.trim_end()
        .strip_prefix("eqlens: error: ")
        .unwrap_or_else(|| panic!("no 'eqlens: error:' prefix: {err}"))
        .to_string()
}

#[test]
fn operands_that_are_no_readable_source_are_named() {
    let s = Scratch::new("operands");
    let new = s.write("new.java", JAVA_ADD);
    std::fs::create_dir_all(s.path("somedir")).expect("mkdir");
    let dir = s.path("somedir");
    // A directory is named as one, with or without something like an
    // extension, whichever operand it is.
    let e = input_error(&eqlens(&["check", p(&dir), p(&new)]));
    assert_eq!(
        e,
        format!(
            "OLD '{}' is a directory, expected a .java, .c or .h file",
            p(&dir)
        )
    );
    std::fs::create_dir_all(s.path("src.java")).expect("mkdir");
    let e = input_error(&eqlens(&["check", p(&new), p(&s.path("src.java"))]));
    assert!(
        e.starts_with("NEW '") && e.contains("src.java' is a directory"),
        "{e}"
    );
    // A missing path is missing, whatever its extension.
    let e = input_error(&eqlens(&["check", p(&s.path("Makefile")), p(&new)]));
    assert_eq!(
        e,
        format!(
            "cannot read OLD file '{}': no such file",
            p(&s.path("Makefile"))
        )
    );
    // Unreadable (only testable where permissions bind, i.e. not as root).
    let locked = s.write("locked.java", JAVA_ADD);
    let mut perms = std::fs::metadata(&locked).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o000);
    std::fs::set_permissions(&locked, perms).expect("chmod");
    if std::fs::read(&locked).is_err() {
        let e = input_error(&eqlens(&["check", p(&locked), p(&new)]));
        assert_eq!(
            e,
            format!("cannot read OLD file '{}': permission denied", p(&locked))
        );
    }
    // Empty files are no input error: nothing is paired, which proves
    // nothing (exit 2).
    let empty = s.write("empty.java", "");
    let o = eqlens(&["check", p(&empty), p(&s.write("empty2.java", ""))]);
    assert_status(&o, 2);
    assert!(stdout(&o).contains("nothing checked"), "{}", stdout(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn unknown_extension_is_named() {
    let s = Scratch::new("ext");
    let old = s.write("a.py", "def f(): pass\n");
    let new = s.write("b.py", "def f(): pass\n");
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(
        err.contains("a.py") && err.contains(".py") && err.contains("language"),
        "{err}"
    );
}

#[test]
fn mixed_languages_are_rejected() {
    let s = Scratch::new("mixed");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.c", "int f(int a, int b) { return a + b; }\n");
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(
        err.contains("same language") && err.contains("Java") && err.contains("C"),
        "{err}"
    );
}

#[test]
fn non_utf8_file_is_rejected() {
    let s = Scratch::new("utf8");
    let old = s.write("a.c", b"int f(int x) { return x; } /* \xff\xfe */\n");
    let new = s.write("b.c", "int f(int x) { return x; }\n");
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(err.contains("a.c") && err.contains("UTF-8"), "{err}");
}

#[test]
fn bad_semantics_is_named() {
    let s = Scratch::new("sem");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD);
    let o = eqlens(&["check", p(&old), p(&new), "--semantics", "quantum"]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(
        err.contains("quantum") && err.contains("--semantics"),
        "{err}"
    );
}

#[test]
fn bad_checker_format_and_numbers_exit_3() {
    let s = Scratch::new("opts");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD);
    let o = eqlens(&["check", p(&old), p(&new), "--checker", "oracle"]);
    assert_status(&o, 3);
    assert!(
        stderr(&o).contains("oracle") && stderr(&o).contains("symbolic"),
        "{}",
        stderr(&o)
    );
    assert_status(&eqlens(&["check", p(&old), p(&new), "--format", "xml"]), 3);
    assert_status(
        &eqlens(&["check", p(&old), p(&new), "--loop-bound", "-1"]),
        3,
    );
    assert_status(
        &eqlens(&["check", p(&old), p(&new), "--timeout-ms", "soon"]),
        3,
    );
    assert_status(&eqlens(&["check", p(&old), p(&new), "--method", ""]), 3);
}

#[test]
fn bench_missing_corpus_is_a_usage_error() {
    let s = Scratch::new("nocorpus");
    let o = eqlens(&["bench", p(&s.path("absent")), "--out", p(&s.path("out"))]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(
        err.contains("absent") && err.contains("does not exist"),
        "{err}"
    );
}

#[test]
fn bench_empty_corpus_and_empty_filter_are_usage_errors() {
    let s = Scratch::new("emptycorpus");
    std::fs::create_dir_all(s.path("corpus/x")).expect("mkdir");
    let o = eqlens(&["bench", p(&s.path("corpus")), "--out", p(&s.path("out"))]);
    assert_status(&o, 3);
    assert!(stderr(&o).contains("no Eq/Neq"), "{}", stderr(&o));
    s.write("corpus/b/p/Eq/oldV.c", "int f(int x) { return x; }\n");
    s.write("corpus/b/p/Eq/newV.c", "int f(int x) { return x; }\n");
    let o = eqlens(&[
        "bench",
        p(&s.path("corpus")),
        "--filter",
        "zzz",
        "--out",
        p(&s.path("out")),
    ]);
    assert_status(&o, 3);
    assert!(stderr(&o).contains("zzz"), "{}", stderr(&o));
    assert_status(&eqlens(&["bench", p(&s.path("corpus")), "--jobs", "0"]), 3);
    assert_status(
        &eqlens(&["bench", p(&s.path("corpus")), "--lang", "cobol"]),
        3,
    );
}

/// The bench pipeline (discovery, Desc parsing, workers, output files) runs
/// whatever the verdicts are: a pair the core cannot check is an `error`
/// row, not a crash, and only wrong verdicts make the exit status 1.
#[test]
fn bench_writes_results_for_a_tiny_corpus() {
    let s = Scratch::new("tiny");
    s.write("corpus/add/prog/Eq/oldV.java", JAVA_ADD);
    s.write("corpus/add/prog/Eq/newV.java", JAVA_ADD_SWAPPED);
    s.write(
        "corpus/add/prog/Eq/J-Desc.json",
        "{\"method name\": \"f\", }",
    );
    s.write("corpus/add/prog/Neq/oldV.java", JAVA_ADD);
    s.write("corpus/add/prog/Neq/newV.java", JAVA_ADD_ONE);
    s.write(
        "corpus/add/prog/Neq/J-Desc.json",
        "{\"method name\": \"f\"}",
    );
    let out = s.path("out");
    let o = eqlens(&[
        "bench",
        p(&s.path("corpus")),
        "--lang",
        "java",
        "--jobs",
        "2",
        "--out",
        p(&out),
    ]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    let text = stdout(&o);
    assert!(
        text.contains("java · portfolio")
            && text.contains("java · dse")
            && text.contains("eq proved")
            && text.contains("p95 ms"),
        "{text}"
    );

    let csv = std::fs::read_to_string(out.join("results.csv")).expect("results.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "id,lang,checker,expected,entry,outcome,bounded,wrong,methods,time_ms,decided_by,iterations,detail"
        )
    );
    let rows: Vec<&str> = lines.collect();
    // Every checker by default: portfolio, ardiff, dse, imps, symbolic, loops.
    assert_eq!(rows.len(), 2 * 6, "{csv}");
    for checker in ["portfolio", "ardiff", "dse", "imps", "symbolic", "loops"] {
        assert!(
            rows.iter()
                .any(|r| r.starts_with(&format!("add/prog/Eq,java,{checker},Eq,f,"))),
            "{checker}: {csv}"
        );
    }
    assert!(
        rows[1].starts_with("add/prog/Neq,java,portfolio,Neq,f,"),
        "{csv}"
    );

    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("results.json")).expect("results.json"),
    )
    .expect("results.json parses");
    let results = results.as_array().expect("array");
    assert_eq!(results.len(), 2 * 6);
    for key in [
        "id",
        "lang",
        "checker",
        "expected",
        "entry",
        "outcome",
        "bounded",
        "wrong",
        "methods",
        "time_ms",
        "decided_by",
        "iterations",
        "detail",
    ] {
        assert!(results[0].get(key).is_some(), "results.json lacks {key}");
    }

    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("summary.json parses");
    let g = &summary["groups"][0];
    assert_eq!(g["lang"], "java");
    assert_eq!(g["pairs"], 2);
    assert_eq!(g["eq_total"], 1);
    assert_eq!(g["neq_total"], 1);
    assert!(g["time_ms"]["p95"].is_number());
    let wrong = summary["wrong"].as_array().expect("wrong list").len();
    assert_eq!(o.status.code(), Some(if wrong > 0 { 1 } else { 0 }));
}

// ---------------------------------------------------------------- verdicts

#[test]
fn verdict_equivalent_exits_0() {
    let s = Scratch::new("eq");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD_SWAPPED);
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 0);
    let text = stdout(&o);
    assert!(
        text.contains("≡ f(2)")
            && text.contains("equivalent")
            && text.contains("portfolio → ardiff · math"),
        "{text}"
    );
    assert!(text.contains("file: equivalent"), "{text}");
}

#[test]
fn verdict_c_equivalent_exits_0() {
    let s = Scratch::new("ceq");
    let old = s.write("a.c", "int f(int x) {\n    return x * 2;\n}\n");
    let new = s.write("b.c", "int f(int x) {\n    return x + x;\n}\n");
    assert_status(
        &eqlens(&["check", p(&old), p(&new), "--semantics", "machine"]),
        0,
    );
}

#[test]
fn verdict_not_equivalent_exits_1_with_counterexample() {
    let s = Scratch::new("neq");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD_ONE);
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 1);
    let text = stdout(&o);
    assert!(
        text.contains("≢ f(2)") && text.contains("not equivalent"),
        "{text}"
    );
    assert!(text.contains("a = 10"), "{text}");
    assert!(
        text.contains("old:") && text.contains("new:") && text.contains("returns"),
        "{text}"
    );
    assert!(text.contains("old lines:"), "{text}");
    assert!(
        text.contains("file: not equivalent (the only method differs)"),
        "{text}"
    );
}

#[test]
fn verdict_unsupported_exits_2() {
    let s = Scratch::new("unsup");
    let body = "class A {\n    static int f(int a) {\n        synchronized (A.class) {\n            return a;\n        }\n    }\n}\n";
    let old = s.write("a.java", body);
    let new = s.write("b.java", body);
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 2);
    assert!(stdout(&o).contains("? f(1)"), "{}", stdout(&o));
}

#[test]
fn verdict_added_and_removed_methods_are_listed() {
    let s = Scratch::new("addrem");
    let old = s.write(
        "a.java",
        "class A {\n    static int f(int a) { return a; }\n    static int g() { return 1; }\n}\n",
    );
    let new = s.write(
        "b.java",
        "class A {\n    static int f(int a) { return a; }\n    static int h() { return 1; }\n}\n",
    );
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 0);
    let text = stdout(&o);
    assert!(text.contains("+ h(0)") && text.contains("- g(0)"), "{text}");
}

#[test]
fn verdict_json_document_has_documented_fields() {
    let s = Scratch::new("json");
    let old = s.write("a.java", JAVA_ADD);
    let new = s.write("b.java", JAVA_ADD_ONE);
    let o = eqlens(&[
        "check",
        p(&old),
        p(&new),
        "--format",
        "json",
        "--loop-bound",
        "3",
    ]);
    assert_status(&o, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    assert_eq!(v["old"], p(&old));
    assert_eq!(v["new"], p(&new));
    assert_eq!(v["lang"], "java");
    assert_eq!(v["summary"], "not_equivalent");
    let m = &v["methods"][0];
    assert_eq!(m["name"], "f");
    assert_eq!(m["arity"], 2);
    assert_eq!(m["verdict"], "not_equivalent");
    assert_eq!(m["bounded"], false);
    assert_eq!(m["checker"], "portfolio");
    assert_eq!(m["decided_by"], "testing");
    assert_eq!(m["semantics"], "math");
    assert_eq!(m["loop_bound"], 3);
    assert!(m["time"].is_number());
    assert!(m["old_span"]["start"]["line"].is_number());
    assert!(
        m["inputs"].is_array() && m["old"]["outcome"].is_string() && m["differences"].is_array(),
        "{m}"
    );
    assert!(v["added"].is_array() && v["removed"].is_array());
}

#[test]
fn verdict_json_leaves_out_an_unread_argv() {
    // `argv` is read by no statement: the core gives it no value, which
    // text shows as `(any)` and JSON leaves out (the differential harness
    // reads every listed value as its parameter's type).
    let s = Scratch::new("argv");
    let old = s.write(
        "old.c",
        "int run_command(int argc, char *argv[]) {\n    return argc > 3 ? argc - 3 : 0;\n}\n",
    );
    let new = s.write(
        "new.c",
        "int run_command(int argc, char *argv[]) {\n    return argc > 4 ? argc - 3 : 0;\n}\n",
    );
    let o = eqlens(&["check", p(&old), p(&new), "--format", "json"]);
    assert_status(&o, 1);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("one JSON document");
    let inputs = v["methods"][0]["inputs"].as_array().expect("inputs");
    let names: Vec<&str> = inputs.iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(names, ["argc"], "{inputs:?}");
    assert_eq!(inputs[0]["value"], "4");
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 1);
    assert!(
        stdout(&o).contains("argc = 4, argv = (any)"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn verdict_method_not_found_names_the_file() {
    let s = Scratch::new("method");
    let old = s.write("a.java", "class A {\n    static int f(int a) { return a; }\n    static int g(int a) { return a; }\n}\n");
    let new = s.write(
        "b.java",
        "class A {\n    static int f(int a) { return a; }\n}\n",
    );
    let o = eqlens(&["check", p(&old), p(&new), "--method", "g"]);
    assert_status(&o, 3);
    let err = stderr(&o);
    assert!(
        err.contains("'g'") && err.contains("NEW") && err.contains("b.java"),
        "{err}"
    );
    let o = eqlens(&["check", p(&old), p(&new), "--method", "zz"]);
    assert_status(&o, 3);
    assert!(stderr(&o).contains("'zz'"), "{}", stderr(&o));
    // The method present in both is checked alone.
    let o = eqlens(&["check", p(&old), p(&new), "--method", "f"]);
    assert_status(&o, 0);
}

/// A slice of the shared development corpus: no wrong verdicts. Skipped
/// when the corpus is not on this machine.
#[test]
fn verdict_bench_on_shared_corpus_slice() {
    let corpus = Path::new("/work/shared/corpora/eqbench-dev");
    if !corpus.is_dir() {
        eprintln!("skipped: {} is absent", corpus.display());
        return;
    }
    let s = Scratch::new("shared");
    let out = s.path("out");
    let o = eqlens(&[
        "bench",
        p(corpus),
        "--filter",
        "tsafe/",
        "--timeout-ms",
        "5000",
        "--out",
        p(&out),
    ]);
    assert_status(&o, 0);
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .expect("summary.json parses");
    assert_eq!(summary["wrong"].as_array().map(Vec::len), Some(0));
    let errors: u64 = summary["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g["errors"].as_u64())
        .sum();
    assert_eq!(errors, 0, "pairs that could not be run: {}", stdout(&o));
}

/// verdict: `eqlens check` reads `[callees]` from the nearest `eqlens.toml`
/// above NEW, as the editor does; a broken one is an input error naming
/// the position.
#[test]
fn project_callee_declarations_apply_to_check() {
    let s = Scratch::new("check-callees");
    let old = s.write(
        "src/Old.java",
        "import com.acme.Audit;\nclass A {\n    static int f(int a) {\n        Audit.record(a);\n        if (a > 0) return a;\n        return -a;\n    }\n}\n",
    );
    let new = s.write(
        "src/New.java",
        "import com.acme.Audit;\nclass A {\n    static int f(int a) {\n        Audit.record(a);\n        return a > 0 ? a : -a;\n    }\n}\n",
    );
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 0);
    assert!(
        stdout(&o).contains("com.acme.Audit.record is pure:"),
        "{}",
        stdout(&o)
    );
    s.write("eqlens.toml", "[callees]\nimpure = [\"com.acme.*\"]\n");
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 2);
    assert!(
        stdout(&o).contains("call to com.acme.Audit.record, which the project declares impure"),
        "{}",
        stdout(&o)
    );
    // A relative NEW, run from a directory below the project file.
    let o = Command::new(env!("CARGO_BIN_EXE_eqlens"))
        .args(["check", "Old.java", "New.java"])
        .current_dir(s.path("src"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run eqlens");
    assert_status(&o, 2);
    assert!(stdout(&o).contains("declares impure"), "{}", stdout(&o));
    s.write("eqlens.toml", "[callees]\nimpure = [\"com.acme.*\"\n");
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 3);
    assert!(stderr(&o).contains("eqlens.toml:2:"), "{}", stderr(&o));
}

/// verdict: C signed overflow is undefined under `machine` unless the
/// project says it is built with `-fwrapv` (`[c]` in `eqlens.toml`); the
/// flag wins over the file.
#[test]
fn the_project_says_whether_signed_overflow_wraps() {
    let s = Scratch::new("check-overflow");
    let old = s.write(
        "src/old.c",
        "int total(int a, int b, int c) {\n    return a + b + c;\n}\n",
    );
    let new = s.write(
        "src/new.c",
        "int total(int a, int b, int c) {\n    return a + (b + c);\n}\n",
    );
    let check = |extra: &[&str]| {
        let mut args = vec!["check", p(&old), p(&new), "--semantics", "machine"];
        args.extend_from_slice(extra);
        eqlens(&args)
    };
    let o = check(&[]);
    assert_status(&o, 1);
    assert!(
        stdout(&o).contains("undefined behaviour: signed integer overflow"),
        "{}",
        stdout(&o)
    );
    s.write("eqlens.toml", "[c]\nsigned-overflow = \"wraps\"\n");
    let o = check(&[]);
    assert_status(&o, 0);
    assert!(stdout(&o).contains("-fwrapv"), "{}", stdout(&o));
    let o = check(&["--signed-overflow", "undefined"]);
    assert_status(&o, 1);
    s.write("eqlens.toml", "[c]\nsigned-overflow = \"wrap\"\n");
    let o = check(&[]);
    assert_status(&o, 3);
    assert!(stderr(&o).contains("eqlens.toml:2:"), "{}", stderr(&o));
}

/// A file that does not compile gets no `equivalent`: a syntax error
/// outside every method (a stray `}`) is reported with its position and
/// version, and an ill-typed operator in an exception's message (skipped by
/// the lowering, never typed before) is the method's type error.
#[test]
fn code_javac_rejects_is_reported_not_proved() {
    let s = Scratch::new("javac-rejects");
    let body = |msg: &str, tail: &str| {
        format!(
            "class T {{\n    static int f(int x) {{\n        if (x < 0) throw new IllegalArgumentException({msg});\n        return x;\n    }}\n}}\n{tail}"
        )
    };
    let old = s.write("Old.java", body("\"msg \" + x", ""));
    let new = s.write("New.java", body("\"msg \" + x", "}\n"));
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 2);
    let out = stdout(&o);
    assert!(out.contains("! syntax error at 7:1 (new version)"), "{out}");
    assert!(
        out.contains("file: unknown: the file does not compile"),
        "{out}"
    );
    let json = eqlens(&["check", p(&old), p(&new), "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("json");
    assert_eq!(doc["syntax_errors"][0]["in_old"], false, "{doc}");

    let new = s.write("New.java", body("\"msg \" - x", ""));
    let o = eqlens(&["check", p(&old), p(&new)]);
    assert_status(&o, 2);
    let out = stdout(&o);
    assert!(
        out.contains("type error: operator - on a String (javac rejects it) at 3:55 (new version)"),
        "{out}"
    );
}
