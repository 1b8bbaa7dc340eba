#!/usr/bin/env python3
"""No wrong verdict between consecutive real releases (Python 3.11, stdlib only).

For every pair of consecutive releases of each library of the history corpus
(`../shared/corpora/history`, see its README.md) and every source file present
in both releases and changed between them, runs

    eqlens check --format json --semantics machine --timeout-ms N OLD NEW

and confirms every `not_equivalent` method natively: the old and the new
release's method run on the counterexample's inputs (Java: javac/java, one JVM
per release calling the methods by reflection; C: gcc, a driver per function
that includes the release's source and forks per input) and their outcomes
must really differ — the return value or thrown exception, the written array
parameters and fields/globals, or the printed output. A counterexample whose
native runs agree is REFUTED: a wrong verdict of eqlens.

A counterexample that cannot be run natively is "not replayable" and says
why: a C pointer to a struct or another input that cannot be built from the
reported values, a run that reaches code standing in for classes outside the
corpus (the corpus holds only some packages of Commons Math; see
java_native.py), an outcome native code does not show (C undefined behaviour
other than a trapped overflow or division fault).

Prints one line per not-equivalent method, then a summary (pairs, files,
methods per verdict, replay results, time and what took it). Exits 1 when a
counterexample is refuted or eqlens failed on a file, 2 on a usage or setup
error, 0 otherwise — also when the corpus is absent (a "skipped" line).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "differential"))
sys.path.insert(0, str(HERE))
import harness  # noqa: E402
import java_native  # noqa: E402
import c_native  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "history"
DEFAULT_TIMEOUT_MS = 3000
# Wall-clock limit of one native call (a loop that does not end natively).
NATIVE_TIMEOUT_MS = 10000


# --------------------------------------------------------------------------
# The corpus


def version_key(tag: str) -> tuple:
    """`MATH_3_1_1` → (3, 1, 1), `v1.7.10` → (1, 7, 10)."""
    return tuple(int(x) for x in re.findall(r"\d+", tag))


@dataclass(frozen=True)
class Library:
    name: str
    lang: str

    def files(self, release: Path) -> dict[str, Path]:
        """The release's source files by a key that is the same in every
        release (Commons Math's `math3` package is `math` before 3.0)."""
        out = {}
        if self.lang == "java":
            for sub in ("math", "math3"):
                for pkg in ("util", "special", "primes"):
                    d = release / "org" / "apache" / "commons" / sub / pkg
                    for p in sorted(d.glob("*.java")) if d.is_dir() else []:
                        out[f"org/apache/commons/math/{pkg}/{p.name}"] = p
        else:
            for name in ("cJSON.c", "cJSON_Utils.c"):
                if (release / name).is_file():
                    out[name] = release / name
        return out


LIBRARIES = {"commons-math": Library("commons-math", "java"), "cjson": Library("cjson", "c")}


@dataclass
class FilePair:
    library: Library
    old_tag: str
    new_tag: str
    key: str
    old: Path
    new: Path

    @property
    def releases(self) -> str:
        return f"{self.old_tag}→{self.new_tag}"


@dataclass
class FileResult:
    pair: FilePair
    report: dict | None
    error: str | None
    seconds: float


@dataclass
class Case:
    """One not-equivalent method and what native execution made of it."""

    result: FileResult
    method: dict
    status: str = "pending"  # confirmed | refuted | unreplayable
    detail: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def pair(self) -> FilePair:
        return self.result.pair


def consecutive_pairs(corpus: Path, lib: Library, first: str | None, last: str | None) -> list[tuple[str, str]]:
    base = corpus / lib.name
    tags = sorted((p.name for p in base.iterdir() if p.is_dir()), key=version_key)
    for t in (first, last):
        if t is not None and t not in tags:
            raise SystemExit(f"usage: {lib.name} has no release {t} (releases: {', '.join(tags)})")
    lo = tags.index(first) if first else 0
    hi = tags.index(last) if last else len(tags) - 1
    tags = tags[lo:hi + 1]
    return list(zip(tags, tags[1:]))


def file_pairs(corpus: Path, lib: Library, pairs: list[tuple[str, str]]) -> tuple[list[FilePair], int]:
    """Changed files present in both releases, and how many identical ones
    were skipped."""
    out = []
    same = 0
    for a, b in pairs:
        fa = lib.files(corpus / lib.name / a)
        fb = lib.files(corpus / lib.name / b)
        for key in sorted(fa.keys() & fb.keys()):
            if fa[key].read_bytes() == fb[key].read_bytes():
                same += 1
            else:
                out.append(FilePair(lib, a, b, key, fa[key], fb[key]))
    return out, same


# --------------------------------------------------------------------------
# eqlens


def report_path(scratch: Path, pair: FilePair) -> Path:
    return (scratch / "reports" / pair.library.name / pair.releases.replace("→", "__")
            / (pair.key.replace("/", "_") + ".json"))


def reuse_report(previous: Path, pair: FilePair, scratch: Path) -> FileResult:
    """The report a kept run (`--keep`) wrote for this file pair."""
    src = report_path(previous, pair)
    if not src.exists():
        return FileResult(pair, None, f"no report in {previous}", 0.0)
    text = src.read_text()
    out = report_path(scratch, pair)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    try:
        return FileResult(pair, json.loads(text), None, 0.0)
    except json.JSONDecodeError:
        return FileResult(pair, None, f"the report in {previous} is not JSON", 0.0)


def run_eqlens(eqlens: Path, pair: FilePair, timeout_ms: int, scratch: Path) -> FileResult:
    cmd = [str(eqlens), "check", "--format", "json", "--semantics", "machine", "--timeout-ms", str(timeout_ms),
           str(pair.old), str(pair.new)]
    start = time.monotonic()
    try:
        # Generous: the budget is per method, and a file has up to a few
        # hundred methods.
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=7200)
    except subprocess.TimeoutExpired:
        return FileResult(pair, None, "eqlens did not finish within 2 hours", time.monotonic() - start)
    seconds = time.monotonic() - start
    out = report_path(scratch, pair)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(p.stdout)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        return FileResult(pair, None, f"eqlens exited with {p.returncode} without a JSON report: "
                                      f"{p.stderr.strip()[-300:]}", seconds)
    return FileResult(pair, doc, None, seconds)


