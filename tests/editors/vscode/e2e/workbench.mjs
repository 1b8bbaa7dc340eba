// Driving the VS Code workbench (code-server) the way a person does: the
// keyboard, the command palette, hovering with the mouse, and reading what
// is on screen from the DOM. Every wait polls what is shown until it
// matches or a generous deadline passes, and a timeout says what was last
// seen, so a failure explains itself.

/** Default deadline of one wait: long, because CI machines are slow and loaded. */
export const WAIT_MS = 120_000;
/** How long the command palette may take to list a command. */
const PALETTE_WAIT_MS = 30_000;

export class Workbench {
  constructor(page) {
    this.page = page;
  }

  /**
   * Polls `probe` until it returns something other than undefined/false and
   * returns that. `probe` may return `{ last }` through `observe` for the
   * error message.
   */
  async waitFor(description, probe, timeoutMs = WAIT_MS) {
    const deadline = Date.now() + timeoutMs;
    let last;
    for (;;) {
      const observe = (value) => {
        last = value;
      };
      const result = await probe(observe);
      if (result !== undefined && result !== false && result !== null) {
        return result;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${description}; last seen: ${JSON.stringify(last, null, 1)}`);
      }
      await this.page.waitForTimeout(250);
    }
  }

  async open(url) {
    await this.page.goto(url);
    await this.page.locator(".monaco-workbench").waitFor({ timeout: WAIT_MS });
    await this.page.locator("footer .statusbar-item").first().waitFor({ timeout: WAIT_MS });
  }

  /** Status bar items by id: `{ text, label }` (label is the aria-label: text and tooltip). */
  async statusBar() {
    return this.page.$$eval("footer .statusbar-item", (items) =>
      Object.fromEntries(items.map((e) => [e.id, { text: (e.textContent ?? "").trim(), label: e.getAttribute("aria-label") ?? "" }])),
    );
  }

  async statusItem(id) {
    return (await this.statusBar())[id];
  }

  async quickInputRows() {
    return this.page.$$eval(".quick-input-widget .quick-input-list .monaco-list-row", (rows) => rows.map((r) => r.getAttribute("aria-label") ?? ""));
  }

  /**
   * Keys typed while a webview (e.g. the markdown preview) has focus go to
   * its iframe, not to the workbench's keybindings: take focus back first.
   */
  async focusWorkbench() {
    await this.page.evaluate(() => {
      if (document.activeElement?.tagName === "IFRAME") {
        document.activeElement.blur();
      }
    });
  }

  /** Opens a file of the workspace with Quick Open, and waits for its tab to be active. */
  async openFile(name) {
    await this.focusWorkbench();
    await this.page.keyboard.press("Control+P");
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: WAIT_MS });
    await input.fill(name);
    await this.waitFor(`"${name}" in Quick Open`, async (observe) => {
      const rows = await this.quickInputRows();
      observe(rows);
      return rows.some((r) => r.startsWith(name));
    });
    await this.page.keyboard.press("Enter");
    await this.waitFor(`the active tab to be ${name}`, async (observe) => {
      const active = await this.page.$$eval(".tabs-container .tab.active", (tabs) => tabs.map((t) => t.getAttribute("aria-label")));
      observe(active);
      // "A.java" or "A.java, preview", not "A.java (HEAD) ↔ A.java".
      return active.some((label) => label === name || label?.startsWith(`${name},`));
    });
  }

  /** Runs a command from the palette by its exact title ("eqlens: Compare with baseline"). */
  async runCommand(title) {
    await this.focusWorkbench();
    await this.page.keyboard.press("F1");
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: WAIT_MS });
    await input.fill(`>${title}`);
    // A row's label is the title, maybe followed by ", <keybinding>". The
    // list is static (commands are contributed in package.json), so a
    // missing title is a wrong title: no need to wait the full deadline.
    const index = await this.waitFor(
      `the command "${title}" in the palette`,
      async (observe) => {
        const rows = await this.quickInputRows();
        observe(rows);
        const i = rows.findIndex((r) => r === title || r.startsWith(`${title},`));
        return i >= 0 ? { i } : undefined;
      },
      PALETTE_WAIT_MS,
    );
    await this.page.locator(".quick-input-widget .quick-input-list .monaco-list-row").nth(index.i).click();
  }

  /** Moves the cursor with Go to Line (`line:column`, one-based) and waits until the status bar shows it. */
  async goTo(line, column) {
    await this.page.keyboard.press("Control+G");
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: WAIT_MS });
    await input.fill(`:${line}:${column}`);
    await this.page.keyboard.press("Enter");
    await this.waitFor(`the cursor at Ln ${line}, Col ${column}`, async (observe) => {
      const selection = (await this.statusItem("status.editor.selection"))?.text;
      observe(selection);
      return selection === `Ln ${line}, Col ${column}`;
    });
  }

  /** The code lenses on screen, top to bottom: `{ text, top }` with `top` in editor pixels. */
  async codeLenses() {
    const lenses = await this.page.$$eval(".monaco-editor .codelens-decoration", (spans) =>
      spans.map((s) => ({ text: (s.textContent ?? "").trim(), top: parseFloat(s.style.top) })),
    );
    return lenses.sort((a, b) => a.top - b.top);
  }

  /** The rendered lines of the active editor: `{ text, top }` (Monaco's non-breaking spaces read as spaces). */
  async editorLines(editorSelector = ".editor-instance .monaco-editor") {
    const lines = await this.page.$$eval(`${editorSelector} .view-lines .view-line`, (elements) =>
      elements.map((l) => ({ text: l.textContent ?? "", top: parseFloat(l.style.top) })),
    );
    return lines.map((l) => ({ ...l, text: l.text.replace(/\u00a0/g, " ") })).sort((a, b) => a.top - b.top);
  }

  /** The visible hover widget's text, if any. */
  async hoverText() {
    const texts = await this.page.$$eval(".monaco-hover:not(.hidden)", (hovers) => hovers.map((h) => h.textContent ?? ""));
    return texts.find((t) => t.trim() !== "");
  }

  /**
   * Moves the mouse onto the token `token` of the line containing
   * `lineText` and returns the hover's text once it shows (undefined if no
   * hover came up in `settleMs`). The mouse first leaves, so the hover is
   * asked for afresh.
   */
  async hover(lineText, token, settleMs = 10_000) {
    const line = this.page.locator(".editor-instance .monaco-editor .view-lines .view-line", { hasText: lineText }).first();
    const span = line.locator("span > span", { hasText: new RegExp(`^${token}$`) }).first();
    await span.waitFor({ timeout: WAIT_MS });
    await this.page.mouse.move(0, 0);
    await this.page.keyboard.press("Escape");
    await span.hover();
    const deadline = Date.now() + settleMs;
    while (Date.now() < deadline) {
      const text = await this.hoverText();
      if (text !== undefined) {
        return text;
      }
      await this.page.waitForTimeout(200);
    }
    return undefined;
  }

  /**
   * Closes the editor whose tab label contains `labelPart` with the tab's
   * close button: a webview that takes focus as it loads would close a
   * command palette opened to do it by keyboard.
   */
  async closeTab(labelPart) {
    const tab = this.page.locator(".tabs-container .tab", { has: this.page.locator(".label-name", { hasText: labelPart }) }).first();
    await tab.hover();
    await tab.locator(".tab-actions .action-label").first().click();
    await this.waitFor(`the tab "${labelPart}" to close`, async (observe) => {
      const tabs = await this.page.$$eval(".tabs-container .tab", (t) => t.map((e) => e.getAttribute("aria-label") ?? ""));
      observe(tabs);
      return !tabs.some((t) => t.includes(labelPart));
    });
  }

  /**
   * Sets an enum setting in the Settings editor, as a person would, and closes the editor.
   * The editor must then show the value chosen; a row that keeps showing the old value
   * although the choice was made (code-server does not always re-render it) is looked at
   * again in a freshly opened Settings editor, as a person would reopen it.
   */
  async chooseSetting(id, value) {
    const select = await this.findSetting(id);
    await select.click();
    const option = this.page.locator(".monaco-select-box-dropdown-container .monaco-list-row", { hasText: new RegExp(`^${value}`) }).first();
    await option.click();
    const shows = async (observe) => {
      const shown = await select.inputValue();
      observe(shown);
      return shown === value;
    };
    try {
      await this.waitFor(`${id} to show ${value}`, shows, PALETTE_WAIT_MS);
    } catch {
      await this.runCommand("View: Close Editor");
      await this.findSetting(id);
      await this.waitFor(`${id} to show ${value} in a reopened Settings editor`, shows);
    }
    await this.runCommand("View: Close Editor");
  }

  /** Opens the user Settings editor searched for `id`; the setting's select element. */
  async findSetting(id) {
    await this.runCommand("Preferences: Open User Settings");
    const search = this.page.locator(".settings-editor .suggest-input-container textarea, .settings-editor .suggest-input-container input").first();
    await search.waitFor({ timeout: WAIT_MS });
    await search.fill(id);
    const select = this.page.locator(`.settings-editor select[aria-label="${id}"]`);
    await select.waitFor({ timeout: WAIT_MS });
    return select;
  }

  async screenshot(path) {
    await this.page.screenshot({ path });
  }
}
