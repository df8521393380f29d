// `muster install codex`: muster's lines in a Codex config.toml, as a pure edit of its text. The
// user's content and comments stay as they are: muster appends one delimited block (its MCP server,
// and `[tui]` when the file has none) and, where the user's own `[tui] terminal_title` lacks
// "thread-id", keeps the user's line as a `# muster-was:` comment above its own. A TOML parser
// (smol-toml) reads the file before and checks the result after; nothing is written it disagrees
// with. `--uninstall` undoes exactly these edits, so the file comes back byte for byte.
import { parse } from "smol-toml";

/** How the engine starts the server. */
export type ServerCommand = { command: string; args: string[]; env?: Record<string, string> };

export type ConfigEdit =
  /** `text` undefined: the file should not exist (muster created it and nothing else is in it). */
  | { ok: true; text: string | undefined; changed: boolean; notes: string[] }
  | { ok: false; reason: "bad-config" | "own-entry" | "hand-edit"; error: string };

const BEGIN =
  "# >>> muster: added by `muster install codex`; `muster install codex --uninstall` removes it";
const END = "# <<< muster";
const WAS = "# muster-was: ";
const ADDED = " # muster-added";
const CREATED = " [created]";
const NEWLINE = " [newline]";
const TITLE = ["project", "thread-id"];
/** Passed through to the server when set: the tmux server, the team folder, the label. */
export const ENV_VARS = [
  "TMUX",
  "MUSTER_TEAM_DIR",
  "MUSTER_HOME",
  "XDG_STATE_HOME",
  "MUSTER_LABEL",
];

const toml = (value: string) => JSON.stringify(value);
const tomlArray = (values: readonly string[]) => `[${values.map(toml).join(", ")}]`;

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

function parseToml(text: string): Parsed {
  try {
    return { ok: true, value: parse(text) as Record<string, unknown> };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split("\n")[0] ?? "does not parse" };
  }
}

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Undo muster's edits; text that holds none comes back unchanged. */
export function uninstallCodex(text: string | undefined): ConfigEdit {
  if (text === undefined) return { ok: true, text: undefined, changed: false, notes: [] };
  let result = text;
  let created = false;
  const begin = text.startsWith(BEGIN) ? 0 : text.indexOf(`\n${BEGIN}`) + 1;
  const end = begin > 0 || text.startsWith(BEGIN) ? text.indexOf(`\n${END}`, begin) : -1;
  if (end >= 0) {
    const flags = text.slice(begin + BEGIN.length, text.indexOf("\n", begin));
    created = flags.includes(CREATED);
    let stop = end + 1 + END.length;
    if (text[stop] === "\n") stop += 1;
    // What install put before the block: a blank line, and the final newline the file lacked.
    const separator = flags.includes(NEWLINE) ? "\n\n" : "\n";
    let before = text.slice(0, begin);
    if (before !== "" && before.endsWith(separator)) before = before.slice(0, -separator.length);
    result = before + text.slice(stop);
  }
  const lines = result.split("\n");
  const restored: string[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.startsWith(WAS) && lines[index + 1]?.endsWith(ADDED)) {
      restored.push(line.slice(WAS.length));
      index += 1;
    } else if (!line.endsWith(ADDED)) restored.push(line);
  }
  result = restored.join("\n");
  return {
    ok: true,
    text: created && result === "" ? undefined : result,
    changed: result !== text,
    notes: [],
  };
}

/** The `[tui]` header line of the file, if the table is written that way. */
const tuiHeader = (lines: readonly string[]) =>
  lines.findIndex((line) => /^\s*\[\s*tui\s*\]\s*(#.*)?$/.test(line));

/** Add muster's lines to a Codex config (undefined: there is no file yet). Idempotent. */
export function installCodex(original: string | undefined, server: ServerCommand): ConfigEdit {
  const undone = uninstallCodex(original);
  if (!undone.ok) return undone;
  const base = undone.text ?? "";
  const parsed = parseToml(base);
  if (!parsed.ok)
    return {
      ok: false,
      reason: "bad-config",
      error: `the Codex config does not parse (${parsed.error}); fix it first`,
    };
  const config = parsed.value;
  const servers = config.mcp_servers;
  if (isTable(servers) && "muster" in servers)
    return {
      ok: false,
      reason: "own-entry",
      error:
        "the Codex config has its own [mcp_servers.muster]; remove it, then run muster install codex again",
    };
  const lines = base === "" ? [] : base.split("\n");
  const block = [
    "[mcp_servers.muster]",
    `command = ${toml(server.command)}`,
    `args = ${tomlArray(server.args)}`,
    // The tmux server the callers' panes are on, and where the team lives: Codex filters the
    // environment it gives MCP servers, so these are passed on by name.
    `env_vars = ${tomlArray(ENV_VARS)}`,
    ...(server.env && Object.keys(server.env).length > 0
      ? [
          `env = { ${Object.entries(server.env)
            .map(([key, value]) => `${key} = ${toml(value)}`)
            .join(", ")} }`,
        ]
      : []),
    'default_tools_approval_mode = "approve"',
  ];
  const notes: string[] = [];
  const tui = config.tui;
  const header = tuiHeader(lines);
  if (tui === undefined) {
    block.push("", "[tui]", `terminal_title = ${tomlArray(TITLE)}`);
  } else if (header < 0 || !isTable(tui)) {
    return handEdit(
      'the Codex config sets tui without a [tui] table; add "thread-id" to its terminal_title by hand',
    );
  } else {
    const title = tui.terminal_title;
    if (title === undefined) {
      lines.splice(header + 1, 0, `terminal_title = ${tomlArray(TITLE)}${ADDED}`);
    } else if (!Array.isArray(title) || !title.every((item) => typeof item === "string")) {
      return handEdit(
        '[tui] terminal_title is not a list of items; make it one with "thread-id" in it by hand',
      );
    } else if (!title.includes("thread-id")) {
      const at = lines.findIndex(
        (line, index) => index > header && /^\s*terminal_title\s*=/.test(line),
      );
      if (at < 0 || !lines[at]!.includes("]"))
        return handEdit('[tui] terminal_title spans several lines; add "thread-id" to it by hand');
      lines.splice(
        at,
        1,
        `${WAS}${lines[at]}`,
        `terminal_title = ${tomlArray([...title, "thread-id"])}${ADDED}`,
      );
      notes.push(
        'added "thread-id" to your [tui] terminal_title, so muster can find each Codex thread\'s pane',
      );
    }
  }
  const edited = lines.join("\n");
  const flags = `${undone.text === undefined ? CREATED : ""}${edited !== "" && !edited.endsWith("\n") ? NEWLINE : ""}`;
  const separator = edited === "" ? "" : edited.endsWith("\n") ? "\n" : "\n\n";
  const text = `${edited}${separator}${[`${BEGIN}${flags}`, ...block, END].join("\n")}\n`;
  const check = parseToml(text);
  const entry =
    check.ok && isTable(check.value.mcp_servers) ? check.value.mcp_servers.muster : undefined;
  const titled = check.ok && isTable(check.value.tui) ? check.value.tui.terminal_title : undefined;
  if (
    !isTable(entry) ||
    entry.command !== server.command ||
    !Array.isArray(titled) ||
    !titled.includes("thread-id")
  )
    return handEdit(
      `muster's edit would not read back as intended${check.ok ? "" : ` (${check.error})`}; add [mcp_servers.muster] by hand`,
    );
  return { ok: true, text, changed: text !== original, notes };
}

function handEdit(error: string): ConfigEdit {
  return { ok: false, reason: "hand-edit", error };
}
