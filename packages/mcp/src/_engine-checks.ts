// What `muster doctor` says of an engine's configuration, as pure checks over the files' text:
// Codex (muster's MCP entry, "thread-id" in the pane title, muster's notify) and Claude Code (the
// MCP entry and muster's hooks). A config muster never touched is "not set up", not a failure; one
// it set up that lost a part fails, with the line or command that fixes it. Paths an entry names
// are checked through the `exists` the caller passes (the install writes absolute paths).
import { parse } from "smol-toml";
import { musterHookWord } from "./_claude-hook-command.js";
import { CLAUDE_HOOKS } from "./_install-claude.js";
import { ENV_VARS } from "./_install-codex.js";

export type EngineCheck = {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string | undefined;
  warn?: boolean | undefined;
  /** Muster is not set up in this file at all (not a failure for doctor; a spawn is refused). */
  notSetUp?: boolean | undefined;
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === "string");
const toml = (values: readonly string[]) =>
  `[${values.map((value) => JSON.stringify(value)).join(", ")}]`;

/** The `[tui]` line that puts the thread id in the pane title, keeping the user's own items. */
export function titleFix(current: unknown): string {
  const items = isStrings(current) && current.length > 0 ? current : ["project"];
  return `[tui] terminal_title = ${toml([...items.filter((item) => item !== "thread-id"), "thread-id"])}`;
}

/** Where an entry's program is missing: the first absent absolute path among command and args. */
function missingPath(command: unknown, args: unknown, exists: (path: string) => boolean) {
  const paths = [command, ...(isStrings(args) ? args : [])].filter(
    (value): value is string => typeof value === "string" && value.startsWith("/"),
  );
  return paths.find((path) => !exists(path));
}

/** Whether muster's entry passes on every setting its server reads (Codex passes on no others). */
function envCheck(file: string, envVars: unknown): EngineCheck {
  const passed = isStrings(envVars) ? envVars : [];
  const lacking = ENV_VARS.filter((name) => !passed.includes(name));
  if (lacking.length === 0)
    return { name: "codex env", ok: true, detail: "muster's server gets every muster setting" };
  return {
    name: "codex env",
    ok: true,
    warn: true,
    detail: `[mcp_servers.muster] in ${file} does not pass on ${lacking.join(", ")}: set for you, Codex's muster server runs without them (another mail mode, or the team folder while you are on NATS)`,
    fix: "muster install codex",
  };
}

/** The checks of one Codex config file (`text` undefined: there is none). */
export function checkCodexConfig(
  file: string,
  text: string | undefined,
  exists: (path: string) => boolean,
): EngineCheck[] {
  const name = "codex config";
  const notSetUp = {
    name,
    ok: true,
    notSetUp: true,
    detail: `${file}: muster is not set up here (muster install codex)`,
  };
  if (text === undefined) return [notSetUp];
  let config: Json;
  try {
    config = parse(text) as Json;
  } catch (error) {
    if (!text.includes("muster")) return [notSetUp];
    return [
      {
        name,
        ok: false,
        detail: `${file} does not parse (${(error as Error).message.split("\n")[0]})`,
        fix: "fix the TOML, then run muster install codex",
      },
    ];
  }
  const servers = isObject(config.mcp_servers) ? config.mcp_servers : {};
  const entry = servers.muster;
  const notify = config.notify;
  const ours = isStrings(notify) && notify.join(" ").includes(" hook codex notify");
  if (!isObject(entry) && !ours && !text.includes(">>> muster")) return [notSetUp];
  const title = isObject(config.tui) ? config.tui.terminal_title : undefined;
  return [
    codexMcpCheck(file, entry, exists),
    ...(isObject(entry) ? [envCheck(file, entry.env_vars)] : []),
    isStrings(title) && title.includes("thread-id")
      ? { name: "codex title", ok: true, detail: `the pane title carries the thread id` }
      : {
          name: "codex title",
          ok: false,
          detail: `${file}: the pane title lacks the thread id, so muster cannot find a Codex thread's pane`,
          fix: titleFix(title),
        },
    notifyCheck(file, ours ? notify : undefined, exists),
  ];
}

/** Whether Codex's muster entry is there and its program too. */
function codexMcpCheck(
  file: string,
  entry: unknown,
  exists: (path: string) => boolean,
): EngineCheck {
  if (!isObject(entry) || typeof entry.command !== "string")
    return {
      name: "codex mcp",
      ok: false,
      detail: `${file} has no [mcp_servers.muster]`,
      fix: "muster install codex",
    };
  const missing = missingPath(entry.command, entry.args, exists);
  const env = isObject(entry.env) ? entry.env : {};
  return missing
    ? {
        name: "codex mcp",
        ok: false,
        detail: `[mcp_servers.muster] in ${file} runs ${missing}, which is not there`,
        fix: "muster install codex (again, after moving Node or muster)",
      }
    : {
        name: "codex mcp",
        ok: true,
        detail: `[mcp_servers.muster] in ${file}; mail ${env.MUSTER_WAKE === "1" ? "wakes idle members" : "waits for team_inbox (muster install codex --wake lets it wake them)"}`,
      };
}

