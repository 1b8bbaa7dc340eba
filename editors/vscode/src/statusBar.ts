/**
 * One status bar item for the active editor's document: its verdict counts
 * from the latest `eqlens/status`, a spinner while checking, the server's
 * trouble if it cannot run. Hidden for documents the server does not check.
 */
import * as vscode from "vscode";
import { isCheckedDocument } from "./connection";
import type { StatusParams } from "./protocol";
import { presentServerProblem, presentStatus, presentWaiting, type StatusPresentation } from "./statusText";

export const STATUS_BAR_ITEM_ID = "eqlens.status";

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  /** Latest status per document URI string (as the server echoes it). */
  private readonly statuses = new Map<string, StatusParams>();
  private serverProblem: string | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(clickCommand: string) {
    this.item = vscode.window.createStatusBarItem(STATUS_BAR_ITEM_ID, vscode.StatusBarAlignment.Left, 10);
    this.item.name = "eqlens";
    this.item.command = clickCommand;
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor(() => {
        this.render();
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        this.statuses.delete(document.uri.toString());
      }),
    );
    this.render();
  }

  update(status: StatusParams): void {
    this.statuses.set(status.uri, status);
    this.render();
  }

  setServerProblem(message: string | undefined): void {
    this.serverProblem = message;
    this.render();
  }

  private render(): void {
    const document = vscode.window.activeTextEditor?.document;
    if (document === undefined || !isCheckedDocument(document)) {
      this.item.hide();
      return;
    }
    const status = this.statuses.get(document.uri.toString());
    let presentation: StatusPresentation;
    if (this.serverProblem !== undefined) {
      presentation = presentServerProblem(this.serverProblem);
    } else if (status === undefined) {
      presentation = presentWaiting();
    } else {
      presentation = presentStatus(status);
    }
    this.item.text = presentation.text;
    this.item.tooltip = presentation.tooltip;
    this.item.backgroundColor = presentation.warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    this.item.show();
  }

  dispose(): void {
    for (const s of this.subscriptions) {
      s.dispose();
    }
    this.item.dispose();
  }
}
