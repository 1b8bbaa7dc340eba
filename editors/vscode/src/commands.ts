/**
 * The extension's commands. Everything that needs knowledge of methods and
 * blocks is asked of the server (its code actions and code lenses carry
 * the arguments of its commands), so this module only picks and runs.
 */
import * as path from "node:path";
import * as vscode from "vscode";
import {
  CodeActionRequest,
  CodeActionTriggerKind,
  CodeLensRequest,
  ExecuteCommandRequest,
  ResponseError,
} from "vscode-languageclient/node";
import { baselineUriFor } from "./baselineUri";
import { isCheckedDocument, UserFacingError, type ServerConnection } from "./connection";
import { ExtensionCommand } from "./extensionCommands";
import { type DetailsResponse, type MethodArgs, ServerCommand, type ServerCommandName } from "./protocol";
import { asMethodArgs, checkedMethods, findServerCommand, methodOfCommand, type CheckedMethod, type WireCommand } from "./serverActions";
import type { BaselineDocuments, DetailsDocuments } from "./virtualDocuments";

function activeCheckedEditor(): vscode.TextEditor {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || !isCheckedDocument(editor.document)) {
    throw new UserFacingError("Open a Java or C file first: eqlens checks the active editor's file.");
  }
  return editor;
}

/** Runs a command body and shows its failure instead of letting it vanish into the log. */
function reportingErrors<A extends unknown[]>(body: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await body(...args);
    } catch (error) {
      if (error instanceof UserFacingError) {
        void vscode.window.showWarningMessage(`eqlens: ${error.message}`);
      } else if (error instanceof ResponseError) {
        void vscode.window.showErrorMessage(`eqlens: the server refused: ${error.message}`);
      } else {
        void vscode.window.showErrorMessage(`eqlens: ${String(error)}`);
      }
    }
  };
}

export class Commands {
  constructor(
    private readonly connection: ServerConnection,
    private readonly baselines: BaselineDocuments,
    private readonly details: DetailsDocuments,
  ) {}

  register(): vscode.Disposable[] {
    const bodies: Record<string, (...args: never[]) => Promise<void>> = {
      [ExtensionCommand.checkNow]: () => this.onFile(ServerCommand.recheck),
      [ExtensionCommand.pinThisFile]: () => this.onFile(ServerCommand.pinBaseline),
      [ExtensionCommand.unpinThisFile]: () => this.onFile(ServerCommand.unpinBaseline),
      [ExtensionCommand.clearOverridesOfFile]: () => this.onFile(ServerCommand.clearOverrides),
      [ExtensionCommand.compareWithBaseline]: () => this.compareWithBaseline(),
      [ExtensionCommand.abstractSelection]: () => this.onSelection(ServerCommand.abstractBlock),
      [ExtensionCommand.refineSelection]: () => this.onSelection(ServerCommand.refineBlock),
      [ExtensionCommand.recheckWithLargerLoopBound]: () => this.recheckWithLargerLoopBound(),
      [ExtensionCommand.showMethodDetails]: (arg?: unknown) => this.showMethodDetails(asMethodArgs(arg)),
      [ExtensionCommand.restartServer]: () => this.connection.restart(),
    };
    return Object.entries(bodies).map(([name, body]) => vscode.commands.registerCommand(name, reportingErrors(body)));
  }

  private async execute<R>(command: WireCommand | { command: ServerCommandName; arguments: unknown[] }): Promise<R> {
    return (await this.connection.client().sendRequest(ExecuteCommandRequest.type, {
      command: command.command,
      arguments: command.arguments ?? [],
    })) as R;
  }

  /** Runs a server command whose only argument is the active file (`{uri}`). */
  private async onFile(command: ServerCommandName): Promise<void> {
    const editor = activeCheckedEditor();
    await this.execute({ command, arguments: [{ uri: editor.document.uri.toString() }] });
  }

