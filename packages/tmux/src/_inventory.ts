// The pane inventory: one tmux call for every pane of a server, parsed into typed panes. The
// server's identity comes from the server (`display-message`), not from a pane's line; free text
// is escaped by tmux (see _format.ts), so a tab or newline in a command, a directory or a title
// cannot move a field; a line that still does not parse is skipped with a warning, never fatal.
import { decodeFreeText, field, freeText } from "./_format.js";
import {
  type NoServer,
  noServer,
  type ServerIdentity,
  type ServerTarget,
  serverArgs,
  type TmuxRunner,
} from "./_server.js";

export type Pane = {
  id: string;
  pid: number;
  tty: string;
  sessionId: string;
  sessionName: string;
  windowId: string;
  windowIndex: number;
  paneIndex: number;
  dead: boolean;
  /** tmux's view of the foreground command: placement evidence, not identity. */
  command: string;
  path: string;
  /** Written by anything in the pane: placement evidence only, never identity or liveness. */
  title: string;
};

/** The panes, the server they are on, and a warning for each pane line that could not be read. */
export type Inventory = { server: ServerIdentity; panes: Pane[]; warnings?: string[] | undefined };

const FIXED = [
  "pane_id",
  "pane_pid",
  "session_id",
  "window_id",
  "window_index",
  "pane_index",
  "pane_dead",
] as const;
const FREE = [
  "pane_tty",
  "pane_current_command",
  "session_name",
  "pane_current_path",
  "pane_title",
] as const;

/** The `-F` format of a pane line: tab-separated, ids and numbers first, escaped free text after. */
export const INVENTORY_FORMAT = [...FIXED.map(field), ...FREE.map(freeText)].join("\t");

/** The format of the server's own line: its pid and its socket path. */
export const SERVER_FORMAT = [field("pid"), freeText("socket_path")].join("\t");

/** One tmux call: the server's line (`display-message -p`), then every pane (`list-panes -a`). */
export function inventoryArgs(target: ServerTarget): string[] {
  return [
    ...serverArgs(target),
    "display-message",
    "-p",
    SERVER_FORMAT,
    ";",
    "list-panes",
    "-a",
    "-F",
    INVENTORY_FORMAT,
  ];
}

/** A line tmux printed that is not an inventory line. */
export class InventoryLineError extends Error {
  readonly code = "TMUX_UNPARSEABLE_LINE";
  readonly line: string;
  constructor(line: string, reason: string) {
    const shown = line.length > 120 ? `${line.slice(0, 120)}…` : line;
    super(`tmux printed a line muster cannot read (${reason}): ${JSON.stringify(shown)}`);
    this.line = line;
  }
}

const integer = (text: string) => (/^\d+$/.test(text) ? Number(text) : Number.NaN);

/** Parse one pane line; throws `InventoryLineError` naming the line. */
export function parsePaneLine(line: string): Pane {
  const fields = line.split("\t");
  const count = FIXED.length + FREE.length;
  if (fields.length !== count)
    throw new InventoryLineError(line, `${fields.length} fields, not ${count}`);
  const [id = "", pid = "", sessionId = "", windowId = "", windowIndex = "", paneIndex = ""] =
    fields;
  const dead = fields[6];
  const [tty, command, sessionName, path, title] = fields.slice(FIXED.length).map(decodeFreeText);
  if (!/^%\d+$/.test(id)) throw new InventoryLineError(line, "no pane id");
  if (!/^\$\d+$/.test(sessionId) || !/^@\d+$/.test(windowId))
    throw new InventoryLineError(line, "no session or window id");
  if (dead !== "0" && dead !== "1") throw new InventoryLineError(line, "no dead flag");
  if (
    tty === undefined ||
    command === undefined ||
    sessionName === undefined ||
    path === undefined ||
    title === undefined
  )
    throw new InventoryLineError(line, "a text field is not escaped");
  const pane: Pane = {
    id,
    pid: integer(pid),
    tty,
    sessionId,
    sessionName,
    windowId,
    windowIndex: integer(windowIndex),
    paneIndex: integer(paneIndex),
    dead: dead === "1",
    command,
    path,
    title,
  };
  // A dead pane has no process: tmux prints an empty or zero pid for it.
  if (Number.isNaN(pane.pid) && !(pane.dead && pid === ""))
    throw new InventoryLineError(line, "no pane pid");
  if (Number.isNaN(pane.windowIndex) || Number.isNaN(pane.paneIndex))
    throw new InventoryLineError(line, "a number is not a number");
  return pane;
}

/** Parse the server's line: its pid and socket path. Throws `InventoryLineError`. */
export function parseServerLine(line: string): ServerIdentity {
  const [pid = "", socket, ...rest] = line.split("\t");
  const path = socket === undefined ? undefined : decodeFreeText(socket);
  if (rest.length > 0 || path === undefined || !path.startsWith("/") || !/^[1-9]\d*$/.test(pid))
    throw new InventoryLineError(line, "not the server's pid and socket");
  return { socket: path, pid: Number(pid) };
}

/**
 * Parse the output of `inventoryArgs`: the server's line, then one line per pane. A pane line that
 * does not parse is skipped, with a warning naming it; a server line that does not parse throws.
 */
export function parseInventory(stdout: string): Inventory {
  const [first = "", ...lines] = stdout.split("\n");
  const server = parseServerLine(first);
  const panes: Pane[] = [];
  const warnings: string[] = [];
  for (const line of lines) {
    if (line === "") continue;
    try {
      panes.push(parsePaneLine(line));
    } catch (error) {
      if (!(error instanceof InventoryLineError)) throw error;
      warnings.push(`${error.message}; that pane was skipped`);
    }
  }
  return { server, panes, warnings };
}

export type InventoryResult =
  | { ok: true; inventory: Inventory }
  | ({ ok: false; reason: NoServer["reason"] } & NoServer);

/** Every pane of the server, in one call: `no-server` when tmux cannot reach it, `no-answer` when it hangs. */
export async function listPanes(run: TmuxRunner, target?: ServerTarget): Promise<InventoryResult> {
  const result = await run(inventoryArgs(target));
  const failed = noServer(result, target);
  if (failed) return { ok: false, ...failed };
  if (result.status === null) throw new Error("tmux list-panes was killed by a signal: no answer");
  return { ok: true, inventory: parseInventory(result.stdout) };
}