# --------------------------------------------------------------------------
# Values as eqlens prints them, compared across renderings


def parse_value(text: str):
    """`{1, {2.0, NaN}}` → ['1', ['2.0', 'NaN']]; scalars stay text."""
    pos = 0

    def value():
        nonlocal pos
        while pos < len(text) and text[pos] == " ":
            pos += 1
        if pos < len(text) and text[pos] == "{":
            pos += 1
            items = []
            while True:
                while pos < len(text) and text[pos] == " ":
                    pos += 1
                if pos < len(text) and text[pos] == "}":
                    pos += 1
                    return items
                items.append(value())
                while pos < len(text) and text[pos] == " ":
                    pos += 1
                if pos < len(text) and text[pos] == ",":
                    pos += 1
        start = pos
        while pos < len(text) and text[pos] not in ",}":
            pos += 1
        return text[start:pos].strip()

    return value()


def _number(t: str) -> float | int | None:
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    try:
        return harness.parse_float_text(t)
    except ValueError:
        return None


def same_value(a: str, b: str) -> bool:
    """Equal values, whatever their rendering: a float printed as eqlens
    prints it (`0.1`) equals the same float widened to double
    (`0.10000000149011612`)."""
    if a == b:
        return True
    return _same_tree(parse_value(a), parse_value(b))


