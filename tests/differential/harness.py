#!/usr/bin/env python3
"""Differential soundness harness for eqlens (Python 3.11, stdlib only).

For every fixture (fixtures/<lang>/<case>/{old,new}.<ext>, expect.json) and
both semantics whose expectation is decided, the harness runs the two versions
natively (javac/java; gcc -O0 with signed overflow trapping, as eqlens's
`machine` model makes it undefined behaviour) and checks that:

* not_equivalent: eqlens reports a counterexample, and running both versions
  on its inputs really shows a difference (return value, fault, printed
  output, written fields/globals, array contents). Under math semantics, the
  counterexample is only replayed when its values are representable natively,
  and not at all for a case whose expect.json says `math_only` (a verdict
  that holds only over unbounded integers and reals: a difference because
  math integers do not wrap, e.g. at MIN_VALUE, or an identity of the reals
  that doubles round away, e.g. sqrt(x)·sqrt(x) = x).
* equivalent / equivalent_bounded: a few hundred random inputs (fixed seed)
  give identical observable results, except (C) where the old version traps
  on undefined behaviour: any behaviour of the new one refines it. equivalent_partial (a proof that holds
  where both versions terminate): the same, on the inputs on which neither
  version runs out of stack. Under machine semantics inputs span the
  full ranges plus edge values; under math they are small, so that native
  execution does not overflow, and floating results are compared with a small
  relative tolerance (the real-number result is only approximated natively).

Each version gets one native process that loops over inputs read from stdin
(Java: one JVM per version; C: one process that forks per input, so a crash
is an outcome and not the end of the run).

Prints one line per case and semantics, then `N passed, N failed, N skipped`.
Exits non-zero on any failure or when javac, java or gcc is missing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DECIDED = ("equivalent", "equivalent_bounded", "equivalent_partial", "not_equivalent")
# Native outcomes of a run that did not terminate normally for lack of
# stack (unbounded recursion): Java's StackOverflowError, C's SIGSEGV.
NON_TERMINATION = ("fault=stack-overflow", "fault=signal11")
# A native C run stopped by the harness's own 10 s alarm (SIGALRM): it ran
# too long to say anything (a loop of 2^31 iterations under the sanitizer
# on a busy machine), so the input is not compared.
TIMED_OUT = "fault=signal14"
DEFAULT_BOUND = 8
# Relative tolerance for floating results under math semantics.
MATH_REL_TOL = 1e-9


# --------------------------------------------------------------------------
# Types and signatures


@dataclass(frozen=True)
class Ty:
    """A parameter/field type: 'int' (bits, signed), 'bool', 'float' (bits 32
    or 64), 'array' (elem) or 'argv' (C's `char *argv[]`: eqlens gives it no
    value, as only a parameter no statement reads is accepted, so natively
    it is an empty, null-terminated argument vector)."""

    kind: str
    bits: int = 0
    signed: bool = True
    is_char: bool = False
    elem: "Ty | None" = None
    # Source spelling of the (element) type, used in generated code.
    spelling: str = ""
    # An array's fixed length (a C global's declared size); None: any.
    length: int | None = None

    @property
    def int_range(self) -> tuple[int, int]:
        if self.signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1


JAVA_TYPES = {
    "byte": Ty("int", 8, True, spelling="byte"),
    "short": Ty("int", 16, True, spelling="short"),
    "int": Ty("int", 32, True, spelling="int"),
    "long": Ty("int", 64, True, spelling="long"),
    "char": Ty("int", 16, False, True, spelling="char"),
    "boolean": Ty("bool", spelling="boolean"),
    "float": Ty("float", 32, spelling="float"),
    "double": Ty("float", 64, spelling="double"),
}

C_TYPES = {
    "char": Ty("int", 8, True, True, spelling="char"),
    "signed char": Ty("int", 8, True, spelling="signed char"),
    "unsigned char": Ty("int", 8, False, spelling="unsigned char"),
    "short": Ty("int", 16, True, spelling="short"),
    "short int": Ty("int", 16, True, spelling="short"),
    "unsigned short": Ty("int", 16, False, spelling="unsigned short"),
    "int": Ty("int", 32, True, spelling="int"),
    "unsigned": Ty("int", 32, False, spelling="unsigned int"),
    "unsigned int": Ty("int", 32, False, spelling="unsigned int"),
    "long": Ty("int", 64, True, spelling="long"),
    "long int": Ty("int", 64, True, spelling="long"),
    "long long": Ty("int", 64, True, spelling="long long"),
    "unsigned long": Ty("int", 64, False, spelling="unsigned long"),
    "unsigned long long": Ty("int", 64, False, spelling="unsigned long long"),
    # <stddef.h>'s, as on x86-64 Linux (LP64).
    "size_t": Ty("int", 64, False, spelling="unsigned long"),
    "_Bool": Ty("bool", spelling="_Bool"),
    "bool": Ty("bool", spelling="_Bool"),
    "float": Ty("float", 32, spelling="float"),
    "double": Ty("float", 64, spelling="double"),
    "void": Ty("void", spelling="void"),
}


class SignatureError(Exception):
    """The fixture source is not in the style the regex parser understands."""


@dataclass
class Var:
    name: str
    ty: Ty


@dataclass
class Signature:
    lang: str
    name: str
    ret: Ty
    params: list[Var]
    static: bool = True
    # Java: the class name; C: unused.
    cls: str = ""
    # Non-constant fields (Java) / globals (C): inputs and outputs.
    state: list[Var] = field(default_factory=list)


# A Java String: its UTF-16 units, as eqlens models it (a `char` array no
# code writes); generated, passed and shown through `char[]`.
JAVA_STRING = Ty("array", elem=JAVA_TYPES["char"], spelling="String")


def java_type(text: str) -> Ty:
    text = text.strip()
    if text == "String":
        return JAVA_STRING
    if text.endswith("[]"):
        return Ty("array", elem=java_type(text[:-2]), spelling=text)
    if text == "void":
        return Ty("void", spelling="void")
    if text not in JAVA_TYPES:
        raise SignatureError(f"unsupported Java type {text!r}")
    return JAVA_TYPES[text]


def c_type(text: str) -> Ty:
    words = [w for w in text.split() if w not in ("const", "static", "signed", "volatile")]
    if "signed" in text.split() and words == ["char"]:
        words = ["signed", "char"]
    key = " ".join(words)
    if key not in C_TYPES:
        raise SignatureError(f"unsupported C type {text!r}")
    return C_TYPES[key]


JAVA_CLASS = re.compile(r"\bclass\s+(\w+)")
JAVA_FIELD = re.compile(r"^    ((?:(?:public|private|protected|static|final)\s+)*)([\w\[\]]+)\s+(\w+)\s*(?:=[^;]*)?;\s*$")
JAVA_METHOD = re.compile(
    r"^    ((?:(?:public|private|protected|static|final)\s+)*)([\w\[\]]+)\s+(\w+)\s*\(([^)]*)\)\s*\{", re.M
)
C_GLOBAL = re.compile(r"^((?:[a-zA-Z_]\w*\s+)+?)(\w+)\s*(?:=[^;]*)?;\s*$")
# `int t[8];`, `int t[N] = {...};`, `int t[] = {1, 2};`
C_GLOBAL_ARRAY = re.compile(r"^((?:[a-zA-Z_]\w*\s+)+?)(\w+)\s*\[\s*(\w*)\s*\]\s*(?:=\s*\{([^}]*)\}\s*)?;\s*$")
C_DEFINE = re.compile(r"^#define\s+(\w+)\s+(\d+)\s*$", re.M)
C_FUNC = re.compile(r"^((?:[a-zA-Z_]\w*\s+)+?)(\w+)\s*\(([^)]*)\)\s*\{", re.M)
# `char *argv[]` / `char **argv` (a main-like function's arguments).
C_ARGV = re.compile(r"(?:const\s+)?char\s*\*\s*(\w+)\s*\[\s*\]|(?:const\s+)?char\s*\*\s*\*\s*(\w+)")


def split_params(text: str) -> list[str]:
    text = text.strip()
    if not text or text == "void":
        return []
    return [p.strip() for p in text.split(",")]


def parse_java(source: str, method: str) -> Signature:
    m = JAVA_CLASS.search(source)
    if not m:
        raise SignatureError("no class declaration")
    cls = m.group(1)
    state = []
    for line in source.splitlines():
        f = JAVA_FIELD.match(line)
        # A private field is out of the driver's reach: it keeps the value
        # the class gives it.
        modifiers = f.group(1).split() if f else []
        if f and "final" not in modifiers and "private" not in modifiers and f.group(2) != "return":
            state.append(Var(f.group(3), java_type(f.group(2))))
    for mm in JAVA_METHOD.finditer(source):
        if mm.group(3) != method:
            continue
        params = []
        for p in split_params(mm.group(4)):
            p = re.sub(r"^final\s+", "", p)
            # A variable-arity parameter `T... xs` is a `T[]`; the driver
            # passes an array, as a call may.
            p = re.sub(r"\s*\.\.\.\s*", "[] ", p)
            pm = re.fullmatch(r"([\w\[\]]+)\s+(\w+)", p)
            if not pm:
                raise SignatureError(f"cannot parse parameter {p!r}")
            params.append(Var(pm.group(2), java_type(pm.group(1))))
        return Signature("java", method, java_type(mm.group(2)), params, "static" in mm.group(1).split(), cls, state)
    raise SignatureError(f"method {method} not found")


def parse_c(source: str, method: str) -> Signature:
    state = []
    defines = {m.group(1): int(m.group(2)) for m in C_DEFINE.finditer(source)}
    for line in source.splitlines():
        a = C_GLOBAL_ARRAY.match(line)
        if a and not line.startswith(("return", "struct", "typedef", "#")):
            words = a.group(1).split()
            if "const" in words or "extern" in words:
                continue
            size, items = a.group(3), a.group(4)
            if size.isdigit():
                length = int(size)
            elif size in defines:
                length = defines[size]
            elif not size and items is not None:
                length = len([x for x in items.split(",") if x.strip()])
            else:
                raise SignatureError(f"array global {a.group(2)} of a length the harness cannot read")
            elem = c_type(a.group(1))
            state.append(Var(a.group(2), Ty("array", elem=elem, spelling=elem.spelling, length=length)))
            continue
        g = C_GLOBAL.match(line)
        if g and "(" not in line and not line.startswith(("return", "struct", "typedef", "#")):
            words = g.group(1).split()
            if "const" in words or "extern" in words:
                continue
            state.append(Var(g.group(2), c_type(g.group(1))))
    for fm in C_FUNC.finditer(source):
        if fm.group(2) != method:
            continue
        params = []
        for p in split_params(fm.group(3)):
            am = C_ARGV.fullmatch(p)
            if am:
                params.append(Var(am.group(1) or am.group(2), Ty("argv", spelling="char **")))
                continue
            # `T a[]` and `T *a` are both array parameters in C.
            pm = re.fullmatch(r"(.+?)\s*(\*?)\s*\b(\w+)\s*(\[\s*\d*\s*\])?", p)
            if not pm:
                raise SignatureError(f"cannot parse parameter {p!r}")
            ty = c_type(pm.group(1))
            if pm.group(2) or pm.group(4):
                ty = Ty("array", elem=ty, spelling=ty.spelling)
            params.append(Var(pm.group(3), ty))
        return Signature("c", method, c_type(fm.group(1)), params, True, "", state)
    raise SignatureError(f"function {method} not found")


def parse_signature(lang: str, source: str, method: str) -> Signature:
    return parse_java(source, method) if lang == "java" else parse_c(source, method)


def c_length_param(sig: Signature) -> tuple[int, int] | None:
    """C has no array length: by fixture convention an int parameter named `n`
    is the length of the first array parameter. Returns (array index, n index)."""
    arrays = [i for i, p in enumerate(sig.params) if p.ty.kind == "array"]
    ns = [i for i, p in enumerate(sig.params) if p.name == "n" and p.ty.kind == "int"]
    if sig.lang == "c" and arrays and ns:
        return arrays[0], ns[0]
    return None


# --------------------------------------------------------------------------
# Values: Python ints / bools / floats / lists, encoded as driver tokens.


def f32(x: float) -> float:
    """Rounds to the nearest binary32 value (inf on overflow, as C does)."""
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def encode(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, list):
        return ",".join(encode(x) for x in v)
    raise TypeError(f"cannot encode {v!r}")


def input_line(sig: Signature, args: list, state: dict) -> str:
    """Parameters positionally, then `name=value` for fields/globals."""
    toks = [encode(a) for a in args]
    toks += [f"{k}={encode(v)}" for k, v in state.items()]
    return "\t".join(toks)


# --------------------------------------------------------------------------
# Random inputs


class Gen:
    def __init__(self, rng: random.Random, semantics: str):
        self.rng = rng
        self.semantics = semantics

    def int_(self, ty: Ty) -> int:
        lo, hi = ty.int_range
        r = self.rng.random()
        if self.semantics == "math":
            # Small enough that sums and small multiples do not overflow.
            lim = min(1000, hi // 2)
            lo_m = 0 if not ty.signed else -lim
            if r < 0.3:
                return self.rng.randint(max(lo_m, -10), min(lim, 10))
            return self.rng.randint(lo_m, lim)
        if r < 0.2:
            edges = [0, 1, lo, hi, lo + 1, hi - 1] + ([-1] if ty.signed else [])
            if ty.is_char or ty.bits == 8:
                edges += [ord("a"), ord("z"), ord("A"), ord("Z")]
            return self.rng.choice([e for e in edges if lo <= e <= hi])
        if r < 0.5:
            return self.rng.randint(max(lo, -10), min(hi, 10))
        return self.rng.randint(lo, hi)

    def float_(self, ty: Ty) -> float:
        r = self.rng.random()
        if self.semantics == "math":
            return self.rng.randint(-8000, 8000) / 8
        if ty.bits == 32:
            edges = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-45, 1.1754943508222875e-38, 3.4028234663852886e38,
                     -3.4028234663852886e38, math.inf, -math.inf, math.nan, 1e8]
        else:
            edges = [0.0, -0.0, 1.0, -1.0, 0.5, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
                     -1.7976931348623157e308, math.inf, -math.inf, math.nan, 1e16]
        if r < 0.2:
            return self.rng.choice(edges)
        if r < 0.5:
            v = self.rng.randint(-80, 80) / 8
        elif r < 0.75:
            v = self.rng.uniform(-1e6, 1e6)
        elif ty.bits == 32:
            v = struct.unpack("<f", struct.pack("<I", self.rng.getrandbits(32)))[0]
        else:
            v = struct.unpack("<d", struct.pack("<Q", self.rng.getrandbits(64)))[0]
        return f32(v) if ty.bits == 32 else v

    def value(self, ty: Ty, max_len: int):
        if ty.kind == "int":
            return self.int_(ty)
        if ty.kind == "bool":
            return self.rng.random() < 0.5
        if ty.kind == "float":
            return self.float_(ty)
        if ty is JAVA_STRING:
            # Mostly characters text-processing code tests for (digits,
            # letters, blanks, signs), some arbitrary units.
            n = self.rng.randint(0, max_len)
            common = "0123456789 aeiouAEIOUxyzXYZ+-.,\t"
            return [ord(self.rng.choice(common)) if self.rng.random() < 0.85
                    else self.int_(ty.elem) for _ in range(n)]
        if ty.kind == "array":
            n = ty.length if ty.length is not None else self.rng.randint(0, max_len)
            return [self.value(ty.elem, max_len) for _ in range(n)]
        if ty.kind == "argv":
            return None
        raise SignatureError(f"cannot generate a {ty.kind}")


# The largest value a loop input of an unbounded (`equivalent`) case gets by
# default: the loops run natively, and 300 inputs each running 2^31
# iterations do not finish in CI's time. The top edge is kept for a few
# inputs (TOP_EDGE_RUNS), where wrap-around bugs live.
LOOP_INPUT_MAX = 1 << 16
TOP_EDGE_RUNS = 2


def random_inputs(sig: Signature, state_vars: list[Var], semantics: str, count: int, seed: int,
                  bounded: int | None, loop_inputs: list[str], nullable: bool = False,
                  loop_input_max: int | None = None, renamed: dict | None = None) -> list[str]:
    """`bounded` is the loop bound for equivalent_bounded cases: loop inputs
    (named in expect.json) stay within it, and so do array lengths.
    `nullable`: array parameters are null one time in five (pairs that
    test arrays against null). Loop inputs of an unbounded case stay
    runnable: values above `loop_input_max` (expect.json, for a body too
    costly to run often; default LOOP_INPUT_MAX) are redrawn below it, and it
    is kept as an edge value. Without an explicit cap the first
    TOP_EDGE_RUNS draws of a 32-bit type's largest values are kept, so the
    wrap-around edge is still run natively. `renamed` (expect.json, old
    name → new name): a renamed field is one field, given one value under
    both names."""
    rng = random.Random(seed)
    gen = Gen(rng, semantics)
    max_len = bounded if bounded is not None else 6
    tie = c_length_param(sig)
    cap = loop_input_max if loop_input_max is not None else LOOP_INPUT_MAX
    top_edges: dict[str, int] = {}
    lines = []
    for _ in range(count):
        args = [gen.value(p.ty, max_len) for p in sig.params]
        for i, p in enumerate(sig.params):
            if bounded is not None and p.name in loop_inputs and p.ty.kind == "int":
                args[i] = rng.randint(max(-2, p.ty.int_range[0]), bounded)
            elif p.name in loop_inputs and p.ty.kind == "int" and args[i] > cap:
                hi = p.ty.int_range[1]
                if (loop_input_max is None and p.ty.bits <= 32 and args[i] >= hi - 1
                        and top_edges.get(p.name, 0) < TOP_EDGE_RUNS):
                    top_edges[p.name] = top_edges.get(p.name, 0) + 1
                else:
                    args[i] = cap if rng.random() < 0.2 else rng.randint(0, cap)
        if tie is not None:
            ai, ni = tie
            if bounded is not None and sig.params[ni].name in loop_inputs:
                n = max(args[ni], 0)
                args[ai] = [gen.value(sig.params[ai].ty.elem, 0) for _ in range(n)]
                args[ni] = args[ni] if rng.random() < 0.2 else n
            else:
                # n never exceeds the real length: reading past it is
                # undefined behaviour natively. Negative only when n is
                # signed: an unsigned n of -1 is the largest value, far
                # past the array.
                length = len(args[ai])
                lowest = max(-2, sig.params[ni].ty.int_range[0])
                args[ni] = length if rng.random() < 0.8 else rng.randint(lowest, length)
        if nullable:
            for i, p in enumerate(sig.params):
                if p.ty.kind == "array" and rng.random() < 0.2:
                    args[i] = None
        state = {v.name: gen.value(v.ty, max_len) for v in state_vars}
        share_renamed(state, renamed)
        lines.append(input_line(sig, args, state))
    return lines


# --------------------------------------------------------------------------
# Counterexample values (eqlens JSON) → native inputs


class NotRepresentable(Exception):
    pass


def split_array(text: str) -> list[str]:
    inner = text.strip()
    if not (inner.startswith("{") and inner.endswith("}")):
        raise ValueError(f"not an array value: {text!r}")
    inner = inner[1:-1].strip()
    if not inner:
        return []
    # Nested arrays are not produced for the fixtures' parameter types.
    return [x.strip() for x in inner.split(",")]


def parse_float_text(text: str) -> float:
    t = text.strip()
    table = {"NaN": math.nan, "nan": math.nan, "Infinity": math.inf, "inf": math.inf,
             "-Infinity": -math.inf, "-inf": -math.inf}
    if t in table:
        return table[t]
    return float(t)


def java_string_units(text: str) -> list[int]:
    """The UTF-16 units of a Java string literal as eqlens prints one
    (`"a\\n\\u00e9"`)."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"not a string value: {text!r}")
    body, units, i = text[1:-1], [], 0
    simple = {"n": 10, "t": 9, "r": 13, '"': 34, "\\": 92}
    while i < len(body):
        c = body[i]
        if c != "\\":
            units.extend(struct.unpack(f"<{len(c.encode('utf-16-le')) // 2}H", c.encode("utf-16-le")))
            i += 1
            continue
        e = body[i + 1:i + 2]
        if e in simple:
            units.append(simple[e])
            i += 2
        elif e == "u":
            units.append(int(body[i + 2:i + 6], 16))
            i += 6
        else:
            raise ValueError(f"unknown escape in {text!r}")
    return units


