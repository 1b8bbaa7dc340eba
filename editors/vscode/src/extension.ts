/**
 * Entry point: wires the server connection, the status bar, the virtual
 * documents and the commands. Kept thin; each piece is its own module.
 */
import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { Commands } from "./commands";
import { ServerConnection } from "./connection";
import { ExtensionCommand } from "./extensionCommands";
import { BASELINE_SCHEME, ServerCommand } from "./protocol";
import { reactionToConfigurationChange } from "./settings";
import { StatusBar } from "./statusBar";
import { BaselineDocuments, DETAILS_SCHEME, DetailsDocuments } from "./virtualDocuments";

let connection: ServerConnection | undefined;

/**
 * Clicking a lens runs the server's `eqlens.showDetails`, which only shows a
 * one-line message; route it to the extension's command, which opens the
 * full markdown (same arguments).
 */
const middleware: Middleware = {
  provideCodeLenses: async (document, token, next) => {
    const lenses = await next(document, token);
    for (const lens of lenses ?? []) {
      if (lens.command?.command === ServerCommand.showDetails) {
        lens.command = { ...lens.command, command: ExtensionCommand.showMethodDetails };
      }
    }
    return lenses;
  },
};

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("eqlens", { log: true });
  connection = new ServerConnection(context.extensionPath, output, middleware);
  const baselines = new BaselineDocuments(connection);
  const details = new DetailsDocuments();
  const statusBar = new StatusBar(ExtensionCommand.compareWithBaseline);
  const conn = connection;
  context.subscriptions.push(
    output,
    conn,
    statusBar,
    baselines,
    details,
    vscode.workspace.registerTextDocumentContentProvider(BASELINE_SCHEME, baselines),
    vscode.workspace.registerTextDocumentContentProvider(DETAILS_SCHEME, details),
    conn.onStatus((status) => {
      statusBar.update(status);
      if (status.state !== "checking") {
        baselines.refresh(status.uri);
      }
    }),
    conn.onProblem((problem) => {
      statusBar.setServerProblem(problem);
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      switch (reactionToConfigurationChange((section) => event.affectsConfiguration(section))) {
        case "restart":
          await conn.restart();
          break;
        case "forward":
          await conn.forwardSettings();
          break;
        case "none":
          break;
      }
    }),
    // Trust lifts the limits of an untrusted workspace: `runGit` is sent again.
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      await conn.forwardSettings();
    }),
    ...new Commands(conn, baselines, details).register(),
  );
  await conn.start();
}

export async function deactivate(): Promise<void> {
  await connection?.stop();
  connection = undefined;
}