def _same_tree(x, y) -> bool:
    if isinstance(x, list) or isinstance(y, list):
        return isinstance(x, list) and isinstance(y, list) and len(x) == len(y) and all(
            _same_tree(p, q) for p, q in zip(x, y))
    if x == y:
        return True
    nx, ny = _number(x), _number(y)
    if nx is None or ny is None:
        return False
    if isinstance(nx, int) and isinstance(ny, int):
        return nx == ny
    fx, fy = float(nx), float(ny)
    if math.isnan(fx) or math.isnan(fy):
        return math.isnan(fx) and math.isnan(fy)
    return fx == fy or harness.f32(fx) == fy or fx == harness.f32(fy)


def parse_record(rec: str) -> tuple[str, dict[str, str]]:
    """A native record → (outcome, {observable: value}). The outcome is the
    first field (`ret=…`, `throw=…`, `limit=…`, C: `fault=…`)."""
    fields = rec.split("\t")
    outcome = fields[0]
    obs = {}
    for f in fields[1:]:
        k, _, v = f.partition("=")
        obs[k] = v
    return outcome, obs


def claimed_outcome(text: str, lang: str) -> str | None:
    """eqlens's outcome text as a native outcome, when it has one."""
    if text == "returns":
        return "ret=void"
    m = re.match(r"returns (.*)$", text)
    if m:
        return "ret=" + m.group(1)
    m = re.match(r"throws ([\w.$]+)", text)
    if m and lang == "java" and not text.startswith("throws what"):
        return "throw=" + m.group(1).rsplit(".", 1)[-1]
    return None


def same_outcome(a: str, b: str) -> bool:
    ka, _, va = a.partition("=")
    kb, _, vb = b.partition("=")
    return ka == kb and (va == vb or (ka == "ret" and same_value(va, vb)))


# --------------------------------------------------------------------------
# Java replay


def java_calls(case: Case, index: int, side: str) -> tuple[str | None, str | None]:
    """The EqReplay request for one side of a case, or why there is none."""
    m = case.method
    pair = case.pair
    path = pair.old if side == "old" else pair.new
    other_path = pair.new if side == "old" else pair.old
    text = path.read_text(encoding="utf-8")
    other_text = other_path.read_text(encoding="utf-8")
    span = m[f"{side}_span"]["start"]["byte"]
    other_span = m[f"{'new' if side == 'old' else 'old'}_span"]["start"]["byte"]
    try:
        jm = java_native.method_at(text, span, m["qualified"])
        other = java_native.method_at(other_text, other_span, m["qualified"])
    except ValueError as e:
        return None, f"cannot read the method's signature: {e}"
    if jm.constructor:
        return None, "a constructor (the replay calls methods)"
    inputs = [(b["name"], b.get("value")) for b in m.get("inputs", [])]
    used: set[str] = set()
    args = []
    for i, (ptype, pname) in enumerate(jm.params):
        names = [pname] + ([other.params[i][1]] if i < len(other.params) else [])
        direct = next((v for n, v in inputs if n in names and v is not None), None)
        used.update(n for n, _ in inputs if n in names)
        fields = {n: v for n, v in inputs if any(n.startswith(x + ".") for x in names)}
        used.update(fields)
        base = ptype.rstrip("[]")
        if direct is not None:
            args.append(direct)
        elif base not in java_native.PRIMITIVES and not ptype.endswith("[]") and base not in ("String", "?"):
            # An object given by its fields (a value class): `p.x`, `p.c.y`.
            tree: dict = {}
            for n, v in fields.items():
                path_ = n.split(".")[1:]
                node = tree
                for part in path_[:-1]:
                    node = node.setdefault(part, {})
                node[path_[-1]] = v
            args.append(_object_text(tree))
        else:
            args.append("(any)")
    sets = [(n, v) for n, v in inputs if n not in used and v is not None]
    shows = []
    for b in m.get("old", {}).get("state", []) + m.get("new", {}).get("state", []):
        n = b["name"]
        pnames = {p for _, p in jm.params} | {p for _, p in other.params}
        if n in pnames or n.startswith("result.") or n in shows:
            continue
        shows.append(n)
    fields_ = [f"id={index}.{side}", f"class={jm.binary_class}", f"method={jm.name}",
               "params=" + ";".join(t for t, _ in jm.params)]
    fields_ += [f"arg={a}" for a in args]
    fields_ += [f"set={n}={v}" for n, v in sets]
    fields_ += [f"show={n}" for n in shows]
    return "\t".join(fields_), None


