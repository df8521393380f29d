export { hookCommand } from "./_claude-hook-command.js";
export { notifyProgram } from "./_codex-values.js";
export type { EngineCheck } from "./_engine-checks.js";
export { checkClaudeConfig, checkCodexConfig, titleFix } from "./_engine-checks.js";
export type { Before, JsonEdit } from "./_install-claude.js";
export {
  CLAUDE_HOOKS,
  CLAUDE_TOOLS_RULE,
  installClaudeHooks,
  installClaudeMcp,
  uninstallClaudeHooks,
  uninstallClaudeMcp,
} from "./_install-claude.js";
export type { ConfigEdit, ServerCommand } from "./_install-codex.js";
export { installCodex } from "./_install-codex.js";
export type { PiFiles } from "./_pi-check.js";
export { checkPi, musterPiSources, PI_PACKAGE } from "./_pi-check.js";
export { uninstallCodex } from "./_uninstall-codex.js";