def cex_value(text: str, ty: Ty, semantics: str):
    """Parses one rendered value; raises NotRepresentable when the value has
    no native counterpart (math ints out of range, non-double reals), and
    ValueError when it is malformed or impossible under machine semantics."""
    text = text.strip()
    if ty is JAVA_STRING and text != "null":
        return java_string_units(text)
    if ty.kind == "array" and text == "null":
        # A Java array parameter passed as null (eqlens takes null arrays
        # as inputs where a version tests for null).
        return None
    if ty.kind == "array":
        items = [cex_value(x, ty.elem, semantics) for x in split_array(text)]
        if ty.length is not None and len(items) != ty.length:
            raise ValueError(f"an array of {len(items)} elements for one declared with {ty.length}")
        return items
    if ty.kind == "bool":
        if text not in ("true", "false"):
            raise ValueError(f"not a boolean: {text!r}")
        return text == "true"
    if ty.kind == "int":
        v = int(text)
        lo, hi = ty.int_range
        if not lo <= v <= hi:
            if semantics == "math":
                raise NotRepresentable(f"{v} is outside the range of {ty.spelling}")
            raise ValueError(f"{v} is outside the range of {ty.spelling} under machine semantics")
        return v
    if ty.kind == "float":
        if semantics == "math":
            if text.startswith("≈"):
                raise NotRepresentable(f"{text} is approximate")
            try:
                exact = Fraction(text)
            except (ValueError, ZeroDivisionError):
                raise ValueError(f"not a real number: {text!r}") from None
            v = float(exact)
            if ty.bits == 32:
                v = f32(v)
            if math.isinf(v) or Fraction(v) != exact:
                raise NotRepresentable(f"{text} is not exactly a {ty.spelling}")
            return v
        v = parse_float_text(text)
        if ty.bits == 32 and not math.isnan(v):
            # eqlens prints a float as its shortest round-tripping decimal
            # (`-115.4`), so rounding that to binary32 recovers the value.
            v = f32(v)
        return v
    raise ValueError(f"cannot take a {ty.kind} input")


