// `muster install claude`: muster's entries in Claude Code's JSON files, as pure edits that leave
// every other byte where it was (`_json-edit.ts`). The MCP file (`.mcp.json`, or `.claude.json`
// for the user) gets `mcpServers.muster`; the settings file gets one hook group per event whose
// command is muster's, and `mcp__muster` in `permissions.allow` (muster's tools run without a
// prompt). muster's entries are found by what they are (a hook whose command ends in
// `hook claude <event>`, the server named muster that runs `… mcp`), wherever they sit; uninstall
// removes those and the containers muster made (those the file `before` the install lacked).
import { GUARD_FALLBACK, hookCommand, musterHookWord, quote } from "./_claude-hook-command.js";
import { CLAUDE_EDIT_MATCHER } from "./_claude-leases.js";
import type { ServerCommand } from "./_install-codex.js";
import { isObject, type Json, parseJsonObject, removeJson, setJson } from "./_json-edit.js";

export type JsonEdit =
  /** `text` undefined: the file should not exist (muster made it, and only muster's was in it). */
  | { ok: true; text: string | undefined; changed: boolean; changes: string[] }
  | { ok: false; reason: "bad-config" | "own-entry"; error: string };

/** The file as it was before muster's first install (`text` undefined: there was none). */
export type Before = { text: string | undefined };

/** The events muster hooks, with the `muster hook claude` word for each. */
export const CLAUDE_HOOKS = {
  SessionStart: "session-start",
  UserPromptSubmit: "user-prompt-submit",
  Stop: "stop",
  SessionEnd: "session-end",
  FileChanged: "file-changed",
  Notification: "notification",
  PreToolUse: "pre-tool-use",
  PermissionRequest: "permission-request",
} as const;

type HookEventName = keyof typeof CLAUDE_HOOKS;

/** Why muster hooks each event, as `install` says it. */
const WHY: Record<HookEventName, string> = {
  SessionStart: "joins the team and watches the session's mailbox",
  UserPromptSubmit: "hands new team mail to the model with the prompt",
  Stop: "lets mail that came during the turn continue it",
  SessionEnd: "leaves the team",
  FileChanged: "wakes an idle session when mail arrives",
  Notification:
    "marks the session idle (idle_prompt), waking it when mail waits, or waiting for you (permission_prompt)",
  PreToolUse:
    "refuses an edit of a path another member leased, and every edit while muster cannot run",
  PermissionRequest: "marks the session waiting for you the moment a permission dialog opens",
};

/** The hook groups that only some occurrences of their event run: the matcher for each. */
const MATCHERS: Partial<Record<HookEventName, string>> = {
  // Only the file-changing tools ask the lease check: every other tool call runs no hook.
  PreToolUse: CLAUDE_EDIT_MATCHER,
  // "Waiting for your input" says the session is idle, a permission dialog that it waits for the
  // person; other notifications run nothing.
  Notification: "idle_prompt|permission_prompt",
};

/** The permission rule that lets every tool of muster's server run without asking. */
export const CLAUDE_TOOLS_RULE = "mcp__muster";

const isOurs = (hook: unknown) => isObject(hook) && musterHookWord(hook.command) !== undefined;

const isOurServer = (entry: unknown) =>
  isObject(entry) && Array.isArray(entry.args) && entry.args.at(-1) === "mcp";

type Refused = Extract<JsonEdit, { ok: false }>;

function read(text: string | undefined, what: string): Json | Refused {
  const value = parseJsonObject(text);
  return (
    value ?? {
      ok: false,
      reason: "bad-config",
      error: `${what} is not a JSON object; fix it first`,
    }
  );
}
const failed = (value: Json | Refused): value is Refused => value.ok === false;

const done = (original: string | undefined, text: string | undefined, changes: string[]) =>
  ({ ok: true, text, changed: text !== original, changes }) as const;

/** The entry Claude Code starts muster's server from. */
const serverEntry = (server: ServerCommand) => ({
  type: "stdio",
  command: server.command,
  args: server.args,
  env: server.env ?? {},
});

