// Seat resolution: which pane, window and session an agent sits in — by pane id (verified), by
// process ancestry, or by a Codex thread id shown in the pane title. Results are values with stable
// reasons; the repair text for each reason is exported beside it.
import { describeTarget, type Inventory, listPanes, type Pane } from "./_inventory.js";
import {
  PANE_ID,
  runTmux,
  type ServerIdentity,
  type ServerTarget,
  serverArgs,
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

export type SeatReason = "unresolved" | "ambiguous" | "no-server" | "bad-pane" | "bad-thread";

export type SeatResult =
  | { ok: true; seat: Seat; note?: string | undefined }
  | { ok: false; reason: SeatReason; error: string; candidates?: string[] | undefined };

/** What to do about each reason, by how the seat was looked for. */
export const SEAT_REPAIRS = {
  byPane: {
    unresolved:
      "the pane is gone or on another tmux server; list panes with `tmux list-panes -a`, or pass -L/-S for the right server",
    "no-server":
      "no tmux server answered; start tmux, or pass -L/-S for the server the agent runs in",
    "bad-pane": "a pane id is % and a number, as in $TMUX_PANE (e.g. %3)",
  },
  byProcess: {
    unresolved:
      "the process has no tmux pane among its ancestors: it runs outside tmux, under a daemon, or on another server (pass -L/-S)",
    "no-server":
      "no tmux server answered; start tmux, or pass -L/-S for the server the agent runs in",
  },
  byCodexThread: {
    unresolved:
      'no pane shows that thread id: the Codex TUI may be on another tmux server or outside tmux, its ~/.codex/config.toml may lack "thread-id" in [tui] terminal_title, or the server may have allow-set-title off',
    ambiguous: "several panes show that thread id; pass --pane %N to say which",
    "no-server": "no tmux server answered; start tmux, or pass -L/-S for the server Codex runs in",
    "bad-thread": "pass the thread id Codex shows (from its session file name or the pane title)",
  },
} as const;

const seatOf = (pane: Pane, server: ServerIdentity): Seat => ({
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
  "pane_id",
  "session_id",
  "window_id",
  "window_index",
  "pane_index",
  "pid",
  "session_name",
  "socket_path",
]
  .map((field) => `#{${field}}`)
  .join("\t");

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
      error: `"${paneId}" is not a pane id; ${SEAT_REPAIRS.byPane["bad-pane"]}`,
    };
  }
  const result = await runTmux(run, [
    ...serverArgs(target),
    "display-message",
    "-p",
    "-t",
    paneId,
    SEAT_FORMAT,
  ]);
  const line = result.stdout.replace(/\n$/, "");
  const [pane, session, window, windowIndex, paneIndex, serverPid, ...rest] = line.split("\t");
  // tmux answers a missing pane with an empty line (status 0) or an error, depending on version.
  if (result.status !== 0 || pane !== paneId || rest.length < 2) {
    return {
      ok: false,
      reason: "unresolved",
      error: `pane ${paneId} was not found${describeTarget(target)}; ${SEAT_REPAIRS.byPane.unresolved}`,
    };
  }
  const socket = rest.slice(1).join("\t");
  return {
    ok: true,
    seat: {
      server: socket,
      serverPid: Number(serverPid),
      session: session ?? "",
      sessionName: rest[0] ?? "",
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
        : undefined;
    return { ok: true, seat: seatOf(pane, inventory.server), note };
  }
  return {
    ok: false,
    reason: "unresolved",
    error: `process ${pid} is in no tmux pane of this server; ${SEAT_REPAIRS.byProcess.unresolved}`,
  };
}

/** How many characters of a thread id Codex shows before `...` in a terminal title. */
export const CODEX_TITLE_ID_LENGTH = 29;

/** Does this title show the thread, in full or as Codex truncates it? */
export function titleShowsThread(title: string, threadId: string): boolean {
  const short =
    threadId.length > CODEX_TITLE_ID_LENGTH
      ? `${threadId.slice(0, CODEX_TITLE_ID_LENGTH)}...`
      : undefined;
  // Split on " | " and on spaces: an activity spinner is joined to the id by a plain space.
  const tokens = title.split(" | ").flatMap((part) => part.split(/\s+/));
  return tokens.some((token) => token === threadId || (short !== undefined && token === short));
}

/** The one pane whose title shows a Codex thread id: placement evidence, counted by pane. */
export function seatByCodexThread(inventory: Inventory, threadId: string): SeatResult {
  const id = threadId.trim();
  if (id === "")
    return {
      ok: false,
      reason: "bad-thread",
      error: `the thread id is empty; ${SEAT_REPAIRS.byCodexThread["bad-thread"]}`,
    };
  const matches = inventory.panes.filter((pane) => !pane.dead && titleShowsThread(pane.title, id));
  if (matches.length === 0) {
    return {
      ok: false,
      reason: "unresolved",
      error: `no pane shows Codex thread ${id}; ${SEAT_REPAIRS.byCodexThread.unresolved}`,
    };
  }
  if (matches.length > 1) {
    const candidates = matches.map((pane) => pane.id);
    return {
      ok: false,
      reason: "ambiguous",
      error: `${matches.length} panes show Codex thread ${id} (${candidates.join(", ")}); ${SEAT_REPAIRS.byCodexThread.ambiguous}`,
      candidates,
    };
  }
  return { ok: true, seat: seatOf(matches[0]!, inventory.server) };
}

/** List the panes and find the Codex thread's seat; an empty id is refused before any tmux call. */
export async function findCodexSeat(
  run: TmuxRunner,
  threadId: string,
  target?: ServerTarget,
): Promise<SeatResult> {
  if (threadId.trim() === "")
    return seatByCodexThread({ server: { socket: "", pid: 0 }, panes: [] }, threadId);
  const listed = await listPanes(run, target);
  if (!listed.ok)
    return {
      ok: false,
      reason: "no-server",
      error: `${listed.error}; ${SEAT_REPAIRS.byCodexThread["no-server"]}`,
    };
  return seatByCodexThread(listed.inventory, threadId);
}

/** List the panes and find the seat of a process by ancestry. */
export async function findProcessSeat(
  run: TmuxRunner,
  processes: readonly ProcessLink[],
  pid: number,
  options: { target?: ServerTarget; claimedPane?: string | undefined } = {},
): Promise<SeatResult> {
  const listed = await listPanes(run, options.target);
  if (!listed.ok)
    return {
      ok: false,
      reason: "no-server",
      error: `${listed.error}; ${SEAT_REPAIRS.byProcess["no-server"]}`,
    };
  return seatByProcess(listed.inventory, processes, pid, options.claimedPane);
}
