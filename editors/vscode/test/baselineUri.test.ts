import assert from "node:assert/strict";
import { test } from "node:test";
import { baselineUriFor, fileUriOfBaseline } from "../src/baselineUri";

test("the same URI the server puts in related information", () => {
  // server/lsp: format!("eqlens-baseline://{rest}?{label}") with rest after "file://".
  assert.equal(baselineUriFor("file:///tmp/repo/A.java", "HEAD"), "eqlens-baseline:///tmp/repo/A.java?HEAD");
});

test("labels keep unreserved characters only, like the server's", () => {
  assert.equal(baselineUriFor("file:///r/A.java", "origin/main~2"), "eqlens-baseline:///r/A.java?origin_main~2");
  assert.equal(baselineUriFor("file:///r/A.java", "oldV.c"), "eqlens-baseline:///r/A.java?oldV.c");
});

test("back from a baseline URI to its file, percent-encoding untouched", () => {
  assert.equal(fileUriOfBaseline("eqlens-baseline:///tmp/my%20repo/A.java?HEAD"), "file:///tmp/my%20repo/A.java");
  assert.equal(fileUriOfBaseline("eqlens-baseline:///tmp/A.java"), "file:///tmp/A.java");
  assert.equal(fileUriOfBaseline("eqlens-baseline:///tmp/A.java#L3"), "file:///tmp/A.java");
});

test("VS Code's printing without the empty authority is read too", () => {
  // vscode.Uri.parse("eqlens-baseline:///tmp/A.java?HEAD").toString()
  assert.equal(fileUriOfBaseline("eqlens-baseline:/tmp/A.java?HEAD"), "file:///tmp/A.java");
  // A file on a UNC share keeps its host.
  assert.equal(fileUriOfBaseline("eqlens-baseline://server/share/A.java?HEAD"), "file://server/share/A.java");
  assert.equal(fileUriOfBaseline("eqlens-baseline:A.java"), undefined);
});

test("round trip", () => {
  const file = "file:///w/src/%C3%A9t%C3%A9/B.c";
  const b = baselineUriFor(file, "pinned");
  assert.ok(b !== undefined);
  assert.equal(fileUriOfBaseline(b), file);
});

test("other schemes have no baseline document", () => {
  assert.equal(baselineUriFor("untitled:Untitled-1", "HEAD"), undefined);
  assert.equal(fileUriOfBaseline("file:///tmp/A.java"), undefined);
});
