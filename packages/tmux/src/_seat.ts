// Seat resolution: which pane, window and session an agent sits in — by pane id (verified), by
// process ancestry, or by a Codex thread id shown in the pane title (`_codex-seat.ts`). Results are values with stable
// reasons, what happened (`error`) and what to do (`fix`) apart: the fix for each reason is defined
// here, beside the check; a composer joins the two (core's `errorLine`).
import { decodeFreeText, field, freeText } from "./_format.js";
import { type Inventory, listPanes, type Pane } from "./_inventory.js";
import {
  noServer,
  PANE_ID,
  type ServerIdentity,
  type ServerTarget,
  serverArgs,
  serverName,
  type TmuxRunner,
} from "./_server.js";

export type Seat = {
  /** The server's socket path. */
  server: string;
  serverPid: number;
  /** Session id (`$N`), stable while the server runs. */
  session: string;
  sessionName: string;
  window: string;
  windowIndex: number;
  /** Pane id (`%N`). */
  pane: string;
  paneIndex: number;
};

export type SeatReason =
  | "unresolved"
  | "ambiguous"
  | "no-server"
  | "no-answer"
  | "bad-pane"
  | "bad-thread"
  | "not-codex";

export type SeatResult =
  | { ok: true; seat: Seat; note?: string | undefined }
  | {
      ok: false;
      reason: SeatReason;
      error: string;
      fix: string;
      candidates?: string[] | undefined;
    };

/**
 * What to do about each reason a seat search itself decides, by how the seat was looked for. A
 * server that is not there or does not answer (`no-server`, `no-answer`) carries the fix of the
 * server check (`noServer`, `listPanes`), which names the server.
 */
export const SEAT_FIXES = {
  byPane: {
    unresolved:
      "the pane is gone or on another tmux server; list panes with `tmux list-panes -a`, or pass -L/-S for the right server",
    "bad-pane": "a pane id is % and a number, as in $TMUX_PANE (e.g. %3)",
  },
  byProcess: {
    unresolved:
      "the process has no tmux pane among its ancestors: it runs outside tmux, under a daemon, or on another server (pass -L/-S)",
  },
  byCodexThread: {
    unresolved:
      'no pane shows that thread id: the Codex TUI may be on another tmux server or outside tmux, its ~/.codex/config.toml may lack "thread-id" in [tui] terminal_title, or the server may have allow-set-title off',
    ambiguous: "several panes show that thread id; name the pane (%N) to say which",
    "bad-thread": "pass the thread id Codex shows (from its session file name or the pane title)",
    "not-codex":
      "a pane title is only a hint, written by anything in the pane: run Codex in that pane, or name the pane (%N) Codex runs in",
  },
} as const satisfies Record<string, Partial<Record<SeatReason, string>>>;

export const seatOf = (pane: Pane, server: ServerIdentity): Seat => ({
  server: server.socket,
  serverPid: server.pid,
  session: pane.sessionId,
  sessionName: pane.sessionName,
  window: pane.windowId,
  windowIndex: pane.windowIndex,
  pane: pane.id,
  paneIndex: pane.paneIndex,
});

const SEAT_FORMAT = [
  ...["pane_id", "session_id", "window_id", "window_index", "pane_index", "pid"].map(field),
  ...["session_name", "socket_path"].map(freeText),
].join("\t");