/** Add (or refresh) `mcpServers.muster`. */
export function installClaudeMcp(original: string | undefined, server: ServerCommand): JsonEdit {
  const config = read(original, "the Claude Code MCP file");
  if (failed(config)) return config;
  if ("mcpServers" in config && !isObject(config.mcpServers))
    return { ok: false, reason: "bad-config", error: "mcpServers is not an object; fix it first" };
  const existing = isObject(config.mcpServers) ? config.mcpServers.muster : undefined;
  if (existing !== undefined && !isOurServer(existing))
    return {
      ok: false,
      reason: "own-entry",
      error:
        "the Claude Code MCP file has its own mcpServers.muster; remove it, then install again",
    };
  const entry = serverEntry(server);
  if (JSON.stringify(existing) === JSON.stringify(entry)) return done(original, original, []);
  const text = setJson(original, ["mcpServers", "muster"], entry);
  const command = [server.command, ...server.args].map(quote).join(" ");
  return done(original, text, [
    `mcpServers.muster: Claude Code starts muster's MCP server (${command}), the team's tools`,
  ]);
}

/** Remove `mcpServers.muster`, and `mcpServers` when muster made it. */
export function uninstallClaudeMcp(original: string | undefined, before?: Before): JsonEdit {
  const config = read(original, "the Claude Code MCP file");
  if (failed(config)) return config;
  if (original === undefined || !isObject(config.mcpServers) || !("muster" in config.mcpServers))
    return done(original, original, []);
  let text = removeJson(original, ["mcpServers", "muster"]);
  const had = parseJsonObject(before?.text) ?? {};
  if (Object.keys(config.mcpServers).length === 1 && !("mcpServers" in had))
    text = removeJson(text, ["mcpServers"]);
  return done(original, emptied(text, before), ["mcpServers.muster"]);
}

/** A file muster made, left as `{}`, goes away again. */
function emptied(text: string, before: Before | undefined) {
  const value = parseJsonObject(text);
  return before && before.text === undefined && value && Object.keys(value).length === 0
    ? undefined
    : text;
}

/** muster's hook group for one event. */
function hookGroup(server: ServerCommand, event: HookEventName) {
  const command = hookCommand(server, CLAUDE_HOOKS[event]);
  const hook: Json = {
    type: "command",
    command: event === "PreToolUse" ? command + GUARD_FALLBACK : command,
  };
  hook.timeout = 10;
  // An idle session is woken by the mailbox changing, or by mail waiting when Claude Code says
  // it is idle: exit 2 starts a turn with the mail.
  if (event === "FileChanged" || event === "Notification")
    Object.assign(hook, { asyncRewake: true, rewakeMessage: "Team mail" });
  const matcher = MATCHERS[event];
  return matcher ? { matcher, hooks: [hook] } : { hooks: [hook] };
}

/** Where muster's hooks are: [event, group index, hook index | "group"] (the group when all ours). */
function ourHooks(settings: Json): [string, number, number | "group"][] {
  const found: [string, number, number | "group"][] = [];
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, index) => {
      if (!isObject(group) || !Array.isArray(group.hooks)) return;
      const list = group.hooks as unknown[];
      if (list.length > 0 && list.every(isOurs)) found.push([event, index, "group"]);
      else
        for (const [at, hook] of list.entries()) if (isOurs(hook)) found.push([event, index, at]);
    });
  }
  return found;
}

/** Add muster's hook group to each event, after the user's own, and approve muster's tools. */
export function installClaudeHooks(original: string | undefined, server: ServerCommand): JsonEdit {
  const settings = read(original, "the Claude Code settings file");
  if (failed(settings)) return settings;
  const events = Object.keys(CLAUDE_HOOKS) as HookEventName[];
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const odd = shapeError(settings, events);
  if (odd) return { ok: false, reason: "bad-config", error: `${odd}; fix it first` };
  const current = ourHooks(settings);
  const wanted = (event: string, index: number) =>
    JSON.stringify((hooks[event] as unknown[])[index]) ===
    JSON.stringify(hookGroup(server, event as HookEventName));
  const inPlace =
    current.length === events.length &&
    events.every((event) =>
      current.some(([at, index, which]) => at === event && which === "group" && wanted(at, index)),
    );
  const allow = isObject(settings.permissions) ? settings.permissions.allow : undefined;
  const approved = Array.isArray(allow) && allow.includes(CLAUDE_TOOLS_RULE);
  if (inPlace && approved) return done(original, original, []);
  let text = original;
  const changes: string[] = [];
  if (!inPlace) {
    // A stale or partial set (an older muster, a moved install) is taken out, then laid anew.
    text = removeHooks(text ?? "", current);
    for (const event of events) {
      text = setJson(text, ["hooks", event], hookGroup(server, event), true);
      const matcher = MATCHERS[event];
      changes.push(`hooks.${event}${matcher ? ` (${matcher})` : ""}: ${WHY[event]}`);
    }
  }
  if (!approved) {
    text = setJson(text, ["permissions", "allow"], CLAUDE_TOOLS_RULE, true);
    changes.push(
      `permissions.allow "${CLAUDE_TOOLS_RULE}": muster's tools run without asking you each time`,
    );
  }
  return done(original, text, changes);
}