def _object_text(tree: dict) -> str:
    parts = [f"{k}={_object_text(v) if isinstance(v, dict) else v}" for k, v in tree.items()]
    return "@{" + ", ".join(parts) + "}"


def java_param_names(case: Case) -> list[str]:
    m = case.method
    text = case.pair.new.read_text(encoding="utf-8")
    try:
        return [p for _, p in java_native.method_at(text, m["new_span"]["start"]["byte"], m["qualified"]).params]
    except ValueError:
        return []


def compare(case: Case, old_rec: str, new_rec: str, lang: str) -> None:
    """Sets the case's status from the two native records."""
    m = case.method
    o_out, o_obs = parse_record(old_rec)
    n_out, n_obs = parse_record(new_rec)
    for side, out in (("old", o_out), ("new", n_out)):
        if out.startswith("limit="):
            case.status, case.detail = "unreplayable", f"{side} release: {out[6:]}"
            return
    entry = {b["name"]: b.get("value") for b in m.get("inputs", [])}
    diffs = []
    if not same_outcome(o_out, n_out):
        diffs.append(f"outcome {o_out} vs {n_out}")
    for key in sorted(set(o_obs) | set(n_obs)):
        if key.startswith(NOTE_KEYS):
            continue
        a, b = o_obs.get(key, "absent"), n_obs.get(key, "absent")
        name = key[len("field:"):] if key.startswith("field:") else key
        if key.startswith("field:"):
            # A field is an observable where a release writes it: one that
            # neither run changed keeps its entry value, which for a static
            # final field is the release's own constant, not an output.
            if not (_written(a) or _written(b)):
                continue
            a, b = (v[len("unchanged:"):] if v.startswith("unchanged:") else v for v in (a, b))
        if "absent" in (a, b):
            # A field of one release only keeps its entry value in the other.
            if entry.get(name) is None:
                continue
            a = entry[name] if a == "absent" else a
            b = entry[name] if b == "absent" else b
        if key == "out":
            if a != b:
                diffs.append(f"output {a!r} vs {b!r}")
        elif not same_value(a, b):
            diffs.append(f"{_observable_name(case, key)}: {a} vs {b}")
    for side, obs in (("old", o_obs), ("new", n_obs)):
        for k, v in obs.items():
            if k.startswith("untyped:"):
                case.notes.append(f"field {k[8:]} is a {v} in the {side} release: the counterexample's value "
                                  "was not given to it")
    # Claims that native execution contradicts, for the record.
    finals = []
    for side, out, obs in (("old", o_out, o_obs), ("new", n_out, n_obs)):
        claim = claimed_outcome(m.get(side, {}).get("outcome", ""), lang)
        if claim is not None and not same_outcome(claim, out):
            case.notes.append(f"eqlens says the {side} release {m[side]['outcome']}; natively {out}")
        for k, v in obs.items():
            name = k[len("final:"):]
            if k.startswith("final:") and entry.get(name) is not None and not same_value(entry[name], v):
                finals.append(f"{name} = {_short(entry[name], 40)} ({side}: {_short(v, 40)})")
    if finals:
        case.notes.append("the counterexample gives static final fields values they do not have natively "
                          "(not set): " + ", ".join(finals))
    if diffs:
        case.status, case.detail = "confirmed", "; ".join(_short(d) for d in diffs)
        return
    # What eqlens claims differs, as the native runs have it.
    claimed = " ".join(m.get("differences", []))
    shown = []
    for k in o_obs:
        name = k[len("field:"):] if k.startswith("field:") else k
        if k == "out" or k.startswith(NOTE_KEYS) or not re.search(rf"\b{re.escape(name)}\b", claimed):
            continue
        a, b = o_obs[k], n_obs.get(k, "absent")
        written = _written(a) or _written(b)
        a, b = (v[len("unchanged:"):] if v.startswith("unchanged:") else v for v in (a, b))
        value = _short(a, 60) if a == b else f"{_short(a, 60)} vs {_short(b, 60)}"
        shown.append(f"{_observable_name(case, k)} {value}" + ("" if written else ", written by neither"))
    case.status = "refuted"
    if len(shown) > 3:
        shown = shown[:3] + [f"{len(shown) - 3} more"]
    case.detail = (f"both releases give {o_out}" + (f" ({'; '.join(shown)})" if shown else "")
                   + f"; eqlens claimed: {'; '.join(_short(d, 100) for d in m.get('differences', []))}")


