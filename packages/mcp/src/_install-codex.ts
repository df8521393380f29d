// `muster install codex`: muster's keys in a Codex config.toml, as pure edits by byte range
// (`_toml-edit.ts`). muster owns exactly what it writes: the `[mcp_servers.muster]` table (and
// anything under it, however Codex splits or moves it), its own program at the front of the
// top-level `notify` (the user's program, if any, after `--`: muster's hook runs it, chained), and
// a "thread-id" it added to `[tui] terminal_title` (or the key, or the `[tui]` table, when the
// file had none), and a top-level `mcp_optional_startup_grace_ms` when the file had none
// (`_codex-grace.ts`). It finds them by what they are, wherever they sit; uninstall cuts exactly those
// bytes, and what it needs to know of the file before the first install (`before`) it is told.
// smol-toml reads the result back: an edit that would not read as intended is refused.
import { SERVER_ENV } from "@muster/wiring";
import { parse } from "smol-toml";
import { updateEnvVars } from "./_codex-env-vars.js";
import { addGrace } from "./_codex-grace.js";
import {
  isOurServer,
  isStrings,
  isTable,
  musterNotifyEnd,
  sameValue,
  type Table,
  userNotify,
} from "./_codex-values.js";
import {
  arrayOf,
  entries,
  headerLines,
  type Splice,
  splice,
  startsWith,
  type TomlTree,
  tables,
  tomlTree,
  wholeLines,
} from "./_toml-edit.js";

/** How the engine starts the server. */
export type ServerCommand = { command: string; args: string[]; env?: Record<string, string> };

export type ConfigEdit =
  /** `text` undefined: the file should not exist (muster created it and nothing else is in it). */
  | { ok: true; text: string | undefined; changed: boolean; changes: string[]; notes: string[] }
  | { ok: false; reason: "bad-config" | "own-entry" | "hand-edit"; error: string };

const TITLE = ["project", "thread-id"];
const SERVER = ["mcp_servers", "muster"];
/** Passed through to the server when set: wiring's SERVER_ENV, the settings a muster server reads. */
export const ENV_VARS = SERVER_ENV;

const toml = (value: string) => JSON.stringify(value);
const tomlList = (values: readonly string[]) => values.map(toml).join(", ");
function read(text: string): { ok: true; value: Table } | { ok: false; error: string } {
  try {
    return { ok: true, value: parse(text) as Table };
  } catch (error) {
    return { ok: false, error: (error as Error).message.split("\n")[0] ?? "does not parse" };
  }
}

const refuse = (reason: "bad-config" | "own-entry" | "hand-edit", error: string): ConfigEdit => ({
  ok: false,
  reason,
  error,
});

function serverEntry(server: ServerCommand): Table {
  return {
    command: server.command,
    args: server.args,
    // Codex filters the environment it gives MCP servers: muster's settings are passed on by name.
    env_vars: ENV_VARS,
    ...(server.env && Object.keys(server.env).length > 0 ? { env: server.env } : {}),
    default_tools_approval_mode: "approve",
  };
}

function serverBlock(server: ServerCommand): string {
  const entry = serverEntry(server);
  const env = entry.env as Record<string, string> | undefined;
  return [
    "[mcp_servers.muster]",
    `command = ${toml(server.command)}`,
    `args = [${tomlList(server.args)}]`,
    `env_vars = [${tomlList(ENV_VARS)}]`,
    ...(env
      ? [
          `env = { ${Object.entries(env)
            .map(([key, value]) => `${key} = ${toml(value)}`)
            .join(", ")} }`,
        ]
      : []),
    'default_tools_approval_mode = "approve"',
    "",
  ].join("\n");
}

/**
 * `text` with `block` (whole lines) after a blank line, below the file's last table or key but
 * above the comments that end the file: Codex keeps a file's closing comments where they are when
 * it rewrites its tables, and drops those that stand between two tables.
 */
function appendBlock(text: string, block: string): string {
  const parsed = tomlTree(text);
  const last = parsed.ok ? parsed.tree.body[0].body.at(-1) : undefined;
  const at = last ? wholeLines(text, last.range[0], last.range[1]).to : text.length;
  const head = text.slice(0, at);
  const tail = text.slice(at);
  if (head === "" || head.endsWith("\n\n")) return `${head}${block}${tail}`;
  return `${head}${head.endsWith("\n") ? "\n" : "\n\n"}${block}${tail}`;
}

