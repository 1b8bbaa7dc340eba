/**
 * The status bar item's text and tooltip for one document, from the
 * server's latest `eqlens/status`. Pure, so the wording is unit-tested.
 */
import type { StatusParams } from "./protocol";

export interface StatusPresentation {
  /** Status bar text; may contain `$(icon)` codicons. */
  text: string;
  tooltip: string;
  /** Drawn with the warning background: some method is not equivalent. */
  warning: boolean;
}

const CLICK_HINT = "Click to compare with the baseline.";

/** `≡ 4  ≢ 1  ? 0`: equivalent, not equivalent, unknown (two spaces between, to read at a glance). */
export function verdictCounts(status: Pick<StatusParams, "equivalent" | "notEquivalent" | "unknown">): string {
  return `≡ ${String(status.equivalent)}  ≢ ${String(status.notEquivalent)}  ? ${String(status.unknown)}`;
}

function plural(n: number, one: string, many: string): string {
  return `${String(n)} ${n === 1 ? one : many}`;
}

function summaryLine(status: StatusParams): string {
  if (status.changed === 0) {
    return "No method differs from the baseline.";
  }
  const parts = [
    `${String(status.equivalent)} equivalent`,
    `${String(status.notEquivalent)} not equivalent`,
    `${String(status.unknown)} unknown`,
  ];
  if (status.pending > 0) {
    parts.push(`${String(status.pending)} being checked`);
  }
  return `${plural(status.changed, "changed method", "changed methods")}: ${parts.join(", ")}.`;
}

export function presentStatus(status: StatusParams): StatusPresentation {
  const baselineLine = status.baseline ? `eqlens: compared with ${status.baseline}` : "eqlens: no baseline";
  const lines = [baselineLine];
  if (status.state !== "idle") {
    lines.push(summaryLine(status));
  }
  if (status.note) {
    lines.push(status.note);
  }
  lines.push(CLICK_HINT);
  const tooltip = lines.join("\n");
  switch (status.state) {
    case "idle":
      return { text: "$(circle-slash) eqlens", tooltip, warning: false };
    case "checking":
      return {
        text: `$(sync~spin) ${verdictCounts(status)}${status.pending > 0 ? `  … ${String(status.pending)}` : ""}`,
        tooltip,
        warning: status.notEquivalent > 0,
      };
    case "done":
      return {
        text: status.changed === 0 ? "≡ no changes" : verdictCounts(status),
        tooltip,
        warning: status.notEquivalent > 0,
      };
  }
}

/** Before the first status for a document arrives (the server is starting or the document was just opened). */
export function presentWaiting(): StatusPresentation {
  return { text: "$(sync~spin) eqlens", tooltip: "eqlens: waiting for the server", warning: false };
}

/** The server could not be started or has stopped. */
export function presentServerProblem(message: string): StatusPresentation {
  return { text: "$(error) eqlens", tooltip: `eqlens: ${message}\nSee Output › eqlens.`, warning: true };
}
