/**
 * Where the `eqlens` binary is: the `eqlens.server.path` setting, else a
 * binary bundled with the extension (`server/eqlens`), else `eqlens` on
 * PATH. Pure: file-system checks are injected so the order and the error
 * messages can be unit-tested.
 */
import * as path from "node:path";

export interface ServerPathInputs {
  /** `eqlens.server.path`; empty or unset means "find it". */
  configured: string | undefined;
  /** The extension's install directory. */
  extensionDir: string;
  /** The first workspace folder, for a relative `eqlens.server.path`. */
  workspaceDir: string | undefined;
  homeDir: string;
  pathEnv: string | undefined;
  platform: NodeJS.Platform;
  isExecutableFile: (file: string) => boolean;
}

export type ServerPathSource = "setting" | "bundled" | "PATH";

export type ServerPathResolution =
  | { ok: true; path: string; source: ServerPathSource }
  | { ok: false; message: string };

function executableName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "eqlens.exe" : "eqlens";
}

/** Resolves `~` and a workspace-relative path; absolute paths stay as they are. */
export function expandConfiguredPath(configured: string, inputs: Pick<ServerPathInputs, "workspaceDir" | "homeDir">): string {
  if (configured === "~" || configured.startsWith("~/")) {
    return path.join(inputs.homeDir, configured.slice(1));
  }
  if (path.isAbsolute(configured)) {
    return configured;
  }
  return path.resolve(inputs.workspaceDir ?? inputs.homeDir, configured);
}

export function resolveServerPath(inputs: ServerPathInputs): ServerPathResolution {
  const configured = inputs.configured?.trim();
  if (configured) {
    const file = expandConfiguredPath(configured, inputs);
    // A configured path that does not work is an error, not a reason to fall
    // back: the user asked for that binary and would otherwise silently run
    // another one.
    return inputs.isExecutableFile(file)
      ? { ok: true, path: file, source: "setting" }
      : { ok: false, message: `eqlens.server.path is set to "${configured}", but ${file} is not an executable file.` };
  }
  const name = executableName(inputs.platform);
  const bundled = path.join(inputs.extensionDir, "server", name);
  if (inputs.isExecutableFile(bundled)) {
    return { ok: true, path: bundled, source: "bundled" };
  }
  const separator = inputs.platform === "win32" ? ";" : ":";
  for (const dir of (inputs.pathEnv ?? "").split(separator)) {
    if (dir === "") {
      continue;
    }
    const candidate = path.join(dir, name);
    if (inputs.isExecutableFile(candidate)) {
      return { ok: true, path: candidate, source: "PATH" };
    }
  }
  return {
    ok: false,
    message:
      `Cannot find the eqlens server: eqlens.server.path is not set, there is no ${bundled}, ` +
      `and no ${name} on PATH. Build it with "cargo build --release" and set eqlens.server.path to target/release/${name}.`,
  };
}
