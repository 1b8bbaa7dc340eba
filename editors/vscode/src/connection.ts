/**
 * The server process and its language client: started on activation,
 * restarted when `eqlens.server.path` changes, fed the settings. Other
 * modules reach the server only through {@link ServerConnection.client}.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  type ServerOptions,
  State,
} from "vscode-languageclient/node";
import { STATUS_NOTIFICATION, type StatusParams } from "./protocol";
import { resolveServerPath } from "./serverPath";
import { serverSettings, withWorkspaceTrust, type ServerSettings } from "./settings";

/** The documents the server checks. Only `file:` documents have a git or paired baseline to compare with. */
export const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "java" },
  { scheme: "file", language: "c" },
];

export function isCheckedDocument(document: vscode.TextDocument): boolean {
  return vscode.languages.match(DOCUMENT_SELECTOR, document) > 0;
}

/** An error whose message is meant for the user as it is. */
export class UserFacingError extends Error {}

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function currentServerSettings(): ServerSettings {
  const config = vscode.workspace.getConfiguration("eqlens");
  return withWorkspaceTrust(
    serverSettings((key) => config.get(key)),
    vscode.workspace.isTrusted,
  );
}

export class ServerConnection implements vscode.Disposable {
  private current: LanguageClient | undefined;
  /** Set while the extension itself stops the client, so that stop is not reported as a crash. */
  private stopping = false;
  private readonly statusEmitter = new vscode.EventEmitter<StatusParams>();
  private readonly problemEmitter = new vscode.EventEmitter<string | undefined>();
  /** Every `eqlens/status` notification. */
  readonly onStatus = this.statusEmitter.event;
  /** A message when the server cannot run, `undefined` when it runs again. */
  readonly onProblem = this.problemEmitter.event;

  constructor(
    private readonly extensionDir: string,
    private readonly output: vscode.LogOutputChannel,
    private readonly middleware: Middleware,
  ) {}

  /** The running client; throws a {@link UserFacingError} when there is none. */
  client(): LanguageClient {
    if (this.current?.isRunning() !== true) {
      throw new UserFacingError("The eqlens server is not running (see Output › eqlens).");
    }
    return this.current;
  }

  async start(): Promise<void> {
    const resolution = resolveServerPath({
      configured: vscode.workspace.getConfiguration("eqlens").get<string>("server.path"),
      extensionDir: this.extensionDir,
      // A relative path must not name a program inside a folder the user
      // does not trust (it is resolved against the home directory then).
      workspaceDir: vscode.workspace.isTrusted ? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath : undefined,
      homeDir: os.homedir(),
      pathEnv: process.env.PATH,
      platform: process.platform,
      isExecutableFile,
    });
    if (!resolution.ok) {
      this.reportProblem(resolution.message);
      return;
    }
    const settings = currentServerSettings();
    this.output.info(`starting ${resolution.path} serve (found via ${resolution.source}) with ${JSON.stringify(settings)}`);
    const serverOptions: ServerOptions = { command: resolution.path, args: ["serve"] };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      initializationOptions: settings,
      outputChannel: this.output,
      middleware: this.middleware,
    };
    const client = new LanguageClient("eqlens", "eqlens", serverOptions, clientOptions);
    client.onNotification(STATUS_NOTIFICATION, (params: StatusParams) => {
      this.statusEmitter.fire(params);
    });
    client.onDidChangeState((event) => {
      if (event.newState === State.Stopped && !this.stopping) {
        this.problemEmitter.fire("the server stopped");
      }
    });
    this.current = client;
    try {
      await client.start();
      this.problemEmitter.fire(undefined);
    } catch (error) {
      this.current = undefined;
      this.reportProblem(`could not start ${resolution.path}: ${String(error)}`);
    }
  }

  async stop(): Promise<void> {
    const client = this.current;
    this.current = undefined;
    if (client === undefined) {
      return;
    }
    this.stopping = true;
    try {
      if (client.isRunning()) {
        await client.stop();
      }
      await client.dispose();
    } finally {
      this.stopping = false;
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Sends every server setting again (the server re-reads baselines and re-checks). */
  async forwardSettings(): Promise<void> {
    if (this.current?.isRunning() !== true) {
      return;
    }
    const settings = currentServerSettings();
    this.output.info(`settings changed: ${JSON.stringify(settings)}`);
    await this.current.sendNotification(DidChangeConfigurationNotification.type, { settings: { eqlens: settings } });
  }

  private reportProblem(message: string): void {
    this.output.error(message);
    this.problemEmitter.fire(message);
    void vscode.window.showErrorMessage(`eqlens: ${message}`, "Open Settings").then((choice) => {
      if (choice === "Open Settings") {
        void vscode.commands.executeCommand("workbench.action.openSettings", "eqlens.server.path");
      }
    });
  }

  dispose(): void {
    void this.stop();
    this.statusEmitter.dispose();
    this.problemEmitter.dispose();
  }
}
