"""Native Java for tests/history/confirm.py: compiling a release of a library
whose corpus holds only some of its packages, and running its methods by
reflection.

The corpus files import classes that are not in it (exceptions, message
catalogues, other packages). A release is compiled from a copy of its files
with javac's `-sourcepath`, so that only the classes the methods under test
need are compiled, and javac's errors are answered until it compiles:

* a class javac cannot find gets a stand-in (a *stub*) in the package it is
  imported from (or the file's own package): an interface where the corpus
  implements it, an unchecked exception where the corpus throws, catches or
  declares it (or its name says so), a plain class otherwise, with the type
  parameters the corpus uses and a constructor taking anything;
* a field or method javac cannot find on a stub is added to it: a static
  field of the stub's type, a method taking anything and returning whatever
  the caller expects, which throws `eqstub.EqStubCalled` when called;
* a stub passed where another stub is expected implements or extends it;
* any other error inside a method, constructor or initializer body replaces
  the simple statement around it (an expression statement or a `throw`)
  with one throwing `eqstub.EqErased` — or the whole body, where the error
  is in a declaration, a condition or a `return`; inside a field
  initializer, the initializer with a call that throws it;
* an `@Override` of a method the stubbed supertype lacks is dropped.

Imported classes the release lacks, and the constants and static methods
the sources use on them, are stubbed before javac's first run; code is
replaced only in a round that changes no stub (until the stubs settle, an
error may be the consequence of a missing class).

Nothing of this changes what a method computes on a run that does not reach a
stand-in; a run that does reach one ends in `EqStubCalled`/`EqErased`, which
the driver (EqReplay.java) reports as "not replayable", never as an outcome.
Line numbers are preserved by every edit.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DRIVER_SOURCE = HERE / "EqReplay.java"
MAX_ROUNDS = 25

PRIMITIVES = {"byte", "short", "int", "long", "char", "boolean", "float", "double", "void"}


class CompileError(Exception):
    pass


# --------------------------------------------------------------------------
# A small Java scanner: tokens, and the members of each class body.


TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<string>"(?:\\.|[^"\\\n])*")
    |(?P<char>'(?:\\.|[^'\\\n])+')
    |(?P<ident>[A-Za-z_$][\w$]*)
    |(?P<number>\.?\d[\w.]*(?:[eEpP][+-]?\d+)?[fFdDlL]?)
    |(?P<op>\.\.\.|[{}()\[\];,.@=<>?:!~+\-*/&|^%])
    """,
    re.S | re.X,
)


@dataclass
class Tok:
    kind: str
    text: str
    start: int
    end: int


def tokenize(text: str) -> list[Tok]:
    out = []
    pos = 0
    n = len(text)
    while pos < n:
        m = TOKEN.match(text, pos)
        if not m:
            # Anything else (a stray character) is a token of its own.
            out.append(Tok("op", text[pos], pos, pos + 1))
            pos += 1
            continue
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            out.append(Tok(kind, m.group(), m.start(), m.end()))
        pos = m.end()
    return out


@dataclass
class Member:
    """A class-level declaration: `body` for a method, constructor or
    initializer (offsets of its braces), `init` for a field initializer
    (offset after the `=` and of the closing `;`)."""

    kind: str  # "body" | "init"
    header_start: int
    open: int
    close: int
    name: str