/** What in the settings muster cannot add to without replacing the user's own value. */
function shapeError(settings: Json, events: readonly string[]): string | undefined {
  if ("hooks" in settings && !isObject(settings.hooks)) return "hooks is not an object";
  const hooks = isObject(settings.hooks) ? settings.hooks : {};
  const odd = events.find((event) => event in hooks && !Array.isArray(hooks[event]));
  if (odd) return `hooks.${odd} is not a list`;
  if ("permissions" in settings && !isObject(settings.permissions))
    return "permissions is not an object";
  const permissions = isObject(settings.permissions) ? settings.permissions : {};
  if ("allow" in permissions && !Array.isArray(permissions.allow))
    return "permissions.allow is not a list";
  return undefined;
}

/** Remove the hooks `ourHooks` found, last first so each index still holds. */
function removeHooks(text: string, found: [string, number, number | "group"][]): string {
  for (const [event, index, which] of [...found].reverse())
    text = removeJson(
      text,
      which === "group" ? ["hooks", event, index] : ["hooks", event, index, "hooks", which],
    );
  return text;
}

/** Remove muster's hooks and permission rule, and the containers muster made for them. */
export function uninstallClaudeHooks(original: string | undefined, before?: Before): JsonEdit {
  const settings = read(original, "the Claude Code settings file");
  if (failed(settings)) return settings;
  if (original === undefined) return done(original, original, []);
  const had = parseJsonObject(before?.text) ?? {};
  const hadHooks = isObject(had.hooks) ? had.hooks : undefined;
  const found = ourHooks(settings);
  let text = removeHooks(original, found);
  const changes = found.length > 0 ? [`muster's ${found.length} hook group(s)`] : [];
  const after = read(text, "the Claude Code settings file") as Json;
  const hooks = isObject(after.hooks) ? after.hooks : {};
  for (const event of new Set(found.map(([event]) => event)))
    if (
      Array.isArray(hooks[event]) &&
      hooks[event].length === 0 &&
      !(hadHooks && event in hadHooks)
    )
      text = removeJson(text, ["hooks", event]);
  if (found.length > 0 && !hadHooks) {
    const left = read(text, "the Claude Code settings file") as Json;
    if (isObject(left.hooks) && Object.keys(left.hooks).length === 0)
      text = removeJson(text, ["hooks"]);
  }
  text = removeRule(text, had, changes);
  return done(original, emptied(text, before), changes);
}

/** Take `mcp__muster` out of `permissions.allow`, and what muster made for it. */
function removeRule(text: string, had: Json, changes: string[]): string {
  const settings = read(text, "the Claude Code settings file") as Json;
  const permissions = isObject(settings.permissions) ? settings.permissions : {};
  const allow = Array.isArray(permissions.allow) ? permissions.allow : [];
  const at = allow.lastIndexOf(CLAUDE_TOOLS_RULE);
  if (at < 0) return text;
  const hadPermissions = isObject(had.permissions) ? had.permissions : undefined;
  const hadAllow = Array.isArray(hadPermissions?.allow) ? hadPermissions.allow : undefined;
  if (hadAllow?.includes(CLAUDE_TOOLS_RULE)) return text; // the user's own rule
  changes.push(`permissions.allow "${CLAUDE_TOOLS_RULE}"`);
  if (allow.length > 1 || hadAllow) return removeJson(text, ["permissions", "allow", at]);
  if (Object.keys(permissions).length > 1 || hadPermissions)
    return removeJson(text, ["permissions", "allow"]);
  return removeJson(text, ["permissions"]);
}
