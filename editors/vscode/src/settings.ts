/**
 * Which VS Code settings the server receives, and in what shape. Pure: the
 * caller passes a reader over `workspace.getConfiguration("eqlens")`.
 */

/**
 * The server's settings (docs/server.md, "Settings"), contributed as
 * `eqlens.<key>`. The server rejects unknown keys, so client-only settings
 * such as `eqlens.server.path` must never be forwarded.
 */
export const SERVER_SETTING_KEYS = [
  "baseline",
  "gitRef",
  "semantics",
  "checker",
  "timeoutMs",
  "loopBound",
  "lens",
  "debounceMs",
  "maxFileBytes",
  "persistPins",
] as const;

export type ServerSettingKey = (typeof SERVER_SETTING_KEYS)[number];

export type ServerSettings = Partial<Record<ServerSettingKey, unknown>>;

/**
 * The object sent as `initializationOptions` and as the `settings` of
 * `workspace/didChangeConfiguration`. Every key is sent, defaults included:
 * the server keeps a setting's previous value when the key is absent, so a
 * setting the user removes must arrive as its default to take effect.
 */
export function serverSettings(read: (key: ServerSettingKey) => unknown): ServerSettings {
  const settings: ServerSettings = {};
  for (const key of SERVER_SETTING_KEYS) {
    const value = read(key);
    if (value !== undefined && value !== null) {
      settings[key] = value;
    }
  }
  return settings;
}

/**
 * The settings for a workspace the user does or does not trust. In an
 * untrusted one the server runs no git at all (`runGit: false`,
 * docs/server.md "Untrusted workspaces"): a repository's own configuration
 * can name programs that git would run. `runGit` is not a VS Code setting,
 * so that no workspace file can turn it back on; it is always sent, and
 * sent again when trust is granted.
 */
export function withWorkspaceTrust(settings: ServerSettings, trusted: boolean): ServerSettings & { runGit: boolean } {
  return { ...settings, runGit: trusted };
}

/** What a configuration change asks of the client. */
export type ConfigurationReaction = "restart" | "forward" | "none";

/**
 * A change of the server path needs a new server process; any other eqlens
 * setting is forwarded to the running one.
 */
export function reactionToConfigurationChange(affects: (section: string) => boolean): ConfigurationReaction {
  if (affects("eqlens.server")) {
    return "restart";
  }
  return SERVER_SETTING_KEYS.some((key) => affects(`eqlens.${key}`)) ? "forward" : "none";
}
