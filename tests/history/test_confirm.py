#!/usr/bin/env python3
"""Tests of tests/history/confirm.py on a small synthetic corpus in the
history corpus's layout (two "releases" of a Java class and of a C file):
the Java scanner and signature reader, value comparison, and end-to-end runs
with the real eqlens (counterexamples confirmed natively) and with a fake
eqlens printing hand-written reports (a refuted counterexample fails the run;
a pointer to a struct is not replayable).

Run: python3 tests/history/test_confirm.py  (needs javac, java and gcc; the
end-to-end tests with the real eqlens also need target/release/eqlens)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import confirm  # noqa: E402
import java_native  # noqa: E402

EQLENS = confirm.REPO / "target" / "release" / "eqlens"

DEMO_OLD = """package org.apache.commons.math.util;

import org.apache.commons.math.exception.NotPositiveException;
import org.apache.commons.math.exception.util.LocalizedFormats;

public class Demo {
    private int count;
    private static int calls;

    public static int clamp(int x) {
        if (x < 0) {
            throw new NotPositiveException(LocalizedFormats.NOT_POSITIVE, x);
        }
        return x > 10 ? 10 : x;
    }

    static int twice(int x) {
        return x * 2;
    }

    private static int mark(int[] a) {
        a[0] = 1;
        return a.length;
    }

    public int bump(int k) {
        count += k;
        return count;
    }

    public static void tick() {
        calls++;
    }

    private int limit;

    public class Cursor {
        private int pos;

        public boolean more() {
            return pos < limit;
        }
    }
}
"""

DEMO_NEW = (DEMO_OLD.replace("math.util", "math3.util").replace("math.exception", "math3.exception")
            .replace("x > 10 ? 10 : x", "x > 11 ? 11 : x").replace("return x * 2", "return x + x")
            .replace("a[0] = 1", "a[0] = 2").replace("count += k;", "count += k + 1;")
            .replace("calls++", "calls += 2").replace("pos < limit", "pos <= limit"))

CJSON_H = """typedef int cJSON_bool;
typedef struct cJSON { int type; double valuedouble; } cJSON;
"""

CJSON_OLD = """#include "cJSON.h"

static int depth = 0;

