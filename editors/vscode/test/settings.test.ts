import assert from "node:assert/strict";
import { test } from "node:test";
import { reactionToConfigurationChange, SERVER_SETTING_KEYS, serverSettings, withWorkspaceTrust } from "../src/settings";

test("every server setting is sent, with the value VS Code reports (defaults included)", () => {
  const values: Record<string, unknown> = {
    baseline: "pinned",
    gitRef: "main",
    semantics: "machine",
    checker: "ardiff",
    timeoutMs: 5000,
    loopBound: 16,
    lens: "all",
    debounceMs: 0,
    maxFileBytes: 2048,
  };
  assert.deepEqual(
    serverSettings((key) => values[key]),
    values,
  );
});

test("only the server's keys are read: client settings such as server.path never reach it", () => {
  const asked: string[] = [];
  serverSettings((key) => {
    asked.push(key);
    return "x";
  });
  assert.deepEqual(asked, [...SERVER_SETTING_KEYS]);
  assert.ok(!asked.some((k) => k.startsWith("server")));
});

test("a key VS Code has no value for is left out rather than sent as null", () => {
  const s = serverSettings((key) => (key === "loopBound" ? 4 : undefined));
  assert.deepEqual(s, { loopBound: 4 });
});

test("a changed server path restarts, a server setting is forwarded, others are ignored", () => {
  const affecting = (...sections: string[]) => (section: string) =>
    sections.some((s) => s === section || s.startsWith(`${section}.`));
  assert.equal(reactionToConfigurationChange(affecting("eqlens.server.path")), "restart");
  assert.equal(reactionToConfigurationChange(affecting("eqlens.loopBound")), "forward");
  assert.equal(reactionToConfigurationChange(affecting("eqlens.gitRef", "eqlens.server.path")), "restart");
  assert.equal(reactionToConfigurationChange(affecting("editor.fontSize")), "none");
});

test("an untrusted workspace turns git off; trust turns it back on", () => {
  assert.deepEqual(withWorkspaceTrust({ baseline: "git" }, false), { baseline: "git", runGit: false });
  assert.deepEqual(withWorkspaceTrust({ baseline: "git" }, true), { baseline: "git", runGit: true });
});
