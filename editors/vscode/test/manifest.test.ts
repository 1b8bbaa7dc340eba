/**
 * package.json against the server's documentation (docs/server.md): the
 * contributed settings, their enums, ranges and defaults, and the command
 * names. Drift between the two shows up here instead of in a user's
 * "unknown setting" message.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { EXTENSION_COMMANDS } from "../src/extensionCommands";
import { SERVER_COMMANDS } from "../src/protocol";
import { SERVER_SETTING_KEYS } from "../src/settings";

// Compiled to out/test/: the extension is two levels up, the repository four.
const extensionDir = path.resolve(__dirname, "..", "..");
const serverDoc = readFileSync(path.resolve(extensionDir, "..", "..", "docs", "server.md"), "utf8");

interface SettingSchema {
  type: string;
  default: unknown;
  enum?: string[];
  minimum?: number;
  maximum?: number;
}

interface Manifest {
  main: string;
  capabilities: {
    untrustedWorkspaces: { supported: string | boolean; description: string; restrictedConfigurations: string[] };
  };
  activationEvents: string[];
  engines: { vscode: string };
  dependencies: Record<string, string>;
  contributes: {
    commands: { command: string; title: string }[];
    configuration: { properties: Record<string, SettingSchema> };
  };
}

const manifest = JSON.parse(readFileSync(path.join(extensionDir, "package.json"), "utf8")) as Manifest;
const properties = manifest.contributes.configuration.properties;

/** The rows of the markdown table under `heading`, split into trimmed cells. */
function tableRows(heading: string): string[][] {
  const start = serverDoc.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `docs/server.md has no "## ${heading}" section`);
  const section = serverDoc.slice(start).split(/\n## /)[0] ?? "";
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
}

/** `` `git`, `pinned` `` → ["git", "pinned"]; undefined when the cell is prose rather than a list of values. */
function enumValues(cell: string): string[] | undefined {
  if (!/^`[^`]+`(, `[^`]+`)+$/.test(cell)) {
    return undefined;
  }
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? "");
}

function unquote(cell: string): string {
  return cell.replace(/^`|`$/g, "");
}

const documented = tableRows("Settings").map(([key, values, defaultValue]) => ({
  key: unquote(key ?? ""),
  values: values ?? "",
  defaultValue: unquote(defaultValue ?? ""),
}));

test("docs/server.md lists the settings the extension forwards", () => {
  assert.deepEqual(documented.map((d) => d.key).sort(), [...SERVER_SETTING_KEYS].sort());
});

test("every server setting is contributed as eqlens.<key>, plus only eqlens.server.path", () => {
  const expected = [...SERVER_SETTING_KEYS.map((k) => `eqlens.${k}`), "eqlens.server.path"].sort();
  assert.deepEqual(Object.keys(properties).sort(), expected);
});

for (const doc of documented) {
  test(`eqlens.${doc.key}: default, enum and range as documented`, () => {
    const schema = properties[`eqlens.${doc.key}`];
    assert.ok(schema, `eqlens.${doc.key} not contributed`);
    const numeric = /^\d+$/.test(doc.defaultValue);
    const boolean = /^(true|false)$/.test(doc.defaultValue);
    const expectedDefault = numeric ? Number(doc.defaultValue) : boolean ? doc.defaultValue === "true" : doc.defaultValue;
    assert.deepEqual(schema.default, expectedDefault);
    const range = /^(\d+)\.\.=(\d+)/.exec(doc.values);
    if (boolean) {
      assert.equal(schema.type, "boolean");
    } else if (range) {
      assert.equal(schema.type, "integer");
      assert.equal(schema.minimum, Number(range[1]));
      assert.equal(schema.maximum, Number(range[2]));
    } else if (numeric) {
      assert.equal(schema.type, "integer");
    } else if (enumValues(doc.values)) {
      assert.equal(schema.type, "string");
      assert.deepEqual(schema.enum, enumValues(doc.values));
    } else {
      assert.equal(schema.type, "string");
      assert.equal(schema.enum, undefined);
    }
  });
}

test("SERVER_COMMANDS are the commands docs/server.md documents", () => {
  const documentedCommands = tableRows("Commands (`workspace/executeCommand`)").map((row) => unquote(row[0] ?? ""));
  assert.deepEqual([...SERVER_COMMANDS].sort(), documentedCommands.sort());
});

test("the contributed commands are exactly the extension's, none named like a server command", () => {
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  assert.deepEqual(contributed, [...EXTENSION_COMMANDS].sort());
  for (const name of contributed) {
    assert.ok(!SERVER_COMMANDS.includes(name), `${name} would clash with the command the language client registers`);
  }
});

test("activates for Java and C, on a VS Code that vscode-languageclient supports", () => {
  assert.deepEqual([...manifest.activationEvents].sort(), ["onLanguage:c", "onLanguage:java"]);
  assert.equal(manifest.dependencies["vscode-languageclient"], "11.0.0");
  // vscode-languageclient 11 requires ^1.91.
  assert.equal(manifest.engines.vscode, "^1.91.0");
  assert.equal(manifest.main, "./out/src/extension.js");
});

test("untrusted workspaces: limited support, and the server path only from user settings", () => {
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, "limited");
  assert.match(untrusted.description, /git/);
  assert.deepEqual(untrusted.restrictedConfigurations, ["eqlens.server.path"]);
});
