// `muster install codex`: muster's lines in a Codex config.toml, as a pure edit of its text. The
// user's content and comments stay as they are: muster appends one delimited block (its MCP server,
// and `[tui]` when the file has none) and, where the user's own `[tui] terminal_title` lacks
// "thread-id", keeps the user's line as a `# muster-was:` comment above its own. A TOML parser
// (smol-toml) reads the file before and checks the result after; nothing is written it disagrees
// with. A top-level `notify` runs muster's program after every turn (`muster hook codex notify`),
// which runs the user's own notify program, if there was one, with the same argument (chained).
// `--uninstall` undoes exactly these edits, so the file comes back byte for byte.
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
    // The user's own lines (one value may span several), kept as comments above muster's line.
    let end = index;
    while (lines[end]?.startsWith(WAS)) end += 1;
    if (end > index && lines[end]?.endsWith(ADDED)) {
      restored.push(...lines.slice(index, end).map((kept) => kept.slice(WAS.length)));
      index = end;
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
export function installCodex(
  original: string | undefined,
  server: ServerCommand,
  /** muster's notify program (`muster hook codex notify`); chained before the user's own. */
  notify?: readonly string[],
): ConfigEdit {
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
      const span = at < 0 ? 0 : valueLines(lines, at, "terminal_title", title);
      if (span === 0)
        return handEdit(
          '[tui] terminal_title is not written as one key; add "thread-id" to it by hand',
        );
      replaceValue(lines, at, span, `terminal_title = ${tomlArray([...title, "thread-id"])}`);
      notes.push(
        'added "thread-id" to your [tui] terminal_title, so muster can find each Codex thread\'s pane',
      );
    }
  }
  if (notify) {
    const chained = chainNotify(lines, config.notify, notify);
    if (!chained.ok) return handEdit(chained.error);
    notes.push(...chained.notes);
  }
  const edited = lines.join("\n");
  const flags = `${undone.text === undefined ? CREATED : ""}${edited !== "" && !edited.endsWith("\n") ? NEWLINE : ""}`;
  const separator = edited === "" ? "" : edited.endsWith("\n") ? "\n" : "\n\n";
  const text = `${edited}${separator}${[`${BEGIN}${flags}`, ...block, END].join("\n")}\n`;
  const check = parseToml(text);
  const entry =
    check.ok && isTable(check.value.mcp_servers) ? check.value.mcp_servers.muster : undefined;
  const titled = check.ok && isTable(check.value.tui) ? check.value.tui.terminal_title : undefined;
  const notified = check.ok ? check.value.notify : undefined;
  if (
    !isTable(entry) ||
    entry.command !== server.command ||
    !Array.isArray(titled) ||
    !titled.includes("thread-id") ||
    (notify !== undefined && !sameStrings(notified, notifyArgv(notify, config.notify)))
  )
    return handEdit(
      `muster's edit would not read back as intended${check.ok ? "" : ` (${check.error})`}; add [mcp_servers.muster] by hand`,
    );
  return { ok: true, text, changed: text !== original, notes };
}

const sameStrings = (value: unknown, expected: readonly string[]) =>
  Array.isArray(value) && JSON.stringify(value) === JSON.stringify(expected);

/**
 * How many lines from `at` hold the value of `key` (a value may span lines): the fewest that parse,
 * alone, to `expected`. 0 when none do (the key is written some other way).
 */
function valueLines(lines: readonly string[], at: number, key: string, expected: unknown): number {
  for (let count = 1; count <= 64 && at + count <= lines.length; count += 1) {
    const parsed = parseToml(lines.slice(at, at + count).join("\n"));
    if (parsed.ok && JSON.stringify(parsed.value[key]) === JSON.stringify(expected)) return count;
  }
  return 0;
}

/** Keep the user's lines as `# muster-was:` comments, muster's line after them. */
function replaceValue(lines: string[], at: number, count: number, line: string) {
  const kept = lines.slice(at, at + count).map((user) => `${WAS}${user}`);
  lines.splice(at, count, ...kept, `${line}${ADDED}`);
}

/** muster's notify, then `--` and the user's own program, which muster runs in turn. */
const notifyArgv = (muster: readonly string[], user: unknown) =>
  Array.isArray(user) && user.length > 0 ? [...muster, "--", ...(user as string[])] : [...muster];

/**
 * Put muster's notify program in the config's top-level `notify`. A user's own is kept: muster's
 * runs it with the same argument (chained), and the user's lines stay above as comments.
 */
function chainNotify(
  lines: string[],
  current: unknown,
  muster: readonly string[],
): { ok: true; notes: string[] } | { ok: false; error: string } {
  // Top-level keys come before the first table header.
  const header = lines.findIndex((line) => /^\s*\[/.test(line));
  const top = header < 0 ? lines.length : header;
  const line = `notify = ${tomlArray(notifyArgv(muster, current))}`;
  if (current === undefined) {
    // After the last top-level line that is not blank or a comment (the file's start if none).
    let at = top;
    while (at > 0 && /^\s*(#.*)?$/.test(lines[at - 1]!)) at -= 1;
    lines.splice(at, 0, `${line}${ADDED}`);
    return { ok: true, notes: [] };
  }
  if (!Array.isArray(current) || !current.every((item) => typeof item === "string"))
    return {
      ok: false,
      error: "notify is not a list of strings; make it one, or remove it, by hand",
    };
  const at = lines.findIndex((text, index) => index < top && /^\s*notify\s*=/.test(text));
  const span = at < 0 ? 0 : valueLines(lines, at, "notify", current);
  if (span === 0)
    return {
      ok: false,
      error: "notify is not written as one top-level key; chain muster's by hand",
    };
  replaceValue(lines, at, span, line);
  return current.length === 0
    ? { ok: true, notes: [] }
    : {
        ok: true,
        notes: [
          "kept your notify program: muster's runs it after every turn, with the same argument",
        ],
      };
}

function handEdit(error: string): ConfigEdit {
  return { ok: false, reason: "hand-edit", error };
}
