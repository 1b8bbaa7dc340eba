/**
 * Picking the server's own commands out of its code actions and code
 * lenses. The server decides which method encloses a selection and what
 * its arguments are; the extension's commands only choose among what it
 * offers, so that logic lives in one place. Pure, structural types.
 */
import type { MethodArgs, ServerCommandName } from "./protocol";
import { ServerCommand } from "./protocol";

/** The shape of an LSP `Command`. */
export interface WireCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}

/** An LSP code action (with a command) or a bare command, as `textDocument/codeAction` may return either. */
export type WireAction = WireCommand | { title: string; command?: WireCommand };

export interface WireLens {
  range: { start: { line: number; character: number } };
  command?: WireCommand;
}

function commandOf(action: WireAction): WireCommand | undefined {
  const c = action.command;
  if (c === undefined) {
    return undefined;
  }
  return typeof c === "string" ? (action as WireCommand) : c;
}

/** The first offered command named `name`, with its arguments, if any. */
export function findServerCommand(actions: readonly WireAction[] | null | undefined, name: ServerCommandName): WireCommand | undefined {
  for (const action of actions ?? []) {
    const command = commandOf(action);
    if (command?.command === name) {
      return command;
    }
  }
  return undefined;
}

/**
 * `value` as a method's arguments, if it is one. A command runs with
 * whatever its caller passes: a lens passes `{uri, method, arity}`, the
 * editor's context menu passes the document's `Uri`, the palette nothing.
 */
export function asMethodArgs(value: unknown): MethodArgs | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const v = value as Record<string, unknown>;
  return typeof v.uri === "string" && typeof v.method === "string" && typeof v.arity === "number"
    ? { uri: v.uri, method: v.method, arity: v.arity }
    : undefined;
}

/** The method (uri, name, arity) a command's first argument names, if it names one. */
export function methodOfCommand(command: WireCommand | undefined): MethodArgs | undefined {
  return asMethodArgs(command?.arguments?.[0]);
}

export interface CheckedMethod {
  args: MethodArgs;
  /** The lens title: the verdict, e.g. `≢ not equivalent · a = 11`. */
  verdict: string;
  /** Zero-based line of the method's declaration. */
  line: number;
}

/** The changed methods of a document, from its code lenses (each runs `eqlens.showDetails` on its method). */
export function checkedMethods(lenses: readonly WireLens[] | null | undefined): CheckedMethod[] {
  const methods: CheckedMethod[] = [];
  for (const lens of lenses ?? []) {
    if (lens.command?.command !== ServerCommand.showDetails) {
      continue;
    }
    const args = methodOfCommand(lens.command);
    if (args) {
      methods.push({ args, verdict: lens.command.title, line: lens.range.start.line });
    }
  }
  return methods.sort((a, b) => a.line - b.line);
}
