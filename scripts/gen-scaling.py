#!/usr/bin/env python3
"""Generates the inputs of the scaling benchmarks (docs/benchmarks.md,
"Time budgets and scaling").

    scripts/gen-scaling.py SHAPE N OUTDIR

writes OUTDIR/old/S.java and OUTDIR/new/S.java (two directories, so that
both files keep the class name) for one of these shapes:

  statements  one straight-line method of N statements; the new version
              changes one statement in the middle (`x + k` written `k + x`,
              equivalent)
  unpaired    one method in the old version, N other methods in the new
              one: nothing is paired, nothing is checked
  methods     N small methods in both versions; the new version changes
              one of them (equivalently)

Then, for example:

    target/release/eqlens check --timeout-ms 2000 OUTDIR/old/S.java OUTDIR/new/S.java
"""

import os
import sys


def statements(n, new):
    lines = ["class S {", "    static int f(int a, int b) {", "        int x0 = a + b;"]
    changed = n // 2
    for i in range(1, n):
        k = i % 7 + 1
        if new and i == changed:
            rhs = f"{k} + x{i - 1}"
        else:
            rhs = f"x{i - 1} + {k}"
        lines.append(f"        int x{i} = {rhs};")
    lines += [f"        return x{n - 1};", "    }", "}"]
    return "\n".join(lines) + "\n"


def small_method(name, i, changed):
    body = f"a * {i % 5 + 2} - b" if not changed else f"-b + a * {i % 5 + 2}"
    return (
        f"    static int {name}(int a, int b) {{\n"
        f"        int t = {body};\n"
        f"        if (t > {i}) {{ t = t - {i}; }}\n"
        f"        return t;\n"
        f"    }}\n"
    )


def unpaired(n, new):
    if not new:
        return "class S {\n" + small_method("f", 0, False) + "}\n"
    return "class S {\n" + "".join(small_method(f"g{i}", i, False) for i in range(n)) + "}\n"


def methods(n, new):
    changed = n // 2
    return (
        "class S {\n"
        + "".join(small_method(f"m{i}", i, new and i == changed) for i in range(n))
        + "}\n"
    )


SHAPES = {"statements": statements, "unpaired": unpaired, "methods": methods}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    shape, n, out = SHAPES[sys.argv[1]], int(sys.argv[2]), sys.argv[3]
    if n < 1:
        sys.exit("N must be at least 1")
    for version in ("old", "new"):
        os.makedirs(os.path.join(out, version), exist_ok=True)
        with open(os.path.join(out, version, "S.java"), "w") as f:
            f.write(shape(n, version == "new"))


if __name__ == "__main__":
    main()
