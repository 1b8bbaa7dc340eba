/**
 * Read-only documents the extension shows: the baseline of a file
 * (`eqlens-baseline:`, fed by the server's `eqlens/baseline` request, also
 * the target of diagnostics' related information) and the details of one
 * method's verdict (`eqlens-details:`, markdown from `eqlens.showDetails`).
 */
import * as vscode from "vscode";
import { fileUriOfBaseline } from "./baselineUri";
import type { ServerConnection } from "./connection";
import { BASELINE_REQUEST, BASELINE_SCHEME, type BaselineResponse } from "./protocol";

export class BaselineDocuments implements vscode.TextDocumentContentProvider {
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly connection: ServerConnection) {}

  /** The server's baseline for a file. */
  async fetch(fileUri: string): Promise<BaselineResponse> {
    return this.connection.client().sendRequest<BaselineResponse>(BASELINE_REQUEST, { uri: fileUri });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const fileUri = fileUriOfBaseline(uri.toString());
    if (fileUri === undefined) {
      return `eqlens: ${uri.toString()} is not a baseline document.`;
    }
    const baseline = await this.fetch(fileUri);
    return baseline.text ?? `eqlens: no baseline (${baseline.reason ?? "unknown reason"}).`;
  }

  /**
   * Re-reads the open baseline documents of a file: the baseline may have
   * changed (pinned, unpinned, another git ref) when new results arrive.
   */
  refresh(fileUri: string): void {
    for (const document of vscode.workspace.textDocuments) {
      if (document.uri.scheme === BASELINE_SCHEME && fileUriOfBaseline(document.uri.toString()) === fileUri) {
        this.changeEmitter.fire(document.uri);
      }
    }
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}

export const DETAILS_SCHEME = "eqlens-details";

/** Markdown of verdict details, kept per URI while the extension runs. */
export class DetailsDocuments implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changeEmitter.event;

  /** A URI showing `markdown`, named after the method so the tab says what it is. */
  put(fileName: string, method: string, arity: number, markdown: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: DETAILS_SCHEME, path: `/${fileName} ${method}(${String(arity)}).md` });
    this.contents.set(uri.toString(), markdown);
    this.changeEmitter.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? "eqlens: these details are no longer available; run “eqlens: Show details of this method” again.";
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }
}