/** The cuts that take the server entry out, wherever it is; a refusal for an inline table. */
export function serverCuts(text: string, tree: TomlTree): Splice[] | string {
  const cuts: Splice[] = [];
  for (const entry of entries(tree)) {
    if (startsWith(entry.path, SERVER))
      cuts.push(wholeLines(text, entry.node.range[0], entry.node.range[1]));
    else if (entry.path.length < SERVER.length && startsWith(SERVER, entry.path))
      return "[mcp_servers] is written as an inline table; take muster out of it by hand";
  }
  for (const table of tables(tree))
    if (startsWith(table.resolvedKey, SERVER)) cuts.push(headerLines(text, table));
  return cuts;
}

/** Add muster's keys to a Codex config (undefined: there is no file yet). Idempotent. */
export function installCodex(
  original: string | undefined,
  server: ServerCommand,
  /** muster's notify program (`muster hook codex notify`); the user's own runs after it. */
  notify?: readonly string[],
): ConfigEdit {
  const base = original ?? "";
  const before = read(base);
  const parsed = tomlTree(base);
  if (!before.ok || !parsed.ok)
    return refuse(
      "bad-config",
      `the Codex config does not parse (${before.ok ? (parsed as { error: string }).error : before.error}); fix it first`,
    );
  const config = before.value;
  const existing = isTable(config.mcp_servers) ? config.mcp_servers.muster : undefined;
  if (existing !== undefined && !isOurServer(existing))
    return refuse(
      "own-entry",
      "the Codex config has its own [mcp_servers.muster]; remove it, then run muster install codex again",
    );
  const changes: string[] = [];
  const notes: string[] = [];
  let text = base;
  const expected = structuredClone(config);
  // The server: laid anew at the end when it is missing or not as muster writes it; when only its
  // env_vars differ (an older muster's list), that list is replaced where it stands.
  const entry = serverEntry(server);
  const laid = tomlTree(text) as { ok: true; tree: TomlTree };
  const updated = sameValue(existing, entry)
    ? undefined
    : updateEnvVars(text, laid.tree, existing, entry);
  if (updated !== undefined) {
    text = updated;
    changes.push(
      `[mcp_servers.muster] env_vars: it now passes on ${ENV_VARS.join(", ")} (the settings muster's server reads; Codex passes on no others)`,
    );
  } else if (!sameValue(existing, entry)) {
    const cuts = serverCuts(text, laid.tree);
    if (typeof cuts === "string") return refuse("hand-edit", cuts);
    text = appendBlock(splice(text, cuts), serverBlock(server));
    const approve = 'its tools run without asking (default_tools_approval_mode = "approve")';
    changes.push(
      `[mcp_servers.muster]: Codex starts muster's MCP server (${[server.command, ...server.args].join(" ")}), the team's tools; ${approve}; it passes on ${ENV_VARS.join(", ")}`,
    );
  }
  expected.mcp_servers = {
    ...(isTable(config.mcp_servers) ? config.mcp_servers : {}),
    muster: entry,
  };
  const titled = addTitle(text, config, expected, changes);
  if (typeof titled !== "string") return titled;
  text = titled;
  if (notify) {
    const notified = chainNotify(text, config, notify, expected, changes);
    if (typeof notified !== "string") return notified;
    text = notified;
  }
  const tree = tomlTree(text) as { ok: true; tree: TomlTree };
  text = addGrace(text, tree.tree, config, expected, changes, notes);
  const check = read(text);
  if (!check.ok || !sameValue(check.value, expected))
    return refuse(
      "hand-edit",
      `muster's edit would not read back as intended${check.ok ? "" : ` (${check.error})`}; add [mcp_servers.muster] by hand`,
    );
  return { ok: true, text, changed: text !== base || original === undefined, changes, notes };
}