def members(text: str) -> list[Member]:
    toks = tokenize(text)
    out: list[Member] = []
    # Stack entries: (kind, index of the opening token, index where the
    # enclosing level's current declaration started).
    stack: list[tuple[str, int, int]] = []
    decl = 0
    for i, t in enumerate(toks):
        top = stack[-1][0] if stack else "type"
        if t.text == "{" and t.kind == "op":
            if top == "type":
                header = toks[decl:i]
                words = {h.text for h in header if h.kind == "ident"}
                if words & {"class", "interface", "enum"}:
                    kind = "type"
                elif any(h.text == "=" for h in header):
                    kind = "array"
                else:
                    kind = "body"
                stack.append((kind, i, decl))
                if kind != "array":
                    decl = i + 1
            else:
                stack.append(("block", i, decl))
            continue
        if t.text == "}" and t.kind == "op":
            if not stack:
                continue
            kind, open_i, start = stack.pop()
            if kind == "body":
                out.append(Member("body", toks[start].start if start < open_i else toks[open_i].start,
                                  toks[open_i].start, t.start, _member_name(toks[start:open_i])))
            if kind in ("body", "type"):
                decl = i + 1
            continue
        if t.text == ";" and top == "type":
            eq = next((k for k in range(decl, i) if toks[k].text == "=" and toks[k].kind == "op"), None)
            if eq is not None:
                out.append(Member("init", toks[decl].start, toks[eq].end, t.start, toks[eq - 1].text))
            decl = i + 1
    return out


def _member_name(header: list[Tok]) -> str:
    """The name of a method or constructor from its header tokens (the last
    identifier before a parenthesis at depth 0 that is not an annotation's);
    `<initializer>` for an initializer block."""
    name = "<initializer>"
    depth = 0
    for k, t in enumerate(header):
        if t.text == "(":
            if depth == 0 and k > 0 and header[k - 1].kind == "ident" and not (k > 1 and header[k - 2].text == "@"):
                name = header[k - 1].text
            depth += 1
        elif t.text == ")":
            depth -= 1
    return name


STATEMENT_KEYWORDS = {"if", "for", "while", "do", "switch", "try", "else", "case", "default", "synchronized",
                      "return", "catch", "finally", "yield", "assert", "break", "continue"}


def simple_statement(text: str, member: Member, off: int) -> tuple[int, int] | None:
    """The offsets (first character, closing `;`) of the simple statement of
    `member`'s body holding offset `off`: an expression statement or a
    `throw`, not a declaration, a compound statement or a `return` (erasing
    those would leave a variable undeclared, a branch without its `if`, a
    method without its result). None when the error is not in one."""
    toks = tokenize(text[member.open:member.close + 1])
    for t in toks:
        t.start += member.open
        t.end += member.open
    stack: list[str] = []
    starts: list[int] = [0]
    hit = None
    for i, t in enumerate(toks):
        if hit is None and t.start >= off:
            hit = i
            break
        if t.kind != "op":
            continue
        if t.text == "{":
            stack.append("{")
            starts.append(i + 1)
        elif t.text == "}":
            if stack:
                stack.pop()
            if len(starts) > 1:
                starts.pop()
            starts[-1] = i + 1
        elif t.text in "([":
            stack.append(t.text)
        elif t.text in ")]":
            if stack:
                stack.pop()
        elif t.text == ";" and (not stack or stack[-1] == "{"):
            starts[-1] = i + 1
    if hit is None or len(stack) == 0:
        return None
    first = starts[-1]
    # The error must be in the statement's own parentheses, not in a block
    # opened after its start.
    depth = 0
    for j in range(first, len(toks)):
        t = toks[j]
        if t.kind != "op":
            continue
        if t.text in "([":
            depth += 1
        elif t.text in ")]":
            depth -= 1
        elif t.text == "{":
            return None
        elif t.text == "}":
            return None
        elif t.text == ";" and depth == 0:
            if j < hit:
                return None
            head = toks[first]
            if head.text in STATEMENT_KEYWORDS or _declares(toks[first:j]):
                return None
            return head.start, t.start
    return None


def _declares(toks: list[Tok]) -> bool:
    """Whether a statement's tokens start a local variable declaration
    (`int x = …`, `final List<T> y;`, `double[] a = …`)."""
    if toks and toks[0].text in ("throw", "new", "this", "super"):
        return False
    k = 0
    while k < len(toks) and toks[k].text in ("final", "@"):
        k += 2 if toks[k].text == "@" else 1
    if k >= len(toks) or toks[k].kind != "ident":
        return False
    k += 1
    while k < len(toks) and toks[k].text == ".":
        k += 2
    if k < len(toks) and toks[k].text == "<":
        depth = 0
        while k < len(toks):
            depth += {"<": 1, ">": -1}.get(toks[k].text, 0)
            k += 1
            if depth == 0:
                break
    while k + 1 < len(toks) and toks[k].text == "[" and toks[k + 1].text == "]":
        k += 2
    return k < len(toks) and toks[k].kind == "ident"


