import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveServerPath, type ServerPathInputs } from "../src/serverPath";

function inputs(executables: string[], overrides: Partial<ServerPathInputs> = {}): ServerPathInputs {
  return {
    configured: undefined,
    extensionDir: "/ext/eqlens-0.1.0",
    workspaceDir: "/work/proj",
    homeDir: "/home/dev",
    pathEnv: "/usr/local/bin:/usr/bin",
    platform: "linux",
    isExecutableFile: (file) => executables.includes(file),
    ...overrides,
  };
}

test("the setting wins over a bundled binary and PATH", () => {
  const r = resolveServerPath(
    inputs(["/opt/eqlens/eqlens", "/ext/eqlens-0.1.0/server/eqlens", "/usr/bin/eqlens"], { configured: "/opt/eqlens/eqlens" }),
  );
  assert.deepEqual(r, { ok: true, path: "/opt/eqlens/eqlens", source: "setting" });
});

test("a configured path that is not executable is an error, not a silent fallback", () => {
  const r = resolveServerPath(inputs(["/usr/bin/eqlens"], { configured: "/opt/missing/eqlens" }));
  assert.ok(!r.ok);
  assert.match(r.message, /eqlens\.server\.path.*\/opt\/missing\/eqlens/);
});

test("~ and workspace-relative settings are expanded", () => {
  assert.deepEqual(resolveServerPath(inputs(["/home/dev/bin/eqlens"], { configured: "~/bin/eqlens" })), {
    ok: true,
    path: "/home/dev/bin/eqlens",
    source: "setting",
  });
  assert.deepEqual(resolveServerPath(inputs(["/work/proj/target/release/eqlens"], { configured: "target/release/eqlens" })), {
    ok: true,
    path: "/work/proj/target/release/eqlens",
    source: "setting",
  });
});

test("a blank setting means unset", () => {
  const r = resolveServerPath(inputs(["/usr/bin/eqlens"], { configured: "  " }));
  assert.deepEqual(r, { ok: true, path: "/usr/bin/eqlens", source: "PATH" });
});

test("the bundled binary comes before PATH", () => {
  const r = resolveServerPath(inputs(["/ext/eqlens-0.1.0/server/eqlens", "/usr/bin/eqlens"]));
  assert.deepEqual(r, { ok: true, path: "/ext/eqlens-0.1.0/server/eqlens", source: "bundled" });
});

test("PATH is searched in order, skipping empty entries", () => {
  const r = resolveServerPath(inputs(["/usr/bin/eqlens", "/b/eqlens"], { pathEnv: ":/a:/b:/usr/bin" }));
  assert.deepEqual(r, { ok: true, path: "/b/eqlens", source: "PATH" });
});

test("nothing found: the message names all three places and how to fix it", () => {
  const r = resolveServerPath(inputs([]));
  assert.ok(!r.ok);
  const message = r.message;
  assert.match(message, /eqlens\.server\.path is not set/);
  assert.match(message, /\/ext\/eqlens-0\.1\.0\/server\/eqlens/);
  assert.match(message, /on PATH/);
  assert.match(message, /cargo build --release/);
});

test("an unset PATH is not an error by itself", () => {
  assert.equal(resolveServerPath(inputs([], { pathEnv: undefined })).ok, false);
});

test("Windows: eqlens.exe and ; separated PATH", () => {
  const r = resolveServerPath(inputs(["C:/tools/eqlens.exe"], { platform: "win32", pathEnv: "C:/x;C:/tools" }));
  assert.ok(r.ok);
  assert.equal(r.source, "PATH");
  assert.match(r.path, /eqlens\.exe$/);
});
