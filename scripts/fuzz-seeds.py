#!/usr/bin/env python3
"""Builds the fuzz targets' seed corpora from fixtures/ into fuzz/corpus/.

The corpora are generated, never committed (fuzz/corpus/ is git-ignored):
each run writes one seed per fixture file (front ends), per fixture pair
(matcher, LSP session) and a few framed LSP messages (LSP reader), named by
content hash, next to whatever the fuzzer has already added there.
Input formats are described in fuzz/src/lib.rs.
"""
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CORPUS = ROOT / "fuzz" / "corpus"
SELECTOR = {"java": b"\x00", "c": b"\x01"}


def put(target, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def frame(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def pairs(lang):
    for d in sorted((FIXTURES / lang).iterdir()):
        old, new = d / f"old.{lang}", d / f"new.{lang}"
        if old.is_file() and new.is_file():
            yield d.name, old.read_bytes(), new.read_bytes()


def main():
    count = 0
    for lang in ("java", "c"):
        for name, old, new in pairs(lang):
            put(f"{lang}_frontend", old)
            put(f"{lang}_frontend", new)
            put("matcher", SELECTOR[lang] + old + b"\x00" + new)
            # Session: open old, pin, switch to new; the op bytes are the
            # fixture's name (arbitrary decodes any bytes into some ops).
            put("lsp_session", SELECTOR[lang] + old + b"\x00" + new + b"\x00" + name.encode())
            count += 1
    first = next(pairs("java"))
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": None, "rootUri": None, "capabilities": {},
                       "initializationOptions": {"baseline": "pinned", "debounceMs": 0}}}
    uri = "file:///eqlens-fuzz/A.java"
    messages = [
        init,
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "java", "version": 1,
                                     "text": first[1].decode("utf-8", "replace")}}},
        {"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
         "params": {"command": "eqlens.pinBaseline", "arguments": [{"uri": uri}]}},
        {"jsonrpc": "2.0", "method": "textDocument/didChange",
         "params": {"textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                                  "end": {"line": 1, "character": 0}},
                                        "text": "// edited\n"}]}},
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeLens",
         "params": {"textDocument": {"uri": uri}}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 3}},
        {"jsonrpc": "2.0", "id": 4, "method": "textDocument/hover",
         "params": {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 4}}},
        {"jsonrpc": "2.0", "id": 5, "method": "eqlens/baseline", "params": {"uri": uri}},
        {"jsonrpc": "2.0", "id": 6, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    put("lsp_reader", b"".join(frame(m) for m in messages))
    put("lsp_reader", frame(init))
    put("lsp_reader", frame(init) + frame(messages[-2]) + frame(messages[-1]))
    put("lsp_reader", b"Content-Length: 5\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}{}{")
    print(f"seeds from {count} fixture pairs written under {CORPUS}")


if __name__ == "__main__":
    sys.exit(main())