/** "thread-id" in `[tui] terminal_title`: the user's list keeps its items and bytes. */
function addTitle(
  text: string,
  config: Table,
  expected: Table,
  changes: string[],
): string | ConfigEdit {
  const tui = config.tui;
  const why = "so muster finds each Codex thread's pane";
  if (tui === undefined) {
    expected.tui = { terminal_title: TITLE };
    changes.push(`[tui] terminal_title = [${tomlList(TITLE)}]: ${why}`);
    return appendBlock(text, `[tui]\nterminal_title = [${tomlList(TITLE)}]\n`);
  }
  const tree = tomlTree(text) as { ok: true; tree: TomlTree };
  const header = tables(tree.tree).find((table) => table.resolvedKey.join(".") === "tui");
  if (!isTable(tui) || !header)
    return refuse(
      "hand-edit",
      'the Codex config sets tui without a [tui] table; add "thread-id" to its terminal_title by hand',
    );
  const title = tui.terminal_title;
  if (title === undefined) {
    expected.tui = { ...tui, terminal_title: TITLE };
    changes.push(`[tui] terminal_title = [${tomlList(TITLE)}]: ${why}`);
    const at = text.indexOf("\n", header.key.range[1]);
    const line = `terminal_title = [${tomlList(TITLE)}]\n`;
    return at < 0 ? `${text}\n${line}` : `${text.slice(0, at + 1)}${line}${text.slice(at + 1)}`;
  }
  const list = arrayOf(
    entries(tree.tree).find((entry) => entry.path.join(".") === "tui.terminal_title"),
  );
  if (!isStrings(title) || !list)
    return refuse(
      "hand-edit",
      '[tui] terminal_title is not a list of items; make it one with "thread-id" in it by hand',
    );
  if (title.includes("thread-id")) return text;
  expected.tui = { ...tui, terminal_title: [...title, "thread-id"] };
  changes.push(`[tui] terminal_title: "thread-id" added after your items, ${why}`);
  const last = list.elements.at(-1);
  return last
    ? splice(text, [{ from: last.range[1], to: last.range[1], content: ', "thread-id"' }])
    : splice(text, [{ from: list.range[0] + 1, to: list.range[0] + 1, content: '"thread-id"' }]);
}

/** muster's program at the front of the top-level `notify`; the user's own runs after `--`. */
function chainNotify(
  text: string,
  config: Table,
  muster: readonly string[],
  expected: Table,
  changes: string[],
): string | ConfigEdit {
  const current = config.notify;
  const own = userNotify(current);
  const wanted = own && own.length > 0 ? [...muster, "--", ...own] : [...muster];
  expected.notify = wanted;
  if (sameValue(current, wanted)) return text;
  const tree = tomlTree(text) as { ok: true; tree: TomlTree };
  const entry = entries(tree.tree).find((item) => item.path.join(".") === "notify" && !item.table);
  const why =
    "muster runs after every turn (hook codex notify), to hand the thread mail that waits";
  if (current === undefined) {
    changes.push(`notify = [${tomlList(muster)}]: ${why}`);
    const top = tree.tree.body[0].body.filter((item) => item.type === "TOMLKeyValue").at(-1);
    const line = `notify = [${tomlList(wanted)}]\n`;
    if (!top) return `${line}${text}`;
    const at = wholeLines(text, top.range[0], top.range[1]).to;
    return `${text.slice(0, at)}${at > 0 && text[at - 1] !== "\n" ? "\n" : ""}${line}${text.slice(at)}`;
  }
  const list = arrayOf(entry);
  if (!isStrings(current) || !list)
    return refuse(
      "hand-edit",
      entry
        ? "notify is not a list of strings; make it one, or remove it, by hand"
        : "notify is not written as one top-level key; chain muster's by hand",
    );
  const end = musterNotifyEnd(current);
  const elements = list.elements;
  changes.push(
    `notify: ${why}${own && own.length > 0 ? `, then yours (${own[0]}) with the same argument` : ""}`,
  );
  if (end >= 0)
    // An older muster's program (a moved install): replaced, the user's part left as it is.
    return splice(text, [
      { from: elements[0]!.range[0], to: elements[end]!.range[1], content: tomlList(muster) },
    ]);
  return elements[0]
    ? splice(text, [
        {
          from: elements[0].range[0],
          to: elements[0].range[0],
          content: `${tomlList([...muster, "--"])}, `,
        },
      ])
    : splice(text, [{ from: list.range[0] + 1, to: list.range[0] + 1, content: tomlList(muster) }]);
}
