"""Native C for tests/history/confirm.py: a counterexample of a function of a
release's source file, run by a driver that `#include`s that file (so that
`static` functions are callable) and forks per input (the differential
harness's driver, tests/differential/harness.py).

Parameters and globals must be scalars or arrays of scalars (a pointer
parameter is an array input in eqlens); anything else — a pointer to a
struct, a function pointer, a struct global — cannot be built from the
reported values, and the case is not replayable.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import harness

GCC_FLAGS = ["-O0", "-fsanitize=signed-integer-overflow", "-fsanitize-undefined-trap-on-error", "-w"]


class NotReplayable(Exception):
    pass


def _strip_comments(text: str) -> str:
    """Comments replaced by spaces (offsets kept)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)


def typedefs(sources: list[str]) -> dict[str, harness.Ty]:
    """`typedef int cJSON_bool;` and the like: scalar typedefs by name."""
    out = {}
    for text in sources:
        for m in re.finditer(r"\btypedef\s+([\w\s]+?)\s+(\w+)\s*;", _strip_comments(text)):
            try:
                out[m.group(2)] = harness.c_type(m.group(1))
            except harness.SignatureError:
                pass
    return out


def scalar(text: str, tdefs: dict[str, harness.Ty]) -> harness.Ty:
    words = [w for w in text.split() if w not in ("const", "static", "volatile", "register", "inline")]
    if len(words) == 1 and words[0] in tdefs:
        return tdefs[words[0]]
    try:
        return harness.c_type(" ".join(words))
    except harness.SignatureError:
        raise NotReplayable(f"type {' '.join(words) or text!r} is not a scalar") from None


def param(text: str, tdefs: dict[str, harness.Ty]) -> harness.Var:
    t = re.sub(r"\bconst\b", " ", text).strip()
    if "(" in t:
        raise NotReplayable(f"function pointer parameter {text!r}")
    m = re.fullmatch(r"(.+?)\s*((?:\*\s*)*)\b(\w+)\s*((?:\[\s*\w*\s*\])*)", t)
    if not m:
        raise NotReplayable(f"cannot read parameter {text!r}")
    stars = m.group(2).count("*") + m.group(4).count("[")
    if stars > 1:
        raise NotReplayable(f"pointer to a pointer {text!r}")
    if m.group(1).split()[0] in ("struct", "union", "enum") and stars:
        raise NotReplayable(f"pointer to a struct {text!r}")
    try:
        base = scalar(m.group(1), tdefs)
    except NotReplayable:
        raise NotReplayable(f"pointer to a struct or another non-scalar {text!r}" if stars
                            else f"parameter of non-scalar type {text!r}") from None
    ty = harness.Ty("array", elem=base, spelling=base.spelling) if stars else base
    return harness.Var(m.group(3), ty)


def signature(text: str, byte_offset: int, tdefs: dict[str, harness.Ty]) -> harness.Signature:
    """The function whose name starts at `byte_offset` (eqlens's span)."""
    clean = _strip_comments(text)
    off = len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
    m = re.compile(r"\w+").match(clean, off)
    if not m:
        raise NotReplayable("no function name at the reported position")
    name = m.group()
    depth = 0
    end = None
    for j in range(m.end(), len(clean)):
        if clean[j] == "(":
            depth += 1
        elif clean[j] == ")":
            depth -= 1
            if depth == 0:
                end = j
                break
    if end is None:
        raise NotReplayable(f"cannot read the parameters of {name}")
    params_text = clean[clean.index("(", m.end()) + 1:end]
    # The return type: back to the previous declaration or directive.
    start = max(clean.rfind(";", 0, off), clean.rfind("}", 0, off), clean.rfind("{", 0, off))
    head_lines = [ln for ln in clean[start + 1:off].splitlines() if not ln.strip().startswith("#")]
    head = " ".join(head_lines)
    head = re.sub(r"\b\w+\s*\(([^()]*)\)", r"\1", head)  # CJSON_PUBLIC(char *) → char *
    if "*" in head:
        raise NotReplayable(f"{name} returns a pointer")
    ret = scalar(head, tdefs)
    params = [param(p, tdefs) for p in params_text.split(",")] if params_text.strip() not in ("", "void") else []
    return harness.Signature("c", name, ret, params, True, "", [])


def global_var(text: str, name: str, tdefs: dict[str, harness.Ty]) -> harness.Var:
    clean = _strip_comments(text)
    m = re.search(rf"^\s*((?:\w+\s+)*?\w+)\s*(\*?)\s*\b{re.escape(name)}\s*(\[[^\]]*\])?\s*(?:=[^;]*)?;",
                  clean, re.M)
    if not m:
        raise NotReplayable(f"global {name} not found")
    if m.group(2):
        raise NotReplayable(f"global pointer {name}")
    base = scalar(m.group(1), tdefs)
    ty = harness.Ty("array", elem=base, spelling=base.spelling) if m.group(3) else base
    return harness.Var(name, ty)


def replay(method: dict, old_path: Path, new_path: Path, work: Path) -> tuple[str, str]:
    """Runs both releases' functions on the counterexample; returns the
    two native records."""
    for side in ("old", "new"):
        outcome = str((method.get(side) or {}).get("outcome", ""))
        why = harness.unobservable_outcome("c", outcome)
        if why:
            raise NotReplayable(f"{why} ({side}: {outcome})")
    sigs = {}
    texts = {}
    tdefs = {}
    for side, path in (("old", old_path), ("new", new_path)):
        texts[side] = path.read_text(encoding="utf-8", errors="replace")
        headers = [h.read_text(encoding="utf-8", errors="replace") for h in path.parent.glob("*.h")]
        tdefs[side] = typedefs(headers + [texts[side]])
        sigs[side] = signature(texts[side], method[f"{side}_span"]["start"]["byte"], tdefs[side])
    params = {p.name for s in sigs.values() for p in s.params}
    names = [b["name"] for b in method.get("inputs", [])] + [
        b["name"] for side in ("old", "new") for b in (method.get(side) or {}).get("state", [])]
    for side in ("old", "new"):
        state = []
        for n in dict.fromkeys(names):
            if n in params or re.search(rf"\b{re.escape(n)}\b", texts[side]) is None:
                continue
            if "." in n:
                raise NotReplayable(f"struct input {n}")
            state.append(global_var(texts[side], n, tdefs[side]))
        sigs[side].state = state
    try:
        line_old = harness.cex_to_line(method, sigs["old"], sigs["new"], "machine")
        line_new = harness.cex_to_line(method, sigs["new"], sigs["old"], "machine")
    except harness.NotRepresentable as e:
        raise NotReplayable(f"not representable natively: {e}") from None
    except (ValueError, KeyError, TypeError) as e:
        raise NotReplayable(f"cannot map the counterexample to inputs: {e}") from None
    records = []
    for side, path, line in (("old", old_path, line_old), ("new", new_path, line_new)):
        d = work / side
        d.mkdir(parents=True, exist_ok=True)
        (d / "driver.c").write_text(harness.c_driver(sigs[side], path.resolve()))
        sources = [str(d / "driver.c")]
        # cJSON_Utils.c calls the library's cJSON.c: link the same release's.
        lib = path.parent / "cJSON.c"
        if path.name != "cJSON.c" and lib.exists():
            sources.append(str(lib))
        exe = d / "driver"
        p = subprocess.run(["gcc", *GCC_FLAGS, "-I", str(path.parent), "-o", str(exe), *sources, "-lm"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise harness.BuildError(f"gcc failed: {p.stderr.strip()[-600:]}")
        records.append(harness.Native([str(exe)], d).run([line])[0])
    return records[0], records[1]