def share_renamed(state: dict, renamed: dict | None) -> None:
    """Gives each renamed field's old name the value of its new name."""
    for old, new in (renamed or {}).items():
        if new in state:
            state[old] = state[new]


def as_new_names(record: str, renamed: dict | None) -> str:
    """An old version's output record with renamed fields under their new
    names, to compare with the new version's."""
    if not renamed:
        return record
    out = []
    for item in record.split("\t"):
        key, eq, value = item.partition("=")
        out.append(f"{renamed.get(key, key)}{eq}{value}")
    return "\t".join(out)


def cex_to_line(cex: dict, sig: Signature, other: Signature, semantics: str,
                renamed: dict | None = None) -> str:
    """Maps counterexample bindings (parameters by name, in either version's
    spelling, then fields/globals) to one driver input line; a renamed field
    (`renamed`, old name → new name) is bound under both names."""
    by_name = {}
    for b in cex.get("inputs", []):
        by_name[str(b["name"])] = str(b["value"])
    args = []
    used = set()
    for i, p in enumerate(sig.params):
        names = [p.name] + ([other.params[i].name] if i < len(other.params) else [])
        text = next((by_name[n] for n in names if n in by_name), None)
        if text is None and p.ty.kind == "argv":
            # No statement reads it, so eqlens lists no value for it.
            args.append(None)
            continue
        if text is None:
            raise ValueError(f"counterexample lacks parameter {p.name}")
        used.update(n for n in names if n in by_name)
        args.append(cex_value(text, p.ty, semantics))
    state_types = {v.name: v.ty for v in sig.state + other.state}
    state = {}
    for name, text in by_name.items():
        if name in used:
            continue
        short = name.rsplit(".", 1)[-1]
        if short not in state_types:
            raise ValueError(f"counterexample input {name} is neither a parameter nor a field/global")
        state[short] = cex_value(text, state_types[short], semantics)
    tie = c_length_param(sig)
    if tie is not None:
        ai, ni = tie
        # A NULL array has no length: its reads trap natively (`-fsanitize=null`).
        if args[ai] is not None and args[ni] > len(args[ai]):
            raise NotRepresentable(f"n={args[ni]} exceeds the array length {len(args[ai])} (out-of-bounds reads are undefined natively)")
    share_renamed(state, renamed)
    return input_line(sig, args, state)