/** The seat of pane `%N`, verified: tmux must echo the pane asked for, or it is `unresolved`. */
export async function seatByPane(
  run: TmuxRunner,
  paneId: string,
  target?: ServerTarget,
): Promise<SeatResult> {
  if (!PANE_ID.test(paneId)) {
    return {
      ok: false,
      reason: "bad-pane",
      error: `"${paneId}" is not a pane id`,
      fix: SEAT_FIXES.byPane["bad-pane"],
    };
  }
  const result = await run([
    ...serverArgs(target),
    "display-message",
    "-p",
    "-t",
    paneId,
    SEAT_FORMAT,
  ]);
  // A server that is not there or does not answer says so; a missing pane is `unresolved`.
  const failed = noServer(result, target);
  if (failed && (failed.reason === "no-answer" || !/can't find/i.test(result.stderr)))
    return { ok: false, ...failed };
  if (result.status === null)
    throw new Error("tmux display-message was killed by a signal: no answer");
  const line = result.stdout.replace(/\n$/, "");
  const [pane, session, window, windowIndex, paneIndex, serverPid, name, socketText, ...rest] =
    line.split("\t");
  const sessionName = name === undefined ? undefined : decodeFreeText(name);
  const socket = socketText === undefined ? undefined : decodeFreeText(socketText);
  // tmux answers a missing pane with an empty line (status 0) or an error, depending on version.
  if (
    result.status !== 0 ||
    pane !== paneId ||
    rest.length > 0 ||
    sessionName === undefined ||
    socket === undefined
  ) {
    return {
      ok: false,
      reason: "unresolved",
      error: `pane ${paneId} was not found on ${serverName(target)}`,
      fix: SEAT_FIXES.byPane.unresolved,
    };
  }
  return {
    ok: true,
    seat: {
      server: socket,
      serverPid: Number(serverPid),
      session: session ?? "",
      sessionName,
      window: window ?? "",
      windowIndex: Number(windowIndex),
      pane,
      paneIndex: Number(paneIndex),
    },
  };
}

/** A process table as seat resolution needs it: who is whose parent. */
export type ProcessLink = { pid: number; ppid: number };

/**
 * The pane whose pane pid is the nearest ancestor of `pid` (or `pid` itself). A `$TMUX_PANE` that
 * disagrees is not trusted: agents hosted by a daemon inherit another pane's variable.
 */
export function seatByProcess(
  inventory: Inventory,
  processes: readonly ProcessLink[],
  pid: number,
  claimedPane?: string,
): SeatResult {
  const parents = new Map(processes.map((row) => [row.pid, row.ppid]));
  const panes = new Map(
    inventory.panes.filter((pane) => !pane.dead).map((pane) => [pane.pid, pane]),
  );
  const seen = new Set<number>();
  for (
    let current: number | undefined = pid;
    current !== undefined && current > 0 && !seen.has(current);
    current = parents.get(current)
  ) {
    seen.add(current);
    const pane = panes.get(current);
    if (!pane) continue;
    const note =
      claimedPane && claimedPane !== pane.id
        ? `$TMUX_PANE says ${claimedPane}, but the process descends from ${pane.id}; the ancestry wins`
        : skippedNote(inventory);
    return { ok: true, seat: seatOf(pane, inventory.server), note };
  }
  return {
    ok: false,
    reason: "unresolved",
    error: `process ${pid} is in no tmux pane of this server`,
    fix: SEAT_FIXES.byProcess.unresolved,
  };
}

/**
 * The pane tmux itself acts on from outside any pane: the current pane of the server's most
 * recently used session (tmux's own rule for a command with no target), as a seat. A caller that
 * sits in no pane of the server can open a new window beside it.
 */
export async function currentSeat(run: TmuxRunner, target?: ServerTarget): Promise<SeatResult> {
  const result = await run([...serverArgs(target), "display-message", "-p", "#{pane_id}"]);
  const failed = noServer(result, target);
  if (failed) return { ok: false, ...failed };
  if (result.status === null)
    throw new Error("tmux display-message was killed by a signal: no answer");
  return seatByPane(run, result.stdout.trim(), target);
}

/** List the panes and find the seat of a process by ancestry. */
export async function findProcessSeat(
  run: TmuxRunner,
  processes: readonly ProcessLink[],
  pid: number,
  options: { target?: ServerTarget; claimedPane?: string | undefined } = {},
): Promise<SeatResult> {
  const listed = await listPanes(run, options.target);
  if (!listed.ok) return { ok: false, reason: listed.reason, error: listed.error, fix: listed.fix };
  return seatByProcess(listed.inventory, processes, pid, options.claimedPane);
}

/** Panes the inventory could not read were not considered: said, so an answer is not overtrusted. */
export const skippedNote = (inventory: Inventory) =>
  inventory.warnings && inventory.warnings.length > 0
    ? `${inventory.warnings.length} pane line(s) tmux printed could not be read and were not considered`
    : undefined;
