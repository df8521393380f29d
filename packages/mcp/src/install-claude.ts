// `muster install claude`: muster's entries in Claude Code's JSON files, as pure edits. The MCP
// file (`.mcp.json`, or `.claude.json` for the user) gets `mcpServers.muster`; the settings file
// gets one hook group per event whose command is muster's. JSON holds no comments, so the caller
// keeps the file's original bytes beside it and `restoreClaude` writes them back when nothing but
// muster's entries changed since; otherwise it removes only muster's entries.
import { CLAUDE_EDIT_MATCHER } from "./claude-leases.js";
import type { ServerCommand } from "./install-codex.js";

export type JsonEdit =
  | { ok: true; text: string | undefined; changed: boolean }
  | { ok: false; reason: "bad-config" | "own-entry"; error: string };

/** The events muster hooks, with the `muster hook claude` word for each. */
export const CLAUDE_HOOKS = {
  SessionStart: "session-start",
  UserPromptSubmit: "user-prompt-submit",
  Stop: "stop",
  SessionEnd: "session-end",
  FileChanged: "file-changed",
  Notification: "notification",
  PreToolUse: "pre-tool-use",
} as const;

/** The hook groups that only some occurrences of their event run: the matcher for each. */
const MATCHERS: Partial<Record<keyof typeof CLAUDE_HOOKS, string>> = {
  // Only the file-changing tools ask the lease check: every other tool call runs no hook.
  PreToolUse: CLAUDE_EDIT_MATCHER,
  // Only "waiting for your input" says the session is idle; other notifications run nothing.
  Notification: "idle_prompt",
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseObject(text: string | undefined, what: string): { ok: true; value: Json } | JsonEdit {
  if (text === undefined || text.trim() === "") return { ok: true, value: {} };
  try {
    const value = JSON.parse(text) as unknown;
    if (isObject(value)) return { ok: true, value };
  } catch {
    // reported below
  }
  return { ok: false, reason: "bad-config", error: `${what} is not a JSON object; fix it first` };
}

const render = (value: Json) => `${JSON.stringify(value, null, 2)}\n`;
const quote = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

/** The shell command a hook runs: muster's own command line, then `hook claude <event>`. */
export const hookCommand = (server: ServerCommand, word: string) =>
  [server.command, ...server.args.filter((arg) => arg !== "mcp"), "hook", "claude", word]
    .map(quote)
    .join(" ");

const isOurs = (hook: unknown) =>
  isObject(hook) && typeof hook.command === "string" && / hook claude [a-z-]+$/.test(hook.command);

/** Add (or refresh) `mcpServers.muster`. */
export function installClaudeMcp(original: string | undefined, server: ServerCommand): JsonEdit {
  const parsed = parseObject(original, "the Claude Code MCP file");
  if (!("value" in parsed)) return parsed;
  const config = parsed.value;
  const servers = isObject(config.mcpServers) ? config.mcpServers : {};
  const entry = {
    type: "stdio",
    command: server.command,
    args: server.args,
    env: server.env ?? {},
  };
  const existing = servers.muster;
  const ours = isObject(existing) && Array.isArray(existing.args) && existing.args.at(-1) === "mcp";
  if (existing !== undefined && !ours)
    return {
      ok: false,
      reason: "own-entry",
      error:
        "the Claude Code MCP file has its own mcpServers.muster; remove it, then install again",
    };
  const text = render({ ...config, mcpServers: { ...servers, muster: entry } });
  return { ok: true, text, changed: text !== original };
}

/** Remove `mcpServers.muster` (and `mcpServers` when muster's was the only entry). */
export function uninstallClaudeMcp(original: string | undefined): JsonEdit {
  const parsed = parseObject(original, "the Claude Code MCP file");
  if (!("value" in parsed)) return parsed;
  const config = { ...parsed.value };
  if (!isObject(config.mcpServers) || !("muster" in config.mcpServers))
    return { ok: true, text: original, changed: false };
  const { muster: _removed, ...rest } = config.mcpServers;
  if (Object.keys(rest).length === 0) delete config.mcpServers;
  else config.mcpServers = rest;
  return { ok: true, text: render(config), changed: true };
}

/** Add muster's hook group to each event, after the user's own; refresh it if present. */
export function installClaudeHooks(original: string | undefined, server: ServerCommand): JsonEdit {
  const stripped = uninstallClaudeHooks(original);
  if (!stripped.ok) return stripped;
  const parsed = parseObject(stripped.text, "the Claude Code settings file");
  if (!("value" in parsed)) return parsed;
  const settings = parsed.value;
  const hooks = isObject(settings.hooks) ? { ...settings.hooks } : {};
  for (const [event, word] of Object.entries(CLAUDE_HOOKS)) {
    const groups = Array.isArray(hooks[event]) ? [...(hooks[event] as unknown[])] : [];
    const hook: Json = { type: "command", command: hookCommand(server, word), timeout: 10 };
    // An idle session is woken by the mailbox changing, or by mail waiting when Claude Code says
    // it is idle: exit 2 starts a turn with the mail.
    if (event === "FileChanged" || event === "Notification")
      Object.assign(hook, { asyncRewake: true, rewakeMessage: "Team mail" });
    const matcher = MATCHERS[event as keyof typeof CLAUDE_HOOKS];
    groups.push(matcher ? { matcher, hooks: [hook] } : { hooks: [hook] });
    hooks[event] = groups;
  }
  const text = render({ ...settings, hooks });
  return { ok: true, text, changed: text !== original };
}

/** Remove muster's hook groups, and what they leave empty. */
export function uninstallClaudeHooks(original: string | undefined): JsonEdit {
  const parsed = parseObject(original, "the Claude Code settings file");
  if (!("value" in parsed)) return parsed;
  const settings = { ...parsed.value };
  if (!isObject(settings.hooks)) return { ok: true, text: original, changed: false };
  const hooks: Json = {};
  let changed = false;
  for (const [event, value] of Object.entries(settings.hooks)) {
    if (!Array.isArray(value)) {
      hooks[event] = value;
      continue;
    }
    const groups = value.filter(
      (group) =>
        !(
          isObject(group) &&
          Array.isArray(group.hooks) &&
          group.hooks.length > 0 &&
          group.hooks.every(isOurs)
        ),
    );
    if (groups.length !== value.length) changed = true;
    if (groups.length > 0) hooks[event] = groups;
  }
  if (!changed) return { ok: true, text: original, changed: false };
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  else settings.hooks = hooks;
  return { ok: true, text: render(settings), changed: true };
}

/**
 * After an uninstall: the original bytes when the file now says exactly what they said (nothing
 * but muster's entries changed since the install), else the uninstalled text as it is.
 */
export function restoreClaude(
  uninstalled: string | undefined,
  original: string | undefined | null,
): string | undefined {
  if (original === null) return uninstalled; // no record of the original
  const same = (left: string | undefined, right: string | undefined) => {
    const parse = (text: string | undefined) =>
      text === undefined || text.trim() === "" ? {} : JSON.parse(text);
    try {
      return JSON.stringify(sortKeys(parse(left))) === JSON.stringify(sortKeys(parse(right)));
    } catch {
      return false;
    }
  };
  return same(uninstalled, original) ? original : uninstalled;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}
