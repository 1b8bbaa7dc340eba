/**
 * The extension's own commands (contributed in package.json). Their names
 * differ from the server's (`SERVER_COMMANDS`), which the language client
 * registers itself; a clash would make activation fail. Pure, so the unit
 * tests can compare it with package.json.
 */
export const ExtensionCommand = {
  checkNow: "eqlens.checkNow",
  pinThisFile: "eqlens.pinThisFile",
  unpinThisFile: "eqlens.unpinThisFile",
  compareWithBaseline: "eqlens.compareWithBaseline",
  abstractSelection: "eqlens.abstractSelection",
  refineSelection: "eqlens.refineSelection",
  clearOverridesOfFile: "eqlens.clearOverridesOfFile",
  recheckWithLargerLoopBound: "eqlens.recheckWithLargerLoopBound",
  showMethodDetails: "eqlens.showMethodDetails",
  restartServer: "eqlens.restartServer",
} as const;

export type ExtensionCommandName = (typeof ExtensionCommand)[keyof typeof ExtensionCommand];

export const EXTENSION_COMMANDS: readonly string[] = Object.values(ExtensionCommand);
