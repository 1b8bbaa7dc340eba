import assert from "node:assert/strict";
import { test } from "node:test";
import { ServerCommand } from "../src/protocol";
import { asMethodArgs, checkedMethods, findServerCommand, methodOfCommand, type WireAction, type WireLens } from "../src/serverActions";

const uri = "file:///w/A.java";
const abstractArgs = { uri, method: "sum", arity: 2, firstLine: 3, lastLine: 4 };

// What eqlens serve answers to textDocument/codeAction inside a changed method.
const actions: WireAction[] = [
  { title: "Abstract this block (lines 3-4)", command: { title: "Abstract this block (lines 3-4)", command: ServerCommand.abstractBlock, arguments: [abstractArgs] } },
  { title: "Refine this block (lines 3-4)", command: { title: "Refine this block (lines 3-4)", command: ServerCommand.refineBlock, arguments: [abstractArgs] } },
  { title: "Re-check with a larger loop bound (16)", command: { title: "Re-check with a larger loop bound (16)", command: ServerCommand.recheck, arguments: [{ uri, loopBound: 16 }] } },
  { title: "Pin current version as baseline", command: { title: "Pin current version as baseline", command: ServerCommand.pinBaseline, arguments: [{ uri }] } },
];

test("finds the offered command by name, with the server's arguments", () => {
  const c = findServerCommand(actions, ServerCommand.refineBlock);
  assert.equal(c?.title, "Refine this block (lines 3-4)");
  assert.deepEqual(c.arguments, [abstractArgs]);
  assert.deepEqual(findServerCommand(actions, ServerCommand.recheck)?.arguments, [{ uri, loopBound: 16 }]);
});

test("outside a changed method only pinning is offered", () => {
  const outside = actions.slice(3);
  assert.equal(findServerCommand(outside, ServerCommand.abstractBlock), undefined);
  assert.equal(findServerCommand(null, ServerCommand.abstractBlock), undefined);
});

test("bare Command results are read too", () => {
  const bare: WireAction[] = [{ title: "Abstract", command: ServerCommand.abstractBlock, arguments: [abstractArgs] }];
  assert.equal(findServerCommand(bare, ServerCommand.abstractBlock)?.title, "Abstract");
});

test("the method a command names", () => {
  assert.deepEqual(methodOfCommand(findServerCommand(actions, ServerCommand.abstractBlock)), { uri, method: "sum", arity: 2 });
  assert.equal(methodOfCommand(findServerCommand(actions, ServerCommand.recheck)), undefined);
  assert.equal(methodOfCommand(undefined), undefined);
});

test("changed methods from the lenses, in line order, ignoring lenses without details", () => {
  const lenses: WireLens[] = [
    { range: { start: { line: 6, character: 4 } }, command: { title: "≢ not equivalent · a = 11", command: ServerCommand.showDetails, arguments: [{ uri, method: "clamp", arity: 1 }] } },
    { range: { start: { line: 1, character: 4 } }, command: { title: "≡ equivalent · ardiff · 3 ms", command: ServerCommand.showDetails, arguments: [{ uri, method: "sum", arity: 2 }] } },
    { range: { start: { line: 9, character: 0 } }, command: { title: "something else", command: "other.command", arguments: [] } },
    { range: { start: { line: 12, character: 0 } } },
  ];
  assert.deepEqual(checkedMethods(lenses), [
    { args: { uri, method: "sum", arity: 2 }, verdict: "≡ equivalent · ardiff · 3 ms", line: 1 },
    { args: { uri, method: "clamp", arity: 1 }, verdict: "≢ not equivalent · a = 11", line: 6 },
  ]);
  assert.deepEqual(checkedMethods(null), []);
});

test("only a lens's {uri, method, arity} counts as a method: a context-menu Uri or nothing does not", () => {
  assert.deepEqual(asMethodArgs({ uri, method: "clamp", arity: 1, extra: true }), { uri, method: "clamp", arity: 1 });
  // What VS Code passes from the editor's context menu: the document's Uri.
  assert.equal(asMethodArgs({ scheme: "file", path: "/w/A.java", fsPath: "/w/A.java" }), undefined);
  assert.equal(asMethodArgs(undefined), undefined);
  assert.equal(asMethodArgs({ uri, method: "clamp", arity: "1" }), undefined);
});