/** Whether Codex's notify runs muster's hook (`ours`: the notify list, when it does). */
function notifyCheck(
  file: string,
  ours: string[] | undefined,
  exists: (path: string) => boolean,
): EngineCheck {
  const yours = ours?.includes("--") ? ours.slice(ours.indexOf("--") + 1) : [];
  // muster's sh program names this muster by absolute path; without it, PATH's muster runs.
  const named =
    ours?.[0] === "sh"
      ? [...(ours[2] ?? "").matchAll(/'(\/[^']+)'/g)].map((match) => match[1]!)
      : [];
  const gone = named.find((path) => !exists(path));
  if (gone)
    return {
      name: "codex notify",
      ok: true,
      warn: true,
      detail: `${file}: muster's notify names ${gone}, which is not there (muster moved or removed): it runs the muster on PATH, else only your own program`,
      fix: "muster install codex (again, after moving Node or muster)",
    };
  if (ours)
    return {
      name: "codex notify",
      ok: true,
      detail: `muster's notify runs after every turn${yours[0] ? `, then yours (${yours[0]})` : ""}`,
    };
  return {
    name: "codex notify",
    ok: true,
    warn: true,
    detail: `${file}: notify does not run muster's hook; only a running MCP server wakes members`,
    fix: "muster install codex",
  };
}

const ourCommand = (hook: unknown, word: string) =>
  isObject(hook) && musterHookWord(hook.command) === word;

/** A JSON object file's value: `{}` for an absent or empty file, "bad" for anything else. */
function readObject(text: string | undefined): Json | "bad" {
  if (text === undefined || text.trim() === "") return {};
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) ? value : "bad";
  } catch {
    return "bad";
  }
}

/** The events of CLAUDE_HOOKS whose muster hook a settings file's `hooks` holds. */
function hookedEvents(hooks: Json): [string, string][] {
  return Object.entries(CLAUDE_HOOKS).filter(([event, word]) =>
    (Array.isArray(hooks[event]) ? hooks[event] : []).some(
      (group: unknown) =>
        isObject(group) &&
        Array.isArray(group.hooks) &&
        group.hooks.some((hook: unknown) => ourCommand(hook, word)),
    ),
  );
}

/** The checks of Claude Code's MCP file and settings file (undefined: the file is absent). */
export function checkClaudeConfig(
  mcp: { file: string; text: string | undefined },
  settings: { file: string; text: string | undefined },
  exists: (path: string) => boolean,
): EngineCheck[] {
  const servers = readObject(mcp.text);
  const config = readObject(settings.text);
  for (const [file, value] of [
    [mcp.file, servers],
    [settings.file, config],
  ] as const)
    if (value === "bad")
      return [
        {
          name: "claude config",
          ok: false,
          detail: `${file} is not a JSON object`,
          fix: "fix the JSON, then run muster install claude",
        },
      ];
  const entry =
    isObject(servers) && isObject(servers.mcpServers) ? servers.mcpServers.muster : undefined;
  const hooks = isObject(config) && isObject(config.hooks) ? config.hooks : {};
  const events = Object.entries(CLAUDE_HOOKS);
  const hooked = hookedEvents(hooks);
  if (entry === undefined && hooked.length === 0)
    return [
      {
        name: "claude config",
        ok: true,
        notSetUp: true,
        detail: `${mcp.file}: muster is not set up here (muster install claude)`,
      },
    ];
  const missing = isObject(entry) ? missingPath(entry.command, entry.args, exists) : undefined;
  const absent = events
    .filter(([event]) => !hooked.some(([done]) => done === event))
    .map(([event]) => event);
  return [
    !isObject(entry)
      ? {
          name: "claude mcp",
          ok: false,
          detail: `${mcp.file} has no mcpServers.muster`,
          fix: "muster install claude",
        }
      : missing
        ? {
            name: "claude mcp",
            ok: false,
            detail: `mcpServers.muster in ${mcp.file} runs ${missing}, which is not there`,
            fix: "muster install claude (again, after moving Node or muster)",
          }
        : { name: "claude mcp", ok: true, detail: `mcpServers.muster in ${mcp.file}` },
    absent.length > 0
      ? {
          name: "claude hooks",
          ok: false,
          detail: `${settings.file} lacks muster's ${absent.join(", ")} hook(s)`,
          fix: "muster install claude",
        }
      : {
          name: "claude hooks",
          ok: true,
          detail: `muster's ${events.length} hooks in ${settings.file}`,
        },
  ];
}