def line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def offset_of(text: str, line: int, col: int = 1) -> int:
    """Offset of a one-based line and column."""
    starts = line_starts(text)
    line = max(1, min(line, len(starts)))
    return min(starts[line - 1] + max(col - 1, 0), len(text))


def blank_keep_lines(text: str) -> str:
    return "\n" * text.count("\n")


# --------------------------------------------------------------------------
# Stubs


@dataclass
class Stub:
    fqn: str
    kind: str  # "interface" | "exception" | "class"
    arity: int = 0
    fields: set[str] = field(default_factory=set)
    static_methods: set[str] = field(default_factory=set)
    instance_methods: set[str] = field(default_factory=set)
    # Stub interfaces it implements (a class) or extends (an interface).
    supers: set[str] = field(default_factory=set)
    # A stub class it extends (a class stub only).
    superclass: str = ""

    @property
    def package(self) -> str:
        return self.fqn.rsplit(".", 1)[0]

    @property
    def name(self) -> str:
        return self.fqn.rsplit(".", 1)[1]

    def source(self) -> str:
        params = ""
        if self.arity:
            params = "<" + ", ".join(f"T{i}" for i in range(self.arity)) + ">"
        body = []
        supers = ", ".join(sorted(self.supers))
        if self.kind == "interface":
            head = f"public interface {self.name}{params}" + (f" extends {supers}" if supers else "")
            for f in sorted(self.fields):
                body.append(f"    {self.name} {f} = null;")
            for m in sorted(self.static_methods):
                body.append(f"    static <R> R {m}(Object... a) {{ {self._throw(m)} }}")
            for m in sorted(self.instance_methods - self.static_methods):
                body.append(f"    default <R> R {m}(Object... a) {{ {self._throw(m)} }}")
        else:
            ext = " extends RuntimeException" if self.kind == "exception" else ""
            if self.superclass:
                ext = f" extends {self.superclass}"
            head = f"public class {self.name}{params}{ext}" + (f" implements {supers}" if supers else "")
            body.append(f"    public {self.name}(Object... a) {{ }}")
            for f in sorted(self.fields):
                body.append(f"    public static {self.name} {f};")
            # Static methods can also be called through an instance.
            for m in sorted(self.static_methods | self.instance_methods):
                body.append(f"    public static <R> R {m}(Object... a) {{ {self._throw(m)} }}")
        return f"package {self.package};\n\n{head} {{\n" + "\n".join(body) + "\n}\n"

    def _throw(self, method: str) -> str:
        return f'throw new eqstub.EqStubCalled("{self.name}.{method}");'


EQSTUB = {
    "EqStub.java": """package eqstub;

public final class EqStub {
    private EqStub() {}
    public static <T> T erased(String where) { throw new EqErased(where); }
}
""",
    "EqErased.java": """package eqstub;

public final class EqErased extends Error {
    public EqErased(String where) { super(where); }
}
""",
    "EqStubCalled.java": """package eqstub;

public final class EqStubCalled extends Error {
    public EqStubCalled(String what) { super(what); }
}
""",
}


@dataclass
class Usage:
    """What the release's sources say about names they use."""

    interfaces: set[str] = field(default_factory=set)
    exceptions: set[str] = field(default_factory=set)
    arity: dict[str, int] = field(default_factory=dict)


