// The pane inventory: one `list-panes -a` for every pane of a server, parsed into typed panes.
// Fixed-form fields first, free text after, the title last so tabs and ` | ` in it survive.
import {
  runTmux,
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

export type Inventory = { server: ServerIdentity; panes: Pane[] };

const FIELDS = [
  "pane_id",
  "pane_pid",
  "pane_tty",
  "session_id",
  "window_id",
  "window_index",
  "pane_index",
  "pane_dead",
  "pid",
  "pane_current_command",
  "session_name",
  "socket_path",
  "pane_current_path",
  "pane_title",
] as const;

/** The `-F` format of the inventory: tab-separated, the title last. */
export const INVENTORY_FORMAT = FIELDS.map((field) => `#{${field}}`).join("\t");

export function inventoryArgs(target: ServerTarget): string[] {
  return [...serverArgs(target), "list-panes", "-a", "-F", INVENTORY_FORMAT];
}

/** A line tmux printed that is not an inventory line. It could be the match that should have refused. */
export class InventoryLineError extends Error {
  readonly code = "TMUX_UNPARSEABLE_LINE";
  readonly line: string;
  constructor(line: string, why: string) {
    super(`tmux printed a pane line muster cannot read (${why}): ${JSON.stringify(line)}`);
    this.line = line;
  }
}

const integer = (text: string) => (/^\d+$/.test(text) ? Number(text) : Number.NaN);

/** Parse one inventory line; throws `InventoryLineError` naming the line. */
export function parsePaneLine(line: string): Pane & { serverPid: number; socket: string } {
  const fields = line.split("\t");
  if (fields.length < FIELDS.length)
    throw new InventoryLineError(line, `${fields.length} fields, not ${FIELDS.length}`);
  // Missing fields were refused above; the defaults only satisfy the type checker.
  const [
    id = "",
    pid = "",
    tty = "",
    sessionId = "",
    windowId = "",
    windowIndex = "",
    paneIndex = "",
    dead = "",
    serverPid = "",
    command = "",
    sessionName = "",
    socket = "",
    path = "",
  ] = fields;
  const title = fields.slice(FIELDS.length - 1).join("\t");
  const pane = {
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
    serverPid: integer(serverPid),
    socket,
  };
  if (!/^%\d+$/.test(id)) throw new InventoryLineError(line, "no pane id");
  if (!/^\$\d+$/.test(sessionId) || !/^@\d+$/.test(windowId))
    throw new InventoryLineError(line, "no session or window id");
  if (dead !== "0" && dead !== "1") throw new InventoryLineError(line, "no dead flag");
  // A dead pane has no process: tmux prints an empty or zero pid for it.
  if (Number.isNaN(pane.pid) && !(pane.dead && pid === ""))
    throw new InventoryLineError(line, "no pane pid");
  if ([pane.windowIndex, pane.paneIndex, pane.serverPid].some(Number.isNaN))
    throw new InventoryLineError(line, "a number is not a number");
  return pane;
}

/** Parse the whole output of `list-panes -a` in the inventory format. */
export function parseInventory(stdout: string): Inventory {
  const panes: Pane[] = [];
  let server: ServerIdentity | undefined;
  for (const line of stdout.split("\n")) {
    if (line === "") continue;
    const { serverPid, socket, ...pane } = parsePaneLine(line);
    server ??= { socket, pid: serverPid };
    panes.push(pane);
  }
  return { server: server ?? { socket: "", pid: 0 }, panes };
}

export type InventoryResult =
  | { ok: true; inventory: Inventory }
  | { ok: false; reason: "no-server"; error: string };

/**
 * Every pane of the server, in one call. `list-panes -a` names no target, so a failing status means
 * tmux found no server to ask.
 */
export async function listPanes(run: TmuxRunner, target?: ServerTarget): Promise<InventoryResult> {
  const result = await runTmux(run, inventoryArgs(target));
  if (result.status !== 0) {
    return {
      ok: false,
      reason: "no-server",
      error: `no tmux server answered${describeTarget(target)}`,
    };
  }
  return { ok: true, inventory: parseInventory(result.stdout) };
}

export const describeTarget = (target: ServerTarget) =>
  !target ? "" : "socket" in target ? ` at ${target.socket}` : ` named ${target.name}`;
