export type { HookAnswer, HookEvent, HookOptions } from "./_claude-hook.js";
export { claudeHook } from "./_claude-hook.js";
export type { NotifyOptions, NotifyOutcome } from "./_codex-notify.js";
export { codexNotify } from "./_codex-notify.js";
export type { EngineCheck } from "./_engine-checks.js";
export { checkClaudeConfig, checkCodexConfig, titleFix } from "./_engine-checks.js";
export type { JsonEdit } from "./_install-claude.js";
export {
  CLAUDE_HOOKS,
  hookCommand,
  installClaudeHooks,
  installClaudeMcp,
  restoreClaude,
  uninstallClaudeHooks,
  uninstallClaudeMcp,
} from "./_install-claude.js";
export type { ConfigEdit, ServerCommand } from "./_install-codex.js";
export { installCodex, uninstallCodex } from "./_install-codex.js";