def scan_usage(texts: list[str]) -> Usage:
    u = Usage()
    for text in texts:
        code = " ".join(t.text for t in tokenize(text))
        for m in re.finditer(r"\bimplements ([\w\s.,<>?\[\]]+?) \{", code):
            u.interfaces.update(_top_level_names(m.group(1)))
        for m in re.finditer(r"\binterface \w+ (?:< .*? > )?extends ([\w\s.,<>?\[\]]+?) \{", code):
            u.interfaces.update(_top_level_names(m.group(1)))
        for m in re.finditer(r"\bthrow new (\w+)|\bcatch \( (?:final )?(\w+)", code):
            u.exceptions.add(m.group(1) or m.group(2))
        for m in re.finditer(r"\bthrows ([\w\s.,]+?) [{;]", code):
            u.exceptions.update(n.strip().rsplit(".", 1)[-1] for n in m.group(1).split(","))
        for m in re.finditer(r"\b([A-Z]\w*) <", code):
            args = _angle_args(code, m.end() - 1)
            if args:
                u.arity[m.group(1)] = max(u.arity.get(m.group(1), 0), args)
    return u


def _top_level_names(text: str) -> list[str]:
    depth = 0
    names = []
    cur = ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            cur += ch
    for part in cur.split(","):
        part = part.strip().split(" ")[-1] if part.strip() else ""
        if part:
            names.append(part.rsplit(".", 1)[-1])
    return names


def _angle_args(code: str, i: int) -> int:
    """Number of type arguments in the `< … >` starting at code[i]."""
    depth = 0
    count = 1
    for j in range(i, min(len(code), i + 400)):
        ch = code[j]
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0:
                return count
        elif ch == "," and depth == 1:
            count += 1
        elif ch in ";{}()=" or (ch == "&" and code[j + 1:j + 2] == "&"):
            return 0
    return 0


# --------------------------------------------------------------------------
# The compile loop


DIAG = re.compile(r"^(?P<file>[^:\s]+\.java):(?P<line>\d+):(?P<col>\d+): "
                  r"compiler\.err\.(?P<key>[\w.]+): ?(?P<args>.*)$")


@dataclass
class Diag:
    file: str
    line: int
    col: int
    key: str
    args: str


def parse_diags(stderr: str) -> list[Diag]:
    out = []
    for line in stderr.splitlines():
        m = DIAG.match(line)
        if m:
            out.append(Diag(m["file"], int(m["line"]), int(m["col"]), m["key"], m["args"]))
    return out


