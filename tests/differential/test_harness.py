#!/usr/bin/env python3
"""Unit tests of the differential harness that need no working eqlens: value
parsing, counterexample → driver input, and end-to-end replay through a fake
`eqlens` that prints a hand-written JSON report.

Run: python3 tests/differential/test_harness.py
"""

import contextlib
import io
import json
import math
import os
import shutil
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

FIXTURES = harness.REPO / "fixtures"


def method_json(method, inputs, old_outcome="returns 1", new_outcome="returns 2"):
    """A method object as `eqlens check --format json` prints it (the
    counterexample's fields are flattened into the method object)."""
    return {
        "name": method,
        "arity": len(inputs),
        "verdict": "not_equivalent",
        "bounded": False,
        "inputs": [{"name": n, "value": v} for n, v in inputs],
        "old": {"outcome": old_outcome, "state": [], "output": "", "trace": []},
        "new": {"outcome": new_outcome, "state": [], "output": "", "trace": []},
        "differences": ["return value"],
    }


def run_harness(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = harness.main(argv)
    return code, out.getvalue()


class ValueParsing(unittest.TestCase):
    def test_ints_respect_the_type_range(self):
        int_ = harness.JAVA_TYPES["int"]
        self.assertEqual(harness.cex_value("-2147483648", int_, "machine"), -2147483648)
        with self.assertRaises(harness.NotRepresentable):
            harness.cex_value("2147483648", int_, "math")
        with self.assertRaises(ValueError):
            harness.cex_value("2147483648", int_, "machine")

    def test_machine_doubles_are_java_style(self):
        d = harness.JAVA_TYPES["double"]
        self.assertEqual(harness.cex_value("1.0E10", d, "machine"), 1e10)
        self.assertEqual(harness.cex_value("-Infinity", d, "machine"), -math.inf)
        self.assertTrue(math.isnan(harness.cex_value("NaN", d, "machine")))

    def test_machine_floats_are_shortest_decimals(self):
        f = harness.JAVA_TYPES["float"]
        # eqlens prints a float's shortest round-tripping decimal.
        self.assertEqual(harness.cex_value("-115.4", f, "machine"), harness.f32(-115.4))
        self.assertNotEqual(harness.cex_value("-115.4", f, "machine"), -115.4)

    def test_math_reals_must_be_exact_doubles(self):
        d = harness.JAVA_TYPES["double"]
        self.assertEqual(harness.cex_value("-0.75", d, "math"), -0.75)
        self.assertEqual(harness.cex_value("2.0", d, "math"), 2.0)
        for text in ("1/3", "0.1", "≈0.5"):
            with self.assertRaises(harness.NotRepresentable):
                harness.cex_value(text, d, "math")

    def test_arrays_and_bools(self):
        arr = harness.java_type("int[]")
        self.assertEqual(harness.cex_value("{1, -2, 3}", arr, "machine"), [1, -2, 3])
        self.assertEqual(harness.cex_value("{}", arr, "machine"), [])
        self.assertIs(harness.cex_value("true", harness.JAVA_TYPES["boolean"], "math"), True)

    def test_strings_are_java_literals_of_utf16_units(self):
        s = harness.java_type("String")
        self.assertEqual(harness.cex_value('"a\\"b"', s, "machine"), [97, 34, 98])
        self.assertEqual(harness.cex_value('"\\u00e9\\n\\\\"', s, "machine"), [0xE9, 10, 92])
        self.assertEqual(harness.cex_value('""', s, "math"), [])
        self.assertIsNone(harness.cex_value("null", s, "machine"))
        with self.assertRaises(ValueError):
            harness.cex_value("{97}", s, "machine")

    def test_null_arrays_round_trip(self):
        arr = harness.java_type("int[]")
        self.assertIsNone(harness.cex_value("null", arr, "machine"))
        self.assertEqual(harness.encode(None), "null")
        sig = harness.parse_signature("java", (FIXTURES / "java/null_guard_dropped/old.java").read_text(), "first")
        lines = harness.random_inputs(sig, [], "machine", 50, 1, None, [], nullable=True)
        self.assertTrue(any(line.split("\t")[0] == "null" for line in lines))
        plain = harness.random_inputs(sig, [], "machine", 50, 1, None, [])
        self.assertFalse(any(line.split("\t")[0] == "null" for line in plain))
        self.assertTrue(harness.NULL_TEST.search("if (a == null) return 0;"))
        self.assertTrue(harness.NULL_TEST.search("Objects.requireNonNull(a);"))
        self.assertFalse(harness.NULL_TEST.search("// a is never null here"))


class Expectations(unittest.TestCase):
    def test_a_list_is_tested_by_its_strongest_claim(self):
        self.assertEqual(harness.strongest(["equivalent_bounded", "equivalent"]), "equivalent")
        self.assertEqual(harness.strongest(["unknown", "equivalent_bounded"]), "equivalent_bounded")
        self.assertEqual(harness.strongest("unknown"), "unknown")


class CounterexampleMapping(unittest.TestCase):
    def test_parameters_then_fields(self):
        src = (FIXTURES / "java/fields_withdraw_boundary/old.java").read_text()
        sig = harness.parse_signature("java", src, "withdraw")
        self.assertFalse(sig.static)
        self.assertEqual([v.name for v in sig.state], ["balance"])
        cex = {"inputs": [{"name": "amount", "value": "5"}, {"name": "balance", "value": "5"}]}
        self.assertEqual(harness.cex_to_line(cex, sig, sig, "machine"), "5\tbalance=5")

    def test_unread_argv_has_no_value(self):
        src = (FIXTURES / "c/command_ignores_argv/old.c").read_text()
        sig = harness.parse_signature("c", src, "run_command")
        self.assertEqual([(p.name, p.ty.kind) for p in sig.params], [("argc", "int"), ("argv", "argv")])
        # eqlens leaves an input without a value out of the counterexample.
        cex = {"inputs": [{"name": "argc", "value": "4"}]}
        self.assertEqual(harness.cex_to_line(cex, sig, sig, "machine"), "4\tnull")
        # The old rendering of such an input, "void", is no value.
        with self.assertRaises(ValueError):
            harness.cex_to_line({"inputs": cex["inputs"] + [{"name": "argv", "value": "void"}]},
                                sig, sig, "machine")
        self.assertIn("static char *a1[1] = {0};", harness.c_driver(sig, Path("old.c")))

    def test_c_length_parameter_may_not_exceed_the_array(self):
        src = (FIXTURES / "c/xor_swap_aliasing/old.c").read_text()
        sig = harness.parse_signature("c", src, "swap")
        ok = {"inputs": [{"name": "a", "value": "{5}"}, {"name": "n", "value": "1"},
                         {"name": "i", "value": "0"}, {"name": "j", "value": "0"}]}
        self.assertEqual(harness.cex_to_line(ok, sig, sig, "machine"), "5\t1\t0\t0")
        bad = {"inputs": [dict(d) for d in ok["inputs"]]}
        bad["inputs"][1]["value"] = "3"
        with self.assertRaises(harness.NotRepresentable):
            harness.cex_to_line(bad, sig, sig, "machine")

    def test_loop_inputs_stay_runnable(self):
        src = (FIXTURES / "java/loop_callee_with_loop_shared/old.java").read_text()
        sig = harness.parse_signature("java", src, "total")
        free = [int(l) for l in harness.random_inputs(sig, [], "machine", 300, 7, None, [])]
        self.assertGreater(sum(v > harness.LOOP_INPUT_MAX for v in free), harness.TOP_EDGE_RUNS)
        # By default: capped, but a few inputs keep the top edge.
        default = [int(l) for l in harness.random_inputs(sig, [], "machine", 300, 7, None, ["n"])]
        above = [v for v in default if v > harness.LOOP_INPUT_MAX]
        self.assertTrue(0 < len(above) <= harness.TOP_EDGE_RUNS)
        self.assertTrue(all(v >= 2**31 - 2 for v in above))
        # An explicit cap holds for every input and is itself an edge value.
        capped = [int(l) for l in harness.random_inputs(sig, [], "machine", 300, 7, None, ["n"],
                                                         loop_input_max=5000)]
        self.assertLessEqual(max(capped), 5000)
        self.assertIn(5000, capped)
        self.assertIn(-2**31, capped)

    def test_c_signature_with_globals_and_unsigned(self):
        src = (FIXTURES / "c/globals_withdraw/new.c").read_text()
        sig = harness.parse_signature("c", src, "withdraw")
        self.assertEqual([v.name for v in sig.state], ["balance", "fee"])
        src = (FIXTURES / "c/hash_mul_vs_shift_add/old.c").read_text()
        sig = harness.parse_signature("c", src, "hash_step")
        self.assertEqual(sig.params[0].ty.int_range, (0, 2**32 - 1))

    def test_c_global_arrays_have_their_declared_length(self):
        src = "#define N 3\nint t[8];\nint u[N];\nint v[] = {1, 2};\nint f(int i) {\n    return t[i];\n}\n"
        sig = harness.parse_signature("c", src, "f")
        self.assertEqual([(v.name, v.ty.length) for v in sig.state], [("t", 8), ("u", 3), ("v", 2)])
        t = sig.state[0].ty
        gen = harness.Gen(__import__("random").Random(1), "machine")
        self.assertEqual(len(gen.value(t, 2)), 8)
        self.assertEqual(harness.cex_value("{1, 2, 3, 4, 5, 6, 7, 8}", t, "machine"), [1, 2, 3, 4, 5, 6, 7, 8])
        # An array of another length is not the global: a malformed
        # counterexample, not a native input.
        with self.assertRaises(ValueError):
            harness.cex_value("{1, 2, 3}", t, "machine")


@unittest.skipUnless(all(shutil.which(t) for t in ("javac", "java", "gcc")), "needs javac, java and gcc")
class EndToEnd(unittest.TestCase):
    """The harness against a fake eqlens printing canned reports."""

    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="harness-test-"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def fake_eqlens(self, methods_by_case):
        """A script that answers `check OLD NEW --method M ...` with the
        method object registered for OLD's fixture directory name."""
        table = self.tmp / "answers.json"
        table.write_text(json.dumps(methods_by_case))
        script = self.tmp / "eqlens"
        script.write_text(
            "#!/usr/bin/env python3\n"
            "import json, sys, os\n"
            f"table = json.load(open({str(table)!r}))\n"
            "case = os.path.basename(os.path.dirname(sys.argv[2]))\n"
            "m = table.get(case, {'name': sys.argv[sys.argv.index('--method') + 1], 'verdict': 'unknown', 'detail': 'no canned answer'})\n"
            "print(json.dumps({'old': sys.argv[2], 'new': sys.argv[3], 'lang': 'java', 'summary': 'unknown',\n"
            "                  'methods': [m], 'added': [], 'removed': []}))\n"
            "sys.exit(1)\n"
        )
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return script

    def fixture_copy(self, case, **expect_changes):
        lang, name = case.split("/")
        dest = self.tmp / "fixtures" / lang / name
        shutil.copytree(FIXTURES / case, dest)
        if expect_changes:
            e = json.loads((dest / "expect.json").read_text())
            e.update(expect_changes)
            (dest / "expect.json").write_text(json.dumps(e))
        return dest

    def test_real_counterexamples_are_confirmed(self):
        self.fixture_copy("java/midpoint_overflow", math="unknown")
        self.fixture_copy("c/capacity_check_overflow", math="unknown")
        self.fixture_copy("java/fields_withdraw_boundary", math="unknown")
        eqlens = self.fake_eqlens({
            "midpoint_overflow": method_json("middle", [("lo", "1073741824"), ("hi", "1073741824")]),
            "capacity_check_overflow": method_json("fits", [("len", "1"), ("extra", "2147483647"), ("cap", "0")]),
            "fields_withdraw_boundary": method_json("withdraw", [("amount", "7"), ("balance", "7")]),
        })
        code, out = run_harness(["--eqlens", str(eqlens), "--fixtures", str(self.tmp / "fixtures"), "--inputs", "20"])
        self.assertEqual(code, 0, out)
        self.assertIn("3 passed, 0 failed, 3 skipped", out)
        self.assertIn("balance=0 vs balance=7", out)

    def test_bogus_counterexample_fails_and_unrepresentable_is_skipped(self):
        self.fixture_copy("java/half_div_vs_shift")
        eqlens = self.fake_eqlens({
            # x = 4 is not a counterexample: 4/2 == 4>>1.
            "half_div_vs_shift": method_json("half", [("x", "4")]),
        })
        code, out = run_harness(["--eqlens", str(eqlens), "--fixtures", str(self.tmp / "fixtures")])
        self.assertNotEqual(code, 0)
        self.assertIn("does not reproduce", out)
        self.assertTrue(out.strip().endswith("0 passed, 2 failed, 0 skipped"), out)

        shutil.rmtree(self.tmp / "fixtures")
        self.fixture_copy("java/half_div_vs_shift", machine="unknown")
        eqlens = self.fake_eqlens({"half_div_vs_shift": method_json("half", [("x", "-99999999999")])})
        code, out = run_harness(["--eqlens", str(eqlens), "--fixtures", str(self.tmp / "fixtures")])
        self.assertEqual(code, 0, out)
        self.assertIn("not representable", out)

    def test_random_testing_finds_a_wrong_equivalence(self):
        self.fixture_copy("java/midpoint_overflow", machine="equivalent")
        # Undefined in the new version where the old one returns 0.
        self.fixture_copy("c/ub_new_divides_unguarded", math="equivalent", machine="equivalent")
        # Undefined in the old version only: a refinement, not a difference.
        self.fixture_copy("c/abs_overflow", machine="equivalent")
        code, out = run_harness(["--no-eqlens", "--fixtures", str(self.tmp / "fixtures")])
        self.assertNotEqual(code, 0)
        self.assertIn("FAIL java/midpoint_overflow [machine]", out)
        self.assertIn("FAIL c/ub_new_divides_unguarded [machine]", out)
        self.assertIn("PASS java/midpoint_overflow [math]", out)
        self.assertRegex(out, r"PASS c/abs_overflow \[machine\] equivalent: \d+ random inputs agree "
                              r"\(\d+ where the old version is undefined not compared\)")

    def test_counterexample_where_the_old_version_is_undefined_fails(self):
        self.fixture_copy("c/ub_new_divides_unguarded", math="unknown")
        eqlens = self.fake_eqlens({
            "ub_new_divides_unguarded": method_json(
                "ratio", [("a", "1"), ("b", "0")],
                old_outcome="undefined behaviour: division by zero at 5:12", new_outcome="returns 0"),
        })
        code, out = run_harness(["--eqlens", str(eqlens), "--fixtures", str(self.tmp / "fixtures")])
        self.assertNotEqual(code, 0)
        self.assertIn("the old version is undefined", out)


if __name__ == "__main__":
    os.chdir(harness.REPO)
    unittest.main(verbosity=2)
