// End-to-end: the packaged extension in a real VS Code (code-server),
// driven through headless Chromium as a person would use it. A git
// repository holds A.java; the test types two edits into the editor and
// checks what VS Code shows: the code lenses, the Problems count and
// message, the status bar item, the hover, the light-bulb menu; then
// "Abstract selected block", the status bar click (diff with HEAD), a lens
// click (details), and a setting changed in the Settings editor. Screenshots
// for the docs are taken on the way.
//
// Inputs (set by tests/editors/vscode/run.sh): EQLENS_BIN, EQLENS_VSIX,
// CODE_SERVER_BIN, CHROMIUM_BIN, PLAYWRIGHT_CORE_DIR, EQLENS_E2E_WORK (an
// empty scratch directory), EQLENS_E2E_PIDS (process groups to kill on exit),
// EQLENS_SCREENSHOTS (where the docs' images go).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { after, before, test } from "node:test";
import { runToCompletion, spawnAndAwait } from "./processes.mjs";
import { WAIT_MS, Workbench } from "./workbench.mjs";

function required(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: run this test through tests/editors/vscode/run.sh`);
  }
  return value;
}

const env = {
  eqlensBin: required("EQLENS_BIN"),
  vsix: required("EQLENS_VSIX"),
  codeServer: required("CODE_SERVER_BIN"),
  chromium: required("CHROMIUM_BIN"),
  playwrightDir: required("PLAYWRIGHT_CORE_DIR"),
  work: required("EQLENS_E2E_WORK"),
  pidFile: required("EQLENS_E2E_PIDS"),
  screenshots: required("EQLENS_SCREENSHOTS"),
};
for (const [name, file] of Object.entries({ EQLENS_BIN: env.eqlensBin, EQLENS_VSIX: env.vsix, CODE_SERVER_BIN: env.codeServer, CHROMIUM_BIN: env.chromium })) {
  if (!existsSync(file)) {
    throw new Error(`${name}=${file} does not exist`);
  }
}
const { chromium } = createRequire(path.join(env.playwrightDir, "package.json"))("playwright-core");

const EXTENSION_ID = "eqlens.eqlens";
const STATUS_ITEM = `${EXTENSION_ID}.eqlens.status`;

// The Java example of server/cli/tests/lsp.rs: after the edits, `sum` is
// equivalent (b + a), `clamp` is not (returns 11 instead of 10 above 10),
// `twice` is unchanged and gets no lens.
const JAVA_BASELINE = `class A {
    static int sum(int a, int b) {
        int s = a + b;
        return s;
    }

    static int clamp(int a) {
        if (a > 10) {
            return 10;
        }
        return a;
    }

    static int twice(int x) {
        return x * 2;
    }
}
`;

const dirs = {
  repo: path.join(env.work, "repo"),
  userData: path.join(env.work, "user-data"),
  extensions: path.join(env.work, "extensions"),
  xdg: path.join(env.work, "xdg"),
  chromeProfile: path.join(env.work, "chromium-profile"),
  logs: path.join(env.work, "logs"),
};

/**
 * code-server, its children and Chromium see only the scratch directories,
 * never the user's own config (both write there by default: code-server its
 * config.yaml and logs, Chromium its crash-report settings).
 */
const isolatedEnv = {
  ...process.env,
  XDG_CONFIG_HOME: path.join(dirs.xdg, "config"),
  XDG_DATA_HOME: path.join(dirs.xdg, "data"),
  XDG_CACHE_HOME: path.join(dirs.xdg, "cache"),
};
const codeServerConfig = path.join(env.work, "code-server.yaml");
const commonArgs = ["--config", codeServerConfig, "--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions];

let codeServer;
let browserProcess;
let browser;
let wb;
/** Once a step fails the later ones, which build on it, are reported as not run. */
let failedStep;

function git(...args) {
  execFileSync("git", ["-c", "user.email=e2e@example.com", "-c", "user.name=e2e", "-c", "init.defaultBranch=main", ...args], { cwd: dirs.repo, stdio: "pipe" });
}

const userSettingsFile = path.join(dirs.userData, "User", "settings.json");

function prepareWorkspace() {
  for (const dir of Object.values(dirs)) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(path.join(dirs.repo, "A.java"), JAVA_BASELINE);
  git("init", "-q");
  git("add", "A.java");
  git("commit", "-qm", "baseline");
  writeFileSync(codeServerConfig, "auth: none\ncert: false\n");
  mkdirSync(path.join(dirs.userData, "User"), { recursive: true });
  writeFileSync(
    userSettingsFile,
    JSON.stringify(
      {
        // The only eqlens setting: where the binary under test is.
        "eqlens.server.path": env.eqlensBin,
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": false,
        "telemetry.telemetryLevel": "off",
        "extensions.autoUpdate": false,
        "extensions.autoCheckUpdates": false,
        "workbench.tips.enabled": false,
        "files.autoSave": "off",
        "git.openRepositoryInParentFolders": "never",
        // Word completion popping up over the lenses would hide them in the screenshots.
        "editor.quickSuggestions": { other: "off", comments: "off", strings: "off" },
        "editor.wordBasedSuggestions": "off",
      },
      null,
      2,
    ),
  );
  // The binary's path is a machine setting as well: code-server reads
  // `Machine/settings.json` on the server side before it launches the
  // extension host, while the browser loads the user settings on its own
  // schedule and has, rarely, handed the extension host a configuration
  // without them. Either file alone names the binary.
  mkdirSync(path.join(dirs.userData, "Machine"), { recursive: true });
  writeFileSync(path.join(dirs.userData, "Machine", "settings.json"), JSON.stringify({ "eqlens.server.path": env.eqlensBin }, null, 2));
}

/** The newest log of the extension's output channel, for failure reports. */
function extensionLog() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(p);
      } else if (entry.name === "eqlens.log") {
        found.push(p);
      }
    }
  };
  try {
    walk(path.join(dirs.userData, "logs"));
  } catch {
    return "(no logs)";
  }
  found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return found[0] ? `${found[0]}:\n${readFileSync(found[0], "utf8").slice(-4000)}` : "(no eqlens.log)";
}

/** Runs one step; a failure leaves a screenshot and the extension's log in the scratch directory. */
function step(name, body) {
  test(name, { timeout: 6 * WAIT_MS }, async (t) => {
    if (failedStep !== undefined) {
      t.skip(`not run: it builds on "${failedStep}", which failed`);
      return;
    }
    try {
      await body();
    } catch (error) {
      failedStep = name;
      const shot = path.join(dirs.logs, `failure-${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
      await wb?.screenshot(shot).catch(() => undefined);
      console.error(`\n--- step "${name}" failed; screenshot: ${shot}\n--- extension log: ${extensionLog()}\n`);
      throw error;
    }
  });
}