@dataclass
class Release:
    """One release's sources, compiled for replay."""

    tag: str
    root: Path  # the release's source root (contains org/…)
    work: Path
    src: Path = field(init=False)
    stubs_dir: Path = field(init=False)
    classes: Path = field(init=False)
    stubs: dict[str, Stub] = field(default_factory=dict)
    erased: list[str] = field(default_factory=list)
    compiled: set[str] = field(default_factory=set)
    log: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.src = self.work / "src"
        self.stubs_dir = self.work / "stubs"
        self.classes = self.work / "classes"
        if not self.src.exists():
            shutil.copytree(self.root, self.src, ignore=lambda d, names: [
                n for n in names if not (n.endswith(".java") or (Path(d) / n).is_dir())])
        self.stubs_dir.mkdir(parents=True, exist_ok=True)
        self.classes.mkdir(parents=True, exist_ok=True)
        for name, text in EQSTUB.items():
            (self.stubs_dir / "eqstub").mkdir(exist_ok=True)
            (self.stubs_dir / "eqstub" / name).write_text(text)
        texts = [p.read_text(encoding="utf-8") for p in self.src.rglob("*.java")]
        self.usage = scan_usage(texts)
        self.by_name = {}
        for p in self.src.rglob("*.java"):
            self.by_name.setdefault(p.name, []).append(p)
        self.prestub(texts)
        self.rounds = 0

    def prestub(self, texts: list[str]) -> None:
        """Stubs for what the imports and uses already show is missing, so
        that javac's first round reports the errors that remain: imported
        classes the release lacks, their `CONSTANTS` and static methods."""
        known = {str(p.relative_to(self.src).with_suffix("")).replace("/", ".") for p in self.src.rglob("*.java")}
        for text in texts:
            for m in re.finditer(r"^\s*import\s+(static\s+)?([\w.]+)\s*;", text, re.M):
                fqn = m.group(2)
                if m.group(1):
                    fqn = fqn.rsplit(".", 1)[0]
                if not fqn.startswith(("java.", "javax.")) and fqn not in known and fqn[:1].islower():
                    self.stub(fqn)
        for s in self.stubs.values():
            for text in texts:
                for m in re.finditer(rf"\b{re.escape(s.name)}\.([A-Za-z_]\w*)\b(\s*\()?", text):
                    if m.group(2):
                        s.static_methods.add(m.group(1))
                    elif re.fullmatch(r"[A-Z][A-Z0-9_]*", m.group(1)):
                        s.fields.add(m.group(1))

    # Stubs --------------------------------------------------------------

    def stub(self, fqn: str) -> Stub:
        if fqn not in self.stubs:
            name = fqn.rsplit(".", 1)[1]
            arity = self.usage.arity.get(name, 0)
            if name in self.usage.interfaces:
                kind = "interface"
            elif arity == 0 and (name in self.usage.exceptions or name.endswith(("Exception", "Error"))):
                kind = "exception"
            else:
                kind = "class"
            self.stubs[fqn] = Stub(fqn, kind, arity)
        return self.stubs[fqn]

    def write_stubs(self):
        for s in self.stubs.values():
            d = self.stubs_dir / s.package.replace(".", "/")
            d.mkdir(parents=True, exist_ok=True)
            (d / f"{s.name}.java").write_text(s.source())

    def stub_by_binary_or_simple(self, name: str) -> Stub | None:
        name = re.sub(r"<.*", "", name)
        if name in self.stubs:
            return self.stubs[name]
        hits = [s for s in self.stubs.values() if s.name == name.rsplit(".", 1)[-1]]
        return hits[0] if len(hits) == 1 else None

    # Sources -------------------------------------------------------------

    def path_of(self, diag_file: str) -> Path:
        hits = self.by_name.get(diag_file, [])
        if len(hits) == 1:
            return hits[0]
        if not hits and list(self.stubs_dir.rglob(diag_file)):
            raise CompileError(f"{self.tag}: javac rejects a generated stub {diag_file}")
        raise CompileError(f"{self.tag}: cannot tell which {diag_file} javac means ({len(hits)} candidates)")

    @staticmethod
    def package_of(text: str) -> str:
        m = re.search(r"^\s*package\s+([\w.]+)\s*;", text, re.M)
        return m.group(1) if m else ""

    @staticmethod
    def imported(text: str, simple: str) -> str | None:
        m = re.search(rf"^\s*import\s+([\w.]+\.{re.escape(simple)})\s*;", text, re.M)
        return m.group(1) if m else None

    # The loop -------------------------------------------------------------

    def build(self, targets: list[Path]) -> None:
        """Compiles the classes of `targets` (paths relative to the release
        root) and what they need. Raises CompileError when javac's errors
        cannot all be answered. `build.log` in the work directory lists the
        stubs and the replaced code."""
        try:
            self._build(targets)
        finally:
            lines = [f"stub {s.kind} {s.fqn}" for s in self.stubs.values()] + self.log
            (self.work / "build.log").write_text("\n".join(lines) + "\n")

    def _build(self, targets: list[Path]) -> None:
        todo = [str(self.src / t) for t in targets if str(self.src / t) not in self.compiled]
        if not todo:
            return
        last = None
        for _ in range(MAX_ROUNDS):
            self.write_stubs()
            self.rounds += 1
            cmd = ["javac", "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-XDrawDiagnostics", "-nowarn",
                   "-Xmaxerrs", "100000", "-encoding", "UTF-8", "-proc:none", "-implicit:class",
                   "-sourcepath", f"{self.src}:{self.stubs_dir}", "-d", str(self.classes), *todo]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode == 0:
                self.compiled.update(todo)
                return
            diags = parse_diags(p.stderr)
            if not diags:
                raise CompileError(f"{self.tag}: javac failed: {p.stderr.strip()[-600:]}")
            changed = False
            edits: dict[Path, list[tuple[str, int, int, str]]] = {}
            for d in diags:
                changed |= self.answer(d, edits)
            # Missing classes and members first: until the stubs settle, an
            # error may be a consequence of a missing class, and erasing the
            # code around it would lose code that compiles once it exists.
            for path, spans in edits.items():
                keep = [s for s in spans if s[0] == "blank" or not changed]
                if keep:
                    changed |= self.apply(path, keep)
            key = p.stderr
            if not changed or key == last:
                raise CompileError(f"{self.tag}: javac errors left unanswered: "
                                   + "; ".join(f"{d.file}:{d.line}: {d.key}: {d.args}" for d in diags[:5]))
            last = key
        raise CompileError(f"{self.tag}: still not compiling after {MAX_ROUNDS} rounds")

    def answer(self, d: Diag, edits: dict) -> bool:
        """Turns one diagnostic into a stub change (returns True when the
        stubs changed) or an edit of the source (queued in `edits`)."""
        path = self.path_of(d.file)
        text = path.read_text(encoding="utf-8")
        line_text = text.splitlines()[d.line - 1] if d.line - 1 < len(text.splitlines()) else ""
        args = [a.strip() for a in d.args.split(",")]

        if d.key == "doesnt.exist":
            m = re.match(r"\s*import\s+(static\s+)?([\w.]+)\s*;", line_text)
            if m and not m.group(2).endswith("*"):
                parts = m.group(2).split(".")
                if m.group(1):
                    fqn = ".".join(parts[:-1])
                    before = (len(self.stubs), fqn in self.stubs)
                    self.stub(fqn)
                    return before != (len(self.stubs), True)
                return self._new_stub(m.group(2))
            if m:
                # `import p.*;` of a missing package: the names it brought
                # in are then missing classes of the file's package.
                line_span = (offset_of(text, d.line), offset_of(text, d.line + 1) - 1)
                edits.setdefault(path, []).append(("blank", *line_span, ""))
                return False

        if d.key in ("cant.resolve.location", "cant.resolve") and args[0] == "kindname.class":
            name = args[1]
            fqn = self.imported(text, name)
            if fqn is None:
                loc = re.search(r"compiler\.misc\.location: kindname\.package, ([\w.]+)", d.args)
                fqn = f"{loc.group(1)}.{name}" if loc else f"{self.package_of(text)}.{name}"
            return self._new_stub(fqn)

        if (d.key in ("cant.resolve.location", "cant.resolve.location.args")
                and args[0] in ("kindname.variable", "kindname.method")):
            name = args[1]
            loc = re.search(r"compiler\.misc\.location(?:\.1)?: kindname\.(\w+), ([^,]+)(?:, ([^,)]+))?", d.args)
            stub = None
            instance = False
            if loc and loc.group(1) == "variable" and loc.group(3):
                stub = self.stub_by_binary_or_simple(loc.group(3).strip())
                instance = True
            elif loc and loc.group(1) in ("class", "interface"):
                stub = self.stub_by_binary_or_simple(loc.group(2).strip())
            if stub is not None:
                if args[0] == "kindname.variable":
                    if name in stub.fields:
                        return self._erase(path, text, d, edits)
                    stub.fields.add(name)
                else:
                    methods = stub.instance_methods if instance and stub.kind == "interface" else stub.static_methods
                    if name in methods:
                        return self._erase(path, text, d, edits)
                    methods.add(name)
                return True
            if args[0] == "kindname.variable" and re.fullmatch(r"[A-Z][a-z]\w*", name):
                # A class used as a qualifier (`Formats.X`) that is not
                # imported: a class of the file's own package.
                fqn = self.imported(text, name) or f"{self.package_of(text)}.{name}"
                if fqn not in self.stubs:
                    return self._new_stub(fqn)

        # A stub passed where another stub is expected (`LocalizedFormats`
        # for `Localizable`): the first implements or extends the second.
        fixed = False
        for a, b in re.findall(r"inconvertible\.types: ([\w.$]+), ([\w.$]+)", d.args):
            sa, sb = self.stubs.get(a), self.stubs.get(b)
            if sa is None or sb is None:
                continue
            if sb.kind == "interface" and b not in sa.supers:
                sa.supers.add(b)
                fixed = True
            elif sb.kind == sa.kind == "class" and not sa.superclass and b != a:
                sa.superclass = b
                fixed = True
        if fixed:
            return True

        if d.key == "method.does.not.override.superclass":
            m = re.compile(r"@Override\b").search(text, offset_of(text, d.line))
            if m and m.start() < offset_of(text, d.line + 1):
                edits.setdefault(path, []).append(("blank", m.start(), m.end(), ""))
                return False

        return self._erase(path, text, d, edits)

    def _new_stub(self, fqn: str) -> bool:
        if fqn in self.stubs:
            return False
        self.stub(fqn)
        return True

    def _erase(self, path: Path, text: str, d: Diag, edits: dict) -> bool:
        off = offset_of(text, d.line, d.col)
        inner = [m for m in members(text) if m.header_start <= off <= m.close]
        if not inner:
            raise CompileError(f"{self.tag}: {d.file}:{d.line}: {d.key} ({d.args}) outside any method body "
                               "or field initializer")
        # The outermost class-level member holding the error (a method of a
        # local or anonymous class belongs to the member around it).
        m = min(inner, key=lambda m: m.header_start)
        stmt = simple_statement(text, m, off) if m.kind == "body" else None
        if stmt is not None:
            edits.setdefault(path, []).append(("stmt", stmt[0], stmt[1], f"{m.name}:{d.line}"))
        else:
            edits.setdefault(path, []).append((m.kind, m.open, m.close, m.name))
        return False

    def apply(self, path: Path, spans: list[tuple[str, int, int, str]]) -> bool:
        text = path.read_text(encoding="utf-8")
        cls = path.stem
        done = set()
        for kind, a, b, name in sorted(set(spans), key=lambda s: -s[1]):
            if any(a <= x < b for x in done):
                continue
            done.add(a)
            self.log.append(f"{'blanked' if kind == 'blank' else 'replaced ' + kind} {path.name}: {name}")
            old = text[a:b] if kind != "body" else text[a + 1:b]
            if kind == "blank":
                new = " " * (b - a)
                text = text[:a] + new + text[b:]
                continue
            where = f"{cls}.{name}"
            if kind == "stmt":
                # `if (true)` keeps the statements after it reachable for
                # javac; the braces keep an `else` bound where it was.
                old = text[a:b + 1]
                text = (text[:a] + f"{{ if (true) throw new eqstub.EqErased(\"{where}\"); }}"
                        + blank_keep_lines(old) + text[b + 1:])
            elif kind == "body":
                # An initializer must be able to complete normally.
                stmt = (f"if (true) throw new eqstub.EqErased(\"{where}\");" if name == "<initializer>"
                        else f"throw new eqstub.EqErased(\"{where}\");")
                text = text[:a + 1] + " " + stmt + " " + blank_keep_lines(old) + text[b:]
            else:
                text = text[:a] + f" eqstub.EqStub.erased(\"{where}\")" + blank_keep_lines(old) + text[b:]
            self.erased.append(where)
        path.write_text(text, encoding="utf-8")
        return True

    # Running ----------------------------------------------------------------

    def classpath(self, driver_dir: Path) -> str:
        return f"{driver_dir}:{self.classes}"


