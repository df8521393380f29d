export type { HookAnswer, HookEvent, HookOptions } from "./claude-hook.js";
export { claudeHook } from "./claude-hook.js";
export type { NotifyOptions, NotifyOutcome } from "./codex-notify.js";
export { codexNotify } from "./codex-notify.js";
export type { EngineCheck } from "./engine-checks.js";
export { checkClaudeConfig, checkCodexConfig, titleFix } from "./engine-checks.js";
export type { JsonEdit } from "./install-claude.js";
export {
  CLAUDE_HOOKS,
  hookCommand,
  installClaudeHooks,
  installClaudeMcp,
  restoreClaude,
  uninstallClaudeHooks,
  uninstallClaudeMcp,
} from "./install-claude.js";
export type { ConfigEdit, ServerCommand } from "./install-codex.js";
export { installCodex, uninstallCodex } from "./install-codex.js";
