#!/usr/bin/env python3
"""Soak test of `eqlens serve`: a scripted LSP client (stdlib only).

Copies a few fixture pairs into a temp dir in the EqBench layout
(`<pair>/oldV.<ext>` is the baseline of `<pair>/newV.<ext>` in `paired`
mode), opens the new versions and, for `--seconds`, makes random plausible
edits: characters typed and deleted (syntax broken and restored), lines
deleted and put back, comment lines added, digits changed. Code lenses and
hovers are requested as it goes, some of them cancelled with
`$/cancelRequest`, and the server is restarted a few times (documents
reopened with their current text).

It fails (exit 1) when
- a request gets no response (result or error) within `--request-timeout`,
- the server dies, or does not exit after `shutdown`/`exit`,
- the server's RSS (VmRSS) goes past `--rss-limit-mb` (the curve is printed
  every 30 s),
- at the end, a method's verdict shown by the server (its code lens, or no
  lens: unchanged) differs from `eqlens check OLD FINAL --format json` on
  the final text. A method that is `unknown` by a timeout on one side only
  is reported, not failed: a time budget under load is not a verdict.

Usage: tests/soak/soak.py --eqlens target/release/eqlens [--seconds 600]
"""
import argparse
import json
import os
import pathlib
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Small pairs that check fast, both languages, every kind of verdict.
DEFAULT_PAIRS = [
    "java/abs_distance_overflow",
    "java/char_increment",
    "java/loop_accumulator_split",
    "java/fields_helper_inlined",
    "c/exit_status_changed",
    "c/struct_pointer_member",
    "c/loop_reversal_sum_wrong_term",
]
GARBAGE = ["{", "}", "(", ";", "@", "#", "\"", "x", "int ", "/*", "é", "𝛼"]


class Failure(Exception):
    pass


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def position(text, offset):
    """LSP position (line, UTF-16 character) of a str offset."""
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return {"line": line, "character": utf16_len(text[start:offset])}