static int hex_digit(const unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

void enter(void)
{
    depth++;
}

int type_of(const cJSON *item)
{
    return item->type;
}
"""

CJSON_NEW = (CJSON_OLD.replace("c - 'a' + 10", "c - 'a' + 11").replace("depth++", "depth += 2")
             .replace("return item->type;", "return item->type + 1;"))


def make_corpus(root: Path) -> dict[str, Path]:
    files = {
        "java_old": root / "commons-math/MATH_2_0/org/apache/commons/math/util/Demo.java",
        "java_new": root / "commons-math/MATH_3_0/org/apache/commons/math3/util/Demo.java",
        "c_old": root / "cjson/v1.0.0/cJSON.c",
        "c_new": root / "cjson/v1.0.1/cJSON.c",
    }
    texts = {"java_old": DEMO_OLD, "java_new": DEMO_NEW, "c_old": CJSON_OLD, "c_new": CJSON_NEW}
    for k, p in files.items():
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(texts[k])
    for tag in ("v1.0.0", "v1.0.1"):
        (root / "cjson" / tag / "cJSON.h").write_text(CJSON_H)
    return files


def run_confirm(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = confirm.main(argv)
    return code, out.getvalue()


def lines_by_method(text: str) -> dict[str, str]:
    """`confirmed: … Demo.java clamp(1) [x=…]: …` → {"clamp(1)": "confirmed"}."""
    out = {}
    for line in text.splitlines():
        head, sep, _ = line.partition(" [")
        if sep and ":" in head:
            status, _, rest = head.partition(": ")
            out[rest.split()[-1]] = status
    return out


class Scanner(unittest.TestCase):
    def test_members_and_statements(self):
        text = DEMO_OLD
        names = [m.name for m in java_native.members(text) if m.kind == "body"]
        self.assertEqual(names, ["clamp", "twice", "mark", "bump", "tick", "more"])
        clamp = next(m for m in java_native.members(text) if m.name == "clamp")
        off = text.index("LocalizedFormats.NOT_POSITIVE")
        a, b = java_native.simple_statement(text, clamp, off)
        self.assertTrue(text[a:b + 1].startswith("throw new NotPositiveException("))
        self.assertTrue(text[a:b + 1].endswith(");"))
        # A declaration or an `if` condition is not a simple statement.
        src = "class A { int f(int x) { int y = g(x); if (h(x)) { return y; } return 0; } }"
        f = next(m for m in java_native.members(src) if m.name == "f")
        self.assertIsNone(java_native.simple_statement(src, f, src.index("g(x)")))
        self.assertIsNone(java_native.simple_statement(src, f, src.index("h(x)")))

    def test_member_names_skip_annotations(self):
        src = ('class A {\n  @SuppressWarnings("unchecked")\n'
               '  static <T> T[] build(int n) { return null; }\n  static { x = 1; }\n}')
        self.assertEqual([m.name for m in java_native.members(src)], ["build", "<initializer>"])
        src = "class A {\n  static final double[] T = {1, 2};\n  int g() { return 0; }\n}"
        self.assertEqual([(m.kind, m.name) for m in java_native.members(src)], [("init", "T"), ("body", "g")])

    def test_method_signature(self):
        src = ("package p.q;\nclass Outer {\n  static class In<T extends Number> {\n"
               "    private static double f(final int[] a, T t, java.util.List<T> l, double... d) { return 0; }\n"
               "  }\n}\n")
        off = len(src[:src.index("f(final")].encode())
        m = java_native.method_at(src, off, "Outer.In.f")
        self.assertEqual(m.binary_class, "p.q.Outer$In")
        self.assertEqual(m.params, [("int[]", "a"), ("?", "t"), ("List", "l"), ("double[]", "d")])
        self.assertFalse(m.constructor)


class Values(unittest.TestCase):
    def test_versions_sort_numerically(self):
        tags = ["v1.7.10", "v1.7.9", "v1.10.0", "v1.2.0"]
        self.assertEqual(sorted(tags, key=confirm.version_key), ["v1.2.0", "v1.7.9", "v1.7.10", "v1.10.0"])
        self.assertLess(confirm.version_key("MATH_3_1"), confirm.version_key("MATH_3_1_1"))

    def test_same_value(self):
        self.assertTrue(confirm.same_value("{1.0, NaN}", "{1.0, NaN}"))
        self.assertTrue(confirm.same_value("0.1", "0.10000000149011612"))  # a float widened
        self.assertTrue(confirm.same_value("1.0E10", "1.0e10"))
        self.assertFalse(confirm.same_value("{1, 2}", "{1, 2, 3}"))
        self.assertFalse(confirm.same_value("0.1", "0.2"))
        self.assertFalse(confirm.same_value("9007199254740993", "9007199254740992"))

    def test_math3_files_pair_with_math(self):
        with tempfile.TemporaryDirectory() as d:
            files = make_corpus(Path(d))
            lib = confirm.LIBRARIES["commons-math"]
            old = lib.files(files["java_old"].parents[4])
            new = lib.files(files["java_new"].parents[4])
            self.assertEqual(old.keys(), new.keys())


@unittest.skipUnless(all(shutil.which(t) for t in ("javac", "java", "gcc")), "needs javac, java and gcc")
class EndToEnd(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="eqlens-history-test-"))
        self.files = make_corpus(self.dir / "corpus")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_absent_corpus_is_skipped(self):
        code, out = run_confirm(["--corpus", str(self.dir / "nowhere"), "--eqlens", str(EQLENS)])
        self.assertEqual(code, 0)
        self.assertIn("skipped", out)

    @unittest.skipUnless(EQLENS.exists(), "needs target/release/eqlens")
    def test_real_counterexamples_are_confirmed(self):
        code, out = run_confirm(["--corpus", str(self.dir / "corpus"), "--eqlens", str(EQLENS),
                                 "--timeout-ms", "20000"])
        got = lines_by_method(out)
        # more(0) reads a field of its enclosing instance.
        for m in ("clamp(1)", "mark(1)", "bump(1)", "tick(0)", "more(0)", "hex_digit(1)", "enter(0)"):
            self.assertEqual(got.get(m), "confirmed", f"{m}:\n{out}")
        self.assertNotIn("twice(1)", got)
        self.assertEqual(code, 0, out)
        self.assertIn("REFUTED 0", out)

    def fake_eqlens(self, reports: dict[str, dict]) -> Path:
        """An `eqlens` that prints the report given for the NEW file's name."""
        (self.dir / "reports.json").write_text(json.dumps(reports))
        script = self.dir / "eqlens"
        script.write_text(
            "#!/usr/bin/env python3\nimport json, os, sys\n"
            f"reports = json.load(open({str(self.dir / 'reports.json')!r}))\n"
            "print(json.dumps(reports[os.path.basename(sys.argv[-1])]))\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return script

    def method(self, name: str, arity: int, inputs, old_outcome, new_outcome, differences, lang="java"):
        old, new = ((self.files["java_old"], self.files["java_new"]) if lang == "java"
                    else (self.files["c_old"], self.files["c_new"]))

        def span(path):
            text = path.read_text()
            off = len(text[:text.index(f" {name}(") + 1].encode())
            return {"start": {"line": 0, "col": 0, "byte": off}, "end": {"line": 0, "col": 0, "byte": off}}

        return {"name": name, "arity": arity, "qualified": f"Demo.{name}" if lang == "java" else name,
                "label": f"{name}({arity})", "old_span": span(old), "new_span": span(new),
                "verdict": "not_equivalent", "inputs": [{"name": n, "value": v} for n, v in inputs],
                "old": {"outcome": old_outcome, "state": [], "output": "", "trace": []},
                "new": {"outcome": new_outcome, "state": [], "output": "", "trace": []},
                "differences": differences}

    def test_refuted_counterexample_fails_the_run(self):
        wrong = self.method("twice", 1, [("x", "3")], "returns 6", "returns 7", ["return value: 6 vs 7"])
        # A field neither release writes is no output, whatever eqlens says.
        unwritten = self.method("clamp", 1, [("x", "3"), ("calls", "0")], "returns 3", "returns 3",
                                ["global calls: 0 vs 1"])
        unwritten["old"]["state"] = [{"name": "calls", "value": "0"}]
        unwritten["new"]["state"] = [{"name": "calls", "value": "1"}]
        struct = self.method("type_of", 1, [("item.type", "0")], "returns 0", "returns 1",
                             ["return value: 0 vs 1"], lang="c")
        fake = self.fake_eqlens({
            "Demo.java": {"lang": "java", "summary": "not_equivalent", "methods": [wrong, unwritten]},
            "cJSON.c": {"lang": "c", "summary": "not_equivalent", "methods": [struct]},
        })
        code, out = run_confirm(["--corpus", str(self.dir / "corpus"), "--eqlens", str(fake)])
        got = lines_by_method(out)
        self.assertEqual(got.get("twice(1)"), "REFUTED", out)
        self.assertIn("both releases give ret=6", out)
        self.assertEqual(got.get("clamp(1)"), "REFUTED", out)
        self.assertIn("calls 0, written by neither", out)
        self.assertEqual(got.get("type_of(1)"), "not replayable", out)
        self.assertIn("pointer to a struct", out)
        self.assertEqual(code, 1)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    unittest.main()
