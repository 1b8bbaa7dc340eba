/**
 * The parts of the eqlens server's protocol (docs/server.md) that the
 * extension speaks, as plain data. No `vscode` import: the unit tests load
 * this module outside VS Code.
 */

/**
 * Commands the server advertises in `executeCommandProvider`. The language
 * client registers a VS Code command under each of these names (it is how
 * the server's code lenses and code actions run), so the extension's own
 * commands must use other names.
 */
export const ServerCommand = {
  pinBaseline: "eqlens.pinBaseline",
  unpinBaseline: "eqlens.unpinBaseline",
  abstractBlock: "eqlens.abstractBlock",
  refineBlock: "eqlens.refineBlock",
  clearOverrides: "eqlens.clearOverrides",
  recheck: "eqlens.recheck",
  showDetails: "eqlens.showDetails",
} as const;

export type ServerCommandName = (typeof ServerCommand)[keyof typeof ServerCommand];

export const SERVER_COMMANDS: readonly string[] = Object.values(ServerCommand);

/** Request `{uri}` → {@link BaselineResponse}. */
export const BASELINE_REQUEST = "eqlens/baseline";

/** Notification carrying {@link StatusParams}, after each change of a document's results. */
export const STATUS_NOTIFICATION = "eqlens/status";

/** URI scheme of the virtual baseline documents the server's related information points at. */
export const BASELINE_SCHEME = "eqlens-baseline";

export type CheckState = "checking" | "done" | "idle";

/** `eqlens/status` params: one document's state and verdict counts. */
export interface StatusParams {
  uri: string;
  version: number;
  state: CheckState;
  /** Label of the baseline (`HEAD`, `pinned`, a partner file name), if there is one. */
  baseline: string | null;
  /** Why nothing is checked, or what went wrong reading the baseline. */
  note: string | null;
  changed: number;
  equivalent: number;
  notEquivalent: number;
  unknown: number;
  pending: number;
}

/** `eqlens/baseline` result: the text, or `null` and a reason. */
export interface BaselineResponse {
  text: string | null;
  label: string | null;
  reason: string | null;
}

/** Arguments naming one method of one document (`eqlens.showDetails` and friends). */
export interface MethodArgs {
  uri: string;
  method: string;
  arity: number;
}

/** `eqlens.showDetails` result. */
export interface DetailsResponse {
  markdown: string;
  report: unknown;
}