NOTE_KEYS = ("final:", "unset:", "untyped:")


def _written(value: str) -> bool:
    return value != "absent" and not value.startswith("unchanged:")


def _observable_name(case: Case, key: str) -> str:
    if key.startswith("field:"):
        return key[len("field:"):]
    m = re.fullmatch(r"arg(\d+)", key)
    if m:
        names = java_param_names(case) if case.pair.library.lang == "java" else []
        i = int(m.group(1))
        return f"array {names[i]}" if i < len(names) else f"argument {i}"
    return key


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def replay_java(cases: list[Case], corpus: Path, scratch: Path, jobs: int, log) -> None:
    """Builds every release the cases need (in parallel) and runs each
    release's calls in one JVM."""
    if not cases:
        return
    driver = java_native.build_driver(scratch / "java")
    lib = cases[0].pair.library
    requests: dict[str, list[tuple[str, Case, str]]] = {}
    targets: dict[str, set[Path]] = {}
    for i, case in enumerate(cases):
        for side in ("old", "new"):
            tag = case.pair.old_tag if side == "old" else case.pair.new_tag
            line, why = java_calls(case, i, side)
            if line is None:
                case.status, case.detail = "unreplayable", why
                continue
            requests.setdefault(tag, []).append((line, case, side))
            path = case.pair.old if side == "old" else case.pair.new
            targets.setdefault(tag, set()).add(path.relative_to(corpus / lib.name / tag))
    releases: dict[str, java_native.Release | str] = {}

    def build(tag: str):
        start = time.monotonic()
        rel = java_native.Release(tag, corpus / lib.name / tag, scratch / "java" / tag)
        try:
            rel.build(sorted(targets[tag]))
        except java_native.CompileError as e:
            return tag, str(e)
        log(f"compiled {lib.name} {tag} ({len(targets[tag])} target files, {rel.rounds} javac rounds, "
            f"{len(rel.stubs)} stubs, {len(rel.erased)} erased statements/bodies) in {time.monotonic() - start:.0f} s")
        return tag, rel

    with ThreadPoolExecutor(max(1, jobs)) as ex:
        for tag, rel in ex.map(build, sorted(requests, key=version_key)):
            releases[tag] = rel
    records: dict[str, str] = {}
    for tag, reqs in requests.items():
        rel = releases[tag]
        if isinstance(rel, str):
            for _, case, side in reqs:
                if case.status == "pending":
                    case.status, case.detail = "unreplayable", f"{side} release does not compile: {rel}"
            continue
        try:
            got = java_native.run_calls(rel, driver, [r[0] for r in reqs], NATIVE_TIMEOUT_MS)
        except (java_native.CompileError, subprocess.TimeoutExpired) as e:
            for _, case, side in reqs:
                if case.status == "pending":
                    case.status, case.detail = "unreplayable", f"{side} release: {e}"
            continue
        for rid, rec in got.items():
            records[rid] = rec.split("\t", 1)[1]
    for i, case in enumerate(cases):
        if case.status != "pending":
            continue
        a, b = records.get(f"{i}.old"), records.get(f"{i}.new")
        if a is None or b is None:
            case.status, case.detail = "unreplayable", "the replay printed no record"
            continue
        unset = [{k[6:] for k in parse_record(r)[1] if k.startswith("unset:")} for r in (a, b)]
        if unset[0] & unset[1]:
            case.status = "unreplayable"
            case.detail = f"input {', '.join(sorted(unset[0] & unset[1]))} is a field of neither release"
            continue
        compare(case, a, b, "java")