before(() => {
  prepareWorkspace();
});

after(async () => {
  await browser?.close().catch(() => undefined);
  await browserProcess?.stop();
  await codeServer?.stop();
});

step("the .vsix installs into code-server", async () => {
  const installed = await runToCompletion(env.codeServer, [...commonArgs, "--install-extension", env.vsix], isolatedEnv);
  assert.match(installed, /successfully installed/, installed);
  const list = await runToCompletion(env.codeServer, [...commonArgs, "--list-extensions", "--show-versions"], isolatedEnv);
  const version = JSON.parse(execFileSync("unzip", ["-p", env.vsix, "extension/package.json"]).toString()).version;
  assert.ok(list.split(/\s+/).includes(`${EXTENSION_ID}@${version}`), `${EXTENSION_ID}@${version} not in:\n${list}`);
});

step("code-server serves the workbench on a free loopback port", async () => {
  codeServer = await spawnAndAwait({
    name: "code-server",
    command: env.codeServer,
    args: [
      ...commonArgs,
      "--auth", "none",
      "--bind-addr", "127.0.0.1:0",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      dirs.repo,
    ],
    env: isolatedEnv,
    logFile: path.join(dirs.logs, "code-server.log"),
    pidFile: env.pidFile,
    pattern: /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//,
    timeoutMs: WAIT_MS,
  });
  browserProcess = await spawnAndAwait({
    name: "chromium",
    command: env.chromium,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-breakpad",
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${dirs.chromeProfile}`,
      "about:blank",
    ],
    env: isolatedEnv,
    logFile: path.join(dirs.logs, "chromium.log"),
    pidFile: env.pidFile,
    pattern: /DevTools listening on (ws:\/\/\S+)/,
    timeoutMs: WAIT_MS,
  });
  browser = await chromium.connectOverCDP(browserProcess.match[1], { timeout: WAIT_MS });
  const context = await browser.newContext({ viewport: { width: 1100, height: 600 } });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  wb = new Workbench(page);
  await wb.open(`${codeServer.match[1]}/?folder=${encodeURIComponent(dirs.repo)}`);
});

step("opening A.java starts the server: the status bar item says nothing changed", async () => {
  // The editor alone, wide enough for the screenshots.
  await wb.runCommand("View: Close Primary Side Bar");
  await wb.openFile("A.java");
  // VS Code's built-in Java support gives .java files the `java` language the extension selects.
  await wb.waitFor("the language mode Java", async (observe) => {
    const mode = await wb.statusItem("status.editor.mode");
    observe(mode);
    return mode?.text === "Java";
  });
  const item = await wb.waitFor("the eqlens status item to report the file unchanged", async (observe) => {
    const s = await wb.statusItem(STATUS_ITEM);
    observe(s);
    return s?.text === "≡ no changes" ? s : undefined;
  });
  assert.match(item.label, /compared with HEAD/);
});

let counterexample;

step("typing makes clamp not equivalent and sum equivalent: the code lenses say so", async () => {
  // `return 10;` → `return 11;` (line 9), then `a + b` → `b + a` (line 3).
  await wb.goTo(9, 22);
  await wb.page.keyboard.press("Backspace");
  await wb.page.keyboard.type("1");
  await wb.goTo(3, 17);
  for (let i = 0; i < "a + b".length; i++) {
    await wb.page.keyboard.press("Shift+ArrowRight");
  }
  await wb.page.keyboard.type("b + a");
  // Lenses may pass through "… checking" or a first, bounded verdict:
  // wait for the final picture, and on timeout show the last one seen.
  const verdicts = await wb.waitFor("clamp's ≢ lens and sum's ≡ lens, and no other", async (observe) => {
    const lenses = await wb.codeLenses();
    const lines = await wb.editorLines();
    // The lens of a method sits in the line-high zone right above its declaration.
    const lineHeight = Math.min(...lines.slice(1).map((l, i) => l.top - (lines[i]?.top ?? 0)));
    const lensAbove = (name) => {
      const declaration = lines.find((l) => l.text.includes(`static int ${name}(`));
      return declaration && lenses.find((l) => l.top < declaration.top && l.top >= declaration.top - 2 * lineHeight)?.text;
    };
    const seen = { lenses: lenses.map((l) => l.text), clamp: lensAbove("clamp"), sum: lensAbove("sum") };
    observe(seen);
    const clamp = /^≢ not equivalent · a = (-?\d+)$/.exec(seen.clamp ?? "");
    const sumProved = /^≡ equivalent · /.test(seen.sum ?? "");
    // Two lenses: twice is unchanged and gets none.
    return clamp && sumProved && lenses.length === 2 ? { a: Number(clamp[1]) } : undefined;
  });
  counterexample = verdicts.a;
  assert.ok(counterexample > 10, `the counterexample must take the changed branch: a = ${counterexample}`);
  await wb.screenshot(path.join(env.screenshots, "vscode-lens.png"));
});

step("the warning is counted in the status bar and listed in Problems", async () => {
  const problems = await wb.waitFor("one warning in the status bar", async (observe) => {
    const p = await wb.statusItem("status.problems");
    observe(p);
    return p?.label === "Warnings: 1" ? p : undefined;
  });
  assert.equal(problems.label, "Warnings: 1");
  await wb.runCommand("Problems: Focus on Problems View");
  const row = await wb.waitFor("the not-equivalent warning in the Problems panel", async (observe) => {
    const rows = await wb.page.$$eval(".markers-panel .monaco-list-row", (r) => r.map((e) => e.getAttribute("aria-label") ?? e.textContent ?? ""));
    observe(rows);
    return rows.find((r) => r.includes("is not equivalent to the baseline"));
  });
  assert.ok(row.includes(`clamp(1) is not equivalent to the baseline (HEAD): a = ${counterexample}`), row);
  assert.ok(row.includes("old returns 10, new returns 11"), row);
  await wb.runCommand("View: Hide Panel");
});

step("the status bar item counts the verdicts", async () => {
  const item = await wb.waitFor("≡ 1  ≢ 1  ? 0 in the status bar", async (observe) => {
    const s = await wb.statusItem(STATUS_ITEM);
    observe(s);
    return s?.text === "≡ 1  ≢ 1  ? 0" ? s : undefined;
  });
  assert.match(item.label, /compared with HEAD/);
  assert.match(item.label, /2 changed methods: 1 equivalent, 1 not equivalent, 0 unknown/);
});

step("hovering the name clamp shows the counterexample: inputs, old and new outcome", async () => {
  const hover = await wb.waitFor("the hover with the counterexample", async (observe) => {
    const text = await wb.hover("static int clamp(", "clamp");
    observe(text);
    return text?.includes("Inputs:") ? text : undefined;
  });
  for (const needle of [`a = ${counterexample}`, "old (HEAD): returns 10", "new: returns 11", "return value: 10 vs 11"]) {
    assert.ok(hover.replace(/\s+/g, " ").includes(needle), `${JSON.stringify(needle)} not in the hover:\n${hover}`);
  }
  await wb.screenshot(path.join(env.screenshots, "vscode-hover.png"));
  await wb.page.mouse.move(0, 0);
  await wb.page.keyboard.press("Escape");
});

step("the lightbulb menu offers to abstract or refine the block at the cursor", async () => {
  await wb.goTo(3, 9);
  await wb.page.keyboard.press("Control+.");
  const items = await wb.waitFor("the code action menu", async (observe) => {
    const rows = await wb.page.$$eval(".action-widget .monaco-list-row", (r) => r.map((e) => e.getAttribute("aria-label") ?? ""));
    observe(rows);
    return rows.includes("Abstract this block (line 3)") ? rows : undefined;
  });
  assert.ok(items.includes("Refine this block (line 3)"), JSON.stringify(items));
  await wb.screenshot(path.join(env.screenshots, "vscode-code-action.png"));
  await wb.page.keyboard.press("Escape");
});

step("eqlens: Abstract selected block makes the server keep line 3 abstract", async () => {
  await wb.goTo(3, 9);
  await wb.runCommand("eqlens: Abstract selected block");
  await wb.waitFor("the hover on sum to report the override", async (observe) => {
    const text = await wb.hover("static int sum(", "sum");
    observe(text);
    return text?.includes("override abstract 3");
  });
  await wb.page.mouse.move(0, 0);
  await wb.page.keyboard.press("Escape");
});

step("clicking the status bar item compares the file with HEAD in a diff editor", async () => {
  await wb.page.locator(`[id="${STATUS_ITEM}"]`).click();
  await wb.waitFor("the diff editor tab", async (observe) => {
    const tabs = await wb.page.$$eval(".tabs-container .tab.active", (t) => t.map((e) => e.getAttribute("aria-label") ?? ""));
    observe(tabs);
    return tabs.some((t) => t.startsWith("A.java (HEAD) ↔ A.java"));
  });
  const sides = await wb.waitFor("both sides of the diff", async (observe) => {
    const original = (await wb.editorLines(".monaco-diff-editor .editor.original")).map((l) => l.text).join("\n");
    const modified = (await wb.editorLines(".monaco-diff-editor .editor.modified")).map((l) => l.text).join("\n");
    observe({ original, modified });
    return original.includes("return") && modified.includes("return") ? { original, modified } : undefined;
  });
  assert.ok(sides.original.includes("return 10;") && !sides.original.includes("return 11;"), sides.original);
  assert.ok(sides.modified.includes("return 11;"), sides.modified);
  await wb.runCommand("View: Close Editor");
});

step("clicking the ≢ lens opens the verdict's details", async () => {
  await wb.openFile("A.java");
  const lens = wb.page.locator(".monaco-editor .codelens-decoration a", { hasText: /^≢ not equivalent/ }).first();
  await lens.click();
  await wb.waitFor("the details preview tab", async (observe) => {
    const tabs = await wb.page.$$eval(".tabs-container .tab", (t) => t.map((e) => e.getAttribute("aria-label") ?? ""));
    observe(tabs);
    return tabs.some((t) => t.includes("A.java A.clamp(1).md"));
  });
  await wb.closeTab("A.java A.clamp(1).md");
});

step("a setting changed in the Settings editor reaches the running server: eqlens.lens = all labels twice unchanged", async () => {
  await wb.chooseSetting("eqlens.lens", "all");
  await wb.waitFor("the Settings editor to write eqlens.lens to settings.json", async (observe) => {
    const written = JSON.parse(readFileSync(userSettingsFile, "utf8"))["eqlens.lens"];
    observe(written);
    return written === "all";
  });
  await wb.waitFor("an `unchanged` lens above twice", async (observe) => {
    const lenses = await wb.codeLenses();
    const lines = await wb.editorLines();
    const twice = lines.find((l) => l.text.includes("static int twice("));
    const above = twice && lenses.filter((l) => l.top < twice.top).at(-1);
    observe({ lenses, twice });
    return above?.text === "unchanged";
  });
});