def unobservable_outcome(lang: str, outcome: str) -> str | None:
    """Outcomes that native execution cannot reproduce faithfully."""
    if "step limit" in outcome or "call depth" in outcome or "too large" in outcome:
        return "the interpreter hit a resource limit"
    if lang == "c" and "undefined behaviour" in outcome and not any(
        what in outcome for what in ("signed integer overflow", "division by zero", "null array")
    ):
        # Overflow traps and division faults natively; the others (shift
        # counts, conversions, builtins of 0) do not.
        return "undefined behaviour is not observable natively"
    if lang == "c" and "out of bounds" in outcome:
        return "an out-of-bounds access is not observable natively in C"
    return None


# --------------------------------------------------------------------------
# Drivers


JAVA_PARSE = {
    "byte": "(byte) Long.parseLong({t})",
    "short": "(short) Long.parseLong({t})",
    "int": "(int) Long.parseLong({t})",
    "long": "Long.parseLong({t})",
    "char": "(char) Long.parseLong({t})",
    "boolean": "Boolean.parseBoolean({t})",
    "float": "Float.parseFloat({t})",
    "double": "Double.parseDouble({t})",
}

JAVA_HELPERS = r"""
    static String show(long v) { return Long.toString(v); }
    static String show(char v) { return Integer.toString(v); }
    static String show(boolean v) { return Boolean.toString(v); }
    static String show(float v) { return Float.isNaN(v) ? "NaN" : Float.toString(v); }
    static String show(double v) { return Double.isNaN(v) ? "NaN" : Double.toString(v); }
    static String show(int[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String show(long[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String show(short[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String show(byte[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String show(char[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String show(boolean[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String show(float[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String show(double[] a) { if (a == null) return "null"; StringBuilder b = new StringBuilder(); for (int i = 0; i < a.length; i++) { if (i > 0) b.append(','); b.append(show(a[i])); } return b.toString(); }
    static String[] items(String s) { return s.isEmpty() ? new String[0] : s.split(",", -1); }
    static String escape(String s) { return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t"); }
    static String lookup(String[] tok, int from, String name) {
        for (int i = from; i < tok.length; i++) if (tok[i].startsWith(name + "=")) return tok[i].substring(name.length() + 1);
        return null;
    }
"""