  private async codeActionsAt(document: vscode.TextDocument, range: vscode.Range): Promise<WireCommand[] | null> {
    const client = this.connection.client();
    const actions = await client.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: document.uri.toString() },
      range: client.code2ProtocolConverter.asRange(range),
      context: { diagnostics: [], triggerKind: CodeActionTriggerKind.Invoked },
    });
    // Code actions or bare commands; `findServerCommand` reads either.
    return actions as WireCommand[] | null;
  }

  private async changedMethods(document: vscode.TextDocument): Promise<CheckedMethod[]> {
    const lenses = await this.connection.client().sendRequest(CodeLensRequest.type, {
      textDocument: { uri: document.uri.toString() },
    });
    return checkedMethods(lenses);
  }

  /** The server's command `name` as offered at the selection, e.g. abstract lines 3-4 of `sum`. */
  private async offeredAtSelection(editor: vscode.TextEditor, name: ServerCommandName): Promise<WireCommand | undefined> {
    return findServerCommand(await this.codeActionsAt(editor.document, editor.selection), name);
  }

  private async onSelection(name: typeof ServerCommand.abstractBlock | typeof ServerCommand.refineBlock): Promise<void> {
    const editor = activeCheckedEditor();
    const command = await this.offeredAtSelection(editor, name);
    if (command === undefined) {
      throw new UserFacingError(
        "The selection is not inside a method that differs from the baseline: only blocks of changed methods can be abstracted or refined.",
      );
    }
    await this.execute(command);
    vscode.window.setStatusBarMessage(`eqlens: ${command.title}; re-checking`, 5000);
  }

  private async recheckWithLargerLoopBound(): Promise<void> {
    const editor = activeCheckedEditor();
    let command = await this.offeredAtSelection(editor, ServerCommand.recheck);
    // Outside a changed method: the bound is per document, so any changed
    // method's offer says the doubled bound.
    for (const method of command ? [] : await this.changedMethods(editor.document)) {
      const line = new vscode.Range(method.line, 0, method.line, 0);
      command = findServerCommand(await this.codeActionsAt(editor.document, line), ServerCommand.recheck);
      if (command) {
        break;
      }
    }
    if (command === undefined) {
      throw new UserFacingError("No method of this file differs from its baseline: nothing to re-check.");
    }
    await this.execute(command);
    vscode.window.setStatusBarMessage(`eqlens: ${command.title}`, 5000);
  }

  private async compareWithBaseline(): Promise<void> {
    const editor = activeCheckedEditor();
    const document = editor.document;
    const fileUri = document.uri.toString();
    const baseline = await this.baselines.fetch(fileUri);
    const name = path.basename(document.uri.fsPath);
    if (baseline.text === null) {
      throw new UserFacingError(`No baseline for ${name}: ${baseline.reason ?? "the server gave no reason"}.`);
    }
    const label = baseline.label ?? "baseline";
    const left = baselineUriFor(fileUri, label);
    if (left === undefined) {
      throw new UserFacingError(`${name} is not a file on disk.`);
    }
    await vscode.commands.executeCommand("vscode.diff", vscode.Uri.parse(left), document.uri, `${name} (${label}) ↔ ${name}`);
  }

  /** The method at the cursor, else the only changed one, else the user's pick among them. */
  private async methodToDetail(editor: vscode.TextEditor): Promise<MethodArgs | undefined> {
    const atCursor = methodOfCommand(await this.offeredAtSelection(editor, ServerCommand.abstractBlock));
    if (atCursor) {
      return atCursor;
    }
    const methods = await this.changedMethods(editor.document);
    if (methods.length === 0) {
      throw new UserFacingError("No method of this file differs from its baseline.");
    }
    if (methods.length === 1) {
      return methods[0]?.args;
    }
    const picked = await vscode.window.showQuickPick(
      methods.map((m) => ({ label: `${m.args.method}/${String(m.args.arity)}`, description: m.verdict, args: m.args })),
      { placeHolder: "Details of which method?" },
    );
    return picked?.args;
  }

  private async showMethodDetails(fromLens?: MethodArgs): Promise<void> {
    const args = fromLens ?? (await this.methodToDetail(activeCheckedEditor()));
    if (args === undefined) {
      return;
    }
    // quiet: the details preview shows them; no toast from the server too.
    const details = await this.execute<DetailsResponse | null>({
      command: ServerCommand.showDetails,
      arguments: [{ ...args, quiet: true }],
    });
    if (details === null) {
      throw new UserFacingError(`${args.method} has no verdict yet (still being checked).`);
    }
    const fileName = path.basename(vscode.Uri.parse(args.uri).fsPath);
    const uri = this.details.put(fileName, args.method, args.arity, details.markdown);
    try {
      await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
    } catch {
      // Without the built-in markdown extension, the source still reads well.
      await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.Beside, preview: true });
    }
  }
}
