// `@muster/mcp/hooks`: what the engines' hooks run, and nothing else: `claudeHook(event, input,
// options)` behind `muster hook claude <event>` (Claude Code runs PreToolUse before every edit),
// and `codexNotify(argv, options)` behind `muster hook codex notify`. An entry of its own so that a
// hook loads neither the MCP SDK nor the configuration editors' parsers (@muster/mcp/engines).
// `claudeGuard(input, options)` is PreToolUse alone, in a module of its own: the CLI's bundle for
// `muster hook claude pre-tool-use` takes it without the other events' code.

export { claudeGuard } from "./_claude-guard.js";
export { claudeHook } from "./_claude-hook.js";
export type { NotifyOptions, NotifyOutcome } from "./_codex-notify.js";
export { codexNotify } from "./_codex-notify.js";
export type { HookAnswer, HookEvent, HookOptions } from "./_hook-answer.js";