def java_parse_expr(ty: Ty, tok: str) -> str:
    if ty is JAVA_STRING:
        chars = java_parse_expr(Ty("array", elem=ty.elem, spelling="char[]"), "u")
        return (f"((java.util.function.Function<String, String>) u -> u.equals(\"null\") ? null "
                f": new String({chars})).apply({tok})")
    if ty.kind == "array":
        elem = ty.elem.spelling
        conv = JAVA_PARSE[elem].format(t="p[i]")
        return (f"((java.util.function.Function<String, {elem}[]>) s -> {{ if (s.equals(\"null\")) return null; "
                f"String[] p = items(s); "
                f"{elem}[] r = new {elem}[p.length]; for (int i = 0; i < p.length; i++) r[i] = {conv}; "
                f"return r; }}).apply({tok})")
    return JAVA_PARSE[ty.spelling].format(t=tok)


def java_driver(sig: Signature, cls: str, driver: str) -> str:
    """A class `driver` that runs `cls.<method>` once per stdin line."""
    P = len(sig.params)
    lines = [
        "import java.io.*;",
        f"public class {driver} {{",
        JAVA_HELPERS,
        "    public static void main(String[] argv) throws Exception {",
        "        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, \"UTF-8\"));",
        "        PrintStream real = System.out;",
        "        String line;",
        "        while ((line = in.readLine()) != null) {",
        "            String[] tok = line.split(\"\\t\", -1);",
    ]
    for i, p in enumerate(sig.params):
        lines.append(f"            {p.ty.spelling} a{i} = {java_parse_expr(p.ty, f'tok[{i}]')};")
    target = cls if sig.static else "obj"
    if not sig.static:
        lines.append(f"            {cls} obj = new {cls}();")
    for v in sig.state:
        lines.append(f"            {{ String t = lookup(tok, {P}, \"{v.name}\"); "
                     f"if (t != null) {target}.{v.name} = {java_parse_expr(v.ty, 't')}; }}")
    call = f"{target}.{sig.name}({', '.join(f'a{i}' for i in range(P))})"
    lines += [
        "            ByteArrayOutputStream buf = new ByteArrayOutputStream();",
        "            System.setOut(new PrintStream(buf, true, \"UTF-8\"));",
        "            String outcome;",
        "            try {",
    ]
    if sig.ret.kind == "void":
        lines += [f"                {call};", "                outcome = \"ret=void\";"]
    else:
        lines += [f"                {sig.ret.spelling} r = {call};", "                outcome = \"ret=\" + show(r);"]
    lines += [
        "            } catch (ArithmeticException e) { outcome = \"fault=division\"; }",
        "            catch (ArrayIndexOutOfBoundsException e) { outcome = \"fault=index\"; }",
        "            catch (NegativeArraySizeException e) { outcome = \"fault=negative-size\"; }",
        "            catch (StackOverflowError e) { outcome = \"fault=stack-overflow\"; }",
        # Any other exception is an outcome by its class (messages are not
        # compared, as in eqlens).
        "            catch (Exception e) { outcome = \"fault=\" + e.getClass().getSimpleName(); }",
        "            System.out.flush();",
        "            System.setOut(real);",
        "            StringBuilder rec = new StringBuilder(outcome);",
    ]
    for i, p in enumerate(sig.params):
        if p.ty.kind == "array" and p.ty is not JAVA_STRING:
            lines.append(f"            rec.append(\"\\t{p.name}=\").append(show(a{i}));")
    for v in sig.state:
        lines.append(f"            rec.append(\"\\t{v.name}=\").append(show({target}.{v.name}));")
    lines += [
        "            rec.append(\"\\tout=\").append(escape(buf.toString(\"UTF-8\")));",
        "            real.println(rec);",
        "            real.flush();",
        "        }",
        "    }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def c_parse_expr(ty: Ty, tok: str) -> str:
    if ty.kind == "float":
        return f"strtod({tok}, 0)" if ty.bits == 64 else f"strtof({tok}, 0)"
    if ty.kind == "bool":
        return f"(strcmp({tok}, \"true\") == 0)"
    if ty.signed:
        return f"({ty.spelling}) strtoll({tok}, 0, 10)"
    return f"({ty.spelling}) strtoull({tok}, 0, 10)"


def c_show_stmt(ty: Ty, expr: str) -> str:
    if ty.kind == "float":
        return f"show_d(rec, (double) ({expr}), {17 if ty.bits == 64 else 9});"
    if ty.kind == "bool":
        return f"fputs(({expr}) ? \"true\" : \"false\", rec);"
    if ty.signed:
        return f"fprintf(rec, \"%lld\", (long long) ({expr}));"
    return f"fprintf(rec, \"%llu\", (unsigned long long) ({expr}));"


C_PRELUDE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>

#define EQ_MAX_TOK 64
#define EQ_MAX_ARR 4096
static char *eq_tok[EQ_MAX_TOK];
static int eq_ntok;

static const char *eq_lookup(int from, const char *name) {
    size_t n = strlen(name);
    for (int i = from; i < eq_ntok; i++)
        if (strncmp(eq_tok[i], name, n) == 0 && eq_tok[i][n] == '=') return eq_tok[i] + n + 1;
    return 0;
}

static void show_d(FILE *rec, double v, int digits) {
    if (isnan(v)) fputs("NaN", rec);
    else fprintf(rec, "%.*g", digits, v);
}

static void eq_escape(FILE *to, FILE *from) {
    int c;
    rewind(from);
    while ((c = fgetc(from)) != EOF) {
        if (c == '\\') fputs("\\\\", to);
        else if (c == '\n') fputs("\\n", to);
        else if (c == '\t') fputs("\\t", to);
        else if (c == '\r') fputs("\\r", to);
        else if (c < 32 || c > 126) fprintf(to, "\\x%02x", c);
        else fputc(c, to);
    }
}
"""


def c_driver(sig: Signature, source_path: Path) -> str:
    P = len(sig.params)
    out = [C_PRELUDE, f"#include \"{source_path}\"", "", "static void eq_run(FILE *rec) {"]
    # State first, from the `name=value` tokens.
    for v in sig.state:
        if v.ty.kind == "array":
            # A global array of fixed length: its elements, in order.
            out.append(f"    {{ const char *t = eq_lookup({P}, \"{v.name}\"); int k = 0; while (t && *t && k < {v.ty.length})"
                       f" {{ {v.name}[k++] = {c_parse_expr(v.ty.elem, 't')}; t = strchr(t, ','); if (t) t++; }} }}")
        else:
            out.append(f"    {{ const char *t = eq_lookup({P}, \"{v.name}\"); if (t) {v.name} = {c_parse_expr(v.ty, 't')}; }}")
    for i, p in enumerate(sig.params):
        if p.ty.kind == "argv":
            out.append(f"    static char *a{i}[1] = {{0}};")
        elif p.ty.kind == "array":
            e = p.ty.elem
            # `null` passes a NULL pointer (eqlens takes NULL arrays as
            # inputs where a version tests a pointer against NULL).
            out += [
                f"    static {e.spelling} b{i}[EQ_MAX_ARR]; int len{i} = 0; {e.spelling} *a{i} = b{i};",
                f"    if (strcmp(eq_tok[{i}], \"null\") == 0) a{i} = 0;",
                f"    else {{ char *s = eq_tok[{i}]; while (*s && len{i} < EQ_MAX_ARR) {{ b{i}[len{i}++] = {c_parse_expr(e, 's')};"
                f" s = strchr(s, ','); if (!s) break; s++; }} }}",
            ]
        else:
            out.append(f"    {p.ty.spelling} a{i} = {c_parse_expr(p.ty, f'eq_tok[{i}]')};")
    call = f"{sig.name}({', '.join(f'a{i}' for i in range(P))})"
    if sig.ret.kind == "void":
        out += [f"    {call};", "    fputs(\"ret=void\", rec);"]
    else:
        out += [f"    {sig.ret.spelling} r = {call};", "    fputs(\"ret=\", rec);", "    " + c_show_stmt(sig.ret, "r")]
    for i, p in enumerate(sig.params):
        if p.ty.kind == "array":
            out += [
                f"    fputs(\"\\t{p.name}=\", rec);",
                f"    if (!a{i}) fputs(\"null\", rec);",
                f"    for (int i = 0; a{i} && i < len{i}; i++) {{ if (i) fputc(',', rec); {c_show_stmt(p.ty.elem, f'a{i}[i]')} }}",
            ]
    for v in sig.state:
        if v.ty.kind == "array":
            out += [f"    fputs(\"\\t{v.name}=\", rec);",
                    f"    for (int i = 0; i < {v.ty.length}; i++) {{ if (i) fputc(',', rec); {c_show_stmt(v.ty.elem, f'{v.name}[i]')} }}"]
        else:
            out += [f"    fputs(\"\\t{v.name}=\", rec);", "    " + c_show_stmt(v.ty, v.name)]
    out += ["}", ""]
    out.append(r"""
int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        eq_ntok = 0;
        char *s = line;
        for (;;) {
            if (eq_ntok < EQ_MAX_TOK) eq_tok[eq_ntok++] = s;
            char *tab = strchr(s, '\t');
            if (!tab) break;
            *tab = 0;
            s = tab + 1;
        }
        FILE *outf = tmpfile(), *rec = tmpfile();
        if (!outf || !rec) { perror("tmpfile"); return 2; }
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 2; }
        if (pid == 0) {
            alarm(10);
            dup2(fileno(outf), 1);
            setvbuf(stdout, 0, _IONBF, 0);
            eq_run(rec);
            fflush(rec);
            fflush(stdout);
            _exit(0);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        /* Undefined behaviour eqlens models is one outcome: a trap of the
           undefined-behaviour sanitizer (SIGILL) or a division fault
           (SIGFPE). */
        if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGILL || WTERMSIG(st) == SIGFPE))
            printf("fault=undefined");
        else if (WIFSIGNALED(st)) printf("fault=signal%d", WTERMSIG(st));
        else if (WEXITSTATUS(st) != 0) printf("fault=exit%d", WEXITSTATUS(st));
        else { int c; rewind(rec); while ((c = fgetc(rec)) != EOF) putchar(c); }
        fputs("\tout=", stdout);
        eq_escape(stdout, outf);
        putchar('\n');
        fclose(outf);
        fclose(rec);
    }
    return 0;
}
""")
    return "\n".join(out)


class BuildError(Exception):
    pass


@dataclass
class Native:
    """A compiled version: runs input lines, returns one record per line."""

    cmd: list[str]
    cwd: Path

    def run(self, lines: list[str], timeout: float = 120) -> list[str]:
        if not lines:
            return []
        p = subprocess.run(self.cmd, cwd=self.cwd, input="\n".join(lines) + "\n", capture_output=True,
                           text=True, timeout=timeout)
        records = p.stdout.splitlines()
        if p.returncode != 0 or len(records) != len(lines):
            raise BuildError(f"driver exited with {p.returncode} after {len(records)}/{len(lines)} inputs: "
                             f"{p.stderr.strip()[-400:]}")
        return records


def build_java(src: Path, sig: Signature, work: Path) -> Native:
    work.mkdir(parents=True, exist_ok=True)
    text = src.read_text()
    (work / f"{sig.cls}.java").write_text(text)
    (work / "EqDriver.java").write_text(java_driver(sig, sig.cls, "EqDriver"))
    p = subprocess.run(["javac", "-nowarn", "-encoding", "UTF-8", "-d", str(work), str(work / f"{sig.cls}.java"),
                        str(work / "EqDriver.java")], capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildError(f"javac failed: {p.stderr.strip()[-800:]}")
    return Native(["java", "-Xss8m", "-cp", str(work), "EqDriver"], work)


def build_c(src: Path, sig: Signature, work: Path) -> Native:
    work.mkdir(parents=True, exist_ok=True)
    (work / "driver.c").write_text(c_driver(sig, src.resolve()))
    exe = work / "driver"
    # Undefined behaviour eqlens's `machine` model knows traps natively (no
    # runtime library needed): signed overflow, a shift count out of range,
    # a bit-scan builtin of zero. Natively it is then the outcome the model
    # gives it, undefined behaviour. `-ftrapv` keeps GCC from folding an
    # overflowing comparison (`x + 1 > x` to 1, even at -O0) before the
    # sanitizer sees it; the sanitizer's trap still comes first.
    p = subprocess.run(["gcc", "-O0", "-ftrapv", "-fsanitize=signed-integer-overflow,shift-exponent,builtin,null",
                        "-fsanitize-undefined-trap-on-error",
                        "-w", "-o", str(exe), str(work / "driver.c"), "-lm"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildError(f"gcc failed: {p.stderr.strip()[-800:]}")
    return Native([str(exe)], work)


# --------------------------------------------------------------------------
# Comparing records


def close_floats(a: str, b: str) -> bool:
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= MATH_REL_TOL * max(1.0, abs(x), abs(y))


def same_record(a: str, b: str, tolerant: bool) -> bool:
    if a == b:
        return True
    if not tolerant:
        return False
    fa, fb = a.split("\t"), b.split("\t")
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if x == y:
            continue
        kx, _, vx = x.partition("=")
        ky, _, vy = y.partition("=")
        if kx != ky or kx == "out":
            return False
        ix, iy = vx.split(","), vy.split(",")
        if len(ix) != len(iy) or not all(p == q or close_floats(p, q) for p, q in zip(ix, iy)):
            return False
    return True


def describe_difference(a: str, b: str) -> str:
    fa, fb = a.split("\t"), b.split("\t")
    diffs = [f"{x} vs {y}" for x, y in zip(fa, fb) if x != y]
    return "; ".join(diffs)[:200] or f"{a!r} vs {b!r}"


# --------------------------------------------------------------------------
# eqlens


def run_eqlens(eqlens: Path, old: Path, new: Path, method: str, semantics: str, bound: int | None) -> dict:
    cmd = [str(eqlens), "check", str(old), str(new), "--method", method, "--semantics", semantics, "--format", "json"]
    if bound is not None:
        cmd += ["--loop-bound", str(bound)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise BuildError(f"eqlens exited with {p.returncode} without JSON: {p.stderr.strip()[-400:]}") from None
    for m in doc.get("methods", []):
        if m.get("name") == method:
            return m
    raise BuildError(f"eqlens report has no method {method}")


# --------------------------------------------------------------------------
# Driving one fixture


@dataclass
class Result:
    status: str  # "pass" | "fail" | "skip"
    message: str


@dataclass
class Fixture:
    lang: str
    name: str
    dir: Path
    expect: dict

    @property
    def id(self) -> str:
        return f"{self.lang}/{self.name}"

    def src(self, version: str) -> Path:
        return self.dir / f"{version}.{self.lang}"


def load_fixtures(root: Path, only: str | None) -> list[Fixture]:
    out = []
    for lang in ("java", "c"):
        base = root / lang
        if not base.is_dir():
            continue
        for d in sorted(p for p in base.iterdir() if p.is_dir()):
            fx = Fixture(lang, d.name, d, json.loads((d / "expect.json").read_text()))
            if only is None or only in fx.id:
                out.append(fx)
    return out


def strongest(expected):
    """The claim to test natively: expect.json may list several verdicts
    (a proof the solver finds only on some runs, e.g. bounded or complete);
    the strongest of them is what eqlens may claim, so it is what is run."""
    if not isinstance(expected, list):
        return expected
    for label in ("not_equivalent", "equivalent", "equivalent_partial", "equivalent_bounded"):
        if label in expected:
            return label
    return expected[0] if expected else None


def check_fixture(fx: Fixture, args, work: Path) -> list[tuple[str, Result]]:
    """Results per semantics."""
    plan = {s: strongest(fx.expect.get(s)) for s in ("math", "machine")}
    results: dict[str, Result] = {}
    for s, exp in plan.items():
        if exp not in DECIDED:
            results[s] = Result("skip", f"{exp}: not decided")
        elif s == "math" and "math_only" in fx.expect:
            # The verdict holds only over unbounded integers and reals (a
            # counterexample at MIN_VALUE, an identity doubles round away):
            # native code wraps and rounds, so running it proves nothing.
            results[s] = Result("skip", f"math-only verdict: {fx.expect['math_only']}")
        elif "native" in fx.expect:
            # The case cannot run natively (e.g. it calls a library that is
            # not here); expect.json says why.
            results[s] = Result("skip", f"not run natively: {fx.expect['native']}")
    todo = [s for s in plan if s not in results]
    if not todo:
        return list(results.items())
    method = fx.expect["method"]
    try:
        sigs = {v: parse_signature(fx.lang, fx.src(v).read_text(), method) for v in ("old", "new")}
        build = build_java if fx.lang == "java" else build_c
        natives = {v: build(fx.src(v), sigs[v], work / fx.lang / fx.name / v) for v in ("old", "new")}
    except (SignatureError, BuildError, OSError) as e:
        for s in todo:
            results[s] = Result("fail", f"cannot build: {e}")
        return list(results.items())
    bound = fx.expect.get("loop_bound")
    loop_inputs = fx.expect.get("loop_inputs", [])
    # Fields eqlens takes to hold their initial values (no code writes
    # them) keep them natively too.
    unwritten = set(fx.expect.get("unwritten", []))
    state_vars = {v.name: v for v in sigs["old"].state + sigs["new"].state if v.name not in unwritten}
    for s in todo:
        exp = plan[s]
        try:
            if exp == "not_equivalent":
                results[s] = replay_counterexample(fx, s, sigs, natives, args, bound)
            else:
                results[s] = random_test(fx, s, exp, sigs, natives, list(state_vars.values()), args, bound, loop_inputs)
        except (BuildError, subprocess.TimeoutExpired, OSError) as e:
            results[s] = Result("fail", str(e))
    return [(s, results[s]) for s in ("math", "machine")]


# A Java version that tests an array against null: eqlens then takes null
# array parameters as inputs (`symbolic::nullable_arrays`), and so do the
# random inputs.
NULL_TEST = re.compile(r"[=!]=\s*null\b|\bnull\s*[=!]=|\bObjects\.(requireNonNull|isNull|nonNull)\b")


def c_tests_null(text: str, sig) -> bool:
    """Whether a C version tests an array parameter against NULL (`p ==
    NULL`, `p != 0`, `!p`, `p` as a condition), as eqlens then takes NULL
    arrays as inputs."""
    for p in sig.params:
        if p.ty.kind != "array":
            continue
        n = re.escape(p.name)
        if re.search(rf"\b{n}\s*[=!]=\s*(NULL|0)\b|\b(NULL|0)\s*[=!]=\s*{n}\b|!\s*{n}\b(?!\s*[\[.-])"
                     rf"|\(\s*{n}\s*\)|&&\s*{n}\b(?!\s*[\[=!<>.-])|\b{n}\s*&&|\|\|\s*{n}\b(?!\s*[\[=!<>.-])|\b{n}\s*\|\|",
                     text):
            return True
    return False


def random_test(fx, semantics, exp, sigs, natives, state_vars, args, bound, loop_inputs) -> Result:
    sig = sigs["old"]
    bounded = None
    note = ""
    if exp == "equivalent_bounded":
        bounded = bound if bound is not None else DEFAULT_BOUND
        has_arrays = any(p.ty.kind == "array" for p in sig.params)
        if not loop_inputs and not has_arrays:
            return Result("skip", "equivalent_bounded: loop-controlling inputs unknown (no loop_inputs in expect.json)")
        if not loop_inputs:
            note = f", array lengths <= {bounded}"
        else:
            note = f", {'/'.join(loop_inputs)} <= {bounded}"
    seed = args.seed + sum(map(ord, fx.id + semantics))
    if fx.lang == "java":
        nullable = any(NULL_TEST.search(fx.src(v).read_text(encoding="utf-8")) for v in ("old", "new"))
    else:
        nullable = any(c_tests_null(fx.src(v).read_text(encoding="utf-8"), sigs[v]) for v in ("old", "new"))
    renamed = fx.expect.get("renamed")
    lines = random_inputs(sig, state_vars, semantics, args.inputs, seed, bounded, loop_inputs, nullable,
                          fx.expect.get("loop_input_max"), renamed)
    old = [as_new_names(r, renamed) for r in natives["old"].run(lines)]
    new = natives["new"].run(lines)
    tolerant = semantics == "math"
    compared = 0
    refined = 0
    timed_out = 0
    for line, a, b in zip(lines, old, new):
        if exp == "equivalent_partial" and any(t in r for r in (a, b) for t in NON_TERMINATION):
            continue
        if any(r.startswith(TIMED_OUT) for r in (a, b)):
            timed_out += 1
            continue
        if fx.lang == "c" and old_undefined(a):
            # Where the old version is undefined any behaviour of the new
            # one refines it (docs/semantics.md): nothing to compare.
            refined += 1
            continue
        compared += 1
        if not same_record(a, b, tolerant):
            return Result("fail", f"{exp} but input [{line}] gives {describe_difference(a, b)}")
    if compared == 0:
        return Result("skip", f"{exp}: no input on which both versions terminate")
    if refined:
        note += f" ({refined} where the old version is undefined not compared)"
    if timed_out:
        note += f" ({timed_out} where a version ran past the 10 s alarm not compared)"
    if compared + refined + timed_out < len(lines):
        note += f" ({len(lines) - compared - refined - timed_out} where a version ran out of stack not compared)"
    return Result("pass", f"{exp}: {compared} random inputs agree{note}")


def old_undefined(record: str) -> bool:
    """A native C run that trapped on undefined behaviour the harness detects."""
    return record.startswith("fault=undefined")


def replay_counterexample(fx, semantics, sigs, natives, args, bound) -> Result:
    if args.eqlens is None:
        return Result("skip", "not_equivalent: no eqlens binary (--no-eqlens)")
    m = run_eqlens(args.eqlens, fx.src("old"), fx.src("new"), fx.expect["method"], semantics, bound)
    verdict = m.get("verdict")
    if verdict != "not_equivalent":
        detail = m.get("detail", "")
        return Result("fail", f"expected not_equivalent, eqlens says {verdict} {detail}".strip())
    cex = m.get("counterexample", m)
    old_outcome = str((cex.get("old") or {}).get("outcome", ""))
    if fx.lang == "c" and "undefined behaviour" in old_outcome:
        return Result("fail", f"a counterexample on which the old version is undefined ({old_outcome}): "
                              "any behaviour of the new one refines it, so it shows no difference")
    for side in ("old", "new"):
        outcome = str((cex.get(side) or {}).get("outcome", ""))
        why = unobservable_outcome(fx.lang, outcome)
        if why:
            return Result("skip", f"counterexample not replayed: {why} ({side}: {outcome})")
    try:
        line = cex_to_line(cex, sigs["old"], sigs["new"], semantics, fx.expect.get("renamed"))
    except NotRepresentable as e:
        return Result("skip", f"counterexample skipped (not representable): {e}")
    except (ValueError, KeyError, TypeError) as e:
        return Result("fail", f"malformed counterexample: {e}")
    a = as_new_names(natives["old"].run([line])[0], fx.expect.get("renamed"))
    b = natives["new"].run([line])[0]
    shown = ", ".join(f"{i.get('name')}={i.get('value')}" for i in cex.get("inputs", []))
    if same_record(a, b, semantics == "math"):
        return Result("fail", f"counterexample {shown} does not reproduce: both give {a}")
    return Result("pass", f"counterexample {shown} confirmed: {describe_difference(a, b)}")


# --------------------------------------------------------------------------


def find_eqlens(explicit: str | None) -> Path | None:
    if explicit:
        return Path(explicit)
    for cand in (REPO / "target/debug/eqlens", REPO / "target/release/eqlens"):
        if cand.exists():
            return cand
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eqlens", help="eqlens binary (default target/debug/eqlens or target/release/eqlens)")
    ap.add_argument("--no-eqlens", action="store_true", help="skip counterexample replay (random tests only)")
    ap.add_argument("--fixtures", default=str(REPO / "fixtures"), help="fixtures directory")
    ap.add_argument("--only", help="only cases whose <lang>/<name> contains this")
    ap.add_argument("--inputs", type=int, default=300, help="random inputs per case and semantics")
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--keep", action="store_true", help="keep the build directory")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="fixtures checked at once (default: cores)")
    args = ap.parse_args(argv)

    missing = [t for t in ("javac", "java", "gcc") if shutil.which(t) is None]
    if missing:
        print(f"missing tools: {', '.join(missing)}", file=sys.stderr)
        return 2
    if args.no_eqlens:
        args.eqlens = None
    else:
        args.eqlens = find_eqlens(args.eqlens)
        if args.eqlens is None or not args.eqlens.exists():
            print("eqlens binary not found (build it, pass --eqlens PATH, or use --no-eqlens)", file=sys.stderr)
            return 2

    fixtures = load_fixtures(Path(args.fixtures), args.only)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    work = Path(tempfile.mkdtemp(prefix="eqlens-diff-"))
    # Fixtures are independent (each builds in its own directory, draws its
    # own seeded inputs, and only soundness is judged: an eqlens check slowed
    # by a busy core ends `unknown` and is skipped, never wrong), so they run
    # on every core; results print in fixture order.
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for fx, results in zip(fixtures, pool.map(lambda fx: check_fixture(fx, args, work), fixtures)):
                for semantics, r in results:
                    counts[r.status] += 1
                    tag = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}[r.status]
                    print(f"{tag} {fx.id} [{semantics}] {r.message}", flush=True)
    finally:
        if args.keep:
            print(f"build directory kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