class Server:
    """One `eqlens serve` process and a reader thread for its stdout."""

    def __init__(self, exe, root, settings, log):
        self.proc = subprocess.Popen(
            [exe, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=log, cwd=root)
        self.inbox = queue.Queue()
        self.next_id = 0
        self.pending = {}  # id -> (method, sent at)
        self.answered = 0
        self.errors = 0
        self.status = {}  # uri -> last eqlens/status params
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        r = self.call("initialize", {
            "processId": os.getpid(),
            "rootUri": pathlib.Path(root).as_uri(),
            "capabilities": {"textDocument": {"codeLens": {}, "hover": {}}},
            "initializationOptions": settings,
        }, 60)
        if "result" not in r:
            raise Failure(f"initialize failed: {r}")
        self.notify("initialized", {})

    def _read(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = out.read(length)
            self.inbox.put(json.loads(body))

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        body = json.dumps(msg).encode()
        try:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise Failure(f"server stdin closed: {e}")

    def request(self, method, params):
        self.next_id += 1
        self.pending[self.next_id] = (method, time.monotonic())
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def pump(self, wait=0.0):
        """Handles every message that arrives within `wait` seconds;
        returns the responses by id."""
        got = {}
        deadline = time.monotonic() + wait
        while True:
            left = deadline - time.monotonic()
            try:
                msg = self.inbox.get(timeout=max(left, 0)) if left > 0 else self.inbox.get_nowait()
            except queue.Empty:
                return got
            if msg is None:
                raise Failure(f"server exited (status {self.proc.poll()})")
            if "id" in msg and "method" in msg:
                # A request from the server (e.g. a lens refresh): answer it.
                self.send({"id": msg["id"], "result": None})
            elif "id" in msg:
                if msg["id"] in self.pending:
                    del self.pending[msg["id"]]
                    self.answered += 1
                    if "error" in msg:
                        self.errors += 1
                got[msg["id"]] = msg
            elif msg.get("method") == "eqlens/status":
                self.status[msg["params"]["uri"]] = msg["params"]

    def check_overdue(self, timeout):
        now = time.monotonic()
        for i, (method, at) in self.pending.items():
            if now - at > timeout:
                raise Failure(f"request {i} ({method}) unanswered after {timeout} s")

    def call(self, method, params, timeout):
        i = self.request(method, params)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = self.pump(0.05)
            if i in got:
                return got[i]
        raise Failure(f"request {i} ({method}) unanswered after {timeout} s")

    def rss_kb(self):
        try:
            for line in open(f"/proc/{self.proc.pid}/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0

    def stop(self, timeout):
        self.call("shutdown", None, timeout)
        self.notify("exit", None)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise Failure("server did not exit after shutdown/exit")
        self.proc.stdin.close()


class Doc:
    def __init__(self, path, text, lang):
        self.path = path
        self.uri = path.as_uri()
        self.text = text
        self.lang = lang
        self.version = 0
        # Edits to undo later: (kind, offset, text) — text inserted or deleted.
        self.undo = []


def open_doc(server, d):
    d.version += 1
    server.notify("textDocument/didOpen", {"textDocument": {
        "uri": d.uri, "languageId": d.lang, "version": d.version, "text": d.text}})


def change(server, d, start, end, new):
    """Replaces text[start:end] by `new` in the mirror and on the server."""
    rng = {"start": position(d.text, start), "end": position(d.text, end)}
    d.text = d.text[:start] + new + d.text[end:]
    d.version += 1
    server.notify("textDocument/didChange", {
        "textDocument": {"uri": d.uri, "version": d.version},
        "contentChanges": [{"range": rng, "text": new}]})


def line_starts(text):
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    return starts


def random_edit(rng, server, d, counts):
    """One plausible edit. Broken syntax is always repaired later: each
    breaking edit leaves its inverse in `d.undo`."""
    # Repairs outpace breakages (always past three pending), so the text
    # is valid again often and checks run, not only syntax errors.
    if d.undo and (len(d.undo) >= 3 or rng.random() < 0.5):
        kind, off, text = d.undo.pop()
        if kind == "delete":  # remove what was inserted
            change(server, d, off, off + len(text), "")
        else:  # put back what was deleted
            change(server, d, off, off, text)
        counts["restores"] += 1
        return
    r = rng.random()
    if r < 0.35:  # type a few characters somewhere (maybe breaking syntax)
        off = rng.randrange(len(d.text) + 1)
        text = "".join(rng.choice(GARBAGE) for _ in range(rng.randint(1, 3)))
        change(server, d, off, off, text)
        d.undo.append(("delete", off, text))
        counts["inserts"] += 1
    elif r < 0.55 and len(d.text) > 1:  # delete a few characters
        off = rng.randrange(len(d.text))
        end = min(len(d.text), off + rng.randint(1, 4))
        gone = d.text[off:end]
        change(server, d, off, end, "")
        d.undo.append(("insert", off, gone))
        counts["deletes"] += 1
    elif r < 0.7:  # delete a whole line
        starts = line_starts(d.text)
        i = rng.randrange(len(starts))
        a = starts[i]
        b = starts[i + 1] if i + 1 < len(starts) else len(d.text)
        gone = d.text[a:b]
        change(server, d, a, b, "")
        d.undo.append(("insert", a, gone))
        counts["line_deletes"] += 1
    elif r < 0.85 and not d.undo:  # a comment line that stays
        # (Only with nothing to undo: edits that stay would move the
        # offsets the pending undos are recorded at.)
        starts = line_starts(d.text)
        a = rng.choice(starts)
        # Only between lines outside strings: fixtures have no multi-line strings.
        change(server, d, a, a, "// soak %d\n" % rng.randrange(1000))
        counts["comments"] += 1
    else:  # change a digit, and keep it (a semantic edit)
        digits = [i for i, ch in enumerate(d.text) if ch.isdigit()]
        if digits and not d.undo:
            i = rng.choice(digits)
            change(server, d, i, i + 1, str(rng.randrange(10)))
            counts["digit_changes"] += 1
        else:
            off = rng.randrange(len(d.text) + 1)
            change(server, d, off, off, " ")
            d.undo.append(("delete", off, " "))
            counts["inserts"] += 1


def repair_all(server, docs):
    for d in docs:
        while d.undo:
            kind, off, text = d.undo.pop()
            if kind == "delete":
                change(server, d, off, off + len(text), "")
            else:
                change(server, d, off, off, text)


def lens_verdicts(lenses):
    out = {}
    for lens in lenses or []:
        cmd = lens.get("command") or {}
        args = (cmd.get("arguments") or [{}])[0]
        title = cmd.get("title", "")
        key = (args.get("method"), args.get("arity"))
        if title.startswith("≡ equivalent up to"):
            out[key] = "equivalent_bounded"
        elif title.startswith("≡"):
            out[key] = "equivalent"
        elif title.startswith("≢"):
            out[key] = "not_equivalent"
        elif title.startswith("?"):
            out[key] = "unknown:" + title
        else:
            out[key] = "pending:" + title
    return out


def cli_verdicts(exe, old, new, settings):
    cmd = [exe, "check", str(old), str(new), "--format", "json",
           "--timeout-ms", str(settings["timeoutMs"]),
           "--loop-bound", str(settings["loopBound"])]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode == 3 or not p.stdout.strip():
        raise Failure(f"{' '.join(cmd)}: status {p.returncode}: {p.stderr.strip()}")
    report = json.loads(p.stdout)
    out = {}
    for m in report["methods"]:
        v = m["verdict"]
        if v == "equivalent" and m.get("bound") is not None:
            v = "equivalent_bounded"
        elif v == "unknown":
            v = "unknown:" + m["reason"]["kind"]
        # The server's lenses name a method by its qualified key (New.f in
        # Java, the bare name in C), as the CLI's `qualified` field does.
        out[(m.get("qualified") or m["name"], m["arity"])] = (v, m.get("decided_by"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--eqlens", required=True)
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--restarts", type=int, default=3)
    ap.add_argument("--rss-limit-mb", type=int, default=1024)
    ap.add_argument("--request-timeout", type=float, default=20)
    ap.add_argument("--pairs", nargs="*", default=DEFAULT_PAIRS)
    args = ap.parse_args()
    exe = str(pathlib.Path(args.eqlens).resolve())
    rng = random.Random(args.seed)
    settings = {"baseline": "paired", "debounceMs": 50, "timeoutMs": 5000, "loopBound": 8}

    work = pathlib.Path(tempfile.mkdtemp(prefix="eqlens-soak-"))
    log = open(work / "server-stderr.log", "wb")
    docs = []
    for pair in args.pairs:
        lang = pair.split("/")[0]
        src = ROOT / "fixtures" / pair
        dst = work / pair.replace("/", "_")
        dst.mkdir()
        shutil.copy(src / f"old.{lang}", dst / f"oldV.{lang}")
        shutil.copy(src / f"new.{lang}", dst / f"newV.{lang}")
        docs.append(Doc(dst / f"newV.{lang}", (src / f"new.{lang}").read_text(), lang))

    counts = {k: 0 for k in ["edits", "inserts", "deletes", "line_deletes", "comments",
                             "digit_changes", "restores", "requests", "cancelled",
                             "restarts"]}
    curve = []
    start = time.monotonic()
    t_end = start + args.seconds
    restart_at = [start + args.seconds * (i + 1) / (args.restarts + 1)
                  for i in range(args.restarts)]
    next_sample = start
    answered = errors = 0
    server = None
    rc = 0
    try:
        server = Server(exe, work, settings, log)
        for d in docs:
            open_doc(server, d)
        while time.monotonic() < t_end:
            now = time.monotonic()
            if now >= next_sample:
                rss = server.rss_kb() // 1024
                curve.append((round(now - start), rss))
                print(f"soak: t={now - start:6.0f}s rss={rss} MiB edits={counts['edits']} "
                      f"requests={counts['requests']} restarts={counts['restarts']}", flush=True)
                if rss > args.rss_limit_mb:
                    raise Failure(f"RSS {rss} MiB over the limit {args.rss_limit_mb} MiB")
                next_sample += 30
            if restart_at and now >= restart_at[0]:
                restart_at.pop(0)
                server.pump(0)
                server.check_overdue(args.request_timeout)
                server.stop(args.request_timeout)
                answered += server.answered
                errors += server.errors
                server = Server(exe, work, settings, log)
                for d in docs:
                    open_doc(server, d)
                counts["restarts"] += 1
            d = rng.choice(docs)
            random_edit(rng, server, d, counts)
            counts["edits"] += 1
            r = rng.random()
            if r < 0.15:
                server.request("textDocument/codeLens", {"textDocument": {"uri": d.uri}})
                counts["requests"] += 1
            elif r < 0.25:
                line = rng.randrange(d.text.count("\n") + 1)
                server.request("textDocument/hover", {"textDocument": {"uri": d.uri},
                               "position": {"line": line, "character": 2}})
                counts["requests"] += 1
            elif r < 0.30:
                i = server.request("textDocument/codeLens", {"textDocument": {"uri": d.uri}})
                server.notify("$/cancelRequest", {"id": i})
                counts["requests"] += 1
                counts["cancelled"] += 1
            # Typing speed: bursts of keystrokes with pauses that let the
            # debounce expire and checks start (and be cancelled).
            server.pump(rng.choice([0.005, 0.01, 0.02, 0.05, 0.2]))
            server.check_overdue(args.request_timeout)

        # Final state: every breaking edit undone, checks given time to end.
        repair_all(server, docs)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            server.pump(0.5)
            server.check_overdue(args.request_timeout)
            done = all(
                (s := server.status.get(d.uri)) is not None
                and s.get("version") == d.version
                and s.get("state") in ("done", "idle") and s.get("pending", 0) == 0
                for d in docs)
            if done and not server.pending:
                break
        else:
            raise Failure("checks of the final texts did not finish within 300 s")
        rss = server.rss_kb() // 1024
        curve.append((round(time.monotonic() - start), rss))

        mismatches, soft = [], []
        for d in docs:
            r = server.call("textDocument/codeLens", {"textDocument": {"uri": d.uri}},
                            args.request_timeout)
            counts["requests"] += 1
            shown = lens_verdicts(r.get("result"))
            final = d.path.with_name("final" + d.path.suffix)
            final.write_text(d.text)
            fresh = cli_verdicts(exe, d.path.with_name("oldV" + d.path.suffix), final, settings)
            for key, (v, decided_by) in fresh.items():
                s = shown.get(key)
                if s is None:
                    # No lens: unchanged modulo formatting, which the CLI
                    # proves by syntax.
                    s = "equivalent" if decided_by == "syntax" else "no lens"
                same = s == v or (s.startswith("unknown:") and v.startswith("unknown:"))
                line = f"{d.path.parent.name} {key[0]}/{key[1]}: server {s!r}, check {v!r}"
                print("soak: verdict " + ("ok   " if same else "DIFF ") + line)
                if not same:
                    timing = "timed out" in s or v == "unknown:timeout"
                    (soft if timing else mismatches).append(line)
            for key in shown:
                if key not in fresh:
                    mismatches.append(f"{d.path.parent.name} {key}: lens for a method check does not pair")
        server.stop(args.request_timeout)
        answered += server.answered
        errors += server.errors
        server = None
        for line in soft:
            print(f"soak: timing difference (not failed): {line}")
        if mismatches:
            raise Failure("verdicts differ from eqlens check:\n  " + "\n  ".join(mismatches))
    except Failure as e:
        print(f"soak: FAILED: {e}", flush=True)
        print(f"soak: work dir kept: {work}")
        rc = 1
    finally:
        if server is not None and server.proc.poll() is None:
            server.proc.kill()
    print("soak: RSS curve (s, MiB): " + " ".join(f"{t}:{m}" for t, m in curve))
    print("soak: counts: " + json.dumps(counts))
    print(f"soak: responses {answered} (errors {errors}) in {time.monotonic() - start:.0f} s")
    if rc == 0:
        shutil.rmtree(work, ignore_errors=True)
        print("soak: passed")
    return rc


if __name__ == "__main__":
    sys.exit(main())