def build_driver(work: Path) -> Path:
    out = work / "driver"
    if not (out / "EqReplay.class").exists():
        out.mkdir(parents=True, exist_ok=True)
        p = subprocess.run(["javac", "-nowarn", "-d", str(out), str(DRIVER_SOURCE)], capture_output=True, text=True)
        if p.returncode != 0:
            raise CompileError(f"EqReplay.java does not compile: {p.stderr.strip()[-600:]}")
    return out


def run_calls(release: Release, driver_dir: Path, lines: list[str], timeout_ms: int) -> dict[str, str]:
    """Runs request lines (each starting with `id=`) in one JVM, restarted
    after a call that exceeds `timeout_ms`. Returns records by id."""
    records: dict[str, str] = {}
    pending = list(lines)
    while pending:
        cmd = ["java", "-Xss64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
               release.classpath(driver_dir), "EqReplay", str(timeout_ms)]
        p = subprocess.run(cmd, input="\n".join(pending) + "\n", capture_output=True, text=True,
                           timeout=60 + len(pending) * (timeout_ms / 1000 + 5))
        got = [r for r in p.stdout.splitlines() if "\t" in r]
        for r in got:
            records[r.split("\t", 1)[0]] = r
        done = {r.split("\t", 1)[0] for r in got}
        rest = [ln for ln in pending if ln.split("\t", 1)[0][3:] not in done]
        if len(rest) == len(pending):
            raise CompileError(f"{release.tag}: the replay JVM exited with {p.returncode} without answering: "
                               f"{p.stderr.strip()[-600:]}")
        pending = rest
    return records