# --------------------------------------------------------------------------
# C replay


def replay_c(cases: list[Case], scratch: Path) -> None:
    for i, case in enumerate(cases):
        try:
            old, new = c_native.replay(case.method, case.pair.old, case.pair.new, scratch / "c" / str(i))
        except c_native.NotReplayable as e:
            case.status, case.detail = "unreplayable", str(e)
            continue
        except (harness.BuildError, subprocess.TimeoutExpired, OSError) as e:
            case.status, case.detail = "unreplayable", f"native build or run failed: {_short(str(e), 300)}"
            continue
        compare(case, old, new, "c")


# --------------------------------------------------------------------------


STATUS_WORD = {"confirmed": "confirmed", "refuted": "REFUTED", "unreplayable": "not replayable"}


def method_counts(results: list[FileResult]) -> dict[str, int]:
    c = {"methods": 0, "equivalent": 0, "equivalent_bounded": 0, "equivalent_partial": 0, "not_equivalent": 0,
         "unknown": 0, "unknown_timeout": 0}
    for r in results:
        for m in (r.report or {}).get("methods", []):
            c["methods"] += 1
            v = m.get("verdict")
            if v == "equivalent":
                c["equivalent"] += 1
                if m.get("bounded"):
                    c["equivalent_bounded"] += 1
                if m.get("partial"):
                    c["equivalent_partial"] += 1
            elif v == "not_equivalent":
                c["not_equivalent"] += 1
            else:
                c["unknown"] += 1
                if (m.get("reason") or {}).get("kind") == "timeout" or "ran out of time" in m.get("detail", ""):
                    c["unknown_timeout"] += 1
    return c


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="the history corpus (default %(default)s)")
    ap.add_argument("--library", choices=sorted(LIBRARIES), action="append",
                    help="only this library (repeatable; default: all)")
    ap.add_argument("--from", dest="first", metavar="TAG", help="first release (of the selected libraries)")
    ap.add_argument("--to", dest="last", metavar="TAG", help="last release")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="eqlens runs and release builds at once (default %(default)s)")
    ap.add_argument("--timeout-ms", type=int, default=DEFAULT_TIMEOUT_MS,
                    help="eqlens's budget per method pair (default %(default)s)")
    ap.add_argument("--eqlens", help="eqlens binary (default target/release/eqlens)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory (reports, builds)")
    ap.add_argument("--reuse", metavar="DIR",
                    help="take eqlens's reports from the scratch directory of a kept run instead of running it")
    args = ap.parse_args(argv)

    corpus = Path(args.corpus)
    if not corpus.is_dir():
        print(f"history corpus not found at {corpus}: skipped")
        return 0
    eqlens = Path(args.eqlens) if args.eqlens else REPO / "target" / "release" / "eqlens"
    if not eqlens.exists():
        print(f"eqlens binary not found at {eqlens} (build it or pass --eqlens PATH)", file=sys.stderr)
        return 2
    libs = [LIBRARIES[n] for n in (args.library or sorted(LIBRARIES)) if (corpus / n).is_dir()]
    needed = {"java", "javac"} if any(l.lang == "java" for l in libs) else set()
    needed |= {"gcc"} if any(l.lang == "c" for l in libs) else set()
    missing = sorted(t for t in needed if shutil.which(t) is None)
    if missing:
        print(f"missing tools: {', '.join(missing)}", file=sys.stderr)
        return 2

    start = time.monotonic()
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    scratch = Path(tempfile.mkdtemp(prefix="eqlens-history-"))
    try:
        pairs: dict[str, list[tuple[str, str]]] = {}
        work: list[FilePair] = []
        identical = 0
        for lib in libs:
            try:
                pairs[lib.name] = consecutive_pairs(corpus, lib, args.first, args.last)
            except SystemExit as e:
                print(e, file=sys.stderr)
                return 2
            fps, same = file_pairs(corpus, lib, pairs[lib.name])
            work += fps
            identical += same
        log(f"{sum(map(len, pairs.values()))} release pairs, {len(work)} changed files to check "
            f"({identical} identical skipped), {args.jobs} at a time")

        results: list[FileResult] = []
        done = 0

        def one(fp: FilePair) -> FileResult:
            if args.reuse:
                return reuse_report(Path(args.reuse), fp, scratch)
            return run_eqlens(eqlens, fp, args.timeout_ms, scratch)

        eq_start = time.monotonic()
        with ThreadPoolExecutor(max(1, args.jobs)) as ex:
            for r in ex.map(one, work):
                done += 1
                results.append(r)
                ms = (r.report or {}).get("methods", [])
                neq = sum(m.get("verdict") == "not_equivalent" for m in ms)
                what = r.error or f"{len(ms)} methods, {neq} not equivalent"
                log(f"[{done}/{len(work)}] {r.pair.library.name} {r.pair.releases} {r.pair.key}: {what} "
                    f"({r.seconds:.1f} s)")
        eq_seconds = time.monotonic() - eq_start

        cases = [Case(r, m) for r in results for m in (r.report or {}).get("methods", [])
                 if m.get("verdict") == "not_equivalent"]
        native_start = time.monotonic()
        for lib in libs:
            mine = [c for c in cases if c.pair.library == lib]
            if lib.lang == "java":
                replay_java(mine, corpus, scratch, args.jobs, log)
            else:
                replay_c(mine, scratch)
        native_seconds = time.monotonic() - native_start

        order = {lib.name: i for i, lib in enumerate(libs)}
        cases.sort(key=lambda c: (order[c.pair.library.name], version_key(c.pair.old_tag), c.pair.key,
                                  c.method.get("label", "")))
        for c in cases:
            shown = ", ".join(f"{b['name']}={_short(str(b.get('value')), 40)}" for b in c.method.get("inputs", []))
            print(f"{STATUS_WORD.get(c.status, c.status)}: {c.pair.library.name} {c.pair.releases} {c.pair.key} "
                  f"{c.method.get('label')} [{_short(shown, 200)}]: {c.detail}")
            for n in c.notes:
                print(f"    note: {n}")

        errors = [r for r in results if r.error]
        for r in errors:
            print(f"eqlens error: {r.pair.library.name} {r.pair.releases} {r.pair.key}: {r.error}")
        counts = method_counts(results)
        by = {s: sum(c.status == s for c in cases) for s in ("confirmed", "refuted", "unreplayable")}
        total = time.monotonic() - start
        print()
        print(f"libraries: {', '.join(l.name for l in libs)}; release pairs: {sum(map(len, pairs.values()))}; "
              f"changed files checked: {len(results)} ({identical} identical skipped, {len(errors)} eqlens errors)")
        print(f"methods: {counts['methods']}: equivalent {counts['equivalent']} "
              f"(bounded {counts['equivalent_bounded']}, partial {counts['equivalent_partial']}), "
              f"not equivalent {counts['not_equivalent']}, unknown {counts['unknown']} "
              f"(timeouts {counts['unknown_timeout']})")
        print(f"counterexamples: confirmed {by['confirmed']}, REFUTED {by['refuted']}, "
              f"not replayable {by['unreplayable']}")
        slow = sorted(results, key=lambda r: -r.seconds)[:5]
        print(f"time: {total:.0f} s ({eq_seconds:.0f} s eqlens with --timeout-ms {args.timeout_ms} and "
              f"{args.jobs} jobs, {native_seconds:.0f} s native); slowest files: "
              + ", ".join(f"{r.pair.library.name} {r.pair.releases} {Path(r.pair.key).name} {r.seconds:.0f} s"
                          for r in slow))
        return 1 if by["refuted"] or errors else 0
    finally:
        if args.keep:
            print(f"scratch directory kept: {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
