import assert from "node:assert/strict";
import { test } from "node:test";
import type { StatusParams } from "../src/protocol";
import { presentServerProblem, presentStatus, presentWaiting, verdictCounts } from "../src/statusText";

function status(overrides: Partial<StatusParams>): StatusParams {
  return {
    uri: "file:///w/A.java",
    version: 3,
    state: "done",
    baseline: "HEAD",
    note: null,
    changed: 5,
    equivalent: 4,
    notEquivalent: 1,
    unknown: 0,
    pending: 0,
    ...overrides,
  };
}

test("done: the three counts, warning colour when something is not equivalent", () => {
  const p = presentStatus(status({}));
  assert.equal(p.text, "≡ 4  ≢ 1  ? 0");
  assert.equal(p.warning, true);
  assert.match(p.tooltip, /compared with HEAD/);
  assert.match(p.tooltip, /5 changed methods: 4 equivalent, 1 not equivalent, 0 unknown\./);
});

test("done and all equivalent: no warning colour", () => {
  const p = presentStatus(status({ changed: 2, equivalent: 2, notEquivalent: 0 }));
  assert.equal(p.text, "≡ 2  ≢ 0  ? 0");
  assert.equal(p.warning, false);
});

test("done with nothing changed says so instead of three zeros", () => {
  const p = presentStatus(status({ changed: 0, equivalent: 0, notEquivalent: 0 }));
  assert.equal(p.text, "≡ no changes");
  assert.match(p.tooltip, /No method differs from the baseline/);
});

test("checking: a spinner, the counts so far and how many are pending", () => {
  const p = presentStatus(status({ state: "checking", changed: 3, equivalent: 1, notEquivalent: 0, pending: 2 }));
  assert.equal(p.text, "$(sync~spin) ≡ 1  ≢ 0  ? 0  … 2");
  assert.match(p.tooltip, /3 changed methods: 1 equivalent, 0 not equivalent, 0 unknown, 2 being checked\./);
});

test("checking keeps the warning colour of an earlier counterexample", () => {
  assert.equal(presentStatus(status({ state: "checking", pending: 1 })).warning, true);
});

test("idle: the note says why nothing is checked", () => {
  const p = presentStatus(
    status({ state: "idle", baseline: null, note: "no pinned baseline yet", changed: 0, equivalent: 0, notEquivalent: 0 }),
  );
  assert.equal(p.text, "$(circle-slash) eqlens");
  assert.equal(p.warning, false);
  assert.match(p.tooltip, /no baseline/);
  assert.match(p.tooltip, /no pinned baseline yet/);
  assert.doesNotMatch(p.tooltip, /changed method/);
});

test("one changed method is singular", () => {
  const p = presentStatus(status({ changed: 1, equivalent: 1, notEquivalent: 0 }));
  assert.match(p.tooltip, /1 changed method: /);
});

test("the tooltip says what a click does", () => {
  assert.match(presentStatus(status({})).tooltip, /Click to compare with the baseline/);
});

test("waiting and server problems", () => {
  assert.equal(presentWaiting().text, "$(sync~spin) eqlens");
  const p = presentServerProblem("could not start /x/eqlens: ENOENT");
  assert.equal(p.text, "$(error) eqlens");
  assert.match(p.tooltip, /ENOENT/);
  assert.equal(p.warning, true);
});

test("verdictCounts alone", () => {
  assert.equal(verdictCounts({ equivalent: 10, notEquivalent: 2, unknown: 3 }), "≡ 10  ≢ 2  ? 3");
});