# --------------------------------------------------------------------------
# Method signatures from the source


@dataclass
class JavaMethod:
    binary_class: str  # e.g. org.apache.commons.math3.util.FastMath$Inner
    name: str
    params: list[tuple[str, str]]  # (simple type for matching, parameter name)
    constructor: bool


def method_at(text: str, byte_offset: int, qualified: str) -> JavaMethod:
    """The method whose name starts at `byte_offset` (eqlens's span)."""
    off = len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))
    m = re.compile(r"[\w$]+").match(text, off)
    if not m:
        raise ValueError(f"no method name at offset {byte_offset}")
    name = m.group()
    toks = tokenize(text[m.end():m.end() + 4000])
    if not toks or toks[0].text != "(":
        raise ValueError(f"no parameter list after {name}")
    depth = 0
    params_toks: list[list[Tok]] = [[]]
    for t in toks:
        if t.text in "(<[" and t.kind == "op":
            depth += 1
            if depth == 1 and t.text == "(":
                continue
        elif t.text in ")>]" and t.kind == "op":
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and t.text == ",":
            params_toks.append([])
            continue
        params_toks[-1].append(t)
    type_vars = set(re.findall(r"<\s*([A-Z]\w*)\s*(?:extends\b|,|>)", text))
    params = []
    for ptoks in params_toks:
        if not ptoks:
            continue
        # Drop annotations and modifiers.
        words = []
        skip = 0
        for j, t in enumerate(ptoks):
            if skip:
                skip -= 1
                continue
            if t.text == "@":
                skip = 1
                continue
            if t.text == "final":
                continue
            words.append(t)
        dims = 0
        while len(words) >= 3 and words[-1].text == "]" and words[-2].text == "[":
            dims += 1  # `int a[]`
            words = words[:-2]
        pname = words[-1].text
        type_toks = words[:-1]
        simple = ""
        depth = 0
        for t in type_toks:
            if t.text == "<":
                depth += 1
            elif t.text == ">":
                depth -= 1
            elif depth == 0 and t.text == "[":
                dims += 1
            elif depth == 0 and t.text == "...":
                dims += 1
            elif depth == 0 and t.kind == "ident":
                simple = t.text
        if simple in type_vars and simple not in PRIMITIVES:
            simple = "?"
        params.append((simple + "[]" * dims, pname))
    pkg = Release.package_of(text)
    parts = qualified.split(".")
    classes = parts[:-1]
    constructor = bool(classes) and classes[-1] == name
    binary = (pkg + "." if pkg else "") + "$".join(classes)
    return JavaMethod(binary, name, params, constructor)
